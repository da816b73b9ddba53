// Drives the plugin through the C API as a careless or hostile caller would: each input is a
// sequence of calls chosen by its bytes (uploads of any element type and shape, executions with
// wrong argument counts, shapes and device counts, downloads into short buffers, copies, deletes,
// events set with any code, compile options that are not protobufs, queries), each with a
// struct_size that may be exact, short, zero or long, and null handles where the bytes say so.
// Every call must return (an error or a result) without a crash, a sanitizer report, a leak or a
// hang; everything made is destroyed at the end of the input.
//
// Built two ways: as a libFuzzer target in the fuzzing build (capi_fuzzer), and with
// capi_fuzz_main.cc as a deterministic run of fixed pseudo-random inputs in the sanitizer build
// (ctest capi_fuzz).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "include/openpjrt/c/pjrt_c_api.h"

extern "C" const PJRT_Api* GetPjrtApi();

// Calls that succeeded, by kind (the deterministic driver prints them: a run whose calls all
// fail early explores nothing).
extern "C" long opj_capi_fuzz_ok[8] = {0};

namespace {

const PJRT_Api* api = nullptr;

struct Bytes {
  const uint8_t* p;
  size_t n;
  size_t at = 0;
  bool empty() const { return at >= n; }
  uint8_t Next() { return at < n ? p[at++] : 0; }
  int64_t Small() { return static_cast<int64_t>(Next() % 6); }
};

void Drop(PJRT_Error* e) {
  if (!e) return;
  // Read everything an error offers, then destroy it.
  auto m = PJRT_Error_Message_Args{};
  m.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
  m.error = e;
  api->PJRT_Error_Message(&m);
  auto g = PJRT_Error_GetCode_Args{};
  g.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE;
  g.error = e;
  Drop(api->PJRT_Error_GetCode(&g));
  auto d = PJRT_Error_Destroy_Args{};
  d.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
  d.error = e;
  api->PJRT_Error_Destroy(&d);
}

// The struct size a call is made with: usually right, sometimes short, zero or longer (a newer
// caller; the plugin reads only what it knows).
template <typename T>
size_t SizeFor(Bytes& in, size_t real) {
  switch (in.Next() % 8) {
    case 0: return real > 8 ? real - 8 : 0;
    case 1: return 0;
    default: return real;
  }
}

template <typename T>
T Args(Bytes& in, size_t real) {
  T a;
  std::memset(&a, 0, sizeof(a));
  a.struct_size = SizeFor<T>(in, real);
  return a;
}
#define ARGS(T) Args<T>(in, T##_STRUCT_SIZE)

struct State {
  PJRT_Client* client = nullptr;
  std::vector<PJRT_Device*> devices;
  std::vector<PJRT_LoadedExecutable*> exes;
  std::vector<int> program_of;  // per executable: its index in kPrograms
  std::vector<PJRT_Buffer*> buffers;
  std::vector<PJRT_Event*> events;
  // Host arrays handed to uploads: a zero-copy upload may keep reading one until its buffer
  // is gone, so they live until the input's cleanup has destroyed the client.
  std::vector<std::vector<uint8_t>> host;
};

const char* kPrograms[] = {
    R"(func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %x, %y : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
})",
    R"(func.func @main(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<i32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
  return %x, %s : tensor<4xi32>, tensor<i32>
})",
    R"(module attributes {mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}})",
};

// CompileOptionsProto{executable_build_options{num_replicas: 2}} and some bytes that are not one.
const std::string kOptions[] = {std::string(), std::string("\x1a\x02\x20\x02", 4), std::string("\x1a\x05\x20", 3),
                                std::string("\xff\xff\xff", 3), std::string("\x1a\x02\x28\x09", 4)};

PJRT_Buffer* Pick(State& s, Bytes& in) {
  if (s.buffers.empty() || in.Next() % 16 == 0) return nullptr;
  return s.buffers[in.Next() % s.buffers.size()];
}

