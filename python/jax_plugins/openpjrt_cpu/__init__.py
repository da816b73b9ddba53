"""JAX plugin entry for openpjrt's CPU PJRT plugin.

JAX imports every module of the ``jax_plugins`` namespace package it finds on ``sys.path`` and
calls its ``initialize()``. This one registers ``pjrt_c_api_cpu_plugin.so`` under the backend
name ``openpjrt_cpu``; select it with ``JAX_PLATFORMS=openpjrt_cpu``.

The plugin library is looked up, in order, at ``$OPENPJRT_PLUGIN_PATH``, beside this file, and in
the build tree this package was copied into (``build/python`` -> ``build/lib``).
``$OPENPJRT_CPU_DEVICE_COUNT``, ``$OPENPJRT_INTRA_OP_THREADS``, ``$OPENPJRT_MEMORY_LIMIT_BYTES``
and ``$OPENPJRT_FLUSH_DENORMALS`` (``0`` keeps IEEE subnormals; by default they are flushed to
zero, as XLA:CPU does) set the client's ``cpu_device_count``, ``intra_op_threads``,
``memory_limit_bytes`` and ``flush_denormals`` create options.

Typed FFI targets registered with ``jax.ffi.register_ffi_target(..., platform="cpu")`` reach the
plugin (and XLA's CPU backend) through ``_ffi``.
"""

import os
import pathlib

PLUGIN_NAME = "openpjrt_cpu"
LIBRARY_NAME = "pjrt_c_api_cpu_plugin.so"


def library_path():
    """Returns the path of the plugin library, or raises FileNotFoundError naming where it looked."""
    here = pathlib.Path(__file__).resolve().parent
    candidates = []
    env = os.environ.get("OPENPJRT_PLUGIN_PATH")
    if env:
        candidates.append(pathlib.Path(env))
    candidates.append(here / LIBRARY_NAME)
    candidates.append(here.parent.parent.parent / "lib" / LIBRARY_NAME)
    for path in candidates:
        if path.is_file():
            return str(path)
    raise FileNotFoundError(
        "openpjrt: %s not found; looked at %s (set OPENPJRT_PLUGIN_PATH)"
        % (LIBRARY_NAME, ", ".join(str(p) for p in candidates)))


def create_options():
    """The PJRT client create options this package passes to the plugin."""
    options = {}
    count = os.environ.get("OPENPJRT_CPU_DEVICE_COUNT")
    if count:
        options["cpu_device_count"] = int(count)
    threads = os.environ.get("OPENPJRT_INTRA_OP_THREADS")
    if threads:
        options["intra_op_threads"] = int(threads)
    limit = os.environ.get("OPENPJRT_MEMORY_LIMIT_BYTES")
    if limit:
        options["memory_limit_bytes"] = int(float(limit))
    flush = os.environ.get("OPENPJRT_FLUSH_DENORMALS")
    if flush:
        if flush.lower() not in ("0", "1", "true", "false"):
            raise ValueError("OPENPJRT_FLUSH_DENORMALS must be 0, 1, true or false, got %r" % flush)
        options["flush_denormals"] = flush.lower() in ("1", "true")
    return options


def initialize():
    """Called by JAX at start-up: registers the plugin as the ``openpjrt_cpu`` backend."""
    from jax._src import xla_bridge  # imported here: JAX calls us while it initialises

    path = library_path()
    xla_bridge.register_plugin(PLUGIN_NAME, library_path=path, options=create_options() or None)
    try:
        from . import _ffi
        _ffi.install(path, PLUGIN_NAME)
    except ImportError:  # a JAX without jaxlib.xla_client's handler registry: no jax.ffi targets
        pass
