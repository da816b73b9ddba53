// The SPMD rewrite of ops with nested blocks (partitioner.h): while loops and if / case branches
// run on shards. A nested block is rewritten in a scope of its own (RewriteRegion): what it
// builds of values defined outside (their whole value, a shard in another layout) stays inside.
// A loop's zero-initialised accumulators of sums carry partial sums (DeferSums).
#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/compiler/spmd/partitioner.h"
#include "src/support/str.h"

namespace openpjrt::compiler::spmd::internal {

int64_t UsesIn(const Value* v, const ir::Block& b) {
  int64_t n = 0;
  for (const auto& o : b.ops) {
    for (const Value* x : o->operands) n += x == v;
    for (const auto& r : o->regions)
      for (const auto& nb : r->blocks) n += UsesIn(v, *nb);
  }
  return n;
}

bool IsZero(const Value* v) {
  const Operation* d = v->def;
  while (d && d->code == OpCode::kBroadcastInDim && d->operands.size() == 1) d = d->operands[0]->def;
  if (!d || d->code != OpCode::kConstant) return false;
  Attribute a = d->attr("value");
  if (!a || a.kind() != AttrKind::kDenseElements || !a->data) return false;
  for (uint8_t byte : *a->data)
    if (byte != 0) return false;
  return true;
}

bool IsSumAllReduce(const Operation* op) {
  if (!op || op->code != OpCode::kAllReduce || op->regions.size() != 1 || op->operands.size() != 1) return false;
  const ir::Block* b = op->regions[0]->front();
  return b && b->ops.size() == 2 && b->ops[0]->code == OpCode::kAdd;
}

bool Partitioner::ReadsTiled(const Operation& op) const {
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks)
      for (const auto& o : b->ops) {
        for (Value* v : o->operands) {
          auto it = sharded_.find(v);
          if (it != sharded_.end() && !it->second->layout.replicated()) return true;
        }
        if (ReadsTiled(*o)) return true;
      }
  return false;
}

void Partitioner::RewriteRegion(ir::Block& b, const std::vector<Layout>& arg_layouts,
                                const std::function<void(Operation&)>& finish) {
  ir::Block* outer_block = block_;
  std::vector<std::unique_ptr<Operation>> outer_out = std::move(out_);
  out_.clear();
  auto outer_cache = local_cache_;
  const size_t outer_wholes = whole_log_.size();
  const ir::Loc outer_loc = loc_;
  Frame frame{outer_block, &outer_out, {}};
  for (const auto& [v, sh] : sharded_) frame.known.insert(sh.get());
  frames_.push_back(std::move(frame));
  block_ = &b;

  // Tiled arguments hold their shard; the whole value each stood for gets a stand-in that the
  // block's ops name instead (as the entry function's arguments do).
  std::unordered_map<Value*, Value*> wholes;
  for (size_t i = 0; i < b.args.size() && i < arg_layouts.size(); ++i) {
    if (arg_layouts[i].replicated()) continue;
    Value* a = b.args[i].get();
    placeholders_.push_back(std::make_unique<Value>());
    Value* whole = placeholders_.back().get();
    whole->type = a->type;
    auto s = std::make_shared<Sharded>();
    s->global_type = a->type;
    s->layout = arg_layouts[i];
    a->type = ShardType(ctx_, a->type, arg_layouts[i]);
    s->local = a;
    sharded_[whole] = s;
    wholes[a] = whole;
  }
  if (!wholes.empty())
    for (const auto& o : b.ops) Substitute(*o, wholes);

  Operation* term = b.terminator();
  std::deque<std::unique_ptr<Operation>> work;
  for (auto& o : b.ops) work.push_back(std::move(o));
  b.ops.clear();
  while (!work.empty()) {
    std::unique_ptr<Operation> holder = std::move(work.front());
    work.pop_front();
    if (holder.get() == term) {
      loc_ = term->loc;
      if (!alias_.empty()) Substitute(*term, alias_);
      finish(*term);
      out_.push_back(std::move(holder));
      continue;
    }
    RewriteOp(std::move(holder), work);
  }
  for (auto& o : out_) o->parent = &b;
  b.ops = std::move(out_);

  frames_.pop_back();
  out_ = std::move(outer_out);
  block_ = outer_block;
  local_cache_ = std::move(outer_cache);
  for (size_t k = outer_wholes; k < whole_log_.size(); ++k) whole_log_[k]->whole = nullptr;
  whole_log_.resize(outer_wholes);
  loc_ = outer_loc;
}

