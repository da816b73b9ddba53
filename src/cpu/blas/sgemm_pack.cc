// Packing for the AVX-512 f32 matrix product (sgemm_internal.h): A into slivers of kMr rows, B
// into slivers of kNr columns, in the layouts sgemm_avx512.cc's kernel reads. Built like that
// file: only the functions marked OPJ_AVX512 use AVX-512, and they run only after
// HaveFastSgemm() has checked the CPU.
#include "src/cpu/blas/sgemm_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace openpjrt::cpu::sgemm_internal {
namespace {

// Transposes the 16 x 16 matrix whose rows are r[0..15] in place: r[k][i] becomes the old r[i][k].
// Pairs of rows are interleaved within 128-bit lanes (ps, then pd unpacks: u[4g + c] lane L holds
// rows 4g..4g+3 of column 4L + c), then the 4 x 4 grid of lanes is transposed with two rounds of
// lane shuffles.
OPJ_AVX512 inline void Transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  __m512 u[16];
  for (int g = 0; g < 16; g += 4) {
    const __m512d a = _mm512_castps_pd(t[g]), b = _mm512_castps_pd(t[g + 1]);
    const __m512d c = _mm512_castps_pd(t[g + 2]), d = _mm512_castps_pd(t[g + 3]);
    u[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    u[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    u[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    u[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  for (int c = 0; c < 4; ++c) {
    const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44), v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xEE);
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
    const __m512 v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xEE);
    r[c] = _mm512_shuffle_f32x4(v0, v2, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
    r[8 + c] = _mm512_shuffle_f32x4(v1, v3, 0x88);
    r[12 + c] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
  }
}

// 16 packed floats at a 64-byte aligned dst: stored, or streamed to memory with a non-temporal
// store.
OPJ_AVX512 inline void PutPacked(float* dst, __m512 v, bool stream) {
  if (stream) _mm512_stream_ps(dst, v);
  else _mm512_store_ps(dst, v);
}

}  // namespace

// PackA for an indexed operand: A[i][p] = a[roff[i] + coff[p]].
void PackAIndexed(const float* a, const int64_t* roff, const int64_t* coff, int64_t mc, int64_t kc, float* out) {
  for (int64_t i0 = 0; i0 < mc; i0 += kMr) {
    const int64_t rows = std::min(kMr, mc - i0);
    float* dst = out + i0 * kc;
    const float* row[kMr];
    for (int64_t i = 0; i < kMr; ++i) row[i] = a + roff[i0 + std::min(i, rows - 1)];
    if (rows == kMr) {
      for (int64_t p = 0; p < kc; ++p, dst += kMr) {
        const int64_t o = coff[p];
        for (int64_t i = 0; i < kMr; ++i) dst[i] = row[i][o];
      }
      continue;
    }
    for (int64_t p = 0; p < kc; ++p, dst += kMr) {
      const int64_t o = coff[p];
      for (int64_t i = 0; i < kMr; ++i) dst[i] = i < rows ? row[i][o] : 0.0f;
    }
  }
}

// Packs rows [0, mc) x columns [0, kc) of A into slivers of kMr rows: sliver s holds, for each
// p, the kMr values A[s*kMr + i][p] (zero past the last row).
OPJ_AVX512 void PackA(const float* a, int64_t rs, int64_t cs, int64_t mc, int64_t kc, float* out) {
  for (int64_t i0 = 0; i0 < mc; i0 += kMr) {
    const int64_t rows = std::min(kMr, mc - i0);
    float* dst = out + i0 * kc;
    const float* src = a + i0 * rs;
    if (rows == kMr && rs == 1) {
      // A transposed (stored column-major): each p's kMr values are one contiguous run. The
      // general loop below read them one float at a time (512x128^T @ 128x10 took 30 us, most
      // of it here).
      for (int64_t p = 0; p < kc; ++p, dst += kMr, src += cs) std::memcpy(dst, src, kMr * sizeof(float));
      continue;
    }
    if (rows == kMr && cs == 1) {
      // A row-major: 16 steps of the kMr rows at a time, transposed in registers (rows kMr..15
      // zero) and written as 16 runs of kMr floats; the element-by-element copy below took 3%
      // of a 1024^3 product.
      // The next sliver's rows are asked for meanwhile (each row's run is only kc floats, too
      // short for the hardware prefetcher to follow: with this and PackB's row prefetch, the
      // two took 5.0% of a 1024^3 product at one thread instead of 6.4%).
      const int64_t next_rows = std::min(kMr, mc - i0 - kMr);
      for (int64_t p0 = 0; p0 < kc; p0 += 16) {
        const int64_t steps = std::min<int64_t>(16, kc - p0);
        const __mmask16 mask = static_cast<__mmask16>((1u << steps) - 1);
        for (int64_t i = 0; i < next_rows; ++i)
          _mm_prefetch(reinterpret_cast<const char*>(src + (kMr + i) * rs + p0), _MM_HINT_T0);
        __m512 r[16];
        for (int i = 0; i < kMr; ++i) r[i] = _mm512_maskz_loadu_ps(mask, src + i * rs + p0);
        for (int i = kMr; i < 16; ++i) r[i] = _mm512_setzero_ps();
        Transpose16(r);
        for (int64_t pp = 0; pp < steps; ++pp)
          _mm512_mask_storeu_ps(dst + (p0 + pp) * kMr, static_cast<__mmask16>((1u << kMr) - 1), r[pp]);
      }
      continue;
    }
    if (rows == kMr) {
      // kMr reads from kMr rows, one contiguous write per p.
      for (int64_t p = 0; p < kc; ++p, dst += kMr, src += cs)
        for (int64_t i = 0; i < kMr; ++i) dst[i] = src[i * rs];
      continue;
    }
    for (int64_t p = 0; p < kc; ++p, dst += kMr, src += cs)
      for (int64_t i = 0; i < kMr; ++i) dst[i] = i < rows ? src[i * rs] : 0.0f;
  }
}

// Packs rows [0, kc) x columns [0, nc) of B into slivers of kNr columns: sliver s holds, for each
// p, the kNr values B[p][s*kNr + j] (zero past the last column). `stream`: whole slivers of a B
// with unit column or unit row stride (a transposed weight, x @ W^T) are written with
// non-temporal stores (see the shared B of FastSgemmParts in sgemm_avx512.cc), fenced before returning.
OPJ_AVX512 void PackB(const float* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc, float* out, bool stream) {
  if (cs == 1 && nc % kNr == 0) {
    // Whole slivers, in groups of up to four (128 columns, 512 bytes of each row of B): each
    // group row by row, the row kAhead rows further asked for first. (All nc columns of a row at
    // once wrote to nc / 32 slivers kc * 128 bytes apart, for kc = 128 all in the same L1 sets:
    // a warm 128 x 512 B packed in 9.4 us, by groups in 5.4, and from L3 in 10.6-20 against
    // 17-27 us on average; from memory the same, 31-38 against 33-35.)
    constexpr int64_t kAhead = 8, kGroup = 4 * kNr;
    for (int64_t g0 = 0; g0 < nc; g0 += kGroup) {
      const int64_t width = std::min(kGroup, nc - g0);
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = b + p * rs + g0;
        const char* ahead = reinterpret_cast<const char*>(src + kAhead * rs);
        if (p + kAhead < kc)
          for (int64_t j = 0; j < width; j += 16) _mm_prefetch(ahead + j * 4, _MM_HINT_T0);
        for (int64_t j0 = 0; j0 < width; j0 += kNr) {
          PutPacked(out + (g0 + j0) * kc + p * kNr, _mm512_loadu_ps(src + j0), stream);
          PutPacked(out + (g0 + j0) * kc + p * kNr + 16, _mm512_loadu_ps(src + j0 + 16), stream);
        }
      }
    }
    if (stream) _mm_sfence();  // the streamed rows are visible before the caller reports them packed
    return;
  }
  for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
    const int64_t cols = std::min(kNr, nc - j0);
    float* dst = out + j0 * kc;
    if (cols == kNr && cs == 1) {
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = b + p * rs + j0;
        _mm512_store_ps(dst + p * kNr, _mm512_loadu_ps(src));
        _mm512_store_ps(dst + p * kNr + 16, _mm512_loadu_ps(src + 16));
      }
    } else if (cs == 1) {
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = b + p * rs + j0;
        for (int64_t j = 0; j < kNr; ++j) dst[p * kNr + j] = j < cols ? src[j] : 0.0f;
      }
    } else if (cols == kNr && rs == 1) {
      // A transposed operand whose columns are contiguous (the weights of a backward pass, g @
      // W^T): 16 x 16 blocks transposed in registers, every load a run of 16 floats down one
      // column (128x512x512 went from 488 to ~400 us with the gathers below).
      for (int64_t p0 = 0; p0 < kc; p0 += 16) {
        const int64_t steps = std::min<int64_t>(16, kc - p0);
        const __mmask16 mask = static_cast<__mmask16>((1u << steps) - 1);
        for (int64_t half = 0; half < 2; ++half) {
          __m512 r[16];
          for (int jj = 0; jj < 16; ++jj) r[jj] = _mm512_maskz_loadu_ps(mask, b + (j0 + half * 16 + jj) * cs + p0);
          Transpose16(r);
          for (int64_t pp = 0; pp < steps; ++pp) PutPacked(dst + (p0 + pp) * kNr + half * 16, r[pp], stream);
        }
      }
    } else if (cols == kNr && std::abs(cs) * (kNr - 1) < (int64_t{1} << 31) && std::abs(rs) < (int64_t{1} << 31)) {
      // A transposed operand (attention's K^T): each packed row is 32 elements a column apart,
      // gathered 16 at a time.
      const __m512i idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                             _mm512_set1_epi32(static_cast<int32_t>(cs)));
      const float* col0 = b + j0 * cs;
      const float* col16 = b + (j0 + 16) * cs;
      for (int64_t p = 0; p < kc; ++p) {
        _mm512_store_ps(dst + p * kNr, _mm512_i32gather_ps(idx, col0 + p * rs, 4));
        _mm512_store_ps(dst + p * kNr + 16, _mm512_i32gather_ps(idx, col16 + p * rs, 4));
      }
    } else {
      // Column-major-like B (a transposed operand): walk each column down.
      if (cols < kNr) std::memset(dst, 0, sizeof(float) * kNr * kc);
      for (int64_t j = 0; j < cols; ++j) {
        const float* src = b + (j0 + j) * cs;
        for (int64_t p = 0; p < kc; ++p) dst[p * kNr + j] = src[p * rs];
      }
    }
  }
  if (stream) _mm_sfence();
}

}  // namespace openpjrt::cpu::sgemm_internal

#endif
