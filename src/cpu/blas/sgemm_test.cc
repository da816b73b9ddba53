// FastSgemm (sgemm.h) against a double-precision loop: shapes around the kernel's tile and block
// sizes, transposed and strided operands, one or several pieces. Results must also be identical
// whatever the number of pieces.
#include <atomic>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <random>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/blas/sgemm.h"

namespace openpjrt::cpu {
namespace {

struct Case {
  int64_t m, n, k;
  bool trans_a, trans_b;
};

std::vector<float> Multiply(const Case& c, const std::vector<float>& a, const std::vector<float>& b,
                       int pieces) {
  // A is stored m x k (or k x m when transposed), B k x n (or n x k).
  SgemmOperand av = c.trans_a ? SgemmOperand{a.data(), 1, c.m} : SgemmOperand{a.data(), c.k, 1};
  SgemmOperand bv = c.trans_b ? SgemmOperand{b.data(), 1, c.k} : SgemmOperand{b.data(), c.n, 1};
  // C rows padded by 3 to check that ldc is honoured and the padding untouched.
  const int64_t ldc = c.n + 3;
  std::vector<float> out(static_cast<size_t>(c.m * ldc), -7.0f);
  SgemmParallelFor pf = [](int64_t n, const std::function<void(int64_t)>& fn) {
    for (int64_t i = n; i-- > 0;) fn(i);  // reverse order: pieces must be independent
  };
  EXPECT_TRUE(FastSgemm(c.m, c.n, c.k, av, bv, out.data(), ldc, pieces, pf));
  return out;
}

TEST(FastSgemm, MatchesAReferenceForEdgeShapesAndLayouts) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const Case cases[] = {
      {1, 1, 1, false, false},     {12, 32, 256, false, false}, {13, 33, 257, false, false},
      {11, 31, 255, true, false},  {145, 70, 300, false, true}, {200, 2100, 20, true, true},
      {300, 40, 513, false, false}, {5, 700, 3, false, true},   {64, 64, 0, false, false},
      {97, 129, 130, true, true},  {2100, 45, 300, false, true},  // tall: pieces share one packed B
      {400, 520, 300, false, true}, {770, 600, 260, true, false},  // large B packed once for 2 pieces
      {128, 520, 700, false, false}, {121, 300, 130, true, true},   // short and wide: A packed once
      {150, 40, 700, true, false}, {30, 128, 64, true, false},      // column-major A read in place
      // Pieces cut at multiples of 4 rows end in 4- and 8-row kernels, whole or through the edge
      // buffer (13-, 45- and 70-column edges; 62 = 5 x 12 + 2 rows).
      {128, 64, 400, false, false}, {136, 45, 90, true, false}, {130, 70, 50, false, true},
      // Narrow: at most 12 columns, rows of A contiguous (dot products along the depth, 3 rows
      // x up to 8 columns a pass, masked depth tails); 13 columns and a transposed A do not.
      {128, 10, 512, false, false}, {7, 1, 40, false, true}, {130, 12, 33, false, false},
      {4, 9, 32, false, true}, {50, 13, 100, false, false}, {50, 10, 100, true, false},
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case& c : cases) {
    std::vector<float> a(static_cast<size_t>(c.m * c.k)), b(static_cast<size_t>(c.k * c.n));
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    auto at = [&](int64_t i, int64_t p) { return c.trans_a ? a[p * c.m + i] : a[i * c.k + p]; };
    auto bt = [&](int64_t p, int64_t j) { return c.trans_b ? b[j * c.k + p] : b[p * c.n + j]; };
    const std::vector<float> one = Multiply(c, a, b, 1);
    const std::vector<float> many = Multiply(c, a, b, 7);
    const std::vector<float> two = Multiply(c, a, b, 2);
    const int64_t ldc = c.n + 3;
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < c.k; ++p) want += static_cast<double>(at(i, p)) * bt(p, j);
        const float got = one[i * ldc + j];
        ASSERT_NEAR(got, want, 1e-5 * (c.k + 1)) << c.m << "x" << c.n << "x" << c.k << " at " << i << "," << j;
        ASSERT_EQ(got, many[i * ldc + j]) << "pieces changed the result at " << i << "," << j;
        ASSERT_EQ(got, two[i * ldc + j]) << "two pieces changed the result at " << i << "," << j;
      }
      for (int64_t j = c.n; j < ldc; ++j)
        ASSERT_TRUE(one[i * ldc + j] == -7.0f && two[i * ldc + j] == -7.0f) << "wrote past a row";
    }
  }
}

