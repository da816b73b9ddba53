// Convolution as matrix products (f32, f64, complex): output positions are cut into pieces of 256;
// for each piece the input windows are gathered into a [positions, window x input features] patch
// matrix (zeros where the window falls in padding or in lhs-dilation holes) and multiplied by the
// kernel laid out as [window x input features, output features], one product per feature group.
// Any dimension numbers, strides, padding, dilations and window reversal; batch groups use the
// direct loop in kernels_window.cc. The cut does not depend on the thread count, so results are
// the same with any number of intra-op threads.
#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "src/cpu/kernels/conv_winograd.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/blas/sgemm.h"
#include "src/cpu/exec/strided.h"

namespace openpjrt::cpu {
namespace {

template <typename S>
GemmFn<S> GemmFor() {
  const GemmTable& g = Gemm();
  if constexpr (std::is_same_v<S, float>) return g.f32;
  else if constexpr (std::is_same_v<S, double>) return g.f64;
  else if constexpr (std::is_same_v<S, std::complex<float>>) return g.c64;
  else return g.c128;
}

// f32 without lhs dilation: an implicit GEMM. The input is copied into a canonical padded
// layout [batch, padded spatial..., features] (all of it, or each band of output rows its own
// slice; an input already in that layout is read as it is); the product's left operand is then
// read in place through offset tables (output position -> window origin, (window tap, feature) -> offset), so
// no patch matrix is built and each input value is packed straight into the kernel's panels.
// The product sums over (window tap, feature) in the same order as the patch path, and our GEMM
// gives the same bits for any split, so results do not depend on the path or the thread count.
// False when the GEMM's (or a band's) packing buffers could not be allocated: the output is then
// partly written, some regions may have been reported, and the caller computes it another way.
bool ConvolutionImplicit(const ConvParams& p, const Array& x, const float* kmat, Array& out, int64_t depth,
                         int64_t per_group, const std::vector<int64_t>& isp, const std::vector<int64_t>& ksp,
                         const std::vector<int64_t>& osp, ExecState& st, const ProductRegionFn* done) {
  const size_t ns = isp.size();
  const int64_t batch = out.dims()[p.out_batch], in_feat = x.dims()[p.in_feature];
  const int64_t k_in = depth / std::max<int64_t>(1, [&] {
    int64_t w = 1;
    for (int64_t k : ksp) w *= k;
    return w;
  }());
  const int64_t groups = p.feature_groups;
  // The padded copy: psp[i] = isp[i] + low + high (negative padding crops).
  std::vector<int64_t> psp(ns), pstride(ns);
  int64_t padded = in_feat;
  for (size_t i = ns; i-- > 0;) {
    psp[i] = std::max<int64_t>(0, isp[i] + p.pad_low[i] + p.pad_high[i]);
    pstride[i] = padded;
    padded *= psp[i];
  }
  const int64_t per_batch = padded;
  // The padded layout, one padded row (the innermost spatial dimension's run of features) at a
  // time: positions [j_lo, j_hi) of padded row br written from `to` on, padding zeroed and the
  // rest copied (each float written once).
  const std::vector<int64_t> xs = RowMajorStrides(x.dims());
  const float* px = x.as<float>();
  const int64_t width = psp[ns - 1];
  const int64_t row_len = width * in_feat;
  const int64_t pad_rows = row_len == 0 ? 0 : batch * (per_batch / row_len);
  auto pad_part = [&](int64_t br, int64_t j_lo, int64_t j_hi, float* to) {
    const int64_t rows = per_batch / row_len;
    const int64_t b = br / rows;
    int64_t rem = br % rows, src = b * xs[p.in_batch];
    bool inside = true;
    for (size_t i = ns - 1; i-- > 0;) {
      const int64_t q = rem % psp[i];
      rem /= psp[i];
      const int64_t at = q - p.pad_low[i];
      inside = inside && at >= 0 && at < isp[i];
      src += at * xs[p.in_spatial[i]];
    }
    if (!inside) {
      std::memset(to, 0, static_cast<size_t>((j_hi - j_lo) * in_feat) * sizeof(float));
      return;
    }
    const size_t last = ns - 1;
    for (int64_t j = j_lo; j < j_hi; ++j, to += in_feat) {
      const int64_t at = j - p.pad_low[last];
      if (at < 0 || at >= isp[last]) {
        std::memset(to, 0, static_cast<size_t>(in_feat) * sizeof(float));
        continue;
      }
      const float* from = px + src + at * xs[p.in_spatial[last]];
      if (xs[p.in_feature] == 1) {
        // Features innermost in the input too: the inside run of the row is one copy.
        int64_t run = 1;
        if (xs[p.in_spatial[last]] == in_feat)
          while (j + run < j_hi && j + run - p.pad_low[last] < isp[last]) ++run;
        std::memcpy(to, from, static_cast<size_t>(run * in_feat) * sizeof(float));
        to += (run - 1) * in_feat;
        j += run - 1;
      } else {
        for (int64_t c = 0; c < in_feat; ++c) to[c] = from[c * xs[p.in_feature]];
      }
    }
  };
  // Offset tables.
  int64_t positions = 1;
  for (int64_t o : osp) positions *= o;
  const int64_t rows_total = batch * positions;
  std::vector<int64_t> col_off(static_cast<size_t>(depth));
  std::vector<int64_t> step(ns);
  for (size_t i = 0; i < ns; ++i) step[i] = p.strides[i] * pstride[i];
  // Rows [r0, r1) of the row table into to[0, r1 - r0): output positions in row-major order,
  // their window origins (less `base`) walked like an odometer from r0's (a division per
  // dimension and row cost 47 us for 56x56 outputs).
  auto row_table = [&](int64_t r0, int64_t r1, int64_t base, int64_t* to) {
    if (positions == 0 || r0 >= r1) return;
    std::vector<int64_t> oi(ns);
    int64_t lin = r0 % positions, off = r0 / positions * per_batch - base;
    for (size_t i = ns; i-- > 0;) {
      oi[i] = lin % osp[i];
      lin /= osp[i];
      off += oi[i] * step[i];
    }
    for (int64_t r = r0; r < r1; ++r) {
      to[r - r0] = off;
      for (size_t i = ns; i-- > 0;) {
        if (++oi[i] < osp[i]) {
          off += step[i];
          break;
        }
        off -= (osp[i] - 1) * step[i];
        oi[i] = 0;
        if (i == 0) off += per_batch;
      }
    }
  };
  {
    std::vector<int64_t> ki(ns, 0);
    int64_t wi = 0;
    do {
      int64_t off = 0;
      for (size_t i = 0; i < ns; ++i) off += ki[i] * p.rhs_dilation[i] * pstride[i];
      for (int64_t c = 0; c < k_in; ++c) col_off[wi * k_in + c] = off + c;
      ++wi;
    } while (ns > 0 && NextIndex(ki, ksp));
  }
  // The output: rows (batch, positions...) with features innermost are written in place;
  // any other layout goes through a row-major buffer.
  const std::vector<int64_t> os = RowMajorStrides(out.dims());
  bool canonical = p.out_batch == 0 && os[p.out_feature] == 1;
  for (size_t i = 0; i < ns && canonical; ++i) canonical = p.out_spatial[i] == static_cast<int64_t>(i) + 1;
  const int64_t out_feat = out.dims()[p.out_feature];
  std::vector<float> buffer(canonical ? 0 : static_cast<size_t>(rows_total * out_feat));
  float* c = canonical ? out.mutable_as<float>() : buffer.data();
  const int pieces = SgemmPieces(rows_total, per_group, depth, st.threads());
  auto parallel_for = [&](int64_t n, const std::function<void(int64_t)>& fn) { st.ParallelFor(n, fn); };

  // Several threads and a small kernel matrix (at most 256 KiB packed): the output is cut into
  // bands of whole steps of the first spatial dimension (about two per thread, at least 256
  // rows), taken by the threads as they go. Each band pads only the slice of the input it
  // reads into the thread's own buffer, builds its own row table and multiplies on that thread
  // against the thread's packed copy of the kernel matrix; the slice, its rows and the packed
  // kernel stay in that core's L2. With one padded copy shared by all threads the copy took
  // 29 us of a 56x56x64 3x3 convolution at 2 threads (a cache line written by one core and read
  // by the other crossed ~230 ns away on this VM), and the product then read half of its input
  // from the other core.
  const int64_t inner = positions / osp[0];  // output rows per step of the first spatial dimension
  const int64_t target = 2 * static_cast<int64_t>(st.threads());
  const int64_t per_band = std::max((batch * osp[0] + target - 1) / target, (256 + inner - 1) / inner);
  const int64_t bands_per_batch = (osp[0] + per_band - 1) / per_band;
  const bool bands = st.threads() > 1 && pieces > 1 && groups == 1 && row_len > 0 && batch * bands_per_batch >= 2 &&
                     PackedSgemmBFloats(depth, per_group) <= (int64_t{1} << 16);
  if (bands) {
    // An input already in the padded layout (no padding, features innermost) is read in place.
    bool in_place = p.in_batch == 0 && p.in_feature == static_cast<int64_t>(ns) + 1;
    for (size_t i = 0; i < ns && in_place; ++i)
      in_place = p.in_spatial[i] == static_cast<int64_t>(i) + 1 && p.pad_low[i] == 0 && p.pad_high[i] == 0;
    static std::atomic<uint64_t> calls{0};
    const uint64_t call = calls.fetch_add(1, std::memory_order_relaxed) + 1;
    const int64_t packed_floats = PackedSgemmBFloats(depth, per_group);
    std::atomic<bool> failed{false};
    const SgemmParallelFor on_this_thread = [](int64_t n, const std::function<void(int64_t)>& fn) {
      for (int64_t i = 0; i < n; ++i) fn(i);
    };
    parallel_for(batch * bands_per_batch, [&](int64_t band) {
      struct Local {
        std::vector<float> slice;
        std::vector<int64_t> rows;
        std::unique_ptr<float, decltype(&std::free)> packed{nullptr, &std::free};
        int64_t packed_size = 0;
        uint64_t packed_call = 0;  // the call whose kernel matrix `packed` holds
      };
      thread_local Local local;
      const int64_t b = band / bands_per_batch, o_lo = band % bands_per_batch * per_band;
      const int64_t o_hi = std::min(osp[0], o_lo + per_band);
      // The slice of the padded input: the steps of the first padded dimension the band's windows reach.
      const int64_t q_lo = o_lo * p.strides[0];
      const int64_t q_hi = std::min(psp[0], (o_hi - 1) * p.strides[0] + (ksp[0] - 1) * p.rhs_dilation[0] + 1);
      const int64_t base = b * per_batch + q_lo * pstride[0];
      const float* a = px + base;
      if (!in_place) {
        local.slice.resize(static_cast<size_t>((q_hi - q_lo) * pstride[0]));
        // Global padded positions [base, end) / in_feat, in (parts of) padded rows.
        const int64_t first = base / in_feat, end = (base + (q_hi - q_lo) * pstride[0]) / in_feat;
        for (int64_t pos = first; pos < end;) {
          const int64_t br = pos / width, j = pos % width, j_end = std::min(width, j + (end - pos));
          pad_part(br, j, j_end, local.slice.data() + (pos - first) * in_feat);
          pos += j_end - j;
        }
        a = local.slice.data();
      }
      const int64_t r_lo = b * positions + o_lo * inner, rows = (o_hi - o_lo) * inner;
      local.rows.resize(static_cast<size_t>(rows));
      row_table(r_lo, r_lo + rows, base, local.rows.data());
      if (local.packed_call != call) {
        if (local.packed_size < packed_floats) {
          local.packed.reset(static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>(packed_floats) * sizeof(float))));
          local.packed_size = local.packed ? packed_floats : 0;
          if (!local.packed) {
            failed.store(true, std::memory_order_relaxed);
            return;
          }
        }
        PackSgemmBInto(depth, per_group, {kmat, per_group, 1}, local.packed.get());
        local.packed_call = call;
      }
      const SgemmRegionDone region = [&](int64_t m0, int64_t n_rows, int64_t n0, int64_t cols) {
        (*done)((r_lo + m0) * out_feat + n0, n_rows, cols, out_feat);
      };
      SgemmOperand kernel{nullptr, 0, 0};
      kernel.packed = local.packed.get();
      if (!FastSgemm(rows, per_group, depth, {a, 0, 0, local.rows.data(), col_off.data()}, kernel,
                     c + r_lo * out_feat, out_feat, 1, on_this_thread, done && canonical ? &region : nullptr))
        failed.store(true, std::memory_order_relaxed);
    });
    if (failed.load()) return false;
  } else {
    // One padded copy of the whole input. The copy and the row table are cut into units that
    // the product's pieces share out before they start (src/cpu/blas/sgemm.h, SgemmPrologue), so the
    // convolution forks once.
    Array pad = Array::Allocate(ArrayType{ElemKind::kF32, {batch * per_batch}});
    float* pp = pad.mutable_as<float>();
    std::vector<int64_t> row_off(static_cast<size_t>(rows_total));
    constexpr int64_t kPadRowsPerUnit = 4, kTableRowsPerUnit = 1024;
    const int64_t pad_units = (pad_rows + kPadRowsPerUnit - 1) / kPadRowsPerUnit;
    const int64_t table_units = (rows_total + kTableRowsPerUnit - 1) / kTableRowsPerUnit;
    const SgemmPrologue prologue{pad_units + table_units, [&](int64_t u) {
                                   if (u < pad_units) {
                                     for (int64_t r = u * kPadRowsPerUnit; r < std::min(pad_rows, (u + 1) * kPadRowsPerUnit); ++r)
                                       pad_part(r, 0, width, pp + r * row_len);
                                   } else {
                                     u -= pad_units;
                                     const int64_t r0 = u * kTableRowsPerUnit;
                                     row_table(r0, std::min(rows_total, r0 + kTableRowsPerUnit), 0, row_off.data() + r0);
                                   }
                                 }};
    for (int64_t g = 0; g < groups; ++g) {
      std::vector<int64_t> gcol(col_off);
      for (int64_t& o : gcol) o += g * k_in;
      // With the output written in place, each finished region of group g's product is a region
      // of the result.
      const SgemmRegionDone region = [&](int64_t m0, int64_t rows, int64_t n0, int64_t cols) {
        (*done)(m0 * out_feat + g * per_group + n0, rows, cols, out_feat);
      };
      if (!FastSgemm(rows_total, per_group, depth, {pp, 0, 0, row_off.data(), gcol.data()},
                     {kmat + g * depth * per_group, per_group, 1}, c + g * per_group, out_feat, pieces, parallel_for,
                     done && canonical ? &region : nullptr, g == 0 ? &prologue : nullptr))
        return false;
    }
  }
  if (!canonical) {
    float* po = out.mutable_as<float>();
    std::vector<int64_t> oi(ns);
    for (int64_t r = 0; r < rows_total; ++r) {
      int64_t lin = r % std::max<int64_t>(positions, 1);
      int64_t o = (r / std::max<int64_t>(positions, 1)) * os[p.out_batch];
      for (size_t i = ns; i-- > 0;) {
        o += (lin % osp[i]) * os[p.out_spatial[i]];
        lin /= osp[i];
      }
      for (int64_t f = 0; f < out_feat; ++f) po[o + f * os[p.out_feature]] = c[r * out_feat + f];
    }
    if (done) (*done)(0, 1, out.NumElements(), out.NumElements());
  }
  return true;
}

