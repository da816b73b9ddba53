// Attribute constructors, structural equality and list readers.
#include "src/ir/attributes.h"

#include <algorithm>
#include <cstring>

namespace openpjrt::ir {
namespace {

Attribute Make(AttrStorage&& s) {
  return Attribute(std::make_shared<const AttrStorage>(std::move(s)));
}

}  // namespace

Attribute Attribute::Unit() { return Make(AttrStorage{}); }

Attribute Attribute::Bool(bool v) {
  AttrStorage s;
  s.kind = AttrKind::kBool;
  s.int_value = v ? 1 : 0;
  return Make(std::move(s));
}

Attribute Attribute::Integer(Type type, int64_t v) {
  AttrStorage s;
  s.kind = AttrKind::kInteger;
  s.type = type;
  s.int_value = v;
  return Make(std::move(s));
}

Attribute Attribute::Float(Type type, double v) {
  AttrStorage s;
  s.kind = AttrKind::kFloat;
  s.type = type;
  s.float_value = v;
  return Make(std::move(s));
}

Attribute Attribute::String(std::string v) {
  AttrStorage s;
  s.kind = AttrKind::kString;
  s.str = std::move(v);
  return Make(std::move(s));
}

Attribute Attribute::TypeAttr(Type t) {
  AttrStorage s;
  s.kind = AttrKind::kType;
  s.type = t;
  return Make(std::move(s));
}

Attribute Attribute::SymbolRef(std::vector<std::string> path) {
  AttrStorage s;
  s.kind = AttrKind::kSymbolRef;
  s.symbols = std::move(path);
  return Make(std::move(s));
}

Attribute Attribute::Array(std::vector<Attribute> elements) {
  AttrStorage s;
  s.kind = AttrKind::kArray;
  s.elements = std::move(elements);
  return Make(std::move(s));
}

Attribute Attribute::DenseI64(Type i64, std::vector<int64_t> v) {
  return DenseArray(i64, std::move(v), {});
}

Attribute Attribute::DenseArray(Type elem, std::vector<int64_t> ints, std::vector<double> floats) {
  AttrStorage s;
  s.kind = AttrKind::kDenseArray;
  s.type = elem;
  s.ints = std::move(ints);
  s.floats = std::move(floats);
  return Make(std::move(s));
}

Attribute Attribute::Dense(Type tensor, std::shared_ptr<const std::vector<uint8_t>> data,
                           bool splat) {
  AttrStorage s;
  s.kind = AttrKind::kDenseElements;
  s.type = tensor;
  s.data = std::move(data);
  s.splat = splat;
  return Make(std::move(s));
}

Attribute Attribute::Dictionary(std::vector<NamedAttribute> fields) {
  std::stable_sort(fields.begin(), fields.end(),
                   [](const NamedAttribute& a, const NamedAttribute& b) { return a.first < b.first; });
  AttrStorage s;
  s.kind = AttrKind::kDictionary;
  s.fields = std::move(fields);
  return Make(std::move(s));
}

Attribute Attribute::Enum(std::string enum_name, std::string value) {
  AttrStorage s;
  s.kind = AttrKind::kEnum;
  s.enum_name = std::move(enum_name);
  s.str = std::move(value);
  return Make(std::move(s));
}

Attribute Attribute::Struct(std::string name, std::vector<NamedAttribute> fields) {
  AttrStorage s;
  s.kind = AttrKind::kStruct;
  s.str = std::move(name);
  s.fields = std::move(fields);
  return Make(std::move(s));
}

Attribute Attribute::Opaque(std::string text) {
  AttrStorage s;
  s.kind = AttrKind::kOpaque;
  s.str = std::move(text);
  return Make(std::move(s));
}

Attribute Attribute::Field(std::string_view name) const {
  if (!s_) return {};
  for (const auto& [k, v] : s_->fields)
    if (k == name) return v;
  return {};
}

bool Attribute::operator==(const Attribute& o) const {
  if (s_ == o.s_) return true;
  if (!s_ || !o.s_) return false;
  const AttrStorage& a = *s_;
  const AttrStorage& b = *o.s_;
  if (a.kind != b.kind || a.type != b.type) return false;
  switch (a.kind) {
    case AttrKind::kUnit:
      return true;
    case AttrKind::kBool:
    case AttrKind::kInteger:
      return a.int_value == b.int_value;
    case AttrKind::kFloat:
      return std::memcmp(&a.float_value, &b.float_value, sizeof(double)) == 0;
    case AttrKind::kString:
    case AttrKind::kOpaque:
      return a.str == b.str;
    case AttrKind::kType:
      return true;
    case AttrKind::kSymbolRef:
      return a.symbols == b.symbols;
    case AttrKind::kArray:
      return a.elements == b.elements;
    case AttrKind::kDenseArray:
      return a.ints == b.ints && a.floats.size() == b.floats.size() &&
             std::equal(a.floats.begin(), a.floats.end(), b.floats.begin(),
                        [](double x, double y) { return std::memcmp(&x, &y, 8) == 0; });
    case AttrKind::kDenseElements:
      return a.splat == b.splat && *a.data == *b.data;
    case AttrKind::kDictionary:
    case AttrKind::kStruct:
      return a.str == b.str && a.fields == b.fields;
    case AttrKind::kEnum:
      return a.enum_name == b.enum_name && a.str == b.str;
  }
  return false;
}

bool GetInt(const Attribute& a, int64_t* out) {
  if (!a) return false;
  if (a.kind() == AttrKind::kInteger || a.kind() == AttrKind::kBool) {
    *out = a->int_value;
    return true;
  }
  return false;
}

bool GetI64List(const Attribute& a, std::vector<int64_t>* out) {
  out->clear();
  if (!a) return false;
  switch (a.kind()) {
    case AttrKind::kDenseArray:
      if (!a->floats.empty()) return false;
      *out = a->ints;
      return true;
    case AttrKind::kArray:
      for (const Attribute& e : a->elements) {
        int64_t v;
        if (!GetInt(e, &v)) return false;
        out->push_back(v);
      }
      return true;
    case AttrKind::kInteger:
      out->push_back(a->int_value);
      return true;
    case AttrKind::kDenseElements: {
      Type t = a->type;
      Type et = t.element_type();
      if (!et.IsElement() || !IsInteger(et.elem())) return false;
      ElemKind k = et.elem();
      int bytes = ByteSize(k);
      int64_t n = t.NumElements();
      if (n < 0) return false;
      const uint8_t* p = a->data->data();
      for (int64_t i = 0; i < n; ++i) {
        const uint8_t* e = p + (a->splat ? 0 : i * bytes);
        int64_t v = 0;
        switch (bytes) {
          case 1: v = IsUnsigned(k) ? int64_t{*e} : int64_t{static_cast<int8_t>(*e)}; break;
          case 2: { int16_t x; std::memcpy(&x, e, 2); v = IsUnsigned(k) ? uint16_t(x) : x; break; }
          case 4: { int32_t x; std::memcpy(&x, e, 4); v = IsUnsigned(k) ? int64_t(uint32_t(x)) : x; break; }
          default: std::memcpy(&v, e, 8); break;
        }
        out->push_back(v);
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace openpjrt::ir
