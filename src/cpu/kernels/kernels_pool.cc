// Window ops whose regions are one op, as typed loops: reduce_window with a single binary-op
// body (max, min and sum pooling, jnp.cumsum / cumprod / cummax) and select_and_scatter with a
// single-compare select and an adding scatter (the gradient of max pooling). Each output folds
// its window in the order of the region paths of kernels_window.cc (init, then the window's
// positions in row-major order, holes as init) and rounds to the element type after every
// step, as the region's result does, so the results are the same bits. Untouched trailing
// dimensions (NHWC channels) fold side by side; when the window also moves over the last
// dimension (NCHW), outputs along it fold 64 side by side from staged window positions.
#include <algorithm>
#include <cstring>
#include <memory>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "src/cpu/kernels/elementwise_ops.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/exec/strided.h"

namespace openpjrt::cpu {
namespace {

using namespace ops;

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to; ++d) n *= dims[d];
  return n;
}

// acc[k] = op(acc[k], x[k]) for k < n, each result rounded to the storage type; with kRight,
// acc[k] = op(x[k], acc[k]) (the step of a right fold).
template <BinaryOp Op, ElemKind K, bool kRight>
[[gnu::always_inline]] inline void FoldBody(void* acc, const void* x, int64_t n) {
  using T = Traits<K>;
  using S = typename T::S;
  S* __restrict a = static_cast<S*>(acc);
  const S* __restrict b = static_cast<const S*>(x);
  for (int64_t k = 0; k < n; ++k) {
    const auto l = T::Load(kRight ? b[k] : a[k]), r = T::Load(kRight ? a[k] : b[k]);
    a[k] = T::Store(static_cast<typename T::C>(ApplyBinary<Op, T>(l, r)));
  }
}
using FoldFn = void (*)(void*, const void*, int64_t);

template <int64_t kBlock, typename S, typename Step>
[[gnu::always_inline]] inline int64_t FoldManyBlocks(S* __restrict a, const void* const* x, int64_t m, int64_t k0,
                                                     int64_t n, Step step) {
  for (; k0 + kBlock <= n; k0 += kBlock) {
    S r[kBlock];
    for (int64_t k = 0; k < kBlock; ++k) r[k] = a[k0 + k];
    for (int64_t w = 0; w < m; ++w) {
      const S* __restrict b = static_cast<const S*>(x[w]) + k0;
      for (int64_t k = 0; k < kBlock; ++k) r[k] = step(r[k], b[k]);
    }
    for (int64_t k = 0; k < kBlock; ++k) a[k0 + k] = r[k];
  }
  return k0;
}

// FoldManyBlocks over four blocks at once, each kept in its own registers.
template <int64_t kBlock, typename S, typename Step>
[[gnu::always_inline]] inline int64_t FoldManyBlocks4(S* __restrict a, const void* const* x, int64_t m, int64_t k0,
                                                      int64_t n, Step step) {
  for (; k0 + 4 * kBlock <= n; k0 += 4 * kBlock) {
    S r0[kBlock], r1[kBlock], r2[kBlock], r3[kBlock];
    for (int64_t k = 0; k < kBlock; ++k) {
      r0[k] = a[k0 + k];
      r1[k] = a[k0 + kBlock + k];
      r2[k] = a[k0 + 2 * kBlock + k];
      r3[k] = a[k0 + 3 * kBlock + k];
    }
    for (int64_t w = 0; w < m; ++w) {
      const S* __restrict b = static_cast<const S*>(x[w]) + k0;
      for (int64_t k = 0; k < kBlock; ++k) r0[k] = step(r0[k], b[k]);
      for (int64_t k = 0; k < kBlock; ++k) r1[k] = step(r1[k], b[kBlock + k]);
      for (int64_t k = 0; k < kBlock; ++k) r2[k] = step(r2[k], b[2 * kBlock + k]);
      for (int64_t k = 0; k < kBlock; ++k) r3[k] = step(r3[k], b[3 * kBlock + k]);
    }
    for (int64_t k = 0; k < kBlock; ++k) {
      a[k0 + k] = r0[k];
      a[k0 + kBlock + k] = r1[k];
      a[k0 + 2 * kBlock + k] = r2[k];
      a[k0 + 3 * kBlock + k] = r3[k];
    }
  }
  return k0;
}

// acc[k] = op(...op(op(acc[k], x[0][k]), x[1][k])..., x[m-1][k]) for k < n: a window's m
// positions folded in order, a vector of elements kept in a register across them.
template <BinaryOp Op, ElemKind K>
[[gnu::always_inline]] inline void FoldManyBody(void* acc, const void* const* x, int64_t m, int64_t n) {
  using T = Traits<K>;
  using S = typename T::S;
  auto step = [](S a, S b) { return T::Store(static_cast<typename T::C>(ApplyBinary<Op, T>(T::Load(a), T::Load(b)))); };
  S* a = static_cast<S*>(acc);
  constexpr int64_t kVector = 64 / sizeof(S);
  // Four vectors side by side first: each is a chain of m dependent steps (max with its NaN and
  // signed-zero rules is several instructions deep), and one chain at a time left the core
  // waiting on each step's latency (a 3x3/2 max pool of 112x112x64 at one thread: ~0.45 -> ms).
  int64_t k0 = FoldManyBlocks4<kVector>(a, x, m, 0, n, step);
  k0 = FoldManyBlocks<kVector>(a, x, m, k0, n, step);
  for (int64_t w = 0; w < m; ++w) {
    const S* __restrict b = static_cast<const S*>(x[w]);
    for (int64_t k = k0; k < n; ++k) a[k] = step(a[k], b[k]);
  }
}
using FoldManyFn = void (*)(void*, const void* const*, int64_t, int64_t);

