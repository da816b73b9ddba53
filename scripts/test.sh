#!/usr/bin/env bash
# Builds and runs every test: the release build, the AddressSanitizer + UndefinedBehaviorSanitizer
# build, ThreadSanitizer multi-device runs, and bounded libFuzzer runs of the front end and the
# whole pipeline. Usage: scripts/test.sh [--quick]
#   --quick  only the release build's tests (what a developer runs between edits)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
quick=0
[ "${1:-}" = "--quick" ] && quick=1

# The compiler cache is shared between build folders (the release build and the wheel's
# build/wheel compile the same sources with the same flags): without this, ccache keys every
# compilation with -g on its working directory.
export CCACHE_NOHASHDIR=true

echo "== release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
[ $quick = 1 ] && exit 0

echo "== the README's main job (scripts/main.sh)"
scripts/main.sh

echo "== JAX on openpjrt against XLA:CPU in one process (tests/jax)"
[ -x .venv/bin/python ] || scripts/install-python-deps.sh
PYTHONPATH=build/python .venv/bin/python -m pytest -q -p no:cacheprovider tests/jax

echo "== pip install . (the wheel: one plugin file that JAX finds through the entry point)"
tests/jax/wheel_test.sh .venv/bin/python

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DOPENPJRT_SANITIZE="address;undefined" \
  -DOPENPJRT_BUILD_BENCH=OFF >/dev/null
ninja -C build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== ThreadSanitizer: multi-device execution and the plugin's concurrency and lifetime tests"
# Unoptimised: these runs are small, and -O0 builds in a fraction of the time.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DOPENPJRT_SANITIZE=thread \
  -DOPENPJRT_BUILD_TESTS=ON -DOPENPJRT_BUILD_BENCH=OFF >/dev/null
tsan_targets=(openpjrt capi_tests pjrt_c_api_cpu_plugin runtime_unit_tests)
[ -f build-tsan/build.ninja ] && grep -q "distributed_tests" build-tsan/build.ninja && tsan_targets+=(distributed_tests openpjrt_gloo)
ninja -C build-tsan -j"$jobs" "${tsan_targets[@]}"
TSAN_OPTIONS=halt_on_error=1 PJRT_PLUGIN=build-tsan/lib/pjrt_c_api_cpu_plugin.so build-tsan/bin/capi_tests
# Clients spanning processes: the hub's swap with the other processes, the Gloo mesh's threads.
if [ -x build-tsan/bin/distributed_tests ]; then
  TSAN_OPTIONS=halt_on_error=1 PJRT_PLUGIN=build-tsan/lib/pjrt_c_api_cpu_plugin.so OPENPJRT_GLOO_HOSTNAME=127.0.0.1 \
    build-tsan/bin/distributed_tests
fi
# The pool's intra-op loop handing a piece's exception to its caller.
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/runtime_unit_tests --gtest_filter='PoolParallelTest.*:LaunchTest.*'
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file tests/e2e/collectives.mlir
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file tests/e2e/run_parallel.mlir
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --replicas 4 examples/mlp_train_step.mlir
# Region ops through the plugin, whose pool splits large window reductions over its threads.
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file \
  --plugin build-tsan/lib/pjrt_c_api_cpu_plugin.so tests/e2e/region_reductions.mlir
# The typed pooling, cumulative, argmax and sort loops, split over the same threads.
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file \
  --plugin build-tsan/lib/pjrt_c_api_cpu_plugin.so tests/e2e/pooling.mlir
# Winograd convolutions: the kernel's transform and the finiteness check shared out in units,
# then blocks of tiles taken by whichever thread is free.
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file \
  --plugin build-tsan/lib/pjrt_c_api_cpu_plugin.so tests/e2e/winograd.mlir
# Batches of matrices (the LAPACK calls, cholesky, triangular_solve) shared out over the threads.
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file \
  --plugin build-tsan/lib/pjrt_c_api_cpu_plugin.so tests/e2e/lapack_blocked.mlir
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file \
  --plugin build-tsan/lib/pjrt_c_api_cpu_plugin.so tests/e2e/linalg.mlir
TSAN_OPTIONS=halt_on_error=1 build-tsan/bin/openpjrt run --split-input-file \
  --plugin build-tsan/lib/pjrt_c_api_cpu_plugin.so tests/e2e/lapack_svd.mlir

echo "== fuzzers (libFuzzer, ASan + UBSan): the parser, parse + compile + execute, portable artifacts, HloModuleProtos"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENPJRT_FUZZ=ON -DOPENPJRT_BUILD_TESTS=OFF \
  -DOPENPJRT_BUILD_BENCH=OFF >/dev/null
ninja -C build-fuzz -j"$jobs" parse_fuzzer exec_fuzzer bytecode_fuzzer hlo_fuzzer
# Fixed seeds and run counts keep CI deterministic; OPENPJRT_FUZZ_SECONDS=N explores instead.
tests/fuzz/run_fuzzer.sh build-fuzz/bin/parse_fuzzer "${OPENPJRT_FUZZ_SECONDS:-runs:250000}"
tests/fuzz/run_fuzzer.sh build-fuzz/bin/exec_fuzzer "${OPENPJRT_FUZZ_SECONDS:-runs:120000}"
tests/fuzz/run_fuzzer.sh build-fuzz/bin/bytecode_fuzzer "${OPENPJRT_FUZZ_SECONDS:-runs:20000}"
tests/fuzz/run_fuzzer.sh build-fuzz/bin/hlo_fuzzer "${OPENPJRT_FUZZ_SECONDS:-runs:50000}"
