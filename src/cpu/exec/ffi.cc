// XLA FFI: handler registry, the API table handlers call back into, attribute encoding and the
// call kernel. Handlers run on the executing thread; a handler that returns a future is waited
// for before the step completes.
#include "src/cpu/exec/ffi.h"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>

#include "src/support/str.h"

struct XLA_FFI_Error {
  absl::Status status;
  std::string message;
};

struct XLA_FFI_Future {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  absl::Status status;
};

// What a handler's calls into the API receive as their context: the execution's user data.
struct XLA_FFI_ExecutionContext {
  const openpjrt::cpu::FfiUserData* user_data = nullptr;
};

namespace openpjrt::cpu {
namespace {

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::unique_ptr<FfiHandler>, std::less<>>& Handlers() {
  static auto* m = new std::map<std::string, std::unique_ptr<FfiHandler>, std::less<>>;
  return *m;
}
std::map<std::string, int64_t, std::less<>>& Types() {
  static auto* m = new std::map<std::string, int64_t, std::less<>>;
  return *m;
}
// The deleter each user type registered with (PJRT_FFI_Type_Info.deleter), by type id.
std::map<int64_t, FfiDeleter>& TypeDeleters() {
  static auto* m = new std::map<int64_t, FfiDeleter>;
  return *m;
}

XLA_FFI_Error* MakeError(absl::StatusCode code, std::string message) {
  auto* e = new XLA_FFI_Error;
  e->status = absl::Status(code, message);
  e->message = std::move(message);
  return e;
}

XLA_FFI_Error* ErrorCreate(XLA_FFI_Error_Create_Args* a) {
  int code = static_cast<int>(a->errc);
  if (code <= 0 || code > 16) code = static_cast<int>(absl::StatusCode::kUnknown);
  return MakeError(static_cast<absl::StatusCode>(code), a->message ? a->message : "");
}
void ErrorGetMessage(XLA_FFI_Error_GetMessage_Args* a) { a->message = a->error ? a->error->message.c_str() : ""; }
void ErrorDestroy(XLA_FFI_Error_Destroy_Args* a) { delete a->error; }

XLA_FFI_Error* HandlerRegister(XLA_FFI_Handler_Register_Args* a) {
  absl::Status s = RegisterFfiHandler(std::string_view(a->name.ptr, a->name.len), a->bundle);
  return s.ok() ? nullptr : MakeError(s.code(), std::string(s.message()));
}
XLA_FFI_Error* StreamGet(XLA_FFI_Stream_Get_Args* a) {
  a->stream = nullptr;  // host code runs on the calling thread: there is no stream
  return nullptr;
}
XLA_FFI_Error* TypeIdRegister(XLA_FFI_TypeId_Register_Args* a) {
  auto id = RegisterFfiType(std::string_view(a->name.ptr, a->name.len), a->type_id ? a->type_id->type_id : 0, nullptr);
  if (!id.ok()) return MakeError(id.status().code(), std::string(id.status().message()));
  if (a->type_id) a->type_id->type_id = *id;
  return nullptr;
}
XLA_FFI_Error* ContextGet(XLA_FFI_ExecutionContext_Get_Args* a) {
  const int64_t id = a->type_id ? a->type_id->type_id : 0;
  if (a->ctx && a->ctx->user_data)
    for (const auto& [type, data] : a->ctx->user_data->entries)
      if (type == id) {
        a->data = data;
        return nullptr;
      }
  return MakeError(absl::StatusCode::kNotFound,
                   StrCat("no user data of type id ", id, " in this execution's context"));
}
XLA_FFI_Error* StateSet(XLA_FFI_State_Set_Args*) {
  return MakeError(absl::StatusCode::kFailedPrecondition,
                   "XLA_FFI_State_Set: the openpjrt CPU plugin runs only the execute stage of FFI handlers");
}
XLA_FFI_Error* StateGet(XLA_FFI_State_Get_Args*) {
  return MakeError(absl::StatusCode::kNotFound,
                   "XLA_FFI_State_Get: the openpjrt CPU plugin runs only the execute stage of FFI handlers");
}
XLA_FFI_Error* MemoryAllocate(XLA_FFI_DeviceMemory_Allocate_Args* a) {
  size_t align = a->alignment < sizeof(void*) ? sizeof(void*) : a->alignment;
  if ((align & (align - 1)) != 0) return MakeError(absl::StatusCode::kInvalidArgument, "alignment must be a power of two");
  a->data = std::aligned_alloc(align, (a->size + align - 1) / align * align);
  if (!a->data && a->size) return MakeError(absl::StatusCode::kResourceExhausted, "out of host memory");
  return nullptr;
}
XLA_FFI_Error* MemoryFree(XLA_FFI_DeviceMemory_Free_Args* a) {
  std::free(a->data);
  return nullptr;
}
XLA_FFI_Error* ThreadPoolSchedule(XLA_FFI_ThreadPool_Schedule_Args* a) {
  a->task(a->data);  // the calling thread is an executor thread already
  return nullptr;
}
XLA_FFI_Error* FutureCreate(XLA_FFI_Future_Create_Args* a) {
  a->future = new XLA_FFI_Future;
  return nullptr;
}
XLA_FFI_Error* FutureSetAvailable(XLA_FFI_Future_SetAvailable_Args* a) {
  std::lock_guard<std::mutex> lock(a->future->mu);
  a->future->done = true;
  a->future->cv.notify_all();
  return nullptr;
}
XLA_FFI_Error* FutureSetError(XLA_FFI_Future_SetError_Args* a) {
  std::lock_guard<std::mutex> lock(a->future->mu);
  a->future->status = a->error ? a->error->status : absl::UnknownError("FFI future failed");
  delete a->error;
  a->future->done = true;
  a->future->cv.notify_all();
  return nullptr;
}

constexpr size_t kApiSize = OPENPJRT_FFI_STRUCT_SIZE(XLA_FFI_Api, XLA_FFI_Future_SetError);

// One table per API version a handler may have been built against (the handler compares it with
// its own); only the version numbers differ.
const XLA_FFI_Api* ApiFor(const XLA_FFI_Api_Version& v) {
  static std::mutex mu;
  static std::map<std::pair<int, int>, std::unique_ptr<XLA_FFI_Api>> tables;
  std::lock_guard<std::mutex> lock(mu);
  auto& t = tables[{v.major_version, v.minor_version}];
  if (!t) {
    t = std::make_unique<XLA_FFI_Api>();
    t->struct_size = kApiSize;
    t->api_version = {OPENPJRT_FFI_STRUCT_SIZE(XLA_FFI_Api_Version, minor_version), nullptr, v.major_version,
                      v.minor_version};
    t->XLA_FFI_Error_Create = &ErrorCreate;
    t->XLA_FFI_Error_GetMessage = &ErrorGetMessage;
    t->XLA_FFI_Error_Destroy = &ErrorDestroy;
    t->XLA_FFI_Handler_Register = &HandlerRegister;
    t->XLA_FFI_Stream_Get = &StreamGet;
    t->XLA_FFI_TypeId_Register = &TypeIdRegister;
    t->XLA_FFI_ExecutionContext_Get = &ContextGet;
    t->XLA_FFI_State_Set = &StateSet;
    t->XLA_FFI_State_Get = &StateGet;
    t->XLA_FFI_DeviceMemory_Allocate = &MemoryAllocate;
    t->XLA_FFI_DeviceMemory_Free = &MemoryFree;
    t->XLA_FFI_ThreadPool_Schedule = &ThreadPoolSchedule;
    t->XLA_FFI_Future_Create = &FutureCreate;
    t->XLA_FFI_Future_SetAvailable = &FutureSetAvailable;
    t->XLA_FFI_Future_SetError = &FutureSetError;
  }
  return t.get();
}

XLA_FFI_Api_Version OurVersion() {
  return {OPENPJRT_FFI_STRUCT_SIZE(XLA_FFI_Api_Version, minor_version), nullptr, XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR};
}

void InitCallFrame(XLA_FFI_CallFrame* f, const XLA_FFI_Api* api, XLA_FFI_ExecutionContext* ctx) {
  std::memset(f, 0, sizeof(*f));
  f->struct_size = OPENPJRT_FFI_STRUCT_SIZE(XLA_FFI_CallFrame, attrs);
  f->api = api;
  f->ctx = ctx;
  f->stage = XLA_FFI_ExecutionStage_EXECUTE;
  f->args.struct_size = sizeof(XLA_FFI_Args);
  f->rets.struct_size = sizeof(XLA_FFI_Rets);
  f->attrs.struct_size = sizeof(XLA_FFI_Attrs);
}

// Asks a handler which API version it was built against (the metadata probe XLA also makes).
XLA_FFI_Api_Version Probe(XLA_FFI_Handler* h) {
  XLA_FFI_Metadata md{};
  md.struct_size = OPENPJRT_FFI_STRUCT_SIZE(XLA_FFI_Metadata, traits);
  md.api_version.struct_size = OPENPJRT_FFI_STRUCT_SIZE(XLA_FFI_Api_Version, minor_version);
  md.api_version.major_version = -1;
  XLA_FFI_Metadata_Extension ext{};
  ext.extension_base = {OPENPJRT_FFI_STRUCT_SIZE(XLA_FFI_Metadata_Extension, metadata), XLA_FFI_Extension_Metadata, nullptr};
  ext.metadata = &md;
  XLA_FFI_ExecutionContext ctx;
  XLA_FFI_CallFrame f;
  InitCallFrame(&f, ApiFor(OurVersion()), &ctx);
  f.extension_start = &ext.extension_base;
  XLA_FFI_Error* e = nullptr;
  try {
    e = h(&f);
  } catch (...) {
    return OurVersion();
  }
  if (e) {
    delete e;
    return OurVersion();
  }
  if (md.api_version.major_version != XLA_FFI_API_MAJOR) return OurVersion();
  return md.api_version;
}

XLA_FFI_DataType DataTypeOf(ElemKind k) {
  switch (k) {
    case ElemKind::kI1: return XLA_FFI_DataType_PRED;
    case ElemKind::kI8: return XLA_FFI_DataType_S8;
    case ElemKind::kI16: return XLA_FFI_DataType_S16;
    case ElemKind::kI32: return XLA_FFI_DataType_S32;
    case ElemKind::kI64: return XLA_FFI_DataType_S64;
    case ElemKind::kU8: return XLA_FFI_DataType_U8;
    case ElemKind::kU16: return XLA_FFI_DataType_U16;
    case ElemKind::kU32: return XLA_FFI_DataType_U32;
    case ElemKind::kU64: return XLA_FFI_DataType_U64;
    case ElemKind::kF16: return XLA_FFI_DataType_F16;
    case ElemKind::kBF16: return XLA_FFI_DataType_BF16;
    case ElemKind::kF32: return XLA_FFI_DataType_F32;
    case ElemKind::kF64: return XLA_FFI_DataType_F64;
    case ElemKind::kC64: return XLA_FFI_DataType_C64;
    case ElemKind::kC128: return XLA_FFI_DataType_C128;
    case ElemKind::kF8E5M2: return XLA_FFI_DataType_F8E5M2;
    case ElemKind::kF8E4M3FN: return XLA_FFI_DataType_F8E4M3FN;
    case ElemKind::kF8E4M3B11FNUZ: return XLA_FFI_DataType_F8E4M3B11FNUZ;
    case ElemKind::kF8E5M2FNUZ: return XLA_FFI_DataType_F8E5M2FNUZ;
    case ElemKind::kF8E4M3FNUZ: return XLA_FFI_DataType_F8E4M3FNUZ;
    case ElemKind::kF8E4M3: return XLA_FFI_DataType_F8E4M3;
    case ElemKind::kF8E3M4: return XLA_FFI_DataType_F8E3M4;
    default: return XLA_FFI_DataType_INVALID;
  }
}

void FfiCall(const Step& s, ExecState& st) {
  const FfiCallParams& p = s.Params<FfiCallParams>();
  const size_t n_in = s.in.size();
  std::vector<XLA_FFI_Buffer> ins(n_in), outs;
  std::vector<std::vector<int64_t>> in_dims(n_in), out_dims;
  std::vector<void*> in_ptrs, out_ptrs;
  std::vector<XLA_FFI_ArgType> in_types;
  std::vector<XLA_FFI_RetType> out_types;
  for (size_t i = 0; i < n_in; ++i) {
    const RtValue& v = st.slots[s.in[i]];
    if (v.kind == RtValue::Kind::kToken) continue;
    if (v.kind != RtValue::Kind::kArray)
      return st.Fail(s, absl::UnimplementedError(StrCat("@", p.target, ": operand #", i, " is a tuple")));
    in_dims[i] = v.array.dims();
    ins[i] = {sizeof(XLA_FFI_Buffer), nullptr, DataTypeOf(v.array.elem()), const_cast<uint8_t*>(v.array.data()),
              static_cast<int64_t>(in_dims[i].size()), in_dims[i].data()};
    in_ptrs.push_back(&ins[i]);
    in_types.push_back(XLA_FFI_ArgType_BUFFER);
  }
  std::vector<Array> results;
  out_dims.resize(s.out_types.size());
  outs.resize(s.out_types.size());
  for (size_t j = 0; j < s.out_types.size(); ++j) {
    if (p.result_is_token[j]) {
      results.emplace_back();
      continue;
    }
    results.push_back(Array::Allocate(s.out_types[j]));
    std::memset(results.back().mutable_data(), 0, static_cast<size_t>(results.back().ByteSize()));
    out_dims[j] = s.out_types[j].dims;
    outs[j] = {sizeof(XLA_FFI_Buffer), nullptr, DataTypeOf(s.out_types[j].elem), results.back().mutable_data(),
               static_cast<int64_t>(out_dims[j].size()), out_dims[j].data()};
    out_ptrs.push_back(&outs[j]);
    out_types.push_back(XLA_FFI_RetType_BUFFER);
  }
  XLA_FFI_ExecutionContext ctx;
  ctx.user_data = st.ffi_user_data;
  XLA_FFI_CallFrame f;
  InitCallFrame(&f, ApiFor(p.handler->version), &ctx);
  f.args.size = static_cast<int64_t>(in_ptrs.size());
  f.args.types = in_types.data();
  f.args.args = in_ptrs.data();
  f.rets.size = static_cast<int64_t>(out_ptrs.size());
  f.rets.types = out_types.data();
  f.rets.rets = out_ptrs.data();
  f.attrs = p.attrs.c;
  XLA_FFI_Error* e = nullptr;
  try {
    e = p.handler->bundle.execute(&f);
  } catch (const std::exception& ex) {
    return st.Fail(s, absl::InternalError(StrCat("@", p.target, ": the FFI handler threw: ", ex.what())));
  } catch (...) {
    return st.Fail(s, absl::InternalError(StrCat("@", p.target, ": the FFI handler threw")));
  }
  if (e) {
    absl::Status status = e->status;
    delete e;
    return st.Fail(s, status);
  }
  if (f.future) {
    std::unique_ptr<XLA_FFI_Future> fut(f.future);
    std::unique_lock<std::mutex> lock(fut->mu);
    fut->cv.wait(lock, [&] { return fut->done; });
    if (!fut->status.ok()) return st.Fail(s, fut->status);
  }
  for (size_t j = 0; j < results.size(); ++j)
    st.slots[s.out[j]] = p.result_is_token[j] ? RtValue::Token() : RtValue::Of(std::move(results[j]));
}

template <typename T>
void PutScalar(FfiAttrs* out, XLA_FFI_DataType dtype, T v) {
  out->bytes.emplace_back(sizeof(T));
  std::memcpy(out->bytes.back().data(), &v, sizeof(T));
  out->scalars.push_back({dtype, out->bytes.back().data()});
  out->types.push_back(XLA_FFI_AttrType_SCALAR);
  out->values.push_back(&out->scalars.back());
}

}  // namespace

absl::Status RegisterFfiHandler(std::string_view target, const XLA_FFI_Handler_Bundle& bundle) {
  if (!bundle.execute) return absl::InvalidArgumentError(StrCat("FFI handler for '", target, "' has no execute handler"));
  XLA_FFI_Api_Version version = Probe(bundle.execute);
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Handlers().find(target);
  if (it != Handlers().end()) {
    if (it->second->bundle.execute == bundle.execute) return absl::OkStatus();
    return absl::AlreadyExistsError(StrCat("an FFI handler is already registered for '", target, "'"));
  }
  auto h = std::make_unique<FfiHandler>();
  h->bundle = bundle;
  h->version = version;
  Handlers().emplace(std::string(target), std::move(h));
  return absl::OkStatus();
}

const FfiHandler* FindFfiHandler(std::string_view target) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Handlers().find(target);
  return it == Handlers().end() ? nullptr : it->second.get();
}