// The implicit GEMM's conditions.
bool ImplicitApplies(const ConvParams& p) {
  bool undilated = true;
  for (int64_t d : p.lhs_dilation) undilated = undilated && d == 1;
  return HaveFastSgemm() && undilated && !p.in_spatial.empty();
}

// Winograd's F(2x2, 3x3) (conv_winograd.h) for a 3x3, stride-1, undilated, ungrouped NHWC
// convolution with an NHWC result, large enough (at least 4 MFLOP directly) that the transforms
// pay. The kernel may have any layout and window reversal (a backward pass's input gradient):
// Winograd reads the [3, 3, in, out] matrix the GEMM paths use (the kernel itself when it is
// HWIO, else the copy made for them). The choice depends on the shapes only, never on the
// thread count.
bool WinogradFits(const ConvParams& p, const std::vector<int64_t>& isp, const std::vector<int64_t>& ksp,
                  const std::vector<int64_t>& osp, double flops) {
  if (isp.size() != 2 || ksp[0] != 3 || ksp[1] != 3 || osp.size() != 2 || p.feature_groups != 1 || flops < 4e6)
    return false;
  for (size_t i = 0; i < 2; ++i)
    if (p.strides[i] != 1 || p.lhs_dilation[i] != 1 || p.rhs_dilation[i] != 1) return false;
  return p.in_batch == 0 && p.in_spatial[0] == 1 && p.in_spatial[1] == 2 && p.in_feature == 3 && p.out_batch == 0 &&
         p.out_spatial[0] == 1 && p.out_spatial[1] == 2 && p.out_feature == 3;
}

