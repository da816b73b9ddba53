// AVX-512 loops for the hottest f32 functions of fast_math.h (exp, tanh, logistic, log, erf), written with
// intrinsics. GCC vectorises the scalar definitions' clamps and selects (x < lo ? lo : x) into
// chains of mask-register compares and blends; here a clamp is one vmaxps/vminps, whose NaN rule
// (the second operand comes back) is the ternary's, and four vectors are in flight per step.
// Each loop performs exactly the scalar function's operations in its order, so the bits are the
// baseline's (isa_test.cc checks them over a sweep of every sign and binade).
//
// Measured on 1 Ki f32 from L1, one core of the AMD EPYC (Zen 5) this was tuned on, per 16 values:
// exp 3.85 -> 2.50 ns, tanh 4.51 -> 4.0 ns.
#pragma once

#include <cstdint>

namespace openpjrt::cpu::fast {

using F32Loop = void (*)(const void* x, void* y, int64_t n);

// The loop for the function over n f32 values (y may be x), or null where this build has no
// AVX-512 copies or this CPU lacks AVX-512 (callers then use the scalar definition).
F32Loop Avx512Exp();
F32Loop Avx512Tanh();
F32Loop Avx512Logistic();
F32Loop Avx512Log();
F32Loop Avx512Erf();

}  // namespace openpjrt::cpu::fast
