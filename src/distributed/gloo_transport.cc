// libopenpjrt_gloo.so: the processes' full mesh over Gloo's TCP transport (transport.h).
//
// Rendezvous: Gloo's rendezvous context publishes each rank's listening addresses in a store;
// ours forwards to the PJRT key-value store (values hex-encoded: the coordination service that
// JAX provides keeps text). Exchange: every rank sends an 8-byte size and then its bytes to every
// other rank on two Gloo slots derived from the tag, and receives theirs the same way. All
// receives are posted before any wait, so the order in which ranks arrive does not matter.
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/store.h"
#include "gloo/transport/tcp/device.h"
#include "gloo/transport/unbound_buffer.h"
#include "src/distributed/transport.h"

namespace openpjrt::distributed {
namespace {

std::string Hex(const std::vector<char>& data) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(data.size() * 2);
  for (char c : data) {
    const unsigned char u = static_cast<unsigned char>(c);
    out.push_back(kDigits[u >> 4]);
    out.push_back(kDigits[u & 15]);
  }
  return out;
}

std::vector<char> Unhex(const std::string& text, const std::string& key) {
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw std::runtime_error("key-value store: '" + key + "' does not hold a Gloo address");
  };
  if (text.size() % 2) throw std::runtime_error("key-value store: '" + key + "' is truncated");
  std::vector<char> out(text.size() / 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<char>(digit(text[2 * i]) * 16 + digit(text[2 * i + 1]));
  return out;
}

class KvGlooStore : public gloo::rendezvous::Store {
 public:
  explicit KvGlooStore(const MeshConfig& config) : config_(config) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    std::string error = config_.kv_set(config_.key_prefix + key, Hex(data));
    if (!error.empty()) throw std::runtime_error(error);
  }
  std::vector<char> get(const std::string& key) override {
    std::string value;
    std::string error = config_.kv_get(config_.key_prefix + key, config_.timeout_ms, &value);
    if (!error.empty()) throw std::runtime_error(Who(key) + error);
    return Unhex(value, config_.key_prefix + key);
  }
  void wait(const std::vector<std::string>& keys) override {
    wait(keys, std::chrono::milliseconds(config_.timeout_ms));
  }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    for (const std::string& key : keys) {
      std::string value;
      std::string error = config_.kv_get(config_.key_prefix + key, static_cast<int>(timeout.count()), &value);
      if (!error.empty()) throw std::runtime_error(Who(key) + error);
    }
  }

 private:
  // Gloo publishes rank r's addresses under the key "r": the process that never did.
  std::string Who(const std::string& key) const {
    if (key.empty() || key.find_first_not_of("0123456789") != std::string::npos || key.size() > 6) return "";
    const int rank = std::stoi(key);
    if (rank < 0 || rank >= config_.size) return "";
    return "process " + std::to_string(config_.process_ids[rank]) + " never published its address: ";
  }

  const MeshConfig& config_;
};

// What one exchange's pending transfers point at. Freed with the exchange when it succeeds; kept
// by the mesh when it fails, since a transfer still posted may touch it later.
struct Transfers {
  std::shared_ptr<const std::vector<char>> mine;
  uint64_t my_size = 0;
  std::vector<uint64_t> sizes;
  std::vector<std::vector<char>> data;
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> buffers;
};

class GlooMesh : public Mesh {
 public:
  GlooMesh(MeshConfig config, std::shared_ptr<gloo::rendezvous::Context> context)
      : config_(std::move(config)), context_(std::move(context)) {}

