// Row groups (cpu/kernels/fused_rows.h): softmax, log-softmax and layer norm as JAX writes them
// run a block of rows at a time and give the bits of their steps run one after another, for rows
// of every length class (shorter than a register chunk, odd, one block, several blocks), values
// the group keeps for later steps, special values (NaN, infinities, signed zeros), at 1 and 2
// threads.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/kernels/fused_rows.h"
#include "src/runtime/executable.h"
#include "src/runtime/test_util.h"
#include "src/runtime/thread_pool.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;
using test_util::ReplaceAll;
using test_util::StepNames;

// jax.nn.softmax(x, axis=-1), also returning the exponentials (a value the group keeps).
const char* kSoftmax = R"(
func.func @main(%x: tensor<RxCxf32>) -> (tensor<RxCxf32>, tensor<RxCxf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<RxCxf32>, tensor<f32>) -> tensor<Rxf32>
  %ninf_r = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> tensor<Rxf32>
  %m2 = stablehlo.maximum %ninf_r, %m : tensor<Rxf32>
  %m3 = stablehlo.broadcast_in_dim %m2, dims = [0] : (tensor<Rxf32>) -> tensor<Rx1xf32>
  %mb = stablehlo.broadcast_in_dim %m3, dims = [0, 1] : (tensor<Rx1xf32>) -> tensor<RxCxf32>
  %d = stablehlo.subtract %x, %mb : tensor<RxCxf32>
  %e = stablehlo.exponential %d : tensor<RxCxf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxCxf32>, tensor<f32>) -> tensor<Rxf32>
  %s3 = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<Rxf32>) -> tensor<Rx1xf32>
  %sb = stablehlo.broadcast_in_dim %s3, dims = [0, 1] : (tensor<Rx1xf32>) -> tensor<RxCxf32>
  %y = stablehlo.divide %e, %sb : tensor<RxCxf32>
  return %y, KEPT : tensor<RxCxf32>, tensor<RxCxf32>
}
)";

// jax.nn.log_softmax(x, axis=-1).
const char* kLogSoftmax = R"(
func.func @main(%x: tensor<RxCxf32>) -> tensor<RxCxf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<RxCxf32>, tensor<f32>) -> tensor<Rxf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<Rxf32>) -> tensor<RxCxf32>
  %d = stablehlo.subtract %x, %mb : tensor<RxCxf32>
  %e = stablehlo.exponential %d : tensor<RxCxf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxCxf32>, tensor<f32>) -> tensor<Rxf32>
  %l = stablehlo.log %s : tensor<Rxf32>
  %lb = stablehlo.broadcast_in_dim %l, dims = [0] : (tensor<Rxf32>) -> tensor<RxCxf32>
  %y = stablehlo.subtract %d, %lb : tensor<RxCxf32>
  return %y : tensor<RxCxf32>
}
)";

// A layer norm with jnp.var's guard on the count (a select on a scalar predicate), a per-column
// scale and bias, and the mean returned too.
const char* kLayerNorm = R"(
func.func @main(%x: tensor<RxCxf32>, %g: tensor<Cxf32>, %b: tensor<Cxf32>) -> (tensor<RxCxf32>, tensor<Rxf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxCxf32>, tensor<f32>) -> tensor<Rxf32>
  %n = stablehlo.constant dense<NCOLS> : tensor<Rxf32>
  %m = stablehlo.divide %s, %n : tensor<Rxf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<Rxf32>) -> tensor<RxCxf32>
  %d = stablehlo.subtract %x, %mb : tensor<RxCxf32>
  %q = stablehlo.multiply %d, %d : tensor<RxCxf32>
  %t = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : (tensor<RxCxf32>, tensor<f32>) -> tensor<Rxf32>
  %k = stablehlo.constant dense<NCOLS> : tensor<f32>
  %ok = stablehlo.compare GT, %k, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %v0 = stablehlo.divide %t, %n : tensor<Rxf32>
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<Rxf32>
  %v = stablehlo.select %ok, %v0, %nan : tensor<i1>, tensor<Rxf32>
  %eps = stablehlo.constant dense<1.0e-5> : tensor<Rxf32>
  %ve = stablehlo.add %v, %eps : tensor<Rxf32>
  %r = stablehlo.rsqrt %ve : tensor<Rxf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<Rxf32>) -> tensor<RxCxf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<Cxf32>) -> tensor<RxCxf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<Cxf32>) -> tensor<RxCxf32>
  %y0 = stablehlo.multiply %d, %rb : tensor<RxCxf32>
  %y1 = stablehlo.multiply %y0, %gb : tensor<RxCxf32>
  %y = stablehlo.add %y1, %bb : tensor<RxCxf32>
  return %y, %m : tensor<RxCxf32>, tensor<Rxf32>
}
)";

