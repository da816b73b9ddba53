// The CrossHostTransfers extension: buffers sent to and received from devices of other processes
// of a distributed client (runtime::Client::SendToRemote / ReceiveFromRemote, over Gloo).
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>
#include <thread>

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

// Only the dense row-major layout (minor-to-major n-1, ..., 0, no tiles) is this plugin's.
bool RowMajor(const PJRT_Buffer_MemoryLayout& layout, size_t rank) {
  bool ok = RawEnum(layout.type) == PJRT_Buffer_MemoryLayout_Type_Tiled && layout.tiled.num_tiles == 0 &&
            layout.tiled.minor_to_major_size == rank;
  for (size_t d = 0; ok && d < rank; ++d)
    ok = layout.tiled.minor_to_major && layout.tiled.minor_to_major[d] == static_cast<int64_t>(rank - 1 - d);
  return ok;
}

// The receiving side's device (one of this process's) and the shapes of what it receives, from
// either receive call's arrays; an error names `type` and the shape.
PJRT_Error* ReceiveShapes(const char* type, const char* call, PJRT_Device* pdevice, size_t num_shapes,
                          const size_t* shape_num_dims, const int64_t* const* num_dims,
                          const PJRT_Buffer_Type* element_types, PJRT_Buffer_MemoryLayout* const* layouts,
                          std::vector<runtime::BufferShape>* shapes) {
  runtime::Device* device = pdevice->device;
  if (!device->addressable())
    return InvalidArgument(StrCat(type, ".device is device ", device->id(), " of process ", device->process_index(),
                                  "; buffers are received on this process's devices"));
  for (size_t i = 0; i < num_shapes; ++i) {
    auto shape = plugin::MakeShape(RawEnum(element_types[i]), num_dims[i], shape_num_dims[i], StrCat(type, " shape ", i));
    if (!shape.ok()) return MakeError(shape.status());
    if (layouts && layouts[i] && !RowMajor(*layouts[i], shape->type.dims.size()))
      return plugin::Unimplemented(call);
    shapes->push_back(*shape);
  }
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
  std::vector<runtime::BufferShape> shapes;
  if (PJRT_Error* e = ReceiveShapes(kType, "CrossHostReceiveBuffers with a layout other than row-major", args->device,
                                    args->num_shapes, args->shape_num_dims, args->num_dims, args->element_types,
                                    args->layouts, &shapes))
    return e;
  runtime::Device* device = args->device->device;
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

// Descriptors of the descriptor-based API: "openpjrt-transfer:<receiving process>:<key>", text.
std::string Descriptor(int process, uint64_t key) { return StrCat("openpjrt-transfer:", process, ":", key); }

bool ParseDescriptor(const std::string& d, int* process, uint64_t* key) {
  constexpr std::string_view kPrefix = "openpjrt-transfer:";
  if (d.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  const char* p = d.c_str() + kPrefix.size();
  char* end = nullptr;
  const long long proc = std::strtoll(p, &end, 10);
  if (end == p || *end != ':' || proc < 0 || proc > INT32_MAX) return false;
  p = end + 1;
  const unsigned long long k = std::strtoull(p, &end, 10);
  if (end == p || *end != '\0') return false;
  *process = static_cast<int>(proc);
  *key = k;
  return true;
}

// The cancel notifier handed to the receiving side's framework: fails the receive the descriptor
// names (user_arg is the plugin's client; the framework calls it only while the client lives).
void CancelReceive(const char* descriptor, size_t descriptor_size, PJRT_Error_Code reason, const char* message,
                   size_t message_size, PJRT_Transfers_CrossHostOnCanceledCallback on_canceled,
                   void* on_canceled_user_arg, void* user_arg) {
  auto* client = static_cast<PJRT_Client*>(user_arg);
  int process = -1;
  uint64_t key = 0;
  absl::Status result = absl::OkStatus();
  if (!descriptor || !ParseDescriptor(std::string(descriptor, descriptor_size), &process, &key)) {
    result = absl::InvalidArgumentError("cancel: the descriptor is not one of this plugin's");
  } else {
    const absl::Status why(plugin::StatusCodeOf(RawEnum(reason)),
                           StrCat("cross-host transfer cancelled: ", message ? std::string(message, message_size) : ""));
    if (!client->client->CancelReceive(key, why))
      result = absl::FailedPreconditionError(StrCat("cancel: transfer ", key, " is not waiting (done or unknown)"));
  }
  if (on_canceled) on_canceled(MakeError(result), on_canceled_user_arg);
}

PJRT_Error* MakeReceiveBuffers(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args* args) {
  constexpr const char* kType = "PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args";
  OPJ_CHECK_ARGS_MIN(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, num_buffers);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, client);
  OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, device);
  if (!args->notifier.notifier) return InvalidArgument(StrCat(kType, ".notifier.notifier is null"));
  const bool cancellable = plugin::Covers(args, PJRT_STRUCT_SIZE(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args,
                                                                  allow_cancel_notifier)) &&
                           args->allow_cancel_notifier;
  runtime::Client& rc = *args->client->client;
  if (!rc.coordinator())
    return MakeError(absl::FailedPreconditionError(
        "cross-host transfers need a client spanning processes (create options node_id and num_nodes with the "
        "key-value store callbacks); this client has one process"));
  if (args->num_shapes) {
    OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, shape_num_dims);
    OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, num_dims);
    OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, element_types);
    OPJ_REQUIRE(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, args, buffers);
  }
  std::vector<runtime::BufferShape> shapes;
  if (PJRT_Error* e = ReceiveShapes(kType, "MakeCrossHostReceiveBuffers with a layout other than row-major",
                                    args->device, args->num_shapes, args->shape_num_dims, args->num_dims,
                                    args->element_types, args->layouts, &shapes))
    return e;
  runtime::Device* device = args->device->device;
  // The descriptors (one per buffer) go to the framework's notifier, which hands them to the
  // senders; the call returns first, the notifier runs on its own thread.
  auto descriptors = std::make_shared<std::vector<std::string>>();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const uint64_t key = rc.NewTransferKey();
    absl::StatusOr<runtime::BufferRef> b = rc.ReceiveAnnounced(device->default_memory(), shapes[i], key);
    if (!b.ok()) return MakeError(b.status());
    args->buffers[i] = plugin::WrapBuffer(args->client, *b);
    descriptors->push_back(Descriptor(rc.process_index(), key));
  }
  args->num_buffers = shapes.size();
  const PJRT_Transfers_CrossHostRecvNotifierInfo notifier = args->notifier;
  PJRT_Client* client = args->client;
  std::thread([descriptors, notifier, cancellable, client] {
    std::vector<const char*> ptrs;
    std::vector<size_t> sizes;
    for (const std::string& d : *descriptors) ptrs.push_back(d.c_str()), sizes.push_back(d.size());
    notifier.notifier(nullptr, ptrs.data(), sizes.data(), ptrs.size(), notifier.user_arg,
                      cancellable ? &CancelReceive : nullptr, cancellable ? client : nullptr);
  }).detach();
  return nullptr;
}

