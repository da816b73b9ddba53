// The op table (ops.def) as C++: an OpCode per row and the facts the parser, printer and
// verifier read from it.
#pragma once

#include <cstdint>
#include <string_view>

namespace openpjrt::ir {

enum class OpCode : uint16_t {
#define OP(code, name, syntax, rule, kw, min_ops, max_ops, results, regions) k##code,
#include "src/ir/ops.def"
#undef OP
  kUnknown,  // an op of another dialect, parsed and printed generically
};
inline constexpr int kNumOpCodes = static_cast<int>(OpCode::kUnknown);

// How an op's pretty form is written.
enum class OpSyntax : uint8_t {
  kGeneric,          // only the generic form: "name"(operands) <{props}> (regions) {attrs} : type
  kOperands,         // name %a, %b[, key = value...] {attrs} : types
  kCompare,          // stablehlo.compare DIR, %a, %b[, TYPE] : ...
  kConstant,         // stablehlo.constant dense<...> : tensor<...>
  kSlice,            // stablehlo.slice %x [1:3, 0:4:2] : ...
  kDotGeneral,       // stablehlo.dot_general %a, %b, batching_dims = [0] x [0], ...
  kConvolution,      // stablehlo.convolution(%x, %w) dim_numbers = ..., window = {...}
  kReduce,           // stablehlo.reduce(%x init: %c) applies/across ... or reducer(...)
  kWhile,            // stablehlo.while(%it = %x) : T cond {...} do {...}
  kGetTupleElement,  // stablehlo.get_tuple_element %t[0] : ...
  kCustomCall,       // stablehlo.custom_call @target(%a) {...} : ...
  kComposite,        // stablehlo.composite "name" %a {...} : ...
  kCall,             // func.call @f(%a) : (...) -> ...
  kFunc,             // func.func [visibility] @f(%arg0: T {attrs}) -> (R {attrs}) attributes {...} {...}
  kModule,           // module [@name] [attributes {...}] {...}
  kTopK,             // chlo.top_k(%x, k = 5) : T -> (T, T)
  kCheckConst,       // check.expect_eq_const %a, dense<...> : T
  kSdyMesh,          // sdy.mesh @name = <...>
  kSdyValueSharding, // sdy.sharding_constraint %x <@mesh, [{"x"}]> : tensor<...> (also sdy.reshard)
  kSdyComputation,   // sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...] manual_axes={...}
                     //   (%arg1: T) {...} : (T) -> R; sdy.named_computation<"name">(%x) [...] likewise
  kSdyKeyword,       // sdy.sharding_group %x group_id=3 : T; sdy.propagation_barrier %x allowed_direction=NONE : T
  kScan,             // chlo.scan(%x) inits(%c) dimension=0 [attributes {...}] {...} : (...) -> (...)
};

struct OpInfo {
  std::string_view name;
  OpSyntax syntax;
  char type_rule;              // see below
  std::string_view keywords;   // see ops.def
  int min_operands, max_operands, num_results, num_regions;  // -1: any
};
// Type rules: how a type list after ':' that is not a function type maps to operand and result
// types. 'S' every operand and result has the one type; 'F' the same as 'S' (but printed as a
// function type); 'R' operand T, result its real part; 'C' result T, operands its real part;
// 'I' operand T, result i1 of the same shape; 'P' (pred, T) for select; 'L' the list is the
// operands' types, results (if any) the same; 'T' one tuple type, members are the operands;
// 'K' one token type for the result, operands are tokens; 'N' the list is the results;
// 'E' (no results) one type for every operand, or one type per operand.

const OpInfo& GetOpInfo(OpCode code);
// Finds an op by full name ("stablehlo.add"); also accepts the short func names ("return",
// "call", "func", "module"). Returns kUnknown when not in the table.
OpCode LookupOp(std::string_view name);

// Ops whose regions cannot see the values around them.
inline bool IsolatedFromAbove(OpCode c) {
  return c == OpCode::kFunc || c == OpCode::kModule || c == OpCode::kSdyManualComputation ||
         c == OpCode::kSdyNamedComputation;
}

}  // namespace openpjrt::ir
