// _openpjrt: the pybind11 layer of the Python package, a thin binding of the C++ client library
// (src/client). The pure-Python package python/openpjrt builds the user-facing API on it and
// adds the numpy-facing methods to the Array and Executable classes defined here (so that a
// call, its result and block_until_ready never pass through Python code).
// Blocking calls (compile, execute, transfers, waits) release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <structmember.h>

#if PY_VERSION_HEX < 0x030A0000
#error "the Array type needs Python 3.10 or later (Py_TPFLAGS_DISALLOW_INSTANTIATION)"
#endif

#include <cstddef>
#include <cstring>
#include <new>
#include <optional>

#include "absl/container/inlined_vector.h"

#include "src/client/client.h"

namespace py = pybind11;
using namespace openpjrt::client;

namespace {

// The Python exception class (openpjrt.Error), installed by the package at import.
py::object& ErrorClass() {
  static py::object* cls = new py::object();
  return *cls;
}

const char* CodeName(absl::StatusCode c) {
  switch (c) {
    case absl::StatusCode::kCancelled: return "CANCELLED";
    case absl::StatusCode::kUnknown: return "UNKNOWN";
    case absl::StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case absl::StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case absl::StatusCode::kNotFound: return "NOT_FOUND";
    case absl::StatusCode::kAlreadyExists: return "ALREADY_EXISTS";
    case absl::StatusCode::kPermissionDenied: return "PERMISSION_DENIED";
    case absl::StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case absl::StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case absl::StatusCode::kAborted: return "ABORTED";
    case absl::StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case absl::StatusCode::kUnimplemented: return "UNIMPLEMENTED";
    case absl::StatusCode::kInternal: return "INTERNAL";
    case absl::StatusCode::kUnavailable: return "UNAVAILABLE";
    case absl::StatusCode::kDataLoss: return "DATA_LOSS";
    case absl::StatusCode::kUnauthenticated: return "UNAUTHENTICATED";
    default: return "OK";
  }
}

struct StatusError {
  absl::Status status;
};

void Throw(const absl::Status& s) {
  if (!s.ok()) throw StatusError{s};
}
template <typename T>
T Take(absl::StatusOr<T> v) {
  Throw(v.status());
  return std::move(*v);
}

// Shared handles: Python objects may outlive each other in any order.
struct PyClient {
  std::shared_ptr<Client> client;
};
struct PyBuffer {
  std::shared_ptr<Buffer> buffer;
};
struct PyExecutable {
  std::shared_ptr<Executable> exe;
  std::shared_ptr<Client> client;
  py::object to_device0;  // the package's conversion of anything else to an Array on device 0
};

// The Array type is a plain CPython heap type rather than a pybind11 class: creating and
// freeing a pybind11 instance registers it in (and removes it from) pybind11's instance map,
// which was ~1,800 of the ~10,000 instructions of a tiny call from Python. The type_caster
// below lets pybind11 bindings take and return PyBuffer as before; the properties and methods
// are pybind11 functions set on the type.
// (Standard layout, so that offsetof can name the weak reference list for the type's spec; the
// PyBuffer is constructed in place in `storage`.)
struct ArrayObject {
  PyObject_HEAD
  PyObject* weakrefs;
  alignas(PyBuffer) unsigned char storage[sizeof(PyBuffer)];
  PyBuffer& value() { return *std::launder(reinterpret_cast<PyBuffer*>(storage)); }
};

PyTypeObject* g_array_type = nullptr;

// The Array behind a Python object when it is exactly an Array.
const PyBuffer* AsArray(py::handle h) {
  if (!g_array_type || Py_TYPE(h.ptr()) != g_array_type) return nullptr;
  return &reinterpret_cast<ArrayObject*>(h.ptr())->value();
}

// A new Python Array holding `b` (null with a Python error set when out of memory).
PyObject* NewArrayObject(std::shared_ptr<Buffer> b) {
  PyObject* self = g_array_type->tp_alloc(g_array_type, 0);  // zeroed; holds a reference to the type
  if (!self) return nullptr;
  new (reinterpret_cast<ArrayObject*>(self)->storage) PyBuffer{std::move(b)};
  return self;
}

void ArrayDealloc(PyObject* self) {
  auto* o = reinterpret_cast<ArrayObject*>(self);
  PyTypeObject* type = Py_TYPE(self);
  if (o->weakrefs) PyObject_ClearWeakRefs(self);
  o->value().~PyBuffer();
  type->tp_free(self);
  Py_DECREF(type);
}

py::object NewArray(Buffer b) {
  PyObject* o = NewArrayObject(std::make_shared<Buffer>(std::move(b)));
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

}  // namespace

namespace pybind11::detail {
template <>
struct type_caster<PyBuffer> {
  PYBIND11_TYPE_CASTER(PyBuffer, const_name("Array"));
  bool load(handle src, bool) {
    const PyBuffer* b = AsArray(src);
    if (!b) return false;
    value = *b;
    return true;
  }
  static handle cast(const PyBuffer& b, return_value_policy, handle) { return NewArrayObject(b.buffer); }
};
}  // namespace pybind11::detail

namespace {

py::object WrapOutputs(std::vector<Buffer> outs) {
  if (outs.size() == 1) return NewArray(std::move(outs[0]));
  py::tuple t(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) t[i] = NewArray(std::move(outs[i]));
  return t;
}

void SetStatusError(const StatusError& e) {
  py::object cls = ErrorClass() ? ErrorClass() : py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  py::object err = cls(CodeName(e.status.code()), std::string(e.status.message()));
  PyErr_SetObject(cls.ptr(), err.ptr());
}

// Runs the body of a plain C entry point (not wrapped by pybind11): our errors become Python
// exceptions as pybind11's translator would make them; returns null with the error set.
template <typename Body>
PyObject* CEntryPoint(Body&& body) {
  try {
    return body();
  } catch (const StatusError& err) {
    SetStatusError(err);
  } catch (py::error_already_set& err) {
    err.restore();
  } catch (const std::exception& err) {
    PyErr_SetString(PyExc_RuntimeError, err.what());
  }
  return nullptr;
}

// Releases the GIL for a scope with the interpreter's own calls (pybind11's gil_scoped_release
// also consults its internals: ~380 instructions a tiny call against ~100).
class NoGil {
 public:
  NoGil() : state_(PyEval_SaveThread()) {}
  ~NoGil() { PyEval_RestoreThread(state_); }
  NoGil(const NoGil&) = delete;
  NoGil& operator=(const NoGil&) = delete;

