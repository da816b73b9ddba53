// rng_bit_generator (kernels_rng.cc).
#pragma once

#include "src/cpu/kernels.h"

namespace openpjrt::cpu {

struct RngParams {
  bool philox = false;  // PHILOX and DEFAULT; THREE_FRY otherwise
};
KernelFn RngBitGeneratorKernel();  // in: state (ui64[N]); out: new state, bits

}  // namespace openpjrt::cpu
