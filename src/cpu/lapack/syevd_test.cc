// Syevd spread over threads (its `parallel` runner: the divide and conquer's halves, the last
// merge's roots, weights and products, the back-transformation by columns) gives the same bits
// as Syevd on one thread, whatever order and threads the pieces run on; and the result is an
// eigendecomposition (small residual, orthonormal vectors, ascending values).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/lapack/lapack_factor.h"
#include "src/cpu/lapack/test_matrices.h"

namespace openpjrt::cpu::lapack {
namespace {

// Pieces from the last to the first, the odd ones on a second thread.
void ReversedOnTwoThreads(int64_t n, const std::function<void(int64_t)>& fn) {
  std::thread other([&] {
    for (int64_t i = n - 1; i >= 0; --i)
      if (i % 2) fn(i);
  });
  for (int64_t i = n - 1; i >= 0; --i)
    if (i % 2 == 0) fn(i);
  other.join();
}

template <typename W>
constexpr bool kComplex = std::is_same_v<W, std::complex<float>> || std::is_same_v<W, std::complex<double>>;

// A random Hermitian matrix (both triangles; Syevd reads the lower).
template <typename W>
std::vector<W> Symmetric(int64_t n, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  std::vector<W> a(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      if constexpr (kComplex<W>) {
        a[i * n + j] = i == j ? W(normal(rng)) : W(normal(rng), normal(rng));
        a[j * n + i] = std::conj(a[i * n + j]);
      } else {
        a[i * n + j] = a[j * n + i] = static_cast<W>(normal(rng));
      }
    }
  return a;
}

template <typename W>
void ExpectSameBitsAndAnEigendecomposition(int64_t n, double tol) {
  std::mt19937 rng(static_cast<unsigned>(n));
  const std::vector<W> a = Symmetric<W>(n, rng);
  std::vector<W> serial = a, threaded = a;
  std::vector<double> ws(static_cast<size_t>(n)), wt(static_cast<size_t>(n));
  const LapackFor runner = ReversedOnTwoThreads;
  ASSERT_EQ(Syevd(serial, n, /*lower=*/true, /*vectors=*/true, ws.data()), 0);
  ASSERT_EQ(Syevd(threaded, n, /*lower=*/true, /*vectors=*/true, wt.data(), &runner), 0);
  ASSERT_EQ(std::memcmp(ws.data(), wt.data(), ws.size() * sizeof(double)), 0) << "eigenvalues, n " << n;
  ASSERT_EQ(std::memcmp(serial.data(), threaded.data(), serial.size() * sizeof(W)), 0) << "eigenvectors, n " << n;
  ASSERT_TRUE(std::is_sorted(ws.begin(), ws.end()));
  // |A V - V diag(w)| and |V^H V - I|, elementwise, in units of n * tol.
  double res = 0, orth = 0, norm = 0;
  for (const W& x : a) norm = std::max(norm, std::abs(std::complex<double>(x)));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      std::complex<double> av = 0, vv = 0;
      for (int64_t k = 0; k < n; ++k) {
        av += std::complex<double>(a[i * n + k]) * std::complex<double>(serial[k * n + j]);
        vv += std::conj(std::complex<double>(serial[k * n + i])) * std::complex<double>(serial[k * n + j]);
      }
      res = std::max(res, std::abs(av - std::complex<double>(serial[i * n + j]) * ws[j]) / norm);
      orth = std::max(orth, std::abs(vv - (i == j ? 1.0 : 0.0)));
    }
  EXPECT_LT(res, n * tol) << "residual, n " << n;
  EXPECT_LT(orth, n * tol) << "orthogonality, n " << n;
}

TEST(Syevd, ThreadsGiveTheSameBits) {
  // Below, at and above the size from which the halves go to the threads (128); odd sizes.
  for (int64_t n : {96, 128, 129, 200, 257}) {
    ExpectSameBitsAndAnEigendecomposition<float>(n, 1e-6);
    ExpectSameBitsAndAnEigendecomposition<double>(n, 1e-14);
  }
  for (int64_t n : {130, 161}) ExpectSameBitsAndAnEigendecomposition<std::complex<float>>(n, 1e-6);
}

// The reduction's pass takes rows two at a time where both have a whole group of 16 lanes, and
// their last groups end in every way (the first row's last group whole or partial, the second
// row's partial or empty): every size from 18 to 52 is still an eigendecomposition.
TEST(Syevd, RowPairsOfTheReductionAtEveryLength) {
  for (int64_t n = 18; n <= 52; ++n) {
    ExpectSameBitsAndAnEigendecomposition<float>(n, 1e-6);
    ExpectSameBitsAndAnEigendecomposition<double>(n, 1e-14);
  }
}

// Only the named triangle is read: NaN in the other changes nothing, and either triangle of the
// same real symmetric matrix gives the same bits (both are reduced from the upper one).
template <typename W>
void ExpectOneTriangleRead(int64_t n) {
  std::mt19937 rng(static_cast<unsigned>(n));
  const std::vector<W> a = Symmetric<W>(n, rng);
  std::vector<W> from_lower = a, from_upper = a;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      from_lower[i * n + j] = std::numeric_limits<W>::quiet_NaN();
      from_upper[j * n + i] = std::numeric_limits<W>::quiet_NaN();
    }
  for (bool vectors : {false, true}) {
    std::vector<W> l = from_lower, u = from_upper;
    std::vector<double> wl(static_cast<size_t>(n)), wu(static_cast<size_t>(n));
    ASSERT_EQ(Syevd(l, n, /*lower=*/true, vectors, wl.data()), 0) << "n " << n;
    ASSERT_EQ(Syevd(u, n, /*lower=*/false, vectors, wu.data()), 0) << "n " << n;
    ASSERT_EQ(std::memcmp(wl.data(), wu.data(), wl.size() * sizeof(double)), 0) << "eigenvalues, n " << n;
    for (double x : wl) ASSERT_TRUE(std::isfinite(x)) << "n " << n;
    if (vectors) {
      ASSERT_EQ(std::memcmp(l.data(), u.data(), l.size() * sizeof(W)), 0) << "eigenvectors, n " << n;
      for (W x : l) ASSERT_TRUE(std::isfinite(x)) << "n " << n;
    }
  }
}

