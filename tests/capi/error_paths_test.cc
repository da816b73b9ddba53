// Error paths a client meets in the field: malformed compile options and device assignments,
// per-device memory limits, host layouts the plugin cannot serve, and portable-execution misuse.
// Each must come back as a PJRT_Error with the right code and a message that names the problem.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/capi/capi_fixture.h"

namespace capi {
namespace {

constexpr char kIdentity[] = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
})";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// CompileOptionsProto{executable_build_options (3){num_replicas (4): 1,
//   device_assignment (9): DeviceAssignmentProto{<da>}}}
std::string WithDeviceAssignment(const std::string& da) {
  std::string build = std::string("\x20\x01\x4a", 3) + static_cast<char>(da.size()) + da;
  return std::string("\x1a", 1) + static_cast<char>(build.size()) + build;
}

TEST_F(PluginTest, MalformedCompileOptionsAndDeviceAssignments) {
  PJRT_LoadedExecutable* exe = nullptr;
  // Field 3 claims 5 bytes but the message ends after 1.
  std::string m = Message(TryCompile(kIdentity, std::string("\x1a\x05\x20", 3), &exe));
  EXPECT_TRUE(Contains(m, "runs past the end")) << m;
  EXPECT_EQ(exe, nullptr);

  // A varint that never ends.
  EXPECT_EQ(Code(TryCompile(kIdentity, std::string("\x08\xff\xff", 3), &exe)),
            PJRT_Error_Code_INVALID_ARGUMENT);

  // replica_count 1, computation_count 1, computation_devices [{replica_device_ids: [9]}]:
  // the client has devices 0..3.
  const std::string names_device_9("\x08\x01\x10\x01\x1a\x03\x0a\x01\x09", 9);
  m = Message(TryCompile(kIdentity, WithDeviceAssignment(names_device_9), &exe));
  EXPECT_TRUE(Contains(m, "device 9")) << m;

  // replica_count 2 but one replica listed.
  const std::string short_list("\x08\x02\x10\x01\x1a\x03\x0a\x01\x00", 9);
  m = Message(TryCompile(kIdentity, WithDeviceAssignment(short_list), &exe));
  EXPECT_TRUE(Contains(m, "declares 2 replicas but lists 1")) << m;

  // A valid assignment onto device 2 is honoured.
  const std::string on_device_2("\x08\x01\x10\x01\x1a\x03\x0a\x01\x02", 9);
  PJRT_Error* e = TryCompile(kIdentity, WithDeviceAssignment(on_device_2), &exe);
  ASSERT_EQ(e, nullptr) << Message(e);
  auto ad = Args<PJRT_LoadedExecutable_AddressableDevices_Args>();
  ad.executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_AddressableDevices(&ad));
  ASSERT_EQ(ad.num_addressable_devices, 1u);
  EXPECT_EQ(ad.addressable_devices[0], Device(2));
  Destroy(exe);
}

TEST_F(PluginTest, MemoryLimitIsEnforcedOnUploadsAndOutputs) {
  PJRT_Client* small = CreateClient({IntOption("memory_limit_bytes", 64)});
  ASSERT_NE(small, nullptr);
  PJRT_Buffer* b = Upload({1, 2, 3, 4}, {4}, 0, small);  // 16 of 64 bytes
  ASSERT_NE(b, nullptr);

  std::vector<float> big(16, 1.0f);  // 64 more bytes: over the limit
  int64_t dims[1] = {16};
  auto a = Args<PJRT_Client_BufferFromHostBuffer_Args>();
  a.client = small;
  a.data = big.data();
  a.type = PJRT_Buffer_Type_F32;
  a.dims = dims;
  a.num_dims = 1;
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  PJRT_Error* e = api->PJRT_Client_BufferFromHostBuffer(&a);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_RESOURCE_EXHAUSTED);
  std::string m = Message(e);
  EXPECT_TRUE(Contains(m, "64-byte memory limit")) << m;

  // An execution whose outputs can never fit is refused by Execute (its preparation), at once.
  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<16x4xf32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
})", small);
  ASSERT_NE(exe, nullptr);
  std::vector<std::vector<PJRT_Buffer*>> outs;
  e = TryExecute(exe, {{b}}, 1, &outs);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_RESOURCE_EXHAUSTED);
  m = Message(e);
  EXPECT_TRUE(Contains(m, "the outputs need 256 bytes; the 64-byte limit can never hold them")) << m;
  Destroy(exe);
  Destroy(b);
  auto cd = Args<PJRT_Client_Destroy_Args>();
  cd.client = small;
  CAPI_OK(api->PJRT_Client_Destroy(&cd));
}

