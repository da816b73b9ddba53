// Buffers: creation from host memory and views, queries, copies to host, devices and memories,
// aliasing, donation and bitcasts.
#include <cstring>

#include "src/plugin/slots.h"
#include "src/support/str.h"

using namespace openpjrt;
using plugin::InvalidArgument;
using plugin::MakeError;
using plugin::RawEnum;
using runtime::Buffer;
using runtime::BufferRef;
using runtime::BufferShape;

namespace openpjrt::plugin {

PJRT_Buffer* WrapBuffer(PJRT_Client* client, BufferRef b) {
  auto* h = new PJRT_Buffer;
  h->client = client;
  h->buffer = std::move(b);
  const size_t rank = h->buffer->shape().type.dims.size();
  for (size_t i = 0; i < rank; ++i) h->minor_to_major.push_back(static_cast<int64_t>(rank - 1 - i));
  return h;
}

// A shape from (type, dims); INVALID_ARGUMENT naming `where` when they cannot be a buffer.
absl::StatusOr<BufferShape> MakeShape(int type, const int64_t* dims, size_t num_dims,
                                      const std::string& where) {
  BufferShape s;
  if (type == PJRT_Buffer_Type_TOKEN) {
    s.token = true;
    return s;
  }
  if (!ToElemKind(type, &s.type.elem))
    return absl::InvalidArgumentError(StrCat(where, " element type ", type, " (",
                                             BufferTypeName(type), ") is not supported by the CPU plugin"));
  if (num_dims && !dims) return absl::InvalidArgumentError(StrCat(where, " dims is null"));
  if (num_dims > 64) return absl::InvalidArgumentError(StrCat(where, " rank ", num_dims, " exceeds 64"));
  int64_t n = 1;
  for (size_t i = 0; i < num_dims; ++i) {
    if (dims[i] < 0)
      return absl::InvalidArgumentError(StrCat(where, " dims[", i, "] is ", dims[i]));
    if (dims[i] && n > (int64_t{1} << 46) / dims[i])
      return absl::InvalidArgumentError(StrCat(where, " the shape has too many elements"));
    n *= dims[i];
    s.type.dims.push_back(dims[i]);
  }
  return s;
}

}  // namespace openpjrt::plugin

// Host memory this aligned is used in place under the zero-copy semantics (XLA:CPU's rule too):
// numpy's large arrays start 16 bytes into a page, and copying them on every call was most of
// a row sum's time through JAX (4096x4096 f32: 6.4 ms against 2.4 ms in place). Kernels read
// arrays with unaligned loads; only buffers they allocate themselves are 64-byte aligned.
constexpr uintptr_t kZeroCopyAlignment = 16;
// Up to this size a host array off a 64-byte boundary is copied into aligned storage instead:
// the copy is cheap once, while kernels may read a small array many times (a scan's weights, read
// by its product at every step: JAX's 200-step RNN with 64x64 f32 weights 16 bytes off a cache
// line took 49.5 us a call against 42 us aligned).
constexpr uintptr_t kAlignedCopyUpTo = 256 << 10;