// The narrow product reads A 16 depths at a time: past the depth (rows k + 5 apart, NaN in the
// gap) nothing may be read into the sums.
TEST(FastSgemm, NarrowProductReadsNothingPastTheDepth) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  for (const int64_t k : {33, 40, 47}) {
    const int64_t m = 7, n = 10, lda = k + 5;
    std::vector<float> a(static_cast<size_t>(m * lda), std::nanf("")), b(static_cast<size_t>(k * n));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) a[i * lda + p] = static_cast<float>((i + p) % 5) - 2.0f;
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) b[p * n + j] = static_cast<float>((p * 3 + j) % 7) - 3.0f;
    std::vector<float> c(static_cast<size_t>(m * n));
    ASSERT_TRUE(FastSgemm(m, n, k, {a.data(), lda, 1}, {b.data(), n, 1}, c.data(), n, 1,
              [](int64_t count, const std::function<void(int64_t)>& fn) {
                for (int64_t i = 0; i < count; ++i) fn(i);
              }));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float want = 0;  // small integers: exact in any order
        for (int64_t p = 0; p < k; ++p) want += a[i * lda + p] * b[p * n + j];
        ASSERT_EQ(c[i * n + j], want) << "k " << k << " at " << i << "," << j;
      }
  }
}

// A thread whose packing buffers cannot be allocated: the product is refused (false), whatever
// the path (a grid piece, a narrow product, a prepacked B, row pieces sharing a small B), and
// nothing crashes; the same thread succeeds once the limit is lifted. With parts on threads of
// which only one is starved, a large product's shared blocks are all taken by the others.
TEST(FastSgemm, RefusedWhenItsBuffersCannotBeAllocated) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const Case cases[] = {{145, 70, 300, false, true}, {128, 10, 512, false, false}, {2100, 45, 300, false, true}};
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> dist(-1, 1);
  const SgemmParallelFor in_order = [](int64_t count, const std::function<void(int64_t)>& fn) {
    for (int64_t i = 0; i < count; ++i) fn(i);
  };
  for (const Case& c : cases)
    for (const bool prepacked : {false, true}) {
      std::vector<float> a(static_cast<size_t>(c.m * c.k)), b(static_cast<size_t>(c.k * c.n));
      for (float& v : a) v = dist(rng);
      for (float& v : b) v = dist(rng);
      SgemmOperand bv = c.trans_b ? SgemmOperand{b.data(), 1, c.k} : SgemmOperand{b.data(), c.n, 1};
      PackedSgemmB packed;
      if (prepacked) {
        packed = PackSgemmB(c.k, c.n, bv);
        bv.packed = packed.data.get();
      }
      const std::vector<float> want = Multiply(c, a, b, 1);
      std::vector<float> got(want.size(), -7.0f);
      std::thread([&] {
        LimitSgemmScratchOnThisThreadForTest(0);
        for (int pieces : {1, 2})
          EXPECT_FALSE(FastSgemm(c.m, c.n, c.k, {a.data(), c.k, 1}, bv, got.data(), c.n + 3, pieces, in_order))
              << c.m << "x" << c.n << "x" << c.k << " pieces " << pieces << (prepacked ? " prepacked" : "");
        LimitSgemmScratchOnThisThreadForTest(std::numeric_limits<int64_t>::max());
        EXPECT_TRUE(FastSgemm(c.m, c.n, c.k, {a.data(), c.k, 1}, bv, got.data(), c.n + 3, 1, in_order));
      }).join();
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << c.m << "x" << c.n << " at " << i;
    }
  // A packed copy of B that cannot be allocated comes back empty.
  std::thread([&] {
    LimitSgemmScratchOnThisThreadForTest(0);
    const std::vector<float> b(64 * 48, 1.0f);
    const PackedSgemmB none = PackSgemmB(64, 48, {b.data(), 48, 1});
    EXPECT_TRUE(none.data == nullptr && none.k == 0 && none.n == 0);
  }).join();
  // 700x1100x700 at 3 parts on three threads: part 0 on a thread that cannot allocate (it takes
  // no block), the others taken by two threads that can.
  const Case big{700, 1100, 700, false, false};
  std::vector<float> a(static_cast<size_t>(big.m * big.k)), b(static_cast<size_t>(big.k * big.n));
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  const std::vector<float> want = Multiply(big, a, b, 1);
  std::vector<float> got(want.size(), -7.0f);
  const SgemmParallelFor one_starved = [](int64_t count, const std::function<void(int64_t)>& fn) {
    std::atomic<int64_t> next{1};
    auto work = [&] {
      for (int64_t i; (i = next.fetch_add(1)) < count;) fn(i);
    };
    std::thread t1([&] {
      LimitSgemmScratchOnThisThreadForTest(0);
      fn(0);
    });
    std::thread t2(work);
    work();
    t1.join();
    t2.join();
  };
  ASSERT_TRUE(FastSgemm(big.m, big.n, big.k, {a.data(), big.k, 1}, {b.data(), big.n, 1}, got.data(), big.n + 3, 3,
                        one_starved));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "at " << i;
}

