// Per-op rules from the StableHLO specification's "Constraints" sections.
#include <algorithm>
#include <numeric>
#include <set>

#include "src/support/str.h"
#include "src/ir/printer.h"
#include "src/ir/verifier_impl.h"

namespace openpjrt::ir {
namespace {

bool IsUnique(const std::vector<int64_t>& v) {
  std::set<int64_t> s(v.begin(), v.end());
  return s.size() == v.size();
}

bool InRange(const std::vector<int64_t>& v, int64_t lo, int64_t hi) {
  for (int64_t x : v)
    if (x < lo || x >= hi) return false;
  return true;
}

bool IsSorted(const std::vector<int64_t>& v) { return std::is_sorted(v.begin(), v.end()); }

bool IsEnum(const Attribute& a, std::string_view name, std::initializer_list<std::string_view> ok) {
  if (!a || a.kind() != AttrKind::kEnum || a->enum_name != name) return false;
  for (auto v : ok)
    if (a->str == v) return true;
  return false;
}

// Element type of a tensor, quantized types reduced to their storage kind for comparisons.
Type Elem(Type t) { return t.element_type(); }

// Equal types, or tensors that differ only where one has a dynamic dimension: calls and returns
// accept these, so a static value can be passed to a function written for dynamic sizes (shape
// refinement then specialises the callee).
bool ShapeCompatible(Type a, Type b) {
  if (a == b) return true;
  if (!a.IsTensor() || !b.IsTensor() || a.element_type() != b.element_type() || a.rank() != b.rank())
    return false;
  for (int64_t i = 0; i < a.rank(); ++i)
    if (!DimsCompatible(a.shape()[i], b.shape()[i])) return false;
  return true;
}

}  // namespace

void Verifier::VerifyOpRules(const Operation& op) {
  auto operand = [&](size_t i) { return TensorOperand(op, i); };
  auto result = [&](size_t i) { return TensorResult(op, i); };
  auto same_elem = [&](Type a, Type b, const char* what) {
    if (Elem(a) != Elem(b))
      Fail(op, StrCat(what, ": element types ", TypeStr(Elem(a)), " and ", TypeStr(Elem(b)),
                            " differ"));
  };
  // Elementwise ops whose operands and result share one type.
  auto elementwise = [&](unsigned cats) {
    Type r = result(0);
    for (size_t i = 0; i < op.operands.size(); ++i) {
      Type t = operand(i);
      CheckSameShape(op, t, r, "operand and result");
      same_elem(t, r, "operand and result");
    }
    CheckElem(op, r, cats, "operands");
  };
  const unsigned kFloatLike = kCatFloat | kCatComplex | kCatQuant;
  switch (op.code) {
    // ---- elementwise
    case OpCode::kAdd:
    case OpCode::kMultiply:
    case OpCode::kMaximum:
    case OpCode::kMinimum:
      elementwise(kCatAll);
      break;
    case OpCode::kSubtract:
    case OpCode::kDivide:
    case OpCode::kRemainder:
    case OpCode::kPower:
    case OpCode::kNegate:
    case OpCode::kSign:
      elementwise(kCatAnyNum);
      break;
    case OpCode::kAnd:
    case OpCode::kOr:
    case OpCode::kXor:
    case OpCode::kNot:
      elementwise(kCatBool | kCatInt);
      break;
    case OpCode::kShiftLeft:
    case OpCode::kShiftRightArithmetic:
    case OpCode::kShiftRightLogical:
    case OpCode::kPopcnt:
    case OpCode::kCountLeadingZeros:
      elementwise(kCatInt);
      break;
    case OpCode::kCeil:
    case OpCode::kFloor:
    case OpCode::kRoundNearestAfz:
    case OpCode::kRoundNearestEven:
    case OpCode::kAtan2:
    case OpCode::kCbrt:
      elementwise(kCatFloat | kCatQuant |
                  (op.code == OpCode::kAtan2 || op.code == OpCode::kCbrt ? unsigned{kCatComplex}
                                                                         : 0u));
      break;
    case OpCode::kCosine:
    case OpCode::kSine:
    case OpCode::kTan:
    case OpCode::kTanh:
    case OpCode::kExponential:
    case OpCode::kExponentialMinusOne:
    case OpCode::kLog:
    case OpCode::kLogPlusOne:
    case OpCode::kLogistic:
    case OpCode::kSqrt:
    case OpCode::kRsqrt:
      elementwise(kFloatLike);
      break;
    case OpCode::kAbs: {
      Type x = operand(0), r = result(0);
      CheckElem(op, x, kCatInt | kFloatLike, "operand");
      CheckSameShape(op, x, r, "operand and result");
      Type et = Elem(x);
      if (et.IsElement() && IsComplex(et.elem())) {
        if (!Elem(r).IsElement() || Elem(r).elem() != ComplexPart(et.elem()))
          Fail(op, "result of a complex abs must have the real part's element type");
      } else {
        same_elem(x, r, "operand and result");
      }
      break;
    }
    case OpCode::kReal:
    case OpCode::kImag: {
      Type x = operand(0), r = result(0);
      CheckElem(op, x, kCatFloat | kCatComplex, "operand");
      CheckSameShape(op, x, r, "operand and result");
      Type et = Elem(x);
      ElemKind want = IsComplex(et.elem()) ? ComplexPart(et.elem()) : et.elem();
      if (Elem(r) != m_.ctx->Element(want))
        Fail(op, StrCat("result element type must be ", ElemKindName(want)));
      break;
    }
    case OpCode::kComplex: {
      Type a = operand(0), b = operand(1), r = result(0);
      CheckSameShape(op, a, b, "operands");
      CheckSameShape(op, a, r, "operand and result");
      same_elem(a, b, "operands");
      CheckElem(op, a, kCatFloat, "operands");
      ElemKind k = Elem(a).elem();
      if ((k != ElemKind::kF32 && k != ElemKind::kF64) ||
          Elem(r) != m_.ctx->Element(k == ElemKind::kF32 ? ElemKind::kC64 : ElemKind::kC128))
        Fail(op, "operands must be f32 or f64 and the result the matching complex type");
      break;
    }
    case OpCode::kIsFinite: {
      Type x = operand(0), r = result(0);
      CheckElem(op, x, kCatFloat | kCatQuant, "operand");
      CheckSameShape(op, x, r, "operand and result");
      if (Elem(r) != m_.ctx->Element(ElemKind::kI1)) Fail(op, "result must have i1 elements");
      break;
    }
    case OpCode::kCompare: {
      Type a = operand(0), b = operand(1), r = result(0);
      CheckSameShape(op, a, b, "operands");
      CheckSameShape(op, a, r, "operand and result");
      same_elem(a, b, "operands");
      if (Elem(r) != m_.ctx->Element(ElemKind::kI1)) Fail(op, "result must have i1 elements");
      if (!IsEnum(op.attr("comparison_direction"), "stablehlo.comparison_direction",
                  {"EQ", "NE", "GE", "GT", "LE", "LT"}))
        Fail(op, "requires 'comparison_direction' to be one of EQ, NE, GE, GT, LE, LT");
      if (Attribute ct = op.attr("compare_type")) {
        if (!IsEnum(ct, "stablehlo.comparison_type",
                    {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}))
          Fail(op, "has an invalid 'compare_type'");
      }
      break;
    }
    case OpCode::kSelect: {
      Type p = operand(0), t = operand(1), f = operand(2), r = result(0);
      if (Elem(p) != m_.ctx->Element(ElemKind::kI1)) Fail(op, "pred must have i1 elements");
      if (p.rank() != 0) CheckSameShape(op, p, t, "pred and on_true");
      CheckCompatible(op, t, f, "on_true and on_false differ");
      CheckCompatible(op, t, r, "on_true and result differ");
      break;
    }
    case OpCode::kClamp: {
      Type mn = operand(0), x = operand(1), mx = operand(2), r = result(0);
      if (mn.rank() != 0) CheckSameShape(op, mn, x, "min and operand");
      if (mx.rank() != 0) CheckSameShape(op, mx, x, "max and operand");
      same_elem(mn, x, "min and operand");
      same_elem(mx, x, "max and operand");
      CheckCompatible(op, x, r, "operand and result differ");
      break;
    }
    case OpCode::kConvert: {
      Type x = operand(0), r = result(0);
      CheckSameShape(op, x, r, "operand and result");
      if (Elem(x).IsQuant() || Elem(r).IsQuant()) Fail(op, "does not convert quantized types");
      break;
    }
    case OpCode::kBitcastConvert: {
      Type x = operand(0), r = result(0);
      int bx = BitWidth(StorageKind(Elem(x))), br = BitWidth(StorageKind(Elem(r)));
      auto xs = x.shape(), rs = r.shape();
      if (bx == br) {
        CheckSameShape(op, x, r, "operand and result");
      } else if (bx > br) {
        if (r.rank() != x.rank() + 1 || rs.back() != bx / br || bx % br)
          Fail(op, StrCat("result must add a trailing dimension of ", bx / br));
        for (int64_t i = 0; i < x.rank(); ++i)
          if (!DimsCompatible(xs[i], rs[i])) Fail(op, "operand and result shapes differ");
      } else {
        if (x.rank() != r.rank() + 1 || xs.back() != br / bx || br % bx)
          Fail(op, StrCat("operand must have a trailing dimension of ", br / bx));
        for (int64_t i = 0; i < r.rank(); ++i)
          if (!DimsCompatible(xs[i], rs[i])) Fail(op, "operand and result shapes differ");
      }
      break;
    }
    case OpCode::kReducePrecision: {
      elementwise(kCatFloat | kCatQuant);
      int64_t e = IntAttr(op, "exponent_bits", true, 0), m = IntAttr(op, "mantissa_bits", true, 0);
      if (e < 1) Fail(op, StrCat("exponent_bits must be at least 1, is ", e));
      if (m < 0) Fail(op, StrCat("mantissa_bits must be non-negative, is ", m));
      break;
    }

    // ---- constants and shapes
    case OpCode::kConstant:
    case OpCode::kChloConstant: {
      Attribute v = op.attr("value");
      if (!v) Fail(op, "requires attribute 'value'");
      if (v.kind() != AttrKind::kDenseElements) Fail(op, "'value' must be a dense elements attribute");
      Type r = op.result(0)->type;
      if (v->type != r) {
        // A quantized result may hold its storage values.
        bool ok = r.IsTensor() && Elem(r).IsQuant() &&
                  Elem(v->type) == m_.ctx->Element(Elem(r).quant().storage);
        if (!ok) Fail(op, StrCat("value type ", TypeStr(v->type), " differs from result type ",
                                       TypeStr(r)));
      }
      break;
    }
    case OpCode::kIota:
    case OpCode::kDynamicIota: {
      Type r = result(0);
      int64_t d = IntAttr(op, "iota_dimension", true, 0);
      if (r.rank() == 0) Fail(op, "result must have rank at least 1");
      if (op.code == OpCode::kDynamicIota) {
        Type shape = operand(0);
        if (shape.rank() != 1 || (shape.HasStaticShape() && shape.shape()[0] != r.rank()))
          Fail(op, StrCat("output_shape ", TypeStr(shape), " must be a 1-D tensor of ", r.rank(), " sizes"));
      }
      if (d < 0 || d >= r.rank())
        Fail(op, StrCat("iota_dimension ", d, " is out of range for rank ", r.rank()));
      CheckElem(op, r, kCatInt | kFloatLike, "result");
      break;
    }
    case OpCode::kBroadcastInDim:
    case OpCode::kDynamicBroadcastInDim: {
      Type x = operand(0), r = result(0);
      auto dims = I64List(op, "broadcast_dimensions");
      same_elem(x, r, "operand and result");
      if (static_cast<int64_t>(dims.size()) != x.rank())
        Fail(op, StrCat("broadcast_dimensions has ", dims.size(),
                              " entries but the operand has rank ", x.rank()));
      if (!InRange(dims, 0, r.rank()))
        Fail(op, StrCat("broadcast_dimensions ", ListStr(dims), " out of range for rank ",
                              r.rank()));
      if (!IsUnique(dims)) Fail(op, StrCat("broadcast_dimensions ", ListStr(dims), " repeats"));
      for (size_t i = 0; i < dims.size(); ++i) {
        int64_t xd = x.shape()[i], rd = r.shape()[dims[i]];
        if (xd != 1 && xd != kDynamic && rd != kDynamic && xd != rd)
          Fail(op, StrCat("operand dimension ", i, " (", xd, ") is neither 1 nor result ",
                                "dimension ", dims[i], " (", rd, ")"));
      }
      break;
    }
    case OpCode::kBroadcast: {
      Type x = operand(0), r = result(0);
      auto sizes = I64List(op, "broadcast_sizes");
      same_elem(x, r, "operand and result");
      if (r.rank() != x.rank() + static_cast<int64_t>(sizes.size()))
        Fail(op, "result rank must be operand rank plus the number of broadcast sizes");
      for (size_t i = 0; i < sizes.size(); ++i)
        if (!DimsCompatible(r.shape()[i], sizes[i]))
          Fail(op, StrCat("result dimension ", i, " must be ", sizes[i]));
      for (int64_t d = 0; d < x.rank(); ++d)
        if (!DimsCompatible(r.shape()[sizes.size() + d], x.shape()[d]))
          Fail(op, StrCat("result dimension ", sizes.size() + d, " must be ", x.shape()[d]));
      break;
    }
    case OpCode::kReshape: {
      Type x = operand(0), r = result(0);
      same_elem(x, r, "operand and result");
      int64_t a = x.NumElements(), b = r.NumElements();
      if (a >= 0 && b >= 0 && a != b)
        Fail(op, StrCat("operand has ", a, " elements but the result has ", b));
      break;
    }
    case OpCode::kTranspose: {
      Type x = operand(0), r = result(0);
      auto perm = I64List(op, "permutation");
      same_elem(x, r, "operand and result");
      if (static_cast<int64_t>(perm.size()) != x.rank() || !InRange(perm, 0, x.rank()) ||
          !IsUnique(perm))
        Fail(op, StrCat("permutation ", ListStr(perm), " is not a permutation of rank ",
                              x.rank()));
      if (r.rank() != x.rank()) Fail(op, "result rank differs from operand rank");
      for (int64_t i = 0; i < r.rank(); ++i)
        if (!DimsCompatible(r.shape()[i], x.shape()[perm[i]]))
          Fail(op, StrCat("result dimension ", i, " must be ", x.shape()[perm[i]]));
      break;
    }
    case OpCode::kReverse: {
      Type x = operand(0), r = result(0);
      auto dims = I64List(op, "dimensions");
      CheckCompatible(op, x, r, "operand and result differ");
      if (!InRange(dims, 0, x.rank()) || !IsUnique(dims))
        Fail(op, StrCat("dimensions ", ListStr(dims), " must be unique and in [0, ", x.rank(),
                              ")"));
      break;
    }
    case OpCode::kConcatenate: {
      Type r = result(0);
      int64_t d = IntAttr(op, "dimension", true, 0);
      Type first = operand(0);
      if (d < 0 || d >= first.rank())
        Fail(op, StrCat("dimension ", d, " is out of range for rank ", first.rank()));
      int64_t total = 0;
      bool dyn = false;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        Type t = operand(i);
        same_elem(t, first, "operands");
        if (t.rank() != first.rank()) Fail(op, "operands must have the same rank");
        for (int64_t j = 0; j < t.rank(); ++j)
          if (j != d && !DimsCompatible(t.shape()[j], first.shape()[j]))
            Fail(op, StrCat("operands differ in dimension ", j));
        if (t.shape()[d] == kDynamic) dyn = true;
        else total += t.shape()[d];
      }
      same_elem(first, r, "operands and result");
      if (r.rank() != first.rank()) Fail(op, "result rank differs from operand rank");
      if (!dyn && r.shape()[d] != kDynamic && r.shape()[d] != total)
        Fail(op, StrCat("result dimension ", d, " must be ", total));
      break;
    }
    case OpCode::kSlice: {
      Type x = operand(0), r = result(0);
      auto s = I64List(op, "start_indices"), l = I64List(op, "limit_indices"),
           st = I64List(op, "strides");
      same_elem(x, r, "operand and result");
      if (static_cast<int64_t>(s.size()) != x.rank() || l.size() != s.size() || st.size() != s.size())
        Fail(op, "start_indices, limit_indices and strides must have one entry per dimension");
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t dim = x.shape()[i];
        if (s[i] < 0 || l[i] < s[i] || (dim != kDynamic && l[i] > dim) || st[i] <= 0)
          Fail(op, StrCat("slice [", s[i], ":", l[i], ":", st[i], "] is invalid for dimension ",
                                i, " of size ", dim));
        int64_t want = (l[i] - s[i] + st[i] - 1) / st[i];
        if (!DimsCompatible(r.shape()[i], want))
          Fail(op, StrCat("result dimension ", i, " must be ", want));
      }
      break;
    }
    case OpCode::kPad: {
      Type x = operand(0), v = operand(1), r = result(0);
      auto lo = I64List(op, "edge_padding_low"), hi = I64List(op, "edge_padding_high"),
           in = I64List(op, "interior_padding");
      same_elem(x, v, "operand and padding value");
      same_elem(x, r, "operand and result");
      if (v.rank() != 0) Fail(op, "padding value must be a rank-0 tensor");
      if (static_cast<int64_t>(lo.size()) != x.rank() || hi.size() != lo.size() || in.size() != lo.size())
        Fail(op, "padding lists must have one entry per dimension");
      for (size_t i = 0; i < lo.size(); ++i) {
        if (in[i] < 0) Fail(op, "interior_padding must be non-negative");
        int64_t d = x.shape()[i];
        if (d == kDynamic) continue;
        int64_t want = lo[i] + hi[i] + d + std::max<int64_t>(d - 1, 0) * in[i];
        if (want < 0) Fail(op, StrCat("padding makes dimension ", i, " negative"));
        if (!DimsCompatible(r.shape()[i], want))
          Fail(op, StrCat("result dimension ", i, " must be ", want));
      }
      break;
    }
    case OpCode::kDynamicSlice: {
      Type x = operand(0), r = result(0);
      auto sizes = I64List(op, "slice_sizes");
      same_elem(x, r, "operand and result");
      if (static_cast<int64_t>(op.operands.size()) != 1 + x.rank())
        Fail(op, StrCat("expects ", x.rank(), " start indices, has ", op.operands.size() - 1));
      if (static_cast<int64_t>(sizes.size()) != x.rank())
        Fail(op, "slice_sizes must have one entry per dimension");
      for (size_t i = 1; i < op.operands.size(); ++i) {
        Type t = operand(i);
        if (t.rank() != 0) Fail(op, "start indices must be rank-0 tensors");
        CheckElem(op, t, kCatInt, "start indices");
      }
      for (size_t i = 0; i < sizes.size(); ++i) {
        int64_t d = x.shape()[i];
        if (sizes[i] < 0 || (d != kDynamic && sizes[i] > d))
          Fail(op, StrCat("slice size ", sizes[i], " is out of range for dimension ", i,
                                " of size ", d));
        if (!DimsCompatible(r.shape()[i], sizes[i]))
          Fail(op, StrCat("result dimension ", i, " must be ", sizes[i]));
      }
      break;
    }
    case OpCode::kDynamicUpdateSlice: {
      Type x = operand(0), u = operand(1), r = result(0);
      CheckCompatible(op, x, r, "operand and result differ");
      same_elem(x, u, "operand and update");
      if (u.rank() != x.rank()) Fail(op, "update must have the operand's rank");
      if (static_cast<int64_t>(op.operands.size()) != 2 + x.rank())
        Fail(op, StrCat("expects ", x.rank(), " start indices, has ", op.operands.size() - 2));
      for (int64_t i = 0; i < x.rank(); ++i) {
        int64_t a = u.shape()[i], b = x.shape()[i];
        if (a != kDynamic && b != kDynamic && a > b)
          Fail(op, StrCat("update dimension ", i, " (", a, ") exceeds operand (", b, ")"));
      }
      for (size_t i = 2; i < op.operands.size(); ++i) {
        Type t = operand(i);
        if (t.rank() != 0) Fail(op, "start indices must be rank-0 tensors");
        CheckElem(op, t, kCatInt, "start indices");
      }
      break;
    }
    case OpCode::kGetDimensionSize: {
      Type x = operand(0), r = result(0);
      int64_t d = IntAttr(op, "dimension", true, 0);
      if (d < 0 || d >= x.rank())
        Fail(op, StrCat("dimension ", d, " is out of range for rank ", x.rank()));
      if (r != ScalarTensor(ElemKind::kI32)) Fail(op, "result must be tensor<i32>");
      break;
    }

