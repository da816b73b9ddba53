// f32 matrix products: our kernel (src/cpu/blas/sgemm.h) against the Eigen GEMM build the plugin
// would otherwise use (one thread, row-major operands), on the shapes the executor meets (square,
// the MLP's forward and backward products of bench/ratios.py's SGD step, the patch products of a
// 3x3 convolution, a transformer block's projections); then ours at 2 threads on the runtime's
// thread pool, cut into the pieces a dot_general asks for. Each side's median of several runs
// (the best of three rounds) in GFLOP/s, the sides interleaved round by round so that they see
// the same machine. (The best single run flattered the 2-thread column: 784x512x128 read 418
// GFLOP/s, while its calls averaged 266 us, 386 GFLOP/s.)
//   build/bin/gemm_bench [--threads N]   (N: the second column's thread count, default 2)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "bench/timing.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/blas/sgemm.h"
#include "src/runtime/thread_pool.h"

namespace {
struct Buffer {
  explicit Buffer(int64_t n)
      : size(n), p(static_cast<float*>(std::aligned_alloc(64, (static_cast<size_t>(n) * 4 + 63) / 64 * 64))) {}
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* begin() { return p; }
  float* end() { return p + size; }
  float* data() { return p; }
  int64_t size;
  float* p;
};
}  // namespace

int main(int argc, char** argv) {
  using namespace openpjrt;
  if (!cpu::HaveFastSgemm()) {
    std::printf("no AVX-512: the plugin uses Eigen (%s) for every product\n", cpu::Gemm().isa);
    return 0;
  }
  int threads = 2;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::max(1, std::atoi(argv[i + 1]));
  struct Shape {
    int64_t m, n, k;
    bool ta, tb;  // A stored k x m / B stored n x k (a transposed operand, as in a backward pass)
    const char* what;
  };
  const Shape shapes[] = {{64, 64, 64, false, false, "square"},
                          {256, 256, 256, false, false, "square"},
                          {1024, 1024, 1024, false, false, "square"},
                          {2048, 2048, 2048, false, false, "square"},
                          {128, 512, 784, false, false, "MLP layer 1"},
                          {128, 512, 512, false, false, "MLP layer 2"},
                          {128, 10, 512, false, false, "MLP layer 3"},
                          {784, 512, 128, true, false, "MLP grad W1 (x^T g)"},
                          {512, 512, 128, true, false, "MLP grad W2 (h^T g)"},
                          {128, 512, 512, false, true, "MLP grad h1 (g W^T)"},
                          {256, 64, 576, false, false, "conv 3x3x64 patches"},
                          {128, 256, 256, false, false, "transformer 128 x d"},
                          {128, 1024, 256, false, false, "transformer MLP up"},
                          {128, 256, 1024, false, false, "transformer MLP down"}};
  runtime::ThreadPool pool(threads);
  runtime::PoolParallel parallel(&pool, false);
  const cpu::SgemmParallelFor in_order = [](int64_t n, const std::function<void(int64_t)>& fn) {
    for (int64_t i = 0; i < n; ++i) fn(i);
  };
  const cpu::SgemmParallelFor on_pool = [&](int64_t n, const std::function<void(int64_t)>& fn) {
    parallel.For(n, fn);
  };
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::printf("%-22s %16s %10s %10s %7s %10s %8s\n", "shape", "m x n x k", "ours 1T", "Eigen 1T", "ratio", "ours",
              "scaling");
  for (const Shape& s : shapes) {
    // 64-byte aligned, as the plugin's buffers are (a 16-byte offset from malloc made every
    // B row read in place straddle three cache lines: 128x1024x256 ran at 142 GFLOP/s, 194
    // through the plugin).
    Buffer a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    const cpu::SgemmOperand op_a = s.ta ? cpu::SgemmOperand{a.data(), 1, s.m} : cpu::SgemmOperand{a.data(), s.k, 1};
    const cpu::SgemmOperand op_b = s.tb ? cpu::SgemmOperand{b.data(), 1, s.k} : cpu::SgemmOperand{b.data(), s.n, 1};
    const double flop = 2.0 * s.m * s.n * s.k;
    const int reps = std::max(5, static_cast<int>(1e9 / flop));
    const int pieces = cpu::SgemmPieces(s.m, s.n, s.k, threads);
    double ours = 1e30, eigen = 1e30, multi = 1e30;
    for (int round = 0; round < 3; ++round) {
      ours = std::min(ours, bench::MedianSeconds(reps, [&] {
        if (!cpu::FastSgemm(s.m, s.n, s.k, op_a, op_b, c.data(), s.n, 1, in_order)) std::abort();
      }));
      if (!s.ta && !s.tb)
        eigen = std::min(eigen, bench::MedianSeconds(reps, [&] {
          cpu::EigenGemm().f32(a.data(), s.k, b.data(), s.n, c.data(), s.n, s.m, s.k, s.n);
        }));
      multi = std::min(multi, bench::MedianSeconds(reps, [&] {
        if (!cpu::FastSgemm(s.m, s.n, s.k, op_a, op_b, c.data(), s.n, pieces, on_pool)) std::abort();
      }));
    }
    char dims[64];
    std::snprintf(dims, sizeof dims, "%lldx%lldx%lld", static_cast<long long>(s.m), static_cast<long long>(s.n),
                  static_cast<long long>(s.k));
    char eigen_text[32] = "-", ratio_text[16] = "-";
    if (eigen < 1e30) {
      std::snprintf(eigen_text, sizeof eigen_text, "%.1f GF", flop / eigen / 1e9);
      std::snprintf(ratio_text, sizeof ratio_text, "%.2f", eigen / ours);
    }
    std::printf("%-22s %16s %7.1f GF %10s %7s %7.1f GF %7.2fx\n", s.what, dims, flop / ours / 1e9, eigen_text,
                ratio_text, flop / multi / 1e9, ours / multi);
  }
  std::printf("(ours: %d threads in the last two columns; scaling = its speed over ours at one thread)\n", threads);
  return 0;
}
