// Pieces of the printer shared by printer_attrs.cc and printer.cc. Internal to src/ir.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/ir/ir.h"

namespace openpjrt::ir {

bool IsBareId(std::string_view s);                              // needs no quotes
void AppendEscaped(std::string* out, std::string_view s);      // "..." with escapes
void AppendSymbol(std::string* out, std::string_view s);       // @name or @"name"
void AppendI64List(std::string* out, const std::vector<int64_t>& v);  // [1, ?, 3]
std::string HexBits(uint64_t bits, int total_bits);            // 0x... with leading zeros
void AppendType(std::string* out, Type t);
void AppendFunctionType(std::string* out, std::span<const Type> in, std::span<const Type> res);
void AppendAttr(std::string* out, const Attribute& a);
// [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]; false if the fields are not a consistent set.
bool AppendConvDims(std::string* out, const Attribute& a);

}  // namespace openpjrt::ir
