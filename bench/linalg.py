#!/usr/bin/python3
"""JAX's CPU linear algebra through the plugin against numpy.linalg and torch.linalg, at one
thread, on the same 256 x 256 float32 data (LAPACK-backed on both sides: OpenBLAS for numpy,
PyTorch's own BLAS/LAPACK for torch):

    OPENBLAS_CORETYPE=SkylakeX PYTHONPATH=build/python /usr/bin/python3 bench/linalg.py [N]

The programs are what jax.numpy.linalg lowers to on CPU: the lapack_*_ffi custom calls
(potrf, getrf, geqrf, orgqr, syevd, gesdd) and stablehlo.triangular_solve / cholesky. Each row
runs openpjrt and its baselines one after the other in five rounds and reports the median of each
side's per-round medians; ratio = openpjrt / baseline (below 1: openpjrt is faster). Baselines
missing from this machine (python3-torch) are left out. Never run as a test.
"""
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import openpjrt  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    torch = None


def median_time(fn):
    fn()
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < 0.2 or len(times) < 5:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    c = openpjrt.client(intra_op_threads=1)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    spd = (a @ a.T / n + np.eye(n, dtype=np.float32)).astype(np.float32)
    low = np.tril(a) + n * np.eye(n, dtype=np.float32)
    M = f"tensor<{n}x{n}xf32>"
    V = f"tensor<{n}xf32>"
    rows = [
        ("cholesky (potrf)", f"""func.func @main(%a: {M}) -> ({M}, tensor<i32>) {{
  %f, %info = stablehlo.custom_call @lapack_spotrf_ffi(%a) {{mhlo.backend_config = {{uplo = 76 : ui8}}}} : ({M}) -> ({M}, tensor<i32>)
  return %f, %info : {M}, tensor<i32>
}}""", [spd], lambda: np.linalg.cholesky(spd), (lambda t: lambda: torch.linalg.cholesky(t[0])), [spd]),
        ("cholesky (stablehlo)", f"""func.func @main(%a: {M}) -> {M} {{
  %l = stablehlo.cholesky %a, lower = true : {M}
  return %l : {M}
}}""", [spd], lambda: np.linalg.cholesky(spd), (lambda t: lambda: torch.linalg.cholesky(t[0])), [spd]),
        ("lu (getrf)", f"""func.func @main(%a: {M}) -> ({M}, tensor<{n}xi32>, tensor<i32>) {{
  %lu, %piv, %info = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {{mhlo.backend_config = {{}}}} : ({M}) -> ({M}, tensor<{n}xi32>, tensor<i32>)
  return %lu, %piv, %info : {M}, tensor<{n}xi32>, tensor<i32>
}}""", [a], None, (lambda t: lambda: torch.linalg.lu_factor(t[0])), [a]),
        (f"triangular_solve {n} rhs", f"""func.func @main(%l: {M}, %b: {M}) -> {M} {{
  %x = "stablehlo.triangular_solve"(%l, %b) {{left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}} : ({M}, {M}) -> {M}
  return %x : {M}
}}""", [low, a], None, (lambda t: lambda: torch.linalg.solve_triangular(t[0], t[1], upper=False)), [low, a]),
        ("qr factors (geqrf)", f"""func.func @main(%a: {M}) -> ({M}, {V}) {{
  %qr, %tau = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) {{mhlo.backend_config = {{}}}} : ({M}) -> ({M}, {V})
  return %qr, %tau : {M}, {V}
}}""", [a], lambda: np.linalg.qr(a, mode="raw"), (lambda t: lambda: torch.geqrf(t[0])), [a]),
        ("qr (geqrf + orgqr)", f"""func.func @main(%a: {M}) -> ({M}, {M}) {{
  %qr, %tau = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) {{mhlo.backend_config = {{}}}} : ({M}) -> ({M}, {V})
  %q = stablehlo.custom_call @lapack_sorgqr_ffi(%qr, %tau) {{mhlo.backend_config = {{}}}} : ({M}, {V}) -> {M}
  return %qr, %q : {M}, {M}
}}""", [a], lambda: np.linalg.qr(a), (lambda t: lambda: torch.linalg.qr(t[0])), [a]),
        ("eigh (syevd)", f"""func.func @main(%a: {M}) -> ({M}, {V}, tensor<i32>) {{
  %v, %w, %info = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {{mhlo.backend_config = {{mode = 86 : ui8, uplo = 76 : ui8}}}} : ({M}) -> ({M}, {V}, tensor<i32>)
  return %v, %w, %info : {M}, {V}, tensor<i32>
}}""", [spd], lambda: np.linalg.eigh(spd), (lambda t: lambda: torch.linalg.eigh(t[0])), [spd]),
        ("svd (gesdd)", f"""func.func @main(%a: {M}) -> ({M}, {V}, {M}, {M}, tensor<i32>) {{
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {{mhlo.backend_config = {{mode = 65 : ui8}}}} : ({M}) -> ({M}, {V}, {M}, {M}, tensor<i32>)
  return %x, %s, %u, %vt, %info : {M}, {V}, {M}, {M}, tensor<i32>
}}""", [a], lambda: np.linalg.svd(a), (lambda t: lambda: torch.linalg.svd(t[0])), [a]),
    ]
    print(f"{n} x {n} float32, one thread; load {os.getloadavg()[0]:.2f}; "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    print(f"{'op':26} {'openpjrt':>10} {'numpy':>10} {'torch':>10} {'/numpy':>7} {'/torch':>7}")
    for name, prog, args, np_fn, torch_fn, torch_args in rows:
        exe = c.compile(prog)
        bufs = [c.device_put(x) for x in args]

        def ours():
            out = exe(*bufs)
            for r in out if isinstance(out, (list, tuple)) else [out]:
                np.asarray(r)
        tt = torch_fn([torch.from_numpy(x) for x in torch_args]) if torch else None
        rounds = {"ours": [], "numpy": [], "torch": []}
        for _ in range(5):
            rounds["ours"].append(median_time(ours))
            if np_fn:
                rounds["numpy"].append(median_time(np_fn))
            if tt:
                rounds["torch"].append(median_time(tt))
        med = {k: float(np.median(v)) * 1e3 if v else None for k, v in rounds.items()}
        fmt = lambda v: f"{v:10.3f}" if v is not None else f"{'-':>10}"
        ratio = lambda b: f"{med['ours'] / b:7.2f}" if b else f"{'-':>7}"
        print(f"{name:26} {fmt(med['ours'])} {fmt(med['numpy'])} {fmt(med['torch'])} "
              f"{ratio(med['numpy'])} {ratio(med['torch'])}")
    print("times in ms (medians); ratio = openpjrt / baseline")


if __name__ == "__main__":
    main()