void Upload(State& s, Bytes& in) {
  auto a = ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  a.client = in.Next() % 32 ? s.client : nullptr;
  a.type = static_cast<PJRT_Buffer_Type>(in.Next() % 36);
  int64_t dims[4];
  const size_t rank = in.Next() % 5;
  for (size_t i = 0; i < rank && i < 4; ++i) dims[i] = in.Next() % 32 == 0 ? -1 : in.Small();
  a.dims = dims;
  a.num_dims = rank;
  // 16 KiB each side of the start: any shape made above (5^4 complex128 elements), forwards or
  // with the small negative strides below.
  s.host.emplace_back(32768, 0x5a);
  a.data = in.Next() % 32 ? s.host.back().data() + 16384 : nullptr;
  int64_t strides[4];
  if (in.Next() % 4 == 0) {
    for (size_t i = 0; i < 4; ++i) strides[i] = static_cast<int64_t>(in.Next() % 64) - 8;
    a.byte_strides = strides;
    a.num_byte_strides = in.Next() % 2 ? rank : rank + 1;
  }
  a.host_buffer_semantics = static_cast<PJRT_HostBufferSemantics>(in.Next() % 4);
  a.device = s.devices.empty() || in.Next() % 8 == 0 ? nullptr : s.devices[in.Next() % s.devices.size()];
  PJRT_Error* e = api->PJRT_Client_BufferFromHostBuffer(&a);
  Drop(e);
  if (!e && a.buffer) s.buffers.push_back(a.buffer), ++opj_capi_fuzz_ok[0];
  if (!e && a.done_with_host_buffer) s.events.push_back(a.done_with_host_buffer);
}

