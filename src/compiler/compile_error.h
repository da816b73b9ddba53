// The error the compiler's internal passes (lowering, SPMD partitioning) throw deep inside a
// program walk; each public entry point catches it and returns it as an absl::Status.
#pragma once

#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "src/ir/ir.h"
#include "src/support/str.h"

namespace openpjrt::compiler::internal {

class CompileError : public std::runtime_error {
 public:
  CompileError(absl::StatusCode code, const std::string& msg) : std::runtime_error(msg), code(code) {}
  absl::StatusCode code;
};

// An error about `op` of the module read from `source`, located as `source:line:col`.
[[noreturn]] inline void FailAt(const std::string& source, const ir::Operation& op, absl::StatusCode code,
                                const std::string& msg) {
  throw CompileError(code, StrCat(source, ":", op.loc.line, ":", op.loc.col, ": error: '", op.name(), "' op ", msg));
}

}  // namespace openpjrt::compiler::internal
