// The parser core: tokens, types, attributes, dense literals, the generic op form, regions and
// value scopes. The pretty forms of individual ops live in parser_ops.cc.
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

double Parser::ParseFloatLiteral() {
  bool neg = Consume(Tok::kMinus);
  Token t = lex_.Next();
  if (t.kind != Tok::kInteger && t.kind != Tok::kFloat)
    Error(t, StrCat("expected a number, found ", Describe(t)));
  std::string s(t.text);
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

// ---------------------------------------------------------------------------------------------
// Dense literals

DenseLiteral Parser::ParseDenseLiteralBody() {
  DenseLiteral lit;
  lit.at = lex_.Peek();
  if (Consume(Tok::kGreater)) {
    lit.empty = true;
    return lit;
  }
  if (PeekIs(Tok::kString)) {
    Token t = lex_.Next();
    std::string_view body = t.text.substr(1, t.text.size() - 2);
    if (body.size() < 2 || body[0] != '0' || (body[1] != 'x' && body[1] != 'X'))
      Error(t, "expected a hex string \"0x...\" in dense literal");
    if (!DecodeHex(body.substr(2), &lit.hex_bytes))
      Error(t, "malformed hex string in dense literal");
    lit.hex = true;
    Expect(Tok::kGreater, "'>' to close the dense literal");
    return lit;
  }
  auto parse_scalar = [&]() {
    DenseScalar s;
    if (Consume(Tok::kLParen)) {
      s.complex = true;
      s.re_neg = Consume(Tok::kMinus);
      s.re = lex_.Next();
      Expect(Tok::kComma, "',' in complex literal");
      s.im_neg = Consume(Tok::kMinus);
      s.im = lex_.Next();
      Expect(Tok::kRParen, "')' to close the complex literal");
    } else {
      s.re_neg = Consume(Tok::kMinus);
      s.re = lex_.Next();
    }
    auto check = [&](const Token& t) {
      bool ok = t.kind == Tok::kInteger || t.kind == Tok::kFloat ||
                (t.kind == Tok::kBareId &&
                 (t.text == "true" || t.text == "false" || t.text == "inf" || t.text == "nan"));
      if (!ok) Error(t, StrCat("expected an element literal, found ", Describe(t)));
    };
    check(s.re);
    if (s.complex) check(s.im);
    lit.elems.push_back(s);
  };
  if (!PeekIs(Tok::kLSquare)) {
    lit.splat = true;
    parse_scalar();
    Expect(Tok::kGreater, "'>' to close the dense literal");
    return lit;
  }
  // Nested lists: record the extent of each depth and insist on a rectangular shape.
  int leaf_depth = -1;
  std::vector<int64_t>& shape = lit.shape;
  struct Frame {
    int64_t count = 0;
  };
  std::vector<Frame> stack;
  while (true) {
    Token t = lex_.Peek();
    if (t.kind == Tok::kLSquare) {
      lex_.Next();
      if (static_cast<int>(stack.size()) >= opts_.max_depth) Error(t, "nesting is too deep");
      if (leaf_depth >= 0 && static_cast<int>(stack.size()) >= leaf_depth)
        Error(t, "dense literal is not rectangular");
      stack.push_back({});
      if (Consume(Tok::kRSquare)) {
        // empty list
        size_t d = stack.size() - 1;
        if (shape.size() <= d) shape.resize(d + 1, -1);
        if (shape[d] != -1 && shape[d] != 0) Error(t, "dense literal is not rectangular");
        shape[d] = 0;
        stack.pop_back();
        if (stack.empty()) break;
        stack.back().count++;
        goto after_element;
      }
      continue;
    }
    {
      int d = static_cast<int>(stack.size());
      if (leaf_depth < 0) leaf_depth = d;
      if (d != leaf_depth) Error(t, "dense literal is not rectangular");
      parse_scalar();
      stack.back().count++;
    }
  after_element:
    while (true) {
      if (Consume(Tok::kComma)) break;
      Token close = Expect(Tok::kRSquare, "',' or ']' in dense literal");
      size_t d = stack.size() - 1;
      if (shape.size() <= d) shape.resize(d + 1, -1);
      if (shape[d] != -1 && shape[d] != stack.back().count)
        Error(close, "dense literal is not rectangular");
      shape[d] = stack.back().count;
      stack.pop_back();
      if (stack.empty()) goto done;
      stack.back().count++;
    }
  }
done:
  for (int64_t& d : shape)
    if (d < 0) d = 0;
  Expect(Tok::kGreater, "'>' to close the dense literal");
  return lit;
}

namespace {

bool ParseU64(std::string_view text, uint64_t* out) {
  char buf[80];
  if (text.size() >= sizeof(buf)) return false;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = 0;
  errno = 0;
  *out = std::strtoull(buf, nullptr, 0);
  return errno != ERANGE;
}

// Normalises a decimal literal to significant digits and a decimal exponent: value =
// 0.DIGITS x 10^exp. Leading and trailing zeros are dropped.
void NormalizeDecimal(std::string_view text, std::string* digits, int64_t* exp) {
  digits->clear();
  int64_t point = -1, e = 0;
  size_t i = 0;
  int64_t n = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      point = n;
    } else if (c >= '0' && c <= '9') {
      digits->push_back(c);
      ++n;
    } else {
      break;
    }
  }
  if (point < 0) point = n;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    e = std::strtoll(std::string(text.substr(i + 1)).c_str(), nullptr, 10);
    e = std::clamp<int64_t>(e, -100000, 100000);
  }
  size_t lead = digits->find_first_not_of('0');
  if (lead == std::string::npos) {
    digits->clear();
    *exp = 0;
    return;
  }
  digits->erase(0, lead);
  point -= static_cast<int64_t>(lead);
  while (!digits->empty() && digits->back() == '0') digits->pop_back();
  *exp = point + e;
}

