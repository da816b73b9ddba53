// Compile-time constants (compiler::FoldConstants): steps whose operands are all constants and
// whose kernels give the same bits at compile time become constants; the program's results stay
// those of the program as written.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/runtime/test_util.h"

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

}  // namespace
}  // namespace openpjrt::runtime