namespace {

// Copies between a dense row-major array and memory laid out with byte strides.
void CopyStrided(uint8_t* dense, const uint8_t* strided_base, const std::vector<int64_t>& dims,
                 const int64_t* strides, int64_t elem, bool to_dense) {
  const size_t rank = dims.size();
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t off = 0;
    for (size_t i = 0; i < rank; ++i) off += idx[i] * strides[i];
    uint8_t* s = const_cast<uint8_t*>(strided_base) + off;
    if (to_dense) std::memcpy(dense + n * elem, s, elem);
    else std::memcpy(s, dense + n * elem, elem);
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
}

bool DenseStrides(const std::vector<int64_t>& dims, const int64_t* strides, int64_t elem) {
  int64_t expect = elem;
  for (size_t i = dims.size(); i-- > 0;) {
    if (dims[i] != 1 && strides[i] != expect) return false;
    expect *= dims[i];
  }
  return true;
}

PJRT_Memory* TargetMemory(PJRT_Client* c, PJRT_Device* device, PJRT_Memory* memory) {
  if (memory) return memory;
  if (device) return device->memories[0];
  return c->addressable_ptrs.empty() ? nullptr : c->addressable_ptrs[0]->memories[0];
}

// Byte strides of a host layout for ToHostBuffer: explicit strides, or a minor-to-major order.
absl::Status HostStrides(const PJRT_Buffer_MemoryLayout* layout, const BufferShape& s,
                         std::vector<int64_t>* strides) {
  const size_t rank = s.type.dims.size();
  const int64_t elem = s.type.ElementSize();
  strides->assign(rank, 0);
  if (RawEnum(layout->type) == PJRT_Buffer_MemoryLayout_Type_Strides) {
    if (layout->strides.num_byte_strides != rank || (rank && !layout->strides.byte_strides))
      return absl::InvalidArgumentError(StrCat("host_layout has ", layout->strides.num_byte_strides,
                                               " byte strides for a rank-", rank, " buffer"));
    strides->assign(layout->strides.byte_strides, layout->strides.byte_strides + rank);
    return absl::OkStatus();
  }
  if (RawEnum(layout->type) != PJRT_Buffer_MemoryLayout_Type_Tiled)
    return absl::InvalidArgumentError(StrCat("host_layout.type is ", RawEnum(layout->type)));
  if (layout->tiled.num_tiles) return absl::UnimplementedError("tiled host layouts with tiles");
  if (layout->tiled.minor_to_major_size != rank || (rank && !layout->tiled.minor_to_major))
    return absl::InvalidArgumentError(StrCat("host_layout.minor_to_major has ",
                                             layout->tiled.minor_to_major_size, " entries for rank ", rank));
  std::vector<bool> seen(rank, false);
  int64_t stride = elem;
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = layout->tiled.minor_to_major[i];
    if (d < 0 || d >= static_cast<int64_t>(rank) || seen[d])
      return absl::InvalidArgumentError("host_layout.minor_to_major is not a permutation");
    seen[d] = true;
    (*strides)[d] = stride;
    stride *= s.type.dims[d];
  }
  return absl::OkStatus();
}

int64_t HeldBytes(const BufferShape& s) { return s.token ? 0 : s.type.ByteSize(); }

// Runs `fn` with the source array once `src` is ready; otherwise fails `done` with its error.
void AfterReady(const BufferRef& src, std::function<absl::Status(const cpu::Array&)> fn,
                runtime::EventRef done) {
  src->ready_event()->OnReady([src, fn, done](const absl::Status& s) {
    if (!s.ok()) return (void)done->Set(s);
    auto a = src->GetArray();
    if (!a.ok()) return (void)done->Set(a.status());
    done->Set(fn(*a));
  });
}

// A copy of `src` into a new buffer on `memory`, defined once `src` is.
BufferRef CopyBuffer(const BufferRef& src, runtime::Memory* memory) {
  BufferRef dst = Buffer::CreatePending(memory, src->shape());
  auto done = runtime::Event::Create();
  AfterReady(
      src,
      [dst](const cpu::Array& a) {
        if (dst->shape().token) {
          dst->Fulfil(cpu::Array());
          return absl::OkStatus();
        }
        cpu::Array copy = cpu::Array::Allocate(a.type());
        if (a.ByteSize()) std::memcpy(copy.mutable_data(), a.data(), a.ByteSize());
        dst->Fulfil(copy);
        return absl::OkStatus();
      },
      done);
  done->OnReady([dst](const absl::Status& s) {
    if (!s.ok()) dst->Fail(s);
  });
  return dst;
}

}  // namespace

// ------------------------------------------------------------------ creation

