// Building blocks of the SPMD rewrite (partitioner.h): emitted ops and collectives, shards of
// values, and Shardy shardings read into layouts.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/compiler/spmd/partitioner.h"
#include "src/ir/printer.h"
#include "src/support/str.h"

namespace openpjrt::compiler::spmd::internal {

namespace {

// `layout` with its partial index as a leading dimension of tiles: the groups that combine over
// that dimension are the partitions whose addends make one tile.
Layout PartialsAsTiles(const Layout& layout) {
  Layout ext;
  ext.tiles.push_back(layout.partials);
  ext.tiles.insert(ext.tiles.end(), layout.tiles.begin(), layout.tiles.end());
  for (size_t p = 0; p < layout.coords.size(); ++p) {
    ext.coords.push_back({layout.partial[p]});
    ext.coords.back().insert(ext.coords.back().end(), layout.coords[p].begin(), layout.coords[p].end());
  }
  return ext;
}

// Device groups as a set: each group's members sorted, the groups sorted.
std::vector<std::vector<int64_t>> GroupSet(const Attribute& groups) {
  std::vector<int64_t> flat;
  if (!groups || groups.kind() != AttrKind::kDenseElements || groups->type.rank() != 2 ||
      !ir::GetI64List(groups, &flat))
    return {};
  const int64_t cols = groups->type.shape()[1];
  std::vector<std::vector<int64_t>> set;
  for (size_t i = 0; cols > 0 && i < flat.size(); i += static_cast<size_t>(cols)) {
    set.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i), flat.begin() + static_cast<std::ptrdiff_t>(i + cols));
    std::sort(set.back().begin(), set.back().end());
  }
  std::sort(set.begin(), set.end());
  return set;
}

}  // namespace

Operation* Partitioner::Emit(OpCode code, std::vector<Value*> operands, std::vector<Type> results) {
  auto op = std::make_unique<Operation>(code, "", loc_);
  op->operands = std::move(operands);
  op->SetResultTypes(results);
  op->parent = block_;
  out_.push_back(std::move(op));
  return out_.back().get();
}

Value* Partitioner::ConstI64(const std::vector<int64_t>& values, const std::vector<int64_t>& dims) {
  auto data = std::make_shared<std::vector<uint8_t>>(values.size() * 8);
  std::memcpy(data->data(), values.data(), data->size());
  Type t = Tensor(dims, I64());
  Operation* c = Emit(OpCode::kConstant, {}, {t});
  c->SetAttr("value", Attribute::Dense(t, data, false));
  return c->result(0);
}

Value* Partitioner::PartitionIndex() {
  Operation* pid = Emit(OpCode::kPartitionId, {}, {Tensor({}, ctx_.Element(ElemKind::kU32))});
  return Emit(OpCode::kConvert, {pid->result(0)}, {Tensor({}, I64())})->result(0);
}

