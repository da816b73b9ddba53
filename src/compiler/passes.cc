// The program passes of passes.h.
#include "src/compiler/passes.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "src/cpu/kernels/kernels.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/support/str.h"

namespace openpjrt::compiler {

using cpu::Program;
using cpu::Step;

namespace {

bool Fusible(const Step& s) {
  return (s.raw_unary || s.raw_binary || s.raw_op) && s.regions.empty() && s.out.size() == 1 &&
         s.out_types.size() == 1;
}

// Cheap steps that may move freely: constants and repeating broadcasts (fused runs read them
// without the step when they are all that reads them).
bool Movable(const Step& s) {
  return s.fn == cpu::SplatConstantKernel() || s.fn == cpu::ConstantKernel() || s.broadcast_period > 0;
}

// Reorders the steps of one program so that elementwise steps of one element count that do not
// depend on the steps between them become adjacent, ready for FuseElementwise: a forward pass's
// bias add and activation, a backward pass's masks, the parameter updates of a training step.
// Data dependencies are kept, and every other step (kernels with effects among them) keeps its
// order relative to the others. Results do not change: each step computes what it did.
void ClusterElementwise(Program& prog) {
  const size_t n = prog.steps.size();
  if (n < 3) return;
  std::unordered_map<int, size_t> producer;
  for (size_t i = 0; i < n; ++i)
    for (int o : prog.steps[i].out)
      if (!producer.emplace(o, i).second) return;  // a slot defined twice: keep the order
  std::vector<std::vector<size_t>> users(n), deps_of(n);
  std::vector<int> waiting(n, 0);
  size_t last_fixed = SIZE_MAX;
  for (size_t i = 0; i < n; ++i) {
    const Step& s = prog.steps[i];
    std::vector<int> uses = s.in;
    for (const auto& r : s.regions) CollectUses(*r, &uses);
    std::unordered_set<size_t> deps;
    for (int u : uses) {
      auto p = producer.find(u);
      if (p != producer.end() && p->second < i) deps.insert(p->second);
      else if (p != producer.end()) return;  // read before defined: keep the order
    }
    if (!Fusible(s) && !Movable(s)) {
      if (last_fixed != SIZE_MAX) deps.insert(last_fixed);
      last_fixed = i;
    }
    for (size_t d : deps) users[d].push_back(i), deps_of[i].push_back(d);
    waiting[i] = static_cast<int>(deps.size());
  }
  std::set<size_t> ready_movable, ready_any;
  std::map<int64_t, std::set<size_t>> ready_fusible;  // by element count
  auto size_of = [&](size_t i) { return prog.steps[i].out_types[0].NumElements(); };
  auto enqueue = [&](size_t i) {
    const Step& s = prog.steps[i];
    if (Movable(s)) ready_movable.insert(i);
    else ready_any.insert(i);
    if (Fusible(s)) ready_fusible[size_of(i)].insert(i);
  };
  // An elementwise step whose every user is an elementwise step of its size still waiting for
  // something else waits too, and joins the run of its user when that user's last other input is
  // in (layer norm's x - mean then fuses into the division by the deviation instead of being
  // written out and read back: 1.49 -> 1.2 ms for 1024 x 1024 at 1 thread).
  std::set<size_t> deferred;
  auto make_ready = [&](size_t i) {
    const Step& s = prog.steps[i];
    bool defer = Fusible(s) && !users[i].empty();
    for (size_t u : users[i])
      defer = defer && Fusible(prog.steps[u]) && size_of(u) == size_of(i) && waiting[u] > 1;
    if (defer) deferred.insert(i);
    else enqueue(i);
  };
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) make_ready(i);
  std::vector<size_t> order;
  int64_t run = -1;                // element count of the run being built; -1: none
  std::unordered_set<int> run_slots;  // the values that run defines
  // A ready step of the run's size that reads one of its values extends it; unrelated steps of
  // the same size wait for their turn, so that a run that feeds a reduction stays a run of its
  // own (FuseReductions absorbs single-output runs).
  auto extends_run = [&](size_t i) {
    for (int u : prog.steps[i].in)
      if (run_slots.count(u)) return true;
    return false;
  };
  while (order.size() < n) {
    size_t pick = SIZE_MAX;
    auto same = ready_fusible.find(run);
    if (run >= 0 && same != ready_fusible.end())
      for (size_t i : same->second)
        if (extends_run(i)) {
          pick = i;
          break;
        }
    if (!ready_movable.empty()) {
      pick = *ready_movable.begin();
      ready_movable.erase(ready_movable.begin());
    } else if (pick != SIZE_MAX) {
      ready_any.erase(pick);
    } else if (!ready_any.empty()) {
      pick = *ready_any.begin();
      ready_any.erase(ready_any.begin());
    } else if (!deferred.empty()) {
      pick = *deferred.begin();
      deferred.erase(deferred.begin());
    } else {
      return;  // unreachable for a well-formed program; keep the order
    }
    const Step& s = prog.steps[pick];
    if (Fusible(s)) {
      if (size_of(pick) != run || !extends_run(pick)) run_slots.clear();
      run = size_of(pick);
      ready_fusible[run].erase(pick);
      run_slots.insert(s.out[0]);
    } else if (!Movable(s)) {
      run = -1;
      run_slots.clear();
    }
    order.push_back(pick);
    for (size_t u : users[pick]) {
      if (--waiting[u] == 0) {
        make_ready(u);
      } else if (waiting[u] == 1) {
        // The user waits only for deferred inputs now: they run next, as its run.
        for (size_t d : deps_of[u])
          if (deferred.erase(d)) enqueue(d);
      }
    }
  }
  std::vector<Step> steps;
  steps.reserve(n);
  for (size_t i : order) steps.push_back(std::move(prog.steps[i]));
  prog.steps = std::move(steps);
}

}  // namespace

