// The dense factorisations behind JAX's LAPACK custom calls that are written out here rather
// than taken from Eigen (kernels_lapack.cc runs them per matrix of a batch): LU with partial
// pivoting, Householder QR and its Q, Hessenberg and tridiagonal reductions, Cholesky, and the
// Hermitian eigenproblem (lapack_eigh.cc) and the SVD (lapack_svd.cc). They work in place on
// row-major matrices in double or complex<double> (getrf, potrf, geqrf, orgqr and the reductions
// of syevd and gesdd also in float / complex<float>, for float32 / complex64 data), follow
// LAPACK's conventions and order of operations, and take their level-3 updates through gemm.h by
// panels of 32 columns (matrices within one panel get exactly LAPACK's unblocked algorithms).
// Internal to src/cpu.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

namespace openpjrt::cpu::lapack {

using cdouble = std::complex<double>;
using cfloat = std::complex<float>;

template <typename T> struct IsComplex : std::false_type { using Real = T; };
template <typename T> struct IsComplex<std::complex<T>> : std::true_type { using Real = T; };

// The lanes of a GCC vector of W (vector_size) summed in a fixed tree, halves added lane by
// lane: the same bits whatever widths the compiler splits the vector into, all in registers.
// (Sums kept in an array of lanes were added one by one through the stack: 16 dependent adds
// of ~4 cycles per row of a matrix pass.)
template <typename W, typename V>
[[gnu::always_inline]] inline W SumLanes(V x) {
  constexpr size_t kLanes = sizeof(V) / sizeof(W);
  static_assert(kLanes >= 2 && (kLanes & (kLanes - 1)) == 0);
  if constexpr (kLanes == 2) {
    return x[0] + x[1];
  } else {
    typedef W H __attribute__((vector_size(sizeof(V) / 2)));
    H lo, hi;
    __builtin_memcpy(&lo, &x, sizeof(H));
    __builtin_memcpy(&hi, reinterpret_cast<const char*>(&x) + sizeof(H), sizeof(H));
    return SumLanes<W>(lo + hi);
  }
}

inline double ConjOf(double x) { return x; }
inline cdouble ConjOf(cdouble x) { return std::conj(x); }
inline float ConjOf(float x) { return x; }
inline cfloat ConjOf(cfloat x) { return std::conj(x); }
inline double RealOf(double x) { return x; }
inline double RealOf(cdouble x) { return x.real(); }
inline double RealOf(float x) { return x; }
inline double RealOf(cfloat x) { return x.real(); }
inline double ImagOf(double) { return 0; }
inline double ImagOf(cdouble x) { return x.imag(); }
inline double ImagOf(float) { return 0; }
inline double ImagOf(cfloat x) { return x.imag(); }
// LAPACK's pivot measure: |x| for reals, |re| + |im| for complex values.
inline double Abs1(double x) { return std::fabs(x); }
inline double Abs1(cdouble x) { return std::fabs(x.real()) + std::fabs(x.imag()); }
inline double Abs1(float x) { return std::fabs(x); }
inline double Abs1(cfloat x) { return std::fabs(x.real()) + std::fabs(x.imag()); }

// The 2-norm of x[0..count) (stride apart): a plain sum of squares where it can neither overflow
// nor lose digits to underflow, else accumulated by hypot. The squares go into eight partial sums
// (element i into sum i % 8, added pairwise at the end): one running sum was a chain of dependent
// additions, four cycles an element (every reflector of a 256 x 256 eigh or qr takes a norm).
template <typename W>
double Norm2(const W* x, int64_t stride, int64_t count) {
  double part[8] = {};
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    for (int l = 0; l < 8; ++l) {
      const W v = x[(i + l) * stride];
      part[l] += RealOf(v) * RealOf(v) + ImagOf(v) * ImagOf(v);
    }
  for (int l = 0; i < count; ++i, ++l) {
    const W v = x[i * stride];
    part[l] += RealOf(v) * RealOf(v) + ImagOf(v) * ImagOf(v);
  }
  const double ss = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  if (ss <= 0x1p900 && ss >= 0x1p-900) return std::sqrt(ss);
  double norm = 0;
  for (int64_t i = 0; i < count; ++i) norm = std::hypot(norm, std::abs(x[i * stride]));
  return norm;
}

// sqrt(a^2 + b^2) without std::hypot's cost where the squares can neither overflow nor lose
// digits to underflow (a rotation per QL step made hypot a third of a batch of 16 x 16 eigh).
inline double Hypot(double a, double b) {
  const double s = a * a + b * b;
  return s > 0x1p-900 && s < 0x1p900 ? std::sqrt(s) : std::hypot(a, b);
}

// An elementary reflector (LAPACK's larfg): for alpha and x[0..count) (stride apart), finds tau
// and v = [1, x'] with H^H [alpha; x] = [beta; 0], H = I - tau v v^H, beta real. On return
// alpha holds beta and x holds v's tail. tau is 0 (H = I) when there is nothing to annihilate.
// A beta below safmin = (smallest normal) / eps of W's precision is first scaled up with alpha and
// x by 1 / safmin (up to 20 times, as larfg does): 1 / (alpha - beta) would otherwise overflow and
// turn v into infinities and NaNs (the trailing columns of a rank-deficient matrix decay by a
// factor of about eps per step and reach there after ~20 columns in double, ~5 in float).
template <typename W>
W Larfg(W& alpha, W* x, int64_t stride, int64_t count) {
  using R = typename IsComplex<W>::Real;
  double xnorm = Norm2(x, stride, count);
  if (xnorm == 0 && ImagOf(alpha) == 0) return W(0);
  double norm = Hypot(Hypot(RealOf(alpha), ImagOf(alpha)), xnorm);
  double beta = RealOf(alpha) >= 0 ? -norm : norm;
  constexpr double kSafmin =
      static_cast<double>(std::numeric_limits<R>::min()) / static_cast<double>(std::numeric_limits<R>::epsilon());
  int knt = 0;
  if (std::fabs(beta) < kSafmin) {
    const R up = static_cast<R>(1 / kSafmin);
    do {
      ++knt;
      for (int64_t i = 0; i < count; ++i) x[i * stride] *= up;
      alpha *= up;
      beta *= 1 / kSafmin;
    } while (std::fabs(beta) < kSafmin && knt < 20);
    xnorm = Norm2(x, stride, count);
    norm = Hypot(Hypot(RealOf(alpha), ImagOf(alpha)), xnorm);
    beta = RealOf(alpha) >= 0 ? -norm : norm;
  }
  W tau;
  if constexpr (!IsComplex<W>::value) {
    tau = static_cast<W>((beta - alpha) / beta);
  } else {
    tau = W(static_cast<R>((beta - alpha.real()) / beta), static_cast<R>(-alpha.imag() / beta));
  }
  const W scale = W(1) / (alpha - W(static_cast<R>(beta)));
  for (int64_t i = 0; i < count; ++i) x[i * stride] *= scale;
  for (int j = 0; j < knt; ++j) beta *= kSafmin;
  alpha = W(static_cast<R>(beta));
  return tau;
}

// When amax (a's largest magnitude) is near overflow or underflow, scales a to about 1 by a power
// of two, element by element (2^e itself overflows when the entries are subnormal); returns the
// exponent applied (0: a left as it is).
template <typename W>
int ScaleToUnit(std::vector<W>& a, double amax) {
  // (About half of the exponent range either way: 2^500 for double, 2^60 for float.)
  constexpr double kHigh = std::is_same_v<typename IsComplex<W>::Real, float> ? 0x1p60 : 0x1p500;
  if (!(amax > 0) || (amax <= kHigh && amax >= 1 / kHigh)) return 0;
  const int e = -std::ilogb(amax);
  for (W& x : a) {
    if constexpr (IsComplex<W>::value) x = W(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
    else x = std::ldexp(x, e);
  }
  return e;
}

// The reflector whose row form zeroes row[1..m) (m >= 1): H = I - tau v v^H from larfg of the
// row's conjugate, so that row H = (beta, 0, ..., 0), beta real. v goes to `into` (v[0] = 1), beta
// to *beta; returns tau.
template <typename W>
W RowReflector(const W* row, int64_t m, W* into, double* beta) {
  for (int64_t c = 0; c < m; ++c) into[c] = ConjOf(row[c]);
  W alpha = into[0];
  const W tau = Larfg(alpha, into + 1, 1, m - 1);
  *beta = RealOf(alpha);
  into[0] = W(1);
  return tau;
}

// getrf: a (m x n) becomes L\U; ipiv (min(m, n)) 1-based; returns info (0, or the 1-based index
// of the first exactly-zero pivot).
int32_t Getrf(std::vector<double>& a, int64_t m, int64_t n, int32_t* ipiv);
int32_t Getrf(std::vector<cdouble>& a, int64_t m, int64_t n, int32_t* ipiv);
// (float32 and complex64 in their own precision, as LAPACK's sgetrf / cgetrf: the trailing
// products through the f32 GEMM.)
int32_t Getrf(std::vector<float>& a, int64_t m, int64_t n, int32_t* ipiv);
int32_t Getrf(std::vector<cfloat>& a, int64_t m, int64_t n, int32_t* ipiv);
// geqrf: R on and above the diagonal, Householder vectors below it, tau (min(m, n)).
void Geqrf(std::vector<double>& a, int64_t m, int64_t n, double* tau);
void Geqrf(std::vector<cdouble>& a, int64_t m, int64_t n, cdouble* tau);
// (float32 and complex64 in their own precision, as sgeqrf / cgeqrf; so are orgqr's below.)
void Geqrf(std::vector<float>& a, int64_t m, int64_t n, float* tau);
void Geqrf(std::vector<cfloat>& a, int64_t m, int64_t n, cfloat* tau);
// gehrd over rows/columns ilo..ihi (0-based, inclusive); tau (n - 1).
void Gehrd(std::vector<double>& a, int64_t n, int64_t ilo, int64_t ihi, double* tau);
void Gehrd(std::vector<cdouble>& a, int64_t n, int64_t ilo, int64_t ihi, cdouble* tau);
// syevd's reduction of the Hermitian n x n matrix `a` (row-major, both triangles filled) to the
// real tridiagonal T = Q^H A Q: d (n) and e (n) hold T, tau (n) and the reflectors' tails below
// the subdiagonal Q (geqrf's layout for the matrix one row down). Real matrices are read from
// the upper triangle alone (lapack_tridiagonal.cc).
void TridiagonalizeHermitian(double* a, int64_t n, double* d, double* e, double* tau);
void TridiagonalizeHermitian(float* a, int64_t n, double* d, double* e, float* tau);
void TridiagonalizeHermitian(cdouble* a, int64_t n, double* d, double* e, cdouble* tau);
void TridiagonalizeHermitian(cfloat* a, int64_t n, double* d, double* e, cfloat* tau);
// sytrd/hetrd from one triangle: d (n), e (n - 1), tau (n - 1).
void Sytrd(std::vector<double>& a, int64_t n, bool lower, double* d, double* e, double* tau);
void Sytrd(std::vector<cdouble>& a, int64_t n, bool lower, double* d, double* e, cdouble* tau);
// fn(i) for every i in [0, n), possibly on several threads at once (the pieces are independent);
// returns when all are done. What a factorisation of one matrix may spread over the intra-op
// threads: pieces whose results do not depend on how the work is cut.
using LapackFor = std::function<void(int64_t n, const std::function<void(int64_t)>& fn)>;
// syevd/heevd: eigenvalues of the Hermitian matrix a (n x n, held in one triangle) into w
// (ascending) and, with `vectors`, the eigenvectors into a's columns (by divide and conquer,
// lapack_eigh.cc). Returns 0, or 1 when the iteration did not converge. With `parallel`, the
// divide and conquer's halves, its last merge and the vectors' back-transformation go over its
// threads; the results are the same bits either way.
int32_t Syevd(std::vector<double>& a, int64_t n, bool lower, bool vectors, double* w,
              const LapackFor* parallel = nullptr);
int32_t Syevd(std::vector<cdouble>& a, int64_t n, bool lower, bool vectors, double* w,
              const LapackFor* parallel = nullptr);
// (float32 / complex64: the reduction to the tridiagonal, the divide and conquer merges' products
// of vectors and the back-transformation in single precision, as ssyevd / cheevd; the rest of the
// tridiagonal's eigenproblem in double.)
int32_t Syevd(std::vector<float>& a, int64_t n, bool lower, bool vectors, double* w,
              const LapackFor* parallel = nullptr);
int32_t Syevd(std::vector<cfloat>& a, int64_t n, bool lower, bool vectors, double* w,
              const LapackFor* parallel = nullptr);
// Eigenvalues (ascending, into d) and, with z, eigenvectors of the m x m symmetric tridiagonal
// (d, e[0..m-1)) by implicit QL (lapack_eigh.cc; e is destroyed): z's zrows rows (stride ldz) are
// rotated along. Couplings below eps times `norm` count as zero. False when it did not converge.
bool TridiagonalQl(int64_t m, double* d, double* e, double* z, int64_t ldz, int64_t zrows, double norm);
// The roots of the secular equation 1/rho + sum_i z_i^2 / (d_i - x) = 0 for poles d (k, strictly
// increasing) and rho > 0 into lambda (ascending), and every difference d_i - lambda_j into
// delta[i * k + j], accurate however close a root is to its pole (lapack_eigh.cc). Roots
// [j0, j1) only when j1 >= 0 (each root is found on its own: the same bits in any cut).
void SecularRoots(int64_t k, const double* d, const double* z, double rho, double* lambda, double* delta,
                  int64_t j0 = 0, int64_t j1 = -1);
// Gu and Eisenstat's weights: z (signs kept) replaced by the weights for which those roots are
// exact, so that vectors built from them are orthogonal to working precision. Weights [i0, i1)
// only when i1 >= 0.
void SecularWeights(int64_t k, const double* d, const double* delta, double rho, double* z, int64_t i0 = 0,
                    int64_t i1 = -1);
// gesdd/gesvd of a (m x n, row-major): singular values into s (min(m, n), descending) and, with
// `vectors`, U into u (m x m when `full`, else m x min(m, n)) and V^H into vt (n x n when `full`,
// else min(m, n) x n), both row-major (lapack_svd.cc). Returns 0, or -4 when a holds NaN or
// infinity (LAPACK's code for a NaN argument; s is then NaN).
int32_t Gesdd(std::vector<double>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, double* u,
              double* vt);
int32_t Gesdd(std::vector<cdouble>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, cdouble* u,
              cdouble* vt);
// (float32 / complex64: the bidiagonalisation, the divide and conquer merges' products of vectors
// and the back-transformation in single precision, as sgesdd / cgesdd; the rest of the
// bidiagonal's divide and conquer in double.)
int32_t Gesdd(std::vector<float>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, float* u, float* vt);
int32_t Gesdd(std::vector<cfloat>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, cfloat* u,
              cfloat* vt);
// orgqr/ungqr: a (m x n, geqrf's output) becomes Q's first n columns from k reflectors.
void Orgqr(std::vector<double>& a, int64_t m, int64_t n, const double* tau, int64_t k);
void Orgqr(std::vector<cdouble>& a, int64_t m, int64_t n, const cdouble* tau, int64_t k);
void Orgqr(std::vector<float>& a, int64_t m, int64_t n, const float* tau, int64_t k);
void Orgqr(std::vector<cfloat>& a, int64_t m, int64_t n, const cfloat* tau, int64_t k);
// C := Q C (ormqr from the left, no transpose), Q = H(0) ... H(k-1) from reflectors in geqrf's
// layout at v (m rows, row stride ldv); C is m x ncols with row stride ldc.
void ApplyQLeft(const double* v, int64_t ldv, int64_t m, int64_t k, const double* tau, double* c, int64_t ldc,
                int64_t ncols);
void ApplyQLeft(const cdouble* v, int64_t ldv, int64_t m, int64_t k, const cdouble* tau, cdouble* c, int64_t ldc,
                int64_t ncols);
void ApplyQLeft(const float* v, int64_t ldv, int64_t m, int64_t k, const float* tau, float* c, int64_t ldc,
                int64_t ncols);
void ApplyQLeft(const cfloat* v, int64_t ldv, int64_t m, int64_t k, const cfloat* tau, cfloat* c, int64_t ldc,
                int64_t ncols);
// potrf on one triangle (the other is left as it was); returns info.
int32_t Potrf(std::vector<double>& a, int64_t n, bool lower);
int32_t Potrf(std::vector<cdouble>& a, int64_t n, bool lower);
// (float32 and complex64 in their own precision, pivots accumulated in double.)
int32_t Potrf(std::vector<float>& a, int64_t n, bool lower);
int32_t Potrf(std::vector<cfloat>& a, int64_t n, bool lower);

}  // namespace openpjrt::cpu::lapack