bool Partitioner::TryWhile(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  if (op.code != OpCode::kWhile || op.regions.size() != 2) return false;
  ir::Block* cond = op.regions[0]->front();
  ir::Block* body = op.regions[1]->front();
  const size_t n = op.operands.size();
  if (!cond || !body || cond->args.size() != n || body->args.size() != n || op.num_results() != n ||
      !body->terminator() || body->terminator()->operands.size() != n || !cond->terminator())
    return false;
  std::vector<Layout> layouts;
  bool tiled = false;
  for (Value* v : op.operands) {
    auto [l, t] = LayoutOf(v);
    if (!t.IsTensor() || !t.HasStaticShape()) return false;
    tiled |= !l.replicated();
    layouts.push_back(l);
  }
  // A loop that carries only whole values runs on shards too when its blocks read tiled values
  // defined outside it (a body's captured operands).
  if (!tiled) tiled = ReadsTiled(op);
  if (!tiled) return false;

  // A carried value that enters whole but leaves the body tiled (a scan's state or output
  // buffer, initialised outside) takes the body's layout: the body is rewritten on a copy with
  // the layouts so far and what it returns is read, until nothing changes.
  for (int round = 0; round < 4; ++round) {
    std::unordered_map<const Value*, Value*> map;
    std::unique_ptr<Operation> trial = ir::CloneOperation(op, map);
    std::vector<Layout> returned(n);
    ++trials_;
    RewriteRegion(*trial->regions[1]->front(), layouts, [&](Operation& term) {
      for (size_t i = 0; i < n; ++i) returned[i] = LayoutOf(term.operands[i]).first;
    });
    --trials_;
    graveyard_.push_back(std::move(trial));  // its values stay map keys
    bool grew = false;
    for (size_t i = 0; i < n; ++i) {
      if (!layouts[i].replicated() || returned[i].replicated() || !Valid(returned[i])) continue;
      const Type t = op.operands[i]->type;
      bool even = returned[i].tiles.size() == static_cast<size_t>(t.rank());
      for (int64_t d = 0; even && d < t.rank(); ++d) even = t.shape()[d] % returned[i].tiles[d] == 0;
      if (!even) continue;
      layouts[i] = returned[i];
      grew = true;
    }
    if (!grew) break;
  }

  std::vector<Value*> operands;
  std::vector<Type> local_types;
  for (size_t i = 0; i < n; ++i) {
    operands.push_back(AsLayout(op.operands[i], layouts[i], op));
    local_types.push_back(operands.back()->type);
  }
  RewriteRegion(*cond, layouts, [&](Operation& term) {
    for (Value*& v : term.operands) v = AsLayout(v, Layout::Replicated(v->type.IsTensor() ? v->type.rank() : 0, partitions_), term);
  });
  RewriteRegion(*body, layouts, [&](Operation& term) {
    for (size_t i = 0; i < n; ++i) term.operands[i] = AsLayout(term.operands[i], layouts[i], term);
  });
  std::vector<std::unique_ptr<Operation>> deferred = DeferSums(op, *cond, *body);
  Operation* loop = ReemitAll(holder, operands, local_types, layouts);
  for (size_t i = 0; i < n; ++i) {
    if (!deferred[i]) continue;
    Operation* ar = deferred[i].get();
    ar->operands = {loop->result(i)};
    ar->result(0)->type = loop->result(i)->type;
    ar->parent = block_;
    MarkCrossPartition(ar);
    Value* total = ar->result(0);
    out_.push_back(std::move(deferred[i]));
    // The loop's result i now stands for the all-reduced total.
    for (auto& [v, sh] : sharded_)
      if (sh->local == loop->result(i)) sh->local = sh->whole = total;
  }
  return true;
}

