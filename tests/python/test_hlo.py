"""The "hlo" program format: serialized HloModuleProtos (tests/python/hlo_builder.py) compiled
through the CPU plugin and run against numpy."""

import numpy as np
import pytest

import openpjrt
from hlo_builder import (Module, S, T, collectives_module, dot_dims, field_bytes, field_packed, field_varint,  # noqa: F401
                         iota_device_list, replica_groups, source_target_pairs, window)


@pytest.fixture(scope="module")
def c():
    return openpjrt.client()


def run(c, module, *args):
    exe = c.compile(module.serialize(), format="hlo")
    out = exe(*args)
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


def test_elementwise_broadcast_and_tuple_root(c):
    m = Module()
    e = m.computation("main")
    x, y = e.param(0, S("f32", 2, 3)), e.param(1, S("f32", 3))
    half = e.constant(S("f32"), 0.5)
    hb = e.add("broadcast", S("f32", 2, 3), [half], f14=[])
    yb = e.add("broadcast", S("f32", 2, 3), [y], f14=[1])
    s = e.add("add", S("f32", 2, 3), [x, yb])
    p = e.add("multiply", S("f32", 2, 3), [s, hb])
    t = e.add("tanh", S("f32", 2, 3), [p])
    lt = e.add("compare", S("pred", 2, 3), [x, yb], f63="LT")
    sel = e.add("select", S("f32", 2, 3), [lt, x, yb])
    e.add("tuple", T(S("f32", 2, 3), S("f32", 2, 3), S("pred", 2, 3)), [t, sel, lt])
    xv = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    yv = np.float32([1, -1, 0.5])
    got = run(c, m, xv, yv)
    np.testing.assert_allclose(got[0], np.tanh((xv + yv) * 0.5), rtol=1e-6)
    np.testing.assert_array_equal(got[1], np.where(xv < yv, xv, yv))
    np.testing.assert_array_equal(got[2], xv < yv)


def test_dot_bias_relu_and_reduce(c):
    m = Module()
    add = m.scalar_computation("add", "add")
    e = m.computation("main")
    x, w = e.param(0, S("f32", 4, 5)), e.param(1, S("f32", 5, 3))
    d = e.add("dot", S("f32", 4, 3), [x, w], f30=dot_dims([1], [0]))
    zero = e.constant(S("f32"), 0)
    zb = e.add("broadcast", S("f32", 4, 3), [zero], f14=[])
    r = e.add("maximum", S("f32", 4, 3), [d, zb])
    e.add("reduce", S("f32", 4), [r, zero], f14=[1], f38=[add.id])
    xv = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    wv = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    (got,) = run(c, m, xv, wv)
    np.testing.assert_allclose(got, np.maximum(xv @ wv, 0).sum(1), rtol=1e-5, atol=1e-6)


def test_while_over_a_tuple_and_get_tuple_element(c):
    # (i, acc) = (0, x); while i < 5: (i + 1, acc * 2); result acc
    m = Module()
    state = T(S("s32"), S("f32", 3))
    cond = m.computation("cond")
    p = cond.param(0, state)
    i = cond.add("get-tuple-element", S("s32"), [p], f13=0)
    five = cond.constant(S("s32"), 5)
    cond.add("compare", S("pred"), [i, five], f63="LT")
    body = m.computation("body")
    p = body.param(0, state)
    i = body.add("get-tuple-element", S("s32"), [p], f13=0)
    acc = body.add("get-tuple-element", S("f32", 3), [p], f13=1)
    one = body.constant(S("s32"), 1)
    i1 = body.add("add", S("s32"), [i, one])
    two = body.constant(S("f32", 3), [2, 2, 2])
    acc2 = body.add("multiply", S("f32", 3), [acc, two])
    body.add("tuple", state, [i1, acc2])
    e = m.computation("main")
    x = e.param(0, S("f32", 3))
    zero = e.constant(S("s32"), 0)
    init = e.add("tuple", state, [zero, x])
    w = e.add("while", state, [init], f38=[body.id, cond.id])  # XLA lists the body first
    e.add("get-tuple-element", S("f32", 3), [w], f13=1)
    (got,) = run(c, m, np.float32([1, -2, 0.25]))
    np.testing.assert_array_equal(got, np.float32([32, -64, 8]))


