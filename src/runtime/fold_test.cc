// Compile-time constants (compiler::FoldConstants): steps whose operands are all constants and
// whose kernels give the same bits at compile time become constants; the program's results stay
// those of the program as written.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/runtime/test_util.h"
#include "src/support/str.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;

std::vector<std::string> StepNames(const cpu::Program& p) {
  std::vector<std::string> names;
  for (const cpu::Step& s : p.steps) names.push_back(s.name + (s.fn == cpu::ConstantKernel() ? " [constant]" : ""));
  return names;
}

bool Has(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names)
    if (n == name) return true;
  return false;
}

// JAX's lower-triangle mask (two iotas, an add of a zero and a compare) and a transposed constant
// table fold; the select that reads the mask and the argument, and float arithmetic on
// constants, stay.
TEST(FoldTest, MasksFromIotasBecomeConstants) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<3x2xi32>, tensor<4xf32>) {
  %i = stablehlo.iota dim = 0 : tensor<5x5xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<i32>) -> tensor<5x5xi32>
  %r = stablehlo.add %i, %zb : tensor<5x5xi32>
  %j = stablehlo.iota dim = 1 : tensor<5x5xi32>
  %m = stablehlo.compare GE, %r, %j, SIGNED : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<5x5xf32>
  %out = stablehlo.select %m, %x, %zero : tensor<5x5xi1>, tensor<5x5xf32>
  %t = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %tt = stablehlo.transpose %t, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %f = stablehlo.constant dense<[1.0e-20, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %g = stablehlo.multiply %f, %f : tensor<4xf32>
  return %out, %tt, %g : tensor<5x5xf32>, tensor<3x2xi32>, tensor<4xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::vector<std::string> names = StepNames(*(*exe)->program);
  std::string all;
  for (const std::string& n : names) all += "\n  " + n;
  EXPECT_TRUE(Has(names, "stablehlo.compare [constant]")) << all;
  EXPECT_TRUE(Has(names, "stablehlo.transpose [constant]")) << all;
  EXPECT_FALSE(Has(names, "stablehlo.iota")) << all;  // folded into the mask, then dropped
  EXPECT_FALSE(Has(names, "stablehlo.multiply [constant]")) << all;  // float arithmetic stays
  for (const std::string& n : names) EXPECT_EQ(n.find("select [constant]"), std::string::npos) << all;
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {5, 5}});
  for (int i = 0; i < 25; ++i) x.mutable_as<float>()[i] = static_cast<float>(i + 1);
  std::vector<cpu::RtValue> args;
  args.push_back(cpu::RtValue::Of(std::move(x)));
  // Twice: a folded constant is shared by the runs, not consumed.
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->Run(args);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 5; ++c)
        EXPECT_EQ((*out)[0].array.as<float>()[r * 5 + c], r >= c ? static_cast<float>(r * 5 + c + 1) : 0.0f);
    const std::vector<int32_t> want = {1, 4, 2, 5, 3, 6};
    EXPECT_EQ(std::memcmp((*out)[1].array.data(), want.data(), 24), 0);
    EXPECT_EQ((*out)[2].array.as<float>()[3], 16.0f);
  }
}

// Results larger than 1 MiB stay steps (the executable would hold them); so do steps whose
// operands are all splats (fused runs read those as one element) and steps reading an argument.
TEST(FoldTest, LargeResultsSplatsAndArgumentsStay) {
  auto exe = CompileText(R"(
func.func @main(%a: tensor<i32>) -> (tensor<512x1024xi32>, tensor<4x4xi32>, tensor<4xi32>) {
  %big = stablehlo.iota dim = 1 : tensor<512x1024xi32>
  %one = stablehlo.constant dense<1> : tensor<4x4xi32>
  %two = stablehlo.constant dense<2> : tensor<4x4xi32>
  %s = stablehlo.add %one, %two : tensor<4x4xi32>
  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %ab = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<i32>) -> tensor<4xi32>
  %p = stablehlo.add %i, %ab : tensor<4xi32>
  return %big, %s, %p : tensor<512x1024xi32>, tensor<4x4xi32>, tensor<4xi32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::vector<std::string> names = StepNames(*(*exe)->program);
  std::string all;
  for (const std::string& n : names) all += "\n  " + n;
  EXPECT_TRUE(Has(names, "stablehlo.iota")) << all;  // 2 MiB
  EXPECT_FALSE(Has(names, "stablehlo.add [constant]")) << all;
  cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kI32, {}});
  a.mutable_as<int32_t>()[0] = 10;
  std::vector<cpu::RtValue> args;
  args.push_back(cpu::RtValue::Of(std::move(a)));
  auto out = (*exe)->Run(std::move(args));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].array.as<int32_t>()[1023], 1023);
  EXPECT_EQ((*out)[1].array.as<int32_t>()[15], 3);
  EXPECT_EQ((*out)[2].array.as<int32_t>()[3], 13);
}

