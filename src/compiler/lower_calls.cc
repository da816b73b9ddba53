// Lowering of custom calls (check targets, pass-through annotations, shape assertions, LAPACK,
// ApproxTopK, FFI handlers) and host transfers: the Lowerer methods of lowerer.h that are not
// ops of their own (collectives and run_parallel: lower_collectives.cc).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/compiler/lowerer.h"
#include "src/compiler/refine.h"
#include "src/cpu/comm/collectives.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/kernels/kernels_rng.h"

namespace openpjrt::compiler::internal {

void Lowerer::LowerCustomCall(const Operation& op, Env& env, Program& prog, int depth) {
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
    LowerApproxTopK(op, env, prog, depth, op.operands.size());
  } else if (target == "stablehlo.dynamic_top_k" || target == "stablehlo.dynamic_approx_top_k" ||
             target == "stablehlo.dynamic_reduce_window" || target == "stablehlo.dynamic_rng_bit_generator") {
    LowerDynamicCustomCall(op, env, prog, depth, target);
  } else if (target == "ducc_fft" || target == "dynamic_ducc_fft") {
    LowerDuccFft(op, env, prog, target);
  } else if (target == "mhlo.topk" || target == "mhlo.erf" || target == "chlo.ragged_dot" ||
             ((target.starts_with("mhlo.") || target.starts_with("chlo.")) && EncodedUnary(target.substr(5)))) {
    LowerEncodedChlo(op, env, prog, target);
  } else if (const cpu::FfiHandler* h = cpu::FindFfiHandler(target)) {
    LowerFfiCall(op, env, prog, target, h);
  } else {
    Fail(op, absl::StatusCode::kUnimplemented,
         StrCat("custom_call target '", target, "' is not supported by the CPU plugin (No FFI handler registered for '",
                target, "'; register one through the PJRT FFI extension)"));
  }
  return;
}

namespace {

// CHLO functions of one operand by name, as XLA's serializer may encode them (@mhlo.erf).
const std::pair<const char*, cpu::UnaryOp> kEncodedUnary[] = {
    {"erf", cpu::UnaryOp::kErf},       {"erfc", cpu::UnaryOp::kErfc},     {"erf_inv", cpu::UnaryOp::kErfInv},
    {"tan", cpu::UnaryOp::kTan},       {"acos", cpu::UnaryOp::kAcos},     {"acosh", cpu::UnaryOp::kAcosh},
    {"asin", cpu::UnaryOp::kAsin},     {"asinh", cpu::UnaryOp::kAsinh},   {"atan", cpu::UnaryOp::kAtan},
    {"atanh", cpu::UnaryOp::kAtanh},   {"cosh", cpu::UnaryOp::kCosh},     {"sinh", cpu::UnaryOp::kSinh},
    {"lgamma", cpu::UnaryOp::kLgamma}, {"digamma", cpu::UnaryOp::kDigamma}, {"bessel_i1e", cpu::UnaryOp::kBesselI1e},
};

}  // namespace

bool Lowerer::EncodedUnary(std::string_view name, cpu::UnaryOp* op) {
  for (const auto& [n, u] : kEncodedUnary)
    if (name == n) {
      if (op) *op = u;
      return true;
    }
  return false;
}

