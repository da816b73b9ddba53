// Reductions as the executor runs them: absorbed producer runs, short rows and size-1
// dimensions, row and column maxima with IEEE signed zeros and NaNs in every float kind the
// per-CPU loops take, long rows in chunks and column folds in row order, at 1 and 2 threads.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/exec/elem_traits.h"
#include "src/runtime/executable.h"
#include "src/runtime/test_util.h"
#include "src/runtime/thread_pool.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;
using test_util::ReplaceAll;
using test_util::StepNames;

// A program whose lines "%v2 = BARRIER" (for each v of `values`, of type t) mark where fusion
// may join ops, compiled three times: fused without row groups (OPENPJRT_ROW_GROUPS=0: the
// fused runs and absorbed reductions these tests are about), fused with them (the lines dropped
// and %v2 read as %v), and apart (each such value stored by an optimization_barrier, so that
// every op reads whole arrays and runs alone).
struct FusedAndApart {
  std::shared_ptr<cpu::Executable> fused, grouped, apart;
};
FusedAndApart CompileFusedAndApart(const std::string& text, std::initializer_list<const char*> values,
                                   const std::string& t) {
  std::string fused = text, apart = text;
  for (const std::string v : values) {
    fused = ReplaceAll(ReplaceAll(fused, "  %" + v + "2 = BARRIER\n", ""), "%" + v + "2", "%" + v);
    apart = ReplaceAll(apart, "%" + v + "2 = BARRIER", "%" + v + "2 = stablehlo.optimization_barrier %" + v + " : " + t);
  }
  auto exe_fused = [&] {
    const test_util::RowGroupsOff steps_apart;
    return CompileText(fused);
  }();
  auto exe_grouped = CompileText(fused);
  auto exe_apart = CompileText(apart);
  EXPECT_TRUE(exe_fused.ok()) << exe_fused.status();
  EXPECT_TRUE(exe_grouped.ok()) << exe_grouped.status();
  EXPECT_TRUE(exe_apart.ok()) << exe_apart.status();
  if (!exe_fused.ok() || !exe_grouped.ok() || !exe_apart.ok()) return {};
  return {*exe_fused, *exe_grouped, *exe_apart};
}

// Runs the three programs on `args` at 1 and 2 intra-op threads; their first results must be the
// same bytes. `what` names the case in a failure.
void ExpectSameBits(const FusedAndApart& exe, const std::vector<cpu::Array>& args, const std::string& what) {
  for (int threads : {1, 2}) {
    auto run = [&](const std::shared_ptr<cpu::Executable>& e) { return test_util::RunWithThreads(*e, args, threads); };
    auto want = run(exe.apart);
    ASSERT_TRUE(want.ok()) << want.status();
    const cpu::Array& w = (*want)[0].array;
    for (const auto& [name, e] : {std::pair{"fused", exe.fused}, std::pair{"grouped", exe.grouped}}) {
      auto got = run(e);
      ASSERT_TRUE(got.ok()) << got.status();
      const cpu::Array& g = (*got)[0].array;
      ASSERT_EQ(g.ByteSize(), w.ByteSize()) << what;
      for (int64_t i = 0; i < w.ByteSize(); i += w.ByteSize() / w.NumElements())
        ASSERT_EQ(std::memcmp(g.data() + i, w.data() + i, static_cast<size_t>(w.ByteSize() / w.NumElements())), 0)
            << what << ", " << name << ", element " << i / (w.ByteSize() / w.NumElements()) << ", " << threads
            << " threads";
    }
  }
}

// A reduction absorbs the fused run that computes its input, and gives the same bits as the
// unfused program (where the run's result is also returned, so it must be stored).
TEST(FusionTest, ReductionsAbsorbTheirProducerRun) {
  // The runs feeding the reductions are absorbed (kFused); when the runs' values are results too
  // (kKept), each reduction still absorbs its run and stores the value as its second result. Both
  // give the bits of the reductions run apart from the runs (kValues, then kSums).
  const char* kFused = R"(
func.func @main(%x: tensor<300x1000xf32>, %b: tensor<1000xf32>) -> (tensor<300xf32>, tensor<1000xf32>) {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<1000xf32>) -> tensor<300x1000xf32>
  %y = stablehlo.subtract %x, %bb : tensor<300x1000xf32>
  %s = stablehlo.multiply %y, %y : tensor<300x1000xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<300xf32>
  %u = stablehlo.subtract %x, %bb : tensor<300x1000xf32>
  %t = stablehlo.multiply %u, %x : tensor<300x1000xf32>
  %cols = stablehlo.reduce(%t init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<1000xf32>
  return %rows, %cols : tensor<300xf32>, tensor<1000xf32>
})";
  std::string kept = kFused;
  kept.replace(kept.find("-> (tensor<300xf32>, tensor<1000xf32>)"), 38,
               "-> (tensor<300xf32>, tensor<1000xf32>, tensor<300x1000xf32>, tensor<300x1000xf32>)");
  kept.replace(kept.find("return %rows, %cols : tensor<300xf32>, tensor<1000xf32>"), 55,
               "return %rows, %cols, %s, %t : tensor<300xf32>, tensor<1000xf32>, tensor<300x1000xf32>, tensor<300x1000xf32>");
  const char* kValues = R"(
