// The distributed runtime: one client per process, every process's devices in one global list,
// collectives between devices of different processes.
//
// How processes find each other. PJRT clients (JAX under jax.distributed.initialize, or any C
// caller) hand PJRT_Client_Create a key-value store shared by every process (kv_put / kv_get
// callbacks) and the options node_id and num_nodes. Coordinator::Connect publishes this process's
// device count under "openpjrt/<epoch>/devices/<node_id>" and reads every other process's, so
// that each client builds the same global device list: process p's devices follow those of
// processes 0..p-1, and device ids are their positions in that list (equal on every process).
// The epoch counts the distributed clients this process has created, so a second client in the
// same store reads fresh keys.
//
// How collectives cross processes. An execution whose devices span processes runs only this
// process's devices here; its collective hub (src/cpu/comm) hands each exchange of deposits to a
// cpu::ProcessExchange this folder supplies. The exchange sends this process's deposits to every
// other process of the execution and receives theirs, over a Gloo full mesh (TCP) connected once
// per set of processes through the same key-value store (keys under
// "openpjrt/<epoch>/gloo/<processes>/"). Each execution takes the next launch number of its
// process set when it is launched, and its exchanges are Gloo slots derived from (launch,
// exchange): executions launched in the same order on every process pair up, and concurrent
// executions do not mix. (PJRT_ExecuteOptions.launch_id cannot name a launch instead: JAX 0.11
// gives the same step different launch ids in different processes.) Every collective (all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_permute, collective_broadcast, every element type and reduction body) is then
// computed locally from the same deposits as in one process, so results are bit-identical to a
// single-process run over the same devices.
//
// Gloo lives in its own shared library, libopenpjrt_gloo.so, loaded beside the plugin only when a
// distributed client first needs it: a single-process plugin never loads it or libgloo.
//
// Failures. A process whose execution fails tells the others (the exchange it will never make
// carries its reason instead), and their execution fails at once naming it; the mesh stays
// usable. A peer that dies closes its connections: the survivors' exchanges fail at once. A
// peer that hangs fails them after the timeout (create option collectives_timeout_ms, else
// OPENPJRT_COLLECTIVES_TIMEOUT_MS, else 300 s). Either way the error names the process. A mesh
// that failed stays failed: later executions over the same processes fail with the first error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/cpu/comm/collectives.h"
#include "src/distributed/transport.h"

namespace openpjrt::distributed {

// The store every process shares (PJRT's key-value callbacks). Thread-safe.
class KvStore {
 public:
  virtual ~KvStore() = default;
  virtual absl::Status Set(const std::string& key, const std::string& value) = 0;
  // Waits up to timeout_ms for the key; DEADLINE_EXCEEDED (or the store's error) when absent.
  virtual absl::StatusOr<std::string> Get(const std::string& key, int timeout_ms) = 0;
};

struct Options {
  int node_id = 0;
  int num_nodes = 1;
  int timeout_ms = 300000;
  int local_devices = 1;
};

class Coordinator {
 public:
  // Publishes this process's devices and reads everyone's (blocks until every process has
  // published or the timeout passes: DEADLINE_EXCEEDED naming the missing processes).
  static absl::StatusOr<std::unique_ptr<Coordinator>> Connect(std::shared_ptr<KvStore> kv, Options options);
  ~Coordinator();

  int node_id() const { return options_.node_id; }
  int num_nodes() const { return options_.num_nodes; }
  // Devices of each process, by process index.
  const std::vector<int>& devices_per_process() const { return devices_per_process_; }

  // An execution over the devices of `processes` (sorted process indices including this one)
  // starts: the exchange its hub uses, bound to the set's next launch number. Call in launch
  // order (the same on every process).
  std::unique_ptr<cpu::ProcessExchange> BeginExecution(const std::vector<int>& processes);

  // What the client's framework learnt of the processes (PJRT_Client_UpdateGlobalProcessInfo):
  // an exchange with a process last reported disconnected or failed fails at once, naming it
  // and the reason, instead of waiting for the timeout.
  enum class ProcessState { kUnspecified, kUninitialized, kDisconnected, kConnected, kError };
  struct ProcessInfo {
    ProcessState state = ProcessState::kUnspecified;
    uint64_t incarnation = 0;
    std::string error;
  };
  void UpdateProcessInfo(int process, ProcessInfo info);

  // Cross-host buffer transfers (PJRT's CrossHostTransfers extension): `bytes` bytes at `data`
  // sent to process `to`, or received from process `from`, as transfer `key`, over the Gloo mesh
  // of the two processes (connected on first use, both sides joining). Blocks until done or the
  // timeout; the error names the peer. `owner` keeps `data` alive (see Mesh::Send).
  absl::Status SendTo(int to, uint64_t key, const void* data, size_t bytes, std::shared_ptr<void> owner);
  absl::Status ReceiveFrom(int from, uint64_t key, void* data, size_t bytes, std::shared_ptr<void> owner);
  // The descriptor-based transfers, where a receiver does not know its sender: the sender
  // announces itself in the store under (receiver, key) before sending; the receiver waits for
  // the announcement (up to timeout_ms per call: DEADLINE_EXCEEDED when absent yet) and then
  // receives from that process.
  absl::Status AnnounceSender(int receiver, uint64_t key);
  absl::StatusOr<int> AwaitSender(uint64_t key, int timeout_ms);
  int timeout_ms() const { return options_.timeout_ms; }
  absl::Status CheckReachable(const std::vector<int>& processes);

 private:
  struct MeshSlot;
  friend class LaunchExchangeAccess;
  absl::StatusOr<Mesh*> MeshFor(MeshSlot& slot, const std::vector<int>& processes);
  // The mesh of this process and `peer`, and the peer's rank in it.
  absl::StatusOr<Mesh*> PairMesh(int peer, int* rank);

  std::shared_ptr<KvStore> kv_;
  Options options_;
  uint64_t epoch_ = 0;
  std::vector<int> devices_per_process_;
  std::mutex mu_;
  std::map<std::vector<int>, std::unique_ptr<MeshSlot>> meshes_;
  std::map<int, ProcessInfo> process_info_;
};

}  // namespace openpjrt::distributed
