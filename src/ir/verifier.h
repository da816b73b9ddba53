// Checks a parsed module against the StableHLO specification's constraints: operand and result
// counts, element types, shapes, attribute ranges, region signatures, symbol references.
// The first violation is reported as `file:line:col: error: 'op.name' op <what is wrong>`.
#pragma once

#include "absl/status/status.h"
#include "src/ir/ir.h"

namespace openpjrt::ir {

absl::Status VerifyModule(const Module& m);

}  // namespace openpjrt::ir
