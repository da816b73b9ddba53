#!/usr/bin/env python3
"""Writes region_reductions.mlir: reductions whose reducer is a region of several elementwise
ops (argmax and argmin as JAX writes them, variadic reductions), large enough that the executor
folds many accumulators at once and cuts long reductions into chunks (src/cpu/kernels/region_lanes.h),
and window reductions (pooling with strides, padding and dilations, cumulative sums and maxima,
a variadic window) with expected values from numpy and a direct model of reduce_window. Inputs
are built in the program from iota, so only the results are spelled out.

    /usr/bin/python3 tests/e2e/gen_region_reductions.py > tests/e2e/region_reductions.mlir
"""
import itertools

import numpy as np


def lit(a):
    flat = a.reshape(-1)
    if a.dtype.kind == "f":
        body = ", ".join(repr(float(v)) for v in flat)
    else:
        body = ", ".join(str(int(v)) for v in flat)
    if a.ndim == 0:
        return f"dense<{body}>"
    return f"dense<[{body}]>" if a.ndim == 1 else "dense<" + np.array2string(
        a, separator=", ", threshold=1 << 30, max_line_width=1 << 30).replace("\n", "") + ">"


def ttype(shape, et):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def arg_reducer(vt, it, pick):
    """JAX's argmax (pick GT) / argmin (pick LT) reducer: NaN wins, ties go to the lower index."""
    return f"""   reducer(%a: tensor<{vt}>, %c: tensor<{vt}>) (%b: tensor<{it}>, %d: tensor<{it}>) {{
    %p = stablehlo.compare {pick}, %a, %c, FLOAT : (tensor<{vt}>, tensor<{vt}>) -> tensor<i1>
    %nan = stablehlo.compare NE, %a, %a, FLOAT : (tensor<{vt}>, tensor<{vt}>) -> tensor<i1>
    %o1 = stablehlo.or %p, %nan : tensor<i1>
    %eq = stablehlo.compare EQ, %a, %c, FLOAT : (tensor<{vt}>, tensor<{vt}>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<{it}>, tensor<{it}>) -> tensor<i1>
    %an = stablehlo.and %eq, %lt : tensor<i1>
    %o2 = stablehlo.or %o1, %an : tensor<i1>
    %v = stablehlo.select %o2, %a, %c : tensor<i1>, tensor<{vt}>
    %i = stablehlo.select %o2, %b, %d : tensor<i1>, tensor<{it}>
    stablehlo.return %v, %i : tensor<{vt}>, tensor<{it}>
  }}"""


def values(shape, a, b, m):
    """x = (a * i0 + b * i1) % m over a 2-d iota, as numpy and as StableHLO (i32, then f32)."""
    i0, i1 = np.indices(shape)
    x = ((a * i0 + b * i1) % m).astype(np.int32)
    T = ttype(shape, "i32")
    text = f"""  %i0 = stablehlo.iota dim = 0 : {T}
  %i1 = stablehlo.iota dim = 1 : {T}
  %ca = stablehlo.constant dense<{a}> : {T}
  %cb = stablehlo.constant dense<{b}> : {T}
  %cm = stablehlo.constant dense<{m}> : {T}
  %t0 = stablehlo.multiply %ca, %i0 : {T}
  %t1 = stablehlo.multiply %cb, %i1 : {T}
  %t2 = stablehlo.add %t0, %t1 : {T}
  %xi = stablehlo.remainder %t2, %cm : {T}"""
    return x, text


