// Unit tests of the runtime: events, compile options, buffers and executions.
#include <algorithm>
#include <bit>
#include <atomic>
#include <cmath>
#include <chrono>
#include <new>
#include <cstring>
#include <string>
#include <thread>
#if defined(__linux__)
#include <sched.h>
#endif

#include "gtest/gtest.h"
#include "src/runtime/test_util.h"
#include "src/compiler/compile.h"
#include "src/ir/parser.h"
#include "src/ir/verifier.h"
#include "src/runtime/executable.h"
#include "src/runtime/thread_pool.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;
using test_util::Floats;
using test_util::StepNames;

TEST(EventTest, CallbacksRunOnceWhetherRegisteredBeforeOrAfter) {
  auto e = Event::Create();
  int before = 0, after = 0;
  e->OnReady([&](const absl::Status& s) { before += s.ok(); });
  EXPECT_FALSE(e->IsReady());
  EXPECT_TRUE(e->Set(absl::OkStatus()));
  EXPECT_FALSE(e->Set(absl::InternalError("late")));  // first wins
  e->OnReady([&](const absl::Status& s) { after += s.ok(); });
  EXPECT_EQ(before, 1);
  EXPECT_EQ(after, 1);
  EXPECT_TRUE(e->Await().ok());
}

TEST(EventTest, WhenAllReadyReportsTheFirstError) {
  auto a = Event::Create(), b = Event::Create();
  absl::Status got = absl::UnknownError("not called");
  WhenAllReady({a, b}, [&](absl::Status s) { got = s; });
  a->Set(absl::InvalidArgumentError("bad a"));
  EXPECT_EQ(got.code(), absl::StatusCode::kUnknown);
  b->Set(absl::OkStatus());
  EXPECT_EQ(got.message(), "bad a");
}

// The elementwise fusion reads a broadcast scalar argument directly: the broadcast_in_dim step is
// gone from the program, one fused step remains, and it computes x * s + 1.
// A piece that throws (a kernel's allocation failing on a pool thread) must neither end the
// process nor return to the caller while other pieces still run: every piece runs, then the
// first exception reaches the caller of For.
TEST(PoolParallelTest, APieceThatThrowsReachesTheCallerAfterEveryPiece) {
  ThreadPool pool(2);
  PoolParallel parallel(&pool, /*deterministic=*/false);
  const std::thread::id caller = std::this_thread::get_id();
  for (bool on_helper : {true, false}) {
    std::atomic<int> ran{0}, on_helpers{0};
    auto piece = [&](int64_t i) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      const bool helper = std::this_thread::get_id() != caller;
      on_helpers += helper;
      ++ran;
      // Pieces on a helper throw, or the caller's first piece (piece 0 or 1, whichever it took).
      if (on_helper ? helper : (!helper && i < 2)) throw std::bad_alloc();
    };
    EXPECT_THROW(parallel.For(40, piece), std::bad_alloc) << on_helper;
    EXPECT_EQ(ran.load(), 40) << on_helper;
    EXPECT_GT(on_helpers.load(), 0) << on_helper;  // (the helper took pieces: the case was tested)
  }
  // The pool still works afterwards.
  std::atomic<int> ran{0};
  parallel.For(8, [&](int64_t) { ++ran; });
  EXPECT_EQ(ran.load(), 8);
}

TEST(FusionTest, AbsorbsBroadcastsOfScalars) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<1000xf32>, %s: tensor<f32>) -> tensor<1000xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1000xf32>
  %one = stablehlo.constant dense<1.0> : tensor<1000xf32>
  %y = stablehlo.multiply %x, %b : tensor<1000xf32>
  %z = stablehlo.add %y, %one : tensor<1000xf32>
  return %z : tensor<1000xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->program->steps.size(), 1u);
  EXPECT_EQ((*exe)->program->steps[0].name, "fusion(stablehlo.multiply, stablehlo.add)");
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {1000}});
  for (int i = 0; i < 1000; ++i) x.mutable_as<float>()[i] = static_cast<float>(i);
  cpu::Array s = cpu::Array::Allocate({ir::ElemKind::kF32, {}});
  *s.mutable_as<float>() = 0.5f;
  auto out = (*exe)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(s)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].array.as<float>()[999], 500.5f);
}

