#!/usr/bin/env python3
"""Writes pooling.mlir: the window ops and reductions that run as typed loops when their regions
are one op or JAX's argmax reducer (src/cpu/kernels/kernels_pool.cc, kernels_argreduce.cc): max, min
and sum pooling over NHWC and NCHW layouts (channels folded side by side, vector-sized or not,
padding and dilation holes), cumulative windows forward and reverse, max pooling's gradient
(select_and_scatter) with ties and overlapping windows, and argmax / argmin as jnp.argmax writes
them (iota indices or not, NaN, 16 and 64 rows at a time with leftovers, few long rows cut into
pieces, a middle dimension, several value and index types; f32 rows whose fold is a selection,
with both results checked bit for bit against the reducer's left fold: signed zeros as the
extreme, NaN payloads, infinities, ties across 256-element chunks, reducers with and without the
NaN term, GE / LE, init values that win, tie or are NaN), and sorts whose comparator is one
compare of the keys (TOTALORDER floats with NaN, infinities and signed zeros, integers, both
directions, stable among equal keys). Expected values come from numpy and
direct models of the specification; inputs are built in the program from iota, and the values
are small integers, so every type holds them and every sum is exact.

    /usr/bin/python3 tests/e2e/gen_pooling.py > tests/e2e/pooling.mlir
"""
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_region_reductions import lit, ttype, window_ref  # noqa: E402

NP = {"f32": np.float32, "f64": np.float64, "bf16": np.float32, "f16": np.float16, "i32": np.int32,
      "i64": np.int64, "ui32": np.uint32}


def values(shape, coeffs, m, off, et, name="%x"):
    """x = (sum_d coeffs[d] * i_d) % m - off over iotas, as numpy and as StableHLO of type et."""
    idx = np.indices(shape)
    x = (sum(c * i for c, i in zip(coeffs, idx)) % m - off).astype(np.int64)
    I = ttype(shape, "i32")
    lines = [f"  %acc0 = stablehlo.constant dense<0> : {I}"]
    for d, c in enumerate(coeffs):
        lines += [f"  %io{d} = stablehlo.iota dim = {d} : {I}",
                  f"  %co{d} = stablehlo.constant dense<{c}> : {I}",
                  f"  %te{d} = stablehlo.multiply %io{d}, %co{d} : {I}",
                  f"  %acc{d + 1} = stablehlo.add %acc{d}, %te{d} : {I}"]
    lines += [f"  %mod = stablehlo.constant dense<{m}> : {I}",
              f"  %off = stablehlo.constant dense<{off}> : {I}",
              f"  %rem = stablehlo.remainder %acc{len(coeffs)}, %mod : {I}",
              f"  %xi = stablehlo.subtract %rem, %off : {I}"]
    if et == "i32":
        lines.append(f"  {name} = stablehlo.add %xi, %acc0 : {I}")
    else:
        lines.append(f"  {name} = stablehlo.convert %xi : ({I}) -> {ttype(shape, et)}")
    return x, "\n".join(lines)


def window_attrs(wdims, strides, pads, bdil=None, wdil=None):
    rank = len(wdims)
    bdil, wdil = bdil or [1] * rank, wdil or [1] * rank
    pad_text = ", ".join(f"[{lo}, {hi}]" for lo, hi in pads)
    return (f"window_dimensions = array<i64: {', '.join(map(str, wdims))}>, "
            f"window_strides = array<i64: {', '.join(map(str, strides))}>, "
            f"base_dilations = array<i64: {', '.join(map(str, bdil))}>, "
            f"window_dilations = array<i64: {', '.join(map(str, wdil))}>, "
            f"padding = dense<[{pad_text}]> : tensor<{rank}x2xi64>")


def check_result(want, et, sums):
    """Checks %r against want: every element, or (sums) the sums over all but the last dimension."""
    R = ttype(want.shape, et)
    if not sums:
        return f"  check.expect_eq_const %r, {lit(want.astype(NP[et]))} : {R}"
    dims = ", ".join(str(d) for d in range(want.ndim - 1))
    total = want.astype(np.float64).sum(axis=tuple(range(want.ndim - 1)))
    S = ttype(total.shape, et)
    return "\n".join([f"  %z = stablehlo.constant dense<0> : tensor<{et}>" if et[0] in "iu" else
                      f"  %z = stablehlo.constant dense<0.0> : tensor<{et}>",
                      f"  %sums = stablehlo.reduce(%r init: %z) applies stablehlo.add across dimensions = [{dims}] : "
                      f"({R}, tensor<{et}>) -> {S}",
                      f"  check.expect_eq_const %sums, {lit(total.astype(NP[et]))} : {S}"])


def reduce_window_text(et, body, attrs, T, R):
    """%r = reduce_window(%x, %init) with the one-op body `body`."""
    return "\n".join(['  %r = "stablehlo.reduce_window"(%x, %init) ({',
                      f"  ^bb0(%p: tensor<{et}>, %q: tensor<{et}>):",
                      f"    %v = {body} %p, %q : tensor<{et}>",
                      f"    stablehlo.return %v : tensor<{et}>",
                      f"  }}) {{{attrs}}} : ({T}, tensor<{et}>) -> {R}"])


def pool_case(name, shape, coeffs, m, off, et, body, op, init_text, init_value, wdims, strides, pads,
              bdil=None, wdil=None, sums=False):
    x, text = values(shape, coeffs, m, off, et)
    rank = len(shape)
    bd, wd = bdil or [1] * rank, wdil or [1] * rank
    want = window_ref([x.astype(np.float64)], [init_value], lambda acc, v: [op(acc[0], v[0])],
                      wdims, strides, pads, bd, wd)[0]
    T, R = ttype(shape, et), ttype(want.shape, et)
    return "\n".join([
        f"func.func @{name}() {{", text,
        f"  %init = stablehlo.constant dense<{init_text}> : tensor<{et}>",
        reduce_window_text(et, body, window_attrs(wdims, strides, pads, bdil, wdil), T, R),
        check_result(want, et, sums),
        "  func.return", "}"])


def cumulative_case(name, shape, dim, reverse, coeffs, m, off, et, body, op, init_text, init_value, sums=False):
    x, text = values(shape, coeffs, m, off, et)
    n = shape[dim]
    pads = [[0, 0] for _ in shape]
    pads[dim] = [0, n - 1] if reverse else [n - 1, 0]
    wdims = [1] * len(shape)
    wdims[dim] = n
    xs = (np.flip(x, dim) if reverse else x).astype(np.float64)
    want = op.accumulate(np.concatenate([np.full_like(np.take(xs, [0], axis=dim), init_value), xs], axis=dim),
                         axis=dim)
    want = np.delete(want, 0, axis=dim)
    if reverse:
        want = np.flip(want, dim)
    T = ttype(shape, et)
    return "\n".join([
        f"func.func @{name}() {{", text,
        f"  %init = stablehlo.constant dense<{init_text}> : tensor<{et}>",
        reduce_window_text(et, body, window_attrs(wdims, [1] * len(shape), pads), T, T),
        check_result(want, et, sums),
        "  func.return", "}"])


