#include "src/ir/verifier.h"

#include "gtest/gtest.h"
#include "src/ir/parser.h"

namespace openpjrt::ir {
namespace {

absl::Status Check(const std::string& src) {
  auto m = ParseModule(src, {.source_name = "t.mlir"});
  if (!m.ok()) return m.status();
  return VerifyModule(**m);
}

TEST(Verifier, AcceptsAValidProgram) {
  EXPECT_TRUE(Check(R"(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.tanh %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
})").ok());
}

TEST(Verifier, ErrorNamesLocationAndOp) {
  absl::Status s = Check(R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
  %1 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
})");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "t.mlir:2:8: error: 'stablehlo.reshape' op operand has 6 elements but the result has 5");
}

TEST(Verifier, DynamicDimensionsAreCompatible) {
  EXPECT_TRUE(Check(R"(
func.func @main(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
})").ok());
}

}  // namespace
}  // namespace openpjrt::ir