// x[:, i] of JAX (a dynamic_slice of one column, then a reshape) and a strided slice reshaped:
// the reshapes fold into the slices, which write their windows (not contiguous in the source)
// in the reshapes' types. A reshape of a slice that something else reads too stays.
TEST(FoldTest, ReshapesOfSlicesFoldIntoThem) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<4x6xf32>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>, tensor<6xf32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %c = stablehlo.dynamic_slice %x, %z, %i, sizes = [4, 1] : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<4x1xf32>
  %cr = stablehlo.reshape %c : (tensor<4x1xf32>) -> tensor<4xf32>
  %s = stablehlo.slice %x [1:4:2, 0:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>
  %sr = stablehlo.reshape %s : (tensor<2x3xf32>) -> tensor<6xf32>
  %t = stablehlo.slice %x [0:3, 4:6] : (tensor<4x6xf32>) -> tensor<3x2xf32>
  %tr = stablehlo.reshape %t : (tensor<3x2xf32>) -> tensor<6xf32>
  %u = stablehlo.add %tr, %sr : tensor<6xf32>
  %v = stablehlo.slice %x [0:4:2, 1:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>
  %vr = stablehlo.reshape %v : (tensor<2x3xf32>) -> tensor<6xf32>
  return %cr, %s, %u, %t, %vr : tensor<4xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>, tensor<6xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  int reshapes = 0;
  for (const cpu::Step& st : (*exe)->program->steps) reshapes += st.fn == cpu::ReshapeKernel();
  EXPECT_EQ(reshapes, 2);  // %sr (its slice is a result too) and %tr (its slice is read twice)
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {4, 6}});
  for (int k = 0; k < 24; ++k) x.mutable_as<float>()[k] = static_cast<float>(k);
  cpu::Array i = cpu::Array::Allocate({ir::ElemKind::kI32, {}});
  i.mutable_as<int32_t>()[0] = 4;
  std::vector<cpu::RtValue> args;
  args.push_back(cpu::RtValue::Of(std::move(x)));
  args.push_back(cpu::RtValue::Of(std::move(i)));
  auto out = (*exe)->Run(std::move(args));
  ASSERT_TRUE(out.ok()) << out.status();
  const float* col = (*out)[0].array.as<float>();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(col[r], static_cast<float>(r * 6 + 4));
  const float* s = (*out)[1].array.as<float>();
  const float want_s[6] = {6, 8, 10, 18, 20, 22};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(s[k], want_s[k]);
  const float* u = (*out)[2].array.as<float>();
  const float want_t[6] = {4, 5, 10, 11, 16, 17};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(u[k], want_t[k] + want_s[k]);
  const float want_v[6] = {1, 3, 5, 13, 15, 17};
  for (int k = 0; k < 6; ++k) EXPECT_EQ((*out)[4].array.as<float>()[k], want_v[k]);
}

