// The lowering from IR to a CPU program, shared by compile.cc (ops) and lower_calls.cc (custom
// calls, LAPACK, FFI, host transfers and collectives). Internal to the compiler.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/compiler/compile_error.h"
#include "src/compiler/cse.h"
#include "src/compiler/passes.h"
#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/exec/ffi.h"
#include "src/cpu/kernels/kernels.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/lapack/kernels_linalg.h"
#include "src/cpu/kernels/kernels_quant.h"
#include "src/cpu/exec/program.h"
#include "src/ir/ir.h"
#include "src/support/str.h"

namespace openpjrt::compiler::internal {

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

// The kernel for a StableHLO/CHLO elementwise op, if it is one (compile.cc).
bool UnaryOf(OpCode c, UnaryOp* out);
// StableHLO binary ops, and the CHLO broadcasting ops that map onto them (*broadcasting).
bool BinaryOf(OpCode c, BinaryOp* out, bool* broadcasting);

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
    DropUnreadSteps(*exe->program);
    FoldConstants(*exe->program);
    DropUnreadSteps(*exe->program);
    FoldReshapes(*exe->program);
    PrepackConstantWeights(*exe->program);
    FuseElementwise(*exe->program);
    AbsorbDynamicSlices(*exe->program);
    FuseReductions(*exe->program);
    FuseProductEpilogues(*exe->program);
    FuseLookupsIntoScatters(*exe->program);
    FuseRows(*exe->program, exe->arg_types);
    HoistLoopConstants(*exe->program);
    ComputeReleases(*exe->program);
    exe->num_slots = next_slot_;
    if (cpu::StepProfile::Enabled()) exe->profile = std::make_shared<cpu::StepProfile>(*exe->program, exe->name);
    return exe;
  }

 private:
  [[noreturn]] void Fail(const Operation& op, absl::StatusCode code, const std::string& msg) {
    FailAt(m_.source_name, op, code, msg);
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
      if (op->code == OpCode::kReturn || op->code == OpCode::kFuncReturn || op->code == OpCode::kSdyReturn) {
        std::vector<int> r;
        for (const Value* v : op->operands) r.push_back(Use(*op, env, v));
        return r;
      }
      if (ReuseEarlier(*op, env, prog)) continue;
      LowerOp(*op, env, prog, depth);
      if (Reusable(*op)) {
        std::vector<int> in = Operands(*op, env), out;
        for (size_t i = 0; i < op->num_results(); ++i) out.push_back(env.Lookup(op->result(i)));
        lowered_.Add(&prog, *op, std::move(in), std::move(out), quant_as_expressed_);
      }
    }
    Fail(*block.parent->parent, absl::StatusCode::kInvalidArgument, "block has no terminator");
  }

  // Common subexpressions (cse.h): `op` takes the result slots of an equal op lowered into `prog`
  // before from the same slots, if there is one.
  bool ReuseEarlier(const Operation& op, Env& env, const Program& prog) {
    if (!Reusable(op)) return false;
    std::vector<int> in;
    for (const Value* v : op.operands) {
      int s = env.Lookup(v);
      if (s < 0) return false;  // LowerOp reports it
      in.push_back(s);
    }
    const std::vector<int>* out = lowered_.Find(&prog, op, in, quant_as_expressed_);
    if (!out) return false;
    for (size_t i = 0; i < op.num_results(); ++i) env.slots[op.result(i)] = (*out)[i];
    return true;
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

  // The kind a product (dot_general, ragged dot) with `out` elements is computed in: f32 for
  // bf16, f16 and the 4-, 6- and 8-bit floats, rounded once at the end as XLA's CPU backend does
  // (the 16-bit floats' own loops rounded at every step, 37 times slower than the f32 kernel:
  // 256^3 in bf16 6.1 ms against 0.17 ms); i32 or i64 for the narrower integers and u64, whose
  // wrapping sums agree with the kind's modulo its width (cpu::WideKind); else `out` itself.
  // The kernels have no loops for the kinds that have a work kind.
  static ElemKind ProductWork(ElemKind out) {
    return out == ElemKind::kBF16 || out == ElemKind::kF16 ? ElemKind::kF32 : cpu::WideKind(out);
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
      case OpCode::kCheckExpectClose: case OpCode::kSdyManualComputation:
      case OpCode::kSdyNamedComputation: case OpCode::kSdyReturn: case OpCode::kSdyShardingConstraint:
      case OpCode::kSdyReshard: case OpCode::kSdyPropagationBarrier: case OpCode::kSdyShardingGroup:
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

  void LowerOp(const Operation& op, Env& env, Program& prog, int depth);
  static bool OperandsFillResult(const Operation& op);
  void MakeFusibleSelect(const Operation& op, Step& s, bool pred_broadcast = false);

  // stablehlo.custom_call: check targets, annotations that pass values through, shape
  // assertions, LAPACK, ApproxTopK and FFI handlers (lower_calls.cc).
  void LowerCustomCall(const Operation& op, Env& env, Program& prog, int depth);
  // sdy.named_computation, and sdy.manual_computation whose shards are the whole values: the
  // body runs in place of the op.
  void LowerSdyComputation(const Operation& op, Env& env, Program& prog, int depth);

  // send/recv with the host: one array each way, matched to the caller's callbacks by channel.
  // A custom_call whose target has an XLA FFI handler (registered through the PJRT FFI
  // extension): operands and results are passed as buffers, the backend_config dictionary (or
  // mhlo.backend_config) as the handler's attributes.
  void LowerFfiCall(const Operation& op, Env& env, Program& prog, const std::string& target,
                    const cpu::FfiHandler* handler);

  // The value of a scalar integer operand that a constant defines (the legacy LAPACK calls pass
  // their options this way).
  int64_t ConstantOperand(const Operation& op, size_t i, const char* what);

  // Every value of an integer operand that a constant defines (a splat repeated to its size).
  std::vector<int64_t> ConstantInts(const Operation& op, size_t i, const char* what);

  // custom_call @ApproxTopK (jax.lax.approx_max_k / approx_min_k, as exported for TPU), computed
  // exactly as XLA's CPU fallback does: the N operands are sorted along reduction_dim with the
  // comparator function (called_computations) and the first result-size elements kept. The N
  // init operands only pad the approximate algorithm's partial windows.
  // `data` operands are the N inputs and N inits (stablehlo.dynamic_approx_top_k adds k after them).
  void LowerApproxTopK(const Operation& op, Env& env, Program& prog, int depth, size_t data);
  // The custom calls jax.export emits for symbolic sizes (stablehlo.dynamic_top_k,
  // dynamic_approx_top_k, dynamic_reduce_window, dynamic_rng_bit_generator): once refinement or
  // folding fixes their size operands they run as the static ops.
  void LowerDynamicCustomCall(const Operation& op, Env& env, Program& prog, int depth, const std::string& target);
  // The function named by called_computations (exactly one), or a failure naming `what`.
  const Operation& CalledComputation(const Operation& op, const std::string& what);
  // A function's body as a nested program with its own argument slots (functions are isolated
  // from above): comparators and reducers of custom calls, run_parallel's processes.
  std::shared_ptr<Program> LowerFunctionBody(const Operation& f, int depth);
  void LowerDuccFft(const Operation& op, Env& env, Program& prog, const std::string& target);

  // JAX's CPU linear algebra: custom calls lapack_<t><routine>[_ffi] (t = s, d, c, z) and the
  // legacy blas_<t>trsm. The _ffi forms take their options from mhlo.backend_config; the legacy
  // forms (api_version 2) pass them as leading scalar operands and may return one tuple.
  void LowerLapack(const Operation& op, Env& env, Program& prog, const std::string& target);

  void LowerHostTransfer(const Operation& op, Env& env, Program& prog);

  void LowerCollective(const Operation& op, Env& env, Program& prog, int depth);
  // dot_general, dot and chlo.ragged_dot (lower_products.cc).
  void LowerProduct(const Operation& op, Env& env, Program& prog);
  // lower_calls.cc: CHLO ops serialized as custom calls (@mhlo.erf, @mhlo.topk, @chlo.ragged_dot).
  static bool EncodedUnary(std::string_view name, cpu::UnaryOp* op = nullptr);
  void LowerEncodedChlo(const Operation& op, Env& env, Program& prog, const std::string& target);
  // lower_legacy.cc: einsum, unary_einsum, torch_index_select.
  void LowerLegacy(const Operation& op, Env& env, Program& prog);
  // gather, dynamic_gather, scatter (lower_products.cc).
  void LowerIndexed(const Operation& op, Env& env, Program& prog, int depth);
  // convolution, reduce_window, select_and_scatter, batch norm (lower_products.cc).
  void LowerWindowed(const Operation& op, Env& env, Program& prog, int depth);
  // interpreter.run_parallel (lower_calls.cc).
  void LowerRunParallel(const Operation& op, Env& env, Program& prog, int depth);

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

  // A typed loop for a reduce_window whose body is one binary op, or a select_and_scatter whose
  // select is one compare of its arguments and whose scatter is one add (cpu::FastReduceWindowKernel,
  // cpu::FastSelectAndScatterKernel); null when the regions are anything else.
  KernelFn FastWindowKernel(const Operation& op) {
    auto elem = [&](const Value* v) { return ToArrayType(op, v->type).elem; };
    const ir::Block* b0 = op.regions.empty() ? nullptr : op.regions[0]->front();
    if (!b0 || b0->args.size() != 2) return nullptr;
    BinaryOp bop;
    if (op.code == OpCode::kReduceWindow) {
      if (op.num_results() != 1 || !FastRegion(*b0, &bop) || elem(b0->args[0].get()) != elem(op.result(0)) ||
          elem(b0->args[1].get()) != elem(op.result(0)))
        return nullptr;
      return cpu::FastReduceWindowKernel(bop, elem(op.result(0)));
    }
    if (op.code != OpCode::kSelectAndScatter || op.regions.size() != 2) return nullptr;
    const ir::Block* b1 = op.regions[1]->front();
    if (!b1 || !FastRegion(*b1, &bop) || elem(b1->args[0].get()) != elem(op.result(0))) return nullptr;
    if (b0->ops.size() != 2 || b0->ops[0]->code != OpCode::kCompare || b0->ops[0]->operands.size() != 2) return nullptr;
    const Operation& cmp = *b0->ops[0];
    const Operation& ret = *b0->ops[1];
    if (ret.operands.size() != 1 || ret.operands[0] != cmp.result(0)) return nullptr;
    const ElemKind k = elem(op.operands[0]);
    if (elem(b0->args[0].get()) != k || elem(b0->args[1].get()) != k) return nullptr;
    cpu::CompareParams cp = CompareOf(cmp, k);
    if (cmp.operands[0] == b0->args[1].get() && cmp.operands[1] == b0->args[0].get()) {
      // compare(candidate, current): the same test with the direction mirrored
      using D = cpu::CompareParams;
      cp.dir = cp.dir == D::kGe ? D::kLe : cp.dir == D::kGt ? D::kLt : cp.dir == D::kLe ? D::kGe
             : cp.dir == D::kLt ? D::kGt : cp.dir;
    } else if (cmp.operands[0] != b0->args[0].get() || cmp.operands[1] != b0->args[1].get()) {
      return nullptr;
    }
    return cpu::FastSelectAndScatterKernel(cp, bop, k, elem(op.result(0)));
  }

  const ir::Module& m_;
  int next_slot_ = 0;
  bool quant_as_expressed_ = false;
  LoweredOps lowered_;  // for ReuseEarlier
};

}  // namespace openpjrt::compiler::internal
