// Lowering from IR to a cpu::Program (see compile.h).
#include "src/compiler/compile.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "src/compiler/passes.h"
#include "src/compiler/refine.h"
#include "src/cpu/collectives.h"
#include "src/cpu/ffi.h"
#include "src/cpu/kernels.h"
#include "src/cpu/kernels_indexing.h"
#include "src/cpu/kernels_linalg.h"
#include "src/cpu/kernels_quant.h"
#include "src/cpu/kernels_rng.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"
#include "src/support/str.h"

namespace openpjrt::compiler {
namespace {

using cpu::ArrayType;
using cpu::BinaryOp;
using cpu::KernelFn;
using cpu::Program;
using cpu::Step;
using cpu::UnaryOp;
using ir::AttrKind;
using ir::Attribute;
using ir::ElemKind;
using ir::OpCode;
using ir::Operation;
using ir::Type;
using ir::Value;

class CompileError : public std::runtime_error {
 public:
  CompileError(absl::StatusCode code, std::string msg) : std::runtime_error(msg), code(code) {}
  absl::StatusCode code;
};

// Value -> slot, with a parent for regions and a fresh map for each inlined call.
struct Env {
  const Env* parent = nullptr;
  std::unordered_map<const Value*, int> slots;
  int Lookup(const Value* v) const {
    for (const Env* e = this; e; e = e->parent) {
      auto it = e->slots.find(v);
      if (it != e->slots.end()) return it->second;
    }
    return -1;
  }
};

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

// StableHLO binary ops, and the CHLO broadcasting ops that map onto them.
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

class Lowerer {
 public:
  Lowerer(const ir::Module& m) : m_(m) {}

  std::shared_ptr<cpu::Executable> LowerEntry(const Operation& func) {
    auto exe = std::make_shared<cpu::Executable>();
    exe->name = std::string(ir::FuncName(func));
    exe->program = std::make_shared<Program>();
    Env env;
    const ir::Block* body = func.regions.empty() ? nullptr : func.regions[0]->front();
    if (!body) Fail(func, absl::StatusCode::kInvalidArgument, "the entry function has no body");
    for (const auto& a : body->args) {
      if (a->type.IsTensor() && !a->type.HasStaticShape())
        Fail(func, absl::StatusCode::kInvalidArgument,
             StrCat("argument #", a->index, " has the dynamic type ", a->type.ToString(),
                    ": the entry point needs static argument types (functions it calls may use "
                    "dynamic ones; they are refined from the arguments)"));
      int s = NewSlot();
      env.slots[a.get()] = s;
      exe->program->args.push_back(s);
      exe->arg_types.push_back(a->type.IsTensor() ? ToArrayType(func, a->type) : ArrayType{});
    }
    std::vector<int> results = LowerBlock(*body, env, *exe->program, 0);
    exe->program->results = results;
    for (Type t : ir::FuncType(func).results()) {
      exe->result_types.push_back(t.IsTensor() ? ToArrayType(func, t) : ArrayType{});
      exe->result_is_token.push_back(t.IsToken());
    }
    FuseElementwise(*exe->program);
    FuseReductions(*exe->program);
    ComputeReleases(*exe->program);
    exe->num_slots = next_slot_;
    return exe;
  }

 private:
  [[noreturn]] void Fail(const Operation& op, absl::StatusCode code, const std::string& msg) {
    throw CompileError(code, StrCat(m_.source_name, ":", op.loc.line, ":", op.loc.col, ": error: '",
                                    op.name(), "' op ", msg));
  }
  [[noreturn]] void Unimplemented(const Operation& op, const std::string& what) {
    Fail(op, absl::StatusCode::kUnimplemented, StrCat(what, " is not supported by the CPU executor yet"));
  }
  template <typename T>
  T Check(const Operation& op, absl::StatusOr<T> v) {
    if (!v.ok()) Fail(op, v.status().code(), std::string(v.status().message()));
    return *std::move(v);
  }

  int NewSlot() { return next_slot_++; }

  ArrayType ToArrayType(const Operation& op, Type t) {
    if (!t.IsTensor()) Fail(op, absl::StatusCode::kInvalidArgument, StrCat("expected a tensor, got ", t.ToString()));
    if (!t.HasStaticShape())
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("dynamic shape ", t.ToString(), " must be refined to a static shape before execution"));
    Type et = t.element_type();
    ArrayType a;
    if (et.IsQuant()) {
      // Quantized tensors hold their storage integers, or their expressed values while an op
      // runs dequantized.
      a.elem = quant_as_expressed_ ? et.quant().expressed : et.quant().storage;
      a.dims.assign(t.shape().begin(), t.shape().end());
      return a;
    }
    if (et.elem() == ElemKind::kTF32) Unimplemented(op, "tf32");
    a.elem = et.elem();
    a.dims.assign(t.shape().begin(), t.shape().end());
    return a;
  }

  // Lowers the ops of `block` into `prog`; returns the slots of its terminator's operands.
  std::vector<int> LowerBlock(const ir::Block& block, Env& env, Program& prog, int depth) {
    if (depth > 64) Fail(*block.parent->parent, absl::StatusCode::kInvalidArgument,
                         "calls nest more than 64 deep (recursion is not allowed)");
    for (const auto& op : block.ops) {
      if (op->code == OpCode::kReturn || op->code == OpCode::kFuncReturn) {
        std::vector<int> r;
        for (const Value* v : op->operands) r.push_back(Use(*op, env, v));
        return r;
      }
      LowerOp(*op, env, prog, depth);
    }
    Fail(*block.parent->parent, absl::StatusCode::kInvalidArgument, "block has no terminator");
  }

  int Use(const Operation& op, const Env& env, const Value* v) {
    int s = env.Lookup(v);
    if (s < 0) Fail(op, absl::StatusCode::kInternal, "operand has no slot");
    return s;
  }

  // A nested program for region `r` of `op`.
  std::shared_ptr<Program> LowerRegion(const Operation& op, size_t r, Env& outer, int depth) {
    auto prog = std::make_shared<Program>();
    Env env;
    env.parent = &outer;
    const ir::Block* b = op.regions[r]->front();
    if (!b) Fail(op, absl::StatusCode::kInvalidArgument, "empty region");
    for (const auto& a : b->args) {
      int s = NewSlot();
      env.slots[a.get()] = s;
      prog->args.push_back(s);
    }
    prog->results = LowerBlock(*b, env, *prog, depth);
    return prog;
  }

  Step& AddStep(const Operation& op, Env& env, Program& prog, KernelFn fn,
                const std::vector<int>& in) {
    Step s;
    s.fn = fn;
    s.name = std::string(op.name());
    s.loc = op.loc;
    s.in = in;
    for (size_t i = 0; i < op.num_results(); ++i) {
      int slot = NewSlot();
      env.slots[op.result(i)] = slot;
      s.out.push_back(slot);
      Type t = op.result(i)->type;
      s.out_types.push_back(t.IsTensor() ? ToArrayType(op, t) : ArrayType{});
    }
    prog.steps.push_back(std::move(s));
    return prog.steps.back();
  }

  // An extra step producing one array of type `t` from `in` (a broadcast or a convert).
  int AddHelperStep(const Operation& op, Program& prog, KernelFn fn, std::vector<int> in,
                    ArrayType t, std::shared_ptr<const void> params) {
    Step s;
    s.fn = fn;
    s.name = std::string(op.name());
    s.loc = op.loc;
    s.in = std::move(in);
    int slot = NewSlot();
    s.out.push_back(slot);
    s.out_types.push_back(std::move(t));
    s.params = std::move(params);
    prog.steps.push_back(std::move(s));
    return slot;
  }

  std::vector<int> Operands(const Operation& op, const Env& env) {
    std::vector<int> in;
    for (const Value* v : op.operands) in.push_back(Use(op, env, v));
    return in;
  }

  std::vector<int64_t> I64s(const Operation& op, const char* name) {
    std::vector<int64_t> v;
    if (!ir::GetI64List(op.attr(name), &v))
      Fail(op, absl::StatusCode::kInvalidArgument, StrCat("missing attribute '", name, "'"));
    return v;
  }
  int64_t Int(const Operation& op, const char* name, int64_t dflt) {
    int64_t v;
    return ir::GetInt(op.attr(name), &v) ? v : dflt;
  }

  // CHLO broadcasting: brings operand `i` to the result's shape with broadcast_in_dim.
  int BroadcastOperand(const Operation& op, Env& env, Program& prog, size_t i) {
    int slot = Use(op, env, op.operands[i]);
    ArrayType in = ToArrayType(op, op.operands[i]->type);
    ArrayType out = ToArrayType(op, op.result(0)->type);
    out.elem = in.elem;
    if (in.dims == out.dims) return slot;
    auto p = std::make_shared<cpu::BroadcastParams>();
    std::vector<int64_t> bd;
    if (ir::GetI64List(op.attr("broadcast_dimensions"), &bd) && op.operands.size() == 2 &&
        in.rank() != out.rank()) {
      p->dims = bd;
    } else {
      for (int64_t d = 0; d < in.rank(); ++d) p->dims.push_back(out.rank() - in.rank() + d);
    }
    if (static_cast<int64_t>(p->dims.size()) != in.rank())
      Fail(op, absl::StatusCode::kInvalidArgument, "broadcast_dimensions does not match the operand rank");
    for (size_t d = 0; d < p->dims.size(); ++d)
      if (p->dims[d] < 0 || p->dims[d] >= out.rank() ||
          (in.dims[d] != 1 && in.dims[d] != out.dims[p->dims[d]]))
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("operand #", i, " cannot be broadcast to ", out.ToString()));
    return AddHelperStep(op, prog, cpu::BroadcastInDimKernel(), {slot}, out, p);
  }

