// The register evaluator of fused runs (fused_vec.h) gives the block evaluator's bits: random
// runs of every op it knows, f32 (clamp with scalar bounds, NaN and crossed ones included) and
// 32-bit integer ones, with array, splat and repeating inputs, values read again later or
// twice by one op, several outputs, every output mode (direct, streamed, deferred with the first
// output in the first input's storage), a value kept for the caller, and blocks of every length
// and alignment (runs of at least one block: shorter ones stay on the block evaluator).
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/kernels/fused_vec.h"
#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {
namespace {

constexpr UnaryOp kUnary[] = {UnaryOp::kNegate, UnaryOp::kAbs, UnaryOp::kSquare, UnaryOp::kSqrt,
                              UnaryOp::kRsqrt, UnaryOp::kFloor, UnaryOp::kCeil, UnaryOp::kRoundEven,
                              UnaryOp::kExp, UnaryOp::kLog, UnaryOp::kTanh, UnaryOp::kLogistic,
                              UnaryOp::kErf};
constexpr BinaryOp kBinary[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul,
                                BinaryOp::kDiv, BinaryOp::kMax, BinaryOp::kMin};
constexpr UnaryOp kIntUnary[] = {UnaryOp::kNot, UnaryOp::kNegate};
constexpr BinaryOp kIntBinary[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kAnd, BinaryOp::kOr,
                                   BinaryOp::kXor, BinaryOp::kShl, BinaryOp::kShrL, BinaryOp::kShrA};

// A 32-bit integer's bits in a float's storage: a third small counts (shifts in and out of
// range, negative ones), the rest any bits.
float RandomIntBits(std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, 2), small(-3, 40);
  const uint32_t bits = pick(rng) == 0 ? static_cast<uint32_t>(small(rng)) : static_cast<uint32_t>(rng());
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float RandomValue(std::mt19937& rng) {
  static const float kSpecial[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e-39f, 1e30f, -1.0f, 0.5f};
  std::uniform_int_distribution<int> pick(0, 39);  // a quarter special values
  const int k = pick(rng);
  if (k < 10) return kSpecial[k];
  std::normal_distribution<float> normal(0.0f, k < 25 ? 1.0f : 20.0f);
  return normal(rng);
}

struct RandomRun {
  ElemKind kind = ElemKind::kF32;  // f32, or a 32-bit integer kind
  FusedParams p;
  std::vector<std::vector<float>> data;  // per input: its elements (one for a splat, period for a repeat)
  std::vector<int64_t> period, inner;
};

RandomRun MakeRun(std::mt19937& rng, int64_t n, ElemKind kind = ElemKind::kF32) {
  RandomRun r;
  r.kind = kind;
  const bool ints = kind != ElemKind::kF32;
  r.p.num_elements = n;
  std::uniform_int_distribution<int> num_inputs_dist(1, 4), num_ops_dist(1, 9), percent(0, 99);
  const int num_inputs = num_inputs_dist(rng);
  for (int i = 0; i < num_inputs; ++i) {
    const int kind = i == 0 ? 0 : percent(rng) % 3;  // array, splat, repeating
    int64_t size = n, per = 0, inner = 1;
    if (kind == 1) size = 1;
    if (kind == 2 && n % 4 == 0) {
      per = 4;
      inner = n % 8 == 0 ? 2 : 1;
      size = per;
    }
    r.data.emplace_back(size);
    for (float& v : r.data.back()) v = ints ? RandomIntBits(rng) : RandomValue(rng);
    r.p.input_bytes.push_back(4);
    r.p.input_splat.emplace_back();
    if (size == 1) {
      r.p.input_splat.back().resize(4);
      std::memcpy(r.p.input_splat.back().data(), r.data.back().data(), 4);
    }
    r.period.push_back(per);
    r.inner.push_back(inner);
  }
  r.p.input_period = r.period;
  r.p.input_inner = r.inner;
  const int num_ops = num_ops_dist(rng);
  auto splat = [&](int v) { return v < num_inputs && !r.p.input_splat[v].empty(); };
  int outputs = 0;
  for (int k = 0; k < num_ops; ++k) {
    const int values = num_inputs + k;
    std::uniform_int_distribution<int> any(0, values - 1);
    // Mostly the value just computed (chains through the accumulator), else anything.
    auto operand = [&] { return percent(rng) < 60 ? values - 1 : any(rng); };
    FusedParams::Op op;
    op.elem_bytes = 4;
    std::vector<int> splats;
    for (int v = 0; v < num_inputs; ++v)
      if (splat(v)) splats.push_back(v);
    if (ints && percent(rng) < 15) {
      const UnaryOp u = kIntUnary[percent(rng) % std::size(kIntUnary)];
      op.unary = RawUnary(u, kind, kind);
      op.vec = VecUnaryOf(u, kind, kind);
      op.in0 = operand();
    } else if (ints) {
      const BinaryOp b = kIntBinary[percent(rng) % std::size(kIntBinary)];
      op.binary = RawBinary(b, kind, kind);
      op.vec = VecBinaryOf(b, kind, kind);
      op.in0 = operand();
      op.in1 = percent(rng) < 10 ? op.in0 : any(rng);
      if (percent(rng) < 50) std::swap(op.in0, op.in1);
      if (splat(op.in0) != splat(op.in1)) {
        const int side = splat(op.in0) ? 0 : 1;
        op.binary_splat = RawBinarySplat(b, kind, kind, side);
        op.splat_operand = side;
      }
    } else if (percent(rng) < 12) {  // clamp(lo, x, hi), scalar bounds when there are splat inputs
      op.general = RawClamp(ElemKind::kF32);
      op.vec = VecOp::kClamp;
      op.in1 = operand();
      op.in0 = splats.empty() ? any(rng) : splats[percent(rng) % splats.size()];
      op.in2 = splats.empty() ? any(rng) : splats[percent(rng) % splats.size()];
    } else if (percent(rng) < 35) {
      const UnaryOp u = kUnary[percent(rng) % std::size(kUnary)];
      op.unary = RawUnary(u, ElemKind::kF32, ElemKind::kF32);
      op.vec = VecUnaryOf(u, ElemKind::kF32, ElemKind::kF32);
      op.in0 = operand();
    } else {
      const BinaryOp b = kBinary[percent(rng) % std::size(kBinary)];
      op.binary = RawBinary(b, ElemKind::kF32, ElemKind::kF32);
      op.vec = VecBinaryOf(b, ElemKind::kF32, ElemKind::kF32);
      op.in0 = operand();
      op.in1 = percent(rng) < 10 ? op.in0 : any(rng);
      if (percent(rng) < 50) std::swap(op.in0, op.in1);
      if (splat(op.in0) != splat(op.in1)) {  // as the fusion pass does
        const int side = splat(op.in0) ? 0 : 1;
        op.binary_splat = RawBinarySplat(b, ElemKind::kF32, ElemKind::kF32, side);
        op.splat_operand = side;
      }
    }
    if (k == num_ops - 1 || percent(rng) < 25) op.output = outputs++;
    r.p.ops.push_back(op);
  }
  return r;
}

struct Result {
  std::vector<std::vector<float>> outs;
  std::vector<float> kept;
};

// Runs r with the evaluator VecRunner() gives now, in blocks of random lengths.
Result Evaluate(const RandomRun& r, bool stream, bool deferred, int keep, uint32_t seed) {
  const int64_t n = r.p.num_elements;
  const size_t num_inputs = r.data.size();
  std::vector<std::vector<float>> copies = r.data;  // deferred: output 0 overwrites input 0
  FusedInputs in;
  in.ptr.resize(num_inputs);
  in.splat.resize(num_inputs);
  in.period.assign(r.period.begin(), r.period.end());
  in.inner.assign(r.inner.begin(), r.inner.end());
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!r.p.input_splat[i].empty()) {
      const int64_t len = std::min<int64_t>(n, kFusedBlock);
      in.splat[i].reset(new uint8_t[len * 4]);
      for (int64_t e = 0; e < len; ++e) std::memcpy(in.splat[i].get() + 4 * e, copies[i].data(), 4);
      in.ptr[i] = in.splat[i].get();
    } else {
      in.ptr[i] = reinterpret_cast<const uint8_t*>(copies[i].data());
    }
  }
  std::vector<Array> outs;
  for (const FusedParams::Op& op : r.p.ops) {
    if (op.output < 0) continue;
    const ArrayType t{r.kind, {n}};
    if (deferred && outs.empty()) {
      outs.push_back(Array::Wrap(t, std::shared_ptr<const uint8_t>(
                                        reinterpret_cast<const uint8_t*>(copies[0].data()), [](const uint8_t*) {})));
    } else {
      outs.push_back(Array::Allocate(t));
    }
  }
  Result res;
  res.kept.resize(n);
  FusedBlockEval eval(r.p, in, &outs, stream, deferred, keep);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> len(1, kFusedBlock);
  for (int64_t start = 0; start < n;) {
    const int64_t count = std::min(n - start, len(rng) < 300 ? kFusedBlock : len(rng));
    eval.Run(start, count);
    if (keep >= 0) std::memcpy(res.kept.data() + start, eval.Value(keep), count * 4);
    start += count;
  }
  eval.Finish();
  for (const Array& o : outs) res.outs.emplace_back(o.as<float>(), o.as<float>() + n);
  return res;
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b)); }