// Compares the exact value of a non-negative decimal literal with the double `d` (> 0):
// -1, 0 or +1. glibc prints doubles exactly, so the comparison is digit by digit.
int CompareDecimalWithDouble(std::string_view text, double d) {
  std::string a, b;
  int64_t ea, eb;
  NormalizeDecimal(text, &a, &ea);
  char buf[1200];
  std::snprintf(buf, sizeof(buf), "%.1100e", d);
  NormalizeDecimal(buf, &b, &eb);
  if (a.empty() || b.empty()) return a.empty() == b.empty() ? 0 : (a.empty() ? -1 : 1);
  if (ea != eb) return ea < eb ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Writes `v` (already range-checked) as a `k` integer into `dst`.
void StoreInt(ElemKind k, int64_t v, uint8_t* dst) {
  int bytes = ByteSize(k);
  int bits = BitWidth(k);
  if (bits < 8) {
    uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
    uint8_t low = static_cast<uint8_t>(v) & mask;
    if (!IsUnsigned(k) && bits > 1 && (low >> (bits - 1)) & 1) low |= static_cast<uint8_t>(~mask);
    *dst = low;
    return;
  }
  std::memcpy(dst, &v, bytes);  // little-endian truncation
}

void StoreFloatBits(ElemKind k, uint64_t bits, uint8_t* dst) {
  std::memcpy(dst, &bits, ByteSize(k));
}

}  // namespace