def test_conditional_and_call(c):
    m = Module()
    neg = m.computation("neg")
    a = neg.param(0, S("f32", 2))
    neg.add("negate", S("f32", 2), [a])
    dbl = m.computation("dbl")
    a = dbl.param(0, S("f32", 2))
    dbl.add("add", S("f32", 2), [a, a])
    e = m.computation("main")
    flag, x = e.param(0, S("pred")), e.param(1, S("f32", 2))
    r = e.add("conditional", S("f32", 2), [flag, x, x], f38=[neg.id, dbl.id])
    e.add("call", S("f32", 2), [r], f38=[dbl.id])
    xv = np.float32([1.5, -3])
    (got,) = run(c, m, np.bool_(True), xv)
    np.testing.assert_array_equal(got, -2 * xv)
    (got,) = run(c, m, np.bool_(False), xv)
    np.testing.assert_array_equal(got, 4 * xv)


def test_shape_ops(c):
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("s32", 2, 3))
    tr = e.add("transpose", S("s32", 3, 2), [x], f14=[1, 0])
    rs = e.add("reshape", S("s32", 6), [tr])
    sl = e.add("slice", S("s32", 2), [rs], f17=field_varint(1, 1) + field_varint(2, 5) + field_varint(3, 2))
    io = e.add("iota", S("s32", 3), [], f14=[0])
    cat = e.add("concatenate", S("s32", 5), [sl, io], f14=[0])
    rv = e.add("reverse", S("s32", 5), [cat], f14=[0])
    pv = e.constant(S("s32"), -1)
    pad = field_bytes(1, field_varint(1, 1) + field_varint(2, 2) + field_varint(3, 1))
    pd = e.add("pad", S("s32", 12), [rv, pv], f21=pad)
    cv = e.add("convert", S("f32", 12), [pd])
    e.add("tuple", T(S("s32", 12), S("f32", 12)), [pd, cv])
    xv = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = run(c, m, xv)
    rv_np = np.concatenate([xv.T.reshape(6)[1:5:2], np.arange(3, dtype=np.int32)])[::-1]
    want = np.full(12, -1, np.int32)
    want[1:10:2] = rv_np
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], want.astype(np.float32))


def test_gather_dynamic_slice_and_sort(c):
    m = Module()
    gt = m.computation("gt")
    a, b = gt.param(0, S("f32")), gt.param(1, S("f32"))
    gt.param(2, S("s32"))
    gt.param(3, S("s32"))
    gt.add("compare", S("pred"), [a, b], f63="GT")
    e = m.computation("main")
    x, idx = e.param(0, S("f32", 4, 3)), e.param(1, S("s32", 2, 1))
    gd = field_packed(1, [1]) + field_packed(2, [0]) + field_packed(3, [0]) + field_varint(4, 1)
    g = e.add("gather", S("f32", 2, 3), [x, idx], f33=gd, f34=[1, 3])
    one = e.constant(S("s32"), 1)
    zero = e.constant(S("s32"), 0)
    ds = e.add("dynamic-slice", S("f32", 2, 2), [x, one, zero], f20=[2, 2])
    first = e.add("slice", S("f32", 1, 3), [x], f17=[field_varint(1, 0) + field_varint(2, 1),
                                                     field_varint(1, 0) + field_varint(2, 3) + field_varint(3, 1)])
    row = e.add("reshape", S("f32", 3), [first])
    iota = e.add("iota", S("s32", 3), [], f14=[0])
    srt = e.add("sort", T(S("f32", 3), S("s32", 3)), [row, iota], f14=[0], f38=[gt.id], f60=1)
    v = e.add("get-tuple-element", S("f32", 3), [srt], f13=0)
    ix = e.add("get-tuple-element", S("s32", 3), [srt], f13=1)
    e.add("tuple", T(S("f32", 2, 3), S("f32", 2, 2), S("f32", 3), S("s32", 3)), [g, ds, v, ix])
    xv = np.float32([[3, 1, 2], [4, 5, 6], [7, 8, 9], [10, 11, 12]])
    got = run(c, m, xv, np.int32([[2], [0]]))
    np.testing.assert_array_equal(got[0], xv[[2, 0]])
    np.testing.assert_array_equal(got[1], xv[1:3, 0:2])
    np.testing.assert_array_equal(got[2], np.float32([3, 2, 1]))
    np.testing.assert_array_equal(got[3], np.int32([0, 2, 1]))


