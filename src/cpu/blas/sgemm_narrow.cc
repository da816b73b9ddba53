// The AVX-512 f32 GEMM's narrow products (sgemm_internal.h): built for the baseline instruction
// set like sgemm_avx512.cc; only the functions marked OPJ_AVX512 use AVX-512, and they run only
// after HaveFastSgemm() has checked the CPU.
#include "src/cpu/blas/sgemm_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

namespace openpjrt::cpu::sgemm_internal {
namespace {

// Narrow products (at most kNarrowMaxN columns, rows of A contiguous: a classifier's last
// layer, 128x512 @ 512x10): each element of C is a dot product of a row of A and a column of B,
// computed 16 depths at a time in registers and summed across the lanes at the end. The tile
// kernel would compute 16 columns for n of them (its half kernel ran 128x512 @ 512x10 at ~100
// GFLOP/s on one core). kNarrowRows rows x up to kNarrowCols columns per pass: 24 accumulators,
// each 16 depths one load of A per row and one of B per column.
constexpr int64_t kNarrowMaxN = 12, kNarrowRows = 3, kNarrowCols = 8;

// The sum of v's 16 lanes, halving in 512-bit registers. (The masked forms, all lanes set: the
// plain ones and _mm512_reduce_add_ps pass an undefined vector that draws -Wuninitialized from
// GCC 12's own header.)
OPJ_AVX512 inline float LaneSum(__m512 v) {
  constexpr __mmask16 kAll = 0xFFFF;
  v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, kAll, v, v, 0x4E));  // 256-bit halves swapped
  v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, kAll, v, v, 0xB1));  // 128-bit lanes swapped in pairs
  v = _mm512_add_ps(v, _mm512_mask_permute_ps(v, kAll, v, 0x4E));        // pairs of floats swapped
  v = _mm512_add_ps(v, _mm512_mask_permute_ps(v, kAll, v, 0xB1));        // neighbours swapped
  return _mm512_cvtss_f32(v);
}

// Rows [i0, i1) of C, columns [j0, j0 + kCols): bt holds B transposed (column j's k values at bt
// + j * kp, zero from k to kp, kp a multiple of 16).
template <int kRows, int kCols>
OPJ_AVX512 void NarrowBlock(int64_t i0, int64_t k, int64_t kp, const float* a, int64_t lda, const float* bt,
                            int64_t j0, float* c, int64_t ldc) {
  // (Every loop over rows and columns unrolled, so that the accumulators stay in registers: with
  // the last loop rolled, GCC stored all 24 to the stack on every step.)
  __m512 acc[kRows][kCols];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 8
    for (int j = 0; j < kCols; ++j) acc[r][j] = _mm512_setzero_ps();
  const float* arow[kRows];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) arow[r] = a + (i0 + r) * lda;
  for (int64_t p = 0; p < kp; p += 16) {
    const __mmask16 mask = p + 16 <= k ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (k - p)) - 1);
    __m512 av[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) av[r] = _mm512_maskz_loadu_ps(mask, arow[r] + p);
#pragma GCC unroll 8
    for (int j = 0; j < kCols; ++j) {
      __m512 bv = _mm512_load_ps(bt + (j0 + j) * kp + p);
      // In a register: GCC otherwise folded the load into each row's FMA (kRows loads of it).
      asm("" : "+v"(bv));
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) acc[r][j] = _mm512_fmadd_ps(av[r], bv, acc[r][j]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 8
    for (int j = 0; j < kCols; ++j) c[(i0 + r) * ldc + j0 + j] = LaneSum(acc[r][j]);
}

template <int kRows>
OPJ_AVX512 void NarrowRowsAt(int64_t i0, int64_t n, int64_t k, int64_t kp, const float* a, int64_t lda,
                             const float* bt, float* c, int64_t ldc) {
  for (int64_t j0 = 0; j0 < n; j0 += kNarrowCols) {
    switch (std::min(kNarrowCols, n - j0)) {
      case 1: NarrowBlock<kRows, 1>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
      case 2: NarrowBlock<kRows, 2>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
      case 3: NarrowBlock<kRows, 3>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
      case 4: NarrowBlock<kRows, 4>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
      case 5: NarrowBlock<kRows, 5>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
      case 6: NarrowBlock<kRows, 6>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
      case 7: NarrowBlock<kRows, 7>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
      default: NarrowBlock<kRows, 8>(i0, k, kp, a, lda, bt, j0, c, ldc); break;
    }
  }
}

}  // namespace

// Every element is summed the same way whatever the pieces.
OPJ_AVX512 bool NarrowSgemm(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c, int64_t ldc,
                            int pieces, const SgemmParallelFor& parallel_for, const SgemmRegionDone* done,
                            bool forked, const SgemmUpdate* update) {
  if (n > kNarrowMaxN || k < 32 || a.row_off || a.cs != 1) return false;
  const int64_t kp = RoundUp(k, 16);
  thread_local Scratch scratch;
  float* bt = scratch.Get(scratch.b, scratch.b_size, n * kp);
  if (!bt) return false;
  for (int64_t j = 0; j < n; ++j) {
    float* row = bt + j * kp;
    // (A packed B, PackSgemmB's layout for at most kNr columns: step p's columns at p * kNr.)
    if (b.packed)
      for (int64_t p = 0; p < k; ++p) row[p] = b.packed[p * kNr + j];
    else
      for (int64_t p = 0; p < k; ++p) row[p] = b.p[p * b.rs + j * b.cs];
    std::fill(row + k, row + kp, 0.0f);
  }
  // Parts of whole passes of kNarrowRows rows.
  const int64_t passes = (m + kNarrowRows - 1) / kNarrowRows;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(pieces, passes));
  const int64_t per = (passes + parts - 1) / parts * kNarrowRows;
  auto run = [&](int64_t part) {
    const int64_t i0 = part * per, i1 = std::min(m, i0 + per);
    int64_t i = i0;
    for (; i + kNarrowRows <= i1; i += kNarrowRows) NarrowRowsAt<kNarrowRows>(i, n, k, kp, a.p, a.rs, bt, c, ldc);
    for (; i < i1; ++i) NarrowRowsAt<1>(i, n, k, kp, a.p, a.rs, bt, c, ldc);
    if (update && i1 > i0) ApplySgemmUpdate(UpdateAt(*update, i0, 0), c + i0 * ldc, ldc, i1 - i0, n);
    if (done && i1 > i0) (*done)(i0, i1 - i0, 0, n);
  };
  const int64_t used = (m + per - 1) / per;
  if (used == 1 && !forked) run(0);
  else parallel_for(used, run);
  return true;
}

}  // namespace openpjrt::cpu::sgemm_internal

#endif
