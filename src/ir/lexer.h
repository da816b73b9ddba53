// The MLIR text lexer: turns source text into tokens with line:col positions, without copying.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace openpjrt::ir {

enum class Tok : uint8_t {
  kEof,
  kError,        // a character or literal the lexer cannot read; text says which
  kBareId,       // foo, stablehlo.add, f32, tensor
  kValueId,      // %name (text excludes '%')
  kSymbolId,     // @name or @"name" (text excludes '@'; quotes kept for the string form)
  kCaretId,      // ^bb0 (text excludes '^')
  kHashId,       // #name (text excludes '#')
  kBangId,       // !name (text excludes '!')
  kInteger,      // 12, 0x1F
  kFloat,        // 1.5, 1e3
  kString,       // "..." (text includes the quotes; see UnescapeString)
  kLParen, kRParen, kLBrace, kRBrace, kLSquare, kRSquare, kLess, kGreater,
  kComma, kColon, kEqual, kArrow, kStar, kQuestion, kPlus, kMinus, kColonColon,
  kFileMetadataBegin,  // {-#
  kFileMetadataEnd,    // #-}
};

struct Token {
  Tok kind = Tok::kEof;
  std::string_view text;
  uint32_t line = 1;
  uint32_t col = 1;
  uint32_t offset = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view src, uint32_t first_line = 1);

  const Token& Peek() {
    if (!has_peek_) {
      peek_ = Lex();
      has_peek_ = true;
    }
    return peek_;
  }
  Token Next() {
    if (has_peek_) {
      has_peek_ = false;
      return peek_;
    }
    return Lex();
  }

  // Raw access for the few places where MLIR's grammar is not token-based (tensor shapes such as
  // `2x?x3xf32`). Only valid when no token is buffered.
  bool HasBufferedToken() const { return has_peek_; }
  size_t pos() const { return pos_; }
  std::string_view src() const { return src_; }
  void SkipWhitespace();
  void Advance(size_t n);  // moves over raw characters (no newlines expected)
  void Seek(size_t pos);   // moves forward to `pos`, counting lines on the way
  uint32_t line() const { return line_; }
  uint32_t col() const { return static_cast<uint32_t>(pos_ - line_start_) + 1; }
  // Resets to a previously recorded raw position (used for backtracking over one token).
  void Reset(const Token& t);

 private:
  Token Lex();
  Token Make(Tok k, size_t start, size_t end, uint32_t line, uint32_t col);

  std::string_view src_;
  size_t pos_ = 0;
  uint32_t line_;
  size_t line_start_ = 0;
  Token peek_;
  bool has_peek_ = false;
};

// Decodes the escapes of a string token (with its quotes): \" \\ \n \t and \XX hex pairs.
// Returns false on a malformed escape.
bool UnescapeString(std::string_view quoted, std::string* out);
// Decodes hex digits (two per byte). False on odd length or a non-hex digit.
bool DecodeHex(std::string_view hex, std::string* out);

}  // namespace openpjrt::ir
