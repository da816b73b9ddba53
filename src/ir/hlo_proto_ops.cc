// The per-opcode conversions of the HloModuleProto reader: Converter::Convert writes one
// HloInstructionProto as StableHLO (generic form) and returns the leaves of its value.
#include <functional>

#include "src/ir/hlo_convert.h"

namespace openpjrt::ir::hlo_convert {

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
      {"custom-call", true}, {"all-reduce", true}, {"all-gather", true}, {"all-to-all", true},
      {"reduce-scatter", true}, {"collective-permute", true}, {"collective-broadcast", true}};
  static const auto* kArrayResults = new std::unordered_map<std::string_view, bool>{
      {"constant", true},  {"bitcast", true},      {"compare", true},    {"broadcast", true},
      {"transpose", true}, {"reverse", true},      {"iota", true},       {"concatenate", true},
      {"slice", true},     {"dynamic-slice", true}, {"pad", true},       {"get-dimension-size", true},
      {"dot", true},       {"convolution", true},  {"map", true},        {"select-and-scatter", true},
      {"gather", true},    {"rng", true},          {"fft", true},        {"triangular-solve", true},
      {"reduce-precision", true}, {"batch-norm-inference", true}};
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
    // reduce-scatter, collective-permute and collective-broadcast of several operands (a tuple)
    // act on each operand independently: one StableHLO op (which takes one operand) per operand.
    auto each = [&](const std::string& name, const std::string& op_attrs,
                    const std::function<absl::StatusOr<std::string>(const Leaf&)>& region) -> absl::StatusOr<Value> {
      Value results;
      for (size_t i = 0; i < flat.size(); ++i) {
        std::string r;
        if (region) {
          OPJ_TRY_ASSIGN(text, region(flat[i]));
          r = std::move(text);
        }
        for (Leaf& l : Emit(out, indent, name, {flat[i]}, {result[i]}, op_attrs, r)) results.push_back(std::move(l));
      }
      return results;
    };
    if (opcode == "collective-permute") {
      OPJ_TRY_ASSIGN(pairs, in.Subs(f::kSourceTargetPairs, "SourceTarget"));
      std::vector<std::string> rows;
      for (const Msg& st : pairs) rows.push_back(StrCat("[", st.Int(1), ", ", st.Int(2), "]"));
      return each("stablehlo.collective_permute",
                  StrCat(attrs, "source_target_pairs = dense<", rows.empty() ? "" : "[" + Join(rows) + "]",
                         "> : tensor<", rows.size(), "x2xi64>"),
                  nullptr);
    }
    OPJ_TRY_ASSIGN(groups, ReplicaGroups(in, comp));
    attrs += StrCat("replica_groups = ", groups.text);
    if (in.Int(f::kUseGlobalDeviceIds) != 0) attrs += ", use_global_device_ids";
    if (opcode == "all-reduce" || opcode == "reduce-scatter") {
      OPJ_TRY_ASSIGN(id, called(0));
      if (opcode == "reduce-scatter") {
        if (dims.size() != 1) return Invalid(in, comp, "needs one scatter dimension");
        return each("stablehlo.reduce_scatter", StrCat(attrs, ", scatter_dimension = ", dims[0], " : i64"),
                    [&](const Leaf& operand) {
                      const Value scalar = Scalars({operand});
                      return Region(id, {scalar, scalar}, indent);
                    });
      }
      const Value scalar = Scalars({flat[0]});
      OPJ_TRY_ASSIGN(region, Region(id, {scalar, scalar}, indent));
      return Emit(out, indent, "stablehlo.all_reduce", flat, result, attrs, region);
    }
    if (opcode == "all-gather") {
      if (dims.size() != 1) return Invalid(in, comp, "needs one all-gather dimension");
      return Emit(out, indent, "stablehlo.all_gather", flat, result,
                  StrCat(attrs, ", all_gather_dim = ", dims[0], " : i64"));
    }
    if (opcode == "collective-broadcast") return each("stablehlo.collective_broadcast", attrs, nullptr);
    // all-to-all: the array form splits and concatenates along one dimension, into as many
    // pieces as a group has members; the tuple form sends operand i to member i and returns, as
    // element j, what member j sent.
    if (dims.size() > 1) return Invalid(in, comp, "needs one split dimension");
    int64_t split = groups.group_size;
    if (groups.text.find("[") == std::string::npos) {
      // No groups: one group of every replica (no channel), of every partition (a channel), or
      // of every device (global ids), as the compile options count them.
      const bool global = in.Int(f::kUseGlobalDeviceIds) != 0;
      split = channel > 0 ? (global ? devices_.num_replicas * devices_.num_partitions : devices_.num_partitions)
                          : devices_.num_replicas;
    }
    if (split <= 0) return Unimplemented(in, comp, "an all-to-all over replica groups of different sizes");
    if (dims.empty()) {
      for (const Leaf& r : result)
        if (r.type != flat[0].type) return Invalid(in, comp, "has results of another type than its operands");
      return TupleAllToAll(in, comp, flat, split, attrs, out, indent);
    }
    return Emit(out, indent, "stablehlo.all_to_all", flat, result,
                StrCat(attrs, ", split_dimension = ", dims[0], " : i64, concat_dimension = ", dims[0],
                       " : i64, split_count = ", split, " : i64"));
  }
  return Unimplemented(in, comp, StrCat("opcode '", opcode, "'"));
}

