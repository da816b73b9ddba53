// Timing helper shared by the benchmarks: the best wall time of several runs, which is the
// least disturbed by other work on the machine.
#pragma once

#include <algorithm>
#include <chrono>

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

}  // namespace openpjrt::bench
