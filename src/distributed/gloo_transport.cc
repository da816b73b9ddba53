// libopenpjrt_gloo.so: the processes' full mesh over Gloo's TCP transport (transport.h).
//
// Rendezvous: Gloo's rendezvous context publishes each rank's listening addresses in a store;
// ours forwards to the PJRT key-value store (values hex-encoded: the coordination service that
// JAX provides keeps text). Exchange: every rank sends every other rank a fixed-size first message
// (sizes, and the header when it fits), then each segment straight from its memory, each on its
// own Gloo slot derived from the tag; a peer's segments are received straight into where the
// caller places them. Every first-message receive is posted before any wait, so the order in
// which ranks arrive does not matter.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstring>
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

// The first message to each peer has a fixed size (one receive can be posted before anything
// is known): the header's size, the segment count, and, when they fit, the segment sizes and the
// header itself. What does not fit follows as a second message. Then each segment.
constexpr size_t kMetaBytes = 4096;
constexpr uint64_t kSlotsPerExchange = uint64_t{1} << 16;  // meta, overflow, then segments

// fields[2]: 0 the body is inline, 1 it follows as a second message, 2 the body and then every
// segment are inline (a small exchange: one message each way), 3 the sender abandoned the
// exchange and fields[0] bytes of its reason are inline.
std::vector<char> Meta(const cpu::Outgoing& out, std::vector<char>* overflow) {
  std::vector<char> body;
  auto put = [&](uint64_t v) { body.insert(body.end(), reinterpret_cast<char*>(&v), reinterpret_cast<char*>(&v) + 8); };
  size_t data = 0;
  for (const auto& seg : out.segments) {
    put(seg.second);
    data += seg.second;
  }
  body.insert(body.end(), out.header.begin(), out.header.end());
  std::vector<char> meta(kMetaBytes, 0);
  uint64_t fields[3] = {out.header.size(), out.segments.size(), 0};
  if (body.size() + data + 24 <= kMetaBytes) {
    fields[2] = 2;
    for (const auto& seg : out.segments) {
      const char* p = static_cast<const char*>(seg.first);
      body.insert(body.end(), p, p + seg.second);
    }
  } else if (body.size() + 24 > kMetaBytes) {
    fields[2] = 1;
  }
  std::memcpy(meta.data(), fields, sizeof(fields));
  if (fields[2] == 1) *overflow = std::move(body);
  else std::memcpy(meta.data() + 24, body.data(), body.size());
  return meta;
}

// A peer's notice that it gave up on the exchange: the exchange fails, the mesh stays usable.
struct PeerAbandoned : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool InlineData(const std::vector<char>& meta) {
  uint64_t mode;
  std::memcpy(&mode, meta.data() + 16, 8);
  return mode == 2;
}

// What one exchange's pending transfers point at. Freed with the exchange when it succeeds; kept
// by the mesh when it fails, since a transfer still posted may touch it later.
struct Transfers {
  std::shared_ptr<const cpu::Outgoing> mine;
  std::vector<char> meta_out, overflow_out;
  std::vector<std::vector<char>> meta_in, overflow_in;
  std::vector<std::shared_ptr<void>> placed;
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

