"""MLIR text helpers shared by the LAPACK test generators (gen_lapack.py,
gen_lapack_reductions.py): element types, literals, constants and check ops."""
import numpy as np

TY = {np.float32: "f32", np.float64: "f64", np.complex64: "complex<f32>", np.complex128: "complex<f64>"}
LETTER = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}
REAL = {np.float32: np.float32, np.float64: np.float64, np.complex64: np.float32, np.complex128: np.float64}


def elem(v, dt):
    if np.issubdtype(dt, np.complexfloating):
        return f"({float(v.real)!r}, {float(v.imag)!r})"
    if np.issubdtype(dt, np.integer):
        return str(int(v))
    return repr(float(v))


def lit(a, dt):
    a = np.asarray(a)
    if a.ndim == 0:
        return elem(a, dt)
    return "[" + ", ".join(lit(x, dt) for x in a) + "]"


def ttype(shape, t):
    return "tensor<" + "".join(f"{d}x" for d in shape) + t + ">"


def tname(dt):
    return TY.get(dt, {np.int32: "i32"}.get(dt))


def const(name, a, dt):
    a = np.asarray(a, dtype=dt)
    return f"  %{name} = stablehlo.constant dense<{lit(a, dt)}> : {ttype(a.shape, tname(dt))}"


def check(name, a, dt, tol):
    a = np.asarray(a, dtype=dt)
    if dt == np.int32:
        return f"  check.expect_eq_const %{name}, dense<{lit(a, dt)}> : {ttype(a.shape, 'i32')}"
    return (f"  check.expect_almost_eq_const %{name}, dense<{lit(a, dt)}>, tolerance = {tol:.1e} : "
            f"{ttype(a.shape, tname(dt))}")


def random(rng, shape, dt):
    a = rng.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)
