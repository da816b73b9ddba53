// The harness: plugin loading and the helper calls.
#include "tests/capi/capi_fixture.h"

#include <cstdlib>

namespace capi {

const PJRT_Api* Api() {
  static const PJRT_Api* api = [] () -> const PJRT_Api* {
    const char* path = std::getenv("PJRT_PLUGIN");
    if (!path) return nullptr;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
      return nullptr;
    }
    auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(lib, "GetPjrtApi"));
    if (!get) return nullptr;
    const PJRT_Api* api = get();
    auto init = Args<PJRT_Plugin_Initialize_Args>();
    PJRT_Error* e = api->PJRT_Plugin_Initialize(&init);
    if (e) return nullptr;
    return api;
  }();
  return api;
}

std::string Message(PJRT_Error* e) {
  if (!e) return "";
  auto m = Args<PJRT_Error_Message_Args>();
  m.error = e;
  Api()->PJRT_Error_Message(&m);
  std::string s(m.message, m.message_size);
  auto d = Args<PJRT_Error_Destroy_Args>();
  d.error = e;
  Api()->PJRT_Error_Destroy(&d);
  return s;
}

PJRT_Error_Code Code(PJRT_Error* e) {
  if (!e) return PJRT_Error_Code_OK;
  auto g = Args<PJRT_Error_GetCode_Args>();
  g.error = e;
  PJRT_Error* e2 = Api()->PJRT_Error_GetCode(&g);
  EXPECT_EQ(e2, nullptr);
  Message(e);
  return g.code;
}

PJRT_NamedValue IntOption(const char* name, int64_t v) {
  auto nv = Args<PJRT_NamedValue>();
  nv.name = name;
  nv.name_size = std::strlen(name);
  nv.type = PJRT_NamedValue_kInt64;
  nv.int64_value = v;
  nv.value_size = 1;
  return nv;
}

PJRT_NamedValue BoolOption(const char* name, bool v) {
  auto nv = IntOption(name, 0);
  nv.type = PJRT_NamedValue_kBool;
  nv.bool_value = v;
  return nv;
}

void PluginTest::SetUp() {
  api = Api();
  ASSERT_NE(api, nullptr) << "set PJRT_PLUGIN to a loadable plugin";
  client = CreateClient();
  ASSERT_NE(client, nullptr);
}

void PluginTest::TearDown() {
  if (!client) return;
  auto d = Args<PJRT_Client_Destroy_Args>();
  d.client = client;
  EXPECT_EQ(api->PJRT_Client_Destroy(&d), nullptr);
}

PJRT_Client* PluginTest::CreateClient(std::vector<PJRT_NamedValue> options) {
  auto a = Args<PJRT_Client_Create_Args>();
  a.create_options = options.data();
  a.num_options = options.size();
  PJRT_Error* e = api->PJRT_Client_Create(&a);
  EXPECT_EQ(e, nullptr) << Message(e);
  return a.client;
}

PJRT_Error* PluginTest::TryCompile(const std::string& mlir, const std::string& options,
                                   PJRT_LoadedExecutable** out, PJRT_Client* c) {
  auto p = Args<PJRT_Program>();
  p.code = const_cast<char*>(mlir.data());
  p.code_size = mlir.size();
  p.format = "mlir";
  p.format_size = 4;
  auto a = Args<PJRT_Client_Compile_Args>();
  a.client = c ? c : client;
  a.program = &p;
  a.compile_options = options.data();
  a.compile_options_size = options.size();
  PJRT_Error* e = api->PJRT_Client_Compile(&a);
  *out = a.executable;
  return e;
}

PJRT_LoadedExecutable* PluginTest::Compile(const std::string& mlir, PJRT_Client* c,
                                           const std::string& options) {
  PJRT_LoadedExecutable* exe = nullptr;
  PJRT_Error* e = TryCompile(mlir, options, &exe, c);
  EXPECT_EQ(e, nullptr) << Message(e);
  return exe;
}

PJRT_Device* PluginTest::Device(int i, PJRT_Client* c) {
  auto a = Args<PJRT_Client_AddressableDevices_Args>();
  a.client = c ? c : client;
  EXPECT_EQ(api->PJRT_Client_AddressableDevices(&a), nullptr);
  return static_cast<size_t>(i) < a.num_addressable_devices ? a.addressable_devices[i] : nullptr;
}

