// HloModuleProto -> StableHLO text (hlo_proto.h). Field numbers follow the published
// xla/service/hlo.proto and xla/xla_data.proto; only the fields a conversion needs are read and
// every other field is skipped by its wire type. Ops are written in the generic form, so each
// opcode's conversion is its op name, operands, attributes and result types.
#include "src/ir/hlo_proto.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "src/ir/bytecode.h"
#include "src/ir/proto_wire.h"
#include "src/ir/parser.h"
#include "src/support/str.h"

namespace openpjrt::ir {
namespace {

using proto_wire::Msg;

#define OPJ_TRY_ASSIGN(lhs, expr)            \
  auto lhs##_or = (expr);                    \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

// Field numbers.
namespace f {
// HloModuleProto
constexpr int kModuleEntryName = 2, kModuleComputations = 3, kModuleEntryId = 6;
// HloComputationProto
constexpr int kCompName = 1, kCompInstructions = 2, kCompId = 5, kCompRootId = 6;
// HloInstructionProto
constexpr int kName = 1, kOpcode = 2, kShape = 3, kLiteral = 8, kParameterNumber = 9, kTupleIndex = 13,
              kDimensions = 14, kWindow = 15, kConvDims = 16, kSliceDims = 17, kExponentBits = 18,
              kMantissaBits = 19, kDynamicSliceSizes = 20, kPaddingConfig = 21, kEpsilon = 24,
              kFeatureIndex = 25, kDotDims = 30, kFftType = 31, kFftLength = 32, kGatherDims = 33,
              kGatherSliceSizes = 34, kId = 35, kOperandIds = 36, kCalledIds = 38, kIsHostTransfer = 47,
              kScatterDims = 48, kFeatureGroups = 50, kBatchGroups = 58, kTriangularOptions = 59,
              kIsStable = 60, kCholeskyOptions = 62, kComparisonDirection = 63, kIndicesSorted = 67,
              kUniqueIndices = 69, kCustomCallTarget = 28, kDistribution = 23, kRngAlgorithm = 70, kComparisonType = 72, kK = 81, kLargest = 85,
              kChannelId = 26, kBackendConfig = 43, kReplicaGroups = 49, kSourceTargetPairs = 52,
              kHasSideEffect = 65, kUseGlobalDeviceIds = 71, kApiVersion = 77, kDeviceList = 87;
// CollectiveDeviceListProto and IotaReplicaGroupListProto
constexpr int kListGroups = 1, kListIota = 2, kIotaGroups = 1, kIotaPerGroup = 2, kIotaDims = 3, kIotaPerm = 4;
// ShapeProto
constexpr int kElementType = 2, kShapeDims = 3, kTupleShapes = 4;
}  // namespace f

// ---- Types ----------------------------------------------------------------------------------

// xla.PrimitiveType -> the MLIR element type; empty for TUPLE, TOKEN and unknown values.
std::string ElementName(int64_t t) {
  switch (t) {
    case 1: return "i1";
    case 2: return "i8";
    case 3: return "i16";
    case 4: return "i32";
    case 5: return "i64";
    case 6: return "ui8";
    case 7: return "ui16";
    case 8: return "ui32";
    case 9: return "ui64";
    case 10: return "f16";
    case 11: return "f32";
    case 12: return "f64";
    case 15: return "complex<f32>";
    case 16: return "bf16";
    case 18: return "complex<f64>";
    case 19: return "f8E5M2";
    case 20: return "f8E4M3FN";
    case 21: return "i4";
    case 22: return "ui4";
    case 23: return "f8E4M3B11FNUZ";
    case 24: return "f8E5M2FNUZ";
    case 25: return "f8E4M3FNUZ";
    case 26: return "i2";
    case 27: return "ui2";
    case 28: return "f8E4M3";
    case 29: return "f8E3M4";
    case 32: return "f4E2M1FN";
    case 33: return "f8E8M0FNU";
    default: return "";
  }
}

// The bytes per element of a literal's data field, and that field's number (0: none).
void LiteralField(int64_t t, int* field, size_t* width) {
  struct Row {
    int64_t type;
    int field;
    size_t width;
  };
  static const Row kRows[] = {{1, 2, 1},   {2, 15, 1},  {3, 17, 2},  {4, 4, 4},   {5, 5, 8},   {6, 3, 1},
                              {7, 16, 2},  {8, 6, 4},   {9, 7, 8},   {10, 11, 2}, {11, 8, 4},  {12, 9, 8},
                              {15, 12, 8}, {16, 13, 2}, {18, 18, 16}, {19, 19, 1}, {20, 20, 1}, {23, 23, 1},
                              {24, 24, 1}, {25, 25, 1}, {28, 28, 1},  {29, 29, 1}, {33, 33, 1},
                              // Sub-byte types: one element per byte.
                              {21, 21, 1}, {22, 22, 1}, {26, 26, 1}, {27, 27, 1}, {32, 32, 1}};
  *field = 0;
  *width = 0;
  for (const Row& r : kRows)
    if (r.type == t) *field = r.field, *width = r.width;
}

// One array (or token) value of the converted program.
struct Leaf {
  std::string name;  // SSA name, e.g. %v12 or %v12#1
  std::string type;  // MLIR type
};
using Value = std::vector<Leaf>;  // the leaves of an HLO value, in tuple order

std::string Join(const std::vector<std::string>& v, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? std::string(sep) : "") + v[i];
  return out;
}

// An MLIR string literal: quotes, backslashes and bytes outside printable ASCII escaped as \XX.
std::string Quote(std::string_view bytes) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
      out += '\\';
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

std::string IntList(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += StrCat(i ? ", " : "", v[i]);
  return out;
}
std::string Array64(const std::vector<int64_t>& v) { return v.empty() ? "array<i64>" : StrCat("array<i64: ", IntList(v), ">"); }

class Converter {
 public:
  explicit Converter(HloDevices devices) : devices_(devices) {}
  absl::StatusOr<std::string> Run(std::string_view bytes) {
    OPJ_TRY_ASSIGN(module, Msg::Parse(bytes, "HloModuleProto"));
    OPJ_TRY_ASSIGN(comps, module.Subs(f::kModuleComputations, "HloComputationProto"));
    if (comps.empty()) return absl::InvalidArgumentError("HloModuleProto: no computations");
    for (size_t i = 0; i < comps.size(); ++i) comp_by_id_[comps[i].Int(f::kCompId)] = i;
    comps_ = std::move(comps);
    // The entry: by id, else by name, else the last computation (callees come first).
    size_t entry = comps_.size() - 1;
    if (module.Has(f::kModuleEntryId) && comp_by_id_.count(module.Int(f::kModuleEntryId))) {
      entry = comp_by_id_[module.Int(f::kModuleEntryId)];
    } else if (!module.Bytes(f::kModuleEntryName).empty()) {
      for (size_t i = 0; i < comps_.size(); ++i)
        if (comps_[i].Bytes(f::kCompName) == module.Bytes(f::kModuleEntryName)) entry = i;
    }
    const Msg& comp = comps_[entry];
    // Entry parameters become the function's arguments, in parameter_number order.
    OPJ_TRY_ASSIGN(insts, comp.Subs(f::kCompInstructions, "HloInstructionProto"));
    std::map<int64_t, Value> params;
    std::vector<std::string> args;
    for (const Msg& in : insts) {
      if (in.Bytes(f::kOpcode) != "parameter") continue;
      OPJ_TRY_ASSIGN(shape, in.Sub(f::kShape, "ShapeProto"));
      OPJ_TRY_ASSIGN(leaves, Leaves(shape, in));
      // A tuple-shaped parameter takes one argument per leaf, in order (PJRT passes arrays).
      const int64_t n = in.Int(f::kParameterNumber);
      for (size_t i = 0; i < leaves.size(); ++i)
        leaves[i].name = leaves.size() == 1 ? StrCat("%arg", n) : StrCat("%arg", n, "_", i);
      if (params.count(n)) return Invalid(in, comp, StrCat("parameter_number ", n, " is used twice"));
      params[n] = leaves;
    }
    std::vector<Value> param_list;
    for (auto& [n, v] : params) {
      if (n != static_cast<int64_t>(param_list.size()))
        return absl::InvalidArgumentError(StrCat("HloModuleProto: entry computation '", comp.Bytes(f::kCompName),
                                                 "' has no parameter ", param_list.size()));
      for (const Leaf& l : v) args.push_back(StrCat(l.name, ": ", l.type));
      param_list.push_back(v);
    }
    std::string body;
    OPJ_TRY_ASSIGN(root, Inline(comp, param_list, &body, "  "));
    std::vector<std::string> names, types;
    for (const Leaf& l : root) names.push_back(l.name), types.push_back(l.type);
    std::string out = StrCat("func.func @main(", Join(args), ") -> (", Join(types), ") {\n", body);
    out += StrCat("  \"func.return\"(", Join(names), ") : (", Join(types), ") -> ()\n}\n");
    return out;
  }

