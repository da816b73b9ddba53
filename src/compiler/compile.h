// The minimal pipeline: a verified module becomes a CPU program. Calls (func.call, composites)
// are inlined, CHLO broadcasting ops become explicit broadcasts, every value gets a slot, each
// op becomes one kernel launch chosen for its element kinds, and slots are released after their
// last use.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "src/cpu/exec/program.h"
#include "src/ir/ir.h"

namespace openpjrt::compiler {

struct CompileOptions {
  std::string entry;  // the function to compile; empty: @main, else the module's only function
  // Values of integer entry arguments known at compile time (argument index -> elements), for a
  // program compiled for one call (`openpjrt run --args`): shape refinement may use them.
  std::map<size_t, std::vector<int64_t>> entry_arg_values;
};

// Errors: INVALID_ARGUMENT for programs the executor cannot accept (dynamic shapes, recursion),
// UNIMPLEMENTED naming the op or element type not supported yet. Locations are file:line:col.
// Functions with dynamic shapes are refined in place first (refine.h).
absl::StatusOr<std::shared_ptr<cpu::Executable>> Compile(ir::Module& module,
                                                         const CompileOptions& options = {});

// The function Compile would use as the entry point, or null.
const ir::Operation* FindEntry(const ir::Module& module, const std::string& name);

// Gives the dynamic argument types of `entry` the static sizes `arg_dims` (one list per argument;
// the entries for static and non-tensor arguments are ignored) and re-verifies the module, so
// that Compile refines the rest from them: how a shape-polymorphic @main is specialised for the
// arrays it is called with. INVALID_ARGUMENT when a size list does not fit its argument's type.
absl::Status SpecialiseEntry(ir::Module& module, ir::Operation& entry,
                             const std::vector<std::vector<int64_t>>& arg_dims);

}  // namespace openpjrt::compiler
