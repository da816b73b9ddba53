// Intra-op threads: kernels cut large work into pieces for the client's pool. With
// `deterministic` the cuts depend only on the shapes and results are bit-identical with one thread
// and with several; without it matrix products are cut per thread (last-bit differences allowed),
// while reductions and elementwise ops stay identical. The pieces must not race (capi_tests also
// runs under ThreadSanitizer in CI).
#include <cmath>
#include <cstring>
#include <utility>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "tests/capi/capi_fixture.h"

namespace capi {
namespace {

constexpr char kProgram[] = R"(
func.func @main(%a: tensor<512x512xf32>, %x: tensor<300000xf32>) -> (tensor<512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<300000xf32>, tensor<300000xf32>, tensor<512xf32>, tensor<512xf32>, tensor<1x64x64x64xf32>) {
  %m = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  %cols = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  %h = stablehlo.constant dense<0.5> : tensor<300000xf32>
  %b = stablehlo.constant dense<0.1> : tensor<300000xf32>
  %0 = stablehlo.multiply %x, %h : tensor<300000xf32>
  %1 = stablehlo.add %0, %b : tensor<300000xf32>
  %2 = stablehlo.tanh %1 : tensor<300000xf32>
  %3 = stablehlo.multiply %2, %x : tensor<300000xf32>
  %lone = stablehlo.exponential %x : tensor<300000xf32>
  %sq = stablehlo.multiply %a, %a : tensor<512x512xf32>
  %sqrows = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  %ab = stablehlo.abs %a : tensor<512x512xf32>
  %two = stablehlo.constant dense<2.0> : tensor<512x512xf32>
  %ab2 = stablehlo.multiply %ab, %two : tensor<512x512xf32>
  %abcols = stablehlo.reduce(%ab2 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  %img = stablehlo.reshape %a : (tensor<512x512xf32>) -> tensor<1x64x64x64xf32>
  %ks = stablehlo.slice %a [0:72, 0:512] : (tensor<512x512xf32>) -> tensor<72x512xf32>
  %k = stablehlo.reshape %ks : (tensor<72x512xf32>) -> tensor<3x3x64x64xf32>
  %conv = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x64x64x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x64x64x64xf32>
  return %m, %rows, %cols, %3, %lone, %sqrows, %abcols, %conv : tensor<512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<300000xf32>, tensor<300000xf32>, tensor<512xf32>, tensor<512xf32>, tensor<1x64x64x64xf32>
}
)";

std::vector<float> Pseudorandom(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
  }
  return v;
}

// Compiles and runs `program` once on a fresh client with `options`, on f32 inputs of the given
// shapes; returns every output, downloaded, and destroys what it made (the client included).
std::vector<std::vector<float>> RunOnFreshClient(PluginTest& t, std::vector<PJRT_NamedValue> options,
                                                 const char* program,
                                                 const std::vector<std::pair<const std::vector<float>*, std::vector<int64_t>>>& inputs,
                                                 size_t num_outputs) {
  std::vector<std::vector<float>> got;
  PJRT_Client* c = t.CreateClient(std::move(options));
  EXPECT_NE(c, nullptr);
  if (!c) return got;
  PJRT_LoadedExecutable* exe = t.Compile(program, c);
  EXPECT_NE(exe, nullptr);
  if (exe) {
    std::vector<PJRT_Buffer*> bufs;
    for (const auto& [values, dims] : inputs) bufs.push_back(t.Upload(*values, dims, 0, c));
    auto outs = t.Execute(exe, {bufs}, num_outputs);
    EXPECT_EQ(outs.size(), 1u);
    for (PJRT_Buffer* b : outs.empty() ? std::vector<PJRT_Buffer*>{} : outs[0]) {
      got.push_back(t.Download(b));
      t.Destroy(b);
    }
    for (PJRT_Buffer* b : bufs) t.Destroy(b);
    t.Destroy(exe);
  }
  auto d = Args<PJRT_Client_Destroy_Args>();
  d.client = c;
  EXPECT_EQ(t.api->PJRT_Client_Destroy(&d), nullptr);
  return got;
}

TEST_F(PluginTest, IntraOpThreadsDoNotChangeResults) {
  const std::vector<float> a = Pseudorandom(512 * 512, 1), x = Pseudorandom(300000, 2);
  std::vector<std::vector<float>> first;
  struct Config {
    int threads;
    bool deterministic;
  };
  for (Config config : {Config{1, true}, Config{4, true}, Config{4, false}}) {
    const int threads = config.threads;
    std::vector<std::vector<float>> got =
        RunOnFreshClient(*this, {IntOption("intra_op_threads", threads), BoolOption("deterministic", config.deterministic)},
                         kProgram, {{&a, {512, 512}}, {&x, {300000}}}, 8);
    ASSERT_EQ(got.size(), 8u);
    if (first.empty()) {
      first = got;
      // The single-thread answers are right.
      double row0 = 0, col0 = -1e30, m00 = 0;
      for (int j = 0; j < 512; ++j) row0 += a[j], col0 = std::max<double>(col0, a[j * 512]), m00 += double(a[j]) * a[j * 512];
      EXPECT_NEAR(got[1][0], row0, 1e-3);
      EXPECT_EQ(got[2][0], static_cast<float>(col0));
      EXPECT_NEAR(got[0][0], m00, 1e-3);
      EXPECT_NEAR(got[3][299999], std::tanh(0.5f * x[299999] + 0.1f) * x[299999], 1e-6);
      EXPECT_NEAR(got[4][12345], std::exp(x[12345]), 1e-6 * std::exp(x[12345]));  // a lone large op
      // Reductions that absorbed their producers (sum of squares by row, sum of 2|a| by column).
      double sq0 = 0, ab0 = 0;
      for (int j = 0; j < 512; ++j) sq0 += double(a[j]) * a[j], ab0 += 2.0 * std::fabs(a[j * 512]);
      EXPECT_NEAR(got[5][0], sq0, 1e-3);
      EXPECT_NEAR(got[6][0], ab0, 1e-3);
      // The convolution (implicit GEMM) at output position (y, x) = (5, 0), feature 3: the window
      // leaves x = -1 in the padding.
      double conv = 0;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 1; dx < 3; ++dx)
          for (int ci = 0; ci < 64; ++ci)
            conv += double(a[((5 + dy - 1) * 64 + (dx - 1)) * 64 + ci]) * a[((dy * 3 + dx) * 64 + ci) * 64 + 3];
      EXPECT_NEAR(got[7][(5 * 64 + 0) * 64 + 3], conv, 1e-3);
      continue;
    }
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].size(), first[i].size());
      if ((i == 0 || i == 7) && !config.deterministic) {
        for (size_t k = 0; k < got[i].size(); ++k) ASSERT_NEAR(got[i][k], first[i][k], 1e-3) << "at " << k;
        continue;
      }
      EXPECT_EQ(std::memcmp(got[i].data(), first[i].data(), got[i].size() * sizeof(float)), 0)
          << "result #" << i << " differs between 1 and " << threads << " threads";
    }
  }
}

