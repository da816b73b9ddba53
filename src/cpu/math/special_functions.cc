// Newton-refined inverse erf, the digamma asymptotic series with recurrence and reflection, and
// the exponentially scaled modified Bessel function of order one.
#include "src/cpu/math/special_functions.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace openpjrt::cpu {

double ErfInv(double x) {
  if (std::isnan(x) || x < -1 || x > 1) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1) return std::numeric_limits<double>::infinity();
  if (x == -1) return -std::numeric_limits<double>::infinity();
  // Initial guess from a logarithmic approximation, then Newton steps on erf(y) = x.
  double w = -std::log((1.0 - x) * (1.0 + x));
  double y;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    y = p * x;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    y = p * x;
  }
  // Newton steps. Near +-1, erf(y) - x loses everything to cancellation (erf'(y) is e^-y^2 small:
  // at x = 1 - 1e-15 one ULP of erf moved y by 2%), so from |x| > 1/2 on the steps solve
  // erfc(|y|) = 1 - |x| instead: 1 - |x| is exact there, erfc keeps its relative accuracy, and an
  // error of e in it moves y by about e / 2y.
  const double k = 2.0 / std::sqrt(M_PI);
  const double a = std::fabs(x);
  if (a <= 0.5) {
    for (int i = 0; i < 3; ++i) {
      const double d = k * std::exp(-y * y);
      y -= (std::erf(y) - x) / d;
    }
    return y;
  }
  // The initial guess was fitted for f32 inputs (1 - |x| >= 2^-24) and is rougher closer to 1.
  // The steps solve log erfc(y) = log(1 - |x|): erfc is log-concave, nearly e^-y^2, so Newton's
  // method on the logarithm converges fast from either side (on erfc itself, a guess above the
  // root is sent far below it and climbs back by about 1/2y per step).
  const double c = 1.0 - a;
  double t = std::fabs(y);
  for (int i = 0; i < 12; ++i) {
    const double e = std::erfc(t);
    const double step = std::log1p((e - c) / c) * e / (k * std::exp(-t * t));
    t += step;
    if (!(std::fabs(step) > 1e-17 * t)) break;
  }
  return std::copysign(t, x);
}

double Digamma(double x) {
  if (std::isnan(x)) return x;
  if (x <= 0 && x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return x > 0 ? x : std::numeric_limits<double>::quiet_NaN();
  double result = 0;
  if (x < 0.5) {
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x).
    result -= M_PI / std::tan(M_PI * x);
    x = 1 - x;
  }
  while (x < 6) {
    result -= 1 / x;
    x += 1;
  }
  double inv = 1 / x, inv2 = inv * inv;
  double series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 -
                  inv2 * (1.0 / 132)))));
  return result + std::log(x) - 0.5 * inv - series;
}

double BesselI1e(double x) {
  if (std::isnan(x)) return x;
  double a = std::fabs(x);
  double r;
  if (a < 500) {
    r = std::cyl_bessel_i(1.0, a) * std::exp(-a);
  } else {
    // Asymptotic expansion: I1(a) e^-a ~ (1 - 3/(8a) - 15/(128 a^2)) / sqrt(2 pi a).
    r = (1 - 3 / (8 * a) - 15 / (128 * a * a)) / std::sqrt(2 * M_PI * a);
  }
  return x < 0 ? -r : r;
}

double Zeta(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1) return std::numeric_limits<double>::infinity();
  if (x < 1) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0) {
    if (q == std::floor(q)) return std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();  // needs the analytic continuation
  }
  // Euler-Maclaurin: direct sum of the first N terms, an integral tail and Bernoulli terms.
  const int n = 12;
  double sum = 0;
  for (int k = 0; k < n; ++k) sum += std::pow(q + k, -x);
  const double a = q + n;
  sum += std::pow(a, 1 - x) / (x - 1) + 0.5 * std::pow(a, -x);
  static const double kB2k[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730,
                                7.0 / 6, -3617.0 / 510, 43867.0 / 798, -174611.0 / 330};
  double term = x * std::pow(a, -x - 1);  // x (x+1) ... (x+2k-2) a^(-x-2k+1), k = 1
  double fact = 2;                        // (2k)!
  for (int k = 1; k <= 10; ++k) {
    sum += kB2k[k - 1] / fact * term;
    term *= (x + 2 * k - 1) * (x + 2 * k) / (a * a);
    fact *= (2 * k + 1) * (2 * k + 2);
  }
  return sum;
}

double Polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0 || n != std::floor(n))
    return std::numeric_limits<double>::quiet_NaN();
  if (n == 0) return Digamma(x);
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)
  const double sign = std::fmod(n, 2.0) == 1.0 ? 1.0 : -1.0;
  return sign * std::exp(std::lgamma(n + 1)) * Zeta(n + 1, x);
}

}  // namespace openpjrt::cpu
