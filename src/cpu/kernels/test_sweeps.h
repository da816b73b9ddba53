// Input sets for the math tests (math_accuracy_test.cc, isa_test.cc): floating-point values
// spread over every binade, both signs, plus the values where the kernels change method or
// saturate.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

namespace openpjrt::cpu::testing {

// Sanitizer builds check memory and undefined behaviour, not accuracy, and run the scalar baseline
// copies with libm's fmaf: they sweep a tenth of the values (the whole math test took over five
// minutes under AddressSanitizer).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr uint32_t kThinning = 10;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr uint32_t kThinning = 10;
#else
inline constexpr uint32_t kThinning = 1;
#endif
#else
inline constexpr uint32_t kThinning = 1;
#endif

// Every `step`-th positive finite f32 bit pattern and its negation, then `extra`.
inline std::vector<float> F32Sweep(uint32_t step, std::initializer_list<float> extra) {
  std::vector<float> xs;
  for (uint32_t b = 0; b < 0x7F800000u; b += step * kThinning) {
    float v;
    std::memcpy(&v, &b, 4);
    xs.push_back(v);
    xs.push_back(-v);
  }
  xs.insert(xs.end(), extra);
  for (float s : {0.0f, -0.0f, INFINITY, -INFINITY, NAN}) xs.push_back(s);
  return xs;
}

// `per_binade` random mantissas in every f64 exponent (subnormals included) and their
// negations, then `extra`; the same values on every run.
inline std::vector<double> F64Sweep(int per_binade, std::initializer_list<double> extra) {
  std::mt19937_64 rng(2026);
  std::vector<double> xs;
  for (uint64_t e = 0; e < 0x7FF; ++e)
    for (int i = 0; i < per_binade / static_cast<int>(kThinning); ++i) {
      const uint64_t b = (e << 52) | (rng() & 0xFFFFFFFFFFFFFull);
      double v;
      std::memcpy(&v, &b, 8);
      xs.push_back(v);
      xs.push_back(-v);
    }
  xs.insert(xs.end(), extra);
  for (double s : {0.0, -0.0, double(INFINITY), -double(INFINITY), double(NAN)}) xs.push_back(s);
  return xs;
}

}  // namespace openpjrt::cpu::testing