def test_convolution_and_max_pool(c):
    m = Module()
    mx = m.scalar_computation("max", "maximum")
    e = m.computation("main")
    x, k = e.param(0, S("f32", 1, 5, 5, 2)), e.param(1, S("f32", 3, 3, 2, 4))
    # NHWC x HWIO -> NHWC, SAME padding, stride 1.
    cd = (field_varint(7, 0) + field_varint(8, 3) + field_packed(11, [1, 2]) + field_varint(3, 2) + field_varint(4, 3)
          + field_packed(6, [0, 1]) + field_varint(9, 0) + field_varint(10, 3) + field_packed(12, [1, 2]))
    win = window(dict(size=3, lo=1, hi=1), dict(size=3, lo=1, hi=1))
    y = e.add("convolution", S("f32", 1, 5, 5, 4), [x, k], f15=win, f16=cd, f50=1, f58=1)
    ninf = e.constant(S("f32"), -np.inf)
    pw = window(dict(size=1), dict(size=2, stride=2), dict(size=2, stride=2), dict(size=1))
    e.add("reduce-window", S("f32", 1, 2, 2, 4), [y, ninf], f15=pw, f38=[mx.id])
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((1, 5, 5, 2)).astype(np.float32)
    kv = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)
    (got,) = run(c, m, xv, kv)
    xp = np.pad(xv, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = np.zeros((1, 5, 5, 4), np.float32)
    for i in range(5):
        for j in range(5):
            conv[0, i, j] = np.tensordot(xp[0, i:i + 3, j:j + 3], kv, axes=([0, 1, 2], [0, 1, 2]))
    want = conv[:, :4, :4].reshape(1, 2, 2, 2, 2, 4).max(axis=(2, 4))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_scatter_add_and_select_and_scatter(c):
    m = Module()
    add = m.scalar_computation("add", "add")
    ge = m.computation("ge")
    a, b = ge.param(0, S("f32")), ge.param(1, S("f32"))
    ge.add("compare", S("pred"), [a, b], f63="GE")
    e = m.computation("main")
    x, idx, upd = e.param(0, S("f32", 5)), e.param(1, S("s32", 3, 1)), e.param(2, S("f32", 3))
    sd = field_packed(2, [0]) + field_packed(3, [0]) + field_varint(4, 1)
    sc = e.add("scatter", S("f32", 5), [x, idx, upd], f48=sd, f38=[add.id])
    # The gradient of a 2-wide, stride-2 max pool: each window's source goes to its maximum.
    src = e.param(3, S("f32", 2))
    zero = e.constant(S("f32"), 0)
    ss = e.add("select-and-scatter", S("f32", 4), [e.add("slice", S("f32", 4), [x], f17=[field_varint(2, 4) + field_varint(3, 1)]),
                                                   src, zero],
               f15=window(dict(size=2, stride=2)), f38=[ge.id, add.id])
    e.add("tuple", T(S("f32", 5), S("f32", 4)), [sc, ss])
    xv = np.float32([1, 5, 2, 3, 0])
    got = run(c, m, xv, np.int32([[1], [4], [1]]), np.float32([10, 20, 30]), np.float32([7, 8]))
    want = xv.copy()
    np.add.at(want, [1, 4, 1], [10, 20, 30])
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], np.float32([0, 7, 0, 8]))


def test_rng_uniform_and_iota_without_arguments(c):
    m = Module()
    e = m.computation("main")
    lo, hi = e.constant(S("f32"), 2.0), e.constant(S("f32"), 3.0)
    r = e.add("rng", S("f32", 1000), [lo, hi], f23=1)  # RNG_UNIFORM
    e.add("tuple", T(S("f32", 1000), S("s32", 2, 2)), [r, e.add("iota", S("s32", 2, 2), [], f14=[1])])
    got = run(c, m)
    assert got[0].shape == (1000,) and (got[0] >= 2).all() and (got[0] < 3).all() and got[0].std() > 0.2
    np.testing.assert_array_equal(got[1], np.int32([[0, 1], [0, 1]]))


