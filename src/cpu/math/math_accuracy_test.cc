// Measures the worst ULP error of the math kernels against a higher-precision reference
// (long double libm) over many inputs, for f32 and f64, and holds them to 3 ULP.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/kernels/kernels.h"
#include "src/cpu/kernels/test_sweeps.h"

namespace openpjrt::cpu {
namespace {

template <typename T>
int64_t OrderedBits(T v) {
  if constexpr (sizeof(T) == 4) {
    int32_t b;
    std::memcpy(&b, &v, 4);
    return b < 0 ? -(static_cast<int64_t>(b & 0x7FFFFFFF)) : b;
  } else {
    int64_t b;
    std::memcpy(&b, &v, 8);
    return b < 0 ? -(b & INT64_MAX) : b;
  }
}

// ULP distance between the kernel result and the correctly rounded reference.
template <typename T>
double Ulps(T got, long double ref) {
  T r = static_cast<T>(ref);
  if (std::isnan(got) && std::isnan(r)) return 0;
  if (std::isnan(got) || std::isnan(r)) return 1e9;
  if (std::isinf(r) || std::isinf(got)) return got == r ? 0 : 1e9;
  return std::fabs(static_cast<double>(OrderedBits(got) - OrderedBits(r)));
}

struct Fn {
  const char* name;
  UnaryOp op;
  std::function<long double(long double)> ref;
  double lo, hi;
};

// Runs a kernel over `ins` (slots 0..n-1) into slot n, typed like the first input.
Array RunKernel(KernelFn fn, const std::vector<Array>& ins) {
  Step s;
  s.fn = fn;
  for (size_t i = 0; i < ins.size(); ++i) s.in.push_back(static_cast<int>(i));
  s.out = {static_cast<int>(ins.size())};
  s.out_types = {ins[0].type()};
  ExecState st;
  st.slots.resize(ins.size() + 1);
  for (size_t i = 0; i < ins.size(); ++i) st.slots[i] = RtValue::Of(ins[i]);
  s.fn(s, st);
  return st.slots[ins.size()].array;
}

// Runs the elementwise kernel of `op` over `in` (same element kind in and out); empty when the
// kernel is missing.
Array RunUnary(UnaryOp op, const Array& in) {
  auto fn = SelectUnary(op, in.elem(), in.elem());
  EXPECT_TRUE(fn.ok()) << UnaryOpName(op);
  if (!fn.ok()) return Array();
  return RunKernel(*fn, {in});
}

template <typename T>
double WorstUlp(const Fn& f, ElemKind kind) {
  const int n = 20000;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(f.lo, f.hi);
  Array in = Array::Allocate({kind, {n}});
  T* x = in.mutable_as<T>();
  for (int i = 0; i < n; ++i) x[i] = static_cast<T>(dist(rng));
  const Array out = RunUnary(f.op, in);
  if (out.NumElements() != n) return 1e9;
  const T* y = out.as<T>();
  double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, Ulps<T>(y[i], f.ref(static_cast<long double>(x[i]))));
  return worst;
}

TEST(MathAccuracy, WithinThreeUlpOfLongDoubleReference) {
  const Fn fns[] = {
      {"exponential", UnaryOp::kExp, [](long double v) { return expl(v); }, -80, 80},
      {"tanh (small)", UnaryOp::kTanh, [](long double v) { return tanhl(v); }, -0.01, 0.01},
      {"tanh (saturating)", UnaryOp::kTanh, [](long double v) { return tanhl(v); }, -30, 30},
      {"exponential_minus_one", UnaryOp::kExpm1, [](long double v) { return expm1l(v); }, -5, 5},
      {"log", UnaryOp::kLog, [](long double v) { return logl(v); }, 1e-30, 1e30},
      {"log_plus_one", UnaryOp::kLog1p, [](long double v) { return log1pl(v); }, -0.9, 10},
      {"logistic", UnaryOp::kLogistic, [](long double v) { return 1.0L / (1.0L + expl(-v)); }, -30, 30},
      {"tanh", UnaryOp::kTanh, [](long double v) { return tanhl(v); }, -10, 10},
      {"sine", UnaryOp::kSin, [](long double v) { return sinl(v); }, -100, 100},
      {"cosine", UnaryOp::kCos, [](long double v) { return cosl(v); }, -100, 100},
      {"tan", UnaryOp::kTan, [](long double v) { return tanl(v); }, -1.5, 1.5},
      {"sqrt", UnaryOp::kSqrt, [](long double v) { return sqrtl(v); }, 0, 1e6},
      {"rsqrt", UnaryOp::kRsqrt, [](long double v) { return 1.0L / sqrtl(v); }, 1e-6, 1e6},
      {"cbrt", UnaryOp::kCbrt, [](long double v) { return cbrtl(v); }, -1e6, 1e6},
      {"atan", UnaryOp::kAtan, [](long double v) { return atanl(v); }, -50, 50},
      {"asinh", UnaryOp::kAsinh, [](long double v) { return asinhl(v); }, -50, 50},
      {"erf", UnaryOp::kErf, [](long double v) { return erfl(v); }, -4, 4},
      {"lgamma", UnaryOp::kLgamma, [](long double v) { return lgammal(v); }, 0.5, 30},
  };
  std::printf("%-24s %10s %10s\n", "function", "f32 ulp", "f64 ulp");
  for (const Fn& f : fns) {
    double u32 = WorstUlp<float>(f, ElemKind::kF32);
    double u64 = WorstUlp<double>(f, ElemKind::kF64);
    std::printf("%-24s %10.0f %10.0f\n", f.name, u32, u64);
    EXPECT_LE(u32, 3) << f.name << " f32";
    EXPECT_LE(u64, 3) << f.name << " f64";
  }
}

// Every 997th f32 bit pattern of both signs through the f32 kernels that have their own
// vectorized code (src/cpu/math/fast_math.h), and 2,000 values in every f64 binade through the f64
// ones, each held to the bound its design measured.
struct Swept {
  const char* name;
  UnaryOp op;
  long double (*ref)(long double);
  double max_ulp;
};

template <typename T>
void ExpectSweepWithin(const Swept& f, ElemKind kind, const std::vector<T>& xs) {
  const int64_t n = static_cast<int64_t>(xs.size());
  Array in = Array::Allocate({kind, {n}});
  std::memcpy(in.mutable_data(), xs.data(), xs.size() * sizeof(T));
  const Array out = RunUnary(f.op, in);
  ASSERT_EQ(out.NumElements(), n) << f.name;
  const T* y = out.as<T>();
  double worst = 0;
  T worst_at = 0;
  for (int64_t i = 0; i < n; ++i) {
    double u = Ulps<T>(y[i], f.ref(static_cast<long double>(xs[i])));
    if (u > worst) worst = u, worst_at = xs[i];
  }
  std::printf("%-12s %s sweep of %lld values: worst %.0f ULP at %.17g\n", f.name, sizeof(T) == 4 ? "f32" : "f64",
              static_cast<long long>(n), worst, static_cast<double>(worst_at));
  EXPECT_LE(worst, f.max_ulp) << f.name << " at " << worst_at;
}

// digamma in long double: the recurrence up to 20, the asymptotic series there (error below
// 1e-22), reflection below 1/2; NaN at the poles and at -inf.
long double DigammaRef(long double x) {
  if (std::isnan(x) || x == -INFINITY) return NAN;
  if (x == INFINITY) return x;
  if (x <= 0 && x == floorl(x)) return NAN;
  const long double pi = 3.14159265358979323846264338327950288L;
  long double shift = 0;
  if (x < 0.5L) {
    const long double r = x - 2 * nearbyintl(x / 2);  // exact
    shift = -pi * cosl(pi * r) / sinl(pi * r);
    x = 1 - x;
  }
  while (x < 20) shift -= 1 / x, x += 1;
  const long double w = 1 / (x * x);
  return shift + logl(x) - 0.5L / x -
         w * (1.0L / 12 - w * (1.0L / 120 - w * (1.0L / 252 - w * (1.0L / 240 - w * (1.0L / 132 - w * 691.0L / 32760)))));
}

TEST(MathAccuracy, VectorizedF32FunctionsOverASweepOfAllFloats) {
  const Swept fns[] = {
      {"exponential", UnaryOp::kExp, [](long double v) { return expl(v); }, 1},
      {"log", UnaryOp::kLog, [](long double v) { return logl(v); }, 1},
      {"tanh", UnaryOp::kTanh, [](long double v) { return tanhl(v); }, 2},  // t / (t + 2): fast_math.h
      {"erf", UnaryOp::kErf, [](long double v) { return erfl(v); }, 1},
      {"logistic", UnaryOp::kLogistic, [](long double v) { return 1.0L / (1.0L + expl(-v)); }, 2},
      {"expm1", UnaryOp::kExpm1, [](long double v) { return expm1l(v); }, 1},
      {"log1p", UnaryOp::kLog1p, [](long double v) { return log1pl(v); }, 1},
      {"sine", UnaryOp::kSin, [](long double v) { return sinl(v); }, 1},
      {"cosine", UnaryOp::kCos, [](long double v) { return cosl(v); }, 1},
      {"tan", UnaryOp::kTan, [](long double v) { return tanl(v); }, 1},
      {"sinh", UnaryOp::kSinh, [](long double v) { return sinhl(v); }, 1},
      {"cosh", UnaryOp::kCosh, [](long double v) { return coshl(v); }, 1},
      {"asinh", UnaryOp::kAsinh, [](long double v) { return asinhl(v); }, 1},
      {"acosh", UnaryOp::kAcosh, [](long double v) { return acoshl(v); }, 1},
      {"atanh", UnaryOp::kAtanh, [](long double v) { return atanhl(v); }, 1},
      {"atan", UnaryOp::kAtan, [](long double v) { return atanl(v); }, 1},
      {"asin", UnaryOp::kAsin, [](long double v) { return asinl(v); }, 1},
      {"acos", UnaryOp::kAcos, [](long double v) { return acosl(v); }, 1},
      {"lgamma", UnaryOp::kLgamma, [](long double v) { return lgammal(v); }, 3},
      {"digamma", UnaryOp::kDigamma, &DigammaRef, 3},
      {"cbrt", UnaryOp::kCbrt, [](long double v) { return cbrtl(v); }, 1},
  };
  const std::vector<float> xs = testing::F32Sweep(997, {88.72283f, 88.7229f, -103.97f, 1e-45f, -1.0f,
                                                         67108864.0f, 67108870.0f, 1.5707964f, 3.1415927f,
                                                         1.0f, 2.0f, 1.0000001f, 1.9999999f, 2.0000002f,
                                                         1.4616321f, -1313.0f, -0.5f, -2.5f, 0.5f});
  for (const Swept& f : fns) ExpectSweepWithin(f, ElemKind::kF32, xs);
}

TEST(MathAccuracy, VectorizedF64FunctionsOverEveryBinade) {
  const Swept fns[] = {
      {"exponential", UnaryOp::kExp, [](long double v) { return expl(v); }, 1},
      {"log", UnaryOp::kLog, [](long double v) { return logl(v); }, 1},
      {"tanh", UnaryOp::kTanh, [](long double v) { return tanhl(v); }, 1},
      {"logistic", UnaryOp::kLogistic, [](long double v) { return 1.0L / (1.0L + expl(-v)); }, 2},
      {"expm1", UnaryOp::kExpm1, [](long double v) { return expm1l(v); }, 2},
      {"log1p", UnaryOp::kLog1p, [](long double v) { return log1pl(v); }, 2},
      {"sine", UnaryOp::kSin, [](long double v) { return sinl(v); }, 2},
      {"cosine", UnaryOp::kCos, [](long double v) { return cosl(v); }, 2},
      {"tan", UnaryOp::kTan, [](long double v) { return tanl(v); }, 3},
  };
  std::vector<double> xs = testing::F64Sweep(2000, {709.78, 709.7827128933841, 709.7827128933840,
                                                    -745.1332191019412, -745.1332191019411, -708.4,
                                                    0.55, 0.54999999999999993, 20.0, 1.0, 0.9999999999999999});
  // Dense near the method boundaries and where results turn subnormal.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> near(-0.6, 0.6), low(-745.2, -700.0), one(0.7, 1.5);
  for (int i = 0; i < 200000 / static_cast<int>(testing::kThinning); ++i) xs.push_back(near(rng)), xs.push_back(low(rng)), xs.push_back(one(rng));
  // The doubles nearest multiples of pi/2 up to the f64 trig limit (2^20) and their neighbours,
  // where the reduction cancels most: n = 1..2000 and 2000 random n up to 667,000.
  std::uniform_int_distribution<int64_t> quarter(1, 667000);
  for (int i = 0; i < 4000; ++i) {
    const int64_t n = i < 2000 ? i + 1 : quarter(rng);
    double v = static_cast<double>(n * 1.57079632679489661923132169163975144L);
    for (int k = 0; k < 3; ++k) v = std::nextafter(v, 0.0);
    for (int k = 0; k < 7; ++k, v = std::nextafter(v, 1e300)) xs.push_back(v), xs.push_back(-v);
  }
  for (double v : {1048576.0, 1048576.0000000002, 1048575.9999999999, 1e22, 6381956970095103.0 * 0x1p797})
    xs.push_back(v), xs.push_back(-v);
  for (const Swept& f : fns) {
    if (f.op != UnaryOp::kSin && f.op != UnaryOp::kCos && f.op != UnaryOp::kTan) {
      ExpectSweepWithin(f, ElemKind::kF64, xs);
      continue;
    }
    // Beyond 2^20 the kernels call glibc, which is itself up to 8 ULP from cosl at 5.3e255.
    std::vector<double> in_range;
    for (double v : xs)
      if (!(std::fabs(v) > 1048576.0)) in_range.push_back(v);
    ExpectSweepWithin(f, ElemKind::kF64, in_range);
  }
}

// erf_inv against a root of erf (or, from |x| > 1/2 on, of erfc at 1 - |x|) found by Newton's
// method in long double from the kernel's own answer: the reference converges to the true root
// wherever it starts near it. Inputs: every f64 binade of |x| up to 1/2 and every binade of
// 1 - |x| down to 2^-53 (where erf(y) - x loses everything to cancellation), both signs; every
// 997th f32 in [-1, 1].
long double ErfInvRef(long double x, long double start) {
  const long double a = fabsl(x), c = 1.0L - a, k = 2.0L / sqrtl(3.14159265358979323846264338327950288L);
  long double t = fabsl(start);
  for (int i = 0; i < 20; ++i) {
    const long double step = (a <= 0.5L ? a - erfl(t) : erfcl(t) - c) / (k * expl(-t * t));
    t += step;
    if (fabsl(step) <= 1e-22L * t) break;
  }
  return copysignl(t, x);
}

template <typename T>
void ExpectErfInvWithin(ElemKind kind, const std::vector<T>& xs, double max_ulp) {
  const int64_t n = static_cast<int64_t>(xs.size());
  Array in = Array::Allocate({kind, {n}});
  std::memcpy(in.mutable_data(), xs.data(), xs.size() * sizeof(T));
  const Array out = RunUnary(UnaryOp::kErfInv, in);
  ASSERT_EQ(out.NumElements(), n);
  const T* y = out.as<T>();
  double worst = 0;
  T worst_at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T x = xs[i];
    double u;
    if (std::isnan(x) || std::fabs(x) > 1) u = std::isnan(y[i]) ? 0 : 1e9;
    else if (std::fabs(x) == 1) u = y[i] == std::copysign(T(INFINITY), x) ? 0 : 1e9;
    else if (x == 0) u = y[i] == 0 && std::signbit(y[i]) == std::signbit(x) ? 0 : 1e9;
    else u = Ulps<T>(y[i], ErfInvRef(x, std::isfinite(y[i]) ? y[i] : T(1)));
    if (u > worst) worst = u, worst_at = x;
  }
  std::printf("erf_inv %s over %lld values: worst %.0f ULP at %.17g\n", sizeof(T) == 4 ? "f32" : "f64",
              static_cast<long long>(n), worst, static_cast<double>(worst_at));
  EXPECT_LE(worst, max_ulp) << "at " << worst_at;
}

