// The SPMD rewrite's per-op rules (partitioner.h): each Try* partitions one kind of op when its
// operands' layouts allow, inserting the communication it needs, and returns false otherwise.
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

bool Partitioner::TryElementwise(std::unique_ptr<Operation>& holder) {
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

Layout Partitioner::Mapped(const Layout& from, const std::vector<int>& src) {
  Layout l = Layout::Replicated(static_cast<int64_t>(src.size()), static_cast<int64_t>(from.coords.size()));
  for (size_t r = 0; r < src.size(); ++r) {
    if (src[r] < 0) continue;
    l.tiles[r] = from.tiles[src[r]];
    for (size_t p = 0; p < from.coords.size(); ++p) l.coords[p][r] = from.coords[p][src[r]];
  }
  return l;
}

std::vector<int> Partitioner::Tiled(const Layout& l) {
  std::vector<int> t;
  for (size_t d = 0; d < l.tiles.size(); ++d)
    if (l.tiles[d] > 1) t.push_back(static_cast<int>(d));
  return t;
}

bool Partitioner::Within(const std::vector<int>& dims, const std::vector<int64_t>& allowed) {
  for (int d : dims)
    if (std::find(allowed.begin(), allowed.end(), d) == allowed.end()) return false;
  return true;
}

std::pair<Layout, Type> Partitioner::LayoutOf(Value* v) {
  auto it = sharded_.find(v);
  if (it != sharded_.end()) return {it->second->layout, it->second->global_type};
  return {Layout::Replicated(v->type.IsTensor() ? v->type.rank() : 0, partitions_), v->type};
}

Value* Partitioner::AsLayout(Value* v, const Layout& layout, const Operation& at) {
  auto it = sharded_.find(v);
  if (it != sharded_.end() && it->second->layout == layout) return it->second->local;
  if (it != sharded_.end() && !it->second->whole)
    if (Value* moved = AllToAll(*it->second, layout, at)) return moved;
  Value* whole = it != sharded_.end() ? Whole(*it->second, at) : v;
  return layout.replicated() ? whole : LocalOf(whole, layout, at);
}

Value* Partitioner::AllToAll(const Sharded& s, const Layout& to, const Operation& at) {
  const Layout& from = s.layout;
  const size_t rank = from.tiles.size();
  if (to.tiles.size() != rank || from.partials > 1 || to.partials > 1 || !s.global_type.IsTensor()) return nullptr;
  // Exactly one dimension i tiled in `from` but whole in `to`, one j the other way round, by the
  // same number of tiles and the same partitions (tile c of i in `from` is tile c of j in `to`);
  // every other dimension alike.
  int i = -1, j = -1;
  for (size_t d = 0; d < rank; ++d) {
    if (from.tiles[d] == to.tiles[d]) {
      for (int64_t p = 0; p < partitions_; ++p)
        if (from.coords[p][d] != to.coords[p][d]) return nullptr;
      continue;
    }
    if (from.tiles[d] > 1 && to.tiles[d] == 1 && i < 0) i = static_cast<int>(d);
    else if (to.tiles[d] > 1 && from.tiles[d] == 1 && j < 0) j = static_cast<int>(d);
    else return nullptr;
  }
  if (i < 0 || j < 0 || from.tiles[i] != to.tiles[j]) return nullptr;
  const int64_t t = from.tiles[i];
  for (int64_t p = 0; p < partitions_; ++p)
    if (from.coords[p][i] != to.coords[p][j]) return nullptr;
  for (int64_t d : {i, j})
    if (s.global_type.shape()[d] % t != 0) return nullptr;  // uneven tiles
  std::vector<bool> pending(rank);
  for (size_t d = 0; d < rank; ++d) pending[d] = from.tiles[d] > 1;
  auto groups = GatherGroups(from, i, pending);
  if (!groups.ok()) return nullptr;
  // Each partition splits its shard along j into t parts, part k to the group's k-th member (the
  // holder of tile k of j), and concatenates what it receives along i in group order.
  std::vector<int64_t> dims = Dims(s.local->type);
  dims[i] *= t;
  dims[j] /= t;
  Operation* a2a = Emit(OpCode::kAllToAll, {s.local}, {Tensor(dims, s.local->type.element_type())});
  a2a->SetAttr("split_dimension", Attribute::Integer(I64(), j));
  a2a->SetAttr("concat_dimension", Attribute::Integer(I64(), i));
  a2a->SetAttr("split_count", Attribute::Integer(I64(), t));
  // (With a channel handle the groups are partition ids, the same in every replica.)
  std::vector<int64_t> flat;
  for (const auto& g : *groups) flat.insert(flat.end(), g.begin(), g.end());
  auto data = std::make_shared<std::vector<uint8_t>>(flat.size() * 8);
  std::memcpy(data->data(), flat.data(), data->size());
  a2a->SetAttr("replica_groups",
               Attribute::Dense(Tensor({static_cast<int64_t>(groups->size()), t}, I64()), data, false));
  a2a->SetAttr("channel_handle", Attribute::Struct("stablehlo.channel_handle",
                                                   {{"handle", Attribute::Integer(I64(), next_channel_++)},
                                                    {"type", Attribute::Integer(I64(), 1)}}));
  (void)at;
  return a2a->result(0);
}

bool Partitioner::TryDot(std::unique_ptr<Operation>& holder) {
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
  const int other_rank = left ? rrank : lrank;
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

void Partitioner::Retarget(Value* from, Value* to) {
  for (auto& [v, sh] : sharded_)
    if (sh->local == from) {
      sh->local = to;
      if (sh->layout.replicated()) sh->whole = to;
    }
}

std::string Partitioner::CallTarget(const Operation& op) {
  Attribute t = op.attr("call_target_name");
  return t && t.kind() == AttrKind::kString ? t->str : std::string();
}

std::string Partitioner::GspmdText(const Operation& op) {
  Attribute a = op.attr("mhlo.sharding");
  return a && a.kind() == AttrKind::kString ? a->str : std::string();
}

bool Partitioner::TryReshard(std::unique_ptr<Operation>& holder) {
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
  if (!sdy && (text == "{manual}" || text.empty())) {
    if (target == "SPMDShardToFullShape")
      Fail(op, absl::StatusCode::kInvalidArgument, "@SPMDShardToFullShape needs the full value's mhlo.sharding");
    return false;  // a manual value passes through
  }
  std::vector<int64_t> manual;  // partially manual: each partition's coordinate along the manual axes
  Layout l;
  if (sdy) {
    Attribute a = op.attr("sharding");
    if (!a) return false;
    auto parsed = ParseSdySharding(a.kind() == AttrKind::kOpaque ? a->str : ir::PrintAttribute(a));
    if (!parsed.ok()) Fail(op, absl::StatusCode::kInvalidArgument, std::string(parsed.status().message()));
    l = LayoutOfSdy(*parsed, rt.rank(), op, nullptr);
  } else {
    auto parsed = GspmdLayout(text, rt.rank(), partitions_, -1, &manual);
    if (!parsed.ok()) Fail(op, parsed.status().code(), std::string(parsed.status().message()));
    l = *parsed;
  }
  if (!manual.empty()) {
    // Inside a shard_map over some axes, values differ between the manual coordinates: the
    // partitions that gather (or sum) a tiled dimension together must share one. (Groups pair
    // the k-th holder of each tile in device order, which meshes in device order satisfy.)
    CheckGatherWithin(l, [&](int64_t p) { return std::vector<int64_t>{manual[p]}; }, op,
                      StrCat("sharding '", text, "': its tiles' holders do not pair up within the manual subgroups"));
  }
  if (l.partials > 1) {
    if (target == "SPMDShardToFullShape")
      Fail(op, absl::StatusCode::kUnimplemented, "@SPMDShardToFullShape to an unreduced sharding is not supported");
    // The partitioner keeps values summed: an unreduced constraint keeps only its tiles.
    l = l.Reduced();
  }
  auto s = std::make_shared<Sharded>();
  s->layout = l;
  s->global_type = rt;
  if (target == "SPMDShardToFullShape") {
    // The manual shard: the operand as the shard_map body left it (whole along the axes that
    // stay automatic, where a partially manual constraint had tiled it).
    auto it = sharded_.find(v);
    Value* shard = it != sharded_.end() ? Whole(*it->second, op) : v;
    CheckShardType(rt, l, shard->type, op, "@SPMDShardToFullShape's result");
    s->local = shard;
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

bool Partitioner::Valid(const Layout& l) {
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

bool Partitioner::TryBroadcast(std::unique_ptr<Operation>& holder) {
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

bool Partitioner::TryReshape(std::unique_ptr<Operation>& holder) {
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

const Sharded* Partitioner::LeadOf(const Operation& op, size_t n) {
  for (size_t i = 0; i < n && i < op.operands.size(); ++i) {
    auto it = sharded_.find(op.operands[i]);
    if (it != sharded_.end() && !it->second->layout.replicated()) return it->second.get();
  }
  return nullptr;
}

bool Partitioner::SameShape(Type a, Type b) {
  return a.IsTensor() && b.IsTensor() && a.rank() == b.rank() &&
         std::equal(a.shape().begin(), a.shape().end(), b.shape().begin());
}

bool Partitioner::TrySort(std::unique_ptr<Operation>& holder) {
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

bool Partitioner::TryReduceKeepingTiles(std::unique_ptr<Operation>& holder) {
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

bool Partitioner::TryGather(std::unique_ptr<Operation>& holder) {
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

bool Partitioner::TryScatter(std::unique_ptr<Operation>& holder) {
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

bool Partitioner::TryTranspose(std::unique_ptr<Operation>& holder) {
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

bool Partitioner::TryReduce(std::unique_ptr<Operation>& holder) {
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

}  // namespace openpjrt::compiler::spmd::internal

namespace openpjrt::compiler::spmd::internal {

namespace {

// True when every dimension `l` tiles has `sizes[d] == whole[d]`.
bool CoversTiled(const Layout& l, const std::vector<int64_t>& sizes, Type whole) {
  if (sizes.size() != l.tiles.size() || whole.rank() != static_cast<int64_t>(sizes.size())) return false;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (l.tiles[d] > 1 && sizes[d] != whole.shape()[d]) return false;
  return true;
}

}  // namespace

bool Partitioner::TryDynamicSlice(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  if (op.code != OpCode::kDynamicSlice || op.operands.empty() || op.num_results() != 1) return false;
  auto [l, t] = LayoutOf(op.operands[0]);
  std::vector<int64_t> sizes;
  if (l.replicated() || !t.HasStaticShape() || !ir::GetI64List(op.attr("slice_sizes"), &sizes) ||
      !CoversTiled(l, sizes, t) || op.operands.size() != sizes.size() + 1)
    return false;
  std::vector<Value*> operands = {AsLayout(op.operands[0], l, op)};
  for (size_t i = 1; i < op.operands.size(); ++i)
    operands.push_back(AsLayout(op.operands[i], Layout::Replicated(0, partitions_), op));
  for (size_t d = 0; d < sizes.size(); ++d) sizes[d] /= l.tiles[d];
  Operation* c = Reemit(holder, operands, ShardType(ctx_, op.result(0)->type, l), l);
  c->SetAttr("slice_sizes", Attribute::DenseI64(I64(), sizes));
  return true;
}

bool Partitioner::TryDynamicUpdateSlice(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  if (op.code != OpCode::kDynamicUpdateSlice || op.operands.size() < 2 || op.num_results() != 1) return false;
  auto [ol, ot] = LayoutOf(op.operands[0]);
  auto [ul, ut] = LayoutOf(op.operands[1]);
  if (!ot.HasStaticShape() || !ut.HasStaticShape() || ot.rank() != ut.rank() ||
      op.operands.size() != static_cast<size_t>(ot.rank()) + 2)
    return false;
  const std::vector<int64_t> usizes(ut.shape().begin(), ut.shape().end());
  // The operand's tiles lead; a whole operand takes the update's.
  const Layout& l = !ol.replicated() ? ol : ul;
  if (l.replicated() || !CoversTiled(l, usizes, ot)) return false;
  std::vector<Value*> operands = {AsLayout(op.operands[0], l, op), AsLayout(op.operands[1], l, op)};
  for (size_t i = 2; i < op.operands.size(); ++i)
    operands.push_back(AsLayout(op.operands[i], Layout::Replicated(0, partitions_), op));
  Reemit(holder, operands, ShardType(ctx_, op.result(0)->type, l), l);
  return true;
}

}  // namespace openpjrt::compiler::spmd::internal

namespace openpjrt::compiler::spmd::internal {

namespace {

bool Has(const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); }

// True when `l` tiles no dimension outside `allowed`.
bool TiledOnlyOn(const Layout& l, const std::vector<int64_t>& allowed) {
  for (size_t d = 0; d < l.tiles.size(); ++d)
    if (l.tiles[d] > 1 && !Has(allowed, static_cast<int64_t>(d))) return false;
  return true;
}

// src for Mapped: dimension to[k] of a rank-`rank` value takes dimension from[k].
std::vector<int> Pairing(int64_t rank, const std::vector<int64_t>& to, const std::vector<int64_t>& from) {
  std::vector<int> src(static_cast<size_t>(rank), -1);
  for (size_t k = 0; k < to.size() && k < from.size(); ++k) src[to[k]] = static_cast<int>(from[k]);
  return src;
}

// src for Mapped from the indices to a gather's result or a scatter's updates: their dimensions
// outside `window` take, in order, the indices' dimensions other than index_vector_dim.
std::vector<int> BatchPositions(int64_t rank, const std::vector<int64_t>& window, int64_t index_vector_dim) {
  std::vector<int> src(static_cast<size_t>(rank), -1);
  int64_t j = 0;
  for (int64_t r = 0; r < rank; ++r) {
    if (Has(window, r)) continue;
    if (j == index_vector_dim) ++j;
    src[r] = static_cast<int>(j++);
  }
  return src;
}

// The dimension numbers a gather and a scatter with batching dimensions share.
struct Batching {
  std::vector<int64_t> window;   // gather's offset_dims, scatter's update_window_dims
  std::vector<int64_t> operand;  // the operand's batching dimensions
  std::vector<int64_t> indices;  // the indices' batching dimensions
  int64_t index_vector_dim = 0;
};

bool ReadBatching(const Operation& op, const char* attr, const char* window, const char* operand, const char* indices,
                  Batching* b) {
  Attribute dn = op.attr(attr);
  if (!dn || dn.kind() != AttrKind::kStruct) return false;
  ir::GetI64List(dn.Field(window), &b->window);
  ir::GetI64List(dn.Field(operand), &b->operand);
  ir::GetI64List(dn.Field(indices), &b->indices);
  return !b->operand.empty() && b->operand.size() == b->indices.size() &&
         ir::GetInt(dn.Field("index_vector_dim"), &b->index_vector_dim);
}

// The indices' layout when they or the operand lead: the indices' own when tiled (on their
// batching dimensions only), else the operand's batching tiles moved onto the indices; whole
// when neither is tiled. False when a tile lies elsewhere.
bool LeadingIndices(const Layout& il, const Layout& ol, int64_t indices_rank, const Batching& b, Layout* idx) {
  if (!il.replicated()) {
    *idx = il;
    return TiledOnlyOn(il, b.indices);
  }
  if (!ol.replicated()) {
    *idx = Partitioner::Mapped(ol, Pairing(indices_rank, b.indices, b.operand));
    return TiledOnlyOn(ol, b.operand);
  }
  *idx = il;
  return true;
}

}  // namespace

bool Partitioner::TryBatchedGather(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  Batching b;
  if (op.code != OpCode::kGather || op.operands.size() != 2 || op.num_results() != 1 ||
      !ReadBatching(op, "dimension_numbers", "offset_dims", "operand_batching_dims", "start_indices_batching_dims", &b))
    return false;
  auto [ol, ot] = LayoutOf(op.operands[0]);
  auto [il, it] = LayoutOf(op.operands[1]);
  const Type rt = op.result(0)->type;
  if (!ot.HasStaticShape() || !it.HasStaticShape() || !rt.IsTensor() || !rt.HasStaticShape()) return false;
  Layout idx;
  if (!LeadingIndices(il, ol, it.rank(), b, &idx) || idx.replicated()) return false;
  // The operand's batching dimensions take the indices' tiles; the result's batch positions too.
  const Layout table = Mapped(idx, Pairing(ot.rank(), b.operand, b.indices));
  const Layout out = Mapped(idx, BatchPositions(rt.rank(), b.window, b.index_vector_dim));
  ReemitAll(holder, {AsLayout(op.operands[0], table, op), AsLayout(op.operands[1], idx, op)},
            {ShardType(ctx_, rt, out)}, {out});
  return true;
}

bool Partitioner::TryBatchedScatter(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  Batching b;
  if (op.code != OpCode::kScatter || op.operands.size() != 3 || op.num_results() != 1 ||
      !ReadBatching(op, "scatter_dimension_numbers", "update_window_dims", "input_batching_dims",
                    "scatter_indices_batching_dims", &b))
    return false;
  auto [ol, ot] = LayoutOf(op.operands[0]);
  auto [il, it] = LayoutOf(op.operands[1]);
  auto [ul, ut] = LayoutOf(op.operands[2]);
  if (!ot.HasStaticShape() || !it.HasStaticShape() || !ut.HasStaticShape()) return false;
  const std::vector<int> upd_src = BatchPositions(ut.rank(), b.window, b.index_vector_dim);
  Layout idx;
  if (!LeadingIndices(il, ol, it.rank(), b, &idx)) return false;
  if (idx.replicated() && !ul.replicated()) {
    // The updates lead: the indices take the tiles of the updates' dimensions that follow the
    // indices' batching ones.
    std::vector<int64_t> upd_dims, idx_dims, batch_upd;
    for (int64_t u = 0; u < ut.rank(); ++u)
      if (upd_src[u] >= 0) {
        upd_dims.push_back(u);
        idx_dims.push_back(upd_src[u]);
        if (Has(b.indices, upd_src[u])) batch_upd.push_back(u);
      }
    if (!TiledOnlyOn(ul, batch_upd)) return false;
    idx = Mapped(ul, Pairing(it.rank(), idx_dims, upd_dims));
  }
  if (idx.replicated() || !TiledOnlyOn(idx, b.indices)) return false;
  const Layout target = Mapped(idx, Pairing(ot.rank(), b.operand, b.indices));
  const Layout updates = Mapped(idx, upd_src);
  ReemitAll(holder,
            {AsLayout(op.operands[0], target, op), AsLayout(op.operands[1], idx, op),
             AsLayout(op.operands[2], updates, op)},
            {ShardType(ctx_, op.result(0)->type, target)}, {target});
  return true;
}

}  // namespace openpjrt::compiler::spmd::internal

namespace openpjrt::compiler::spmd::internal {

bool Partitioner::TryConcatenate(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  if (op.code != OpCode::kConcatenate || op.operands.empty() || op.num_results() != 1) return false;
  int64_t dim = 0;
  if (!ir::GetInt(op.attr("dimension"), &dim)) return false;
  const Type rt = op.result(0)->type;
  if (!rt.IsTensor() || !rt.HasStaticShape() || dim < 0 || dim >= rt.rank()) return false;
  // The first operand tiled only off the joined dimension leads; the others are brought to it.
  const Layout* lead = nullptr;
  Layout found;
  for (Value* v : op.operands) {
    auto [l, t] = LayoutOf(v);
    if (l.replicated() || !t.HasStaticShape()) continue;
    if (l.tiles[dim] > 1) return false;
    found = l;
    lead = &found;
    break;
  }
  if (!lead) return false;
  std::vector<Value*> operands;
  for (Value* v : op.operands) operands.push_back(AsLayout(v, *lead, op));
  Reemit(holder, operands, ShardType(ctx_, rt, *lead), *lead);
  return true;
}

}  // namespace openpjrt::compiler::spmd::internal