// A fresh thread's packing buffers are sized for the first product it runs; depths cut into
// blocks that are not a multiple of 16 floats once asked aligned_alloc for a size that is not a
// multiple of the alignment (AddressSanitizer's report, found by the exec fuzzer on a 3x3x3
// convolution).
TEST(FastSgemm, OddDepthsOnAFreshThread) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  for (const Case& c : {Case{5, 3, 27, false, false}, Case{13, 17, 331, false, true}}) {
    std::vector<float> a(static_cast<size_t>(c.m * c.k), 0.5f), b(static_cast<size_t>(c.k * c.n), 2.0f);
    std::vector<float> got;
    std::thread([&] { got = Multiply(c, a, b, 1); }).join();
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) ASSERT_EQ(got[i * (c.n + 3) + j], static_cast<float>(c.k)) << i << "," << j;
  }
}

// An indexed left operand (row and column offset tables, as the implicit-GEMM convolution uses)
// gives exactly the product of the same matrix stored plainly, with any number of pieces; rows
// may overlap in memory.
TEST(FastSgemm, IndexedLeftOperandEqualsThePlainOne) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  // m leaves a partial sliver of rows (packed), n a 13- or 28-column edge (half and full edge
  // kernels reading the rows in place), k two depth blocks.
  // m = 2100 with 2 pieces takes the path where row pieces share one packed B.
  // Rows evenly spaced (the kernel keeps one base pointer) and not (one pointer per row).
  for (const bool even : {true, false})
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{150, 45}, {150, 60}, {2100, 60}}) {
    const int64_t k = 300;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> base(static_cast<size_t>(8 * m + 500)), b(static_cast<size_t>(k * n));
    for (float& v : base) v = dist(rng);
    for (float& v : b) v = dist(rng);
    // Row i starts at 7 * i (overlapping rows; uneven: 3 more after every 5 rows), column j is
    // at (j % 30) + 40 * (j / 30).
    std::vector<int64_t> row_off(m), col_off(k);
    for (int64_t i = 0; i < m; ++i) row_off[i] = 7 * i + (even ? 0 : i / 5 * 3);
    for (int64_t j = 0; j < k; ++j) col_off[j] = j % 30 + 40 * (j / 30);
    std::vector<float> plain(static_cast<size_t>(m * k));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) plain[i * k + j] = base[row_off[i] + col_off[j]];
    SgemmParallelFor pf = [](int64_t count, const std::function<void(int64_t)>& fn) {
      for (int64_t i = 0; i < count; ++i) fn(i);
    };
    std::vector<float> want(static_cast<size_t>(m * n)), got(want.size());
    ASSERT_TRUE(FastSgemm(m, n, k, {plain.data(), k, 1}, {b.data(), n, 1}, want.data(), n, 1, pf));
    for (int pieces : {1, 2, 3, 8}) {
      std::fill(got.begin(), got.end(), 0.0f);
      ASSERT_TRUE(FastSgemm(m, n, k, {base.data(), 0, 0, row_off.data(), col_off.data()}, {b.data(), n, 1},
                got.data(), n, pieces, pf));
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << "pieces " << pieces << " at " << i;
    }
  }
}

