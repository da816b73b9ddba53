// The parser core: errors and tokens, value scopes, type signatures, the generic op form,
// regions and the top level. Types and literals live in parser_types.cc, attributes and dense
// literals in parser_attrs.cc, the pretty forms of ops in parser_ops.cc.
#include "src/ir/parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <cstdio>

#include "absl/status/status.h"
#include "src/support/str.h"
#include "src/ir/float_format.h"
#include "src/ir/parser_impl.h"

namespace openpjrt::ir {

Parser::Parser(std::string_view src, const ParseOptions& opts, Context* ctx)
    : lex_(src, opts.first_line), opts_(opts), ctx_(ctx) {}

// ---------------------------------------------------------------------------------------------
// Errors and tokens

void Parser::Error(const Token& at, const std::string& msg) { ErrorLoc(LocOf(at), msg); }

void Parser::ErrorLoc(Loc at, const std::string& msg) {
  throw ParseError(StrCat(opts_.source_name, ":", at.line, ":", at.col, ": error: ", msg));
}

std::string Parser::Describe(const Token& t) {
  if (t.kind == Tok::kEof) return "end of input";
  std::string_view s = t.text.substr(0, 40);
  switch (t.kind) {
    case Tok::kValueId: return StrCat("'%", s, "'");
    case Tok::kSymbolId: return StrCat("'@", s, "'");
    case Tok::kHashId: return StrCat("'#", s, "'");
    case Tok::kBangId: return StrCat("'!", s, "'");
    case Tok::kCaretId: return StrCat("'^", s, "'");
    default: return StrCat("'", s, "'");
  }
}

Token Parser::Expect(Tok k, const char* what) {
  Token t = lex_.Next();
  if (t.kind != k) Error(t, StrCat("expected ", what, ", found ", Describe(t)));
  return t;
}

bool Parser::Consume(Tok k) {
  if (lex_.Peek().kind != k) return false;
  lex_.Next();
  return true;
}

bool Parser::ConsumeKeyword(std::string_view kw) {
  if (!PeekKeyword(kw)) return false;
  lex_.Next();
  return true;
}

void Parser::ExpectKeyword(std::string_view kw) {
  Token t = lex_.Next();
  if (t.kind != Tok::kBareId || t.text != kw)
    Error(t, StrCat("expected '", kw, "', found ", Describe(t)));
}

// `loc(...)` may follow an op, an argument or a result; locations are not kept.
void Parser::SkipTrailingLocation() {
  if (!PeekKeyword("loc")) return;
  Token at = lex_.Next();
  Expect(Tok::kLParen, "'(' after 'loc'");
  int depth = 1;
  while (depth > 0) {
    Token t = lex_.Next();
    if (t.kind == Tok::kEof || t.kind == Tok::kError) Error(at, "unterminated location");
    if (t.kind == Tok::kLParen) ++depth;
    if (t.kind == Tok::kRParen) --depth;
  }
}

// ---------------------------------------------------------------------------------------------
// Values and scopes

void Parser::PushScope(bool isolated) {
  scopes_.emplace_back();
  scopes_.back().isolated = isolated;
}

void Parser::PopScope() { scopes_.pop_back(); }

ValueRef Parser::ParseValueRef() {
  ValueRef r;
  r.tok = Expect(Tok::kValueId, "a value");
  r.name = r.tok.text;
  // `%name#3`: the lexer stops a suffix id at '#', which then starts a hash token.
  if (PeekIs(Tok::kHashId)) {
    const Token& h = lex_.Peek();
    if (h.offset == r.tok.offset + r.tok.text.size() + 1 && !h.text.empty() && h.text[0] >= '0' &&
        h.text[0] <= '9') {
      Token ht = lex_.Next();
      uint64_t u;
      for (char c : ht.text)
        if (c < '0' || c > '9') Error(ht, "malformed result index");
      if (!ParseU64(ht.text, &u) || u > UINT32_MAX) Error(ht, "result index is too large");
      r.index = static_cast<uint32_t>(u);
      r.has_index = true;
    }
  }
  return r;
}

Value* Parser::Resolve(const ValueRef& ref) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->values.find(ref.name);
    if (f != it->values.end()) {
      const auto& vals = f->second;
      if (ref.has_index) {
        if (ref.index >= vals.size())
          Error(ref.tok, StrCat("result index ", ref.index, " is out of range for '%",
                                      ref.name, "' with ", vals.size(), " results"));
        return vals[ref.index];
      }
      if (vals.size() != 1)
        Error(ref.tok, StrCat("'%", ref.name, "' has ", vals.size(),
                                    " results; use '%", ref.name, "#N'"));
      return vals[0];
    }
    if (it->isolated) break;
  }
  Error(ref.tok, StrCat("use of undefined value '%", ref.name, "'"));
}