PJRT_Error* OPJ_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_BufferFromHostBuffer_Args, args);
  OPJ_REQUIRE(PJRT_Client_BufferFromHostBuffer_Args, args, client);
  auto shape = plugin::MakeShape(RawEnum(args->type), args->dims, args->num_dims, "PJRT_Client_BufferFromHostBuffer_Args");
  if (!shape.ok()) return MakeError(shape.status());
  PJRT_Memory* memory = TargetMemory(args->client, args->device, args->memory);
  if (!memory) return InvalidArgument("PJRT_Client_BufferFromHostBuffer_Args: no device or memory");
  if (PJRT_Error* e = plugin::RefuseRemote(memory, "PJRT_Client_BufferFromHostBuffer_Args.memory")) return e;
  if (args->device_layout && RawEnum(args->device_layout->type) == PJRT_Buffer_MemoryLayout_Type_Tiled &&
      args->device_layout->tiled.num_tiles)
    return plugin::Unimplemented("PJRT_Client_BufferFromHostBuffer with a tiled device_layout");
  const int64_t bytes = shape->token ? 0 : shape->type.ByteSize();
  if (bytes && !args->data) return InvalidArgument("PJRT_Client_BufferFromHostBuffer_Args.data is null");
  const size_t rank = shape->type.dims.size();
  if (args->num_byte_strides && args->num_byte_strides != rank)
    return InvalidArgument(StrCat("PJRT_Client_BufferFromHostBuffer_Args.num_byte_strides is ",
                                  args->num_byte_strides, ", the rank is ", rank));
  if (args->num_byte_strides && !args->byte_strides)
    return InvalidArgument("PJRT_Client_BufferFromHostBuffer_Args.byte_strides is null");
  const int semantics = RawEnum(args->host_buffer_semantics);
  if (semantics < PJRT_HostBufferSemantics_kImmutableOnlyDuringCall ||
      semantics > PJRT_HostBufferSemantics_kMutableZeroCopy)
    return InvalidArgument(StrCat("PJRT_Client_BufferFromHostBuffer_Args.host_buffer_semantics is ", semantics));
  const int64_t limit = args->client->client->options().memory_limit_bytes;
  runtime::MemoryStats& stats = Impl(memory)->memory->device()->stats();
  // Outputs reserved by prepared executions count: an upload must not take the room they were promised.
  if (limit > 0 && stats.bytes_in_use + stats.bytes_reserved + bytes > limit)
    return MakeError(absl::ResourceExhaustedError(
        StrCat("device ", Impl(memory)->memory->device()->id(), ": ", bytes, " more bytes exceed the ", limit,
               "-byte memory limit (", stats.bytes_in_use.load(), " in use, ", stats.bytes_reserved.load(),
               " reserved by executions in flight)")));
  const bool dense = !args->num_byte_strides ||
                     DenseStrides(shape->type.dims, args->byte_strides, shape->type.ElementSize());
  // Sub-byte signed integers arrive one to a byte with only their low bits defined (ml_dtypes
  // leaves the rest as it likes); the kernels read them sign-extended, so they are copied.
  const int sub_byte_signed_bits =
      shape->type.elem == ir::ElemKind::kI4 ? 4 : shape->type.elem == ir::ElemKind::kI2 ? 2 : 0;
  const bool zero_copy = !sub_byte_signed_bits &&
      (semantics == PJRT_HostBufferSemantics_kImmutableZeroCopy ||
       semantics == PJRT_HostBufferSemantics_kMutableZeroCopy) &&
      dense && bytes > 0 && reinterpret_cast<uintptr_t>(args->data) % kZeroCopyAlignment == 0 &&
      (bytes > kAlignedCopyUpTo || reinterpret_cast<uintptr_t>(args->data) % 64 == 0);
  runtime::EventRef done_with_host = runtime::Event::Create();
  cpu::Array array;
  if (shape->token) {
    done_with_host->Set(absl::OkStatus());
  } else if (zero_copy) {
    // The storage aliases the caller's memory; releasing it tells the caller it may free it.
    std::shared_ptr<const uint8_t> data(static_cast<const uint8_t*>(args->data),
                                        [done_with_host](const uint8_t*) { done_with_host->Set(absl::OkStatus()); });
    array = cpu::Array::Wrap(shape->type, std::move(data));
  } else {
    array = cpu::Array::Allocate(shape->type);
    if (bytes) {
      if (dense) std::memcpy(array.mutable_data(), args->data, bytes);
      else CopyStrided(array.mutable_data(), static_cast<const uint8_t*>(args->data), shape->type.dims,
                       args->byte_strides, shape->type.ElementSize(), true);
      if (sub_byte_signed_bits) {
        auto* p = reinterpret_cast<int8_t*>(array.mutable_data());
        const int shift = 8 - sub_byte_signed_bits;
        for (int64_t i = 0; i < bytes; ++i) p[i] = static_cast<int8_t>(static_cast<uint8_t>(p[i] << shift)) >> shift;
      }
    }
    done_with_host->Set(absl::OkStatus());
  }
  BufferRef b = Buffer::CreateReady(Impl(memory)->memory, *shape, array);
  args->done_with_host_buffer = plugin::WrapEvent(done_with_host);
  args->buffer = plugin::WrapBuffer(args->client, b);
  return nullptr;
}

