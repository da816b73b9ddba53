// Conformance tests against the C header only. Point them at any plugin with PJRT_PLUGIN=path.
#include <atomic>
#include <thread>

#include "tests/capi/capi_fixture.h"

namespace capi {
namespace {

constexpr char kAddMul[] = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %0 = stablehlo.multiply %x, %y : tensor<2x3xf32>
  %1 = stablehlo.add %0, %x : tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<3xf32>
})";

TEST(ApiTable, VersionAndEverySlotPresent) {
  const PJRT_Api* api = Api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->pjrt_api_version.major_version, PJRT_API_MAJOR);
  EXPECT_EQ(api->pjrt_api_version.minor_version, PJRT_API_MINOR);
  ASSERT_GE(api->struct_size, static_cast<size_t>(PJRT_Api_STRUCT_SIZE));
  auto* slots = reinterpret_cast<void* const*>(reinterpret_cast<const char*>(api) + 40);
  for (int i = 0; i < 138; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i + 1;
}

TEST(ApiTable, PluginAttributesPublishVersions) {
  auto a = Args<PJRT_Plugin_Attributes_Args>();
  CAPI_OK(Api()->PJRT_Plugin_Attributes(&a));
  bool xla = false, cur = false, min = false;
  for (size_t i = 0; i < a.num_attributes; ++i) {
    std::string name(a.attributes[i].name, a.attributes[i].name_size);
    if (name == "xla_version") xla = a.attributes[i].type == PJRT_NamedValue_kInt64;
    if (name == "stablehlo_current_version")
      cur = a.attributes[i].type == PJRT_NamedValue_kInt64List && a.attributes[i].value_size == 3;
    if (name == "stablehlo_minimum_version")
      min = a.attributes[i].type == PJRT_NamedValue_kInt64List && a.attributes[i].value_size == 3;
  }
  EXPECT_TRUE(xla && cur && min);
}

TEST(Errors, ShortStructSizeNamesStructAndSizes) {
  auto a = Args<PJRT_Client_Create_Args>();
  a.struct_size = 16;
  PJRT_Error* e = Api()->PJRT_Client_Create(&a);
  ASSERT_NE(e, nullptr);
  auto fe = Args<PJRT_Error_ForEachPayload_Args>();
  fe.error = e;
  EXPECT_EQ(Api()->PJRT_Error_ForEachPayload(&fe), nullptr);
  // The error's own function table agrees with the API.
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_INVALID_ARGUMENT);
  std::string m = Message(e);
  EXPECT_NE(m.find("PJRT_Client_Create_Args"), std::string::npos) << m;
  EXPECT_NE(m.find("16"), std::string::npos) << m;
  EXPECT_NE(m.find("88"), std::string::npos) << m;
  EXPECT_EQ(Code(Api()->PJRT_Client_Create(nullptr)), PJRT_Error_Code_INVALID_ARGUMENT);
}

TEST_F(PluginTest, NullHandlesAreInvalidArgument) {
  auto a = Args<PJRT_Client_Devices_Args>();
  PJRT_Error* e = api->PJRT_Client_Devices(&a);
  std::string m = Message(e);
  EXPECT_NE(m.find("PJRT_Client_Devices_Args.client is null"), std::string::npos) << m;
  auto b = Args<PJRT_Buffer_ToHostBuffer_Args>();
  EXPECT_EQ(Code(api->PJRT_Buffer_ToHostBuffer(&b)), PJRT_Error_Code_INVALID_ARGUMENT);
  auto x = Args<PJRT_LoadedExecutable_Execute_Args>();
  EXPECT_EQ(Code(api->PJRT_LoadedExecutable_Execute(&x)), PJRT_Error_Code_INVALID_ARGUMENT);
}

TEST_F(PluginTest, CreateOptions) {
  PJRT_Client* c8 = CreateClient({IntOption("cpu_device_count", 8), BoolOption("asynchronous", false)});
  ASSERT_NE(c8, nullptr);
  auto d = Args<PJRT_Client_Devices_Args>();
  d.client = c8;
  CAPI_OK(api->PJRT_Client_Devices(&d));
  EXPECT_EQ(d.num_devices, 8u);
  auto cd = Args<PJRT_Client_Destroy_Args>();
  cd.client = c8;
  CAPI_OK(api->PJRT_Client_Destroy(&cd));

  std::vector<PJRT_NamedValue> bad = {IntOption("no_such_option", 1)};
  auto a = Args<PJRT_Client_Create_Args>();
  a.create_options = bad.data();
  a.num_options = 1;
  std::string m = Message(api->PJRT_Client_Create(&a));
  EXPECT_NE(m.find("no_such_option"), std::string::npos) << m;
  bad = {BoolOption("cpu_device_count", true)};
  a.create_options = bad.data();
  PJRT_Error* e = api->PJRT_Client_Create(&a);
  EXPECT_EQ(e ? e->vtable->get_code(e) : PJRT_Error_Code_OK, PJRT_Error_Code_INVALID_ARGUMENT);
  m = Message(e);
  EXPECT_NE(m.find("cpu_device_count"), std::string::npos) << m;
}

