// reduce_window, select_and_scatter, convolution and map, written position by position after
// the specification. Padding and base-dilation holes hold the init value (reduce_window) or
// zero (convolution). An elementwise reduce_window or map region runs for many positions at once
// (LaneRegion); other regions run once per element.
#include <algorithm>
#include <cstring>

#include "src/cpu/kernels/elementwise_ops.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/kernels/region_lanes.h"
#include "src/cpu/exec/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using namespace ops;

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// For window position `w` of output position `o` along one dimension: the input index, or -1
// for padding and dilation holes.
int64_t InputIndex(const WindowParams& p, size_t d, int64_t o, int64_t w, int64_t in_dim) {
  int64_t pos = o * p.strides[d] + w * p.window_dilations[d] - p.pad_low[d];
  if (pos < 0 || pos % p.base_dilations[d] != 0) return -1;
  int64_t i = pos / p.base_dilations[d];
  return i < in_dim ? i : -1;
}

// The window reduction with the reducer evaluated for up to LaneRegion::kLanes output positions at
// once, each folding its window in the specification's order (init, then the window's positions
// in row-major order, holes as init). A cumulative window (one dimension of size N with window
// N, N - 1 padding before, the others untouched: jnp.cumsum, cumprod, cummax) whose init value
// is its own fold (body(init, init) == init, true of the sums, products and extrema JAX builds)
// is computed as a running fold instead: position i's window is init, init for the padding,
// then elements 0..i, which is position i - 1's fold continued by element i. False, having done
// nothing, when the region is not elementwise.
bool LaneReduceWindow(const Step& s, ExecState& st, const std::vector<const Array*>& in, std::vector<Array>& out) {
  const WindowParams& p = s.Params<WindowParams>();
  const size_t n = in.size();
  std::vector<int> es(n);
  for (size_t i = 0; i < n; ++i) es[i] = static_cast<int>(in[i]->type().ElementSize());
  std::unique_ptr<LaneRegion> lr = LaneRegion::MakeFold(*s.regions[0], st, es);
  if (!lr) return false;
  constexpr int64_t L = LaneRegion::kLanes;
  const std::vector<int64_t> idims = in[0]->dims(), odims = out[0].dims();
  const size_t rank = idims.size();
  const std::vector<int64_t> istr = RowMajorStrides(idims), ostr = RowMajorStrides(odims);
  const int64_t P = NumElements(odims);
  std::vector<const uint8_t*> init(n);
  for (size_t i = 0; i < n; ++i) init[i] = st.slots[s.in[n + i]].array.data();
  std::vector<std::vector<uint8_t>> acc(n);
  for (size_t i = 0; i < n; ++i) acc[i].resize(static_cast<size_t>(L * es[i]));
  auto fill_init = [&](int64_t count) {
    for (size_t i = 0; i < n; ++i)
      for (int64_t t = 0; t < count; ++t) CopyElement(acc[i].data() + t * es[i], init[i], es[i]);
  };
  // acc = body(acc, x) over lanes [0, count), x already in the region's second arguments.
  auto fold = [&](int64_t count) {
    for (size_t i = 0; i < n; ++i) std::memcpy(lr->arg(i), acc[i].data(), static_cast<size_t>(count * es[i]));
    lr->Run(count);
    for (size_t i = 0; i < n; ++i) std::memcpy(acc[i].data(), lr->result(i), static_cast<size_t>(count * es[i]));
  };

  // A cumulative window along one dimension?
  int cum = -1;
  bool plain = true;
  for (size_t d = 0; d < rank && plain; ++d) {
    plain = p.strides[d] == 1 && p.base_dilations[d] == 1 && p.window_dilations[d] == 1 && p.pad_high[d] == 0 &&
            odims[d] == idims[d];
    if (plain && p.dims[d] != 1) {
      if (cum >= 0 || p.dims[d] != idims[d] || p.pad_low[d] != idims[d] - 1) plain = false;
      else cum = static_cast<int>(d);
    } else if (plain && p.pad_low[d] != 0) {
      plain = false;
    }
  }
  if (plain && cum >= 0 && idims[cum] > 1) {
    fill_init(1);
    for (size_t i = 0; i < n; ++i) std::memcpy(lr->arg(n + i), init[i], es[i]);
    fold(1);
    for (size_t i = 0; i < n; ++i)
      if (std::memcmp(acc[i].data(), init[i], es[i]) != 0) plain = false;
  }
  if (plain && cum >= 0 && idims[cum] > 1) {
    // Lanes are the lines along `cum`; step k folds element k of every line.
    const int64_t len = idims[cum], stride = istr[cum], lines = P / len;
    std::vector<int64_t> line_base(static_cast<size_t>(std::min(lines, L)));
    for (int64_t l0 = 0; l0 < lines; l0 += L) {
      const int64_t G = std::min(L, lines - l0);
      for (int64_t g = 0; g < G; ++g) {
        const int64_t l = l0 + g;  // lines in row-major order of the other dimensions
        line_base[g] = (l / stride) * stride * len + l % stride;
      }
      fill_init(G);
      for (int64_t k = 0; k < len; ++k) {
        for (size_t i = 0; i < n; ++i)
          for (int64_t g = 0; g < G; ++g)
            CopyElement(lr->arg(n + i) + g * es[i], in[i]->data() + (line_base[g] + k * stride) * es[i], es[i]);
        fold(G);
        for (size_t i = 0; i < n; ++i)
          for (int64_t g = 0; g < G; ++g)
            CopyElement(out[i].mutable_data() + (line_base[g] + k * stride) * es[i], acc[i].data() + g * es[i], es[i]);
      }
    }
    return true;
  }

  // Lanes are output positions; step w folds window position w of each (or init in a hole). A
  // lane whose whole window lies inside the input (no base dilation) reads element
  // lane_lin + w_lin without checks; the others check each dimension. Groups of positions are
  // independent: the intra-op threads take contiguous ranges of them, each with its own lanes.
  bool no_base_dilation = true;
  for (size_t d = 0; d < rank; ++d) no_base_dilation &= p.base_dilations[d] == 1;
  const int64_t groups = (P + L - 1) / L;
  const int64_t work = P * NumElements(p.dims);
  const int64_t pieces = work >= (int64_t{1} << 17) ? std::min<int64_t>(groups, st.threads()) : 1;
  std::vector<std::unique_ptr<LaneRegion>> regions(static_cast<size_t>(pieces));
  regions[0] = std::move(lr);
  for (int64_t k = 1; k < pieces; ++k)
    if (!(regions[k] = LaneRegion::MakeFold(*s.regions[0], st, es))) return false;
  st.ParallelFor(pieces, [&](int64_t piece) {
    LaneRegion& lanes = *regions[piece];
    std::vector<std::vector<uint8_t>> acc_own(n);
    for (size_t i = 0; i < n; ++i) acc_own[i].resize(static_cast<size_t>(L * es[i]));
    std::vector<int64_t> base(static_cast<size_t>(L) * rank), lane_lin(L);
    std::vector<uint8_t> inside(L);
    const int64_t g_first = groups * piece / pieces, g_last = groups * (piece + 1) / pieces;
    for (int64_t o0 = g_first * L; o0 < std::min(P, g_last * L); o0 += L) {
      const int64_t G = std::min(L, P - o0);
      for (int64_t g = 0; g < G; ++g) {
        bool in_bounds = no_base_dilation;
        lane_lin[g] = 0;
        for (size_t d = 0; d < rank; ++d) {
          const int64_t oi = (o0 + g) / ostr[d] % odims[d];
          const int64_t b = oi * p.strides[d] - p.pad_low[d];
          base[g * rank + d] = b;
          lane_lin[g] += b * istr[d];
          in_bounds &= b >= 0 && b + (p.dims[d] - 1) * p.window_dilations[d] < idims[d];
        }
        inside[g] = in_bounds;
      }
      for (size_t i = 0; i < n; ++i)
        for (int64_t t = 0; t < G; ++t) CopyElement(acc_own[i].data() + t * es[i], init[i], es[i]);
      std::vector<int64_t> wi(rank, 0);
      if (NumElements(p.dims) > 0) {
        do {
          int64_t w_lin = 0;
          for (size_t d = 0; d < rank; ++d) w_lin += wi[d] * p.window_dilations[d] * istr[d];
          for (int64_t g = 0; g < G; ++g) {
            int64_t lin = lane_lin[g] + w_lin;
            bool hole = false;
            if (!inside[g]) {
              lin = 0;
              for (size_t d = 0; d < rank && !hole; ++d) {
                int64_t pos = base[g * rank + d] + wi[d] * p.window_dilations[d];
                if (pos < 0 || pos % p.base_dilations[d] != 0) {
                  hole = true;
                  break;
                }
                pos /= p.base_dilations[d];
                hole = pos >= idims[d];
                lin += pos * istr[d];
              }
            }
            for (size_t i = 0; i < n; ++i)
              CopyElement(lanes.arg(n + i) + g * es[i], hole ? init[i] : in[i]->data() + lin * es[i], es[i]);
          }
          for (size_t i = 0; i < n; ++i)
            std::memcpy(lanes.arg(i), acc_own[i].data(), static_cast<size_t>(G * es[i]));
          lanes.Run(G);
          for (size_t i = 0; i < n; ++i)
            std::memcpy(acc_own[i].data(), lanes.result(i), static_cast<size_t>(G * es[i]));
        } while (NextIndex(wi, p.dims));
      }
      for (size_t i = 0; i < n; ++i)
        std::memcpy(out[i].mutable_data() + o0 * es[i], acc_own[i].data(), static_cast<size_t>(G * es[i]));
    }
  });
  return true;
}

