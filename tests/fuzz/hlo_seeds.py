"""Writes the seed corpus of hlo_fuzzer: small HloModuleProtos (tests/python/hlo_builder.py)
covering tuples, while, conditional, reductions, windows, gather and sort, collectives, custom
calls, tuple parameters and sub-byte constants.

    python3 tests/fuzz/hlo_seeds.py OUT_DIR
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from hlo_builder import (Module, S, T, collectives_module, dot_dims, field_packed, field_varint,  # noqa: E402
                         iota_device_list, replica_groups, window)


def modules():
    m = Module()
    add = m.scalar_computation("add", "add")
    e = m.computation("main")
    x, w = e.param(0, S("f32", 4, 5)), e.param(1, S("f32", 5, 3))
    d = e.add("dot", S("f32", 4, 3), [x, w], f30=dot_dims([1], [0]))
    z = e.constant(S("f32"), 0)
    r = e.add("reduce", S("f32", 4), [d, z], f14=[1], f38=[add.id])
    e.add("tuple", T(S("f32", 4, 3), S("f32", 4)), [d, r])
    yield m

    m = Module()
    state = T(S("s32"), S("f32", 3))
    cond = m.computation("cond")
    p = cond.param(0, state)
    i = cond.add("get-tuple-element", S("s32"), [p], f13=0)
    cond.add("compare", S("pred"), [i, cond.constant(S("s32"), 5)], f63="LT")
    body = m.computation("body")
    p = body.param(0, state)
    i = body.add("get-tuple-element", S("s32"), [p], f13=0)
    a = body.add("get-tuple-element", S("f32", 3), [p], f13=1)
    body.add("tuple", state, [body.add("add", S("s32"), [i, body.constant(S("s32"), 1)]),
                              body.add("multiply", S("f32", 3), [a, a])])
    e = m.computation("main")
    x = e.param(0, S("f32", 3))
    w = e.add("while", state, [e.add("tuple", state, [e.constant(S("s32"), 0), x])], f38=[body.id, cond.id])
    e.add("get-tuple-element", S("f32", 3), [w], f13=1)
    yield m

    m = Module()
    neg = m.computation("neg")
    neg.add("negate", S("f32", 2), [neg.param(0, S("f32", 2))])
    e = m.computation("main")
    flag, x = e.param(0, S("pred")), e.param(1, S("f32", 2))
    e.add("conditional", S("f32", 2), [flag, x, x], f38=[neg.id, neg.id])
    yield m

    m = Module()
    mx = m.scalar_computation("max", "maximum")
    e = m.computation("main")
    x, k = e.param(0, S("f32", 1, 5, 5, 2)), e.param(1, S("f32", 3, 3, 2, 4))
    cd = (field_varint(7, 0) + field_varint(8, 3) + field_packed(11, [1, 2]) + field_varint(3, 2) + field_varint(4, 3)
          + field_packed(6, [0, 1]) + field_varint(9, 0) + field_varint(10, 3) + field_packed(12, [1, 2]))
    y = e.add("convolution", S("f32", 1, 5, 5, 4), [x, k], f15=window(dict(size=3, lo=1, hi=1), dict(size=3, lo=1, hi=1)),
              f16=cd)
    e.add("reduce-window", S("f32", 1, 2, 2, 4), [y, e.constant(S("f32"), 0)],
          f15=window(dict(size=1), dict(size=2, stride=2), dict(size=2, stride=2), dict(size=1)), f38=[mx.id])
    yield m

    m = Module()
    e = m.computation("main")
    x, idx = e.param(0, S("f32", 4, 3)), e.param(1, S("s32", 2, 1))
    gd = field_packed(1, [1]) + field_packed(2, [0]) + field_packed(3, [0]) + field_varint(4, 1)
    g = e.add("gather", S("f32", 2, 3), [x, idx], f33=gd, f34=[1, 3])
    t = e.add("transpose", S("f32", 3, 2), [g], f14=[1, 0])
    e.add("slice", S("f32", 1, 2), [t], f17=[field_varint(2, 1) + field_varint(3, 1), field_varint(2, 2) + field_varint(3, 1)])
    yield m

    yield collectives_module({"f49": replica_groups([0, 1])})
    yield collectives_module({"f87": iota_device_list(2, 2, [2, 2], [1, 0]), "f26": 1, "f71": 1})

    m = Module()
    e = m.computation("main")
    p = e.param(0, T(S("f32", 3), S("s32")))
    x = e.add("get-tuple-element", S("f32", 3), [p], f13=0)
    k = e.add("convert", S("f32", 3), [e.constant(S("s4", 3), [-8, 7, -1])])
    y = e.add("custom-call", S("f32", 3), [e.add("add", S("f32", 3), [x, k])], f28="Sharding", f43="{}", f77=4)
    e.add("custom-call", T(S("f32", 3), S("s32")), [y, e.add("get-tuple-element", S("s32"), [p], f13=1)],
          f28="lapack_sgetrf_ffi", f43="{mode = 1 : i32}", f77=4)
    yield m


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for n, m in enumerate(modules()):
        (out / f"seed{n}.pb").write_bytes(m.serialize())
    print(f"seed corpus: {n + 1} inputs")
