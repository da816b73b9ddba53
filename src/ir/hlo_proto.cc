// HloModuleProto -> StableHLO text (hlo_proto.h). Field numbers follow the published
// xla/service/hlo.proto and xla/xla_data.proto; only the fields a conversion needs are read and
// every other field is skipped by its wire type. Ops are written in the generic form, so each
// opcode's conversion is its op name, operands, attributes and result types. This file walks the
// module (entry, computations inlined or made regions, shapes, replica groups); the conversion of
// each opcode is hlo_proto_ops.cc.
#include "src/ir/hlo_proto.h"

#include "src/ir/bytecode.h"
#include "src/ir/hlo_convert.h"
#include "src/ir/parser.h"

namespace openpjrt::ir {

using proto_wire::Msg;

namespace hlo_convert {

absl::StatusOr<std::string> Converter::Run(std::string_view bytes) {
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

absl::StatusOr<Value> Converter::Leaves(const Msg& shape, const Msg& in, int depth) {
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

absl::StatusOr<Converter::Groups> Converter::ReplicaGroups(const Msg& in, const Msg& comp) {
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

absl::StatusOr<std::vector<std::vector<int64_t>>> Converter::IotaGroups(const Msg& iota, const Msg& in,
                                                                        const Msg& comp) {
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

Value Converter::Emit(std::string* out, const std::string& indent, const std::string& name, const Value& operands,
                      const Value& result_types, const std::string& attrs, const std::string& regions) {
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

absl::StatusOr<std::string> Converter::Region(int64_t id, const std::vector<Value>& param_types,
                                              const std::string& indent, const std::vector<Value>* captured) {
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

Value Converter::Scalars(const Value& v) {
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

absl::StatusOr<Value> Converter::Inline(const Msg& comp, const std::vector<Value>& params, std::string* out,
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

absl::StatusOr<std::vector<size_t>> Converter::ElementLeafCounts(const Msg& shape, const Msg& in) {
  std::vector<size_t> out;
  if (shape.Int(f::kElementType) != 13) return out;
  OPJ_TRY_ASSIGN(elems, shape.Subs(f::kTupleShapes, "ShapeProto"));
  for (const Msg& e : elems) {
    OPJ_TRY_ASSIGN(sub, Leaves(e, in));
    out.push_back(sub.size());
  }
  return out;
}

}  // namespace hlo_convert

using hlo_convert::Converter;
using hlo_convert::Join;

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
