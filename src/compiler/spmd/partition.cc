// The SPMD rewrite (see spmd.h).
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/compiler/spmd/sharding.h"
#include "src/compiler/spmd/spmd.h"
#include "src/ir/printer.h"
#include "src/support/str.h"

namespace openpjrt::compiler::spmd {
namespace {

using ir::AttrKind;
using ir::Attribute;
using ir::ElemKind;
using ir::OpCode;
using ir::Operation;
using ir::Type;
using ir::Value;

class PartitionError : public std::runtime_error {
 public:
  PartitionError(absl::StatusCode code, const std::string& msg) : std::runtime_error(msg), code(code) {}
  absl::StatusCode code;
};

// A value known on each partition as its shard `local` of a whole value laid out as `layout`.
// The whole value is built (by all-gathers) the first time something needs it.
struct Sharded {
  Value* local = nullptr;
  Layout layout;
  Type global_type;
  Value* whole = nullptr;  // once materialized (or `local` itself when the layout is replicated)
};

// Ops whose result element i depends only on element i of each operand (all of one shape), so a
// shard of the result is the op applied to the same shards of the operands.
bool IsElementwise(OpCode c) {
  switch (c) {
    case OpCode::kAbs: case OpCode::kAdd: case OpCode::kAnd: case OpCode::kAtan2: case OpCode::kCbrt:
    case OpCode::kCeil: case OpCode::kClamp: case OpCode::kComplex: case OpCode::kCosine:
    case OpCode::kCountLeadingZeros: case OpCode::kDivide: case OpCode::kExponential:
    case OpCode::kExponentialMinusOne: case OpCode::kFloor: case OpCode::kImag: case OpCode::kIsFinite:
    case OpCode::kLog: case OpCode::kLogPlusOne: case OpCode::kLogistic: case OpCode::kMaximum:
    case OpCode::kMinimum: case OpCode::kMultiply: case OpCode::kNegate: case OpCode::kNot: case OpCode::kOr:
    case OpCode::kPopcnt: case OpCode::kPower: case OpCode::kReal: case OpCode::kRemainder:
    case OpCode::kRoundNearestAfz: case OpCode::kRoundNearestEven: case OpCode::kRsqrt: case OpCode::kSelect:
    case OpCode::kShiftLeft: case OpCode::kShiftRightArithmetic: case OpCode::kShiftRightLogical:
    case OpCode::kSign: case OpCode::kSine: case OpCode::kSqrt: case OpCode::kSubtract: case OpCode::kTan:
    case OpCode::kTanh: case OpCode::kXor: case OpCode::kCompare: case OpCode::kConvert:
    case OpCode::kReducePrecision: case OpCode::kChloErf: case OpCode::kChloErfc: case OpCode::kChloErfInv:
    case OpCode::kChloSquare: case OpCode::kChloCosh: case OpCode::kChloSinh: case OpCode::kChloTan:
    case OpCode::kChloLgamma: case OpCode::kChloDigamma: case OpCode::kChloIsInf: case OpCode::kChloIsNegInf:
    case OpCode::kChloIsPosInf: case OpCode::kChloNextAfter:
      return true;
    default:
      return false;
  }
}

class Partitioner {
 public:
  static constexpr int64_t kMaxInlinedOps = 1 << 20;

  Partitioner(ir::Module& m, int64_t partitions, int64_t replicas)
      : m_(m), ctx_(*m.ctx), partitions_(partitions), replicas_(replicas) {}

  PartitionInfo info;

  void Run(Operation& entry) {
    for (const auto& op : m_.body()->ops) {
      if (op->code != OpCode::kSdyMesh) continue;
      Attribute name = op->attr("sym_name"), mesh = op->attr("mesh");
      if (!name || name.kind() != AttrKind::kString || !mesh) continue;
      auto parsed = ParseSdyMesh(mesh.kind() == AttrKind::kOpaque ? mesh->str : ir::PrintAttribute(mesh));
      if (!parsed.ok()) Fail(*op, absl::StatusCode::kInvalidArgument, std::string(parsed.status().message()));
      meshes_[name->str] = *parsed;
    }
    for (const auto& op : m_.body()->ops)
      if (op->code == OpCode::kFunc && !op->regions.empty() && op->regions[0]->front())
        RewriteFunction(*op, op.get() == &entry);
  }

 private:
  [[noreturn]] void Fail(const Operation& op, absl::StatusCode code, const std::string& msg) {
    throw PartitionError(code, StrCat(m_.source_name, ":", op.loc.line, ":", op.loc.col, ": error: '", op.name(),
                                      "' op ", msg));
  }

  Type I64() { return ctx_.Element(ElemKind::kI64); }
  Type Tensor(const std::vector<int64_t>& dims, Type elem) { return ctx_.Tensor(dims, elem); }

  // ---- building ops ------------------------------------------------------------------------

  Operation* Emit(OpCode code, std::vector<Value*> operands, std::vector<Type> results) {
    auto op = std::make_unique<Operation>(code, "", loc_);
    op->operands = std::move(operands);
    op->SetResultTypes(results);
    op->parent = block_;
    out_.push_back(std::move(op));
    return out_.back().get();
  }

  Value* ConstI64(const std::vector<int64_t>& values, const std::vector<int64_t>& dims) {
    auto data = std::make_shared<std::vector<uint8_t>>(values.size() * 8);
    std::memcpy(data->data(), values.data(), data->size());
    Type t = Tensor(dims, I64());
    Operation* c = Emit(OpCode::kConstant, {}, {t});
    c->SetAttr("value", Attribute::Dense(t, data, false));
    return c->result(0);
  }

  Value* PartitionIndex() {
    Operation* pid = Emit(OpCode::kPartitionId, {}, {Tensor({}, ctx_.Element(ElemKind::kU32))});
    return Emit(OpCode::kConvert, {pid->result(0)}, {Tensor({}, I64())})->result(0);
  }

  std::vector<int64_t> Dims(Type t) { return std::vector<int64_t>(t.shape().begin(), t.shape().end()); }

  Attribute Groups(const std::vector<std::vector<int64_t>>& groups) {
    // Flattened ids (replica * P + partition), the same groups in every replica.
    std::vector<int64_t> flat;
    for (int64_t r = 0; r < replicas_; ++r)
      for (const auto& g : groups)
        for (int64_t p : g) flat.push_back(r * partitions_ + p);
    const int64_t cols = groups.empty() ? 0 : static_cast<int64_t>(groups[0].size());
    const int64_t rows = cols ? static_cast<int64_t>(flat.size()) / cols : 0;
    auto data = std::make_shared<std::vector<uint8_t>>(flat.size() * 8);
    std::memcpy(data->data(), flat.data(), data->size());
    return Attribute::Dense(Tensor({rows, cols}, I64()), data, false);
  }

  void MarkCrossPartition(Operation* op) {
    op->SetAttr("channel_handle", Attribute::Struct("stablehlo.channel_handle",
                                                    {{"handle", Attribute::Integer(I64(), next_channel_++)},
                                                     {"type", Attribute::Integer(I64(), 1)}}));
    op->SetAttr("use_global_device_ids", Attribute::Unit());
  }

  // The whole value from a shard: one all-gather per tiled dimension.
  Value* Gather(Value* local, const Layout& layout, const Operation& at) {
    std::vector<bool> pending(layout.tiles.size());
    for (size_t d = 0; d < pending.size(); ++d) pending[d] = layout.tiles[d] > 1;
    Value* v = local;
    for (size_t d = 0; d < pending.size(); ++d) {
      if (!pending[d]) continue;
      auto groups = GatherGroups(layout, static_cast<int>(d), pending);
      if (!groups.ok()) Fail(at, groups.status().code(), std::string(groups.status().message()));
      std::vector<int64_t> dims = Dims(v->type);
      dims[d] *= layout.tiles[d];
      Operation* g = Emit(OpCode::kAllGather, {v}, {Tensor(dims, v->type.element_type())});
      g->SetAttr("all_gather_dim", Attribute::Integer(I64(), static_cast<int64_t>(d)));
      g->SetAttr("replica_groups", Groups(*groups));
      MarkCrossPartition(g);
      v = g->result(0);
      pending[d] = false;
    }
    return v;
  }

  // The partition's shard of a whole value: dynamic_slice at offsets looked up by partition id.
  Value* Slice(Value* whole, const Layout& layout, Type local_type, const Operation& at) {
    if (layout.replicated()) return whole;
    CheckShardType(whole->type, layout, local_type, at, "value");
    const std::vector<int64_t> local = Dims(local_type);
    Value* pid = PartitionIndex();
    Value* zero = nullptr;
    std::vector<Value*> starts;
    for (size_t d = 0; d < layout.tiles.size(); ++d) {
      if (layout.tiles[d] == 1) {
        if (!zero) zero = ConstI64({0}, {});
        starts.push_back(zero);
        continue;
      }
      std::vector<int64_t> offsets(partitions_);
      for (int64_t p = 0; p < partitions_; ++p) offsets[p] = layout.coords[p][d] * local[d];
      Value* table = ConstI64(offsets, {partitions_});
      Operation* pick = Emit(OpCode::kDynamicSlice, {table, pid}, {Tensor({1}, I64())});
      pick->SetAttr("slice_sizes", Attribute::DenseI64(I64(), {1}));
      starts.push_back(Emit(OpCode::kReshape, {pick->result(0)}, {Tensor({}, I64())})->result(0));
    }
    std::vector<Value*> operands = {whole};
    operands.insert(operands.end(), starts.begin(), starts.end());
    Operation* s = Emit(OpCode::kDynamicSlice, operands, {local_type});
    s->SetAttr("slice_sizes", Attribute::DenseI64(I64(), local));
    return s->result(0);
  }

