// The AVX-512 f32 matrix product of sgemm.h. The file is built for the baseline instruction set;
// only the functions marked OPJ_AVX512 use AVX-512, and they run only after HaveFastSgemm() has
// checked the CPU (so no AVX-512 code can leak into inline functions shared with other files).
//
// Blocking: C is cut into pieces (one per task); inside a piece, B is packed KcFor(k) x kNc at a
// time into slivers 32 columns wide, A kMc x KcFor(k) at a time into slivers 12 rows tall, and the kernel
// computes a 12 x 32 tile of C from one sliver of each in 24 zmm accumulators (4- and 8-row
// kernels serve the last rows of a piece; the packing is sgemm_pack.cc). A sliver of A
// (12 KiB, the broadcast operand) stays in L1 while the slivers of B stream from the packed
// block in L2 (1 MiB; half of this machine's L2), which the hardware prefetcher follows well:
// 2048^2 at one thread went from ~125 to ~143 GFLOP/s when the two loops were swapped (B's
// 32 KiB sliver had been sharing a 48 KiB L1 with the A stream).
#include "src/cpu/blas/sgemm.h"
#include "src/cpu/blas/sgemm_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

namespace openpjrt::cpu {

#if defined(__x86_64__)
using namespace sgemm_internal;

thread_local int64_t sgemm_internal::scratch_limit = std::numeric_limits<int64_t>::max();

namespace {

constexpr int64_t kMc = 144, kNc = 1024;
constexpr int64_t kRowsInPlaceMaxN = 128;
// Row pieces are cut at multiples of 4 rows, the height of the smallest kernel, so that a piece
// ends in a 4- or 8-row tile rather than a full one (128 rows at 2 threads: 64 + 64 rows, 5 1/3
// tiles of work each, instead of 72 + 56 rows, 6 and 5 tiles).
constexpr int64_t kRowStep = 4;

// Shared packed B buffers of more floats than this are refused as if their allocation had
// failed (tests; see LimitSharedSgemmBufferForTest).
std::atomic<int64_t> shared_b_limit{std::numeric_limits<int64_t>::max()};


// The rows of one sliver of A: packed (row i of step p at ap[p * kMr + i]) or read in place
// (row i of step p at rows[i][coff[p]], the indexed operand of a convolution), so the kernel
// broadcasts either without a copy.
struct PackedRows {
  const float* __restrict ap;
  const float* At(int64_t p, int i) const { return ap + p * kMr + i; }
};
struct StridedRows {  // rows with unit column stride: row i of step p at rows[i][p]
  const float* rows[kMr];
  const float* At(int64_t p, int i) const { return rows[i] + p; }
};
struct ColumnRows {  // A stored column-major (unit row stride): step p's kMr values are contiguous
  const float* base;
  int64_t cs;
  const float* At(int64_t p, int i) const { return base + p * cs + i; }
};
// Indexed rows a constant distance apart (a sliver of consecutive output positions of a
// convolution), with the steps cut into runs of consecutive column offsets (one run per kernel
// tap: its input channels): row i of step q of a run at base + off + q + i * step. Within a run
// the kernel only advances three pointers; reading each step's offset from the table and
// chaining 11 address additions to it took ~10% of the kernel's time (3x3x64 patches: 205 ->
// 229 GFLOP/s on one core).
struct OffsetRun {
  int64_t off, len;
};
struct SteppedRows {
  const float* base;
  int64_t step;
  const OffsetRun* runs;
  int64_t num_runs;
};
struct IndexedRows {
  const float* rows[kMr];
  const int64_t* __restrict coff;
  const float* At(int64_t p, int i) const { return rows[i] + coff[p]; }
};

// The kernel asks for the row of B kPrefetchSteps steps ahead of the one it reads (2 KiB ahead in a
// packed sliver, running into the next sliver at the end). The hardware prefetcher alone left the
// kernel waiting on L2: 2048^3 and 1024^3 were 4-7% faster at two threads with this (against
// numpy in alternating rounds: 1.11 -> 1.06 and 1.06 -> 0.99), 1024^3 5% at one; 32 steps
// measured the same, 64 and more worse.
constexpr int64_t kPrefetchSteps = 16;
// (The address may lie past the end of B: computed as an integer, and a prefetch never faults.)
template <bool kHalf>
OPJ_AVX512 inline void PrefetchB(const float* bp, int64_t ldb) {
  const uintptr_t ahead = reinterpret_cast<uintptr_t>(bp) + static_cast<uintptr_t>(kPrefetchSteps * ldb * 4);
  _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
  if (!kHalf) _mm_prefetch(reinterpret_cast<const char*>(ahead + 64), _MM_HINT_T0);
}

// v (a finished element of the product) as the update makes it: s * v first, then D + or - it.
OPJ_AVX512 inline __m512 Updated(const SgemmUpdate& u, __m512 scale, __m512 d, __m512 v) {
  if (u.scaled) v = _mm512_mul_ps(scale, v);
  return u.subtract ? _mm512_sub_ps(d, v) : _mm512_add_ps(d, v);
}

// c[kRows x 32] (row stride ldc) = or += the product of one sliver of A (its first kRows rows)
// and one packed sliver of B; the half kernel computes only the first 16 columns (for narrow
// edges). `up` (the last depth block only): the product's update, whose D element for the
// tile's first element is at ud (the tile's own copy of the update, its d moved, had been
// rebuilt on the stack per tile through a stalled store forward: ~7% of 784x128^T @ 128x512
// with the SGD update). Each element sees the same operations in the same order in every
// variant.
template <int kRows = kMr, bool kHalf = false, typename Rows = PackedRows>
OPJ_AVX512 inline void Kernel(int64_t kc, Rows a, const float* __restrict bp, int64_t ldb, float* __restrict c,
                              int64_t ldc, bool accumulate, const SgemmUpdate* up = nullptr,
                              const float* ud = nullptr) {
  __m512 acc[kRows][2];
  // C's tile is asked into L2 now and read at the end (a large C lives in L3: 2-3% of the
  // kernel's time when it was fetched only then, kernel-only and interleaved); so is the
  // update's tile of D.
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
    acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
    if (!kHalf) _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16), _MM_HINT_T1);
  }
  if (up) {
#pragma GCC unroll 12
    for (int i = 0; i < kRows; ++i) {
      _mm_prefetch(reinterpret_cast<const char*>(ud + i * up->ldd), _MM_HINT_T1);
      if (!kHalf) _mm_prefetch(reinterpret_cast<const char*>(ud + i * up->ldd + 16), _MM_HINT_T1);
    }
  }
  if constexpr (std::is_same_v<Rows, SteppedRows>) {
    static_assert(kRows == kMr);
    // Rows 0..11 addressed from three pointers (rows 0, 3 and 6) and two distances (1 and 3
    // rows), every address one base plus a scaled index.
    const int64_t s = a.step, s3 = 3 * a.step;
    for (int64_t g = 0; g < a.num_runs; ++g) {
      const float* r0 = a.base + a.runs[g].off;
      const float* r3 = r0 + s3;
      const float* r6 = r3 + s3;
      for (int64_t q = a.runs[g].len; q > 0; --q, ++r0, ++r3, ++r6) {
        PrefetchB<kHalf>(bp, ldb);
        const __m512 b0 = _mm512_loadu_ps(bp);
        const __m512 b1 = kHalf ? b0 : _mm512_loadu_ps(bp + 16);
        const float* rows[kMr] = {r0,         r0 + s,         r0 + 2 * s, r3,         r0 + 4 * s,  r3 + 2 * s,
                                  r6,         r3 + 4 * s,     r0 + 8 * s, r3 + 2 * s3, r6 + 4 * s, r3 + 8 * s};
#pragma GCC unroll 12
        for (int i = 0; i < kMr; ++i) {
          const __m512 av = _mm512_set1_ps(*rows[i]);
          acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
          if (!kHalf) acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
        }
        bp += ldb;
      }
    }
  } else {
    for (int64_t p = 0; p < kc; ++p) {
      PrefetchB<kHalf>(bp, ldb);
      const __m512 b0 = _mm512_loadu_ps(bp);
      const __m512 b1 = kHalf ? b0 : _mm512_loadu_ps(bp + 16);
#pragma GCC unroll 12
      for (int i = 0; i < kRows; ++i) {
        const __m512 av = _mm512_set1_ps(*a.At(p, i));
        acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
        if (!kHalf) acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
      }
      bp += ldb;
    }
  }
  if (up) {
    const __m512 scale = _mm512_set1_ps(up->scale);
#pragma GCC unroll 12
    for (int i = 0; i < kRows; ++i) {
      float* row = c + i * ldc;
      const float* d = ud + i * up->ldd;
      __m512 v0 = acc[i][0], v1 = acc[i][1];
      if (accumulate) {
        v0 = _mm512_add_ps(_mm512_loadu_ps(row), v0);
        if (!kHalf) v1 = _mm512_add_ps(_mm512_loadu_ps(row + 16), v1);
      }
      _mm512_storeu_ps(row, Updated(*up, scale, _mm512_loadu_ps(d), v0));
      if (!kHalf) _mm512_storeu_ps(row + 16, Updated(*up, scale, _mm512_loadu_ps(d + 16), v1));
    }
    return;
  }
