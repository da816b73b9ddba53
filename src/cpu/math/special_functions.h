// Special functions libm does not provide, in double precision.
#pragma once

namespace openpjrt::cpu {

double ErfInv(double x);     // inverse error function; +-inf at +-1, NaN outside [-1, 1]
double Digamma(double x);    // psi(x); NaN at the poles (0, -1, -2, ...)
double BesselI1e(double x);  // exp(-|x|) * I1(x)
double Zeta(double x, double q);      // Hurwitz zeta: sum over k >= 0 of (k + q)^-x
double Polygamma(double n, double x);  // psi^(n)(x) for integer n >= 0; NaN otherwise

}  // namespace openpjrt::cpu