def select_and_scatter_ref(x, src, keep, wdims, strides, pads):
    """The specification's select_and_scatter with an adding scatter and init 0."""
    out = np.zeros(x.shape, np.int64)
    for o in itertools.product(*[range(k) for k in src.shape]):
        sel = None
        for w in itertools.product(*[range(k) for k in wdims]):
            idx = tuple(o[d] * strides[d] + w[d] - pads[d][0] for d in range(x.ndim))
            if any(i < 0 or i >= x.shape[d] for d, i in enumerate(idx)):
                continue
            if sel is None or not keep(x[sel], x[idx]):
                sel = idx
        if sel is not None:
            out[sel] += src[o]
    return out


def bf16_round(v):
    """float32 -> the nearest bf16 (ties to even), as float32."""
    b = int(np.float32(v).view(np.uint32))
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return np.uint32(b & 0xFFFFFFFF).view(np.float32)


def bf16_sum_pool_nchw_case(name, shape, seed):
    """A 3x3 stride-1 sum pool (padding 1) over the last two dimensions of bf16 values k * 2^e,
    whose sums round differently in other orders: the expected values fold each window in
    row-major order from init 0, rounding to bf16 after every add."""
    rng = np.random.default_rng(seed)
    x = (rng.integers(-15, 16, shape) * 2.0 ** rng.integers(0, 9, shape)).astype(np.float32)
    n, c, h, w = shape
    want = np.zeros(shape, np.float32)
    for i0, i1, i2, i3 in itertools.product(range(n), range(c), range(h), range(w)):
        acc = np.float32(0)
        for a, b in itertools.product(range(3), range(3)):
            y, z = i2 + a - 1, i3 + b - 1
            v = x[i0, i1, y, z] if 0 <= y < h and 0 <= z < w else np.float32(0)
            acc = bf16_round(np.float32(acc) + np.float32(v))
        want[i0, i1, i2, i3] = acc
    flat = ", ".join(repr(float(v)) for v in x.reshape(-1))
    T32, T = ttype(shape, "f32"), ttype(shape, "bf16")
    return "\n".join([
        f"func.func @{name}() {{",
        f"  %flat = stablehlo.constant dense<[{flat}]> : tensor<{x.size}xf32>",
        f"  %x32 = stablehlo.reshape %flat : (tensor<{x.size}xf32>) -> {T32}",
        f"  %x = stablehlo.convert %x32 : ({T32}) -> {T}",
        "  %init = stablehlo.constant dense<0.0> : tensor<bf16>",
        reduce_window_text("bf16", "stablehlo.add",
                           window_attrs([1, 1, 3, 3], [1, 1, 1, 1], [[0, 0], [0, 0], [1, 1], [1, 1]]), T, T),
        f"  %r32 = stablehlo.convert %r : ({T}) -> {T32}",
        f"  check.expect_eq_const %r32, {lit(want)} : {T32}",
        "  func.return", "}"])


