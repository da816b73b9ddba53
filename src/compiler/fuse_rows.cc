// FuseRows (passes.h): chains of row reductions and the fused runs around them become row groups
// (cpu/kernels/fused_rows.h).
//
// A group grows from a row reduction (f32 add, max or min over the trailing dimensions of R rows
// of C): the fused runs of R x C elements just before it join it, and so do the steps after it
// while each is a member (a run over R or R x C elements, another such reduction, a copy of a
// member's value under another shape) or a pure step that reads nothing the group defines (a
// constant, a scalar op; such steps move in front of the group). The first other step ends it.
// Values the group defines are read along their rows only: a per-row value as a per-row input of
// a run over R x C elements or as an input of a run over R; an R x C value elementwise.
#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "src/compiler/passes.h"
#include "src/cpu/kernels/fused_rows.h"
#include "src/cpu/kernels/kernels.h"
#include "src/support/str.h"

namespace openpjrt::compiler {

using cpu::ArrayType;
using cpu::FusedParams;
using cpu::FusedRowsParams;
using cpu::Program;
using cpu::Step;

namespace {

using TypeMap = std::unordered_map<int, ArrayType>;

// Rows longer than this stay apart: a block of one row would no longer sit in L1.
constexpr int64_t kMaxRow = 8192;
// Smaller arrangements stay apart: their steps' arrays fit in L2 anyway, and tiny runs have a
// cheaper path of their own (FusedSmall).
constexpr int64_t kMinElements = int64_t{1} << 14;


struct RowShape {
  int64_t R = 0, C = 0;
};

// R rows of C when `dims` are the trailing dimensions of `in` (dimensions of size 1 aside);
// R = 0 otherwise.
RowShape TrailingRows(const std::vector<int64_t>& in, const std::vector<int64_t>& dims) {
  std::vector<bool> reduced(in.size(), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(in.size())) return {};
    reduced[static_cast<size_t>(d)] = true;
  }
  RowShape r{1, 1};
  bool in_row = false;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1) continue;
    if (reduced[i]) {
      in_row = true;
      r.C *= in[i];
    } else if (in_row) {
      return {};
    } else {
      r.R *= in[i];
    }
  }
  return r;
}

// A reduction a group can hold: its rows, its op, and whether it absorbed its producer run.
struct RowReduction {
  RowShape shape;
  cpu::BinaryOp op = cpu::BinaryOp::kAdd;
  bool fused = false;
};

bool AsRowReduction(const Step& s, const TypeMap& types, RowReduction* r) {
  if (s.out_types.empty() || s.out_types[0].elem != ir::ElemKind::kF32 || s.in.size() < 2) return false;
  for (cpu::BinaryOp op : {cpu::BinaryOp::kAdd, cpu::BinaryOp::kMax, cpu::BinaryOp::kMin}) {
    cpu::ReduceParams fast;
    fast.has_fast = true;
    fast.fast = op;
    if (s.fn == cpu::FusedReduceKernel(fast, ir::ElemKind::kF32)) {
      const auto& p = s.Params<cpu::FusedReduceParams>();
      if (p.producer.HasWindows()) return false;
      *r = {TrailingRows(p.input_dims, p.reduce.dims), op, true};
    } else if (cpu::IsFastReduce(s) && s.Params<cpu::ReduceParams>().fast == op && s.out_types.size() == 1) {
      auto t = types.find(s.in[0]);
      if (t == types.end() || t->second.elem != ir::ElemKind::kF32) return false;
      *r = {TrailingRows(t->second.dims, s.Params<cpu::ReduceParams>().dims), op, false};
    } else {
      continue;
    }
    return r->shape.R >= 2 && r->shape.C >= 2 && r->shape.C <= kMaxRow && r->shape.R * r->shape.C >= kMinElements;
  }
  return false;
}

bool Fusible(const Step& s) {
  return (s.raw_unary || s.raw_binary || s.raw_op) && s.regions.empty() && s.out.size() == 1 &&
         s.out_types.size() == 1;
}

