// The verifier's walk and the structural checks every op shares (counts from the op table,
// functions, calls, regions).
#include "src/ir/verifier.h"

#include <set>

#include "src/support/str.h"
#include "src/ir/printer.h"
#include "src/ir/verifier_impl.h"

namespace openpjrt::ir {

std::string TypeStr(Type t) { return t ? t.ToString() : "<none>"; }

bool DimsCompatible(int64_t a, int64_t b) { return a == kDynamic || b == kDynamic || a == b; }

std::string ListStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) StrAppend(&s, i ? ", " : "", v[i]);
  return s + "]";
}

void Verifier::Fail(const Operation& op, const std::string& msg) const {
  throw VerifyError(StrCat(m_.source_name, ":", op.loc.line, ":", op.loc.col, ": error: '",
                                 op.name(), "' op ", msg));
}

Type Verifier::TensorOperand(const Operation& op, size_t i) const {
  if (i >= op.operands.size()) Fail(op, StrCat("expected operand #", i));
  Type t = op.operands[i]->type;
  if (!t.IsTensor()) Fail(op, StrCat("operand #", i, " must be a tensor, got ", TypeStr(t)));
  return t;
}

Type Verifier::TensorResult(const Operation& op, size_t i) const {
  if (i >= op.num_results()) Fail(op, StrCat("expected result #", i));
  Type t = op.result(i)->type;
  if (!t.IsTensor()) Fail(op, StrCat("result #", i, " must be a tensor, got ", TypeStr(t)));
  return t;
}

void Verifier::CheckSameElem(const Operation& op, Type a, Type b, const char* what) const {
  if (a.element_type() != b.element_type())
    Fail(op, StrCat(what, ": element types ", TypeStr(a.element_type()), " and ", TypeStr(b.element_type()),
                    " differ"));
}

void Verifier::CheckElem(const Operation& op, Type tensor, unsigned cats, const char* what) const {
  Type et = tensor.element_type();
  unsigned cat;
  if (et.IsQuant()) {
    cat = kCatQuant;
  } else {
    ElemKind k = et.elem();
    cat = k == ElemKind::kI1 ? kCatBool
          : IsInteger(k)     ? kCatInt
          : IsFloat(k)       ? kCatFloat
          : IsComplex(k)     ? unsigned{kCatComplex}
                             : 0u;
  }
  if (!(cat & cats)) {
    std::string allowed;
    auto add = [&](unsigned c, const char* n) {
      if (cats & c) StrAppend(&allowed, allowed.empty() ? "" : ", ", n);
    };
    add(kCatBool, "boolean");
    add(kCatInt, "integer");
    add(kCatFloat, "float");
    add(kCatComplex, "complex");
    add(kCatQuant, "quantized");
    Fail(op, StrCat(what, " must have ", allowed, " elements, got ", TypeStr(tensor)));
  }
}

void Verifier::CheckSameShape(const Operation& op, Type a, Type b, const char* what) const {
  bool ok = a.rank() == b.rank();
  for (int64_t i = 0; ok && i < a.rank(); ++i) ok = DimsCompatible(a.shape()[i], b.shape()[i]);
  if (!ok) Fail(op, StrCat(what, ": shapes of ", TypeStr(a), " and ", TypeStr(b), " differ"));
}

void Verifier::CheckCompatible(const Operation& op, Type a, Type b, const char* what) const {
  if (a == b) return;
  if (a.IsTensor() && b.IsTensor() && a.element_type() == b.element_type()) {
    CheckSameShape(op, a, b, what);
    return;
  }
  Fail(op, StrCat(what, ": ", TypeStr(a), " vs ", TypeStr(b)));
}

std::vector<int64_t> Verifier::I64List(const Operation& op, const char* attr, bool required) const {
  std::vector<int64_t> v;
  Attribute a = op.attr(attr);
  if (!a) {
    if (required) Fail(op, StrCat("requires attribute '", attr, "'"));
    return v;
  }
  if (!GetI64List(a, &v))
    Fail(op, StrCat("attribute '", attr, "' must be a list of integers, got ",
                          PrintAttribute(a)));
  return v;
}

int64_t Verifier::IntAttr(const Operation& op, const char* attr, bool required,
                          int64_t dflt) const {
  Attribute a = op.attr(attr);
  if (!a) {
    if (required) Fail(op, StrCat("requires attribute '", attr, "'"));
    return dflt;
  }
  int64_t v;
  if (!GetInt(a, &v))
    Fail(op, StrCat("attribute '", attr, "' must be an integer, got ", PrintAttribute(a)));
  return v;
}

