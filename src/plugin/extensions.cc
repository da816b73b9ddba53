// The extension chain of PJRT_Api: Layouts (version 4), MemoryDescriptions (version 1), FFI
// (version 3) and Shardings (version 1: each parameter's and output's xla.OpSharding). Every array on this plugin is dense and row-major, so every layout is the
// descending minor-to-major order of its rank; the extension lets clients ask instead of assume.
// FFI hands XLA FFI handlers to src/cpu/exec/ffi.h for custom_call targets.
#include <cctype>
#include <string>

#include "src/cpu/exec/ffi.h"
#include "include/openpjrt/c/pjrt_c_api_cross_host_transfers_extension.h"
#include "src/plugin/plugin.h"
#include "src/support/str.h"

namespace openpjrt::plugin {
namespace {

PJRT_Layouts_MemoryLayout* RowMajor(size_t rank) {
  auto* l = new PJRT_Layouts_MemoryLayout;
  for (size_t i = 0; i < rank; ++i) l->minor_to_major.push_back(static_cast<int64_t>(rank - 1 - i));
  return l;
}

// Validates (type, dims, num_dims) of a GetDefaultLayout call and returns the row-major layout.
PJRT_Error* DefaultLayout(const char* args_name, int type, const int64_t* dims,
                          size_t num_dims, PJRT_Layouts_MemoryLayout** out) {
  ir::ElemKind kind;
  if (type == PJRT_Buffer_Type_TOKEN) {
    if (num_dims != 0)
      return InvalidArgument(StrCat(args_name, ".num_dims is ", num_dims, " for a TOKEN (must be 0)"));
  } else if (!ToElemKind(type, &kind)) {
    return InvalidArgument(StrCat(args_name, ".type is ", type, " (",
                                  BufferTypeName(type), "), which has no array layout on this plugin"));
  }
  if (num_dims > 0 && dims == nullptr)
    return InvalidArgument(StrCat(args_name, ".dims is null but num_dims is ", num_dims));
  for (size_t i = 0; i < num_dims; ++i)
    if (dims[i] < 0)
      return InvalidArgument(StrCat(args_name, ".dims[", i, "] is ", dims[i], " (must be >= 0)"));
  *out = RowMajor(num_dims);
  return nullptr;
}

// ------------------------------------------------------------------ Layouts

PJRT_Error* LayoutDestroy(PJRT_Layouts_MemoryLayout_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Layouts_MemoryLayout_Destroy_Args, args);
  delete args->layout;
  return nullptr;
}

void DeleteSerialized(PJRT_Layouts_SerializedLayout* s) { delete s; }

PJRT_Error* LayoutSerialize(PJRT_Layouts_MemoryLayout_Serialize_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Layouts_MemoryLayout_Serialize_Args, args);
  OPJ_REQUIRE(PJRT_Layouts_MemoryLayout_Serialize_Args, args, layout);
  // XLA's text form of a layout, which is what PjRtLayout::Serialize produces and
  // PjRtLayout::Deserialize reads: the minor-to-major order in braces, "{1,0}" ("{}" for a
  // scalar). A dense layout here has no tiles, element size or memory space to add.
  auto* s = new PJRT_Layouts_SerializedLayout;
  s->bytes = "{";
  for (size_t i = 0; i < args->layout->minor_to_major.size(); ++i)
    s->bytes += (i ? "," : "") + std::to_string(args->layout->minor_to_major[i]);
  s->bytes += "}";
  args->serialized_bytes = s->bytes.data();
  args->serialized_bytes_size = s->bytes.size();
  args->serialized_layout = s;
  args->serialized_layout_deleter = &DeleteSerialized;
  return nullptr;
}

PJRT_Error* BufferLayout(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args, args);
  OPJ_REQUIRE(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args, args, buffer);
  const auto& order = args->buffer->minor_to_major;
  args->layout = new PJRT_Layouts_MemoryLayout{std::vector<int64_t>(order.begin(), order.end())};
  return nullptr;
}

PJRT_Error* ClientDefaultLayout(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, args);
  OPJ_REQUIRE(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, args, client);
  return DefaultLayout("PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args", RawEnum(args->type), args->dims,
                       args->num_dims, &args->layout);
}

PJRT_Error* TopologyDefaultLayout(PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args, args);
  OPJ_REQUIRE(PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args, args, topology_description);
  return DefaultLayout("PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args", RawEnum(args->type), args->dims,
                       args->num_dims, &args->layout);
}

PJRT_Error* OutputLayouts(PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args, args);
  OPJ_REQUIRE(PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args, args, executable);
  args->num_outputs = args->executable->output_layout_ptrs.size();
  args->layouts = args->executable->output_layout_ptrs.data();
  return nullptr;
}

