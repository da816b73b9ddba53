// How kernels read and write each element kind: the storage type in memory (S), the type they
// compute in (C), and the conversions between them. Narrow floats compute in float and round to
// nearest-even on store; sub-byte integers wrap to their width on store.
#pragma once

#include <complex>
#include <cstdint>
#include <bit>
#include <cstring>
#include <type_traits>

#include "src/ir/float_format.h"
#include "src/ir/types.h"

namespace openpjrt::cpu {

using ir::ElemKind;

enum class Cat : uint8_t { kBool, kSigned, kUnsigned, kFloat, kComplex };

template <ElemKind K>
struct Traits;

#define OPENPJRT_NATIVE(KIND, T, CAT)                         \
  template <>                                                 \
  struct Traits<ElemKind::KIND> {                             \
    using S = T;                                              \
    using C = T;                                              \
    static constexpr Cat kCat = CAT;                          \
    static constexpr int kBits = sizeof(T) * 8;               \
    [[gnu::always_inline]] static C Load(S s) { return s; }   \
    [[gnu::always_inline]] static S Store(C c) { return c; }  \
  };
OPENPJRT_NATIVE(kI8, int8_t, Cat::kSigned)
OPENPJRT_NATIVE(kI16, int16_t, Cat::kSigned)
OPENPJRT_NATIVE(kI32, int32_t, Cat::kSigned)
OPENPJRT_NATIVE(kI64, int64_t, Cat::kSigned)
OPENPJRT_NATIVE(kIndex, int64_t, Cat::kSigned)
OPENPJRT_NATIVE(kU8, uint8_t, Cat::kUnsigned)
OPENPJRT_NATIVE(kU16, uint16_t, Cat::kUnsigned)
OPENPJRT_NATIVE(kU32, uint32_t, Cat::kUnsigned)
OPENPJRT_NATIVE(kU64, uint64_t, Cat::kUnsigned)
OPENPJRT_NATIVE(kF32, float, Cat::kFloat)
OPENPJRT_NATIVE(kF64, double, Cat::kFloat)
OPENPJRT_NATIVE(kC64, std::complex<float>, Cat::kComplex)
OPENPJRT_NATIVE(kC128, std::complex<double>, Cat::kComplex)
#undef OPENPJRT_NATIVE

template <>
struct Traits<ElemKind::kI1> {
  using S = uint8_t;
  using C = bool;
  static constexpr Cat kCat = Cat::kBool;
  static constexpr int kBits = 1;
  [[gnu::always_inline]] static C Load(S s) { return s != 0; }
  [[gnu::always_inline]] static S Store(C c) { return c ? 1 : 0; }
};

// Sub-byte integers: one per byte, sign-extended (signed) or masked (unsigned).
template <int Bits>
struct SubByteSigned {
  using S = int8_t;
  using C = int8_t;
  static constexpr Cat kCat = Cat::kSigned;
  static constexpr int kBits = Bits;
  [[gnu::always_inline]] static C Load(S s) { return s; }
  [[gnu::always_inline]] static S Store(C c) {
    uint8_t u = static_cast<uint8_t>(c) & ((1u << Bits) - 1);
    if (u & (1u << (Bits - 1))) u |= static_cast<uint8_t>(~((1u << Bits) - 1));
    return static_cast<S>(u);
  }
};
template <int Bits>
struct SubByteUnsigned {
  using S = uint8_t;
  using C = uint8_t;
  static constexpr Cat kCat = Cat::kUnsigned;
  static constexpr int kBits = Bits;
  [[gnu::always_inline]] static C Load(S s) { return s; }
  [[gnu::always_inline]] static S Store(C c) { return static_cast<S>(c & ((1u << Bits) - 1)); }
};
template <> struct Traits<ElemKind::kI2> : SubByteSigned<2> {};
template <> struct Traits<ElemKind::kI4> : SubByteSigned<4> {};
template <> struct Traits<ElemKind::kU2> : SubByteUnsigned<2> {};
template <> struct Traits<ElemKind::kU4> : SubByteUnsigned<4> {};

// Narrow floats: decode through a table for 8-bit and smaller formats; f16 and bf16 with the
// inline, branch-free conversions below (so that elementwise loops over them vectorise).
const float* DecodeTable8(ElemKind k);  // 256 entries

// Exact: every f16 is an f32. Exponent and mantissa move up 13 bits and the bias is adjusted;
// infinities and NaNs (payload kept) get the f32 maximum exponent; subnormals are rebuilt by
// subtracting 2^-14 from a float whose mantissa holds them.
[[gnu::always_inline]] inline float HalfToFloat(uint16_t h) {
  const uint32_t em = static_cast<uint32_t>(h & 0x7FFF) << 13;
  const uint32_t exp = em & (0x7C00u << 13);
  const uint32_t normal = em + (112u << 23);
  const uint32_t special = normal + (112u << 23);  // exponent 31 -> 255
  const uint32_t sub_bits = em + (113u << 23);     // 2^-14 * (1 + m / 1024)
  const float sub = std::bit_cast<float>(sub_bits) - std::bit_cast<float>(113u << 23);
  const uint32_t mag = exp == (0x7C00u << 13) ? special : exp == 0 ? std::bit_cast<uint32_t>(sub) : normal;
  return std::bit_cast<float>(mag | (static_cast<uint32_t>(h & 0x8000) << 16));
}

// Round to nearest even; overflow gives infinity, NaN the quiet NaN 0x7E00 (sign kept), as
// XLA's CPU backend converts. Subnormal results come from adding a float whose exponent places
// the f16 subnormal unit at its last mantissa bit (the add rounds once, correctly).
[[gnu::always_inline]] inline uint16_t FloatToHalf(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (u >> 16) & 0x8000;
  const uint32_t a = u & 0x7FFFFFFF;
  const uint32_t inf_or_nan = a > 0x7F800000 ? 0x7E00u : 0x7C00u;
  constexpr uint32_t kDenormMagic = ((127 - 15) + (23 - 10) + 1) << 23;
  const uint32_t sub = std::bit_cast<uint32_t>(std::bit_cast<float>(a) + std::bit_cast<float>(kDenormMagic)) - kDenormMagic;
  const uint32_t odd = (a >> 13) & 1;
  const uint32_t normal = (a + (static_cast<uint32_t>(15 - 127) << 23) + 0xFFF + odd) >> 13;
  const uint32_t mag = a >= ((127 + 16) << 23) ? inf_or_nan : a < (113u << 23) ? sub : normal;
  return static_cast<uint16_t>(mag | sign);
}

// Round to nearest even; NaN stays NaN (quiet bit set, payload's top bits kept).
[[gnu::always_inline]] inline uint16_t FloatToBf16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16;
  return static_cast<uint16_t>((u & 0x7FFFFFFF) > 0x7F800000 ? (u >> 16) | 0x40 : rounded);
}

