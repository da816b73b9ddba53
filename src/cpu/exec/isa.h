// Hand-dispatched instruction-set variants of the elementwise, convert and reduction loops.
//
// Each loop body is written once as an always-inlined function; ForCpu<&Body>() returns a
// pointer to a copy of it compiled for the best level this CPU supports: AVX-512 (F, BW, VL,
// DQ) with FMA, AVX2 with FMA and F16C, or the x86-64 baseline. GCC's target_clones was used
// before, but its "arch=" clones are chosen by CPU model (an AVX2 AMD or a newer Intel part never
// got the Haswell copy) and its plain "avx512f" copy cannot vectorise 16-bit conversions (bf16,
// f16). Results are the same bits at every level: fused multiply-adds are written out and
// correctly rounded everywhere, and nothing else depends on the vector width.
//
// Optimised builds without sanitizers define OPENPJRT_VECTOR_CLONES (src/cpu/CMakeLists.txt);
// other builds run the baseline copy only.
#pragma once

#include <cstdint>

namespace openpjrt::cpu {

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
#define OPJ_TARGET_512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c,bmi,bmi2")))
#define OPJ_TARGET_256 __attribute__((target("avx2,fma,f16c,bmi,bmi2")))
#else
#define OPJ_TARGET_512
#define OPJ_TARGET_256
#endif

// 2: AVX-512 level, 1: AVX2 level, 0: baseline (always 0 in builds without the copies), found
// once (isa.cc). OPENPJRT_MAX_ISA=0 or 1 caps it, to run and time the narrower copies on a wider
// CPU. Out of line: a pick is a call and a switch, where an inline one with its own guarded
// static repeated the guard in each of the ~2,000 places that pick.
int IsaLevel();

namespace isa_internal {
template <auto Body, typename... A>
OPJ_TARGET_512 void At512(A... a) { Body(a...); }
template <auto Body, typename... A>
OPJ_TARGET_256 void At256(A... a) { Body(a...); }
template <auto Body, typename... A>
void AtBase(A... a) { Body(a...); }
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
// The baseline copy of a loop that also has AVX2 and AVX-512 copies runs only on x86-64 CPUs
// without AVX2 (made before 2013): compiled for size and without vectorization, it keeps the
// plugin 1.1 MB smaller. Kinds with no wider copies keep a vectorized baseline (AtBase).
template <auto Body, typename... A>
__attribute__((optimize("Os", "no-tree-vectorize"))) void AtOld(A... a) { Body(a...); }
#else
template <auto Body, typename... A>
void AtOld(A... a) { Body(a...); }
#endif
template <auto Body, typename... A>
auto Base(void (*)(A...)) -> void (*)(A...) {
  return &AtBase<Body, A...>;
}
template <auto Body, typename... A>
auto Pick(void (*)(A...)) -> void (*)(A...) {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  switch (IsaLevel()) {
    case 2: return &At512<Body, A...>;
    case 1: return &At256<Body, A...>;
    default: return &AtOld<Body, A...>;
  }
#else
  return &AtBase<Body, A...>;
#endif
}
}  // namespace isa_internal

// Body (a pointer to an always-inlined function returning void) compiled for this CPU; with
// kCopies = false, the baseline copy only (see HasVectorCopies).
template <auto Body, bool kCopies = true>
auto ForCpu() {
  if constexpr (kCopies) {
    return isa_internal::Pick<Body>(Body);
  } else {
    return isa_internal::Base<Body>(Body);
  }
}

}  // namespace openpjrt::cpu