def test_malformed_and_unsupported_programs_fail_clearly(c):
    with pytest.raises(openpjrt.Error) as e:
        c.compile(b"\x0a\xff\xff", format="hlo")
    assert e.value.code == "INVALID_ARGUMENT" and "HloModuleProto" in str(e.value)
    m = Module()
    e_ = m.computation("main")
    x = e_.param(0, S("f32", 4))
    e_.add("infeed", T(S("f32", 4), S("token")), [e_.add("after-all", S("token"))])
    with pytest.raises(openpjrt.Error) as e:
        c.compile(m.serialize(), format="hlo")
    assert e.value.code == "UNIMPLEMENTED" and "opcode 'infeed'" in str(e.value), str(e.value)
    m = Module()
    e_ = m.computation("main")
    x = e_.param(0, S("f32", 4))
    e_.add("negate", S("f32", 4), [x + 7])
    with pytest.raises(openpjrt.Error) as e:
        c.compile(m.serialize(), format="hlo")
    assert "operand id" in str(e.value) and "negate" in str(e.value)
    with pytest.raises(openpjrt.Error) as e:
        c.compile(b"", format="hlo2")
    assert "unsupported program format 'hlo2'" in str(e.value)
    # hlo_with_config: a malformed wrapper, and a replica count out of range.
    with pytest.raises(openpjrt.Error) as e:
        c.compile(b"\x0a\xff\xff", format="hlo_with_config")
    assert e.value.code == "INVALID_ARGUMENT" and "HloModuleProtoWithConfig" in str(e.value), str(e.value)
    with pytest.raises(openpjrt.Error) as e:
        c.compile(field_bytes(2, field_varint(4, -1)), format="hlo_with_config")
    assert "replica_count -1" in str(e.value), str(e.value)


def hlo_error(c, m):
    with pytest.raises(openpjrt.Error) as e:
        c.compile(m.serialize(), format="hlo")
    return e.value


def test_each_malformed_instruction_is_named(c):
    # A tuple index past the tuple's end.
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("f32", 2))
    t = e.add("tuple", T(S("f32", 2)), [x])
    e.add("get-tuple-element", S("f32", 2), [t], f13=3)
    err = hlo_error(c, m)
    assert err.code == "INVALID_ARGUMENT" and "tuple_index 3 of a tuple of 1" in str(err), str(err)
    # A literal whose data does not fill its shape.
    m = Module()
    e = m.computation("main")
    e.add("constant", S("f32", 3), [], f8=field_bytes(1, S("f32", 3).encode()) + field_bytes(8, b"\0" * 8))
    err = hlo_error(c, m)
    assert "literal holds 8 bytes for 3 elements" in str(err), str(err)
    # A call of a computation id that does not exist.
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("f32", 2))
    e.add("call", S("f32", 2), [x], f38=[999])
    assert "calls computation id 999" in str(hlo_error(c, m))
    # Convolution dimension numbers naming one dimension twice.
    m = Module()
    e = m.computation("main")
    x, k = e.param(0, S("f32", 1, 4, 4, 1)), e.param(1, S("f32", 1, 1, 1, 1))
    cd = (field_varint(7, 0) + field_varint(8, 0) + field_packed(11, [1, 2]) + field_varint(3, 2) + field_varint(4, 3)
          + field_packed(6, [0, 1]) + field_varint(9, 0) + field_varint(10, 3) + field_packed(12, [1, 2]))
    e.add("convolution", S("f32", 1, 4, 4, 1), [x, k], f15=window(dict(size=1), dict(size=1)), f16=cd)
    assert "do not name each dimension once" in str(hlo_error(c, m))
    # A parameter number beyond the computation's arguments (a called computation's).
    m = Module()
    f = m.computation("f")
    f.add("parameter", S("f32", 2), [], f9=4)
    e = m.computation("main")
    x = e.param(0, S("f32", 2))
    e.add("call", S("f32", 2), [x], f38=[f.id])
    assert "parameter_number 4 with 1 parameters" in str(hlo_error(c, m))


def test_unsupported_inputs_are_unimplemented_by_name(c):
    # A custom call with no handler fails when the program is compiled, naming its target.
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("f32", 2))
    e.add("custom-call", S("f32", 2), [x], f28="my_kernel")
    err = hlo_error(c, m)
    assert err.code == "UNIMPLEMENTED" and "target 'my_kernel'" in str(err), str(err)
    # Replica groups that cannot be: a negative id; an iota list whose reshape does not fit.
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("f32", 2))
    e.add("collective-broadcast", S("f32", 2), [x], f49=replica_groups([0, -3]))
    assert "negative replica id -3" in str(hlo_error(c, m))
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("f32", 2))
    e.add("collective-broadcast", S("f32", 2), [x], f87=iota_device_list(1, 4, [3, 2], [1, 0]))
    assert "do not fit" in str(hlo_error(c, m))


