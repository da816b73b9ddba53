// Client construction: devices, memories, the pool.
#include "src/runtime/client.h"

#include <algorithm>
#include <thread>
#if defined(__linux__)
#include <sched.h>
#endif

#include "src/support/str.h"

namespace openpjrt::runtime {

Memory::Memory(Device* device, int id, int kind_id, std::string kind)
    : device_(device), id_(id), kind_id_(kind_id), kind_(std::move(kind)) {
  to_string_ = StrCat("MEMORY_SPACE_", id_);
  debug_string_ = StrCat("CpuMemory(id=", id_, ", kind=", kind_, ", device=", device_->id(), ")");
}

void MemoryStats::Add(int64_t bytes) {
  int64_t now = bytes_in_use += bytes;
  ++num_allocs;
  int64_t peak = peak_bytes_in_use.load();
  while (now > peak && !peak_bytes_in_use.compare_exchange_weak(peak, now)) {}
  int64_t largest = largest_alloc_size.load();
  while (bytes > largest && !largest_alloc_size.compare_exchange_weak(largest, bytes)) {}
}

void MemoryStats::Remove(int64_t bytes) {
  bytes_in_use -= bytes;
  if (waiters_.load() != 0) Notify();
}

bool MemoryStats::TryReserve(int64_t bytes, int64_t limit) {
  int64_t r = bytes_reserved.load();
  do {
    if (bytes_in_use.load() + r + bytes > limit) return false;
  } while (!bytes_reserved.compare_exchange_weak(r, r + bytes));
  return true;
}

void MemoryStats::Unreserve(int64_t bytes) {
  bytes_reserved -= bytes;
  if (waiters_.load() != 0) Notify();
}

void MemoryStats::Notify() {
  ++free_epoch_;
  std::lock_guard<std::mutex> lock(mu_);  // a waiter between its check and its sleep holds mu_
  freed_.notify_all();
}

bool MemoryStats::WaitForFree(uint64_t seen, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return freed_.wait_until(lock, deadline, [&] { return free_epoch_.load() != seen; });
}

std::vector<EventRef> Client::SwapStreamTail(int64_t stream, std::vector<EventRef> done) {
  std::lock_guard<std::mutex> lock(streams_mu_);
  std::vector<EventRef>& tail = streams_[stream];
  std::swap(tail, done);
  return done;
}

void MemoryStats::ClearPeaks() {
  peak_bytes_in_use = bytes_in_use.load();
  largest_alloc_size = 0;
  num_allocs = 0;
}

Device::Device(Client* client, int id, int process_index, int local_hardware_id)
    : client_(client), id_(id), process_index_(process_index),
      local_hardware_id_(local_hardware_id) {
  debug_string_ = StrCat("TFRT_CPU_", id_);
  to_string_ = StrCat("CpuDevice(id=", id_, ")");
  const auto& kinds = Client::MemoryKinds();
  for (size_t k = 0; k < kinds.size(); ++k) {
    memories_.push_back(std::make_unique<Memory>(
        this, static_cast<int>(id_ * kinds.size() + k), static_cast<int>(k), kinds[k]));
    memory_ptrs_.push_back(memories_.back().get());
  }
}

const std::vector<std::string>& Client::MemoryKinds() {
  static const std::vector<std::string> kinds = {"device", "pinned_host", "unpinned_host"};
  return kinds;
}

int UsableCores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Client::Client(ClientOptions options) : Client(options, nullptr) {}

Client::Client(ClientOptions options, std::unique_ptr<distributed::Coordinator> coordinator)
    : options_(options), coordinator_(std::move(coordinator)) {
  // One process: its devices carry the process_id option as their process index.
  std::vector<int> per_process = {options_.device_count};
  int first_process = options_.process_id;
  if (coordinator_) {
    per_process = coordinator_->devices_per_process();
    options_.process_id = coordinator_->node_id();
    first_process = 0;
  }
  int id = 0;
  for (int k = 0; k < static_cast<int>(per_process.size()); ++k)
    for (int i = 0; i < per_process[k]; ++i, ++id) {
      const int p = first_process + k;
      const bool mine = p == options_.process_id;
      devices_.push_back(std::make_unique<Device>(this, id, p, mine ? i : -1));
      device_ptrs_.push_back(devices_.back().get());
      if (!mine) continue;
      addressable_ptrs_.push_back(devices_.back().get());
      for (Memory* m : devices_.back()->memories()) memory_ptrs_.push_back(m);
    }
  int threads = options_.intra_op_threads;
  if (threads <= 0) threads = UsableCores();
  pool_ = std::make_unique<ThreadPool>(threads);
  parallel_ = std::make_unique<PoolParallel>(pool_.get(), options_.deterministic, options_.flush_denormals);
  platform_version_ = "openpjrt cpu 0.1.0";
}

// The pool drains queued work before devices and memories go away, while pool() still answers:
// an execution finishing during the drain schedules the executions waiting on its outputs.
Client::~Client() {
  // Cross-host transfers still waiting finish (or time out) before what they fill goes away.
  std::vector<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> blocking;
  {
    std::lock_guard<std::mutex> lock(blocking_mu_);
    blocking.swap(blocking_);
  }
  for (auto& [t, done] : blocking) t.join();
  pool_->Shutdown();
  parallel_.reset();
  pool_.reset();
}

Device* Client::LookupDevice(int id) const {
  if (id < 0 || id >= static_cast<int>(devices_.size())) return nullptr;
  return devices_[id].get();
}

Device* Client::LookupAddressableDevice(int local_hardware_id) const {
  if (local_hardware_id < 0 || local_hardware_id >= static_cast<int>(addressable_ptrs_.size())) return nullptr;
  return addressable_ptrs_[local_hardware_id];
}

}  // namespace openpjrt::runtime
