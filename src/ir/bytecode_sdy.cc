// Shardy's attributes in MLIR bytecode. The sdy dialect gives each attribute a code (its index in
// the dialect's list) followed by its members: strings as string-table references, nested sdy
// attributes and builtin attributes as attribute-table references, integers as signed varints,
// flags as one byte, optional members behind a present bit. Each attribute is turned into the
// text Shardy prints, which the text parser reads like any program written by hand.
#include <optional>
#include <vector>

#include "src/ir/bytecode_internal.h"

namespace openpjrt::ir::bc {
namespace {

constexpr int kMaxDepth = 200;

// The codes of the sdy dialect's attributes, in the dialect's order.
enum SdyCode : uint64_t {
  kManualAxes = 0, kMeshAxis, kMesh, kSubAxisInfo, kAxisRef, kDimensionSharding, kTensorShardingV1,
  kShardingPerValueV1, kDimMapping, kTensorMapping, kOpShardingRule, kAxisRefList,
  kListOfAxisRefLists, kAllToAllParam, kAllToAllParamList, kTensorShardingV2, kShardingPerValueV2,
  kTensorShardingV3, kNumSdyCodes
};

class SdyReader {
 public:
  SdyReader(Cursor& c, int depth, AttrSource& src) : c_(c), depth_(depth), src_(src) {}

  // The text of a member that is itself an sdy attribute (its nested form) or a builtin one.
  absl::Status Member(std::string* out) {
    uint64_t idx;
    size_t at = c_.offset();
    BC_TRY(c_.VarInt(&idx));
    return MemberAt(idx, at, out);
  }
  absl::Status OptionalMember(std::string* out, bool* present) {
    uint64_t idx;
    size_t at = c_.offset();
    BC_TRY(c_.VarIntFlag(&idx, present));
    if (!*present) return absl::OkStatus();
    return MemberAt(idx, at, out);
  }
  // A list of members joined by ", ".
  absl::Status Members(std::string* out) {
    uint64_t n;
    BC_TRY(Count(&n));
    for (uint64_t i = 0; i < n; ++i) {
      std::string m;
      BC_TRY(Member(&m));
      StrAppend(out, i ? ", " : "", m);
    }
    return absl::OkStatus();
  }
  absl::Status Strings(std::string* out) {
    uint64_t n;
    BC_TRY(Count(&n));
    for (uint64_t i = 0; i < n; ++i) {
      std::string_view s;
      BC_TRY(src_.StringRef(c_, &s));
      StrAppend(out, i ? ", " : "", Quote(s));
    }
    return absl::OkStatus();
  }
  absl::Status Ints(std::vector<int64_t>* out) {
    uint64_t n;
    BC_TRY(Count(&n));
    out->resize(n);
    for (auto& v : *out) BC_TRY(c_.SignedVarInt(&v));
    return absl::OkStatus();
  }
  absl::Status Int(int64_t* v) { return c_.SignedVarInt(v); }
  absl::Status Bool(bool* b) {
    uint8_t v;
    BC_TRY(c_.Byte(&v));
    if (v > 1) return c_.Fail(StrCat("sdy: a flag byte of ", int(v), ", expected 0 or 1"));
    *b = v != 0;
    return absl::OkStatus();
  }
  absl::Status String(std::string_view* s) { return src_.StringRef(c_, s); }
  absl::Status OptionalVarInt(std::optional<uint64_t>* v) {
    uint64_t x;
    bool present;
    BC_TRY(c_.VarIntFlag(&x, &present));
    if (present) *v = x;
    return absl::OkStatus();
  }
  Cursor& cursor() { return c_; }

  static std::string Quote(std::string_view s) {
    std::string q = "\"";
    for (char ch : s) {
      if (ch == '"' || ch == '\\') q += '\\';
      q += ch;
    }
    return q + "\"";
  }