  void CheckShardType(Type whole, const Layout& layout, Type local, const Operation& at, const std::string& what) {
    if (!whole.IsTensor() || !local.IsTensor() || whole.rank() != local.rank() ||
        whole.element_type() != local.element_type() || !whole.HasStaticShape())
      Fail(at, absl::StatusCode::kInvalidArgument,
           StrCat(what, " ", whole.ToString(), " cannot be sharded as ", local.ToString()));
    for (int64_t d = 0; d < whole.rank(); ++d) {
      const int64_t tiles = layout.tiles[d];
      if (whole.shape()[d] % tiles != 0)
        Fail(at, absl::StatusCode::kUnimplemented,
             StrCat(what, " ", whole.ToString(), " is cut into ", tiles, " uneven tiles along dimension ", d,
                    " (uneven shards are not supported)"));
      if (whole.shape()[d] / tiles != local.shape()[d])
        Fail(at, absl::StatusCode::kInvalidArgument,
             StrCat(what, " ", whole.ToString(), " sharded ", layout.ToString(), " has shards of dimension ", d,
                    " of size ", whole.shape()[d] / tiles, ", not ", local.ToString()));
    }
  }

  static Type ShardType(ir::Context& ctx, Type whole, const Layout& layout) {
    std::vector<int64_t> dims(whole.shape().begin(), whole.shape().end());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] /= layout.tiles[d];
    return ctx.Tensor(dims, whole.element_type());
  }

  // The partition's shard of a whole value, made once per (value, layout): a splat constant or a
  // broadcast scalar is rebuilt at the shard's shape, anything else is sliced.
  Value* LocalOf(Value* whole, const Layout& layout, const Operation& at) {
    for (auto& [l, v] : local_cache_[whole])
      if (l == layout) return v;
    Type local_type = ShardType(ctx_, whole->type, layout);
    Value* local = nullptr;
    Operation* def = whole->def;
    std::vector<int64_t> bdims;
    if (def && def->code == OpCode::kBroadcastInDim && def->operands[0]->type.IsTensor() &&
        def->operands[0]->type.HasStaticShape() && ir::GetI64List(def->attr("broadcast_dimensions"), &bdims) &&
        sharded_.find(def->operands[0]) == sharded_.end()) {
      // Broadcast the operand's matching shard (the operand itself when only new or size-1
      // dimensions are tiled).
      Value* operand = def->operands[0];
      std::vector<int> src(operand->type.rank(), -1);
      for (size_t i = 0; i < bdims.size(); ++i)
        if (operand->type.shape()[i] != 1) src[i] = static_cast<int>(bdims[i]);
      Layout ol = Mapped(layout, src);
      Value* part = ol.replicated() ? operand : LocalOf(operand, ol, at);
      Operation* b = Emit(OpCode::kBroadcastInDim, {part}, {local_type});
      b->SetAttr("broadcast_dimensions", Attribute::DenseI64(I64(), bdims));
      local = b->result(0);
    } else if (def && def->code == OpCode::kConstant && def->attr("value") &&
               def->attr("value").kind() == AttrKind::kDenseElements && def->attr("value")->splat) {
      Operation* c = Emit(OpCode::kConstant, {}, {local_type});
      c->SetAttr("value", Attribute::Dense(local_type, def->attr("value")->data, true));
      local = c->result(0);
    } else {
      local = Slice(whole, layout, local_type, at);
    }
    local_cache_[whole].emplace_back(layout, local);
    return local;
  }

  // An elementwise op with a sharded operand runs on shards: every operand is brought to the
  // first sharded operand's layout (sliced when whole) and the result keeps that layout.
  bool TryElementwise(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (!IsElementwise(op.code) || !op.regions.empty() || op.num_results() != 1) return false;
    Type rt = op.result(0)->type;
    if (!rt.IsTensor() || !rt.HasStaticShape()) return false;
    const Sharded* lead = nullptr;
    for (Value* v : op.operands) {
      auto it = sharded_.find(v);
      Type vt = it != sharded_.end() ? it->second->global_type : v->type;  // shard-typed arguments
      if (!vt.IsTensor() || vt.shape().size() != rt.shape().size() ||
          !std::equal(vt.shape().begin(), vt.shape().end(), rt.shape().begin()))
        return false;
      if (!lead && it != sharded_.end() && !it->second->layout.replicated()) lead = it->second.get();
    }
    if (!lead) return false;
    const Layout layout = lead->layout;
    auto c = std::make_unique<Operation>(op.code, op.name(), op.loc);
    c->attrs = op.attrs;
    for (Value* v : op.operands) {
      auto it = sharded_.find(v);
      if (it != sharded_.end() && it->second->layout == layout) {
        c->operands.push_back(it->second->local);
      } else {
        Value* whole = it != sharded_.end() ? Whole(*it->second, op) : v;
        c->operands.push_back(LocalOf(whole, layout, op));
      }
    }
    c->SetResultTypes({ShardType(ctx_, rt, layout)});
    c->parent = block_;
    auto s = std::make_shared<Sharded>();
    s->local = c->result(0);
    s->layout = layout;
    s->global_type = rt;
    sharded_[op.result(0)] = s;
    out_.push_back(std::move(c));
    graveyard_.push_back(std::move(holder));
    return true;
  }

  // The layout of a rank-`rank` value whose dimension r takes dimension src[r] of `from` (-1:
  // whole along r).
  static Layout Mapped(const Layout& from, const std::vector<int>& src) {
    Layout l = Layout::Replicated(static_cast<int64_t>(src.size()), static_cast<int64_t>(from.coords.size()));
    for (size_t r = 0; r < src.size(); ++r) {
      if (src[r] < 0) continue;
      l.tiles[r] = from.tiles[src[r]];
      for (size_t p = 0; p < from.coords.size(); ++p) l.coords[p][r] = from.coords[p][src[r]];
    }
    return l;
  }

  static std::vector<int> Tiled(const Layout& l) {
    std::vector<int> t;
    for (size_t d = 0; d < l.tiles.size(); ++d)
      if (l.tiles[d] > 1) t.push_back(static_cast<int>(d));
    return t;
  }

  static bool Within(const std::vector<int>& dims, const std::vector<int64_t>& allowed) {
    for (int d : dims)
      if (std::find(allowed.begin(), allowed.end(), d) == allowed.end()) return false;
    return true;
  }

  // The operand's layout (replicated when whole) and its global type.
  std::pair<Layout, Type> LayoutOf(Value* v) {
    auto it = sharded_.find(v);
    if (it != sharded_.end()) return {it->second->layout, it->second->global_type};
    return {Layout::Replicated(v->type.IsTensor() ? v->type.rank() : 0, partitions_), v->type};
  }

  // The operand as a shard of `layout`: its own shard when it lies so, else cut from the whole.
  Value* AsLayout(Value* v, const Layout& layout, const Operation& at) {
    auto it = sharded_.find(v);
    if (it != sharded_.end() && it->second->layout == layout) return it->second->local;
    Value* whole = it != sharded_.end() ? Whole(*it->second, at) : v;
    return layout.replicated() ? whole : LocalOf(whole, layout, at);
  }

  // Emits `op` again over `operands` with one result of `local_type`; the old result becomes a
  // sharded value of `layout` (or a whole one when `layout` is replicated).
  Operation* Reemit(std::unique_ptr<Operation>& holder, std::vector<Value*> operands, Type local_type,
                    const Layout& layout) {
    Operation& op = *holder;
    auto c = std::make_unique<Operation>(op.code, op.name(), op.loc);
    c->attrs = op.attrs;
    c->operands = std::move(operands);
    c->SetResultTypes({local_type});
    for (const auto& r : op.regions) c->regions.push_back(std::move(const_cast<std::unique_ptr<ir::Region>&>(r)));
    for (const auto& r : c->regions) r->parent = c.get();
    c->parent = block_;
    Operation* raw = c.get();
    out_.push_back(std::move(c));
    auto s = std::make_shared<Sharded>();
    s->local = raw->result(0);
    s->layout = layout;
    s->global_type = op.result(0)->type;
    if (layout.replicated()) s->whole = s->local;
    sharded_[op.result(0)] = s;
    graveyard_.push_back(std::move(holder));
    return raw;
  }

