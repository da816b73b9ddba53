#include "src/ir/parser.h"

#include <cstring>

#include "gtest/gtest.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"

namespace openpjrt::ir {
namespace {

// Parses `func.func @f() { %0 = stablehlo.constant LITERAL ; return }` and returns the value.
Attribute ConstantOf(const std::string& literal, std::shared_ptr<Context> ctx = nullptr) {
  std::string src = "func.func @f() {\n  %0 = stablehlo.constant " + literal + "\n  return\n}\n";
  auto m = ParseModule(src, {}, ctx);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  static std::vector<std::unique_ptr<Module>> keep;  // attributes reference the context
  keep.push_back(std::move(*m));
  const Operation* f = keep.back()->body()->ops[0].get();
  return f->regions[0]->front()->ops[0]->attr("value");
}

template <typename T>
std::vector<T> Values(const Attribute& a) {
  std::vector<T> out(a->type.NumElements());
  for (size_t i = 0; i < out.size(); ++i)
    std::memcpy(&out[i], a->data->data() + (a->splat ? 0 : i * sizeof(T)), sizeof(T));
  return out;
}

TEST(Parser, DenseIntegers) {
  EXPECT_EQ(Values<int32_t>(ConstantOf("dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>")),
            (std::vector<int32_t>{1, -2, 3, 4}));
  EXPECT_EQ(Values<int8_t>(ConstantOf("dense<[255, -128]> : tensor<2xi8>")),
            (std::vector<int8_t>{-1, -128}));
  EXPECT_EQ(Values<uint64_t>(ConstantOf("dense<18446744073709551615> : tensor<ui64>")),
            (std::vector<uint64_t>{UINT64_MAX}));
  // Sub-byte integers are sign-extended into their byte.
  EXPECT_EQ(Values<int8_t>(ConstantOf("dense<[-8, 7, 15]> : tensor<3xi4>")),
            (std::vector<int8_t>{-8, 7, -1}));
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<[true, false]> : tensor<2xi1>")),
            (std::vector<uint8_t>{1, 0}));
}

TEST(Parser, DenseFloatsRoundInTheElementType) {
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<0.1> : tensor<f8E4M3FN>")), (std::vector<uint8_t>{0x1D}));
  EXPECT_EQ(Values<uint16_t>(ConstantOf("dense<[1.0, 0x7C00]> : tensor<2xf16>")),
            (std::vector<uint16_t>{0x3C00, 0x7C00}));
  EXPECT_EQ(Values<float>(ConstantOf("dense<0.1> : tensor<f32>")), (std::vector<float>{0.1f}));
  EXPECT_EQ(Values<double>(ConstantOf("dense<0.1> : tensor<f64>")), (std::vector<double>{0.1}));
  // A decimal just above a tie rounds up even though its double is exactly the tie.
  // 1.0625 is halfway between two e4m3 values; the longer decimals are not, though they
  // read as exactly 1.0625 in double (and the last one in long double too).
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<1.0625> : tensor<f8E4M3FN>")), (std::vector<uint8_t>{0x38}));
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<1.0625000000000000001> : tensor<f8E4M3FN>")),
            (std::vector<uint8_t>{0x39}));
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<1.06250000000000000000000001> : tensor<f8E4M3FN>")),
            (std::vector<uint8_t>{0x39}));
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<1.06249999999999999999999999> : tensor<f8E4M3FN>")),
            (std::vector<uint8_t>{0x38}));
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<-1.06250000000000000000000001> : tensor<f8E4M3FN>")),
            (std::vector<uint8_t>{0xB9}));
  EXPECT_EQ(Values<uint8_t>(ConstantOf("dense<10625e-4> : tensor<f8E4M3FN>")),
            (std::vector<uint8_t>{0x38}));
}

TEST(Parser, HexBlobsAndSplats) {
  Attribute blob = ConstantOf("dense<\"0x0000803F00000040\"> : tensor<2xf32>");
  EXPECT_FALSE(blob->splat);
  EXPECT_EQ(Values<float>(blob), (std::vector<float>{1.0f, 2.0f}));
  Attribute splat = ConstantOf("dense<\"0x0000803F\"> : tensor<3xf32>");
  EXPECT_TRUE(splat->splat);
  EXPECT_EQ(Values<float>(splat), (std::vector<float>{1.0f, 1.0f, 1.0f}));
  Attribute c = ConstantOf("dense<[(1.0, -2.0)]> : tensor<1xcomplex<f32>>");
  EXPECT_EQ(Values<float>(Attribute::Dense(c->type, c->data, false)).size(), 1u);
  float parts[2];
  std::memcpy(parts, c->data->data(), 8);
  EXPECT_EQ(parts[0], 1.0f);
  EXPECT_EQ(parts[1], -2.0f);
}

