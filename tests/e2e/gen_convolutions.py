#!/usr/bin/python3
"""Writes tests/e2e/convolutions.mlir: random convolutions (layouts, strides, padding including
negative, lhs/rhs dilation, window reversal, feature groups, 0-3 spatial dimensions) run twice,
in i32 (the direct loop) and in f32/f64 (the patch-matrix path through GEMM), on small integers
so both are exact, and compared element by element.
    /usr/bin/python3 tests/e2e/gen_convolutions.py > tests/e2e/convolutions.mlir"""
import random

rng = random.Random(7)
chunks = []
# Cases 21-24 are large enough for the banded implicit GEMM at several threads (the run's default
# thread count is the machine's): each band pads only its slice of the input. Fixed shapes, drawn
# after the random cases so that those stay as they were: NHWC with SAME padding; NHWC without
# padding (read in place) and strides [2, 1]; 1-D with a dilated window and uneven padding (bands
# that start inside a padded row); NCHW input (the per-channel copy).
banded = {21: dict(ns=2, batch=2, k_in=16, per_group=16, in_sp=[24, 24], k_sp=[3, 3], stride=[1, 1],
                   rhs_d=[1, 1], pad=[[1, 1], [1, 1]], lhs="bf"),
          22: dict(ns=2, batch=2, k_in=16, per_group=16, in_sp=[50, 50], k_sp=[3, 3], stride=[2, 1],
                   rhs_d=[1, 1], pad=[[0, 0], [0, 0]], lhs="bf"),
          23: dict(ns=1, batch=3, k_in=16, per_group=16, in_sp=[1500], k_sp=[5], stride=[2],
                   rhs_d=[2], pad=[[2, 1]], lhs="bf"),
          24: dict(ns=2, batch=2, k_in=16, per_group=16, in_sp=[24, 24], k_sp=[3, 3], stride=[1, 1],
                   rhs_d=[1, 1], pad=[[1, 1], [2, 0]], lhs="fb")}
