// Structural matching of reducer regions (see region_patterns.h).
#include "src/compiler/region_patterns.h"

#include <cstring>
#include <string>

namespace openpjrt::compiler {
namespace {

using ir::OpCode;
using ir::Operation;
using ir::Value;

const Operation* Def(const Value* v, OpCode c) {
  return v && v->def && v->def->code == c ? v->def : nullptr;
}

// The direction of a compare op, or "" when it is not a plain (non-TOTALORDER) compare.
std::string Direction(const Operation& cmp) {
  ir::Attribute ct = cmp.attr("compare_type");
  if (ct && ct.kind() == ir::AttrKind::kEnum && ct->str == "TOTALORDER") return "";
  ir::Attribute dir = cmp.attr("comparison_direction");
  if (!dir || dir.kind() != ir::AttrKind::kEnum) return "";
  return dir->str;
}

std::string Mirrored(const std::string& d) {
  if (d == "GT") return "LT";
  if (d == "LT") return "GT";
  if (d == "GE") return "LE";
  if (d == "LE") return "GE";
  return d;  // EQ, NE
}

// v is compare(dir, a, b) for a direction in the sense (a, b); "" when not a compare of a and b.
std::string CompareOf(const Value* v, const Value* a, const Value* b) {
  const Operation* c = Def(v, OpCode::kCompare);
  if (!c || c->operands.size() != 2) return "";
  const std::string d = Direction(*c);
  if (c->operands[0] == a && c->operands[1] == b) return d;
  if (c->operands[0] == b && c->operands[1] == a) return Mirrored(d);
  return "";
}

// Calls f(x, y) and f(y, x) for the operands of a binary op of code c; true if either holds.
template <typename F>
bool EitherOrder(const Value* v, OpCode c, F&& f) {
  const Operation* op = Def(v, c);
  if (!op || op->operands.size() != 2) return false;
  return f(op->operands[0], op->operands[1]) || f(op->operands[1], op->operands[0]);
}

// p: compare DIR v1, v2, optionally or'ed with compare NE v1, v1.
bool MatchPick(const Value* p, const Value* v1, const Value* v2, cpu::ArgReducer* out) {
  auto direction = [&](const Value* c) {
    const std::string d = CompareOf(c, v1, v2);
    if (d != "GT" && d != "GE" && d != "LT" && d != "LE") return false;
    out->gt = d == "GT" || d == "GE";
    out->lt = d == "LT" || d == "LE";
    out->eq = d == "GE" || d == "LE";
    return true;
  };
  if (direction(p)) {
    out->nan = 0;
    return true;
  }
  return EitherOrder(p, OpCode::kOr, [&](const Value* a, const Value* b) {
    if (!direction(a) || CompareOf(b, v1, v1) != "NE") return false;
    out->nan = 1;
    return true;
  });
}

// The bits of a scalar float constant (an f32 or f64 stablehlo.constant), or false.
bool ConstantBits(const Value* v, uint64_t* bits, double* value) {
  const Operation* c = Def(v, OpCode::kConstant);
  if (!c) return false;
  ir::Attribute a = c->attr("value");
  if (!a || a.kind() != ir::AttrKind::kDenseElements || !a->data || !a->type.IsTensor() ||
      a->type.NumElements() != 1)
    return false;
  const ir::ElemKind k = a->type.element_type().elem();
  if ((k != ir::ElemKind::kF32 && k != ir::ElemKind::kF64) || a->data->size() < (k == ir::ElemKind::kF32 ? 4u : 8u))
    return false;
  *bits = 0;
  if (k == ir::ElemKind::kF32) {
    float f;
    std::memcpy(&f, a->data->data(), 4);
    std::memcpy(bits, &f, 4);
    *value = f;
  } else {
    std::memcpy(value, a->data->data(), 8);
    std::memcpy(bits, value, 8);
  }
  return true;
}

// key(x) as MatchSortKey describes it; *arg is x.
bool MatchKey(const Value* v, const Value** arg, cpu::SortKey* k) {
  k->canon_zero = k->canon_nan = false;
  double value = 0;
  // select(compare NE x, x; NaN; inner)
  if (const Operation* sel = Def(v, OpCode::kSelect); sel && sel->operands.size() == 3) {
    const Operation* ne = Def(sel->operands[0], OpCode::kCompare);
    if (ne && ne->operands.size() == 2 && ne->operands[0] == ne->operands[1] && Direction(*ne) == "NE" &&
        ConstantBits(sel->operands[1], &k->nan_bits, &value) && value != value) {
      k->canon_nan = true;
      v = sel->operands[2];
      *arg = ne->operands[0];
    }
  }
  // select(compare EQ x, 0; constant; x)
  if (const Operation* sel = Def(v, OpCode::kSelect); sel && sel->operands.size() == 3) {
    const Operation* eq = Def(sel->operands[0], OpCode::kCompare);
    uint64_t zero_bits = 0;
    if (!eq || eq->operands.size() != 2 || Direction(*eq) != "EQ" || eq->operands[0] != sel->operands[2] ||
        !ConstantBits(eq->operands[1], &zero_bits, &value) || value != 0 ||
        !ConstantBits(sel->operands[1], &k->zero_bits, &value))
      return false;
    k->canon_zero = true;
    v = sel->operands[2];
  }
  if (v->def || (k->canon_nan && *arg != v)) return false;  // x must be a block argument
  *arg = v;
  return true;
}

}  // namespace

bool MatchSortKey(const ir::Block& body, cpu::SortKey* out) {
  const Operation* ret = body.terminator();
  if (!ret || (ret->code != OpCode::kReturn && ret->code != OpCode::kFuncReturn) || ret->operands.size() != 1)
    return false;
  const Operation* cmp = Def(ret->operands[0], OpCode::kCompare);
  if (!cmp || cmp->operands.size() != 2) return false;
  ir::Attribute dir = cmp->attr("comparison_direction");
  if (!dir || dir.kind() != ir::AttrKind::kEnum || (dir->str != "LT" && dir->str != "GT")) return false;
  ir::Attribute ct = cmp->attr("compare_type");
  cpu::SortKey lhs, rhs;
  const Value *a = nullptr, *b = nullptr;
  if (!MatchKey(cmp->operands[0], &a, &lhs) || !MatchKey(cmp->operands[1], &b, &rhs)) return false;
  if (lhs.canon_zero != rhs.canon_zero || lhs.canon_nan != rhs.canon_nan || lhs.zero_bits != rhs.zero_bits ||
      lhs.nan_bits != rhs.nan_bits || a->block != &body || b->block != &body)
    return false;
  // Block argument 2k is operand k's element a, 2k + 1 its element b.
  if (a->index / 2 != b->index / 2 || a->index == b->index) return false;
  *out = lhs;
  out->operand = static_cast<int>(a->index / 2);
  out->less = (dir->str == "LT") == (a->index % 2 == 0);
  out->total_order = ct && ct.kind() == ir::AttrKind::kEnum && ct->str == "TOTALORDER";
  return true;
}

bool MatchArgReducer(const ir::Block& body, cpu::ArgReducer* out) {
  if (body.args.size() != 4) return false;
  const Value* v1 = body.args[0].get();
  const Value* i1 = body.args[1].get();
  const Value* v2 = body.args[2].get();
  const Value* i2 = body.args[3].get();
  const Operation* ret = body.terminator();
  if (!ret || (ret->code != OpCode::kReturn && ret->code != OpCode::kFuncReturn) || ret->operands.size() != 2)
    return false;
  const Operation* sv = Def(ret->operands[0], OpCode::kSelect);
  const Operation* si = Def(ret->operands[1], OpCode::kSelect);
  if (!sv || !si || sv->operands.size() != 3 || si->operands.size() != 3) return false;
  if (sv->operands[1] != v1 || sv->operands[2] != v2 || si->operands[1] != i1 || si->operands[2] != i2) return false;
  const Value* q = si->operands[0];
  const Value* p = nullptr;
  cpu::ArgReducer r;
  const bool q_ok = EitherOrder(q, OpCode::kOr, [&](const Value* pick, const Value* tie) {
    const bool tie_ok = EitherOrder(tie, OpCode::kAnd, [&](const Value* eq, const Value* lt) {
      return CompareOf(eq, v1, v2) == "EQ" && CompareOf(lt, i1, i2) == "LT";
    });
    if (!tie_ok || !MatchPick(pick, v1, v2, &r)) return false;
    p = pick;
    return true;
  });
  if (!q_ok) return false;
  if (sv->operands[0] == p) {
    r.by_q = 0;
  } else if (sv->operands[0] == q) {
    r.by_q = 1;
  } else {
    return false;
  }
  *out = r;
  return true;
}

}  // namespace openpjrt::compiler