// Broadcasts whose operand fills consecutive dimensions of the result are absorbed wherever
// those dimensions sit (trailing: a bias row; leading: per-row statistics; in the middle); one
// over non-consecutive dimensions is materialised.
TEST(FusionTest, AbsorbsBroadcastsOverConsecutiveDimensions) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<2x3x4xf32>, %row: tensor<4xf32>, %col: tensor<2xf32>, %mid: tensor<3xf32>, %gap: tensor<2x4xf32>) -> tensor<2x3x4xf32> {
  %r = stablehlo.broadcast_in_dim %row, dims = [2] : (tensor<4xf32>) -> tensor<2x3x4xf32>
  %c = stablehlo.broadcast_in_dim %col, dims = [0] : (tensor<2xf32>) -> tensor<2x3x4xf32>
  %m = stablehlo.broadcast_in_dim %mid, dims = [1] : (tensor<3xf32>) -> tensor<2x3x4xf32>
  %g = stablehlo.broadcast_in_dim %gap, dims = [0, 2] : (tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %y = stablehlo.add %x, %r : tensor<2x3x4xf32>
  %z = stablehlo.multiply %y, %c : tensor<2x3x4xf32>
  %w = stablehlo.add %z, %m : tensor<2x3x4xf32>
  %v = stablehlo.subtract %w, %g : tensor<2x3x4xf32>
  return %v : tensor<2x3x4xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(StepNames(**exe), (std::vector<std::string>{
                       "stablehlo.broadcast_in_dim",
                       "fusion(stablehlo.add, stablehlo.multiply, stablehlo.add, stablehlo.subtract)"}));
  auto vec = [](std::vector<int64_t> dims, float scale) {
    cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kF32, cpu::Dims(dims.begin(), dims.end())});
    for (int64_t i = 0; i < a.NumElements(); ++i) a.mutable_as<float>()[i] = scale * static_cast<float>(i + 1);
    return a;
  };
  cpu::Array x = vec({2, 3, 4}, 1.0f), row = vec({4}, 10.0f), col = vec({2}, 100.0f), mid = vec({3}, 0.5f),
             gap = vec({2, 4}, 0.25f);
  auto out = (*exe)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(row), cpu::RtValue::Of(col), cpu::RtValue::Of(mid),
                          cpu::RtValue::Of(gap)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        const float want = (x.as<float>()[i * 12 + j * 4 + k] + row.as<float>()[k]) * col.as<float>()[i] +
                           mid.as<float>()[j] - gap.as<float>()[i * 4 + k];
        EXPECT_EQ((*out)[0].array.as<float>()[i * 12 + j * 4 + k], want) << i << "," << j << "," << k;
      }
}

// Elementwise steps that other steps separate in the program are moved next to the run they
// extend (compare, select and convert are run members too), and the results are those of each
// op: relu(x + b) as f64, with two unrelated products in between.
TEST(FusionTest, ClustersElementwiseStepsAcrossUnrelatedSteps) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<8x8xf64>, tensor<8x8xf32>) {
  %pre = stablehlo.add %x, %b : tensor<8x8xf32>
  %p1 = stablehlo.dot_general %x, %b, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<8x8xf32>
  %gt = stablehlo.compare GT, %pre, %zero, FLOAT : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xi1>
  %p2 = stablehlo.dot_general %p1, %b, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = stablehlo.select %gt, %pre, %zero : tensor<8x8xi1>, tensor<8x8xf32>
  %c = stablehlo.convert %r : (tensor<8x8xf32>) -> tensor<8x8xf64>
  return %c, %p2 : tensor<8x8xf64>, tensor<8x8xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(StepNames(**exe), (std::vector<std::string>{
                       "fusion(stablehlo.add, stablehlo.compare, stablehlo.select, stablehlo.convert)",
                       "stablehlo.dot_general", "stablehlo.dot_general"}));
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {8, 8}});
  cpu::Array b = cpu::Array::Allocate({ir::ElemKind::kF32, {8, 8}});
  for (int i = 0; i < 64; ++i) {
    x.mutable_as<float>()[i] = static_cast<float>(i % 7) - 3.0f;
    b.mutable_as<float>()[i] = (i % 3 == 0) ? 0.5f : -0.25f;
  }
  auto out = (*exe)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(b)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 64; ++i) {
    const float pre = x.as<float>()[i] + b.as<float>()[i];
    EXPECT_EQ((*out)[0].array.as<double>()[i], pre > 0 ? static_cast<double>(pre) : 0.0) << i;
  }
  double p2_00 = 0;  // (x b) b at [0][0]
  for (int k = 0; k < 8; ++k) {
    double p1 = 0;
    for (int j = 0; j < 8; ++j) p1 += double{x.as<float>()[j]} * b.as<float>()[j * 8 + k];
    p2_00 += p1 * b.as<float>()[k * 8];
  }
  EXPECT_NEAR((*out)[1].array.as<float>()[0], p2_00, 1e-4);
}

