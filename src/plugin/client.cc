// Plugin attributes, client creation and queries, topology descriptions.
#include <cstring>

#include "src/plugin/slots.h"
#include "src/support/str.h"

using namespace openpjrt;
using plugin::InvalidArgument;
using plugin::MakeError;

namespace openpjrt::plugin {
namespace {

PJRT_NamedValue NamedInt(const char* name, int64_t v) {
  PJRT_NamedValue nv{};
  nv.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  nv.name = name;
  nv.name_size = std::strlen(name);
  nv.type = PJRT_NamedValue_kInt64;
  nv.int64_value = v;
  nv.value_size = 1;
  return nv;
}

PJRT_NamedValue NamedList(const char* name, const int64_t* v, size_t n) {
  PJRT_NamedValue nv = NamedInt(name, 0);
  nv.type = PJRT_NamedValue_kInt64List;
  nv.int64_array_value = v;
  nv.value_size = n;
  return nv;
}

const char* TypeName(int t) {
  switch (t) {
    case PJRT_NamedValue_kString: return "string";
    case PJRT_NamedValue_kInt64: return "int64";
    case PJRT_NamedValue_kInt64List: return "int64 list";
    case PJRT_NamedValue_kFloat: return "float";
    case PJRT_NamedValue_kBool: return "bool";
  }
  return "unknown";
}

}  // namespace

void FillDescription(PJRT_DeviceDescription* d, int id) {
  d->id = id;
  d->kind = "cpu";
  d->debug_string = StrCat("TFRT_CPU_", id);
  d->to_string = StrCat("CpuDevice(id=", id, ")");
  d->coords = {id};
  d->attributes = {NamedList("coords", d->coords.data(), d->coords.size())};
}

void FillTopology(PJRT_TopologyDescription* t, int count) {
  t->device_count = count;
  t->descriptions.clear();
  t->description_ptrs.clear();
  for (int i = 0; i < count; ++i) {
    t->descriptions.push_back(std::make_unique<PJRT_DeviceDescription>());
    FillDescription(t->descriptions.back().get(), i);
    t->description_ptrs.push_back(t->descriptions.back().get());
  }
  t->memory_kind_ids = {0, 1, 2};
}

absl::Status ParseClientOptions(const PJRT_NamedValue* options, size_t n, const char* where,
                                runtime::ClientOptions* out) {
  if (n > 0 && options == nullptr)
    return absl::InvalidArgumentError(StrCat(where, ".create_options is null but num_options is ", n));
  for (size_t i = 0; i < n; ++i) {
    const PJRT_NamedValue& o = options[i];
    if (o.struct_size < PJRT_STRUCT_SIZE(PJRT_NamedValue, value_size))
      return absl::InvalidArgumentError(StrCat(where, ".create_options[", i, "].struct_size is ",
                                               o.struct_size, ", expected at least ",
                                               static_cast<size_t>(PJRT_NamedValue_STRUCT_SIZE)));
    if (!o.name) return absl::InvalidArgumentError(StrCat(where, ".create_options[", i, "].name is null"));
    std::string name(o.name, o.name_size);
    auto want = [&](PJRT_NamedValue_Type t) -> absl::Status {
      if (RawEnum(o.type) == t) return absl::OkStatus();
      return absl::InvalidArgumentError(StrCat("create option '", name, "' must be ", TypeName(t),
                                               ", got ", TypeName(RawEnum(o.type))));
    };
    auto int_in = [&](int64_t lo, int64_t hi, int64_t* v) -> absl::Status {
      if (absl::Status s = want(PJRT_NamedValue_kInt64); !s.ok()) return s;
      if (o.int64_value < lo || o.int64_value > hi)
        return absl::InvalidArgumentError(StrCat("create option '", name, "' must be from ", lo, " to ",
                                                 hi, ", got ", o.int64_value));
      *v = o.int64_value;
      return absl::OkStatus();
    };
    int64_t v = 0;
    absl::Status s;
    if (name == "cpu_device_count") {
      s = int_in(1, 4096, &v);
      out->device_count = static_cast<int>(v);
    } else if (name == "asynchronous") {
      s = want(PJRT_NamedValue_kBool);
      out->asynchronous = o.bool_value;
    } else if (name == "process_id" || name == "node_id") {
      s = int_in(0, 1 << 20, &v);
      out->process_id = static_cast<int>(v);
    } else if (name == "num_nodes") {
      s = int_in(1, 1 << 20, &v);
      out->num_nodes = static_cast<int>(v);
    } else if (name == "partition_index") {
      // Which slice of a multi-slice job this process is in (jax.distributed): CPU clients form
      // one slice, so it only has to be a valid index.
      s = int_in(0, 1 << 20, &v);
    } else if (name == "collectives_timeout_ms") {
      s = int_in(1, INT32_MAX, &v);
      out->collectives_timeout_ms = static_cast<int>(v);
    } else if (name == "max_inflight_computations") {
      s = int_in(1, 1 << 20, &v);
      out->max_inflight_computations = static_cast<int>(v);
    } else if (name == "intra_op_threads") {
      s = int_in(0, 1024, &v);
      out->intra_op_threads = static_cast<int>(v);
    } else if (name == "memory_limit_bytes") {
      s = int_in(0, INT64_MAX, &v);
      out->memory_limit_bytes = v;
    } else if (name == "oom_retry_timeout_ms") {
      s = int_in(0, INT32_MAX, &v);
      out->oom_retry_timeout_ms = static_cast<int>(v);
    } else if (name == "deterministic") {
      s = want(PJRT_NamedValue_kBool);
      out->deterministic = o.bool_value;
    } else if (name == "flush_denormals") {
      s = want(PJRT_NamedValue_kBool);
      out->flush_denormals = o.bool_value;
    } else {
      s = absl::InvalidArgumentError(StrCat(
          "unknown create option '", name, "'; the CPU plugin takes cpu_device_count, asynchronous, "
          "process_id (or node_id), num_nodes, partition_index, collectives_timeout_ms, "
          "max_inflight_computations, intra_op_threads, memory_limit_bytes, oom_retry_timeout_ms, deterministic, "
          "flush_denormals"));
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace openpjrt::plugin

// ------------------------------------------------------------------ plugin

PJRT_Error* OPJ_Plugin_Initialize(PJRT_Plugin_Initialize_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Plugin_Initialize_Args, args);
  return nullptr;
}

PJRT_Error* OPJ_Plugin_Attributes(PJRT_Plugin_Attributes_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Plugin_Attributes_Args, args);
  // The StableHLO versions read in full: portable artifacts from 0.9.0 to 1.20.0 (every golden
  // pair of that range reads to its text module; tests/ir/vhlo_golden_test.sh). xla_version 2 is
  // what JAX expects of plugins whose compile options and serialized executables are
  // self-describing.
  static const int64_t kCurrent[3] = {1, 20, 0};
  static const int64_t kMinimum[3] = {0, 9, 0};
  static const PJRT_NamedValue attrs[] = {
      plugin::NamedInt("xla_version", 2),
      plugin::NamedList("stablehlo_current_version", kCurrent, 3),
      plugin::NamedList("stablehlo_minimum_version", kMinimum, 3),
  };
  args->attributes = attrs;
  args->num_attributes = 3;
  return nullptr;
}

// ------------------------------------------------------------------ client

PJRT_Error* OPJ_Client_Create(PJRT_Client_Create_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Client_Create_Args, args, client);
  runtime::ClientOptions options;
  if (absl::Status s = plugin::ParseClientOptions(args->create_options, args->num_options,
                                                  "PJRT_Client_Create_Args", &options);
      !s.ok())
    return MakeError(s);
  if (options.num_nodes > 1 && options.process_id >= options.num_nodes)
    return InvalidArgument(StrCat("PJRT_Client_Create_Args: create option node_id is ", options.process_id,
                                  " but num_nodes is ", options.num_nodes));
  auto coordinator = plugin::ConnectProcesses(*args, options, options.process_id, options.num_nodes);
  if (!coordinator.ok()) return MakeError(coordinator.status());
  auto c = std::make_unique<PJRT_Client>();
  c->client = std::make_unique<runtime::Client>(options, *std::move(coordinator));
  static const PJRT_Memory_FunctionTable* table = plugin::MemoryTable();
  for (runtime::Device* d : c->client->devices()) {
    auto pd = std::make_unique<PJRT_Device>();
    pd->device = d;
    pd->client = c.get();
    plugin::FillDescription(&pd->description, d->id());
    pd->description.process_index = d->process_index();
    if (d->addressable()) c->addressable_ptrs.push_back(pd.get());
    for (runtime::Memory* m : d->memories()) {
      auto pm = std::make_unique<MemoryImpl>();
      pm->vtable = table;
      pm->memory = m;
      pm->devices = {pd.get()};
      pd->memories.push_back(pm.get());
      c->memory_of[m] = pm.get();
      if (d->addressable()) c->memory_ptrs.push_back(pm.get());
      c->memories.push_back(std::move(pm));
    }
    c->device_of[d] = pd.get();
    c->device_ptrs.push_back(pd.get());
    c->devices.push_back(std::move(pd));
  }
  plugin::FillTopology(&c->topology, static_cast<int>(c->client->devices().size()));
  for (size_t i = 0; i < c->topology.descriptions.size(); ++i)
    c->topology.descriptions[i]->process_index = c->client->devices()[i]->process_index();
  c->topology.owned_by_client = true;
  args->client = c.release();
  return nullptr;
}

PJRT_Error* OPJ_Client_Destroy(PJRT_Client_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_Destroy_Args, args);
  if (args->client) plugin::DropPendingAliases(args->client);
  delete args->client;
  return nullptr;
}