def arg_case(name, shape, dim, pick, vt, with_nan):
    x, text = values(shape, 37, 11, 101)
    xf = x.astype(np.float64)
    T = ttype(shape, vt)
    lines = [f"func.func @{name}() {{", text, f"  %x0 = stablehlo.convert %xi : ({ttype(shape, 'i32')}) -> {T}"]
    xv = "%x0"
    if with_nan:
        # NaN where (i0 + i1) % 97 == 5 in rows with i0 % 3 == 0: the first NaN of a row wins.
        i0, i1 = np.indices(shape)
        mask = ((i0 + i1) % 97 == 5) & (i0 % 3 == 0)
        xf = np.where(mask, np.nan, xf)
        I = ttype(shape, "i32")
        lines += [f"  %s = stablehlo.add %i0, %i1 : {I}",
                  f"  %c97 = stablehlo.constant dense<97> : {I}",
                  f"  %c5 = stablehlo.constant dense<5> : {I}",
                  f"  %c3 = stablehlo.constant dense<3> : {I}",
                  f"  %c0 = stablehlo.constant dense<0> : {I}",
                  f"  %r97 = stablehlo.remainder %s, %c97 : {I}",
                  f"  %r3 = stablehlo.remainder %i0, %c3 : {I}",
                  f"  %m1 = stablehlo.compare EQ, %r97, %c5, SIGNED : ({I}, {I}) -> {ttype(shape, 'i1')}",
                  f"  %m2 = stablehlo.compare EQ, %r3, %c0, SIGNED : ({I}, {I}) -> {ttype(shape, 'i1')}",
                  f"  %m = stablehlo.and %m1, %m2 : {ttype(shape, 'i1')}",
                  f"  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>",
                  f"  %nanv = stablehlo.convert %nan : (tensor<f32>) -> tensor<{vt}>",
                  f"  %nanb = stablehlo.broadcast_in_dim %nanv, dims = [] : (tensor<{vt}>) -> {T}",
                  f"  %x1 = stablehlo.select %m, %nanb, %x0 : {ttype(shape, 'i1')}, {T}"]
        xv = "%x1"
    if pick == "GT":
        want = np.nanargmax(np.where(np.isnan(xf), np.inf, xf), axis=dim) if with_nan else np.argmax(xf, axis=dim)
        init = "0xFF800000"
    else:
        want = np.argmin(xf, axis=dim)
        init = "0x7F800000"
    want = want.astype(np.int32)
    out_shape = tuple(d for k, d in enumerate(shape) if k != dim)
    I = ttype(shape, "i32")
    R, RI = ttype(out_shape, vt), ttype(out_shape, "i32")
    lines += [f"  %iota = stablehlo.iota dim = {dim} : {I}",
              f"  %init = stablehlo.constant dense<{init}> : tensor<f32>",
              f"  %initv = stablehlo.convert %init : (tensor<f32>) -> tensor<{vt}>",
              f"  %zero = stablehlo.constant dense<0> : tensor<i32>",
              f"  %r:2 = stablehlo.reduce({xv} init: %initv), (%iota init: %zero) across dimensions = [{dim}] : "
              f"({T}, {I}, tensor<{vt}>, tensor<i32>) -> ({R}, {RI})",
              arg_reducer(vt, "i32", pick),
              f"  check.expect_eq_const %r#1, {lit(want)} : {RI}",
              "  func.return", "}"]
    return "\n".join(lines)


def full_argmax(n):
    """argmax over one long dimension: a single output, cut into chunks and combined."""
    i = np.arange(n)
    x = ((i * 7919) % 65521).astype(np.int32)  # the maximum, 65520, first at some i
    want = np.array(np.argmax(x), np.int32)
    T, I = ttype((n,), "i32"), ttype((n,), "i32")
    return "\n".join([
        "func.func @argmax_one_long_dimension() {",
        f"  %i = stablehlo.iota dim = 0 : {T}",
        f"  %a = stablehlo.constant dense<7919> : {T}",
        f"  %m = stablehlo.constant dense<65521> : {T}",
        f"  %t = stablehlo.multiply %i, %a : {T}",
        f"  %x = stablehlo.remainder %t, %m : {T}",
        "  %init = stablehlo.constant dense<-2147483648> : tensor<i32>",
        "  %zero = stablehlo.constant dense<0> : tensor<i32>",
        f"  %r:2 = stablehlo.reduce(%x init: %init), (%i init: %zero) across dimensions = [0] : "
        f"({T}, {I}, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)",
        """   reducer(%a0: tensor<i32>, %c0: tensor<i32>) (%b0: tensor<i32>, %d0: tensor<i32>) {
    %gt = stablehlo.compare GT, %a0, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a0, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b0, %d0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %an = stablehlo.and %eq, %lt : tensor<i1>
    %p = stablehlo.or %gt, %an : tensor<i1>
    %v = stablehlo.select %p, %a0, %c0 : tensor<i1>, tensor<i32>
    %k = stablehlo.select %p, %b0, %d0 : tensor<i1>, tensor<i32>
    stablehlo.return %v, %k : tensor<i32>, tensor<i32>
  }""",
        f"  check.expect_eq_const %r#0, {lit(np.array(x.max(), np.int32))} : tensor<i32>",
        f"  check.expect_eq_const %r#1, {lit(want)} : tensor<i32>",
        "  func.return", "}"])