  bool failed() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return !error_.empty();
  }

  std::string Exchange(uint64_t tag, std::vector<char> mine, std::vector<std::vector<char>>* theirs) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_.empty()) return error_;
    }
    const int n = config_.size, me = config_.rank;
    theirs->assign(static_cast<size_t>(n), {});
    auto t = std::make_unique<Transfers>();
    t->mine = std::make_shared<const std::vector<char>>(std::move(mine));
    t->my_size = t->mine->size();
    t->sizes.assign(static_cast<size_t>(n), 0);
    t->data.resize(static_cast<size_t>(n));
    const uint64_t size_slot = tag * 2, data_slot = tag * 2 + 1;
    const std::chrono::milliseconds timeout(config_.timeout_ms);
    char* payload = const_cast<char*>(t->mine->data());
    int peer = -1;
    const char* stage = "";
    try {
      std::vector<gloo::transport::UnboundBuffer*> size_in(n), data_in(n), outs;
      std::vector<int> out_peer;
      auto make = [&](void* p, size_t bytes) {
        t->buffers.push_back(context_->createUnboundBuffer(p, bytes));
        return t->buffers.back().get();
      };
      stage = "posting transfers to";
      for (peer = 0; peer < n; ++peer) {
        if (peer == me) continue;
        size_in[peer] = make(&t->sizes[peer], sizeof(uint64_t));
        size_in[peer]->recv(peer, size_slot);
      }
      for (peer = 0; peer < n; ++peer) {
        if (peer == me) continue;
        outs.push_back(make(&t->my_size, sizeof(uint64_t)));
        outs.back()->send(peer, size_slot);
        outs.push_back(make(payload, t->mine->size()));
        outs.back()->send(peer, data_slot);
        out_peer.push_back(peer);
        out_peer.push_back(peer);
      }
      stage = "waiting for the size of the collective's data from";
      for (peer = 0; peer < n; ++peer) {
        if (peer == me) continue;
        if (!size_in[peer]->waitRecv(timeout)) throw std::runtime_error("the receive was aborted");
        if (t->sizes[peer] == 0) throw std::runtime_error("an empty deposit");
        t->data[peer].resize(t->sizes[peer]);
        data_in[peer] = make(t->data[peer].data(), t->data[peer].size());
        data_in[peer]->recv(peer, data_slot);
      }
      stage = "waiting for the collective's data from";
      for (peer = 0; peer < n; ++peer)
        if (peer != me && !data_in[peer]->waitRecv(timeout)) throw std::runtime_error("the receive was aborted");
      stage = "sending the collective's data to";
      for (size_t i = 0; i < outs.size(); ++i) {
        peer = out_peer[i];
        if (!outs[i]->waitSend(timeout)) throw std::runtime_error("the send was aborted");
      }
    } catch (const std::exception& e) {
      const int who = peer >= 0 && peer < n ? config_.process_ids[peer] : -1;
      std::string why = "cross-process collective: " + std::string(stage) + " process " +
                        std::to_string(who) + " failed (a peer that died or hung, or a timeout of " +
                        std::to_string(config_.timeout_ms) + " ms): " + e.what();
      std::lock_guard<std::mutex> lock(mu_);
      if (error_.empty()) error_ = why;
      kept_.push_back(std::move(t));
      return why;
    }
    for (int p = 0; p < n; ++p) (*theirs)[p] = std::move(t->data[p]);
    return "";
  }

 private:
  MeshConfig config_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  mutable std::mutex mu_;
  std::string error_;
  std::vector<std::unique_ptr<Transfers>> kept_;
};

}  // namespace
}  // namespace openpjrt::distributed

extern "C" __attribute__((visibility("default"))) openpjrt::distributed::Mesh* openpjrt_gloo_connect_mesh(
    const openpjrt::distributed::MeshConfig* config, std::string* error) {
  using namespace openpjrt::distributed;
  try {
    gloo::transport::tcp::attr attr;
    if (!config->iface.empty()) attr.iface = config->iface;
    else if (!config->hostname.empty()) attr.hostname = config->hostname;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(config->rank, config->size);
    context->setTimeout(std::chrono::milliseconds(config->timeout_ms));
    KvGlooStore store(*config);
    context->connectFullMesh(store, device);
    return new GlooMesh(*config, std::move(context));
  } catch (const std::exception& e) {
    *error = std::string("connecting the processes' Gloo mesh: ") + e.what() +
             " (set OPENPJRT_GLOO_HOSTNAME or OPENPJRT_GLOO_IFACE to the address other processes reach"
             " this one on)";
    return nullptr;
  }
}
