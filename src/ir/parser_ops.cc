// Pretty (custom) forms of ops, driven by the op table's syntax and keyword columns.
#include <cstring>

#include "src/support/str.h"
#include "src/ir/parser_impl.h"

namespace openpjrt::ir {
namespace {

struct KeywordSpec {
  std::string_view key, attr, kind;
};

// "dims=broadcast_dimensions/a low=edge_padding_low/a" -> specs.
std::vector<KeywordSpec> ParseKeywordSpecs(std::string_view s) {
  std::vector<KeywordSpec> out;
  while (!s.empty()) {
    size_t sp = s.find(' ');
    std::string_view item = s.substr(0, sp);
    s = sp == std::string_view::npos ? std::string_view() : s.substr(sp + 1);
    size_t eq = item.find('='), sl = item.find('/');
    out.push_back({item.substr(0, eq), item.substr(eq + 1, sl - eq - 1), item.substr(sl + 1)});
  }
  return out;
}

}  // namespace

std::vector<Value*> Parser::ParseOperandList(bool* comma) {
  std::vector<Value*> vals;
  *comma = false;
  if (!PeekIs(Tok::kValueId)) return vals;
  vals.push_back(Resolve(ParseValueRef()));
  while (PeekIs(Tok::kComma)) {
    lex_.Next();
    if (!PeekIs(Tok::kValueId)) {
      *comma = true;
      break;
    }
    vals.push_back(Resolve(ParseValueRef()));
  }
  return vals;
}

Attribute Parser::ParsePrecisionList() {
  Expect(Tok::kLSquare, "'[' before the precision list");
  std::vector<Attribute> v;
  if (!Consume(Tok::kRSquare)) {
    do {
      Token t = Expect(Tok::kBareId, "a precision (DEFAULT, HIGH, HIGHEST)");
      v.push_back(Attribute::Enum("stablehlo.precision", std::string(t.text)));
    } while (Consume(Tok::kComma));
    Expect(Tok::kRSquare, "']' after the precision list");
  }
  return Attribute::Array(std::move(v));
}

void Parser::ParseOptionalAttrDict(Operation* op) {
  if (!PeekIs(Tok::kLBrace)) return;
  Token at = lex_.Peek();
  std::vector<NamedAttribute> more;
  ParseAttrDict(&more);
  for (auto& a : more) {
    if (op->attr(a.first)) Error(at, StrCat("duplicate attribute '", a.first, "'"));
    op->attrs.push_back(std::move(a));
  }
}

// Reads `: types` and applies it to the operands already stored in op->operands.
void Parser::FinishWithTypes(Operation* op, bool types_optional) {
  std::vector<Value*> operands = std::move(op->operands);
  op->operands.clear();
  TypeSig sig;
  if (types_optional && !PeekIs(Tok::kColon)) {
    sig.at = lex_.Peek();
  } else {
    Expect(Tok::kColon, "':' and the op's types");
    sig = ParseTypeSignature();
  }
  ApplyTypeSig(op, operands, sig, GetOpInfo(op->code).num_results);
}

void Parser::ParseKeywords(Operation* op, bool comma_pending) {
  const OpInfo& info = GetOpInfo(op->code);
  auto specs = ParseKeywordSpecs(info.keywords);
  bool need_kw = comma_pending;
  bool first = true;
  while (true) {
    if (!need_kw && !(first && op->operands.empty())) {
      if (!PeekIs(Tok::kComma)) return;
      lex_.Next();
      need_kw = true;
    }
    const Token& t = lex_.Peek();
    const KeywordSpec* spec = nullptr;
    if (t.kind == Tok::kBareId)
      for (const auto& s : specs)
        if (s.key == t.text) spec = &s;
    if (!spec) {
      if (!need_kw) return;
      std::string names;
      for (const auto& s : specs) StrAppend(&names, names.empty() ? "" : ", ", "'", s.key, "'");
      Error(t, StrCat("expected ", names.empty() ? "an operand" : names, " in '", op->name(),
                            "', found ", Describe(t)));
    }
    Token key = lex_.Next();
    Expect(Tok::kEqual, "'=' after the keyword");
    std::string attr(spec->attr);
    if (op->attr(attr)) Error(key, StrCat("duplicate '", key.text, "'"));
    char kind = spec->kind[0];
    switch (kind) {
      case 'a':
        op->SetAttr(attr, Attribute::DenseI64(I64(), ParseI64ListBrackets()));
        break;
      case 'i':
        op->SetAttr(attr, Attribute::Integer(I64(), ParseIntegerLiteral()));
        break;
      case 'd':
        op->SetAttr(attr, Attribute::Float(ctx_->Element(ElemKind::kF64), ParseFloatLiteral()));
        break;
      case 's':
        op->SetAttr(attr, Attribute::String(ParseStringLiteral()));
        break;
      case 'b': {
        Token b = lex_.Next();
        if (b.kind != Tok::kBareId || (b.text != "true" && b.text != "false"))
          Error(b, "expected 'true' or 'false'");
        op->SetAttr(attr, Attribute::Bool(b.text == "true"));
        break;
      }
      case 'p':
        op->SetAttr(attr, ParsePrecisionList());
        break;
      case 'e': {
        Token v = Expect(Tok::kBareId, "an enum value");
        op->SetAttr(attr, Attribute::Enum(StrCat("stablehlo.", spec->kind.substr(2)),
                                          std::string(v.text)));
        break;
      }
      case 'f': {
        // e<exponent bits>m<mantissa bits>
        Token v = Expect(Tok::kBareId, "a format such as e5m10");
        std::string_view s = v.text;
        size_t m = s.find('m');
        int64_t e = 0, mm = 0;
        bool ok = s.size() >= 4 && s[0] == 'e' && m != std::string_view::npos && m > 1 &&
                  m + 1 < s.size();
        for (size_t i = 1; ok && i < m; ++i) ok = std::isdigit(static_cast<unsigned char>(s[i]));
        for (size_t i = m + 1; ok && i < s.size(); ++i) ok = std::isdigit(static_cast<unsigned char>(s[i]));
        if (ok && m - 1 < 10 && s.size() - m - 1 < 10) {
          e = std::stoll(std::string(s.substr(1, m - 1)));
          mm = std::stoll(std::string(s.substr(m + 1)));
        } else {
          Error(v, StrCat("expected a format such as e5m10, found ", Describe(v)));
        }
        op->SetAttr("exponent_bits", Attribute::Integer(I32(), e));
        op->SetAttr("mantissa_bits", Attribute::Integer(I32(), mm));
        break;
      }
      default:
        Error(key, "internal error: bad keyword kind in the op table");
    }
    first = false;
    need_kw = false;
  }
}

void Parser::ParseOperandsForm(Operation* op) {
  bool comma = false;
  op->operands = ParseOperandList(&comma);
  ParseKeywords(op, comma);
  ParseOptionalAttrDict(op);
  bool optional = op->operands.empty() && GetOpInfo(op->code).type_rule == 'L';
  FinishWithTypes(op, optional);
}

void Parser::ParseCompareForm(Operation* op) {
  Token dir = Expect(Tok::kBareId, "a comparison direction (EQ, NE, GE, GT, LE, LT)");
  op->SetAttr("comparison_direction",
              Attribute::Enum("stablehlo.comparison_direction", std::string(dir.text)));
  Expect(Tok::kComma, "','");
  bool comma = false;
  op->operands = ParseOperandList(&comma);
  if (comma) {
    Token ct = Expect(Tok::kBareId, "a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)");
    op->SetAttr("compare_type", Attribute::Enum("stablehlo.comparison_type", std::string(ct.text)));
  }
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseConstantForm(Operation* op) {
  if (Consume(Tok::kLParen)) {
    Expect(Tok::kRParen, "')'");
    if (PeekIs(Tok::kLess)) {
      lex_.Next();
      ParseAttrDict(&op->attrs);
      Expect(Tok::kGreater, "'>' to close the properties");
    }
    ParseOptionalAttrDict(op);
    Token colon = Expect(Tok::kColon, "':'");
    Type ft = ParseType();
    if (ft.kind() != TypeKind::kFunction || !ft.inputs().empty() || ft.results().size() != 1)
      Error(colon, "expected '() -> type'");
    op->SetResultTypes({ft.results()[0]});
    return;
  }
  ParseOptionalAttrDict(op);
  Token at = lex_.Peek();
  Attribute value = ParseAttribute();
  if (value.kind() != AttrKind::kDenseElements)
    Error(at, StrCat("'", op->name(), "' needs a dense elements value"));
  op->SetAttr("value", value);
  op->SetResultTypes({value->type});
}

void Parser::ParseSliceForm(Operation* op) {
  op->operands.push_back(Resolve(ParseValueRef()));
  Expect(Tok::kLSquare, "'[' before the slice ranges");
  std::vector<int64_t> start, limit, strides;
  if (!Consume(Tok::kRSquare)) {
    do {
      start.push_back(ParseIntegerLiteral());
      Expect(Tok::kColon, "':' in slice range");
      limit.push_back(ParseIntegerLiteral());
      strides.push_back(Consume(Tok::kColon) ? ParseIntegerLiteral() : 1);
    } while (Consume(Tok::kComma));
    Expect(Tok::kRSquare, "']' after the slice ranges");
  }
  op->SetAttr("start_indices", Attribute::DenseI64(I64(), start));
  op->SetAttr("limit_indices", Attribute::DenseI64(I64(), limit));
  op->SetAttr("strides", Attribute::DenseI64(I64(), strides));
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseDotGeneralForm(Operation* op) {
  bool comma = false;
  op->operands = ParseOperandList(&comma);
  std::vector<int64_t> lb, rb, lc, rc;
  bool have_contracting = false;
  while (comma || PeekIs(Tok::kComma)) {
    if (!comma) lex_.Next();
    comma = false;
    Token key = Expect(Tok::kBareId, "'batching_dims', 'contracting_dims', 'precision' or 'algorithm'");
    Expect(Tok::kEqual, "'='");
    auto pair = [&](std::vector<int64_t>* l, std::vector<int64_t>* r) {
      *l = ParseI64ListBrackets();
      Token x = lex_.Next();
      if (x.kind != Tok::kBareId || x.text != "x") Error(x, "expected 'x' between the dimension lists");
      *r = ParseI64ListBrackets();
    };
    if (key.text == "batching_dims") {
      pair(&lb, &rb);
    } else if (key.text == "contracting_dims") {
      pair(&lc, &rc);
      have_contracting = true;
    } else if (key.text == "precision") {
      op->SetAttr("precision_config", ParsePrecisionList());
    } else if (key.text == "algorithm") {
      Expect(Tok::kLess, "'<'");
      op->SetAttr("algorithm", ParseStructBody("stablehlo.dot_algorithm"));
    } else {
      Error(key, StrCat("unexpected ", Describe(key), " in 'stablehlo.dot_general'"));
    }
  }
  (void)have_contracting;
  std::vector<NamedAttribute> f;
  if (!lb.empty()) f.emplace_back("lhs_batching_dimensions", Attribute::DenseI64(I64(), lb));
  if (!rb.empty()) f.emplace_back("rhs_batching_dimensions", Attribute::DenseI64(I64(), rb));
  if (!lc.empty()) f.emplace_back("lhs_contracting_dimensions", Attribute::DenseI64(I64(), lc));
  if (!rc.empty()) f.emplace_back("rhs_contracting_dimensions", Attribute::DenseI64(I64(), rc));
  op->SetAttr("dot_dimension_numbers", Attribute::Struct("stablehlo.dot", std::move(f)));
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseConvolutionForm(Operation* op) {
  Expect(Tok::kLParen, "'(' before the convolution operands");
  bool comma = false;
  op->operands = ParseOperandList(&comma);
  if (comma) Error(lex_.Peek(), "expected a value");
  Expect(Tok::kRParen, "')' after the convolution operands");
  ExpectKeyword("dim_numbers");
  Expect(Tok::kEqual, "'='");
  op->SetAttr("dimension_numbers", ParseConvDimNumbers("stablehlo.conv", false));
  if (Consume(Tok::kComma)) {
    ExpectKeyword("window");
    Expect(Tok::kEqual, "'='");
    Expect(Tok::kLBrace, "'{' to open the window");
    if (!PeekIs(Tok::kRBrace)) {
      do {
        Token key = Expect(Tok::kBareId, "a window field");
        Expect(Tok::kEqual, "'='");
        if (key.text == "stride") {
          op->SetAttr("window_strides", Attribute::DenseI64(I64(), ParseI64ListBrackets()));
        } else if (key.text == "lhs_dilate") {
          op->SetAttr("lhs_dilation", Attribute::DenseI64(I64(), ParseI64ListBrackets()));
        } else if (key.text == "rhs_dilate") {
          op->SetAttr("rhs_dilation", Attribute::DenseI64(I64(), ParseI64ListBrackets()));
        } else if (key.text == "reverse") {
          std::vector<int64_t> r = ParseI64ListBrackets();
          for (int64_t& v : r) v = v != 0;
          op->SetAttr("window_reversal",
                      Attribute::DenseArray(ctx_->Element(ElemKind::kI1), std::move(r), {}));
        } else if (key.text == "pad") {
          Expect(Tok::kLSquare, "'['");
          std::vector<int64_t> flat;
          int64_t rows = 0;
          if (!PeekIs(Tok::kRSquare)) {
            do {
              std::vector<int64_t> p = ParseI64ListBrackets();
              if (p.size() != 2) Error(key, "each padding entry needs [low, high]");
              flat.insert(flat.end(), p.begin(), p.end());
              ++rows;
            } while (Consume(Tok::kComma));
          }
          Expect(Tok::kRSquare, "']'");
          auto data = std::make_shared<std::vector<uint8_t>>(flat.size() * 8);
          if (!flat.empty()) std::memcpy(data->data(), flat.data(), flat.size() * 8);
          int64_t shape[2] = {rows, 2};
          op->SetAttr("padding", Attribute::Dense(ctx_->Tensor(shape, I64()), data, false));
        } else {
          Error(key, StrCat("unknown window field ", Describe(key)));
        }
      } while (Consume(Tok::kComma));
    }
    Expect(Tok::kRBrace, "'}' to close the window");
  }
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseReduceForm(Operation* op) {
  std::vector<Value*> inputs, inits;
  do {
    Expect(Tok::kLParen, "'(' before a reduce operand");
    inputs.push_back(Resolve(ParseValueRef()));
    ExpectKeyword("init");
    Expect(Tok::kColon, "':' after 'init'");
    inits.push_back(Resolve(ParseValueRef()));
    Expect(Tok::kRParen, "')'");
  } while (Consume(Tok::kComma));
  Token applies_tok = lex_.Peek();
  std::string applied;
  if (ConsumeKeyword("applies")) {
    Token n = Expect(Tok::kBareId, "the applied op");
    applied = std::string(n.text);
  }
  ExpectKeyword("across");
  ExpectKeyword("dimensions");
  Expect(Tok::kEqual, "'='");
  op->SetAttr("dimensions", Attribute::DenseI64(I64(), ParseI64ListBrackets()));
  ParseOptionalAttrDict(op);
  op->operands = inputs;
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  FinishWithTypes(op, false);
  Region* body = op->AddRegion();
  if (!applied.empty()) {
    OpCode code = LookupOp(applied);
    if (code == OpCode::kUnknown || GetOpInfo(code).syntax != OpSyntax::kOperands ||
        GetOpInfo(code).min_operands != 2)
      Error(applies_tok, StrCat("'", applied, "' cannot be applied by reduce"));
    if (inputs.size() != 1) Error(applies_tok, "'applies' needs exactly one input");
    Block* b = body->AddBlock();
    Type t = inits[0]->type;
    Value* a0 = b->AddArgument(t);
    Value* a1 = b->AddArgument(t);
    auto fn = std::make_unique<Operation>(code, applied, op->loc);
    fn->operands = {a0, a1};
    fn->SetResultTypes({t});
    Value* r = fn->result(0);
    b->Append(std::move(fn));
    auto ret = std::make_unique<Operation>(OpCode::kReturn, "stablehlo.return", op->loc);
    ret->operands = {r};
    b->Append(std::move(ret));
    return;
  }
  ExpectKeyword("reducer");
  // reducer(%a: T, %b: T) (%c: U, %d: U): pair i holds block arguments i and N+i.
  std::vector<std::pair<Token, Type>> firsts, seconds;
  do {
    Expect(Tok::kLParen, "'(' before reducer arguments");
    for (int k = 0; k < 2; ++k) {
      if (k) Expect(Tok::kComma, "','");
      Token n = Expect(Tok::kValueId, "a reducer argument");
      Expect(Tok::kColon, "':'");
      Type t = ParseType();
      SkipTrailingLocation();  // jax.export's text gives each argument its loc(...)
      (k ? seconds : firsts).emplace_back(n, t);
    }
    Expect(Tok::kRParen, "')'");
  } while (PeekIs(Tok::kLParen));
  std::vector<std::pair<Token, Type>> args = firsts;
  args.insert(args.end(), seconds.begin(), seconds.end());
  ParseRegion(body, &args);
}

void Parser::ParseWhileForm(Operation* op) {
  Expect(Tok::kLParen, "'(' after 'stablehlo.while'");
  std::vector<Token> names;
  std::vector<Value*> inits;
  if (!Consume(Tok::kRParen)) {
    do {
      names.push_back(Expect(Tok::kValueId, "a loop variable"));
      Expect(Tok::kEqual, "'='");
      inits.push_back(Resolve(ParseValueRef()));
    } while (Consume(Tok::kComma));
    Expect(Tok::kRParen, "')'");
  }
  std::vector<Type> types;
  if (!inits.empty() || PeekIs(Tok::kColon)) {
    Token colon = Expect(Tok::kColon, "':' and the loop types");
    ParseTypeListNoParens(&types);
    if (types.size() != inits.size())
      Error(colon, StrCat("'stablehlo.while' has ", inits.size(), " operands but ",
                                types.size(), " types"));
  }
  for (size_t i = 0; i < inits.size(); ++i)
    if (inits[i]->type != types[i])
      Error(names[i], StrCat("loop variable type ", types[i].ToString(),
                                   " does not match its initial value's type ",
                                   inits[i]->type.ToString()));
  if (ConsumeKeyword("attributes")) ParseOptionalAttrDict(op);
  op->operands = inits;
  op->SetResultTypes(types);
  std::vector<std::pair<Token, Type>> args;
  for (size_t i = 0; i < names.size(); ++i) args.emplace_back(names[i], types[i]);
  ExpectKeyword("cond");
  ParseRegion(op->AddRegion(), &args);
  ExpectKeyword("do");
  ParseRegion(op->AddRegion(), &args);
}

void Parser::ParseGetTupleElementForm(Operation* op) {
  op->operands.push_back(Resolve(ParseValueRef()));
  Expect(Tok::kLSquare, "'['");
  op->SetAttr("index", Attribute::Integer(I32(), ParseIntegerLiteral(false)));
  Expect(Tok::kRSquare, "']'");
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseCustomCallForm(Operation* op) {
  Token target = Expect(Tok::kSymbolId, "'@target'");
  std::string name(target.text);
  if (!name.empty() && name[0] == '"' && !UnescapeString(target.text, &name))
    Error(target, "malformed target name");
  op->SetAttr("call_target_name", Attribute::String(name));
  Expect(Tok::kLParen, "'(' before the operands");
  bool comma = false;
  op->operands = ParseOperandList(&comma);
  if (comma) Error(lex_.Peek(), "expected a value");
  Expect(Tok::kRParen, "')' after the operands");
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseCompositeForm(Operation* op) {
  op->SetAttr("name", Attribute::String(ParseStringLiteral()));
  bool comma = false;
  op->operands = ParseOperandList(&comma);
  if (comma) Error(lex_.Peek(), "expected a value");
  if (PeekIs(Tok::kLParen)) ParseRegionList(op);  // a composite that carries a body (VHLO composite_v2)
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseCallForm(Operation* op) {
  Token callee = Expect(Tok::kSymbolId, "'@callee'");
  std::string name(callee.text);
  if (!name.empty() && name[0] == '"' && !UnescapeString(callee.text, &name))
    Error(callee, "malformed callee name");
  op->SetAttr("callee", Attribute::SymbolRef({name}));
  Expect(Tok::kLParen, "'(' before the arguments");
  bool comma = false;
  op->operands = ParseOperandList(&comma);
  if (comma) Error(lex_.Peek(), "expected a value");
  Expect(Tok::kRParen, "')' after the arguments");
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseFuncForm(Operation* op) {
  if (PeekKeyword("public") || PeekKeyword("private") || PeekKeyword("nested")) {
    Token vis = lex_.Next();
    if (vis.text != "public") op->SetAttr("sym_visibility", Attribute::String(std::string(vis.text)));
  }
  Token name = Expect(Tok::kSymbolId, "the function name '@name'");
  std::string fname(name.text);
  if (!fname.empty() && fname[0] == '"' && !UnescapeString(name.text, &fname))
    Error(name, "malformed function name");
  op->attrs.insert(op->attrs.begin(), {"sym_name", Attribute::String(fname)});
  Expect(Tok::kLParen, "'(' before the arguments");
  std::vector<std::pair<Token, Type>> args;
  std::vector<Type> inputs, results;
  std::vector<Attribute> arg_attrs, res_attrs;
  bool any_arg_attr = false, any_res_attr = false;
  auto optional_dict = [&](bool* any) {
    if (!PeekIs(Tok::kLBrace)) return Attribute::Dictionary({});
    std::vector<NamedAttribute> d;
    ParseAttrDict(&d);
    *any |= !d.empty();
    return Attribute::Dictionary(std::move(d));
  };
  if (!Consume(Tok::kRParen)) {
    do {
      if (PeekIs(Tok::kValueId)) {
        Token n = lex_.Next();
        Expect(Tok::kColon, "':' after the argument name");
        Type t = ParseType();
        args.emplace_back(n, t);
        inputs.push_back(t);
      } else {
        inputs.push_back(ParseType());
      }
      arg_attrs.push_back(optional_dict(&any_arg_attr));
      SkipTrailingLocation();
    } while (Consume(Tok::kComma));
    Expect(Tok::kRParen, "')' after the arguments");
  }
  if (!args.empty() && args.size() != inputs.size())
    Error(name, "either every argument is named or none is");
  if (Consume(Tok::kArrow)) {
    if (Consume(Tok::kLParen)) {
      if (!Consume(Tok::kRParen)) {
        do {
          results.push_back(ParseType());
          res_attrs.push_back(optional_dict(&any_res_attr));
          SkipTrailingLocation();
        } while (Consume(Tok::kComma));
        Expect(Tok::kRParen, "')' after the results");
      }
    } else {
      results.push_back(ParseType());
      res_attrs.push_back(Attribute::Dictionary({}));
    }
  }
  op->SetAttr("function_type", Attribute::TypeAttr(ctx_->Function(inputs, results)));
  if (any_arg_attr) op->SetAttr("arg_attrs", Attribute::Array(arg_attrs));
  if (any_res_attr) op->SetAttr("res_attrs", Attribute::Array(res_attrs));
  if (ConsumeKeyword("attributes")) ParseOptionalAttrDict(op);
  op->SetResultTypes({});
  if (PeekIs(Tok::kLBrace)) {
    if (args.size() != inputs.size()) Error(name, "a function with a body needs named arguments");
    PushScope(true);
    ParseRegion(op->AddRegion(), &args);
    PopScope();
  }
}

void Parser::ParseModuleForm(Operation* op) {
  if (PeekIs(Tok::kSymbolId)) {
    Token n = lex_.Next();
    op->SetAttr("sym_name", Attribute::String(std::string(n.text)));
  }
  if (ConsumeKeyword("attributes")) ParseOptionalAttrDict(op);
  op->SetResultTypes({});
  PushScope(true);
  ParseRegion(op->AddRegion(), nullptr);
  PopScope();
}

void Parser::ParseTopKForm(Operation* op) {
  Expect(Tok::kLParen, "'('");
  op->operands.push_back(Resolve(ParseValueRef()));
  Expect(Tok::kComma, "','");
  ExpectKeyword("k");
  Expect(Tok::kEqual, "'='");
  op->SetAttr("k", Attribute::Integer(I64(), ParseIntegerLiteral()));
  if (Consume(Tok::kComma)) {
    ExpectKeyword("recall_target");
    Expect(Tok::kEqual, "'='");
    op->SetAttr("recall_target", Attribute::Float(ctx_->Element(ElemKind::kF32), ParseFloatLiteral(ElemKind::kF32)));
  }
  Expect(Tok::kRParen, "')'");
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

void Parser::ParseCheckConstForm(Operation* op) {
  op->operands.push_back(Resolve(ParseValueRef()));
  Expect(Tok::kComma, "','");
  bool have_lit = false;
  DenseLiteral lit;
  Attribute value;
  if (PeekKeyword("dense")) {
    lex_.Next();
    Expect(Tok::kLess, "'<' after 'dense'");
    lit = ParseDenseLiteralBody();
    have_lit = true;
  } else {
    value = ParseAttribute();
  }
  ParseKeywords(op, false);
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
  if (have_lit) value = MaterializeDense(lit, op->operands[0]->type);
  op->SetAttr("value", value);
}

void Parser::ParseSdyMeshForm(Operation* op) {
  Token n = Expect(Tok::kSymbolId, "'@name'");
  op->SetAttr("sym_name", Attribute::String(std::string(n.text)));
  Expect(Tok::kEqual, "'='");
  Token lt = Expect(Tok::kLess, "'<'");
  // Stored as the generic form writes it: #sdy.mesh<...>.
  op->SetAttr("mesh", Attribute::Opaque(StrCat("#sdy.mesh", ParseOpaqueBody(lt)->str)));
  ParseOptionalAttrDict(op);
  op->SetResultTypes({});
}

// sdy.sharding_constraint / sdy.reshard: the sharding is kept as the generic form writes it,
// #sdy.sharding<...>.
void Parser::ParseSdyValueShardingForm(Operation* op) {
  op->operands.push_back(Resolve(ParseValueRef()));
  Token lt = Expect(Tok::kLess, "'<' and the sharding");
  op->SetAttr("sharding", Attribute::Opaque(StrCat("#sdy.sharding", ParseOpaqueBody(lt)->str)));
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

// sdy.manual_computation / sdy.named_computation: operands, the shardings in their stripped
// spelling (kept as the generic form writes them: #sdy.sharding_per_value<[...]>,
// #sdy<manual_axes{...}>), the body with its arguments, attributes and the function type. The
// body is isolated from above.
void Parser::ParseSdyComputationForm(Operation* op) {
  const bool manual = op->code == OpCode::kSdyManualComputation;
  if (!manual) {
    Expect(Tok::kLess, "'<' and the computation's name");
    op->SetAttr("name", Attribute::String(ParseStringLiteral()));
    Expect(Tok::kGreater, "'>' after the name");
  }
  Expect(Tok::kLParen, "'(' before the operands");
  bool comma = false;
  std::vector<Value*> operands = ParseOperandList(&comma);
  if (comma) Error(lex_.Peek(), "expected a value");
  Expect(Tok::kRParen, "')' after the operands");
  for (const char* key : {"in_shardings", "out_shardings", "manual_axes"}) {
    const bool axes = key[0] == 'm';
    if (!manual && axes) break;
    if (!manual && !PeekKeyword(key)) continue;
    ExpectKeyword(key);
    Expect(Tok::kEqual, "'='");
    Token open = Expect(axes ? Tok::kLBrace : Tok::kLSquare, axes ? "'{' and the manual axes" : "'[' and the shardings");
    std::string body = ParseOpaqueBody(open)->str;
    op->SetAttr(key, Attribute::Opaque(axes ? StrCat("#sdy<manual_axes", body, ">")
                                            : StrCat("#sdy.sharding_per_value<", body, ">")));
  }
  Expect(Tok::kLParen, "'(' and the body's arguments");
  const std::vector<std::pair<Token, Type>> args = ParseBlockArguments();
  PushScope(true);
  ParseRegion(op->AddRegion(), &args);
  PopScope();
  ParseOptionalAttrDict(op);
  op->operands = std::move(operands);
  FinishWithTypes(op, false);
}

// sdy.sharding_group %x group_id=N and sdy.propagation_barrier %x allowed_direction=DIR.
void Parser::ParseSdyKeywordForm(Operation* op) {
  op->operands.push_back(Resolve(ParseValueRef()));
  if (op->code == OpCode::kSdyShardingGroup) {
    ExpectKeyword("group_id");
    Expect(Tok::kEqual, "'='");
    op->SetAttr("group_id", Attribute::Integer(I64(), ParseIntegerLiteral()));
  } else {
    ExpectKeyword("allowed_direction");
    Expect(Tok::kEqual, "'='");
    Token d = Expect(Tok::kBareId, "FORWARD, BACKWARD or NONE");
    if (d.text != "FORWARD" && d.text != "BACKWARD" && d.text != "NONE" && d.text != "BOTH")
      Error(d, StrCat("unknown propagation direction '", d.text, "' (expected FORWARD, BACKWARD or NONE)"));
    op->SetAttr("allowed_direction", Attribute::Opaque(StrCat("#sdy<propagation_direction ", d.text, ">")));
  }
  ParseOptionalAttrDict(op);
  FinishWithTypes(op, false);
}

// chlo.scan(%inputs) inits(%carries) dimension=N [attributes {...}] {body} : (types) -> (types).
// The operand and result groups are kept as the generic form writes them: operandSegmentSizes
// (inputs, inits) and resultSegmentSizes (outputs, carries), one carry per init.
void Parser::ParseScanForm(Operation* op) {
  auto group = [&](const char* what) {
    Expect(Tok::kLParen, what);
    bool comma = false;
    std::vector<Value*> values = ParseOperandList(&comma);
    if (comma) Error(lex_.Peek(), "expected a value");
    Expect(Tok::kRParen, "')'");
    return values;
  };
  std::vector<Value*> operands = group("'(' before the inputs");
  ExpectKeyword("inits");
  std::vector<Value*> inits = group("'(' before the initial carries");
  ExpectKeyword("dimension");
  Expect(Tok::kEqual, "'='");
  op->SetAttr("dimension", Attribute::Integer(I64(), ParseIntegerLiteral(false)));
  if (ConsumeKeyword("attributes")) ParseOptionalAttrDict(op);
  if (!PeekIs(Tok::kLBrace)) Error(lex_.Peek(), "expected '{' and the scan's body");
  ParseRegion(op->AddRegion(), nullptr);
  ParseOptionalAttrDict(op);
  const int32_t n = static_cast<int32_t>(operands.size()), m = static_cast<int32_t>(inits.size());
  operands.insert(operands.end(), inits.begin(), inits.end());
  op->operands = std::move(operands);
  FinishWithTypes(op, false);
  const int32_t results = static_cast<int32_t>(op->num_results());
  op->SetAttr("operandSegmentSizes", Attribute::DenseArray(I32(), {n, m}, {}));
  op->SetAttr("resultSegmentSizes", Attribute::DenseArray(I32(), {results - m, m}, {}));
}

}  // namespace openpjrt::ir