TEST_F(PluginTest, DevicesMemoriesAndDescriptions) {
  auto a = Args<PJRT_Client_AddressableDevices_Args>();
  a.client = client;
  CAPI_OK(api->PJRT_Client_AddressableDevices(&a));
  ASSERT_EQ(a.num_addressable_devices, 4u);
  auto pn = Args<PJRT_Client_PlatformName_Args>();
  pn.client = client;
  CAPI_OK(api->PJRT_Client_PlatformName(&pn));
  EXPECT_EQ(std::string(pn.platform_name, pn.platform_name_size), "cpu");
  for (size_t i = 0; i < a.num_addressable_devices; ++i) {
    PJRT_Device* dev = a.addressable_devices[i];
    auto gd = Args<PJRT_Device_GetDescription_Args>();
    gd.device = dev;
    CAPI_OK(api->PJRT_Device_GetDescription(&gd));
    auto id = Args<PJRT_DeviceDescription_Id_Args>();
    id.device_description = gd.device_description;
    CAPI_OK(api->PJRT_DeviceDescription_Id(&id));
    EXPECT_EQ(id.id, static_cast<int>(i));
    auto kind = Args<PJRT_DeviceDescription_Kind_Args>();
    kind.device_description = gd.device_description;
    CAPI_OK(api->PJRT_DeviceDescription_Kind(&kind));
    EXPECT_EQ(std::string(kind.device_kind, kind.device_kind_size), "cpu");
    auto lk = Args<PJRT_Client_LookupDevice_Args>();
    lk.client = client;
    lk.id = id.id;
    CAPI_OK(api->PJRT_Client_LookupDevice(&lk));
    EXPECT_EQ(lk.device, dev);
    auto mems = Args<PJRT_Device_AddressableMemories_Args>();
    mems.device = dev;
    CAPI_OK(api->PJRT_Device_AddressableMemories(&mems));
    ASSERT_EQ(mems.num_memories, 3u);
    std::vector<std::string> kinds;
    for (size_t m = 0; m < mems.num_memories; ++m) {
      ASSERT_NE(mems.memories[m]->vtable, nullptr);
      EXPECT_GE(mems.memories[m]->vtable->struct_size, static_cast<size_t>(PJRT_Memory_FunctionTable_STRUCT_SIZE));
      auto mk = Args<PJRT_Memory_Kind_Args>();
      mk.memory = mems.memories[m];
      CAPI_OK(api->PJRT_Memory_Kind(&mk));
      kinds.emplace_back(mk.kind, mk.kind_size);
    }
    EXPECT_EQ(kinds, (std::vector<std::string>{"device", "pinned_host", "unpinned_host"}));
    auto dm = Args<PJRT_Device_DefaultMemory_Args>();
    dm.device = dev;
    CAPI_OK(api->PJRT_Device_DefaultMemory(&dm));
    EXPECT_EQ(dm.memory, mems.memories[0]);
  }
  auto lk = Args<PJRT_Client_LookupDevice_Args>();
  lk.client = client;
  lk.id = 99;
  EXPECT_EQ(Code(api->PJRT_Client_LookupDevice(&lk)), PJRT_Error_Code_INVALID_ARGUMENT);
  auto da = Args<PJRT_Client_DefaultDeviceAssignment_Args>();
  int ids[4] = {-1, -1, -1, -1};
  da.client = client;
  da.num_replicas = 2;
  da.num_partitions = 2;
  da.default_assignment_size = 4;
  da.default_assignment = ids;
  CAPI_OK(api->PJRT_Client_DefaultDeviceAssignment(&da));
  EXPECT_EQ(ids[3], 3);
}

TEST_F(PluginTest, CompileExecuteAndQueryOneDevice) {
  PJRT_LoadedExecutable* exe = Compile(kAddMul);
  ASSERT_NE(exe, nullptr);
  PJRT_Buffer* x = Upload({1, 2, 3, 4, 5, 6}, {2, 3});
  PJRT_Buffer* y = Upload({1, 1, 1, 2, 2, 2}, {2, 3});
  auto outs = Execute(exe, {{x, y}}, 2);
  EXPECT_EQ(Download(outs[0][0]), (std::vector<float>{2, 4, 6, 12, 15, 18}));
  EXPECT_EQ(Download(outs[0][1]), (std::vector<float>{14, 19, 24}));
  auto dims = Args<PJRT_Buffer_Dimensions_Args>();
  dims.buffer = outs[0][1];
  CAPI_OK(api->PJRT_Buffer_Dimensions(&dims));
  ASSERT_EQ(dims.num_dims, 1u);
  EXPECT_EQ(dims.dims[0], 3);

  auto ge = Args<PJRT_LoadedExecutable_GetExecutable_Args>();
  ge.loaded_executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_GetExecutable(&ge));
  auto no = Args<PJRT_Executable_NumOutputs_Args>();
  no.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_NumOutputs(&no));
  EXPECT_EQ(no.num_outputs, 2u);
  auto et = Args<PJRT_Executable_OutputElementTypes_Args>();
  et.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_OutputElementTypes(&et));
  EXPECT_EQ(et.output_types[1], PJRT_Buffer_Type_F32);
  auto od = Args<PJRT_Executable_OutputDimensions_Args>();
  od.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_OutputDimensions(&od));
  EXPECT_EQ(od.dim_sizes[0], 2u);
  EXPECT_EQ(od.dims[2], 3);
  auto cost = Args<PJRT_Executable_GetCostAnalysis_Args>();
  cost.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_GetCostAnalysis(&cost));
  EXPECT_GE(cost.num_properties, 3u);
  auto fp = Args<PJRT_Executable_Fingerprint_Args>();
  fp.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_Fingerprint(&fp));
  EXPECT_GT(fp.executable_fingerprint_size, 0u);
  auto opt = Args<PJRT_Executable_OptimizedProgram_Args>();
  auto prog = Args<PJRT_Program>();
  opt.executable = ge.executable;
  opt.program = &prog;
  CAPI_OK(api->PJRT_Executable_OptimizedProgram(&opt));
  std::string text(prog.code_size, '\0');
  prog.code = text.data();
  CAPI_OK(api->PJRT_Executable_OptimizedProgram(&opt));
  EXPECT_NE(text.find("stablehlo.multiply"), std::string::npos);
  auto ed = Args<PJRT_Executable_Destroy_Args>();
  ed.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_Destroy(&ed));
  auto da = Args<PJRT_LoadedExecutable_GetDeviceAssignment_Args>();
  da.executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_GetDeviceAssignment(&da));
  ASSERT_NE(da.serialized_device_assignment_deleter, nullptr);
  da.serialized_device_assignment_deleter(da.serialized_device_assignment);
  for (PJRT_Buffer* b : {x, y, outs[0][0], outs[0][1]}) Destroy(b);
  Destroy(exe);
}

