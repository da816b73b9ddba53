// VHLO -> StableHLO: renames versioned ops (`vhlo.add_v1` -> `stablehlo.add`), names positional
// properties, regroups flattened attributes (dot, gather, scatter and convolution dimension
// numbers, channel handles, dot algorithms), drops the defaults VHLO spells out, and prints the
// result as StableHLO generic text for the text parser.
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "src/ir/bytecode.h"
#include "src/ir/parser.h"
#include "src/support/str.h"

namespace openpjrt::ir {
namespace {

#define BC_RETURN(expr)                                \
  do {                                                 \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

using bc::Attr;
using bc::AttrP;
using bc::Type;

// Attribute names of every VHLO op version that has attributes. Properties (bytecode >= 5) are
// stored in byte-wise order of these names.
const std::unordered_map<std::string, std::vector<std::string>>& OpAttrNames() {
  static const std::unordered_map<std::string, std::vector<std::string>> k = [] {
    const std::vector<std::string> conv_common = {
        "window_strides", "lhs_dilation", "rhs_dilation", "window_reversal", "input_batch_dimension",
        "input_feature_dimension", "input_spatial_dimensions", "kernel_input_feature_dimension",
        "kernel_output_feature_dimension", "kernel_spatial_dimensions", "output_batch_dimension",
        "output_feature_dimension", "output_spatial_dimensions", "feature_group_count",
        "batch_group_count", "precision_config"};
    auto with = [](std::vector<std::string> v, std::vector<std::string> more) {
      v.insert(v.end(), more.begin(), more.end());
      return v;
    };
    const std::vector<std::string> accuracy = {"result_accuracy"};
    std::unordered_map<std::string, std::vector<std::string>> m = {
        {"all_gather_v1", {"all_gather_dim", "replica_groups", "channel_id", "use_global_device_ids"}},
        {"all_gather_v2", {"all_gather_dim", "replica_groups", "channel_id", "use_global_device_ids"}},
        {"all_reduce_v1", {"replica_groups", "channel_id", "use_global_device_ids"}},
        {"all_reduce_v2", {"replica_groups", "channel_id", "use_global_device_ids"}},
        {"all_to_all_v1", {"split_dimension", "concat_dimension", "split_count", "replica_groups", "channel_id"}},
        {"all_to_all_v2", {"split_dimension", "concat_dimension", "split_count", "replica_groups", "channel_id"}},
        {"batch_norm_grad_v1", {"epsilon", "feature_index"}},
        {"batch_norm_inference_v1", {"epsilon", "feature_index"}},
        {"batch_norm_training_v1", {"epsilon", "feature_index"}},
        {"broadcast_in_dim_v1", {"broadcast_dimensions"}},
        {"broadcast_v1", {"broadcast_sizes"}},
        {"call_v1", {"callee"}},
        {"cholesky_v1", {"lower"}},
        {"collective_broadcast_v1", {"replica_groups", "channel_id"}},
        {"collective_broadcast_v2", {"replica_groups", "channel_id", "has_dynamic_root"}},
        {"collective_permute_v1", {"source_target_pairs", "channel_id"}},
        {"collective_reduce_v1", {"replica_groups", "channel_id", "has_dynamic_root", "use_global_device_ids"}},
        {"compare_v1", {"comparison_direction", "compare_type"}},
        {"composite_v1", {"name", "composite_attributes", "decomposition", "version"}},
        {"composite_v2", {"name", "composite_attributes", "decomposition", "version"}},
        {"concatenate_v1", {"dimension"}},
        {"constant_v1", {"value"}},
        {"convolution_v1", with(conv_common, {"padding"})},
        {"cross-replica-sum_v1", {"replica_groups"}},
        {"custom_call_v1", {"call_target_name", "has_side_effect", "backend_config", "api_version",
                            "called_computations", "operand_layouts", "result_layouts",
                            "output_operand_aliases"}},
        {"custom_call_v2", {"call_target_name", "has_side_effect", "backend_config", "api_version",
                            "called_computations", "operand_layouts", "result_layouts",
                            "output_operand_aliases", "result_tilings"}},
        {"dot_general_v1", {"lhs_batching_dimensions", "rhs_batching_dimensions",
                            "lhs_contracting_dimensions", "rhs_contracting_dimensions", "precision_config"}},
        {"dot_general_v2", {"lhs_batching_dimensions", "rhs_batching_dimensions",
                            "lhs_contracting_dimensions", "rhs_contracting_dimensions", "precision_config",
                            "lhs_precision_type", "rhs_precision_type", "accumulation_type",
                            "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                            "allow_imprecise_accumulation"}},
        {"dot_v1", {"precision_config"}},
        {"dynamic_broadcast_in_dim_v1", {"broadcast_dimensions", "known_expanding_dimensions",
                                         "known_nonexpanding_dimensions"}},
        {"dynamic_conv_v1", with(conv_common, {"padding"})},
        {"dynamic_conv_v2", conv_common},
        {"dynamic_gather_v1", {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
                               "indices_are_sorted"}},
        {"dynamic_gather_v2", {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                               "start_indices_batching_dims", "start_index_map", "index_vector_dim",
                               "indices_are_sorted"}},
        {"dynamic_iota_v1", {"iota_dimension"}},
        {"dynamic_slice_v1", {"slice_sizes"}},
        {"einsum_v1", {"einsum_config"}},
        {"fft_v1", {"fft_type", "fft_length"}},
        {"func_v1", {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"}},
        {"gather_v1", {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
                       "slice_sizes", "indices_are_sorted"}},
        {"gather_v2", {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                       "start_indices_batching_dims", "start_index_map", "index_vector_dim", "slice_sizes",
                       "indices_are_sorted"}},
        {"get_dimension_size_v1", {"dimension"}},
        {"get_tuple_element_v1", {"index"}},
        {"infeed_v1", {"infeed_config", "layout"}},
        {"iota_v1", {"iota_dimension"}},
        {"map_v1", {"dimensions"}},
        {"outfeed_v1", {"outfeed_config"}},
        {"pad_v1", {"edge_padding_low", "edge_padding_high", "interior_padding"}},
        {"recv_v1", {"channel_id", "channel_type", "is_host_transfer"}},
        {"recv_v2", {"channel_id", "channel_type", "is_host_transfer", "source_target_pairs"}},
        {"reduce_precision_v1", {"exponent_bits", "mantissa_bits"}},
        {"reduce_scatter_v1", {"scatter_dimension", "replica_groups", "channel_id", "use_global_device_ids"}},
        {"reduce_v1", {"dimensions"}},
        {"reduce_window_v1", {"window_dimensions", "window_strides", "base_dilations", "window_dilations",
                              "padding"}},
        {"reverse_v1", {"dimensions"}},
        {"rng_bit_generator_v1", {"rng_algorithm"}},
        {"rng_v1", {"rng_distribution"}},
        {"scatter_v1", {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
                        "index_vector_dim", "indices_are_sorted", "unique_indices"}},
        {"scatter_v2", {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                        "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim",
                        "indices_are_sorted", "unique_indices"}},
        {"select_and_scatter_v1", {"window_dimensions", "window_strides", "padding"}},
        {"send_v1", {"channel_id", "channel_type", "is_host_transfer"}},
        {"send_v2", {"channel_id", "channel_type", "is_host_transfer", "source_target_pairs"}},
        {"set_dimension_size_v1", {"dimension"}},
        {"slice_v1", {"start_indices", "limit_indices", "strides"}},
        {"sort_v1", {"dimension", "is_stable"}},
        {"torch_index_select_v1", {"dim", "batch_dims"}},
        {"transpose_v1", {"permutation"}},
        {"triangular_solve_v1", {"left_side", "lower", "unit_diagonal", "transpose_a"}},
        {"unary_einsum_v1", {"einsum_config"}},
    };
    for (const char* op : {"cbrt_v2", "cosine_v2", "exponential_minus_one_v2", "exponential_v2",
                           "log_plus_one_v2", "log_v2", "logistic_v2", "rsqrt_v2", "sine_v2", "sqrt_v2",
                           "tan_v2", "tanh_v2"})
      m[op] = accuracy;
    return m;
  }();
  return k;
}

// The same names in byte-wise order: the order of properties in bytecode.
const std::unordered_map<std::string, std::vector<std::string>>& SortedAttrNames() {
  static const std::unordered_map<std::string, std::vector<std::string>> k = [] {
    auto m = OpAttrNames();
    for (auto& [name, attrs] : m) std::sort(attrs.begin(), attrs.end());
    return m;
  }();
  return k;
}

// Attributes that StableHLO keeps as `array<i64: ...>` (VHLO stores a 1-D tensor).
bool IsI64Array(const std::string& n) {
  static const std::unordered_set<std::string> k = {
      "broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions",
      "broadcast_sizes", "dimensions", "permutation", "start_indices", "limit_indices", "strides",
      "slice_sizes", "edge_padding_low", "edge_padding_high", "interior_padding", "window_dimensions",
      "window_strides", "base_dilations", "window_dilations", "lhs_dilation", "rhs_dilation",
      "fft_length"};
  return k.count(n) > 0;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      static const char* h = "0123456789ABCDEF";
      out.push_back('\\');
      out.push_back(h[c >> 4]);
      out.push_back(h[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

// Integers held by a 1-D tensor attribute (little-endian, any integer width).
std::vector<int64_t> TensorInts(const AttrP& a) {
  std::vector<int64_t> out;
  if (!a || a->kind != Attr::kTensor) return out;
  int bytes = std::max(1, (a->type->elem->bits + 7) / 8);
  int64_t count = 1;
  for (int64_t d : a->type->shape) count *= d;
  bool splat = static_cast<int64_t>(a->data.size()) == bytes && count > 1;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t v = 0;
    size_t off = splat ? 0 : static_cast<size_t>(i * bytes);
    if (off + bytes > a->data.size()) break;
    for (int b = 0; b < bytes; ++b) v |= uint64_t(uint8_t(a->data[off + b])) << (8 * b);
    if (bytes < 8 && ((v >> (8 * bytes - 1)) & 1) && a->type->elem->name.rfind("ui", 0) != 0)
      v |= ~((uint64_t{1} << (8 * bytes)) - 1);
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

std::string IntList(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) StrAppend(&s, i ? ", " : "", v[i]);
  return s + "]";
}

std::string Hex(const std::string& bytes) {
  static const char* h = "0123456789ABCDEF";
  std::string s = "0x";
  for (unsigned char c : bytes) {
    s.push_back(h[c >> 4]);
    s.push_back(h[c & 15]);
  }
  return s;
}

bool IsFalse(const AttrP& a) { return !a || (a->kind == Attr::kBool && a->i == 0); }
bool IsZero(const AttrP& a) { return !a || (a->kind == Attr::kInt && a->i == 0); }
bool IsEmpty(const AttrP& a) {
  if (!a) return true;
  if (a->kind == Attr::kArray) return a->items.empty();
  if (a->kind == Attr::kDict) return a->dict.empty();
  if (a->kind == Attr::kString) return a->str.empty();
  if (a->kind == Attr::kTensor) return a->data.empty();
  return false;
}

class Printer {
 public:
  std::string AttrText(const AttrP& a) {
    switch (a->kind) {
      case Attr::kString: return Quote(a->str);
      case Attr::kBool: return a->i ? "true" : "false";
      case Attr::kInt:
        if (a->type->name == "i1") return a->i ? "true" : "false";
        return StrCat(a->i, " : ", a->type->text);
      case Attr::kFloat: return StrCat(a->float_text, " : ", a->type->text);
      case Attr::kUnit: return "unit";
      case Attr::kSymbol: return SymbolRef(a->str);
      case Attr::kType: return a->type->text;
      case Attr::kEnum: {
        std::string name = a->str.substr(0, a->str.find(' '));
        return StrCat("#stablehlo<", a->str, ">");
      }
      case Attr::kArray: {
        std::string s = "[";
        for (size_t i = 0; i < a->items.size(); ++i) StrAppend(&s, i ? ", " : "", AttrText(a->items[i]));
        return s + "]";
      }
      case Attr::kDict: {
        std::string s = "{";
        for (size_t i = 0; i < a->dict.size(); ++i)
          StrAppend(&s, i ? ", " : "", Key(a->dict[i].first), " = ", AttrText(a->dict[i].second));
        return s + "}";
      }
      case Attr::kTensor:
        if (a->data.empty()) return StrCat("dense<> : ", a->type->text);
        return StrCat("dense<\"", Hex(a->data), "\"> : ", a->type->text);
      case Attr::kTypeExtensions: {
        std::vector<int64_t> b = a->ints;
        std::string s = "#stablehlo.bounds<";
        for (size_t i = 0; i < b.size(); ++i)
          StrAppend(&s, i ? ", " : "", b[i] == INT64_MIN ? std::string("?") : std::to_string(b[i]));
        return s + ">";
      }
      case Attr::kOutputOperandAlias:
        return StrCat("#stablehlo.output_operand_alias<output_tuple_indices = ", IntList(a->ints),
                      ", operand_index = ", a->i, ", operand_tuple_indices = ", IntList(a->ints2), ">");
      case Attr::kResultAccuracy: {
        auto f64 = [](int64_t bits) {
          double d;
          std::memcpy(&d, &bits, 8);
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g", d);
          std::string s = buf;
          if (s.find_first_of(".en") == std::string::npos) s += ".0";
          return s;
        };
        std::string mode = a->sub ? a->sub->str.substr(a->sub->str.find(' ') + 1) : "DEFAULT";
        return StrCat("#stablehlo.result_accuracy<atol = ", f64(a->ints[0]), ", rtol = ", f64(a->ints[1]),
                      ", ulps = ", a->ints[2], ", mode = #stablehlo.result_accuracy_mode<", mode, ">>");
      }
      case Attr::kOther: return a->str;
    }
    return a->str;
  }

  // @name, quoted when the name is not a bare identifier (JAX names functions after lambdas:
  // "call_exported_<lambda>").
  static std::string SymbolRef(const std::string& name) {
    bool bare = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char ch : name)
      bare = bare && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.' || ch == '-');
    if (bare) return StrCat("@", name);
    std::string q = "@\"";
    for (char ch : name) {
      if (ch == '"' || ch == '\\') q += '\\';
      q += ch;
    }
    return q + "\"";
  }

  static std::string Key(const std::string& k) {
    bool bare = !k.empty() && !std::isdigit(static_cast<unsigned char>(k[0]));
    for (char c : k)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '$') bare = false;
    return bare ? k : Quote(k);
  }

  absl::Status EmitModule(const bc::Module& m, std::string* out) {
    for (const bc::Op& op : m.top) BC_RETURN(EmitOp(op, 0, false, out));
    return absl::OkStatus();
  }

 private:
  static absl::Status Fail(const bc::Op& op, const std::string& what) {
    return absl::InvalidArgumentError(StrCat("bytecode offset ", op.offset, ": ", op.name, ": ", what));
  }

  static void Indent(int n, std::string* out) { out->append(2 * n, ' '); }

  absl::Status EmitRegions(const bc::Op& op, int depth, bool func_body, std::string* out) {
    if (op.regions.empty()) return absl::OkStatus();
    *out += " (";
    for (size_t r = 0; r < op.regions.size(); ++r) {
      *out += r ? ", {\n" : "{\n";
      for (const bc::Block& b : op.regions[r].blocks) {
        Indent(depth, out);
        *out += "^bb0";
        if (!b.args.empty()) {
          *out += "(";
          for (size_t i = 0; i < b.args.size(); ++i)
            StrAppend(out, i ? ", " : "", b.args[i].first, ": ", b.args[i].second->text);
          *out += ")";
        }
        *out += ":\n";
        for (const bc::Op& inner : b.ops) BC_RETURN(EmitOp(inner, depth + 1, func_body, out));
      }
      Indent(depth, out);
      *out += "}";
    }
    *out += ")";
    return absl::OkStatus();
  }

  static std::string TypeSig(const bc::Op& op, const std::vector<std::string>& operand_types) {
    std::string s = "(";
    for (size_t i = 0; i < operand_types.size(); ++i) StrAppend(&s, i ? ", " : "", operand_types[i]);
    s += ") -> ";
    if (op.result_types.size() == 1 && op.result_types[0]->kind != Type::kFunction)
      return s + op.result_types[0]->text;
    s += "(";
    for (size_t i = 0; i < op.result_types.size(); ++i) StrAppend(&s, i ? ", " : "", op.result_types[i]->text);
    return s + ")";
  }

  // Ops of other dialects (sdy.mesh and friends) pass through in generic form with their
  // attributes. Registered ops store properties we can only name for a few known ops; without
  // names a result-free op is discardable metadata and is skipped, anything else is an error.
  absl::Status EmitForeign(const bc::Op& op, int depth, std::string* out) {
    static const std::unordered_map<std::string, std::vector<std::string>> kKnown = {
        {"sdy.mesh", {"mesh", "sym_name"}}, {"sdy.sharding_constraint", {"sharding"}}, {"sdy.reshard", {"sharding"}},
        {"sdy.manual_computation", {"in_shardings", "manual_axes", "out_shardings"}}};
    // A cast between equal types (what JAX's Shardy export leaves around manual computations)
    // is the identity: a same-shape reshape, which canonicalization removes.
    if (op.name == "builtin.unrealized_conversion_cast" && op.operands.size() == 1 && op.results.size() == 1 &&
        op.operand_types.size() == 1 && op.result_types.size() == 1 &&
        op.operand_types[0]->text == op.result_types[0]->text && op.result_types[0]->kind == Type::kTensor) {
      Indent(depth, out);
      StrAppend(out, op.results[0], " = \"stablehlo.reshape\"(", op.operands[0], ") : (", op.operand_types[0]->text,
                ") -> ", op.result_types[0]->text, "\n");
      return absl::OkStatus();
    }
    std::vector<std::pair<std::string, AttrP>> attrs;
    if (op.props_by_position) {
      auto it = kKnown.find(op.name);
      if (it == kKnown.end() || it->second.size() != op.props.size()) {
        if (op.results.empty() && op.regions.empty()) return absl::OkStatus();
        return Fail(op, "an op of another dialect whose properties this reader cannot name");
      }
      for (size_t i = 0; i < op.props.size(); ++i) attrs.emplace_back(it->second[i], op.props[i]);
    }
    for (const auto& kv : op.attrs) attrs.push_back(kv);
    Indent(depth, out);
    for (size_t i = 0; i < op.results.size(); ++i) StrAppend(out, i ? ", " : "", op.results[i]);
    if (!op.results.empty()) *out += " = ";
    StrAppend(out, "\"", op.name, "\"(");
    for (size_t i = 0; i < op.operands.size(); ++i) StrAppend(out, i ? ", " : "", op.operands[i]);
    *out += ")";
    BC_RETURN(EmitRegions(op, depth + 1, false, out));
    EmitAttrDict(attrs, out);
    std::vector<std::string> operand_types;
    for (const bc::TypeP& t : op.operand_types) operand_types.push_back(t->text);
    StrAppend(out, " : ", TypeSig(op, operand_types), "\n");
    return absl::OkStatus();
  }

  absl::Status EmitOp(const bc::Op& op, int depth, bool in_func, std::string* out) {
    if (op.name.rfind("vhlo.", 0) != 0 && op.name != "builtin.module") return EmitForeign(op, depth, out);
    Indent(depth, out);
    for (size_t i = 0; i < op.results.size(); ++i) StrAppend(out, i ? ", " : "", op.results[i]);
    if (!op.results.empty()) *out += " = ";

    // The op's attributes by name: properties by position, or the dictionary.
    std::vector<std::pair<std::string, AttrP>> attrs;
    std::string base = op.name;
    bool vhlo = op.name.rfind("vhlo.", 0) == 0;
    if (vhlo) base = op.name.substr(5);
    if (op.props_by_position) {
      auto it = SortedAttrNames().find(base);
      if (it == SortedAttrNames().end()) return Fail(op, "unknown VHLO op (no properties layout known)");
      if (it->second.size() != op.props.size())
        return Fail(op, StrCat("has ", op.props.size(), " properties; this version has ", it->second.size()));
      for (size_t i = 0; i < op.props.size(); ++i) attrs.emplace_back(it->second[i], op.props[i]);
    }
    for (const auto& kv : op.attrs) attrs.push_back(kv);

    std::vector<std::string> operand_types;
    for (const bc::TypeP& t : op.operand_types) operand_types.push_back(t->text);

    if (base == "builtin.module" || op.name == "builtin.module") {
      *out += "\"builtin.module\"() ";
      std::string body;
      for (const bc::Region& r : op.regions)
        for (const bc::Block& b : r.blocks)
          for (const bc::Op& inner : b.ops) BC_RETURN(EmitOp(inner, depth + 1, false, &body));
      StrAppend(out, "({\n", body);
      Indent(depth, out);
      *out += "})";
      EmitAttrDict(attrs, out);
      *out += " : () -> ()\n";
      return absl::OkStatus();
    }

    // The op name: strip the version suffix.
    size_t v = base.rfind("_v");
    if (v == std::string::npos) return Fail(op, "op name without a version suffix");
    std::string stem = base.substr(0, v);
    if (!VersionKnown(base)) return Fail(op, "unregistered operation (a newer StableHLO than this reader knows)");

    if (stem == "func") return EmitFunc(op, attrs, depth, out);
    std::string name = StrCat("stablehlo.", stem);
    if (stem == "return" && in_func) name = "func.return";
    if (stem == "call") name = "func.call";
    std::vector<std::pair<std::string, std::string>> shlo;
    BC_RETURN(ConvertAttrs(op, stem, attrs, &shlo));
    OrderAsDeclared(base, &shlo);

    StrAppend(out, "\"", name, "\"(");
    for (size_t i = 0; i < op.operands.size(); ++i) StrAppend(out, i ? ", " : "", op.operands[i]);
    *out += ")";
    BC_RETURN(EmitRegions(op, depth + 1, false, out));
    if (!shlo.empty()) {
      *out += " {";
      for (size_t i = 0; i < shlo.size(); ++i) StrAppend(out, i ? ", " : "", Key(shlo[i].first), " = ", shlo[i].second);
      *out += "}";
    }
    StrAppend(out, " : ", TypeSig(op, operand_types), "\n");
    return absl::OkStatus();
  }

  // Known op versions: everything with a table entry, plus the attribute-free ops whose only
  // versions are v1/v2.
  static bool VersionKnown(const std::string& base) {
    if (OpAttrNames().count(base)) return true;
    static const std::unordered_set<std::string> k = {
        "abs_v1", "add_v1", "after_all_v1", "and_v1", "atan2_v1", "bitcast_convert_v1", "case_v1",
        "cbrt_v1", "ceil_v1", "clamp_v1", "complex_v1", "convert_v1", "cosine_v1",
        "count_leading_zeros_v1", "create_token_v1", "divide_v1", "dynamic_pad_v1",
        "dynamic_reshape_v1", "dynamic_update_slice_v1", "exponential_minus_one_v1", "exponential_v1",
        "floor_v1", "if_v1", "imag_v1", "is_finite_v1", "log_plus_one_v1", "log_v1", "logistic_v1",
        "maximum_v1", "minimum_v1", "multiply_v1", "negate_v1", "not_v1", "optimization_barrier_v1",
        "or_v1", "partition_id_v1", "popcnt_v1", "power_v1", "real_dynamic_slice_v1", "real_v1",
        "remainder_v1", "replica_id_v1", "reshape_v1", "return_v1", "round_nearest_afz_v1",
        "round_nearest_even_v1", "rsqrt_v1", "select_v1", "shift_left_v1",
        "shift_right_arithmetic_v1", "shift_right_logical_v1", "sign_v1", "sine_v1", "sqrt_v1",
        "subtract_v1", "tan_v1", "tanh_v1", "tuple_v1", "uniform_dequantize_v1", "uniform_quantize_v1",
        "while_v1", "xor_v1", "async_start_v1", "async_done_v1", "compute_reshape_shape_v1",
        "cstr_reshapable_v1", "trace_v1"};
    return k.count(base) > 0;
  }

  void EmitAttrDict(const std::vector<std::pair<std::string, AttrP>>& attrs, std::string* out) {
    if (attrs.empty()) return;
    *out += " {";
    for (size_t i = 0; i < attrs.size(); ++i)
      StrAppend(out, i ? ", " : "", Key(attrs[i].first), " = ", AttrText(attrs[i].second));
    *out += "}";
  }

  absl::Status EmitFunc(const bc::Op& op, const std::vector<std::pair<std::string, AttrP>>& attrs, int depth,
                        std::string* out) {
    std::map<std::string, AttrP> a(attrs.begin(), attrs.end());
    if (!a["sym_name"] || !a["function_type"] || a["function_type"]->kind != Attr::kType)
      return Fail(op, "func without sym_name or function_type");
    *out += "\"func.func\"()";
    if (!op.regions.empty() && !op.regions[0].blocks.empty()) BC_RETURN(EmitRegions(op, depth + 1, true, out));
    std::vector<std::pair<std::string, std::string>> d = {
        {"sym_name", Quote(a["sym_name"]->str)}, {"function_type", a["function_type"]->type->text}};
    if (a["sym_visibility"] && !IsEmpty(a["sym_visibility"]) && a["sym_visibility"]->str != "public" &&
        a["sym_visibility"]->str != "private" && a["sym_visibility"]->str != "nested")
      return Fail(op, StrCat("sym_visibility ", Quote(a["sym_visibility"]->str),
                             " is not one of public, private, nested"));
    if (a["sym_visibility"] && !IsEmpty(a["sym_visibility"]) && a["sym_visibility"]->str != "public")
      d.emplace_back("sym_visibility", AttrText(a["sym_visibility"]));
    auto all_empty = [](const AttrP& x) {
      if (!x || x->kind != Attr::kArray) return true;
      for (const AttrP& e : x->items)
        if (!IsEmpty(e)) return false;
      return true;
    };
    if (!all_empty(a["arg_attrs"])) d.emplace_back("arg_attrs", AttrText(a["arg_attrs"]));
    if (!all_empty(a["res_attrs"])) d.emplace_back("res_attrs", AttrText(a["res_attrs"]));
    for (const auto& kv : attrs)
      if (!OpAttrNames().at("func_v1").empty() &&
          std::find(OpAttrNames().at("func_v1").begin(), OpAttrNames().at("func_v1").end(), kv.first) ==
              OpAttrNames().at("func_v1").end())
        d.emplace_back(kv.first, AttrText(kv.second));
    *out += " {";
    for (size_t i = 0; i < d.size(); ++i) StrAppend(out, i ? ", " : "", Key(d[i].first), " = ", d[i].second);
    *out += "} : () -> ()\n";
    return absl::OkStatus();
  }

  // StableHLO attributes in the op's declared order (VHLO keeps StableHLO's order); grouped
  // attributes sit where their first member was; discardable attributes follow.
  static void OrderAsDeclared(const std::string& base, std::vector<std::pair<std::string, std::string>>* attrs) {
    auto it = OpAttrNames().find(base);
    if (it == OpAttrNames().end()) return;
    static const std::map<std::string, std::string> group_of = {
        {"dot_dimension_numbers", "lhs_batching_dimensions"}, {"scatter_dimension_numbers", "update_window_dims"},
        {"channel_handle", "channel_id"}, {"algorithm", "lhs_precision_type"}};
    auto rank = [&](const std::string& n) {
      std::string key = n;
      if (group_of.count(n)) key = group_of.at(n);
      if (n == "dimension_numbers") key = base.rfind("gather", std::string::npos) != std::string::npos &&
                                                  base.find("conv") == std::string::npos
                                              ? "offset_dims"
                                              : "input_batch_dimension";
      auto pos = std::find(it->second.begin(), it->second.end(), key);
      return pos == it->second.end() ? it->second.size() : static_cast<size_t>(pos - it->second.begin());
    };
    std::stable_sort(attrs->begin(), attrs->end(),
                     [&](const auto& x, const auto& y) { return rank(x.first) < rank(y.first); });
  }

  std::string DimsField(const char* name, const AttrP& a, bool keep_empty = false) {
    std::vector<int64_t> v = TensorInts(a);
    if (v.empty() && !keep_empty) return "";
    return StrCat(name, " = ", IntList(v));
  }

  static std::string Join(const std::vector<std::string>& parts) {
    std::string s;
    for (const std::string& p : parts)
      if (!p.empty()) StrAppend(&s, s.empty() ? "" : ", ", p);
    return s;
  }

  std::string ChannelHandle(const AttrP& id, int64_t type) {
    return StrCat("#stablehlo.channel_handle<handle = ", id->i, ", type = ", type, ">");
  }

  absl::Status ConvertAttrs(const bc::Op& op, const std::string& stem,
                            const std::vector<std::pair<std::string, AttrP>>& in,
                            std::vector<std::pair<std::string, std::string>>* out) {
    std::map<std::string, AttrP> a;
    for (const auto& kv : in) a[kv.first] = kv.second;
    std::set<std::string> used;
    auto take = [&](const char* n) {
      used.insert(n);
      auto it = a.find(n);
      return it == a.end() ? AttrP() : it->second;
    };
    auto put = [&](const std::string& n, const std::string& text) { out->emplace_back(n, text); };
    // Attributes the regrouping below reads must exist with the right kind.
    static const std::map<std::string, std::vector<std::pair<const char*, Attr::Kind>>> kRequired = [] {
      std::vector<std::pair<const char*, Attr::Kind>> conv;
      for (const char* n : {"input_batch_dimension", "input_feature_dimension", "kernel_input_feature_dimension",
                            "kernel_output_feature_dimension", "output_batch_dimension", "output_feature_dimension"})
        conv.emplace_back(n, Attr::kInt);
      const std::vector<std::pair<const char*, Attr::Kind>> index = {{"index_vector_dim", Attr::kInt}};
      const std::vector<std::pair<const char*, Attr::Kind>> channel = {{"channel_id", Attr::kInt},
                                                                       {"channel_type", Attr::kInt}};
      return std::map<std::string, std::vector<std::pair<const char*, Attr::Kind>>>{
          {"gather", index}, {"dynamic_gather", index}, {"scatter", index}, {"convolution", conv},
          {"dynamic_conv", conv}, {"send", channel}, {"recv", channel}};
    }();
    std::vector<std::pair<const char*, Attr::Kind>> required;
    if (auto it = kRequired.find(stem); it != kRequired.end()) required = it->second;
    AttrP lp0 = a.count("lhs_precision_type") ? a["lhs_precision_type"] : AttrP();
    if (stem == "dot_general" && lp0 && !(lp0->kind == Attr::kType && lp0->type->kind == Type::kNone)) {
      for (const char* n : {"lhs_precision_type", "rhs_precision_type", "accumulation_type"})
        required.emplace_back(n, Attr::kType);
      for (const char* n : {"lhs_component_count", "rhs_component_count", "num_primitive_operations"})
        required.emplace_back(n, Attr::kInt);
      required.emplace_back("allow_imprecise_accumulation", Attr::kBool);
    }
    for (const auto& [n, kind] : required) {
      auto it = a.find(n);
      if (it == a.end()) return Fail(op, StrCat("missing attribute '", n, "'"));
      if (it->second->kind != kind) return Fail(op, StrCat("attribute '", n, "' has the wrong kind"));
    }
    if (a.count("channel_id") && a["channel_id"]->kind != Attr::kInt)
      return Fail(op, "attribute 'channel_id' is not an integer");

    if (stem == "dot_general") {
      put("dot_dimension_numbers",
          StrCat("#stablehlo.dot<", Join({DimsField("lhs_batching_dimensions", take("lhs_batching_dimensions")),
                                          DimsField("rhs_batching_dimensions", take("rhs_batching_dimensions")),
                                          DimsField("lhs_contracting_dimensions", take("lhs_contracting_dimensions")),
                                          DimsField("rhs_contracting_dimensions", take("rhs_contracting_dimensions"))}),
                 ">"));
      AttrP lp = take("lhs_precision_type"), rp = take("rhs_precision_type"), acc = take("accumulation_type");
      AttrP lc = take("lhs_component_count"), rc = take("rhs_component_count"),
            np = take("num_primitive_operations"), imp = take("allow_imprecise_accumulation");
      if (lp && lp->kind == Attr::kType && lp->type->kind != Type::kNone) {  // kinds checked above
        put("algorithm", StrCat("#stablehlo.dot_algorithm<lhs_precision_type = ", lp->type->text,
                                ", rhs_precision_type = ", rp->type->text, ", accumulation_type = ", acc->type->text,
                                ", lhs_component_count = ", lc->i, ", rhs_component_count = ", rc->i,
                                ", num_primitive_operations = ", np->i, ", allow_imprecise_accumulation = ",
                                imp->i ? "true" : "false", ">"));
      }
    } else if (stem == "gather" || stem == "dynamic_gather") {
      put("dimension_numbers",
          StrCat("#stablehlo.gather<", Join({DimsField("offset_dims", take("offset_dims")),
                                             DimsField("collapsed_slice_dims", take("collapsed_slice_dims")),
                                             DimsField("operand_batching_dims", take("operand_batching_dims")),
                                             DimsField("start_indices_batching_dims", take("start_indices_batching_dims")),
                                             DimsField("start_index_map", take("start_index_map")),
                                             StrCat("index_vector_dim = ", take("index_vector_dim")->i)}),
                 ">"));
    } else if (stem == "scatter") {
      put("scatter_dimension_numbers",
          StrCat("#stablehlo.scatter<",
                 Join({DimsField("update_window_dims", take("update_window_dims")),
                       DimsField("inserted_window_dims", take("inserted_window_dims")),
                       DimsField("input_batching_dims", take("input_batching_dims")),
                       DimsField("scatter_indices_batching_dims", take("scatter_indices_batching_dims")),
                       DimsField("scatter_dims_to_operand_dims", take("scatter_dims_to_operand_dims")),
                       StrCat("index_vector_dim = ", take("index_vector_dim")->i)}),
                 ">"));
    } else if (stem == "convolution" || stem == "dynamic_conv") {
      auto one = [&](const char* n) { return StrCat(n, " = ", take(n)->i); };
      put("dimension_numbers",
          StrCat("#stablehlo.conv<raw ",
                 Join({one("input_batch_dimension"), one("input_feature_dimension"),
                       DimsField("input_spatial_dimensions", take("input_spatial_dimensions"), true),
                       one("kernel_input_feature_dimension"), one("kernel_output_feature_dimension"),
                       DimsField("kernel_spatial_dimensions", take("kernel_spatial_dimensions"), true),
                       one("output_batch_dimension"), one("output_feature_dimension"),
                       DimsField("output_spatial_dimensions", take("output_spatial_dimensions"), true)}),
                 ">"));
      AttrP rev = take("window_reversal");
      std::vector<int64_t> bits = TensorInts(rev);
      if (std::any_of(bits.begin(), bits.end(), [](int64_t x) { return x != 0; })) {
        std::string s = "array<i1";
        for (size_t i = 0; i < bits.size(); ++i) StrAppend(&s, i ? ", " : ": ", bits[i] ? "true" : "false");
        put("window_reversal", s + ">");
      }
    }
    // Channel handles (collectives: type 0 unless VHLO says otherwise; send/recv carry a type).
    if (a.count("channel_id")) {
      AttrP id = take("channel_id");
      if (stem == "send" || stem == "recv") {
        put("channel_handle", ChannelHandle(id, take("channel_type")->i));
      } else if (!IsZero(id)) {
        put("channel_handle", ChannelHandle(id, 0));
      }
    }
    for (const char* flag : {"use_global_device_ids", "has_dynamic_root"})
      if (a.count(flag) && !IsFalse(take(flag))) put(flag, "unit");

    for (const auto& [n, v] : in) {
      if (used.count(n)) continue;
      // Defaults VHLO spells out that StableHLO leaves unset.
      if ((n == "indices_are_sorted" || n == "unique_indices" || n == "is_stable" || n == "has_side_effect") &&
          IsFalse(v))
        continue;
      if (n == "compare_type" && v->kind == Attr::kEnum && v->str == "comparison_type NOTYPE") continue;
      if ((n == "precision_config" || n == "called_computations" || n == "operand_layouts" ||
           n == "result_layouts" || n == "output_operand_aliases" || n == "result_tilings" ||
           n == "source_target_pairs" || n == "layout") && IsEmpty(v) && stem != "collective_permute")
        continue;
      if ((n == "backend_config" || n == "infeed_config" || n == "outfeed_config") && IsEmpty(v)) continue;
      if (n == "precision_config" && v->kind == Attr::kArray &&
          std::all_of(v->items.begin(), v->items.end(),
                      [](const AttrP& e) { return e->kind == Attr::kEnum && e->str == "precision DEFAULT"; }))
        continue;
      if (n == "lower" && stem == "cholesky" && IsFalse(v)) continue;
      if (n == "dimension" && stem == "sort" && v->kind == Attr::kInt && v->i == -1) continue;
      if ((n == "known_expanding_dimensions" || n == "known_nonexpanding_dimensions") && IsEmpty(v)) continue;
      if (v->kind == Attr::kTensor && (n == "window_strides" || n == "lhs_dilation" || n == "rhs_dilation" ||
                                       n == "base_dilations" || n == "window_dilations")) {
        std::vector<int64_t> ints = TensorInts(v);
        if (std::all_of(ints.begin(), ints.end(), [](int64_t x) { return x == 1; })) continue;
      }
      if (n == "padding" && v->kind == Attr::kTensor && stem != "pad") {
        std::vector<int64_t> ints = TensorInts(v);
        if (std::all_of(ints.begin(), ints.end(), [](int64_t x) { return x == 0; })) continue;
      }
      if (n == "composite_attributes" && IsEmpty(v)) continue;
      if (n == "version" && stem == "composite" && IsZero(v)) continue;
      if (n == "result_accuracy" && v->kind == Attr::kResultAccuracy && v->ints[0] == 0 && v->ints[1] == 0 &&
          v->ints[2] == 0 && (!v->sub || v->sub->str == "result_accuracy_mode DEFAULT"))
        continue;
      if (n == "is_host_transfer" && IsFalse(v)) continue;
      if (n == "api_version" && v->kind == Attr::kEnum) {
        static const std::map<std::string, int> k = {
            {"custom_call_api_version API_VERSION_UNSPECIFIED", 0},
            {"custom_call_api_version API_VERSION_ORIGINAL", 1},
            {"custom_call_api_version API_VERSION_STATUS_RETURNING", 2},
            {"custom_call_api_version API_VERSION_STATUS_RETURNING_UNIFIED", 3},
            {"custom_call_api_version API_VERSION_TYPED_FFI", 4}};
        int api = k.count(v->str) ? k.at(v->str) : 1;
        if (api != 1) put(n, StrCat(api, " : i32"));
        continue;
      }
      if ((n == "callee" || n == "decomposition") && v->kind == Attr::kString) {
        put(n, SymbolRef(v->str));
        continue;
      }
      if (n == "called_computations" && v->kind == Attr::kArray) {
        std::string s = "[";
        for (size_t i = 0; i < v->items.size(); ++i) StrAppend(&s, i ? ", " : "", SymbolRef(v->items[i]->str));
        put(n, s + "]");
        continue;
      }
      if (IsI64Array(n) && v->kind == Attr::kTensor) {
        std::vector<int64_t> ints = TensorInts(v);
        std::string s = "array<i64";
        for (size_t i = 0; i < ints.size(); ++i) StrAppend(&s, i ? ", " : ": ", ints[i]);
        put(n, s + ">");
        continue;
      }
      put(n, AttrText(v));
    }
    return absl::OkStatus();
  }

};

}  // namespace

absl::StatusOr<std::string> BytecodeToText(std::string_view data, const std::string& source_name) {
  auto m = bc::Decode(data);
  if (!m.ok())
    return absl::Status(m.status().code(), StrCat(source_name, ": ", m.status().message()));
  const std::string& producer = m->producer;
  // "StableHLO_vX.Y.Z": reject majors newer than ours by name.
  if (producer.rfind("StableHLO_v", 0) == 0) {
    int major = std::atoi(producer.c_str() + 11);
    if (major > 1)
      return absl::InvalidArgumentError(StrCat(source_name, ": the artifact was produced by ", producer,
                                               ", newer than the StableHLO 1.x this reader implements"));
  }
  Printer p;
  std::string text;
  if (absl::Status s = p.EmitModule(*m, &text); !s.ok())
    return absl::Status(s.code(), StrCat(source_name, ": ", s.message()));
  return text;
}

absl::StatusOr<std::unique_ptr<Module>> ParseBytecode(std::string_view data, const std::string& source_name) {
  auto text = BytecodeToText(data, source_name);
  if (!text.ok()) return text.status();
  // A debugging aid: OPENPJRT_DUMP_DIR=DIR writes each converted program to DIR/bytecode-N.mlir,
  // so that an error's line:col can be looked up.
  if (const char* dir = std::getenv("OPENPJRT_DUMP_DIR"); dir && *dir) {
    static std::atomic<int> counter{0};
    std::ofstream(StrCat(dir, "/bytecode-", counter++, ".mlir")) << *text;
  }
  ParseOptions opts;
  opts.source_name = source_name + " (converted from bytecode)";
  return ParseModule(*text, opts);
}

absl::StatusOr<std::unique_ptr<Module>> ParseProgram(std::string_view data, const std::string& source_name) {
  if (IsBytecode(data)) return ParseBytecode(data, source_name);
  ParseOptions opts;
  opts.source_name = source_name;
  return ParseModule(data, opts);
}

}  // namespace openpjrt::ir
