// MLIR text printing of types and attributes (printer.cc prints ops).
#include "src/ir/printer.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "src/ir/float_format.h"
#include "src/ir/printer_impl.h"
#include "src/support/str.h"

namespace openpjrt::ir {

bool IsBareId(std::string_view s) {
  if (s.empty()) return false;
  char c = s[0];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return false;
  for (char ch : s)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_' || ch == '$' || ch == '.'))
      return false;
  return true;
}

void AppendEscaped(std::string* out, std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c >= 0x20 && c < 0x7F) {
      out->push_back(static_cast<char>(c));
    } else {
      out->push_back('\\');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
  out->push_back('"');
}

void AppendSymbol(std::string* out, std::string_view s) {
  out->push_back('@');
  if (IsBareId(s)) {
    out->append(s);
  } else {
    AppendEscaped(out, s);
  }
}

void AppendI64List(std::string* out, const std::vector<int64_t>& v) {
  out->push_back('[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->append(", ");
    if (v[i] == kDynamic) {
      out->push_back('?');
    } else {
      StrAppend(out, v[i]);
    }
  }
  out->push_back(']');
}

std::string HexBits(uint64_t bits, int total_bits) {
  int digits = (total_bits + 3) / 4;
  std::string s = "0x";
  for (int i = digits - 1; i >= 0; --i) s.push_back("0123456789ABCDEF"[(bits >> (4 * i)) & 15]);
  return s;
}

std::string FormatFloat(double v, ElemKind k) {
  // An f32 value is printed as the f32 it names: a finite double beyond f32's range (an f32 array
  // element written as 1e39) is f32's infinity, which only the hexadecimal form spells.
  const bool finite = k == ElemKind::kF32 ? std::isfinite(static_cast<float>(v)) : std::isfinite(v);
  if (!finite) {
    const FloatFormat& f = GetFloatFormat(k);
    return HexBits(EncodeFloat(k, v), f.total_bits());
  }
  char buf[64];
  std::to_chars_result r;
  if (k == ElemKind::kF32) {
    r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v));
  } else {
    r = std::to_chars(buf, buf + sizeof(buf), v);
  }
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// ---------------------------------------------------------------------------------------------
// Types


void AppendTypeList(std::string* out, std::span<const Type> ts) {
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) out->append(", ");
    AppendType(out, ts[i]);
  }
}

void AppendFunctionType(std::string* out, std::span<const Type> in,
                               std::span<const Type> res) {
  out->push_back('(');
  AppendTypeList(out, in);
  out->append(") -> ");
  if (res.size() == 1 && res[0].kind() != TypeKind::kFunction) {
    AppendType(out, res[0]);
  } else {
    out->push_back('(');
    AppendTypeList(out, res);
    out->push_back(')');
  }
}

void AppendType(std::string* out, Type t) {
  if (!t) {
    out->append("<<null type>>");
    return;
  }
  switch (t.kind()) {
    case TypeKind::kElement:
      out->append(ElemKindName(t.elem()));
      return;
    case TypeKind::kQuant: {
      const QuantParams& q = t.quant();
      std::string storage(ElemKindName(q.storage));
      if (IsUnsigned(q.storage)) storage = "u" + storage.substr(2);  // the quant dialect writes u8
      StrAppend(out, "!quant.uniform<", storage);
      if (q.explicit_range) StrAppend(out, "<", q.storage_min, ":", q.storage_max, ">");
      StrAppend(out, ":", ElemKindName(q.expressed));
      if (q.axis >= 0) StrAppend(out, ":", q.axis);
      out->append(", ");
      if (q.axis >= 0) out->push_back('{');
      for (size_t i = 0; i < q.scales.size(); ++i) {
        if (i) out->append(", ");
        StrAppend(out, FormatFloat(q.scales[i], ElemKind::kF64), ":", q.zero_points[i]);
      }
      if (q.axis >= 0) out->push_back('}');
      out->push_back('>');
      return;
    }
    case TypeKind::kTensor:
      out->append("tensor<");
      for (int64_t d : t.shape()) {
        if (d == kDynamic) {
          out->push_back('?');
        } else {
          StrAppend(out, d);
        }
        out->push_back('x');
      }
      AppendType(out, t.element_type());
      if (t.encoding()) StrAppend(out, ", ", PrintAttribute(*t.encoding()));
      out->push_back('>');
      return;
    case TypeKind::kToken:
      out->append("!stablehlo.token");
      return;
    case TypeKind::kTuple:
      out->append("tuple<");
      AppendTypeList(out, t.inputs());
      out->push_back('>');
      return;
    case TypeKind::kFunction:
      AppendFunctionType(out, t.inputs(), t.results());
      return;
    case TypeKind::kFuture:
      out->append("!stablehlo.future<");
      AppendTypeList(out, t.inputs());
      out->push_back('>');
      return;
    case TypeKind::kNone:
      out->append("none");
      return;
    case TypeKind::kOpaque:
      out->append(t.text());
      return;
  }
}

