// The blocked Cholesky factor (kernels_linalg.h CholeskyLowerInPlace): panels of 32 whose
// diagonal blocks are factored in a square copy with masked full-width row updates. Every size
// around the panel edges gives L L^H = A with the strict upper triangle untouched, and a
// non-positive pivot anywhere in a block stops there with its 1-based order, the columns before
// it final (the factor of the leading part) and the pivot left as a real number.
#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/lapack/kernels_linalg.h"

namespace openpjrt::cpu {
namespace {

template <typename W>
W Conj(W x) {
  if constexpr (std::is_floating_point_v<W>) return x;
  else return std::conj(x);
}

// A Hermitian positive definite n x n matrix, row-major, both triangles.
template <typename W>
std::vector<W> Spd(int64_t n, std::mt19937& g) {
  std::normal_distribution<double> nd;
  std::vector<W> b(static_cast<size_t>(n * n)), a(static_cast<size_t>(n * n));
  for (W& x : b) {
    if constexpr (std::is_floating_point_v<W>) x = static_cast<W>(nd(g));
    else x = W(static_cast<typename W::value_type>(nd(g)), static_cast<typename W::value_type>(nd(g)));
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      W s = i == j ? W(static_cast<double>(n)) : W(0);
      for (int64_t k = 0; k < n; ++k) s += b[i * n + k] * Conj(b[j * n + k]);
      a[i * n + j] = s;
    }
  return a;
}

template <typename W>
void ExpectFactors(double tol) {
  std::mt19937 g(7);
  for (int64_t n : {1, 2, 17, 31, 32, 33, 50, 63, 64, 65, 97}) {
    const std::vector<W> a = Spd<W>(n, g);
    std::vector<W> l = a;
    // The strict upper triangle is marked: it must come back as it was.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) l[i * n + j] = W(-7);
    ASSERT_EQ(CholeskyLowerInPlace(l.data(), n), 0) << n;
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (j > i) {
          ASSERT_EQ(l[i * n + j], W(-7)) << "upper element " << i << "," << j << " of " << n;
          continue;
        }
        std::complex<double> s = 0;
        for (int64_t k = 0; k <= j; ++k) s += std::complex<double>(l[i * n + k]) * std::conj(std::complex<double>(l[j * n + k]));
        worst = std::max(worst, std::abs(s - std::complex<double>(a[i * n + j])));
        scale = std::max(scale, std::abs(std::complex<double>(a[i * n + j])));
      }
    EXPECT_LE(worst, tol * scale) << "n " << n;
    // A non-positive pivot at p (the matrix's p-th diagonal entry made so small that the Schur
    // complement there is negative), in the first block, inside a later one, at its edge.
    for (int64_t p : {int64_t{0}, n / 2, n - 1}) {
      std::vector<W> bad = a;
      bad[p * n + p] = W(-1.0);
      std::vector<W> lead = bad;
      ASSERT_EQ(CholeskyLowerInPlace(bad.data(), n), p + 1) << "n " << n << " pivot " << p;
      // The pivot as updated by the columns before it: -1 less their squares, left real.
      if constexpr (!std::is_floating_point_v<W>) EXPECT_EQ(bad[p * n + p].imag(), 0) << n << " " << p;
      EXPECT_LT(std::real(bad[p * n + p]), 0) << "n " << n << " pivot " << p;
      // The columns before p are those of the leading p x p part's factor (up to rounding: the
    // panel products' kernels may sum a different number of rows differently).
      if (p > 0) {
        std::vector<W> head(static_cast<size_t>(p * p));
        for (int64_t i = 0; i < p; ++i)
          for (int64_t j = 0; j < p; ++j) head[i * p + j] = lead[i * n + j];
        ASSERT_EQ(CholeskyLowerInPlace(head.data(), p), 0);
        for (int64_t i = 0; i < p; ++i)
          for (int64_t j = 0; j <= i; ++j)
            ASSERT_LE(std::abs(std::complex<double>(bad[i * n + j]) - std::complex<double>(head[i * p + j])),
                      tol * std::sqrt(scale))
                << "n " << n << " pivot " << p << " at " << i << "," << j;
      }
    }
  }
}

TEST(Potrf, BlockedFactorsAroundThePanelEdges) {
  ExpectFactors<float>(2e-6);
  ExpectFactors<double>(1e-14);
  ExpectFactors<std::complex<float>>(2e-6);
  ExpectFactors<std::complex<double>>(1e-14);
}

}  // namespace
}  // namespace openpjrt::cpu