PJRT_Error* OPJ_Client_CreateUninitializedBuffer(PJRT_Client_CreateUninitializedBuffer_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_CreateUninitializedBuffer_Args, args);
  OPJ_REQUIRE(PJRT_Client_CreateUninitializedBuffer_Args, args, client);
  auto shape = plugin::MakeShape(RawEnum(args->shape_element_type), args->shape_dims, args->shape_num_dims,
                                 "PJRT_Client_CreateUninitializedBuffer_Args");
  if (!shape.ok()) return MakeError(shape.status());
  PJRT_Memory* memory = TargetMemory(args->client, args->device, args->memory);
  if (!memory) return InvalidArgument("PJRT_Client_CreateUninitializedBuffer_Args: no device or memory");
  if (PJRT_Error* e = plugin::RefuseRemote(memory, "PJRT_Client_CreateUninitializedBuffer_Args.memory")) return e;
  cpu::Array a;
  if (!shape->token) {
    a = cpu::Array::Allocate(shape->type);
    if (a.ByteSize()) std::memset(a.mutable_data(), 0, a.ByteSize());  // deterministic contents
  }
  args->buffer = plugin::WrapBuffer(args->client, Buffer::CreateReady(Impl(memory)->memory, *shape, a));
  return nullptr;
}

PJRT_Error* OPJ_Client_CreateErrorBuffer(PJRT_Client_CreateErrorBuffer_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Client_CreateErrorBuffer_Args, args, buffer);
  OPJ_REQUIRE(PJRT_Client_CreateErrorBuffer_Args, args, client);
  OPJ_REQUIRE(PJRT_Client_CreateErrorBuffer_Args, args, memory);
  const int code = RawEnum(args->error_code);
  if (code <= PJRT_Error_Code_OK || code > PJRT_Error_Code_UNAUTHENTICATED)
    return InvalidArgument(StrCat("PJRT_Client_CreateErrorBuffer_Args.error_code is ", code, "; it must be an error"));
  auto shape = plugin::MakeShape(RawEnum(args->shape_element_type), args->shape_dims, args->shape_num_dims,
                                 "PJRT_Client_CreateErrorBuffer_Args");
  if (!shape.ok()) return MakeError(shape.status());
  absl::Status error(plugin::StatusCodeOf(code),
                     args->error_message ? std::string(args->error_message, args->error_message_size) : "");
  args->buffer = plugin::WrapBuffer(args->client, Buffer::CreateError(Impl(args->memory)->memory, *shape, error));
  return nullptr;
}

struct PJRT_FulfillAliasBufferCallback {
  BufferRef alias;
  bool used = false;
};

PJRT_Error* OPJ_Client_CreateAliasBuffer(PJRT_Client_CreateAliasBuffer_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_CreateAliasBuffer_Args, args);
  OPJ_REQUIRE(PJRT_Client_CreateAliasBuffer_Args, args, client);
  OPJ_REQUIRE(PJRT_Client_CreateAliasBuffer_Args, args, memory);
  auto shape = plugin::MakeShape(RawEnum(args->shape_element_type), args->shape_dims, args->shape_num_dims,
                                 "PJRT_Client_CreateAliasBuffer_Args");
  if (!shape.ok()) return MakeError(shape.status());
  if (PJRT_Error* e = plugin::RefuseRemote(args->memory, "PJRT_Client_CreateAliasBuffer_Args.memory")) return e;
  BufferRef alias = Buffer::CreatePending(Impl(args->memory)->memory, *shape);
  args->alias_buffer = plugin::WrapBuffer(args->client, alias);
  args->fulfill_alias_buffer_cb = new PJRT_FulfillAliasBufferCallback{alias};
  std::lock_guard<std::mutex> lock(args->client->alias_mu);
  args->client->pending_aliases[args->fulfill_alias_buffer_cb] = alias;
  return nullptr;
}

namespace openpjrt::plugin {

void DropPendingAliases(PJRT_Client* client) {
  std::map<PJRT_FulfillAliasBufferCallback*, BufferRef> pending;
  {
    std::lock_guard<std::mutex> lock(client->alias_mu);
    pending.swap(client->pending_aliases);
  }
  for (auto& [cb, alias] : pending) {
    alias->Fail(absl::DataLossError(
        "the alias buffer's promise was dropped (its client was destroyed before PJRT_Client_FulfillAliasBuffer): "
        "its data never arrived"));
    delete cb;
  }
}

}  // namespace openpjrt::plugin

