// Loop bodies keep only the work of an iteration: constants of while bodies and conditions are
// computed once in front of the loop (compiler::HoistLoopConstants), also from a loop nested in a
// loop, and the results stay those of the program as written.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/runtime/test_util.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;

// Steps named `name` in `p` itself (depth 0) or anywhere in its nested programs (depth > 0).
int Count(const cpu::Program& p, const std::string& name, bool nested) {
  int n = 0;
  for (const cpu::Step& s : p.steps) {
    if (!nested) n += s.name == name;
    for (const auto& r : s.regions) n += Count(*r, name, false) + Count(*r, name, true);
  }
  return n;
}

// Five iterations of acc = acc * 0.5 + k, then an inner loop adding 1.0 twice; the body also
// carries the constant k itself out as a loop value, and the counter's limit is a constant of
// the condition.
constexpr char kNestedLoops[] = R"(
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %zero, %acc = %x, %last = %x) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %n = stablehlo.constant dense<5> : tensor<i32>
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %half = stablehlo.constant dense<0.5> : tensor<4xf32>
      %k = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %a = stablehlo.multiply %acc, %half : tensor<4xf32>
      %a2 = stablehlo.add %a, %k : tensor<4xf32>
      %z = stablehlo.constant dense<0> : tensor<i32>
      %in:2 = stablehlo.while(%j = %z, %b = %a2) : tensor<i32>, tensor<4xf32>
        cond {
          %two = stablehlo.constant dense<2> : tensor<i32>
          %more = stablehlo.compare LT, %j, %two, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %more : tensor<i1>
        } do {
          %step = stablehlo.constant dense<1> : tensor<i32>
          %j1 = stablehlo.add %j, %step : tensor<i32>
          %unit = stablehlo.constant dense<1.0> : tensor<4xf32>
          %b1 = stablehlo.add %b, %unit : tensor<4xf32>
          stablehlo.return %j1, %b1 : tensor<i32>, tensor<4xf32>
        }
      stablehlo.return %i1, %in#1, %k : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    }
  return %r#1, %r#0, %r#2 : tensor<4xf32>, tensor<i32>, tensor<4xf32>
}
)";

TEST(LoopTest, ConstantsLeaveLoopBodiesAndResultsStay) {
  auto exe = CompileText(kNestedLoops);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const cpu::Program& p = *(*exe)->program;
  EXPECT_EQ(Count(p, "stablehlo.constant", true), 0) << "a constant is still computed inside a loop";
  EXPECT_GE(Count(p, "stablehlo.constant", false), 5);
  const std::vector<float> x = {0.25f, -1.0f, 8.0f, 3.5f};
  // Twice: the hoisted slots are filled again by the second run.
  for (int run = 0; run < 2; ++run) {
    cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kF32, {4}});
    std::memcpy(a.mutable_data(), x.data(), 16);
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(std::move(a)));
    auto out = (*exe)->Run(std::move(args), nullptr, nullptr, -1, nullptr, nullptr);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 3u);
    const float k[4] = {1, 2, 3, 4};
    for (int e = 0; e < 4; ++e) {
      float acc = x[e];
      for (int i = 0; i < 5; ++i) acc = acc * 0.5f + k[e] + 1.0f + 1.0f;
      EXPECT_EQ((*out)[0].array.as<float>()[e], acc) << "element " << e << ", run " << run;
      EXPECT_EQ((*out)[2].array.as<float>()[e], k[e]);
    }
    EXPECT_EQ((*out)[1].array.as<int32_t>()[0], 5);
  }
}

