// Helpers shared by the runtime's unit tests.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "src/compiler/compile.h"
#include "src/ir/parser.h"
#include "src/ir/verifier.h"

namespace openpjrt::runtime::test_util {

// Parses, verifies and compiles one module of MLIR text.
inline absl::StatusOr<std::shared_ptr<cpu::Executable>> CompileText(const std::string& text) {
  auto m = ir::ParseModule(text);
  if (!m.ok()) return m.status();
  if (absl::Status s = ir::VerifyModule(**m); !s.ok()) return s;
  return compiler::Compile(**m);
}

}  // namespace openpjrt::runtime::test_util
