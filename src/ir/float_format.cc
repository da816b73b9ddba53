// One generic encoder/decoder parameterised by FloatFormat; f32 and f64 take the native path.
#include "src/ir/float_format.h"

#include <cassert>
#include <cmath>
#include <cstring>

namespace openpjrt::ir {
namespace {

using FF = FloatFormat;
constexpr FF kF16{5, 10, 15, true, true, FF::kIeeeNan};
constexpr FF kBF16{8, 7, 127, true, true, FF::kIeeeNan};
constexpr FF kTF32{8, 10, 127, true, true, FF::kIeeeNan};
constexpr FF kF32{8, 23, 127, true, true, FF::kIeeeNan};
constexpr FF kF64{11, 52, 1023, true, true, FF::kIeeeNan};
constexpr FF kE5M2{5, 2, 15, true, true, FF::kIeeeNan};
constexpr FF kE4M3{4, 3, 7, true, true, FF::kIeeeNan};
constexpr FF kE3M4{3, 4, 3, true, true, FF::kIeeeNan};
constexpr FF kE4M3FN{4, 3, 7, true, false, FF::kFnNan};
constexpr FF kE4M3FNUZ{4, 3, 8, true, false, FF::kUzNan};
constexpr FF kE4M3B11FNUZ{4, 3, 11, true, false, FF::kUzNan};
constexpr FF kE5M2FNUZ{5, 2, 16, true, false, FF::kUzNan};
constexpr FF kE8M0FNU{8, 0, 127, false, false, FF::kFnNan};
constexpr FF kE2M1FN{2, 1, 1, true, false, FF::kNoNan};
constexpr FF kE2M3FN{2, 3, 1, true, false, FF::kNoNan};
constexpr FF kE3M2FN{3, 2, 3, true, false, FF::kNoNan};

uint64_t NanBits(const FF& f, bool negative) {
  int mag_bits = f.exp_bits + f.man_bits;
  uint64_t sign = (f.has_sign && negative) ? (uint64_t{1} << mag_bits) : 0;
  switch (f.nan_kind) {
    case FF::kIeeeNan:  // quiet NaN: exponent all ones, top mantissa bit set
      return sign | (((uint64_t{1} << f.exp_bits) - 1) << f.man_bits) |
             (uint64_t{1} << (f.man_bits - 1));
    case FF::kFnNan:
      return sign | ((uint64_t{1} << mag_bits) - 1);
    case FF::kUzNan:
      return uint64_t{1} << mag_bits;
    case FF::kNoNan:
      return 0;
  }
  return 0;
}

// The largest finite magnitude's bit pattern.
uint64_t MaxFiniteBits(const FF& f) {
  int mag_bits = f.exp_bits + f.man_bits;
  uint64_t all = (uint64_t{1} << mag_bits) - 1;
  switch (f.nan_kind) {
    case FF::kIeeeNan:
      return all - (uint64_t{1} << f.man_bits);  // exponent all-ones minus one, mantissa ones
    case FF::kFnNan:
      return all - 1;
    case FF::kUzNan:
    case FF::kNoNan:
      return all;
  }
  return all;
}

uint64_t EncodeGeneric(const FF& f, double v, int hint) {
  const int mag_bits = f.exp_bits + f.man_bits;
  const bool neg = std::signbit(v);
  const uint64_t sign = (f.has_sign && neg) ? (uint64_t{1} << mag_bits) : 0;
  if (std::isnan(v)) return f.nan_kind == FF::kNoNan ? 0 : NanBits(f, neg);
  double a = std::fabs(v);
  if (!f.has_sign && neg && a != 0) return NanBits(f, false);
  auto overflow = [&]() -> uint64_t {
    if (f.has_inf) return sign | (((uint64_t{1} << f.exp_bits) - 1) << f.man_bits);
    if (f.nan_kind != FF::kNoNan) return NanBits(f, neg);
    return sign | MaxFiniteBits(f);
  };
  if (std::isinf(a)) return overflow();
  const bool no_zero = !f.has_sign;  // e8m0: every pattern is a power of two
  if (a == 0) {
    if (no_zero) return 0;            // rounds up to the smallest value, 2^-127
    if (f.nan_kind == FF::kUzNan) return 0;  // no negative zero
    return sign;
  }
  int e = 0;
  std::frexp(a, &e);
  int exp = e - 1;  // a = 1.m * 2^exp
  const int min_exp = no_zero ? -f.bias : 1 - f.bias;
  const bool subnormal = exp < min_exp;
  const int q_exp = (subnormal ? min_exp : exp) - f.man_bits;
  double n = std::ldexp(a, -q_exp);  // exact: a scaled by a power of two
  double r = std::nearbyint(n);      // ties to even
  // `hint` is in the direction of the value; the rounding works on the magnitude.
  const int mag_hint = neg ? -hint : hint;
  if (mag_hint != 0 && n - std::floor(n) == 0.5) r = mag_hint > 0 ? std::ceil(n) : std::floor(n);
  if (r == 0) {
    if (no_zero) return 0;
    return f.nan_kind == FF::kUzNan ? 0 : sign;
  }
  uint64_t bits;
  if (no_zero) {
    // No mantissa: r is 1 or 2 (or larger only below the minimum exponent).
    int out_exp = exp + (r >= 2 ? 1 : 0);
    if (subnormal) out_exp = min_exp;
    bits = static_cast<uint64_t>(out_exp + f.bias);
  } else if (subnormal) {
    bits = static_cast<uint64_t>(r);  // a carry into the exponent field is the right answer
  } else {
    bits = (static_cast<uint64_t>(exp + f.bias) << f.man_bits) +
           (static_cast<uint64_t>(r) - (uint64_t{1} << f.man_bits));
  }
  if (bits > MaxFiniteBits(f)) return overflow();
  return sign | bits;
}

double DecodeGeneric(const FF& f, uint64_t bits) {
  const int mag_bits = f.exp_bits + f.man_bits;
  const bool neg = f.has_sign && ((bits >> mag_bits) & 1);
  const uint64_t mag = bits & ((uint64_t{1} << mag_bits) - 1);
  const uint64_t exp_all = (uint64_t{1} << f.exp_bits) - 1;
  const uint64_t expf = mag >> f.man_bits;
  const uint64_t man = mag & ((uint64_t{1} << f.man_bits) - 1);
  switch (f.nan_kind) {
    case FF::kIeeeNan:
      if (expf == exp_all) {
        if (man != 0) return std::nan("");
        return neg ? -INFINITY : INFINITY;
      }
      break;
    case FF::kFnNan:
      if (mag == (uint64_t{1} << mag_bits) - 1) return std::nan("");
      break;
    case FF::kUzNan:
      if (neg && mag == 0) return std::nan("");
      break;
    case FF::kNoNan:
      break;
  }
  double val;
  if (!f.has_sign) {
    val = std::ldexp(1.0, static_cast<int>(expf) - f.bias);
  } else if (expf == 0) {
    val = std::ldexp(static_cast<double>(man), 1 - f.bias - f.man_bits);
  } else {
    val = std::ldexp(static_cast<double>(man | (uint64_t{1} << f.man_bits)),
                     static_cast<int>(expf) - f.bias - f.man_bits);
  }
  return neg ? -val : val;
}

}  // namespace

const FloatFormat& GetFloatFormat(ElemKind k) {
  switch (k) {
    case ElemKind::kF16: return kF16;
    case ElemKind::kBF16: return kBF16;
    case ElemKind::kTF32: return kTF32;
    case ElemKind::kF32: return kF32;
    case ElemKind::kF64: return kF64;
    case ElemKind::kF8E5M2: return kE5M2;
    case ElemKind::kF8E4M3: return kE4M3;
    case ElemKind::kF8E3M4: return kE3M4;
    case ElemKind::kF8E4M3FN: return kE4M3FN;
    case ElemKind::kF8E4M3FNUZ: return kE4M3FNUZ;
    case ElemKind::kF8E4M3B11FNUZ: return kE4M3B11FNUZ;
    case ElemKind::kF8E5M2FNUZ: return kE5M2FNUZ;
    case ElemKind::kF8E8M0FNU: return kE8M0FNU;
    case ElemKind::kF4E2M1FN: return kE2M1FN;
    case ElemKind::kF6E2M3FN: return kE2M3FN;
    case ElemKind::kF6E3M2FN: return kE3M2FN;
    default:
      assert(false && "GetFloatFormat: not a float kind");
      return kF64;
  }
}

uint64_t EncodeFloatWithHint(ElemKind k, double v, int hint) {
  if (k == ElemKind::kF64) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  if (k == ElemKind::kF32 && hint == 0) {
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  return EncodeGeneric(GetFloatFormat(k), v, hint);
}

uint64_t EncodeFloat(ElemKind k, double v) { return EncodeFloatWithHint(k, v, 0); }

double DecodeFloat(ElemKind k, uint64_t bits) {
  if (k == ElemKind::kF64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  if (k == ElemKind::kF32) {
    uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  return DecodeGeneric(GetFloatFormat(k), bits);
}

}  // namespace openpjrt::ir