cpu::FusedParams::Op FusedOpOf(const Step& s) {
  cpu::FusedParams::Op op;
  op.unary = s.raw_unary;
  op.binary = s.raw_binary;
  op.vec = s.vec_op;
  if (s.raw_op) {
    op.general = s.raw_op;
    op.params = s.params;
  }
  if (op.binary) {
    op.binary_with_scalar[0] = s.raw_binary_splat[0];
    op.binary_with_scalar[1] = s.raw_binary_splat[1];
  }
  return op;
}

// Fuses each run of two or more consecutive elementwise steps of one element count into a
// FusedElementwiseKernel step: values only the run reads stay in cache-sized block buffers,
// the rest keep their slots. Results are bit-identical (the same loops run, block by block).
void FuseElementwise(Program& prog) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) FuseElementwise(*r);
  ClusterElementwise(prog);
  // The last step index that reads each slot (nested regions included; results read last).
  std::unordered_map<int, size_t> last_use;
  for (size_t i = 0; i < prog.steps.size(); ++i) {
    std::vector<int> uses = prog.steps[i].in;
    for (const auto& r : prog.steps[i].regions) CollectUses(*r, &uses);
    for (int u : uses) last_use[u] = i;
  }
  for (int r : prog.results) last_use[r] = SIZE_MAX;
  // Splat constants and repeating broadcasts defined in this program, by slot.
  std::unordered_map<int, const cpu::SplatConstantParams*> splat_of;
  struct Repeat {
    int slot = -1;  // the broadcast's operand
    int64_t period = 0, inner = 1;
  };
  std::unordered_map<int, Repeat> repeat_of;  // by broadcast result
  // f32 products and gathers that may take an epilogue (FuseProductEpilogues), by result.
  std::unordered_set<int> product_of;
  for (const Step& s : prog.steps) {
    if (s.fn == cpu::SplatConstantKernel()) splat_of[s.out[0]] = &s.Params<cpu::SplatConstantParams>();
    if (s.broadcast_period > 0) repeat_of[s.out[0]] = {s.in[0], s.broadcast_period, s.broadcast_inner};
    if ((cpu::IsEpilogueProduct(s) && s.out.size() == 1 && s.out_types[0].elem == ir::ElemKind::kF32) ||
        (s.fn == cpu::GatherKernel() && s.out.size() == 1))
      product_of.insert(s.out[0]);
  }
  auto fusible = Fusible;
  std::vector<Step> out;
  for (size_t i = 0; i < prog.steps.size();) {
    size_t end = i;
    const int64_t n = fusible(prog.steps[i]) ? prog.steps[i].out_types[0].NumElements() : -1;
    while (end < prog.steps.size() && fusible(prog.steps[end]) &&
           prog.steps[end].out_types[0].NumElements() == n)
      ++end;
    // A lone op is worth the fused kernel when it is large (the fused kernel splits its work
    // over the intra-op threads; same loops, same results) or when it reads a splat constant or
    // a repeating broadcast, which the fused kernel reads in place instead of materialised
    // (softmax's division by the row sums: 83 us of broadcast for 4x128x128).
    constexpr int64_t kLoneOpParallelMin = int64_t{1} << 18, kLoneOpBroadcastMin = 4096;
    // So is one that reads a product's or a gather's result: it can become their epilogue (a
    // residual connection x + h W is then added in the product's registers, SgemmUpdate).
    bool reads_repeat = false;
    if (end - i == 1 && n >= kLoneOpBroadcastMin)
      for (int slot : prog.steps[i].in)
        reads_repeat |= splat_of.count(slot) > 0 || repeat_of.count(slot) > 0 || product_of.count(slot) > 0;
    if ((end - i < 2 && n < kLoneOpParallelMin && !reads_repeat) || n <= 0) {
      out.push_back(std::move(prog.steps[i]));
      ++i;
      continue;
    }
    auto p = std::make_shared<cpu::FusedParams>();
    p->num_elements = n;
    Step fused;
    fused.fn = cpu::FusedElementwiseKernel();
    fused.loc = prog.steps[i].loc;
    fused.name = "fusion";
    std::unordered_map<int, int> value_of;  // slot -> value index
    // Inputs first: slots read by the run that it does not define.
    std::unordered_set<int> produced;
    for (size_t k = i; k < end; ++k) produced.insert(prog.steps[k].out[0]);
    for (size_t k = i; k < end; ++k)
      for (int slot : prog.steps[k].in)
        if (!produced.count(slot) && !value_of.count(slot)) {
          value_of[slot] = static_cast<int>(fused.in.size());
          fused.in.push_back(slot);
        }
    p->input_bytes.assign(fused.in.size(), 0);
    p->input_splat.assign(fused.in.size(), {});
    p->input_period.assign(fused.in.size(), 0);
    p->input_inner.assign(fused.in.size(), 1);
    std::vector<Repeat> repeat(fused.in.size());
    for (size_t v = 0; v < fused.in.size(); ++v) {
      auto c = splat_of.find(fused.in[v]);
      if (c != splat_of.end()) p->input_splat[v] = c->second->element;
      auto b = repeat_of.find(fused.in[v]);
      if (c == splat_of.end() && b != repeat_of.end()) repeat[v] = b->second;
    }
    const int num_inputs = static_cast<int>(fused.in.size());
    for (size_t k = i; k < end; ++k) {
      Step& s = prog.steps[k];
      StrAppend(&fused.name, k == i ? "(" : ", ", s.name);
      cpu::FusedParams::Op op = FusedOpOf(s);
      op.in0 = value_of.at(s.in[0]);
      if (s.in.size() > 1) op.in1 = value_of.at(s.in[1]);
      // A splat operand of a binary op (x * 0.5) is read as its one element, when the other is not.
      if (op.binary && s.in.size() == 2) {
        auto one_element = [&](int v) {
          return v < num_inputs && (!p->input_splat[v].empty() || (repeat[v].slot >= 0 && repeat[v].period == 1));
        };
        const bool splat0 = one_element(op.in0), splat1 = one_element(op.in1);
        const int side = splat0 == splat1 ? -1 : splat0 ? 0 : 1;
        if (side >= 0 && s.raw_binary_splat[side]) {
          op.binary_splat = s.raw_binary_splat[side];
          op.splat_operand = side;
        }
      }
      if (s.in.size() > 2) op.in2 = value_of.at(s.in[2]);
      op.elem_bytes = ir::ByteSize(s.out_types[0].elem);
      const int slot = s.out[0];
      auto lu = last_use.find(slot);
      if (lu != last_use.end() && lu->second >= end) {  // read after the run: materialise it
        op.output = static_cast<int>(fused.out.size());
        fused.out.push_back(slot);
        fused.out_types.push_back(s.out_types[0]);
      }
      value_of[slot] = num_inputs + static_cast<int>(p->ops.size());
      p->ops.push_back(op);
    }
    // Input element sizes come from the steps that read them.
    for (size_t k = i; k < end; ++k)
      for (size_t j = 0; j < prog.steps[k].in.size(); ++j) {
        const int v = value_of.at(prog.steps[k].in[j]);
        if (v < num_inputs) p->input_bytes[v] = prog.steps[k].raw_in_bytes[j];
      }
    // Repeating broadcasts are read from their operand (the broadcast may then go).
    for (size_t v = 0; v < fused.in.size(); ++v)
      if (repeat[v].slot >= 0) {
        fused.in[v] = repeat[v].slot;
        p->input_period[v] = repeat[v].period;
        p->input_inner[v] = repeat[v].inner;
      }
    fused.name += ")";
    fused.params = p;
    out.push_back(std::move(fused));
    i = end;
  }
  prog.steps = std::move(out);
  // Splat constants and repeating broadcasts nothing reads any more (fused runs read their
  // operands) are dropped.
  std::unordered_set<int> read(prog.results.begin(), prog.results.end());
  for (const Step& s : prog.steps) {
    const bool fused = s.fn == cpu::FusedElementwiseKernel();
    for (size_t v = 0; v < s.in.size(); ++v)
      if (!fused || v >= s.Params<cpu::FusedParams>().input_splat.size() ||
          s.Params<cpu::FusedParams>().input_splat[v].empty())
        read.insert(s.in[v]);
    std::vector<int> nested;
    for (const auto& r : s.regions) CollectUses(*r, &nested);
    read.insert(nested.begin(), nested.end());
  }
  std::erase_if(prog.steps, [&](const Step& s) {
    return (s.fn == cpu::SplatConstantKernel() || s.broadcast_period > 0) && !read.count(s.out[0]);
  });
}