PJRT_Error* OPJ_Client_PlatformName(PJRT_Client_PlatformName_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_PlatformName_Args, args);
  OPJ_REQUIRE(PJRT_Client_PlatformName_Args, args, client);
  args->platform_name = "cpu";
  args->platform_name_size = 3;
  return nullptr;
}

PJRT_Error* OPJ_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_ProcessIndex_Args, args);
  OPJ_REQUIRE(PJRT_Client_ProcessIndex_Args, args, client);
  args->process_index = args->client->client->options().process_id;
  return nullptr;
}

PJRT_Error* OPJ_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_PlatformVersion_Args, args);
  OPJ_REQUIRE(PJRT_Client_PlatformVersion_Args, args, client);
  const std::string& v = args->client->client->platform_version();
  args->platform_version = v.data();
  args->platform_version_size = v.size();
  return nullptr;
}

PJRT_Error* OPJ_Client_TopologyDescription(PJRT_Client_TopologyDescription_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_TopologyDescription_Args, args);
  OPJ_REQUIRE(PJRT_Client_TopologyDescription_Args, args, client);
  args->topology = &args->client->topology;
  return nullptr;
}

PJRT_Error* OPJ_Client_Devices(PJRT_Client_Devices_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_Devices_Args, args);
  OPJ_REQUIRE(PJRT_Client_Devices_Args, args, client);
  args->devices = args->client->device_ptrs.data();
  args->num_devices = args->client->device_ptrs.size();
  return nullptr;
}

