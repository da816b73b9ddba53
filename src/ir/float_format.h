// Bit-exact conversion between double and every float format StableHLO uses (f64 down to
// f4E2M1FN), with round-to-nearest-even. Shared by the front end (literals) and the kernels.
#pragma once

#include <cstdint>

#include "src/ir/types.h"

namespace openpjrt::ir {

struct FloatFormat {
  int exp_bits;
  int man_bits;
  int bias;
  bool has_sign;
  bool has_inf;       // IEEE-style infinities
  enum NanKind : uint8_t {
    kIeeeNan,         // exponent all ones, mantissa non-zero
    kFnNan,           // only exponent and mantissa all ones (no infinities)
    kUzNan,           // only the bit pattern of negative zero (no -0, no infinities)
    kNoNan,           // no NaN at all
  } nan_kind;
  int total_bits() const { return (has_sign ? 1 : 0) + exp_bits + man_bits; }
};

// The format of a real float kind (f16, bf16, f8*, f6*, f4*, f32, f64, tf32).
const FloatFormat& GetFloatFormat(ElemKind k);

// Rounds `v` to nearest-even in `k` and returns its bit pattern (in the low total_bits).
// Values too large become infinity where the format has one, else NaN where it has one, else
// the largest finite value of the same sign.
uint64_t EncodeFloat(ElemKind k, double v);
// The exact value of a bit pattern of format `k`.
double DecodeFloat(ElemKind k, uint64_t bits);

// Like EncodeFloat, but `hint` breaks a tie: when `v` is exactly halfway between two values of
// `k` and the true (unrounded) value was above v, pass +1; below, -1; exact, 0.
uint64_t EncodeFloatWithHint(ElemKind k, double v, int hint);

}  // namespace openpjrt::ir
