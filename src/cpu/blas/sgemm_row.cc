// The AVX-512 f32 GEMM's single-row products (sgemm_internal.h RowSgemm, sgemm.h SgemmSingleRow):
// one row of A against B read in place. Built for the baseline instruction set like
// sgemm_avx512.cc; only the functions marked OPJ_AVX512 use AVX-512, and they run only after
// HaveFastSgemm() has checked the CPU.
#include "src/cpu/blas/sgemm.h"
#include "src/cpu/blas/sgemm_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>

namespace openpjrt::cpu {

#if defined(__x86_64__)

namespace sgemm_internal {
namespace {

// One block of up to 16 * V columns from jc: V vectors of accumulators. V is the number of
// vectors that hold columns (a narrow B such as an RNN cell's 64 columns takes V = 4), so that
// every mask stays in a register and no FMA runs on lanes that are never stored (with V = 8 for
// 64 columns, half the FMAs and loads were masked out and the masks were reloaded from the stack
// every depth step). The lanes that are stored see the same operations in the same order.
// Full: all 16 * V columns are there, loaded without masks (with masks, GCC kept V + 1 of them
// on the stack and reloaded them every depth step: four more loads per step in the loop that
// loads most, the RNN step's 1x64 @ 64x64 ~80 -> ~68 ns).
// acc[v] += a * row[16 v ...] for the V vectors of the block (masked unless Full).
template <int V, bool Full>
OPJ_AVX512 __attribute__((always_inline)) inline void RowDepthStep(__m512* acc, float a, const float* row,
                                                                   const __mmask16* mask) {
  const __m512 av = _mm512_set1_ps(a);
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v)
    acc[v] = _mm512_fmadd_ps(av, Full ? _mm512_loadu_ps(row + 16 * v) : _mm512_maskz_loadu_ps(mask[v], row + 16 * v), acc[v]);
}

template <int V, bool Full>
OPJ_AVX512 inline void RowColumnBlock(int64_t jc, int64_t w, int64_t k, int64_t kcb, const SgemmOperand& a,
                                      const SgemmOperand& b, float* c) {
  __mmask16 mask[V];
  for (int v = 0; v < V; ++v) {
    const int64_t left = std::clamp<int64_t>(w - 16 * v, 0, 16);
    mask[v] = static_cast<__mmask16>(left >= 16 ? 0xFFFF : (1u << left) - 1);
  }
  for (int64_t pc = 0; pc < k; pc += kcb) {
    const int64_t kc = std::min(kcb, k - pc);
    __m512 acc[V];
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[v] = _mm512_setzero_ps();
    const float* ap = a.p;  // (locals: stores to c might otherwise alias a and b)
    const float* bp = b.p + jc;
    const int64_t acs = a.cs, brs = b.rs;
    // Unrolled where all columns are there: the loop's own instructions were a third of an RNN
    // step's 1x64 @ 64x64, and a loop body step is bound by the instructions it issues as much as
    // by the FMA chains. (Masked blocks keep the plain loop: ~3 KB less code.)
    int64_t p = pc;
    if constexpr (Full) {
      for (; p + 4 <= pc + kc; p += 4) {
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) RowDepthStep<V, Full>(acc, ap[(p + u) * acs], bp + (p + u) * brs, mask);
      }
    }
    for (; p < pc + kc; ++p) RowDepthStep<V, Full>(acc, ap[p * acs], bp + p * brs, mask);
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) {
      __m512 out = acc[v];
      if (pc > 0) out = _mm512_add_ps(_mm512_maskz_loadu_ps(mask[v], c + jc + 16 * v), out);
      _mm512_mask_storeu_ps(c + jc + 16 * v, mask[v], out);
    }
  }
}

// An aligned 64-byte load that may take in bytes outside the operand (the line around its first
// or last columns): it cannot fault, and in inline assembly AddressSanitizer does not see it. Its
// lanes outside the operand never reach a result.
OPJ_AVX512 inline __m512 LoadLine(const float* aligned) {
  __m512 v;
  asm("vmovaps %1, %0" : "=v"(v) : "m"(*reinterpret_cast<const __m512*>(aligned)));
  return v;
}

// RowColumnBlock<V, true>'s 16 * V columns from jc when B's rows start `shift` floats (1..15)
// past a 64-byte boundary (numpy's arrays, used in place, are 16-byte aligned): each row is read
// as V + 1 aligned lines and each vector of columns taken from two neighbours by one permute
// (vpermt2ps, a shuffle unit the loop leaves idle). Unaligned loads split across two cache lines
// had cost ~30 ns of an RNN step's 1x64 @ 64x64; masked loads of the lines instead took a fifth
// FMA a step, which this machine's one 512-bit FMA unit could not hide. Every column sees the
// same operations in the same order: the same bits.
template <int V>
OPJ_AVX512 inline void RowColumnBlockShifted(int64_t jc, int64_t shift, int64_t k, int64_t kcb, const SgemmOperand& a,
                                             const SgemmOperand& b, float* c) {
  // Lane i takes element i + shift of the pair (bit 4: from the second line).
  const __m512i pick = _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                        _mm512_set1_epi32(static_cast<int>(shift)));
  for (int64_t pc = 0; pc < k; pc += kcb) {
    const int64_t kc = std::min(kcb, k - pc);
    __m512 acc[V];
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[v] = _mm512_setzero_ps();
    const float* ap = a.p;
    const float* bp = b.p + jc - shift;  // 64-byte aligned
    const int64_t acs = a.cs, brs = b.rs;
    for (int64_t p = pc; p < pc + kc; ++p) {
      const __m512 av = _mm512_set1_ps(ap[p * acs]);
      const float* row = bp + p * brs;
      __m512 line = LoadLine(row);
#pragma GCC unroll 8
      for (int v = 0; v < V; ++v) {
        __m512 next = v + 1 < V ? _mm512_load_ps(row + 16 * (v + 1)) : LoadLine(row + 16 * V);
        asm("" : "+v"(next));  // (loaded once: GCC had folded it into the permute and loaded it again)
        acc[v] = _mm512_fmadd_ps(av, _mm512_permutex2var_ps(line, pick, next), acc[v]);
        line = next;
      }
    }
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) {
      __m512 out = acc[v];
      if (pc > 0) out = _mm512_add_ps(_mm512_loadu_ps(c + jc + 16 * v), out);
      _mm512_storeu_ps(c + jc + 16 * v, out);
    }
  }
}

}  // namespace

