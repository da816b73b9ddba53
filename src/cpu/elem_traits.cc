// Conversion tables and the half-precision conversions.
#include "src/cpu/elem_traits.h"

#include <array>
#include <cmath>

namespace openpjrt::cpu {

const float* DecodeTable8(ElemKind k) {
  static const auto* tables = [] {
    auto* t = new std::array<std::array<float, 256>, ir::kNumElemKinds>();
    for (int kind = 0; kind < ir::kNumElemKinds; ++kind) {
      ElemKind ek = static_cast<ElemKind>(kind);
      if (!ir::IsFloat(ek) || ir::ByteSize(ek) != 1) continue;
      int bits = ir::GetFloatFormat(ek).total_bits();
      for (int b = 0; b < 256; ++b)
        (*t)[kind][b] = b < (1 << bits) ? static_cast<float>(ir::DecodeFloat(ek, b)) : 0.0f;
    }
    return t;
  }();
  return (*tables)[static_cast<int>(k)].data();
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  uint32_t u;
  if (exp == 0x1F) {
    u = sign | 0x7F800000 | (man << 13);
  } else if (exp != 0) {
    u = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    u = sign;
  } else {
    // Subnormal: value = man * 2^-24.
    float f = std::ldexp(static_cast<float>(man), -24);
    return sign ? -f : f;
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t FloatToHalf(float f) {
  return static_cast<uint16_t>(ir::EncodeFloat(ElemKind::kF16, f));
}

uint16_t FloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFF) > 0x7F800000) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  uint32_t rounding = 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

}  // namespace openpjrt::cpu
