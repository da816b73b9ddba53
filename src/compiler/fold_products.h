// Rewrites of a function's StableHLO before lowering that let a dot_general read transposed
// data where it lies instead of after a transpose pass. Both keep every product's sums in the
// same order: results are the same bits.
#pragma once

#include "src/ir/ir.h"

namespace openpjrt::compiler {

// In `func` (and the regions nested in it):
// - transpose(dot_general(a, b)) with permutation [1, 0], one free dimension on each side, no
//   batch dimensions, the transpose the product's only reader: dot_general(b, a), the transpose
//   left as a no-copy reshape (JAX's weight gradients dW = transpose(dot(dy, x))).
// - dot_general(transpose(t), y) or dot_general(x, transpose(t)): the product reads t, its
//   dimension numbers renumbered through the permutation, when t's free dimensions keep their
//   order (the result's layout is unchanged); the transpose stays for any other reader (JAX's
//   g @ w.T, which it emits as a transpose and a product).
void FoldTransposes(ir::Module& module, ir::Operation& func);

}  // namespace openpjrt::compiler
