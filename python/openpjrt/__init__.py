"""openpjrt: run StableHLO on any PJRT plugin from Python, with numpy.

    import numpy as np, openpjrt
    c = openpjrt.client()                    # the CPU plugin of this build
    exe = c.compile(mlir_text_or_bytes)      # StableHLO text, or a portable artifact (bytes)
    exe = c.compile(proto_bytes, format="hlo")  # a serialized xla.HloModuleProto
    out = exe(np.ones(4, np.float32))        # an openpjrt.Array (a tuple for several results)
    np.asarray(out)

Every element type maps to numpy; bfloat16 and the f8/f6/f4 types have no numpy dtype, so
their arrays come back as raw bits (uint16 for bf16, uint8 for the narrow floats) and are passed
in with an explicit ``element_type``. Errors raise ``openpjrt.Error`` with the PJRT code.
"""

import os as _os
import pathlib as _pathlib

import numpy as _np

from . import _openpjrt

__all__ = ["Error", "client", "Client", "Array", "Executable", "Device"]


class Error(RuntimeError):
    """A PJRT error: ``code`` is the PJRT error code name (e.g. "INVALID_ARGUMENT")."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


_openpjrt._set_error_class(Error)

# numpy dtype <-> StableHLO element type. Types numpy lacks travel as raw bits.
_TO_ELEMENT = {
    _np.dtype(_np.bool_): "i1",
    _np.dtype(_np.int8): "i8", _np.dtype(_np.int16): "i16",
    _np.dtype(_np.int32): "i32", _np.dtype(_np.int64): "i64",
    _np.dtype(_np.uint8): "ui8", _np.dtype(_np.uint16): "ui16",
    _np.dtype(_np.uint32): "ui32", _np.dtype(_np.uint64): "ui64",
    _np.dtype(_np.float16): "f16", _np.dtype(_np.float32): "f32", _np.dtype(_np.float64): "f64",
    _np.dtype(_np.complex64): "complex<f32>", _np.dtype(_np.complex128): "complex<f64>",
}
_TO_DTYPE = {v: k for k, v in _TO_ELEMENT.items()}
_RAW_BITS = {"bf16": _np.dtype(_np.uint16)}


def _dtype_of(element_type):
    if element_type in _TO_DTYPE:
        return _TO_DTYPE[element_type]
    if element_type in _RAW_BITS:
        return _RAW_BITS[element_type]
    if _openpjrt.element_bytes(element_type) == 1:
        return _np.dtype(_np.uint8)  # f8/f6/f4 and sub-byte integers: one byte each
    raise Error("UNIMPLEMENTED", f"no numpy stand-in for element type {element_type}")


class Device:
    """A device of a client: ``id``, ``kind``, ``memories`` (kinds), ``default_memory``."""

    def __init__(self, info):
        self.id = info["id"]
        self.kind = info["kind"]
        self.process_index = info["process_index"]
        self.local_hardware_id = info["local_hardware_id"]
        self.memories = list(info["memories"])
        self.default_memory = info["default_memory"]
        self._debug = info["debug_string"]

    def __repr__(self):
        return f"Device(id={self.id}, kind={self.kind!r})"


# Arrays and executables are the extension's classes (so that a call and its result never run
# Python code); the numpy-facing methods are added here.
Array = _openpjrt.Array
Array.__doc__ = """An array on a device: ``shape``, ``element_type``, ``dtype``, ``device`` (id),
``ndim``, ``size``, ``block_until_ready()``, ``is_ready()``, ``delete()``. ``np.asarray(a)``
copies it to the host."""


def _array_dtype(self):
    return _dtype_of(self.element_type)


def _array_numpy(self):
    data = self.to_bytes()
    return _np.frombuffer(data, dtype=self.dtype).reshape(self.shape).copy()


def _array_array(self, dtype=None, copy=None):
    a = self.numpy()
    return a if dtype is None else a.astype(dtype)


def _array_dlpack(self, stream=None, **kwargs):
    # DLPack on the CPU, through a host copy (numpy implements the protocol).
    return self.numpy().__dlpack__()


def _array_repr(self):
    try:
        body = _np.array2string(self.numpy(), separator=", ")
    except Error as e:  # a failed computation: show why
        body = f"<error {e.code}>"
    return f"Array({body}, element_type={self.element_type}, device={self.device})"


Array.dtype = property(_array_dtype)
Array.numpy = _array_numpy
Array.__array__ = _array_array
Array.__dlpack__ = _array_dlpack
Array.__dlpack_device__ = lambda self: (1, 0)  # kDLCPU, device 0
Array.__repr__ = _array_repr

Executable = _openpjrt.Executable
Executable.__doc__ = """A compiled program (``name``, ``num_outputs``, ``num_devices``). Call it with
numpy arrays or Arrays (single device): one result comes back as an Array, several as a tuple;
or use ``execute`` with one argument list per device."""


def _executable_execute(self, args_per_device, non_donatable=(), execute_device=None):
    """Runs with ``args_per_device[d]`` on device ``d``; returns a list of Arrays per device."""
    bufs = []
    for d, args in enumerate(args_per_device):
        device = execute_device if execute_device is not None else d
        bufs.append([self._client._as_buffer(a, device) for a in args])
    return self._execute(bufs, list(non_donatable), -1 if execute_device is None else int(execute_device))


Executable._execute = Executable.execute
Executable.execute = _executable_execute


def default_plugin():
    """$OPENPJRT_PLUGIN, else the CPU plugin beside this package (in the build tree
    ``build/python/openpjrt`` -> ``build/lib``, copied into the package, or in the wheel's
    ``jax_plugins/openpjrt_cpu``), else "cpu"
    (looked up as pjrt_c_api_cpu_plugin.so in $PJRT_PLUGIN_LIBRARY_PATH)."""
    env = _os.environ.get("OPENPJRT_PLUGIN")
    if env:
        return env
    here = _pathlib.Path(__file__).resolve().parent
    for p in (here / "pjrt_c_api_cpu_plugin.so", here.parent.parent / "lib" / "pjrt_c_api_cpu_plugin.so",
              here.parent / "jax_plugins" / "openpjrt_cpu" / "pjrt_c_api_cpu_plugin.so"):
        if p.is_file():
            return str(p)
    return "cpu"


class Client:
    """A PJRT client over a plugin. ``options`` are the plugin's create options."""

    def __init__(self, plugin=None, **options):
        self._client = _openpjrt.Client(plugin or default_plugin(), options)

    @property
    def plugin_path(self):
        return self._client.plugin_path

    @property
    def api_version(self):
        return self._client.api_version

    @property
    def platform_name(self):
        return self._client.platform_name

    def devices(self):
        return [Device(d) for d in self._client.devices()]

    def compile(self, program, num_replicas=None, num_partitions=None, portable=False, format="mlir"):
        """Compiles a program: StableHLO as MLIR text (str) or a portable artifact (bytes) with
        format="mlir", a serialized xla.HloModuleProto (bytes) with format="hlo", or a serialized
        xla.HloModuleProtoWithConfig with format="hlo_with_config". ``num_replicas`` and
        ``num_partitions`` default to the program's own (mhlo.num_replicas, the config's
        replica_count), else 1."""
        if isinstance(program, str):
            program = program.encode()
        exe = self._client.compile(bytes(program), num_replicas or 0, num_partitions or 0, portable, format)
        exe._client = self
        exe._set_converter(self._to_device0)
        return exe

    def device_put(self, x, device=None, element_type=None):
        """Copies a numpy array (or anything np.asarray takes) to ``device`` (an id or Device)."""
        dev = 0 if device is None else (device.id if isinstance(device, Device) else int(device))
        a = _np.asarray(x)
        if not a.flags.c_contiguous:  # (ascontiguousarray would also make scalars 1-d)
            a = a.copy(order="C")
        et = element_type or _TO_ELEMENT.get(a.dtype)
        if et is None:
            raise Error("INVALID_ARGUMENT", f"numpy dtype {a.dtype} has no PJRT element type")
        raw = a.reshape(-1).view(_np.uint8) if a.size else _np.zeros(0, _np.uint8)
        return self._client.upload(raw, et, list(a.shape), dev)

    def _as_buffer(self, x, device):
        if isinstance(x, Array):
            if x.device == device:
                return x
            x = x.numpy()
        return self.device_put(x, device)

    def _to_device0(self, x):
        return self._as_buffer(x, 0)


def client(plugin=None, **options):
    """A client over ``plugin`` (a path or a name; default: the CPU plugin of this build)."""
    return Client(plugin, **options)
