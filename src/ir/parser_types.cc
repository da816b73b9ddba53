// Types and numeric literals of the MLIR text front end.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "src/ir/float_format.h"
#include "src/ir/parser_impl.h"
#include "src/support/str.h"

namespace openpjrt::ir {

// ---------------------------------------------------------------------------------------------
// Types

bool Parser::TryParseElementKind(const Token& t, ElemKind* out) {
  if (t.kind != Tok::kBareId) return false;
  return ElemKindFromName(t.text, out);
}

Type Parser::ParseType() {
  Token t = lex_.Next();
  DepthGuard guard(this, t);
  switch (t.kind) {
    case Tok::kBareId: {
      ElemKind k;
      if (TryParseElementKind(t, &k)) return ctx_->Element(k);
      if (t.text == "tensor") return ParseTensorType();
      if (t.text == "tuple") {
        Expect(Tok::kLess, "'<' after 'tuple'");
        std::vector<Type> members;
        if (!Consume(Tok::kGreater)) {
          do members.push_back(ParseType());
          while (Consume(Tok::kComma));
          Expect(Tok::kGreater, "'>' to close the tuple type");
        }
        return ctx_->Tuple(members);
      }
      if (t.text == "complex") {
        Expect(Tok::kLess, "'<' after 'complex'");
        Token et = lex_.Next();
        ElemKind part;
        if (!TryParseElementKind(et, &part) || (part != ElemKind::kF32 && part != ElemKind::kF64))
          Error(et, StrCat("unsupported complex element type ", Describe(et),
                                 " (expected f32 or f64)"));
        Expect(Tok::kGreater, "'>' to close the complex type");
        return ctx_->Element(part == ElemKind::kF32 ? ElemKind::kC64 : ElemKind::kC128);
      }
      if (t.text == "none") return ctx_->None();
      if ((t.text == "memref" || t.text == "vector") && PeekIs(Tok::kLess)) {
        // Builtin types StableHLO does not compute on; kept as text for round trips.
        Token lt = lex_.Next();
        (void)ParseOpaqueBody(lt);
        return ctx_->Opaque(lex_.src().substr(t.offset, lex_.pos() - t.offset));
      }
      if (t.text == "token") return ctx_->Token();
      if (t.text.size() > 2 && (t.text[0] == 's' && t.text[1] == 'i'))
        Error(t, StrCat("signed integer type ", Describe(t),
                              " is not supported; StableHLO uses signless 'i' types"));
      Error(t, StrCat("unknown type ", Describe(t)));
    }
    case Tok::kLParen: {
      std::vector<Type> inputs, results;
      if (!Consume(Tok::kRParen)) {
        do inputs.push_back(ParseType());
        while (Consume(Tok::kComma));
        Expect(Tok::kRParen, "')' to close the function inputs");
      }
      Expect(Tok::kArrow, "'->' in function type");
      ParseFunctionResults(&results);
      return ctx_->Function(inputs, results);
    }
    case Tok::kBangId: {
      std::string_view name = t.text;
      if (name == "stablehlo.token") return ctx_->Token();
      if (name == "quant.uniform") return ParseQuantType(t);
      if (name == "stablehlo.future") {
        Expect(Tok::kLess, "'<' after '!stablehlo.future'");
        std::vector<Type> members;
        do members.push_back(ParseType());
        while (Consume(Tok::kComma));
        Expect(Tok::kGreater, "'>' to close the future type");
        return ctx_->Future(members);
      }
      if (name.find('.') == std::string_view::npos) {
        auto it = type_aliases_.find(std::string(name));
        if (it == type_aliases_.end()) Error(t, StrCat("undefined type alias ", Describe(t)));
        return it->second;
      }
      // Another dialect's type: keep its text.
      size_t start = t.offset - 1;
      size_t end = t.offset + t.text.size();
      if (PeekIs(Tok::kLess)) {
        Token lt = lex_.Next();
        (void)ParseOpaqueBody(lt);
        end = lex_.pos();
      }
      return ctx_->Opaque(lex_.src().substr(start, end - start));
    }
    default:
      Error(t, StrCat("expected a type, found ", Describe(t)));
  }
}

Type Parser::ParseFunctionResults(std::vector<Type>* results) {
  if (PeekIs(Tok::kLParen)) {
    // Either a parenthesised result list or a function type as the single result.
    Token lp = lex_.Next();
    std::vector<Type> list;
    if (!Consume(Tok::kRParen)) {
      do list.push_back(ParseType());
      while (Consume(Tok::kComma));
      Expect(Tok::kRParen, "')' to close the result list");
    }
    if (PeekIs(Tok::kArrow)) {
      lex_.Next();
      std::vector<Type> inner;
      ParseFunctionResults(&inner);
      results->push_back(ctx_->Function(list, inner));
    } else {
      *results = std::move(list);
    }
    (void)lp;
    return Type();
  }
  results->push_back(ParseType());
  return Type();
}

void Parser::ParseTypeListNoParens(std::vector<Type>* out) {
  do out->push_back(ParseType());
  while (Consume(Tok::kComma));
}

void Parser::ParseTypeListParens(std::vector<Type>* out) {
  Expect(Tok::kLParen, "'('");
  if (Consume(Tok::kRParen)) return;
  ParseTypeListNoParens(out);
  Expect(Tok::kRParen, "')'");
}

TypeSig Parser::ParseTypeSignature() {
  TypeSig sig;
  sig.at = lex_.Peek();
  if (PeekIs(Tok::kLParen)) {
    Token lp = lex_.Next();
    if (!Consume(Tok::kRParen)) {
      ParseTypeListNoParens(&sig.inputs);
      Expect(Tok::kRParen, "')' to close the operand types");
    }
    if (!PeekIs(Tok::kArrow)) Error(lp, "expected '->' after the operand types");
    lex_.Next();
    sig.functional = true;
    ParseFunctionResults(&sig.results);
    return sig;
  }
  ParseTypeListNoParens(&sig.inputs);
  if (Consume(Tok::kArrow)) {
    sig.functional = true;
    ParseFunctionResults(&sig.results);
  }
  return sig;
}

Type Parser::ParseTensorType() {
  Token lt = Expect(Tok::kLess, "'<' after 'tensor'");
  // The shape is `DxDx...x` before the element type; read it from the raw text.
  std::vector<int64_t> shape;
  lex_.SkipWhitespace();
  std::string_view src = lex_.src();
  if (lex_.pos() < src.size() && src[lex_.pos()] == '*')
    Error(lt, "unranked tensors are not supported");
  while (true) {
    size_t p = lex_.pos();
    if (p < src.size() && src[p] == '?') {
      if (p + 1 < src.size() && src[p + 1] == 'x') {
        shape.push_back(kDynamic);
        lex_.Advance(2);
        continue;
      }
      break;
    }
    size_t q = p;
    while (q < src.size() && src[q] >= '0' && src[q] <= '9') ++q;
    if (q == p || q >= src.size() || src[q] != 'x') break;
    int64_t d = 0;
    for (size_t i = p; i < q; ++i) {
      if (d > (INT64_MAX - 9) / 10) Error(lt, "tensor dimension is too large");
      d = d * 10 + (src[i] - '0');
    }
    shape.push_back(d);
    lex_.Advance(q + 1 - p);
  }
  // Element counts, byte sizes and strides are int64 everywhere downstream: refuse shapes
  // whose static extents (zeros counted as one, since strides still multiply the rest) could
  // overflow them at 16 bytes per element.
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d == kDynamic || d == 0) continue;
    if (__builtin_mul_overflow(count, d, &count) || count > INT64_MAX / 16)
      Error(lt, "tensor type has too many elements");
  }
  Type elem = ParseType();
  if (!elem.IsElement() && !elem.IsQuant())
    Error(lt, StrCat("invalid tensor element type ", elem.ToString()));
  const Attribute* encoding = nullptr;
  Attribute enc;
  if (Consume(Tok::kComma)) {
    enc = ParseAttribute();
    encoding = &enc;
  }
  Expect(Tok::kGreater, "'>' to close the tensor type");
  return ctx_->Tensor(shape, elem, encoding);
}