// OOM retry: an execution whose outputs do not fit yet waits for memory to be freed (here by
// other threads deleting their results) instead of failing; one that still does not fit after
// oom_retry_timeout_ms fails with RESOURCE_EXHAUSTED and leaves its arguments usable.
TEST_F(PluginTest, ExecutionsWaitForMemoryUnderALimit) {
  // Room for the argument (64 bytes) and three 64-byte results.
  PJRT_Client* small = CreateClient({IntOption("memory_limit_bytes", 256), IntOption("oom_retry_timeout_ms", 5000)});
  ASSERT_NE(small, nullptr);
  PJRT_Buffer* x = Upload(std::vector<float>(16, 1.0f), {16}, 0, small);
  ASSERT_NE(x, nullptr);
  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = stablehlo.add %x, %x : tensor<16xf32>
  return %0 : tensor<16xf32>
})", small);
  ASSERT_NE(exe, nullptr);
  // 8 threads x 20 executions, each holding its result for a moment: 160 results through room
  // for 3 at a time.
  std::atomic<int> ok{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        std::vector<std::vector<PJRT_Buffer*>> outs;
        PJRT_Error* err = TryExecute(exe, {{x}}, 1, &outs);
        if (err) {
          ++failed;
          ADD_FAILURE() << Message(err);
          continue;
        }
        std::vector<float> host = Download(outs[0][0]);
        if (host.size() == 16 && host[3] == 2.0f) ++ok;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        Destroy(outs[0][0]);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 160);
  EXPECT_EQ(failed.load(), 0);
  Destroy(exe);
  Destroy(x);
  auto cd = Args<PJRT_Client_Destroy_Args>();
  cd.client = small;
  CAPI_OK(api->PJRT_Client_Destroy(&cd));

  // Nothing frees memory: the wait times out, the argument is still there, and once a result is
  // deleted the same execution goes through.
  small = CreateClient({IntOption("memory_limit_bytes", 192), IntOption("oom_retry_timeout_ms", 50)});
  ASSERT_NE(small, nullptr);
  x = Upload(std::vector<float>(16, 1.0f), {16}, 0, small);
  exe = Compile(R"(
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = stablehlo.add %x, %x : tensor<16xf32>
  return %0 : tensor<16xf32>
})", small);
  ASSERT_NE(exe, nullptr);
  auto first = Execute(exe, {{x}}, 1);
  auto second = Execute(exe, {{x}}, 1);  // 192 of 192 bytes in use
  std::vector<std::vector<PJRT_Buffer*>> outs;
  const auto t0 = std::chrono::steady_clock::now();
  PJRT_Error* err = TryExecute(exe, {{x}}, 1, &outs);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->vtable->get_code(err), PJRT_Error_Code_RESOURCE_EXHAUSTED);
  std::string m = Message(err);
  EXPECT_TRUE(Contains(m, "the outputs need 64 bytes; 192 of the 192-byte limit are in use")) << m;
  EXPECT_TRUE(Contains(m, "(oom_retry_timeout_ms)")) << m;
  EXPECT_GE(ms, 45.0);
  EXPECT_LT(ms, 5000.0);
  Destroy(first[0][0]);
  auto third = Execute(exe, {{x}}, 1);
  EXPECT_EQ(Download(third[0][0]), std::vector<float>(16, 2.0f));
  Destroy(third[0][0]);
  Destroy(second[0][0]);
  Destroy(exe);
  Destroy(x);
  cd.client = small;
  CAPI_OK(api->PJRT_Client_Destroy(&cd));
}

