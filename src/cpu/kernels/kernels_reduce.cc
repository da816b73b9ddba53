// reduce: a typed loop when the reducer is a single binary op; an elementwise reducer region
// (argmax's and argmin's, variadic reductions) evaluated for many accumulators at once
// (LaneRegion); any other reducer region once per element (the oracle path).
#include <algorithm>
#include <bit>
#include <limits>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "src/cpu/kernels/elementwise_ops.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/kernels/reduce_internal.h"
#include "src/cpu/kernels/region_lanes.h"
#include "src/cpu/exec/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using namespace ops;

// One step of a fold, acc op x, for a float C (float or double). Add and the integer kinds are
// ApplyBinary's. Max and min are its IEEE maximum and minimum with one difference that lets the
// loops vectorise (ApplyBinary's NaN test, two comparisons joined by ||, became branches: a column
// maximum of 2048 x 2048 f32 ran scalar, 8.5 ms against the sum's 0.58, and f64 maxima 13 ms either
// way): a NaN is kept as it came (nothing compares greater than, less than or equal to it, so
// once in the accumulator it stays), and the fold's results are made the quiet NaN afterwards
// (CanonicalNaNs), which gives ApplyBinary's results.
template <BinaryOp Op>
inline constexpr bool kPicks = Op == BinaryOp::kMax || Op == BinaryOp::kMin;

// Folds K lanes into lane[0] as a tree of halves: lane[j] = f(lane[j], lane[j + w]) for
// w = K/2, K/4, ..., 1, each level a loop of constant length that the compiler vectorizes (one
// loop over w had left every level scalar, through memory: ~20% of the row maxima over rows of
// 128 f32).
template <int K, typename V, typename F>
[[gnu::always_inline]] inline void FoldHalves(V* lane, F f) {
  if constexpr (K > 1) {
    for (int j = 0; j < K / 2; ++j) lane[j] = f(lane[j], lane[j + K / 2]);
    FoldHalves<K / 2>(lane, f);
  }
}
template <BinaryOp Op, typename C>
[[gnu::always_inline]] inline C FoldStep(C acc, C x) {
  if constexpr (kPicks<Op> && std::is_floating_point_v<C>) {
    using Bits = std::conditional_t<sizeof(C) == 8, uint64_t, uint32_t>;
    constexpr bool kMax = Op == BinaryOp::kMax;
    const Bits ab = std::bit_cast<Bits>(acc), xb = std::bit_cast<Bits>(x);
    // (Equal operands differ at most in the sign of zero: max takes +0, min -0.)
    const C same = std::bit_cast<C>(kMax ? Bits(ab & xb) : Bits(ab | xb));
    C r = (kMax ? x > acc : x < acc) ? x : acc;
    r = x == acc ? same : r;
    return x != x ? x : r;
  } else {
    return ApplyBinary<Op, Traits<std::is_same_v<C, double> ? ElemKind::kF64 : ElemKind::kF32>>(acc, x);
  }
}
// The quiet NaN for any NaN of a fold by FoldStep. (FoldRun's results need none: ApplyBinary
// folds each into its accumulator.)
template <typename C>
inline void CanonicalNaNs(C* out, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    if (out[k] != out[k]) out[k] = std::numeric_limits<C>::quiet_NaN();
}
// FoldStep for the kinds computed in float or double (f16, bf16 and the 8-bit floats are
// computed in f32: their maxima had run scalar, bf16's along columns 5.5x XLA:CPU's time),
// ApplyBinary for the others.
template <BinaryOp Op, typename T>
inline constexpr bool kFoldsAsFloat = std::is_floating_point_v<typename T::C>;
template <BinaryOp Op, typename T>
[[gnu::always_inline]] inline typename T::C Fold(typename T::C acc, typename T::C x) {
  using C = typename T::C;
  if constexpr (kFoldsAsFloat<Op, T>) return FoldStep<Op>(acc, x);
  else return static_cast<C>(ApplyBinary<Op, T>(acc, x));
}
// The kinds whose folds run in the per-CPU loops below: f32 and f64 for add, max and min, and
// f16 and bf16 (read as f32) for max and min (JAX reduces them in their own kind; their sums come
// converted to f32 first).
template <BinaryOp Op, typename T>
inline constexpr bool kRowLoops =
    ((std::is_same_v<T, Traits<ElemKind::kF32>> || std::is_same_v<T, Traits<ElemKind::kF64>>) &&
     (Op == BinaryOp::kAdd || kPicks<Op>)) ||
    ((std::is_same_v<T, Traits<ElemKind::kF16>> || std::is_same_v<T, Traits<ElemKind::kBF16>>) && kPicks<Op>);
// out[k] op= x[k] for rows of kind T (column reductions fold one input row into the row of
// accumulators), compiled for AVX-512, AVX2 and the baseline and chosen at run time.
template <BinaryOp Op, typename T>
[[gnu::always_inline]] inline void FoldRowBody(typename T::C* __restrict out, const typename T::S* __restrict x,
                                               int64_t n) {
  for (int64_t k = 0; k < n; ++k) out[k] = FoldStep<Op>(out[k], T::Load(x[k]));
}
// Four input rows ld apart folded in row order: each accumulator is read and written once per
// four rows, and four streams of the input are in flight.
template <BinaryOp Op, typename T>
[[gnu::always_inline]] inline void FoldRows4Body(typename T::C* __restrict out, const typename T::S* __restrict x,
                                                 int64_t ld, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    auto v = FoldStep<Op>(out[k], T::Load(x[k]));
    v = FoldStep<Op>(v, T::Load(x[ld + k]));
    v = FoldStep<Op>(v, T::Load(x[2 * ld + k]));
    out[k] = FoldStep<Op>(v, T::Load(x[3 * ld + k]));
  }
}
template <BinaryOp Op, typename T>
auto FoldRows4() {
  static const auto fn = ForCpu<&FoldRows4Body<Op, T>>();
  return fn;
}
template <BinaryOp Op, typename T>
auto FoldRow() {
  static const auto fn = ForCpu<&FoldRowBody<Op, T>>();
  return fn;
}