#pragma GCC unroll 12
  for (int i = 0; i < kRows; ++i) {
    float* row = c + i * ldc;
    if (accumulate) {
      _mm512_storeu_ps(row, _mm512_add_ps(_mm512_loadu_ps(row), acc[i][0]));
      if (!kHalf) _mm512_storeu_ps(row + 16, _mm512_add_ps(_mm512_loadu_ps(row + 16), acc[i][1]));
    } else {
      _mm512_storeu_ps(row, acc[i][0]);
      if (!kHalf) _mm512_storeu_ps(row + 16, acc[i][1]);
    }
  }
}

// One mr x nr tile of C (at most 12 x 32). A tile of 4 or 8 whole rows is computed by a kernel
// of that height (a third or two thirds of the work of 12: a product of 128 rows splits into
// two pieces of 64 = 5 x 12 + 4 rows); other partial tiles go through a full-size buffer,
// computed by the smallest kernel of 4, 8 or 12 rows that covers them (same arithmetic, same
// order). Partial slivers of A are always packed (zero past the last row).
template <typename Rows>
OPJ_AVX512 inline void Tile(int64_t kc, int64_t mr, int64_t nr, Rows a, const float* bp, int64_t ldb, float* c,
                            int64_t ldc, bool accumulate, float* edge, const SgemmUpdate* up, const float* ud) {
  if (nr == kNr) {
    if (mr == kMr) return Kernel(kc, a, bp, ldb, c, ldc, accumulate, up, ud);
    if constexpr (std::is_same_v<Rows, PackedRows>) {
      if (mr == 8) return Kernel<8>(kc, a, bp, ldb, c, ldc, accumulate, up, ud);
      if (mr == 4) return Kernel<4>(kc, a, bp, ldb, c, ldc, accumulate, up, ud);
    }
  }
  if constexpr (std::is_same_v<Rows, PackedRows>) {
    if (mr <= 4) {
      if (nr <= 16) Kernel<4, true>(kc, a, bp, ldb, edge, kNr, false);
      else Kernel<4>(kc, a, bp, ldb, edge, kNr, false);
    } else if (mr <= 8) {
      if (nr <= 16) Kernel<8, true>(kc, a, bp, ldb, edge, kNr, false);
      else Kernel<8>(kc, a, bp, ldb, edge, kNr, false);
    } else if (nr <= 16) {
      Kernel<kMr, true>(kc, a, bp, ldb, edge, kNr, false);
    } else {
      Kernel(kc, a, bp, ldb, edge, kNr, false);
    }
  } else if (nr <= 16) {
    Kernel<kMr, true>(kc, a, bp, ldb, edge, kNr, false);
  } else {
    Kernel(kc, a, bp, ldb, edge, kNr, false);
  }
  // Copied out with masked stores (a scalar loop compiled to a rep movsq per row, whose start-up
  // cost was a tenth of 512x128^T @ 128x10).
  const __mmask16 m0 = static_cast<__mmask16>(nr >= 16 ? 0xFFFF : (1u << nr) - 1);
  const __mmask16 m1 = static_cast<__mmask16>(nr <= 16 ? 0 : (1u << (nr - 16)) - 1);
  const __m512 scale = _mm512_set1_ps(up ? up->scale : 1.0f);
  for (int64_t i = 0; i < mr; ++i) {
    float* row = c + i * ldc;
    for (int h = 0; h < 2; ++h) {
      const __mmask16 m = h ? m1 : m0;
      if (m == 0) break;
      __m512 v = _mm512_load_ps(edge + i * kNr + 16 * h);
      if (accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, row + 16 * h), v);
      if (up) v = Updated(*up, scale, _mm512_maskz_loadu_ps(m, ud + i * up->ldd + 16 * h), v);
      _mm512_mask_storeu_ps(row + 16 * h, m, v);
    }
  }
}

}  // namespace