TEST(MathAccuracy, ErfInvIncludingTheTailsNearOne) {
  std::mt19937_64 rng(11);
  std::vector<double> xs;
  for (int e = -1074; e <= -1; ++e)  // |x| in [2^e, 2^(e+1)), capped at 1/2
    for (int i = 0; i < 200; ++i) {
      const double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), e);
      xs.push_back(std::min(v, 0.5)), xs.push_back(-std::min(v, 0.5));
    }
  for (int e = -53; e <= -2; ++e)  // 1 - |x| in [2^e, 2^(e+1))
    for (int i = 0; i < 200; ++i) {
      const double c = std::ldexp(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), e);
      const double v = 1.0 - c;
      xs.push_back(v), xs.push_back(-v);
    }
  for (double v : {0.0, -0.0, 1.0, -1.0, 0.9999999999999999, 1.0000000000000002, -2.0, double(NAN), double(INFINITY)})
    xs.push_back(v);
  ExpectErfInvWithin<double>(ElemKind::kF64, xs, 2);
  std::vector<float> fs;
  for (float v : testing::F32Sweep(997, {0.99999994f, -0.99999994f, 0.5f, 1.0f, -1.0f, 1.0000001f}))
    if (!(std::fabs(v) > 1) || std::isnan(v) || fs.size() % 1000 == 0) fs.push_back(v);
  ExpectErfInvWithin<float>(ElemKind::kF32, fs, 1);
}

