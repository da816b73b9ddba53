// Dense row-major matrix products C = A B (A: M x K, B: K x N, any row strides) through Eigen, compiled once per
// instruction set (baseline x86-64, AVX2+FMA, AVX-512) and chosen when first used from what the
// CPU supports. The AVX builds contract multiplies and adds into FMAs, so last-bit results of a
// matmul depend on the machine (as with every BLAS); elementwise ops do not.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

namespace openpjrt::cpu {

// Row-major with leading dimensions (elements between rows): C[m x n] = A[m x k] B[k x n].
template <typename C>
using GemmFn = void (*)(const C* a, int64_t lda, const C* b, int64_t ldb, C* c, int64_t ldc,
                        int64_t m, int64_t k, int64_t n);

struct GemmTable {
  const char* isa;
  GemmFn<float> f32;
  GemmFn<double> f64;
  GemmFn<std::complex<float>> c64;
  GemmFn<std::complex<double>> c128;
};

// The table for this CPU (the best build it can run; f32 through our own kernel, sgemm.h, where
// the CPU has AVX-512).
const GemmTable& Gemm();
// The best Eigen build for this CPU, for every kind (benchmarks compare against it).
const GemmTable& EigenGemm();

// Gemm()'s entry for element type C (the linear-algebra kernels).
template <typename C>
GemmFn<C> GemmOf() {
  if constexpr (std::is_same_v<C, std::complex<double>>) return Gemm().c128;
  else if constexpr (std::is_same_v<C, std::complex<float>>) return Gemm().c64;
  else if constexpr (std::is_same_v<C, float>) return Gemm().f32;
  else return Gemm().f64;
}

}  // namespace openpjrt::cpu