TEST_F(PluginTest, BadProgramsAndArgumentsGetClearErrors) {
  auto p = Args<PJRT_Program>();
  std::string bad = "func.func @main() -> tensor<f32> {\n  %0 = stablehlo.bogus : tensor<f32>\n}";
  p.code = bad.data();
  p.code_size = bad.size();
  p.format = "mlir";
  p.format_size = 4;
  auto a = Args<PJRT_Client_Compile_Args>();
  a.client = client;
  a.program = &p;
  PJRT_Error* e = api->PJRT_Client_Compile(&a);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_INVALID_ARGUMENT);
  std::string m = Message(e);
  EXPECT_NE(m.find(":2:"), std::string::npos) << m;
  // MLIR text passed as an HloModuleProto: the wire decoder names the message and the byte.
  p.format = "hlo";
  p.format_size = 3;
  e = api->PJRT_Client_Compile(&a);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_INVALID_ARGUMENT);
  m = Message(e);
  EXPECT_NE(m.find("HloModuleProto"), std::string::npos) << m;
  EXPECT_NE(m.find("at byte"), std::string::npos) << m;
  p.format = "mlirbc";
  p.format_size = 6;
  m = Message(api->PJRT_Client_Compile(&a));
  EXPECT_NE(m.find("unsupported program format 'mlirbc'"), std::string::npos) << m;

  PJRT_LoadedExecutable* exe = Compile(kAddMul);
  PJRT_Buffer* small = Upload({1, 2, 3}, {3});
  std::vector<PJRT_Buffer*> args = {small, small};
  PJRT_Buffer* const* lists[1] = {args.data()};
  PJRT_Buffer* outs[2];
  PJRT_Buffer** out_lists[1] = {outs};
  auto x = Args<PJRT_LoadedExecutable_Execute_Args>();
  x.executable = exe;
  x.argument_lists = lists;
  x.num_devices = 1;
  x.num_args = 2;
  x.output_lists = out_lists;
  m = Message(api->PJRT_LoadedExecutable_Execute(&x));
  EXPECT_NE(m.find("argument #0"), std::string::npos) << m;
  x.num_args = 1;
  EXPECT_EQ(Code(api->PJRT_LoadedExecutable_Execute(&x)), PJRT_Error_Code_INVALID_ARGUMENT);
  Destroy(small);
  Destroy(exe);
}

TEST_F(PluginTest, ExecuteOnFourDevicesWithAllReduce) {
  const std::string prog = R"(
module attributes {mhlo.num_replicas = 4 : i32} {
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}})";
  // CompileOptionsProto{executable_build_options{num_replicas: 4}}
  const std::string options("\x1a\x02\x20\x04", 4);
  PJRT_LoadedExecutable* exe = Compile(prog, nullptr, options);
  ASSERT_NE(exe, nullptr);
  auto ad = Args<PJRT_LoadedExecutable_AddressableDevices_Args>();
  ad.executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_AddressableDevices(&ad));
  ASSERT_EQ(ad.num_addressable_devices, 4u);
  std::vector<std::vector<PJRT_Buffer*>> args;
  for (int d = 0; d < 4; ++d) args.push_back({Upload({float(d), 1}, {2}, d)});
  auto outs = Execute(exe, args, 1);
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(Download(outs[d][0]), (std::vector<float>{6, 4})) << "device " << d;
    auto bd = Args<PJRT_Buffer_Device_Args>();
    bd.buffer = outs[d][0];
    CAPI_OK(api->PJRT_Buffer_Device(&bd));
    EXPECT_EQ(bd.device, Device(d));
    Destroy(outs[d][0]);
    Destroy(args[d][0]);
  }
  Destroy(exe);
}

