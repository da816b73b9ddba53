// Element kind facts, type storage and interning.
#include "src/ir/types.h"

#include <cassert>
#include <cstring>

#include "src/ir/attributes.h"
#include "src/ir/printer.h"

namespace openpjrt::ir {

struct TypeStorage {
  TypeKind kind = TypeKind::kNone;
  ElemKind elem = ElemKind::kF32;
  QuantParams quant;
  std::vector<int64_t> shape;
  Type element;
  const Attribute* encoding = nullptr;
  std::vector<Type> inputs, results;
  std::string text;
};

namespace {

struct ElemInfo {
  std::string_view name;
  int bits;
  int bytes;
};

constexpr ElemInfo kElemInfo[kNumElemKinds] = {
    {"i1", 1, 1},           {"i2", 2, 1},          {"i4", 4, 1},
    {"i8", 8, 1},           {"i16", 16, 2},        {"i32", 32, 4},
    {"i64", 64, 8},         {"ui2", 2, 1},         {"ui4", 4, 1},
    {"ui8", 8, 1},          {"ui16", 16, 2},       {"ui32", 32, 4},
    {"ui64", 64, 8},        {"f4E2M1FN", 4, 1},    {"f6E2M3FN", 6, 1},
    {"f6E3M2FN", 6, 1},     {"f8E3M4", 8, 1},      {"f8E4M3", 8, 1},
    {"f8E4M3FN", 8, 1},     {"f8E4M3FNUZ", 8, 1},  {"f8E4M3B11FNUZ", 8, 1},
    {"f8E5M2", 8, 1},       {"f8E5M2FNUZ", 8, 1},  {"f8E8M0FNU", 8, 1},
    {"f16", 16, 2},         {"bf16", 16, 2},       {"f32", 32, 4},
    {"f64", 64, 8},         {"tf32", 19, 4},       {"complex<f32>", 64, 8},
    {"complex<f64>", 128, 16}, {"index", 64, 8},
};

void AppendInt(std::string* key, int64_t v) { key->append(reinterpret_cast<const char*>(&v), 8); }
void AppendPtr(std::string* key, const void* p) {
  key->append(reinterpret_cast<const char*>(&p), sizeof(p));
}

}  // namespace

std::string_view ElemKindName(ElemKind k) { return kElemInfo[static_cast<int>(k)].name; }

bool ElemKindFromName(std::string_view name, ElemKind* out) {
  for (int i = 0; i < kNumElemKinds; ++i) {
    if (kElemInfo[i].name == name && name.rfind("complex", 0) != 0) {
      *out = static_cast<ElemKind>(i);
      return true;
    }
  }
  return false;
}

bool IsInteger(ElemKind k) { return k <= ElemKind::kU64 || k == ElemKind::kIndex; }
bool IsUnsigned(ElemKind k) { return k >= ElemKind::kU2 && k <= ElemKind::kU64; }
bool IsFloat(ElemKind k) { return k >= ElemKind::kF4E2M1FN && k <= ElemKind::kTF32; }
bool IsComplex(ElemKind k) { return k == ElemKind::kC64 || k == ElemKind::kC128; }
int BitWidth(ElemKind k) { return kElemInfo[static_cast<int>(k)].bits; }
static_assert([] {
  for (int i = 0; i < kNumElemKinds; ++i)
    if (kElemInfo[i].bytes != kElemBytes[i]) return false;
  return true;
}(), "kElemBytes (types.h) disagrees with kElemInfo");
ElemKind ComplexPart(ElemKind k) { return k == ElemKind::kC64 ? ElemKind::kF32 : ElemKind::kF64; }

TypeKind Type::kind() const { return s_->kind; }
ElemKind Type::elem() const { return s_->elem; }
const QuantParams& Type::quant() const { return s_->quant; }
std::span<const int64_t> Type::shape() const { return s_->shape; }
Type Type::element_type() const { return s_->element; }
const Attribute* Type::encoding() const { return s_->encoding; }
std::span<const Type> Type::inputs() const { return s_->inputs; }
std::span<const Type> Type::results() const { return s_->results; }
const std::string& Type::text() const { return s_->text; }

bool Type::HasStaticShape() const {
  for (int64_t d : shape())
    if (d == kDynamic) return false;
  return true;
}

int64_t Type::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape()) {
    if (d == kDynamic) return -1;
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;  // the parser refuses such shapes
  }
  return n;
}

