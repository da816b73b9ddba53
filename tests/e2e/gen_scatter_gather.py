#!/usr/bin/env python3
"""Writes scatter_gather.mlir: scatter and gather with windows partly outside the operand (a
scatter skips those elements, a gather clamps its start), window dimensions before the batch
dimensions, index_vector_dim = 0, several-op update computations, a JAX-style sort comparator
(NaN and -0 canonicalised, a second operand carried along) and a map, with expected values from
a direct model of the specification.

    /usr/bin/python3 tests/e2e/gen_scatter_gather.py > tests/e2e/scatter_gather.mlir
"""
import itertools

import numpy as np


def lit(a):
    if a.ndim == 0:
        return f"dense<{a.item()}>"
    return "dense<" + np.array2string(a, separator=", ", threshold=1 << 30, max_line_width=1 << 30).replace("\n", "") + ">"


def flit(a):
    """f32 values as hex bit patterns (NaN and -0 survive)."""
    bits = np.asarray(a, np.float32).view(np.uint32)
    def fmt(x):
        return "0x%08X" % int(x)
    if bits.ndim == 1:
        return "dense<[" + ", ".join(fmt(x) for x in bits) + "]>"
    return "dense<[" + ", ".join("[" + ", ".join(fmt(x) for x in row) + "]" for row in bits) + "]>"


def ttype(shape, et):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def start_index(indices, ivd, batch):
    """The start index of batch position `batch`: indices with index_vector_dim left whole."""
    idx = list(batch)
    if ivd < indices.ndim:
        idx.insert(ivd, slice(None))
        return list(np.atleast_1d(indices[tuple(idx)]))
    return [indices[tuple(idx)]]


def scatter_ref(operand, indices, updates, uwd, iwd, sdod, ivd, fn):
    """Each update element, in row-major order, lands at start + window index unless outside."""
    out = operand.copy()
    urank, xrank = updates.ndim, operand.ndim
    scatter_dims = [d for d in range(urank) if d not in uwd]
    window_operand_dims = [d for d in range(xrank) if d not in iwd]
    for ui in itertools.product(*[range(k) for k in updates.shape]):
        start = start_index(indices, ivd, [ui[d] for d in scatter_dims])
        xi = [0] * xrank
        for k, d in enumerate(sdod):
            xi[d] = int(start[k])
        for j, d in enumerate(window_operand_dims):
            xi[d] += ui[uwd[j]]
        if all(0 <= xi[d] < operand.shape[d] for d in range(xrank)):
            out[tuple(xi)] = fn(out[tuple(xi)], updates[ui])
    return out


def gather_ref(operand, indices, offset_dims, csd, sim, ivd, slice_sizes):
    batch_rank = indices.ndim - (1 if ivd < indices.ndim else 0)
    slice_shape = [slice_sizes[d] for d in range(operand.ndim) if d not in csd]
    bshape = [indices.shape[d] for d in range(indices.ndim) if d != ivd]
    rrank = batch_rank + len(slice_shape)
    batch_dims = [d for d in range(rrank) if d not in offset_dims]
    rshape = [0] * rrank
    for k, d in enumerate(batch_dims):
        rshape[d] = bshape[k]
    for k, d in enumerate(offset_dims):
        rshape[d] = slice_shape[k]
    out = np.zeros(rshape, operand.dtype)
    window_dims = [d for d in range(operand.ndim) if d not in csd]
    for ri in itertools.product(*[range(k) for k in rshape]):
        start = start_index(indices, ivd, [ri[d] for d in batch_dims])
        xi = [0] * operand.ndim
        for k, d in enumerate(sim):
            xi[d] = min(max(int(start[k]), 0), operand.shape[d] - slice_sizes[d])
        for k, d in enumerate(window_dims):
            xi[d] += ri[offset_dims[k]]
        out[ri] = operand[tuple(xi)]
    return out


def scatter_case(name, operand, indices, updates, uwd, iwd, sdod, ivd, body, fn):
    want = scatter_ref(operand, indices, updates, uwd, iwd, sdod, ivd, fn)
    X, I, U = ttype(operand.shape, "i32"), ttype(indices.shape, "i32"), ttype(updates.shape, "i32")
    return "\n".join([
        f"func.func @{name}() {{",
        f"  %x = stablehlo.constant {lit(operand)} : {X}",
        f"  %i = stablehlo.constant {lit(indices)} : {I}",
        f"  %u = stablehlo.constant {lit(updates)} : {U}",
        '  %r = "stablehlo.scatter"(%x, %i, %u) ({',
        "  ^bb0(%a: tensor<i32>, %b: tensor<i32>):",
        body,
        f"  }}) {{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {list(uwd)}, "
        f"inserted_window_dims = {list(iwd)}, scatter_dims_to_operand_dims = {list(sdod)}, "
        f"index_vector_dim = {ivd}>}} : ({X}, {I}, {U}) -> {X}",
        f"  check.expect_eq_const %r, {lit(want)} : {X}",
        "  func.return", "}"])