Attribute Parser::MaterializeDense(const DenseLiteral& lit, Type type) {
  if (!type.IsTensor())
    Error(lit.at, StrCat("dense literal needs a tensor type, found ", type.ToString()));
  if (!type.HasStaticShape()) Error(lit.at, "dense literal needs a statically shaped tensor type");
  Type et = type.element_type();
  ElemKind k = StorageKind(et);
  const int bytes = ByteSize(k);
  const int64_t n = type.NumElements();
  auto data = std::make_shared<std::vector<uint8_t>>();
  if (lit.hex) {
    size_t size = lit.hex_bytes.size();
    bool splat = false;
    if (static_cast<int64_t>(size) == n * bytes) {
    } else if (static_cast<int64_t>(size) == bytes && n != 0) {
      splat = true;
    } else {
      Error(lit.at, StrCat("hex literal has ", size, " bytes; ", type.ToString(), " needs ",
                                 n * bytes));
    }
    data->assign(lit.hex_bytes.begin(), lit.hex_bytes.end());
    // Normalise sub-byte and boolean elements to the in-memory convention.
    int bits = BitWidth(k);
    if (k == ElemKind::kI1) {
      for (uint8_t& b : *data) b = b != 0;
    } else if (bits < 8) {
      for (uint8_t& b : *data) {
        if (IsInteger(k)) {
          StoreInt(k, static_cast<int8_t>(b), &b);
        } else {
          b &= static_cast<uint8_t>((1u << bits) - 1);
        }
      }
    }
    return Attribute::Dense(type, std::move(data), splat);
  }
  if (lit.empty) {
    if (n != 0) Error(lit.at, StrCat("empty dense literal for ", type.ToString()));
    return Attribute::Dense(type, std::move(data), false);
  }
  if (!lit.splat) {
    auto tshape = type.shape();
    bool same = lit.shape.size() == tshape.size();
    for (size_t i = 0; same && i < tshape.size(); ++i) same = lit.shape[i] == tshape[i];
    if (!same) {
      std::string ls;
      for (size_t i = 0; i < lit.shape.size(); ++i) StrAppend(&ls, i ? "x" : "", lit.shape[i]);
      Error(lit.at, StrCat("dense literal of shape [", ls, "] does not match ",
                                 type.ToString()));
    }
  }
  const size_t count = lit.splat ? 1 : lit.elems.size();
  data->resize(count * bytes);
  auto convert_real = [&](ElemKind rk, const Token& t, bool neg, uint8_t* dst) {
    if (IsInteger(rk)) {
      int64_t v;
      if (t.kind == Tok::kBareId && (t.text == "true" || t.text == "false")) {
        if (rk != ElemKind::kI1 || neg) Error(t, "boolean literal for a non-i1 element type");
        v = t.text == "true";
      } else if (t.kind == Tok::kInteger) {
        uint64_t u;
        if (!ParseU64(t.text, &u)) Error(t, "integer literal is too large");
        int bits = BitWidth(rk);
        if (rk == ElemKind::kI1) {
          if (u > 1 || neg) Error(t, StrCat("integer ", neg ? "-" : "", t.text,
                                                   " does not fit in i1"));
          v = static_cast<int64_t>(u);
        } else if (IsUnsigned(rk)) {
          if (neg && u != 0) Error(t, StrCat("negative value for unsigned type ", ElemKindName(rk)));
          if (bits < 64 && u >= (uint64_t{1} << bits))
            Error(t, StrCat("integer ", t.text, " does not fit in ", ElemKindName(rk)));
          v = static_cast<int64_t>(u);
        } else {
          // Signless: accepts [-2^(b-1), 2^b - 1].
          if (neg) {
            if (u > (uint64_t{1} << (bits - 1)))
              Error(t, StrCat("integer -", t.text, " does not fit in ", ElemKindName(rk)));
            v = static_cast<int64_t>(0 - u);
          } else {
            if (bits < 64 && u >= (uint64_t{1} << bits))
              Error(t, StrCat("integer ", t.text, " does not fit in ", ElemKindName(rk)));
            v = static_cast<int64_t>(u);
          }
        }
      } else {
        Error(t, StrCat("expected an integer literal for ", ElemKindName(rk), ", found ",
                              Describe(t)));
      }
      StoreInt(rk, v, dst);
      return;
    }
    // Float kinds.
    const FloatFormat& ff = GetFloatFormat(rk);
    if (t.kind == Tok::kInteger && t.text.size() > 2 && t.text[1] == 'x') {
      uint64_t u;
      if (!ParseU64(t.text, &u) || neg) Error(t, "malformed hex float literal");
      if (ff.total_bits() < 64 && u >= (uint64_t{1} << ff.total_bits()))
        Error(t, StrCat("hex literal ", t.text, " is wider than ", ElemKindName(rk)));
      StoreFloatBits(rk, u, dst);
      return;
    }
    double d;
    int hint = 0;
    if (t.kind == Tok::kBareId) {
      if (t.text == "inf") d = INFINITY;
      else if (t.text == "nan") d = NAN;
      else Error(t, StrCat("expected a float literal, found ", Describe(t)));
    } else {
      char buf[128];
      if (t.text.size() >= sizeof(buf)) Error(t, "float literal is too long");
      std::memcpy(buf, t.text.data(), t.text.size());
      buf[t.text.size()] = 0;
      if (rk == ElemKind::kF32) {
        float f = std::strtof(buf, nullptr);
        d = f;
      } else {
        d = std::strtod(buf, nullptr);
        // The double may sit exactly on a tie of the narrower type although the decimal does
        // not: then the decimal decides the direction.
        if (rk != ElemKind::kF64 && d != 0 && std::isfinite(d) &&
            EncodeFloatWithHint(rk, d, 1) != EncodeFloatWithHint(rk, d, -1)) {
          hint = CompareDecimalWithDouble(t.text, d);
        }
      }
    }
    if (neg) {
      d = -d;
      hint = -hint;
    }
    StoreFloatBits(rk, EncodeFloatWithHint(rk, d, hint), dst);
  };
  for (size_t i = 0; i < count; ++i) {
    const DenseScalar& s = lit.elems[i];
    uint8_t* dst = data->data() + i * bytes;
    if (IsComplex(k)) {
      if (!s.complex) Error(s.re, "complex element needs a (real, imaginary) pair");
      ElemKind part = ComplexPart(k);
      convert_real(part, s.re, s.re_neg, dst);
      convert_real(part, s.im, s.im_neg, dst + bytes / 2);
    } else {
      if (s.complex) Error(s.re, StrCat("complex literal for non-complex type ",
                                              type.ToString()));
      convert_real(k, s.re, s.re_neg, dst);
    }
  }
  return Attribute::Dense(type, std::move(data), lit.splat && n != 1 ? true : false);
}