void ExpectSameResults(ElemKind kind, uint32_t seed, int trials) {
  std::mt19937 rng(seed);
  const int64_t kSizes[] = {1024, 1040, 1100, 2048, 3000, 4096, 5000};  // the evaluator's runs
  const bool ints = kind != ElemKind::kF32;
  auto same = [&](float a, float b) { return ints ? std::memcmp(&a, &b, 4) == 0 : SameBits(a, b); };
  for (int trial = 0; trial < trials; ++trial) {
    const int64_t n = kSizes[trial % std::size(kSizes)];
    const RandomRun r = MakeRun(rng, n, kind);
    const int mode = trial % 3;  // direct, streamed, deferred
    const bool stream = mode == 1, deferred = mode == 2;
    int keep = -1;
    if (trial % 5 == 4) {  // a value without an output, read by the caller after each block
      for (size_t k = 0; k < r.p.ops.size(); ++k)
        if (r.p.ops[k].output < 0) keep = static_cast<int>(k);
    }
    const uint32_t run_seed = rng();
    EnableVecRunner(false);
    const Result want = Evaluate(r, stream, deferred, keep, run_seed);
    EnableVecRunner(true);
    const Result got = Evaluate(r, stream, deferred, keep, run_seed);
    ASSERT_EQ(got.outs.size(), want.outs.size());
    for (size_t j = 0; j < want.outs.size(); ++j)
      for (int64_t e = 0; e < n; ++e)
        ASSERT_TRUE(same(got.outs[j][e], want.outs[j][e]))
            << "trial " << trial << " (" << r.p.ops.size() << " ops, mode " << mode << ") output " << j
            << " element " << e << ": " << got.outs[j][e] << " vs " << want.outs[j][e];
    if (keep >= 0) {
      for (int64_t e = 0; e < n; ++e)
        ASSERT_TRUE(same(got.kept[e], want.kept[e])) << "trial " << trial << " kept value, element " << e;
    }
  }
}

