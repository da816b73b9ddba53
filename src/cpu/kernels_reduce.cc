// reduce: a typed loop when the reducer is a single binary op, otherwise the reducer region runs
// once per element (the oracle path).
#include <algorithm>
#include <cstring>
#include <memory>

#include "src/cpu/elementwise_ops.h"
#include "src/cpu/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using namespace ops;

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

// The input's dimensions merged into runs of kept or reduced ones (size-1 dimensions dropped):
// when they form [R0] [A] [R] [B] (R0 and R reduced, A and B kept, any of them absent) the
// reduction runs over contiguous memory; otherwise `ok` is false.
struct Blocks {
  bool ok = false;
  int64_t r0 = 1, a = 1, r = 1, b = 1;
};
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

// Folds n >= 1 contiguous elements with Op, in 16 independent lanes (the order of a reduction
// is the implementation's choice; this one vectorizes and is the same on every run).
template <BinaryOp Op, typename T>
typename T::C FoldRun(const typename T::S* x, int64_t n) {
  using C = typename T::C;
  constexpr int kLanes = 16;
  if (n < 2 * kLanes) {
    C v = T::Load(x[0]);
    for (int64_t i = 1; i < n; ++i) v = static_cast<C>(ApplyBinary<Op, T>(v, T::Load(x[i])));
    return v;
  }
  C lane[kLanes];
  for (int j = 0; j < kLanes; ++j) lane[j] = T::Load(x[j]);
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] = static_cast<C>(ApplyBinary<Op, T>(lane[j], T::Load(x[i + j])));
  for (int j = 0; i < n; ++i, ++j) lane[j] = static_cast<C>(ApplyBinary<Op, T>(lane[j], T::Load(x[i])));
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) lane[j] = static_cast<C>(ApplyBinary<Op, T>(lane[j], lane[j + w]));
  return lane[0];
}

template <BinaryOp Op, ElemKind K>
void FastReduce(const Step& s, ExecState& st) {
  using T = Traits<K>;
  using C = typename T::C;
  const Array& a = st.slots[s.in[0]].array;
  const Array& init = st.slots[s.in[1]].array;
  Array r = Array::Allocate(s.out_types[0]);
  const int64_t n_out = r.NumElements();
  // Not std::vector: C may be bool.
  std::unique_ptr<C[]> acc(new C[static_cast<size_t>(n_out)]);
  std::fill_n(acc.get(), n_out, T::Load(*init.as<typename T::S>()));
  const auto* x = a.as<typename T::S>();
  const Blocks bl = MakeBlocks(a.dims(), s.Params<ReduceParams>().dims);
  if (bl.ok && a.NumElements() > 0) {
    // Intra-op pieces split the outputs: runs of 16 rows (b == 1) or a share of the columns. Each
    // output element is folded in the same order whatever the split, so threads do not change
    // results.
    const bool split = a.NumElements() >= (1 << 18) && st.threads() > 1;
    const int64_t rows = split && bl.b == 1 ? 16 : bl.a;
    const int64_t cols = split && bl.b > 1 ? std::max<int64_t>(1024, (bl.b + st.threads() - 1) / st.threads()) : bl.b;
    const int64_t row_pieces = (bl.a + rows - 1) / rows, col_pieces = (bl.b + cols - 1) / cols;
    st.ParallelFor(row_pieces * col_pieces, [&](int64_t piece) {
      const int64_t a0 = piece / col_pieces * rows, a1 = std::min(bl.a, a0 + rows);
      const int64_t b0 = piece % col_pieces * cols, b1 = std::min(bl.b, b0 + cols);
      for (int64_t r0 = 0; r0 < bl.r0; ++r0) {
        const auto* base = x + r0 * bl.a * bl.r * bl.b;
        for (int64_t ia = a0; ia < a1; ++ia) {
          C* out = acc.get() + ia * bl.b;
          const auto* src = base + ia * bl.r * bl.b;
          if (bl.b == 1) {
            out[0] = static_cast<C>(ApplyBinary<Op, T>(out[0], FoldRun<Op, T>(src, bl.r)));
            continue;
          }
          for (int64_t ir = 0; ir < bl.r; ++ir, src += bl.b)
            for (int64_t ib = b0; ib < b1; ++ib)
              out[ib] = static_cast<C>(ApplyBinary<Op, T>(out[ib], T::Load(src[ib])));
        }
      }
    });
  } else {
    ReduceMap m = MakeMap(a.dims(), s.Params<ReduceParams>().dims);
    ForEachMapped(m, [&](int64_t i, int64_t o) {
      acc[o] = static_cast<C>(ApplyBinary<Op, T>(acc[o], T::Load(x[i])));
    });
  }
  auto* out = r.mutable_as<typename T::S>();
  for (int64_t i = 0; i < n_out; ++i) out[i] = T::Store(acc[i]);
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void GenericReduce(const Step& s, ExecState& st) {
  const size_t n = s.in.size() / 2;
  const Program& body = *s.regions[0];
  std::vector<const Array*> inputs(n);
  for (size_t i = 0; i < n; ++i) inputs[i] = &st.slots[s.in[i]].array;
  std::vector<Array> outs(n);
  for (size_t i = 0; i < n; ++i) outs[i] = Array::Allocate(s.out_types[i]);
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

template <BinaryOp Op>
KernelFn PickFast(ElemKind k) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if (Supported<Traits<K>>(Op)) fn = &FastReduce<Op, K>;
  });
  return fn;
}

}  // namespace

absl::StatusOr<KernelFn> SelectReduce(const ReduceParams& p, const std::vector<ElemKind>& kinds) {
  if (p.has_fast && kinds.size() == 1) {
    KernelFn fn = nullptr;
    switch (p.fast) {
      case BinaryOp::kAdd: fn = PickFast<BinaryOp::kAdd>(kinds[0]); break;
      case BinaryOp::kMul: fn = PickFast<BinaryOp::kMul>(kinds[0]); break;
      case BinaryOp::kMax: fn = PickFast<BinaryOp::kMax>(kinds[0]); break;
      case BinaryOp::kMin: fn = PickFast<BinaryOp::kMin>(kinds[0]); break;
      case BinaryOp::kAnd: fn = PickFast<BinaryOp::kAnd>(kinds[0]); break;
      case BinaryOp::kOr: fn = PickFast<BinaryOp::kOr>(kinds[0]); break;
      case BinaryOp::kXor: fn = PickFast<BinaryOp::kXor>(kinds[0]); break;
      default: break;
    }
    if (fn) return fn;
  }
  return &GenericReduce;
}

}  // namespace openpjrt::cpu