func.func @main(%x: tensor<300x1000xf32>, %b: tensor<1000xf32>) -> (tensor<300x1000xf32>, tensor<300x1000xf32>) {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<1000xf32>) -> tensor<300x1000xf32>
  %y = stablehlo.subtract %x, %bb : tensor<300x1000xf32>
  %s = stablehlo.multiply %y, %y : tensor<300x1000xf32>
  %t = stablehlo.multiply %y, %x : tensor<300x1000xf32>
  return %s, %t : tensor<300x1000xf32>, tensor<300x1000xf32>
})";
  const char* kSums = R"(
func.func @main(%s: tensor<300x1000xf32>, %t: tensor<300x1000xf32>) -> (tensor<300xf32>, tensor<1000xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<300xf32>
  %cols = stablehlo.reduce(%t init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<1000xf32>
  return %rows, %cols : tensor<300xf32>, tensor<1000xf32>
})";
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {300, 1000}});
  cpu::Array b = cpu::Array::Allocate({ir::ElemKind::kF32, {1000}});
  for (int i = 0; i < 300000; ++i) x.mutable_as<float>()[i] = static_cast<float>((int64_t{i} * 7919) % 1000) * 0.001f - 0.4f;
  for (int j = 0; j < 1000; ++j) b.mutable_as<float>()[j] = static_cast<float>(j % 13) * 0.01f;
  auto run = [](const std::string& text, std::vector<cpu::RtValue> args, std::vector<std::string>* names) {
    auto exe = CompileText(text);
    EXPECT_TRUE(exe.ok()) << exe.status();
    if (!exe.ok()) return std::vector<cpu::RtValue>();
    if (names) *names = StepNames(**exe);
    auto out = (*exe)->Run(std::move(args));
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? std::move(*out) : std::vector<cpu::RtValue>();
  };
  const std::string fused = "fusion(stablehlo.subtract, stablehlo.multiply, stablehlo.reduce)";
  std::vector<std::string> names;
  const std::vector<cpu::RtValue> f = run(kFused, {cpu::RtValue::Of(x), cpu::RtValue::Of(b)}, &names);
  EXPECT_EQ(names, (std::vector<std::string>{"stablehlo.constant", fused, fused}));
  const std::vector<cpu::RtValue> k = run(kept, {cpu::RtValue::Of(x), cpu::RtValue::Of(b)}, &names);
  EXPECT_EQ(names, (std::vector<std::string>{"stablehlo.constant", fused, fused}));
  const std::vector<cpu::RtValue> values = run(kValues, {cpu::RtValue::Of(x), cpu::RtValue::Of(b)}, nullptr);
  ASSERT_EQ(values.size(), 2u);
  const std::vector<cpu::RtValue> sums = run(kSums, values, nullptr);
  ASSERT_EQ(f.size(), 2u);
  ASSERT_EQ(k.size(), 4u);
  ASSERT_EQ(sums.size(), 2u);
  auto same = [](const cpu::RtValue& a, const cpu::RtValue& b) {
    return a.array.ByteSize() == b.array.ByteSize() && std::memcmp(a.array.data(), b.array.data(), a.array.ByteSize()) == 0;
  };
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(same(f[i], sums[i])) << "absorbed reduction " << i;
    EXPECT_TRUE(same(k[i], sums[i])) << "reduction " << i << " that keeps its run's value";
    EXPECT_TRUE(same(k[2 + i], values[i])) << "kept value " << i;
  }
}