TEST(FusedVec, RegisterEvaluatorGivesTheBlockEvaluatorsBits) {
  if (!VecRunner()) GTEST_SKIP() << "no register evaluator in this build or on this CPU";
  ExpectSameResults(ElemKind::kF32, 20261202, 400);
}

// 32-bit integer runs (wrapping arithmetic, bitwise ops, shifts by counts in and out of range,
// negative ones included), signed and unsigned.
TEST(FusedVec, IntegerRunsGiveTheBlockEvaluatorsBits) {
  if (!VecRunner()) GTEST_SKIP() << "no register evaluator in this build or on this CPU";
  ExpectSameResults(ElemKind::kU32, 20261203, 300);
  ExpectSameResults(ElemKind::kI32, 20261204, 300);
}

// Runs r through FusedSmall (fused.h) as a step over slots: the run's inputs in slots 0..n-1
// (splat inputs' slots hold `splat_slot_data` instead, which FusedSmall must not read), its
// outputs after them.
std::vector<std::vector<float>> RunSmall(const RandomRun& r, const std::vector<float>& splat_slot_data) {
  const int64_t n = r.p.num_elements;
  const int num_inputs = static_cast<int>(r.data.size());
  Step s;
  ExecState st;
  for (int i = 0; i < num_inputs; ++i) {
    s.in.push_back(i);
    const std::vector<float>& values = r.p.input_splat[i].empty() ? r.data[i] : splat_slot_data;
    Array a = Array::Allocate(ArrayType{r.kind, {static_cast<int64_t>(values.size())}});
    std::memcpy(a.mutable_data(), values.data(), values.size() * 4);
    st.slots.push_back(RtValue::Of(std::move(a)));
  }
  for (const FusedParams::Op& op : r.p.ops) {
    if (op.output < 0) continue;
    s.out.push_back(static_cast<int>(st.slots.size()));
    s.out_types.push_back(ArrayType{r.kind, {n}});
    st.slots.emplace_back();
  }
  EXPECT_TRUE(FusedSmall(r.p, s, st));
  EXPECT_TRUE(st.ok()) << st.status;
  std::vector<std::vector<float>> outs;
  for (int slot : s.out) outs.emplace_back(st.slots[slot].array.as<float>(), st.slots[slot].array.as<float>() + n);
  return outs;
}