 private:
  absl::Status Unimplemented(const Msg& in, const Msg& comp, std::string_view what) {
    return absl::UnimplementedError(StrCat("HloModuleProto: instruction '", in.Bytes(f::kName), "' (opcode '",
                                           in.Bytes(f::kOpcode), "') in computation '", comp.Bytes(f::kCompName),
                                           "': ", what, " is not supported"));
  }
  absl::Status Invalid(const Msg& in, const Msg& comp, std::string_view what) {
    return absl::InvalidArgumentError(StrCat("HloModuleProto: instruction '", in.Bytes(f::kName), "' (opcode '",
                                             in.Bytes(f::kOpcode), "') in computation '",
                                             comp.Bytes(f::kCompName), "': ", what));
  }

  // The leaf types of a shape (names left empty).
  absl::StatusOr<Value> Leaves(const Msg& shape, const Msg& in, int depth = 0) {
    const int64_t et = shape.Int(f::kElementType);
    Value out;
    if (et == 13) {  // TUPLE
      if (depth > 32)
        return absl::InvalidArgumentError(StrCat("HloModuleProto: instruction '", in.Bytes(f::kName),
                                                 "' has tuples nested more than 32 deep"));
      OPJ_TRY_ASSIGN(elems, shape.Subs(f::kTupleShapes, "ShapeProto"));
      for (const Msg& e : elems) {
        OPJ_TRY_ASSIGN(sub, Leaves(e, in, depth + 1));
        out.insert(out.end(), sub.begin(), sub.end());
      }
      return out;
    }
    if (et == 17) return Value{{"", "!stablehlo.token"}};
    const std::string elem = ElementName(et);
    if (elem.empty())
      return absl::InvalidArgumentError(StrCat("HloModuleProto: instruction '", in.Bytes(f::kName),
                                               "' has unsupported element type ", et));
    std::string t = "tensor<";
    int64_t elements = 1;
    for (int64_t d : shape.Ints(f::kShapeDims)) {
      // Each dimension and the element count stay far from overflow (2^40 elements is 4 TiB of
      // f32); the compiler's checks do the rest.
      if (d < 0 || d > (int64_t{1} << 40) || (d > 0 && elements > (int64_t{1} << 40) / d))
        return absl::InvalidArgumentError(StrCat("HloModuleProto: instruction '", in.Bytes(f::kName),
                                                 "' has a dimension ", d, " out of range"));
      elements *= d;
      t += StrCat(d, "x");
    }
    return Value{{"", t + elem + ">"}};
  }

  struct Groups {
    std::string text;        // the replica_groups attribute
    int64_t group_size = 0;  // members per group; 0 when no groups are given (all devices)
  };
  // A collective's process groups: collective_device_list (explicit groups or an iota list)
  // when present, else the older replica_groups field. Ragged groups are padded with -1.
  absl::StatusOr<Groups> ReplicaGroups(const Msg& in, const Msg& comp) {
    std::vector<std::vector<int64_t>> groups;
    std::vector<Msg> explicit_groups;
    if (in.Has(f::kDeviceList)) {
      OPJ_TRY_ASSIGN(list, in.Sub(f::kDeviceList, "CollectiveDeviceListProto"));
      if (list.Has(f::kListIota)) {
        OPJ_TRY_ASSIGN(iota, list.Sub(f::kListIota, "IotaReplicaGroupListProto"));
        OPJ_TRY_ASSIGN(g, IotaGroups(iota, in, comp));
        groups = std::move(g);
      } else {
        OPJ_TRY_ASSIGN(gs, list.Subs(f::kListGroups, "ReplicaGroup"));
        explicit_groups = std::move(gs);
      }
    } else {
      OPJ_TRY_ASSIGN(gs, in.Subs(f::kReplicaGroups, "ReplicaGroup"));
      explicit_groups = std::move(gs);
    }
    for (const Msg& g : explicit_groups) groups.push_back(g.Ints(1));
    Groups out;
    size_t width = 0;
    for (const auto& g : groups) width = std::max(width, g.size());
    if (groups.size() * width > (size_t{1} << 20)) return Invalid(in, comp, "has more than 2^20 replica group entries");
    std::vector<std::string> rows;
    for (const auto& g : groups) {
      if (g.size() != width) out.group_size = -1;
      std::vector<int64_t> row = g;
      for (int64_t id : row)
        if (id < 0) return Invalid(in, comp, StrCat("has a negative replica id ", id));
      row.resize(width, -1);
      rows.push_back("[" + IntList(row) + "]");
    }
    if (out.group_size == 0) out.group_size = static_cast<int64_t>(width);
    if (out.group_size < 0) out.group_size = 0;
    out.text = rows.empty() || width == 0 ? "dense<> : tensor<0x0xi64>"
                                          : StrCat("dense<[", Join(rows), "]> : tensor<", rows.size(), "x", width, "xi64>");
    return out;
  }

  // The groups of an iota list: iota(groups * per_group) reshaped to iota_reshape_dims,
  // transposed by iota_transpose_perm, read in order as `groups` rows of `per_group`.
  absl::StatusOr<std::vector<std::vector<int64_t>>> IotaGroups(const Msg& iota, const Msg& in, const Msg& comp) {
    const int64_t ng = iota.Int(f::kIotaGroups), per = iota.Int(f::kIotaPerGroup);
    if (ng < 0 || per < 0 || (per > 0 && ng > (int64_t{1} << 20) / per))
      return Invalid(in, comp, StrCat("has an iota replica group list of ", ng, " x ", per, " devices"));
    const int64_t total = ng * per;
    std::vector<int64_t> shape = iota.Ints(f::kIotaDims), perm = iota.Ints(f::kIotaPerm);
    if (shape.empty()) shape = {total};
    if (perm.empty())
      for (size_t i = 0; i < shape.size(); ++i) perm.push_back(static_cast<int64_t>(i));
    int64_t product = 1;
    for (int64_t d : shape) {
      if (d <= 0 || d > total) return Invalid(in, comp, "has an iota replica group list with a bad reshape dimension");
      product *= d;
    }
    std::vector<bool> seen(shape.size(), false);
    bool perm_ok = perm.size() == shape.size();
    for (int64_t p : perm) {
      perm_ok = perm_ok && p >= 0 && p < static_cast<int64_t>(shape.size()) && !seen[p];
      if (perm_ok) seen[p] = true;
    }
    if (product != total || !perm_ok)
      return Invalid(in, comp, "has an iota replica group list whose reshape dimensions or permutation do not fit");
    // Strides of the reshaped iota; walk the transposed shape in row-major order.
    const size_t r = shape.size();
    std::vector<int64_t> stride(r, 1), tdims(r), tstride(r), idx(r, 0);
    for (size_t i = r - 1; i > 0; --i) stride[i - 1] = stride[i] * shape[i];
    for (size_t i = 0; i < r; ++i) tdims[i] = shape[perm[i]], tstride[i] = stride[perm[i]];
    std::vector<std::vector<int64_t>> groups(static_cast<size_t>(ng));
    for (int64_t k = 0; k < total; ++k) {
      int64_t v = 0;
      for (size_t i = 0; i < r; ++i) v += idx[i] * tstride[i];
      groups[static_cast<size_t>(k / per)].push_back(v);
      for (size_t i = r; i-- > 0;) {
        if (++idx[i] < tdims[i]) break;
        idx[i] = 0;
      }
    }
    return groups;
  }