TEST_F(PluginTest, NegativeStridesAndTiledLayouts) {
  // Uploading a reversed view (negative byte stride, data at the first logical element) works.
  std::vector<float> host = {1, 2, 3, 4};
  int64_t dims[1] = {4};
  int64_t strides[1] = {-4};
  auto a = Args<PJRT_Client_BufferFromHostBuffer_Args>();
  a.client = client;
  a.data = host.data() + 3;
  a.type = PJRT_Buffer_Type_F32;
  a.dims = dims;
  a.num_dims = 1;
  a.byte_strides = strides;
  a.num_byte_strides = 1;
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  CAPI_OK(api->PJRT_Client_BufferFromHostBuffer(&a));
  if (a.done_with_host_buffer) Destroy(a.done_with_host_buffer);
  EXPECT_EQ(Download(a.buffer), (std::vector<float>{4, 3, 2, 1}));

  // Downloading into a negative-stride host layout is not offered: UNIMPLEMENTED by name.
  std::vector<float> out(4);
  auto layout = Args<PJRT_Buffer_MemoryLayout>();
  layout.type = PJRT_Buffer_MemoryLayout_Type_Strides;
  layout.strides.struct_size = PJRT_Buffer_MemoryLayout_Strides_STRUCT_SIZE;
  layout.strides.byte_strides = strides;
  layout.strides.num_byte_strides = 1;
  auto th = Args<PJRT_Buffer_ToHostBuffer_Args>();
  th.src = a.buffer;
  th.host_layout = &layout;
  th.dst = out.data();
  th.dst_size = 16;
  PJRT_Error* e = api->PJRT_Buffer_ToHostBuffer(&th);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_UNIMPLEMENTED);
  std::string m = Message(e);
  EXPECT_TRUE(Contains(m, "negative host strides")) << m;

  // Tiles in a host layout: UNIMPLEMENTED naming the feature; a wrong rank: INVALID_ARGUMENT.
  int64_t m2m[1] = {0};
  int64_t tile_dims[1] = {2};
  size_t tile_sizes[1] = {1};
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
  layout.tiled.minor_to_major = m2m;
  layout.tiled.minor_to_major_size = 1;
  layout.tiled.tile_dims = tile_dims;
  layout.tiled.tile_dim_sizes = tile_sizes;
  layout.tiled.num_tiles = 1;
  e = api->PJRT_Buffer_ToHostBuffer(&th);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_UNIMPLEMENTED);
  m = Message(e);
  EXPECT_TRUE(Contains(m, "tiles")) << m;
  layout.tiled.num_tiles = 0;
  layout.tiled.minor_to_major_size = 2;
  m = Message(api->PJRT_Buffer_ToHostBuffer(&th));
  EXPECT_TRUE(Contains(m, "minor_to_major has 2 entries for rank 1")) << m;
  layout.type = static_cast<PJRT_Buffer_MemoryLayout_Type>(7);
  m = Message(api->PJRT_Buffer_ToHostBuffer(&th));
  EXPECT_TRUE(Contains(m, "host_layout.type is 7")) << m;
  Destroy(a.buffer);
}

TEST_F(PluginTest, ExecuteDeviceNeedsAPortableOrSingleDeviceExecutable) {
  // Four replicas, not portable: execute_device is a misuse.
  PJRT_LoadedExecutable* exe = Compile(kIdentity, nullptr, std::string("\x1a\x02\x20\x04", 4));
  ASSERT_NE(exe, nullptr);
  PJRT_Buffer* b = Upload({1, 2, 3, 4}, {4}, 1);
  std::vector<PJRT_Buffer*> args = {b};
  PJRT_Buffer* const* lists[1] = {args.data()};
  PJRT_Buffer* outs[1] = {nullptr};
  PJRT_Buffer** out_lists[1] = {outs};
  auto opts = Args<PJRT_ExecuteOptions>();
  auto x = Args<PJRT_LoadedExecutable_Execute_Args>();
  x.executable = exe;
  x.options = &opts;
  x.argument_lists = lists;
  x.num_devices = 1;
  x.num_args = 1;
  x.output_lists = out_lists;
  x.execute_device = Device(1);
  std::string m = Message(api->PJRT_LoadedExecutable_Execute(&x));
  EXPECT_TRUE(Contains(m, "execute_device is set, but the executable runs on 4 devices")) << m;
  Destroy(exe);

  // Portable (CompileOptionsProto.compile_portable_executable = true): runs where it is told.
  exe = Compile(kIdentity, nullptr, std::string("\x20\x01", 2));
  ASSERT_NE(exe, nullptr);
  x.executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_Execute(&x));
  auto bd = Args<PJRT_Buffer_Device_Args>();
  bd.buffer = outs[0];
  CAPI_OK(api->PJRT_Buffer_Device(&bd));
  EXPECT_EQ(bd.device, Device(1));
  EXPECT_EQ(Download(outs[0]), (std::vector<float>{1, 2, 3, 4}));
  Destroy(outs[0]);
  Destroy(exe);
  Destroy(b);
}

}  // namespace
}  // namespace capi