// Row values with every class of special value here and there: NaN, infinities, zeros of both
// signs, rows all -inf (softmax's maximum then -inf: NaN results).
cpu::Array Rows(int64_t rows, int64_t cols, uint32_t seed) {
  cpu::Array x = cpu::Array::Allocate({ir::ElemKind::kF32, {rows, cols}});
  float* p = x.mutable_as<float>();
  for (int64_t i = 0; i < rows * cols; ++i) {
    const uint64_t h = (static_cast<uint64_t>(i) * 2654435761u + seed) % 1000003;
    p[i] = static_cast<float>(h % 2001) * 0.004f - 4.0f;
    if (h % 997 == 0) p[i] = NAN;
    if (h % 991 == 0) p[i] = INFINITY;
    if (h % 983 == 0) p[i] = -INFINITY;
    if (h % 977 == 0) p[i] = (h & 1) ? 0.0f : -0.0f;
  }
  for (int64_t c = 0; c < cols && rows > 2; ++c) p[2 * cols + c] = -INFINITY;
  return x;
}

cpu::Array Column(int64_t cols, float base) {
  cpu::Array a = cpu::Array::Allocate({ir::ElemKind::kF32, {cols}});
  for (int64_t i = 0; i < cols; ++i) a.mutable_as<float>()[i] = base + static_cast<float>(i % 7) * 0.125f;
  return a;
}

// Compiles `text` with and without row groups (the grouped program must hold a group, the other
// none) and runs both on `args` at 1 and 2 threads: every result must be the same bytes (NaNs
// only NaNs).
void ExpectGroupGivesStepsBits(const std::string& text, const std::vector<cpu::Array>& args, const std::string& what) {
  auto grouped = CompileText(text);
  auto apart = [&] {
    const test_util::RowGroupsOff steps_apart;
    return CompileText(text);
  }();
  ASSERT_TRUE(grouped.ok()) << grouped.status();
  ASSERT_TRUE(apart.ok()) << apart.status();
  auto has_group = [](const cpu::Executable& e) {
    for (const std::string& name : StepNames(e))
      if (name.starts_with("rows(")) return true;
    return false;
  };
  EXPECT_TRUE(has_group(**grouped)) << what << ": " << ::testing::PrintToString(StepNames(**grouped));
  EXPECT_FALSE(has_group(**apart)) << what;
  for (int threads : {1, 2}) {
    auto got = test_util::RunWithThreads(**grouped, args, threads);
    auto want = test_util::RunWithThreads(**apart, args, threads);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(got->size(), want->size());
    for (size_t r = 0; r < want->size(); ++r) {
      const cpu::Array& g = (*got)[r].array;
      const cpu::Array& w = (*want)[r].array;
      ASSERT_EQ(g.type(), w.type()) << what;
      const float* gp = g.as<float>();
      const float* wp = w.as<float>();
      for (int64_t i = 0; i < w.NumElements(); ++i) {
        uint32_t gb, wb;
        std::memcpy(&gb, gp + i, 4);
        std::memcpy(&wb, wp + i, 4);
        // (Any NaN for a NaN: which one an op with two NaN operands passes on is the first
        // operand's on x86, and the evaluator's register and block paths may order commutative
        // operands differently; the specification leaves NaN payloads and signs open.)
        if (std::isnan(gp[i]) && std::isnan(wp[i])) continue;
        ASSERT_EQ(gb, wb) << what << ", result " << r << ", element " << i << " (row " << i / w.dims().back() << "), "
                          << threads << " threads: " << gp[i] << " vs " << wp[i];
      }
    }
  }
}

