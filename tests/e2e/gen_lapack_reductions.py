#!/usr/bin/python3
"""Writes tests/e2e/lapack_reductions.mlir: JAX's CPU custom calls for the Hessenberg reduction
(lapack_?gehrd_ffi, jax.lax.linalg.hessenberg) and the tridiagonal reduction (lapack_?sytrd_ffi /
lapack_?hetrd_ffi, jax.lax.linalg.tridiagonal), checked against the system LAPACK through
scipy.linalg.lapack (an implementation independent of ours). Every output is compared: the
reduced matrix with the reflectors stored beside it, tau, d and e, and info. The Schur
decomposition (lapack_?gees_ffi, jax.lax.linalg.schur) is not unique, so it is checked through
identities computed in the program: Z T Z^H = A, Z^H Z = I, T zero below its first subdiagonal
(and upper triangular for complex input), and the eigenvalues against numpy.linalg.eigvals. Regenerate with
Debian's python3 and python3-scipy (needed only here, not to build or test):
    /usr/bin/python3 tests/e2e/gen_lapack_reductions.py > tests/e2e/lapack_reductions.mlir
"""
import numpy as np
import scipy.linalg.lapack as lapack

from lapack_gen_common import LETTER, REAL, TY, check, const, ttype
from lapack_gen_common import random as _random

rng = np.random.default_rng(20261130)


def random(shape, dt):
    return _random(rng, shape, dt)


def tol(dt):
    # Single precision LAPACK against our double-precision evaluation rounded once.
    return 2e-4 if dt in (np.float32, np.complex64) else 1e-11


def routine(dt, name):
    return getattr(lapack, LETTER[dt] + name)


chunks = []

# gehrd: the whole matrix (low = 1, high = n), batched; and a partial range.
for dt, (batch, n), rng_lh in [(np.float32, (2, 5), None), (np.float64, (3, 4), None),
                               (np.complex64, (2, 4), None), (np.complex128, (1, 6), None),
                               (np.float64, (1, 6), (2, 5)), (np.complex128, (2, 1), None)]:
    low, high = rng_lh or (1, n)
    a = random((batch, n, n), dt)
    outs, taus = [], []
    for k in range(batch):
        ht, tau, info = routine(dt, "gehrd")(a[k], lo=low - 1, hi=high - 1)
        assert info == 0
        outs.append(ht)
        taus.append(tau[: max(n - 1, 0)])
    t, L = TY[dt], LETTER[dt]
    at, tt, it = ttype((batch, n, n), t), ttype((batch, max(n - 1, 0)), t), ttype((batch,), "i32")
    chunks.append([
        f"func.func @gehrd_{L}_{n}_{low}_{high}() {{", const("a", a, dt),
        f"  %h, %tau, %info = stablehlo.custom_call @lapack_{L}gehrd_ffi(%a) {{mhlo.backend_config = "
        f"{{high = {high} : i32, low = {low} : i32}}}} : ({at}) -> ({at}, {tt}, {it})",
        check("h", np.stack(outs), dt, tol(dt) * 10), check("tau", np.stack(taus), dt, tol(dt) * 10),
        check("info", np.zeros(batch), np.int32, 0), "  func.return", "}"])

# sytrd / hetrd: both triangles, batched; the unused triangle must come back as it went in.
for dt, (batch, n) in [(np.float32, (2, 5)), (np.float64, (2, 4)), (np.complex64, (1, 5)), (np.complex128, (2, 3))]:
    for lower in (1, 0):
        a = random((batch, n, n), dt)
        cplx = np.issubdtype(dt, np.complexfloating)
        outs, ds, es, taus = [], [], [], []
        for k in range(batch):
            c, d, e, tau, info = routine(dt, "hetrd" if cplx else "sytrd")(a[k], lower=lower)
            assert info == 0
            outs.append(c), ds.append(d), es.append(e), taus.append(tau)
        t, L, r = TY[dt], LETTER[dt], TY[REAL[dt]]
        at, dtp, et, tt, it = (ttype((batch, n, n), t), ttype((batch, n), r), ttype((batch, n - 1), r),
                               ttype((batch, n - 1), t), ttype((batch,), "i32"))
        name = "hetrd" if cplx else "sytrd"
        uplo = 76 if lower else 85
        chunks.append([
            f"func.func @{name}_{L}_{'lower' if lower else 'upper'}() {{", const("a", a, dt),
            f"  %c, %d, %e, %tau, %info = stablehlo.custom_call @lapack_{L}{name}_ffi(%a) {{mhlo.backend_config = "
            f"{{uplo = {uplo} : ui8}}}} : ({at}) -> ({at}, {dtp}, {et}, {tt}, {it})",
            check("c", np.stack(outs), dt, tol(dt) * 10), check("d", np.stack(ds), REAL[dt], tol(dt) * 10),
            check("e", np.stack(es), REAL[dt], tol(dt) * 10), check("tau", np.stack(taus), dt, tol(dt) * 10),
            check("info", np.zeros(batch), np.int32, 0), "  func.return", "}"])

