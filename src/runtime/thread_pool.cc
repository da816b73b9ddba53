// The worker loop.
#include "src/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include <pthread.h>

#include "src/cpu/exec/float_env.h"
#include "src/runtime/spin.h"

namespace openpjrt::runtime {

ThreadPool::ThreadPool(int num_threads) : size_(std::max(num_threads, 1)) {
  workers_.reserve(static_cast<size_t>(size_));
  for (int i = 0; i < size_; ++i)
    workers_.emplace_back([this, i] {
      // Named for top, perf and /proc/<pid>/task/*/comm (at most 15 characters).
      const std::string name = "openpjrt-w" + std::to_string(i);
      pthread_setname_np(pthread_self(), name.c_str());
      Work();
    });
}

void ThreadPool::Shutdown() {
  if (joined_.load()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    stopping_flag_.store(true);
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  {
    std::lock_guard<std::mutex> lock(mu_);
    joined_.store(true);
  }
  // What a worker queued as the last ones left (a task scheduling its successor) runs here.
  while (true) {
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (queue_.empty()) break;
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    task();
  }
}

ThreadPool::~ThreadPool() { Shutdown(); }

void ThreadPool::Schedule(std::function<void()> task) {
  if (joined_.load(std::memory_order_acquire)) {
    task();  // no workers any more
    return;
  }
  int64_t queued;
  {
    LockPolling(mu_);
    std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
    if (joined_.load(std::memory_order_relaxed)) {  // the workers left while this call came in
      lock.unlock();
      task();
      return;
    }
    queue_.push_back(std::move(task));
    queued = queued_.fetch_add(1, std::memory_order_release) + 1;
  }
  // A polling worker takes the task without a wake-up; wake a sleeper only for tasks that the
  // pollers cannot all take.
  if (queued > spinners_.load(std::memory_order_acquire)) cv_.notify_one();
}

namespace {
thread_local const ThreadPool* tls_worker_of = nullptr;  // the pool whose worker this thread is
}  // namespace

void ThreadPool::EnterCaller() {
  if (tls_worker_of != this) busy_.fetch_add(1, std::memory_order_acq_rel);
}

void ThreadPool::LeaveCaller() {
  if (tls_worker_of != this) busy_.fetch_sub(1, std::memory_order_acq_rel);
}

// How long the idle worker, and a forking caller waiting for its helpers, poll before they
// sleep: longer than other waits, because the threads of a large product finish up to a few
// hundred microseconds apart on this VM's unevenly fast cores, and whichever waited longer than
// it polled was woken late: a helper that slept started the next call's share 50-225 us into the
// call (1024^3 at 2 threads; 2-4 us with 1 ms of polling), and a caller that slept returned
// 20-66 us after the last helper finished.
constexpr auto kForkSpin = std::chrono::microseconds(1000);
// The idle worker polls longer still: a kernel whose parallel sections sit between serial ones
// of a millisecond or two (eigh's tridiagonal reduction, then its divide and conquer and back
// transformation over the threads) found its helper asleep at each section after 1 ms of
// polling, and on this VM a sleeping vCPU woke late: JAX's eigh of 256 at 2 threads took 2.6-4.2
// ms a call in rounds beside XLA:CPU's (its idle periods let the vCPU sleep), 2.6-2.7 ms with 3
// ms of polling. Only one worker polls, and only while a core is free of the computing threads.
constexpr auto kIdlePoll = std::chrono::microseconds(3000);

void ThreadPool::Work() {
  tls_worker_of = this;
  // Runs a task, counted as busy.
  auto run = [this](std::function<void()>& task) {
    busy_.fetch_add(1, std::memory_order_acq_rel);
    task();
    busy_.fetch_sub(1, std::memory_order_acq_rel);
  };
  for (;;) {
    std::function<void()> task;
    // At most one idle worker polls, and only while fewer threads than the pool has workers
    // are computing: on a machine with as many cores as workers, a poller beside them would
    // take a core from the threads doing the work (the caller of an inline run and its helpers:
    // a 3x3 convolution at 2 threads spent 3% of its time in this loop).
    int expected = 0;
    if (busy_.load(std::memory_order_acquire) < size() &&
        spinners_.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
      const bool seen = SpinUntil(
          [&] {
            return queued_.load(std::memory_order_acquire) > 0 || stopping_flag_.load() ||
                   busy_.load(std::memory_order_acquire) >= size();
          },
          kIdlePoll);
      bool took = false;
      {
        LockPolling(mu_);
        std::lock_guard<std::mutex> lock(mu_, std::adopt_lock);
        spinners_.store(0, std::memory_order_release);
        if (seen && !queue_.empty()) {
          task = std::move(queue_.front());
          queue_.pop_front();
          queued_.fetch_sub(1, std::memory_order_relaxed);
          took = true;
        }
      }
      if (took) {
        run(task);
        continue;
      }
    }
    {
      LockPolling(mu_);
      std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    run(task);
  }
}

void PoolParallel::For(int64_t n, cpu::PieceFn fn) {
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    std::mutex mu;
    std::condition_variable cv;
    std::exception_ptr failure;  // the first exception a piece threw (under mu)
  };
  auto shared = std::make_shared<Shared>();
  // A helper that starts after every piece is taken returns without touching fn (which lives on
  // the caller's stack only until the last piece finishes).
  // A piece that throws (a kernel's allocation failing: std::bad_alloc) still counts as done:
  // the exception is kept and thrown on the caller once every piece has finished, where the
  // executable turns it into an error. (Escaping a worker it would end the process; escaping
  // the caller's own piece it would leave the helpers running pieces of a gone fn.)
  auto work = [shared, n, &fn] {
    for (;;) {
      const int64_t i = shared->next.fetch_add(1);
      if (i >= n) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(shared->mu);
        if (!shared->failure) shared->failure = std::current_exception();
      }
      if (shared->done.fetch_add(1) + 1 == n) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->cv.notify_all();
      }
    }
  };
  const int64_t helpers = std::min<int64_t>(n, pool_->size()) - 1;
  // The caller computes (then polls for the helpers) on a core of its own until they finish.
  struct Busy {
    ThreadPool* pool;
    explicit Busy(ThreadPool* p) : pool(p) { pool->EnterCaller(); }
    ~Busy() { pool->LeaveCaller(); }
  } busy(pool_);
  // Helpers compute in the caller's floating-point mode (the caller's was set by its execution).
  const bool flush = flush_denormals_;
  for (int64_t h = 0; h < helpers; ++h)
    pool_->Schedule([work, flush] {
      const cpu::ScopedFlushDenormals float_env(flush);
      work();
    });
  work();
  if (!SpinUntil([&] { return shared->done.load() == n; }, kForkSpin)) {
    std::unique_lock<std::mutex> lock(shared->mu);
    shared->cv.wait(lock, [&] { return shared->done.load() == n; });
  }
  std::exception_ptr failure;
  {
    std::lock_guard<std::mutex> lock(shared->mu);
    failure = shared->failure;
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace openpjrt::runtime