 private:
  absl::Status Count(uint64_t* n) {
    BC_TRY(c_.VarInt(n));
    if (*n > c_.remaining() + 1) return c_.Fail("sdy: a list longer than its data");
    return absl::OkStatus();
  }
  absl::Status MemberAt(uint64_t idx, size_t at, std::string* out) {
    AttrP a;
    BC_TRY(src_.AttrAt(idx, at, depth_ + 1, &a));
    *out = MemberText(*a);
    return absl::OkStatus();
  }
  static std::string MemberText(const Attr& a) {
    if (!a.nested.empty()) return a.nested;
    switch (a.kind) {
      case Attr::kSymbol: return StrCat("@", a.str);
      case Attr::kString: return Quote(a.str);
      default: return a.str;
    }
  }

  Cursor& c_;
  int depth_;
  AttrSource& src_;
};

std::string Ints(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) StrAppend(&s, i ? ", " : "", v[i]);
  return s;
}

// Factor names as Shardy prints them: i, j, ..., z, then z_1, z_2, ...
std::string FactorName(int64_t f) {
  if (f < 18) return std::string(1, static_cast<char>('i' + f));
  return StrCat("z_", f - 17);
}

absl::Status FactorSet(SdyReader& r, const char* name, std::string* out) {
  std::vector<int64_t> v;
  BC_TRY(r.Ints(&v));
  if (v.empty()) return absl::OkStatus();
  StrAppend(out, " ", name, "={");
  for (size_t i = 0; i < v.size(); ++i) StrAppend(out, i ? ", " : "", FactorName(v[i]));
  *out += "}";
  return absl::OkStatus();
}

// A tensor sharding's members after the mesh: dimension shardings, replicated and (from V2)
// unreduced axes, (V3) the reduction. Returns the body inside the angle brackets.
absl::Status TensorShardingBody(SdyReader& r, uint64_t code, std::string* body) {
  std::string mesh, dims, replicated, unreduced;
  BC_TRY(r.Member(&mesh));
  BC_TRY(r.Members(&dims));
  BC_TRY(r.Members(&replicated));
  if (code != kTensorShardingV1) BC_TRY(r.Members(&unreduced));
  int64_t reduction = 0;
  if (code == kTensorShardingV3) BC_TRY(r.Int(&reduction));
  *body = StrCat(mesh, ", [", dims, "]");
  if (!replicated.empty()) StrAppend(body, ", replicated={", replicated, "}");
  if (!unreduced.empty()) StrAppend(body, ", unreduced={", unreduced, "}");
  if (code == kTensorShardingV3) StrAppend(body, ", reduction=", reduction);
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeSdyAttr(Cursor& c, uint64_t code, size_t at, int depth, AttrSource& src, AttrP* out) {
  if (depth > kMaxDepth) return Error(at, "sdy attribute nested too deeply");
  if (code >= kNumSdyCodes) return Error(at, StrCat("sdy attribute code ", code, " is not known to this reader"));
  SdyReader r(c, depth, src);
  auto a = std::make_shared<Attr>();
  a->kind = Attr::kOther;
  std::string nested, text;
  switch (static_cast<SdyCode>(code)) {
    case kManualAxes: {
      BC_TRY(r.Members(&nested));
      text = StrCat("#sdy<manual_axes{", nested, "}>");
      nested = StrCat("{", nested, "}");
      break;
    }
    case kMeshAxis: {
      std::string_view name;
      int64_t size;
      BC_TRY(r.String(&name));
      BC_TRY(r.Int(&size));
      nested = StrCat(SdyReader::Quote(name), "=", size);
      text = StrCat("#sdy<mesh_axis", nested, ">");
      break;
    }
    case kMesh: {
      std::string axes;
      std::vector<int64_t> ids;
      BC_TRY(r.Members(&axes));
      BC_TRY(r.Ints(&ids));
      nested = StrCat("mesh<[", axes, "]");
      if (!ids.empty()) StrAppend(&nested, ", device_ids=[", Ints(ids), "]");
      nested += ">";
      text = "#sdy." + nested;
      break;
    }
    case kSubAxisInfo: {
      int64_t pre, size;
      BC_TRY(r.Int(&pre));
      BC_TRY(r.Int(&size));
      nested = StrCat("(", pre, ")", size);
      text = StrCat("#sdy<sub_axis_info", nested, ">");
      break;
    }
    case kAxisRef: {
      std::string_view name;
      std::string sub;
      bool has_sub = false;
      BC_TRY(r.String(&name));
      BC_TRY(r.OptionalMember(&sub, &has_sub));
      nested = SdyReader::Quote(name);
      if (has_sub) StrAppend(&nested, ":", sub);
      text = StrCat("#sdy<axis_ref", nested, ">");
      break;
    }
    case kDimensionSharding: {
      std::string axes;
      bool closed;
      std::optional<uint64_t> priority;
      BC_TRY(r.Members(&axes));
      BC_TRY(r.Bool(&closed));
      BC_TRY(r.OptionalVarInt(&priority));
      nested = StrCat("{", axes, closed ? "" : (axes.empty() ? "?" : ", ?"), "}");
      if (priority) StrAppend(&nested, "p", *priority);
      text = StrCat("#sdy<dimension_sharding", nested, ">");
      break;
    }
    case kTensorShardingV1:
    case kTensorShardingV2:
    case kTensorShardingV3: {
      std::string body;
      BC_TRY(TensorShardingBody(r, code, &body));
      nested = StrCat("<", body, ">");
      text = StrCat("#sdy.sharding<", body, ">");
      break;
    }
    case kShardingPerValueV1:
    case kShardingPerValueV2: {
      std::string items;
      BC_TRY(r.Members(&items));
      nested = StrCat("[", items, "]");
      text = StrCat("#sdy.sharding_per_value<", nested, ">");
      break;
    }
    case kDimMapping: {
      std::vector<int64_t> factors;
      BC_TRY(r.Ints(&factors));
      for (int64_t f : factors) nested += FactorName(f);
      if (nested.empty()) nested = "1";
      text = StrCat("#sdy<dim_mapping", nested, ">");
      break;
    }
    case kTensorMapping: {
      BC_TRY(r.Members(&nested));
      nested = StrCat("[", nested, "]");
      text = StrCat("#sdy<tensor_mapping", nested, ">");
      break;
    }
    case kOpShardingRule: {
      std::vector<int64_t> sizes;
      std::string operands, results;
      BC_TRY(r.Ints(&sizes));
      BC_TRY(r.Members(&operands));
      BC_TRY(r.Members(&results));
      std::string body = StrCat("(", operands, ")->(", results, ") {");
      for (size_t i = 0; i < sizes.size(); ++i)
        StrAppend(&body, i ? ", " : "", FactorName(static_cast<int64_t>(i)), "=", sizes[i]);
      body += "}";
      BC_TRY(FactorSet(r, "reduction", &body));
      BC_TRY(FactorSet(r, "need_replication", &body));
      BC_TRY(FactorSet(r, "permutation", &body));
      BC_TRY(FactorSet(r, "blocked_propagation", &body));
      bool custom;
      BC_TRY(r.Bool(&custom));
      if (custom) body += ", custom";
      nested = StrCat("<", body, ">");
      text = StrCat("#sdy.op_sharding_rule<", body, ">");
      break;
    }
    case kAxisRefList: {
      BC_TRY(r.Members(&nested));
      nested = StrCat("{", nested, "}");
      text = StrCat("#sdy<axis_ref_list", nested, ">");
      break;
    }
    case kListOfAxisRefLists: {
      BC_TRY(r.Members(&nested));
      nested = StrCat("[", nested, "]");
      text = StrCat("#sdy<list_of_axis_ref_lists", nested, ">");
      break;
    }
    case kAllToAllParam: {
      std::string axes;
      int64_t src_dim, tgt_dim;
      BC_TRY(r.Members(&axes));
      BC_TRY(r.Int(&src_dim));
      BC_TRY(r.Int(&tgt_dim));
      nested = StrCat("{", axes, "}: ", src_dim, "->", tgt_dim);
      text = StrCat("#sdy<all_to_all_param", nested, ">");
      break;
    }
    case kAllToAllParamList: {
      BC_TRY(r.Members(&nested));
      nested = StrCat("[", nested, "]");
      text = StrCat("#sdy<all_to_all_param_list", nested, ">");
      break;
    }
    case kNumSdyCodes: break;
  }
  a->str = std::move(text);
  a->nested = std::move(nested);
  *out = std::move(a);
  return absl::OkStatus();
}

}  // namespace openpjrt::ir::bc
