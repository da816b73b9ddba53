// See fast_math_avx512.h; the vector bodies are in fast_math_avx512_inl.h.
#include "src/cpu/math/fast_math_avx512.h"

#include "src/cpu/math/fast_math.h"
#include "src/cpu/exec/isa.h"

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
#include "src/cpu/math/fast_math_avx512_inl.h"

namespace openpjrt::cpu::fast {
namespace {

using namespace v512;

// Four vectors per step (their dependency chains overlap), then single vectors, then a masked tail.
template <__m512 (*F)(__m512)>
OPJ_TARGET_512 void Loop(const void* xv, void* yv, int64_t n) {
  const float* x = static_cast<const float*>(xv);
  float* y = static_cast<float*>(yv);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 a = F(_mm512_loadu_ps(x + i)), b = F(_mm512_loadu_ps(x + i + 16));
    const __m512 c = F(_mm512_loadu_ps(x + i + 32)), d = F(_mm512_loadu_ps(x + i + 48));
    _mm512_storeu_ps(y + i, a);
    _mm512_storeu_ps(y + i + 16, b);
    _mm512_storeu_ps(y + i + 32, c);
    _mm512_storeu_ps(y + i + 48, d);
  }
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, F(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, F(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

}  // namespace

F32Loop Avx512Exp() { return IsaLevel() == 2 ? &Loop<Exp> : nullptr; }
F32Loop Avx512Tanh() { return IsaLevel() == 2 ? &Loop<Tanh> : nullptr; }
F32Loop Avx512Logistic() { return IsaLevel() == 2 ? &Loop<Logistic> : nullptr; }
F32Loop Avx512Log() { return IsaLevel() == 2 ? &Loop<Log> : nullptr; }
F32Loop Avx512Erf() { return IsaLevel() == 2 ? &Loop<Erf> : nullptr; }

}  // namespace openpjrt::cpu::fast

#else

namespace openpjrt::cpu::fast {
F32Loop Avx512Exp() { return nullptr; }
F32Loop Avx512Tanh() { return nullptr; }
F32Loop Avx512Logistic() { return nullptr; }
F32Loop Avx512Log() { return nullptr; }
F32Loop Avx512Erf() { return nullptr; }
}  // namespace openpjrt::cpu::fast

#endif
