// The executor's storage helpers: small arrays in one allocation, repeated-element fills.
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/exec/array.h"
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
