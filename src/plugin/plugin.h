// ABI glue shared by the plugin's sections: the handle structs behind the opaque PJRT types,
// error construction, Args validation and element-type mapping. Each handle is a thin struct
// that owns or points at one runtime object.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "include/openpjrt/c/pjrt_c_api.h"
#include "src/cpu/exec/ffi.h"
#include "include/openpjrt/c/pjrt_c_api_ffi_extension.h"
#include "include/openpjrt/c/pjrt_c_api_layouts_extension.h"
#include "include/openpjrt/c/pjrt_c_api_memory_descriptions_extension.h"
#include "include/openpjrt/c/pjrt_c_api_shardings_extension.h"
#include "src/distributed/distributed.h"
#include "src/runtime/client.h"
#include "src/runtime/executable.h"

// PJRT_Error and PJRT_Memory are defined by the header (a function table pointer first); the
// plugin's objects extend them.
struct ErrorImpl : PJRT_Error {
  absl::Status status;
  std::string message;
  std::vector<std::pair<std::string, std::string>> payloads;
};

struct PJRT_Event {
  openpjrt::runtime::EventRef event;
  bool shared = false;   // the one handle of the shared ready-OK event: Destroy leaves it alone
  bool promise = false;  // made by PJRT_Event_Create: destroyed unset, its waiters fail
};

struct PJRT_DeviceDescription {
  int id = 0;
  int process_index = 0;
  std::string kind, debug_string, to_string;
  std::vector<std::string> attr_names;
  std::vector<PJRT_NamedValue> attributes;
  std::vector<int64_t> coords;
};

struct MemoryImpl : PJRT_Memory {
  openpjrt::runtime::Memory* memory = nullptr;
  std::vector<PJRT_Device*> devices;  // the one device that addresses it
  std::mutex mu;
  struct UserData {
    void* data;
    void (*dtor)(void*);
  };
  std::map<const void*, UserData> user_data;
  ~MemoryImpl();
};

struct PJRT_Device {
  openpjrt::runtime::Device* device = nullptr;
  PJRT_Client* client = nullptr;
  PJRT_DeviceDescription description;
  std::vector<PJRT_Memory*> memories;
};

struct PJRT_TopologyDescription {
  std::vector<std::unique_ptr<PJRT_DeviceDescription>> descriptions;
  std::vector<PJRT_DeviceDescription*> description_ptrs;
  std::vector<PJRT_NamedValue> attributes;
  std::vector<int> memory_kind_ids;
  int device_count = 0;
  bool owned_by_client = false;  // a client's own topology is freed with the client
};

struct PJRT_Client {
  std::unique_ptr<openpjrt::runtime::Client> client;
  std::vector<std::unique_ptr<PJRT_Device>> devices;
  std::vector<PJRT_Device*> device_ptrs;
  std::vector<PJRT_Device*> addressable_ptrs;  // this process's (all of device_ptrs in one process)
  std::vector<std::unique_ptr<MemoryImpl>> memories;
  std::vector<PJRT_Memory*> memory_ptrs;
  std::map<const openpjrt::runtime::Device*, PJRT_Device*> device_of;
  std::map<const openpjrt::runtime::Memory*, PJRT_Memory*> memory_of;
  PJRT_TopologyDescription topology;
  // Alias buffers not fulfilled yet, by their fulfil callback: destroying the client fails them
  // (their readers learn the data never arrived) and frees the callbacks.
  std::mutex alias_mu;
  std::map<PJRT_FulfillAliasBufferCallback*, openpjrt::runtime::BufferRef> pending_aliases;
};

struct PJRT_Buffer {
  openpjrt::runtime::BufferRef buffer;
  PJRT_Client* client = nullptr;
  // For GetMemoryLayout (inline up to rank 6: no allocation per buffer).
  absl::InlinedVector<int64_t, 6> minor_to_major;
};

// Layouts extension: a dense layout is its minor-to-major order (row-major on this plugin).
struct PJRT_Layouts_MemoryLayout {
  std::vector<int64_t> minor_to_major;
};
struct PJRT_Layouts_SerializedLayout {
  std::string bytes;  // XLA's text form, "{1,0}"
};