std::vector<std::unique_ptr<Operation>> Partitioner::DeferSums(const Operation& op, ir::Block& cond, ir::Block& body) {
  const size_t n = op.operands.size();
  std::vector<std::unique_ptr<Operation>> deferred(n);
  Operation* term = body.terminator();
  for (size_t i = 0; i < n; ++i) {
    Value* arg = body.args[i].get();
    Operation* add = term->operands[i]->def;
    if (!add || add->code != OpCode::kAdd || add->parent != &body || add->operands.size() != 2) continue;
    const int k = add->operands[0] == arg ? 0 : add->operands[1] == arg ? 1 : -1;
    if (k < 0 || UsesIn(arg, body) != 1 || UsesIn(cond.args[i].get(), cond) != 0 || !IsZero(op.operands[i]) ||
        UsesIn(term->operands[i], body) != 1)
      continue;
    // add(acc, f(all_reduce(x))) where f is transposes and reshapes used once each.
    Operation* user = add;
    Value* v = add->operands[1 - k];
    while (v->def && v->def->parent == &body && UsesIn(v, body) == 1 &&
           (v->def->code == OpCode::kTranspose || v->def->code == OpCode::kReshape)) {
      user = v->def;
      v = v->def->operands[0];
    }
    Operation* ar = v->def;
    if (!IsSumAllReduce(ar) || ar->parent != &body || UsesIn(v, body) != 1) continue;
    for (Value*& x : user->operands)
      if (x == v) x = ar->operands[0];
    for (auto it = body.ops.begin(); it != body.ops.end(); ++it)
      if (it->get() == ar) {
        deferred[i] = std::move(*it);
        body.ops.erase(it);
        break;
      }
  }
  return deferred;
}

bool Partitioner::TryBranches(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  if ((op.code != OpCode::kIf && op.code != OpCode::kCase) || op.operands.size() != 1 || op.regions.empty())
    return false;
  const size_t n = op.num_results();
  for (size_t i = 0; i < n; ++i)
    if (!op.result(i)->type.IsTensor() || !op.result(i)->type.HasStaticShape()) return false;
  for (const auto& r : op.regions) {
    ir::Block* b = r->front();
    if (!b || !b->args.empty() || !b->terminator() || b->terminator()->operands.size() != n) return false;
  }
  // Each result takes the first tiled layout a branch gives it (read from a rewrite of copies):
  // a branch returning a whole value then cuts its shard without communicating, and only one
  // returning another tiled layout reshards.
  std::vector<Layout> layouts;
  for (size_t i = 0; i < n; ++i) layouts.push_back(Layout::Replicated(op.result(i)->type.rank(), partitions_));
  bool tiled = false;
  for (size_t k = 0; k < op.regions.size(); ++k) {
    std::unordered_map<const Value*, Value*> map;
    std::unique_ptr<Operation> trial = ir::CloneOperation(op, map);
    ++trials_;
    RewriteRegion(*trial->regions[k]->front(), {}, [&](Operation& term) {
      for (size_t i = 0; i < n; ++i) {
        Layout l = LayoutOf(term.operands[i]).first;
        if (layouts[i].replicated() && !l.replicated() && Valid(l)) layouts[i] = l;
      }
    });
    --trials_;
    graveyard_.push_back(std::move(trial));
  }
  for (const Layout& l : layouts) tiled |= !l.replicated();
  if (!tiled) return false;
  std::vector<Value*> operands = {AsLayout(op.operands[0], Layout::Replicated(op.operands[0]->type.rank(), partitions_), op)};
  std::vector<Type> local_types;
  for (size_t i = 0; i < n; ++i) local_types.push_back(ShardType(ctx_, op.result(i)->type, layouts[i]));
  for (const auto& r : op.regions)
    RewriteRegion(*r->front(), {}, [&](Operation& term) {
      for (size_t i = 0; i < n; ++i) term.operands[i] = AsLayout(term.operands[i], layouts[i], term);
    });
  ReemitAll(holder, operands, local_types, layouts);
  return true;
}

}  // namespace openpjrt::compiler::spmd::internal