  // Combines partial results with the binary op `combine` (add, max, ...) over the devices that
  // hold different tiles of the dimensions `dims` of `layout`.
  // The device groups that combine partial results over the tiles of `dims` of `layout`: one
  // device per combination of those tiles (mixed radix, in order) among devices that agree on
  // the layout's other tiles.
  std::vector<std::vector<int64_t>> CombineGroups(const Layout& layout, const std::vector<int>& dims,
                                                  const Operation& at) {
    const int64_t rank = static_cast<int64_t>(layout.tiles.size());
    Layout flat = Layout::Replicated(1 + rank, partitions_);
    std::vector<bool> pending(1 + rank, false);
    for (int d : dims) {
      flat.tiles[0] *= layout.tiles[d];
      for (int64_t p = 0; p < partitions_; ++p) flat.coords[p][0] = flat.coords[p][0] * layout.tiles[d] + layout.coords[p][d];
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (std::find(dims.begin(), dims.end(), static_cast<int>(d)) != dims.end() || layout.tiles[d] == 1) continue;
      flat.tiles[1 + d] = layout.tiles[d];
      for (int64_t p = 0; p < partitions_; ++p) flat.coords[p][1 + d] = layout.coords[p][d];
      pending[1 + d] = true;
    }
    auto groups = GatherGroups(flat, 0, pending);
    if (!groups.ok()) Fail(at, groups.status().code(), std::string(groups.status().message()));
    return *groups;
  }

  // Combines partial results with the binary op `combine` (add, max, ...) over the devices that
  // hold different tiles of the dimensions `dims` of `layout`.
  Value* AllReduce(Value* v, const Layout& layout, const std::vector<int>& dims, OpCode combine_op,
                   const Operation& at) {
    const std::vector<std::vector<int64_t>> groups = CombineGroups(layout, dims, at);
    Operation* ar = Emit(OpCode::kAllReduce, {v}, {v->type});
    ar->SetAttr("replica_groups", Groups(groups));
    MarkCrossPartition(ar);
    ir::Region* r = ar->AddRegion();
    ir::Block* b = r->AddBlock();
    Type scalar = Tensor({}, v->type.element_type());
    Value* x = b->AddArgument(scalar);
    Value* y = b->AddArgument(scalar);
    auto combine = std::make_unique<Operation>(combine_op, "", loc_);
    combine->operands = {x, y};
    combine->SetResultTypes({scalar});
    Value* z = b->Append(std::move(combine))->result(0);
    auto ret = std::make_unique<Operation>(OpCode::kReturn, "", loc_);
    ret->operands = {z};
    b->Append(std::move(ret));
    return ar->result(0);
  }

  // dot_general on shards. The operand with tiles leads (the left one when both have): the result
  // keeps its batch and free tiles, the other operand is brought to the matching tiles of the
  // batch and contracting dimensions (whole along its free ones), and tiled contracting dimensions
  // give partial products that an all-reduce completes (data-parallel gradients, row-parallel
  // layers). Batch or free tiles alone need no communication.
  bool TryDot(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kDotGeneral || op.operands.size() != 2 || op.num_results() != 1) return false;
    Attribute dn = op.attr("dot_dimension_numbers");
    if (!dn || dn.kind() != AttrKind::kStruct) return false;
    std::vector<int64_t> lb, rb, lc, rc;
    ir::GetI64List(dn.Field("lhs_batching_dimensions"), &lb);
    ir::GetI64List(dn.Field("rhs_batching_dimensions"), &rb);
    ir::GetI64List(dn.Field("lhs_contracting_dimensions"), &lc);
    ir::GetI64List(dn.Field("rhs_contracting_dimensions"), &rc);
    auto [L, lt] = LayoutOf(op.operands[0]);
    auto [R, rtype] = LayoutOf(op.operands[1]);
    if (L.replicated() && R.replicated()) return false;
    Type res = op.result(0)->type;
    if (!res.IsTensor() || !res.HasStaticShape() || !lt.HasStaticShape() || !rtype.HasStaticShape()) return false;
    const bool left = !L.replicated();
    const Layout& lead = left ? L : R;
    const int lrank = static_cast<int>(lt.rank()), rrank = static_cast<int>(rtype.rank());
    const std::vector<int64_t>& my_b = left ? lb : rb;
    const std::vector<int64_t>& my_c = left ? lc : rc;
    const std::vector<int64_t>& other_b = left ? rb : lb;
    const std::vector<int64_t>& other_c = left ? rc : lc;
    const int my_rank = left ? lrank : rrank, other_rank = left ? rrank : lrank;
    // The other operand: the lead's tiles on the paired batch and contracting dimensions.
    std::vector<int> src(other_rank, -1);
    for (size_t i = 0; i < other_b.size(); ++i) src[other_b[i]] = static_cast<int>(my_b[i]);
    for (size_t i = 0; i < other_c.size(); ++i) src[other_c[i]] = static_cast<int>(my_c[i]);
    Layout other = Mapped(lead, src);
    // The other operand keeps tiles of its free dimensions when they combine with the lead's
    // into a valid result layout (x tiled on batch by one axis, w on features by another).
    const Layout& theirs = left ? R : L;
    std::vector<int> other_free;
    for (int d = 0; d < other_rank; ++d)
      if (src[d] < 0 && theirs.tiles[d] > 1) other_free.push_back(d);
    bool keep_free = false;
    if (!other_free.empty()) {
      Layout merged = other;
      bool agrees = true;
      for (int d = 0; d < other_rank && agrees; ++d)
        if (src[d] >= 0 && theirs.tiles[d] > 1 && theirs.tiles[d] != merged.tiles[d]) agrees = false;
      for (int d : other_free) {
        merged.tiles[d] = theirs.tiles[d];
        for (int64_t p = 0; p < partitions_; ++p) merged.coords[p][d] = theirs.coords[p][d];
      }
      if (agrees && Valid(merged)) {
        other = merged;
        keep_free = true;
      }
    }
    // Result dimensions: batch, then lhs free, then rhs free; only the lead's side is tiled.
    std::vector<int> out_src;
    for (int64_t d : my_b) out_src.push_back(static_cast<int>(d));
    auto free_of = [](const std::vector<int64_t>& b, const std::vector<int64_t>& c, int rank) {
      std::vector<int> f;
      for (int d = 0; d < rank; ++d)
        if (std::find(b.begin(), b.end(), d) == b.end() && std::find(c.begin(), c.end(), d) == c.end()) f.push_back(d);
      return f;
    };
    const std::vector<int> lf = free_of(lb, lc, lrank), rf = free_of(rb, rc, rrank);
    for (int d : lf) out_src.push_back(left ? d : -1);
    for (int d : rf) out_src.push_back(left ? -1 : d);
    // The lead's tiles on its own dims are all kept or reduced, so the result is valid.
    Layout out = Mapped(lead, out_src);
    if (keep_free) {
      const std::vector<int>& theirs_free = left ? rf : lf;
      const size_t base = my_b.size() + (left ? lf.size() : 0);
      for (size_t k = 0; k < theirs_free.size(); ++k) {
        const int d = theirs_free[k];
        const size_t r = base + k;
        out.tiles[r] = other.tiles[d];
        for (int64_t p = 0; p < partitions_; ++p) out.coords[p][r] = other.coords[p][d];
      }
      if (!Valid(out)) {
        out = Mapped(lead, out_src);
        other = Mapped(lead, src);
      }
    }
    std::vector<int> reduced;
    for (int64_t d : my_c)
      if (lead.tiles[d] > 1) reduced.push_back(static_cast<int>(d));
    Value* a = AsLayout(op.operands[0], left ? lead : other, op);
    Value* b = AsLayout(op.operands[1], left ? other : lead, op);
    if (reduced.empty()) {
      Reemit(holder, {a, b}, ShardType(ctx_, res, out), out);
      return true;
    }
    Operation* local = Reemit(holder, {a, b}, ShardType(ctx_, res, out), out);
    // Partial sums meet among partitions that hold the same result tile: the reduced dimensions'
    // tiles first, then the result's.
    Layout both = Layout::Replicated(static_cast<int64_t>(reduced.size()) + res.rank(), partitions_);
    std::vector<int> first;
    for (size_t k = 0; k < reduced.size(); ++k) {
      first.push_back(static_cast<int>(k));
      both.tiles[k] = lead.tiles[reduced[k]];
      for (int64_t p = 0; p < partitions_; ++p) both.coords[p][k] = lead.coords[p][reduced[k]];
    }
    for (int64_t r = 0; r < res.rank(); ++r) {
      both.tiles[reduced.size() + r] = out.tiles[r];
      for (int64_t p = 0; p < partitions_; ++p) both.coords[p][reduced.size() + r] = out.coords[p][r];
    }
    Value* total = AllReduce(local->result(0), both, first, OpCode::kAdd, *local);
    Retarget(local->result(0), total);
    return true;
  }

  // The sharded value whose shard is `from` now has its shard in `to`.
  void Retarget(Value* from, Value* to) {
    for (auto& [v, sh] : sharded_)
      if (sh->local == from) {
        sh->local = to;
        if (sh->layout.replicated()) sh->whole = to;
      }
  }

