// Winograd F(2x2, 3x3) for f32 NHWC convolutions (conv_winograd.h). Like sgemm_avx512.cc, the
// file is built for the baseline instruction set and only the functions marked OPJ_AVX512 use
// AVX-512; they run only after WinogradApplies() has seen HaveFastSgemm().
//
// With d a 4x4 input patch, g a 3x3 kernel and the 2x2 outputs y of the patch:
//   y = A^T [(G g G^T) * (B^T d B)] A      (* elementwise over the 4x4 planes)
//   B^T = | 1  0 -1  0 |   G = | 1    0    0   |   A^T = | 1  1  1  0 |
//         | 0  1  1  0 |       | 1/2  1/2  1/2 |         | 0  1 -1 -1 |
//         | 0 -1  1  0 |       | 1/2 -1/2  1/2 |
//         | 0  1  0 -1 |       | 0    0    1   |
// Summed over input features, plane k of the elementwise product is the matrix product
// V_k [tiles x in] @ U_k [in x out], so the work is 16 products of depth in_feat.
#include "src/cpu/kernels/conv_winograd.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace openpjrt::cpu {

#if defined(__x86_64__)
#define OPJ_AVX512 __attribute__((target("avx512f,fma")))

namespace {

// Tiles per block (at most): with 64 features a block's transformed input and its 16 products'
// results (16 x 84 x 64 floats, 344 KiB, each) stay in L2 next to the transformed kernel (256
// KiB packed); 84 = 7 slivers of 12 rows. (64-tile blocks were 3% slower for 56x56x64.)
constexpr int64_t kBlockTiles = 84;
constexpr int64_t kCheckChunk = 16384;  // input floats per finiteness-check unit
constexpr int64_t kPlanes = 16;
// Fewer tiles than this: the products' rows are too few to run near the kernel's peak, and the
// kernel's transform is not amortised (14x14 outputs, 49 tiles: 1.25-1.5x the direct path's
// time at 2 threads; 28x28, 196 tiles: 0.75).
constexpr int64_t kMinTiles = 192;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr float kG[4][3] = {
    {1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0.0f, 0.0f, 1.0f}};

// Tile g (of batch * tile_rows * tile_cols, row-major) covers outputs (2 ty .. 2 ty + 1,
// 2 tx .. 2 tx + 1) of image b; a block is a range [t0, t1) of them.
struct Tiles {
  int64_t rows, cols;
  void At(int64_t g, int64_t& b, int64_t& ty, int64_t& tx) const {
    b = g / (rows * cols);
    ty = g / cols % rows;
    tx = g % cols;
  }
};

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// Buffers asked for more floats than this are refused as if the allocation had failed (tests).
std::atomic<int64_t> buffer_limit{std::numeric_limits<int64_t>::max()};

// A 64-byte aligned buffer, grown on demand and kept; null when the allocation failed.
struct Buffer {
  std::unique_ptr<float[], FreeDeleter> p;
  int64_t size = 0;
  float* Get(int64_t want) {
    if (want > buffer_limit.load(std::memory_order_relaxed)) return nullptr;
    if (size < want) {
      want = (want + 15) / 16 * 16;
      p.reset(
          static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>(want) * sizeof(float))));
      size = p ? want : 0;
    }
    return p.get();
  }
};

OPJ_AVX512 inline bool AllFinite(__m512 acc) {
  return _mm512_cmp_ps_mask(acc, acc, _CMP_UNORD_Q) == 0;
}