def gather_case(name, operand, indices, offset_dims, csd, sim, ivd, slice_sizes):
    want = gather_ref(operand, indices, offset_dims, csd, sim, ivd, slice_sizes)
    X, I, R = ttype(operand.shape, "i32"), ttype(indices.shape, "i32"), ttype(want.shape, "i32")
    return "\n".join([
        f"func.func @{name}() {{",
        f"  %x = stablehlo.constant {lit(operand)} : {X}",
        f"  %i = stablehlo.constant {lit(indices)} : {I}",
        f'  %r = "stablehlo.gather"(%x, %i) {{dimension_numbers = #stablehlo.gather<offset_dims = {list(offset_dims)}, '
        f"collapsed_slice_dims = {list(csd)}, start_index_map = {list(sim)}, index_vector_dim = {ivd}>, "
        f"slice_sizes = array<i64: {', '.join(map(str, slice_sizes))}>}} : ({X}, {I}) -> {R}",
        f"  check.expect_eq_const %r, {lit(want)} : {R}",
        "  func.return", "}"])


def sort_case():
    """JAX's comparator for floats: -0 as 0, every NaN as one NaN, then a total-order less-than;
    the second operand (positions) shows that equal keys keep their order."""
    rng = np.random.default_rng(3)
    n = 1200
    x = rng.integers(-20, 20, n).astype(np.float32) / 4
    x[rng.integers(0, n, 40)] = np.nan
    x[rng.integers(0, n, 40)] = -0.0
    x[rng.integers(0, n, 40)] = np.inf
    x[rng.integers(0, n, 40)] = -np.inf
    key = np.where(x == 0, np.float32(0), x)
    key = np.where(np.isnan(key), np.float32(np.nan), key)
    # Total order on the canonical keys: -inf < ... < -0 = 0 < ... < inf < NaN.
    order = sorted(range(n), key=lambda i: (np.isnan(key[i]), 0.0 if np.isnan(key[i]) else float(key[i]), i))
    want_x = x[order]
    want_pos = np.array(order, np.int32)
    T, I = ttype((n,), "f32"), ttype((n,), "i32")
    return "\n".join([
        "func.func @sort_jax_float_comparator() {",
        f"  %x = stablehlo.constant {flit(x)} : {T}",
        f"  %p = stablehlo.iota dim = 0 : {I}",
        '  %r:2 = "stablehlo.sort"(%x, %p) ({',
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):",
        "    %z = stablehlo.constant dense<0.0> : tensor<f32>",
        "    %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>",
        "    %az = stablehlo.compare EQ, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        "    %a1 = stablehlo.select %az, %z, %a : tensor<i1>, tensor<f32>",
        "    %an = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        "    %a2 = stablehlo.select %an, %nan, %a1 : tensor<i1>, tensor<f32>",
        "    %bz = stablehlo.compare EQ, %b, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        "    %b1 = stablehlo.select %bz, %z, %b : tensor<i1>, tensor<f32>",
        "    %bn = stablehlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        "    %b2 = stablehlo.select %bn, %nan, %b1 : tensor<i1>, tensor<f32>",
        "    %lt = stablehlo.compare LT, %a2, %b2, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        "    stablehlo.return %lt : tensor<i1>",
        f"  }}) {{dimension = 0 : i64, is_stable = true}} : ({T}, {I}) -> ({T}, {I})",
        f"  %bits = stablehlo.bitcast_convert %r#0 : ({T}) -> {ttype((n,), 'ui32')}",
        f"  check.expect_eq_const %bits, {lit(want_x.view(np.uint32))} : {ttype((n,), 'ui32')}",
        f"  check.expect_eq_const %r#1, {lit(want_pos)} : {I}",
        "  func.return", "}"])


def argsort_case(name, direction, swapped):
    """An integer sort carrying positions, the comparator one compare of the keys (argsort):
    many equal keys, so stability shows; `swapped` compares (b, a)."""
    n = 600
    x = ((np.arange(n) * 7919) % 37 - 18).astype(np.int32)
    desc = (direction == "GT") != swapped
    order = sorted(range(n), key=lambda i: (-x[i] if desc else x[i], i))
    T = ttype((n,), "i32")
    lhs, rhs = ("%b", "%a") if swapped else ("%a", "%b")
    return "\n".join([
        f"func.func @{name}() {{",
        f"  %x = stablehlo.constant {lit(x)} : {T}",
        f"  %p = stablehlo.iota dim = 0 : {T}",
        '  %r:2 = "stablehlo.sort"(%x, %p) ({',
        "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):",
        f"    %lt = stablehlo.compare {direction}, {lhs}, {rhs}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "    stablehlo.return %lt : tensor<i1>",
        f"  }}) {{dimension = 0 : i64, is_stable = true}} : ({T}, {T}) -> ({T}, {T})",
        f"  check.expect_eq_const %r#0, {lit(x[order])} : {T}",
        f"  check.expect_eq_const %r#1, {lit(np.array(order, np.int32))} : {T}",
        "  func.return", "}"])


