// Prints types, attributes and modules as MLIR text. The output parses back to the same IR, so
// print -> parse -> print is a fixed point. Ops are printed in their pretty form where StableHLO
// has one, or generically on request.
#pragma once

#include <string>

#include "src/ir/ir.h"

namespace openpjrt::ir {

struct PrintOptions {
  bool generic = false;  // "name"(operands) ... : (types) -> types for every op
  // Dense constants with more elements than this are printed as hex blobs.
  int64_t hex_threshold = 256;
};

std::string PrintType(Type t);
std::string PrintAttribute(const Attribute& a);
std::string PrintModule(const Module& m, const PrintOptions& options = {});
// Prints one op (and its regions) on its own; value names are local to this call.
std::string PrintOperation(const Operation& op, const PrintOptions& options = {});

// Shortest text for a double that reads back to the same value (always has '.', 'e', or is a
// hex NaN/inf pattern for `k` when not finite).
std::string FormatFloat(double v, ElemKind k);

}  // namespace openpjrt::ir
