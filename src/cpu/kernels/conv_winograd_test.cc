// WinogradConv3x3 (conv_winograd.h) against a double-precision direct convolution: odd and even
// output sizes, padding on any side (negative included), several images, feature counts that
// make partial GEMM tiles (48, 144 > 128 output features). Results must be the same bits with
// one or several threads, every output position must be reported done exactly once, and a
// non-finite input or kernel must be refused with nothing written or reported.
#include "src/cpu/kernels/conv_winograd.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace openpjrt::cpu {
namespace {

WinogradShape Make(int64_t batch, int64_t h, int64_t w, int64_t cin, int64_t cout, int64_t pt,
                   int64_t pb, int64_t pl, int64_t pr) {
  return {batch, h, w, cin, h + pt + pb - 2, w + pl + pr - 2, cout, pt, pl};
}

// y and the sum of |x| |w| over each output's terms (the scale of its rounding error).
void Reference(const WinogradShape& s, const std::vector<float>& x, const std::vector<float>& w,
               std::vector<double>& y, std::vector<double>& scale) {
  y.assign(static_cast<size_t>(s.batch * s.out_h * s.out_w * s.out_feat), 0.0);
  scale = y;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t oy = 0; oy < s.out_h; ++oy)
      for (int64_t ox = 0; ox < s.out_w; ++ox) {
        double* out = &y[static_cast<size_t>(((b * s.out_h + oy) * s.out_w + ox) * s.out_feat)];
        double* sc = &scale[static_cast<size_t>(((b * s.out_h + oy) * s.out_w + ox) * s.out_feat)];
        for (int64_t ky = 0; ky < 3; ++ky)
          for (int64_t kx = 0; kx < 3; ++kx) {
            const int64_t iy = oy - s.pad_top + ky, ix = ox - s.pad_left + kx;
            if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) continue;
            const float* in =
                &x[static_cast<size_t>(((b * s.in_h + iy) * s.in_w + ix) * s.in_feat)];
            for (int64_t ci = 0; ci < s.in_feat; ++ci) {
              const float* wk =
                  &w[static_cast<size_t>(((ky * 3 + kx) * s.in_feat + ci) * s.out_feat)];
              for (int64_t co = 0; co < s.out_feat; ++co) {
                out[co] += static_cast<double>(in[ci]) * wk[co];
                sc[co] += std::fabs(static_cast<double>(in[ci]) * wk[co]);
              }
            }
          }
      }
}

// parallel_for over `threads` std::threads, each taking indices from a shared counter.
SgemmParallelFor Threads(int threads) {
  return [threads](int64_t n, const std::function<void(int64_t)>& fn) {
    std::atomic<int64_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (int64_t i; (i = next.fetch_add(1)) < n;) fn(i);
      });
    for (auto& th : pool) th.join();
  };
}

struct Result {
  bool ok;
  std::vector<float> y;
  std::vector<int> told;  // per output position: how often `done` reported it
};

Result Convolve(const WinogradShape& s, const std::vector<float>& x, const std::vector<float>& w,
                int threads) {
  Result r;
  const int64_t positions = s.batch * s.out_h * s.out_w;
  r.y.assign(static_cast<size_t>(positions * s.out_feat), -7.0f);
  std::vector<std::atomic<int>> told(static_cast<size_t>(positions));
  const WinogradDone done = [&](int64_t pos0, int64_t count) {
    for (int64_t p = pos0; p < pos0 + count; ++p) told[static_cast<size_t>(p)].fetch_add(1);
  };
  r.ok = WinogradConv3x3(s, x.data(), w.data(), r.y.data(), threads, Threads(threads), &done);
  for (auto& t : told) r.told.push_back(t.load());
  return r;
}

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = u(rng);
  return v;
}

