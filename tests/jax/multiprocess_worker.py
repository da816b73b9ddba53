"""One process of test_multiprocess.py: JAX under jax.distributed on the openpjrt plugin.

Usage: multiprocess_worker.py PORT PROCESS_ID NUM_PROCESSES SCENARIO

Every process has 2 devices of the plugin; the global mesh spans all processes. Each scenario
checks its results itself (against the same computation on one local device, or against numpy)
and exits non-zero with the reason on a mismatch.
"""

import os
import sys
import time

port, pid, nproc, scenario = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.environ["JAX_PLATFORMS"] = "openpjrt_cpu"
os.environ["OPENPJRT_CPU_DEVICE_COUNT"] = "2"
os.environ.setdefault("OPENPJRT_GLOO_HOSTNAME", "127.0.0.1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

jax.distributed.initialize(coordinator_address="127.0.0.1:%d" % port, num_processes=nproc, process_id=pid,
                           initialization_timeout=60)


def check(cond, what):
    if not cond:
        print("process %d: FAILED: %s" % (pid, what), flush=True)
        sys.exit(1)


check(jax.process_count() == nproc, "process_count %d" % jax.process_count())
check(jax.process_index() == pid, "process_index %d" % jax.process_index())
check(jax.device_count() == 2 * nproc, "device_count %d" % jax.device_count())
check(jax.local_device_count() == 2, "local_device_count %d" % jax.local_device_count())
check([d.process_index for d in jax.devices()] == [p for p in range(nproc) for _ in range(2)],
      "device process indices %s" % [d.process_index for d in jax.devices()])
check(all(d.process_index == pid for d in jax.local_devices()), "local devices")

mesh = Mesh(np.array(jax.devices()), ("x",))
n = jax.device_count()


def global_rows(rows, cols, seed):
    return np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32)


if scenario == "collectives":
    # pmap psum over every device of every process.
    local = np.arange(2, dtype=np.float32) + 2 * pid
    out = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i")(local)
    check(np.allclose(np.asarray(out), sum(range(n))), "pmap psum %s" % np.asarray(out))

    # jit over a global array sharded by rows: sum, and a row-wise op whose result stays sharded.
    full = global_rows(4 * n, 2 * n, 0)  # all_to_all splits the columns 2 per device
    sharding = NamedSharding(mesh, P("x"))
    x = jax.make_array_from_process_local_data(sharding, full[pid * 8:(pid + 1) * 8])
    total = jax.jit(lambda a: jnp.sum(a, axis=0))(x)
    check(np.allclose(np.asarray(total), full.sum(axis=0), rtol=1e-5, atol=1e-5), "jit sum")
    scaled = jax.jit(lambda a: a * 2 + 1)(x)
    for shard in scaled.addressable_shards:
        check(np.array_equal(np.asarray(shard.data), full[shard.index] * 2 + 1), "sharded elementwise")

    # shard_map: psum, all_gather, ppermute and all_to_all over the global axis.
    from jax.experimental.shard_map import shard_map

    def body(a):
        s = jax.lax.psum(a, "x")
        g = jax.lax.all_gather(a, "x", tiled=True)
        r = jax.lax.ppermute(a, "x", [(i, (i + 1) % n) for i in range(n)])
        t = jax.lax.all_to_all(a, "x", 1, 1, tiled=True)
        return s, g, r, t

    f = jax.jit(shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=(P(), P(), P("x"), P("x")),
                          check_rep=False))
    s, g, r, t = f(x)
    blocks = full.reshape(n, 4, 2 * n)
    check(np.allclose(np.asarray(s), blocks.sum(axis=0), rtol=1e-5, atol=1e-5), "shard_map psum")
    check(np.array_equal(np.asarray(g), full), "shard_map all_gather")
    for shard in r.addressable_shards:
        i = shard.index[0].start // 4
        check(np.array_equal(np.asarray(shard.data), blocks[(i - 1) % n]), "shard_map ppermute")
    want_t = np.concatenate([np.concatenate([blocks[j][:, 2 * i:2 * i + 2] for j in range(n)], axis=1)
                             for i in range(n)], axis=0)
    for shard in t.addressable_shards:
        check(np.array_equal(np.asarray(shard.data), want_t[shard.index]), "shard_map all_to_all")

