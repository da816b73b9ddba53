/* Loads a PJRT plugin with dlopen, compiles a StableHLO program, runs it on two inputs and prints
 * the result. Usage: hello_pjrt [PLUGIN.so]  (default: pjrt_c_api_cpu_plugin.so beside the
 * working directory's build/lib). Written in plain C against include/openpjrt/c/pjrt_c_api.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/openpjrt/c/pjrt_c_api.h"

static const PJRT_Api* api;

/* Prints and frees an error; returns 1 if there was one. */
static int failed(PJRT_Error* err, const char* what) {
  if (!err) return 0;
  PJRT_Error_Message_Args m = {PJRT_Error_Message_Args_STRUCT_SIZE, NULL, err, NULL, 0};
  api->PJRT_Error_Message(&m);
  fprintf(stderr, "%s failed: %.*s\n", what, (int)m.message_size, m.message);
  PJRT_Error_Destroy_Args d = {PJRT_Error_Destroy_Args_STRUCT_SIZE, NULL, err};
  api->PJRT_Error_Destroy(&d);
  return 1;
}

static const char kProgram[] =
    "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.multiply %x, %y : tensor<4xf32>\n"
    "  %1 = stablehlo.add %0, %x : tensor<4xf32>\n"
    "  return %1 : tensor<4xf32>\n"
    "}\n";

static PJRT_Buffer* upload(PJRT_Client* client, PJRT_Device* device, const float* data) {
  int64_t dims[1] = {4};
  PJRT_Client_BufferFromHostBuffer_Args a;
  memset(&a, 0, sizeof(a));
  a.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  a.client = client;
  a.data = data;
  a.type = PJRT_Buffer_Type_F32;
  a.dims = dims;
  a.num_dims = 1;
  a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  a.device = device;
  if (failed(api->PJRT_Client_BufferFromHostBuffer(&a), "BufferFromHostBuffer")) exit(1);
  PJRT_Event_Destroy_Args e = {PJRT_Event_Destroy_Args_STRUCT_SIZE, NULL, a.done_with_host_buffer};
  api->PJRT_Event_Destroy(&e);
  return a.buffer;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "build/lib/pjrt_c_api_cpu_plugin.so";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return 1;
  }
  const PJRT_Api* (*get_api)(void) = (const PJRT_Api* (*)(void))dlsym(lib, "GetPjrtApi");
  if (!get_api) {
    fprintf(stderr, "%s does not export GetPjrtApi\n", path);
    return 1;
  }
  api = get_api();
  printf("plugin %s: PJRT C API %d.%d\n", path, api->pjrt_api_version.major_version,
         api->pjrt_api_version.minor_version);
  PJRT_Plugin_Initialize_Args init = {PJRT_Plugin_Initialize_Args_STRUCT_SIZE, NULL};
  if (failed(api->PJRT_Plugin_Initialize(&init), "Plugin_Initialize")) return 1;

  PJRT_Client_Create_Args cc;
  memset(&cc, 0, sizeof(cc));
  cc.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  if (failed(api->PJRT_Client_Create(&cc), "Client_Create")) return 1;
  PJRT_Client_AddressableDevices_Args ad = {PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, NULL,
                                            cc.client, NULL, 0};
  if (failed(api->PJRT_Client_AddressableDevices(&ad), "AddressableDevices")) return 1;
  printf("%zu devices\n", ad.num_addressable_devices);

  PJRT_Program program = {PJRT_Program_STRUCT_SIZE, NULL, (char*)kProgram, sizeof(kProgram) - 1,
                          "mlir", 4};
  PJRT_Client_Compile_Args comp = {PJRT_Client_Compile_Args_STRUCT_SIZE, NULL, cc.client, &program,
                                   NULL, 0, NULL};
  if (failed(api->PJRT_Client_Compile(&comp), "Client_Compile")) return 1;

  const float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  PJRT_Buffer* args[2] = {upload(cc.client, ad.addressable_devices[0], x),
                          upload(cc.client, ad.addressable_devices[0], y)};
  PJRT_Buffer* const* arg_lists[1] = {args};
  PJRT_Buffer* outs[1] = {NULL};
  PJRT_Buffer** out_lists[1] = {outs};
  PJRT_Event* done[1] = {NULL};
  PJRT_LoadedExecutable_Execute_Args ex;
  memset(&ex, 0, sizeof(ex));
  ex.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
  ex.executable = comp.executable;
  ex.argument_lists = arg_lists;
  ex.num_devices = 1;
  ex.num_args = 2;
  ex.output_lists = out_lists;
  ex.device_complete_events = done;
  if (failed(api->PJRT_LoadedExecutable_Execute(&ex), "Execute")) return 1;

  float result[4];
  PJRT_Buffer_ToHostBuffer_Args th;
  memset(&th, 0, sizeof(th));
  th.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  th.src = outs[0];
  th.dst = result;
  th.dst_size = sizeof(result);
  if (failed(api->PJRT_Buffer_ToHostBuffer(&th), "ToHostBuffer")) return 1;
  PJRT_Event_Await_Args aw = {PJRT_Event_Await_Args_STRUCT_SIZE, NULL, th.event};
  if (failed(api->PJRT_Event_Await(&aw), "Await")) return 1;
  printf("x * y + x = [%g, %g, %g, %g]\n", result[0], result[1], result[2], result[3]);

  PJRT_Event_Destroy_Args ed = {PJRT_Event_Destroy_Args_STRUCT_SIZE, NULL, th.event};
  api->PJRT_Event_Destroy(&ed);
  ed.event = done[0];
  api->PJRT_Event_Destroy(&ed);
  for (int i = 0; i < 3; ++i) {
    PJRT_Buffer_Destroy_Args bd = {PJRT_Buffer_Destroy_Args_STRUCT_SIZE, NULL, i < 2 ? args[i] : outs[0]};
    api->PJRT_Buffer_Destroy(&bd);
  }
  PJRT_LoadedExecutable_Destroy_Args led = {PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, NULL,
                                            comp.executable};
  api->PJRT_LoadedExecutable_Destroy(&led);
  PJRT_Client_Destroy_Args cd = {PJRT_Client_Destroy_Args_STRUCT_SIZE, NULL, cc.client};
  api->PJRT_Client_Destroy(&cd);
  return result[3] == 164.0f ? 0 : 1;
}