// A reshape of a column slice as the only reader, in a loop body (the scan's x[t]): folded there.
TEST(FoldTest, ReshapesFoldInsideLoopBodies) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<3x5xf32>) -> tensor<3xf32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %acc0 = stablehlo.constant dense<0.0> : tensor<3xf32>
  %r:2 = stablehlo.while(%i = %z, %acc = %acc0) : tensor<i32>, tensor<3xf32>
    cond {
      %n = stablehlo.constant dense<5> : tensor<i32>
      %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %c = stablehlo.dynamic_slice %x, %z, %i, sizes = [3, 1] : (tensor<3x5xf32>, tensor<i32>, tensor<i32>) -> tensor<3x1xf32>
      %cr = stablehlo.reshape %c : (tensor<3x1xf32>) -> tensor<3xf32>
      %a = stablehlo.add %acc, %cr : tensor<3xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %a : tensor<i32>, tensor<3xf32>
    }
  return %r#1 : tensor<3xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (const cpu::Step& st : (*exe)->program->steps)
    for (const auto& region : st.regions)
      for (const cpu::Step& inner : region->steps) EXPECT_NE(inner.fn, cpu::ReshapeKernel()) << inner.name;
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {3, 5}});
  for (int k = 0; k < 15; ++k) x.mutable_as<float>()[k] = static_cast<float>(k);
  std::vector<cpu::RtValue> args;
  args.push_back(cpu::RtValue::Of(std::move(x)));
  auto out = (*exe)->Run(std::move(args));
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 3; ++r) EXPECT_EQ((*out)[0].array.as<float>()[r], static_cast<float>(5 * 5 * r + 10));
}

