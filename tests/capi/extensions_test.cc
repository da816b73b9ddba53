// Conformance tests for the Layouts and MemoryDescriptions extensions, found the way clients find
// them: by walking PJRT_Api.extension_start and matching the type tag.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "include/openpjrt/c/openpjrt_execute_order_extension.h"
#include "include/openpjrt/c/pjrt_c_api_cross_host_transfers_extension.h"
#include "include/openpjrt/c/pjrt_c_api_layouts_extension.h"
#include "include/openpjrt/c/pjrt_c_api_memory_descriptions_extension.h"
#include "tests/capi/capi_fixture.h"

namespace capi {
namespace {

const PJRT_Extension_Base* FindExtension(const PJRT_Api* api, PJRT_Extension_Type type) {
  for (const PJRT_Extension_Base* e = api->extension_start; e != nullptr; e = e->next)
    if (e->type == type) return e;
  return nullptr;
}

const PJRT_Layouts_Extension* Layouts() {
  return reinterpret_cast<const PJRT_Layouts_Extension*>(
      FindExtension(Api(), PJRT_Extension_Type_Layouts));
}

const PJRT_MemoryDescriptions_Extension* MemoryDescriptions() {
  return reinterpret_cast<const PJRT_MemoryDescriptions_Extension*>(
      FindExtension(Api(), PJRT_Extension_Type_MemoryDescriptions));
}

// Serializes a layout and returns its bytes (XLA's text form), freeing the serialized form.
std::string Serialize(PJRT_Layouts_MemoryLayout* layout) {
  auto s = Args<PJRT_Layouts_MemoryLayout_Serialize_Args>();
  s.layout = layout;
  PJRT_Error* e = Layouts()->PJRT_Layouts_MemoryLayout_Serialize(&s);
  if (e != nullptr) return "error: " + Message(e);
  std::string bytes(s.serialized_bytes, s.serialized_bytes_size);
  s.serialized_layout_deleter(s.serialized_layout);
  return bytes;
}

void DestroyLayout(PJRT_Layouts_MemoryLayout* layout) {
  auto d = Args<PJRT_Layouts_MemoryLayout_Destroy_Args>();
  d.layout = layout;
  PJRT_Error* e = Layouts()->PJRT_Layouts_MemoryLayout_Destroy(&d);
  EXPECT_EQ(e, nullptr) << Message(e);
}

// XLA's text form of a dense layout: "{1,0}".
std::string LayoutText(std::vector<int> minor_to_major) {
  std::string out = "{";
  for (size_t i = 0; i < minor_to_major.size(); ++i) out += (i ? "," : "") + std::to_string(minor_to_major[i]);
  return out + "}";
}

TEST(Extensions, ChainHoldsLayoutsAndMemoryDescriptions) {
  const PJRT_Layouts_Extension* l = Layouts();
  ASSERT_NE(l, nullptr);
  EXPECT_GE(l->base.struct_size, static_cast<size_t>(PJRT_Layouts_Extension_STRUCT_SIZE));
  EXPECT_NE(l->PJRT_Layouts_MemoryLayout_Destroy, nullptr);
  EXPECT_NE(l->PJRT_Layouts_MemoryLayout_Serialize, nullptr);
  EXPECT_NE(l->PJRT_Layouts_PJRT_Client_GetDefaultLayout, nullptr);
  EXPECT_NE(l->PJRT_Layouts_PJRT_Buffer_MemoryLayout, nullptr);
  EXPECT_NE(l->PJRT_Layouts_PJRT_Topology_GetDefaultLayout, nullptr);
  EXPECT_NE(l->PJRT_Layouts_PJRT_Executable_GetOutputLayouts, nullptr);
  EXPECT_NE(l->PJRT_Layouts_PJRT_Executable_GetParameterLayouts, nullptr);
  const PJRT_MemoryDescriptions_Extension* m = MemoryDescriptions();
  ASSERT_NE(m, nullptr);
  EXPECT_GE(m->base.struct_size, static_cast<size_t>(PJRT_MemoryDescriptions_Extension_STRUCT_SIZE));
  EXPECT_NE(m->PJRT_DeviceDescription_MemoryDescriptions, nullptr);
  EXPECT_NE(m->PJRT_MemoryDescription_Kind, nullptr);
}

// Cross-host transfers need a client spanning processes (distributed_test.cc moves data); here
// the misuse: a one-process client, nulls, a short struct, and the descriptor-based API.
TEST_F(PluginTest, CrossHostTransfersRefuseWhatTheyCannotDo) {
  const auto* x = reinterpret_cast<const PJRT_CrossHostTransfers_Extension*>(
      FindExtension(api, PJRT_Extension_Type_CrossHostTransfers));
  ASSERT_NE(x, nullptr);
  PJRT_Buffer* b = Upload({1, 2}, {2});
  int32_t dst = 1;
  int64_t key = 5;
  PJRT_Event* event = nullptr;
  auto s = Args<PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args>();
  s.client = client;
  s.num_buffers = 1;
  s.buffers = &b;
  s.dst_global_device_ids = &dst;
  s.transfer_keys = &key;
  s.send_events = &event;
  PJRT_Error* e = x->PJRT_Transfers_PJRT_Client_CrossHostSendBuffers(&s);
  EXPECT_EQ(Code(e), PJRT_Error_Code_FAILED_PRECONDITION);
  s.dst_global_device_ids = nullptr;
  std::string m = Message(x->PJRT_Transfers_PJRT_Client_CrossHostSendBuffers(&s));
  EXPECT_NE(m.find("PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args.dst_global_device_ids is null"),
            std::string::npos) << m;
  s.dst_global_device_ids = &dst;
  s.struct_size = 24;
  m = Message(x->PJRT_Transfers_PJRT_Client_CrossHostSendBuffers(&s));
  EXPECT_NE(m.find("PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args"), std::string::npos) << m;
  // Version 8's task list: a count without its arrays.
  s.struct_size = sizeof(s);
  s.num_tasks = 2;
  m = Message(x->PJRT_Transfers_PJRT_Client_CrossHostSendBuffers(&s));
  EXPECT_NE(m.find("num_tasks is 2 but task_ids or incarnation_ids is null"), std::string::npos) << m;

  const int64_t dims[1] = {2};
  const int64_t* dim_ptr = dims;
  size_t rank = 1;
  PJRT_Buffer_Type type = PJRT_Buffer_Type_F32;
  int32_t src = 1;
  PJRT_Buffer* out = nullptr;
  auto r = Args<PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args>();
  r.client = client;
  r.num_shapes = 1;
  r.shape_num_dims = &rank;
  r.num_dims = &dim_ptr;
  r.element_types = &type;
  r.device = Device(0);
  r.src_global_device_ids = &src;
  r.transfer_keys = &key;
  r.buffers = &out;
  e = x->PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers(&r);
  EXPECT_EQ(Code(e), PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(out, nullptr);
  type = static_cast<PJRT_Buffer_Type>(999);
  m = Message(x->PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers(&r));
  EXPECT_NE(m.find("element type 999"), std::string::npos) << m;

  auto mk = Args<PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args>();
  mk.client = client;
  m = Message(x->PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers(&mk));
  EXPECT_NE(m.find("MakeCrossHostReceiveBuffers"), std::string::npos) << m;
  struct Done {
    std::string message;
    bool called = false;
  } done;
  auto copy = Args<PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args>();
  copy.buffer = b;
  copy.on_done.user_arg = &done;
  copy.on_done.on_done = [](PJRT_Error* err, bool enqueued, void* arg) {
    auto* d = static_cast<Done*>(arg);
    d->called = true;
    d->message = Message(err);
    EXPECT_FALSE(enqueued);
  };
  x->PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice(&copy);
  EXPECT_TRUE(done.called);
  EXPECT_NE(done.message.find("CopyToRemoteDevice"), std::string::npos) << done.message;
  // Once its event is set: a descriptor that is not this plugin's, one on a one-process client,
  // and an event carrying an error (the descriptor never came) all reach on_done as errors.
  struct Case {
    std::string descriptor;
    PJRT_Error_Code event_code;
    const char* expected;
  };
  for (const Case& k : {Case{"garbage", PJRT_Error_Code_OK, "is not an openpjrt descriptor"},
                        Case{"openpjrt-transfer:1:7", PJRT_Error_Code_OK, "client spanning processes"},
                        Case{"", PJRT_Error_Code_CANCELLED, "the descriptor never came"}}) {
    done = Done{};
    auto ce = Args<PJRT_Event_Create_Args>();
    ASSERT_EQ(api->PJRT_Event_Create(&ce), nullptr);
    char* data = nullptr;
    size_t size = 0;
    copy.event = ce.event;
    copy.serialized_descriptor = &data;
    copy.serialized_descriptor_size = &size;
    x->PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice(&copy);
    EXPECT_FALSE(done.called) << "reported before its descriptor came";
    std::string d = k.descriptor;
    data = d.data();
    size = d.size();
    auto set = Args<PJRT_Event_Set_Args>();
    set.event = ce.event;
    set.error_code = k.event_code;
    ASSERT_EQ(api->PJRT_Event_Set(&set), nullptr);
    EXPECT_TRUE(done.called);
    EXPECT_NE(done.message.find(k.expected), std::string::npos) << done.message;
  }
  Destroy(b);
}

// openpjrt's execute-order extension on PJRT_ExecuteOptions: an execution gated on a promise
// holds back the next one on its stream (though they share nothing but the input) and not one on
// another stream; the promise's error becomes the gated execution's output error, and the next one
// on the stream still runs. Misuse is refused by name.
TEST_F(PluginTest, StreamsAndControlDependenciesThroughTheExecuteOrderExtension) {
  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
})");
  ASSERT_NE(exe, nullptr);
  PJRT_Buffer* x = Upload({1, 2, 3, 4}, {4});
  auto create = Args<PJRT_Event_Create_Args>();
  ASSERT_EQ(api->PJRT_Event_Create(&create), nullptr);
  PJRT_Event* gate = create.event;
  struct Run {
    PJRT_Buffer* out = nullptr;
    PJRT_Event* done = nullptr;
  };
  // One execution of exe on x with the given options' extension chain.
  auto execute = [&](PJRT_Extension_Base* chain, Run* run) {
    auto o = Args<PJRT_ExecuteOptions>();
    o.extension_start = chain;
    PJRT_Buffer* args[1] = {x};
    PJRT_Buffer* const* arg_lists[1] = {args};
    PJRT_Buffer* outs[2] = {nullptr, nullptr};
    PJRT_Buffer** out_lists[1] = {outs};
    PJRT_Event* events[1] = {nullptr};
    auto a = Args<PJRT_LoadedExecutable_Execute_Args>();
    a.executable = exe;
    a.options = &o;
    a.argument_lists = arg_lists;
    a.num_devices = 1;
    a.num_args = 1;
    a.output_lists = out_lists;
    a.device_complete_events = events;
    PJRT_Error* e = api->PJRT_LoadedExecutable_Execute(&a);
    if (!e) *run = Run{outs[0], events[0]};
    return e;
  };
  auto launch = [&](int64_t stream, std::vector<PJRT_Event*> waits, size_t struct_size, Run* run) {
    OPENPJRT_ExecuteOrder_Extension order{};
    order.base.struct_size = struct_size;
    const int tag = OPENPJRT_Extension_Type_ExecuteOrder;  // outside the enum's range: copied as bytes
    std::memcpy(&order.base.type, &tag, sizeof tag);
    order.stream_id = stream;
    order.wait_events = waits.data();
    order.num_wait_events = waits.size();
    return execute(&order.base, run);
  };
  auto ready = [&](PJRT_Event* ev) {
    auto r = Args<PJRT_Event_IsReady_Args>();
    r.event = ev;
    EXPECT_EQ(api->PJRT_Event_IsReady(&r), nullptr);
    return r.is_ready;
  };
  Run gated, next, other;
  ASSERT_EQ(launch(7, {gate}, OPENPJRT_ExecuteOrder_Extension_STRUCT_SIZE, &gated), nullptr);
  ASSERT_EQ(launch(7, {}, OPENPJRT_ExecuteOrder_Extension_STRUCT_SIZE, &next), nullptr);
  ASSERT_EQ(launch(8, {}, OPENPJRT_ExecuteOrder_Extension_STRUCT_SIZE, &other), nullptr);
  EXPECT_EQ(Message(Await(other.done)), "");
  EXPECT_EQ(Download(other.out), (std::vector<float>{2, 4, 6, 8}));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(ready(gated.done));
  EXPECT_FALSE(ready(next.done)) << "stream 7's second execution ran before the first";
  auto set = Args<PJRT_Event_Set_Args>();
  set.event = gate;
  set.error_code = PJRT_Error_Code_ABORTED;
  const std::string why = "the gate failed";
  set.error_message = why.data();
  set.error_message_size = why.size();
  ASSERT_EQ(api->PJRT_Event_Set(&set), nullptr);
  std::string m = Message(Await(gated.done));
  EXPECT_NE(m.find("the gate failed"), std::string::npos) << m;
  auto rd = Args<PJRT_Buffer_ReadyEvent_Args>();
  rd.buffer = gated.out;
  ASSERT_EQ(api->PJRT_Buffer_ReadyEvent(&rd), nullptr);
  m = Message(Await(rd.event));
  EXPECT_NE(m.find("the gate failed"), std::string::npos) << m;
  EXPECT_EQ(Message(Await(next.done)), "");
  EXPECT_EQ(Download(next.out), (std::vector<float>{2, 4, 6, 8}));
  // Misuse.
  Run unused;
  m = Message(launch(7, {nullptr}, OPENPJRT_ExecuteOrder_Extension_STRUCT_SIZE, &unused));
  EXPECT_NE(m.find("OPENPJRT_ExecuteOrder_Extension.wait_events[0] is null"), std::string::npos) << m;
  m = Message(launch(7, {}, 16, &unused));
  EXPECT_NE(m.find("OPENPJRT_ExecuteOrder_Extension.base.struct_size is 16"), std::string::npos) << m;
  // A chain that never ends (a cycle) is cut off.
  PJRT_Extension_Base loop{};
  loop.struct_size = sizeof(loop);
  loop.next = &loop;
  m = Message(execute(&loop, &unused));
  EXPECT_NE(m.find("a chain of over 64 extensions"), std::string::npos) << m;
  for (PJRT_Buffer* b : {x, gated.out, next.out, other.out}) Destroy(b);
  Destroy(gate);
  Destroy(exe);
}

TEST_F(PluginTest, LayoutsOfBuffersDefaultsAndExecutables) {
  const PJRT_Layouts_Extension* ext = Layouts();
  ASSERT_NE(ext, nullptr);

  PJRT_Buffer* b = Upload({1, 2, 3, 4, 5, 6}, {2, 3});
  auto bl = Args<PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args>();
  bl.buffer = b;
  CAPI_OK(ext->PJRT_Layouts_PJRT_Buffer_MemoryLayout(&bl));
  EXPECT_EQ(Serialize(bl.layout), "{1,0}");  // what PjRtLayout::Serialize writes
  DestroyLayout(bl.layout);
  DestroyLayout(nullptr);  // allowed
  Destroy(b);

  int64_t dims[3] = {4, 5, 6};
  auto dl = Args<PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args>();
  dl.client = client;
  dl.type = PJRT_Buffer_Type_BF16;
  dl.dims = dims;
  dl.num_dims = 3;
  CAPI_OK(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl));
  EXPECT_EQ(Serialize(dl.layout), LayoutText({2, 1, 0}));
  DestroyLayout(dl.layout);
  dl.num_dims = 0;  // a scalar
  CAPI_OK(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl));
  EXPECT_EQ(Serialize(dl.layout), "{}");
  DestroyLayout(dl.layout);

  auto td = Args<PJRT_Client_TopologyDescription_Args>();
  td.client = client;
  CAPI_OK(api->PJRT_Client_TopologyDescription(&td));
  auto tl = Args<PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args>();
  tl.topology_description = td.topology;
  tl.type = PJRT_Buffer_Type_S8;
  tl.dims = dims;
  tl.num_dims = 2;
  CAPI_OK(ext->PJRT_Layouts_PJRT_Topology_GetDefaultLayout(&tl));
  EXPECT_EQ(Serialize(tl.layout), LayoutText({1, 0}));
  DestroyLayout(tl.layout);

  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%x: tensor<2x3xf32> {mhlo.layout_mode = "default"}, %s: tensor<f32>) -> (tensor<3x2xf32>, tensor<f32>) {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t, %s : tensor<3x2xf32>, tensor<f32>
})");
  ASSERT_NE(exe, nullptr);
  auto ge = Args<PJRT_LoadedExecutable_GetExecutable_Args>();
  ge.loaded_executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_GetExecutable(&ge));
  auto ol = Args<PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args>();
  ol.executable = ge.executable;
  CAPI_OK(ext->PJRT_Layouts_PJRT_Executable_GetOutputLayouts(&ol));
  ASSERT_EQ(ol.num_outputs, 2u);
  EXPECT_EQ(Serialize(ol.layouts[0]), LayoutText({1, 0}));
  EXPECT_EQ(Serialize(ol.layouts[1]), "{}");  // a scalar output
  auto pl = Args<PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args>();
  pl.executable = ge.executable;
  CAPI_OK(ext->PJRT_Layouts_PJRT_Executable_GetParameterLayouts(&pl));
  ASSERT_EQ(pl.num_parameters, 2u);
  EXPECT_EQ(Serialize(pl.layouts[0]), LayoutText({1, 0}));
  auto ed = Args<PJRT_Executable_Destroy_Args>();
  ed.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_Destroy(&ed));
  Destroy(exe);
}