// An argument of the right shape for `program` on device `d` (uploaded now), or null.
PJRT_Buffer* RightArgument(State& s, int program, size_t d) {
  static const float kData[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int64_t dims[2] = {2, 3};
  auto a = PJRT_Client_BufferFromHostBuffer_Args{};
  a.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  a.client = s.client;
  a.data = kData;
  a.type = program == 1 ? PJRT_Buffer_Type_S32 : PJRT_Buffer_Type_F32;
  if (program == 1) dims[0] = 4;
  if (program == 2) dims[0] = 3;
  a.dims = dims;
  a.num_dims = program == 0 ? 2 : 1;
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  a.device = d < s.devices.size() ? s.devices[d] : nullptr;
  PJRT_Error* e = api->PJRT_Client_BufferFromHostBuffer(&a);
  Drop(e);
  if (e) return nullptr;
  s.buffers.push_back(a.buffer);
  if (a.done_with_host_buffer) s.events.push_back(a.done_with_host_buffer);
  return a.buffer;
}

void Execute(State& s, Bytes& in) {
  if (s.exes.empty()) return;
  auto a = ARGS(PJRT_LoadedExecutable_Execute_Args);
  const size_t which = in.Next() % s.exes.size();
  a.executable = in.Next() % 32 ? s.exes[which] : nullptr;
  // Half the time a well-formed call (the right devices and argument shapes, one argument
  // perhaps swapped for any buffer), else any counts and buffers.
  const bool proper = in.Next() % 2;
  const int program = s.program_of[which];
  const size_t devices = proper ? (program == 2 ? 2 : 1) : in.Next() % 4;
  const size_t args = proper ? (program == 0 ? 2 : 1) : in.Next() % 4;
  std::vector<std::vector<PJRT_Buffer*>> lists(devices, std::vector<PJRT_Buffer*>(args + 1));
  std::vector<PJRT_Buffer* const*> arg_ptrs;
  std::vector<std::vector<PJRT_Buffer*>> outs(devices, std::vector<PJRT_Buffer*>(4, nullptr));
  std::vector<PJRT_Buffer**> out_ptrs;
  for (size_t d = 0; d < devices; ++d) {
    for (size_t i = 0; i < args; ++i) lists[d][i] = proper && in.Next() % 8 ? RightArgument(s, program, d) : Pick(s, in);
    arg_ptrs.push_back(lists[d].data());
    out_ptrs.push_back(outs[d].data());
  }
  auto o = ARGS(PJRT_ExecuteOptions);
  int64_t non_donatable[2] = {0, static_cast<int64_t>(in.Next()) - 128};
  if (in.Next() % 4 == 0) {
    o.non_donatable_input_indices = in.Next() % 8 ? non_donatable : nullptr;
    o.num_non_donatable_input_indices = 2;
  }
  a.options = in.Next() % 16 ? &o : nullptr;
  a.argument_lists = in.Next() % 32 ? arg_ptrs.data() : nullptr;
  a.num_devices = devices;
  a.num_args = args;
  a.output_lists = in.Next() % 32 ? out_ptrs.data() : nullptr;
  std::vector<PJRT_Event*> done(devices, nullptr);
  if (in.Next() % 2) a.device_complete_events = done.data();
  PJRT_Error* e = api->PJRT_LoadedExecutable_Execute(&a);
  Drop(e);
  if (e || !a.output_lists) return;
  ++opj_capi_fuzz_ok[1];
  for (size_t d = 0; d < devices; ++d) {
    for (PJRT_Buffer* b : outs[d])
      if (b) s.buffers.push_back(b);
    if (done[d]) s.events.push_back(done[d]);
  }
}

void Download(State& s, Bytes& in) {
  auto a = ARGS(PJRT_Buffer_ToHostBuffer_Args);
  a.src = Pick(s, in);
  std::vector<uint8_t> dst(static_cast<size_t>(in.Next()) * 4);
  a.dst = in.Next() % 4 ? dst.data() : nullptr;
  a.dst_size = dst.size();
  PJRT_Error* e = api->PJRT_Buffer_ToHostBuffer(&a);
  Drop(e);
  if (!e && a.dst) ++opj_capi_fuzz_ok[2];
  if (!e && a.event) {
    auto w = PJRT_Event_Await_Args{};
    w.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
    w.event = a.event;
    Drop(api->PJRT_Event_Await(&w));  // `dst` dies at the end of this function
    s.events.push_back(a.event);
  }
}

void Query(State& s, Bytes& in) {
  PJRT_Buffer* b = Pick(s, in);
  switch (in.Next() % 9) {
    case 0: {
      auto a = ARGS(PJRT_Buffer_Dimensions_Args);
      a.buffer = b;
      Drop(api->PJRT_Buffer_Dimensions(&a));
      break;
    }
    case 1: {
      auto a = ARGS(PJRT_Buffer_ElementType_Args);
      a.buffer = b;
      Drop(api->PJRT_Buffer_ElementType(&a));
      break;
    }
    case 2: {
      auto a = ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args);
      a.buffer = b;
      Drop(api->PJRT_Buffer_OnDeviceSizeInBytes(&a));
      break;
    }
    case 3: {
      auto a = ARGS(PJRT_Buffer_ReadyEvent_Args);
      a.buffer = b;
      PJRT_Error* e = api->PJRT_Buffer_ReadyEvent(&a);
      Drop(e);
      if (!e && a.event) s.events.push_back(a.event);
      break;
    }
    case 4: {
      auto a = ARGS(PJRT_Buffer_Delete_Args);
      a.buffer = b;
      Drop(api->PJRT_Buffer_Delete(&a));
      break;
    }
    case 5: {
      auto a = ARGS(PJRT_Buffer_CopyToDevice_Args);
      a.buffer = b;
      a.dst_device = s.devices.empty() || in.Next() % 8 == 0 ? nullptr : s.devices[in.Next() % s.devices.size()];
      PJRT_Error* e = api->PJRT_Buffer_CopyToDevice(&a);
      Drop(e);
      if (!e && a.dst_buffer) s.buffers.push_back(a.dst_buffer);
      break;
    }
    case 6: {
      auto a = ARGS(PJRT_Buffer_GetMemoryLayout_Args);
      a.buffer = b;
      Drop(api->PJRT_Buffer_GetMemoryLayout(&a));
      break;
    }
    case 7: {
      auto a = ARGS(PJRT_Buffer_Memory_Args);
      a.buffer = b;
      Drop(api->PJRT_Buffer_Memory(&a));
      break;
    }
    default: {  // a destroyed buffer leaves the table
      if (!b) break;
      for (size_t i = 0; i < s.buffers.size(); ++i)
        if (s.buffers[i] == b) {
          s.buffers.erase(s.buffers.begin() + static_cast<long>(i));
          break;
        }
      auto a = ARGS(PJRT_Buffer_Destroy_Args);
      a.buffer = b;
      PJRT_Error* e = api->PJRT_Buffer_Destroy(&a);
      if (e) {  // refused (the struct was short): destroy it properly so nothing leaks
        Drop(e);
        a.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE;
        Drop(api->PJRT_Buffer_Destroy(&a));
      }
    }
  }
}

void Events(State& s, Bytes& in) {
  auto c = ARGS(PJRT_Event_Create_Args);
  PJRT_Error* e = api->PJRT_Event_Create(&c);
  Drop(e);
  if (e || !c.event) return;
  if (in.Next() % 2) {
    auto set = ARGS(PJRT_Event_Set_Args);
    set.event = c.event;
    set.error_code = static_cast<PJRT_Error_Code>(static_cast<int>(in.Next() % 20) - 2);
    set.error_message = "fuzz";
    set.error_message_size = in.Next() % 5;
    Drop(api->PJRT_Event_Set(&set));
    Drop(api->PJRT_Event_Set(&set));  // the second one is refused
  }
  s.events.push_back(c.event);  // destroyed (and so failed, if unset) at the end
}