// An elementwise step whose only user waits for a reduction computed after it (layer norm's
// x - mean, divided by a deviation reduced later) waits too and fuses into its user's run
// instead of being written out; the values are the separate ops'.
TEST(FusionTest, ElementwiseStepsWaitForTheirUsersRun) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %c = stablehlo.subtract %x, %m : tensor<4x8xf32>
  %sq = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %v = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %d = stablehlo.broadcast_in_dim %v, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %r = stablehlo.divide %c, %d : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<std::string> names = StepNames(**exe);
  // (The division by a broadcast is a product with its reciprocal: DivideByReciprocals.)
  EXPECT_NE(std::find(names.begin(), names.end(), "fusion(stablehlo.subtract, stablehlo.multiply)"), names.end())
      << ::testing::PrintToString(names);
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {4, 8}});
  for (int i = 0; i < 32; ++i) x.mutable_as<float>()[i] = static_cast<float>(i % 5) - 1.5f;
  auto out = (*exe)->Run({cpu::RtValue::Of(x)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 4; ++r) {
    float sum = 0, sq = 0;
    for (int j = 0; j < 8; ++j) sum += x.as<float>()[r * 8 + j], sq += x.as<float>()[r * 8 + j] * x.as<float>()[r * 8 + j];
    for (int j = 0; j < 8; ++j)
      EXPECT_FLOAT_EQ((*out)[0].array.as<float>()[r * 8 + j], (x.as<float>()[r * 8 + j] - sum) / sq) << r << "," << j;
  }
}

// Fused outputs of 16 MiB and more are written with non-temporal stores; the values are the
// same, to the last (odd) element, and for an output that the run reads again too.
TEST(FusionTest, LargeOutputsStreamedToMemoryKeepTheirValues) {
  constexpr int64_t n = (int64_t{4} << 20) + 3;
  auto exe = CompileText(R"(
func.func @main(%x: tensor<4194307xf32>) -> (tensor<4194307xf32>, tensor<4194307xf32>) {
  %two = stablehlo.constant dense<2.0> : tensor<4194307xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4194307xf32>
  %a = stablehlo.multiply %x, %two : tensor<4194307xf32>
  %y = stablehlo.add %a, %one : tensor<4194307xf32>
  %z = stablehlo.multiply %y, %y : tensor<4194307xf32>
  return %y, %z : tensor<4194307xf32>, tensor<4194307xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->program->steps.size(), 1u);
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {n}});
  for (int64_t i = 0; i < n; ++i) x.mutable_as<float>()[i] = static_cast<float>(i % 1000) * 0.25f;
  auto out = (*exe)->Run({cpu::RtValue::Of(x)});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* y = (*out)[0].array.as<float>();
  const float* z = (*out)[1].array.as<float>();
  for (int64_t i = 0; i < n; ++i) {
    const float want = x.as<float>()[i] * 2.0f + 1.0f;
    ASSERT_EQ(y[i], want) << i;
    ASSERT_EQ(z[i], want * want) << i;
  }
}

