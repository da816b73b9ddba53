// See fused_vec.h.
#include "src/cpu/kernels/fused_vec.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "src/cpu/exec/isa.h"

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
#include "src/cpu/math/fast_math_avx512_inl.h"
#endif

namespace openpjrt::cpu {

namespace {
bool Int32(ElemKind in, ElemKind out) { return in == out && (in == ElemKind::kI32 || in == ElemKind::kU32); }
}  // namespace

VecOp VecUnaryOf(UnaryOp op, ElemKind in, ElemKind out) {
  if (Int32(in, out)) {
    if (op == UnaryOp::kNot) return VecOp::kNot;
    if (op == UnaryOp::kNegate) return VecOp::kINeg;
    return VecOp::kNone;
  }
  if (in != ElemKind::kF32 || out != ElemKind::kF32) return VecOp::kNone;
  switch (op) {
    case UnaryOp::kNegate: return VecOp::kNeg;
    case UnaryOp::kAbs: return VecOp::kAbs;
    case UnaryOp::kSquare: return VecOp::kSquare;
    case UnaryOp::kSqrt: return VecOp::kSqrt;
    case UnaryOp::kRsqrt: return VecOp::kRsqrt;
    case UnaryOp::kFloor: return VecOp::kFloor;
    case UnaryOp::kCeil: return VecOp::kCeil;
    case UnaryOp::kRoundEven: return VecOp::kRoundEven;
    case UnaryOp::kExp: return VecOp::kExp;
    case UnaryOp::kLog: return VecOp::kLog;
    case UnaryOp::kTanh: return VecOp::kTanh;
    case UnaryOp::kLogistic: return VecOp::kLogistic;
    case UnaryOp::kErf: return VecOp::kErf;
    default: return VecOp::kNone;
  }
}

VecOp VecBinaryOf(BinaryOp op, ElemKind in, ElemKind out) {
  if (Int32(in, out)) {
    switch (op) {
      case BinaryOp::kAdd: return VecOp::kIAdd;
      case BinaryOp::kSub: return VecOp::kISub;
      case BinaryOp::kMul: return VecOp::kIMul;
      case BinaryOp::kAnd: return VecOp::kAnd;
      case BinaryOp::kOr: return VecOp::kOr;
      case BinaryOp::kXor: return VecOp::kXor;
      case BinaryOp::kShl: return VecOp::kShl;
      case BinaryOp::kShrL: return VecOp::kShrL;
      case BinaryOp::kShrA: return VecOp::kShrA;
      default: return VecOp::kNone;
    }
  }
  if (in != ElemKind::kF32 || out != ElemKind::kF32) return VecOp::kNone;
  switch (op) {
    case BinaryOp::kAdd: return VecOp::kAdd;
    case BinaryOp::kSub: return VecOp::kSub;
    case BinaryOp::kMul: return VecOp::kMul;
    case BinaryOp::kDiv: return VecOp::kDiv;
    case BinaryOp::kMax: return VecOp::kMax;
    case BinaryOp::kMin: return VecOp::kMin;
    default: return VecOp::kNone;
  }
}

namespace {
std::atomic<bool> vec_enabled{true};
}  // namespace

void EnableVecRunner(bool on) { vec_enabled.store(on, std::memory_order_relaxed); }

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
namespace {

using namespace fast::v512;

constexpr int kLanes = 8;  // vectors in the accumulator: 128 floats

// max and min as kernels_elementwise.cc defines them: equal operands (which differ at most in
// the sign of zero) give the AND (max) or OR (min) of their bits, a NaN operand the quiet NaN.
template <bool kIsMax>
OPJ_MATH512 __m512 MaxMin(__m512 a, __m512 b) {
  __m512 r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, kIsMax ? _CMP_GT_OQ : _CMP_LT_OQ), b, a);
  r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ), r, kIsMax ? _mm512_and_ps(a, b) : _mm512_or_ps(a, b));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q), r,
                              _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
}

// acc[j] = EXPR for each vector j of the accumulator (a macro: lambdas do not take on the
// function's target attributes, so intrinsics would not inline into them).
#define OPJ_EACH(EXPR)                                       \
  _Pragma("GCC unroll 8") for (int j = 0; j < kLanes; ++j) { \
    acc[j] = (EXPR);                                         \
  }
// The same for the long fast_math bodies, four vectors at a time: the empty asm makes each group's
// results final before the next group starts, so that the compiler does not interleave all eight
// bodies and run out of registers (spilling their temporaries to the stack).
#define OPJ_EACH_MATH(EXPR)                                                 \
  _Pragma("GCC unroll 2") for (int h = 0; h < kLanes; h += 4) {           \
    _Pragma("GCC unroll 4") for (int j = h; j < h + 4; ++j) acc[j] = (EXPR); \
    _Pragma("GCC unroll 4") for (int j = h; j < h + 4; ++j) asm("" : "+v"(acc[j])); \
  }