PJRT_Error* ParameterLayouts(PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args, args);
  OPJ_REQUIRE(PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args, args, executable);
  args->num_parameters = args->executable->param_layout_ptrs.size();
  args->layouts = args->executable->param_layout_ptrs.data();
  return nullptr;
}

// ------------------------------------------------------------------ MemoryDescriptions

// The kinds and ids every CPU device has (the same as its PJRT_Memory objects report).
const PJRT_MemoryDescription kMemoryDescriptions[] = {
    {"device", 0}, {"pinned_host", 1}, {"unpinned_host", 2}};
const PJRT_MemoryDescription* const kMemoryDescriptionPtrs[] = {
    &kMemoryDescriptions[0], &kMemoryDescriptions[1], &kMemoryDescriptions[2]};

PJRT_Error* MemoryDescriptions(PJRT_DeviceDescription_MemoryDescriptions_Args* args) {
  OPJ_CHECK_ARGS(PJRT_DeviceDescription_MemoryDescriptions_Args, args);
  OPJ_REQUIRE(PJRT_DeviceDescription_MemoryDescriptions_Args, args, device_description);
  args->memory_descriptions = kMemoryDescriptionPtrs;
  args->num_memory_descriptions = 3;
  args->default_memory_index = 0;
  return nullptr;
}

PJRT_Error* MemoryDescriptionKind(PJRT_MemoryDescription_Kind_Args* args) {
  OPJ_CHECK_ARGS(PJRT_MemoryDescription_Kind_Args, args);
  OPJ_REQUIRE(PJRT_MemoryDescription_Kind_Args, args, memory_description);
  args->kind = args->memory_description->kind;
  args->kind_size = std::char_traits<char>::length(args->memory_description->kind);
  args->kind_id = args->memory_description->kind_id;
  return nullptr;
}

PJRT_MemoryDescriptions_Extension MakeMemoryDescriptions(PJRT_Extension_Base* next) {
  PJRT_MemoryDescriptions_Extension e{};
  e.base.struct_size = PJRT_MemoryDescriptions_Extension_STRUCT_SIZE;
  e.base.type = PJRT_Extension_Type_MemoryDescriptions;
  e.base.next = next;
  e.PJRT_DeviceDescription_MemoryDescriptions =
      &Guarded<PJRT_DeviceDescription_MemoryDescriptions_Args, MemoryDescriptions>;
  e.PJRT_MemoryDescription_Kind = &Guarded<PJRT_MemoryDescription_Kind_Args, MemoryDescriptionKind>;
  return e;
}

PJRT_Layouts_Extension MakeLayouts(PJRT_Extension_Base* next) {
  PJRT_Layouts_Extension e{};
  e.base.struct_size = PJRT_Layouts_Extension_STRUCT_SIZE;
  e.base.type = PJRT_Extension_Type_Layouts;
  e.base.next = next;
  e.PJRT_Layouts_MemoryLayout_Destroy = &Guarded<PJRT_Layouts_MemoryLayout_Destroy_Args, LayoutDestroy>;
  e.PJRT_Layouts_MemoryLayout_Serialize =
      &Guarded<PJRT_Layouts_MemoryLayout_Serialize_Args, LayoutSerialize>;
  e.PJRT_Layouts_PJRT_Client_GetDefaultLayout =
      &Guarded<PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, ClientDefaultLayout>;
  e.PJRT_Layouts_PJRT_Buffer_MemoryLayout =
      &Guarded<PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args, BufferLayout>;
  e.PJRT_Layouts_PJRT_Topology_GetDefaultLayout =
      &Guarded<PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args, TopologyDefaultLayout>;
  e.PJRT_Layouts_PJRT_Executable_GetOutputLayouts =
      &Guarded<PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args, OutputLayouts>;
  e.PJRT_Layouts_PJRT_Executable_GetParameterLayouts =
      &Guarded<PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args, ParameterLayouts>;
  return e;
}

// ------------------------------------------------------------------ Shardings

PJRT_Error* ParameterShardings(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args, args);
  OPJ_REQUIRE(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args, args, executable);
  args->num_parameters = args->executable->param_sharding_ptrs.size();
  args->shardings = args->executable->param_sharding_ptrs.data();
  args->sharding_sizes = args->executable->param_sharding_sizes.data();
  return nullptr;
}

PJRT_Error* OutputShardings(PJRT_Shardings_PJRT_Executable_OutputShardings_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Shardings_PJRT_Executable_OutputShardings_Args, args);
  OPJ_REQUIRE(PJRT_Shardings_PJRT_Executable_OutputShardings_Args, args, executable);
  args->num_outputs = args->executable->output_sharding_ptrs.size();
  args->shardings = args->executable->output_sharding_ptrs.data();
  args->sharding_sizes = args->executable->output_sharding_sizes.data();
  return nullptr;
}