PJRT_Error* OPJ_Client_AddressableDevices(PJRT_Client_AddressableDevices_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_AddressableDevices_Args, args);
  OPJ_REQUIRE(PJRT_Client_AddressableDevices_Args, args, client);
  args->addressable_devices = args->client->addressable_ptrs.data();
  args->num_addressable_devices = args->client->addressable_ptrs.size();
  return nullptr;
}

PJRT_Error* OPJ_Client_LookupDevice(PJRT_Client_LookupDevice_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_LookupDevice_Args, args);
  OPJ_REQUIRE(PJRT_Client_LookupDevice_Args, args, client);
  runtime::Device* d = args->client->client->LookupDevice(args->id);
  if (!d)
    return MakeError(absl::InvalidArgumentError(
        StrCat("PJRT_Client_LookupDevice_Args.id is ", args->id, "; the client has devices 0..",
               args->client->device_ptrs.size() - 1)));
  args->device = args->client->device_of[d];
  return nullptr;
}

PJRT_Error* OPJ_Client_LookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_LookupAddressableDevice_Args, args);
  OPJ_REQUIRE(PJRT_Client_LookupAddressableDevice_Args, args, client);
  runtime::Device* d = args->client->client->LookupAddressableDevice(args->local_hardware_id);
  if (!d)
    return MakeError(absl::InvalidArgumentError(
        StrCat("PJRT_Client_LookupAddressableDevice_Args.local_hardware_id is ",
               args->local_hardware_id, "; the client has devices 0..",
               args->client->addressable_ptrs.size() - 1)));
  args->addressable_device = args->client->device_of[d];
  return nullptr;
}

