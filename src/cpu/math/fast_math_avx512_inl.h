// The AVX-512 f32 functions of fast_math.h as always-inlined vector bodies, shared by the loops of
// fast_math_avx512.cc and the register evaluator of fused runs (fused_vec.cc). Every step mirrors
// fast_math.h: Fma is _mm512_fmadd_ps, MaxOf(x, lo) is _mm512_max_ps(lo, x) and MinOf(x, hi) is
// _mm512_min_ps(hi, x) (both return x when x is NaN), a ternary on a comparison is a blend on its
// mask. Include only where OPENPJRT_VECTOR_CLONES is defined on x86-64.
#pragma once

#include <immintrin.h>

#include "src/cpu/math/fast_math.h"
#include "src/cpu/exec/isa.h"

namespace openpjrt::cpu::fast::v512 {

#define OPJ_MATH512 OPJ_TARGET_512 __attribute__((always_inline)) inline

OPJ_MATH512 __m512 Splat(float v) { return _mm512_set1_ps(v); }
OPJ_MATH512 __m512 Fma(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
template <size_t N>
OPJ_MATH512 __m512 Horner(__m512 x, const float (&c)[N]) {
  __m512 p = Splat(c[0]);
#pragma GCC unroll 8
  for (size_t i = 1; i < N; ++i) p = Fma(p, x, Splat(c[i]));
  return p;
}
OPJ_MATH512 __m512 Abs(__m512 x) { return _mm512_andnot_ps(Splat(-0.0f), x); }
OPJ_MATH512 __m512 CopySign(__m512 magnitude, __m512 sign) {  // vpternlogd: sign bit ? sign : magnitude
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(Splat(-0.0f)), _mm512_castps_si512(sign),
                                                       _mm512_castps_si512(magnitude), 0xCA));
}

// e * 2^n in one vscalefps, which rounds once, correctly, into the subnormals and to infinity: the
// same bits as fast_math.h's two half-steps (each exact but the last), in one instruction instead
// of seven.
OPJ_MATH512 __m512 Exp(__m512 x) {
  x = _mm512_min_ps(Splat(kExpMax), _mm512_max_ps(Splat(kExpMin), x));
  const __m512 t = Fma(x, Splat(kExpLog2e), Splat(kExpRound));
  const __m512 n = _mm512_sub_ps(t, Splat(kExpRound));
  const __m512 minus_n = _mm512_xor_ps(n, Splat(-0.0f));
  const __m512 r = Fma(minus_n, Splat(kExpLn2Lo), Fma(minus_n, Splat(kExpLn2Hi), x));
  const __m512 e = _mm512_add_ps(Splat(1.0f), Fma(_mm512_mul_ps(r, r), Horner(r, kExpQF), r));
  return _mm512_scalef_ps(e, n);
}

OPJ_MATH512 __m512 Tanh(__m512 x) {
  const __m512 a = _mm512_min_ps(Splat(kTanhClamp), Abs(x));
  const __m512 y = _mm512_add_ps(a, a);
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(y, Splat(kExpLog2e)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m512 r = _mm512_fnmadd_ps(n, Splat(kExpLn2Lo), _mm512_fnmadd_ps(n, Splat(kExpLn2Hi), y));
  const __m512 m = Fma(_mm512_mul_ps(r, r), Horner(r, kTanhQ), r);
  const __m512 s = _mm512_scalef_ps(Splat(1.0f), n);  // 2^n
  const __m512 t = Fma(m, s, _mm512_sub_ps(s, Splat(1.0f)));
  return CopySign(_mm512_div_ps(t, _mm512_add_ps(t, Splat(2.0f))), x);
}

OPJ_MATH512 __m512 Erf(__m512 x) {
  const __m512 a = _mm512_min_ps(Splat(4.0f), Abs(x));
  const __m512 u = _mm512_mul_ps(a, a);
  const __m512 small = Fma(a, Horner(u, kErfP), a);
  const __m512 g = Horner(_mm512_sub_ps(a, Splat(2.5f)), kErfG);
  const __m512 u_lo = _mm512_fmsub_ps(a, a, u);  // Fma(a, a, -u): -u is exact, so one rounding alike
  const __m512 big = _mm512_sub_ps(Splat(1.0f), Exp(_mm512_sub_ps(_mm512_sub_ps(g, u), u_lo)));
  return CopySign(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, Splat(1.0f), _CMP_LT_OQ), big, small), x);
}

OPJ_MATH512 __m512 Logistic(__m512 x) {
  const __m512 e = Exp(_mm512_or_ps(x, Splat(-0.0f)));  // -|x|
  const __m512 d = _mm512_add_ps(Splat(1.0f), e);
  const __mmask16 non_negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
  const __m512 r = _mm512_div_ps(_mm512_mask_blend_ps(non_negative, e, Splat(1.0f)), d);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), r, x);
}

// vgetexpps and vgetmantps read k and m = |x| / 2^k in [1, 2) straight from x, subnormals
// included: the values fast_math.h's bit operations and its scaling of subnormals give.
OPJ_MATH512 __m512 Log(__m512 x) {
  __m512 kf = _mm512_getexp_ps(x);
  __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
  const __mmask16 high = _mm512_cmp_ps_mask(m, Splat(kLogSqrt2), _CMP_GT_OQ);
  m = _mm512_mask_mul_ps(m, high, m, Splat(0.5f));
  kf = _mm512_mask_add_ps(kf, high, kf, Splat(1.0f));
  const __m512 f = _mm512_sub_ps(m, Splat(1.0f));
  const __m512 p = Horner(f, kLogP);
  const __m512 half_f2 = _mm512_mul_ps(_mm512_mul_ps(Splat(0.5f), f), f);
  const __m512 tail = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(f, f), f), p);
  __m512 r = Fma(kf, Splat(kExpLn2Hi), _mm512_add_ps(f, Fma(kf, Splat(kExpLn2Lo), _mm512_sub_ps(tail, half_f2))));
  const __m512 inf = Splat(__builtin_inff());
  r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), r, Splat(-__builtin_inff()));
  r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), r, Splat(__builtin_nanf("")));
  r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, inf, _CMP_EQ_OQ), r, inf);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), r, x);
}

}  // namespace openpjrt::cpu::fast::v512
