// dot_general: f32 products on AVX-512 machines go to our own kernel (sgemm.h), which reads each
// operand in place when its batch, free and contracting dimensions each merge into one stride.
// Otherwise operands are laid out as [batch, free, contract] and [batch, contract, free] by
// strided copies, then multiplied per batch: by Eigen (gemm.h, one build per instruction set) for
// f32, f64 and the complex kinds, by an i-k-j loop in the compute type for the others (exact,
// wrapping integer arithmetic). Operands arrive in the result's element kind (the compiler
// converts mixed-precision operands first).
#include <algorithm>
#include <atomic>
#include <span>
#include <vector>

#include "src/cpu/kernels/elementwise_ops.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/blas/sgemm.h"
#include "src/cpu/exec/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using namespace ops;

// A list of dimension numbers, kept inline: the f32 product's set-up on every run allocates
// nothing (a 64 x 64 product made 18 allocations before).
using DimList = absl::InlinedVector<int64_t, 8>;

// `a` in [prod(batch), prod(first), prod(second)] order: `a` itself when its dimensions are
// already in that order (size-1 dimensions aside), else a strided copy into a pooled array (a
// zero-filled vector, as before, was allocated and its pages faulted in on every run).
Array Arrange(const Array& a, std::span<const int64_t> batch, std::span<const int64_t> first,
              std::span<const int64_t> second) {
  DimList order(batch.begin(), batch.end());
  order.insert(order.end(), first.begin(), first.end());
  order.insert(order.end(), second.begin(), second.end());
  bool in_order = true;
  int64_t last = -1;
  for (int64_t d : order) {
    if (a.dims()[d] == 1) continue;
    in_order = in_order && d > last;
    last = d;
  }
  if (in_order) return a;
  std::vector<int64_t> in_stride = ByteStrides(a.type()), count, src_stride;
  for (int64_t d : order) {
    count.push_back(a.dims()[d]);
    src_stride.push_back(in_stride[d]);
  }
  const int64_t es = a.type().ElementSize();
  Array out = Array::Allocate(a.type());
  std::vector<int64_t> dst_stride = RowMajorStrides(count);
  for (int64_t& v : dst_stride) v *= es;
  StridedCopy(count, a.data(), src_stride, out.mutable_data(), dst_stride, es);
  return out;
}

// The extent and element stride of `dims` of `a` taken together, when they merge into one
// (each dimension's stride is the next one's stride times its size); none: extent 1.
bool MergeDims(const Dims& shape, std::span<const int64_t> dims, int64_t* extent, int64_t* stride) {
  auto row_major_stride = [&](int64_t d) {
    int64_t n = 1;
    for (size_t j = static_cast<size_t>(d) + 1; j < shape.size(); ++j) n *= shape[j];
    return n;
  };
  *extent = 1;
  int64_t last = -1;  // the previous dimension of size > 1 (size-1 dimensions have any stride)
  for (int64_t d : dims) {
    *extent *= shape[d];
    if (shape[d] == 1) continue;
    if (last >= 0 && row_major_stride(last) != row_major_stride(d) * shape[d]) return false;
    last = d;
  }
  *stride = last < 0 ? 0 : row_major_stride(last);
  return true;
}

DimList FreeDims(int64_t rank, std::span<const int64_t> batch, std::span<const int64_t> contract) {
  DimList free;
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
        std::find(contract.begin(), contract.end(), i) == contract.end())
      free.push_back(i);
  return free;
}

int64_t Product(const Array& a, std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= a.dims()[d];
  return n;
}

// A product's operands and extents: batch B, free M (lhs) and N (rhs), contracting Kc, with the
// free dimensions of each operand.
struct DotShape {
  const DotParams& p;
  const Array& lhs;
  const Array& rhs;
  DimList lf, rf;
  int64_t B, M, Kc, N;
  DotShape(const Step& s, const ExecState& st)
      : p(s.Params<DotParams>()), lhs(st.slots[s.in[0]].array), rhs(st.slots[s.in[1]].array),
        lf(FreeDims(lhs.type().rank(), p.lhs_batch, p.lhs_contract)),
        rf(FreeDims(rhs.type().rank(), p.rhs_batch, p.rhs_contract)), B(Product(lhs, p.lhs_batch)),
        M(Product(lhs, lf)), Kc(Product(lhs, p.lhs_contract)), N(Product(rhs, rf)) {}
};

