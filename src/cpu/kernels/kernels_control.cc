// while, if, case and chlo.scan: the executor runs the region programs; values flow through
// their slots.
#include <algorithm>
#include <cstring>
#include <optional>

#include "src/cpu/kernels/fused.h"
#include "src/cpu/kernels/kernels.h"
#include "src/cpu/exec/strided.h"

namespace openpjrt::cpu {
namespace {

// Empties the slots a region defines once its results have been copied out, so that the values
// carried around a loop are held by the loop alone: a buffer updated in place
// (dynamic_update_slice at the last use of a Unique array) then stays in place from one
// iteration to the next instead of being copied at each (lax.scan).
void ClearSlots(const std::vector<int>& slots, ExecState& st) {
  for (int s : slots) st.Release(s);
}

// A loop condition that is one elementwise step over scalars (the counter test of every
// fori_loop and scan: compare LT, i, n), evaluated on the carried values where they are: no
// region run, no slot copies and no array for its one predicate (measured: ~1% of a 64-wide RNN
// step, whose time is elsewhere; every loop iteration takes this path).
class ScalarTest {
 public:
  ScalarTest(const Program& cond) {
    if (cond.steps.size() != 1 || cond.results.size() != 1) return;
    const Step& t = cond.steps[0];
    if ((!t.raw_op && !t.raw_binary) || t.out.size() != 1 || t.out[0] != cond.results[0] || !t.regions.empty() ||
        t.out_types[0].elem != ElemKind::kI1 || t.out_types[0].NumElements() != 1 || t.in.size() > 3 ||
        (t.raw_binary && t.in.size() != 2))
      return;
    for (int slot : t.in) {
      auto it = std::find(cond.args.begin(), cond.args.end(), slot);
      arg_.push_back(it == cond.args.end() ? -1 : static_cast<int>(it - cond.args.begin()));
    }
    step_ = &t;
  }
  bool valid() const { return step_ != nullptr; }
  // The predicate for the carried values (carried value i in slot carried[i]); nullopt where an
  // operand is not a one-element array (the region then runs as written).
  std::optional<bool> operator()(const std::vector<int>& carried, ExecState& st) const {
    const void* in[3] = {nullptr, nullptr, nullptr};
    for (size_t k = 0; k < arg_.size(); ++k) {
      const RtValue& v = st.slots[arg_[k] >= 0 ? carried[static_cast<size_t>(arg_[k])] : step_->in[k]];
      if (v.kind != RtValue::Kind::kArray || v.array.NumElements() != 1) return std::nullopt;
      in[k] = v.array.data();
    }
    uint8_t go = 0;
    if (step_->raw_binary) step_->raw_binary(in[0], in[1], &go, 1);
    else step_->raw_op(step_->params.get(), in, &go, 1);
    return go != 0;
  }
  const Step& step() const { return *step_; }

 private:
  const Step* step_ = nullptr;
  FusedList<int> arg_;  // per operand: the condition argument it is, or -1 (a value from outside)
};

// How the body's results become the next iteration's carried values, which live in the body's
// argument slots between iterations (no list of carried values moved in and out each time; the
// RtValue moves and clears had been a sixth of a small RNN step): a value the body passes
// through (result i is argument i) stays where it is; a result one of the body's steps defines
// is moved straight into its argument slot unless another result still needs that slot's value;
// any other result (a permutation of the arguments, a value captured from outside, one returned
// twice) goes through a temporary, copied where its slot must keep it.
struct LoopPlan {
  enum class Move : uint8_t { kStay, kDirect, kMoveVia, kCopyVia };
  std::vector<Move> moves;  // per carried value
  bool any_via = false;
  std::vector<int> cond_slots;  // the slots the condition defines
  std::vector<int> step_slots;  // the slots the body's steps define