// Steps without effects that may run before the group when they read nothing it defines.
bool Pure(const Step& s) {
  if (!s.regions.empty()) return false;
  return Fusible(s) || s.broadcast_period > 0 || s.fn == cpu::SplatConstantKernel() || s.fn == cpu::ConstantKernel() ||
         s.fn == cpu::BroadcastInDimKernel() || s.fn == cpu::ReshapeKernel() || s.fn == cpu::FusedElementwiseKernel();
}

class Group {
 public:
  Group(RowShape shape, const TypeMap& types) : shape_(shape), types_(types) {
    p_ = std::make_shared<FusedRowsParams>();
    p_->rows = shape.R;
    p_->cols = shape.C;
  }

  // Whether `s` reads a value the group defines.
  bool Reads(const Step& s) const {
    std::vector<int> uses = s.in;
    for (const auto& r : s.regions) CollectUses(*r, &uses);
    return std::any_of(uses.begin(), uses.end(), [&](int u) { return defined_.count(u) > 0; });
  }

  // Adds `s` as one or two members when it can be; false, with nothing changed, otherwise.
  bool TryAdd(const Step& s) {
    RowReduction red;
    if (AsRowReduction(s, types_, &red)) {
      if (red.shape.R != shape_.R || red.shape.C != shape_.C) return false;
      return red.fused ? AddFusedReduction(s, red.op) : AddReduction(s, red.op);
    }
    if (s.fn == cpu::FusedElementwiseKernel()) {
      const auto& fp = s.Params<FusedParams>();
      if (fp.HasWindows() || s.out.size() != s.out_types.size()) return false;
      std::vector<int> in(s.in.begin(), s.in.begin() + static_cast<std::ptrdiff_t>(fp.input_bytes.size()));
      if (!RunFits(fp, in)) return false;
      AddRun(std::make_shared<FusedParams>(fp), in, s.out, s.out_types, s.name);
      return true;
    }
    if (Fusible(s)) return AddSingle(s);
    // A copy under another shape (reshape, broadcast to [R, 1]) of a value the group defines.
    const bool copy = s.fn == cpu::ReshapeKernel() ||
                      (s.broadcast_period > 0 && s.broadcast_inner == 1 && s.out_types.size() == 1 &&
                       s.broadcast_period == s.out_types[0].NumElements());
    if (copy && s.in.size() == 1 && s.out.size() == 1 && defined_.count(s.in[0])) {
      defined_[s.out[0]] = defined_.at(s.in[0]);
      slot_types_[s.out[0]] = s.out_types[0];
      return true;
    }
    return false;
  }

  int heavy() const { return heavy_; }
  int reductions() const { return reductions_; }

