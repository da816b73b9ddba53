// rng_bit_generator with the counter-based generators Threefry-2x32 (20 rounds) and
// Philox-4x32 (10 rounds). The state is ui64[N]: word 0 is the key, the rest the counter. The
// output bytes are the generated 32-bit words in order; the new state advances the counter by
// the blocks used. The stream is deterministic but not yet bit-identical to XLA's.
#include <cstring>

#include "src/cpu/kernels_rng.h"
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

void RngBitGenerator(const Step& s, ExecState& st) {
  const RngParams& p = s.Params<RngParams>();
  const Array& state = st.slots[s.in[0]].array;
  const int64_t words = state.ByteSize() / 8;
  std::vector<uint64_t> w(static_cast<size_t>(words));
  std::memcpy(w.data(), state.data(), words * 8);
  Array out = Array::Allocate(s.out_types[1]);
  const int64_t bytes = out.ByteSize();
  const uint32_t k0 = static_cast<uint32_t>(w[0]), k1 = static_cast<uint32_t>(w[0] >> 32);
  uint64_t counter_lo = words > 1 ? w[1] : 0, counter_hi = words > 2 ? w[2] : 0;
  uint8_t* dst = out.mutable_data();
  int64_t done = 0;
  while (done < bytes) {
    uint32_t block[4];
    int64_t n;
    if (p.philox) {
      block[0] = static_cast<uint32_t>(counter_lo);
      block[1] = static_cast<uint32_t>(counter_lo >> 32);
      block[2] = static_cast<uint32_t>(counter_hi);
      block[3] = static_cast<uint32_t>(counter_hi >> 32);
      Philox4x32(k0, k1, block);
      n = 16;
    } else {
      block[0] = static_cast<uint32_t>(counter_lo);
      block[1] = static_cast<uint32_t>(counter_lo >> 32);
      Threefry2x32(k0, k1, block);
      n = 8;
    }
    if (++counter_lo == 0) ++counter_hi;
    const int64_t take = std::min(n, bytes - done);
    std::memcpy(dst + done, block, static_cast<size_t>(take));
    done += take;
  }
  if (words > 1) w[1] = counter_lo;
  if (words > 2) w[2] = counter_hi;
  Array new_state = Array::Allocate(s.out_types[0]);
  std::memcpy(new_state.mutable_data(), w.data(), words * 8);
  st.slots[s.out[0]] = RtValue::Of(std::move(new_state));
  st.slots[s.out[1]] = RtValue::Of(std::move(out));
}

}  // namespace

KernelFn RngBitGeneratorKernel() { return &RngBitGenerator; }

}  // namespace openpjrt::cpu
