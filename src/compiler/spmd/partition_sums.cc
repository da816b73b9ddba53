// Fewer exchanges in a partitioned function (partitioner.h): sums moved after the reshuffles of
// their results and summed all-reduces over the same devices joined into one. Both run on the
// finished ops of a function, after the rewrite; each keeps every value's bits (sums move past
// ops that only move elements, and joined all-reduces add the same operands in the same order).
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/compiler/spmd/partitioner.h"
#include "src/ir/printer.h"
#include "src/support/str.h"

namespace openpjrt::compiler::spmd::internal {

namespace {

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