  static std::string CallTarget(const Operation& op) {
    Attribute t = op.attr("call_target_name");
    return t && t.kind() == AttrKind::kString ? t->str : std::string();
  }

  static std::string GspmdText(const Operation& op) {
    Attribute a = op.attr("mhlo.sharding");
    return a && a.kind() == AttrKind::kString ? a->str : std::string();
  }

  // Ops that set a value's layout: sdy.sharding_constraint / sdy.reshard and GSPMD's Sharding
  // custom call (the value takes that layout: cut from the whole when it lies otherwise), and
  // the manual boundary of GSPMD's shard_map, SPMDFullToShardShape (a sharded value becomes its
  // plain shard) and SPMDShardToFullShape (a shard becomes a sharded value of the given layout).
  bool TryReshard(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    const bool sdy = op.code == OpCode::kSdyShardingConstraint || op.code == OpCode::kSdyReshard;
    const std::string target = op.code == OpCode::kCustomCall ? CallTarget(op) : std::string();
    if (!sdy && target != "Sharding" && target != "SPMDFullToShardShape" && target != "SPMDShardToFullShape")
      return false;
    if (op.operands.size() != 1 || op.num_results() != 1 || !op.result(0)->type.IsTensor()) return false;
    Value* v = op.operands[0];
    Type rt = op.result(0)->type;
    if (target == "SPMDFullToShardShape") {
      auto [l, whole_type] = LayoutOf(v);
      Value* local = AsLayout(v, l, op);
      if (local->type != rt)
        Fail(op, absl::StatusCode::kUnimplemented,
             StrCat("@SPMDFullToShardShape: the operand ", whole_type.ToString(), " lies as ", l.ToString(),
                    ", whose shard is ", local->type.ToString(), ", not the result ", rt.ToString()));
      alias_[op.result(0)] = local;
      graveyard_.push_back(std::move(holder));
      return true;
    }
    const std::string text = sdy ? std::string() : GspmdText(op);
    if (!sdy && (text.find("manual") != std::string::npos || text.empty())) {
      if (target == "SPMDShardToFullShape")
        Fail(op, absl::StatusCode::kInvalidArgument, "@SPMDShardToFullShape needs the full value's mhlo.sharding");
      return false;  // a manual value passes through
    }
    Layout l;
    if (sdy) {
      Attribute a = op.attr("sharding");
      if (!a) return false;
      auto parsed = ParseSdySharding(a.kind() == AttrKind::kOpaque ? a->str : ir::PrintAttribute(a));
      if (!parsed.ok()) Fail(op, absl::StatusCode::kInvalidArgument, std::string(parsed.status().message()));
      l = LayoutOfSdy(*parsed, rt.rank(), op, nullptr);
    } else {
      auto parsed = GspmdLayout(text, rt.rank(), partitions_);
      if (!parsed.ok()) Fail(op, parsed.status().code(), std::string(parsed.status().message()));
      l = *parsed;
    }
    auto s = std::make_shared<Sharded>();
    s->layout = l;
    s->global_type = rt;
    if (target == "SPMDShardToFullShape") {
      CheckShardType(rt, l, v->type, op, "@SPMDShardToFullShape's result");
      s->local = v;
    } else {
      // A constraint that would cut a dimension unevenly is a hint this partitioner does not take:
      // the value stays whole (its values are the same either way).
      for (int64_t d = 0; d < rt.rank(); ++d)
        if (rt.shape()[d] % l.tiles[d] != 0) l = Layout::Replicated(rt.rank(), partitions_);
      s->layout = l;
      s->local = AsLayout(v, l, op);
    }
    if (l.replicated()) s->whole = s->local;
    sharded_[op.result(0)] = s;
    graveyard_.push_back(std::move(holder));
    return true;
  }

  // True when every tile of `l` is held by the same number of partitions (a layout one can
  // gather and slice by).
  static bool Valid(const Layout& l) {
    std::map<std::vector<int64_t>, int64_t> count;
    for (const auto& c : l.coords) ++count[c];
    int64_t tiles = 1;
    for (int64_t t : l.tiles) tiles *= t;
    if (static_cast<int64_t>(count.size()) != tiles) return false;
    const int64_t each = count.begin()->second;
    for (const auto& [c, n] : count)
      if (n != each) return false;
    return true;
  }

