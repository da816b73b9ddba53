// rng_bit_generator with the counter-based generators Threefry-2x32 (20 rounds) and
// Philox-4x32 (10 rounds), bit-identical with XLA's expansion of the op (which JAX and every
// XLA backend run): the same state words, counters, placement of the generated words in the
// result, and new state.
//
// The state is ui64[N]; word 0 is the key (low 32 bits first).
//  THREE_FRY: word 1 is a 64-bit counter. 32-bit and narrower results: the shape is halved along
//    its first even dimension (or, when none is even, its first largest one); half-element i
//    (row-major over the halved shape) encrypts counter + i into (x0, x1), which land at
//    positions 2j and 2j + 1 of the halved dimension. The counter advances by the half size.
//    64-bit results: element i is x0 | x1 << 32 of counter + i; the counter advances by the size.
//  PHILOX (and DEFAULT): a 128-bit counter, words 1 (low) and 2 (high) when N >= 3; with N = 2
//    word 1 is the low half, the key word the high half, and only word 1 is written back. Block
//    i encrypts counter + i into four words: the next four 32-bit elements, or two 64-bit
//    elements (w0 | w1 << 32, w2 | w3 << 32). The counter advances by the blocks used.
// Elements narrower than 32 bits keep the low bits of a 32-bit word.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <numbers>
#include <type_traits>

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/kernels/kernels_rng.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

inline uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

void Threefry2x32(uint32_t k0, uint32_t k1, uint32_t x[2]) {
  static constexpr int kRot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {k0, k1, 0x1BD11BDAu ^ k0 ^ k1};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int i = 0; i < 20; ++i) {
    x[0] += x[1];
    x[1] = Rotl(x[1], kRot[i % 8]);
    x[1] ^= x[0];
    if (i % 4 == 3) {
      const uint32_t s = static_cast<uint32_t>(i / 4 + 1);
      x[0] += ks[s % 3];
      x[1] += ks[(s + 1) % 3] + s;
    }
  }
}

void Philox4x32(uint32_t k0, uint32_t k1, uint32_t x[4]) {
  for (int i = 0; i < 10; ++i) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * x[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * x[2];
    const uint32_t y0 = static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ k0;
    const uint32_t y1 = static_cast<uint32_t>(p1);
    const uint32_t y2 = static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ k1;
    const uint32_t y3 = static_cast<uint32_t>(p0);
    x[0] = y0;
    x[1] = y1;
    x[2] = y2;
    x[3] = y3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

// Writes the low `bits` bits of v as element i of a result of kind `kind` (one or more bytes per
// element; sub-byte signed integers are stored sign-extended, one per byte).
void PutBits(uint8_t* out, int64_t i, int64_t elem_bytes, int bits, bool sign_extend, uint64_t v) {
  if (bits < 64) v &= (uint64_t{1} << bits) - 1;
  if (sign_extend && bits < 8 && (v >> (bits - 1)) & 1) v |= ~uint64_t{0} << bits;
  const size_t n = static_cast<size_t>(std::min<int64_t>(elem_bytes, 8));
  std::memcpy(out + i * elem_bytes, &v, n);  // little-endian
  if (n < static_cast<size_t>(elem_bytes)) std::memset(out + i * elem_bytes + n, 0, elem_bytes - n);
}

void RngBitGenerator(const Step& s, ExecState& st) {
  const RngParams& p = s.Params<RngParams>();
  const Array& state = st.slots[s.in[0]].array;
  const int64_t words = state.ByteSize() / 8;
  std::vector<uint64_t> w(static_cast<size_t>(words));
  std::memcpy(w.data(), state.data(), words * 8);
  Array out = st.NewArray(s.out_types[1]);
  const ArrayType& type = s.out_types[1];
  const int bits = ir::BitWidth(type.elem);
  const int64_t elem_bytes = type.ElementSize();
  const bool sign_extend = bits < 8 && !ir::IsUnsigned(type.elem) && ir::IsInteger(type.elem);
  const int64_t n = type.NumElements();
  uint8_t* dst = out.mutable_data();
  const uint32_t k0 = static_cast<uint32_t>(w[0]), k1 = static_cast<uint32_t>(w[0] >> 32);
  if (!p.philox) {
    const uint64_t counter = words > 1 ? w[1] : 0;
    auto encrypt = [&](uint64_t i, uint32_t x[2]) {
      const uint64_t c = counter + i;
      x[0] = static_cast<uint32_t>(c);
      x[1] = static_cast<uint32_t>(c >> 32);
      Threefry2x32(k0, k1, x);
    };
    if (bits == 64) {
      for (int64_t i = 0; i < n; ++i) {
        uint32_t x[2];
        encrypt(static_cast<uint64_t>(i), x);
        PutBits(dst, i, elem_bytes, 64, false, x[0] | uint64_t{x[1]} << 32);
      }
      if (words > 1) w[1] = counter + static_cast<uint64_t>(n);
    } else {
      const std::vector<int64_t>& d = type.dims;
      int64_t half_size = 1;
      if (d.empty()) {
        if (n > 0) {
          uint32_t x[2];
          encrypt(0, x);
          PutBits(dst, 0, elem_bytes, bits, sign_extend, x[0]);
        }
      } else {
        // The split dimension, and the element layout around it: outer x split x inner.
        int64_t split = -1;
        for (size_t i = 0; i < d.size() && split < 0; ++i)
          if (d[i] % 2 == 0) split = static_cast<int64_t>(i);
        if (split < 0) {
          split = 0;
          for (size_t i = 1; i < d.size(); ++i)
            if (d[i] > d[split]) split = static_cast<int64_t>(i);
        }
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < split; ++i) outer *= d[i];
        for (size_t i = split + 1; i < d.size(); ++i) inner *= d[i];
        const int64_t len = d[split], half = (len + 1) / 2;
        half_size = outer * half * inner;
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t h = 0; h < half; ++h)
            for (int64_t in = 0; in < inner; ++in) {
              uint32_t x[2];
              encrypt(static_cast<uint64_t>((o * half + h) * inner + in), x);
              for (int64_t k = 0; k < 2; ++k) {
                const int64_t pos = 2 * h + k;
                if (pos < len) PutBits(dst, (o * len + pos) * inner + in, elem_bytes, bits, sign_extend, x[k]);
              }
            }
      }
      if (words > 1) w[1] = counter + static_cast<uint64_t>(half_size);
    }
  } else {
    // The 128-bit counter.
    const uint64_t lo = words > 1 ? w[1] : 0;
    const uint64_t hi = words >= 3 ? w[2] : w[0];
    const int64_t per_block = bits == 64 ? 2 : 4;
    const int64_t blocks = (n + per_block - 1) / per_block;
    for (int64_t b = 0; b < blocks; ++b) {
      const uint64_t c_lo = lo + static_cast<uint64_t>(b);
      const uint64_t c_hi = hi + (c_lo < lo ? 1 : 0);
      uint32_t x[4] = {static_cast<uint32_t>(c_lo), static_cast<uint32_t>(c_lo >> 32),
                       static_cast<uint32_t>(c_hi), static_cast<uint32_t>(c_hi >> 32)};
      Philox4x32(k0, k1, x);
      for (int64_t k = 0; k < per_block; ++k) {
        const int64_t i = b * per_block + k;
        if (i >= n) break;
        const uint64_t v = bits == 64 ? (x[2 * k] | uint64_t{x[2 * k + 1]} << 32) : x[k];
        PutBits(dst, i, elem_bytes, bits, sign_extend, v);
      }
    }
    const uint64_t new_lo = lo + static_cast<uint64_t>(blocks);
    if (words > 1) w[1] = new_lo;
    if (words >= 3) w[2] = hi + (new_lo < lo ? 1 : 0);
  }
  Array new_state = st.NewArray(s.out_types[0]);
  std::memcpy(new_state.mutable_data(), w.data(), words * 8);
  st.slots[s.out[0]] = RtValue::Of(std::move(new_state));
  st.slots[s.out[1]] = RtValue::Of(std::move(out));
}

