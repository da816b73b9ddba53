// Region bodies recognised by their structure, so that the ops owning them run as typed loops
// instead of evaluating the region (src/cpu kernels take the recognised form as parameters).
#pragma once

#include "src/cpu/kernels/kernels.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/ir/ir.h"

namespace openpjrt::compiler {

// Whether `body`, the reducer of a two-input reduce (block arguments v1, i1, v2, i2), is the
// argmax / argmin reducer JAX writes (see cpu::ArgReducer):
//   p = compare DIR v1, v2 [or compare NE v1, v1]; q = or p, (and (compare EQ v1, v2),
//   (compare LT i1, i2)); return select p|q, v1, v2 and select q, i1, i2
// with DIR one of GT, GE, LT, LE (not TOTALORDER), any operand order of the commutative and/or/
// EQ, and mirrored compares (compare LT v2, v1 for GT). On a match fills *out.
bool MatchArgReducer(const ir::Block& body, cpu::ArgReducer* out);

// Whether `body`, a sort comparator (block arguments a0, b0, a1, b1, ...), is compare LT or GT of
// key(a_k) and key(b_k) (or of key(b_k) and key(a_k)) for one operand k, where key(x) is x itself
// or what jnp.sort's float comparator writes:
//   select(compare NE x, x; NaN constant; select(compare EQ x, zero constant; constant; x))
// (either replacement alone too). On a match fills *out (cpu::SortKey, the constants' bits).
bool MatchSortKey(const ir::Block& body, cpu::SortKey* out);

}  // namespace openpjrt::compiler
