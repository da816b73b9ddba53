// The SPMD rewrite (see spmd.h): the driver of the partitioner (partitioner.h).
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

void Partitioner::Run(Operation& entry) {
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

Value* Partitioner::Whole(Sharded& s, const Operation& at) {
  if (s.whole) return s.whole;
  // A value from an enclosing block is gathered in the block that made it (before the op whose
  // nested block is being rewritten), except while rewriting a trial copy.
  size_t level = frames_.size();
  if (trials_ == 0)
    for (size_t k = 0; k < frames_.size() && level == frames_.size(); ++k)
      if (frames_[k].known.count(&s)) level = k;
  if (level < frames_.size()) {
    std::swap(out_, *frames_[level].out);
    std::swap(block_, frames_[level].block);
    s.whole = Gather(s.local, s.layout, at, s.global_type);
    std::swap(block_, frames_[level].block);
    std::swap(out_, *frames_[level].out);
  } else {
    s.whole = Gather(s.local, s.layout, at, s.global_type);
  }
  whole_log_.push_back(&s);
  return s.whole;
}

void Partitioner::ResolveOperands(Operation& op, const Operation& at) {
  for (Value*& v : op.operands) {
    auto it = sharded_.find(v);
    if (it != sharded_.end()) v = Whole(*it->second, at);
  }
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks)
      for (const auto& o : b->ops) ResolveOperands(*o, at);
}

void Partitioner::Substitute(Operation& op, const std::unordered_map<Value*, Value*>& map) {
  for (Value*& v : op.operands) {
    for (auto it = map.find(v); it != map.end(); it = map.find(v)) v = it->second;
  }
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks)
      for (const auto& o : b->ops) Substitute(*o, map);
}