for case in range(25):
    # Cases 18-20 are larger (f32, no lhs dilation): the implicit GEMM's padded copy and offset
    # tables are then built in several units, one starting inside the second batch element.
    big = 18 <= case < 21
    ns = [1, 2, 3][case - 18] if big else [0, 1, 2, 2, 2, 3][case % 6]
    groups = rng.choice([1, 1, 2])
    batch = rng.choice([1, 2, 3])
    k_in = rng.choice([1, 2, 3])
    per_group = rng.choice([1, 2, 4])
    in_sp = [rng.randint(3, 7) for _ in range(ns)]
    k_sp = [rng.randint(1, 3) for _ in range(ns)]
    stride = [rng.choice([1, 1, 2]) for _ in range(ns)]
    lhs_d = [rng.choice([1, 1, 2]) for _ in range(ns)]
    rhs_d = [rng.choice([1, 1, 2]) for _ in range(ns)]
    pad = [[rng.randint(-1, 2), rng.randint(-1, 2)] for _ in range(ns)]
    rev = [rng.choice([False, True]) for _ in range(ns)]
    if big:
        batch = 3
        in_sp = [[700], [24, 22], [10, 9, 12]][case - 18]
        lhs_d = [1] * ns
    fixed = banded.get(case)
    if fixed:
        ns, batch, k_in, per_group = fixed["ns"], fixed["batch"], fixed["k_in"], fixed["per_group"]
        in_sp, k_sp, stride, rhs_d, pad = fixed["in_sp"], fixed["k_sp"], fixed["stride"], fixed["rhs_d"], fixed["pad"]
        groups, lhs_d, rev, big = 1, [1] * ns, [False] * ns, True
    out_sp = []
    for i in range(ns):
        din = (in_sp[i] - 1) * lhs_d[i] + 1 + pad[i][0] + pad[i][1]
        dk = (k_sp[i] - 1) * rhs_d[i] + 1
        if din < dk:
            pad[i][1] += dk - din
            din = dk
        out_sp.append((din - dk) // stride[i] + 1)
    # Random layouts: positions of batch/feature/spatial dims in each tensor.
    def layout(names):
        order = names[:]
        rng.shuffle(order)
        return order
    sp = [str(i) for i in range(ns)]
    lhs_l, rhs_l, out_l = layout(["b", "f"] + sp), layout(["i", "o"] + sp), layout(["b", "f"] + sp)
    if fixed:
        lhs_l = ["b"] + sp + ["f"] if fixed["lhs"] == "bf" else ["b", "f"] + sp
        rhs_l, out_l = sp + ["i", "o"], ["b"] + sp + ["f"]
    def dims(lay, sizes):
        return [sizes[n] for n in lay]
    lhs_sizes = {"b": batch, "f": k_in * groups, **{str(i): in_sp[i] for i in range(ns)}}
    rhs_sizes = {"i": k_in, "o": per_group * groups, **{str(i): k_sp[i] for i in range(ns)}}
    out_sizes = {"b": batch, "f": per_group * groups, **{str(i): out_sp[i] for i in range(ns)}}
    ld, rd, od = dims(lhs_l, lhs_sizes), dims(rhs_l, rhs_sizes), dims(out_l, out_sizes)
    def n(d):
        r = 1
        for v in d:
            r *= v
        return r
    def t(d, e):
        return "tensor<" + "".join(f"{v}x" for v in d) + e + ">"
    fty = "f32" if big else rng.choice(["f32", "f64"])
    window = ""
    if ns:
        window = (", window = {stride = [" + ", ".join(map(str, stride)) + "], pad = [" +
                  ", ".join(f"[{a}, {b}]" for a, b in pad) + "], lhs_dilate = [" + ", ".join(map(str, lhs_d)) +
                  "], rhs_dilate = [" + ", ".join(map(str, rhs_d)) + "], reverse = [" +
                  ", ".join("true" if r else "false" for r in rev) + "]}")
    dn = f"[{', '.join(lhs_l)}]x[{', '.join(rhs_l)}]->[{', '.join(out_l)}]"
    attrs = f"{{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}}"
    lines = [f"func.func @conv_{case}_{ns}d_groups{groups}() {{"]
    for name, d, mul, mod in (("x", ld, 7, 11), ("w", rd, 5, 7)):
        lines += [f"  %{name}_iota = stablehlo.iota dim = 0 : {t([n(d)], 'i32')}",
                  f"  %{name}_m = stablehlo.constant dense<{mul}> : {t([n(d)], 'i32')}",
                  f"  %{name}_q = stablehlo.constant dense<{mod}> : {t([n(d)], 'i32')}",
                  f"  %{name}_h = stablehlo.constant dense<{mod // 2}> : {t([n(d)], 'i32')}",
                  f"  %{name}_1 = stablehlo.multiply %{name}_iota, %{name}_m : {t([n(d)], 'i32')}",
                  f"  %{name}_2 = stablehlo.remainder %{name}_1, %{name}_q : {t([n(d)], 'i32')}",
                  f"  %{name}_3 = stablehlo.subtract %{name}_2, %{name}_h : {t([n(d)], 'i32')}",
                  f"  %{name}i = stablehlo.reshape %{name}_3 : ({t([n(d)], 'i32')}) -> {t(d, 'i32')}",
                  f"  %{name}f = stablehlo.convert %{name}i : ({t(d, 'i32')}) -> {t(d, fty)}"]
    lines += [f"  %ri = stablehlo.convolution(%xi, %wi) dim_numbers = {dn}{window} {attrs} : ({t(ld, 'i32')}, {t(rd, 'i32')}) -> {t(od, 'i32')}",
              f"  %rf = stablehlo.convolution(%xf, %wf) dim_numbers = {dn}{window} {attrs} : ({t(ld, fty)}, {t(rd, fty)}) -> {t(od, fty)}",
              f"  %rc = stablehlo.convert %ri : ({t(od, 'i32')}) -> {t(od, fty)}",
              f"  check.expect_eq %rf, %rc : {t(od, fty)}", "  func.return", "}"]
    chunks.append("\n".join(lines))
print("// Generated by gen_convolutions.py: the patch-matrix convolution (f32/f64) against the direct")
print("// loop (i32) on small integers, over random dimension numbers and windows. Do not edit.")
print("\n\n// -----\n\n".join(chunks))
