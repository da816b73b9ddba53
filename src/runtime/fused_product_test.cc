// Products with an absorbed elementwise epilogue (FusedProductParams): each program is compiled as
// written, where the product takes its epilogue, and again with the product's result returned as
// well, which keeps the two steps apart; both run on the same arguments at 1 and 2 intra-op
// threads and must give the same bits (the same loops run, only where and when differ).
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/runtime/test_util.h"
#include "src/compiler/compile.h"
#include "src/ir/parser.h"
#include "src/ir/verifier.h"
#include "src/cpu/kernels/kernels.h"
#include "src/cpu/blas/sgemm.h"
#include "src/runtime/thread_pool.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;

// Values in [-1, 1] in steps of 1/8 (exact products and short sums), varied by `seed`.
cpu::Array Filled(const cpu::ArrayType& t, int seed) {
  cpu::Array a = cpu::Array::Allocate(t);
  float* p = a.mutable_as<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = static_cast<float>((i * 37 + seed * 11) % 17 - 8) / 8.0f;
  return a;
}

struct Case {
  std::string params;                 // of @main
  std::vector<cpu::ArrayType> args;   // their types (f32)
  std::string body;                   // defines %p (the product) and the results
  std::vector<std::string> results;   // names and types: "%out : tensor<...>"
  std::string product_type;           // %p's type
};

std::string Program(const Case& c, bool return_product) {
  std::string types, names;
  for (const std::string& r : c.results) {
    const size_t colon = r.find(" : ");
    names += (names.empty() ? "" : ", ") + r.substr(0, colon);
    types += (types.empty() ? "" : ", ") + r.substr(colon + 3);
  }
  if (return_product) {
    names += ", %p";
    types += ", " + c.product_type;
  }
  return "func.func @main(" + c.params + ") -> (" + types + ") {\n" + c.body + "\n  return " + names + " : " +
         types + "\n}\n";
}

std::vector<cpu::RtValue> Run(const cpu::Executable& exe, const Case& c, int threads, int seed = 0) {
  std::vector<cpu::RtValue> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(cpu::RtValue::Of(Filled(c.args[i], static_cast<int>(i) + seed)));
  ThreadPool pool(threads);
  PoolParallel parallel(&pool, /*deterministic=*/false);
  auto out = exe.Run(std::move(args), nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<cpu::RtValue>{};
}

// `fused_step`: the name the merged step must have (the fusion must have happened). Also run on a
// thread whose GEMM packing buffers cannot be allocated (as when memory runs out): the product
// then takes another path (Eigen, the patch convolution; with two threads, the pool's thread
// doing what the starved one could not) and the bits must not change (the test values make
// every sum exact in any order; each such run has arguments of its own, so that an output block
// reused from an earlier run cannot pass for a product that was not computed).
void ExpectSameAsUnfused(const Case& c, const std::string& fused_step) {
  auto fused = CompileText(Program(c, false));
  auto apart = CompileText(Program(c, true));
  ASSERT_TRUE(fused.ok()) << fused.status();
  ASSERT_TRUE(apart.ok()) << apart.status();
  bool found = false;
  for (const cpu::Step& s : (*fused)->program->steps) found = found || s.name == fused_step;
  std::string names;
  for (const cpu::Step& s : (*fused)->program->steps) names += "\n  " + s.name;
  ASSERT_TRUE(found) << "no step named " << fused_step << " among" << names;
  for (const cpu::Step& s : (*apart)->program->steps) ASSERT_NE(s.name, fused_step);
  for (const bool starved : {false, true})
    for (int threads : {1, 2}) {
      const int seed = starved ? 100 + threads : 0;
      const std::vector<cpu::RtValue> want = Run(**apart, c, 1, seed);
      std::vector<cpu::RtValue> got;
      std::thread([&] {
        if (starved) cpu::LimitSgemmScratchOnThisThreadForTest(0);
        got = Run(**fused, c, threads, seed);
      }).join();
      ASSERT_EQ(got.size() + 1, want.size());
      for (size_t j = 0; j < got.size(); ++j) {
        ASSERT_EQ(got[j].array.type(), want[j].array.type()) << "result " << j;
        EXPECT_EQ(std::memcmp(got[j].array.data(), want[j].array.data(), static_cast<size_t>(got[j].array.ByteSize())), 0)
            << "result " << j << " at " << threads << " threads" << (starved ? ", GEMM buffers refused" : "");
      }
    }
}

constexpr char kBiasRelu[] = "stablehlo.dot_general + fusion(stablehlo.add, stablehlo.maximum)";

// x (m x k) . w (k x n) + bias row, then ReLU: an MLP layer.
Case DotBiasRelu(int64_t m, int64_t k, int64_t n) {
  const std::string x = "tensor<" + std::to_string(m) + "x" + std::to_string(k) + "xf32>";
  const std::string w = "tensor<" + std::to_string(k) + "x" + std::to_string(n) + "xf32>";
  const std::string b = "tensor<" + std::to_string(n) + "xf32>";
  const std::string c = "tensor<" + std::to_string(m) + "x" + std::to_string(n) + "xf32>";
  return {"%x: " + x + ", %w: " + w + ", %b: " + b,
          {{ir::ElemKind::kF32, {m, k}}, {ir::ElemKind::kF32, {k, n}}, {ir::ElemKind::kF32, {n}}},
          "  %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (" + x + ", " + w + ") -> " + c +
              "\n  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (" + b + ") -> " + c +
              "\n  %s = stablehlo.add %p, %bb : " + c + "\n  %z = stablehlo.constant dense<0.0> : " + c +
              "\n  %out = stablehlo.maximum %s, %z : " + c,
          {"%out : " + c},
          c};
}

// At two threads C is cut into row pieces, and each piece reports its blocks of rows (up to 144)
// as their last depth block (of three here) is added.
TEST(FusedProductTest, DotBiasReluInRowBlocks) { ExpectSameAsUnfused(DotBiasRelu(300, 784, 512), kBiasRelu); }

// One row of tiles: at two threads C is cut into column pieces (each region a run of partial rows).
TEST(FusedProductTest, DotBiasReluInColumnPieces) { ExpectSameAsUnfused(DotBiasRelu(12, 784, 2048), kBiasRelu); }

// An SGD update of the weights read by the weight gradient's epilogue: a full-size input besides
// the product (a transposed left operand, one depth block).
TEST(FusedProductTest, WeightGradientWithSgdUpdate) {
  ExpectSameAsUnfused(
      {"%a: tensor<128x784xf32>, %g: tensor<128x512xf32>, %w: tensor<784x512xf32>",
       {{ir::ElemKind::kF32, {128, 784}}, {ir::ElemKind::kF32, {128, 512}}, {ir::ElemKind::kF32, {784, 512}}},
       R"(  %p = stablehlo.dot_general %a, %g, contracting_dims = [0] x [0] : (tensor<128x784xf32>, tensor<128x512xf32>) -> tensor<784x512xf32>
  %lr = stablehlo.constant dense<0.05> : tensor<784x512xf32>
  %s = stablehlo.multiply %p, %lr : tensor<784x512xf32>
  %out = stablehlo.subtract %w, %s : tensor<784x512xf32>)",
       {"%out : tensor<784x512xf32>"},
       "tensor<784x512xf32>"},
      "stablehlo.dot_general + fusion(stablehlo.multiply, stablehlo.subtract)");
}