template <ElemKind K>
void DotGeneral(const Step& s, ExecState& st);

}  // namespace

namespace {

// The geometry of p's product for operands of dimensions l and r; false when an operand's
// batch, free or contracting dimensions do not merge into one stride each.
bool GeometryOf(const DotParams& p, const Dims& l, const Dims& r, DotGeometry* g) {
  const DimList lf = FreeDims(static_cast<int64_t>(l.size()), p.lhs_batch, p.lhs_contract);
  const DimList rf = FreeDims(static_cast<int64_t>(r.size()), p.rhs_batch, p.rhs_contract);
  int64_t rb_n, rk_n;
  if (!MergeDims(l, p.lhs_batch, &g->B, &g->lb_s) || !MergeDims(l, lf, &g->M, &g->m_s) ||
      !MergeDims(l, p.lhs_contract, &g->K, &g->lk_s) || !MergeDims(r, p.rhs_batch, &rb_n, &g->rb_s) ||
      !MergeDims(r, p.rhs_contract, &rk_n, &g->rk_s) || !MergeDims(r, rf, &g->N, &g->n_s) || rb_n != g->B ||
      rk_n != g->K)
    return false;
  g->lhs = l;
  g->rhs = r;
  return true;
}

}  // namespace

void PlanDot(DotParams& p, const ArrayType& lhs, const ArrayType& rhs) {
  auto g = std::make_shared<DotGeometry>();
  if (GeometryOf(p, lhs.dims, rhs.dims, g.get())) p.geometry = std::move(g);
  else p.geometry.reset();
}

namespace {

// One row too small to share out (a loop body's h W) whose geometry PlanDot worked out: straight
// to the row kernel, the bits FastSgemm would give (its planning and calls had been ~30 ns of a
// ~65 ns 1x64 @ 64x64). Apart from DotF32Fast's other paths, which build a geometry of their own
// on the stack: here that construction and teardown had cost more instructions than the checks.
// Every other product DotF32Fast takes.
bool DotF32Blocks(const Step& s, ExecState& st, Array& out, const ProductRegionFn* done, const SgemmUpdate* update);

bool SingleRowF32(const DotParams& p, const Array& lhs, const Array& rhs, float* out) {
  const DotGeometry* g = p.geometry.get();
  if (!g || g->B != 1 || g->M != 1 || g->n_s != 1 || !(g->lhs == lhs.dims()) || !(g->rhs == rhs.dims()) ||
      (p.packed_rhs && p.packed_rhs->k == g->K && p.packed_rhs->n == g->N))
    return false;
  return SgemmSingleRow(g->N, g->K, lhs.as<float>(), g->lk_s, rhs.as<float>(), g->rk_s, out);
}

}  // namespace

bool DotF32Fast(const Step& s, ExecState& st, Array& out, const ProductRegionFn* done, const SgemmUpdate* update) {
  if (s.fn != &DotGeneral<ElemKind::kF32> || !HaveFastSgemm()) return false;
  const DotParams& p = s.Params<DotParams>();
  const Array& lhs = st.slots[s.in[0]].array;
  const Array& rhs = st.slots[s.in[1]].array;
  if (!update && SingleRowF32(p, lhs, rhs, out.mutable_as<float>())) {
    if (done) (*done)(0, 1, p.geometry->N, p.geometry->N);
    return true;
  }
  return DotF32Blocks(s, st, out, done, update);
}

