// The C++ client library: drives any PJRT plugin through the C ABI (our CPU plugin, or one a
// vendor ships). A Plugin is a dlopen'ed library with its PJRT_Api; a Client, the Buffers and
// Executables it creates, and Futures over its events are RAII handles. Every error is an
// absl::Status carrying the plugin's PJRT error code and message.
//
// Plugins of other minor versions work: a slot beyond the plugin's PJRT_Api.struct_size is never
// called (UNIMPLEMENTED naming it instead), and Args structs are passed at our size, which PJRT
// plugins accept when it is at least theirs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "include/openpjrt/c/pjrt_c_api.h"

namespace openpjrt::client {

// ------------------------------------------------------------------ plugin

using NamedValue = std::variant<int64_t, bool, double, std::string, std::vector<int64_t>>;
using Options = std::map<std::string, NamedValue>;

class Plugin {
 public:
  // Loads `path_or_name`: a path to a .so, or a plugin name ("cpu") looked up as
  // pjrt_c_api_<name>_plugin.so in $PJRT_PLUGIN_LIBRARY_PATH (':'-separated), beside the running
  // executable (../lib), and in the install prefix. An ABI of another major version is rejected.
  static absl::StatusOr<std::shared_ptr<Plugin>> Load(const std::string& path_or_name);
  ~Plugin();

  const PJRT_Api* api() const { return api_; }
  const std::string& path() const { return path_; }
  int major_version() const { return api_->pjrt_api_version.major_version; }
  int minor_version() const { return api_->pjrt_api_version.minor_version; }
  // Whether the plugin's table holds the slot at byte offset `slot_offset` (offsetof(PJRT_Api, X)).
  bool HasSlot(size_t slot_offset) const;
  // PJRT_Plugin_Attributes, by name.
  absl::StatusOr<Options> Attributes() const;

  // Turns a PJRT_Error into a Status (destroying it); OK for null.
  absl::Status ToStatus(PJRT_Error* e) const;

 private:
  Plugin() = default;
  void* handle_ = nullptr;
  const PJRT_Api* api_ = nullptr;
  std::string path_;
};

// The default plugin path of this build: $OPENPJRT_PLUGIN, else the CPU plugin beside the running
// executable (bin/../lib), else "cpu" (searched as Load describes).
std::string DefaultPluginPath();

// ------------------------------------------------------------------ element types

// Bytes per element of a PJRT buffer type (sub-byte types take one byte each); 0 when unknown.
int64_t ElementBytes(PJRT_Buffer_Type t);
// "f32", "bf16", "s8", ... (StableHLO spelling: i32, ui8, f32, i1); "" when unknown.
std::string ElementName(PJRT_Buffer_Type t);
// The type of a StableHLO element spelling ("f32", "i1", "ui16"); INVALID when unknown.
PJRT_Buffer_Type ElementFromName(std::string_view name);

template <typename T>
constexpr PJRT_Buffer_Type TypeOf() {
  if constexpr (std::is_same_v<T, float>) return PJRT_Buffer_Type_F32;
  else if constexpr (std::is_same_v<T, double>) return PJRT_Buffer_Type_F64;
  else if constexpr (std::is_same_v<T, bool>) return PJRT_Buffer_Type_PRED;
  else if constexpr (std::is_same_v<T, int8_t>) return PJRT_Buffer_Type_S8;
  else if constexpr (std::is_same_v<T, int16_t>) return PJRT_Buffer_Type_S16;
  else if constexpr (std::is_same_v<T, int32_t>) return PJRT_Buffer_Type_S32;
  else if constexpr (std::is_same_v<T, int64_t>) return PJRT_Buffer_Type_S64;
  else if constexpr (std::is_same_v<T, uint8_t>) return PJRT_Buffer_Type_U8;
  else if constexpr (std::is_same_v<T, uint16_t>) return PJRT_Buffer_Type_U16;
  else if constexpr (std::is_same_v<T, uint32_t>) return PJRT_Buffer_Type_U32;
  else if constexpr (std::is_same_v<T, uint64_t>) return PJRT_Buffer_Type_U64;
  else static_assert(sizeof(T) == 0, "no PJRT element type for this C++ type");
}

// ------------------------------------------------------------------ handles

class ClientState;
class Future;

struct Memory {
  PJRT_Memory* handle = nullptr;
  int id = 0;
  std::string kind;
};

struct Device {
  PJRT_Device* handle = nullptr;
  int id = 0;
  int process_index = 0;
  int local_hardware_id = -1;
  std::string kind, debug_string;
  std::vector<Memory> memories;
  Memory default_memory;
};

// A completion event. Await blocks; OnReady runs `fn` with the outcome once (maybe at once).
class Future {
 public:
  Future() = default;
  Future(std::shared_ptr<ClientState> c, PJRT_Event* e) : client_(std::move(c)), event_(e) {}
  Future(Future&& o) noexcept;
  Future& operator=(Future&& o) noexcept;
  ~Future();
  absl::Status Await();
  bool IsReady() const;
  // The outcome of a future that IsReady() reported ready, without waiting (PJRT_Event_Error).
  absl::Status ReadyStatus() const;
  void OnReady(std::function<void(absl::Status)> fn);
  bool valid() const { return event_ != nullptr; }
  PJRT_Event* handle() const { return event_; }

 private:
  std::shared_ptr<ClientState> client_;
  PJRT_Event* event_ = nullptr;
};

class Buffer {
 public:
  Buffer() = default;
  Buffer(std::shared_ptr<ClientState> c, PJRT_Buffer* b) : client_(std::move(c)), buffer_(b) {}
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer();

