// A compiled CPU program: a flat list of kernel launches over numbered value slots. Regions
// (loop bodies, branches, reducers, comparators) are nested programs that share the slot space
// of the function they belong to, so they can read values defined outside them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/cpu/exec/array.h"
#include "src/ir/ir.h"

namespace openpjrt::cpu {

struct Step;
struct ExecState;

// Host transfers of one device's execution: what stablehlo.send / stablehlo.recv with
// is_host_transfer = true talk to (the PJRT send and recv callbacks). Recv may block until the
// host has supplied every byte.
class HostTransfers {
 public:
  virtual ~HostTransfers() = default;
  virtual absl::Status Send(int64_t channel, const Array& data) = 0;
  virtual absl::StatusOr<Array> Recv(int64_t channel, const ArrayType& type) = 0;
};
struct Program;
class CollectiveHub;
struct RemoteDevices;
struct FfiUserData;

// A non-owning reference to a callable run for each piece index: what ParallelFor hands the
// threads. Unlike std::function it never allocates and instantiates one small thunk per callable
// type (std::function's manager and type information for each of the kernels' hundreds of typed
// lambdas took ~0.3 MB of the plugin). The callable must outlive the call it is passed to.
class PieceFn {
 public:
  template <typename F>
    requires(!std::is_same_v<std::decay_t<F>, PieceFn> && std::is_invocable_v<F&, int64_t>)
  PieceFn(F&& f)  // NOLINT: implicit, like std::function
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, int64_t i) { (*static_cast<std::remove_reference_t<F>*>(o))(i); }) {}
  void operator()(int64_t i) const { call_(obj_, i); }

 private:
  void* obj_;
  void (*call_)(void*, int64_t);
};

// Spreads the independent pieces of one kernel over threads (the PJRT client's pool). Kernels
// call ExecState::ParallelFor; without a Parallel the pieces run in order on the calling thread.
// Elementwise ops and reductions cut their work so that every output element is computed the same
// way whatever the cut; matrix products cut by thread count unless deterministic() asks for a cut
// that depends only on the shapes (bit-identical results with any number of threads).
class Parallel {
 public:
  virtual ~Parallel() = default;
  virtual int threads() const = 0;
  virtual bool deterministic() const = 0;
  // Whether executions flush subnormal floats to zero (exec/float_env.h), as XLA's CPU runtime
  // does. Helper pieces of For run in that mode too.
  virtual bool flush_denormals() const { return false; }
  // Runs fn(i) for every i in [0, n) and returns when all have finished. The calling thread takes
  // pieces too, so a busy pool only makes it slower, never stuck.
  virtual void For(int64_t n, PieceFn fn) = 0;
};

// A kernel reads its inputs from state.slots[step.in[i]] and writes state.slots[step.out[j]].
// It reports errors with state.Fail(); it never throws.
using KernelFn = void (*)(const Step& step, ExecState& state);
// The loop of an elementwise step over raw elements (n of the op's element kinds), which lets
// the compiler fuse runs of such steps into one block-by-block kernel.
using RawUnaryFn = void (*)(const void* x, void* y, int64_t n);
using RawBinaryFn = void (*)(const void* x, const void* y, void* z, int64_t n);
// The same for elementwise steps with parameters (the step's params) or three operands: compare,
// select, clamp, convert. in[k] points at operand k.
using RawOpFn = void (*)(const void* params, const void* const* in, void* out, int64_t n);

// The f32 -> f32 elementwise ops that fused runs can evaluate in vector registers (fused_vec.h).
enum class VecOp : uint8_t {
  kNone, kAdd, kSub, kMul, kDiv, kMax, kMin,                          // binary
  kNeg, kAbs, kSquare, kSqrt, kRsqrt, kFloor, kCeil, kRoundEven,     // unary, exact
  kExp, kLog, kTanh, kLogistic, kErf,                                 // unary, fast_math.h
  kClamp,                                                             // clamp, scalar bounds
  // 32-bit integers (signed or unsigned: the same bits), two's complement wrapping; shifts by
  // counts read as unsigned, 32 or more giving 0 (arithmetic: the sign), as kernels do.
  kIAdd, kISub, kIMul, kAnd, kOr, kXor, kShl, kShrL, kShrA,           // binary
  kNot, kINeg,                                                        // unary
};