namespace capi {
namespace {

constexpr char kSendRecv[] = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = stablehlo.create_token : !stablehlo.token
  %t1 = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %r:2 = "stablehlo.recv"(%t1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  return %r#0 : tensor<4xf32>
})";

// The host side of the test: records what was sent, answers the recv with twice those values,
// in chunks of `chunk_floats` (0: destroy the stream without sending anything).
struct Host {
  const PJRT_Api* api;
  std::vector<float> sent;
  size_t total = 0;
  int chunk_floats = 4;
  std::string add_error;
};

PJRT_Error* OnSend(PJRT_Chunk* chunk, PJRT_CallbackError* error, size_t total, bool done, void* arg) {
  auto* h = static_cast<Host*>(arg);
  const float* f = static_cast<const float*>(chunk->data);
  h->sent.assign(f, f + chunk->size / sizeof(float));
  h->total = total;
  chunk->deleter(chunk->data, chunk->deleter_arg);  // the chunk is ours
  if (!done) return (*error)(PJRT_Error_Code_INTERNAL, "expected one chunk", 18);
  return nullptr;
}

void OnRecv(PJRT_CopyToDeviceStream* stream, void* arg) {
  auto* h = static_cast<Host*>(arg);
  auto tb = Args<PJRT_CopyToDeviceStream_TotalBytes_Args>();
  tb.stream = stream;
  PJRT_Error* e = h->api->PJRT_CopyToDeviceStream_TotalBytes(&tb);
  if (e) h->add_error = Message(e);
  for (size_t at = 0; h->chunk_floats > 0 && at < h->sent.size(); at += h->chunk_floats) {
    size_t n = std::min<size_t>(h->chunk_floats, h->sent.size() - at);
    auto* data = static_cast<float*>(std::malloc(n * sizeof(float)));
    for (size_t i = 0; i < n; ++i) data[i] = 2 * h->sent[at + i];
    PJRT_Chunk chunk{data, n * sizeof(float), [](void* d, void*) { std::free(d); }, nullptr};
    auto ac = Args<PJRT_CopyToDeviceStream_AddChunk_Args>();
    ac.stream = stream;
    ac.chunk = &chunk;
    e = h->api->PJRT_CopyToDeviceStream_AddChunk(&ac);
    if (e) h->add_error = Message(e);
    if (ac.transfer_complete) {
      auto ed = Args<PJRT_Event_Destroy_Args>();
      ed.event = ac.transfer_complete;
      h->api->PJRT_Event_Destroy(&ed);
    }
  }
  if (h->chunk_floats > 0 && tb.total_bytes != static_cast<int64_t>(h->sent.size() * sizeof(float)))
    h->add_error = "wrong total_bytes";
  auto d = Args<PJRT_CopyToDeviceStream_Destroy_Args>();
  d.stream = stream;
  if ((e = h->api->PJRT_CopyToDeviceStream_Destroy(&d))) h->add_error = Message(e);
}

// Executes kSendRecv with callbacks for `host` (or none); returns the output buffer's error text
// ("" when it succeeded) and stores its values in *values.
std::string RunSendRecv(PluginTest* t, const PJRT_Api* api, PJRT_LoadedExecutable* exe, PJRT_Buffer* x,
                        Host* host, std::vector<float>* values) {
  PJRT_SendCallbackInfo send{1, host, &OnSend};
  PJRT_RecvCallbackInfo recv{2, host, &OnRecv};
  PJRT_SendCallbackInfo* sends[1] = {&send};
  PJRT_RecvCallbackInfo* recvs[1] = {&recv};
  auto opts = Args<PJRT_ExecuteOptions>();
  if (host) {
    opts.send_callbacks = sends;
    opts.recv_callbacks = recvs;
    opts.num_send_ops = 1;
    opts.num_recv_ops = 1;
  }
  PJRT_Buffer* const* lists[1] = {&x};
  PJRT_Buffer* out = nullptr;
  PJRT_Buffer** out_lists[1] = {&out};
  auto a = Args<PJRT_LoadedExecutable_Execute_Args>();
  a.executable = exe;
  a.options = &opts;
  a.argument_lists = lists;
  a.num_devices = 1;
  a.num_args = 1;
  a.output_lists = out_lists;
  if (PJRT_Error* e = api->PJRT_LoadedExecutable_Execute(&a)) return "execute: " + Message(e);
  auto re = Args<PJRT_Buffer_ReadyEvent_Args>();
  re.buffer = out;
  PJRT_Error* e = api->PJRT_Buffer_ReadyEvent(&re);
  std::string err = e ? Message(e) : Message(t->Await(re.event));
  if (err.empty()) *values = t->Download(out);
  auto bd = Args<PJRT_Buffer_Destroy_Args>();
  bd.buffer = out;
  api->PJRT_Buffer_Destroy(&bd);
  return err;
}

TEST_F(PluginTest, HostSendAndRecvCallbacksAndStreams) {
  PJRT_LoadedExecutable* exe = Compile(kSendRecv);
  ASSERT_NE(exe, nullptr);
  PJRT_Buffer* x = Upload({1, 2, 3, 4}, {4});
  std::vector<float> values;

  Host whole{api};
  EXPECT_EQ(RunSendRecv(this, api, exe, x, &whole, &values), "");
  EXPECT_EQ(whole.sent, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(whole.total, 16u);
  EXPECT_EQ(whole.add_error, "");
  EXPECT_EQ(values, (std::vector<float>{2, 4, 6, 8}));

  Host pieces{api};  // the host answers in three chunks
  pieces.chunk_floats = 3;
  EXPECT_EQ(RunSendRecv(this, api, exe, x, &pieces, &values), "");
  EXPECT_EQ(values, (std::vector<float>{2, 4, 6, 8}));

  Host quits{api};  // the host destroys the stream without data: the execution fails, no hang
  quits.chunk_floats = 0;
  std::string m = RunSendRecv(this, api, exe, x, &quits, &values);
  EXPECT_NE(m.find("destroyed the stream after 0 of 16 bytes"), std::string::npos) << m;

  // Without callbacks the program fails with a message naming the channel and the option.
  m = RunSendRecv(this, api, exe, x, nullptr, &values);
  EXPECT_NE(m.find("channel 1"), std::string::npos) << m;
  EXPECT_NE(m.find("send_callbacks"), std::string::npos) << m;

  // Stream slots reject misuse by name.
  auto ac = Args<PJRT_CopyToDeviceStream_AddChunk_Args>();
  m = Message(api->PJRT_CopyToDeviceStream_AddChunk(&ac));
  EXPECT_NE(m.find("PJRT_CopyToDeviceStream_AddChunk_Args.stream is null"), std::string::npos) << m;
  auto d = Args<PJRT_CopyToDeviceStream_Destroy_Args>();
  EXPECT_EQ(api->PJRT_CopyToDeviceStream_Destroy(&d), nullptr);  // null stream: nothing to do
  Destroy(x);
  Destroy(exe);
}

}  // namespace
}  // namespace capi

