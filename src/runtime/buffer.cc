// Buffer states: pending -> ready (storage) or failed; any state -> deleted.
#include "src/runtime/buffer.h"

#include "src/support/str.h"

namespace openpjrt::runtime {

Buffer::Buffer(Key, Memory* memory, BufferShape shape, EventRef ready)
    : memory_(memory), shape_(std::move(shape)), ready_(std::move(ready)),
      stats_(memory->device()->stats_ptr()) {}

Buffer::~Buffer() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseLocked();
}

std::shared_ptr<Buffer> Buffer::CreatePending(Memory* memory, BufferShape shape) {
  return std::make_shared<Buffer>(Key(), memory, std::move(shape), Event::Create());
}

std::shared_ptr<Buffer> Buffer::CreateReady(Memory* memory, BufferShape shape, cpu::Array array) {
  auto b = std::make_shared<Buffer>(Key(), memory, std::move(shape), Event::Ready());
  b->array_ = std::move(array);  // not shared yet: no lock needed
  if (!b->shape_.token) {
    b->stats_->Add(b->array_.ByteSize());
    b->counted_ = true;
  }
  return b;
}

std::shared_ptr<Buffer> Buffer::CreateError(Memory* memory, BufferShape shape, absl::Status error) {
  auto b = CreatePending(memory, std::move(shape));
  b->Fail(std::move(error));
  return b;
}

bool Buffer::Fulfil(cpu::Array array) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ready_->IsReady()) return false;
    if (!deleted_ || donated_ || holds_ > 0) {
      array_ = std::move(array);
      if (!shape_.token) {
        stats_->Add(array_.ByteSize());
        counted_ = true;
      }
    }
  }
  return ready_->Set(absl::OkStatus());
}

bool Buffer::Fail(absl::Status error) { return ready_->Set(std::move(error)); }

absl::StatusOr<cpu::Array> Buffer::GetArray() const {
  if (!ready_->IsReady()) return absl::UnavailableError("the buffer is not ready yet");
  if (absl::Status s = ready_->status(); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (deleted_)
    return absl::FailedPreconditionError(
        StrCat("the buffer ", shape_.ToString(), " was deleted or donated"));
  return array_;
}

const uint8_t* Buffer::data() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deleted_ ? nullptr : array_.data();
}

void Buffer::ReleaseLocked() {
  if (counted_) stats_->Remove(array_.ByteSize());
  counted_ = false;
  array_ = cpu::Array();
}

void Buffer::Delete() {
  std::lock_guard<std::mutex> lock(mu_);
  if (donated_) return;  // the execution that took it releases the storage
  deleted_ = true;
  if (holds_ == 0) ReleaseLocked();
}

void Buffer::Hold() {
  std::lock_guard<std::mutex> lock(mu_);
  ++holds_;
}

absl::StatusOr<cpu::Array> Buffer::TakeHeld() {
  absl::Status s = ready_->status();
  std::lock_guard<std::mutex> lock(mu_);
  cpu::Array a = array_;
  if (--holds_ == 0 && deleted_ && !donated_) ReleaseLocked();
  if (!s.ok()) return s;
  return a;
}

void Buffer::MarkDonated() {
  std::lock_guard<std::mutex> lock(mu_);
  deleted_ = true;
  donated_ = true;
}

absl::StatusOr<cpu::Array> Buffer::TakeDonated() {
  if (absl::Status s = ready_->status(); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (!donated_) return absl::FailedPreconditionError("the buffer was not donated");
  cpu::Array a = array_;
  ReleaseLocked();
  donated_ = false;
  return a;
}

bool Buffer::IsDeleted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deleted_;
}

void Buffer::IncreaseExternalRefs() {
  std::lock_guard<std::mutex> lock(mu_);
  ++external_refs_;
}

absl::Status Buffer::DecreaseExternalRefs() {
  std::lock_guard<std::mutex> lock(mu_);
  if (external_refs_ == 0)
    return absl::FailedPreconditionError(
        "PJRT_Buffer_DecreaseExternalReferenceCount: the external reference count is already 0");
  --external_refs_;
  return absl::OkStatus();
}

int Buffer::external_refs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return external_refs_;
}

}  // namespace openpjrt::runtime