// B packed once (PackSgemmB, a constant weight) gives exactly the product with B read as usual:
// row pieces, column pieces that start inside a 1024-column block and cross into the next
// (n = 1500 cut in two or three), a partial last sliver, two depth blocks, a transposed B, and
// the region callbacks cover C exactly once.
// A case's operands filled from `rng` in [-1, 1), with their views (A m x k, B k x n, either
// stored transposed as the case says).
struct RandomOperands {
  RandomOperands(const Case& c, std::mt19937& rng)
      : a(static_cast<size_t>(c.m * c.k)), b(static_cast<size_t>(c.k * c.n)) {
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    av = c.trans_a ? SgemmOperand{a.data(), 1, c.m} : SgemmOperand{a.data(), c.k, 1};
    bv = c.trans_b ? SgemmOperand{b.data(), 1, c.k} : SgemmOperand{b.data(), c.n, 1};
  }
  RandomOperands(const RandomOperands&) = delete;
  RandomOperands& operator=(const RandomOperands&) = delete;
  std::vector<float> a, b;
  SgemmOperand av, bv;
};

// Pieces run in reverse order: they must be independent.
void Reversed(int64_t count, const std::function<void(int64_t)>& fn) {
  for (int64_t i = count; i-- > 0;) fn(i);
}

// A single row (RowSgemm: B read in place, no packing) gives the bits its row has inside a batch
// (the tile kernel's order), with A's row contiguous or strided, in 1, 2 or 7 column parts, with
// and without an update, each column reported done once.
TEST(FastSgemm, SingleRowEqualsItsRowInABatch) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const Case cases[] = {{9, 64, 64, false, false}, {9, 70, 700, true, false}, {9, 1100, 50, false, false},
                        {9, 4100, 300, true, false}, {9, 13, 1, false, false}, {9, 130, 321, false, false},
                        // 2 and 3 vectors of columns, over several depth blocks
                        {9, 20, 700, true, false}, {9, 40, 700, false, false}, {9, 300, 64, false, false}};
  std::mt19937 rng(5);
  for (const Case& c : cases) {
    RandomOperands ops(c, rng);
    std::vector<float> batch(static_cast<size_t>(c.m * c.n));
    ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, ops.av, ops.bv, batch.data(), c.n, 1, Reversed));
    std::vector<float> d(static_cast<size_t>(c.n));
    for (size_t j = 0; j < d.size(); ++j) d[j] = 0.25f * static_cast<float>(j % 7) - 0.5f;
    for (int64_t i = 0; i < c.m; i += 4) {
      const SgemmOperand row = c.trans_a ? SgemmOperand{ops.a.data() + i, 1, c.m}
                                         : SgemmOperand{ops.a.data() + i * c.k, c.k, 1};
      for (int pieces : {1, 2, 7}) {
        for (const bool with_update : {false, true}) {
          const SgemmUpdate u{d.data(), c.n, 0.5f, true, true};
          std::vector<float> got(static_cast<size_t>(c.n + 3), -7.0f);
          std::vector<int> covered(static_cast<size_t>(c.n), 0);
          const SgemmRegionDone done = [&](int64_t m0, int64_t rows, int64_t n0, int64_t cols) {
            EXPECT_EQ(m0, 0);
            EXPECT_EQ(rows, 1);
            for (int64_t j = n0; j < n0 + cols; ++j) ++covered[j];
          };
          ASSERT_TRUE(FastSgemm(1, c.n, c.k, row, ops.bv, got.data(), c.n, pieces, Reversed, &done, nullptr,
                                with_update ? &u : nullptr));
          for (int64_t j = 0; j < c.n; ++j) {
            volatile float scaled = 0.5f * batch[i * c.n + j];
            const float want = with_update ? d[j] - scaled : batch[i * c.n + j];
            ASSERT_EQ(got[j], want) << "1x" << c.n << "x" << c.k << " row " << i << " pieces " << pieces
                                    << " update " << with_update << " at " << j;
            ASSERT_EQ(covered[j], 1);
          }
          for (int64_t j = c.n; j < c.n + 3; ++j) ASSERT_EQ(got[j], -7.0f) << "wrote past the row";
        }
      }
    }
  }
}