// Vector j of the memory operand p (masked in the tail chunk).
#define OPJ_LOAD(J) (kTail ? _mm512_maskz_loadu_ps(mask[J], p + 16 * (J)) : _mm512_loadu_ps(p + 16 * (J)))
// An integer intrinsic on the bits of two float vectors (32-bit integer runs share the float
// accumulator: loads, stores and splats only move bits). The variable shifts give 0 (srav: the
// sign) for counts of 32 or more, read as unsigned: StableHLO's rule, negative counts included.
#define OPJ_INT(F, X, Y) _mm512_castsi512_ps(F(_mm512_castps_si512(X), _mm512_castps_si512(Y)))
// acc[j] = X op Y for the step's binary op.
#define OPJ_BINARY(X, Y)                                           \
  switch (s.op) {                                                  \
    case VecOp::kAdd: OPJ_EACH(_mm512_add_ps(X, Y)); break;        \
    case VecOp::kSub: OPJ_EACH(_mm512_sub_ps(X, Y)); break;        \
    case VecOp::kMul: OPJ_EACH(_mm512_mul_ps(X, Y)); break;        \
    case VecOp::kDiv: OPJ_EACH(_mm512_div_ps(X, Y)); break;        \
    case VecOp::kMax: OPJ_EACH(MaxMin<true>(X, Y)); break;         \
    case VecOp::kMin: OPJ_EACH(MaxMin<false>(X, Y)); break;        \
    case VecOp::kIAdd: OPJ_EACH(OPJ_INT(_mm512_add_epi32, X, Y)); break; \
    case VecOp::kISub: OPJ_EACH(OPJ_INT(_mm512_sub_epi32, X, Y)); break; \
    case VecOp::kIMul: OPJ_EACH(OPJ_INT(_mm512_mullo_epi32, X, Y)); break; \
    case VecOp::kAnd: OPJ_EACH(OPJ_INT(_mm512_and_si512, X, Y)); break; \
    case VecOp::kOr: OPJ_EACH(OPJ_INT(_mm512_or_si512, X, Y)); break; \
    case VecOp::kXor: OPJ_EACH(OPJ_INT(_mm512_xor_si512, X, Y)); break; \
    case VecOp::kShl: OPJ_EACH(OPJ_INT(_mm512_sllv_epi32, X, Y)); break; \
    case VecOp::kShrL: OPJ_EACH(OPJ_INT(_mm512_srlv_epi32, X, Y)); break; \
    case VecOp::kShrA: OPJ_EACH(OPJ_INT(_mm512_srav_epi32, X, Y)); break; \
    default: break;                                                \
  }

