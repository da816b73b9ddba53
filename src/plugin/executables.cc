// Compile and load, executable queries, serialization, and Execute.
#include <cstring>

#include "include/openpjrt/c/openpjrt_execute_order_extension.h"
#include "src/plugin/slots.h"
#include "src/support/str.h"

using namespace openpjrt;
using plugin::InvalidArgument;
using plugin::MakeError;

namespace openpjrt::plugin {
namespace {

absl::StatusOr<runtime::CompileOptions> ReadOptions(const char* bytes, size_t size) {
  if (!bytes || size == 0) return runtime::CompileOptions{};
  return runtime::ParseCompileOptions(std::string_view(bytes, size));
}

absl::StatusOr<std::shared_ptr<runtime::Executable>> CompileProgram(const PJRT_Program* program,
                                                                    const char* opts,
                                                                    size_t opts_size,
                                                                    const char* where) {
  if (program->struct_size < PJRT_STRUCT_SIZE(PJRT_Program, format_size))
    return absl::InvalidArgumentError(StrCat(where, ".program->struct_size is ", program->struct_size,
                                             ", expected at least ", static_cast<size_t>(PJRT_Program_STRUCT_SIZE)));
  if (!program->code && program->code_size)
    return absl::InvalidArgumentError(StrCat(where, ".program->code is null"));
  if (!program->format)
    return absl::InvalidArgumentError(StrCat(where, ".program->format is null"));
  auto options = ReadOptions(opts, opts_size);
  if (!options.ok()) return options.status();
  return runtime::Executable::Compile(std::string_view(program->code ? program->code : "", program->code_size),
                                      std::string_view(program->format, program->format_size),
                                      std::move(*options));
}

absl::StatusOr<PJRT_LoadedExecutable*> LoadOn(PJRT_Client* client,
                                              std::shared_ptr<const runtime::Executable> exe) {
  auto loaded = runtime::LoadedExecutable::Load(client->client.get(), std::move(exe));
  if (!loaded.ok()) return loaded.status();
  auto* le = new PJRT_LoadedExecutable;
  le->client = client;
  le->loaded = std::move(*loaded);
  const int p = le->loaded->executable()->num_partitions();
  // This process's devices (all of them in one process), with their logical ids.
  for (int d : le->loaded->addressable_indices()) {
    le->devices.push_back(client->device_of[le->loaded->devices()[d]]);
    le->logical_ids.push_back({d / p, d % p});
  }
  return le;
}

PJRT_NamedValue NamedFloat(const char* name, double v) {
  PJRT_NamedValue nv{};
  nv.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  nv.name = name;
  nv.name_size = std::strlen(name);
  nv.type = PJRT_NamedValue_kFloat;
  nv.float_value = static_cast<float>(v);
  nv.value_size = 1;
  return nv;
}

}  // namespace

PJRT_Executable* WrapExecutable(std::shared_ptr<const runtime::Executable> exe) {
  auto* e = new PJRT_Executable;
  e->exe = std::move(exe);
  static const std::string kDevice = "device";
  for (const runtime::BufferShape& s : e->exe->result_shapes()) {
    e->output_types.push_back(ToBufferType(s));
    e->output_dim_sizes.push_back(s.token ? 0 : s.type.dims.size());
    if (!s.token) e->output_dims.insert(e->output_dims.end(), s.type.dims.begin(), s.type.dims.end());
    e->output_kinds.push_back(kDevice.c_str());
    e->output_kind_sizes.push_back(kDevice.size());
  }
  for (size_t i = 0; i < e->exe->arg_shapes().size(); ++i) {
    e->param_kinds.push_back(kDevice.c_str());
    e->param_kind_sizes.push_back(kDevice.size());
  }
  auto row_major = [](const runtime::BufferShape& s) {
    PJRT_Layouts_MemoryLayout l;
    size_t rank = s.token ? 0 : s.type.dims.size();
    for (size_t i = 0; i < rank; ++i) l.minor_to_major.push_back(static_cast<int64_t>(rank - 1 - i));
    return l;
  };
  for (const runtime::BufferShape& s : e->exe->result_shapes()) e->output_layouts.push_back(row_major(s));
  for (const runtime::BufferShape& s : e->exe->arg_shapes()) e->param_layouts.push_back(row_major(s));
  for (auto& l : e->output_layouts) e->output_layout_ptrs.push_back(&l);
  for (auto& l : e->param_layouts) e->param_layout_ptrs.push_back(&l);
  for (const std::string& s : e->exe->output_shardings()) {
    e->output_sharding_ptrs.push_back(s.c_str());
    e->output_sharding_sizes.push_back(s.size());
  }
  for (const std::string& s : e->exe->param_shardings()) {
    e->param_sharding_ptrs.push_back(s.c_str());
    e->param_sharding_sizes.push_back(s.size());
  }
  const runtime::CostAnalysis& c = e->exe->cost();
  e->cost = {NamedFloat("flops", c.flops), NamedFloat("transcendentals", c.transcendentals),
             NamedFloat("bytes accessed", c.bytes_accessed)};
  return e;
}

}  // namespace openpjrt::plugin