// dst[t] = x[offsets[t]], or fill where offsets[t] < 0 (a hole), for t < n: one window position
// of n outputs side by side.
template <ElemKind K>
[[gnu::always_inline]] inline void StageBody(void* dst, const void* x, const int64_t* offsets, const void* fill,
                                             int64_t n) {
  using S = typename Traits<K>::S;
  S* __restrict d = static_cast<S*>(dst);
  const S* __restrict v = static_cast<const S*>(x);
  const S f = *static_cast<const S*>(fill);
  for (int64_t t = 0; t < n; ++t) d[t] = offsets[t] < 0 ? f : v[offsets[t] < 0 ? 0 : offsets[t]];
}
using StageFn = void (*)(void*, const void*, const int64_t*, const void*, int64_t);

// dst[t] = x[t * kStride] for t < n: StageBody when the n offsets are evenly spaced and none is
// a hole (the inside of a row with window stride 1 or 2).
template <ElemKind K, int kStride>
[[gnu::always_inline]] inline void StageStridedBody(void* dst, const void* x, int64_t n) {
  using S = typename Traits<K>::S;
  S* __restrict d = static_cast<S*>(dst);
  const S* __restrict v = static_cast<const S*>(x);
  for (int64_t t = 0; t < n; ++t) d[t] = v[t * kStride];
}
using StageStridedFn = void (*)(void*, const void*, int64_t);

template <BinaryOp Op, ElemKind K, bool kRight = false>
FoldFn Fold() {
  return ForCpu<&FoldBody<Op, K, kRight>, HasVectorCopies(K)>();
}

// The window's geometry: the leading `q` dimensions the window moves over, and the trailing
// dimensions it leaves alone (size 1, stride 1, no padding or dilation), which are `inner`
// consecutive elements that every step folds side by side.
struct Geometry {
  size_t q = 0;
  int64_t inner = 1;
  std::vector<int64_t> odims, wdims;    // the first q of each
  std::vector<std::vector<int64_t>> at;  // per dimension: [o * window + w] -> input offset, -1: a hole
  // Per dimension: [o] -> the window at o lies wholly inside the input along it (no padding, no
  // base-dilation hole), so its positions are at[o * window] + w * (window dilation x stride).
  std::vector<std::vector<char>> whole;
  // Per window position (row-major): its offset from the first position, for a window that is
  // whole along every dimension.
  std::vector<int64_t> rel;
};

Geometry MakeGeometry(const WindowParams& p, const std::vector<int64_t>& idims, const std::vector<int64_t>& odims) {
  Geometry g;
  const size_t rank = idims.size();
  size_t q = rank;
  while (q > 0) {
    const size_t d = q - 1;
    if (p.dims[d] != 1 || p.strides[d] != 1 || p.base_dilations[d] != 1 || p.window_dilations[d] != 1 ||
        p.pad_low[d] != 0 || p.pad_high[d] != 0)
      break;
    --q;
  }
  g.q = q;
  g.inner = Product(idims, q, rank);
  const std::vector<int64_t> istr = RowMajorStrides(idims);
  for (size_t d = 0; d < q; ++d) {
    g.odims.push_back(odims[d]);
    g.wdims.push_back(p.dims[d]);
    std::vector<int64_t> t(static_cast<size_t>(odims[d] * p.dims[d]));
    for (int64_t o = 0; o < odims[d]; ++o)
      for (int64_t w = 0; w < p.dims[d]; ++w) {
        const int64_t pos = o * p.strides[d] + w * p.window_dilations[d] - p.pad_low[d];
        int64_t off = -1;
        if (pos >= 0 && pos % p.base_dilations[d] == 0 && pos / p.base_dilations[d] < idims[d])
          off = pos / p.base_dilations[d] * istr[d];
        t[static_cast<size_t>(o * p.dims[d] + w)] = off;
      }
    std::vector<char> whole(static_cast<size_t>(odims[d]), 0);
    for (int64_t o = 0; o < odims[d] && p.base_dilations[d] == 1; ++o) {
      bool inside = true;
      for (int64_t w = 0; w < p.dims[d]; ++w) inside = inside && t[static_cast<size_t>(o * p.dims[d] + w)] >= 0;
      whole[static_cast<size_t>(o)] = inside;
    }
    g.at.push_back(std::move(t));
    g.whole.push_back(std::move(whole));
  }
  std::vector<int64_t> wi(q, 0);
  do {
    int64_t r = 0;
    for (size_t d = 0; d < q; ++d) r += wi[d] * p.window_dilations[d] * istr[d];
    g.rel.push_back(r);
  } while (q > 0 && NextIndex(wi, g.wdims));
  return g;
}

// The input offset of the first position of the window at output position oi, when the window
// is whole along every dimension (its positions are then that plus g.rel).
bool WholeWindow(const Geometry& g, const std::vector<int64_t>& oi, int64_t& first) {
  first = 0;
  for (size_t d = 0; d < g.q; ++d) {
    if (!g.whole[d][static_cast<size_t>(oi[d])]) return false;
    first += g.at[d][static_cast<size_t>(oi[d] * g.wdims[d])];
  }
  return true;
}

