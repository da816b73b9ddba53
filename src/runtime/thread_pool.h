// A fixed pool of worker threads running queued tasks in FIFO order. The client owns one; work
// that waits on other work is chained through events, never by blocking a worker (an intra-op
// ParallelFor waits only for pieces already running).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "src/cpu/exec/program.h"

namespace openpjrt::runtime {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  // Runs every queued task (and the tasks they schedule), then joins the workers. A task
  // scheduled after that runs at once on the scheduling thread.
  void Shutdown();
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> task);
  int size() const { return size_; }
  // A thread outside the pool computing alongside its workers (the caller of an intra-op loop)
  // counts as busy between these calls; calls from the pool's own workers are ignored.
  void EnterCaller();
  void LeaveCaller();

 private:
  void Work();

  const int size_;  // set before the workers start (they read it)
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::atomic<int64_t> queued_{0};  // queue_.size(), readable without the lock (for polling)
  std::atomic<int> spinners_{0};    // idle workers polling queued_ (at most one)
  std::atomic<int> busy_{0};        // workers running a task, plus callers computing with them
  bool stopping_ = false;
  std::atomic<bool> stopping_flag_{false};
  std::atomic<bool> joined_{false};
  std::vector<std::thread> workers_;
};

// Intra-op pieces on a ThreadPool: helpers are scheduled as ordinary tasks and take pieces from a
// shared counter alongside the calling thread.
class PoolParallel : public cpu::Parallel {
 public:
  PoolParallel(ThreadPool* pool, bool deterministic, bool flush_denormals = false)
      : pool_(pool), deterministic_(deterministic), flush_denormals_(flush_denormals) {}
  int threads() const override { return pool_->size(); }
  bool deterministic() const override { return deterministic_; }
  bool flush_denormals() const override { return flush_denormals_; }
  // An exception from a piece (std::bad_alloc) is thrown here once every piece has finished.
  void For(int64_t n, cpu::PieceFn fn) override;

 private:
  ThreadPool* pool_;
  bool deterministic_;
  bool flush_denormals_;
};

}  // namespace openpjrt::runtime
