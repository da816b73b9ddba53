// The pool of freed large blocks behind Array::Allocate (array.cc), separate so that it can be
// tested with a small cap.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <mutex>
#include <utility>

namespace openpjrt::cpu {

// Freed large blocks kept for reuse (Array::Allocate's pool, array.cc), at most `cap` bytes: when
// keeping a block would pass the cap, the longest-idle blocks are freed first, so what is kept
// follows the sizes of the work at hand. (Keeping the first GiB freed had left a program run after
// others with a fresh mapping, its pages faulted in anew, at every call: a 25.6 MB embedding
// gradient 3.5 -> 5.2 ms.) Blocks come from std::aligned_alloc and go back to std::free.
// Thread-safe.
class BlockPool {
 public:
  explicit BlockPool(size_t cap) : cap_(cap) {}
  ~BlockPool();  // frees the blocks kept
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  // The most recently kept block of `size` bytes, or null.
  void* Take(size_t size);
  // Keeps p (size bytes), freeing the longest-idle blocks as the cap needs; a block over the cap
  // is freed at once.
  void Give(void* p, size_t size);
  size_t bytes() const;  // kept

 private:
  using Entry = std::pair<size_t, void*>;
  mutable std::mutex mu_;
  size_t cap_;
  size_t bytes_ = 0;
  std::list<Entry> order_;  // oldest first
  std::multimap<size_t, std::list<Entry>::iterator> by_size_;
};

}  // namespace openpjrt::cpu