// For each input element (row-major), the linear index of the output element it reduces into.
struct ReduceMap {
  std::vector<int64_t> in_dims, out_stride_for_in;  // per input dim: output stride, 0 if reduced
};

ReduceMap MakeMap(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& dims) {
  ReduceMap m;
  m.in_dims = in_dims;
  std::vector<int64_t> out_dims;
  std::vector<bool> reduced(in_dims.size(), false);
  for (int64_t d : dims) reduced[d] = true;
  for (size_t i = 0; i < in_dims.size(); ++i)
    if (!reduced[i]) out_dims.push_back(in_dims[i]);
  std::vector<int64_t> os = RowMajorStrides(out_dims);
  m.out_stride_for_in.assign(in_dims.size(), 0);
  size_t k = 0;
  for (size_t i = 0; i < in_dims.size(); ++i)
    if (!reduced[i]) m.out_stride_for_in[i] = os[k++];
  return m;
}

// Calls f(input_index, output_index) for every input element in row-major order.
template <typename F>
void ForEachMapped(const ReduceMap& m, F&& f) {
  const size_t rank = m.in_dims.size();
  int64_t n = 1;
  for (int64_t d : m.in_dims) n *= d;
  if (n == 0) return;
  std::vector<int64_t> idx(rank, 0);
  int64_t out = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, out);
    for (int64_t k = static_cast<int64_t>(rank) - 1; k >= 0; --k) {
      out += m.out_stride_for_in[k];
      if (++idx[k] < m.in_dims[k]) break;
      out -= m.out_stride_for_in[k] * m.in_dims[k];
      idx[k] = 0;
    }
  }
}

}  // namespace

Blocks MakeBlocks(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& dims) {
  std::vector<bool> reduced(in_dims.size(), false);
  for (int64_t d : dims) reduced[d] = true;
  std::vector<std::pair<bool, int64_t>> runs;  // (reduced, size)
  for (size_t i = 0; i < in_dims.size(); ++i) {
    if (in_dims[i] == 1) continue;
    if (!runs.empty() && runs.back().first == reduced[i]) {
      runs.back().second *= in_dims[i];
    } else {
      runs.push_back({reduced[i], in_dims[i]});
    }
  }
  Blocks b;
  size_t i = 0;
  if (i < runs.size() && runs[i].first && runs.size() >= 3) b.r0 = runs[i++].second;
  if (i < runs.size() && !runs[i].first) b.a = runs[i++].second;
  if (i < runs.size() && runs[i].first) b.r = runs[i++].second;
  if (i < runs.size() && !runs[i].first) b.b = runs[i++].second;
  b.ok = i == runs.size();
  return b;
}

namespace {

// Where a fast reduction reads its input: Get(offset, len) returns len (<= kFusedBlock)
// consecutive input elements starting at linear offset `offset`. A plain array hands out a
// pointer into itself; an absorbed producer run computes the elements into a block buffer.
template <typename S>
struct ArraySource {
  const S* x;
  const S* Get(int64_t offset, int64_t) const { return x + offset; }
};

template <typename S>
struct FusedSource {
  FusedBlockEval eval;
  size_t op;  // the run's op whose values are the reduction's input
  const S* Get(int64_t offset, int64_t len) {
    eval.Run(offset, len);
    return reinterpret_cast<const S*>(eval.ValueAt(op, offset));
  }
};

// Max and min over rows of 64 elements or more keep only the ordered pick (a > b ? a : b, one
// vmaxps) in the loop and note NaNs beside it: any NaN gives the quiet NaN, and a result of zero
// takes its sign from a second look at the row (max: +0 if any element is +0; min: -0 if any is
// -0), which the IEEE operation would have chosen. Maxima of 2048 rows of 2048 at one thread,
// against 64 lanes of compare-and-blend chains: 632 -> 519 us (XLA:CPU 565 us), 646 -> 600 us in
// a later, noisier sitting.
template <BinaryOp Op>
[[gnu::always_inline]] inline void FoldRowPickBody(const float* __restrict x, int64_t n, float* __restrict result) {
  constexpr bool kMax = Op == BinaryOp::kMax;
  constexpr int kLanes = 64;
  float lane[kLanes];
  int32_t nan[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    lane[j] = x[j];
    nan[j] = x[j] != x[j];
  }
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[i + j];
      lane[j] = kMax ? (v > lane[j] ? v : lane[j]) : (v < lane[j] ? v : lane[j]);
      nan[j] |= v != v;
    }
  for (int j = 0; i < n; ++i, ++j) {
    const float v = x[i];
    lane[j] = kMax ? (v > lane[j] ? v : lane[j]) : (v < lane[j] ? v : lane[j]);
    nan[j] |= v != v;
  }
  int32_t any_nan = 0;
  for (int j = 0; j < kLanes; ++j) any_nan |= nan[j];
  if (any_nan) {
    *result = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  // The lanes folded as a tree of halves (vector picks; no NaN is left and zeros are settled
  // below, so any order gives the same value): a chain of 63 scalar compares had cost ~300
  // cycles a row, a quarter of a 1024-wide row's time in L2.
  FoldHalves<kLanes>(lane, [](float a, float b) { return kMax ? (b > a ? b : a) : (b < a ? b : a); });
  float m = lane[0];
  if (m == 0) {
    const uint32_t preferred = kMax ? 0u : 0x80000000u;  // +0 for max, -0 for min
    int32_t found = 0;
    for (int64_t k = 0; k < n; ++k) found |= std::bit_cast<uint32_t>(x[k]) == preferred;
    m = std::bit_cast<float>(found ? preferred : preferred ^ 0x80000000u);
  }
  *result = m;
}

// Folds n >= 1 consecutive elements from `offset` with Op, in 16 independent lanes (the order of
// a reduction is the implementation's choice; this one vectorizes and is the same on every run
// and for every source: the elements arrive in chunks whose sizes are multiples of the lanes).
// FoldRun's order over one contiguous f32 row held in memory, as a loop the per-CPU copies keep
// in registers (the generic loop spilled its 16 lanes to the stack every step). Max and min are
// IEEE maximum / minimum here (signed zeros ordered, any NaN gives the quiet NaN), so their
// result does not depend on the order: rows of 64 or more take FoldRowPickBody.
template <BinaryOp Op>
[[gnu::always_inline]] inline void FoldRowLanesBody(const float* __restrict x, int64_t n, float* __restrict result) {
  using T = Traits<ElemKind::kF32>;
  if constexpr (Op == BinaryOp::kMax || Op == BinaryOp::kMin) {
    if (n >= 64) return FoldRowPickBody<Op>(x, n, result);
  }
  constexpr int kLanes = 16;
  float lane[kLanes];
  for (int j = 0; j < kLanes; ++j) lane[j] = x[j];
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] = FoldStep<Op>(lane[j], x[i + j]);
  for (int j = 0; i < n; ++i, ++j) lane[j] = FoldStep<Op>(lane[j], x[i]);
  FoldHalves<kLanes>(lane, [](float a, float b) { return FoldStep<Op>(a, b); });
  *result = lane[0];
}

