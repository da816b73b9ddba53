// Device descriptions, devices, memories and the topology getters.
#include <cstring>

#include "src/plugin/slots.h"
#include "src/support/str.h"

using namespace openpjrt;
using plugin::MakeError;

namespace openpjrt::plugin {
namespace {

void* GetUserData(PJRT_Memory* pm, const void* key) {
  MemoryImpl* m = Impl(pm);
  std::lock_guard<std::mutex> lock(m->mu);
  auto it = m->user_data.find(key);
  return it == m->user_data.end() ? nullptr : it->second.data;
}

void SetUserData(PJRT_Memory* pm, const void* key, void* data, void (*dtor)(void*)) {
  MemoryImpl* m = Impl(pm);
  MemoryImpl::UserData old{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(m->mu);
    auto it = m->user_data.find(key);
    if (it != m->user_data.end()) old = it->second;
    m->user_data[key] = {data, dtor};
  }
  if (old.dtor && old.data != data) old.dtor(old.data);
}

}  // namespace

const PJRT_Memory_FunctionTable* MemoryTable() {
  static const PJRT_Memory_FunctionTable table = {PJRT_Memory_FunctionTable_STRUCT_SIZE, nullptr,
                                                  sizeof(MemoryImpl), GetUserData, SetUserData};
  return &table;
}

}  // namespace openpjrt::plugin

MemoryImpl::~MemoryImpl() {
  for (auto& [key, ud] : user_data)
    if (ud.dtor) ud.dtor(ud.data);
}

// ------------------------------------------------------------------ descriptions

PJRT_Error* OPJ_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args) {
  OPJ_CHECK_ARGS(PJRT_DeviceDescription_Id_Args, args);
  OPJ_REQUIRE(PJRT_DeviceDescription_Id_Args, args, device_description);
  args->id = args->device_description->id;
  return nullptr;
}

PJRT_Error* OPJ_DeviceDescription_ProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args) {
  OPJ_CHECK_ARGS(PJRT_DeviceDescription_ProcessIndex_Args, args);
  OPJ_REQUIRE(PJRT_DeviceDescription_ProcessIndex_Args, args, device_description);
  args->process_index = args->device_description->process_index;
  return nullptr;
}

PJRT_Error* OPJ_DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args* args) {
  OPJ_CHECK_ARGS(PJRT_DeviceDescription_Attributes_Args, args);
  OPJ_REQUIRE(PJRT_DeviceDescription_Attributes_Args, args, device_description);
  args->attributes = args->device_description->attributes.data();
  args->num_attributes = args->device_description->attributes.size();
  return nullptr;
}

PJRT_Error* OPJ_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args* args) {
  OPJ_CHECK_ARGS(PJRT_DeviceDescription_Kind_Args, args);
  OPJ_REQUIRE(PJRT_DeviceDescription_Kind_Args, args, device_description);
  args->device_kind = args->device_description->kind.data();
  args->device_kind_size = args->device_description->kind.size();
  return nullptr;
}

PJRT_Error* OPJ_DeviceDescription_DebugString(PJRT_DeviceDescription_DebugString_Args* args) {
  OPJ_CHECK_ARGS(PJRT_DeviceDescription_DebugString_Args, args);
  OPJ_REQUIRE(PJRT_DeviceDescription_DebugString_Args, args, device_description);
  args->debug_string = args->device_description->debug_string.data();
  args->debug_string_size = args->device_description->debug_string.size();
  return nullptr;
}

PJRT_Error* OPJ_DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args* args) {
  OPJ_CHECK_ARGS(PJRT_DeviceDescription_ToString_Args, args);
  OPJ_REQUIRE(PJRT_DeviceDescription_ToString_Args, args, device_description);
  args->to_string = args->device_description->to_string.data();
  args->to_string_size = args->device_description->to_string.size();
  return nullptr;
}

// ------------------------------------------------------------------ devices

PJRT_Error* OPJ_Device_GetDescription(PJRT_Device_GetDescription_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_GetDescription_Args, args);
  OPJ_REQUIRE(PJRT_Device_GetDescription_Args, args, device);
  args->device_description = &args->device->description;
  return nullptr;
}

PJRT_Error* OPJ_Device_IsAddressable(PJRT_Device_IsAddressable_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_IsAddressable_Args, args);
  OPJ_REQUIRE(PJRT_Device_IsAddressable_Args, args, device);
  args->is_addressable = args->device->device->addressable();
  return nullptr;
}

PJRT_Error* OPJ_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_LocalHardwareId_Args, args);
  OPJ_REQUIRE(PJRT_Device_LocalHardwareId_Args, args, device);
  args->local_hardware_id = args->device->device->local_hardware_id();
  return nullptr;
}

