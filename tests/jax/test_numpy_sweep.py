"""A generated sweep of jax.numpy and lax through the plugin, against XLA:CPU: elementwise ops
over every dtype JAX has, reductions and cumulative ops along each axis, sorting, indexing,
scatter and segment ops, contractions. Shapes, axes and values come from a seeded generator, so
each case is reproducible from its id; OPENPJRT_JAX_SWEEP=N widens the sweep N-fold."""

import itertools
import os

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from jaxdiff import check, rand

WIDTH = int(os.environ.get("OPENPJRT_JAX_SWEEP", "1"))

FLOATS = [np.float32, np.float16, ml_dtypes.bfloat16]
FLOATS_X64 = [np.float64]
INTS = [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32]
INTS_X64 = [np.int64, np.uint64]
COMPLEX = [np.complex64]


def shapes(seed, count, max_rank=3, max_dim=9):
    g = np.random.default_rng(seed)
    out = [(), (1,), (0, 3)]
    while len(out) < count:
        rank = int(g.integers(1, max_rank + 1))
        out.append(tuple(int(d) for d in g.integers(1, max_dim + 1, size=rank)))
    return out[:count]


def dtype_id(d):
    return np.dtype(d).name


UNARY_FLOAT = {
    "neg": jnp.negative, "abs": jnp.abs, "exp": jnp.exp, "expm1": jnp.expm1, "log1p_abs": lambda x: jnp.log1p(jnp.abs(x)),
    "log_abs": lambda x: jnp.log(jnp.abs(x) + 0.1), "sqrt_abs": lambda x: jnp.sqrt(jnp.abs(x)),
    "rsqrt": lambda x: jax.lax.rsqrt(jnp.abs(x) + 0.5), "cbrt": jnp.cbrt, "sin": jnp.sin, "cos": jnp.cos,
    "tan": lambda x: jnp.tan(x * 0.4), "tanh": jnp.tanh, "logistic": jax.nn.sigmoid, "erf": jax.scipy.special.erf,
    "erf_inv": lambda x: jax.scipy.special.erfinv(jnp.tanh(x) * 0.99), "lgamma": lambda x: jax.lax.lgamma(jnp.abs(x) + 0.1),
    "digamma": lambda x: jax.lax.digamma(jnp.abs(x) + 0.1), "floor": jnp.floor, "ceil": jnp.ceil,
    "round": jnp.round, "sign": jnp.sign, "atan": jnp.arctan, "asinh": jnp.arcsinh, "acos": lambda x: jnp.arccos(jnp.tanh(x)),
    "gelu": jax.nn.gelu, "softplus": jax.nn.softplus, "silu": jax.nn.silu, "is_finite": jnp.isfinite,
    "square": jnp.square, "reciprocal": lambda x: 1 / (jnp.abs(x) + 0.25),
}

# ULP-level differences in transcendental functions: per dtype tolerances of these checks.
LOOSE = {np.dtype(np.float32): 2e-5, np.dtype(np.float16): 4e-3, np.dtype(ml_dtypes.bfloat16): 2e-2, np.dtype(np.float64): 1e-12}


@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
@pytest.mark.parametrize("name", sorted(UNARY_FLOAT))
def test_unary_float(name, dtype):
    g = np.random.default_rng(hash(name) % 2 ** 32)
    for shape in shapes(1, 2 + WIDTH):
        x = rand(g, shape, dtype)
        tol = LOOSE[np.dtype(dtype)]
        check(UNARY_FLOAT[name], x, rtol=tol, atol=tol)


def test_unary_float64():
    with jax.enable_x64(True):
        g = np.random.default_rng(5)
        for name, f in sorted(UNARY_FLOAT.items()):
            x = rand(g, (33,), np.float64)
            check(f, x, rtol=1e-13, atol=1e-14)


BINARY = {
    "add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "max": jnp.maximum, "min": jnp.minimum,
    "eq": jnp.equal, "lt": jnp.less, "ge": jnp.greater_equal,
}
BINARY_FLOAT = {"div": lambda a, b: a / (jnp.abs(b) + 0.5), "pow": lambda a, b: jnp.abs(a) ** (b * 0.5),
                "atan2": jnp.arctan2, "rem": lambda a, b: jnp.fmod(a, jnp.abs(b) + 1), "nextafter": jnp.nextafter}