// Calls f(first, last) on contiguous ranges of [0, n) that together cover it: one range, or one
// per intra-op thread when `work` element steps are worth splitting.
template <typename F>
void Split(ExecState& st, int64_t n, int64_t work, F&& f) {
  const int64_t pieces = work >= (int64_t{1} << 17) ? std::min<int64_t>(n, st.threads()) : 1;
  if (pieces <= 1) return f(int64_t{0}, n);
  st.ParallelFor(pieces, [&](int64_t k) { f(n * k / pieces, n * (k + 1) / pieces); });
}

// Unravels linear position `o` of `dims` (row-major) into idx.
void Unravel(int64_t o, const std::vector<int64_t>& dims, std::vector<int64_t>& idx) {
  for (size_t d = dims.size(); d-- > 0;) {
    idx[d] = o % dims[d];
    o /= dims[d];
  }
}

// Input offset of window position wi at output position oi, or -1 for a hole.
int64_t WindowOffset(const Geometry& g, const std::vector<int64_t>& oi, const std::vector<int64_t>& wi) {
  int64_t off = 0;
  for (size_t d = 0; d < g.q; ++d) {
    const int64_t v = g.at[d][static_cast<size_t>(oi[d] * g.wdims[d] + wi[d])];
    if (v < 0) return -1;
    off += v;
  }
  return off;
}

// The cumulative windows of jnp.cumsum and friends: one dimension of size N with window N and
// N - 1 padding on one side, the others untouched, and an init value that is its own fold. A
// forward window (padding before) is a running fold: position i's window is init, padding (init),
// then elements 0..i, which is position i - 1's fold continued by element i. A reverse window
// (padding after) is folded from the end: position i >= 1 gets op(init, op(x_i, op(x_i+1, ...
// op(x_N-1, init)))), a schedule whose in-order traversal is its window (the specification leaves
// the tree to the implementation; the trailing padding folds to init), and position 0, which has
// no padding, the plain fold. False when the window is not of that form.
template <BinaryOp Op, ElemKind K>
bool CumulativeFold(const WindowParams& p, const typename Traits<K>::S* x, typename Traits<K>::S* y,
                    const std::vector<int64_t>& idims, const std::vector<int64_t>& odims,
                    typename Traits<K>::S init, ExecState& st) {
  using T = Traits<K>;
  using S = typename T::S;
  const size_t rank = idims.size();
  int cum = -1;
  bool reverse = false;
  for (size_t d = 0; d < rank; ++d) {
    if (p.strides[d] != 1 || p.base_dilations[d] != 1 || p.window_dilations[d] != 1 || odims[d] != idims[d])
      return false;
    if (p.dims[d] == 1) {
      if (p.pad_low[d] != 0 || p.pad_high[d] != 0) return false;
      continue;
    }
    const int64_t n = idims[d];
    if (cum >= 0 || p.dims[d] != n) return false;
    if (p.pad_low[d] == n - 1 && p.pad_high[d] == 0) {
      reverse = false;
    } else if (p.pad_low[d] == 0 && p.pad_high[d] == n - 1) {
      reverse = true;
    } else {
      return false;
    }
    cum = static_cast<int>(d);
  }
  if (cum < 0 || idims[cum] < 2) return false;
  const S twice = T::Store(static_cast<typename T::C>(ApplyBinary<Op, T>(T::Load(init), T::Load(init))));
  if (std::memcmp(&twice, &init, sizeof(S)) != 0) return false;
  const int64_t outer = Product(idims, 0, cum), len = idims[cum], inner = Product(idims, cum + 1, rank);
  const FoldFn fold = Fold<Op, K>(), fold_right = Fold<Op, K, true>();
  Split(st, outer, outer * len * inner, [&](int64_t o0, int64_t o1) {
    std::vector<S> run(static_cast<size_t>(inner));
    for (int64_t o = o0; o < o1; ++o) {
      const S* xs = x + o * len * inner;
      S* ys = y + o * len * inner;
      if (inner == 1) {  // one line: the same steps on scalars
        auto step = [](S a, S b) { return T::Store(static_cast<typename T::C>(ApplyBinary<Op, T>(T::Load(a), T::Load(b)))); };
        if (!reverse) {
          S acc = init;
          for (int64_t k = 0; k < len; ++k) ys[k] = acc = step(acc, xs[k]);
        } else {
          S acc = init;
          for (int64_t k = len - 1; k >= 1; --k) {
            acc = step(xs[k], acc);
            ys[k] = step(init, acc);
          }
          acc = init;
          for (int64_t k = 0; k < len; ++k) acc = step(acc, xs[k]);
          ys[0] = acc;
        }
        continue;
      }
      if (!reverse) {
        std::fill_n(ys, inner, init);
        fold(ys, xs, inner);
        for (int64_t k = 1; k < len; ++k) {
          std::memcpy(ys + k * inner, ys + (k - 1) * inner, static_cast<size_t>(inner) * sizeof(S));
          fold(ys + k * inner, xs + k * inner, inner);
        }
        continue;
      }
      std::fill(run.begin(), run.end(), init);
      for (int64_t k = len - 1; k >= 1; --k) {
        fold_right(run.data(), xs + k * inner, inner);
        std::fill_n(ys + k * inner, inner, init);
        fold(ys + k * inner, run.data(), inner);
      }
      std::fill_n(ys, inner, init);
      for (int64_t k = 0; k < len; ++k) fold(ys, xs + k * inner, inner);
    }
  });
  return true;
}