// Runs the f32 kernel of a binary op over (xs, ys) pairs against a long double reference, which
// follows C's rules for the special operands too: at most max_ulp apart (NaN for NaN, equal
// infinities), and zeros of the same sign. `ordinary` pairs are counted for the report.
void ExpectBinaryF32(BinaryOp op, const std::vector<float>& xs, const std::vector<float>& ys, size_t ordinary,
                     long double (*ref)(long double, long double), double max_ulp) {
  const int64_t n = static_cast<int64_t>(xs.size());
  Array ax = Array::Allocate({ElemKind::kF32, {n}}), ay = Array::Allocate({ElemKind::kF32, {n}});
  std::memcpy(ax.mutable_data(), xs.data(), n * 4);
  std::memcpy(ay.mutable_data(), ys.data(), n * 4);
  auto fn = SelectBinary(op, ElemKind::kF32, ElemKind::kF32);
  ASSERT_TRUE(fn.ok());
  const Array out = RunKernel(*fn, {ax, ay});
  const float* z = out.as<float>();
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double r = ref(xs[i], ys[i]);
    const double u = Ulps<float>(z[i], r);
    worst = std::max(worst, u);
    EXPECT_LE(u, max_ulp) << BinaryOpName(op) << "(" << xs[i] << ", " << ys[i] << ") = " << z[i] << ", want "
                          << static_cast<double>(r);
    if (r == 0) {
      EXPECT_EQ(std::signbit(z[i]), std::signbit(r)) << BinaryOpName(op) << "(" << xs[i] << ", " << ys[i] << ")";
    }
  }
  std::printf("f32 %s over %zu random pairs and %zu special ones: worst %.0f ULP\n", BinaryOpName(op), ordinary,
              xs.size() - ordinary, worst);
}

