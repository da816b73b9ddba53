// The lowering of StableHLO's deprecated ops onto the kernels of their modern forms: einsum and
// unary_einsum (diagonals of labels repeated in a term, sums over labels only one operand has, a
// dot_general, a transpose; '...' broadcast as numpy does) and torch_index_select (a gather with
// batching dimensions).
#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "src/compiler/lowerer.h"
#include "src/cpu/kernels/kernels_indexing.h"

namespace openpjrt::compiler::internal {
namespace {

bool IsLetter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

// Labels that ExpandEllipsis makes up: kOutLabel + k for the k-th dimension (from the right) of
// the broadcast '...', kSummedLabel + j for an operand's size-1 '...' dimension that broadcasts
// against a larger one (summed away on its own: the sum over one element is the element).
constexpr unsigned char kOutLabel = 0x80, kSummedLabel = 0xC0;
constexpr int64_t kMaxEllipsisDims = 32;

// The labels of one einsum term; false for anything but letters and ExpandEllipsis's labels.
bool Labels(std::string_view term, std::string* out) {
  out->clear();
  for (char ch : term) {
    if (!IsLetter(ch) && static_cast<unsigned char>(ch) < kOutLabel) return false;
    out->push_back(ch);
  }
  return true;
}

// Rewrites the '...' of an einsum config ("lhs,rhs->out" or "in->out") as one made-up label per
// dimension it stands for, as numpy reads them: an operand's '...' covers the dimensions its
// letters leave, the '...'s are aligned to the right and broadcast (equal sizes, or 1), and the
// output's '...' is the broadcast shape. Returns an error message, or "" when `config` is ready
// for the letter-only lowering (a config without '...' is left as it is).
std::string ExpandEllipsis(std::string* config, const std::vector<cpu::ArrayType>& types) {
  if (config->find("...") == std::string::npos) return "";
  const size_t arrow = config->find("->");
  if (arrow == std::string::npos) return "'...' needs an explicit output term (\"...->...\")";
  std::vector<std::string> terms;
  const std::string inputs = config->substr(0, arrow);
  for (size_t p = 0; p <= inputs.size();) {
    size_t e = inputs.find(',', p);
    if (e == std::string::npos) e = inputs.size();
    terms.push_back(inputs.substr(p, e - p));
    p = e + 1;
  }
  std::string out = config->substr(arrow + 2);
  if (terms.size() != types.size()) return "";  // the caller reports the malformed config
  struct Ellipsis {
    bool present = false;
    int64_t pos = 0, count = 0;  // first dimension it covers, how many
  };
  std::vector<Ellipsis> ell(terms.size());
  int64_t rank = 0;  // of the broadcast '...'
  for (size_t t = 0; t < terms.size(); ++t) {
    const size_t at = terms[t].find("...");
    if (at == std::string::npos) continue;
    std::string letters = terms[t].substr(0, at) + terms[t].substr(at + 3);
    for (char ch : letters)
      if (!IsLetter(ch)) return StrCat("term \"", terms[t], "\" may hold letters and one '...' only");
    ell[t] = {true, static_cast<int64_t>(at), types[t].rank() - static_cast<int64_t>(letters.size())};
    if (ell[t].count < 0)
      return StrCat("term \"", terms[t], "\" has more labels than operand #", t, " of type ", types[t].ToString(),
                    " has dimensions");
    rank = std::max(rank, ell[t].count);
  }
  if (rank > kMaxEllipsisDims) return StrCat("'...' stands for ", rank, " dimensions (at most ", kMaxEllipsisDims, ")");
  // The broadcast sizes, k counted from the right.
  std::vector<int64_t> sizes(rank, 1);
  for (size_t t = 0; t < terms.size(); ++t)
    for (int64_t i = 0; i < ell[t].count; ++i) {
      const int64_t k = ell[t].count - 1 - i, s = types[t].dims[ell[t].pos + i];
      if (s != 1 && sizes[k] != 1 && s != sizes[k])
        return StrCat("the '...' dimensions of sizes ", sizes[k], " and ", s, " do not broadcast");
      if (s != 1) sizes[k] = s;
    }
  int summed = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    if (!ell[t].present) continue;
    std::string labels;
    for (int64_t i = 0; i < ell[t].count; ++i) {
      const int64_t k = ell[t].count - 1 - i, s = types[t].dims[ell[t].pos + i];
      labels.push_back(static_cast<char>(s == sizes[k] ? kOutLabel + k : kSummedLabel + summed++));
    }
    terms[t].replace(ell[t].pos, 3, labels);
  }
  const size_t at = out.find("...");
  if (at == std::string::npos) {
    if (rank > 0) return "the operands' '...' stand for dimensions but the output term has no '...'";
  } else {
    std::string labels;
    for (int64_t k = rank - 1; k >= 0; --k) labels.push_back(static_cast<char>(kOutLabel + k));
    out.replace(at, 3, labels);
  }
  std::string joined;
  for (size_t t = 0; t < terms.size(); ++t) StrAppend(&joined, t ? "," : "", terms[t]);
  *config = StrCat(joined, "->", out);
  return "";
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
  for (char ch : config)  // bytes past ASCII are ExpandEllipsis's own labels
    if (static_cast<unsigned char>(ch) >= kOutLabel) invalid(StrCat("einsum_config \"", cfg->str, "\": labels must be letters"));
  {
    std::vector<ArrayType> operand_types;
    for (size_t t = 0; t < (unary ? 1u : 2u) && t < op.operands.size(); ++t)
      operand_types.push_back(ToArrayType(op, op.operands[t]->type));
    if (std::string why = ExpandEllipsis(&config, operand_types); !why.empty())
      invalid(StrCat("einsum_config \"", cfg->str, "\": ", why));
  }
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
  std::vector<int> slots = Operands(op, env);
  for (size_t t = 0; t < terms.size(); ++t) {
    types.push_back(ToArrayType(op, op.operands[t]->type));
    if (static_cast<int64_t>(terms[t].size()) != types[t].rank())
      invalid(StrCat("einsum_config \"", cfg->str, "\" has ", terms[t].size(), " labels for operand #", t, " of type ",
                     types[t].ToString()));
    // A label twice in one term ("ii->i", "ii->", "iij,j->i") reads the diagonal: a gather of
    // x[k, ..., k, ...] for k along the two dimensions (batching the first, indexing the
    // second with iota), which leaves the label once, first, and the other dimensions in order.
    for (size_t j = 1; j < terms[t].size(); ++j) {
      const size_t i = terms[t].find(terms[t][j]);
      if (i == j) continue;
      const int64_t n = types[t].dims[i];
      if (types[t].dims[j] != n)
        invalid(StrCat("label '", std::string(1, terms[t][j]), "' has two sizes in operand #", t, " of type ",
                       types[t].ToString()));
      auto idx = std::make_shared<cpu::ConstantParams>();
      idx->value = cpu::RtValue::Of(cpu::Array::Allocate(ArrayType{ElemKind::kI64, {n, 1}}));
      for (int64_t k = 0; k < n; ++k) idx->value.array.mutable_as<int64_t>()[k] = k;
      const int idx_slot = AddHelperStep(op, prog, cpu::ConstantKernel(), {}, idx->value.array.type(), idx);
      auto g = std::make_shared<cpu::GatherParams>();
      const int64_t r = types[t].rank();
      for (int64_t d = 1; d < r - 1; ++d) g->offset_dims.push_back(d);
      g->collapsed_slice_dims = {static_cast<int64_t>(j)};
      g->operand_batching_dims = {static_cast<int64_t>(i)};
      g->start_indices_batching_dims = {0};
      g->start_index_map = {static_cast<int64_t>(j)};
      g->index_vector_dim = 1;
      g->slice_sizes = std::vector<int64_t>(types[t].dims.begin(), types[t].dims.end());
      g->slice_sizes[i] = g->slice_sizes[j] = 1;
      ArrayType diag{types[t].elem, {n}};
      std::string kept(1, terms[t][j]);
      for (int64_t d = 0; d < r; ++d)
        if (d != static_cast<int64_t>(i) && d != static_cast<int64_t>(j)) {
          diag.dims.push_back(types[t].dims[d]);
          kept.push_back(terms[t][d]);
        }
      slots[t] = AddHelperStep(op, prog, cpu::GatherKernel(), {slots[t], idx_slot}, diag, g);
      terms[t] = kept;
      types[t] = diag;
      j = 0;  // the label may be there a third time
    }
    for (size_t i = 0; i < terms[t].size(); ++i) {
      const char l = terms[t][i];
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
  if (out_dims != result.dims) {
    ArrayType want{result.elem, out_dims};
    invalid(StrCat("einsum_config \"", cfg->str, "\" makes ", want.ToString(), "; the result is ", result.ToString()));
  }

  // Operands in the result's kind, each summed over the labels that neither the other operand
  // nor the output has.
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
    const ElemKind work = ProductWork(result.elem);
    for (size_t t = 0; t < 2; ++t) slots[t] = ConvertTo(op, prog, slots[t], types[t], work);
    type = ArrayType{work, {}};
    for (char l : labels) type.dims.push_back(size[l]);
    slot = AddHelperStep(op, prog, Check(op, cpu::SelectDotGeneral(work, work, work)), {slots[0], slots[1]}, type, p);
    if (work != result.elem) {
      slot = ConvertTo(op, prog, slot, type, result.elem);
      type.elem = result.elem;
    }
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
