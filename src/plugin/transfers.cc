// The asynchronous host-to-device transfer manager: buffers created up front and filled by
// later TransferData / TransferLiteral calls; each becomes ready with its last transfer.
#include <cstring>

#include "src/plugin/slots.h"
#include "src/support/str.h"

using namespace openpjrt;
using plugin::InvalidArgument;
using plugin::MakeError;
using plugin::RawEnum;

namespace openpjrt::plugin {
absl::StatusOr<runtime::BufferShape> MakeShape(int type, const int64_t* dims,
                                               size_t num_dims, const std::string& where);
}

struct PJRT_AsyncHostToDeviceTransferManager {
  PJRT_Client* client = nullptr;
  PJRT_Memory* memory = nullptr;
  std::mutex mu;
  std::vector<runtime::BufferRef> buffers;
  std::vector<cpu::Array> staging;  // storage being filled
  ~PJRT_AsyncHostToDeviceTransferManager() {
    for (auto& b : buffers)
      b->Fail(absl::CancelledError("the transfer manager was destroyed before the last transfer"));
  }
};

namespace {
PJRT_Error* CheckIndex(PJRT_AsyncHostToDeviceTransferManager* m, int i, const char* where) {
  if (i < 0 || i >= static_cast<int>(m->buffers.size()))
    return InvalidArgument(StrCat(where, ".buffer_index is ", i, "; the manager holds ", m->buffers.size(),
                                  " buffers"));
  return nullptr;
}
}  // namespace

#define OPJ_TM_ARGS(Type) \
  OPJ_CHECK_ARGS(Type, args); \
  OPJ_REQUIRE(Type, args, transfer_manager); \
  PJRT_AsyncHostToDeviceTransferManager* m = args->transfer_manager

PJRT_Error* OPJ_Client_CreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, args);
  OPJ_REQUIRE(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, args, client);
  OPJ_REQUIRE(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, args, memory);
  if (args->num_shape_specs && !args->shape_specs)
    return InvalidArgument("PJRT_Client_CreateBuffersForAsyncHostToDevice_Args.shape_specs is null");
  if (PJRT_Error* e = plugin::RefuseRemote(args->memory, "PJRT_Client_CreateBuffersForAsyncHostToDevice_Args.memory"))
    return e;
  auto m = std::make_unique<PJRT_AsyncHostToDeviceTransferManager>();
  m->client = args->client;
  m->memory = args->memory;
  for (size_t i = 0; i < args->num_shape_specs; ++i) {
    const PJRT_ShapeSpec& spec = args->shape_specs[i];
    auto shape = plugin::MakeShape(RawEnum(spec.element_type), spec.dims, spec.num_dims,
                                   StrCat("PJRT_Client_CreateBuffersForAsyncHostToDevice_Args.shape_specs[", i, "]"));
    if (!shape.ok()) {
      m->buffers.clear();
      return MakeError(shape.status());
    }
    m->buffers.push_back(runtime::Buffer::CreatePending(Impl(args->memory)->memory, *shape));
    m->staging.push_back(shape->token ? cpu::Array() : cpu::Array::Allocate(shape->type));
  }
  args->transfer_manager = m.release();
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_Destroy(
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, args);
  delete args->transfer_manager;
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_TransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args);
  if (auto* e = CheckIndex(m, args->buffer_index, "PJRT_AsyncHostToDeviceTransferManager_TransferData_Args")) return e;
  std::lock_guard<std::mutex> lock(m->mu);
  runtime::BufferRef& b = m->buffers[args->buffer_index];
  cpu::Array& a = m->staging[args->buffer_index];
  const int64_t size = b->on_device_size();
  if (b->ready_event()->IsReady())
    return MakeError(absl::FailedPreconditionError(StrCat("buffer ", args->buffer_index, " is already complete")));
  if (args->offset < 0 || args->transfer_size < 0 || args->offset > size || args->transfer_size > size - args->offset)
    return InvalidArgument(StrCat("PJRT_AsyncHostToDeviceTransferManager_TransferData: offset ", args->offset,
                                  " and transfer_size ", args->transfer_size, " fall outside buffer ",
                                  args->buffer_index, "'s ", size, " bytes"));
  if (args->transfer_size && !args->data)
    return InvalidArgument("PJRT_AsyncHostToDeviceTransferManager_TransferData_Args.data is null");
  if (args->transfer_size) std::memcpy(a.mutable_data() + args->offset, args->data, args->transfer_size);
  if (args->is_last_transfer) b->Fulfil(a);
  args->done_with_h2d_transfer = plugin::WrapEvent(runtime::Event::Ready());
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_TransferLiteral(
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args);
  if (auto* e = CheckIndex(m, args->buffer_index, "PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args")) return e;
  auto shape = plugin::MakeShape(RawEnum(args->shape_element_type), args->shape_dims, args->shape_num_dims,
                                 "PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args");
  if (!shape.ok()) return MakeError(shape.status());
  if (args->shape_layout) return plugin::Unimplemented("PJRT_AsyncHostToDeviceTransferManager_TransferLiteral with a shape_layout");
  std::lock_guard<std::mutex> lock(m->mu);
  runtime::BufferRef& b = m->buffers[args->buffer_index];
  if (!(*shape == b->shape()))
    return InvalidArgument(StrCat("PJRT_AsyncHostToDeviceTransferManager_TransferLiteral: the literal is ",
                                  shape->ToString(), ", buffer ", args->buffer_index, " is ", b->shape().ToString()));
  if (b->ready_event()->IsReady())
    return MakeError(absl::FailedPreconditionError(StrCat("buffer ", args->buffer_index, " is already complete")));
  cpu::Array& a = m->staging[args->buffer_index];
  if (a.ByteSize()) {
    if (!args->data) return InvalidArgument("PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args.data is null");
    std::memcpy(a.mutable_data(), args->data, a.ByteSize());
  }
  b->Fulfil(a);
  args->done_with_h2d_transfer = plugin::WrapEvent(runtime::Event::Ready());
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_RetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args);
  if (auto* e = CheckIndex(m, args->buffer_index, "PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args")) return e;
  args->buffer_out = plugin::WrapBuffer(m->client, m->buffers[args->buffer_index]);
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_Device(
    PJRT_AsyncHostToDeviceTransferManager_Device_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_Device_Args);
  args->device_out = Impl(m->memory)->devices[0];
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_BufferCount(
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args);
  args->buffer_count = m->buffers.size();
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_BufferSize(
    PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args);
  if (auto* e = CheckIndex(m, args->buffer_index, "PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args")) return e;
  args->buffer_size = static_cast<size_t>(m->buffers[args->buffer_index]->on_device_size());
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_SetBufferError(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args);
  if (auto* e = CheckIndex(m, args->buffer_index, "PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args")) return e;
  const int code = RawEnum(args->error_code);
  if (code <= PJRT_Error_Code_OK || code > PJRT_Error_Code_UNAUTHENTICATED)
    return InvalidArgument(StrCat("PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args.error_code is ", code));
  m->buffers[args->buffer_index]->Fail(absl::Status(
      plugin::StatusCodeOf(code),
      args->error_message ? std::string(args->error_message, args->error_message_size) : ""));
  return nullptr;
}

PJRT_Error* OPJ_AsyncHostToDeviceTransferManager_AddMetadata(
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args* args) {
  OPJ_TM_ARGS(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args);
  (void)m;  // metadata only guides device-side transfers; host memory needs none
  return nullptr;
}