// Runs of at most a block (a loop body's: FusedSmall, its input sources and scratch offsets
// worked out at the first run and kept with the params) give the block evaluator's bits, and a
// copy of the params made after a run works its own out: here the copy's first input becomes a
// splat, whose slot then holds other values that a layout kept from the original would read.
TEST(FusedVec, SmallRunsGiveTheBlockEvaluatorsBitsAndCopiesPlanAfresh) {
  std::mt19937 rng(20261206);
  const int64_t kSizes[] = {1, 5, 16, 64, 100, 1000, 1024};
  int copies_checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t n = kSizes[trial % std::size(kSizes)];
    RandomRun r = MakeRun(rng, n);
    auto expect_same = [&](const RandomRun& run, const std::vector<std::vector<float>>& got, const char* what) {
      const Result want = Evaluate(run, false, false, -1, 1);
      ASSERT_EQ(got.size(), want.outs.size());
      for (size_t j = 0; j < got.size(); ++j)
        for (int64_t e = 0; e < n; ++e)
          ASSERT_TRUE(SameBits(got[j][e], want.outs[j][e]))
              << what << ", trial " << trial << " output " << j << " element " << e << ": " << got[j][e] << " vs "
              << want.outs[j][e];
    };
    const std::vector<float> garbage(static_cast<size_t>(n), 12345.0f);
    expect_same(r, RunSmall(r, garbage), "original");
    expect_same(r, RunSmall(r, garbage), "original, again");
    bool reads_input0 = false;
    for (const FusedParams::Op& op : r.p.ops)
      reads_input0 = reads_input0 || op.in0 == 0 || (!op.unary && op.in1 == 0) || (op.general && op.in2 == 0);
    if (!reads_input0) continue;
    RandomRun copy = r;  // the original's layout is made by now
    const float v = 0.75f;
    copy.data[0] = {v};
    copy.p.input_splat[0].resize(4);
    std::memcpy(copy.p.input_splat[0].data(), &v, 4);
    for (FusedParams::Op& op : copy.p.ops) op.binary_splat = nullptr;  // (the plain loops over expanded splats)
    expect_same(copy, RunSmall(copy, r.data[0]), "copy");
    RandomRun assigned = r;
    expect_same(assigned, RunSmall(assigned, garbage), "second copy");  // (its own layout made)
    assigned = copy;  // assigned over: the layout made for the old params goes
    expect_same(assigned, RunSmall(assigned, r.data[0]), "assigned copy");
    ++copies_checked;
  }
  EXPECT_GT(copies_checked, 50);
}

}  // namespace
}  // namespace openpjrt::cpu
