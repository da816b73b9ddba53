// The client library over the PJRT C ABI. Each call fills a zeroed Args struct at our
// STRUCT_SIZE, checks that the plugin's table has the slot, and turns errors into Status.
#include "src/client/client.h"

#include <dlfcn.h>
#include <unistd.h>

#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <mutex>
#include <set>

#include "absl/container/inlined_vector.h"
#include "include/openpjrt/c/openpjrt_execute_order_extension.h"
#include "src/support/str.h"

namespace openpjrt::client {

// What every handle of one client shares: the plugin (kept loaded) and the PJRT_Client, which is
// destroyed when the last handle goes.
class ClientState {
 public:
  std::shared_ptr<Plugin> plugin;
  PJRT_Client* client = nullptr;
  std::vector<Device> devices;
  ~ClientState();
  const PJRT_Api* api() const { return plugin->api(); }
};

namespace {

#define OPJ_ARGS(Type, name)             \
  Type name;                             \
  std::memset(&name, 0, sizeof(name));   \
  name.struct_size = Type##_STRUCT_SIZE

// Calls slot `Name` of `plugin` with `args`, or UNIMPLEMENTED when the plugin's table is too short.
#define OPJ_CALL(plugin, Name, args)                                                            \
  ((plugin).HasSlot(offsetof(PJRT_Api, PJRT_##Name))                                            \
       ? (plugin).ToStatus((plugin).api()->PJRT_##Name(&(args)))                                \
       : absl::UnimplementedError(StrCat("the plugin (PJRT C API ", (plugin).major_version(), ".", \
                                         (plugin).minor_version(), ") has no PJRT_" #Name)))

#define OPJ_RETURN_IF_ERROR(expr)            \
  do {                                       \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

std::string Str(const char* p, size_t n) { return p ? std::string(p, n) : std::string(); }

struct TypeInfo {
  PJRT_Buffer_Type type;
  const char* name;
  int bytes;
};
constexpr TypeInfo kTypes[] = {
    {PJRT_Buffer_Type_PRED, "i1", 1},       {PJRT_Buffer_Type_S8, "i8", 1},
    {PJRT_Buffer_Type_S16, "i16", 2},       {PJRT_Buffer_Type_S32, "i32", 4},
    {PJRT_Buffer_Type_S64, "i64", 8},       {PJRT_Buffer_Type_U8, "ui8", 1},
    {PJRT_Buffer_Type_U16, "ui16", 2},      {PJRT_Buffer_Type_U32, "ui32", 4},
    {PJRT_Buffer_Type_U64, "ui64", 8},      {PJRT_Buffer_Type_F16, "f16", 2},
    {PJRT_Buffer_Type_F32, "f32", 4},       {PJRT_Buffer_Type_F64, "f64", 8},
    {PJRT_Buffer_Type_BF16, "bf16", 2},     {PJRT_Buffer_Type_C64, "complex<f32>", 8},
    {PJRT_Buffer_Type_C128, "complex<f64>", 16}, {PJRT_Buffer_Type_F8E5M2, "f8E5M2", 1},
    {PJRT_Buffer_Type_F8E4M3FN, "f8E4M3FN", 1}, {PJRT_Buffer_Type_F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 1},
    {PJRT_Buffer_Type_F8E5M2FNUZ, "f8E5M2FNUZ", 1}, {PJRT_Buffer_Type_F8E4M3FNUZ, "f8E4M3FNUZ", 1},
    {PJRT_Buffer_Type_S4, "i4", 1},         {PJRT_Buffer_Type_U4, "ui4", 1},
    {PJRT_Buffer_Type_S2, "i2", 1},         {PJRT_Buffer_Type_U2, "ui2", 1},
    {PJRT_Buffer_Type_F8E4M3, "f8E4M3", 1}, {PJRT_Buffer_Type_F8E3M4, "f8E3M4", 1},
    {PJRT_Buffer_Type_F8E8M0FNU, "f8E8M0FNU", 1}, {PJRT_Buffer_Type_F4E2M1FN, "f4E2M1FN", 1},
    {PJRT_Buffer_Type_F6E2M3FN, "f6E2M3FN", 1}, {PJRT_Buffer_Type_F6E3M2FN, "f6E3M2FN", 1},
};

bool FileExists(const std::string& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

std::string ExecutableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return std::filesystem::path(buf).parent_path().string();
}

void FillNamedValues(const Options& options, std::vector<PJRT_NamedValue>* out) {
  for (const auto& [name, value] : options) {
    PJRT_NamedValue nv;
    std::memset(&nv, 0, sizeof nv);
    nv.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    nv.name = name.c_str();
    nv.name_size = name.size();
    if (auto* i = std::get_if<int64_t>(&value)) {
      nv.type = PJRT_NamedValue_kInt64;
      nv.int64_value = *i;
      nv.value_size = 1;
    } else if (auto* b = std::get_if<bool>(&value)) {
      nv.type = PJRT_NamedValue_kBool;
      nv.bool_value = *b;
      nv.value_size = 1;
    } else if (auto* d = std::get_if<double>(&value)) {
      nv.type = PJRT_NamedValue_kFloat;
      nv.float_value = static_cast<float>(*d);
      nv.value_size = 1;
    } else if (auto* s = std::get_if<std::string>(&value)) {
      nv.type = PJRT_NamedValue_kString;
      nv.string_value = s->c_str();
      nv.value_size = s->size();
    } else if (auto* l = std::get_if<std::vector<int64_t>>(&value)) {
      nv.type = PJRT_NamedValue_kInt64List;
      nv.int64_array_value = l->data();
      nv.value_size = l->size();
    }
    out->push_back(nv);
  }
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace

// ------------------------------------------------------------------ plugin

absl::StatusOr<std::shared_ptr<Plugin>> Plugin::Load(const std::string& path_or_name) {
  std::string path = path_or_name;
  if (path.find('/') == std::string::npos && path.find(".so") == std::string::npos) {
    const std::string file = StrCat("pjrt_c_api_", path_or_name, "_plugin.so");
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("PJRT_PLUGIN_LIBRARY_PATH")) {
      std::string s = env;
      for (size_t p = 0; p <= s.size();) {
        size_t e = s.find(':', p);
        if (e == std::string::npos) e = s.size();
        if (e > p) dirs.push_back(s.substr(p, e - p));
        p = e + 1;
      }
    }
    if (std::string exe = ExecutableDir(); !exe.empty()) dirs.push_back(exe + "/../lib");
    dirs.push_back("/usr/local/lib");
    dirs.push_back("/usr/lib");
    path.clear();
    for (const std::string& d : dirs)
      if (FileExists(d + "/" + file)) {
        path = d + "/" + file;
        break;
      }
    if (path.empty()) {
      std::string where;
      for (const std::string& d : dirs) StrAppend(&where, where.empty() ? "" : ", ", d);
      return absl::NotFoundError(StrCat("PJRT plugin '", path_or_name, "': no ", file, " in ", where,
                                        " (set PJRT_PLUGIN_LIBRARY_PATH or pass a path)"));
    }
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return absl::NotFoundError(StrCat("cannot load PJRT plugin ", path, ": ", dlerror()));
  using GetApi = const PJRT_Api* (*)();
  auto get = reinterpret_cast<GetApi>(dlsym(handle, "GetPjrtApi"));
  if (!get) {
    dlclose(handle);
    return absl::InvalidArgumentError(StrCat(path, " is not a PJRT plugin (no GetPjrtApi symbol)"));
  }
  const PJRT_Api* api = get();
  if (!api || api->struct_size < offsetof(PJRT_Api, PJRT_Error_Destroy) + sizeof(void*)) {
    dlclose(handle);
    return absl::InvalidArgumentError(StrCat(path, ": GetPjrtApi returned ", api ? "a truncated table" : "null"));
  }
  if (api->pjrt_api_version.major_version != PJRT_API_MAJOR) {
    const int major = api->pjrt_api_version.major_version, minor = api->pjrt_api_version.minor_version;
    dlclose(handle);
    return absl::FailedPreconditionError(StrCat(path, " implements PJRT C API ", major, ".", minor,
                                                "; this client speaks major version ", PJRT_API_MAJOR,
                                                " (minor ", PJRT_API_MINOR, ")"));
  }
  auto plugin = std::shared_ptr<Plugin>(new Plugin());
  plugin->handle_ = handle;
  plugin->api_ = api;
  plugin->path_ = path;
  // PJRT_Plugin_Initialize runs once per plugin per process.
  static std::mutex mu;
  static std::set<const PJRT_Api*> initialized;
  std::lock_guard<std::mutex> lock(mu);
  if (!initialized.count(api) && plugin->HasSlot(offsetof(PJRT_Api, PJRT_Plugin_Initialize))) {
    OPJ_ARGS(PJRT_Plugin_Initialize_Args, a);
    OPJ_RETURN_IF_ERROR(plugin->ToStatus(api->PJRT_Plugin_Initialize(&a)));
    initialized.insert(api);
  }
  return plugin;
}

Plugin::~Plugin() {
  // The library stays loaded: plugins keep threads and statics that must not be unmapped.
  (void)handle_;
}

bool Plugin::HasSlot(size_t slot_offset) const {
  if (slot_offset + sizeof(void*) > api_->struct_size) return false;
  void* fn;
  std::memcpy(&fn, reinterpret_cast<const char*>(api_) + slot_offset, sizeof fn);
  return fn != nullptr;
}

absl::Status Plugin::ToStatus(PJRT_Error* e) const {
  if (!e) return absl::OkStatus();
  OPJ_ARGS(PJRT_Error_Message_Args, m);
  m.error = e;
  api_->PJRT_Error_Message(&m);
  std::string message = Str(m.message, m.message_size);
  PJRT_Error_Code code = PJRT_Error_Code_UNKNOWN;
  if (HasSlot(offsetof(PJRT_Api, PJRT_Error_GetCode))) {
    OPJ_ARGS(PJRT_Error_GetCode_Args, g);
    g.error = e;
    if (!api_->PJRT_Error_GetCode(&g)) code = g.code;
  }
  OPJ_ARGS(PJRT_Error_Destroy_Args, d);
  d.error = e;
  api_->PJRT_Error_Destroy(&d);
  return absl::Status(static_cast<absl::StatusCode>(code), message);
}

absl::StatusOr<Options> Plugin::Attributes() const {
  OPJ_ARGS(PJRT_Plugin_Attributes_Args, a);
  OPJ_RETURN_IF_ERROR(OPJ_CALL(*this, Plugin_Attributes, a));
  Options out;
  for (size_t i = 0; i < a.num_attributes; ++i) {
    const PJRT_NamedValue& nv = a.attributes[i];
    std::string name = Str(nv.name, nv.name_size);
    switch (nv.type) {
      case PJRT_NamedValue_kInt64: out[name] = nv.int64_value; break;
      case PJRT_NamedValue_kBool: out[name] = nv.bool_value; break;
      case PJRT_NamedValue_kFloat: out[name] = static_cast<double>(nv.float_value); break;
      case PJRT_NamedValue_kString: out[name] = Str(nv.string_value, nv.value_size); break;
      case PJRT_NamedValue_kInt64List:
        out[name] = std::vector<int64_t>(nv.int64_array_value, nv.int64_array_value + nv.value_size);
        break;
    }
  }
  return out;
}

std::string DefaultPluginPath() {
  if (const char* env = std::getenv("OPENPJRT_PLUGIN")) return env;
  if (std::string exe = ExecutableDir(); !exe.empty()) {
    std::string p = exe + "/../lib/pjrt_c_api_cpu_plugin.so";
    if (FileExists(p)) return std::filesystem::path(p).lexically_normal().string();
  }
  return "cpu";
}

// ------------------------------------------------------------------ element types

int64_t ElementBytes(PJRT_Buffer_Type t) {
  for (const TypeInfo& i : kTypes)
    if (i.type == t) return i.bytes;
  return 0;
}

std::string ElementName(PJRT_Buffer_Type t) {
  for (const TypeInfo& i : kTypes)
    if (i.type == t) return i.name;
  return "";
}

PJRT_Buffer_Type ElementFromName(std::string_view name) {
  for (const TypeInfo& i : kTypes)
    if (name == i.name) return i.type;
  return PJRT_Buffer_Type_INVALID;
}

// ------------------------------------------------------------------ client

ClientState::~ClientState() {
  if (!client) return;
  OPJ_ARGS(PJRT_Client_Destroy_Args, a);
  a.client = client;
  (void)plugin->ToStatus(plugin->api()->PJRT_Client_Destroy(&a));
}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(std::shared_ptr<Plugin> plugin, const Options& options) {
  auto state = std::make_shared<ClientState>();
  state->plugin = std::move(plugin);
  const Plugin& p = *state->plugin;
  std::vector<PJRT_NamedValue> values;
  FillNamedValues(options, &values);
  OPJ_ARGS(PJRT_Client_Create_Args, a);
  a.create_options = values.data();
  a.num_options = values.size();
  OPJ_RETURN_IF_ERROR(OPJ_CALL(p, Client_Create, a));
  state->client = a.client;

  OPJ_ARGS(PJRT_Client_AddressableDevices_Args, ad);
  ad.client = state->client;
  OPJ_RETURN_IF_ERROR(OPJ_CALL(p, Client_AddressableDevices, ad));
  for (size_t i = 0; i < ad.num_addressable_devices; ++i) {
    Device d;
    d.handle = ad.addressable_devices[i];
    OPJ_ARGS(PJRT_Device_GetDescription_Args, gd);
    gd.device = d.handle;
    OPJ_RETURN_IF_ERROR(OPJ_CALL(p, Device_GetDescription, gd));
    OPJ_ARGS(PJRT_DeviceDescription_Id_Args, id);
    id.device_description = gd.device_description;
    OPJ_RETURN_IF_ERROR(OPJ_CALL(p, DeviceDescription_Id, id));
    d.id = id.id;
    OPJ_ARGS(PJRT_DeviceDescription_ProcessIndex_Args, pi);
    pi.device_description = gd.device_description;
    if (OPJ_CALL(p, DeviceDescription_ProcessIndex, pi).ok()) d.process_index = pi.process_index;
    OPJ_ARGS(PJRT_DeviceDescription_Kind_Args, k);
    k.device_description = gd.device_description;
    if (OPJ_CALL(p, DeviceDescription_Kind, k).ok()) d.kind = Str(k.device_kind, k.device_kind_size);
    OPJ_ARGS(PJRT_DeviceDescription_DebugString_Args, ds);
    ds.device_description = gd.device_description;
    if (OPJ_CALL(p, DeviceDescription_DebugString, ds).ok())
      d.debug_string = Str(ds.debug_string, ds.debug_string_size);
    OPJ_ARGS(PJRT_Device_LocalHardwareId_Args, lh);
    lh.device = d.handle;
    if (OPJ_CALL(p, Device_LocalHardwareId, lh).ok()) d.local_hardware_id = lh.local_hardware_id;
    OPJ_ARGS(PJRT_Device_AddressableMemories_Args, am);
    am.device = d.handle;
    if (OPJ_CALL(p, Device_AddressableMemories, am).ok()) {
      for (size_t m = 0; m < am.num_memories; ++m) {
        Memory mem;
        mem.handle = am.memories[m];
        OPJ_ARGS(PJRT_Memory_Id_Args, mi);
        mi.memory = mem.handle;
        if (OPJ_CALL(p, Memory_Id, mi).ok()) mem.id = mi.id;
        OPJ_ARGS(PJRT_Memory_Kind_Args, mk);
        mk.memory = mem.handle;
        if (OPJ_CALL(p, Memory_Kind, mk).ok()) mem.kind = Str(mk.kind, mk.kind_size);
        d.memories.push_back(mem);
      }
    }
    OPJ_ARGS(PJRT_Device_DefaultMemory_Args, dm);
    dm.device = d.handle;
    if (OPJ_CALL(p, Device_DefaultMemory, dm).ok())
      for (const Memory& m : d.memories)
        if (m.handle == dm.memory) d.default_memory = m;
    state->devices.push_back(std::move(d));
  }
  return std::unique_ptr<Client>(new Client(std::move(state)));
}

const Plugin& Client::plugin() const { return *state_->plugin; }

std::string Client::platform_name() const {
  OPJ_ARGS(PJRT_Client_PlatformName_Args, a);
  a.client = state_->client;
  if (!OPJ_CALL(plugin(), Client_PlatformName, a).ok()) return "";
  return Str(a.platform_name, a.platform_name_size);
}

std::string Client::platform_version() const {
  OPJ_ARGS(PJRT_Client_PlatformVersion_Args, a);
  a.client = state_->client;
  if (!OPJ_CALL(plugin(), Client_PlatformVersion, a).ok()) return "";
  return Str(a.platform_version, a.platform_version_size);
}

const std::vector<Device>& Client::devices() const { return state_->devices; }

absl::StatusOr<const Device*> Client::device(int id) const {
  for (const Device& d : state_->devices)
    if (d.id == id) return &d;
  return absl::InvalidArgumentError(StrCat("no addressable device with id ", id, " (the client has ",
                                           state_->devices.size(), ")"));
}

namespace {

// The integer after `name = ` in an MLIR text module's attribute dictionary (before its first
// function), or 0. A light scan: the client links no MLIR parser.
int64_t TextModuleInt(std::string_view text, std::string_view name) {
  const size_t body = text.find("func.func");
  const std::string_view head = text.substr(0, body);
  for (size_t p = head.find(name); p != std::string_view::npos; p = head.find(name, p + 1)) {
    size_t q = p + name.size();
    while (q < head.size() && head[q] == ' ') ++q;
    if (q >= head.size() || head[q] != '=') continue;
    ++q;
    while (q < head.size() && head[q] == ' ') ++q;
    int64_t v = 0;
    size_t digits = 0;
    for (; q < head.size() && head[q] >= '0' && head[q] <= '9' && digits < 7; ++q, ++digits)
      v = v * 10 + (head[q] - '0');
    if (digits) return v;
  }
  return 0;
}

bool ReadVarint(std::string_view s, size_t* p, uint64_t* v) {
  *v = 0;
  for (int shift = 0; *p < s.size() && shift < 64; shift += 7) {
    const uint8_t b = static_cast<uint8_t>(s[(*p)++]);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// Varint field `field` of the message that field `outer` of `proto` holds, or 0.
int64_t ProtoNestedInt(std::string_view proto, uint32_t outer, uint32_t field) {
  size_t p = 0;
  while (p < proto.size()) {
    uint64_t key = 0, v = 0;
    if (!ReadVarint(proto, &p, &key)) return 0;
    const uint32_t wire = key & 7, num = static_cast<uint32_t>(key >> 3);
    if (wire == 0) {
      if (!ReadVarint(proto, &p, &v)) return 0;
      if (num == field && outer == 0) return static_cast<int64_t>(v);
    } else if (wire == 2) {
      if (!ReadVarint(proto, &p, &v) || v > proto.size() - p) return 0;
      if (num == outer) return ProtoNestedInt(proto.substr(p, v), 0, field);
      p += v;
    } else if (wire == 1 || wire == 5) {
      p += wire == 1 ? 8 : 4;
    } else {
      return 0;
    }
  }
  return 0;
}

}  // namespace

CompileOptions ResolveDeviceCounts(std::string_view program, const CompileOptions& given) {
  CompileOptions o = given;
  if (o.num_replicas > 0 && o.num_partitions > 0) return o;
  const std::string format = o.format.empty() ? "mlir" : o.format;
  int64_t replicas = 0, partitions = 0;
  const bool bytecode = program.size() >= 4 && program.substr(0, 4) == std::string_view("ML\xefR", 4);
  if (format == "mlir" && !bytecode) {
    replicas = TextModuleInt(program, "mhlo.num_replicas");
    partitions = TextModuleInt(program, "mhlo.num_partitions");
  } else if (format == "hlo_with_config") {  // HloModuleProtoWithConfig.config (2): replica_count 4, num_partitions 5
    replicas = ProtoNestedInt(program, 2, 4);
    partitions = ProtoNestedInt(program, 2, 5);
  }
  if (o.num_replicas <= 0) o.num_replicas = static_cast<int>(replicas > 0 ? replicas : 1);
  if (o.num_partitions <= 0) o.num_partitions = static_cast<int>(partitions > 0 ? partitions : 1);
  return o;
}

std::string SerializeCompileOptions(const CompileOptions& o) {
  // xla.CompileOptionsProto: field 3 executable_build_options {4 num_replicas, 5 num_partitions},
  // field 4 compile_portable_executable.
  std::string build;
  build.push_back(0x20);
  PutVarint(&build, static_cast<uint64_t>(o.num_replicas));
  build.push_back(0x28);
  PutVarint(&build, static_cast<uint64_t>(o.num_partitions));
  std::string out;
  out.push_back(0x1a);
  PutVarint(&out, build.size());
  out += build;
  if (o.portable) {
    out.push_back(0x20);
    out.push_back(0x01);
  }
  return out;
}

absl::StatusOr<Executable> Client::Compile(std::string_view program, const CompileOptions& options) const {
  // Plugins take the counts literally (XLA's abort on 0 replicas), so "not given" is resolved here.
  std::string opts = SerializeCompileOptions(ResolveDeviceCounts(program, options));
  OPJ_ARGS(PJRT_Program, prog);
  prog.code = const_cast<char*>(program.data());
  prog.code_size = program.size();
  const std::string format = options.format.empty() ? "mlir" : options.format;
  prog.format = format.c_str();
  prog.format_size = format.size();
  OPJ_ARGS(PJRT_Client_Compile_Args, a);
  a.client = state_->client;
  a.program = &prog;
  a.compile_options = opts.data();
  a.compile_options_size = opts.size();
  OPJ_RETURN_IF_ERROR(OPJ_CALL(plugin(), Client_Compile, a));
  return Executable(state_, a.executable);
}

absl::StatusOr<Executable> Client::CompileFile(const std::string& path, const CompileOptions& options) const {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(StrCat("cannot read ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  CompileOptions o = options;
  if (o.format.empty() && path.size() > 3 && path.compare(path.size() - 3, 3, ".pb") == 0) o.format = "hlo";
  auto exe = Compile(ss.str(), o);
  if (!exe.ok()) return absl::Status(exe.status().code(), StrCat(path, ": ", exe.status().message()));
  return exe;
}

absl::StatusOr<Buffer> Client::Upload(const void* data, PJRT_Buffer_Type type, const std::vector<int64_t>& dims,
                                      const Device* device) const {
  if (!device) {
    if (state_->devices.empty()) return absl::FailedPreconditionError("the client has no addressable device");
    device = &state_->devices[0];
  }
  OPJ_ARGS(PJRT_Client_BufferFromHostBuffer_Args, a);
  a.client = state_->client;
  a.data = data;
  a.type = type;
  a.dims = dims.data();
  a.num_dims = dims.size();
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  a.device = device->handle;
  OPJ_RETURN_IF_ERROR(OPJ_CALL(plugin(), Client_BufferFromHostBuffer, a));
  Buffer b(state_, a.buffer);
  if (a.done_with_host_buffer) {
    Future done(state_, a.done_with_host_buffer);
    OPJ_RETURN_IF_ERROR(done.Await());  // the host data may be freed once we return
  }
  return b;
}

// ------------------------------------------------------------------ futures

Future::Future(Future&& o) noexcept : client_(std::move(o.client_)), event_(o.event_) { o.event_ = nullptr; }

Future& Future::operator=(Future&& o) noexcept {
  if (this != &o) {
    this->~Future();
    new (this) Future(std::move(o));
  }
  return *this;
}

Future::~Future() {
  if (!event_) return;
  OPJ_ARGS(PJRT_Event_Destroy_Args, a);
  a.event = event_;
  (void)client_->plugin->ToStatus(client_->api()->PJRT_Event_Destroy(&a));
  event_ = nullptr;
}

absl::Status Future::Await() {
  if (!event_) return absl::FailedPreconditionError("awaiting an empty future");
  const Plugin& p = *client_->plugin;
  OPJ_ARGS(PJRT_Event_Await_Args, a);
  a.event = event_;
  OPJ_RETURN_IF_ERROR(OPJ_CALL(p, Event_Await, a));
  OPJ_ARGS(PJRT_Event_Error_Args, e);
  e.event = event_;
  return OPJ_CALL(p, Event_Error, e);
}

absl::Status Future::ReadyStatus() const {
  if (!event_) return absl::FailedPreconditionError("the status of an empty future");
  OPJ_ARGS(PJRT_Event_Error_Args, e);
  e.event = event_;
  return OPJ_CALL(*client_->plugin, Event_Error, e);
}

bool Future::IsReady() const {
  if (!event_) return false;
  OPJ_ARGS(PJRT_Event_IsReady_Args, a);
  a.event = event_;
  return OPJ_CALL(*client_->plugin, Event_IsReady, a).ok() && a.is_ready;
}

void Future::OnReady(std::function<void(absl::Status)> fn) {
  if (!event_) return fn(absl::FailedPreconditionError("an empty future"));
  struct Ctx {
    std::shared_ptr<ClientState> client;
    std::function<void(absl::Status)> fn;
  };
  auto* ctx = new Ctx{client_, std::move(fn)};
  OPJ_ARGS(PJRT_Event_OnReady_Args, a);
  a.event = event_;
  a.user_arg = ctx;
  a.callback = [](PJRT_Error* error, void* arg) {
    auto* c = static_cast<Ctx*>(arg);
    c->fn(c->client->plugin->ToStatus(error));
    delete c;
  };
  if (absl::Status s = OPJ_CALL(*client_->plugin, Event_OnReady, a); !s.ok()) {
    ctx->fn(s);
    delete ctx;
  }
}

// ------------------------------------------------------------------ buffers

Buffer::Buffer(Buffer&& o) noexcept
    : client_(std::move(o.client_)), buffer_(o.buffer_), device_id_(o.device_id_.load(std::memory_order_relaxed)) {
  o.buffer_ = nullptr;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    this->~Buffer();
    new (this) Buffer(std::move(o));
  }
  return *this;
}

Buffer::~Buffer() {
  if (!buffer_) return;
  OPJ_ARGS(PJRT_Buffer_Destroy_Args, a);
  a.buffer = buffer_;
  (void)client_->plugin->ToStatus(client_->api()->PJRT_Buffer_Destroy(&a));
  buffer_ = nullptr;
}

PJRT_Buffer_Type Buffer::element_type() const {
  OPJ_ARGS(PJRT_Buffer_ElementType_Args, a);
  a.buffer = buffer_;
  return OPJ_CALL(*client_->plugin, Buffer_ElementType, a).ok() ? a.type : PJRT_Buffer_Type_INVALID;
}

std::vector<int64_t> Buffer::dims() const {
  OPJ_ARGS(PJRT_Buffer_Dimensions_Args, a);
  a.buffer = buffer_;
  if (!OPJ_CALL(*client_->plugin, Buffer_Dimensions, a).ok()) return {};
  return std::vector<int64_t>(a.dims, a.dims + a.num_dims);
}

int64_t Buffer::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims()) n *= d;
  return n;
}

int Buffer::device_id() const {
  if (int cached = device_id_.load(std::memory_order_relaxed); cached != -2) return cached;
  OPJ_ARGS(PJRT_Buffer_Device_Args, a);
  a.buffer = buffer_;
  if (!OPJ_CALL(*client_->plugin, Buffer_Device, a).ok()) return -1;
  for (const Device& d : client_->devices)
    if (d.handle == a.device) {
      device_id_.store(d.id, std::memory_order_relaxed);
      return d.id;
    }
  return -1;
}

Future Buffer::Ready() const {
  OPJ_ARGS(PJRT_Buffer_ReadyEvent_Args, a);
  a.buffer = buffer_;
  if (!OPJ_CALL(*client_->plugin, Buffer_ReadyEvent, a).ok()) return Future();
  return Future(client_, a.event);
}

absl::StatusOr<std::vector<uint8_t>> Buffer::ToHost() const {
  const Plugin& p = *client_->plugin;
  OPJ_ARGS(PJRT_Buffer_ToHostBuffer_Args, size);
  size.src = buffer_;
  OPJ_RETURN_IF_ERROR(OPJ_CALL(p, Buffer_ToHostBuffer, size));
  if (size.event) Future(client_, size.event).Await().IgnoreError();
  std::vector<uint8_t> out(size.dst_size);
  OPJ_ARGS(PJRT_Buffer_ToHostBuffer_Args, a);
  a.src = buffer_;
  a.dst = out.data();
  a.dst_size = out.size();
  OPJ_RETURN_IF_ERROR(OPJ_CALL(p, Buffer_ToHostBuffer, a));
  if (a.event) OPJ_RETURN_IF_ERROR(Future(client_, a.event).Await());
  return out;
}

absl::Status Buffer::Delete() {
  OPJ_ARGS(PJRT_Buffer_Delete_Args, a);
  a.buffer = buffer_;
  return OPJ_CALL(*client_->plugin, Buffer_Delete, a);
}

// ------------------------------------------------------------------ executables

Executable::Executable(std::shared_ptr<ClientState> c, PJRT_LoadedExecutable* e)
    : client_(std::move(c)), exe_(e) {
  const Plugin& p = *client_->plugin;
  OPJ_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args, ad);
  ad.executable = exe_;
  if (OPJ_CALL(p, LoadedExecutable_AddressableDevices, ad).ok()) num_devices_ = ad.num_addressable_devices;
  OPJ_ARGS(PJRT_LoadedExecutable_GetExecutable_Args, ge);
  ge.loaded_executable = exe_;
  if (OPJ_CALL(p, LoadedExecutable_GetExecutable, ge).ok()) {
    OPJ_ARGS(PJRT_Executable_Name_Args, n);
    n.executable = ge.executable;
    if (OPJ_CALL(p, Executable_Name, n).ok()) name_ = Str(n.executable_name, n.executable_name_size);
    OPJ_ARGS(PJRT_Executable_NumOutputs_Args, no);
    no.executable = ge.executable;
    if (OPJ_CALL(p, Executable_NumOutputs, no).ok()) num_outputs_ = no.num_outputs;
    OPJ_ARGS(PJRT_Executable_Destroy_Args, d);
    d.executable = ge.executable;
    (void)OPJ_CALL(p, Executable_Destroy, d);
  }
}

Executable::Executable(Executable&& o) noexcept
    : client_(std::move(o.client_)), exe_(o.exe_), name_(std::move(o.name_)),
      num_outputs_(o.num_outputs_), num_devices_(o.num_devices_) {
  o.exe_ = nullptr;
}

Executable& Executable::operator=(Executable&& o) noexcept {
  if (this != &o) {
    this->~Executable();
    new (this) Executable(std::move(o));
  }
  return *this;
}

Executable::~Executable() {
  if (!exe_) return;
  OPJ_ARGS(PJRT_LoadedExecutable_Destroy_Args, a);
  a.executable = exe_;
  (void)client_->plugin->ToStatus(client_->api()->PJRT_LoadedExecutable_Destroy(&a));
  exe_ = nullptr;
}

absl::StatusOr<std::vector<std::vector<Buffer>>> Executable::Execute(
    const std::vector<std::vector<const Buffer*>>& args, const ExecuteOptions& options,
    std::vector<Future>* done) const {
  const size_t n = args.size();
  const size_t num_args = n ? args[0].size() : 0;
  // Handle lists live in one flat array each (inline for small executions: no allocation).
  absl::InlinedVector<PJRT_Buffer*, 16> in(n * num_args);
  absl::InlinedVector<PJRT_Buffer* const*, 4> in_ptrs(n);
  for (size_t d = 0; d < n; ++d) {
    if (args[d].size() != num_args)
      return absl::InvalidArgumentError(StrCat("device ", d, " has ", args[d].size(), " arguments, device 0 has ",
                                               num_args));
    for (size_t i = 0; i < num_args; ++i) {
      const Buffer* b = args[d][i];
      if (!b || !b->valid()) return absl::InvalidArgumentError(StrCat("a null argument for device ", d));
      in[d * num_args + i] = b->handle();
    }
    in_ptrs[d] = in.data() + d * num_args;
  }
  // One spare slot per device keeps every list non-null, also for programs without outputs.
  const size_t stride = num_outputs_ + 1;
  absl::InlinedVector<PJRT_Buffer*, 16> out(n * stride, nullptr);
  absl::InlinedVector<PJRT_Buffer**, 4> out_ptrs(n);
  for (size_t d = 0; d < n; ++d) out_ptrs[d] = out.data() + d * stride;
  absl::InlinedVector<PJRT_Event*, 4> events(n, nullptr);
  OPJ_RETURN_IF_ERROR(Launch(n, num_args, in_ptrs.data(), out_ptrs.data(), options, done ? events.data() : nullptr));
  if (done) {
    done->clear();
    for (PJRT_Event* e : events) done->emplace_back(e ? Future(client_, e) : Future());
  }
  std::vector<std::vector<Buffer>> result(n);
  for (size_t d = 0; d < n; ++d) {
    result[d].reserve(num_outputs_);
    for (size_t i = 0; i < num_outputs_; ++i) result[d].emplace_back(client_, out[d * stride + i]);
  }
  return result;
}

absl::StatusOr<std::vector<Buffer>> Executable::ExecuteOne(std::span<const Buffer* const> args,
                                                           const ExecuteOptions& options, Future* done) const {
  absl::InlinedVector<PJRT_Buffer*, 16> in(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i] || !args[i]->valid()) return absl::InvalidArgumentError(StrCat("argument #", i, " is null"));
    in[i] = args[i]->handle();
  }
  absl::InlinedVector<PJRT_Buffer*, 16> out(num_outputs_ + 1, nullptr);  // + 1: never an empty list
  PJRT_Buffer* const* in_ptr = in.data();
  PJRT_Buffer** out_ptr = out.data();
  PJRT_Event* event = nullptr;
  OPJ_RETURN_IF_ERROR(Launch(1, args.size(), &in_ptr, &out_ptr, options, done ? &event : nullptr));
  if (done) *done = event ? Future(client_, event) : Future();
  std::vector<Buffer> result;
  result.reserve(num_outputs_);
  for (size_t i = 0; i < num_outputs_; ++i) result.emplace_back(client_, out[i]);
  return result;
}

absl::Status Executable::Launch(size_t n, size_t num_args, PJRT_Buffer* const* const* in_ptrs,
                                PJRT_Buffer** const* out_ptrs, const ExecuteOptions& options,
                                PJRT_Event** events) const {
  OPJ_ARGS(PJRT_ExecuteOptions, eo);
  eo.non_donatable_input_indices = options.non_donatable_input_indices.data();
  eo.num_non_donatable_input_indices = options.non_donatable_input_indices.size();
  OPENPJRT_ExecuteOrder_Extension order{};
  std::vector<PJRT_Event*> waits;
  if (options.stream_id != 0 || !options.wait_for.empty()) {
    for (const Future* f : options.wait_for) {
      if (!f || !f->valid()) return absl::InvalidArgumentError("ExecuteOptions.wait_for holds an empty future");
      waits.push_back(f->handle());
    }
    order.base.struct_size = OPENPJRT_ExecuteOrder_Extension_STRUCT_SIZE;
    const int tag = OPENPJRT_Extension_Type_ExecuteOrder;  // outside the enum's range: copied as bytes
    std::memcpy(&order.base.type, &tag, sizeof tag);
    order.stream_id = options.stream_id;
    order.wait_events = waits.data();
    order.num_wait_events = waits.size();
    eo.extension_start = &order.base;
  }
  OPJ_ARGS(PJRT_LoadedExecutable_Execute_Args, a);
  a.executable = exe_;
  a.options = &eo;
  a.argument_lists = in_ptrs;
  a.num_devices = n;
  a.num_args = num_args;
  a.output_lists = out_ptrs;
  if (options.execute_device) a.execute_device = options.execute_device->handle;
  a.device_complete_events = events;
  return OPJ_CALL(*client_->plugin, LoadedExecutable_Execute, a);
}

}  // namespace openpjrt::client