// (Vectors of 16 with a masked tail; the same operations as the kernel's.)
OPJ_AVX512 void sgemm_internal::ApplySgemmUpdate(const SgemmUpdate& u, float* c, int64_t ldc, int64_t rows,
                                                 int64_t cols) {
  const __m512 scale = _mm512_set1_ps(u.scale);
  for (int64_t i = 0; i < rows; ++i) {
    float* row = c + i * ldc;
    const float* d = u.d + i * u.ldd;
    for (int64_t j = 0; j < cols; j += 16) {
      const __mmask16 m = static_cast<__mmask16>(cols - j >= 16 ? 0xFFFF : (1u << (cols - j)) - 1);
      _mm512_mask_storeu_ps(row + j, m,
                            Updated(u, scale, _mm512_maskz_loadu_ps(m, d + j), _mm512_maskz_loadu_ps(m, row + j)));
    }
  }
}

namespace {


// Where the block of B for columns [jc, jc + kNc) and rows [pc, pc + KcFor(k)) sits in a whole packed
// B (PackAllB): the column blocks one after the other, each with its row blocks in order.
int64_t PackedBlockOffset(int64_t n, int64_t k, int64_t jc, int64_t pc) {
  return jc * k + pc * RoundUp(std::min(kNc, n - jc), kNr);
}

// The packed B of columns [jc, jc + nc) and rows [pc, pc + kc) inside a whole packed B of n
// columns: nc must stay within one column block (jc + nc <= the next multiple of kNc) and jc is a
// multiple of kNr, so the slivers are consecutive.
const float* PackedAt(const float* packed, int64_t n, int64_t k, int64_t jc, int64_t pc) {
  const int64_t block = jc / kNc * kNc;
  return packed + PackedBlockOffset(n, k, block, pc) + (jc - block) * std::min(KcFor(k), k - pc);
}

// One piece of C: rows [0, m) x columns [0, n), packing B block by block itself, or reading it
// from `packed_b` (all of B, full_n columns wide, packed once: by PackAllB for every piece, or at
// compile time); the piece's column 0 is column n0 of that B. `done` hears of each block of rows
// (up to kMc x kNc) as soon as its last depth block is added, while it is still in L2, as
// rows [m0 + i, ...) x columns [n0 + j, ...) of the whole C (m0: the piece's first row).
// `up`: the product's update (sgemm.h), its d at the piece's first element, applied with the last
// depth block. False, with nothing written, when its packing buffers cannot be allocated.
thread_local Scratch piece_scratch;
OPJ_AVX512 bool Piece(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c, int64_t ldc,
                      const SgemmRegionDone* done, int64_t m0, const float* packed_b = nullptr, int64_t n0 = 0,
                      int64_t full_n = 0, int64_t depth_block = -1, const SgemmUpdate* up = nullptr) {
  Scratch& scratch = piece_scratch;
  thread_local std::vector<OffsetRun> runs;
  const int64_t nc_max = std::min(kNc, (n + kNr - 1) / kNr * kNr);
  const int64_t mc_max = std::min(kMc, (m + kMr - 1) / kMr * kMr);
  const int64_t kcb = KcFor(k);
  float* own_b = packed_b ? nullptr : scratch.Get(scratch.b, scratch.b_size, kcb * nc_max);
  // B read in place, row by row (its slivers' rows are runs of kNr floats b.rs apart), when the
  // piece has one block of rows: each packed sliver would serve at most kMc / kMr row slivers,
  // and packing all of B was ~9% of the SGD step of bench/ratios.py (each thread packed all of
  // a 784x512 weight for its 64 rows: 128x784 @ 784x512 + bias and ReLU at 2 threads 355-376 ->
  // 324-343 us). Rows at most 4 KiB apart: at 8 KiB a sliver's rows crowd into a sixteenth of
  // L2's sets (64x512 @ 512x2048 ran 3% slower in place). The last, partial sliver is packed.
  // Only rows on 64-byte boundaries: a host array used in place 16 bytes past one (numpy's) had
  // every 32-float load of a sliver's row touch three lines instead of two: 128x784 @ 784x512
  // through JAX 662 us against 557 from aligned storage; packing it costs ~15.
  const bool b_in_place = !packed_b && b.cs == 1 && b.rs <= 1024 && m <= kMc &&
                          reinterpret_cast<uintptr_t>(b.p) % 64 == 0 && b.rs % 16 == 0;
  float* ap = scratch.Get(scratch.a, scratch.a_size, kcb * mc_max);
  if (!ap || (!packed_b && !own_b)) return false;
  alignas(64) float edge[kMr * kNr];
  if (full_n == 0) full_n = n;
  for (int64_t jc = 0, nc; jc < n; jc += nc) {
    // Column blocks follow the packed B's blocks.
    nc = std::min(kNc - (n0 + jc) % kNc, n - jc);
    // (depth_block >= 0: only that block of the depth, added to C unless it is the first.)
    const int64_t pc_first = depth_block < 0 ? 0 : depth_block * kcb;
    const int64_t pc_end = depth_block < 0 ? k : std::min(k, pc_first + kcb);
    for (int64_t pc = pc_first; pc < pc_end; pc += kcb) {
      const int64_t kc = std::min(kcb, k - pc);
      const bool accumulate = pc > 0;
      const bool last = pc + kc >= k;
      if (a.row_off) {
        // This depth block's column offsets as runs of consecutive ones (SteppedRows).
        runs.clear();
        const int64_t* co = a.col_off + pc;
        for (int64_t p = 0; p < kc;) {
          int64_t e = p + 1;
          while (e < kc && co[e] == co[e - 1] + 1) ++e;
          runs.push_back({co[p], e - p});
          p = e;
        }
      }
      const float* bp = packed_b ? PackedAt(packed_b, full_n, k, n0 + jc, pc) : own_b;
      const int64_t full_nc = nc / kNr * kNr;
      if (b_in_place) {
        if (full_nc < nc) PackB(b.p + pc * b.rs + jc + full_nc, b.rs, 1, kc, nc - full_nc, own_b + full_nc * kc);
      } else if (!packed_b) {
        PackB(b.p + pc * b.rs + jc * b.cs, b.rs, b.cs, kc, nc, own_b);
      }
      for (int64_t ic = 0; ic < m; ic += kMc) {
        const int64_t mc = std::min(kMc, m - ic);
        // Whole slivers of A are read in place when packing would not pay: an indexed A (a
        // convolution's input rows; packing them cost a quarter of the time for 64 output
        // features), or rows with unit column stride feeding at most kRowsInPlaceMaxN columns
        // (each packed sliver would serve only a few B slivers: attention's per-head products).
        // Partial slivers are packed.
        // A column-major A (a transposed operand: a weight gradient a^T g) is read in place under
        // the same rule: each step's kMr values are one contiguous run (512x128^T @ 128x10 at one
        // thread: 21-25 -> 13 us, the packing had been 42% of it; 512x128^T @ 128x128 88 -> 82).
        const bool rows_in_place = !a.row_off && a.cs == 1 && nc <= kRowsInPlaceMaxN;
        const bool columns_in_place = !a.row_off && a.rs == 1 && a.cs != 1 && nc <= kRowsInPlaceMaxN;
        const int64_t full = mc / kMr * kMr;
        if (a.row_off) {
          if (full < mc) PackAIndexed(a.p, a.row_off + ic + full, a.col_off + pc, mc - full, kc, ap + full * kc);
        } else if (rows_in_place || columns_in_place) {
          if (full < mc) PackA(a.p + (ic + full) * a.rs + pc * a.cs, a.rs, a.cs, mc - full, kc, ap + full * kc);
        } else {
          PackA(a.p + ic * a.rs + pc * a.cs, a.rs, a.cs, mc, kc, ap);
        }
        for (int64_t ir = 0; ir < mc; ir += kMr) {
          const int64_t mr = std::min(kMr, mc - ir);
          IndexedRows indexed;
          StridedRows strided;
          int mode = mr < kMr ? 0 : a.row_off ? 1 : rows_in_place ? 2 : columns_in_place ? 4 : 0;
          const ColumnRows columns{a.p + (ic + ir) + pc * a.cs, a.cs};
          SteppedRows stepped{nullptr, 0, nullptr, 0};
          if (mode == 1) {
            // Rows evenly spaced (a sliver of one output row): one base pointer instead of twelve
            // (the twelve spilled to the stack; 2.5% faster for 56x56x64 3x3).
            const int64_t* ro = a.row_off + ic + ir;
            bool even = true;
            for (int i = 2; i < kMr; ++i) even = even && ro[i] - ro[i - 1] == ro[1] - ro[0];
            if (even) {
              mode = 3;
              stepped = {a.p + ro[0], ro[1] - ro[0], runs.data(), static_cast<int64_t>(runs.size())};
            }
          }
          if (mode == 1) {
            for (int i = 0; i < kMr; ++i) indexed.rows[i] = a.p + a.row_off[ic + ir + i];
            indexed.coff = a.col_off + pc;
          } else if (mode == 2) {
            for (int i = 0; i < kMr; ++i) strided.rows[i] = a.p + (ic + ir + i) * a.rs + pc;
          }
          const PackedRows packed{ap + ir * kc};
          for (int64_t jr = 0; jr < nc; jr += kNr) {
            const int64_t nr = std::min(kNr, nc - jr);
            float* ct = c + (ic + ir) * ldc + jc + jr;
            const bool direct = b_in_place && jr < full_nc;
            const float* bs = direct ? b.p + pc * b.rs + jc + jr : bp + jr * kc;
            const int64_t ldb = direct ? b.rs : kNr;
            const SgemmUpdate* tu = up && last ? up : nullptr;
            const float* ud = tu ? up->d + (ic + ir) * up->ldd + jc + jr : nullptr;
            if (mode == 3) Tile(kc, mr, nr, stepped, bs, ldb, ct, ldc, accumulate, edge, tu, ud);
            else if (mode == 1) Tile(kc, mr, nr, indexed, bs, ldb, ct, ldc, accumulate, edge, tu, ud);
            else if (mode == 2) Tile(kc, mr, nr, strided, bs, ldb, ct, ldc, accumulate, edge, tu, ud);
            else if (mode == 4) Tile(kc, mr, nr, columns, bs, ldb, ct, ldc, accumulate, edge, tu, ud);
            else Tile(kc, mr, nr, packed, bs, ldb, ct, ldc, accumulate, edge, tu, ud);
          }
        }
        if (done && last) (*done)(m0 + ic, mc, n0 + jc, nc);
      }
    }
  }
  return true;
}

}  // namespace

