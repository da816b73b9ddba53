#!/usr/bin/env python3
"""Writes shape_matrix.mlir: the data-movement ops (reshape, transpose, reverse, slice, pad,
concatenate, broadcast_in_dim, dynamic_slice and dynamic_update_slice with clamped starts,
gather, scatter, select) over every element type, one module per type, with expected values
computed here from the same data; then dot_general, sort, reduce (add, max), reduce_window, iota
and a while loop over every integer and float type but i1, i2/ui2 and f8E8M0FNU (which cannot
hold the small integers used), one module per type.

Types 8, 16, 32 or 64 bits wide (every integer and float type, the f8 formats included) carry
distinct bit patterns made as unsigned integers and bitcast to the type, so each check compares
the bits moved, NaN patterns and all; the sub-byte types go through convert from i8 or f32
values they hold exactly; i1 and the complex types use literals.

    python3 tests/e2e/gen_shape_matrix.py > tests/e2e/shape_matrix.mlir
"""

WIDTH = {"i8": 8, "ui8": 8, "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3": 8, "f8E3M4": 8, "f8E4M3FNUZ": 8,
         "f8E5M2FNUZ": 8, "f8E4M3B11FNUZ": 8, "f8E8M0FNU": 8, "i16": 16, "ui16": 16, "f16": 16,
         "bf16": 16, "i32": 32, "ui32": 32, "f32": 32, "i64": 64, "ui64": 64, "f64": 64}
SUB_BYTE = {"i2": ("i8", [-2, -1, 0, 1]), "ui2": ("i8", [0, 1, 2, 3]), "i4": ("i8", list(range(-8, 8))),
            "ui4": ("i8", list(range(16))), "f4E2M1FN": ("f32", [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -2, -6]),
            "f6E2M3FN": ("f32", [0, 0.125, 0.25, 1, 1.125, 2.5, 7.5, -3, -0.375]),
            "f6E3M2FN": ("f32", [0, 0.25, 1, 1.25, 3.5, 28, -0.0625, -12])}
SHAPE = (2, 3, 4)
N = 24


class Array:
    """A row-major nested-list-free array: flat values and a shape."""

    def __init__(self, shape, values):
        self.shape, self.values = tuple(shape), list(values)

    def at(self, idx):
        off = 0
        for d, i in zip(self.shape, idx):
            off = off * d + i
        return self.values[off]

    @staticmethod
    def build(shape, fn):
        vals = []

        def rec(prefix, rest):
            if not rest:
                vals.append(fn(prefix))
                return
            for i in range(rest[0]):
                rec(prefix + (i,), rest[1:])

        rec((), tuple(shape))
        return Array(shape, vals)


def tensor(shape, t):
    return "tensor<" + "".join(f"{d}x" for d in shape) + t + ">"


def fmt(v, t):
    if t == "i1":
        return "true" if v else "false"
    if t.startswith("complex"):
        return f"({float(v.real)!r}, {float(v.imag)!r})"
    if t in ("f32", "f64"):
        return repr(float(v))
    return str(int(v))


