// Shape refinement (see refine.h).
#include "src/compiler/refine.h"

#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "src/ir/printer.h"
#include "src/support/str.h"

namespace openpjrt::compiler {
namespace {

using ir::AttrKind;
using ir::Attribute;
using ir::ElemKind;
using ir::kDynamic;
using ir::OpCode;
using ir::Operation;
using ir::Type;
using ir::Value;

using Dims = std::vector<int64_t>;  // kDynamic where unknown
using Ints = std::vector<int64_t>;  // the row-major elements of a known integer tensor

// Integer tensors up to this many elements are tracked as compile-time values.
constexpr int64_t kMaxKnownElements = 4096;

class RefineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool TypeIsDynamic(Type t) {
  if (t.IsTensor()) return !t.HasStaticShape();
  if (t.IsTuple())
    for (Type m : t.inputs())
      if (TypeIsDynamic(m)) return true;
  return false;
}

bool OpHasDynamic(const Operation& op) {
  for (size_t i = 0; i < op.num_results(); ++i)
    if (TypeIsDynamic(op.result(i)->type)) return true;
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks) {
      for (const auto& a : b->args)
        if (TypeIsDynamic(a->type)) return true;
      for (const auto& o : b->ops)
        if (OpHasDynamic(*o)) return true;
    }
  return false;
}

Dims DimsOf(Type t) { return t.IsTensor() ? Dims(t.shape().begin(), t.shape().end()) : Dims{}; }

int64_t NumElements(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) {
    if (x == kDynamic) return -1;
    n *= x;
  }
  return n;
}

std::string DimsStr(const Dims& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + (d[i] == kDynamic ? std::string("?") : std::to_string(d[i]));
  return s;
}

// Wraps an integer to the range of element kind k (two's complement, as the kernels compute).
int64_t Wrap(int64_t x, ElemKind k) {
  if (k == ElemKind::kI1) return x & 1;
  const int bits = ir::BitWidth(k);
  if (bits >= 64) return x;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(x) & mask;
  if (!ir::IsUnsigned(k) && (u >> (bits - 1)) & 1) u |= ~mask;
  return static_cast<int64_t>(u);
}