BINARY_INT = {"div": lambda a, b: jax.lax.div(*jnp.broadcast_arrays(a, jnp.where(b == 0, 1, b))),
              "rem": lambda a, b: jax.lax.rem(*jnp.broadcast_arrays(a, jnp.where(b == 0, 1, b))),
              "and": jnp.bitwise_and, "or": jnp.bitwise_or, "xor": jnp.bitwise_xor,
              "shl": lambda a, b: jax.lax.shift_left(*jnp.broadcast_arrays(a, (b % 5).astype(a.dtype))),
              "shr_a": lambda a, b: jax.lax.shift_right_arithmetic(*jnp.broadcast_arrays(a, (b % 5).astype(a.dtype))),
              "shr_l": lambda a, b: jax.lax.shift_right_logical(*jnp.broadcast_arrays(a, (b % 5).astype(a.dtype))),
              "floordiv": lambda a, b: a // jnp.where(b == 0, 1, b), "popcnt": lambda a, b: jax.lax.population_count(a) + b,
              "clz": lambda a, b: jax.lax.clz(a) ^ b}


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX + [np.bool_], ids=dtype_id)
def test_binary_with_broadcasting(dtype):
    g = np.random.default_rng(11)
    ops = dict(BINARY)
    if np.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16:
        ops.update(BINARY_FLOAT)
    elif np.dtype(dtype).kind in "iu":
        ops.update(BINARY_INT)
    elif np.dtype(dtype).kind == "c":
        ops = {"add": jnp.add, "mul": jnp.multiply, "sub": jnp.subtract, "eq": jnp.equal,
               "div": lambda a, b: a / (b + 3)}
    else:
        ops = {"and": jnp.logical_and, "or": jnp.logical_or, "xor": jnp.logical_xor, "eq": jnp.equal,
               "max": jnp.maximum}
    for (name, f), shape in itertools.product(sorted(ops.items()), shapes(2, 2 + WIDTH)):
        a = rand(g, shape, dtype)
        b = rand(g, shape[-1:] if shape else (), dtype)
        tol = LOOSE.get(np.dtype(dtype), 2e-5) if np.dtype(dtype).kind in "fcV" or dtype is ml_dtypes.bfloat16 else 0
        check(f, a, b, rtol=tol or None, atol=tol or None)


def test_division_by_broadcasts_gives_xlas_bits():
    # XLA:CPU computes x / broadcast(s) as x * broadcast(1 / s) (f16, f32, f64; bf16 rounds one
    # f32 quotient): softmax, layer norm and means divide this way. Both backends give the same bits.
    with jax.enable_x64(True):
        g = np.random.default_rng(12)
        for dtype in (np.float16, np.float32, np.float64, ml_dtypes.bfloat16):
            x = rand(g, (37, 24), dtype)
            rows = (np.abs(rand(g, (37, 1), dtype).astype(np.float32)) + 0.5).astype(dtype)
            cols = (np.abs(rand(g, (24,), dtype).astype(np.float32)) + 0.5).astype(dtype)
            scalar = np.asarray(g.random() + 0.5, dtype)
            for s in (rows, cols, scalar):
                check(lambda a, s: a / s, x, s, rtol=0, atol=0)
                check(lambda a, s: (a - 1) / (s * 2), x, s, rtol=0, atol=0)


def test_integer_x64_and_conversions():
    with jax.enable_x64(True):
        g = np.random.default_rng(3)
        for dtype in INTS_X64 + [np.int32, np.float64, np.complex128]:
            a = rand(g, (4, 6), dtype)
            b = rand(g, (6,), dtype)
            check(lambda a, b: (a + b, a * b, jnp.maximum(a, b), a.sum(0), a.astype(np.float32)), a, b)
    # Every conversion between a sample of dtypes, with values each type holds.
    g = np.random.default_rng(4)
    types = [np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.uint8, np.int32, np.uint32, np.bool_,
             np.complex64, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.int4, ml_dtypes.uint4]
    for src, dst in itertools.product(types, types):
        if np.dtype(src).kind == "c" and np.dtype(dst).kind != "c":
            continue
        x = rand(g, (17,), np.float32, -6, 6).astype(src) if src not in (np.bool_,) else rand(g, (17,), np.bool_)
        check(lambda a: jax.lax.convert_element_type(a, dst), x)


