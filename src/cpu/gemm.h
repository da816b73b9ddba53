// Dense row-major matrix products C = A B (A: M x K, B: K x N) through Eigen, compiled once per
// instruction set (baseline x86-64, AVX2+FMA, AVX-512) and chosen when first used from what the
// CPU supports. The AVX builds contract multiplies and adds into FMAs, so last-bit results of a
// matmul depend on the machine (as with every BLAS); elementwise ops do not.
#pragma once

#include <complex>
#include <cstdint>

namespace openpjrt::cpu {

struct GemmTable {
  const char* isa;
  void (*f32)(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n);
  void (*f64)(const double* a, const double* b, double* c, int64_t m, int64_t k, int64_t n);
  void (*c64)(const std::complex<float>* a, const std::complex<float>* b, std::complex<float>* c,
              int64_t m, int64_t k, int64_t n);
  void (*c128)(const std::complex<double>* a, const std::complex<double>* b, std::complex<double>* c,
               int64_t m, int64_t k, int64_t n);
};

// The table for this CPU (the best build it can run).
const GemmTable& Gemm();

}  // namespace openpjrt::cpu