// The weight gradient as JAX writes it, transpose(dot(dy, x)): the transpose folds into the
// product (operands swapped), which leaves a no-copy reshape between it and the update; the
// product is made in the reshape's type and still takes the update.
TEST(FusedProductTest, TransposedWeightGradientWithSgdUpdate) {
  ExpectSameAsUnfused(
      {"%a: tensor<128x784xf32>, %g: tensor<128x512xf32>, %w: tensor<784x512xf32>",
       {{ir::ElemKind::kF32, {128, 784}}, {ir::ElemKind::kF32, {128, 512}}, {ir::ElemKind::kF32, {784, 512}}},
       R"(  %d = stablehlo.dot_general %g, %a, contracting_dims = [0] x [0] : (tensor<128x512xf32>, tensor<128x784xf32>) -> tensor<512x784xf32>
  %p = stablehlo.transpose %d, dims = [1, 0] : (tensor<512x784xf32>) -> tensor<784x512xf32>
  %lr = stablehlo.constant dense<0.05> : tensor<784x512xf32>
  %s = stablehlo.multiply %lr, %p : tensor<784x512xf32>
  %out = stablehlo.subtract %w, %s : tensor<784x512xf32>)",
       {"%out : tensor<784x512xf32>"},
       "tensor<784x512xf32>"},
      "stablehlo.dot_general + fusion(stablehlo.multiply, stablehlo.subtract)");
}

