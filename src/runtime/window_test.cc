// The typed loops of select_and_scatter (kernels_pool.cc) and scatter (TypedFold) against the
// region paths: the same bits (at any thread count), for values whose sums depend on the order
// of the adds.
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/runtime/test_util.h"
#include "src/runtime/thread_pool.h"
#include "src/support/str.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;

struct Case {
  std::string name;
  std::vector<int64_t> in, src, window, strides;
  std::vector<std::pair<int64_t, int64_t>> pad;
  std::string elem = "f32";
  std::string dir = "GE";
};

std::string Dims(const std::vector<int64_t>& d, const std::string& elem) {
  std::string s = "tensor<";
  for (int64_t v : d) StrAppend(&s, v, "x");
  return StrCat(s, elem, ">");
}

std::string List(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) StrAppend(&s, i ? ", " : "", d[i]);
  return s;
}

// The program of `c`. With `region`, the select region computes its compare through two nots,
// which no typed loop matches: the interpreter of regions runs it.
std::string Program(const Case& c, bool region) {
  const std::string S = StrCat("tensor<", c.elem, ">"), X = Dims(c.in, c.elem), G = Dims(c.src, c.elem);
  const std::string kind = c.elem == "f32" || c.elem == "f64" ? "FLOAT" : "SIGNED";
  std::string select = StrCat("    %c = stablehlo.compare ", c.dir, ", %a, %b, ", kind, " : (", S, ", ", S, ") -> tensor<i1>\n");
  if (region) {
    select += "    %n = stablehlo.not %c : tensor<i1>\n    %nn = stablehlo.not %n : tensor<i1>\n";
    select += "    stablehlo.return %nn : tensor<i1>\n";
  } else {
    select += "    stablehlo.return %c : tensor<i1>\n";
  }
  std::string pad;
  for (size_t i = 0; i < c.pad.size(); ++i) StrAppend(&pad, i ? ", " : "", "[", c.pad[i].first, ", ", c.pad[i].second, "]");
  return StrCat("func.func @main(%x: ", X, ", %g: ", G, ") -> ", X, " {\n",
                "  %z = stablehlo.constant dense<0> : ", S, "\n",
                "  %r = \"stablehlo.select_and_scatter\"(%x, %g, %z) ({\n",
                "  ^bb0(%a: ", S, ", %b: ", S, "):\n", select,
                "  }, {\n  ^bb0(%a: ", S, ", %b: ", S, "):\n",
                "    %s = stablehlo.add %a, %b : ", S, "\n    stablehlo.return %s : ", S, "\n",
                "  }) {window_dimensions = array<i64: ", List(c.window), ">, window_strides = array<i64: ",
                List(c.strides), ">, padding = dense<[", pad, "]> : tensor<", c.pad.size(), "x2xi64>} : (", X, ", ", G,
                ", ", S, ") -> ", X, "\n  return %r : ", X, "\n}\n");
}

// The first element where a and b differ in their bits, or -1.
template <typename T>
int64_t FirstDifference(const cpu::Array& a, const cpu::Array& b) {
  for (int64_t i = 0; i < a.NumElements(); ++i)
    if (std::memcmp(a.as<T>() + i, b.as<T>() + i, sizeof(T)) != 0) return i;
  return -1;
}

// x: few distinct values (ties between window positions) and some NaNs; sources: fractions of
// very different sizes, so that a different order of adds changes the sums' bits.
template <typename T>
cpu::Array Values(ir::ElemKind kind, const std::vector<int64_t>& dims, bool operand, uint32_t seed) {
  cpu::Array a = cpu::Array::Allocate({kind, dims});
  std::mt19937 rng(seed);
  T* p = a.mutable_as<T>();
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (operand) {
        p[i] = rng() % 53 == 0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(rng() % 7);
      } else {
        p[i] = std::ldexp(static_cast<T>(rng() % 1000003) / 1000003, static_cast<int>(rng() % 40) - 20);
      }
    } else {
      p[i] = static_cast<T>(rng() % (operand ? 7 : 100000)) - (operand ? 3 : 50000);
    }
  }
  return a;
}

