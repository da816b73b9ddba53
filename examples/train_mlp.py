#!/usr/bin/env python3
"""Trains the example MLP from Python through the openpjrt package: the SGD step
(examples/mlp_step.mlir) is compiled once; parameters stay on the device between steps.

    PYTHONPATH=build/python python3 examples/train_mlp.py [--steps N]
"""
import argparse
import pathlib
import time

import numpy as np

import openpjrt

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=200)
ap.add_argument("--program", default=str(pathlib.Path(__file__).parent / "mlp_step.mlir"))
args = ap.parse_args()

B, D, H, O = 64, 32, 64, 8


def pseudo_random(n, seed, scale):
    return (np.sin(np.arange(n, dtype=np.float32) * np.float32(seed)) * np.float32(scale)).astype(np.float32)


x = pseudo_random(B * D, 12.9898, 1.0).reshape(B, D)
y = x @ pseudo_random(D * O, 78.233, 0.5).reshape(D, O)
c = openpjrt.client()
step = c.compile(pathlib.Path(args.program).read_text())
params = [c.device_put(p) for p in (pseudo_random(D * H, 37.719, 0.2).reshape(D, H), np.zeros(H, np.float32),
                                    pseudo_random(H * O, 4.581, 0.2).reshape(H, O), np.zeros(O, np.float32))]
data = [c.device_put(x), c.device_put(y)]
losses = []
start = time.perf_counter()
for i in range(args.steps):
    *params, loss = step(*params, *data)
    if i % 20 == 0 or i == args.steps - 1:
        losses.append(float(np.asarray(loss)))
        print(f"step {i:4d}  loss {losses[-1]:.6f}")
for p in params:
    p.block_until_ready()
secs = time.perf_counter() - start
print(f"{args.steps} steps in {secs:.3f} s: {args.steps / secs:.0f} steps/s")
assert losses[-1] < losses[0], "the loss did not fall"