// CHLO ops kept whole through serialization as custom calls, their attributes in the
// `mhlo.attributes` dictionary: @mhlo.erf (and the other functions of one operand), @mhlo.topk
// (k, largest) and @chlo.ragged_dot (its dimension numbers; LowerProduct reads them).
void Lowerer::LowerEncodedChlo(const Operation& op, Env& env, Program& prog, const std::string& target) {
  auto kind_of = [&](const Value* v) { return ToArrayType(op, v->type).elem; };
  Attribute attrs = op.attr("mhlo.attributes");
  if (attrs && attrs.kind() != AttrKind::kDictionary)
    Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@", target, ": mhlo.attributes must be a dictionary"));
  if (target == "chlo.ragged_dot") return LowerProduct(op, env, prog);
  if (target == "mhlo.topk") {
    int64_t k = -1, largest = 1;
    if (!attrs || !ir::GetInt(attrs.Field("k"), &k) || op.operands.size() != 1 || op.num_results() != 2)
      Fail(op, absl::StatusCode::kInvalidArgument,
           "@mhlo.topk takes one operand and mhlo.attributes = {k = K}, and returns (values, indices)");
    if (attrs.Field("largest")) ir::GetInt(attrs.Field("largest"), &largest);
    const ArrayType x = ToArrayType(op, op.operands[0]->type);
    if (x.rank() < 1 || k < 0 || k > x.dims.back())
      Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@mhlo.topk: k = ", k, " is outside [0, ",
                                                          x.rank() ? x.dims.back() : 0, "] for ", x.ToString()));
    // (The kernel writes k per row into the results: a custom call's result types are the
    // caller's word, so they are checked here.)
    ArrayType want = x;
    want.dims.back() = k;
    for (size_t i = 0; i < 2; ++i)
      if (ToArrayType(op, op.result(i)->type).dims != want.dims || (i == 0 && kind_of(op.result(0)) != x.elem))
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("@mhlo.topk: result #", i, " must be ", i == 0 ? want.ToString() : "the operand's shape with k last",
                    " for k = ", k));
    if (ir::IsComplex(x.elem) || kind_of(op.result(1)) != ElemKind::kI32)
      Unimplemented(op, "top_k on complex operands or with non-i32 indices");
    auto p = std::make_shared<cpu::TopKParams>();
    p->k = k;
    p->largest = largest != 0;
    AddStep(op, env, prog, cpu::TopKKernel(), Operands(op, env)).params = p;
    return;
  }
  cpu::UnaryOp u;
  EncodedUnary(std::string_view(target).substr(5), &u);
  if (op.operands.size() != 1 || op.num_results() != 1)
    Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@", target, " takes one operand and returns one result"));
  const ElemKind in = kind_of(op.operands[0]), out = kind_of(op.result(0));
  Step& s = AddStep(op, env, prog, Check(op, cpu::SelectUnary(u, in, out)), Operands(op, env));
  s.raw_unary = cpu::RawUnary(u, in, out);
  s.vec_op = cpu::VecUnaryOf(u, in, out);
  s.raw_in_bytes[0] = ir::ByteSize(in);
}