template <typename T>
void ExpectSameAtAnyThreadCount(const Case& c, ir::ElemKind kind) {
  SCOPED_TRACE(c.name);
  auto fast = CompileText(Program(c, false));
  ASSERT_TRUE(fast.ok()) << fast.status();
  auto region = CompileText(Program(c, true));
  ASSERT_TRUE(region.ok()) << region.status();
  ASSERT_NE((*fast)->program->steps.back().fn, (*region)->program->steps.back().fn) << "both took the same kernel";
  for (uint32_t seed : {1u, 2u}) {
    const cpu::Array x = Values<T>(kind, c.in, true, seed), g = Values<T>(kind, c.src, false, seed + 100);
    auto want = (*region)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(g)});
    ASSERT_TRUE(want.ok()) << want.status();
    const cpu::Array& w = (*want)[0].array;
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      PoolParallel parallel(&pool, /*deterministic=*/false);
      auto got = (*fast)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(g)}, nullptr, nullptr, -1, nullptr,
                              threads > 1 ? &parallel : nullptr);
      ASSERT_TRUE(got.ok()) << got.status();
      const cpu::Array& r = (*got)[0].array;
      ASSERT_EQ(r.ByteSize(), w.ByteSize());
      const int64_t first_diff = FirstDifference<T>(r, w);
      EXPECT_EQ(first_diff, -1) << "threads " << threads << " seed " << seed << ": " << r.as<T>()[first_diff]
                                << " vs " << w.as<T>()[first_diff];
    }
  }
}

// Max-pool gradients (3x3/2, padded) with channels not a multiple of 16, windows overlapping by
// several rows (5x5/1: an element receives adds from windows of both pieces' source rows), and
// windows over the last dimensions (NCHW: one channel side by side).
TEST(SelectAndScatterTest, TypedLoopGivesTheRegionsBitsAtAnyThreadCount) {
  const std::vector<Case> cases = {
      {"nhwc 3x3/2", {1, 48, 48, 40}, {1, 24, 24, 40}, {1, 3, 3, 1}, {1, 2, 2, 1}, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}},
      {"nhwc 5x5/1", {2, 20, 21, 24}, {2, 20, 21, 24}, {1, 5, 5, 1}, {1, 1, 1, 1}, {{0, 0}, {2, 2}, {2, 2}, {0, 0}}},
      {"nchw 3x3/2 GT", {2, 8, 64, 64}, {2, 8, 32, 32}, {1, 1, 3, 3}, {1, 1, 2, 2}, {{0, 0}, {0, 0}, {1, 1}, {1, 1}},
       "f32", "GT"},
      {"nhwc 2x2/2 LE", {1, 64, 64, 70}, {1, 32, 32, 70}, {1, 2, 2, 1}, {1, 2, 2, 1}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}},
       "f32", "LE"},
  };
  for (const Case& c : cases) ExpectSameAtAnyThreadCount<float>(c, ir::ElemKind::kF32);
  Case f64 = cases[1];
  f64.name = "f64 5x5/1";
  f64.elem = "f64";
  ExpectSameAtAnyThreadCount<double>(f64, ir::ElemKind::kF64);
  Case i32 = cases[0];
  i32.name = "i32 3x3/2 LT";
  i32.elem = "i32";
  i32.dir = "LT";
  ExpectSameAtAnyThreadCount<int32_t>(i32, ir::ElemKind::kI32);
}