void Partitioner::ResolveMeshAxesGroups(Operation& op) {
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

bool Partitioner::IsIdentityReshape(const Operation& op) {
  return op.code == OpCode::kReshape && op.operands.size() == 1 && op.num_results() == 1 &&
         op.operands[0]->type == op.result(0)->type;
}

Partitioner::ManualSpec Partitioner::ReadManual(const Operation& op) {
  auto shardings_of = [&](const char* key) {
    Attribute a = op.attr(key);
    auto parsed = ParseSdyShardingPerValue(a.kind() == AttrKind::kOpaque ? a->str : ir::PrintAttribute(a));
    if (!parsed.ok()) Fail(op, absl::StatusCode::kInvalidArgument, std::string(parsed.status().message()));
    return *parsed;
  };
  ManualSpec m{shardings_of("in_shardings"), shardings_of("out_shardings"), {}};
  Attribute axes_attr = op.attr("manual_axes");
  auto axes = ParseManualAxes(axes_attr.kind() == AttrKind::kOpaque ? axes_attr->str : ir::PrintAttribute(axes_attr));
  if (!axes.ok()) Fail(op, absl::StatusCode::kInvalidArgument, std::string(axes.status().message()));
  m.axes = *axes;
  const ir::Block& body = *op.regions[0]->front();
  if (m.ins.size() != op.operands.size() || m.outs.size() != op.num_results() || body.args.size() != op.operands.size())
    Fail(op, absl::StatusCode::kInvalidArgument,
         StrCat("has ", m.ins.size(), " in_shardings for ", op.operands.size(), " operands and ", m.outs.size(),
                " out_shardings for ", op.num_results(), " results"));
  return m;
}

Operation* Partitioner::InlineBody(ir::Block& body, std::unordered_map<Value*, Value*>& args,
                                   const std::vector<std::string>& axes) {
  Operation* ret = body.terminator();
  for (auto& inner : body.ops) {
    if (inner.get() == ret) break;
    if (inner->code == OpCode::kSdyManualComputation) {
      InlineNestedManual(std::move(inner), args, axes);
      continue;
    }
    Substitute(*inner, args);
    ResolveMeshAxesGroups(*inner);
    inner->parent = block_;
    out_.push_back(std::move(inner));
  }
  Substitute(*ret, args);
  return ret;
}

void Partitioner::CheckGatherWithin(const Layout& l, const std::function<std::vector<int64_t>(int64_t)>& key,
                                    const Operation& at, const std::string& why) {
  std::vector<bool> pending(l.tiles.size());
  for (size_t d = 0; d < pending.size(); ++d) pending[d] = l.tiles[d] > 1;
  for (size_t d = 0; d < pending.size(); ++d) {
    if (!pending[d]) continue;
    auto groups = GatherGroups(l, static_cast<int>(d), pending);
    if (!groups.ok()) Fail(at, groups.status().code(), std::string(groups.status().message()));
    for (const auto& g : *groups)
      for (int64_t member : g)
        if (key(member) != key(g.front())) Fail(at, absl::StatusCode::kUnimplemented, why);
    pending[d] = false;
  }
}

void Partitioner::InlineManual(std::unique_ptr<Operation> holder) {
  Operation& op = *holder;
  const ManualSpec spec = ReadManual(op);
  const std::vector<SdySharding>& ins = spec.ins;
  const std::vector<SdySharding>& outs = spec.outs;
  const std::vector<std::string>* axes = &spec.axes;
  ir::Block& body = *op.regions[0]->front();
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
  Operation* ret = InlineBody(body, args, *axes);
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

void Partitioner::InlineNestedManual(std::unique_ptr<Operation> holder, std::unordered_map<Value*, Value*>& outer,
                                     const std::vector<std::string>& enclosing) {
  Operation& op = *holder;
  Substitute(op, outer);  // its operands (and values its body captures) as the enclosing body has them
  const ManualSpec spec = ReadManual(op);
  const std::vector<SdySharding>& ins = spec.ins;
  const std::vector<SdySharding>& outs = spec.outs;
  const std::vector<std::string>* axes = &spec.axes;
  for (const std::string& a : *axes)
    if (std::find(enclosing.begin(), enclosing.end(), a) != enclosing.end())
      Fail(op, absl::StatusCode::kInvalidArgument, StrCat("axis \"", a, "\" is manual in an enclosing manual computation already"));
  ir::Block& body = *op.regions[0]->front();
  // Each partition cuts its shard (along this computation's axes) of the value it holds (its
  // shard along the enclosing computations' axes).
  std::unordered_map<Value*, Value*> args;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    Value* v = op.operands[i];
    Layout l = LayoutOfSdy(ins[i], v->type.rank(), op, &*axes);
    Type local_type = body.args[i]->type;
    CheckShardType(v->type, l, local_type, op, StrCat("operand #", i));
    args[body.args[i].get()] = Slice(v, l, local_type, op);
  }
  std::vector<std::string> all = enclosing;
  all.insert(all.end(), axes->begin(), axes->end());
  Operation* ret = InlineBody(body, args, all);
  // The results put back together along this computation's axes, among the partitions that
  // share their coordinates along the enclosing ones (whose values differ).
  for (size_t j = 0; j < op.num_results(); ++j) {
    Value* local = ret->operands[j];
    Type whole_type = op.result(j)->type;
    Layout l = LayoutOfSdy(outs[j], whole_type.rank(), op, &*axes);
    CheckShardType(whole_type, l, local->type, op, StrCat("result #", j));
    if (!l.replicated()) {
      const Mesh& mesh = MeshOf(outs[j], op);
      auto outer_coords = [&](int64_t device) {
        std::vector<int64_t> c;
        const auto at = std::find(mesh.device_ids.begin(), mesh.device_ids.end(), device);
        const int64_t pos = at - mesh.device_ids.begin();
        for (const std::string& a : enclosing)
          if (const int axis = mesh.AxisIndex(a); axis >= 0 && at != mesh.device_ids.end()) c.push_back(mesh.Coord(pos, axis));
        return c;
      };
      CheckGatherWithin(l, outer_coords, op,
                        "gathering this nested manual computation's result would mix partitions of different "
                        "enclosing shards (a mesh whose device order this partitioner does not follow)");
    }
    outer[op.result(j)] = l.replicated() ? local : Gather(local, l, op, whole_type);
  }
  graveyard_.push_back(std::move(holder));
}

void Partitioner::RewriteFunction(Operation& func, bool entry) {
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
      info.params.push_back(l);
      if (l.replicated()) continue;
      auto s = std::make_shared<Sharded>();
      s->global_type = a->type;
      s->layout = l;
      // The argument now holds the shard; the whole value it stood for gets a stand-in that
      // the body's uses name instead.
      placeholders_.push_back(std::make_unique<Value>());
      Value* whole = placeholders_.back().get();
      whole->type = a->type;
      arg_wholes[a] = whole;
      a->type = ShardType(ctx_, a->type, l);
      inputs[i] = a->type;
      s->local = a;
      if (l.partials > 1) {
        // Addends of unreduced axes are summed on arrival: the program reads the value they make.
        s->local = SumPartials(a, l, func);
        s->layout = l.Reduced();
        if (s->layout.replicated()) s->whole = s->local;
      }
      sharded_[whole] = s;
      changed = true;
    }
    if (!arg_wholes.empty())
      for (const auto& o : body.ops) Substitute(*o, arg_wholes);
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
  inlined_ops_ = 0;
  while (!work.empty()) {
    std::unique_ptr<Operation> holder = std::move(work.front());
    work.pop_front();
    Operation& op = *holder;
    if (entry && op.code == OpCode::kFuncReturn) {
      loc_ = op.loc;
      if (!alias_.empty()) Substitute(op, alias_);
      for (size_t i = 0; i < op.operands.size(); ++i) {
        Value* v = op.operands[i];
        auto it = sharded_.find(v);
        // A result with no sharding of its own leaves as its value lies.
        if (!result_specified[i] && it != sharded_.end()) result_layouts[i] = it->second->layout;
        const Layout& want = result_layouts[i];
        const Layout tiles = want.Reduced();  // an unreduced result: the addends of these tiles
        if (!tiles.replicated() && it != sharded_.end() && it->second->layout == tiles) {
          op.operands[i] = it->second->local;
        } else {
          Value* whole = it != sharded_.end() ? Whole(*it->second, op) : v;
          op.operands[i] = tiles.replicated() ? whole : Slice(whole, tiles, ShardType(ctx_, results[i], tiles), op);
        }
        if (want.partials > 1) op.operands[i] = AddendOf(op.operands[i], want, op);
        results[i] = op.operands[i]->type;
      }
      info.results = result_layouts;
      out_.push_back(std::move(holder));
      continue;
    }
    if (op.code == OpCode::kSdyManualComputation) changed = true;
    RewriteOp(std::move(holder), work);
  }
  body.ops = std::move(out_);
  out_.clear();
  DropUnreadSums(body);
  SumsAfterReshuffles(body);
  CombineSums(body);
  if (changed)
    func.SetAttr("function_type", Attribute::TypeAttr(ctx_.Function(inputs, results)));
}