template <ElemKind K>
struct NarrowFloat {
  using S = uint8_t;
  using C = float;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr int kBits = 8;
  [[gnu::always_inline]] static C Load(S s) { return DecodeTable8(K)[s]; }
  [[gnu::always_inline]] static S Store(C c) { return static_cast<S>(ir::EncodeFloat(K, c)); }
};
template <> struct Traits<ElemKind::kF4E2M1FN> : NarrowFloat<ElemKind::kF4E2M1FN> {};
template <> struct Traits<ElemKind::kF6E2M3FN> : NarrowFloat<ElemKind::kF6E2M3FN> {};
template <> struct Traits<ElemKind::kF6E3M2FN> : NarrowFloat<ElemKind::kF6E3M2FN> {};
template <> struct Traits<ElemKind::kF8E3M4> : NarrowFloat<ElemKind::kF8E3M4> {};
template <> struct Traits<ElemKind::kF8E4M3> : NarrowFloat<ElemKind::kF8E4M3> {};
template <> struct Traits<ElemKind::kF8E4M3FN> : NarrowFloat<ElemKind::kF8E4M3FN> {};
template <> struct Traits<ElemKind::kF8E4M3FNUZ> : NarrowFloat<ElemKind::kF8E4M3FNUZ> {};
template <> struct Traits<ElemKind::kF8E4M3B11FNUZ> : NarrowFloat<ElemKind::kF8E4M3B11FNUZ> {};
template <> struct Traits<ElemKind::kF8E5M2> : NarrowFloat<ElemKind::kF8E5M2> {};
template <> struct Traits<ElemKind::kF8E5M2FNUZ> : NarrowFloat<ElemKind::kF8E5M2FNUZ> {};
template <> struct Traits<ElemKind::kF8E8M0FNU> : NarrowFloat<ElemKind::kF8E8M0FNU> {};