PJRT_Error* OPJ_Client_AddressableMemories(PJRT_Client_AddressableMemories_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_AddressableMemories_Args, args);
  OPJ_REQUIRE(PJRT_Client_AddressableMemories_Args, args, client);
  args->addressable_memories = args->client->memory_ptrs.data();
  args->num_addressable_memories = args->client->memory_ptrs.size();
  return nullptr;
}

PJRT_Error* OPJ_Client_DefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_DefaultDeviceAssignment_Args, args);
  OPJ_REQUIRE(PJRT_Client_DefaultDeviceAssignment_Args, args, client);
  const int64_t r = args->num_replicas, p = args->num_partitions;
  const int64_t have = static_cast<int64_t>(args->client->device_ptrs.size());
  if (r < 1 || p < 1 || r * p > have)
    return MakeError(absl::InvalidArgumentError(
        StrCat("PJRT_Client_DefaultDeviceAssignment: ", r, " replicas x ", p,
               " partitions do not fit the client's ", have, " devices")));
  if (static_cast<int64_t>(args->default_assignment_size) < r * p)
    return MakeError(absl::InvalidArgumentError(
        StrCat("PJRT_Client_DefaultDeviceAssignment_Args.default_assignment_size is ",
               args->default_assignment_size, ", needs ", r * p)));
  OPJ_REQUIRE(PJRT_Client_DefaultDeviceAssignment_Args, args, default_assignment);
  for (int64_t i = 0; i < r * p; ++i) args->default_assignment[i] = static_cast<int>(i);
  return nullptr;
}

PJRT_Error* OPJ_Client_DmaMap(PJRT_Client_DmaMap_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_DmaMap_Args, args);
  OPJ_REQUIRE(PJRT_Client_DmaMap_Args, args, client);
  return nullptr;  // host memory needs no mapping for CPU devices
}

PJRT_Error* OPJ_Client_DmaUnmap(PJRT_Client_DmaUnmap_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_DmaUnmap_Args, args);
  OPJ_REQUIRE(PJRT_Client_DmaUnmap_Args, args, client);
  return nullptr;
}

// ------------------------------------------------------------------ topology

PJRT_Error* OPJ_TopologyDescription_Create(PJRT_TopologyDescription_Create_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_Create_Args, args);
  runtime::ClientOptions options;
  if (absl::Status s = plugin::ParseClientOptions(args->create_options, args->num_options,
                                                  "PJRT_TopologyDescription_Create_Args", &options);
      !s.ok())
    return MakeError(s);
  auto t = std::make_unique<PJRT_TopologyDescription>();
  plugin::FillTopology(t.get(), options.device_count);
  args->topology = t.release();
  return nullptr;
}

PJRT_Error* OPJ_TopologyDescription_Destroy(PJRT_TopologyDescription_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_Destroy_Args, args);
  // A client's own topology is owned by the client; only free ones made by Create/Deserialize.
  if (args->topology && !args->topology->owned_by_client) delete args->topology;
  return nullptr;
}