void HoistLoopConstants(Program& prog) {
  std::vector<Step> hoisted_steps;
  hoisted_steps.reserve(prog.steps.size());
  for (Step& s : prog.steps) {
    for (auto& r : s.regions) HoistLoopConstants(*r);
    const bool loop = s.fn == cpu::WhileKernel() || s.fn == cpu::ScanKernel();
    if (loop) {
      // A region's constant keeps its slot: filled here once, read by every iteration, and
      // (defined out here now) neither cleared between iterations nor released inside.
      for (auto& r : s.regions) {
        auto constant = [](const Step& c) {
          return (c.fn == cpu::ConstantKernel() || c.fn == cpu::SplatConstantKernel()) && c.in.empty() &&
                 c.regions.empty();
        };
        std::vector<Step> kept;
        kept.reserve(r->steps.size());
        for (Step& c : r->steps) (constant(c) ? hoisted_steps : kept).push_back(std::move(c));
        r->steps = std::move(kept);
      }
    }
    hoisted_steps.push_back(std::move(s));
  }
  prog.steps = std::move(hoisted_steps);
}

// Releases each slot after the last step of the program that defines it which reads it.
void ComputeReleases(Program& prog) {
  std::unordered_set<int> defined(prog.args.begin(), prog.args.end());
  std::unordered_set<int> keep(prog.results.begin(), prog.results.end());
  std::unordered_map<int, size_t> last;
  for (size_t i = 0; i < prog.steps.size(); ++i) {
    Step& s = prog.steps[i];
    for (int o : s.out) {
      defined.insert(o);
      last[o] = i;
    }
    std::vector<int> uses = s.in;
    for (const auto& r : s.regions) CollectUses(*r, &uses);
    for (int u : uses) last[u] = i;
    for (const auto& r : s.regions) ComputeReleases(*r);
  }
  for (int a : prog.args)
    if (!last.count(a)) last[a] = 0;
  for (auto [slot, step] : last) {
    if (!defined.count(slot) || keep.count(slot) || prog.steps.empty()) continue;
    prog.steps[step].release.push_back(slot);
  }
}

