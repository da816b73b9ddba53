// Quantization arithmetic in double: q = clamp(round_to_even(x / scale + zero_point)) and
// x = (q - zero_point) * scale, per tensor or per axis.
#include <cmath>

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/kernels/kernels_quant.h"

namespace openpjrt::cpu {
namespace {

double LoadDouble(const Array& a, int64_t i) {
  double v = 0;
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat != Cat::kComplex) v = static_cast<double>(T::Load(a.as<typename T::S>()[i]));
  });
  return v;
}

void StoreDouble(Array& a, int64_t i, double v) {
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kFloat) {
      if constexpr (K == ElemKind::kF32 || K == ElemKind::kF64) {
        a.mutable_as<typename T::S>()[i] = static_cast<typename T::S>(v);
      } else {
        a.mutable_as<typename T::S>()[i] = static_cast<typename T::S>(ir::EncodeFloat(K, v));
      }
    } else if constexpr (T::kCat == Cat::kSigned || T::kCat == Cat::kUnsigned) {
      a.mutable_as<typename T::S>()[i] = T::Store(static_cast<typename T::C>(static_cast<int64_t>(v)));
    }
  });
}

// The quantization parameters index for element i.
int64_t ParamIndex(const QuantParams& p, const std::vector<int64_t>& dims, int64_t i) {
  if (p.axis < 0) return 0;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(p.axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  return (i / inner) % dims[p.axis];
}

void Quantize(const Step& s, ExecState& st) {
  const QuantParams& p = s.Params<QuantParams>();
  const Array& x = st.slots[s.in[0]].array;
  Array out = Array::Allocate(s.out_types[0]);
  const int64_t n = x.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = ParamIndex(p, x.dims(), i);
    double q = std::nearbyint(LoadDouble(x, i) / p.scales[k]) + static_cast<double>(p.zero_points[k]);
    if (std::isnan(q)) q = static_cast<double>(p.zero_points[k]);
    q = std::fmin(std::fmax(q, static_cast<double>(p.storage_min)), static_cast<double>(p.storage_max));
    StoreDouble(out, i, q);
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

void Dequantize(const Step& s, ExecState& st) {
  const QuantParams& p = s.Params<QuantParams>();
  const Array& q = st.slots[s.in[0]].array;
  Array out = Array::Allocate(s.out_types[0]);
  const int64_t n = q.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = ParamIndex(p, q.dims(), i);
    StoreDouble(out, i, (LoadDouble(q, i) - static_cast<double>(p.zero_points[k])) * p.scales[k]);
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

}  // namespace

KernelFn QuantizeKernel() { return &Quantize; }
KernelFn DequantizeKernel() { return &Dequantize; }

}  // namespace openpjrt::cpu