Type Verifier::ScalarTensor(ElemKind k) const {
  return m_.ctx->Tensor({}, m_.ctx->Element(k));
}

void Verifier::CheckRegion(const Operation& op, size_t r, const std::vector<Type>& args,
                           const std::vector<Type>* returns, const char* what) const {
  if (r >= op.regions.size()) Fail(op, StrCat("is missing its ", what, " region"));
  const Region& region = *op.regions[r];
  if (region.blocks.size() != 1)
    Fail(op, StrCat(what, " region must have exactly one block"));
  const Block& b = *region.blocks[0];
  if (b.args.size() != args.size())
    Fail(op, StrCat(what, " region must take ", args.size(), " arguments, takes ",
                          b.args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] && b.args[i]->type != args[i])
      Fail(op, StrCat(what, " region argument #", i, " must be ", TypeStr(args[i]),
                            ", is ", TypeStr(b.args[i]->type)));
  const Operation* term = b.terminator();
  const bool sdy = op.code == OpCode::kSdyManualComputation || op.code == OpCode::kSdyNamedComputation;
  if (!term || (sdy ? term->code != OpCode::kSdyReturn
                    : term->code != OpCode::kReturn && term->code != OpCode::kFuncReturn))
    Fail(op, StrCat(what, " region must end with '", sdy ? "sdy" : "stablehlo", ".return'"));
  if (returns) {
    if (term->operands.size() != returns->size())
      Fail(op, StrCat(what, " region must return ", returns->size(), " values, returns ",
                            term->operands.size()));
    for (size_t i = 0; i < returns->size(); ++i)
      if ((*returns)[i] && term->operands[i]->type != (*returns)[i])
        Fail(op, StrCat(what, " region result #", i, " must be ", TypeStr((*returns)[i]),
                              ", is ", TypeStr(term->operands[i]->type)));
  }
}

void Verifier::VerifyOp(const Operation& op) {
  const OpInfo& info = GetOpInfo(op.code);
  if (op.code == OpCode::kUnknown) {
    std::string_view n = op.name();
    std::string_view dialect = n.substr(0, n.find('.'));
    if (dialect == "stablehlo" || dialect == "chlo" || dialect == "func" || dialect == "check")
      Fail(op, "is not a known operation");
  } else {
    int nops = static_cast<int>(op.operands.size());
    if (nops < info.min_operands || (info.max_operands >= 0 && nops > info.max_operands)) {
      std::string want = info.min_operands == info.max_operands
                             ? StrCat(info.min_operands)
                             : info.max_operands < 0
                                   ? StrCat("at least ", info.min_operands)
                                   : StrCat(info.min_operands, " to ", info.max_operands);
      Fail(op, StrCat("expects ", want, " operands, has ", nops));
    }
    if (info.num_results >= 0 && static_cast<int>(op.num_results()) != info.num_results)
      Fail(op, StrCat("expects ", info.num_results, " results, has ", op.num_results()));
    if (info.num_regions >= 0 && static_cast<int>(op.regions.size()) != info.num_regions &&
        !(op.code == OpCode::kFunc && op.regions.empty()))
      Fail(op, StrCat("expects ", info.num_regions, " regions, has ", op.regions.size()));
  }
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks)
      for (const auto& inner : b->ops) VerifyOp(*inner);
  if (op.code != OpCode::kUnknown) VerifyOpRules(op);
}

void Verifier::Run() {
  const Block* body = m_.body();
  if (!body) return;
  std::set<std::string_view> names;
  for (const auto& op : body->ops) {
    if (op->code != OpCode::kFunc && op->code != OpCode::kSdyMesh &&
        op->code != OpCode::kUnknown && op->code != OpCode::kReturn)
      Fail(*op, "must be inside a function");
    if (op->code == OpCode::kFunc) {
      std::string_view n = FuncName(*op);
      if (n.empty()) Fail(*op, "requires a 'sym_name' string attribute");
      if (!names.insert(n).second) Fail(*op, StrCat("redefines symbol '@", n, "'"));
      Type ft = FuncType(*op);
      if (!ft || ft.kind() != TypeKind::kFunction)
        Fail(*op, "requires a 'function_type' attribute holding a function type");
    }
  }
  VerifyOp(*m_.op);
}

absl::Status VerifyModule(const Module& m) {
  try {
    Verifier v(m);
    v.Run();
  } catch (const VerifyError& e) {
    return absl::InvalidArgumentError(e.what());
  }
  return absl::OkStatus();
}

}  // namespace openpjrt::ir