// Fused runs that read per-row values over rows shorter than a block (attention's softmax
// gradient over rows of 128; from 16 on, partial vectors too) run a row at a time with the
// values as scalars (a per-column value gathered for each row); their results, and the sums of
// an absorbed run over such rows (whose values live in the run's block buffers, row after
// row), have the bits of the separate ops: rows that divide the block and rows that cross block
// boundaries, at 1 and 2 threads. (The per-row values are dividends: a division by a broadcast
// becomes a product with its reciprocal before fusion, DivideByReciprocals.)
TEST(FusionTest, RunsOverShortRowsOfPerRowValuesGiveTheSeparateOpsBits) {
  // RESULT: %y (an elementwise run with two per-row values) or %v (the sums of one, absorbed).
  const char* kProgram = R"(
func.func @main(%x: tensor<RxNxf32>, %s: tensor<Rxf32>, %w: tensor<Nxf32>) -> TYPE {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxNxf32>, tensor<f32>) -> tensor<Rxf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<Rxf32>) -> tensor<RxNxf32>
  %mb2 = BARRIER
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<Rxf32>) -> tensor<RxNxf32>
  %sb2 = BARRIER
  %d = stablehlo.subtract %x, %mb2 : tensor<RxNxf32>
  %d2 = BARRIER
  %q = stablehlo.divide %sb2, %d2 : tensor<RxNxf32>
  %cb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<Nxf32>) -> tensor<RxNxf32>
  %cb2 = BARRIER
  %y = stablehlo.multiply %q, %cb2 : tensor<RxNxf32>
  %e0 = stablehlo.multiply %d2, %d2 : tensor<RxNxf32>
  %e = stablehlo.divide %sb2, %e0 : tensor<RxNxf32>
  %e2 = BARRIER
  %v = stablehlo.reduce(%e2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxNxf32>, tensor<f32>) -> tensor<Rxf32>
  return RESULT : TYPE
})";
  for (int64_t n : {16, 33, 64, 128, 200, 256, 384, 1000, 2500}) {
    const int64_t rows = 4 + 9000 / n;
    const std::string t = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "xf32>";
    const std::string r = "tensor<" + std::to_string(rows) + "xf32>";
    cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {rows, n}});
    cpu::Array s = cpu::Array::Allocate({ir::ElemKind::kF32, {rows}});
    for (int64_t i = 0; i < rows * n; ++i) x.mutable_as<float>()[i] = static_cast<float>((i * 7919) % 1009) * 0.01f - 5.0f;
    for (int64_t i = 0; i < rows; ++i) s.mutable_as<float>()[i] = 0.5f + static_cast<float>(i % 11) * 0.37f;
    cpu::Array w = cpu::Array::Allocate({ir::ElemKind::kF32, {n}});  // a per-column value
    for (int64_t i = 0; i < n; ++i) w.mutable_as<float>()[i] = 0.25f + static_cast<float>(i % 5) * 0.125f;
    for (const bool sums : {false, true}) {
      std::string text = ReplaceAll(kProgram, "tensor<RxNxf32>", t);
      text = ReplaceAll(ReplaceAll(text, "tensor<Rxf32>", r), "tensor<Nxf32>", "tensor<" + std::to_string(n) + "xf32>");
      text = ReplaceAll(ReplaceAll(text, "RESULT", sums ? "%v" : "%y"), "TYPE", sums ? r : t);
      // (The broadcasts are stored too when apart.)
      const FusedAndApart exe = CompileFusedAndApart(text, {"mb", "sb", "d", "cb", "e"}, t);
      ASSERT_TRUE(exe.fused && exe.apart);
      const std::vector<std::string> names = StepNames(*exe.fused);
      EXPECT_TRUE(std::any_of(names.begin(), names.end(), [&](const std::string& name) {
        return name.starts_with("fusion(stablehlo.subtract, stablehlo.divide, stablehlo.multiply") &&
               name.ends_with(sums ? "stablehlo.reduce)" : ")");
      })) << (sums ? "no absorbed reduction" : "no fused run");
      ExpectSameBits(exe, {x, s, w}, std::string("rows of ") + std::to_string(n) + (sums ? ", sums" : ", values"));
    }
  }
}

// The start of the per-row tests' programs (T the element type, R rows of N): the row sums m of
// x, the broadcasts of m and of a per-row operand s, and d = x - m; each BARRIER marks a value
// that CompileFusedAndApart stores when the ops run apart.
const std::string kPerRowPrologue = R"(
func.func @main(%x: tensor<RxNxT>, %s: tensor<RxT>) -> TYPE {
  %z = stablehlo.constant dense<0.0> : tensor<T>
  %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxNxT>, tensor<T>) -> tensor<RxT>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<RxT>) -> tensor<RxNxT>
  %mb2 = BARRIER
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<RxT>) -> tensor<RxNxT>
  %sb2 = BARRIER
  %d = stablehlo.subtract %x, %mb2 : tensor<RxNxT>
  %d2 = BARRIER
)";