// FoldRowLanesBody's sums of four rows ld apart at once (out[q] for row q), each row in its own
// lanes in the same order: four independent chains of adds, where one row alone waits on one
// (4096 rows of 4096 f32 at one thread: ~5% of their time, the data coming from L3).
[[gnu::always_inline]] inline void SumRows4LanesBody(const float* __restrict x, int64_t ld, int64_t n,
                                                     float* __restrict out) {
  constexpr int kLanes = 16;
  float lane[4][kLanes];
  for (int q = 0; q < 4; ++q)
    for (int j = 0; j < kLanes; ++j) lane[q][j] = x[q * ld + j];
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes)
    for (int q = 0; q < 4; ++q)
      for (int j = 0; j < kLanes; ++j) lane[q][j] = FoldStep<BinaryOp::kAdd>(lane[q][j], x[q * ld + i + j]);
  for (int q = 0; q < 4; ++q) {
    for (int64_t t = i, j = 0; t < n; ++t, ++j) lane[q][j] = FoldStep<BinaryOp::kAdd>(lane[q][j], x[q * ld + t]);
    FoldHalves<kLanes>(lane[q], [](float a, float b) { return FoldStep<BinaryOp::kAdd>(a, b); });
    out[q] = lane[q][0];
  }
}

// The same order continued over n (a multiple of 16) more elements, lanes kept in registers: the
// step of FoldRun over each block of a computed (fused) source.
template <BinaryOp Op, typename T>
[[gnu::always_inline]] inline void FoldLanesBody(typename T::C* __restrict lanes, const typename T::S* __restrict x,
                                                 int64_t n) {
  constexpr int kLanes = 16;
  typename T::C lane[kLanes];
  for (int j = 0; j < kLanes; ++j) lane[j] = lanes[j];
  for (int64_t i = 0; i < n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] = FoldStep<Op>(lane[j], T::Load(x[i + j]));
  for (int j = 0; j < kLanes; ++j) lanes[j] = lane[j];
}

template <BinaryOp Op, typename T, typename Src>
typename T::C FoldRun(Src& src, int64_t offset, int64_t n) {
  using C = typename T::C;
  using S = typename T::S;
  constexpr int kLanes = 16;
  if constexpr (std::is_same_v<Src, ArraySource<float>> && std::is_same_v<T, Traits<ElemKind::kF32>> &&
                (Op == BinaryOp::kAdd || Op == BinaryOp::kMax || Op == BinaryOp::kMin)) {
    if (n >= 2 * kLanes) {
      static const auto fold = ForCpu<&FoldRowLanesBody<Op>>();
      float r;
      fold(src.Get(offset, n), n, &r);
      return r;
    }
  }
  if (n < 2 * kLanes) {
    const S* x = src.Get(offset, n);
    C v = T::Load(x[0]);
    for (int64_t i = 1; i < n; ++i) v = Fold<Op, T>(v, T::Load(x[i]));
    return v;
  }
  int64_t chunk = 0, chunk_end = std::min(n, kFusedBlock);  // x holds [chunk, chunk_end)
  const S* x = src.Get(offset, chunk_end);
  C lane[kLanes];
  for (int j = 0; j < kLanes; ++j) lane[j] = T::Load(x[j]);
  int64_t i = kLanes;
  for (;;) {
    if constexpr (kRowLoops<Op, T>) {
      static const auto fold = ForCpu<&FoldLanesBody<Op, T>>();
      const int64_t m = (chunk_end - i) / kLanes * kLanes;
      fold(lane, x + (i - chunk), m);
      i += m;
    }
    for (; i + kLanes <= chunk_end; i += kLanes)
      for (int j = 0; j < kLanes; ++j)
        lane[j] = Fold<Op, T>(lane[j], T::Load(x[i - chunk + j]));
    if (i >= n) break;
    if (i == chunk_end) {  // the next chunk
      chunk = i;
      chunk_end = std::min(n, i + kFusedBlock);
      x = src.Get(offset + chunk, chunk_end - chunk);
      continue;
    }
    // Fewer than kLanes elements left, all in this chunk.
    for (int j = 0; i < n; ++i, ++j) lane[j] = Fold<Op, T>(lane[j], T::Load(x[i - chunk]));
  }
  FoldHalves<kLanes>(lane, [](C a, C b) { return Fold<Op, T>(a, b); });
  return lane[0];
}