template <>
struct Traits<ElemKind::kF16> {
  using S = uint16_t;
  using C = float;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr int kBits = 16;
  [[gnu::always_inline]] static C Load(S s) { return HalfToFloat(s); }
  [[gnu::always_inline]] static S Store(C c) { return FloatToHalf(c); }
};
template <>
struct Traits<ElemKind::kBF16> {
  using S = uint16_t;
  using C = float;
  static constexpr Cat kCat = Cat::kFloat;
  static constexpr int kBits = 16;
  [[gnu::always_inline]] static C Load(S s) {
    uint32_t u = static_cast<uint32_t>(s) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  [[gnu::always_inline]] static S Store(C c) { return FloatToBf16(c); }
};

// Kinds whose loops get AVX-512 and AVX2 copies beside the baseline (isa.h): bool, i32, i64, u32
// (indices, counters, random bits), f16, bf16, f32 and f64. The other integers, the 4-, 6- and
// 8-bit floats and complex numbers run their baseline loop everywhere: they are rarely hot, their
// loops gain little from wider vectors (i8 / u8 / i16 / u16 programs of 4 Mi elements: the same
// time within noise; u64 12% slower), and three copies of each cost 1.2 MB of the plugin and most
// of the kernels' build time.
constexpr bool HasVectorCopies(ElemKind k) {
  switch (k) {
    case ElemKind::kI1: case ElemKind::kI32:
    case ElemKind::kI64: case ElemKind::kU32:
    case ElemKind::kF16: case ElemKind::kBF16: case ElemKind::kF32:
    case ElemKind::kF64:
      return true;
    default:
      return false;
  }
}

// The kind whose loops fold a kind without vector copies to the same results, so that its
// reductions and windows need no loops of their own (they widen the input, fold in the wide kind
// and narrow the results once; each kind then costs two conversion loops instead of a fold per
// op). Integers of up to 16 bits, sub-byte ones included, fold in i32: i32 keeps their order, and
// its add and multiply wrap modulo 2^32, which agrees with wrapping modulo their width at every
// step. u64 and index fold in i64 (not max or min of u64, whose order i64 does not keep). The 4-,
// 6- and 8-bit floats fold in f32, what they compute in; where their own fold rounds every step to
// the kind (a window's), that agrees only for max and min. The kind itself when there is no such
// kind.
constexpr ElemKind WideKind(ElemKind k) {
  switch (k) {
    case ElemKind::kI2: case ElemKind::kI4: case ElemKind::kI8: case ElemKind::kI16:
    case ElemKind::kU2: case ElemKind::kU4: case ElemKind::kU8: case ElemKind::kU16:
      return ElemKind::kI32;
    case ElemKind::kU64: case ElemKind::kIndex:
      return ElemKind::kI64;
    case ElemKind::kF4E2M1FN: case ElemKind::kF6E2M3FN: case ElemKind::kF6E3M2FN: case ElemKind::kF8E3M4:
    case ElemKind::kF8E4M3: case ElemKind::kF8E4M3FN: case ElemKind::kF8E4M3FNUZ:
    case ElemKind::kF8E4M3B11FNUZ: case ElemKind::kF8E5M2: case ElemKind::kF8E5M2FNUZ:
    case ElemKind::kF8E8M0FNU:
      return ElemKind::kF32;
    default:
      return k;
  }
}

// dst[i] = src[i] of kind K converted to WideKind(K), for i < n (exact).
template <ElemKind K>
void WidenToWideKind(const void* src, void* dst, int64_t n) {
  using T = Traits<K>;
  using W = typename Traits<WideKind(K)>::S;
  const auto* x = static_cast<const typename T::S*>(src);
  auto* y = static_cast<W*>(dst);
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<W>(T::Load(x[i]));
}
// dst[i] = src[i] of WideKind(K) stored as kind K, for i < n: integers wrap to K's width, floats
// round to nearest even.
template <ElemKind K>
void NarrowFromWideKind(const void* src, void* dst, int64_t n) {
  using T = Traits<K>;
  using W = typename Traits<WideKind(K)>::S;
  const auto* x = static_cast<const W*>(src);
  auto* y = static_cast<typename T::S*>(dst);
  for (int64_t i = 0; i < n; ++i) y[i] = T::Store(static_cast<typename T::C>(x[i]));
}
using WidenFn = void (*)(const void*, void*, int64_t);

// Calls f.template operator()<K>() for the runtime kind `k`. Returns false for kinds with no
// kernel representation (tf32).
template <typename F>
bool DispatchKind(ElemKind k, F&& f) {
  switch (k) {
#define OPENPJRT_CASE(KIND)          \
  case ElemKind::KIND:               \
    f.template operator()<ElemKind::KIND>(); \
    return true;
    OPENPJRT_CASE(kI1) OPENPJRT_CASE(kI2) OPENPJRT_CASE(kI4) OPENPJRT_CASE(kI8)
    OPENPJRT_CASE(kI16) OPENPJRT_CASE(kI32) OPENPJRT_CASE(kI64) OPENPJRT_CASE(kU2)
    OPENPJRT_CASE(kU4) OPENPJRT_CASE(kU8) OPENPJRT_CASE(kU16) OPENPJRT_CASE(kU32)
    OPENPJRT_CASE(kU64) OPENPJRT_CASE(kF4E2M1FN) OPENPJRT_CASE(kF6E2M3FN) OPENPJRT_CASE(kF6E3M2FN)
    OPENPJRT_CASE(kF8E3M4) OPENPJRT_CASE(kF8E4M3) OPENPJRT_CASE(kF8E4M3FN)
    OPENPJRT_CASE(kF8E4M3FNUZ) OPENPJRT_CASE(kF8E4M3B11FNUZ) OPENPJRT_CASE(kF8E5M2)
    OPENPJRT_CASE(kF8E5M2FNUZ) OPENPJRT_CASE(kF8E8M0FNU) OPENPJRT_CASE(kF16)
    OPENPJRT_CASE(kBF16) OPENPJRT_CASE(kF32) OPENPJRT_CASE(kF64) OPENPJRT_CASE(kC64)
    OPENPJRT_CASE(kC128) OPENPJRT_CASE(kIndex)
#undef OPENPJRT_CASE
    case ElemKind::kTF32:
      return false;
  }
  return false;
}

}  // namespace openpjrt::cpu