void Compile(State& s, Bytes& in) {
  auto p = PJRT_Program{};
  p.struct_size = in.Next() % 8 ? PJRT_Program_STRUCT_SIZE : 4;
  const int program = in.Next() % 3;
  std::string code = kPrograms[program];
  if (in.Next() % 4 == 0) code.resize(in.Next() % code.size());  // truncated text
  p.code = code.data();
  p.code_size = code.size();
  p.format = in.Next() % 8 ? "mlir" : "hlo";
  p.format_size = std::strlen(p.format);
  const std::string& options = kOptions[in.Next() % 5];
  auto a = ARGS(PJRT_Client_Compile_Args);
  a.client = s.client;
  a.program = in.Next() % 32 ? &p : nullptr;
  a.compile_options = options.data();
  a.compile_options_size = options.size();
  PJRT_Error* e = api->PJRT_Client_Compile(&a);
  Drop(e);
  if (!e && a.executable) s.exes.push_back(a.executable), s.program_of.push_back(program), ++opj_capi_fuzz_ok[5];
}

void CreateClient(State& s, Bytes& in) {
  PJRT_NamedValue o[3];
  std::memset(o, 0, sizeof(o));
  const char* names[] = {"cpu_device_count", "asynchronous", "intra_op_threads", "nonsense", "num_nodes",
                         "memory_limit_bytes", "oom_retry_timeout_ms"};
  // Mostly a good client of 2 devices (so that the calls after it run); a quarter of the time
  // options of any name, type and value.
  size_t n = 1;
  o[0].struct_size = PJRT_NamedValue_STRUCT_SIZE;
  o[0].name = names[0];
  o[0].name_size = std::strlen(names[0]);
  o[0].type = PJRT_NamedValue_kInt64;
  o[0].int64_value = 2;
  o[0].value_size = 1;
  if (in.Next() % 4 == 0) n = in.Next() % 4;
  for (size_t i = 0; i < n && n > 1; ++i) {
    o[i].struct_size = in.Next() % 8 ? PJRT_NamedValue_STRUCT_SIZE : 8;
    o[i].name = names[in.Next() % 7];
    o[i].name_size = std::strlen(o[i].name);
    o[i].type = static_cast<PJRT_NamedValue_Type>(in.Next() % 6);
    o[i].int64_value = static_cast<int64_t>(in.Next() % 4);
    o[i].bool_value = false;  // executions run on the caller's thread
    o[i].value_size = 1;
  }
  auto a = ARGS(PJRT_Client_Create_Args);
  a.create_options = o;
  a.num_options = n;
  PJRT_Error* e = api->PJRT_Client_Create(&a);
  Drop(e);
  if (e || !a.client) return;
  ++opj_capi_fuzz_ok[6];
  s.client = a.client;
  auto d = PJRT_Client_AddressableDevices_Args{};
  d.struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE;
  d.client = s.client;
  Drop(api->PJRT_Client_AddressableDevices(&d));
  s.devices.assign(d.addressable_devices, d.addressable_devices + d.num_addressable_devices);
}

void Cleanup(State& s) {
  for (PJRT_Event* ev : s.events) {
    auto d = PJRT_Event_Destroy_Args{};
    d.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
    d.event = ev;
    Drop(api->PJRT_Event_Destroy(&d));
  }
  for (PJRT_Buffer* b : s.buffers) {
    auto d = PJRT_Buffer_Destroy_Args{};
    d.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE;
    d.buffer = b;
    Drop(api->PJRT_Buffer_Destroy(&d));
  }
  for (PJRT_LoadedExecutable* x : s.exes) {
    auto d = PJRT_LoadedExecutable_Destroy_Args{};
    d.struct_size = PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE;
    d.executable = x;
    Drop(api->PJRT_LoadedExecutable_Destroy(&d));
  }
  if (s.client) {
    auto d = PJRT_Client_Destroy_Args{};
    d.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE;
    d.client = s.client;
    Drop(api->PJRT_Client_Destroy(&d));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!api) {
    api = GetPjrtApi();
    auto init = PJRT_Plugin_Initialize_Args{};
    init.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE;
    Drop(api->PJRT_Plugin_Initialize(&init));
  }
  Bytes in{data, size};
  State s;
  CreateClient(s, in);
  if (!s.client) return 0;
  for (int step = 0; step < 64 && !in.empty(); ++step) {
    switch (in.Next() % 7) {
      case 0: Upload(s, in); break;
      case 1: Execute(s, in); break;
      case 2: Download(s, in); break;
      case 3: Query(s, in); break;
      case 4: Events(s, in); break;
      case 5: Compile(s, in); break;
      default: Upload(s, in); break;
    }
  }
  Cleanup(s);
  return 0;
}