// The other forms of an update the product applies in its registers (SgemmUpdate): a residual
// connection (D + p and p + D, no multiply), D + s * p with the splat on either side, in a
// batched product (each batch's D at its own offset) and in a narrow one; and a bias row added
// the same way (a broadcast D), which keeps the block evaluator.
TEST(FusedProductTest, ResidualAndScaledUpdates) {
  const std::string x = "tensor<3x70x40xf32>", w = "tensor<3x40x150xf32>", c = "tensor<3x70x150xf32>";
  const std::vector<cpu::ArrayType> args = {
      {ir::ElemKind::kF32, {3, 70, 40}}, {ir::ElemKind::kF32, {3, 40, 150}}, {ir::ElemKind::kF32, {3, 70, 150}}};
  const std::string params = "%x: " + x + ", %w: " + w + ", %r: " + c;
  const std::string dot = "  %p = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (" +
                          x + ", " + w + ") -> " + c;
  ExpectSameAsUnfused({params, args, dot + "\n  %out = stablehlo.add %r, %p : " + c, {"%out : " + c}, c},
                      "stablehlo.dot_general + fusion(stablehlo.add)");
  ExpectSameAsUnfused({params, args, dot + "\n  %out = stablehlo.add %p, %r : " + c, {"%out : " + c}, c},
                      "stablehlo.dot_general + fusion(stablehlo.add)");
  ExpectSameAsUnfused({params, args,
                       dot + "\n  %k = stablehlo.constant dense<-0.3> : " + c + "\n  %s = stablehlo.multiply %k, %p : " +
                           c + "\n  %out = stablehlo.add %s, %r : " + c,
                       {"%out : " + c}, c},
                      "stablehlo.dot_general + fusion(stablehlo.multiply, stablehlo.add)");
  ExpectSameAsUnfused({params, args,
                       dot + "\n  %k = stablehlo.constant dense<0.7> : " + c + "\n  %s = stablehlo.multiply %p, %k : " +
                           c + "\n  %out = stablehlo.subtract %r, %s : " + c,
                       {"%out : " + c}, c},
                      "stablehlo.dot_general + fusion(stablehlo.multiply, stablehlo.subtract)");
  // The product on the left of the subtraction is another function (p - D): not an update.
  ExpectSameAsUnfused({params, args, dot + "\n  %out = stablehlo.subtract %p, %r : " + c, {"%out : " + c}, c},
                      "stablehlo.dot_general + fusion(stablehlo.subtract)");
  // Narrow: a classifier's logits subtracted from a full-size input.
  ExpectSameAsUnfused(
      {"%h: tensor<512x256xf32>, %v: tensor<256x10xf32>, %r: tensor<512x10xf32>",
       {{ir::ElemKind::kF32, {512, 256}}, {ir::ElemKind::kF32, {256, 10}}, {ir::ElemKind::kF32, {512, 10}}},
       "  %p = stablehlo.dot_general %h, %v, contracting_dims = [1] x [0] : (tensor<512x256xf32>, "
       "tensor<256x10xf32>) -> tensor<512x10xf32>\n  %out = stablehlo.subtract %r, %p : tensor<512x10xf32>",
       {"%out : tensor<512x10xf32>"},
       "tensor<512x10xf32>"},
      "stablehlo.dot_general + fusion(stablehlo.subtract)");
  ExpectSameAsUnfused({params + ", %b: tensor<150xf32>",
                       {args[0], args[1], args[2], {ir::ElemKind::kF32, {150}}},
                       dot + "\n  %bb = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<150xf32>) -> " + c +
                           "\n  %out = stablehlo.add %p, %bb : " + c,
                       {"%out : " + c}, c},
                      "stablehlo.dot_general + fusion(stablehlo.add)");
}

// A tall product with a small right operand: row pieces sharing one packed B.
TEST(FusedProductTest, DotBiasReluInRowPieces) { ExpectSameAsUnfused(DotBiasRelu(4096, 64, 64), kBiasRelu); }

// Batched attention scores with scale and exp; the epilogue has two outputs of other types too
// (a mask and a bf16 copy), and the pre-activation is a result as well.
TEST(FusedProductTest, BatchedDotWithSeveralEpilogueOutputs) {
  ExpectSameAsUnfused(
      {"%q: tensor<4x128x64xf32>, %k: tensor<4x128x64xf32>",
       {{ir::ElemKind::kF32, {4, 128, 64}}, {ir::ElemKind::kF32, {4, 128, 64}}},
       R"(  %p = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<4x128x64xf32>, tensor<4x128x64xf32>) -> tensor<4x128x128xf32>
  %c = stablehlo.constant dense<0.125> : tensor<4x128x128xf32>
  %s = stablehlo.multiply %p, %c : tensor<4x128x128xf32>
  %e = stablehlo.exponential %s : tensor<4x128x128xf32>
  %z = stablehlo.constant dense<0.0> : tensor<4x128x128xf32>
  %m = stablehlo.compare GT, %p, %z : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xi1>
  %h = stablehlo.convert %e : (tensor<4x128x128xf32>) -> tensor<4x128x128xbf16>)",
       {"%s : tensor<4x128x128xf32>", "%e : tensor<4x128x128xf32>", "%m : tensor<4x128x128xi1>",
        "%h : tensor<4x128x128xbf16>"},
       "tensor<4x128x128xf32>"},
      "stablehlo.dot_general + fusion(stablehlo.multiply, stablehlo.exponential, stablehlo.convert, "
      "stablehlo.compare)");
}

