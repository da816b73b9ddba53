#!/usr/bin/env bash
# The main job: builds openpjrt, runs the front end on the example MLP training step and reports
# how fast the parser reads large programs. (Execution through the plugin arrives with the
# executor; until then this exercises parse -> verify -> print.)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$(nproc)" openpjrt parse_bench
echo "== openpjrt opt examples/mlp_train_step.mlir"
build/bin/openpjrt opt examples/mlp_train_step.mlir
echo "== parser speed"
build/bin/parse_bench