void ReduceWindow(const Step& s, ExecState& st) {
  const WindowParams& p = s.Params<WindowParams>();
  const size_t n = s.in.size() / 2;
  std::vector<const Array*> in(n);
  std::vector<Array> out(n);
  for (size_t i = 0; i < n; ++i) {
    in[i] = &st.slots[s.in[i]].array;
    out[i] = Array::Allocate(s.out_types[i]);
  }
  if (NumElements(out[0].dims()) > 0 && LaneReduceWindow(s, st, in, out)) {
    for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
    return;
  }
  const std::vector<int64_t>& idims = in[0]->dims();
  const std::vector<int64_t>& odims = out[0].dims();
  std::vector<int64_t> istr = RowMajorStrides(idims);
  const Program& body = *s.regions[0];
  std::vector<RtValue> acc(n), args, res;
  const size_t rank = idims.size();
  if (NumElements(odims) > 0) {
    std::vector<int64_t> oi(rank, 0);
    int64_t o_lin = 0;
    do {
      for (size_t i = 0; i < n; ++i) acc[i] = st.slots[s.in[n + i]];
      std::vector<int64_t> wi(rank, 0);
      do {
        int64_t lin = 0;
        bool hole = false;
        for (size_t d = 0; d < rank; ++d) {
          int64_t x = InputIndex(p, d, oi[d], wi[d], idims[d]);
          if (x < 0) {
            hole = true;
            break;
          }
          lin += x * istr[d];
        }
        args.assign(acc.begin(), acc.end());
        for (size_t i = 0; i < n; ++i)
          args.push_back(hole ? st.slots[s.in[n + i]] : RtValue::Of(ScalarAt(*in[i], lin)));
        if (!CallRegion(body, st, args, &res)) return;
        acc = res;
      } while (NextIndex(wi, p.dims));
      for (size_t i = 0; i < n; ++i) {
        const int64_t es = out[i].type().ElementSize();
        std::memcpy(out[i].mutable_data() + o_lin * es, acc[i].array.data(), es);
      }
      ++o_lin;
    } while (NextIndex(oi, odims));
  }
  for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
}