// ------------------------------------------------------------------ compile and load

PJRT_Error* OPJ_Client_Compile(PJRT_Client_Compile_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_Compile_Args, args);
  OPJ_REQUIRE(PJRT_Client_Compile_Args, args, client);
  OPJ_REQUIRE(PJRT_Client_Compile_Args, args, program);
  auto exe = plugin::CompileProgram(args->program, args->compile_options, args->compile_options_size,
                                    "PJRT_Client_Compile_Args");
  if (!exe.ok()) return MakeError(exe.status());
  auto le = plugin::LoadOn(args->client, *exe);
  if (!le.ok()) return MakeError(le.status());
  args->executable = *le;
  return nullptr;
}

PJRT_Error* OPJ_Compile(PJRT_Compile_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Compile_Args, args);
  OPJ_REQUIRE(PJRT_Compile_Args, args, topology);
  OPJ_REQUIRE(PJRT_Compile_Args, args, program);
  auto exe = plugin::CompileProgram(args->program, args->compile_options, args->compile_options_size,
                                    "PJRT_Compile_Args");
  if (!exe.ok()) return MakeError(exe.status());
  const int need = (*exe)->num_replicas() * (*exe)->num_partitions();
  if (need > args->topology->device_count)
    return InvalidArgument(StrCat("the program needs ", need, " devices; the topology has ",
                                  args->topology->device_count));
  args->executable = plugin::WrapExecutable(*exe);
  return nullptr;
}

PJRT_Error* OPJ_Client_Load(PJRT_Client_Load_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_Load_Args, args);
  OPJ_REQUIRE(PJRT_Client_Load_Args, args, client);
  OPJ_REQUIRE(PJRT_Client_Load_Args, args, executable);
  std::shared_ptr<const runtime::Executable> exe = args->executable->exe;
  if (args->compile_options && args->compile_options_size) {
    // Options given at load time replace those of the compile (device assignment included).
    auto options = runtime::ParseCompileOptions(std::string_view(args->compile_options, args->compile_options_size));
    if (!options.ok()) return MakeError(options.status());
    auto again = exe->WithOptions(std::move(*options));
    if (!again.ok()) return MakeError(again.status());
    exe = *again;
  }
  auto le = plugin::LoadOn(args->client, exe);
  if (!le.ok()) return MakeError(le.status());
  args->loaded_executable = *le;
  return nullptr;
}