// The direct single-row entry gives FastSgemm's bits where it applies and refuses (writing
// nothing) where FastSgemm would take another path.
TEST(FastSgemm, SingleRowEntryGivesFastSgemmsBits) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const Case cases[] = {{1, 64, 64, false, false},  {1, 13, 40, false, false},  {1, 128, 700, true, false},
                        {1, 300, 64, false, false}, {1, 512, 2100, false, false}, {1, 40, 1, false, false},
                        // refused: NarrowSgemm's columns; column parts for the threads
                        // (B's columns apart: FastSgemm's other paths, not asked)
                        {1, 12, 64, false, false},  {1, 4100, 300, false, false}, {1, 64, 64, false, true}};
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    RandomOperands ops(c, rng);
    std::vector<float> want(static_cast<size_t>(c.n));
    ASSERT_TRUE(FastSgemm(1, c.n, c.k, ops.av, ops.bv, want.data(), c.n, 2, Reversed));
    std::vector<float> got(static_cast<size_t>(c.n + 3), -7.0f);
    const bool taken = !c.trans_b && SgemmSingleRow(c.n, c.k, ops.av.p, ops.av.cs, ops.bv.p, ops.bv.rs, got.data());
    EXPECT_EQ(taken, c.n > 12 && c.n <= 512 && !c.trans_b) << "1x" << c.n << "x" << c.k;
    for (int64_t j = 0; j < c.n; ++j) {
      if (taken) ASSERT_EQ(got[j], want[j]) << "1x" << c.n << "x" << c.k << " at " << j;
      else ASSERT_EQ(got[j], -7.0f) << "refused, but wrote";
    }
    for (int64_t j = c.n; j < c.n + 3; ++j) ASSERT_EQ(got[j], -7.0f) << "wrote past the row";
  }
}

// B's rows at every offset from a 64-byte boundary (host arrays used in place are 16-byte
// aligned): a single row's product has the bits it has from aligned rows, and writes nothing
// past its row.
TEST(FastSgemm, SingleRowBitsDoNotDependOnWhereBsRowsStart) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  std::mt19937 rng(17);
  for (const int64_t n : {64, 128, 192, 100, 320}) {
    for (const int64_t k : {1, 64, 300}) {
      for (const int64_t rs : {n, n + 16}) {
        const Case c{1, n, k, false, false};
        RandomOperands ops(c, rng);
        // B (k x n, row stride rs) at 64-byte alignment, then shifted by 1..15 floats.
        std::vector<float> storage(static_cast<size_t>(k * rs + 64));
        float* base = storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) / 4 % 16) % 16;
        auto place = [&](int64_t shift) {
          std::fill(storage.begin(), storage.end(), std::numeric_limits<float>::quiet_NaN());
          for (int64_t p = 0; p < k; ++p)
            std::copy_n(ops.b.data() + p * n, n, base + shift + p * rs);
          return base + shift;
        };
        std::vector<float> want(static_cast<size_t>(n));
        ASSERT_TRUE(SgemmSingleRow(n, k, ops.a.data(), 1, place(0), rs, want.data()));
        for (int64_t shift = 1; shift < 16; ++shift) {
          const float* b = place(shift);
          std::vector<float> got(static_cast<size_t>(n + 3), -7.0f);
          ASSERT_TRUE(SgemmSingleRow(n, k, ops.a.data(), 1, b, rs, got.data()));
          for (int64_t j = 0; j < n; ++j)
            ASSERT_EQ(got[j], want[j]) << "1x" << n << "x" << k << " stride " << rs << " shift " << shift << " at " << j;
          for (int64_t j = n; j < n + 3; ++j) ASSERT_EQ(got[j], -7.0f) << "wrote past the row";
          std::vector<float> through(static_cast<size_t>(n));
          ASSERT_TRUE(FastSgemm(1, n, k, ops.av, SgemmOperand{b, rs, 1}, through.data(), n, 1, Reversed));
          ASSERT_EQ(std::memcmp(through.data(), want.data(), n * sizeof(float)), 0) << "FastSgemm, shift " << shift;
        }
      }
    }
  }
}

TEST(FastSgemm, PrepackedRightOperandEqualsThePlainOne) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const Case cases[] = {{1, 1500, 300, false, false}, {12, 1500, 128, false, true}, {700, 45, 513, true, false},
                        {2100, 60, 300, false, false}, {5, 2100, 20, false, false}, {200, 10, 300, false, false}};
  std::mt19937 rng(13);
  const SgemmParallelFor pf = Reversed;
  for (const Case& c : cases) {
    RandomOperands ops(c, rng);
    const SgemmOperand av = ops.av;
    SgemmOperand bv = ops.bv;
    std::vector<float> want(static_cast<size_t>(c.m * c.n)), got(want.size());
    ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, av, bv, want.data(), c.n, 1, pf));
    const PackedSgemmB packed = PackSgemmB(c.k, c.n, bv);
    bv.packed = packed.data.get();
    for (int pieces : {1, 2, 3, 8}) {
      std::fill(got.begin(), got.end(), 0.0f);
      std::vector<int> covered(want.size(), 0);
      const SgemmRegionDone done = [&](int64_t m0, int64_t rows, int64_t n0, int64_t cols) {
        for (int64_t i = m0; i < m0 + rows; ++i)
          for (int64_t j = n0; j < n0 + cols; ++j) ++covered[i * c.n + j];
      };
      ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, av, bv, got.data(), c.n, pieces, pf, &done));
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << c.m << "x" << c.n << "x" << c.k << " pieces " << pieces << " at " << i;
        ASSERT_EQ(covered[i], 1) << c.m << "x" << c.n << "x" << c.k << " pieces " << pieces << " at " << i;
      }
    }
  }
}

