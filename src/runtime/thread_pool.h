// A fixed pool of worker threads running queued tasks in FIFO order. The client owns one; work
// that waits on other work is chained through events, never by blocking a worker.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace openpjrt::runtime {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  // Runs every queued task, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> task);
  int size() const { return static_cast<int>(workers_.size()); }

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace openpjrt::runtime
