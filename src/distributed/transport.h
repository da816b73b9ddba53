// The boundary between the distributed runtime and libopenpjrt_gloo.so (gloo_transport.cc),
// which the coordinator loads with dlopen. Only standard-library types cross it; both sides are
// built together from this header, so they agree on its layout.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "src/cpu/comm/exchange.h"

namespace openpjrt::distributed {

struct MeshConfig {
  int rank = 0;   // this process's position in the set
  int size = 0;   // processes in the set
  std::vector<int> process_ids;  // the set's process indices, by rank (for error messages)
  std::string key_prefix;        // where the ranks publish their addresses in the store
  std::string hostname, iface;   // this process's listening address (empty: the host's name)
  int timeout_ms = 300000;
  // The store: each returns "" on success, else an error message.
  std::function<std::string(const std::string& key, const std::string& value)> kv_set;
  std::function<std::string(const std::string& key, int timeout_ms, std::string* value)> kv_get;
};

// A connected full mesh over the processes of one set. Thread-safe: exchanges with different
// tags may run at the same time.
class Mesh {
 public:
  virtual ~Mesh() = default;
  // Sends `mine` to every other rank and receives each one's header and segments (placed by
  // `place`). `tag` must be unique among the exchanges in flight and below 2^44 (each uses 2^16
  // Gloo slots, one per segment). Returns "" or an error message naming the failing process.
  // After a failure the mesh keeps what pending transfers point at (the keep_alive owners), and
  // every later exchange fails the same way.
  virtual std::string Exchange(uint64_t tag, std::shared_ptr<const cpu::Outgoing> mine, const cpu::PlaceFn& place) = 0;
  virtual bool failed() const = 0;
  // Tells every other rank, without waiting, that this one will not make exchange `tag`: theirs
  // fails with `why`, naming this process. The mesh stays usable.
  virtual void Abandon(uint64_t tag, const std::string& why) = 0;
  // Point to point, for cross-host buffer transfers: sends `bytes` bytes at `data` to rank `to`
  // as transfer `key`, or receives transfer `key` from rank `from` into `data`, which must hold
  // exactly `bytes` (a sender's different size is an error naming both sizes). Blocks until done,
  // or fails after the timeout naming the peer. Sends and receives may be posted in any order;
  // keys (below 2^61) are the caller's, unique among the transfers in flight between two ranks,
  // and never meet Exchange's tags. Returns "" or an error message. A failed transfer does not
  // fail the mesh. `owner` keeps `data` alive: after a failure the mesh holds it for as long as
  // the abandoned transfer might still touch it.
  virtual std::string Send(int to, uint64_t key, const void* data, size_t bytes, std::shared_ptr<void> owner) = 0;
  virtual std::string Receive(int from, uint64_t key, void* data, size_t bytes, std::shared_ptr<void> owner) = 0;
};

// libopenpjrt_gloo.so's one export: connects the mesh (blocking until every rank has joined or
// the timeout passes). Returns null and sets *error on failure.
using ConnectMeshFn = Mesh* (*)(const MeshConfig* config, std::string* error);
inline constexpr const char* kConnectMeshSymbol = "openpjrt_gloo_connect_mesh";
inline constexpr const char* kGlooLibrary = "libopenpjrt_gloo.so";

}  // namespace openpjrt::distributed