// A fused run's output takes the storage of an input that dies with it when nothing else holds
// that input (a donated argument): every op of the run still reads the input's old values (the
// outputs are written after each block's ops). An input the caller still holds is left alone.
TEST(FusionTest, OutputsReuseAnInputNothingElseHolds) {
  constexpr int64_t n = 3 * 1024 * 10 + 7;  // several blocks and a partial one, 120 KiB
  auto exe = CompileText(R"(
func.func @main(%x: tensor<30727xf32>) -> (tensor<30727xf32>, tensor<30727xf32>) {
  %two = stablehlo.constant dense<2.0> : tensor<30727xf32>
  %a = stablehlo.multiply %x, %two : tensor<30727xf32>
  %b = stablehlo.add %a, %x : tensor<30727xf32>
  %c = stablehlo.multiply %b, %x : tensor<30727xf32>
  return %a, %c : tensor<30727xf32>, tensor<30727xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->program->steps.size(), 1u);
  auto fill = [&] {
    cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {n}});
    for (int64_t i = 0; i < n; ++i) x.mutable_as<float>()[i] = static_cast<float>(i % 97) - 40.0f;
    return x;
  };
  auto check = [&](const std::vector<cpu::RtValue>& out) {
    for (int64_t i = 0; i < n; ++i) {
      const float x = static_cast<float>(i % 97) - 40.0f;
      ASSERT_EQ(out[0].array.as<float>()[i], x * 2.0f) << i;
      ASSERT_EQ(out[1].array.as<float>()[i], (x * 2.0f + x) * x) << i;
    }
  };
  {  // donated: the only reference goes in
    cpu::Array x = fill();
    const uint8_t* storage = x.data();
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(std::move(x)));
    auto out = (*exe)->Run(std::move(args));
    ASSERT_TRUE(out.ok()) << out.status();
    // The first output takes x's storage, and the ops after it still read x's old values.
    EXPECT_EQ((*out)[0].array.data(), storage);
    check(*out);
  }
  {  // held by the caller: a new output, the input unchanged
    cpu::Array x = fill();
    auto out = (*exe)->Run({cpu::RtValue::Of(x)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_NE((*out)[0].array.data(), x.data());
    check(*out);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(x.as<float>()[i], static_cast<float>(i % 97) - 40.0f) << i;
  }
}

// OPENPJRT_PROFILE's table: time per top-level step over the executable's runs, printed when the
// profile goes away (here attached by hand instead of through the environment).
TEST(StepProfileTest, PrintsEveryStepThatRan) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %d = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = stablehlo.transpose %d, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %t, %d : tensor<64x64xf32>, tensor<64x64xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  (*exe)->profile = std::make_shared<cpu::StepProfile>(*(*exe)->program, "main");
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {64, 64}});
  for (int i = 0; i < 2; ++i) ASSERT_TRUE((*exe)->Run({cpu::RtValue::Of(x)}).ok());
  testing::internal::CaptureStderr();
  (*exe)->profile.reset();
  const std::string table = testing::internal::GetCapturedStderr();
  EXPECT_NE(table.find("openpjrt profile of @main"), std::string::npos) << table;
  EXPECT_NE(table.find("in 2 runs of 2 steps"), std::string::npos) << table;
  EXPECT_NE(table.find("stablehlo.dot_general (line 3)"), std::string::npos) << table;
  EXPECT_NE(table.find("stablehlo.transpose (line 4)"), std::string::npos) << table;
}

// transpose(dot_general(a, b)) whose product nothing else reads is computed as dot_general(b, a)
// with no transpose step, with the bits of the product transposed (here compared with a program
// that also returns the product, so that it keeps the transpose).
TEST(FusionTest, TransposedProductsSwapTheirOperands) {
  const char* folded = R"(
func.func @main(%dy: tensor<48x40xf32>, %x: tensor<48x72xf32>) -> tensor<72x40xf32> {
  %d = stablehlo.dot_general %dy, %x, contracting_dims = [0] x [0] : (tensor<48x40xf32>, tensor<48x72xf32>) -> tensor<40x72xf32>
  %t = stablehlo.transpose %d, dims = [1, 0] : (tensor<40x72xf32>) -> tensor<72x40xf32>
  return %t : tensor<72x40xf32>
})";
  const char* kept = R"(
func.func @main(%dy: tensor<48x40xf32>, %x: tensor<48x72xf32>) -> (tensor<72x40xf32>, tensor<40x72xf32>) {
  %d = stablehlo.dot_general %dy, %x, contracting_dims = [0] x [0] : (tensor<48x40xf32>, tensor<48x72xf32>) -> tensor<40x72xf32>
  %t = stablehlo.transpose %d, dims = [1, 0] : (tensor<40x72xf32>) -> tensor<72x40xf32>
  return %t, %d : tensor<72x40xf32>, tensor<40x72xf32>
})";
  auto a = CompileText(folded), b = CompileText(kept);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  std::vector<std::string> names = StepNames(**a);
  for (const std::string& n : names) EXPECT_EQ(n.find("transpose"), std::string::npos) << n;
  const std::vector<std::string> kept_names = StepNames(**b);
  EXPECT_NE(std::find(kept_names.begin(), kept_names.end(), "stablehlo.transpose"), kept_names.end());
  cpu::Array dy = cpu::Array::Allocate({ir::ElemKind::kF32, {48, 40}});
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {48, 72}});
  for (int i = 0; i < 48 * 40; ++i) dy.mutable_as<float>()[i] = static_cast<float>((i * 37) % 101) / 7.0f - 6.0f;
  for (int i = 0; i < 48 * 72; ++i) x.mutable_as<float>()[i] = static_cast<float>((i * 53) % 89) / 11.0f - 4.0f;
  auto ra = (*a)->Run({cpu::RtValue::Of(dy), cpu::RtValue::Of(x)});
  auto rb = (*b)->Run({cpu::RtValue::Of(dy), cpu::RtValue::Of(x)});
  ASSERT_TRUE(ra.ok() && rb.ok());
  ASSERT_EQ((*ra)[0].array.dims(), (std::vector<int64_t>{72, 40}));
  for (int i = 0; i < 72 * 40; ++i) ASSERT_EQ((*ra)[0].array.as<float>()[i], (*rb)[0].array.as<float>()[i]) << i;
}