// u [cin x cout] = plane (i, j) of the transformed kernel: the sum over taps (a, b) of
// G[i][a] G[j][b] w[a][b]. False when a value is not finite (plane (1, 1) weighs every tap, so
// a non-finite tap always shows there).
OPJ_AVX512 bool KernelPlane(const float* w, int64_t cin, int64_t cout, int i, int j, float* u) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 check = zero;
  for (int64_t ci = 0; ci < cin; ++ci) {
    for (int64_t co = 0; co < cout; co += 16) {
      __m512 acc = zero;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          const float coef = kG[i][a] * kG[j][b];
          if (coef == 0.0f) continue;
          const __m512 g = _mm512_loadu_ps(w + ((a * 3 + b) * cin + ci) * cout + co);
          acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(coef), g));
        }
      _mm512_storeu_ps(u + ci * cout + co, acc);
      check = _mm512_fmadd_ps(acc, zero, check);  // x * 0 is NaN for an infinity or NaN
    }
  }
  return AllFinite(check);
}

OPJ_AVX512 bool ChunkFinite(const float* x, int64_t n) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 c0 = zero, c1 = zero;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    c0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), zero, c0);
    c1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), zero, c1);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = static_cast<__mmask16>(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1);
    c0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + i), zero, c0);
  }
  return AllFinite(_mm512_add_ps(c0, c1));
}

// v [16 planes][tiles][cin]: B^T d B for every tile of the block and every input feature.
OPJ_AVX512 void InputTransform(const WinogradShape& s, const float* x, const Tiles& grid,
                               int64_t t0, int64_t t1, const float* zeros, float* v) {
  const int64_t cin = s.in_feat, tiles = t1 - t0;
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t b, ty, tx;
    grid.At(t0 + t, b, ty, tx);
    const float* src[16];
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) {
        const int64_t iy = 2 * ty - s.pad_top + r, ix = 2 * tx - s.pad_left + c;
        const bool inside = iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w;
        src[r * 4 + c] = inside ? x + ((b * s.in_h + iy) * s.in_w + ix) * cin : zeros;
      }
    float* dst = v + t * cin;
    for (int64_t ch = 0; ch < cin; ch += 16) {
      __m512 d[16];
      for (int k = 0; k < 16; ++k) d[k] = _mm512_loadu_ps(src[k] + ch);
      __m512 u[16];  // B^T d
      for (int c = 0; c < 4; ++c) {
        u[0 * 4 + c] = _mm512_sub_ps(d[0 * 4 + c], d[2 * 4 + c]);
        u[1 * 4 + c] = _mm512_add_ps(d[1 * 4 + c], d[2 * 4 + c]);
        u[2 * 4 + c] = _mm512_sub_ps(d[2 * 4 + c], d[1 * 4 + c]);
        u[3 * 4 + c] = _mm512_sub_ps(d[1 * 4 + c], d[3 * 4 + c]);
      }
      const int64_t plane = tiles * cin;
      for (int r = 0; r < 4; ++r) {  // (B^T d) B
        const __m512* q = u + r * 4;
        float* out = dst + r * 4 * plane + ch;
        _mm512_storeu_ps(out, _mm512_sub_ps(q[0], q[2]));
        _mm512_storeu_ps(out + plane, _mm512_add_ps(q[1], q[2]));
        _mm512_storeu_ps(out + 2 * plane, _mm512_sub_ps(q[2], q[1]));
        _mm512_storeu_ps(out + 3 * plane, _mm512_sub_ps(q[1], q[3]));
      }
    }
  }
}

