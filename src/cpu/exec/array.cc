// Aligned allocation for arrays. Arrays of 64 KiB and up come from a pool of freed blocks (sizes
// rounded to 64 KiB below 1 MiB and to 2 MiB above; the most recently freed 1 GiB is kept):
// without it every such temporary or output of every execution is a fresh mmap (glibc maps
// blocks from 128 KiB on) whose pages fault in one 4 KiB page at a time (16,384 faults for a
// 64 MiB array). Measured on tanh(0.5*x+0.1)*x+1 over 16 Mi f32: 310 ms -> 168 ms per run; a
// 256x256 f32 matmul (a 256 KiB output, pooled since the 64 KiB threshold): median 290 ->
// 266-272 us on one thread.
// (madvise(MADV_HUGEPAGE) was tried: no faster once blocks are reused, and first touches under
// synchronous compaction tripled the time of compiling large constants. Tried again in session
// 50: warm memory-bound programs 1.5-4% faster, but with THP defrag = madvise a first call of
// jax.random.normal over 16 Mi took 3.2 s instead of 0.48, and its steady calls at two threads
// 187 ms instead of 143.)
#include "src/cpu/exec/array.h"
#include "src/cpu/exec/block_pool.h"

#include <cstdint>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <vector>
#include <new>

#include "src/support/str.h"

namespace openpjrt::cpu {

std::string ArrayType::ToString() const {
  std::string s = "tensor<";
  for (int64_t d : dims) StrAppend(&s, d, "x");
  StrAppend(&s, ir::ElemKindName(elem), ">");
  return s;
}

namespace {

constexpr size_t kPooled = size_t{64} << 10;   // pooled from this size
constexpr size_t kSmallAligned = 1024;         // aligned by hand up to this size
constexpr size_t kSmallStep = size_t{64} << 10;  // sizes below kLarge rounded to this
constexpr size_t kLarge = size_t{1} << 20;     // from this size on...
constexpr size_t kStep = size_t{2} << 20;      // ...sizes are rounded to huge pages
constexpr size_t kPoolCap = size_t{1} << 30;   // freed bytes kept for reuse (the most recent)

// Sanitizer builds skip the pool so that use-after-free of large arrays is still caught.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kPooling = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kPooling = false;
#else
constexpr bool kPooling = true;
#endif
#else
constexpr bool kPooling = true;
#endif

BlockPool& ThePool() {
  static BlockPool* pool = new BlockPool(kPoolCap);  // never destroyed: blocks may be freed during exit
  return *pool;
}

void* TakeLarge(size_t size) {
  if (void* p = ThePool().Take(size)) return p;
  return std::aligned_alloc(size >= kLarge ? kStep : 64, size);
}

void GiveLarge(void* p, size_t size) { ThePool().Give(p, size); }

}  // namespace

void* BlockPool::Take(size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  // (The most recently freed block of the size: warmest in the caches.)
  auto [first, last] = by_size_.equal_range(size);
  if (first == last) return nullptr;
  const auto it = std::prev(last);
  void* p = it->second->second;
  order_.erase(it->second);
  by_size_.erase(it);
  bytes_ -= size;
  return p;
}

void BlockPool::Give(void* p, size_t size) {
  std::vector<void*> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (size > cap_) {
      released.push_back(p);
    } else {
      while (bytes_ + size > cap_) {
        const auto [old_size, old] = order_.front();
        auto [first, last] = by_size_.equal_range(old_size);
        for (auto it = first; it != last; ++it)
          if (it->second == order_.begin()) {
            by_size_.erase(it);
            break;
          }
        order_.pop_front();
        bytes_ -= old_size;
        released.push_back(old);
      }
      order_.emplace_back(size, p);
      by_size_.emplace(size, std::prev(order_.end()));
      bytes_ += size;
    }
  }
  for (void* q : released) std::free(q);  // (unmapping outside the lock)
}

size_t BlockPool::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

