"""jax.numpy.linalg / jax.scipy.linalg (every LAPACK path of JAX's CPU lowering) and jax.numpy.fft
through the plugin, against XLA:CPU. Factorizations are compared through what defines them
(reconstruction, orthogonality, the values) where the factors themselves are not unique."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxdiff import OURS, REF, check, rand, run_on

TYPES = [np.float32, np.float64, np.complex64, np.complex128]
TOL = {np.float32: 2e-4, np.complex64: 2e-4, np.float64: 1e-10, np.complex128: 1e-10}


def spd(g, n, dtype, batch=()):
    a = rand(g, batch + (n, n), dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", TYPES, ids=lambda d: np.dtype(d).name)
def test_factorizations_and_solves(dtype):
    g = np.random.default_rng(1)
    tol = TOL[dtype]
    with jax.enable_x64(True):
        for n, batch in ((1, ()), (5, ()), (33, (2,)), (64, ())):
            a = rand(g, batch + (n, n), dtype)
            s = spd(g, n, dtype, batch)
            b = rand(g, batch + (n, 3), dtype)
            check(jnp.linalg.cholesky, s, rtol=tol, atol=tol)
            check(lambda a, b: jnp.linalg.solve(a, b), a, b, rtol=tol * 10, atol=tol * 10)
            check(jnp.linalg.inv, s, rtol=tol * 10, atol=tol * 10)
            check(jnp.linalg.det, a, rtol=tol * 10, atol=tol * 10)
            check(jnp.linalg.slogdet, a, rtol=tol * 10, atol=tol * 10)
            check(lambda a: jax.lax.linalg.lu(a), a, rtol=tol * 10, atol=tol * 10)
            check(lambda a, b: jax.scipy.linalg.solve_triangular(jnp.tril(a) + 4 * jnp.eye(a.shape[-1], dtype=a.dtype), b,
                                                                 lower=True, trans=1), a, b, rtol=tol * 10, atol=tol * 10)
            check(lambda s, b: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(s), b), s, b,
                  rtol=tol * 10, atol=tol * 10)
            # QR, SVD, eigh: the defining identities and the spectra.
            def qr_props(a):
                q, r = jnp.linalg.qr(a)
                return jnp.abs(q @ r - a).max(), jnp.abs(jnp.conj(q.T) @ q - jnp.eye(q.shape[-1])).max()
            if not batch:
                for out in jax.tree.leaves(run_on(OURS, qr_props, a)):
                    assert out < tol * 10 * max(1, n)
            check(lambda a: jnp.linalg.svd(a, compute_uv=False), a, rtol=tol * 10, atol=tol * 10)
            check(lambda s: jnp.linalg.eigh(s)[0], s, rtol=tol * 10, atol=tol * 10 * n)
            u, sv, vh = run_on(OURS, jnp.linalg.svd, a)
            np.testing.assert_allclose((u * sv[..., None, :]) @ vh, a, rtol=tol * 20, atol=tol * 20 * n)
            w, v = run_on(OURS, jnp.linalg.eigh, s)
            np.testing.assert_allclose(s @ v, v * w[..., None, :], rtol=tol * 20, atol=tol * 20 * n * n)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=lambda d: np.dtype(d).name)
def test_eig_schur_and_friends(dtype):
    g = np.random.default_rng(2)
    a = rand(g, (12, 12), dtype)
    w, vr = run_on(OURS, lambda a: jnp.linalg.eig(a), a)
    wr = run_on(REF, lambda a: jnp.linalg.eigvals(a), a)
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(wr), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(a @ vr, vr * w[None, :], rtol=1e-3, atol=1e-3)
    t, z = run_on(OURS, lambda a: jax.scipy.linalg.schur(a), a)
    np.testing.assert_allclose(z @ t @ np.conj(z.T), a, rtol=1e-3, atol=1e-3)
    check(lambda a: jnp.linalg.matrix_rank(a), a)
    check(lambda a: jnp.linalg.pinv(a), a, rtol=1e-3, atol=1e-3)
    check(lambda a: jnp.linalg.lstsq(a, a[:, :2])[0], a, rtol=1e-3, atol=1e-3)
    h, q = run_on(OURS, lambda a: jax.scipy.linalg.hessenberg(a, calc_q=True), a)
    np.testing.assert_allclose(q @ h @ np.conj(q.T), a, rtol=1e-3, atol=1e-3)
    check(lambda a: jax.scipy.linalg.expm(a * 0.1), a, rtol=1e-3, atol=1e-3)


def test_linalg_gradients():
    g = np.random.default_rng(3)
    s = spd(g, 6, np.float32)
    check(jax.grad(lambda s: jnp.linalg.cholesky(s).sum()), s, rtol=1e-3, atol=1e-3)
    check(jax.grad(lambda s: jnp.linalg.slogdet(s)[1]), s, rtol=1e-3, atol=1e-3)
    check(jax.grad(lambda s: jnp.linalg.eigh(s)[0].sum()), s, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_fft_family(dtype):
    g = np.random.default_rng(4)
    real = np.float32 if dtype == np.complex64 else np.float64
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    with jax.enable_x64(True):
        for shape in [(16,), (3, 15), (4, 6, 10), (2, 14, 15, 16)]:
            x = rand(g, shape, dtype)
            r = rand(g, shape, real)
            for axes in ([-1], [-2, -1] if len(shape) > 1 else [-1], list(range(len(shape)))):
                check(lambda a: jnp.fft.fftn(a, axes=axes), x, rtol=tol, atol=tol * np.prod(shape))
                check(lambda a: jnp.fft.ifftn(a, axes=axes), x, rtol=tol, atol=tol)
                check(lambda a: jnp.fft.rfftn(a, axes=axes), r, rtol=tol, atol=tol * np.prod(shape))
                out = [shape[a] for a in axes]
                check(lambda a: jnp.fft.irfftn(a, s=out, axes=axes), x, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("real", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_rfft_of_many_real_rows(real):
    # Enough rows to fill the vector lanes two to a lane (the rows go from the real input straight
    # into the result's half spectra), with a last group that is not full, odd and composite
    # lengths, a length of 1 and a single row (the widened way), against XLA:CPU.
    g = np.random.default_rng(5)
    tol = 1e-4 if real == np.float32 else 1e-10
    with jax.enable_x64(True):
        for shape in [(33, 17), (40, 128), (5, 13, 31), (70, 1), (1, 64), (3, 35, 48)]:
            r = rand(g, shape, real)
            check(lambda a: jnp.fft.rfft(a), r, rtol=tol, atol=tol * shape[-1])
            check(lambda a: jnp.fft.rfftn(a, axes=list(range(len(shape)))), r, rtol=tol, atol=tol * np.prod(shape))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_fft_along_leading_dims_in_runs(dtype):
    # Transforms along a dimension that is not the last: the lines sit side by side in runs of
    # `stride` (the product of the later dimensions), grouped within each run, the run's last
    # group partly filled (strides of several groups that are not a multiple of the lanes), one
    # run and several; rfft2's second pass over its half spectra (101 columns), forward and back.
    g = np.random.default_rng(6)
    real = np.float32 if dtype == np.complex64 else np.float64
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    with jax.enable_x64(True):
        for shape, axis in [((32, 100), 0), ((3, 24, 70), 1), ((16, 45), 0), ((2, 8, 9, 67), 1)]:
            x = rand(g, shape, dtype)
            check(lambda a: jnp.fft.fft(a, axis=axis), x, rtol=tol, atol=tol * shape[axis])
            check(lambda a: jnp.fft.ifft(a, axis=axis), x, rtol=tol, atol=tol)
        r = rand(g, (2, 32, 200), real)
        check(jnp.fft.rfft2, r, rtol=tol, atol=tol * 32 * 200)
        h = rand(g, (2, 32, 101), dtype)
        check(lambda a: jnp.fft.irfft2(a, s=(32, 200)), h, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=lambda d: np.dtype(d).name)
def test_top_k_of_long_rows(dtype):
    """top_k over rows of many blocks (a partial last one), with ties, signed zeros, infinities and
    NaNs, for k from 1 to past the buffered pass's limit: values and indices exactly XLA's."""
    g = np.random.default_rng(5)
    with jax.enable_x64(True):
        x = rand(g, (5, 5000), dtype, -50, 50)
        if np.dtype(dtype).kind == "f":
            x = np.round(x * 4) / 4  # many equal values
            x[0, 17], x[0, 4000], x[1, 3], x[1, 2999] = np.inf, -np.inf, np.nan, -np.nan
            x[2, :] = -0.0
            x[2, 100:4000:37] = 0.0
            x[3, 4999] = np.nan
        else:
            x[2, :] = 7
        x = x.astype(dtype)
        for k in (1, 7, 16, 64, 65, 700):
            check(lambda a: jax.lax.top_k(a, k), x)
            check(lambda a: jax.lax.top_k(-a, k), x)