  // broadcast_in_dim of a sharded operand: the tiles follow their dimensions.
  bool TryBroadcast(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kBroadcastInDim || op.operands.size() != 1) return false;
    auto it = sharded_.find(op.operands[0]);
    if (it == sharded_.end() || it->second->layout.replicated()) return false;
    Type rt = op.result(0)->type;
    std::vector<int64_t> bdims;
    if (!rt.IsTensor() || !rt.HasStaticShape() || !ir::GetI64List(op.attr("broadcast_dimensions"), &bdims)) return false;
    const Layout& in = it->second->layout;
    const Type gt = it->second->global_type;
    std::vector<int> src(rt.rank(), -1);
    for (size_t i = 0; i < bdims.size(); ++i) {
      if (in.tiles[i] == 1) continue;
      if (gt.shape()[i] != rt.shape()[bdims[i]]) return false;  // a tiled dimension that expands
      src[bdims[i]] = static_cast<int>(i);
    }
    Layout out = Mapped(in, src);
    Reemit(holder, {it->second->local}, ShardType(ctx_, rt, out), out);
    return true;
  }

  // reshape of a sharded value: dimensions are matched in groups of equal size products; within
  // a group only the most major input dimension may be tiled, and its tiles move to the most
  // major output dimension of the group when they divide it.
  bool TryReshape(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kReshape || op.operands.size() != 1) return false;
    auto it = sharded_.find(op.operands[0]);
    if (it == sharded_.end() || it->second->layout.replicated()) return false;
    Type rt = op.result(0)->type;
    Type gt = it->second->global_type;
    if (!rt.IsTensor() || !rt.HasStaticShape() || !gt.HasStaticShape()) return false;
    const Layout& in = it->second->layout;
    const auto ins = gt.shape(), outs = rt.shape();
    std::vector<int> src(rt.rank(), -1);
    size_t i = 0, o = 0;
    while (i < ins.size() || o < outs.size()) {
      // Skip size-1 dimensions on either side (they cannot be tiled).
      if (i < ins.size() && ins[i] == 1 && in.tiles[i] == 1) { ++i; continue; }
      if (o < outs.size() && outs[o] == 1) { ++o; continue; }
      if (i >= ins.size() || o >= outs.size()) return false;
      const size_t gi = i, go = o;
      int64_t pi = ins[i++], po = outs[o++];
      while (pi != po) {
        if (pi < po) {
          if (i >= ins.size()) return false;
          pi *= ins[i++];
        } else {
          if (o >= outs.size()) return false;
          po *= outs[o++];
        }
      }
      for (size_t k = gi + 1; k < i; ++k)
        if (in.tiles[k] > 1) return false;
      if (in.tiles[gi] > 1) {
        if (outs[go] % in.tiles[gi] != 0) return false;
        src[go] = static_cast<int>(gi);
      }
    }
    Layout out = Mapped(in, src);
    Reemit(holder, {it->second->local}, ShardType(ctx_, rt, out), out);
    return true;
  }

  // Emits `op` again over `operands` with results of `local_types`; old result i becomes a
  // sharded value of layouts[i].
  Operation* ReemitAll(std::unique_ptr<Operation>& holder, std::vector<Value*> operands,
                       const std::vector<Type>& local_types, const std::vector<Layout>& layouts) {
    Operation& op = *holder;
    auto c = std::make_unique<Operation>(op.code, op.name(), op.loc);
    c->attrs = op.attrs;
    c->operands = std::move(operands);
    c->SetResultTypes(local_types);
    for (const auto& r : op.regions) c->regions.push_back(std::move(const_cast<std::unique_ptr<ir::Region>&>(r)));
    for (const auto& r : c->regions) r->parent = c.get();
    c->parent = block_;
    Operation* raw = c.get();
    out_.push_back(std::move(c));
    for (size_t i = 0; i < op.num_results(); ++i) {
      auto s = std::make_shared<Sharded>();
      s->local = raw->result(i);
      s->layout = layouts[i];
      s->global_type = op.result(i)->type;
      if (layouts[i].replicated()) s->whole = s->local;
      sharded_[op.result(i)] = s;
    }
    graveyard_.push_back(std::move(holder));
    return raw;
  }

  // The first sharded operand among op.operands[0, n) whose global shape is `shape`, or null.
  const Sharded* LeadOf(const Operation& op, size_t n) {
    for (size_t i = 0; i < n && i < op.operands.size(); ++i) {
      auto it = sharded_.find(op.operands[i]);
      if (it != sharded_.end() && !it->second->layout.replicated()) return it->second.get();
    }
    return nullptr;
  }

  static bool SameShape(Type a, Type b) {
    return a.IsTensor() && b.IsTensor() && a.rank() == b.rank() &&
           std::equal(a.shape().begin(), a.shape().end(), b.shape().begin());
  }

  // sort along an untiled dimension: each partition sorts its shards (every operand brought to
  // the first sharded one's layout); the results keep it.
  bool TrySort(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kSort || op.operands.empty()) return false;
    const Sharded* lead = LeadOf(op, op.operands.size());
    if (!lead) return false;
    int64_t dim = 0;
    if (Attribute d = op.attr("dimension")) ir::GetInt(d, &dim);
    const Layout l = lead->layout;
    if (dim < 0) dim += static_cast<int64_t>(l.tiles.size());
    if (dim < 0 || dim >= static_cast<int64_t>(l.tiles.size()) || l.tiles[dim] > 1) return false;
    std::vector<Value*> operands;
    std::vector<Type> types;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (!SameShape(LayoutOf(op.operands[i]).second, lead->global_type)) return false;
      operands.push_back(AsLayout(op.operands[i], l, op));
      types.push_back(ShardType(ctx_, op.result(i)->type, l));
    }
    ReemitAll(holder, operands, types, std::vector<Layout>(op.num_results(), l));
    return true;
  }

  // reduce_window whose tiled dimensions have windows of one (size, stride and dilations 1, no
  // padding): cumulative sums along another dimension, pooling over a tiled batch.
  bool TryReduceWindow(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kReduceWindow) return false;
    const size_t n = op.operands.size() / 2;
    if (n == 0 || op.num_results() != n) return false;
    const Sharded* lead = LeadOf(op, n);
    if (!lead) return false;
    const Layout l = lead->layout;
    const size_t rank = l.tiles.size();
    auto list_or = [&](const char* name, int64_t dflt, size_t len) {
      std::vector<int64_t> v;
      if (!ir::GetI64List(op.attr(name), &v) || v.empty()) v.assign(len, dflt);
      return v;
    };
    const std::vector<int64_t> dims = list_or("window_dimensions", 1, rank), strides = list_or("window_strides", 1, rank),
                               bd = list_or("base_dilations", 1, rank), wd = list_or("window_dilations", 1, rank),
                               pad = list_or("padding", 0, 2 * rank);
    if (dims.size() != rank || strides.size() != rank || pad.size() != 2 * rank) return false;
    for (size_t d = 0; d < rank; ++d)
      if (l.tiles[d] > 1 && (dims[d] != 1 || strides[d] != 1 || bd[d] != 1 || wd[d] != 1 || pad[2 * d] != 0 ||
                             pad[2 * d + 1] != 0))
        return false;
    std::vector<Value*> operands;
    std::vector<Type> types;
    for (size_t i = 0; i < n; ++i) {
      if (!SameShape(LayoutOf(op.operands[i]).second, lead->global_type)) return false;
      operands.push_back(AsLayout(op.operands[i], l, op));
      types.push_back(ShardType(ctx_, op.result(i)->type, l));
    }
    for (size_t i = n; i < op.operands.size(); ++i)
      operands.push_back(AsLayout(op.operands[i], Layout::Replicated(0, partitions_), op));
    ReemitAll(holder, operands, types, std::vector<Layout>(n, l));
    return true;
  }

  // Any reduce (variadic: argmax's pairs) whose reduced dimensions are all untiled runs on the
  // shards; the kept dimensions keep their tiles.
  bool TryReduceKeepingTiles(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kReduce) return false;
    const size_t n = op.operands.size() / 2;
    if (n == 0 || op.num_results() != n) return false;
    const Sharded* lead = LeadOf(op, n);
    if (!lead) return false;
    const Layout l = lead->layout;
    std::vector<int64_t> dims;
    if (!ir::GetI64List(op.attr("dimensions"), &dims)) return false;
    std::vector<int> src, tiled_reduced;
    for (int d = 0; d < static_cast<int>(l.tiles.size()); ++d) {
      const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
      if (reduced && l.tiles[d] > 1) tiled_reduced.push_back(d);
      if (!reduced) src.push_back(d);
    }
    const Layout out = Mapped(l, src);
    std::vector<Value*> operands;
    std::vector<Type> types;
    for (size_t i = 0; i < n; ++i) {
      if (!SameShape(LayoutOf(op.operands[i]).second, lead->global_type)) return false;
      operands.push_back(AsLayout(op.operands[i], l, op));
      types.push_back(ShardType(ctx_, op.result(i)->type, out));
    }
    std::vector<Value*> inits;
    for (size_t i = n; i < op.operands.size(); ++i) {
      inits.push_back(AsLayout(op.operands[i], Layout::Replicated(0, partitions_), op));
      operands.push_back(inits.back());
    }
    if (tiled_reduced.empty()) {
      ReemitAll(holder, operands, types, std::vector<Layout>(n, out));
      return true;
    }
    // Reduced dimensions that are tiled (argmax over a split vocabulary): each partition reduces
    // its shard, the partial results of the tiles are gathered along a new leading dimension and
    // reduced again with the same body (a reduction's body is associative and commutative).
    // (Only for variadic reductions such as argmax and argmin, whose init values survive being
    // applied again; a single-operand sum with a nonzero init would count it once per tile.
    // The specification leaves the number of init applications to the implementation.)
    if (n < 2 || op.regions.empty() || !op.regions[0]->front()) return false;
    std::unordered_map<const Value*, Value*> map;
    std::unique_ptr<Operation> second = ir::CloneOperation(op, map);  // the body, for the combine
    const std::vector<std::vector<int64_t>> groups = CombineGroups(l, tiled_reduced, op);
    const int64_t count = static_cast<int64_t>(groups[0].size());
    Operation* local = ReemitAll(holder, operands, types, std::vector<Layout>(n, out));
    std::vector<Value*> gathered;
    std::vector<Type> final_types;
    for (size_t i = 0; i < n; ++i) {
      std::vector<int64_t> dims1 = Dims(local->result(i)->type), dims_t = dims1;
      dims1.insert(dims1.begin(), 1);
      dims_t.insert(dims_t.begin(), count);
      Type elem = local->result(i)->type.element_type();
      Value* one = Emit(OpCode::kReshape, {local->result(i)}, {Tensor(dims1, elem)})->result(0);
      Operation* g = Emit(OpCode::kAllGather, {one}, {Tensor(dims_t, elem)});
      g->SetAttr("all_gather_dim", Attribute::Integer(I64(), 0));
      g->SetAttr("replica_groups", Groups(groups));
      MarkCrossPartition(g);
      gathered.push_back(g->result(0));
      final_types.push_back(local->result(i)->type);
    }
    auto c = std::make_unique<Operation>(OpCode::kReduce, "", loc_);
    c->attrs = second->attrs;
    c->SetAttr("dimensions", Attribute::DenseI64(I64(), {0}));
    c->operands = gathered;
    c->operands.insert(c->operands.end(), inits.begin(), inits.end());
    c->SetResultTypes(final_types);
    c->regions = std::move(second->regions);
    for (const auto& r : c->regions) r->parent = c.get();
    c->parent = block_;
    Operation* combined = c.get();
    out_.push_back(std::move(c));
    for (size_t i = 0; i < n; ++i) Retarget(local->result(i), combined->result(i));
    return true;
  }

  // gather from an operand tiled on dimensions it takes whole (not indexed, not collapsed, full
  // slices: an embedding table split over its features): each partition gathers from its shard
  // (tiles on other dimensions are given up first); the result is tiled on the matching offset
  // dimensions.
  bool TryGather(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kGather || op.operands.size() != 2 || op.num_results() != 1) return false;
    auto it = sharded_.find(op.operands[0]);
    if (it == sharded_.end() || it->second->layout.replicated()) return false;
    Attribute dn = op.attr("dimension_numbers");
    if (!dn || dn.kind() != AttrKind::kStruct) return false;
    std::vector<int64_t> offset_dims, collapsed, start_map, obatch, sizes;
    ir::GetI64List(dn.Field("offset_dims"), &offset_dims);
    ir::GetI64List(dn.Field("collapsed_slice_dims"), &collapsed);
    ir::GetI64List(dn.Field("start_index_map"), &start_map);
    ir::GetI64List(dn.Field("operand_batching_dims"), &obatch);
    if (!obatch.empty() || !ir::GetI64List(op.attr("slice_sizes"), &sizes)) return false;
    const Layout& l = it->second->layout;
    const Type gt = it->second->global_type;
    Type rt = op.result(0)->type;
    if (!rt.IsTensor() || sizes.size() != l.tiles.size()) return false;
    auto has = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
    // Tiles on indexed or collapsed dimensions (or partial slices) are given up first: the
    // operand is brought to the layout of its other tiles.
    std::vector<int> keep_src(l.tiles.size(), -1), src(rt.rank(), -1);
    size_t k = 0;  // position among the operand's non-collapsed dimensions
    for (int64_t d = 0; d < static_cast<int64_t>(l.tiles.size()); ++d) {
      if (has(collapsed, d)) continue;
      if (k >= offset_dims.size()) return false;
      if (l.tiles[d] > 1 && !has(start_map, d) && sizes[d] == gt.shape()[d]) {
        keep_src[d] = static_cast<int>(d);
        src[offset_dims[k]] = static_cast<int>(d);
        sizes[d] /= l.tiles[d];
      }
      ++k;
    }
    const Layout keep = Mapped(l, keep_src);
    if (keep.replicated()) return false;
    const Layout out = Mapped(keep, src);
    Value* table = AsLayout(op.operands[0], keep, op);
    Operation* local = ReemitAll(
        holder, {table, AsLayout(op.operands[1], Layout::Replicated(rt.rank(), partitions_), op)},
        {ShardType(ctx_, rt, out)}, {out});
    local->SetAttr("slice_sizes", Attribute::DenseI64(I64(), sizes));
    return true;
  }

  // scatter into an operand tiled on dimensions the updates' windows cover whole (not indexed,
  // not inserted: an embedding gradient split over features): each partition scatters its
  // updates' shard into its operand's shard. The tiles come from the operand, else the updates;
  // tiles on other dimensions are given up first.
  bool TryScatter(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kScatter || op.operands.size() != 3 || op.num_results() != 1) return false;
    Attribute dn = op.attr("scatter_dimension_numbers");
    if (!dn || dn.kind() != AttrKind::kStruct) return false;
    std::vector<int64_t> window, inserted, to_operand, ibatch;
    ir::GetI64List(dn.Field("update_window_dims"), &window);
    ir::GetI64List(dn.Field("inserted_window_dims"), &inserted);
    ir::GetI64List(dn.Field("scatter_dims_to_operand_dims"), &to_operand);
    ir::GetI64List(dn.Field("input_batching_dims"), &ibatch);
    if (!ibatch.empty()) return false;
    auto [ol, ot] = LayoutOf(op.operands[0]);
    auto [ul, ut] = LayoutOf(op.operands[2]);
    if (ol.replicated() && ul.replicated()) return false;
    if (!ot.IsTensor() || !ut.IsTensor() || !ot.HasStaticShape() || !ut.HasStaticShape()) return false;
    auto has = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
    // operand dim -> updates window dim, for the dimensions a window covers.
    std::vector<int> window_of(ot.rank(), -1);
    size_t k = 0;
    for (int64_t d = 0; d < ot.rank(); ++d) {
      if (has(inserted, d)) continue;
      if (k >= window.size()) return false;
      window_of[d] = static_cast<int>(window[k++]);
    }
    // The operand's tiles that may stay: window dims covering the whole dimension, not indexed.
    std::vector<int> keep_src(ot.rank(), -1);
    const bool from_operand = !ol.replicated();
    const Layout& lead = from_operand ? ol : ul;
    for (int64_t d = 0; d < ot.rank(); ++d) {
      const int w = window_of[d];
      if (w < 0 || has(to_operand, d) || ut.shape()[w] != ot.shape()[d]) continue;
      keep_src[d] = from_operand ? static_cast<int>(d) : w;
      if (lead.tiles[keep_src[d]] <= 1) keep_src[d] = -1;
    }
    const Layout keep = Mapped(lead, keep_src);
    if (keep.replicated()) return false;
    std::vector<int> upd_src(ut.rank(), -1);
    for (int64_t d = 0; d < ot.rank(); ++d)
      if (keep.tiles[d] > 1) upd_src[window_of[d]] = static_cast<int>(d);
    const Layout upd = Mapped(keep, upd_src);
    Value* operand = AsLayout(op.operands[0], keep, op);
    Value* updates = AsLayout(op.operands[2], upd, op);
    Value* indices = AsLayout(op.operands[1], Layout::Replicated(0, partitions_), op);
    ReemitAll(holder, {operand, indices, updates}, {ShardType(ctx_, op.result(0)->type, keep)}, {keep});
    return true;
  }

  // A convolution whose input is tiled on its batch dimension only (the kernel whole, no feature
  // or batch groups) runs on the shards; the output is tiled on its batch dimension.
  bool TryConvolution(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kConvolution || op.operands.size() != 2 || op.num_results() != 1) return false;
    auto it = sharded_.find(op.operands[0]);
    if (it == sharded_.end() || it->second->layout.replicated()) return false;
    auto kt = sharded_.find(op.operands[1]);
    if (kt != sharded_.end() && !kt->second->layout.replicated()) return false;
    int64_t fg = 1, bg = 1;
    if (Attribute a = op.attr("feature_group_count")) ir::GetInt(a, &fg);
    if (Attribute a = op.attr("batch_group_count")) ir::GetInt(a, &bg);
    Attribute dn = op.attr("dimension_numbers");
    int64_t ib = -1, ob = -1;
    if (fg != 1 || bg != 1 || !dn || dn.kind() != AttrKind::kStruct || !ir::GetInt(dn.Field("input_batch_dimension"), &ib) ||
        !ir::GetInt(dn.Field("output_batch_dimension"), &ob))
      return false;
    const Layout& l = it->second->layout;
    for (size_t d = 0; d < l.tiles.size(); ++d)
      if (l.tiles[d] > 1 && static_cast<int64_t>(d) != ib) return false;
    Type rt = op.result(0)->type;
    std::vector<int> src(rt.rank(), -1);
    src[ob] = static_cast<int>(ib);
    const Layout out = Mapped(l, src);
    ReemitAll(holder, {it->second->local, AsLayout(op.operands[1], Layout::Replicated(rt.rank(), partitions_), op)},
              {ShardType(ctx_, rt, out)}, {out});
    return true;
  }

  // transpose keeps a value's tiles, permuted.
  bool TryTranspose(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kTranspose || op.operands.size() != 1) return false;
    auto it = sharded_.find(op.operands[0]);
    if (it == sharded_.end() || it->second->layout.replicated()) return false;
    std::vector<int64_t> perm;
    if (!ir::GetI64List(op.attr("permutation"), &perm)) return false;
    std::vector<int> src(perm.begin(), perm.end());
    Layout out = Mapped(it->second->layout, src);
    Reemit(holder, {it->second->local}, ShardType(ctx_, op.result(0)->type, out), out);
    return true;
  }

  // A one-operand reduce whose body is add/max/min/mul/and/or of its arguments: each partition
  // reduces its shard; dimensions reduced across tiles are then combined by an all-reduce.
  bool TryReduce(std::unique_ptr<Operation>& holder) {
    Operation& op = *holder;
    if (op.code != OpCode::kReduce || op.operands.size() != 2 || op.num_results() != 1) return false;
    auto it = sharded_.find(op.operands[0]);
    if (it == sharded_.end() || it->second->layout.replicated()) return false;
    const ir::Block* body = op.regions.empty() ? nullptr : op.regions[0]->front();
    if (!body || body->ops.size() != 2 || body->args.size() != 2) return false;
    const Operation& comb = *body->ops[0];
    const OpCode k = comb.code;
    if (k != OpCode::kAdd && k != OpCode::kMaximum && k != OpCode::kMinimum && k != OpCode::kMultiply &&
        k != OpCode::kAnd && k != OpCode::kOr)
      return false;
    if (comb.operands.size() != 2 || comb.operands[0]->block != body || comb.operands[1]->block != body) return false;
    // The init value joins every partial result, so it must be neutral for sums and products.
    Value* init = op.operands[1];
    if (k == OpCode::kAdd || k == OpCode::kMultiply) {
      Operation* d = init->def;
      Attribute v = d && d->code == OpCode::kConstant ? d->attr("value") : Attribute();
      if (!v || v.kind() != AttrKind::kDenseElements || !v->data) return false;
      bool zero = true;
      for (uint8_t byte : *v->data) zero &= byte == 0;
      if (k == OpCode::kAdd ? !zero : true) return false;  // products: only via whole values
    }
    std::vector<int64_t> dims;
    if (!ir::GetI64List(op.attr("dimensions"), &dims)) return false;
    const Layout& in = it->second->layout;
    std::vector<int> reduced, src;
    for (int d = 0; d < static_cast<int>(in.tiles.size()); ++d) {
      const bool r = std::find(dims.begin(), dims.end(), d) != dims.end();
      if (r && in.tiles[d] > 1) reduced.push_back(d);
      if (!r) src.push_back(d);
    }
    Layout out = Mapped(in, src);
    Type res = op.result(0)->type;
    Value* init_value = AsLayout(init, Layout::Replicated(0, partitions_), op);
    Operation* local = Reemit(holder, {it->second->local, init_value}, ShardType(ctx_, res, out), out);
    if (reduced.empty()) return true;
    Retarget(local->result(0), AllReduce(local->result(0), in, reduced, k, *local));
    return true;
  }

  // ---- shardings ---------------------------------------------------------------------------

  const Mesh& MeshOf(const SdySharding& s, const Operation& at) {
    if (s.inline_mesh) return *s.inline_mesh;
    auto it = meshes_.find(s.mesh_name);
    if (it == meshes_.end())
      Fail(at, absl::StatusCode::kInvalidArgument, StrCat("refers to mesh @", s.mesh_name, ", which is not defined"));
    return it->second;
  }

  Layout LayoutOfSdy(const SdySharding& s, int64_t rank, const Operation& at, const std::vector<std::string>* only) {
    auto l = SdyLayout(s, MeshOf(s, at), rank, partitions_, only);
    if (!l.ok()) Fail(at, l.status().code(), std::string(l.status().message()));
    return *l;
  }

  // The layout an argument or result attribute dictionary gives a value of type `t`.
  Layout LayoutOfAttrs(const Attribute& dict, Type t, const Operation& at, const std::string& what,
                       bool* specified = nullptr) {
    const int64_t rank = t.IsTensor() ? t.rank() : 0;
    Layout l = Layout::Replicated(rank, partitions_);
    if (specified) *specified = false;
    if (!dict || dict.kind() != AttrKind::kDictionary || !t.IsTensor()) return l;
    if (specified) *specified = dict.Field("sdy.sharding") || dict.Field("mhlo.sharding");
    try {
      if (Attribute s = dict.Field("sdy.sharding")) {
        auto parsed = ParseSdySharding(s.kind() == AttrKind::kOpaque ? s->str : ir::PrintAttribute(s));
        if (!parsed.ok()) Fail(at, absl::StatusCode::kInvalidArgument, std::string(parsed.status().message()));
        return LayoutOfSdy(*parsed, rank, at, nullptr);
      }
      if (Attribute s = dict.Field("mhlo.sharding"); s && s.kind() == AttrKind::kString) {
        auto parsed = GspmdLayout(s->str, rank, partitions_);
        if (!parsed.ok()) Fail(at, parsed.status().code(), std::string(parsed.status().message()));
        return *parsed;
      }
    } catch (const PartitionError& e) {
      throw PartitionError(e.code, StrCat(e.what(), " (", what, ")"));
    }
    return l;
  }

  // ---- the rewrite -------------------------------------------------------------------------

  Value* Whole(Sharded& s, const Operation& at) {
    if (!s.whole) s.whole = Gather(s.local, s.layout, at);
    return s.whole;
  }

  // Replaces every operand of `op` (and of ops in its regions) that is a sharded value by its whole
  // value, built before `op`.
  void ResolveOperands(Operation& op, const Operation& at) {
    for (Value*& v : op.operands) {
      auto it = sharded_.find(v);
      if (it != sharded_.end()) v = Whole(*it->second, at);
    }
    for (const auto& r : op.regions)
      for (const auto& b : r->blocks)
        for (const auto& o : b->ops) ResolveOperands(*o, at);
  }

  // Replaces operands through `map`, following chains (a call inlined into a callee's result).
  static void Substitute(Operation& op, const std::unordered_map<Value*, Value*>& map) {
    for (Value*& v : op.operands) {
      for (auto it = map.find(v); it != map.end(); it = map.find(v)) v = it->second;
    }
    for (const auto& r : op.regions)
      for (const auto& b : r->blocks)
        for (const auto& o : b->ops) Substitute(*o, map);
  }

  // #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]> -> explicit device groups.
  void ResolveMeshAxesGroups(Operation& op) {
    Attribute rg = op.attr("replica_groups");
    if (rg && rg.kind() != AttrKind::kDenseElements) {
      const std::string text = rg.kind() == AttrKind::kOpaque ? rg->str : ir::PrintAttribute(rg);
      if (text.find("replica_group_mesh_axes") != std::string::npos) {
        size_t at = text.find("mesh = @");
        if (at == std::string::npos) Fail(op, absl::StatusCode::kInvalidArgument, StrCat("cannot read ", text));
        at += 8;
        size_t end = at;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' ||
                                     text[end] == '.' || text[end] == '$'))
          ++end;
        const std::string mesh_name = text.substr(at, end - at);
        auto it = meshes_.find(mesh_name);
        if (it == meshes_.end())
          Fail(op, absl::StatusCode::kInvalidArgument, StrCat("refers to mesh @", mesh_name, ", which is not defined"));
        std::vector<AxisRef> axes;
        for (size_t p = text.find("name = \"", end); p != std::string::npos; p = text.find("name = \"", p)) {
          p += 8;
          size_t q = text.find('"', p);
          AxisRef a;
          a.name = text.substr(p, q - p);
          size_t next = text.find("name = \"", q);
          size_t sub = text.find("sub_axis_info", q);
          if (sub != std::string::npos && (next == std::string::npos || sub < next)) {
            // "(pre)size" or "<pre_size = P, size = S>".
            std::vector<int64_t> nums;
            for (size_t k = sub; k < (next == std::string::npos ? text.size() : next) && nums.size() < 2; ++k)
              if (std::isdigit(static_cast<unsigned char>(text[k]))) {
                int64_t x = 0;
                while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) x = x * 10 + (text[k++] - '0');
                nums.push_back(x);
              }
            if (nums.size() == 2) a.pre = nums[0], a.size = nums[1];
          }
          axes.push_back(a);
          p = q;
        }
        auto groups = MeshAxesGroups(it->second, axes);
        if (!groups.ok()) Fail(op, groups.status().code(), std::string(groups.status().message()));
        if (it->second.size() != partitions_)
          Fail(op, absl::StatusCode::kInvalidArgument,
               StrCat("mesh @", mesh_name, " has ", it->second.size(), " devices; the program has ", partitions_,
                      " partitions"));
        op.SetAttr("replica_groups", Groups(*groups));
        if (!op.attr("channel_handle")) MarkCrossPartition(&op);
        op.SetAttr("use_global_device_ids", Attribute::Unit());
      }
    }
    for (const auto& r : op.regions)
      for (const auto& b : r->blocks)
        for (const auto& o : b->ops) ResolveMeshAxesGroups(*o);
  }

  static bool IsIdentityReshape(const Operation& op) {
    return op.code == OpCode::kReshape && op.operands.size() == 1 && op.num_results() == 1 &&
           op.operands[0]->type == op.result(0)->type;
  }

  void InlineManual(std::unique_ptr<Operation> holder) {
    Operation& op = *holder;
    auto shardings_of = [&](const char* key) {
      Attribute a = op.attr(key);
      auto parsed = ParseSdyShardingPerValue(a.kind() == AttrKind::kOpaque ? a->str : ir::PrintAttribute(a));
      if (!parsed.ok()) Fail(op, absl::StatusCode::kInvalidArgument, std::string(parsed.status().message()));
      return *parsed;
    };
    const std::vector<SdySharding> ins = shardings_of("in_shardings"), outs = shardings_of("out_shardings");
    Attribute axes_attr = op.attr("manual_axes");
    auto axes = ParseManualAxes(axes_attr.kind() == AttrKind::kOpaque ? axes_attr->str : ir::PrintAttribute(axes_attr));
    if (!axes.ok()) Fail(op, absl::StatusCode::kInvalidArgument, std::string(axes.status().message()));
    ir::Block& body = *op.regions[0]->front();
    if (ins.size() != op.operands.size() || outs.size() != op.num_results())
      Fail(op, absl::StatusCode::kInvalidArgument,
           StrCat("has ", ins.size(), " in_shardings for ", op.operands.size(), " operands and ", outs.size(),
                  " out_shardings for ", op.num_results(), " results"));
    std::unordered_map<Value*, Value*> args;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      Value* v = op.operands[i];
      auto it = sharded_.find(v);
      Type whole_type = it != sharded_.end() ? it->second->global_type : v->type;  // shard-typed arguments
      Layout l = LayoutOfSdy(ins[i], whole_type.rank(), op, &*axes);
      Type local_type = body.args[i]->type;
      CheckShardType(whole_type, l, local_type, op, StrCat("operand #", i));
      Value* local = nullptr;
      if (it != sharded_.end() && it->second->layout == l) {
        local = it->second->local;
      } else {
        Value* whole = it != sharded_.end() ? Whole(*it->second, op) : v;
        local = Slice(whole, l, local_type, op);
      }
      args[body.args[i].get()] = local;
    }
    Operation* ret = body.terminator();
    for (auto& inner : body.ops) {
      if (inner.get() == ret) break;
      if (inner->code == OpCode::kSdyManualComputation)
        Fail(*inner, absl::StatusCode::kUnimplemented, "nested inside another manual computation is not supported");
      Substitute(*inner, args);
      ResolveMeshAxesGroups(*inner);
      inner->parent = block_;
      out_.push_back(std::move(inner));
    }
    Substitute(*ret, args);
    for (size_t j = 0; j < op.num_results(); ++j) {
      Value* local = ret->operands[j];
      auto s = std::make_shared<Sharded>();
      s->global_type = op.result(j)->type;
      s->layout = LayoutOfSdy(outs[j], s->global_type.rank(), op, &*axes);
      s->local = local;
      CheckShardType(s->global_type, s->layout, local->type, op, StrCat("result #", j));
      if (s->layout.replicated()) s->whole = local;
      sharded_[op.result(j)] = s;
    }
    graveyard_.push_back(std::move(holder));
  }

  void RewriteFunction(Operation& func, bool entry) {
    ir::Block& body = *func.regions[0]->front();
    block_ = &body;
    out_.clear();
    sharded_.clear();
    local_cache_.clear();
    loc_ = func.loc;
    Type ft = ir::FuncType(func);
    std::vector<Type> inputs(ft.inputs().begin(), ft.inputs().end());
    std::vector<Type> results(ft.results().begin(), ft.results().end());
    std::vector<Layout> result_layouts;
    std::vector<bool> result_specified;
    std::unordered_map<Value*, Value*> arg_wholes;
    bool changed = false;
    if (entry) {
      Attribute arg_attrs = func.attr("arg_attrs"), res_attrs = func.attr("res_attrs");
      auto dict = [](const Attribute& list, size_t i) {
        return list && list.kind() == AttrKind::kArray && i < list->elements.size() ? list->elements[i] : Attribute();
      };
      for (size_t i = 0; i < body.args.size(); ++i) {
        Value* a = body.args[i].get();
        Layout l = LayoutOfAttrs(dict(arg_attrs, i), a->type, func, StrCat("argument #", i));
        if (l.replicated()) continue;
        auto s = std::make_shared<Sharded>();
        s->global_type = a->type;
        s->layout = l;
        for (int64_t d = 0; d < a->type.rank(); ++d)
          if (a->type.shape()[d] % l.tiles[d] != 0)
            Fail(func, absl::StatusCode::kUnimplemented,
                 StrCat("argument #", i, " ", a->type.ToString(), " is cut into ", l.tiles[d],
                        " uneven tiles along dimension ", d, " (uneven shards are not supported)"));
        // The argument now holds the shard; the whole value it stood for gets a stand-in that
        // the body's uses name instead.
        placeholders_.push_back(std::make_unique<Value>());
        Value* whole = placeholders_.back().get();
        whole->type = a->type;
        arg_wholes[a] = whole;
        a->type = ShardType(ctx_, a->type, l);
        inputs[i] = a->type;
        s->local = a;
        sharded_[whole] = s;
        changed = true;
      }
      if (!arg_wholes.empty())
        for (const auto& o : body.ops) Substitute(*o, arg_wholes);
      for (size_t i = 0; i < body.args.size(); ++i) {
        auto w = arg_wholes.find(body.args[i].get());
        auto it = w != arg_wholes.end() ? sharded_.find(w->second) : sharded_.end();
        info.params.push_back(it != sharded_.end() ? it->second->layout
                                                   : Layout::Replicated(inputs[i].IsTensor() ? inputs[i].rank() : 0,
                                                                        partitions_));
      }
      for (size_t i = 0; i < results.size(); ++i) {
        bool specified = false;
        result_layouts.push_back(
            LayoutOfAttrs(dict(res_attrs, i), results[i], func, StrCat("result #", i), &specified));
        result_specified.push_back(specified);
        if (!result_layouts.back().replicated()) changed = true;
      }
    }
    std::deque<std::unique_ptr<Operation>> work;
    for (auto& o : body.ops) work.push_back(std::move(o));
    body.ops.clear();
    alias_.clear();
    int64_t inlined_ops = 0;
    while (!work.empty()) {
      std::unique_ptr<Operation> holder = std::move(work.front());
      work.pop_front();
      Operation& op = *holder;
      loc_ = op.loc;
      if (!alias_.empty()) Substitute(op, alias_);
      // Calls are inlined so that sharded values flow through the callee's ops.
      if (op.code == OpCode::kFuncCall && inlined_ops < kMaxInlinedOps) {
        Attribute callee = op.attr("callee");
        Operation* f = callee && callee.kind() == AttrKind::kSymbolRef && callee->symbols.size() == 1
                           ? m_.LookupFunction(callee->symbols[0])
                           : nullptr;
        ir::Block* fb = f && !f->regions.empty() ? f->regions[0]->front() : nullptr;
        if (fb && fb->args.size() == op.operands.size() && fb->terminator() &&
            fb->terminator()->operands.size() == op.num_results()) {
          std::unordered_map<const Value*, Value*> map;
          for (size_t i = 0; i < fb->args.size(); ++i) map[fb->args[i].get()] = op.operands[i];
          std::vector<std::unique_ptr<Operation>> copies;
          for (const auto& o : fb->ops) {
            if (o.get() == fb->terminator()) break;
            copies.push_back(ir::CloneOperation(*o, map));
          }
          for (size_t i = 0; i < op.num_results(); ++i) {
            const Value* r = fb->terminator()->operands[i];
            auto it = map.find(r);
            alias_[op.result(i)] = it != map.end() ? it->second : const_cast<Value*>(r);
          }
          inlined_ops += static_cast<int64_t>(copies.size());
          for (auto it = copies.rbegin(); it != copies.rend(); ++it) work.push_front(std::move(*it));
          graveyard_.push_back(std::move(holder));
          continue;
        }
      }
      if (op.code == OpCode::kSdyManualComputation) {
        InlineManual(std::move(holder));
        changed = true;
        continue;
      }
      if (IsIdentityReshape(op)) {
        auto it = sharded_.find(op.operands[0]);
        if (it != sharded_.end()) {
          sharded_[op.result(0)] = it->second;
          graveyard_.push_back(std::move(holder));
          continue;
        }
      }
      if (entry && op.code == OpCode::kFuncReturn) {
        for (size_t i = 0; i < op.operands.size(); ++i) {
          Value* v = op.operands[i];
          auto it = sharded_.find(v);
          // A result with no sharding of its own leaves as its value lies.
          if (!result_specified[i] && it != sharded_.end()) result_layouts[i] = it->second->layout;
          const Layout& want = result_layouts[i];
          if (!want.replicated() && it != sharded_.end() && it->second->layout == want) {
            op.operands[i] = it->second->local;
          } else {
            Value* whole = it != sharded_.end() ? Whole(*it->second, op) : v;
            op.operands[i] = want.replicated() ? whole : Slice(whole, want, ShardType(ctx_, results[i], want), op);
          }
          results[i] = op.operands[i]->type;
        }
        info.results = result_layouts;
        out_.push_back(std::move(holder));
        continue;
      }
      if (TryReshard(holder)) continue;
      if (TryElementwise(holder) || TryDot(holder) || TryTranspose(holder) || TryReduce(holder) ||
          TryReduceKeepingTiles(holder) || TryBroadcast(holder) || TryReshape(holder) || TrySort(holder) ||
          TryReduceWindow(holder) || TryConvolution(holder) || TryGather(holder) || TryScatter(holder))
        continue;
      ResolveOperands(op, op);
      out_.push_back(std::move(holder));
    }
    body.ops = std::move(out_);
    out_.clear();
    if (changed)
      func.SetAttr("function_type", Attribute::TypeAttr(ctx_.Function(inputs, results)));
  }

  ir::Module& m_;
  ir::Context& ctx_;
  const int64_t partitions_, replicas_;
  std::map<std::string, Mesh> meshes_;
  std::unordered_map<Value*, std::shared_ptr<Sharded>> sharded_;
  std::unordered_map<Value*, std::vector<std::pair<Layout, Value*>>> local_cache_;
  std::unordered_map<Value*, Value*> alias_;  // results of removed ops -> the values that replace them
  std::vector<std::unique_ptr<Value>> placeholders_;  // whole values of shard-typed arguments
  std::vector<std::unique_ptr<Operation>> out_;
  std::vector<std::unique_ptr<Operation>> graveyard_;  // removed ops whose results are map keys
  ir::Block* block_ = nullptr;
  ir::Loc loc_;
  int64_t next_channel_ = 1 << 20;  // above the channels a program numbers itself
};

