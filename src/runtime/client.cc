// Client construction: devices, memories, the pool.
#include "src/runtime/client.h"

#include <algorithm>
#include <thread>

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

void MemoryStats::ClearPeaks() {
  peak_bytes_in_use = bytes_in_use.load();
  largest_alloc_size = 0;
  num_allocs = 0;
}

Device::Device(Client* client, int id) : client_(client), id_(id) {
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

Client::Client(ClientOptions options) : options_(options) {
  for (int i = 0; i < options_.device_count; ++i) {
    devices_.push_back(std::make_unique<Device>(this, i));
    device_ptrs_.push_back(devices_.back().get());
    for (Memory* m : devices_.back()->memories()) memory_ptrs_.push_back(m);
  }
  int threads = options_.intra_op_threads;
  if (threads <= 0) threads = std::max(1u, std::thread::hardware_concurrency());
  pool_ = std::make_unique<ThreadPool>(threads);
  parallel_ = std::make_unique<PoolParallel>(pool_.get(), options_.deterministic);
  platform_version_ = "openpjrt cpu 0.1.0";
}

// The pool's destructor drains queued work before devices and memories go away.
Client::~Client() {
  pool_.reset();
  parallel_.reset();
}

Device* Client::LookupDevice(int id) const {
  if (id < 0 || id >= static_cast<int>(devices_.size())) return nullptr;
  return devices_[id].get();
}

}  // namespace openpjrt::runtime
