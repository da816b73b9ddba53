// Shape refinement: a module whose functions use dynamic dimensions (tensor<?x4xf32>) becomes one
// with static shapes wherever the entry point's argument types and the program's shape
// computations determine them. This is what JAX's shape-polymorphic exports need: their @main has
// static arguments and calls functions written for symbolic sizes, passing the sizes as integer
// scalars that feed dynamic_broadcast_in_dim, dynamic_reshape, dynamic_iota, and so on.
//
// The pass works in place:
// - each value's type gets the dimensions its op implies from its operands' (refined) types and
//   from the values of small integer tensors that are known at compile time (constants,
//   get_dimension_size, and integer arithmetic, compares, converts, reshapes, concatenations of
//   them);
// - a func.call or composite whose callee would be refined gets its own copy of the callee for
//   its argument types and known argument values (`<name>.refined.<n>`), so two calls with
//   different shapes both become static;
// - while loops, if and case refine their regions; function types follow their bodies;
// - custom_call @shape_assertion with a known predicate is checked here: a false one is an error
//   with the assertion's message.
// Dimensions that cannot be determined stay dynamic, and the compiler reports them.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/ir.h"

namespace openpjrt::compiler {

// True if any value in the module has a tensor type with a dynamic dimension.
bool HasDynamicShapes(const ir::Module& module);

// Refines the functions reachable from `entry` (see above). Errors are INVALID_ARGUMENT with the
// op's file:line:col: shapes that contradict each other, a failed shape assertion.
// `arg_values` (optional) gives the values of some of the entry's integer arguments (argument
// index -> row-major elements), as `openpjrt run --args` knows them: sizes computed from them
// are then known too (the old-style shape-polymorphic exports whose @main takes a dimension size
// as an i64 argument). Entries that do not fit their argument's type are ignored.
absl::Status RefineShapes(ir::Module& module, ir::Operation& entry,
                          const std::map<size_t, std::vector<int64_t>>* arg_values = nullptr);

// The row-major elements of `v` when it is a small integer tensor (up to 4,096 elements) that
// constants determine through ops without regions (the folding above: converts, reshapes,
// concatenations, arithmetic, get_dimension_size on static types, ...).
bool EvaluateInts(const ir::Module& module, const ir::Value* v, std::vector<int64_t>* out);

}  // namespace openpjrt::compiler