TEST(Syevd, ReadsOnlyTheNamedTriangle) {
  // Rows shorter and longer than the 16-lane groups of the one-triangle pass, partial groups;
  // 130 and 160: reduced in an aligned copy (n >= 128), rows of 64-byte multiples or not.
  for (int64_t n : {1, 2, 3, 17, 18, 33, 40, 100, 130, 160}) {
    ExpectOneTriangleRead<float>(n);
    ExpectOneTriangleRead<double>(n);
  }
}

// A Hermitian matrix U diag(w) U^H rounded to W, U a product of random Householder reflectors
// (in double) with each column given a phase for complex W.
template <typename W>
std::vector<W> WithSpectrum(const std::vector<double>& w, std::mt19937& rng) {
  const int64_t n = static_cast<int64_t>(w.size());
  using Z = std::complex<double>;
  const std::vector<Z> u = test::RandomUnitary(n, kComplex<W>, rng);
  std::vector<W> a(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      Z x = 0;
      for (int64_t k = 0; k < n; ++k) x += u[i * n + k] * w[k] * std::conj(u[j * n + k]);
      if constexpr (kComplex<W>) a[i * n + j] = W(x);
      else a[i * n + j] = static_cast<W>(x.real());
    }
  return a;
}

// Single-precision matrices merge their divide and conquer's halves with single-precision
// products (sstedc's way): on spectra that deflate in every way (clusters of equal values, a
// graded one from 1e-6 to 1, rank one, two values) the eigenvalues stay within a few units of
// single's rounding of |A| of the true ones, and the vectors are a decomposition with orthonormal
// columns. Sizes of two to four levels of merges.
template <typename W>
void ExpectAccurateOnHardSpectra(int64_t n) {
  std::mt19937 rng(static_cast<unsigned>(n + 7));
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> spectra(4, std::vector<double>(static_cast<size_t>(n)));
  for (int64_t i = 0; i < n; ++i) {
    if (i % 8 == 0) spectra[0][i] = normal(rng);
    else spectra[0][i] = spectra[0][i - 1];
    spectra[1][i] = std::pow(10.0, -6.0 + 6.0 * static_cast<double>(i) / static_cast<double>(n - 1));
    spectra[2][i] = i == n - 1 ? static_cast<double>(n) : 0.0;
    spectra[3][i] = i % 2 ? 1.0 : -0.5;
  }
  constexpr double kEpsF = std::numeric_limits<float>::epsilon();
  for (size_t sp = 0; sp < spectra.size(); ++sp) {
    std::vector<double> want = spectra[sp];
    const std::vector<W> a = WithSpectrum<W>(want, rng);
    std::sort(want.begin(), want.end());
    double norm = 0;
    for (double x : want) norm = std::max(norm, std::fabs(x));
    std::vector<W> v = a;
    std::vector<double> got(static_cast<size_t>(n));
    ASSERT_EQ(Syevd(v, n, /*lower=*/true, /*vectors=*/true, got.data()), 0) << "spectrum " << sp;
    double werr = 0, res = 0, orth = 0;
    for (int64_t j = 0; j < n; ++j) werr = std::max(werr, std::fabs(got[j] - want[j]));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> av = 0, vv = 0;
        for (int64_t k = 0; k < n; ++k) {
          av += std::complex<double>(a[i * n + k]) * std::complex<double>(v[k * n + j]);
          vv += std::conj(std::complex<double>(v[k * n + i])) * std::complex<double>(v[k * n + j]);
        }
        res = std::max(res, std::abs(av - std::complex<double>(v[i * n + j]) * got[j]));
        orth = std::max(orth, std::abs(vv - (i == j ? 1.0 : 0.0)));
      }
    EXPECT_LT(werr, 16 * kEpsF * norm) << "eigenvalues, spectrum " << sp << ", n " << n;
    EXPECT_LT(res, 32 * kEpsF * norm) << "residual, spectrum " << sp << ", n " << n;
    EXPECT_LT(orth, 32 * kEpsF) << "orthogonality, spectrum " << sp << ", n " << n;
  }
}

TEST(Syevd, SinglePrecisionMergesStayAccurateOnHardSpectra) {
  for (int64_t n : {100, 257}) ExpectAccurateOnHardSpectra<float>(n);
  ExpectAccurateOnHardSpectra<std::complex<float>>(130);
}

}  // namespace
}  // namespace openpjrt::cpu::lapack