namespace {

// Who defines and who reads each slot of one program (its nested programs' reads counted for the
// step that holds them; a result counts as two readers).
struct SlotUses {
  std::unordered_map<int, size_t> producer;  // slot -> the step defining it
  std::unordered_map<int, int> readers;
  std::unordered_map<int, size_t> reader;  // slot -> the (last) top-level step reading it
};
// False when a slot is defined twice (the fusions below then leave the program alone).
bool CountSlotUses(const Program& prog, SlotUses* uses) {
  for (size_t i = 0; i < prog.steps.size(); ++i)
    for (int o : prog.steps[i].out)
      if (!uses->producer.emplace(o, i).second) return false;
  for (size_t i = 0; i < prog.steps.size(); ++i) {
    const Step& s = prog.steps[i];
    std::vector<int> read = s.in;
    for (const auto& r : s.regions) CollectUses(*r, &read);
    for (int u : read) {
      ++uses->readers[u];
      uses->reader[u] = i;
    }
  }
  for (int r : prog.results) uses->readers[r] += 2;
  return true;
}

void KeepUnabsorbed(Program& prog, const std::vector<bool>& absorbed) {
  std::vector<Step> kept;
  for (size_t i = 0; i < prog.steps.size(); ++i)
    if (!absorbed[i]) kept.push_back(std::move(prog.steps[i]));
  prog.steps = std::move(kept);
}

}  // namespace

// A contiguous dynamic_slice whose result only a fused run reads, as an ordinary input (a scan
// body's xs[i] added to h W), is read by the run in place: the run's input becomes the sliced
// array, read at the slice's start (FusedParams::Window), and the slice's copy goes. A 64-wide
// RNN step had spent ~16 of its ~164 ns on the slice step.
void AbsorbDynamicSlices(Program& prog) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) AbsorbDynamicSlices(*r);
  SlotUses uses;
  if (!CountSlotUses(prog, &uses)) return;
  std::vector<bool> absorbed(prog.steps.size(), false);
  for (size_t f = 0; f < prog.steps.size(); ++f) {
    Step& run = prog.steps[f];
    if (run.fn != cpu::FusedElementwiseKernel()) continue;
    const size_t num_inputs = run.Params<cpu::FusedParams>().input_bytes.size();
    if (run.in.size() != num_inputs) continue;  // (it has windows already)
    std::shared_ptr<cpu::FusedParams> changed;  // (params may be shared: changed in a copy)
    const cpu::FusedParams& fp = run.Params<cpu::FusedParams>();
    for (size_t v = 0; v < num_inputs; ++v) {
      const int x = run.in[v];
      auto d_at = uses.producer.find(x);
      if (!fp.input_splat[v].empty() || fp.input_period[v] != 0 || uses.readers[x] != 1 ||
          std::count(run.in.begin(), run.in.end(), x) != 1 || d_at == uses.producer.end() || d_at->second >= f)
        continue;
      const Step& d = prog.steps[d_at->second];
      if (d.fn != cpu::DynamicSliceKernel() || d.out.size() != 1) continue;
      const cpu::DynamicSliceParams& dp = d.Params<cpu::DynamicSliceParams>();
      const size_t rank = dp.sizes.size();
      if (dp.operand_dims.size() != rank || d.in.size() != rank + 1 ||
          d.out_types[0].NumElements() != fp.num_elements || d.out_types[0].ElementSize() != fp.input_bytes[v])
        continue;
      bool contiguous = true, whole_after = true;
      for (size_t k = rank; k-- > 0;) {
        if (dp.sizes[k] != 1 && !whole_after) contiguous = false;
        whole_after = whole_after && dp.sizes[k] == dp.operand_dims[k];
      }
      if (!contiguous) continue;
      if (!changed) {
        changed = std::make_shared<cpu::FusedParams>(fp);
        changed->input_window.resize(num_inputs);
      }
      cpu::FusedParams::Window& w = changed->input_window[v];
      w.dims = dp.operand_dims;
      w.sizes = dp.sizes;
      w.first_index = static_cast<int>(run.in.size());
      run.in[v] = d.in[0];
      run.in.insert(run.in.end(), d.in.begin() + 1, d.in.end());
      absorbed[d_at->second] = true;
    }
    if (changed) run.params = changed;
  }
  KeepUnabsorbed(prog, absorbed);
}

