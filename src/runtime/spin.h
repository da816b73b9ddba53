// Brief polling before sleeping. Waking a thread that sleeps on a condition variable costs tens
// of microseconds on a VM, more than many kernels take, so pool workers, intra-op callers and
// event waiters poll for a short while first.
#pragma once

#include <chrono>
#include <mutex>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace openpjrt::runtime {

inline constexpr auto kSpinBeforeSleep = std::chrono::microseconds(100);

// Polls ready() until it is true or `limit` has passed; returns its last answer.
template <typename F>
bool SpinUntil(F&& ready, std::chrono::microseconds limit = kSpinBeforeSleep) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (int i = 0;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__)
    _mm_pause();
#endif
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

// Locks mu, polling it for a while first. For locks held a few instructions at a time (the
// pool's queue): a thread that blocks on a held std::mutex sleeps in the kernel at once, and on
// a VM is woken tens of microseconds after the holder lets go (the helper of every intra-op
// fork did, taking its task while the forking thread still held the queue's lock).
inline void LockPolling(std::mutex& mu) {
  for (int i = 0; i < 4096; ++i) {
    if (mu.try_lock()) return;
#if defined(__x86_64__)
    _mm_pause();
#endif
  }
  mu.lock();
}

}  // namespace openpjrt::runtime