def variadic_sum_max():
    """(sum, max) of i32 over dimensions 0 and 2 of a 3-d iota expression: integer-exact."""
    shape = (7, 33, 9)
    i0, i1, i2 = np.indices(shape)
    x = ((i0 * 5 + i1 * 3 + i2 * 11) % 23 - 11).astype(np.int32)
    T = ttype(shape, "i32")
    lines = ["func.func @variadic_sum_and_max() {",
             f"  %i0 = stablehlo.iota dim = 0 : {T}", f"  %i1 = stablehlo.iota dim = 1 : {T}",
             f"  %i2 = stablehlo.iota dim = 2 : {T}",
             f"  %c5 = stablehlo.constant dense<5> : {T}", f"  %c3 = stablehlo.constant dense<3> : {T}",
             f"  %c11 = stablehlo.constant dense<11> : {T}", f"  %c23 = stablehlo.constant dense<23> : {T}",
             f"  %a = stablehlo.multiply %i0, %c5 : {T}", f"  %b = stablehlo.multiply %i1, %c3 : {T}",
             f"  %c = stablehlo.multiply %i2, %c11 : {T}", f"  %s1 = stablehlo.add %a, %b : {T}",
             f"  %s2 = stablehlo.add %s1, %c : {T}", f"  %r = stablehlo.remainder %s2, %c23 : {T}",
             f"  %x = stablehlo.subtract %r, %c11 : {T}",
             "  %z = stablehlo.constant dense<0> : tensor<i32>",
             "  %lo = stablehlo.constant dense<-100> : tensor<i32>",
             f"  %o:2 = stablehlo.reduce(%x init: %z), (%x init: %lo) across dimensions = [0, 2] : "
             f"({T}, {T}, tensor<i32>, tensor<i32>) -> (tensor<33xi32>, tensor<33xi32>)",
             """   reducer(%p: tensor<i32>, %q: tensor<i32>) (%u: tensor<i32>, %v: tensor<i32>) {
    %sum = stablehlo.add %p, %q : tensor<i32>
    %mx = stablehlo.maximum %u, %v : tensor<i32>
    stablehlo.return %sum, %mx : tensor<i32>, tensor<i32>
  }""",
             f"  check.expect_eq_const %o#0, {lit(x.sum(axis=(0, 2)).astype(np.int32))} : tensor<33xi32>",
             f"  check.expect_eq_const %o#1, {lit(x.max(axis=(0, 2)).astype(np.int32))} : tensor<33xi32>",
             "  func.return", "}"]
    return "\n".join(lines)