// A fast reduction whose input is the only output of a fused elementwise run absorbs the run:
// the reduction computes its input block by block, and the array is never stored (sum(x * x),
// losses) or, when later steps read it too, stored as a second result of the reduction as its
// blocks are folded (softmax's exponentials, divided by their sums next: one pass over them
// instead of two).
void FuseReductions(Program& prog) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) FuseReductions(*r);
  std::unordered_map<int, int> readers;
  for (const Step& s : prog.steps) {
    std::vector<int> uses = s.in;
    for (const auto& r : s.regions) CollectUses(*r, &uses);
    for (int u : uses) ++readers[u];
  }
  for (int r : prog.results) readers[r] += 2;
  std::unordered_map<int, size_t> producer;  // slot -> index of the fused run defining it
  for (size_t i = 0; i < prog.steps.size(); ++i)
    if (prog.steps[i].fn == cpu::FusedElementwiseKernel() && prog.steps[i].out.size() == 1 &&
        !prog.steps[i].Params<cpu::FusedParams>().HasWindows())  // (the reduction reads inputs whole)
      producer[prog.steps[i].out[0]] = i;
  std::vector<bool> absorbed(prog.steps.size(), false);
  for (size_t i = 0; i < prog.steps.size(); ++i) {
    Step& r = prog.steps[i];
    if (!cpu::IsFastReduce(r)) continue;
    auto f = producer.find(r.in[0]);
    if (f == producer.end() || f->second > i) continue;
    // Other readers keep the run's array, which is then defined at the reduction's place: none
    // may read it before.
    const bool keep_value = readers[r.in[0]] != 1;
    if (keep_value) {
      bool read_between = false;
      for (size_t j = f->second + 1; j < i && !read_between; ++j) {
        std::vector<int> uses = prog.steps[j].in;
        for (const auto& region : prog.steps[j].regions) CollectUses(*region, &uses);
        read_between = std::count(uses.begin(), uses.end(), r.in[0]) > 0;
      }
      if (read_between) continue;
    }
    const Step& run = prog.steps[f->second];
    const cpu::ReduceParams& rp = r.Params<cpu::ReduceParams>();
    const cpu::FusedParams& fp = run.Params<cpu::FusedParams>();
    const std::vector<int64_t>& dims = run.out_types[0].dims;
    if (!cpu::ReduceIsContiguous(dims, rp.dims)) continue;
    cpu::KernelFn fn = cpu::FusedReduceKernel(rp, r.out_types[0].elem);
    if (!fn) continue;
    auto p = std::make_shared<cpu::FusedReduceParams>();
    p->producer = fp;
    p->reduce = rp;
    p->input_dims = dims;
    for (size_t k = 0; k < p->producer.ops.size(); ++k)
      if (p->producer.ops[k].output == 0) {
        if (!keep_value) p->producer.ops[k].output = -1;  // computed into a block buffer, never stored
        p->input_op = k;
      }
    Step merged;
    merged.fn = fn;
    merged.name = StrCat(run.name.substr(0, run.name.size() - 1), ", ", r.name, ")");
    merged.loc = r.loc;
    merged.in = run.in;
    merged.in.push_back(r.in[1]);
    merged.out = r.out;
    merged.out_types = r.out_types;
    if (keep_value) {
      merged.out.push_back(run.out[0]);
      merged.out_types.push_back(run.out_types[0]);
    }
    merged.params = p;
    r = std::move(merged);
    absorbed[f->second] = true;
  }
  KeepUnabsorbed(prog, absorbed);
}