  // The group's step: `reads_after(slot)` says whether a slot is read after it.
  template <typename ReadsAfter>
  Step Finish(const ReadsAfter& reads_after, const ir::Loc& loc) {
    for (const auto& [slot, v] : defined_) {
      if (!reads_after(slot)) continue;
      p_->values[static_cast<size_t>(v)].out_slots.push_back(slot);
      p_->values[static_cast<size_t>(v)].out_types.push_back(slot_types_.at(slot));
    }
    Step g;
    g.fn = cpu::FusedRowsKernel();
    g.loc = loc;
    g.name = StrCat("rows(", names_, ")");
    for (auto& v : p_->values) {
      if (v.in_slot >= 0) g.in.push_back(v.in_slot);
      // Out slots in slot order: the same program compiles to the same step.
      std::vector<size_t> order(v.out_slots.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v.out_slots[a] < v.out_slots[b]; });
      std::vector<int> slots;
      std::vector<ArrayType> types;
      for (size_t k : order) {
        slots.push_back(v.out_slots[k]);
        types.push_back(v.out_types[k]);
        g.out.push_back(v.out_slots[k]);
        g.out_types.push_back(v.out_types[k]);
      }
      v.out_slots = std::move(slots);
      v.out_types = std::move(types);
      v.scratch = v.in_slot < 0 && !v.per_row && v.out_slots.empty();
    }
    Host();
    g.params = p_;
    return g;
  }

 private:
  int64_t N_rows() const { return shape_.R; }
  int64_t N_all() const { return shape_.R * shape_.C; }

  // Scratch values whose last reader is a run over R x C that writes an output of their element
  // size are kept in that output's rows (Value::host). (Also where the output is large enough to
  // be streamed otherwise: softmax over 8192 x 512 f32 at one thread took 2.35 ms with its
  // exponentials hosted, 3.0 with them in scratch and the result streamed; through JAX with eight
  // calls in flight (each result in other memory) 2.8-3.4 against 3.5-3.7 ms, and over 32768 x
  // 128 within noise, 3.6-4.3 against 3.8-4.1 ms.)
  void Host() {
    auto& values = p_->values;
    std::vector<int> last(values.size(), -1);  // per value: the last member that reads it
    for (size_t k = 0; k < p_->members.size(); ++k)
      for (int v : p_->members[k].in)
        if (v >= 0) last[static_cast<size_t>(v)] = static_cast<int>(k);
    std::vector<bool> hosting(values.size(), false);
    for (size_t k = 0; k < p_->members.size(); ++k) {
      FusedRowsParams::Member& m = p_->members[k];
      if (!m.run || m.run->num_elements != N_all()) continue;
      for (size_t i = 0; i < m.in.size(); ++i) {
        const int x = m.in[i];
        if (x < 0 || !values[static_cast<size_t>(x)].scratch || values[static_cast<size_t>(x)].host >= 0 ||
            last[static_cast<size_t>(x)] != static_cast<int>(k) || m.run->input_period[i] != 0)
          continue;
        for (int y : m.out) {
          const auto& out = values[static_cast<size_t>(y)];
          if (out.scratch || hosting[static_cast<size_t>(y)] ||
              ir::ByteSize(out.type.elem) != ir::ByteSize(values[static_cast<size_t>(x)].type.elem))
            continue;
          values[static_cast<size_t>(x)].host = y;
          hosting[static_cast<size_t>(y)] = true;
          // One op reads each element before writing it; longer runs write after the block.
          m.deferred = m.deferred || m.run->ops.size() > 1;
          break;
        }
      }
    }
  }

  // Whether a run over fp.num_elements reading `in` (its input slots) reads the group's values
  // along their rows.
  bool RunFits(const FusedParams& fp, const std::vector<int>& in) const {
    const int64_t n = fp.num_elements;
    if (n != N_rows() && n != N_all()) return false;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!fp.input_splat[i].empty()) continue;
      auto d = defined_.find(in[i]);
      if (d == defined_.end()) continue;  // from before the group: read as the run reads it
      const FusedRowsParams::Value& v = p_->values[static_cast<size_t>(d->second)];
      const int64_t per = fp.input_period[i], inner = fp.input_inner[i];
      if (per == 0 ? v.per_row != (n == N_rows()) : !(v.per_row && n == N_all() && per == shape_.R && inner == shape_.C))
        return false;
    }
    return true;
  }

  int ValueOf(int slot) {
    if (auto d = defined_.find(slot); d != defined_.end()) return d->second;
    if (auto i = inputs_.find(slot); i != inputs_.end()) return i->second;
    FusedRowsParams::Value v;
    v.in_slot = slot;
    p_->values.push_back(v);
    return inputs_[slot] = static_cast<int>(p_->values.size()) - 1;
  }
  int Define(int slot, const ArrayType& t, bool per_row) {
    FusedRowsParams::Value v;
    v.per_row = per_row;
    v.type = t;
    p_->values.push_back(v);
    const int id = static_cast<int>(p_->values.size()) - 1;
    if (slot >= 0) {
      defined_[slot] = id;
      slot_types_[slot] = t;
    }
    return id;
  }
  void Name(const std::string& name) { StrAppend(&names_, names_.empty() ? "" : ", ", name); }

  // out slots -1: a value of the group's own (a fused reduction's input).
  void AddRun(std::shared_ptr<FusedParams> fp, const std::vector<int>& in, const std::vector<int>& out,
              const std::vector<ArrayType>& out_types, const std::string& name) {
    FusedRowsParams::Member m;
    for (size_t i = 0; i < in.size(); ++i) m.in.push_back(fp->input_splat[i].empty() ? ValueOf(in[i]) : -1);
    const bool per_row = fp->num_elements == N_rows();
    for (size_t k = 0; k < out.size(); ++k) m.out.push_back(Define(out[k], out_types[k], per_row));
    heavy_ += !per_row;
    m.run = std::move(fp);
    p_->members.push_back(std::move(m));
    Name(name);
  }
  bool AddReduction(const Step& s, cpu::BinaryOp op) {
    auto x = defined_.find(s.in[0]);
    if ((x != defined_.end() && p_->values[static_cast<size_t>(x->second)].per_row) || defined_.count(s.in[1])) return false;
    FusedRowsParams::Member m;
    m.in = {ValueOf(s.in[0]), ValueOf(s.in[1])};
    m.out = {Define(s.out[0], s.out_types[0], true)};
    m.fold = op;
    p_->members.push_back(std::move(m));
    ++heavy_, ++reductions_;
    Name(s.name);
    return true;
  }
  // The absorbed run computes the reduction's input into a value of the group (scratch unless
  // the step kept it as its second result), which a reduction member then folds.
  bool AddFusedReduction(const Step& s, cpu::BinaryOp op) {
    const auto& fr = s.Params<cpu::FusedReduceParams>();
    std::vector<int> in(s.in.begin(), s.in.end() - 1);
    if (fr.producer.num_elements != N_all() || in.size() != fr.producer.input_bytes.size() ||
        !RunFits(fr.producer, in) || defined_.count(s.in.back()))
      return false;
    auto fp = std::make_shared<FusedParams>(fr.producer);
    std::vector<int> out = {-1};
    std::vector<ArrayType> out_types = {ArrayType{ir::ElemKind::kF32, fr.input_dims}};
    if (s.out.size() == 2) {
      out = {s.out[1]};
      out_types = {s.out_types[1]};
    }
    fp->ops[fr.input_op].output = 0;
    const size_t first_value = p_->values.size();
    AddRun(std::move(fp), in, out, out_types, s.name);
    // (AddRun defined the run's value after any inputs it added.)
    int value = -1;
    for (size_t v = first_value; v < p_->values.size(); ++v)
      if (p_->values[v].in_slot < 0) value = static_cast<int>(v);
    FusedRowsParams::Member m;
    m.in = {value, ValueOf(s.in.back())};
    m.out = {Define(s.out[0], s.out_types[0], true)};
    m.fold = op;
    p_->members.push_back(std::move(m));
    ++reductions_;
    return true;
  }
  // A lone elementwise step over R or R x C elements, as a run of one op.
  bool AddSingle(const Step& s) {
    const int64_t n = s.out_types[0].NumElements();
    if (n != N_rows() && n != N_all()) return false;
    auto fp = std::make_shared<FusedParams>();
    fp->num_elements = n;
    FusedParams::Op op = FusedOpOf(s);
    op.in0 = 0;
    op.in1 = s.in.size() > 1 ? 1 : 0;
    op.in2 = s.in.size() > 2 ? 2 : 0;
    op.output = 0;
    op.elem_bytes = ir::ByteSize(s.out_types[0].elem);
    fp->ops.push_back(op);
    for (size_t j = 0; j < s.in.size(); ++j) fp->input_bytes.push_back(s.raw_in_bytes[j]);
    fp->input_splat.assign(s.in.size(), {});
    fp->input_period.assign(s.in.size(), 0);
    fp->input_inner.assign(s.in.size(), 1);
    if (!RunFits(*fp, s.in)) return false;
    AddRun(std::move(fp), s.in, s.out, s.out_types, s.name);
    return true;
  }

  RowShape shape_;
  const TypeMap& types_;
  std::shared_ptr<FusedRowsParams> p_;
  std::unordered_map<int, int> defined_;  // slot -> value, for slots members define
  std::unordered_map<int, ArrayType> slot_types_;
  std::unordered_map<int, int> inputs_;   // slot -> value, for slots from before the group
  std::string names_;
  int heavy_ = 0, reductions_ = 0;
};

