"""The main job's model, shortened: a flax CNN trained with optax on scikit-learn's digits through
openpjrt and XLA:CPU; the loss curves agree step by step (examples/train_digits_jax.py)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_digits_cnn_loss_curve_matches_xla():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "train_digits_jax.py"), "--steps", "60",
                          "--every", "20"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "test accuracy" in out.stdout
    lines = [l for l in out.stdout.splitlines() if l.strip().startswith("59 ")]
    ours, xla = (float(v) for v in lines[0].split()[1:])
    assert ours < 0.5 and abs(ours - xla) <= 0.05 * xla + 2e-3
