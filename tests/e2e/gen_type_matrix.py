#!/usr/bin/env python3
"""Writes type_matrix.mlir: the elementwise ops, comparisons, conversions and reductions over
every numeric element family (f16, bf16, f32, f64, signed and unsigned integers of every width,
i1), with expected values computed here by numpy in the same arithmetic the specification
prescribes (narrow floats computed in f32 and rounded once).

    /usr/bin/python3 tests/e2e/gen_type_matrix.py > tests/e2e/type_matrix.mlir  (needs python3-numpy)
"""
import numpy as np

FLOATS = ["f16", "bf16", "f32", "f64"]
SINTS = ["i8", "i16", "i32", "i64"]
UINTS = ["ui8", "ui16", "ui32", "ui64"]
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32,
      "ui64": np.uint64}


def bf16_round(x):
    """Rounds float32 values to bfloat16 (nearest-even), returned as float32."""
    a = np.asarray(x, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), np.float32("nan"), out)


def cast(values, t):
    """Values as type t's numbers (bf16 kept in float32 holding bf16 values)."""
    if t == "bf16":
        return bf16_round(np.asarray(values, dtype=np.float32))
    return np.asarray(values).astype(NP[t])


def compute(fn, t, *args):
    """fn evaluated the way the executor does: narrow floats in f32, then rounded."""
    if t in ("f16", "bf16"):
        r = fn(*[np.asarray(a, dtype=np.float32) for a in args]).astype(np.float32)
        return cast(r, t)
    with np.errstate(all="ignore"):
        return np.asarray(fn(*args)).astype(NP[t] if t in NP else np.float32)


def lit(values, t):
    """A dense literal whose elements are exact: hex bit patterns for floats."""
    out = []
    # Plain lists stay Python integers: numpy would turn 64-bit values into floats.
    items = values if isinstance(values, list) else np.asarray(values).ravel()
    for v in items:
        if t == "i1":
            out.append("true" if v else "false")
        elif t in SINTS or t in UINTS:
            out.append(str(int(v)))
        elif t == "f16":
            out.append("0x%04X" % np.float16(v).view(np.uint16))
        elif t == "bf16":
            out.append("0x%04X" % (np.float32(v).view(np.uint32) >> 16))
        elif t == "f32":
            out.append("0x%08X" % np.float32(v).view(np.uint32))
        else:
            out.append("0x%016X" % np.float64(v).view(np.uint64))
    return "dense<[" + ", ".join(out) + "]>"


class Fn:
    def __init__(self, t, n):
        self.t, self.n, self.lines, self.k = t, n, [], 0

    def ty(self, t=None):
        return f"tensor<{self.n}x{t or self.t}>"

    def const(self, values, t=None):
        name = f"%c{self.k}"
        self.k += 1
        self.lines.append(f"  {name} = stablehlo.constant {lit(values, t or self.t)} : {self.ty(t)}")
        return name

    def op(self, text, t=None):
        name = f"%v{self.k}"
        self.k += 1
        self.lines.append(f"  {name} = {text}")
        return name

    def expect(self, value, expected, t=None, ulps=None):
        t = t or self.t
        if ulps is None:
            self.lines.append(f"  check.expect_eq_const {value}, {lit(expected, t)} : {self.ty(t)}")
        else:
            e = self.const(expected, t)
            self.lines.append(f"  check.expect_close {value}, {e}, max_ulp_difference = {ulps} : "
                              f"{self.ty(t)}, {self.ty(t)}")


