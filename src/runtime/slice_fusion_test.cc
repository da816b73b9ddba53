// A dynamic_slice that only a fused elementwise run reads is read by the run in place
// (compiler::AbsorbDynamicSlices, FusedParams::Window): a scan body's xs[i]. Each program here
// loops h = h * 0.5 + xs[window at step i] * 2 and is checked against the same arithmetic done
// here (each operation rounded to f32 on its own), with start indices that the slice clamps.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/runtime/test_util.h"
#include "src/support/str.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;
using test_util::CountSteps;

// xs: [T, A, B]; the window [1, a, b] starts at (k0 * i + c0, k1 * i + c1, 0) at step i, clamped.
struct Case {
  int64_t T, A, B, a, b;
  int64_t k0, c0, k1, c1;
  const char* index_type;  // of the start indices
  bool absorbed;           // whether the window is one contiguous run (then read in place)
};

std::string Program(const Case& c) {
  const std::string xs = StrCat("tensor<", c.T, "x", c.A, "x", c.B, "xf32>");
  const std::string win = StrCat("tensor<", c.a * c.b, "xf32>");
  const std::string it = StrCat("tensor<", c.index_type, ">");
  return StrCat(R"(
func.func @main(%xs: )", xs, ", %h0: ", win, ") -> ", win, R"( {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %h0) : tensor<i32>, )", win, R"(
    cond {
      %n = stablehlo.constant dense<)", c.T, R"(> : tensor<i32>
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %k0 = stablehlo.constant dense<)", c.k0, R"(> : tensor<i32>
      %c0 = stablehlo.constant dense<)", c.c0, R"(> : tensor<i32>
      %k1 = stablehlo.constant dense<)", c.k1, R"(> : tensor<i32>
      %c1 = stablehlo.constant dense<)", c.c1, R"(> : tensor<i32>
      %m0 = stablehlo.multiply %i, %k0 : tensor<i32>
      %s0 = stablehlo.add %m0, %c0 : tensor<i32>
      %m1 = stablehlo.multiply %i, %k1 : tensor<i32>
      %s1 = stablehlo.add %m1, %c1 : tensor<i32>
      %t0 = stablehlo.convert %s0 : (tensor<i32>) -> )", it, R"(
      %t1 = stablehlo.convert %s1 : (tensor<i32>) -> )", it, R"(
      %z = stablehlo.constant dense<0> : )", it, R"(
      %x = stablehlo.dynamic_slice %xs, %t0, %t1, %z, sizes = [1, )", c.a, ", ", c.b, "] : (", xs, ", ", it, ", ",
                it, ", ", it, ") -> tensor<1x", c.a, "x", c.b, R"(xf32>
      %xr = stablehlo.reshape %x : (tensor<1x)", c.a, "x", c.b, "xf32>) -> ", win, R"(
      %half = stablehlo.constant dense<0.5> : )", win, R"(
      %two = stablehlo.constant dense<2.0> : )", win, R"(
      %hh = stablehlo.multiply %h, %half : )", win, R"(
      %x2 = stablehlo.multiply %xr, %two : )", win, R"(
      %hn = stablehlo.add %hh, %x2 : )", win, R"(
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %hn : tensor<i32>, )", win, R"(
    }
  return %r#1 : )", win, R"(
}
)");
}

std::vector<float> Expected(const Case& c, const std::vector<float>& xs, std::vector<float> h) {
  for (int64_t i = 0; i < c.T; ++i) {
    const int64_t s0 = std::clamp<int64_t>(c.k0 * i + c.c0, 0, c.T - 1);
    const int64_t s1 = std::clamp<int64_t>(c.k1 * i + c.c1, 0, c.A - c.a);
    for (int64_t r = 0; r < c.a; ++r)
      for (int64_t col = 0; col < c.b; ++col) {
        volatile float hh = h[r * c.b + col] * 0.5f;  // (volatile: no fused multiply-add)
        volatile float x2 = xs[(s0 * c.A + s1 + r) * c.B + col] * 2.0f;
        h[r * c.b + col] = hh + x2;
      }
  }
  return h;
}

// Runs `exe` on two f32 arguments of the given shapes and returns its first result's elements.
std::vector<float> RunOn(const cpu::Executable& exe, const std::vector<float>& x, cpu::Dims xd,
                         const std::vector<float>& y, cpu::Dims yd) {
  std::vector<cpu::RtValue> args;
  for (auto [v, d] : {std::pair{&x, &xd}, std::pair{&y, &yd}}) {
    cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kF32, *d});
    std::memcpy(a.mutable_data(), v->data(), v->size() * 4);
    args.push_back(cpu::RtValue::Of(std::move(a)));
  }
  auto out = exe.Run(std::move(args), nullptr, nullptr, -1, nullptr, nullptr);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return {};
  const float* got = (*out)[0].array.as<float>();
  return std::vector<float>(got, got + (*out)[0].array.NumElements());
}

