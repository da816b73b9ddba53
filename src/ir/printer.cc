// MLIR text printer for ops, pretty and generic (types and attributes: printer_attrs.cc).
#include "src/ir/printer.h"

#include <cstring>
#include <unordered_map>

#include "src/ir/printer_impl.h"
#include "src/support/str.h"

namespace openpjrt::ir {

// ---------------------------------------------------------------------------------------------
// Operations

namespace {

class OpPrinter {
 public:
  explicit OpPrinter(const PrintOptions& o) : opts_(o) {}
  std::string out;

  void PrintOp(const Operation& op, int indent);

 private:
  const std::string& Name(const Value* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    // A value from outside what is being printed.
    return names_.emplace(v, StrCat("%<<unknown", names_.size(), ">>")).first->second;
  }
  void NameBlockArgs(const Block& b) {
    for (const auto& a : b.args) names_[a.get()] = StrCat("%arg", next_arg_++);
  }
  void Indent(int n) { out.append(static_cast<size_t>(n), ' '); }
  void Operands(const Operation& op, size_t begin = 0, size_t end = SIZE_MAX) {
    end = std::min(end, op.operands.size());
    for (size_t i = begin; i < end; ++i) {
      if (i > begin) out.append(", ");
      out.append(Name(op.operands[i]));
    }
  }
  void AttrDict(const Operation& op, std::initializer_list<std::string_view> elided,
                const char* prefix = " ") {
    AttrDict(op, std::vector<std::string_view>(elided), prefix);
  }
  // Prints the attributes not in `elided` as `{...}` after `prefix`, if there are any.
  void AttrDict(const Operation& op, const std::vector<std::string_view>& elided,
                const char* prefix = " ") {
    bool first = true;
    for (const auto& [k, v] : op.attrs) {
      bool skip = false;
      for (auto e : elided) skip |= e == k;
      if (skip) continue;
      out.append(first ? StrCat(prefix, "{") : ", ");
      first = false;
      if (IsBareId(k)) {
        out.append(k);
      } else {
        AppendEscaped(&out, k);
      }
      if (v.kind() != AttrKind::kUnit) {
        out.append(" = ");
        AppendAttr(&out, v);
      }
    }
    if (!first) out.push_back('}');
  }
  void FunctionalType(const Operation& op) {
    std::vector<Type> in, res;
    for (const Value* v : op.operands) in.push_back(v->type);
    for (size_t i = 0; i < op.num_results(); ++i) res.push_back(op.result(i)->type);
    AppendFunctionType(&out, in, res);
  }
  void TypeSig(const Operation& op);
  void Region(const ir::Region& r, int indent, bool print_entry_label);
  void Block(const ir::Block& b, int indent);
  void BlockHeader(const ir::Block& b, size_t i, int indent);
  void Generic(const Operation& op, int indent);
  bool Pretty(const Operation& op, int indent);
  bool PrettyOperands(const Operation& op);
  bool PrettyReduce(const Operation& op, int indent);
  bool PrettyWhile(const Operation& op, int indent);
  bool PrettyFunc(const Operation& op, int indent);
  bool PrettySdyComputation(const Operation& op, int indent);
  bool PrettySdyKeyword(const Operation& op);
  bool PrettyScan(const Operation& op, int indent);
  bool PrettyConvolution(const Operation& op);

