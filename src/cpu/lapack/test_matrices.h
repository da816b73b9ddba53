// Matrices with known spectra for the LAPACK kernels' tests (syevd_test.cc, gesdd_test.cc).
#pragma once

#include <complex>
#include <cstdint>
#include <random>
#include <vector>

namespace openpjrt::cpu::lapack::test {

// An n x n unitary matrix (row-major, in double): three random Householder reflectors applied to
// the identity, each column then given a random phase when `complex`.
inline std::vector<std::complex<double>> RandomUnitary(int64_t n, bool complex, std::mt19937& rng) {
  using Z = std::complex<double>;
  std::normal_distribution<double> normal;
  std::vector<Z> q(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) q[i * n + i] = 1;
  for (int r = 0; r < 3; ++r) {  // q <- (I - 2 v v^T / v^T v) q
    std::vector<double> v(static_cast<size_t>(n));
    double vv = 0;
    for (double& x : v) {
      x = normal(rng);
      vv += x * x;
    }
    for (int64_t j = 0; j < n; ++j) {
      Z dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += v[i] * q[i * n + j];
      for (int64_t i = 0; i < n; ++i) q[i * n + j] -= 2 * v[i] * dot / vv;
    }
  }
  if (complex)
    for (int64_t j = 0; j < n; ++j) {
      const Z phase = std::polar(1.0, normal(rng));
      for (int64_t i = 0; i < n; ++i) q[i * n + j] *= phase;
    }
  return q;
}

}  // namespace openpjrt::cpu::lapack::test
