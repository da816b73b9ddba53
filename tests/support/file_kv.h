// A key-value store that forked processes share through a folder: one file per key, written
// under a temporary name and renamed into place, read by polling until it appears. The PJRT
// key-value callbacks of the distributed tests and the cross-process benchmark stand on it.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

namespace openpjrt::testing {

class FileKv {
 public:
  explicit FileKv(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  void Put(const std::string& key, const std::string& value) const {
    const std::string path = PathOf(key);
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
      std::ofstream f(tmp, std::ios::binary);
      f.write(value.data(), static_cast<std::streamsize>(value.size()));
    }
    std::rename(tmp.c_str(), path.c_str());
  }

  // The value once it exists; nothing when timeout_ms passes first.
  std::optional<std::string> Get(const std::string& key, int timeout_ms) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      std::ifstream f(PathOf(key), std::ios::binary);
      if (f) {
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
      }
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

 private:
  std::string PathOf(std::string key) const {
    for (char& c : key)
      if (c == '/' || c == ':') c = '_';
    return dir_ + "/" + key;
  }
  std::string dir_;
};

}  // namespace openpjrt::testing
