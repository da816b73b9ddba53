// Definitions that stand in for the two objects of Debian's static abseil archives that are not
// position-independent (see cmake/abseil.cmake): both keep a thread-local variable in the
// local-exec TLS model, which a shared object cannot hold. Linked ahead of the archives, these
// definitions satisfy every reference, so neither archive member is ever pulled in.
//
// 1. cordz_functions.o: sampling of Cord trees for abseil's cordz profiler. Switched off here:
//    cordz_should_profile() (inline in absl/strings/internal/cordz_functions.h) counts
//    cordz_next_sample down per new tree and takes the slow path at 1; the counter starts at the
//    largest value and the slow path puts it back and declines.
// 2. sysinfo.o: the CPU count, the time-stamp counter's rate and the thread id, which abseil's
//    Mutex and clocks ask for.
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <thread>

#include "absl/base/internal/sysinfo.h"
#include "absl/strings/internal/cordz_functions.h"

namespace absl {
ABSL_NAMESPACE_BEGIN
namespace cord_internal {
namespace {
std::atomic<int32_t> mean_interval{0};
}  // namespace

int32_t get_cordz_mean_interval() { return mean_interval.load(std::memory_order_relaxed); }
void set_cordz_mean_interval(int32_t interval) {
  mean_interval.store(interval, std::memory_order_relaxed);
}

#ifdef ABSL_INTERNAL_CORDZ_ENABLED
ABSL_CONST_INIT thread_local int64_t cordz_next_sample = std::numeric_limits<int64_t>::max();

bool cordz_should_profile_slow() {
  cordz_next_sample = std::numeric_limits<int64_t>::max();
  return false;
}

void cordz_set_next_sample_for_testing(int64_t next_sample) { cordz_next_sample = next_sample; }
#endif
}  // namespace cord_internal

namespace base_internal {

int NumCPUs() {
  static const int count = [] {
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
  }();
  return count;
}

// Ticks per second of the counter abseil's cycle clock reads (rdtsc on x86-64), measured once
// against the steady clock over 10 ms; elsewhere the cycle clock is the steady clock itself.
double NominalCPUFrequency() {
  static const double hz = [] {
#if defined(__x86_64__)
    auto t0 = std::chrono::steady_clock::now();
    uint64_t c0 = __builtin_ia32_rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    uint64_t c1 = __builtin_ia32_rdtsc();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return seconds > 0 ? static_cast<double>(c1 - c0) / seconds : 1e9;
#else
    return 1e9;
#endif
  }();
  return hz;
}

pid_t GetTID() { return static_cast<pid_t>(syscall(SYS_gettid)); }

pid_t GetCachedTID() {
  static thread_local pid_t tid = GetTID();
  return tid;
}

}  // namespace base_internal
ABSL_NAMESPACE_END
}  // namespace absl