TEST_F(PluginTest, EventsOutliveDestroyAndCarryErrors) {
  auto c = Args<PJRT_Event_Create_Args>();
  CAPI_OK(api->PJRT_Event_Create(&c));
  static std::atomic<int> calls{0};
  static std::atomic<int> last_code{-1};
  auto on = Args<PJRT_Event_OnReady_Args>();
  on.event = c.event;
  on.callback = [](PJRT_Error* e, void*) {
    last_code = e ? static_cast<int>(e->vtable->get_code(e)) : 0;
    if (e) e->vtable->destroy(e);
    ++calls;
  };
  CAPI_OK(api->PJRT_Event_OnReady(&on));
  auto set = Args<PJRT_Event_Set_Args>();
  set.event = c.event;
  set.error_code = PJRT_Error_Code_ABORTED;
  set.error_message = "stop";
  set.error_message_size = 4;
  // Keep a second reference through the handle while destroying... then set through it.
  CAPI_OK(api->PJRT_Event_Set(&set));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(last_code.load(), PJRT_Error_Code_ABORTED);
  auto err = Args<PJRT_Event_Error_Args>();
  err.event = c.event;
  EXPECT_EQ(Message(api->PJRT_Event_Error(&err)), "stop");
  Destroy(c.event);

  // An error buffer's error reaches the outputs of an execution that takes it.
  PJRT_LoadedExecutable* exe = Compile(kAddMul);
  int64_t dims[2] = {2, 3};
  auto eb = Args<PJRT_Client_CreateErrorBuffer_Args>();
  eb.client = client;
  eb.error_code = PJRT_Error_Code_DATA_LOSS;
  eb.error_message = "lost";
  eb.error_message_size = 4;
  eb.shape_dims = dims;
  eb.shape_num_dims = 2;
  eb.shape_element_type = PJRT_Buffer_Type_F32;
  auto dm = Args<PJRT_Device_DefaultMemory_Args>();
  dm.device = Device(0);
  CAPI_OK(api->PJRT_Device_DefaultMemory(&dm));
  eb.memory = dm.memory;
  CAPI_OK(api->PJRT_Client_CreateErrorBuffer(&eb));
  auto outs = Execute(exe, {{eb.buffer, eb.buffer}}, 2);
  auto re = Args<PJRT_Buffer_ReadyEvent_Args>();
  re.buffer = outs[0][0];
  CAPI_OK(api->PJRT_Buffer_ReadyEvent(&re));
  PJRT_Error* got = Await(re.event);
  EXPECT_EQ(Code(got), PJRT_Error_Code_DATA_LOSS);
  for (PJRT_Buffer* b : {eb.buffer, outs[0][0], outs[0][1]}) Destroy(b);
  Destroy(exe);
}

TEST_F(PluginTest, OnReadyCallbackRunsAfterEventDestroy) {
  PJRT_LoadedExecutable* exe = Compile(kAddMul);
  PJRT_Buffer* x = Upload({1, 2, 3, 4, 5, 6}, {2, 3});
  auto outs = Execute(exe, {{x, x}}, 2);
  auto re = Args<PJRT_Buffer_ReadyEvent_Args>();
  re.buffer = outs[0][0];
  CAPI_OK(api->PJRT_Buffer_ReadyEvent(&re));
  static std::atomic<int> fired{0};
  auto on = Args<PJRT_Event_OnReady_Args>();
  on.event = re.event;
  on.callback = [](PJRT_Error* e, void*) {
    if (e) e->vtable->destroy(e);
    ++fired;
  };
  CAPI_OK(api->PJRT_Event_OnReady(&on));
  Destroy(re.event);  // as XLA's client does, right after OnReady
  Download(outs[0][0]);
  for (int i = 0; i < 1000 && fired.load() == 0; ++i) std::this_thread::yield();
  EXPECT_EQ(fired.load(), 1);
  for (PJRT_Buffer* b : {x, outs[0][0], outs[0][1]}) Destroy(b);
  Destroy(exe);
}

TEST_F(PluginTest, SerializeAndDeserializeAndLoad) {
  PJRT_LoadedExecutable* exe = Compile(kAddMul);
  auto ge = Args<PJRT_LoadedExecutable_GetExecutable_Args>();
  ge.loaded_executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_GetExecutable(&ge));
  auto s = Args<PJRT_Executable_Serialize_Args>();
  s.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_Serialize(&s));
  std::string bytes(s.serialized_bytes, s.serialized_bytes_size);
  s.serialized_executable_deleter(s.serialized_executable);
  auto dl = Args<PJRT_Executable_DeserializeAndLoad_Args>();
  dl.client = client;
  dl.serialized_executable = bytes.data();
  dl.serialized_executable_size = bytes.size();
  CAPI_OK(api->PJRT_Executable_DeserializeAndLoad(&dl));
  PJRT_Buffer* x = Upload({1, 2, 3, 4, 5, 6}, {2, 3});
  auto outs = Execute(dl.loaded_executable, {{x, x}}, 2);
  EXPECT_EQ(Download(outs[0][1]), (std::vector<float>{22, 36, 54}));
  Destroy(dl.loaded_executable);
  std::string foreign = "\x08\x01 not an executable";
  dl.serialized_executable = foreign.data();
  dl.serialized_executable_size = foreign.size();
  std::string m = Message(api->PJRT_Executable_DeserializeAndLoad(&dl));
  EXPECT_NE(m.find("serialized executable"), std::string::npos) << m;
  bytes[bytes.size() / 2] ^= 0x55;
  dl.serialized_executable = bytes.data();
  dl.serialized_executable_size = bytes.size();
  EXPECT_EQ(Code(api->PJRT_Executable_DeserializeAndLoad(&dl)), PJRT_Error_Code_INVALID_ARGUMENT);
  auto ed = Args<PJRT_Executable_Destroy_Args>();
  ed.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_Destroy(&ed));
  for (PJRT_Buffer* b : {x, outs[0][0], outs[0][1]}) Destroy(b);
  Destroy(exe);
}