// CumulativeFold behind untyped pointers, for WindowFns.
template <BinaryOp Op, ElemKind K>
bool CumulativeFoldRaw(const WindowParams& p, const void* x, void* y, const std::vector<int64_t>& idims,
                       const std::vector<int64_t>& odims, const void* init, ExecState& st) {
  using S = typename Traits<K>::S;
  return CumulativeFold<Op, K>(p, static_cast<const S*>(x), static_cast<S*>(y), idims, odims,
                               *static_cast<const S*>(init), st);
}

// The typed loops of one (op, element kind) pair that ReduceWindowBySize drives.
struct WindowFns {
  bool (*cumulative)(const WindowParams&, const void* x, void* y, const std::vector<int64_t>& idims,
                     const std::vector<int64_t>& odims, const void* init, ExecState& st);
  FoldManyFn fold_many;
  FoldFn fold;  // acc[k] = op(acc[k], x[k])
  StageFn stage;
  StageStridedFn stage2;
};

// An unsigned integer of N bytes: elements that the driver moves but never computes on.
template <size_t N> struct BitsOf;
template <> struct BitsOf<1> { using type = uint8_t; };
template <> struct BitsOf<2> { using type = uint16_t; };
template <> struct BitsOf<4> { using type = uint32_t; };
template <> struct BitsOf<8> { using type = uint64_t; };

// reduce_window with a single binary-op body. The driver depends only on the element size S:
// every computation goes through `f` (one instance per size instead of one per op and kind kept
// the plugin 1.5 MB smaller; the loops it calls are the same).
template <typename S>
void ReduceWindowInto(const WindowParams& p, const Array& in, const void* init_value, Array& out, ExecState& st,
                      const WindowFns& f) {
  const S init = *static_cast<const S*>(init_value);
  const std::vector<int64_t> idims = in.dims(), odims = out.dims();
  const S* x = in.as<S>();
  S* y = out.mutable_as<S>();
  if (out.NumElements() == 0 || f.cumulative(p, x, y, idims, odims, &init, st)) return;
  const Geometry g = MakeGeometry(p, idims, odims);
  const int64_t P = Product(g.odims, 0, g.q), W = Product(g.wdims, 0, g.q), inner = g.inner;
  const FoldManyFn fold_many = f.fold_many;
  if (inner == 1 && g.q >= 1 && W > 0) {
    // The window moves over the last dimension too (NCHW pooling): outputs along the last
    // dimension fold side by side, 64 at a time. For each window position in row-major order
    // (the outer dimensions' part, then the last dimension's), the 64 outputs' elements are
    // staged (init for holes) and folded in, so each output still folds its window in order.
    const StageFn stage = f.stage;
    constexpr int64_t kLanes = 64;
    const size_t q = g.q, last = q - 1;
    const int64_t OL = g.odims[last], WL = g.wdims[last], rows = P / OL, WO = W / WL;
    const StageStridedFn stage2 = f.stage2;
    // The last dimension's offsets by window position: by_w[wl * OL + o] (-1: a hole), and per
    // (window position, block of kLanes outputs) the element step between the block's offsets
    // when it is 1 or 2 and none is a hole (0 otherwise).
    const int64_t nblocks = (OL + kLanes - 1) / kLanes;
    std::vector<int64_t> by_w(static_cast<size_t>(WL * OL)), all_holes(static_cast<size_t>(kLanes), -1);
    std::vector<int> step_of(static_cast<size_t>(WL * nblocks), 0);
    for (int64_t o = 0; o < OL; ++o)
      for (int64_t wl = 0; wl < WL; ++wl)
        by_w[static_cast<size_t>(wl * OL + o)] = g.at[last][static_cast<size_t>(o * WL + wl)];
    for (int64_t wl = 0; wl < WL; ++wl)
      for (int64_t bi = 0; bi < nblocks; ++bi) {
        const int64_t* o = by_w.data() + wl * OL + bi * kLanes;
        const int64_t n = std::min(kLanes, OL - bi * kLanes);
        const int64_t d = n > 1 ? o[1] - o[0] : 1;
        bool even = (d == 1 || d == 2) && o[0] >= 0;
        for (int64_t t = 1; t < n && even; ++t) even = o[t] - o[t - 1] == d;
        step_of[static_cast<size_t>(wl * nblocks + bi)] = even ? static_cast<int>(d) : 0;
      }
    Split(st, rows, P * W, [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> oi(q), wi(q);
      std::vector<S> staged(static_cast<size_t>(W * kLanes));
      std::vector<const void*> src(static_cast<size_t>(W));
      for (int64_t r = r0; r < r1; ++r) {
        Unravel(r * OL, g.odims, oi);  // oi[last] = 0
        for (int64_t b = 0; b < OL; b += kLanes) {
          const int64_t n = std::min(kLanes, OL - b);
          int64_t j = 0;
          std::fill(wi.begin(), wi.end(), 0);
          for (int64_t wo = 0; wo < WO; ++wo) {
            // The outer dimensions' part of the offset (all holes when any is a hole).
            int64_t outer = 0;
            bool hole = false;
            for (size_t d = 0; d < last; ++d) {
              const int64_t v = g.at[d][static_cast<size_t>(oi[d] * g.wdims[d] + wi[d])];
              hole = hole || v < 0;
              outer += v;
            }
            for (int64_t wl = 0; wl < WL; ++wl, ++j) {
              S* dst = staged.data() + j * kLanes;
              const int64_t* o = by_w.data() + wl * OL + b;
              const int step = hole ? 0 : step_of[static_cast<size_t>(wl * nblocks + b / kLanes)];
              if (step == 1) {
                src[static_cast<size_t>(j)] = x + outer + o[0];  // read in place
                continue;
              }
              if (step == 2) stage2(dst, x + outer + o[0], n);
              else stage(dst, hole ? static_cast<const void*>(&init) : static_cast<const void*>(x + outer),
                         hole ? all_holes.data() : o, &init, n);
              src[static_cast<size_t>(j)] = dst;
            }
            // Next outer window position (row-major over dims 0..last-1).
            for (size_t d = last; d-- > 0;) {
              if (++wi[d] < g.wdims[d]) break;
              wi[d] = 0;
            }
          }
          S* acc = y + r * OL + b;
          std::fill_n(acc, n, init);
          fold_many(acc, src.data(), W, n);
        }
      }
    });
    return;
  }
  Split(st, P, P * W * inner, [&](int64_t o0, int64_t o1) {
    std::vector<S> inits(static_cast<size_t>(inner), init);
    std::vector<int64_t> oi(g.q), wi(g.q);
    std::vector<const void*> src(static_cast<size_t>(W));
    Unravel(o0, g.odims, oi);
    for (int64_t o = o0; o < o1; ++o) {
      S* acc = y + o * inner;
      std::fill_n(acc, inner, init);
      int64_t first;
      if (W > 0 && inner > 1 && WholeWindow(g, oi, first)) {
        // Inside the input (every output of a pooling but its borders): no per-position
        // offset walk (the walk was 28% of a 3x3/2 max pool of 112x112x64).
        for (int64_t j = 0; j < W; ++j) src[static_cast<size_t>(j)] = x + first + g.rel[static_cast<size_t>(j)];
        fold_many(acc, src.data(), W, inner);
      } else if (W > 0) {
        std::fill(wi.begin(), wi.end(), 0);
        int64_t m = 0;
        do {
          const int64_t off = WindowOffset(g, oi, wi);
          if (inner == 1) {
            f.fold(acc, off < 0 ? &init : x + off, 1);
          } else {
            src[static_cast<size_t>(m++)] = off < 0 ? static_cast<const void*>(inits.data()) : x + off;
          }
        } while (NextIndex(wi, g.wdims));
        if (m > 0) fold_many(acc, src.data(), m, inner);
      }
      NextIndex(oi, g.odims);
    }
  });
}

