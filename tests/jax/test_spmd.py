"""SPMD programs over 4 devices (issue 44): jit with NamedSharding on 1-D and 2x2 meshes, data- and
tensor-parallel training steps, a sharded transformer block, shard_map collectives over mesh axes
and resharding, each run on XLA:CPU's 4 devices and on openpjrt's 4 and compared. Results must
also come back with the shardings XLA gives them (the plugin's Shardings extension)."""

import functools
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from jaxdiff import assert_same, rand

OUR_DEVICES = jax.devices("openpjrt_cpu")
REF_DEVICES = jax.devices("cpu")


def mesh_of(devices, shape, names):
    return Mesh(np.array(devices[:int(np.prod(shape))]).reshape(shape), names)


def both(run, rtol=1e-5, atol=1e-5, specs=True):
    """run(devices) on each backend; results compared, and their shardings' specs unless `specs` is
    False (results whose sharding the program leaves open, where XLA's propagation picks one
    through dots and reductions and openpjrt may pick another equally valid one)."""
    ref, ref_specs = run(REF_DEVICES)
    ours, our_specs = run(OUR_DEVICES)
    assert_same(ref, ours, rtol=rtol, atol=atol)
    if specs:
        assert our_specs == ref_specs
    return ours


def fetch(out):
    leaves = jax.tree.leaves(out)
    specs = [tuple(l.sharding.spec) if isinstance(l.sharding, NamedSharding) else
             ("replicated" if l.sharding.is_fully_replicated else str(l.sharding)) for l in leaves]
    return jax.device_get(out), specs