def test_tuple_entry_parameter_sub_byte_constants_and_custom_calls(c):
    # main((f32[3], s32[]), s4[3]-constant): a tuple parameter takes one argument per element.
    m = Module()
    e = m.computation("main")
    p = e.param(0, T(S("f32", 3), S("s32")))
    x = e.add("get-tuple-element", S("f32", 3), [p], f13=0)
    n = e.add("get-tuple-element", S("s32"), [p], f13=1)
    k4 = e.constant(S("s4", 3), [-8, 7, -1])
    k2 = e.constant(S("u2", 3), [3, 0, 2])
    k = e.add("add", S("s32", 3), [e.add("convert", S("s32", 3), [k4]), e.add("convert", S("s32", 3), [k2])])
    nb = e.add("broadcast", S("s32", 3), [n], f14=[])
    kf = e.add("convert", S("f32", 3), [e.add("multiply", S("s32", 3), [k, nb])])
    # Custom calls: a placement annotation passes its operand through; @mhlo.erf is erf.
    sh = e.add("custom-call", S("f32", 3), [x], f28="Sharding")
    erf = e.add("custom-call", S("f32", 3), [sh], f28="mhlo.erf", f77=4, f43="{}")
    e.add("tuple", T(S("f32", 3), S("f32", 3)), [e.add("add", S("f32", 3), [sh, kf]), erf])
    xv = np.float32([0.5, -1, 2])
    got = run(c, m, xv, np.int32(10))
    np.testing.assert_array_equal(got[0], xv + np.float32([-50, 70, 10]))
    import math
    np.testing.assert_allclose(got[1], [math.erf(v) for v in xv], rtol=1e-6)


@pytest.mark.parametrize("groups", [{"f49": replica_groups([0, 1])}, {"f87": iota_device_list(1, 2)}],
                         ids=["replica_groups", "iota_list"])
def test_collectives_across_two_replicas(c, groups):
    exe = c.compile(collectives_module(groups).serialize(), num_replicas=2, format="hlo")
    a, b = np.float32([1, 2, 3, 4]), np.float32([10, 20, 30, 40])
    out = [[np.asarray(o) for o in dev] for dev in exe.execute([[a], [b]])]
    for r, mine in enumerate((a, b)):
        ar, ag, rs, cp, a2a, cb = out[r]
        np.testing.assert_array_equal(ar, a + b)
        np.testing.assert_array_equal(ag, np.concatenate([a, b]))
        np.testing.assert_array_equal(rs, (a + b)[2 * r:2 * r + 2])
        np.testing.assert_array_equal(cp, b if r == 0 else a)
        np.testing.assert_array_equal(a2a, np.concatenate([a[2 * r:2 * r + 2], b[2 * r:2 * r + 2]]))
        np.testing.assert_array_equal(cb, a)


def test_tuple_all_to_all_sends_operand_i_to_replica_i(c):
    # Replica r holds (x_r0, x_r1) and gets back (x_0r, x_1r).
    m = Module()
    e = m.computation("main")
    a, b = e.param(0, S("s16", 2, 2)), e.param(1, S("s16", 2, 2))
    e.add("all-to-all", T(S("s16", 2, 2), S("s16", 2, 2)), [a, b], f49=replica_groups([0, 1]))
    exe = c.compile(m.serialize(), num_replicas=2, format="hlo")
    x = [[np.arange(4, dtype=np.int16).reshape(2, 2) + 10 * r + 100 * i for i in range(2)] for r in range(2)]
    out = [[np.asarray(o) for o in dev] for dev in exe.execute(x)]
    for r in range(2):
        for j in range(2):
            np.testing.assert_array_equal(out[r][j], x[j][r])