TEST_F(PluginTest, BufferTransfersLayoutsAndCopies) {
  // A transposed (column-major) host array read through byte strides.
  std::vector<float> colmajor = {1, 4, 2, 5, 3, 6};  // logical [[1,2,3],[4,5,6]]
  int64_t dims[2] = {2, 3}, strides[2] = {4, 8};
  auto a = Args<PJRT_Client_BufferFromHostBuffer_Args>();
  a.client = client;
  a.data = colmajor.data();
  a.type = PJRT_Buffer_Type_F32;
  a.dims = dims;
  a.num_dims = 2;
  a.byte_strides = strides;
  a.num_byte_strides = 2;
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
  a.device = Device(0);
  CAPI_OK(api->PJRT_Client_BufferFromHostBuffer(&a));
  ASSERT_NE(a.done_with_host_buffer, nullptr);
  CAPI_OK(Await(a.done_with_host_buffer));
  EXPECT_EQ(Download(a.buffer), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  // ...and written back column-major through a minor_to_major host layout.
  int64_t m2m[2] = {0, 1};
  auto layout = Args<PJRT_Buffer_MemoryLayout>();
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
  layout.tiled.minor_to_major = m2m;
  layout.tiled.minor_to_major_size = 2;
  std::vector<float> back(6);
  auto th = Args<PJRT_Buffer_ToHostBuffer_Args>();
  th.src = a.buffer;
  th.host_layout = &layout;
  th.dst = back.data();
  th.dst_size = 24;
  CAPI_OK(api->PJRT_Buffer_ToHostBuffer(&th));
  CAPI_OK(Await(th.event));
  EXPECT_EQ(back, colmajor);
  th.dst_size = 8;
  th.event = nullptr;
  EXPECT_EQ(Code(api->PJRT_Buffer_ToHostBuffer(&th)), PJRT_Error_Code_INVALID_ARGUMENT);

  auto cp = Args<PJRT_Buffer_CopyToDevice_Args>();
  cp.buffer = a.buffer;
  cp.dst_device = Device(2);
  CAPI_OK(api->PJRT_Buffer_CopyToDevice(&cp));
  EXPECT_EQ(Download(cp.dst_buffer), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto mems = Args<PJRT_Device_AddressableMemories_Args>();
  mems.device = Device(1);
  CAPI_OK(api->PJRT_Device_AddressableMemories(&mems));
  auto cm = Args<PJRT_Buffer_CopyToMemory_Args>();
  cm.buffer = a.buffer;
  cm.dst_memory = mems.memories[1];
  CAPI_OK(api->PJRT_Buffer_CopyToMemory(&cm));
  auto bm = Args<PJRT_Buffer_Memory_Args>();
  bm.buffer = cm.dst_buffer;
  CAPI_OK(api->PJRT_Buffer_Memory(&bm));
  EXPECT_EQ(bm.memory, mems.memories[1]);

  auto bc = Args<PJRT_Buffer_Bitcast_Args>();
  int64_t flat[1] = {6};
  bc.buffer = a.buffer;
  bc.element_type = PJRT_Buffer_Type_S32;
  bc.dims = flat;
  bc.num_dims = 1;
  CAPI_OK(api->PJRT_Buffer_Bitcast(&bc));
  int32_t raw[6];
  auto rr = Args<PJRT_Buffer_CopyRawToHost_Args>();
  rr.buffer = bc.out_buffer;
  rr.dst = raw;
  rr.transfer_size = 24;
  CAPI_OK(api->PJRT_Buffer_CopyRawToHost(&rr));
  CAPI_OK(Await(rr.event));
  EXPECT_EQ(raw[0], 0x3f800000);
  rr.offset = 20;
  EXPECT_EQ(Code(api->PJRT_Buffer_CopyRawToHost(&rr)), PJRT_Error_Code_INVALID_ARGUMENT);

  auto del = Args<PJRT_Buffer_Delete_Args>();
  del.buffer = a.buffer;
  CAPI_OK(api->PJRT_Buffer_Delete(&del));
  auto isd = Args<PJRT_Buffer_IsDeleted_Args>();
  isd.buffer = a.buffer;
  CAPI_OK(api->PJRT_Buffer_IsDeleted(&isd));
  EXPECT_TRUE(isd.is_deleted);
  for (PJRT_Buffer* b : {a.buffer, cp.dst_buffer, cm.dst_buffer, bc.out_buffer}) Destroy(b);
}

TEST_F(PluginTest, ZeroCopyReleasesHostMemoryOnDestroy) {
  alignas(64) float data[16] = {1, 2, 3};
  const std::vector<int64_t> dims = {16};
  auto a = HostBufferArgs(data, PJRT_Buffer_Type_F32, dims, PJRT_HostBufferSemantics_kImmutableZeroCopy);
  CAPI_OK(api->PJRT_Client_BufferFromHostBuffer(&a));
  auto up = Args<PJRT_Buffer_UnsafePointer_Args>();
  up.buffer = a.buffer;
  CAPI_OK(api->PJRT_Buffer_UnsafePointer(&up));
  EXPECT_EQ(up.buffer_pointer, reinterpret_cast<uintptr_t>(data));
  auto ready = Args<PJRT_Event_IsReady_Args>();
  ready.event = a.done_with_host_buffer;
  CAPI_OK(api->PJRT_Event_IsReady(&ready));
  EXPECT_FALSE(ready.is_ready);
  Destroy(a.buffer);
  CAPI_OK(Await(a.done_with_host_buffer));
  // Arrays over 256 KiB need 16-byte alignment (numpy's large arrays start 16 bytes into a page);
  // smaller ones are copied unless on a 64-byte boundary (kernels may read them many times).
  const int64_t large = (256 << 10) / 4 + 16;
  std::vector<float> more(large + 32);
  float* base = more.data() + (-reinterpret_cast<uintptr_t>(more.data()) / 4) % 16;  // 64-byte aligned
  for (int64_t i = 0; i < large + 16; ++i) base[i] = static_cast<float>(i % 1000);
  for (int64_t n : {int64_t{16}, large})
    for (int offset : {0, 4, 2}) {
      const std::vector<int64_t> shape = {n};
      auto b = HostBufferArgs(base + offset, PJRT_Buffer_Type_F32, shape, PJRT_HostBufferSemantics_kImmutableZeroCopy);
      CAPI_OK(api->PJRT_Client_BufferFromHostBuffer(&b));
      up.buffer = b.buffer;
      CAPI_OK(api->PJRT_Buffer_UnsafePointer(&up));
      const bool in_place = offset == 0 || (offset == 4 && n == large);
      EXPECT_EQ(up.buffer_pointer == reinterpret_cast<uintptr_t>(base + offset), in_place) << n << " " << offset;
      if (!in_place) EXPECT_EQ(up.buffer_pointer % 64, 0u) << n << " " << offset;
      EXPECT_EQ(Download(b.buffer)[15], static_cast<float>(15 + offset));
      Destroy(b.buffer);
      CAPI_OK(Await(b.done_with_host_buffer));
    }
}

TEST_F(PluginTest, AsyncHostToDeviceTransferManager) {
  int64_t dims[1] = {4};
  auto spec = Args<PJRT_ShapeSpec>();
  spec.dims = dims;
  spec.num_dims = 1;
  spec.element_type = PJRT_Buffer_Type_F32;
  auto dm = Args<PJRT_Device_DefaultMemory_Args>();
  dm.device = Device(1);
  CAPI_OK(api->PJRT_Device_DefaultMemory(&dm));
  auto c = Args<PJRT_Client_CreateBuffersForAsyncHostToDevice_Args>();
  c.client = client;
  c.shape_specs = &spec;
  c.num_shape_specs = 1;
  c.memory = dm.memory;
  CAPI_OK(api->PJRT_Client_CreateBuffersForAsyncHostToDevice(&c));
  auto size = Args<PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args>();
  size.transfer_manager = c.transfer_manager;
  CAPI_OK(api->PJRT_AsyncHostToDeviceTransferManager_BufferSize(&size));
  EXPECT_EQ(size.buffer_size, 16u);
  auto rb = Args<PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args>();
  rb.transfer_manager = c.transfer_manager;
  CAPI_OK(api->PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(&rb));
  float part1[2] = {1, 2}, part2[2] = {3, 4};
  auto td = Args<PJRT_AsyncHostToDeviceTransferManager_TransferData_Args>();
  td.transfer_manager = c.transfer_manager;
  td.data = part1;
  td.transfer_size = 8;
  CAPI_OK(api->PJRT_AsyncHostToDeviceTransferManager_TransferData(&td));
  Destroy(td.done_with_h2d_transfer);
  td.offset = 12;  // past the end of the 16-byte buffer
  EXPECT_EQ(Code(api->PJRT_AsyncHostToDeviceTransferManager_TransferData(&td)),
            PJRT_Error_Code_INVALID_ARGUMENT);
  td.data = part2;
  td.offset = 8;
  td.is_last_transfer = true;
  CAPI_OK(api->PJRT_AsyncHostToDeviceTransferManager_TransferData(&td));
  Destroy(td.done_with_h2d_transfer);
  EXPECT_EQ(Download(rb.buffer_out), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(Code(api->PJRT_AsyncHostToDeviceTransferManager_TransferData(&td)),
            PJRT_Error_Code_FAILED_PRECONDITION);  // already complete
  auto d = Args<PJRT_AsyncHostToDeviceTransferManager_Destroy_Args>();
  d.transfer_manager = c.transfer_manager;
  CAPI_OK(api->PJRT_AsyncHostToDeviceTransferManager_Destroy(&d));
  Destroy(rb.buffer_out);
}

TEST_F(PluginTest, UnimplementedSlotsNameThemselves) {
  auto a = Args<PJRT_Device_PoisonExecution_Args>();
  a.device = Device(0);
  PJRT_Error* e = api->PJRT_Device_PoisonExecution(&a);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_NE(Message(e).find("PJRT_Device_PoisonExecution"), std::string::npos);
}

TEST_F(PluginTest, ConcurrentUploadsExecutionsAndDestroys) {
  PJRT_LoadedExecutable* exe = Compile(kAddMul);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        float v = static_cast<float>(t * 100 + i);
        PJRT_Buffer* x = Upload({v, v, v, v, v, v}, {2, 3}, t % 4);
        PJRT_Buffer* y = Upload({1, 1, 1, 1, 1, 1}, {2, 3}, t % 4);
        if (t % 4 != 0) {  // the executable runs on device 0: move the inputs there
          for (PJRT_Buffer** b : {&x, &y}) {
            auto cp = Args<PJRT_Buffer_CopyToDevice_Args>();
            cp.buffer = *b;
            cp.dst_device = Device(0);
            if (api->PJRT_Buffer_CopyToDevice(&cp)) ++bad;
            Destroy(*b);
            *b = cp.dst_buffer;
          }
        }
        auto outs = Execute(exe, {{x, y}}, 2);
        Destroy(x);  // while the execution may still be running
        Destroy(y);
        if (Download(outs[0][0])[5] != 2 * v) ++bad;
        Destroy(outs[0][0]);
        Destroy(outs[0][1]);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  Destroy(exe);
}

TEST_F(PluginTest, ClientDestroyedWhileOutputsPending) {
  PJRT_Client* c = CreateClient();
  PJRT_LoadedExecutable* exe = Compile(kAddMul, c);
  PJRT_Buffer* x = Upload({1, 2, 3, 4, 5, 6}, {2, 3}, 0, c);
  auto outs = Execute(exe, {{x, x}}, 2);
  Destroy(x);
  Destroy(exe);
  Destroy(outs[0][0]);
  Destroy(outs[0][1]);
  auto d = Args<PJRT_Client_Destroy_Args>();
  d.client = c;
  CAPI_OK(api->PJRT_Client_Destroy(&d));
}

// int4 / int2 host buffers hold one value per byte with only the low bits defined (ml_dtypes,
// and so JAX, leave the high bits as they are): the plugin reads the low bits as a signed value,
// whatever the host semantics (a zero-copy request is copied).
TEST_F(PluginTest, SubByteSignedHostBuffersReadTheirLowBits) {
  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%x: tensor<4xi4>, %y: tensor<4xi2>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.convert %x : (tensor<4xi4>) -> tensor<4xf32>
  %1 = stablehlo.convert %y : (tensor<4xi2>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
)");
  ASSERT_NE(exe, nullptr);
  alignas(64) static uint8_t s4[64] = {0x0B, 0xFB, 0x07, 0xA8};  // -5 (high bits clear), -5, 7, -8
  alignas(64) static uint8_t s2[64] = {0x03, 0xFE, 0x01, 0x40};  // -1, -2, 1, 0
  for (auto semantics : {PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, PJRT_HostBufferSemantics_kImmutableZeroCopy}) {
    std::vector<PJRT_Buffer*> in;
    std::vector<PJRT_Event*> done;  // a zero-copy buffer releases the host memory when destroyed
    const std::vector<int64_t> dims = {4};
    for (auto [data, type] : {std::pair{s4, PJRT_Buffer_Type_S4}, std::pair{s2, PJRT_Buffer_Type_S2}}) {
      auto a = HostBufferArgs(data, type, dims, semantics);
      CAPI_OK(api->PJRT_Client_BufferFromHostBuffer(&a));
      if (a.done_with_host_buffer) done.push_back(a.done_with_host_buffer);
      in.push_back(a.buffer);
    }
    auto outs = Execute(exe, {in}, 2);
    EXPECT_EQ(Download(outs[0][0]), (std::vector<float>{-5, -5, 7, -8}));
    EXPECT_EQ(Download(outs[0][1]), (std::vector<float>{-1, -2, 1, 0}));
    for (PJRT_Buffer* b : outs[0]) Destroy(b);
    for (PJRT_Buffer* b : in) Destroy(b);
    for (PJRT_Event* e : done) EXPECT_EQ(Await(e), nullptr);
  }
  Destroy(exe);
}

// A token buffer holds no bytes: downloading one writes nothing (it once copied 4 bytes from a
// null array; found by capi_fuzz).
TEST_F(PluginTest, TokenBuffersDownloadNothing) {
  auto h = HostBufferArgs(nullptr, PJRT_Buffer_Type_TOKEN, {}, PJRT_HostBufferSemantics_kImmutableOnlyDuringCall);
  CAPI_OK(api->PJRT_Client_BufferFromHostBuffer(&h));
  char dst[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  auto t = Args<PJRT_Buffer_ToHostBuffer_Args>();
  t.src = h.buffer;
  t.dst = dst;
  t.dst_size = sizeof(dst);
  CAPI_OK(api->PJRT_Buffer_ToHostBuffer(&t));
  CAPI_OK(Await(t.event));
  EXPECT_EQ(dst[0], 1);
  if (h.done_with_host_buffer) Destroy(h.done_with_host_buffer);
  Destroy(h.buffer);
}

// An f32 alias buffer of `dims` on the client's first device (the test fails if it cannot be made).
PJRT_Client_CreateAliasBuffer_Args CreateAlias(PluginTest* t, PJRT_Client* c, std::vector<int64_t> dims) {
  static std::vector<int64_t> kept;  // where shape_dims points after the call returns
  kept = std::move(dims);
  auto dm = Args<PJRT_Device_DefaultMemory_Args>();
  dm.device = t->Device(0, c);
  EXPECT_EQ(t->api->PJRT_Device_DefaultMemory(&dm), nullptr);
  auto ca = Args<PJRT_Client_CreateAliasBuffer_Args>();
  ca.client = c;
  ca.memory = dm.memory;
  ca.shape_dims = kept.data();
  ca.shape_num_dims = kept.size();
  ca.shape_element_type = PJRT_Buffer_Type_F32;
  PJRT_Error* e = t->api->PJRT_Client_CreateAliasBuffer(&ca);
  EXPECT_EQ(e, nullptr) << Message(e);
  return ca;
}

// PJRT_Client_FulfillAliasBuffer's arguments: `real` takes the place of alias `ca`.
PJRT_Client_FulfillAliasBuffer_Args FulfilArgs(const PJRT_Client_CreateAliasBuffer_Args& ca, PJRT_Buffer* real) {
  auto fa = Args<PJRT_Client_FulfillAliasBuffer_Args>();
  fa.client = ca.client;
  fa.buffer = real;
  fa.fulfill_alias_buffer_cb = ca.fulfill_alias_buffer_cb;
  return fa;
}

// An alias buffer stands for data that arrives later: executions read it once it is fulfilled;
// a callback is fulfilled once.
TEST_F(PluginTest, AliasBufferFeedsItsReadersOnceFulfilled) {
  auto ca = CreateAlias(this, client, {2, 3});
  PJRT_LoadedExecutable* exe = Compile(kAddMul);
  PJRT_Buffer* y = Upload({1, 1, 1, 1, 1, 1}, {2, 3});
  std::vector<std::vector<PJRT_Buffer*>> outs;
  CAPI_OK(TryExecute(exe, {{ca.alias_buffer, y}}, 2, &outs));
  PJRT_Buffer* real = Upload({1, 2, 3, 4, 5, 6}, {2, 3});
  auto fa = FulfilArgs(ca, real);
  CAPI_OK(api->PJRT_Client_FulfillAliasBuffer(&fa));
  EXPECT_EQ(Download(outs[0][0]), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  // The callback is spent: a second fulfilment is refused by name, not followed.
  EXPECT_NE(Message(api->PJRT_Client_FulfillAliasBuffer(&fa)).find("not a pending callback"), std::string::npos);
  for (PJRT_Buffer* b : outs[0]) Destroy(b);
  Destroy(real);
  Destroy(y);
  Destroy(ca.alias_buffer);
  Destroy(exe);
}

// Under a memory limit, the outputs of an execution still waiting for its arguments are reserved:
// an upload cannot take the room they were promised.
TEST_F(PluginTest, UploadsRespectReservedOutputs) {
  PJRT_Client* small = CreateClient({IntOption("memory_limit_bytes", 100)});
  ASSERT_NE(small, nullptr);
  auto ca = CreateAlias(this, small, {2, 3});
  PJRT_LoadedExecutable* exe = Compile(kAddMul, small);
  PJRT_Buffer* y = Upload({1, 1, 1, 1, 1, 1}, {2, 3}, 0, small);  // 24 bytes in use
  std::vector<std::vector<PJRT_Buffer*>> outs;
  CAPI_OK(TryExecute(exe, {{ca.alias_buffer, y}}, 2, &outs));  // waits; 36 bytes of outputs reserved
  std::vector<float> twelve(12, 1.0f);
  const std::vector<int64_t> dims = {12};
  auto a = HostBufferArgs(twelve.data(), PJRT_Buffer_Type_F32, dims,
                          PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, 0, small);
  PJRT_Error* e = api->PJRT_Client_BufferFromHostBuffer(&a);  // 24 + 36 + 48 > 100
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_RESOURCE_EXHAUSTED);
  std::string m = Message(e);
  EXPECT_NE(m.find("24 in use, 36 reserved by executions in flight"), std::string::npos) << m;
  PJRT_Buffer* real = Upload({1, 2, 3, 4, 5, 6}, {2, 3}, 0, small);
  auto fa = FulfilArgs(ca, real);
  CAPI_OK(api->PJRT_Client_FulfillAliasBuffer(&fa));
  EXPECT_EQ(Download(outs[0][0]), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  for (PJRT_Buffer* b : outs[0]) Destroy(b);
  for (PJRT_Buffer* b : {real, y, ca.alias_buffer}) Destroy(b);
  Destroy(exe);
  auto cd = Args<PJRT_Client_Destroy_Args>();
  cd.client = small;
  CAPI_OK(api->PJRT_Client_Destroy(&cd));
}

// Promises dropped unfulfilled: whoever waits learns the data never arrived (no hang).
TEST_F(PluginTest, DroppedPromisesFailTheirWaiters) {
  static std::string last;
  auto on_ready = [](PJRT_Error* e, void*) { last = e ? Message(e) : "ok"; };
  // An event of PJRT_Event_Create destroyed before PJRT_Event_Set.
  auto c = Args<PJRT_Event_Create_Args>();
  CAPI_OK(api->PJRT_Event_Create(&c));
  auto on = Args<PJRT_Event_OnReady_Args>();
  on.event = c.event;
  on.callback = on_ready;
  CAPI_OK(api->PJRT_Event_OnReady(&on));
  last.clear();
  Destroy(c.event);
  EXPECT_NE(last.find("never arrived"), std::string::npos) << last;

  // An alias buffer whose client goes away before it is fulfilled.
  PJRT_Client* other = CreateClient();
  auto ca = CreateAlias(this, other, {4});
  auto re = Args<PJRT_Buffer_ReadyEvent_Args>();
  re.buffer = ca.alias_buffer;
  CAPI_OK(api->PJRT_Buffer_ReadyEvent(&re));
  on.event = re.event;
  CAPI_OK(api->PJRT_Event_OnReady(&on));
  last.clear();
  Destroy(ca.alias_buffer);
  auto d = Args<PJRT_Client_Destroy_Args>();
  d.client = other;
  CAPI_OK(api->PJRT_Client_Destroy(&d));
  EXPECT_NE(last.find("never arrived"), std::string::npos) << last;
  Destroy(re.event);
}

}  // namespace
}  // namespace capi