// A scatter whose update computation is one binary op, against the same scatter through the
// region evaluator (the op's result negated twice): every batch's window applied in order, with
// starts that collide, windows partly outside the operand (their outside elements skipped) and
// windows over two dimensions (runs of a row each).
template <typename T>
void ExpectScatterMatchesRegion(const std::string& elem, const std::string& op, ir::ElemKind kind) {
  SCOPED_TRACE(elem + " " + op);
  auto program = [&](bool region) {
    const std::string S = StrCat("tensor<", elem, ">");
    std::string body = StrCat("    %c = stablehlo.", op, " %a, %b : ", S, "\n");
    if (region) body += StrCat("    %n = stablehlo.negate %c : ", S, "\n    %r = stablehlo.negate %n : ", S, "\n");
    body += StrCat("    stablehlo.return ", region ? "%r" : "%c", " : ", S, "\n");
    return StrCat("func.func @main(%x: tensor<40x7x33x", elem, ">, %i: tensor<3000x2xi32>, %u: tensor<3000x5x33x", elem,
                  ">) -> tensor<40x7x33x", elem, "> {\n  %r = \"stablehlo.scatter\"(%x, %i, %u) ({\n  ^bb0(%a: ", S,
                  ", %b: ", S, "):\n", body,
                  "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], inserted_window_dims = "
                  "[0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<40x7x33x",
                  elem, ">, tensor<3000x2xi32>, tensor<3000x5x33x", elem, ">) -> tensor<40x7x33x", elem,
                  ">\n  return %r : tensor<40x7x33x", elem, ">\n}\n");
  };
  auto fast = CompileText(program(false));
  ASSERT_TRUE(fast.ok()) << fast.status();
  auto region = CompileText(program(true));
  ASSERT_TRUE(region.ok()) << region.status();
  ASSERT_NE((*fast)->program->steps.back().template Params<cpu::ScatterParams>().fold, nullptr);
  ASSERT_EQ((*region)->program->steps.back().template Params<cpu::ScatterParams>().fold, nullptr);
  const cpu::Array x = Values<T>(kind, {40, 7, 33}, false, 7), u = Values<T>(kind, {3000, 5, 33}, false, 8);
  cpu::Array idx = cpu::Array::Allocate({ir::ElemKind::kI32, {3000, 2}});
  std::mt19937 rng(9);
  for (int64_t b = 0; b < 3000; ++b) {
    idx.mutable_as<int32_t>()[2 * b] = static_cast<int32_t>(rng() % 44) - 2;     // rows, some outside
    idx.mutable_as<int32_t>()[2 * b + 1] = static_cast<int32_t>(rng() % 6) - 1;  // windows of 5 in 7
  }
  auto want = (*region)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(idx), cpu::RtValue::Of(u)});
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = (*fast)->Run({cpu::RtValue::Of(x), cpu::RtValue::Of(idx), cpu::RtValue::Of(u)});
  ASSERT_TRUE(got.ok()) << got.status();
  const cpu::Array& w = (*want)[0].array;
  const cpu::Array& r = (*got)[0].array;
  const int64_t first_diff = FirstDifference<T>(r, w);
  EXPECT_EQ(first_diff, -1) << r.as<T>()[first_diff] << " vs " << w.as<T>()[first_diff];
}

TEST(ScatterTest, TypedUpdateLoopGivesTheRegionsBits) {
  for (const char* op : {"add", "multiply", "maximum", "minimum"}) {
    ExpectScatterMatchesRegion<float>("f32", op, ir::ElemKind::kF32);
    ExpectScatterMatchesRegion<double>("f64", op, ir::ElemKind::kF64);
    ExpectScatterMatchesRegion<int32_t>("i32", op, ir::ElemKind::kI32);
  }
}