def window_ref(xs, inits, op, wdims, strides, pads, bdil, wdil):
    """reduce_window as the specification defines it: holes (padding, base dilation) hold init."""
    shape = xs[0].shape
    rank = len(shape)
    padded = [(shape[d] - 1) * bdil[d] + 1 + pads[d][0] + pads[d][1] if shape[d] else 0 for d in range(rank)]
    win = [(wdims[d] - 1) * wdil[d] + 1 for d in range(rank)]
    oshape = [(padded[d] - win[d]) // strides[d] + 1 for d in range(rank)]
    outs = [np.empty(oshape, x.dtype) for x in xs]
    for o in itertools.product(*[range(k) for k in oshape]):
        acc = list(inits)
        for w in itertools.product(*[range(k) for k in wdims]):
            idx, hole = [], False
            for d in range(rank):
                pos = o[d] * strides[d] + w[d] * wdil[d] - pads[d][0]
                if pos < 0 or pos % bdil[d] or pos // bdil[d] >= shape[d]:
                    hole = True
                    break
                idx.append(pos // bdil[d])
            vals = list(inits) if hole else [x[tuple(idx)] for x in xs]
            acc = op(acc, vals)
        for k, a in enumerate(acc):
            outs[k][o] = a
    return outs


def window_op(et, body, attrs, operand_type, result_type):
    """%r = reduce_window(%x, %init) with a one-op body `body` and the attribute text `attrs`."""
    return "\n".join([f'  %r = "stablehlo.reduce_window"(%x, %init) ({{',
                      f"  ^bb0(%p: tensor<{et}>, %q: tensor<{et}>):",
                      f"    %v = {body} %p, %q : tensor<{et}>",
                      f"    stablehlo.return %v : tensor<{et}>",
                      f"  }}) {{{attrs}}} : ({operand_type}, tensor<{et}>) -> {result_type}"])


def check_text(want, R, et, sums_only):
    """Checks %r against want: every element, or (for large results) each row's sum (i32)."""
    if not sums_only:
        return f"  check.expect_eq_const %r, {lit(want)} : {R}"
    rows = want.astype(np.int64).sum(axis=1).astype(np.int32)
    S = ttype(rows.shape, et)
    return "\n".join([f"  %zero = stablehlo.constant dense<0> : tensor<{et}>",
                      f"  %rows = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [1] : "
                      f"({R}, tensor<{et}>) -> {S}",
                      f"  check.expect_eq_const %rows, {lit(rows)} : {S}"])


def window_case(name, shape, et, a, b, m, off, init, body, op, wdims, strides, pads, bdil, wdil, sums_only=False):
    """One reduce_window over x = (a * i0 + b * i1) % m - off (rank 2) with a scalar body."""
    x, text = values(shape, a, b, m)
    x = (x - off).astype(np.int32)
    T, I = ttype(shape, et), ttype(shape, "i32")
    npt = {"i32": np.int32, "f32": np.float32}[et]
    init_value = {"0xFF800000": -np.inf, "0x7F800000": np.inf}.get(init, init)
    want = window_ref([x.astype(npt)], [npt(init_value)], lambda acc, v: [op(acc[0], v[0])],
                      wdims, strides, pads, bdil, wdil)[0]
    R = ttype(want.shape, et)
    pad_text = ", ".join(f"[{lo}, {hi}]" for lo, hi in pads)
    lines = [f"func.func @{name}() {{", text,
             f"  %off = stablehlo.constant dense<{off}> : {I}",
             f"  %xs = stablehlo.subtract %xi, %off : {I}",
             f"  %x = stablehlo.convert %xs : ({I}) -> {T}" if et != "i32" else f"  %x = stablehlo.add %xs, %c0i : {I}",
             f"  %init = stablehlo.constant dense<{init}> : tensor<{et}>",
             window_op(et, body, f"window_dimensions = array<i64: {', '.join(map(str, wdims))}>, "
                       f"window_strides = array<i64: {', '.join(map(str, strides))}>, "
                       f"base_dilations = array<i64: {', '.join(map(str, bdil))}>, "
                       f"window_dilations = array<i64: {', '.join(map(str, wdil))}>, "
                       f"padding = dense<[{pad_text}]> : tensor<{len(shape)}x2xi64>", T, R),
             check_text(want, R, et, sums_only),
             "  func.return", "}"]
    if et == "i32":
        lines.insert(1, f"  %c0i = stablehlo.constant dense<0> : {I}")
    return "\n".join(lines)


def cumulative_cases():
    """Cumulative windows (jnp.cumsum / cummax), forward as a running fold; a reverse one, and one
    whose init is not its own fold (each padding position adds it again)."""
    cases = []
    add = lambda a, b: a + b
    mx = lambda a, b: max(a, b)
    # forward cumsum along dim 1: window [1, N], padding [[0, 0], [N - 1, 0]]
    shape = (12, 300)
    x, _ = values(shape, 5, 3, 17)
    x = (x - 8).astype(np.int32)
    want = np.cumsum(x, axis=1).astype(np.int32)
    cases.append(("cumsum_rows_i32", shape, "i32", (5, 3, 17, 8), 0, "stablehlo.add", want,
                  [1, shape[1]], [[0, 0], [shape[1] - 1, 0]]))
    # forward cummax along dim 0 (f32)
    shape = (300, 5)
    x, _ = values(shape, 13, 7, 1009)
    xf = (x - 500).astype(np.float32)
    want = np.maximum.accumulate(xf, axis=0)
    cases.append(("cummax_columns_f32", shape, "f32", (13, 7, 1009, 500), "0xFF800000", "stablehlo.maximum",
                  want, [shape[0], 1], [[shape[0] - 1, 0], [0, 0]]))
    # reverse cumsum along dim 1: padding after
    shape = (6, 200)
    x, _ = values(shape, 5, 3, 17)
    x = (x - 8).astype(np.int32)
    want = np.flip(np.cumsum(np.flip(x, 1), axis=1), 1).astype(np.int32)
    cases.append(("reverse_cumsum_rows_i32", shape, "i32", (5, 3, 17, 8), 0, "stablehlo.add", want,
                  [1, shape[1]], [[0, 0], [0, shape[1] - 1]]))
    # forward cumsum with init 1: position i's window holds N - 1 - i padding inits and the init
    shape = (4, 200)
    x, _ = values(shape, 5, 3, 17)
    x = (x - 8).astype(np.int32)
    n = shape[1]
    want = (np.cumsum(x, axis=1) + 1 + (n - 1 - np.arange(n))[None, :]).astype(np.int32)
    cases.append(("cumsum_init_one_i32", shape, "i32", (5, 3, 17, 8), 1, "stablehlo.add", want,
                  [1, n], [[0, 0], [n - 1, 0]]))
    out = []
    for name, shape, et, (a, b, m, off), init, body, want, wdims, pads in cases:
        _, text = values(shape, a, b, m)
        T, I = ttype(shape, et), ttype(shape, "i32")
        conv = f"  %x = stablehlo.convert %xs : ({I}) -> {T}" if et != "i32" else f"  %x = stablehlo.add %xs, %off0 : {I}"
        pad_text = ", ".join(f"[{lo}, {hi}]" for lo, hi in pads)
        out.append("\n".join([
            f"func.func @{name}() {{", text,
            f"  %off = stablehlo.constant dense<{off}> : {I}", f"  %off0 = stablehlo.constant dense<0> : {I}",
            f"  %xs = stablehlo.subtract %xi, %off : {I}", conv,
            f"  %init = stablehlo.constant dense<{init}> : tensor<{et}>",
            window_op(et, body, f"window_dimensions = array<i64: {', '.join(map(str, wdims))}>, "
                      f"padding = dense<[{pad_text}]> : tensor<2x2xi64>", T, T),
            f"  check.expect_eq_const %r, {lit(want.astype(np.float32) if et == 'f32' else want)} : {T}",
            "  func.return", "}"]))
    return out


def variadic_window():
    """A two-operand window (max value and the first position holding it): 3x3 stride 2 pooling."""
    shape = (9, 11)
    x, text = values(shape, 7, 3, 13)
    i0, i1 = np.indices(shape)
    pos = (i0 * shape[1] + i1).astype(np.int32)

    def op(acc, v):
        if v[0] > acc[0] or (v[0] == acc[0] and v[1] < acc[1]):
            return [v[0], v[1]]
        return acc
    wdims, strides, pads = [3, 3], [2, 2], [[1, 1], [1, 1]]
    big = np.int32(1 << 30)
    want = window_ref([x, pos], [np.int32(-1), big], op, wdims, strides, pads, [1, 1], [1, 1])
    T = ttype(shape, "i32")
    R = ttype(want[0].shape, "i32")
    return "\n".join([
        "func.func @window_max_and_position() {", text,
        f"  %w = stablehlo.constant dense<{shape[1]}> : {T}",
        f"  %r0 = stablehlo.multiply %i0, %w : {T}",
        f"  %pos = stablehlo.add %r0, %i1 : {T}",
        "  %lo = stablehlo.constant dense<-1> : tensor<i32>",
        f"  %big = stablehlo.constant dense<{int(big)}> : tensor<i32>",
        '  %r:2 = "stablehlo.reduce_window"(%xi, %pos, %lo, %big) ({',
        "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):",
        "    %gt = stablehlo.compare GT, %c, %a, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "    %eq = stablehlo.compare EQ, %c, %a, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "    %lt = stablehlo.compare LT, %d, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "    %an = stablehlo.and %eq, %lt : tensor<i1>",
        "    %take = stablehlo.or %gt, %an : tensor<i1>",
        "    %v = stablehlo.select %take, %c, %a : tensor<i1>, tensor<i32>",
        "    %k = stablehlo.select %take, %d, %b : tensor<i1>, tensor<i32>",
        "    stablehlo.return %v, %k : tensor<i32>, tensor<i32>",
        "  }) {window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>, "
        f"padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>}} : ({T}, {T}, tensor<i32>, tensor<i32>) -> ({R}, {R})",
        f"  check.expect_eq_const %r#0, {lit(want[0])} : {R}",
        f"  check.expect_eq_const %r#1, {lit(want[1])} : {R}",
        "  func.return", "}"])


def main():
    chunks = [
        arg_case("argmax_rows_f32", (64, 3000), 1, "GT", "f32", False),
        arg_case("argmax_rows_with_nan_f32", (64, 3000), 1, "GT", "f32", True),
        arg_case("argmin_columns_f32", (3000, 5), 0, "LT", "f32", False),
        arg_case("argmax_rows_bf16", (40, 1500), 1, "GT", "bf16", False),
        arg_case("argmin_rows_f64", (1500, 40), 1, "LT", "f64", False),
        full_argmax(100003),
        variadic_sum_max(),
        window_case("max_pool_2x2_stride_2_f32", (9, 10), "f32", 37, 11, 101, 50, "0xFF800000",
                    "stablehlo.maximum", np.maximum, [2, 2], [2, 2], [[0, 1], [0, 0]], [1, 1], [1, 1]),
        window_case("sum_3x3_same_i32", (8, 8), "i32", 5, 3, 17, 8, 0, "stablehlo.add", lambda p, q: p + q,
                    [3, 3], [1, 1], [[1, 1], [1, 1]], [1, 1], [1, 1]),
        window_case("sum_dilated_i32", (5, 6), "i32", 5, 3, 17, 8, 0, "stablehlo.add", lambda p, q: p + q,
                    [2, 3], [1, 2], [[1, 0], [2, 1]], [2, 1], [1, 2]),
        # enough work to be split over the intra-op threads (through a plugin with two or more)
        window_case("max_pool_split_over_threads_i32", (300, 300), "i32", 37, 11, 1009, 500, -2147483648,
                    "stablehlo.maximum", np.maximum, [2, 2], [1, 1], [[0, 0], [0, 0]], [1, 1], [1, 1], sums_only=True),
        window_case("min_pool_large_f32", (40, 60), "f32", 37, 11, 1009, 500, "0x7F800000",
                    "stablehlo.minimum", np.minimum, [3, 2], [2, 1], [[1, 1], [0, 1]], [1, 1], [1, 1]),
    ] + cumulative_cases() + [variadic_window()]
    print("// Generated by gen_region_reductions.py: reductions whose reducer is a region of several\n"
          "// elementwise ops, evaluated for many accumulators at once; expected values from numpy.")
    print("\n\n// -----\n\n".join(chunks))


if __name__ == "__main__":
    main()