// Per-row values along rows of 256 to 1023 elements that only cheap binary ops read (no register
// steps: layer norm's x - mean and normalisation) are passed to the ops' one-scalar loops a
// row's part at a time, on either side of the op, in f32 and f64; results and absorbed sums have
// the bits of the separate ops, for rows that divide the block and rows that cross it, at 1 and
// 2 threads.
TEST(FusionTest, PerRowOperandsOfCheapRunsGiveTheSeparateOpsBits) {
  const std::string kProgram = kPerRowPrologue + R"(Y  %y0 = stablehlo.subtract %sb2, %d2 : tensor<RxNxT>
Y  %y02 = BARRIER
Y  %y = stablehlo.multiply %y02, %sb2 : tensor<RxNxT>
V  %e = stablehlo.multiply %d2, %d2 : tensor<RxNxT>
V  %e2 = BARRIER
V  %v = stablehlo.reduce(%e2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxNxT>, tensor<T>) -> tensor<RxT>
  return RESULT : TYPE
})";
  for (const ir::ElemKind kind : {ir::ElemKind::kF32, ir::ElemKind::kF64}) {
    const bool f64 = kind == ir::ElemKind::kF64;
    for (int64_t n : {256, 384, 512, 1000}) for (const bool sums : {false, true}) {
      const int64_t rows = 3 + 20000 / n;
      const std::string elem = f64 ? "f64" : "f32";
      const std::string t = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "x" + elem + ">";
      const std::string r = "tensor<" + std::to_string(rows) + "x" + elem + ">";
      std::string text = ReplaceAll(kProgram, "tensor<RxNxT>", t);
      text = ReplaceAll(ReplaceAll(text, "tensor<RxT>", r), "tensor<T>", "tensor<" + elem + ">");
      text = ReplaceAll(ReplaceAll(text, "RESULT", sums ? "%v" : "%y"), "TYPE", sums ? r : t);
      // (Only the lines of the result's ops: V for the sums, Y for the values.)
      std::string kept;
      for (size_t at = 0, end; at < text.size(); at = end + 1) {
        end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        if (line.starts_with(sums ? "Y " : "V ")) continue;
        kept += (line.starts_with("Y ") || line.starts_with("V ") ? line.substr(1) : line) + "\n";
      }
      const FusedAndApart exe = CompileFusedAndApart(kept, {"mb", "sb", "d", "y0", "e"}, t);
      ASSERT_TRUE(exe.fused && exe.apart);
      const std::vector<std::string> names = StepNames(*exe.fused);
      // (Three cheap ops, or two absorbed by the sum: no register steps.)
      const std::string run = sums ? "fusion(stablehlo.subtract, stablehlo.multiply, stablehlo.reduce)"
                                   : "fusion(stablehlo.subtract, stablehlo.subtract, stablehlo.multiply)";
      EXPECT_TRUE(std::count(names.begin(), names.end(), run)) << "rows of " << n << ": no " << run;
      cpu::Array x = cpu::Array::Allocate({kind, {rows, n}});
      cpu::Array s = cpu::Array::Allocate({kind, {rows}});
      auto put = [&](cpu::Array& a, int64_t i, double v) {
        if (f64) a.mutable_as<double>()[i] = v * (1 + 1e-9);
        else a.mutable_as<float>()[i] = static_cast<float>(v);
      };
      for (int64_t i = 0; i < rows * n; ++i) put(x, i, static_cast<double>((i * 7919) % 1009) * 0.01 - 5.0);
      for (int64_t i = 0; i < rows; ++i) put(s, i, 0.5 + static_cast<double>(i % 11) * 0.37);
      ExpectSameBits(exe, {x, s}, elem + " rows of " + std::to_string(n) + (sums ? ", sums" : ", values"));
    }
  }
}

// Runs in registers over rows shorter than a block whose only repeating inputs are per-row
// values (softmax's exponentials of x - max, their sums, their products with a per-row value)
// go row after row with the first row's set-up moved along (FusedBlockEval::rows_affine_); their
// values and absorbed sums have the bits of the separate ops, at 1 and 2 threads.
TEST(FusionTest, RowsOfRegisterRunsGiveTheSeparateOpsBits) {
  const std::string kProgram = kPerRowPrologue + R"(  %e = stablehlo.exponential %d2 : tensor<RxNxT>
  %e2 = BARRIER
  RESULT
})";
  for (int64_t n : {16, 33, 100, 128, 200, 384, 1000}) {
    for (const bool sums : {false, true}) {
      const int64_t rows = 5 + 9000 / n;
      const std::string t = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "xf32>";
      const std::string r = "tensor<" + std::to_string(rows) + "xf32>";
      std::string text = ReplaceAll(kProgram, "RESULT",
          sums ? "%v = stablehlo.reduce(%e2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxNxT>, tensor<T>) -> tensor<RxT>\n  return %v : tensor<RxT>"
               : "%y = stablehlo.multiply %e2, %sb2 : tensor<RxNxT>\n  return %y : tensor<RxNxT>");
      text = ReplaceAll(ReplaceAll(ReplaceAll(text, "tensor<RxNxT>", t), "tensor<RxT>", r), "TYPE", sums ? r : t);
      text = ReplaceAll(text, "tensor<T>", "tensor<f32>");
      const FusedAndApart exe = CompileFusedAndApart(text, {"mb", "sb", "d", "e"}, t);
      ASSERT_TRUE(exe.fused && exe.apart);
      const std::vector<std::string> names = StepNames(*exe.fused);
      const std::string run = sums ? "fusion(stablehlo.subtract, stablehlo.exponential, stablehlo.reduce)"
                                   : "fusion(stablehlo.subtract, stablehlo.exponential, stablehlo.multiply)";
      EXPECT_TRUE(std::count(names.begin(), names.end(), run)) << "rows of " << n << ": no " << run;
      cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {rows, n}});
      cpu::Array s = cpu::Array::Allocate({ir::ElemKind::kF32, {rows}});
      for (int64_t i = 0; i < rows * n; ++i) x.mutable_as<float>()[i] = static_cast<float>((i * 7919) % 1009) * 0.002f - 1.0f;
      for (int64_t i = 0; i < rows; ++i) s.mutable_as<float>()[i] = 0.5f + static_cast<float>(i % 11) * 0.37f;
      ExpectSameBits(exe, {x, s}, "rows of " + std::to_string(n) + (sums ? ", sums" : ", values"));
    }
  }
}