TEST(Parser, StandaloneAttributes) {
  Context ctx;
  auto a = ParseAttributeText("[dense<[1, 2]> : tensor<2xi32>, dense<1.5> : tensor<f32>] // two", ctx);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->kind(), AttrKind::kArray);
  ASSERT_EQ((*a)->elements.size(), 2u);
  EXPECT_EQ(Values<int32_t>((*a)->elements[0]), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(Values<float>((*a)->elements[1]), (std::vector<float>{1.5f}));
  ParseOptions opts;
  opts.source_name = "args";
  auto trailing = ParseAttributeText("[dense<1> : tensor<i8>] x", ctx, opts);
  ASSERT_FALSE(trailing.ok());
  EXPECT_NE(trailing.status().message().find("args:1:25: error: expected the end of the attribute"), std::string::npos)
      << trailing.status();
  auto bad = ParseAttributeText("[dense<300> : tensor<i8>]", ctx, opts);
  EXPECT_FALSE(bad.ok());
}

TEST(Parser, TypesAreInterned) {
  auto ctx = std::make_shared<Context>();
  Attribute a = ConstantOf("dense<1.0> : tensor<2x3xf32>", ctx);
  Attribute b = ConstantOf("dense<2.0> : tensor<2x3xf32>", ctx);
  EXPECT_EQ(a->type, b->type);
  int64_t shape[] = {2, 3};
  EXPECT_EQ(a->type, ctx->Tensor(shape, ctx->Element(ElemKind::kF32)));
  EXPECT_EQ(a->type.ToString(), "tensor<2x3xf32>");
}

TEST(Parser, ErrorsNameFileLineAndColumn) {
  auto m = ParseModule("func.func @f() {\n  %0 = stablehlo.bogus\n}\n", {.source_name = "prog.mlir"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(m.status().message()).rfind("prog.mlir:2:8: error: unknown operation", 0), 0u)
      << m.status();
}

TEST(Parser, SplitInputFileKeepsLineNumbers) {
  std::string text = "a\n// -----\nb\nc\n// -----\nd";
  auto chunks = SplitInputFile(text);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].text, "a\n");
  EXPECT_EQ(chunks[1].text, "b\nc\n");
  EXPECT_EQ(chunks[1].first_line, 3u);
  EXPECT_EQ(chunks[2].text, "d");
  EXPECT_EQ(chunks[2].first_line, 6u);
  auto m = ParseModule("%0 = bogus", {.source_name = "x", .first_line = 6});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(std::string(m.status().message()).find("x:6:"), std::string::npos);
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "func.func @f() attributes {a = " + std::string(100000, '[') + "} {\n return\n}";
  auto m = ParseModule(deep);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(std::string(m.status().message()).find("nesting is too deep"), std::string::npos);
  std::string deep_dense = "func.func @f() {\n %0 = stablehlo.constant dense<" +
                           std::string(100000, '[') + "> : tensor<f32>\n return\n}";
  EXPECT_FALSE(ParseModule(deep_dense).ok());
  std::string deep_type = "func.func @f(%a: " + std::string(50000, '(') + ") {\n return\n}";
  EXPECT_FALSE(ParseModule(deep_type).ok());
}

TEST(Parser, MultiResultNamesAndUses) {
  const char* src = R"(
func.func @f(%a: tensor<2xf32>, %b: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xf32>) {
  %x, %y:2 = "test.op"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>)
  return %y#0, %y#1 : tensor<2xi32>, tensor<2xf32>
})";
  auto m = ParseModule(src);
  ASSERT_TRUE(m.ok()) << m.status();
  const Block* body = (*m)->body()->ops[0]->regions[0]->front();
  const Operation* ret = body->ops[1].get();
  EXPECT_EQ(ret->operands[0], body->ops[0]->result(1));
  EXPECT_EQ(ret->operands[1], body->ops[0]->result(2));
  // Foreign ops survive a round trip and verify.
  EXPECT_TRUE(VerifyModule(**m).ok());
}

}  // namespace
}  // namespace openpjrt::ir