// A product whose operand is a transpose reads the transpose's operand in place, its dimension
// numbers renumbered (compiler::FoldTransposes), and the transpose step goes when nothing else
// reads it: the bits of the product of the transposed value (here made by a double negation,
// which no fold sees through). Free dimensions that the permutation reorders would change the
// result's layout: that transpose stays.
TEST(FoldTest, ProductsReadTransposedOperandsInPlace) {
  struct Case {
    const char* name;
    const char* args;  // %a and %b
    const char* ta;    // "%ta = transpose %a ..." and its type, or "" when the product reads %a
    const char* ta_type;
    const char* tb;
    const char* tb_type;
    const char* product;  // "dot_general LHS, RHS, ...", LHS and RHS standing for the operands
    const char* result;
    bool folds;
  };
  const Case cases[] = {
      {"g @ w.T", "%a: tensor<24x40xf32>, %b: tensor<56x40xf32>", "", "",
       "stablehlo.transpose %b, dims = [1, 0] : (tensor<56x40xf32>) -> tensor<40x56xf32>", "tensor<40x56xf32>",
       "contracting_dims = [1] x [0] : (tensor<24x40xf32>, tensor<40x56xf32>)", "tensor<24x56xf32>", true},
      {"x.T @ g", "%a: tensor<40x24xf32>, %b: tensor<40x56xf32>",
       "stablehlo.transpose %a, dims = [1, 0] : (tensor<40x24xf32>) -> tensor<24x40xf32>", "tensor<24x40xf32>", "", "",
       "contracting_dims = [1] x [0] : (tensor<24x40xf32>, tensor<40x56xf32>)", "tensor<24x56xf32>", true},
      {"both, batched", "%a: tensor<5x3x9xf32>, %b: tensor<7x9x3xf32>",
       "stablehlo.transpose %a, dims = [1, 0, 2] : (tensor<5x3x9xf32>) -> tensor<3x5x9xf32>", "tensor<3x5x9xf32>",
       "stablehlo.transpose %b, dims = [2, 1, 0] : (tensor<7x9x3xf32>) -> tensor<3x9x7xf32>", "tensor<3x9x7xf32>",
       "batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x5x9xf32>, tensor<3x9x7xf32>)",
       "tensor<3x5x7xf32>", true},
      {"free dimensions reordered", "%a: tensor<3x4x6xf32>, %b: tensor<6x5xf32>",
       "stablehlo.transpose %a, dims = [1, 0, 2] : (tensor<3x4x6xf32>) -> tensor<4x3x6xf32>", "tensor<4x3x6xf32>", "",
       "", "contracting_dims = [2] x [0] : (tensor<4x3x6xf32>, tensor<6x5xf32>)", "tensor<4x3x5xf32>", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    // reference: each transposed value negated twice (which no fold sees through) first.
    auto program = [&](bool reference) {
      std::string text = StrCat("func.func @main(", c.args, ") -> ", c.result, " {\n");
      std::string operands[2] = {"%a", "%b"};
      const char* transposes[2][2] = {{c.ta, c.ta_type}, {c.tb, c.tb_type}};
      for (int i = 0; i < 2; ++i) {
        if (!*transposes[i][0]) continue;
        const std::string t = StrCat(operands[i], "t");
        StrAppend(&text, "  ", t, " = ", transposes[i][0], "\n");
        operands[i] = t;
        if (reference) {
          StrAppend(&text, "  ", t, "n = stablehlo.negate ", t, " : ", transposes[i][1], "\n  ", t,
                    "m = stablehlo.negate ", t, "n : ", transposes[i][1], "\n");
          operands[i] = StrCat(t, "m");
        }
      }
      return StrCat(text, "  %p = stablehlo.dot_general ", operands[0], ", ", operands[1], ", ", c.product, " -> ",
                    c.result, "\n  return %p : ", c.result, "\n}\n");
    };
    auto a = CompileText(program(false));
    ASSERT_TRUE(a.ok()) << a.status() << "\n" << program(false);
    auto b = CompileText(program(true));
    ASSERT_TRUE(b.ok()) << b.status() << "\n" << program(true);
    EXPECT_EQ(Has(StepNames(*(*a)->program), "stablehlo.transpose"), !c.folds) << program(false);
    std::vector<cpu::RtValue> args;
    for (size_t i = 0; i < 2; ++i) {
      cpu::Array x = cpu::Array::Allocate((*a)->arg_types[i]);
      for (int64_t e = 0; e < x.NumElements(); ++e)
        x.mutable_as<float>()[e] = static_cast<float>((e * 37 + 11 * static_cast<int64_t>(i)) % 101) / 7.3f - 6.1f;
      args.push_back(cpu::RtValue::Of(std::move(x)));
    }
    auto ra = (*a)->Run(args);
    auto rb = (*b)->Run(args);
    ASSERT_TRUE(ra.ok() && rb.ok()) << ra.status() << rb.status();
    const cpu::Array &x = (*ra)[0].array, &y = (*rb)[0].array;
    ASSERT_EQ(x.dims(), y.dims());
    EXPECT_EQ(std::memcmp(x.data(), y.data(), static_cast<size_t>(x.ByteSize())), 0);
  }
}

// Inside a loop body too: a product reading a transpose's operand leaves no transpose step, and a
// scatter into a broadcast of a scalar argument leaves no broadcast step (both would otherwise run,
// unread, at every iteration); the results are those of the loop written out by hand.
TEST(FoldTest, LoopBodiesDropWhatTheirProductsAndScattersNoLongerRead) {
  auto exe = CompileText(R"(
func.func @main(%w: tensor<8x8xf32>, %s: tensor<f32>, %i: tensor<3x1xi32>) -> (tensor<8xf32>, tensor<5x8xf32>) {
  %h0 = stablehlo.constant dense<1.0> : tensor<8xf32>
  %z0 = stablehlo.constant dense<0.0> : tensor<5x8xf32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%h = %h0, %acc = %z0, %c = %c0) : tensor<8xf32>, tensor<5x8xf32>, tensor<i32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %c, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %wt = stablehlo.transpose %w, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %hn = stablehlo.dot_general %h, %wt, contracting_dims = [0] x [0] : (tensor<8xf32>, tensor<8x8xf32>) -> tensor<8xf32>
    %zb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<5x8xf32>
    %u = stablehlo.broadcast_in_dim %hn, dims = [1] : (tensor<8xf32>) -> tensor<3x8xf32>
    %sc = "stablehlo.scatter"(%zb, %i, %u) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %x = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %x : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<5x8xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %cn = stablehlo.add %c, %one : tensor<i32>
    stablehlo.return %hn, %sc, %cn : tensor<8xf32>, tensor<5x8xf32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<5x8xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  const cpu::Step* loop = nullptr;
  for (const cpu::Step& s : (*exe)->program->steps)
    if (s.regions.size() == 2) loop = &s;
  ASSERT_NE(loop, nullptr);
  const std::vector<std::string> body = StepNames(*loop->regions[1]);
  std::string all;
  for (const std::string& n : body) all += "\n  " + n;
  EXPECT_FALSE(Has(body, "stablehlo.transpose")) << all;
  // The updates' broadcast of h stays (the scatter reads it); the scatter's operand goes.
  int broadcasts = 0;
  for (const cpu::Step& b : loop->regions[1]->steps) {
    if (b.name != "stablehlo.broadcast_in_dim") continue;
    ++broadcasts;
    bool read = false;
    for (const cpu::Step& r : loop->regions[1]->steps)
      for (int in : r.in) read = read || in == b.out[0];
    EXPECT_TRUE(read) << "an unread broadcast runs at every iteration:" << all;
  }
  EXPECT_EQ(broadcasts, 1) << all;
  cpu::Array w = cpu::Array::Allocate({ir::ElemKind::kF32, {8, 8}});
  for (int k = 0; k < 64; ++k) w.mutable_as<float>()[k] = static_cast<float>((k * 5) % 7 - 3) / 4.0f;
  cpu::Array s = cpu::Array::Allocate({ir::ElemKind::kF32, {}});
  s.mutable_as<float>()[0] = 0.5f;
  cpu::Array i = cpu::Array::Allocate({ir::ElemKind::kI32, {3, 1}});
  const int32_t rows[3] = {4, 1, 4};
  std::memcpy(i.mutable_data(), rows, sizeof rows);
  auto out = (*exe)->Run({cpu::RtValue::Of(w), cpu::RtValue::Of(s), cpu::RtValue::Of(i)});
  ASSERT_TRUE(out.ok()) << out.status();
  // By hand: h <- h W^T three times (exact in these quarters); the last iteration's scatter: s
  // everywhere, h added once into row 1 and twice into row 4.
  std::vector<float> h(8, 1.0f);
  for (int it = 0; it < 3; ++it) {
    std::vector<float> next(8, 0.0f);
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 8; ++k) next[j] += h[k] * w.as<float>()[j * 8 + k];
    h = next;
  }
  for (int j = 0; j < 8; ++j) EXPECT_EQ((*out)[0].array.as<float>()[j], h[j]) << j;
  for (int r = 0; r < 5; ++r)
    for (int j = 0; j < 8; ++j) {
      const float want = r == 4 ? 0.5f + h[j] + h[j] : r == 1 ? 0.5f + h[j] : 0.5f;
      EXPECT_EQ((*out)[1].array.as<float>()[r * 8 + j], want) << r << "," << j;
    }
}

// A division by a broadcast (f16, f32, f64) is a product with the reciprocal of the broadcast's
// operand, as XLA computes it (compiler::DivideByReciprocals): x * (1 / s), bit for bit, where
// IEEE division differs in the last place. Divisions of full arrays, by constants and in bf16
// stay divisions.
TEST(FoldTest, DivisionsByBroadcastsAreProductsWithReciprocals) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<6x5xf32>, %s: tensor<6xf32>, %y: tensor<6x5xf64>, %t: tensor<f64>, %u: tensor<6x5xf32>)
    -> (tensor<6x5xf32>, tensor<6x5xf64>, tensor<6x5xf32>, tensor<6x5xf32>) {
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<6xf32>) -> tensor<6x5xf32>
  %a = stablehlo.divide %x, %sb : tensor<6x5xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f64>) -> tensor<6x5xf64>
  %b = stablehlo.divide %y, %tb : tensor<6x5xf64>
  %c = stablehlo.divide %x, %u : tensor<6x5xf32>
  %k = stablehlo.constant dense<3.0> : tensor<6x5xf32>
  %d = stablehlo.divide %x, %k : tensor<6x5xf32>
  return %a, %b, %c, %d : tensor<6x5xf32>, tensor<6x5xf64>, tensor<6x5xf32>, tensor<6x5xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {6, 5}});
  cpu::Array s = cpu::Array::Allocate({ir::ElemKind::kF32, {6}});
  cpu::Array y = cpu::Array::Allocate({ir::ElemKind::kF64, {6, 5}});
  cpu::Array t = cpu::Array::Allocate({ir::ElemKind::kF64, {}});
  cpu::Array u = cpu::Array::Allocate({ir::ElemKind::kF32, {6, 5}});
  for (int i = 0; i < 30; ++i) {
    x.mutable_as<float>()[i] = static_cast<float>(i) * 0.37f - 5.0f;
    y.mutable_as<double>()[i] = static_cast<double>(i) * 0.61 - 7.0;
    u.mutable_as<float>()[i] = 0.3f + static_cast<float>(i % 7) * 0.9f;
  }
  for (int r = 0; r < 6; ++r) s.mutable_as<float>()[r] = 0.7f + static_cast<float>(r) * 1.3f;
  t.mutable_as<double>()[0] = 0.9;
  auto out = (*exe)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(s), cpu::RtValue::Of(y), cpu::RtValue::Of(t),
                          cpu::RtValue::Of(u)});
  ASSERT_TRUE(out.ok()) << out.status();
  int differ_f32 = 0, differ_f64 = 0;  // elements where the product is not the IEEE quotient
  for (int i = 0; i < 30; ++i) {
    const float xi = x.as<float>()[i], si = s.as<float>()[i / 5];
    const double yi = y.as<double>()[i], ti = t.as<double>()[0];
    EXPECT_EQ((*out)[0].array.as<float>()[i], xi * (1.0f / si)) << i;
    EXPECT_EQ((*out)[1].array.as<double>()[i], yi * (1.0 / ti)) << i;
    EXPECT_EQ((*out)[2].array.as<float>()[i], xi / u.as<float>()[i]) << i;
    EXPECT_EQ((*out)[3].array.as<float>()[i], xi / 3.0f) << i;
    differ_f32 += xi * (1.0f / si) != xi / si;
    differ_f64 += yi * (1.0 / ti) != yi / ti;
  }
  EXPECT_GT(differ_f32, 0) << "the data cannot tell the product from the quotient";
  EXPECT_GT(differ_f64, 0) << "the data cannot tell the product from the quotient";
  auto bf16 = CompileText(R"(
func.func @main(%x: tensor<4x8xbf16>, %s: tensor<4xbf16>) -> tensor<4x8xbf16> {
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xbf16>) -> tensor<4x8xbf16>
  %a = stablehlo.divide %x, %sb : tensor<4x8xbf16>
  return %a : tensor<4x8xbf16>
})");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_TRUE(Has(StepNames(*(*bf16)->program), "stablehlo.divide")) << ::testing::PrintToString(StepNames(*(*bf16)->program));
}

// A broadcast_in_dim that only adds dimensions of size 1 ([R] -> [R, 1], JAX's keepdims) keeps
// its operand's storage (a reshape), and its values are the operand's.
TEST(FoldTest, BroadcastsAddingUnitDimensionsAreReshapes) {
  auto exe = CompileText(R"(
func.func @main(%s: tensor<5xf32>) -> tensor<5x1xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
  return %b : tensor<5x1xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->program->steps.size(), 1u);
  EXPECT_EQ((*exe)->program->steps[0].fn, cpu::ReshapeKernel());
  cpu::Array s = cpu::Array::Allocate({ir::ElemKind::kF32, {5}});
  for (int i = 0; i < 5; ++i) s.mutable_as<float>()[i] = 1.5f * static_cast<float>(i) - 2.0f;
  auto out = (*exe)->Run({cpu::RtValue::Of(s)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].array.dims(), (std::vector<int64_t>{5, 1}));
  for (int i = 0; i < 5; ++i) EXPECT_EQ((*out)[0].array.as<float>()[i], s.as<float>()[i]) << i;
}

}  // namespace
}  // namespace openpjrt::runtime
