"""Data-parallel training steps sharded over 2 devices against the same step on 1 device with 2
intra-op threads, on openpjrt and on XLA:CPU, in one process pinned to 2 cores; alternating rounds,
median per-step times, ratios. Never a timed test. Two steps: an MLP (784-512-512-10, batch 256,
SGD) and a scan RNN (32 steps, batch 256, width 128: the loop and its gradient's reversed loop run
on each device's half of the batch).

    PYTHONPATH=build/python .venv/bin/python bench/spmd_data_parallel.py [--rounds 7]
"""

import argparse
import os
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=7)
ap.add_argument("--child", action="store_true")
args = ap.parse_args()

if not args.child:
    env = dict(os.environ, JAX_PLATFORMS="cpu,openpjrt_cpu", OPENPJRT_CPU_DEVICE_COUNT="2",
               OPENPJRT_INTRA_OP_THREADS="2", XLA_FLAGS="--xla_force_host_platform_device_count=2")
    sys.exit(subprocess.call(["taskset", "-c", "0,1", sys.executable, __file__, "--child",
                              "--rounds", str(args.rounds)], env=env))

import warnings  # noqa: E402

warnings.filterwarnings("ignore")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

rng = np.random.default_rng(0)
sizes = [784, 512, 512, 10]
params = [(rng.normal(0, 0.05, (a, b)).astype(np.float32), np.zeros(b, np.float32)) for a, b in zip(sizes, sizes[1:])]
x = rng.normal(size=(256, 784)).astype(np.float32)
y = rng.integers(0, 10, 256)


def loss(params, x, y):
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i + 1 < len(params):
            h = jax.nn.relu(h)
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(h), y[:, None], axis=1))


@jax.jit
def step(params, x, y):
    l, g = jax.value_and_grad(loss)(params, x, y)
    return jax.tree.map(lambda p, d: p - 0.01 * d, params, g), l


rnn_params = (rng.normal(0, 0.1, (128, 128)).astype(np.float32), rng.normal(0, 0.1, (128, 128)).astype(np.float32))
rnn_x = rng.normal(size=(32, 256, 128)).astype(np.float32)
rnn_y = rng.normal(size=(256, 128)).astype(np.float32)


def rnn_loss(params, xs, target):
    wx, wh = params

    def cell(h, x):
        h = jnp.tanh(x @ wx + h @ wh)
        return h, None
    h, _ = jax.lax.scan(cell, jnp.zeros((xs.shape[1], 128), jnp.float32), xs)
    return jnp.mean((h - target) ** 2)


@jax.jit
def rnn_step(params, xs, target):
    l, g = jax.value_and_grad(rnn_loss)(params, xs, target)
    return jax.tree.map(lambda p, d: p - 0.01 * d, params, g), l


def setup(platform, devices, step_fn, p0, xb, yb, batch_dim):
    devs = jax.devices(platform)[:devices]
    mesh = Mesh(np.array(devs), ("data",))
    spec = P(*([None] * batch_dim + ["data"]))
    return (step_fn, jax.device_put(p0, NamedSharding(mesh, P())), jax.device_put(xb, NamedSharding(mesh, spec)),
            jax.device_put(yb, NamedSharding(mesh, P("data"))))


def per_step(state, n=20):
    step_fn, p, xs, ys = state
    t0 = time.perf_counter()
    for _ in range(n):
        p, l = step_fn(p, xs, ys)
    jax.block_until_ready(l)
    return (time.perf_counter() - t0) / n * 1e3


workloads = {"data-parallel MLP step (784-512-512-10, batch 256)": (step, params, x, y, 0),
             "data-parallel scan RNN step (32 steps, batch 256, width 128)": (rnn_step, rnn_params, rnn_x, rnn_y, 1)}
for title, (fn, p0, xb, yb, bdim) in workloads.items():
    cases = {(plat, d): setup(plat, d, fn, p0, xb, yb, bdim) for plat in ("cpu", "openpjrt_cpu") for d in (1, 2)}
    for c in cases.values():
        per_step(c, 2)  # compile and warm
    times = {k: [] for k in cases}
    for _ in range(args.rounds):
        for k, c in cases.items():
            times[k].append(per_step(c))
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    print("%s, median ms over %d rounds, 2 cores" % (title, args.rounds))
    print("%-34s %10s %10s" % ("", "XLA:CPU", "openpjrt"))
    print("%-34s %10.3f %10.3f" % ("1 device, 2 intra-op threads", med[("cpu", 1)], med[("openpjrt_cpu", 1)]))
    print("%-34s %10.3f %10.3f" % ("2 devices, batch sharded", med[("cpu", 2)], med[("openpjrt_cpu", 2)]))
    print("openpjrt 2 devices vs 1 device: %.2fx;  XLA:CPU / openpjrt at 2 devices: %.2fx;  at 1 device: %.2fx\n"
          % (med[("openpjrt_cpu", 1)] / med[("openpjrt_cpu", 2)], med[("cpu", 2)] / med[("openpjrt_cpu", 2)],
             med[("cpu", 1)] / med[("openpjrt_cpu", 1)]))