// Single-row products (m == 1: a decoder step at batch 1, an RNN cell's h W): B's rows are read
// in place, 128 columns at a time in eight registers, with the tile kernel's order (each block of
// KcFor(k) depths one FMA chain per element from zero, the blocks added in order), so a row gives
// the same bits alone as inside a batch. Packing the row and B's slivers cost more than the
// product: an RNN step's 1x64 @ 64x64 went through a 12-row tile. Column parts (multiples of 128)
// over the threads when B is large.
OPJ_AVX512 void RowColumns(int64_t j0, int64_t j1, int64_t k, int64_t kcb, const SgemmOperand& a, const SgemmOperand& b,
                           float* c) {
  // Every row of B equally far past a 64-byte boundary: full blocks load B aligned.
  const uintptr_t at = reinterpret_cast<uintptr_t>(b.p + j0);
  const int64_t shift = at % 4 == 0 && b.rs % 16 == 0 ? static_cast<int64_t>(at % 64 / 4) : 0;
  for (int64_t jc = j0; jc < j1; jc += 128) {
    const int64_t w = std::min<int64_t>(128, j1 - jc);
    if (shift && w == 64) {
      RowColumnBlockShifted<4>(jc, shift, k, kcb, a, b, c);
      continue;
    }
    if (shift && w == 128) {
      RowColumnBlockShifted<8>(jc, shift, k, kcb, a, b, c);
      continue;
    }
    switch ((w + 15) / 16) {
      case 1: RowColumnBlock<1, false>(jc, w, k, kcb, a, b, c); break;
      case 2: RowColumnBlock<2, false>(jc, w, k, kcb, a, b, c); break;
      case 3: RowColumnBlock<3, false>(jc, w, k, kcb, a, b, c); break;
      case 4:
        if (w == 64) RowColumnBlock<4, true>(jc, w, k, kcb, a, b, c);
        else RowColumnBlock<4, false>(jc, w, k, kcb, a, b, c);
        break;
      default:
        if (w == 128) RowColumnBlock<8, true>(jc, w, k, kcb, a, b, c);
        else RowColumnBlock<8, false>(jc, w, k, kcb, a, b, c);
        break;
    }
  }
}

// Whether RowSgemm keeps a product of n columns and depth k in one part whatever the pieces.
bool OneRowPart(int64_t n, int64_t k) { return n <= 512 || 2 * n * k < (int64_t{2} << 20); }

bool RowSgemm(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c, int pieces,
              const SgemmParallelFor& parallel_for, const SgemmRegionDone* done, bool forked,
              const SgemmUpdate* update) {
  if (m != 1 || forked || a.row_off || b.packed || b.cs != 1) return false;
  const int64_t kcb = KcFor(k);
  // Parts of at least 512 columns and 1 MFLOP (below that one thread finishes sooner).
  const int64_t chunks = (n + 127) / 128;
  int64_t parts = std::min<int64_t>({std::max(1, pieces), (n + 511) / 512, std::max<int64_t>(1, 2 * n * k / (1 << 20))});
  parts = std::max<int64_t>(1, parts);
  const int64_t per = (chunks + parts - 1) / parts * 128;
  auto run = [&](int64_t part) {
    const int64_t j0 = part * per, j1 = std::min(n, j0 + per);
    if (j0 >= j1) return;
    RowColumns(j0, j1, k, kcb, a, b, c);
    if (update) ApplySgemmUpdate(UpdateAt(*update, 0, j0), c + j0, 0, 1, j1 - j0);
    if (done) (*done)(0, 1, j0, j1 - j0);
  };
  const int64_t used = (n + per - 1) / per;
  if (used == 1) run(0);
  else parallel_for(used, run);
  return true;
}

}  // namespace sgemm_internal

bool SgemmSingleRow(int64_t n, int64_t k, const float* a, int64_t a_step, const float* b, int64_t b_row, float* c) {
  // (At most 12 columns NarrowSgemm may take: left to FastSgemm, which decides.)
  if (n <= 12 || k <= 0 || !sgemm_internal::OneRowPart(n, k)) return false;
  sgemm_internal::RowColumns(0, n, k, sgemm_internal::KcFor(k), SgemmOperand{a, 0, a_step}, SgemmOperand{b, b_row, 1}, c);
  return true;
}

#else

bool SgemmSingleRow(int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*) { return false; }

#endif

}  // namespace openpjrt::cpu