namespace {

bool DotF32Blocks(const Step& s, ExecState& st, Array& out, const ProductRegionFn* done, const SgemmUpdate* update) {
  const DotParams& p = s.Params<DotParams>();
  const Array& lhs = st.slots[s.in[0]].array;
  const Array& rhs = st.slots[s.in[1]].array;
  DotGeometry computed;
  const DotGeometry* g = p.geometry.get();
  if (!g || !(g->lhs == lhs.dims()) || !(g->rhs == rhs.dims())) {
    if (!GeometryOf(p, lhs.dims(), rhs.dims(), &computed)) return false;
    g = &computed;
  }
  const int64_t B = g->B, M = g->M, Kc = g->K, N = g->N;
  const int64_t lb_s = g->lb_s, m_s = g->m_s, lk_s = g->lk_s, rb_s = g->rb_s, rk_s = g->rk_s, n_s = g->n_s;
  float* po = out.mutable_as<float>();
  const float* pl = lhs.as<float>();
  const float* pr = rhs.as<float>();
  if (B == 1 && M == 1 && n_s == 1 && !update && !(p.packed_rhs && p.packed_rhs->k == Kc && p.packed_rhs->n == N) &&
      SgemmSingleRow(N, Kc, pl, lk_s, pr, rk_s, po)) {
    if (done) (*done)(0, 1, N, N);
    return true;
  }
  // Pieces are independent and every element is summed the same way whatever the cut, so
  // deterministic mode needs nothing special.
  const int pieces = SgemmPieces(M, N, Kc, st.threads());
  auto parallel_for = [&](int64_t n, const std::function<void(int64_t)>& fn) { st.ParallelFor(n, fn); };
  const bool packed = p.packed_rhs && B == 1 && p.packed_rhs->k == Kc && p.packed_rhs->n == N;
  // Regions of batch bi's C, as elements of the whole result (one reference captured, so the
  // std::function holds it without allocating).
  struct {
    int64_t batch_start, n;
    const ProductRegionFn* done;
  } at{0, N, done};
  const SgemmRegionDone region = [&at](int64_t m0, int64_t rows, int64_t n0, int64_t cols) {
    (*at.done)(at.batch_start + m0 * at.n + n0, rows, cols, at.n);
  };
  // Many batches of small products (attention's heads: 32 products of 128x128x32 at a time) go
  // to the threads a whole product each: cutting each product into a piece per thread, one batch
  // after another, paid a fork and join per batch for pieces of a few microseconds (at 4 threads
  // on 4 cores the transformer step's six attention products took 5 ms each instead of 0.5 ms).
  // Every element is summed in the same order either way.
  const int threads = st.threads();
  const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(Kc);
  if (B > 1 && threads > 1 && !packed && (B % threads == 0 || B >= 4 * threads || flops < 8e6)) {
    const SgemmParallelFor serial = [](int64_t n, const std::function<void(int64_t)>& fn) {
      for (int64_t i = 0; i < n; ++i) fn(i);
    };
    std::atomic<bool> failed{false};
    st.ParallelFor(B, [&](int64_t bi) {
      const int64_t start = bi * M * N;
      const SgemmRegionDone region_b = [done, start, N](int64_t m0, int64_t rows, int64_t n0, int64_t cols) {
        (*done)(start + m0 * N + n0, rows, cols, N);
      };
      SgemmUpdate batch_update;
      if (update) {
        batch_update = *update;
        batch_update.d = update->d + start;
        batch_update.ldd = N;
      }
      if (!FastSgemm(M, N, Kc, {pl + bi * lb_s, m_s, lk_s}, {pr + bi * rb_s, rk_s, n_s}, po + start, N, 1,
                     serial, done ? &region_b : nullptr, nullptr, update ? &batch_update : nullptr))
        failed.store(true, std::memory_order_relaxed);
    });
    return !failed.load();
  }
  for (int64_t bi = 0; bi < B; ++bi) {
    at.batch_start = bi * M * N;
    SgemmOperand b{pr + bi * rb_s, rk_s, n_s};
    if (packed) b.packed = p.packed_rhs->data.get();
    SgemmUpdate batch_update;
    if (update) {
      batch_update = *update;
      batch_update.d = update->d + bi * M * N;
      batch_update.ldd = N;
    }
    // (Its packing buffers could not be allocated: the caller computes the product another way.)
    if (!FastSgemm(M, N, Kc, {pl + bi * lb_s, m_s, lk_s}, b, po + bi * M * N, N, pieces, parallel_for,
                   done ? &region : nullptr, nullptr, update ? &batch_update : nullptr))
      return false;
  }
  return true;
}

}  // namespace