  LoopPlan(const Program& cond, const Program& body) {
    const std::vector<int>& args = body.args;
    const std::vector<int>& results = body.results;
    for (const Step& step : body.steps) step_slots.insert(step_slots.end(), step.out.begin(), step.out.end());
    auto count = [](const std::vector<int>& v, int x) { return std::count(v.begin(), v.end(), x); };
    moves.resize(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const int r = results[i];
      const bool once = count(results, r) == 1;
      const bool is_arg = count(args, r) > 0;
      const bool defined = is_arg || count(step_slots, r) > 0;  // (else captured from outside)
      bool slot_needed = false;  // another result reads argument slot i
      for (size_t j = 0; j < results.size(); ++j) slot_needed = slot_needed || (j != i && results[j] == args[i]);
      if (r == args[i] && once) moves[i] = Move::kStay;
      else if (defined && !is_arg && once && !slot_needed) moves[i] = Move::kDirect;
      else moves[i] = defined && once ? Move::kMoveVia : Move::kCopyVia;
      any_via = any_via || (moves[i] != Move::kStay && moves[i] != Move::kDirect);
    }
    cond_slots.assign(cond.args.begin(), cond.args.end());
    for (const Step& step : cond.steps) cond_slots.insert(cond_slots.end(), step.out.begin(), step.out.end());
  }
};

// Marks the slots `p` reads (its steps' operands, its nested regions' and its results).
void MarkReads(const Program& p, std::vector<char>& read) {
  auto mark = [&](int slot) {
    if (slot >= 0 && static_cast<size_t>(slot) < read.size()) read[slot] = 1;
  };
  for (const Step& step : p.steps) {
    for (int in : step.in) mark(in);
    for (const auto& r : step.regions)
      if (r) MarkReads(*r, read);
  }
  for (int r : p.results) mark(r);
}

// A counter the loop adds itself: body step `step` is a 32-bit integer add of carried value
// `carried` and a scalar from outside the loop (fori_loop's and scan's i + 1), whose sum nothing
// in the body reads and which is the body's result for that carried value. The loop passes the
// step over and adds the increment to the carried scalar in place after each iteration (a fresh
// copy when its storage is shared): no step dispatch, output array or exchange of slots for it
// (~10 ns of a 64-wide RNN step's ~165).
struct Counter {
  size_t step = SIZE_MAX;  // SIZE_MAX: none
  size_t carried = 0;
  uint32_t increment = 0;

