// The parser's internal state, shared by parser.cc (types, attributes, the generic form, regions)
// and parser_ops.cc (the pretty forms). Errors unwind as ParseError and become a Status at the
// entry point; nothing outside the front end sees the exception.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/ir/ir.h"
#include "src/ir/lexer.h"
#include "src/ir/parser.h"

namespace openpjrt::ir {

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An operand reference seen before its type is known: `%name` or `%name#2`.
struct ValueRef {
  std::string_view name;
  uint32_t index = 0;
  bool has_index = false;
  Token tok;
};

// A dense literal read before the type that gives it meaning.
struct DenseScalar {
  Token re, im;       // im.kind == kEof unless complex
  bool re_neg = false, im_neg = false;
  bool complex = false;
};
struct DenseLiteral {
  Token at;
  bool hex = false;
  std::string hex_bytes;
  bool splat = false;  // a single scalar without brackets
  bool empty = false;  // dense<>
  std::vector<int64_t> shape;
  std::vector<DenseScalar> elems;
};

// A type signature after ':': either a function type or a plain list.
struct TypeSig {
  bool functional = false;
  std::vector<Type> inputs;   // the list, or the function inputs
  std::vector<Type> results;  // function results (also `A -> B` without parentheses)
  Token at;
};

class Parser {
 public:
  Parser(std::string_view src, const ParseOptions& opts, Context* ctx);
  std::unique_ptr<Operation> ParseTopLevel();
  Attribute ParseLoneAttribute();  // one attribute, then the end of the text

  // ---- errors and tokens (parser.cc)
  [[noreturn]] void Error(const Token& at, const std::string& msg);
  [[noreturn]] void ErrorLoc(Loc at, const std::string& msg);
  Token Expect(Tok k, const char* what);
  bool Consume(Tok k);
  bool ConsumeKeyword(std::string_view kw);
  void ExpectKeyword(std::string_view kw);
  bool PeekIs(Tok k) { return lex_.Peek().kind == k; }
  bool PeekKeyword(std::string_view kw) {
    return lex_.Peek().kind == Tok::kBareId && lex_.Peek().text == kw;
  }
  static Loc LocOf(const Token& t) { return Loc{t.line, t.col}; }
  std::string Describe(const Token& t);
  void SkipTrailingLocation();

  // ---- types (parser.cc)
  Type ParseType();
  void ParseTypeListNoParens(std::vector<Type>* out);
  void ParseTypeListParens(std::vector<Type>* out);  // '(' [types] ')'
  Type ParseFunctionResults(std::vector<Type>* results);
  TypeSig ParseTypeSignature();
  Type ParseTensorType();
  Type ParseQuantType(const Token& at);
  bool TryParseElementKind(const Token& t, ElemKind* out);

  // ---- attributes (parser.cc)
  Attribute ParseAttribute();
  void ParseAttrDict(std::vector<NamedAttribute>* out);  // '{' ... '}'
  Attribute ParseDialectAttribute(const Token& hash);
  Attribute ParseStructBody(std::string name);
  Attribute ParseStructValue();
  Attribute ParseConvDimNumbers(std::string name, bool close);
  Attribute ParseOpaqueBody(const Token& start);
  DenseLiteral ParseDenseLiteralBody();  // after 'dense<', up to and including '>'
  Attribute MaterializeDense(const DenseLiteral& lit, Type type);
  Attribute ParseNumberAttr(bool negative, const Token& num);
  int64_t ParseIntegerLiteral(bool allow_negative = true);
  // A decimal literal, or a hexadecimal one read as the bit pattern of `kind`.
  double ParseFloatLiteral(ElemKind kind = ElemKind::kF64);
  std::vector<int64_t> ParseI64ListBrackets();  // [1, -2, ?]
  std::string ParseStringLiteral();
  void ParseFileMetadata(const Token& begin);