template <BinaryOp Op>
void FoldRowsOf(const float* x, int64_t rows, int64_t n, float init, float* out) {
  using T = Traits<ElemKind::kF32>;
  ArraySource<float> src{x};
  int64_t i = 0;
  if constexpr (Op == BinaryOp::kAdd) {
    if (n >= 32) {  // ReduceBlocks' four rows at a time, each in its own lanes (the same bits)
      static const auto sum4 = ForCpu<&SumRows4LanesBody>();
      for (; i + 4 <= rows; i += 4) {
        float sums[4];
        sum4(x + i * n, n, n, sums);
        for (int q = 0; q < 4; ++q) out[i + q] = static_cast<float>(ApplyBinary<Op, T>(init, sums[q]));
      }
    }
  }
  for (; i < rows; ++i) out[i] = static_cast<float>(ApplyBinary<Op, T>(init, FoldRun<Op, T>(src, i * n, n)));
}

// The reduction over [R0][A][R][B] blocks of the input (see MakeBlocks) into acc (A x B), with
// intra-op pieces over the outputs: runs of 16 rows (b == 1) or a share of the columns. Each
// output element is folded in the same order whatever the split, so threads do not change
// results. make_source(piece) gives each piece its own source.
template <BinaryOp Op, typename T, typename MakeSource>
void ReduceBlocks(const Blocks& blocks, int64_t total, typename T::C* acc, ExecState& st, MakeSource&& make_source) {
  using C = typename T::C;
  using S = typename T::S;
  // Nothing reduced but dimensions of size 1 (JAX's gradient of a broadcast of size 1: a sum over
  // dimension 0 of 1x8x512x512): one row of outputs folded once, a block of columns at a time,
  // rather than one-element rows (a computed source evaluated one element per call: 169 ms of a
  // 238 ms transformer step).
  Blocks bl = blocks;
  if (bl.r == 1 && bl.b == 1 && bl.r0 == 1) std::swap(bl.a, bl.b);
  // Few long rows (a sum over a whole array): each row folds in chunks of kChunk elements, one
  // intra-op piece each, and the chunk results fold in order. The chunking depends on the shape
  // only, so results are the same bits with any number of threads.
  constexpr int64_t kChunk = int64_t{1} << 17;
  if (bl.b == 1 && bl.r >= 2 * kChunk && bl.r0 * bl.a <= 16) {
    const int64_t per_row = (bl.r + kChunk - 1) / kChunk, num_rows = bl.r0 * bl.a;
    std::unique_ptr<C[]> partial(new C[static_cast<size_t>(num_rows * per_row)]);
    st.ParallelFor(num_rows * per_row, [&](int64_t piece) {
      auto src = make_source();
      const int64_t row = piece / per_row * bl.r, start = piece % per_row * kChunk;
      partial[piece] = FoldRun<Op, T>(src, row + start, std::min(kChunk, bl.r - start));
    });
    for (int64_t i = 0; i < num_rows; ++i)
      for (int64_t c = 0; c < per_row; ++c)
        acc[i % bl.a] = static_cast<C>(ApplyBinary<Op, T>(acc[i % bl.a], partial[i * per_row + c]));
    return;
  }
  const bool split = total >= (1 << 18) && st.threads() > 1;
  const int64_t rows = split && bl.b == 1 ? 16 : bl.a;
  const int64_t cols = split && bl.b > 1 ? std::max<int64_t>(1024, (bl.b + st.threads() - 1) / st.threads()) : bl.b;
  const int64_t row_pieces = (bl.a + rows - 1) / rows, col_pieces = (bl.b + cols - 1) / cols;
  st.ParallelFor(row_pieces * col_pieces, [&](int64_t piece) {
    auto src = make_source();
    const int64_t a0 = piece / col_pieces * rows, a1 = std::min(bl.a, a0 + rows);
    const int64_t b0 = piece % col_pieces * cols, b1 = std::min(bl.b, b0 + cols);
    for (int64_t r0 = 0; r0 < bl.r0; ++r0) {
      const int64_t base = r0 * bl.a * bl.r * bl.b;
      for (int64_t ia = a0; ia < a1; ++ia) {
        C* out = acc + ia * bl.b;
        int64_t row = base + ia * bl.r * bl.b;
        if (bl.b == 1) {
          // Short rows from a computed source: a block of whole rows per evaluation (each row
          // then folds as from an array, in the same order).
          if (!std::is_same_v<decltype(src), ArraySource<S>> && bl.r <= kFusedBlock / 2) {
            const int64_t m = std::min(a1 - ia, kFusedBlock / bl.r);
            ArraySource<S> rows_here{src.Get(row, m * bl.r)};
            for (int64_t j = 0; j < m; ++j)
              out[j] = static_cast<C>(ApplyBinary<Op, T>(out[j], FoldRun<Op, T>(rows_here, j * bl.r, bl.r)));
            ia += m - 1;
            continue;
          }
          // f32 row sums held in memory: four rows at a time, each as FoldRun folds it alone.
          if constexpr (std::is_same_v<decltype(src), ArraySource<float>> && std::is_same_v<T, Traits<ElemKind::kF32>> &&
                        Op == BinaryOp::kAdd) {
            if (bl.r >= 32 && ia + 4 <= a1) {
              static const auto sum4 = ForCpu<&SumRows4LanesBody>();
              float sums[4];
              sum4(src.x + row, bl.r, bl.r, sums);
              for (int q = 0; q < 4; ++q) out[q] = static_cast<C>(ApplyBinary<Op, T>(out[q], sums[q]));
              ia += 3;
              continue;
            }
          }
          out[0] = static_cast<C>(ApplyBinary<Op, T>(out[0], FoldRun<Op, T>(src, row, bl.r)));
          continue;
        }
        int64_t ir = 0;
        // (Four rows at a time for f32 and f64 only: the 16-bit kinds' copies would take the
        // plugin past its size budget for ~10% of their column maxima's time.)
        if constexpr (kRowLoops<Op, T> && std::is_same_v<decltype(src), ArraySource<S>> &&
                      std::is_floating_point_v<S>) {
          for (; ir + 4 <= bl.r; ir += 4, row += 4 * bl.b)
            for (int64_t c0 = b0; c0 < b1; c0 += kFusedBlock)
              FoldRows4<Op, T>()(out + c0, src.x + row + c0, bl.b, std::min(kFusedBlock, b1 - c0));
        }
        for (; ir < bl.r; ++ir, row += bl.b)
          for (int64_t c0 = b0; c0 < b1; c0 += kFusedBlock) {
            const int64_t len = std::min(kFusedBlock, b1 - c0);
            const auto* x = src.Get(row + c0, len);
            if constexpr (kRowLoops<Op, T>) {
              FoldRow<Op, T>()(out + c0, x, len);
              continue;
            }
            for (int64_t k = 0; k < len; ++k) out[c0 + k] = Fold<Op, T>(out[c0 + k], T::Load(x[k]));
          }
        if constexpr (kPicks<Op> && kFoldsAsFloat<Op, T>) CanonicalNaNs(out + b0, b1 - b0);
      }
    }
  });
}