void Partitioner::RewriteOp(std::unique_ptr<Operation> holder, std::deque<std::unique_ptr<Operation>>& work) {
  Operation& op = *holder;
  loc_ = op.loc;
  if (!alias_.empty()) Substitute(op, alias_);
  // Calls are inlined so that sharded values flow through the callee's ops.
  if (op.code == OpCode::kFuncCall && inlined_ops_ < kMaxInlinedOps) {
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
      inlined_ops_ += static_cast<int64_t>(copies.size());
      for (auto it = copies.rbegin(); it != copies.rend(); ++it) work.push_front(std::move(*it));
      graveyard_.push_back(std::move(holder));
      return;
    }
  }
  if (op.code == OpCode::kSdyManualComputation) {
    InlineManual(std::move(holder));
    return;
  }
  if (IsIdentityReshape(op)) {
    auto it = sharded_.find(op.operands[0]);
    if (it != sharded_.end()) {
      sharded_[op.result(0)] = it->second;
      graveyard_.push_back(std::move(holder));
      return;
    }
  }
  if (TryReshard(holder)) return;
  // Elementwise ops run on uneven shards too (the padding computes values nobody reads); the
  // other rules assume even tiles.
  if (TryElementwise(holder)) return;
  if (ReadsUneven(op)) {
    ResolveOperands(op, op);
    out_.push_back(std::move(holder));
    return;
  }
  if (TryDot(holder) || TryTranspose(holder) || TryReduce(holder) ||
      TryReduceKeepingTiles(holder) || TryBroadcast(holder) || TryReshape(holder) || TrySort(holder) ||
      TryReduceWindow(holder) || TryConvolution(holder) || TryBatchedGather(holder) || TryBatchedScatter(holder) ||
      TryConcatenate(holder) ||
      TryGather(holder) || TryScatter(holder) ||
      TryDynamicSlice(holder) || TryDynamicUpdateSlice(holder) || TryWhile(holder) || TryBranches(holder))
    return;
  ResolveOperands(op, op);
  out_.push_back(std::move(holder));
}

bool Partitioner::ReadsUneven(const Operation& op) const {
  for (Value* v : op.operands) {
    auto it = sharded_.find(v);
    if (it == sharded_.end()) continue;
    const Sharded& s = *it->second;
    for (int64_t d = 0; d < s.global_type.rank(); ++d)
      if (s.global_type.shape()[d] % s.layout.tiles[d] != 0) return true;
  }
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks)
      for (const auto& o : b->ops)
        if (ReadsUneven(*o)) return true;
  return false;
}

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

}  // namespace openpjrt::compiler::spmd::internal

namespace openpjrt::compiler::spmd {

absl::Status PartitionModule(ir::Module& module, ir::Operation& entry, int64_t num_partitions, int64_t num_replicas,
                             PartitionInfo* info) {
  if (num_partitions <= 1 || !internal::NeedsPartitioning(*module.op)) return absl::OkStatus();
  try {
    internal::Partitioner p(module, num_partitions, std::max<int64_t>(num_replicas, 1));
    p.Run(entry);
    if (info) *info = std::move(p.info);
  } catch (const internal::CompileError& e) {
    return absl::Status(e.code, e.what());
  }
  return absl::OkStatus();
}

}  // namespace openpjrt::compiler::spmd