Value* Parser::ResolveTyped(const ValueRef& ref, Type expected) {
  Value* v = Resolve(ref);
  if (expected && v->type != expected)
    Error(ref.tok, StrCat("'%", ref.name, "' has type ", v->type.ToString(),
                                " but is used as ", expected.ToString()));
  return v;
}

void Parser::DefineValue(const Token& name, Value* v) {
  auto& vals = scopes_.back().values[name.text];
  if (!vals.empty()) Error(name, StrCat("redefinition of '%", name.text, "'"));
  vals.push_back(v);
}

// ---------------------------------------------------------------------------------------------
// Type signatures

void Parser::ApplyTypeSig(Operation* op, const std::vector<Value*>& operands, const TypeSig& sig,
                          int num_results) {
  const OpInfo& info = GetOpInfo(op->code);
  std::vector<Type> in, out;
  auto same_shape = [&](Type like, Type elem) -> Type {
    if (!like.IsTensor()) Error(sig.at, StrCat("expected a tensor type, found ", like.ToString()));
    return ctx_->Tensor(like.shape(), elem, like.encoding());
  };
  if (sig.functional) {
    in = sig.inputs;
    out = sig.results;
  } else {
    const auto& list = sig.inputs;
    size_t nops = operands.size();
    switch (info.type_rule) {
      case 'S':
      case 'F':
        if (list.size() != 1)
          Error(sig.at, StrCat("expected one type or a function type for '", op->name(), "'"));
        in.assign(nops, list[0]);
        out.assign(num_results < 0 ? 1 : num_results, list[0]);
        break;
      case 'R': {
        if (list.size() != 1) Error(sig.at, "expected one type");
        Type et = list[0].IsTensor() ? list[0].element_type() : Type();
        if (!et || !et.IsElement() || !IsComplex(et.elem()))
          Error(sig.at, StrCat("'", op->name(), "' short form needs a complex tensor type"));
        in.assign(nops, list[0]);
        out.push_back(same_shape(list[0], ctx_->Element(ComplexPart(et.elem()))));
        break;
      }
      case 'C': {
        if (list.size() != 1) Error(sig.at, "expected one type");
        Type et = list[0].IsTensor() ? list[0].element_type() : Type();
        if (!et || !et.IsElement() || !IsComplex(et.elem()))
          Error(sig.at, "'stablehlo.complex' short form needs a complex tensor type");
        in.assign(nops, same_shape(list[0], ctx_->Element(ComplexPart(et.elem()))));
        out.push_back(list[0]);
        break;
      }
      case 'I':
        if (list.size() != 1) Error(sig.at, "expected one type");
        in.assign(nops, list[0]);
        out.push_back(same_shape(list[0], ctx_->Element(ElemKind::kI1)));
        break;
      case 'P':
        if (list.size() == 2) {
          in = {list[0], list[1], list[1]};
          out.push_back(list[1]);
        } else if (list.size() == 1) {
          in = {same_shape(list[0], ctx_->Element(ElemKind::kI1)), list[0], list[0]};
          out.push_back(list[0]);
        } else {
          Error(sig.at, "expected 'pred_type, type' or a function type for 'stablehlo.select'");
        }
        break;
      case 'L':
        in = list;
        if (info.num_results != 0) out = list;
        break;
      case 'E':
        if (list.size() == 1) {
          in.assign(nops, list[0]);
        } else {
          in = list;
        }
        break;
      case 'T':
        if (list.size() != 1 || !list[0].IsTuple()) Error(sig.at, "expected one tuple type");
        in.assign(list[0].inputs().begin(), list[0].inputs().end());
        out.push_back(list[0]);
        break;
      case 'K':
        if (list.size() != 1) Error(sig.at, "expected one type");
        in.assign(nops, ctx_->Token());
        out.push_back(list[0]);
        break;
      case 'N':
        in.clear();
        out = list;
        break;
      default:
        Error(sig.at, "expected a function type");
    }
  }
  if (in.size() != operands.size())
    Error(sig.at, StrCat("'", op->name(), "' has ", operands.size(), " operands but its type ",
                               "signature lists ", in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    if (operands[i]->type != in[i])
      Error(sig.at, StrCat("operand #", i, " of '", op->name(), "' has type ",
                                 operands[i]->type.ToString(), " but the signature says ",
                                 in[i].ToString()));
  }
  op->operands = operands;
  op->SetResultTypes(out);
}

// ---------------------------------------------------------------------------------------------
// Operations, blocks and regions

std::vector<std::pair<Token, Type>> Parser::ParseBlockArguments() {
  std::vector<std::pair<Token, Type>> args;
  if (Consume(Tok::kRParen)) return args;
  do {
    Token name = Expect(Tok::kValueId, "a block argument");
    Expect(Tok::kColon, "':' after the block argument");
    Type t = ParseType();
    SkipTrailingLocation();
    args.emplace_back(name, t);
  } while (Consume(Tok::kComma));
  Expect(Tok::kRParen, "')' to close the block arguments");
  return args;
}

void Parser::ParseRegion(Region* region, const std::vector<std::pair<Token, Type>>* entry_args) {
  Token lb = Expect(Tok::kLBrace, "'{' to open a region");
  DepthGuard guard(this, lb);
  PushScope(false);
  Block* block = region->AddBlock();
  if (entry_args) {
    for (const auto& [name, type] : *entry_args) DefineValue(name, block->AddArgument(type));
  }
  bool block_used = entry_args && !entry_args->empty();
  while (true) {
    if (PeekIs(Tok::kCaretId)) {
      Token label = lex_.Next();
      if (block_used || !block->ops.empty()) block = region->AddBlock();
      if (Consume(Tok::kLParen))
        for (const auto& [name, type] : ParseBlockArguments()) DefineValue(name, block->AddArgument(type));
      Expect(Tok::kColon, "':' after the block label");
      (void)label;
    }
    block_used = true;
    ParseBlockBody(block, Tok::kRBrace);
    if (!PeekIs(Tok::kCaretId)) break;
  }
  Expect(Tok::kRBrace, "'}' to close the region");
  PopScope();
}

void Parser::ParseBlockBody(Block* block, Tok end) {
  while (true) {
    const Token& t = lex_.Peek();
    if (t.kind == end || t.kind == Tok::kCaretId || t.kind == Tok::kEof) return;
    ExpectLastIfTerminator(ParseOperation(block), end);
  }
}

void Parser::ExpectLastIfTerminator(const Operation* op, Tok end) {
  // A terminator's operand list has no closing token, so `return` followed by `%0 = ...` would
  // print back as a return of %0: nothing may follow it in its block.
  if (op->code != OpCode::kReturn && op->code != OpCode::kFuncReturn && op->code != OpCode::kSdyReturn) return;
  const Token& next = lex_.Peek();
  if (next.kind != end && next.kind != Tok::kCaretId && next.kind != Tok::kEof)
    Error(next, StrCat("'", op->name(), "' must be the last op of its block, found ", Describe(next)));
}

void Parser::ParseRegionList(Operation* op) {
  Expect(Tok::kLParen, "'(' before the regions");
  if (Consume(Tok::kRParen)) return;
  do ParseRegion(op->AddRegion(), nullptr);
  while (Consume(Tok::kComma));
  Expect(Tok::kRParen, "')' after the regions");
}

Operation* Parser::ParseOperation(Block* block) {
  // Results: %a, %b:2 = ...
  std::vector<std::pair<Token, uint32_t>> result_names;
  if (PeekIs(Tok::kValueId)) {
    do {
      Token name = Expect(Tok::kValueId, "a result name");
      uint32_t count = 1;
      if (Consume(Tok::kColon)) {
        Token c = Expect(Tok::kInteger, "a result count");
        uint64_t u;
        if (!ParseU64(c.text, &u) || u == 0 || u > 1000000) Error(c, "bad result count");
        count = static_cast<uint32_t>(u);
      }
      result_names.emplace_back(name, count);
    } while (Consume(Tok::kComma));
    Expect(Tok::kEqual, "'=' after the result names");
  }
  Token name_tok = lex_.Next();
  std::unique_ptr<Operation> op;
  if (name_tok.kind == Tok::kString) {
    op = ParseGenericOp(name_tok);
  } else if (name_tok.kind == Tok::kBareId) {
    op = ParseCustomOp(name_tok);
  } else {
    Error(name_tok, StrCat("expected an operation, found ", Describe(name_tok)));
  }
  SkipTrailingLocation();
  size_t declared = 0;
  for (auto& [n, c] : result_names) declared += c;
  if (!result_names.empty() && declared != op->num_results())
    Error(result_names[0].first, StrCat("'", op->name(), "' has ", op->num_results(),
                                              " results but ", declared, " names were given"));
  if (result_names.empty() && op->num_results() != 0 && op->code != OpCode::kUnknown) {
    // Results without names are legal MLIR but unusable; accept them.
  }
  size_t next = 0;
  for (auto& [n, c] : result_names) {
    auto& vals = scopes_.back().values[n.text];
    if (!vals.empty()) Error(n, StrCat("redefinition of '%", n.text, "'"));
    for (uint32_t i = 0; i < c; ++i) vals.push_back(op->result(next++));
  }
  return block->Append(std::move(op));
}

std::unique_ptr<Operation> Parser::ParseGenericOp(const Token& name_tok) {
  std::string name;
  if (!UnescapeString(name_tok.text, &name)) Error(name_tok, "malformed op name");
  OpCode code = LookupOp(name);
  if (code == OpCode::kUnknown && name.find('.') == std::string::npos)
    Error(name_tok, StrCat("op name '", name, "' needs a dialect prefix"));
  auto op = std::make_unique<Operation>(code, name, LocOf(name_tok));
  Expect(Tok::kLParen, "'(' after the op name");
  std::vector<ValueRef> refs;
  if (!Consume(Tok::kRParen)) {
    do refs.push_back(ParseValueRef());
    while (Consume(Tok::kComma));
    Expect(Tok::kRParen, "')' after the operands");
  }
  if (PeekIs(Tok::kLSquare)) Error(lex_.Peek(), "block successors are not supported");
  if (PeekIs(Tok::kLess)) {
    Token lt = lex_.Next();
    if (!PeekIs(Tok::kLBrace)) Error(lt, "expected '<{' for properties");
    ParseAttrDict(&op->attrs);
    Expect(Tok::kGreater, "'>' to close the properties");
  }
  bool isolated = IsolatedFromAbove(code);
  if (PeekIs(Tok::kLParen)) {
    if (isolated) PushScope(true);
    ParseRegionList(op.get());
    if (isolated) PopScope();
  }
  if (PeekIs(Tok::kLBrace)) {
    std::vector<NamedAttribute> more;
    ParseAttrDict(&more);
    for (auto& a : more) {
      if (op->attr(a.first)) Error(name_tok, StrCat("duplicate attribute '", a.first, "'"));
      op->attrs.push_back(std::move(a));
    }
  }
  Token colon = Expect(Tok::kColon, "':' and the op's function type");
  Type ft = ParseType();
  if (ft.kind() != TypeKind::kFunction)
    Error(colon, StrCat("generic op needs a function type, found ", ft.ToString()));
  if (ft.inputs().size() != refs.size())
    Error(colon, StrCat("'", name, "' has ", refs.size(), " operands but its type lists ",
                              ft.inputs().size()));
  for (size_t i = 0; i < refs.size(); ++i) op->operands.push_back(ResolveTyped(refs[i], ft.inputs()[i]));
  op->SetResultTypes(std::vector<Type>(ft.results().begin(), ft.results().end()));
  return op;
}

std::unique_ptr<Operation> Parser::ParseCustomOp(const Token& name_tok) {
  OpCode code = LookupOp(name_tok.text);
  if (code == OpCode::kUnknown)
    Error(name_tok, StrCat("unknown operation '", name_tok.text,
                                 "' (ops of other dialects must use the generic form)"));
  auto op = std::make_unique<Operation>(code, name_tok.text, LocOf(name_tok));
  current_op_ = op.get();
  switch (GetOpInfo(code).syntax) {
    case OpSyntax::kGeneric:
      Error(name_tok, StrCat("'", name_tok.text, "' has no pretty form; write it as \"",
                                   name_tok.text, "\"(...)"));
    case OpSyntax::kOperands: ParseOperandsForm(op.get()); break;
    case OpSyntax::kCompare: ParseCompareForm(op.get()); break;
    case OpSyntax::kConstant: ParseConstantForm(op.get()); break;
    case OpSyntax::kSlice: ParseSliceForm(op.get()); break;
    case OpSyntax::kDotGeneral: ParseDotGeneralForm(op.get()); break;
    case OpSyntax::kConvolution: ParseConvolutionForm(op.get()); break;
    case OpSyntax::kReduce: ParseReduceForm(op.get()); break;
    case OpSyntax::kWhile: ParseWhileForm(op.get()); break;
    case OpSyntax::kGetTupleElement: ParseGetTupleElementForm(op.get()); break;
    case OpSyntax::kCustomCall: ParseCustomCallForm(op.get()); break;
    case OpSyntax::kComposite: ParseCompositeForm(op.get()); break;
    case OpSyntax::kCall: ParseCallForm(op.get()); break;
    case OpSyntax::kFunc: ParseFuncForm(op.get()); break;
    case OpSyntax::kModule: ParseModuleForm(op.get()); break;
    case OpSyntax::kTopK: ParseTopKForm(op.get()); break;
    case OpSyntax::kCheckConst: ParseCheckConstForm(op.get()); break;
    case OpSyntax::kSdyMesh: ParseSdyMeshForm(op.get()); break;
    case OpSyntax::kSdyValueSharding: ParseSdyValueShardingForm(op.get()); break;
    case OpSyntax::kSdyComputation: ParseSdyComputationForm(op.get()); break;
    case OpSyntax::kSdyKeyword: ParseSdyKeywordForm(op.get()); break;
    case OpSyntax::kScan: ParseScanForm(op.get()); break;
  }
  return op;
}

// ---------------------------------------------------------------------------------------------
// Top level

std::unique_ptr<Operation> Parser::ParseTopLevel() {
  // Resources live at the end of the file; read them first so that uses resolve at once.
  std::string_view src = lex_.src();
  size_t meta = std::string_view::npos;
  if (src.rfind("{-#") != std::string_view::npos) {
    // The text may also sit inside a string or comment: find the last real block by lexing.
    // Only a block outside every bracket counts; one nested in a dialect body is that body's text.
    Lexer scan(src, opts_.first_line);
    int depth = 0;
    for (Token t = scan.Next(); t.kind != Tok::kEof && t.kind != Tok::kError; t = scan.Next()) {
      switch (t.kind) {
        case Tok::kFileMetadataBegin:
          if (depth == 0) meta = t.offset;
          else ++depth;
          break;
        case Tok::kLBrace: case Tok::kLParen: case Tok::kLSquare: case Tok::kLess: ++depth; break;
        case Tok::kRBrace: case Tok::kRParen: case Tok::kRSquare: case Tok::kGreater:
        case Tok::kFileMetadataEnd:
          if (depth > 0) --depth;
          break;
        default: break;
      }
    }
  }
  if (meta != std::string_view::npos) {
    Lexer saved = lex_;
    lex_ = Lexer(src, opts_.first_line);
    lex_.Seek(meta);
    Token begin = lex_.Next();
    ParseFileMetadata(begin);
    lex_ = saved;
  }
  auto module = std::make_unique<Operation>(OpCode::kModule, "builtin.module", Loc{opts_.first_line, 1});
  Block* body = module->AddRegion()->AddBlock();
  PushScope(true);
  bool explicit_module = false;
  while (true) {
    const Token& t = lex_.Peek();
    if (t.kind == Tok::kEof) break;
    if (t.kind == Tok::kFileMetadataBegin) {
      Token begin = lex_.Next();
      ParseFileMetadata(begin);
      continue;
    }
    if (t.kind == Tok::kHashId || t.kind == Tok::kBangId) {
      // Alias definitions: #name = attr, !name = type.
      Token alias = lex_.Next();
      Expect(Tok::kEqual, "'=' in alias definition");
      if (alias.kind == Tok::kHashId) {
        if (PeekKeyword("loc")) {
          SkipTrailingLocation();
        } else {
          attr_aliases_[std::string(alias.text)] = ParseAttribute();
        }
      } else {
        type_aliases_[std::string(alias.text)] = ParseType();
      }
      continue;
    }
    if (t.kind == Tok::kBareId && (t.text == "module" || t.text == "builtin.module")) {
      if (explicit_module || !body->ops.empty())
        Error(t, "only one top-level module is supported per input");
      Token mt = lex_.Next();
      module = std::make_unique<Operation>(OpCode::kModule, "builtin.module", LocOf(mt));
      current_op_ = module.get();
      ParseModuleForm(module.get());
      SkipTrailingLocation();
      body = module->regions[0]->front();
      explicit_module = true;
      continue;
    }
    if (explicit_module) Error(t, "unexpected operation after the module");
    ExpectLastIfTerminator(ParseOperation(body), Tok::kEof);
  }
  PopScope();
  // `"builtin.module"() ({...})` written generically parses as the only op of the implicit
  // module; unwrap it so that both spellings give the same IR.
  if (!explicit_module && body->ops.size() == 1 && body->ops[0]->code == OpCode::kModule) {
    std::unique_ptr<Operation> inner = std::move(body->ops[0]);
    inner->parent = nullptr;
    return inner;
  }
  return module;
}

absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text,
                                                    const ParseOptions& options,
                                                    std::shared_ptr<Context> ctx) {
  if (!ctx) ctx = std::make_shared<Context>();
  auto m = std::make_unique<Module>();
  m->ctx = ctx;
  m->source_name = options.source_name;
  try {
    Parser p(text, options, ctx.get());
    m->op = p.ParseTopLevel();
  } catch (const ParseError& e) {
    return absl::InvalidArgumentError(e.what());
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        StrCat(options.source_name, ": error: out of memory while parsing"));
  } catch (const std::length_error&) {
    return absl::ResourceExhaustedError(
        StrCat(options.source_name, ": error: input too large"));
  }
  return m;
}