Type Parser::ParseQuantType(const Token& at) {
  Expect(Tok::kLess, "'<' after '!quant.uniform'");
  QuantParams q;
  Token st = lex_.Next();
  ElemKind sk;
  // The quant dialect spells unsigned storage u8; ui8 is accepted too.
  bool ok_kind = TryParseElementKind(st, &sk);
  if (!ok_kind && st.kind == Tok::kBareId && st.text.size() > 1 && st.text[0] == 'u')
    ok_kind = ElemKindFromName(StrCat("ui", st.text.substr(1)), &sk) && IsUnsigned(sk);
  if (!ok_kind || !IsInteger(sk) || sk == ElemKind::kI1 || sk == ElemKind::kIndex)
    Error(st, StrCat("expected an integer storage type, found ", Describe(st)));
  q.storage = sk;
  int bits = BitWidth(sk);
  if (IsUnsigned(sk)) {
    q.storage_min = 0;
    q.storage_max = bits == 64 ? INT64_MAX : (int64_t{1} << bits) - 1;
  } else {
    q.storage_min = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
    q.storage_max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  }
  if (Consume(Tok::kLess)) {
    q.explicit_range = true;
    q.storage_min = ParseIntegerLiteral();
    Expect(Tok::kColon, "':' in storage range");
    q.storage_max = ParseIntegerLiteral();
    Expect(Tok::kGreater, "'>' to close the storage range");
  }
  Expect(Tok::kColon, "':' after the storage type");
  Token et = lex_.Next();
  ElemKind ek;
  if (!TryParseElementKind(et, &ek) || !IsFloat(ek))
    Error(et, StrCat("expected a float expressed type, found ", Describe(et)));
  q.expressed = ek;
  if (Consume(Tok::kColon)) q.axis = static_cast<int32_t>(ParseIntegerLiteral(false));
  Expect(Tok::kComma, "',' before the quantization scale");
  auto parse_pair = [&]() {
    q.scales.push_back(ParseFloatLiteral());
    q.zero_points.push_back(Consume(Tok::kColon) ? ParseIntegerLiteral() : 0);
  };
  if (q.axis >= 0) {
    Expect(Tok::kLBrace, "'{' before per-axis scales");
    do parse_pair();
    while (Consume(Tok::kComma));
    Expect(Tok::kRBrace, "'}' after per-axis scales");
  } else {
    parse_pair();
  }
  Expect(Tok::kGreater, "'>' to close the quantized type");
  if (q.storage_min > q.storage_max) Error(at, "storage range is empty");
  for (double s : q.scales)
    if (!(s > 0) || !std::isfinite(s)) Error(at, "quantization scale must be positive and finite");
  for (int64_t z : q.zero_points)
    if (z < q.storage_min || z > q.storage_max)
      Error(at, StrCat("zero point ", z, " is outside the storage range"));
  return ctx_->Quant(q);
}