BlockPool::~BlockPool() {
  for (const auto& [size, p] : order_) std::free(p);
}

Array Array::Allocate(ArrayType type) {
  size_t bytes = static_cast<size_t>(type.ByteSize());
  Array a;
  a.type_ = std::move(type);
  a.owned_ = true;
  if (kPooling && bytes >= kPooled) {
    const size_t step = bytes >= kLarge ? kStep : kSmallStep;
    const size_t size = (bytes + step - 1) / step * step;
    void* p = TakeLarge(size);
    if (!p) throw std::bad_alloc();
    a.data_ = std::shared_ptr<const uint8_t>(static_cast<const uint8_t*>(p), [size](const uint8_t* q) {
      GiveLarge(const_cast<uint8_t*>(q), size);
    });
    return a;
  }
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  if (rounded <= kSmallAligned) {
    // Small arrays: one allocation holding the reference count and the bytes, with room to
    // start on a 64-byte boundary (glibc's aligned_alloc took ~460 instructions, a twentieth of
    // a tiny program's Execute; a separate control block was a second malloc and free per
    // array, a fifth of a small loop body's time).
    std::shared_ptr<uint8_t[]> block = std::make_shared_for_overwrite<uint8_t[]>(rounded + 63);
    const uintptr_t at = (reinterpret_cast<uintptr_t>(block.get()) + 63) & ~uintptr_t{63};
    a.data_ = std::shared_ptr<const uint8_t>(std::move(block), reinterpret_cast<const uint8_t*>(at));
    return a;
  }
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw std::bad_alloc();
  a.data_ = std::shared_ptr<const uint8_t>(static_cast<const uint8_t*>(p),
                                           [](const uint8_t* q) { std::free(const_cast<uint8_t*>(q)); });
  return a;
}

static_assert(SmallBlocks::kMaxBytes <= kSmallAligned, "kept blocks come from the hand-aligned path");

namespace {
// The size class of a small array of `bytes` (rounded up to 64, the empty array taking 64).
int SmallClass(int64_t bytes) { return bytes <= 64 ? 0 : static_cast<int>((bytes - 1) / 64); }
}  // namespace

Array SmallBlocks::Allocate(ArrayType type) {
  const int64_t bytes = type.ByteSize();
  if (bytes <= kMaxBytes) {
    Class& c = classes_[SmallClass(bytes)];
    if (c.n > 0) {
      Array a;
      a.type_ = std::move(type);
      a.owned_ = true;
      a.data_ = std::move(c.block[--c.n]);
      return a;
    }
  }
  return Array::Allocate(std::move(type));
}

void SmallBlocks::AllocateInto(const ArrayType& type, Array* out) {
  const int64_t bytes = type.ByteSize();
  if (bytes <= kMaxBytes) {
    Class& c = classes_[SmallClass(bytes)];
    if (c.n > 0) {
      out->type_ = type;
      out->owned_ = true;
      out->data_ = std::move(c.block[--c.n]);
      return;
    }
  }
  *out = Array::Allocate(type);
}

bool SmallBlocks::Keep(Array& a) {
  if (!Keepable(a)) return false;
  Class& c = classes_[SmallClass(a.ByteSize())];
  if (c.n >= kPerClass) return false;
  AcquireDroppedStorage();
  c.block[c.n++] = std::move(a.data_);
  a.owned_ = false;
  return true;
}

void SmallBlocks::Release(RtValue& v) {
  // (kNone with storage: what a slot kept, see ExecState::Release.)
  if ((v.kind == RtValue::Kind::kArray || v.kind == RtValue::Kind::kNone) && Keep(v.array)) {
    v.kind = RtValue::Kind::kNone;
    if (!v.tuple.empty()) v.tuple.clear();
    return;
  }
  v.Clear();
}

Array Array::Wrap(ArrayType type, std::shared_ptr<const uint8_t> data) {
  Array a;
  a.type_ = std::move(type);
  a.data_ = std::move(data);
  return a;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

}  // namespace openpjrt::cpu