// ---------------------------------------------------------------------------------------------
// Attributes

Attribute Parser::ParseNumberAttr(bool negative, const Token& num) {
  Type type;
  if (Consume(Tok::kColon)) {
    type = ParseType();
  } else {
    type = ctx_->Element(num.kind == Tok::kFloat ? ElemKind::kF64 : ElemKind::kI64);
  }
  if (!type.IsElement()) Error(num, "numeric attribute needs a scalar type");
  ElemKind k = type.elem();
  std::string s(num.text);
  if (IsFloat(k)) {
    if (num.kind == Tok::kInteger && s.size() > 2 && s[1] == 'x') {
      uint64_t u;
      if (!ParseU64(s, &u) || negative) Error(num, "malformed hex float literal");
      return Attribute::Float(type, DecodeFloat(k, u));
    }
    double d = std::strtod(s.c_str(), nullptr);
    if (negative) d = -d;
    return Attribute::Float(type, DecodeFloat(k, EncodeFloat(k, d)));
  }
  if (num.kind != Tok::kInteger)
    Error(num, StrCat("float literal with integer type ", type.ToString()));
  uint64_t u;
  if (!ParseU64(s, &u)) Error(num, "integer literal is too large");
  int64_t v = negative ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
  if (k == ElemKind::kI1) return Attribute::Bool(v != 0);
  return Attribute::Integer(type, v);
}

void Parser::ParseAttrDict(std::vector<NamedAttribute>* out) {
  Token lb = Expect(Tok::kLBrace, "'{'");
  DepthGuard guard(this, lb);
  if (Consume(Tok::kRBrace)) return;
  do {
    Token key = lex_.Next();
    std::string name;
    if (key.kind == Tok::kBareId) {
      name = std::string(key.text);
    } else if (key.kind == Tok::kString) {
      if (!UnescapeString(key.text, &name)) Error(key, "malformed escape in string");
    } else {
      Error(key, StrCat("expected an attribute name, found ", Describe(key)));
    }
    for (const auto& [k, v] : *out)
      if (k == name) Error(key, StrCat("duplicate attribute '", name, "'"));
    if (Consume(Tok::kEqual)) {
      out->emplace_back(std::move(name), ParseAttribute());
    } else {
      out->emplace_back(std::move(name), Attribute::Unit());
    }
  } while (Consume(Tok::kComma));
  Expect(Tok::kRBrace, "'}' to close the attribute dictionary");
}