// An f32 product (dot_general, convolution) whose result only a fused elementwise run reads, as
// an ordinary full-size input, takes the run as its epilogue (FusedProductParams) when the run's
// other inputs are splat constants or repeating broadcasts (bias, activation, scaling). The merged
// step stands where the product stood, so those inputs must be defined before it.
void FuseProductEpilogues(Program& prog) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) FuseProductEpilogues(*r);
  SlotUses uses;
  if (!CountSlotUses(prog, &uses)) return;
  auto& [producer, readers, reader] = uses;
  std::vector<bool> absorbed(prog.steps.size(), false);
  for (size_t i = 0; i < prog.steps.size(); ++i) {
    Step& d = prog.steps[i];
    const bool is_gather = d.fn == cpu::GatherKernel() && d.out.size() == 1 && d.in.size() == 2;
    if (!is_gather &&
        (!cpu::IsEpilogueProduct(d) || d.out.size() != 1 || d.out_types[0].elem != ir::ElemKind::kF32))
      continue;
    int x = d.out[0];
    if (readers[x] != 1) continue;
    size_t f = reader[x];
    // A no-copy reshape between them (what a transposed product folded into dot_general leaves,
    // FoldTransposedProducts: JAX's weight gradient before its SGD update): the product is made
    // in the reshape's type, which the run reads.
    size_t reshape = prog.steps.size();
    if (!is_gather && prog.steps[f].fn == cpu::ReshapeKernel() && d.name == "stablehlo.dot_general" &&
        prog.steps[f].out.size() == 1 &&
        prog.steps[f].out_types[0].ByteSize() == d.out_types[0].ByteSize() && readers[prog.steps[f].out[0]] == 1) {
      reshape = f;
      x = prog.steps[f].out[0];
      f = reader[x];
    }
    Step& run = prog.steps[f];
    if (f <= i || run.fn != cpu::FusedElementwiseKernel()) continue;
    const cpu::FusedParams& fp = run.Params<cpu::FusedParams>();
    if (fp.num_elements != d.out_types[0].NumElements() || (is_gather && fp.HasWindows())) continue;
    int input = -1;
    bool ready = true;
    for (size_t v = 0; v < run.in.size(); ++v) {
      if (run.in[v] == x) {
        if (v < fp.input_splat.size() && fp.input_splat[v].empty() && fp.input_period[v] == 0)
          input = static_cast<int>(v);
        continue;
      }
      auto p = producer.find(run.in[v]);
      ready = ready && (p == producer.end() || p->second < i);
    }
    if (input < 0 || !ready) continue;
    Step merged;
    merged.name = StrCat(d.name, " + ", run.name);
    merged.loc = d.loc;
    merged.in = d.in;
    for (int slot : run.in)
      if (slot != x) merged.in.push_back(slot);
    merged.out = run.out;
    merged.out_types = run.out_types;
    if (is_gather) {
      auto g = std::make_shared<cpu::FusedGatherParams>();
      merged.fn = cpu::FusedGatherKernel();
      g->gather_input = input;
      g->gather = std::move(d);
      g->epilogue = std::move(run);
      merged.params = g;
    } else {
      auto p = std::make_shared<cpu::FusedProductParams>();
      merged.fn = cpu::FusedProductKernel();
      if (reshape < prog.steps.size()) {
        d.out = prog.steps[reshape].out;
        d.out_types = prog.steps[reshape].out_types;
        absorbed[reshape] = true;
      }
      p->product_input = input;
      p->product = std::move(d);
      p->epilogue = std::move(run);
      merged.params = p;
    }
    prog.steps[i] = std::move(merged);
    absorbed[f] = true;
  }
  KeepUnabsorbed(prog, absorbed);
}

