#!/usr/bin/env bash
# The main job: builds openpjrt and trains the example MLP through the PJRT plugin with the C++
# client library (examples/train_mlp.cc: the SGD step of examples/mlp_step.mlir compiled once,
# parameters kept on the device, 200 steps), printing the loss as it falls and the steps/second;
# then the same from Python, a plain-C client of the plugin, and the front end's speed.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$(nproc)" openpjrt parse_bench pjrt_c_api_cpu_plugin hello_pjrt train_mlp
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
