// Host send/recv callbacks (PJRT_ExecuteOptions.send_callbacks / recv_callbacks) and the
// copy-to-device streams a recv callback fills. stablehlo.send with is_host_transfer hands its
// array to the send callback of its channel as one chunk; stablehlo.recv creates a stream of the
// result's size, gives it to the recv callback, and waits until the host has added every byte
// (or destroyed the stream, which fails the execution).
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>

#include "src/plugin/slots.h"
#include "src/support/str.h"

namespace {

using openpjrt::StrCat;
using openpjrt::plugin::InvalidArgument;

struct StreamState {
  std::mutex mu;
  std::condition_variable cv;
  int64_t total = 0;
  std::string data;
  bool abandoned = false;
};

void FreeChunk(void* data, void*) { std::free(data); }

// Errors the host's callbacks create for us to report (PJRT_CallbackError).
PJRT_Error* CallbackError(PJRT_Error_Code code, const char* message, size_t message_size) {
  return openpjrt::plugin::MakeError(
      absl::Status(openpjrt::plugin::StatusCodeOf(openpjrt::plugin::RawEnum(code)), std::string(message ? message : "", message ? message_size : 0)));
}

}  // namespace

namespace openpjrt::plugin {

PJRT_CallbackError kCallbackError = &CallbackError;

absl::Status TakeError(PJRT_Error* e) {
  if (!e) return absl::OkStatus();
  absl::Status s = Impl(e)->status;
  delete Impl(e);
  return s;
}

}  // namespace openpjrt::plugin

struct PJRT_CopyToDeviceStream {
  std::shared_ptr<StreamState> state;
};

namespace openpjrt::plugin {

class CallbackHost : public cpu::HostTransfers {
 public:
  CallbackHost(std::map<int64_t, PJRT_SendCallbackInfo> sends, std::map<int64_t, PJRT_RecvCallbackInfo> recvs)
      : sends_(std::move(sends)), recvs_(std::move(recvs)) {}

  absl::Status Send(int64_t channel, const cpu::Array& data) override {
    auto it = sends_.find(channel);
    if (it == sends_.end())
      return absl::FailedPreconditionError(StrCat("stablehlo.send to the host on channel ", channel,
                                                  ": no send callback has that channel_id"));
    const size_t n = static_cast<size_t>(data.ByteSize());
    void* copy = std::malloc(n ? n : 1);
    if (!copy) return absl::ResourceExhaustedError("out of host memory for a send chunk");
    if (n) std::memcpy(copy, data.data(), n);
    PJRT_Chunk chunk{copy, n, &FreeChunk, nullptr};  // the callback owns it from here
    absl::Status s = TakeError(it->second.send_callback(&chunk, &kCallbackError, n, true, it->second.user_arg));
    if (!s.ok()) return absl::Status(s.code(), StrCat("send callback for channel ", channel, ": ", s.message()));
    return absl::OkStatus();
  }

  absl::StatusOr<cpu::Array> Recv(int64_t channel, const cpu::ArrayType& type) override {
    auto it = recvs_.find(channel);
    if (it == recvs_.end())
      return absl::FailedPreconditionError(StrCat("stablehlo.recv from the host on channel ", channel,
                                                  ": no recv callback has that channel_id"));
    auto state = std::make_shared<StreamState>();
    state->total = type.ByteSize();
    it->second.recv_callback(new PJRT_CopyToDeviceStream{state}, it->second.user_arg);
    std::unique_lock<std::mutex> lock(state->mu);
    state->cv.wait(lock, [&] {
      return static_cast<int64_t>(state->data.size()) == state->total || state->abandoned;
    });
    if (static_cast<int64_t>(state->data.size()) != state->total)
      return absl::FailedPreconditionError(StrCat("recv on channel ", channel, ": the host destroyed the stream after ",
                                                  state->data.size(), " of ", state->total, " bytes"));
    cpu::Array a = cpu::Array::Allocate(type);
    if (state->total) std::memcpy(a.mutable_data(), state->data.data(), state->data.size());
    return a;
  }