TEST_F(PluginTest, LayoutsMisuseGetsClearErrors) {
  const PJRT_Layouts_Extension* ext = Layouts();
  ASSERT_NE(ext, nullptr);
  int64_t dims[2] = {4, -1};
  auto dl = Args<PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args>();
  dl.client = client;
  dl.type = PJRT_Buffer_Type_F32;
  dl.dims = dims;
  dl.num_dims = 2;
  std::string m = Message(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl));
  EXPECT_NE(m.find("dims[1] is -1"), std::string::npos) << m;
  dl.dims = nullptr;
  m = Message(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl));
  EXPECT_NE(m.find("PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args.dims is null"), std::string::npos) << m;
  dl.num_dims = 0;
  dl.type = PJRT_Buffer_Type_INVALID;
  m = Message(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl));
  EXPECT_NE(m.find(".type is 0"), std::string::npos) << m;
  dl.type = static_cast<PJRT_Buffer_Type>(977);
  EXPECT_EQ(Code(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl)), PJRT_Error_Code_INVALID_ARGUMENT);
  dl.type = PJRT_Buffer_Type_F32;
  dl.client = nullptr;
  m = Message(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl));
  EXPECT_NE(m.find("PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args.client is null"), std::string::npos) << m;
  dl.client = client;
  dl.struct_size = 24;
  m = Message(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(&dl));
  EXPECT_NE(m.find("struct_size is 24"), std::string::npos) << m;
  EXPECT_EQ(Code(ext->PJRT_Layouts_PJRT_Client_GetDefaultLayout(nullptr)), PJRT_Error_Code_INVALID_ARGUMENT);

  auto s = Args<PJRT_Layouts_MemoryLayout_Serialize_Args>();
  m = Message(ext->PJRT_Layouts_MemoryLayout_Serialize(&s));
  EXPECT_NE(m.find("PJRT_Layouts_MemoryLayout_Serialize_Args.layout is null"), std::string::npos) << m;
  auto bl = Args<PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args>();
  EXPECT_EQ(Code(ext->PJRT_Layouts_PJRT_Buffer_MemoryLayout(&bl)), PJRT_Error_Code_INVALID_ARGUMENT);
  auto ol = Args<PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args>();
  EXPECT_EQ(Code(ext->PJRT_Layouts_PJRT_Executable_GetOutputLayouts(&ol)), PJRT_Error_Code_INVALID_ARGUMENT);
  auto tl = Args<PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args>();
  tl.type = PJRT_Buffer_Type_F32;
  EXPECT_EQ(Code(ext->PJRT_Layouts_PJRT_Topology_GetDefaultLayout(&tl)), PJRT_Error_Code_INVALID_ARGUMENT);
}