elif scenario == "train":
    # A data-parallel MLP training step: the batch split over every device of every process, the
    # parameters replicated. It must match the same step on one local device.
    rng = np.random.default_rng(1)
    params = {"w1": rng.standard_normal((16, 32)).astype(np.float32) * 0.3, "b1": np.zeros(32, np.float32),
              "w2": rng.standard_normal((32, 4)).astype(np.float32) * 0.3, "b2": np.zeros(4, np.float32)}
    data = global_rows(8 * n, 16, 2)
    labels = np.random.default_rng(3).integers(0, 4, 8 * n)

    def loss(p, xb, yb):
        h = jnp.tanh(xb @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), yb[:, None], axis=1))

    @jax.jit
    def step(p, xb, yb):
        value, grads = jax.value_and_grad(loss)(p, xb, yb)
        return value, jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads)

    repl = NamedSharding(mesh, P())
    rows = NamedSharding(mesh, P("x"))
    gp = jax.tree_util.tree_map(lambda a: jax.make_array_from_callback(a.shape, repl, lambda i: a[i]), params)
    gx = jax.make_array_from_process_local_data(rows, data[pid * 16:(pid + 1) * 16])
    gy = jax.make_array_from_process_local_data(rows, labels[pid * 16:(pid + 1) * 16].astype(np.int32))
    one = jax.local_devices()[0]
    lp = jax.device_put(params, one)
    lx, ly = jax.device_put(data, one), jax.device_put(labels.astype(np.int32), one)
    t0 = time.perf_counter()
    for i in range(3):
        gv, gp = step(gp, gx, gy)
        lv, lp = step(lp, lx, ly)
        check(abs(float(gv) - float(lv)) <= 1e-5 * max(1.0, abs(float(lv))),
              "step %d loss %r (sharded) vs %r (one device)" % (i, float(gv), float(lv)))
    for k in params:
        a, b = np.asarray(gp[k].addressable_shards[0].data), np.asarray(lp[k])
        check(np.allclose(a, b, rtol=1e-5, atol=1e-6), "parameter %s after 3 steps: max diff %g" %
              (k, np.abs(a - b).max()))
    print("process %d: 3 steps in %.3f s" % (pid, time.perf_counter() - t0), flush=True)

elif scenario == "killed":
    # Process 1 dies after one collective; process 0's next one raises, naming it, in bounded time.
    psum = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i")
    local = np.ones(2, np.float32)
    check(np.allclose(np.asarray(psum(local)), n), "first psum")
    if pid == 1:
        print("process 1: OK killed", flush=True)
        os._exit(0)
    t0 = time.perf_counter()
    try:
        np.asarray(psum(local))
        check(False, "the psum with a dead process returned")
    except Exception as e:  # JAX raises the plugin's error as XlaRuntimeError
        waited = time.perf_counter() - t0
        check("process 1" in str(e), "error does not name process 1: %s" % e)
        check(waited < 20, "the error took %.1f s" % waited)
        print("process 0: raised after %.2f s: %s" % (waited, str(e)[:300]), flush=True)
    print("process 0: OK killed", flush=True)
    os._exit(0)  # the coordination service would wait for process 1 at shutdown

elif scenario == "cross_host":
    # jax.device_put between the devices of different processes: process 0's two devices hold a
    # row-sharded array, which moves to process 1's two devices with the same layout (JAX sends it
    # through the plugin's CrossHostTransfers extension), and a single-device array moves back.
    check(getattr(jax.devices()[0].client, "supports_cross_host_transfers", True), "no cross-host support")
    full = global_rows(8, 3, 5)
    src = NamedSharding(Mesh(np.array(jax.devices()[0:2]), ("x",)), P("x"))
    dst = NamedSharding(Mesh(np.array(jax.devices()[2:4]), ("x",)), P("x"))
    x = jax.make_array_from_callback(full.shape, src, lambda idx: full[idx], dtype=full.dtype)
    y = jax.device_put(x, dst)
    if pid == 1:
        for shard in y.addressable_shards:
            check(np.array_equal(np.asarray(shard.data), full[shard.index]), "shard %s" % (shard.index,))
        check(len(y.addressable_shards) == 2, "shards on process 1: %d" % len(y.addressable_shards))
    back_src = jax.sharding.SingleDeviceSharding(jax.devices()[3])
    z = jax.make_array_from_callback((5,), back_src, lambda idx: (np.arange(5, dtype=np.int32) * 2)[idx],
                                     dtype=np.int32)
    w = jax.device_put(z, jax.sharding.SingleDeviceSharding(jax.devices()[0]))
    if pid == 0:
        check(np.array_equal(np.asarray(w.addressable_shards[0].data), np.arange(5, dtype=np.int32) * 2),
              "array back on process 0: %s" % np.asarray(w.addressable_shards[0].data))
    jax.block_until_ready((y, w))

else:
    check(False, "unknown scenario " + scenario)

print("process %d: OK %s" % (pid, scenario), flush=True)
jax.distributed.shutdown()
