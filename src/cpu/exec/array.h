// Runtime values of the CPU executor: dense row-major arrays in 64-byte aligned host memory,
// tokens and tuples. Arrays are immutable once produced; copies share their storage.
#pragma once

#include <atomic>
#include <cstdint>
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "src/ir/types.h"

namespace openpjrt::cpu {

using ir::ElemKind;

// Dimension sizes, stored inline up to rank 6 so that copying a type (every array copy does)
// does not allocate. Converts to and from std::vector for the code that computes with shapes.
class Dims : public absl::InlinedVector<int64_t, 6> {
 public:
  using Base = absl::InlinedVector<int64_t, 6>;
  using Base::Base;
  Dims() = default;
  Dims(const std::vector<int64_t>& v) : Base(v.begin(), v.end()) {}  // NOLINT: implicit on purpose
  Dims(std::span<const int64_t> v) : Base(v.begin(), v.end()) {}     // NOLINT
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }  // NOLINT
  // (An inline loop: std::equal became a call to memcmp, 2-3% of a small RNN step, whose
  // kernels compare their kept output's type at each iteration, ExecState::Output, and a scan
  // body's window its array's dimensions.)
  [[gnu::always_inline]] friend bool operator==(const Dims& a, const Dims& b) { return Same(a, b.data(), b.size()); }
  [[gnu::always_inline]] friend bool operator==(const Dims& a, const std::vector<int64_t>& b) {
    return Same(a, b.data(), b.size());
  }

 private:
  [[gnu::always_inline]] static bool Same(const Dims& a, const int64_t* y, size_t n) {
    if (n != a.size()) return false;
    const int64_t* x = a.data();
    for (size_t i = 0; i < n; ++i)
      if (x[i] != y[i]) return false;
    return true;
  }
};

struct ArrayType {
  ElemKind elem = ElemKind::kF32;
  Dims dims;

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t NumElements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  int64_t ElementSize() const { return ir::ByteSize(elem); }
  int64_t ByteSize() const { return NumElements() * ElementSize(); }
  bool operator==(const ArrayType&) const = default;
  std::string ToString() const;  // tensor<2x3xf32>
};

class Array {
 public:
  Array() = default;
  // Allocates uninitialised storage (64-byte aligned, never null even when empty).
  static Array Allocate(ArrayType type);
  // The same storage under another type of the same byte size (reshape, bitcast).
  Array Reshaped(ArrayType type) const {
    Array a = *this;
    a.type_ = std::move(type);
    return a;
  }
  // Wraps existing storage without copying.
  static Array Wrap(ArrayType type, std::shared_ptr<const uint8_t> data);

  const ArrayType& type() const { return type_; }
  ElemKind elem() const { return type_.elem; }
  const Dims& dims() const { return type_.dims; }
  int64_t NumElements() const { return type_.NumElements(); }
  int64_t ByteSize() const { return type_.ByteSize(); }
  const uint8_t* data() const { return data_.get(); }
  // Only for the producer of a freshly allocated array.
  uint8_t* mutable_data() const { return const_cast<uint8_t*>(data_.get()); }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(data_.get()); }
  template <typename T>
  T* mutable_as() const { return reinterpret_cast<T*>(mutable_data()); }
  bool valid() const { return data_ != nullptr; }
  // Drops the storage reference (the type is left as it was; the array reads as invalid).
  void ReleaseStorage() {
    data_.reset();
    owned_ = false;
  }
  // Exchanges two arrays (the type only where it differs: copying dims is most of a move).
  void Swap(Array& o) {
    data_.swap(o.data_);
    std::swap(owned_, o.owned_);
    if (!(type_ == o.type_)) std::swap(type_, o.type_);
  }
  // True when this array is the only reference to storage our allocator gave (not wrapped host
  // memory): a kernel whose input dies with it may write its result there.
  bool Unique() const { return owned_ && data_.use_count() == 1; }

 private:
  friend class SmallBlocks;
  ArrayType type_;
  std::shared_ptr<const uint8_t> data_;
  bool owned_ = false;  // from Allocate (Wrap'ed storage belongs to someone else)
};

