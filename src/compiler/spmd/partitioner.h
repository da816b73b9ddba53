// The SPMD partitioner's internals, shared by the files that implement it (see spmd.h for what
// it does and sharding.h for the layouts it works with). One Partitioner rewrites one module:
//   partition.cc         the driver: functions, calls and manual computations (nested ones too)
//                        rewritten op by op, operands resolved to the layout each op needs,
//                        results recorded (unreduced and uneven ones included);
//   partition_shards.cc  building blocks: emitting ops, collectives (all-gather, slicing a
//                        partition's shard, summing unreduced addends), shard types, and reading
//                        Shardy shardings into layouts;
//   partition_ops.cc     the per-op rules (Try*): which layouts each op can run on shard by shard
//                        and the communication it needs (elementwise, dot_general, broadcast,
//                        reshape, transpose, reduce, sort, gather, scatter, dynamic_slice,
//                        dynamic_update_slice, concatenate, resharding custom calls);
//   partition_windows.cc convolution and reduce_window, with halos for tiles of the dimensions
//                        their windows slide along;
//   partition_regions.cc ops with nested blocks: while loops and if / case branches on shards,
//                        each block rewritten in a scope of its own, and a loop's summed
//                        accumulators carried as partial sums;
//   partition_sums.cc    fewer exchanges in a finished function: sums moved after reshuffles of
//                        their results, all-reduces over the same devices joined into one.
// Errors are thrown as CompileError and turned into a Status by PartitionModule.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "src/compiler/compile_error.h"
#include "src/compiler/spmd/sharding.h"
#include "src/compiler/spmd/spmd.h"
#include "src/ir/ir.h"
#include "src/ir/printer.h"
#include "src/support/str.h"

namespace openpjrt::compiler::spmd::internal {

using ir::AttrKind;
using ir::Attribute;
using ir::ElemKind;
using ir::OpCode;
using ir::Operation;
using ir::Type;
using ir::Value;

using compiler::internal::CompileError;

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
bool IsElementwise(OpCode c);

// Uses of `v` by the ops of `b` and of the blocks nested in them.
int64_t UsesIn(const Value* v, const ir::Block& b);

// A zero of any float or integer kind: a constant whose bytes are all zero, or a broadcast of one.
bool IsZero(const Value* v);

// An all-reduce of one operand whose combiner adds its two arguments.
bool IsSumAllReduce(const Operation* op);

class Partitioner {
 public:
  static constexpr int64_t kMaxInlinedOps = 1 << 20;

  Partitioner(ir::Module& m, int64_t partitions, int64_t replicas)
      : m_(m), ctx_(*m.ctx), partitions_(partitions), replicas_(replicas) {}

  PartitionInfo info;

  void Run(Operation& entry);

  // The layout of a rank-`rank` value whose dimension r takes dimension src[r] of `from` (-1:
  // whole along r).
  static Layout Mapped(const Layout& from, const std::vector<int>& src);

 private:
  [[noreturn]] void Fail(const Operation& op, absl::StatusCode code, const std::string& msg) {
    compiler::internal::FailAt(m_.source_name, op, code, msg);
  }

  Type I64() { return ctx_.Element(ElemKind::kI64); }
  Type Tensor(const std::vector<int64_t>& dims, Type elem) { return ctx_.Tensor(dims, elem); }

  // ---- building ops ------------------------------------------------------------------------

  Operation* Emit(OpCode code, std::vector<Value*> operands, std::vector<Type> results);

  Value* ConstI64(const std::vector<int64_t>& values, const std::vector<int64_t>& dims);

  Value* PartitionIndex();

  std::vector<int64_t> Dims(Type t) { return std::vector<int64_t>(t.shape().begin(), t.shape().end()); }

  Attribute Groups(const std::vector<std::vector<int64_t>>& groups);

  void MarkCrossPartition(Operation* op);

  // The whole value from a shard: one all-gather per tiled dimension (then, where the tiles are
  // uneven, a slice of `whole`'s shape that drops the last tiles' padding).
  Value* Gather(Value* local, const Layout& layout, const Operation& at, Type whole = Type());