def dense(a, t):
    """A literal nested as the shape asks (a bare value for rank 0)."""
    def nest(values, shape):
        if not shape:
            return fmt(values[0], t)
        step = len(values) // shape[0] if shape[0] else 0
        return "[" + ", ".join(nest(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"

    return "dense<" + nest(a.values, a.shape) + ">"


def ops_on(x, pad_value, other):
    """(name, op text template, expected Array) for every data-movement op on x (shape 2x3x4).
    Templates use {x}, {p} (the pad value), {o} (another array of x's shape), {pred}, {t}."""
    out = []
    out.append(("reshape", "stablehlo.reshape {x} : ({T}) -> " + tensor((4, 6), "{t}"), Array((4, 6), x.values)))
    out.append(("transpose", "stablehlo.transpose {x}, dims = [2, 0, 1] : ({T}) -> " + tensor((4, 2, 3), "{t}"),
                Array.build((4, 2, 3), lambda i: x.at((i[1], i[2], i[0])))))
    rev = Array.build(SHAPE, lambda i: x.at((1 - i[0], i[1], 3 - i[2])))
    out.append(("reverse", "stablehlo.reverse {x}, dims = [0, 2] : {T}", rev))
    out.append(("slice", "stablehlo.slice {x} [0:2, 1:3, 0:4:2] : ({T}) -> " + tensor((2, 2, 2), "{t}"),
                Array.build((2, 2, 2), lambda i: x.at((i[0], 1 + i[1], 2 * i[2])))))

    def padded(i):
        a, b, c = i
        if a >= 2 or b == 0 or (b - 1) % 2 or c >= 4:
            return pad_value
        return x.at((a, (b - 1) // 2, c))

    out.append(("pad", "stablehlo.pad {x}, {p}, low = [0, 1, 0], high = [1, 0, 1], interior = [0, 1, 0] : ({T}, "
                + tensor((), "{t}") + ") -> " + tensor((3, 6, 5), "{t}"), Array.build((3, 6, 5), padded)))
    out.append(("concatenate", "stablehlo.concatenate {x}, {o}, dim = 1 : ({T}, {T}) -> " + tensor((2, 6, 4), "{t}"),
                Array.build((2, 6, 4), lambda i: x.at(i) if i[1] < 3 else other.at((i[0], i[1] - 3, i[2])))))
    out.append(("broadcast_in_dim", "stablehlo.broadcast_in_dim {x}, dims = [0, 2, 3] : ({T}) -> "
                + tensor((2, 2, 3, 4), "{t}"), Array.build((2, 2, 3, 4), lambda i: x.at((i[0], i[2], i[3])))))
    # Starts (1, 2, 3) for sizes (2, 2, 2) are clamped to (0, 1, 2).
    out.append(("dynamic_slice", "stablehlo.dynamic_slice {x}, {i1}, {i2}, {i3}, sizes = [2, 2, 2] : ({T}, "
                "tensor<i32>, tensor<i32>, tensor<i32>) -> " + tensor((2, 2, 2), "{t}"),
                Array.build((2, 2, 2), lambda i: x.at((i[0], 1 + i[1], 2 + i[2])))))
    # A 1x2x2 update of `other`'s corner at starts (1, 2, 3) lands at (1, 1, 2).
    upd = Array.build((1, 2, 2), lambda i: other.at(i))
    out.append(("dynamic_update_slice", "stablehlo.dynamic_update_slice {x}, {u}, {i1}, {i2}, {i3} : ({T}, "
                + tensor((1, 2, 2), "{t}") + ", tensor<i32>, tensor<i32>, tensor<i32>) -> {T}",
                Array.build(SHAPE, lambda i: upd.at((i[0] - 1, i[1] - 1, i[2] - 2))
                            if i[0] == 1 and 1 <= i[1] < 3 and 2 <= i[2] < 4 else x.at(i))))
    gather_dims = ("#stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [1], start_index_map = [1], "
                   "index_vector_dim = 1>")
    out.append(("gather", '"stablehlo.gather"({x}, {idx}) {{dimension_numbers = ' + gather_dims
                + ', slice_sizes = array<i64: 2, 1, 4>}} : ({T}, tensor<2x1xi32>) -> ' + tensor((2, 2, 4), "{t}"),
                Array.build((2, 2, 4), lambda i: x.at((i[1], [2, 0][i[0]], i[2])))))
    scatter_dims = ("#stablehlo.scatter<update_window_dims = [1, 2], inserted_window_dims = [1], "
                    "scatter_dims_to_operand_dims = [1], index_vector_dim = 1>")
    upd2 = Array.build((2, 2, 4), lambda i: other.at((i[1], i[0], i[2])))
    out.append(("scatter", '"stablehlo.scatter"({x}, {idx}, {u2}) ({{\n  ^bb0(%old: ' + tensor((), "{t}") + ', %new: '
                + tensor((), "{t}") + '):\n    stablehlo.return %new : ' + tensor((), "{t}") + '\n  }}) {{scatter_dimension_numbers = '
                + scatter_dims + '}} : ({T}, tensor<2x1xi32>, ' + tensor((2, 2, 4), "{t}") + ') -> {T}',
                Array.build(SHAPE, lambda i: upd2.at(({2: 0, 0: 1}[i[1]], i[0], i[2])) if i[1] in (0, 2) else x.at(i))))
    pred = Array.build(SHAPE, lambda i: (i[0] + i[1] * 2 + i[2]) % 3 == 0)
    out.append(("select", "stablehlo.select {pred}, {x}, {o} : " + tensor(SHAPE, "i1") + ", {T}",
                Array.build(SHAPE, lambda i: x.at(i) if pred.at(i) else other.at(i))))
    return out, upd, upd2, pred


def module(t):
    """One @main over type t. Values are made in a carrier type c (the same bits, or exact
    values) and brought to t before the ops and back to c for the checks."""
    lines = []
    k = [0]

    def fresh():
        k[0] += 1
        return f"%v{k[0]}"

    if t in WIDTH:
        c = f"ui{WIDTH[t]}"
        mask = (1 << WIDTH[t]) - 1
        step = {8: 37, 16: 40503, 32: 2654435761, 64: 11400714819323198485}[WIDTH[t]]
        to_t, from_t = "bitcast_convert", "bitcast_convert"
        x = Array(SHAPE, [((i + 1) * step) & mask for i in range(N)])
        other = Array(SHAPE, [((i + 101) * step * 3) & mask for i in range(N)])
        pad_value = (7 * step) & mask
    elif t in SUB_BYTE:
        c, vals = SUB_BYTE[t]
        to_t, from_t = "convert", "convert"
        x = Array(SHAPE, [vals[i % len(vals)] for i in range(N)])
        other = Array(SHAPE, [vals[(5 * i + 3) % len(vals)] for i in range(N)])
        pad_value = vals[1]
    elif t == "i1":
        c, to_t, from_t = "i1", None, None
        x = Array(SHAPE, [(i * 7) % 3 == 0 for i in range(N)])
        other = Array(SHAPE, [(i * 5) % 4 == 1 for i in range(N)])
        pad_value = True
    else:  # complex
        c, to_t, from_t = t, None, None
        x = Array(SHAPE, [complex(i, -2 * i - 1) for i in range(N)])
        other = Array(SHAPE, [complex(100 + i, i % 5) for i in range(N)])
        pad_value = complex(-7, 7)

    def load(a, shape):
        """A constant of carrier values, in type t."""
        name = fresh()
        lines.append(f"  {name} = stablehlo.constant {dense(a, c)} : {tensor(shape, c)}")
        if to_t:
            conv = fresh()
            lines.append(f"  {conv} = stablehlo.{to_t} {name} : ({tensor(shape, c)}) -> {tensor(shape, t)}")
            return conv
        return name

    ops, upd, upd2, pred = ops_on(x, pad_value, other)
    names = {
        "x": load(x, SHAPE), "o": load(other, SHAPE), "p": load(Array((), [pad_value]), ()),
        "u": load(upd, (1, 2, 2)), "u2": load(upd2, (2, 2, 4)),
    }
    for nm, v in (("i1", 1), ("i2", 2), ("i3", 3)):
        names[nm] = fresh()
        lines.append(f"  {names[nm]} = stablehlo.constant dense<{v}> : tensor<i32>")
    names["idx"] = fresh()
    lines.append(f"  {names['idx']} = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>")
    names["pred"] = fresh()
    lines.append(f"  {names['pred']} = stablehlo.constant {dense(pred, 'i1')} : {tensor(SHAPE, 'i1')}")
    for name, template, want in ops:
        r = fresh()
        text = template.replace("{T}", tensor(SHAPE, t))
        text = text.format(t=t, **names)
        lines.append(f"  // {name}")
        lines.append(f"  {r} = {text}")
        back = r
        if from_t:
            back = fresh()
            lines.append(f"  {back} = stablehlo.{from_t} {r} : ({tensor(want.shape, t)}) -> {tensor(want.shape, c)}")
        lines.append(f"  check.expect_eq_const {back}, {dense(want, c)} : {tensor(want.shape, c)}")
    return "\n".join([f"// {t}", "func.func @main() {"] + lines + ["  func.return", "}"])


def compute_module(t):
    """dot_general, sort, reduce (add, max), reduce_window, iota and a while loop on type t, with
    small integers every type holds exactly, made and checked through converts from/to i32."""
    ty = lambda shape: tensor(shape, t)
    i32 = lambda shape: tensor(shape, "i32")
    lines = [f"// {t}: arithmetic ops", "func.func @main() {"]
    a = "%a"
    lines.append(f"  %a0 = stablehlo.constant dense<[[1, 0, 1], [0, 1, 1]]> : {i32((2, 3))}")
    lines.append(f"  %b0 = stablehlo.constant dense<[[1, 0], [0, 1], [1, 1]]> : {i32((3, 2))}")
    lines.append(f"  %x0 = stablehlo.constant dense<[[1, 3, 2], [0, 2, 1]]> : {i32((2, 3))}")
    for n, shape in (("a", (2, 3)), ("b", (3, 2)), ("x", (2, 3))):
        lines.append(f"  %{n} = stablehlo.convert %{n}0 : ({i32(shape)}) -> {ty(shape)}")
    z, checks = 0, []

    def check(v, shape, want):
        nonlocal z
        z += 1
        lines.append(f"  %r{z} = stablehlo.convert {v} : ({ty(shape)}) -> {i32(shape)}")
        lines.append(f"  check.expect_eq_const %r{z}, dense<{want}> : {i32(shape)}")

    lines.append(f"  %d = stablehlo.dot_general {a}, %b, contracting_dims = [1] x [0] : ({ty((2, 3))}, {ty((3, 2))}) -> {ty((2, 2))}")
    check("%d", (2, 2), "[[2, 1], [1, 2]]")
    lines += [f"  %s = \"stablehlo.sort\"(%x) ({{",
              f"  ^bb0(%p: {ty(())}, %q: {ty(())}):",
              f"    %c = stablehlo.compare GT, %p, %q : ({ty(())}, {ty(())}) -> tensor<i1>",
              "    stablehlo.return %c : tensor<i1>",
              f"  }}) {{dimension = 1 : i64}} : ({ty((2, 3))}) -> {ty((2, 3))}"]
    check("%s", (2, 3), "[[3, 2, 1], [2, 1, 0]]")
    lines.append(f"  %zero = stablehlo.convert %z0 : (tensor<i32>) -> {ty(())}")
    lines.insert(lines.index(f"  %a0 = stablehlo.constant dense<[[1, 0, 1], [0, 1, 1]]> : {i32((2, 3))}"),
                 "  %z0 = stablehlo.constant dense<0> : tensor<i32>")
    lines.append(f"  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : ({ty((2, 3))}, {ty(())}) -> {ty((2,))}")
    check("%sum", (2,), "[6, 3]")
    lines.append(f"  %max = stablehlo.reduce(%x init: %zero) applies stablehlo.maximum across dimensions = [1] : ({ty((2, 3))}, {ty(())}) -> {ty((2,))}")
    check("%max", (2,), "[3, 2]")
    lines += [f"  %w = \"stablehlo.reduce_window\"(%x, %zero) ({{",
              f"  ^bb0(%p: {ty(())}, %q: {ty(())}):",
              f"    %m = stablehlo.maximum %p, %q : {ty(())}",
              f"    stablehlo.return %m : {ty(())}",
              f"  }}) {{window_dimensions = array<i64: 1, 2>}} : ({ty((2, 3))}, {ty(())}) -> {ty((2, 2))}"]
    check("%w", (2, 2), "[[3, 3], [2, 2]]")
    lines.append(f"  %io = stablehlo.iota dim = 0 : {ty((4,))}")
    check("%io", (4,), "[0, 1, 2, 3]")
    lines += ["  %one0 = stablehlo.constant dense<1> : tensor<i32>",
              "  %three0 = stablehlo.constant dense<3> : tensor<i32>",
              f"  %one = stablehlo.convert %one0 : (tensor<i32>) -> {ty(())}",
              f"  %three = stablehlo.convert %three0 : (tensor<i32>) -> {ty(())}",
              f"  %loop = stablehlo.while(%k = %zero) : {ty(())}",
              "  cond {",
              f"    %lt = stablehlo.compare LT, %k, %three : ({ty(())}, {ty(())}) -> tensor<i1>",
              "    stablehlo.return %lt : tensor<i1>",
              "  } do {",
              f"    %k1 = stablehlo.add %k, %one : {ty(())}",
              f"    stablehlo.return %k1 : {ty(())}",
              "  }"]
    check("%loop", (), "3")
    return "\n".join(lines + ["  func.return", "}"])


def main():
    types = ["i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32", "f64",
             "f8E4M3FN", "f8E5M2", "f8E4M3", "f8E3M4", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E8M0FNU",
             "i2", "ui2", "i4", "ui4", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "complex<f32>", "complex<f64>"]
    print("// Generated by tests/e2e/gen_shape_matrix.py: data-movement ops over every element type.")
    arithmetic = ["i4", "ui4", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32",
                  "f64", "f8E4M3FN", "f8E5M2", "f8E4M3", "f8E3M4", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ",
                  "f4E2M1FN", "f6E2M3FN", "f6E3M2FN"]
    print("\n\n// -----\n\n".join([module(t) for t in types] + [compute_module(t) for t in arithmetic]))


if __name__ == "__main__":
    main()
