// while, if and case: the executor runs the region programs; values flow through their slots.
#include "src/cpu/kernels.h"
#include "src/cpu/strided.h"

namespace openpjrt::cpu {
namespace {

void While(const Step& s, ExecState& st) {
  const Program& cond = *s.regions[0];
  const Program& body = *s.regions[1];
  std::vector<RtValue> vals, args, pred;
  for (int in : s.in) vals.push_back(st.slots[in]);
  while (true) {
    args = vals;
    if (!CallRegion(cond, st, args, &pred)) return;
    if (!pred[0].array.data()[0]) break;
    args = std::move(vals);
    if (!CallRegion(body, st, args, &vals)) return;
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

}  // namespace

KernelFn WhileKernel() { return &While; }
KernelFn IfKernel() { return &If; }
KernelFn CaseKernel() { return &Case; }

}  // namespace openpjrt::cpu
