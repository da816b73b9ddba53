// IsaLevel (isa.h): compiled with the kernel files' OPENPJRT_VECTOR_CLONES setting, so that a
// build without the copies always picks the baseline.
#include "src/cpu/exec/isa.h"

#include <algorithm>
#include <cstdlib>

namespace openpjrt::cpu {

int IsaLevel() {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  static const int level = [] {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                      __builtin_cpu_supports("f16c") && __builtin_cpu_supports("bmi") &&
                      __builtin_cpu_supports("bmi2");
    const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    const int best = avx512 ? 2 : avx2 ? 1 : 0;
    const char* cap = std::getenv("OPENPJRT_MAX_ISA");
    if (cap && (cap[0] == '0' || cap[0] == '1') && cap[1] == 0) return std::min(best, cap[0] - '0');
    return best;
  }();
  return level;
#else
  return 0;
#endif
}

}  // namespace openpjrt::cpu