PJRT_Error* OPJ_Executable_DeserializeAndLoad(PJRT_Executable_DeserializeAndLoad_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Executable_DeserializeAndLoad_Args, args, loaded_executable);
  OPJ_REQUIRE(PJRT_Executable_DeserializeAndLoad_Args, args, client);
  if (!args->serialized_executable)
    return InvalidArgument("PJRT_Executable_DeserializeAndLoad_Args.serialized_executable is null");
  auto exe = runtime::Executable::Deserialize(
      std::string_view(args->serialized_executable, args->serialized_executable_size));
  if (!exe.ok()) return MakeError(exe.status());
  if (plugin::Covers(args, OPJ_FIELD_END(PJRT_Executable_DeserializeAndLoad_Args,
                                         overridden_serialized_compile_options_size)) &&
      args->overridden_serialized_compile_options &&
      args->overridden_serialized_compile_options_size) {
    auto options = runtime::ParseCompileOptions(std::string_view(
        args->overridden_serialized_compile_options, args->overridden_serialized_compile_options_size));
    if (!options.ok()) return MakeError(options.status());
    exe = (*exe)->WithOptions(std::move(*options));
    if (!exe.ok()) return MakeError(exe.status());
  }
  auto le = plugin::LoadOn(args->client, *exe);
  if (!le.ok()) return MakeError(le.status());
  args->loaded_executable = *le;
  return nullptr;
}

// ------------------------------------------------------------------ executables

PJRT_Error* OPJ_Executable_Destroy(PJRT_Executable_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Executable_Destroy_Args, args);
  delete args->executable;
  return nullptr;
}

#define OPJ_EXE_ARGS(Type) \
  OPJ_CHECK_ARGS(Type, args); \
  OPJ_REQUIRE(Type, args, executable); \
  const runtime::Executable& exe = *args->executable->exe; \
  (void)exe

PJRT_Error* OPJ_Executable_Name(PJRT_Executable_Name_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_Name_Args);
  args->executable_name = exe.name().data();
  args->executable_name_size = exe.name().size();
  return nullptr;
}

PJRT_Error* OPJ_Executable_NumReplicas(PJRT_Executable_NumReplicas_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_NumReplicas_Args);
  args->num_replicas = exe.num_replicas();
  return nullptr;
}

PJRT_Error* OPJ_Executable_NumPartitions(PJRT_Executable_NumPartitions_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_NumPartitions_Args);
  args->num_partitions = exe.num_partitions();
  return nullptr;
}

PJRT_Error* OPJ_Executable_NumOutputs(PJRT_Executable_NumOutputs_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_NumOutputs_Args);
  args->num_outputs = exe.result_shapes().size();
  return nullptr;
}

PJRT_Error* OPJ_Executable_SizeOfGeneratedCodeInBytes(
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args);
  args->size_in_bytes = exe.code_size();
  return nullptr;
}

PJRT_Error* OPJ_Executable_GetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_GetCostAnalysis_Args);
  args->properties = args->executable->cost.data();
  args->num_properties = args->executable->cost.size();
  return nullptr;
}

PJRT_Error* OPJ_Executable_OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_OutputMemoryKinds_Args);
  args->num_outputs = args->executable->output_kinds.size();
  args->memory_kinds = args->executable->output_kinds.data();
  args->memory_kind_sizes = args->executable->output_kind_sizes.data();
  return nullptr;
}

PJRT_Error* OPJ_Executable_ParameterMemoryKinds(PJRT_Executable_ParameterMemoryKinds_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_ParameterMemoryKinds_Args);
  args->num_parameters = args->executable->param_kinds.size();
  args->memory_kinds = args->executable->param_kinds.data();
  args->memory_kind_sizes = args->executable->param_kind_sizes.data();
  return nullptr;
}

PJRT_Error* OPJ_Executable_OutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_OutputElementTypes_Args);
  args->output_types = args->executable->output_types.data();
  args->num_output_types = args->executable->output_types.size();
  return nullptr;
}

PJRT_Error* OPJ_Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_OutputDimensions_Args);
  args->num_outputs = args->executable->output_dim_sizes.size();
  args->dims = args->executable->output_dims.data();
  args->dim_sizes = args->executable->output_dim_sizes.data();
  return nullptr;
}