  // The partition's shard of a whole value: dynamic_slice at offsets looked up by partition id
  // (of the value padded with zeros to whole tiles, where they are uneven).
  Value* Slice(Value* whole, const Layout& layout, Type local_type, const Operation& at);

  // Fails unless `local` is the shard type of `whole` under `layout`; uneven tiles (shards of
  // ceil(size / tiles), the last ones padded, as XLA lays them out) only where `uneven` says so.
  void CheckShardType(Type whole, const Layout& layout, Type local, const Operation& at, const std::string& what,
                      bool uneven = false);

  // The shard type: each dimension divided by its tiles, rounded up (uneven tiles are padded).
  static Type ShardType(ir::Context& ctx, Type whole, const Layout& layout);

  // True when a sharded value that `op` (or an op in its nested blocks) reads has uneven tiles:
  // the per-op rules assume even ones, so such an op runs on whole values.
  bool ReadsUneven(const Operation& op) const;

  // The partition's shard of a whole value, made once per (value, layout): a splat constant or a
  // broadcast scalar is rebuilt at the shard's shape, an elementwise op of whole values redone on
  // their shards, a summed all-reduce (or its transpose) reduce-scattered, anything else sliced.
  Value* LocalOf(Value* whole, const Layout& layout, const Operation& at);

  // The shard of `layout` (one tiled dimension) of a value that a summed all-reduce made over
  // exactly the partitions that split that dimension: one reduce_scatter of the all-reduce's
  // operand (the all-reduce goes if nothing else reads it); null otherwise.
  Value* ReduceScatter(Value* whole, const Layout& layout, Type local_type);

  // An elementwise op with a sharded operand runs on shards: every operand is brought to the
  // first sharded operand's layout (sliced when whole) and the result keeps that layout.
  bool TryElementwise(std::unique_ptr<Operation>& holder);


  static std::vector<int> Tiled(const Layout& l);

  static bool Within(const std::vector<int>& dims, const std::vector<int64_t>& allowed);

  // The operand's layout (replicated when whole) and its global type.
  std::pair<Layout, Type> LayoutOf(Value* v);

  // The operand as a shard of `layout`: its own shard when it lies so, moved by one all_to_all
  // when only the tiled dimension changes, else cut from the whole.
  Value* AsLayout(Value* v, const Layout& layout, const Operation& at);

  // `s`'s shard moved to `to` by one all_to_all, when `to` tiles dimension j where `s` tiles i
  // (the same partitions holding tile c of each, everything else alike); null otherwise.
  Value* AllToAll(const Sharded& s, const Layout& to, const Operation& at);

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
    AddCombiner(*ar, combine_op, v->type.element_type());
    return ar->result(0);
  }

  // Gives a collective its reducer region: `combine_op` of two scalars of `elem`.
  void AddCombiner(Operation& op, OpCode combine_op, Type elem) {
    ir::Block* b = op.AddRegion()->AddBlock();
    Type scalar = Tensor({}, elem);
    Value* x = b->AddArgument(scalar);
    Value* y = b->AddArgument(scalar);
    auto combine = std::make_unique<Operation>(combine_op, "", loc_);
    combine->operands = {x, y};
    combine->SetResultTypes({scalar});
    Value* z = b->Append(std::move(combine))->result(0);
    auto ret = std::make_unique<Operation>(OpCode::kReturn, "", loc_);
    ret->operands = {z};
    b->Append(std::move(ret));
  }

  // ---- unreduced axes (partial sums held per partition) -------------------------------------

  // The tiles of `layout` (layout.partials > 1) from the partition's addend `local`: an
  // all-reduce sum (`or` for booleans) over the partitions that hold the same tiles.
  Value* SumPartials(Value* local, const Layout& layout, const Operation& at);

  // The partition's addend of `layout` from its shard `local` of layout.Reduced(): where that
  // shard is an all-reduce sum over exactly the partitions that share its tiles (a product over a
  // split contraction), the all-reduce's operand; else the shard on the first partition of each
  // group and zeros on the others.
  Value* AddendOf(Value* local, const Layout& layout, const Operation& at);

