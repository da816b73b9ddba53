// The lowering of StableHLO's deprecated ops onto the kernels of their modern forms: einsum
// (sums over labels only one operand has, a dot_general, a transpose), unary_einsum (a sum and a
// transpose) and torch_index_select (a gather with batching dimensions).
#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "src/compiler/lowerer.h"
#include "src/cpu/kernels_indexing.h"

namespace openpjrt::compiler::internal {
namespace {

// The labels of one einsum term; false for anything but letters.
bool Labels(std::string_view term, std::string* out) {
  out->clear();
  for (char ch : term) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) return false;
    out->push_back(ch);
  }
  return true;
}

}  // namespace

void Lowerer::LowerLegacy(const Operation& op, Env& env, Program& prog) {
  const ArrayType result = ToArrayType(op, op.result(0)->type);
  auto invalid = [&](const std::string& msg) { Fail(op, absl::StatusCode::kInvalidArgument, msg); };
  if (op.code == OpCode::kTorchIndexSelect) {
    // result = operand[:dim] ++ index[batch_dims:] ++ operand[dim + 1:], the first batch_dims
    // dimensions shared: a gather of one element along dim per index, batching the leading ones.
    const ArrayType operand = ToArrayType(op, op.operands[0]->type), index = ToArrayType(op, op.operands[1]->type);
    int64_t dim = Int(op, "dim", 0), batch = Int(op, "batch_dims", 0);
    if (dim < 0) dim += operand.rank();
    if (batch < 0) batch += index.rank();
    if (!ir::IsInteger(index.elem) || index.elem == ElemKind::kI1)
      invalid(StrCat("index must be an integer tensor, got ", index.ToString()));
    if (dim < 0 || dim >= operand.rank() || batch < 0 || batch > dim || batch > index.rank())
      invalid(StrCat("dim ", Int(op, "dim", 0), " and batch_dims ", Int(op, "batch_dims", 0), " do not fit operand ",
                     operand.ToString(), " and index ", index.ToString()));
    std::vector<int64_t> want(operand.dims.begin(), operand.dims.begin() + dim);
    want.insert(want.end(), index.dims.begin() + batch, index.dims.end());
    want.insert(want.end(), operand.dims.begin() + dim + 1, operand.dims.end());
    for (int64_t d = 0; d < batch; ++d)
      if (operand.dims[d] != index.dims[d]) invalid(StrCat("batch dimension ", d, " differs between operand and index"));
    if (want != result.dims || result.elem != operand.elem)
      invalid(StrCat("result must be ", ArrayType{operand.elem, want}.ToString(), ", got ", result.ToString()));
    auto p = std::make_shared<cpu::GatherParams>();
    const int64_t moved = index.rank() - batch;  // index dimensions placed at dim
    for (int64_t d = batch; d < dim; ++d) p->offset_dims.push_back(d);
    for (int64_t d = dim + moved; d < result.rank(); ++d) p->offset_dims.push_back(d);
    p->collapsed_slice_dims = {dim};
    for (int64_t d = 0; d < batch; ++d) {
      p->operand_batching_dims.push_back(d);
      p->start_indices_batching_dims.push_back(d);
    }
    p->start_index_map = {dim};
    p->index_vector_dim = index.rank();
    p->slice_sizes = operand.dims;
    p->slice_sizes[dim] = 1;
    for (int64_t d = 0; d < batch; ++d) p->slice_sizes[d] = 1;
    AddStep(op, env, prog, cpu::GatherKernel(), Operands(op, env)).params = p;
    return;
  }

  // einsum "lhs,rhs->out" / unary_einsum "in->out" (a leading "," is the unary form's empty
  // first term): letters only, each at most once per term.
  Attribute cfg = op.attr("einsum_config");
  if (!cfg || cfg.kind() != AttrKind::kString) invalid("missing attribute 'einsum_config'");
  std::string config = cfg->str;
  const bool unary = op.code == OpCode::kUnaryEinsum;
  if (unary && !config.empty() && config[0] == ',') config.erase(0, 1);
  if (config.find("...") != std::string::npos) Unimplemented(op, "einsum with '...' (broadcast dimensions)");
  const size_t arrow = config.find("->");
  const size_t comma = unary ? std::string::npos : config.find(',');
  if (arrow == std::string::npos || (!unary && (comma == std::string::npos || comma > arrow)))
    invalid(StrCat("einsum_config \"", cfg->str, "\" is not of the form ", unary ? "\"in->out\"" : "\"lhs,rhs->out\""));
  std::vector<std::string> terms(unary ? 1 : 2);
  std::string out_labels;
  const bool letters = unary ? Labels(std::string_view(config).substr(0, arrow), &terms[0])
                             : Labels(std::string_view(config).substr(0, comma), &terms[0]) &&
                                   Labels(std::string_view(config).substr(comma + 1, arrow - comma - 1), &terms[1]);
  if (!letters || !Labels(std::string_view(config).substr(arrow + 2), &out_labels))
    invalid(StrCat("einsum_config \"", cfg->str, "\": labels must be letters"));
  std::map<char, int64_t> size;
  std::vector<ArrayType> types;
  for (size_t t = 0; t < terms.size(); ++t) {
    types.push_back(ToArrayType(op, op.operands[t]->type));
    if (static_cast<int64_t>(terms[t].size()) != types[t].rank())
      invalid(StrCat("einsum_config term \"", terms[t], "\" has ", terms[t].size(), " labels for operand #", t, " of type ",
                     types[t].ToString()));
    for (size_t i = 0; i < terms[t].size(); ++i) {
      const char l = terms[t][i];
      if (terms[t].find(l) != i) Unimplemented(op, StrCat("einsum with the label '", std::string(1, l), "' repeated in one term"));
      auto [it, fresh] = size.emplace(l, types[t].dims[i]);
      if (!fresh && it->second != types[t].dims[i]) invalid(StrCat("label '", std::string(1, l), "' has two sizes"));
    }
  }
  std::vector<int64_t> out_dims;
  for (size_t i = 0; i < out_labels.size(); ++i) {
    const char l = out_labels[i];
    if (out_labels.find(l) != i || !size.count(l))
      invalid(StrCat("output label '", std::string(1, l), "' is repeated or in no operand"));
    out_dims.push_back(size[l]);
  }
  if (out_dims != result.dims) invalid(StrCat("result must have the shape of \"", out_labels, "\", got ", result.ToString()));

  // Operands in the result's kind, each summed over the labels that neither the other operand
  // nor the output has.
  std::vector<int> slots = Operands(op, env);
  for (size_t t = 0; t < terms.size(); ++t) {
    slots[t] = ConvertTo(op, prog, slots[t], types[t], result.elem);
    types[t].elem = result.elem;
    const std::string& other = terms.size() == 2 ? terms[1 - t] : std::string();
    auto p = std::make_shared<cpu::ReduceParams>();
    p->has_fast = true;
    p->fast = cpu::BinaryOp::kAdd;
    std::string kept;
    ArrayType reduced{result.elem, {}};
    for (size_t i = 0; i < terms[t].size(); ++i) {
      const char l = terms[t][i];
      if (other.find(l) == std::string::npos && out_labels.find(l) == std::string::npos) {
        p->dims.push_back(static_cast<int64_t>(i));
      } else {
        kept.push_back(l);
        reduced.dims.push_back(types[t].dims[i]);
      }
    }
    if (p->dims.empty()) continue;
    auto zero = std::make_shared<cpu::ConstantParams>();
    zero->value = cpu::RtValue::Of(cpu::Array::Allocate(ArrayType{result.elem, {}}));  // zero-filled
    std::memset(zero->value.array.mutable_data(), 0, static_cast<size_t>(zero->value.array.ByteSize()));
    const int init = AddHelperStep(op, prog, cpu::ConstantKernel(), {}, ArrayType{result.elem, {}}, zero);
    slots[t] = AddHelperStep(op, prog, Check(op, cpu::SelectReduce(*p, {result.elem})), {slots[t], init}, reduced, p);
    terms[t] = kept;
    types[t] = reduced;
  }
  // The product: batch labels (in the lhs's order), then the lhs's free labels, then the rhs's.
  std::string labels = terms[0];
  int slot = slots[0];
  ArrayType type = types[0];
  if (terms.size() == 2) {
    auto p = std::make_shared<cpu::DotParams>();
    std::string batch, lhs_free, rhs_free;
    for (size_t i = 0; i < terms[0].size(); ++i) {
      const char l = terms[0][i];
      const size_t j = terms[1].find(l);
      if (j == std::string::npos) {
        lhs_free.push_back(l);
      } else if (out_labels.find(l) != std::string::npos) {
        batch.push_back(l);
        p->lhs_batch.push_back(static_cast<int64_t>(i));
        p->rhs_batch.push_back(static_cast<int64_t>(j));
      } else {
        p->lhs_contract.push_back(static_cast<int64_t>(i));
        p->rhs_contract.push_back(static_cast<int64_t>(j));
      }
    }
    for (char l : terms[1])
      if (terms[0].find(l) == std::string::npos) rhs_free.push_back(l);
    labels = batch + lhs_free + rhs_free;
    type = ArrayType{result.elem, {}};
    for (char l : labels) type.dims.push_back(size[l]);
    slot = AddHelperStep(op, prog, Check(op, cpu::SelectDotGeneral(result.elem, result.elem, result.elem)),
                         {slots[0], slots[1]}, type, p);
  }
  if (labels != out_labels) {
    auto p = std::make_shared<cpu::TransposeParams>();
    for (char l : out_labels) p->perm.push_back(static_cast<int64_t>(labels.find(l)));
    slot = AddHelperStep(op, prog, cpu::TransposeKernel(), {slot}, result, p);
  } else if (slot == Use(op, env, op.operands[0]) || (terms.size() == 2 && slot == Use(op, env, op.operands[1]))) {
    // The result is an operand unchanged ("ab->ab"): a copy gives it a slot of its own.
    slot = AddHelperStep(op, prog, cpu::CopyKernel(), {slot}, result, nullptr);
  }
  env.slots[op.result(0)] = slot;
}

}  // namespace openpjrt::compiler::internal