PJRT_Error* OPJ_Executable_OptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_OptimizedProgram_Args);
  OPJ_REQUIRE(PJRT_Executable_OptimizedProgram_Args, args, program);
  PJRT_Program* p = args->program;
  if (p->struct_size < PJRT_STRUCT_SIZE(PJRT_Program, format_size))
    return InvalidArgument(StrCat("PJRT_Executable_OptimizedProgram_Args.program->struct_size is ",
                                  p->struct_size, ", expected at least ", static_cast<size_t>(PJRT_Program_STRUCT_SIZE)));
  const std::string& text = exe.optimized_text();
  p->format = "mlir";
  p->format_size = 4;
  if (p->code == nullptr) {
    p->code_size = text.size();
    return nullptr;
  }
  if (p->code_size < text.size())
    return InvalidArgument(StrCat("PJRT_Executable_OptimizedProgram: program->code_size is ",
                                  p->code_size, ", the program needs ", text.size(), " bytes"));
  std::memcpy(p->code, text.data(), text.size());
  p->code_size = text.size();
  return nullptr;
}

struct PJRT_SerializedExecutable {
  std::string bytes;
};

PJRT_Error* OPJ_Executable_Serialize(PJRT_Executable_Serialize_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Executable_Serialize_Args, args);
  OPJ_REQUIRE(PJRT_Executable_Serialize_Args, args, executable);
  auto* s = new PJRT_SerializedExecutable{args->executable->exe->Serialize()};
  args->serialized_bytes = s->bytes.data();
  args->serialized_bytes_size = s->bytes.size();
  args->serialized_executable = s;
  args->serialized_executable_deleter = [](PJRT_SerializedExecutable* e) { delete e; };
  return nullptr;
}

struct PJRT_SerializedCompileOptions {
  std::string bytes;
};

PJRT_Error* OPJ_Executable_GetCompileOptions(PJRT_Executable_GetCompileOptions_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_GetCompileOptions_Args);
  auto* s = new PJRT_SerializedCompileOptions{exe.options().serialized};
  args->serialized_bytes = s->bytes.data();
  args->serialized_bytes_size = s->bytes.size();
  args->serialized_compile_options = s;
  args->serialized_compile_options_deleter = [](PJRT_SerializedCompileOptions* o) { delete o; };
  return nullptr;
}

PJRT_Error* OPJ_Executable_Fingerprint(PJRT_Executable_Fingerprint_Args* args) {
  OPJ_EXE_ARGS(PJRT_Executable_Fingerprint_Args);
  args->executable_fingerprint = exe.fingerprint().data();
  args->executable_fingerprint_size = exe.fingerprint().size();
  return nullptr;
}

PJRT_Error* OPJ_Executable_GetCompiledMemoryStats(PJRT_Executable_GetCompiledMemoryStats_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Executable_GetCompiledMemoryStats_Args, args, temp_size_in_bytes);
  OPJ_REQUIRE(PJRT_Executable_GetCompiledMemoryStats_Args, args, executable);
  const runtime::Executable& exe = *args->executable->exe;
  int64_t in = 0, out = 0;
  // Sizes that depend on the arguments (-1 dimensions of a dynamic entry point) count as 0.
  auto bytes = [](const runtime::BufferShape& s) -> int64_t {
    if (s.token) return 0;
    for (int64_t d : s.type.dims)
      if (d < 0) return 0;
    return s.type.ByteSize();
  };
  for (const auto& s : exe.arg_shapes()) in += bytes(s);
  for (const auto& s : exe.result_shapes()) out += bytes(s);
  args->generated_code_size_in_bytes = exe.code_size();
  args->argument_size_in_bytes = in;
  args->output_size_in_bytes = out;
  args->alias_size_in_bytes = 0;
  args->temp_size_in_bytes = 0;  // temporaries are allocated per step and not tracked yet
  if (plugin::Covers(args, OPJ_FIELD_END(PJRT_Executable_GetCompiledMemoryStats_Args,
                                         host_temp_size_in_bytes))) {
    args->host_generated_code_size_in_bytes = 0;
    args->host_argument_size_in_bytes = 0;
    args->host_output_size_in_bytes = 0;
    args->host_alias_size_in_bytes = 0;
    args->host_temp_size_in_bytes = 0;
  }
  if (plugin::Covers(args, OPJ_FIELD_END(PJRT_Executable_GetCompiledMemoryStats_Args,
                                         peak_memory_in_bytes)))
    args->peak_memory_in_bytes = in + out;
  if (plugin::Covers(args, OPJ_FIELD_END(PJRT_Executable_GetCompiledMemoryStats_Args,
                                         peak_unpadded_heap_bytes))) {
    args->total_size_in_bytes = in + out;
    args->total_allocation_bytes = in + out;
    args->indefinite_allocations = 0;
    args->peak_unpadded_heap_bytes = 0;
  }
  return nullptr;
}

