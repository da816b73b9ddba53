// Block-wise evaluation of a fused elementwise run (FusedParams, kernels.h), shared by the fused
// elementwise kernel and by reductions that absorbed their producer run. Internal to src/cpu.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "src/cpu/kernels/fused_vec.h"
#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

inline constexpr int64_t kFusedBlock = 1024;  // elements evaluated at a time

// The run's inputs, read from slots step.in[0, num_inputs): arrays of the run's size, splat
// constants and broadcast scalars (a block of the repeated element), absorbed broadcasts (element
// e of the run reads element (e / inner) % period).
// Per-run lists are small: inline storage spares the allocations that a tiny run (a loop body's
// step) would otherwise pay on every call.
template <typename T>
using FusedList = absl::InlinedVector<T, 8>;

struct FusedInputs {
  FusedList<const uint8_t*> ptr;
  FusedList<std::unique_ptr<uint8_t[]>> splat;  // non-null: ptr points at this block
  FusedList<int64_t> period;                    // > 1: ptr is a repeating input of this size
  FusedList<int64_t> inner;                     // each of its elements repeated this many times
};

// Bytes for an evaluator's block buffers, reused by the next evaluator on the same thread (they
// are kilobytes, page-spaced: a malloc and free of them per call cost more than a small run).
class ArenaLease {
 public:
  explicit ArenaLease(size_t bytes = 0);
  ArenaLease(ArenaLease&&) noexcept = default;
  ArenaLease& operator=(ArenaLease&&) noexcept = default;
  ~ArenaLease();
  uint8_t* get() const { return block_.get(); }

 private:
  std::unique_ptr<uint8_t[]> block_;
  size_t size_ = 0;
};
// Where window input i of the fused step `s` starts (FusedParams::input_window): the slice's
// first element in the whole array its slot holds. Null, with *status set, when that array is
// not of the window's shape.
const uint8_t* WindowInput(const FusedParams& p, const Step& s, const ExecState& st, size_t i, absl::Status* status);
// Input `skip` is left null (an ordinary input): the caller points it at its values.
absl::Status PrepareFusedInputs(const FusedParams& p, const Step& s, const ExecState& st,
                                size_t num_inputs, FusedInputs* in, int skip = -1);

// Evaluates the run of step `s` when it is at most one block long, op after op over all of it
// (fused_small.cc), and puts its outputs in their slots: what tiny runs take instead of a
// FusedBlockEval. Input `product_input` is read from *product instead of its slot (a fused
// product's epilogue; -1: none). False, having done nothing, for a longer run; true once done or
// failed (st.Fail, for inputs of the wrong size).
bool FusedSmall(const FusedParams& p, const Step& s, ExecState& st, const Array* product = nullptr,
                int product_input = -1);

// The outputs of an epilogue run over a value `c` made for it (a product, gathered rows): the first
// output of c's byte size takes c's storage (*in_place; the evaluator must then defer its writes,
// each block writing the elements it has just read), the others are allocated.
inline std::vector<Array> EpilogueOutputs(const Step& epilogue, const Array& c, bool* in_place) {
  std::vector<Array> outs;
  *in_place = false;
  for (const ArrayType& t : epilogue.out_types) {
    if (!*in_place && t.ByteSize() == c.ByteSize()) {
      outs.push_back(c.Reshaped(t));
      *in_place = true;
    } else {
      outs.push_back(Array::Allocate(t));
    }
  }
  return outs;
}