def float_function(t):
    a = cast([1.5, -2.25, 0.75, 3.0, -0.5, 10.0], t)
    b = cast([0.5, 4.0, -1.25, 3.0, 2.0, -3.0], t)
    f = Fn(t, len(a))
    ca, cb = f.const(a), f.const(b)
    ty = f.ty()
    for name, fn in [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                     ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum)]:
        f.expect(f.op(f"stablehlo.{name} {ca}, {cb} : {ty}"), compute(fn, t, a, b))
    for name, fn in [("negate", np.negative), ("abs", np.abs), ("floor", np.floor),
                     ("ceil", np.ceil), ("sign", np.sign)]:
        f.expect(f.op(f"stablehlo.{name} {ca} : {ty}"), compute(fn, t, a))
    pos = cast([0.25, 1.0, 2.0, 3.5, 9.0, 100.0], t)
    cp = f.const(pos)
    f.expect(f.op(f"stablehlo.sqrt {cp} : {ty}"), compute(np.sqrt, t, pos))
    for name, fn in [("exponential", np.exp), ("log", np.log), ("tanh", np.tanh),
                     ("sine", np.sin), ("cosine", np.cos)]:
        src, c = (a, ca) if name != "log" else (pos, cp)
        f.expect(f.op(f"stablehlo.{name} {c} : {ty}"), compute(fn, t, src), ulps=2)
    for d, fn in [("EQ", np.equal), ("NE", np.not_equal), ("LT", np.less), ("LE", np.less_equal),
                  ("GT", np.greater), ("GE", np.greater_equal)]:
        f.expect(f.op(f"stablehlo.compare {d}, {ca}, {cb} : ({ty}, {ty}) -> {f.ty('i1')}"),
                 fn(a, b), "i1")
    # Conversions to every other float and to integers (values in range of all of them).
    for u in FLOATS:
        if u != t:
            f.expect(f.op(f"stablehlo.convert {ca} : ({ty}) -> {f.ty(u)}"), cast(a.astype(np.float64), u), u)
    for u in SINTS:
        f.expect(f.op(f"stablehlo.convert {ca} : ({ty}) -> {f.ty(u)}"), np.trunc(a.astype(np.float64)).astype(NP[u]), u)
    return f


def wrap_any(v, t):
    """The integer v reduced modulo 2^bits into type t's range (two's complement)."""
    info = np.iinfo(NP[t])
    v &= (1 << info.bits) - 1
    if info.min < 0 and v >> (info.bits - 1):
        v -= 1 << info.bits
    return v


def ints(values, t):
    """Python integers reduced into type t (no numpy casts: they lose 64-bit values)."""
    return [wrap_any(int(v), t) for v in values]


