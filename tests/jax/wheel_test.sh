#!/usr/bin/env bash
# `pip install .` as a user does it: builds the wheel (scikit-build-core driving CMake in
# build/wheel, see pyproject.toml), installs it into an empty folder, and checks that
#  - the wheel's plugin is one file alone in jax_plugins/openpjrt_cpu (no libraries beside it
#    but libopenpjrt_gloo.so, which only multi-process clients load), and its size is printed
#    (issue 42 asks for < 10 MiB stripped; today ~15.3 MiB: the test fails past 20 MiB, a growth guard);
#  - JAX, with only that folder added to its path, finds the plugin through the wheel's
#    jax_plugins entry point and runs a jitted function on it (JAX_PLATFORMS selects it by name);
#  - the openpjrt package of the wheel runs a program.
# Usage: tests/jax/wheel_test.sh PYTHON (a Python with jax, e.g. .venv/bin/python)
set -euo pipefail
python=$(realpath -s "$1")  # absolute: the check below runs from an empty folder
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The compilers the release build uses (c++, not the g++ Python's sysconfig names), so that ccache
# finds the release build's objects (scripts/test.sh exports CCACHE_NOHASHDIR).
CC=${CC:-cc} CXX=${CXX:-c++} "$python" -m pip wheel --quiet --no-deps -w "$tmp/dist" . >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; exit 1; }
wheel=$(ls "$tmp"/dist/openpjrt-*.whl)
"$python" -m pip install --quiet --no-deps --target "$tmp/site" "$wheel"
plugin_dir=$tmp/site/jax_plugins/openpjrt_cpu
extra=$(cd "$plugin_dir" && ls | grep -v -x -e pjrt_c_api_cpu_plugin.so -e libopenpjrt_gloo.so -e __init__.py -e __pycache__ -e '_ffi.py' || true)
if [ -n "$extra" ]; then echo "FAIL: beside the plugin in the wheel: $extra"; exit 1; fi
size=$(stat -c %s "$plugin_dir/pjrt_c_api_cpu_plugin.so")
echo "wheel $(basename "$wheel"): plugin $size bytes"
if [ "$size" -ge $((20 * 1024 * 1024)) ]; then echo "FAIL: the wheel's plugin grew to $size bytes (guard: 20 MiB)"; exit 1; fi
cd "$tmp"  # nothing of the source tree on the path
env -u OPENPJRT_PLUGIN_PATH PYTHONPATH="$tmp/site" JAX_PLATFORMS=openpjrt_cpu "$python" - <<'PY'
import jax, jax.numpy as jnp, numpy as np
import jax_plugins.openpjrt_cpu as entry
assert entry.library_path().startswith(__import__("os").environ["PYTHONPATH"]), entry.library_path()
dev = jax.devices()[0]
# JAX names the platform "cpu" (the plugin's platform name); the client is ours.
assert "openpjrt" in dev.client.platform_version, dev.client.platform_version
x = jnp.arange(12.0).reshape(3, 4)
y = jax.jit(lambda a: jnp.tanh(a) @ a.T + 1)(x)
want = np.tanh(np.arange(12.0).reshape(3, 4)) @ np.arange(12.0).reshape(3, 4).T + 1
np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6)
import openpjrt
print("jax", jax.__version__, "on", dev.client.platform_version.splitlines()[-1], "ok; openpjrt package from", openpjrt.__file__)
PY
