// The floating-point environment executions run in: whether subnormal (denormal) numbers are
// flushed to zero.
//
// XLA's CPU runtime runs every execution with subnormals flushed: results that would be
// subnormal become zero (x86 MXCSR.FTZ, AArch64 FPCR.FZ) and subnormal inputs of float
// instructions read as zero (MXCSR.DAZ; AArch64's FZ covers both). Besides matching XLA's answers,
// this keeps data with many subnormals from running at microcode speed: a 4x8x128x128 batched
// product over attention weights that had underflowed took 46 ms with subnormals kept and 0.35 ms
// with them flushed (x86, AVX-512).
//
// The setting is per thread. ScopedFlushDenormals sets it for a scope and puts back what was
// there; executions take it around their run (Executable::RunWith) and around each helper piece
// of an intra-op loop (Parallel::flush_denormals), so a caller's own floating-point environment
// is the same after an execution as before. Integer bit manipulation (bf16/f16/f8 conversions,
// reduce_precision, nextafter) is unaffected; only float instructions see the mode. On other
// architectures the scope changes nothing.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace openpjrt::cpu {

class ScopedFlushDenormals {
 public:
  explicit ScopedFlushDenormals(bool flush) {
    if (!flush) return;
#if defined(__x86_64__) || defined(_M_X64)
    constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bit 15 (flush to zero), bit 6 (denormals are zero)
    saved_ = _mm_getcsr();
    if ((saved_ & kFtzDaz) != kFtzDaz) {
      _mm_setcsr(saved_ | kFtzDaz);
      changed_ = true;
    }
#elif defined(__aarch64__)
    constexpr uint64_t kFz = uint64_t{1} << 24;  // FPCR.FZ
    uint64_t fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    saved_ = fpcr;
    if ((fpcr & kFz) == 0) {
      fpcr |= kFz;
      __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr));
      changed_ = true;
    }
#endif
  }
  ~ScopedFlushDenormals() {
    if (!changed_) return;
#if defined(__x86_64__) || defined(_M_X64)
    _mm_setcsr(static_cast<unsigned>(saved_));
#elif defined(__aarch64__)
    const uint64_t fpcr = saved_;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr));
#endif
  }
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  uint64_t saved_ = 0;
  bool changed_ = false;
};

}  // namespace openpjrt::cpu