// Transposes whose result's last dimension is strided in the source go tile by tile (on the
// threads when large); every permutation of a few shapes and element sizes against the
// definition, result[i] = x[i permuted].
TEST(FusionTest, TiledTransposesMoveEveryElement) {
  struct Case {
    std::vector<int64_t> dims;
    const char* kind;
    int64_t es;
  };
  const std::vector<Case> cases = {{{130, 70}, "f32", 4}, {{3, 9, 33}, "f16", 2}, {{2, 16, 8, 24}, "i8", 1},
                                   {{9, 17, 2}, "f64", 8}, {{600, 700}, "f32", 4}};
  for (const Case& c : cases) {
    std::vector<int64_t> perm(c.dims.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    do {
      std::vector<int64_t> out_dims;
      for (int64_t q : perm) out_dims.push_back(c.dims[static_cast<size_t>(q)]);
      auto type = [&](const std::vector<int64_t>& d) {
        std::string t = "tensor<";
        for (int64_t x : d) t += std::to_string(x) + "x";
        return t + c.kind + ">";
      };
      std::string dims_list;
      for (size_t i = 0; i < perm.size(); ++i) dims_list += (i ? ", " : "") + std::to_string(perm[i]);
      auto exe = CompileText("func.func @main(%x: " + type(c.dims) + ") -> " + type(out_dims) + " {\n" +
                             "  %t = stablehlo.transpose %x, dims = [" + dims_list + "] : (" + type(c.dims) + ") -> " +
                             type(out_dims) + "\n  return %t : " + type(out_dims) + "\n}\n");
      ASSERT_TRUE(exe.ok()) << exe.status();
      const ir::ElemKind kind = c.es == 1 ? ir::ElemKind::kI8 : c.es == 2 ? ir::ElemKind::kF16
                               : c.es == 4 ? ir::ElemKind::kF32 : ir::ElemKind::kF64;
      cpu::Array x = cpu::Array::Allocate({kind, c.dims});
      for (int64_t i = 0; i < x.ByteSize(); ++i) x.mutable_data()[i] = static_cast<uint8_t>(i * 131 + i / 7);
      auto out = (*exe)->Run({cpu::RtValue::Of(x)});
      ASSERT_TRUE(out.ok()) << out.status();
      const cpu::Array& y = (*out)[0].array;
      const std::vector<int64_t> in_strides = cpu::RowMajorStrides(c.dims);
      std::vector<int64_t> idx(out_dims.size(), 0);
      int64_t wrong = 0;
      for (int64_t e = 0; e < y.NumElements(); ++e) {
        int64_t src = 0;
        for (size_t k = 0; k < idx.size(); ++k) src += idx[k] * in_strides[static_cast<size_t>(perm[k])];
        wrong += std::memcmp(y.data() + e * c.es, x.data() + src * c.es, static_cast<size_t>(c.es)) != 0;
        for (size_t k = idx.size(); k-- > 0;) {
          if (++idx[k] < out_dims[k]) break;
          idx[k] = 0;
        }
      }
      EXPECT_EQ(wrong, 0) << type(c.dims) << " dims = [" << dims_list << "]";
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

// Binary ops of a fused run read splat operands as one element, on either side, and block
// buffers are recycled once their values are dead: the values stay those of the plain ops.
TEST(FusionTest, SplatOperandsAndRecycledBuffersGiveThePlainValues) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<3000xf32>, %y: tensor<3000xf64>) -> (tensor<3000xf32>, tensor<3000xf32>, tensor<3000xf64>) {
  %c15 = stablehlo.constant dense<1.5> : tensor<3000xf32>
  %c3 = stablehlo.constant dense<3.0> : tensor<3000xf32>
  %c7 = stablehlo.constant dense<7.0> : tensor<3000xf32>
  %q = stablehlo.constant dense<0.25> : tensor<f32>
  %cq = stablehlo.broadcast_in_dim %q, dims = [] : (tensor<f32>) -> tensor<3000xf32>
  %ch = stablehlo.constant dense<-0.5> : tensor<3000xf32>
  %a = stablehlo.subtract %c15, %x : tensor<3000xf32>
  %b = stablehlo.divide %x, %c3 : tensor<3000xf32>
  %c = stablehlo.divide %c7, %a : tensor<3000xf32>
  %d = stablehlo.maximum %b, %cq : tensor<3000xf32>
  %e = stablehlo.minimum %ch, %c : tensor<3000xf32>
  %f = stablehlo.multiply %d, %e : tensor<3000xf32>
  %g = stablehlo.add %a, %f : tensor<3000xf32>
  %h = stablehlo.subtract %g, %b : tensor<3000xf32>
  %c2 = stablehlo.constant dense<2.0> : tensor<3000xf64>
  %k = stablehlo.subtract %c2, %y : tensor<3000xf64>
  %l = stablehlo.multiply %k, %k : tensor<3000xf64>
  %m = stablehlo.divide %l, %c2 : tensor<3000xf64>
  return %h, %c, %m : tensor<3000xf32>, tensor<3000xf32>, tensor<3000xf64>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {3000}});
  cpu::Array y = cpu::Array::Allocate({ir::ElemKind::kF64, {3000}});
  for (int i = 0; i < 3000; ++i) {
    x.mutable_as<float>()[i] = static_cast<float>(i % 97) * 0.37f - 11.0f;
    y.mutable_as<double>()[i] = static_cast<double>(i % 89) * 0.61 - 20.0;
  }
  auto out = (*exe)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(y)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 3000; ++i) {
    const float xi = x.as<float>()[i];
    const float a = 1.5f - xi, b = xi / 3.0f, c = 7.0f / a;
    const float d = b > 0.25f ? b : 0.25f, e = c < -0.5f ? c : -0.5f;
    const float h = (a + d * e) - b;
    const double k = 2.0 - y.as<double>()[i], m = (k * k) / 2.0;
    ASSERT_EQ((*out)[0].array.as<float>()[i], h) << i;
    ASSERT_EQ((*out)[1].array.as<float>()[i], c) << i;
    ASSERT_EQ((*out)[2].array.as<double>()[i], m) << i;
  }
}