def test_tuple_forms_of_reduce_scatter_permute_and_broadcast_act_per_operand(c):
    # Each operand of the tuple form is reduced, sent or broadcast on its own, as if alone.
    m = Module()
    add = m.scalar_computation("add", "add")
    e = m.computation("main")
    x, y = e.param(0, S("f32", 4)), e.param(1, S("f32", 2, 2))
    rs = e.add("reduce-scatter", T(S("f32", 2), S("f32", 1, 2)), [x, y], f14=[0], f38=[add.id],
               f49=replica_groups([0, 1]))
    cp = e.add("collective-permute", T(S("f32", 4), S("f32", 2, 2)), [x, y], f52=source_target_pairs((0, 1)))
    cb = e.add("collective-broadcast", T(S("f32", 4), S("f32", 2, 2)), [x, y], f49=replica_groups([1, 0]))
    leaves = [e.add("get-tuple-element", shape, [t], f13=i)
              for t, shapes in ((rs, (S("f32", 2), S("f32", 1, 2))), (cp, (S("f32", 4), S("f32", 2, 2))),
                                (cb, (S("f32", 4), S("f32", 2, 2))))
              for i, shape in enumerate(shapes)]
    e.add("tuple", T(S("f32", 2), S("f32", 1, 2), S("f32", 4), S("f32", 2, 2), S("f32", 4), S("f32", 2, 2)), leaves)
    exe = c.compile(m.serialize(), num_replicas=2, format="hlo")
    xs = [np.float32([1, 2, 3, 4]), np.float32([10, 20, 30, 40])]
    ys = [np.float32([[5, 6], [7, 8]]), np.float32([[50, 60], [70, 80]])]
    out = [[np.asarray(o) for o in dev] for dev in exe.execute([[xs[r], ys[r]] for r in range(2)])]
    for r in range(2):
        np.testing.assert_array_equal(out[r][0], (xs[0] + xs[1])[2 * r:2 * r + 2])
        np.testing.assert_array_equal(out[r][1], (ys[0] + ys[1])[r:r + 1])
        # Replica 0 sends to replica 1; replica 0 receives nothing (zeros).
        np.testing.assert_array_equal(out[r][2], xs[0] if r == 1 else np.zeros(4, np.float32))
        np.testing.assert_array_equal(out[r][3], ys[0] if r == 1 else np.zeros((2, 2), np.float32))
        # The group [1, 0] broadcasts from its first member, replica 1.
        np.testing.assert_array_equal(out[r][4], xs[1])
        np.testing.assert_array_equal(out[r][5], ys[1])


@pytest.mark.parametrize("fmt", ["hlo", "hlo_with_config"])
def test_all_to_all_without_groups_splits_over_every_replica(c, fmt):
    # The split count comes from the compile options, or from the HloModuleConfigProto of the
    # "hlo_with_config" format (replica_count = 3): 3 pieces of dimension 1.
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("s32", 2, 3))
    e.add("all-to-all", S("s32", 2, 3), [x], f14=[1])
    if fmt == "hlo":
        exe = c.compile(m.serialize(), num_replicas=3, format="hlo")
    else:
        with_config = field_bytes(1, m.serialize()) + field_bytes(2, field_varint(4, 3) + field_varint(5, 1))
        exe = c.compile(with_config, format="hlo_with_config")
    assert exe.num_devices == 3
    ins = [np.arange(6, dtype=np.int32).reshape(2, 3) + 10 * r for r in range(3)]
    out = [np.asarray(dev[0]) for dev in exe.execute([[v] for v in ins])]
    for r in range(3):
        np.testing.assert_array_equal(out[r], np.stack([ins[s][:, r] for s in range(3)], axis=1))


@pytest.mark.parametrize("mesh", [(4, 1, {}), (2, 2, {"f26": 1, "f71": 1})], ids=["replicas", "global_ids"])
def test_iota_replica_groups_with_a_transpose(c, mesh):
    # iota(4) reshaped to [2, 2] and transposed: groups {0, 2} and {1, 3}, of replicas or (with a
    # channel id and use_global_device_ids) of the flattened ids replica * partitions + partition.
    replicas, partitions, extra = mesh
    m = Module()
    add = m.scalar_computation("add", "add")
    e = m.computation("main")
    x = e.param(0, S("f32", 1))
    e.add("all-reduce", S("f32", 1), [x], f38=[add.id], f87=iota_device_list(2, 2, [2, 2], [1, 0]), **extra)
    exe = c.compile(m.serialize(), num_replicas=replicas, num_partitions=partitions, format="hlo")
    vals = [1, 10, 100, 1000]
    out = exe.execute([[np.float32([v])] for v in vals])
    got = [float(np.asarray(dev[0])[0]) for dev in out]
    assert got == [101, 1010, 101, 1010], got


