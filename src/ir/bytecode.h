// MLIR bytecode front end: reads StableHLO portable artifacts (MLIR bytecode of the VHLO dialect,
// bytecode versions 0-6) into the same IR the text parser produces. The reader is ours; it
// follows the published bytecode format (llvm-project mlir/docs/BytecodeFormat.md) and the VHLO
// encodings of openxla/stablehlo.
//
// Layers: bytecode.cc decodes the container (sections, strings, dialects, attribute and type
// tables, properties, the IR tree) into a BcModule; vhlo.cc maps VHLO ops, attributes and types
// onto StableHLO and hands the result to the text parser, so both paths share one verifier.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/ir.h"

namespace openpjrt::ir {

// True when `data` starts with the MLIR bytecode magic "ML\xEFR".
bool IsBytecode(std::string_view data);

// Reads a portable artifact. Malformed input is INVALID_ARGUMENT naming the byte offset and
// what was expected; unknown ops and versions newer than the reader knows are rejected by name.
absl::StatusOr<std::unique_ptr<Module>> ParseBytecode(std::string_view data,
                                                      const std::string& source_name = "<bytecode>");

// Text or bytecode, by the magic: the one entry point for programs from outside.
absl::StatusOr<std::unique_ptr<Module>> ParseProgram(std::string_view data,
                                                     const std::string& source_name);

// The same, stopping at StableHLO text (what ParseBytecode hands to the text parser).
absl::StatusOr<std::string> BytecodeToText(std::string_view data,
                                           const std::string& source_name = "<bytecode>");

namespace bc {

// ---- decoded attributes and types (dialect-neutral shapes the VHLO layer consumes)

struct Type;
struct Attr;
using TypeP = std::shared_ptr<const Type>;
using AttrP = std::shared_ptr<const Attr>;

struct Type {
  enum Kind { kInt, kFloat, kIndex, kNone, kComplex, kTensor, kUnranked, kToken, kTuple,
              kFunction, kQuant, kOther } kind = kOther;
  std::string name;                 // element type spelling: i32, ui8, i1, f32, bf16, f8E4M3FN...
  int bits = 0;                     // storage bits of a scalar (i1 = 1)
  std::vector<int64_t> shape;       // kTensor (kDynamic = -1 for `?`)
  std::vector<int64_t> bounds;      // kTensor with a bounds encoding (-1 = none)
  TypeP elem;                       // kTensor, kUnranked, kComplex
  std::vector<TypeP> items, results;  // kTuple items; kFunction inputs/results
  std::string text;                 // the StableHLO spelling of the whole type
};

struct Attr {
  enum Kind { kString, kInt, kFloat, kBool, kArray, kDict, kTensor, kType, kEnum, kUnit,
              kSymbol, kTypeExtensions, kOutputOperandAlias, kResultAccuracy, kOther } kind = kOther;
  std::string str;                  // kString, kSymbol, kEnum ("comparison_direction EQ"), kOther text
  int64_t i = 0;                    // kInt (sign-extended), kBool
  std::string float_text;           // kFloat: an exact spelling (hex bits) for the text parser
  TypeP type;                       // kInt/kFloat element type, kTensor tensor type, kType
  std::vector<AttrP> items;         // kArray
  std::vector<std::pair<std::string, AttrP>> dict;  // kDict (names as written)
  std::string data;                 // kTensor raw little-endian bytes (i1: one byte each)
  std::vector<int64_t> ints, ints2; // kTypeExtensions bounds; kOutputOperandAlias tuple indices
  AttrP sub;                        // kResultAccuracy mode
  std::string nested;               // kOther of dialect sdy: its form inside another sdy attribute
};

struct Region;
struct Op {
  std::string name;                              // "vhlo.add_v1", "builtin.module"
  std::vector<std::pair<std::string, AttrP>> attrs;  // inherent and discardable, by name
  std::vector<AttrP> props;                      // properties as attribute references, in order
  bool props_by_position = false;                // props holds positional VHLO properties
  std::vector<TypeP> result_types;
  std::vector<std::string> results;              // SSA names
  std::vector<std::string> operands;             // SSA names
  std::vector<TypeP> operand_types;
  std::vector<Region> regions;
  size_t offset = 0;                             // where the op starts in the file
};
struct Block {
  std::vector<std::pair<std::string, TypeP>> args;
  std::vector<Op> ops;
};
struct Region {
  std::vector<Block> blocks;
};

struct Module {
  uint64_t version = 0;
  std::string producer;
  std::vector<Op> top;  // the top-level ops (normally one builtin.module)
};

// Decodes the container. Exposed for the VHLO layer and for tests.
absl::StatusOr<Module> Decode(std::string_view data);

}  // namespace bc
}  // namespace openpjrt::ir
