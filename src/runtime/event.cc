// Events and the all-ready combinator.
#include "src/runtime/event.h"

#include <atomic>

#include "src/runtime/spin.h"

namespace openpjrt::runtime {

std::shared_ptr<Event> Event::Ready(absl::Status status) {
  if (status.ok()) {
    static const std::shared_ptr<Event>* const ok = [] {
      auto* e = new std::shared_ptr<Event>(Create());
      (*e)->Set(absl::OkStatus());
      return e;
    }();
    return *ok;
  }
  auto e = Create();
  e->Set(std::move(status));
  return e;
}

bool Event::Set(absl::Status status) {
  std::vector<Callback> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ready_) return false;
    ready_ = true;
    status_ = std::move(status);
    ready_flag_.store(true, std::memory_order_release);
    callbacks.swap(callbacks_);
  }
  cv_.notify_all();
  for (Callback& cb : callbacks) cb(status_);
  return true;
}

bool Event::IsReady() const { return ready_flag_.load(std::memory_order_acquire); }

absl::Status Event::Await() const {
  if (ready_flag_.load(std::memory_order_acquire)) return status_;  // never changes once ready
  SpinUntil([&] { return ready_flag_.load(std::memory_order_acquire); });
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return ready_; });
  return status_;
}

absl::Status Event::status() const {
  if (ready_flag_.load(std::memory_order_acquire)) return status_;
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void Event::OnReady(Callback cb) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ready_) {
      callbacks_.push_back(std::move(cb));
      return;
    }
  }
  cb(status_);  // status_ never changes once ready
}

void WhenAllReady(const std::vector<EventRef>& events, std::function<void(absl::Status)> done) {
  struct Join {
    std::atomic<size_t> pending;
    std::mutex mu;
    absl::Status first_error;
    std::function<void(absl::Status)> done;
  };
  auto join = std::make_shared<Join>();
  join->pending = events.size() + 1;  // +1 held until every callback is registered
  join->done = std::move(done);
  auto arrive = [join](const absl::Status& s) {
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(join->mu);
      if (join->first_error.ok()) join->first_error = s;
    }
    if (join->pending.fetch_sub(1) == 1) {
      absl::Status err;
      {
        std::lock_guard<std::mutex> lock(join->mu);
        err = join->first_error;
      }
      join->done(err);
    }
  };
  for (const EventRef& e : events) e->OnReady(arrive);
  arrive(absl::OkStatus());
}

}  // namespace openpjrt::runtime