    // ---- linear algebra
    case OpCode::kDotGeneral: {
      Type a = operand(0), b = operand(1), r = result(0);
      Attribute dn = op.attr("dot_dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.dot 'dot_dimension_numbers' attribute");
      std::vector<int64_t> lb, rb, lc, rc;
      auto field = [&](const char* n, std::vector<int64_t>* v) {
        Attribute f = dn.Field(n);
        if (f && !GetI64List(f, v)) Fail(op, StrCat("'", n, "' must be a list of integers"));
      };
      field("lhs_batching_dimensions", &lb);
      field("rhs_batching_dimensions", &rb);
      field("lhs_contracting_dimensions", &lc);
      field("rhs_contracting_dimensions", &rc);
      if (lb.size() != rb.size()) Fail(op, "lhs and rhs must have the same number of batching dims");
      if (lc.size() != rc.size())
        Fail(op, "lhs and rhs must have the same number of contracting dims");
      auto check_side = [&](const char* side, Type t, const std::vector<int64_t>& bd,
                            const std::vector<int64_t>& cd) {
        std::vector<int64_t> all = bd;
        all.insert(all.end(), cd.begin(), cd.end());
        if (!InRange(all, 0, t.rank()))
          Fail(op, StrCat(side, " batching/contracting dims ", ListStr(all),
                                " out of range for rank ", t.rank()));
        if (!IsUnique(all))
          Fail(op, StrCat(side, " batching and contracting dims ", ListStr(all), " repeat"));
      };
      check_side("lhs", a, lb, lc);
      check_side("rhs", b, rb, rc);
      for (size_t i = 0; i < lb.size(); ++i)
        if (!DimsCompatible(a.shape()[lb[i]], b.shape()[rb[i]]))
          Fail(op, StrCat("batching dimension sizes differ: lhs ", a.shape()[lb[i]], " vs rhs ",
                                b.shape()[rb[i]]));
      for (size_t i = 0; i < lc.size(); ++i)
        if (!DimsCompatible(a.shape()[lc[i]], b.shape()[rc[i]]))
          Fail(op, StrCat("contracting dimension sizes differ: lhs ", a.shape()[lc[i]],
                                " vs rhs ", b.shape()[rc[i]]));
      std::vector<int64_t> want;
      for (int64_t d : lb) want.push_back(a.shape()[d]);
      for (int64_t i = 0; i < a.rank(); ++i)
        if (std::find(lb.begin(), lb.end(), i) == lb.end() &&
            std::find(lc.begin(), lc.end(), i) == lc.end())
          want.push_back(a.shape()[i]);
      for (int64_t i = 0; i < b.rank(); ++i)
        if (std::find(rb.begin(), rb.end(), i) == rb.end() &&
            std::find(rc.begin(), rc.end(), i) == rc.end())
          want.push_back(b.shape()[i]);
      bool ok = static_cast<int64_t>(want.size()) == r.rank();
      for (size_t i = 0; ok && i < want.size(); ++i) ok = DimsCompatible(want[i], r.shape()[i]);
      if (!ok) Fail(op, StrCat("result shape must be ", ListStr(want), ", is ", TypeStr(r)));
      if (Attribute p = op.attr("precision_config")) {
        if (p.kind() != AttrKind::kArray || (p->elements.size() != 0 && p->elements.size() != 2))
          Fail(op, "precision_config must have 0 or 2 entries");
        for (const auto& e : p->elements)
          if (!IsEnum(e, "stablehlo.precision", {"DEFAULT", "HIGH", "HIGHEST"}))
            Fail(op, "precision must be DEFAULT, HIGH or HIGHEST");
      }
      break;
    }
    case OpCode::kConvolution:
    case OpCode::kDynamicConv: {
      Type x = operand(0), w = operand(1), r = result(0);
      const bool dynamic = op.code == OpCode::kDynamicConv;  // padding is operand 2
      if (dynamic) {
        Type pad = operand(2);
        CheckElem(op, pad, kCatInt, "padding");
        if (pad.rank() != 2 || (pad.shape()[1] != kDynamic && pad.shape()[1] != 2) ||
            (pad.shape()[0] != kDynamic && pad.shape()[0] != x.rank() - 2))
          Fail(op, StrCat("padding must be a [spatial dimensions, 2] tensor, got ", pad.ToString()));
        if (op.attr("padding")) Fail(op, "takes its padding as an operand, not an attribute");
      }
      Attribute dn = op.attr("dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.conv 'dimension_numbers' attribute");
      auto gi = [&](const char* n) {
        int64_t v;
        if (!GetInt(dn.Field(n), &v)) Fail(op, StrCat("dimension numbers lack '", n, "'"));
        return v;
      };
      auto gl = [&](const char* n) {
        std::vector<int64_t> v;
        if (!GetI64List(dn.Field(n), &v)) Fail(op, StrCat("dimension numbers lack '", n, "'"));
        return v;
      };
      int64_t ib = gi("input_batch_dimension"), iff = gi("input_feature_dimension");
      int64_t ki = gi("kernel_input_feature_dimension"), ko = gi("kernel_output_feature_dimension");
      int64_t ob = gi("output_batch_dimension"), of = gi("output_feature_dimension");
      auto is = gl("input_spatial_dimensions"), ks = gl("kernel_spatial_dimensions"),
           os = gl("output_spatial_dimensions");
      int64_t n = x.rank();
      if (w.rank() != n || r.rank() != n) Fail(op, "input, kernel and result must have one rank");
      size_t ns = static_cast<size_t>(n - 2);
      if (is.size() != ns || ks.size() != ns || os.size() != ns)
        Fail(op, StrCat("expects ", ns, " spatial dimensions"));
      auto perm_ok = [&](int64_t a, int64_t b, const std::vector<int64_t>& s, const char* what) {
        std::vector<int64_t> all = s;
        all.push_back(a);
        all.push_back(b);
        if (!InRange(all, 0, n) || !IsUnique(all))
          Fail(op, StrCat(what, " dimension numbers ", ListStr(all), " are not a permutation"));
      };
      perm_ok(ib, iff, is, "input");
      perm_ok(ki, ko, ks, "kernel");
      perm_ok(ob, of, os, "output");
      int64_t fgc = IntAttr(op, "feature_group_count", false, 1);
      int64_t bgc = IntAttr(op, "batch_group_count", false, 1);
      if (fgc < 1 || bgc < 1) Fail(op, "group counts must be positive");
      if (fgc > 1 && bgc > 1) Fail(op, "feature_group_count and batch_group_count can't both exceed 1");
      auto strides = I64List(op, "window_strides", false);
      auto lhs_d = I64List(op, "lhs_dilation", false), rhs_d = I64List(op, "rhs_dilation", false);
      for (auto* v : {&strides, &lhs_d, &rhs_d}) {
        if (v->empty()) v->assign(ns, 1);
        if (v->size() != ns) Fail(op, "window attributes need one entry per spatial dimension");
        for (int64_t s : *v)
          if (s < 1) Fail(op, "window strides and dilations must be positive");
      }
      auto reversal = I64List(op, "window_reversal", false);
      if (!reversal.empty() && reversal.size() != ns)
        Fail(op, "window_reversal needs one entry per spatial dimension");
      std::vector<int64_t> pad = I64List(op, "padding", false);
      if (pad.empty()) pad.assign(2 * ns, 0);
      if (pad.size() != 2 * ns) Fail(op, "padding needs [low, high] per spatial dimension");
      int64_t in_f = x.shape()[iff], in_b = x.shape()[ib], k_in = w.shape()[ki], k_out = w.shape()[ko];
      if (in_f != kDynamic && k_in != kDynamic && in_f % fgc == 0 && in_f / fgc != k_in)
        Fail(op, StrCat("kernel input features (", k_in, ") must be input features (", in_f,
                              ") / feature_group_count (", fgc, ")"));
      if (in_f != kDynamic && in_f % fgc != 0)
        Fail(op, "input features must be divisible by feature_group_count");
      if (k_out != kDynamic && (k_out % fgc != 0 || k_out % bgc != 0))
        Fail(op, "kernel output features must be divisible by the group counts");
      if (in_b != kDynamic && in_b % bgc != 0)
        Fail(op, "input batch must be divisible by batch_group_count");
      // Result shape.
      auto rs = r.shape();
      if (in_b != kDynamic && !DimsCompatible(rs[ob], in_b / bgc))
        Fail(op, StrCat("result batch must be ", in_b / bgc));
      if (!DimsCompatible(rs[of], k_out)) Fail(op, StrCat("result features must be ", k_out));
      for (size_t i = 0; i < ns && !dynamic; ++i) {  // dynamic_conv's depend on the padding's values
        int64_t xi = x.shape()[is[i]], wi = w.shape()[ks[i]];
        if (xi == kDynamic || wi == kDynamic) continue;
        int64_t dil_in = xi == 0 ? 0 : (xi - 1) * lhs_d[i] + 1;
        int64_t padded = dil_in + pad[2 * i] + pad[2 * i + 1];
        int64_t dil_w = wi == 0 ? 0 : (wi - 1) * rhs_d[i] + 1;
        int64_t want = padded < dil_w ? 0 : (padded - dil_w) / strides[i] + 1;
        if (!DimsCompatible(rs[os[i]], want))
          Fail(op, StrCat("result spatial dimension ", i, " must be ", want));
      }
      break;
    }