def partitioned_programs(tmp_path, compile_and_run):
    """The programs openpjrt partitioned while compile_and_run() ran (OPENPJRT_DUMP_DIR)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    old = os.environ.get("OPENPJRT_DUMP_DIR")
    os.environ["OPENPJRT_DUMP_DIR"] = str(tmp_path)
    try:
        out = compile_and_run()
    finally:
        if old is None:
            del os.environ["OPENPJRT_DUMP_DIR"]
        else:
            os.environ["OPENPJRT_DUMP_DIR"] = old
    return out, [p.read_text() for p in sorted(tmp_path.glob("partitioned-*.mlir"))]


def test_jit_2x2_mesh_matmul_and_reduction(rng):
    x = rand(rng, (8, 6), np.float32)
    w = rand(rng, (6, 4), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))
        xs = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
        ws = jax.device_put(w, NamedSharding(mesh, P("b", None)))
        f = jax.jit(lambda x, w: (jnp.tanh(x @ w), jnp.sum(x, axis=0), x.T * 2),
                    out_shardings=(NamedSharding(mesh, P("a", None)), NamedSharding(mesh, P()),
                                   NamedSharding(mesh, P("b", "a"))))
        return fetch(f(xs, ws))

    both(run)


def test_data_parallel_mlp_training_step(rng, tmp_path):
    import optax
    params = {"w1": rand(rng, (16, 32), np.float32) * 0.3, "b1": np.zeros(32, np.float32),
              "w2": rand(rng, (32, 4), np.float32) * 0.3, "b2": np.zeros(4, np.float32)}
    x = rand(rng, (64, 16), np.float32)
    y = rng.integers(0, 4, 64)
    opt = optax.adam(1e-2)

    def loss(p, x, y):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    def run(devices):
        mesh = mesh_of(devices, (4,), ("data",))
        rep = NamedSharding(mesh, P())
        p = jax.device_put(params, rep)
        s = jax.device_put(opt.init(params), rep)

        @jax.jit
        def step(p, s, x, y):
            l, g = jax.value_and_grad(loss)(p, x, y)
            u, s = opt.update(g, s, p)
            return optax.apply_updates(p, u), s, l

        losses = []
        for i in range(3):
            xs = jax.device_put(x[::-1] if i % 2 else x, NamedSharding(mesh, P("data")))
            ys = jax.device_put(y[::-1] if i % 2 else y, NamedSharding(mesh, P("data")))
            p, s, l = step(p, s, xs, ys)
            losses.append(l)
        return fetch((p, losses))

    ref, _ = run(REF_DEVICES)
    (ours, _), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    assert_same(ref, ours, rtol=2e-5, atol=2e-5)
    # The weight gradients' transposes come before their all-reduces (and join their products):
    # no transpose reads a summed value.
    summed = set(re.findall(r"(%[\w#]+) = \"stablehlo.all_reduce\"", programs[0]))
    transposed = set(re.findall(r"stablehlo.transpose (%[\w#]+)", programs[0]))
    assert summed and not summed & transposed, programs[0]
    # The labels' take_along_axis (a gather with batching dimensions) and its gradient (a
    # scatter) run on the batch shards: nothing is gathered.
    assert "stablehlo.gather" in programs[0] and "all_gather" not in programs[0], programs[0]
    # The four gradients' partial sums are exchanged at once: one all-reduce of four operands
    # (and one for the loss).
    reduces = re.findall(r"= \"stablehlo.all_reduce\"\(([^)]*)\)", programs[0])
    assert sorted(len(r.split(",")) for r in reduces) == [1, 4], reduces


def test_tensor_parallel_mlp_training_step(rng):
    w1 = rand(rng, (16, 32), np.float32) * 0.3
    w2 = rand(rng, (32, 16), np.float32) * 0.3
    x = rand(rng, (8, 16), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (4,), ("model",))
        a = jax.device_put(w1, NamedSharding(mesh, P(None, "model")))  # column-parallel
        b = jax.device_put(w2, NamedSharding(mesh, P("model", None)))  # row-parallel
        xs = jax.device_put(x, NamedSharding(mesh, P()))

        @jax.jit
        def step(a, b, x):
            def loss(a, b):
                return jnp.mean((jax.nn.gelu(x @ a) @ b - x) ** 2)
            l, (ga, gb) = jax.value_and_grad(loss, argnums=(0, 1))(a, b)
            return a - 0.1 * ga, b - 0.1 * gb, l

        return fetch(step(a, b, xs))

    both(run)


def test_sharded_transformer_block(rng):
    d, heads, seq, batch = 32, 4, 16, 4
    params = {k: rand(rng, s, np.float32) * 0.2 for k, s in
              {"wq": (d, d), "wk": (d, d), "wv": (d, d), "wo": (d, d), "w1": (d, 4 * d), "w2": (4 * d, d)}.items()}
    x = rand(rng, (batch, seq, d), np.float32)

    def block(p, x):
        def ln(v):
            m = v.mean(-1, keepdims=True)
            return (v - m) / jnp.sqrt(((v - m) ** 2).mean(-1, keepdims=True) + 1e-5)
        h = ln(x)
        q, k, v = (jnp.einsum("bsd,de->bse", h, p[n]).reshape(batch, seq, heads, d // heads) for n in ("wq", "wk", "wv"))
        att = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // heads), axis=-1)
        o = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(batch, seq, d) @ p["wo"]
        x = x + o
        return x + jax.nn.gelu(ln(x) @ p["w1"]) @ p["w2"]

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("data", "model"))
        specs = {"wq": P(None, "model"), "wk": P(None, "model"), "wv": P(None, "model"), "wo": P("model", None),
                 "w1": P(None, "model"), "w2": P("model", None)}
        p = {k: jax.device_put(v, NamedSharding(mesh, specs[k])) for k, v in params.items()}
        xs = jax.device_put(x, NamedSharding(mesh, P("data")))
        f = jax.jit(lambda p, x: jax.value_and_grad(lambda p: jnp.sum(block(p, x) ** 2))(p))
        return fetch(f(p, xs))

    both(run, rtol=1e-4, atol=1e-2, specs=True)  # sums of ~1e3 in f32, in another order


def test_shard_map_collectives_over_mesh_axes(rng):
    x = rand(rng, (8, 8), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))

        def body(v):
            return (jax.lax.psum(v, "b"), jax.lax.all_gather(v, "a", tiled=True), jax.lax.pmax(v, ("a", "b")),
                    jax.lax.ppermute(v, "a", [(0, 1), (1, 0)]), jax.lax.all_to_all(v, "b", 0, 1, tiled=True),
                    jax.lax.psum_scatter(v, "b", scatter_dimension=1, tiled=True),
                    (jax.lax.axis_index("a") * 2 + jax.lax.axis_index("b")) * jnp.ones((1,), jnp.int32))

        f = jax.shard_map(body, mesh=mesh, in_specs=P("a", "b"),
                          out_specs=(P("a", "b"), P(None, "b"), P("a", "b"), P("a", "b"), P("a", "b"), P("a", "b"),
                                     P(("a", "b"))), check_vma=False)
        return fetch(jax.jit(f)(jax.device_put(x, NamedSharding(mesh, P("a", "b")))))

    both(run, rtol=1e-6, atol=1e-6)


def test_partially_manual_shard_map(rng):
    x = rand(rng, (8, 4), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))
        f = jax.shard_map(lambda v: jax.lax.psum(v * 2, "a"), mesh=mesh, in_specs=P("a"), out_specs=P(),
                          axis_names={"a"}, check_vma=False)
        return fetch(jax.jit(f)(jax.device_put(x, NamedSharding(mesh, P("a", "b")))))

    both(run, specs=False)


def test_resharding_between_layouts(rng):
    x = rand(rng, (8, 12), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))
        xs = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
        outs = []
        for spec in (P("b", "a"), P(None, ("a", "b")), P(("b", "a")), P()):
            outs.append(jax.jit(lambda v: v + 1, out_shardings=NamedSharding(mesh, spec))(xs))
        outs.append(jax.device_put(xs, NamedSharding(mesh, P(None, "a"))))
        return fetch(outs)

    both(run, rtol=0, atol=0)


@pytest.mark.parametrize("shardy", [True, False], ids=["shardy", "gspmd"])
def test_both_partitioners_matmul_shard_map_and_constraint(rng, shardy):
    # JAX writes Shardy attributes by default; with the GSPMD partitioner it writes mhlo.sharding
    # strings, Sharding custom calls and SPMDFullToShardShape / SPMDShardToFullShape.
    from jax._src import config
    x = rand(rng, (8, 6), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))
        xs = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
        outs = [jax.jit(lambda v: jnp.sin(v) @ v.T)(xs)]
        f = jax.shard_map(lambda v: jax.lax.psum(v, "b"), mesh=mesh, in_specs=P("a", "b"), out_specs=P("a", None),
                          check_vma=False)
        outs.append(jax.jit(f)(xs))
        outs.append(jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, NamedSharding(mesh, P(None, "a"))).sum(0))(xs))
        return fetch(outs)

    with config.use_shardy_partitioner(shardy):
        both(run)


def test_uneven_sharding_constraint(rng):
    # (3, 8) constrained to 4 tiles along its 3 rows: XLA pads; openpjrt keeps the value whole.
    x = rand(rng, (8, 3), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (4,), ("x",))
        xs = jax.device_put(x, NamedSharding(mesh, P("x")))
        f = jax.jit(lambda v: jax.lax.with_sharding_constraint(jnp.sin(v).T, NamedSharding(mesh, P("x"))) * 2)
        return fetch(f(xs))

    both(run)


def test_ops_that_stay_sharded_along_untiled_dimensions(rng):
    # sort, cumsum (reduce_window), argmax (a variadic reduce) along a dimension that is not
    # split, a gather of rows from a table split over both dimensions (the rows' split given up),
    # and a convolution over a split batch, run on the shards: XLA's layouts come back.
    x = rand(rng, (8, 12), np.float32)
    img = rand(rng, (4, 8, 8, 3), np.float32)
    ker = rand(rng, (3, 3, 3, 4), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))
        xs = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
        outs = [jax.jit(lambda v: (jnp.sort(v, 0), jnp.cumsum(v, 0), jnp.argmax(v, 0)))(
                    jax.device_put(x, NamedSharding(mesh, P(None, ("a", "b"))))),
                jax.jit(lambda v: jnp.max(v * 2, axis=1))(xs),
                jax.jit(lambda v, i: v[i] * 3)(xs, jax.device_put(np.int32([5, 0, 7, 7, 2]), NamedSharding(mesh, P())))]
        conv = jax.jit(lambda a, k: jax.lax.conv_general_dilated(a, k, (1, 1), "SAME",
                                                                 dimension_numbers=("NHWC", "HWIO", "NHWC")))
        outs.append(conv(jax.device_put(img, NamedSharding(mesh, P("a"))), jax.device_put(ker, NamedSharding(mesh, P()))))
        return fetch(outs)

    both(run, rtol=1e-5, atol=1e-5)


def test_argmax_over_a_split_vocabulary(rng):
    # Logits split over the vocabulary on 4 devices: each device's arg-reduction, then the partial
    # results combined; ties (repeated maxima in different tiles) go to the lowest index as in XLA.
    logits = np.round(rand(rng, (6, 64), np.float32), 0)

    def run(devices):
        mesh = mesh_of(devices, (4,), ("v",))
        ls = jax.device_put(logits, NamedSharding(mesh, P(None, "v")))
        return fetch(jax.jit(lambda z: (jnp.argmax(z, -1), jnp.argmin(z, -1), jnp.max(z, -1)))(ls))

    both(run, rtol=0, atol=0)


def test_embedding_split_over_features_forward_and_gradient(rng):
    # Gather of rows and the scatter-add of their gradient into a table split over features: both
    # run on the shards, the gradient keeps the table's layout as in XLA.
    table = rand(rng, (52, 16), np.float32)
    ids = rng.integers(0, 52, (6, 5)).astype(np.int32)

    def run(devices):
        mesh = mesh_of(devices, (4,), ("x",))
        ts = jax.device_put(table, NamedSharding(mesh, P(None, "x")))
        ix = jax.device_put(ids, NamedSharding(mesh, P()))
        return fetch(jax.jit(jax.value_and_grad(lambda t, i: jnp.sum(jnp.tanh(t[i]) ** 2)))(ts, ix))

    both(run, rtol=1e-5, atol=1e-5)


def test_scan_and_cond_run_on_batch_shards(rng, tmp_path):
    # A data-parallel RNN: the sequence split over its batch on 4 devices, the state zero-initialised
    # outside the loop, a lax.cond on the step number inside it, the loss's gradient through the
    # reversed scan. The loops and branches run on the shards: the partitioned program gathers
    # nothing, the state leaves split as it was carried, and each weight gradient's partial sums
    # are carried through the backward loop and all-reduced once after it (no collective inside a
    # loop). Two loops whose sums must stay inside: an accumulator starting at 1, and one that the
    # body also reads.
    steps, batch, d = 6, 16, 8
    w = rand(rng, (d, d), np.float32) * 0.3
    xs_host = rand(rng, (steps, batch, d), np.float32)

    def loss(w, xs):
        def step(h, x_i):
            x, i = x_i
            h = jnp.tanh(x @ w + h)
            h = jax.lax.cond(i % 2 == 0, lambda v: v * 0.5, lambda v: jnp.sin(v), h)
            return h, jnp.sum(h * h, axis=-1)
        h, ys = jax.lax.scan(step, jnp.zeros((xs.shape[1], d), jnp.float32), (xs, jnp.arange(xs.shape[0])))
        return jnp.sum(ys) + jnp.sum(h), (h, ys)

    def run(devices):
        mesh = mesh_of(devices, (4,), ("b",))
        xs = jax.device_put(xs_host, NamedSharding(mesh, P(None, "b")))
        wr = jax.device_put(w, NamedSharding(mesh, P()))
        return fetch(jax.jit(jax.value_and_grad(loss, has_aux=True))(wr, xs))

    def kept(w, xs):
        def body(i, accs):
            a, b = accs
            s = jnp.sum(jnp.tanh(xs[i] @ w), axis=0)  # a sum over the split batch
            return a + s, b * 0.5 + s
        return jax.lax.fori_loop(0, xs.shape[0], body, (jnp.ones(d, jnp.float32), jnp.zeros(d, jnp.float32)))

    def run_kept(devices):
        mesh = mesh_of(devices, (4,), ("b",))
        return fetch(jax.jit(kept)(jax.device_put(w, NamedSharding(mesh, P())),
                                   jax.device_put(xs_host, NamedSharding(mesh, P(None, "b")))))

    ref, _ = run(REF_DEVICES)
    (ours, _), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    assert_same(ref, ours, rtol=1e-5, atol=1e-5)
    assert programs and all("stablehlo.while" in p for p in programs)
    assert not any("all_gather" in p for p in programs), programs[0]
    # Collectives at the function's level (4 spaces in), none inside a loop's body.
    reduces = [line for p in programs for line in p.splitlines() if "stablehlo.all_reduce" in line]
    assert reduces and all(not line.startswith("      ") for line in reduces), reduces
    assert_same(run_kept(REF_DEVICES)[0], run_kept(OUR_DEVICES)[0], rtol=1e-5, atol=1e-5)
    # The carried state stays a shard of 16 / 4 rows.
    assert any("tensor<4x8xf32>" in p.split("stablehlo.while", 1)[1].split("\n", 1)[0] for p in programs)


def test_batched_gather_and_scatter_on_batch_shards(rng, tmp_path):
    # take_along_axis and a vmapped dynamic row pick (gathers with batching dimensions), and a
    # vmapped .at[].add (a scatter with batching dimensions), with the batch split over "a" of a
    # 2x2 mesh: by the indices (x whole), by the operand (indices whole), and by both; gradients
    # through them. Values and layouts as XLA's.
    x = rand(rng, (8, 6, 5), np.float32)
    idx = rng.integers(0, 6, (8, 3, 5)).astype(np.int32)
    rows = rng.integers(0, 6, (8,)).astype(np.int32)

    def f(x, idx, rows):
        a = jnp.take_along_axis(x, idx, axis=1)
        b = jax.vmap(lambda m, r: m[r])(x, rows)
        c = jax.vmap(lambda m, r: m.at[r].add(1.5))(x, rows)
        g = jax.grad(lambda v: jnp.sum(jnp.take_along_axis(v, idx, axis=1) ** 2))(x)
        return a, b, c, g

    def run(devices, xs_spec, idx_spec):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))
        args = (jax.device_put(x, NamedSharding(mesh, xs_spec)), jax.device_put(idx, NamedSharding(mesh, idx_spec)),
                jax.device_put(rows, NamedSharding(mesh, P(idx_spec[0] if len(idx_spec) else None))))
        return fetch(jax.jit(f)(*args))

    for xs_spec, idx_spec in ((P(), P("a")), (P("a"), P()), (P("a"), P("a"))):
        ref, _ = run(REF_DEVICES, xs_spec, idx_spec)
        (ours, _), programs = partitioned_programs(tmp_path / str(len(list(tmp_path.iterdir()))),
                                                   lambda: run(OUR_DEVICES, xs_spec, idx_spec))
        assert_same(ref, ours, rtol=1e-6, atol=1e-6)
        assert programs and not any("all_gather" in p for p in programs), programs


def test_scan_over_layers_tensor_and_data_parallel(rng, tmp_path):
    # A stack of MLP layers run by lax.scan over their stacked weights, on a 2x2 mesh: activations
    # split over the batch ("data"), the stacked weights Megatron-style over "model" (column- then
    # row-parallel), forward and gradient. The loops run on shards (no all-gather anywhere);
    # values as on XLA:CPU.
    layers, batch, d, h = 3, 8, 16, 32
    w1 = rand(rng, (layers, d, h), np.float32) * 0.3
    w2 = rand(rng, (layers, h, d), np.float32) * 0.3
    x = rand(rng, (batch, d), np.float32)

    def loss(ws, x):
        def layer(v, w):
            a, b = w
            return v + jnp.tanh(v @ a) @ b, None
        y, _ = jax.lax.scan(layer, x, ws)
        return jnp.sum(y ** 2)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("data", "model"))
        ws = (jax.device_put(w1, NamedSharding(mesh, P(None, None, "model"))),
              jax.device_put(w2, NamedSharding(mesh, P(None, "model", None))))
        xs = jax.device_put(x, NamedSharding(mesh, P("data")))
        return fetch(jax.jit(jax.value_and_grad(loss))(ws, xs))

    ref, _ = run(REF_DEVICES)
    (ours, _), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    # Gradients reach ~2e2 and are sums of partial products in another order: 5e-6 of that.
    assert_same(ref, ours, rtol=1e-4, atol=1e-3)
    assert programs and not any("all_gather" in p for p in programs), programs[0]


def test_unreduced_axes_of_explicit_sharding(rng, tmp_path):
    # Explicit sharding's unreduced axes (issue 44): a product over a contraction split along "x"
    # leaves as P("y", None, unreduced={"x"}), each partition's addend of its tile, with no
    # exchange at all (the partial products are the addends, as on XLA:CPU); a program taking
    # unreduced values sums them on arrival (an add of two unreduced values, a reshard to
    # replicated). Compared with XLA:CPU: the specs, each partition's addend of the product, and
    # the summed values.
    from jax.sharding import AxisType
    a = rand(rng, (8, 16), np.float32)
    b = rand(rng, (16, 6), np.float32)

    def run(devices):
        mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2, devices=devices[:4])
        with jax.set_mesh(mesh):
            av = jax.device_put(a, NamedSharding(mesh, P("y", "x")))
            bv = jax.device_put(b, NamedSharding(mesh, P("x", None)))
            y = jax.jit(lambda p, q: jnp.dot(p, q, out_sharding=P("y", None, unreduced={"x"})))(av, bv)
            twice = jax.jit(lambda u, v: u + v)(y, y)
            whole = jax.jit(lambda u: jax.sharding.reshard(u, P()) * 2)(twice)
            addends = [np.asarray(s.data) for s in sorted(y.addressable_shards, key=lambda s: s.device.id)]
            return (addends, jax.device_get(whole)), [str(y.sharding.spec), str(twice.sharding.spec),
                                                      str(whole.sharding.spec)]

    ref, ref_specs = run(REF_DEVICES)
    (ours, our_specs), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    assert our_specs == ref_specs, (our_specs, ref_specs)
    assert_same(ref, ours, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ours[1], 4 * (a @ b), rtol=1e-5, atol=1e-5)
    product = next(p for p in programs if "dot_general" in p)
    assert "all_reduce" not in product and "all_gather" not in product, product


def test_spatially_split_convolutions_exchange_halos(rng, tmp_path):
    # NHWC images split over their rows (and over the batch on a 2x2 mesh): "SAME" convolutions
    # with 3x3 and 5x5 windows (a dilated 3x3, strides of 2) run on the row tiles, each taking its
    # neighbours' edge rows by collective_permute (the edge tiles' zeros are the padding): no
    # all-gather in the forward programs. The gradient with respect to the image is such a
    # convolution too. Values as on XLA:CPU.
    x = rand(rng, (2, 16, 8, 3), np.float32)
    ws = [rand(rng, (3, 3, 3, 4), np.float32), rand(rng, (5, 5, 3, 4), np.float32)]

    def conv(v, w, dil=1, stride=1):
        return jax.lax.conv_general_dilated(v, w, (stride, stride), "SAME", rhs_dilation=(dil, dil),
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def forward(devices):
        out = []
        for shape, spec in (((4,), P(None, "x")), ((2, 2), P("x", "y"))):
            mesh = mesh_of(devices, shape, ("x", "y")[:len(shape)])
            xs = jax.device_put(x, NamedSharding(mesh, spec))
            for w, dil, stride in ((ws[0], 1, 1), (ws[1], 1, 1), (ws[0], 2, 1), (ws[0], 1, 2), (ws[1], 1, 2)):
                out.append(jax.jit(lambda v, w: jnp.tanh(conv(v, w, dil, stride)))(xs, w))
        return fetch(out)

    def gradient(devices):
        mesh = mesh_of(devices, (4,), ("x",))
        xs = jax.device_put(x, NamedSharding(mesh, P(None, "x")))
        return fetch(jax.jit(jax.grad(lambda v, w: jnp.sum(conv(v, w) ** 2)))(xs, ws[0]))

    ref, ref_specs = forward(REF_DEVICES)
    (ours, our_specs), programs = partitioned_programs(tmp_path / "fwd", lambda: forward(OUR_DEVICES))
    assert_same(ref, ours, rtol=1e-5, atol=1e-5)
    assert our_specs == ref_specs, (our_specs, ref_specs)
    assert len(programs) == 10 and all("all_gather" not in p for p in programs), programs[0]
    assert sum("collective_permute" in p for p in programs) >= 8
    both(gradient, rtol=1e-4, atol=1e-4)


def test_convolutions_split_over_features(rng, tmp_path):
    # Tensor-parallel convolutions: a kernel split over its output features gives an output split
    # over its channels with no exchange; the next kernel split over its input features takes that
    # output as it lies and all-reduces its partial sums (Megatron's column- then row-parallel
    # pair, as convolutions); with the batch split over another mesh axis too, and the gradients.
    x = rand(rng, (4, 8, 8, 6), np.float32)
    w1 = rand(rng, (3, 3, 6, 8), np.float32) * 0.3
    w2 = rand(rng, (3, 3, 8, 4), np.float32) * 0.3

    def net(v, a, b):
        h = jax.nn.relu(jax.lax.conv_general_dilated(v, a, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
        return jax.lax.conv_general_dilated(h, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def run(devices):
        out = []
        for shape, names, xspec in (((4,), ("m",), P()), ((2, 2), ("d", "m"), P("d"))):
            mesh = mesh_of(devices, shape, names)
            xs = jax.device_put(x, NamedSharding(mesh, xspec))
            a = jax.device_put(w1, NamedSharding(mesh, P(None, None, None, "m")))
            b = jax.device_put(w2, NamedSharding(mesh, P(None, None, "m", None)))
            out.append(jax.jit(net)(xs, a, b))
            out.append(jax.jit(jax.grad(lambda v, a, b: jnp.sum(net(v, a, b) ** 2), argnums=(1, 2)))(xs, a, b))
        return fetch(out)

    ref, ref_specs = run(REF_DEVICES)
    (ours, our_specs), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    assert_same(ref, ours, rtol=1e-4, atol=1e-4)
    forward = [p for p in programs if "all_reduce" in p and p.count("stablehlo.convolution") == 2]
    assert forward and all("all_gather" not in p for p in forward), programs[0]


@pytest.mark.parametrize("shardy", [True, False], ids=["shardy", "gspmd"])
def test_nested_shard_map(rng, shardy):
    # shard_map over "a" whose body runs a shard_map over "b" (Shardy's nested manual
    # computations; GSPMD's partially manual shardings inside the outer shard_map's body): the
    # inner one cuts each "a"-shard along "b", its collectives stay within each "a"-shard, and its
    # results are gathered back along "b" only. Inner results replicated and split over "b",
    # psum, all_gather and a ring ppermute inside; also a partially manual shard_map alone.
    from jax._src import config
    x = rand(rng, (8, 12), np.float32)

    def run(devices):
        mesh = mesh_of(devices, (2, 2), ("a", "b"))
        xs = jax.device_put(x, NamedSharding(mesh, P("a", "b")))

        def inner(fn, out_spec):
            def apply(u):
                return jax.shard_map(fn, mesh=jax.sharding.get_abstract_mesh(), in_specs=P(None, "b"),
                                     out_specs=out_spec, axis_names={"b"}, check_vma=False)(u)
            return apply

        summed = inner(lambda u: jax.lax.psum(u, "b") + 1, P(None, None))
        gathered = inner(lambda u: jax.lax.all_gather(u * 2, "b", axis=1, tiled=True), P(None, None))
        rolled = inner(lambda u: jax.lax.ppermute(jnp.sin(u), "b", [(0, 1), (1, 0)]), P(None, "b"))
        outs = []
        for body in (lambda v: summed(v * 3), lambda v: gathered(v) - v, lambda v: rolled(v) + jax.lax.psum(v, "a")):
            f = jax.shard_map(body, mesh=mesh, in_specs=P("a"), out_specs=P("a"), axis_names={"a"}, check_vma=False)
            outs.append(jax.jit(f)(xs))
        partial = jax.shard_map(lambda v: jax.lax.psum(v * 2, "a"), mesh=mesh, in_specs=P("a"), out_specs=P(),
                                axis_names={"a"}, check_vma=False)
        outs.append(jax.jit(partial)(xs))
        return fetch(outs)

    with config.use_shardy_partitioner(shardy):
        both(run, specs=False)


def test_pooling_over_split_rows_takes_halos(rng, tmp_path):
    # Max and average pooling of NHWC images split over their rows: windows of 3 "SAME" at
    # strides 1 and 2, 2 x 2 "VALID" at stride 2; each row tile takes its neighbours' edge rows
    # and the end tiles the init value (-inf for max: a max pool near the border must not see
    # zeros). No all-gather; values as on XLA:CPU.
    x = rand(rng, (2, 16, 8, 3), np.float32) - 2.0  # mostly negative: zeros at the border would win a max

    def pool(v, op, init, window, stride, padding):
        return jax.lax.reduce_window(v, init, op, (1, window, window, 1), (1, stride, stride, 1), padding)

    def run(devices):
        mesh = mesh_of(devices, (4,), ("x",))
        xs = jax.device_put(x, NamedSharding(mesh, P(None, "x")))
        out = []
        for window, stride, padding in ((3, 1, "SAME"), (3, 2, "SAME"), (2, 2, "VALID")):
            out.append(jax.jit(lambda v: pool(v, jax.lax.max, -jnp.inf, window, stride, padding))(xs))
            out.append(jax.jit(lambda v: pool(v, jax.lax.add, 0.0, window, stride, padding) / window ** 2)(xs))
        return fetch(out)

    ref, ref_specs = run(REF_DEVICES)
    (ours, our_specs), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    assert_same(ref, ours, rtol=1e-5, atol=1e-5)
    assert our_specs == ref_specs, (our_specs, ref_specs)
    assert len(programs) == 6 and all("all_gather" not in p for p in programs), programs[0]
    assert sum("collective_permute" in p for p in programs) == 4  # the 2 x 2 windows need no halo


def test_resharding_across_dimensions_is_one_all_to_all(rng, tmp_path):
    # A value split over its rows constrained to be split over its columns by the same devices
    # (and, on a 2x2 mesh, one axis moving while the other stays) moves by one all_to_all: no
    # all-gather of the whole value. Values and layouts as on XLA:CPU.
    x = rand(rng, (8, 12, 4), np.float32)

    def run(devices):
        out = []
        for shape, names, src, dst in (((4,), ("x",), P("x"), P(None, "x")),
                                       ((4,), ("x",), P(None, None, "x"), P("x")),
                                       ((2, 2), ("a", "b"), P("a", "b"), P("b", None, "a")),
                                       ((2, 2), ("a", "b"), P("a", None, "b"), P(None, "a", "b"))):
            mesh = mesh_of(devices, shape, names)
            xs = jax.device_put(x, NamedSharding(mesh, src))
            f = jax.jit(lambda v: jax.lax.with_sharding_constraint(jnp.cos(v), NamedSharding(mesh, dst)) * 2,
                        out_shardings=NamedSharding(mesh, dst))
            out.append(f(xs))
        return fetch(out)

    ref, ref_specs = run(REF_DEVICES)
    (ours, our_specs), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    assert_same(ref, ours, rtol=1e-6, atol=1e-6)
    assert our_specs == ref_specs, (our_specs, ref_specs)
    moved = [p for p in programs if "all_to_all" in p and "all_gather" not in p]
    assert len(moved) >= 3, programs


def test_fully_sharded_data_parallel_step_reduce_scatters_gradients(rng, tmp_path):
    # FSDP / ZeRO: the batch and every weight split over the same 4 devices. The forward gathers
    # the weights; each weight's gradient (a sum of the devices' partial products) is needed only
    # as the shard of the weight it updates: one reduce_scatter each, not an all-reduce and a cut.
    params = {"w1": rand(rng, (16, 32), np.float32) * 0.3, "w2": rand(rng, (32, 8), np.float32) * 0.3}
    x = rand(rng, (16, 16), np.float32)
    y = rand(rng, (16, 8), np.float32)

    def loss(p, x, y):
        return jnp.mean((jnp.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)

    def step(p, x, y):
        g = jax.grad(loss)(p, x, y)
        return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)

    def run(devices):
        mesh = mesh_of(devices, (4,), ("x",))
        ps = jax.device_put(params, NamedSharding(mesh, P("x")))
        xs = jax.device_put(x, NamedSharding(mesh, P("x")))
        ys = jax.device_put(y, NamedSharding(mesh, P("x")))
        return fetch(jax.jit(step, out_shardings=NamedSharding(mesh, P("x")))(ps, xs, ys))

    ref, ref_specs = run(REF_DEVICES)
    (ours, our_specs), programs = partitioned_programs(tmp_path, lambda: run(OUR_DEVICES))
    assert_same(ref, ours, rtol=1e-5, atol=1e-6)
    assert our_specs == ref_specs
    assert len(programs) == 1 and programs[0].count("stablehlo.reduce_scatter") == 2, programs[0]
