// A device buffer: a shape, a memory, a definition event, and (once the event fires without
// error) immutable array storage. Buffers are shared between their C handle and the executions
// and copies that read them; Delete drops the storage as soon as no pending work holds it.
#pragma once

#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "src/cpu/exec/array.h"
#include "src/runtime/client.h"
#include "src/runtime/event.h"

namespace openpjrt::runtime {

struct BufferShape {
  cpu::ArrayType type;
  bool token = false;  // a !stablehlo.token (no storage)
  bool operator==(const BufferShape&) const = default;
  std::string ToString() const { return token ? "!stablehlo.token" : type.ToString(); }
};

class Buffer {
 public:
  // A buffer whose contents arrive later through Fulfil or Fail.
  static std::shared_ptr<Buffer> CreatePending(Memory* memory, BufferShape shape);
  // A ready buffer over `array` (whose type must be shape.type).
  static std::shared_ptr<Buffer> CreateReady(Memory* memory, BufferShape shape, cpu::Array array);
  // A buffer that fails with `error` (never has storage).
  static std::shared_ptr<Buffer> CreateError(Memory* memory, BufferShape shape, absl::Status error);
  ~Buffer();

  const BufferShape& shape() const { return shape_; }
  Memory* memory() const { return memory_; }
  Device* device() const { return memory_->device(); }
  const EventRef& ready_event() const { return ready_; }
  int64_t on_device_size() const { return shape_.token ? 0 : shape_.type.ByteSize(); }

  // Supplies the storage and fires the ready event. False if the buffer was already defined.
  bool Fulfil(cpu::Array array);
  bool Fail(absl::Status error);

  // The storage of a ready buffer; FAILED_PRECONDITION once deleted, the definition error if
  // it failed, UNAVAILABLE while pending.
  absl::StatusOr<cpu::Array> GetArray() const;
  // The storage's address, or null while pending, after deletion or for empty arrays.
  const uint8_t* data() const;

  // Deletion marks the buffer at once but keeps the storage while executions hold it.
  void Delete();
  bool IsDeleted() const;
  // An execution that will read the buffer holds it from submission until it takes the array.
  void Hold();
  absl::StatusOr<cpu::Array> TakeHeld();
  // Hands the storage to an execution: the buffer reads as deleted from now on, but the storage
  // (present or still to come) is kept for TakeDonated.
  void MarkDonated();
  absl::StatusOr<cpu::Array> TakeDonated();

  // External references (DLPack and the like) pin the storage.
  void IncreaseExternalRefs();
  absl::Status DecreaseExternalRefs();
  int external_refs() const;

  // Only the Create* functions can make the key (so buffers are always shared), while the
  // constructor stays public for std::make_shared (one allocation for buffer and count).
  class Key {
    friend class Buffer;
    Key() = default;
  };
  Buffer(Key, Memory* memory, BufferShape shape, EventRef ready);

 private:
  void ReleaseLocked();

  Memory* memory_;
  BufferShape shape_;
  EventRef ready_;
  std::shared_ptr<MemoryStats> stats_;
  mutable std::mutex mu_;
  cpu::Array array_;
  bool counted_ = false;  // array_ is included in the device's bytes_in_use
  bool deleted_ = false;
  bool donated_ = false;
  int external_refs_ = 0;
  int holds_ = 0;
};

using BufferRef = std::shared_ptr<Buffer>;

}  // namespace openpjrt::runtime
