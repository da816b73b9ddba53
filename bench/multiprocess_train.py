"""A data-parallel MLP training step (784-512-512-10, global batch 256, SGD) across 2 processes of
1 device each under jax.distributed on localhost, on openpjrt (collectives over its Gloo mesh) and
on XLA:CPU (jax_cpu_collectives_implementation=gloo), one backend after the other; each process
pinned to its own core. Prints the median step time of each and the ratio. Never a timed test.

    PYTHONPATH=build/python .venv/bin/python bench/multiprocess_train.py [--steps 30]
"""

import argparse
import os
import socket
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=30)
ap.add_argument("--child", nargs=3, metavar=("BACKEND", "PORT", "PID"))
args = ap.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if not args.child:
    results = {}
    for backend in ("openpjrt", "xla"):
        port = free_port()
        env = dict(os.environ, OPENPJRT_CPU_DEVICE_COUNT="1", OPENPJRT_INTRA_OP_THREADS="1",
                   OPENPJRT_GLOO_HOSTNAME="127.0.0.1")
        env.pop("XLA_FLAGS", None)
        procs = [subprocess.Popen(["taskset", "-c", str(p), sys.executable, __file__, "--steps", str(args.steps),
                                   "--child", backend, str(port), str(p)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
                 for p in range(2)]
        outs = [p.communicate(timeout=600)[0] for p in procs]
        for p, out in zip(procs, outs):
            if p.returncode != 0:
                sys.exit("%s failed:\n%s" % (backend, out))
        results[backend] = float(outs[0].split("median_ms=")[1].split()[0])
        print("%-9s median step %.3f ms (final loss %s)" % (backend, results[backend],
                                                           outs[0].split("loss=")[1].split()[0]))
    print("openpjrt / XLA:CPU speed ratio: %.2fx" % (results["xla"] / results["openpjrt"]))
    sys.exit(0)

backend, port, pid = args.child[0], int(args.child[1]), int(args.child[2])
os.environ["JAX_PLATFORMS"] = "openpjrt_cpu" if backend == "openpjrt" else "cpu"
import warnings  # noqa: E402

warnings.filterwarnings("ignore")
import jax  # noqa: E402

if backend == "xla":
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.distributed.initialize(coordinator_address="127.0.0.1:%d" % port, num_processes=2, process_id=pid)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

rng = np.random.default_rng(0)
sizes = [784, 512, 512, 10]
params = [(rng.normal(0, 0.05, (a, b)).astype(np.float32), np.zeros(b, np.float32)) for a, b in zip(sizes, sizes[1:])]
x = rng.normal(size=(256, 784)).astype(np.float32)
y = rng.integers(0, 10, 256).astype(np.int32)


def loss(p, xb, yb):
    h = xb
    for i, (w, b) in enumerate(p):
        h = h @ w + b
        if i < len(p) - 1:
            h = jax.nn.relu(h)
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(h), yb[:, None], axis=1))


@jax.jit
def step(p, xb, yb):
    value, grads = jax.value_and_grad(loss)(p, xb, yb)
    return value, jax.tree_util.tree_map(lambda a, g: a - 0.01 * g, p, grads)


mesh = Mesh(np.array(jax.devices()), ("x",))
repl, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("x"))
gp = jax.tree_util.tree_map(lambda a: jax.make_array_from_callback(a.shape, repl, lambda i: a[i]), params)
gx = jax.make_array_from_process_local_data(rows, x[pid * 128:(pid + 1) * 128])
gy = jax.make_array_from_process_local_data(rows, y[pid * 128:(pid + 1) * 128])
value, gp = step(gp, gx, gy)  # compile
jax.block_until_ready(gp)
times = []
for _ in range(args.steps):
    t0 = time.perf_counter()
    value, gp = step(gp, gx, gy)
    jax.block_until_ready(gp)
    times.append(time.perf_counter() - t0)
print("median_ms=%.4f loss=%.6f" % (sorted(times)[len(times) // 2] * 1e3, float(value)), flush=True)
os._exit(0)