  // Operand i converted to the element kind of `like[i]` (promotable reductions compute in the
  // result's type).
  std::vector<int> OperandsAs(const Operation& op, Env& env, Program& prog,
                              const std::vector<ElemKind>& kinds) {
    std::vector<int> in = Operands(op, env);
    for (size_t i = 0; i < in.size() && i < kinds.size(); ++i)
      in[i] = ConvertTo(op, prog, in[i], ToArrayType(op, op.operands[i]->type), kinds[i]);
    return in;
  }

  int ConvertTo(const Operation& op, Program& prog, int slot, ArrayType from, ElemKind to) {
    if (from.elem == to) return slot;
    KernelFn fn = Check(op, cpu::SelectConvert(from.elem, to));
    from.elem = to;
    return AddHelperStep(op, prog, fn, {slot}, from, nullptr);
  }

  cpu::CompareParams CompareOf(const Operation& op, ElemKind k) {
    Attribute dir = op.attr("comparison_direction");
    if (!dir || dir.kind() != AttrKind::kEnum)
      Fail(op, absl::StatusCode::kInvalidArgument, "missing comparison_direction");
    cpu::CompareParams p{};
    const std::string& d = dir->str;
    p.dir = d == "EQ" ? cpu::CompareParams::kEq : d == "NE" ? cpu::CompareParams::kNe
          : d == "GE" ? cpu::CompareParams::kGe : d == "GT" ? cpu::CompareParams::kGt
          : d == "LE" ? cpu::CompareParams::kLe : cpu::CompareParams::kLt;
    Attribute ct = op.attr("compare_type");
    p.total_order = ct && ct.kind() == AttrKind::kEnum && ct->str == "TOTALORDER" && ir::IsFloat(k);
    return p;
  }

  // The binary op a reducer region computes, if it is exactly one: op(arg0, arg1).
  bool FastReducer(const Operation& op, BinaryOp* out) {
    const ir::Block* b = op.regions[0]->front();
    if (!b || b->args.size() != 2 || b->ops.size() != 2) return false;
    const Operation& f = *b->ops[0];
    const Operation& r = *b->ops[1];
    bool bc;
    if (!BinaryOf(f.code, out, &bc) || bc || f.operands.size() != 2) return false;
    bool args_ok = (f.operands[0] == b->args[0].get() && f.operands[1] == b->args[1].get()) ||
                   (f.operands[0] == b->args[1].get() && f.operands[1] == b->args[0].get());
    bool commutative = *out == BinaryOp::kAdd || *out == BinaryOp::kMul || *out == BinaryOp::kMax ||
                       *out == BinaryOp::kMin || *out == BinaryOp::kAnd || *out == BinaryOp::kOr ||
                       *out == BinaryOp::kXor;
    return args_ok && commutative && r.operands.size() == 1 && r.operands[0] == f.result(0) &&
           op.operands[0]->type.element_type() == op.result(0)->type.element_type() &&
           op.operands[1]->type == b->args[0]->type;
  }

  void LowerCall(const Operation& op, const Operation& callee, Env& env, Program& prog, int depth) {
    const ir::Block* body = callee.regions.empty() ? nullptr : callee.regions[0]->front();
    if (!body) Fail(op, absl::StatusCode::kInvalidArgument,
                    StrCat("callee @", ir::FuncName(callee), " has no body"));
    Env inner;
    inner.parent = nullptr;  // functions are isolated from above
    for (size_t i = 0; i < body->args.size(); ++i)
      inner.slots[body->args[i].get()] = Use(op, env, op.operands[i]);
    std::vector<int> results = LowerBlock(*body, inner, prog, depth + 1);
    for (size_t i = 0; i < op.num_results(); ++i) env.slots[op.result(i)] = results[i];
  }

  void LowerCheck(const Operation& op, Env& env, Program& prog, cpu::CheckParams::Kind kind,
                  bool has_result) {
    auto p = std::make_shared<cpu::CheckParams>();
    p->kind = kind;
    if (Attribute t = op.attr("tolerance"); t && t.kind() == AttrKind::kFloat) p->tolerance = t->float_value;
    p->max_ulp = Int(op, "max_ulp_difference", 1);
    p->min_ulp = Int(op, "min_ulp_difference", 0);
    std::vector<int> in = Operands(op, env);
    if (in.empty() || in.size() > 2) Fail(op, absl::StatusCode::kInvalidArgument, "check needs actual and expected");
    ArrayType at = ToArrayType(op, op.operands[0]->type);
    if (in.size() == 1) {
      Attribute v = op.attr("value");
      if (!v || v.kind() != AttrKind::kDenseElements)
        Fail(op, absl::StatusCode::kInvalidArgument, "missing expected value");
      p->has_expected_const = true;
      p->expected = DenseToArray(op, v).array;
    } else if (!(ToArrayType(op, op.operands[1]->type) == at)) {
      Fail(op, absl::StatusCode::kInvalidArgument, "actual and expected types differ");
    }
    Step& s = AddStep(op, env, prog, cpu::CheckKernel(), in);
    s.params = p;
    (void)has_result;
  }

  cpu::RtValue DenseToArray(const Operation& op, const Attribute& v) {
    ArrayType t = ToArrayType(op, v->type);
    cpu::Array a = cpu::Array::Allocate(t);
    const int64_t n = t.NumElements(), es = t.ElementSize();
    const uint8_t* src = v->data->data();
    if (v->splat) {
      for (int64_t i = 0; i < n; ++i) std::memcpy(a.mutable_data() + i * es, src, es);
    } else if (n > 0) {
      std::memcpy(a.mutable_data(), src, n * es);
    }
    return cpu::RtValue::Of(std::move(a));
  }

  static bool HasQuant(Type t) { return t.IsTensor() && t.element_type().IsQuant(); }

  // Ops that move or wrap quantized values without computing on them.
  static bool QuantTransparent(OpCode c) {
    switch (c) {
      case OpCode::kUniformQuantize: case OpCode::kUniformDequantize: case OpCode::kConstant:
      case OpCode::kBitcastConvert:
      case OpCode::kReturn: case OpCode::kFuncReturn: case OpCode::kFuncCall:
      case OpCode::kComposite: case OpCode::kWhile: case OpCode::kIf: case OpCode::kCase:
      case OpCode::kTuple: case OpCode::kGetTupleElement: case OpCode::kOptimizationBarrier:
      case OpCode::kCustomCall: case OpCode::kCheckExpectEq: case OpCode::kCheckExpectEqConst:
      case OpCode::kCheckExpectAlmostEq: case OpCode::kCheckExpectAlmostEqConst:
      case OpCode::kCheckExpectClose:
        return true;
      default:
        return false;
    }
  }

  std::shared_ptr<cpu::QuantParams> QuantOf(Type tensor) {
    const ir::QuantParams& q = tensor.element_type().quant();
    auto p = std::make_shared<cpu::QuantParams>();
    p->scales = q.scales;
    p->zero_points = q.zero_points;
    p->axis = q.axis;
    p->storage_min = q.storage_min;
    p->storage_max = q.storage_max;
    return p;
  }

  int Dequantize(const Operation& op, Program& prog, int slot, Type t) {
    ArrayType a;
    a.elem = t.element_type().quant().expressed;
    a.dims.assign(t.shape().begin(), t.shape().end());
    return AddHelperStep(op, prog, cpu::DequantizeKernel(), {slot}, a, QuantOf(t));
  }

  int Quantize(const Operation& op, Program& prog, int slot, Type t) {
    ArrayType a;
    a.elem = t.element_type().quant().storage;
    a.dims.assign(t.shape().begin(), t.shape().end());
    return AddHelperStep(op, prog, cpu::QuantizeKernel(), {slot}, a, QuantOf(t));
  }

  // dequantize -> op -> quantize, for an op that computes on quantized tensors.
  void LowerDequantized(const Operation& op, Env& env, Program& prog, int depth) {
    Env local;
    local.parent = &env;
    for (const Value* v : op.operands)
      if (HasQuant(v->type)) local.slots[v] = Dequantize(op, prog, Use(op, env, v), v->type);
    quant_as_expressed_ = true;
    LowerOp(op, local, prog, depth);
    quant_as_expressed_ = false;
    for (size_t i = 0; i < op.num_results(); ++i) {
      const Value* r = op.result(i);
      int slot = local.slots.at(r);
      env.slots[r] = HasQuant(r->type) ? Quantize(op, prog, slot, r->type) : slot;
    }
  }

