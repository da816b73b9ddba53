// compare, select, clamp, convert, bitcast_convert and reduce_precision.
#include <cmath>
#include <cstring>
#include <limits>

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/kernels/kernels.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

// The raw loops below (which fused runs call block by block) are compiled for AVX-512, AVX2 and
// the baseline and picked for the CPU at run time, like the elementwise loops (isa.h).
#define OPJ_LOOP_BODY [[gnu::always_inline]] inline

// ---- compare

// A key that orders floats totally: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
template <typename C>
[[gnu::always_inline]] inline int64_t TotalOrderKey(C v) {
  if constexpr (std::is_same_v<C, double>) {
    int64_t b;
    std::memcpy(&b, &v, 8);
    return b < 0 ? b ^ INT64_MAX : b;
  } else {
    float f = static_cast<float>(v);
    int32_t b;
    std::memcpy(&b, &f, 4);
    return b < 0 ? b ^ INT32_MAX : b;
  }
}

// One loop per (kind, direction, key), all always inlined into the per-CPU copies: generic
// lambdas here were compiled out of line, a call per element (bias + ReLU + its mask over
// 128 x 512 spent 73% of its time in them).
template <ElemKind K, CompareParams::Dir D, bool kTotal>
OPJ_LOOP_BODY void CompareLoop(const void* xv, const void* yv, uint8_t* z, int64_t n) {
  using T = Traits<K>;
  const auto* x = static_cast<const typename T::S*>(xv);
  const auto* y = static_cast<const typename T::S*>(yv);
  for (int64_t i = 0; i < n; ++i) {
    const auto a = T::Load(x[i]), b = T::Load(y[i]);
    if constexpr (kTotal) {
      const int64_t u = TotalOrderKey(a), v = TotalOrderKey(b);
      if constexpr (D == CompareParams::kEq) z[i] = u == v;
      else if constexpr (D == CompareParams::kNe) z[i] = u != v;
      else if constexpr (D == CompareParams::kGe) z[i] = u >= v;
      else if constexpr (D == CompareParams::kGt) z[i] = u > v;
      else if constexpr (D == CompareParams::kLe) z[i] = u <= v;
      else z[i] = u < v;
    } else if constexpr (D == CompareParams::kEq) {
      z[i] = a == b;
    } else if constexpr (D == CompareParams::kNe) {
      z[i] = a != b;
    } else if constexpr (T::kCat == Cat::kComplex) {
      z[i] = false;  // unreachable: the verifier allows only EQ and NE on complex
    } else if constexpr (D == CompareParams::kGe) {
      z[i] = a >= b;
    } else if constexpr (D == CompareParams::kGt) {
      z[i] = a > b;
    } else if constexpr (D == CompareParams::kLe) {
      z[i] = a <= b;
    } else {
      z[i] = a < b;
    }
  }
}

template <ElemKind K, bool kTotal>
OPJ_LOOP_BODY void CompareByDir(CompareParams::Dir d, const void* x, const void* y, uint8_t* z, int64_t n) {
  switch (d) {
    case CompareParams::kEq: return CompareLoop<K, CompareParams::kEq, kTotal>(x, y, z, n);
    case CompareParams::kNe: return CompareLoop<K, CompareParams::kNe, kTotal>(x, y, z, n);
    case CompareParams::kGe: return CompareLoop<K, CompareParams::kGe, kTotal>(x, y, z, n);
    case CompareParams::kGt: return CompareLoop<K, CompareParams::kGt, kTotal>(x, y, z, n);
    case CompareParams::kLe: return CompareLoop<K, CompareParams::kLe, kTotal>(x, y, z, n);
    case CompareParams::kLt: return CompareLoop<K, CompareParams::kLt, kTotal>(x, y, z, n);
  }
}