absl::StatusOr<int64_t> RegisterFfiType(std::string_view name, int64_t id, void (*deleter)(void*)) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Types().find(name);
  if (it != Types().end()) {
    if (id != 0 && id != it->second)
      return absl::InvalidArgumentError(StrCat("type '", name, "' has id ", it->second, ", not ", id));
    if (deleter) TypeDeleters()[it->second] = deleter;
    return it->second;
  }
  int64_t next = 1;
  for (const auto& [n, v] : Types()) next = std::max(next, v + 1);
  if (id == 0) id = next;
  Types().emplace(std::string(name), id);
  if (deleter) TypeDeleters()[id] = deleter;
  return id;
}

FfiDeleter FfiTypeDeleter(int64_t id) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = TypeDeleters().find(id);
  return it == TypeDeleters().end() ? nullptr : it->second;
}

absl::Status EncodeFfiAttrs(const ir::Attribute& dict, FfiAttrs* out) {
  if (dict && dict.kind() == ir::AttrKind::kDictionary) {
    for (const auto& [name, a] : dict->fields) {
      out->strings.push_back(name);
      out->spans.push_back({out->strings.back().data(), out->strings.back().size()});
      out->names.push_back(&out->spans.back());
      const size_t before = out->types.size();
      switch (a.kind()) {
        case ir::AttrKind::kBool: PutScalar<uint8_t>(out, XLA_FFI_DataType_PRED, a->int_value != 0); break;
        case ir::AttrKind::kInteger: {
          ElemKind k = a->type && a->type.IsElement() ? a->type.elem() : ElemKind::kI64;
          const int64_t v = a->int_value;
          switch (k) {
            case ElemKind::kI1: PutScalar<uint8_t>(out, XLA_FFI_DataType_PRED, v != 0); break;
            case ElemKind::kI8: PutScalar<int8_t>(out, XLA_FFI_DataType_S8, static_cast<int8_t>(v)); break;
            case ElemKind::kI16: PutScalar<int16_t>(out, XLA_FFI_DataType_S16, static_cast<int16_t>(v)); break;
            case ElemKind::kI32: PutScalar<int32_t>(out, XLA_FFI_DataType_S32, static_cast<int32_t>(v)); break;
            case ElemKind::kU8: PutScalar<uint8_t>(out, XLA_FFI_DataType_U8, static_cast<uint8_t>(v)); break;
            case ElemKind::kU16: PutScalar<uint16_t>(out, XLA_FFI_DataType_U16, static_cast<uint16_t>(v)); break;
            case ElemKind::kU32: PutScalar<uint32_t>(out, XLA_FFI_DataType_U32, static_cast<uint32_t>(v)); break;
            case ElemKind::kU64: PutScalar<uint64_t>(out, XLA_FFI_DataType_U64, static_cast<uint64_t>(v)); break;
            default: PutScalar<int64_t>(out, XLA_FFI_DataType_S64, v); break;
          }
          break;
        }
        case ir::AttrKind::kFloat:
          if (a->type && a->type.IsElement() && a->type.elem() == ElemKind::kF32) {
            PutScalar<float>(out, XLA_FFI_DataType_F32, static_cast<float>(a->float_value));
          } else {
            PutScalar<double>(out, XLA_FFI_DataType_F64, a->float_value);
          }
          break;
        case ir::AttrKind::kString:
          out->strings.push_back(a->str);
          out->spans.push_back({out->strings.back().data(), out->strings.back().size()});
          out->types.push_back(XLA_FFI_AttrType_STRING);
          out->values.push_back(&out->spans.back());
          break;
        case ir::AttrKind::kDenseArray: {
          ElemKind k = a->type && a->type.IsElement() ? a->type.elem() : ElemKind::kI64;
          XLA_FFI_DataType dt = DataTypeOf(k);
          std::vector<uint8_t> data;
          const size_t n = a->floats.empty() ? a->ints.size() : a->floats.size();
          const int es = ir::ByteSize(k);
          if (dt == XLA_FFI_DataType_INVALID || es <= 0 || es > 8)
            return absl::InvalidArgumentError(StrCat("attribute '", name, "': arrays of this element type cannot be passed to an FFI handler"));
          data.resize(n * es);
          for (size_t i = 0; i < n; ++i) {
            if (!a->floats.empty()) {
              if (k == ElemKind::kF32) {
                float f = static_cast<float>(a->floats[i]);
                std::memcpy(data.data() + i * es, &f, 4);
              } else if (k == ElemKind::kF64) {
                std::memcpy(data.data() + i * es, &a->floats[i], 8);
              } else {
                return absl::InvalidArgumentError(StrCat("attribute '", name, "': only f32/f64 float arrays can be passed"));
              }
            } else {
              int64_t v = a->ints[i];
              std::memcpy(data.data() + i * es, &v, es);  // little-endian truncation
            }
          }
          out->bytes.push_back(std::move(data));
          out->arrays.push_back({dt, n, out->bytes.back().data()});
          out->types.push_back(XLA_FFI_AttrType_ARRAY);
          out->values.push_back(&out->arrays.back());
          break;
        }
        case ir::AttrKind::kDenseElements: {
          ir::Type et = a->type.element_type();
          if (a->type.rank() > 1 || !et.IsElement() || DataTypeOf(et.elem()) == XLA_FFI_DataType_INVALID || !a->data)
            return absl::InvalidArgumentError(StrCat("attribute '", name, "': only 1-D dense elements can be passed to an FFI handler"));
          const int64_t n = a->type.NumElements();
          const int es = ir::ByteSize(et.elem());
          std::vector<uint8_t> data(static_cast<size_t>(n * es));
          for (int64_t i = 0; i < n; ++i)
            std::memcpy(data.data() + i * es, a->data->data() + (a->splat ? 0 : i * es), es);
          out->bytes.push_back(std::move(data));
          out->arrays.push_back({DataTypeOf(et.elem()), static_cast<size_t>(n), out->bytes.back().data()});
          out->types.push_back(XLA_FFI_AttrType_ARRAY);
          out->values.push_back(&out->arrays.back());
          break;
        }
        case ir::AttrKind::kDictionary: {
          out->dicts.push_back(std::make_unique<FfiAttrs>());
          absl::Status s = EncodeFfiAttrs(a, out->dicts.back().get());
          if (!s.ok()) return s;
          out->types.push_back(XLA_FFI_AttrType_DICTIONARY);
          out->values.push_back(&out->dicts.back()->c);
          break;
        }
        default:
          break;
      }
      if (out->types.size() == before)
        return absl::InvalidArgumentError(StrCat("attribute '", name, "' cannot be passed to an FFI handler"));
    }
  }
  out->c.struct_size = sizeof(XLA_FFI_Attrs);
  out->c.extension_start = nullptr;
  out->c.size = static_cast<int64_t>(out->types.size());
  out->c.types = out->types.data();
  out->c.names = out->names.data();
  out->c.attrs = out->values.data();
  return absl::OkStatus();
}

KernelFn FfiCallKernel() { return &FfiCall; }

}  // namespace openpjrt::cpu
