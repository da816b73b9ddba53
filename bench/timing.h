// Timing helper shared by the benchmarks: the best wall time of several runs, which is the
// least disturbed by other work on the machine.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace openpjrt::bench {

template <typename F>
double BestSeconds(int reps, F&& f) {
  using Clock = std::chrono::steady_clock;
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

// The median wall time of `reps` runs.
template <typename F>
double MedianSeconds(int reps, F&& f) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> t(static_cast<size_t>(reps));
  for (double& v : t) {
    auto t0 = Clock::now();
    f();
    v = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace openpjrt::bench
