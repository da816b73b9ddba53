// Completion events: a one-shot status that becomes ready once. Shared (reference-counted)
// between producers, consumers and the C handles that expose them, so a callback registered
// with OnReady outlives every handle that pointed at the event.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"

namespace openpjrt::runtime {

class Event {
 public:
  using Callback = std::function<void(const absl::Status&)>;

  static std::shared_ptr<Event> Create() { return std::make_shared<Event>(); }
  // An event that is already complete. Every OK one is the same shared event (nothing can
  // change a complete event, and this spares an allocation per ready buffer).
  static std::shared_ptr<Event> Ready(absl::Status status = absl::OkStatus());

  // Completes the event; the first call wins and later calls return false. Callbacks run on the
  // calling thread, after the lock is released.
  bool Set(absl::Status status);
  bool IsReady() const;
  // Blocks until ready and returns the status.
  absl::Status Await() const;
  // The status of a ready event (OK while pending).
  absl::Status status() const;
  // Runs `cb` once ready: at once on this thread if it already is, else on the setter's thread.
  void OnReady(Callback cb);

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool ready_ = false;
  std::atomic<bool> ready_flag_{false};  // ready_, for polling without the lock
  absl::Status status_;
  std::vector<Callback> callbacks_;
};

using EventRef = std::shared_ptr<Event>;

// Calls `done` once every event is ready, with the first error among them (or OK). Runs `done`
// at once when all are ready already.
void WhenAllReady(const std::vector<EventRef>& events, std::function<void(absl::Status)> done);

}  // namespace openpjrt::runtime