template <ElemKind K>
OPJ_LOOP_BODY void CompareRaw(const void* params, const void* const* in, void* out, int64_t n) {
  const CompareParams& p = *static_cast<const CompareParams*>(params);
  uint8_t* z = static_cast<uint8_t*>(out);
  if constexpr (K == ElemKind::kF16 || K == ElemKind::kBF16) {
    // Half-width floats compare as the f32 values they widen to (exactly, as Traits::Load
    // widens them for every op, the total order's keys included), a block at a time: the loops
    // of every direction for each half kind and CPU level had taken ~200 KB of the plugin.
    constexpr int64_t kBlock = 256;
    float a[kBlock], b[kBlock];
    const auto* x = static_cast<const typename Traits<K>::S*>(in[0]);
    const auto* y = static_cast<const typename Traits<K>::S*>(in[1]);
    for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
      const int64_t m = std::min(kBlock, n - i0);
      for (int64_t i = 0; i < m; ++i) {
        a[i] = Traits<K>::Load(x[i0 + i]);
        b[i] = Traits<K>::Load(y[i0 + i]);
      }
      if (p.total_order) CompareByDir<ElemKind::kF32, true>(p.dir, a, b, z + i0, m);
      else CompareByDir<ElemKind::kF32, false>(p.dir, a, b, z + i0, m);
    }
  } else {
    if constexpr (Traits<K>::kCat == Cat::kFloat) {
      if (p.total_order) return CompareByDir<K, true>(p.dir, in[0], in[1], z, n);
    }
    CompareByDir<K, false>(p.dir, in[0], in[1], z, n);
  }
}

// A kernel over whole arrays from a raw loop whose operands all have the result's size: one
// body for all of them (each inlining its own allocation and slot handling multiplied it by
// every kind pair of convert).
[[gnu::noinline]] void RunRawOp(RawOpFn fn, const Step& s, ExecState& st) {
  const void* in[3] = {};
  for (size_t i = 0; i < s.in.size() && i < 3; ++i) in[i] = st.slots[s.in[i]].array.data();
  Array r = st.NewArray(s.out_types[0]);
  fn(s.params.get(), in, r.mutable_data(), r.NumElements());
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}
template <RawOpFn F, bool kCopies>
void RawOpKernel(const Step& s, ExecState& st) {
  RunRawOp(ForCpu<F, kCopies>(), s, st);
}

// ---- select (element-size generic)

// select over elements of one size, as unsigned integers of that size (any kind moves as bits).
// Branch-free (a mask from the predicate), so that the loop vectorises and a random mask costs
// no mispredictions.
template <typename U>
OPJ_LOOP_BODY void SelectRaw(const void*, const void* const* in, void* out, int64_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(in[0]);
  const U* t = static_cast<const U*>(in[1]);
  const U* f = static_cast<const U*>(in[2]);
  U* y = static_cast<U*>(out);
  for (int64_t i = 0; i < n; ++i) {
    const U m = static_cast<U>(-static_cast<U>(p[i] != 0));
    y[i] = static_cast<U>((t[i] & m) | (f[i] & static_cast<U>(~m)));
  }
}
// 16-byte elements (c128) as two 8-byte halves.
OPJ_LOOP_BODY void SelectRaw16(const void*, const void* const* in, void* out, int64_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(in[0]);
  const uint64_t* t = static_cast<const uint64_t*>(in[1]);
  const uint64_t* f = static_cast<const uint64_t*>(in[2]);
  uint64_t* y = static_cast<uint64_t*>(out);
  for (int64_t i = 0; i < 2 * n; ++i) {
    const uint64_t m = -static_cast<uint64_t>(p[i / 2] != 0);
    y[i] = (t[i] & m) | (f[i] & ~m);
  }
}

RawOpFn SelectRawFor(int64_t elem_bytes) {
  static const RawOpFn fns[5] = {ForCpu<&SelectRaw<uint8_t>>(), ForCpu<&SelectRaw<uint16_t>>(),
                                 ForCpu<&SelectRaw<uint32_t>>(), ForCpu<&SelectRaw<uint64_t>>(),
                                 ForCpu<&SelectRaw16>()};
  switch (elem_bytes) {
    case 1: return fns[0];
    case 2: return fns[1];
    case 4: return fns[2];
    case 8: return fns[3];
    case 16: return fns[4];
    default: return nullptr;
  }
}

