"""Differential tests of JAX on openpjrt against XLA:CPU (jaxlib's CPU backend), in one process.

Both backends are loaded side by side (JAX_PLATFORMS=cpu,openpjrt_cpu): `REF` is XLA's first CPU
device, `OURS` the plugin's. A test jits one function and runs it on each, with its arguments
placed on that backend's device, then compares the results: exactly where XLA's answer is exact
(integers, booleans, data movement), else to a tolerance stated in the test.

Run with the virtual environment of scripts/install-python-deps.sh, after a build:
    PYTHONPATH=build/python .venv/bin/python -m pytest tests/jax
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu,openpjrt_cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
os.environ.setdefault("OPENPJRT_CPU_DEVICE_COUNT", "4")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from jaxdiff import REF, OURS  # noqa: E402,F401


def pytest_report_header(config):
    return "jax %s; reference %s; plugin %s (%d devices)" % (
        jax.__version__, REF.client.platform_version.splitlines()[0] if REF.client.platform_version else "cpu",
        OURS.client.platform_version, len(jax.devices("openpjrt_cpu")))


@pytest.fixture
def rng():
    return np.random.default_rng(0)