  // Removes the partitioner's all-reduces that nothing reads (those AddendOf bypassed).
  static void DropUnreadSums(ir::Block& b);

  // dot_general on shards. The operand with tiles leads (the left one when both have): the result
  // keeps its batch and free tiles, the other operand is brought to the matching tiles of the
  // batch and contracting dimensions (whole along its free ones), and tiled contracting dimensions
  // give partial products that an all-reduce completes (data-parallel gradients, row-parallel
  // layers). Batch or free tiles alone need no communication.
  bool TryDot(std::unique_ptr<Operation>& holder);

  // The sharded value whose shard is `from` now has its shard in `to`.
  void Retarget(Value* from, Value* to);

  static std::string CallTarget(const Operation& op);

  static std::string GspmdText(const Operation& op);

  // Ops that set a value's layout: sdy.sharding_constraint / sdy.reshard and GSPMD's Sharding
  // custom call (the value takes that layout: cut from the whole when it lies otherwise), and
  // the manual boundary of GSPMD's shard_map, SPMDFullToShardShape (a sharded value becomes its
  // plain shard) and SPMDShardToFullShape (a shard becomes a sharded value of the given layout).
  bool TryReshard(std::unique_ptr<Operation>& holder);

  // True when every tile of `l` is held by the same number of partitions (a layout one can
  // gather and slice by).
  static bool Valid(const Layout& l);

  // broadcast_in_dim of a sharded operand: the tiles follow their dimensions.
  bool TryBroadcast(std::unique_ptr<Operation>& holder);

  // reshape of a sharded value: dimensions are matched in groups of equal size products; within
  // a group only the most major input dimension may be tiled, and its tiles move to the most
  // major output dimension of the group when they divide it.
  bool TryReshape(std::unique_ptr<Operation>& holder);

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
  const Sharded* LeadOf(const Operation& op, size_t n);

  static bool SameShape(Type a, Type b);

  // sort along an untiled dimension: each partition sorts its shards (every operand brought to
  // the first sharded one's layout); the results keep it.
  bool TrySort(std::unique_ptr<Operation>& holder);

  // reduce_window whose tiled dimensions have windows of one (size, stride and dilations 1, no
  // padding: cumulative sums along another dimension, pooling over a tiled batch) or windows that
  // keep the output's tiles aligned with the input's (pooling over tiled rows, "SAME" or valid,
  // strided too: halos as for convolutions, the end tiles' halos the init value).
  bool TryReduceWindow(std::unique_ptr<Operation>& holder);

  // Any reduce (variadic: argmax's pairs) whose reduced dimensions are all untiled runs on the
  // shards; the kept dimensions keep their tiles.
  bool TryReduceKeepingTiles(std::unique_ptr<Operation>& holder);

  // gather from an operand tiled on dimensions it takes whole (not indexed, not collapsed, full
  // slices: an embedding table split over its features): each partition gathers from its shard
  // (tiles on other dimensions are given up first); the result is tiled on the matching offset
  // dimensions.
  bool TryGather(std::unique_ptr<Operation>& holder);

  // scatter into an operand tiled on dimensions the updates' windows cover whole (not indexed,
  // not inserted: an embedding gradient split over features): each partition scatters its
  // updates' shard into its operand's shard. The tiles come from the operand, else the updates;
  // tiles on other dimensions are given up first.
  bool TryScatter(std::unique_ptr<Operation>& holder);

  // gather / scatter with batching dimensions (take_along_axis, its gradient) whose indices are
  // tiled on their batching dimensions only (or whose operand, or updates, are tiled on the
  // dimensions paired with them): each partition gathers from, or scatters into, its own
  // batches; the result is tiled on the batch positions.
  bool TryBatchedGather(std::unique_ptr<Operation>& holder);

  // concatenate along a dimension no operand tiles: every operand is brought to the first tiled
  // one's layout (whole ones cut locally) and the result keeps it.
  bool TryConcatenate(std::unique_ptr<Operation>& holder);
  bool TryBatchedScatter(std::unique_ptr<Operation>& holder);

