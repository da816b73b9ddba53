// The baseline GEMM build and the choice between builds.
#define OPENPJRT_GEMM_TABLE kGemmBaseline
#define OPENPJRT_GEMM_ISA "x86-64"
#include "src/cpu/blas/gemm_impl.inc"
#include "src/cpu/blas/sgemm.h"

namespace openpjrt::cpu {

#ifdef OPENPJRT_GEMM_CLONES
extern const GemmTable kGemmAvx2, kGemmAvx512;
#endif

namespace {

// f32 products through our own kernel (sgemm.h), on the calling thread.
void OwnSgemm(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
              int64_t m, int64_t k, int64_t n) {
  static const SgemmParallelFor kInOrder = [](int64_t count, const std::function<void(int64_t)>& fn) {
    for (int64_t i = 0; i < count; ++i) fn(i);
  };
  // (Eigen's, when our packing buffers cannot be allocated.)
  if (!FastSgemm(m, n, k, {a, lda, 1}, {b, ldb, 1}, c, ldc, 1, kInOrder)) EigenGemm().f32(a, lda, b, ldb, c, ldc, m, k, n);
}

}  // namespace

const GemmTable& EigenGemm() {
  static const GemmTable* table = [] {
#ifdef OPENPJRT_GEMM_CLONES
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
      return &kGemmAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &kGemmAvx2;
#endif
    return &kGemmBaseline;
  }();
  return *table;
}

const GemmTable& Gemm() {
  static const GemmTable* table = [] {
    const GemmTable& eigen = EigenGemm();
    static const GemmTable with_own_sgemm = {"avx512", &OwnSgemm, eigen.f64, eigen.c64, eigen.c128};
    return HaveFastSgemm() ? &with_own_sgemm : &eigen;
  }();
  return *table;
}

}  // namespace openpjrt::cpu
