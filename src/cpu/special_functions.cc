// Newton-refined inverse erf, the digamma asymptotic series with recurrence and reflection, and
// the exponentially scaled modified Bessel function of order one.
#include "src/cpu/special_functions.h"

#include <cmath>
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
  const double k = 2.0 / std::sqrt(M_PI);
  for (int i = 0; i < 3; ++i) {
    double err = std::erf(y) - x;
    double d = k * std::exp(-y * y);
    if (d == 0) break;
    y -= err / d;
  }
  return y;
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

}  // namespace openpjrt::cpu