void Lowerer::LowerFfiCall(const Operation& op, Env& env, Program& prog, const std::string& target,
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

int64_t Lowerer::ConstantOperand(const Operation& op, size_t i, const char* what) {
  std::vector<int64_t> v;
  const Operation* def = i < op.operands.size() ? op.operands[i]->def : nullptr;
  if (!def || def->name() != "stablehlo.constant" || !ir::GetI64List(def->attr("value"), &v) || v.size() != 1)
    Fail(op, absl::StatusCode::kUnimplemented,
         StrCat("operand #", i, " (", what, ") must be a scalar integer constant"));
  return v[0];
}

std::vector<int64_t> Lowerer::ConstantInts(const Operation& op, size_t i, const char* what) {
  std::vector<int64_t> v;
  const Operation* def = i < op.operands.size() ? op.operands[i]->def : nullptr;
  const int64_t n = i < op.operands.size() ? op.operands[i]->type.NumElements() : -1;
  const bool constant = def && def->name() == "stablehlo.constant" && ir::GetI64List(def->attr("value"), &v);
  // Else sizes computed from constants (jax.export builds them with reshapes and concatenations).
  if (n < 0 || (!constant && !EvaluateInts(m_, op.operands[i], &v)))
    Fail(op, absl::StatusCode::kUnimplemented,
         StrCat("operand #", i, " (", what, ") must be an integer constant or computed from constants"));
  if (v.size() == 1 && n != 1) v.assign(static_cast<size_t>(n), v[0]);
  return v;
}

namespace {

// A read-only view of a FlatBuffers table (the wire format of jaxlib's FFT descriptors):
// bounds-checked little-endian reads; a field past the vtable or with offset 0 is absent.
class FlatTable {
 public:
  FlatTable(const uint8_t* data, size_t size) : data_(data), size_(size) {
    uint32_t root = 0;
    int32_t back = 0;
    uint16_t vt_size = 0;
    if (!Read(0, &root) || !Read(root, &back)) return;
    const int64_t vtable = static_cast<int64_t>(root) - back;
    if (vtable < 0 || !Read(static_cast<size_t>(vtable), &vt_size)) return;
    table_ = root;
    vtable_ = static_cast<size_t>(vtable);
    vt_size_ = vt_size;
    ok_ = true;
  }
  bool ok() const { return ok_; }

  // Position of field i, or 0 when absent.
  size_t Field(int i) const {
    uint16_t off = 0;
    if (!ok_ || 4 + 2 * static_cast<size_t>(i) + 2 > vt_size_ || !Read(vtable_ + 4 + 2 * i, &off)) return 0;
    return off == 0 ? 0 : table_ + off;
  }
  template <typename T>
  bool Scalar(int i, T fallback, T* out) const {
    const size_t pos = Field(i);
    if (pos == 0) {
      *out = fallback;
      return true;
    }
    return Read(pos, out);
  }
  template <typename T>
  bool Vector(int i, std::vector<int64_t>* out) const {
    out->clear();
    const size_t pos = Field(i);
    uint32_t rel = 0, len = 0;
    if (pos == 0) return true;
    if (!Read(pos, &rel) || !Read(pos + rel, &len)) return false;
    for (uint32_t k = 0; k < len; ++k) {
      T v{};
      if (!Read(pos + rel + 4 + static_cast<size_t>(k) * sizeof(T), &v)) return false;
      out->push_back(static_cast<int64_t>(v));
    }
    return true;
  }

 private:
  template <typename T>
  bool Read(size_t pos, T* out) const {
    if (pos > size_ || size_ - pos < sizeof(T)) return false;
    std::memcpy(out, data_ + pos, sizeof(T));
    return true;
  }
  const uint8_t* data_;
  size_t size_;
  size_t table_ = 0, vtable_ = 0, vt_size_ = 0;
  bool ok_ = false;
};

}  // namespace

// jaxlib's CPU FFT custom calls of 2022-2024 exports, before jax.numpy.fft lowered to
// stablehlo.fft: @ducc_fft(descriptor, x) with a DuccFftDescriptor (dtype, fft_type, shape,
// strides_in, strides_out, axes, forward, scale) and @dynamic_ducc_fft(descriptor, x, shape,
// strides_in, strides_out, scale) with a DynamicDuccFftDescriptor (ndims, dtype, fft_type, axes,
// forward). JAX transforms the trailing axes of a row-major array with the standard scales, which
// is stablehlo.fft; anything else is UNIMPLEMENTED with what differs.
void Lowerer::LowerDuccFft(const Operation& op, Env& env, Program& prog, const std::string& target) {
  const bool dynamic = target == "dynamic_ducc_fft";
  if (op.operands.size() < 2 || op.num_results() != 1 || (dynamic && op.operands.size() < 5))
    Fail(op, absl::StatusCode::kInvalidArgument,
         StrCat("@", target, " takes a descriptor and the operand", dynamic ? " (then shape, strides and scale)" : "",
                " and returns one result; got ", op.operands.size(), " operands and ", op.num_results(), " results"));
  const Operation* def = op.operands[0]->def;
  Attribute bytes = def && def->name() == "stablehlo.constant" ? def->attr("value") : Attribute();
  if (!bytes || bytes.kind() != AttrKind::kDenseElements || bytes->splat || !bytes->data ||
      op.operands[0]->type.element_type().elem() != ElemKind::kU8)
    Fail(op, absl::StatusCode::kUnimplemented, StrCat("@", target, ": operand #0 (the descriptor) must be a ui8 constant"));
  const std::vector<uint8_t> data(bytes->data->begin(), bytes->data->end());
  FlatTable t(data.data(), data.size());
  // Field numbers of the two descriptor tables.
  const int kDtype = dynamic ? 1 : 0, kType = dynamic ? 2 : 1, kAxes = dynamic ? 3 : 5, kForward = dynamic ? 4 : 6;
  int8_t dtype = 0, type = 0;
  uint8_t forward = 0;
  double scale = 1.0;
  std::vector<int64_t> axes, shape, strides_in, strides_out;
  bool ok = t.ok() && t.Scalar<int8_t>(kDtype, 0, &dtype) && t.Scalar<int8_t>(kType, 0, &type) &&
            t.Vector<uint32_t>(kAxes, &axes) && t.Scalar<uint8_t>(kForward, 0, &forward);
  if (ok && !dynamic)
    ok = t.Vector<uint64_t>(2, &shape) && t.Vector<uint64_t>(3, &strides_in) && t.Vector<uint64_t>(4, &strides_out) &&
         t.Scalar<double>(7, 1.0, &scale);
  if (!ok)
    Fail(op, absl::StatusCode::kInvalidArgument,
         StrCat("@", target, ": the descriptor (", data.size(), " bytes) is not a valid ",
                dynamic ? "DynamicDuccFftDescriptor" : "DuccFftDescriptor", " flatbuffer"));
  const Type in = op.operands[1]->type, out = op.result(0)->type;
  if (!in.IsTensor() || !out.IsTensor() || !in.HasStaticShape() || !out.HasStaticShape())
    Fail(op, absl::StatusCode::kUnimplemented, StrCat("@", target, " on dynamically shaped operands"));
  const int64_t rank = in.rank();
  if (type < 0 || type > 2 || dtype < 0 || dtype > 1)
    Fail(op, absl::StatusCode::kInvalidArgument,
         StrCat("@", target, ": descriptor fft_type ", int{type}, " / dtype ", int{dtype}, " out of range"));
  if (axes.empty() || static_cast<int64_t>(axes.size()) > rank)
    Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@", target, ": descriptor has ", axes.size(), " axes for rank ", rank));
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i))
      Fail(op, absl::StatusCode::kUnimplemented,
           StrCat("@", target, ": axes must be the trailing ", axes.size(), " dimensions in order (axis #", i, " is ",
                  axes[i], ")"));
  // C2C forward / backward, C2R (inverse, real result), R2C (forward, real operand).
  const ElemKind complex_kind = (type == 2 ? out : in).element_type().elem();
  if ((dtype == 0) != (complex_kind == ElemKind::kC64))
    Fail(op, absl::StatusCode::kInvalidArgument,
         StrCat("@", target, ": descriptor dtype ", dtype == 0 ? "COMPLEX64" : "COMPLEX128", " for a transform of ",
                (type == 2 ? out : in).ToString()));
  auto p = std::make_shared<cpu::FftParams>();
  p->type = type == 0 ? (forward ? cpu::FftParams::kFft : cpu::FftParams::kIfft)
            : type == 1 ? cpu::FftParams::kIrfft : cpu::FftParams::kRfft;
  if ((type == 1 && forward) || (type == 2 && !forward))
    Fail(op, absl::StatusCode::kUnimplemented,
         StrCat("@", target, ": a ", type == 1 ? "C2R" : "R2C", " transform in the ", forward ? "forward" : "backward",
                " direction"));
  const Type& real = type == 1 ? out : in;  // the side whose trailing sizes are the lengths
  double n = 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    p->lengths.push_back(real.shape()[axes[i]]);
    n *= static_cast<double>(p->lengths.back());
  }
  if (!dynamic) {
    // The descriptor describes the row-major operand (the real result for C2R).
    const Type& described = type == 1 ? out : in;
    std::vector<int64_t> dims(described.shape().begin(), described.shape().end());
    auto row_major_strides = [](const Type& t) {
      std::vector<int64_t> st(static_cast<size_t>(t.rank()), 1);
      for (int64_t d = t.rank() - 2; d >= 0; --d) st[d] = st[d + 1] * t.shape()[d + 1];
      return st;
    };
    const bool row_major = shape == dims && strides_in == row_major_strides(in) && strides_out == row_major_strides(out);
    const double want_scale = forward ? 1.0 : 1.0 / n;
    if (!row_major)
      Fail(op, absl::StatusCode::kUnimplemented,
           StrCat("@", target, ": the descriptor's shape and strides do not describe row-major ", described.ToString(),
                  " (operand ", in.ToString(), ", result ", out.ToString(), ")"));
    if (std::abs(scale - want_scale) > 1e-12 * std::abs(want_scale))
      Fail(op, absl::StatusCode::kUnimplemented,
           StrCat("@", target, ": scale ", scale, " (only 1 forward and 1/N backward are supported)"));
  }
  AddStep(op, env, prog, cpu::FftKernel(), {Use(op, env, op.operands[1])}).params = p;
}