bool HaveFastSgemm() {
  static const bool have = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  }();
  return have;
}

int64_t PackedSgemmBFloats(int64_t k, int64_t n) {
  if (k <= 0 || n <= 0) return 0;
  const int64_t last = (n - 1) / kNc * kNc;
  return RoundUp(PackedBlockOffset(n, k, last, 0) + k * RoundUp(n - last, kNr), 16);
}

void PackSgemmBInto(int64_t k, int64_t n, SgemmOperand b, float* out) {
  if (k <= 0 || n <= 0) return;
  const int64_t kcb = KcFor(k);
  for (int64_t jc = 0; jc < n; jc += kNc)
    for (int64_t pc = 0; pc < k; pc += kcb)
      PackB(b.p + pc * b.rs + jc * b.cs, b.rs, b.cs, std::min(kcb, k - pc), std::min(kNc, n - jc),
            out + PackedBlockOffset(n, k, jc, pc));
}

PackedSgemmB PackSgemmB(int64_t k, int64_t n, SgemmOperand b) {
  PackedSgemmB out;
  out.k = k;
  out.n = n;
  if (k <= 0 || n <= 0) return out;
  const int64_t floats = PackedSgemmBFloats(k, n);
  out.data.reset(floats > scratch_limit
                     ? nullptr
                     : static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>(floats) * sizeof(float))),
                 std::free);
  if (!out.data) {  // (no memory for it: k and n 0, so no product takes it for its B)
    out.k = out.n = 0;
    return out;
  }
  PackSgemmBInto(k, n, b, out.data.get());
  return out;
}

