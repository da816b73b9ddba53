// The SPMD rewrite of ops with nested blocks (partitioner.h): while loops and if / case branches
// run on shards. A nested block is rewritten in a scope of its own (RewriteRegion): what it
// builds of values defined outside (their whole value, a shard in another layout) stays inside.
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

namespace {

// Uses of `v` by the ops of `b` and of their nested blocks.
int64_t UsesIn(const Value* v, const ir::Block& b) {
  int64_t n = 0;
  for (const auto& o : b.ops) {
    for (const Value* x : o->operands) n += x == v;
    for (const auto& r : o->regions)
      for (const auto& nb : r->blocks) n += UsesIn(v, *nb);
  }
  return n;
}

// A zero of any float or integer kind: a constant whose bytes are all zero, or a broadcast of one.
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

// An all-reduce whose combiner adds its two arguments.
bool IsSumAllReduce(const Operation* op) {
  if (!op || op->code != OpCode::kAllReduce || op->regions.size() != 1 || op->operands.size() != 1) return false;
  const ir::Block* b = op->regions[0]->front();
  return b && b->ops.size() == 2 && b->ops[0]->code == OpCode::kAdd;
}

// An op that moves elements without combining them: transpose, reshape, or an add-reduce with a
// zero init over dimensions of size 1 (the shape a bias gradient takes in JAX's backward pass).
bool IsReshuffle(const Operation& op) {
  if ((op.code == OpCode::kTranspose || op.code == OpCode::kReshape) && op.operands.size() == 1) return true;
  if (op.code != OpCode::kReduce || op.operands.size() != 2 || op.num_results() != 1 || op.regions.size() != 1)
    return false;
  const ir::Block* body = op.regions[0]->front();
  std::vector<int64_t> dims;
  if (!body || body->ops.size() != 2 || body->ops[0]->code != OpCode::kAdd || !IsZero(op.operands[1]) ||
      !ir::GetI64List(op.attr("dimensions"), &dims))
    return false;
  const Type t = op.operands[0]->type;
  for (int64_t d : dims)
    if (d < 0 || d >= t.rank() || t.shape()[d] != 1) return false;
  return true;
}

}  // namespace