// An execute context: user data for FFI handlers (PJRT_FFI_UserData_Add), freed with it by the
// deleter its type was registered with (PJRT_FFI_Type_Info).
struct PJRT_ExecuteContext {
  std::vector<PJRT_FFI_UserData> user_data;
  ~PJRT_ExecuteContext() {
    for (PJRT_FFI_UserData& u : user_data)
      if (auto deleter = openpjrt::cpu::FfiTypeDeleter(u.type_id)) deleter(u.data);
  }
};

// MemoryDescriptions extension: one per memory kind, shared by every CPU device description.
struct PJRT_MemoryDescription {
  const char* kind;
  int kind_id;
};

struct PJRT_Executable {
  std::shared_ptr<const openpjrt::runtime::Executable> exe;
  // Arrays the getters hand out; built once, live as long as the handle.
  std::vector<PJRT_Buffer_Type> output_types;
  std::vector<int64_t> output_dims;
  std::vector<size_t> output_dim_sizes;
  std::vector<const char*> output_kinds, param_kinds;
  std::vector<size_t> output_kind_sizes, param_kind_sizes;
  std::vector<PJRT_NamedValue> cost;
  // Layouts extension: owned by the handle, handed out as arrays of pointers.
  std::vector<PJRT_Layouts_MemoryLayout> output_layouts, param_layouts;
  std::vector<PJRT_Layouts_MemoryLayout*> output_layout_ptrs, param_layout_ptrs;
  // Shardings extension: pointers into exe's serialized OpSharding messages.
  std::vector<const char*> output_sharding_ptrs, param_sharding_ptrs;
  std::vector<size_t> output_sharding_sizes, param_sharding_sizes;
};

struct PJRT_LoadedExecutable {
  std::unique_ptr<openpjrt::runtime::LoadedExecutable> loaded;
  PJRT_Client* client = nullptr;
  std::vector<PJRT_Device*> devices;
  std::vector<PJRT_LogicalDeviceIds> logical_ids;
};

inline ErrorImpl* Impl(PJRT_Error* e) { return static_cast<ErrorImpl*>(e); }
inline const ErrorImpl* Impl(const PJRT_Error* e) { return static_cast<const ErrorImpl*>(e); }
inline MemoryImpl* Impl(PJRT_Memory* m) { return static_cast<MemoryImpl*>(m); }