bool NeedsPartitioning(const ir::Operation& op) {
  if (op.code == OpCode::kSdyManualComputation) return true;
  if (op.code == OpCode::kFunc)
    for (const char* key : {"arg_attrs", "res_attrs"}) {
      Attribute list = op.attr(key);
      if (!list || list.kind() != AttrKind::kArray) continue;
      for (const Attribute& d : list->elements)
        if (d && d.kind() == AttrKind::kDictionary && (d.Field("sdy.sharding") || d.Field("mhlo.sharding")))
          return true;
    }
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks)
      for (const auto& o : b->ops)
        if (NeedsPartitioning(*o)) return true;
  return false;
}

}  // namespace

absl::Status PartitionModule(ir::Module& module, ir::Operation& entry, int64_t num_partitions, int64_t num_replicas,
                             PartitionInfo* info) {
  if (num_partitions <= 1 || !NeedsPartitioning(*module.op)) return absl::OkStatus();
  try {
    Partitioner p(module, num_partitions, std::max<int64_t>(num_replicas, 1));
    p.Run(entry);
    if (info) *info = std::move(p.info);
  } catch (const PartitionError& e) {
    return absl::Status(e.code, e.what());
  }
  return absl::OkStatus();
}

}  // namespace openpjrt::compiler::spmd