Attribute Parser::ParseAttribute() {
  const Token& peek = lex_.Peek();
  DepthGuard guard(this, peek);
  switch (peek.kind) {
    case Tok::kMinus: {
      lex_.Next();
      Token num = lex_.Next();
      if (num.kind != Tok::kInteger && num.kind != Tok::kFloat)
        Error(num, StrCat("expected a number after '-', found ", Describe(num)));
      return ParseNumberAttr(true, num);
    }
    case Tok::kInteger:
    case Tok::kFloat: {
      Token num = lex_.Next();
      return ParseNumberAttr(false, num);
    }
    case Tok::kString: {
      std::string s = ParseStringLiteral();
      if (PeekIs(Tok::kColon)) {  // a typed string: keep the string, drop the type
        lex_.Next();
        (void)ParseType();
      }
      return Attribute::String(std::move(s));
    }
    case Tok::kSymbolId: {
      std::vector<std::string> path;
      do {
        Token t = Expect(Tok::kSymbolId, "a symbol");
        std::string s(t.text);
        if (!s.empty() && s[0] == '"' && !UnescapeString(t.text, &s)) Error(t, "malformed symbol");
        path.push_back(std::move(s));
      } while (Consume(Tok::kColonColon));
      return Attribute::SymbolRef(std::move(path));
    }
    case Tok::kLSquare: {
      lex_.Next();
      std::vector<Attribute> elems;
      if (!Consume(Tok::kRSquare)) {
        do elems.push_back(ParseAttribute());
        while (Consume(Tok::kComma));
        Expect(Tok::kRSquare, "']' to close the array");
      }
      return Attribute::Array(std::move(elems));
    }
    case Tok::kLBrace: {
      std::vector<NamedAttribute> fields;
      ParseAttrDict(&fields);
      return Attribute::Dictionary(std::move(fields));
    }
    case Tok::kHashId: {
      Token hash = lex_.Next();
      return ParseDialectAttribute(hash);
    }
    case Tok::kBareId: {
      std::string_view w = peek.text;
      if (w == "true" || w == "false") {
        lex_.Next();
        return Attribute::Bool(w == "true");
      }
      if (w == "unit") {
        lex_.Next();
        return Attribute::Unit();
      }
      if (w == "dense") {
        Token at = lex_.Next();
        Expect(Tok::kLess, "'<' after 'dense'");
        DenseLiteral lit = ParseDenseLiteralBody();
        if (!Consume(Tok::kColon)) Error(at, "dense literal needs ': type'");
        Type t = ParseType();
        return MaterializeDense(lit, t);
      }
      if (w == "dense_resource") {
        Token at = lex_.Next();
        Expect(Tok::kLess, "'<' after 'dense_resource'");
        Token name = lex_.Next();
        if (name.kind != Tok::kBareId && name.kind != Tok::kString)
          Error(name, "expected a resource name");
        Expect(Tok::kGreater, "'>' after the resource name");
        Expect(Tok::kColon, "':' after dense_resource<...>");
        Type t = ParseType();
        auto it = resources_.find(std::string(name.text));
        if (it == resources_.end())
          Error(name, StrCat("unknown dense resource '", name.text, "'"));
        DenseLiteral lit;
        lit.at = at;
        lit.hex = true;
        // Resource blobs start with a 4-byte alignment word.
        if (it->second.size() < 4) Error(name, "dense resource blob is too short");
        lit.hex_bytes = it->second.substr(4);
        return MaterializeDense(lit, t);
      }
      if (w == "array") {
        Token at = lex_.Next();
        Expect(Tok::kLess, "'<' after 'array'");
        Token et = lex_.Next();
        ElemKind k;
        if (!TryParseElementKind(et, &k) || (!IsInteger(k) && k != ElemKind::kF32 &&
                                              k != ElemKind::kF64))
          Error(et, StrCat("unsupported dense array element type ", Describe(et)));
        std::vector<int64_t> ints;
        std::vector<double> floats;
        if (Consume(Tok::kColon)) {
          do {
            if (IsInteger(k)) {
              if (PeekKeyword("true") || PeekKeyword("false")) {
                ints.push_back(lex_.Next().text == "true");
              } else {
                ints.push_back(ParseIntegerLiteral());
              }
            } else {
              floats.push_back(ParseFloatLiteral());
            }
          } while (Consume(Tok::kComma));
        }
        Expect(Tok::kGreater, "'>' to close the array");
        (void)at;
        return Attribute::DenseArray(ctx_->Element(k), std::move(ints), std::move(floats));
      }
      if (w == "loc") {
        SkipTrailingLocation();
        return Attribute::Unit();
      }
      return Attribute::TypeAttr(ParseType());
    }
    case Tok::kBangId:
    case Tok::kLParen:
      return Attribute::TypeAttr(ParseType());
    default: {
      Token t = lex_.Next();
      Error(t, StrCat("expected an attribute, found ", Describe(t)));
    }
  }
}