// A fused update (C = D +- s * A B) gives the bits of the product followed by the separate
// multiply and add, on every path: the tile kernel and its edge buffer, several depth blocks, a
// grid, row pieces sharing a small B, a large B packed by all, a prepacked B, the narrow
// product, no depth; each form (D - s p, D + s p, D + p); every element updated exactly once,
// regions still reported, D untouched and nothing written past a row.
TEST(FastSgemm, UpdateEqualsTheProductThenTheSeparateOps) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const Case cases[] = {{784, 512, 128, true, false}, {13, 33, 257, false, false}, {130, 70, 700, false, true},
                        {2100, 45, 300, false, true}, {400, 520, 700, false, true}, {128, 10, 512, false, false},
                        {64, 64, 0, false, false},   {5, 700, 3, false, true},     {136, 45, 90, true, false},
                        {30, 1100, 50, false, true}};  // (past one block of kNc columns)
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> dist(-1, 1);
  const SgemmParallelFor pf = Reversed;
  for (const Case& c : cases) {
    RandomOperands ops(c, rng);
    const SgemmOperand av = ops.av, bv = ops.bv;
    // D with its own row stride (n + 5), C with n + 3.
    const int64_t ldd = c.n + 5, ldc = c.n + 3;
    std::vector<float> d(static_cast<size_t>(c.m * ldd));
    for (float& v : d) v = dist(rng);
    const std::vector<float> d_before = d;
    std::vector<float> product(static_cast<size_t>(c.m * c.n));
    ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, av, bv, product.data(), c.n, 1, pf));
    const PackedSgemmB packed = PackSgemmB(c.k, c.n, bv);
    for (int form = 0; form < 3; ++form) {
      SgemmUpdate u{d.data(), ldd, form == 2 ? 1.0f : -0.0625f * (form + 1), form != 2, form == 0};
      std::vector<float> want(static_cast<size_t>(c.m * c.n));
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          volatile float scaled = u.scaled ? u.scale * product[i * c.n + j] : product[i * c.n + j];  // rounded
          const float dv = d[i * ldd + j];
          want[i * c.n + j] = u.subtract ? dv - scaled : dv + scaled;
        }
      for (const bool prepacked : {false, true}) {
        SgemmOperand bp = bv;
        if (prepacked) {
          if (!packed.data) continue;
          bp.packed = packed.data.get();
        }
        for (int pieces : {1, 2, 7}) {
          std::vector<float> got(static_cast<size_t>(c.m * ldc), -7.0f);
          std::vector<int> covered(static_cast<size_t>(c.m * c.n), 0);
          const SgemmRegionDone done = [&](int64_t m0, int64_t rows, int64_t n0, int64_t cols) {
            for (int64_t i = m0; i < m0 + rows; ++i)
              for (int64_t j = n0; j < n0 + cols; ++j) ++covered[i * c.n + j];
          };
          ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, av, bp, got.data(), ldc, pieces, pf, &done, nullptr, &u));
          for (int64_t i = 0; i < c.m; ++i) {
            for (int64_t j = 0; j < c.n; ++j) {
              ASSERT_EQ(got[i * ldc + j], want[i * c.n + j])
                  << c.m << "x" << c.n << "x" << c.k << " form " << form << " pieces " << pieces << " prepacked "
                  << prepacked << " at " << i << "," << j;
              ASSERT_EQ(covered[i * c.n + j], 1) << "region reported " << covered[i * c.n + j] << " times";
            }
            for (int64_t j = c.n; j < ldc; ++j) ASSERT_EQ(got[i * ldc + j], -7.0f) << "wrote past a row";
          }
          ASSERT_EQ(d, d_before) << "D was written";
        }
      }
    }
  }
}