  PJRT_Buffer* handle() const { return buffer_; }
  bool valid() const { return buffer_ != nullptr; }
  PJRT_Buffer_Type element_type() const;
  std::vector<int64_t> dims() const;
  int64_t num_elements() const;
  int device_id() const;
  Future Ready() const;
  // Copies to host memory (dense, row-major), waiting for the data.
  absl::StatusOr<std::vector<uint8_t>> ToHost() const;
  absl::Status Delete();

 private:
  std::shared_ptr<ClientState> client_;
  PJRT_Buffer* buffer_ = nullptr;
  mutable std::atomic<int> device_id_{-2};  // cached by device_id(): a buffer never changes device
};

struct CompileOptions {
  // 0: not given. Compile resolves it before calling the plugin (plugins such as XLA's take the
  // counts literally and abort on 0): the module attribute mhlo.num_replicas / mhlo.num_partitions
  // of an MLIR text program, the counts in an "hlo_with_config" program's config, else 1 (for
  // MLIR bytecode and "hlo" too: pass the counts explicitly there).
  int num_replicas = 0;
  int num_partitions = 0;
  bool portable = false;  // compile_portable_executable: run on any one device
  // The PJRT program format: "mlir" (StableHLO text or bytecode), "hlo" (a serialized
  // HloModuleProto) or "hlo_with_config" (a serialized HloModuleProtoWithConfig). Empty: "mlir",
  // except that CompileFile reads files named *.pb as "hlo".
  std::string format;
};

struct ExecuteOptions {
  std::vector<int64_t> non_donatable_input_indices;
  const Device* execute_device = nullptr;  // portable executables
  // openpjrt's execute-order extension (include/openpjrt/c/openpjrt_execute_order_extension.h),
  // chained only when either is set: executions with the same non-zero stream id run in launch
  // order; wait_for are futures the execution waits for beyond its arguments (their errors
  // become its outputs'). Another plugin ignores them.
  int64_t stream_id = 0;
  std::vector<const Future*> wait_for;
};

class Executable {
 public:
  Executable() = default;
  Executable(std::shared_ptr<ClientState> c, PJRT_LoadedExecutable* e);
  Executable(Executable&& o) noexcept;
  Executable& operator=(Executable&& o) noexcept;
  ~Executable();

  PJRT_LoadedExecutable* handle() const { return exe_; }
  const std::string& name() const { return name_; }
  size_t num_outputs() const { return num_outputs_; }
  size_t num_devices() const { return num_devices_; }
  // Runs with args[device][i]; returns outputs[device][j] (not yet ready: see Buffer::Ready).
  // `done`, when given, receives one future per device that completes with the execution's
  // outcome (also for programs without outputs, whose failures only show there).
  absl::StatusOr<std::vector<std::vector<Buffer>>> Execute(
      const std::vector<std::vector<const Buffer*>>& args, const ExecuteOptions& options = {},
      std::vector<Future>* done = nullptr) const;
  // The single-device form (the common call; no nested lists): args for the one device,
  // returns its outputs.
  absl::StatusOr<std::vector<Buffer>> ExecuteOne(std::span<const Buffer* const> args,
                                                 const ExecuteOptions& options = {}, Future* done = nullptr) const;

 private:
  // The PJRT call for n devices: in_ptrs[d] lists num_args handles; out receives n lists of
  // num_outputs_ + 1 handles (out_ptrs[d]); events, when not null, one event per device.
  absl::Status Launch(size_t n, size_t num_args, PJRT_Buffer* const* const* in_ptrs, PJRT_Buffer** const* out_ptrs,
                      const ExecuteOptions& options, PJRT_Event** events) const;

  std::shared_ptr<ClientState> client_;
  PJRT_LoadedExecutable* exe_ = nullptr;
  std::string name_;
  size_t num_outputs_ = 0, num_devices_ = 0;
};

class Client {
 public:
  static absl::StatusOr<std::unique_ptr<Client>> Create(std::shared_ptr<Plugin> plugin,
                                                        const Options& options = {});
  const Plugin& plugin() const;
  std::string platform_name() const;
  std::string platform_version() const;
  const std::vector<Device>& devices() const;  // addressable devices
  absl::StatusOr<const Device*> device(int id) const;

  // Compiles StableHLO (MLIR text or a portable artifact in bytecode; format "mlir").
  absl::StatusOr<Executable> Compile(std::string_view program, const CompileOptions& options = {}) const;
  absl::StatusOr<Executable> CompileFile(const std::string& path, const CompileOptions& options = {}) const;
  // Copies `data` (dense row-major, ElementBytes(type) per element) to `device` (null: first).
  absl::StatusOr<Buffer> Upload(const void* data, PJRT_Buffer_Type type, const std::vector<int64_t>& dims,
                                const Device* device = nullptr) const;
  // The same from a typed span; the element type follows T (float, double, int8_t ... uint64_t,
  // bool) and the size must match `dims`.
  template <typename T>
  absl::StatusOr<Buffer> Upload(std::span<const T> data, const std::vector<int64_t>& dims,
                                const Device* device = nullptr) const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    if (n != static_cast<int64_t>(data.size()))
      return absl::InvalidArgumentError("Upload: the span holds " + std::to_string(data.size()) +
                                        " elements; the shape has " + std::to_string(n));
    return Upload(data.data(), TypeOf<T>(), dims, device);
  }

 private:
  explicit Client(std::shared_ptr<ClientState> s) : state_(std::move(s)) {}
  std::shared_ptr<ClientState> state_;
};

// The serialized xla.CompileOptionsProto for `options` (what Compile sends).
std::string SerializeCompileOptions(const CompileOptions& options);
// `options` with zero device counts replaced as CompileOptions describes.
CompileOptions ResolveDeviceCounts(std::string_view program, const CompileOptions& options);

}  // namespace openpjrt::client