// Batch dimensions that do not merge into one stride: the product takes the general path and the
// merged step runs the two steps one after the other.
TEST(FusedProductTest, DotOnTheGeneralPathStillRunsItsEpilogue) {
  ExpectSameAsUnfused({"%x: tensor<2x3x4x5xf32>, %y: tensor<2x4x5x6xf32>",
                       {{ir::ElemKind::kF32, {2, 3, 4, 5}}, {ir::ElemKind::kF32, {2, 4, 5, 6}}},
                       R"(  %p = stablehlo.dot_general %x, %y, batching_dims = [0, 2] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x3x4x5xf32>, tensor<2x4x5x6xf32>) -> tensor<2x4x3x6xf32>
  %out = stablehlo.tanh %p : tensor<2x4x3x6xf32>
  %two = stablehlo.constant dense<2.0> : tensor<2x4x3x6xf32>
  %out2 = stablehlo.multiply %out, %two : tensor<2x4x3x6xf32>)",
                       {"%out2 : tensor<2x4x3x6xf32>"}, "tensor<2x4x3x6xf32>"},
                      "stablehlo.dot_general + fusion(stablehlo.tanh, stablehlo.multiply)");
}

constexpr char kConvBiasRelu[] = "stablehlo.convolution + fusion(stablehlo.add, stablehlo.maximum)";

// NHWC with features innermost: the product writes the result in place, region by region.
TEST(FusedProductTest, ConvolutionBiasRelu) {
  ExpectSameAsUnfused({"%x: tensor<2x28x28x32xf32>, %w: tensor<3x3x32x48xf32>, %b: tensor<48xf32>",
                       {{ir::ElemKind::kF32, {2, 28, 28, 32}}, {ir::ElemKind::kF32, {3, 3, 32, 48}}, {ir::ElemKind::kF32, {48}}},
                       R"(  %p = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x28x28x32xf32>, tensor<3x3x32x48xf32>) -> tensor<2x28x28x48xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<48xf32>) -> tensor<2x28x28x48xf32>
  %s = stablehlo.add %p, %bb : tensor<2x28x28x48xf32>
  %z = stablehlo.constant dense<0.0> : tensor<2x28x28x48xf32>
  %out = stablehlo.maximum %s, %z : tensor<2x28x28x48xf32>)",
                       {"%out : tensor<2x28x28x48xf32>"}, "tensor<2x28x28x48xf32>"},
                      kConvBiasRelu);
}

// Feature groups: each group's product finishes its own columns of the result.
TEST(FusedProductTest, GroupedConvolutionBiasRelu) {
  ExpectSameAsUnfused({"%x: tensor<1x20x20x32xf32>, %w: tensor<3x3x8x64xf32>, %b: tensor<64xf32>",
                       {{ir::ElemKind::kF32, {1, 20, 20, 32}}, {ir::ElemKind::kF32, {3, 3, 8, 64}}, {ir::ElemKind::kF32, {64}}},
                       R"(  %p = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 2]]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x20x20x32xf32>, tensor<3x3x8x64xf32>) -> tensor<1x10x20x64xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<64xf32>) -> tensor<1x10x20x64xf32>
  %s = stablehlo.add %p, %bb : tensor<1x10x20x64xf32>
  %z = stablehlo.constant dense<0.0> : tensor<1x10x20x64xf32>
  %out = stablehlo.maximum %s, %z : tensor<1x10x20x64xf32>)",
                       {"%out : tensor<1x10x20x64xf32>"}, "tensor<1x10x20x64xf32>"},
                      kConvBiasRelu);
}

// NCHW output: the product goes through a row-major buffer, and the epilogue runs once over the
// whole result after the copy.
TEST(FusedProductTest, ConvolutionWithFeaturesFirst) {
  ExpectSameAsUnfused({"%x: tensor<2x16x12x12xf32>, %w: tensor<24x16x3x3xf32>, %b: tensor<24xf32>",
                       {{ir::ElemKind::kF32, {2, 16, 12, 12}}, {ir::ElemKind::kF32, {24, 16, 3, 3}}, {ir::ElemKind::kF32, {24}}},
                       R"(  %p = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x16x12x12xf32>, tensor<24x16x3x3xf32>) -> tensor<2x24x12x12xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<24xf32>) -> tensor<2x24x12x12xf32>
  %s = stablehlo.add %p, %bb : tensor<2x24x12x12xf32>
  %z = stablehlo.constant dense<0.0> : tensor<2x24x12x12xf32>
  %out = stablehlo.maximum %s, %z : tensor<2x24x12x12xf32>)",
                       {"%out : tensor<2x24x12x12xf32>"}, "tensor<2x24x12x12xf32>"},
                      kConvBiasRelu);
}