// Subnormals: flushed to zero by default, as XLA's CPU runtime does (results that would be
// subnormal become 0, subnormal inputs read as 0), in the executing thread and in the intra-op
// helpers alike; kept as IEEE says with flush_denormals = false. The caller's own mode is the same
// after an execution run on its thread.
constexpr char kSubnormalProgram[] = R"(
func.func @main(%x: tensor<300000xf32>, %s: tensor<300000xf32>) -> (tensor<300000xf32>, tensor<300000xf32>, tensor<300000xf32>) {
  %tiny = stablehlo.constant dense<1.0e-30> : tensor<300000xf32>
  %scaled = stablehlo.multiply %x, %tiny : tensor<300000xf32>
  %twice = stablehlo.add %s, %s : tensor<300000xf32>
  %big = stablehlo.constant dense<-95.0> : tensor<300000xf32>
  %shift = stablehlo.add %x, %big : tensor<300000xf32>
  %e = stablehlo.exponential %shift : tensor<300000xf32>
  return %scaled, %twice, %e : tensor<300000xf32>, tensor<300000xf32>, tensor<300000xf32>
}
)";

TEST_F(PluginTest, SubnormalsFlushedByDefaultKeptOnRequest) {
  const size_t n = 300000;
  std::vector<float> x(n), s(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = 1e-10f * static_cast<float>(1 + i % 97);        // x * 1e-30 is subnormal
    s[i] = 1e-39f * static_cast<float>(1 + i % 7);         // subnormal inputs
  }
  struct Config {
    std::vector<PJRT_NamedValue> options;
    bool flushed;
  };
  const Config configs[] = {
      {{IntOption("intra_op_threads", 4)}, true},
      {{IntOption("intra_op_threads", 4), BoolOption("flush_denormals", true)}, true},
      {{IntOption("intra_op_threads", 1), BoolOption("asynchronous", false)}, true},
      {{IntOption("intra_op_threads", 4), BoolOption("flush_denormals", false)}, false},
  };
  for (const Config& config : configs) {
#if defined(__x86_64__)
    const unsigned before = _mm_getcsr();
#endif
    std::vector<std::vector<float>> got =
        RunOnFreshClient(*this, config.options, kSubnormalProgram, {{&x, {int64_t(n)}}, {&s, {int64_t(n)}}}, 3);
#if defined(__x86_64__)
    // (With asynchronous = false the executions ran on this thread.)
    EXPECT_EQ(_mm_getcsr() & 0xffc0u, before & 0xffc0u) << "the caller's MXCSR control bits changed";
#endif
    ASSERT_EQ(got.size(), 3u);
    // This test's thread keeps IEEE subnormals, so the expected values below are exact.
    int64_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      const float scaled = config.flushed ? 0.0f : x[i] * 1e-30f;
      const float twice = config.flushed ? 0.0f : s[i] + s[i];
      ASSERT_TRUE(std::fpclassify(x[i] * 1e-30f) == FP_SUBNORMAL);
      if (got[0][i] != scaled || got[1][i] != twice) ++wrong;
      // exp(x - 95) ~ 5.6e-42: subnormal, or 0 when flushed.
      if (config.flushed ? got[2][i] != 0.0f : std::fpclassify(got[2][i]) != FP_SUBNORMAL) ++wrong;
    }
    EXPECT_EQ(wrong, 0) << "flushed = " << config.flushed << " (element 0: " << got[0][0] << ", "
                        << got[1][0] << ", " << got[2][0] << ")";
  }
  // The option is a bool.
  std::vector<PJRT_NamedValue> bad = {IntOption("flush_denormals", 1)};
  auto a = Args<PJRT_Client_Create_Args>();
  a.create_options = bad.data();
  a.num_options = 1;
  PJRT_Error* e = api->PJRT_Client_Create(&a);
  EXPECT_EQ(e ? e->vtable->get_code(e) : PJRT_Error_Code_OK, PJRT_Error_Code_INVALID_ARGUMENT);
  const std::string m = Message(e);
  EXPECT_NE(m.find("flush_denormals"), std::string::npos) << m;
}

}  // namespace
}  // namespace capi
