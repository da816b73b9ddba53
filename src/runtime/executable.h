// Compiled programs and their loaded form. An Executable is immutable and shared: it holds the
// parsed module, the CPU program, the compile options and what the ABI reports about it (shapes,
// cost, fingerprint). A LoadedExecutable binds it to a client's devices and runs it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "src/cpu/exec/ffi.h"
#include "src/cpu/exec/program.h"
#include "src/ir/ir.h"
#include "src/runtime/buffer.h"
#include "src/runtime/compile_options.h"

namespace openpjrt::runtime {

struct CostAnalysis {
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
};

class Executable {
 public:
  // Compiles `code` in `format` ("mlir": StableHLO text). INVALID_ARGUMENT for an unknown format
  // or a malformed program (file:line:col), UNIMPLEMENTED for what the compiler does not cover.
  static absl::StatusOr<std::shared_ptr<Executable>> Compile(std::string_view code,
                                                             std::string_view format,
                                                             CompileOptions options);
  // Reads what Serialize wrote; rejects foreign, corrupt or other-version bytes by name.
  static absl::StatusOr<std::shared_ptr<Executable>> Deserialize(std::string_view bytes);
  std::string Serialize() const;
  // The same program compiled under other options (Client_Load, DeserializeAndLoad overrides).
  absl::StatusOr<std::shared_ptr<Executable>> WithOptions(CompileOptions options) const {
    return Compile(code_, format_, std::move(options));
  }

  const std::string& name() const { return name_; }
  int num_replicas() const { return num_replicas_; }
  int num_partitions() const { return num_partitions_; }
  const std::vector<BufferShape>& arg_shapes() const { return arg_shapes_; }
  const std::vector<BufferShape>& result_shapes() const { return result_shapes_; }
  // Serialized xla.OpSharding of each argument and result over the partitions (empty string:
  // replicated), as PJRT's Shardings extension reports them.
  const std::vector<std::string>& param_shardings() const { return param_shardings_; }
  const std::vector<std::string>& output_shardings() const { return output_shardings_; }
  const std::vector<bool>& donated_args() const { return donated_args_; }
  const CompileOptions& options() const { return options_; }
  const std::string& fingerprint() const { return fingerprint_; }
  const std::string& optimized_text() const { return optimized_text_; }
  const CostAnalysis& cost() const { return cost_; }
  int64_t code_size() const { return code_size_; }
  // Small enough to run on the thread that makes it runnable: no loops, little work (a handoff
  // to the pool costs more than the program).
  bool runs_inline() const { return runs_inline_; }
  const cpu::Executable& program() const { return *program_; }
  // An entry point with dynamic argument types (tensor<?x4xf32>): arg_shapes() and
  // result_shapes() have -1 for the unknown sizes, and there is no program until Specialise
  // compiles one for the shapes of actual arguments (refining every dynamic shape from them).
  bool dynamic_entry() const { return dynamic_entry_; }
  absl::StatusOr<std::shared_ptr<const Executable>> Specialise(const std::vector<BufferShape>& args) const;

 private:
  static absl::StatusOr<std::shared_ptr<Executable>> Build(std::string_view code, std::string_view format,
                                                           CompileOptions options,
                                                           const std::vector<BufferShape>* specialise);

  std::string format_, code_;
  CompileOptions options_;
  std::unique_ptr<ir::Module> module_;
  std::shared_ptr<cpu::Executable> program_;
  std::string name_, fingerprint_, optimized_text_;
  int num_replicas_ = 1, num_partitions_ = 1;
  std::vector<BufferShape> arg_shapes_, result_shapes_;
  std::vector<std::string> param_shardings_, output_shardings_;
  std::vector<bool> donated_args_;
  CostAnalysis cost_;
  int64_t code_size_ = 0;
  bool runs_inline_ = false;
  bool dynamic_entry_ = false;
  mutable std::mutex specialised_mu_;
  mutable std::map<std::string, std::shared_ptr<const Executable>> specialised_;  // by argument shapes
};

// Per-device lists are stored inline for one device (the common case allocates nothing for them).
template <typename T>
using PerDevice = absl::InlinedVector<T, 1>;

// One device's arguments or outputs (most programs have a few: no allocation for them).
using BufferList = absl::InlinedVector<BufferRef, 4>;

struct ExecuteRequest {
  PerDevice<BufferList> args;                // [num_devices][num_args]
  std::vector<int64_t> non_donatable;        // argument indices never donated
  Device* execute_device = nullptr;          // run one device's share (portable executables)
  // Per device, the host side of send/recv (the PJRT callbacks); empty when none were given.
  std::vector<std::shared_ptr<cpu::HostTransfers>> hosts;
  // The execute context's user data for FFI handlers; null when the caller gave no context.
  std::shared_ptr<const cpu::FfiUserData> ffi_user_data;
  // Executions with the same non-zero stream id run in launch order: each starts after the
  // previous one on its stream has finished, whatever its arguments. 0 (what C API callers
  // get): ordered only by the buffers executions share.
  int64_t stream_id = 0;
  // Control dependencies: events the execution waits for beyond its arguments (other
  // executions' completion, transfers, promises). An error of one becomes every output's error.
  std::vector<EventRef> wait_for;
};

// The outputs' memory an execution holds between preparation and its outputs' existence (see
// MemoryStats). Move-only; released on destruction, so a preparation dropped unlaunched gives
// its reservation back.
class MemoryReservation {
 public:
  MemoryReservation() = default;
  MemoryReservation(MemoryReservation&& o) noexcept : held_(std::move(o.held_)) { o.held_.clear(); }
  MemoryReservation& operator=(MemoryReservation&& o) noexcept;
  ~MemoryReservation() { Release(); }
  void Add(std::shared_ptr<MemoryStats> stats, int64_t bytes) { held_.emplace_back(std::move(stats), bytes); }
  void Release();
  int64_t bytes() const;