namespace {

// The left operand's rows from m0 on (an indexed operand keeps its base and moves its row table).
SgemmOperand RowsFrom(const SgemmOperand& a, int64_t m0) {
  return a.row_off ? SgemmOperand{a.p, a.rs, a.cs, a.row_off + m0, a.col_off}
                   : SgemmOperand{a.p + m0 * a.rs, a.rs, a.cs};
}

// FastSgemm once its prologue is taken care of: with `forked` set, parallel_for runs it at the
// start of every part, so even a product run in one part goes through parallel_for.
// False when a packing buffer could not be allocated (see FastSgemm).
bool FastSgemmParts(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c, int64_t ldc,
                    int pieces, const SgemmParallelFor& parallel_for, const SgemmRegionDone* done, bool forked,
                    const SgemmUpdate* update) {
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    if (update) ApplySgemmUpdate(*update, c, ldc, m, n);
    if (done) (*done)(0, m, 0, n);
    return true;
  }
  if (NarrowSgemm(m, n, k, a, b, c, ldc, pieces, parallel_for, done, forked, update)) return true;
  if (RowSgemm(m, n, k, a, b, c, pieces, parallel_for, done, forked, update)) return true;
  // The update positioned at element (i, j) of C, for a piece there (null without one).
  auto update_at = [update](int64_t i, int64_t j) {
    return update ? UpdateAt(*update, i, j) : SgemmUpdate{};
  };
  std::atomic<bool> failed{false};  // a piece could not get its packing buffers
  const int64_t row_tiles = (m + kMr - 1) / kMr, col_tiles = (n + kNr - 1) / kNr;
  const int64_t want = std::max(1, pieces);
  if (b.packed) {
    // B costs nothing to share: cut rows (each piece packs only its rows of A), and columns only
    // when there are too few rows for every piece.
    const int64_t tm = std::min(want, row_tiles), tn = std::min(col_tiles, (want + tm - 1) / tm);
    const int64_t rows = RoundUp((m + tm - 1) / tm, kRowStep), cols = (col_tiles + tn - 1) / tn * kNr;
    const int64_t pm = (m + rows - 1) / rows, pn = (n + cols - 1) / cols;
    auto run = [&](int64_t piece) {
      const int64_t m0 = piece / pn * rows, n0 = piece % pn * cols;
      const SgemmOperand part = RowsFrom(a, m0);
      const SgemmUpdate up = update_at(m0, n0);
      if (!Piece(std::min(rows, m - m0), std::min(cols, n - n0), k, part, b, c + m0 * ldc + n0, ldc, done, m0, b.packed,
                 n0, n, -1, update ? &up : nullptr))
        failed.store(true, std::memory_order_relaxed);
    };
    if (pm * pn == 1 && !forked) run(0);
    else parallel_for(pm * pn, run);
    return !failed.load();
  }
  // A tall product with a small B (a convolution: 3136 x 64 x 576 for 56x56x64 3x3) is cut into
  // many row pieces that the threads take as they go: a thread on a faster core simply takes more
  // pieces (on this VM one core often runs FMA-bound code at 50-70% of the other's speed while
  // both are busy, and one equal piece per thread waited for the slow one). B must be small
  // (<= 256 KiB packed): every thread packs all of it once per call, before its first piece, and
  // every piece reads it from the thread's own L2 (one copy packed by both threads together, half
  // of it read from the other core's L2, was 2% slower: 56x56x64 3x3 at 2 threads 655 -> 640 us).
  // Pieces are kept at least 256 rows tall (4 per thread): 256^3 matmul was 10-25% and
  // 784x512x128 3% slower with shorter pieces.
  // A large B (a square product of 1024 and more) is packed once by all the threads together for
  // one row piece per part: every piece streams it from L3, but B is packed once instead of once
  // per piece of a grid (1024^3 at 2 threads: 7.1-7.4 -> 6.5-6.7 ms; OpenBLAS 6.8-7.0 ms).
  const int64_t packed_size = k * col_tiles * kNr;
  const int64_t shared_rows = RoundUp((m + 4 * want - 1) / (4 * want), kMr);
  const int64_t big_rows = RoundUp((m + want - 1) / want, kMr);
  const bool small_b = shared_rows >= 256 && packed_size <= (int64_t{1} << 16);
  const bool big_b = packed_size > (int64_t{1} << 16) && big_rows >= 192 && n >= 512;
  const int64_t kcb = KcFor(k);
  const int64_t kb = (k + kcb - 1) / kcb, nb = (n + kNc - 1) / kNc;
  auto row_piece = [&](int64_t m0, int64_t rows, const float* packed) {
    const SgemmOperand part = RowsFrom(a, m0);
    const SgemmUpdate up = update_at(m0, 0);
    if (!Piece(std::min(rows, m - m0), n, k, part, b, c + m0 * ldc, ldc, done, m0, packed, 0, 0, -1,
               update ? &up : nullptr))
      failed.store(true, std::memory_order_relaxed);
  };
  if (want > 1 && small_b) {
    static std::atomic<uint64_t> calls{0};
    const uint64_t call = calls.fetch_add(1, std::memory_order_relaxed) + 1;
    const int64_t pm = (m + shared_rows - 1) / shared_rows;
    parallel_for(pm, [&](int64_t piece) {
      thread_local Scratch own;
      thread_local uint64_t packed_call = 0;  // the call whose B `own` holds
      float* packed = own.Get(own.b, own.b_size, packed_size);
      if (!packed) {
        failed.store(true, std::memory_order_relaxed);
        return;
      }
      if (packed_call != call) {
        packed_call = call;
        for (int64_t kbi = 0; kbi < kb; ++kbi)
          for (int64_t jb = 0; jb < nb; ++jb) {
            const int64_t jc = jb * kNc, pc = kbi * kcb;
            PackB(b.p + pc * b.rs + jc * b.cs, b.rs, b.cs, std::min(kcb, k - pc), std::min(kNc, n - jc),
                  packed + PackedBlockOffset(n, k, jc, pc));
          }
      }
      row_piece(piece * shared_rows, shared_rows, packed);
    });
    return !failed.load();
  }
  // (All of B packed at once can be as large as B itself: when it cannot be allocated, the grid
  // below packs it block by block instead.)
  thread_local Scratch shared;
  float* const packed = want > 1 && big_b && packed_size <= shared_b_limit.load(std::memory_order_relaxed)
                            ? shared.Get(shared.b, shared.b_size, packed_size)
                            : nullptr;
  if (packed) {
    // B is packed by all the threads together in units of up to 4 slivers of one (KcFor(k) x
    // kNc) block of B, and the product is cut into blocks of (up to) kMc rows x kNc columns x
    // one depth block. Both kinds of task sit in one list that the threads take in order: the
    // first block of B's units, then the product's blocks (column block, depth block, row block),
    // each followed by its share of the next block of B's units.
    // So packing starts the products after one block of B rather than all of it (1024^3 at 2
    // threads: the first product began 310-370 us into a 6.3 ms call when all of B came first).
    // The units are written with non-temporal stores: every block reads the packed B from L3 or
    // memory anyway, and ordinary stores first read each destination line (packing 1024^2 took
    // 700 us of the two threads' time in a 1024^3 product, 300 us streamed; the product 5.84 ->
    // 5.68 ms at 2 threads in openpjrt bench, 0.965-0.982 of the time through the plugin in
    // alternating rounds; 2048^3 unchanged, 1.005; with B transposed, 1024 x 1024 @ (1024 x
    // 1024)^T 5.60-5.63 -> 5.46-5.49 ms).
    // A task waits only for tasks earlier in the list (its block of B's units; the previous
    // depth block of its own rows and columns), which whoever took them is running.
    // A block of rows belongs to the part that took its first depth block (parts take those
    // as they come); its later depth blocks are that part's, so its block of C stays in one
    // core's caches. On this VM the two cores sit far apart (a cache line's round trip between
    // them takes ~440 ns, and reading 800 KB the other core has just written runs at ~26 GB/s
    // against ~90 from the core's own caches): when every product block went to whichever
    // thread was free, each block of C moved between the cores once per depth block (1024^3
    // at 2 threads in gemm_bench: 358-363 GFLOP/s; 381-408 with the rows kept, interleaved;
    // through the plugin 0.97 of the time in a slow stretch of the machine, equal in a fast
    // one). A part whose own products are done takes others' that are ready to run, the last
    // in the list first, so a slower core does not hold up the end (on this VM one core often
    // runs 15-20% slower than the other for seconds). The rows are cut into an equal number of
    // blocks per part (1024 rows at 4 parts: 8 blocks of 128, not 7 of 144 and one of 16).
    // The last depth block's products are cut into column halves, so that the thread that
    // finishes first waits for at most half a block. Every element of C is summed in the same
    // order whoever computes it.
    constexpr int64_t kUnitCols = 4 * kNr;
    const int64_t per_block = kNc / kUnitCols;
    const int64_t per_thread = (m + want * kMc - 1) / (want * kMc);
    const int64_t rb = RoundUp((m + want * per_thread - 1) / (want * per_thread), kRowStep);
    const int64_t mb = (m + rb - 1) / rb;
    const int64_t b_blocks = nb * kb;  // in the order (column block, depth block)
    struct Task {
      int64_t unit;        // >= 0: this unit of B to pack (b_block * per_block + its place)
      int64_t bb, ib;      // otherwise the product of row block ib and B's block bb,
      int64_t c0, cols;    // columns [c0, c0 + cols) of that block's columns
    };
    std::vector<Task> tasks;
    tasks.reserve(static_cast<size_t>(b_blocks * per_block + (b_blocks + 1) * mb));
    for (int64_t unit = 0; unit < per_block; ++unit) tasks.push_back({unit, 0, 0, 0, 0});
    for (int64_t bb = 0; bb < b_blocks; ++bb) {
      const int64_t nc = std::min(kNc, n - bb / kb * kNc);
      const int64_t half = bb + 1 == b_blocks && nc >= 2 * kNr ? RoundUp(nc / 2, kNr) : nc;
      for (int64_t ib = 0; ib < mb; ++ib) {
        for (int64_t c0 = 0; c0 < nc; c0 += half) tasks.push_back({-1, bb, ib, c0, std::min(half, nc - c0)});
        if (bb + 1 < b_blocks)
          for (int64_t unit = ib * per_block / mb; unit < (ib + 1) * per_block / mb; ++unit)
            tasks.push_back({(bb + 1) * per_block + unit, 0, 0, 0, 0});
      }
    }
    std::unique_ptr<std::atomic<int64_t>[]> units_done(new std::atomic<int64_t>[static_cast<size_t>(b_blocks)]);
    for (int64_t i = 0; i < b_blocks; ++i) units_done[i].store(0, std::memory_order_relaxed);
    std::unique_ptr<std::atomic<int64_t>[]> depth_done(new std::atomic<int64_t>[static_cast<size_t>(nb * mb)]);
    for (int64_t i = 0; i < nb * mb; ++i) depth_done[i].store(0, std::memory_order_relaxed);
    std::unique_ptr<std::atomic<bool>[]> claimed(new std::atomic<bool>[tasks.size()]);
    for (size_t i = 0; i < tasks.size(); ++i) claimed[i].store(false, std::memory_order_relaxed);
    std::unique_ptr<std::atomic<int64_t>[]> owner(new std::atomic<int64_t>[static_cast<size_t>(nb * mb)]);
    for (int64_t i = 0; i < nb * mb; ++i) owner[i].store(-1, std::memory_order_relaxed);
    auto product = [&](const Task& task) {
      const int64_t jb = task.bb / kb, pb = task.bb % kb;
      while (units_done[task.bb].load(std::memory_order_acquire) < per_block) _mm_pause();
      std::atomic<int64_t>& done_depth = depth_done[jb * mb + task.ib];
      while (done_depth.load(std::memory_order_acquire) < pb) _mm_pause();
      const int64_t m0 = task.ib * rb, n0 = jb * kNc + task.c0;
      const SgemmUpdate up = update_at(m0, n0);
      if (!Piece(std::min(rb, m - m0), task.cols, k, RowsFrom(a, m0), b, c + m0 * ldc + n0, ldc, done, m0, packed, n0,
                 n, pb, update ? &up : nullptr))
        failed.store(true, std::memory_order_relaxed);  // (not expected: its buffer was reserved)
      done_depth.store(pb + 1, std::memory_order_release);  // (halves: the last depth block, read by none)
    };
    auto ready = [&](const Task& task) {
      return units_done[task.bb].load(std::memory_order_acquire) >= per_block &&
             depth_done[task.bb / kb * mb + task.ib].load(std::memory_order_acquire) >= task.bb % kb;
    };
    parallel_for(want, [&](int64_t part) {
      // A part whose thread cannot get Piece's buffer for A takes no task and leaves them all to
      // the others (no task is then left half done for the others to wait on).
      if (!piece_scratch.Get(piece_scratch.a, piece_scratch.a_size, kcb * std::min(kMc, RoundUp(rb, kMr)))) return;
      for (size_t t = 0; t < tasks.size(); ++t) {
        const Task& task = tasks[t];
        if (task.unit < 0 && task.bb % kb != 0 &&
            owner[task.bb / kb * mb + task.ib].load(std::memory_order_relaxed) != part)
          continue;  // another part's rows
        if (claimed[t].exchange(true, std::memory_order_relaxed)) continue;
        if (task.unit < 0) {
          if (task.bb % kb == 0) owner[task.bb / kb * mb + task.ib].store(part, std::memory_order_relaxed);
          product(task);
          continue;
        }
        const int64_t bb = task.unit / per_block, j0 = task.unit % per_block * kUnitCols;
        const int64_t jc = bb / kb * kNc, pc = bb % kb * kcb;
        const int64_t nc = std::min(kNc, n - jc), kc = std::min(kcb, k - pc);
        if (j0 < nc)
          PackB(b.p + pc * b.rs + (jc + j0) * b.cs, b.rs, b.cs, kc, std::min(kUnitCols, nc - j0),
                packed + PackedBlockOffset(n, k, jc, pc) + j0 * kc, /*stream=*/true);
        units_done[bb].fetch_add(1, std::memory_order_release);
      }
      // Own rows done: take other parts' products that are ready to run, latest first.
      for (;;) {
        bool left = false, took = false;
        for (size_t t = tasks.size(); t-- > 0 && !took;) {
          const Task& task = tasks[t];
          if (task.unit >= 0 || claimed[t].load(std::memory_order_relaxed)) continue;
          left = true;
          if (ready(task) && !claimed[t].exchange(true, std::memory_order_relaxed)) {
            product(task);
            took = true;
          }
        }
        if (!left) break;
        if (!took) _mm_pause();
      }
    });
    // Every part took its buffer, or some did and ran every task, unless none could.
    for (size_t t = 0; t < tasks.size(); ++t)
      if (!claimed[t].load(std::memory_order_relaxed)) return false;
    return !failed.load();
  }
  // Otherwise cut C into a grid of tm x tn parts (tm * tn = pieces, whole kernel tiles) that
  // costs the least: every part packs (or reads) its rows of A and its columns of B, so A is
  // read tn times and B tm times, and a grid with column cuts costs 1.6 times as much. Pieces
  // side by side on the same rows ran slower at 2 threads than the reads explain (128x784 @
  // 784x512: 335-376 us in column halves, 296-308 in row halves, though each thread then reads
  // all of B; 784x128^T @ 128x512 in 2 x 2 parts 307-360 us, in 4 row parts 272-279); B 8 or 16
  // times larger than A still favours columns (64x512 @ 512x2048: 495-529 against 570-596 us).
  int64_t tm = 1, tn = 1;
  double best = -1;
  for (int64_t r = 1; r <= want; ++r) {
    if (want % r != 0 || r > row_tiles || want / r > col_tiles) continue;
    const double cost = (static_cast<double>(want / r) * m + static_cast<double>(r) * n) * (want / r > 1 ? 1.6 : 1.0);
    if (best < 0 || cost < best) best = cost, tm = r, tn = want / r;
  }
  // A product with an epilogue (`done`) is cut into whole rows when it can be: its epilogue then
  // runs over contiguous rows, and in column halves it took three times as long (a bias, ReLU
  // and mask epilogue of 128x512: 28 K against 81 K cycles per thread).
  if (best < 0 || (done && row_tiles >= want)) tm = std::min(want, row_tiles), tn = 1;
  const int64_t rows = RoundUp((m + tm - 1) / tm, kRowStep), cols = (col_tiles + tn - 1) / tn * kNr;
  const int64_t pm = (m + rows - 1) / rows, pn = (n + cols - 1) / cols;
  auto run = [&](int64_t piece) {
    const int64_t r = piece / pn, q = piece % pn;
    const int64_t m0 = r * rows, n0 = q * cols;
    const SgemmOperand part = RowsFrom(a, m0);
    // (The piece's own B starts at column n0, so `done` is given the piece's columns through a shim.)
    const SgemmRegionDone shifted = [&](int64_t r0, int64_t rows_done, int64_t c0, int64_t cols_done) {
      (*done)(r0, rows_done, n0 + c0, cols_done);
    };
    const SgemmUpdate up = update_at(m0, n0);
    if (!Piece(std::min(rows, m - m0), std::min(cols, n - n0), k, part, {b.p + n0 * b.cs, b.rs, b.cs},
               c + m0 * ldc + n0, ldc, done ? &shifted : nullptr, m0, nullptr, 0, 0, -1, update ? &up : nullptr))
      failed.store(true, std::memory_order_relaxed);
  };
  if (pm * pn == 1 && !forked) {
    run(0);
  } else {
    parallel_for(pm * pn, run);
  }
  return !failed.load();
}

}  // namespace