// The tuple form of all-to-all as the array form: the n operands (one type) stacked along a new
// leading dimension, exchanged in n pieces along it, and the received rows taken apart again.
absl::StatusOr<Value> Converter::TupleAllToAll(const Msg& in, const Msg& comp, const Value& flat, int64_t split,
                                               const std::string& attrs, std::string* out,
                                               const std::string& indent) {
  const int64_t n = static_cast<int64_t>(flat.size());
  if (n != split)
    return Invalid(in, comp, StrCat("has ", n, " operands for groups of ", split, " (the tuple form sends one to each)"));
  const std::string& type = flat[0].type;
  for (const Leaf& l : flat)
    if (l.type != type) return Unimplemented(in, comp, "the tuple form of all-to-all over operands of different types");
  // tensor<AxBxE> -> its dimensions and "E".
  const size_t open = type.find('<');
  std::vector<int64_t> shape;
  size_t pos = open + 1;
  while (pos < type.size() && type[pos] >= '0' && type[pos] <= '9') {
    size_t x = type.find('x', pos);
    shape.push_back(std::stoll(type.substr(pos, x - pos)));
    pos = x + 1;
  }
  const std::string elem = type.substr(pos, type.size() - pos - 1);
  auto tensor = [&](int64_t lead) {
    std::string t = StrCat("tensor<", lead, "x");
    for (int64_t d : shape) t += StrCat(d, "x");
    return t + elem + ">";
  };
  Value rows;
  for (const Leaf& l : flat) rows.push_back(Emit(out, indent, "stablehlo.reshape", {l}, {{"", tensor(1)}}, "")[0]);
  const Value stacked = Emit(out, indent, "stablehlo.concatenate", rows, {{"", tensor(n)}}, "dimension = 0 : i64");
  const Value exchanged = Emit(out, indent, "stablehlo.all_to_all", stacked, stacked,
                               StrCat(attrs, ", split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = ",
                                      n, " : i64"));
  Value result;
  for (int64_t j = 0; j < n; ++j) {
    std::vector<int64_t> start{j}, limit{j + 1}, stride{1};
    for (int64_t d : shape) start.push_back(0), limit.push_back(d), stride.push_back(1);
    const Value row = Emit(out, indent, "stablehlo.slice", exchanged, {{"", tensor(1)}},
                           StrCat("start_indices = ", Array64(start), ", limit_indices = ", Array64(limit),
                                  ", strides = ", Array64(stride)));
    result.push_back(Emit(out, indent, "stablehlo.reshape", row, {{"", type}}, "")[0]);
  }
  return result;
}

}  // namespace openpjrt::ir::hlo_convert