void CollectTypes(const Program& prog, TypeMap* types) {
  for (const Step& s : prog.steps) {
    for (size_t k = 0; k < s.out.size() && k < s.out_types.size(); ++k) types->emplace(s.out[k], s.out_types[k]);
    for (const auto& r : s.regions) CollectTypes(*r, types);
  }
}

void FuseRowsIn(Program& prog, const TypeMap& types) {
  for (Step& s : prog.steps)
    for (auto& r : s.regions) FuseRowsIn(*r, types);
  const size_t n = prog.steps.size();
  {
    std::unordered_set<int> defined;
    for (const Step& s : prog.steps)
      for (int o : s.out)
        if (!defined.insert(o).second) return;  // a slot defined twice: leave the program alone
  }
  // The last step that reads each slot (nested programs included); results are read last.
  std::unordered_map<int, size_t> last_read;
  for (size_t i = 0; i < n; ++i) {
    std::vector<int> uses = prog.steps[i].in;
    for (const auto& r : prog.steps[i].regions) CollectUses(*r, &uses);
    for (int u : uses) last_read[u] = i;
  }
  for (int r : prog.results) last_read[r] = SIZE_MAX;
  std::vector<Step> out;
  size_t done = 0;  // steps before this index are in `out`
  for (size_t i = 0; i < n; ++i) {
    RowReduction red;
    if (!AsRowReduction(prog.steps[i], types, &red)) continue;
    Group g(red.shape, types);
    // Runs over the rows just before the reduction join from the first that fits on.
    size_t start = i;
    while (start > done && prog.steps[start - 1].fn == cpu::FusedElementwiseKernel() &&
           prog.steps[start - 1].Params<FusedParams>().num_elements == red.shape.R * red.shape.C)
      --start;
    for (; start < i; ++start) {
      Group trial(red.shape, types);
      bool ok = true;
      for (size_t k = start; k <= i && ok; ++k) ok = trial.TryAdd(prog.steps[k]);
      if (ok) break;
    }
    for (size_t k = start; k <= i; ++k) g.TryAdd(prog.steps[k]);
    std::vector<size_t> pre;
    size_t end = i + 1;
    for (; end < n; ++end) {
      const Step& s = prog.steps[end];
      if (g.TryAdd(s)) continue;
      if (g.Reads(s) || !Pure(s)) break;
      pre.push_back(end);
    }
    while (!pre.empty() && pre.back() == end - 1) {  // pure steps after the last member stay after it
      pre.pop_back();
      --end;
    }
    if (g.heavy() < 2) continue;
    for (size_t k = done; k < start; ++k) out.push_back(std::move(prog.steps[k]));
    for (size_t k : pre) out.push_back(std::move(prog.steps[k]));
    const ir::Loc loc = prog.steps[i].loc;
    out.push_back(g.Finish([&](int slot) {
      auto it = last_read.find(slot);
      return it != last_read.end() && it->second >= end;
    }, loc));
    done = end;
    i = end - 1;
  }
  if (done == 0) return;
  for (size_t k = done; k < n; ++k) out.push_back(std::move(prog.steps[k]));
  prog.steps = std::move(out);
}

}  // namespace

void FuseRows(Program& prog, const std::vector<ArrayType>& arg_types) {
  if (const char* env = std::getenv("OPENPJRT_ROW_GROUPS"); env && std::string(env) == "0") return;
  TypeMap types;
  for (size_t a = 0; a < prog.args.size() && a < arg_types.size(); ++a) types.emplace(prog.args[a], arg_types[a]);
  CollectTypes(prog, &types);
  FuseRowsIn(prog, types);
}

}  // namespace openpjrt::compiler
