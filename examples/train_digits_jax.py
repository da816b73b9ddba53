"""Trains a small convolutional network on scikit-learn's handwritten digits with flax and optax,
through JAX on openpjrt and on XLA:CPU side by side in one process, and prints both loss curves,
the test accuracy and the training speed of each.

    PYTHONPATH=build/python .venv/bin/python examples/train_digits_jax.py [--steps N] [--threads N]

The data set (1,797 8x8 images, 10 classes) ships inside scikit-learn; nothing is downloaded.
Both backends start from the same parameters and see the same batches, so their losses agree
step by step up to floating-point rounding, which training amplifies slowly: the run fails if
the first 25 steps differ by more than 1e-4 or any later step by more than 5% (+ 2e-3).
"""

import argparse
import os
import sys
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--steps", type=int, default=300)
parser.add_argument("--batch", type=int, default=128)
parser.add_argument("--every", type=int, default=25, help="print every N steps")
parser.add_argument("--only", choices=["openpjrt", "xla"], help="train on one backend only")
args = parser.parse_args()

os.environ.setdefault("JAX_PLATFORMS", "cpu,openpjrt_cpu")

import warnings  # noqa: E402

warnings.filterwarnings("ignore", message="Platform 'openpjrt_cpu' is experimental")

import flax.linen as nn  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(32, (3, 3))(x))
        x = nn.relu(nn.Conv(64, (3, 3))(x))
        x = nn.avg_pool(x, (2, 2), (2, 2))
        x = x.reshape(x.shape[0], -1)
        x = nn.relu(nn.Dense(128)(x))
        return nn.Dense(10)(x)


def load():
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[..., None]
    y = digits.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    return (x[:1500], y[:1500]), (x[1500:], y[1500:])


def make_step(model, tx):
    def loss_fn(params, x, y):
        logits = model.apply(params, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    @jax.jit
    def step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    @jax.jit
    def accuracy(params, x, y):
        return jnp.mean(jnp.argmax(model.apply(params, x), -1) == y)

    return step, accuracy


def batches(x, y, batch, steps):
    g = np.random.default_rng(1)
    for _ in range(steps):
        idx = g.integers(0, len(y), size=batch)
        yield x[idx], y[idx]


def train(device, params0, data, steps, batch):
    model, tx = CNN(), optax.adam(1e-3)
    step, accuracy = make_step(model, tx)
    (xtr, ytr), (xte, yte) = data
    params = jax.device_put(params0, device)
    opt_state = jax.device_put(tx.init(params0), device)
    losses = []
    stream = [jax.device_put(b, device) for b in batches(xtr, ytr, batch, steps)]
    t_first = time.perf_counter()
    params, opt_state, loss = step(params, opt_state, *stream[0])
    losses.append(float(loss))
    compile_s = time.perf_counter() - t_first
    t0 = time.perf_counter()
    for xb, yb in stream[1:]:
        params, opt_state, loss = step(params, opt_state, xb, yb)
        losses.append(loss)
    jax.block_until_ready(params)
    seconds = time.perf_counter() - t0
    losses = [float(v) for v in losses]
    acc = float(accuracy(params, *jax.device_put((xte, yte), device)))
    return dict(losses=losses, acc=acc, steps_per_s=(steps - 1) / seconds, compile_s=compile_s)


def main():
    data = load()
    params0 = CNN().init(jax.random.key(0), jnp.zeros((1, 8, 8, 1), jnp.float32))
    runs = {}
    if args.only != "xla":
        runs["openpjrt"] = train(jax.devices("openpjrt_cpu")[0], params0, data, args.steps, args.batch)
    if args.only != "openpjrt":
        runs["XLA:CPU"] = train(jax.devices("cpu")[0], params0, data, args.steps, args.batch)
    names = list(runs)
    print("CNN on scikit-learn digits (flax + optax adam, batch %d): loss per step" % args.batch)
    print("  step " + "".join("%14s" % n for n in names))
    for i in range(0, args.steps, args.every):
        print("  %4d " % i + "".join("%14.6f" % runs[n]["losses"][i] for n in names))
    print("  %4d " % (args.steps - 1) + "".join("%14.6f" % runs[n]["losses"][-1] for n in names))
    for n in names:
        r = runs[n]
        print("%-9s test accuracy %.4f, %.1f steps/s, first step (compile) %.2f s"
              % (n, r["acc"], r["steps_per_s"], r["compile_s"]))
    if len(names) == 2:
        a, b = (np.array(runs[n]["losses"]) for n in names)
        diff = np.abs(a - b)
        early = diff[:25].max()
        print("loss difference: first 25 steps %.1e, all %d steps %.1e (%.2f%% of XLA's loss at most)"
              % (early, args.steps, diff.max(), 100 * (diff / np.maximum(b, 1e-6)).max()))
        print("speed openpjrt / XLA:CPU = %.2fx, compile %.1fx faster"
              % (runs["openpjrt"]["steps_per_s"] / runs["XLA:CPU"]["steps_per_s"],
                 runs["XLA:CPU"]["compile_s"] / runs["openpjrt"]["compile_s"]))
        if not (early <= 1e-4 and np.all(diff <= 0.05 * np.abs(b) + 2e-3)):
            print("FAIL: the loss curves differ", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