std::string Shaped(const char* program, int64_t rows, int64_t cols) {
  std::string text = ReplaceAll(program, "RxC", std::to_string(rows) + "x" + std::to_string(cols));
  text = ReplaceAll(text, "Rx1", std::to_string(rows) + "x1");
  text = ReplaceAll(text, "tensor<Rx", "tensor<" + std::to_string(rows) + "x");
  text = ReplaceAll(text, "tensor<Cx", "tensor<" + std::to_string(cols) + "x");
  return ReplaceAll(text, "NCOLS", std::to_string(cols) + ".0");
}

constexpr int64_t kCols[] = {16, 33, 128, 200, 512, 1000, 3000};
int64_t RowsFor(int64_t cols) { return 7 + 40000 / cols; }

TEST(RowGroupTest, SoftmaxGivesItsStepsBits) {
  for (int64_t cols : kCols)
    for (const bool keep : {false, true}) {
      const int64_t rows = RowsFor(cols);
      std::string text = ReplaceAll(Shaped(kSoftmax, rows, cols), "KEPT", keep ? "%e" : "%y");
      ExpectGroupGivesStepsBits(text, {Rows(rows, cols, 1)},
                                "softmax, rows of " + std::to_string(cols) + (keep ? ", exponentials kept" : ""));
    }
}

TEST(RowGroupTest, LogSoftmaxGivesItsStepsBits) {
  for (int64_t cols : kCols) {
    const int64_t rows = RowsFor(cols);
    ExpectGroupGivesStepsBits(Shaped(kLogSoftmax, rows, cols), {Rows(rows, cols, 2)},
                              "log-softmax, rows of " + std::to_string(cols));
  }
}

TEST(RowGroupTest, LayerNormGivesItsStepsBits) {
  for (int64_t cols : kCols) {
    const int64_t rows = RowsFor(cols);
    ExpectGroupGivesStepsBits(Shaped(kLayerNorm, rows, cols), {Rows(rows, cols, 3), Column(cols, 0.5f), Column(cols, -0.25f)},
                              "layer norm, rows of " + std::to_string(cols));
  }
}

// An output of 16 MiB or more is written with non-temporal stores (fused_rows.cc, Streams): a
// layer norm over 4096 x 1024, and a softmax whose result hosts its exponentials (not streamed).
TEST(RowGroupTest, StreamedOutputsGiveTheStepsBits) {
  ExpectGroupGivesStepsBits(Shaped(kLayerNorm, 4096, 1024), {Rows(4096, 1024, 4), Column(1024, 0.5f), Column(1024, -0.25f)},
                            "layer norm over 4096 x 1024");
  ExpectGroupGivesStepsBits(ReplaceAll(Shaped(kSoftmax, 4096, 1024), "KEPT", "%y"), {Rows(4096, 1024, 5)},
                            "softmax over 4096 x 1024");
}

