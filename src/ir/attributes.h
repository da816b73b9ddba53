// Attributes: the constant data attached to ops, functions and types. An Attribute is an
// immutable, reference-counted value; copies share storage, so large dense constants are never
// duplicated.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/ir/types.h"

namespace openpjrt::ir {

enum class AttrKind : uint8_t {
  kUnit,           // `unit`, or a dictionary key without a value
  kBool,           // true / false
  kInteger,        // 3 : i32 (type is an element type; default i64)
  kFloat,          // 1.5 : f32 (default f64)
  kString,         // "bytes"
  kType,           // a type used as an attribute
  kSymbolRef,      // @a or @a::@b
  kArray,          // [a, b, ...]
  kDenseArray,     // array<i64: 1, 2>
  kDenseElements,  // dense<...> : tensor<...>
  kDictionary,     // {a = 1, b}
  kEnum,           // #stablehlo<comparison_direction LT>; bare `LT` inside structs
  kStruct,         // #stablehlo.gather<offset_dims = [1], ...>, #stablehlo.conv<...>
  kOpaque,         // any other dialect attribute, kept as its text
};

class Attribute;
using NamedAttribute = std::pair<std::string, Attribute>;

struct AttrStorage {
  AttrKind kind = AttrKind::kUnit;
  Type type;                 // kInteger, kFloat, kType, kDenseElements (tensor), kDenseArray (elem)
  int64_t int_value = 0;     // kInteger, kBool
  double float_value = 0;    // kFloat
  std::string str;           // kString, kOpaque text, kEnum value, kStruct name
  std::string enum_name;     // kEnum: dialect-qualified enum ("stablehlo.comparison_direction")
  std::vector<std::string> symbols;           // kSymbolRef
  std::vector<Attribute> elements;            // kArray
  std::vector<NamedAttribute> fields;         // kDictionary (sorted), kStruct (in order)
  std::vector<int64_t> ints;                  // kDenseArray of integers/bools
  std::vector<double> floats;                 // kDenseArray of floats
  std::shared_ptr<const std::vector<uint8_t>> data;  // kDenseElements raw little-endian bytes
  bool splat = false;                         // kDenseElements: data holds one element
};

class Attribute {
 public:
  Attribute() = default;
  explicit Attribute(std::shared_ptr<const AttrStorage> s) : s_(std::move(s)) {}
  explicit operator bool() const { return s_ != nullptr; }
  AttrKind kind() const { return s_->kind; }
  const AttrStorage& operator*() const { return *s_; }
  const AttrStorage* operator->() const { return s_.get(); }
  bool operator==(const Attribute& o) const;
  bool operator!=(const Attribute& o) const { return !(*this == o); }

  // Constructors.
  static Attribute Unit();
  static Attribute Bool(bool v);
  static Attribute Integer(Type type, int64_t v);
  static Attribute Float(Type type, double v);
  static Attribute String(std::string v);
  static Attribute TypeAttr(Type t);
  static Attribute SymbolRef(std::vector<std::string> path);
  static Attribute Array(std::vector<Attribute> elements);
  static Attribute DenseI64(Type i64, std::vector<int64_t> v);  // array<i64: ...>
  static Attribute DenseArray(Type elem, std::vector<int64_t> ints, std::vector<double> floats);
  static Attribute Dense(Type tensor, std::shared_ptr<const std::vector<uint8_t>> data, bool splat);
  static Attribute Dictionary(std::vector<NamedAttribute> fields);  // sorts by name
  static Attribute Enum(std::string enum_name, std::string value);
  static Attribute Struct(std::string name, std::vector<NamedAttribute> fields);
  static Attribute Opaque(std::string text);

  // Struct/dictionary field lookup; null Attribute when absent.
  Attribute Field(std::string_view name) const;

 private:
  std::shared_ptr<const AttrStorage> s_;
};

// Reads a list of integers from any attribute form that can hold one: array<i64: ...>,
// dense<...> : tensor<Nxi64>, [1, 2] of integers, or a single integer. False otherwise.
bool GetI64List(const Attribute& a, std::vector<int64_t>* out);
// Reads an integer (or bool) attribute.
bool GetInt(const Attribute& a, int64_t* out);

}  // namespace openpjrt::ir
