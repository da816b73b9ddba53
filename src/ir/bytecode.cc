// The MLIR bytecode container: header, sections, string table, dialects and op names, the lazily
// decoded attribute/type table (builtin and VHLO encodings), resources, properties and the IR
// tree with its value numbering. Every read is bounds-checked; errors name the byte offset.
#include "src/ir/bytecode.h"
#include "src/ir/bytecode_internal.h"

#include <cstring>
#include <map>
#include <optional>

#include "src/support/str.h"

namespace openpjrt::ir {

bool IsBytecode(std::string_view data) {
  return data.size() >= 4 && data.substr(0, 4) == std::string_view("ML\xEFR", 4);
}

namespace bc {
namespace {

constexpr uint64_t kMaxVersion = 6;  // bytecode format versions 0..6
constexpr int kMaxDepth = 200;       // nesting of regions, attributes and types


struct DialectEntry {
  std::string name;
};
struct OpNameEntry {
  std::string full;
  std::optional<bool> registered;
};
struct TableEntry {
  int dialect = 0;
  bool custom = false;
  std::string_view data;
  size_t base = 0;
};

TypeP Scalar(Type::Kind kind, const std::string& name, int bits) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->name = name;
  t->bits = bits;
  t->text = name;
  return t;
}

std::string DimsText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) StrAppend(&s, d < 0 ? std::string("?") : std::to_string(d), "x");
  return s;
}

// Pre-made scalar types of the VHLO type codes.
struct VhloScalar {
  int code;
  Type::Kind kind;
  const char* name;
  int bits;
};
constexpr VhloScalar kVhloScalars[] = {
    {0, Type::kInt, "i1", 1},          {2, Type::kFloat, "bf16", 16},
    {3, Type::kFloat, "f16", 16},      {4, Type::kFloat, "f32", 32},
    {5, Type::kFloat, "f64", 64},      {6, Type::kFloat, "f8E4M3FN", 8},
    {7, Type::kFloat, "f8E5M2", 8},    {9, Type::kIndex, "index", 64},
    {10, Type::kInt, "i4", 4},         {11, Type::kInt, "i8", 8},
    {12, Type::kInt, "i16", 16},       {13, Type::kInt, "i32", 32},
    {14, Type::kInt, "i64", 64},       {15, Type::kInt, "ui4", 4},
    {16, Type::kInt, "ui8", 8},        {17, Type::kInt, "ui16", 16},
    {18, Type::kInt, "ui32", 32},      {19, Type::kInt, "ui64", 64},
    {27, Type::kFloat, "f8E4M3FNUZ", 8}, {28, Type::kFloat, "f8E5M2FNUZ", 8},
    {29, Type::kFloat, "f8E4M3B11FNUZ", 8}, {31, Type::kInt, "i2", 2},
    {32, Type::kInt, "ui2", 2},        {33, Type::kNone, "none", 0},
    {34, Type::kFloat, "tf32", 19},    {35, Type::kFloat, "f8E4M3", 8},
    {36, Type::kFloat, "f8E3M4", 8},   {37, Type::kFloat, "f4E2M1FN", 4},
    {38, Type::kFloat, "f6E2M3FN", 6}, {39, Type::kFloat, "f6E3M2FN", 6},
    {40, Type::kFloat, "f8E8M0FNU", 8},
};

