// Input handling shared by the verbs: reading files and splitting them into modules.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/openpjrt/verbs.h"

#include "src/ir/bytecode.h"

namespace openpjrt::tools {

bool ReadFile(const std::string& path, std::string* out, std::string* error) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    *out = ss.str();
    return true;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

int TakeInputArg(const char* verb, const std::string& arg, std::string* file, const char* usage) {
  if (!arg.empty() && arg[0] == '-' && arg != "-") {
    std::fprintf(stderr, "openpjrt %s: unknown option '%s'\n%s", verb, arg.c_str(), usage);
    return 2;
  }
  if (!file->empty()) {
    std::fprintf(stderr, "openpjrt %s: more than one input file\n%s", verb, usage);
    return 2;
  }
  *file = arg;
  return 0;
}

int LoadInput(const char* verb, const std::string& file, bool split, const char* usage,
              std::string* text, std::vector<ir::SourceChunk>* chunks) {
  if (file.empty()) {
    std::fprintf(stderr, "openpjrt %s: no input file\n%s", verb, usage);
    return 2;
  }
  std::string error;
  if (!ReadFile(file, text, &error)) {
    std::fprintf(stderr, "openpjrt %s: %s\n", verb, error.c_str());
    return 1;
  }
  chunks->clear();
  if (split && !ir::IsBytecode(*text)) {  // a portable artifact is one module, never split
    *chunks = ir::SplitInputFile(*text);
  } else {
    chunks->push_back({*text, 1});
  }
  return 0;
}

}  // namespace openpjrt::tools
