// The exported entry point: GetPjrtApi returns one static, fully populated PJRT_Api. Every slot
// is wrapped so that no C++ exception ever crosses the ABI.
#include "src/plugin/slots.h"

namespace {

using openpjrt::plugin::Guarded;
using openpjrt::plugin::GuardedVoid;

#define OPJ_STUB_0(Name)                                         \
  PJRT_Error* Stub_##Name(PJRT_##Name##_Args*) {                 \
    return openpjrt::plugin::Unimplemented("PJRT_" #Name);      \
  }
#define OPJ_STUB_1(Name)
#define OPJ_STUB_2(Name)
#define OPJ_STUB(Name, state) OPJ_STUB_##state(Name)
OPJ_SLOTS(OPJ_STUB)

#define OPJ_FN_0(Name) &Guarded<PJRT_##Name##_Args, Stub_##Name>
#define OPJ_FN_1(Name) &Guarded<PJRT_##Name##_Args, OPJ_##Name>
#define OPJ_FN_2(Name) &GuardedVoid<PJRT_##Name##_Args, OPJ_##Name>
#define OPJ_ENTRY(Name, state) api.PJRT_##Name = OPJ_FN_##state(Name);

PJRT_Api MakeApi() {
  PJRT_Api api{};
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.extension_start = openpjrt::plugin::FirstExtension();
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
  OPJ_SLOTS(OPJ_ENTRY)
  return api;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
  static const PJRT_Api api = MakeApi();
  return &api;
}
