#!/usr/bin/env python3
"""Writes mlp_train_step.mlir: one SGD step of a two-layer MLP (ReLU, mean squared error) in
StableHLO, plus @main, which makes synthetic data and runs STEPS steps in a stablehlo.while loop.
With --step-only it writes mlp_step.mlir instead: the SGD step alone as @main, for a host loop
(examples/train_mlp.cc) that keeps the parameters on the device between steps.

    python3 examples/gen_mlp.py [--batch 64] [--in 32] [--hidden 64] [--out 8] [--steps 200]
    python3 examples/gen_mlp.py --step-only -o examples/mlp_step.mlir
"""
import argparse

ap = argparse.ArgumentParser()
ap.add_argument("--batch", type=int, default=64)
ap.add_argument("--in", dest="din", type=int, default=32)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--out", type=int, default=8)
ap.add_argument("--steps", type=int, default=200)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--step-only", action="store_true")
ap.add_argument("-o", default=None)
a = ap.parse_args()
B, D, H, O = a.batch, a.din, a.hidden, a.out

T = lambda *s: "tensor<" + "".join(f"{d}x" for d in s) + "f32>"
X, Y, W1, B1, W2, B2, HH, OO = T(B, D), T(B, O), T(D, H), T(H), T(H, O), T(O), T(B, H), T(B, O)
S = T()

step = f"""
  // One SGD step. Returns the new parameters and the loss before the update.
  func.func public @train_step(%w1: {W1}, %b1: {B1}, %w2: {W2}, %b2: {B2}, %x: {X}, %y: {Y}) -> ({W1}, {B1}, {W2}, {B2}, {S}) {{
    // Forward.
    %xw = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : ({X}, {W1}) -> {HH}
    %b1b = stablehlo.broadcast_in_dim %b1, dims = [1] : ({B1}) -> {HH}
    %pre = stablehlo.add %xw, %b1b : {HH}
    %zero = stablehlo.constant dense<0.0> : {HH}
    %h = stablehlo.maximum %pre, %zero : {HH}
    %hw = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : ({HH}, {W2}) -> {OO}
    %b2b = stablehlo.broadcast_in_dim %b2, dims = [1] : ({B2}) -> {OO}
    %out = stablehlo.add %hw, %b2b : {OO}
    // Loss: mean((out - y)^2).
    %diff = stablehlo.subtract %out, %y : {OO}
    %sq = stablehlo.multiply %diff, %diff : {OO}
    %c0 = stablehlo.constant dense<0.0> : {S}
    %sum = stablehlo.reduce(%sq init: %c0) applies stablehlo.add across dimensions = [0, 1] : ({OO}, {S}) -> {S}
    %n = stablehlo.constant dense<{float(B * O)}> : {S}
    %loss = stablehlo.divide %sum, %n : {S}
    // Backward.
    %scale = stablehlo.constant dense<{2.0 / (B * O)}> : {OO}
    %dout = stablehlo.multiply %diff, %scale : {OO}
    %dw2 = stablehlo.dot_general %h, %dout, contracting_dims = [0] x [0] : ({HH}, {OO}) -> {W2}
    %db2 = stablehlo.reduce(%dout init: %c0) applies stablehlo.add across dimensions = [0] : ({OO}, {S}) -> {B2}
    %dh = stablehlo.dot_general %dout, %w2, contracting_dims = [1] x [1] : ({OO}, {W2}) -> {HH}
    %active = stablehlo.compare GT, %pre, %zero, FLOAT : ({HH}, {HH}) -> tensor<{B}x{H}xi1>
    %dpre = stablehlo.select %active, %dh, %zero : tensor<{B}x{H}xi1>, {HH}
    %dw1 = stablehlo.dot_general %x, %dpre, contracting_dims = [0] x [0] : ({X}, {HH}) -> {W1}
    %db1 = stablehlo.reduce(%dpre init: %c0) applies stablehlo.add across dimensions = [0] : ({HH}, {S}) -> {B1}
    // Update.
    %lr = stablehlo.constant dense<{a.lr}> : {S}
    %lr_w1 = stablehlo.broadcast_in_dim %lr, dims = [] : ({S}) -> {W1}
    %lr_b1 = stablehlo.broadcast_in_dim %lr, dims = [] : ({S}) -> {B1}
    %lr_w2 = stablehlo.broadcast_in_dim %lr, dims = [] : ({S}) -> {W2}
    %lr_b2 = stablehlo.broadcast_in_dim %lr, dims = [] : ({S}) -> {B2}
    %gw1 = stablehlo.multiply %dw1, %lr_w1 : {W1}
    %gb1 = stablehlo.multiply %db1, %lr_b1 : {B1}
    %gw2 = stablehlo.multiply %dw2, %lr_w2 : {W2}
    %gb2 = stablehlo.multiply %db2, %lr_b2 : {B2}
    %nw1 = stablehlo.subtract %w1, %gw1 : {W1}
    %nb1 = stablehlo.subtract %b1, %gb1 : {B1}
    %nw2 = stablehlo.subtract %w2, %gw2 : {W2}
    %nb2 = stablehlo.subtract %b2, %gb2 : {B2}
    return %nw1, %nb1, %nw2, %nb2, %loss : {W1}, {B1}, {W2}, {B2}, {S}
  }}
"""


