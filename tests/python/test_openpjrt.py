"""The openpjrt Python package against the CPU plugin of this build."""

import os
import pathlib

import numpy as np
import pytest

import openpjrt

TESTDATA = pathlib.Path(os.environ.get("OPJ_VHLO_TESTDATA", "/nonexistent"))

SUM_AND_TOTAL = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %s = stablehlo.add %x, %y : tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %s, %r : tensor<4xf32>, tensor<f32>
}"""


@pytest.fixture(scope="module")
def c():
    return openpjrt.client()


def identity(t):
    return f"func.func @main(%x: {t}) -> {t} {{\n  return %x : {t}\n}}"


def test_client_devices_and_versions(c):
    devs = c.devices()
    assert len(devs) == 4 and devs[2].id == 2
    assert devs[0].kind == "cpu" and devs[0].default_memory == "device"
    assert set(devs[0].memories) == {"device", "pinned_host", "unpinned_host"}
    assert c.api_version == (0, 114)
    assert c.platform_name == "cpu"
    assert c.plugin_path.endswith("pjrt_c_api_cpu_plugin.so")
    assert len(openpjrt.client(cpu_device_count=8).devices()) == 8


def test_call_returns_arrays_and_tuples(c):
    exe = c.compile(SUM_AND_TOTAL)
    assert exe.num_outputs == 2 and exe.name == "main"
    s, total = exe(np.ones(4, np.float32), np.arange(4, dtype=np.float32))
    assert isinstance(s, openpjrt.Array)
    np.testing.assert_array_equal(np.asarray(s), [1, 2, 3, 4])
    assert float(np.asarray(total)) == 10.0
    assert s.block_until_ready() is s and s.is_ready()
    assert s.shape == (4,) and s.dtype == np.float32 and s.device == 0 and s.ndim == 1
    # Arrays feed back in without a host copy; results live on device 0.
    s2, _ = exe(s, s)
    np.testing.assert_array_equal(np.asarray(s2), [2, 4, 6, 8])
    np.testing.assert_array_equal(np.from_dlpack(s2), [2, 4, 6, 8])
    assert s2.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.asarray(s2, dtype=np.int32), [2, 4, 6, 8])
    assert s2.size == 4 and s2.element_type == "f32" and repr(s2).startswith("Array([2., 4., 6., 8.]")
    # An Array on another device is copied to device 0 for the call; numpy arrays are uploaded.
    on1 = c.device_put(np.float32([1, 1, 1, 1]), device=1)
    s3, _ = exe(on1, np.full(4, 0.5, np.float32))
    assert s3.device == 0
    np.testing.assert_array_equal(np.asarray(s3), [1.5, 1.5, 1.5, 1.5])
    with pytest.raises(openpjrt.Error) as e:
        exe(s)  # one argument short
    assert e.value.code == "INVALID_ARGUMENT"


def test_array_type_lifetime_and_refusals(c):
    # Array is a plain extension type: not constructible from Python, weakly referenceable, and
    # the object goes with its last reference; a deleted Array reads as an error.
    import gc
    import weakref
    with pytest.raises(TypeError):
        openpjrt.Array()
    a = c.device_put(np.float32([1, 2]))
    r = weakref.ref(a)
    assert r() is a and a._buffer is a
    exe = c.compile(identity("tensor<2xf32>"))
    # pybind11 bindings take Arrays through the type's caster and refuse anything else.
    out = exe._execute([[a]], [], -1)
    assert isinstance(out[0][0], openpjrt.Array)
    np.testing.assert_array_equal(np.asarray(out[0][0]), [1, 2])
    with pytest.raises(TypeError):
        exe._execute([[np.float32([1, 2])]], [], -1)
    a.delete()
    with pytest.raises(openpjrt.Error) as e:
        a.numpy()
    assert e.value.code == "FAILED_PRECONDITION"
    del a, e  # (the exception's traceback holds a frame that holds the Array)
    gc.collect()
    assert r() is None


def test_a_value_returned_twice_comes_back_twice(c):
    # Results are moved out of the program's slots; a slot named twice in the return (and an
    # argument returned as is) must still reach every place.
    exe = c.compile("func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {\n"
                    "  %0 = stablehlo.add %x, %x : tensor<3xf32>\n"
                    "  return %0, %x, %0 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>\n}")
    a, x, b = exe(np.float32([1, 2, 3]))
    np.testing.assert_array_equal(np.asarray(a), [2, 4, 6])
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(b), [2, 4, 6])


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.float16, np.float32, np.float64,
                                   np.complex64, np.complex128])
def test_every_numpy_type_round_trips(c, dtype):
    x = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    element = openpjrt._TO_ELEMENT[np.dtype(dtype)]
    exe = c.compile(identity(f"tensor<2x3x{element}>"))
    y = np.asarray(exe(x))
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y, x)


def test_bfloat16_travels_as_raw_bits(c):
    exe = c.compile("""