PJRT_Client_BufferFromHostBuffer_Args PluginTest::HostBufferArgs(const void* data, PJRT_Buffer_Type type,
                                                                 const std::vector<int64_t>& dims,
                                                                 PJRT_HostBufferSemantics semantics, int device,
                                                                 PJRT_Client* c) {
  auto a = Args<PJRT_Client_BufferFromHostBuffer_Args>();
  a.client = c ? c : client;
  a.data = data;
  a.type = type;
  a.dims = dims.data();  // the caller's vector outlives the call
  a.num_dims = dims.size();
  a.host_buffer_semantics = semantics;
  a.device = Device(device, a.client);
  return a;
}

PJRT_Buffer* PluginTest::Upload(const std::vector<float>& v, std::vector<int64_t> dims, int device,
                                PJRT_Client* c) {
  auto a = HostBufferArgs(v.data(), PJRT_Buffer_Type_F32, dims, PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
                          device, c);
  PJRT_Error* e = api->PJRT_Client_BufferFromHostBuffer(&a);
  EXPECT_EQ(e, nullptr) << Message(e);
  if (a.done_with_host_buffer) {
    EXPECT_EQ(Await(a.done_with_host_buffer), nullptr);
  }
  return a.buffer;
}

std::vector<float> PluginTest::Download(PJRT_Buffer* b) {
  auto a = Args<PJRT_Buffer_ToHostBuffer_Args>();
  a.src = b;
  PJRT_Error* e = api->PJRT_Buffer_ToHostBuffer(&a);  // size query
  EXPECT_EQ(e, nullptr) << Message(e);
  if (a.event) Destroy(a.event);
  std::vector<float> out(a.dst_size / sizeof(float));
  a.dst = out.data();
  a.event = nullptr;
  e = api->PJRT_Buffer_ToHostBuffer(&a);
  EXPECT_EQ(e, nullptr) << Message(e);
  if (a.event) {
    PJRT_Error* w = Await(a.event);
    EXPECT_EQ(w, nullptr) << Message(w);
  }
  return out;
}

std::vector<std::vector<PJRT_Buffer*>> PluginTest::Execute(
    PJRT_LoadedExecutable* exe, std::vector<std::vector<PJRT_Buffer*>> args, size_t num_outputs) {
  std::vector<std::vector<PJRT_Buffer*>> outs;
  PJRT_Error* e = TryExecute(exe, std::move(args), num_outputs, &outs);
  EXPECT_EQ(e, nullptr) << Message(e);
  return outs;
}

PJRT_Error* PluginTest::TryExecute(PJRT_LoadedExecutable* exe, std::vector<std::vector<PJRT_Buffer*>> args,
                                   size_t num_outputs, std::vector<std::vector<PJRT_Buffer*>>* outs) {
  // One spare slot per device keeps every output list non-null.
  outs->assign(args.size(), std::vector<PJRT_Buffer*>(num_outputs + 1, nullptr));
  std::vector<PJRT_Buffer* const*> arg_ptrs;
  std::vector<PJRT_Buffer**> out_ptrs;
  for (size_t d = 0; d < args.size(); ++d) {
    arg_ptrs.push_back(args[d].data());
    out_ptrs.push_back((*outs)[d].data());
  }
  auto a = Args<PJRT_LoadedExecutable_Execute_Args>();
  auto o = Args<PJRT_ExecuteOptions>();
  a.executable = exe;
  a.options = &o;
  a.argument_lists = arg_ptrs.data();
  a.num_devices = args.size();
  a.num_args = args.empty() ? 0 : args[0].size();
  a.output_lists = out_ptrs.data();
  PJRT_Error* e = api->PJRT_LoadedExecutable_Execute(&a);
  for (auto& list : *outs) list.resize(num_outputs);
  return e;
}

PJRT_Error* PluginTest::Await(PJRT_Event* ev) {
  auto a = Args<PJRT_Event_Await_Args>();
  a.event = ev;
  PJRT_Error* e = api->PJRT_Event_Await(&a);
  Destroy(ev);
  return e;
}

void PluginTest::Destroy(PJRT_Buffer* b) {
  auto a = Args<PJRT_Buffer_Destroy_Args>();
  a.buffer = b;
  EXPECT_EQ(api->PJRT_Buffer_Destroy(&a), nullptr);
}

void PluginTest::Destroy(PJRT_Event* ev) {
  auto a = Args<PJRT_Event_Destroy_Args>();
  a.event = ev;
  EXPECT_EQ(api->PJRT_Event_Destroy(&a), nullptr);
}

void PluginTest::Destroy(PJRT_LoadedExecutable* exe) {
  auto a = Args<PJRT_LoadedExecutable_Destroy_Args>();
  a.executable = exe;
  EXPECT_EQ(api->PJRT_LoadedExecutable_Destroy(&a), nullptr);
}

}  // namespace capi