// A scatter of whole rows whose updates only a gather makes, bare or with a FusedGatherParams
// epilogue whose other inputs are the same at every position, takes that step into itself
// (FusedScatterParams), at the scatter's place: the gather's inputs are defined before it.
void FuseLookupsIntoScatters(Program& prog) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) FuseLookupsIntoScatters(*r);
  SlotUses uses;
  if (!CountSlotUses(prog, &uses)) return;
  std::vector<bool> absorbed(prog.steps.size(), false);
  for (size_t j = 0; j < prog.steps.size(); ++j) {
    Step& sc = prog.steps[j];
    if (sc.fn != cpu::ScatterKernel() || sc.in.size() != 3 || sc.out.size() != 1 ||
        !sc.Params<cpu::ScatterParams>().fold || uses.readers[sc.in[2]] != 1)
      continue;
    auto p = uses.producer.find(sc.in[2]);
    if (p == uses.producer.end() || p->second >= j || absorbed[p->second]) continue;
    Step& d = prog.steps[p->second];
    bool lookup = d.fn == cpu::GatherKernel() && d.in.size() == 2 && d.out.size() == 1;
    if (d.fn == cpu::FusedGatherKernel() && d.out.size() == 1) {
      const auto& g = d.Params<cpu::FusedGatherParams>();
      const auto& fp = g.epilogue.Params<cpu::FusedParams>();
      lookup = true;
      for (size_t v = 0; v < g.epilogue.in.size(); ++v)
        lookup = lookup && (static_cast<int>(v) == g.gather_input || !fp.input_splat[v].empty() ||
                            (!fp.input_period.empty() && fp.input_period[v] == 1));
    }
    if (!lookup) continue;
    Step merged;
    merged.name = StrCat(d.name, " + ", sc.name);
    merged.loc = sc.loc;
    merged.fn = cpu::FusedScatterKernel();
    merged.in = d.in;
    merged.in.push_back(sc.in[0]);
    merged.in.push_back(sc.in[1]);
    merged.out = sc.out;
    merged.out_types = sc.out_types;
    auto fs = std::make_shared<cpu::FusedScatterParams>();
    fs->updates = std::move(d);
    fs->scatter = std::move(sc);
    merged.params = fs;
    absorbed[p->second] = true;
    prog.steps[j] = std::move(merged);
  }
  KeepUnabsorbed(prog, absorbed);
}

// The right operand of an f32 dot_general that is a constant (weights baked into an exported
// inference program) is packed for the kernel once, here, instead of on every run.
void PrepackConstantWeights(Program& prog) {
  std::unordered_map<int, const cpu::Array*> constant;
  std::unordered_map<int, int> definitions;
  for (Step& s : prog.steps) {
    for (auto& r : s.regions) PrepackConstantWeights(*r);
    for (int o : s.out) ++definitions[o];
    if (s.fn == cpu::ConstantKernel() && s.out.size() == 1) {
      const cpu::RtValue& v = s.Params<cpu::ConstantParams>().value;
      if (v.kind == cpu::RtValue::Kind::kArray) constant[s.out[0]] = &v.array;
    }
  }
  for (Step& s : prog.steps) {
    if (s.in.size() != 2) continue;
    auto c = constant.find(s.in[1]);
    if (c != constant.end() && definitions[s.in[1]] == 1) cpu::PrepackDotRhs(s, *c->second);
  }
}

void DropUnreadSteps(Program& prog) {
  // (A region's values are not visible outside it: each nested program is pruned against its
  // own reads and results.)
  for (Step& s : prog.steps)
    for (auto& r : s.regions) DropUnreadSteps(*r);
  std::vector<int> uses;
  CollectUses(prog, &uses);
  std::vector<bool> read;
  for (int u : uses) {
    if (u >= static_cast<int>(read.size())) read.resize(static_cast<size_t>(u) + 1, false);
    read[static_cast<size_t>(u)] = true;
  }
  auto unread = [&](const Step& s) {
    if (s.out.size() != 1 || s.out_types.size() != 1 || !s.regions.empty()) return false;
    const int o = s.out[0];
    if (o < static_cast<int>(read.size()) && read[static_cast<size_t>(o)]) return false;
    if (s.fn == cpu::ConstantKernel() || s.fn == cpu::SplatConstantKernel()) return true;
    if (s.fn == cpu::TransposeKernel()) return true;  // a product reads its operand (FoldTransposes)
    // A static broadcast (its shapes checked when compiling) whose scalar a scatter fills from.
    if (s.fn == cpu::BroadcastInDimKernel() && s.in.size() == 1) return true;
    absl::StatusOr<cpu::KernelFn> iota = cpu::SelectIota(s.out_types[0].elem);
    return iota.ok() && s.fn == *iota;
  };
  prog.steps.erase(std::remove_if(prog.steps.begin(), prog.steps.end(), unread), prog.steps.end());
}

namespace {

// Whether `s` may be computed at compile time from constant operands: data movement of any
// element kind, iota, and elementwise steps whose operands and result are integers or booleans
// (masks built from iotas; float arithmetic is left to run time, where executions may flush
// subnormals to zero).
bool Foldable(const Step& s) {
  if (!s.regions.empty() || s.out.size() != 1 || s.out_types.size() != 1) return false;
  if (s.fn == cpu::BroadcastInDimKernel() || s.fn == cpu::ReshapeKernel() || s.fn == cpu::TransposeKernel() ||
      s.fn == cpu::ConcatenateKernel() || s.fn == cpu::SliceKernel() || s.fn == cpu::ReverseKernel())
    return true;
  absl::StatusOr<cpu::KernelFn> iota = cpu::SelectIota(s.out_types[0].elem);
  if (iota.ok() && s.fn == *iota) return true;
  if (!s.raw_unary && !s.raw_binary && !s.raw_op) return false;
  return ir::IsInteger(s.out_types[0].elem);
}

}  // namespace