    // ---- reductions
    case OpCode::kReduce: {
      size_t n = op.operands.size() / 2;
      if (op.operands.size() % 2) Fail(op, "expects as many init values as inputs");
      auto dims = I64List(op, "dimensions");
      Type x0 = operand(0);
      if (!InRange(dims, 0, x0.rank()) || !IsUnique(dims))
        Fail(op, StrCat("dimensions ", ListStr(dims), " must be unique and in [0, ", x0.rank(),
                              ")"));
      std::vector<Type> args(2 * n), rets(n);
      if (op.num_results() != n) Fail(op, StrCat("expects ", n, " results"));
      for (size_t i = 0; i < n; ++i) {
        Type x = operand(i), init = operand(n + i), r = result(i);
        CheckSameShape(op, x, x0, "inputs");
        if (init.rank() != 0) Fail(op, "init values must be rank-0 tensors");
        std::vector<int64_t> want;
        for (int64_t d = 0; d < x.rank(); ++d)
          if (std::find(dims.begin(), dims.end(), d) == dims.end()) want.push_back(x.shape()[d]);
        bool ok = static_cast<int64_t>(want.size()) == r.rank();
        for (size_t j = 0; ok && j < want.size(); ++j) ok = DimsCompatible(want[j], r.shape()[j]);
        if (!ok) Fail(op, StrCat("result #", i, " must have shape ", ListStr(want)));
        // The body works in the result's element type (inputs may be promoted to it).
        Type s = ScalarTensor(StorageKind(Elem(r)));
        args[i] = args[n + i] = rets[i] = Elem(r).IsQuant() ? Type() : s;
      }
      CheckRegion(op, 0, args, &rets, "body");
      break;
    }
    case OpCode::kReduceWindow: {
      size_t n = op.operands.size() / 2;
      if (op.operands.size() % 2) Fail(op, "expects as many init values as inputs");
      Type x0 = operand(0);
      auto wd = I64List(op, "window_dimensions");
      if (static_cast<int64_t>(wd.size()) != x0.rank())
        Fail(op, "window_dimensions must have one entry per dimension");
      for (const char* a : {"window_strides", "base_dilations", "window_dilations"}) {
        auto v = I64List(op, a, false);
        if (!v.empty() && v.size() != wd.size()) Fail(op, StrCat(a, " must match the rank"));
        for (int64_t s : v)
          if (s < 1) Fail(op, StrCat(a, " must be positive"));
      }
      for (int64_t s : wd)
        if (s < 1) Fail(op, "window_dimensions must be positive");
      std::vector<int64_t> pad = I64List(op, "padding", false);
      if (!pad.empty() && pad.size() != 2 * wd.size()) Fail(op, "padding needs [low, high] per dimension");
      std::vector<Type> args(2 * n), rets(n);
      for (size_t i = 0; i < n; ++i) {
        Type init = operand(n + i), r = result(i);
        if (init.rank() != 0) Fail(op, "init values must be rank-0 tensors");
        Type s = ScalarTensor(StorageKind(Elem(r)));
        args[i] = args[n + i] = rets[i] = Elem(r).IsQuant() ? Type() : s;
      }
      CheckRegion(op, 0, args, &rets, "body");
      break;
    }
    case OpCode::kSelectAndScatter: {
      Type x = operand(0), init = operand(2);
      auto wd = I64List(op, "window_dimensions", false);
      if (wd.empty()) wd.assign(x.rank(), 1);
      if (static_cast<int64_t>(wd.size()) != x.rank())
        Fail(op, "window_dimensions must have one entry per dimension");
      for (int64_t v : wd)
        if (v < 1) Fail(op, "window_dimensions must be positive");
      auto ws = I64List(op, "window_strides", false);
      if (!ws.empty() && ws.size() != wd.size()) Fail(op, "window_strides must match the rank");
      for (int64_t v : ws)
        if (v < 1) Fail(op, "window_strides must be positive");
      std::vector<int64_t> pad = I64List(op, "padding", false);
      if (!pad.empty() && pad.size() != 2 * wd.size()) Fail(op, "padding needs [low, high] per dimension");
      CheckSameShape(op, x, result(0), "operand and result");
      Type s = ScalarTensor(StorageKind(Elem(x)));
      if (init.rank() != 0) Fail(op, "init value must be a rank-0 tensor");
      std::vector<Type> pred = {ScalarTensor(ElemKind::kI1)};
      CheckRegion(op, 0, {s, s}, &pred, "select");
      // The scatter computation works in the result's element type (promotion allowed).
      Type rs = ScalarTensor(StorageKind(Elem(result(0))));
      std::vector<Type> rets = {rs};
      CheckRegion(op, 1, {rs, rs}, &rets, "scatter");
      break;
    }
    case OpCode::kMap: {
      CheckSameShape(op, operand(0), result(0), "inputs and result");
      std::vector<Type> args;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        Type t = operand(i);
        CheckSameShape(op, t, operand(0), "inputs");
        args.push_back(ScalarTensor(StorageKind(Elem(t))));
      }
      CheckRegion(op, 0, args, nullptr, "computation");
      break;
    }
    case OpCode::kSort: {
      Type x0 = operand(0);
      int64_t d = IntAttr(op, "dimension", false, -1);
      if (d < -x0.rank() || d >= x0.rank())
        Fail(op, StrCat("dimension ", d, " is out of range for rank ", x0.rank()));
      std::vector<Type> args;
      if (op.num_results() != op.operands.size()) Fail(op, "expects one result per operand");
      for (size_t i = 0; i < op.operands.size(); ++i) {
        Type t = operand(i);
        CheckSameShape(op, t, x0, "operands");
        CheckCompatible(op, t, result(i), "operand and result differ");
        Type s = ScalarTensor(StorageKind(Elem(t)));
        args.push_back(s);
        args.push_back(s);
      }
      // Quantized operands take quantized scalars; accept any argument types for them.
      for (size_t i = 0; i < op.operands.size(); ++i)
        if (Elem(operand(i)).IsQuant()) args[2 * i] = args[2 * i + 1] = Type();
      std::vector<Type> pred = {ScalarTensor(ElemKind::kI1)};
      CheckRegion(op, 0, args, &pred, "comparator");
      break;
    }
    case OpCode::kGather: {
      Type x = operand(0), idx = operand(1), r = result(0);
      Attribute dn = op.attr("dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.gather 'dimension_numbers' attribute");
      std::vector<int64_t> offset, collapsed, obd, sibd, sim;
      GetI64List(dn.Field("offset_dims"), &offset);
      GetI64List(dn.Field("collapsed_slice_dims"), &collapsed);
      GetI64List(dn.Field("operand_batching_dims"), &obd);
      GetI64List(dn.Field("start_indices_batching_dims"), &sibd);
      GetI64List(dn.Field("start_index_map"), &sim);
      int64_t ivd;
      if (!GetInt(dn.Field("index_vector_dim"), &ivd)) ivd = 0;  // the attribute's default
      auto sizes = I64List(op, "slice_sizes");
      if (!IsSorted(offset) || !IsUnique(offset)) Fail(op, "offset_dims must be sorted and unique");
      if (!IsSorted(collapsed) || !IsUnique(collapsed))
        Fail(op, "collapsed_slice_dims must be sorted and unique");
      std::vector<int64_t> all = collapsed;
      all.insert(all.end(), obd.begin(), obd.end());
      if (!InRange(all, 0, x.rank()) || !IsUnique(all))
        Fail(op, "collapsed_slice_dims and operand_batching_dims must be unique operand dims");
      if (!InRange(sim, 0, x.rank()) || !IsUnique(sim))
        Fail(op, "start_index_map must hold unique operand dims");
      if (ivd < 0 || ivd > idx.rank()) Fail(op, "index_vector_dim is out of range");
      if (obd.size() != sibd.size())
        Fail(op, "operand_batching_dims and start_indices_batching_dims differ in size");
      if (!InRange(sibd, 0, idx.rank()) || !IsUnique(sibd) ||
          std::find(sibd.begin(), sibd.end(), ivd) != sibd.end())
        Fail(op, "start_indices_batching_dims must be unique dims of the indices other than index_vector_dim");
      int64_t ivs = ivd < idx.rank() ? idx.shape()[ivd] : 1;
      if (ivs != kDynamic && static_cast<int64_t>(sim.size()) != ivs)
        Fail(op, StrCat("start_index_map has ", sim.size(), " entries but the index vector has ",
                              ivs));
      if (static_cast<int64_t>(sizes.size()) != x.rank())
        Fail(op, "slice_sizes must have one entry per operand dimension");
      for (int64_t i = 0; i < x.rank(); ++i)
        if (sizes[i] < 0 || (x.shape()[i] != kDynamic && sizes[i] > x.shape()[i]))
          Fail(op, StrCat("slice size ", sizes[i], " is out of range for dimension ", i));
      for (int64_t c : all)
        if (sizes[c] > 1) Fail(op, "collapsed and batching dims must have slice size 0 or 1");
      // Result shape: batch dims from the indices, offset dims from the slice.
      std::vector<int64_t> batch;
      for (int64_t i = 0; i < idx.rank(); ++i)
        if (i != ivd) batch.push_back(idx.shape()[i]);
      std::vector<int64_t> offs;
      for (int64_t i = 0; i < x.rank(); ++i)
        if (std::find(all.begin(), all.end(), i) == all.end()) offs.push_back(sizes[i]);
      int64_t rank = static_cast<int64_t>(batch.size() + offs.size());
      if (r.rank() != rank || static_cast<int64_t>(offset.size()) != static_cast<int64_t>(offs.size()))
        Fail(op, StrCat("result must have rank ", rank, " with ", offs.size(), " offset dims"));
      if (!InRange(offset, 0, rank)) Fail(op, "offset_dims are out of range");
      size_t bi = 0, oi = 0;
      for (int64_t i = 0; i < rank; ++i) {
        bool is_off = std::find(offset.begin(), offset.end(), i) != offset.end();
        int64_t want = is_off ? offs[oi++] : batch[bi++];
        if (!DimsCompatible(r.shape()[i], want))
          Fail(op, StrCat("result dimension ", i, " must be ", want));
      }
      same_elem(x, r, "operand and result");
      break;
    }
    case OpCode::kScatter: {
      size_t n = (op.operands.size() - 1) / 2;
      if (op.operands.size() % 2 == 0) Fail(op, "expects N inputs, indices and N updates");
      Type idx = operand(n);
      Attribute dn = op.attr("scatter_dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.scatter 'scatter_dimension_numbers' attribute");
      std::vector<int64_t> uwd, iwd, ibd, sibd, sdod;
      GetI64List(dn.Field("update_window_dims"), &uwd);
      GetI64List(dn.Field("inserted_window_dims"), &iwd);
      GetI64List(dn.Field("input_batching_dims"), &ibd);
      GetI64List(dn.Field("scatter_indices_batching_dims"), &sibd);
      GetI64List(dn.Field("scatter_dims_to_operand_dims"), &sdod);
      int64_t ivd;
      if (!GetInt(dn.Field("index_vector_dim"), &ivd)) ivd = 0;  // the attribute's default
      Type x0 = operand(0);
      if (!IsSorted(uwd) || !IsUnique(uwd)) Fail(op, "update_window_dims must be sorted and unique");
      if (!InRange(uwd, 0, operand(n + 1).rank()))
        Fail(op, "update_window_dims must be dims of the updates");
      if (!IsSorted(iwd) || !IsUnique(iwd)) Fail(op, "inserted_window_dims must be sorted and unique");
      std::vector<int64_t> all = iwd;
      all.insert(all.end(), ibd.begin(), ibd.end());
      if (!InRange(all, 0, x0.rank()) || !IsUnique(all))
        Fail(op, "inserted_window_dims and input_batching_dims must be unique operand dims");
      if (!InRange(sdod, 0, x0.rank()) || !IsUnique(sdod))
        Fail(op, "scatter_dims_to_operand_dims must hold unique operand dims");
      if (ibd.size() != sibd.size())
        Fail(op, "input_batching_dims and scatter_indices_batching_dims differ in size");
      if (!InRange(sibd, 0, idx.rank()) || !IsUnique(sibd) ||
          std::find(sibd.begin(), sibd.end(), ivd) != sibd.end())
        Fail(op, "scatter_indices_batching_dims must be unique dims of the indices other than index_vector_dim");
      if (ivd < 0 || ivd > idx.rank()) Fail(op, "index_vector_dim is out of range");
      int64_t ivs = ivd < idx.rank() ? idx.shape()[ivd] : 1;
      if (ivs != kDynamic && static_cast<int64_t>(sdod.size()) != ivs)
        Fail(op, "scatter_dims_to_operand_dims must match the index vector size");
      if (op.num_results() != n) Fail(op, StrCat("expects ", n, " results"));
      std::vector<Type> args(2 * n), rets(n);
      for (size_t i = 0; i < n; ++i) {
        Type x = operand(i), u = operand(n + 1 + i);
        CheckSameShape(op, x, x0, "inputs");
        CheckSameShape(op, x, result(i), "input and result");
        int64_t want_rank = static_cast<int64_t>(uwd.size()) + idx.rank() - (ivd < idx.rank() ? 1 : 0);
        if (u.rank() != want_rank)
          Fail(op, StrCat("updates must have rank ", want_rank, ", have ", u.rank()));
        if (x.rank() != static_cast<int64_t>(uwd.size() + all.size()))
          Fail(op, "operand rank must equal update_window_dims plus inserted and batching dims");
        // The updates' scatter dims are the indices' batch dims, in order.
        std::vector<int64_t> batch;
        for (int64_t d = 0; d < idx.rank(); ++d)
          if (d != ivd) batch.push_back(idx.shape()[d]);
        for (int64_t d = 0, k = 0; d < u.rank(); ++d) {
          if (std::find(uwd.begin(), uwd.end(), d) != uwd.end()) continue;
          if (k < static_cast<int64_t>(batch.size()) && !DimsCompatible(u.shape()[d], batch[k]))
            Fail(op, StrCat("updates dimension ", d, " must be ", batch[k], " (the indices' batch size)"));
          ++k;
        }
        Type s = ScalarTensor(StorageKind(Elem(result(i))));
        args[i] = args[n + i] = rets[i] = Elem(x).IsQuant() ? Type() : s;
      }
      CheckRegion(op, 0, args, &rets, "update computation");
      break;
    }

    // ---- control flow and functions
    case OpCode::kWhile: {
      std::vector<Type> types;
      for (size_t i = 0; i < op.operands.size(); ++i) types.push_back(op.operands[i]->type);
      if (op.num_results() != types.size()) Fail(op, "expects one result per operand");
      for (size_t i = 0; i < types.size(); ++i)
        if (op.result(i)->type != types[i])
          Fail(op, StrCat("result #", i, " must have the operand's type ", TypeStr(types[i])));
      std::vector<Type> pred = {ScalarTensor(ElemKind::kI1)};
      CheckRegion(op, 0, types, &pred, "cond");
      CheckRegion(op, 1, types, &types, "body");
      break;
    }
    case OpCode::kIf:
    case OpCode::kCase: {
      Type p = operand(0);
      ElemKind want = op.code == OpCode::kIf ? ElemKind::kI1 : ElemKind::kI32;
      if (p != ScalarTensor(want))
        Fail(op, StrCat(op.code == OpCode::kIf ? "pred" : "index", " must be tensor<",
                              ElemKindName(want), ">"));
      if (op.regions.empty()) Fail(op, "needs at least one branch");
      std::vector<Type> rets;
      for (size_t i = 0; i < op.num_results(); ++i) rets.push_back(op.result(i)->type);
      for (size_t i = 0; i < op.regions.size(); ++i) CheckRegion(op, i, {}, &rets, "branch");
      break;
    }
    case OpCode::kOptimizationBarrier:
      if (op.num_results() != op.operands.size()) Fail(op, "expects one result per operand");
      for (size_t i = 0; i < op.operands.size(); ++i)
        if (op.result(i)->type != op.operands[i]->type)
          Fail(op, StrCat("result #", i, " must have the operand's type"));
      break;
    case OpCode::kTuple: {
      std::vector<Type> members;
      for (const Value* v : op.operands) members.push_back(v->type);
      if (op.result(0)->type != m_.ctx->Tuple(members))
        Fail(op, StrCat("result must be ", TypeStr(m_.ctx->Tuple(members))));
      break;
    }
    case OpCode::kGetTupleElement: {
      Type t = op.operands[0]->type;
      if (!t.IsTuple()) Fail(op, "operand must be a tuple");
      int64_t i = IntAttr(op, "index", true, 0);
      if (i < 0 || i >= static_cast<int64_t>(t.inputs().size()))
        Fail(op, StrCat("index ", i, " is out of range for ", TypeStr(t)));
      if (op.result(0)->type != t.inputs()[i])
        Fail(op, StrCat("result must be ", TypeStr(t.inputs()[i])));
      break;
    }
    case OpCode::kReturn:
      if (!op.parent || !op.parent->parent || !op.parent->parent->parent ||
          op.parent->parent->parent->code == OpCode::kModule)
        Fail(op, "must be inside a region");
      if (op.parent->terminator() != &op) Fail(op, "must be the last op of its block");
      break;
    case OpCode::kFuncReturn: {
      const Operation* parent = op.parent && op.parent->parent ? op.parent->parent->parent : nullptr;
      if (!parent) Fail(op, "must be inside a function");
      if (op.parent->terminator() != &op) Fail(op, "must be the last op of its block");
      if (parent->code != OpCode::kFunc) break;  // used as a region terminator
      Type ft = FuncType(*parent);
      auto res = ft.results();
      if (res.size() != op.operands.size())
        Fail(op, StrCat("returns ", op.operands.size(), " values but @", FuncName(*parent),
                              " declares ", res.size()));
      for (size_t i = 0; i < res.size(); ++i)
        if (!ShapeCompatible(op.operands[i]->type, res[i]))
          Fail(op, StrCat("result #", i, " has type ", TypeStr(op.operands[i]->type),
                                " but @", FuncName(*parent), " declares ", TypeStr(res[i])));
      break;
    }
    case OpCode::kFunc: {
      if (op.regions.empty()) break;
      const Block* entry = op.regions[0]->front();
      Type ft = FuncType(op);
      if (!entry) Fail(op, "body must have a block");
      if (entry->args.size() != ft.inputs().size())
        Fail(op, "entry block arguments must match the function type");
      for (const auto& b : op.regions[0]->blocks) {
        const Operation* t = b->terminator();
        if (!t || (t->code != OpCode::kFuncReturn && t->code != OpCode::kReturn))
          Fail(op, "body must end with 'func.return'");
        if (t->code == OpCode::kReturn) {
          auto res = ft.results();
          bool ok = res.size() == t->operands.size();
          for (size_t i = 0; ok && i < res.size(); ++i) ok = t->operands[i]->type == res[i];
          if (!ok) Fail(*t, "returned types do not match the function type");
        }
      }
      break;
    }
    case OpCode::kFuncCall: {
      Attribute c = op.attr("callee");
      if (!c || c.kind() != AttrKind::kSymbolRef || c->symbols.size() != 1)
        Fail(op, "requires a 'callee' symbol");
      const Operation* f = m_.LookupFunction(c->symbols[0]);
      if (!f) Fail(op, StrCat("calls undefined function '@", c->symbols[0], "'"));
      Type ft = FuncType(*f);
      if (ft.inputs().size() != op.operands.size())
        Fail(op, StrCat("passes ", op.operands.size(), " arguments to @", c->symbols[0],
                              " which takes ", ft.inputs().size()));
      for (size_t i = 0; i < op.operands.size(); ++i)
        if (!ShapeCompatible(op.operands[i]->type, ft.inputs()[i]))
          Fail(op, StrCat("argument #", i, " has type ", TypeStr(op.operands[i]->type),
                                " but @", c->symbols[0], " takes ", TypeStr(ft.inputs()[i])));
      if (ft.results().size() != op.num_results())
        Fail(op, StrCat("@", c->symbols[0], " returns ", ft.results().size(), " values"));
      for (size_t i = 0; i < op.num_results(); ++i)
        if (!ShapeCompatible(op.result(i)->type, ft.results()[i]))
          Fail(op, StrCat("result #", i, " must be ", TypeStr(ft.results()[i])));
      break;
    }
    case OpCode::kInterpreterRunParallel: {
      // programs[replica][partition] names the function each process runs; operands and
      // results are the processes' inputs and outputs in that (row-major) order.
      Attribute grid = op.attr("programs");
      if (!grid || grid.kind() != AttrKind::kArray || grid->elements.empty())
        Fail(op, "requires 'programs', a non-empty array of arrays of function symbols");
      size_t partitions = 0;
      std::vector<std::pair<const Operation*, std::string>> procs;  // function, its grid place
      for (size_t r = 0; r < grid->elements.size(); ++r) {
        Attribute row = grid->elements[r];
        if (row.kind() != AttrKind::kArray || row->elements.empty())
          Fail(op, StrCat("programs[", r, "] must be a non-empty array of function symbols"));
        if (r == 0) partitions = row->elements.size();
        if (row->elements.size() != partitions)
          Fail(op, StrCat("programs[", r, "] has ", row->elements.size(), " programs, programs[0] has ",
                          partitions, " (every replica runs the same number of partitions)"));
        for (size_t p = 0; p < row->elements.size(); ++p) {
          Attribute sym = row->elements[p];
          if (sym.kind() != AttrKind::kSymbolRef || sym->symbols.size() != 1)
            Fail(op, StrCat("programs[", r, "][", p, "] must be a function symbol"));
          const Operation* f = m_.LookupFunction(sym->symbols[0]);
          if (!f) Fail(op, StrCat("programs[", r, "][", p, "] names undefined function '@", sym->symbols[0], "'"));
          procs.emplace_back(f, StrCat("@", sym->symbols[0], " (programs[", r, "][", p, "])"));
        }
      }
      size_t ins = 0, outs = 0;
      for (const auto& [f, where] : procs) {
        ins += FuncType(*f).inputs().size();
        outs += FuncType(*f).results().size();
      }
      if (ins != op.operands.size())
        Fail(op, StrCat("has ", op.operands.size(), " operands but the programs take ", ins));
      if (outs != op.num_results())
        Fail(op, StrCat("has ", op.num_results(), " results but the programs return ", outs));
      size_t next_in = 0, next_out = 0;
      for (const auto& [f, where] : procs) {
        for (Type t : FuncType(*f).inputs()) {
          if (!ShapeCompatible(op.operands[next_in]->type, t))
            Fail(op, StrCat("operand #", next_in, " has type ", TypeStr(op.operands[next_in]->type), " but ",
                            where, " takes ", TypeStr(t)));
          ++next_in;
        }
        for (Type t : FuncType(*f).results()) {
          if (!ShapeCompatible(op.result(next_out)->type, t))
            Fail(op, StrCat("result #", next_out, " has type ", TypeStr(op.result(next_out)->type), " but ",
                            where, " returns ", TypeStr(t)));
          ++next_out;
        }
      }
      break;
    }
    case OpCode::kComposite: {
      Attribute d = op.attr("decomposition");
      if (!d || d.kind() != AttrKind::kSymbolRef || d->symbols.size() != 1)
        Fail(op, "requires a 'decomposition' symbol");
      const Operation* f = m_.LookupFunction(d->symbols[0]);
      if (!f) Fail(op, StrCat("decomposition '@", d->symbols[0], "' is not defined"));
      Type ft = FuncType(*f);
      std::vector<Type> in, out;
      for (const Value* v : op.operands) in.push_back(v->type);
      for (size_t i = 0; i < op.num_results(); ++i) out.push_back(op.result(i)->type);
      if (ft != m_.ctx->Function(in, out))
        Fail(op, StrCat("types do not match decomposition @", d->symbols[0], " of type ",
                              TypeStr(ft)));
      break;
    }
    case OpCode::kCustomCall: {
      Attribute t = op.attr("call_target_name");
      if (!t || t.kind() != AttrKind::kString) Fail(op, "requires a 'call_target_name' string");
      break;
    }

    // ---- misc
    case OpCode::kRng: {
      if (!IsEnum(op.attr("rng_distribution"), "stablehlo.rng_distribution", {"UNIFORM", "NORMAL"}))
        Fail(op, "requires 'rng_distribution' UNIFORM or NORMAL");
      Type a = operand(0), b = operand(1), shape = operand(2), r = result(0);
      if (a.rank() != 0 || b.rank() != 0) Fail(op, "a and b must be 0-dimensional tensors");
      if (shape.rank() != 1) Fail(op, "shape must be a 1-dimensional tensor");
      CheckElem(op, shape, kCatInt, "shape");
      same_elem(a, b, "a and b");
      same_elem(a, r, "a and result");
      const bool normal = op.attr("rng_distribution")->str == "NORMAL";
      CheckElem(op, r, normal ? kCatFloat : kCatBool | kCatInt | kCatFloat, "result");
      if (shape.shape().size() == 1 && shape.shape()[0] >= 0 && shape.shape()[0] != r.rank())
        Fail(op, StrCat("shape has ", shape.shape()[0], " entries but the result has rank ", r.rank()));
      break;
    }
    case OpCode::kRngBitGenerator: {
      if (!IsEnum(op.attr("rng_algorithm"), "stablehlo.rng_algorithm", {"DEFAULT", "THREE_FRY", "PHILOX"}))
        Fail(op, "requires 'rng_algorithm' DEFAULT, THREE_FRY or PHILOX");
      CheckCompatible(op, operand(0), result(0), "initial state and output state differ");
      // Like StableHLO's own verifier, the state's type is not restricted (the kernel reads it as
      // 64-bit words; the compiler checks that it holds whole ones).
      CheckElem(op, result(1), kCatInt | kCatFloat, "output");
      break;
    }
    case OpCode::kFft: {
      if (!IsEnum(op.attr("fft_type"), "stablehlo.fft_type", {"FFT", "IFFT", "RFFT", "IRFFT"}))
        Fail(op, "requires 'fft_type' FFT, IFFT, RFFT or IRFFT");
      auto len = I64List(op, "fft_length");
      Type x = operand(0), r = result(0);
      if (len.empty() || len.size() > 3) Fail(op, "fft_length must have 1 to 3 entries");
      if (static_cast<int64_t>(len.size()) > x.rank()) Fail(op, "fft_length exceeds the operand rank");
      if (r.rank() != x.rank()) Fail(op, "operand and result ranks differ");
      const std::string& type = op.attr("fft_type")->str;
      const bool real_in = type == "RFFT", real_out = type == "IRFFT";
      CheckElem(op, x, real_in ? kCatFloat : kCatComplex, "operand");
      CheckElem(op, r, real_out ? kCatFloat : kCatComplex, "result");
      const int64_t k = static_cast<int64_t>(len.size()), rank = x.rank();
      for (int64_t d = 0; d < rank; ++d) {
        int64_t want_in = x.shape()[d], want_out = x.shape()[d];
        if (d >= rank - k) {
          int64_t l = len[d - (rank - k)];
          want_in = l;
          want_out = l;
          if (d == rank - 1 && real_in) want_out = l / 2 + 1;
          if (d == rank - 1 && real_out) want_in = l / 2 + 1;
        }
        if (!DimsCompatible(x.shape()[d], want_in))
          Fail(op, StrCat("operand dimension ", d, " must be ", want_in));
        if (!DimsCompatible(r.shape()[d], want_out))
          Fail(op, StrCat("result dimension ", d, " must be ", want_out));
      }
      break;
    }
    case OpCode::kCholesky: {
      Type a = operand(0);
      CheckCompatible(op, a, result(0), "operand and result differ");
      CheckElem(op, a, kCatFloat | kCatComplex, "operand");
      if (a.rank() < 2 || !DimsCompatible(a.shape()[a.rank() - 1], a.shape()[a.rank() - 2]))
        Fail(op, "operand must be a batch of square matrices");
      break;
    }
    case OpCode::kTriangularSolve: {
      Type a = operand(0), b = operand(1);
      CheckElem(op, a, kCatFloat | kCatComplex, "operands");
      same_elem(a, b, "operands");
      if (a.rank() < 2 || a.rank() != b.rank() ||
          !DimsCompatible(a.shape()[a.rank() - 1], a.shape()[a.rank() - 2]))
        Fail(op, "a must be a batch of square matrices with b's rank");
      for (const char* flag : {"left_side", "lower", "unit_diagonal"}) {
        Attribute f = op.attr(flag);
        if (!f || f.kind() != AttrKind::kBool) Fail(op, StrCat("requires a boolean '", flag, "'"));
      }
      if (!IsEnum(op.attr("transpose_a"), "stablehlo.transpose",
                  {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}))
        Fail(op, "requires 'transpose_a' NO_TRANSPOSE, TRANSPOSE or ADJOINT");
      const int64_t r = a.rank(), n = a.shape()[r - 1];
      const bool left = op.attr("left_side")->int_value != 0;
      if (!DimsCompatible(b.shape()[left ? r - 2 : r - 1], n))
        Fail(op, StrCat("b's ", left ? "rows" : "columns", " must match a's size ", n));
      for (int64_t d = 0; d + 2 < r; ++d)
        if (!DimsCompatible(a.shape()[d], b.shape()[d])) Fail(op, "a and b batch dimensions differ");
      CheckCompatible(op, b, result(0), "b and result differ");
      break;
    }
    case OpCode::kBatchNormInference:
    case OpCode::kBatchNormTraining:
    case OpCode::kBatchNormGrad: {
      Type x = operand(0);
      int64_t fi = IntAttr(op, "feature_index", true, 0);
      if (fi < 0 || fi >= x.rank())
        Fail(op, StrCat("feature_index ", fi, " is out of range for rank ", x.rank()));
      CheckElem(op, x, kCatFloat, "operand");
      const int64_t features = x.shape()[fi];
      auto feature_vector = [&](Type t, const char* what) {
        if (!t.IsTensor() || t.rank() != 1 || !DimsCompatible(t.shape()[0], features))
          Fail(op, StrCat(what, " must be a 1-d tensor of ", features, " features"));
        same_elem(t, x, what);
      };
      // Operands: (x, scale, offset, mean, variance), (x, scale, offset), (x, scale, mean,
      // variance, grad_output); results: output first, then per-feature vectors.
      size_t vectors = op.code == OpCode::kBatchNormGrad ? 4 : op.operands.size();
      for (size_t i = 1; i < vectors; ++i) feature_vector(operand(i), "scale, offset, mean and variance");
      if (op.code == OpCode::kBatchNormGrad) CheckCompatible(op, operand(4), x, "grad_output and operand differ");
      CheckCompatible(op, result(0), x, "output and operand differ");
      for (size_t i = 1; i < op.num_results(); ++i) feature_vector(result(i), "per-feature results");
      break;
    }
    case OpCode::kUniformQuantize: {
      Type r = result(0);
      if (!Elem(r).IsQuant()) Fail(op, "result must have a quantized element type");
      CheckSameShape(op, operand(0), r, "operand and result");
      break;
    }
    case OpCode::kUniformDequantize: {
      Type x = operand(0), r = result(0);
      if (!Elem(x).IsQuant()) Fail(op, "operand must have a quantized element type");
      CheckSameShape(op, x, r, "operand and result");
      if (Elem(r) != m_.ctx->Element(Elem(x).quant().expressed))
        Fail(op, "result element type must be the quantized type's expressed type");
      break;
    }
    case OpCode::kReplicaId:
    case OpCode::kPartitionId:
      if (op.result(0)->type != ScalarTensor(ElemKind::kU32)) Fail(op, "result must be tensor<ui32>");
      break;
    case OpCode::kAllReduce:
    case OpCode::kReduceScatter:
    case OpCode::kCollectiveReduce: {
      // The computation works in the result's element type (which may be wider: promotion).
      Type s = ScalarTensor(StorageKind(Elem(result(0))));
      std::vector<Type> rets = {s};
      CheckRegion(op, 0, {s, s}, &rets, "computation");
      break;
    }
    case OpCode::kCheckExpectEq:
    case OpCode::kCheckExpectAlmostEq:
    case OpCode::kCheckExpectClose:
      CheckCompatible(op, operand(0), operand(1), "actual and expected differ");
      break;
    case OpCode::kCheckExpectEqConst:
    case OpCode::kCheckExpectAlmostEqConst: {
      Attribute v = op.attr("value");
      if (!v || v.kind() != AttrKind::kDenseElements) Fail(op, "requires a dense 'value'");
      if (v->type != operand(0)) Fail(op, "value type differs from the operand type");
      break;
    }
    case OpCode::kChloTopK: {
      Type x = operand(0);
      int64_t k = IntAttr(op, "k", true, 0);
      if (x.rank() < 1) Fail(op, "operand must have rank at least 1");
      int64_t last = x.shape()[x.rank() - 1];
      if (k < 0 || (last != kDynamic && k > last))
        Fail(op, StrCat("k = ", k, " exceeds the last dimension ", last));
      for (size_t i = 0; i < 2; ++i) {
        Type r = result(i);
        bool ok = r.rank() == x.rank();
        for (int64_t d = 0; ok && d < x.rank(); ++d)
          ok = DimsCompatible(r.shape()[d], d + 1 == x.rank() ? k : x.shape()[d]);
        if (!ok) Fail(op, StrCat("result #", i, " must have the operand's shape with ", k, " last"));
      }
      same_elem(result(0), x, "values and operand");
      break;
    }
    default: {
      // Other elementwise ops of the table (CHLO among them): operands and results share a
      // shape, and 'S' ops an element type too.
      const OpInfo& info = GetOpInfo(op.code);
      if (info.syntax != OpSyntax::kOperands || op.num_results() != 1 ||
          (info.type_rule != 'S' && info.type_rule != 'I'))
        break;
      Type r = result(0);
      for (size_t i = 0; i < op.operands.size(); ++i) {
        CheckSameShape(op, operand(i), r, "operand and result");
        if (info.type_rule == 'S') same_elem(operand(i), r, "operand and result");
      }
      if (info.type_rule == 'I' && Elem(r) != m_.ctx->Element(ElemKind::kI1))
        Fail(op, "result must have i1 elements");
      if (op.code == OpCode::kChloMulhi) CheckElem(op, r, kCatInt, "result");
      break;
    }
  }
}

}  // namespace openpjrt::ir
