// Room blas/: dense matrix products.
//
// Contract:
//   * gemm.h   C = A B for row-major matrices of any row strides in every float and complex type,
//              through Eigen built once per instruction set (baseline, AVX2+FMA, AVX-512) and
//              chosen at first use;
//   * sgemm.h  the hand-written f32 product (packing, AVX-512 micro-kernels, narrow shapes,
//              single rows read in place: sgemm_avx512.cc, sgemm_narrow.cc, sgemm_row.cc,
//              sgemm_pack.cc) with fused epilogues (bias, activation) that the compiler's product
//              fusion targets.
// Results of the AVX clones contract multiplies and adds into FMAs (last-bit results depend on
// the machine, as with every BLAS). Depends on nothing else in src/cpu; used by kernels/ (dot,
// convolution) and lapack/.
#pragma once

#include "src/cpu/blas/gemm.h"
#include "src/cpu/blas/sgemm.h"