// Not absorbed: a run that reads another full-size array defined after the product (the merged
// step would read it before it exists), and a product read by two steps.
// A loop body's product (an RNN step, 1x64 @ 64x64 + x, tanh): one block, so the product is
// made whole and its epilogue runs op after op (FusedSmall), with an output of another kind.
TEST(FusedProductTest, ProductOfOneBlockRunsItsEpilogueWhole) {
  ExpectSameAsUnfused({"%h: tensor<1x64xf32>, %w: tensor<64x64xf32>, %x: tensor<1x64xf32>",
                       {{ir::ElemKind::kF32, {1, 64}}, {ir::ElemKind::kF32, {64, 64}}, {ir::ElemKind::kF32, {1, 64}}},
                       R"(  %p = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
  %s = stablehlo.add %p, %x : tensor<1x64xf32>
  %t = stablehlo.tanh %s : tensor<1x64xf32>
  %b = stablehlo.convert %t : (tensor<1x64xf32>) -> tensor<1x64xbf16>)",
                       {"%t : tensor<1x64xf32>", "%b : tensor<1x64xbf16>"}, "tensor<1x64xf32>"},
                      "stablehlo.dot_general + fusion(stablehlo.add, stablehlo.tanh, stablehlo.convert)");
}

// Elementwise runs of at most one block (FusedSmall) against the block evaluator: the same run
// over 4 and 6 rows of 256 (1,024 and 1,536 elements), the first four rows' inputs the same,
// with every kind of input a run reads (arrays, a splat constant, a broadcast scalar argument, a
// bias row and per-row values repeated along rows) and ops with parameters (compare, select,
// convert). The first 1,024 elements of each result must have the same bits.
TEST(FusedProductTest, RunsOfOneBlockMatchTheBlockEvaluator) {
  auto program = [](int rows) {
    const std::string r = std::to_string(rows), t = "tensor<" + r + "x256xf32>";
    return "func.func @main(%x: " + t + ", %b: tensor<256xf32>, %r: tensor<" + r + "xf32>, %s: tensor<f32>) -> (" + t +
           ", tensor<" + r + "x256xi1>, tensor<" + r + "x256xbf16>) {\n" +
           "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<256xf32>) -> " + t + "\n" +
           "  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<" + r + "xf32>) -> " + t + "\n" +
           "  %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> " + t + "\n" +
           "  %half = stablehlo.constant dense<0.5> : " + t + "\n" +
           "  %a = stablehlo.multiply %x, %half : " + t + "\n" +
           "  %c = stablehlo.add %a, %bb : " + t + "\n" +
           "  %d = stablehlo.subtract %c, %rb : " + t + "\n" +
           "  %m = stablehlo.compare GT, %d, %sb : (" + t + ", " + t + ") -> tensor<" + r + "x256xi1>\n" +
           "  %e = stablehlo.select %m, %d, %x : tensor<" + r + "x256xi1>, " + t + "\n" +
           "  %u = stablehlo.tanh %e : " + t + "\n" +
           "  %h = stablehlo.convert %u : (" + t + ") -> tensor<" + r + "x256xbf16>\n" +
           "  return %u, %m, %h : " + t + ", tensor<" + r + "x256xi1>, tensor<" + r + "x256xbf16>\n}\n";
  };
  std::vector<std::vector<cpu::RtValue>> results;
  for (int rows : {4, 6}) {
    auto exe = CompileText(program(rows));
    ASSERT_TRUE(exe.ok()) << exe.status();
    int runs = 0;
    for (const cpu::Step& s : (*exe)->program->steps) runs += s.fn == cpu::FusedElementwiseKernel();
    ASSERT_EQ(runs, 1) << "the ops were not fused into one run";
    // Rows of x: 6 rows whose first four are the 4-row program's whole argument.
    const cpu::Array x6 = Filled({ir::ElemKind::kF32, {6, 256}}, 3);
    cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {rows, 256}});
    std::memcpy(x.mutable_data(), x6.data(), static_cast<size_t>(x.ByteSize()));
    cpu::Array r = cpu::Array::Allocate({ir::ElemKind::kF32, {rows}});
    for (int i = 0; i < rows; ++i) r.mutable_as<float>()[i] = 0.125f * static_cast<float>(i) - 0.25f;
    cpu::Array scalar = cpu::Array::Allocate({ir::ElemKind::kF32, {}});
    scalar.mutable_as<float>()[0] = -0.0625f;
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(std::move(x)));
    args.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {256}}, 5)));
    args.push_back(cpu::RtValue::Of(std::move(r)));
    args.push_back(cpu::RtValue::Of(std::move(scalar)));
    auto out = (*exe)->Run(std::move(args));
    ASSERT_TRUE(out.ok()) << out.status();
    results.push_back(*std::move(out));
  }
  for (size_t j = 0; j < 3; ++j) {
    const cpu::Array& small = results[0][j].array;
    ASSERT_EQ(small.NumElements(), 1024);
    EXPECT_EQ(std::memcmp(small.data(), results[1][j].array.data(), static_cast<size_t>(small.ByteSize())), 0)
        << "result " << j;
  }
  // Both branches of the select were taken.
  int64_t set = 0;
  for (int64_t e = 0; e < 1024; ++e) set += results[0][1].array.data()[e];
  EXPECT_GT(set, 0);
  EXPECT_LT(set, 1024);
}

