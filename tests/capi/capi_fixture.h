// A harness for conformance tests that know only the C header: it dlopens the plugin named by
// $PJRT_PLUGIN (or argv), and offers small helpers that fail the test on any error.
#pragma once

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "include/openpjrt/c/pjrt_c_api.h"

namespace capi {

const PJRT_Api* Api();  // loaded once per process

// Takes ownership of `e`: its message ("" for null), then destroys it.
std::string Message(PJRT_Error* e);
PJRT_Error_Code Code(PJRT_Error* e);  // reads and destroys

template <typename T>
T Args() {
  T a;
  std::memset(&a, 0, sizeof(a));
  a.struct_size = sizeof(T) < 8 ? 0 : sizeof(T);
  return a;
}

#define CAPI_OK(call)                                 \
  do {                                                \
    PJRT_Error* _e = (call);                          \
    ASSERT_EQ(_e, nullptr) << capi::Message(_e);      \
  } while (0)

class PluginTest : public ::testing::Test {
 public:  // helpers are used by free functions of the tests too
  void SetUp() override;
  void TearDown() override;

  PJRT_Client* CreateClient(std::vector<PJRT_NamedValue> options = {});
  PJRT_LoadedExecutable* Compile(const std::string& mlir, PJRT_Client* client = nullptr,
                                 const std::string& options = "");
  // The raw call: the error (or null) and the executable in *out.
  PJRT_Error* TryCompile(const std::string& mlir, const std::string& options,
                         PJRT_LoadedExecutable** out, PJRT_Client* client = nullptr);
  PJRT_Buffer* Upload(const std::vector<float>& v, std::vector<int64_t> dims, int device = 0,
                      PJRT_Client* client = nullptr);
  // PJRT_Client_BufferFromHostBuffer's arguments for a dense host array on device `device`.
  PJRT_Client_BufferFromHostBuffer_Args HostBufferArgs(const void* data, PJRT_Buffer_Type type,
                                                       const std::vector<int64_t>& dims,
                                                       PJRT_HostBufferSemantics semantics, int device = 0,
                                                       PJRT_Client* client = nullptr);
  std::vector<float> Download(PJRT_Buffer* b);
  // Executes on every device of `exe` with the given per-device arguments; returns outputs.
  std::vector<std::vector<PJRT_Buffer*>> Execute(PJRT_LoadedExecutable* exe,
                                                 std::vector<std::vector<PJRT_Buffer*>> args,
                                                 size_t num_outputs);
  // The raw call: the error (or null); outputs, when it succeeds, in *outs.
  PJRT_Error* TryExecute(PJRT_LoadedExecutable* exe, std::vector<std::vector<PJRT_Buffer*>> args,
                         size_t num_outputs, std::vector<std::vector<PJRT_Buffer*>>* outs);
  PJRT_Device* Device(int i, PJRT_Client* client = nullptr);
  void Destroy(PJRT_Buffer* b);
  void Destroy(PJRT_Event* e);
  void Destroy(PJRT_LoadedExecutable* e);
  PJRT_Error* Await(PJRT_Event* e);  // awaits and destroys the event

  const PJRT_Api* api = nullptr;
  PJRT_Client* client = nullptr;
};

PJRT_NamedValue IntOption(const char* name, int64_t v);
PJRT_NamedValue BoolOption(const char* name, bool v);

}  // namespace capi