REDUCTIONS = {"sum": jnp.sum, "prod": lambda x, axis: jnp.prod(x * 0.02 + 1, axis=axis), "max": jnp.max,
              "min": jnp.min, "mean": jnp.mean, "argmax": jnp.argmax, "argmin": jnp.argmin, "any": lambda x, axis: jnp.any(x > 0, axis=axis),
              "all": lambda x, axis: jnp.all(x > -2, axis=axis), "logsumexp": jax.nn.logsumexp, "var": jnp.var,
              "softmax": lambda x, axis: jax.nn.softmax(x, axis=axis), "norm": lambda x, axis: jnp.linalg.norm(x, axis=axis)}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_along_each_axis(name):
    g = np.random.default_rng(hash(name) % 2 ** 32)
    f = REDUCTIONS[name]
    for shape in shapes(3, 3 + WIDTH, max_dim=40)[3:] + [(3, 130, 7), (1000,)]:
        for dtype in (np.float32, np.int32) if name not in ("logsumexp", "var", "softmax", "norm", "mean") else (np.float32,):
            x = rand(g, shape, dtype)
            for axis in list(range(len(shape))) + [None]:
                if name in ("argmax", "argmin") and axis is None:
                    continue
                check(lambda a: f(a, axis=axis), x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
def test_cumulative(op):
    g = np.random.default_rng(8)
    f = {"cumsum": jnp.cumsum, "cumprod": lambda x, axis: jnp.cumprod(1 + x * 0.1, axis=axis),
         "cummax": jax.lax.cummax, "cummin": jax.lax.cummin, "cumlogsumexp": jax.lax.cumlogsumexp}[op]
    for shape in [(50,), (4, 33), (3, 5, 7)]:
        for dtype in (np.float32, np.int32) if op in ("cumsum", "cummax", "cummin") else (np.float32,):
            x = rand(g, shape, dtype)
            for axis in range(len(shape)):
                check(lambda a: f(a, axis=axis), x, rtol=1e-4, atol=1e-4)
                if op in ("cumsum", "cummax"):
                    r = {"cumsum": jax.lax.cumsum, "cummax": jax.lax.cummax}[op]
                    check(lambda a: r(a, axis=axis, reverse=True), x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float16, ml_dtypes.bfloat16], ids=dtype_id)
def test_sort_argsort_topk(dtype):
    g = np.random.default_rng(9)
    for shape in [(1,), (7,), (5, 64), (3, 4, 100)]:
        x = rand(g, shape, dtype)
        check(lambda a: jnp.sort(a, axis=-1), x)
        check(lambda a: jnp.sort(a, axis=0), x)
        check(lambda a: jnp.argsort(a, axis=-1, stable=True), x)
        check(lambda a: jax.lax.top_k(a, min(3, a.shape[-1])), x)
    f = np.float32([3, np.nan, -0.0, 0.0, -np.inf, 1, np.nan, np.inf, -1])
    check(jnp.sort, f)
    check(lambda a: jnp.argsort(a, stable=True), f)
    check(lambda a, b: jax.lax.sort((a, b), num_keys=1), rand(g, (40,), np.int32) % 4, rand(g, (40,), np.float32))


def test_gather_scatter_segment(rng):
    x = rand(rng, (10, 6), np.float32)
    idx = rng.integers(-3, 12, size=(7,)).astype(np.int32)
    check(lambda a, i: a[i], x, idx)  # clamped
    check(lambda a, i: a[i, 1:4], x, idx)
    check(lambda a, i: jnp.take(a, i, axis=1, mode="fill", fill_value=-1), x, idx)
    check(lambda a, i: jnp.take_along_axis(a[:6], jnp.abs(i[:6, None]) % 6 * jnp.ones((1, 6), np.int32), axis=1), x, idx)
    upd = rand(rng, (7, 6), np.float32)
    check(lambda a, i, u: a.at[i].add(u), x, idx, upd, rtol=1e-5)
    check(lambda a, i, u: a.at[i].set(u, mode="drop"), x, np.abs(idx), upd)
    check(lambda a, i, u: a.at[i].max(u), x, np.abs(idx) % 10, upd)
    check(lambda a, i, u: a.at[i].mul(u), x, np.abs(idx) % 10, upd, rtol=1e-5)
    seg = rng.integers(0, 5, size=(10,)).astype(np.int32)
    for op in (jax.ops.segment_sum, jax.ops.segment_max, jax.ops.segment_min, jax.ops.segment_prod):
        check(lambda a, s: op(a, s, num_segments=5), x, seg, rtol=1e-5)
    # Embedding lookup and its gradient (a scatter-add).
    emb = rand(rng, (50, 8), np.float32)
    ids = rng.integers(0, 50, size=(4, 9)).astype(np.int32)
    check(jax.grad(lambda e, i: jnp.sum(jnp.tanh(e[i]) ** 2)), emb, ids, rtol=1e-5, atol=1e-6)
    check(lambda a: jnp.nonzero(a > 0, size=20, fill_value=-1), x)
    check(lambda a: jnp.where(a > 0, a, 0).at[::2, ::3].get(), x)
    # A table beyond the caches (rows asked for ahead of use): lookups clamped at both ends,
    # repeated rows, scatter-adds with out-of-range rows dropped.
    big = rand(rng, (20000, 64), np.float32)
    rows = rng.integers(-5, 20005, size=(700,)).astype(np.int32)
    rows[::7] = rows[3]
    check(lambda a, i: jnp.take(a, i, axis=0, mode="clip") * 2, big, rows)
    check(lambda a, i, u: a.at[i].add(u, mode="drop"), big, rows, rand(rng, (700, 64), np.float32), rtol=1e-5)
    # The gradient of a scaled lookup: the scatter reads each row from the table as it applies it
    # (the lookup and its scaling fused into the scatter; no gathered rows stored).
    check(jax.grad(lambda e, i: jnp.sum(e[i] ** 2)), big, rows % 20000 - 10000, rtol=1e-5)
    check(jax.grad(lambda e, i: jnp.sum(jnp.take(e, i, axis=0, mode="clip") ** 3)), big, rows, rtol=1e-5)


