#!/bin/bash
# Our CPU plugin under the GPU machine's JAX (another JAX and Python than CI's) on its many
# cores: a smoke test, the JAX differential suite (tests/jax), the XLA:CPU table at 1..16 threads,
# and the transformer step's thread scaling with a per-step profile. Needs the stripped plugin and
# CLI in .devcheck/ and the transformer program with its inputs in .devcheck/tf/ (README.md here
# says how to make them). Writes its findings under $OUT.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
P=/tmp/py/jax_plugins/openpjrt_cpu; mkdir -p $P
cp python/jax_plugins/openpjrt_cpu/*.py $P/ && cp .devcheck/pjrt_c_api_cpu_plugin.so $P/
export PYTHONPATH=/tmp/py OPENPJRT_PLUGIN=$PWD/.devcheck/pjrt_c_api_cpu_plugin.so
{ nproc; lscpu | grep -o "avx512[a-z_]*\|avx2\|amx[a-z_]*" | sort -u | tr '\n' ' '; echo
  python3 -c 'import jax,sys;print(jax.__version__,sys.version)'; } > "$OUT/env.txt" 2>&1
JAX_PLATFORMS=cpu,openpjrt_cpu timeout 60 python3 -c '
import jax, jax.numpy as jnp, numpy as np
d = jax.devices("openpjrt_cpu"); print(d, d[0].client.platform_version)
x = np.arange(12, dtype=np.float32).reshape(3, 4)
f = jax.jit(lambda a: jnp.tanh(a) @ a.T)
print(np.abs(np.asarray(f(jax.device_put(x, d[0]))) - np.asarray(f(jax.device_put(x, jax.devices("cpu")[0])))).max())
' > "$OUT/smoke.txt" 2>&1; echo "smoke rc=$?" >> "$OUT/smoke.txt"
if python3 -m pytest --version >/dev/null 2>&1; then
  PYTHONPATH=/tmp/py:tests/jax timeout 170 python3 -m pytest -q -p no:cacheprovider -rfE tests/jax \
    --ignore=tests/jax/test_multiprocess.py > "$OUT/pytest.txt" 2>&1; echo "pytest rc=$?" >> "$OUT/pytest.txt"
fi
IN=$(for i in 0 1 2 3 4 5 6; do echo -n "--input $i=.devcheck/tf/a$i.npy "; done)
for t in 1 2 4 8 16; do
  echo "threads $t: $(taskset -c 0-$((t-1)) .devcheck/openpjrt bench .devcheck/tf/tf.mlir --plugin "$OPENPJRT_PLUGIN" \
    --threads $t --iters 30 $IN 2>&1 | tail -1)"
done > "$OUT/tf_threads.txt" 2>&1
for t in 1 4; do
  OPENPJRT_PROFILE=1 taskset -c 0-$((t-1)) .devcheck/openpjrt bench .devcheck/tf/tf.mlir --plugin "$OPENPJRT_PLUGIN" \
    --threads $t --iters 10 $IN 2>&1 | head -24 > "$OUT/tf_profile_$t.txt"
done
timeout 300 python3 bench/jax_vs_xla.py --threads 1,2,4,8,16 --rounds 2 > "$OUT/bench.txt" 2>&1
echo "bench rc=$?" >> "$OUT/bench.txt"