const Operation& Lowerer::CalledComputation(const Operation& op, const std::string& what) {
  Attribute cc = op.attr("called_computations");
  if (cc && cc.kind() == AttrKind::kArray && cc->elements.size() == 1) cc = cc->elements[0];
  const Operation* f = cc && cc.kind() == AttrKind::kSymbolRef && cc->symbols.size() == 1
                           ? m_.LookupFunction(cc->symbols[0]) : nullptr;
  if (!f || f->regions.empty() || !f->regions[0]->front())
    Fail(op, absl::StatusCode::kInvalidArgument, StrCat(what, " needs its function in called_computations"));
  return *f;
}

std::shared_ptr<Program> Lowerer::LowerFunctionBody(const Operation& f, int depth) {
  auto body = std::make_shared<Program>();
  Env inner;  // functions are isolated from above
  for (const auto& a : f.regions[0]->front()->args) {
    const int slot = NewSlot();
    inner.slots[a.get()] = slot;
    body->args.push_back(slot);
  }
  body->results = LowerBlock(*f.regions[0]->front(), inner, *body, depth + 1);
  return body;
}

void Lowerer::LowerDynamicCustomCall(const Operation& op, Env& env, Program& prog, int depth,
                                     const std::string& target) {
  const std::string name = "@" + target;
  auto kind_of = [&](const Value* v) { return ToArrayType(op, v->type).elem; };
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) Fail(op, absl::StatusCode::kInvalidArgument, StrCat(name, ": ", what));
  };
  for (size_t i = 0; i < op.num_results(); ++i)
    if (!op.result(i)->type.HasStaticShape())
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat(name, ": result #", i, " has the dynamic type ", op.result(i)->type.ToString(),
                  "; its size operands must be known when compiling (constants, or refined from the "
                  "entry point's static argument types)"));
  const size_t n = op.operands.size();
  if (target == "stablehlo.dynamic_top_k") {
    need(n == 2 && op.num_results() == 2, "takes (operand, k) and returns (values, indices)");
    const ArrayType x = ToArrayType(op, op.operands[0]->type);
    const std::vector<int64_t> k = ConstantInts(op, 1, "k");
    need(x.rank() >= 1 && k.size() == 1, "needs an operand of rank >= 1 and a scalar k");
    ArrayType want = x;
    want.dims.back() = k[0];
    for (size_t i = 0; i < 2; ++i)
      need(ToArrayType(op, op.result(i)->type).dims == want.dims,
           StrCat("result #", i, " must have the shape ", want.ToString(), " for k = ", k[0]));
    need(k[0] >= 0 && k[0] <= x.dims.back(), StrCat("k = ", k[0], " is outside [0, ", x.dims.back(), "]"));
    if (ir::IsComplex(x.elem) || kind_of(op.result(1)) != ElemKind::kI32)
      Unimplemented(op, "top_k on complex operands or with non-i32 indices");
    auto p = std::make_shared<cpu::TopKParams>();
    p->k = k[0];
    AddStep(op, env, prog, cpu::TopKKernel(), {Use(op, env, op.operands[0])}).params = p;
  } else if (target == "stablehlo.dynamic_approx_top_k") {
    need(n >= 3 && n % 2 == 1 && op.num_results() == (n - 1) / 2,
         "takes N operands, N init values and k, and returns N results");
    LowerApproxTopK(op, env, prog, depth, n - 1);
  } else if (target == "stablehlo.dynamic_reduce_window") {
    need(n >= 7 && (n - 5) % 2 == 0 && op.num_results() == (n - 5) / 2,
         "takes N operands, N init values, window_dimensions, window_strides, base_dilations, "
         "window_dilations and padding, and returns N results");
    const size_t m = (n - 5) / 2;
    const int64_t rank = op.operands[0]->type.rank();
    auto p = std::make_shared<cpu::WindowParams>();
    p->dims = ConstantInts(op, 2 * m, "window_dimensions");
    p->strides = ConstantInts(op, 2 * m + 1, "window_strides");
    p->base_dilations = ConstantInts(op, 2 * m + 2, "base_dilations");
    p->window_dilations = ConstantInts(op, 2 * m + 3, "window_dilations");
    const std::vector<int64_t> pad = ConstantInts(op, 2 * m + 4, "padding");
    const size_t r = static_cast<size_t>(rank);
    need(p->dims.size() == r && p->strides.size() == r && p->base_dilations.size() == r &&
             p->window_dilations.size() == r && pad.size() == 2 * r,
         StrCat("the window parameters must have ", rank, " entries (padding ", 2 * rank, ")"));
    for (size_t d = 0; d < r; ++d) {
      need(p->dims[d] >= 0 && p->strides[d] > 0 && p->base_dilations[d] > 0 && p->window_dilations[d] > 0,
           StrCat("window dimension ", d, ": sizes must be >= 0 and strides and dilations > 0"));
      p->pad_low.push_back(pad[2 * d]);
      p->pad_high.push_back(pad[2 * d + 1]);
    }
    // The static result shape must be the one these parameters give.
    const ArrayType x = ToArrayType(op, op.operands[0]->type);
    for (size_t d = 0; d < r; ++d) {
      const int64_t padded = (x.dims[d] == 0 ? 0 : (x.dims[d] - 1) * p->base_dilations[d] + 1) + pad[2 * d] + pad[2 * d + 1];
      const int64_t win = p->dims[d] == 0 ? 0 : (p->dims[d] - 1) * p->window_dilations[d] + 1;
      const int64_t want = padded < win ? 0 : (padded - win) / p->strides[d] + 1;
      for (size_t i = 0; i < m; ++i)
        need(op.result(i)->type.shape()[d] == want,
             StrCat("result #", i, " dimension ", d, " must be ", want, " for these window parameters"));
    }
    const Operation& body = CalledComputation(op, name);
    need(body.regions[0]->front()->args.size() == 2 * m, StrCat("the reducer must take ", 2 * m, " arguments"));
    std::vector<ElemKind> want;
    for (size_t i = 0; i < m; ++i) want.push_back(kind_of(op.result(i)));
    for (size_t i = 0; i < m; ++i) want.push_back(kind_of(op.result(i)));
    std::vector<int> in;
    for (size_t i = 0; i < 2 * m; ++i)
      in.push_back(ConvertTo(op, prog, Use(op, env, op.operands[i]), ToArrayType(op, op.operands[i]->type), want[i]));
    auto region = LowerFunctionBody(body, depth);
    Step& s = AddStep(op, env, prog, cpu::ReduceWindowKernel(), in);
    s.params = p;
    s.regions = {region};
  } else {  // stablehlo.dynamic_rng_bit_generator
    need(n == 2 && op.num_results() == 2, "takes (initial_state, output_shape) and returns (state, values)");
    const std::vector<int64_t> shape = ConstantInts(op, 1, "output_shape");
    need(ToArrayType(op, op.result(1)->type).dims == shape, "result #1 must have the shape output_shape gives");
    auto p = std::make_shared<cpu::RngParams>();
    Attribute alg = op.attr("rng_algorithm");
    p->philox = !(alg && alg.kind() == AttrKind::kEnum && alg->str == "THREE_FRY");
    const ArrayType state = ToArrayType(op, op.operands[0]->type);
    need(state.ElementSize() * state.NumElements() % 8 == 0 && state.ByteSize() >= 8,
         StrCat("the state must hold whole 64-bit words, got ", state.ToString()));
    AddStep(op, env, prog, cpu::RngBitGeneratorKernel(), {Use(op, env, op.operands[0])}).params = p;
  }
}

