#!/usr/bin/env python3
"""Prints the f64 polynomial fits of src/cpu/math/fast_math.h and their worst relative errors.

Each fit interpolates the function at the Chebyshev nodes of its interval in 60-digit arithmetic
(mpmath; Debian's python3-mpmath), rounds the coefficients to double and measures the rounded
polynomial against the function at 4,000 points. Coefficients are listed highest degree first,
as fast::Horner takes them.
"""
import mpmath as mp

mp.mp.dps = 60


def chebyshev_fit(g, a, b, degree):
    n = degree + 1
    nodes = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (k + mp.mpf(0.5)) / n) for k in range(n)]
    system = mp.matrix([[x ** j for j in range(n)] for x in nodes])
    coefficients = mp.lu_solve(system, mp.matrix([g(x) for x in nodes]))
    return [mp.mpf(float(coefficients[j])) for j in range(n)][::-1]


def horner(cs, x):
    p = mp.mpf(0)
    for c in cs:
        p = p * x + c
    return p


def fit(name, g, a, b, degree):
    a, b = mp.mpf(a), mp.mpf(b)
    cs = chebyshev_fit(g, a, b, degree)
    worst = max(abs(horner(cs, x) / g(x) - 1) for x in (a + (b - a) * mp.mpf(k) / 4000 for k in range(4001)))
    print(f"{name}: degree {degree} on [{mp.nstr(a, 6)}, {mp.nstr(b, 6)}], worst relative error {mp.nstr(worst, 3)}")
    print("  {" + ", ".join(repr(float(c)) for c in cs) + "}")


def exp_q(r):  # e^r = 1 + r + r^2 Q(r)
    return mp.mpf(0.5) if abs(r) < mp.mpf("1e-30") else (mp.exp(r) - 1 - r) / r ** 2


def log_p(z):  # log1p(f) with s = f / (2 + f): 2 atanh(s) = 2 s + s z P(z), z = s^2
    if z < mp.mpf("1e-40"):
        return mp.mpf(2) / 3
    s = mp.sqrt(z)
    return (2 * mp.atanh(s) - 2 * s) / (s * z)


def tanh_p(u):  # tanh(a) = a + a u P(u), u = a^2
    if u < mp.mpf("1e-40"):
        return mp.mpf(-1) / 3
    a = mp.sqrt(u)
    return (mp.tanh(a) - a) / (a * u)


def erfinv_ratio(x):  # erf_inv(x) / x, with its limit at 0
    return mp.sqrt(mp.pi) / 2 if x == 0 else mp.erfinv(x) / x


def erfinv_w(v):  # in v = w - 2.5, w = -log(1 - x^2)
    return erfinv_ratio(mp.sqrt(-mp.expm1(-(v + mp.mpf(2.5)))))


def erfinv_s(v):  # in v = sqrt(w) - 3
    return erfinv_ratio(mp.sqrt(-mp.expm1(-(v + 3) ** 2)))


def sin_s(z):  # sin r = r + r^3 S(z), z = r^2
    if z < mp.mpf("1e-40"):
        return mp.mpf(-1) / 6
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / (r * z)


def cos_c(z):  # cos r = 1 - z/2 + z^2 C(z)
    if z < mp.mpf("1e-40"):
        return mp.mpf(1) / 24
    r = mp.sqrt(z)
    return (mp.cos(r) - 1 + z / 2) / (z * z)


def atan_p(z):  # atan u = u + u^3 P(z), z = u^2
    if z < mp.mpf("1e-40"):
        return mp.mpf(-1) / 3
    u = mp.sqrt(z)
    return (mp.atan(u) - u) / (u * z)


if __name__ == "__main__":
    fit("f64 exp Q(r)", exp_q, -mp.log(2) / 2, mp.log(2) / 2, 10)
    fit("f64 log P(z)", log_p, 0, ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2, 7)
    fit("f64 tanh P(u)", tanh_p, 0, mp.mpf("0.55") ** 2, 10)
    # f32 tanh's e^r - 1 = r + r^2 Q(r) on r in [0, ln 2) (a little past it for rounding in r).
    fit("f32 tanh Q(r)", exp_q, 0, mp.log(2) * mp.mpf("1.0005"), 4)
    # f32 erf_inv, evaluated in f64: w < 5 and 5 <= w <= 16 (1 - |x| >= 2^-24 gives w < 15.95).
    fit("f32 erf_inv P(w - 2.5)", erfinv_w, -2.5, 2.5, 11)
    fit("f32 erf_inv P(sqrt(w) - 3)", erfinv_s, mp.sqrt(5) - 3, 1, 11)
    # f64 sin and cos on |r| <= pi/4.
    fit("f64 sin S(z)", sin_s, 0, (mp.pi / 4) ** 2, 6)
    fit("f64 cos C(z)", cos_c, 0, (mp.pi / 4) ** 2, 6)
    # f32 atan2 (and atan, asin, acos), evaluated in f64, on |u| <= tan(pi/8).
    fit("f32 atan P(z)", atan_p, 0, mp.tan(mp.pi / 8) ** 2, 6)