// f32 power: random bases of both signs over 2^-60..2^60 with exponents that keep most results in
// range (and some out of it; integral ones for the negative bases), against powl; then every pair
// of special operands (zeros, negatives with odd, even and non-integral exponents, exponents around
// 2^23 and 2^24, infinities, NaN).
TEST(MathAccuracy, F32PowerAgainstPowl) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> lg(-60, 60), ex(-3, 3);
  std::vector<float> xs, ys;
  for (int i = 0; i < 300000 / static_cast<int>(testing::kThinning); ++i) {
    const double l = lg(rng);
    const bool negative = i % 3 == 0;
    xs.push_back(static_cast<float>(negative ? -std::exp2(l) : std::exp2(l)));
    const double y = i % 4 == 0 ? ex(rng) * 40 / std::max(1.0, std::fabs(l)) : ex(rng);
    ys.push_back(static_cast<float>(negative ? std::nearbyint(y * 3) : y));
  }
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f, 1e-40f, -1e-40f,
                            1e10f, -1e10f, 16777215.0f, -16777215.0f, 8388609.0f, 8388608.5f, -8388607.5f,
                            INFINITY, -INFINITY, NAN, 0.25f, 1e-30f, -7.0f, 1.0f / 3, -1.5f};
  const size_t ordinary = xs.size();
  for (float a : specials)
    for (float b : specials) xs.push_back(a), ys.push_back(b);
  ExpectBinaryF32(BinaryOp::kPow, xs, ys, ordinary, [](long double a, long double b) { return powl(a, b); }, 1);
}

