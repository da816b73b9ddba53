// Conversion tables for the 8-bit and smaller float formats.
#include "src/cpu/exec/elem_traits.h"

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

}  // namespace openpjrt::cpu