// ---------------------------------------------------------------------------------------------
// Literals

int64_t Parser::ParseIntegerLiteral(bool allow_negative) {
  bool neg = allow_negative && Consume(Tok::kMinus);
  Token t = lex_.Next();
  if (t.kind != Tok::kInteger) Error(t, StrCat("expected an integer, found ", Describe(t)));
  std::string s(t.text);
  errno = 0;
  uint64_t u = std::strtoull(s.c_str(), nullptr, 0);
  if (errno == ERANGE) Error(t, "integer literal is too large");
  if (neg) {
    if (u > uint64_t{1} << 63) Error(t, "integer literal is too small");
    return static_cast<int64_t>(0 - u);
  }
  return static_cast<int64_t>(u);
}

double Parser::ParseFloatLiteral(ElemKind kind) {
  bool neg = Consume(Tok::kMinus);
  Token t = lex_.Next();
  if (t.kind != Tok::kInteger && t.kind != Tok::kFloat)
    Error(t, StrCat("expected a number, found ", Describe(t)));
  std::string s(t.text);
  // As in MLIR, a hexadecimal integer where a float is expected is the float's bit pattern (how
  // NaN and infinities are printed).
  if (t.kind == Tok::kInteger && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (neg) Error(t, "a hexadecimal float literal cannot be negated");
    errno = 0;
    const uint64_t bits = std::strtoull(s.c_str() + 2, nullptr, 16);
    const int width = ByteSize(kind) * 8;
    if (errno == ERANGE || (width < 64 && bits >> width != 0))
      Error(t, StrCat("hexadecimal float literal does not fit ", ElemKindName(kind)));
    return DecodeFloat(kind, bits);
  }
  double d = std::strtod(s.c_str(), nullptr);
  return neg ? -d : d;
}

std::vector<int64_t> Parser::ParseI64ListBrackets() {
  Expect(Tok::kLSquare, "'['");
  std::vector<int64_t> v;
  if (Consume(Tok::kRSquare)) return v;
  do {
    if (Consume(Tok::kQuestion)) {
      v.push_back(kDynamic);
    } else if (PeekKeyword("true") || PeekKeyword("false")) {
      v.push_back(lex_.Next().text == "true" ? 1 : 0);
    } else {
      v.push_back(ParseIntegerLiteral());
    }
  } while (Consume(Tok::kComma));
  Expect(Tok::kRSquare, "']'");
  return v;
}

std::string Parser::ParseStringLiteral() {
  Token t = Expect(Tok::kString, "a string");
  std::string out;
  if (!UnescapeString(t.text, &out)) Error(t, "malformed escape in string");
  return out;
}

}  // namespace openpjrt::ir