// A prologue that writes A (as a convolution's padded copy is written) runs each unit exactly
// once, before any part reads A, on every way the product is cut (one part, row pieces sharing a
// small B, a large B packed by all, a grid, a prepacked B, no depth), with parts run on threads.
// Parts taken from a shared counter by three threads, as the pool does.
void ThreeThreads(int64_t count, const std::function<void(int64_t)>& fn) {
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t i; (i = next.fetch_add(1)) < count;) fn(i);
  };
  std::thread t1(work), t2(work);
  work();
  t1.join();
  t2.join();
}

TEST(FastSgemm, PrologueFinishesBeforeAnyPart) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  const Case cases[] = {{150, 45, 300, false, false}, {2100, 60, 300, false, false}, {300, 10, 100, false, false},
                        {1000, 600, 300, false, false}, {200, 130, 70, false, true}, {40, 50, 0, false, false}};
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case& c : cases)
    for (const bool prepacked : {false, true}) {
      if (prepacked && c.k == 0) continue;
      std::vector<float> source(static_cast<size_t>(c.m * c.k)), b(static_cast<size_t>(c.k * c.n));
      for (float& v : source) v = dist(rng);
      for (float& v : b) v = dist(rng);
      const SgemmOperand bv = c.trans_b ? SgemmOperand{b.data(), 1, c.k} : SgemmOperand{b.data(), c.n, 1};
      PackedSgemmB packed;
      SgemmOperand bp = bv;
      if (prepacked) {
        packed = PackSgemmB(c.k, c.n, bv);
        bp.packed = packed.data.get();
      }
      std::vector<float> want(static_cast<size_t>(c.m * c.n));
      ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, {source.data(), c.k, 1}, bv, want.data(), c.n, 1, ThreeThreads));
      for (int pieces : {1, 2, 3, 8}) {
        // A starts as NaN; unit u copies rows [5u, 5u + 5) of the source into it.
        std::vector<float> a(source.size(), std::nanf(""));
        const int64_t units = (c.m + 4) / 5;
        std::vector<std::atomic<int>> runs(static_cast<size_t>(units));
        const SgemmPrologue prologue{units, [&](int64_t u) {
                                       runs[u].fetch_add(1);
                                       for (int64_t i = 5 * u; i < std::min(c.m, 5 * u + 5); ++i)
                                         for (int64_t j = 0; j < c.k; ++j) a[i * c.k + j] = source[i * c.k + j];
                                     }};
        std::vector<float> got(want.size(), -1.0f);
        ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, {a.data(), c.k, 1}, bp, got.data(), c.n, pieces, ThreeThreads, nullptr, &prologue));
        for (int64_t u = 0; u < units; ++u) ASSERT_EQ(runs[u].load(), 1) << "unit " << u;
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_EQ(got[i], want[i]) << c.m << "x" << c.n << "x" << c.k << " pieces " << pieces << " at " << i;
      }
    }
}