namespace capi {
namespace {

// Arguments of every integer width and bool keep their types through compile and execute.
TEST_F(PluginTest, IntegerAndBoolArgumentsKeepTheirTypes) {
  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%a: tensor<3xi32>, %b: tensor<2xui8>, %c: tensor<2xi1>) -> (tensor<3xi32>, tensor<2xui8>, tensor<2xi1>) {
  %0 = stablehlo.add %a, %a : tensor<3xi32>
  %1 = stablehlo.not %c : tensor<2xi1>
  return %0, %b, %1 : tensor<3xi32>, tensor<2xui8>, tensor<2xi1>
})");
  ASSERT_NE(exe, nullptr);
  int32_t a[3] = {1, -2, 3};
  uint8_t b[2] = {7, 250};
  bool c[2] = {true, false};
  auto up = [&](const void* data, PJRT_Buffer_Type t, int64_t n) {
    auto u = Args<PJRT_Client_BufferFromHostBuffer_Args>();
    u.client = client;
    u.data = data;
    u.type = t;
    u.dims = &n;
    u.num_dims = 1;
    u.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    PJRT_Error* e = api->PJRT_Client_BufferFromHostBuffer(&u);
    EXPECT_EQ(e, nullptr) << Message(e);
    if (u.done_with_host_buffer) Destroy(u.done_with_host_buffer);
    return u.buffer;
  };
  PJRT_Buffer* ba = up(a, PJRT_Buffer_Type_S32, 3);
  PJRT_Buffer* bb = up(b, PJRT_Buffer_Type_U8, 2);
  PJRT_Buffer* bc = up(c, PJRT_Buffer_Type_PRED, 2);
  auto outs = Execute(exe, {{ba, bb, bc}}, 3);
  PJRT_Buffer_Type want[3] = {PJRT_Buffer_Type_S32, PJRT_Buffer_Type_U8, PJRT_Buffer_Type_PRED};
  for (int i = 0; i < 3; ++i) {
    auto et = Args<PJRT_Buffer_ElementType_Args>();
    et.buffer = outs[0][i];
    CAPI_OK(api->PJRT_Buffer_ElementType(&et));
    EXPECT_EQ(et.type, want[i]) << "output " << i;
  }
  int32_t got[3] = {0, 0, 0};
  auto th = Args<PJRT_Buffer_ToHostBuffer_Args>();
  th.src = outs[0][0];
  th.dst = got;
  th.dst_size = sizeof got;
  CAPI_OK(api->PJRT_Buffer_ToHostBuffer(&th));
  EXPECT_EQ(Await(th.event), nullptr);
  EXPECT_EQ(got[1], -4);
  for (auto* b : outs[0]) Destroy(b);
  Destroy(ba);
  Destroy(bb);
  Destroy(bc);
  Destroy(exe);
}

}  // namespace
}  // namespace capi