struct Step {
  KernelFn fn = nullptr;
  std::string name;               // the op's name, for errors and profiles
  ir::Loc loc;
  std::vector<int> in, out;       // slots
  std::vector<ArrayType> out_types;
  std::shared_ptr<const void> params;  // kernel-specific, see kernels.h
  std::vector<std::shared_ptr<Program>> regions;
  std::vector<int> release;       // slots whose last use is this step
  RawUnaryFn raw_unary = nullptr;    // set on fusible unary elementwise steps
  RawBinaryFn raw_binary = nullptr;  // set on fusible binary elementwise steps
  RawBinaryFn raw_binary_splat[2] = {nullptr, nullptr};  // the same with operand #i one element
  RawOpFn raw_op = nullptr;          // set on other fusible elementwise steps
  int raw_in_bytes[3] = {0, 0, 0};   // bytes per element of each operand of such a step
  VecOp vec_op = VecOp::kNone;       // the unary or binary step as fused_vec.h evaluates it
  // A broadcast_in_dim whose operand fills consecutive dimensions of the result in order (a
  // scalar, a bias row, per-row statistics): result element e is operand element
  // (e / broadcast_inner) % broadcast_period, where broadcast_period is the operand's size.
  // Fused runs read the operand itself. broadcast_period 0: any other step.
  int64_t broadcast_period = 0;
  int64_t broadcast_inner = 1;

  template <typename P>
  const P& Params() const { return *static_cast<const P*>(params.get()); }
};

struct Program {
  std::vector<int> args;     // slots the caller fills
  std::vector<int> results;  // slots the caller reads
  std::vector<Step> steps;
};

// A failed check.* op: where, and what was compared.
struct CheckFailure {
  ir::Loc loc;
  std::string message;
};

struct ExecState {
  std::vector<RtValue> slots;
  absl::Status status;
  std::vector<CheckFailure>* check_failures = nullptr;
  int64_t checks_run = 0;
  uint32_t replica_id = 0;
  uint32_t partition_id = 0;
  CollectiveHub* hub = nullptr;  // shared by the instances of a multi-device execution
  HostTransfers* host = nullptr;  // send/recv with the host; null when the caller gave none
  int64_t step_budget = -1;      // steps left before RESOURCE_EXHAUSTED; -1: unlimited
  Parallel* parallel = nullptr;  // intra-op threads; null: one thread
  const FfiUserData* ffi_user_data = nullptr;  // for FFI handlers; null: none
  // interpreter.probe's recordings by probe id, in order; made by the first probe.
  std::shared_ptr<std::map<std::string, std::vector<Array>>> probes;

  // Small arrays' storage kept from released slots for the next outputs (loop bodies); made at
  // the first release. (On the heap: the runtime keeps an ExecState per thread in thread-local
  // storage, and the plugin's static TLS block is small: 2 KiB more made dlopen fail.)
  std::unique_ptr<SmallBlocks> blocks;

  // `bytes` of 64-byte aligned scratch for the thread running the program (small fused runs'
  // intermediate values), kept and grown by this state: no thread-local lookup per run.
  uint8_t* Scratch(int64_t bytes) {
    if (bytes + 64 > scratch_size_) {
      scratch_size_ = std::max<int64_t>(bytes + 64, 16 << 10);
      scratch_.reset(new uint8_t[static_cast<size_t>(scratch_size_)]);
    }
    const uintptr_t at = reinterpret_cast<uintptr_t>(scratch_.get());
    return scratch_.get() + (64 - at % 64) % 64;
  }

  // A kernel's output array: Array::Allocate, or a kept block of the size. Only on the thread
  // running the program (not in ParallelFor pieces).
  Array NewArray(ArrayType type) {
    return blocks ? blocks->Allocate(std::move(type)) : Array::Allocate(std::move(type));
  }
  // A new array for output j of `step`, made in place in its slot (which then holds it): for
  // kernels that fill their result and are done. A slot that kept its last value's storage
  // (Release) takes it again when the type is the same, as it is when the slot's one defining
  // step runs again (a loop body's values: no allocation, no type copy).
  Array& Output(const Step& step, size_t j = 0) {
    RtValue& v = slots[static_cast<size_t>(step.out[j])];
    if (v.kind == RtValue::Kind::kNone && v.array.Unique() && v.array.type() == step.out_types[j]) {
      v.kind = RtValue::Kind::kArray;
      return v.array;
    }
    return NewOutput(v, step.out_types[j]);
  }
  // Drops a kernel's temporary array, keeping a small block it alone held.
  void Recycle(Array& a) {
    if (!blocks) blocks = std::make_unique<SmallBlocks>();
    if (!blocks->Keep(a)) a = Array();
  }
  // Empties a dead slot. A small array it alone held stays there as storage for the slot's next
  // value (Output); Forget hands such storage to `blocks` when the execution ends.
  void Release(int slot) {
    RtValue& v = slots[static_cast<size_t>(slot)];
    if (v.kind == RtValue::Kind::kNone) return;  // empty, or already keeping storage
    if (v.kind == RtValue::Kind::kArray && v.tuple.empty() && SmallBlocks::Keepable(v.array)) {
      AcquireDroppedStorage();
      v.kind = RtValue::Kind::kNone;
      return;
    }
    v.Clear();
  }
  // Empties a slot for good (the end of an execution: the next may number its slots otherwise),
  // keeping small storage in `blocks`.
  void Forget(int slot) {
    if (!blocks) blocks = std::make_unique<SmallBlocks>();
    blocks->Release(slots[static_cast<size_t>(slot)]);
  }