// The names of the VHLO enum attributes, by attribute code, and their value spellings.
struct VhloEnum {
  int code;
  const char* name;
  std::vector<const char*> values;
};
const std::vector<VhloEnum>& VhloEnums() {
  static const std::vector<VhloEnum> k = {
      {3, "comparison_direction", {"EQ", "NE", "GE", "GT", "LE", "LT"}},
      {4, "comparison_type", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
      {5, "custom_call_api_version",
       {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
        "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}},
      {7, "fft_type", {"FFT", "IFFT", "RFFT", "IRFFT"}},
      {11, "precision", {"DEFAULT", "HIGH", "HIGHEST"}},
      {12, "rng_algorithm", {"DEFAULT", "THREE_FRY", "PHILOX"}},
      {13, "rng_distribution", {"(invalid)", "UNIFORM", "NORMAL"}},
      {16, "transpose", {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
      {19, "result_accuracy_mode", {"DEFAULT", "HIGHEST", "TOLERANCE"}},
  };
  return k;
}

class Decoder : public AttrSource {
 public:
  explicit Decoder(std::string_view file) : file_(file) {}

  absl::Status Run(Module* out) {
    Cursor c(file_, 0);
    std::string_view magic;
    BC_TRY(c.Bytes(4, &magic));
    if (magic != std::string_view("ML\xEFR", 4)) return Error(0, "not MLIR bytecode (magic ML\\xEFR)");
    BC_TRY(c.VarInt(&version_));
    if (version_ > kMaxVersion)
      return Error(4, StrCat("bytecode version ", version_, " is newer than the newest this reader knows (",
                             kMaxVersion, ")"));
    std::string_view producer;
    BC_TRY(c.CString(&producer));
    out->version = version_;
    out->producer = std::string(producer);

    std::string_view sections[kNumSections];
    size_t bases[kNumSections] = {};
    bool present[kNumSections] = {};
    while (!c.empty()) {
      int id;
      std::string_view data;
      size_t base;
      size_t at = c.offset();
      BC_TRY(c.Section(&id, &data, &base));
      if (present[id]) return Error(at, StrCat("duplicate section ", id));
      present[id] = true;
      sections[id] = data;
      bases[id] = base;
    }
    for (int id : {kString, kDialect, kAttrType, kAttrTypeOffset, kIR})
      if (!present[id]) return Error(file_.size(), StrCat("missing required section ", id));
    if (version_ >= 5 && !present[kProperties])
      return Error(file_.size(), "missing the properties section (required from bytecode version 5)");

    BC_TRY(ReadStrings(sections[kString], bases[kString]));
    if (present[kProperties]) BC_TRY(ReadProperties(sections[kProperties], bases[kProperties]));
    BC_TRY(ReadDialects(sections[kDialect], bases[kDialect]));
    if (present[kResource] != present[kResourceOffset])
      return Error(file_.size(), "the resource and resource-offset sections must come together");
    if (present[kResource])
      BC_TRY(ReadResources(sections[kResource], bases[kResource], sections[kResourceOffset],
                           bases[kResourceOffset]));
    BC_TRY(ReadAttrTypeOffsets(sections[kAttrType], bases[kAttrType], sections[kAttrTypeOffset],
                               bases[kAttrTypeOffset]));
    return ReadIR(sections[kIR], bases[kIR], out);
  }

 private:
  // ---------------------------------------------------------------- tables

  absl::Status ReadStrings(std::string_view data, size_t base) {
    Cursor c(data, base);
    uint64_t n;
    BC_TRY(c.VarInt(&n));
    if (n > data.size()) return c.Fail(StrCat("string count ", n, " exceeds the section size"));
    strings_.resize(n);
    size_t end = data.size();
    for (uint64_t i = n; i-- > 0;) {
      uint64_t len;
      BC_TRY(c.VarInt(&len));
      if (len == 0 || len > end) return c.Fail("string length runs outside the string section");
      strings_[i] = data.substr(end - len, len - 1);
      end -= len;
    }
    if (data.size() - c.remaining() != end)
      return c.Fail("unexpected bytes between the string lengths and the string data");
    return absl::OkStatus();
  }

  absl::Status String(Cursor& c, std::string_view* out) {
    uint64_t i;
    size_t at = c.offset();
    BC_TRY(c.VarInt(&i));
    if (i >= strings_.size()) return Error(at, StrCat("string index ", i, " out of range"));
    *out = strings_[i];
    return absl::OkStatus();
  }

  absl::Status ReadProperties(std::string_view data, size_t base) {
    if (data.empty()) return absl::OkStatus();
    Cursor c(data, base);
    uint64_t n;
    BC_TRY(c.VarInt(&n));
    if (n > data.size()) return c.Fail("properties count exceeds the section size");
    while (props_.size() < n) {
      uint64_t size;
      BC_TRY(c.VarInt(&size));
      std::string_view blob;
      size_t b;
      BC_TRY(c.Bytes(size, &blob, &b));
      props_.push_back({blob, b});
    }
    if (!c.empty()) return c.Fail("trailing bytes in the properties section");
    return absl::OkStatus();
  }

  absl::Status ReadDialects(std::string_view data, size_t base) {
    Cursor c(data, base);
    uint64_t n;
    BC_TRY(c.VarInt(&n));
    if (n > data.size()) return c.Fail("dialect count exceeds the section size");
    for (uint64_t i = 0; i < n; ++i) {
      std::string_view name;
      if (version_ < 1) {
        BC_TRY(String(c, &name));
      } else {
        uint64_t idx;
        bool versioned;
        size_t at = c.offset();
        BC_TRY(c.VarIntFlag(&idx, &versioned));
        if (idx >= strings_.size()) return Error(at, "dialect name index out of range");
        name = strings_[idx];
        if (versioned) {
          int id;
          std::string_view ver;
          size_t vb;
          BC_TRY(c.Section(&id, &ver, &vb));
          if (id != kDialectVersions) return c.Fail("expected a dialect version section");
        }
      }
      dialects_.push_back({std::string(name)});
    }
    if (version_ >= 4) {
      uint64_t num_ops;
      BC_TRY(c.VarInt(&num_ops));
    }
    while (!c.empty()) {
      uint64_t d, count;
      size_t at = c.offset();
      BC_TRY(c.VarInt(&d));
      if (d >= dialects_.size()) return Error(at, "op-name group names an unknown dialect");
      BC_TRY(c.VarInt(&count));
      if (count > c.remaining()) return c.Fail("op-name count exceeds the section size");
      for (uint64_t k = 0; k < count; ++k) {
        std::string_view name;
        OpNameEntry e;
        if (version_ < 5) {
          BC_TRY(String(c, &name));
        } else {
          uint64_t idx;
          bool reg;
          size_t sat = c.offset();
          BC_TRY(c.VarIntFlag(&idx, &reg));
          if (idx >= strings_.size()) return Error(sat, "op name index out of range");
          name = strings_[idx];
          e.registered = reg;
        }
        e.full = name.empty() ? dialects_[d].name : StrCat(dialects_[d].name, ".", name);
        op_names_.push_back(std::move(e));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadResources(std::string_view data, size_t base, std::string_view offsets,
                             size_t obase) {
    // Dialect resources (dense_resource blobs) are not produced by VHLO serialization; the
    // groups are parsed for well-formedness and their blobs kept by key.
    Cursor res(data, base), off(offsets, obase);
    uint64_t external;
    BC_TRY(off.VarInt(&external));
    auto group = [&]() -> absl::Status {
      uint64_t n;
      BC_TRY(off.VarInt(&n));
      for (uint64_t i = 0; i < n; ++i) {
        std::string_view key, blob;
        uint64_t size;
        uint8_t kind;
        BC_TRY(String(off, &key));
        BC_TRY(off.VarInt(&size));
        BC_TRY(off.Byte(&kind));
        BC_TRY(res.Bytes(size, &blob));
      }
      return absl::OkStatus();
    };
    for (uint64_t i = 0; i < external; ++i) {
      std::string_view key;
      BC_TRY(String(off, &key));
      BC_TRY(group());
    }
    while (!off.empty()) {
      uint64_t d;
      BC_TRY(off.VarInt(&d));
      if (d >= dialects_.size()) return off.Fail("resource group names an unknown dialect");
      BC_TRY(group());
    }
    return absl::OkStatus();
  }

  absl::Status ReadAttrTypeOffsets(std::string_view data, size_t base, std::string_view offsets,
                                   size_t obase) {
    Cursor c(offsets, obase);
    uint64_t num_attrs, num_types;
    BC_TRY(c.VarInt(&num_attrs));
    BC_TRY(c.VarInt(&num_types));
    if (num_attrs > data.size() + 1 || num_types > data.size() + 1)
      return c.Fail("attribute/type counts exceed the section size");
    size_t pos = 0;
    auto fill = [&](std::vector<TableEntry>& table, uint64_t n) -> absl::Status {
      table.resize(n);
      size_t i = 0;
      while (i < n) {
        uint64_t d, count;
        size_t at = c.offset();
        BC_TRY(c.VarInt(&d));
        if (d >= dialects_.size()) return Error(at, "attribute/type group names an unknown dialect");
        BC_TRY(c.VarInt(&count));
        if (count > n - i) return c.Fail("attribute/type group runs past the declared count");
        for (uint64_t k = 0; k < count; ++k, ++i) {
          uint64_t size;
          bool custom;
          BC_TRY(c.VarIntFlag(&size, &custom));
          if (size > data.size() - pos) return c.Fail("attribute/type entry runs past its section");
          table[i] = {static_cast<int>(d), custom, data.substr(pos, size), base + pos};
          pos += size;
        }
      }
      return absl::OkStatus();
    };
    BC_TRY(fill(attr_entries_, num_attrs));
    BC_TRY(fill(type_entries_, num_types));
    if (!c.empty()) return c.Fail("trailing bytes in the attribute/type offset section");
    attrs_.assign(num_attrs, nullptr);
    types_.assign(num_types, nullptr);
    attr_busy_.assign(num_attrs, false);
    type_busy_.assign(num_types, false);
    return absl::OkStatus();
  }

  // ---------------------------------------------------------------- attributes and types

  absl::Status TypeAt(uint64_t i, size_t at, int depth, TypeP* out) {
    if (i >= types_.size()) return Error(at, StrCat("type index ", i, " out of range"));
    if (types_[i]) {
      *out = types_[i];
      return absl::OkStatus();
    }
    if (type_busy_[i] || depth > kMaxDepth) return Error(at, StrCat("type #", i, " refers to itself or nests too deeply"));
    type_busy_[i] = true;
    const TableEntry& e = type_entries_[i];
    Cursor c(e.data, e.base);
    absl::Status s = DecodeType(c, e, depth + 1, out);
    type_busy_[i] = false;
    BC_TRY(s);
    if (!c.empty()) return c.Fail("trailing bytes after a type");
    types_[i] = *out;
    return absl::OkStatus();
  }
  absl::Status AttrAt(uint64_t i, size_t at, int depth, AttrP* out) override {
    if (i >= attrs_.size()) return Error(at, StrCat("attribute index ", i, " out of range"));
    if (attrs_[i]) {
      *out = attrs_[i];
      return absl::OkStatus();
    }
    if (attr_busy_[i] || depth > kMaxDepth)
      return Error(at, StrCat("attribute #", i, " refers to itself or nests too deeply"));
    attr_busy_[i] = true;
    const TableEntry& e = attr_entries_[i];
    Cursor c(e.data, e.base);
    absl::Status s = DecodeAttr(c, e, depth + 1, out);
    attr_busy_[i] = false;
    BC_TRY(s);
    if (!c.empty()) return c.Fail("trailing bytes after an attribute");
    attrs_[i] = *out;
    return absl::OkStatus();
  }
  absl::Status TypeRef(Cursor& c, int depth, TypeP* out) {
    uint64_t i;
    size_t at = c.offset();
    BC_TRY(c.VarInt(&i));
    return TypeAt(i, at, depth, out);
  }
  absl::Status StringRef(Cursor& c, std::string_view* out) override { return String(c, out); }
  absl::Status AttrRef(Cursor& c, int depth, AttrP* out) {
    uint64_t i;
    size_t at = c.offset();
    BC_TRY(c.VarInt(&i));
    return AttrAt(i, at, depth, out);
  }
  absl::Status TypeList(Cursor& c, int depth, std::vector<TypeP>* out) {
    uint64_t n;
    BC_TRY(c.VarInt(&n));
    if (n > c.remaining()) return c.Fail("type list longer than its data");
    out->resize(n);
    for (auto& t : *out) BC_TRY(TypeRef(c, depth, &t));
    return absl::OkStatus();
  }
  absl::Status SignedList(Cursor& c, std::vector<int64_t>* out) {
    uint64_t n;
    BC_TRY(c.VarInt(&n));
    if (n > c.remaining()) return c.Fail("integer list longer than its data");
    out->resize(n);
    for (auto& v : *out) BC_TRY(c.SignedVarInt(&v));
    return absl::OkStatus();
  }
  // An integer of known width: one byte up to 8 bits, a signed varint up to 64.
  absl::Status KnownWidthInt(Cursor& c, int bits, uint64_t* out) {
    if (bits <= 8) {
      uint8_t b = 0;
      BC_TRY(c.Byte(&b));
      *out = b;
      return absl::OkStatus();
    }
    if (bits <= 64) {
      int64_t v = 0;
      BC_TRY(c.SignedVarInt(&v));
      *out = static_cast<uint64_t>(v);
      return absl::OkStatus();
    }
    return c.Fail(StrCat("integers of ", bits, " bits are not supported"));
  }

  static TypeP Tensor(std::vector<int64_t> shape, TypeP elem, std::vector<int64_t> bounds) {
    auto t = std::make_shared<Type>();
    t->kind = Type::kTensor;
    t->shape = std::move(shape);
    t->elem = std::move(elem);
    t->bounds = std::move(bounds);
    std::string enc;
    if (!t->bounds.empty()) {
      enc = ", #stablehlo.type_extensions<bounds = [";
      for (size_t i = 0; i < t->bounds.size(); ++i)
        StrAppend(&enc, i ? ", " : "", t->bounds[i] < 0 ? std::string("?") : std::to_string(t->bounds[i]));
      enc += "]>";
    }
    t->text = StrCat("tensor<", DimsText(t->shape), t->elem->text, enc, ">");
    return t;
  }

  absl::Status DecodeType(Cursor& c, const TableEntry& e, int depth, TypeP* out) {
    const std::string& dialect = dialects_[e.dialect].name;
    if (!e.custom) {
      std::string_view text;
      BC_TRY(c.CString(&text));
      auto t = std::make_shared<Type>();
      t->text = std::string(text);
      *out = t;
      return absl::OkStatus();
    }
    uint64_t code;
    size_t at = c.offset();
    BC_TRY(c.VarInt(&code));
    if (dialect == "vhlo") return DecodeVhloType(c, code, at, depth, out);
    if (dialect == "builtin") return DecodeBuiltinType(c, code, at, depth, out);
    return Error(at, StrCat("types of dialect '", dialect, "' with a custom encoding are not supported"));
  }

  absl::Status DecodeVhloType(Cursor& c, uint64_t code, size_t at, int depth, TypeP* out) {
    for (const VhloScalar& s : kVhloScalars)
      if (s.code == static_cast<int>(code)) {
        *out = Scalar(s.kind, s.name, s.bits);
        return absl::OkStatus();
      }
    auto t = std::make_shared<Type>();
    switch (code) {
      case 1: {  // complex
        BC_TRY(TypeRef(c, depth, &t->elem));
        t->kind = Type::kComplex;
        t->name = t->text = StrCat("complex<", t->elem->text, ">");
        t->bits = 2 * t->elem->bits;
        break;
      }
      case 8: {  // function
        t->kind = Type::kFunction;
        BC_TRY(TypeList(c, depth, &t->items));
        BC_TRY(TypeList(c, depth, &t->results));
        std::string in, res;
        for (size_t i = 0; i < t->items.size(); ++i) StrAppend(&in, i ? ", " : "", t->items[i]->text);
        for (size_t i = 0; i < t->results.size(); ++i) StrAppend(&res, i ? ", " : "", t->results[i]->text);
        t->text = StrCat("(", in, ") -> ", t->results.size() == 1 && t->results[0]->kind != Type::kFunction
                                               ? res : StrCat("(", res, ")"));
        break;
      }
      case 20:
      case 21: {  // ranked tensor [with encoding]
        AttrP enc;
        if (code == 21) BC_TRY(AttrRef(c, depth, &enc));
        std::vector<int64_t> shape;
        TypeP elem;
        BC_TRY(SignedList(c, &shape));
        BC_TRY(TypeRef(c, depth, &elem));
        std::vector<int64_t> bounds;
        if (enc) {
          if (enc->kind != Attr::kTypeExtensions) return Error(at, "unsupported tensor encoding");
          bounds = enc->ints;
          for (auto& b : bounds)
            if (b == INT64_MIN) b = -1;
        }
        for (auto& d : shape)
          if (d == INT64_MIN) d = -1;
        *out = Tensor(std::move(shape), std::move(elem), std::move(bounds));
        return absl::OkStatus();
      }
      case 22:
        t->kind = Type::kToken;
        t->text = "!stablehlo.token";
        break;
      case 23: {
        t->kind = Type::kTuple;
        BC_TRY(TypeList(c, depth, &t->items));
        t->text = "tuple<";
        for (size_t i = 0; i < t->items.size(); ++i) StrAppend(&t->text, i ? ", " : "", t->items[i]->text);
        t->text += ">";
        break;
      }
      case 24:
      case 30: {  // uniform quantized (per tensor / per axis)
        uint64_t flags;
        TypeP storage, expressed;
        BC_TRY(c.VarInt(&flags));
        BC_TRY(TypeRef(c, depth, &storage));
        BC_TRY(TypeRef(c, depth, &expressed));
        if (storage->kind != Type::kInt || storage->bits < 1 || storage->bits > 64)
          return Error(at, "quantized type with a non-integer storage type");
        std::string storage_text = storage->name;
        if ((flags & 1) == 0 && storage_text.rfind("i", 0) == 0) storage_text = "u" + storage_text;
        std::string params;
        int64_t smin, smax;
        if (code == 24) {
          uint64_t scale_bits;
          int64_t zp;
          BC_TRY(KnownWidthInt(c, 64, &scale_bits));
          BC_TRY(c.SignedVarInt(&zp));
          BC_TRY(c.SignedVarInt(&smin));
          BC_TRY(c.SignedVarInt(&smax));
          params = StrCat(FloatText(scale_bits), ":", zp);
        } else {
          uint64_t dim;
          BC_TRY(c.VarInt(&dim));
          BC_TRY(c.SignedVarInt(&smin));
          BC_TRY(c.SignedVarInt(&smax));
          uint64_t n;
          BC_TRY(c.VarInt(&n));
          if (n > c.remaining()) return c.Fail("quantization scale list longer than its data");
          std::vector<uint64_t> scales(n);
          for (auto& s : scales) BC_TRY(KnownWidthInt(c, 64, &s));
          uint64_t nz;
          BC_TRY(c.VarInt(&nz));
          if (nz != n) return c.Fail("per-axis quantization has different scale and zero-point counts");
          std::string list;
          for (uint64_t i = 0; i < n; ++i) {
            int64_t zp;
            BC_TRY(c.SignedVarInt(&zp));
            StrAppend(&list, i ? ", " : "", FloatText(scales[i]), ":", zp);
          }
          params = StrCat(":", dim, ", {", list, "}");
          params = params.substr(0);  // "dim, {...}" rendered below
          t->text = StrCat("!quant.uniform<", storage_text, RangeText(storage, flags, smin, smax), ":",
                           expressed->text, ":", dim, ", {", list, "}>");
          t->kind = Type::kQuant;
          t->elem = storage;
          break;
        }
        t->text = StrCat("!quant.uniform<", storage_text, RangeText(storage, flags, smin, smax), ":",
                         expressed->text, ", ", params, ">");
        t->kind = Type::kQuant;
        t->elem = storage;
        break;
      }
      case 25: {
        t->kind = Type::kUnranked;
        BC_TRY(TypeRef(c, depth, &t->elem));
        t->text = StrCat("tensor<*x", t->elem->text, ">");
        break;
      }
      case 26:
        t->text = "!shape.witness";
        break;
      case 42: {  // future: the types it will yield
        BC_TRY(TypeList(c, depth, &t->items));
        t->text = "!stablehlo.future<";
        for (size_t i = 0; i < t->items.size(); ++i) StrAppend(&t->text, i ? ", " : "", t->items[i]->text);
        t->text += ">";
        break;
      }
      case 41: {  // ranked buffer
        std::vector<int64_t> shape;
        TypeP elem;
        BC_TRY(SignedList(c, &shape));
        BC_TRY(TypeRef(c, depth, &elem));
        t->text = StrCat("memref<", DimsText(shape), elem->text, ">");
        break;
      }
      default:
        return Error(at, StrCat("unknown VHLO type code ", code));
    }
    *out = t;
    return absl::OkStatus();
  }

  // The storage range of a quantized type, written only when it is not the full range.
  static std::string RangeText(const TypeP& storage, uint64_t flags, int64_t smin, int64_t smax) {
    int bits = storage->bits;
    bool is_signed = flags & 1;
    int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
    int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1
                           : (bits >= 64 ? INT64_MAX : (int64_t{1} << bits) - 1);
    if (smin == lo && smax == hi) return "";
    return StrCat("<", smin, ":", smax, ">");
  }

  static std::string FloatText(uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, 8);
    std::string s = StrCat(d);
    // Round-trip check: fall back to hex bits when the decimal is not exact.
    if (std::strtod(s.c_str(), nullptr) != d || s.find_first_of(".eE") == std::string::npos) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      s = buf;
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    }
    return s;
  }

  absl::Status DecodeBuiltinType(Cursor& c, uint64_t code, size_t at, int depth, TypeP* out) {
    auto t = std::make_shared<Type>();
    switch (code) {
      case 0: {  // integer: width << 2 | signedness (0 signless, 1 signed, 2 unsigned)
        uint64_t ws;
        BC_TRY(c.VarInt(&ws));
        int w = static_cast<int>(ws >> 2);
        const char* prefix = (ws & 3) == 2 ? "ui" : (ws & 3) == 1 ? "si" : "i";
        *out = Scalar(Type::kInt, StrCat(prefix, w), w);
        return absl::OkStatus();
      }
      case 1: *out = Scalar(Type::kIndex, "index", 64); return absl::OkStatus();
      case 2:
        t->kind = Type::kFunction;
        BC_TRY(TypeList(c, depth, &t->items));
        BC_TRY(TypeList(c, depth, &t->results));
        t->text = "(...) -> (...)";
        break;
      case 3: *out = Scalar(Type::kFloat, "bf16", 16); return absl::OkStatus();
      case 4: *out = Scalar(Type::kFloat, "f16", 16); return absl::OkStatus();
      case 5: *out = Scalar(Type::kFloat, "f32", 32); return absl::OkStatus();
      case 6: *out = Scalar(Type::kFloat, "f64", 64); return absl::OkStatus();
      case 9:
        BC_TRY(TypeRef(c, depth, &t->elem));
        t->kind = Type::kComplex;
        t->text = t->name = StrCat("complex<", t->elem->text, ">");
        break;
      case 12: *out = Scalar(Type::kNone, "none", 0); return absl::OkStatus();
      case 13: {
        std::vector<int64_t> shape;
        TypeP elem;
        BC_TRY(SignedList(c, &shape));
        BC_TRY(TypeRef(c, depth, &elem));
        for (auto& d : shape)
          if (d == INT64_MIN) d = -1;
        *out = Tensor(std::move(shape), std::move(elem), {});
        return absl::OkStatus();
      }
      case 15:
        t->kind = Type::kTuple;
        BC_TRY(TypeList(c, depth, &t->items));
        t->text = "tuple<...>";
        break;
      case 18:
        t->kind = Type::kUnranked;
        BC_TRY(TypeRef(c, depth, &t->elem));
        t->text = StrCat("tensor<*x", t->elem->text, ">");
        break;
      default:
        return Error(at, StrCat("builtin type code ", code, " is not supported in portable artifacts"));
    }
    *out = t;
    return absl::OkStatus();
  }

  absl::Status DecodeAttr(Cursor& c, const TableEntry& e, int depth, AttrP* out) {
    const std::string& dialect = dialects_[e.dialect].name;
    auto a = std::make_shared<Attr>();
    if (!e.custom) {
      std::string_view text;
      BC_TRY(c.CString(&text));
      a->kind = Attr::kOther;
      a->str = std::string(text);
      *out = a;
      return absl::OkStatus();
    }
    uint64_t code;
    size_t at = c.offset();
    BC_TRY(c.VarInt(&code));
    if (dialect == "vhlo") return DecodeVhloAttr(c, code, at, depth, out);
    if (dialect == "builtin") return DecodeBuiltinAttr(c, code, at, depth, out);
    if (dialect == "sdy") return DecodeSdyAttr(c, code, at, depth, *this, out);
    return Error(at, StrCat("attributes of dialect '", dialect, "' with a custom encoding are not supported"));
  }

  // The array and dictionary encodings shared by the builtin and VHLO dialects.
  absl::Status ArrayBody(Cursor& c, int depth, Attr* a) {
    a->kind = Attr::kArray;
    uint64_t n;
    BC_TRY(c.VarInt(&n));
    if (n > c.remaining()) return c.Fail("array longer than its data");
    a->items.resize(n);
    for (auto& x : a->items) BC_TRY(AttrRef(c, depth, &x));
    return absl::OkStatus();
  }
  absl::Status DictBody(Cursor& c, int depth, size_t at, Attr* a) {
    a->kind = Attr::kDict;
    uint64_t n;
    BC_TRY(c.VarInt(&n));
    if (n > c.remaining()) return c.Fail("dictionary longer than its data");
    for (uint64_t i = 0; i < n; ++i) {
      AttrP k, v;
      BC_TRY(AttrRef(c, depth, &k));
      BC_TRY(AttrRef(c, depth, &v));
      if (k->kind != Attr::kString) return Error(at, "dictionary key is not a string");
      a->dict.emplace_back(k->str, v);
    }
    return absl::OkStatus();
  }

  absl::Status DecodeVhloAttr(Cursor& c, uint64_t code, size_t at, int depth, AttrP* out) {
    auto a = std::make_shared<Attr>();
    for (const VhloEnum& en : VhloEnums())
      if (en.code == static_cast<int>(code)) {
        uint64_t v;
        BC_TRY(c.VarInt(&v));
        if (v >= en.values.size() || std::string_view(en.values[v]) == "(invalid)")
          return Error(at, StrCat("value ", v, " is not a valid ", en.name));
        a->kind = Attr::kEnum;
        a->str = StrCat(en.name, " ", en.values[v]);
        *out = a;
        return absl::OkStatus();
      }
    switch (code) {
      case 1:
        BC_TRY(ArrayBody(c, depth, a.get()));
        break;
      case 2: {
        uint64_t v;
        BC_TRY(c.VarInt(&v));
        if (v > 1) return Error(at, StrCat("boolean value ", v));
        a->kind = Attr::kBool;
        a->i = static_cast<int64_t>(v);
        break;
      }
      case 6:  // (name, value) attribute pairs
        BC_TRY(DictBody(c, depth, at, a.get()));
        break;
      case 8: {  // float
        a->kind = Attr::kFloat;
        BC_TRY(TypeRef(c, depth, &a->type));
        if (a->type->kind != Type::kFloat) return Error(at, "float attribute of a non-float type");
        uint64_t bits;
        BC_TRY(KnownWidthInt(c, a->type->bits, &bits));
        a->i = static_cast<int64_t>(bits);
        int hex_digits = (a->type->bits + 3) / 4;
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%0*llX", hex_digits, static_cast<unsigned long long>(bits));
        a->float_text = buf;
        break;
      }
      case 9: {  // integer
        a->kind = Attr::kInt;
        BC_TRY(TypeRef(c, depth, &a->type));
        if (a->type->kind != Type::kInt && a->type->kind != Type::kIndex)
          return Error(at, "integer attribute of a non-integer type");
        uint64_t v;
        BC_TRY(KnownWidthInt(c, a->type->bits, &v));
        int bits = a->type->bits;
        bool is_unsigned = a->type->name.rfind("ui", 0) == 0;
        if (bits < 64) {
          v &= (uint64_t{1} << bits) - 1;
          if (!is_unsigned && (v >> (bits - 1)) & 1) v |= ~((uint64_t{1} << bits) - 1);
        }
        a->i = static_cast<int64_t>(v);
        break;
      }
      case 10: {  // output operand alias
        a->kind = Attr::kOutputOperandAlias;
        BC_TRY(SignedList(c, &a->ints));
        BC_TRY(c.SignedVarInt(&a->i));
        BC_TRY(SignedList(c, &a->ints2));
        break;
      }
      case 14: {
        std::string_view s;
        BC_TRY(String(c, &s));
        a->kind = Attr::kString;
        a->str = std::string(s);
        break;
      }
      case 15: {  // tensor: type + blob (i1 packed 8 per byte, or a 0x00/0xFF splat byte)
        a->kind = Attr::kTensor;
        BC_TRY(TypeRef(c, depth, &a->type));
        uint64_t n;
        BC_TRY(c.VarInt(&n));
        std::string_view blob;
        BC_TRY(c.Bytes(n, &blob));
        if (a->type->kind != Type::kTensor) return Error(at, "tensor attribute of a non-tensor type");
        int64_t count = 1;
        for (int64_t d : a->type->shape) {
          if (d < 0) return Error(at, "tensor attribute with a dynamic shape");
          count = d && count > (int64_t{1} << 40) / d ? (int64_t{1} << 41) : count * d;
        }
        const TypeP& el = a->type->elem;
        if (el->name == "i1") {
          // Packed (8 per byte) unless the size says one byte per element; a 0x00/0xFF splat
          // byte unpacks to the same values.
          if (static_cast<int64_t>(blob.size()) == (count + 7) / 8 && static_cast<int64_t>(blob.size()) != count) {
            a->data.resize(count);
            for (int64_t i = 0; i < count; ++i) a->data[i] = (blob[i / 8] >> (i % 8)) & 1;
          } else if (blob.size() == 1 && count > 1) {
            a->data.assign(1, blob[0] ? 1 : 0);
          } else {
            a->data.assign(blob.begin(), blob.end());
            for (char& ch : a->data) ch = ch ? 1 : 0;
          }
        } else {
          a->data.assign(blob.begin(), blob.end());
        }
        int64_t elem_bytes = el->kind == Type::kComplex ? 2 * ((el->elem->bits + 7) / 8) : (el->bits + 7) / 8;
        if (el->kind == Type::kQuant) elem_bytes = (el->elem->bits + 7) / 8;
        // An empty tensor may still carry one splat element (MLIR stores empty splats that way).
        if (count == 0 && static_cast<int64_t>(a->data.size()) == elem_bytes) a->data.clear();
        int64_t have = static_cast<int64_t>(a->data.size());
        if (elem_bytes > 0 && have != elem_bytes * count && !(have == elem_bytes && count >= 1) &&
            !(count == 0 && have == 0))
          return Error(at, StrCat("tensor data has ", have, " bytes; ", a->type->text, " needs ",
                                  elem_bytes * count));
        break;
      }
      case 17: {
        a->kind = Attr::kType;
        BC_TRY(TypeRef(c, depth, &a->type));
        break;
      }
      case 18: {
        a->kind = Attr::kTypeExtensions;
        BC_TRY(SignedList(c, &a->ints));
        break;
      }
      case 20: {  // result accuracy: atol, rtol (f64 bits), ulps, mode
        a->kind = Attr::kResultAccuracy;
        uint64_t atol, rtol;
        BC_TRY(KnownWidthInt(c, 64, &atol));
        BC_TRY(KnownWidthInt(c, 64, &rtol));
        int64_t ulps;
        BC_TRY(c.SignedVarInt(&ulps));
        BC_TRY(AttrRef(c, depth, &a->sub));
        a->ints = {static_cast<int64_t>(atol), static_cast<int64_t>(rtol), ulps};
        break;
      }
      case 21: {  // sub-axis info: pre_size, size
        int64_t pre, size;
        BC_TRY(c.SignedVarInt(&pre));
        BC_TRY(c.SignedVarInt(&size));
        a->kind = Attr::kOther;
        a->str = StrCat("(", pre, ")", size);
        break;
      }
      case 22: {  // axis ref: name, then zero or one sub-axis info
        AttrP name;
        BC_TRY(AttrRef(c, depth, &name));
        uint64_t n;
        BC_TRY(c.VarInt(&n));
        if (n > 1) return Error(at, "axis_ref with more than one sub_axis_info");
        a->kind = Attr::kOther;
        a->str = StrCat("#stablehlo.axis_ref<name = \"", name->str, "\"");
        if (n == 1) {
          AttrP sub;
          BC_TRY(AttrRef(c, depth, &sub));
          StrAppend(&a->str, ", sub_axis_info = ", sub->str);
        }
        a->str += ">";
        break;
      }
      case 23: {  // replica groups as mesh axes: mesh name, axes
        AttrP mesh, axes;
        BC_TRY(AttrRef(c, depth, &mesh));
        BC_TRY(AttrRef(c, depth, &axes));
        a->kind = Attr::kOther;
        a->str = StrCat("#stablehlo.replica_group_mesh_axes<mesh = @", mesh->str, ", axes = [");
        for (size_t i = 0; i < axes->items.size(); ++i) StrAppend(&a->str, i ? ", " : "", axes->items[i]->str);
        a->str += "]>";
        break;
      }
      default:
        return Error(at, StrCat("unknown VHLO attribute code ", code));
    }
    *out = a;
    return absl::OkStatus();
  }

  absl::Status DecodeBuiltinAttr(Cursor& c, uint64_t code, size_t at, int depth, AttrP* out) {
    auto a = std::make_shared<Attr>();
    switch (code) {
      case 0:
        BC_TRY(ArrayBody(c, depth, a.get()));
        break;
      case 1:
        BC_TRY(DictBody(c, depth, at, a.get()));
        break;
      case 2:
      case 3: {  // string [with type]
        std::string_view s;
        BC_TRY(String(c, &s));
        if (code == 3) BC_TRY(TypeRef(c, depth, &a->type));
        a->kind = Attr::kString;
        a->str = std::string(s);
        break;
      }
      case 4: {  // flat symbol ref: a string attribute
        AttrP root;
        BC_TRY(AttrRef(c, depth, &root));
        a->kind = Attr::kSymbol;
        a->str = root->str;
        break;
      }
      case 6:
        a->kind = Attr::kType;
        BC_TRY(TypeRef(c, depth, &a->type));
        break;
      case 7:
        a->kind = Attr::kUnit;
        break;
      case 8: {  // integer
        a->kind = Attr::kInt;
        BC_TRY(TypeRef(c, depth, &a->type));
        uint64_t v;
        BC_TRY(KnownWidthInt(c, a->type->bits, &v));
        int bits = a->type->bits;
        if (bits > 0 && bits < 64 && ((v >> (bits - 1)) & 1) && a->type->name.rfind("ui", 0) != 0)
          v |= ~((uint64_t{1} << bits) - 1);
        a->i = static_cast<int64_t>(v);
        if (a->type->name == "i1") a->kind = Attr::kBool;
        break;
      }
      case 15:  // unknown location
        a->kind = Attr::kUnit;
        break;
      case 18:  // dense int or float elements: a tensor type and a blob, as VHLO's tensor
        return DecodeVhloAttr(c, 15, at, depth, out);
      default:
        // Locations and the rarer builtin attributes are never needed to rebuild a program;
        // they are only reached if an op's attribute dictionary names them.
        a->kind = Attr::kOther;
        a->str = StrCat("<builtin attribute ", code, ">");
        c = Cursor(std::string_view(), c.offset());  // its bytes are skipped
        break;
    }
    *out = a;
    return absl::OkStatus();
  }

  // ---------------------------------------------------------------- IR

  struct Scope {
    std::vector<std::string> values;      // SSA names, "" until defined
    std::vector<TypeP> types;             // their types
    std::vector<size_t> next;             // next value id of each open region
  };

  absl::Status Define(Scope& s, size_t at, const std::vector<TypeP>& types, std::vector<std::string>* names) {
    const size_t n = types.size();
    if (s.next.empty()) return Error(at, "values defined outside of a region");
    size_t& id = s.next.back();
    if (id + n > s.values.size())
      return Error(at, StrCat("value ids [", id, ", ", id + n, ") exceed the region's ", s.values.size()));
    for (size_t i = 0; i < n; ++i, ++id) {
      std::string name = StrCat("%v", ++value_counter_);
      s.values[id] = name;
      s.types[id] = types[i];
      names->push_back(name);
    }
    return absl::OkStatus();
  }

  absl::Status UseLists(Cursor& c, uint64_t range) {
    uint64_t count = 1;
    if (range > 1) BC_TRY(c.VarInt(&count));
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t idx = 0, n;
      bool pairs;
      if (range > 1) BC_TRY(c.VarInt(&idx));
      BC_TRY(c.VarIntFlag(&n, &pairs));
      if (n > c.remaining()) return c.Fail("use-list order longer than its data");
      for (uint64_t k = 0; k < n; ++k) {
        uint64_t v;
        BC_TRY(c.VarInt(&v));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadRegion(Cursor& c, Scope& s, int depth, Region* r) {
    if (depth > kMaxDepth) return c.Fail("regions nest too deeply");
    uint64_t num_blocks;
    BC_TRY(c.VarInt(&num_blocks));
    if (num_blocks == 0) return absl::OkStatus();
    if (num_blocks > c.remaining()) return c.Fail("block count exceeds the data");
    uint64_t num_values;
    BC_TRY(c.VarInt(&num_values));
    if (num_values > c.remaining() * 2 + 16) return c.Fail("value count exceeds the data");
    const size_t base = s.values.size();
    s.values.resize(base + num_values);
    s.types.resize(base + num_values);
    s.next.push_back(base);
    r->blocks.resize(num_blocks);
    for (Block& b : r->blocks) BC_TRY(ReadBlock(c, s, depth, &b));
    s.next.pop_back();
    s.values.resize(base);
    s.types.resize(base);
    return absl::OkStatus();
  }

  absl::Status ReadBlock(Cursor& c, Scope& s, int depth, Block* b) {
    uint64_t num_ops;
    bool has_args;
    BC_TRY(c.VarIntFlag(&num_ops, &has_args));
    if (num_ops > c.remaining()) return c.Fail("op count exceeds the data");
    if (has_args) {
      uint64_t n;
      size_t at = c.offset();
      BC_TRY(c.VarInt(&n));
      if (n > c.remaining()) return c.Fail("block argument count exceeds the data");
      std::vector<TypeP> types(n);
      for (uint64_t i = 0; i < n; ++i) {
        if (version_ >= 4) {
          uint64_t ti;
          bool has_loc;
          size_t tat = c.offset();
          BC_TRY(c.VarIntFlag(&ti, &has_loc));
          BC_TRY(TypeAt(ti, tat, 0, &types[i]));
          if (has_loc) {
            uint64_t loc;
            BC_TRY(c.VarInt(&loc));
          }
        } else {
          BC_TRY(TypeRef(c, 0, &types[i]));
          uint64_t loc;
          BC_TRY(c.VarInt(&loc));
        }
      }
      for (const TypeP& t : types)
        if (t->kind == Type::kFunction) return Error(at, "a block argument of function type");
      std::vector<std::string> names;
      BC_TRY(Define(s, at, types, &names));
      for (uint64_t i = 0; i < n; ++i) b->args.emplace_back(names[i], types[i]);
      if (version_ >= 3) {
        uint8_t has_orders;
        BC_TRY(c.Byte(&has_orders));
        if (has_orders) BC_TRY(UseLists(c, n));
      }
    }
    b->ops.resize(num_ops);
    for (Op& op : b->ops) BC_TRY(ReadOp(c, s, depth, &op));
    return absl::OkStatus();
  }

  absl::Status ReadOp(Cursor& c, Scope& s, int depth, Op* op) {
    op->offset = c.offset();
    uint64_t name_idx;
    BC_TRY(c.VarInt(&name_idx));
    if (name_idx >= op_names_.size()) return Error(op->offset, StrCat("op name index ", name_idx, " out of range"));
    const OpNameEntry& on = op_names_[name_idx];
    op->name = on.full;
    uint8_t mask;
    BC_TRY(c.Byte(&mask));
    uint64_t loc;
    BC_TRY(c.VarInt(&loc));
    if (mask & 0x01) {  // attribute dictionary
      AttrP dict;
      BC_TRY(AttrRef(c, 0, &dict));
      if (dict->kind != Attr::kDict) return Error(op->offset, "op attributes are not a dictionary");
      op->attrs = dict->dict;
    }
    if (mask & 0x40) {  // properties
      if (!on.registered) return Error(op->offset, "properties on an op name without a registration flag");
      if (*on.registered) {
        uint64_t idx;
        size_t at = c.offset();
        BC_TRY(c.VarInt(&idx));
        if (idx >= props_.size()) return Error(at, StrCat("properties index ", idx, " out of range"));
        Cursor pc(props_[idx].first, props_[idx].second);
        BC_TRY(ReadProps(pc, op));
      } else {
        AttrP dict;
        BC_TRY(AttrRef(c, 0, &dict));
        if (dict->kind == Attr::kDict)
          for (auto& kv : dict->dict) op->attrs.push_back(kv);
      }
    }
    if (mask & 0x02) {
      uint64_t n;
      BC_TRY(c.VarInt(&n));
      if (n > c.remaining()) return c.Fail("result count exceeds the data");
      op->result_types.resize(n);
      for (auto& t : op->result_types) {
        size_t at = c.offset();
        BC_TRY(TypeRef(c, 0, &t));
        if (t->kind == Type::kFunction) return Error(at, "an op result of function type");
      }
    }
    if (mask & 0x04) {
      uint64_t n;
      BC_TRY(c.VarInt(&n));
      if (n > c.remaining()) return c.Fail("operand count exceeds the data");
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t id;
        size_t at = c.offset();
        BC_TRY(c.VarInt(&id));
        if (id >= s.values.size()) return Error(at, StrCat("operand refers to value #", id, " outside its region"));
        if (s.values[id].empty())
          return Error(at, StrCat("operand refers to value #", id, " before its definition (forward references are not supported)"));
        op->operands.push_back(s.values[id]);
        op->operand_types.push_back(s.types[id]);
      }
    }
    if (mask & 0x08) return Error(op->offset, StrCat(op->name, ": block successors are not supported"));
    if (version_ >= 3 && (mask & 0x20)) BC_TRY(UseLists(c, op->result_types.size()));
    uint64_t num_regions = 0;
    bool isolated = false;
    if (mask & 0x10) {
      BC_TRY(c.VarIntFlag(&num_regions, &isolated));
      if (num_regions > c.remaining()) return c.Fail("region count exceeds the data");
    }
    if (!s.next.empty() && !op->result_types.empty())
      BC_TRY(Define(s, op->offset, op->result_types, &op->results));
    if (num_regions == 0) return absl::OkStatus();
    op->regions.resize(num_regions);
    if (!isolated) {
      for (Region& r : op->regions) BC_TRY(ReadRegion(c, s, depth + 1, &r));
      return absl::OkStatus();
    }
    Scope inner;
    if (version_ >= 2) {
      int id;
      std::string_view data;
      size_t base;
      size_t at = c.offset();
      BC_TRY(c.Section(&id, &data, &base));
      if (id != kIR) return Error(at, "expected an IR section for an isolated region");
      Cursor rc(data, base);
      for (Region& r : op->regions) BC_TRY(ReadRegion(rc, inner, depth + 1, &r));
      if (!rc.empty()) return rc.Fail("trailing bytes after isolated regions");
      return absl::OkStatus();
    }
    for (Region& r : op->regions) BC_TRY(ReadRegion(c, inner, depth + 1, &r));
    return absl::OkStatus();
  }

  // Properties of registered ops. builtin.module stores optional sym_name, sym_visibility; VHLO
  // ops store one attribute reference per attribute (the VHLO layer names them by position).
  absl::Status ReadProps(Cursor& p, Op* op) {
    if (op->name == "builtin.module") {
      for (const char* name : {"sym_name", "sym_visibility"}) {
        if (p.empty()) break;
        uint64_t idx;
        bool present;
        size_t at = p.offset();
        BC_TRY(p.VarIntFlag(&idx, &present));
        if (!present) continue;
        AttrP a;
        BC_TRY(AttrAt(idx, at, 0, &a));
        op->attrs.emplace_back(name, a);
      }
      return absl::OkStatus();
    }
    op->props_by_position = true;
    while (!p.empty()) {
      AttrP a;
      BC_TRY(AttrRef(p, 0, &a));
      op->props.push_back(a);
    }
    return absl::OkStatus();
  }

  absl::Status ReadIR(std::string_view data, size_t base, Module* out) {
    Cursor c(data, base);
    Scope top;
    Block b;
    BC_TRY(ReadBlock(c, top, 0, &b));
    if (!c.empty()) return c.Fail("trailing bytes after the top-level block");
    out->top = std::move(b.ops);
    return absl::OkStatus();
  }

  std::string_view file_;
  uint64_t version_ = 0;
  std::vector<std::string_view> strings_;
  std::vector<DialectEntry> dialects_;
  std::vector<OpNameEntry> op_names_;
  std::vector<std::pair<std::string_view, size_t>> props_;
  std::vector<TableEntry> attr_entries_, type_entries_;
  std::vector<AttrP> attrs_;
  std::vector<TypeP> types_;
  std::vector<bool> attr_busy_, type_busy_;
  uint64_t value_counter_ = 0;
};

}  // namespace

absl::StatusOr<Module> Decode(std::string_view data) {
  Module m;
  Decoder d(data);
  if (absl::Status s = d.Run(&m); !s.ok()) return s;
  return m;
}

}  // namespace bc
}  // namespace openpjrt::ir
