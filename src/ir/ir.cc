// Operations, blocks, regions, modules, and the op table lookup.
#include "src/ir/ir.h"

#include <cassert>
#include <unordered_map>

namespace openpjrt::ir {
namespace {

constexpr OpInfo kOpInfos[] = {
#define OP(code, name, syntax, rule, kw, min_ops, max_ops, results, regions) \
  {name, OpSyntax::syntax, rule, kw, min_ops, max_ops, results, regions},
#include "src/ir/ops.def"
#undef OP
};
constexpr OpInfo kUnknownInfo{"", OpSyntax::kGeneric, 'F', "", -1, -1, -1, -1};

const std::unordered_map<std::string_view, OpCode>& OpNameMap() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, OpCode>();
    for (int i = 0; i < kNumOpCodes; ++i) m->emplace(kOpInfos[i].name, static_cast<OpCode>(i));
    m->emplace("return", OpCode::kFuncReturn);
    m->emplace("call", OpCode::kFuncCall);
    m->emplace("func", OpCode::kFunc);
    m->emplace("module", OpCode::kModule);
    return m;
  }();
  return *map;
}

}  // namespace

const OpInfo& GetOpInfo(OpCode code) {
  if (code == OpCode::kUnknown) return kUnknownInfo;
  return kOpInfos[static_cast<int>(code)];
}

OpCode LookupOp(std::string_view name) {
  const auto& m = OpNameMap();
  auto it = m.find(name);
  return it == m.end() ? OpCode::kUnknown : it->second;
}

Value* Block::AddArgument(Type t) {
  auto v = std::make_unique<Value>();
  v->type = t;
  v->block = this;
  v->index = static_cast<uint32_t>(args.size());
  args.push_back(std::move(v));
  return args.back().get();
}

Operation* Block::Append(std::unique_ptr<Operation> op) {
  op->parent = this;
  ops.push_back(std::move(op));
  return ops.back().get();
}

Block* Region::AddBlock() {
  blocks.push_back(std::make_unique<Block>());
  blocks.back()->parent = this;
  return blocks.back().get();
}

Operation::Operation(OpCode c, std::string_view n, Loc l) : code(c), loc(l) {
  if (c == OpCode::kUnknown) unknown_name = std::string(n);
}

Operation::~Operation() = default;

std::string_view Operation::name() const {
  return code == OpCode::kUnknown ? std::string_view(unknown_name) : GetOpInfo(code).name;
}

void Operation::SetResultTypes(const std::vector<Type>& types) {
  assert(results_.empty() && "SetResultTypes called twice");
  results_.resize(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    results_[i].type = types[i];
    results_[i].def = this;
    results_[i].index = static_cast<uint32_t>(i);
  }
}

Attribute Operation::attr(std::string_view n) const {
  for (const auto& [k, v] : attrs)
    if (k == n) return v;
  return {};
}

void Operation::SetAttr(std::string_view n, Attribute value) {
  for (auto& [k, v] : attrs) {
    if (k == n) {
      v = std::move(value);
      return;
    }
  }
  attrs.emplace_back(std::string(n), std::move(value));
}

bool Operation::RemoveAttr(std::string_view n) {
  for (auto it = attrs.begin(); it != attrs.end(); ++it) {
    if (it->first == n) {
      attrs.erase(it);
      return true;
    }
  }
  return false;
}

Region* Operation::AddRegion() {
  regions.push_back(std::make_unique<Region>());
  regions.back()->parent = this;
  return regions.back().get();
}

Operation* Module::LookupFunction(std::string_view fname) const {
  Block* b = body();
  if (!b) return nullptr;
  for (const auto& op : b->ops)
    if (op->code == OpCode::kFunc && FuncName(*op) == fname) return op.get();
  return nullptr;
}

std::string_view FuncName(const Operation& func) {
  Attribute a = func.attr("sym_name");
  if (!a || a.kind() != AttrKind::kString) return {};
  return a->str;
}

Type FuncType(const Operation& func) {
  Attribute a = func.attr("function_type");
  if (!a || a.kind() != AttrKind::kType) return Type();
  return a->type;
}

std::unique_ptr<Operation> CloneOperation(const Operation& op, std::unordered_map<const Value*, Value*>& map) {
  auto c = std::make_unique<Operation>(op.code, op.name(), op.loc);
  c->attrs = op.attrs;
  for (const Value* v : op.operands) {
    auto it = map.find(v);
    c->operands.push_back(it == map.end() ? const_cast<Value*>(v) : it->second);
  }
  std::vector<Type> types;
  for (size_t i = 0; i < op.num_results(); ++i) types.push_back(op.result(i)->type);
  c->SetResultTypes(types);
  for (size_t i = 0; i < op.num_results(); ++i) map[op.result(i)] = c->result(i);
  for (const auto& r : op.regions) {
    Region* nr = c->AddRegion();
    for (const auto& b : r->blocks) {
      Block* nb = nr->AddBlock();
      for (const auto& a : b->args) map[a.get()] = nb->AddArgument(a->type);
    }
    for (size_t bi = 0; bi < r->blocks.size(); ++bi)
      for (const auto& o : r->blocks[bi]->ops) nr->blocks[bi]->Append(CloneOperation(*o, map));
  }
  return c;
}

}  // namespace openpjrt::ir