 private:
  std::vector<std::pair<std::shared_ptr<MemoryStats>, int64_t>> held_;
};

// An execution that has been prepared (two-phase launch): its arguments checked, its donations
// resolved, its outputs' memory reserved under the client's memory limit and its dependencies
// collected. Preparing may fail (and may be retried: nothing was marked, held or written);
// launching a prepared execution never fails for resource reasons. Dropping one unlaunched
// releases what it reserved.
class PreparedExecution {
 public:
  PreparedExecution() = default;
  PreparedExecution(PreparedExecution&&) = default;
  PreparedExecution& operator=(PreparedExecution&&) = default;
  bool valid() const { return state_.exe != nullptr; }
  // Bytes of output memory reserved for it (0 without a memory limit).
  int64_t reserved_bytes() const { return state_.reservation.bytes(); }

 private:
  friend class LoadedExecutable;
  // What preparation decided, beside the request itself.
  struct State {
    std::shared_ptr<const Executable> exe;
    std::vector<bool> adjusted_donate;  // used when the request's non_donatable is not empty
    bool spans_processes = false;
    MemoryReservation reservation;
  };
  ExecuteRequest req_;
  State state_;
};
struct ExecuteResult {
  PerDevice<BufferList> outputs;              // [num_devices][num_outputs]
  PerDevice<EventRef> device_done;            // per device
};

class LoadedExecutable {
 public:
  // Binds to the client's devices: the options' device assignment, else devices 0..R*P-1.
  static absl::StatusOr<std::unique_ptr<LoadedExecutable>> Load(
      Client* client, std::shared_ptr<const Executable> executable);

  const std::shared_ptr<const Executable>& executable() const { return executable_; }
  Client* client() const { return client_; }
  // The devices of the execution, device index d = replica * num_partitions + partition; with a
  // client spanning processes some belong to other processes.
  const std::vector<Device*>& devices() const { return devices_; }
  // This process's devices among them, in device order: one Execute takes an argument list for
  // each (all of devices() in one process).
  const std::vector<Device*>& addressable_devices() const { return addressable_; }
  // The device indices of addressable_devices().
  const std::vector<int>& addressable_indices() const { return addressable_index_; }
  // The processes the execution spans (sorted; one entry in a single process).
  const std::vector<int>& processes() const { return processes_; }
  const std::vector<std::vector<int64_t>>& assignment() const { return assignment_; }

  // Prepare then Launch: checks the arguments now and returns output buffers at once; the
  // computation runs when every argument (and every wait_for event, and the stream's previous
  // execution) is ready. An argument's error becomes every output's error.
  absl::StatusOr<ExecuteResult> Execute(ExecuteRequest request);
  // Phase one. Errors: the request's (INVALID_ARGUMENT, FAILED_PRECONDITION naming the argument)
  // and, under memory_limit_bytes, RESOURCE_EXHAUSTED when the outputs can never fit or did not
  // fit within oom_retry_timeout_ms of waiting for in-flight executions and frees.
  absl::StatusOr<PreparedExecution> Prepare(ExecuteRequest request);
  // Phase two: marks donations, takes holds and schedules the run. Never fails for resources;
  // a failure of the run itself arrives through the outputs and device_done.
  ExecuteResult Launch(PreparedExecution&& prepared);

  void Delete() { deleted_ = true; }
  bool IsDeleted() const { return deleted_; }

 private:
  // Runs a single-device program whose arguments are all defined, here and now (no events to
  // wait on, no closures, no pool): the dispatch path of small programs.
  absl::Status Reserve(const Executable& exe, std::span<Device* const> devices, const ExecuteRequest& req,
                       const std::vector<bool>& donate, MemoryReservation* out);
  // The two phases over a request that stays where it is (Execute's own, or a
  // PreparedExecution's): no copies or moves of the argument lists on the dispatch path.
  absl::Status PrepareIn(ExecuteRequest& req, PreparedExecution::State& st);
  ExecuteResult LaunchIn(ExecuteRequest& req, PreparedExecution::State& st);
  ExecuteResult ExecuteNow(const Executable& exe, Device* device, ExecuteRequest& req,
                           const std::vector<bool>& donate);

  Client* client_ = nullptr;
  std::shared_ptr<const Executable> executable_;
  std::vector<Device*> devices_, addressable_;
  std::vector<int> addressable_index_, processes_;
  std::vector<int> process_position_;  // per device index: its process's position in processes_
  std::vector<std::vector<int64_t>> assignment_;
  std::atomic<bool> deleted_{false};
};

}  // namespace openpjrt::runtime