// The stream behind stablehlo.rng: 64 random bits at a time from Philox blocks whose counters
// come from one process-wide atomic, so concurrent executions never share a block.
class RngStream {
 public:
  explicit RngStream(int64_t words) {
    const uint64_t blocks = static_cast<uint64_t>((words + 1) / 2);
    next_block_ = counter_.fetch_add(blocks, std::memory_order_relaxed);
  }
  uint64_t Next64() {
    if (have_ == 0) {
      uint32_t x[4] = {static_cast<uint32_t>(next_block_), static_cast<uint32_t>(next_block_ >> 32), 0x6f70656eu,
                       0x706a7274u};
      Philox4x32(0x5eed0001u, 0x5eed0002u, x);
      buffered_[0] = x[0] | uint64_t{x[1]} << 32;
      buffered_[1] = x[2] | uint64_t{x[3]} << 32;
      have_ = 2;
      ++next_block_;
    }
    return buffered_[--have_];
  }
  // Uniform on [0, 1) with 53 random bits.
  double NextUnit() { return static_cast<double>(Next64() >> 11) * 0x1p-53; }

 private:
  static inline std::atomic<uint64_t> counter_{0};
  uint64_t next_block_ = 0;
  uint64_t buffered_[2] = {0, 0};
  int have_ = 0;
};

template <ElemKind K>
void RngDistribution(const Step& s, ExecState& st) {
  using T = Traits<K>;
  using C = typename T::C;
  using S = typename T::S;
  const bool normal = s.Params<RngDistributionParams>().normal;
  const C a = T::Load(*st.slots[s.in[0]].array.template as<S>());
  const C b = T::Load(*st.slots[s.in[1]].array.template as<S>());
  Array out = st.NewArray(s.out_types[0]);
  S* y = out.template mutable_as<S>();
  const int64_t n = out.NumElements();
  RngStream rng(normal ? 2 * n : n);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (T::kCat == Cat::kFloat) {
      const double lo = static_cast<double>(a), hi = static_cast<double>(b);
      double v;
      if (normal) {
        // Box-Muller: u1 in (0, 1] keeps the logarithm finite.
        const double u1 = 1.0 - rng.NextUnit(), u2 = rng.NextUnit();
        v = lo + hi * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      } else {
        v = lo + (hi - lo) * rng.NextUnit();
      }
      // Rounding to the element type can reach b: the interval stays half-open.
      S r = T::Store(static_cast<C>(v));
      if (!normal && !(T::Load(r) < b)) r = T::Store(a);
      y[i] = r;
    } else if constexpr (T::kCat == Cat::kBool) {
      y[i] = T::Store(a);  // [a, b) holds only a
    } else {
      // Integers: a + (bits mod (b - a)), the difference taken as unsigned so it cannot overflow.
      const uint64_t range = static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
      const uint64_t bits = rng.Next64();
      y[i] = T::Store(!(a < b) ? a : static_cast<C>(static_cast<uint64_t>(a) + bits % range));
    }
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

}  // namespace

KernelFn RngBitGeneratorKernel() { return &RngBitGenerator; }

KernelFn RngDistributionKernel(ElemKind kind) {
  KernelFn fn = nullptr;
  DispatchKind(kind, [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kFloat || T::kCat == Cat::kSigned || T::kCat == Cat::kUnsigned ||
                  T::kCat == Cat::kBool)
      fn = &RngDistribution<K>;
  });
  return fn;
}

}  // namespace openpjrt::cpu
