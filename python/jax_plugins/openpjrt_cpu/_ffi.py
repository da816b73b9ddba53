"""jax.ffi targets and types handed to the plugin through its PJRT FFI extension, with ctypes.

JAX keeps one registration handler per platform name (jaxlib.xla_client; "cpu" is kept under
XLA's name for it, "Host"). Our plugin's devices report the platform "cpu", so user code
registers targets with platform="cpu"; XLA's own CPU client holds that name too. `install()` puts a handler under "cpu" that hands each target to
the plugin *and* to XLA's CPU registry (so both backends can run it in one process), and one
under "openpjrt_cpu" for the plugin alone. Registrations made before the plugin loaded are
replayed. Only typed FFI handlers (api_version 1) reach the plugin; untyped custom calls stay
with XLA.
"""

import ctypes
import logging

logger = logging.getLogger(__name__)

_EXTENSION_TYPE_FFI = 5


class _ExtensionBase(ctypes.Structure):
    pass


_ExtensionBase._fields_ = [("struct_size", ctypes.c_size_t), ("type", ctypes.c_int),
                           ("next", ctypes.POINTER(_ExtensionBase))]


class _RegisterHandlerArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("target_name", ctypes.c_char_p),
                ("target_name_size", ctypes.c_size_t), ("handler", ctypes.c_void_p),
                ("platform_name", ctypes.c_char_p), ("platform_name_size", ctypes.c_size_t),
                ("traits", ctypes.c_uint32)]


class _TypeInfo(ctypes.Structure):
    _fields_ = [("deleter", ctypes.c_void_p), ("serialize", ctypes.c_void_p), ("deserialize", ctypes.c_void_p)]


class _TypeRegisterArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.c_void_p),
                ("type_name", ctypes.c_char_p), ("type_name_size", ctypes.c_size_t),
                ("type_id", ctypes.c_int64), ("type_info", ctypes.POINTER(_TypeInfo))]


class _ErrorArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("extension_start", ctypes.c_void_p),
                ("error", ctypes.c_void_p), ("message", ctypes.c_char_p), ("message_size", ctypes.c_size_t)]


# PJRT_FFI_Register_Handler_Args ends at `traits` (no tail padding): 6 eight-byte members + 4.
_REGISTER_HANDLER_ARGS_SIZE = 52
_TYPE_REGISTER_ARGS_SIZE = ctypes.sizeof(_TypeRegisterArgs)
_ERROR_DESTROY_ARGS_SIZE = 24
_ERROR_MESSAGE_ARGS_SIZE = ctypes.sizeof(_ErrorArgs)
_FnPtr = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)


class PluginFfi:
    """The FFI extension of one loaded plugin library."""

    def __init__(self, library_path):
        self._lib = ctypes.CDLL(library_path)
        self._lib.GetPjrtApi.restype = ctypes.c_void_p
        api = self._lib.GetPjrtApi()
        words = (ctypes.c_void_p * 7).from_address(api)
        # PJRT_Api: struct_size, extension_start, the 24-byte version, then the slots.
        self._error_destroy = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(words[5])
        self._error_message = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(words[6])
        ext = ctypes.cast(ctypes.c_void_p(words[1]), ctypes.POINTER(_ExtensionBase))
        self._ffi = None
        while ext:
            if ext.contents.type == _EXTENSION_TYPE_FFI:
                self._ffi = ctypes.cast(ext, ctypes.c_void_p).value
                break
            ext = ext.contents.next
        if self._ffi is None:
            raise RuntimeError("openpjrt: the plugin at %s has no FFI extension" % library_path)
        table = (ctypes.c_void_p * 6).from_address(self._ffi)
        self._type_register = _FnPtr(table[3])
        self._register_handler = _FnPtr(table[5])

    def _check(self, error):
        if not error:
            return
        args = _ErrorArgs(struct_size=_ERROR_MESSAGE_ARGS_SIZE, error=error)
        self._error_message(ctypes.addressof(args))
        message = ctypes.string_at(args.message, args.message_size).decode("utf-8", "replace")
        destroy = _ErrorArgs(struct_size=_ERROR_DESTROY_ARGS_SIZE, error=error)
        self._error_destroy(ctypes.addressof(destroy))
        raise RuntimeError("openpjrt: " + message)

    def register_handler(self, name, capsule, traits=0):
        name_bytes = name.encode() if isinstance(name, str) else bytes(name)
        args = _RegisterHandlerArgs(struct_size=_REGISTER_HANDLER_ARGS_SIZE, target_name=name_bytes,
                                    target_name_size=len(name_bytes), handler=_capsule_pointer(capsule),
                                    platform_name=b"cpu", platform_name_size=3, traits=int(traits))
        self._check(self._register_handler(ctypes.addressof(args)))

    def register_type(self, name, type_id_capsule=None):
        """Registers a user type by name; returns its id."""
        name_bytes = name.encode() if isinstance(name, str) else bytes(name)
        args = _TypeRegisterArgs(struct_size=_TYPE_REGISTER_ARGS_SIZE, type_name=name_bytes,
                                 type_name_size=len(name_bytes), type_id=0)
        self._check(self._type_register(ctypes.addressof(args)))
        return args.type_id


def _capsule_pointer(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    if isinstance(capsule, int):
        return capsule
    return get_pointer(capsule, get_name(capsule))


def install(library_path, backend_name):
    """Registers JAX custom-call handlers that forward typed FFI targets to the plugin."""
    from jaxlib import xla_client

    ffi = PluginFfi(library_path)

    def ours(name, fn, platform, api_version=1, traits=0):
        if api_version != 1:
            logger.debug("openpjrt: %s is an untyped custom call (api_version %s); not registered",
                         name, api_version)
            return
        try:
            ffi.register_handler(name, fn, traits)
        except RuntimeError as e:  # the same handler registered twice is accepted; others raise
            raise RuntimeError("registering FFI target %r: %s" % (name, e)) from None

    handlers = xla_client._custom_callback_handler  # no public way to chain handlers
    pending = xla_client._custom_callback
    cpu = xla_client.xla_platform_names.get("cpu", "cpu")  # XLA's name for it: "Host"
    with xla_client._custom_callback_lock:
        xla_cpu = handlers.get(cpu)
        if xla_cpu is None:
            from jaxlib import _jax
            xla_cpu = getattr(_jax, "register_custom_call_target", None)

        def both(name, fn, platform, api_version=0, traits=0):
            ours(name, fn, platform, api_version, traits)
            if xla_cpu is not None:
                xla_cpu(name, fn, platform, api_version, traits)

        handlers[cpu] = both
        handlers[backend_name] = ours
        for key, handler in ((cpu, both), (backend_name, ours)):
            for name, fn, api_version, traits in pending.pop(key, []):
                handler(name, fn, key, api_version, traits)
    return ffi
