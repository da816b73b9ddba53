// The CPU runtime behind the plugin: a client owns its devices, their memories and one thread
// pool. Every device has three memories (kinds "device", "pinned_host", "unpinned_host"); all
// are host RAM, so a copy between them is a memcpy. Thread-safe.
//
// In one process, device ids are 0..N-1 and equal the local hardware ids. A client that spans
// processes (src/distributed) lists every process's devices: process p's follow those of the
// processes before it, ids are positions in that global list, and only this process's devices
// are addressable (their local hardware ids are 0..n-1 within the process).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "src/distributed/distributed.h"
#include "src/runtime/event.h"
#include "src/runtime/thread_pool.h"

namespace openpjrt::runtime {

class Client;
class Device;
class Buffer;
struct BufferShape;

// The cores this process may run on (its CPU affinity, as taskset, cgroup cpusets and
// `docker --cpuset-cpus` set it; the machine's count where that is unknown): the intra-op pool's
// default size. (With the machine's count, a JAX process pinned to one of two cores ran a pool of
// two threads on it: row maxima of 2048 x 2048 f32 took 1.41 ms against 0.62 with one.)
int UsableCores();

struct ClientOptions {
  int device_count = 4;
  bool asynchronous = true;  // false: Execute runs on the caller's thread
  int process_id = 0;
  int max_inflight_computations = 32;
  int intra_op_threads = 0;       // 0: UsableCores()
  int64_t memory_limit_bytes = 0; // per device; 0: unlimited
  // Under memory_limit_bytes, how long a preparation whose outputs do not fit yet waits for
  // in-flight executions and frees before RESOURCE_EXHAUSTED.
  int oom_retry_timeout_ms = 2000;
  bool deterministic = false;     // bit-identical results whatever the thread count
  bool flush_denormals = true;    // subnormal floats flushed to zero, as XLA:CPU (cpu/exec/float_env.h)
  int collectives_timeout_ms = 0; // across processes; 0: OPENPJRT_COLLECTIVES_TIMEOUT_MS or 300 s
  int num_nodes = 1;              // processes sharing the key-value store (process_id is the node id)
};

class Memory {
 public:
  Memory(Device* device, int id, int kind_id, std::string kind);
  Device* device() const { return device_; }
  int id() const { return id_; }
  int kind_id() const { return kind_id_; }
  const std::string& kind() const { return kind_; }
  const std::string& debug_string() const { return debug_string_; }
  const std::string& to_string() const { return to_string_; }

 private:
  Device* device_;
  int id_, kind_id_;
  std::string kind_, debug_string_, to_string_;
};

// Allocation statistics of one device, updated by buffers as storage comes and goes, and the
// reservations of prepared executions (their outputs' bytes, held from preparation until the
// outputs exist). Under a memory limit a preparation that does not fit waits for memory to be
// freed or unreserved (WaitForFree) and tries again.
struct MemoryStats {
  std::atomic<int64_t> bytes_in_use{0};
  std::atomic<int64_t> peak_bytes_in_use{0};
  std::atomic<int64_t> num_allocs{0};
  std::atomic<int64_t> largest_alloc_size{0};
  std::atomic<int64_t> bytes_reserved{0};
  void Add(int64_t bytes);
  void Remove(int64_t bytes);
  void ClearPeaks();
  // Reserves `bytes` if in-use plus reserved plus `bytes` stays within `limit`.
  bool TryReserve(int64_t bytes, int64_t limit);
  void Unreserve(int64_t bytes);
  // Waiting for memory: a waiter registers (BeginWait) before it reads free_epoch() and tries,
  // so that a free in between is never missed; Remove and Unreserve count an epoch and wake
  // waiters only while some are registered (the common case pays no extra atomic).
  void BeginWait() { ++waiters_; }
  void EndWait() { --waiters_; }
  uint64_t free_epoch() const { return free_epoch_.load(); }
  // Waits until free_epoch() differs from `seen` or `deadline` passes; false on the deadline.
  bool WaitForFree(uint64_t seen, std::chrono::steady_clock::time_point deadline);

 private:
  void Notify();
  std::atomic<uint64_t> free_epoch_{0};
  std::atomic<int> waiters_{0};
  std::mutex mu_;
  std::condition_variable freed_;
};

class Device {
 public:
  Device(Client* client, int id, int process_index = 0, int local_hardware_id = -1);
  Client* client() const { return client_; }
  int id() const { return id_; }
  int process_index() const { return process_index_; }
  // Position among this process's devices; -1 for another process's device.
  int local_hardware_id() const { return local_hardware_id_; }
  bool addressable() const { return local_hardware_id_ >= 0; }
  const std::string& kind() const { return kind_; }
  const std::string& debug_string() const { return debug_string_; }
  const std::string& to_string() const { return to_string_; }
  const std::vector<Memory*>& memories() const { return memory_ptrs_; }
  Memory* default_memory() const { return memory_ptrs_[0]; }
  MemoryStats& stats() { return *stats_; }
  // Shared with the buffers, which may outlive the client.
  const std::shared_ptr<MemoryStats>& stats_ptr() const { return stats_; }

