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

// Keys of the descriptor-based transfers (NewTransferKey) have bit 58 set; the keys callers
// give CrossHostSendBuffers are used below it (the transport keeps 59 bits of a key).
constexpr uint64_t kAnnouncedKeyBit = uint64_t{1} << 58;

absl::StatusOr<EventRef> Client::SendToRemote(const std::shared_ptr<Buffer>& buffer, int dst_device, uint64_t key) {
  absl::StatusOr<int> to = RemoteProcessOf(dst_device, "destination device");
  if (!to.ok()) return to.status();
  return SendWhenReady(buffer, *to, key & (kAnnouncedKeyBit - 1), false);
}

absl::StatusOr<EventRef> Client::SendAnnounced(const std::shared_ptr<Buffer>& buffer, int dst_process, uint64_t key) {
  if (!coordinator_) return RemoteProcessOf(-1, "").status();
  if (dst_process < 0 || dst_process >= coordinator_->num_nodes() || dst_process == coordinator_->node_id())
    return absl::InvalidArgumentError(StrCat("the receiver is process ", dst_process, "; this is process ",
                                             coordinator_->node_id(), " of ", coordinator_->num_nodes()));
  return SendWhenReady(buffer, dst_process, key, true);
}

absl::StatusOr<EventRef> Client::SendWhenReady(const std::shared_ptr<Buffer>& buffer, int peer, uint64_t key,
                                               bool announce) {
  if (buffer->shape().token) return absl::InvalidArgumentError("a token buffer holds no data to send");
  EventRef sent = Event::Create();
  distributed::Coordinator* coordinator = coordinator_.get();
  buffer->ready_event()->OnReady([this, buffer, coordinator, peer, key, sent, announce](absl::Status ready) {
    if (!ready.ok()) {
      sent->Set(absl::Status(ready.code(), StrCat("cross-host send of transfer ", key, ": ", ready.message())));
      return;
    }
    RunBlocking([buffer, coordinator, peer, key, sent, announce] {
      absl::StatusOr<cpu::Array> a = buffer->GetArray();
      if (!a.ok()) {
        sent->Set(a.status());
        return;
      }
      if (announce) {
        if (absl::Status s = coordinator->AnnounceSender(peer, key); !s.ok()) {
          sent->Set(absl::Status(s.code(), StrCat("announcing transfer ", key, " in the key-value store: ", s.message())));
          return;
        }
      }
      auto owner = std::make_shared<cpu::Array>(*a);
      sent->Set(coordinator->SendTo(peer, key, owner->data(), static_cast<size_t>(owner->ByteSize()), owner));
    });
  });
  return sent;
}

struct Client::PendingReceive {
  std::shared_ptr<Buffer> buffer;
  std::atomic<bool> cancelled{false};
};

uint64_t Client::NewTransferKey() { return kAnnouncedKeyBit | next_transfer_key_.fetch_add(1); }

absl::StatusOr<std::shared_ptr<Buffer>> Client::ReceiveAnnounced(Memory* memory, const BufferShape& shape,
                                                                 uint64_t key) {
  if (!coordinator_) return RemoteProcessOf(-1, "").status();
  if (shape.token) return absl::InvalidArgumentError("a token buffer cannot be received");
  auto pending = std::make_shared<PendingReceive>();
  pending->buffer = Buffer::CreatePending(memory, shape);
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    pending_receives_[key] = pending;
  }
  distributed::Coordinator* coordinator = coordinator_.get();
  RunBlocking([this, pending, shape, coordinator, key] {
    auto finish = [&](absl::Status s, cpu::Array* a) {
      {
        std::lock_guard<std::mutex> lock(pending_mu_);
        pending_receives_.erase(key);
      }
      if (s.ok()) pending->buffer->Fulfil(std::move(*a));
      else pending->buffer->Fail(s);
    };
    // Waits for the sender's announcement in slices, so that a cancellation ends the wait soon.
    const int total_ms = coordinator->timeout_ms();
    absl::StatusOr<int> sender = absl::DeadlineExceededError("");
    for (int waited = 0; !pending->cancelled.load(); waited += 100) {
      sender = coordinator->AwaitSender(key, 100);
      if (sender.ok() || sender.status().code() != absl::StatusCode::kDeadlineExceeded || waited >= total_ms) break;
    }
    if (pending->cancelled.load()) return finish(absl::CancelledError("cancelled"), nullptr);  // (already failed)
    if (!sender.ok())
      return finish(absl::Status(sender.status().code(),
                                 StrCat("cross-host transfer ", key, ": no process announced itself as the sender within ",
                                        total_ms, " ms: ", sender.status().message())),
                    nullptr);
    cpu::Array a;
    try {
      a = cpu::Array::Allocate(shape.type);
    } catch (const std::bad_alloc&) {
      return finish(absl::ResourceExhaustedError(StrCat("no memory for the ", shape.ToString(), " of transfer ", key)),
                    nullptr);
    }
    auto owner = std::make_shared<cpu::Array>(a);
    absl::Status s =
        coordinator->ReceiveFrom(*sender, key, owner->mutable_data(), static_cast<size_t>(owner->ByteSize()), owner);
    finish(s, &a);
  });
  return pending->buffer;
}

bool Client::CancelReceive(uint64_t key, const absl::Status& why) {
  std::shared_ptr<PendingReceive> pending;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    auto it = pending_receives_.find(key);
    if (it == pending_receives_.end()) return false;
    pending = it->second;
  }
  pending->cancelled.store(true);
  // A receive already moving bytes completes into a buffer that has failed (Fulfil is ignored).
  return pending->buffer->Fail(why);
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
