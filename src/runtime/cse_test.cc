// Common subexpressions across inlined calls (src/compiler/cse.h): an op equal to one lowered
// before into the same program, from the same slots, takes its results instead of new steps.
// Each case is compiled as written and in a variant that keeps the ops apart (a reduction's
// initial value 0.0 spelled -0.0: the same sums, a different attribute), and both must give the
// same bits.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/runtime/test_util.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;
using test_util::CountSteps;

std::vector<cpu::RtValue> RunOnRamp(const cpu::Executable& exe) {
  std::vector<cpu::RtValue> args;
  for (const cpu::ArrayType& t : exe.arg_types) {
    cpu::Array a = cpu::Array::Allocate(t);
    float* p = a.mutable_as<float>();
    for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = static_cast<float>((i * 7919) % 101) / 16.0f - 3.0f;
    args.push_back(cpu::RtValue::Of(std::move(a)));
  }
  auto out = exe.Run(std::move(args), nullptr, nullptr, -1, nullptr, nullptr);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<cpu::RtValue>{};
}

void ExpectSameBits(const std::vector<cpu::RtValue>& got, const std::vector<cpu::RtValue>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].array.type(), want[i].array.type()) << "result " << i;
    EXPECT_EQ(std::memcmp(got[i].array.data(), want[i].array.data(), static_cast<size_t>(got[i].array.ByteSize())), 0)
        << "result " << i;
  }
}

// JAX's layer norm: the row mean in @main, and again inside @var, reached through @std.
std::string LayerNorm(const char* var_init) {
  return std::string(R"(
func.func @main(%x: tensor<64x300xf32>) -> tensor<64x300xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<64x300xf32>, tensor<f32>) -> tensor<64xf32>
  %n = stablehlo.constant dense<300.0> : tensor<64xf32>
  %m = stablehlo.divide %s, %n : tensor<64xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x300xf32>
  %d = stablehlo.subtract %x, %mb : tensor<64x300xf32>
  %sd = call @std(%x) : (tensor<64x300xf32>) -> tensor<64xf32>
  %sb = stablehlo.broadcast_in_dim %sd, dims = [0] : (tensor<64xf32>) -> tensor<64x300xf32>
  %r = stablehlo.divide %d, %sb : tensor<64x300xf32>
  return %r : tensor<64x300xf32>
}
func.func private @std(%x: tensor<64x300xf32>) -> tensor<64xf32> {
  %v = call @var(%x) : (tensor<64x300xf32>) -> tensor<64xf32>
  %r = stablehlo.sqrt %v : tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func private @var(%x: tensor<64x300xf32>) -> tensor<64xf32> {
  %c = stablehlo.constant dense<)") + var_init + R"(> : tensor<f32>
  %s = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<64x300xf32>, tensor<f32>) -> tensor<64xf32>
  %n = stablehlo.constant dense<300.0> : tensor<64xf32>
  %m = stablehlo.divide %s, %n : tensor<64xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x300xf32>
  %d = stablehlo.subtract %x, %mb : tensor<64x300xf32>
  %q = stablehlo.multiply %d, %d : tensor<64x300xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %t = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x300xf32>, tensor<f32>) -> tensor<64xf32>
  %r = stablehlo.divide %t, %n : tensor<64xf32>
  return %r : tensor<64xf32>
}
)";
}

TEST(CseTest, TheMeanOfALayerNormIsComputedOnce) {
  const test_util::RowGroupsOff steps_apart;  // (the reductions are counted by name)
  auto shared = CompileText(LayerNorm("0.0"));
  auto apart = CompileText(LayerNorm("-0.0"));
  ASSERT_TRUE(shared.ok()) << shared.status();
  ASSERT_TRUE(apart.ok()) << apart.status();
  // Unfused, the mean's reduce; fused, the variance's sum of squares absorbs its producers.
  EXPECT_EQ(CountSteps(*(*shared)->program, "stablehlo.reduce"), 1);
  EXPECT_EQ(CountSteps(*(*apart)->program, "stablehlo.reduce"), 2);
  ExpectSameBits(RunOnRamp(**shared), RunOnRamp(**apart));
}

