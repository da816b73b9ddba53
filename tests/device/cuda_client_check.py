#!/usr/bin/env python3
"""Our C++ client driving a real GPU plugin: XLA's CUDA plugin, as JAX's CUDA wheel ships it.

This check runs only on a machine with an NVIDIA GPU and JAX's CUDA plugin installed (never in
CI; see tests/device/README.md for how a session runs it). It answers one question: does a
framework author who points `openpjrt` at `xla_cuda_plugin.so` get the same thing JAX gets from
that plugin? For every program below it

  1. exports the function with jax.export (platform 'cpu', so the StableHLO holds no GPU-only
     custom calls) and writes random inputs as .npy files;
  2. runs the program through our client on the CUDA plugin and on our CPU plugin
     (`openpjrt run --plugin P --input ... --output DIR`);
  3. runs the same function with JAX on the GPU and on XLA:CPU;
  4. compares: ours-on-CUDA against JAX-on-CUDA (same compiler, same device: expected to agree to
     the last bit or nearly), ours-on-CPU against XLA:CPU.

Then it times `openpjrt bench --plugin CUDA` on two programs beside JAX's own dispatch of the same
jitted function, and checks that a malformed program and a wrong-shaped input come back from the
CUDA plugin as errors rather than crashes. It prints one line per check and a summary; the exit
status is 0 only when every check passed.

usage: cuda_client_check.py --openpjrt BIN --cpu-plugin SO [--cuda-plugin SO] [--out DIR] [--dry-run]
(--dry-run checks the script itself on a machine without a GPU: give our CPU plugin as
--cuda-plugin, and XLA:CPU stands in for JAX on the GPU.)
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def find_cuda_plugin():
    import importlib.util
    for name in ("jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12"):
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            spec = None
        if spec and spec.submodule_search_locations:
            for d in spec.submodule_search_locations:
                hits = glob.glob(os.path.join(d, "*.so"))
                if hits:
                    return hits[0]
    return None


def programs(jnp, lax, jax):
    """(name, function, input arrays, tolerance against the other side of the same device kind)."""
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    i32 = lambda hi, *s: rng.integers(0, hi, s).astype(np.int32)

    def mlp(x, w1, w2):
        return jnp.tanh(x @ w1) @ w2

    def softmax_ce(logits, labels):
        lp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(lp, labels[:, None], axis=1))

    def conv(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def grad_step(w, x, y):
        loss = lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2)
        return jax.grad(loss)(w)

    def scan_rnn(h, xs, w):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum()
        return lax.scan(step, h, xs)

    def while_count(x):
        return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0), (0, x))[1]

    def gather_scatter(table, idx):
        g = table[idx]
        return g, jnp.zeros_like(table).at[idx].add(g)

    return [
        ("elementwise", lambda x, y: (jnp.exp(x) * jnp.sin(y) + x / (1 + y * y), jnp.maximum(x, y)),
         [f32(64, 128), f32(64, 128)], 2e-6),
        ("int_ops", lambda a, b: (a * b + (a >> 1), a % (b + 1), jnp.bitwise_xor(a, b)),
         [i32(1000, 256), i32(1000, 256)], 0),
        ("matmul", lambda a, b: a @ b, [f32(256, 512), f32(512, 128)], 1e-5),
        # XLA:GPU picks GEMM algorithms by timing them, so two compiles may sum in another order.
        ("mlp", mlp, [f32(128, 784), f32(784, 512) * 0.05, f32(512, 10) * 0.05], 1e-4),
        ("softmax_ce", softmax_ce, [f32(128, 10), i32(10, 128)], 1e-6),
        ("reductions", lambda x: (x.sum(0), x.max(1), jnp.argmax(x, 1), jnp.cumsum(x, 1)), [f32(96, 200)], 1e-5),
        ("conv2d", conv, [f32(8, 16, 16, 8), f32(3, 3, 8, 16) * 0.2], 1e-5),
        ("grad_step", grad_step, [f32(64, 32) * 0.1, f32(128, 64), f32(128, 32)], 1e-5),
        ("scan_rnn", scan_rnn, [f32(4, 32), f32(20, 4, 32), f32(32, 32) * 0.2], 1e-5),
        ("while_loop", while_count, [f32(1000)], 1e-6),
        ("sort_topk", lambda x: (jnp.sort(x, axis=1), lax.top_k(x, 5)[0]), [f32(32, 100)], 0),
        ("gather_scatter", gather_scatter, [f32(50, 16), i32(50, 40)], 1e-6),
        ("fft", lambda x: jnp.fft.rfft(x, axis=-1), [f32(16, 64)], 1e-5),
        ("transpose_reshape", lambda x: jnp.transpose(x.reshape(8, 16, 32), (2, 0, 1)) * 2, [f32(128, 32)], 0),
    ]


def flat(out):
    if isinstance(out, (tuple, list)):
        r = []
        for o in out:
            r.extend(flat(o))
        return r
    return [np.asarray(out)]


def max_rel(a, b):
    """max |a - b| over the larger of 1 and max |b|: differences in summation order scale with
    the magnitude of the whole result, not of each element."""
    a = np.asarray(a, np.complex128 if np.iscomplexobj(a) else np.float64)
    b = np.asarray(b, a.dtype)
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openpjrt", required=True)
    ap.add_argument("--cpu-plugin", required=True)
    ap.add_argument("--cuda-plugin")
    ap.add_argument("--out", default=tempfile.mkdtemp())
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU here: XLA:CPU stands in for JAX on the GPU (give --cuda-plugin)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cuda = args.cuda_plugin or find_cuda_plugin()
    results = []

    def report(name, ok, detail):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)

    if not cuda:
        report("find plugin", False, "no jax_plugins.xla_cuda* package with a .so")
        return 1
    print(f"CUDA plugin: {cuda}", flush=True)

    logs = [0]

    def cli(*argv, timeout=300):
        t = time.perf_counter()
        r = subprocess.run([args.openpjrt, *argv], capture_output=True, text=True, timeout=timeout)
        out = r.stdout + r.stderr
        if r.returncode != 0:  # the whole output, for the note
            logs[0] += 1
            with open(os.path.join(args.out, f"cli{logs[0]}.log"), "w") as f:
                f.write(f"$ openpjrt {' '.join(argv)}\nexit {r.returncode}\n{out}")
        return r.returncode, out, time.perf_counter() - t

    rc, out, _ = cli("info", "--plugin", cuda)
    print(out, flush=True)
    report("info", rc == 0 and "PJRT C API" in out, f"exit {rc}")

    # JAX in this process must leave the GPU's memory to the CLI's own client of the same plugin.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    from jax import lax
    gpu = jax.devices("cpu" if args.dry_run else "gpu")[0]
    cpu = jax.devices("cpu")[0]
    print(f"JAX {jax.__version__}: {gpu.device_kind} and {cpu}", flush=True)

    for name, fn, inputs, tol in programs(jnp, lax, jax):
        d = os.path.join(args.out, name)
        os.makedirs(d, exist_ok=True)
        try:
            exp = jax.export.export(jax.jit(fn), platforms=["cpu"])(*inputs)
            text = exp.mlir_module()
        except Exception as e:  # noqa: BLE001 - report and go on
            report(name, False, f"export failed: {e}")
            continue
        with open(f"{d}/prog.mlir", "w") as f:
            f.write(text)
        flags = []
        for i, a in enumerate(inputs):
            np.save(f"{d}/in{i}.npy", a)
            flags += ["--input", f"{i}={d}/in{i}.npy"]
        want_gpu = flat(jax.device_get(jax.jit(fn)(*[jax.device_put(a, gpu) for a in inputs])))
        want_cpu = flat(jax.device_get(jax.jit(fn)(*[jax.device_put(a, cpu) for a in inputs])))
        for side, plugin, want in (("cuda", cuda, want_gpu), ("cpu", args.cpu_plugin, want_cpu)):
            od = f"{d}/{side}"
            os.makedirs(od, exist_ok=True)
            rc, out, secs = cli("run", f"{d}/prog.mlir", "--plugin", plugin, *flags, "--output", od)
            if rc != 0:
                report(f"{name} via {side}", False, out.strip().splitlines()[-3:])
                continue
            got = [np.load(f"{od}/result{i}.npy") for i in range(len(want))]
            worst, exact, why = 0.0, True, ""
            for i, (g, w) in enumerate(zip(got, want)):
                if g.shape != w.shape or g.dtype != w.dtype:
                    why = f"result {i}: {g.dtype}{g.shape} vs JAX's {w.dtype}{w.shape}"
                    break
                exact &= np.array_equal(g, w, equal_nan=True)
                worst = max(worst, max_rel(g, w))
            ok = not why and worst <= tol
            ref = "JAX on the GPU" if side == "cuda" else "XLA:CPU"
            report(f"{name} via {side}", ok,
                   why or f"{'bit-identical to' if exact else f'max rel diff {worst:.2e} from'} {ref} "
                          f"({len(got)} results, {secs:.2f} s with compile)")

    # Dispatch: our client's bench against JAX's own calls of the same jitted function.
    for name, fn, inputs, _ in programs(jnp, lax, jax):
        if name not in ("matmul", "mlp", "elementwise"):
            continue
        d = os.path.join(args.out, name)
        if not os.path.exists(f"{d}/prog.mlir"):
            continue
        flags = sum((["--input", f"{i}={d}/in{i}.npy"] for i in range(len(inputs))), [])
        rc, out, _ = cli("bench", f"{d}/prog.mlir", "--plugin", cuda, "--iters", "1", "--warmup", "0", *flags)
        report(f"bench {name} once", rc == 0, out.strip().splitlines()[-1] if out.strip() else f"exit {rc}")
        rc, out, _ = cli("bench", f"{d}/prog.mlir", "--plugin", cuda, "--iters", "300", "--warmup", "20", *flags)
        m = re.search(r"median_us=([\d.]+)", out)
        f = jax.jit(fn)
        dev_in = [jax.device_put(a, gpu) for a in inputs]
        jax.block_until_ready(f(*dev_in))
        times = []
        for _ in range(300):
            t = time.perf_counter()
            jax.block_until_ready(f(*dev_in))
            times.append(time.perf_counter() - t)
        jax_us = float(np.median(times) * 1e6)
        if rc == 0 and m:
            ours = float(m.group(1))
            print(f"BENCH {name} on the GPU: openpjrt client {ours:.1f} us/call, JAX {jax_us:.1f} us/call "
                  f"(ratio JAX/ours {jax_us / ours:.2f}x)", flush=True)
        report(f"bench {name}", rc == 0 and m is not None, out.strip().splitlines()[-1] if out.strip() else f"exit {rc}")

    # Errors from the real plugin come back as errors.
    bad = os.path.join(args.out, "bad.mlir")
    with open(bad, "w") as f:
        f.write("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = stablehlo.add %x, %x : tensor<5xf32>\n"
                "  return %y : tensor<4xf32>\n}\n")
    rc, out, _ = cli("run", bad, "--plugin", cuda, "--input", f"0={args.out}/elementwise/in0.npy")
    report("malformed program", rc != 0 and "FAIL" in out, out.strip().splitlines()[-2:] if out.strip() else f"exit {rc}")
    rc, out, _ = cli("run", f"{args.out}/matmul/prog.mlir", "--plugin", cuda,
                     "--input", f"0={args.out}/matmul/in1.npy", "--input", f"1={args.out}/matmul/in0.npy")
    report("wrong input shape", rc != 0 and "FAIL" in out, out.strip().splitlines()[-2:] if out.strip() else f"exit {rc}")

    # An error the plugin itself raises (its compiler knows no such custom call target).
    unknown = os.path.join(args.out, "unknown_target.mlir")
    with open(unknown, "w") as f:
        f.write("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  %y = stablehlo.custom_call @openpjrt_no_such_target(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                "  return %y : tensor<4xf32>\n}\n")
    np.save(os.path.join(args.out, "x4.npy"), np.ones(4, np.float32))
    rc, out, _ = cli("run", unknown, "--plugin", cuda, "--input", f"0={args.out}/x4.npy")
    report("plugin's compile error", rc == 1 and "openpjrt_no_such_target" in out,
           [l for l in out.splitlines() if "FAIL" in l][:1] or f"exit {rc}")

    print(f"{sum(results)} passed, {len(results) - sum(results)} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
