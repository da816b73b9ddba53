// Special functions libm does not provide, in double precision.
#pragma once

namespace openpjrt::cpu {

double ErfInv(double x);     // inverse error function; +-inf at +-1, NaN outside [-1, 1]
double Digamma(double x);    // psi(x); NaN at the poles (0, -1, -2, ...)
double BesselI1e(double x);  // exp(-|x|) * I1(x)

}  // namespace openpjrt::cpu
