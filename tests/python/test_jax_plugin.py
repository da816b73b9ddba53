"""The jax_plugins/openpjrt_cpu package's registration, against a stand-in for JAX's registration
function under Debian's python3 (which has no JAX; tests/jax runs the real JAX in .venv)."""

import ctypes
import importlib
import os
import sys
import types

import pytest


@pytest.fixture
def fake_jax(monkeypatch):
    calls = []
    jax = types.ModuleType("jax")
    src = types.ModuleType("jax._src")
    bridge = types.ModuleType("jax._src.xla_bridge")

    def register_plugin(name, *, priority=400, library_path=None, options=None, c_api=None):
        calls.append(dict(name=name, priority=priority, library_path=library_path, options=options))

    bridge.register_plugin = register_plugin
    jax._src = src
    src.xla_bridge = bridge
    for name, mod in (("jax", jax), ("jax._src", src), ("jax._src.xla_bridge", bridge)):
        monkeypatch.setitem(sys.modules, name, mod)
    return calls


def load_plugin_module():
    sys.modules.pop("jax_plugins.openpjrt_cpu", None)
    return importlib.import_module("jax_plugins.openpjrt_cpu")


def test_initialize_registers_a_loadable_plugin(fake_jax, monkeypatch):
    monkeypatch.delenv("OPENPJRT_PLUGIN_PATH", raising=False)
    monkeypatch.delenv("OPENPJRT_CPU_DEVICE_COUNT", raising=False)
    plugin = load_plugin_module()
    plugin.initialize()
    assert len(fake_jax) == 1
    call = fake_jax[0]
    assert call["name"] == "openpjrt_cpu"
    assert call["options"] is None
    assert os.path.basename(call["library_path"]) == "pjrt_c_api_cpu_plugin.so"
    lib = ctypes.CDLL(call["library_path"])
    assert lib.GetPjrtApi  # the one exported symbol


def test_device_count_option_and_explicit_path(fake_jax, monkeypatch):
    real = load_plugin_module().library_path()
    monkeypatch.setenv("OPENPJRT_PLUGIN_PATH", real)
    monkeypatch.setenv("OPENPJRT_CPU_DEVICE_COUNT", "8")
    plugin = load_plugin_module()
    plugin.initialize()
    assert fake_jax[-1]["library_path"] == real
    assert fake_jax[-1]["options"] == {"cpu_device_count": 8}


def test_missing_library_names_where_it_looked(fake_jax, monkeypatch, tmp_path):
    plugin = load_plugin_module()
    monkeypatch.setenv("OPENPJRT_PLUGIN_PATH", str(tmp_path / "nope.so"))
    monkeypatch.setattr(plugin, "LIBRARY_NAME", "definitely_missing.so")
    with pytest.raises(FileNotFoundError, match="nope.so"):
        plugin.initialize()
    assert fake_jax == []