// Products with a large B at several pieces are cut into blocks of rows x columns x one depth
// block; a block of rows stays with the part that took its first depth block, and a part done
// with its own takes others' that are ready. The result must be the one-piece result bit for
// bit, and every region of C must be reported once, already final, whatever thread finished it;
// also when one thread stalls (it sleeps in its first report, so that the others run out of
// their own blocks and take its remaining ones).
TEST(FastSgemm, SharedBlocksOfALargeProductMatchOnePiece) {
  if (!HaveFastSgemm()) GTEST_SKIP() << "no AVX-512 on this machine";
  // Three depth blocks, two column blocks (1100 > 1024 columns), five and seven row blocks.
  const Case cases[] = {{700, 1100, 700, false, false}, {1000, 600, 650, false, true}, {601, 530, 961, true, false}};
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const Case& c : cases) {
    std::vector<float> a(static_cast<size_t>(c.m * c.k)), b(static_cast<size_t>(c.k * c.n));
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    const std::vector<float> one = Multiply(c, a, b, 1);
    const int64_t ldc = c.n + 3;
    const SgemmOperand av = c.trans_a ? SgemmOperand{a.data(), 1, c.m} : SgemmOperand{a.data(), c.k, 1};
    const SgemmOperand bv = c.trans_b ? SgemmOperand{b.data(), 1, c.k} : SgemmOperand{b.data(), c.n, 1};
    for (int way : {2, 3, -2, 20, 30}) {
      // -2: two pieces, with the shared packed B refused as if memory had run out (the product
      // is then cut into a grid that packs B block by block). 20, 30: 2 and 3 pieces with the
      // first thread other than this one stalling for 30 ms in its first report.
      const int pieces = way >= 10 ? way / 10 : way;
      const std::thread::id me = std::this_thread::get_id();
      std::atomic<bool> stalled{way < 10};
      LimitSharedSgemmBufferForTest(pieces < 0 ? 0 : std::numeric_limits<int64_t>::max());
      std::vector<float> got(static_cast<size_t>(c.m * ldc), -7.0f);
      std::vector<std::atomic<int>> reported(static_cast<size_t>(c.m * c.n));
      std::atomic<int64_t> not_final{0};
      const SgemmRegionDone done = [&](int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
        if (std::this_thread::get_id() != me && !stalled.exchange(true))
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
        for (int64_t i = r0; i < r0 + rows; ++i)
          for (int64_t j = c0; j < c0 + cols; ++j) {
            reported[i * c.n + j].fetch_add(1);
            if (got[i * ldc + j] != one[i * ldc + j]) not_final.fetch_add(1);
          }
      };
      ASSERT_TRUE(FastSgemm(c.m, c.n, c.k, av, bv, got.data(), ldc, std::abs(pieces), ThreeThreads, &done));
      LimitSharedSgemmBufferForTest(std::numeric_limits<int64_t>::max());
      EXPECT_EQ(not_final.load(), 0) << c.m << "x" << c.n << "x" << c.k << " way " << way;
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
          ASSERT_EQ(reported[i * c.n + j].load(), 1) << c.m << "x" << c.n << "x" << c.k << " at " << i << "," << j;
          ASSERT_EQ(got[i * ldc + j], one[i * ldc + j])
              << c.m << "x" << c.n << "x" << c.k << " way " << way << " at " << i << "," << j;
        }
    }
  }
}


// Gemm()'s products give the same bits wherever C and the operands lie: a tiny complex64 product
// (5 x 5 x 5, a block reflector's Gram matrix) through Eigen's coefficient loop had computed the
// elements before C's first aligned packet differently from the rest, so results depended on the
// allocator (one SVD, two answers, a process each). Every kind, tiny and larger shapes, with C,
// A and B at each element offset within a cache line.
template <typename C>
void ExpectPlacementFree(int64_t m, int64_t k, int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  auto value = [&] {
    if constexpr (std::is_same_v<C, std::complex<float>> || std::is_same_v<C, std::complex<double>>)
      return C(dist(rng), dist(rng));
    else
      return C(dist(rng));
  };
  std::vector<C> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (C& x : a) x = value();
  for (C& x : b) x = value();
  constexpr int64_t kLine = 64 / sizeof(C) + 1;
  std::vector<C> want;
  for (int64_t off = 0; off < kLine; ++off) {
    // Fresh copies at this offset from a 64-byte boundary.
    std::vector<C> room(static_cast<size_t>(m * n + k * m + k * n + 3 * kLine + 64 / sizeof(C)));
    C* base = room.data();
    while (reinterpret_cast<uintptr_t>(base) % 64) ++base;
    C* ap = base + off;
    C* bp = ap + m * k + off;
    C* cp = bp + k * n + off;
    std::memcpy(static_cast<void*>(ap), a.data(), a.size() * sizeof(C));
    std::memcpy(static_cast<void*>(bp), b.data(), b.size() * sizeof(C));
    GemmOf<C>()(ap, k, bp, n, cp, n, m, k, n);
    std::vector<C> got(cp, cp + m * n);
    if (off == 0) {
      want = got;
      continue;
    }
    ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(C)), 0)
        << m << "x" << k << "x" << n << " at offset " << off << " (" << Gemm().isa << ")";
  }
}

TEST(Gemm, ResultsDoNotDependOnWhereTheMatricesLie) {
  std::mt19937 rng(23);
  const int64_t shapes[][3] = {{5, 5, 5}, {3, 7, 9}, {1, 9, 9}, {9, 9, 1}, {2, 2, 2}, {16, 20, 24}, {33, 17, 40}, {1, 40, 64}, {64, 40, 1}};
  for (const auto& s : shapes) {
    ExpectPlacementFree<float>(s[0], s[1], s[2], rng);
    ExpectPlacementFree<double>(s[0], s[1], s[2], rng);
    ExpectPlacementFree<std::complex<float>>(s[0], s[1], s[2], rng);
    ExpectPlacementFree<std::complex<double>>(s[0], s[1], s[2], rng);
  }
}

}  // namespace
}  // namespace openpjrt::cpu
