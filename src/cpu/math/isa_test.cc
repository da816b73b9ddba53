// The instruction-set variants of isa.h give the same bits: the vectorised f32 and f64 math
// functions and the f16/bf16 conversions, run through the AVX-512, AVX2 and baseline copies this
// CPU supports, over every 997th f32 bit pattern of both signs and 300 values in every f64 binade
// (a NaN may come out with another sign or payload:
// which operand's NaN an instruction propagates is not fixed). Built with the flags of the kernel files
// (-ffp-contract=off: no multiply-add is fused unless written out).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/math/fast_math.h"
#include "src/cpu/math/fast_math_avx512.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/kernels/test_sweeps.h"

namespace openpjrt::cpu {
namespace {

template <typename T, T (*F)(T)>
[[gnu::always_inline]] inline void MathLoop(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = F(x[i]);
}
[[gnu::always_inline]] inline void HalfLoop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = HalfToFloat(FloatToHalf(x[i]));
}
[[gnu::always_inline]] inline void Bf16Loop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(FloatToBf16(x[i])) << 16;
    std::memcpy(&y[i], &u, 4);
  }
}

template <auto Body, typename T>
void ExpectSameBitsAtEveryLevel(const char* name, const std::vector<T>& x) {
  using Fn = void (*)(const T*, T*, int64_t);
  std::vector<Fn> variants = {&isa_internal::AtBase<Body, const T*, T*, int64_t>,
                             &isa_internal::AtOld<Body, const T*, T*, int64_t>};
  if (IsaLevel() >= 1) variants.push_back(&isa_internal::At256<Body, const T*, T*, int64_t>);
  if (IsaLevel() >= 2) variants.push_back(&isa_internal::At512<Body, const T*, T*, int64_t>);
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<T> want(x.size()), got(x.size());
  variants[0](x.data(), want.data(), n);
  for (size_t v = 1; v < variants.size(); ++v) {
    variants[v](x.data(), got.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(std::memcmp(&got[i], &want[i], sizeof(T)) == 0 || (std::isnan(got[i]) && std::isnan(want[i])))
          << name << " level " << v << " differs from the baseline at x = " << x[i] << ": " << got[i] << " vs " << want[i];
  }
}

TEST(IsaVariants, GiveTheSameBitsAsTheBaseline) {
  const std::vector<float> x = testing::F32Sweep(997, {65504.0f, 65520.0f, 6.1e-5f, 5.96e-8f});
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Exp>>("exp", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Log>>("log", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Tanh>>("tanh", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Logistic>>("logistic", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Erf>>("erf", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Expm1>>("expm1", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Log1p>>("log1p", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Sin>>("sin", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Cos>>("cos", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Tan>>("tan", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::ErfInv>>("erf_inv", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Sinh>>("sinh", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Cosh>>("cosh", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Asinh>>("asinh", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Acosh>>("acosh", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Atanh>>("atanh", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Atan>>("atan", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Asin>>("asin", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Acos>>("acos", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Lgamma>>("lgamma", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Digamma>>("digamma", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<float, &fast::Cbrt>>("cbrt", x);
  ExpectSameBitsAtEveryLevel<&HalfLoop>("f16 round trip", x);
  ExpectSameBitsAtEveryLevel<&Bf16Loop>("bf16 rounding", x);
  const std::vector<double> d = testing::F64Sweep(300, {709.78, 709.7827128933841, -745.1332191019412, 0.55, 20.0});
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Exp>>("f64 exp", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Log>>("f64 log", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Tanh>>("f64 tanh", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Logistic>>("f64 logistic", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Expm1>>("f64 expm1", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Log1p>>("f64 log1p", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Sin>>("f64 sin", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Cos>>("f64 cos", d);
  ExpectSameBitsAtEveryLevel<&MathLoop<double, &fast::Tan>>("f64 tan", d);
  if (IsaLevel() == 0) GTEST_SKIP() << "only the baseline copy runs in this build or on this CPU";
}

// The intrinsic AVX-512 loops of fast_math_avx512.cc against the scalar definitions' baseline
// copy, over the sweep and over lengths that leave masked tails (y = x in place, too).
template <float (*F)(float)>
void ExpectLoopMatchesScalar(const char* name, fast::F32Loop loop, const std::vector<float>& x) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> want(x.size()), got(x.size());
  isa_internal::AtBase<&MathLoop<float, F>, const float*, float*, int64_t>(x.data(), want.data(), n);
  for (int64_t len : {n, int64_t{1}, int64_t{15}, int64_t{17}, int64_t{63}, int64_t{64}, int64_t{79}}) {
    std::fill(got.begin(), got.end(), 0.0f);
    loop(x.data(), got.data(), len);
    for (int64_t i = 0; i < n; ++i) {
      const float expect = i < len ? want[i] : 0.0f;
      ASSERT_TRUE(std::memcmp(&got[i], &expect, 4) == 0 || (std::isnan(got[i]) && std::isnan(expect)))
          << name << " (n = " << len << ") differs from the scalar definition at x = " << x[i] << ": "
          << got[i] << " vs " << expect;
    }
  }
  std::vector<float> inplace(x);
  loop(inplace.data(), inplace.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_TRUE(std::memcmp(&inplace[i], &want[i], 4) == 0 || (std::isnan(inplace[i]) && std::isnan(want[i])))
        << name << " in place differs at x = " << x[i];
}

TEST(IsaVariants, Avx512LoopsGiveTheScalarBits) {
  if (!fast::Avx512Exp()) GTEST_SKIP() << "no AVX-512 loops in this build or on this CPU";
  std::vector<float> x = testing::F32Sweep(997, {65504.0f, 88.72f, 88.73f, 89.0f, -103.9f, -104.0f, -87.3f,
                                                 0.8f, 0.79999995f, 9.5f, 9.6f, -0.0f, 1.41421356f,
                                                 1.4142137f, 1.17549435e-38f, 1.1754942e-38f, 1.0f,
                                                 0.99999994f, 4.0f, 3.9999998f, 0.34657359f, 0.3465736f,
                                                 0.6931472f, 0.69314712f, 9.01f, -9.02f, 1e-30f});
  ExpectLoopMatchesScalar<&fast::Exp>("exp", fast::Avx512Exp(), x);
  ExpectLoopMatchesScalar<&fast::Tanh>("tanh", fast::Avx512Tanh(), x);
  ExpectLoopMatchesScalar<&fast::Logistic<float>>("logistic", fast::Avx512Logistic(), x);
  ExpectLoopMatchesScalar<&fast::Log>("log", fast::Avx512Log(), x);
  ExpectLoopMatchesScalar<&fast::Erf>("erf", fast::Avx512Erf(), x);
}

}  // namespace
}  // namespace openpjrt::cpu
