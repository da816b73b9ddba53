// rng_bit_generator (kernels_rng.cc).
#pragma once

#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

struct RngParams {
  bool philox = false;  // PHILOX and DEFAULT; THREE_FRY otherwise
};
KernelFn RngBitGeneratorKernel();  // in: state (ui64[N]); out: new state, bits

// stablehlo.rng: UNIFORM on [a, b) for integers, booleans and floats, NORMAL (mean a, standard
// deviation b) for floats. The spec leaves the generator to the implementation: Philox-4x32 with
// a process-wide counter, so every execution draws new numbers (as XLA's rng does). a >= b
// (UNIFORM) gives a. Null for kinds without a kernel.
struct RngDistributionParams {
  bool normal = false;
};
KernelFn RngDistributionKernel(ElemKind kind);  // in: a, b (rank 0), shape; out: the numbers

}  // namespace openpjrt::cpu
