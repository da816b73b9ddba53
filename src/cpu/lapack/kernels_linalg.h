// Normalisation, factorisation, solves, transforms and top-k (kernels_linalg.cc). They compute in
// double precision and round once into the result kind.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <vector>

#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

struct BatchNormParams {
  double epsilon = 0;
  int64_t feature_index = 0;
};
KernelFn BatchNormInferenceKernel();  // in: operand, scale, offset, mean, variance
KernelFn BatchNormTrainingKernel();   // in: operand, scale, offset; out: output, mean, variance
KernelFn BatchNormGradKernel();       // in: operand, scale, mean, variance, grad_output

// fn(b0, b1) for contiguous pieces [b0, b1) of a batch of `batch` matrices, each costing about
// `cost` multiply-adds: over the intra-op threads when the batch has enough work (2^19
// multiply-adds; each matrix is computed the same way whatever the split), else once for the
// whole batch on this thread.
void ForEachBatchPiece(ExecState& st, int64_t batch, int64_t cost, const std::function<void(int64_t, int64_t)>& fn);

struct CholeskyParams {
  bool lower = false;
};
KernelFn CholeskyKernel();

// The lower Cholesky factor of the Hermitian matrix whose lower triangle is in the row-major
// n x n `a`, in place; the strict upper triangle is neither read nor changed (kernels_lapack.cc).
// Returns 0, or the 1-based order of the first leading minor that is not positive definite: the
// columns before it are then final and its diagonal holds the non-positive pivot (LAPACK's potrf).
int32_t CholeskyLowerInPlace(double* a, int64_t n);
int32_t CholeskyLowerInPlace(std::complex<double>* a, int64_t n);
int32_t CholeskyLowerInPlace(float* a, int64_t n);
int32_t CholeskyLowerInPlace(std::complex<float>* a, int64_t n);

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
  bool largest = true;  // false: the k smallest, in increasing order
};
KernelFn TopKKernel();  // out: values, int32 indices

// The LAPACK routines of JAX's CPU custom calls (kernels_lapack.cc), for f32, f64, c64 and c128.
// Results follow the order JAX declares (extra workspace results are zero-filled):
//   getrf: a -> lu, ipiv (1-based, i32), info          geqrf: a -> qr, tau[, info, work]
//   orgqr: a, tau -> q[, info, work]                   potrf: a -> factor, info
//   syevd: a -> eigenvectors, eigenvalues, info[, ...] gesdd: a -> a, s, u, vt, info[, ...]
//   geev: a -> wr, wi, vl, vr, info[, ...] (real) or w, vl, vr, info[, ...] (complex)
struct LapackParams {
  enum Routine : uint8_t { kGetrf, kGeqrf, kOrgqr, kPotrf, kSyevd, kGesdd, kGeev, kGehrd, kSytrd, kGees } routine = kGetrf;
  bool lower = true;          // potrf, syevd: which triangle holds the matrix
  bool vectors = true;        // syevd: eigenvectors; gesdd: u and vt; geev: right eigenvectors; gees: vs
  bool left_vectors = false;  // geev
  bool full_matrices = true;  // gesdd
  int64_t ilo = 0, ihi = -1;  // gehrd: the rows/columns reduced (0-based, inclusive)
  int first_operand = 0;      // the matrix's index in step.in (legacy calls pass scalars first)
  bool tuple_result = false;  // legacy calls return one tuple
  std::vector<ArrayType> result_types;
};
KernelFn LapackKernel();
// ?gtsv_ffi: in dl, d, du ([batch..., m]), b ([batch..., m, nrhs]); out the same four updated and
// info (i32 [batch...]), as LAPACK's gtsv leaves them (dl[0] and du[m-1] are not used).
KernelFn GtsvKernel();

}  // namespace openpjrt::cpu