// Whole rows scattered into a broadcast scalar (an embedding gradient: the compiler hands the
// scalar to the scatter, which fills its result a block at a time with that block's updates,
// ScatterRows), and into an operand passed in (copied a block at a time), against the region
// path: the same bits at any thread count, with rows receiving several updates, indices outside
// the operand (negative and past the end: skipped), windows of two dimensions and i64 indices
// without an index vector dimension.
template <typename T>
void ExpectRowScatterMatchesRegion(const std::string& elem, const std::string& index, bool implicit,
                                   ir::ElemKind kind) {
  SCOPED_TRACE(elem + " " + index + (implicit ? " implicit" : ""));
  const std::string S = StrCat("tensor<", elem, ">"), X = StrCat("tensor<5000x4x16x", elem, ">"),
                    U = StrCat("tensor<4000x4x16x", elem, ">"),
                    I = implicit ? StrCat("tensor<4000x", index, ">") : StrCat("tensor<4000x1x", index, ">");
  auto program = [&](bool region, bool filled) {
    std::string body = StrCat("    %c = stablehlo.add %a, %b : ", S, "\n");
    if (region) body += StrCat("    %n = stablehlo.negate %c : ", S, "\n    %r = stablehlo.negate %n : ", S, "\n");
    body += StrCat("    stablehlo.return ", region ? "%r" : "%c", " : ", S, "\n");
    std::string text = StrCat("func.func @main(%s: ", S, ", %x: ", X, ", %i: ", I, ", %u: ", U, ") -> ", X, " {\n");
    if (filled) text += StrCat("  %z = stablehlo.broadcast_in_dim %s, dims = [] : (", S, ") -> ", X, "\n");
    return StrCat(text, "  %r = \"stablehlo.scatter\"(", filled ? "%z" : "%x", ", %i, %u) ({\n  ^bb0(%a: ", S, ", %b: ", S,
                  "):\n", body,
                  "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], inserted_window_dims = "
                  "[0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (", X, ", ", I,
                  ", ", U, ") -> ", X, "\n  return %r : ", X, "\n}\n");
  };
  const cpu::Array scalar = Values<T>(kind, {}, false, 3), x = Values<T>(kind, {5000, 4, 16}, false, 4);
  const cpu::Array u = Values<T>(kind, {4000, 4, 16}, false, 5);
  const ir::ElemKind ik = index == "i32" ? ir::ElemKind::kI32 : ir::ElemKind::kI64;
  cpu::Array idx = cpu::Array::Allocate({ik, implicit ? cpu::Dims{4000} : cpu::Dims{4000, 1}});
  std::mt19937 rng(11);
  for (int64_t b = 0; b < 4000; ++b) {
    const int64_t v = b % 7 == 0 ? 123 : static_cast<int64_t>(rng() % 5010) - 5;  // row 123 many times
    if (ik == ir::ElemKind::kI32) idx.mutable_as<int32_t>()[b] = static_cast<int32_t>(v);
    else idx.mutable_as<int64_t>()[b] = v;
  }
  for (bool filled : {true, false}) {
    SCOPED_TRACE(filled ? "into the broadcast scalar" : "into the operand");
    const std::vector<cpu::RtValue> args = {cpu::RtValue::Of(scalar), cpu::RtValue::Of(x), cpu::RtValue::Of(idx),
                                            cpu::RtValue::Of(u)};
    auto region = CompileText(program(true, filled));  // no typed fold: the whole fill, then one by one
    ASSERT_TRUE(region.ok()) << region.status();
    auto want = (*region)->Run(args);
    ASSERT_TRUE(want.ok()) << want.status();
    const cpu::Array& w = (*want)[0].array;
    auto fast = CompileText(program(false, filled));
    ASSERT_TRUE(fast.ok()) << fast.status();
    const auto& sp = (*fast)->program->steps.back().template Params<cpu::ScatterParams>();
    ASSERT_NE(sp.fold, nullptr);
    EXPECT_EQ(sp.fill, filled);
    if (filled) EXPECT_EQ((*fast)->program->steps.size(), 1u) << "the broadcast step is still there";
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      PoolParallel parallel(&pool, /*deterministic=*/false);
      auto got = (*fast)->Run(args, nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
      ASSERT_TRUE(got.ok()) << got.status();
      const cpu::Array& r = (*got)[0].array;
      ASSERT_EQ(r.ByteSize(), w.ByteSize());
      const int64_t first_diff = FirstDifference<T>(r, w);
      EXPECT_EQ(first_diff, -1) << "threads " << threads << ": " << r.as<T>()[first_diff] << " vs "
                                << w.as<T>()[first_diff];
    }
  }
}

TEST(ScatterTest, RowsIntoAFilledOrCopiedOperandGiveTheRegionsBits) {
  ExpectRowScatterMatchesRegion<float>("f32", "i32", false, ir::ElemKind::kF32);
  ExpectRowScatterMatchesRegion<double>("f64", "i64", true, ir::ElemKind::kF64);
  ExpectRowScatterMatchesRegion<int32_t>("i32", "i64", false, ir::ElemKind::kI32);
}

}  // namespace
}  // namespace openpjrt::runtime
