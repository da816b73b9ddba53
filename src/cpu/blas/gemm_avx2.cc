// GEMM built for AVX2 + FMA (see gemm_impl.inc).
#define Eigen EigenAvx2
#define OPENPJRT_GEMM_TABLE kGemmAvx2
#define OPENPJRT_GEMM_ISA "avx2"
#include "src/cpu/blas/gemm_impl.inc"
