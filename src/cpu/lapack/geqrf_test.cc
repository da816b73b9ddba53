// Householder QR (Geqrf, then Orgqr for Q) of real matrices in both precisions, over shapes whose
// panels reflect blocks of every width from 1 to 32 columns (the masked AVX-512 rows of
// ReflectLeftNarrow512) and beyond: Q R is A and Q's columns are orthonormal, to a few units of
// the precision's rounding; R is upper triangular.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/lapack/lapack_factor.h"

namespace openpjrt::cpu::lapack {
namespace {

template <typename W>
void ExpectQrOf(int64_t m, int64_t n) {
  SCOPED_TRACE(testing::Message() << m << " x " << n << (sizeof(W) == 4 ? " f32" : " f64"));
  std::mt19937 rng(static_cast<unsigned>(m * 131 + n));
  std::normal_distribution<double> normal;
  std::vector<W> a(static_cast<size_t>(m * n));
  for (W& x : a) x = static_cast<W>(normal(rng));
  const std::vector<W> a0 = a;
  const int64_t k = std::min(m, n);
  std::vector<W> tau(static_cast<size_t>(k));
  Geqrf(a, m, n, tau.data());
  // Q's k columns from the reflectors in the first k columns.
  std::vector<W> q(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) q[i * k + j] = a[i * n + j];
  Orgqr(q, m, k, tau.data(), k);
  const double eps = std::numeric_limits<W>::epsilon();
  double norm = 0;
  for (W x : a0) norm = std::max(norm, std::fabs(static_cast<double>(x)));
  double residual = 0, orthogonality = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;  // (Q R)[i][j], R = the upper triangle of a's first k rows
      for (int64_t p = 0; p <= std::min(j, k - 1); ++p) sum += static_cast<double>(q[i * k + p]) * a[p * n + j];
      residual = std::max(residual, std::fabs(sum - a0[i * n + j]));
    }
  for (int64_t c = 0; c < k; ++c)
    for (int64_t d = 0; d < k; ++d) {
      double sum = 0;
      for (int64_t i = 0; i < m; ++i) sum += static_cast<double>(q[i * k + c]) * q[i * k + d];
      orthogonality = std::max(orthogonality, std::fabs(sum - (c == d ? 1.0 : 0.0)));
    }
  const double scale = static_cast<double>(std::max(m, n));
  EXPECT_LE(residual, 4 * scale * eps * norm) << "|QR - A|";
  EXPECT_LE(orthogonality, 4 * scale * eps) << "|Q^T Q - I|";
}

TEST(Geqrf, QTimesRIsTheMatrixInEveryPanelWidth) {
  const int64_t shapes[][2] = {{1, 1}, {5, 3}, {3, 5}, {16, 16}, {17, 17}, {20, 1}, {31, 7},  {33, 33},
                               {40, 33}, {64, 64}, {65, 47}, {100, 31}, {33, 100}, {130, 70}, {16, 40}};
  for (const auto& s : shapes) {
    ExpectQrOf<float>(s[0], s[1]);
    ExpectQrOf<double>(s[0], s[1]);
  }
}

}  // namespace
}  // namespace openpjrt::cpu::lapack
