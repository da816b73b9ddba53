#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the fuzzer need. Safe to run twice.
set -euo pipefail
pkgs=(cmake ninja-build g++ ccache clang libclang-rt-14-dev
      libabsl-dev libprotobuf-dev protobuf-compiler libeigen3-dev
      libgtest-dev libgmock-dev libbenchmark-dev libgloo-dev
      pybind11-dev python3-dev python3-numpy python3-pytest)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The JAX environment (.venv: jax/jaxlib 0.11.0, flax, optax, scikit-learn, pytest) for the main
# job and the differential tests against XLA:CPU.
"$(dirname "$0")/install-python-deps.sh"
