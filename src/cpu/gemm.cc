// The baseline GEMM build and the choice between builds.
#define OPENPJRT_GEMM_TABLE kGemmBaseline
#define OPENPJRT_GEMM_ISA "x86-64"
#include "src/cpu/gemm_impl.inc"

namespace openpjrt::cpu {

#ifdef OPENPJRT_GEMM_CLONES
extern const GemmTable kGemmAvx2, kGemmAvx512;
#endif

const GemmTable& Gemm() {
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

}  // namespace openpjrt::cpu