template <BinaryOp Op, ElemKind K>
void FastReduce(const Step& s, ExecState& st) {
  using T = Traits<K>;
  using C = typename T::C;
  using S = typename T::S;
  const Array& a = st.slots[s.in[0]].array;
  const Array& init = st.slots[s.in[1]].array;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t n_out = r.NumElements();
  // Not std::vector: C may be bool.
  std::unique_ptr<C[]> acc(new C[static_cast<size_t>(n_out)]);
  std::fill_n(acc.get(), n_out, T::Load(*init.as<S>()));
  const S* x = a.as<S>();
  const Blocks bl = MakeBlocks(a.dims(), s.Params<ReduceParams>().dims);
  if (bl.ok && a.NumElements() > 0) {
    ReduceBlocks<Op, T>(bl, a.NumElements(), acc.get(), st, [&] { return ArraySource<S>{x}; });
  } else {
    ReduceMap m = MakeMap(a.dims(), s.Params<ReduceParams>().dims);
    ForEachMapped(m, [&](int64_t i, int64_t o) {
      acc[o] = static_cast<C>(ApplyBinary<Op, T>(acc[o], T::Load(x[i])));
    });
  }
  auto* out = r.mutable_as<S>();
  for (int64_t i = 0; i < n_out; ++i) out[i] = T::Store(acc[i]);
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

// A kind without vector copies read as its wide kind (elem_traits.h WideKind), a block at a time.
template <typename WS>
struct WidenedSource {
  const uint8_t* x;
  int64_t size;  // bytes per element of the input
  WidenFn widen;
  std::unique_ptr<WS[]> block{new WS[kFusedBlock]};
  const WS* Get(int64_t offset, int64_t len) {
    widen(x + offset * size, block.get(), len);
    return block.get();
  }
};

// The reduction of a kind without vector copies on the loops of its wide kind W: the blocks are
// widened as they are read, folded in W, and the results narrowed once. One instance per (op, W)
// serves every such kind (see WideKind for why the results are the kind's own).
template <BinaryOp Op, ElemKind W>
[[gnu::noinline]] void ReduceWidened(const Step& s, ExecState& st, WidenFn widen, WidenFn narrow, int64_t size) {
  using T = Traits<W>;
  using WS = typename T::S;
  static_assert(std::is_same_v<WS, typename T::C>);
  const Array& a = st.slots[s.in[0]].array;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t n_out = r.NumElements(), total = a.NumElements();
  WS init;
  widen(st.slots[s.in[1]].array.data(), &init, 1);
  std::vector<WS> acc(static_cast<size_t>(n_out), init);
  const Blocks bl = MakeBlocks(a.dims(), s.Params<ReduceParams>().dims);
  if (bl.ok && total > 0) {
    ReduceBlocks<Op, T>(bl, total, acc.data(), st, [&] { return WidenedSource<WS>{a.data(), size, widen}; });
  } else if (total > 0) {
    std::vector<WS> x(static_cast<size_t>(total));
    widen(a.data(), x.data(), total);
    ReduceMap m = MakeMap(a.dims(), s.Params<ReduceParams>().dims);
    ForEachMapped(m, [&](int64_t i, int64_t o) { acc[o] = static_cast<WS>(ApplyBinary<Op, T>(acc[o], x[i])); });
  }
  narrow(acc.data(), r.mutable_data(), n_out);
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

template <BinaryOp Op, ElemKind K>
void WidenedReduce(const Step& s, ExecState& st) {
  ReduceWidened<Op, WideKind(K)>(s, st, &WidenToWideKind<K>, &NarrowFromWideKind<K>,
                                 static_cast<int64_t>(sizeof(typename Traits<K>::S)));
}

// Whether WidenedReduce gives kind K's own results for Op: everywhere but max and min of u64.
template <BinaryOp Op, ElemKind K>
constexpr bool kReducesWidened = WideKind(K) != K && Supported<Traits<WideKind(K)>>(Op) &&
                                 !(K == ElemKind::kU64 && (Op == BinaryOp::kMax || Op == BinaryOp::kMin));

// A fast reduction whose input is computed by an absorbed elementwise run, block by block, and
// never stored: in = the run's inputs, then the init value.
template <BinaryOp Op, ElemKind K>
void FusedReduce(const Step& s, ExecState& st) {
  using T = Traits<K>;
  using C = typename T::C;
  using S = typename T::S;
  const FusedReduceParams& p = s.Params<FusedReduceParams>();
  FusedInputs in;
  if (absl::Status status = PrepareFusedInputs(p.producer, s, st, s.in.size() - 1, &in); !status.ok())
    return st.Fail(s, std::move(status));
  const Array& init = st.slots[s.in.back()].array;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t n_out = r.NumElements();
  std::unique_ptr<C[]> acc(new C[static_cast<size_t>(n_out)]);
  std::fill_n(acc.get(), n_out, T::Load(*init.as<S>()));
  const Blocks bl = MakeBlocks(p.input_dims, p.reduce.dims);
  if (!bl.ok) return st.Fail(s, absl::InternalError("fused reduction over a non-contiguous arrangement"));
  // A second result: the run's value itself, which others read too (softmax's exponentials,
  // divided by their sums next), written as its blocks are computed and folded.
  std::vector<Array> values;
  if (s.out.size() == 2) values.push_back(st.NewArray(s.out_types[1]));
  std::vector<Array>* outs = values.empty() ? nullptr : &values;
  if (p.producer.num_elements > 0) {
    ReduceBlocks<Op, T>(bl, p.producer.num_elements, acc.get(), st,
                        [&] { return FusedSource<S>{FusedBlockEval(p.producer, in, outs, false, false, static_cast<int>(p.input_op)), p.input_op}; });
  }
  auto* out = r.mutable_as<S>();
  for (int64_t i = 0; i < n_out; ++i) out[i] = T::Store(acc[i]);
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
  if (outs) st.slots[s.out[1]] = RtValue::Of(std::move(values[0]));
}

// The next `steps` elements of every lane into dst, step-major (dst[j * ld + t] = the element at
// position pos[t] + j of lane t, whose elements are src[base[t] + off[...]]), up to end[t]: each
// lane's elements are read in order, a cache line at a time, however far apart the lanes are. ld
// is not a multiple of 4 KiB in bytes (16 rows 4 KiB apart share one set of the L1 cache).
template <typename U>
void GatherSteps(uint8_t* dst, const uint8_t* src, const int64_t* base, const int64_t* off, const int64_t* pos,
                 const int64_t* end, int64_t count, int64_t steps) {
  const int64_t ld = count + 64 / static_cast<int64_t>(sizeof(U));
  U* d = reinterpret_cast<U*>(dst);
  const U* x = reinterpret_cast<const U*>(src);
  for (int64_t t = 0; t < count; ++t) {
    const int64_t m = std::min(steps, end[t] - pos[t]);
    const U* row = x + base[t];
    const int64_t* o = off + pos[t];
    for (int64_t j = 0; j < m; ++j) std::memcpy(&d[j * ld + t], &row[o[j]], sizeof(U));
  }
}
void Gather(uint8_t* dst, const uint8_t* src, int es, const int64_t* base, const int64_t* off, const int64_t* pos,
            const int64_t* end, int64_t count, int64_t steps) {
  struct U128 { uint64_t lo, hi; };
  switch (es) {
    case 1: return GatherSteps<uint8_t>(dst, src, base, off, pos, end, count, steps);
    case 2: return GatherSteps<uint16_t>(dst, src, base, off, pos, end, count, steps);
    case 4: return GatherSteps<uint32_t>(dst, src, base, off, pos, end, count, steps);
    case 8: return GatherSteps<uint64_t>(dst, src, base, off, pos, end, count, steps);
    default: return GatherSteps<U128>(dst, src, base, off, pos, end, count, steps);
  }
}

// The reduction with the reducer evaluated for up to LaneRegion::kLanes accumulators at once,
// each folding its elements in order. When there are fewer outputs than lanes, each output's
// elements are cut into consecutive chunks folded side by side (the first starting from the init
// value, the others from their first element) and the chunks' results are then combined
// pairwise in order: a schedule the specification allows (a binary tree whose in-order
// traversal is the init value and the elements in order), the same result for an associative
// reducer such as argmax's. False, having done nothing, when the region is not elementwise.
bool LaneReduce(const Step& s, ExecState& st, const std::vector<const Array*>& inputs, std::vector<Array>& outs) {
  const size_t n = inputs.size();
  std::vector<int> es(n);
  for (size_t i = 0; i < n; ++i) es[i] = static_cast<int>(inputs[i]->type().ElementSize());
  std::unique_ptr<LaneRegion> lr = LaneRegion::MakeFold(*s.regions[0], st, es);
  if (!lr) return false;
  // Offsets of the outputs' first elements and of the reduced positions, in row-major order.
  const std::vector<int64_t> dims = inputs[0]->dims();
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t d : s.Params<ReduceParams>().dims) reduced[static_cast<size_t>(d)] = true;
  std::vector<int64_t> out_off{0}, red_off{0};
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<int64_t>& offs = reduced[d] ? red_off : out_off;
    std::vector<int64_t> next;
    next.reserve(offs.size() * static_cast<size_t>(dims[d]));
    for (int64_t base : offs)
      for (int64_t k = 0; k < dims[d]; ++k) next.push_back(base + k * strides[d]);
    offs = std::move(next);
  }
  const int64_t P = static_cast<int64_t>(out_off.size()), N = static_cast<int64_t>(red_off.size());
  if (P == 0 || N == 0) return false;  // nothing to fold: the oracle path writes the init values
  constexpr int64_t L = LaneRegion::kLanes;
  int64_t chunks = 1;  // per output
  if (P < L) {
    int64_t root = 1;
    while ((root + 1) * (root + 1) <= N) ++root;
    chunks = std::max<int64_t>(1, std::min(L / P, root));
  }
  const int64_t chunk = (N + chunks - 1) / chunks;
  chunks = (N + chunk - 1) / chunk;
  const int64_t per_group = L / chunks;  // outputs folded together
  std::vector<std::vector<uint8_t>> acc(n), staged(n);
  for (size_t i = 0; i < n; ++i) {
    acc[i].resize(static_cast<size_t>(L * es[i]));
    staged[i].resize(static_cast<size_t>(16 * (L * es[i] + 64)));
  }
  std::vector<int64_t> pos(L), end(L), base(L);
  std::vector<uint8_t> active(L);
  std::vector<const uint8_t*> data(n), init(n);
  for (size_t i = 0; i < n; ++i) {
    data[i] = inputs[i]->data();
    init[i] = st.slots[s.in[n + i]].array.data();
  }
  for (int64_t o0 = 0; o0 < P; o0 += per_group) {
    const int64_t G = std::min(per_group, P - o0), S = G * chunks;
    for (int64_t t = 0; t < S; ++t) {
      const int64_t o = o0 + t / chunks, c = t % chunks;
      base[t] = out_off[o];
      pos[t] = c * chunk + (c == 0 ? 0 : 1);
      end[t] = std::min(N, (c + 1) * chunk);
      for (size_t i = 0; i < n; ++i)
        CopyElement(acc[i].data() + t * es[i], c == 0 ? init[i] : data[i] + (out_off[o] + red_off[c * chunk]) * es[i], es[i]);
    }
    // kSteps elements of every lane gathered at a time, then folded one step after another.
    constexpr int64_t kSteps = 16;
    for (;;) {
      int64_t steps = 0;
      for (int64_t t = 0; t < S; ++t) steps = std::max(steps, std::min(kSteps, end[t] - pos[t]));
      if (steps == 0) break;
      for (size_t i = 0; i < n; ++i)
        Gather(staged[i].data(), data[i], es[i], base.data(), red_off.data(), pos.data(), end.data(), S, steps);
      for (int64_t j = 0; j < steps; ++j) {
        int64_t live = 0;
        for (int64_t t = 0; t < S; ++t) live += (active[t] = pos[t] + j < end[t]);
        for (size_t i = 0; i < n; ++i) {
          std::memcpy(lr->arg(i), acc[i].data(), static_cast<size_t>(S * es[i]));
          std::memcpy(lr->arg(n + i), staged[i].data() + j * (S * es[i] + 64), static_cast<size_t>(S * es[i]));
        }
        lr->Run(S);
        for (size_t i = 0; i < n; ++i) {
          if (live == S) {
            std::memcpy(acc[i].data(), lr->result(i), static_cast<size_t>(S * es[i]));
            continue;
          }
          for (int64_t t = 0; t < S; ++t)
            if (active[t]) CopyElement(acc[i].data() + t * es[i], lr->result(i) + t * es[i], es[i]);
        }
      }
      for (int64_t t = 0; t < S; ++t) pos[t] += std::min(kSteps, end[t] - pos[t]);
    }
    // The chunks of each output combined pairwise, neighbours first, until one is left.
    for (int64_t count = chunks; count > 1;) {
      const int64_t half = count / 2;
      for (size_t i = 0; i < n; ++i)
        for (int64_t g = 0; g < G; ++g)
          for (int64_t m = 0; m < half; ++m) {
            const int64_t t = g * half + m;
            CopyElement(lr->arg(i) + t * es[i], acc[i].data() + (g * chunks + 2 * m) * es[i], es[i]);
            CopyElement(lr->arg(n + i) + t * es[i], acc[i].data() + (g * chunks + 2 * m + 1) * es[i], es[i]);
          }
      lr->Run(G * half);
      for (size_t i = 0; i < n; ++i)
        for (int64_t g = 0; g < G; ++g) {
          for (int64_t m = 0; m < half; ++m)
            CopyElement(acc[i].data() + (g * chunks + m) * es[i], lr->result(i) + (g * half + m) * es[i], es[i]);
          if (count % 2)
            CopyElement(acc[i].data() + (g * chunks + half) * es[i], acc[i].data() + (g * chunks + count - 1) * es[i], es[i]);
        }
      count = half + count % 2;
    }
    for (size_t i = 0; i < n; ++i)
      for (int64_t g = 0; g < G; ++g)
        CopyElement(outs[i].mutable_data() + (o0 + g) * es[i], acc[i].data() + g * chunks * es[i], es[i]);
  }
  return true;
}

}  // namespace