std::string PrintType(Type t) {
  std::string s;
  AppendType(&s, t);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Attributes


void AppendElement(std::string* out, ElemKind k, const uint8_t* p) {
  if (k == ElemKind::kI1) {
    out->append(*p ? "true" : "false");
    return;
  }
  if (IsInteger(k)) {
    int bytes = ByteSize(k);
    if (IsUnsigned(k)) {
      uint64_t u = 0;
      std::memcpy(&u, p, bytes);
      if (BitWidth(k) < 8) u &= (1u << BitWidth(k)) - 1;
      StrAppend(out, u);
    } else {
      int64_t v = 0;
      switch (bytes) {
        case 1: v = static_cast<int8_t>(*p); break;
        case 2: { int16_t x; std::memcpy(&x, p, 2); v = x; break; }
        case 4: { int32_t x; std::memcpy(&x, p, 4); v = x; break; }
        default: std::memcpy(&v, p, 8); break;
      }
      StrAppend(out, v);
    }
    return;
  }
  if (IsComplex(k)) {
    ElemKind part = ComplexPart(k);
    int half = ByteSize(k) / 2;
    out->push_back('(');
    AppendElement(out, part, p);
    out->append(", ");
    AppendElement(out, part, p + half);
    out->push_back(')');
    return;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, ByteSize(k));
  double v = DecodeFloat(k, bits);
  if (std::isnan(v)) {
    out->append(HexBits(bits, GetFloatFormat(k).total_bits()));  // keeps the payload
  } else {
    out->append(FormatFloat(v, k));
  }
}

void AppendDense(std::string* out, const AttrStorage& s) {
  Type t = s.type;
  ElemKind k = StorageKind(t.element_type());
  const int bytes = ByteSize(k);
  const int64_t n = t.NumElements();
  const uint8_t* data = s.data->data();
  out->append("dense<");
  if (s.splat) {
    AppendElement(out, k, data);
  } else if (n == 0) {
  } else if (n > 256) {
    static const char kHex[] = "0123456789ABCDEF";
    out->append("\"0x");
    size_t size = s.data->size();
    size_t old = out->size();
    out->resize(old + 2 * size);
    char* o = out->data() + old;
    for (size_t i = 0; i < size; ++i) {
      o[2 * i] = kHex[data[i] >> 4];
      o[2 * i + 1] = kHex[data[i] & 15];
    }
    out->push_back('"');
  } else if (t.rank() == 0) {
    AppendElement(out, k, data);
  } else {
    auto shape = t.shape();
    // Walk the elements, opening and closing brackets at dimension boundaries.
    std::vector<int64_t> idx(shape.size(), 0);
    for (size_t d = 0; d < shape.size(); ++d) out->push_back('[');
    for (int64_t i = 0; i < n; ++i) {
      AppendElement(out, k, data + i * bytes);
      int d = static_cast<int>(shape.size()) - 1;
      int closed = 0;
      while (d >= 0 && ++idx[d] == shape[d]) {
        idx[d] = 0;
        out->push_back(']');
        ++closed;
        --d;
      }
      if (i + 1 < n) {
        out->append(", ");
        for (int c = 0; c < closed; ++c) out->push_back('[');
      }
    }
  }
  out->append("> : ");
  AppendType(out, t);
}

void AppendStructValue(std::string* out, const Attribute& v) {
  switch (v.kind()) {
    case AttrKind::kDenseArray:
      if (v->floats.empty() && v->type.IsElement() && v->type.elem() == ElemKind::kI64) {
        AppendI64List(out, v->ints);
        return;
      }
      break;
    case AttrKind::kInteger:
      if (v->int_value == kDynamic) {
        out->push_back('?');
      } else {
        StrAppend(out, v->int_value);
      }
      return;
    case AttrKind::kFloat:
      out->append(FormatFloat(v->float_value, ElemKind::kF64));
      return;
    case AttrKind::kEnum:
      if (v->enum_name.empty()) {
        out->append(v->str);
        return;
      }
      break;
    case AttrKind::kType:
      AppendType(out, v->type);
      return;
    case AttrKind::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v->elements.size(); ++i) {
        if (i) out->append(", ");
        AppendStructValue(out, v->elements[i]);
      }
      out->push_back(']');
      return;
    default:
      break;
  }
  AppendAttr(out, v);
}