// ------------------------------------------------------------------ loaded executables

PJRT_Error* OPJ_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_Destroy_Args, args);
  delete args->executable;
  return nullptr;
}

PJRT_Error* OPJ_LoadedExecutable_GetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_GetExecutable_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_GetExecutable_Args, args, loaded_executable);
  args->executable = plugin::WrapExecutable(args->loaded_executable->loaded->executable());
  return nullptr;
}

PJRT_Error* OPJ_LoadedExecutable_AddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_AddressableDevices_Args, args, executable);
  args->addressable_devices = args->executable->devices.data();
  args->num_addressable_devices = args->executable->devices.size();
  return nullptr;
}

PJRT_Error* OPJ_LoadedExecutable_AddressableDeviceLogicalIds(
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, args, executable);
  args->addressable_device_logical_ids = args->executable->logical_ids.data();
  args->num_addressable_device_logical_ids = args->executable->logical_ids.size();
  return nullptr;
}

struct PJRT_DeviceAssignmentSerialized {
  std::string bytes;
};

PJRT_Error* OPJ_LoadedExecutable_GetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_GetDeviceAssignment_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_GetDeviceAssignment_Args, args, executable);
  auto* s = new PJRT_DeviceAssignmentSerialized{
      runtime::SerializeDeviceAssignment(args->executable->loaded->assignment())};
  args->serialized_bytes = s->bytes.data();
  args->serialized_bytes_size = s->bytes.size();
  args->serialized_device_assignment = s;
  args->serialized_device_assignment_deleter = [](PJRT_DeviceAssignmentSerialized* d) { delete d; };
  return nullptr;
}

PJRT_Error* OPJ_LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_Delete_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_Delete_Args, args, executable);
  args->executable->loaded->Delete();
  return nullptr;
}

PJRT_Error* OPJ_LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_IsDeleted_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_IsDeleted_Args, args, executable);
  args->is_deleted = args->executable->loaded->IsDeleted();
  return nullptr;
}

PJRT_Error* OPJ_LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_Fingerprint_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_Fingerprint_Args, args, executable);
  const std::string& f = args->executable->loaded->executable()->fingerprint();
  args->executable_fingerprint = f.data();
  args->executable_fingerprint_size = f.size();
  return nullptr;
}