void Lowerer::LowerApproxTopK(const Operation& op, Env& env, Program& prog, int depth, size_t data) {
  const size_t n = op.num_results();
  if (n == 0 || data != 2 * n)
    Fail(op, absl::StatusCode::kInvalidArgument,
         StrCat("@ApproxTopK takes N operands and N init values and returns N results; got ",
                data, " operands and ", n, " results"));
  Attribute config = op.attr("mhlo.backend_config");
  if (!config || config.kind() != AttrKind::kDictionary) config = op.attr("backend_config");
  int64_t dim = -1;
  if (!config || config.kind() != AttrKind::kDictionary || !ir::GetInt(config.Field("reduction_dim"), &dim))
    Fail(op, absl::StatusCode::kInvalidArgument, "@ApproxTopK needs backend_config.reduction_dim");
  const Operation* cmp = &CalledComputation(op, "@ApproxTopK (its comparator)");
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
  sort.regions.push_back(LowerFunctionBody(*cmp, depth));
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

void Lowerer::LowerLapack(const Operation& op, Env& env, Program& prog, const std::string& target) {
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
    // FFI: (a, b) since JAX 0.11, (a, b, alpha) before, with side/uplo/trans_x/diag; legacy:
    // (left, lower, trans, diag, m, n, batch, alpha, a, b). All become stablehlo.triangular_solve
    // when alpha is absent or the constant 1.
    auto t = std::make_shared<cpu::TriangularSolveParams>();
    const bool has_alpha = !ffi || in.size() == 3;
    size_t a_index = ffi ? 0 : 8, alpha_index = ffi ? 2 : 7;
    if ((ffi ? (in.size() != 2 && in.size() != 3) : in.size() != 10) || op.num_results() != 1)
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("@", target, " takes ", ffi ? "2 or 3" : "10", " operands and returns one result"));
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
    const Operation* alpha = has_alpha ? op.operands[alpha_index]->def : nullptr;
    bool alpha_is_one = !has_alpha;
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

void Lowerer::LowerHostTransfer(const Operation& op, Env& env, Program& prog) {
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

}  // namespace openpjrt::compiler::internal