def test_dot_einsum_preferred_types(rng):
    a = rand(rng, (6, 10), np.float32)
    b = rand(rng, (10, 4), np.float32)
    check(jnp.dot, a, b, rtol=1e-5, atol=1e-5)
    check(lambda x, y: jnp.einsum("ij,jk->ki", x, y), a, b, rtol=1e-5, atol=1e-5)
    bt = rand(rng, (3, 6, 10), np.float32)
    check(lambda x, y: jnp.einsum("bij,jk->bik", x, y), bt, b, rtol=1e-5, atol=1e-5)
    check(lambda x, y: jnp.einsum("bij,bkj->bik", x, y), bt, bt, rtol=1e-5, atol=1e-5)
    i8 = rand(rng, (5, 7), np.int8)
    j8 = rand(rng, (7, 3), np.int8)
    check(lambda x, y: jax.lax.dot(x, y, preferred_element_type=jnp.int32), i8, j8)
    h = rand(rng, (5, 7), np.float16)
    k = rand(rng, (7, 3), np.float16)
    check(lambda x, y: jax.lax.dot(x, y, preferred_element_type=jnp.float32), h, k, rtol=1e-3, atol=1e-3)
    bf = rand(rng, (5, 7), ml_dtypes.bfloat16)
    check(lambda x, y: jnp.matmul(x, y), bf, rand(rng, (7, 9), ml_dtypes.bfloat16), rtol=2e-2, atol=5e-2)
    c = rand(rng, (4, 4), np.complex64)
    check(jnp.matmul, c, c, rtol=1e-5, atol=1e-5)
    check(lambda x, y: jnp.tensordot(x, y, axes=([0, 2], [1, 0])), rand(rng, (3, 4, 5), np.float32),
          rand(rng, (5, 3, 2), np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", range(6))
def test_conv_general_dilated(case):
    g = np.random.default_rng(100 + case)
    n, c, o = 2, int(g.integers(1, 5)), int(g.integers(1, 6))
    hw = tuple(int(v) for v in g.integers(5, 12, size=2))
    k = tuple(int(v) for v in g.integers(1, 4, size=2))
    strides = tuple(int(v) for v in g.integers(1, 3, size=2))
    rhs_dil = tuple(int(v) for v in g.integers(1, 3, size=2))
    lhs_dil = (1, 1) if case % 2 else tuple(int(v) for v in g.integers(1, 3, size=2))
    pad = [(int(g.integers(0, 3)), int(g.integers(0, 3))) for _ in range(2)]
    groups = 1 if case % 3 else 1
    x = rand(g, (n, c) + hw, np.float32)
    w = rand(g, (o, c // groups) + k, np.float32)
    conv = lambda x, w: jax.lax.conv_general_dilated(x, w, strides, pad, lhs_dil, rhs_dil,
                                                     feature_group_count=groups)
    check(conv, x, w, rtol=1e-4, atol=1e-4)
    check(jax.grad(lambda x, w: conv(x, w).sum() ** 2, argnums=(0, 1)), x, w, rtol=1e-3, atol=1e-3)
    # NHWC with HWIO, as flax writes it, and a depthwise convolution.
    xh = np.moveaxis(x, 1, -1).copy()
    wh = np.moveaxis(rand(g, (o * c, 1) + k, np.float32), (0, 1), (-1, -2)).copy()
    check(lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                                    feature_group_count=c), xh, wh, rtol=1e-4, atol=1e-4)


def test_windowed_and_shape_ops(rng):
    x = rand(rng, (2, 9, 9, 3), np.float32)
    check(lambda a: jax.lax.reduce_window(a, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), x)
    check(jax.grad(lambda a: jax.lax.reduce_window(a, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum()), x)
    check(lambda a: jax.lax.reduce_window(a, 0.0, jax.lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9, x, rtol=1e-5)
    y = rand(rng, (4, 6, 5), np.float32)
    check(lambda a: (jnp.transpose(a, (2, 0, 1)), a.reshape(6, 20), jnp.flip(a, 1), jnp.roll(a, 3, axis=2),
                     jnp.pad(a, ((1, 2), (0, 3), (2, 0)), mode="reflect"), jnp.concatenate([a, a[:2]], 0),
                     jnp.tile(a[:1], (2, 1, 1)), jnp.repeat(a, 2, axis=1), a[::-2, 1:5:2], jnp.triu(a[0]),
                     jax.lax.dynamic_slice(a, (1, 2, 0), (2, 3, 5)), jnp.stack(jnp.split(a, 3, axis=1)),
                     jax.lax.dynamic_update_slice(a, a[:1, :2] * 0, (3, 4, 3))), y)
    check(lambda a: jax.image.resize(a, (4, 12, 10), "linear"), y, rtol=1e-5, atol=1e-6)
    check(lambda a: jnp.unique(a.astype(jnp.int32), size=10, fill_value=0), y * 3)
    check(lambda a: jnp.searchsorted(jnp.sort(a.ravel()), a[0, 0]), y)
    check(lambda a: jnp.histogram(a, bins=7, range=(-3, 3))[0], y)
    check(lambda a: jnp.interp(a, jnp.linspace(-3, 3, 11), jnp.sin(jnp.linspace(-3, 3, 11))), y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float16, np.float64], ids=dtype_id)
def test_transposes_by_blocks(dtype):
    """Transposes whose planes go by register blocks (4-byte elements) or element by element,
    with whole blocks, ragged edges and planes smaller than a block, alone and batched: exactly
    XLA's."""
    g = np.random.default_rng(9)
    with jax.enable_x64(True):
        for shape, perm in (((256, 256), (1, 0)), ((70, 13), (1, 0)), ((129, 67), (1, 0)), ((8, 8), (1, 0)),
                            ((3, 40, 17), (0, 2, 1)), ((17, 3, 40), (2, 1, 0)), ((5, 64, 9), (1, 2, 0))):
            x = rand(g, shape, dtype)
            check(lambda a: jnp.transpose(a, perm), x)


# Per dtype: a shift that takes exp into the subnormal range, and a divisor (passed as an
# argument, so that XLA does not turn the division into a product by its reciprocal) doing the same.
SUBNORMAL_SHIFT = {np.dtype(np.float16): (-16.0, 6e4), np.dtype(np.float32): (-95.0, 1e38),
                   np.dtype(np.float64): (-720.0, 1e308)}
SUBNORMAL_OPS = {
    "scale_into_subnormals": lambda x, s, d, k: x * s[0],
    "subnormal_inputs_added": lambda x, s, d, k: s + s,
    "exp_underflow": lambda x, s, d, k: jnp.exp(x + k),
    "sum_of_subnormals": lambda x, s, d, k: jnp.sum(s * 3.0),
    "dot_of_subnormals": lambda x, s, d, k: s[None, :] @ jnp.ones((s.shape[0], 4), s.dtype),
    "divide_into_subnormals": lambda x, s, d, k: x / d,
}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64], ids=dtype_id)
@pytest.mark.parametrize("name", sorted(SUBNORMAL_OPS))
def test_subnormals_as_xla(name, dtype):
    """Subnormal results and inputs: flushed to zero exactly where XLA:CPU flushes them (the
    plugin's default flush_denormals), bit for bit."""
    with jax.enable_x64(dtype == np.float64):
        g = np.random.default_rng(11)
        tiny = np.finfo(dtype).tiny
        x = (g.random(64) * 4 + 1).astype(dtype)
        s = (g.random(64) * tiny * 0.9).astype(dtype)  # every element subnormal (or 0)
        s[0] = tiny / 8  # x * s[0] is subnormal too
        k, d = SUBNORMAL_SHIFT[np.dtype(dtype)]
        check(SUBNORMAL_OPS[name], x, s, np.full(64, d, dtype), np.asarray(k, dtype), rtol=0, atol=0)