  std::string Exchange(uint64_t tag, std::shared_ptr<const cpu::Outgoing> mine, const cpu::PlaceFn& place) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_.empty()) return error_;
    }
    const int n = config_.size, me = config_.rank;
    auto t = std::make_unique<Transfers>();
    t->mine = std::move(mine);
    t->meta_out = Meta(*t->mine, &t->overflow_out);
    t->meta_in.assign(static_cast<size_t>(n), std::vector<char>(kMetaBytes));
    t->overflow_in.resize(static_cast<size_t>(n));
    const uint64_t base = tag * kSlotsPerExchange;
    const std::chrono::milliseconds timeout(config_.timeout_ms);
    int peer = -1;
    const char* stage = "";
    try {
      std::vector<gloo::transport::UnboundBuffer*> meta_in(n), ins, outs;
      std::vector<int> in_peer, out_peer;
      auto make = [&](const void* p, size_t bytes) {
        t->buffers.push_back(context_->createUnboundBuffer(const_cast<void*>(p), bytes));
        return t->buffers.back().get();
      };
      auto send = [&](const void* p, size_t bytes, int to, uint64_t slot) {
        outs.push_back(make(p, bytes));
        outs.back()->send(to, slot);
        out_peer.push_back(to);
      };
      stage = "posting transfers to";
      for (peer = 0; peer < n; ++peer) {
        if (peer == me) continue;
        meta_in[peer] = make(t->meta_in[peer].data(), kMetaBytes);
        meta_in[peer]->recv(peer, base);
      }
      for (peer = 0; peer < n; ++peer) {
        if (peer == me) continue;
        send(t->meta_out.data(), kMetaBytes, peer, base);
        if (!t->overflow_out.empty()) send(t->overflow_out.data(), t->overflow_out.size(), peer, base + 1);
        if (t->overflow_out.empty() && t->meta_out.size() == kMetaBytes && InlineData(t->meta_out)) continue;
        for (size_t i = 0; i < t->mine->segments.size(); ++i)
          if (t->mine->segments[i].second) send(t->mine->segments[i].first, t->mine->segments[i].second, peer, base + 2 + i);
      }
      for (peer = 0; peer < n; ++peer) {
        if (peer == me) continue;
        stage = "waiting for the collective's header from";
        if (!meta_in[peer]->waitRecv(timeout)) throw std::runtime_error("the receive was aborted");
        uint64_t fields[3];
        std::memcpy(fields, t->meta_in[peer].data(), sizeof(fields));
        if (fields[2] == 3)
          throw PeerAbandoned(std::string(t->meta_in[peer].data() + 24, std::min<uint64_t>(fields[0], kMetaBytes - 24)));
        const uint64_t header_size = fields[0], count = fields[1];
        if (count >= kSlotsPerExchange - 2 || header_size > (uint64_t{1} << 40))
          throw std::runtime_error("a malformed header");
        const size_t body_size = 8 * count + header_size;
        const char* body = t->meta_in[peer].data() + 24;
        if (fields[2] == 1) {
          t->overflow_in[peer].resize(body_size);
          gloo::transport::UnboundBuffer* b = make(t->overflow_in[peer].data(), body_size);
          b->recv(peer, base + 1);
          if (!b->waitRecv(timeout)) throw std::runtime_error("the receive was aborted");
          body = t->overflow_in[peer].data();
        } else if (body_size + 24 > kMetaBytes) {
          throw std::runtime_error("a malformed header");
        }
        std::vector<uint64_t> sizes(count);
        std::memcpy(sizes.data(), body, 8 * count);
        cpu::Placement where = place(peer, std::vector<char>(body + 8 * count, body + body_size));
        if (!where.error.empty()) throw std::runtime_error(where.error);
        if (where.segments.size() != count) throw std::runtime_error("segments that do not match its header");
        t->placed.push_back(where.keep_alive);
        size_t inline_at = 24 + body_size;
        for (uint64_t i = 0; i < count; ++i) {
          if (where.segments[i].second != sizes[i]) throw std::runtime_error("segments that do not match its header");
          if (!sizes[i]) continue;
          if (fields[2] == 2) {
            if (inline_at + sizes[i] > kMetaBytes) throw std::runtime_error("a malformed header");
            std::memcpy(where.segments[i].first, t->meta_in[peer].data() + inline_at, sizes[i]);
            inline_at += sizes[i];
            continue;
          }
          ins.push_back(make(where.segments[i].first, sizes[i]));
          ins.back()->recv(peer, base + 2 + i);
          in_peer.push_back(peer);
        }
      }
      stage = "waiting for the collective's data from";
      for (size_t i = 0; i < ins.size(); ++i) {
        peer = in_peer[i];
        if (!ins[i]->waitRecv(timeout)) throw std::runtime_error("the receive was aborted");
      }
      stage = "sending the collective's data to";
      for (size_t i = 0; i < outs.size(); ++i) {
        peer = out_peer[i];
        if (!outs[i]->waitSend(timeout)) throw std::runtime_error("the send was aborted");
      }
    } catch (const PeerAbandoned& e) {
      const int who = config_.process_ids[peer];
      std::string why = "process " + std::to_string(who) + " failed: " + e.what();
      std::lock_guard<std::mutex> lock(mu_);
      kept_.push_back(std::move(t));  // its transfers to the other ranks may still be pending
      return why;
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
    return "";
  }

  // Each transfer: a 16-byte header (its size) on one slot, then the bytes on the next. The
  // slots sit above every Exchange slot (tags below 2^44 times 2^16 slots).
  static uint64_t TransferSlot(uint64_t key) { return (uint64_t{1} << 62) | ((key & ((uint64_t{1} << 60) - 1)) << 1); }

  std::string Send(int to, uint64_t key, const void* data, size_t bytes, std::shared_ptr<void> owner) override {
    const std::chrono::milliseconds timeout(config_.timeout_ms);
    auto t = std::make_unique<Transfers>();
    t->placed.push_back(std::move(owner));
    t->meta_out.resize(16);
    const uint64_t header[2] = {bytes, key};
    std::memcpy(t->meta_out.data(), header, 16);
    try {
      t->buffers.push_back(context_->createUnboundBuffer(t->meta_out.data(), 16));
      t->buffers.back()->send(to, TransferSlot(key));
      if (bytes) {
        t->buffers.push_back(context_->createUnboundBuffer(const_cast<void*>(data), bytes));
        t->buffers.back()->send(to, TransferSlot(key) + 1);
      }
      for (auto& b : t->buffers)
        if (!b->waitSend(timeout)) throw std::runtime_error("the send was aborted");
    } catch (const std::exception& e) {
      return Failed("sending", key, to, e.what(), std::move(t));
    }
    return "";
  }

  std::string Receive(int from, uint64_t key, void* data, size_t bytes, std::shared_ptr<void> owner) override {
    const std::chrono::milliseconds timeout(config_.timeout_ms);
    auto t = std::make_unique<Transfers>();
    t->placed.push_back(std::move(owner));
    t->meta_in.assign(1, std::vector<char>(16));
    try {
      t->buffers.push_back(context_->createUnboundBuffer(t->meta_in[0].data(), 16));
      t->buffers.back()->recv(from, TransferSlot(key));
      if (!t->buffers.back()->waitRecv(timeout)) throw std::runtime_error("the receive was aborted");
      uint64_t sent;
      std::memcpy(&sent, t->meta_in[0].data(), 8);
      if (sent != bytes) {
        // Drain what the sender sends, so that its send completes, then refuse.
        if (sent > (uint64_t{1} << 40)) throw std::runtime_error("a malformed header");
        t->overflow_in.assign(1, std::vector<char>(sent));
        if (sent) {
          t->buffers.push_back(context_->createUnboundBuffer(t->overflow_in[0].data(), sent));
          t->buffers.back()->recv(from, TransferSlot(key) + 1);
          t->buffers.back()->waitRecv(timeout);
        }
        return "cross-host transfer " + std::to_string(key) + ": process " + std::to_string(config_.process_ids[from]) +
               " sent " + std::to_string(sent) + " bytes; the receiving buffer holds " + std::to_string(bytes);
      }
      if (bytes) {
        t->buffers.push_back(context_->createUnboundBuffer(data, bytes));
        t->buffers.back()->recv(from, TransferSlot(key) + 1);
        if (!t->buffers.back()->waitRecv(timeout)) throw std::runtime_error("the receive was aborted");
      }
    } catch (const std::exception& e) {
      return Failed("receiving", key, from, e.what(), std::move(t));
    }
    return "";
  }

  void Abandon(uint64_t tag, const std::string& why) override {
    auto t = std::make_unique<Transfers>();
    t->meta_out.assign(kMetaBytes, 0);
    const uint64_t fields[3] = {std::min<uint64_t>(why.size(), kMetaBytes - 24), 0, 3};
    std::memcpy(t->meta_out.data(), fields, sizeof(fields));
    std::memcpy(t->meta_out.data() + 24, why.data(), fields[0]);
    try {
      for (int peer = 0; peer < config_.size; ++peer) {
        if (peer == config_.rank) continue;
        t->buffers.push_back(context_->createUnboundBuffer(t->meta_out.data(), kMetaBytes));
        t->buffers.back()->send(peer, tag * kSlotsPerExchange);
      }
    } catch (const std::exception&) {
      // A broken connection: that peer learns of this process's end another way.
    }
    std::lock_guard<std::mutex> lock(mu_);
    kept_.push_back(std::move(t));  // sent whenever each peer reaches that exchange
  }

 private:
  // A failed transfer's message; what it points at is kept (a transfer still posted may touch it).
  std::string Failed(const char* stage, uint64_t key, int rank, const char* what, std::unique_ptr<Transfers> t) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      kept_.push_back(std::move(t));
    }
    return "cross-host transfer: " + std::string(stage) + " transfer " + std::to_string(key) + " with process " +
           std::to_string(config_.process_ids[rank]) + " failed (a peer that died or hung, or a timeout of " +
           std::to_string(config_.timeout_ms) + " ms): " + what;
  }

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
  // A peer that dies closes its sockets; writing to one must fail the exchange with an error
  // naming the peer, not end this process with SIGPIPE. Ignored only if nobody set a handler.
  struct sigaction current{};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    struct sigaction ignore{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, nullptr);
  }
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
