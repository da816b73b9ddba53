// Lowering from IR to a cpu::Program (see compile.h).
#include "src/compiler/compile.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "src/compiler/fold_products.h"
#include "src/compiler/reciprocal.h"
#include "src/compiler/lowerer.h"
#include "src/compiler/region_patterns.h"
#include "src/compiler/refine.h"
#include "src/cpu/comm/collectives.h"
#include "src/cpu/exec/ffi.h"
#include "src/cpu/kernels/kernels.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/lapack/kernels_linalg.h"
#include "src/cpu/kernels/kernels_quant.h"
#include "src/cpu/kernels/kernels_rng.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"
#include "src/support/str.h"

namespace openpjrt::compiler {
namespace internal {

bool UnaryOf(OpCode c, UnaryOp* out) {
  switch (c) {
    case OpCode::kAbs: *out = UnaryOp::kAbs; return true;
    case OpCode::kCbrt: *out = UnaryOp::kCbrt; return true;
    case OpCode::kCeil: *out = UnaryOp::kCeil; return true;
    case OpCode::kCosine: *out = UnaryOp::kCos; return true;
    case OpCode::kExponential: *out = UnaryOp::kExp; return true;
    case OpCode::kExponentialMinusOne: *out = UnaryOp::kExpm1; return true;
    case OpCode::kFloor: *out = UnaryOp::kFloor; return true;
    case OpCode::kLog: *out = UnaryOp::kLog; return true;
    case OpCode::kLogPlusOne: *out = UnaryOp::kLog1p; return true;
    case OpCode::kLogistic: *out = UnaryOp::kLogistic; return true;
    case OpCode::kNegate: *out = UnaryOp::kNegate; return true;
    case OpCode::kNot: *out = UnaryOp::kNot; return true;
    case OpCode::kPopcnt: *out = UnaryOp::kPopcnt; return true;
    case OpCode::kCountLeadingZeros: *out = UnaryOp::kClz; return true;
    case OpCode::kRoundNearestAfz: *out = UnaryOp::kRoundAfz; return true;
    case OpCode::kRoundNearestEven: *out = UnaryOp::kRoundEven; return true;
    case OpCode::kRsqrt: *out = UnaryOp::kRsqrt; return true;
    case OpCode::kSign: *out = UnaryOp::kSign; return true;
    case OpCode::kSine: *out = UnaryOp::kSin; return true;
    case OpCode::kSqrt: *out = UnaryOp::kSqrt; return true;
    case OpCode::kTan: case OpCode::kChloTan: *out = UnaryOp::kTan; return true;
    case OpCode::kTanh: *out = UnaryOp::kTanh; return true;
    case OpCode::kIsFinite: *out = UnaryOp::kIsFinite; return true;
    case OpCode::kReal: *out = UnaryOp::kReal; return true;
    case OpCode::kImag: *out = UnaryOp::kImag; return true;
    case OpCode::kChloAcos: *out = UnaryOp::kAcos; return true;
    case OpCode::kChloAcosh: *out = UnaryOp::kAcosh; return true;
    case OpCode::kChloAsin: *out = UnaryOp::kAsin; return true;
    case OpCode::kChloAsinh: *out = UnaryOp::kAsinh; return true;
    case OpCode::kChloAtan: *out = UnaryOp::kAtan; return true;
    case OpCode::kChloAtanh: *out = UnaryOp::kAtanh; return true;
    case OpCode::kChloCosh: *out = UnaryOp::kCosh; return true;
    case OpCode::kChloSinh: *out = UnaryOp::kSinh; return true;
    case OpCode::kChloErf: *out = UnaryOp::kErf; return true;
    case OpCode::kChloErfc: *out = UnaryOp::kErfc; return true;
    case OpCode::kChloErfInv: *out = UnaryOp::kErfInv; return true;
    case OpCode::kChloLgamma: *out = UnaryOp::kLgamma; return true;
    case OpCode::kChloDigamma: *out = UnaryOp::kDigamma; return true;
    case OpCode::kChloSquare: *out = UnaryOp::kSquare; return true;
    case OpCode::kChloConj: *out = UnaryOp::kConj; return true;
    case OpCode::kChloIsInf: *out = UnaryOp::kIsInf; return true;
    case OpCode::kChloIsPosInf: *out = UnaryOp::kIsPosInf; return true;
    case OpCode::kChloIsNegInf: *out = UnaryOp::kIsNegInf; return true;
    case OpCode::kChloBesselI1e: *out = UnaryOp::kBesselI1e; return true;
    default: return false;
  }
}

bool BinaryOf(OpCode c, BinaryOp* out, bool* broadcasting) {
  *broadcasting = false;
  switch (c) {
    case OpCode::kAdd: *out = BinaryOp::kAdd; return true;
    case OpCode::kSubtract: *out = BinaryOp::kSub; return true;
    case OpCode::kMultiply: *out = BinaryOp::kMul; return true;
    case OpCode::kDivide: *out = BinaryOp::kDiv; return true;
    case OpCode::kRemainder: *out = BinaryOp::kRem; return true;
    case OpCode::kPower: *out = BinaryOp::kPow; return true;
    case OpCode::kAtan2: *out = BinaryOp::kAtan2; return true;
    case OpCode::kMaximum: *out = BinaryOp::kMax; return true;
    case OpCode::kMinimum: *out = BinaryOp::kMin; return true;
    case OpCode::kAnd: *out = BinaryOp::kAnd; return true;
    case OpCode::kOr: *out = BinaryOp::kOr; return true;
    case OpCode::kXor: *out = BinaryOp::kXor; return true;
    case OpCode::kShiftLeft: *out = BinaryOp::kShl; return true;
    case OpCode::kShiftRightArithmetic: *out = BinaryOp::kShrA; return true;
    case OpCode::kShiftRightLogical: *out = BinaryOp::kShrL; return true;
    case OpCode::kComplex: *out = BinaryOp::kComplex; return true;
    case OpCode::kChloNextAfter: *out = BinaryOp::kNextAfter; return true;
    case OpCode::kChloPolygamma: *out = BinaryOp::kPolygamma; return true;
    case OpCode::kChloZeta: *out = BinaryOp::kZeta; return true;
    case OpCode::kChloMulhi: *out = BinaryOp::kMulHi; return true;
    default: break;
  }
  *broadcasting = true;
  switch (c) {
    case OpCode::kChloBroadcastAdd: *out = BinaryOp::kAdd; return true;
    case OpCode::kChloBroadcastSubtract: *out = BinaryOp::kSub; return true;
    case OpCode::kChloBroadcastMultiply: *out = BinaryOp::kMul; return true;
    case OpCode::kChloBroadcastDivide: *out = BinaryOp::kDiv; return true;
    case OpCode::kChloBroadcastRemainder: *out = BinaryOp::kRem; return true;
    case OpCode::kChloBroadcastPower: *out = BinaryOp::kPow; return true;
    case OpCode::kChloBroadcastAtan2: *out = BinaryOp::kAtan2; return true;
    case OpCode::kChloBroadcastMaximum: *out = BinaryOp::kMax; return true;
    case OpCode::kChloBroadcastMinimum: *out = BinaryOp::kMin; return true;
    case OpCode::kChloBroadcastAnd: *out = BinaryOp::kAnd; return true;
    case OpCode::kChloBroadcastOr: *out = BinaryOp::kOr; return true;
    case OpCode::kChloBroadcastXor: *out = BinaryOp::kXor; return true;
    case OpCode::kChloBroadcastShiftLeft: *out = BinaryOp::kShl; return true;
    case OpCode::kChloBroadcastShiftRightArithmetic: *out = BinaryOp::kShrA; return true;
    case OpCode::kChloBroadcastShiftRightLogical: *out = BinaryOp::kShrL; return true;
    case OpCode::kChloBroadcastComplex: *out = BinaryOp::kComplex; return true;
    case OpCode::kChloBroadcastNextAfter: *out = BinaryOp::kNextAfter; return true;
    case OpCode::kChloBroadcastPolygamma: *out = BinaryOp::kPolygamma; return true;
    case OpCode::kChloBroadcastZeta: *out = BinaryOp::kZeta; return true;
    default: return false;
  }
}

// True when every operand of `op` has as many elements as its result (no scalar operand that
// the kernel repeats): the condition for its raw loop to join a fused run.
bool Lowerer::OperandsFillResult(const Operation& op) {
  const Type r = op.result(0)->type;
  if (!r.IsTensor() || !r.HasStaticShape()) return false;
  for (const Value* v : op.operands)
    if (!v->type.IsTensor() || !v->type.HasStaticShape() || v->type.NumElements() != r.NumElements())
      return false;
  return true;
}

// Whether a chlo.top_k composite's results are the operand's shape with k last: the top-k kernel
// writes k per row into them. Anything else (a mutated k, a program written by hand: found by
// the fuzzer, k = 8 into 3x4 results overran them) runs its decomposition, which the verifier
// has checked.
static bool TopKResultsFit(const Operation& op, int64_t k) {
  const Type in = op.operands[0]->type;
  for (size_t r = 0; r < 2; ++r) {
    const Type t = op.result(r)->type;
    if (!t.IsTensor() || !t.HasStaticShape() || t.rank() != in.rank() || t.shape().back() != k) return false;
    for (int64_t d = 0; d + 1 < in.rank(); ++d)
      if (t.shape()[d] != in.shape()[d]) return false;
  }
  return op.result(0)->type.element_type() == in.element_type();  // (values of the operand's kind)
}

// select (and chlo.broadcast_select, whose operands are broadcast first) as a fused-run member.
// pred_broadcast: the scalar predicate has been broadcast to the result's shape.
void Lowerer::MakeFusibleSelect(const Operation& op, Step& s, bool pred_broadcast) {
  const ElemKind k = ToArrayType(op, op.result(0)->type).elem;
  const bool chlo = op.code == OpCode::kChloBroadcastSelect;
  if (!chlo && !pred_broadcast && !OperandsFillResult(op)) return;
  s.raw_op = cpu::RawSelect(ir::ByteSize(k));
  s.raw_in_bytes[0] = ir::ByteSize(ElemKind::kI1);
  s.raw_in_bytes[1] = s.raw_in_bytes[2] = ir::ByteSize(k);
}

void Lowerer::LowerOp(const Operation& op, Env& env, Program& prog, int depth) {
  if (!quant_as_expressed_ && !QuantTransparent(op.code)) {
    bool quant = false;
    for (const Value* v : op.operands) quant |= HasQuant(v->type);
    for (size_t i = 0; i < op.num_results(); ++i) quant |= HasQuant(op.result(i)->type);
    if (quant) {
      LowerDequantized(op, env, prog, depth);
      return;
    }
  }
  UnaryOp u;
  BinaryOp b;
  bool broadcasting;
  const OpCode c = op.code;
  auto kind_of = [&](const Value* v) { return ToArrayType(op, v->type).elem; };
  if (UnaryOf(c, &u)) {
    KernelFn fn = Check(op, cpu::SelectUnary(u, kind_of(op.operands[0]), kind_of(op.result(0))));
    Step& s = AddStep(op, env, prog, fn, Operands(op, env));
    s.raw_unary = cpu::RawUnary(u, kind_of(op.operands[0]), kind_of(op.result(0)));
    s.vec_op = cpu::VecUnaryOf(u, kind_of(op.operands[0]), kind_of(op.result(0)));
    s.raw_in_bytes[0] = ir::ByteSize(kind_of(op.operands[0]));
    return;
  }
  if (BinaryOf(c, &b, &broadcasting)) {
    std::vector<int> in = broadcasting
        ? std::vector<int>{BroadcastOperand(op, env, prog, 0), BroadcastOperand(op, env, prog, 1)}
        : Operands(op, env);
    KernelFn fn = Check(op, cpu::SelectBinary(b, kind_of(op.operands[0]), kind_of(op.result(0))));
    Step& s = AddStep(op, env, prog, fn, in);
    s.raw_binary = cpu::RawBinary(b, kind_of(op.operands[0]), kind_of(op.result(0)));
    s.vec_op = cpu::VecBinaryOf(b, kind_of(op.operands[0]), kind_of(op.result(0)));
    for (int i = 0; i < 2; ++i)
      s.raw_binary_splat[i] = cpu::RawBinarySplat(b, kind_of(op.operands[0]), kind_of(op.result(0)), i);
    s.raw_in_bytes[0] = s.raw_in_bytes[1] = ir::ByteSize(kind_of(op.operands[0]));
    return;
  }
  switch (c) {
    case OpCode::kCompare:
    case OpCode::kChloBroadcastCompare: {
      ElemKind k = kind_of(op.operands[0]);
      auto p = std::make_shared<cpu::CompareParams>(CompareOf(op, k));
      std::vector<int> in = c == OpCode::kCompare
          ? Operands(op, env)
          : std::vector<int>{BroadcastOperand(op, env, prog, 0), BroadcastOperand(op, env, prog, 1)};
      Step& s = AddStep(op, env, prog, Check(op, cpu::SelectCompare(k, *p)), in);
      s.params = p;
      s.raw_op = cpu::RawCompare(k, *p);
      s.raw_in_bytes[0] = s.raw_in_bytes[1] = ir::ByteSize(k);
      return;
    }
    case OpCode::kSelect: {
      std::vector<int> in = Operands(op, env);
      // A scalar predicate (jnp.var's ddof guard over per-row variances) becomes a broadcast that
      // fused runs read in place, so the select joins its neighbours' loop.
      const Type pred = op.operands[0]->type, rt = op.result(0)->type;
      if (pred.IsTensor() && pred.HasStaticShape() && pred.rank() == 0 && rt.IsTensor() && rt.HasStaticShape() &&
          rt.NumElements() > 1 && op.operands[1]->type == rt && op.operands[2]->type == rt) {
        ArrayType bt = ToArrayType(op, rt);
        bt.elem = ElemKind::kI1;
        in[0] = AddHelperStep(op, prog, cpu::BroadcastInDimKernel(), {in[0]}, bt,
                              std::make_shared<cpu::BroadcastParams>());
        prog.steps.back().broadcast_period = 1;
        prog.steps.back().broadcast_inner = 1;
        Step& s = AddStep(op, env, prog, cpu::SelectKernel(), in);
        MakeFusibleSelect(op, s, /*pred_broadcast=*/true);
        return;
      }
      Step& s = AddStep(op, env, prog, cpu::SelectKernel(), in);
      MakeFusibleSelect(op, s);
      return;
    }
    case OpCode::kUniformQuantize: {
      Type in = op.operands[0]->type, out = op.result(0)->type;
      int slot = Use(op, env, op.operands[0]);
      if (HasQuant(in)) slot = Dequantize(op, prog, slot, in);  // requantization
      env.slots[op.result(0)] = Quantize(op, prog, slot, out);
      return;
    }
    case OpCode::kUniformDequantize:
      env.slots[op.result(0)] = Dequantize(op, prog, Use(op, env, op.operands[0]), op.operands[0]->type);
      return;
    case OpCode::kChloBroadcastSelect: {
      std::vector<int> in;
      for (size_t i = 0; i < 3; ++i) in.push_back(BroadcastOperand(op, env, prog, i));
      Step& s = AddStep(op, env, prog, cpu::SelectKernel(), in);
      MakeFusibleSelect(op, s);
      return;
    }
    case OpCode::kClamp: {
      const ElemKind k = kind_of(op.result(0));
      std::vector<int> in = Operands(op, env);
      const ArrayType rt = ToArrayType(op, op.result(0)->type);
      // Scalar bounds (jnp.clip(x, 0, 6)) become broadcasts that fused runs read in place, so the
      // clamp joins its neighbours' loop.
      bool fill = true;
      for (size_t i : {size_t{0}, size_t{2}}) {
        const Type t = op.operands[i]->type;
        if (t.HasStaticShape() && t.rank() == 0 && rt.NumElements() > 1) {
          auto p = std::make_shared<cpu::BroadcastParams>();
          in[i] = AddHelperStep(op, prog, cpu::BroadcastInDimKernel(), {in[i]}, rt, p);
          prog.steps.back().broadcast_period = 1;
          prog.steps.back().broadcast_inner = 1;
        } else {
          fill &= t == op.result(0)->type;
        }
      }
      Step& s = AddStep(op, env, prog, Check(op, cpu::SelectClamp(k)), in);
      if (fill && op.operands[1]->type == op.result(0)->type) {
        s.raw_op = cpu::RawClamp(k);
        if (k == ElemKind::kF32) s.vec_op = cpu::VecOp::kClamp;
        s.raw_in_bytes[0] = s.raw_in_bytes[1] = s.raw_in_bytes[2] = ir::ByteSize(k);
      }
      return;
    }
    case OpCode::kConvert: {
      const ElemKind from = kind_of(op.operands[0]), to = kind_of(op.result(0));
      Step& s = AddStep(op, env, prog, Check(op, cpu::SelectConvert(from, to)), Operands(op, env));
      s.raw_op = cpu::RawConvert(from, to);
      s.raw_in_bytes[0] = ir::ByteSize(from);
      return;
    }
    case OpCode::kBitcastConvert:
      AddStep(op, env, prog,
              Check(op, cpu::SelectBitcastConvert(kind_of(op.operands[0]), kind_of(op.result(0)))),
              Operands(op, env));
      return;
    case OpCode::kReducePrecision: {
      auto p = std::make_shared<cpu::ReducePrecisionParams>();
      p->exponent_bits = static_cast<int>(Int(op, "exponent_bits", 8));
      p->mantissa_bits = static_cast<int>(Int(op, "mantissa_bits", 23));
      AddStep(op, env, prog, Check(op, cpu::SelectReducePrecision(kind_of(op.result(0)))),
              Operands(op, env)).params = p;
      return;
    }
    case OpCode::kConstant:
    case OpCode::kChloConstant: {
      Attribute v = op.attr("value");
      if (v && v.kind() == AttrKind::kDenseElements && v->splat && v->type.IsTensor() &&
          v->type.HasStaticShape() && v->type.NumElements() > 1 && !HasQuant(v->type)) {
        auto p = std::make_shared<cpu::SplatConstantParams>();
        p->type = ToArrayType(op, v->type);
        p->element.assign(v->data->begin(), v->data->begin() + p->type.ElementSize());
        AddStep(op, env, prog, cpu::SplatConstantKernel(), {}).params = p;
        return;
      }
      auto p = std::make_shared<cpu::ConstantParams>();
      p->value = DenseToArray(op, v);
      AddStep(op, env, prog, cpu::ConstantKernel(), {}).params = p;
      return;
    }
    case OpCode::kIota: {
      auto p = std::make_shared<cpu::IotaParams>();
      p->dim = Int(op, "iota_dimension", 0);
      AddStep(op, env, prog, Check(op, cpu::SelectIota(kind_of(op.result(0)))), {}).params = p;
      return;
    }
    case OpCode::kBroadcastInDim: {
      auto p = std::make_shared<cpu::BroadcastParams>();
      p->dims = I64s(op, "broadcast_dimensions");
      Step& s = AddStep(op, env, prog, cpu::BroadcastInDimKernel(), Operands(op, env));
      s.params = p;
      // The operand's dimensions larger than one fill consecutive dimensions of the result in
      // order ([outer..., operand..., inner...]; its size-1 dimensions, which JAX's keepdims
      // reductions leave before a broadcast, add nothing to the index): element e of the result is
      // operand element (e / inner) % size, which fused runs read without the broadcast (bias
      // rows, per-row statistics, scalars).
      const Type in = op.operands[0]->type, res = op.result(0)->type;
      bool run = in.HasStaticShape() && res.HasStaticShape() && in.rank() <= res.rank();
      int64_t first = -1, last = res.rank();
      for (int64_t d = 0; run && d < in.rank(); ++d) {
        if (in.shape()[d] == 1) continue;
        run = p->dims[d] < res.rank() && in.shape()[d] == res.shape()[p->dims[d]] &&
              (first < 0 || p->dims[d] == last);
        if (first < 0) first = p->dims[d];
        last = p->dims[d] + 1;
      }
      if (run && in.NumElements() > 0 && in.NumElements() == res.NumElements()) {
        // Only dimensions of size 1 added ([R] -> [R, 1], what JAX's keepdims leaves before a
        // softmax's division): the same elements in the same order, so a reshape that keeps the
        // storage (a copy of 32768 row sums had cost 72 us of softmax's 3.9 ms over rows of 128).
        s.fn = cpu::ReshapeKernel();
        s.params = nullptr;
        return;
      }
      if (run && in.NumElements() > 0) {
        int64_t inner = 1;
        for (int64_t d = first < 0 ? res.rank() : last; d < res.rank(); ++d) inner *= res.shape()[d];
        s.broadcast_period = in.NumElements();
        s.broadcast_inner = in.NumElements() == 1 ? 1 : inner;
      }
      return;
    }
    case OpCode::kBroadcast: {
      auto p = std::make_shared<cpu::BroadcastParams>();
      int64_t extra = static_cast<int64_t>(I64s(op, "broadcast_sizes").size());
      for (int64_t d = 0; d < op.operands[0]->type.rank(); ++d) p->dims.push_back(extra + d);
      AddStep(op, env, prog, cpu::BroadcastInDimKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kReshape:
      AddStep(op, env, prog, cpu::ReshapeKernel(), Operands(op, env));
      return;
    case OpCode::kTranspose: {
      auto p = std::make_shared<cpu::TransposeParams>();
      p->perm = I64s(op, "permutation");
      AddStep(op, env, prog, cpu::TransposeKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kReverse: {
      auto p = std::make_shared<cpu::ReverseParams>();
      p->dims = I64s(op, "dimensions");
      AddStep(op, env, prog, cpu::ReverseKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kConcatenate: {
      auto p = std::make_shared<cpu::ConcatParams>();
      p->dim = Int(op, "dimension", 0);
      AddStep(op, env, prog, cpu::ConcatenateKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kSlice: {
      auto p = std::make_shared<cpu::SliceParams>();
      p->start = I64s(op, "start_indices");
      p->limit = I64s(op, "limit_indices");
      p->strides = I64s(op, "strides");
      AddStep(op, env, prog, cpu::SliceKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kPad: {
      auto p = std::make_shared<cpu::PadParams>();
      p->low = I64s(op, "edge_padding_low");
      p->high = I64s(op, "edge_padding_high");
      p->interior = I64s(op, "interior_padding");
      AddStep(op, env, prog, cpu::PadKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kDynamicSlice: {
      auto p = std::make_shared<cpu::DynamicSliceParams>();
      p->sizes = I64s(op, "slice_sizes");
      {
        const cpu::Dims d = ToArrayType(op, op.operands[0]->type).dims;
        p->operand_dims.assign(d.begin(), d.end());
      }
      AddStep(op, env, prog, cpu::DynamicSliceKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kDynamicUpdateSlice:
      AddStep(op, env, prog, cpu::DynamicUpdateSliceKernel(), Operands(op, env));
      return;
    case OpCode::kGetDimensionSize: {
      int64_t d = Int(op, "dimension", 0);
      ArrayType in = ToArrayType(op, op.operands[0]->type);
      auto p = std::make_shared<cpu::ConstantParams>();
      cpu::Array a = cpu::Array::Allocate(ArrayType{ElemKind::kI32, {}});
      *a.mutable_as<int32_t>() = static_cast<int32_t>(in.dims[d]);
      p->value = cpu::RtValue::Of(std::move(a));
      AddStep(op, env, prog, cpu::ConstantKernel(), {}).params = p;
      return;
    }
    case OpCode::kReduce: {
      auto p = std::make_shared<cpu::ReduceParams>();
      p->dims = I64s(op, "dimensions");
      std::vector<ElemKind> kinds;
      for (size_t i = 0; i < op.num_results(); ++i) kinds.push_back(kind_of(op.result(i)));
      if (op.num_results() == 1) p->has_fast = FastReducer(op, &p->fast);
      if (op.num_results() == 2 && op.regions[0]->front())
        p->has_arg = MatchArgReducer(*op.regions[0]->front(), &p->arg);
      for (size_t i = 0; i < op.operands.size() / 2; ++i)
        if (kind_of(op.operands[i]) != kinds[i]) p->has_fast = p->has_arg = false;
      KernelFn fn = Check(op, cpu::SelectReduce(*p, kinds));
      std::vector<ElemKind> want = kinds;
      want.insert(want.end(), kinds.begin(), kinds.end());  // inputs, then init values
      std::vector<int> in = OperandsAs(op, env, prog, want);
      if (p->has_arg && p->dims.size() == 1 && cpu::IsArgReduceKernel(fn)) {
        // argmax's indices: an iota along the reduced dimension need not be read (and, when
        // nothing else reads it, DropUnreadSteps removes it). Only the arg loops know positions:
        // values of other kinds (i8, f8, ...) and unsigned indices take the generic reduction,
        // which reads the iota.
        const ir::Operation* iota = op.operands[1]->def;
        p->arg_positions = iota && iota->code == OpCode::kIota && Int(*iota, "iota_dimension", -1) == p->dims[0];
        if (p->arg_positions) in[1] = in[3];
      }
      std::shared_ptr<Program> body = p->has_fast ? nullptr : LowerRegion(op, 0, env, depth);
      Step& s = AddStep(op, env, prog, fn, in);
      s.params = p;
      if (body) s.regions.push_back(body);
      return;
    }
    case OpCode::kDotGeneral:
    case OpCode::kDot:
    case OpCode::kChloRaggedDot:
      LowerProduct(op, env, prog);
      return;
    case OpCode::kDynamicBroadcastInDim: {
      auto p = std::make_shared<cpu::BroadcastParams>();
      p->dims = I64s(op, "broadcast_dimensions");
      AddStep(op, env, prog, cpu::BroadcastInDimKernel(), {Use(op, env, op.operands[0])}).params = p;
      return;
    }
    case OpCode::kDynamicIota: {
      auto p = std::make_shared<cpu::IotaParams>();
      p->dim = Int(op, "iota_dimension", 0);
      AddStep(op, env, prog, Check(op, cpu::SelectIota(kind_of(op.result(0)))), {}).params = p;
      return;
    }
    case OpCode::kDynamicReshape:
      if (ToArrayType(op, op.operands[0]->type).NumElements() !=
          ToArrayType(op, op.result(0)->type).NumElements())
        Fail(op, absl::StatusCode::kInvalidArgument, "operand and result sizes differ");
      AddStep(op, env, prog, cpu::ReshapeKernel(), {Use(op, env, op.operands[0])});
      return;
    case OpCode::kDynamicPad:
      AddStep(op, env, prog, cpu::DynamicPadKernel(), Operands(op, env));
      return;
    case OpCode::kRealDynamicSlice:
      AddStep(op, env, prog, cpu::RealDynamicSliceKernel(), Operands(op, env));
      return;
    case OpCode::kGather:
    case OpCode::kDynamicGather:
    case OpCode::kScatter:
      LowerIndexed(op, env, prog, depth);
      return;
    case OpCode::kSort: {
      auto p = std::make_shared<cpu::SortParams>();
      p->dimension = Int(op, "dimension", -1);
      if (op.regions[0]->front()) p->by_key = MatchSortKey(*op.regions[0]->front(), &p->key);
      std::vector<int> in = Operands(op, env);
      auto cmp = LowerRegion(op, 0, env, depth);
      Step& s = AddStep(op, env, prog, cpu::SortKernel(), in);
      s.params = p;
      s.regions.push_back(cmp);
      return;
    }
    case OpCode::kReduceWindow:
    case OpCode::kSelectAndScatter:
    case OpCode::kConvolution:
    case OpCode::kDynamicConv:
    case OpCode::kBatchNormInference:
    case OpCode::kBatchNormTraining:
    case OpCode::kBatchNormGrad:
      LowerWindowed(op, env, prog, depth);
      return;
    case OpCode::kCholesky: {
      auto p = std::make_shared<cpu::CholeskyParams>();
      Attribute lower = op.attr("lower");
      p->lower = lower && lower.kind() == AttrKind::kBool && lower->int_value;
      AddStep(op, env, prog, cpu::CholeskyKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kTriangularSolve: {
      auto p = std::make_shared<cpu::TriangularSolveParams>();
      auto flag = [&](const char* n) {
        Attribute a = op.attr(n);
        return a && a.kind() == AttrKind::kBool && a->int_value != 0;
      };
      p->left_side = flag("left_side");
      p->lower = flag("lower");
      p->unit_diagonal = flag("unit_diagonal");
      Attribute t = op.attr("transpose_a");
      std::string tv = t && t.kind() == AttrKind::kEnum ? t->str : "NO_TRANSPOSE";
      p->transpose = tv == "TRANSPOSE" ? cpu::TriangularSolveParams::kTranspose
                     : tv == "ADJOINT" ? cpu::TriangularSolveParams::kAdjoint
                                       : cpu::TriangularSolveParams::kNoTranspose;
      AddStep(op, env, prog, cpu::TriangularSolveKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kFft: {
      auto p = std::make_shared<cpu::FftParams>();
      Attribute t = op.attr("fft_type");
      std::string tv = t && t.kind() == AttrKind::kEnum ? t->str : "FFT";
      p->type = tv == "IFFT" ? cpu::FftParams::kIfft : tv == "RFFT" ? cpu::FftParams::kRfft
                : tv == "IRFFT" ? cpu::FftParams::kIrfft : cpu::FftParams::kFft;
      p->lengths = I64s(op, "fft_length");
      AddStep(op, env, prog, cpu::FftKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kChloTopK: {
      auto p = std::make_shared<cpu::TopKParams>();
      p->k = Int(op, "k", 0);
      p->largest = Int(op, "largest", 1) != 0;
      if (ir::IsComplex(kind_of(op.operands[0])) || kind_of(op.result(1)) != ElemKind::kI32)
        Unimplemented(op, "top_k on complex operands or with non-i32 indices");
      AddStep(op, env, prog, cpu::TopKKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kRng: {
      auto p = std::make_shared<cpu::RngDistributionParams>();
      p->normal = op.attr("rng_distribution")->str == "NORMAL";
      const ElemKind k = kind_of(op.result(0));
      cpu::KernelFn fn = cpu::RngDistributionKernel(k);
      if (!fn) Unimplemented(op, StrCat("rng on ", ir::ElemKindName(k)));
      AddStep(op, env, prog, fn, Operands(op, env)).params = p;
      return;
    }
    case OpCode::kRngBitGenerator: {
      auto p = std::make_shared<cpu::RngParams>();
      Attribute alg = op.attr("rng_algorithm");
      p->philox = !(alg && alg.kind() == AttrKind::kEnum && alg->str == "THREE_FRY");
      ArrayType state = ToArrayType(op, op.operands[0]->type);
      if (state.ElementSize() * state.NumElements() % 8 != 0 || state.ByteSize() < 8)
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("the state must hold whole 64-bit words, got ", state.ToString()));
      AddStep(op, env, prog, cpu::RngBitGeneratorKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kChloConstantLike: {
      Attribute v = op.attr("value");
      ArrayType t = ToArrayType(op, op.result(0)->type);
      cpu::Array a = cpu::Array::Allocate(t);
      if (!v || (v.kind() != AttrKind::kFloat && v.kind() != AttrKind::kInteger && v.kind() != AttrKind::kBool))
        Fail(op, absl::StatusCode::kInvalidArgument, "needs a scalar 'value'");
      // Write the value through convert's rules: from f64 or i64 into the element kind.
      cpu::Array src = cpu::Array::Allocate(ArrayType{v.kind() == AttrKind::kFloat ? ElemKind::kF64 : ElemKind::kI64, {}});
      if (v.kind() == AttrKind::kFloat) {
        *src.mutable_as<double>() = v->float_value;
      } else {
        *src.mutable_as<int64_t>() = v->int_value;
      }
      KernelFn conv = Check(op, cpu::SelectConvert(src.elem(), t.elem));
      Step tmp;
      tmp.fn = conv;
      tmp.in = {0};
      tmp.out = {1};
      tmp.out_types = {ArrayType{t.elem, {}}};
      cpu::ExecState ts;
      ts.slots.resize(2);
      ts.slots[0] = cpu::RtValue::Of(src);
      conv(tmp, ts);
      const int64_t es = t.ElementSize();
      for (int64_t i = 0; i < t.NumElements(); ++i)
        std::memcpy(a.mutable_data() + i * es, ts.slots[1].array.data(), es);
      auto p = std::make_shared<cpu::ConstantParams>();
      p->value = cpu::RtValue::Of(std::move(a));
      AddStep(op, env, prog, cpu::ConstantKernel(), {}).params = p;
      return;
    }
    case OpCode::kMap: {
      std::vector<int> in = Operands(op, env);
      auto body = LowerRegion(op, 0, env, depth);
      AddStep(op, env, prog, cpu::MapKernel(), in).regions.push_back(body);
      return;
    }
    case OpCode::kWhile: {
      std::vector<int> in = Operands(op, env);
      auto cond = LowerRegion(op, 0, env, depth);
      auto body = LowerRegion(op, 1, env, depth);
      Step& s = AddStep(op, env, prog, cpu::WhileKernel(), in);
      s.regions = {cond, body};
      return;
    }
    case OpCode::kChloScan: {
      auto p = std::make_shared<cpu::ScanParams>();
      std::vector<int64_t> seg;
      GetI64List(op.attr("operandSegmentSizes"), &seg);  // checked by the verifier
      p->num_inputs = static_cast<size_t>(seg[0]);
      p->dimension = Int(op, "dimension", 0);
      int64_t reverse = 0;
      p->reverse = GetInt(op.attr("is_reverse"), &reverse) && reverse != 0;
      std::vector<int> in = Operands(op, env);
      auto body = LowerRegion(op, 0, env, depth);
      Step& s = AddStep(op, env, prog, cpu::ScanKernel(), in);
      s.params = p;
      s.regions.push_back(body);
      return;
    }
    case OpCode::kIf:
    case OpCode::kCase: {
      std::vector<int> in = Operands(op, env);
      std::vector<std::shared_ptr<Program>> regions;
      for (size_t r = 0; r < op.regions.size(); ++r) regions.push_back(LowerRegion(op, r, env, depth));
      Step& s = AddStep(op, env, prog, c == OpCode::kIf ? cpu::IfKernel() : cpu::CaseKernel(), in);
      s.regions = std::move(regions);
      return;
    }
    case OpCode::kFuncCall: {
      Attribute callee = op.attr("callee");
      const Operation* f = callee && callee.kind() == AttrKind::kSymbolRef && callee->symbols.size() == 1
                               ? m_.LookupFunction(callee->symbols[0]) : nullptr;
      if (!f) Fail(op, absl::StatusCode::kInvalidArgument, "unknown callee");
      LowerCall(op, *f, env, prog, depth);
      return;
    }
    case OpCode::kComposite: {
      // JAX 0.11 sends lax.top_k as a chlo.top_k composite whose decomposition sorts whole rows
      // (TOTALORDER, descending, stable) and slices; the top-k kernel gives the same values and
      // indices without the sort.
      Attribute name = op.attr("name"), attrs = op.attr("composite_attributes");
      Attribute k = attrs && attrs.kind() == AttrKind::kDictionary ? attrs.Field("k") : Attribute();
      int64_t kv = 0;
      if (name && name.kind() == AttrKind::kString && name->str == "chlo.top_k" && k && ir::GetInt(k, &kv) &&
          op.operands.size() == 1 && op.num_results() == 2 && !ir::IsComplex(kind_of(op.operands[0])) &&
          kind_of(op.result(1)) == ElemKind::kI32 && op.operands[0]->type.HasStaticShape() &&
          op.operands[0]->type.rank() >= 1 && kv >= 0 && kv <= op.operands[0]->type.shape().back() &&
          TopKResultsFit(op, kv)) {
        auto p = std::make_shared<cpu::TopKParams>();
        p->k = kv;
        AddStep(op, env, prog, cpu::TopKKernel(), Operands(op, env)).params = p;
        return;
      }
      Attribute d = op.attr("decomposition");
      const Operation* f = d && d.kind() == AttrKind::kSymbolRef && d->symbols.size() == 1
                               ? m_.LookupFunction(d->symbols[0]) : nullptr;
      if (!f) Fail(op, absl::StatusCode::kInvalidArgument, "unknown decomposition");
      LowerCall(op, *f, env, prog, depth);
      return;
    }
    case OpCode::kOptimizationBarrier:
    // Shardy's sharding annotations: the program's values are global, so they pass through.
    case OpCode::kSdyShardingConstraint:
    case OpCode::kSdyReshard:
    case OpCode::kSdyPropagationBarrier:
      AddStep(op, env, prog, cpu::CopyKernel(), Operands(op, env));
      return;
    case OpCode::kSdyShardingGroup:
      return;  // a constraint for sharding propagation; nothing runs
    case OpCode::kSdyManualComputation:
    case OpCode::kSdyNamedComputation:
      LowerSdyComputation(op, env, prog, depth);
      return;
    case OpCode::kSetDimensionSize:
      // With static shapes the result is the operand; the size operand only bounds it.
      AddStep(op, env, prog, cpu::CopyKernel(), {Use(op, env, op.operands[0])});
      return;
    case OpCode::kTuple:
      AddStep(op, env, prog, cpu::TupleKernel(), Operands(op, env));
      return;
    case OpCode::kGetTupleElement: {
      auto p = std::make_shared<cpu::GetTupleElementParams>();
      p->index = Int(op, "index", 0);
      AddStep(op, env, prog, cpu::GetTupleElementKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kAfterAll:
    case OpCode::kCreateToken:
      AddStep(op, env, prog, cpu::TokenKernel(), Operands(op, env));
      return;
    case OpCode::kReplicaId:
      AddStep(op, env, prog, cpu::ReplicaIdKernel(), {});
      return;
    case OpCode::kPartitionId:
      AddStep(op, env, prog, cpu::PartitionIdKernel(), {});
      return;
    case OpCode::kCheckExpectEq:
    case OpCode::kCheckExpectEqConst:
      LowerCheck(op, env, prog, cpu::CheckParams::kEq, false);
      return;
    case OpCode::kCheckExpectAlmostEq:
    case OpCode::kCheckExpectAlmostEqConst:
      LowerCheck(op, env, prog, cpu::CheckParams::kAlmostEq, false);
      return;
    case OpCode::kCheckExpectClose:
      LowerCheck(op, env, prog, cpu::CheckParams::kClose, false);
      return;
    case OpCode::kCustomCall:
      LowerCustomCall(op, env, prog, depth);
      return;
    case OpCode::kAllReduce:
    case OpCode::kCollectiveReduce:
    case OpCode::kAllGather:
    case OpCode::kReduceScatter:
    case OpCode::kAllToAll:
    case OpCode::kCollectivePermute:
    case OpCode::kCollectiveBroadcast:
    case OpCode::kCrossReplicaSum:
      LowerCollective(op, env, prog, depth);
      return;
    case OpCode::kInterpreterRunParallel:
      LowerRunParallel(op, env, prog, depth);
      return;
    case OpCode::kInterpreterPrint:
      AddStep(op, env, prog, cpu::PrintKernel(), Operands(op, env));
      return;
    case OpCode::kInterpreterProbe:
    case OpCode::kCheckExpectSerializedEq: {
      auto p = std::make_shared<cpu::ProbeParams>();
      Attribute id = op.attr("probe_id");
      if (!id || id.kind() != AttrKind::kString) Fail(op, absl::StatusCode::kInvalidArgument, "needs a probe_id string");
      p->id = id->str;
      p->iter = Int(op, "iter", 0);
      const bool probe = op.code == OpCode::kInterpreterProbe;
      AddStep(op, env, prog, probe ? cpu::ProbeKernel() : cpu::SerializedEqKernel(), Operands(op, env)).params = p;
      return;
    }
    case OpCode::kSend:
    case OpCode::kRecv:
      LowerHostTransfer(op, env, prog);
      return;
    case OpCode::kEinsum:
    case OpCode::kUnaryEinsum:
    case OpCode::kTorchIndexSelect:
      LowerLegacy(op, env, prog);
      return;
    case OpCode::kInfeed:
    case OpCode::kOutfeed:
      Fail(op, absl::StatusCode::kUnimplemented, "infeed and outfeed are not supported by the CPU "
           "plugin (send and recv with is_host_transfer = true reach the PJRT host callbacks)");
    default:
      Fail(op, absl::StatusCode::kUnimplemented, "is not supported by the CPU executor yet");
  }
}

void Lowerer::LowerSdyComputation(const Operation& op, Env& env, Program& prog, int depth) {
  const ir::Block* body = op.regions[0]->front();
  auto whole = [&](Type global, Type local, const char* what, size_t i) {
    if (global == local) return;
    Attribute axes = op.attr("manual_axes");
    Fail(op, absl::StatusCode::kUnimplemented,
         StrCat("splits ", what, " #", i, " ", global.ToString(), " into per-device shards ", local.ToString(),
                " over the manual axes ", axes && axes.kind() == AttrKind::kOpaque ? axes->str : "?",
                ": SPMD partitioning is not supported by the CPU plugin (a manual computation runs when its "
                "shards are the whole values, as on a mesh of one device)"));
  };
  for (size_t i = 0; i < op.operands.size(); ++i) whole(op.operands[i]->type, body->args[i]->type, "operand", i);
  for (size_t i = 0; i < op.num_results(); ++i)
    whole(op.result(i)->type, body->terminator()->operands[i]->type, "result", i);
  Env inner;
  inner.parent = nullptr;  // the body is isolated from above
  for (size_t i = 0; i < body->args.size(); ++i) inner.slots[body->args[i].get()] = Use(op, env, op.operands[i]);
  std::vector<int> results = LowerBlock(*body, inner, prog, depth + 1);
  for (size_t i = 0; i < op.num_results(); ++i) env.slots[op.result(i)] = results[i];
}

}  // namespace internal

using internal::CompileError;
using internal::Lowerer;
using ir::OpCode;
using ir::Operation;


const Operation* FindEntry(const ir::Module& module, const std::string& name) {
  if (!name.empty()) return module.LookupFunction(name);
  if (const Operation* f = module.LookupFunction("main")) return f;
  const Operation* only = nullptr;
  int count = 0;
  for (const auto& op : module.body()->ops) {
    if (op->code == OpCode::kFunc) {
      only = op.get();
      ++count;
    }
  }
  return count == 1 ? only : nullptr;
}

absl::Status SpecialiseEntry(ir::Module& module, ir::Operation& entry,
                             const std::vector<std::vector<int64_t>>& arg_dims) {
  if (entry.regions.empty() || !entry.regions[0]->front())
    return absl::InvalidArgumentError(StrCat("@", ir::FuncName(entry), " has no body"));
  ir::Block& body = *entry.regions[0]->front();
  if (arg_dims.size() != body.args.size())
    return absl::InvalidArgumentError(
        StrCat("@", ir::FuncName(entry), " takes ", body.args.size(), " arguments, got ", arg_dims.size()));
  std::vector<ir::Type> inputs;
  bool changed = false;
  for (size_t i = 0; i < body.args.size(); ++i) {
    ir::Type t = body.args[i]->type;
    if (t.IsTensor() && !t.HasStaticShape()) {
      const std::vector<int64_t>& dims = arg_dims[i];
      bool fits = dims.size() == t.shape().size();
      for (size_t d = 0; fits && d < dims.size(); ++d)
        fits = dims[d] >= 0 && (t.shape()[d] == ir::kDynamic || t.shape()[d] == dims[d]);
      if (!fits) {
        std::string shape;
        for (size_t d = 0; d < dims.size(); ++d) StrAppend(&shape, d ? "x" : "", dims[d]);
        return absl::InvalidArgumentError(StrCat("argument #", i, " of shape [", shape, "] does not fit @",
                                                 ir::FuncName(entry), "'s type ", t.ToString()));
      }
      t = module.ctx->Tensor(dims, t.element_type());
      body.args[i]->type = t;
      changed = true;
    }
    inputs.push_back(t);
  }
  if (!changed) return absl::OkStatus();
  entry.SetAttr("function_type",
                ir::Attribute::TypeAttr(module.ctx->Function(inputs, ir::FuncType(entry).results())));
  if (absl::Status s = ir::VerifyModule(module); !s.ok()) return absl::InvalidArgumentError(s.message());
  return absl::OkStatus();
}

namespace {

}  // namespace

absl::StatusOr<std::shared_ptr<cpu::Executable>> Compile(ir::Module& module,
                                                         const CompileOptions& options) {
  Operation* entry = const_cast<Operation*>(FindEntry(module, options.entry));
  if (!entry) {
    return absl::InvalidArgumentError(
        options.entry.empty()
            ? StrCat(module.source_name, ": error: no entry function: expected @main or exactly one function")
            : StrCat(module.source_name, ": error: no function @", options.entry));
  }
  if (HasDynamicShapes(module)) {
    if (absl::Status s = RefineShapes(module, *entry, &options.entry_arg_values); !s.ok()) return s;
    // The refined module must still be well formed (dynamic_broadcast_in_dim's sizes against its
    // operand, callers against their specialised callees, ...).
    if (absl::Status s = ir::VerifyModule(module); !s.ok()) return absl::InvalidArgumentError(s.message());
  }
  for (const auto& f : module.body()->ops) {
    if (f->code != OpCode::kFunc || f->regions.empty() || !f->regions[0]->front()) continue;
    FoldTransposes(module, *f);
    DivideByReciprocals(*f);
  }
  try {
    Lowerer l(module);
    return l.LowerEntry(*entry);
  } catch (const CompileError& e) {
    return absl::Status(e.code, e.what());
  }
}

}  // namespace openpjrt::compiler