// Absorbed reductions of short rows and over dimensions of size 1 (JAX's gradient of a broadcast
// of size 1) evaluate their run a block of rows at a time, or as one row of columns, and give the
// bits of the run stored and then reduced by the array's paths, at 1 and 2 threads: a sum over
// dimension 0 of 1x8x64x64 (also checked element by element), maxima of rows of 3 and sums of
// rows of 40 (7000 of them, cut into pieces at 2).
TEST(FusionTest, AbsorbedReductionsOfShortRowsGiveTheStoredRunsBits) {
  struct Case {
    std::string in, out, dims, op;
  };
  const Case cases[] = {{"1x8x64x64", "8x64x64", "0", "add"},
                        {"1x8x512x3", "1x8x512", "3", "maximum"},
                        {"7000x40", "7000", "1", "add"}};
  for (const Case& c : cases) {
    const std::string t = "tensor<" + c.in + "xf32>", r = "tensor<" + c.out + "xf32>";
    const std::string run = "  %y = stablehlo.multiply %x, %x : " + t + "\n  %v = stablehlo.subtract %y, %x : " + t + "\n";
    const std::string reduce = "  %z = stablehlo.constant dense<-1.0> : tensor<f32>\n"
                               "  %s = stablehlo.reduce(%v init: %z) applies stablehlo." + c.op + " across dimensions = [" +
                               c.dims + "] : (" + t + ", tensor<f32>) -> " + r + "\n";
    auto fused = CompileText("func.func @main(%x: " + t + ") -> " + r + " {\n" + run + reduce + "  return %s : " + r + "\n}\n");
    auto values = CompileText("func.func @main(%x: " + t + ") -> " + t + " {\n" + run + "  return %v : " + t + "\n}\n");
    auto apart = CompileText("func.func @main(%v: " + t + ") -> " + r + " {\n" + reduce + "  return %s : " + r + "\n}\n");
    ASSERT_TRUE(fused.ok() && values.ok() && apart.ok()) << c.in;
    const std::vector<std::string> names = StepNames(**fused);
    ASSERT_EQ(names.back(), "fusion(stablehlo.multiply, stablehlo.subtract, stablehlo.reduce)") << c.in;
    std::vector<int64_t> dims;
    for (size_t at = 0; at < c.in.size();) {
      const size_t x = c.in.find('x', at);
      dims.push_back(std::stoll(c.in.substr(at, x == std::string::npos ? std::string::npos : x - at)));
      at = x == std::string::npos ? c.in.size() : x + 1;
    }
    cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, dims});
    for (int64_t i = 0; i < x.NumElements(); ++i) x.mutable_as<float>()[i] = static_cast<float>((i * 7919) % 1013) * 0.0031f - 1.4f;
    auto v = (*values)->Run({cpu::RtValue::Of(x)});
    ASSERT_TRUE(v.ok()) << v.status();
    const cpu::Array stored = (*v)[0].array;
    auto want = (*apart)->Run(std::move(*v));
    ASSERT_TRUE(want.ok()) << want.status();
    if (c.dims == "0") {  // nothing reduced: the stored run plus the init value, independently
      for (int64_t i = 0; i < stored.NumElements(); ++i)
        ASSERT_EQ((*want)[0].array.as<float>()[i], -1.0f + stored.as<float>()[i]) << i;
    }
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      PoolParallel parallel(&pool, /*deterministic=*/false);
      auto got = (*fused)->Run({cpu::RtValue::Of(x)}, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
      ASSERT_TRUE(got.ok()) << got.status();
      const cpu::Array& g = (*got)[0].array;
      const cpu::Array& w = (*want)[0].array;
      ASSERT_EQ(g.ByteSize(), w.ByteSize());
      EXPECT_EQ(std::memcmp(g.data(), w.data(), g.ByteSize()), 0) << c.in << " at " << threads << " threads";
    }
  }
}