// y's 2x2 outputs of every tile of the block: A^T m A from the 16 products' results m [16
// planes][tiles][cout]; outputs past the bottom or right edge are dropped.
OPJ_AVX512 void OutputTransform(const WinogradShape& s, const float* m, const Tiles& grid,
                                int64_t t0, int64_t t1, float* y) {
  const int64_t cout = s.out_feat, tiles = t1 - t0, plane = tiles * cout;
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t b, ty, tx;
    grid.At(t0 + t, b, ty, tx);
    const int64_t oy = 2 * ty, ox = 2 * tx;
    const bool row2 = oy + 1 < s.out_h, col2 = ox + 1 < s.out_w;
    float* out = y + ((b * s.out_h + oy) * s.out_w + ox) * cout;
    const float* src = m + t * cout;
    for (int64_t co = 0; co < cout; co += 16) {
      __m512 q[16];
      for (int k = 0; k < 16; ++k) q[k] = _mm512_loadu_ps(src + k * plane + co);
      __m512 r0[4], r1[4];  // A^T m
      for (int c = 0; c < 4; ++c) {
        r0[c] = _mm512_add_ps(_mm512_add_ps(q[c], q[4 + c]), q[8 + c]);
        r1[c] = _mm512_sub_ps(_mm512_sub_ps(q[4 + c], q[8 + c]), q[12 + c]);
      }
      _mm512_storeu_ps(out + co, _mm512_add_ps(_mm512_add_ps(r0[0], r0[1]), r0[2]));
      if (col2)
        _mm512_storeu_ps(out + cout + co, _mm512_sub_ps(_mm512_sub_ps(r0[1], r0[2]), r0[3]));
      if (row2) {
        float* below = out + s.out_w * cout;
        _mm512_storeu_ps(below + co, _mm512_add_ps(_mm512_add_ps(r1[0], r1[1]), r1[2]));
        if (col2)
          _mm512_storeu_ps(below + cout + co, _mm512_sub_ps(_mm512_sub_ps(r1[1], r1[2]), r1[3]));
      }
    }
  }
}

}  // namespace

