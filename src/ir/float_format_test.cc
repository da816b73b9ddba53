#include "src/ir/float_format.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace openpjrt::ir {
namespace {

struct Case {
  ElemKind k;
  double v;
  uint64_t bits;
};

TEST(FloatFormat, KnownEncodings) {
  const Case cases[] = {
      {ElemKind::kF16, 1.0, 0x3C00},          {ElemKind::kF16, 65504.0, 0x7BFF},
      {ElemKind::kF16, -2.0, 0xC000},         {ElemKind::kF16, 5.960464477539063e-08, 0x0001},
      {ElemKind::kBF16, 1.0, 0x3F80},         {ElemKind::kBF16, 3.140625, 0x4049},
      {ElemKind::kF8E4M3FN, 448.0, 0x7E},     {ElemKind::kF8E4M3FN, -448.0, 0xFE},
      {ElemKind::kF8E4M3FN, 0.1015625, 0x1D}, {ElemKind::kF8E5M2, 57344.0, 0x7B},
      {ElemKind::kF8E4M3, 240.0, 0x77},       {ElemKind::kF8E3M4, 15.5, 0x6F},
      {ElemKind::kF8E4M3FNUZ, 240.0, 0x7F},   {ElemKind::kF8E5M2FNUZ, 57344.0, 0x7F},
      {ElemKind::kF8E4M3B11FNUZ, 30.0, 0x7F}, {ElemKind::kF8E8M0FNU, 1.0, 0x7F},
      {ElemKind::kF8E8M0FNU, 0.5, 0x7E},      {ElemKind::kF4E2M1FN, 6.0, 0x7},
      {ElemKind::kF4E2M1FN, -0.5, 0x9},       {ElemKind::kF6E2M3FN, 7.5, 0x1F},
      {ElemKind::kF6E3M2FN, 28.0, 0x1F},      {ElemKind::kF6E3M2FN, 0.0625, 0x01},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(EncodeFloat(c.k, c.v), c.bits) << ElemKindName(c.k) << " " << c.v;
    EXPECT_EQ(DecodeFloat(c.k, c.bits), c.v) << ElemKindName(c.k) << " " << c.bits;
  }
}

TEST(FloatFormat, RoundsToNearestEven) {
  // 0.1 lies between 0.09375 (0x1C) and 0.1015625 (0x1D) in f8E4M3FN and is nearer the latter.
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FN, 0.1), 0x1Du);
  // Exactly halfway between 1.0 and 1.125 (e4m3): ties go to the even mantissa, 1.0.
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FN, 1.0625), 0x38u);
  // Halfway between 1.125 and 1.25: ties go to 1.25 (even).
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FN, 1.1875), 0x3Au);
  // A hint breaks the tie the way the unrounded decimal would.
  EXPECT_EQ(EncodeFloatWithHint(ElemKind::kF8E4M3FN, 1.0625, +1), 0x39u);
  EXPECT_EQ(EncodeFloatWithHint(ElemKind::kF8E4M3FN, 1.1875, -1), 0x39u);
  // The hint is a direction on the number line: below -1.0625 is a larger magnitude.
  EXPECT_EQ(EncodeFloatWithHint(ElemKind::kF8E4M3FN, -1.0625, -1), 0xB9u);
  EXPECT_EQ(EncodeFloatWithHint(ElemKind::kF8E4M3FN, -1.0625, +1), 0xB8u);
  // bf16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7; even is 1.
  EXPECT_EQ(EncodeFloat(ElemKind::kBF16, 1.00390625), 0x3F80u);
}

TEST(FloatFormat, OverflowAndSpecials) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(EncodeFloat(ElemKind::kF16, 1e6), 0x7C00u);
  EXPECT_EQ(EncodeFloat(ElemKind::kF16, -inf), 0xFC00u);
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FN, 1e6), 0x7Fu);    // no inf: NaN
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FN, 470.0), 0x7Fu);  // rounds past the max: NaN
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FN, 464.0), 0x7Eu);  // a tie: to even, 448
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FNUZ, nan), 0x80u);
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E4M3FNUZ, -0.0), 0x00u);  // no negative zero
  EXPECT_EQ(EncodeFloat(ElemKind::kF4E2M1FN, 100.0), 0x7u);    // no inf/NaN: saturates
  EXPECT_EQ(EncodeFloat(ElemKind::kF4E2M1FN, -100.0), 0xFu);
  EXPECT_EQ(EncodeFloat(ElemKind::kF8E8M0FNU, -1.0), 0xFFu);   // no sign: NaN
  EXPECT_TRUE(std::isnan(DecodeFloat(ElemKind::kF8E5M2, 0x7E)));
  EXPECT_TRUE(std::isinf(DecodeFloat(ElemKind::kF8E5M2, 0x7C)));
  EXPECT_TRUE(std::isnan(DecodeFloat(ElemKind::kF8E4M3FN, 0xFF)));
  EXPECT_TRUE(std::isnan(DecodeFloat(ElemKind::kF8E8M0FNU, 0xFF)));
  EXPECT_EQ(DecodeFloat(ElemKind::kF16, 0x8000), 0.0);
  EXPECT_TRUE(std::signbit(DecodeFloat(ElemKind::kF16, 0x8000)));
}

// Every bit pattern of every small format decodes and encodes back to itself (NaNs to a NaN).
TEST(FloatFormat, AllPatternsRoundTrip) {
  const ElemKind kinds[] = {ElemKind::kF4E2M1FN,     ElemKind::kF6E2M3FN,  ElemKind::kF6E3M2FN,
                            ElemKind::kF8E3M4,       ElemKind::kF8E4M3,    ElemKind::kF8E4M3FN,
                            ElemKind::kF8E4M3FNUZ,   ElemKind::kF8E4M3B11FNUZ,
                            ElemKind::kF8E5M2,       ElemKind::kF8E5M2FNUZ, ElemKind::kF8E8M0FNU,
                            ElemKind::kF16,          ElemKind::kBF16};
  for (ElemKind k : kinds) {
    int bits = GetFloatFormat(k).total_bits();
    for (uint64_t b = 0; b < (uint64_t{1} << bits); ++b) {
      double v = DecodeFloat(k, b);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(DecodeFloat(k, EncodeFloat(k, v)))) << ElemKindName(k) << " " << b;
        continue;
      }
      EXPECT_EQ(EncodeFloat(k, v), b) << ElemKindName(k) << " pattern " << b << " value " << v;
    }
  }
}

}  // namespace
}  // namespace openpjrt::ir