// The kernel checks its inputs against what the compiler saw (executions check the arguments, so
// only a program put together wrongly gets here): an error naming the check, never a read out of
// bounds.
TEST(RowGroupTest, InputsOfTheWrongShapeAreAnErrorNotARead) {
  auto p = std::make_shared<cpu::FusedRowsParams>();
  p->rows = 64;
  p->cols = 32;
  cpu::FusedRowsParams::Value x, init, sums;
  x.in_slot = 0;
  init.in_slot = 1;
  sums.per_row = true;
  sums.type = {ir::ElemKind::kF32, {64}};
  sums.out_slots = {2};
  sums.out_types = {sums.type};
  p->values = {x, init, sums};
  cpu::FusedRowsParams::Member fold;
  fold.in = {0, 1};
  fold.out = {2};
  p->members = {fold};
  cpu::Step step;
  step.fn = cpu::FusedRowsKernel();
  step.name = "rows(stablehlo.reduce)";
  step.in = {0, 1};
  step.out = {2};
  step.out_types = {sums.type};
  step.params = p;
  cpu::Array zero = cpu::Array::Allocate({ir::ElemKind::kF32, {}});
  zero.mutable_as<float>()[0] = 0;
  for (const int64_t rows : {int64_t{64}, int64_t{63}}) {
    cpu::ExecState st;
    st.slots.resize(3);
    st.slots[0] = cpu::RtValue::Of(cpu::Array::Allocate({ir::ElemKind::kF32, {rows, 32}}));
    std::fill_n(st.slots[0].array.mutable_as<float>(), rows * 32, 1.0f);
    st.slots[1] = cpu::RtValue::Of(zero);
    step.fn(step, st);
    if (rows == 64) {
      ASSERT_TRUE(st.status.ok()) << st.status;
      EXPECT_EQ(st.slots[2].array.as<float>()[63], 32.0f);
    } else {
      EXPECT_FALSE(st.status.ok());
      EXPECT_NE(std::string(st.status.message()).find("wrong shape"), std::string::npos) << st.status;
    }
  }
}

// The same for a run member: a per-row run (negate) over an input one element short.
TEST(RowGroupTest, RunInputsOfTheWrongSizeAreAnErrorNotARead) {
  auto run = std::make_shared<cpu::FusedParams>();
  run->num_elements = 64;
  cpu::FusedParams::Op neg;
  neg.unary = cpu::RawUnary(cpu::UnaryOp::kNegate, ir::ElemKind::kF32, ir::ElemKind::kF32);
  neg.output = 0;
  neg.elem_bytes = 4;
  run->ops = {neg};
  run->input_bytes = {4};
  run->input_splat = {{}};
  run->input_period = {0};
  run->input_inner = {1};
  auto p = std::make_shared<cpu::FusedRowsParams>();
  p->rows = 64;
  p->cols = 32;
  cpu::FusedRowsParams::Value in, out;
  in.in_slot = 0;
  out.per_row = true;
  out.type = {ir::ElemKind::kF32, {64}};
  out.out_slots = {1};
  out.out_types = {out.type};
  p->values = {in, out};
  cpu::FusedRowsParams::Member m;
  m.run = run;
  m.in = {0};
  m.out = {1};
  p->members = {m};
  cpu::Step step;
  step.fn = cpu::FusedRowsKernel();
  step.name = "rows(stablehlo.negate)";
  step.in = {0};
  step.out = {1};
  step.out_types = {out.type};
  step.params = p;
  for (const int64_t n : {int64_t{64}, int64_t{63}}) {
    cpu::ExecState st;
    st.slots.resize(2);
    st.slots[0] = cpu::RtValue::Of(cpu::Array::Allocate({ir::ElemKind::kF32, {n}}));
    std::fill_n(st.slots[0].array.mutable_as<float>(), n, 2.0f);
    step.fn(step, st);
    if (n == 64) {
      ASSERT_TRUE(st.status.ok()) << st.status;
      EXPECT_EQ(st.slots[1].array.as<float>()[63], -2.0f);
    } else {
      EXPECT_FALSE(st.status.ok());
      EXPECT_NE(std::string(st.status.message()).find("run input 0 of the wrong size"), std::string::npos) << st.status;
    }
  }
}

}  // namespace
}  // namespace openpjrt::runtime