void SelectKernelImpl(const Step& s, ExecState& st) {
  const Array& p = st.slots[s.in[0]].array;
  const Array& t = st.slots[s.in[1]].array;
  const Array& f = st.slots[s.in[2]].array;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t n = r.NumElements(), es = r.type().ElementSize();
  const uint8_t* pp = p.data();
  const bool scalar = p.NumElements() == 1 && n != 1;
  if (scalar) {
    std::memcpy(r.mutable_data(), (pp[0] ? t : f).data(), n * es);
  } else if (RawOpFn raw = SelectRawFor(es)) {
    const void* in[3] = {pp, t.data(), f.data()};
    raw(nullptr, in, r.mutable_data(), n);
  } else {
    uint8_t* out = r.mutable_data();
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(out + i * es, (pp[i] ? t : f).data() + i * es, es);
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

// ---- clamp: min(max(x, lo), hi) with the maximum/minimum semantics of each kind

template <ElemKind K>
[[gnu::always_inline]] inline typename Traits<K>::C ClampOne(typename Traits<K>::C a, typename Traits<K>::C l,
                                                             typename Traits<K>::C h) {
  using T = Traits<K>;
  using C = typename T::C;
  if constexpr (T::kCat == Cat::kFloat) {
    // Branch-free (the loops vectorise): a NaN operand passes through the selects, a NaN bound
    // is caught at the end.
    C m = a < l ? l : a;
    m = m > h ? h : m;
    return (l != l) | (h != h) ? std::numeric_limits<C>::quiet_NaN() : m;
  } else if constexpr (T::kCat == Cat::kComplex) {
    auto less = [](C u, C v) { return u.real() < v.real() || (u.real() == v.real() && u.imag() < v.imag()); };
    C m = less(a, l) ? l : a;
    return less(h, m) ? h : m;
  } else {
    C m = a < l ? l : a;
    return m > h ? h : m;
  }
}

// Operands in clamp's order: min, operand, max, all of the result's size.
template <ElemKind K>
OPJ_LOOP_BODY void ClampRaw(const void*, const void* const* in, void* out, int64_t n) {
  using T = Traits<K>;
  const auto* pl = static_cast<const typename T::S*>(in[0]);
  const auto* px = static_cast<const typename T::S*>(in[1]);
  const auto* ph = static_cast<const typename T::S*>(in[2]);
  auto* y = static_cast<typename T::S*>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = T::Store(ClampOne<K>(T::Load(px[i]), T::Load(pl[i]), T::Load(ph[i])));
}

template <ElemKind K>
void ClampKernel(const Step& s, ExecState& st) {
  using T = Traits<K>;
  const Array& lo = st.slots[s.in[0]].array;
  const Array& x = st.slots[s.in[1]].array;
  const Array& hi = st.slots[s.in[2]].array;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t n = r.NumElements();
  const bool slo = lo.NumElements() == 1, shi = hi.NumElements() == 1;
  const auto* pl = lo.as<typename T::S>();
  const auto* px = x.as<typename T::S>();
  const auto* ph = hi.as<typename T::S>();
  auto* out = r.mutable_as<typename T::S>();
  for (int64_t i = 0; i < n; ++i)
    out[i] = T::Store(ClampOne<K>(T::Load(px[i]), T::Load(pl[slo ? 0 : i]), T::Load(ph[shi ? 0 : i])));
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

// ---- convert: every kind to every kind through a wide intermediate

struct Wide {
  enum Kind : uint8_t { kInt, kUInt, kFloat, kComplex } kind;
  int64_t i = 0;
  uint64_t u = 0;
  double re = 0, im = 0;
};

template <ElemKind K>
Wide ToWide(typename Traits<K>::S s) {
  using T = Traits<K>;
  auto c = T::Load(s);
  Wide w;
  if constexpr (T::kCat == Cat::kBool) {
    w.kind = Wide::kUInt;
    w.u = c ? 1 : 0;
  } else if constexpr (T::kCat == Cat::kSigned) {
    w.kind = Wide::kInt;
    w.i = static_cast<int64_t>(c);
  } else if constexpr (T::kCat == Cat::kUnsigned) {
    w.kind = Wide::kUInt;
    w.u = static_cast<uint64_t>(c);
  } else if constexpr (T::kCat == Cat::kFloat) {
    w.kind = Wide::kFloat;
    w.re = static_cast<double>(c);
  } else {
    w.kind = Wide::kComplex;
    w.re = c.real();
    w.im = c.imag();
  }
  return w;
}

// Float to integer: NaN -> 0, truncation toward zero, saturation at the kind's range.
template <typename T>
int64_t SaturateSigned(double d) {
  const double lo = -std::ldexp(1.0, T::kBits - 1), hi = std::ldexp(1.0, T::kBits - 1);
  if (std::isnan(d)) return 0;
  if (d <= lo) return static_cast<int64_t>(lo);
  if (d >= hi) return T::kBits == 64 ? INT64_MAX : static_cast<int64_t>(hi) - 1;
  return static_cast<int64_t>(std::trunc(d));
}
template <typename T>
uint64_t SaturateUnsigned(double d) {
  const double hi = std::ldexp(1.0, T::kBits);
  if (std::isnan(d) || d <= 0) return 0;
  if (d >= hi) return T::kBits == 64 ? UINT64_MAX : static_cast<uint64_t>(hi) - 1;
  return static_cast<uint64_t>(std::trunc(d));
}

template <ElemKind K>
double FloatFromInt(const Wide& w) {
  // Through long double, which holds every 64-bit integer exactly, so f32 and f64 round once.
  long double v = w.kind == Wide::kInt ? static_cast<long double>(w.i) : static_cast<long double>(w.u);
  if constexpr (K == ElemKind::kF32) return static_cast<double>(static_cast<float>(v));
  return static_cast<double>(v);
}

template <ElemKind K>
typename Traits<K>::S FromWide(const Wide& w) {
  using T = Traits<K>;
  using C = typename T::C;
  if constexpr (T::kCat == Cat::kBool) {
    bool b = w.kind == Wide::kInt ? w.i != 0 : w.kind == Wide::kUInt ? w.u != 0
             : w.kind == Wide::kFloat ? w.re != 0 : (w.re != 0 || w.im != 0);
    return T::Store(b);
  } else if constexpr (T::kCat == Cat::kSigned || T::kCat == Cat::kUnsigned) {
    int64_t v;
    if (w.kind == Wide::kInt) {
      v = w.i;
    } else if (w.kind == Wide::kUInt) {
      v = static_cast<int64_t>(w.u);
    } else if constexpr (T::kCat == Cat::kSigned) {
      v = SaturateSigned<T>(w.re);
    } else {
      v = static_cast<int64_t>(SaturateUnsigned<T>(w.re));
    }
    return T::Store(static_cast<C>(v));
  } else if constexpr (T::kCat == Cat::kFloat) {
    double d = w.kind == Wide::kInt || w.kind == Wide::kUInt ? FloatFromInt<K>(w) : w.re;
    if constexpr (K == ElemKind::kF64) {
      return d;
    } else if constexpr (K == ElemKind::kF32) {
      return static_cast<float>(d);
    } else {
      // Encode straight from double: one rounding.
      return static_cast<typename T::S>(ir::EncodeFloat(K, d));
    }
  } else {
    using R = typename C::value_type;
    double re = w.kind == Wide::kInt ? static_cast<double>(w.i)
                : w.kind == Wide::kUInt ? static_cast<double>(w.u) : w.re;
    double im = w.kind == Wide::kComplex ? w.im : 0.0;
    return C(static_cast<R>(re), static_cast<R>(im));
  }
}

// Kinds whose C++ conversions give convert's results: f32/f64 from each other or from a
// machine integer (one rounding to nearest, as through Wide), and integers from integers
// (two's-complement wrap-around).
constexpr bool MachineInt(ElemKind k) {
  return k == ElemKind::kI8 || k == ElemKind::kI16 || k == ElemKind::kI32 || k == ElemKind::kI64 ||
         k == ElemKind::kU8 || k == ElemKind::kU16 || k == ElemKind::kU32 || k == ElemKind::kU64;
}
constexpr bool MachineFloat(ElemKind k) { return k == ElemKind::kF32 || k == ElemKind::kF64; }
constexpr bool PlainCast(ElemKind from, ElemKind to) {
  return (MachineFloat(to) && (MachineFloat(from) || MachineInt(from))) || (MachineInt(from) && MachineInt(to));
}

template <ElemKind From, ElemKind To>
OPJ_LOOP_BODY void ConvertRaw(const void*, const void* const* in, void* out, int64_t n) {
  const auto* x = static_cast<const typename Traits<From>::S*>(in[0]);
  auto* y = static_cast<typename Traits<To>::S*>(out);
  if constexpr (From == To) {
    std::memcpy(y, x, static_cast<size_t>(n) * sizeof(*x));
  } else if constexpr (PlainCast(From, To)) {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<typename Traits<To>::S>(x[i]);
  } else if constexpr (From == ElemKind::kF32 && To == ElemKind::kBF16) {
    // The same bits as through Wide (round to nearest even; NaN to the quiet NaN 0x7FC0 with its
    // sign; checked against ir::EncodeFloat over 46 M patterns), without a double and a generic
    // encoder per element (64 Ki elements: 744 -> ~20 us).
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t u = std::bit_cast<uint32_t>(x[i]);
      y[i] = (u & 0x7FFFFFFF) > 0x7F800000 ? static_cast<uint16_t>(((u >> 16) & 0x8000) | 0x7FC0) : FloatToBf16(x[i]);
    }
  } else if constexpr (From == ElemKind::kF32 && To == ElemKind::kF16) {
    for (int64_t i = 0; i < n; ++i) y[i] = FloatToHalf(x[i]);  // EncodeFloat's bits, NaN included
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = FromWide<To>(ToWide<From>(x[i]));
  }
}

// ---- bitcast_convert: the same bits under another type (little-endian element groups)

void BitcastKernel(const Step& s, ExecState& st) {
  // Same total bytes; the row-major byte order is the reinterpretation.
  st.slots[s.out[0]] = RtValue::Of(st.slots[s.in[0]].array.Reshaped(s.out_types[0]));
}

// Bitcasts involving sub-byte kinds (i1, i2, i4, ui2, ui4, f4, f6). Each element is stored
// one per byte, so the kernel walks a little-endian bit stream: element i of the operand
// supplies bits [i*w_in, (i+1)*w_in), element j of the result takes bits [j*w_out, ...).
// Row-major order makes the trailing-dimension grouping of the spec fall out of this.
void BitcastBitsKernel(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  Array r = st.NewArray(s.out_types[0]);
  const int in_bits = ir::BitWidth(a.elem()), out_bits = ir::BitWidth(r.elem());
  // Signed sub-byte integers are stored sign-extended; everything else keeps the raw bits.
  const bool sign_extend = out_bits < 8 && r.elem() != ElemKind::kI1 &&
                           ir::IsInteger(r.elem()) && !ir::IsUnsigned(r.elem());
  const auto* x = static_cast<const uint8_t*>(a.data());
  auto* y = static_cast<uint8_t*>(r.mutable_data());
  const int in_bytes = ir::ByteSize(a.elem());
  const int out_bytes = ir::ByteSize(r.elem());
  const int64_t n_in = a.NumElements(), n_out = r.NumElements();
  // Bits in flight never exceed 64 + 7: the wider side is at most 64 bits, and a value is
  // taken out as soon as it is complete.
  unsigned __int128 acc = 0;
  int have = 0;
  int64_t j = 0;
  const uint64_t in_mask = in_bits == 64 ? ~0ull : ((1ull << in_bits) - 1);
  for (int64_t i = 0; i < n_in; ++i) {
    uint64_t v = 0;
    std::memcpy(&v, x + i * in_bytes, static_cast<size_t>(in_bytes));  // little-endian host
    acc |= static_cast<unsigned __int128>(v & in_mask) << have;
    have += in_bits;
    while (have >= out_bits && j < n_out) {
      uint64_t o = static_cast<uint64_t>(acc);
      if (out_bits < 64) o &= (1ull << out_bits) - 1;
      if (sign_extend && (o >> (out_bits - 1)) & 1) o |= ~0ull << out_bits;
      std::memcpy(y + j * out_bytes, &o, static_cast<size_t>(out_bytes));
      acc >>= out_bits;
      have -= out_bits;
      ++j;
    }
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

// ---- reduce_precision

double ReducePrecision(double v, int exp_bits, int man_bits) {
  if (!std::isfinite(v) || v == 0) return v;
  // Round the mantissa to man_bits (ties to even), then apply the exponent range.
  int e;
  double m = std::frexp(v, &e);  // v = m * 2^e, 0.5 <= |m| < 1
  if (man_bits < 52) {
    double scale = std::ldexp(1.0, man_bits + 1);
    m = std::nearbyint(m * scale) / scale;
    v = std::ldexp(m, e);
    std::frexp(v, &e);
  }
  const int max_exp = (1 << (exp_bits - 1)) - 1;  // largest unbiased exponent
  const int min_exp = 1 - max_exp;                // smallest normal exponent
  const int unbiased = e - 1;
  if (unbiased > max_exp) return std::copysign(INFINITY, v);
  if (unbiased < min_exp) {
    // Denormals are flushed to zero in the reduced format, as XLA does.
    return std::copysign(0.0, v);
  }
  return v;
}

template <ElemKind K>
void ReducePrecisionKernel(const Step& s, ExecState& st) {
  using T = Traits<K>;
  const ReducePrecisionParams& p = s.Params<ReducePrecisionParams>();
  const Array& a = st.slots[s.in[0]].array;
  Array r = st.NewArray(s.out_types[0]);
  const auto* x = a.as<typename T::S>();
  auto* y = r.mutable_as<typename T::S>();
  const int64_t n = a.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    double v = static_cast<double>(T::Load(x[i]));
    y[i] = T::Store(static_cast<typename T::C>(ReducePrecision(v, p.exponent_bits, p.mantissa_bits)));
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

}  // namespace

absl::StatusOr<KernelFn> SelectCompare(ElemKind k, const CompareParams& p) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if constexpr (Traits<K>::kCat == Cat::kComplex) {
      if (p.dir != CompareParams::kEq && p.dir != CompareParams::kNe) return;
    }
    fn = &RawOpKernel<&CompareRaw<K>, HasVectorCopies(K)>;
  });
  if (!fn)
    return absl::InvalidArgumentError(
        StrCat("compare supports only EQ and NE for ", ir::ElemKindName(k)));
  return fn;
}

KernelFn SelectKernel() { return &SelectKernelImpl; }

RawOpFn RawCompare(ElemKind k, const CompareParams& p) {
  RawOpFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if constexpr (Traits<K>::kCat == Cat::kComplex) {
      if (p.dir != CompareParams::kEq && p.dir != CompareParams::kNe) return;
    }
    fn = ForCpu<&CompareRaw<K>, HasVectorCopies(K)>();
  });
  return fn;
}