namespace capi {
namespace {

// Small programs whose arguments are defined run at once on the caller's thread; that path must
// keep the rules of the general one: errors go into the outputs, donation consumes the argument,
// a failed argument fails the outputs, check failures are the outputs' error.
TEST_F(PluginTest, ImmediateExecutionsKeepErrorAndDonationRules) {
  PJRT_Buffer* x = Upload({1, 2, 3, 4}, {4});
  ASSERT_NE(x, nullptr);
  auto ready_error = [&](PJRT_Buffer* b) {
    auto re = Args<PJRT_Buffer_ReadyEvent_Args>();
    re.buffer = b;
    PJRT_Error* e = api->PJRT_Buffer_ReadyEvent(&re);
    return e ? e : Await(re.event);
  };

  // A failing check: the output carries FAILED_PRECONDITION with the check's location.
  PJRT_LoadedExecutable* checked = Compile(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  check.expect_eq_const %y, dense<0.0> : tensor<4xf32>
  return %y : tensor<4xf32>
})");
  ASSERT_NE(checked, nullptr);
  auto outs = Execute(checked, {{x}}, 1);
  PJRT_Error* e = ready_error(outs[0][0]);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_FAILED_PRECONDITION);
  std::string m = Message(e);
  EXPECT_TRUE(Contains(m, "check failed: <program>:4:3")) << m;

  // That failed output as an argument: the next execution's outputs fail with the same error.
  PJRT_LoadedExecutable* twice = Compile(R"(
func.func @main(%x: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<4xf32> {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
})");
  ASSERT_NE(twice, nullptr);
  auto chained = Execute(twice, {{outs[0][0]}}, 1);
  e = ready_error(chained[0][0]);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_FAILED_PRECONDITION);
  m = Message(e);  // also destroys the error
  EXPECT_TRUE(Contains(m, "check failed")) << m;
  Destroy(chained[0][0]);
  Destroy(outs[0][0]);

