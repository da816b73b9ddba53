// Attributes, dense literals (exact rounding into every element type) and the file metadata
// block of the MLIR text front end.
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
              floats.push_back(ParseFloatLiteral(k));
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

// Captures the text of `<...>` after `start`, the '<' token already consumed. Brackets (<>, (),
// [], {}) must nest properly, as MLIR's dialect-body scanner demands; `{-#` and `#-}` inside count
// as braces, so a body never hides an unbalanced file-metadata marker that would change how the
// printed module reads back.
Attribute Parser::ParseOpaqueBody(const Token& start) {
  std::string open(1, start.kind == Tok::kLSquare ? '[' : start.kind == Tok::kLBrace ? '{' : '<');
  while (!open.empty()) {
    Token t = lex_.Next();
    char closer = 0;
    switch (t.kind) {
      case Tok::kEof:
      case Tok::kError:
        Error(start, StrCat("unterminated '", std::string(1, open[0]), "' in dialect attribute or type"));
      case Tok::kLess: open.push_back('<'); break;
      case Tok::kLParen: open.push_back('('); break;
      case Tok::kLSquare: open.push_back('['); break;
      case Tok::kLBrace:
      case Tok::kFileMetadataBegin: open.push_back('{'); break;
      case Tok::kGreater: closer = '<'; break;
      case Tok::kRParen: closer = '('; break;
      case Tok::kRSquare: closer = '['; break;
      case Tok::kRBrace:
      case Tok::kFileMetadataEnd: closer = '{'; break;
      default: break;
    }
    if (closer == 0) continue;
    if (open.back() != closer)
      Error(t, StrCat("unbalanced '", t.text.substr(t.text.size() - 1), "' in dialect attribute or type (open '",
                      std::string(1, open.back()), "')"));
    open.pop_back();
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
      "stablehlo.dot_algorithm", "chlo.ragged_dot"};
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

}  // namespace openpjrt::ir