TEST(Winograd, MatchesADirectConvolution) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const WinogradShape shapes[] = {
      Make(1, 56, 56, 64, 64, 1, 1, 1, 1),    // the benchmark's shape
      Make(1, 29, 31, 32, 48, 1, 1, 2, 0),    // odd output, uneven padding, 48 = 1.5 slivers
      Make(2, 30, 30, 48, 144, -1, 2, 0, 0),  // negative padding, two images, > 128 features
      Make(1, 20, 400, 32, 32, 0, 0, 1, 1),   // tile rows of 200 tiles: blocks split rows
      Make(3, 16, 17, 32, 32, 2, 2, 1, 1),    // padding wider than the window's reach
  };
  for (const WinogradShape& s : shapes) {
    SCOPED_TRACE(testing::Message()
                 << s.batch << "x" << s.in_h << "x" << s.in_w << "x" << s.in_feat << " -> "
                 << s.out_feat << " pad " << s.pad_top << "," << s.pad_left);
    ASSERT_TRUE(WinogradApplies(s));
    const auto x = Random(static_cast<size_t>(s.batch * s.in_h * s.in_w * s.in_feat), 1);
    const auto w = Random(static_cast<size_t>(9 * s.in_feat * s.out_feat), 2);
    std::vector<double> ref, scale;
    Reference(s, x, w, ref, scale);
    const Result one = Convolve(s, x, w, 1);
    ASSERT_TRUE(one.ok);
    int64_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      // The direct f32 sum's error is of the order of eps * sqrt(terms) * scale; Winograd's
      // transforms keep it there (measured: at most 1.6e-7 of the scale, direct 2.1e-7).
      const double err = std::fabs(one.y[i] - ref[i]) / std::max(scale[i], 1e-30);
      worst = std::max(worst, err);
      bad += err > 2e-6;
    }
    EXPECT_EQ(bad, 0) << "worst error " << worst << " of the scale";
    for (size_t p = 0; p < one.told.size(); ++p) ASSERT_EQ(one.told[p], 1) << "position " << p;
    const Result three = Convolve(s, x, w, 3);
    ASSERT_TRUE(three.ok);
    EXPECT_EQ(0, std::memcmp(one.y.data(), three.y.data(), one.y.size() * sizeof(float)))
        << "thread count changed bits";
    for (size_t p = 0; p < three.told.size(); ++p) ASSERT_EQ(three.told[p], 1) << "position " << p;
  }
}

TEST(Winograd, RefusesNonFiniteValuesBeforeWritingAnything) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const WinogradShape s = Make(1, 28, 28, 32, 32, 1, 1, 1, 1);
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  for (int which = 0; which < 4; ++which) {
    auto x = Random(static_cast<size_t>(s.in_h * s.in_w * s.in_feat), 3);
    auto w = Random(static_cast<size_t>(9 * s.in_feat * s.out_feat), 4);
    if (which == 0) x[12345] = inf;
    if (which == 1) x.back() = nan;  // in the last finiteness chunk
    if (which == 2) w[7 * s.in_feat * s.out_feat + 5] = -inf;
    if (which == 3) w[0] = nan;
    for (int threads : {1, 2}) {
      const Result r = Convolve(s, x, w, threads);
      EXPECT_FALSE(r.ok) << "case " << which;
      for (float v : r.y) ASSERT_EQ(v, -7.0f) << "case " << which << ": output written";
      for (int t : r.told) ASSERT_EQ(t, 0) << "case " << which << ": position reported";
    }
  }
}

// Buffers that cannot be allocated: the call is refused untouched whether the shared kernel
// buffer fails (the first thing allocated) or only every thread's own block buffers do (each
// thread then takes no block), and it succeeds again once memory is back.
TEST(Winograd, RefusesUntouchedWhenItsBuffersCannotBeAllocated) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  // 400 tiles in blocks of 60: a block's products (16 x 60 x 64 floats) outgrow the packed
  // kernel (16 x 32 x 64).
  const WinogradShape s = Make(1, 40, 40, 32, 64, 1, 1, 1, 1);
  const auto x = Random(static_cast<size_t>(s.in_h * s.in_w * s.in_feat), 5);
  const auto w = Random(static_cast<size_t>(9 * s.in_feat * s.out_feat), 6);
  const int64_t kernel_floats = 16 * PackedSgemmBFloats(s.in_feat, s.out_feat);
  // 0: nothing can be allocated; kernel_floats: the kernel and its planes can, the blocks'
  // products cannot.
  for (int64_t limit : {int64_t{0}, kernel_floats}) {
    for (int threads : {1, 2}) {
      LimitWinogradBuffersForTest(limit);
      const Result r = Convolve(s, x, w, threads);
      LimitWinogradBuffersForTest(std::numeric_limits<int64_t>::max());
      EXPECT_FALSE(r.ok) << "limit " << limit << ", " << threads << " threads";
      for (float v : r.y) ASSERT_EQ(v, -7.0f) << "limit " << limit << ": output written";
      for (int t : r.told) ASSERT_EQ(t, 0) << "limit " << limit << ": position reported";
    }
  }
  const Result r = Convolve(s, x, w, 2);
  EXPECT_TRUE(r.ok);
  for (int t : r.told) ASSERT_EQ(t, 1);
}

TEST(Winograd, TakesOnlyShapesWhereItPays) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  EXPECT_TRUE(WinogradApplies(Make(1, 28, 28, 32, 32, 1, 1, 1, 1)));     // 196 tiles
  EXPECT_FALSE(WinogradApplies(Make(1, 14, 14, 128, 128, 1, 1, 1, 1)));  // 49 tiles
  EXPECT_TRUE(WinogradApplies(Make(4, 14, 14, 128, 128, 1, 1, 1, 1)));   // 196 tiles
  EXPECT_FALSE(WinogradApplies(Make(1, 56, 56, 16, 64, 1, 1, 1, 1)));    // 16 input features
  EXPECT_FALSE(WinogradApplies(Make(1, 56, 56, 64, 40, 1, 1, 1, 1)));    // not a multiple of 16
}

}  // namespace
}  // namespace openpjrt::cpu