PJRT_Error* OPJ_Client_FulfillAliasBuffer(PJRT_Client_FulfillAliasBuffer_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_FulfillAliasBuffer_Args, args);
  OPJ_REQUIRE(PJRT_Client_FulfillAliasBuffer_Args, args, client);
  OPJ_REQUIRE(PJRT_Client_FulfillAliasBuffer_Args, args, fulfill_alias_buffer_cb);
  {
    std::lock_guard<std::mutex> lock(args->client->alias_mu);
    if (!args->client->pending_aliases.erase(args->fulfill_alias_buffer_cb))
      return InvalidArgument("PJRT_Client_FulfillAliasBuffer_Args.fulfill_alias_buffer_cb is not a pending "
                             "callback of this client (fulfilled already, or another client's)");
  }
  std::unique_ptr<PJRT_FulfillAliasBufferCallback> cb(args->fulfill_alias_buffer_cb);
  BufferRef alias = cb->alias;
  if (RawEnum(args->status_code) != PJRT_Error_Code_OK) {
    alias->Fail(absl::Status(plugin::StatusCodeOf(RawEnum(args->status_code)),
                             args->error_message ? std::string(args->error_message, args->error_message_size) : ""));
    return nullptr;
  }
  OPJ_REQUIRE(PJRT_Client_FulfillAliasBuffer_Args, args, buffer);
  BufferRef real = args->buffer->buffer;
  if (!(real->shape() == alias->shape())) {
    alias->Fail(absl::InvalidArgumentError("the alias was fulfilled with a buffer of another shape"));
    return InvalidArgument(StrCat("PJRT_Client_FulfillAliasBuffer: the alias is ", alias->shape().ToString(),
                                  ", the buffer is ", real->shape().ToString()));
  }
  auto done = runtime::Event::Create();
  AfterReady(real, [alias](const cpu::Array& a) {
    alias->Fulfil(a);
    return absl::OkStatus();
  }, done);
  done->OnReady([alias](const absl::Status& s) {
    if (!s.ok()) alias->Fail(s);
  });
  return nullptr;
}

PJRT_Error* OPJ_Client_CreateViewOfDeviceBuffer(PJRT_Client_CreateViewOfDeviceBuffer_Args* args) {
  OPJ_CHECK_ARGS_MIN(PJRT_Client_CreateViewOfDeviceBuffer_Args, args, buffer);
  OPJ_REQUIRE(PJRT_Client_CreateViewOfDeviceBuffer_Args, args, client);
  OPJ_REQUIRE(PJRT_Client_CreateViewOfDeviceBuffer_Args, args, device_buffer_ptr);
  auto shape = plugin::MakeShape(RawEnum(args->element_type), args->dims, args->num_dims,
                                 "PJRT_Client_CreateViewOfDeviceBuffer_Args");
  if (!shape.ok()) return MakeError(shape.status());
  if (shape->token) return InvalidArgument("PJRT_Client_CreateViewOfDeviceBuffer: a token has no storage");
  PJRT_Memory* memory = nullptr;
  if (plugin::Covers(args, OPJ_FIELD_END(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory)))
    memory = args->memory;
  memory = TargetMemory(args->client, args->device, memory);
  if (PJRT_Error* e = plugin::RefuseRemote(memory, "PJRT_Client_CreateViewOfDeviceBuffer_Args.memory")) return e;
  auto on_delete = args->on_delete_callback;
  void* user = args->on_delete_callback_arg;
  std::shared_ptr<const uint8_t> data(static_cast<const uint8_t*>(args->device_buffer_ptr),
                                      [on_delete, user](const uint8_t* p) {
                                        if (on_delete) on_delete(const_cast<uint8_t*>(p), user);
                                      });
  BufferRef b = Buffer::CreateReady(Impl(memory)->memory, *shape, cpu::Array::Wrap(shape->type, std::move(data)));
  args->buffer = plugin::WrapBuffer(args->client, b);
  return nullptr;
}

// ------------------------------------------------------------------ queries

#define OPJ_BUFFER_ARGS(Type)      \
  OPJ_CHECK_ARGS(Type, args);      \
  OPJ_REQUIRE(Type, args, buffer); \
  [[maybe_unused]] const BufferRef& b = args->buffer->buffer

PJRT_Error* OPJ_Buffer_Destroy(PJRT_Buffer_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Buffer_Destroy_Args, args);
  if (args->buffer) args->buffer->buffer->Delete();
  delete args->buffer;
  return nullptr;
}

PJRT_Error* OPJ_Buffer_ElementType(PJRT_Buffer_ElementType_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_ElementType_Args);
  args->type = plugin::ToBufferType(b->shape());
  return nullptr;
}

PJRT_Error* OPJ_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_Dimensions_Args);
  args->dims = b->shape().type.dims.data();
  args->num_dims = b->shape().type.dims.size();
  return nullptr;
}

PJRT_Error* OPJ_Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_UnpaddedDimensions_Args);
  args->unpadded_dims = b->shape().type.dims.data();
  args->num_dims = b->shape().type.dims.size();
  return nullptr;
}