TEST(CompileOptionsTest, RoundTripsCountsAndAssignment) {
  CompileOptions o;
  o.num_replicas = 2;
  o.num_partitions = 3;
  o.device_assignment = {{5, 4, 3}, {2, 1, 0}};
  auto back = ParseCompileOptions(SerializeCompileOptions(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->num_replicas, 2);
  EXPECT_EQ(back->num_partitions, 3);
  EXPECT_EQ(back->device_assignment, o.device_assignment);
}

TEST(CompileOptionsTest, MalformedBytesNameTheOffset) {
  auto r = ParseCompileOptions(std::string("\x1a\x05\x20", 3));  // field 3, length 5, 1 byte left
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("at byte"), std::string::npos) << r.status();
}

constexpr char kAdd[] = R"(
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
})";

TEST(ExecuteTest, WaitsForPendingArgumentsAndPropagatesErrors) {
  Client client(ClientOptions{});
  auto exe = Executable::Compile(kAdd, "mlir", {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto le = LoadedExecutable::Load(&client, *exe);
  ASSERT_TRUE(le.ok()) << le.status();
  Device* d0 = client.devices()[0];
  auto pending = Buffer::CreatePending(d0->default_memory(), BufferShape{{ir::ElemKind::kF32, {4}}});
  auto r = (*le)->Execute({{{Floats(d0, {1, 2, 3, 4}), pending}}});
  ASSERT_TRUE(r.ok()) << r.status();
  BufferRef out = r->outputs[0][0];
  EXPECT_FALSE(out->ready_event()->IsReady());
  cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kF32, {4}});
  float ten[4] = {10, 20, 30, 40};
  std::memcpy(a.mutable_data(), ten, 16);
  pending->Fulfil(a);
  ASSERT_TRUE(out->ready_event()->Await().ok());
  auto arr = out->GetArray();
  ASSERT_TRUE(arr.ok());
  EXPECT_EQ(arr->as<float>()[3], 44.0f);

  auto failing = Buffer::CreateError(d0->default_memory(), BufferShape{{ir::ElemKind::kF32, {4}}},
                                     absl::DataLossError("upstream"));
  auto r2 = (*le)->Execute({{{failing, failing}}});
  ASSERT_TRUE(r2.ok());
  absl::Status s = r2->outputs[0][0]->ready_event()->Await();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
}

