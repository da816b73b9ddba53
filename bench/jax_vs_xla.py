"""The same jitted JAX functions on XLA:CPU (jaxlib) and on openpjrt, side by side in one process,
in alternating rounds; prints per-call times and the ratio XLA:CPU time / openpjrt time (above 1:
openpjrt is faster), the first-call times (tracing, lowering, compile and one run), the backends'
own compile times (Lowered.compile(), median of 3) also for a 1,000-op program, and the
geometric means.

    PYTHONPATH=build/python .venv/bin/python bench/jax_vs_xla.py [--threads 1,2] [--rounds 5] [--only NAME]

Each thread count runs in its own process pinned to that many cores (taskset), so both backends
see the same cores; openpjrt is also told the count (intra_op_threads). Each round starts once
the process's other threads have been idle for 30 ms (settle: the backend that ran before may
still be polling for work), and is warmed up for a quarter of its length. Never a timed test.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("--threads", default="1,2")
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--min-time", type=float, default=0.05, help="seconds per side per round")
ap.add_argument("--only", default="", help="comma-separated substrings of the rows to run")
ap.add_argument("--child", type=int, default=0)
args = ap.parse_args()
LONG_PROGRAM = "compile_1000_ops"  # the row of the 1,000-op program (compile time only)

if not args.child:
    rows = {}
    for t in [int(v) for v in args.threads.split(",")]:
        cores = ",".join(str(i) for i in range(t))
        # OpenBLAS (numpy's, used here only to make inputs) keeps worker threads that were seen
        # spinning in the timed loops (blas_thread_server, ~5% of samples) on the pinned cores,
        # taking time from both backends: softmax 1024x1024 on openpjrt at one core 813-952 ->
        # 743-775 us with one OpenBLAS thread.
        env = dict(os.environ, OPENPJRT_INTRA_OP_THREADS=str(t), JAX_PLATFORMS="cpu,openpjrt_cpu",
                   OPENBLAS_NUM_THREADS="1")
        cmd = ["taskset", "-c", cores, sys.executable, __file__, "--child", str(t), "--rounds", str(args.rounds),
               "--min-time", str(args.min_time), "--only", args.only]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode:
            print(out.stdout + out.stderr)
            sys.exit(1)
        rows[t] = json.loads(out.stdout.strip().splitlines()[-1])
    threads = sorted(rows)
    print("%-28s" % "workload" + "".join("  %9s %9s %6s" % ("xla_us@%d" % t, "ours_us@%d" % t, "ratio") for t in threads)
          + "   first call xla/ours ms   backend compile xla/ours ms  ratio")
    import math
    logs = {t: [] for t in threads}
    compile_logs = []
    for name in rows[threads[0]]:
        r0 = rows[threads[0]][name]
        backend = "   %9.1f / %6.2f  %6.1f" % (r0["xla_backend"], r0["ours_backend"], r0["xla_backend"] / r0["ours_backend"])
        compile_logs.append(math.log(r0["xla_backend"] / r0["ours_backend"]))
        if name == LONG_PROGRAM:
            print("%-28s" % name + " " * (27 * len(threads)) + " " * 25 + backend)
            continue
        line = "%-28s" % name
        for t in threads:
            r = rows[t][name]
            ratio = r["xla"] / r["ours"]
            logs[t].append(math.log(ratio))
            line += "  %9.1f %9.1f %6.2f" % (r["xla"], r["ours"], ratio)
        line += "   %7.1f / %6.1f  " % (r0["xla_compile"], r0["ours_compile"]) + backend
        print(line)
    for t in threads:
        if logs[t]:
            print("geometric mean of XLA:CPU / openpjrt at %d thread(s): %.2fx over %d workloads"
                  % (t, math.exp(sum(logs[t]) / len(logs[t])), len(logs[t])))
    if compile_logs:
        print("geometric mean of the backends' compile times, XLA:CPU / openpjrt: %.1fx over %d programs"
              % (math.exp(sum(compile_logs) / len(compile_logs)), len(compile_logs)))
    sys.exit(0)

import warnings  # noqa: E402

warnings.filterwarnings("ignore")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

REF, OURS = jax.devices("cpu")[0], jax.devices("openpjrt_cpu")[0]
g = np.random.default_rng(0)


def f32(*shape):
    return g.standard_normal(shape).astype(np.float32)


def mlp_params(sizes):
    return [(f32(a, b) * (1 / np.sqrt(a)), np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]


def mlp_loss(params, x, y):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    logits = x @ w + b
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, -1))


def sgd_step(params, x, y):
    grads = jax.grad(mlp_loss)(params, x, y)
    return jax.tree.map(lambda p, d: p - 0.01 * d, params, grads)


def transformer(params, x):
    wq, wk, wv, wo, w1, w2 = params
    def ln(v):
        m = v.mean(-1, keepdims=True)
        return (v - m) * jax.lax.rsqrt(((v - m) ** 2).mean(-1, keepdims=True) + 1e-5)
    h = ln(x)
    q, k, v = h @ wq, h @ wk, h @ wv
    b, s, d = q.shape
    q, k, v = (t.reshape(b, s, 8, d // 8).transpose(0, 2, 1, 3) for t in (q, k, v))
    a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // 8), -1) @ v
    x = x + a.transpose(0, 2, 1, 3).reshape(b, s, d) @ wo
    return x + jax.nn.gelu(ln(x) @ w1) @ w2


def cnn_loss(params, x, y):
    w1, w2, wd = params
    h = jax.nn.relu(jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jax.nn.relu(jax.lax.conv_general_dilated(h, w2, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    h = h.mean((1, 2)) @ wd
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(h) * y, -1))


def rnn(w, xs):
    return jax.lax.scan(lambda h, x: (jnp.tanh(h @ w + x), None), jnp.zeros(w.shape[0], np.float32), xs)[0]


d256 = [f32(256, 256) * 0.06 for _ in range(4)] + [f32(256, 1024) * 0.06, f32(1024, 256) * 0.03]
d512 = [f32(512, 512) * 0.04 for _ in range(4)] + [f32(512, 2048) * 0.04, f32(2048, 512) * 0.02]


def spd(n):  # symmetric positive definite, well conditioned
    a = f32(n, n)
    return a @ a.T + n * np.eye(n, dtype=np.float32)


def sym(n):
    a = f32(n, n)
    return a + a.T

WORKLOADS = {
    "mlp_train_step_b128": (jax.jit(sgd_step), (mlp_params([784, 512, 512, 10]), f32(128, 784),
                                                np.eye(10, dtype=np.float32)[g.integers(0, 10, 128)])),
    "transformer_fwd_bwd_d256_s128": (jax.jit(jax.grad(lambda p, x: transformer(p, x).sum())), (d256, f32(4, 128, 256))),
    "transformer_fwd_bwd_d512_s512": (jax.jit(jax.grad(lambda p, x: transformer(p, x).sum())), (d512, f32(1, 512, 512))),
    "cnn_train_grad_32x32": (jax.jit(jax.grad(cnn_loss)), ((f32(3, 3, 3, 32) * 0.2, f32(3, 3, 32, 64) * 0.06, f32(64, 10) * 0.1),
                                                            f32(32, 32, 32, 3), np.eye(10, dtype=np.float32)[g.integers(0, 10, 32)])),
    "elementwise_chain_4M": (jax.jit(lambda x: jnp.tanh(x * 1.5 + 0.5) * jnp.exp(-x * x)), (f32(4096, 1024),)),
    "softmax_rows_1Mi": (jax.jit(lambda x: jax.nn.softmax(x, -1)), (f32(1024, 1024),)),
    "layernorm_1Mi": (jax.jit(lambda x: (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1e-5)), (f32(1024, 1024),)),
    # The same over 16 MiB in shorter rows (attention's softmax over rows of 128, layer norm over
    # d = 512): beyond the caches, where each pass over the array costs its own trip to memory.
    "softmax_rows128_4Mi": (jax.jit(lambda x: jax.nn.softmax(x, -1)), (f32(32768, 128),)),
    "layernorm_rows512_4Mi": (jax.jit(lambda x: (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1e-5)),
                              (f32(8192, 512),)),
    "logsumexp_1Mi": (jax.jit(lambda x: jax.nn.logsumexp(x, -1)), (f32(1024, 1024),)),
    "sum_axis0_16Mi": (jax.jit(lambda x: x.sum(0)), (f32(4096, 4096),)),
    "sum_axis1_16Mi": (jax.jit(lambda x: x.sum(1)), (f32(4096, 4096),)),
    "max_axis0_4Mi": (jax.jit(lambda x: x.max(0)), (f32(2048, 2048),)),
    "max_axis1_4Mi": (jax.jit(lambda x: x.max(1)), (f32(2048, 2048),)),
    "argmax_axis0_4Mi": (jax.jit(lambda x: x.argmax(0)), (f32(2048, 2048),)),
    "argmax_axis1_4Mi": (jax.jit(lambda x: x.argmax(1)), (f32(2048, 2048),)),
    "cumsum_axis1_1Mi": (jax.jit(lambda x: jnp.cumsum(x, 1)), (f32(1024, 1024),)),
    "sort_1Mi": (jax.jit(lambda x: jnp.sort(x)), (f32(1 << 20),)),
    "top_k_16_of_64Ki_x16": (jax.jit(lambda x: jax.lax.top_k(x, 16)), (f32(16, 65536),)),
    "embedding_gather_scatter": (jax.jit(jax.grad(lambda e, i: jnp.sum(e[i] ** 2))),
                                 (f32(50000, 128), g.integers(0, 50000, (64, 128)).astype(np.int32))),
    "fft_64x4096_c64": (jax.jit(jnp.fft.fft), ((f32(64, 4096) + 1j * f32(64, 4096)).astype(np.complex64),)),
    "rfft2_8x256x256": (jax.jit(jnp.fft.rfft2), (f32(8, 256, 256),)),
    "cholesky_64": (jax.jit(jnp.linalg.cholesky), (spd(64),)),
    "cholesky_256": (jax.jit(jnp.linalg.cholesky), (spd(256),)),
    "cholesky_512": (jax.jit(jnp.linalg.cholesky), (spd(512),)),
    "qr_64": (jax.jit(jnp.linalg.qr), (f32(64, 64),)),
    "qr_256": (jax.jit(jnp.linalg.qr), (f32(256, 256),)),
    "qr_512": (jax.jit(jnp.linalg.qr), (f32(512, 512),)),
    "svd_64": (jax.jit(jnp.linalg.svd), (f32(64, 64),)),
    "svd_128": (jax.jit(jnp.linalg.svd), (f32(128, 128),)),
    "svd_512": (jax.jit(jnp.linalg.svd), (f32(512, 512),)),
    "eigh_64": (jax.jit(jnp.linalg.eigh), (sym(64),)),
    "eigh_256": (jax.jit(jnp.linalg.eigh), (sym(256),)),
    "eigh_512": (jax.jit(jnp.linalg.eigh), (sym(512),)),
    "scan_rnn_200_steps_d64": (jax.jit(rnn), (f32(64, 64) * 0.1, f32(200, 64))),
    "random_normal_16Mi": (jax.jit(lambda k: jax.random.normal(jax.random.key(k), (1 << 24,))), (np.uint32(3),)),
    "dispatch_tiny_add": (jax.jit(lambda a, b: a + b), (np.float32([1, 2, 3]), np.float32([4, 5, 6]))),
}


def backend_compile_ms(fn, args):
    """The backend's own compile of the traced and lowered function (median of 3), straight
    through its PJRT client: jit's caches would hand back the first call's executable."""
    from jax._src import compiler
    from jax._src.lib import xla_client as xc
    args = args if isinstance(args, tuple) else (args,)
    dev = jax.tree.leaves(args)[0].devices().pop()
    lowered = fn.lower(*args)
    text = lowered.as_text()
    from jax._src.interpreters import mlir
    runs = []
    for _ in range(3):
        with mlir.make_ir_context() as ctx:
            module = mlir.ir.Module.parse(text)
            options = compiler.get_compile_options(num_replicas=1, num_partitions=1)
            t0 = time.perf_counter()
            compiler.backend_compile_and_load(dev.client, module, xc.DeviceList((dev,)), options, [])
            runs.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(runs))


# 1,000 StableHLO ops of elementwise math and small products, for compile time only.
@jax.jit
def long_program(x):  # 42 steps of 24 ops: 1,008 in @main
    for i in range(42):
        y = jnp.tanh(x * (1.0 + 0.001 * i) + 0.5) - jnp.exp(-x * x) * 0.25
        x = (y @ x) * 0.01 + jnp.sin(y) - jnp.maximum(y, 0.1 * i)
    return x


def other_threads_cpu_ticks():
    """CPU time (clock ticks) used so far by every thread of this process but the caller's."""
    me, total = str(threading.get_native_id()), 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:  # no procfs: nothing to wait for
        return 0
    for t in tasks:
        if t == me:
            continue
        try:
            with open("/proc/self/task/%s/stat" % t) as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total


