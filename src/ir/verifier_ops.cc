// Per-op rules from the StableHLO specification's "Constraints" sections.
#include <algorithm>
#include <numeric>
#include <set>

#include "src/support/str.h"
#include "src/ir/printer.h"
#include "src/ir/verifier_impl.h"

namespace openpjrt::ir {

using namespace verifier_rules;
void Verifier::VerifyOpRules(const Operation& op) {
  auto operand = [&](size_t i) { return TensorOperand(op, i); };
  auto result = [&](size_t i) { return TensorResult(op, i); };
  auto same_elem = [&](Type a, Type b, const char* what) { CheckSameElem(op, a, b, what); };
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
      if (r.rank() != x.rank()) Fail(op, "result rank differs from operand rank");
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
      if (r.rank() != x.rank()) Fail(op, "result rank differs from operand rank");
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
      if (r.rank() != x.rank()) Fail(op, "result rank differs from operand rank");
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
    case OpCode::kDotGeneral:
    case OpCode::kConvolution:
    case OpCode::kDynamicConv:
    case OpCode::kReduce:
    case OpCode::kReduceWindow:
    case OpCode::kSelectAndScatter:
    case OpCode::kMap:
    case OpCode::kSort:
    case OpCode::kGather:
    case OpCode::kScatter:
      VerifyProductOrIndexingOp(op);
      break;
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
    case OpCode::kChloScan:
      VerifyScan(op);
      break;
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
    case OpCode::kSdyManualComputation:
    case OpCode::kSdyNamedComputation: {
      // Named: the body sees the operands' types and returns the results'. Manual: the body's
      // types are per-device shards of the global ones (same rank and element type).
      const bool manual = op.code == OpCode::kSdyManualComputation;
      std::vector<Type> args, rets;
      if (!manual) {
        for (const Value* v : op.operands) args.push_back(v->type);
        for (size_t i = 0; i < op.num_results(); ++i) rets.push_back(op.result(i)->type);
      } else {
        args.resize(op.operands.size());
        rets.resize(op.num_results());
      }
      CheckRegion(op, 0, args, &rets, "body");
      if (!manual) break;
      const Block& b = *op.regions[0]->front();
      auto same_kind = [&](Type global, Type local, const char* what, size_t i) {
        if (!global.IsTensor() || !local.IsTensor() || global.rank() != local.rank() ||
            global.element_type() != local.element_type())
          Fail(op, StrCat(what, " #", i, " has type ", TypeStr(global), " but the body's is ", TypeStr(local),
                          ": a shard must keep the rank and element type"));
      };
      for (size_t i = 0; i < op.operands.size(); ++i) same_kind(op.operands[i]->type, b.args[i]->type, "operand", i);
      for (size_t i = 0; i < op.num_results(); ++i)
        same_kind(op.result(i)->type, b.terminator()->operands[i]->type, "result", i);
      for (const char* key : {"in_shardings", "out_shardings", "manual_axes"})
        if (!op.attr(key)) Fail(op, StrCat("requires attribute '", key, "'"));
      break;
    }
    case OpCode::kSdyReturn: {
      const Operation* parent = op.parent && op.parent->parent ? op.parent->parent->parent : nullptr;
      if (!parent || (parent->code != OpCode::kSdyManualComputation && parent->code != OpCode::kSdyNamedComputation))
        Fail(op, "must end the body of an sdy.manual_computation or sdy.named_computation");
      if (op.parent->terminator() != &op) Fail(op, "must be the last op of its block");
      break;
    }
    case OpCode::kOptimizationBarrier:
    case OpCode::kSdyShardingConstraint:
    case OpCode::kSdyReshard:
    case OpCode::kSdyPropagationBarrier:
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

// chlo.scan: n inputs scanned along `dimension` (all of one length L) and m initial carries;
// the body takes the inputs' slices at one position (the dimension removed) and the carries, and
// returns k output slices and the m next carries. Results: the k outputs (the slices stacked
// along `dimension`, length L) and the m final carries, each of its init's type.
void Verifier::VerifyScan(const Operation& op) {
  std::vector<int64_t> in_seg, out_seg;
  if (!GetI64List(op.attr("operandSegmentSizes"), &in_seg) || in_seg.size() != 2 || in_seg[0] < 0 ||
      in_seg[1] < 0 || in_seg[0] + in_seg[1] != static_cast<int64_t>(op.operands.size()))
    Fail(op, StrCat("operandSegmentSizes must split the ", op.operands.size(), " operands into inputs and inits"));
  if (!GetI64List(op.attr("resultSegmentSizes"), &out_seg) || out_seg.size() != 2 || out_seg[0] < 0 ||
      out_seg[1] != in_seg[1] || out_seg[0] + out_seg[1] != static_cast<int64_t>(op.num_results()))
    Fail(op, StrCat("resultSegmentSizes must split the ", op.num_results(), " results into outputs and one carry per init (",
                    in_seg[1], ")"));
  const size_t n = static_cast<size_t>(in_seg[0]), m = static_cast<size_t>(in_seg[1]),
               k = static_cast<size_t>(out_seg[0]);
  const int64_t dim = IntAttr(op, "dimension", true, 0);
  // The length L and each slice type: the dimension removed.
  int64_t length = kDynamic;
  bool have_length = false;
  auto slice = [&](Type t, const char* what, size_t i) {
    if (!t.IsTensor() || dim < 0 || dim >= t.rank())
      Fail(op, StrCat(what, " #", i, " (", TypeStr(t), ") has no dimension ", dim));
    const int64_t l = t.shape()[dim];
    if (have_length && l != kDynamic && length != kDynamic && l != length)
      Fail(op, StrCat(what, " #", i, " has length ", l, " along dimension ", dim, "; the scan's length is ", length));
    if (!have_length || length == kDynamic) length = l;
    have_length = true;
    std::vector<int64_t> dims(t.shape().begin(), t.shape().end());
    dims.erase(dims.begin() + dim);
    return m_.ctx->Tensor(dims, t.element_type());
  };
  if (n == 0 && k == 0) Fail(op, "needs an input or an output to take its length from");
  std::vector<Type> args, rets;
  for (size_t i = 0; i < n; ++i) args.push_back(slice(op.operands[i]->type, "input", i));
  for (size_t i = 0; i < k; ++i) rets.push_back(slice(op.result(i)->type, "output", i));
  for (size_t j = 0; j < m; ++j) {
    Type init = op.operands[n + j]->type;
    if (op.result(k + j)->type != init)
      Fail(op, StrCat("carry result #", j, " must have its init's type ", TypeStr(init), ", is ",
                      TypeStr(op.result(k + j)->type)));
    args.push_back(init);
    rets.push_back(init);
  }
  CheckRegion(op, 0, args, &rets, "body");
}

}  // namespace openpjrt::ir