 private:
  Client* client_;
  int id_, process_index_, local_hardware_id_;
  std::string kind_ = "cpu", debug_string_, to_string_;
  std::vector<std::unique_ptr<Memory>> memories_;
  std::vector<Memory*> memory_ptrs_;
  std::shared_ptr<MemoryStats> stats_ = std::make_shared<MemoryStats>();
};

class Client {
 public:
  explicit Client(ClientOptions options);
  // A client spanning processes: the coordinator's global device list (options.device_count is
  // this process's share and must match it).
  Client(ClientOptions options, std::unique_ptr<distributed::Coordinator> coordinator);
  ~Client();

  const ClientOptions& options() const { return options_; }
  // Every device, this process's and the others'.
  const std::vector<Device*>& devices() const { return device_ptrs_; }
  const std::vector<Device*>& addressable_devices() const { return addressable_ptrs_; }
  // This process's devices' memories.
  const std::vector<Memory*>& memories() const { return memory_ptrs_; }
  Device* LookupDevice(int id) const;  // null when out of range
  Device* LookupAddressableDevice(int local_hardware_id) const;  // null when out of range
  int process_index() const { return options_.process_id; }
  // Null for a client of one process.
  distributed::Coordinator* coordinator() const { return coordinator_.get(); }
  ThreadPool& pool() { return *pool_; }
  cpu::Parallel* parallel() { return parallel_.get(); }
  const std::string& platform_version() const { return platform_version_; }

  // Kind ids shared by every device: 0 device, 1 pinned_host, 2 unpinned_host.
  static const std::vector<std::string>& MemoryKinds();

  // Execution streams: executions with the same non-zero stream id run in launch order. Records
  // `done` (a launching execution's completion events) as the stream's tail and returns the
  // previous tail, which that execution waits for.
  std::vector<EventRef> SwapStreamTail(int64_t stream, std::vector<EventRef> done);

  // Cross-host transfers (the plugin's CrossHostTransfers extension), for a client spanning
  // processes. SendToRemote sends `buffer` (once it is ready) to the device with global id
  // `dst_device` of another process as transfer `key`; the event is set when the bytes are sent
  // or carries the failure, naming the peer. ReceiveFromRemote returns a buffer of `shape` on
  // `memory` that transfer `key` from the device `src_device` fills. Sends and receives may be
  // posted in any order on either side: each waits on a thread of its own (never a pool worker,
  // which executions need), and a client being destroyed waits for its transfers first.
  absl::StatusOr<EventRef> SendToRemote(const std::shared_ptr<Buffer>& buffer, int dst_device, uint64_t key);
  absl::StatusOr<std::shared_ptr<Buffer>> ReceiveFromRemote(Memory* memory, const BufferShape& shape, int src_device,
                                                            uint64_t key);
  // The descriptor-based form: the receiver names a fresh key (NewTransferKey) and hands it to
  // the sender out of band; the sender announces itself through the key-value store
  // (SendAnnounced), and the receiving buffer (ReceiveAnnounced) is filled from whichever
  // process that is. CancelReceive fails a receive that has not completed with `why` (false when
  // the key names no receive in progress).
  uint64_t NewTransferKey();
  absl::StatusOr<EventRef> SendAnnounced(const std::shared_ptr<Buffer>& buffer, int dst_process, uint64_t key);
  absl::StatusOr<std::shared_ptr<Buffer>> ReceiveAnnounced(Memory* memory, const BufferShape& shape, uint64_t key);
  bool CancelReceive(uint64_t key, const absl::Status& why);

 private:
  // The other process holding device `id` for a cross-host transfer, or an error naming `what`.
  absl::StatusOr<int> RemoteProcessOf(int id, const char* what) const;
  void RunBlocking(std::function<void()> work);
  struct PendingReceive;
  std::mutex pending_mu_;
  std::unordered_map<uint64_t, std::shared_ptr<PendingReceive>> pending_receives_;
  std::atomic<uint64_t> next_transfer_key_{0};
  absl::StatusOr<EventRef> SendWhenReady(const std::shared_ptr<Buffer>& buffer, int peer, uint64_t key, bool announce);
  std::mutex blocking_mu_;
  std::vector<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> blocking_;

  std::mutex streams_mu_;
  std::unordered_map<int64_t, std::vector<EventRef>> streams_;
  ClientOptions options_;
  std::unique_ptr<distributed::Coordinator> coordinator_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_ptrs_, addressable_ptrs_;
  std::vector<Memory*> memory_ptrs_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<PoolParallel> parallel_;
  std::string platform_version_;
};

}  // namespace openpjrt::runtime
