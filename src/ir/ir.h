// The IR proper: values, operations, blocks, regions and modules. An Operation owns its results
// and regions; a Region owns its blocks; a Block owns its arguments and operations. Values are
// referenced by raw pointer and live as long as their owner.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/ir/attributes.h"
#include "src/ir/ops.h"
#include "src/ir/types.h"

namespace openpjrt::ir {

class Operation;
class Block;
class Region;

// A position in the source text, 1-based; line 0 means unknown.
struct Loc {
  uint32_t line = 0;
  uint32_t col = 0;
};

class Value {
 public:
  Type type;
  Operation* def = nullptr;  // defining op, or null for a block argument
  Block* block = nullptr;    // owning block for a block argument
  uint32_t index = 0;        // result number or argument number
};

class Block {
 public:
  Region* parent = nullptr;
  std::vector<std::unique_ptr<Value>> args;
  std::vector<std::unique_ptr<Operation>> ops;

  Value* AddArgument(Type t);
  Operation* Append(std::unique_ptr<Operation> op);
  Operation* terminator() const { return ops.empty() ? nullptr : ops.back().get(); }
};

class Region {
 public:
  Operation* parent = nullptr;
  std::vector<std::unique_ptr<Block>> blocks;

  Block* AddBlock();
  Block* front() const { return blocks.empty() ? nullptr : blocks.front().get(); }
};

class Operation {
 public:
  // `name` is kept only for kUnknown ops; registered ops use the table's name.
  Operation(OpCode code, std::string_view name, Loc loc);
  ~Operation();

  OpCode code;
  std::string unknown_name;
  Loc loc;
  Block* parent = nullptr;
  std::vector<Value*> operands;
  std::vector<NamedAttribute> attrs;  // inherent and discardable attributes, in source order
  std::vector<std::unique_ptr<Region>> regions;

  std::string_view name() const;
  size_t num_results() const { return results_.size(); }
  Value* result(size_t i) { return &results_[i]; }
  const Value* result(size_t i) const { return &results_[i]; }
  // Creates the results; may be called once.
  void SetResultTypes(const std::vector<Type>& types);

  Attribute attr(std::string_view name) const;
  void SetAttr(std::string_view name, Attribute value);
  bool RemoveAttr(std::string_view name);
  Region* AddRegion();

 private:
  std::vector<Value> results_;
};

// A parsed program: a builtin.module operation plus the context that owns its types.
class Module {
 public:
  std::shared_ptr<Context> ctx;
  std::unique_ptr<Operation> op;  // builtin.module
  std::string source_name;        // for diagnostics

  Block* body() const { return op->regions[0]->front(); }
  // Finds a func.func by symbol name; null if absent.
  Operation* LookupFunction(std::string_view name) const;
};

// Helpers for func.func ops.
std::string_view FuncName(const Operation& func);
Type FuncType(const Operation& func);

// A deep copy of `op` and its regions; `map` sends values of the original to values of the copy
// (operands defined outside `op` and absent from `map` keep pointing at the originals).
std::unique_ptr<Operation> CloneOperation(const Operation& op, std::unordered_map<const Value*, Value*>& map);

}  // namespace openpjrt::ir