PJRT_Error* OPJ_Device_AddressableMemories(PJRT_Device_AddressableMemories_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_AddressableMemories_Args, args);
  OPJ_REQUIRE(PJRT_Device_AddressableMemories_Args, args, device);
  // Another process's device addresses none of this process's memory.
  const bool mine = args->device->device->addressable();
  args->memories = mine ? args->device->memories.data() : nullptr;
  args->num_memories = mine ? args->device->memories.size() : 0;
  return nullptr;
}

PJRT_Error* OPJ_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_DefaultMemory_Args, args);
  OPJ_REQUIRE(PJRT_Device_DefaultMemory_Args, args, device);
  args->memory = args->device->memories[0];
  return nullptr;
}

PJRT_Error* OPJ_Device_MemoryStats(PJRT_Device_MemoryStats_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Device_MemoryStats_Args, args, bytes_in_use);
  OPJ_REQUIRE(PJRT_Device_MemoryStats_Args, args, device);
  runtime::MemoryStats& s = args->device->device->stats();
  const int64_t limit = args->device->client->client->options().memory_limit_bytes;
  args->bytes_in_use = s.bytes_in_use;
  // Write the optional fields only as far as the caller's struct reaches.
#define OPJ_STAT(field, value, is_set)                                          \
  if (plugin::Covers(args, OPJ_FIELD_END(PJRT_Device_MemoryStats_Args, field##_is_set))) { \
    args->field = (value);                                                      \
    args->field##_is_set = (is_set);                                            \
  }
  OPJ_STAT(peak_bytes_in_use, s.peak_bytes_in_use, true)
  OPJ_STAT(num_allocs, s.num_allocs, true)
  OPJ_STAT(largest_alloc_size, s.largest_alloc_size, true)
  OPJ_STAT(bytes_limit, limit, limit > 0)
  OPJ_STAT(bytes_reserved, 0, false)
  OPJ_STAT(peak_bytes_reserved, 0, false)
  OPJ_STAT(bytes_reservable_limit, 0, false)
  OPJ_STAT(largest_free_block_bytes, 0, false)
  OPJ_STAT(pool_bytes, 0, false)
  OPJ_STAT(peak_pool_bytes, 0, false)
  OPJ_STAT(peak_allocated_bytes, s.peak_bytes_in_use, true)
#undef OPJ_STAT
  return nullptr;
}

PJRT_Error* OPJ_Device_ClearMemoryStats(PJRT_Device_ClearMemoryStats_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_ClearMemoryStats_Args, args);
  OPJ_REQUIRE(PJRT_Device_ClearMemoryStats_Args, args, device);
  args->device->device->stats().ClearPeaks();
  return nullptr;
}

struct PJRT_Device_Attributes {};  // nothing to free: attributes live in the description

PJRT_Error* OPJ_Device_GetAttributes(PJRT_Device_GetAttributes_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_GetAttributes_Args, args);
  OPJ_REQUIRE(PJRT_Device_GetAttributes_Args, args, device);
  args->attributes = args->device->description.attributes.data();
  args->num_attributes = args->device->description.attributes.size();
  args->device_attributes = nullptr;
  args->attributes_deleter = [](PJRT_Device_Attributes*) {};
  return nullptr;
}

struct PJRT_AsyncTrackingEvent {
  std::string description;
};

PJRT_Error* OPJ_Device_CreateAsyncTrackingEvent(PJRT_Device_CreateAsyncTrackingEvent_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Device_CreateAsyncTrackingEvent_Args, args);
  OPJ_REQUIRE(PJRT_Device_CreateAsyncTrackingEvent_Args, args, device);
  args->event = new PJRT_AsyncTrackingEvent{
      args->description ? std::string(args->description, args->description_size) : ""};
  return nullptr;
}

PJRT_Error* OPJ_AsyncTrackingEvent_Destroy(PJRT_AsyncTrackingEvent_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_AsyncTrackingEvent_Destroy_Args, args);
  delete args->event;
  return nullptr;
}

// ------------------------------------------------------------------ memories

PJRT_Error* OPJ_Memory_Id(PJRT_Memory_Id_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Memory_Id_Args, args);
  OPJ_REQUIRE(PJRT_Memory_Id_Args, args, memory);
  args->id = Impl(args->memory)->memory->id();
  return nullptr;
}

PJRT_Error* OPJ_Memory_Kind(PJRT_Memory_Kind_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Memory_Kind_Args, args);
  OPJ_REQUIRE(PJRT_Memory_Kind_Args, args, memory);
  args->kind = Impl(args->memory)->memory->kind().data();
  args->kind_size = Impl(args->memory)->memory->kind().size();
  return nullptr;
}

PJRT_Error* OPJ_Memory_Kind_Id(PJRT_Memory_Kind_Id_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Memory_Kind_Id_Args, args);
  OPJ_REQUIRE(PJRT_Memory_Kind_Id_Args, args, memory);
  args->kind_id = Impl(args->memory)->memory->kind_id();
  return nullptr;
}