TEST(FusedProductTest, KeepsStepsApartWhenTheRunCannotMove) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>) {
  %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %q = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = stablehlo.add %p, %t : tensor<64x64xf32>
  %e = stablehlo.exponential %s : tensor<64x64xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<64xf32>
  return %e, %r : tensor<64x64xf32>, tensor<64xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (const cpu::Step& s : (*exe)->program->steps) EXPECT_EQ(s.name.find(" + fusion("), std::string::npos) << s.name;
}

// A constant right operand (weights baked into an exported program) is packed at compile time;
// the product and its epilogue give the bits of the same program with the weights passed in.
TEST(FusedProductTest, ConstantWeightsArePackedAtCompileTime) {
  std::string weights = "dense<[";
  for (int i = 0; i < 64; ++i) {
    weights += i ? ", [" : "[";
    for (int j = 0; j < 48; ++j) weights += (j ? ", " : "") + std::to_string(((i * 48 + j) * 5 % 13 - 6) / 4.0);
    weights += "]";
  }
  weights += "]>";
  const std::string tail = R"(
  %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1000x64xf32>, tensor<64x48xf32>) -> tensor<1000x48xf32>
  %z = stablehlo.constant dense<0.0> : tensor<1000x48xf32>
  %h = stablehlo.maximum %p, %z : tensor<1000x48xf32>
  return %h : tensor<1000x48xf32>
})";
  auto baked = CompileText("func.func @main(%x: tensor<1000x64xf32>) -> tensor<1000x48xf32> {\n  %w = stablehlo.constant " +
                           weights + " : tensor<64x48xf32>" + tail);
  auto passed = CompileText("func.func @main(%x: tensor<1000x64xf32>, %w: tensor<64x48xf32>) -> tensor<1000x48xf32> {" + tail);
  ASSERT_TRUE(baked.ok()) << baked.status();
  ASSERT_TRUE(passed.ok()) << passed.status();
  bool packed = false;
  for (const cpu::Step& s : (*baked)->program->steps) {
    if (s.fn == cpu::FusedProductKernel())
      packed = s.Params<cpu::FusedProductParams>().product.Params<cpu::DotParams>().packed_rhs != nullptr;
  }
  if (cpu::HaveFastSgemm()) {
    EXPECT_TRUE(packed) << "the constant weight was not packed";
  }
  for (int threads : {1, 2}) {
    std::vector<cpu::RtValue> a;
    a.reserve(2);
    a.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {1000, 64}}, 0)));
    ThreadPool pool(threads);
    PoolParallel parallel(&pool, false);
    auto got = (*baked)->Run(a, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
    ASSERT_TRUE(got.ok()) << got.status();
    // The same weights as an argument, parsed back from the program's constant.
    auto w_exe = CompileText("func.func @main() -> tensor<64x48xf32> {\n  %w = stablehlo.constant " + weights +
                             " : tensor<64x48xf32>\n  return %w : tensor<64x48xf32>\n}");
    ASSERT_TRUE(w_exe.ok());
    auto w = (*w_exe)->Run({});
    ASSERT_TRUE(w.ok());
    a.push_back((*w)[0]);
    auto want = (*passed)->Run(a, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ(std::memcmp((*got)[0].array.data(), (*want)[0].array.data(), static_cast<size_t>((*got)[0].array.ByteSize())), 0)
        << threads << " threads";
  }
  // Compiled where the packed copy cannot be allocated: the weight stays as it is, read in place,
  // and the result is the same.
  std::thread([&] {
    cpu::LimitSgemmScratchOnThisThreadForTest(0);
    auto unpacked = CompileText("func.func @main(%x: tensor<1000x64xf32>) -> tensor<1000x48xf32> {\n  %w = stablehlo.constant " +
                                weights + " : tensor<64x48xf32>" + tail);
    cpu::LimitSgemmScratchOnThisThreadForTest(std::numeric_limits<int64_t>::max());
    ASSERT_TRUE(unpacked.ok()) << unpacked.status();
    for (const cpu::Step& s : (*unpacked)->program->steps) {
      if (s.fn == cpu::FusedProductKernel()) {
        EXPECT_EQ(s.Params<cpu::FusedProductParams>().product.Params<cpu::DotParams>().packed_rhs, nullptr);
      }
    }
    std::vector<cpu::RtValue> a;
    a.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {1000, 64}}, 0)));
    auto got = (*unpacked)->Run(a, nullptr, nullptr, -1, nullptr, nullptr);
    auto want = (*baked)->Run(a, nullptr, nullptr, -1, nullptr, nullptr);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(std::memcmp((*got)[0].array.data(), (*want)[0].array.data(), static_cast<size_t>((*got)[0].array.ByteSize())), 0);
  }).join();
}

}  // namespace
}  // namespace openpjrt::runtime