PJRT_Error* OPJ_Buffer_DynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_DynamicDimensionIndices_Args);
  args->dynamic_dim_indices = nullptr;
  args->num_dynamic_dims = 0;  // every buffer shape is static
  return nullptr;
}

PJRT_Error* OPJ_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Buffer_GetMemoryLayout_Args, args);
  OPJ_REQUIRE(PJRT_Buffer_GetMemoryLayout_Args, args, buffer);
  PJRT_Buffer_MemoryLayout& l = args->layout;
  std::memset(&l, 0, sizeof(l));
  l.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
  l.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  l.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
  l.tiled.minor_to_major = args->buffer->minor_to_major.data();
  l.tiled.minor_to_major_size = args->buffer->minor_to_major.size();
  return nullptr;
}

PJRT_Error* OPJ_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args);
  args->on_device_size_in_bytes = static_cast<size_t>(b->on_device_size());
  return nullptr;
}

PJRT_Error* OPJ_Buffer_Device(PJRT_Buffer_Device_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_Device_Args);
  args->device = args->buffer->client->device_of[b->device()];
  return nullptr;
}

PJRT_Error* OPJ_Buffer_Memory(PJRT_Buffer_Memory_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_Memory_Args);
  args->memory = args->buffer->client->memory_of[b->memory()];
  return nullptr;
}

PJRT_Error* OPJ_Buffer_Delete(PJRT_Buffer_Delete_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_Delete_Args);
  b->Delete();
  return nullptr;
}

PJRT_Error* OPJ_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_IsDeleted_Args);
  args->is_deleted = b->IsDeleted();
  return nullptr;
}

PJRT_Error* OPJ_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_IsOnCpu_Args);
  args->is_on_cpu = true;
  return nullptr;
}

PJRT_Error* OPJ_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_ReadyEvent_Args);
  if (b->IsDeleted() && !b->ready_event()->IsReady())
    args->event = plugin::WrapEvent(runtime::Event::Ready(
        absl::FailedPreconditionError("the buffer was deleted or donated")));
  else
    args->event = plugin::WrapEvent(b->ready_event());
  return nullptr;
}

PJRT_Error* OPJ_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_UnsafePointer_Args);
  if (absl::Status s = b->ready_event()->Await(); !s.ok()) return MakeError(s);
  if (b->IsDeleted()) return MakeError(absl::FailedPreconditionError("PJRT_Buffer_UnsafePointer: the buffer was deleted"));
  args->buffer_pointer = reinterpret_cast<uintptr_t>(b->data());
  return nullptr;
}

PJRT_Error* OPJ_Buffer_OpaqueDeviceMemoryDataPointer(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args);
  if (absl::Status s = b->ready_event()->Await(); !s.ok()) return MakeError(s);
  if (b->IsDeleted())
    return MakeError(absl::FailedPreconditionError("PJRT_Buffer_OpaqueDeviceMemoryDataPointer: the buffer was deleted"));
  args->device_memory_ptr = const_cast<uint8_t*>(b->data());
  return nullptr;
}

PJRT_Error* OPJ_Buffer_IncreaseExternalReferenceCount(PJRT_Buffer_IncreaseExternalReferenceCount_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_IncreaseExternalReferenceCount_Args);
  b->IncreaseExternalRefs();
  return nullptr;
}

PJRT_Error* OPJ_Buffer_DecreaseExternalReferenceCount(PJRT_Buffer_DecreaseExternalReferenceCount_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_DecreaseExternalReferenceCount_Args);
  return MakeError(b->DecreaseExternalRefs());
}

// ------------------------------------------------------------------ copies

