#include "src/compiler/cse.h"

#include <algorithm>
#include <unordered_map>

namespace openpjrt::compiler {

using ir::OpCode;

namespace {

// Elements of every result of `op`, or -1 when one is not a static tensor.
int64_t LargestResult(const ir::Operation& op) {
  int64_t most = 0;
  for (size_t i = 0; i < op.num_results(); ++i) {
    const ir::Type t = op.result(i)->type;
    if (!t.IsTensor() || !t.HasStaticShape()) return -1;
    int64_t n = 1;
    for (int64_t d : t.shape()) n *= d;
    most = std::max(most, n);
  }
  return most;
}

}  // namespace

bool Reusable(const ir::Operation& op) {
  const OpCode c = op.code;
  auto in = [c](OpCode first, OpCode last) { return c >= first && c <= last; };
  switch (c) {
    case OpCode::kConstant: case OpCode::kChloConstant: case OpCode::kIota: case OpCode::kReduce:
    case OpCode::kDotGeneral: case OpCode::kDot: case OpCode::kGather:
      return true;
    default:
      break;
  }
  // Elementwise and data-movement ops are cheaper to compute again inside the fused runs of their
  // readers (passes.h) than to keep: a shared large result would be written out once for all of
  // them. Small ones (scalars, per-row statistics) are shared.
  const bool cheap = in(OpCode::kAbs, OpCode::kUniformDequantize) ||  // elementwise (map excluded)
                     in(OpCode::kChloAcos, OpCode::kChloBroadcastZeta) || c == OpCode::kChloConstantLike ||
                     c == OpCode::kBroadcastInDim || c == OpCode::kBroadcast || c == OpCode::kReshape ||
                     c == OpCode::kTranspose || c == OpCode::kReverse || c == OpCode::kConcatenate ||
                     c == OpCode::kSlice || c == OpCode::kPad || c == OpCode::kDynamicSlice;
  if (!cheap) return false;
  const int64_t n = LargestResult(op);
  return n >= 0 && n <= kSharedCheapElements;
}

namespace {

bool SameAttributes(const ir::Operation& a, const ir::Operation& b) {
  if (a.attrs.size() != b.attrs.size()) return false;
  for (const auto& [name, value] : a.attrs) {
    ir::Attribute other = b.attr(name);
    if (!other || !(other == value)) return false;
  }
  return true;
}

bool SameOp(const ir::Operation& a, const ir::Operation& b,
            std::unordered_map<const ir::Value*, const ir::Value*>& map);

// Blocks of two regions: arguments of equal types, then ops pairwise equal with operands that
// correspond (block arguments and earlier results of the same position); an operand defined
// outside the region has no counterpart, so such regions are never equal.
bool SameBlock(const ir::Block& a, const ir::Block& b, std::unordered_map<const ir::Value*, const ir::Value*>& map) {
  if (a.args.size() != b.args.size() || a.ops.size() != b.ops.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (a.args[i]->type != b.args[i]->type) return false;
    map[a.args[i].get()] = b.args[i].get();
  }
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const ir::Operation& x = *a.ops[i];
    const ir::Operation& y = *b.ops[i];
    if (x.operands.size() != y.operands.size()) return false;
    for (size_t k = 0; k < x.operands.size(); ++k) {
      auto it = map.find(x.operands[k]);
      if (it == map.end() || it->second != y.operands[k]) return false;
    }
    if (!SameOp(x, y, map)) return false;
    for (size_t r = 0; r < x.num_results(); ++r) map[x.result(r)] = y.result(r);
  }
  return true;
}

bool SameOp(const ir::Operation& a, const ir::Operation& b,
            std::unordered_map<const ir::Value*, const ir::Value*>& map) {
  if (a.code != b.code || a.name() != b.name() || a.num_results() != b.num_results() ||
      a.regions.size() != b.regions.size() || !SameAttributes(a, b))
    return false;
  for (size_t r = 0; r < a.num_results(); ++r)
    if (a.result(r)->type != b.result(r)->type) return false;
  for (size_t r = 0; r < a.regions.size(); ++r) {
    const auto& x = a.regions[r]->blocks;
    const auto& y = b.regions[r]->blocks;
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!SameBlock(*x[i], *y[i], map)) return false;
  }
  return true;
}

}  // namespace

bool SameComputation(const ir::Operation& a, const ir::Operation& b) {
  std::unordered_map<const ir::Value*, const ir::Value*> map;
  return SameOp(a, b, map);
}

uint64_t LoweredOps::Key(const ir::Operation& op, const std::vector<int>& in) {
  // Code, operand slots and result types (types are unique per context: their storage pointers);
  // constants, which have no operands, then spread by type.
  uint64_t h = static_cast<uint64_t>(op.code) * 0x9E3779B97F4A7C15ull;
  for (int s : in) h = (h ^ static_cast<uint64_t>(s)) * 0x100000001B3ull;
  for (size_t i = 0; i < op.num_results(); ++i)
    h = (h ^ reinterpret_cast<uintptr_t>(op.result(i)->type.storage())) * 0x100000001B3ull;
  // Constants, which have no operands, also by their first bytes: a program's many scalar
  // constants of one type would otherwise all be compared with each other.
  if (ir::Attribute v = op.attr("value"); v && v.kind() == ir::AttrKind::kDenseElements && v->data) {
    const size_t n = std::min<size_t>(v->data->size(), 64);
    for (size_t i = 0; i < n; ++i) h = (h ^ (*v->data)[i]) * 0x100000001B3ull;
  }
  return h;
}

const std::vector<int>* LoweredOps::Find(const void* program, const ir::Operation& op, const std::vector<int>& in,
                                         bool quant_as_expressed) const {
  auto p = by_program_.find(program);
  if (p == by_program_.end()) return nullptr;
  auto [first, last] = p->second.equal_range(Key(op, in));
  for (auto it = first; it != last; ++it) {
    const Entry& e = it->second;
    if (e.in == in && e.quant_as_expressed == quant_as_expressed && SameComputation(op, *e.op)) return &e.out;
  }
  return nullptr;
}

void LoweredOps::Add(const void* program, const ir::Operation& op, std::vector<int> in, std::vector<int> out,
                     bool quant_as_expressed) {
  const uint64_t key = Key(op, in);  // before `in` moves into the entry
  by_program_[program].emplace(key, Entry{&op, std::move(in), std::move(out), quant_as_expressed});
}

}  // namespace openpjrt::compiler