  void LowerOp(const Operation& op, Env& env, Program& prog, int depth) {
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
      s.raw_in_bytes = ir::ByteSize(kind_of(op.operands[0]));
      return;
    }
    if (BinaryOf(c, &b, &broadcasting)) {
      std::vector<int> in = broadcasting
          ? std::vector<int>{BroadcastOperand(op, env, prog, 0), BroadcastOperand(op, env, prog, 1)}
          : Operands(op, env);
      KernelFn fn = Check(op, cpu::SelectBinary(b, kind_of(op.operands[0]), kind_of(op.result(0))));
      Step& s = AddStep(op, env, prog, fn, in);
      s.raw_binary = cpu::RawBinary(b, kind_of(op.operands[0]), kind_of(op.result(0)));
      s.raw_in_bytes = ir::ByteSize(kind_of(op.operands[0]));
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
        AddStep(op, env, prog, Check(op, cpu::SelectCompare(k, *p)), in).params = p;
        return;
      }
      case OpCode::kSelect:
        AddStep(op, env, prog, cpu::SelectKernel(), Operands(op, env));
        return;
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
        AddStep(op, env, prog, cpu::SelectKernel(), in);
        return;
      }
      case OpCode::kClamp:
        AddStep(op, env, prog, Check(op, cpu::SelectClamp(kind_of(op.result(0)))), Operands(op, env));
        return;
      case OpCode::kConvert:
        AddStep(op, env, prog,
                Check(op, cpu::SelectConvert(kind_of(op.operands[0]), kind_of(op.result(0)))),
                Operands(op, env));
        return;
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
        // The operand fills the trailing dimensions of the result in order: a repeating run.
        const Type in = op.operands[0]->type, res = op.result(0)->type;
        bool suffix = in.HasStaticShape() && res.HasStaticShape() && in.rank() <= res.rank();
        for (int64_t d = 0; suffix && d < in.rank(); ++d)
          suffix = p->dims[d] == res.rank() - in.rank() + d && in.shape()[d] == res.shape()[p->dims[d]];
        if (suffix && in.NumElements() > 0) s.broadcast_period = in.NumElements();
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
        for (size_t i = 0; i < op.operands.size() / 2; ++i)
          if (kind_of(op.operands[i]) != kinds[i]) p->has_fast = false;
        KernelFn fn = Check(op, cpu::SelectReduce(*p, kinds));
        std::vector<ElemKind> want = kinds;
        want.insert(want.end(), kinds.begin(), kinds.end());  // inputs, then init values
        std::vector<int> in = OperandsAs(op, env, prog, want);
        std::shared_ptr<Program> body = p->has_fast ? nullptr : LowerRegion(op, 0, env, depth);
        Step& s = AddStep(op, env, prog, fn, in);
        s.params = p;
        if (body) s.regions.push_back(body);
        return;
      }
      case OpCode::kDotGeneral:
      case OpCode::kDot: {
        auto p = std::make_shared<cpu::DotParams>();
        if (c == OpCode::kDotGeneral) {
          Attribute dn = op.attr("dot_dimension_numbers");
          ir::GetI64List(dn.Field("lhs_batching_dimensions"), &p->lhs_batch);
          ir::GetI64List(dn.Field("rhs_batching_dimensions"), &p->rhs_batch);
          ir::GetI64List(dn.Field("lhs_contracting_dimensions"), &p->lhs_contract);
          ir::GetI64List(dn.Field("rhs_contracting_dimensions"), &p->rhs_contract);
        } else {
          p->lhs_contract = {op.operands[0]->type.rank() - 1};
          p->rhs_contract = {0};
        }
        ElemKind out = kind_of(op.result(0));
        std::vector<int> in = Operands(op, env);
        in.resize(2);  // dynamic_conv's padding was read above
        for (size_t i = 0; i < 2; ++i)
          in[i] = ConvertTo(op, prog, in[i], ToArrayType(op, op.operands[i]->type), out);
        AddStep(op, env, prog, Check(op, cpu::SelectDotGeneral(out, out, out)), in).params = p;
        return;
      }
      case OpCode::kChloRaggedDot: {
        auto p = std::make_shared<cpu::RaggedDotParams>();
        Attribute dn = op.attr("ragged_dot_dimension_numbers");
        if (!dn || dn.kind() != AttrKind::kStruct)
          Fail(op, absl::StatusCode::kInvalidArgument, "missing ragged_dot_dimension_numbers");
        std::vector<int64_t> ragged, group;
        ir::GetI64List(dn.Field("lhs_batching_dimensions"), &p->lhs_batch);
        ir::GetI64List(dn.Field("rhs_batching_dimensions"), &p->rhs_batch);
        ir::GetI64List(dn.Field("lhs_contracting_dimensions"), &p->lhs_contract);
        ir::GetI64List(dn.Field("rhs_contracting_dimensions"), &p->rhs_contract);
        ir::GetI64List(dn.Field("lhs_ragged_dimensions"), &ragged);
        ir::GetI64List(dn.Field("rhs_group_dimensions"), &group);
        ArrayType lt = ToArrayType(op, op.operands[0]->type), rt = ToArrayType(op, op.operands[1]->type),
                  gt = ToArrayType(op, op.operands[2]->type), ot = ToArrayType(op, op.result(0)->type);
        auto in_range = [](const std::vector<int64_t>& v, int64_t rank) {
          for (int64_t d : v) if (d < 0 || d >= rank) return false;
          return true;
        };
        if (ragged.size() != 1 || group.size() > 1 || p->lhs_batch.size() != p->rhs_batch.size() ||
            p->lhs_contract.size() != p->rhs_contract.size() || !in_range(p->lhs_batch, lt.rank()) ||
            !in_range(p->lhs_contract, lt.rank()) || !in_range(ragged, lt.rank()) ||
            !in_range(p->rhs_batch, rt.rank()) || !in_range(p->rhs_contract, rt.rank()) || !in_range(group, rt.rank()))
          Fail(op, absl::StatusCode::kInvalidArgument,
               "ragged_dot_dimension_numbers: one lhs ragged dimension, at most one rhs group dimension, "
               "matching batch and contracting lists, all within the operands' ranks");
        p->lhs_ragged = ragged[0];
        p->rhs_group = group.empty() ? -1 : group[0];
        auto has = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
        p->mode = has(p->lhs_contract, p->lhs_ragged) ? cpu::RaggedDotParams::kContracting
                  : has(p->lhs_batch, p->lhs_ragged)  ? cpu::RaggedDotParams::kBatch
                                                      : cpu::RaggedDotParams::kNonContracting;
        if ((p->mode == cpu::RaggedDotParams::kNonContracting) != (p->rhs_group >= 0))
          Fail(op, absl::StatusCode::kInvalidArgument,
               "rhs_group_dimensions must name one dimension exactly when the lhs ragged dimension is not "
               "a batch or contracting dimension");
        for (size_t i = 0; i < p->lhs_batch.size(); ++i)
          if (lt.dims[p->lhs_batch[i]] != rt.dims[p->rhs_batch[i]])
            Fail(op, absl::StatusCode::kInvalidArgument, "batch dimension sizes differ");
        for (size_t i = 0; i < p->lhs_contract.size(); ++i)
          if (lt.dims[p->lhs_contract[i]] != rt.dims[p->rhs_contract[i]])
            Fail(op, absl::StatusCode::kInvalidArgument, "contracting dimension sizes differ");
        if (gt.rank() < 1 || !ir::IsInteger(gt.elem) || gt.elem == ElemKind::kI1 ||
            gt.rank() - 1 > static_cast<int64_t>(p->lhs_batch.size()))
          Fail(op, absl::StatusCode::kInvalidArgument,
               StrCat("group_sizes ", gt.ToString(), " must be an integer tensor [lhs batch dims..., groups]"));
        for (int64_t i = 0; i + 1 < gt.rank(); ++i)
          if (gt.dims[i] != lt.dims[p->lhs_batch[i]])
            Fail(op, absl::StatusCode::kInvalidArgument, "group_sizes' leading dimensions must be the lhs batch dimensions");
        const int64_t groups = gt.dims.back();
        std::vector<int64_t> want;
        if (p->mode == cpu::RaggedDotParams::kContracting) want.push_back(groups);
        if (p->mode == cpu::RaggedDotParams::kNonContracting && rt.dims[p->rhs_group] != groups)
          Fail(op, absl::StatusCode::kInvalidArgument, "the rhs group dimension must have one entry per group");
        for (int64_t d : p->lhs_batch) want.push_back(lt.dims[d]);
        for (int64_t d = 0; d < lt.rank(); ++d)
          if (!has(p->lhs_batch, d) && !has(p->lhs_contract, d)) want.push_back(lt.dims[d]);
        for (int64_t d = 0; d < rt.rank(); ++d)
          if (d != p->rhs_group && !has(p->rhs_batch, d) && !has(p->rhs_contract, d)) want.push_back(rt.dims[d]);
        if (want != ot.dims)
          Fail(op, absl::StatusCode::kInvalidArgument,
               StrCat("result shape ", ot.ToString(), " does not match the ragged dot of the operands"));
        std::vector<int> in = Operands(op, env);
        for (size_t i = 0; i < 2; ++i)
          in[i] = ConvertTo(op, prog, in[i], ToArrayType(op, op.operands[i]->type), ot.elem);
        AddStep(op, env, prog, Check(op, cpu::SelectRaggedDot(ot.elem)), in).params = p;
        return;
      }
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
      case OpCode::kDynamicGather: {
        auto p = std::make_shared<cpu::GatherParams>();
        Attribute dn = op.attr("dimension_numbers");
        ir::GetI64List(dn.Field("offset_dims"), &p->offset_dims);
        ir::GetI64List(dn.Field("collapsed_slice_dims"), &p->collapsed_slice_dims);
        ir::GetI64List(dn.Field("operand_batching_dims"), &p->operand_batching_dims);
        ir::GetI64List(dn.Field("start_indices_batching_dims"), &p->start_indices_batching_dims);
        ir::GetI64List(dn.Field("start_index_map"), &p->start_index_map);
        p->index_vector_dim = 0;  // the attribute's default
        ir::GetInt(dn.Field("index_vector_dim"), &p->index_vector_dim);
        if (c == OpCode::kGather) p->slice_sizes = I64s(op, "slice_sizes");
        AddStep(op, env, prog, c == OpCode::kGather ? cpu::GatherKernel() : cpu::DynamicGatherKernel(),
                Operands(op, env)).params = p;
        return;
      }
      case OpCode::kScatter: {
        auto p = std::make_shared<cpu::ScatterParams>();
        Attribute dn = op.attr("scatter_dimension_numbers");
        ir::GetI64List(dn.Field("update_window_dims"), &p->update_window_dims);
        ir::GetI64List(dn.Field("inserted_window_dims"), &p->inserted_window_dims);
        ir::GetI64List(dn.Field("input_batching_dims"), &p->input_batching_dims);
        ir::GetI64List(dn.Field("scatter_indices_batching_dims"), &p->scatter_indices_batching_dims);
        ir::GetI64List(dn.Field("scatter_dims_to_operand_dims"), &p->scatter_dims_to_operand_dims);
        const size_t n = (op.operands.size() - 1) / 2;
        p->index_vector_dim = 0;  // the attribute's default
        ir::GetInt(dn.Field("index_vector_dim"), &p->index_vector_dim);
        // The common "replace" update computation returns its second argument(s).
        const ir::Block* body = op.regions[0]->front();
        if (body && body->ops.size() == 1 && body->args.size() == 2 * n &&
            body->ops[0]->operands.size() == n) {
          p->assign = true;
          for (size_t i = 0; i < n; ++i)
            p->assign &= body->ops[0]->operands[i] == body->args[n + i].get();
        }
        std::vector<ElemKind> want;
        for (size_t i = 0; i < n; ++i) want.push_back(kind_of(op.result(i)));
        want.push_back(kind_of(op.operands[n]));  // indices keep their kind
        for (size_t i = 0; i < n; ++i) want.push_back(kind_of(op.result(i)));
        std::vector<int> in = OperandsAs(op, env, prog, want);
        std::shared_ptr<Program> region = p->assign ? nullptr : LowerRegion(op, 0, env, depth);
        Step& s = AddStep(op, env, prog, cpu::ScatterKernel(), in);
        s.params = p;
        if (region) s.regions.push_back(region);
        return;
      }
      case OpCode::kSort: {
        auto p = std::make_shared<cpu::SortParams>();
        p->dimension = Int(op, "dimension", -1);
        std::vector<int> in = Operands(op, env);
        auto cmp = LowerRegion(op, 0, env, depth);
        Step& s = AddStep(op, env, prog, cpu::SortKernel(), in);
        s.params = p;
        s.regions.push_back(cmp);
        return;
      }
      case OpCode::kReduceWindow:
      case OpCode::kSelectAndScatter: {
        auto p = std::make_shared<cpu::WindowParams>();
        p->dims = I64s(op, "window_dimensions");
        const size_t rank = p->dims.size();
        if (static_cast<int64_t>(rank) != op.operands[0]->type.rank())
          Fail(op, absl::StatusCode::kInvalidArgument, "window_dimensions must match the operand rank");
        auto list_or = [&](const char* name, int64_t dflt) {
          std::vector<int64_t> v;
          if (!ir::GetI64List(op.attr(name), &v) || v.empty()) v.assign(rank, dflt);
          return v;
        };
        p->strides = list_or("window_strides", 1);
        p->base_dilations = list_or("base_dilations", 1);
        p->window_dilations = list_or("window_dilations", 1);
        std::vector<int64_t> pad = list_or("padding", 0);
        if (pad.size() == 2 * rank) {
          for (size_t d = 0; d < rank; ++d) {
            p->pad_low.push_back(pad[2 * d]);
            p->pad_high.push_back(pad[2 * d + 1]);
          }
        } else {
          p->pad_low.assign(rank, 0);
          p->pad_high.assign(rank, 0);
        }
        std::vector<ElemKind> want;
        if (c == OpCode::kReduceWindow) {
          for (size_t i = 0; i < op.num_results(); ++i) want.push_back(kind_of(op.result(i)));
          std::vector<ElemKind> inits = want;
          want.insert(want.end(), inits.begin(), inits.end());
        } else {
          // select_and_scatter: the operand keeps its kind (select compares it); the source
          // and init are summed into the result's kind.
          want = {kind_of(op.operands[0]), kind_of(op.result(0)), kind_of(op.result(0))};
        }
        std::vector<int> in = OperandsAs(op, env, prog, want);
        std::vector<std::shared_ptr<Program>> regions;
        for (size_t r = 0; r < op.regions.size(); ++r) regions.push_back(LowerRegion(op, r, env, depth));
        Step& s = AddStep(op, env, prog,
                          c == OpCode::kReduceWindow ? cpu::ReduceWindowKernel()
                                                     : cpu::SelectAndScatterKernel(), in);
        s.params = p;
        s.regions = std::move(regions);
        return;
      }
      case OpCode::kConvolution:
      case OpCode::kDynamicConv: {
        auto p = std::make_shared<cpu::ConvParams>();
        Attribute dn = op.attr("dimension_numbers");
        auto gi = [&](const char* n) {
          int64_t v = 0;
          ir::GetInt(dn.Field(n), &v);
          return v;
        };
        p->in_batch = gi("input_batch_dimension");
        p->in_feature = gi("input_feature_dimension");
        p->k_in = gi("kernel_input_feature_dimension");
        p->k_out = gi("kernel_output_feature_dimension");
        p->out_batch = gi("output_batch_dimension");
        p->out_feature = gi("output_feature_dimension");
        ir::GetI64List(dn.Field("input_spatial_dimensions"), &p->in_spatial);
        ir::GetI64List(dn.Field("kernel_spatial_dimensions"), &p->k_spatial);
        ir::GetI64List(dn.Field("output_spatial_dimensions"), &p->out_spatial);
        const size_t ns = p->in_spatial.size();
        auto list_or = [&](const char* name, int64_t dflt) {
          std::vector<int64_t> v;
          if (!ir::GetI64List(op.attr(name), &v) || v.empty()) v.assign(ns, dflt);
          return v;
        };
        p->strides = list_or("window_strides", 1);
        p->lhs_dilation = list_or("lhs_dilation", 1);
        p->rhs_dilation = list_or("rhs_dilation", 1);
        std::vector<int64_t> pad = list_or("padding", 0);
        if (op.code == OpCode::kDynamicConv) {
          // The padding operand must be a constant: the result's static shape was computed from it.
          pad = ConstantInts(op, 2, "padding");
          if (pad.size() != 2 * ns)
            Fail(op, absl::StatusCode::kInvalidArgument, StrCat("padding needs ", 2 * ns, " values, got ", pad.size()));
          const ArrayType xa = ToArrayType(op, op.operands[0]->type), wa = ToArrayType(op, op.operands[1]->type);
          const ArrayType ra = ToArrayType(op, op.result(0)->type);
          for (size_t d = 0; d < ns; ++d) {
            const int64_t xi = xa.dims[p->in_spatial[d]], wi = wa.dims[p->k_spatial[d]];
            const int64_t dil_in = xi == 0 ? 0 : (xi - 1) * p->lhs_dilation[d] + 1;
            const int64_t padded = dil_in + pad[2 * d] + pad[2 * d + 1];
            const int64_t dil_w = wi == 0 ? 0 : (wi - 1) * p->rhs_dilation[d] + 1;
            const int64_t want = padded < dil_w ? 0 : (padded - dil_w) / p->strides[d] + 1;
            if (ra.dims[p->out_spatial[d]] != want)
              Fail(op, absl::StatusCode::kInvalidArgument,
                   StrCat("with padding ", pad[2 * d], ", ", pad[2 * d + 1], " spatial dimension ", d,
                          " of the result must be ", want, ", got ", ra.dims[p->out_spatial[d]]));
          }
        }
        if (pad.size() == 2 * ns) {
          for (size_t d = 0; d < ns; ++d) {
            p->pad_low.push_back(pad[2 * d]);
            p->pad_high.push_back(pad[2 * d + 1]);
          }
        } else {
          p->pad_low.assign(ns, 0);
          p->pad_high.assign(ns, 0);
        }
        std::vector<int64_t> rev = list_or("window_reversal", 0);
        for (int64_t r : rev) p->reversal.push_back(r != 0);
        p->feature_groups = Int(op, "feature_group_count", 1);
        p->batch_groups = Int(op, "batch_group_count", 1);
        ElemKind out = kind_of(op.result(0));
        std::vector<int> in = Operands(op, env);
        for (size_t i = 0; i < 2; ++i)
          in[i] = ConvertTo(op, prog, in[i], ToArrayType(op, op.operands[i]->type), out);
        cpu::KernelFn gemm = p->batch_groups == 1 ? cpu::ConvolutionGemmKernel(out) : nullptr;
        AddStep(op, env, prog, gemm ? gemm : Check(op, cpu::SelectConvolution(out)), in).params = p;
        return;
      }
      case OpCode::kBatchNormInference:
      case OpCode::kBatchNormTraining:
      case OpCode::kBatchNormGrad: {
        auto p = std::make_shared<cpu::BatchNormParams>();
        Attribute eps = op.attr("epsilon");
        p->epsilon = eps && eps.kind() == AttrKind::kFloat ? eps->float_value : 0.0;
        p->feature_index = Int(op, "feature_index", 0);
        ElemKind k = kind_of(op.operands[0]);
        if (!ir::IsFloat(k)) Unimplemented(op, StrCat("batch norm on ", ir::ElemKindName(k)));
        KernelFn fn = c == OpCode::kBatchNormInference ? cpu::BatchNormInferenceKernel()
                      : c == OpCode::kBatchNormTraining ? cpu::BatchNormTrainingKernel()
                                                        : cpu::BatchNormGradKernel();
        AddStep(op, env, prog, fn, Operands(op, env)).params = p;
        return;
      }
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
        Attribute d = op.attr("decomposition");
        const Operation* f = d && d.kind() == AttrKind::kSymbolRef && d->symbols.size() == 1
                                 ? m_.LookupFunction(d->symbols[0]) : nullptr;
        if (!f) Fail(op, absl::StatusCode::kInvalidArgument, "unknown decomposition");
        LowerCall(op, *f, env, prog, depth);
        return;
      }
      case OpCode::kOptimizationBarrier:
        AddStep(op, env, prog, cpu::CopyKernel(), Operands(op, env));
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
      case OpCode::kCustomCall: {
        Attribute t = op.attr("call_target_name");
        std::string target = t && t.kind() == AttrKind::kString ? t->str : "";
        if (target == "check.expect_eq") {
          LowerCheck(op, env, prog, cpu::CheckParams::kEq, false);
        } else if (target == "check.expect_almost_eq") {
          LowerCheck(op, env, prog, cpu::CheckParams::kAlmostEq, false);
          prog.steps.back().params = [&] {
            auto p = std::make_shared<cpu::CheckParams>(prog.steps.back().Params<cpu::CheckParams>());
            p->tolerance = 1e-3;
            return p;
          }();
        } else if (target == "check.expect_close") {
          LowerCheck(op, env, prog, cpu::CheckParams::kClose, false);
          prog.steps.back().params = [&] {
            auto p = std::make_shared<cpu::CheckParams>(prog.steps.back().Params<cpu::CheckParams>());
            p->max_ulp = 3;
            p->min_ulp = 0;
            return p;
          }();
        } else if (target == "check.eq") {
          LowerCheck(op, env, prog, cpu::CheckParams::kEqResult, true);
        } else if ((target == "xla.sdy.ShardingGroup" || target == "local_xla.sdy.ShardingGroup") &&
                   op.num_results() == 0) {
          // Shardy's sharding-group annotation: nothing to run on one device.
        } else if ((target == "Sharding" || target == "annotate_device_placement" ||
                    target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" ||
                    target == "MoveToHost" || target == "MoveToDevice" ||
                    target == "xla.sdy.GlobalToLocalShape" || target == "xla.sdy.LocalToGlobalShape" ||
                    target == "xla.sdy.FuncResultSharding" || target == "local_xla.sdy.GlobalToLocalShape" ||
                    target == "local_xla.sdy.LocalToGlobalShape" || target == "local_xla.sdy.FuncResultSharding") &&
                   op.operands.size() == op.num_results()) {
          // Placement and sharding annotations (jax.jit shardings, shard_map over one device, host
          // offloading): where they keep the type the value passes through; a shape change needs
          // the SPMD partitioner, which the CPU plugin does not have.
          for (size_t i = 0; i < op.num_results(); ++i)
            if (op.operands[i]->type != op.result(i)->type)
              Fail(op, target == "Sharding" || target == "annotate_device_placement" || target.starts_with("Move")
                           ? absl::StatusCode::kInvalidArgument : absl::StatusCode::kUnimplemented,
                   StrCat("@", target, " must not change the type of operand #", i, " (",
                          op.operands[i]->type.ToString(), " -> ", op.result(i)->type.ToString(),
                          "): SPMD partitioning is not supported by the CPU plugin"));
          AddStep(op, env, prog, cpu::CopyKernel(), Operands(op, env));
        } else if (target == "shape_assertion") {
          bool ok = !op.operands.empty() && op.num_results() == 0 && op.operands[0]->type.IsTensor() &&
                    op.operands[0]->type.rank() == 0 && op.operands[0]->type.element_type().elem() == ElemKind::kI1;
          for (size_t i = 1; ok && i < op.operands.size(); ++i)
            ok = op.operands[i]->type.IsTensor() && op.operands[i]->type.rank() == 0 &&
                 ir::IsInteger(op.operands[i]->type.element_type().elem());
          if (!ok)
            Fail(op, absl::StatusCode::kInvalidArgument,
                 "@shape_assertion takes a tensor<i1> predicate and integer scalars, and returns nothing");
          Attribute msg = op.attr("error_message");
          auto p = std::make_shared<cpu::ShapeAssertionParams>();
          p->message = msg && msg.kind() == AttrKind::kString ? msg->str : "shape assertion failed";
          AddStep(op, env, prog, cpu::ShapeAssertionKernel(), Operands(op, env)).params = p;
        } else if (target.starts_with("lapack_") || target.starts_with("blas_")) {
          LowerLapack(op, env, prog, target);
        } else if (target == "ApproxTopK") {
          LowerApproxTopK(op, env, prog, depth);
        } else if (const cpu::FfiHandler* h = cpu::FindFfiHandler(target)) {
          LowerFfiCall(op, env, prog, target, h);
        } else {
          Fail(op, absl::StatusCode::kUnimplemented,
               StrCat("custom_call target '", target, "' is not supported by the CPU plugin (No FFI handler registered for '",
                      target, "'; register one through the PJRT FFI extension)"));
        }
        return;
      }
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
      case OpCode::kSend:
      case OpCode::kRecv:
        LowerHostTransfer(op, env, prog);
        return;
      case OpCode::kInfeed:
      case OpCode::kOutfeed:
        Fail(op, absl::StatusCode::kUnimplemented, "infeed and outfeed are not supported by the CPU "
             "plugin (send and recv with is_host_transfer = true reach the PJRT host callbacks)");
      default:
        Fail(op, absl::StatusCode::kUnimplemented, "is not supported by the CPU executor yet");
    }
  }

  // send/recv with the host: one array each way, matched to the caller's callbacks by channel.
  // A custom_call whose target has an XLA FFI handler (registered through the PJRT FFI
  // extension): operands and results are passed as buffers, the backend_config dictionary (or
  // mhlo.backend_config) as the handler's attributes.
  void LowerFfiCall(const Operation& op, Env& env, Program& prog, const std::string& target,
                    const cpu::FfiHandler* handler) {
    auto p = std::make_shared<cpu::FfiCallParams>();
    p->target = target;
    p->handler = handler;
    Attribute config = op.attr("backend_config");
    if (!config || config.kind() != AttrKind::kDictionary) config = op.attr("mhlo.backend_config");
    if (config && config.kind() != AttrKind::kDictionary) config = Attribute();
    absl::Status s = cpu::EncodeFfiAttrs(config, &p->attrs);
    if (!s.ok()) Fail(op, s.code(), StrCat("@", target, ": ", s.message()));
    for (size_t i = 0; i < op.num_results(); ++i) {
      Type t = op.result(i)->type;
      if (!t.IsTensor() && !t.IsToken())
        Unimplemented(op, StrCat("@", target, ": result #", i, " of type ", t.ToString(), " for an FFI handler"));
      p->result_is_token.push_back(t.IsToken());
    }
    AddStep(op, env, prog, cpu::FfiCallKernel(), Operands(op, env)).params = p;
  }

  // The value of a scalar integer operand that a constant defines (the legacy LAPACK calls pass
  // their options this way).
  int64_t ConstantOperand(const Operation& op, size_t i, const char* what) {
    std::vector<int64_t> v;
    const Operation* def = i < op.operands.size() ? op.operands[i]->def : nullptr;
    if (!def || def->name() != "stablehlo.constant" || !ir::GetI64List(def->attr("value"), &v) || v.size() != 1)
      Fail(op, absl::StatusCode::kUnimplemented,
           StrCat("operand #", i, " (", what, ") must be a scalar integer constant"));
    return v[0];
  }

  // Every value of an integer operand that a constant defines (a splat repeated to its size).
  std::vector<int64_t> ConstantInts(const Operation& op, size_t i, const char* what) {
    std::vector<int64_t> v;
    const Operation* def = i < op.operands.size() ? op.operands[i]->def : nullptr;
    const int64_t n = i < op.operands.size() ? op.operands[i]->type.NumElements() : -1;
    if (!def || def->name() != "stablehlo.constant" || !ir::GetI64List(def->attr("value"), &v) || n < 0)
      Fail(op, absl::StatusCode::kUnimplemented,
           StrCat("operand #", i, " (", what, ") must be an integer constant"));
    if (v.size() == 1 && n != 1) v.assign(static_cast<size_t>(n), v[0]);
    return v;
  }

  // custom_call @ApproxTopK (jax.lax.approx_max_k / approx_min_k, as exported for TPU), computed
  // exactly as XLA's CPU fallback does: the N operands are sorted along reduction_dim with the
  // comparator function (called_computations) and the first result-size elements kept. The N
  // init operands only pad the approximate algorithm's partial windows.
  void LowerApproxTopK(const Operation& op, Env& env, Program& prog, int depth) {
    const size_t n = op.num_results();
    if (n == 0 || op.operands.size() != 2 * n)
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("@ApproxTopK takes N operands and N init values and returns N results; got ",
                  op.operands.size(), " operands and ", n, " results"));
    Attribute config = op.attr("mhlo.backend_config");
    if (!config || config.kind() != AttrKind::kDictionary) config = op.attr("backend_config");
    int64_t dim = -1;
    if (!config || config.kind() != AttrKind::kDictionary || !ir::GetInt(config.Field("reduction_dim"), &dim))
      Fail(op, absl::StatusCode::kInvalidArgument, "@ApproxTopK needs backend_config.reduction_dim");
    Attribute cc = op.attr("called_computations");
    if (cc && cc.kind() == AttrKind::kArray && cc->elements.size() == 1) cc = cc->elements[0];
    const Operation* cmp = cc && cc.kind() == AttrKind::kSymbolRef && cc->symbols.size() == 1
                               ? m_.LookupFunction(cc->symbols[0]) : nullptr;
    if (!cmp || cmp->regions.empty() || !cmp->regions[0]->front())
      Fail(op, absl::StatusCode::kInvalidArgument, "@ApproxTopK needs its comparator in called_computations");
    if (cmp->regions[0]->front()->args.size() != 2 * n)
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("@ApproxTopK's comparator @", ir::FuncName(*cmp), " must take ", 2 * n, " arguments"));
    const ArrayType x = ToArrayType(op, op.operands[0]->type);
    if (dim < 0 || dim >= x.rank())
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("@ApproxTopK: reduction_dim ", dim, " is out of range for rank ", x.rank()));
    Step sort;
    sort.fn = cpu::SortKernel();
    sort.name = std::string(op.name());
    sort.loc = op.loc;
    auto sp = std::make_shared<cpu::SortParams>();
    sp->dimension = dim;
    sort.params = sp;
    std::vector<ArrayType> out_types;
    for (size_t i = 0; i < n; ++i) {
      const ArrayType in = ToArrayType(op, op.operands[i]->type), out = ToArrayType(op, op.result(i)->type);
      bool ok = in.dims == x.dims && out.elem == in.elem && out.rank() == in.rank();
      for (int64_t d = 0; ok && d < in.rank(); ++d) ok = d == dim ? out.dims[d] <= in.dims[d] : out.dims[d] == in.dims[d];
      if (!ok)
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("@ApproxTopK: operand #", i, " is ", in.ToString(), " and result #", i, " is ", out.ToString(),
                    "; they must match except along reduction_dim ", dim, ", where the result is no longer"));
      sort.in.push_back(Use(op, env, op.operands[i]));
      sort.out.push_back(NewSlot());
      sort.out_types.push_back(in);
      out_types.push_back(out);
    }
    auto body = std::make_shared<Program>();
    {
      Env inner;  // functions are isolated from above
      for (const auto& a : cmp->regions[0]->front()->args) {
        int slot = NewSlot();
        inner.slots[a.get()] = slot;
        body->args.push_back(slot);
      }
      body->results = LowerBlock(*cmp->regions[0]->front(), inner, *body, depth + 1);
    }
    sort.regions.push_back(body);
    const std::vector<int> sorted = sort.out;
    prog.steps.push_back(std::move(sort));
    for (size_t i = 0; i < n; ++i) {
      auto p = std::make_shared<cpu::SliceParams>();
      p->start.assign(x.rank(), 0);
      p->limit.assign(out_types[i].dims.begin(), out_types[i].dims.end());
      p->strides.assign(x.rank(), 1);
      env.slots[op.result(i)] = AddHelperStep(op, prog, cpu::SliceKernel(), {sorted[i]}, out_types[i], p);
    }
  }

  // JAX's CPU linear algebra: custom calls lapack_<t><routine>[_ffi] (t = s, d, c, z) and the
  // legacy blas_<t>trsm. The _ffi forms take their options from mhlo.backend_config; the legacy
  // forms (api_version 2) pass them as leading scalar operands and may return one tuple.
  void LowerLapack(const Operation& op, Env& env, Program& prog, const std::string& target) {
    const bool blas = target.starts_with("blas_");
    std::string name = target.substr(blas ? 5 : 7);
    const bool ffi = name.ends_with("_ffi");
    if (ffi) name.resize(name.size() - 4);
    if (name.size() < 2 || std::string_view("sdcz").find(name[0]) == std::string_view::npos)
      Fail(op, absl::StatusCode::kUnimplemented, StrCat("custom_call target '", target, "' is not supported by the CPU plugin"));
    const ElemKind kind = name[0] == 's' ? ElemKind::kF32 : name[0] == 'd' ? ElemKind::kF64
                          : name[0] == 'c' ? ElemKind::kC64 : ElemKind::kC128;
    const std::string routine = name.substr(1);
    Attribute config = op.attr("mhlo.backend_config");
    auto char_option = [&](const char* key, char dflt) -> char {
      int64_t v;
      Attribute a = config && config.kind() == AttrKind::kDictionary ? config.Field(key) : Attribute();
      if (!a) return dflt;
      if (!ir::GetInt(a, &v)) Fail(op, absl::StatusCode::kInvalidArgument, StrCat("mhlo.backend_config.", key, " must be an integer"));
      return static_cast<char>(v);
    };
    auto p = std::make_shared<cpu::LapackParams>();
    std::vector<int> in = Operands(op, env);

    if (routine == "trsm") {
      // FFI: (a, b, alpha) with side/uplo/trans_x/diag; legacy: (left, lower, trans, diag, m, n,
      // batch, alpha, a, b). Both become stablehlo.triangular_solve when alpha is 1.
      auto t = std::make_shared<cpu::TriangularSolveParams>();
      size_t a_index = ffi ? 0 : 8, alpha_index = ffi ? 2 : 7;
      if (in.size() != (ffi ? 3u : 10u) || op.num_results() != 1)
        Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@", target, " takes ", ffi ? 3 : 10, " operands and returns one result"));
      int64_t trans;
      if (ffi) {
        t->left_side = char_option("side", 'L') == 'L';
        t->lower = char_option("uplo", 'L') == 'L';
        char tc = char_option("trans_x", 'N');
        trans = tc == 'T' ? 1 : tc == 'C' ? 2 : 0;
        t->unit_diagonal = char_option("diag", 'N') == 'U';
      } else {
        t->left_side = ConstantOperand(op, 0, "left_side") != 0;
        t->lower = ConstantOperand(op, 1, "lower") != 0;
        trans = ConstantOperand(op, 2, "trans_a");
        t->unit_diagonal = ConstantOperand(op, 3, "diag") != 0;
      }
      t->transpose = trans == 1 ? cpu::TriangularSolveParams::kTranspose
                     : trans == 2 ? cpu::TriangularSolveParams::kAdjoint
                                  : cpu::TriangularSolveParams::kNoTranspose;
      const Operation* alpha = op.operands[alpha_index]->def;
      bool alpha_is_one = false;
      if (alpha && alpha->name() == "stablehlo.constant") {
        Attribute v = alpha->attr("value");
        if (v && v.kind() == AttrKind::kDenseElements && v->data) {
          const std::vector<uint8_t>& bytes = *v->data;
          alpha_is_one = (kind == ElemKind::kF32 && bytes.size() == 4 && bytes == std::vector<uint8_t>{0, 0, 0x80, 0x3f}) ||
                         (kind == ElemKind::kF64 && bytes.size() == 8 && bytes == std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}) ||
                         (kind == ElemKind::kC64 && bytes.size() == 8 && bytes == std::vector<uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0, 0}) ||
                         (kind == ElemKind::kC128 && bytes.size() == 16 &&
                          bytes == std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0});
        }
      }
      if (!alpha_is_one) Unimplemented(op, StrCat("@", target, " with alpha other than the constant 1"));
      AddStep(op, env, prog, cpu::TriangularSolveKernel(), {in[a_index], in[a_index + 1]}).params = t;
      return;
    }

    if (routine == "gtsv" && ffi) {
      // (dl, d, du, b) -> (dl, d, du, b, info), jax.lax.linalg.tridiagonal_solve on CPU.
      if (in.size() != 4 || op.num_results() != 5)
        Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@", target, " takes 4 operands and returns 5 results"));
      std::vector<ArrayType> ts;
      for (int i = 0; i < 4; ++i) ts.push_back(ToArrayType(op, op.operands[i]->type));
      const ArrayType& b = ts[3];
      bool ok = b.elem == kind && b.rank() >= 2;
      std::vector<int64_t> vec = b.dims;
      if (ok) vec.pop_back();
      for (int i = 0; ok && i < 3; ++i) ok = ts[i].elem == kind && ts[i].dims == vec;
      if (!ok)
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("@", target, " needs dl, d, du of shape [batch..., m] and b of [batch..., m, nrhs], all ",
                    ir::ElemKindName(kind), "; got ", ts[0].ToString(), ", ", ts[1].ToString(), ", ",
                    ts[2].ToString(), ", ", b.ToString()));
      vec.pop_back();
      ts.push_back(ArrayType{ElemKind::kI32, vec});
      for (int i = 0; i < 5; ++i)
        if (ToArrayType(op, op.result(i)->type) != ts[i])
          Fail(op, absl::StatusCode::kInvalidArgument,
               StrCat("@", target, ": result #", i, " must be ", ts[i].ToString(), ", got ", op.result(i)->type.ToString()));
      AddStep(op, env, prog, cpu::GtsvKernel(), in);
      return;
    }

    size_t scalars = 0;  // leading scalar operands of the legacy form
    if (routine == "getrf") {
      p->routine = cpu::LapackParams::kGetrf;
      scalars = 3;  // batch, m, n
    } else if (routine == "geqrf") {
      p->routine = cpu::LapackParams::kGeqrf;
      scalars = 4;  // batch, m, n, lwork
    } else if (routine == "orgqr" || routine == "ungqr") {
      p->routine = cpu::LapackParams::kOrgqr;
      scalars = 5;  // batch, m, n, k, lwork
    } else if (routine == "potrf") {
      p->routine = cpu::LapackParams::kPotrf;
      scalars = 3;  // lower, batch, n
      p->lower = ffi ? char_option("uplo", 'L') == 'L' : ConstantOperand(op, 0, "lower") != 0;
    } else if (routine == "syevd" || routine == "heevd") {
      p->routine = cpu::LapackParams::kSyevd;
      scalars = 3;  // lower, batch, n
      p->lower = ffi ? char_option("uplo", 'L') == 'L' : ConstantOperand(op, 0, "lower") != 0;
      p->vectors = ffi ? char_option("mode", 'V') == 'V' : true;
    } else if (routine == "gesdd" || routine == "gesvd") {
      p->routine = cpu::LapackParams::kGesdd;
      scalars = 6;  // full_matrices, compute_uv, batch, m, n, lwork
      if (ffi) {
        char mode = char_option("mode", 'A');
        if (mode == 'O') Unimplemented(op, StrCat("@", target, " with mode 'O'"));
        p->vectors = mode != 'N';
        p->full_matrices = mode == 'A';
      } else {
        p->full_matrices = ConstantOperand(op, 0, "full_matrices") != 0;
        p->vectors = ConstantOperand(op, 1, "compute_uv") != 0;
      }
    } else if (routine == "geev" && ffi) {
      p->routine = cpu::LapackParams::kGeev;
      p->left_vectors = char_option("compute_left", 'N') == 'V';
      p->vectors = char_option("compute_right", 'V') == 'V';
    } else if (routine == "gehrd" && ffi) {
      p->routine = cpu::LapackParams::kGehrd;
      // low/high are LAPACK's 1-based ilo/ihi; the defaults reduce the whole matrix.
      int64_t low = 1, high = -1;
      if (config && config.kind() == AttrKind::kDictionary) {
        ir::GetInt(config.Field("low"), &low);
        ir::GetInt(config.Field("high"), &high);
      }
      p->ilo = low - 1;
      p->ihi = high - 1;  // checked against n below
    } else if (routine == "gees" && ffi) {
      p->routine = cpu::LapackParams::kGees;
      p->vectors = char_option("mode", 'V') == 'V';
      if (char_option("sort", 'N') != 'N')
        Unimplemented(op, StrCat("@", target, " with eigenvalue sorting (sort = '", std::string(1, char_option("sort", 'N')), "')"));
    } else if ((routine == "sytrd" || routine == "hetrd") && ffi) {
      p->routine = cpu::LapackParams::kSytrd;
      p->lower = char_option("uplo", 'L') == 'L';
    } else {
      Fail(op, absl::StatusCode::kUnimplemented,
           StrCat("custom_call target '", target, "' (LAPACK ", routine, ") is not supported by the CPU plugin"));
    }
    p->first_operand = ffi ? 0 : static_cast<int>(scalars);
    const size_t matrices = p->routine == cpu::LapackParams::kOrgqr ? 2 : 1;
    if (in.size() != p->first_operand + matrices)
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("@", target, " takes ", p->first_operand + matrices, " operands, got ", in.size()));
    Type x = op.operands[p->first_operand]->type;
    if (!x.IsTensor() || x.rank() < 2 || x.element_type().elem() != kind)
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("@", target, " needs a matrix of ", ir::ElemKindName(kind), " elements, got ", x.ToString()));
    std::vector<Type> results;
    if (op.num_results() == 1 && op.result(0)->type.IsTuple()) {
      p->tuple_result = true;
      for (Type t : op.result(0)->type.inputs()) results.push_back(t);
    } else {
      for (size_t i = 0; i < op.num_results(); ++i) results.push_back(op.result(i)->type);
    }
    const bool complex_kind = kind == ElemKind::kC64 || kind == ElemKind::kC128;
    const size_t needed = p->routine == cpu::LapackParams::kGeev ? (complex_kind ? 4 : 5)
                          : p->routine == cpu::LapackParams::kGees ? (complex_kind ? 5 : 6)
                          : std::vector<size_t>{3, 2, 1, 2, 3, 5, 0, 3, 5}[p->routine];
    if (results.size() < needed)
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("@", target, " must return at least ", needed, " results, got ", results.size()));
    for (Type t : results) p->result_types.push_back(ToArrayType(op, t));
    // The kernel writes exactly these shapes: check every result it fills.
    const ArrayType xa = ToArrayType(op, x);
    const int64_t m = xa.dims[xa.rank() - 2], n = xa.dims.back(), k = std::min(m, n);
    const std::vector<int64_t> batch(xa.dims.begin(), xa.dims.end() - 2);
    const ElemKind real = kind == ElemKind::kC64 ? ElemKind::kF32 : kind == ElemKind::kC128 ? ElemKind::kF64 : kind;
    auto with = [&](std::vector<int64_t> tail) {
      std::vector<int64_t> d = batch;
      d.insert(d.end(), tail.begin(), tail.end());
      return d;
    };
    auto expect = [&](size_t i, ElemKind ek, std::vector<int64_t> dims) {
      if (i >= p->result_types.size()) return;
      cpu::ArrayType want{ek, std::move(dims)};
      if (p->result_types[i] != want)
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("@", target, ": result #", i, " must be ", want.ToString(), ", got ",
                    p->result_types[i].ToString()));
    };
    if (p->routine != cpu::LapackParams::kGeev) expect(0, kind, xa.dims);
    if ((p->routine == cpu::LapackParams::kPotrf || p->routine == cpu::LapackParams::kSyevd ||
         p->routine == cpu::LapackParams::kGeev || p->routine == cpu::LapackParams::kGehrd ||
         p->routine == cpu::LapackParams::kSytrd || p->routine == cpu::LapackParams::kGees) && m != n)
      Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@", target, " needs square matrices, got ", x.ToString()));
    switch (p->routine) {
      case cpu::LapackParams::kGetrf: expect(1, ElemKind::kI32, with({k})); expect(2, ElemKind::kI32, batch); break;
      case cpu::LapackParams::kGeqrf: expect(1, kind, with({k})); expect(2, ElemKind::kI32, batch); break;
      case cpu::LapackParams::kOrgqr: {
        Type tau = op.operands[p->first_operand + 1]->type;
        ArrayType ta = ToArrayType(op, tau);
        if (ta.elem != kind || ta.rank() != xa.rank() - 1 ||
            !std::equal(batch.begin(), batch.end(), ta.dims.begin()) || ta.dims.back() > n || n > m)
          Fail(op, absl::StatusCode::kInvalidArgument,
               StrCat("@", target, ": tau ", tau.ToString(), " does not fit the matrix ", x.ToString()));
        expect(1, ElemKind::kI32, batch);
        break;
      }
      case cpu::LapackParams::kPotrf: expect(1, ElemKind::kI32, batch); break;
      case cpu::LapackParams::kSyevd: expect(1, real, with({n})); expect(2, ElemKind::kI32, batch); break;
      case cpu::LapackParams::kGesdd:
        expect(1, real, with({k}));
        if (p->vectors) {
          expect(2, kind, with({m, p->full_matrices ? m : k}));
          expect(3, kind, with({p->full_matrices ? n : k, n}));
        }
        expect(4, ElemKind::kI32, batch);
        break;
      case cpu::LapackParams::kGehrd:
        if (p->ihi == -2) p->ihi = n - 1;  // no `high`: the whole matrix
        if (p->ilo < 0 || p->ilo > std::max<int64_t>(n - 1, 0) || p->ihi < std::min(p->ilo, n - 1) || p->ihi > n - 1)
          Fail(op, absl::StatusCode::kInvalidArgument,
               StrCat("@", target, ": low = ", p->ilo + 1, ", high = ", p->ihi + 1, " do not fit ", n, "x", n,
                      " matrices (1 <= low <= high <= n)"));
        expect(1, kind, with({std::max<int64_t>(n - 1, 0)}));
        expect(2, ElemKind::kI32, batch);
        break;
      case cpu::LapackParams::kGees: {
        expect(1, kind, xa.dims);
        const size_t wn = complex_kind ? 1 : 2;
        for (size_t i = 0; i < wn; ++i) expect(2 + i, kind, with({n}));
        expect(2 + wn, ElemKind::kI32, batch);
        expect(3 + wn, ElemKind::kI32, batch);
        break;
      }
      case cpu::LapackParams::kSytrd:
        expect(1, real, with({n}));
        expect(2, real, with({std::max<int64_t>(n - 1, 0)}));
        expect(3, kind, with({std::max<int64_t>(n - 1, 0)}));
        expect(4, ElemKind::kI32, batch);
        break;
      case cpu::LapackParams::kGeev: {
        const ElemKind ck = kind == ElemKind::kF32 ? ElemKind::kC64 : kind == ElemKind::kF64 ? ElemKind::kC128 : kind;
        const size_t first_vec = complex_kind ? 1 : 2;
        for (size_t i = 0; i < first_vec; ++i) expect(i, kind, with({n}));
        expect(first_vec, ck, with({n, n}));
        expect(first_vec + 1, ck, with({n, n}));
        expect(first_vec + 2, ElemKind::kI32, batch);
        break;
      }
    }
    AddStep(op, env, prog, cpu::LapackKernel(), in).params = p;
  }

  void LowerHostTransfer(const Operation& op, Env& env, Program& prog) {
    const bool send = op.code == OpCode::kSend;
    Attribute host = op.attr("is_host_transfer");
    if (!host || host.kind() != AttrKind::kBool || !host->int_value) {
      Fail(op, absl::StatusCode::kUnimplemented,
           "device-to-device send/recv (is_host_transfer = false) is not supported by the CPU plugin");
      return;
    }
    const size_t data = send ? op.operands.size() - 1 : op.num_results() - 1;
    if (data != 1) {
      Fail(op, absl::StatusCode::kUnimplemented,
           StrCat("host ", send ? "send" : "recv", " of ", data, " arrays (one is supported)"));
      return;
    }
    auto p = std::make_shared<cpu::HostTransferParams>();
    Attribute ch = op.attr("channel_handle");
    if (ch && ch.kind() == AttrKind::kStruct) ir::GetInt(ch.Field("handle"), &p->channel);
    Step& s = AddStep(op, env, prog, send ? cpu::HostSendKernel() : cpu::HostRecvKernel(), Operands(op, env));
    s.params = p;
  }

  void LowerCollective(const Operation& op, Env& env, Program& prog, int depth) {
    auto p = std::make_shared<cpu::CollectiveParams>();
    const OpCode c = op.code;
    p->kind = c == OpCode::kAllReduce || c == OpCode::kCrossReplicaSum ? cpu::CollectiveParams::kAllReduce
              : c == OpCode::kCollectiveReduce ? cpu::CollectiveParams::kCollectiveReduce
              : c == OpCode::kAllGather ? cpu::CollectiveParams::kAllGather
              : c == OpCode::kReduceScatter ? cpu::CollectiveParams::kReduceScatter
              : c == OpCode::kAllToAll ? cpu::CollectiveParams::kAllToAll
              : c == OpCode::kCollectivePermute ? cpu::CollectiveParams::kCollectivePermute
                                                : cpu::CollectiveParams::kCollectiveBroadcast;
    // replica_groups: a 2-D integer tensor; -1 pads ragged groups.
    Attribute rg = op.attr("replica_groups");
    std::vector<int64_t> flat;
    if (rg && ir::GetI64List(rg, &flat) && rg.kind() == AttrKind::kDenseElements && rg->type.rank() == 2) {
      const int64_t rows = rg->type.shape()[0], cols = rg->type.shape()[1];
      for (int64_t i = 0; i < rows; ++i) {
        std::vector<int64_t> g;
        for (int64_t j = 0; j < cols; ++j)
          if (flat[i * cols + j] >= 0) g.push_back(flat[i * cols + j]);
        p->groups.push_back(g);
      }
    }
    Attribute ch = op.attr("channel_handle");
    int64_t channel = 0;
    if (ch && ch.kind() == AttrKind::kStruct) ir::GetInt(ch.Field("handle"), &channel);
    const bool global_ids = static_cast<bool>(op.attr("use_global_device_ids"));
    if (p->kind == cpu::CollectiveParams::kCollectivePermute ||
        p->kind == cpu::CollectiveParams::kCollectiveBroadcast ||
        p->kind == cpu::CollectiveParams::kAllToAll) {
      p->mode = channel > 0 ? cpu::GroupMode::kCrossPartition : cpu::GroupMode::kCrossReplica;
    } else if (channel <= 0) {
      p->mode = cpu::GroupMode::kCrossReplica;
    } else {
      p->mode = global_ids ? cpu::GroupMode::kFlattenedIds : cpu::GroupMode::kCrossReplicaAndPartition;
    }
    if (p->kind == cpu::CollectiveParams::kCollectivePermute) {
      std::vector<int64_t> pairs;
      ir::GetI64List(op.attr("source_target_pairs"), &pairs);
      for (size_t i = 0; i + 1 < pairs.size(); i += 2) p->pairs.emplace_back(pairs[i], pairs[i + 1]);
    }
    p->dim = Int(op, p->kind == cpu::CollectiveParams::kAllGather ? "all_gather_dim"
                     : p->kind == cpu::CollectiveParams::kReduceScatter ? "scatter_dimension"
                                                                         : "split_dimension", 0);
    p->concat_dim = Int(op, "concat_dimension", 0);
    p->split_count = Int(op, "split_count", 1);
    std::vector<std::shared_ptr<Program>> regions;
    if (c == OpCode::kCrossReplicaSum) {
      p->has_fast = true;
      p->fast = Check(op, cpu::SelectBinary(BinaryOp::kAdd, kind_of_result(op), kind_of_result(op)));
    } else if (!op.regions.empty()) {
      BinaryOp b;
      const ir::Block* body = op.regions[0]->front();
      bool same_kinds = true;
      for (size_t i = 0; i < op.num_results(); ++i)
        same_kinds &= op.operands[i]->type.element_type() == op.result(i)->type.element_type();
      if (body && same_kinds && FastRegion(*body, &b)) {
        KernelFn fn = nullptr;
        bool one_kind = true;
        for (size_t i = 1; i < op.num_results(); ++i)
          one_kind &= op.result(i)->type.element_type() == op.result(0)->type.element_type();
        auto sel = cpu::SelectBinary(b, kind_of_result(op), kind_of_result(op));
        if (one_kind && sel.ok()) fn = *sel;
        p->has_fast = fn != nullptr;
        p->fast = fn;
      }
      if (!p->has_fast) regions.push_back(LowerRegion(op, 0, env, depth));
    }
    std::vector<ElemKind> want;
    for (size_t i = 0; i < op.num_results() && i < op.operands.size(); ++i)
      want.push_back(kind_of_result_at(op, i));
    Step& s = AddStep(op, env, prog, cpu::CollectiveKernel(), OperandsAs(op, env, prog, want));
    s.params = p;
    s.regions = std::move(regions);
  }

  ElemKind kind_of_result_at(const Operation& op, size_t i) {
    return ToArrayType(op, op.result(i)->type).elem;
  }

  ElemKind kind_of_result(const Operation& op) { return ToArrayType(op, op.result(0)->type).elem; }

  // The binary op a two-argument region computes, if it is exactly op(arg0, arg1).
  bool FastRegion(const ir::Block& b, BinaryOp* out) {
    if (b.args.size() != 2 || b.ops.size() != 2) return false;
    const Operation& f = *b.ops[0];
    const Operation& r = *b.ops[1];
    bool bc;
    if (!BinaryOf(f.code, out, &bc) || bc || f.operands.size() != 2) return false;
    bool commutative = *out == BinaryOp::kAdd || *out == BinaryOp::kMul || *out == BinaryOp::kMax ||
                       *out == BinaryOp::kMin || *out == BinaryOp::kAnd || *out == BinaryOp::kOr ||
                       *out == BinaryOp::kXor;
    bool args_ok = (f.operands[0] == b.args[0].get() && f.operands[1] == b.args[1].get()) ||
                   (commutative && f.operands[0] == b.args[1].get() && f.operands[1] == b.args[0].get());
    return args_ok && r.operands.size() == 1 && r.operands[0] == f.result(0);
  }


  const ir::Module& m_;
  int next_slot_ = 0;
  bool quant_as_expressed_ = false;
};

}  // namespace

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
    if (absl::Status s = RefineShapes(module, *entry); !s.ok()) return s;
    // The refined module must still be well formed (dynamic_broadcast_in_dim's sizes against its
    // operand, callers against their specialised callees, ...).
    if (absl::Status s = ir::VerifyModule(module); !s.ok()) return absl::InvalidArgumentError(s.message());
  }
  try {
    Lowerer l(module);
    return l.LowerEntry(*entry);
  } catch (const CompileError& e) {
    return absl::Status(e.code, e.what());
  }
}

}  // namespace openpjrt::compiler