  Counter(const Program& body, const LoopPlan& plan, const ExecState& st) {
    for (size_t k = 0; k < body.steps.size(); ++k) {
      const Step& t = body.steps[k];
      if (t.vec_op != VecOp::kIAdd || t.in.size() != 2 || t.out.size() != 1 || !t.regions.empty() ||
          t.out_types[0].NumElements() != 1)
        continue;
      const int sum = t.out[0];
      // The result slot of exactly one carried value, moved straight in, read by no step.
      const auto r = std::find(body.results.begin(), body.results.end(), sum);
      if (r == body.results.end() || std::count(body.results.begin(), body.results.end(), sum) != 1) continue;
      const size_t j = static_cast<size_t>(r - body.results.begin());
      if (plan.moves[j] != LoopPlan::Move::kDirect) continue;
      bool read = false;
      for (const Step& u : body.steps) {
        read = read || std::count(u.in.begin(), u.in.end(), sum) > 0;
        for (const auto& region : u.regions) {
          std::vector<char> marks(st.slots.size());
          if (region) MarkReads(*region, marks);
          read = read || (static_cast<size_t>(sum) < marks.size() && marks[static_cast<size_t>(sum)]);
        }
      }
      if (read) continue;
      // Operands: carried value j and a 32-bit scalar defined outside the loop.
      const int other = t.in[0] == body.args[j] ? t.in[1] : t.in[1] == body.args[j] ? t.in[0] : -1;
      if (other < 0 || other == body.args[j] ||
          std::count(body.args.begin(), body.args.end(), other) > 0 ||
          std::count(plan.step_slots.begin(), plan.step_slots.end(), other) > 0)
        continue;
      const RtValue& inc = st.slots[static_cast<size_t>(other)];
      if (inc.kind != RtValue::Kind::kArray || inc.array.NumElements() != 1 || inc.array.type().ElementSize() != 4)
        continue;
      const RtValue& cur = st.slots[static_cast<size_t>(body.args[j])];
      if (cur.kind != RtValue::Kind::kArray || cur.array.NumElements() != 1 || cur.array.type().ElementSize() != 4 ||
          !cur.tuple.empty())
        continue;
      std::memcpy(&increment, inc.array.data(), 4);
      step = k;
      carried = j;
      return;
    }
  }
  // Adds the increment to the carried counter (wrapping, as the add does).
  void Advance(const std::vector<int>& carried_slots, ExecState& st) const {
    RtValue& v = st.slots[static_cast<size_t>(carried_slots[carried])];
    uint32_t x;
    std::memcpy(&x, v.array.data(), 4);
    x += increment;
    if (!v.array.Unique()) {
      Array fresh = st.NewArray(v.array.type());
      v = RtValue::Of(std::move(fresh));
    }
    std::memcpy(v.array.mutable_data(), &x, 4);
  }
};

// The carried values stay in the body's argument slots (LoopPlan). The slots the body's steps
// define are emptied after each iteration, so that the carried values are held by the loop
// alone: a buffer updated in place (dynamic_update_slice at the last use of a Unique array) then
// stays in place from one iteration to the next instead of being copied at each (lax.scan).
void While(const Step& s, ExecState& st) {
  const Program& cond = *s.regions[0];
  const Program& body = *s.regions[1];
  const std::vector<int>& carried = body.args;
  LoopPlan plan(cond, body);
  // The condition usually reads the counter alone: the other carried values are not copied in.
  std::vector<char> read(st.slots.size());
  MarkReads(cond, read);
  std::vector<char> cond_reads(cond.args.size());
  for (size_t i = 0; i < cond.args.size(); ++i) cond_reads[i] = read[cond.args[i]];
  const ScalarTest test(cond);
  for (size_t i = 0; i < carried.size(); ++i) st.slots[carried[i]] = st.slots[s.in[i]];
  const Counter counter(body, plan, st);
  if (counter.step != SIZE_MAX) plan.moves[counter.carried] = LoopPlan::Move::kStay;
  auto leave = [&] { ClearSlots(carried, st); };
  std::vector<RtValue> via(plan.any_via ? carried.size() : 0);
  // Per iteration, only what changes: the results moved straight into their carried slots, and
  // the slots the steps that run define (not the counter's, which is never filled).
  std::vector<std::pair<int, int>> direct;  // (carried slot, result slot)
  for (size_t i = 0; i < carried.size(); ++i)
    if (plan.moves[i] == LoopPlan::Move::kDirect) direct.push_back({carried[i], body.results[i]});
  std::vector<int> defined;
  for (size_t k = 0; k < body.steps.size(); ++k)
    if (k != counter.step) defined.insert(defined.end(), body.steps[k].out.begin(), body.steps[k].out.end());
  while (true) {
    std::optional<bool> go;
    if (test.valid()) {
      if (st.step_budget >= 0 && st.step_budget-- == 0) {
        leave();
        return st.Fail(test.step(), absl::ResourceExhaustedError("the step budget of this execution is spent"));
      }
      go = test(carried, st);
      if (!go && st.step_budget >= 0) ++st.step_budget;  // the region runs it after all
    }
    if (!go) {
      for (size_t i = 0; i < carried.size(); ++i)
        if (cond_reads[i]) st.slots[cond.args[i]] = st.slots[carried[i]];
      RunProgram(cond, st);
      if (!st.ok()) return leave();
      go = st.slots[cond.results[0]].array.data()[0] != 0;
      ClearSlots(plan.cond_slots, st);
    }
    if (!*go) break;
    RunProgram(body, st, nullptr, counter.step);
    if (!st.ok()) return leave();
    if (counter.step != SIZE_MAX) counter.Advance(carried, st);
    if (plan.any_via) {
      for (size_t i = 0; i < carried.size(); ++i) {
        RtValue& r = st.slots[body.results[i]];
        if (plan.moves[i] == LoopPlan::Move::kMoveVia) via[i] = std::move(r);
        else if (plan.moves[i] == LoopPlan::Move::kCopyVia) via[i] = r;
      }
    }
    // (Swapped: the old value then dies in the result's slot, which keeps its storage for the
    // next iteration's result, ExecState::Release.)
    for (const auto& [to, from] : direct) st.slots[to].Swap(st.slots[from]);
    if (plan.any_via) {
      for (size_t i = 0; i < carried.size(); ++i)
        if (plan.moves[i] == LoopPlan::Move::kMoveVia || plan.moves[i] == LoopPlan::Move::kCopyVia)
          st.slots[carried[i]] = std::move(via[i]);
    }
    for (int slot : defined) st.Release(slot);
  }
  for (size_t i = 0; i < s.out.size(); ++i) st.slots[s.out[i]] = std::move(st.slots[carried[i]]);
  leave();
}

void RunBranch(const Step& s, ExecState& st, size_t branch) {
  std::vector<RtValue> args, results;
  if (!CallRegion(*s.regions[branch], st, args, &results)) return;
  for (size_t i = 0; i < s.out.size(); ++i) st.slots[s.out[i]] = std::move(results[i]);
}

void If(const Step& s, ExecState& st) {
  RunBranch(s, st, st.slots[s.in[0]].array.data()[0] ? 0 : 1);
}

void Case(const Step& s, ExecState& st) {
  int64_t index = ReadIndex(st.slots[s.in[0]].array);
  const int64_t n = static_cast<int64_t>(s.regions.size());
  // An out-of-range index selects the last branch.
  if (index < 0 || index >= n) index = n - 1;
  RunBranch(s, st, static_cast<size_t>(index));
}

// The position `t` along `dim` of an array viewed as [outer, length, inner]: one copy of
// `inner` bytes per outer index, between `whole` and the slice (the dimension removed).
struct AlongDim {
  int64_t outer = 1, length = 1, inner = 1;  // inner in bytes
  AlongDim(const ArrayType& whole, int64_t dim) {
    for (int64_t d = 0; d < whole.rank(); ++d) {
      if (d < dim) outer *= whole.dims[d];
      else if (d > dim) inner *= whole.dims[d];
    }
    length = whole.dims[dim];
    inner *= whole.ElementSize();
  }
  void Read(const Array& whole, int64_t t, uint8_t* slice) const {
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(slice + o * inner, whole.data() + (o * length + t) * inner, static_cast<size_t>(inner));
  }
  void Write(const uint8_t* slice, int64_t t, const Array& whole) const {
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(whole.mutable_data() + (o * length + t) * inner, slice + o * inner, static_cast<size_t>(inner));
  }
};

ArrayType WithoutDim(const ArrayType& t, int64_t dim) {
  ArrayType s = t;
  s.dims.erase(s.dims.begin() + dim);
  return s;
}

void Scan(const Step& s, ExecState& st) {
  const ScanParams& p = s.Params<ScanParams>();
  const size_t n = p.num_inputs, m = s.in.size() - n, k = s.out.size() - m;
  std::vector<AlongDim> in_view, out_view;
  for (size_t i = 0; i < n; ++i) in_view.emplace_back(st.slots[s.in[i]].array.type(), p.dimension);
  std::vector<Array> outs;
  for (size_t i = 0; i < k; ++i) {
    outs.push_back(st.NewArray(s.out_types[i]));
    out_view.emplace_back(s.out_types[i], p.dimension);
  }
  const int64_t length = n > 0 ? in_view[0].length : out_view[0].length;
  std::vector<RtValue> carries, args, res;
  for (size_t j = 0; j < m; ++j) carries.push_back(st.slots[s.in[n + j]]);
  for (int64_t step = 0; step < length; ++step) {
    const int64_t t = p.reverse ? length - 1 - step : step;
    args.clear();
    for (size_t i = 0; i < n; ++i) {
      const Array& whole = st.slots[s.in[i]].array;
      Array slice = Array::Allocate(WithoutDim(whole.type(), p.dimension));
      in_view[i].Read(whole, t, slice.mutable_data());
      args.push_back(RtValue::Of(std::move(slice)));
    }
    for (RtValue& c : carries) args.push_back(std::move(c));
    if (!CallRegion(*s.regions[0], st, args, &res)) return;
    for (size_t i = 0; i < k; ++i) out_view[i].Write(res[i].array.data(), t, outs[i]);
    carries.assign(std::make_move_iterator(res.begin() + static_cast<std::ptrdiff_t>(k)),
                   std::make_move_iterator(res.end()));
  }
  for (size_t i = 0; i < k; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(outs[i]));
  for (size_t j = 0; j < m; ++j) st.slots[s.out[k + j]] = std::move(carries[j]);
}

}  // namespace

KernelFn ScanKernel() { return &Scan; }
KernelFn WhileKernel() { return &While; }
KernelFn IfKernel() { return &If; }
KernelFn CaseKernel() { return &Case; }

}  // namespace openpjrt::cpu