// Row maxima and minima (a vmaxps loop with NaNs noted beside it and the sign of a zero result
// settled afterwards) give the IEEE maximum / minimum: +0 over -0 for max, -0 over +0 for min,
// the quiet NaN when a row holds any NaN; rows of 64 elements and more, with the special values
// at the start, the middle and the tail.
TEST(FusionTest, RowMaximaKeepTheSignOfZeroAndGiveNaN) {
  const int64_t kRows = 16;  // rows 12-15: distinct values, the extremes in different lanes
  for (int64_t n : {64, 65, 100, 2048}) {
    const std::string t = "tensor<" + std::to_string(kRows) + "x" + std::to_string(n) + "xf32>";
    const std::string r = "tensor<" + std::to_string(kRows) + "xf32>";
    auto exe = CompileText(
        "func.func @main(%x: " + t + ") -> (" + r + ", " + r + ") {\n" +
        "  %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>\n" +
        "  %hi = stablehlo.constant dense<0x7F800000> : tensor<f32>\n" +
        "  %a = stablehlo.reduce(%x init: %lo) applies stablehlo.maximum across dimensions = [1] : (" + t + ", tensor<f32>) -> " + r + "\n" +
        "  %b = stablehlo.reduce(%x init: %hi) applies stablehlo.minimum across dimensions = [1] : (" + t + ", tensor<f32>) -> " + r + "\n" +
        "  return %a, %b : " + r + ", " + r + "\n}\n");
    ASSERT_TRUE(exe.ok()) << exe.status();
    cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {kRows, n}});
    float* v = x.mutable_as<float>();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int64_t row = 0; row < kRows; ++row) {
      float* e = v + row * n;
      const int64_t at = row % 3 == 0 ? 0 : row % 3 == 1 ? n / 2 : n - 1;
      for (int64_t k = 0; k < n; ++k) e[k] = row < 4 ? -0.0f : row < 8 ? 0.0f : -1.0f - static_cast<float>(k % 7);
      if (row < 4) e[at] = 0.0f;          // one +0 among -0s: max +0, min -0
      else if (row < 8) e[at] = -0.0f;    // one -0 among +0s: max +0, min -0
      else if (row < 11) e[at] = nan;     // a NaN
      if (row == 3) e[at] = -0.0f;        // all -0: both -0
      if (row == 7) e[at] = 0.0f;         // all +0: both +0
      if (row >= 12)
        for (int64_t k = 0; k < n; ++k) e[k] = static_cast<float>((k * 7919 + row * 104729) % 10007) - 5000.5f;
    }
    auto out = (*exe)->Run({cpu::RtValue::Of(x)});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t row = 0; row < kRows; ++row) {
      // The reference: IEEE maximum / minimum folded in order from the init value.
      float mx = -std::numeric_limits<float>::infinity(), mn = std::numeric_limits<float>::infinity();
      bool any_nan = false;
      for (int64_t k = 0; k < n; ++k) {
        const float e = v[row * n + k];
        any_nan |= e != e;
        if (e > mx || (e == 0 && mx == 0 && !std::signbit(e))) mx = e;
        if (e < mn || (e == 0 && mn == 0 && std::signbit(e))) mn = e;
      }
      const float got_max = (*out)[0].array.template as<float>()[row];
      const float got_min = (*out)[1].array.template as<float>()[row];
      if (any_nan) {
        EXPECT_TRUE(std::isnan(got_max) && std::isnan(got_min)) << "n " << n << " row " << row;
        continue;
      }
      EXPECT_EQ(std::bit_cast<uint32_t>(got_max), std::bit_cast<uint32_t>(mx)) << "max, n " << n << " row " << row;
      EXPECT_EQ(std::bit_cast<uint32_t>(got_min), std::bit_cast<uint32_t>(mn)) << "min, n " << n << " row " << row;
    }
  }
}

// Maxima and minima along either dimension give the IEEE maximum / minimum and the quiet NaN's
// bits for any NaN (a payload, a negative one): the folds keep a NaN as it came (columns four rows
// at a time for f32 and f64) and make it the quiet NaN afterwards; f64, f16 and bf16 rows fold
// in 16 lanes, f16 and bf16 read as f32. At 1 and 2 threads (2 x 3000 columns of 101 rows are
// cut into column shares): 1, 5 and 101 along the reduced dimension, the special value first, in
// the middle or last.
template <ir::ElemKind K>
void ExpectIeeeMaximaAlongEitherDimension(const std::string& ty, std::array<uint64_t, 3> nan_bits) {
  using T = cpu::Traits<K>;
  using S = typename T::S;
  using C = typename T::C;
  auto bits = [](S v) {
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof(S));
    return u;
  };
  S nans[3];
  for (int i = 0; i < 3; ++i) std::memcpy(&nans[i], &nan_bits[static_cast<size_t>(i)], sizeof(S));  // (little-endian)
  const int64_t kOther = 3000;
  for (int dim : {0, 1}) {
    for (int64_t n : {1, 5, 101}) {
      const int64_t rows = dim == 0 ? n : kOther, cols = dim == 0 ? kOther : n;
      const std::string t = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + ty + ">";
      const std::string r = "tensor<" + std::to_string(kOther) + "x" + ty + ">", s = "tensor<" + ty + ">";
      auto exe = CompileText(
          "func.func @main(%x: " + t + ") -> (" + r + ", " + r + ") {\n" +
          "  %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>\n" +
          "  %hi = stablehlo.constant dense<0x7F800000> : tensor<f32>\n" +
          "  %lo2 = stablehlo.convert %lo : (tensor<f32>) -> " + s + "\n" +
          "  %hi2 = stablehlo.convert %hi : (tensor<f32>) -> " + s + "\n" +
          "  %a = stablehlo.reduce(%x init: %lo2) applies stablehlo.maximum across dimensions = [" + std::to_string(dim) +
          "] : (" + t + ", " + s + ") -> " + r + "\n" +
          "  %b = stablehlo.reduce(%x init: %hi2) applies stablehlo.minimum across dimensions = [" + std::to_string(dim) +
          "] : (" + t + ", " + s + ") -> " + r + "\n" +
          "  return %a, %b : " + r + ", " + r + "\n}\n");
      ASSERT_TRUE(exe.ok()) << exe.status();
      cpu::Array x = cpu::Array::Allocate({K, {rows, cols}});
      S* v = x.mutable_as<S>();
      // Element k of output c.
      auto at = [&](int64_t c, int64_t k) -> S& { return dim == 0 ? v[k * kOther + c] : v[c * n + k]; };
      for (int64_t c = 0; c < kOther; ++c) {
        const int64_t kind = c % 12, pos = c / 12 % 3 == 0 ? 0 : c / 12 % 3 == 1 ? n / 2 : n - 1;
        for (int64_t k = 0; k < n; ++k)
          at(c, k) = T::Store(kind < 4 ? C(-0.0) : kind < 8 ? C(0.0) : C(-1) - C((k + c) % 7));
        S& e = at(c, pos);
        if (kind < 4) e = T::Store(C(0.0));                     // +0 among -0s
        else if (kind < 8) e = T::Store(C(-0.0));               // -0 among +0s
        else if (kind < 11) e = nans[c / 12 % 3];               // a NaN
        if (kind == 3) e = T::Store(C(-0.0));                   // all -0
        if (kind == 7) e = T::Store(C(0.0));                    // all +0
      }
      for (int threads : {1, 2}) {
        ThreadPool pool(threads);
        PoolParallel parallel(&pool, /*deterministic=*/false);
        auto out = (*exe)->Run({cpu::RtValue::Of(x)}, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
        ASSERT_TRUE(out.ok()) << out.status();
        for (int64_t c = 0; c < kOther; ++c) {
          C mx = -std::numeric_limits<C>::infinity(), mn = std::numeric_limits<C>::infinity();
          bool any_nan = false;
          for (int64_t k = 0; k < n; ++k) {
            const C e = T::Load(at(c, k));
            any_nan |= e != e;
            if (e > mx || (e == 0 && mx == 0 && !std::signbit(e))) mx = e;
            if (e < mn || (e == 0 && mn == 0 && std::signbit(e))) mn = e;
          }
          if (any_nan) mx = mn = std::numeric_limits<C>::quiet_NaN();
          ASSERT_EQ(bits((*out)[0].array.template as<S>()[c]), bits(T::Store(mx)))
              << ty << " max along " << dim << ", n " << n << ", output " << c << " at " << threads << " threads";
          ASSERT_EQ(bits((*out)[1].array.template as<S>()[c]), bits(T::Store(mn)))
              << ty << " min along " << dim << ", n " << n << ", output " << c << " at " << threads << " threads";
        }
      }
    }
  }
}