void GenericReduce(const Step& s, ExecState& st) {
  const size_t n = s.in.size() / 2;
  const Program& body = *s.regions[0];
  std::vector<const Array*> inputs(n);
  for (size_t i = 0; i < n; ++i) inputs[i] = &st.slots[s.in[i]].array;
  std::vector<Array> outs(n);
  for (size_t i = 0; i < n; ++i) outs[i] = st.NewArray(s.out_types[i]);
  if (LaneReduce(s, st, inputs, outs)) {
    for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(outs[i]));
    return;
  }
  const int64_t n_out = outs[0].NumElements();
  // Accumulators start as the init values.
  std::vector<std::vector<RtValue>> acc(n_out, std::vector<RtValue>(n));
  for (int64_t o = 0; o < n_out; ++o)
    for (size_t i = 0; i < n; ++i) acc[o][i] = st.slots[s.in[n + i]];
  ReduceMap m = MakeMap(inputs[0]->dims(), s.Params<ReduceParams>().dims);
  std::vector<RtValue> args, results;
  bool ok = true;
  ForEachMapped(m, [&](int64_t idx, int64_t o) {
    if (!ok) return;
    args.assign(acc[o].begin(), acc[o].end());
    for (size_t i = 0; i < n; ++i) args.push_back(RtValue::Of(ScalarAt(*inputs[i], idx)));
    ok = CallRegion(body, st, args, &results);
    if (ok) acc[o] = results;
  });
  if (!ok) return;
  for (size_t i = 0; i < n; ++i) {
    const int64_t es = outs[i].type().ElementSize();
    for (int64_t o = 0; o < n_out; ++o)
      std::memcpy(outs[i].mutable_data() + o * es, acc[o][i].array.data(), es);
    st.slots[s.out[i]] = RtValue::Of(std::move(outs[i]));
  }
}