bool PrepackDotRhs(Step& s, const Array& rhs) {
  if (s.fn != &DotGeneral<ElemKind::kF32> || !HaveFastSgemm() || rhs.elem() != ElemKind::kF32) return false;
  const DotParams& p = s.Params<DotParams>();
  DimList rf = FreeDims(rhs.type().rank(), p.rhs_batch, p.rhs_contract);
  int64_t rk_n, rk_s, n_n, n_s;
  if (Product(rhs, p.rhs_batch) != 1 || !MergeDims(rhs.dims(), p.rhs_contract, &rk_n, &rk_s) ||
      !MergeDims(rhs.dims(), rf, &n_n, &n_s) || rk_n == 0 || n_n == 0)
    return false;
  PackedSgemmB b = PackSgemmB(rk_n, n_n, {rhs.as<float>(), rk_s, n_s});
  if (!b.data) return false;  // no memory for the packed copy: B is read as it is
  auto packed = std::make_shared<DotParams>(p);
  packed->packed_rhs = std::make_shared<PackedSgemmB>(std::move(b));
  s.params = std::move(packed);
  return true;
}

namespace {

template <ElemKind K>
void DotGeneral(const Step& s, ExecState& st) {
  using T = Traits<K>;
  using C = typename T::C;
  using S = typename T::S;
  if constexpr (K == ElemKind::kF32) {
    if (DotF32Fast(s, st, st.Output(s), nullptr)) return;
  }
  const DotShape d(s, st);
  const DotParams& p = d.p;
  const Array& lhs = d.lhs;
  const Array& rhs = d.rhs;
  const DimList& lf = d.lf;
  const DimList& rf = d.rf;
  const int64_t B = d.B, M = d.M, Kc = d.Kc, N = d.N;
  const Array a = Arrange(lhs, p.lhs_batch, lf, p.lhs_contract);      // [B, M, K]
  const Array b = Arrange(rhs, p.rhs_batch, p.rhs_contract, rf);      // [B, K, N]
  const S* pa = reinterpret_cast<const S*>(a.data());
  const S* pb = reinterpret_cast<const S*>(b.data());
  Array r = st.NewArray(s.out_types[0]);
  S* out = r.mutable_as<S>();
  if constexpr (K == ElemKind::kF32 || K == ElemKind::kF64 || K == ElemKind::kC64 || K == ElemKind::kC128) {
    const GemmTable& g = Gemm();
    auto gemm = [&] {
      if constexpr (K == ElemKind::kF32) return g.f32;
      else if constexpr (K == ElemKind::kF64) return g.f64;
      else if constexpr (K == ElemKind::kC64) return g.c64;
      else return g.c128;
    }();
    // Large products are cut into pieces of rows or of columns that threads compute independently: one piece per thread, or in deterministic mode a cut that depends
    // only on the shape (about 8 pieces), so that results do not change with the thread count.
    const bool big = 2.0 * M * N * Kc >= 8e6 && (st.threads() > 1 || st.deterministic());
    const int64_t ways = st.deterministic() ? 8 : st.threads();
    auto cut = [&](int64_t len, int64_t min_piece) {
      return std::max<int64_t>(min_piece, ((len + ways - 1) / ways + 15) / 16 * 16);
    };
    // Cut the side whose operand is smaller to repack: rows when A is the larger operand (each
    // piece packs all of B), columns otherwise (each piece packs its share of B).
    const bool by_rows = M >= N ? M >= 128 : N < 256;
    const int64_t rows = big && by_rows && M >= 128 ? cut(M, 64) : M;
    const int64_t cols = big && !by_rows && N >= 256 ? cut(N, 128) : N;
    const int64_t row_pieces = rows ? (M + rows - 1) / rows : 0, col_pieces = cols ? (N + cols - 1) / cols : 0;
    const int64_t per_batch = row_pieces * col_pieces;
    st.ParallelFor(B * per_batch, [&](int64_t piece) {
      const int64_t bi = piece / per_batch, r = piece % per_batch / col_pieces, c = piece % col_pieces;
      const int64_t m0 = r * rows, n0 = c * cols;
      const int64_t m = std::min(rows, M - m0), n = std::min(cols, N - n0);
      gemm(pa + (bi * M + m0) * Kc, Kc, pb + bi * Kc * N + n0, N, out + (bi * M + m0) * N + n0, N, m, Kc, n);
    });
    st.slots[s.out[0]] = RtValue::Of(std::move(r));
    return;
  }
  // vector<bool> has no data(): booleans accumulate in bytes.
  using A = std::conditional_t<std::is_same_v<C, bool>, uint8_t, C>;
  std::vector<A> acc(static_cast<size_t>(N));
  std::vector<A> brow(static_cast<size_t>(Kc * N));
  for (int64_t bi = 0; bi < B; ++bi) {
    for (int64_t k = 0; k < Kc * N; ++k) brow[k] = T::Load(pb[bi * Kc * N + k]);
    for (int64_t i = 0; i < M; ++i) {
      std::fill(acc.begin(), acc.end(), A{});
      const S* arow = pa + (bi * M + i) * Kc;
      for (int64_t k = 0; k < Kc; ++k) {
        const C av = T::Load(arow[k]);
        const A* bk = brow.data() + k * N;
        for (int64_t j = 0; j < N; ++j)
          acc[j] = static_cast<A>(ApplyBinary<BinaryOp::kAdd, T>(
              static_cast<C>(acc[j]),
              static_cast<C>(ApplyBinary<BinaryOp::kMul, T>(av, static_cast<C>(bk[j])))));
      }
      S* orow = out + (bi * M + i) * N;
      for (int64_t j = 0; j < N; ++j) orow[j] = T::Store(static_cast<C>(acc[j]));
    }
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

template <ElemKind K>
void RaggedDot(const Step& s, ExecState& st) {
  using T = Traits<K>;
  using C = typename T::C;
  using A = std::conditional_t<std::is_same_v<C, bool>, uint8_t, C>;
  const RaggedDotParams& p = s.Params<RaggedDotParams>();
  const Array& lhs = st.slots[s.in[0]].array;
  const Array& rhs = st.slots[s.in[1]].array;
  const Array& gs = st.slots[s.in[2]].array;
  Array out = st.NewArray(s.out_types[0]);
  const auto& ld = lhs.dims();
  const auto& rd = rhs.dims();
  const auto& od = out.dims();
  DimList lf = FreeDims(static_cast<int64_t>(ld.size()), p.lhs_batch, p.lhs_contract), rf;
  for (int64_t d = 0; d < static_cast<int64_t>(rd.size()); ++d)
    if (d != p.rhs_group && std::find(p.rhs_batch.begin(), p.rhs_batch.end(), d) == p.rhs_batch.end() &&
        std::find(p.rhs_contract.begin(), p.rhs_contract.end(), d) == p.rhs_contract.end())
      rf.push_back(d);
  const std::vector<int64_t> ls = RowMajorStrides(ld), rs = RowMajorStrides(rd);
  // Group sizes as int64, one row of `groups` per leading batch index.
  const int64_t groups = gs.dims().empty() ? 1 : gs.dims().back();
  std::vector<int64_t> sizes(static_cast<size_t>(gs.NumElements()));
  DispatchKind(gs.elem(), [&]<ElemKind G>() {
    using GT = Traits<G>;
    if constexpr (GT::kCat == Cat::kSigned || GT::kCat == Cat::kUnsigned)
      for (size_t i = 0; i < sizes.size(); ++i) sizes[i] = static_cast<int64_t>(GT::Load(gs.as<typename GT::S>()[i]));
  });
  const size_t gs_prefix = gs.dims().empty() ? 0 : gs.dims().size() - 1;
  const size_t off = p.mode == RaggedDotParams::kContracting ? 1 : 0, nb = p.lhs_batch.size(), nlf = lf.size();
  const size_t ragged_free = std::find(lf.begin(), lf.end(), p.lhs_ragged) - lf.begin();
  const size_t ragged_contract = std::find(p.lhs_contract.begin(), p.lhs_contract.end(), p.lhs_ragged) - p.lhs_contract.begin();
  std::vector<int64_t> ksize;
  for (int64_t d : p.lhs_contract) ksize.push_back(ld[d]);
  const typename T::S* pl = lhs.as<typename T::S>();
  const typename T::S* pr = rhs.as<typename T::S>();
  auto* po = out.mutable_as<typename T::S>();
  std::vector<int64_t> idx(od.size(), 0), k(ksize.size());
  const int64_t n_out = out.NumElements();
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t rest = o;
    for (int64_t d = static_cast<int64_t>(od.size()) - 1; d >= 0; --d) {
      idx[d] = rest % od[d];
      rest /= od[d];
    }
    int64_t bl = 0, br = 0, row = 0;
    for (size_t b = 0; b < nb; ++b) {
      bl += idx[off + b] * ls[p.lhs_batch[b]];
      br += idx[off + b] * rs[p.rhs_batch[b]];
      if (b < gs_prefix) row = row * gs.dims()[b] + idx[off + b];
    }
    for (size_t f = 0; f < nlf; ++f) bl += idx[off + nb + f] * ls[lf[f]];
    for (size_t f = 0; f < rf.size(); ++f) br += idx[off + nb + nlf + f] * rs[rf[f]];
    const int64_t* sz = sizes.data() + row * groups;
    int64_t lo = 0, hi = -1;  // the ragged contracting range (mode kContracting)
    bool zero = false;
    if (p.mode == RaggedDotParams::kNonContracting) {
      const int64_t m = idx[off + nb + ragged_free];
      int64_t start = 0, g = 0;
      while (g < groups && m >= start + sz[g]) start += sz[g++];
      if (g == groups) zero = true;
      else br += g * rs[p.rhs_group];
    } else if (p.mode == RaggedDotParams::kContracting) {
      for (int64_t g = 0; g < idx[0]; ++g) lo += sz[g];
      hi = lo + sz[idx[0]];
    }
    A acc{};
    if (!zero && !std::count(ksize.begin(), ksize.end(), 0)) {
      std::fill(k.begin(), k.end(), 0);
      do {
        if (p.mode == RaggedDotParams::kContracting && (k[ragged_contract] < lo || k[ragged_contract] >= hi)) continue;
        int64_t il = bl, ir = br;
        for (size_t c = 0; c < k.size(); ++c) il += k[c] * ls[p.lhs_contract[c]], ir += k[c] * rs[p.rhs_contract[c]];
        acc = static_cast<A>(ApplyBinary<BinaryOp::kAdd, T>(
            static_cast<C>(acc), static_cast<C>(ApplyBinary<BinaryOp::kMul, T>(T::Load(pl[il]), T::Load(pr[ir])))));
      } while (!k.empty() && NextIndex(k, ksize));
    }
    po[o] = T::Store(static_cast<C>(acc));
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

}  // namespace

absl::StatusOr<KernelFn> SelectRaggedDot(ElemKind out) {
  KernelFn fn = nullptr;
  DispatchKind(out, [&]<ElemKind K>() {
    if constexpr (WideKind(K) == K) fn = &RaggedDot<K>;
  });
  if (!fn) return absl::UnimplementedError(StrCat("chlo.ragged_dot on ", ir::ElemKindName(out)));
  return fn;
}

absl::StatusOr<KernelFn> SelectDotGeneral(ElemKind lhs, ElemKind rhs, ElemKind out) {
  if (lhs != out || rhs != out)
    return absl::InternalError("dot_general kernel expects operands in the result's kind");
  KernelFn fn = nullptr;
  // Kinds with a wide kind are multiplied in it (compiler: ProductWork).
  DispatchKind(out, [&]<ElemKind K>() {
    if constexpr (WideKind(K) == K) fn = &DotGeneral<K>;
  });
  if (!fn) return absl::UnimplementedError(StrCat("dot_general kernel on ", ir::ElemKindName(out)));
  return fn;
}

bool IsEpilogueProduct(const Step& s) {
  return s.fn == &DotGeneral<ElemKind::kF32> || s.fn == ConvolutionGemmKernel(ElemKind::kF32);
}

}  // namespace openpjrt::cpu