def settle(limit=1.0):
    """Waits (up to `limit` s) until no other thread of the process uses the CPU for 30 ms. A
    backend's threads may poll for work for a while after its round (XLA:CPU left one spinning
    for ~100 ms, which took a core from the next round: openpjrt's eigh at 2 threads 2.5 -> 3.3-5.4
    ms in its first rounds after XLA:CPU's); each round starts on quiet cores, both backends'
    alike."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        before = other_threads_cpu_ticks()
        time.sleep(0.03)
        if other_threads_cpu_ticks() == before:
            return


def per_call(fn, args, min_time):
    settle()
    # Warm-up, untimed, for a quarter of the round (at least two calls): the other backend's round
    # has just run, and a memory-bound workload's first calls after it find its buffers out of
    # the caches (the embedding gradient, 25.6 MB: ~4 ms a call for its first few calls, 2 after,
    # on either backend), which a round of ~20 calls would otherwise average in.
    warm, t0 = 0, time.perf_counter()
    while warm < 2 or time.perf_counter() - t0 < min_time / 4:
        jax.block_until_ready(fn(*args))
        warm += 1
    n, start = 0, time.perf_counter()
    while True:
        out = fn(*args)
        n += 1
        if n % 8 == 0 or time.perf_counter() - start > min_time:
            jax.block_until_ready(out)
            if time.perf_counter() - start > min_time:
                break
    return (time.perf_counter() - start) / n * 1e6


results = {}
for name, (fn, argv) in WORKLOADS.items():
    if args.only and not any(o in name for o in args.only.split(",")):
        continue
    placed = {dev: jax.device_put(argv, dev) for dev in (REF, OURS)}
    compile_ms = {}
    for dev, key in ((REF, "xla"), (OURS, "ours")):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*placed[dev]))
        compile_ms[key] = (time.perf_counter() - t0) * 1e3
        compile_ms[key + "_backend"] = backend_compile_ms(fn, placed[dev])
    times = {"xla": [], "ours": []}
    for _ in range(args.rounds):
        times["ours"].append(per_call(fn, placed[OURS], args.min_time))
        times["xla"].append(per_call(fn, placed[REF], args.min_time))
    results[name] = {"xla": float(np.median(times["xla"])), "ours": float(np.median(times["ours"])),
                     "xla_compile": compile_ms["xla"], "ours_compile": compile_ms["ours"],
                     "xla_backend": compile_ms["xla_backend"], "ours_backend": compile_ms["ours_backend"]}
if not args.only or any(o in LONG_PROGRAM for o in args.only.split(",")):
    x0 = jax.device_put(f32(64, 64), REF), jax.device_put(f32(64, 64), OURS)
    results[LONG_PROGRAM] = {"xla_backend": backend_compile_ms(long_program, x0[0]),
                             "ours_backend": backend_compile_ms(long_program, x0[1])}
print(json.dumps(results))