void SelectAndScatter(const Step& s, ExecState& st) {
  const WindowParams& p = s.Params<WindowParams>();
  const Array& x = st.slots[s.in[0]].array;
  const Array& source = st.slots[s.in[1]].array;
  const RtValue& init = st.slots[s.in[2]];
  Array out = Array::Allocate(s.out_types[0]);
  const int64_t es = out.type().ElementSize(), n = out.NumElements();
  for (int64_t i = 0; i < n; ++i) std::memcpy(out.mutable_data() + i * es, init.array.data(), es);
  const std::vector<int64_t>& idims = x.dims();
  std::vector<int64_t> istr = RowMajorStrides(idims);
  const size_t rank = idims.size();
  std::vector<RtValue> args, res;
  if (source.NumElements() > 0) {
    std::vector<int64_t> oi(rank, 0);
    int64_t s_lin = 0;
    do {
      int64_t selected = -1;
      std::vector<int64_t> wi(rank, 0);
      do {
        int64_t lin = 0;
        bool hole = false;
        for (size_t d = 0; d < rank; ++d) {
          int64_t xi = InputIndex(p, d, oi[d], wi[d], idims[d]);
          if (xi < 0) {
            hole = true;
            break;
          }
          lin += xi * istr[d];
        }
        if (hole) continue;
        if (selected < 0) {
          selected = lin;
          continue;
        }
        args = {RtValue::Of(ScalarAt(x, selected)), RtValue::Of(ScalarAt(x, lin))};
        if (!CallRegion(*s.regions[0], st, args, &res)) return;
        if (!res[0].array.data()[0]) selected = lin;
      } while (NextIndex(wi, p.dims));
      if (selected >= 0) {
        args = {RtValue::Of(ScalarAt(out, selected)), RtValue::Of(ScalarAt(source, s_lin))};
        if (!CallRegion(*s.regions[1], st, args, &res)) return;
        std::memcpy(out.mutable_data() + selected * es, res[0].array.data(), es);
      }
      ++s_lin;
    } while (NextIndex(oi, source.dims()));
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

template <ElemKind K>
void Convolution(const Step& s, ExecState& st) {
  using T = Traits<K>;
  using C = typename T::C;
  const ConvParams& p = s.Params<ConvParams>();
  const Array& x = st.slots[s.in[0]].array;
  const Array& w = st.slots[s.in[1]].array;
  Array out = Array::Allocate(s.out_types[0]);
  const auto* px = x.as<typename T::S>();
  const auto* pw = w.as<typename T::S>();
  auto* po = out.mutable_as<typename T::S>();
  std::vector<int64_t> xs = RowMajorStrides(x.dims()), ws = RowMajorStrides(w.dims());
  const size_t ns = p.in_spatial.size();
  const int64_t out_batch = out.dims()[p.out_batch], out_feat = out.dims()[p.out_feature];
  const int64_t k_in = w.dims()[p.k_in];
  const int64_t feats_per_fgroup = out_feat / p.feature_groups;
  const int64_t feats_per_bgroup = out_feat / p.batch_groups;
  std::vector<int64_t> ksp(ns), osp(ns);
  for (size_t i = 0; i < ns; ++i) {
    ksp[i] = w.dims()[p.k_spatial[i]];
    osp[i] = out.dims()[p.out_spatial[i]];
  }
  std::vector<int64_t> os = RowMajorStrides(out.dims());
  std::vector<int64_t> oi(ns, 0), ki(ns, 0);
  for (int64_t b = 0; b < out_batch; ++b) {
    for (int64_t f = 0; f < out_feat; ++f) {
      const int64_t fg = f / feats_per_fgroup, bg = f / feats_per_bgroup;
      const int64_t in_b = bg * out_batch + b;
      std::fill(oi.begin(), oi.end(), 0);
      do {
        C acc{};
        std::fill(ki.begin(), ki.end(), 0);
        do {
          int64_t x_off = in_b * xs[p.in_batch];
          int64_t w_off = f * ws[p.k_out];
          bool hole = false;
          for (size_t i = 0; i < ns && !hole; ++i) {
            int64_t pos = oi[i] * p.strides[i] + ki[i] * p.rhs_dilation[i] - p.pad_low[i];
            if (pos < 0 || pos % p.lhs_dilation[i] != 0) {
              hole = true;
              break;
            }
            int64_t xi = pos / p.lhs_dilation[i];
            if (xi >= x.dims()[p.in_spatial[i]]) {
              hole = true;
              break;
            }
            x_off += xi * xs[p.in_spatial[i]];
            int64_t kk = p.reversal[i] ? ksp[i] - 1 - ki[i] : ki[i];
            w_off += kk * ws[p.k_spatial[i]];
          }
          if (hole) continue;
          for (int64_t c = 0; c < k_in; ++c) {
            C a = T::Load(px[x_off + (fg * k_in + c) * xs[p.in_feature]]);
            C k = T::Load(pw[w_off + c * ws[p.k_in]]);
            acc = static_cast<C>(ApplyBinary<BinaryOp::kAdd, T>(
                acc, static_cast<C>(ApplyBinary<BinaryOp::kMul, T>(a, k))));
          }
        } while (NextIndex(ki, ksp));
        int64_t o_off = b * os[p.out_batch] + f * os[p.out_feature];
        for (size_t i = 0; i < ns; ++i) o_off += oi[i] * os[p.out_spatial[i]];
        po[o_off] = T::Store(acc);
      } while (ns > 0 && NextIndex(oi, osp));
    }
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

void Map(const Step& s, ExecState& st) {
  Array out = Array::Allocate(s.out_types[0]);
  const int64_t n = out.NumElements(), es = out.type().ElementSize();
  std::vector<RtValue> args, res;
  // An elementwise computation maps kLanes elements at a time.
  std::vector<int> arg_bytes;
  for (int in : s.in) arg_bytes.push_back(static_cast<int>(st.slots[in].array.type().ElementSize()));
  std::unique_ptr<LaneRegion> lanes = LaneRegion::Make(*s.regions[0], st, arg_bytes);
  if (lanes && (lanes->num_results() != 1 || lanes->result_bytes(0) != es)) lanes.reset();
  if (lanes) {
    for (int64_t start = 0; start < n; start += LaneRegion::kLanes) {
      const int64_t count = std::min(LaneRegion::kLanes, n - start);
      for (size_t k = 0; k < s.in.size(); ++k)
        std::memcpy(lanes->arg(k), st.slots[s.in[k]].array.data() + start * arg_bytes[k],
                    static_cast<size_t>(count * arg_bytes[k]));
      lanes->Run(count);
      std::memcpy(out.mutable_data() + start * es, lanes->result(0), static_cast<size_t>(count * es));
    }
    st.slots[s.out[0]] = RtValue::Of(std::move(out));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    args.clear();
    for (int in : s.in) args.push_back(RtValue::Of(ScalarAt(st.slots[in].array, i)));
    if (!CallRegion(*s.regions[0], st, args, &res)) return;
    std::memcpy(out.mutable_data() + i * es, res[0].array.data(), es);
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

}  // namespace

KernelFn ReduceWindowKernel() { return &ReduceWindow; }
KernelFn SelectAndScatterKernel() { return &SelectAndScatter; }
KernelFn MapKernel() { return &Map; }

absl::StatusOr<KernelFn> SelectConvolution(ElemKind k) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if constexpr (Traits<K>::kCat != Cat::kBool && WideKind(K) == K) fn = &Convolution<K>;
  });
  if (!fn) return absl::UnimplementedError(StrCat("convolution on ", ir::ElemKindName(k)));
  return fn;
}

}  // namespace openpjrt::cpu