// Conditions of one compare over scalars are tested on the carried values in place (While's
// ScalarTest): against a hoisted constant, against a bound passed in from outside the loop, on a
// one-element tensor<1xui32> counter and on a float; a two-step condition runs as a region. Each
// loop's trip count must be the program's.
TEST(LoopTest, ScalarConditionsCountTheirTrips) {
  auto exe = CompileText(R"(
func.func @main(%n: tensor<i32>, %f: tensor<f32>) -> (tensor<i32>, tensor<1xui32>, tensor<f32>, tensor<i32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %a:2 = stablehlo.while(%i = %z, %k = %z) : tensor<i32>, tensor<i32>
    cond {
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %k1 = stablehlo.add %k, %three : tensor<i32>
      stablehlo.return %i1, %k1 : tensor<i32>, tensor<i32>
    }
  %uz = stablehlo.constant dense<0> : tensor<1xui32>
  %b = stablehlo.while(%u = %uz) : tensor<1xui32>
    cond {
      %lim = stablehlo.constant dense<7> : tensor<1xui32>
      %go = stablehlo.compare LE, %u, %lim, UNSIGNED : (tensor<1xui32>, tensor<1xui32>) -> tensor<1xi1>
      %g = stablehlo.reshape %go : (tensor<1xi1>) -> tensor<i1>
      stablehlo.return %g : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<1xui32>
      %u1 = stablehlo.add %u, %one : tensor<1xui32>
      stablehlo.return %u1 : tensor<1xui32>
    }
  %c = stablehlo.while(%x = %f) : tensor<f32>
    cond {
      %lim = stablehlo.constant dense<100.0> : tensor<f32>
      %go = stablehlo.compare LT, %x, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %two = stablehlo.constant dense<2.0> : tensor<f32>
      %x1 = stablehlo.multiply %x, %two : tensor<f32>
      stablehlo.return %x1 : tensor<f32>
    }
  return %a#1, %b, %c, %a#0 : tensor<i32>, tensor<1xui32>, tensor<f32>, tensor<i32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (int32_t n : {0, 1, 9}) {
    cpu::Array na = cpu::Array::Allocate({ir::ElemKind::kI32, {}});
    na.mutable_as<int32_t>()[0] = n;
    cpu::Array fa = cpu::Array::Allocate({ir::ElemKind::kF32, {}});
    fa.mutable_as<float>()[0] = 3.0f;
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(std::move(na)));
    args.push_back(cpu::RtValue::Of(std::move(fa)));
    auto out = (*exe)->Run(std::move(args));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].array.as<int32_t>()[0], 3 * n);
    EXPECT_EQ((*out)[3].array.as<int32_t>()[0], n);
    EXPECT_EQ((*out)[1].array.as<uint32_t>()[0], 8u);
    EXPECT_EQ((*out)[2].array.as<float>()[0], 192.0f);  // 3 * 2^6
  }
}

// Counters that the loop adds itself (i + c, a 32-bit scalar from outside, the sum only carried
// on): the value they start from is shared with other holders (an argument the caller still
// holds, returned too, and the start of a second loop) and must not change; the counter is read by
// other steps of the body; its operands come in either order; an unsigned counter wraps (the
// loop's only test is the counter reaching a value past 2^32). A counter whose sum the body reads
// too is left to its step.
TEST(LoopTest, CountersAddInPlaceWithoutTouchingSharedValues) {
  auto exe = CompileText(R"(
func.func @main(%xs: tensor<5xi32>, %start: tensor<i32>) -> (tensor<i32>, tensor<2xi32>, tensor<i32>, tensor<ui32>, tensor<2xi32>) {
  %z2 = stablehlo.constant dense<0> : tensor<2xi32>
  %r:2 = stablehlo.while(%i = %start, %acc = %z2) : tensor<i32>, tensor<2xi32>
    cond {
      %n = stablehlo.constant dense<5> : tensor<i32>
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %x = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<5xi32>, tensor<i32>) -> tensor<1xi32>
      %xr = stablehlo.reshape %x : (tensor<1xi32>) -> tensor<i32>
      %xb = stablehlo.broadcast_in_dim %xr, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %acc1 = stablehlo.add %acc, %xb : tensor<2xi32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %one, %i : tensor<i32>
      stablehlo.return %i1, %acc1 : tensor<i32>, tensor<2xi32>
    }
  %s:2 = stablehlo.while(%j = %start, %t = %z2) : tensor<i32>, tensor<2xi32>
    cond {
      %n = stablehlo.constant dense<6> : tensor<i32>
      %go = stablehlo.compare LT, %j, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %two = stablehlo.constant dense<2> : tensor<i32>
      %j1 = stablehlo.add %j, %two : tensor<i32>
      %jb = stablehlo.broadcast_in_dim %j1, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %t1 = stablehlo.add %t, %jb : tensor<2xi32>
      stablehlo.return %j1, %t1 : tensor<i32>, tensor<2xi32>
    }
  %big = stablehlo.constant dense<4294967295> : tensor<ui32>
  %u = stablehlo.while(%c = %big) : tensor<ui32>
    cond {
      %end = stablehlo.constant dense<2147483650> : tensor<ui32>
      %go = stablehlo.compare NE, %c, %end, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %inc = stablehlo.constant dense<2147483649> : tensor<ui32>
      %c1 = stablehlo.add %c, %inc : tensor<ui32>
      stablehlo.return %c1 : tensor<ui32>
    }
  return %r#0, %r#1, %start, %u, %s#1 : tensor<i32>, tensor<2xi32>, tensor<i32>, tensor<ui32>, tensor<2xi32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (int run = 0; run < 2; ++run) {
    cpu::Array xs = cpu::Array::Allocate({ir::ElemKind::kI32, {5}});
    const int32_t v[5] = {7, -2, 30, 4, 100};
    std::memcpy(xs.mutable_data(), v, sizeof(v));
    cpu::Array start = cpu::Array::Allocate({ir::ElemKind::kI32, {}});
    start.mutable_as<int32_t>()[0] = 0;
    const cpu::Array held = start;  // the caller's reference to the argument
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(std::move(xs)));
    args.push_back(cpu::RtValue::Of(std::move(start)));
    auto out = (*exe)->Run(std::move(args));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].array.as<int32_t>()[0], 5) << "run " << run;
    EXPECT_EQ((*out)[1].array.as<int32_t>()[1], 139) << "run " << run;
    EXPECT_EQ((*out)[2].array.as<int32_t>()[0], 0) << "the shared start value changed, run " << run;
    EXPECT_EQ(held.as<int32_t>()[0], 0) << "the caller's argument changed, run " << run;
    EXPECT_EQ((*out)[3].array.as<uint32_t>()[0], 0x80000002u) << "run " << run;  // 2^32 - 1 + 3 (2^31 + 1), wrapped
    EXPECT_EQ((*out)[4].array.as<int32_t>()[1], 2 + 4 + 6) << "run " << run;
  }
}