// Row-major strides of dims.
Dims Strides(const Dims& d) {
  Dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

class Refiner {
 public:
  explicit Refiner(ir::Module& m) : m_(m) {}

  // A value known before refinement starts (an entry argument whose value the caller gives).
  void SetKnown(const Value* v, Ints values) { known_[v] = std::move(values); }

  void RefineFunction(Operation& f, int depth) {
    if (depth > 64) Fail(f, "calls nest more than 64 deep (recursion is not allowed)");
    if (f.regions.empty() || !f.regions[0]->front()) return;
    ir::Block& body = *f.regions[0]->front();
    RefineBlock(body, depth);
    Type ft = ir::FuncType(f);
    if (!ft) return;
    std::vector<Type> inputs, results;
    for (const auto& a : body.args) inputs.push_back(a->type);
    const Operation* ret = body.terminator();
    for (size_t i = 0; i < ft.results().size(); ++i) {
      Type declared = ft.results()[i];
      if (ret && i < ret->operands.size()) declared = Merge(f, declared, ret->operands[i]->type, "result", i);
      results.push_back(declared);
    }
    f.SetAttr("function_type", Attribute::TypeAttr(m_.ctx->Function(inputs, results)));
  }

  // The value of a small integer tensor computed from constants by ops without regions (the
  // folding refinement does), or null.
  const Ints* Evaluate(const Value* v, int depth) {
    if (const Ints* k = Known(v)) return k;
    const Operation* def = v->def;
    if (!def || depth > 64 || !def->regions.empty()) return nullptr;
    for (const Value* o : def->operands) Evaluate(o, depth + 1);  // get_dimension_size needs types only
    Fold(*def);
    return Known(v);
  }

 private:
  [[noreturn]] void Fail(const Operation& op, const std::string& msg) {
    throw RefineError(StrCat(m_.source_name, ":", op.loc.line, ":", op.loc.col, ": error: '", op.name(),
                             "' op ", msg));
  }

  // `have` with its dynamic dimensions taken from `from` where `from` knows them.
  Type Merge(const Operation& op, Type have, Type from, const char* what, size_t i) {
    if (!have.IsTensor() || !from.IsTensor() || have.rank() != from.rank() || have.HasStaticShape()) return have;
    return WithDims(op, have, DimsOf(from), what, i);
  }

  Type WithDims(const Operation& op, Type have, const Dims& dims, const char* what, size_t i) {
    if (!have.IsTensor() || static_cast<int64_t>(dims.size()) != have.rank()) return have;
    Dims out = DimsOf(have);
    bool changed = false;
    for (size_t d = 0; d < out.size(); ++d) {
      if (dims[d] == kDynamic) continue;
      if (dims[d] < 0)
        Fail(op, StrCat(what, " #", i, " of type ", have.ToString(), " would get the negative size ", dims[d],
                        " in dimension ", d));
      if (out[d] == kDynamic) {
        out[d] = dims[d];
        changed = true;
      } else if (out[d] != dims[d]) {
        Fail(op, StrCat(what, " #", i, " has type ", have.ToString(), " but its operands make it ", DimsStr(dims),
                        " (dimension ", d, ")"));
      }
    }
    if (!changed) return have;
    const bool all_static = NumElements(out) >= 0;
    return m_.ctx->Tensor(out, have.element_type(), all_static ? nullptr : have.encoding());
  }

  void SetResult(Operation& op, size_t i, const Dims& dims) {
    if (i >= op.num_results()) return;
    Value* v = op.result(i);
    v->type = WithDims(op, v->type, dims, "result", i);
  }

  const Ints* Known(const Value* v) const {
    auto it = known_.find(v);
    return it == known_.end() ? nullptr : &it->second;
  }

  void RefineBlock(ir::Block& b, int depth) {
    for (auto& op : b.ops) RefineOp(*op, depth);
  }

  void RefineOp(Operation& op, int depth) {
    const OpCode c = op.code;
    switch (c) {
      case OpCode::kFuncCall: RefineCall(op, "callee", depth); break;
      case OpCode::kComposite: RefineCall(op, "decomposition", depth); break;
      case OpCode::kWhile:
        for (auto& r : op.regions) {
          ir::Block* b = r->front();
          if (!b) continue;
          for (size_t i = 0; i < b->args.size() && i < op.operands.size(); ++i)
            b->args[i]->type = Merge(op, b->args[i]->type, op.operands[i]->type, "loop variable", i);
          RefineBlock(*b, depth);
        }
        for (size_t i = 0; i < op.num_results() && i < op.operands.size(); ++i)
          SetResult(op, i, DimsOf(op.operands[i]->type));
        break;
      case OpCode::kChloScan:
        RefineScan(op, depth);
        break;
      case OpCode::kIf:
      case OpCode::kCase:
        for (auto& r : op.regions) {
          ir::Block* b = r->front();
          if (!b) continue;
          RefineBlock(*b, depth);
          const Operation* ret = b->terminator();
          for (size_t i = 0; ret && i < op.num_results() && i < ret->operands.size(); ++i) {
            const Dims d = DimsOf(ret->operands[i]->type);
            if (d.size() == static_cast<size_t>(op.result(i)->type.rank())) SetResult(op, i, d);
          }
        }
        break;
      default:
        for (auto& r : op.regions)
          for (auto& b : r->blocks) RefineBlock(*b, depth);
        Infer(op);
        break;
    }
    if (c == OpCode::kCustomCall) CheckShapeAssertion(op);
    Fold(op);
  }

  // chlo.scan: the body sees the inputs' slices (the dimension removed) and the carries (the
  // inits' types); the outputs are the body's slices with the scan's length put back at the
  // dimension, the final carries have the inits' types.
  void RefineScan(Operation& op, int depth) {
    std::vector<int64_t> seg;
    int64_t dim = 0;
    ir::Block* b = op.regions.empty() ? nullptr : op.regions[0]->front();
    if (!ir::GetI64List(op.attr("operandSegmentSizes"), &seg) || seg.size() != 2 || seg[0] < 0 || seg[1] < 0 ||
        seg[0] + seg[1] != static_cast<int64_t>(op.operands.size()) || !ir::GetInt(op.attr("dimension"), &dim) ||
        dim < 0 || !b || b->args.size() != op.operands.size() || op.num_results() < static_cast<size_t>(seg[1]))
      return;  // the verifier names what is wrong
    const size_t n = static_cast<size_t>(seg[0]), m = static_cast<size_t>(seg[1]), k = op.num_results() - m;
    int64_t length = kDynamic;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      Dims d = DimsOf(op.operands[i]->type);
      if (i < n) {
        if (dim >= static_cast<int64_t>(d.size())) return;
        if (d[dim] != kDynamic) length = d[dim];
        d.erase(d.begin() + dim);
      }
      b->args[i]->type = WithDims(op, b->args[i]->type, d, "body argument", i);
    }
    RefineBlock(*b, depth);
    const Operation* ret = b->terminator();
    for (size_t i = 0; ret && i < k && i < ret->operands.size(); ++i) {
      Dims d = DimsOf(ret->operands[i]->type);
      if (dim > static_cast<int64_t>(d.size())) continue;
      if (length == kDynamic && op.result(i)->type.IsTensor() && dim < op.result(i)->type.rank())
        length = op.result(i)->type.shape()[dim];
      d.insert(d.begin() + dim, length);
      if (static_cast<int64_t>(d.size()) == op.result(i)->type.rank()) SetResult(op, i, d);
    }
    for (size_t j = 0; j < m; ++j) SetResult(op, k + j, DimsOf(op.operands[n + j]->type));
  }

  // A func.call or composite: a copy of the callee for these argument types and known values.
  void RefineCall(Operation& op, const char* attr_name, int depth) {
    Attribute ref = op.attr(attr_name);
    if (!ref || ref.kind() != AttrKind::kSymbolRef || ref->symbols.size() != 1) return;
    Operation* f = m_.LookupFunction(ref->symbols[0]);
    if (!f || f->regions.empty() || !f->regions[0]->front()) return;
    if (f->regions[0]->front()->args.size() != op.operands.size() || !OpHasDynamic(*f)) return;
    std::string key = ref->symbols[0];
    for (const Value* v : op.operands) {
      key += "|" + v->type.ToString();
      if (const Ints* k = Known(v)) {
        key += "=";
        for (int64_t x : *k) key += std::to_string(x) + ",";
      }
    }
    Operation*& g = specialized_[key];
    if (!g) {
      std::unordered_map<const Value*, Value*> map;
      std::unique_ptr<Operation> copy = ir::CloneOperation(*f, map);
      copy->SetAttr("sym_name", Attribute::String(StrCat(ref->symbols[0], ".refined.", next_++)));
      copy->SetAttr("sym_visibility", Attribute::String("private"));
      g = m_.body()->Append(std::move(copy));
      ir::Block& b = *g->regions[0]->front();
      for (size_t i = 0; i < op.operands.size(); ++i) {
        b.args[i]->type = Merge(op, b.args[i]->type, op.operands[i]->type, "argument", i);
        if (const Ints* k = Known(op.operands[i])) known_[b.args[i].get()] = *k;
      }
      RefineFunction(*g, depth + 1);
    }
    op.SetAttr(attr_name, Attribute::SymbolRef({std::string(ir::FuncName(*g))}));
    Type ft = ir::FuncType(*g);
    for (size_t i = 0; ft && i < op.num_results() && i < ft.results().size(); ++i)
      op.result(i)->type = Merge(op, op.result(i)->type, ft.results()[i], "result", i);
  }

  std::vector<int64_t> Attr(const Operation& op, const char* name) {
    std::vector<int64_t> v;
    ir::GetI64List(op.attr(name), &v);
    return v;
  }
  // Three integer lists that the static form of an op has as attributes and the dynamic form as
  // operands first..first+2 (slice/real_dynamic_slice, pad/dynamic_pad). False when an operand's
  // value is not known.
  bool ThreeLists(const Operation& op, bool from_attrs, std::array<const char*, 3> names, size_t first,
                  std::array<Ints*, 3> out) {
    for (size_t i = 0; i < 3; ++i) {
      if (from_attrs) {
        *out[i] = Attr(op, names[i]);
        continue;
      }
      const Ints* k = first + i < op.operands.size() ? Known(op.operands[first + i]) : nullptr;
      if (!k) return false;
      *out[i] = *k;
    }
    return true;
  }
  std::vector<int64_t> Field(const Operation& op, const char* attr, const char* field) {
    std::vector<int64_t> v;
    Attribute a = op.attr(attr);
    if (a) ir::GetI64List(a.Field(field), &v);
    return v;
  }
  int64_t FieldInt(const Operation& op, const char* attr, const char* field, int64_t dflt) {
    int64_t v = dflt;
    Attribute a = op.attr(attr);
    if (a) ir::GetInt(a.Field(field), &v);
    return v;
  }

  // Result dimensions from operand types and known values, op by op.
  void Infer(Operation& op) {
    const OpCode c = op.code;
    auto in = [&](size_t i) { return i < op.operands.size() ? DimsOf(op.operands[i]->type) : Dims{}; };
    const bool elementwise = (c >= OpCode::kAbs && c <= OpCode::kMap) ||
                             (c >= OpCode::kChloAcos && c <= OpCode::kChloMulhi);
    if (elementwise) {
      for (size_t r = 0; r < op.num_results(); ++r) {
        const int64_t rank = op.result(r)->type.rank();
        Dims d(rank, kDynamic);
        for (const Value* v : op.operands) {
          if (!v->type.IsTensor() || v->type.rank() != rank) continue;
          for (int64_t k = 0; k < rank; ++k)
            if (d[k] == kDynamic) d[k] = v->type.shape()[k];
        }
        SetResult(op, r, d);
      }
      return;
    }
    switch (c) {
      // Results shaped like an operand.
      case OpCode::kOptimizationBarrier: case OpCode::kAllReduce: case OpCode::kCollectivePermute:
      case OpCode::kSdyShardingConstraint: case OpCode::kSdyReshard:
      case OpCode::kCollectiveBroadcast: case OpCode::kCrossReplicaSum: case OpCode::kSort:
      case OpCode::kCollectiveReduce:
        for (size_t i = 0; i < op.num_results(); ++i) SetResult(op, i, in(i));
        return;
      case OpCode::kScatter: {
        const size_t n = (op.operands.size() - 1) / 2;
        for (size_t i = 0; i < op.num_results() && i < n; ++i) SetResult(op, i, in(i));
        return;
      }
      case OpCode::kReverse: case OpCode::kDynamicUpdateSlice: case OpCode::kSelectAndScatter:
      case OpCode::kCholesky: case OpCode::kBatchNormInference:
        SetResult(op, 0, in(0));
        return;
      case OpCode::kTriangularSolve:
        SetResult(op, 0, in(1));
        return;
      case OpCode::kBatchNormTraining: case OpCode::kBatchNormGrad: {
        SetResult(op, 0, in(0));
        const Dims x = in(0);
        const int64_t f = [&] { int64_t v = -1; ir::GetInt(op.attr("feature_index"), &v); return v; }();
        if (f >= 0 && f < static_cast<int64_t>(x.size()))
          for (size_t i = 1; i < op.num_results(); ++i) SetResult(op, i, {x[f]});
        return;
      }
      case OpCode::kSetDimensionSize: {
        Dims d = in(0);
        int64_t dim = -1;
        ir::GetInt(op.attr("dimension"), &dim);
        const Ints* k = Known(op.operands[1]);
        if (dim >= 0 && dim < static_cast<int64_t>(d.size()) && k && k->size() == 1) d[dim] = (*k)[0];
        SetResult(op, 0, d);
        return;
      }
      case OpCode::kBroadcastInDim: case OpCode::kDynamicBroadcastInDim: {
        Dims d(op.result(0)->type.rank(), kDynamic);
        if (c == OpCode::kDynamicBroadcastInDim)
          if (const Ints* k = Known(op.operands[1]); k && k->size() == d.size()) d = *k;
        const Dims x = in(0);
        const Dims bd = Attr(op, "broadcast_dimensions");
        for (size_t j = 0; j < bd.size() && j < x.size(); ++j)
          if (bd[j] >= 0 && bd[j] < static_cast<int64_t>(d.size()) && d[bd[j]] == kDynamic && x[j] != kDynamic &&
              x[j] != 1)
            d[bd[j]] = x[j];
        SetResult(op, 0, d);
        return;
      }
      case OpCode::kDynamicIota: case OpCode::kDynamicReshape: case OpCode::kRng: {
        const size_t shape_operand = c == OpCode::kDynamicIota ? 0 : c == OpCode::kDynamicReshape ? 1 : 2;
        if (const Ints* k = shape_operand < op.operands.size() ? Known(op.operands[shape_operand]) : nullptr)
          SetResult(op, 0, *k);
        if (c == OpCode::kDynamicReshape) InferReshape(op);
        return;
      }
      case OpCode::kReshape:
        InferReshape(op);
        return;
      case OpCode::kTranspose: {
        const Dims x = in(0), p = Attr(op, "permutation");
        if (p.size() != x.size()) return;
        Dims d;
        for (int64_t i : p) d.push_back(i >= 0 && i < static_cast<int64_t>(x.size()) ? x[i] : kDynamic);
        SetResult(op, 0, d);
        return;
      }
      case OpCode::kConcatenate: {
        int64_t dim = 0;
        ir::GetInt(op.attr("dimension"), &dim);
        const int64_t rank = op.result(0)->type.rank();
        if (dim < 0 || dim >= rank) return;
        Dims d(rank, kDynamic);
        int64_t sum = 0;
        for (const Value* v : op.operands) {
          const Dims x = DimsOf(v->type);
          if (static_cast<int64_t>(x.size()) != rank) return;
          for (int64_t k = 0; k < rank; ++k)
            if (k != dim && d[k] == kDynamic) d[k] = x[k];
          sum = (sum == kDynamic || x[dim] == kDynamic) ? kDynamic : sum + x[dim];
        }
        d[dim] = sum;
        SetResult(op, 0, d);
        return;
      }
      case OpCode::kSlice: case OpCode::kRealDynamicSlice: {
        Ints start, limit, strides;
        if (!ThreeLists(op, c == OpCode::kSlice, {"start_indices", "limit_indices", "strides"}, 1,
                        {&start, &limit, &strides}) ||
            start.size() != limit.size() || start.size() != strides.size())
          return;
        Dims d;
        for (size_t i = 0; i < start.size(); ++i)
          d.push_back(strides[i] <= 0 || limit[i] < start[i] ? kDynamic : (limit[i] - start[i] + strides[i] - 1) / strides[i]);
        SetResult(op, 0, d);
        return;
      }
      case OpCode::kPad: case OpCode::kDynamicPad: {
        Ints lo, hi, interior;
        if (!ThreeLists(op, c == OpCode::kPad, {"edge_padding_low", "edge_padding_high", "interior_padding"}, 2,
                        {&lo, &hi, &interior}))
          return;
        const Dims x = in(0);
        if (lo.size() != x.size() || hi.size() != x.size() || interior.size() != x.size()) return;
        Dims d;
        for (size_t i = 0; i < x.size(); ++i)
          d.push_back(x[i] == kDynamic ? kDynamic : x[i] + lo[i] + hi[i] + std::max<int64_t>(x[i] - 1, 0) * interior[i]);
        SetResult(op, 0, d);
        return;
      }
      case OpCode::kDynamicSlice:
        SetResult(op, 0, Attr(op, "slice_sizes"));
        return;
      case OpCode::kReduce: {
        const Dims x = in(0), dims = Attr(op, "dimensions");
        Dims d;
        for (size_t k = 0; k < x.size(); ++k)
          if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) == dims.end()) d.push_back(x[k]);
        for (size_t i = 0; i < op.num_results(); ++i) SetResult(op, i, d);
        return;
      }
      case OpCode::kReduceWindow: InferReduceWindow(op); return;
      case OpCode::kDotGeneral: case OpCode::kDot: InferDot(op); return;
      case OpCode::kConvolution: case OpCode::kDynamicConv: InferConv(op); return;
      case OpCode::kGather: case OpCode::kDynamicGather: InferGather(op); return;
      case OpCode::kFft: {
        Dims d = in(0);
        const Ints len = Attr(op, "fft_length");
        Attribute t = op.attr("fft_type");
        const std::string type = t && t.kind() == AttrKind::kEnum ? t->str : "";
        if (len.size() <= d.size() && (type == "RFFT" || type == "IRFFT")) {
          const size_t off = d.size() - len.size();
          for (size_t i = 0; i < len.size(); ++i) d[off + i] = len[i];
          if (type == "RFFT" && !len.empty()) d.back() = len.back() / 2 + 1;
        }
        SetResult(op, 0, d);
        return;
      }
      case OpCode::kChloTopK: {
        Dims d = in(0);
        int64_t k = 0;
        if (!d.empty() && ir::GetInt(op.attr("k"), &k)) d.back() = k;
        for (size_t i = 0; i < op.num_results(); ++i) SetResult(op, i, d);
        return;
      }
      case OpCode::kCustomCall:
        InferDynamicCustomCall(op);
        return;
      default:
        break;
    }
    // CHLO's implicitly broadcasting ops: numpy rules on right-aligned dimensions.
    if (c >= OpCode::kChloBroadcastAdd && c <= OpCode::kChloBroadcastZeta && !op.attr("broadcast_dimensions")) {
      const int64_t rank = op.result(0)->type.rank();
      Dims d(rank, kDynamic);
      for (int64_t k = 0; k < rank; ++k) {
        bool all_known = true;
        int64_t size = 1;
        for (const Value* v : op.operands) {
          const Dims x = DimsOf(v->type);
          const int64_t j = k - (rank - static_cast<int64_t>(x.size()));
          if (j < 0) continue;
          if (x[j] == kDynamic) all_known = false;
          else if (x[j] != 1) size = x[j];
        }
        if (all_known) d[k] = size;
      }
      SetResult(op, 0, d);
    }
  }

  void InferReshape(Operation& op) {
    const int64_t n = op.operands[0]->type.NumElements();
    Dims d = DimsOf(op.result(0)->type);
    int unknown = -1;
    int64_t rest = 1;
    for (size_t i = 0; i < d.size(); ++i) {
      if (d[i] != kDynamic) {
        rest *= d[i];
      } else if (unknown >= 0) {
        return;  // two unknown sizes
      } else {
        unknown = static_cast<int>(i);
      }
    }
    if (n < 0 || unknown < 0 || rest == 0 || n % rest != 0) return;
    d[unknown] = n / rest;
    SetResult(op, 0, d);
  }

  void InferReduceWindow(Operation& op) {
    const Dims x = DimsOf(op.operands[0]->type);
    const size_t rank = x.size();
    auto list_or = [&](const char* name, int64_t dflt) {
      Ints v = Attr(op, name);
      if (v.empty()) v.assign(rank, dflt);
      return v;
    };
    InferWindowed(op, x, Attr(op, "window_dimensions"), list_or("window_strides", 1), list_or("base_dilations", 1),
                  list_or("window_dilations", 1), Attr(op, "padding"));
  }

  // The results of a reduce_window over x with these (possibly missing) window parameters.
  void InferWindowed(Operation& op, const Dims& x, const Ints& w, const Ints& s, const Ints& bd, const Ints& wd,
                     const Ints& pad) {
    const size_t rank = x.size();
    if (w.size() != rank || s.size() != rank || bd.size() != rank || wd.size() != rank) return;
    Dims d(rank, kDynamic);
    for (size_t i = 0; i < rank; ++i) {
      if (x[i] == kDynamic || s[i] <= 0) continue;
      const int64_t lo = pad.size() == 2 * rank ? pad[2 * i] : 0, hi = pad.size() == 2 * rank ? pad[2 * i + 1] : 0;
      const int64_t padded = (x[i] == 0 ? 0 : (x[i] - 1) * bd[i] + 1) + lo + hi;
      const int64_t win = w[i] == 0 ? 0 : (w[i] - 1) * wd[i] + 1;
      d[i] = padded < win ? 0 : (padded - win) / s[i] + 1;
    }
    for (size_t i = 0; i < op.num_results(); ++i) SetResult(op, i, d);
  }

  // The custom calls jax.export emits for ops whose shape depends on a symbolic size
  // (stablehlo's "dynamic" experiments): their sizes and window parameters are operands.
  void InferDynamicCustomCall(Operation& op) {
    Attribute t = op.attr("call_target_name");
    const std::string target = t && t.kind() == AttrKind::kString ? t->str : "";
    const size_t n = op.operands.size();
    auto known = [&](size_t i) { return i < n ? Known(op.operands[i]) : nullptr; };
    if (target == "stablehlo.dynamic_top_k" && n == 2) {
      Dims d = DimsOf(op.operands[0]->type);
      const Ints* k = known(1);
      if (d.empty() || !k || k->size() != 1) return;
      d.back() = (*k)[0];
      for (size_t i = 0; i < op.num_results(); ++i) SetResult(op, i, d);
    } else if (target == "stablehlo.dynamic_approx_top_k" && n >= 3 && n % 2 == 1) {
      Attribute config = op.attr("mhlo.backend_config");
      int64_t dim = -1;
      Dims d = DimsOf(op.operands[0]->type);
      const Ints* k = known(n - 1);
      if (!config || !ir::GetInt(config.Field("reduction_dim"), &dim) || !k || k->size() != 1) return;
      if (dim < 0) dim += static_cast<int64_t>(d.size());
      if (dim < 0 || dim >= static_cast<int64_t>(d.size())) return;
      d[dim] = (*k)[0];
      for (size_t i = 0; i < op.num_results(); ++i) SetResult(op, i, d);
    } else if (target == "stablehlo.dynamic_reduce_window" && n >= 7 && (n - 5) % 2 == 0) {
      const size_t m = (n - 5) / 2;
      const Ints* w[5];
      for (size_t j = 0; j < 5; ++j)
        if (!(w[j] = known(2 * m + j))) return;
      InferWindowed(op, DimsOf(op.operands[0]->type), *w[0], *w[1], *w[2], *w[3], *w[4]);
    } else if (target == "stablehlo.dynamic_rng_bit_generator" && n == 2 && op.num_results() == 2) {
      SetResult(op, 0, DimsOf(op.operands[0]->type));
      if (const Ints* shape = known(1)) SetResult(op, 1, *shape);
    }
  }

  void InferDot(Operation& op) {
    const Dims a = DimsOf(op.operands[0]->type), b = DimsOf(op.operands[1]->type);
    Dims d;
    if (op.code == OpCode::kDot) {
      if (a.empty() || b.empty()) return;
      d.assign(a.begin(), a.end() - 1);
      d.insert(d.end(), b.begin() + 1, b.end());
    } else {
      const Ints lb = Field(op, "dot_dimension_numbers", "lhs_batching_dimensions"),
                 rb = Field(op, "dot_dimension_numbers", "rhs_batching_dimensions"),
                 lc = Field(op, "dot_dimension_numbers", "lhs_contracting_dimensions"),
                 rc = Field(op, "dot_dimension_numbers", "rhs_contracting_dimensions");
      auto in = [](const Ints& v, int64_t i) { return std::find(v.begin(), v.end(), i) != v.end(); };
      for (int64_t i : lb) d.push_back(i >= 0 && i < static_cast<int64_t>(a.size()) ? a[i] : kDynamic);
      for (int64_t i = 0; i < static_cast<int64_t>(a.size()); ++i)
        if (!in(lb, i) && !in(lc, i)) d.push_back(a[i]);
      for (int64_t i = 0; i < static_cast<int64_t>(b.size()); ++i)
        if (!in(rb, i) && !in(rc, i)) d.push_back(b[i]);
    }
    SetResult(op, 0, d);
  }

  void InferConv(Operation& op) {
    const Dims x = DimsOf(op.operands[0]->type), w = DimsOf(op.operands[1]->type);
    const char* dn = "dimension_numbers";
    const Ints is = Field(op, dn, "input_spatial_dimensions"), ks = Field(op, dn, "kernel_spatial_dimensions"),
               os = Field(op, dn, "output_spatial_dimensions");
    const size_t ns = is.size();
    auto list_or = [&](const char* name, int64_t dflt) {
      Ints v = Attr(op, name);
      if (v.empty()) v.assign(ns, dflt);
      return v;
    };
    const Ints s = list_or("window_strides", 1), ld = list_or("lhs_dilation", 1), rd = list_or("rhs_dilation", 1);
    Ints pad = Attr(op, "padding");
    if (pad.empty()) pad.assign(2 * ns, 0);
    if (op.code == OpCode::kDynamicConv) {
      const Ints* k = Known(op.operands[2]);
      if (!k) return;
      pad = *k;
    }
    const int64_t rank = op.result(0)->type.rank();
    if (ks.size() != ns || os.size() != ns || s.size() != ns || ld.size() != ns || rd.size() != ns ||
        pad.size() != 2 * ns || static_cast<int64_t>(x.size()) != rank || static_cast<int64_t>(w.size()) != rank)
      return;
    auto ok = [rank](int64_t i) { return i >= 0 && i < rank; };
    Dims d(rank, kDynamic);
    const int64_t ib = FieldInt(op, dn, "input_batch_dimension", -1), ob = FieldInt(op, dn, "output_batch_dimension", -1),
                  ko = FieldInt(op, dn, "kernel_output_feature_dimension", -1),
                  of = FieldInt(op, dn, "output_feature_dimension", -1);
    int64_t bgc = 1;
    ir::GetInt(op.attr("batch_group_count"), &bgc);
    if (ok(ib) && ok(ob) && x[ib] != kDynamic && bgc > 0) d[ob] = x[ib] / bgc;
    if (ok(ko) && ok(of)) d[of] = w[ko];
    for (size_t i = 0; i < ns; ++i) {
      if (!ok(is[i]) || !ok(ks[i]) || !ok(os[i])) return;
      const int64_t xi = x[is[i]], wi = w[ks[i]];
      if (xi == kDynamic || wi == kDynamic || s[i] <= 0) continue;
      const int64_t padded = (xi == 0 ? 0 : (xi - 1) * ld[i] + 1) + pad[2 * i] + pad[2 * i + 1];
      const int64_t win = wi == 0 ? 0 : (wi - 1) * rd[i] + 1;
      d[os[i]] = padded < win ? 0 : (padded - win) / s[i] + 1;
    }
    SetResult(op, 0, d);
  }

  void InferGather(Operation& op) {
    const char* dn = "dimension_numbers";
    Ints sizes = Attr(op, "slice_sizes");
    if (op.code == OpCode::kDynamicGather) {
      const Ints* k = Known(op.operands[2]);
      if (!k) return;
      sizes = *k;
    }
    const Ints offset = Field(op, dn, "offset_dims"), collapsed = Field(op, dn, "collapsed_slice_dims"),
               obatch = Field(op, dn, "operand_batching_dims");
    const int64_t ivd = FieldInt(op, dn, "index_vector_dim", 0);
    const Dims idx = DimsOf(op.operands[1]->type);
    const int64_t rank = op.result(0)->type.rank();
    auto has = [](const Ints& v, int64_t i) { return std::find(v.begin(), v.end(), i) != v.end(); };
    Dims kept;  // slice sizes that become offset dimensions
    for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i)
      if (!has(collapsed, i) && !has(obatch, i)) kept.push_back(sizes[i]);
    Dims batch;  // start_indices dimensions except the index vector's
    for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i)
      if (i != ivd) batch.push_back(idx[i]);
    if (kept.size() != offset.size() || static_cast<int64_t>(kept.size() + batch.size()) != rank) return;
    Dims d(rank, kDynamic);
    size_t ko = 0, kb = 0;
    for (int64_t i = 0; i < rank; ++i) d[i] = has(offset, i) ? kept[ko++] : batch[kb++];
    SetResult(op, 0, d);
  }

  // A false @shape_assertion whose predicate is known now fails compilation with its message.
  void CheckShapeAssertion(const Operation& op) {
    Attribute t = op.attr("call_target_name");
    if (!t || t.kind() != AttrKind::kString || t->str != "shape_assertion" || op.operands.empty()) return;
    const Ints* pred = Known(op.operands[0]);
    if (!pred || pred->size() != 1 || (*pred)[0] != 0) return;
    Attribute msg = op.attr("error_message");
    std::string text = msg && msg.kind() == AttrKind::kString ? msg->str : "shape assertion failed";
    for (size_t i = 1; i < op.operands.size(); ++i) {
      const Ints* k = Known(op.operands[i]);
      const std::string pat = StrCat("{", i - 1, "}");
      for (size_t at; k && k->size() == 1 && (at = text.find(pat)) != std::string::npos;)
        text.replace(at, pat.size(), std::to_string((*k)[0]));
    }
    Fail(op, StrCat("shape assertion failed: ", text));
  }

  // Values of small integer results computed from known operands.
  void Fold(const Operation& op) {
    if (op.num_results() != 1) return;
    const Value* r = op.result(0);
    const Type rt = r->type;
    if (!rt.IsTensor() || !rt.HasStaticShape() || !rt.element_type().IsElement() ||
        !ir::IsInteger(rt.element_type().elem()) || rt.NumElements() > kMaxKnownElements)
      return;
    const ElemKind k = rt.element_type().elem();
    const Dims rd = DimsOf(rt);
    const int64_t n = rt.NumElements();
    std::vector<const Ints*> args;
    for (const Value* v : op.operands) args.push_back(Known(v));
    auto all_known = [&] {
      for (const Ints* a : args)
        if (!a) return false;
      return true;
    };
    auto elem = [&](size_t a, int64_t i) { return args[a]->size() == 1 ? (*args[a])[0] : (*args[a])[i]; };
    Ints out;
    switch (op.code) {
      case OpCode::kConstant: {
        Ints v;
        if (!ir::GetI64List(op.attr("value"), &v) || static_cast<int64_t>(v.size()) != n) return;
        for (int64_t& x : v) x = Wrap(x, k);
        out = std::move(v);
        break;
      }
      case OpCode::kGetDimensionSize: {
        int64_t dim = 0;
        ir::GetInt(op.attr("dimension"), &dim);
        const Dims x = DimsOf(op.operands[0]->type);
        if (dim < 0 || dim >= static_cast<int64_t>(x.size()) || x[dim] == kDynamic) return;
        out = {Wrap(x[dim], k)};
        break;
      }
      case OpCode::kConvert: case OpCode::kReshape: case OpCode::kDynamicReshape: {
        const Type it = op.operands[0]->type;
        if (!args[0] || static_cast<int64_t>(args[0]->size()) != n) return;
        if (op.code == OpCode::kConvert && !ir::IsInteger(it.element_type().elem())) return;
        for (int64_t x : *args[0]) out.push_back(Wrap(x, k));
        break;
      }
      case OpCode::kBroadcastInDim: case OpCode::kDynamicBroadcastInDim: {
        if (!args[0]) return;
        const Dims x = DimsOf(op.operands[0]->type), bd = Attr(op, "broadcast_dimensions");
        if (bd.size() != x.size()) return;
        const Dims xs = Strides(x), rs = Strides(rd);
        for (int64_t i = 0; i < n; ++i) {
          int64_t src = 0;
          for (size_t j = 0; j < x.size(); ++j) {
            const int64_t coord = (i / rs[bd[j]]) % rd[bd[j]];
            src += (x[j] == 1 ? 0 : coord) * xs[j];
          }
          out.push_back((*args[0])[src]);
        }
        break;
      }
      case OpCode::kConcatenate: {
        if (!all_known() || rd.size() != 1) return;  // shape vectors: 1-D only
        for (const Ints* a : args) out.insert(out.end(), a->begin(), a->end());
        break;
      }
      case OpCode::kSlice: {
        if (!args[0] || rd.size() != 1) return;
        const Ints start = Attr(op, "start_indices"), strides = Attr(op, "strides");
        if (start.size() != 1 || strides.size() != 1) return;
        for (int64_t i = 0; i < n; ++i) {
          const int64_t j = start[0] + i * strides[0];
          if (j < 0 || j >= static_cast<int64_t>(args[0]->size())) return;
          out.push_back((*args[0])[j]);
        }
        break;
      }
      case OpCode::kAdd: case OpCode::kSubtract: case OpCode::kMultiply: case OpCode::kDivide:
      case OpCode::kRemainder: case OpCode::kMaximum: case OpCode::kMinimum: case OpCode::kAnd:
      case OpCode::kOr: case OpCode::kXor: {
        if (!all_known()) return;
        const bool u = ir::IsUnsigned(k);
        for (int64_t i = 0; i < n; ++i) {
          const int64_t a = elem(0, i), b = elem(1, i);
          const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
          int64_t v = 0;
          switch (op.code) {
            case OpCode::kAdd: v = static_cast<int64_t>(ua + ub); break;
            case OpCode::kSubtract: v = static_cast<int64_t>(ua - ub); break;
            case OpCode::kMultiply: v = static_cast<int64_t>(ua * ub); break;
            case OpCode::kDivide: case OpCode::kRemainder:
              if (b == 0 || (!u && b == -1 && a == INT64_MIN)) return;  // left to the kernels
              v = op.code == OpCode::kDivide ? (u ? static_cast<int64_t>(ua / ub) : a / b)
                                             : (u ? static_cast<int64_t>(ua % ub) : a % b);
              break;
            case OpCode::kMaximum: v = u ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b); break;
            case OpCode::kMinimum: v = u ? static_cast<int64_t>(std::min(ua, ub)) : std::min(a, b); break;
            case OpCode::kAnd: v = a & b; break;
            case OpCode::kOr: v = a | b; break;
            default: v = a ^ b; break;
          }
          out.push_back(Wrap(v, k));
        }
        break;
      }
      case OpCode::kNegate: case OpCode::kAbs: case OpCode::kNot: case OpCode::kSign: {
        if (!all_known()) return;
        for (int64_t i = 0; i < n; ++i) {
          const int64_t a = elem(0, i);
          int64_t v = op.code == OpCode::kNegate ? static_cast<int64_t>(0 - static_cast<uint64_t>(a))
                      : op.code == OpCode::kAbs  ? (a < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a)) : a)
                      : op.code == OpCode::kNot  ? ~a
                                                 : (a > 0) - (a < 0);
          out.push_back(Wrap(v, k));
        }
        break;
      }
      case OpCode::kCompare: {
        if (!all_known()) return;
        const Type at = op.operands[0]->type.element_type();
        if (!at.IsElement() || !ir::IsInteger(at.elem())) return;
        Attribute dir = op.attr("comparison_direction");
        if (!dir || dir.kind() != AttrKind::kEnum) return;
        const bool u = ir::IsUnsigned(at.elem()) || at.elem() == ElemKind::kI1;
        for (int64_t i = 0; i < n; ++i) {
          const int64_t a = elem(0, i), b = elem(1, i);
          const int cmp = u ? (static_cast<uint64_t>(a) < static_cast<uint64_t>(b) ? -1 : a != b)
                            : (a < b ? -1 : a != b);
          const std::string& d = dir->str;
          out.push_back(d == "EQ" ? cmp == 0 : d == "NE" ? cmp != 0 : d == "LT" ? cmp < 0
                        : d == "LE" ? cmp <= 0 : d == "GT" ? cmp > 0 : cmp >= 0);
        }
        break;
      }
      case OpCode::kSelect: {
        if (!all_known()) return;
        for (int64_t i = 0; i < n; ++i) out.push_back(elem(0, i) ? elem(1, i) : elem(2, i));
        break;
      }
      case OpCode::kClamp: {
        if (!all_known() || ir::IsUnsigned(k)) return;
        for (int64_t i = 0; i < n; ++i) out.push_back(std::min(std::max(elem(1, i), elem(0, i)), elem(2, i)));
        break;
      }
      default:
        return;
    }
    if (static_cast<int64_t>(out.size()) == n) known_[r] = std::move(out);
  }

  ir::Module& m_;
  std::unordered_map<const Value*, Ints> known_;
  std::map<std::string, Operation*> specialized_;  // callee + argument types/values -> its copy
  int next_ = 0;
};

}  // namespace