void Partitioner::RewriteRegion(ir::Block& b, const std::vector<Layout>& arg_layouts,
                                const std::function<void(Operation&)>& finish) {
  ir::Block* outer_block = block_;
  std::vector<std::unique_ptr<Operation>> outer_out = std::move(out_);
  out_.clear();
  auto outer_cache = local_cache_;
  const size_t outer_wholes = whole_log_.size();
  const ir::Loc outer_loc = loc_;
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
  if (!tiled) return false;

  // A carried value that enters whole but leaves the body tiled (a scan's state or output
  // buffer, initialised outside) takes the body's layout: the body is rewritten on a copy with
  // the layouts so far and what it returns is read, until nothing changes.
  for (int round = 0; round < 4; ++round) {
    std::unordered_map<const Value*, Value*> map;
    std::unique_ptr<Operation> trial = ir::CloneOperation(op, map);
    std::vector<Layout> returned(n);
    RewriteRegion(*trial->regions[1]->front(), layouts, [&](Operation& term) {
      for (size_t i = 0; i < n; ++i) returned[i] = LayoutOf(term.operands[i]).first;
    });
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
    RewriteRegion(*trial->regions[k]->front(), {}, [&](Operation& term) {
      for (size_t i = 0; i < n; ++i) {
        Layout l = LayoutOf(term.operands[i]).first;
        if (layouts[i].replicated() && !l.replicated() && Valid(l)) layouts[i] = l;
      }
    });
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

void Partitioner::SumsAfterReshuffles(ir::Block& b) {
  for (size_t j = 0; j < b.ops.size(); ++j) {
    Operation* t = b.ops[j].get();
    for (const auto& r : t->regions)
      for (const auto& nb : r->blocks) SumsAfterReshuffles(*nb);
    if (!IsReshuffle(*t)) continue;
    Operation* ar = t->operands[0]->def;
    if (!IsSumAllReduce(ar) || ar->parent != &b || UsesIn(ar->result(0), b) != 1) continue;
    size_t i = 0;
    while (i < j && b.ops[i].get() != ar) ++i;
    if (i == j) continue;
    t->operands[0] = ar->operands[0];
    ar->operands[0] = t->result(0);
    ar->result(0)->type = t->result(0)->type;
    const std::unordered_map<Value*, Value*> uses = {{t->result(0), ar->result(0)}};
    for (size_t k = j + 1; k < b.ops.size(); ++k) Substitute(*b.ops[k], uses);
    // The all-reduce moves from before the transpose to right after it.
    std::unique_ptr<Operation> moved = std::move(b.ops[i]);
    b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
    b.ops.insert(b.ops.begin() + static_cast<std::ptrdiff_t>(j), std::move(moved));
  }
}

namespace {

// Marks in `first` the index (in the top-level block) of the first op that reads each value,
// reads in nested blocks counting for the op that holds them.
void FirstReads(const ir::Block& b, size_t at, std::unordered_map<const Value*, size_t>& first) {
  for (const auto& o : b.ops) {
    for (const Value* v : o->operands) first.emplace(v, at);
    for (const auto& r : o->regions)
      for (const auto& nb : r->blocks) FirstReads(*nb, at, first);
  }
}

// A summed all-reduce that the partitioner emitted (its channels start at 1 << 20), keyed by
// what must agree for two of them to become one: element type, groups and flags.
std::string CombineKey(const Operation& op) {
  if (!IsSumAllReduce(&op) || op.num_results() != 1) return "";
  Attribute ch = op.attr("channel_handle");
  int64_t handle = 0;
  if (!ch || ch.kind() != AttrKind::kStruct || !ir::GetInt(ch.Field("handle"), &handle) || handle < (1 << 20))
    return "";
  Attribute rg = op.attr("replica_groups");
  return StrCat(op.result(0)->type.element_type().ToString(), "|", rg ? ir::PrintAttribute(rg) : "", "|",
                static_cast<bool>(op.attr("use_global_device_ids")));
}

}  // namespace

void Partitioner::CombineSums(ir::Block& b) {
  std::unordered_map<const Value*, size_t> first;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    for (const Value* v : b.ops[i]->operands) first.emplace(v, i);
    for (const auto& r : b.ops[i]->regions)
      for (const auto& nb : r->blocks) FirstReads(*nb, i, first);
  }
  auto read_at = [&](const Operation* op) {
    auto it = first.find(op->result(0));
    return it == first.end() ? b.ops.size() : it->second;
  };
  // Groups of all-reduces with one key, each member's result unread until the group's last
  // member: they can all wait for it and run as one.
  std::vector<std::vector<size_t>> groups;
  std::vector<size_t> open;
  std::string open_key;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const std::string key = CombineKey(*b.ops[i]);
    if (key.empty()) continue;
    bool fits = key == open_key;
    for (size_t g : open) fits = fits && read_at(b.ops[g].get()) > i;
    if (!fits) {
      if (open.size() > 1) groups.push_back(open);
      open.clear();
      open_key = key;
    }
    open.push_back(i);
  }
  if (open.size() > 1) groups.push_back(open);
  if (groups.empty()) return;
  std::unordered_map<Value*, Value*> renamed;
  std::vector<bool> dropped(b.ops.size(), false);
  std::vector<std::unique_ptr<Operation>> combined(b.ops.size());
  for (const auto& g : groups) {
    const Operation& lead = *b.ops[g[0]];
    auto c = std::make_unique<Operation>(OpCode::kAllReduce, lead.name(), lead.loc);
    c->attrs = lead.attrs;
    std::vector<Type> types;
    for (size_t i : g) {
      c->operands.push_back(b.ops[i]->operands[0]);
      types.push_back(b.ops[i]->result(0)->type);
    }
    c->SetResultTypes(types);
    std::unordered_map<const Value*, Value*> map;
    std::unique_ptr<Operation> region_copy = ir::CloneOperation(lead, map);
    c->regions = std::move(region_copy->regions);
    for (const auto& r : c->regions) r->parent = c.get();
    c->parent = &b;
    for (size_t k = 0; k < g.size(); ++k) {
      renamed[b.ops[g[k]]->result(0)] = c->result(k);
      dropped[g[k]] = true;
    }
    combined[g.back()] = std::move(c);
  }
  std::vector<std::unique_ptr<Operation>> ops;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    if (combined[i]) ops.push_back(std::move(combined[i]));
    if (dropped[i]) {
      graveyard_.push_back(std::move(b.ops[i]));
    } else {
      ops.push_back(std::move(b.ops[i]));
    }
  }
  for (auto& o : ops) Substitute(*o, renamed);
  b.ops = std::move(ops);
}

}  // namespace openpjrt::compiler::spmd::internal
