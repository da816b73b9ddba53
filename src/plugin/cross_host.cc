// The CrossHostTransfers extension: buffers sent to and received from devices of other processes
// of a distributed client (runtime::Client::SendToRemote / ReceiveFromRemote, over Gloo).
#include <cstring>
#include <span>

#include "include/openpjrt/c/pjrt_c_api_cross_host_transfers_extension.h"
#include "src/plugin/slots.h"
#include "src/support/str.h"

using namespace openpjrt;
using plugin::InvalidArgument;
using plugin::MakeError;
using plugin::RawEnum;

namespace openpjrt::plugin {
absl::StatusOr<runtime::BufferShape> MakeShape(int type, const int64_t* dims, size_t num_dims,
                                               const std::string& where);
}

namespace {

// Version 8's snapshot of live processes: read only to check it is well formed (the coordinator
// learns of dead peers from PJRT_Client_UpdateGlobalProcessInfo and from the transport itself).
template <typename Args>
PJRT_Error* CheckTasks(const Args* args, const char* type) {
  if (!plugin::Covers(args, PJRT_STRUCT_SIZE(Args, incarnation_ids)) || args->num_tasks == 0) return nullptr;
  if (!args->task_ids || !args->incarnation_ids)
    return InvalidArgument(StrCat(type, ".num_tasks is ", args->num_tasks, " but task_ids or incarnation_ids is null"));
  return nullptr;
}

PJRT_Error* SendBuffers(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, args, send_events);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, args, client);
  if (PJRT_Error* e = CheckTasks(args, "PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args")) return e;
  if (args->num_buffers == 0) return nullptr;
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, args, buffers);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, args, dst_global_device_ids);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, args, transfer_keys);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, args, send_events);
  for (size_t i = 0; i < args->num_buffers; ++i)
    if (!args->buffers[i])
      return InvalidArgument(StrCat("PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args.buffers[", i, "] is null"));
  // Everything is checked before anything is sent: a refused call starts no transfer.
  std::vector<runtime::EventRef> events;
  for (size_t i = 0; i < args->num_buffers; ++i) {
    absl::StatusOr<runtime::EventRef> sent = args->client->client->SendToRemote(
        args->buffers[i]->buffer, args->dst_global_device_ids[i],
        static_cast<uint64_t>(args->transfer_keys[i]));
    if (!sent.ok()) {
      for (PJRT_Event*& e : std::span(args->send_events, i)) e = nullptr;
      // The transfers started before this one go on; their events are handed out.
      for (size_t k = 0; k < events.size(); ++k) args->send_events[k] = plugin::WrapEvent(events[k]);
      return MakeError(absl::Status(sent.status().code(),
                                    StrCat("PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args.buffers[", i,
                                           "]: ", sent.status().message())));
    }
    events.push_back(*sent);
  }
  for (size_t i = 0; i < events.size(); ++i) args->send_events[i] = plugin::WrapEvent(events[i]);
  return nullptr;
}

PJRT_Error* ReceiveBuffers(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args* args) {
  constexpr const char* kType = "PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args";
  OPJ_CHECK_ARGS_MIN(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, buffers);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, client);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, device);
  if (PJRT_Error* e = CheckTasks(args, kType)) return e;
  if (args->num_shapes == 0) return nullptr;
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, shape_num_dims);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, num_dims);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, element_types);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, src_global_device_ids);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, transfer_keys);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, args, buffers);
  runtime::Device* device = args->device->device;
  if (!device->addressable())
    return InvalidArgument(StrCat(kType, ".device is device ", device->id(), " of process ", device->process_index(),
                                  "; buffers are received on this process's devices"));
  std::vector<runtime::BufferShape> shapes;
  for (size_t i = 0; i < args->num_shapes; ++i) {
    auto shape = plugin::MakeShape(RawEnum(args->element_types[i]), args->num_dims[i], args->shape_num_dims[i],
                                   StrCat(kType, " shape ", i));
    if (!shape.ok()) return MakeError(shape.status());
    const PJRT_Buffer_MemoryLayout* layout = args->layouts ? args->layouts[i] : nullptr;
    if (layout) {
      // Only the dense row-major layout (minor-to-major n-1, ..., 0, no tiles) is this plugin's.
      bool row_major = RawEnum(layout->type) == PJRT_Buffer_MemoryLayout_Type_Tiled && layout->tiled.num_tiles == 0 &&
                       layout->tiled.minor_to_major_size == shape->type.dims.size();
      for (size_t d = 0; row_major && d < layout->tiled.minor_to_major_size; ++d)
        row_major = layout->tiled.minor_to_major && layout->tiled.minor_to_major[d] ==
                                                        static_cast<int64_t>(shape->type.dims.size() - 1 - d);
      if (!row_major) return plugin::Unimplemented("CrossHostReceiveBuffers with a layout other than row-major");
    }
    shapes.push_back(*shape);
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    absl::StatusOr<runtime::BufferRef> b = args->client->client->ReceiveFromRemote(
        device->default_memory(), shapes[i], args->src_global_device_ids[i],
        static_cast<uint64_t>(args->transfer_keys[i]));
    if (!b.ok()) {
      for (size_t k = 0; k < i; ++k) {
        delete args->buffers[k];
        args->buffers[k] = nullptr;
      }
      return MakeError(absl::Status(b.status().code(), StrCat(kType, " shape ", i, ": ", b.status().message())));
    }
    args->buffers[i] = plugin::WrapBuffer(args->client, *b);
  }
  return nullptr;
}

PJRT_Error* MakeReceiveBuffers(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, num_buffers);
  return plugin::Unimplemented(
      "PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers (the descriptor-based API; use "
      "CrossHostReceiveBuffers)");
}

void CopyToRemoteDevice(PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args* args) {
  if (!args || args->struct_size < PJRT_STRUCT_SIZE(PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args, on_done))
    return;  // nothing can be reported through a struct this short
  const absl::Status why = absl::UnimplementedError(
      "PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice (the descriptor-based API; use CrossHostSendBuffers) is not "
      "implemented by the openpjrt CPU plugin");
  if (args->on_done.on_done) args->on_done.on_done(MakeError(why), false, args->on_done.user_arg);
  if (args->event) {
    PJRT_Event_Destroy_Args d{};
    d.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
    d.event = args->event;
    PJRT_Error* ignored = OPJ_Event_Destroy(&d);
    (void)ignored;  // (a well-formed call cannot fail)
  }
}

}  // namespace

namespace openpjrt::plugin {

PJRT_CrossHostTransfers_Extension MakeCrossHostTransfers(PJRT_Extension_Base* next) {
  PJRT_CrossHostTransfers_Extension e{};
  e.base.struct_size = PJRT_CrossHostTransfers_Extension_STRUCT_SIZE;
  e.base.type = PJRT_Extension_Type_CrossHostTransfers;
  e.base.next = next;
  e.PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers =
      &Guarded<PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, MakeReceiveBuffers>;
  e.PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice = &CopyToRemoteDevice;
  e.PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers =
      &Guarded<PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, ReceiveBuffers>;
  e.PJRT_Transfers_PJRT_Client_CrossHostSendBuffers =
      &Guarded<PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, SendBuffers>;
  return e;
}

}  // namespace openpjrt::plugin