 private:
  PyThreadState* state_;
};

// Array.block_until_ready() as a plain C method (no pybind11 dispatch): waits for the array and
// returns it, raising its error if it has one.
PyObject* BlockUntilReady(PyObject* self, PyObject*) {
  return CEntryPoint([&]() -> PyObject* {
    const PyBuffer& b = reinterpret_cast<ArrayObject*>(self)->value();
    Future f = b.buffer->Ready();
    if (f.valid() && f.IsReady()) {  // the common case for small programs: no GIL round trip
      Throw(f.ReadyStatus());
    } else {
      absl::Status s;
      {
        NoGil no_gil;
        s = f.Await();
      }
      Throw(s);
    }
    Py_INCREF(self);
    return self;
  });
}

// exe(*args), the single-device call, as the type's tp_call: Python calls it directly, without
// a method lookup or pybind11's argument dispatch (a tiny call was ~0.3 us faster). Arrays on
// device 0 pass straight through; anything else goes through the package's conversion (numpy
// arrays, Arrays on other devices). One output comes back bare, several as a tuple.
PyObject* CallExecutable(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const py::detail::type_info* info = py::detail::get_type_info(typeid(PyExecutable));
  return CEntryPoint([&]() -> PyObject* {
    if (kwargs && PyDict_Size(kwargs) > 0)
      Throw(absl::InvalidArgumentError("an Executable takes its arguments by position only"));
    auto* inst = reinterpret_cast<py::detail::instance*>(self);
    const PyExecutable& e = *static_cast<const PyExecutable*>(inst->get_value_and_holder(info).value_ptr());
    absl::InlinedVector<const Buffer*, 8> in;
    absl::InlinedVector<py::object, 4> converted;  // kept alive until the call returns
    const Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n; ++i) {
      py::handle a(PyTuple_GET_ITEM(args, i));
      if (const PyBuffer* b = AsArray(a); b && b->buffer->device_id() == 0) {
        in.push_back(b->buffer.get());
        continue;
      }
      if (!e.to_device0) Throw(absl::InvalidArgumentError("arguments must be openpjrt Arrays on device 0"));
      converted.push_back(e.to_device0(a));
      const PyBuffer* b = AsArray(converted.back());
      if (!b) Throw(absl::InternalError("the package's conversion did not return an Array"));
      in.push_back(b->buffer.get());
    }
    std::optional<absl::StatusOr<std::vector<Buffer>>> out;
    {
      NoGil no_gil;
      out.emplace(e.exe->ExecuteOne(in));
    }
    return WrapOutputs(Take(std::move(*out))).release().ptr();
  });
}

Options ToOptions(const py::dict& d) {
  Options o;
  for (auto [k, v] : d) {
    std::string name = py::str(k);
    if (py::isinstance<py::bool_>(v)) o[name] = v.cast<bool>();
    else if (py::isinstance<py::int_>(v)) o[name] = v.cast<int64_t>();
    else if (py::isinstance<py::float_>(v)) o[name] = v.cast<double>();
    else if (py::isinstance<py::str>(v)) o[name] = v.cast<std::string>();
    else o[name] = v.cast<std::vector<int64_t>>();
  }
  return o;
}

py::dict DeviceDict(const Device& d) {
  py::dict r;
  r["id"] = d.id;
  r["kind"] = d.kind;
  r["process_index"] = d.process_index;
  r["local_hardware_id"] = d.local_hardware_id;
  r["debug_string"] = d.debug_string;
  py::list mems;
  for (const Memory& m : d.memories) mems.append(m.kind);
  r["memories"] = mems;
  r["default_memory"] = d.default_memory.kind;
  return r;
}

}  // namespace