void Check(const Case& c) {
  SCOPED_TRACE(StrCat("xs ", c.T, "x", c.A, "x", c.B, " window 1x", c.a, "x", c.b, " indices ", c.index_type));
  auto exe = CompileText(Program(c));
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(CountSteps(*(*exe)->program, "stablehlo.dynamic_slice"), c.absorbed ? 0 : 1);
  std::vector<float> xs(static_cast<size_t>(c.T * c.A * c.B)), h0(static_cast<size_t>(c.a * c.b));
  for (size_t e = 0; e < xs.size(); ++e) xs[e] = static_cast<float>((e * 37) % 101) * 0.25f - 12.0f;
  for (size_t e = 0; e < h0.size(); ++e) h0[e] = static_cast<float>(e % 7) - 3.0f;
  const std::vector<float> want = Expected(c, xs, h0);
  for (int run = 0; run < 2; ++run) {  // (the second reuses the loop's kept storage)
    const std::vector<float> got = RunOn(**exe, xs, {c.T, c.A, c.B}, h0, {c.a * c.b});
    ASSERT_EQ(got.size(), want.size());
    for (size_t e = 0; e < want.size(); ++e) ASSERT_EQ(got[e], want[e]) << "element " << e << ", run " << run;
  }
}

TEST(SliceFusion, ScanRowsAreReadInPlace) {
  // xs[i] whole rows of 2x8 (a small run), i32 and i64 indices.
  Check({12, 2, 8, 2, 8, 1, 0, 0, 0, "i32", true});
  Check({12, 2, 8, 2, 8, 1, 0, 0, 0, "i64", true});
  // Rows read backwards (a reversed scan) and rows of a part of the middle dimension.
  Check({9, 6, 16, 1, 16, -1, 8, 1, 0, "i32", true});
  Check({9, 6, 16, 3, 16, 1, 0, 1, 1, "ui32", true});
  // Rows longer than a block of the fused kernel (its block-by-block path).
  Check({5, 3, 1024, 2, 1024, 1, 0, 1, 0, "i32", true});
}

TEST(SliceFusion, StartIndicesClampAsTheSliceDoes) {
  // Starts below 0 and past the last window: clamped into the array.
  Check({10, 4, 8, 2, 8, 3, -7, 2, -3, "i32", true});
  Check({10, 4, 8, 2, 8, -2, 30, -1, 9, "i64", true});
}

TEST(SliceFusion, WindowsThatAreNotOneRunAreCopied) {
  // A part of the last dimension is strided in xs: the slice stays a step of its own.
  Check({6, 4, 8, 2, 4, 1, 0, 1, 0, "i32", false});
}

// An RNN step, tanh(h W + |xs[i]|): the row is read in place by the product's epilogue. The
// reference program passes the row through an optimization_barrier first (then the slice is a
// step of its own), and must give the same bits.
std::string RnnProgram(bool copy_row) {
  return StrCat(R"(
func.func @main(%w: tensor<48x48xf32>, %xs: tensor<7x48xf32>) -> tensor<48xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.25> : tensor<48xf32>
  %r:2 = stablehlo.while(%i = %zero, %h = %h0) : tensor<i32>, tensor<48xf32>
    cond {
      %n = stablehlo.constant dense<7> : tensor<i32>
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %c0 = stablehlo.constant dense<0> : tensor<i32>
      %x = stablehlo.dynamic_slice %xs, %i, %c0, sizes = [1, 48] : (tensor<7x48xf32>, tensor<i32>, tensor<i32>) -> tensor<1x48xf32>
      %xr = stablehlo.reshape %x : (tensor<1x48xf32>) -> tensor<48xf32>
)", copy_row ? "      %xc = stablehlo.optimization_barrier %xr : tensor<48xf32>\n" : "",
                copy_row ? "      %xv = stablehlo.abs %xc : tensor<48xf32>\n" : "      %xv = stablehlo.abs %xr : tensor<48xf32>\n",
                R"(      %p = stablehlo.dot_general %h, %w, contracting_dims = [0] x [0] : (tensor<48xf32>, tensor<48x48xf32>) -> tensor<48xf32>
      %a = stablehlo.add %p, %xv : tensor<48xf32>
      %hn = stablehlo.tanh %a : tensor<48xf32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %hn : tensor<i32>, tensor<48xf32>
    }
  return %r#1 : tensor<48xf32>
}
)");
}

TEST(SliceFusion, ProductEpiloguesReadTheRowInPlace) {
  std::vector<float> w(48 * 48), xs(7 * 48);
  for (size_t e = 0; e < w.size(); ++e) w[e] = static_cast<float>(static_cast<int>((e * 29) % 23) - 11) / 64.0f;
  for (size_t e = 0; e < xs.size(); ++e) xs[e] = static_cast<float>(static_cast<int>((e * 13) % 17) - 8) / 8.0f;
  std::vector<std::vector<float>> results;
  for (bool copy_row : {false, true}) {
    auto exe = CompileText(RnnProgram(copy_row));
    ASSERT_TRUE(exe.ok()) << exe.status();
    EXPECT_EQ(CountSteps(*(*exe)->program, "stablehlo.dynamic_slice"), copy_row ? 1 : 0);
    results.push_back(RunOn(**exe, w, {48, 48}, xs, {7, 48}));
    ASSERT_EQ(results.back().size(), 48u);
  }
  for (size_t e = 0; e < 48; ++e) EXPECT_EQ(results[0][e], results[1][e]) << "element " << e;
}

}  // namespace
}  // namespace openpjrt::runtime