TEST(FusionTest, MaximaAlongEitherDimensionKeepTheSignOfZeroAndGiveTheQuietNaN) {
  ExpectIeeeMaximaAlongEitherDimension<ir::ElemKind::kF32>("f32", {0x7FC00000u, 0x7FC00123u, 0xFFC00000u});
  ExpectIeeeMaximaAlongEitherDimension<ir::ElemKind::kF64>(
      "f64", {0x7FF8000000000000u, 0x7FF8000000000123u, 0xFFF8000000000000u});
  ExpectIeeeMaximaAlongEitherDimension<ir::ElemKind::kF16>("f16", {0x7E00, 0x7E01, 0xFE00});
  ExpectIeeeMaximaAlongEitherDimension<ir::ElemKind::kBF16>("bf16", {0x7FC0, 0x7FC1, 0xFFC0});
}

// f32 row sums held in memory go four rows at a time, each row folded as it is alone: the sums
// of R rows have the bits of each row summed as a 1-row array, for R around multiples of four
// (the last rows alone) and rows with and without a partial group of lanes, at 1 and 2 threads.
TEST(FusionTest, RowSumsFourAtATimeGiveEachRowsOwnBits) {
  auto program = [](int64_t rows, int64_t n) {
    const std::string t = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "xf32>";
    const std::string r = "tensor<" + std::to_string(rows) + "xf32>";
    return "func.func @main(%x: " + t + ") -> " + r + " {\n  %z = stablehlo.constant dense<0.0> : tensor<f32>\n" +
           "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (" + t +
           ", tensor<f32>) -> " + r + "\n  return %s : " + r + "\n}\n";
  };
  for (int64_t n : {32, 33, 47, 48, 100, 1000}) {
    auto one = CompileText(program(1, n));
    ASSERT_TRUE(one.ok()) << one.status();
    for (int64_t rows : {4, 5, 7, 9, 600}) {
      auto exe = CompileText(program(rows, n));
      ASSERT_TRUE(exe.ok()) << exe.status();
      cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {rows, n}});
      float* v = x.mutable_as<float>();
      for (int64_t i = 0; i < rows * n; ++i) v[i] = std::ldexp(static_cast<float>((i * 7919) % 2003) - 1001.0f, -static_cast<int>(i % 23));
      std::vector<uint32_t> want(static_cast<size_t>(rows));
      for (int64_t r = 0; r < rows; ++r) {
        cpu::Array row = cpu::Array::Allocate({ir::ElemKind::kF32, {1, n}});
        std::memcpy(row.mutable_data(), v + r * n, static_cast<size_t>(n) * sizeof(float));
        auto out = (*one)->Run({cpu::RtValue::Of(row)});
        ASSERT_TRUE(out.ok()) << out.status();
        want[r] = std::bit_cast<uint32_t>((*out)[0].array.as<float>()[0]);
      }
      for (int threads : {1, 2}) {
        ThreadPool pool(threads);
        PoolParallel parallel(&pool, /*deterministic=*/false);
        auto out = (*exe)->Run({cpu::RtValue::Of(x)}, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
        ASSERT_TRUE(out.ok()) << out.status();
        for (int64_t r = 0; r < rows; ++r)
          ASSERT_EQ(std::bit_cast<uint32_t>((*out)[0].array.as<float>()[r]), want[r])
              << rows << " rows of " << n << ", row " << r << " at " << threads << " threads";
      }
    }
  }
}

