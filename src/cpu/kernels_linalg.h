// Normalisation, factorisation, solves, transforms and top-k (kernels_linalg.cc). They compute in
// double precision and round once into the result kind.
#pragma once

#include <cstdint>
#include <vector>

#include "src/cpu/kernels.h"

namespace openpjrt::cpu {

struct BatchNormParams {
  double epsilon = 0;
  int64_t feature_index = 0;
};
KernelFn BatchNormInferenceKernel();  // in: operand, scale, offset, mean, variance
KernelFn BatchNormTrainingKernel();   // in: operand, scale, offset; out: output, mean, variance
KernelFn BatchNormGradKernel();       // in: operand, scale, mean, variance, grad_output

struct CholeskyParams {
  bool lower = false;
};
KernelFn CholeskyKernel();

struct TriangularSolveParams {
  bool left_side = true, lower = true, unit_diagonal = false;
  enum Transpose : uint8_t { kNoTranspose, kTranspose, kAdjoint } transpose = kNoTranspose;
};
KernelFn TriangularSolveKernel();

struct FftParams {
  enum Type : uint8_t { kFft, kIfft, kRfft, kIrfft } type = kFft;
  std::vector<int64_t> lengths;
};
KernelFn FftKernel();

struct TopKParams {
  int64_t k = 0;
};
KernelFn TopKKernel();  // out: values, int32 indices

}  // namespace openpjrt::cpu