  // A convolution (no feature or batch groups) whose input is tiled on its batch dimension, on
  // spatial dimensions whose window keeps output and input aligned (stride 1, no input dilation,
  // padding adding up to the window's extent less one: "SAME") or on its features, and whose
  // kernel is tiled on its output or input features (not its window), runs on the shards: each
  // spatial tile takes halos of its neighbours' edge rows (collective_permute; the edge tiles
  // receive zeros, which are the padding) and convolves without padding there; split input
  // features (the operand without tiles there is cut to match) give partial sums that an
  // all-reduce completes. The output takes the input's batch and spatial tiles and the kernel's
  // output-feature tiles.
  bool TryConvolution(std::unique_ptr<Operation>& holder);

  // `local` (a shard of `l`) extended along `dim` by the last `low` rows of the tile before it and
  // the first `high` rows of the tile after it (at the ends zeros, or the scalar `edge`).
  Value* WithHalo(Value* local, const Layout& l, int64_t dim, int64_t low, int64_t high, Value* edge = nullptr);

  // transpose keeps a value's tiles, permuted.
  bool TryTranspose(std::unique_ptr<Operation>& holder);

  // A one-operand reduce whose body is add/max/min/mul/and/or of its arguments: each partition
  // reduces its shard; dimensions reduced across tiles are then combined by an all-reduce.
  bool TryReduce(std::unique_ptr<Operation>& holder);

  // dynamic_slice of a tiled operand whose slice takes every tiled dimension whole (a scan's row
  // of a batch-split array): each partition slices its shard at the same starts (a start along
  // a whole dimension clamps to 0 on the shard as on the whole value); the result keeps the tiles.
  bool TryDynamicSlice(std::unique_ptr<Operation>& holder);

  // dynamic_update_slice whose update covers every tiled dimension whole: each partition updates
  // its shard with its shard of the update. The tiles come from the operand, else the update.
  bool TryDynamicUpdateSlice(std::unique_ptr<Operation>& holder);

  // while with a tiled carried value runs its condition and body on shards (partition_regions.cc):
  // each carried value keeps one layout across iterations, its operand's, or, for a whole
  // operand that the body returns tiled (a state zero-initialised outside a scan), the body's.
  // The body's results are brought to those layouts before the next iteration; the condition's
  // predicate is whole.
  bool TryWhile(std::unique_ptr<Operation>& holder);

  // True when an op in `op`'s nested blocks reads a tiled value defined outside them.
  bool ReadsTiled(const Operation& op) const;

  // A whole carried value that starts at zero and that the (rewritten) body only adds a summed
  // all-reduce to, through transposes or reshapes (a weight gradient accumulated over a scan's
  // steps with a split batch), carries the partial sums instead: the all-reduce is taken out of
  // the body and returned (indexed by the carried value) to run once on the loop's result.
  std::vector<std::unique_ptr<Operation>> DeferSums(const Operation& op, ir::Block& cond, ir::Block& body);

  // transpose(all_reduce(x)) -> all_reduce(transpose(x)), and the same for reshape, where the
  // sum has no other use (the same sums of the same elements): a weight gradient's transpose
  // then joins the product that makes it, and the sums feed the updates directly (so that
  // CombineSums can join them). Over the finished ops of `b` and the blocks nested in them.
  void SumsAfterReshuffles(ir::Block& b);

  // Summed all-reduces the partitioner emitted over the same groups and element type, none of
  // whose results is read before the last of them, become one all-reduce of several operands at
  // the last one's place: one exchange instead of several (a data-parallel step's gradients).
  void CombineSums(ir::Block& b);

  // if / case whose branches return tiled values: each branch runs on shards of the values it
  // uses; a result takes the layout every branch gives it (whole when they differ).
  bool TryBranches(std::unique_ptr<Operation>& holder);

  // The ops of a nested block rewritten in a scope of their own: argument i becomes the shard of
  // a value laid out as arg_layouts[i]; `finish` is called on the terminator (its operands still
  // the block's original values) in the block's context, to bring them to what the op returns.
  // Shards and whole values built inside the block are forgotten on leaving it, so nothing
  // outside refers to them.
  void RewriteRegion(ir::Block& b, const std::vector<Layout>& arg_layouts,
                     const std::function<void(Operation&)>& finish);