  int threads() const { return parallel ? parallel->threads() : 1; }
  bool deterministic() const { return parallel && parallel->deterministic(); }
  // fn(i) for i in [0, n), over the intra-op threads when there are several.
  void ParallelFor(int64_t n, PieceFn fn) {
    if (parallel && n > 1 && parallel->threads() > 1) {
      parallel->For(n, fn);
    } else {
      for (int64_t i = 0; i < n; ++i) fn(i);
    }
  }

  bool ok() const { return status.ok(); }
  void Fail(const Step& step, absl::Status s);

 private:
  // Output's allocation, apart so that its check inlines and saves no registers (in a loop
  // body, where the check is all it does, the call had cost ~70 instructions).
  Array& NewOutput(RtValue& v, const ArrayType& type);

  std::unique_ptr<uint8_t[]> scratch_;
  int64_t scratch_size_ = 0;
};

// Runs `program` over `state` (whose slots are sized for the whole function).
class StepProfile;
// Step `skip` (if any) is passed over, and so are its releases: a loop's counter, which the loop
// adds itself in the counter's slot, its only operand released there (kernels_control.cc).
void RunProgram(const Program& program, ExecState& state, StepProfile* profile = nullptr, size_t skip = SIZE_MAX);
// Runs a region: moves `args` into its argument slots, runs it, copies out its results.
// False when it failed (state.status says why).
bool CallRegion(const Program& region, ExecState& state, std::vector<RtValue>& args,
                std::vector<RtValue>* results);

// A compiled entry function.
// Time spent in each top-level step of an executable over its life (loops and regions count
// towards the step that runs them), printed to stderr as a table when the executable goes away.
// Created only when the environment variable OPENPJRT_PROFILE is set: profiling costs two clock
// reads per step.
class StepProfile {
 public:
  explicit StepProfile(const Program& program, std::string name);
  ~StepProfile();
  void Add(size_t step, int64_t ns) {
    ns_[step].fetch_add(ns, std::memory_order_relaxed);
    calls_[step].fetch_add(1, std::memory_order_relaxed);
  }
  static bool Enabled();

 private:
  std::string name_;
  std::vector<std::string> steps_;  // name and source line of each step
  std::unique_ptr<std::atomic<int64_t>[]> ns_, calls_;
};

struct Executable {
  std::shared_ptr<Program> program;
  std::shared_ptr<StepProfile> profile;  // null unless OPENPJRT_PROFILE is set
  int num_slots = 0;
  std::vector<ArrayType> arg_types;
  std::vector<ArrayType> result_types;
  std::vector<bool> result_is_token;
  std::string name;

  // Runs with the given arguments; check.* failures are appended to *checks when not null.
  // A positive step_budget bounds the kernel launches (loops included): RESOURCE_EXHAUSTED.
  absl::StatusOr<std::vector<RtValue>> Run(std::vector<RtValue> args,
                                           std::vector<CheckFailure>* checks = nullptr,
                                           int64_t* checks_run = nullptr,
                                           int64_t step_budget = -1, HostTransfers* host = nullptr,
                                           Parallel* parallel = nullptr,
                                           const FfiUserData* ffi_user_data = nullptr) const;

  // Runs one instance per (replica, partition) on its own thread; args[d] and the result's
  // element d belong to device d = replica * num_partitions + partition. Collectives exchange
  // between the instances. The first failing instance's error is returned.
  // With `remote`, only this process's devices run here (args, hosts and the results list them
  // in device order) and collectives reach the other processes' devices through it.
  absl::StatusOr<std::vector<std::vector<RtValue>>> RunReplicated(
      int num_replicas, int num_partitions, std::vector<std::vector<RtValue>> args,
      std::vector<CheckFailure>* checks = nullptr, int64_t* checks_run = nullptr,
      const std::vector<HostTransfers*>* hosts = nullptr, Parallel* parallel = nullptr,
      const FfiUserData* ffi_user_data = nullptr, const RemoteDevices* remote = nullptr) const;

  // Runs on a caller-owned state, which callers may keep between runs to spare allocations:
  // `args` are moved into their slots, the results are appended to *out, and the slots are
  // emptied again (their capacity stays).
  absl::Status RunWith(ExecState& state, std::span<RtValue> args, std::vector<RtValue>* out) const;

 private:
  absl::StatusOr<std::vector<RtValue>> RunOn(ExecState& state, std::vector<RtValue> args) const;
};

}  // namespace openpjrt::cpu
