// Room lapack/: dense linear algebra behind JAX's LAPACK custom calls and the linalg ops.
//
// Contract:
//   * lapack_factor.h   factorisations written out here, in place on row-major matrices of the
//                       element's precision (f32, f64, complex): LU with partial pivoting,
//                       Householder QR and its Q, Hessenberg and tridiagonal reductions,
//                       Cholesky, the Hermitian eigenproblem (lapack_eigh.cc) and the SVD
//                       (lapack_svd.cc);
//                       Inner loops that sum lanes use SumLanes (a fixed tree), so results
//                       are the same bits at every vector width; Cholesky's diagonal blocks
//                       are factored in a square copy with masked full-width row updates
//                       (potrf_test.cc), and real Householder reflections of blocks at most 32
//                       columns wide and block reflectors' T use masked AVX-512 rows, the
//                       scalar loops' bits (geqrf_test.cc); f32 / complex64 eigenproblems and SVDs merge their
//                       divide and conquer's halves with single-precision products
//                       (syevd_test.cc, gesdd_test.cc);
//   * kernels_lapack.cc the custom-call kernels (lapack_*_ffi and the legacy targets) over
//                       batches, with LAPACK's info codes and the results' layouts JAX expects;
//   * kernels_linalg.h  triangular_solve and cholesky ops.
// Depends on: exec/, blas/, fft/ (none of its kernels), kernels/ (signatures).
#pragma once

#include "src/cpu/lapack/kernels_linalg.h"
#include "src/cpu/lapack/lapack_factor.h"