TEST_F(PluginTest, MemoryDescriptionsMatchTheDevicesMemories) {
  const PJRT_MemoryDescriptions_Extension* ext = MemoryDescriptions();
  ASSERT_NE(ext, nullptr);
  // Through a client's device, and through a client-free topology.
  auto gd = Args<PJRT_Device_GetDescription_Args>();
  gd.device = Device(1);
  CAPI_OK(api->PJRT_Device_GetDescription(&gd));
  auto md = Args<PJRT_DeviceDescription_MemoryDescriptions_Args>();
  md.device_description = gd.device_description;
  CAPI_OK(ext->PJRT_DeviceDescription_MemoryDescriptions(&md));
  ASSERT_EQ(md.num_memory_descriptions, 3u);
  ASSERT_LT(md.default_memory_index, md.num_memory_descriptions);

  auto mems = Args<PJRT_Device_AddressableMemories_Args>();
  mems.device = Device(1);
  CAPI_OK(api->PJRT_Device_AddressableMemories(&mems));
  ASSERT_EQ(mems.num_memories, md.num_memory_descriptions);
  for (size_t i = 0; i < md.num_memory_descriptions; ++i) {
    auto k = Args<PJRT_MemoryDescription_Kind_Args>();
    k.memory_description = md.memory_descriptions[i];
    CAPI_OK(ext->PJRT_MemoryDescription_Kind(&k));
    auto mk = Args<PJRT_Memory_Kind_Args>();
    mk.memory = mems.memories[i];
    CAPI_OK(api->PJRT_Memory_Kind(&mk));
    auto mid = Args<PJRT_Memory_Kind_Id_Args>();
    mid.memory = mems.memories[i];
    CAPI_OK(api->PJRT_Memory_Kind_Id(&mid));
    EXPECT_EQ(std::string(k.kind, k.kind_size), std::string(mk.kind, mk.kind_size));
    EXPECT_EQ(k.kind_id, mid.kind_id);
  }
  auto k = Args<PJRT_MemoryDescription_Kind_Args>();
  k.memory_description = md.memory_descriptions[md.default_memory_index];
  CAPI_OK(ext->PJRT_MemoryDescription_Kind(&k));
  EXPECT_EQ(std::string(k.kind, k.kind_size), "device");

  auto tc = Args<PJRT_TopologyDescription_Create_Args>();
  CAPI_OK(api->PJRT_TopologyDescription_Create(&tc));
  auto tdd = Args<PJRT_TopologyDescription_GetDeviceDescriptions_Args>();
  tdd.topology = tc.topology;
  CAPI_OK(api->PJRT_TopologyDescription_GetDeviceDescriptions(&tdd));
  ASSERT_GT(tdd.num_descriptions, 0u);
  md.device_description = tdd.descriptions[0];
  CAPI_OK(ext->PJRT_DeviceDescription_MemoryDescriptions(&md));
  EXPECT_EQ(md.num_memory_descriptions, 3u);
  auto tdel = Args<PJRT_TopologyDescription_Destroy_Args>();
  tdel.topology = tc.topology;
  CAPI_OK(api->PJRT_TopologyDescription_Destroy(&tdel));

  md.device_description = nullptr;
  std::string m = Message(ext->PJRT_DeviceDescription_MemoryDescriptions(&md));
  EXPECT_NE(m.find("PJRT_DeviceDescription_MemoryDescriptions_Args.device_description is null"),
            std::string::npos)
      << m;
  k.memory_description = nullptr;
  EXPECT_EQ(Code(ext->PJRT_MemoryDescription_Kind(&k)), PJRT_Error_Code_INVALID_ARGUMENT);
  k.struct_size = 8;
  m = Message(ext->PJRT_MemoryDescription_Kind(&k));
  EXPECT_NE(m.find("PJRT_MemoryDescription_Kind_Args.struct_size is 8"), std::string::npos) << m;
}

}  // namespace
}  // namespace capi