  // One op of the block being rewritten: calls inlined (their ops put in front of `work`),
  // manual computations inlined, per-op rules tried, else the op runs on whole values.
  void RewriteOp(std::unique_ptr<Operation> holder, std::deque<std::unique_ptr<Operation>>& work);

  // ---- shardings ---------------------------------------------------------------------------

  const Mesh& MeshOf(const SdySharding& s, const Operation& at);

  Layout LayoutOfSdy(const SdySharding& s, int64_t rank, const Operation& at, const std::vector<std::string>* only);

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
    } catch (const CompileError& e) {
      throw CompileError(e.code, StrCat(e.what(), " (", what, ")"));
    }
    return l;
  }

  // ---- the rewrite -------------------------------------------------------------------------

  Value* Whole(Sharded& s, const Operation& at);

  // Replaces every operand of `op` (and of ops in its regions) that is a sharded value by its whole
  // value, built before `op`.
  void ResolveOperands(Operation& op, const Operation& at);

  // Replaces operands through `map`, following chains (a call inlined into a callee's result).
  static void Substitute(Operation& op, const std::unordered_map<Value*, Value*>& map);

  // #stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]> -> explicit device groups.
  void ResolveMeshAxesGroups(Operation& op);

  static bool IsIdentityReshape(const Operation& op);

  void InlineManual(std::unique_ptr<Operation> holder);

  // A manual computation's in and out shardings and manual axes (INVALID_ARGUMENT when they do
  // not read or do not match its operands and results).
  struct ManualSpec {
    std::vector<SdySharding> ins, outs;
    std::vector<std::string> axes;
  };
  ManualSpec ReadManual(const Operation& op);

  // Moves a manual computation's body ops (all but its terminator) into the block being built,
  // their operands substituted through `args`, nested manual computations inlined within `axes`
  // (the manual axes around them); returns the terminator, its operands substituted.
  Operation* InlineBody(ir::Block& body, std::unordered_map<Value*, Value*>& args, const std::vector<std::string>& axes);

  // Fails (UNIMPLEMENTED, `why`) unless the partitions that would gather each tiled dimension of
  // `l` together agree on `key` (their coordinates along manual axes whose values differ).
  void CheckGatherWithin(const Layout& l, const std::function<std::vector<int64_t>(int64_t)>& key,
                         const Operation& at, const std::string& why);

  // A manual computation inside another one's body (shard_map in shard_map), whose values are
  // the partition's shards along the `enclosing` manual axes and whole along the others: inlined
  // the same way over its own axes, its results gathered back among the partitions that share
  // the enclosing coordinates and recorded in `outer` (the enclosing body's substitutions).
  void InlineNestedManual(std::unique_ptr<Operation> holder, std::unordered_map<Value*, Value*>& outer,
                          const std::vector<std::string>& enclosing);

  void RewriteFunction(Operation& func, bool entry);

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
  std::vector<Sharded*> whole_log_;  // whole values built, undone on leaving a nested block
  // The blocks around the nested block being rewritten, outermost first: where each one's ops go
  // and the sharded values known on entering the next one. A whole value of a sharded value from
  // an enclosing block is gathered there, once, not in every iteration of a loop body.
  struct Frame {
    ir::Block* block;
    std::vector<std::unique_ptr<Operation>>* out;
    std::unordered_set<const Sharded*> known;
  };
  std::vector<Frame> frames_;
  int trials_ = 0;  // > 0 while rewriting copies to read layouts: nothing is put outside them
  int64_t inlined_ops_ = 0;
  static constexpr int kLocalDepth = 8;  // elementwise ops LocalOf redoes on shards, nested
  int local_depth_ = 0;
  ir::Block* block_ = nullptr;
  ir::Loc loc_;
  int64_t next_channel_ = 1 << 20;  // above the channels a program numbers itself
};

}  // namespace openpjrt::compiler::spmd::internal
