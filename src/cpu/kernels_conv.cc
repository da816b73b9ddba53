// Convolution as matrix products (f32, f64, complex): output positions are cut into pieces of 256;
// for each piece the input windows are gathered into a [positions, window x input features] patch
// matrix (zeros where the window falls in padding or in lhs-dilation holes) and multiplied by the
// kernel laid out as [window x input features, output features], one product per feature group.
// Any dimension numbers, strides, padding, dilations and window reversal; batch groups use the
// direct loop in kernels_window.cc. The cut does not depend on the thread count, so results are
// the same with any number of intra-op threads.
#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "src/cpu/gemm.h"
#include "src/cpu/kernels_indexing.h"
#include "src/cpu/strided.h"

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

template <typename S>
void ConvolutionGemm(const Step& s, ExecState& st) {
  const ConvParams& p = s.Params<ConvParams>();
  const Array& x = st.slots[s.in[0]].array;
  const Array& w = st.slots[s.in[1]].array;
  Array out = Array::Allocate(s.out_types[0]);
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
  if (out.NumElements() == 0) {
    st.slots[s.out[0]] = RtValue::Of(std::move(out));
    return;
  }
  // Kernel matrices, one per feature group: [window * k_in, per_group].
  std::vector<S> kmat(static_cast<size_t>(groups * depth * per_group));
  {
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
      gemm(patches.data(), depth, kmat.data() + g * depth * per_group, per_group, result.data(), per_group,
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
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

}  // namespace

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