// The compact form of convolution dimension numbers: [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f].
// Returns false when the fields are not a consistent set.
bool AppendConvDims(std::string* out, const Attribute& a) {
  auto get = [&](const char* n, int64_t* v) { return GetInt(a.Field(n), v); };
  auto list = [&](const char* n, std::vector<int64_t>* v) { return GetI64List(a.Field(n), v); };
  int64_t ib, iff, ki, ko, ob, of;
  std::vector<int64_t> is, ks, os;
  if (!get("input_batch_dimension", &ib) || !get("input_feature_dimension", &iff) ||
      !list("input_spatial_dimensions", &is) || !get("kernel_input_feature_dimension", &ki) ||
      !get("kernel_output_feature_dimension", &ko) || !list("kernel_spatial_dimensions", &ks) ||
      !get("output_batch_dimension", &ob) || !get("output_feature_dimension", &of) ||
      !list("output_spatial_dimensions", &os))
    return false;
  auto group = [&](int64_t a0, char c0, int64_t a1, char c1, const std::vector<int64_t>& sp,
                   std::string* g) {
    int64_t rank = static_cast<int64_t>(sp.size()) + 2;
    std::vector<std::string> slots(rank);
    auto put = [&](int64_t pos, std::string s) {
      if (pos < 0 || pos >= rank || !slots[pos].empty()) return false;
      slots[pos] = std::move(s);
      return true;
    };
    if (!put(a0, std::string(1, c0)) || !put(a1, std::string(1, c1))) return false;
    for (size_t i = 0; i < sp.size(); ++i)
      if (!put(sp[i], std::to_string(i))) return false;
    g->push_back('[');
    for (int64_t i = 0; i < rank; ++i) StrAppend(g, i ? ", " : "", slots[i]);
    g->push_back(']');
    return true;
  };
  std::string gi, gk, go;
  if (!group(ib, 'b', iff, 'f', is, &gi) || !group(ki, 'i', ko, 'o', ks, &gk) ||
      !group(ob, 'b', of, 'f', os, &go))
    return false;
  StrAppend(out, gi, "x", gk, "->", go);
  return true;
}

void AppendAttr(std::string* out, const Attribute& a) {
  if (!a) {
    out->append("<<null attribute>>");
    return;
  }
  const AttrStorage& s = *a;
  switch (s.kind) {
    case AttrKind::kUnit:
      out->append("unit");
      return;
    case AttrKind::kBool:
      out->append(s.int_value ? "true" : "false");
      return;
    case AttrKind::kInteger: {
      ElemKind k = s.type.IsElement() ? s.type.elem() : ElemKind::kI64;
      if (IsUnsigned(k)) {
        StrAppend(out, static_cast<uint64_t>(s.int_value));
      } else {
        StrAppend(out, s.int_value);
      }
      out->append(" : ");
      AppendType(out, s.type);
      return;
    }
    case AttrKind::kFloat: {
      ElemKind k = s.type.IsElement() ? s.type.elem() : ElemKind::kF64;
      StrAppend(out, FormatFloat(s.float_value, k), " : ");
      AppendType(out, s.type);
      return;
    }
    case AttrKind::kString:
      AppendEscaped(out, s.str);
      return;
    case AttrKind::kType:
      AppendType(out, s.type);
      return;
    case AttrKind::kSymbolRef:
      for (size_t i = 0; i < s.symbols.size(); ++i) {
        if (i) out->append("::");
        AppendSymbol(out, s.symbols[i]);
      }
      return;
    case AttrKind::kArray:
      out->push_back('[');
      for (size_t i = 0; i < s.elements.size(); ++i) {
        if (i) out->append(", ");
        AppendAttr(out, s.elements[i]);
      }
      out->push_back(']');
      return;
    case AttrKind::kDenseArray: {
      ElemKind k = s.type.elem();
      StrAppend(out, "array<", ElemKindName(k));
      size_t n = s.floats.empty() ? s.ints.size() : s.floats.size();
      if (n) out->append(": ");
      for (size_t i = 0; i < n; ++i) {
        if (i) out->append(", ");
        if (!s.floats.empty()) {
          out->append(FormatFloat(s.floats[i], k));
        } else if (k == ElemKind::kI1) {
          out->append(s.ints[i] ? "true" : "false");
        } else {
          StrAppend(out, s.ints[i]);
        }
      }
      out->push_back('>');
      return;
    }
    case AttrKind::kDenseElements:
      AppendDense(out, s);
      return;
    case AttrKind::kDictionary:
      out->push_back('{');
      for (size_t i = 0; i < s.fields.size(); ++i) {
        if (i) out->append(", ");
        const auto& [k, v] = s.fields[i];
        if (IsBareId(k)) {
          out->append(k);
        } else {
          AppendEscaped(out, k);
        }
        if (v.kind() != AttrKind::kUnit) {
          out->append(" = ");
          AppendAttr(out, v);
        }
      }
      out->push_back('}');
      return;
    case AttrKind::kEnum: {
      size_t dot = s.enum_name.find('.');
      if (dot == std::string::npos) {
        out->append(s.str);
        return;
      }
      StrAppend(out, "#", s.enum_name.substr(0, dot), "<", s.enum_name.substr(dot + 1), " ",
                      s.str, ">");
      return;
    }
    case AttrKind::kStruct: {
      StrAppend(out, "#", s.str, "<");
      if (s.str == "stablehlo.conv") {
        std::string compact;
        if (AppendConvDims(&compact, a)) {
          StrAppend(out, compact, ">");
          return;
        }
        out->append("raw ");
      }
      for (size_t i = 0; i < s.fields.size(); ++i) {
        if (i) out->append(", ");
        if (!s.fields[i].first.empty()) StrAppend(out, s.fields[i].first, " = ");
        AppendStructValue(out, s.fields[i].second);
      }
      out->push_back('>');
      return;
    }
    case AttrKind::kOpaque:
      out->append(s.str);
      return;
  }
}

std::string PrintAttribute(const Attribute& a) {
  std::string s;
  AppendAttr(&s, a);
  return s;
}

}  // namespace openpjrt::ir
