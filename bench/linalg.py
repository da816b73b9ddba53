#!/usr/bin/python3
"""JAX's CPU linear algebra and FFTs through the plugin against numpy.linalg / numpy.fft and
torch.linalg / torch.fft, at one thread, on the same data (256 x 256 float32 matrices, LAPACK-backed
on both sides: OpenBLAS for numpy, PyTorch's own BLAS/LAPACK for torch; complex64 and float32
lines for the FFTs):

    OPENBLAS_CORETYPE=SkylakeX PYTHONPATH=build/python /usr/bin/python3 bench/linalg.py [N]

The programs are what jax.numpy.linalg lowers to on CPU: the lapack_*_ffi custom calls
(potrf, getrf, geqrf, orgqr, syevd/heevd, gesdd), stablehlo.triangular_solve / cholesky and
stablehlo.fft (jnp.fft.fft / rfft / fft2). Each row
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
    herm = (a + 1j * rng.standard_normal((n, n))).astype(np.complex64)
    herm = ((herm + herm.conj().T) / 2).astype(np.complex64)
    cplx = lambda *s: (rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(np.complex64)
    z4096, z4095, z2d = cplx(64, 4096), cplx(64, 4095), cplx(8, 256, 256)
    r4096 = rng.standard_normal((64, 4096)).astype(np.float32)
    CM = f"tensor<{n}x{n}xcomplex<f32>>"
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
        ("eigh complex64 (heevd)", f"""func.func @main(%a: {CM}) -> ({CM}, {V}, tensor<i32>) {{
  %v, %w, %info = stablehlo.custom_call @lapack_cheevd_ffi(%a) {{mhlo.backend_config = {{mode = 86 : ui8, uplo = 76 : ui8}}}} : ({CM}) -> ({CM}, {V}, tensor<i32>)
  return %v, %w, %info : {CM}, {V}, tensor<i32>
}}""", [herm], lambda: np.linalg.eigh(herm), (lambda t: lambda: torch.linalg.eigh(t[0])), [herm]),
    ]
    # jnp.fft: stablehlo.fft over the last dimension(s) of complex64 / float32 data.
    for name, shape, kind, lens, data in (
            ("fft 64 x 4096 c64", (64, 4096), "FFT", [4096], z4096),
            ("fft 64 x 4095 c64", (64, 4095), "FFT", [4095], z4095),
            ("rfft 64 x 4096 f32", (64, 4096), "RFFT", [4096], r4096),
            ("fft2 8 x 256 x 256 c64", (8, 256, 256), "FFT", [256, 256], z2d)):
        dims = "x".join(str(d) for d in shape)
        tin = f"tensor<{dims}x{'f32' if kind == 'RFFT' else 'complex<f32>'}>"
        oshape = list(shape)
        if kind == "RFFT":
            oshape[-1] = lens[-1] // 2 + 1
        tout = "tensor<" + "x".join(str(d) for d in oshape) + "xcomplex<f32>>"
        axes = tuple(range(len(shape) - len(lens), len(shape)))
        np_fn = (lambda d=data, ax=axes, k=kind: np.fft.rfftn(d, axes=ax) if k == "RFFT" else np.fft.fftn(d, axes=ax))
        torch_fn = (lambda t, ax=axes, k=kind: lambda: torch.fft.rfftn(t[0], dim=ax) if k == "RFFT" else torch.fft.fftn(t[0], dim=ax))
        rows.append((name, f"""func.func @main(%a: {tin}) -> {tout} {{
  %f = stablehlo.fft %a, type = {kind}, length = {lens} : ({tin}) -> {tout}
  return %f : {tout}
}}""", [data], np_fn, torch_fn, [data]))
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