Attribute Parser::ParseLoneAttribute() {
  Attribute a = ParseAttribute();
  Expect(Tok::kEof, "the end of the attribute");
  return a;
}

absl::StatusOr<Attribute> ParseAttributeText(std::string_view text, Context& ctx, const ParseOptions& options) {
  try {
    Parser p(text, options, &ctx);
    return p.ParseLoneAttribute();
  } catch (const ParseError& e) {
    return absl::InvalidArgumentError(e.what());
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(StrCat(options.source_name, ": error: out of memory while parsing"));
  } catch (const std::length_error&) {
    return absl::ResourceExhaustedError(StrCat(options.source_name, ": error: input too large"));
  }
}

std::vector<SourceChunk> SplitInputFile(std::string_view text) {
  std::vector<SourceChunk> chunks;
  size_t start = 0;
  uint32_t line = 1, chunk_line = 1;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view l = text.substr(pos, end - pos);
    if (l.find("// -----") != std::string_view::npos) {
      chunks.push_back({text.substr(start, pos - start), chunk_line});
      start = end + (nl == std::string_view::npos ? 0 : 1);
      chunk_line = line + 1;
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
  chunks.push_back({text.substr(std::min(start, text.size())), chunk_line});
  return chunks;
}

}  // namespace openpjrt::ir