def sas_case(name, shape, coeffs, m, et, cmp_text, keep, wdims, strides, pads, weighted_sums=False, nan_at=None):
    """select_and_scatter with an add scatter, checked element by element or (weighted_sums) by
    per-channel sums of the result (converted to i32 when it is f32: its values are whole
    numbers) times its flat position % 1000 + 1 (so that an add landing on the wrong element
    changes them). nan_at: the value of x replaced by NaN (f32)."""
    x, text = values(shape, coeffs, m, 0, et, name="%x0" if nan_at is not None else "%x")
    if nan_at is not None:
        x = np.where(x == nan_at, np.nan, x.astype(np.float64))
        T0 = ttype(shape, et)
        text += "\n".join(["", f"  %nanv = stablehlo.constant dense<0x7FC00000> : {T0}",
                            f"  %at = stablehlo.constant dense<{float(nan_at)}> : {T0}",
                            f"  %isat = stablehlo.compare EQ, %x0, %at, FLOAT : ({T0}, {T0}) -> {ttype(shape, 'i1')}",
                            f"  %x = stablehlo.select %isat, %nanv, %x0 : {ttype(shape, 'i1')}, {T0}"])
    padded = [shape[d] + pads[d][0] + pads[d][1] for d in range(len(shape))]
    sshape = tuple((padded[d] - wdims[d]) // strides[d] + 1 for d in range(len(shape)))
    src = (np.arange(int(np.prod(sshape))).reshape(sshape) % 13 + 1).astype(np.int64)
    want = select_and_scatter_ref(x, src, keep, wdims, strides, pads)
    T, S = ttype(shape, et), ttype(sshape, et)
    n = int(np.prod(sshape))
    return "\n".join([
        f"func.func @{name}() {{", text,
        f"  %sflat = stablehlo.iota dim = 0 : tensor<{n}xi32>",
        f"  %c13 = stablehlo.constant dense<13> : tensor<{n}xi32>",
        f"  %c1 = stablehlo.constant dense<1> : tensor<{n}xi32>",
        f"  %sr = stablehlo.remainder %sflat, %c13 : tensor<{n}xi32>",
        f"  %s1 = stablehlo.add %sr, %c1 : tensor<{n}xi32>",
        f"  %s2 = stablehlo.reshape %s1 : (tensor<{n}xi32>) -> {ttype(sshape, 'i32')}",
        f"  %s = stablehlo.convert %s2 : ({ttype(sshape, 'i32')}) -> {S}" if et != "i32" else
        f"  %s = stablehlo.add %s2, %s2 : {S}",
        f"  %zero = stablehlo.constant dense<0> : tensor<{et}>",
        f'  {"%rf" if weighted_sums and et != "i32" else "%r"} = "stablehlo.select_and_scatter"(%x, %s, %zero) ({{',
        f"  ^bb0(%a: tensor<{et}>, %b: tensor<{et}>):",
        f"    %c = {cmp_text} : (tensor<{et}>, tensor<{et}>) -> tensor<i1>",
        "    stablehlo.return %c : tensor<i1>",
        "  }, {",
        f"  ^bb0(%a: tensor<{et}>, %b: tensor<{et}>):",
        f"    %c = stablehlo.add %a, %b : tensor<{et}>",
        f"    stablehlo.return %c : tensor<{et}>",
        f"  }}) {{{window_attrs(wdims, strides, pads)}}} : ({T}, {S}, tensor<{et}>) -> {T}",
        *([f"  %r = stablehlo.convert %rf : ({T}) -> {ttype(shape, 'i32')}"] if weighted_sums and et != "i32" else []),
        *(weighted_check(want * (2 if et == 'i32' else 1), "i32") if weighted_sums else
          [f"  check.expect_eq_const %r, {lit((want * (2 if et == 'i32' else 1)).astype(NP[et]))} : {T}"]),
        "  func.return", "}"])


def weighted_check(want, et):
    """Lines checking %r by sums over all but the last dimension of %r * (flat position % 1000 + 1)."""
    n = want.size
    T = ttype(want.shape, et)
    w = (np.arange(n) % 1000 + 1).reshape(want.shape)
    total = (want.astype(np.int64) * w).sum(axis=tuple(range(want.ndim - 1)))
    S = ttype(total.shape, et)
    dims = ", ".join(str(d) for d in range(want.ndim - 1))
    return [f"  %wf = stablehlo.iota dim = 0 : tensor<{n}x{et}>",
            f"  %wm = stablehlo.constant dense<1000> : tensor<{n}x{et}>",
            f"  %w1 = stablehlo.constant dense<1> : tensor<{n}x{et}>",
            f"  %wr = stablehlo.remainder %wf, %wm : tensor<{n}x{et}>",
            f"  %wa = stablehlo.add %wr, %w1 : tensor<{n}x{et}>",
            f"  %w = stablehlo.reshape %wa : (tensor<{n}x{et}>) -> {T}",
            f"  %rw = stablehlo.multiply %r, %w : {T}",
            f"  %z = stablehlo.constant dense<0> : tensor<{et}>",
            f"  %sums = stablehlo.reduce(%rw init: %z) applies stablehlo.add across dimensions = [{dims}] : "
            f"({T}, tensor<{et}>) -> {S}",
            f"  check.expect_eq_const %sums, {lit(total.astype(NP[et]))} : {S}"]


def jax_arg_reducer(vt, it, pick, signed="SIGNED", value_by_q=False):
    """The reducer jnp.argmax (pick GT) / jnp.argmin (pick LT) writes: the value is chosen by p,
    the index by q (value_by_q chooses both by q, as some exporters write it)."""
    ct = "FLOAT" if vt[0] in "fb" else "SIGNED"
    return f"""   reducer(%a: tensor<{vt}>, %c: tensor<{vt}>) (%b: tensor<{it}>, %d: tensor<{it}>) {{
    %p0 = stablehlo.compare {pick}, %a, %c, {ct} : (tensor<{vt}>, tensor<{vt}>) -> tensor<i1>
    %nan = stablehlo.compare NE, %a, %a, {ct} : (tensor<{vt}>, tensor<{vt}>) -> tensor<i1>
    %p = stablehlo.or %p0, %nan : tensor<i1>
    %eq = stablehlo.compare EQ, %a, %c, {ct} : (tensor<{vt}>, tensor<{vt}>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b, %d, {signed} : (tensor<{it}>, tensor<{it}>) -> tensor<i1>
    %an = stablehlo.and %eq, %lt : tensor<i1>
    %q = stablehlo.or %p, %an : tensor<i1>
    %v = stablehlo.select {'%q' if value_by_q else '%p'}, %a, %c : tensor<i1>, tensor<{vt}>
    %i = stablehlo.select %q, %b, %d : tensor<i1>, tensor<{it}>
    stablehlo.return %v, %i : tensor<{vt}>, tensor<{it}>
  }}"""


def arg_ref(x, idx, dim, pick):
    """The left fold of JAX's reducer from (-inf or +inf, 0) along dim: first NaN, else the
    smallest index among the extreme values."""
    xm = np.moveaxis(x, dim, -1)
    im = np.moveaxis(idx, dim, -1)
    out = np.empty(xm.shape[:-1], np.int64)
    for pos in itertools.product(*[range(k) for k in xm.shape[:-1]]):
        row, irow = xm[pos], im[pos]
        nans = np.nonzero(np.isnan(row))[0]
        if len(nans):
            out[pos] = irow[nans[0]]
            continue
        best = row.max() if pick == "GT" else row.min()
        out[pos] = irow[row == best].min()
    return out


def arg_case(name, shape, dim, pick, vt, it, coeffs, m, nan_every=0, reversed_indices=False, value_by_q=False):
    x, text = values(shape, coeffs, m, m // 2, vt)
    xf = x.astype(np.float64)
    T, I = ttype(shape, vt), ttype(shape, it)
    lines = [f"func.func @{name}() {{", text]
    xv = "%x"
    if nan_every:
        # NaN where the flat position % nan_every == 7: several per row, the first one wins
        flat = np.arange(x.size).reshape(shape)
        xf = np.where(flat % nan_every == 7, np.nan, xf)
        n = x.size
        lines += [f"  %fl = stablehlo.iota dim = 0 : tensor<{n}xi32>",
                  f"  %ne = stablehlo.constant dense<{nan_every}> : tensor<{n}xi32>",
                  f"  %c7 = stablehlo.constant dense<7> : tensor<{n}xi32>",
                  f"  %fr = stablehlo.remainder %fl, %ne : tensor<{n}xi32>",
                  f"  %fm = stablehlo.compare EQ, %fr, %c7, SIGNED : (tensor<{n}xi32>, tensor<{n}xi32>) -> tensor<{n}xi1>",
                  f"  %mask = stablehlo.reshape %fm : (tensor<{n}xi1>) -> {ttype(shape, 'i1')}",
                  f"  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>",
                  f"  %nanv = stablehlo.convert %nan : (tensor<f32>) -> tensor<{vt}>",
                  f"  %nanb = stablehlo.broadcast_in_dim %nanv, dims = [] : (tensor<{vt}>) -> {T}",
                  f"  %x1 = stablehlo.select %mask, %nanb, %x : {ttype(shape, 'i1')}, {T}"]
        xv = "%x1"
    pos = np.indices(shape)[dim]
    lines.append(f"  %iota = stablehlo.iota dim = {dim} : {I}")
    if reversed_indices:
        # indices shape[dim] - 1 - position: not an iota, so they are read, and the smallest
        # index among equal extremes is the last one
        lines += [f"  %top = stablehlo.constant dense<{shape[dim] - 1}> : {I}",
                  f"  %ids = stablehlo.subtract %top, %iota : {I}"]
        pos = shape[dim] - 1 - pos
        iv = "%ids"
    else:
        iv = "%iota"
    want = arg_ref(xf, pos, dim, pick)
    init = ("0xFF800000" if pick == "GT" else "0x7F800000") if vt[0] in "fb" else \
        (str(-(1 << 31)) if pick == "GT" else str((1 << 31) - 1))
    init_type = "f32" if vt[0] in "fb" else vt
    out_shape = tuple(d for k, d in enumerate(shape) if k != dim)
    R, RI = ttype(out_shape, vt), ttype(out_shape, it)
    signed = "UNSIGNED" if it.startswith("ui") else "SIGNED"
    lines += [f"  %init = stablehlo.constant dense<{init}> : tensor<{init_type}>",
              f"  %initv = stablehlo.convert %init : (tensor<{init_type}>) -> tensor<{vt}>",
              f"  %zero = stablehlo.constant dense<0> : tensor<{it}>",
              f"  %r:2 = stablehlo.reduce({xv} init: %initv), ({iv} init: %zero) across dimensions = [{dim}] : "
              f"({T}, {I}, tensor<{vt}>, tensor<{it}>) -> ({R}, {RI})",
              jax_arg_reducer(vt, it, pick, signed, value_by_q),
              f"  check.expect_eq_const %r#1, {lit(want.astype(NP[it]))} : {RI}",
              "  func.return", "}"]
    return "\n".join(lines)


def arg_reducer_text(pick, it, nan_term=True, value_by_q=False, signed="SIGNED", vt="f32"):
    """A reducer of JAX's form over float values with DIR = pick (GT, GE, LT or LE), with or
    without the NaN term in p."""
    V = f"tensor<{vt}>"
    nan_lines = (f"    %nan = stablehlo.compare NE, %a, %a, FLOAT : ({V}, {V}) -> tensor<i1>\n"
                 "    %p = stablehlo.or %p0, %nan : tensor<i1>\n") if nan_term else ""
    p = "%p" if nan_term else "%p0"
    return f"""   reducer(%a: {V}, %c: {V}) (%b: tensor<{it}>, %d: tensor<{it}>) {{
    %p0 = stablehlo.compare {pick}, %a, %c, FLOAT : ({V}, {V}) -> tensor<i1>
{nan_lines}    %eq = stablehlo.compare EQ, %a, %c, FLOAT : ({V}, {V}) -> tensor<i1>
    %lt = stablehlo.compare LT, %b, %d, {signed} : (tensor<{it}>, tensor<{it}>) -> tensor<i1>
    %an = stablehlo.and %eq, %lt : tensor<i1>
    %q = stablehlo.or {p}, %an : tensor<i1>
    %v = stablehlo.select {'%q' if value_by_q else p}, %a, %c : tensor<i1>, {V}
    %i = stablehlo.select %q, %b, %d : tensor<i1>, tensor<{it}>
    stablehlo.return %v, %i : {V}, tensor<{it}>
  }}"""


def arg_fold_ref(row, pick, nan_term, value_by_q, init_v, init_i):
    """The left fold of that reducer along a row from (init_v, init_i), the index being the
    position: the region's own schedule, element by element."""
    av, ai = np.float32(init_v), int(init_i)
    for k, x in enumerate(row):
        a, c = float(av), float(x)
        better = {"GT": a > c, "GE": a >= c, "LT": a < c, "LE": a <= c}[pick]
        p = better or (nan_term and a != a)
        q = p or (a == c and ai < k)
        if not (q if value_by_q else p):
            av = np.float32(x)
        if not q:
            ai = k
    return av, ai


def select_case(name, rows, pick, it, nan_term=True, value_by_q=False, init=None, vt="f32"):
    """Rows of floats (vt: f32, or bf16 / f16 converted from f32 in the program) reduced along
    their last dimension with iota indices by a reducer of JAX's form: both results checked (the
    value's bits as f32, so the sign of a zero and a NaN's payload count) against the reducer's
    left fold. The values are half-integers, infinities and NaNs, exact in every vt; for bf16 and
    f16 NaNs are the quiet ones of either sign, which convert both ways unchanged."""
    rows = np.asarray(rows, np.float32)
    if vt != "f32":
        rows = np.where(np.isnan(rows), np.where(np.signbit(rows), np.float32(-np.nan), np.float32(np.nan)), rows)
        rows = rows.astype(np.float32)
    n, m = rows.shape
    init_v, init_i = init if init is not None else (-np.inf if pick[0] == "G" else np.inf, 0)
    got = [arg_fold_ref(r, pick, nan_term, value_by_q, init_v, init_i) for r in rows]
    want_bits = np.array([np.float32(v).view(np.int32) for v, _ in got], np.int32)
    want_idx = np.array([i for _, i in got], NP[it])
    flat = ", ".join(float_text(v, "f32") for v in rows.reshape(-1))
    T32, T, I = ttype(rows.shape, "f32"), ttype(rows.shape, vt), ttype(rows.shape, it)
    R32, R, RI, RB = ttype((n,), "f32"), ttype((n,), vt), ttype((n,), it), ttype((n,), "i32")
    signed = "UNSIGNED" if it.startswith("ui") else "SIGNED"
    return "\n".join([
        f"func.func @{name}() {{",
        f"  %flat = stablehlo.constant dense<[{flat}]> : tensor<{rows.size}xf32>",
        f"  %x32 = stablehlo.reshape %flat : (tensor<{rows.size}xf32>) -> {T32}",
        f"  %x = stablehlo.convert %x32 : ({T32}) -> {T}",
        f"  %iota = stablehlo.iota dim = 1 : {I}",
        f"  %initv32 = stablehlo.constant dense<{float_text(np.float32(init_v), 'f32')}> : tensor<f32>",
        f"  %initv = stablehlo.convert %initv32 : (tensor<f32>) -> tensor<{vt}>",
        f"  %initi = stablehlo.constant dense<{init_i}> : tensor<{it}>",
        f"  %r:2 = stablehlo.reduce(%x init: %initv), (%iota init: %initi) across dimensions = [1] : "
        f"({T}, {I}, tensor<{vt}>, tensor<{it}>) -> ({R}, {RI})",
        arg_reducer_text(pick, it, nan_term, value_by_q, signed, vt),
        f"  %v32 = stablehlo.convert %r#0 : ({R}) -> {R32}",
        f"  %bits = stablehlo.bitcast_convert %v32 : ({R32}) -> {RB}",
        f"  check.expect_eq_const %bits, {lit(want_bits)} : {RB}",
        f"  check.expect_eq_const %r#1, {lit(want_idx)} : {RI}",
        "  func.return", "}"])


def select_rows(n, m, seed):
    """n rows of m small half-integers (many ties), then rows with the extreme and its ties at
    chunk edges (256 elements), signed zeros as the extreme in different chunks, NaNs with
    payloads, infinities."""
    rng = np.random.default_rng(seed)
    rows = (rng.integers(-40, 40, (n, m)) * 0.5).astype(np.float32)
    neg = -(rng.integers(1, 40, (n, m)) * 0.5).astype(np.float32)
    if n > 0:
        rows[0] = neg[0]; rows[0, min(m - 1, 10)] = 0.0; rows[0, min(m - 1, 500)] = -0.0  # max +0 then -0
    if n > 1:
        rows[1] = neg[1]; rows[1, min(m - 1, 3)] = -0.0; rows[1, min(m - 1, 299)] = 0.0  # max -0 then +0
    if n > 2:
        rows[2] = -np.inf                                                          # all -inf
    if n > 3:
        rows[3, min(m - 1, 515)] = np.frombuffer(np.uint32(0x7FC00001).tobytes(), np.float32)[0]
        rows[3, m - 1] = np.frombuffer(np.uint32(0xFFC00000).tobytes(), np.float32)[0]
    if n > 4:
        rows[4, [k for k in (256, 257, m - 1) if k < m]] = 30.0                    # ties across chunks
    if n > 5:
        rows[5, m - 1] = 31.0                                                      # the last element
    if n > 6:
        rows[6, 0] = 32.0; rows[6, m - 1] = np.inf; rows[6, m // 2] = -np.inf      # inf at the end
    if n > 7:
        rows[7] = np.nan                                                           # all NaN
    if n > 8:
        rows[8] = -rows[0]                                                         # min +0 then -0
    if n > 9:
        rows[9, min(m - 1, 5)] = np.nan; rows[9, min(m - 1, 6)] = np.nan           # NaN mid-row
    return rows


def float_text(v, et):
    """A float as a StableHLO literal: specials as hex bit patterns."""
    if np.isnan(v) or np.isinf(v):
        return hex((np.float32 if et == "f32" else np.float64)(v).view(np.uint32 if et == "f32" else np.uint64))
    return repr(float(v))


def sort_case(name, keys, et, dim, cmp_text, order_key, descending=False):
    """argsort: (keys, iota) sorted along dim by a single-compare comparator; the permutation is
    checked against a stable sort by order_key."""
    shape = keys.shape
    K, I = ttype(shape, et), ttype(shape, "i32")
    flat = [float_text(v, et) if et[0] == "f" else str(int(v)) for v in keys.reshape(-1)]
    body = ", ".join(flat)
    text = f"dense<[{body}]> : tensor<{keys.size}x{et}>"
    moved = np.moveaxis(keys, dim, -1)
    perm = np.empty(moved.shape, np.int32)
    for pos in itertools.product(*[range(k) for k in moved.shape[:-1]]):
        line = list(moved[pos])
        idx = list(range(len(line)))
        # Python's sort is stable in both directions: equal keys keep their order
        perm[pos] = sorted(idx, key=lambda i: order_key(line[i]), reverse=descending)
    want = np.moveaxis(perm, -1, dim)
    return "\n".join([
        f"func.func @{name}() {{",
        f"  %flat = stablehlo.constant {text}",
        f"  %k = stablehlo.reshape %flat : (tensor<{keys.size}x{et}>) -> {K}",
        f"  %iota = stablehlo.iota dim = {dim} : {I}",
        f'  %r:2 = "stablehlo.sort"(%k, %iota) ({{',
        f"  ^bb0(%a: tensor<{et}>, %b: tensor<{et}>, %c: tensor<i32>, %d: tensor<i32>):",
        cmp_text if "\n" in cmp_text else f"    %lt = {cmp_text} : (tensor<{et}>, tensor<{et}>) -> tensor<i1>",
        "    stablehlo.return %lt : tensor<i1>",
        f"  }}) {{dimension = {dim} : i64, is_stable = true}} : ({K}, {I}) -> ({K}, {I})",
        f"  check.expect_eq_const %r#1, {lit(want)} : {I}",
        "  func.return", "}"])


def sort_formula_case(name, shape, dim, coeffs, m, off):
    """A stable argsort of small i32 keys (many equal ones) built in the program, checked by
    weighted sums along the sorted dimension of the permutation (i64) and of the sorted keys,
    one per line: large enough to be split over the intra-op threads."""
    x, text = values(shape, coeffs, m, off, "i32")
    K, I = ttype(shape, "i32"), ttype(shape, "i64")
    moved = np.moveaxis(x, dim, -1)
    perm = np.argsort(moved, axis=-1, kind="stable")
    w = np.arange(shape[dim], dtype=np.int64)
    want_perm = (perm * w).sum(axis=-1)
    want_keys = (np.take_along_axis(moved, perm, axis=-1) * w).sum(axis=-1).astype(np.int32)
    out_shape = tuple(d for k, d in enumerate(shape) if k != dim)
    O, OI = ttype(out_shape, "i32"), ttype(out_shape, "i64")
    return "\n".join([
        f"func.func @{name}() {{", text,
        f"  %iota = stablehlo.iota dim = {dim} : {I}",
        f'  %r:2 = "stablehlo.sort"(%x, %iota) ({{',
        "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i64>, %d: tensor<i64>):",
        "    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "    stablehlo.return %lt : tensor<i1>",
        f"  }}) {{dimension = {dim} : i64, is_stable = true}} : ({K}, {I}) -> ({K}, {I})",
        f"  %wk = stablehlo.iota dim = {dim} : {K}",
        f"  %pk = stablehlo.multiply %r#0, %wk : {K}",
        f"  %pp = stablehlo.multiply %r#1, %iota : {I}",
        "  %zk = stablehlo.constant dense<0> : tensor<i32>",
        "  %zi = stablehlo.constant dense<0> : tensor<i64>",
        f"  %sk = stablehlo.reduce(%pk init: %zk) applies stablehlo.add across dimensions = [{dim}] : ({K}, tensor<i32>) -> {O}",
        f"  %sp = stablehlo.reduce(%pp init: %zi) applies stablehlo.add across dimensions = [{dim}] : ({I}, tensor<i64>) -> {OI}",
        f"  check.expect_eq_const %sk, {lit(want_keys)} : {O}",
        f"  check.expect_eq_const %sp, {lit(want_perm)} : {OI}",
        "  func.return", "}"])


def jax_float_comparator(et):
    """jnp.sort's comparator for floats: -0 and NaNs made canonical, then LT in TOTALORDER."""
    T = f"tensor<{et}>"
    nan = "0x7FC00000" if et == "f32" else "0x7FF8000000000000"
    lines = []
    for side, arg in (("l", "%a"), ("r", "%b")):
        lines += [f"    %z{side} = stablehlo.constant dense<0.000000e+00> : {T}",
                  f"    %e{side} = stablehlo.compare EQ, {arg}, %z{side}, FLOAT : ({T}, {T}) -> tensor<i1>",
                  f"    %c{side} = stablehlo.constant dense<0.000000e+00> : {T}",
                  f"    %s{side} = stablehlo.select %e{side}, %c{side}, {arg} : tensor<i1>, {T}",
                  f"    %n{side} = stablehlo.compare NE, {arg}, {arg}, FLOAT : ({T}, {T}) -> tensor<i1>",
                  f"    %q{side} = stablehlo.constant dense<{nan}> : {T}",
                  f"    %k{side} = stablehlo.select %n{side}, %q{side}, %s{side} : tensor<i1>, {T}"]
    lines.append(f"    %lt = stablehlo.compare LT, %kl, %kr, TOTALORDER : ({T}, {T}) -> tensor<i1>")
    return "\n".join(lines)


def canonical_order(v):
    """jnp.sort's order: -0 equals +0, every NaN (either sign) after +inf."""
    v = float(v)
    return (1, 0.0) if np.isnan(v) else (0, v + 0.0)


def total_order(v):
    """IEEE totalOrder for values without negative NaNs: -inf < ... < -0 < +0 < ... < +inf < NaN."""
    v = float(v)
    if np.isnan(v):
        return (1, 0.0, 0)
    return (0, v, 0 if np.signbit(v) else 1)


def gather_rows_case(name, table_shape, ids, it, implicit=False, sums=False):
    """jnp.take(table, ids, axis=0) as a gather of whole rows; ids out of range are clamped."""
    x, text = values(table_shape, tuple(range(3, 3 + 2 * len(table_shape), 2)), 101, 50, "f32")
    ids = np.asarray(ids)
    n = table_shape[0]
    want = x[np.clip(ids.astype(np.int64), 0, n - 1)].astype(np.float32)
    ishape = ids.shape if implicit else ids.shape + (1,)
    I = ttype(ishape, it)
    lead = len(ids.shape)
    offset = ", ".join(str(lead + d) for d in range(len(table_shape) - 1))
    sizes = ", ".join(["1"] + [str(d) for d in table_shape[1:]])
    body = ", ".join(str(int(v)) for v in ids.reshape(-1))
    R = ttype(want.shape, "f32")
    return "\n".join([
        f"func.func @{name}() {{", text,
        f"  %flat = stablehlo.constant dense<[{body}]> : tensor<{ids.size}x{it}>",
        f"  %ids = stablehlo.reshape %flat : (tensor<{ids.size}x{it}>) -> {I}",
        f'  %r = "stablehlo.gather"(%x, %ids) {{dimension_numbers = #stablehlo.gather<offset_dims = [{offset}], '
        f"collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = {len(ishape) if implicit else lead}>, "
        f"slice_sizes = array<i64: {sizes}>}} : ({ttype(table_shape, 'f32')}, {I}) -> {R}",
        check_result(want, "f32", sums),
        "  func.return", "}"])


def main():
    ninf, pinf = "0xFF800000", "0x7F800000"
    nhwc_max = [[0, 0], [1, 1], [1, 1], [0, 0]]
    chunks = [
        # NHWC max pool 3x3/2 SAME-style: 20 channels (a vector of 16 and 4 more) side by side
        pool_case("max_pool_nhwc_f32", (2, 9, 11, 20), (3, 7, 5, 11), 97, 48, "f32", "stablehlo.maximum",
                  max, ninf, -np.inf, [1, 3, 3, 1], [1, 2, 2, 1], nhwc_max),
        # sum pooling with padding holes (init 0), 48 channels (three vectors)
        pool_case("sum_pool_nhwc_f32", (1, 6, 6, 48), (0, 7, 5, 3), 31, 15, "f32", "stablehlo.add",
                  lambda a, b: a + b, "0.0", 0.0, [1, 3, 3, 1], [1, 1, 1, 1], nhwc_max),
        pool_case("sum_pool_nhwc_bf16", (1, 6, 5, 40), (0, 7, 5, 3), 17, 8, "bf16", "stablehlo.add",
                  lambda a, b: a + b, "0.0", 0.0, [1, 2, 2, 1], [1, 2, 1, 1], [[0, 0], [0, 1], [1, 0], [0, 0]]),
        # NCHW: the window moves over the last dimension, so each output folds alone
        pool_case("min_pool_nchw_i32", (2, 3, 10, 9), (5, 3, 7, 11), 101, 50, "i32", "stablehlo.minimum",
                  min, str((1 << 31) - 1), (1 << 31) - 1, [1, 1, 3, 2], [1, 1, 2, 1], [[0, 0], [0, 0], [1, 1], [0, 1]]),
        # NCHW with wide rows: outputs along W folded 64 at a time (a stride-2 staging, in place at
        # stride 1, per-element offsets where the padding or a dilation makes holes)
        pool_case("max_pool_nchw_wide_f32", (2, 3, 9, 150), (5, 3, 7, 11), 97, 48, "f32", "stablehlo.maximum",
                  max, ninf, -np.inf, [1, 1, 3, 3], [1, 1, 2, 2], [[0, 0], [0, 0], [1, 1], [1, 1]]),
        pool_case("sum_pool_nchw_stride1_bf16", (1, 2, 6, 140), (0, 3, 7, 5), 17, 8, "bf16", "stablehlo.add",
                  lambda a, b: a + b, "0.0", 0.0, [1, 1, 3, 3], [1, 1, 1, 1], [[0, 0], [0, 0], [1, 1], [1, 1]]),
        pool_case("max_pool_nchw_dilated_f32", (1, 2, 5, 70), (0, 3, 7, 5), 41, 20, "f32", "stablehlo.maximum",
                  max, ninf, -np.inf, [1, 1, 2, 3], [1, 1, 1, 3], [[0, 0], [0, 0], [1, 0], [2, 3]],
                  [1, 1, 1, 2], [1, 1, 1, 2]),
        bf16_sum_pool_nchw_case("sum_pool_nchw_rounding_order_bf16", (1, 2, 4, 70), 21),
        # base and window dilation with channels side by side
        pool_case("max_pool_dilated_nhwc_f64", (1, 5, 6, 17), (0, 7, 5, 3), 41, 20, "f64", "stablehlo.maximum",
                  max, "0xFFF0000000000000", -np.inf, [1, 2, 3, 1], [1, 1, 2, 1], [[0, 0], [1, 0], [2, 1], [0, 0]],
                  [1, 2, 1, 1], [1, 1, 2, 1]),
        # window dilation alone: interior windows are whole, their positions spaced by the dilation
        pool_case("max_pool_window_dilated_nhwc_f32", (1, 11, 12, 20), (0, 7, 5, 3), 41, 20, "f32",
                  "stablehlo.maximum", max, ninf, -np.inf, [1, 3, 2, 1], [1, 1, 2, 1],
                  [[0, 0], [1, 1], [0, 1], [0, 0]], [1, 1, 1, 1], [1, 2, 3, 1]),
        # cumulative windows: along a leading dimension (rows side by side) and along the last
        cumulative_case("cumsum_axis0_f32", (200, 33), 0, False, (3, 7), 11, 5, "f32", "stablehlo.add",
                        np.add, "0.0", 0.0),
        cumulative_case("reverse_cumsum_axis0_f32", (150, 33), 0, True, (3, 7), 11, 5, "f32", "stablehlo.add",
                        np.add, "0.0", 0.0),
        cumulative_case("reverse_cumsum_axis1_f32", (7, 300), 1, True, (3, 7), 11, 5, "f32", "stablehlo.add",
                        np.add, "0.0", 0.0),
        cumulative_case("reverse_cummax_axis1_i32", (6, 100), 1, True, (13, 7), 1009, 500, "i32",
                        "stablehlo.maximum", np.maximum, str(-(1 << 31)), -(1 << 31)),
        cumulative_case("cummin_axis1_f32", (5, 120), 1, False, (13, 7), 1009, 500, "f32",
                        "stablehlo.minimum", np.minimum, pinf, np.inf),
        # max pooling's gradient: GE keeps the first maximum, GT the last; overlapping windows add
        sas_case("max_pool_grad_nhwc_f32", (1, 9, 9, 20), (0, 7, 5, 3), 23, "f32",
                 "stablehlo.compare GE, %a, %b, FLOAT", lambda cur, cand: cur >= cand,
                 [1, 3, 3, 1], [1, 2, 2, 1], nhwc_max),
        sas_case("max_pool_grad_overlapping_gt_f32", (2, 6, 7, 3), (5, 3, 2, 1), 5, "f32",
                 "stablehlo.compare GT, %a, %b, FLOAT", lambda cur, cand: cur > cand,
                 [1, 2, 2, 1], [1, 1, 1, 1], [[0, 0], [0, 0], [0, 0], [0, 0]]),
        sas_case("min_pool_grad_swapped_compare_f32", (1, 8, 8, 17), (0, 7, 5, 3), 9, "f32",
                 "stablehlo.compare GE, %b, %a, FLOAT", lambda cur, cand: cand >= cur,
                 [1, 3, 3, 1], [1, 2, 2, 1], nhwc_max),
        sas_case("max_pool_grad_nchw_i32", (1, 2, 9, 10), (0, 5, 7, 3), 19, "i32",
                 "stablehlo.compare GE, %a, %b, SIGNED", lambda cur, cand: cur >= cand,
                 [1, 1, 3, 3], [1, 1, 2, 3], [[0, 0], [0, 0], [1, 1], [0, 2]]),
        # argmax / argmin as jnp writes them
        arg_case("argmax_70_rows_f32", (70, 1000), 1, "GT", "f32", "i32", (37, 11), 101),
        arg_case("argmax_rows_nan_f32", (70, 1000), 1, "GT", "f32", "i32", (37, 11), 101, nan_every=331),
        arg_case("argmax_rows_read_indices_f32", (40, 777), 1, "GT", "f32", "i32", (37, 11), 101,
                 reversed_indices=True),
        arg_case("argmin_three_long_rows_f32", (3, 5000), 1, "LT", "f32", "i32", (37, 11), 1009, nan_every=4111),
        arg_case("argmin_long_rows_read_indices_i32", (2, 3001), 1, "LT", "i32", "i32", (37, 11), 1009,
                 reversed_indices=True),
        arg_case("argmax_rows_i32_values_i64_indices", (20, 333), 1, "GT", "i32", "i64", (37, 11), 101),
        arg_case("argmax_rows_ui32_indices_f32", (33, 200), 1, "GT", "f32", "ui32", (37, 11), 53),
        arg_case("argmax_rows_f16", (17, 300), 1, "GT", "f16", "i32", (37, 11), 101, nan_every=97),
        arg_case("argmax_rows_value_by_q_f64", (18, 260), 1, "GT", "f64", "i32", (37, 11), 101, value_by_q=True),
        arg_case("argmax_middle_axis_f32", (4, 500, 7), 1, "GT", "f32", "i32", (3, 37, 11), 101, nan_every=1201),
        arg_case("argmin_leading_axis_bf16", (300, 9), 0, "LT", "bf16", "i32", (37, 11), 101,
                 reversed_indices=True),
        # f32 rows with iota indices: one read for the extreme and a search of its chunk
        # (SelectRowsF32), both results checked bit for bit against the reducer's left fold
        select_case("argmax_select_rows_f32", select_rows(11, 530, 1), "GT", "i32"),
        select_case("argmin_select_rows_by_q_i64", select_rows(11, 300, 2), "LT", "i64", value_by_q=True),
        select_case("argmax_select_no_nan_term_f32", select_rows(11, 270, 3), "GT", "i32", nan_term=False),
        select_case("argmin_select_no_nan_term_le_ui32", select_rows(11, 257, 4), "LE", "ui32", nan_term=False),
        select_case("argmax_select_ge_init_wins_f32", select_rows(11, 40, 5), "GE", "i32", init=(15.0, 7)),
        select_case("argmax_select_init_ties_f32", select_rows(11, 17, 6), "GT", "i32", init=(19.5, 3)),
        select_case("argmax_select_nan_init_f32", select_rows(4, 15, 7), "GT", "i64", init=(np.nan, 2)),
        select_case("argmax_select_nan_init_no_nan_term_f32", select_rows(4, 15, 8), "GT", "i32", nan_term=False,
                    init=(np.nan, 2)),
        select_case("argmin_select_single_element_rows_f32", select_rows(12, 1, 9), "LT", "i32"),
        select_case("argmax_select_rows_bf16", select_rows(11, 270, 11), "GT", "i32", vt="bf16"),
        select_case("argmin_select_no_nan_term_f16", select_rows(11, 270, 12), "LT", "i64", nan_term=False, vt="f16"),
        select_case("argmax_select_init_ties_by_q_bf16", select_rows(11, 23, 13), "GE", "i32", value_by_q=True,
                    init=(19.5, 3), vt="bf16"),
    ]
    chunks += [
        # large enough to be split over the intra-op threads (through a plugin with two or more;
        # scripts/test.sh runs this file through the ThreadSanitizer plugin)
        pool_case("max_pool_split_over_threads_f32", (1, 64, 64, 32), (0, 7, 5, 3), 97, 48, "f32",
                  "stablehlo.maximum", max, ninf, -np.inf, [1, 3, 3, 1], [1, 1, 1, 1], nhwc_max, sums=True),
        pool_case("sum_pool_nchw_split_over_threads_f32", (1, 32, 64, 64), (0, 3, 7, 5), 23, 11, "f32",
                  "stablehlo.add", lambda a, b: a + b, "0.0", 0.0, [1, 1, 3, 3], [1, 1, 1, 1],
                  [[0, 0], [0, 0], [1, 1], [1, 1]], sums=True),
        cumulative_case("cumsum_split_over_threads_i32", (300, 500), 1, False, (3, 7), 11, 5, "i32",
                        "stablehlo.add", np.add, "0", 0, sums=True),
        arg_case("argmax_split_over_threads_f32", (300, 1000), 1, "GT", "f32", "i32", (37, 11), 1009),
        sas_case("max_pool_grad_many_windows_i32", (1, 41, 41, 40), (0, 7, 5, 3), 23, "i32",
                 "stablehlo.compare GE, %a, %b, SIGNED", lambda cur, cand: cur >= cand,
                 [1, 3, 3, 1], [1, 2, 2, 1], nhwc_max, weighted_sums=True),
        # f32 with >= 16 channels: choices kept in vector registers, channel ranges split over
        # the threads (48 channels: 16 + 32); NaN replaces the choice and every later candidate
        # replaces a NaN; the strict LT keeps the last of equal minima.
        sas_case("max_pool_grad_split_over_threads_f32", (1, 41, 41, 48), (0, 7, 5, 3), 23, "f32",
                 "stablehlo.compare GE, %a, %b, FLOAT", lambda cur, cand: cur >= cand,
                 [1, 3, 3, 1], [1, 2, 2, 1], nhwc_max, weighted_sums=True),
        sas_case("max_pool_grad_nan_split_over_threads_f32", (2, 23, 23, 40), (0, 7, 5, 3), 23, "f32",
                 "stablehlo.compare GE, %a, %b, FLOAT", lambda cur, cand: cur >= cand,
                 [1, 3, 3, 1], [1, 2, 2, 1], nhwc_max, weighted_sums=True, nan_at=17),
        sas_case("min_pool_grad_lt_split_over_threads_f32", (1, 40, 40, 33), (0, 7, 5, 3), 11, "f32",
                 "stablehlo.compare LT, %a, %b, FLOAT", lambda cur, cand: cur < cand,
                 [1, 2, 2, 1], [1, 1, 1, 1], [[0, 0], [0, 1], [1, 0], [0, 0]], weighted_sums=True),
        sort_formula_case("sort_rows_split_over_threads_i32", (8, 5000), 1, (37, 11), 101, 50),
        sort_formula_case("sort_columns_split_over_threads_i32", (1000, 40), 0, (7, 13), 61, 30),
    ]
    chunks += [
        # embedding lookups: whole rows, starts clamped into range
        gather_rows_case("take_rows_clamped_i32", (10, 3, 4), [[3, -1], [9, 12], [0, 7]], "i32"),
        gather_rows_case("take_rows_implicit_index_i64", (6, 5), [[5, 0, 2], [-7, 1, 100]], "i64", implicit=True),
        gather_rows_case("take_rows_ui32", (7, 9), [4000000000, 3, 6, 0], "ui32"),
        gather_rows_case("take_rows_split_over_threads", (300, 64),
                         (np.arange(4096) * 37 % 320) - 10, "i32", sums=True),
    ]
    specials = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.5, -2.5, 0.0, -0.0, 3.0, np.nan, -2.5, 7.25,
                         -1e30, 1e-30, -1e-30, 1.5, 2.0, -np.inf, 0.5] * 2)
    rng = np.random.default_rng(7)
    chunks += [
        # sorts whose comparator is one compare of the keys run on precomputed order keys
        sort_case("argsort_total_order_f32", specials.astype(np.float32), "f32", 0,
                  "stablehlo.compare LT, %a, %b, TOTALORDER", total_order),
        sort_case("argsort_jax_comparator_f32", np.concatenate([specials, -specials[:10]]).astype(np.float32), "f32", 0,
                  jax_float_comparator("f32"), canonical_order),
        sort_case("argsort_jax_comparator_rows_f64", rng.choice(np.concatenate([specials, -specials]), (5, 24)),
                  "f64", 1, jax_float_comparator("f64"), canonical_order),
        sort_case("argsort_descending_columns_f64", rng.choice(specials, (30, 4)), "f64", 0,
                  "stablehlo.compare GT, %a, %b, TOTALORDER", total_order, descending=True),
        sort_case("argsort_u32_swapped_compare", rng.integers(0, 1 << 32, (3, 50), dtype=np.uint64) // 3 * 3,
                  "ui32", 1, "stablehlo.compare GT, %b, %a, UNSIGNED", int),
        sort_case("argsort_descending_rows_i64", rng.integers(-(1 << 62), 1 << 62, (4, 33)) // (1 << 58),
                  "i64", 1, "stablehlo.compare GT, %a, %b, SIGNED", int, descending=True),
        # lines of 512 elements and more take the radix sort of the order keys
        sort_case("argsort_long_total_order_f32",
                  np.concatenate([rng.choice(specials, 600), rng.integers(-300, 300, 600) * 0.25]).astype(np.float32),
                  "f32", 0, "stablehlo.compare LT, %a, %b, TOTALORDER", total_order),
        sort_case("argsort_long_jax_comparator_rows_f64",
                  np.where(rng.random((2, 700)) < 0.3, rng.choice(np.concatenate([specials, -specials]), (2, 700)),
                           rng.integers(-1000, 1000, (2, 700)) * 1e10),
                  "f64", 1, jax_float_comparator("f64"), canonical_order),
        sort_case("argsort_long_descending_u32", rng.integers(0, 1 << 32, 900, dtype=np.uint64) // 4096 * 4096,
                  "ui32", 0, "stablehlo.compare GT, %a, %b, UNSIGNED", int, descending=True),
        sort_case("argsort_long_descending_columns_i64", rng.integers(-(1 << 62), 1 << 62, (600, 2)) // (1 << 55),
                  "i64", 0, "stablehlo.compare GT, %a, %b, SIGNED", int, descending=True),
    ]
    print("// Generated by gen_pooling.py: pooling, cumulative windows, max pooling's gradient,\n"
          "// argmax / argmin, single-compare sorts and row gathers through their typed loops;\n"
          "// expected values from numpy and direct models.")
    print("\n\n// -----\n\n".join(chunks))


if __name__ == "__main__":
    main()