// f32 atan2: random pairs of both signs over 2^-60..2^60 (every octant, ratios from tiny to huge,
// near-equal magnitudes for the pi/4 boundary), against atan2l; then every pair of zeros,
// infinities, NaN and ordinary values (glibc's atan2f is 1 ULP off at (-3e38, -1): the reference
// is atan2l).
TEST(MathAccuracy, F32Atan2AgainstAtan2l) {
  std::mt19937_64 rng(6);
  std::uniform_real_distribution<double> lg(-60, 60), near(-0.01, 0.01);
  std::vector<float> ys, xs;
  for (int i = 0; i < 300000 / static_cast<int>(testing::kThinning); ++i) {
    const double l = lg(rng), m = i % 5 == 0 ? l + near(rng) : lg(rng);
    ys.push_back(static_cast<float>((i & 1) ? -std::exp2(l) : std::exp2(l)));
    xs.push_back(static_cast<float>((i & 2) ? -std::exp2(m) : std::exp2(m)));
  }
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e38f, 0.41421357f};
  const size_t ordinary = ys.size();
  for (float a : specials)
    for (float b : specials) ys.push_back(a), xs.push_back(b);
  ExpectBinaryF32(BinaryOp::kAtan2, ys, xs, ordinary, [](long double a, long double b) { return atan2l(a, b); }, 1);
}

