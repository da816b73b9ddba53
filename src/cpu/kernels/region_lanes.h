// Many calls of an elementwise region at once. The bodies of reduce, reduce_window, sort,
// scatter, select_and_scatter and map are scalar functions; when every step of one is
// elementwise (the compiler then fused it into elementwise runs, whose loops take any element
// count), LaneRegion evaluates it for up to kLanes argument tuples in one pass over the steps,
// lane j of every argument giving one call's arguments, instead of one region call (slots,
// arrays, a fused kernel's set-up) per tuple. The lanes are independent: each computes exactly
// what a call of the region with its arguments returns. Internal to src/cpu.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "src/cpu/kernels/fused.h"
#include "src/cpu/exec/program.h"

namespace openpjrt::cpu {

class LaneRegion {
 public:
  static constexpr int64_t kLanes = kFusedBlock;

  // Null when a step of `region` is not elementwise over scalars (a nested reduce, a loop, a
  // custom call...) or it reads an outer value that is not one element; callers then call the
  // region per tuple. arg_bytes[i]: the element size of argument i. `st` supplies outer values.
  static std::unique_ptr<LaneRegion> Make(const Program& region, const ExecState& st,
                                          const std::vector<int>& arg_bytes);
  // A fold's body (reduce, reduce_window, scatter): arguments (acc_0..acc_n-1, x_0..x_n-1) and
  // results acc_0..acc_n-1 of element sizes es; null when the region is not like that.
  static std::unique_ptr<LaneRegion> MakeFold(const Program& region, const ExecState& st, const std::vector<int>& es);
  ~LaneRegion();

  // Argument i's kLanes elements, for the caller to fill before Run.
  uint8_t* arg(size_t i) { return args_[i]; }
  // Result j's elements after Run (valid until the next Run).
  const uint8_t* result(size_t j) const { return results_[j]; }
  int result_bytes(size_t j) const { return result_bytes_[j]; }
  size_t num_results() const { return results_.size(); }

  // Evaluates lanes [0, count), count <= kLanes.
  void Run(int64_t count);

 private:
  struct Planned;
  LaneRegion() = default;

  std::vector<Array> storage_;  // every lane buffer
  std::vector<uint8_t*> args_;
  std::vector<const uint8_t*> results_;
  std::vector<int> result_bytes_;
  std::vector<std::unique_ptr<Planned>> steps_;
};

}  // namespace openpjrt::cpu
