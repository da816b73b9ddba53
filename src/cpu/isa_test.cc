// The instruction-set variants of isa.h give the same bits: the vectorised f32 math functions and
// the f16/bf16 conversions, run through the AVX-512, AVX2 and baseline copies this CPU supports,
// over every 997th f32 bit pattern of both signs (a NaN may come out with another sign or payload:
// which operand's NaN an instruction propagates is not fixed). Built with the flags of the kernel files
// (-ffp-contract=off: no multiply-add is fused unless written out).
#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/elem_traits.h"
#include "src/cpu/fast_math.h"
#include "src/cpu/isa.h"

namespace openpjrt::cpu {
namespace {

template <float (*F)(float)>
[[gnu::always_inline]] inline void MathLoop(const float* x, float* y, int64_t n) {
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

template <auto Body>
void ExpectSameBitsAtEveryLevel(const char* name, const std::vector<float>& x) {
  using Fn = void (*)(const float*, float*, int64_t);
  std::vector<Fn> variants = {&isa_internal::AtBase<Body, const float*, float*, int64_t>};
  if (IsaLevel() >= 1) variants.push_back(&isa_internal::At256<Body, const float*, float*, int64_t>);
  if (IsaLevel() >= 2) variants.push_back(&isa_internal::At512<Body, const float*, float*, int64_t>);
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> want(x.size()), got(x.size());
  variants[0](x.data(), want.data(), n);
  for (size_t v = 1; v < variants.size(); ++v) {
    variants[v](x.data(), got.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(std::memcmp(&got[i], &want[i], 4) == 0 || (std::isnan(got[i]) && std::isnan(want[i])))
          << name << " level " << v << " differs from the baseline at x = " << x[i] << ": " << got[i] << " vs " << want[i];
  }
}

TEST(IsaVariants, GiveTheSameBitsAsTheBaseline) {
  std::vector<float> x;
  for (uint32_t b = 0; b < 0x7F800000u; b += 997) {
    float v;
    std::memcpy(&v, &b, 4);
    x.push_back(v);
    x.push_back(-v);
  }
  for (float special : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 65504.0f, 65520.0f, 6.1e-5f, 5.96e-8f})
    x.push_back(special);
  ExpectSameBitsAtEveryLevel<&MathLoop<&fast::Exp>>("exp", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<&fast::Log>>("log", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<&fast::Tanh>>("tanh", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<&fast::Logistic>>("logistic", x);
  ExpectSameBitsAtEveryLevel<&MathLoop<&fast::Erf>>("erf", x);
  ExpectSameBitsAtEveryLevel<&HalfLoop>("f16 round trip", x);
  ExpectSameBitsAtEveryLevel<&Bf16Loop>("bf16 rounding", x);
  if (IsaLevel() == 0) GTEST_SKIP() << "only the baseline copy runs in this build or on this CPU";
}

}  // namespace
}  // namespace openpjrt::cpu