PJRT_Shardings_Extension MakeShardings(PJRT_Extension_Base* next) {
  PJRT_Shardings_Extension e{};
  e.base.struct_size = PJRT_Shardings_Extension_STRUCT_SIZE;
  e.base.type = PJRT_Extension_Type_Shardings;
  e.base.next = next;
  e.PJRT_Shardings_PJRT_Executable_ParameterShardings =
      &Guarded<PJRT_Shardings_PJRT_Executable_ParameterShardings_Args, ParameterShardings>;
  e.PJRT_Shardings_PJRT_Executable_OutputShardings =
      &Guarded<PJRT_Shardings_PJRT_Executable_OutputShardings_Args, OutputShardings>;
  return e;
}

// ------------------------------------------------------------------ FFI

PJRT_Error* FfiTypeRegister(PJRT_FFI_Type_Register_Args* args) {
  OPJ_CHECK_ARGS(PJRT_FFI_Type_Register_Args, args);
  OPJ_REQUIRE(PJRT_FFI_Type_Register_Args, args, type_name);
  const PJRT_FFI_Type_Info* info = args->type_info;
  if (info && (info->serialize || info->deserialize))
    return InvalidArgument(
        "PJRT_FFI_Type_Register_Args.type_info: serialize and deserialize are reserved and must be null");
  auto id = cpu::RegisterFfiType(std::string_view(args->type_name, args->type_name_size), args->type_id,
                                 info ? info->deleter : nullptr);
  if (!id.ok()) return MakeError(id.status());
  args->type_id = *id;
  return nullptr;
}

PJRT_Error* FfiUserDataAdd(PJRT_FFI_UserData_Add_Args* args) {
  OPJ_CHECK_ARGS(PJRT_FFI_UserData_Add_Args, args);
  OPJ_REQUIRE(PJRT_FFI_UserData_Add_Args, args, context);
  for (const PJRT_FFI_UserData& u : args->context->user_data)
    if (u.type_id == args->user_data.type_id)
      return MakeError(absl::AlreadyExistsError(
          StrCat("PJRT_FFI_UserData_Add_Args.user_data: the context already holds type id ", u.type_id)));
  args->context->user_data.push_back(args->user_data);
  return nullptr;
}

PJRT_Error* FfiRegisterHandler(PJRT_FFI_Register_Handler_Args* args) {
  OPJ_CHECK_ARGS(PJRT_FFI_Register_Handler_Args, args);
  OPJ_REQUIRE(PJRT_FFI_Register_Handler_Args, args, target_name);
  OPJ_REQUIRE(PJRT_FFI_Register_Handler_Args, args, handler);
  std::string platform(args->platform_name ? args->platform_name : "",
                       args->platform_name ? args->platform_name_size : 0);
  for (char& c : platform) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!platform.empty() && platform != "cpu" && platform != "host")
    return InvalidArgument(StrCat("PJRT_FFI_Register_Handler_Args.platform_name '", platform,
                                  "': this plugin runs handlers for the platform \"cpu\" (or \"Host\")"));
  XLA_FFI_Handler_Bundle bundle{};
  bundle.execute = reinterpret_cast<XLA_FFI_Handler*>(args->handler);
  absl::Status s = cpu::RegisterFfiHandler(std::string_view(args->target_name, args->target_name_size), bundle);
  return s.ok() ? nullptr : MakeError(s);
}

PJRT_FFI_Extension MakeFfi(PJRT_Extension_Base* next) {
  PJRT_FFI_Extension e{};
  e.base.struct_size = PJRT_FFI_Extension_STRUCT_SIZE;
  e.base.type = PJRT_Extension_Type_FFI;
  e.base.next = next;
  e.type_register = &Guarded<PJRT_FFI_Type_Register_Args, FfiTypeRegister>;
  e.user_data_add = &Guarded<PJRT_FFI_UserData_Add_Args, FfiUserDataAdd>;
  e.register_handler = &Guarded<PJRT_FFI_Register_Handler_Args, FfiRegisterHandler>;
  return e;
}

}  // namespace

PJRT_CrossHostTransfers_Extension MakeCrossHostTransfers(PJRT_Extension_Base* next);  // cross_host.cc

PJRT_Extension_Base* FirstExtension() {
  // Built once, on the first GetPjrtApi; nothing but static tables.
  static PJRT_CrossHostTransfers_Extension cross_host = MakeCrossHostTransfers(nullptr);
  static PJRT_Shardings_Extension shardings = MakeShardings(&cross_host.base);
  static PJRT_FFI_Extension ffi = MakeFfi(&shardings.base);
  static PJRT_MemoryDescriptions_Extension memory_descriptions = MakeMemoryDescriptions(&ffi.base);
  static PJRT_Layouts_Extension layouts = MakeLayouts(&memory_descriptions.base);
  return &layouts.base;
}

}  // namespace openpjrt::plugin