Attribute Partitioner::Groups(const std::vector<std::vector<int64_t>>& groups) {
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

void Partitioner::MarkCrossPartition(Operation* op) {
  op->SetAttr("channel_handle", Attribute::Struct("stablehlo.channel_handle",
                                                  {{"handle", Attribute::Integer(I64(), next_channel_++)},
                                                   {"type", Attribute::Integer(I64(), 1)}}));
  op->SetAttr("use_global_device_ids", Attribute::Unit());
}

Value* Partitioner::Gather(Value* local, const Layout& layout, const Operation& at, Type whole) {
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
  if (whole && whole.IsTensor() && v->type.IsTensor() && Dims(whole) != Dims(v->type)) {
    // Uneven tiles: the gathered value ends in the last tiles' padding.
    const std::vector<int64_t> limit = Dims(whole);
    Operation* cut = Emit(OpCode::kSlice, {v}, {whole});
    cut->SetAttr("start_indices", Attribute::DenseI64(I64(), std::vector<int64_t>(limit.size(), 0)));
    cut->SetAttr("limit_indices", Attribute::DenseI64(I64(), limit));
    cut->SetAttr("strides", Attribute::DenseI64(I64(), std::vector<int64_t>(limit.size(), 1)));
    v = cut->result(0);
  }
  return v;
}

Value* Partitioner::Slice(Value* whole, const Layout& layout, Type local_type, const Operation& at) {
  if (layout.replicated()) return whole;
  CheckShardType(whole->type, layout, local_type, at, "value", /*uneven=*/true);
  const std::vector<int64_t> local = Dims(local_type);
  std::vector<int64_t> padded = Dims(whole->type), high(padded.size(), 0);
  for (size_t d = 0; d < padded.size(); ++d) {
    high[d] = local[d] * layout.tiles[d] - padded[d];
    padded[d] += high[d];
  }
  if (padded != Dims(whole->type)) {
    // Uneven tiles: the last ones are completed with zeros (dynamic_slice would clamp them).
    Type elem = whole->type.element_type();
    if (!elem.IsElement())
      Fail(at, absl::StatusCode::kUnimplemented, StrCat("uneven tiles of ", whole->type.ToString(), " (quantized)"));
    Type scalar = Tensor({}, elem);
    Operation* zero = Emit(OpCode::kConstant, {}, {scalar});
    zero->SetAttr("value", Attribute::Dense(scalar, std::make_shared<std::vector<uint8_t>>(
                                                        static_cast<size_t>(ir::ByteSize(elem.elem())), 0), true));
    Operation* pad = Emit(OpCode::kPad, {whole, zero->result(0)}, {Tensor(padded, elem)});
    pad->SetAttr("edge_padding_low", Attribute::DenseI64(I64(), std::vector<int64_t>(padded.size(), 0)));
    pad->SetAttr("edge_padding_high", Attribute::DenseI64(I64(), high));
    pad->SetAttr("interior_padding", Attribute::DenseI64(I64(), std::vector<int64_t>(padded.size(), 0)));
    whole = pad->result(0);
  }
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

void Partitioner::CheckShardType(Type whole, const Layout& layout, Type local, const Operation& at, const std::string& what,
                                 bool uneven) {
  if (!whole.IsTensor() || !local.IsTensor() || whole.rank() != local.rank() ||
      whole.element_type() != local.element_type() || !whole.HasStaticShape())
    Fail(at, absl::StatusCode::kInvalidArgument,
         StrCat(what, " ", whole.ToString(), " cannot be sharded as ", local.ToString()));
  for (int64_t d = 0; d < whole.rank(); ++d) {
    const int64_t tiles = layout.tiles[d];
    if (!uneven && whole.shape()[d] % tiles != 0)
      Fail(at, absl::StatusCode::kUnimplemented,
           StrCat(what, " ", whole.ToString(), " is cut into ", tiles, " uneven tiles along dimension ", d,
                  " (uneven shards are supported for the entry's arguments and results only)"));
    const int64_t size = (whole.shape()[d] + tiles - 1) / tiles;
    if (size != local.shape()[d])
      Fail(at, absl::StatusCode::kInvalidArgument,
           StrCat(what, " ", whole.ToString(), " sharded ", layout.ToString(), " has shards of dimension ", d,
                  " of size ", size, ", not ", local.ToString()));
  }
}

Type Partitioner::ShardType(ir::Context& ctx, Type whole, const Layout& layout) {
  std::vector<int64_t> dims(whole.shape().begin(), whole.shape().end());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = (dims[d] + layout.tiles[d] - 1) / layout.tiles[d];
  return ctx.Tensor(dims, whole.element_type());
}

Value* Partitioner::LocalOf(Value* whole, const Layout& layout, const Operation& at) {
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
  } else if (def && IsElementwise(def->code) && def->regions.empty() && def->num_results() == 1 &&
             local_depth_ < kLocalDepth && std::all_of(def->operands.begin(), def->operands.end(), [&](Value* o) {
               return o->type.IsTensor() && o->type.HasStaticShape() && o->type.shape().size() == whole->type.shape().size() &&
                      std::equal(o->type.shape().begin(), o->type.shape().end(), whole->type.shape().begin());
             })) {
    // An elementwise op of whole values runs again on their shards (the shard of a scaled
    // gradient from the shard of the gradient: a sum then becomes a reduce_scatter); the whole
    // op goes if nothing else reads it (DropUnreadSums).
    ++local_depth_;
    std::vector<Value*> parts;
    for (Value* o : def->operands) parts.push_back(LocalOf(o, layout, at));
    --local_depth_;
    auto c = std::make_unique<Operation>(def->code, def->name(), loc_);
    c->attrs = def->attrs;
    c->operands = std::move(parts);
    c->SetResultTypes({local_type});
    c->parent = block_;
    out_.push_back(std::move(c));
    local = out_.back()->result(0);
  } else if (Value* scattered = ReduceScatter(whole, layout, local_type)) {
    local = scattered;
  } else {
    local = Slice(whole, layout, local_type, at);
  }
  local_cache_[whole].emplace_back(layout, local);
  return local;
}

Value* Partitioner::ReduceScatter(Value* whole, const Layout& layout, Type local_type) {
  Operation* ar = whole->def;
  // A transpose of the sum (a weight gradient's) is taken before it: the partial products are
  // transposed and scattered.
  Operation* transpose = nullptr;
  if (ar && ar->code == OpCode::kTranspose && ar->operands.size() == 1 && ar->operands[0]->def &&
      IsSumAllReduce(ar->operands[0]->def)) {
    transpose = ar;
    ar = ar->operands[0]->def;
  }
  if (!IsSumAllReduce(ar) || !ar->attr("use_global_device_ids") || !whole->type.IsTensor() || layout.partials > 1)
    return nullptr;
  int dim = -1;
  for (size_t d = 0; d < layout.tiles.size(); ++d) {
    if (layout.tiles[d] == 1) continue;
    if (dim >= 0) return nullptr;  // one tiled dimension only
    dim = static_cast<int>(d);
  }
  if (dim < 0 || whole->type.shape()[dim] % layout.tiles[dim] != 0) return nullptr;
  std::vector<bool> pending(layout.tiles.size(), false);
  pending[dim] = true;
  auto groups = GatherGroups(layout, dim, pending);
  if (!groups.ok()) return nullptr;
  // The sum must run over exactly the partitions that split the dimension (group member k, the
  // holder of tile k, keeps block k of the sum).
  Attribute groups_attr = Groups(*groups);
  if (GroupSet(ar->attr("replica_groups")) != GroupSet(groups_attr)) return nullptr;
  Value* partial = ar->operands[0];
  if (transpose) {
    Operation* t = Emit(OpCode::kTranspose, {partial}, {whole->type});
    t->attrs = transpose->attrs;
    partial = t->result(0);
  }
  Operation* rs = Emit(OpCode::kReduceScatter, {partial}, {local_type});
  rs->SetAttr("scatter_dimension", Attribute::Integer(I64(), dim));
  rs->SetAttr("replica_groups", groups_attr);
  MarkCrossPartition(rs);
  AddCombiner(*rs, OpCode::kAdd, whole->type.element_type());
  return rs->result(0);
}


Value* Partitioner::SumPartials(Value* local, const Layout& layout, const Operation& at) {
  const bool boolean = local->type.element_type().IsElement() && local->type.element_type().elem() == ElemKind::kI1;
  return AllReduce(local, PartialsAsTiles(layout), {0}, boolean ? OpCode::kOr : OpCode::kAdd, at);
}

Value* Partitioner::AddendOf(Value* local, const Layout& layout, const Operation& at) {
  const auto groups = CombineGroups(PartialsAsTiles(layout), {0}, at);
  Operation* def = local->def;
  if (def && def->code == OpCode::kAllReduce && def->operands.size() == 1 && def->attr("use_global_device_ids") &&
      def->regions.size() == 1 && def->regions[0]->front() && def->regions[0]->front()->ops.size() == 2 &&
      def->regions[0]->front()->ops[0]->code ==
          (local->type.element_type().IsElement() && local->type.element_type().elem() == ElemKind::kI1 ? OpCode::kOr
                                                                                                        : OpCode::kAdd) &&
      GroupSet(def->attr("replica_groups")) == GroupSet(Groups(groups)))
    return def->operands[0];
  // The shard where the partition is its group's first, zeros elsewhere.
  std::vector<int64_t> first(partitions_, 0);
  for (const auto& g : groups)
    if (!g.empty()) first[g.front()] = 1;
  Value* table = ConstI64(first, {partitions_});
  Operation* pick = Emit(OpCode::kDynamicSlice, {table, PartitionIndex()}, {Tensor({1}, I64())});
  pick->SetAttr("slice_sizes", Attribute::DenseI64(I64(), {1}));
  Type pred_type = Tensor({}, ctx_.Element(ElemKind::kI1));
  Value* flag = Emit(OpCode::kReshape, {pick->result(0)}, {Tensor({}, I64())})->result(0);
  Value* pred = Emit(OpCode::kConvert, {flag}, {pred_type})->result(0);
  Type elem = local->type.element_type();
  if (!elem.IsElement())
    Fail(at, absl::StatusCode::kUnimplemented, StrCat("an unreduced ", local->type.ToString(), " (quantized) is not supported"));
  auto zero_bytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(ir::ByteSize(elem.elem())), 0);
  Operation* zero = Emit(OpCode::kConstant, {}, {local->type});
  zero->SetAttr("value", Attribute::Dense(local->type, zero_bytes, true));
  Operation* mask = Emit(OpCode::kBroadcastInDim, {pred}, {Tensor(Dims(local->type), ctx_.Element(ElemKind::kI1))});
  mask->SetAttr("broadcast_dimensions", Attribute::DenseI64(I64(), {}));
  return Emit(OpCode::kSelect, {mask->result(0), local, zero->result(0)}, {local->type})->result(0);
}

