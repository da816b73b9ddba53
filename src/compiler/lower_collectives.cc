// Lowering of the collectives (all_reduce, cross_replica_sum, all_gather, reduce_scatter,
// all_to_all, collective_permute and the others of cpu::CollectiveParams, with their replica
// groups) and of run_parallel: the Lowerer methods of lowerer.h for ops across devices.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/compiler/lowerer.h"
#include "src/compiler/refine.h"
#include "src/cpu/comm/collectives.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/kernels/kernels_rng.h"

namespace openpjrt::compiler::internal {

void Lowerer::LowerCollective(const Operation& op, Env& env, Program& prog, int depth) {
  auto p = std::make_shared<cpu::CollectiveParams>();
  const OpCode c = op.code;
  p->kind = c == OpCode::kAllReduce || c == OpCode::kCrossReplicaSum ? cpu::CollectiveParams::kAllReduce
            : c == OpCode::kCollectiveReduce ? cpu::CollectiveParams::kCollectiveReduce
            : c == OpCode::kAllGather ? cpu::CollectiveParams::kAllGather
            : c == OpCode::kReduceScatter ? cpu::CollectiveParams::kReduceScatter
            : c == OpCode::kAllToAll ? cpu::CollectiveParams::kAllToAll
            : c == OpCode::kCollectivePermute ? cpu::CollectiveParams::kCollectivePermute
                                              : cpu::CollectiveParams::kCollectiveBroadcast;
  // replica_groups: a 2-D integer tensor; -1 pads ragged groups.
  Attribute rg = op.attr("replica_groups");
  std::vector<int64_t> flat;
  if (rg && ir::GetI64List(rg, &flat) && rg.kind() == AttrKind::kDenseElements && rg->type.rank() == 2) {
    const int64_t rows = rg->type.shape()[0], cols = rg->type.shape()[1];
    for (int64_t i = 0; i < rows; ++i) {
      std::vector<int64_t> g;
      for (int64_t j = 0; j < cols; ++j)
        if (flat[i * cols + j] >= 0) g.push_back(flat[i * cols + j]);
      p->groups.push_back(g);
    }
  }
  Attribute ch = op.attr("channel_handle");
  int64_t channel = 0;
  if (ch && ch.kind() == AttrKind::kStruct) ir::GetInt(ch.Field("handle"), &channel);
  const bool global_ids = static_cast<bool>(op.attr("use_global_device_ids"));
  if (p->kind == cpu::CollectiveParams::kCollectivePermute ||
      p->kind == cpu::CollectiveParams::kCollectiveBroadcast ||
      p->kind == cpu::CollectiveParams::kAllToAll) {
    p->mode = channel > 0 ? cpu::GroupMode::kCrossPartition : cpu::GroupMode::kCrossReplica;
  } else if (channel <= 0) {
    p->mode = cpu::GroupMode::kCrossReplica;
  } else {
    p->mode = global_ids ? cpu::GroupMode::kFlattenedIds : cpu::GroupMode::kCrossReplicaAndPartition;
  }
  if (p->kind == cpu::CollectiveParams::kCollectivePermute) {
    std::vector<int64_t> pairs;
    ir::GetI64List(op.attr("source_target_pairs"), &pairs);
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) p->pairs.emplace_back(pairs[i], pairs[i + 1]);
  }
  p->dim = Int(op, p->kind == cpu::CollectiveParams::kAllGather ? "all_gather_dim"
                   : p->kind == cpu::CollectiveParams::kReduceScatter ? "scatter_dimension"
                                                                       : "split_dimension", 0);
  p->concat_dim = Int(op, "concat_dimension", 0);
  p->split_count = Int(op, "split_count", 1);
  std::vector<std::shared_ptr<Program>> regions;
  if (c == OpCode::kCrossReplicaSum) {
    p->has_fast = true;
    p->fast = Check(op, cpu::SelectBinary(BinaryOp::kAdd, kind_of_result(op), kind_of_result(op)));
  } else if (!op.regions.empty()) {
    BinaryOp b;
    const ir::Block* body = op.regions[0]->front();
    bool same_kinds = true;
    for (size_t i = 0; i < op.num_results(); ++i)
      same_kinds &= op.operands[i]->type.element_type() == op.result(i)->type.element_type();
    if (body && same_kinds && FastRegion(*body, &b)) {
      KernelFn fn = nullptr;
      bool one_kind = true;
      for (size_t i = 1; i < op.num_results(); ++i)
        one_kind &= op.result(i)->type.element_type() == op.result(0)->type.element_type();
      auto sel = cpu::SelectBinary(b, kind_of_result(op), kind_of_result(op));
      if (one_kind && sel.ok()) fn = *sel;
      p->has_fast = fn != nullptr;
      p->fast = fn;
    }
    if (!p->has_fast) regions.push_back(LowerRegion(op, 0, env, depth));
  }
  std::vector<ElemKind> want;
  for (size_t i = 0; i < op.num_results() && i < op.operands.size(); ++i)
    want.push_back(kind_of_result_at(op, i));
  Step& s = AddStep(op, env, prog, cpu::CollectiveKernel(), OperandsAs(op, env, prog, want));
  s.params = p;
  s.regions = std::move(regions);
}

void Lowerer::LowerRunParallel(const Operation& op, Env& env, Program& prog, int depth) {
  if (op.attr("infeed"))
    Unimplemented(op, "infeed (the interpreter's infeed queues for run_parallel)");
  // The verifier checked the grid and the types; each distinct function becomes one region that
  // every process running it shares (a process's slots are its own at run time).
  Attribute grid = op.attr("programs");
  auto p = std::make_shared<cpu::RunParallelParams>();
  p->num_replicas = static_cast<int>(grid->elements.size());
  p->num_partitions = static_cast<int>(grid->elements[0]->elements.size());
  constexpr int kMaxProcesses = 256;  // one thread each
  if (static_cast<int64_t>(p->num_replicas) * p->num_partitions > kMaxProcesses)
    Fail(op, absl::StatusCode::kInvalidArgument,
         StrCat("runs ", p->num_replicas, " x ", p->num_partitions, " processes; at most ", kMaxProcesses,
                " are supported"));
  std::vector<std::shared_ptr<Program>> regions;
  std::unordered_map<std::string, int> index;
  for (const Attribute& row : grid->elements)
    for (const Attribute& sym : row->elements) {
      const std::string& name = sym->symbols[0];
      auto [it, added] = index.emplace(name, static_cast<int>(regions.size()));
      if (added) {
        const Operation* f = m_.LookupFunction(name);
        if (!f || f->regions.empty() || !f->regions[0]->front())
          Fail(op, absl::StatusCode::kInvalidArgument, StrCat("@", name, " has no body"));
        regions.push_back(LowerFunctionBody(*f, depth));
      }
      p->program_of.push_back(it->second);
    }
  Step& s = AddStep(op, env, prog, cpu::RunParallelKernel(), Operands(op, env));
  s.params = p;
  s.regions = std::move(regions);
}

}  // namespace openpjrt::compiler::internal
