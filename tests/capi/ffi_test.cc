// The PJRT FFI extension: XLA FFI handlers (include/openpjrt/c/xla_ffi_api.h) registered for
// custom_call targets are called with their operand and result buffers and the call's attributes;
// their errors fail the execution; misuse of the extension gets clear errors.
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "include/openpjrt/c/pjrt_c_api_ffi_extension.h"
#include "include/openpjrt/c/xla_ffi_api.h"
#include "tests/capi/capi_fixture.h"

namespace capi {
namespace {

const PJRT_FFI_Extension* Ffi() {
  for (const PJRT_Extension_Base* e = Api()->extension_start; e != nullptr; e = e->next)
    if (e->type == PJRT_Extension_Type_FFI) return reinterpret_cast<const PJRT_FFI_Extension*>(e);
  return nullptr;
}

// What the handler saw on its last call.
struct Seen {
  int stage = -1;
  double alpha = 0;
  std::string tag;
  int64_t taps[2] = {0, 0};
  bool stream_is_null = false;
  int probes = 0;
} seen;

XLA_FFI_Error* Fail(const XLA_FFI_Api* api, const char* message) {
  XLA_FFI_Error_Create_Args a{};
  a.struct_size = sizeof(a);
  a.message = message;
  a.errc = XLA_FFI_Error_Code_INVALID_ARGUMENT;
  return api->XLA_FFI_Error_Create(&a);
}

// Answers XLA's registration probe; true when this call was one.
bool Probe(XLA_FFI_CallFrame* f) {
  for (XLA_FFI_Extension_Base* e = f->extension_start; e != nullptr; e = e->next) {
    if (e->type != XLA_FFI_Extension_Metadata) continue;
    auto* md = reinterpret_cast<XLA_FFI_Metadata_Extension*>(e)->metadata;
    md->api_version.major_version = XLA_FFI_API_MAJOR;
    md->api_version.minor_version = XLA_FFI_API_MINOR;
    ++seen.probes;
    return true;
  }
  return false;
}

// y = alpha * (x + s), with attributes alpha (f64), tag (string) and taps (i64 array).
XLA_FFI_Error* ScaledAdd(XLA_FFI_CallFrame* f) {
  if (Probe(f)) return nullptr;
  seen.stage = f->stage;
  if (f->args.size != 2 || f->rets.size != 1) return Fail(f->api, "want 2 operands and 1 result");
  auto* x = static_cast<XLA_FFI_Buffer*>(f->args.args[0]);
  auto* s = static_cast<XLA_FFI_Buffer*>(f->args.args[1]);
  auto* y = static_cast<XLA_FFI_Buffer*>(f->rets.rets[0]);
  if (x->dtype != XLA_FFI_DataType_F32 || y->dtype != XLA_FFI_DataType_F32 || x->rank != 1)
    return Fail(f->api, "want f32 vectors");
  for (int64_t i = 0; i < f->attrs.size; ++i) {
    std::string_view name(f->attrs.names[i]->ptr, f->attrs.names[i]->len);
    if (name == "alpha" && f->attrs.types[i] == XLA_FFI_AttrType_SCALAR) {
      auto* sc = static_cast<XLA_FFI_Scalar*>(f->attrs.attrs[i]);
      if (sc->dtype != XLA_FFI_DataType_F64) return Fail(f->api, "alpha is not f64");
      seen.alpha = *static_cast<double*>(sc->value);
    } else if (name == "tag" && f->attrs.types[i] == XLA_FFI_AttrType_STRING) {
      auto* span = static_cast<XLA_FFI_ByteSpan*>(f->attrs.attrs[i]);
      seen.tag.assign(span->ptr, span->len);
    } else if (name == "taps" && f->attrs.types[i] == XLA_FFI_AttrType_ARRAY) {
      auto* arr = static_cast<XLA_FFI_Array*>(f->attrs.attrs[i]);
      if (arr->dtype != XLA_FFI_DataType_S64 || arr->size != 2) return Fail(f->api, "taps is not i64[2]");
      std::memcpy(seen.taps, arr->data, sizeof(seen.taps));
    }
  }
  XLA_FFI_Stream_Get_Args sg{};
  sg.struct_size = sizeof(sg);
  sg.ctx = f->ctx;
  sg.stream = &sg;  // must be overwritten
  if (XLA_FFI_Error* e = f->api->XLA_FFI_Stream_Get(&sg)) return e;
  seen.stream_is_null = sg.stream == nullptr;
  const float* px = static_cast<const float*>(x->data);
  const float* ps = static_cast<const float*>(s->data);
  float* py = static_cast<float*>(y->data);
  for (int64_t i = 0; i < x->dims[0]; ++i) py[i] = static_cast<float>(seen.alpha * (px[i] + ps[i]));
  return nullptr;
}

XLA_FFI_Error* Boom(XLA_FFI_CallFrame* f) {
  if (Probe(f)) return nullptr;
  return Fail(f->api, "deliberate failure in the handler");
}

int64_t offset_type_id = 0;

// y = x + *offset, the offset read from the execution's context (PJRT_FFI_UserData_Add).
XLA_FFI_Error* AddOffset(XLA_FFI_CallFrame* f) {
  if (Probe(f)) return nullptr;
  XLA_FFI_TypeId type{offset_type_id};
  XLA_FFI_ExecutionContext_Get_Args g{};
  g.struct_size = sizeof(g);
  g.ctx = f->ctx;
  g.type_id = &type;
  if (XLA_FFI_Error* e = f->api->XLA_FFI_ExecutionContext_Get(&g)) return e;
  const float offset = *static_cast<const float*>(g.data);
  auto* x = static_cast<XLA_FFI_Buffer*>(f->args.args[0]);
  auto* y = static_cast<XLA_FFI_Buffer*>(f->rets.rets[0]);
  for (int64_t i = 0; i < x->dims[0]; ++i)
    static_cast<float*>(y->data)[i] = static_cast<const float*>(x->data)[i] + offset;
  return nullptr;
}

PJRT_Error* Register(const char* name, void* handler, const char* platform = "cpu") {
  PJRT_FFI_Register_Handler_Args a{};
  a.struct_size = PJRT_FFI_Register_Handler_Args_STRUCT_SIZE;
  a.target_name = name;
  a.target_name_size = std::strlen(name);
  a.handler = handler;
  a.platform_name = platform;
  a.platform_name_size = std::strlen(platform);
  return Ffi()->register_handler(&a);
}

std::string Program(const char* target) {
  return std::string(R"(
func.func @main(%x: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @)") + target + R"((%x, %s) {api_version = 4 : i32, backend_config = {alpha = 1.5 : f64, tag = "gelu", taps = array<i64: 3, 5>}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
)";
}

TEST_F(PluginTest, FfiHandlersRunCustomCalls) {
  ASSERT_NE(Ffi(), nullptr) << "the FFI extension is on the chain";
  EXPECT_EQ(Ffi()->base.struct_size, PJRT_FFI_Extension_STRUCT_SIZE);
  CAPI_OK(Register("opj_test_scaled_add", reinterpret_cast<void*>(&ScaledAdd)));
  EXPECT_GE(seen.probes, 1) << "registration asks the handler for its API version";
  CAPI_OK(Register("opj_test_scaled_add", reinterpret_cast<void*>(&ScaledAdd), "Host"));  // same handler again

  PJRT_LoadedExecutable* exe = Compile(Program("opj_test_scaled_add"));
  ASSERT_NE(exe, nullptr);
  std::vector<PJRT_Buffer*> inputs = {Upload({1, 2, 3, 4}, {4}), Upload({0.5f, 0.5f, 0.5f, 0.5f}, {4})};
  auto outs = Execute(exe, {inputs}, 1);
  EXPECT_EQ(Download(outs[0][0]), (std::vector<float>{2.25f, 3.75f, 5.25f, 6.75f}));
  EXPECT_EQ(seen.stage, XLA_FFI_ExecutionStage_EXECUTE);
  EXPECT_EQ(seen.alpha, 1.5);
  EXPECT_EQ(seen.tag, "gelu");
  EXPECT_EQ(seen.taps[0], 3);
  EXPECT_EQ(seen.taps[1], 5);
  EXPECT_TRUE(seen.stream_is_null);
  Destroy(outs[0][0]);
  for (PJRT_Buffer* b : inputs) Destroy(b);
  Destroy(exe);
}

TEST_F(PluginTest, FfiHandlerErrorsFailTheExecution) {
  ASSERT_NE(Ffi(), nullptr);
  CAPI_OK(Register("opj_test_boom", reinterpret_cast<void*>(&Boom)));
  PJRT_LoadedExecutable* exe = Compile(Program("opj_test_boom"));
  ASSERT_NE(exe, nullptr);
  std::vector<PJRT_Buffer*> inputs = {Upload({1, 2, 3, 4}, {4}), Upload({1, 2, 3, 4}, {4})};
  auto outs = Execute(exe, {inputs}, 1);
  auto r = Args<PJRT_Buffer_ReadyEvent_Args>();
  r.buffer = outs[0][0];
  CAPI_OK(api->PJRT_Buffer_ReadyEvent(&r));
  PJRT_Error* e = Await(r.event);
  ASSERT_NE(e, nullptr);
  {
    const std::string m = Message(e);
    EXPECT_NE(m.find("deliberate failure in the handler"), std::string::npos) << m;
  }
  Destroy(outs[0][0]);
  for (PJRT_Buffer* b : inputs) Destroy(b);
  Destroy(exe);
}

TEST_F(PluginTest, FfiHandlersReadTheExecuteContext) {
  ASSERT_NE(Ffi(), nullptr);
  auto t = Args<PJRT_FFI_Type_Register_Args>();
  t.type_name = "opj_test_offset";
  t.type_name_size = std::strlen(t.type_name);
  CAPI_OK(Ffi()->type_register(&t));
  offset_type_id = t.type_id;
  CAPI_OK(Register("opj_test_add_offset", reinterpret_cast<void*>(&AddOffset)));
  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @opj_test_add_offset(%x) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
)");
  ASSERT_NE(exe, nullptr);
  static float offset = 10.0f;
  auto c = Args<PJRT_ExecuteContext_Create_Args>();
  CAPI_OK(api->PJRT_ExecuteContext_Create(&c));
  auto u = Args<PJRT_FFI_UserData_Add_Args>();
  u.context = c.context;
  u.user_data = {offset_type_id, &offset};
  CAPI_OK(Ffi()->user_data_add(&u));
  for (bool with_context : {true, false}) {
    PJRT_Buffer* x = Upload({1, 2, 3}, {3});
    PJRT_Buffer* out = nullptr;
    PJRT_Buffer* const* arg_list = &x;
    PJRT_Buffer** out_list = &out;
    auto o = Args<PJRT_ExecuteOptions>();
    o.context = with_context ? c.context : nullptr;
    auto a = Args<PJRT_LoadedExecutable_Execute_Args>();
    a.executable = exe;
    a.options = &o;
    a.argument_lists = &arg_list;
    a.num_devices = 1;
    a.num_args = 1;
    a.output_lists = &out_list;
    CAPI_OK(api->PJRT_LoadedExecutable_Execute(&a));
    if (with_context) {
      EXPECT_EQ(Download(out), (std::vector<float>{11, 12, 13}));
    } else {
      auto r = Args<PJRT_Buffer_ReadyEvent_Args>();
      r.buffer = out;
      CAPI_OK(api->PJRT_Buffer_ReadyEvent(&r));
      PJRT_Error* e = Await(r.event);
      ASSERT_NE(e, nullptr);
      {
    const std::string m = Message(e);
    EXPECT_NE(m.find("no user data of type id"), std::string::npos) << m;
  }
    }
    Destroy(out);
    Destroy(x);
  }
  auto cd = Args<PJRT_ExecuteContext_Destroy_Args>();
  cd.context = c.context;
  CAPI_OK(api->PJRT_ExecuteContext_Destroy(&cd));
  Destroy(exe);
}

TEST_F(PluginTest, FfiMisuseGetsClearErrors) {
  ASSERT_NE(Ffi(), nullptr);
  // A target nobody registered fails to compile, saying so.
  PJRT_LoadedExecutable* exe = nullptr;
  PJRT_Error* e = TryCompile(Program("opj_test_never_registered"), "", &exe);
  ASSERT_NE(e, nullptr);
  {
    const std::string m = Message(e);
    EXPECT_NE(m.find("No FFI handler registered for 'opj_test_never_registered'"), std::string::npos) << m;
  }
  // Another handler under a taken name.
  CAPI_OK(Register("opj_test_taken", reinterpret_cast<void*>(&ScaledAdd)));
  e = Register("opj_test_taken", reinterpret_cast<void*>(&Boom));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(Code(e), PJRT_Error_Code_ALREADY_EXISTS);
  // Another platform, the untyped ABI, a null handler, a short struct.
  e = Register("opj_test_gpu", reinterpret_cast<void*>(&ScaledAdd), "cuda");
  ASSERT_NE(e, nullptr);
  {
    const std::string m = Message(e);
    EXPECT_NE(m.find("platform_name 'cuda'"), std::string::npos) << m;
  }
  e = Register("opj_test_null", nullptr);
  ASSERT_NE(e, nullptr);
  {
    const std::string m = Message(e);
    EXPECT_NE(m.find("PJRT_FFI_Register_Handler_Args.handler is null"), std::string::npos) << m;
  }
  PJRT_FFI_Register_Handler_Args short_args{};
  short_args.struct_size = 8;
  e = Ffi()->register_handler(&short_args);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(Code(e), PJRT_Error_Code_INVALID_ARGUMENT);

  // Type ids: 0 asks for one; a different id for the same name is refused. The type's info
  // carries the deleter of its user data; its reserved members must be null.
  static int deleted = 0;
  PJRT_FFI_Type_Info info{};
  info.deleter = [](void* p) { ++*static_cast<int*>(p); };
  auto t = Args<PJRT_FFI_Type_Register_Args>();
  t.type_name = "opj_test_type";
  t.type_name_size = std::strlen(t.type_name);
  t.type_info = &info;
  CAPI_OK(Ffi()->type_register(&t));
  EXPECT_GT(t.type_id, 0);
  const int64_t id = t.type_id;
  t.type_id = 0;
  CAPI_OK(Ffi()->type_register(&t));
  EXPECT_EQ(t.type_id, id);
  t.type_id = id + 100;
  e = Ffi()->type_register(&t);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(Code(e), PJRT_Error_Code_INVALID_ARGUMENT);
  PJRT_FFI_Type_Info reserved{};
  reserved.serialize = [] {};
  t.type_id = 0;
  t.type_info = &reserved;
  e = Ffi()->type_register(&t);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(Message(e).find("PJRT_FFI_Type_Register_Args.type_info"), std::string::npos);

  // User data belongs to the context and is deleted with it, once per type.
  auto c = Args<PJRT_ExecuteContext_Create_Args>();
  CAPI_OK(api->PJRT_ExecuteContext_Create(&c));
  auto u = Args<PJRT_FFI_UserData_Add_Args>();
  u.context = c.context;
  u.user_data = {id, &deleted};
  CAPI_OK(Ffi()->user_data_add(&u));
  e = Ffi()->user_data_add(&u);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(Code(e), PJRT_Error_Code_ALREADY_EXISTS);
  auto cd = Args<PJRT_ExecuteContext_Destroy_Args>();
  cd.context = c.context;
  CAPI_OK(api->PJRT_ExecuteContext_Destroy(&cd));
  EXPECT_EQ(deleted, 1);
}

}  // namespace
}  // namespace capi