def _one_instruction(opcode, shape, n_operands=1, operand_shape=None, **fields):
    """main(x0, ...) -> opcode(x0, ...): one instruction over parameters of operand_shape."""
    m = Module()
    add = m.scalar_computation("add", "add")
    e = m.computation("main")
    xs = [e.param(i, operand_shape or S("f32", 4)) for i in range(n_operands)]
    if fields.pop("to_apply", False):
        fields["f38"] = [add.id]
    e.add(opcode, shape, xs, **fields)
    return m


# Each conversion error of the collectives, custom calls and parameters: its code and message.
HLO_ERRORS = [
    ("custom-call api_version", lambda: _one_instruction("custom-call", S("f32", 4), f28="t", f77=9),
     "INVALID_ARGUMENT", "custom_call_api_version 9"),
    ("parameter used twice", lambda: _two_parameters_numbered_zero(), "INVALID_ARGUMENT", "parameter_number 0 is used twice"),
    ("collective without operands", lambda: _one_instruction("all-gather", S("f32", 8), 0, f14=[0]),
     "INVALID_ARGUMENT", "needs an operand"),
    ("results per operand", lambda: _one_instruction("all-reduce", T(S("f32", 4), S("f32", 4)), to_apply=True),
     "INVALID_ARGUMENT", "needs one result per operand"),
    ("reduce-scatter dimensions", lambda: _one_instruction("reduce-scatter", S("f32", 2), f14=[0, 0], to_apply=True),
     "INVALID_ARGUMENT", "needs one scatter dimension"),
    ("all-gather dimensions", lambda: _one_instruction("all-gather", S("f32", 8)), "INVALID_ARGUMENT",
     "needs one all-gather dimension"),
    ("all-to-all dimensions", lambda: _one_instruction("all-to-all", S("f32", 4), f14=[0, 0]), "INVALID_ARGUMENT",
     "needs one split dimension"),
    ("ragged groups", lambda: _one_instruction("all-to-all", S("f32", 4), f14=[0], f49=replica_groups([0, 1], [2])),
     "UNIMPLEMENTED", "replica groups of different sizes"),
    ("too many group entries", lambda: _one_instruction("collective-broadcast", S("f32", 4),
                                                        f87=iota_device_list(1 << 11, 1 << 10)),
     "INVALID_ARGUMENT", "iota replica group list of 2048 x 1024"),
    ("tuple all-to-all count", lambda: _one_instruction("all-to-all", T(S("f32", 4), S("f32", 4), S("f32", 4)), 3,
                                                        f49=replica_groups([0, 1])),
     "INVALID_ARGUMENT", "has 3 operands for groups of 2"),
    ("tuple all-to-all types", lambda: _one_instruction("all-to-all", T(S("f32", 4), S("f32", 2)), 2,
                                                        f49=replica_groups([0, 1])),
     "INVALID_ARGUMENT", "has results of another type than its operands"),
    ("tuple all-to-all operand types", lambda: _tuple_all_to_all_of_two_shapes(), "UNIMPLEMENTED",
     "over operands of different types"),
    ("iota reshape dimension", lambda: _one_instruction("collective-broadcast", S("f32", 4),
                                                        f87=iota_device_list(1, 4, [0, 4], [0, 1])),
     "INVALID_ARGUMENT", "bad reshape dimension"),
    ("explicit group entries", lambda: _one_instruction("collective-broadcast", S("f32", 4),
                                                        f49=replica_groups(*[range(1024)] * 1025)),
     "INVALID_ARGUMENT", "more than 2^20 replica group entries"),
]


def _tuple_all_to_all_of_two_shapes():
    m = Module()
    e = m.computation("main")
    a, b = e.param(0, S("f32", 4)), e.param(1, S("f32", 2))
    e.add("all-to-all", T(S("f32", 4), S("f32", 4)), [a, b], f49=replica_groups([0, 1]))
    return m


def _two_parameters_numbered_zero():
    m = Module()
    e = m.computation("main")
    x = e.param(0, S("f32", 2))
    y = e.add("parameter", S("f32", 2), [], f9=0)
    e.add("add", S("f32", 2), [x, y])
    return m


@pytest.mark.parametrize("build,code,message", [c[1:] for c in HLO_ERRORS], ids=[c[0] for c in HLO_ERRORS])
def test_collective_and_custom_call_errors_are_named(c, build, code, message):
    err = hlo_error(c, build())
    assert err.code == code and message in str(err), str(err)
