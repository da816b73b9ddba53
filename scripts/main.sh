#!/usr/bin/env bash
# The main job: builds openpjrt and trains the example MLP (examples/mlp_train_step.mlir, 200 SGD
# steps in a stablehlo.while loop) on the CPU executor, printing the first and the last loss and
# the time; then reports how fast the front end reads large programs.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$(nproc)" openpjrt parse_bench pjrt_c_api_cpu_plugin hello_pjrt
echo "== a StableHLO program through the PJRT C API: dlopen the plugin, compile, execute"
build/bin/hello_pjrt build/lib/pjrt_c_api_cpu_plugin.so
echo "== openpjrt run --print examples/mlp_train_step.mlir (results: first loss, last loss)"
build/bin/openpjrt run --print examples/mlp_train_step.mlir
echo "== front-end speed"
build/bin/parse_bench