std::string Type::ToString() const { return PrintType(*this); }

ElemKind StorageKind(Type t) {
  if (t.kind() == TypeKind::kQuant) return t.quant().storage;
  return t.elem();
}

Context::Context() {
  for (int i = 0; i < kNumElemKinds; ++i) {
    TypeStorage s;
    s.kind = TypeKind::kElement;
    s.elem = static_cast<ElemKind>(i);
    elements_[i] = Intern(std::move(s));
  }
}

Context::~Context() = default;

Type Context::Intern(TypeStorage&& s) {
  std::string key;
  key.push_back(static_cast<char>(s.kind));
  switch (s.kind) {
    case TypeKind::kElement:
      key.push_back(static_cast<char>(s.elem));
      break;
    case TypeKind::kQuant: {
      const QuantParams& q = s.quant;
      key.push_back(static_cast<char>(q.storage));
      key.push_back(static_cast<char>(q.expressed));
      key.push_back(q.explicit_range ? 1 : 0);
      AppendInt(&key, q.storage_min);
      AppendInt(&key, q.storage_max);
      AppendInt(&key, q.axis);
      for (double d : q.scales) key.append(reinterpret_cast<const char*>(&d), 8);
      key.push_back('|');
      for (int64_t z : q.zero_points) AppendInt(&key, z);
      break;
    }
    case TypeKind::kTensor:
      for (int64_t d : s.shape) AppendInt(&key, d);
      key.push_back('|');
      AppendPtr(&key, s.element.storage());
      if (s.encoding) key.append(PrintAttribute(*s.encoding));
      break;
    case TypeKind::kTuple:
    case TypeKind::kFunction:
    case TypeKind::kFuture:
      for (Type t : s.inputs) AppendPtr(&key, t.storage());
      key.push_back('|');
      for (Type t : s.results) AppendPtr(&key, t.storage());
      break;
    case TypeKind::kOpaque:
      key.append(s.text);
      break;
    case TypeKind::kToken:
    case TypeKind::kNone:
      break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = types_.find(key);
  if (it != types_.end()) return Type(it->second.get());
  auto owned = std::make_unique<TypeStorage>(std::move(s));
  if (owned->encoding) {
    retained_.push_back(std::make_unique<Attribute>(*owned->encoding));
    owned->encoding = retained_.back().get();
  }
  const TypeStorage* p = owned.get();
  types_.emplace(std::move(key), std::move(owned));
  return Type(p);
}

Type Context::Element(ElemKind k) { return elements_[static_cast<int>(k)]; }

Type Context::Quant(const QuantParams& q) {
  TypeStorage s;
  s.kind = TypeKind::kQuant;
  s.quant = q;
  return Intern(std::move(s));
}

Type Context::Tensor(std::span<const int64_t> shape, Type element, const Attribute* encoding) {
  TypeStorage s;
  s.kind = TypeKind::kTensor;
  s.shape.assign(shape.begin(), shape.end());
  s.element = element;
  s.encoding = encoding;
  return Intern(std::move(s));
}

Type Context::Token() {
  TypeStorage s;
  s.kind = TypeKind::kToken;
  return Intern(std::move(s));
}

Type Context::Tuple(std::span<const Type> members) {
  TypeStorage s;
  s.kind = TypeKind::kTuple;
  s.inputs.assign(members.begin(), members.end());
  return Intern(std::move(s));
}

Type Context::Function(std::span<const Type> inputs, std::span<const Type> results) {
  TypeStorage s;
  s.kind = TypeKind::kFunction;
  s.inputs.assign(inputs.begin(), inputs.end());
  s.results.assign(results.begin(), results.end());
  return Intern(std::move(s));
}

Type Context::Future(std::span<const Type> members) {
  TypeStorage s;
  s.kind = TypeKind::kFuture;
  s.inputs.assign(members.begin(), members.end());
  return Intern(std::move(s));
}

Type Context::None() {
  TypeStorage s;
  s.kind = TypeKind::kNone;
  return Intern(std::move(s));
}

Type Context::Opaque(std::string_view text) {
  TypeStorage s;
  s.kind = TypeKind::kOpaque;
  s.text = std::string(text);
  return Intern(std::move(s));
}

const Attribute* Context::Retain(const Attribute& a) {
  std::lock_guard<std::mutex> lock(mu_);
  retained_.push_back(std::make_unique<Attribute>(a));
  return retained_.back().get();
}

}  // namespace openpjrt::ir