func.func @main(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %0 = stablehlo.add %x, %x : tensor<3xbf16>
  return %0 : tensor<3xbf16>
}""")
    bits = np.array([0x3F80, 0x4000, 0xBF80], np.uint16)  # 1.0, 2.0, -1.0
    x = c.device_put(bits, element_type="bf16")
    assert x.element_type == "bf16"
    y = exe(x)
    np.testing.assert_array_equal(np.asarray(y), [0x4000, 0x4080, 0xC000])  # 2.0, 4.0, -2.0


def test_device_put_and_multi_device_execution(c):
    x = c.device_put(np.float32([1, 2]), device=c.devices()[1])
    assert x.device == 1
    exe = c.compile("""
module attributes {mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}}""", num_replicas=2)
    assert exe.num_devices == 2
    out = exe.execute([[np.float32([1, 2])], [x]])
    assert [o[0].device for o in out] == [0, 1]
    for dev in out:
        np.testing.assert_array_equal(np.asarray(dev[0]), [2, 4])
    # Non-contiguous input is copied to a dense layout first.
    t = np.arange(8, dtype=np.float32).reshape(2, 4)[:, ::2]
    np.testing.assert_array_equal(np.asarray(c.device_put(t)), t)


@pytest.mark.skipif(not TESTDATA.is_dir(), reason="OPJ_VHLO_TESTDATA not set")
def test_compile_accepts_a_portable_artifact(c):
    artifact = (TESTDATA / "vhlo_emit_version_api.1_1_0.mlir.bc").read_bytes()
    assert artifact[:4] == b"ML\xefR"
    y = c.compile(artifact)(np.float32(2.5))
    assert float(np.asarray(y)) == 5.0


def test_errors_are_openpjrt_errors_with_codes(c):
    with pytest.raises(openpjrt.Error) as e:
        c.compile("func.func @main() {\n  %0 = stablehlo.bogus : tensor<f32>\n}")
    assert e.value.code == "INVALID_ARGUMENT" and ":2:" in e.value.message
    exe = c.compile(SUM_AND_TOTAL)
    with pytest.raises(openpjrt.Error) as e:
        exe(np.ones(3, np.float32), np.ones(4, np.float32))
    assert e.value.code == "INVALID_ARGUMENT" and "argument #0" in e.value.message
    with pytest.raises(openpjrt.Error) as e:
        openpjrt.client(no_such_option=1)
    assert e.value.code == "INVALID_ARGUMENT" and "no_such_option" in e.value.message
    with pytest.raises(openpjrt.Error) as e:
        openpjrt.client(plugin="/nonexistent/plugin.so")
    assert e.value.code == "NOT_FOUND"
    with pytest.raises(openpjrt.Error):
        c.device_put(np.array(["a"]))  # no PJRT type for strings
    # A failing check fails the result, reported when it is read.
    bad = c.compile("""
func.func @main() -> tensor<f32> {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  check.expect_eq_const %0, dense<2.0> : tensor<f32>
  return %0 : tensor<f32>
}""")
    out = bad()
    with pytest.raises(openpjrt.Error) as e:
        np.asarray(out)
    assert e.value.code == "FAILED_PRECONDITION" and "check failed" in e.value.message
    # The same error from block_until_ready (a plain C method), and keyword arguments refused by
    # the call (the type's own call slot).
    with pytest.raises(openpjrt.Error) as e:
        bad().block_until_ready()
    assert e.value.code == "FAILED_PRECONDITION" and "check failed" in e.value.message
    with pytest.raises(openpjrt.Error) as e:
        exe(x=np.ones(4, np.float32))
    assert e.value.code == "INVALID_ARGUMENT" and "by position only" in e.value.message
    with pytest.raises(openpjrt.Error) as e:
        exe()
    assert e.value.code == "INVALID_ARGUMENT" and "takes 2" in e.value.message


def test_the_python_training_example_runs():
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "examples" / "train_mlp.py"), "--steps", "41"],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "steps/s" in r.stdout