// One thread's evaluator: its own block buffers. Run(start, count) computes every op of the run
// for elements [start, start + count) (count <= kFusedBlock); ops with an output index write
// into outs (absolute positions), the others into block buffers that Value() returns.
class FusedBlockEval {
 public:
  // stream: results are computed into block buffers and written to the outputs with
  // non-temporal stores (for outputs far larger than the caches: no read of each destination
  // line before it is overwritten). Call Finish() before the outputs are read.
  // deferred: outputs are written only after every op of the block has run, so an output may
  // share storage with an input of the run (in-place reuse of an input that dies here).
  // keep: an op without an output whose value the caller reads through Value() after Run.
  // registers: runs of one or a few cheap ops take the register steps too where they can (row
  // groups, fused_rows.h: their blocks are a row or a few, and the block loops' passes through
  // L1 cost more there than the steps' dispatch; layer norm over 8192 x 512 at one thread
  // 3.2 -> 2.8 ms, over 32768 x 128 3.6 -> 3.3 ms).
  FusedBlockEval(const FusedParams& p, const FusedInputs& in, std::vector<Array>* outs, bool stream = false,
                 bool deferred = false, int keep = -1, bool registers = false);
  void Run(int64_t start, int64_t count);
  void Finish();
  const uint8_t* Value(size_t op) const { return buffers_[buffer_of_[op]]; }
  // The block of op's value that Run(start, ...) computed: its output's elements when it has
  // one, else Value(op).
  const uint8_t* ValueAt(size_t op, int64_t start) { return At(static_cast<int>(in_.ptr.size() + op), start); }
  // Output k is written at `base` (indexed absolutely, like the outputs) from the next Run on,
  // instead of into (*outs)[k]: row groups (fused_rows.h) keep values that only the group reads
  // in a block of rows of per-thread scratch.
  void PointOutput(int k, uint8_t* base) {
    if (out_at_.size() <= static_cast<size_t>(k)) out_at_.resize(static_cast<size_t>(k) + 1, nullptr);
    out_at_[static_cast<size_t>(k)] = base;
  }

 private:
  uint8_t* At(int value, int64_t start);
  uint8_t* OutBase(int k) const {
    return static_cast<size_t>(k) < out_at_.size() && out_at_[static_cast<size_t>(k)]
               ? out_at_[static_cast<size_t>(k)]
               : (*outs_)[static_cast<size_t>(k)].mutable_data();
  }
  // Run's work for elements [start, start + count) of the current block.
  void RunPart(int64_t start, int64_t count);
  // The register evaluator's steps for this run (fused_vec.h), when every op is one it knows
  // and the run is one where registers measured faster (see the definition).
  void PlanVec(int keep, bool registers);

  const FusedParams& p_;
  const FusedInputs& in_;
  std::vector<Array>* outs_;
  bool stream_, deferred_;
  FusedList<int> buffer_of_;                          // op -> its block buffer, -1 if none
  ArenaLease arena_;                                  // holds the buffers below
  FusedList<uint8_t*> buffers_;                       // block buffers, shared by ops one after another
  FusedList<int> buffer_bytes_;                       // element size of each buffer
  FusedList<uint8_t*> gathered_;                      // per input: its gathered block, or null
  VecRunFn vec_run_ = nullptr;                        // set: Run evaluates vec_steps_
  FusedList<VecStep> vec_steps_;
  FusedList<int> vec_ptr_key_;                        // per pointer: a value (At), or ~output
  FusedList<float*> vec_ptrs_;                        // the pointers for the current block
  // Steps whose memory operand is a repeating input that is gathered per block (a per-row value
  // broadcast along the row): (step, input). Where a block lies within one repeat, such a step
  // reads the value as its scalar instead, and the input is not gathered for that block.
  FusedList<std::pair<int, int>> vec_repeats_;
  int64_t row_split_ = 0;  // > 0: Run cuts blocks at multiples of this many elements (see PlanVec)
  bool rows_affine_ = false;  // with row_split_: a row's part differs from the last one only by its offset
  int64_t block_start_ = 0;  // the current block's first element: buffers hold it from their start
  uint64_t row_scalar_ = 0;  // per-row inputs (< 64) that binary ops read a row at a time (see RunPart)
  uint64_t direct_ = 0;      // repeating inputs (< 64) that the current part reads in place (At)
  FusedList<uint8_t*> out_at_;  // PointOutput's bases (null: the output array's)
};

// Elements e0 + r * ld + [0, cols) for r in [0, rows) of a product's row-major result are final.
using ProductRegionFn = std::function<void(int64_t e0, int64_t rows, int64_t cols, int64_t ld)>;
// The f32 dot_general (convolution) step `s` computed into `out` (allocated for its result) by
// the fast kernel, with `done` told of each finished region on the thread that finished it;
// false, having done nothing, when the step takes another path.
// `update` (optional, then `done` is null): the result is D + s * product or D - s * product
// (SgemmUpdate; D has the result's shape, row-major, and its d is D's first element), computed
// in the product's registers.
struct SgemmUpdate;
bool DotF32Fast(const Step& s, ExecState& st, Array& out, const ProductRegionFn* done,
                const SgemmUpdate* update = nullptr);
bool ConvF32Fast(const Step& s, ExecState& st, Array& out, const ProductRegionFn* done);

}  // namespace openpjrt::cpu
