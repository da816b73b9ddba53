// Common subexpressions across a lowered program: the lowerer (lowerer.h) asks, before it lowers
// an op, whether an op that computes the same thing from the same slots was lowered into the same
// program already, and then gives the op that op's result slots instead of new steps.
//
// Calls are inlined as they are lowered, so this is where work repeated across functions meets:
// JAX's layer norm computes the row mean in @main and again inside @_var (via @_std). Only pure,
// deterministic ops qualify (reductions, products, gathers, constants, small elementwise and shape
// ops): their results depend only on operands, attributes and result types, so the reused results
// are the same bits. Ops with effects or state (custom calls, collectives, rng, I/O, control flow)
// never do.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "src/ir/ir.h"

namespace openpjrt::compiler {

// Whether `op` may share its results with an equal op (see above): constants, iota, reduce, dot
// and gather always; elementwise and data-movement ops only when every result has at most
// kSharedCheapElements elements (larger ones are computed again inside their readers' fused runs,
// which is cheaper than writing them out once for all readers).
inline constexpr int64_t kSharedCheapElements = 4096;
bool Reusable(const ir::Operation& op);

// Whether `a` and `b` compute the same function of their operands: the same code and name,
// equal attributes (in any order), equal result types, and regions that are the same
// computation of their block arguments (regions that read values from outside themselves are
// never equal). Operands are not compared: the caller compares their slots.
bool SameComputation(const ir::Operation& a, const ir::Operation& b);

// The ops lowered so far into each program, by code and operand slots.
class LoweredOps {
 public:
  struct Entry {
    const ir::Operation* op;
    std::vector<int> in, out;
    bool quant_as_expressed;
  };
  // The result slots of an earlier equal op in `program`, or null.
  const std::vector<int>* Find(const void* program, const ir::Operation& op, const std::vector<int>& in,
                               bool quant_as_expressed) const;
  void Add(const void* program, const ir::Operation& op, std::vector<int> in, std::vector<int> out,
           bool quant_as_expressed);

 private:
  static uint64_t Key(const ir::Operation& op, const std::vector<int>& in);
  std::unordered_map<const void*, std::unordered_multimap<uint64_t, Entry>> by_program_;
};

}  // namespace openpjrt::compiler
