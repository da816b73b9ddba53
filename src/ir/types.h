// Types of the IR: element types (integers, every float format, complex, quantized), tensors,
// tokens, tuples, functions. Types are interned in a Context, so two types are equal exactly when
// their pointers are; a Type is a cheap value handle.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace openpjrt::ir {

// Scalar element kinds. Sub-byte integers and floats occupy one byte per element in memory.
enum class ElemKind : uint8_t {
  kI1, kI2, kI4, kI8, kI16, kI32, kI64,
  kU2, kU4, kU8, kU16, kU32, kU64,
  kF4E2M1FN, kF6E2M3FN, kF6E3M2FN, kF8E3M4, kF8E4M3, kF8E4M3FN, kF8E4M3FNUZ, kF8E4M3B11FNUZ,
  kF8E5M2, kF8E5M2FNUZ, kF8E8M0FNU,
  kF16, kBF16, kF32, kF64, kTF32,
  kC64, kC128,
  kIndex,
};
inline constexpr int kNumElemKinds = static_cast<int>(ElemKind::kIndex) + 1;

// The MLIR spelling of an element kind ("i32", "ui8", "f8E4M3FN", "complex<f32>", "index").
std::string_view ElemKindName(ElemKind k);
// Parses a scalar spelling (not complex); false if `name` is not one.
bool ElemKindFromName(std::string_view name, ElemKind* out);

bool IsInteger(ElemKind k);   // signless or unsigned integers, i1 and index included
bool IsUnsigned(ElemKind k);  // ui*
bool IsFloat(ElemKind k);     // every real float format
bool IsComplex(ElemKind k);
int BitWidth(ElemKind k);      // logical width: i4 -> 4, c64 -> 64, index -> 64
// Storage per element by kind (i4 -> 1, c64 -> 8), inline: every array size the executor
// computes reads it (types.cc checks it against the kinds' table).
inline constexpr uint8_t kElemBytes[kNumElemKinds] = {1, 1, 1, 1, 2, 4, 8,               // i1 .. i64
                                                      1, 1, 1, 2, 4, 8,                  // ui2 .. ui64
                                                      1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  // f4 .. f8E8M0FNU
                                                      2, 2, 4, 8, 4,                     // f16 .. tf32
                                                      8, 16, 8};                         // c64, c128, index
inline int ByteSize(ElemKind k) { return kElemBytes[static_cast<int>(k)]; }
ElemKind ComplexPart(ElemKind k);  // c64 -> f32, c128 -> f64

enum class TypeKind : uint8_t {
  kElement,   // a scalar type such as f32
  kQuant,     // !quant.uniform<...>
  kTensor,    // tensor<2x?xf32, #encoding>
  kToken,     // !stablehlo.token
  kTuple,     // tuple<...>
  kFunction,  // (inputs) -> results
  kFuture,    // !stablehlo.future<...>
  kNone,      // none
  kOpaque,    // any other dialect type, kept as text: !sdy.foo<...>, memref<...>
};

inline constexpr int64_t kDynamic = INT64_MIN;

struct QuantParams {
  ElemKind storage = ElemKind::kI8;
  ElemKind expressed = ElemKind::kF32;
  int64_t storage_min = 0, storage_max = 0;
  bool explicit_range = false;  // written as i8<-127:127>
  int32_t axis = -1;            // -1 for per-tensor
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  bool operator==(const QuantParams&) const = default;
};

struct TypeStorage;
class Attribute;

class Type {
 public:
  Type() = default;
  explicit Type(const TypeStorage* s) : s_(s) {}
  explicit operator bool() const { return s_ != nullptr; }
  bool operator==(const Type& o) const { return s_ == o.s_; }
  bool operator!=(const Type& o) const { return s_ != o.s_; }
  const TypeStorage* storage() const { return s_; }

  TypeKind kind() const;
  bool IsTensor() const { return s_ && kind() == TypeKind::kTensor; }
  bool IsToken() const { return s_ && kind() == TypeKind::kToken; }
  bool IsTuple() const { return s_ && kind() == TypeKind::kTuple; }
  bool IsElement() const { return s_ && kind() == TypeKind::kElement; }
  bool IsQuant() const { return s_ && kind() == TypeKind::kQuant; }

  // kElement
  ElemKind elem() const;
  // kQuant
  const QuantParams& quant() const;
  // kTensor
  std::span<const int64_t> shape() const;
  Type element_type() const;  // an element or quant type
  const Attribute* encoding() const;  // nullptr when absent
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  bool HasStaticShape() const;
  int64_t NumElements() const;  // -1 if dynamic
  // kTuple / kFunction / kFuture
  std::span<const Type> inputs() const;   // tuple members, function inputs, future members
  std::span<const Type> results() const;  // function results
  // kOpaque: the full text, '!' included (or `memref<...>`)
  const std::string& text() const;

  std::string ToString() const;

 private:
  const TypeStorage* s_ = nullptr;
};

// Owns every type and attribute of the modules parsed with it. Thread-safe interning.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Type Element(ElemKind k);
  Type Quant(const QuantParams& q);
  Type Tensor(std::span<const int64_t> shape, Type element, const Attribute* encoding = nullptr);
  Type Token();
  Type Tuple(std::span<const Type> members);
  Type Function(std::span<const Type> inputs, std::span<const Type> results);
  Type Future(std::span<const Type> members);
  Type None();
  Type Opaque(std::string_view text);

  // Keeps an attribute alive for as long as the context (used for tensor encodings).
  const Attribute* Retain(const Attribute& a);

 private:
  Type Intern(TypeStorage&& s);
  std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<TypeStorage>> types_;
  std::vector<std::unique_ptr<Attribute>> retained_;
  Type elements_[kNumElemKinds];
};

// Element kind of a tensor's element type, or of the storage of a quantized element type.
ElemKind StorageKind(Type element_type);

}  // namespace openpjrt::ir