// Captures the text of `<...>` (balanced over <>, (), [], {} and strings) after `start`, which is
// the '<' token already consumed.
Attribute Parser::ParseOpaqueBody(const Token& start) {
  int depth = 1;
  while (depth > 0) {
    Token t = lex_.Next();
    switch (t.kind) {
      case Tok::kEof:
      case Tok::kError:
        Error(start, "unterminated '<' in dialect attribute or type");
      case Tok::kLess:
      case Tok::kLParen:
      case Tok::kLSquare:
      case Tok::kLBrace:
        ++depth;
        break;
      case Tok::kGreater:
      case Tok::kRParen:
      case Tok::kRSquare:
      case Tok::kRBrace:
        --depth;
        break;
      default:
        break;
    }
  }
  return Attribute::Opaque(std::string(lex_.src().substr(start.offset, lex_.pos() - start.offset)));
}

Attribute Parser::ParseDialectAttribute(const Token& hash) {
  std::string_view name = hash.text;
  size_t dot = name.find('.');
  std::string_view dialect = name.substr(0, dot);
  if (dot == std::string_view::npos && !PeekIs(Tok::kLess)) {
    auto it = attr_aliases_.find(std::string(name));
    if (it == attr_aliases_.end()) Error(hash, StrCat("undefined attribute alias #", name));
    return it->second;
  }
  // Structured attributes we read field by field; any other dialect attribute is kept as text.
  static constexpr std::string_view kStructs[] = {
      "stablehlo.gather", "stablehlo.scatter", "stablehlo.dot", "stablehlo.conv",
      "stablehlo.channel_handle", "stablehlo.output_operand_alias", "stablehlo.result_accuracy",
      "stablehlo.result_accuracy_mode", "stablehlo.type_extensions", "stablehlo.bounds",
      "stablehlo.dot_algorithm"};
  bool ours = dot == std::string_view::npos ? (dialect == "stablehlo" || dialect == "chlo")
                                            : std::find(std::begin(kStructs), std::end(kStructs),
                                                        name) != std::end(kStructs);
  if (!ours) {
    Token lt = Expect(Tok::kLess, "'<' after the dialect attribute name");
    Attribute body = ParseOpaqueBody(lt);
    return Attribute::Opaque(StrCat("#", name, body->str));
  }
  Expect(Tok::kLess, "'<' after the dialect attribute name");
  if (dot == std::string_view::npos) {
    // #stablehlo<enum_name VALUE>
    Token en = Expect(Tok::kBareId, "an enum name");
    Token val = Expect(Tok::kBareId, "an enum value");
    Expect(Tok::kGreater, "'>' to close the enum attribute");
    return Attribute::Enum(StrCat(dialect, ".", en.text), std::string(val.text));
  }
  if (name == "stablehlo.conv") return ParseConvDimNumbers(std::string(name), true);
  return ParseStructBody(std::string(name));
}

