"""Helpers for running one jitted function on XLA:CPU and on openpjrt and comparing the results."""

import jax
import jax.numpy as jnp
import numpy as np

REF = jax.devices("cpu")[0]
OURS = jax.devices("openpjrt_cpu")[0]

_INEXACT_TOL = {
    np.dtype("float16"): (2e-3, 2e-3),
    np.dtype("float32"): (2e-5, 1e-5),
    np.dtype("float64"): (1e-12, 1e-12),
    np.dtype("complex64"): (2e-5, 1e-5),
    np.dtype("complex128"): (1e-12, 1e-12),
}


def _tol(dtype):
    dtype = np.dtype(dtype)
    if dtype in _INEXACT_TOL:
        return _INEXACT_TOL[dtype]
    if dtype.name == "bfloat16":
        return (1.6e-2, 1.6e-2)
    return (0.0, 0.0)


def run_on(device, f, *args, **jit_kw):
    """f jitted, called with every array argument placed on `device`; results fetched to numpy."""
    placed = jax.device_put(args, device)
    out = jax.jit(f, **jit_kw)(*placed)
    return jax.tree.map(np.asarray, jax.device_get(out))


def assert_same(ref, ours, rtol=None, atol=None, what=""):
    """Equal dtypes and shapes; equal values for exact types, close ones (NaN where NaN) else."""
    ref_leaves, ref_tree = jax.tree.flatten(ref)
    our_leaves, our_tree = jax.tree.flatten(ours)
    assert ref_tree == our_tree, "%s: result structure %s != %s" % (what, our_tree, ref_tree)
    for i, (r, o) in enumerate(zip(ref_leaves, our_leaves)):
        r, o = np.asarray(r), np.asarray(o)
        where = "%s result %d" % (what, i)
        assert o.dtype == r.dtype, "%s: dtype %s, XLA gives %s" % (where, o.dtype, r.dtype)
        assert o.shape == r.shape, "%s: shape %s, XLA gives %s" % (where, o.shape, r.shape)
        drt, dat = _tol(r.dtype)
        rt = drt if rtol is None else rtol
        at = dat if atol is None else atol
        if r.dtype.name == "bfloat16" or r.dtype.kind == "V":
            r, o = r.astype(np.float32), o.astype(np.float32)
        if rt == 0 and at == 0:
            np.testing.assert_array_equal(o, r, err_msg=where)
        else:
            np.testing.assert_allclose(o, r, rtol=rt, atol=at, equal_nan=True, err_msg=where)


def check(f, *args, rtol=None, atol=None, **jit_kw):
    """Runs f on both backends and compares; returns openpjrt's result."""
    ref = run_on(REF, f, *args, **jit_kw)
    ours = run_on(OURS, f, *args, **jit_kw)
    assert_same(ref, ours, rtol=rtol, atol=atol, what=getattr(f, "__name__", "f"))
    return ours


def rand(rng, shape, dtype, low=-3.0, high=3.0):
    """Random values of a dtype: normals for floats and complex, a small range for integers."""
    dtype = np.dtype(dtype) if not isinstance(dtype, np.dtype) else dtype
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(int(low) * 10, info.min), min(int(high) * 10, info.max)
        return rng.integers(lo, hi + 1, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)