PYBIND11_MODULE(_openpjrt, m) {
  m.doc() = "openpjrt's binding of its C++ PJRT client library (use the openpjrt package)";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      SetStatusError(e);
    }
  });
  m.def("_set_error_class", [](py::object cls) { ErrorClass() = std::move(cls); });
  m.def("default_plugin_path", &DefaultPluginPath);
  m.def("element_bytes", [](const std::string& name) { return ElementBytes(ElementFromName(name)); });

  py::class_<PyClient>(m, "Client")
      .def(py::init([](const std::string& plugin, const py::dict& options) {
        std::string path = plugin.empty() ? DefaultPluginPath() : plugin;
        auto p = Take(Plugin::Load(path));
        std::unique_ptr<Client> c = Take(Client::Create(std::move(p), ToOptions(options)));
        return PyClient{std::shared_ptr<Client>(std::move(c))};
      }))
      .def_property_readonly("plugin_path", [](const PyClient& c) { return c.client->plugin().path(); })
      .def_property_readonly("api_version", [](const PyClient& c) {
        return py::make_tuple(c.client->plugin().major_version(), c.client->plugin().minor_version());
      })
      .def_property_readonly("platform_name", [](const PyClient& c) { return c.client->platform_name(); })
      .def_property_readonly("platform_version", [](const PyClient& c) { return c.client->platform_version(); })
      .def("devices", [](const PyClient& c) {
        py::list l;
        for (const Device& d : c.client->devices()) l.append(DeviceDict(d));
        return l;
      })
      .def("compile", [](const PyClient& c, py::bytes program, int replicas, int partitions, bool portable,
                         const std::string& format) {
        std::string code = program;
        CompileOptions o;
        o.format = format;
        o.num_replicas = replicas;
        o.num_partitions = partitions;
        o.portable = portable;
        absl::StatusOr<Executable> e = absl::UnknownError("");
        {
          py::gil_scoped_release release;
          e = c.client->Compile(code, o);
        }
        return PyExecutable{std::make_shared<Executable>(Take(std::move(e))), c.client};
      })
      .def("upload", [](const PyClient& c, py::buffer data, const std::string& element_type,
                        std::vector<int64_t> dims, int device) {
        py::buffer_info info = data.request();
        PJRT_Buffer_Type t = ElementFromName(element_type);
        if (t == PJRT_Buffer_Type_INVALID) Throw(absl::InvalidArgumentError("unknown element type " + element_type));
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        if (info.size * info.itemsize != n * ElementBytes(t))
          Throw(absl::InvalidArgumentError("host data has " + std::to_string(info.size * info.itemsize) +
                                           " bytes; " + element_type + " of that shape needs " +
                                           std::to_string(n * ElementBytes(t))));
        const Device* dev = Take(c.client->device(device));
        absl::StatusOr<Buffer> b = absl::UnknownError("");
        {
          py::gil_scoped_release release;
          b = c.client->Upload(info.ptr, t, dims, dev);
        }
        return PyBuffer{std::make_shared<Buffer>(Take(std::move(b)))};
      });

  // An array on a device (the package's openpjrt.Array).
  // An array on a device (the package's openpjrt.Array): the plain type described at
  // ArrayObject, its properties and methods pybind11 functions.
  {
    static PyMethodDef methods[] = {
        {"block_until_ready", &BlockUntilReady, METH_NOARGS,
         "Waits until the array is computed and returns it (raises its error)."},
        {nullptr, nullptr, 0, nullptr}};
    static PyMemberDef members[] = {
        {"__weaklistoffset__", T_PYSSIZET, static_cast<Py_ssize_t>(offsetof(ArrayObject, weakrefs)), READONLY, nullptr},
        {nullptr, 0, 0, 0, nullptr}};
    static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(&ArrayDealloc)},
                                  {Py_tp_methods, methods},
                                  {Py_tp_members, members},
                                  {0, nullptr}};
    static PyType_Spec spec = {"openpjrt._openpjrt.Array", static_cast<int>(sizeof(ArrayObject)), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, slots};
    py::object type = py::reinterpret_steal<py::object>(PyType_FromSpec(&spec));
    if (!type) throw py::error_already_set();
    g_array_type = reinterpret_cast<PyTypeObject*>(type.ptr());
    Py_INCREF(type.ptr());  // kept for the life of the process (g_array_type)
    m.attr("Array") = type;
    py::object property = py::module_::import("builtins").attr("property");
    auto prop = [&](const char* name, auto&& fn) { py::setattr(type, name, property(py::cpp_function(fn))); };
    auto method = [&](const char* name, auto&& fn) {
      py::setattr(type, name, py::cpp_function(fn, py::name(name), py::is_method(type)));
    };
    prop("element_type", [](const PyBuffer& b) { return ElementName(b.buffer->element_type()); });
    prop("shape", [](const PyBuffer& b) {
      const std::vector<int64_t> d = b.buffer->dims();
      py::tuple t(d.size());
      for (size_t i = 0; i < d.size(); ++i) t[i] = d[i];
      return t;
    });
    prop("ndim", [](const PyBuffer& b) { return b.buffer->dims().size(); });
    prop("size", [](const PyBuffer& b) {
      int64_t n = 1;
      for (int64_t d : b.buffer->dims()) n *= d;
      return n;
    });
    prop("device", [](const PyBuffer& b) { return b.buffer->device_id(); });
    prop("_buffer", [](py::object self) { return self; });  // older package code
    method("is_ready", [](const PyBuffer& b) { return b.buffer->Ready().IsReady(); });
    method("to_bytes", [](const PyBuffer& b) {
      absl::StatusOr<std::vector<uint8_t>> h = absl::UnknownError("");
      {
        py::gil_scoped_release release;
        h = b.buffer->ToHost();
      }
      std::vector<uint8_t> v = Take(std::move(h));
      return py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
    });
    method("delete", [](const PyBuffer& b) { Throw(b.buffer->Delete()); });
  }

  py::class_<PyExecutable> executable(m, "Executable", py::dynamic_attr());
  reinterpret_cast<PyTypeObject*>(executable.ptr())->tp_call = &CallExecutable;
  executable
      .def_property_readonly("name", [](const PyExecutable& e) { return e.exe->name(); })
      .def_property_readonly("num_outputs", [](const PyExecutable& e) { return e.exe->num_outputs(); })
      .def_property_readonly("num_devices", [](const PyExecutable& e) { return e.exe->num_devices(); })
      .def("execute", [](const PyExecutable& e, const std::vector<std::vector<PyBuffer>>& args,
                         std::vector<int64_t> non_donatable, int execute_device) {
        std::vector<std::vector<const Buffer*>> in;
        for (const auto& dev : args) {
          in.emplace_back();
          for (const PyBuffer& b : dev) in.back().push_back(b.buffer.get());
        }
        ExecuteOptions o;
        o.non_donatable_input_indices = std::move(non_donatable);
        if (execute_device >= 0) o.execute_device = Take(e.client->device(execute_device));
        absl::StatusOr<std::vector<std::vector<Buffer>>> out = absl::UnknownError("");
        {
          py::gil_scoped_release release;
          out = e.exe->Execute(in, o);
        }
        std::vector<std::vector<Buffer>> result = Take(std::move(out));
        py::list devices;
        for (auto& dev : result) {
          py::list l;
          for (Buffer& b : dev) l.append(PyBuffer{std::make_shared<Buffer>(std::move(b))});
          devices.append(l);
        }
        return devices;
      }, py::arg("args"), py::arg("non_donatable") = std::vector<int64_t>{}, py::arg("execute_device") = -1)
      .def("_set_converter", [](PyExecutable& e, py::object f) { e.to_device0 = std::move(f); });
}