Attribute Parser::ParseStructValue() {
  const Token& p = lex_.Peek();
  DepthGuard guard(this, p);
  switch (p.kind) {
    case Tok::kLSquare: {
      // A list of integers (with '?' for dynamic) or of other values.
      Token lb = lex_.Next();
      std::vector<Attribute> elems;
      std::vector<int64_t> ints;
      bool all_int = true;
      if (!Consume(Tok::kRSquare)) {
        do {
          Attribute a = ParseStructValue();
          int64_t v;
          if (a.kind() == AttrKind::kInteger && GetInt(a, &v)) ints.push_back(v);
          else all_int = false;
          elems.push_back(std::move(a));
        } while (Consume(Tok::kComma));
        Expect(Tok::kRSquare, "']'");
      }
      (void)lb;
      if (all_int) return Attribute::DenseI64(I64(), std::move(ints));
      return Attribute::Array(std::move(elems));
    }
    case Tok::kQuestion:
      lex_.Next();
      return Attribute::Integer(I64(), kDynamic);
    case Tok::kMinus:
    case Tok::kInteger:
    case Tok::kFloat: {
      bool neg = Consume(Tok::kMinus);
      Token num = lex_.Next();
      std::string s(num.text);
      if (num.kind == Tok::kFloat) {
        double d = std::strtod(s.c_str(), nullptr);
        return Attribute::Float(ctx_->Element(ElemKind::kF64), neg ? -d : d);
      }
      if (num.kind != Tok::kInteger) Error(num, "expected a number");
      uint64_t u;
      if (!ParseU64(s, &u)) Error(num, "integer literal is too large");
      return Attribute::Integer(I64(), neg ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u));
    }
    case Tok::kBareId: {
      std::string_view w = p.text;
      if (w == "true" || w == "false") {
        lex_.Next();
        return Attribute::Bool(w == "true");
      }
      ElemKind k;
      if (ElemKindFromName(w, &k) || w == "tensor" || w == "complex" || w == "tuple")
        return Attribute::TypeAttr(ParseType());
      Token id = lex_.Next();
      return Attribute::Enum("", std::string(id.text));
    }
    default:
      return ParseAttribute();
  }
}

Attribute Parser::ParseStructBody(std::string name) {
  std::vector<NamedAttribute> fields;
  if (Consume(Tok::kGreater)) return Attribute::Struct(std::move(name), std::move(fields));
  do {
    // `key = value` or a positional value.
    const Token& p = lex_.Peek();
    if (p.kind == Tok::kBareId) {
      Token id = lex_.Next();
      if (Consume(Tok::kEqual)) {
        fields.emplace_back(std::string(id.text), ParseStructValue());
        continue;
      }
      lex_.Reset(id);
    }
    fields.emplace_back("", ParseStructValue());
  } while (Consume(Tok::kComma));
  Expect(Tok::kGreater, StrCat("'>' to close #", name).c_str());
  return Attribute::Struct(std::move(name), std::move(fields));
}