def int_function(t):
    signed = t in SINTS
    info = np.iinfo(NP[t])
    a = np.array([7, 100, info.max, 3, 0, 42] if not signed else [7, -100, info.max, -3, info.min, 42],
                 dtype=NP[t])
    b = np.array([2, 7, 1, 5, 9, 1] if not signed else [2, 7, -1, 5, 9, -1], dtype=NP[t])
    f = Fn(t, len(a))
    ca, cb = f.const(a), f.const(b)
    ty = f.ty()
    A, B = [int(x) for x in a.tolist()], [int(y) for y in b.tolist()]
    with np.errstate(all="ignore"):
        f.expect(f.op(f"stablehlo.add {ca}, {cb} : {ty}"), ints([x + y for x, y in zip(A, B)], t))
        f.expect(f.op(f"stablehlo.subtract {ca}, {cb} : {ty}"), ints([x - y for x, y in zip(A, B)], t))
        f.expect(f.op(f"stablehlo.multiply {ca}, {cb} : {ty}"), ints([x * y for x, y in zip(A, B)], t))
        # Truncating division and remainder, with INT_MIN / -1 avoided (it has its own test).
        def tdiv(x, y):
            q = abs(x) // abs(y)
            return q if (x >= 0) == (y > 0) else -q

        q = [tdiv(x, y) for x, y in zip(a.tolist(), b.tolist())]
        if signed:
            q = [info.min if (x == info.min and y == -1) else v for x, y, v in zip(a.tolist(), b.tolist(), q)]
        f.expect(f.op(f"stablehlo.divide {ca}, {cb} : {ty}"), ints(q, t))
        r = [x - y * v for x, y, v in zip(a.tolist(), b.tolist(), q)]
        f.expect(f.op(f"stablehlo.remainder {ca}, {cb} : {ty}"), ints(r, t))
        f.expect(f.op(f"stablehlo.maximum {ca}, {cb} : {ty}"), [max(x, y) for x, y in zip(A, B)])
        f.expect(f.op(f"stablehlo.minimum {ca}, {cb} : {ty}"), [min(x, y) for x, y in zip(A, B)])
        f.expect(f.op(f"stablehlo.and {ca}, {cb} : {ty}"), ints([x & y for x, y in zip(A, B)], t))
        f.expect(f.op(f"stablehlo.or {ca}, {cb} : {ty}"), ints([x | y for x, y in zip(A, B)], t))
        f.expect(f.op(f"stablehlo.xor {ca}, {cb} : {ty}"), ints([x ^ y for x, y in zip(A, B)], t))
        f.expect(f.op(f"stablehlo.not {ca} : {ty}"), ints([~x for x in A], t))
        f.expect(f.op(f"stablehlo.negate {ca} : {ty}"), ints([-x for x in A], t))
        bits = info.bits
        mask = (1 << bits) - 1

        def wrap(v):
            """An integer reduced to t's width, as t."""
            v &= mask
            if signed and v >> (bits - 1):
                v -= 1 << bits
            return v

        sh = np.array([1, 3, 0, bits - 1, 2, 5], dtype=NP[t])
        cs = f.const(sh)
        f.expect(f.op(f"stablehlo.shift_left {ca}, {cs} : {ty}"),
                 [wrap(int(x) << int(n)) for x, n in zip(a, sh)])
        f.expect(f.op(f"stablehlo.shift_right_logical {ca}, {cs} : {ty}"),
                 [wrap((int(x) & mask) >> int(n)) for x, n in zip(a, sh)])
        if signed:
            f.expect(f.op(f"stablehlo.abs {ca} : {ty}"), np.abs(a))
            f.expect(f.op(f"stablehlo.sign {ca} : {ty}"), np.sign(a))
            f.expect(f.op(f"stablehlo.shift_right_arithmetic {ca}, {cs} : {ty}"), a >> sh)
        f.expect(f.op(f"stablehlo.popcnt {ca} : {ty}"), [bin(x & mask).count("1") for x in A])
        for d, fn in [("EQ", np.equal), ("NE", np.not_equal), ("LT", np.less), ("LE", np.less_equal),
                      ("GT", np.greater), ("GE", np.greater_equal)]:
            f.expect(f.op(f"stablehlo.compare {d}, {ca}, {cb} : ({ty}, {ty}) -> {f.ty('i1')}"),
                     fn(a, b), "i1")
        for u in SINTS + UINTS:
            if u != t:
                f.expect(f.op(f"stablehlo.convert {ca} : ({ty}) -> {f.ty(u)}"),
                         ints(A, u), u)
        for u in ["f32", "f64"]:
            f.expect(f.op(f"stablehlo.convert {ca} : ({ty}) -> {f.ty(u)}"),
                     np.array([float(x) for x in A]).astype(NP[u]), u)
    return f


def reduce_function(t):
    vals = cast([1, 2, 3, 4, 5, 6], t)
    f = Fn(t, 6)
    c = f.const(vals)
    z = f.op(f"stablehlo.constant dense<0> : tensor<{t}>" if t not in FLOATS else
             f"stablehlo.constant dense<0.0> : tensor<{t}>")
    s = f.op(f"stablehlo.reduce({c} init: {z}) applies stablehlo.add across dimensions = [0] : "
             f"({f.ty()}, tensor<{t}>) -> tensor<{t}>")
    e = f.op(f"stablehlo.constant {lit([21], t).replace('[', '').replace(']', '')} : tensor<{t}>")
    f.lines.append(f"  check.expect_eq {s}, {e} : tensor<{t}>")
    return f


def main():
    print("// Generated by tests/e2e/gen_type_matrix.py: elementwise ops, comparisons, conversions")
    print("// and reductions over every numeric element family. Do not edit by hand.")
    chunks = []
    for t in FLOATS:
        chunks.append(float_function(t))
    for t in SINTS + UINTS:
        chunks.append(int_function(t))
    for t in FLOATS + SINTS + UINTS:
        chunks.append(reduce_function(t))
    body = []
    for i, f in enumerate(chunks):
        body.append(f"func.func @main() {{\n" + "\n".join(f.lines) + "\n  func.return\n}\n")
    print("\n// -----\n\n".join(body), end="")


if __name__ == "__main__":
    main()
