"""Warm and cold calls of memory-bound jitted JAX functions on XLA:CPU (jaxlib) and on openpjrt
in one process: a warm call follows a call of the same function; a cold call follows a pass over
256 MiB of other memory, which leaves none of the function's arrays in the caches (what a real
program's next step sees after its other work, and what bench/jax_vs_xla.py's rounds see first
after the other backend's round). Prints milliseconds per call and the ratios XLA:CPU / openpjrt
(above 1: openpjrt is faster). Never a timed test.

    PYTHONPATH=build/python JAX_PLATFORMS=cpu,openpjrt_cpu OPENPJRT_INTRA_OP_THREADS=1 \\
        taskset -c 0 .venv/bin/python bench/cold_vs_warm.py [--calls 15] [--only softmax,layernorm]
"""

import argparse
import time
import warnings

warnings.filterwarnings("ignore")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--calls", type=int, default=15, help="cold calls (and pairs of warm ones) per backend")
ap.add_argument("--only", default="", help="comma-separated substrings of the rows to run")
args = ap.parse_args()

ROWS = {
    "row_sums_32768x128": (lambda x: jnp.sum(x, -1), (32768, 128)),
    "row_maxima_32768x128": (lambda x: jnp.max(x, -1), (32768, 128)),
    "exp_32768x128": (jnp.exp, (32768, 128)),
    "sum_of_exp_rows_32768x128": (lambda x: jnp.sum(jnp.exp(x), -1), (32768, 128)),
    "softmax_32768x128": (lambda x: jax.nn.softmax(x, -1), (32768, 128)),
    "softmax_8192x512": (lambda x: jax.nn.softmax(x, -1), (8192, 512)),
    "layernorm_8192x512": (lambda x: (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1e-5),
                           (8192, 512)),
}
BACKENDS = {"xla": jax.devices("cpu")[0], "ours": jax.devices("openpjrt_cpu")[0]}
other = np.ones(64 << 20, np.float32)  # 256 MiB
g = np.random.default_rng(0)

print("%-28s %9s %9s %6s   %9s %9s %6s" % ("workload", "xla_cold", "ours_cold", "ratio", "xla_warm", "ours_warm", "ratio"))
for name, (fn, shape) in ROWS.items():
    if args.only and not any(o in name for o in args.only.split(",")):
        continue
    f = jax.jit(fn)
    base = g.standard_normal(shape).astype(np.float32)
    ms = {}
    for key, dev in BACKENDS.items():
        x = jax.device_put(base, dev)
        jax.block_until_ready(f(x))
        cold = warm = 0.0
        for _ in range(args.calls):
            other += 1  # the caches now hold other memory
            t0 = time.perf_counter()
            jax.block_until_ready(f(x))
            cold += time.perf_counter() - t0
            jax.block_until_ready(f(x))
            t0 = time.perf_counter()
            jax.block_until_ready(f(x))
            warm += time.perf_counter() - t0
        ms[key] = (cold / args.calls * 1e3, warm / args.calls * 1e3)
    print("%-28s %9.2f %9.2f %6.2f   %9.2f %9.2f %6.2f" % (
        name, ms["xla"][0], ms["ours"][0], ms["xla"][0] / ms["ours"][0],
        ms["xla"][1], ms["ours"][1], ms["xla"][1] / ms["ours"][1]), flush=True)
