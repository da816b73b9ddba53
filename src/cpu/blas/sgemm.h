// Our own f32 matrix product for AVX-512 machines: packed panels and a 12 x 32 register-blocked
// kernel (sgemm_avx512.cc), with any row and column strides on both operands, so transposed
// operands need no copy. Every element of C is summed in the same order whatever the thread
// count and the split of the work (K in blocks of 256, each block in FMA order, blocks added in
// order), so results are bit-identical with 1 or N threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace openpjrt::cpu {

// A strided matrix view: element (i, j) is at p[i * rs + j * cs]. The left operand may instead be
// indexed: when row_off and col_off are set, element (i, j) is at p[row_off[i] + col_off[j]] (rs
// and cs are ignored). A convolution reads its input windows in place this way (implicit GEMM).
struct SgemmOperand {
  const float* p;
  int64_t rs, cs;
  const int64_t* row_off = nullptr;
  const int64_t* col_off = nullptr;
  // Right operand only: all of B already packed by PackSgemmB (a constant weight, packed once at
  // compile time); p, rs and cs are then not read.
  const float* packed = nullptr;
};

// All of B[k x n] in the kernel's packed layout, 64-byte aligned.
struct PackedSgemmB {
  int64_t k = 0, n = 0;
  std::shared_ptr<float> data;
};
// Only call when HaveFastSgemm(). When the packed copy cannot be allocated, data is null (and k
// and n 0): the product then reads B as it is.
PackedSgemmB PackSgemmB(int64_t k, int64_t n, SgemmOperand b);
// The same layout into a caller's buffer of PackedSgemmBFloats(k, n) floats, 64-byte aligned (a
// per-thread copy of a small B that is reused by several products).
int64_t PackedSgemmBFloats(int64_t k, int64_t n);
void PackSgemmBInto(int64_t k, int64_t n, SgemmOperand b, float* out);

// fn(i) for i in [0, n), possibly on several threads; returns when all are done.
using SgemmParallelFor = std::function<void(int64_t n, const std::function<void(int64_t)>& fn)>;

// True when this build has the kernel and the CPU can run it.
bool HaveFastSgemm();

// Told that rows [m0, m0 + rows) x columns [n0, n0 + cols) of C are final, on the thread that
// computed them (regions of one product may finish on several threads at once; they never
// overlap). A product's epilogue (bias, activation) runs there while the region is in cache.
using SgemmRegionDone = std::function<void(int64_t m0, int64_t rows, int64_t n0, int64_t cols)>;

// Work that must finish before any part of the product starts (a convolution's padded copy of
// its input, read as A): run(u) for u in [0, units), shared out by the threads that run the
// parts, inside the product's one parallel_for, each thread taking units until none is left and
// then waiting for the others' to finish.
struct SgemmPrologue {
  int64_t units = 0;
  std::function<void(int64_t)> run;
};

// An elementwise update that becomes part of the product: C = D + s * (A B), or D - s * (A B)
// (SGD's w - lr * dw, a residual connection x + h W with s = 1 and no multiply), applied to each
// tile in registers as its last depth block is stored, so that the product is never written and
// read back. Each operation is rounded on its own as the separate ops would be: the product's
// sum (in the product's order), then s times it, then the addition, the same bits as the
// unfused ops. D's element (i, j) is at d[i * ldd + j]; D may not overlap C.
struct SgemmUpdate {
  const float* d = nullptr;
  int64_t ldd = 0;
  float scale = 1.0f;
  bool scaled = false;    // false: no multiply (s = 1)
  bool subtract = false;  // D - s * (A B)
};

// C[m x n] (row stride ldc) = A[m x k] B[k x n], split into up to `pieces` independent parts run
// through parallel_for; `done` (optional) hears of each part as it completes (after `update`,
// when there is one); `prologue` (optional) runs first. Only call when HaveFastSgemm(). Returns
// false when a packing buffer (up to ~1.3 MiB per thread, kept for later calls) could not be
// allocated: C is then partly written and some regions may have been reported; the caller
// computes the product another way.
[[nodiscard]] bool FastSgemm(int64_t m, int64_t n, int64_t k, SgemmOperand a, SgemmOperand b, float* c,
               int64_t ldc, int pieces, const SgemmParallelFor& parallel_for,
               const SgemmRegionDone* done = nullptr, const SgemmPrologue* prologue = nullptr,
               const SgemmUpdate* update = nullptr);

// c[n] = a[1 x k] B[k x n] on the calling thread, a's element p at a[p * a_step], B's row p at
// b + p * b_row (its columns adjacent), summed as FastSgemm sums a single row (the same bits):
// for products too small to share out (a loop body's h W), without FastSgemm's planning. False
// (nothing written) where FastSgemm would take another path: at most 12 columns, or column
// parts for the threads. (Plain arguments: SgemmOperands passed by value had been rebuilt on the
// stack through stalled store forwarding, ~10 ns a call.)
[[nodiscard]] bool SgemmSingleRow(int64_t n, int64_t k, const float* a, int64_t a_step, const float* b,
                                  int64_t b_row, float* c);

// Makes sure this thread's packing buffer for A is allocated for a product of up to m rows and
// depth k with a packed B (SgemmOperand::packed): such a product run on this thread with one
// piece then cannot fail. False when it cannot be allocated.
bool ReserveSgemmScratch(int64_t m, int64_t k);

// How many pieces a dot_general asks FastSgemm for at `threads` threads: small products stay on
// one thread; two parts per thread balance the load when C is large, otherwise one each, which
// packs the operands fewer times. (From 1 MFLOP: the caller never waits for a helper that has
// not started, and the SGD step's 128x512 @ 512x10 products, alone on one thread below the
// former 4 MFLOP, took 86 -> 78 us for the three at 2 threads.)
inline int SgemmPieces(int64_t m, int64_t n, int64_t k, int threads) {
  if (2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < 1e6) return 1;
  return m * n > 512 * 512 ? 2 * threads : threads;
}

// For tests: a large product's shared packed B (all of B, packed once by all the threads) is
// refused as if its allocation had failed when it would take more than max_floats floats, and
// the product is cut into a grid instead; INT64_MAX lifts the limit.
void LimitSharedSgemmBufferForTest(int64_t max_floats);

// For tests: this thread's packing buffers (kept per thread, grown on demand) are refused when
// they would have to grow past max_floats floats, as if their allocation had failed, and so are
// B's packed copies (PackSgemmB) made on this thread; INT64_MAX lifts the limit.
void LimitSgemmScratchOnThisThreadForTest(int64_t max_floats);

}  // namespace openpjrt::cpu