bool FastSgemm(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c, int64_t ldc, int pieces,
               const SgemmParallelFor& parallel_for, const SgemmRegionDone* done, const SgemmPrologue* prologue,
               const SgemmUpdate* update) {
  if (m <= 0 || n <= 0) return true;
  if (!prologue || prologue->units <= 0)
    return FastSgemmParts(m, n, k, a, b, c, ldc, pieces, parallel_for, done, false, update);
  if (k <= 0) {  // no parts to run it in
    for (int64_t u = 0; u < prologue->units; ++u) prologue->run(u);
    return FastSgemmParts(m, n, k, a, b, c, ldc, pieces, parallel_for, done, false, update);
  }
  std::atomic<int64_t> next_unit{0}, units_done{0};
  const SgemmParallelFor with_prologue = [&](int64_t parts, const std::function<void(int64_t)>& fn) {
    parallel_for(parts, [&](int64_t part) {
      for (int64_t u; (u = next_unit.fetch_add(1, std::memory_order_relaxed)) < prologue->units;) {
        prologue->run(u);
        units_done.fetch_add(1, std::memory_order_release);
      }
      while (units_done.load(std::memory_order_acquire) < prologue->units) _mm_pause();
      fn(part);
    });
  };
  return FastSgemmParts(m, n, k, a, b, c, ldc, pieces, with_prologue, done, true, update);
}