TEST(ExecuteTest, RejectsWrongShapesAndDeletedArguments) {
  Client client(ClientOptions{});
  auto le = LoadedExecutable::Load(&client, *Executable::Compile(kAdd, "mlir", {}));
  ASSERT_TRUE(le.ok());
  Device* d0 = client.devices()[0];
  auto r = (*le)->Execute({{{Floats(d0, {1, 2, 3}), Floats(d0, {1, 2, 3, 4})}}});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  auto gone = Floats(d0, {1, 2, 3, 4});
  gone->Delete();
  r = (*le)->Execute({{{gone, gone}}});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ExecutableTest, SerializeRoundTripsAndRejectsCorruptBytes) {
  auto exe = Executable::Compile(kAdd, "mlir", {});
  ASSERT_TRUE(exe.ok());
  std::string bytes = (*exe)->Serialize();
  auto back = Executable::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)->fingerprint(), (*exe)->fingerprint());
  bytes[bytes.size() / 2] ^= 1;
  EXPECT_NE(Executable::Deserialize(bytes).status().message().find("checksum"), std::string::npos);
  EXPECT_NE(Executable::Deserialize("garbage").status().message().find("magic"), std::string::npos);
}

// The intra-op pool's default size is the number of cores the process may run on: a client made
// on a thread pinned to one core (as under taskset) gets a pool of one thread, not one a core of
// the machine. (On a one-core machine this cannot tell the two apart; CI has two.)
TEST(RuntimeTest, DefaultIntraOpThreadsFollowTheAffinity) {
#if defined(__linux__)
  int usable = -1, pool_size = -1;
  std::thread pinned([&] {
    cpu_set_t all, one;
    CPU_ZERO(&all);
    CPU_ZERO(&one);
    ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &all)) {
        CPU_SET(c, &one);
        break;
      }
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    usable = UsableCores();
    Client client(ClientOptions{});
    pool_size = client.pool().size();
  });
  pinned.join();
  EXPECT_EQ(usable, 1);
  EXPECT_EQ(pool_size, 1);
  EXPECT_GE(UsableCores(), 1);
#else
  GTEST_SKIP() << "affinity is read on Linux only";
#endif
}

// Devices run at once in one process share the intra-op threads: with two devices on a pool of
// two, each runs its kernels on its own thread (no piece is handed to the pool), and a single
// device still cuts a large elementwise op for the pool.
TEST(RuntimeTest, ConcurrentDevicesShareTheIntraOpThreads) {
  struct Counting : cpu::Parallel {
    std::atomic<int> calls{0};
    int threads() const override { return 2; }
    bool deterministic() const override { return false; }
    void For(int64_t n, cpu::PieceFn fn) override {
      calls.fetch_add(1);
      for (int64_t i = 0; i < n; ++i) fn(i);
    }
  };
  auto exe = test_util::CompileText(R"(
func.func @main(%a: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %0 = stablehlo.exponential %a : tensor<1048576xf32>
  %1 = stablehlo.sine %0 : tensor<1048576xf32>
  return %1 : tensor<1048576xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto args = [] {
    cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kF32, {1048576}});
    std::memset(a.mutable_data(), 0, a.ByteSize());
    return std::vector<cpu::RtValue>{cpu::RtValue::Of(a)};
  };
  Counting one;
  ASSERT_TRUE((*exe)->RunReplicated(1, 1, {args()}, nullptr, nullptr, nullptr, &one, nullptr).ok());
  EXPECT_GT(one.calls.load(), 0);
  Counting two;
  auto r = (*exe)->RunReplicated(2, 1, {args(), args()}, nullptr, nullptr, nullptr, &two, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(two.calls.load(), 0);
  EXPECT_NEAR((*r)[1][0].array.as<float>()[7], std::sin(1.0f), 1e-6f);
}

}  // namespace
}  // namespace openpjrt::runtime