template <typename S>
void ReduceWindowBySize(const Step& s, ExecState& st, const WindowFns& f) {
  Array out = Array::Allocate(s.out_types[0]);
  ReduceWindowInto<S>(s.Params<WindowParams>(), st.slots[s.in[0]].array, st.slots[s.in[1]].array.data(), out, st, f);
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

template <BinaryOp Op, ElemKind K>
const WindowFns& FnsOf() {
  static const WindowFns fns{&CumulativeFoldRaw<Op, K>, ForCpu<&FoldManyBody<Op, K>, HasVectorCopies(K)>(),
                             Fold<Op, K>(), ForCpu<&StageBody<K>, HasVectorCopies(K)>(),
                             ForCpu<&StageStridedBody<K, 2>, HasVectorCopies(K)>()};
  return fns;
}

template <BinaryOp Op, ElemKind K>
void FastReduceWindow(const Step& s, ExecState& st) {
  ReduceWindowBySize<typename BitsOf<sizeof(typename Traits<K>::S)>::type>(s, st, FnsOf<Op, K>());
}

// The reduce_window of a kind without vector copies on the loops of its wide kind W (WideKind):
// the input and init value widened, the window folded in W, the results narrowed.
template <ElemKind W>
[[gnu::noinline]] void ReduceWindowWidened(const Step& s, ExecState& st, const WindowFns& f, WidenFn widen,
                                           WidenFn narrow) {
  using WS = typename Traits<W>::S;
  const Array& in = st.slots[s.in[0]].array;
  Array wide_in = Array::Allocate(ArrayType{W, in.dims()});
  widen(in.data(), wide_in.mutable_data(), in.NumElements());
  WS init;
  widen(st.slots[s.in[1]].array.data(), &init, 1);
  Array wide_out = Array::Allocate(ArrayType{W, s.out_types[0].dims});
  ReduceWindowInto<typename BitsOf<sizeof(WS)>::type>(s.Params<WindowParams>(), wide_in, &init, wide_out, st, f);
  Array out = Array::Allocate(s.out_types[0]);
  narrow(wide_out.data(), out.mutable_data(), out.NumElements());
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

template <BinaryOp Op, ElemKind K>
void WidenedReduceWindow(const Step& s, ExecState& st) {
  ReduceWindowWidened<WideKind(K)>(s, st, FnsOf<Op, WideKind(K)>(), &WidenToWideKind<K>, &NarrowFromWideKind<K>);
}

// Whether WidenedReduceWindow gives kind K's own results for Op. The window's fold rounds every
// step to the kind, which the wide kind's agrees with for the integers (wrapping) but for floats
// only in max and min (exact); u64's max and min are unsigned.
template <BinaryOp Op, ElemKind K>
constexpr bool kWindowsWidened =
    WideKind(K) != K && Supported<Traits<WideKind(K)>>(Op) &&
    (Traits<K>::kCat == Cat::kFloat ? (Op == BinaryOp::kMax || Op == BinaryOp::kMin)
                                    : !(K == ElemKind::kU64 && (Op == BinaryOp::kMax || Op == BinaryOp::kMin)));

template <CompareParams::Dir D, typename C>
[[gnu::always_inline]] inline bool Holds(C a, C b) {
  if constexpr (D == CompareParams::kGe) return a >= b;
  else if constexpr (D == CompareParams::kGt) return a > b;
  else if constexpr (D == CompareParams::kLe) return a <= b;
  else return a < b;
}

// The select over `n` side-by-side windows of m positions each (x + off[j] + c is window c's
// position j): which[c] = the position chosen, starting from position 0, a later candidate
// replacing the choice where compare D(choice, candidate) fails. best holds n values of the
// compute type. Branch-free, so the loop over the windows vectorises.
template <CompareParams::Dir D, ElemKind K>
[[gnu::always_inline]] inline void SelectManyBody(const void* x, const int64_t* off, int64_t m, void* best_buffer,
                                                  int32_t* __restrict which, int64_t n) {
  using T = Traits<K>;
  using C = typename T::C;
  C* __restrict best = static_cast<C*>(best_buffer);
  const typename T::S* v = static_cast<const typename T::S*>(x);
  const typename T::S* __restrict x0 = v + off[0];
  for (int64_t c = 0; c < n; ++c) {
    best[c] = T::Load(x0[c]);
    which[c] = 0;
  }
  for (int64_t j = 1; j < m; ++j) {
    const typename T::S* __restrict xj = v + off[j];
    const int32_t jj = static_cast<int32_t>(j);
    for (int64_t c = 0; c < n; ++c) {
      const C cand = T::Load(xj[c]);
      const bool keep = Holds<D>(best[c], cand);
      best[c] = keep ? best[c] : cand;
      which[c] = keep ? which[c] : jj;
    }
  }
}
using SelectManyFn = void (*)(const void*, const int64_t*, int64_t, void*, int32_t*, int64_t);

// One source element whose add into the result waits until the pieces before its own have run.
template <typename S>
struct DeferredAdd {
  int64_t at;
  S value;
};

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
// select_and_scatter of one source position over `inner` f32 channels side by side, 64 at a time
// in four registers: the choices and their positions stay in registers over the window's m
// positions (SelectManyBody kept them in memory and took a branch per 16 channels and position),
// read in the same order as before (each position's 256 bytes in a row, which the prefetchers
// follow; 16 channels through all the positions first ran 12% slower). Then each position's
// sources are added through masked loads and stores, the lanes that chose it (no branch on
// which did: ~15% of the masks are empty, at random). Results at or below `limit` go to *log.
template <CompareParams::Dir D>
OPJ_TARGET_512 void SelectScatterF32(const float* x, const int64_t* off, int64_t m, const float* source, float* y,
                                     int64_t inner, int64_t limit, std::vector<DeferredAdd<float>>* log) {
  constexpr int kPred = D == CompareParams::kGe ? _CMP_GE_OQ
                        : D == CompareParams::kGt ? _CMP_GT_OQ
                        : D == CompareParams::kLe ? _CMP_LE_OQ
                                                  : _CMP_LT_OQ;
  for (int64_t c0 = 0; c0 < inner; c0 += 64) {
    __mmask16 lanes[4];
    __m512 best[4];
    __m512i which[4];
    for (int v = 0; v < 4; ++v) {
      const int64_t left = inner - c0 - 16 * v;
      lanes[v] = left >= 16 ? __mmask16{0xFFFF} : left <= 0 ? __mmask16{0} : static_cast<__mmask16>((1u << left) - 1);
      best[v] = _mm512_maskz_loadu_ps(lanes[v], x + off[0] + c0 + 16 * v);
      which[v] = _mm512_setzero_si512();
    }
    for (int64_t j = 1; j < m; ++j) {
      const __m512i jj = _mm512_set1_epi32(static_cast<int>(j));
      for (int v = 0; v < 4; ++v) {
        const __m512 cand = _mm512_maskz_loadu_ps(lanes[v], x + off[j] + c0 + 16 * v);
        // A candidate replaces the choice where compare(choice, candidate) fails (NaN included).
        const __mmask16 replace = static_cast<__mmask16>(~_mm512_cmp_ps_mask(best[v], cand, kPred) & lanes[v]);
        best[v] = _mm512_mask_mov_ps(best[v], replace, cand);
        which[v] = _mm512_mask_mov_epi32(which[v], replace, jj);
      }
    }
    for (int v = 0; v < 4; ++v) {
      if (!lanes[v]) break;
      const int64_t c = c0 + 16 * v;
      const __m512 src = _mm512_maskz_loadu_ps(lanes[v], source + c);
      for (int64_t j = 0; j < m; ++j) {
        __mmask16 chose = _mm512_mask_cmpeq_epi32_mask(lanes[v], which[v], _mm512_set1_epi32(static_cast<int>(j)));
        float* at = y + off[j] + c;
        if (off[j] + c <= limit) {  // lanes up to the limit wait in the log
          const int64_t below = std::min<int64_t>(16, limit - (off[j] + c) + 1);
          const __mmask16 late = static_cast<__mmask16>(chose & (below >= 16 ? 0xFFFFu : (1u << below) - 1));
          alignas(64) float vals[16];
          _mm512_store_ps(vals, src);
          for (unsigned bits = late; bits; bits &= bits - 1) {
            const int lane = __builtin_ctz(bits);
            log->push_back({off[j] + c + lane, vals[lane]});
          }
          chose = static_cast<__mmask16>(chose & ~late);
        }
        if (lanes[v] == 0xFFFF && off[j] + c > limit) {
          // Whole vectors are written back whole, the lanes not chosen unchanged (3x3/2 gradient of
          // 1x112x112x64: 288 against 298 us with masked stores at one thread): all 16 elements
          // are this window's, above the limit, so no other thread writes them.
          const __m512 cur = _mm512_loadu_ps(at);
          _mm512_storeu_ps(at, _mm512_mask_add_ps(cur, chose, cur, src));
        } else {
          _mm512_mask_storeu_ps(at, chose, _mm512_add_ps(_mm512_maskz_loadu_ps(chose, at), src));
        }
      }
    }
  }
}
#endif

// select_and_scatter with select = compare D (the current choice, a candidate) and scatter =
// add: for every source position (row-major), the window's first position not a hole is chosen,
// each later one replaces it unless the select holds, and the source element is added into the
// result at the choice. The `inner` untouched elements of a window choose side by side.
// Large ones run as one piece of consecutive source positions per intra-op thread. A result
// element receives its adds in source order, as one pass would give them: an element that an
// earlier piece may also reach (at or below the last position of the window before the piece's
// first, windows being in increasing offset order without dilations) gets its adds from this
// piece through a log replayed after every piece has run, in piece order.
// The f32 path of one compare direction (SelectScatterF32<D>), null elsewhere.
using SelectScatterF32Fn = void (*)(const float*, const int64_t*, int64_t, const float*, float*, int64_t, int64_t,
                                    std::vector<DeferredAdd<float>>*);

// select_and_scatter with a single-compare select and an adding scatter. The compare direction
// reaches the driver only through select_many and f32 (one instance per kind instead of one per
// kind and direction).
template <ElemKind K>
void SelectAndScatterOfKind(const Step& s, ExecState& st, SelectManyFn select_many, SelectScatterF32Fn f32) {
  using T = Traits<K>;
  using S = typename T::S;
  const WindowParams& p = s.Params<WindowParams>();
  const Array& xa = st.slots[s.in[0]].array;
  const Array& src = st.slots[s.in[1]].array;
  const S init = *st.slots[s.in[2]].array.as<S>();
  Array out = Array::Allocate(s.out_types[0]);
  S* y = out.mutable_as<S>();
  const S* x = xa.as<S>();
  const S* source = src.as<S>();
  const Geometry g = MakeGeometry(p, xa.dims(), src.dims());
  const int64_t P = Product(g.odims, 0, g.q), inner = g.inner;
  const int64_t W = Product(g.wdims, 0, g.q);
  bool monotone = true;
  for (size_t d = 0; d < p.dims.size(); ++d)
    monotone = monotone && p.base_dilations[d] == 1 && p.window_dilations[d] == 1 && p.strides[d] >= 1;
  const int64_t pieces = monotone && P * W * inner >= (int64_t{1} << 17) ? std::min<int64_t>(P, st.threads()) : 1;
  std::vector<std::vector<DeferredAdd<S>>> logs(static_cast<size_t>(pieces));
  // The non-hole positions of the window at oi, in order, into offs; their count.
  auto window = [&](const std::vector<int64_t>& oi, std::vector<int64_t>& wi, std::vector<int64_t>& offs) {
    int64_t m = 0, first;
    if (WholeWindow(g, oi, first)) {
      for (; m < W; ++m) offs[static_cast<size_t>(m)] = first + g.rel[static_cast<size_t>(m)];
    } else {
      std::fill(wi.begin(), wi.end(), 0);
      do {
        const int64_t off = WindowOffset(g, oi, wi);
        if (off >= 0) offs[static_cast<size_t>(m++)] = off;
      } while (NextIndex(wi, g.wdims));
    }
    return m;
  };
  st.ParallelFor(pieces, [&](int64_t k) {
    const int64_t o0 = P * k / pieces, o1 = P * (k + 1) / pieces;
    std::vector<int64_t> oi(g.q), wi(g.q), offs(static_cast<size_t>(std::max<int64_t>(W, 1)));
    // The last result element that the windows before position `end` reach, -1 if none.
    auto reach = [&](int64_t end) {
      for (int64_t o = end - 1; o >= 0; --o) {
        Unravel(o, g.odims, oi);
        const int64_t m = window(oi, wi, offs);
        if (m > 0) return offs[static_cast<size_t>(m - 1)] + inner - 1;
      }
      return int64_t{-1};
    };
    // Earlier pieces may add into the result up to `limit`; this one adds directly only above it
    // and, from the next piece's limit on, not at all: it fills that span with init (on its own
    // core, whose caches then hold the lines it adds into).
    const int64_t limit = k == 0 ? -1 : reach(o0);
    const int64_t filled = k + 1 == pieces ? out.NumElements() - 1 : reach(o1);
    if (filled > limit) std::fill(y + limit + 1, y + filled + 1, init);
    std::vector<DeferredAdd<S>>& log = logs[static_cast<size_t>(k)];
    std::vector<int32_t> which(static_cast<size_t>(inner));
    std::vector<typename T::C> best(static_cast<size_t>(inner));
    Unravel(o0, g.odims, oi);
    for (int64_t o = o0; o < o1; ++o) {
      const int64_t m = W > 0 ? window(oi, wi, offs) : 0;
      NextIndex(oi, g.odims);
      if (m == 0) continue;
      const S* sv = source + o * inner;
      if constexpr (K == ElemKind::kF32) {
        if (f32) {
          f32(x, offs.data(), m, sv, y, inner, limit, &log);
          continue;
        }
      }
      select_many(x, offs.data(), m, best.data(), which.data(), inner);
      for (int64_t c = 0; c < inner; ++c) {
        const int64_t at = offs[static_cast<size_t>(which[c])] + c;
        if (at <= limit) {
          log.push_back({at, sv[c]});
          continue;
        }
        S& t = y[at];
        t = T::Store(static_cast<typename T::C>(ApplyBinary<BinaryOp::kAdd, T>(T::Load(t), T::Load(sv[c]))));
      }
    }
  });
  for (const std::vector<DeferredAdd<S>>& log : logs)
    for (const DeferredAdd<S>& d : log)
      y[d.at] = T::Store(static_cast<typename T::C>(ApplyBinary<BinaryOp::kAdd, T>(T::Load(y[d.at]), T::Load(d.value))));
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

template <CompareParams::Dir D, ElemKind K>
void FastSelectAndScatter(const Step& s, ExecState& st) {
  static const SelectManyFn select_many = ForCpu<&SelectManyBody<D, K>, HasVectorCopies(K)>();
  SelectScatterF32Fn f32 = nullptr;
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  if constexpr (K == ElemKind::kF32) f32 = IsaLevel() == 2 ? &SelectScatterF32<D> : nullptr;
#endif
  SelectAndScatterOfKind<K>(s, st, select_many, f32);
}

template <ElemKind K>
KernelFn PickSelectDir(CompareParams::Dir d) {
  switch (d) {
    case CompareParams::kGe: return &FastSelectAndScatter<CompareParams::kGe, K>;
    case CompareParams::kGt: return &FastSelectAndScatter<CompareParams::kGt, K>;
    case CompareParams::kLe: return &FastSelectAndScatter<CompareParams::kLe, K>;
    case CompareParams::kLt: return &FastSelectAndScatter<CompareParams::kLt, K>;
    default: return nullptr;
  }
}

template <BinaryOp Op>
KernelFn PickWindow(ElemKind k) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if constexpr (kWindowsWidened<Op, K>) {
      fn = &WidenedReduceWindow<Op, K>;
    } else if constexpr (Supported<Traits<K>>(Op) && Traits<K>::kCat != Cat::kComplex &&
                         (HasVectorCopies(K) || WideKind(K) == K)) {
      // (A kind with a wide kind that does not agree, an 8-bit float's sum, takes the generic
      // window, which rounds every step as its own loop would.)
      fn = &FastReduceWindow<Op, K>;
    }
  });
  return fn;
}