  const PrintOptions& opts_;
  std::unordered_map<const Value*, std::string> names_;
  int next_arg_ = 0, next_value_ = 0, next_iter_ = 0;
};

void OpPrinter::TypeSig(const Operation& op) {
  const OpInfo& info = GetOpInfo(op.code);
  auto all_same = [&]() {
    if (op.num_results() != 1) return false;
    Type t = op.result(0)->type;
    for (const Value* v : op.operands)
      if (v->type != t) return false;
    return true;
  };
  switch (info.type_rule) {
    case 'S':
      if (all_same()) {
        out.append(" : ");
        AppendType(&out, op.result(0)->type);
        return;
      }
      break;
    case 'L': {
      bool results_match = info.num_results == 0 ? op.num_results() == 0
                                                 : op.num_results() == op.operands.size();
      for (size_t i = 0; results_match && info.num_results != 0 && i < op.num_results(); ++i)
        results_match = op.result(i)->type == op.operands[i]->type;
      if (results_match) {
        if (op.operands.empty()) return;
        out.append(" : ");
        for (size_t i = 0; i < op.operands.size(); ++i) {
          if (i) out.append(", ");
          AppendType(&out, op.operands[i]->type);
        }
        return;
      }
      break;
    }
    case 'E': {
      if (op.num_results() != 0 || op.operands.empty()) break;
      out.append(" : ");
      bool same = true;
      for (const Value* v : op.operands) same &= v->type == op.operands[0]->type;
      for (size_t i = 0; i < (same ? 1 : op.operands.size()); ++i) {
        if (i) out.append(", ");
        AppendType(&out, op.operands[i]->type);
      }
      return;
    }
    case 'N':
      if (op.operands.empty() && op.num_results() == 1) {
        out.append(" : ");
        AppendType(&out, op.result(0)->type);
        return;
      }
      break;
    default:
      break;
  }
  out.append(" : ");
  FunctionalType(op);
}

// `^bbN(%arg: type, ...):` on its own line.
void OpPrinter::BlockHeader(const ir::Block& b, size_t i, int indent) {
  Indent(indent);
  StrAppend(&out, "^bb", i);
  if (!b.args.empty()) {
    out.push_back('(');
    for (size_t j = 0; j < b.args.size(); ++j)
      StrAppend(&out, j ? ", " : "", Name(b.args[j].get()), ": ", PrintType(b.args[j]->type));
    out.push_back(')');
  }
  out.append(":\n");
}

void OpPrinter::Block(const ir::Block& b, int indent) {
  for (const auto& op : b.ops) PrintOp(*op, indent);
}

void OpPrinter::Region(const ir::Region& r, int indent, bool print_entry_label) {
  out.append("{\n");
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const ir::Block& b = *r.blocks[i];
    NameBlockArgs(b);
    if (i > 0 || (print_entry_label && !b.args.empty())) BlockHeader(b, i, indent);
    Block(b, indent + 2);
  }
  Indent(indent);
  out.push_back('}');
}

void OpPrinter::Generic(const Operation& op, int indent) {
  AppendEscaped(&out, op.name());
  out.append("(");
  Operands(op);
  out.push_back(')');
  if (!op.regions.empty()) {
    bool isolated = op.code == OpCode::kFunc || op.code == OpCode::kModule;
    int saved_arg = next_arg_, saved_val = next_value_;
    if (isolated) next_arg_ = next_value_ = 0;
    out.append(" (");
    for (size_t i = 0; i < op.regions.size(); ++i) {
      if (i) out.append(", ");
      Region(*op.regions[i], indent, true);
    }
    out.push_back(')');
    if (isolated) {
      next_arg_ = saved_arg;
      next_value_ = saved_val;
    }
  }
  AttrDict(op, {});
  out.append(" : ");
  FunctionalType(op);
}

bool OpPrinter::PrettyOperands(const Operation& op) {
  const OpInfo& info = GetOpInfo(op.code);
  if (!op.regions.empty()) return false;
  // Keyword attributes must all be present in the form the keyword syntax writes.
  std::vector<std::string_view> elided;
  std::string kw_text;
  std::string_view specs = info.keywords;
  bool first_kw = true;
  while (!specs.empty()) {
    size_t sp = specs.find(' ');
    std::string_view item = specs.substr(0, sp);
    specs = sp == std::string_view::npos ? std::string_view() : specs.substr(sp + 1);
    size_t eq = item.find('='), sl = item.find('/');
    std::string_view key = item.substr(0, eq), attr = item.substr(eq + 1, sl - eq - 1);
    std::string_view kind = item.substr(sl + 1);
    std::string value;
    if (kind == "f") {
      int64_t e, m;
      if (!GetInt(op.attr("exponent_bits"), &e) || !GetInt(op.attr("mantissa_bits"), &m) ||
          e < 0 || m < 0 || e > 999999999 || m > 999999999 ||
          op.attr("exponent_bits").kind() != AttrKind::kInteger ||
          op.attr("mantissa_bits").kind() != AttrKind::kInteger ||
          op.attr("exponent_bits")->type.elem() != ElemKind::kI32 ||
          op.attr("mantissa_bits")->type.elem() != ElemKind::kI32)
        return false;
      value = StrCat("e", e, "m", m);
      elided.push_back("exponent_bits");
      elided.push_back("mantissa_bits");
    } else {
      Attribute a = op.attr(attr);
      if (!a) continue;  // optional keyword
      switch (kind[0]) {
        case 'a':
          if (a.kind() != AttrKind::kDenseArray || !a->floats.empty() ||
              a->type.elem() != ElemKind::kI64)
            return false;
          AppendI64List(&value, a->ints);
          break;
        case 'i':
          if (a.kind() != AttrKind::kInteger || a->type.elem() != ElemKind::kI64) return false;
          value = StrCat(a->int_value);
          break;
        case 'd':
          if (a.kind() != AttrKind::kFloat || a->type.elem() != ElemKind::kF64) return false;
          value = FormatFloat(a->float_value, ElemKind::kF64);
          break;
        case 's':
          if (a.kind() != AttrKind::kString) return false;
          AppendEscaped(&value, a->str);
          break;
        case 'b':
          if (a.kind() != AttrKind::kBool) return false;
          value = a->int_value ? "true" : "false";
          break;
        case 'p':
          if (a.kind() != AttrKind::kArray) return false;
          value = "[";
          for (size_t i = 0; i < a->elements.size(); ++i) {
            const Attribute& e = a->elements[i];
            if (e.kind() != AttrKind::kEnum || e->enum_name != "stablehlo.precision") return false;
            StrAppend(&value, i ? ", " : "", e->str);
          }
          value += "]";
          break;
        case 'e':
          if (a.kind() != AttrKind::kEnum ||
              a->enum_name != StrCat("stablehlo.", kind.substr(2)))
            return false;
          value = a->str;
          break;
        default:
          return false;
      }
      elided.push_back(attr);
    }
    StrAppend(&kw_text, (first_kw && op.operands.empty()) ? "" : ", ", key, " = ", value);
    first_kw = false;
  }
  out.append(op.name());
  if (!op.operands.empty()) out.push_back(' ');
  Operands(op);
  if (!kw_text.empty()) {
    if (op.operands.empty()) out.push_back(' ');
    out.append(kw_text);
  }
  AttrDict(op, elided);
  TypeSig(op);
  return true;
}

bool OpPrinter::PrettyConvolution(const Operation& op) {
  if (op.operands.size() != (op.code == OpCode::kDynamicConv ? 3u : 2u)) return false;
  std::string dims;
  Attribute dn = op.attr("dimension_numbers");
  if (!dn || dn.kind() != AttrKind::kStruct || !AppendConvDims(&dims, dn)) return false;
  std::string window;
  auto list_field = [&](const char* attr, const char* key) {
    Attribute a = op.attr(attr);
    if (!a) return true;
    std::vector<int64_t> v;
    if (a.kind() != AttrKind::kDenseArray || !GetI64List(a, &v)) return false;
    StrAppend(&window, window.empty() ? "" : ", ", key, " = ");
    AppendI64List(&window, v);
    return true;
  };
  if (!list_field("window_strides", "stride")) return false;
  if (Attribute p = op.attr("padding")) {
    std::vector<int64_t> v;
    if (p.kind() != AttrKind::kDenseElements || p->type.rank() != 2 || p->type.shape()[1] != 2 ||
        !p->type.element_type().IsElement() || p->type.element_type().elem() != ElemKind::kI64 ||
        !GetI64List(p, &v))
      return false;
    StrAppend(&window, window.empty() ? "" : ", ", "pad = [");
    for (size_t i = 0; i + 1 < v.size(); i += 2)
      StrAppend(&window, i ? ", " : "", "[", v[i], ", ", v[i + 1], "]");
    window += "]";
  }
  if (!list_field("lhs_dilation", "lhs_dilate") || !list_field("rhs_dilation", "rhs_dilate"))
    return false;
  if (Attribute r = op.attr("window_reversal")) {
    if (r.kind() != AttrKind::kDenseArray || r->type.elem() != ElemKind::kI1) return false;
    StrAppend(&window, window.empty() ? "" : ", ", "reverse = [");
    for (size_t i = 0; i < r->ints.size(); ++i)
      StrAppend(&window, i ? ", " : "", r->ints[i] ? "true" : "false");
    window += "]";
  }
  StrAppend(&out, op.name(), "(", Name(op.operands[0]), ", ", Name(op.operands[1]),
            op.operands.size() > 2 ? StrCat(", ", Name(op.operands[2])) : std::string(),
            ") dim_numbers = ", dims, ", window = {", window, "}");
  AttrDict(op, {"dimension_numbers", "window_strides", "padding", "lhs_dilation", "rhs_dilation",
                "window_reversal"});
  TypeSig(op);
  return true;
}

bool OpPrinter::PrettyReduce(const Operation& op, int indent) {
  size_t n = op.operands.size() / 2;
  if (op.operands.size() % 2 != 0 || n == 0 || op.regions.size() != 1 ||
      op.regions[0]->blocks.size() != 1)
    return false;
  const ir::Block& b = *op.regions[0]->blocks[0];
  if (b.args.size() != 2 * n) return false;
  Attribute dims = op.attr("dimensions");
  std::vector<int64_t> dv;
  if (!dims || dims.kind() != AttrKind::kDenseArray || !GetI64List(dims, &dv)) return false;
  out.append(op.name());
  for (size_t i = 0; i < n; ++i)
    StrAppend(&out, i ? ", " : "", "(", Name(op.operands[i]), " init: ",
                    Name(op.operands[n + i]), ")");
  // The compact form: one input, body = one binary op on (arg0, arg1) and its return.
  bool compact = false;
  if (n == 1 && b.ops.size() == 2) {
    const Operation& f = *b.ops[0];
    const Operation& r = *b.ops[1];
    const OpInfo& fi = GetOpInfo(f.code);
    compact = f.code != OpCode::kUnknown && fi.syntax == OpSyntax::kOperands &&
              fi.min_operands == 2 && fi.max_operands == 2 && fi.type_rule == 'S' &&
              f.attrs.empty() && f.operands.size() == 2 && f.operands[0] == b.args[0].get() &&
              f.operands[1] == b.args[1].get() && f.num_results() == 1 &&
              f.result(0)->type == b.args[0]->type && b.args[0]->type == b.args[1]->type &&
              b.args[0]->type == op.operands[1]->type && r.code == OpCode::kReturn &&
              r.operands.size() == 1 && r.operands[0] == f.result(0) && r.attrs.empty();
  }
  if (compact) StrAppend(&out, " applies ", b.ops[0]->name());
  out.append(" across dimensions = ");
  AppendI64List(&out, dv);
  AttrDict(op, {"dimensions"});
  TypeSig(op);
  if (compact) return true;
  NameBlockArgs(b);
  out.append("\n");
  Indent(indent + 1);
  out.append(" reducer");
  for (size_t i = 0; i < n; ++i) {
    const Value* a = b.args[i].get();
    const Value* c = b.args[n + i].get();
    StrAppend(&out, "(", Name(a), ": ", PrintType(a->type), ", ", Name(c), ": ",
                    PrintType(c->type), ") ");
  }
  out.append("{\n");
  Block(b, indent + 4);
  Indent(indent + 2);
  out.push_back('}');
  return true;
}

bool OpPrinter::PrettyWhile(const Operation& op, int indent) {
  if (op.operands.empty() || op.regions.size() != 2 || op.num_results() != op.operands.size())
    return false;
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (op.result(i)->type != op.operands[i]->type) return false;
  for (const auto& r : op.regions) {
    if (r->blocks.size() != 1 || r->blocks[0]->args.size() != op.operands.size()) return false;
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (r->blocks[0]->args[i]->type != op.operands[i]->type) return false;
  }
  std::vector<std::string> iter;
  for (size_t i = 0; i < op.operands.size(); ++i) iter.push_back(StrCat("%iterArg", next_iter_++));
  out.append(op.name());
  out.push_back('(');
  for (size_t i = 0; i < op.operands.size(); ++i)
    StrAppend(&out, i ? ", " : "", iter[i], " = ", Name(op.operands[i]));
  out.append(") : ");
  for (size_t i = 0; i < op.operands.size(); ++i) {
    if (i) out.append(", ");
    AppendType(&out, op.operands[i]->type);
  }
  AttrDict(op, {}, " attributes ");
  const char* kw[2] = {"cond", "do"};
  for (int r = 0; r < 2; ++r) {
    const ir::Block& b = *op.regions[r]->blocks[0];
    for (size_t i = 0; i < b.args.size(); ++i) names_[b.args[i].get()] = iter[i];
    if (r == 0) {
      out.append("\n");
      Indent(indent + 2);
    } else {
      out.push_back(' ');
    }
    StrAppend(&out, kw[r], " {\n");
    Block(b, indent + 2);
    Indent(indent);
    out.push_back('}');
  }
  return true;
}

// The stripped spellings of Shardy's attributes: the text inside #sdy.sharding_per_value<...>,
// after #sdy<manual_axes ... >; empty when `a` is not that attribute.
static std::string_view SdyStripped(const Attribute& a, std::string_view prefix) {
  if (!a || a.kind() != AttrKind::kOpaque || !a->str.starts_with(prefix) || !a->str.ends_with(">"))
    return {};
  return std::string_view(a->str).substr(prefix.size(), a->str.size() - prefix.size() - 1);
}

bool OpPrinter::PrettySdyComputation(const Operation& op, int indent) {
  const bool manual = op.code == OpCode::kSdyManualComputation;
  Attribute name = op.attr("name");
  if (op.regions[0]->blocks.size() != 1 || (!manual && (!name || name.kind() != AttrKind::kString)))
    return false;
  std::vector<std::string_view> elided = {"in_shardings", "out_shardings"};
  std::string head(op.name());
  if (!manual) {
    head.push_back('<');
    AppendEscaped(&head, name->str);
    head.push_back('>');
    elided.push_back("name");
  }
  head.push_back('(');
  for (size_t i = 0; i < op.operands.size(); ++i) StrAppend(&head, i ? ", " : "", Name(op.operands[i]));
  head.push_back(')');
  for (const char* key : {"in_shardings", "out_shardings"}) {
    Attribute a = op.attr(key);
    std::string_view body = SdyStripped(a, "#sdy.sharding_per_value<");
    if (a ? body.empty() : manual) return false;
    if (a) StrAppend(&head, " ", key, "=", body);
  }
  if (manual) {
    std::string_view axes = SdyStripped(op.attr("manual_axes"), "#sdy<manual_axes");
    if (axes.empty()) return false;
    StrAppend(&head, " manual_axes=", axes);
    elided.push_back("manual_axes");
  }
  out.append(head);
  const ir::Block& b = *op.regions[0]->blocks[0];
  NameBlockArgs(b);
  out.append(" (");
  for (size_t i = 0; i < b.args.size(); ++i) {
    StrAppend(&out, i ? ", " : "", Name(b.args[i].get()), ": ");
    AppendType(&out, b.args[i]->type);
  }
  out.append(") {\n");
  Block(b, indent + 2);
  Indent(indent);
  out.push_back('}');
  AttrDict(op, elided);
  out.append(" : ");
  FunctionalType(op);
  return true;
}

// chlo.scan(%inputs) inits(%carries) dimension=N [attributes {...}] {body} : (...) -> (...), when
// the segment sizes split the operands and results as the pretty form does.
bool OpPrinter::PrettyScan(const Operation& op, int indent) {
  std::vector<int64_t> in_seg, out_seg;
  int64_t dim;
  if (op.regions.size() != 1 || !GetI64List(op.attr("operandSegmentSizes"), &in_seg) ||
      !GetI64List(op.attr("resultSegmentSizes"), &out_seg) || in_seg.size() != 2 || out_seg.size() != 2 ||
      in_seg[0] < 0 || in_seg[1] < 0 || in_seg[0] + in_seg[1] != static_cast<int64_t>(op.operands.size()) ||
      out_seg[1] != in_seg[1] || out_seg[0] + out_seg[1] != static_cast<int64_t>(op.num_results()) ||
      !GetInt(op.attr("dimension"), &dim) || dim < 0)
    return false;
  const size_t n = static_cast<size_t>(in_seg[0]);
  StrAppend(&out, op.name(), "(");
  Operands(op, 0, n);
  out.append(") inits(");
  Operands(op, n);
  StrAppend(&out, ") dimension=", dim);
  AttrDict(op, {"dimension", "operandSegmentSizes", "resultSegmentSizes"}, " attributes ");
  out.push_back(' ');
  Region(*op.regions[0], indent, true);
  out.append(" : ");
  FunctionalType(op);
  return true;
}

bool OpPrinter::PrettySdyKeyword(const Operation& op) {
  const bool group = op.code == OpCode::kSdyShardingGroup;
  std::string value;
  if (group) {
    int64_t id;
    if (!GetInt(op.attr("group_id"), &id)) return false;
    value = StrCat(id);
  } else {
    value = std::string(SdyStripped(op.attr("allowed_direction"), "#sdy<propagation_direction "));
    // Only the directions the pretty form can spell (the generic attribute may hold anything,
    // which then prints generically and parses back as it was).
    if (value != "FORWARD" && value != "BACKWARD" && value != "NONE") return false;
  }
  if (!group && op.result(0)->type != op.operands[0]->type) return false;
  const char* key = group ? "group_id" : "allowed_direction";
  StrAppend(&out, op.name(), " ", Name(op.operands[0]), " ", key, "=", value);
  AttrDict(op, {key});
  out.append(" : ");
  AppendType(&out, op.operands[0]->type);
  return true;
}

bool OpPrinter::PrettyFunc(const Operation& op, int indent) {
  Attribute name = op.attr("sym_name");
  Type ft = FuncType(op);
  if (!name || name.kind() != AttrKind::kString || !ft || ft.kind() != TypeKind::kFunction)
    return false;
  Attribute vis = op.attr("sym_visibility");
  // The pretty form spells visibility as a keyword; anything else prints generically.
  if (vis && (vis.kind() != AttrKind::kString ||
              (vis->str != "public" && vis->str != "private" && vis->str != "nested")))
    return false;
  Attribute arg_attrs = op.attr("arg_attrs"), res_attrs = op.attr("res_attrs");
  auto dict_at = [](const Attribute& list, size_t i) -> Attribute {
    if (!list || list.kind() != AttrKind::kArray || i >= list->elements.size()) return {};
    const Attribute& d = list->elements[i];
    if (d.kind() != AttrKind::kDictionary || d->fields.empty()) return {};
    return d;
  };
  if (arg_attrs && (arg_attrs.kind() != AttrKind::kArray ||
                    arg_attrs->elements.size() != ft.inputs().size()))
    return false;
  if (res_attrs && (res_attrs.kind() != AttrKind::kArray ||
                    res_attrs->elements.size() != ft.results().size()))
    return false;
  const ir::Block* entry = nullptr;
  if (!op.regions.empty()) {
    if (op.regions.size() != 1 || op.regions[0]->blocks.empty()) return false;
    entry = op.regions[0]->blocks[0].get();
    if (entry->args.size() != ft.inputs().size()) return false;
    for (size_t i = 0; i < entry->args.size(); ++i)
      if (entry->args[i]->type != ft.inputs()[i]) return false;
  }
  int saved_arg = next_arg_, saved_val = next_value_, saved_iter = next_iter_;
  next_arg_ = next_value_ = next_iter_ = 0;
  out.append("func.func ");
  if (vis) StrAppend(&out, vis->str, " ");
  AppendSymbol(&out, name->str);
  out.push_back('(');
  if (entry) NameBlockArgs(*entry);
  for (size_t i = 0; i < ft.inputs().size(); ++i) {
    if (i) out.append(", ");
    if (entry) StrAppend(&out, Name(entry->args[i].get()), ": ");
    AppendType(&out, ft.inputs()[i]);
    if (Attribute d = dict_at(arg_attrs, i)) StrAppend(&out, " ", PrintAttribute(d));
  }
  out.push_back(')');
  auto results = ft.results();
  bool any_res_attr = false;
  for (size_t i = 0; i < results.size(); ++i) any_res_attr |= bool(dict_at(res_attrs, i));
  if (!results.empty()) {
    out.append(" -> ");
    bool parens = results.size() != 1 || any_res_attr || results[0].kind() == TypeKind::kFunction;
    if (parens) out.push_back('(');
    for (size_t i = 0; i < results.size(); ++i) {
      if (i) out.append(", ");
      AppendType(&out, results[i]);
      if (Attribute d = dict_at(res_attrs, i)) StrAppend(&out, " ", PrintAttribute(d));
    }
    if (parens) out.push_back(')');
  }
  AttrDict(op, {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"},
           " attributes ");
  if (entry) {
    out.append(" {\n");
    for (size_t i = 0; i < op.regions[0]->blocks.size(); ++i) {
      const ir::Block& b = *op.regions[0]->blocks[i];
      if (i > 0) {
        NameBlockArgs(b);
        BlockHeader(b, i, indent);
      }
      Block(b, indent + 2);
    }
    Indent(indent);
    out.push_back('}');
  }
  next_arg_ = saved_arg;
  next_value_ = saved_val;
  next_iter_ = saved_iter;
  return true;
}

bool OpPrinter::Pretty(const Operation& op, int indent) {
  const OpInfo& info = GetOpInfo(op.code);
  if (op.code == OpCode::kUnknown) return false;
  // Pretty forms assume the table's counts; an op the verifier never saw (inside an unknown
  // op's region, or with --no-verify) may break them, and only the generic form is faithful.
  const int nops = static_cast<int>(op.operands.size());
  if ((info.num_results >= 0 && static_cast<int>(op.num_results()) != info.num_results) ||
      (info.num_regions >= 0 && op.code != OpCode::kFunc &&  // declarations have no body
       static_cast<int>(op.regions.size()) != info.num_regions) ||
      nops < info.min_operands || (info.max_operands >= 0 && nops > info.max_operands))
    return false;
  auto need_regions = [&](size_t n) { return op.regions.size() == n; };
  switch (info.syntax) {
    case OpSyntax::kGeneric:
      return false;
    case OpSyntax::kOperands: {
      if (!need_regions(0)) return false;
      if (op.code == OpCode::kReturn || op.code == OpCode::kFuncReturn || op.code == OpCode::kSdyReturn) {
        if (!op.attrs.empty()) return false;
        out.append(op.code == OpCode::kFuncReturn ? "return" : op.name());
        if (!op.operands.empty()) {
          out.push_back(' ');
          Operands(op);
          TypeSig(op);
        }
        return true;
      }
      return PrettyOperands(op);
    }
    case OpSyntax::kCompare: {
      Attribute dir = op.attr("comparison_direction"), ct = op.attr("compare_type");
      if (!need_regions(0) || op.operands.size() != 2 || !dir || dir.kind() != AttrKind::kEnum ||
          (ct && ct.kind() != AttrKind::kEnum))
        return false;
      StrAppend(&out, op.name(), " ", dir->str, ", ", Name(op.operands[0]), ", ",
                      Name(op.operands[1]));
      if (ct) StrAppend(&out, ", ", ct->str);
      AttrDict(op, {"comparison_direction", "compare_type"});
      TypeSig(op);
      return true;
    }
    case OpSyntax::kConstant: {
      Attribute v = op.attr("value");
      if (!v || v.kind() != AttrKind::kDenseElements || op.num_results() != 1 ||
          v->type != op.result(0)->type || !op.operands.empty() || !need_regions(0))
        return false;
      out.append(op.name());
      AttrDict(op, {"value"});
      out.push_back(' ');
      AppendAttr(&out, v);
      return true;
    }
    case OpSyntax::kSlice: {
      std::vector<int64_t> s, l, st;
      if (op.operands.size() != 1 || !need_regions(0) ||
          !GetI64List(op.attr("start_indices"), &s) || !GetI64List(op.attr("limit_indices"), &l) ||
          !GetI64List(op.attr("strides"), &st) || s.size() != l.size() || s.size() != st.size())
        return false;
      for (const char* n : {"start_indices", "limit_indices", "strides"})
        if (op.attr(n).kind() != AttrKind::kDenseArray) return false;
      StrAppend(&out, op.name(), " ", Name(op.operands[0]), " [");
      for (size_t i = 0; i < s.size(); ++i) {
        StrAppend(&out, i ? ", " : "", s[i], ":", l[i]);
        if (st[i] != 1) StrAppend(&out, ":", st[i]);
      }
      out.push_back(']');
      AttrDict(op, {"start_indices", "limit_indices", "strides"});
      TypeSig(op);
      return true;
    }
    case OpSyntax::kDotGeneral: {
      Attribute dn = op.attr("dot_dimension_numbers");
      if (op.operands.size() != 2 || !need_regions(0) || !dn || dn.kind() != AttrKind::kStruct ||
          dn->str != "stablehlo.dot")
        return false;
      std::vector<int64_t> lb, rb, lc, rc;
      for (const auto& [k, v] : dn->fields) {
        std::vector<int64_t>* dst = k == "lhs_batching_dimensions"      ? &lb
                                    : k == "rhs_batching_dimensions"    ? &rb
                                    : k == "lhs_contracting_dimensions" ? &lc
                                    : k == "rhs_contracting_dimensions" ? &rc
                                                                        : nullptr;
        if (!dst || v.kind() != AttrKind::kDenseArray || !GetI64List(v, dst)) return false;
      }
      // The pretty form drops empty lists, so only print it when that loses nothing.
      for (const auto& [k, v] : dn->fields)
        if (v->ints.empty()) return false;
      Attribute prec = op.attr("precision_config"), alg = op.attr("algorithm");
      if (prec) {
        if (prec.kind() != AttrKind::kArray) return false;
        for (const auto& e : prec->elements)
          if (e.kind() != AttrKind::kEnum || e->enum_name != "stablehlo.precision") return false;
      }
      if (alg && (alg.kind() != AttrKind::kStruct || alg->str != "stablehlo.dot_algorithm"))
        return false;
      StrAppend(&out, op.name(), " ", Name(op.operands[0]), ", ", Name(op.operands[1]));
      if (!lb.empty() || !rb.empty()) {
        out.append(", batching_dims = ");
        AppendI64List(&out, lb);
        out.append(" x ");
        AppendI64List(&out, rb);
      }
      out.append(", contracting_dims = ");
      AppendI64List(&out, lc);
      out.append(" x ");
      AppendI64List(&out, rc);
      if (prec) {
        out.append(", precision = [");
        for (size_t i = 0; i < prec->elements.size(); ++i)
          StrAppend(&out, i ? ", " : "", prec->elements[i]->str);
        out.push_back(']');
      }
      if (alg) {
        std::string a = PrintAttribute(alg);
        StrAppend(&out, ", algorithm = ", a.substr(a.find('<')));
      }
      AttrDict(op, {"dot_dimension_numbers", "precision_config", "algorithm"});
      TypeSig(op);
      return true;
    }
    case OpSyntax::kConvolution:
      return need_regions(0) && PrettyConvolution(op);
    case OpSyntax::kReduce:
      return PrettyReduce(op, indent);
    case OpSyntax::kWhile:
      return PrettyWhile(op, indent);
    case OpSyntax::kGetTupleElement: {
      Attribute idx = op.attr("index");
      if (op.operands.size() != 1 || !need_regions(0) || !idx || idx.kind() != AttrKind::kInteger ||
          idx->type.elem() != ElemKind::kI32 || idx->int_value < 0)
        return false;
      StrAppend(&out, op.name(), " ", Name(op.operands[0]), "[", idx->int_value, "]");
      AttrDict(op, {"index"});
      TypeSig(op);
      return true;
    }
    case OpSyntax::kCustomCall:
    case OpSyntax::kCall: {
      const char* key = info.syntax == OpSyntax::kCall ? "callee" : "call_target_name";
      Attribute t = op.attr(key);
      if (!need_regions(0) || !t) return false;
      std::string target;
      if (info.syntax == OpSyntax::kCall) {
        if (t.kind() != AttrKind::kSymbolRef || t->symbols.size() != 1) return false;
        target = t->symbols[0];
      } else {
        if (t.kind() != AttrKind::kString) return false;
        target = t->str;
      }
      out.append(info.syntax == OpSyntax::kCall ? "call" : op.name());
      out.push_back(' ');
      AppendSymbol(&out, target);
      out.push_back('(');
      Operands(op);
      out.push_back(')');
      AttrDict(op, {key});
      out.append(" : ");
      FunctionalType(op);
      return true;
    }
    case OpSyntax::kComposite: {
      Attribute n = op.attr("name");
      if (!need_regions(0) || !n || n.kind() != AttrKind::kString) return false;
      out.append(op.name());
      out.push_back(' ');
      AppendEscaped(&out, n->str);
      if (!op.operands.empty()) out.push_back(' ');
      Operands(op);
      AttrDict(op, {"name"});
      out.append(" : ");
      FunctionalType(op);
      return true;
    }
    case OpSyntax::kFunc:
      return PrettyFunc(op, indent);
    case OpSyntax::kModule: {
      if (op.regions.size() != 1 || op.regions[0]->blocks.size() != 1) return false;
      Attribute n = op.attr("sym_name");
      if (n && (n.kind() != AttrKind::kString || !IsBareId(n->str))) return false;
      out.append("module");
      if (n) StrAppend(&out, " @", n->str);
      AttrDict(op, {"sym_name"}, " attributes ");
      out.append(" {\n");
      int saved_arg = next_arg_, saved_val = next_value_;
      next_arg_ = next_value_ = 0;
      Block(*op.regions[0]->blocks[0], indent + 2);
      next_arg_ = saved_arg;
      next_value_ = saved_val;
      Indent(indent);
      out.push_back('}');
      return true;
    }
    case OpSyntax::kTopK: {
      int64_t k;
      Attribute rt = op.attr("recall_target");
      if (op.operands.size() != 1 || !need_regions(0) || !GetInt(op.attr("k"), &k) ||
          (rt && rt.kind() != AttrKind::kFloat))
        return false;
      StrAppend(&out, op.name(), "(", Name(op.operands[0]), ", k = ", k);
      if (rt) StrAppend(&out, ", recall_target = ", FormatFloat(rt->float_value, ElemKind::kF32));
      out.push_back(')');
      AttrDict(op, {"k", "recall_target"});
      out.append(" : ");
      FunctionalType(op);
      return true;
    }
    case OpSyntax::kCheckConst: {
      Attribute v = op.attr("value");
      if (op.operands.size() != 1 || !need_regions(0) || !v || v.kind() != AttrKind::kDenseElements ||
          v->type != op.operands[0]->type)
        return false;
      std::string lit = PrintAttribute(v);
      lit = lit.substr(0, lit.rfind(" : "));
      StrAppend(&out, op.name(), " ", Name(op.operands[0]), ", ", lit);
      Attribute tol = op.attr("tolerance");
      bool tol_kw = tol && tol.kind() == AttrKind::kFloat && tol->type.elem() == ElemKind::kF64;
      if (tol_kw) StrAppend(&out, ", tolerance = ", FormatFloat(tol->float_value, ElemKind::kF64));
      if (tol_kw) {
        AttrDict(op, {"value", "tolerance"});
      } else {
        AttrDict(op, {"value"});
      }
      out.append(" : ");
      AppendType(&out, op.operands[0]->type);
      return true;
    }
    case OpSyntax::kSdyValueSharding: {
      Attribute sh = op.attr("sharding");
      if (op.operands.size() != 1 || op.num_results() != 1 || !need_regions(0) || !sh ||
          sh.kind() != AttrKind::kOpaque || sh->str.rfind("#sdy.sharding<", 0) != 0 ||
          op.result(0)->type != op.operands[0]->type)
        return false;
      StrAppend(&out, op.name(), " ", Name(op.operands[0]), " ", std::string_view(sh->str).substr(13));
      AttrDict(op, {"sharding"});
      out.append(" : ");
      AppendType(&out, op.operands[0]->type);
      return true;
    }
    case OpSyntax::kSdyComputation:
      return PrettySdyComputation(op, indent);
    case OpSyntax::kScan:
      return PrettyScan(op, indent);
    case OpSyntax::kSdyKeyword:
      return PrettySdyKeyword(op);
    case OpSyntax::kSdyMesh: {
      Attribute n = op.attr("sym_name"), m = op.attr("mesh");
      if (!n || n.kind() != AttrKind::kString || !m || m.kind() != AttrKind::kOpaque ||
          !IsBareId(n->str) || m->str.rfind("#sdy.mesh<", 0) != 0)
        return false;
      StrAppend(&out, op.name(), " @", n->str, " = ", std::string_view(m->str).substr(9));
      AttrDict(op, {"sym_name", "mesh"});
      return true;
    }
  }
  return false;
}

void OpPrinter::PrintOp(const Operation& op, int indent) {
  Indent(indent);
  if (op.num_results() > 0) {
    std::string base = StrCat("%", next_value_++);
    if (op.num_results() == 1) {
      names_[op.result(0)] = base;
      out.append(base);
    } else {
      for (size_t i = 0; i < op.num_results(); ++i) names_[op.result(i)] = StrCat(base, "#", i);
      StrAppend(&out, base, ":", op.num_results());
    }
    out.append(" = ");
  }
  size_t mark = out.size();
  int saved_arg = next_arg_, saved_val = next_value_, saved_iter = next_iter_;
  bool done = false;
  if (!opts_.generic) done = Pretty(op, indent);
  if (!done) {
    // The pretty printer may have written part of the op before giving up.
    out.resize(mark);
    next_arg_ = saved_arg;
    next_value_ = saved_val;
    next_iter_ = saved_iter;
    Generic(op, indent);
  }
  out.push_back('\n');
}

}  // namespace

std::string PrintModule(const Module& m, const PrintOptions& options) {
  OpPrinter p(options);
  p.PrintOp(*m.op, 0);
  return std::move(p.out);
}

std::string PrintOperation(const Operation& op, const PrintOptions& options) {
  OpPrinter p(options);
  p.PrintOp(op, 0);
  return std::move(p.out);
}

}  // namespace openpjrt::ir