namespace openpjrt::plugin {

// A new error for the caller to destroy; null for an OK status.
PJRT_Error* MakeError(const absl::Status& status);
// What the plugin hands callbacks to build their errors with, and the status of one they return
// (destroying it; OK for null).
extern PJRT_CallbackError kCallbackError;
absl::Status TakeError(PJRT_Error* e);
// Null when `memory` is this process's; else an INVALID_ARGUMENT naming `where` and the device's
// process (a client spanning processes lists other processes' devices, whose memory is remote).
PJRT_Error* RefuseRemote(PJRT_Memory* memory, const char* where);
// Fails and frees the client's unfulfilled alias callbacks (PJRT_Client_Destroy).
void DropPendingAliases(PJRT_Client* client);
// The coordinator of a client spanning num_nodes > 1 processes (the key-value callbacks of
// `args`); null for one process.
absl::StatusOr<std::unique_ptr<distributed::Coordinator>> ConnectProcesses(const PJRT_Client_Create_Args& args,
                                                                          const runtime::ClientOptions& options,
                                                                          int node_id, int num_nodes);
PJRT_Error* InvalidArgument(const std::string& message);
PJRT_Error* Unimplemented(const char* slot);

// Validates an Args pointer and its struct_size against the smallest size we accept.
PJRT_Error* CheckArgs(const void* args, size_t min_size, size_t full_size, const char* type_name);
// True when the caller's struct covers `field_end` bytes (for fields added in later versions).
inline bool Covers(const void* args, size_t field_end) {
  return *static_cast<const size_t*>(args) >= field_end;
}

#define OPJ_CHECK_ARGS(Type, args)                                            \
  if (PJRT_Error* _e = ::openpjrt::plugin::CheckArgs(args, Type##_STRUCT_SIZE, Type##_STRUCT_SIZE, #Type)) \
  return _e
#define OPJ_CHECK_ARGS_MIN(Type, args, last_field)                                        \
  if (PJRT_Error* _e = ::openpjrt::plugin::CheckArgs(args, PJRT_STRUCT_SIZE(Type, last_field), \
                                                     Type##_STRUCT_SIZE, #Type))                              \
  return _e
#define OPJ_REQUIRE(Type, args, field)                                      \
  if ((args)->field == nullptr)                                             \
  return ::openpjrt::plugin::InvalidArgument(#Type "." #field " is null")
#define OPJ_FIELD_END(Type, field) PJRT_STRUCT_SIZE(Type, field)

// Reads an enum field the caller wrote without loading it as the enum type: a value outside the
// enumerators (a client bug, or a newer client) is then an int to reject, not undefined behaviour.
template <typename E>
int RawEnum(const E& field) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

// A PJRT_Error_Code field read raw: the status code it names; a value outside the codes (which a
// caller may write) becomes UNKNOWN, and `valid` says whether it was one.
inline absl::StatusCode StatusCodeOf(int raw, bool* valid = nullptr) {
  const bool ok = raw >= PJRT_Error_Code_OK && raw <= PJRT_Error_Code_UNAUTHENTICATED;
  if (valid) *valid = ok;
  return ok ? static_cast<absl::StatusCode>(raw) : absl::StatusCode::kUnknown;
}

// Element types (PJRT_Buffer_Type values as ints). False when the value has no StableHLO type.
bool ToElemKind(int t, ir::ElemKind* out);
PJRT_Buffer_Type ToBufferType(ir::ElemKind k);
const char* BufferTypeName(int t);
PJRT_Buffer_Type ToBufferType(const runtime::BufferShape& s);

// New handles.
PJRT_Event* WrapEvent(runtime::EventRef e);
PJRT_Buffer* WrapBuffer(PJRT_Client* client, runtime::BufferRef b);
PJRT_Executable* WrapExecutable(std::shared_ptr<const runtime::Executable> exe);

// Reads create options shared by Client_Create and TopologyDescription_Create.
absl::Status ParseClientOptions(const PJRT_NamedValue* options, size_t n, const char* where,
                                runtime::ClientOptions* out);

// Runs a slot's implementation, turning an escaping exception into an error: no C++ exception
// ever crosses the ABI.
template <typename Args, PJRT_Error* (*Fn)(Args*)>
PJRT_Error* Guarded(Args* args) noexcept {
  try {
    return Fn(args);
  } catch (const std::bad_alloc&) {
    return MakeError(absl::ResourceExhaustedError("out of host memory"));
  } catch (const std::exception& e) {
    return MakeError(absl::InternalError(std::string("unexpected exception: ") + e.what()));
  } catch (...) {
    return MakeError(absl::InternalError("unexpected exception"));
  }
}

template <typename Args, void (*Fn)(Args*)>
void GuardedVoid(Args* args) noexcept {
  try {
    Fn(args);
  } catch (...) {
  }
}

// Per-device host send/recv from PJRT_ExecuteOptions (host_transfers.cc); nothing when none.
absl::Status HostTransfersFromOptions(const PJRT_ExecuteOptions& options, size_t num_devices,
                                      std::vector<std::shared_ptr<cpu::HostTransfers>>* out);

// The head of the extension chain PJRT_Api.extension_start points at (extensions.cc).
PJRT_Extension_Base* FirstExtension();

// The function table every PJRT_Memory starts with.
const PJRT_Memory_FunctionTable* MemoryTable();

// Fills a topology (or a client's) with `count` CPU device descriptions.
void FillTopology(PJRT_TopologyDescription* t, int count);
void FillDescription(PJRT_DeviceDescription* d, int id);

}  // namespace openpjrt::plugin