// Programs with two reductions of %x that must both run; `second` is the second one's reduce.
std::string TwoReductions(const std::string& second) {
  return R"(
func.func @main(%x: tensor<16x24xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %a = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<16x24xf32>, tensor<f32>) -> tensor<16xf32>
  %b = )" + second + R"(
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}
)";
}

TEST(CseTest, DifferentComputationsAreKept) {
  const std::vector<std::string> seconds = {
      // another reducer
      "stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [1] : "
      "(tensor<16x24xf32>, tensor<f32>) -> tensor<16xf32>",
      // another operand: the transpose's rows
      "\"stablehlo.reduce\"(%t, %c) ({ ^bb0(%p: tensor<f32>, %q: tensor<f32>): %r = stablehlo.add %p, %q : "
      "tensor<f32> stablehlo.return %r : tensor<f32> }) {dimensions = array<i64: 0>} : (tensor<24x16xf32>, "
      "tensor<f32>) -> tensor<16xf32>",
      // the same reducer written out, with its arguments swapped: add(q, p) is still add
      "\"stablehlo.reduce\"(%x, %c) ({ ^bb0(%p: tensor<f32>, %q: tensor<f32>): %r = stablehlo.add %q, %p : "
      "tensor<f32> stablehlo.return %r : tensor<f32> }) {dimensions = array<i64: 1>} : (tensor<16x24xf32>, "
      "tensor<f32>) -> tensor<16xf32>",
  };
  for (size_t i = 0; i < seconds.size(); ++i) {
    std::string text = TwoReductions(seconds[i]);
    if (i == 1) text.replace(text.find("  %b = "), 0, "  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<16x24xf32>) -> tensor<24x16xf32>\n");
    auto exe = CompileText(text);
    ASSERT_TRUE(exe.ok()) << exe.status() << "\n" << text;
    EXPECT_EQ(CountSteps(*(*exe)->program, "stablehlo.reduce"), 2) << text;
  }
  // The same reducer in the pretty and the generic form is one computation.
  auto same = CompileText(TwoReductions(
      "\"stablehlo.reduce\"(%x, %c) ({ ^bb0(%p: tensor<f32>, %q: tensor<f32>): %r = stablehlo.add %p, %q : "
      "tensor<f32> stablehlo.return %r : tensor<f32> }) {dimensions = array<i64: 1>} : (tensor<16x24xf32>, "
      "tensor<f32>) -> tensor<16xf32>"));
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(CountSteps(*(*same)->program, "stablehlo.reduce"), 1);
  const std::vector<cpu::RtValue> r = RunOnRamp(**same);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(std::memcmp(r[0].array.data(), r[1].array.data(), 16 * 4), 0);
}

// A loop body is a program of its own: its reduction of an outer value runs in every iteration
// and is not taken from the enclosing program.
TEST(CseTest, RegionsDoNotTakeResultsFromTheirParent) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<16x24xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %a = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<16x24xf32>, tensor<f32>) -> tensor<16xf32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %i0, %acc = %a) : tensor<i32>, tensor<16xf32>
   cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %s = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<16x24xf32>, tensor<f32>) -> tensor<16xf32>
    %n = stablehlo.add %acc, %s : tensor<16xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %n : tensor<i32>, tensor<16xf32>
  }
  return %a, %w#1 : tensor<16xf32>, tensor<16xf32>
}
)");
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(CountSteps(*(*exe)->program, "stablehlo.reduce"), 2);
  const std::vector<cpu::RtValue> r = RunOnRamp(**exe);
  ASSERT_EQ(r.size(), 2u);
  const float* a = r[0].array.as<float>();
  const float* w = r[1].array.as<float>();
  for (int i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(w[i], 4 * a[i]) << i;
}

}  // namespace
}  // namespace openpjrt::runtime
