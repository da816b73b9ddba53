// while, if, case and chlo.scan: the executor runs the region programs; values flow through
// their slots.
#include <algorithm>
#include <cstring>

#include "src/cpu/kernels/kernels.h"
#include "src/cpu/exec/strided.h"

namespace openpjrt::cpu {
namespace {

// Empties the slots a region defines (its arguments and its steps' results) once its results
// have been copied out, so that the values carried around a loop are held by the loop alone: a
// buffer updated in place (dynamic_update_slice at the last use of a Unique array) then stays
// in place from one iteration to the next instead of being copied at each (lax.scan).
void ClearRegionSlots(const Program& region, ExecState& st) {
  for (int a : region.args) st.slots[a].Clear();
  for (const Step& step : region.steps)
    for (int o : step.out) st.slots[o].Clear();
}

// Per result of `region`: whether the executor may move it out of its slot after a run. A slot
// the region defines (an argument or a step's result) is cleared right afterwards anyway, unless
// the same slot is returned again later in the list; a value captured from the enclosing program
// must stay where it is (copied out).
std::vector<char> MovableResults(const Program& region) {
  std::vector<int> own(region.args.begin(), region.args.end());
  for (const Step& step : region.steps) own.insert(own.end(), step.out.begin(), step.out.end());
  std::sort(own.begin(), own.end());
  std::vector<char> movable(region.results.size());
  for (size_t i = 0; i < region.results.size(); ++i) {
    const int r = region.results[i];
    movable[i] = std::binary_search(own.begin(), own.end(), r) &&
                 std::find(region.results.begin() + static_cast<std::ptrdiff_t>(i) + 1, region.results.end(), r) ==
                     region.results.end();
  }
  return movable;
}

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

// The loop-carried values go straight into the regions' argument slots and come back out of the
// body's result slots by move: no argument or result vectors per iteration, and an array the
// body updates in place stays unique from one iteration to the next.
void While(const Step& s, ExecState& st) {
  const Program& cond = *s.regions[0];
  const Program& body = *s.regions[1];
  const std::vector<char> movable = MovableResults(body);
  // The condition usually reads the counter alone: the other carried values are not copied in.
  std::vector<char> read(st.slots.size());
  MarkReads(cond, read);
  std::vector<char> cond_reads(cond.args.size());
  for (size_t i = 0; i < cond.args.size(); ++i) cond_reads[i] = read[cond.args[i]];
  std::vector<RtValue> vals;
  vals.reserve(s.in.size());
  for (int in : s.in) vals.push_back(st.slots[in]);
  while (true) {
    for (size_t i = 0; i < vals.size(); ++i)
      if (cond_reads[i]) st.slots[cond.args[i]] = vals[i];
    RunProgram(cond, st);
    if (!st.ok()) return;
    const bool go = st.slots[cond.results[0]].array.data()[0] != 0;
    ClearRegionSlots(cond, st);
    if (!go) break;
    for (size_t i = 0; i < vals.size(); ++i) st.slots[body.args[i]] = std::move(vals[i]);
    RunProgram(body, st);
    if (!st.ok()) return;
    for (size_t i = 0; i < vals.size(); ++i) {
      RtValue& r = st.slots[body.results[i]];
      if (movable[i]) vals[i] = std::move(r);
      else vals[i] = r;
    }
    ClearRegionSlots(body, st);
  }
  for (size_t i = 0; i < s.out.size(); ++i) st.slots[s.out[i]] = std::move(vals[i]);
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
    outs.push_back(Array::Allocate(s.out_types[i]));
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