// The carried values stay in the body's argument slots between iterations; the body's results
// reach them in every pattern: two values swapped, one result returned for two values, a value
// captured from outside the loop, a value passed through, and one result the argument slot of
// another (g' = f while f' = f + 1).
TEST(LoopTest, ResultsReachTheCarriedValuesInAnyPattern) {
  auto exe = CompileText(R"(
func.func @main(%n: tensor<i32>, %out: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
                                                          tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %a0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b0 = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %c0 = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %d0 = stablehlo.constant dense<[7.0, 8.0]> : tensor<2xf32>
  %p0 = stablehlo.constant dense<[9.0, 10.0]> : tensor<2xf32>
  %r:9 = stablehlo.while(%i = %z, %a = %a0, %b = %b0, %c = %c0, %d = %d0, %e = %d0, %p = %p0, %f = %a0, %g = %b0)
      : tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>, tensor<2xf32>
    cond {
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %unit = stablehlo.constant dense<1.0> : tensor<2xf32>
      %t = stablehlo.add %d, %unit : tensor<2xf32>
      %f1 = stablehlo.add %f, %unit : tensor<2xf32>
      stablehlo.return %i1, %b, %a, %out, %t, %t, %p, %f1, %f : tensor<i32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
    }
  return %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
    tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (int32_t n : {0, 1, 2, 5}) {
    cpu::Array na = cpu::Array::Allocate({ir::ElemKind::kI32, {}});
    na.mutable_as<int32_t>()[0] = n;
    cpu::Array oa = cpu::Array::Allocate({ir::ElemKind::kF32, {2}});
    oa.mutable_as<float>()[0] = -1.0f;
    oa.mutable_as<float>()[1] = -2.0f;
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(std::move(na)));
    args.push_back(cpu::RtValue::Of(std::move(oa)));
    auto out = (*exe)->Run(std::move(args));
    ASSERT_TRUE(out.ok()) << out.status();
    const float x = static_cast<float>(n);
    const std::vector<std::vector<float>> want = {
        n % 2 ? std::vector<float>{3, 4} : std::vector<float>{1, 2},     // a (swapped n times)
        n % 2 ? std::vector<float>{1, 2} : std::vector<float>{3, 4},     // b
        n ? std::vector<float>{-1, -2} : std::vector<float>{5, 6},       // c (from outside)
        {7 + x, 8 + x}, {7 + x, 8 + x},                                  // d and e (one result)
        {9, 10},                                                         // p (passed through)
        {1 + x, 2 + x},                                                  // f
        n ? std::vector<float>{x, 1 + x} : std::vector<float>{3, 4}};    // g (f's last value)
    for (size_t r = 0; r < want.size(); ++r)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ((*out)[r].array.as<float>()[k], want[r][k]) << "n " << n << " result " << r << " element " << k;
  }
}

// A loop that never ends (its counter is not advanced) stops with RESOURCE_EXHAUSTED when the
// execution's step budget is spent, also where its condition is tested in place.
TEST(LoopTest, EndlessLoopsSpendTheStepBudget) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %z, %acc = %x) : tensor<i32>, tensor<f32>
    cond {
      %n = stablehlo.constant dense<5> : tensor<i32>
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1.0> : tensor<f32>
      %a = stablehlo.add %acc, %one : tensor<f32>
      stablehlo.return %i, %a : tensor<i32>, tensor<f32>
    }
  return %r#1 : tensor<f32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (int64_t budget : {0, 1, 2, 3, 1000}) {
    cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kF32, {}});
    a.mutable_as<float>()[0] = 1.0f;
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(std::move(a)));
    auto out = (*exe)->Run(std::move(args), nullptr, nullptr, budget);
    ASSERT_FALSE(out.ok()) << "budget " << budget;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted) << out.status();
  }
}

}  // namespace
}  // namespace openpjrt::runtime