namespace {

template <BinaryOp Op>
KernelFn PickFast(ElemKind k, bool fused) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if constexpr (Supported<Traits<K>>(Op)) {
      // Absorbing producers pays off only where the loops are fast; other kinds keep the
      // producer run and the reduction apart.
      if constexpr (HasVectorCopies(K)) {
        fn = fused ? &FusedReduce<Op, K> : &FastReduce<Op, K>;
      } else if (!fused) {
        if constexpr (kReducesWidened<Op, K>) fn = &WidenedReduce<Op, K>;
        else fn = &FastReduce<Op, K>;
      }
    }
  });
  return fn;
}

KernelFn PickFastFor(BinaryOp op, ElemKind k, bool fused) {
  switch (op) {
    case BinaryOp::kAdd: return PickFast<BinaryOp::kAdd>(k, fused);
    case BinaryOp::kMul: return PickFast<BinaryOp::kMul>(k, fused);
    case BinaryOp::kMax: return PickFast<BinaryOp::kMax>(k, fused);
    case BinaryOp::kMin: return PickFast<BinaryOp::kMin>(k, fused);
    case BinaryOp::kAnd: return PickFast<BinaryOp::kAnd>(k, fused);
    case BinaryOp::kOr: return PickFast<BinaryOp::kOr>(k, fused);
    case BinaryOp::kXor: return PickFast<BinaryOp::kXor>(k, fused);
    default: return nullptr;
  }
}

}  // namespace

