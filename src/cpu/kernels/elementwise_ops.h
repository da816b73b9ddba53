// The scalar semantics of elementwise ops, shared by the elementwise, reduce and dot kernels.
// Internal to src/cpu.
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/math/fast_math.h"
#include "src/cpu/kernels/kernels.h"
#include "src/cpu/math/special_functions.h"

namespace openpjrt::cpu::ops {

// Compute types with vectorisable exp, expm1, log, log1p, tanh and logistic (fast_math.h); erf
// and the trigonometric functions are f32 only.
template <typename C>
inline constexpr bool kHasFastMath = std::is_same_v<C, float> || std::is_same_v<C, double>;

template <typename T>
struct IsComplexT : std::false_type {};
template <typename T>
struct IsComplexT<std::complex<T>> : std::true_type {};

template <typename C>
C WrapAdd(C a, C b) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename C>
C WrapSub(C a, C b) {
  using U = std::make_unsigned_t<C>;
  return static_cast<C>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename C>
C WrapMul(C a, C b) {
  using U = std::make_unsigned_t<C>;
  // Promote narrow types so that the multiplication happens in unsigned arithmetic.
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<C>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b)));
}

// Complex expm1 and log1p without the cancellation of exp(z) - 1 and log(1 + z) near 0:
// e^a cos b - 1 = expm1(a) cos b - 2 sin^2(b/2), and |1 + z|^2 = 1 + (a (2 + a) + b^2).
template <typename R>
std::complex<R> ComplexExpm1(std::complex<R> z) {
  const R a = z.real(), b = z.imag();
  if (b == 0) return {std::expm1(a), b};  // also keeps e^inf * 0 from making a NaN
  const R h = std::sin(b / 2);
  return {std::expm1(a) * std::cos(b) - 2 * h * h, std::exp(a) * std::sin(b)};
}
template <typename R>
std::complex<R> ComplexLog1p(std::complex<R> z) {
  const R a = z.real(), b = z.imag();
  const R re = std::abs(a) < R(0.5) && std::abs(b) < R(0.5) ? std::log1p(a * (2 + a) + b * b) / 2
                                                             : std::log(std::hypot(1 + a, b));
  return {re, std::atan2(b, 1 + a)};
}

// A complex function of complex<float> evaluated in complex<double> and rounded once (as the
// StableHLO reference interpreter does): the float library forms lose several ULPs (and pow many
// more, through exp(b log a)).
template <typename R, typename F>
[[gnu::always_inline]] inline std::complex<R> InDouble(std::complex<R> x, F f) {
  if constexpr (std::is_same_v<R, float>) {
    const std::complex<double> r = f(std::complex<double>(x.real(), x.imag()));
    return {static_cast<float>(r.real()), static_cast<float>(r.imag())};
  } else {
    return f(x);
  }
}

// The value range of a kind's integers, honouring sub-byte widths.
template <typename T>
constexpr int64_t IntMin() {
  if constexpr (T::kCat == Cat::kSigned && T::kBits == 64) return INT64_MIN;
  if constexpr (T::kCat == Cat::kSigned) return -(int64_t{1} << (T::kBits - 1));
  return 0;
}

template <typename T>
constexpr bool Supported(UnaryOp op) {
  constexpr Cat c = T::kCat;
  constexpr bool b = c == Cat::kBool, s = c == Cat::kSigned, u = c == Cat::kUnsigned,
                 f = c == Cat::kFloat, x = c == Cat::kComplex;
  switch (op) {
    case UnaryOp::kAbs: case UnaryOp::kSign: return s || f || x;
    case UnaryOp::kNegate: return s || u || f || x;
    case UnaryOp::kNot: return b || s || u;
    case UnaryOp::kPopcnt: case UnaryOp::kClz: return s || u;
    case UnaryOp::kCeil: case UnaryOp::kFloor: case UnaryOp::kRoundAfz: case UnaryOp::kRoundEven:
    case UnaryOp::kIsFinite: case UnaryOp::kIsInf: case UnaryOp::kIsPosInf:
    case UnaryOp::kIsNegInf: case UnaryOp::kErf: case UnaryOp::kErfc: case UnaryOp::kErfInv:
    case UnaryOp::kLgamma: case UnaryOp::kDigamma: case UnaryOp::kBesselI1e:
      return f;
    case UnaryOp::kExp: case UnaryOp::kExpm1: case UnaryOp::kLog: case UnaryOp::kLog1p:
    case UnaryOp::kLogistic: case UnaryOp::kSqrt: case UnaryOp::kRsqrt: case UnaryOp::kSin:
    case UnaryOp::kCos: case UnaryOp::kTan: case UnaryOp::kTanh: case UnaryOp::kReal:
    case UnaryOp::kImag: case UnaryOp::kAcos: case UnaryOp::kAcosh: case UnaryOp::kAsin:
    case UnaryOp::kAsinh: case UnaryOp::kAtan: case UnaryOp::kAtanh: case UnaryOp::kCosh:
    case UnaryOp::kSinh: case UnaryOp::kConj: case UnaryOp::kCbrt:
      return f || x;
    case UnaryOp::kSquare: return s || u || f || x;
    case UnaryOp::kCopy: return true;
  }
  return false;
}