// complex<float> functions against complex<long double> (exp(z) - 1 and log(1 + z) evaluated in
// long double serve for expm1 and log1p: the cancellation costs a few of its 64 bits), with z
// spread over magnitudes 1e-6..30 in every direction. The error is measured against the
// result's magnitude (|got - ref| / |ref| in units of 2^-24); worst allowed: 2. The complex<float>
// library forms used before were off by 9e5 such units for expm1 and log1p near 0 (exp(z) - 1),
// 95 for pow and 2.4 for exp.
TEST(MathAccuracy, Complex64FunctionsAgainstLongDouble) {
  using CL = std::complex<long double>;
  struct CFn {
    const char* name;
    UnaryOp op;
    std::function<CL(CL)> ref;
  };
  const CFn fns[] = {
      {"exp", UnaryOp::kExp, [](CL z) { return std::exp(z); }},
      {"expm1", UnaryOp::kExpm1, [](CL z) { return std::exp(z) - CL(1); }},
      {"log", UnaryOp::kLog, [](CL z) { return std::log(z); }},
      {"log1p", UnaryOp::kLog1p, [](CL z) { return std::log(CL(1) + z); }},
      {"sqrt", UnaryOp::kSqrt, [](CL z) { return std::sqrt(z); }},
      {"rsqrt", UnaryOp::kRsqrt, [](CL z) { return CL(1) / std::sqrt(z); }},
      {"cbrt", UnaryOp::kCbrt, [](CL z) { return std::pow(z, CL(1.0L / 3)); }},
      {"sin", UnaryOp::kSin, [](CL z) { return std::sin(z); }},
      {"cos", UnaryOp::kCos, [](CL z) { return std::cos(z); }},
      {"tan", UnaryOp::kTan, [](CL z) { return std::tan(z); }},
      {"tanh", UnaryOp::kTanh, [](CL z) { return std::tanh(z); }},
      {"sinh", UnaryOp::kSinh, [](CL z) { return std::sinh(z); }},
      {"cosh", UnaryOp::kCosh, [](CL z) { return std::cosh(z); }},
      {"asin", UnaryOp::kAsin, [](CL z) { return std::asin(z); }},
      {"acos", UnaryOp::kAcos, [](CL z) { return std::acos(z); }},
      {"atan", UnaryOp::kAtan, [](CL z) { return std::atan(z); }},
      {"asinh", UnaryOp::kAsinh, [](CL z) { return std::asinh(z); }},
      {"acosh", UnaryOp::kAcosh, [](CL z) { return std::acosh(z); }},
      {"atanh", UnaryOp::kAtanh, [](CL z) { return std::atanh(z); }},
      {"logistic", UnaryOp::kLogistic, [](CL z) { return CL(1) / (CL(1) + std::exp(-z)); }},
  };
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lg(std::log(1e-6), std::log(30.0)), angle(-M_PI, M_PI);
  const int n = 20000 / static_cast<int>(testing::kThinning);
  Array in = Array::Allocate({ElemKind::kC64, {n}});
  auto* z = in.mutable_as<std::complex<float>>();
  for (int i = 0; i < n; ++i) z[i] = std::polar(static_cast<float>(std::exp(lg(rng))), static_cast<float>(angle(rng)));
  auto rel_error = [](std::complex<float> got, CL ref) {
    const long double mag = std::abs(ref);
    if (!std::isfinite(static_cast<double>(mag)) || mag == 0) return 0.0;
    const CL g(got.real(), got.imag());
    return static_cast<double>(std::abs(g - ref) / mag * 16777216.0L);
  };
  for (const CFn& f : fns) {
    const Array out = RunUnary(f.op, in);
    ASSERT_EQ(out.NumElements(), n) << f.name;
    const auto* y = out.as<std::complex<float>>();
    double worst = 0;
    int at = 0;
    for (int i = 0; i < n; ++i) {
      const double e = rel_error(y[i], f.ref(CL(z[i].real(), z[i].imag())));
      if (e > worst) worst = e, at = i;
    }
    std::printf("  complex64 %-8s worst %.2f units of 2^-24 at (%g, %g)\n", f.name, worst, z[at].real(), z[at].imag());
    EXPECT_LE(worst, 2.0) << f.name << " at (" << z[at].real() << ", " << z[at].imag() << ")";
  }
  // power and divide: random pairs.
  Array bs = Array::Allocate({ElemKind::kC64, {n}});
  auto* w = bs.mutable_as<std::complex<float>>();
  std::uniform_real_distribution<double> ex(-3, 3);
  for (int i = 0; i < n; ++i) w[i] = {static_cast<float>(ex(rng)), static_cast<float>(ex(rng))};
  for (BinaryOp op : {BinaryOp::kPow, BinaryOp::kDiv}) {
    auto fn = SelectBinary(op, ElemKind::kC64, ElemKind::kC64);
    ASSERT_TRUE(fn.ok());
    const Array out = RunKernel(*fn, {in, bs});
    const auto* y = out.as<std::complex<float>>();
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      const CL a(z[i].real(), z[i].imag()), b(w[i].real(), w[i].imag());
      worst = std::max(worst, rel_error(y[i], op == BinaryOp::kPow ? std::pow(a, b) : a / b));
    }
    std::printf("  complex64 %-8s worst %.2f units of 2^-24\n", BinaryOpName(op), worst);
    EXPECT_LE(worst, 2.0) << BinaryOpName(op);
  }
}

}  // namespace
}  // namespace openpjrt::cpu