  // ---- ops and regions (parser.cc)
  void ParseBlockBody(Block* block, Tok end);
  // Fails if op is a terminator and the next token does not end its block (end, a block label, EOF).
  void ExpectLastIfTerminator(const Operation* op, Tok end);
  Operation* ParseOperation(Block* block);
  std::unique_ptr<Operation> ParseGenericOp(const Token& name_tok);
  std::unique_ptr<Operation> ParseCustomOp(const Token& name_tok);
  // After '(': `%name: type` pairs up to and including ')'.
  std::vector<std::pair<Token, Type>> ParseBlockArguments();
  void ParseRegion(Region* region, const std::vector<std::pair<Token, Type>>* entry_args);
  void ParseRegionList(Operation* op);  // '(' region, ... ')'
  ValueRef ParseValueRef();
  Value* Resolve(const ValueRef& ref);
  Value* ResolveTyped(const ValueRef& ref, Type expected);
  void DefineValue(const Token& name, Value* v);
  void PushScope(bool isolated);
  void PopScope();
  void ApplyTypeSig(Operation* op, const std::vector<Value*>& operands, const TypeSig& sig,
                    int num_results_hint);

  // ---- pretty forms (parser_ops.cc)
  void ParseOperandsForm(Operation* op);
  void ParseKeywords(Operation* op, bool need_comma);
  void ParseCompareForm(Operation* op);
  void ParseConstantForm(Operation* op);
  void ParseSliceForm(Operation* op);
  void ParseDotGeneralForm(Operation* op);
  void ParseConvolutionForm(Operation* op);
  void ParseReduceForm(Operation* op);
  void ParseWhileForm(Operation* op);
  void ParseGetTupleElementForm(Operation* op);
  void ParseCustomCallForm(Operation* op);
  void ParseCompositeForm(Operation* op);
  void ParseCallForm(Operation* op);
  void ParseFuncForm(Operation* op);
  void ParseModuleForm(Operation* op);
  void ParseTopKForm(Operation* op);
  void ParseCheckConstForm(Operation* op);
  void ParseSdyMeshForm(Operation* op);
  void ParseSdyValueShardingForm(Operation* op);
  void ParseSdyComputationForm(Operation* op);
  void ParseSdyKeywordForm(Operation* op);
  void ParseScanForm(Operation* op);
  // %a, %b, ...; stops before a non-value. *comma: a ',' after the last operand was consumed.
  std::vector<Value*> ParseOperandList(bool* comma);
  Attribute ParsePrecisionList();
  void ParseOptionalAttrDict(Operation* op);
  void FinishWithTypes(Operation* op, bool types_optional);

  Context* ctx() { return ctx_; }
  Type I64() { return ctx_->Element(ElemKind::kI64); }
  Type I32() { return ctx_->Element(ElemKind::kI32); }

  Lexer lex_;
  const ParseOptions& opts_;
  Context* ctx_;
  int depth_ = 0;

 private:
  struct Scope {
    std::unordered_map<std::string_view, std::vector<Value*>> values;
    bool isolated = false;
  };
  std::vector<Scope> scopes_;
  std::unordered_map<std::string, Attribute> attr_aliases_;
  std::unordered_map<std::string, Type> type_aliases_;
  // dense_resource<name> uses, resolved when the file metadata is read.
  struct PendingResource {
    std::string name;
    Type type;
    Operation* op;
    std::string attr_name;
    Token at;
  };

 public:
  std::vector<PendingResource> pending_resources_;
  Operation* current_op_ = nullptr;        // op whose attributes are being parsed
  std::string current_attr_name_;
  std::unordered_map<std::string, std::string> resources_;
};

// Parses a decimal or 0x hex integer literal that fits in 64 bits.
inline bool ParseU64(std::string_view text, uint64_t* out) {
  char buf[80];
  if (text.size() >= sizeof(buf)) return false;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = 0;
  errno = 0;
  *out = std::strtoull(buf, nullptr, 0);
  return errno != ERANGE;
}

// Guards recursion depth; throws past the limit.
class DepthGuard {
 public:
  DepthGuard(Parser* p, const Token& at) : p_(p) {
    if (++p_->depth_ > p_->opts_.max_depth) p_->Error(at, "nesting is too deep");
  }
  ~DepthGuard() { --p_->depth_; }

 private:
  Parser* p_;
};

}  // namespace openpjrt::ir