// #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> or #stablehlo.conv<raw key = v, ...>.
Attribute Parser::ParseConvDimNumbers(std::string name, bool close) {
  if (close && ConsumeKeyword("raw")) return ParseStructBody(std::move(name));
  auto parse_group = [&](const char* letters, int64_t* a, int64_t* b,
                         std::vector<int64_t>* spatial) {
    Token lb = Expect(Tok::kLSquare, "'[' in convolution dimension numbers");
    std::vector<std::pair<int64_t, int64_t>> sp;  // (spatial index, position)
    *a = *b = -1;
    int64_t pos = 0;
    if (!PeekIs(Tok::kRSquare)) {
      do {
        Token t = lex_.Next();
        if (t.kind == Tok::kInteger) {
          uint64_t u;
          if (!ParseU64(t.text, &u) || u > 1024) Error(t, "bad spatial dimension index");
          sp.emplace_back(static_cast<int64_t>(u), pos);
        } else if (t.kind == Tok::kBareId && t.text.size() == 1 && t.text[0] == letters[0]) {
          if (*a >= 0) Error(t, StrCat("duplicate '", t.text, "'"));
          *a = pos;
        } else if (t.kind == Tok::kBareId && t.text.size() == 1 && t.text[0] == letters[1]) {
          if (*b >= 0) Error(t, StrCat("duplicate '", t.text, "'"));
          *b = pos;
        } else {
          Error(t, StrCat("unexpected ", Describe(t), " in convolution dimension numbers (",
                                "expected '", std::string(1, letters[0]), "', '",
                                std::string(1, letters[1]), "' or a spatial index)"));
        }
        ++pos;
      } while (Consume(Tok::kComma));
    }
    Expect(Tok::kRSquare, "']'");
    if (*a < 0 || *b < 0)
      Error(lb, StrCat("convolution dimension numbers need '", std::string(1, letters[0]),
                             "' and '", std::string(1, letters[1]), "'"));
    spatial->assign(sp.size(), -1);
    for (auto [idx, p] : sp) {
      if (idx >= static_cast<int64_t>(sp.size()) || (*spatial)[idx] != -1)
        Error(lb, "spatial dimension indices must be 0..N-1, each once");
      (*spatial)[idx] = p;
    }
  };
  int64_t ib, iff, ki, ko, ob, of;
  std::vector<int64_t> is, ks, os;
  parse_group("bf", &ib, &iff, &is);
  Token x = lex_.Next();
  if (x.kind != Tok::kBareId || x.text != "x") Error(x, "expected 'x' between input and kernel");
  parse_group("io", &ki, &ko, &ks);
  Expect(Tok::kArrow, "'->' before the output dimensions");
  parse_group("bf", &ob, &of, &os);
  if (close) Expect(Tok::kGreater, "'>' to close #stablehlo.conv");
  std::vector<NamedAttribute> f;
  f.emplace_back("input_batch_dimension", Attribute::Integer(I64(), ib));
  f.emplace_back("input_feature_dimension", Attribute::Integer(I64(), iff));
  f.emplace_back("input_spatial_dimensions", Attribute::DenseI64(I64(), is));
  f.emplace_back("kernel_input_feature_dimension", Attribute::Integer(I64(), ki));
  f.emplace_back("kernel_output_feature_dimension", Attribute::Integer(I64(), ko));
  f.emplace_back("kernel_spatial_dimensions", Attribute::DenseI64(I64(), ks));
  f.emplace_back("output_batch_dimension", Attribute::Integer(I64(), ob));
  f.emplace_back("output_feature_dimension", Attribute::Integer(I64(), of));
  f.emplace_back("output_spatial_dimensions", Attribute::DenseI64(I64(), os));
  return Attribute::Struct(std::move(name), std::move(f));
}

// {-# dialect_resources: { builtin: { name: "0x..." } } #-}
void Parser::ParseFileMetadata(const Token& begin) {
  int depth = 0;
  std::string_view last_key;
  while (true) {
    Token t = lex_.Next();
    if (t.kind == Tok::kFileMetadataEnd && depth == 0) return;
    switch (t.kind) {
      case Tok::kEof:
      case Tok::kError:
        Error(begin, "unterminated file metadata block");
      case Tok::kLBrace:
        ++depth;
        break;
      case Tok::kRBrace:
        --depth;
        break;
      case Tok::kBareId:
      case Tok::kString:
        if (PeekIs(Tok::kColon)) {
          last_key = t.text;
        } else if (t.kind == Tok::kString && depth >= 2) {
          std::string s;
          if (!UnescapeString(t.text, &s) || s.size() < 2 || s[0] != '0' || s[1] != 'x')
            Error(t, "malformed resource blob");
          std::string bytes;
          if (!DecodeHex(std::string_view(s).substr(2), &bytes)) Error(t, "malformed resource blob");
          std::string key(last_key);
          if (!key.empty() && key[0] == '"') UnescapeString(last_key, &key);
          resources_[key] = std::move(bytes);
        }
        break;
      default:
        break;
    }
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
      if (Consume(Tok::kLParen)) {
        if (!Consume(Tok::kRParen)) {
          do {
            Token name = Expect(Tok::kValueId, "a block argument");
            Expect(Tok::kColon, "':' after the block argument");
            Type t = ParseType();
            SkipTrailingLocation();
            DefineValue(name, block->AddArgument(t));
          } while (Consume(Tok::kComma));
          Expect(Tok::kRParen, "')' to close the block arguments");
        }
      }
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
    ParseOperation(block);
  }
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
  // Regions are isolated from above only for functions and modules.
  bool isolated = code == OpCode::kFunc || code == OpCode::kModule;
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
  }
  return op;
}

// ---------------------------------------------------------------------------------------------
// Top level

std::unique_ptr<Operation> Parser::ParseTopLevel() {
  // Resources live at the end of the file; read them first so that uses resolve at once.
  std::string_view src = lex_.src();
  size_t meta = src.rfind("{-#");
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
    ParseOperation(body);
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