// The sending side: once `event` is set the framework has written the receiver's descriptor;
// the buffer is then sent (after announcing this process as the sender), and on_done reports.
void CopyToRemoteDevice(PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args* args) {
  if (!args || args->struct_size < PJRT_STRUCT_SIZE(PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args, on_done))
    return;  // nothing can be reported through a struct this short
  const PJRT_Transfers_CrossHostRemoteSendCallbackInfo on_done = args->on_done;
  auto fail = [&](const absl::Status& s) {
    if (on_done.on_done) on_done.on_done(MakeError(s), false, on_done.user_arg);
  };
  if (!args->buffer || !args->event || !args->serialized_descriptor || !args->serialized_descriptor_size)
    return fail(absl::InvalidArgumentError(
        "PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args: buffer, event and the descriptor pointers are required"));
  const PJRT_Transfers_DescriptorDestructor destructor =
      plugin::Covers(args, PJRT_STRUCT_SIZE(PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args, descriptor_destructor))
          ? args->descriptor_destructor
          : nullptr;
  runtime::BufferRef buffer = args->buffer->buffer;
  runtime::Client* rc = args->buffer->client->client.get();
  PJRT_Event* handle = args->event;
  char** descriptor = args->serialized_descriptor;
  size_t* descriptor_size = args->serialized_descriptor_size;
  runtime::EventRef described = handle->event;
  described->OnReady([=](absl::Status ready) {
    auto report = [&](const absl::Status& s, bool enqueued) {
      if (on_done.on_done) on_done.on_done(MakeError(s), enqueued, on_done.user_arg);
    };
    std::string d;
    if (ready.ok() && *descriptor) d.assign(*descriptor, *descriptor_size);
    if (destructor) destructor(descriptor, descriptor_size);  // the plugin is done with it
    PJRT_Event_Destroy_Args destroy{};
    destroy.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
    destroy.event = handle;
    PJRT_Error* ignored = OPJ_Event_Destroy(&destroy);
    (void)ignored;  // (a well-formed call cannot fail)
    if (!ready.ok()) return report(absl::Status(ready.code(), StrCat("the descriptor never came: ", ready.message())), false);
    int process = -1;
    uint64_t key = 0;
    if (!ParseDescriptor(d, &process, &key))
      return report(absl::InvalidArgumentError(StrCat("CopyToRemoteDevice: '", d, "' is not an openpjrt descriptor")),
                    false);
    absl::StatusOr<runtime::EventRef> sent = rc->SendAnnounced(buffer, process, key);
    if (!sent.ok()) return report(sent.status(), false);
    (*sent)->OnReady([on_done](absl::Status s) {
      if (on_done.on_done) on_done.on_done(MakeError(s), s.ok(), on_done.user_arg);
    });
  });
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