  // Donation: the argument reads as deleted afterwards and the result is right.
  auto donated = Execute(twice, {{x}}, 1);
  EXPECT_EQ(Download(donated[0][0]), (std::vector<float>{2, 4, 6, 8}));
  auto isd = Args<PJRT_Buffer_IsDeleted_Args>();
  isd.buffer = x;
  CAPI_OK(api->PJRT_Buffer_IsDeleted(&isd));
  EXPECT_TRUE(isd.is_deleted);
  // Executing with the donated buffer again is refused by name.
  std::vector<std::vector<PJRT_Buffer*>> none;
  e = TryExecute(twice, {{x}}, 1, &none);
  ASSERT_NE(e, nullptr);
  m = Message(e);
  EXPECT_TRUE(Contains(m, "was deleted or donated")) << m;
  Destroy(donated[0][0]);
  Destroy(x);
  Destroy(checked);
  Destroy(twice);
}

}  // namespace
}  // namespace capi

namespace capi {
namespace {

// An entry point with dynamic argument types compiles; each execution specialises it for its
// arguments' shapes. The executable reports -1 for the sizes it does not know, and arguments
// that contradict a static dimension are refused by name.
TEST_F(PluginTest, DynamicEntryPointsAreSpecialisedAtExecute) {
  PJRT_LoadedExecutable* exe = Compile(R"(
func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
  %f = stablehlo.convert %n : (tensor<i32>) -> tensor<f32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %shape = stablehlo.concatenate %n1, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %f, %shape, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x2xf32>
  %y = stablehlo.add %x, %b : tensor<?x2xf32>
  return %y : tensor<?x2xf32>
})");
  ASSERT_NE(exe, nullptr);
  auto ge = Args<PJRT_LoadedExecutable_GetExecutable_Args>();
  ge.loaded_executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_GetExecutable(&ge));
  auto od = Args<PJRT_Executable_OutputDimensions_Args>();
  od.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_OutputDimensions(&od));
  ASSERT_EQ(od.num_outputs, 1u);
  ASSERT_EQ(od.dim_sizes[0], 2u);
  EXPECT_EQ(od.dims[0], -1);
  EXPECT_EQ(od.dims[1], 2);
  auto ms = Args<PJRT_Executable_GetCompiledMemoryStats_Args>();
  ms.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_GetCompiledMemoryStats(&ms));
  auto ed = Args<PJRT_Executable_Destroy_Args>();
  ed.executable = ge.executable;
  CAPI_OK(api->PJRT_Executable_Destroy(&ed));

  // Three rows: x + 3; two rows: x + 2; three rows again (the cached specialisation).
  for (int rows : {3, 2, 3}) {
    std::vector<float> x(static_cast<size_t>(rows * 2));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    PJRT_Buffer* in = Upload(x, {rows, 2});
    auto outs = Execute(exe, {{in}}, 1);
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] + static_cast<float>(rows);
    EXPECT_EQ(Download(outs[0][0]), want) << rows << " rows";
    auto dims = Args<PJRT_Buffer_Dimensions_Args>();
    dims.buffer = outs[0][0];
    CAPI_OK(api->PJRT_Buffer_Dimensions(&dims));
    ASSERT_EQ(dims.num_dims, 2u);
    EXPECT_EQ(dims.dims[0], rows);
    Destroy(outs[0][0]);
    Destroy(in);
  }

  // A 2x3 argument contradicts the static dimension 2.
  PJRT_Buffer* bad = Upload({0, 1, 2, 3, 4, 5}, {2, 3});
  std::vector<std::vector<PJRT_Buffer*>> none;
  PJRT_Error* e = TryExecute(exe, {{bad}}, 1, &none);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->vtable->get_code(e), PJRT_Error_Code_INVALID_ARGUMENT);
  std::string m = Message(e);
  EXPECT_TRUE(Contains(m, "argument #0 is tensor<2x3xf32>, @main expects tensor<-1x2xf32>")) << m;
  Destroy(bad);
  Destroy(exe);
}

}  // namespace
}  // namespace capi
