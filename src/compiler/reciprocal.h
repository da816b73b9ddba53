// Division by a broadcast value as XLA computes it. Before lowering.
#pragma once

#include "src/ir/ir.h"

namespace openpjrt::compiler {

// In `func` (and the regions nested in it), a floating-point divide of f16, f32 or f64
// whose divisor is a broadcast_in_dim becomes a multiply by the divisor's reciprocal, the
// reciprocal computed once on the broadcast's operand:
// x / broadcast(s) -> x * broadcast(1 / s). This is XLA's algebraic simplification, so results
// are XLA:CPU's bits (jax.nn.softmax's division by its row sums, layer norm's by its deviations,
// jnp.mean's by the count, checked against jaxlib: each differs from IEEE division in the last
// place where the two roundings of x * (1 / s) do) and one division per row instead of one per
// element. A divide of full arrays stays a division, and so does one by a constant (XLA folds
// those to a product too, but the specification's division is what conformance programs of
// constant operands check).
void DivideByReciprocals(ir::Operation& func);

}  // namespace openpjrt::compiler