namespace openpjrt::runtime {
namespace {

// The first `results` results of `fused` at 1, 2 and 3 threads against those of `apart` (the
// same program with its steps kept apart), bit for bit.
void ExpectTheBitsOfApartAtEveryThreadCount(const cpu::Executable& fused, const cpu::Executable& apart,
                                            const std::vector<cpu::RtValue>& args, size_t results) {
  auto want = apart.Run(args);
  ASSERT_TRUE(want.ok()) << want.status();
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    PoolParallel parallel(&pool, /*deterministic=*/false);
    auto got = fused.Run(args, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
    ASSERT_TRUE(got.ok()) << got.status();
    for (size_t j = 0; j < results; ++j)
      EXPECT_EQ(std::memcmp((*got)[j].array.data(), (*want)[j].array.data(),
                            static_cast<size_t>((*want)[j].array.ByteSize())), 0)
          << "result " << j << " at " << threads << " threads";
  }
}

// A gather whose result only an elementwise run reads takes the run as its epilogue
// (FusedGatherParams): whole rows (an embedding lookup, indices out of range clamped) have the run
// evaluated block by block as they arrive, here with two outputs (the scaled rows and those plus
// a full-size array); a gather of part of each row keeps the two steps inside the fused step.
// Both against the program that also returns the gather's result (two steps apart), at 1, 2 and
// 3 threads, bit for bit.
TEST(FusedGatherTest, RowsRunTheirEpilogueAsTheyArrive) {
  for (const int64_t width : {int64_t{128}, int64_t{64}}) {
    SCOPED_TRACE(width == 128 ? "whole rows" : "half rows");
    const std::string g = "tensor<64x128x" + std::to_string(width) + "xf32>";
    const std::string body =
        "  %i3 = stablehlo.reshape %i : (tensor<64x128xi32>) -> tensor<64x128x1xi32>\n"
        "  %g = \"stablehlo.gather\"(%e, %i3) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], "
        "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, "
        "slice_sizes = array<i64: 1, " + std::to_string(width) + ">}> : (tensor<5000x128xf32>, tensor<64x128x1xi32>) -> " + g +
        "\n  %two = stablehlo.constant dense<2.0> : " + g + "\n  %s = stablehlo.multiply %g, %two : " + g +
        "\n  %out = stablehlo.add %s, %pos : " + g + "\n";
    auto program = [&](bool apart) {
      return "func.func @main(%e: tensor<5000x128xf32>, %i: tensor<64x128xi32>, %pos: " + g + ") -> (" + g + ", " + g +
             (apart ? ", " + g : "") + ") {\n" + body + "  return %s, %out" + (apart ? ", %g" : "") + " : " + g + ", " +
             g + (apart ? ", " + g : "") + "\n}\n";
    };
    auto fused = CompileText(program(false));
    auto apart = CompileText(program(true));
    ASSERT_TRUE(fused.ok()) << fused.status();
    ASSERT_TRUE(apart.ok()) << apart.status();
    const std::string merged = "stablehlo.gather + fusion(stablehlo.multiply, stablehlo.add)";
    bool found = false;
    for (const cpu::Step& s : (*fused)->program->steps) found = found || s.name == merged;
    EXPECT_TRUE(found);
    for (const cpu::Step& s : (*apart)->program->steps) EXPECT_NE(s.name, merged);
    std::vector<cpu::RtValue> args;
    args.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {5000, 128}}, 1)));
    cpu::Array idx = cpu::Array::Allocate({ir::ElemKind::kI32, {64, 128}});
    for (int64_t k = 0; k < idx.NumElements(); ++k)
      idx.mutable_as<int32_t>()[k] = static_cast<int32_t>((k * 7919) % 5010) - 5;  // some outside [0, 5000)
    args.push_back(cpu::RtValue::Of(idx));
    args.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {64, 128, width}}, 2)));
    ExpectTheBitsOfApartAtEveryThreadCount(**fused, **apart, args, 2);
  }
}

}  // namespace
}  // namespace openpjrt::runtime