void Partitioner::DropUnreadSums(ir::Block& b) {
  for (size_t i = b.ops.size(); i-- > 0;) {
    Operation* op = b.ops[i].get();
    // (Transposes, reshapes, broadcasts and elementwise ops nothing reads go too: one of a sum
    // would keep the sum alive.)
    if ((op->code == OpCode::kTranspose || op->code == OpCode::kReshape || op->code == OpCode::kBroadcastInDim ||
         (IsElementwise(op->code) && op->regions.empty())) &&
        op->num_results() == 1 && UsesIn(op->result(0), b) == 0) {
      b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (op->code != OpCode::kAllReduce || !op->attr("use_global_device_ids")) continue;
    Attribute ch = op->attr("channel_handle");
    int64_t handle = 0;
    if (!ch || ch.kind() != AttrKind::kStruct || !ir::GetInt(ch.Field("handle"), &handle) || handle < (1 << 20))
      continue;  // the program's own: kept as written
    bool read = false;
    for (size_t r = 0; r < op->num_results() && !read; ++r) read = UsesIn(op->result(r), b) > 0;
    if (!read) b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

const Mesh& Partitioner::MeshOf(const SdySharding& s, const Operation& at) {
  if (s.inline_mesh) return *s.inline_mesh;
  auto it = meshes_.find(s.mesh_name);
  if (it == meshes_.end())
    Fail(at, absl::StatusCode::kInvalidArgument, StrCat("refers to mesh @", s.mesh_name, ", which is not defined"));
  return it->second;
}

Layout Partitioner::LayoutOfSdy(const SdySharding& s, int64_t rank, const Operation& at, const std::vector<std::string>* only) {
  auto l = SdyLayout(s, MeshOf(s, at), rank, partitions_, only);
  if (!l.ok()) Fail(at, l.status().code(), std::string(l.status().message()));
  return *l;
}

}  // namespace openpjrt::compiler::spmd::internal
