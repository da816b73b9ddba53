// What the AVX-512 f32 GEMM's source files share (x86-64 only): the kernel's tile width, the
// per-thread packing buffers with their test limit, and the narrow products' entry point.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "src/cpu/blas/sgemm.h"

#if defined(__x86_64__)
#define OPJ_AVX512 __attribute__((target("avx512f,fma")))

namespace openpjrt::cpu::sgemm_internal {

inline constexpr int64_t kNr = 32;  // columns of the kernel's tile, and of a packed sliver of B
inline constexpr int64_t kMr = 12;  // rows of the kernel's tile, and of a packed sliver of A

inline int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// The depth of the blocks of B: k cut into equal blocks of at most kKcMax (576 = 2 x 288, not
// 256 + 256 + 64, whose last block paid a pass over C for a quarter of the work). Every path
// (tiles, single rows) sums an element block by block alike.
inline constexpr int64_t kKcMax = 320;
inline int64_t KcFor(int64_t k) {
  const int64_t blocks = (k + kKcMax - 1) / kKcMax;
  const int64_t kc = (k + blocks - 1) / blocks;
  return kc > 1 ? kc : 1;
}

// Per-thread packing buffers larger than this are refused on this thread as if their allocation
// had failed (tests; see LimitSgemmScratchOnThisThreadForTest).
extern thread_local int64_t scratch_limit;

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// Per-thread packing buffers, grown on demand and kept; null when the allocation failed.
struct Scratch {
  std::unique_ptr<float[], FreeDeleter> a, b;
  int64_t a_size = 0, b_size = 0;
  float* Get(std::unique_ptr<float[], FreeDeleter>& p, int64_t& size, int64_t want) {
    if (size < want) {
      want = (want + 15) / 16 * 16;  // aligned_alloc takes whole multiples of the alignment
      p.reset(want > scratch_limit
                  ? nullptr
                  : static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>(want) * sizeof(float))));
      size = p ? want : 0;
    }
    return p.get();
  }
};

// Packing (sgemm_pack.cc). PackA: rows [0, mc) x columns [0, kc) of A (element (i, p) at
// a[i * rs + p * cs]) into slivers of kMr rows: sliver s holds, for each p, the kMr values
// A[s * kMr + i][p] (zero past the last row). PackAIndexed: the same for an indexed operand,
// A[i][p] = a[roff[i] + coff[p]]. PackB: rows [0, kc) x columns [0, nc) of B into slivers of kNr
// columns: sliver s holds, for each p, the kNr values B[p][s * kNr + j] (zero past the last
// column); `stream`: whole slivers of a B with unit column or unit row stride are written with
// non-temporal stores, fenced before returning.
void PackA(const float* a, int64_t rs, int64_t cs, int64_t mc, int64_t kc, float* out);
void PackAIndexed(const float* a, const int64_t* roff, const int64_t* coff, int64_t mc, int64_t kc, float* out);
void PackB(const float* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc, float* out, bool stream = false);

// A narrow product (sgemm_narrow.cc), when it applies; false (nothing written) when it does not,
// or when its buffer for B transposed cannot be allocated.
bool NarrowSgemm(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c, int64_t ldc, int pieces,
                 const SgemmParallelFor& parallel_for, const SgemmRegionDone* done, bool forked,
                 const SgemmUpdate* update);

// Single-row products (sgemm_row.cc): m == 1, A not indexed, B not packed and its columns
// adjacent; false (nothing written) otherwise or when `forked`. Columns [j0, j1) of c = a B by
// RowColumns; RowSgemm cuts n into column parts over parallel_for when B is large;
// OneRowPart(n, k): whether it keeps such a product in one part whatever the pieces.
bool RowSgemm(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c, int pieces,
              const SgemmParallelFor& parallel_for, const SgemmRegionDone* done, bool forked,
              const SgemmUpdate* update);
OPJ_AVX512 void RowColumns(int64_t j0, int64_t j1, int64_t k, int64_t kcb, const SgemmOperand& a, const SgemmOperand& b,
                           float* c);
bool OneRowPart(int64_t n, int64_t k);

// Rows [0, rows) x columns [0, cols) of a finished product C (row stride ldc) become
// D + s * C or D - s * C (SgemmUpdate, whose d is positioned at C's first element).
void ApplySgemmUpdate(const SgemmUpdate& u, float* c, int64_t ldc, int64_t rows, int64_t cols);

// The same update pointed at the element (i, j) of D.
inline SgemmUpdate UpdateAt(const SgemmUpdate& u, int64_t i, int64_t j) {
  SgemmUpdate at = u;
  at.d = u.d + i * u.ldd + j;
  return at;
}

}  // namespace openpjrt::cpu::sgemm_internal

#endif