PJRT_Error* OPJ_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args) {
  OPJ_CHECK_ARGS(PJRT_LoadedExecutable_Execute_Args, args);
  OPJ_REQUIRE(PJRT_LoadedExecutable_Execute_Args, args, executable);
  OPJ_REQUIRE(PJRT_LoadedExecutable_Execute_Args, args, output_lists);
  if (args->num_args && args->num_devices) OPJ_REQUIRE(PJRT_LoadedExecutable_Execute_Args, args, argument_lists);
  PJRT_LoadedExecutable* le = args->executable;
  runtime::ExecuteRequest req;
  if (PJRT_ExecuteOptions* o = args->options) {
    if (o->struct_size < PJRT_STRUCT_SIZE(PJRT_ExecuteOptions, launch_id))
      return InvalidArgument(StrCat("PJRT_ExecuteOptions.struct_size is ", o->struct_size,
                                    ", expected at least ", PJRT_STRUCT_SIZE(PJRT_ExecuteOptions, launch_id)));
    if (absl::Status s = plugin::HostTransfersFromOptions(*o, args->num_devices, &req.hosts); !s.ok())
      return MakeError(s);
    if (plugin::Covers(o, OPJ_FIELD_END(PJRT_ExecuteOptions, num_non_donatable_input_indices)) &&
        o->num_non_donatable_input_indices) {
      if (!o->non_donatable_input_indices)
        return InvalidArgument("PJRT_ExecuteOptions.non_donatable_input_indices is null");
      req.non_donatable.assign(o->non_donatable_input_indices,
                               o->non_donatable_input_indices + o->num_non_donatable_input_indices);
    }
    int links = 0;
    for (const PJRT_Extension_Base* e = o->extension_start; e; e = e->next) {
      if (++links > 64) return InvalidArgument("PJRT_ExecuteOptions.extension_start: a chain of over 64 extensions");
      if (plugin::RawEnum(e->type) != OPENPJRT_Extension_Type_ExecuteOrder) continue;
      if (e->struct_size < OPENPJRT_ExecuteOrder_Extension_STRUCT_SIZE)
        return InvalidArgument(StrCat("OPENPJRT_ExecuteOrder_Extension.base.struct_size is ", e->struct_size,
                                      ", expected at least ",
                                      static_cast<size_t>(OPENPJRT_ExecuteOrder_Extension_STRUCT_SIZE)));
      const auto* order = reinterpret_cast<const OPENPJRT_ExecuteOrder_Extension*>(e);
      req.stream_id = order->stream_id;
      if (order->num_wait_events && !order->wait_events)
        return InvalidArgument("OPENPJRT_ExecuteOrder_Extension.wait_events is null");
      for (size_t i = 0; i < order->num_wait_events; ++i) {
        if (!order->wait_events[i])
          return InvalidArgument(StrCat("OPENPJRT_ExecuteOrder_Extension.wait_events[", i, "] is null"));
        req.wait_for.push_back(order->wait_events[i]->event);
      }
    }
    if (plugin::Covers(o, OPJ_FIELD_END(PJRT_ExecuteOptions, context)) && o->context &&
        !o->context->user_data.empty()) {
      auto data = std::make_shared<cpu::FfiUserData>();
      for (const PJRT_FFI_UserData& u : o->context->user_data) data->entries.push_back({u.type_id, u.data});
      req.ffi_user_data = std::move(data);
    }
  }
  if (args->execute_device) {
    if (args->execute_device->client != le->client)
      return InvalidArgument("PJRT_LoadedExecutable_Execute_Args.execute_device belongs to another client");
    req.execute_device = args->execute_device->device;
  }
  req.args.resize(args->num_devices);
  for (size_t d = 0; d < args->num_devices; ++d) {
    req.args[d].reserve(args->num_args);
    if (args->num_args && !args->argument_lists[d])
      return InvalidArgument(StrCat("PJRT_LoadedExecutable_Execute_Args.argument_lists[", d, "] is null"));
    if (!args->output_lists[d] && !le->loaded->executable()->result_shapes().empty())
      return InvalidArgument(StrCat("PJRT_LoadedExecutable_Execute_Args.output_lists[", d, "] is null"));
    for (size_t i = 0; i < args->num_args; ++i) {
      PJRT_Buffer* b = args->argument_lists[d][i];
      if (!b)
        return InvalidArgument(StrCat("PJRT_LoadedExecutable_Execute_Args.argument_lists[", d, "][", i,
                                      "] is null"));
      req.args[d].push_back(b->buffer);
    }
  }
  auto result = le->loaded->Execute(std::move(req));
  if (!result.ok()) return MakeError(result.status());
  for (size_t d = 0; d < args->num_devices; ++d) {
    for (size_t i = 0; i < result->outputs[d].size(); ++i)
      args->output_lists[d][i] = plugin::WrapBuffer(le->client, result->outputs[d][i]);
    if (args->device_complete_events)
      args->device_complete_events[d] = plugin::WrapEvent(result->device_done[d]);
  }
  return nullptr;
}

// ------------------------------------------------------------------ execute contexts

PJRT_Error* OPJ_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args* args) {
  OPJ_CHECK_ARGS(PJRT_ExecuteContext_Create_Args, args);
  args->context = new PJRT_ExecuteContext;
  return nullptr;
}

PJRT_Error* OPJ_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_ExecuteContext_Destroy_Args, args);
  delete args->context;
  return nullptr;
}
