#!/usr/bin/env python3
"""Writes region_reductions.mlir: reductions whose reducer is a region of several elementwise
ops (argmax and argmin as JAX writes them, variadic reductions), large enough that the executor
folds many accumulators at once and cuts long reductions into chunks (src/cpu/region_lanes.h),
with expected values from numpy. Inputs are built in the program from iota, so only the results
are spelled out.

    /usr/bin/python3 tests/e2e/gen_region_reductions.py > tests/e2e/region_reductions.mlir
"""
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


def main():
    chunks = [
        arg_case("argmax_rows_f32", (64, 3000), 1, "GT", "f32", False),
        arg_case("argmax_rows_with_nan_f32", (64, 3000), 1, "GT", "f32", True),
        arg_case("argmin_columns_f32", (3000, 5), 0, "LT", "f32", False),
        arg_case("argmax_rows_bf16", (40, 1500), 1, "GT", "bf16", False),
        arg_case("argmin_rows_f64", (1500, 40), 1, "LT", "f64", False),
        full_argmax(100003),
        variadic_sum_max(),
    ]
    print("// Generated by gen_region_reductions.py: reductions whose reducer is a region of several\n"
          "// elementwise ops, evaluated for many accumulators at once; expected values from numpy.")
    print("\n\n// -----\n\n".join(chunks))


if __name__ == "__main__":
    main()
