// The MLIR text front end: parses StableHLO, CHLO, func and check ops in pretty and generic form
// into a Module. Errors carry `file:line:col: error: ...`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/ir.h"

namespace openpjrt::ir {

struct ParseOptions {
  std::string source_name = "<input>";
  uint32_t first_line = 1;  // line number of the first line of `text` (for split files)
  int max_depth = 256;      // nesting limit for regions, attributes and types
};

// Parses one module. Top-level ops without a `module` wrapper are wrapped in one. The context
// is created when null. Never crashes on malformed input; the error names file:line:col.
absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text,
                                                    const ParseOptions& options = {},
                                                    std::shared_ptr<Context> ctx = nullptr);

// Parses one attribute on its own (`[dense<1> : tensor<2xi32>, 4 : i64]`, `dense<...> : tensor<...>`),
// as `openpjrt run --args` takes them: nothing but whitespace and comments may follow it. Errors
// name file:line:col as ParseModule's do.
absl::StatusOr<Attribute> ParseAttributeText(std::string_view text, Context& ctx,
                                             const ParseOptions& options = {});

struct SourceChunk {
  std::string_view text;
  uint32_t first_line;
};
// Splits a file at lines that contain `// -----` (the lines themselves belong to no chunk).
std::vector<SourceChunk> SplitInputFile(std::string_view text);

}  // namespace openpjrt::ir
