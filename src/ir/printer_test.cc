#include "src/ir/printer.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "src/ir/parser.h"

namespace openpjrt::ir {
namespace {

TEST(Printer, FormatFloatIsShortestAndReadsBack) {
  EXPECT_EQ(FormatFloat(1.0, ElemKind::kF64), "1.0");
  EXPECT_EQ(FormatFloat(0.1, ElemKind::kF64), "0.1");
  EXPECT_EQ(FormatFloat(0.1f, ElemKind::kF32), "0.1");
  EXPECT_EQ(FormatFloat(-0.0, ElemKind::kF32), "-0.0");
  EXPECT_EQ(FormatFloat(INFINITY, ElemKind::kF32), "0x7F800000");
  EXPECT_EQ(FormatFloat(-INFINITY, ElemKind::kF16), "0xFC00");
  EXPECT_EQ(FormatFloat(NAN, ElemKind::kBF16), "0x7FC0");
  // Finite as a double, infinite as the f32 it is printed as (found by the fuzzer: `inf.0`).
  EXPECT_EQ(FormatFloat(1e39, ElemKind::kF32), "0x7F800000");
  EXPECT_EQ(FormatFloat(-1e39, ElemKind::kF32), "0xFF800000");
}

TEST(Printer, OutOfRangeF32ArrayElementsReadBack) {
  const char* src = R"(
func.func @f() -> tensor<f32> attributes {a = array<f32: 1.5, 1e39, -1e300>} {
  %0 = stablehlo.constant dense<0.0> : tensor<f32>
  return %0 : tensor<f32>
})";
  auto m = ParseModule(src);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string printed = PrintModule(**m);
  EXPECT_NE(printed.find("array<f32: 1.5, 0x7F800000, 0xFF800000>"), std::string::npos) << printed;
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again), printed);
}

TEST(Printer, PrettyAndGenericFormsAgree) {
  const char* src = R"(
func.func @main(%a: tensor<4xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
})";
  auto m = ParseModule(src);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string pretty = PrintModule(**m);
  std::string generic = PrintModule(**m, {.generic = true});
  EXPECT_NE(pretty.find("applies stablehlo.add"), std::string::npos) << pretty;
  EXPECT_NE(generic.find("\"stablehlo.reduce\"("), std::string::npos) << generic;
  auto from_generic = ParseModule(generic);
  ASSERT_TRUE(from_generic.ok()) << from_generic.status();
  EXPECT_EQ(PrintModule(**from_generic), pretty);
}

// Ops inside an unknown op's region are not verified, so their counts may contradict the op
// table; the printer must then use the generic form, which reads back (found by the fuzzer).
TEST(Printer, UnverifiedOpsWithOddCountsPrintGeneric) {
  const char* src = R"(
"other.op"() ({
  %s = "stablehlo.add"() : () -> (f32)
  %r = "func.return"() : () -> (f32)
}) : () -> ()
)";
  auto m = ParseModule(src);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string printed = PrintModule(**m);
  EXPECT_NE(printed.find("\"func.return\"()"), std::string::npos) << printed;
  EXPECT_NE(printed.find("\"stablehlo.add\"()"), std::string::npos) << printed;
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again), printed);
}

// A propagation barrier whose direction the pretty form cannot spell (read from the generic
// attribute, which may hold anything) prints generically and reads back; the three directions
// print pretty (found by the fuzzer: `allowed_direction=NON+`).
TEST(Printer, PropagationBarriersWithOtherDirectionsPrintGeneric) {
  for (const std::string dir : {"FORWARD", "BACKWARD", "NONE", "NON+", "forward"}) {
    const std::string src = R"(
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "sdy.propagation_barrier"(%x) {allowed_direction = #sdy<propagation_direction )" + dir + R"(>} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
})";
    auto m = ParseModule(src);
    ASSERT_TRUE(m.ok()) << m.status();
    const std::string printed = PrintModule(**m);
    const bool known = dir == "FORWARD" || dir == "BACKWARD" || dir == "NONE";
    EXPECT_EQ(printed.find("allowed_direction=" + dir) != std::string::npos, known) << printed;
    auto again = ParseModule(printed);
    ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
    EXPECT_EQ(PrintModule(**again), printed);
  }
}

TEST(Printer, LargeConstantsPrintAsHex) {
  std::string src = "func.func @f() -> tensor<300xi8> {\n  %0 = stablehlo.iota dim = 0 : tensor<300xi8>\n"
                    "  %1 = stablehlo.constant dense<7> : tensor<300xi8>\n  return %1 : tensor<300xi8>\n}\n";
  auto m = ParseModule(src);
  ASSERT_TRUE(m.ok());
  EXPECT_NE(PrintModule(**m).find("dense<7> : tensor<300xi8>"), std::string::npos);  // splat stays
  std::string list = "dense<[";
  for (int i = 0; i < 300; ++i) list += (i ? ", " : "") + std::to_string(i % 100);
  list += "]>";
  auto m2 = ParseModule("func.func @f() {\n %0 = stablehlo.constant " + list +
                        " : tensor<300xi8>\n return\n}\n");
  ASSERT_TRUE(m2.ok()) << m2.status();
  std::string printed = PrintModule(**m2);
  EXPECT_NE(printed.find("dense<\"0x00010203"), std::string::npos);
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(PrintModule(**again), printed);
}

}  // namespace
}  // namespace openpjrt::ir
