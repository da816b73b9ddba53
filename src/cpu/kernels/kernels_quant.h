// uniform_quantize and uniform_dequantize (kernels_quant.cc). Quantized tensors are held as
// their storage integers; the compiler runs every other op on quantized tensors as
// dequantize -> op -> quantize.
#pragma once

#include <cstdint>
#include <vector>

#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

struct QuantParams {
  std::vector<double> scales;        // one, or one per index of `axis`
  std::vector<int64_t> zero_points;
  int64_t axis = -1;                 // -1: per-tensor
  int64_t storage_min = 0, storage_max = 0;
};
// float (any float kind) -> storage integers of the result kind.
KernelFn QuantizeKernel();  // params: QuantParams of the result
// storage integers -> float of the result kind.
KernelFn DequantizeKernel();  // params: QuantParams of the operand

}  // namespace openpjrt::cpu