void LimitSharedSgemmBufferForTest(int64_t max_floats) { shared_b_limit.store(max_floats, std::memory_order_relaxed); }
void LimitSgemmScratchOnThisThreadForTest(int64_t max_floats) { scratch_limit = max_floats; }

bool ReserveSgemmScratch(int64_t m, int64_t k) {
  if (m <= 0 || k <= 0) return true;
  return piece_scratch.Get(piece_scratch.a, piece_scratch.a_size, KcFor(k) * std::min(kMc, RoundUp(m, kMr))) != nullptr;
}

#else  // not x86-64: Eigen serves every product

void LimitSharedSgemmBufferForTest(int64_t) {}
void LimitSgemmScratchOnThisThreadForTest(int64_t) {}
bool ReserveSgemmScratch(int64_t, int64_t) { return true; }

bool HaveFastSgemm() { return false; }
bool FastSgemm(int64_t, int64_t, int64_t, SgemmOperand, SgemmOperand, float*, int64_t, int,
               const SgemmParallelFor&, const SgemmRegionDone*, const SgemmPrologue*, const SgemmUpdate*) {
  return false;
}
PackedSgemmB PackSgemmB(int64_t, int64_t, SgemmOperand) { return {}; }
int64_t PackedSgemmBFloats(int64_t, int64_t) { return 0; }
void PackSgemmBInto(int64_t, int64_t, SgemmOperand, float*) {}

#endif

}  // namespace openpjrt::cpu
