// Collectives across the program instances of one execution (replicas x partitions), run as
// threads of one process. Every instance reaches the same collectives in the same order (SPMD);
// each collective is an exchange: deposit, wait for all, read the others' deposits, wait again.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "src/cpu/comm/exchange.h"
#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

// The other processes of a multi-process execution. Each of the hub's exchanges becomes, once
// every device of this process has deposited, one exchange of this process's serialized deposits
// with every other process that runs devices of the execution (src/distributed/ implements it
// over Gloo). Exchanges are numbered 0, 1, ... within an execution; every process makes them in
// the same order.
class ProcessExchange {
 public:
  virtual ~ProcessExchange() = default;
  // Sends `mine` to every other process and receives what each sends where `place` says. An
  // error names the process that failed or never answered.
  virtual absl::Status Exchange(uint64_t seq, std::shared_ptr<const Outgoing> mine, const PlaceFn& place) = 0;
  // This process gives up at exchange `seq` (one of its instances failed): the other processes'
  // exchange `seq` fails at once with `why` instead of waiting for the timeout. Does not wait.
  virtual void Abandon(uint64_t seq, const std::string& why) = 0;
};

// Where the devices of an execution run: device index d (replica * num_partitions + partition)
// runs in the process at position process_of[d] of `exchange`; this process is position `self`.
struct RemoteDevices {
  ProcessExchange* exchange = nullptr;
  std::vector<int> process_of;
  int self = 0;
};

class CollectiveHub {
 public:
  // `remote`: null when every device runs in this process; otherwise it must outlive the hub.
  CollectiveHub(int num_replicas, int num_partitions, const RemoteDevices* remote = nullptr);

  int num_replicas() const { return num_replicas_; }
  int num_partitions() const { return num_partitions_; }
  int num_devices() const { return num_replicas_ * num_partitions_; }

  // Deposits `values` for `device` and, once every device has deposited, calls
  // read(deposits) where deposits[d] holds device d's values. False if the execution was
  // aborted (another instance failed) before the exchange completed.
  bool Exchange(int device, std::vector<RtValue> values,
                const std::function<void(const std::vector<std::vector<RtValue>>&)>& read);
  // Wakes every waiting instance with a failure; later exchanges fail at once. With other
  // processes, the first abort that says why also tells them (their next exchange fails with it).
  void Abort(const absl::Status& why = absl::OkStatus());
  // Called by an instance that finished its program: an exchange it never joined can no longer
  // complete, so instances waiting in one (or arriving later) fail instead of waiting forever.
  void Leave();
  // True once an exchange failed because an instance had left (the programs' collectives differ).
  bool mismatched() const;
  // Devices of other processes take part: each member reduces every input itself (no shared
  // output array) because a remote member cannot write into this process's memory.
  bool spans_processes() const { return remote_ != nullptr; }
  // Why the exchange with the other processes failed (OK when it did not).
  absl::Status remote_error() const;

 private:
  // `cross`: this barrier completes an exchange, so with other processes the last local arrival
  // swaps this process's deposits for theirs before anyone passes.
  bool Barrier(std::unique_lock<std::mutex>& lock, bool cross);
  absl::Status SwapWithOtherProcesses(uint64_t seq);

  const int num_replicas_, num_partitions_;
  const RemoteDevices* remote_ = nullptr;
  int local_devices_ = 0;
  uint64_t exchanges_ = 0;  // the next exchange's number (guarded by mu_)
  bool abandoned_ = false;  // the other processes were told this process gave up
  absl::Status remote_error_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  int left_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
  bool mismatched_ = false;
  std::vector<std::vector<RtValue>> deposits_;
};

// How an op's groups are read (see the specification's process groups).
enum class GroupMode : uint8_t { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedIds };

struct CollectiveParams {
  enum Kind : uint8_t {
    kAllReduce, kAllGather, kReduceScatter, kAllToAll, kCollectivePermute, kCollectiveBroadcast,
    kCollectiveReduce,  // all_reduce whose result only the group's first member keeps; others get zeros
  } kind;
  GroupMode mode = GroupMode::kCrossReplica;
  std::vector<std::vector<int64_t>> groups;  // replica, partition or flattened ids
  std::vector<std::pair<int64_t, int64_t>> pairs;  // collective_permute
  int64_t dim = 0;         // all_gather_dim, scatter_dimension, split_dimension
  int64_t concat_dim = 0;  // all_to_all
  int64_t split_count = 0;
  bool has_fast = false;   // the reduction region is one binary op
  KernelFn fast = nullptr;  // elementwise kernel for it (all operands of one kind)
};
KernelFn CollectiveKernel();  // regions[0]: the reduction, when not fast

// interpreter.run_parallel: a num_replicas x num_partitions grid of processes, each running one of
// the step's regions (program_of[process]) on its own thread with its own replica and partition
// ids and collectives among them. Inputs and results are the processes' in process order.
struct RunParallelParams {
  int num_replicas = 1, num_partitions = 1;
  std::vector<int> program_of;  // per process (replica-major): an index into step.regions
};
KernelFn RunParallelKernel();

}  // namespace openpjrt::cpu