void FoldConstants(Program& prog) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) FoldConstants(*r);
  constexpr int64_t kMaxFolded = int64_t{1} << 20;  // bytes of one folded result
  std::unordered_map<int, const Step*> constant;  // slot -> the constant step defining it
  std::unordered_map<int, int> definitions;
  for (const Step& s : prog.steps)
    for (int o : s.out) ++definitions[o];
  auto value_of = [](const Step& c) {
    if (c.fn == cpu::ConstantKernel()) return c.Params<cpu::ConstantParams>().value;
    // A splat's array built here, not in its parameters (which fused runs never make it fill).
    const cpu::SplatConstantParams& p = c.Params<cpu::SplatConstantParams>();
    cpu::Array a = cpu::Array::Allocate(p.type);
    const int64_t n = p.type.NumElements(), es = static_cast<int64_t>(p.element.size());
    for (int64_t i = 0; i < n; ++i) std::memcpy(a.mutable_data() + i * es, p.element.data(), static_cast<size_t>(es));
    return cpu::RtValue::Of(std::move(a));
  };
  for (Step& s : prog.steps) {
    if ((s.fn == cpu::ConstantKernel() || s.fn == cpu::SplatConstantKernel()) && s.in.empty() && s.out.size() == 1 &&
        definitions[s.out[0]] == 1) {
      constant[s.out[0]] = &s;
      continue;
    }
    if (!Foldable(s) || definitions[s.out[0]] != 1 || s.out_types[0].ByteSize() > kMaxFolded) continue;
    // Operands must all be constants, and not all splats (whose results fused runs read as
    // splats already, without an array).
    bool constants = true, splats = !s.in.empty();
    int top = s.out[0];
    for (int in : s.in) {
      auto it = constant.find(in);
      constants = constants && it != constant.end();
      if (!constants) break;
      splats = splats && it->second->fn == cpu::SplatConstantKernel();
      top = std::max(top, in);
    }
    if (!constants || splats) continue;
    cpu::ExecState st;
    st.slots.resize(static_cast<size_t>(top) + 1);
    for (int in : s.in) st.slots[static_cast<size_t>(in)] = value_of(*constant[in]);
    s.fn(s, st);
    const cpu::RtValue& v = st.slots[static_cast<size_t>(s.out[0])];
    if (!st.ok() || v.kind != cpu::RtValue::Kind::kArray || !(v.array.type() == s.out_types[0])) continue;
    auto p = std::make_shared<cpu::ConstantParams>();
    p->value = v;
    Step c;
    c.fn = cpu::ConstantKernel();
    c.name = s.name;
    c.loc = s.loc;
    c.out = s.out;
    c.out_types = s.out_types;
    c.params = std::move(p);
    s = std::move(c);
    constant[s.out[0]] = &s;
  }
}

void FoldReshapes(Program& prog) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) FoldReshapes(*r);
  std::unordered_map<int, size_t> producer;
  std::unordered_map<int, int> readers;
  for (size_t i = 0; i < prog.steps.size(); ++i) {
    const Step& s = prog.steps[i];
    for (int o : s.out)
      if (!producer.emplace(o, i).second) return;  // a slot defined twice: leave the program alone
    std::vector<int> uses = s.in;
    for (const auto& r : s.regions) CollectUses(*r, &uses);
    for (int u : uses) ++readers[u];
  }
  for (int r : prog.results) readers[r] += 2;
  std::vector<bool> folded(prog.steps.size(), false);
  for (size_t i = 0; i < prog.steps.size(); ++i) {
    Step& reshape = prog.steps[i];
    if (reshape.fn != cpu::ReshapeKernel() || reshape.in.size() != 1 || reshape.out.size() != 1) continue;
    auto p = producer.find(reshape.in[0]);
    if (p == producer.end() || readers[reshape.in[0]] != 1) continue;
    Step& slice = prog.steps[p->second];
    if ((slice.fn != cpu::SliceKernel() && slice.fn != cpu::DynamicSliceKernel()) || slice.out.size() != 1 ||
        slice.out_types[0].ByteSize() != reshape.out_types[0].ByteSize())
      continue;
    slice.out = reshape.out;
    slice.out_types = reshape.out_types;
    producer[reshape.out[0]] = p->second;
    folded[i] = true;
  }
  std::vector<Step> kept;
  kept.reserve(prog.steps.size());
  for (size_t i = 0; i < prog.steps.size(); ++i)
    if (!folded[i]) kept.push_back(std::move(prog.steps[i]));
  prog.steps = std::move(kept);
}

void CollectUses(const Program& p, std::vector<int>* uses) {
  for (const Step& s : p.steps) {
    uses->insert(uses->end(), s.in.begin(), s.in.end());
    for (const auto& r : s.regions) CollectUses(*r, uses);
  }
  uses->insert(uses->end(), p.results.begin(), p.results.end());
}

}  // namespace openpjrt::compiler