PJRT_Error* OPJ_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Buffer_ToHostBuffer_Args, args);
  OPJ_REQUIRE(PJRT_Buffer_ToHostBuffer_Args, args, src);
  BufferRef src = args->src->buffer;
  const BufferShape& s = src->shape();
  const int64_t elem = s.token ? 0 : s.type.ElementSize();
  std::vector<int64_t> strides;
  int64_t needed = s.token ? 0 : s.type.ByteSize();
  if (args->host_layout) {
    if (s.token) return InvalidArgument("PJRT_Buffer_ToHostBuffer: a token has no host layout");
    if (absl::Status st = HostStrides(args->host_layout, s, &strides); !st.ok())
      return MakeError(absl::Status(st.code(), StrCat("PJRT_Buffer_ToHostBuffer_Args.", st.message())));
    needed = s.type.NumElements() ? elem : 0;
    for (size_t i = 0; i < strides.size(); ++i) {
      if (strides[i] < 0) return plugin::Unimplemented("PJRT_Buffer_ToHostBuffer with negative host strides");
      if (s.type.dims[i]) needed += strides[i] * (s.type.dims[i] - 1);
    }
  }
  if (args->dst == nullptr) {
    args->dst_size = static_cast<size_t>(needed);
    args->event = plugin::WrapEvent(runtime::Event::Ready());
    return nullptr;
  }
  if (static_cast<int64_t>(args->dst_size) < needed)
    return InvalidArgument(StrCat("PJRT_Buffer_ToHostBuffer_Args.dst_size is ", args->dst_size, ", the ",
                                  s.ToString(), " buffer needs ", needed, " bytes"));
  if (src->IsDeleted() && src->ready_event()->IsReady())
    return MakeError(absl::FailedPreconditionError("PJRT_Buffer_ToHostBuffer: the buffer was deleted"));
  uint8_t* dst = static_cast<uint8_t*>(args->dst);
  auto done = runtime::Event::Create();
  const bool dense = strides.empty() || DenseStrides(s.type.dims, strides.data(), elem);
  AfterReady(src, [dst, strides, dense, s, elem](const cpu::Array& a) {
    // A token holds no bytes (its array is empty, not an f32 scalar).
    if (s.token || HeldBytes(s) == 0 || !a.data()) return absl::OkStatus();
    if (dense) std::memcpy(dst, a.data(), a.ByteSize());
    else CopyStrided(const_cast<uint8_t*>(a.data()), dst, s.type.dims, strides.data(), elem, false);
    return absl::OkStatus();
  }, done);
  args->event = plugin::WrapEvent(done);
  return nullptr;
}

PJRT_Error* OPJ_Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_CopyRawToHost_Args);
  const int64_t size = b->on_device_size();
  if (args->offset < 0 || args->transfer_size < 0 || args->offset > size || args->transfer_size > size - args->offset)
    return InvalidArgument(StrCat("PJRT_Buffer_CopyRawToHost: offset ", args->offset, " and transfer_size ",
                                  args->transfer_size, " fall outside the buffer's ", size, " bytes"));
  if (args->transfer_size && !args->dst) return InvalidArgument("PJRT_Buffer_CopyRawToHost_Args.dst is null");
  auto done = runtime::Event::Create();
  uint8_t* dst = static_cast<uint8_t*>(args->dst);
  int64_t off = args->offset, n = args->transfer_size;
  AfterReady(b, [dst, off, n](const cpu::Array& a) {
    if (n) std::memcpy(dst, a.data() + off, n);
    return absl::OkStatus();
  }, done);
  args->event = plugin::WrapEvent(done);
  return nullptr;
}

namespace {
struct RawFuture {
  BufferRef src;
  int64_t offset, size;
  runtime::EventRef done;
};
void RawFutureReady(PJRT_Buffer_CopyRawToHostFuture_Callback_Args* cb) {
  if (!cb || !cb->callback_data) return;
  std::unique_ptr<RawFuture> f(static_cast<RawFuture*>(cb->callback_data));
  if (RawEnum(cb->error_code) != PJRT_Error_Code_OK) {
    f->done->Set(absl::Status(plugin::StatusCodeOf(RawEnum(cb->error_code)),
                              cb->error_message ? std::string(cb->error_message, cb->error_message_size) : ""));
    return;
  }
  uint8_t* dst = static_cast<uint8_t*>(cb->dst);
  int64_t off = f->offset, n = f->size;
  AfterReady(f->src, [dst, off, n](const cpu::Array& a) {
    if (n) std::memcpy(dst, a.data() + off, n);
    return absl::OkStatus();
  }, f->done);
}
}  // namespace

PJRT_Error* OPJ_Buffer_CopyRawToHostFuture(PJRT_Buffer_CopyRawToHostFuture_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_CopyRawToHostFuture_Args);
  const int64_t size = b->on_device_size();
  if (args->offset < 0 || args->transfer_size < 0 || args->offset > size || args->transfer_size > size - args->offset)
    return InvalidArgument(StrCat("PJRT_Buffer_CopyRawToHostFuture: offset ", args->offset, " and transfer_size ",
                                  args->transfer_size, " fall outside the buffer's ", size, " bytes"));
  auto* f = new RawFuture{b, args->offset, args->transfer_size, runtime::Event::Create()};
  args->event = plugin::WrapEvent(f->done);
  args->callback_data = f;
  args->future_ready_callback = RawFutureReady;
  return nullptr;
}