namespace capi {
namespace {

// A StableHLO portable artifact (MLIR bytecode of VHLO, producer StableHLO_v1.1.0) computing
// x + x on a tensor<f32>, compiled through the plugin's "mlir" format like JAX sends it.
TEST_F(PluginTest, CompilesAPortableArtifact) {
  const char* dir = std::getenv("OPJ_VHLO_TESTDATA");
  if (dir == nullptr) GTEST_SKIP() << "OPJ_VHLO_TESTDATA is not set";
  std::ifstream f(std::string(dir) + "/vhlo_emit_version_api.1_1_0.mlir.bc", std::ios::binary);
  ASSERT_TRUE(f.good());
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.substr(0, 4), std::string("ML\xEFR", 4));
  PJRT_LoadedExecutable* exe = Compile(bytes);
  ASSERT_NE(exe, nullptr);
  PJRT_Buffer* x = Upload({3.5f}, {});
  auto outs = Execute(exe, {{x}}, 1);
  EXPECT_EQ(Download(outs[0][0]), (std::vector<float>{7.0f}));
  Destroy(outs[0][0]);
  Destroy(x);
  Destroy(exe);

  // A corrupt artifact is INVALID_ARGUMENT naming a byte offset.
  std::string cut = bytes.substr(0, bytes.size() / 2);
  PJRT_LoadedExecutable* bad = nullptr;
  PJRT_Error* e = TryCompile(cut, "", &bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_INVALID_ARGUMENT);
  std::string m = Message(e);
  EXPECT_NE(m.find("bytecode offset"), std::string::npos) << m;
}

}  // namespace
}  // namespace capi
