// Cross-host transfers between clients of different processes (runtime::Client::SendToRemote,
// ReceiveFromRemote), over the distributed coordinator's Gloo meshes.
#include <memory>
#include <utility>

#include "src/runtime/buffer.h"
#include "src/runtime/client.h"
#include "src/support/str.h"

namespace openpjrt::runtime {

absl::StatusOr<int> Client::RemoteProcessOf(int id, const char* what) const {
  if (!coordinator_)
    return absl::FailedPreconditionError(StrCat(
        "cross-host transfers need a client spanning processes (create options node_id and num_nodes with the "
        "key-value store callbacks); this client has one process"));
  const Device* d = LookupDevice(id);
  if (!d)
    return absl::InvalidArgumentError(StrCat(what, " ", id, " is not a device of this client (it has ",
                                             devices_.size(), ")"));
  if (d->addressable())
    return absl::InvalidArgumentError(StrCat(what, " ", id, " is a device of this process; a cross-host transfer "
                                             "names another process's device"));
  return d->process_index();
}

void Client::RunBlocking(std::function<void()> work) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard<std::mutex> lock(blocking_mu_);
  // Threads that finished are joined here, so the list holds only running ones (and a few done).
  std::erase_if(blocking_, [](auto& entry) {
    if (!entry.second->load()) return false;
    entry.first.join();
    return true;
  });
  blocking_.emplace_back(std::thread([work = std::move(work), done] {
    work();
    done->store(true);
  }), done);
}

absl::StatusOr<EventRef> Client::SendToRemote(const std::shared_ptr<Buffer>& buffer, int dst_device, uint64_t key) {
  absl::StatusOr<int> to = RemoteProcessOf(dst_device, "destination device");
  if (!to.ok()) return to.status();
  if (buffer->shape().token) return absl::InvalidArgumentError("a token buffer holds no data to send");
  EventRef sent = Event::Create();
  distributed::Coordinator* coordinator = coordinator_.get();
  const int peer = *to;
  buffer->ready_event()->OnReady([this, buffer, coordinator, peer, key, sent](absl::Status ready) {
    if (!ready.ok()) {
      sent->Set(absl::Status(ready.code(), StrCat("cross-host send of transfer ", key, ": ", ready.message())));
      return;
    }
    RunBlocking([buffer, coordinator, peer, key, sent] {
      absl::StatusOr<cpu::Array> a = buffer->GetArray();
      if (!a.ok()) {
        sent->Set(a.status());
        return;
      }
      auto owner = std::make_shared<cpu::Array>(*a);
      sent->Set(coordinator->SendTo(peer, key, owner->data(), static_cast<size_t>(owner->ByteSize()), owner));
    });
  });
  return sent;
}

absl::StatusOr<std::shared_ptr<Buffer>> Client::ReceiveFromRemote(Memory* memory, const BufferShape& shape,
                                                                  int src_device, uint64_t key) {
  absl::StatusOr<int> from = RemoteProcessOf(src_device, "source device");
  if (!from.ok()) return from.status();
  if (shape.token) return absl::InvalidArgumentError("a token buffer cannot be received");
  std::shared_ptr<Buffer> b = Buffer::CreatePending(memory, shape);
  distributed::Coordinator* coordinator = coordinator_.get();
  const int peer = *from;
  RunBlocking([b, shape, coordinator, peer, key] {
    cpu::Array a;
    try {
      a = cpu::Array::Allocate(shape.type);
    } catch (const std::bad_alloc&) {
      b->Fail(absl::ResourceExhaustedError(StrCat("no memory for the ", shape.ToString(), " of transfer ", key)));
      return;
    }
    auto owner = std::make_shared<cpu::Array>(a);
    absl::Status s = coordinator->ReceiveFrom(peer, key, owner->mutable_data(), static_cast<size_t>(owner->ByteSize()), owner);
    if (s.ok()) b->Fulfil(std::move(a));
    else b->Fail(s);
  });
  return b;
}

}  // namespace openpjrt::runtime