bool WinogradApplies(const WinogradShape& s) {
  static const bool enabled = [] {
    const char* e = std::getenv("OPENPJRT_WINOGRAD");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  const int64_t tiles = s.batch * ((s.out_h + 1) / 2) * ((s.out_w + 1) / 2);
  return enabled && HaveFastSgemm() && s.in_feat >= 32 && s.in_feat % 16 == 0 && s.out_feat >= 32 &&
         s.out_feat % 16 == 0 && tiles >= kMinTiles && s.in_h > 0 && s.in_w > 0;
}

bool WinogradConv3x3(const WinogradShape& s, const float* x, const float* w, float* y, int threads,
                     const SgemmParallelFor& parallel_for, const WinogradDone* done) {
  const int64_t cin = s.in_feat, cout = s.out_feat;
  const Tiles grid{(s.out_h + 1) / 2, (s.out_w + 1) / 2};
  const int64_t total = s.batch * grid.rows * grid.cols;
  // Blocks of at most kBlockTiles tiles, at least 8 of them (WinogradApplies asks for 192 tiles
  // or more) so that every thread stays busy on a smaller image, a multiple of 12 tiles each so
  // that the products' rows make whole slivers (56-tile blocks, 4 2/3 slivers, made 56x56x64
  // 3-4% slower than 84-tile ones).
  const int64_t want = std::max<int64_t>(CeilDiv(total, kBlockTiles), 8);
  const int64_t per_block = std::min(kBlockTiles, (CeilDiv(total, want) + 11) / 12 * 12);
  const int64_t num_blocks = CeilDiv(total, per_block);
  // The transformed kernel, packed for the GEMM plane by plane (the calling thread's, kept).
  thread_local Buffer kernel;
  const int64_t plane_floats = PackedSgemmBFloats(cin, cout);
  float* packed = kernel.Get(kPlanes * plane_floats);
  if (!packed) return false;

  const int64_t in_floats = s.batch * s.in_h * s.in_w * cin;
  const int64_t units = kPlanes + (in_floats + kCheckChunk - 1) / kCheckChunk;
  std::atomic<int64_t> next_unit{0}, units_done{0}, next_block{0};
  std::atomic<bool> refused{false};
  const SgemmParallelFor inline_for = [](int64_t n, const std::function<void(int64_t)>& fn) {
    for (int64_t i = 0; i < n; ++i) fn(i);
  };
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, num_blocks));
  parallel_for(parts, [&](int64_t) {
    // First the kernel's 16 planes and the input's finiteness, shared out in units; every
    // thread then waits for all of them.
    thread_local Buffer plane;
    for (int64_t u; (u = next_unit.fetch_add(1, std::memory_order_relaxed)) < units;) {
      bool ok;
      if (u < kPlanes) {
        float* tmp = plane.Get(cin * cout);
        ok =
            tmp && KernelPlane(w, cin, cout, static_cast<int>(u / 4), static_cast<int>(u % 4), tmp);
        if (ok) PackSgemmBInto(cin, cout, {tmp, cout, 1}, packed + u * plane_floats);
      } else {
        const int64_t i0 = (u - kPlanes) * kCheckChunk;
        ok = ChunkFinite(x + i0, std::min(kCheckChunk, in_floats - i0));
      }
      if (!ok) refused.store(true, std::memory_order_relaxed);
      units_done.fetch_add(1, std::memory_order_release);
    }
    while (units_done.load(std::memory_order_acquire) < units) _mm_pause();
    if (refused.load(std::memory_order_relaxed)) return;

    thread_local Buffer vbuf, mbuf, zbuf;
    float* v = vbuf.Get(kPlanes * per_block * cin);
    float* m = mbuf.Get(kPlanes * per_block * cout);
    float* zeros = zbuf.Get(cin);
    // A thread that cannot allocate its buffers (its own, or the GEMM's for A) takes no block and
    // leaves them to the others; when no thread could, no block was taken and the call is
    // refused below.
    if (!v || !m || !zeros || !ReserveSgemmScratch(per_block, cin)) return;
    std::memset(zeros, 0, static_cast<size_t>(cin) * sizeof(float));
    for (int64_t i; (i = next_block.fetch_add(1, std::memory_order_relaxed)) < num_blocks;) {
      const int64_t t0 = i * per_block, t1 = std::min(total, t0 + per_block), tiles = t1 - t0;
      InputTransform(s, x, grid, t0, t1, zeros, v);
      // (With the GEMM's buffer reserved above it cannot fail; if it did, the call is refused
      // after some blocks were written.)
      for (int64_t k = 0; k < kPlanes; ++k)
        if (!FastSgemm(tiles, cout, cin, {v + k * tiles * cin, cin, 1},
                       {nullptr, 0, 0, nullptr, nullptr, packed + k * plane_floats}, m + k * tiles * cout, cout, 1,
                       inline_for))
          refused.store(true, std::memory_order_relaxed);
      OutputTransform(s, m, grid, t0, t1, y);
      if (done) {
        // The block's outputs, one run per output row it touches (two per tile row), runs that
        // follow each other told as one.
        int64_t run0 = 0, run1 = 0;
        for (int64_t g = t0; g < t1;) {
          int64_t b, ty, tx;
          grid.At(g, b, ty, tx);
          const int64_t tx1 = std::min(grid.cols, tx + (t1 - g));
          for (int64_t oy = 2 * ty; oy < std::min(s.out_h, 2 * ty + 2); ++oy) {
            const int64_t p0 = (b * s.out_h + oy) * s.out_w + 2 * tx;
            const int64_t p1 = (b * s.out_h + oy) * s.out_w + std::min(s.out_w, 2 * tx1);
            if (p0 != run1) {
              if (run1 > run0) (*done)(run0, run1 - run0);
              run0 = p0;
            }
            run1 = p1;
          }
          g += tx1 - tx;
        }
        if (run1 > run0) (*done)(run0, run1 - run0);
      }
    }
  });
  return !refused.load(std::memory_order_relaxed) && next_block.load(std::memory_order_relaxed) > 0;
}

void LimitWinogradBuffersForTest(int64_t max_floats) { buffer_limit.store(max_floats, std::memory_order_relaxed); }

#else  // not x86-64

void LimitWinogradBuffersForTest(int64_t) {}

bool WinogradApplies(const WinogradShape&) { return false; }
bool WinogradConv3x3(const WinogradShape&, const float*, const float*, float*, int,
                     const SgemmParallelFor&, const WinogradDone*) {
  return false;
}

#endif

}  // namespace openpjrt::cpu