# An already tridiagonal matrix: every reflector is the identity (tau = 0).
tri = np.diag([1.0, 2.0, 3.0, 4.0]) + np.diag([0.5, -0.25, 2.0], 1) + np.diag([0.5, -0.25, 2.0], -1)
c, d, e, tau, info = lapack.dsytrd(tri, lower=1)
chunks.append([
    "func.func @sytrd_tridiagonal() {", const("a", tri, np.float64),
    "  %c, %d, %e, %tau, %info = stablehlo.custom_call @lapack_dsytrd_ffi(%a) {mhlo.backend_config = "
    "{uplo = 76 : ui8}} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>)",
    check("c", c, np.float64, 1e-12), check("d", d, np.float64, 1e-12), check("e", e, np.float64, 1e-12),
    check("tau", tau, np.float64, 0.0), "  func.return", "}"])

# gees: Schur decompositions, checked through identities (see the module docstring).
for dt, n in [(np.float32, 5), (np.float64, 6), (np.complex64, 4), (np.complex128, 5), (np.float64, 2)]:
    a = random((n, n), dt) if n != 2 else np.array([[1.0, -4.0], [1.0, 1.0]], dt)  # eigenvalues 1 +- 2i
    cplx = np.issubdtype(dt, np.complexfloating)
    t, L, r = TY[dt], LETTER[dt], TY[REAL[dt]]
    mt, vt, it = ttype((n, n), t), ttype((n,), t), ttype((), "i32")
    rv = ttype((n,), r)
    ev = np.linalg.eigvals(a.astype(np.complex128))
    # A conjugate pair's real parts may differ in the last bits in numpy's answer but are equal in
    # a standardized Schur form: sort on rounded real parts, then imaginary parts.
    ev = ev[np.lexsort((ev.imag, np.round(ev.real, 6)))]
    below = np.array([[1.0 if i > j + (0 if cplx else 1) else 0.0 for j in range(n)] for i in range(n)])
    lines = [f"func.func @gees_{L}_{n}() {{", const("a", a, dt)]
    if cplx:
        lines.append(f"  %t, %z, %w, %sdim, %info = stablehlo.custom_call @lapack_{L}gees_ffi(%a) {{mhlo.backend_config = "
                     f"{{mode = 86 : ui8, sort = 78 : ui8}}}} : ({mt}) -> ({mt}, {mt}, {vt}, {it}, {it})")
        lines += [f"  %zh = chlo.conj %z : {mt} -> {mt}",
                  f"  %wr = stablehlo.real %w : ({vt}) -> {rv}", f"  %wi = stablehlo.imag %w : ({vt}) -> {rv}"]
        zc = "%zh"
    else:
        lines.append(f"  %t, %z, %wr, %wi, %sdim, %info = stablehlo.custom_call @lapack_{L}gees_ffi(%a) {{mhlo.backend_config = "
                     f"{{mode = 86 : ui8, sort = 78 : ui8}}}} : ({mt}) -> ({mt}, {mt}, {vt}, {vt}, {it}, {it})")
        zc = "%z"
    lines += [
        f"  %zt = stablehlo.dot_general %z, %t, contracting_dims = [1] x [0] : ({mt}, {mt}) -> {mt}",
        f"  %back = stablehlo.dot_general %zt, {zc}, contracting_dims = [1] x [1] : ({mt}, {mt}) -> {mt}",
        check("back", a, dt, tol(dt) * 50),
        f"  %eye = stablehlo.dot_general {zc}, %z, contracting_dims = [0] x [0] : ({mt}, {mt}) -> {mt}",
        check("eye", np.eye(n), dt, tol(dt) * 50),
        const("mask", below, dt),
        f"  %low = stablehlo.multiply %t, %mask : {mt}",
        check("low", np.zeros((n, n)), dt, 0.0),
        f"  %ws:2 = \"stablehlo.sort\"(%wr, %wi) <{{dimension = 0 : i64, is_stable = true}}> ({{",
        f"  ^bb0(%p: tensor<{r}>, %q: tensor<{r}>, %pi: tensor<{r}>, %qi: tensor<{r}>):",
        f"    %lt = stablehlo.compare LT, %p, %q : (tensor<{r}>, tensor<{r}>) -> tensor<i1>",
        f"    %eq = stablehlo.compare EQ, %p, %q : (tensor<{r}>, tensor<{r}>) -> tensor<i1>",
        f"    %lti = stablehlo.compare LT, %pi, %qi : (tensor<{r}>, tensor<{r}>) -> tensor<i1>",
        "    %both = stablehlo.and %eq, %lti : tensor<i1>",
        "    %res = stablehlo.or %lt, %both : tensor<i1>",
        "    stablehlo.return %res : tensor<i1>",
        f"  }}) : ({rv}, {rv}) -> ({rv}, {rv})",
        check("ws#0", ev.real, REAL[dt], tol(dt) * 50), check("ws#1", ev.imag, REAL[dt], tol(dt) * 50),
        check("sdim", np.int32(0), np.int32, 0), check("info", np.int32(0), np.int32, 0),
        "  func.return", "}"]
    chunks.append(lines)

print("// Generated by gen_lapack_reductions.py: lapack_?gehrd_ffi and lapack_?sytrd_ffi/?hetrd_ffi")
print("// against the system LAPACK (scipy.linalg.lapack), lapack_?gees_ffi through identities. Do not")
print("// edit by hand.\n")
print("\n\n// -----\n\n".join("\n".join(c) for c in chunks))
