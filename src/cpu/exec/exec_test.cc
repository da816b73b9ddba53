// The executor's storage helpers: small arrays in one allocation, storage kept by dead slots and
// by the execution state for the next values, repeated-element fills.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/exec/array.h"
#include "src/cpu/exec/block_pool.h"
#include "src/cpu/exec/program.h"
#include "src/cpu/exec/strided.h"

namespace openpjrt::cpu {
namespace {

TEST(ArrayTest, SmallAndLargeArraysAreAlignedAndUniqueUntilShared) {
  for (int64_t n : {0, 1, 3, 16, 255, 256, 1000, 100000}) {
    Array a = Array::Allocate(ArrayType{ir::ElemKind::kF32, {n}});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u) << n;
    EXPECT_TRUE(a.Unique()) << n;
    if (n) std::memset(a.mutable_data(), 0xab, a.ByteSize());  // the whole size is writable (ASan)
    Array b = a;
    EXPECT_FALSE(a.Unique()) << n;
    b = Array();
    EXPECT_TRUE(a.Unique()) << n;
    a.ReleaseStorage();
    EXPECT_FALSE(a.valid());
  }
}

// A step defining slot 1 with `type`.
Step Defining(const ArrayType& type) {
  Step s;
  s.out = {1};
  s.out_types = {type};
  return s;
}

TEST(ExecStateTest, DeadSlotsKeepSmallStorageThatTheyAloneHeld) {
  if (!kKeepSmallStorage) GTEST_SKIP() << "storage is not kept under ThreadSanitizer";
  const ArrayType small{ir::ElemKind::kF32, {64}};
  const Step step = Defining(small);
  ExecState st;
  st.slots.resize(3);
  Array& first = st.Output(step);
  ASSERT_EQ(st.slots[1].kind, RtValue::Kind::kArray);
  EXPECT_EQ(first.type(), small);
  const uint8_t* storage = first.data();
  st.Release(1);
  EXPECT_EQ(st.slots[1].kind, RtValue::Kind::kNone);
  st.Release(1);  // (releasing again changes nothing)
  Array& again = st.Output(step);
  EXPECT_EQ(again.data(), storage) << "the slot's next value takes the storage it kept";
  EXPECT_EQ(again.type(), small);
  EXPECT_TRUE(again.Unique());

  // Storage someone else still holds is not kept: the next value gets its own.
  const Array held = st.slots[1].array;
  st.Release(1);
  const uint8_t* fresh = st.Output(step).data();
  EXPECT_NE(fresh, held.data());
  EXPECT_TRUE(held.Unique()) << "the slot dropped its reference instead of keeping it";
  st.Release(1);

  // A value of another type does not take it (one step defines a slot, but a mistake there
  // must not write past the storage).
  const Step wider = Defining(ArrayType{ir::ElemKind::kF32, {65}});
  EXPECT_NE(st.Output(wider).data(), fresh);
  st.Release(1);

  // Nor arrays over SmallBlocks::kMaxBytes, nor wrapped host memory.
  const Step large = Defining(ArrayType{ir::ElemKind::kF32, {SmallBlocks::kMaxBytes / 4 + 1}});
  const uint8_t* large_storage = st.Output(large).data();
  st.Release(1);
  EXPECT_FALSE(st.slots[1].array.valid());
  EXPECT_NE(large_storage, nullptr);
  auto host = std::shared_ptr<const uint8_t>(new uint8_t[256], std::default_delete<const uint8_t[]>());
  st.slots[1] = RtValue::Of(Array::Wrap(small, host));
  st.Release(1);
  EXPECT_FALSE(st.slots[1].array.valid());
  EXPECT_EQ(host.use_count(), 1);
}

TEST(ExecStateTest, ForgottenSlotsHandTheirStorageToTheNextArraysOfTheSize) {
  if (!kKeepSmallStorage) GTEST_SKIP() << "storage is not kept under ThreadSanitizer";
  const ArrayType small{ir::ElemKind::kI32, {10}};  // 40 bytes: the 64-byte class
  ExecState st;
  st.slots.resize(3);
  const uint8_t* storage = st.Output(Defining(small)).data();
  st.Release(1);
  st.Forget(1);
  EXPECT_FALSE(st.slots[1].array.valid()) << "an execution's end empties every slot";
  // Another program's step of another type of the same rounded size takes it.
  const ArrayType other{ir::ElemKind::kU8, {3}};
  Array a = st.NewArray(other);
  EXPECT_EQ(a.data(), storage);
  EXPECT_EQ(a.type(), other);
  EXPECT_TRUE(a.Unique());
  // A temporary given back is kept too; one still shared is dropped without being kept.
  st.Recycle(a);
  EXPECT_FALSE(a.valid());
  Array b = st.NewArray(small);
  EXPECT_EQ(b.data(), storage);
  Array c = b;
  st.Recycle(b);
  EXPECT_FALSE(b.valid());
  EXPECT_TRUE(c.Unique());
  EXPECT_NE(st.NewArray(small).data(), storage);
}

TEST(RtValueTest, SwapExchangesKindsStorageTypesAndTuples) {
  const ArrayType f32x4{ir::ElemKind::kF32, {4}}, i8x2x3{ir::ElemKind::kI8, {2, 3}};
  RtValue a = RtValue::Of(Array::Allocate(f32x4)), b = RtValue::Of(Array::Allocate(i8x2x3));
  const uint8_t *da = a.array.data(), *db = b.array.data();
  a.Swap(b);
  EXPECT_EQ(a.array.data(), db);
  EXPECT_EQ(a.array.type(), i8x2x3);
  EXPECT_EQ(b.array.data(), da);
  EXPECT_EQ(b.array.type(), f32x4);
  EXPECT_TRUE(a.array.Unique() && b.array.Unique());
  // Same types (a loop's carried value and its next one): storage exchanged, types kept.
  RtValue c = RtValue::Of(Array::Allocate(f32x4));
  const uint8_t* dc = c.array.data();
  b.Swap(c);
  EXPECT_EQ(b.array.data(), dc);
  EXPECT_EQ(c.array.data(), da);
  EXPECT_EQ(b.array.type(), f32x4);
  // An empty value and a tuple.
  RtValue t;
  t.kind = RtValue::Kind::kTuple;
  t.tuple.push_back(RtValue::Token());
  RtValue none;
  none.Swap(t);
  EXPECT_EQ(none.kind, RtValue::Kind::kTuple);
  ASSERT_EQ(none.tuple.size(), 1u);
  EXPECT_EQ(none.tuple[0].kind, RtValue::Kind::kToken);
  EXPECT_EQ(t.kind, RtValue::Kind::kNone);
  EXPECT_TRUE(t.tuple.empty());
  EXPECT_FALSE(t.array.valid());
}

TEST(BlockPoolTest, KeepsTheMostRecentlyFreedBlocksUnderItsCap) {
  constexpr size_t kBlock = 64 << 10;
  BlockPool pool(3 * kBlock);
  auto block = [](size_t size) { return std::aligned_alloc(64, size); };
  void* a = block(kBlock);
  void* b = block(kBlock);
  void* c = block(2 * kBlock);
  pool.Give(a, kBlock);
  pool.Give(b, kBlock);
  EXPECT_EQ(pool.bytes(), 2 * kBlock);
  // Keeping c (2 blocks) passes the cap: the longest idle, a, goes; b stays.
  pool.Give(c, 2 * kBlock);
  EXPECT_EQ(pool.bytes(), 3 * kBlock);
  EXPECT_EQ(pool.Take(kBlock), b);
  EXPECT_EQ(pool.Take(kBlock), nullptr) << "a was released for c";
  EXPECT_EQ(pool.Take(2 * kBlock), c);
  EXPECT_EQ(pool.bytes(), 0u);
  // The most recently freed of a size comes back first; a block over the cap is not kept.
  void* d = block(kBlock);
  pool.Give(b, kBlock);
  pool.Give(d, kBlock);
  EXPECT_EQ(pool.Take(kBlock), d);
  pool.Give(d, kBlock);
  pool.Give(c, 4 * kBlock);  // (freed at once: 4 blocks > cap)
  EXPECT_EQ(pool.bytes(), 2 * kBlock);
  // (b and d are freed with the pool.)
}

TEST(FillRepeatedTest, EveryElementSizeAndLength) {
  for (int64_t es : {1, 2, 3, 4, 8, 12, 16}) {
    for (int64_t len : {0, 1, 2, 5, 15, 16, 17, 63, 64, 65, 1000, 4099}) {
      for (bool zero : {false, true}) {
        std::vector<uint8_t> element(es);
        for (int64_t b = 0; b < es; ++b) element[b] = zero ? 0 : static_cast<uint8_t>(b * 37 + 5);
        std::vector<uint8_t> out(len * es + 8, 0xee);
        FillRepeated(out.data(), element.data(), es, len);
        for (int64_t i = 0; i < len; ++i)
          ASSERT_EQ(std::memcmp(out.data() + i * es, element.data(), es), 0) << es << " " << len << " " << i;
        for (int64_t b = len * es; b < len * es + 8; ++b) ASSERT_EQ(out[b], 0xee) << "wrote past the end";
      }
    }
  }
}

}  // namespace
}  // namespace openpjrt::cpu
