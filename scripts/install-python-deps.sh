#!/usr/bin/env bash
# Creates the virtual environment .venv with the JAX test environment (python/requirements-jax.txt:
# jax/jaxlib 0.11.0, flax, optax, ml_dtypes, scikit-learn, pytest, all pinned). jax 0.11 needs
# Python >= 3.12, which Debian 12 does not package: the first python3.12 / python3.13 found on
# PATH or under pyenv's versions is used. Safe to run twice; a complete .venv is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
req=python/requirements-jax.txt
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
  exit 0
fi
py=""
for cand in python3.12 python3.13 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3 \
            "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3; do
  if command -v "$cand" >/dev/null 2>&1 || [ -x "$cand" ]; then
    if "$cand" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
      py="$cand"; break
    fi
  fi
done
if [ -z "$py" ]; then
  echo "install-python-deps: no Python >= 3.12 found (jax 0.11 needs one); looked for python3.12," \
       "python3.13 and pyenv's versions" >&2
  exit 1
fi
echo "install-python-deps: $("$py" --version) at $py -> $venv"
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
