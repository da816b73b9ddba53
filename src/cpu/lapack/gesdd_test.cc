// Gesdd of single-precision matrices (their divide and conquer merges multiply vectors in single
// precision, as sbdsdc does) on spectra that deflate in every way: the singular values stay
// within a few units of single's rounding of |A| of the true ones and U S V^H is A with
// orthonormal U and V.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/lapack/lapack_factor.h"
#include "src/cpu/lapack/test_matrices.h"

namespace openpjrt::cpu::lapack {
namespace {

using Z = std::complex<double>;

template <typename W>
void ExpectAccurateOnHardSpectra(int64_t m, int64_t n) {
  constexpr bool kComplex = std::is_same_v<W, std::complex<float>>;
  std::mt19937 rng(static_cast<unsigned>(m * 7 + n));
  std::normal_distribution<double> normal;
  const int64_t k = std::min(m, n);
  std::vector<std::vector<double>> spectra(4, std::vector<double>(static_cast<size_t>(k)));
  for (int64_t i = 0; i < k; ++i) {
    spectra[0][i] = i % 8 == 0 ? std::fabs(normal(rng)) : spectra[0][i - 1];                       // clusters
    spectra[1][i] = std::pow(10.0, -6.0 * static_cast<double>(i) / static_cast<double>(k - 1));  // graded
    spectra[2][i] = i == 0 ? static_cast<double>(k) : 0.0;                                       // rank one
    spectra[3][i] = i % 2 ? 1.0 : 0.25;                                                          // two values
  }
  constexpr double kEpsF = std::numeric_limits<float>::epsilon();
  for (size_t sp = 0; sp < spectra.size(); ++sp) {
    std::vector<double> want = spectra[sp];
    const std::vector<Z> u0 = test::RandomUnitary(m, kComplex, rng), v0 = test::RandomUnitary(n, kComplex, rng);
    std::vector<W> a(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        Z x = 0;
        for (int64_t l = 0; l < k; ++l) x += u0[i * m + l] * want[l] * std::conj(v0[j * n + l]);
        if constexpr (kComplex) a[i * n + j] = W(x);
        else a[i * n + j] = static_cast<W>(x.real());
      }
    std::sort(want.rbegin(), want.rend());
    const double norm = want[0];
    std::vector<W> work = a, u(static_cast<size_t>(m * k)), vt(static_cast<size_t>(k * n));
    std::vector<double> s(static_cast<size_t>(k));
    ASSERT_EQ(Gesdd(work, m, n, /*vectors=*/true, /*full=*/false, s.data(), u.data(), vt.data()), 0) << "spectrum " << sp;
    double serr = 0, res = 0, ou = 0, ov = 0;
    for (int64_t j = 0; j < k; ++j) serr = std::max(serr, std::fabs(s[j] - want[j]));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        Z x = 0;
        for (int64_t l = 0; l < k; ++l) x += Z(u[i * k + l]) * s[l] * Z(vt[l * n + j]);
        res = std::max(res, std::abs(x - Z(a[i * n + j])));
      }
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) {
        Z uu = 0, vv = 0;
        for (int64_t r = 0; r < m; ++r) uu += std::conj(Z(u[r * k + i])) * Z(u[r * k + j]);
        for (int64_t c = 0; c < n; ++c) vv += Z(vt[i * n + c]) * std::conj(Z(vt[j * n + c]));
        ou = std::max(ou, std::abs(uu - (i == j ? 1.0 : 0.0)));
        ov = std::max(ov, std::abs(vv - (i == j ? 1.0 : 0.0)));
      }
    EXPECT_LT(serr, 16 * kEpsF * norm) << "singular values, spectrum " << sp << ", " << m << "x" << n;
    EXPECT_LT(res, 32 * kEpsF * norm) << "residual, spectrum " << sp << ", " << m << "x" << n;
    EXPECT_LT(ou, 32 * kEpsF) << "U orthonormal, spectrum " << sp << ", " << m << "x" << n;
    EXPECT_LT(ov, 32 * kEpsF) << "V orthonormal, spectrum " << sp << ", " << m << "x" << n;
  }
}

TEST(Gesdd, SinglePrecisionMergesStayAccurateOnHardSpectra) {
  ExpectAccurateOnHardSpectra<float>(100, 100);
  ExpectAccurateOnHardSpectra<float>(160, 120);
  ExpectAccurateOnHardSpectra<std::complex<float>>(90, 110);
}

}  // namespace
}  // namespace openpjrt::cpu::lapack
