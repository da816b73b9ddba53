// GEMM built for AVX-512 (F, DQ, VL, BW) + FMA (see gemm_impl.inc).
#define Eigen EigenAvx512
#define OPENPJRT_GEMM_TABLE kGemmAvx512
#define OPENPJRT_GEMM_ISA "avx512"
#include "src/cpu/blas/gemm_impl.inc"