// One chunk of 16 * kLanes elements from `offset`; kTail: only `live` of them (masked loads and
// stores, so nothing past the block is touched). Each step switches on its op once for the whole
// accumulator.
template <bool kTail>
OPJ_TARGET_512 __attribute__((always_inline)) inline void Chunk(const VecStep* steps, size_t num_steps,
                                                                float* const* ptrs, int64_t offset, int64_t live) {
  __mmask16 mask[kLanes];
  _Pragma("GCC unroll 8") for (int j = 0; j < kLanes; ++j) {
    const int64_t n = kTail ? std::max<int64_t>(0, std::min<int64_t>(16, live - 16 * j)) : 16;
    mask[j] = static_cast<__mmask16>((1u << n) - 1);
  }
  __m512 acc[kLanes];
  OPJ_EACH(_mm512_setzero_ps());
  for (size_t i = 0; i < num_steps; ++i) {
    const VecStep& s = steps[i];
    const float* p = s.form == VecStep::kMemory ? ptrs[s.ptr] + offset : nullptr;
    switch (s.kind) {
      case VecStep::kLoad:
        if (p) {
          OPJ_EACH(OPJ_LOAD(j));
        } else {
          OPJ_EACH(Splat(s.scalar));
        }
        break;
      case VecStep::kUnary:
        switch (s.op) {
          case VecOp::kNeg: OPJ_EACH(_mm512_xor_ps(acc[j], Splat(-0.0f))); break;
          case VecOp::kAbs: OPJ_EACH(fast::v512::Abs(acc[j])); break;
          case VecOp::kSquare: OPJ_EACH(_mm512_mul_ps(acc[j], acc[j])); break;
          case VecOp::kSqrt: OPJ_EACH(_mm512_sqrt_ps(acc[j])); break;
          case VecOp::kRsqrt: OPJ_EACH(_mm512_div_ps(Splat(1.0f), _mm512_sqrt_ps(acc[j]))); break;
          case VecOp::kFloor:
            OPJ_EACH(_mm512_roundscale_ps(acc[j], _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
            break;
          case VecOp::kCeil:
            OPJ_EACH(_mm512_roundscale_ps(acc[j], _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
            break;
          case VecOp::kRoundEven:
            OPJ_EACH(_mm512_roundscale_ps(acc[j], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            break;
          case VecOp::kExp: OPJ_EACH_MATH(fast::v512::Exp(acc[j])); break;
          case VecOp::kLog: OPJ_EACH_MATH(fast::v512::Log(acc[j])); break;
          case VecOp::kTanh: OPJ_EACH_MATH(fast::v512::Tanh(acc[j])); break;
          case VecOp::kLogistic: OPJ_EACH_MATH(fast::v512::Logistic(acc[j])); break;
          case VecOp::kErf: OPJ_EACH_MATH(fast::v512::Erf(acc[j])); break;
          case VecOp::kNot:
            OPJ_EACH(OPJ_INT(_mm512_xor_si512, acc[j], _mm512_castsi512_ps(_mm512_set1_epi32(-1))));
            break;
          case VecOp::kINeg: OPJ_EACH(OPJ_INT(_mm512_sub_epi32, _mm512_setzero_ps(), acc[j])); break;
          case VecOp::kClamp: {  // x < lo ? lo : x, then m > hi ? hi : m; a NaN bound gives NaN
            const __m512 lo = Splat(s.scalar), hi = Splat(s.scalar2);
            if (s.scalar != s.scalar || s.scalar2 != s.scalar2) {
              OPJ_EACH(_mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
            } else {
              OPJ_EACH(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(acc[j], lo, _CMP_LT_OQ), acc[j], lo));
              OPJ_EACH(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(acc[j], hi, _CMP_GT_OQ), acc[j], hi));
            }
            break;
          }
          default: break;
        }
        break;
      case VecStep::kBinary: {
        // The other operand straight from memory (folded into the arithmetic instruction), a
        // register or the accumulator itself; one switch on the op per form and order.
        const __m512 scalar = Splat(s.scalar);
        if (p && !s.reversed) {
          OPJ_BINARY(acc[j], OPJ_LOAD(j));
        } else if (p) {
          OPJ_BINARY(OPJ_LOAD(j), acc[j]);
        } else if (s.form == VecStep::kSelf) {
          OPJ_BINARY(acc[j], acc[j]);
        } else if (!s.reversed) {
          OPJ_BINARY(acc[j], scalar);
        } else {
          OPJ_BINARY(scalar, acc[j]);
        }
        break;
      }
      case VecStep::kStore:
      case VecStep::kStream: {
        float* out = ptrs[s.ptr] + offset;
        if (kTail) {
          _Pragma("GCC unroll 8") for (int j = 0; j < kLanes; ++j) _mm512_mask_storeu_ps(out + 16 * j, mask[j], acc[j]);
        } else if (s.kind == VecStep::kStream && reinterpret_cast<uintptr_t>(out) % 64 == 0) {
          // Two 32-byte non-temporal stores per vector: on Zen 5 the tanh chain of
          // bench/ratios.py ran 0.78 (2 threads) and 0.69 (1 thread) of its time with one
          // 64-byte store (two plugin builds, alternating rounds in one process).
          _Pragma("GCC unroll 8") for (int j = 0; j < kLanes; ++j) {
            _mm256_stream_ps(out + 16 * j, _mm512_castps512_ps256(acc[j]));
            _mm256_stream_ps(out + 16 * j + 8, _mm512_extractf32x8_ps(acc[j], 1));
          }
        } else {
          _Pragma("GCC unroll 8") for (int j = 0; j < kLanes; ++j) _mm512_storeu_ps(out + 16 * j, acc[j]);
        }
        break;
      }
    }
  }
}
#undef OPJ_EACH
#undef OPJ_EACH_MATH
#undef OPJ_LOAD
#undef OPJ_BINARY
#undef OPJ_INT

OPJ_TARGET_512 void Run512(const VecStep* steps, size_t num_steps, float* const* ptrs, int64_t count) {
  constexpr int64_t kChunk = 16 * kLanes;
  int64_t offset = 0;
  for (; offset + kChunk <= count; offset += kChunk) Chunk<false>(steps, num_steps, ptrs, offset, kChunk);
  if (offset < count) Chunk<true>(steps, num_steps, ptrs, offset, count - offset);
}

}  // namespace

VecRunFn VecRunner() {
  if (!vec_enabled.load(std::memory_order_relaxed)) return nullptr;
  static const VecRunFn fn = [] {
    const char* blocks = std::getenv("OPENPJRT_FUSED_BLOCKS");
    if (blocks && std::strcmp(blocks, "1") == 0) return VecRunFn{nullptr};
    return IsaLevel() == 2 ? &Run512 : VecRunFn{nullptr};
  }();
  return fn;
}
#else
VecRunFn VecRunner() { return nullptr; }
#endif

}  // namespace openpjrt::cpu