  std::string Fresh() { return StrCat("%v", next_++); }

  // Names the results of an op that produces `types`: %vN for one, %vN#i for several.
  Value Results(const std::string& base, const Value& types) {
    Value out = types;
    for (size_t i = 0; i < out.size(); ++i) out[i].name = types.size() == 1 ? base : StrCat(base, "#", i);
    return out;
  }

  // Writes `%r = "name"(operands) regions {attrs} : (operand types) -> (result types)`.
  Value Emit(std::string* out, const std::string& indent, const std::string& name, const Value& operands,
             const Value& result_types, const std::string& attrs, const std::string& regions = "") {
    const std::string base = Fresh();
    std::vector<std::string> on, ot, rt;
    for (const Leaf& l : operands) on.push_back(l.name), ot.push_back(l.type);
    for (const Leaf& l : result_types) rt.push_back(l.type);
    *out += indent;
    if (result_types.size() == 1) *out += base + " = ";
    else if (result_types.size() > 1) *out += StrCat(base, ":", result_types.size(), " = ");
    *out += StrCat("\"", name, "\"(", Join(on), ")");
    if (!regions.empty()) *out += " (" + regions + ")";
    if (!attrs.empty()) *out += " {" + attrs + "}";
    *out += StrCat(" : (", Join(ot), ") -> ", result_types.size() == 1 ? rt[0] : "(" + Join(rt) + ")", "\n");
    return Results(base, result_types);
  }

  // A region holding computation `id` with block arguments for each leaf of `arg_types`; when
  // `args` is false the region takes no arguments and the computation's parameters are `captured`.
  absl::StatusOr<std::string> Region(int64_t id, const std::vector<Value>& param_types, const std::string& indent,
                                     const std::vector<Value>* captured = nullptr) {
    auto it = comp_by_id_.find(id);
    if (it == comp_by_id_.end())
      return absl::InvalidArgumentError(StrCat("HloModuleProto: no computation with id ", id));
    const Msg& comp = comps_[it->second];
    std::vector<Value> params;
    std::string head;
    if (captured) {
      params = *captured;
      head = "{\n";
    } else {
      std::vector<std::string> decl;
      for (const Value& v : param_types) {
        Value named = v;
        for (Leaf& l : named) {
          l.name = Fresh();
          decl.push_back(l.name + ": " + l.type);
        }
        params.push_back(named);
      }
      head = StrCat("{\n", indent, "^bb0(", Join(decl), "):\n");
    }
    std::string body;
    OPJ_TRY_ASSIGN(root, Inline(comp, params, &body, indent + "  "));
    std::vector<std::string> names, types;
    for (const Leaf& l : root) names.push_back(l.name), types.push_back(l.type);
    return StrCat(head, body, indent, "  \"stablehlo.return\"(", Join(names), ") : (", Join(types), ") -> ()\n",
                  indent, "}");
  }

  // Scalar types of a value's leaves (reduction regions take scalars of the operands' types).
  static Value Scalars(const Value& v) {
    Value out;
    for (const Leaf& l : v) {
      if (l.type.rfind("tensor<", 0) != 0) {
        out.push_back({"", l.type});
        continue;
      }
      const size_t lt = l.type.find('<'), last = l.type.rfind('x');
      std::string elem = l.type.substr(lt + 1, l.type.size() - lt - 2);
      if (last != std::string::npos && last > lt && l.type.find("complex") == std::string::npos)
        elem = l.type.substr(last + 1, l.type.size() - last - 2);
      else if (l.type.find("complex") != std::string::npos) {
        const size_t c = l.type.find("complex");
        elem = l.type.substr(c, l.type.size() - c - 1);
      }
      out.push_back({"", "tensor<" + elem + ">"});
    }
    return out;
  }

  // Emits the instructions of `comp` with its parameters bound to `params`; returns its root.
  absl::StatusOr<Value> Inline(const Msg& comp, const std::vector<Value>& params, std::string* out,
                               const std::string& indent) {
    if (++depth_ > 64) return absl::InvalidArgumentError("HloModuleProto: computations nested more than 64 deep");
    OPJ_TRY_ASSIGN(insts, comp.Subs(f::kCompInstructions, "HloInstructionProto"));
    std::unordered_map<int64_t, Value> values;
    std::unordered_map<int64_t, std::vector<size_t>> counts;
    int64_t last = 0;
    for (const Msg& in : insts) {
      std::vector<Value> ops;
      std::vector<std::vector<size_t>> op_counts;
      for (int64_t id : in.Ints(f::kOperandIds)) {
        auto it = values.find(id);
        if (it == values.end()) return Invalid(in, comp, StrCat("operand id ", id, " is not defined before it"));
        ops.push_back(it->second);
        op_counts.push_back(counts[id]);
      }
      OPJ_TRY_ASSIGN(v, Convert(in, comp, ops, op_counts, params, out, indent));
      OPJ_TRY_ASSIGN(shape, in.Sub(f::kShape, "ShapeProto"));
      OPJ_TRY_ASSIGN(c, ElementLeafCounts(shape, in));
      last = in.Int(f::kId);
      if (values.count(last)) return Invalid(in, comp, StrCat("its id ", last, " is used twice"));
      values[last] = std::move(v);
      counts[last] = std::move(c);
    }
    --depth_;
    const int64_t root = comp.Has(f::kCompRootId) ? comp.Int(f::kCompRootId) : last;
    auto it = values.find(root);
    if (it == values.end())
      return absl::InvalidArgumentError(StrCat("HloModuleProto: computation '", comp.Bytes(f::kCompName),
                                               "' has no instruction with its root id ", root));
    return it->second;
  }

  absl::StatusOr<Value> Convert(const Msg& in, const Msg& comp, const std::vector<Value>& ops,
                                const std::vector<std::vector<size_t>>& op_counts, const std::vector<Value>& params,
                                std::string* out, const std::string& indent);

  // For a tuple shape, the number of leaves of each element; empty for an array.
  absl::StatusOr<std::vector<size_t>> ElementLeafCounts(const Msg& shape, const Msg& in) {
    std::vector<size_t> out;
    if (shape.Int(f::kElementType) != 13) return out;
    OPJ_TRY_ASSIGN(elems, shape.Subs(f::kTupleShapes, "ShapeProto"));
    for (const Msg& e : elems) {
      OPJ_TRY_ASSIGN(sub, Leaves(e, in));
      out.push_back(sub.size());
    }
    return out;
  }

