// Register evaluation of f32 and 32-bit integer fused runs (AVX-512). Internal to src/cpu.
//
// The block evaluator of fused.h runs each op of a fused run as its own loop over a block of
// 1,024 elements, through block buffers in L1: the five ops of tanh(0.5 * x + 0.1) * x + 1 cost
// five passes of loads and stores plus the copy out. Here a run whose ops are all ops of VecOp
// (f32 -> f32, or 32-bit integer ones: threefry's adds, rotates and xors) is compiled into a
// short list of steps on one accumulator of eight vectors (128 elements): load an operand, apply
// an op with the other operand from memory, a scalar or the accumulator itself, store.
// (FusedBlockEval::PlanVec decides which runs: those of at least a block, with a long op or four
// or more ops, where the measurements favoured it.) The steps are interpreted once per 128
// elements; values live in registers from the load of the run's input to the store of its
// output, and only values read again later (by anything but the next op) are stored to their
// block buffers.
//
// Each op computes exactly what its loop in kernels_elementwise.cc (clamp: kernels_convert.cc) computes (the same IEEE
// operations in the same order; the fast_math functions through the same vector bodies), so
// results are the same bits whichever evaluator runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

struct VecStep {
  enum Kind : uint8_t {
    kLoad,    // acc = operand
    kUnary,   // acc = op(acc); clamp: between scalar and scalar2
    kBinary,  // acc = acc op operand, or operand op acc when reversed
    kStore,   // memory = acc
    kStream,  // memory = acc with non-temporal stores (where 64-byte aligned)
  };
  enum Form : uint8_t {
    kMemory,  // ptrs[ptr] + offset
    kScalar,  // scalar, every element
    kSelf,    // the accumulator (x * x)
  };
  Kind kind = kLoad;
  VecOp op = VecOp::kNone;
  Form form = kMemory;
  bool reversed = false;
  float scalar = 0, scalar2 = 0;
  int ptr = -1;  // memory operand or destination: index into the pointer table
};

// Runs `steps` over elements [0, count) (count <= kFusedBlock) of the block whose memory
// operands start at ptrs[i].
using VecRunFn = void (*)(const VecStep* steps, size_t num_steps, float* const* ptrs, int64_t count);

// The evaluator, or null where this build has no AVX-512 copies or the CPU lacks AVX-512 (fused
// runs then use the block evaluator), or where OPENPJRT_FUSED_BLOCKS=1 asks for the block
// evaluator (for comparisons).
VecRunFn VecRunner();
// For tests and benchmarks: false makes VecRunner() return null (evaluators built afterwards use
// blocks) until it is called with true.
void EnableVecRunner(bool on);

}  // namespace openpjrt::cpu