PJRT_Error* OPJ_Memory_DebugString(PJRT_Memory_DebugString_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Memory_DebugString_Args, args);
  OPJ_REQUIRE(PJRT_Memory_DebugString_Args, args, memory);
  args->debug_string = Impl(args->memory)->memory->debug_string().data();
  args->debug_string_size = Impl(args->memory)->memory->debug_string().size();
  return nullptr;
}

PJRT_Error* OPJ_Memory_ToString(PJRT_Memory_ToString_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Memory_ToString_Args, args);
  OPJ_REQUIRE(PJRT_Memory_ToString_Args, args, memory);
  args->to_string = Impl(args->memory)->memory->to_string().data();
  args->to_string_size = Impl(args->memory)->memory->to_string().size();
  return nullptr;
}

PJRT_Error* OPJ_Memory_AddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Memory_AddressableByDevices_Args, args);
  OPJ_REQUIRE(PJRT_Memory_AddressableByDevices_Args, args, memory);
  args->devices = Impl(args->memory)->devices.data();
  args->num_devices = Impl(args->memory)->devices.size();
  return nullptr;
}

// ------------------------------------------------------------------ topology getters

PJRT_Error* OPJ_TopologyDescription_PlatformName(PJRT_TopologyDescription_PlatformName_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_PlatformName_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_PlatformName_Args, args, topology);
  args->platform_name = "cpu";
  args->platform_name_size = 3;
  return nullptr;
}

PJRT_Error* OPJ_TopologyDescription_PlatformVersion(
    PJRT_TopologyDescription_PlatformVersion_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_PlatformVersion_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_PlatformVersion_Args, args, topology);
  static const char kVersion[] = "openpjrt cpu 0.1.0";
  args->platform_version = kVersion;
  args->platform_version_size = sizeof(kVersion) - 1;
  return nullptr;
}

PJRT_Error* OPJ_TopologyDescription_GetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_GetDeviceDescriptions_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_GetDeviceDescriptions_Args, args, topology);
  args->descriptions = args->topology->description_ptrs.data();
  args->num_descriptions = args->topology->description_ptrs.size();
  return nullptr;
}

struct PJRT_SerializedTopology {
  std::string bytes;
};

// "openpjrt-cpu-topology:<device count>": a small self-describing form.
PJRT_Error* OPJ_TopologyDescription_Serialize(PJRT_TopologyDescription_Serialize_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_Serialize_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_Serialize_Args, args, topology);
  auto* s = new PJRT_SerializedTopology{StrCat("openpjrt-cpu-topology:", args->topology->device_count)};
  args->serialized_bytes = s->bytes.data();
  args->serialized_bytes_size = s->bytes.size();
  args->serialized_topology = s;
  args->serialized_topology_deleter = [](PJRT_SerializedTopology* t) { delete t; };
  return nullptr;
}

PJRT_Error* OPJ_TopologyDescription_Deserialize(PJRT_TopologyDescription_Deserialize_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_Deserialize_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_Deserialize_Args, args, serialized_topology);
  std::string_view bytes(args->serialized_topology, args->serialized_topology_size);
  constexpr std::string_view kPrefix = "openpjrt-cpu-topology:";
  int count = 0;
  bool ok = bytes.substr(0, kPrefix.size()) == kPrefix && bytes.size() > kPrefix.size() &&
            bytes.size() <= kPrefix.size() + 4;
  for (size_t i = kPrefix.size(); ok && i < bytes.size(); ++i) {
    ok = bytes[i] >= '0' && bytes[i] <= '9';
    count = count * 10 + (bytes[i] - '0');
  }
  if (!ok || count < 1)
    return plugin::InvalidArgument("PJRT_TopologyDescription_Deserialize: not a serialized openpjrt "
                                   "CPU topology (expected 'openpjrt-cpu-topology:<devices>')");
  auto t = std::make_unique<PJRT_TopologyDescription>();
  plugin::FillTopology(t.get(), count);
  args->topology = t.release();
  return nullptr;
}

PJRT_Error* OPJ_TopologyDescription_Attributes(PJRT_TopologyDescription_Attributes_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_Attributes_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_Attributes_Args, args, topology);
  args->attributes = args->topology->attributes.data();
  args->num_attributes = args->topology->attributes.size();
  return nullptr;
}

PJRT_Error* OPJ_TopologyDescription_Fingerprint(PJRT_TopologyDescription_Fingerprint_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_Fingerprint_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_Fingerprint_Args, args, topology);
  args->fingerprint = 0x6f706a7274637075ull ^ static_cast<uint64_t>(args->topology->device_count);
  return nullptr;
}

PJRT_Error* OPJ_TopologyDescription_GetMemorySpaceKindIds(
    PJRT_TopologyDescription_GetMemorySpaceKindIds_Args* args) {
  OPJ_CHECK_ARGS(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, args);
  OPJ_REQUIRE(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, args, topology);
  args->memory_space_kind_ids = args->topology->memory_kind_ids.data();
  args->num_memory_space_kind_ids = args->topology->memory_kind_ids.size();
  return nullptr;
}