// The convolution of step s into `out` (allocated for its result); `done` (f32 only) hears of
// finished regions of the result. False (only with `done`) when the fast path's buffers could
// not be allocated and the regions were not all reported: the caller runs its epilogue itself.
template <typename S>
bool ConvolutionInto(const Step& s, ExecState& st, Array& out, const ProductRegionFn* done) {
  const ConvParams& p = s.Params<ConvParams>();
  const Array& x = st.slots[s.in[0]].array;
  const Array& w = st.slots[s.in[1]].array;
  const S* px = x.as<S>();
  const S* pw = w.as<S>();
  S* po = out.mutable_as<S>();
  const size_t ns = p.in_spatial.size();
  const std::vector<int64_t> xs = RowMajorStrides(x.dims()), ws = RowMajorStrides(w.dims()),
                             os = RowMajorStrides(out.dims());
  const int64_t batch = out.dims()[p.out_batch], out_feat = out.dims()[p.out_feature];
  const int64_t k_in = w.dims()[p.k_in], groups = p.feature_groups, per_group = out_feat / groups;
  std::vector<int64_t> ksp(ns), osp(ns), isp(ns);
  int64_t window = 1, positions = 1;
  for (size_t i = 0; i < ns; ++i) {
    ksp[i] = w.dims()[p.k_spatial[i]];
    osp[i] = out.dims()[p.out_spatial[i]];
    isp[i] = x.dims()[p.in_spatial[i]];
    window *= ksp[i];
    positions *= osp[i];
  }
  const int64_t depth = window * k_in;  // columns of the patch matrix
  const int64_t rows_total = batch * positions;
  if (out.NumElements() == 0) return true;
  // Kernel matrices, one per feature group: [window * k_in, per_group]. A kernel laid out
  // [spatial..., in, out] (HWIO, what JAX passes for NHWC) already is that matrix: read in place.
  bool hwio = groups == 1 && p.k_in == static_cast<int64_t>(ns) && p.k_out == static_cast<int64_t>(ns) + 1;
  for (size_t i = 0; i < ns && hwio; ++i) hwio = p.k_spatial[i] == static_cast<int64_t>(i) && !p.reversal[i];
  std::vector<S> kmat(hwio ? 0 : static_cast<size_t>(groups * depth * per_group));
  const S* kernel = hwio ? pw : kmat.data();
  if (!hwio) {
    std::vector<int64_t> ki(ns, 0);
    int64_t wi = 0;
    do {
      int64_t w_off = 0;
      for (size_t i = 0; i < ns; ++i)
        w_off += (p.reversal[i] ? ksp[i] - 1 - ki[i] : ki[i]) * ws[p.k_spatial[i]];
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t c = 0; c < k_in; ++c)
          for (int64_t f = 0; f < per_group; ++f)
            kmat[(g * depth + wi * k_in + c) * per_group + f] =
                pw[w_off + c * ws[p.k_in] + (g * per_group + f) * ws[p.k_out]];
      ++wi;
    } while (ns > 0 && NextIndex(ki, ksp));
  }
  if constexpr (std::is_same_v<S, float>) {
    if (WinogradFits(p, isp, ksp, osp, 2.0 * rows_total * per_group * depth)) {
      const WinogradShape shape{batch, isp[0], isp[1], k_in, osp[0], osp[1], out_feat, p.pad_low[0], p.pad_low[1]};
      const WinogradDone positions_done = [&](int64_t pos0, int64_t count) {
        (*done)(pos0 * out_feat, count, out_feat, out_feat);
      };
      const SgemmParallelFor parallel_for = [&](int64_t n, const std::function<void(int64_t)>& fn) {
        st.ParallelFor(n, fn);
      };
      // (Refused, with nothing written, for a non-finite input or kernel: the implicit GEMM below.)
      if (WinogradApplies(shape) &&
          WinogradConv3x3(shape, px, kernel, po, st.threads(), parallel_for, done ? &positions_done : nullptr))
        return true;
    }
    if (ImplicitApplies(p)) {
      if (ConvolutionImplicit(p, x, kernel, out, depth, per_group, isp, ksp, osp, st, done)) return true;
      // Its buffers could not be allocated: the patch path below (Eigen) computes all of the
      // output, but reports no regions, so a caller with an epilogue runs it separately.
      if (done) return false;
    }
  }
  const GemmFn<S> gemm = GemmFor<S>();
  constexpr int64_t kPiece = 256;  // output positions per piece
  st.ParallelFor((rows_total + kPiece - 1) / kPiece, [&](int64_t piece) {
    const int64_t r0 = piece * kPiece, rows = std::min(kPiece, rows_total - r0);
    std::vector<S> patches(static_cast<size_t>(rows * depth)), result(static_cast<size_t>(rows * per_group));
    std::vector<int64_t> out_off(static_cast<size_t>(rows));
    std::vector<int64_t> oi(ns), ki(ns);
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t r = 0; r < rows; ++r) {
        // Row r is output position (b, oi) of the piece.
        int64_t lin = r0 + r;
        const int64_t b = lin / std::max<int64_t>(positions, 1);
        lin %= std::max<int64_t>(positions, 1);
        for (int64_t i = static_cast<int64_t>(ns) - 1; i >= 0; --i) {
          oi[i] = lin % osp[i];
          lin /= osp[i];
        }
        int64_t o = b * os[p.out_batch];
        for (size_t i = 0; i < ns; ++i) o += oi[i] * os[p.out_spatial[i]];
        out_off[r] = o;
        S* row = patches.data() + r * depth;
        std::fill(ki.begin(), ki.end(), 0);
        int64_t wi = 0;
        do {
          S* dst = row + wi * k_in;
          int64_t x_off = b * xs[p.in_batch] + g * k_in * xs[p.in_feature];
          bool hole = false;
          for (size_t i = 0; i < ns; ++i) {
            const int64_t pos = oi[i] * p.strides[i] + ki[i] * p.rhs_dilation[i] - p.pad_low[i];
            if (pos < 0 || pos % p.lhs_dilation[i] != 0 || pos / p.lhs_dilation[i] >= isp[i]) {
              hole = true;
              break;
            }
            x_off += pos / p.lhs_dilation[i] * xs[p.in_spatial[i]];
          }
          if (hole) {
            std::fill(dst, dst + k_in, S(0));
          } else if (xs[p.in_feature] == 1) {
            std::memcpy(dst, px + x_off, static_cast<size_t>(k_in) * sizeof(S));
          } else {
            for (int64_t c = 0; c < k_in; ++c) dst[c] = px[x_off + c * xs[p.in_feature]];
          }
          ++wi;
        } while (ns > 0 && NextIndex(ki, ksp));
      }
      gemm(patches.data(), depth, kernel + g * depth * per_group, per_group, result.data(), per_group,
           rows, depth, per_group);
      const int64_t fstride = os[p.out_feature];
      for (int64_t r = 0; r < rows; ++r) {
        S* dst = po + out_off[r] + g * per_group * fstride;
        const S* src = result.data() + r * per_group;
        if (fstride == 1) {
          std::memcpy(dst, src, static_cast<size_t>(per_group) * sizeof(S));
        } else {
          for (int64_t f = 0; f < per_group; ++f) dst[f * fstride] = src[f];
        }
      }
    }
  });
  return !done;  // (the patch path reports no regions; only f32 has a caller that passes them)
}

template <typename S>
void ConvolutionGemm(const Step& s, ExecState& st) {
  Array out = Array::Allocate(s.out_types[0]);
  ConvolutionInto<S>(s, st, out, nullptr);
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

}  // namespace

bool ConvF32Fast(const Step& s, ExecState& st, Array& out, const ProductRegionFn* done) {
  if (s.fn != &ConvolutionGemm<float> || !ImplicitApplies(s.Params<ConvParams>())) return false;
  return ConvolutionInto<float>(s, st, out, done);
}

KernelFn ConvolutionGemmKernel(ElemKind k) {
  switch (k) {
    case ElemKind::kF32: return &ConvolutionGemm<float>;
    case ElemKind::kF64: return &ConvolutionGemm<double>;
    case ElemKind::kC64: return &ConvolutionGemm<std::complex<float>>;
    case ElemKind::kC128: return &ConvolutionGemm<std::complex<double>>;
    default: return nullptr;
  }
}

}  // namespace openpjrt::cpu