// Output kind of a unary op on kind K.
constexpr ElemKind UnaryOut(UnaryOp op, ElemKind k) {
  switch (op) {
    case UnaryOp::kIsFinite: case UnaryOp::kIsInf: case UnaryOp::kIsPosInf: case UnaryOp::kIsNegInf:
      return ElemKind::kI1;
    case UnaryOp::kAbs: case UnaryOp::kReal: case UnaryOp::kImag:
      return k == ElemKind::kC64 ? ElemKind::kF32 : k == ElemKind::kC128 ? ElemKind::kF64 : k;
    default:
      return k;
  }
}

template <UnaryOp Op, typename T>
[[gnu::always_inline]] inline auto ApplyUnary(typename T::C x) {
  using C = typename T::C;
  constexpr Cat cat = T::kCat;
  if constexpr (Op == UnaryOp::kCopy) {
    return x;
  } else if constexpr (cat == Cat::kComplex) {
    using R = typename C::value_type;
    if constexpr (Op == UnaryOp::kAbs) return std::abs(x);
    else if constexpr (Op == UnaryOp::kReal) return x.real();
    else if constexpr (Op == UnaryOp::kImag) return x.imag();
    else if constexpr (Op == UnaryOp::kNegate) return -x;
    else if constexpr (Op == UnaryOp::kSign)
      return x == C(0) ? C(0) : InDouble(x, [](auto z) { return z / std::abs(z); });
    else if constexpr (Op == UnaryOp::kExp) return InDouble(x, [](auto z) { return std::exp(z); });
    else if constexpr (Op == UnaryOp::kExpm1) return InDouble(x, [](auto z) { return ComplexExpm1(z); });
    else if constexpr (Op == UnaryOp::kLog) return InDouble(x, [](auto z) { return std::log(z); });
    else if constexpr (Op == UnaryOp::kLog1p) return InDouble(x, [](auto z) { return ComplexLog1p(z); });
    else if constexpr (Op == UnaryOp::kLogistic)
      return InDouble(x, [](auto z) { return decltype(z)(1) / (decltype(z)(1) + std::exp(-z)); });
    else if constexpr (Op == UnaryOp::kSqrt) return InDouble(x, [](auto z) { return std::sqrt(z); });
    else if constexpr (Op == UnaryOp::kRsqrt)
      return InDouble(x, [](auto z) { return decltype(z)(1) / std::sqrt(z); });
    else if constexpr (Op == UnaryOp::kSin) return InDouble(x, [](auto z) { return std::sin(z); });
    else if constexpr (Op == UnaryOp::kCos) return InDouble(x, [](auto z) { return std::cos(z); });
    else if constexpr (Op == UnaryOp::kTan) return InDouble(x, [](auto z) { return std::tan(z); });
    else if constexpr (Op == UnaryOp::kTanh) return InDouble(x, [](auto z) { return std::tanh(z); });
    else if constexpr (Op == UnaryOp::kAcos) return InDouble(x, [](auto z) { return std::acos(z); });
    else if constexpr (Op == UnaryOp::kAcosh) return InDouble(x, [](auto z) { return std::acosh(z); });
    else if constexpr (Op == UnaryOp::kAsin) return InDouble(x, [](auto z) { return std::asin(z); });
    else if constexpr (Op == UnaryOp::kAsinh) return InDouble(x, [](auto z) { return std::asinh(z); });
    else if constexpr (Op == UnaryOp::kAtan) return InDouble(x, [](auto z) { return std::atan(z); });
    else if constexpr (Op == UnaryOp::kAtanh) return InDouble(x, [](auto z) { return std::atanh(z); });
    else if constexpr (Op == UnaryOp::kCosh) return InDouble(x, [](auto z) { return std::cosh(z); });
    else if constexpr (Op == UnaryOp::kSinh) return InDouble(x, [](auto z) { return std::sinh(z); });
    else if constexpr (Op == UnaryOp::kCbrt)
      return InDouble(x, [](auto z) {  // the principal root: |z|^(1/3) at a third of the angle
        using D = typename decltype(z)::value_type;
        if (z.imag() == 0 && !std::signbit(z.real())) return decltype(z)(std::cbrt(z.real()), z.imag());
        return std::polar(std::cbrt(std::abs(z)), std::arg(z) / D(3));
      });
    else if constexpr (Op == UnaryOp::kConj) return std::conj(x);
    else if constexpr (Op == UnaryOp::kSquare) return x * x;
    else return C(R(0));
  } else if constexpr (cat == Cat::kFloat) {
    if constexpr (Op == UnaryOp::kAbs) return std::fabs(x);
    else if constexpr (Op == UnaryOp::kNegate) return -x;
    else if constexpr (Op == UnaryOp::kSign) {
      if (std::isnan(x) || x == 0) return x;
      return x > 0 ? C(1) : C(-1);
    }
    else if constexpr (Op == UnaryOp::kCeil) return std::ceil(x);
    else if constexpr (Op == UnaryOp::kFloor) return std::floor(x);
    else if constexpr (Op == UnaryOp::kRoundAfz) return std::round(x);
    else if constexpr (Op == UnaryOp::kRoundEven) return std::nearbyint(x);
    else if constexpr (Op == UnaryOp::kExp && kHasFastMath<C>) return fast::Exp(x);
    else if constexpr (Op == UnaryOp::kExp) return std::exp(x);
    else if constexpr (Op == UnaryOp::kExpm1 && kHasFastMath<C>) return fast::Expm1(x);
    else if constexpr (Op == UnaryOp::kExpm1) return std::expm1(x);
    else if constexpr (Op == UnaryOp::kLog && kHasFastMath<C>) return fast::Log(x);
    else if constexpr (Op == UnaryOp::kLog) return std::log(x);
    else if constexpr (Op == UnaryOp::kLog1p && kHasFastMath<C>) return fast::Log1p(x);
    else if constexpr (Op == UnaryOp::kLog1p) return std::log1p(x);
    else if constexpr (Op == UnaryOp::kLogistic && kHasFastMath<C>) return fast::Logistic(x);
    else if constexpr (Op == UnaryOp::kLogistic) {
      // Written so that neither branch overflows: for x < 0, e^x / (1 + e^x).
      if (x >= 0) return C(1) / (C(1) + std::exp(-x));
      C e = std::exp(x);
      return e / (C(1) + e);
    }
    else if constexpr (Op == UnaryOp::kSqrt) return std::sqrt(x);
    else if constexpr (Op == UnaryOp::kRsqrt) return C(1) / std::sqrt(x);
    else if constexpr (Op == UnaryOp::kCbrt && std::is_same_v<C, float>) return fast::Cbrt(x);
    else if constexpr (Op == UnaryOp::kCbrt) return std::cbrt(x);
    else if constexpr (Op == UnaryOp::kSin) return std::sin(x);
    else if constexpr (Op == UnaryOp::kCos) return std::cos(x);
    else if constexpr (Op == UnaryOp::kTan) return std::tan(x);
    else if constexpr (Op == UnaryOp::kTanh && kHasFastMath<C>) return fast::Tanh(x);
    else if constexpr (Op == UnaryOp::kTanh) return std::tanh(x);
    else if constexpr (Op == UnaryOp::kIsFinite) return static_cast<bool>(std::isfinite(x));
    else if constexpr (Op == UnaryOp::kIsInf) return static_cast<bool>(std::isinf(x));
    else if constexpr (Op == UnaryOp::kIsPosInf) return std::isinf(x) && x > 0;
    else if constexpr (Op == UnaryOp::kIsNegInf) return std::isinf(x) && x < 0;
    else if constexpr (Op == UnaryOp::kReal) return x;
    else if constexpr (Op == UnaryOp::kImag) return C(0);
    else if constexpr (Op == UnaryOp::kAcos && std::is_same_v<C, float>) return fast::Acos(x);
    else if constexpr (Op == UnaryOp::kAcos) return std::acos(x);
    else if constexpr (Op == UnaryOp::kAcosh && std::is_same_v<C, float>) return fast::Acosh(x);
    else if constexpr (Op == UnaryOp::kAcosh) return std::acosh(x);
    else if constexpr (Op == UnaryOp::kAsin && std::is_same_v<C, float>) return fast::Asin(x);
    else if constexpr (Op == UnaryOp::kAsin) return std::asin(x);
    else if constexpr (Op == UnaryOp::kAsinh && std::is_same_v<C, float>) return fast::Asinh(x);
    else if constexpr (Op == UnaryOp::kAsinh) return std::asinh(x);
    else if constexpr (Op == UnaryOp::kAtan && std::is_same_v<C, float>) return fast::Atan(x);
    else if constexpr (Op == UnaryOp::kAtan) return std::atan(x);
    else if constexpr (Op == UnaryOp::kAtanh && std::is_same_v<C, float>) return fast::Atanh(x);
    else if constexpr (Op == UnaryOp::kAtanh) return std::atanh(x);
    else if constexpr (Op == UnaryOp::kCosh && std::is_same_v<C, float>) return fast::Cosh(x);
    else if constexpr (Op == UnaryOp::kCosh) return std::cosh(x);
    else if constexpr (Op == UnaryOp::kSinh && std::is_same_v<C, float>) return fast::Sinh(x);
    else if constexpr (Op == UnaryOp::kSinh) return std::sinh(x);
    else if constexpr (Op == UnaryOp::kErf && std::is_same_v<C, float>) return fast::Erf(x);
    else if constexpr (Op == UnaryOp::kErf) return std::erf(x);
    else if constexpr (Op == UnaryOp::kErfc) return std::erfc(x);
    else if constexpr (Op == UnaryOp::kErfInv && std::is_same_v<C, float>) return fast::ErfInv(x);
    else if constexpr (Op == UnaryOp::kErfInv) return static_cast<C>(ErfInv(x));
    else if constexpr (Op == UnaryOp::kLgamma && std::is_same_v<C, float>) return fast::Lgamma(x);
    else if constexpr (Op == UnaryOp::kLgamma) return std::lgamma(x);
    else if constexpr (Op == UnaryOp::kDigamma && std::is_same_v<C, float>) return fast::Digamma(x);
    else if constexpr (Op == UnaryOp::kDigamma) return static_cast<C>(Digamma(x));
    else if constexpr (Op == UnaryOp::kBesselI1e) return static_cast<C>(BesselI1e(x));
    else if constexpr (Op == UnaryOp::kSquare) return x * x;
    else if constexpr (Op == UnaryOp::kConj) return x;
    else return C(0);
  } else if constexpr (cat == Cat::kBool) {
    if constexpr (Op == UnaryOp::kNot) return !x;
    else return x;
  } else {
    // Integers (C may be wider than the logical width for sub-byte kinds).
    using U = std::make_unsigned_t<C>;
    constexpr int bits = T::kBits;
    constexpr U mask = bits >= static_cast<int>(sizeof(U) * 8) ? U(~U(0)) : U((U(1) << bits) - 1);
    if constexpr (Op == UnaryOp::kAbs) return x < 0 ? WrapSub(C(0), x) : x;
    else if constexpr (Op == UnaryOp::kNegate) return WrapSub(C(0), x);
    else if constexpr (Op == UnaryOp::kSign) return static_cast<C>(x > 0 ? 1 : (x < 0 ? -1 : 0));
    else if constexpr (Op == UnaryOp::kNot) return static_cast<C>(~x);
    else if constexpr (Op == UnaryOp::kPopcnt)
      return static_cast<C>(std::popcount(static_cast<U>(static_cast<U>(x) & mask)));
    else if constexpr (Op == UnaryOp::kClz) {
      U v = static_cast<U>(x) & mask;
      int lz = std::countl_zero(v) - static_cast<int>(sizeof(U) * 8 - bits);
      return static_cast<C>(lz);
    }
    else if constexpr (Op == UnaryOp::kSquare) return WrapMul(x, x);
    else return x;
  }
}