// Few long rows fold in fixed chunks, one intra-op piece each (a whole-array sum uses both
// threads): the same bits at 1 and 2 threads, for a plain and a fused input, and the right sums.
TEST(FusionTest, LongRowsReduceInChunksWithTheSameBitsAtAnyThreadCount) {
  const char* kText = R"(
func.func @main(%x: tensor<3x300007xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %h = stablehlo.constant dense<0.5> : tensor<3x300007xf32>
  %rows = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x300007xf32>, tensor<f32>) -> tensor<3xf32>
  %d = stablehlo.subtract %x, %h : tensor<3x300007xf32>
  %s = stablehlo.multiply %d, %d : tensor<3x300007xf32>
  %sq = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x300007xf32>, tensor<f32>) -> tensor<3xf32>
  %d2 = stablehlo.subtract %x, %h : tensor<3x300007xf32>
  %s2 = stablehlo.multiply %d2, %d2 : tensor<3x300007xf32>
  %all = stablehlo.reduce(%s2 init: %z) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<3x300007xf32>, tensor<f32>) -> tensor<f32>
  return %rows, %sq, %all : tensor<3xf32>, tensor<3xf32>, tensor<f32>
})";
  auto exe = CompileText(kText);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::vector<std::string> names = StepNames(**exe);
  EXPECT_EQ(std::count(names.begin(), names.end(), "fusion(stablehlo.subtract, stablehlo.multiply, stablehlo.reduce)"), 2);
  const int64_t n = 3 * 300007;
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {3, 300007}});
  for (int64_t i = 0; i < n; ++i) x.mutable_as<float>()[i] = static_cast<float>((i * 7919) % 1009) * 0.001f;
  std::vector<std::vector<cpu::RtValue>> results;
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    PoolParallel parallel(&pool, /*deterministic=*/false);
    auto out = (*exe)->Run({cpu::RtValue::Of(x)}, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
    ASSERT_TRUE(out.ok()) << out.status();
    results.push_back(std::move(*out));
  }
  for (int k = 0; k < 3; ++k) {
    const cpu::Array& a = results[0][k].array;
    const cpu::Array& b = results[1][k].array;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.ByteSize()), 0) << "result " << k;
  }
  double maxsq = 0;
  for (int r = 0; r < 3; ++r) {
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < 300007; ++j) {
      const double v = x.as<float>()[r * 300007 + j];
      sum += v;
      sq += (v - 0.5) * (v - 0.5);
      const float d = static_cast<float>(v) - 0.5f;
      maxsq = std::max(maxsq, static_cast<double>(d * d));
    }
    EXPECT_NEAR(results[0][0].array.as<float>()[r], sum, sum * 1e-5) << r;
    EXPECT_NEAR(results[0][1].array.as<float>()[r], sq, sq * 1e-5) << r;
  }
  EXPECT_EQ(results[0][2].array.as<float>()[0], static_cast<float>(maxsq));
}

// Column reductions fold four rows per pass (and the rest one by one): each column still sums
// its rows in order, as a plain loop does, at 1 and 2 threads.
TEST(FusionTest, ColumnReductionsKeepTheRowOrder) {
  auto exe = CompileText(R"(
func.func @main(%x: tensor<1001x3000xf32>) -> (tensor<3000xf32>, tensor<3000xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.constant dense<-5.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1001x3000xf32>, tensor<f32>) -> tensor<3000xf32>
  %x2 = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [0] : (tensor<1001x3000xf32>, tensor<f32>) -> tensor<3000xf32>
  return %s, %x2 : tensor<3000xf32>, tensor<3000xf32>
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {1001, 3000}});
  for (int64_t i = 0; i < 1001 * 3000; ++i)
    x.mutable_as<float>()[i] = static_cast<float>((i * 104729) % 2003) * 0.0137f - 13.0f;
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    PoolParallel parallel(&pool, /*deterministic=*/false);
    auto out = (*exe)->Run({cpu::RtValue::Of(x)}, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int c = 0; c < 3000; ++c) {
      float sum = 0.0f, max = -5.0f;
      for (int r = 0; r < 1001; ++r) {
        const float v = x.as<float>()[r * 3000 + c];
        sum += v;
        max = v > max ? v : max;
      }
      ASSERT_EQ((*out)[0].array.as<float>()[c], sum) << c << " at " << threads << " threads";
      ASSERT_EQ((*out)[1].array.as<float>()[c], max) << c << " at " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace openpjrt::runtime
