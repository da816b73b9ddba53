// See reciprocal.h.
#include "src/compiler/reciprocal.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "src/ir/attributes.h"

namespace openpjrt::compiler {
namespace {

using ir::OpCode;
using ir::Operation;

// The bytes of 1.0 in kind k (little-endian), or empty where the pass leaves k alone: bf16
// among them, whose division XLA:CPU computes in f32 and rounds once (checked against jaxlib).
std::vector<uint8_t> One(ir::ElemKind k) {
  switch (k) {
    case ir::ElemKind::kF16: return {0x00, 0x3c};
    case ir::ElemKind::kF32: return {0x00, 0x00, 0x80, 0x3f};
    case ir::ElemKind::kF64: return {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    default: return {};
  }
}

// A tensor type's element kind; kI1 (left alone) for quantized elements.
ir::ElemKind Kind(ir::Type tensor) {
  const ir::Type e = tensor.element_type();
  return e.IsElement() ? e.elem() : ir::ElemKind::kI1;
}

// The divides of `block` (and the blocks nested in it) by a broadcast_in_dim, rewritten.
void Rewrite(ir::Block& block) {
  for (size_t i = 0; i < block.ops.size(); ++i) {
    Operation& o = *block.ops[i];
    for (const auto& r : o.regions)
      for (const auto& b : r->blocks) Rewrite(*b);
    if (o.code != OpCode::kDivide || o.operands.size() != 2 || o.num_results() != 1) continue;
    const ir::Type t = o.result(0)->type;
    Operation* d = o.operands[1]->def;
    if (!t.IsTensor() || o.operands[1]->type != t || !d || d->code != OpCode::kBroadcastInDim ||
        d->operands.size() != 1 || d->num_results() != 1)
      continue;
    const std::vector<uint8_t> one = One(Kind(t));
    if (one.empty()) continue;
    // one = constant 1, r = one / s, b = broadcast_in_dim(r) as the divisor's, o = x * b
    ir::Value* s = d->operands[0];
    std::unique_ptr<Operation> made[3];
    for (int k = 0; k < 3; ++k) {
      made[k] = std::make_unique<Operation>(k == 0 ? OpCode::kConstant : k == 1 ? OpCode::kDivide : OpCode::kBroadcastInDim,
                                            "", o.loc);
      made[k]->parent = &block;
      made[k]->SetResultTypes({k < 2 ? s->type : t});
    }
    made[0]->SetAttr("value", ir::Attribute::Dense(s->type, std::make_shared<const std::vector<uint8_t>>(one), true));
    made[1]->operands = {made[0]->result(0), s};
    made[2]->operands = {made[1]->result(0)};
    made[2]->attrs = d->attrs;
    o.code = OpCode::kMultiply;
    o.operands[1] = made[2]->result(0);
    block.ops.insert(block.ops.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(std::begin(made)),
                     std::make_move_iterator(std::end(made)));
    i += 3;
  }
}

}  // namespace

void DivideByReciprocals(ir::Operation& func) {
  if (!func.regions.empty() && func.regions[0]->front()) Rewrite(*func.regions[0]->front());
}

}  // namespace openpjrt::compiler
