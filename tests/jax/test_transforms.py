"""JAX's transformations and control flow through the plugin, against XLA:CPU."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxdiff import OURS, REF, assert_same, check, rand, run_on


def test_jit_elementwise_and_reduction(rng):
    x = rand(rng, (7, 5), np.float32)
    check(lambda a: jnp.sin(a) * 2 + a.sum(axis=0), x)


def test_grad_and_value_and_grad(rng):
    x = rand(rng, (16,), np.float32)
    check(jax.grad(lambda a: jnp.sum(jnp.tanh(a) ** 2 * jnp.exp(-a * a))), x)
    check(jax.value_and_grad(lambda a, b: jnp.vdot(a, b) ** 2, argnums=(0, 1)), x, x[::-1].copy())


def test_jacobians_and_hessian(rng):
    x = rand(rng, (4,), np.float32)
    f = lambda a: jnp.stack([jnp.sin(a).sum(), (a ** 3).prod(), jnp.logaddexp(a[0], a[1])])
    check(jax.jacfwd(f), x, rtol=1e-4)
    check(jax.jacrev(f), x, rtol=1e-4)
    check(jax.hessian(lambda a: jnp.sum(jnp.cos(a) * a ** 2)), x, rtol=1e-4)


def test_vmap_of_matmul_and_grad(rng):
    w = rand(rng, (8, 3), np.float32)
    xs = rand(rng, (5, 8), np.float32)
    loss = lambda w, x: jnp.sum(jax.nn.relu(x @ w) ** 2)
    check(jax.vmap(jax.grad(loss), in_axes=(None, 0)), w, xs)


def test_scan_cumulative_rnn(rng):
    w = rand(rng, (6, 6), np.float32) * 0.3
    xs = rand(rng, (20, 6), np.float32)

    def rnn(w, xs):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum()
        return jax.lax.scan(step, jnp.zeros(6, jnp.float32), xs)

    check(rnn, w, xs, rtol=1e-4, atol=1e-5)
    check(jax.grad(lambda w, xs: rnn(w, xs)[1].sum()), w, xs, rtol=1e-4, atol=1e-5)


def test_while_loop_fori_loop():
    def collatz_steps(n):
        return jax.lax.while_loop(lambda s: s[0] != 1,
                                  lambda s: (jnp.where(s[0] % 2 == 0, s[0] // 2, 3 * s[0] + 1), s[1] + 1),
                                  (n, 0))[1]
    check(jax.vmap(collatz_steps), np.arange(1, 40, dtype=np.int32))
    check(lambda x: jax.lax.fori_loop(0, 10, lambda i, a: a * 1.1 + i, x), np.float32([1, 2, 3]))


def test_cond_and_switch(rng):
    x = rand(rng, (5,), np.float32)
    f = lambda p, x: jax.lax.cond(p > 0, lambda v: jnp.sin(v), lambda v: jnp.cos(v) * 2, x)
    check(f, np.int32(1), x)
    check(f, np.int32(-1), x)
    branches = [lambda v: v + 1, lambda v: v * v, lambda v: -v, lambda v: jnp.exp(v)]
    for i in (-1, 0, 2, 3, 7):  # switch clamps the index
        check(lambda i, v: jax.lax.switch(i, branches, v), np.int32(i), x)
    check(jax.vmap(lambda i, v: jax.lax.switch(i, branches, v)), np.int32([0, 1, 2, 3, 1]),
          rand(rng, (5, 3), np.float32))


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg", "unsafe_rbg"])
def test_random(impl):
    def sample(seed):
        key = jax.random.key(seed, impl=impl)
        k1, k2, k3, k4 = jax.random.split(key, 4)
        return (jax.random.normal(k1, (64, 3)), jax.random.uniform(k2, (100,)),
                jax.random.randint(k3, (50,), 0, 1000), jax.random.bernoulli(k4, 0.3, (40,)),
                jax.random.categorical(k1, jnp.linspace(-1, 1, 7), shape=(20,)),
                jax.random.permutation(k2, 30), jax.random.gamma(k3, 2.5, (10,)))
    check(sample, np.uint32(42), rtol=2e-5, atol=2e-6)


def test_random_bits_exact():
    check(lambda s: jax.random.bits(jax.random.key(s), (1000,), jnp.uint32), np.uint32(7))
    check(lambda s: jax.random.bits(jax.random.key(s, impl="rbg"), (300,), jnp.uint8), np.uint32(7))


def test_device_put_get_roundtrip(rng):
    for dtype in (np.float32, np.int8, np.bool_, np.complex64, np.uint16):
        x = rand(rng, (3, 4, 5), dtype)
        y = jax.device_put(x, OURS)
        assert y.devices() == {OURS}
        np.testing.assert_array_equal(np.asarray(y), x)
        z = jax.device_put(y, jax.devices("openpjrt_cpu")[1])
        np.testing.assert_array_equal(jax.device_get(z), x)
    # Between the two backends, both ways.
    a = jax.device_put(rand(rng, (10,), np.float32), REF)
    b = jax.device_put(a, OURS)
    np.testing.assert_array_equal(np.asarray(jax.device_put(b, REF)), np.asarray(a))


def test_donation_and_async_dispatch(rng):
    x = jax.device_put(rand(rng, (256, 256), np.float32), OURS)
    f = jax.jit(lambda a: a * 2 + 1, donate_argnums=0)
    expect = np.asarray(x) * 2 + 1
    y = f(x)
    assert x.is_deleted()
    np.testing.assert_allclose(np.asarray(y.block_until_ready()), expect)
    # Many calls queued before anything is read.
    g = jax.jit(lambda a: jnp.tanh(a) + 0.5 * a)
    outs = [y]
    for _ in range(20):
        outs.append(g(outs[-1]))
    jax.block_until_ready(outs)
    ref = np.asarray(y)
    for _ in range(20):
        ref = np.tanh(ref) + 0.5 * ref
    np.testing.assert_allclose(np.asarray(outs[-1]), ref, rtol=1e-5, atol=1e-5)


def test_pytrees_static_args_and_retrace(rng):
    @functools.partial(jax.jit, static_argnums=1)
    def f(tree, n):
        return {k: v * n for k, v in tree.items()}, [tree["a"].sum()] * n
    tree = {"a": rand(rng, (3,), np.float32), "b": rand(rng, (2, 2), np.int32)}
    for n in (1, 3):
        assert_same(jax.device_get(f(jax.device_put(tree, REF), n)), jax.device_get(f(jax.device_put(tree, OURS), n)))


def test_custom_jvp_and_checkpoint(rng):
    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))
    softplus.defjvp(lambda p, t: (softplus(p[0]), t[0] * jax.nn.sigmoid(p[0])))
    x = rand(rng, (9,), np.float32)
    check(jax.grad(lambda a: jax.checkpoint(lambda b: softplus(b) ** 2)(a).sum()), x)