  HloDevices devices_;
  std::vector<Msg> comps_;
  std::unordered_map<int64_t, size_t> comp_by_id_;
  int next_ = 0;
  int depth_ = 0;
};

// Elementwise opcodes and their StableHLO (or CHLO) ops.
const std::unordered_map<std::string_view, std::string_view>& ElementwiseOps() {
  static const auto* m = new std::unordered_map<std::string_view, std::string_view>{
      {"abs", "stablehlo.abs"},
      {"negate", "stablehlo.negate"},
      {"exponential", "stablehlo.exponential"},
      {"exponential-minus-one", "stablehlo.exponential_minus_one"},
      {"log", "stablehlo.log"},
      {"log-plus-one", "stablehlo.log_plus_one"},
      {"sqrt", "stablehlo.sqrt"},
      {"rsqrt", "stablehlo.rsqrt"},
      {"cbrt", "stablehlo.cbrt"},
      {"tanh", "stablehlo.tanh"},
      {"logistic", "stablehlo.logistic"},
      {"sine", "stablehlo.sine"},
      {"cosine", "stablehlo.cosine"},
      {"tan", "stablehlo.tan"},
      {"floor", "stablehlo.floor"},
      {"ceil", "stablehlo.ceil"},
      {"round-nearest-afz", "stablehlo.round_nearest_afz"},
      {"round-nearest-even", "stablehlo.round_nearest_even"},
      {"sign", "stablehlo.sign"},
      {"is-finite", "stablehlo.is_finite"},
      {"not", "stablehlo.not"},
      {"popcnt", "stablehlo.popcnt"},
      {"count-leading-zeros", "stablehlo.count_leading_zeros"},
      {"real", "stablehlo.real"},
      {"imag", "stablehlo.imag"},
      {"erf", "chlo.erf"},
      {"convert", "stablehlo.convert"},
      {"bitcast-convert", "stablehlo.bitcast_convert"},
      {"add", "stablehlo.add"},
      {"subtract", "stablehlo.subtract"},
      {"multiply", "stablehlo.multiply"},
      {"divide", "stablehlo.divide"},
      {"remainder", "stablehlo.remainder"},
      {"maximum", "stablehlo.maximum"},
      {"minimum", "stablehlo.minimum"},
      {"power", "stablehlo.power"},
      {"atan2", "stablehlo.atan2"},
      {"and", "stablehlo.and"},
      {"or", "stablehlo.or"},
      {"xor", "stablehlo.xor"},
      {"shift-left", "stablehlo.shift_left"},
      {"shift-right-arithmetic", "stablehlo.shift_right_arithmetic"},
      {"shift-right-logical", "stablehlo.shift_right_logical"},
      {"complex", "stablehlo.complex"},
      {"select", "stablehlo.select"},
      {"clamp", "stablehlo.clamp"},
      {"reshape", "stablehlo.reshape"},
      {"cholesky", "stablehlo.cholesky"},
      {"dynamic-update-slice", "stablehlo.dynamic_update_slice"},
      {"after-all", "stablehlo.after_all"},
      {"replica-id", "stablehlo.replica_id"},
      {"partition-id", "stablehlo.partition_id"},
  };
  return *m;
}

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out = "0x";
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

int64_t Rank(const std::string& type) {
  int64_t r = 0;
  for (size_t pos = type.find('<') + 1; pos < type.size() && type[pos] >= '0' && type[pos] <= '9';
       pos = type.find('x', pos) + 1)
    ++r;
  return r;
}

absl::StatusOr<Value> Converter::Convert(const Msg& in, const Msg& comp, const std::vector<Value>& ops,
                                         const std::vector<std::vector<size_t>>& op_counts,
                                         const std::vector<Value>& params, std::string* out,
                                         const std::string& indent) {
  const std::string_view opcode = in.Bytes(f::kOpcode);
  OPJ_TRY_ASSIGN(shape, in.Sub(f::kShape, "ShapeProto"));
  OPJ_TRY_ASSIGN(result, Leaves(shape, in));
  Value flat;  // every operand leaf in order
  for (const Value& v : ops) flat.insert(flat.end(), v.begin(), v.end());
  auto need = [&](size_t n) -> absl::Status {
    if (ops.size() != n) return Invalid(in, comp, StrCat("has ", ops.size(), " operands, expected ", n));
    for (const Value& v : ops)
      if (v.size() != 1) return Unimplemented(in, comp, "a tuple-shaped operand");
    return absl::OkStatus();
  };
  auto called = [&](size_t i) -> absl::StatusOr<int64_t> {
    const std::vector<int64_t> ids = in.Ints(f::kCalledIds);
    if (ids.size() <= i) return Invalid(in, comp, StrCat("names ", ids.size(), " computations, expected more"));
    return ids[i];
  };
  const std::vector<int64_t> dims = in.Ints(f::kDimensions);
  static const auto* kTupleResults = new std::unordered_map<std::string_view, bool>{
      {"parameter", true}, {"tuple", true},   {"get-tuple-element", true}, {"copy", true},
      {"optimization-barrier", true},           {"add-dependency", true},    {"call", true},
      {"while", true},      {"conditional", true}, {"sort", true},           {"reduce", true},
      {"reduce-window", true}, {"scatter", true}, {"rng-bit-generator", true}, {"batch-norm-training", true},
      {"batch-norm-grad", true}, {"top-k", true},
      {"custom-call", true}, {"all-reduce", true}, {"all-gather", true}, {"all-to-all", true}};
  static const auto* kArrayResults = new std::unordered_map<std::string_view, bool>{
      {"constant", true},  {"bitcast", true},      {"compare", true},    {"broadcast", true},
      {"transpose", true}, {"reverse", true},      {"iota", true},       {"concatenate", true},
      {"slice", true},     {"dynamic-slice", true}, {"pad", true},       {"get-dimension-size", true},
      {"dot", true},       {"convolution", true},  {"map", true},        {"select-and-scatter", true},
      {"gather", true},    {"rng", true},          {"fft", true},        {"triangular-solve", true},
      {"reduce-precision", true}, {"batch-norm-inference", true}, {"reduce-scatter", true},
      {"collective-permute", true}, {"collective-broadcast", true}};
  if (!kTupleResults->count(opcode) && !kArrayResults->count(opcode) && !ElementwiseOps().count(opcode))
    return Unimplemented(in, comp, StrCat("opcode '", opcode, "'"));
  if (result.size() != 1 && !kTupleResults->count(opcode))
    return Invalid(in, comp, StrCat("has ", result.size(), " results, expected one array"));
  if (out->size() > (size_t{1} << 28))
    return absl::InvalidArgumentError("HloModuleProto: the converted program exceeds 256 MiB of text");

  if (opcode == "parameter") {
    const int64_t n = in.Int(f::kParameterNumber);
    if (n < 0 || n >= static_cast<int64_t>(params.size()))
      return Invalid(in, comp, StrCat("parameter_number ", n, " with ", params.size(), " parameters"));
    if (params[n].size() != result.size()) return Invalid(in, comp, "its shape does not match the argument");
    return params[n];
  }
  if (opcode == "tuple") return flat;
  if (opcode == "get-tuple-element") {
    if (ops.size() != 1) return Invalid(in, comp, "needs one operand");
    const std::vector<size_t>& counts = op_counts[0];
    const int64_t i = in.Int(f::kTupleIndex);
    if (i < 0 || i >= static_cast<int64_t>(counts.size()))
      return Invalid(in, comp, StrCat("tuple_index ", i, " of a tuple of ", counts.size()));
    size_t start = 0;
    for (int64_t k = 0; k < i; ++k) start += counts[k];
    if (start + counts[i] > ops[0].size() || counts[i] != result.size())
      return Invalid(in, comp, "its shape does not match the tuple element");
    return Value(ops[0].begin() + static_cast<std::ptrdiff_t>(start),
                 ops[0].begin() + static_cast<std::ptrdiff_t>(start + counts[i]));
  }
  if (opcode == "copy" || opcode == "optimization-barrier" || opcode == "add-dependency") {
    if (ops.empty()) return Invalid(in, comp, "needs an operand");
    return ops[0];
  }
  if (opcode == "constant") {
    OPJ_TRY_ASSIGN(lit, in.Sub(f::kLiteral, "LiteralProto"));
    if (result.size() != 1) return Unimplemented(in, comp, "a tuple constant");
    int field;
    size_t width;
    LiteralField(shape.Int(f::kElementType), &field, &width);
    if (field == 0) return Unimplemented(in, comp, StrCat("a constant of type ", result[0].type));
    std::string data;
    int64_t n = 1;
    for (int64_t d : shape.Ints(f::kShapeDims)) n *= d;  // bounded by Leaves
    if (field == 2) {  // preds: varints, one byte each
      for (int64_t b : lit.Ints(2)) data.push_back(b ? 1 : 0);
    } else if (field == 4 || field == 5 || field == 6 || field == 7) {  // varint integers
      for (int64_t v : lit.Ints(field)) data.append(reinterpret_cast<const char*>(&v), width);
    } else if (field == 8 || field == 12) {
      data = lit.Fixed(field, 4);
    } else if (field == 9 || field == 18) {
      data = lit.Fixed(field, 8);
    } else {
      data = std::string(lit.Bytes(field));
    }
    if (static_cast<int64_t>(data.size()) != n * static_cast<int64_t>(width))
      return Invalid(in, comp, StrCat("its literal holds ", data.size(), " bytes for ", n, " elements of ",
                                      result[0].type));
    return Emit(out, indent, "stablehlo.constant", {}, result,
                StrCat("value = dense<\"", Hex(data), "\"> : ", result[0].type));
  }
  auto eltwise = ElementwiseOps().find(opcode);
  if (eltwise != ElementwiseOps().end()) {
    for (const Value& v : ops)
      if (v.size() != 1) return Unimplemented(in, comp, "a tuple-shaped operand");
    if (result.size() != 1) return Invalid(in, comp, "has a tuple shape");
    std::string attrs;
    if (opcode == "cholesky") {
      OPJ_TRY_ASSIGN(options, in.Sub(f::kCholeskyOptions, "CholeskyOptions"));
      attrs = StrCat("lower = ", options.Int(1) != 0);
    }
    return Emit(out, indent, std::string(eltwise->second), flat, result, attrs);
  }
  if (opcode == "bitcast") {
    if (auto s = need(1); !s.ok()) return s;
    if (result.size() != 1 || Scalars(flat)[0].type != Scalars(result)[0].type)
      return Unimplemented(in, comp, "a bitcast that changes the element type");
    return Emit(out, indent, "stablehlo.reshape", flat, result, "");
  }
  if (opcode == "compare") {
    if (auto s = need(2); !s.ok()) return s;
    std::string attrs = StrCat("comparison_direction = #stablehlo<comparison_direction ",
                               in.Bytes(f::kComparisonDirection), ">");
    const std::string_view type = in.Bytes(f::kComparisonType);
    if (!type.empty()) attrs += StrCat(", compare_type = #stablehlo<comparison_type ", type, ">");
    return Emit(out, indent, "stablehlo.compare", flat, result, attrs);
  }
  if (opcode == "broadcast") {
    if (auto s = need(1); !s.ok()) return s;
    return Emit(out, indent, "stablehlo.broadcast_in_dim", flat, result,
                StrCat("broadcast_dimensions = ", Array64(dims)));
  }
  if (opcode == "transpose") {
    if (auto s = need(1); !s.ok()) return s;
    return Emit(out, indent, "stablehlo.transpose", flat, result, StrCat("permutation = ", Array64(dims)));
  }
  if (opcode == "reverse") {
    if (auto s = need(1); !s.ok()) return s;
    return Emit(out, indent, "stablehlo.reverse", flat, result, StrCat("dimensions = ", Array64(dims)));
  }
  if (opcode == "iota") {
    return Emit(out, indent, "stablehlo.iota", {}, result,
                StrCat("iota_dimension = ", dims.empty() ? 0 : dims[0], " : i64"));
  }
  if (opcode == "concatenate") {
    return Emit(out, indent, "stablehlo.concatenate", flat, result,
                StrCat("dimension = ", dims.empty() ? 0 : dims[0], " : i64"));
  }
  if (opcode == "get-dimension-size") {
    if (auto s = need(1); !s.ok()) return s;
    return Emit(out, indent, "stablehlo.get_dimension_size", flat, result,
                StrCat("dimension = ", dims.empty() ? 0 : dims[0], " : i64"));
  }
  if (opcode == "slice") {
    if (auto s = need(1); !s.ok()) return s;
    OPJ_TRY_ASSIGN(sd, in.Subs(f::kSliceDims, "SliceDimensions"));
    std::vector<int64_t> start, limit, stride;
    for (const Msg& d : sd) {
      start.push_back(d.Int(1));
      limit.push_back(d.Int(2));
      stride.push_back(d.Has(3) ? d.Int(3) : 1);
    }
    return Emit(out, indent, "stablehlo.slice", flat, result,
                StrCat("start_indices = ", Array64(start), ", limit_indices = ", Array64(limit),
                       ", strides = ", Array64(stride)));
  }
  if (opcode == "dynamic-slice") {
    return Emit(out, indent, "stablehlo.dynamic_slice", flat, result,
                StrCat("slice_sizes = ", Array64(in.Ints(f::kDynamicSliceSizes))));
  }
  if (opcode == "pad") {
    if (auto s = need(2); !s.ok()) return s;
    OPJ_TRY_ASSIGN(pc, in.Sub(f::kPaddingConfig, "PaddingConfig"));
    OPJ_TRY_ASSIGN(pds, pc.Subs(1, "PaddingConfigDimension"));
    std::vector<int64_t> lo, hi, interior;
    for (const Msg& d : pds) lo.push_back(d.Int(1)), hi.push_back(d.Int(2)), interior.push_back(d.Int(3));
    return Emit(out, indent, "stablehlo.pad", flat, result,
                StrCat("edge_padding_low = ", Array64(lo), ", edge_padding_high = ", Array64(hi),
                       ", interior_padding = ", Array64(interior)));
  }
  if (opcode == "reduce-precision") {
    if (auto s = need(1); !s.ok()) return s;
    return Emit(out, indent, "stablehlo.reduce_precision", flat, result,
                StrCat("exponent_bits = ", in.Int(f::kExponentBits), " : i32, mantissa_bits = ",
                       in.Int(f::kMantissaBits), " : i32"));
  }
  if (opcode == "dot") {
    if (auto s = need(2); !s.ok()) return s;
    OPJ_TRY_ASSIGN(dd, in.Sub(f::kDotDims, "DotDimensionNumbers"));
    return Emit(out, indent, "stablehlo.dot_general", flat, result,
                StrCat("dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [", IntList(dd.Ints(3)),
                       "], rhs_batching_dimensions = [", IntList(dd.Ints(4)), "], lhs_contracting_dimensions = [",
                       IntList(dd.Ints(1)), "], rhs_contracting_dimensions = [", IntList(dd.Ints(2)), "]>"));
  }
  // Window fields shared by convolution, reduce-window and select-and-scatter.
  struct WindowDims {
    std::vector<int64_t> size, stride, lo, hi, window_dilation, base_dilation;
    std::vector<bool> reversal;
    std::string Padding() const {
      std::string p = "dense<";
      if (lo.empty()) return "dense<> : tensor<0x2xi64>";
      p += "[";
      for (size_t i = 0; i < lo.size(); ++i) p += StrCat(i ? ", " : "", "[", lo[i], ", ", hi[i], "]");
      return StrCat(p, "]> : tensor<", lo.size(), "x2xi64>");
    }
  };
  auto window = [&]() -> absl::StatusOr<WindowDims> {
    WindowDims w;
    OPJ_TRY_ASSIGN(win, in.Sub(f::kWindow, "Window"));
    OPJ_TRY_ASSIGN(wds, win.Subs(1, "WindowDimension"));
    for (const Msg& d : wds) {
      w.size.push_back(d.Int(1));
      w.stride.push_back(d.Has(2) ? d.Int(2) : 1);
      w.lo.push_back(d.Int(3));
      w.hi.push_back(d.Int(4));
      w.window_dilation.push_back(d.Has(5) ? d.Int(5) : 1);
      w.base_dilation.push_back(d.Has(6) ? d.Int(6) : 1);
      w.reversal.push_back(d.Int(7) != 0);
    }
    return w;
  };
  if (opcode == "convolution") {
    if (auto s = need(2); !s.ok()) return s;
    OPJ_TRY_ASSIGN(w, window());
    OPJ_TRY_ASSIGN(cd, in.Sub(f::kConvDims, "ConvolutionDimensionNumbers"));
    auto labels = [&](int64_t rank, int64_t a_dim, const char* a, int64_t b_dim, const char* b,
                      const std::vector<int64_t>& spatial) -> absl::StatusOr<std::string> {
      std::vector<std::string> l(static_cast<size_t>(rank));
      auto put = [&](int64_t d, std::string s) {
        if (d < 0 || d >= rank || !l[d].empty()) return false;
        l[d] = std::move(s);
        return true;
      };
      bool ok = put(a_dim, a) && put(b_dim, b);
      for (size_t i = 0; i < spatial.size(); ++i) ok = ok && put(spatial[i], StrCat(i));
      if (!ok || static_cast<int64_t>(spatial.size()) + 2 != rank)
        return Invalid(in, comp, "its convolution dimension numbers do not name each dimension once");
      return "[" + Join(l) + "]";
    };
    OPJ_TRY_ASSIGN(li, labels(Rank(flat[0].type), cd.Int(7), "b", cd.Int(8), "f", cd.Ints(11)));
    OPJ_TRY_ASSIGN(lk, labels(Rank(flat[1].type), cd.Int(3), "i", cd.Int(4), "o", cd.Ints(6)));
    OPJ_TRY_ASSIGN(lo, labels(Rank(result[0].type), cd.Int(9), "b", cd.Int(10), "f", cd.Ints(12)));
    std::string rev;
    for (size_t i = 0; i < w.reversal.size(); ++i) rev += StrCat(i ? ", " : "", w.reversal[i]);
    return Emit(out, indent, "stablehlo.convolution", flat, result,
                StrCat("dimension_numbers = #stablehlo.conv<", li, "x", lk, "->", lo, ">, window_strides = ",
                       Array64(w.stride), ", padding = ", w.Padding(), ", lhs_dilation = ", Array64(w.base_dilation),
                       ", rhs_dilation = ", Array64(w.window_dilation), ", window_reversal = array<i1",
                       rev.empty() ? "" : ": " + rev, ">, feature_group_count = ",
                       in.Has(f::kFeatureGroups) ? in.Int(f::kFeatureGroups) : 1, " : i64, batch_group_count = ",
                       in.Has(f::kBatchGroups) ? in.Int(f::kBatchGroups) : 1, " : i64"));
  }
  if (opcode == "reduce" || opcode == "reduce-window") {
    const size_t n = flat.size() / 2;
    if (flat.size() != 2 * n || n == 0) return Invalid(in, comp, "needs as many init values as inputs");
    Value inputs(flat.begin(), flat.begin() + n), inits(flat.begin() + n, flat.end());
    std::vector<Value> region_params;
    for (int k = 0; k < 2; ++k)
      for (const Leaf& l : inits) region_params.push_back(Value{{"", l.type}});
    OPJ_TRY_ASSIGN(id, called(0));
    OPJ_TRY_ASSIGN(region, Region(id, region_params, indent));
    if (opcode == "reduce")
      return Emit(out, indent, "stablehlo.reduce", flat, result, StrCat("dimensions = ", Array64(dims)), region);
    OPJ_TRY_ASSIGN(w, window());
    return Emit(out, indent, "stablehlo.reduce_window", flat, result,
                StrCat("window_dimensions = ", Array64(w.size), ", window_strides = ", Array64(w.stride),
                       ", base_dilations = ", Array64(w.base_dilation), ", window_dilations = ",
                       Array64(w.window_dilation), ", padding = ", w.Padding()),
                region);
  }
  if (opcode == "select-and-scatter") {
    if (auto s = need(3); !s.ok()) return s;
    const Value scalar = Scalars({flat[0]});
    OPJ_TRY_ASSIGN(select_id, called(0));
    OPJ_TRY_ASSIGN(scatter_id, called(1));
    OPJ_TRY_ASSIGN(sel, Region(select_id, {scalar, scalar}, indent));
    const Value init_t{{"", flat[2].type}};
    OPJ_TRY_ASSIGN(sca, Region(scatter_id, {init_t, init_t}, indent));
    OPJ_TRY_ASSIGN(w, window());
    return Emit(out, indent, "stablehlo.select_and_scatter", flat, result,
                StrCat("window_dimensions = ", Array64(w.size), ", window_strides = ", Array64(w.stride),
                       ", padding = ", w.Padding()),
                sel + ", " + sca);
  }
  if (opcode == "map") {
    std::vector<Value> region_params;
    for (const Value& s : {Scalars(flat)})
      for (const Leaf& l : s) region_params.push_back(Value{l});
    OPJ_TRY_ASSIGN(id, called(0));
    OPJ_TRY_ASSIGN(region, Region(id, region_params, indent));
    std::vector<int64_t> all;
    for (int64_t i = 0; i < Rank(result[0].type); ++i) all.push_back(i);
    return Emit(out, indent, "stablehlo.map", flat, result,
                StrCat("dimensions = ", Array64(dims.empty() ? all : dims)), region);
  }
  if (opcode == "sort") {
    std::vector<Value> region_params;
    for (const Leaf& l : Scalars(flat)) {
      region_params.push_back(Value{l});
      region_params.push_back(Value{l});
    }
    OPJ_TRY_ASSIGN(id, called(0));
    OPJ_TRY_ASSIGN(region, Region(id, region_params, indent));
    return Emit(out, indent, "stablehlo.sort", flat, result,
                StrCat("dimension = ", dims.empty() ? 0 : dims[0], " : i64, is_stable = ", in.Int(f::kIsStable) != 0),
                region);
  }
  if (opcode == "gather") {
    if (auto s = need(2); !s.ok()) return s;
    OPJ_TRY_ASSIGN(g, in.Sub(f::kGatherDims, "GatherDimensionNumbers"));
    return Emit(out, indent, "stablehlo.gather", flat, result,
                StrCat("dimension_numbers = #stablehlo.gather<offset_dims = [", IntList(g.Ints(1)),
                       "], collapsed_slice_dims = [", IntList(g.Ints(2)), "], operand_batching_dims = [",
                       IntList(g.Ints(5)), "], start_indices_batching_dims = [", IntList(g.Ints(6)),
                       "], start_index_map = [", IntList(g.Ints(3)), "], index_vector_dim = ", g.Int(4),
                       ">, slice_sizes = ", Array64(in.Ints(f::kGatherSliceSizes)),
                       ", indices_are_sorted = ", in.Int(f::kIndicesSorted) != 0));
  }
  if (opcode == "scatter") {
    const size_t n = (flat.size() - 1) / 2;
    if (flat.size() != 2 * n + 1 || n == 0) return Invalid(in, comp, "needs operands, indices and as many updates");
    OPJ_TRY_ASSIGN(sd, in.Sub(f::kScatterDims, "ScatterDimensionNumbers"));
    std::vector<Value> region_params;
    const Value scal = Scalars(Value(flat.begin(), flat.begin() + n));
    for (int k = 0; k < 2; ++k)
      for (const Leaf& l : scal) region_params.push_back(Value{l});
    OPJ_TRY_ASSIGN(id, called(0));
    OPJ_TRY_ASSIGN(region, Region(id, region_params, indent));
    return Emit(out, indent, "stablehlo.scatter", flat, result,
                StrCat("scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [", IntList(sd.Ints(1)),
                       "], inserted_window_dims = [", IntList(sd.Ints(2)), "], input_batching_dims = [",
                       IntList(sd.Ints(5)), "], scatter_indices_batching_dims = [", IntList(sd.Ints(6)),
                       "], scatter_dims_to_operand_dims = [", IntList(sd.Ints(3)), "], index_vector_dim = ",
                       sd.Int(4), ">, indices_are_sorted = ", in.Int(f::kIndicesSorted) != 0,
                       ", unique_indices = ", in.Int(f::kUniqueIndices) != 0),
                region);
  }
  if (opcode == "call") {
    OPJ_TRY_ASSIGN(id, called(0));
    auto it = comp_by_id_.find(id);
    if (it == comp_by_id_.end()) return Invalid(in, comp, StrCat("calls computation id ", id, ", which is missing"));
    return Inline(comps_[it->second], ops, out, indent);
  }
  if (opcode == "while") {
    if (ops.size() != 1) return Invalid(in, comp, "needs one operand");
    // XLA lists a while's computations body first, then the condition.
    OPJ_TRY_ASSIGN(body_id, called(0));
    OPJ_TRY_ASSIGN(cond_id, called(1));
    OPJ_TRY_ASSIGN(cond, Region(cond_id, {ops[0]}, indent));
    OPJ_TRY_ASSIGN(body, Region(body_id, {ops[0]}, indent));
    return Emit(out, indent, "stablehlo.while", flat, result, "", cond + ", " + body);
  }
  if (opcode == "conditional") {
    if (ops.empty() || ops[0].size() != 1) return Invalid(in, comp, "needs a predicate or branch index");
    const std::vector<int64_t> branches = in.Ints(f::kCalledIds);
    if (branches.size() + 1 != ops.size())
      return Invalid(in, comp, StrCat("has ", branches.size(), " branches for ", ops.size() - 1, " branch operands"));
    std::string regions;
    for (size_t b = 0; b < branches.size(); ++b) {
      const std::vector<Value> captured{ops[b + 1]};
      OPJ_TRY_ASSIGN(region, Region(branches[b], {}, indent, &captured));
      regions += (b ? ", " : "") + region;
    }
    const bool pred = ops[0][0].type == "tensor<i1>";
    return Emit(out, indent, pred ? "stablehlo.if" : "stablehlo.case", {ops[0][0]}, result, "", regions);
  }
  if (opcode == "rng-bit-generator") {
    if (auto s = need(1); !s.ok()) return s;
    static const char* kAlgorithms[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
    const int64_t a = in.Int(f::kRngAlgorithm);
    if (a < 0 || a > 2) return Invalid(in, comp, StrCat("rng_algorithm ", a));
    return Emit(out, indent, "stablehlo.rng_bit_generator", flat, result,
                StrCat("rng_algorithm = #stablehlo<rng_algorithm ", kAlgorithms[a], ">"));
  }
  if (opcode == "rng") {  // XlaBuilder's RngUniform / RngNormal: (a, b) and the result's shape
    if (auto s = need(2); !s.ok()) return s;
    const int64_t dist = in.Int(f::kDistribution);
    if (dist != 1 && dist != 2) return Invalid(in, comp, StrCat("distribution ", dist));
    std::string dims_bytes;
    const std::vector<int64_t> rdims = shape.Ints(f::kShapeDims);
    for (int64_t d : rdims) dims_bytes.append(reinterpret_cast<const char*>(&d), 8);
    const std::string st = StrCat("tensor<", rdims.size(), "xi64>");
    Value operands = flat;
    const Value sc = Emit(out, indent, "stablehlo.constant", {}, {{"", st}},
                          StrCat("value = dense<\"", Hex(dims_bytes), "\"> : ", st));
    operands.push_back(sc[0]);
    return Emit(out, indent, "stablehlo.rng", operands, result,
                StrCat("rng_distribution = #stablehlo<rng_distribution ", dist == 1 ? "UNIFORM" : "NORMAL", ">"));
  }
  if (opcode == "fft") {
    if (auto s = need(1); !s.ok()) return s;
    static const char* kTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
    const int64_t t = in.Int(f::kFftType);
    if (t < 0 || t > 3) return Invalid(in, comp, StrCat("fft_type ", t));
    return Emit(out, indent, "stablehlo.fft", flat, result,
                StrCat("fft_type = #stablehlo<fft_type ", kTypes[t], ">, fft_length = ", Array64(in.Ints(f::kFftLength))));
  }
  if (opcode == "triangular-solve") {
    if (auto s = need(2); !s.ok()) return s;
    OPJ_TRY_ASSIGN(o, in.Sub(f::kTriangularOptions, "TriangularSolveOptions"));
    static const char* kTranspose[] = {"NO_TRANSPOSE", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    const int64_t t = o.Int(4);
    if (t < 0 || t > 3) return Invalid(in, comp, StrCat("transpose_a ", t));
    return Emit(out, indent, "stablehlo.triangular_solve", flat, result,
                StrCat("left_side = ", o.Int(1) != 0, ", lower = ", o.Int(2) != 0, ", unit_diagonal = ", o.Int(3) != 0,
                       ", transpose_a = #stablehlo<transpose ", kTranspose[t], ">"));
  }
  if (opcode == "batch-norm-training" || opcode == "batch-norm-inference" || opcode == "batch-norm-grad") {
    std::string name(opcode);
    for (char& c : name)
      if (c == '-') c = '_';
    // epsilon is a float (fixed32) field.
    uint32_t bits = 0;
    const std::string raw = in.Fixed(f::kEpsilon, 4);
    if (raw.size() >= 4) std::memcpy(&bits, raw.data() + raw.size() - 4, 4);
    float eps;
    std::memcpy(&eps, &bits, 4);
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.9e", static_cast<double>(eps));
    return Emit(out, indent, "stablehlo." + name, flat, result,
                StrCat("epsilon = ", buf, " : f32, feature_index = ", in.Int(f::kFeatureIndex), " : i64"));
  }
  if (opcode == "top-k") {
    if (auto s = need(1); !s.ok()) return s;
    if (in.Has(f::kLargest) && in.Int(f::kLargest) == 0) return Unimplemented(in, comp, "top-k with largest = false");
    return Emit(out, indent, "chlo.top_k", flat, result, StrCat("k = ", in.Int(f::kK), " : i64"));
  }
  if (opcode == "custom-call") {
    // The target is resolved when the program is compiled (check.*, LAPACK, annotations, FFI
    // handlers); an FFI call (api_version 4) carries its attributes as a dictionary.
    const int64_t api = in.Has(f::kApiVersion) ? in.Int(f::kApiVersion) : 1;
    if (api < 0 || api > 4) return Invalid(in, comp, StrCat("custom_call_api_version ", api));
    const std::string_view config = in.Bytes(f::kBackendConfig);
    std::string attrs = StrCat("call_target_name = ", Quote(in.Bytes(f::kCustomCallTarget)),
                               ", has_side_effect = ", in.Int(f::kHasSideEffect) != 0, ", api_version = ", api, " : i32");
    if (api == 4 && !config.empty() && config.front() == '{' && config.back() == '}')
      attrs += StrCat(", backend_config = ", config);
    else if (!config.empty())
      attrs += StrCat(", backend_config = ", Quote(config));
    return Emit(out, indent, "stablehlo.custom_call", flat, result, attrs);
  }
  if (opcode == "all-reduce" || opcode == "reduce-scatter" || opcode == "all-gather" || opcode == "all-to-all" ||
      opcode == "collective-permute" || opcode == "collective-broadcast") {
    if (flat.empty()) return Invalid(in, comp, "needs an operand");
    if (flat.size() != result.size()) return Invalid(in, comp, "needs one result per operand");
    std::string attrs;
    const int64_t channel = in.Int(f::kChannelId);
    if (channel > 0) attrs = StrCat("channel_handle = #stablehlo.channel_handle<handle = ", channel, ", type = 1>, ");
    if (opcode == "collective-permute") {
      OPJ_TRY_ASSIGN(pairs, in.Subs(f::kSourceTargetPairs, "SourceTarget"));
      std::vector<std::string> rows;
      for (const Msg& st : pairs) rows.push_back(StrCat("[", st.Int(1), ", ", st.Int(2), "]"));
      if (flat.size() != 1) return Unimplemented(in, comp, "a collective-permute of several operands");
      return Emit(out, indent, "stablehlo.collective_permute", flat, result,
                  StrCat(attrs, "source_target_pairs = dense<", rows.empty() ? "" : "[" + Join(rows) + "]",
                         "> : tensor<", rows.size(), "x2xi64>"));
    }
    OPJ_TRY_ASSIGN(groups, ReplicaGroups(in, comp));
    attrs += StrCat("replica_groups = ", groups.text);
    if (in.Int(f::kUseGlobalDeviceIds) != 0) attrs += ", use_global_device_ids";
    if (opcode == "all-reduce" || opcode == "reduce-scatter") {
      if (opcode == "reduce-scatter" && flat.size() != 1)
        return Unimplemented(in, comp, "a reduce-scatter of several operands");
      const Value scalar = Scalars({flat[0]});
      OPJ_TRY_ASSIGN(id, called(0));
      OPJ_TRY_ASSIGN(region, Region(id, {scalar, scalar}, indent));
      if (opcode == "reduce-scatter") {
        if (dims.size() != 1) return Invalid(in, comp, "needs one scatter dimension");
        attrs += StrCat(", scatter_dimension = ", dims[0], " : i64");
      }
      return Emit(out, indent, opcode == "all-reduce" ? "stablehlo.all_reduce" : "stablehlo.reduce_scatter", flat,
                  result, attrs, region);
    }
    if (opcode == "all-gather") {
      if (dims.size() != 1) return Invalid(in, comp, "needs one all-gather dimension");
      return Emit(out, indent, "stablehlo.all_gather", flat, result,
                  StrCat(attrs, ", all_gather_dim = ", dims[0], " : i64"));
    }
    if (opcode == "collective-broadcast") {
      if (flat.size() != 1) return Unimplemented(in, comp, "a collective-broadcast of several operands");
      return Emit(out, indent, "stablehlo.collective_broadcast", flat, result, attrs);
    }
    // all-to-all: the array form splits and concatenates along one dimension, into as many
    // pieces as a group has members; the tuple form (no dimension) is not converted.
    if (dims.empty()) return Unimplemented(in, comp, "the tuple form of all-to-all (without a split dimension)");
    if (dims.size() != 1) return Invalid(in, comp, "needs one split dimension");
    int64_t split = groups.group_size;
    if (groups.text.find("[") == std::string::npos) {
      // No groups: one group of every replica (no channel), of every partition (a channel), or
      // of every device (global ids), as the compile options count them.
      const bool global = in.Int(f::kUseGlobalDeviceIds) != 0;
      split = channel > 0 ? (global ? devices_.num_replicas * devices_.num_partitions : devices_.num_partitions)
                          : devices_.num_replicas;
    }
    if (split <= 0) return Unimplemented(in, comp, "an all-to-all over replica groups of different sizes");
    return Emit(out, indent, "stablehlo.all_to_all", flat, result,
                StrCat(attrs, ", split_dimension = ", dims[0], " : i64, concat_dimension = ", dims[0],
                       " : i64, split_count = ", split, " : i64"));
  }
  return Unimplemented(in, comp, StrCat("opcode '", opcode, "'"));
}

}  // namespace

absl::StatusOr<std::string> HloProtoToText(std::string_view bytes, HloDevices devices) {
  if (devices.num_replicas <= 0) devices.num_replicas = 1;
  if (devices.num_partitions <= 0) devices.num_partitions = 1;
  return Converter(devices).Run(bytes);
}

absl::StatusOr<std::string> HloProtoWithConfigToText(std::string_view bytes, HloDevices devices) {
  OPJ_TRY_ASSIGN(outer, Msg::Parse(bytes, "HloModuleProtoWithConfig"));
  OPJ_TRY_ASSIGN(config, outer.Sub(2, "HloModuleConfigProto"));
  const int64_t replicas = config.Int(4), partitions = config.Int(5);  // replica_count, num_partitions
  constexpr int64_t kMaxDevices = int64_t{1} << 20;
  if (replicas < 0 || replicas > kMaxDevices || partitions < 0 || partitions > kMaxDevices)
    return absl::InvalidArgumentError(StrCat("HloModuleConfigProto: replica_count ", replicas, " and num_partitions ",
                                             partitions, " must lie in [0, 2^20]"));
  if (devices.num_replicas <= 0) devices.num_replicas = replicas;
  if (devices.num_partitions <= 0) devices.num_partitions = partitions;
  OPJ_TRY_ASSIGN(body, HloProtoToText(outer.Bytes(1), devices));
  std::vector<std::string> attrs;
  if (replicas > 0) attrs.push_back(StrCat("mhlo.num_replicas = ", replicas, " : i32"));
  if (partitions > 0) attrs.push_back(StrCat("mhlo.num_partitions = ", partitions, " : i32"));
  if (attrs.empty()) return body;
  return StrCat("module attributes {", Join(attrs), "} {\n", body, "}\n");
}

absl::StatusOr<std::unique_ptr<Module>> ParseHloProto(std::string_view bytes, const std::string& source_name,
                                                      HloDevices devices, bool with_config) {
  auto text = with_config ? HloProtoWithConfigToText(bytes, devices) : HloProtoToText(bytes, devices);
  if (!text.ok()) return text.status();
  ParseOptions opts;
  opts.source_name = source_name + (with_config ? " (converted from HloModuleProtoWithConfig)"
                                                 : " (converted from HloModuleProto)");
  return ParseModule(*text, opts);
}

absl::StatusOr<std::unique_ptr<Module>> ParseProgramOfFormat(std::string_view data, std::string_view format,
                                                             const std::string& source_name, HloDevices devices) {
  if (format == "mlir") return ParseProgram(data, source_name);
  if (format == "hlo" || format == "hlo_with_config")
    return ParseHloProto(data, source_name, devices, format == "hlo_with_config");
  return absl::InvalidArgumentError(StrCat("unsupported program format '", format,
                                           "'; the CPU plugin reads \"mlir\", \"hlo\" and \"hlo_with_config\""));
}

}  // namespace openpjrt::ir