def pseudo_random(name, shape, seed, scale):
    """Deterministic values in [-scale, scale) from iota and sine: no RNG op needed."""
    t = T(*shape)
    n = 1
    for d in shape:
        n *= d
    return f"""    %{name}_i = stablehlo.iota dim = 0 : {T(n)}
    %{name}_k = stablehlo.constant dense<{seed}> : {T(n)}
    %{name}_a = stablehlo.multiply %{name}_i, %{name}_k : {T(n)}
    %{name}_s = stablehlo.sine %{name}_a : {T(n)}
    %{name}_c = stablehlo.constant dense<{scale}> : {T(n)}
    %{name}_f = stablehlo.multiply %{name}_s, %{name}_c : {T(n)}
    %{name} = stablehlo.reshape %{name}_f : ({T(n)}) -> {t}
"""


main = f"""
  // Synthetic regression data (targets from a fixed random teacher), small random weights, then
  // {a.steps} training steps. Returns the first and the last loss.
  func.func public @main() -> ({S}, {S}) {{
{pseudo_random("x", (B, D), 12.9898, 1.0)}{pseudo_random("teacher", (D, O), 78.233, 0.5)}{pseudo_random("w1", (D, H), 37.719, 0.2)}{pseudo_random("w2", (H, O), 4.581, 0.2)}    %y = stablehlo.dot_general %x, %teacher, contracting_dims = [1] x [0] : ({X}, {T(D, O)}) -> {Y}
    %b1 = stablehlo.constant dense<0.0> : {B1}
    %b2 = stablehlo.constant dense<0.0> : {B2}
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %steps = stablehlo.constant dense<{a.steps}> : tensor<i64>
    %nan = stablehlo.constant dense<0.0> : {S}
    %first:5 = call @train_step(%w1, %b1, %w2, %b2, %x, %y) : ({W1}, {B1}, {W2}, {B2}, {X}, {Y}) -> ({W1}, {B1}, {W2}, {B2}, {S})
    %r:6 = stablehlo.while(%i = %one, %p1 = %first#0, %q1 = %first#1, %p2 = %first#2, %q2 = %first#3, %l = %first#4) : tensor<i64>, {W1}, {B1}, {W2}, {B2}, {S}
      cond {{
        %more = stablehlo.compare LT, %i, %steps, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %more : tensor<i1>
      }} do {{
        %s:5 = call @train_step(%p1, %q1, %p2, %q2, %x, %y) : ({W1}, {B1}, {W2}, {B2}, {X}, {Y}) -> ({W1}, {B1}, {W2}, {B2}, {S})
        %next = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %next, %s#0, %s#1, %s#2, %s#3, %s#4 : tensor<i64>, {W1}, {B1}, {W2}, {B2}, {S}
      }}
    return %first#4, %r#5 : {S}, {S}
  }}
"""

if a.step_only:
    text = (f"// Generated by examples/gen_mlp.py --step-only --batch {B} --in {D} --hidden {H} --out {O} "
            f"--lr {a.lr}\nmodule @mlp_step {{{step.replace('@train_step', '@main')}}}\n")
else:
    text = (f"// Generated by examples/gen_mlp.py --batch {B} --in {D} --hidden {H} --out {O} "
            f"--steps {a.steps} --lr {a.lr}\nmodule @mlp_train attributes {{mhlo.num_partitions = 1 : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{{step}{main}}}\n")
if a.o:
    open(a.o, "w").write(text)
else:
    print(text, end="")