// Uninitialised room for `count` T's from the arrays' pool, held by *holder: a kernel's large
// temporary without fresh pages to fault in on every run (a std::vector of a few MiB is mapped,
// zeroed and unmapped each time).
template <typename T>
T* AllocateScratch(int64_t count, Array* holder) {
  *holder = Array::Allocate(ArrayType{ElemKind::kU8, {count * static_cast<int64_t>(sizeof(T))}});
  return reinterpret_cast<T*>(holder->mutable_data());
}

// What a slot of a running program holds.
struct RtValue {
  enum class Kind : uint8_t { kNone, kArray, kToken, kTuple };
  Kind kind = Kind::kNone;
  Array array;
  std::vector<RtValue> tuple;

  static RtValue Of(Array a) {
    RtValue v;
    v.kind = Kind::kArray;
    v.array = std::move(a);
    return v;
  }
  static RtValue Token() {
    RtValue v;
    v.kind = Kind::kToken;
    return v;
  }
  // Exchanges two values in place (std::swap moved each through a temporary: three moves of
  // the array's inline dims, store-forwarding stalls in every loop iteration).
  void Swap(RtValue& o) {
    std::swap(kind, o.kind);
    array.Swap(o.array);
    tuple.swap(o.tuple);
  }
  // Empties the value (kNone) without rebuilding it: what the executor does to every dead slot,
  // many times per loop iteration.
  void Clear() {
    kind = Kind::kNone;
    array.ReleaseStorage();
    if (!tuple.empty()) tuple.clear();
  }
};

// Whether storage is kept for reuse (SmallBlocks, dead slots): not under ThreadSanitizer, which
// does not model the acquire fence that orders reuse after another thread's last read (its
// reports would be false, and GCC warns at every fence).
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kKeepSmallStorage = false;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kKeepSmallStorage = false;
#else
inline constexpr bool kKeepSmallStorage = true;
#endif
#else
inline constexpr bool kKeepSmallStorage = true;
#endif

// Orders writes into storage that another thread may just have stopped reading (it dropped its
// reference; ours, now the only one, was seen with a relaxed load) after that thread's reads.
inline void AcquireDroppedStorage() {
#if !defined(__SANITIZE_THREAD__)
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

// Storage of small arrays (at most 1 KiB) that one execution state keeps for its next arrays of
// the same rounded size: a loop body's values are born and die every iteration, and each had
// cost a malloc, a free and an atomic reference-count decrement (~12 ns an array, a sixth of a
// 64-wide RNN step outside its arithmetic). A block is kept only when the released value held the
// last reference to it; at most kPerClass blocks per 64-byte size class (so at most 128 KiB).
// Not thread-safe: one per ExecState, used by the thread running that state's program, never by
// a kernel's parallel pieces.
class SmallBlocks {
 public:
  static constexpr int64_t kMaxBytes = 1024;
  // Whether `a`'s storage may be kept for reuse: small, from Array::Allocate, and referenced by
  // `a` alone. (Owned storage always starts a block of Array::Allocate that holds the rounded
  // size; views share their block, so they are never the only holder while it lives.)
  static bool Keepable(const Array& a) { return kKeepSmallStorage && a.Unique() && a.ByteSize() <= kMaxBytes; }
  // Array::Allocate(type), from a kept block when one of the size is there.
  Array Allocate(ArrayType type);
  // The same made in *out (whatever it held is dropped): no array moved through temporaries.
  void AllocateInto(const ArrayType& type, Array* out);
  // Empties `v` (RtValue::Clear), keeping its storage when it is a small block nobody else holds
  // (also a kNone value's storage that a slot kept, ExecState::Release).
  void Release(RtValue& v);
  // Keeps the storage of `a` when it is a small block nobody else holds (then true: `a` is left
  // without storage); false otherwise (`a` unchanged).
  bool Keep(Array& a);

 private:
  static constexpr int kClasses = static_cast<int>(kMaxBytes / 64);
  static constexpr int kPerClass = 8;
  struct Class {
    std::shared_ptr<const uint8_t> block[kPerClass];
    int n = 0;
  };
  Class classes_[kClasses];
};

// Row-major strides in elements.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

}  // namespace openpjrt::cpu