namespace openpjrt::runtime {
namespace {

// A scatter-add of whole rows whose updates only a lookup of whole rows makes, bare or through an
// epilogue of splat constants (JAX's embedding gradient), reads each update row from the table
// when its block of the result takes it (FusedScatterParams): against the same program that also
// returns the updates (the two steps apart), into a broadcast zero and into an operand passed in,
// with rows of 100 elements (not a multiple of a vector), rows receiving several updates, lookup
// indices clamped and scatter indices outside the operand skipped, at 1, 2 and 3 threads, bit for
// bit. An epilogue that reads a full-size array stays two steps.
TEST(FusedScatterTest, LookedUpRowsScatterAsTheirBlocksTakeThem) {
  const std::string T = "tensor<3000x100xf32>", I = "tensor<4000x1xi32>", U = "tensor<4000x100xf32>";
  struct Form {
    const char* what;
    std::string epilogue;  // defines %u from %g (and %pos)
    bool fused;
  };
  const std::vector<Form> forms = {
      {"bare lookup", "", true},  // the scatter reads %g
      {"scaled", "  %two = stablehlo.constant dense<2.5> : " + U + "\n  %m = stablehlo.multiply %g, %two : " + U +
                     "\n  %u = stablehlo.exponential %m : " + U + "\n", true},
      {"position-dependent", "  %u = stablehlo.add %g, %pos : " + U + "\n", false},
  };
  for (const Form& form : forms) {
    for (const int into : {0, 1, 2}) {  // zeros, the operand %x, or %x + 1 made here (taken in place)
      const bool filled = into == 0;
      SCOPED_TRACE(std::string(form.what) + (filled ? ", into zeros" : into == 1 ? ", into an operand" : ", in place"));
      const std::string u = form.epilogue.empty() ? "%g" : "%u";
      auto program = [&](bool apart) {
        std::string text = "func.func @main(%e: " + T + ", %gi: " + I + ", %si: " + I + ", %x: " + T + ", %pos: " + U +
                           ") -> (" + T + (apart ? ", " + U : "") + ") {\n" +
                           "  %g = \"stablehlo.gather\"(%e, %gi) <{dimension_numbers = #stablehlo.gather<offset_dims = "
                           "[1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
                           "slice_sizes = array<i64: 1, 100>}> : (" + T + ", " + I + ") -> " + U + "\n" + form.epilogue;
        if (filled)
          text += "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n  %z = stablehlo.broadcast_in_dim %zero, "
                  "dims = [] : (tensor<f32>) -> " + T + "\n";
        if (into == 2)
          text += "  %one = stablehlo.constant dense<1.0> : " + T + "\n  %x1 = stablehlo.add %x, %one : " + T + "\n";
        text += "  %r = \"stablehlo.scatter\"(" + std::string(filled ? "%z" : into == 1 ? "%x" : "%x1") +
                ", %si, " + u + ") ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    %c = stablehlo.add %a, %b : "
                "tensor<f32>\n    stablehlo.return %c : tensor<f32>\n  }) {scatter_dimension_numbers = "
                "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
                "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (" + T + ", " + I + ", " + U + ") -> " +
                T + "\n  return %r" + (apart ? ", " + u : "") + " : " + T + (apart ? ", " + U : "") + "\n}\n";
        return text;
      };
      auto fused = CompileText(program(false));
      auto apart = CompileText(program(true));
      ASSERT_TRUE(fused.ok()) << fused.status();
      ASSERT_TRUE(apart.ok()) << apart.status();
      auto has_fused_step = [](const cpu::Executable& e) {
        for (const cpu::Step& s : e.program->steps)
          if (s.fn == cpu::FusedScatterKernel()) return true;
        return false;
      };
      EXPECT_EQ(has_fused_step(**fused), form.fused);
      EXPECT_FALSE(has_fused_step(**apart));
      std::vector<cpu::RtValue> args;
      args.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {3000, 100}}, 1)));
      cpu::Array gi = cpu::Array::Allocate({ir::ElemKind::kI32, {4000, 1}});
      cpu::Array si = cpu::Array::Allocate({ir::ElemKind::kI32, {4000, 1}});
      for (int64_t k = 0; k < 4000; ++k) {
        gi.mutable_as<int32_t>()[k] = static_cast<int32_t>((k * 7919) % 3010) - 5;  // some clamped
        si.mutable_as<int32_t>()[k] = k % 5 == 0 ? 77 : static_cast<int32_t>((k * 104729) % 3020) - 10;
      }
      args.push_back(cpu::RtValue::Of(gi));
      args.push_back(cpu::RtValue::Of(si));
      args.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {3000, 100}}, 3)));
      args.push_back(cpu::RtValue::Of(Filled({ir::ElemKind::kF32, {4000, 100}}, 4)));
      ExpectTheBitsOfApartAtEveryThreadCount(**fused, **apart, args, 1);
    }
  }
}

}  // namespace
}  // namespace openpjrt::runtime
