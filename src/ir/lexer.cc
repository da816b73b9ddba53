// Tokenizer for MLIR text. Comments run from // to the end of the line.
#include "src/ir/lexer.h"

#include <array>
#include <cstring>

namespace openpjrt::ir {
namespace {

inline bool IsIdStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsIdChar(char c) { return IsIdStart(c) || IsDigit(c) || c == '$' || c == '.'; }
// Suffix ids (%name, ^bb, #alias, !alias) also allow '-'.
inline bool IsSuffixChar(char c) { return IsIdChar(c) || c == '-'; }
inline int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Lexer::Lexer(std::string_view src, uint32_t first_line) : src_(src), line_(first_line) {}

Token Lexer::Make(Tok k, size_t start, size_t end, uint32_t line, uint32_t col) {
  Token t;
  t.kind = k;
  t.text = src_.substr(start, end - start);
  t.line = line;
  t.col = col;
  t.offset = static_cast<uint32_t>(start);
  return t;
}

void Lexer::SkipWhitespace() {
  const size_t n = src_.size();
  while (pos_ < n) {
    char c = src_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < n && src_[pos_ + 1] == '/') {
      const void* nl = std::memchr(src_.data() + pos_, '\n', n - pos_);
      pos_ = nl ? static_cast<size_t>(static_cast<const char*>(nl) - src_.data()) : n;
    } else {
      break;
    }
  }
}

void Lexer::Advance(size_t n) { pos_ += n; }

void Lexer::Seek(size_t pos) {
  has_peek_ = false;
  for (; pos_ < pos && pos_ < src_.size(); ++pos_) {
    if (src_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
  }
}

void Lexer::Reset(const Token& t) {
  has_peek_ = false;
  pos_ = t.offset;
  line_ = t.line;
  line_start_ = t.offset - (t.col - 1);
}

Token Lexer::Lex() {
  SkipWhitespace();
  const size_t n = src_.size();
  const size_t start = pos_;
  const uint32_t line = line_;
  const uint32_t col = static_cast<uint32_t>(pos_ - line_start_) + 1;
  if (pos_ >= n) return Make(Tok::kEof, start, start, line, col);
  const char c = src_[pos_];
  auto single = [&](Tok k) {
    ++pos_;
    return Make(k, start, pos_, line, col);
  };
  auto suffix_id = [&](Tok k) {
    ++pos_;
    size_t s = pos_;
    while (pos_ < n && IsSuffixChar(src_[pos_])) ++pos_;
    if (pos_ == s) return Make(Tok::kError, start, pos_, line, col);
    return Make(k, s, pos_, line, col);
  };
  switch (c) {
    case '(': return single(Tok::kLParen);
    case ')': return single(Tok::kRParen);
    case '{':
      if (src_.substr(pos_, 3) == "{-#") {
        pos_ += 3;
        return Make(Tok::kFileMetadataBegin, start, pos_, line, col);
      }
      return single(Tok::kLBrace);
    case '}': return single(Tok::kRBrace);
    case '[': return single(Tok::kLSquare);
    case ']': return single(Tok::kRSquare);
    case '<': return single(Tok::kLess);
    case '>': return single(Tok::kGreater);
    case ',': return single(Tok::kComma);
    case '=': return single(Tok::kEqual);
    case '*': return single(Tok::kStar);
    case '?': return single(Tok::kQuestion);
    case '+': return single(Tok::kPlus);
    case ':':
      if (pos_ + 1 < n && src_[pos_ + 1] == ':') {
        pos_ += 2;
        return Make(Tok::kColonColon, start, pos_, line, col);
      }
      return single(Tok::kColon);
    case '-':
      if (pos_ + 1 < n && src_[pos_ + 1] == '>') {
        pos_ += 2;
        return Make(Tok::kArrow, start, pos_, line, col);
      }
      return single(Tok::kMinus);
    case '%': return suffix_id(Tok::kValueId);
    case '^': return suffix_id(Tok::kCaretId);
    case '!': return suffix_id(Tok::kBangId);
    case '#':
      if (src_.substr(pos_, 3) == "#-}") {
        pos_ += 3;
        return Make(Tok::kFileMetadataEnd, start, pos_, line, col);
      }
      return suffix_id(Tok::kHashId);
    case '@': {
      ++pos_;
      if (pos_ < n && src_[pos_] == '"') {
        size_t s = pos_;
        ++pos_;
        while (pos_ < n && src_[pos_] != '"' && src_[pos_] != '\n') {
          if (src_[pos_] == '\\' && pos_ + 1 < n) ++pos_;
          ++pos_;
        }
        if (pos_ >= n || src_[pos_] != '"') return Make(Tok::kError, start, pos_, line, col);
        ++pos_;
        return Make(Tok::kSymbolId, s, pos_, line, col);
      }
      size_t s = pos_;
      while (pos_ < n && (IsIdChar(src_[pos_]) || src_[pos_] == '-')) ++pos_;
      if (pos_ == s) return Make(Tok::kError, start, pos_, line, col);
      return Make(Tok::kSymbolId, s, pos_, line, col);
    }
    case '"': {
      ++pos_;
      while (true) {
        const void* q = std::memchr(src_.data() + pos_, '"', n - pos_);
        if (!q) {
          pos_ = n;
          return Make(Tok::kError, start, pos_, line, col);
        }
        size_t qpos = static_cast<size_t>(static_cast<const char*>(q) - src_.data());
        // Count the backslashes right before the quote: an odd number escapes it.
        size_t bs = 0;
        while (qpos - bs > pos_ && src_[qpos - bs - 1] == '\\') ++bs;
        // Newlines inside the string keep line numbers honest.
        for (size_t i = pos_; i < qpos; ++i) {
          if (src_[i] == '\n') {
            ++line_;
            line_start_ = i + 1;
          }
        }
        pos_ = qpos + 1;
        if (bs % 2 == 0) break;
      }
      return Make(Tok::kString, start, pos_, line, col);
    }
    default:
      break;
  }
  if (IsDigit(c)) {
    if (c == '0' && pos_ + 1 < n && src_[pos_ + 1] == 'x') {
      pos_ += 2;
      size_t s = pos_;
      while (pos_ < n && HexVal(src_[pos_]) >= 0) ++pos_;
      if (pos_ == s) return Make(Tok::kError, start, pos_, line, col);
      return Make(Tok::kInteger, start, pos_, line, col);
    }
    while (pos_ < n && IsDigit(src_[pos_])) ++pos_;
    bool is_float = false;
    if (pos_ < n && src_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < n && IsDigit(src_[pos_])) ++pos_;
    }
    if (pos_ < n && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t save = pos_;
      ++pos_;
      if (pos_ < n && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
      if (pos_ < n && IsDigit(src_[pos_])) {
        is_float = true;
        while (pos_ < n && IsDigit(src_[pos_])) ++pos_;
      } else {
        pos_ = save;
      }
    }
    return Make(is_float ? Tok::kFloat : Tok::kInteger, start, pos_, line, col);
  }
  if (IsIdStart(c)) {
    while (pos_ < n && IsIdChar(src_[pos_])) ++pos_;
    return Make(Tok::kBareId, start, pos_, line, col);
  }
  ++pos_;
  return Make(Tok::kError, start, pos_, line, col);
}

bool UnescapeString(std::string_view quoted, std::string* out) {
  out->clear();
  if (quoted.size() < 2) return false;
  std::string_view s = quoted.substr(1, quoted.size() - 2);
  out->reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++i >= s.size()) return false;
    char e = s[i];
    switch (e) {
      case '"': out->push_back('"'); break;
      case '\\': out->push_back('\\'); break;
      case 'n': out->push_back('\n'); break;
      case 't': out->push_back('\t'); break;
      default: {
        if (i + 1 >= s.size()) return false;
        int hi = HexVal(e), lo = HexVal(s[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out->push_back(static_cast<char>(hi * 16 + lo));
        ++i;
      }
    }
  }
  return true;
}

bool DecodeHex(std::string_view hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  out->resize(hex.size() / 2);
  static const auto kTable = [] {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<int8_t>(i);
    for (int i = 0; i < 6; ++i) {
      t['a' + i] = static_cast<int8_t>(10 + i);
      t['A' + i] = static_cast<int8_t>(10 + i);
    }
    return t;
  }();
  const unsigned char* p = reinterpret_cast<const unsigned char*>(hex.data());
  char* o = out->data();
  int bad = 0;
  for (size_t i = 0, m = hex.size() / 2; i < m; ++i) {
    int hi = kTable[p[2 * i]], lo = kTable[p[2 * i + 1]];
    bad |= hi | lo;
    o[i] = static_cast<char>((hi << 4) | (lo & 15));
  }
  return bad >= 0;
}

}  // namespace openpjrt::ir