 private:
  std::map<int64_t, PJRT_SendCallbackInfo> sends_;
  std::map<int64_t, PJRT_RecvCallbackInfo> recvs_;
};

absl::Status HostTransfersFromOptions(const PJRT_ExecuteOptions& o, size_t num_devices,
                                      std::vector<std::shared_ptr<cpu::HostTransfers>>* out) {
  const bool sends = o.num_send_ops > 0, recvs = o.num_recv_ops > 0;
  if (!sends && !recvs) return absl::OkStatus();
  if (sends && !o.send_callbacks)
    return absl::InvalidArgumentError("PJRT_ExecuteOptions.send_callbacks is null but num_send_ops is set");
  if (recvs && !o.recv_callbacks)
    return absl::InvalidArgumentError("PJRT_ExecuteOptions.recv_callbacks is null but num_recv_ops is set");
  for (size_t d = 0; d < num_devices; ++d) {
    std::map<int64_t, PJRT_SendCallbackInfo> s;
    std::map<int64_t, PJRT_RecvCallbackInfo> r;
    for (size_t i = 0; sends && i < o.num_send_ops; ++i) {
      if (!o.send_callbacks[d] || !o.send_callbacks[d][i].send_callback)
        return absl::InvalidArgumentError(StrCat("PJRT_ExecuteOptions.send_callbacks[", d, "][", i, "] is null"));
      s[o.send_callbacks[d][i].channel_id] = o.send_callbacks[d][i];
    }
    for (size_t i = 0; recvs && i < o.num_recv_ops; ++i) {
      if (!o.recv_callbacks[d] || !o.recv_callbacks[d][i].recv_callback)
        return absl::InvalidArgumentError(StrCat("PJRT_ExecuteOptions.recv_callbacks[", d, "][", i, "] is null"));
      r[o.recv_callbacks[d][i].channel_id] = o.recv_callbacks[d][i];
    }
    out->push_back(std::make_shared<CallbackHost>(std::move(s), std::move(r)));
  }
  return absl::OkStatus();
}

}  // namespace openpjrt::plugin

// ------------------------------------------------------------------ copy-to-device streams

#define OPJ_STREAM_ARGS(Type)      \
  OPJ_CHECK_ARGS(Type, args);      \
  OPJ_REQUIRE(Type, args, stream); \
  StreamState& s = *args->stream->state

PJRT_Error* OPJ_CopyToDeviceStream_Destroy(PJRT_CopyToDeviceStream_Destroy_Args* args) {
  OPJ_CHECK_ARGS(PJRT_CopyToDeviceStream_Destroy_Args, args);
  if (!args->stream) return nullptr;
  {
    std::lock_guard<std::mutex> lock(args->stream->state->mu);
    args->stream->state->abandoned = true;  // a waiting recv with missing bytes fails
  }
  args->stream->state->cv.notify_all();
  delete args->stream;
  return nullptr;
}

PJRT_Error* OPJ_CopyToDeviceStream_AddChunk(PJRT_CopyToDeviceStream_AddChunk_Args* args) {
  OPJ_STREAM_ARGS(PJRT_CopyToDeviceStream_AddChunk_Args);
  OPJ_REQUIRE(PJRT_CopyToDeviceStream_AddChunk_Args, args, chunk);
  PJRT_Chunk chunk = *args->chunk;  // ownership is ours: free it on every path
  struct Release {
    PJRT_Chunk& c;
    ~Release() {
      if (c.deleter) c.deleter(c.data, c.deleter_arg);
    }
  } release{chunk};
  if (chunk.size && !chunk.data) return InvalidArgument("PJRT_CopyToDeviceStream_AddChunk_Args.chunk->data is null");
  {
    std::lock_guard<std::mutex> lock(s.mu);
    const int64_t have = static_cast<int64_t>(s.data.size());
    if (have + static_cast<int64_t>(chunk.size) > s.total)
      return InvalidArgument(StrCat("PJRT_CopyToDeviceStream_AddChunk: a ", chunk.size, "-byte chunk after ", have,
                                    " bytes overflows the stream's ", s.total, " bytes"));
    s.data.append(static_cast<const char*>(chunk.data), chunk.size);
  }
  s.cv.notify_all();
  args->transfer_complete = openpjrt::plugin::WrapEvent(openpjrt::runtime::Event::Ready());
  return nullptr;
}

PJRT_Error* OPJ_CopyToDeviceStream_TotalBytes(PJRT_CopyToDeviceStream_TotalBytes_Args* args) {
  OPJ_STREAM_ARGS(PJRT_CopyToDeviceStream_TotalBytes_Args);
  args->total_bytes = s.total;
  return nullptr;
}

PJRT_Error* OPJ_CopyToDeviceStream_GranuleSize(PJRT_CopyToDeviceStream_GranuleSize_Args* args) {
  OPJ_STREAM_ARGS(PJRT_CopyToDeviceStream_GranuleSize_Args);
  (void)s;
  args->granule_size_in_bytes = 1;  // any chunk size; the host may split the bytes as it likes
  return nullptr;
}

PJRT_Error* OPJ_CopyToDeviceStream_CurrentBytes(PJRT_CopyToDeviceStream_CurrentBytes_Args* args) {
  OPJ_STREAM_ARGS(PJRT_CopyToDeviceStream_CurrentBytes_Args);
  std::lock_guard<std::mutex> lock(s.mu);
  args->current_bytes = static_cast<int64_t>(s.data.size());
  return nullptr;
}