absl::StatusOr<KernelFn> SelectReduce(const ReduceParams& p, const std::vector<ElemKind>& kinds) {
  if (p.has_fast && kinds.size() == 1) {
    if (KernelFn fn = PickFastFor(p.fast, kinds[0], false)) return fn;
  }
  if (p.has_arg && kinds.size() == 2) {
    if (KernelFn fn = ArgReduceKernel(kinds[0], kinds[1])) return fn;
  }
  return &GenericReduce;
}

bool IsArgReduceKernel(KernelFn fn) {
  // SelectReduce gives a reducer of two results its arg loop or the generic reduction.
  return fn != nullptr && fn != &GenericReduce;
}

bool IsFastReduce(const Step& s) {
  // Decided by the kernel alone: only then are the step's params known to be ReduceParams.
  if (!s.fn || s.in.size() != 2 || s.out_types.size() != 1) return false;
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMul, BinaryOp::kMax, BinaryOp::kMin, BinaryOp::kAnd,
                      BinaryOp::kOr, BinaryOp::kXor})
    if (s.fn == PickFastFor(op, s.out_types[0].elem, false)) return true;
  return false;
}

bool FoldRowsF32(BinaryOp op, const float* x, int64_t rows, int64_t n, float init, float* out) {
  switch (op) {
    case BinaryOp::kAdd: FoldRowsOf<BinaryOp::kAdd>(x, rows, n, init, out); return true;
    case BinaryOp::kMax: FoldRowsOf<BinaryOp::kMax>(x, rows, n, init, out); return true;
    case BinaryOp::kMin: FoldRowsOf<BinaryOp::kMin>(x, rows, n, init, out); return true;
    default: return false;
  }
}

bool ReduceIsContiguous(const std::vector<int64_t>& input_dims, const std::vector<int64_t>& dims) {
  return MakeBlocks(input_dims, dims).ok;
}

KernelFn FusedReduceKernel(const ReduceParams& p, ElemKind k) {
  return p.has_fast ? PickFastFor(p.fast, k, true) : nullptr;
}

}  // namespace openpjrt::cpu