RawOpFn RawSelect(int64_t elem_bytes) { return SelectRawFor(elem_bytes); }

RawOpFn RawClamp(ElemKind k) {
  RawOpFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() { fn = ForCpu<&ClampRaw<K>, HasVectorCopies(K)>(); });
  return fn;
}

RawOpFn RawConvert(ElemKind from, ElemKind to) {
  RawOpFn fn = nullptr;
  DispatchKind(from, [&]<ElemKind F>() { DispatchKind(to, [&]<ElemKind T>() { fn = ForCpu<&ConvertRaw<F, T>, HasVectorCopies(F) && HasVectorCopies(T)>(); }); });
  return fn;
}

absl::StatusOr<KernelFn> SelectClamp(ElemKind k) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() { fn = &ClampKernel<K>; });
  if (!fn) return absl::UnimplementedError(StrCat("clamp on ", ir::ElemKindName(k)));
  return fn;
}

absl::StatusOr<KernelFn> SelectConvert(ElemKind from, ElemKind to) {
  KernelFn fn = nullptr;
  DispatchKind(from, [&]<ElemKind F>() {
    DispatchKind(to, [&]<ElemKind T>() { fn = &RawOpKernel<&ConvertRaw<F, T>, HasVectorCopies(F) && HasVectorCopies(T)>; });
  });
  if (!fn)
    return absl::UnimplementedError(StrCat("convert from ", ir::ElemKindName(from), " to ",
                                           ir::ElemKindName(to)));
  return fn;
}

absl::StatusOr<KernelFn> SelectBitcastConvert(ElemKind from, ElemKind to) {
  if (ir::BitWidth(from) % 8 != 0 || ir::BitWidth(to) % 8 != 0) return &BitcastBitsKernel;
  return &BitcastKernel;
}

absl::StatusOr<KernelFn> SelectReducePrecision(ElemKind k) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() {
    if constexpr (Traits<K>::kCat == Cat::kFloat) fn = &ReducePrecisionKernel<K>;
  });
  if (!fn) return absl::InvalidArgumentError(StrCat("reduce_precision on ", ir::ElemKindName(k)));
  return fn;
}

}  // namespace openpjrt::cpu