bool HasDynamicShapes(const ir::Module& module) { return OpHasDynamic(*module.op); }

bool EvaluateInts(const ir::Module& module, const ir::Value* v, std::vector<int64_t>* out) {
  // The refiner only reads the module here (folding changes no type or attribute).
  Refiner r(const_cast<ir::Module&>(module));
  const Ints* k = r.Evaluate(v, 0);
  if (!k) return false;
  *out = *k;
  return true;
}

absl::Status RefineShapes(ir::Module& module, ir::Operation& entry,
                          const std::map<size_t, std::vector<int64_t>>* arg_values) {
  try {
    Refiner r(module);
    if (arg_values && !entry.regions.empty() && entry.regions[0]->front()) {
      const ir::Block& body = *entry.regions[0]->front();
      for (const auto& [i, values] : *arg_values) {
        if (i >= body.args.size()) continue;
        const Type t = body.args[i]->type;
        if (t.IsTensor() && t.HasStaticShape() && t.element_type().IsElement() &&
            ir::IsInteger(t.element_type().elem()) && t.NumElements() == static_cast<int64_t>(values.size()) &&
            t.NumElements() <= kMaxKnownElements)
          r.SetKnown(body.args[i].get(), values);
      }
    }
    r.RefineFunction(entry, 0);
  } catch (const RefineError& e) {
    return absl::InvalidArgumentError(e.what());
  }
  return absl::OkStatus();
}

}  // namespace openpjrt::compiler
