// Room math/: scalar and vector math functions with stated accuracy.
//
// Contract:
//   * fast_math.h          f32 exp, log, tanh, logistic and friends without branches or libm
//                          calls, so elementwise loops vectorize; fused multiply-adds written
//                          out so every instruction-set clone gives the same bits;
//   * fast_math_avx512.h   their AVX-512 forms for the hottest loops;
//   * special_functions.h  lgamma, digamma, erf_inv, zeta and the other special functions of
//                          CHLO in double precision.
// math_accuracy_test.cc and isa_test.cc hold each function to its ulp bound over sweeps that
// include the edges. Depends on: exec/ (isa.h) only; used by kernels/.
#pragma once

#include "src/cpu/math/fast_math.h"
#include "src/cpu/math/special_functions.h"