template <BinaryOp Op>
FoldFn PickFold(ElemKind k) {
  FoldFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if constexpr (Supported<Traits<K>>(Op) && Traits<K>::kCat != Cat::kComplex) fn = Fold<Op, K>();
  });
  return fn;
}

}  // namespace

namespace {
// pick.template operator()<Op>() for the binary op `op` of a fold with a typed loop; null for others.
template <typename R, typename F>
R WithFoldOp(BinaryOp op, F&& pick) {
  switch (op) {
    case BinaryOp::kAdd: return pick.template operator()<BinaryOp::kAdd>();
    case BinaryOp::kMul: return pick.template operator()<BinaryOp::kMul>();
    case BinaryOp::kMax: return pick.template operator()<BinaryOp::kMax>();
    case BinaryOp::kMin: return pick.template operator()<BinaryOp::kMin>();
    case BinaryOp::kAnd: return pick.template operator()<BinaryOp::kAnd>();
    case BinaryOp::kOr: return pick.template operator()<BinaryOp::kOr>();
    default: return nullptr;
  }
}
}  // namespace

KernelFn FastReduceWindowKernel(BinaryOp op, ElemKind k) {
  return WithFoldOp<KernelFn>(op, [&]<BinaryOp Op>() { return PickWindow<Op>(k); });
}

TypedFoldFn TypedFold(BinaryOp op, ElemKind k) {
  return WithFoldOp<TypedFoldFn>(op, [&]<BinaryOp Op>() { return PickFold<Op>(k); });
}

KernelFn FastSelectAndScatterKernel(CompareParams select, BinaryOp scatter, ElemKind operand, ElemKind result) {
  if (select.total_order || scatter != BinaryOp::kAdd || operand != result) return nullptr;
  KernelFn fn = nullptr;
  DispatchKind(operand, [&]<ElemKind K>() {
    if constexpr (HasVectorCopies(K) && Traits<K>::kCat != Cat::kBool) fn = PickSelectDir<K>(select.dir);
  });
  return fn;
}

}  // namespace openpjrt::cpu
