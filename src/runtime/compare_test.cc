// Compares of f16 and bf16 arrays (each widened to f32 a block of 256 at a time, then compared
// by the f32 loops) against the comparison of the widened values done here, for arrays longer
// than a block, every direction, FLOAT and TOTALORDER, over bit patterns that include NaNs of both
// kinds and signs, infinities, zeros and subnormals.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/exec/elem_traits.h"
#include "src/runtime/test_util.h"
#include "src/support/str.h"

namespace openpjrt::runtime {
namespace {

using test_util::CompileText;

float Widen(bool bf16, uint16_t bits) {
  if (!bf16) return cpu::HalfToFloat(bits);
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, on the widened value's bits.
int64_t TotalKey(float f) {
  int32_t b;
  std::memcpy(&b, &f, 4);
  return b < 0 ? b ^ INT32_MAX : b;
}

TEST(HalfCompare, MatchesTheWidenedValuesInEveryDirection) {
  constexpr int64_t n = 1000;  // (three blocks and a part)
  std::vector<uint16_t> x(n), y(n);
  const uint16_t special[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7C01, 0x7E00, 0xFE00, 0x0001, 0x8001,
                              0x3C00, 0x7F80, 0xFF80, 0x7F81, 0x7FC0, 0xFFC1, 0x0080};
  for (int64_t i = 0; i < n; ++i) {
    x[i] = i % 3 == 0 ? special[i % 16] : static_cast<uint16_t>(i * 2654435761u >> 16);
    y[i] = i % 5 == 0 ? special[(i / 5) % 16] : i % 7 == 0 ? x[i] : static_cast<uint16_t>(i * 40503u + 977u);
  }
  const char* dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  for (bool bf16 : {false, true})
    for (bool total : {false, true})
      for (int d = 0; d < 6; ++d) {
        const std::string t = StrCat("tensor<", n, bf16 ? "xbf16>" : "xf16>");
        const std::string text = StrCat("func.func @main(%a: ", t, ", %b: ", t, ") -> tensor<", n, "xi1> {\n",
                                        "  %c = stablehlo.compare ", dirs[d], ", %a, %b, ", total ? "TOTALORDER" : "FLOAT",
                                        " : (", t, ", ", t, ") -> tensor<", n, "xi1>\n  return %c : tensor<", n,
                                        "xi1>\n}\n");
        SCOPED_TRACE(text);
        auto exe = CompileText(text);
        ASSERT_TRUE(exe.ok()) << exe.status();
        const ir::ElemKind k = bf16 ? ir::ElemKind::kBF16 : ir::ElemKind::kF16;
        cpu::Array a = cpu::Array::Allocate({k, {n}}), b = cpu::Array::Allocate({k, {n}});
        std::memcpy(a.mutable_data(), x.data(), n * 2);
        std::memcpy(b.mutable_data(), y.data(), n * 2);
        std::vector<cpu::RtValue> args;
        args.push_back(cpu::RtValue::Of(std::move(a)));
        args.push_back(cpu::RtValue::Of(std::move(b)));
        auto out = (*exe)->Run(std::move(args), nullptr, nullptr, -1, nullptr, nullptr);
        ASSERT_TRUE(out.ok()) << out.status();
        const uint8_t* got = (*out)[0].array.data();
        for (int64_t i = 0; i < n; ++i) {
          const float u = Widen(bf16, x[i]), v = Widen(bf16, y[i]);
          bool want;
          if (total) {
            const int64_t p = TotalKey(u), q = TotalKey(v);
            const bool r[6] = {p == q, p != q, p >= q, p > q, p <= q, p < q};
            want = r[d];
          } else {
            const bool r[6] = {u == v, u != v, u >= v, u > v, u <= v, u < v};
            want = r[d];
          }
          ASSERT_EQ(got[i] != 0, want) << "element " << i << ": " << x[i] << " vs " << y[i];
        }
      }
}

}  // namespace
}  // namespace openpjrt::runtime