def map_case():
    n = 3000
    a = (np.arange(n, dtype=np.int32) * 7) % 101 - 50
    b = (np.arange(n, dtype=np.int32) * 3) % 13 - 6
    want = np.where(a > b, a * 2 - b, b + 1).astype(np.int32)
    T = ttype((n,), "i32")
    return "\n".join([
        "func.func @map_several_ops() {",
        f"  %a = stablehlo.constant {lit(a)} : {T}",
        f"  %b = stablehlo.constant {lit(b)} : {T}",
        '  %r = "stablehlo.map"(%a, %b) ({',
        "  ^bb0(%p: tensor<i32>, %q: tensor<i32>):",
        "    %two = stablehlo.constant dense<2> : tensor<i32>",
        "    %one = stablehlo.constant dense<1> : tensor<i32>",
        "    %gt = stablehlo.compare GT, %p, %q, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "    %p2 = stablehlo.multiply %p, %two : tensor<i32>",
        "    %d = stablehlo.subtract %p2, %q : tensor<i32>",
        "    %q1 = stablehlo.add %q, %one : tensor<i32>",
        "    %v = stablehlo.select %gt, %d, %q1 : tensor<i1>, tensor<i32>",
        "    stablehlo.return %v : tensor<i32>",
        f"  }}) {{dimensions = array<i64: 0>}} : ({T}, {T}) -> {T}",
        f"  check.expect_eq_const %r, {lit(want)} : {T}",
        "  func.return", "}"])


def main():
    rng = np.random.default_rng(1)
    add = "    %v = stablehlo.add %a, %b : tensor<i32>\n    stablehlo.return %v : tensor<i32>"
    # a * 2 + b: order matters, so these indices never repeat a window position.
    twice = ("    %two = stablehlo.constant dense<2> : tensor<i32>\n"
             "    %t = stablehlo.multiply %a, %two : tensor<i32>\n"
             "    %v = stablehlo.add %t, %b : tensor<i32>\n    stablehlo.return %v : tensor<i32>")
    operand = np.arange(30, dtype=np.int32).reshape(6, 5)
    # windows of 2x3 starting at each row of `starts`; some hang over an edge or start before 0
    starts = np.array([[0, 0], [4, 3], [5, 4], [-1, 1], [2, -2], [3, 1], [6, 0], [1, 2]], np.int32)
    updates = rng.integers(1, 9, (8, 2, 3)).astype(np.int32)
    chunks = [
        scatter_case("scatter_add_windows_partly_outside", operand, starts, updates, (1, 2), (), (0, 1), 1, add,
                     lambda p, q: p + q),
        # the same with the window dimensions first and the batch last, indices vector dim 0
        scatter_case("scatter_add_window_dims_first", operand, starts.T.copy(),
                     np.transpose(updates, (1, 2, 0)).copy(), (0, 1), (), (0, 1), 0, add, lambda p, q: p + q),
        scatter_case("scatter_several_op_update", operand, np.array([[0, 0], [3, 2], [4, 0]], np.int32),
                     rng.integers(1, 9, (3, 2, 3)).astype(np.int32), (1, 2), (), (0, 1), 1, twice,
                     lambda p, q: p * 2 + q),
        # rows scattered by a one-dimensional index (inserted dim 0), several landing on one row
        scatter_case("scatter_add_rows_repeated", np.zeros((4, 6), np.int32),
                     np.array([[1], [3], [1], [7], [0], [1]], np.int32),
                     rng.integers(1, 9, (6, 6)).astype(np.int32), (1,), (0,), (0,), 1, add, lambda p, q: p + q),
        gather_case("gather_windows_clamped", np.arange(42, dtype=np.int32).reshape(6, 7), starts, (1, 2), (), (0, 1),
                    1, (2, 3)),
        gather_case("gather_offset_dims_first", np.arange(42, dtype=np.int32).reshape(6, 7), starts.T.copy(), (0, 1),
                    (), (0, 1), 0, (3, 2)),
        gather_case("gather_rows", np.arange(60, dtype=np.int32).reshape(10, 6),
                    np.array([[3], [0], [9], [12], [-4]], np.int32), (1,), (0,), (0,), 1, (1, 6)),
        sort_case(),
        argsort_case("argsort_ascending_i32", "LT", False),
        argsort_case("argsort_descending_swapped_i32", "LT", True),
        map_case(),
    ]
    print("// Generated by gen_scatter_gather.py: scatter, gather, sort and map against a direct model of\n"
          "// the specification.")
    print("\n\n// -----\n\n".join(chunks))


if __name__ == "__main__":
    main()