// ---- binary

template <typename T>
constexpr bool Supported(BinaryOp op) {
  constexpr Cat c = T::kCat;
  constexpr bool b = c == Cat::kBool, s = c == Cat::kSigned, u = c == Cat::kUnsigned,
                 f = c == Cat::kFloat, x = c == Cat::kComplex;
  switch (op) {
    case BinaryOp::kAdd: case BinaryOp::kMul: case BinaryOp::kMax: case BinaryOp::kMin:
      return true;
    case BinaryOp::kSub: case BinaryOp::kDiv: case BinaryOp::kPow: return s || u || f || x;
    case BinaryOp::kRem: return s || u || f;
    case BinaryOp::kAtan2: case BinaryOp::kNextAfter: case BinaryOp::kPolygamma:
    case BinaryOp::kZeta:
      return f;
    case BinaryOp::kAnd: case BinaryOp::kOr: case BinaryOp::kXor: return b || s || u;
    case BinaryOp::kShl: case BinaryOp::kShrA: case BinaryOp::kShrL: case BinaryOp::kMulHi: return s || u;
    case BinaryOp::kComplex: return f;
  }
  return false;
}

template <BinaryOp Op, typename T>
[[gnu::always_inline]] inline auto ApplyBinary(typename T::C a, typename T::C b) {
  using C = typename T::C;
  constexpr Cat cat = T::kCat;
  if constexpr (cat == Cat::kBool) {
    if constexpr (Op == BinaryOp::kAdd || Op == BinaryOp::kOr || Op == BinaryOp::kMax) return a || b;
    else if constexpr (Op == BinaryOp::kMul || Op == BinaryOp::kAnd || Op == BinaryOp::kMin) return a && b;
    else if constexpr (Op == BinaryOp::kXor) return a != b;
    else return a;
  } else if constexpr (cat == Cat::kComplex) {
    if constexpr (Op == BinaryOp::kAdd) return a + b;
    else if constexpr (Op == BinaryOp::kSub) return a - b;
    else if constexpr (Op == BinaryOp::kMul) return a * b;
    else if constexpr (Op == BinaryOp::kDiv) return InDouble(a, [b](auto z) { return z / decltype(z)(b); });
    else if constexpr (Op == BinaryOp::kPow)
      return InDouble(a, [b](auto z) { return std::pow(z, decltype(z)(b)); });
    else if constexpr (Op == BinaryOp::kMax || Op == BinaryOp::kMin) {
      // Lexicographic on (real, imaginary).
      bool less = a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
      return (Op == BinaryOp::kMax) == less ? b : a;
    }
    else return a;
  } else if constexpr (cat == Cat::kFloat) {
    if constexpr (Op == BinaryOp::kAdd) return a + b;
    else if constexpr (Op == BinaryOp::kSub) return a - b;
    else if constexpr (Op == BinaryOp::kMul) return a * b;
    else if constexpr (Op == BinaryOp::kDiv) return a / b;
    else if constexpr (Op == BinaryOp::kRem) return std::fmod(a, b);
    else if constexpr (Op == BinaryOp::kPow) return std::pow(a, b);
    else if constexpr (Op == BinaryOp::kAtan2 && std::is_same_v<C, float>) return fast::Atan2(a, b);
    else if constexpr (Op == BinaryOp::kAtan2) return std::atan2(a, b);
    else if constexpr (Op == BinaryOp::kNextAfter) return std::nextafter(a, b);
    else if constexpr (Op == BinaryOp::kPolygamma) return static_cast<C>(Polygamma(a, b));
    else if constexpr (Op == BinaryOp::kZeta) return static_cast<C>(Zeta(a, b));
    else if constexpr (Op == BinaryOp::kMax || Op == BinaryOp::kMin) {
      // Branch-free, so that the loops vectorise (with branches the f64 copy stayed scalar: 20x
      // slower than f32). Equal operands differ at most in the sign of zero: max(-0, +0) = +0 is
      // the AND of their bits, min(-0, +0) = -0 the OR. Either operand NaN gives NaN.
      using Bits = std::conditional_t<sizeof(C) == 8, uint64_t, uint32_t>;
      const Bits ab = std::bit_cast<Bits>(a), bb = std::bit_cast<Bits>(b);
      const C same = std::bit_cast<C>(Op == BinaryOp::kMax ? Bits(ab & bb) : Bits(ab | bb));
      C r = (Op == BinaryOp::kMax ? a > b : a < b) ? a : b;
      r = a == b ? same : r;
      return (a != a || b != b) ? std::numeric_limits<C>::quiet_NaN() : r;
    }
    else if constexpr (Op == BinaryOp::kComplex) return std::complex<C>(a, b);
    else return a;
  } else {
    using U = std::make_unsigned_t<C>;
    constexpr int bits = T::kBits;
    constexpr bool is_signed = cat == Cat::kSigned;
    constexpr U mask = bits >= static_cast<int>(sizeof(U) * 8) ? U(~U(0)) : U((U(1) << bits) - 1);
    constexpr int64_t min = IntMin<T>();
    if constexpr (Op == BinaryOp::kAdd) return WrapAdd(a, b);
    else if constexpr (Op == BinaryOp::kSub) return WrapSub(a, b);
    else if constexpr (Op == BinaryOp::kMul) return WrapMul(a, b);
    else if constexpr (Op == BinaryOp::kDiv) {
      if (b == 0) return static_cast<C>(-1);
      if constexpr (is_signed) {
        if (static_cast<int64_t>(a) == min && b == static_cast<C>(-1)) return a;
      }
      return static_cast<C>(a / b);
    }
    else if constexpr (Op == BinaryOp::kRem) {
      if (b == 0) return a;
      if constexpr (is_signed) {
        if (static_cast<int64_t>(a) == min && b == static_cast<C>(-1)) return C(0);
      }
      return static_cast<C>(a % b);
    }
    else if constexpr (Op == BinaryOp::kPow) {
      if constexpr (is_signed) {
        if (b < 0) return static_cast<C>(a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0));
      }
      C r = 1, base = a;
      std::make_unsigned_t<C> e = static_cast<std::make_unsigned_t<C>>(b);
      while (e) {
        if (e & 1) r = WrapMul(r, base);
        base = WrapMul(base, base);
        e >>= 1;
      }
      return r;
    }
    else if constexpr (Op == BinaryOp::kMax) return a > b ? a : b;
    else if constexpr (Op == BinaryOp::kMin) return a < b ? a : b;
    else if constexpr (Op == BinaryOp::kAnd) return static_cast<C>(a & b);
    else if constexpr (Op == BinaryOp::kOr) return static_cast<C>(a | b);
    else if constexpr (Op == BinaryOp::kXor) return static_cast<C>(a ^ b);
    else if constexpr (Op == BinaryOp::kMulHi) {
      // The high half of the double-width product (chlo.mulhi), signed or unsigned by type.
      if constexpr (bits == 64) {
        using Wide = std::conditional_t<is_signed, __int128, unsigned __int128>;
        return static_cast<C>(static_cast<Wide>(a) * static_cast<Wide>(b) >> 64);
      } else {
        using Wide = std::conditional_t<is_signed, int64_t, uint64_t>;
        const Wide p = static_cast<Wide>(a) * static_cast<Wide>(b);
        return static_cast<C>(p >> bits);  // arithmetic shift for signed products
      }
    }
    else if constexpr (Op == BinaryOp::kShl) {
      U sh = static_cast<U>(b);
      if ((is_signed && b < 0) || sh >= static_cast<U>(bits)) return C(0);
      return static_cast<C>(static_cast<U>(a) << sh);
    }
    else if constexpr (Op == BinaryOp::kShrL) {
      U sh = static_cast<U>(b);
      if ((is_signed && b < 0) || sh >= static_cast<U>(bits)) return C(0);
      return static_cast<C>((static_cast<U>(a) & mask) >> sh);
    }
    else if constexpr (Op == BinaryOp::kShrA) {
      // The bit pattern read as signed, shifted with sign fill.
      using S = std::make_signed_t<C>;
      S sa = static_cast<S>(a);
      if constexpr (!is_signed) {
        if constexpr (bits < static_cast<int>(sizeof(C) * 8)) {
          if (sa & (S(1) << (bits - 1))) sa = static_cast<S>(sa | static_cast<S>(~mask));
        }
      }
      U sh = static_cast<U>(b);
      if ((is_signed && b < 0) || sh >= static_cast<U>(bits)) return static_cast<C>(sa < 0 ? -1 : 0);
      return static_cast<C>(sa >> sh);
    }
    else return a;
  }
}

}  // namespace openpjrt::cpu::ops
