// Errors (with their function table), events, and the shared helpers of plugin.h.
#include <cstring>

#include "absl/strings/cord.h"

#include "src/plugin/plugin.h"
#include "src/plugin/slots.h"
#include "src/support/str.h"

namespace openpjrt::plugin {
namespace {

void TableDestroy(PJRT_Error* e) { delete Impl(e); }
void TableMessage(const PJRT_Error* e, const char** msg, size_t* size) {
  *msg = Impl(e)->message.data();
  *size = Impl(e)->message.size();
}
PJRT_Error_Code TableGetCode(const PJRT_Error* e) {
  return static_cast<PJRT_Error_Code>(static_cast<int>(Impl(e)->status.code()));
}
void TableForEachPayload(const PJRT_Error* e, PJRT_Error_PayloadVisitor visitor, void* user_arg) {
  if (!visitor) return;
  for (const auto& [k, v] : Impl(e)->payloads) visitor(k.data(), k.size(), v.data(), v.size(), user_arg);
}

const PJRT_Error_FunctionTable kErrorTable = {
    PJRT_Error_FunctionTable_STRUCT_SIZE, sizeof(ErrorImpl), nullptr, TableDestroy,
    TableMessage, TableGetCode, TableForEachPayload};

}  // namespace

PJRT_Error* MakeError(const absl::Status& status) {
  if (status.ok()) return nullptr;
  auto* e = new ErrorImpl;
  e->vtable = &kErrorTable;
  e->status = status;
  e->message = std::string(status.message());
  status.ForEachPayload([e](auto key, const auto& value) {
    e->payloads.emplace_back(std::string(key.data(), key.size()), std::string(value));
  });
  return e;
}

PJRT_Error* InvalidArgument(const std::string& message) {
  return MakeError(absl::InvalidArgumentError(message));
}

PJRT_Error* Unimplemented(const char* slot) {
  return MakeError(absl::UnimplementedError(StrCat(slot, " is not supported by the openpjrt CPU plugin (unimplemented)")));
}

PJRT_Error* CheckArgs(const void* args, size_t min_size, size_t full_size, const char* type_name) {
  if (args == nullptr) return InvalidArgument(StrCat(type_name, ": the args pointer is null"));
  size_t got = *static_cast<const size_t*>(args);
  if (got < min_size)
    return InvalidArgument(StrCat(type_name, ".struct_size is ", got, ", expected at least ", min_size,
                                  " (", type_name, "_STRUCT_SIZE is ", full_size, " in PJRT C API ",
                                  PJRT_API_MAJOR, ".", PJRT_API_MINOR, ")"));
  return nullptr;
}

PJRT_Event* WrapEvent(runtime::EventRef e) {
  // Every ready buffer and finished inline execution has the same complete event; its handle is
  // shared too (no allocation per Execute or block_until_ready). Destroy skips it.
  static PJRT_Event* const ready_ok = new PJRT_Event{runtime::Event::Ready(), true};
  if (e == ready_ok->event) return ready_ok;
  return new PJRT_Event{std::move(e)};
}

}  // namespace openpjrt::plugin

using namespace openpjrt;
using plugin::InvalidArgument;
using plugin::MakeError;

void OPJ_Error_Destroy(PJRT_Error_Destroy_Args* args) {
  if (!args || args->struct_size < PJRT_STRUCT_SIZE(PJRT_Error_Destroy_Args, error)) return;
  delete Impl(args->error);
}

void OPJ_Error_Message(PJRT_Error_Message_Args* args) {
  if (!args || args->struct_size < PJRT_Error_Message_Args_STRUCT_SIZE) return;
  if (!args->error) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  args->message = Impl(args->error)->message.data();
  args->message_size = Impl(args->error)->message.size();
}

PJRT_Error* OPJ_Error_GetCode(PJRT_Error_GetCode_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Error_GetCode_Args, args);
  OPJ_REQUIRE(PJRT_Error_GetCode_Args, args, error);
  args->code = static_cast<PJRT_Error_Code>(static_cast<int>(Impl(args->error)->status.code()));
  return nullptr;
}

PJRT_Error* OPJ_Error_ForEachPayload(PJRT_Error_ForEachPayload_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Error_ForEachPayload_Args, args);
  OPJ_REQUIRE(PJRT_Error_ForEachPayload_Args, args, error);
  if (args->visitor)
    for (const auto& [k, v] : Impl(args->error)->payloads)
      args->visitor(k.data(), k.size(), v.data(), v.size(), args->user_arg);
  return nullptr;
}

PJRT_Error* OPJ_Event_Destroy(PJRT_Event_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Event_Destroy_Args, args);
  if (args->event && args->event->promise)
    // Nobody can set it any more: whoever waits on it learns that now instead of never.
    args->event->event->Set(absl::DataLossError(
        "the PJRT_Event_Create event was destroyed before PJRT_Event_Set: what it stood for never arrived"));
  if (args->event && !args->event->shared) delete args->event;
  return nullptr;
}

PJRT_Error* OPJ_Event_IsReady(PJRT_Event_IsReady_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Event_IsReady_Args, args);
  OPJ_REQUIRE(PJRT_Event_IsReady_Args, args, event);
  args->is_ready = args->event->event->IsReady();
  return nullptr;
}

PJRT_Error* OPJ_Event_Error(PJRT_Event_Error_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Event_Error_Args, args);
  OPJ_REQUIRE(PJRT_Event_Error_Args, args, event);
  if (!args->event->event->IsReady())
    return MakeError(absl::FailedPreconditionError("PJRT_Event_Error: the event is not ready yet"));
  return MakeError(args->event->event->status());
}

PJRT_Error* OPJ_Event_Await(PJRT_Event_Await_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Event_Await_Args, args);
  OPJ_REQUIRE(PJRT_Event_Await_Args, args, event);
  return MakeError(args->event->event->Await());
}

PJRT_Error* OPJ_Event_OnReady(PJRT_Event_OnReady_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Event_OnReady_Args, args);
  OPJ_REQUIRE(PJRT_Event_OnReady_Args, args, event);
  OPJ_REQUIRE(PJRT_Event_OnReady_Args, args, callback);
  PJRT_Event_OnReadyCallback cb = args->callback;
  void* user = args->user_arg;
  // The callback holds the event (not the handle), so it survives PJRT_Event_Destroy.
  args->event->event->OnReady([cb, user](const absl::Status& s) { cb(MakeError(s), user); });
  return nullptr;
}

PJRT_Error* OPJ_Event_Create(PJRT_Event_Create_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Event_Create_Args, args);
  args->event = plugin::WrapEvent(runtime::Event::Create());
  args->event->promise = true;
  return nullptr;
}

PJRT_Error* OPJ_Event_Set(PJRT_Event_Set_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Event_Set_Args, args);
  OPJ_REQUIRE(PJRT_Event_Set_Args, args, event);
  absl::Status s;
  const int code = plugin::RawEnum(args->error_code);
  if (code != PJRT_Error_Code_OK) {
    bool valid = false;
    const absl::StatusCode c = plugin::StatusCodeOf(code, &valid);
    if (!valid)
      return InvalidArgument(StrCat("PJRT_Event_Set_Args.error_code is ", code, ", not a PJRT_Error_Code"));
    std::string msg = args->error_message ? std::string(args->error_message, args->error_message_size) : "";
    s = absl::Status(c, msg);
  }
  if (!args->event->event->Set(s))
    return MakeError(absl::FailedPreconditionError("PJRT_Event_Set: the event is already set"));
  return nullptr;
}
