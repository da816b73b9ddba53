// f32 matrix products, one thread: our kernel (src/cpu/sgemm.h) against the Eigen GEMM build the
// plugin would otherwise use, on the shapes the executor meets (square, MLP layers, the patch
// products of a 3x3 convolution). Prints the best of several runs in GFLOP/s and their ratio.
//   build/bin/gemm_bench
#include <cstdio>
#include <random>
#include <vector>

#include "bench/timing.h"
#include "src/cpu/gemm.h"
#include "src/cpu/sgemm.h"

int main() {
  using namespace openpjrt;
  if (!cpu::HaveFastSgemm()) {
    std::printf("no AVX-512: the plugin uses Eigen (%s) for every product\n", cpu::Gemm().isa);
    return 0;
  }
  struct Shape {
    int64_t m, n, k;
    const char* what;
  };
  const Shape shapes[] = {{64, 64, 64, "square"},         {256, 256, 256, "square"},
                          {1024, 1024, 1024, "square"},   {128, 512, 784, "MLP layer 1"},
                          {128, 10, 512, "MLP layer 3"},  {256, 64, 576, "conv 3x3x64 patches"},
                          {784, 512, 128, "MLP weight gradient"}, {128, 256, 256, "transformer 128 x d"},
                          {128, 1024, 256, "transformer MLP up"},  {128, 256, 1024, "transformer MLP down"}};
  const cpu::SgemmParallelFor in_order = [](int64_t n, const std::function<void(int64_t)>& fn) {
    for (int64_t i = 0; i < n; ++i) fn(i);
  };
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::printf("%-22s %18s %10s %10s %7s\n", "shape", "m x n x k", "ours", "Eigen", "ratio");
  for (const Shape& s : shapes) {
    std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    const double flop = 2.0 * s.m * s.n * s.k;
    const int reps = std::max(5, static_cast<int>(2e9 / flop));
    double ours = 1e30, eigen = 1e30;
    for (int round = 0; round < 3; ++round) {  // interleaved: both see the same machine
      ours = std::min(ours, bench::BestSeconds(reps, [&] {
        cpu::FastSgemm(s.m, s.n, s.k, {a.data(), s.k, 1}, {b.data(), s.n, 1}, c.data(), s.n, 1, in_order);
      }));
      eigen = std::min(eigen, bench::BestSeconds(reps, [&] {
        cpu::EigenGemm().f32(a.data(), s.k, b.data(), s.n, c.data(), s.n, s.m, s.k, s.n);
      }));
    }
    char dims[64];
    std::snprintf(dims, sizeof dims, "%lldx%lldx%lld", static_cast<long long>(s.m),
                  static_cast<long long>(s.n), static_cast<long long>(s.k));
    std::printf("%-22s %18s %8.1f GF %7.1f GF %7.2f\n", s.what, dims, flop / ours / 1e9, flop / eigen / 1e9,
                eigen / ours);
  }
  return 0;
}