PJRT_Error* OPJ_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_CopyToDevice_Args);
  OPJ_REQUIRE(PJRT_Buffer_CopyToDevice_Args, args, dst_device);
  if (args->dst_device->client != args->buffer->client)
    return InvalidArgument("PJRT_Buffer_CopyToDevice_Args.dst_device belongs to another client");
  if (PJRT_Error* e = plugin::RefuseRemote(args->dst_device->memories[0], "PJRT_Buffer_CopyToDevice_Args.dst_device"))
    return e;
  args->dst_buffer = plugin::WrapBuffer(args->buffer->client,
                                        CopyBuffer(b, args->dst_device->device->default_memory()));
  return nullptr;
}

PJRT_Error* OPJ_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_CopyToMemory_Args);
  OPJ_REQUIRE(PJRT_Buffer_CopyToMemory_Args, args, dst_memory);
  if (args->buffer->client->memory_of.find(Impl(args->dst_memory)->memory) == args->buffer->client->memory_of.end())
    return InvalidArgument("PJRT_Buffer_CopyToMemory_Args.dst_memory belongs to another client");
  if (PJRT_Error* e = plugin::RefuseRemote(args->dst_memory, "PJRT_Buffer_CopyToMemory_Args.dst_memory")) return e;
  args->dst_buffer = plugin::WrapBuffer(args->buffer->client, CopyBuffer(b, Impl(args->dst_memory)->memory));
  return nullptr;
}

PJRT_Error* OPJ_Buffer_Bitcast(PJRT_Buffer_Bitcast_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_Bitcast_Args);
  auto shape = plugin::MakeShape(RawEnum(args->element_type), args->dims, args->num_dims, "PJRT_Buffer_Bitcast_Args");
  if (!shape.ok()) return MakeError(shape.status());
  if (shape->token != b->shape().token || (!shape->token && shape->type.ByteSize() != b->on_device_size()))
    return InvalidArgument(StrCat("PJRT_Buffer_Bitcast: ", b->shape().ToString(), " (", b->on_device_size(),
                                  " bytes) cannot become ", shape->ToString()));
  if (b->IsDeleted()) return MakeError(absl::FailedPreconditionError("PJRT_Buffer_Bitcast: the buffer was deleted"));
  BufferRef out = Buffer::CreatePending(b->memory(), *shape);
  auto done = runtime::Event::Create();
  cpu::ArrayType t = shape->type;
  AfterReady(b, [out, t](const cpu::Array& a) {
    out->Fulfil(a.Reshaped(t));
    return absl::OkStatus();
  }, done);
  done->OnReady([out](const absl::Status& s) {
    if (!s.ok()) out->Fail(s);
  });
  args->out_buffer = plugin::WrapBuffer(args->buffer->client, out);
  return nullptr;
}

namespace {
struct DonationDependency {
  runtime::EventRef ready;
};
void DependencyReady(PJRT_Buffer_DonateWithControlDependency_Callback_Args* cb) {
  if (!cb || !cb->callback_data) return;
  std::unique_ptr<DonationDependency> d(static_cast<DonationDependency*>(cb->callback_data));
  if (RawEnum(cb->error_code) == PJRT_Error_Code_OK) d->ready->Set(absl::OkStatus());
  else
    d->ready->Set(absl::Status(plugin::StatusCodeOf(RawEnum(cb->error_code)),
                               cb->error_message ? std::string(cb->error_message, cb->error_message_size) : ""));
}
}  // namespace

PJRT_Error* OPJ_Buffer_DonateWithControlDependency(PJRT_Buffer_DonateWithControlDependency_Args* args) {
  OPJ_BUFFER_ARGS(PJRT_Buffer_DonateWithControlDependency_Args);
  if (b->IsDeleted())
    return MakeError(absl::FailedPreconditionError("PJRT_Buffer_DonateWithControlDependency: the buffer was deleted or donated"));
  BufferRef src = b;
  src->MarkDonated();
  BufferRef out = Buffer::CreatePending(src->memory(), src->shape());
  auto* dep = new DonationDependency{runtime::Event::Create()};
  runtime::WhenAllReady({src->ready_event(), dep->ready}, [src, out](absl::Status s) {
    if (!s.ok()) return (void)out->Fail(s);
    auto a = src->TakeDonated();
    if (!a.ok()) return (void)out->Fail(a.status());
    out->Fulfil(*a);
  });
  args->callback_data = dep;
  args->dependency_ready_callback = DependencyReady;
  args->out_buffer = plugin::WrapBuffer(args->buffer->client, out);
  return nullptr;
}
