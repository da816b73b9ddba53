"""openpjrt: run StableHLO on any PJRT plugin from Python, with numpy.

    import numpy as np, openpjrt
    c = openpjrt.client()                    # the CPU plugin of this build
    exe = c.compile(mlir_text_or_bytes)      # StableHLO text, or a portable artifact (bytes)
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


class Array:
    """An array on a device. ``np.asarray(a)`` copies it to the host."""

    __slots__ = ("_buffer", "_device", "__weakref__")

    def __init__(self, buffer, device=None):
        self._buffer = buffer
        self._device = device  # the device id when known, else asked for once

    @property
    def shape(self):
        return tuple(self._buffer.shape)

    @property
    def element_type(self):
        return self._buffer.element_type

    @property
    def dtype(self):
        return _dtype_of(self.element_type)

    @property
    def device(self):
        if self._device is None:
            self._device = self._buffer.device
        return self._device

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(_np.prod(self.shape, dtype=_np.int64))

    def block_until_ready(self):
        self._buffer.block_until_ready()
        return self

    def is_ready(self):
        return self._buffer.is_ready()

    def numpy(self):
        data = self._buffer.to_bytes()
        return _np.frombuffer(data, dtype=self.dtype).reshape(self.shape).copy()

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    # DLPack on the CPU, through a host copy (numpy implements the protocol).
    def __dlpack__(self, stream=None, **kwargs):
        return self.numpy().__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0

    def delete(self):
        self._buffer.delete()

    def __repr__(self):
        try:
            body = _np.array2string(self.numpy(), separator=", ")
        except Error as e:  # a failed computation: show why
            body = f"<error {e.code}>"
        return f"Array({body}, element_type={self.element_type}, device={self.device})"


class Executable:
    """A compiled program. Call it with numpy arrays or Arrays (single device), or use
    ``execute`` with one argument list per device."""

    def __init__(self, client, exe):
        self._client = client
        self._exe = exe

    @property
    def name(self):
        return self._exe.name

    @property
    def num_outputs(self):
        return self._exe.num_outputs

    @property
    def num_devices(self):
        return self._exe.num_devices

    def execute(self, args_per_device, non_donatable=(), execute_device=None):
        """Runs with ``args_per_device[d]`` on device ``d``; returns a list per device."""
        bufs = []
        for d, args in enumerate(args_per_device):
            device = execute_device if execute_device is not None else d
            bufs.append([self._client._as_buffer(a, device) for a in args])
        out = self._exe.execute(bufs, list(non_donatable),
                                -1 if execute_device is None else int(execute_device))
        return [[Array(b) for b in dev] for dev in out]

    def __call__(self, *args):
        # The common single-device call, with as little Python in the way as possible: Arrays
        # known to live on device 0 pass straight through, one output comes back bare.
        as_buffer = self._client._as_buffer
        out = self._exe.call(*[a._buffer if type(a) is Array and a._device == 0 else as_buffer(a, 0)
                               for a in args])
        if type(out) is tuple:
            return tuple(Array(b) for b in out)
        return Array(out)


def default_plugin():
    """$OPENPJRT_PLUGIN, else the CPU plugin beside this package (in the build tree
    ``build/python/openpjrt`` -> ``build/lib``, or copied into the package), else "cpu"
    (looked up as pjrt_c_api_cpu_plugin.so in $PJRT_PLUGIN_LIBRARY_PATH)."""
    env = _os.environ.get("OPENPJRT_PLUGIN")
    if env:
        return env
    here = _pathlib.Path(__file__).resolve().parent
    for p in (here / "pjrt_c_api_cpu_plugin.so", here.parent.parent / "lib" / "pjrt_c_api_cpu_plugin.so"):
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

    def compile(self, program, num_replicas=1, num_partitions=1, portable=False):
        """Compiles StableHLO: MLIR text (str) or a portable artifact (bytes)."""
        if isinstance(program, str):
            program = program.encode()
        return Executable(self, self._client.compile(bytes(program), num_replicas, num_partitions, portable))

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
        return Array(self._client.upload(raw, et, list(a.shape), dev))

    def _as_buffer(self, x, device):
        if isinstance(x, Array):
            if x.device == device:
                return x._buffer
            x = x.numpy()
        return self.device_put(x, device)._buffer


def client(plugin=None, **options):
    """A client over ``plugin`` (a path or a name; default: the CPU plugin of this build)."""
    return Client(plugin, **options)
