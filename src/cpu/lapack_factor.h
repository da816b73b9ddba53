// The dense factorisations behind JAX's LAPACK custom calls that are written out here rather
// than taken from Eigen (kernels_lapack.cc runs them per matrix of a batch): LU with partial
// pivoting, Householder QR and its Q, Hessenberg and tridiagonal reductions, Cholesky. They work
// in place on row-major matrices in double or complex<double>, follow LAPACK's conventions and
// order of operations, and take their level-3 updates through gemm.h by panels of 32 columns
// (matrices within one panel get exactly LAPACK's unblocked algorithms). Internal to src/cpu.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace openpjrt::cpu::lapack {

using cdouble = std::complex<double>;

template <typename T> struct IsComplex : std::false_type { using Real = T; };
template <typename T> struct IsComplex<std::complex<T>> : std::true_type { using Real = T; };

inline double ConjOf(double x) { return x; }
inline cdouble ConjOf(cdouble x) { return std::conj(x); }
inline double RealOf(double x) { return x; }
inline double RealOf(cdouble x) { return x.real(); }
inline double ImagOf(double) { return 0; }
inline double ImagOf(cdouble x) { return x.imag(); }
// LAPACK's pivot measure: |x| for reals, |re| + |im| for complex values.
inline double Abs1(double x) { return std::fabs(x); }
inline double Abs1(cdouble x) { return std::fabs(x.real()) + std::fabs(x.imag()); }

// getrf: a (m x n) becomes L\U; ipiv (min(m, n)) 1-based; returns info (0, or the 1-based index
// of the first exactly-zero pivot).
int32_t Getrf(std::vector<double>& a, int64_t m, int64_t n, int32_t* ipiv);
int32_t Getrf(std::vector<cdouble>& a, int64_t m, int64_t n, int32_t* ipiv);
// geqrf: R on and above the diagonal, Householder vectors below it, tau (min(m, n)).
void Geqrf(std::vector<double>& a, int64_t m, int64_t n, double* tau);
void Geqrf(std::vector<cdouble>& a, int64_t m, int64_t n, cdouble* tau);
// gehrd over rows/columns ilo..ihi (0-based, inclusive); tau (n - 1).
void Gehrd(std::vector<double>& a, int64_t n, int64_t ilo, int64_t ihi, double* tau);
void Gehrd(std::vector<cdouble>& a, int64_t n, int64_t ilo, int64_t ihi, cdouble* tau);
// sytrd/hetrd from one triangle: d (n), e (n - 1), tau (n - 1).
void Sytrd(std::vector<double>& a, int64_t n, bool lower, double* d, double* e, double* tau);
void Sytrd(std::vector<cdouble>& a, int64_t n, bool lower, double* d, double* e, cdouble* tau);
// orgqr/ungqr: a (m x n, geqrf's output) becomes Q's first n columns from k reflectors.
void Orgqr(std::vector<double>& a, int64_t m, int64_t n, const double* tau, int64_t k);
void Orgqr(std::vector<cdouble>& a, int64_t m, int64_t n, const cdouble* tau, int64_t k);
// potrf on one triangle (the other is left as it was); returns info.
int32_t Potrf(std::vector<double>& a, int64_t n, bool lower);
int32_t Potrf(std::vector<cdouble>& a, int64_t n, bool lower);

}  // namespace openpjrt::cpu::lapack
