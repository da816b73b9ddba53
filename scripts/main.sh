#!/usr/bin/env bash
# The main job: builds openpjrt, then trains a flax CNN with optax on scikit-learn's digits through
# JAX on the plugin and on XLA:CPU side by side (examples/train_digits_jax.py), printing both loss
# curves, test accuracy and steps/second; then the example MLP through the C++ client library
# (examples/train_mlp.cc), the same from Python, a plain-C client of the plugin, and the front
# end's speed.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$(nproc)" openpjrt parse_bench pjrt_c_api_cpu_plugin hello_pjrt train_mlp python_package
[ -x .venv/bin/python ] || scripts/install-python-deps.sh
echo "== JAX on openpjrt and on XLA:CPU: a CNN trained on scikit-learn's digits (flax + optax)"
PYTHONPATH=build/python .venv/bin/python examples/train_digits_jax.py
echo "== train the MLP through the plugin (C++ client library)"
build/bin/train_mlp --plugin build/lib/pjrt_c_api_cpu_plugin.so examples/mlp_step.mlir
if [ -x /usr/bin/python3 ] && ninja -C build _openpjrt python_package >/dev/null 2>&1; then
  echo "== the same from Python (the openpjrt package)"
  PYTHONPATH=build/python /usr/bin/python3 examples/train_mlp.py | tail -2
fi
echo "== a StableHLO program through the PJRT C API from plain C: dlopen, compile, execute"
build/bin/hello_pjrt build/lib/pjrt_c_api_cpu_plugin.so
echo "== front-end speed (text and portable artifacts)"
build/bin/parse_bench
