// See lapack_factor.h.
#include "src/cpu/lapack/lapack_factor.h"

#include <algorithm>
#include <functional>
#include <type_traits>
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
#include <immintrin.h>
#endif

#include "src/cpu/exec/array.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/lapack/kernels_linalg.h"

namespace openpjrt::cpu {
namespace lapack {
namespace {

// The long inner loops, compiled for the CPU's widest vectors (isa.h): built for the x86-64
// baseline they ran 4 floats at a time without FMA. Measured at one thread: JAX's cholesky of
// 256 x 256 f32 274 -> 228 us (the solve of the rows below each panel had been a fifth of it),
// qr 256 and svd 128 3-5% and eigh 256 ~3% faster (the back-transformation's T X and subtraction).
// (The panel's own reflections, ReflectLeft, gained nothing that way: their rows are 32 columns
// or less; they have fixed-width masked AVX-512 rows instead, ReflectLeftNarrow512.)
// y[i] -= x[i] w for i < n.
template <typename W>
[[gnu::always_inline]] inline void SubScaled(W* y, const W* x, W w, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] -= x[i] * w;
}
// y[i] += x[i] w for i < n.
template <typename W>
[[gnu::always_inline]] inline void AddScaled(W* y, const W* x, W w, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += w * x[i];
}
// y[i] *= w for i < n.
template <typename W>
[[gnu::always_inline]] inline void ScaleBy(W* y, W w, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= w;
}
// y[i] -= x[i] for i < n.
template <typename W>
[[gnu::always_inline]] inline void Subtract(W* y, const W* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] -= x[i];
}

// LU with partial pivoting (getrf): a (m x n, row-major) becomes L\U; ipiv is 1-based; the
// return value is info (0, or the 1-based index of the first exactly-zero pivot). By panels of
// kPanel columns (LAPACK's blocked getrf): each panel is factored column by column (pivot, whole
// rows swapped, multipliers, rank-1 update of the panel's own columns), then U's rows to its
// right are solved with the panel's unit lower triangle and the trailing block takes one matrix
// product (gemm.h). A matrix no wider than a panel gets exactly the unblocked factorisation
// (rank-1 updates of every column, in the same order).
template <typename W>
int32_t GetrfT(std::vector<W>& a, int64_t m, int64_t n, int32_t* ipiv) {
  constexpr int64_t kPanel = 32;
  int32_t info = 0;
  const int64_t k = std::min(m, n);
  Array holder;
  W* product = nullptr;
  for (int64_t j0 = 0; j0 < k; j0 += kPanel) {
    const int64_t j1 = std::min(k, j0 + kPanel);
    // The panel: columns j0 .. j1-1 over rows j0 .. m-1.
    for (int64_t j = j0; j < j1; ++j) {
      int64_t p = j;
      double best = Abs1(a[j * n + j]);
      for (int64_t i = j + 1; i < m; ++i) {
        const double v = Abs1(a[i * n + j]);
        if (v > best) best = v, p = i;
      }
      ipiv[j] = static_cast<int32_t>(p + 1);
      if (a[p * n + j] == W(0)) {
        if (info == 0) info = static_cast<int32_t>(j + 1);
        continue;
      }
      if (p != j) std::swap_ranges(&a[j * n], &a[j * n] + n, &a[p * n]);
      const W pivot = a[j * n + j];
      for (int64_t i = j + 1; i < m; ++i) {
        const W l = a[i * n + j] / pivot;
        a[i * n + j] = l;
        if (l == W(0)) continue;
        W* row = &a[i * n];
        const W* prow = &a[j * n];
        for (int64_t c = j + 1; c < j1; ++c) row[c] -= l * prow[c];
      }
    }
    if (j1 >= n) continue;  // the panel ends at the last column
    // U12 := L11^-1 A12 (rows j0 .. j1-1, columns j1 .. n-1), row by row.
    const int64_t cols = n - j1;
    for (int64_t i = j0 + 1; i < j1; ++i) {
      W* row = &a[i * n + j1];
      for (int64_t r = j0; r < i; ++r) {
        const W l = a[i * n + r];
        const W* urow = &a[r * n + j1];
        for (int64_t c = 0; c < cols; ++c) row[c] -= l * urow[c];
      }
    }
    // A22 -= L21 U12.
    const int64_t rows = m - j1;
    if (rows <= 0) continue;
    if (!product) product = AllocateScratch<W>((m - std::min(kPanel, k)) * (n - std::min(kPanel, k)), &holder);
    GemmOf<W>()(&a[j1 * n + j0], n, &a[j0 * n + j1], n, product, cols, rows, j1 - j0, cols);
    for (int64_t i = 0; i < rows; ++i) {
      W* row = &a[(j1 + i) * n + j1];
      const W* pr = product + i * cols;
      for (int64_t c = 0; c < cols; ++c) row[c] -= pr[c];
    }
  }
  return info;
}

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
// ReflectLeft (below) of real blocks at most 32 columns wide, the panel's own reflections in
// geqrf and small orgqr: each row as a fixed number of AVX-512 vectors, its columns past `cols`
// kept by masks (never read or written). Built for the baseline, the loops of 1..31 columns had
// run 4 at a time, mostly in scalar tails: a quarter of JAX's 64 x 64 qr. The same operations as
// ReflectLeft, element by element (products then sums, each rounded): the same bits.
#define OPJ_V512 OPJ_TARGET_512 __attribute__((always_inline)) inline
OPJ_V512 __m512 Load512(uint16_t m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
OPJ_V512 __m512d Load512(uint16_t m, const double* p) { return _mm512_maskz_loadu_pd(static_cast<__mmask8>(m), p); }
OPJ_V512 void Store512(uint16_t m, float* p, __m512 x) { _mm512_mask_storeu_ps(p, m, x); }
OPJ_V512 void Store512(uint16_t m, double* p, __m512d x) { _mm512_mask_storeu_pd(p, static_cast<__mmask8>(m), x); }
OPJ_V512 __m512 Splat512(float x) { return _mm512_set1_ps(x); }
OPJ_V512 __m512d Splat512(double x) { return _mm512_set1_pd(x); }
OPJ_V512 __m512 Add512(__m512 x, __m512 y) { return _mm512_add_ps(x, y); }
OPJ_V512 __m512d Add512(__m512d x, __m512d y) { return _mm512_add_pd(x, y); }
OPJ_V512 __m512 MaskAdd512(__m512 x, uint16_t m, __m512 y) { return _mm512_mask_add_ps(x, m, x, y); }
OPJ_V512 __m512d MaskAdd512(__m512d x, uint16_t m, __m512d y) {
  return _mm512_mask_add_pd(x, static_cast<__mmask8>(m), x, y);
}
OPJ_V512 __m512 Sub512(__m512 x, __m512 y) { return _mm512_sub_ps(x, y); }
OPJ_V512 __m512d Sub512(__m512d x, __m512d y) { return _mm512_sub_pd(x, y); }
// (The product is made final before any sum reads it: this file lets GCC contract a multiply
// and an add into one FMA, which would round once where the baseline loop rounds twice.)
OPJ_V512 __m512 Mul512(__m512 x, __m512 y) {
  __m512 p = _mm512_mul_ps(x, y);
  asm("" : "+v"(p));
  return p;
}
OPJ_V512 __m512d Mul512(__m512d x, __m512d y) {
  __m512d p = _mm512_mul_pd(x, y);
  asm("" : "+v"(p));
  return p;
}
#undef OPJ_V512

template <typename V, typename W, int kVectors>
OPJ_TARGET_512 void ReflectLeftNarrow512(W* a, int64_t lda, int64_t len, int64_t cols, const W* v, int64_t vs, W s) {
  constexpr int kLanes = 64 / sizeof(W);
  uint16_t m[kVectors];
  V w[kVectors];
  for (int q = 0; q < kVectors; ++q) {
    const int64_t left = std::clamp<int64_t>(cols - q * kLanes, 0, kLanes);
    m[q] = static_cast<uint16_t>(left >= kLanes ? (1u << kLanes) - 1 : (1u << left) - 1);
    w[q] = Load512(m[q], a + q * kLanes);
  }
  for (int64_t i = 1; i < len; ++i) {
    const V vi = Splat512(v[(i - 1) * vs]);
    const W* row = a + i * lda;
    for (int q = 0; q < kVectors; ++q) w[q] = Add512(w[q], Mul512(vi, Load512(m[q], row + q * kLanes)));
  }
  const V sv = Splat512(s);
  for (int q = 0; q < kVectors; ++q) {
    w[q] = Mul512(w[q], sv);
    Store512(m[q], a + q * kLanes, Sub512(Load512(m[q], a + q * kLanes), w[q]));
  }
  for (int64_t i = 1; i < len; ++i) {
    const V vi = Splat512(v[(i - 1) * vs]);
    W* row = a + i * lda;
    for (int q = 0; q < kVectors; ++q) Store512(m[q], row + q * kLanes, Sub512(Load512(m[q], row + q * kLanes), Mul512(vi, w[q])));
  }
}

// BlockReflector's T (below) for real panels of at most 32 reflectors: column i is
// -tau(i) T(0:i, 0:i) g(0:i) for the Gram matrix's column g, computed for all its rows at once in
// AVX-512 vectors over T's columns (kept transposed, contiguous: tt[c * jb + r] = T(r, c)), each
// row taking the terms from its diagonal on, in order (masks keep the rows above c out: they
// would add 0 * g, which a g of infinity would make NaN). One row at a time the sums had been
// scalar chains over the Gram matrix's columns: a sixth of JAX's 64 x 64 qr. The same operations
// in the same order (products, then sums, each rounded): the same bits.
template <typename V, typename W, int kVectors>
OPJ_TARGET_512 void TriangularFactor512(const W* gram, int64_t jb, const W* tau, W* t, W* tt) {
  constexpr int kLanes = 64 / sizeof(W);
  for (int64_t i = 0; i < jb; ++i) {
    V sum[kVectors];
    for (int q = 0; q < kVectors; ++q) sum[q] = Splat512(W(0));
    for (int64_t c = 0; c < i; ++c) {
      const V g = Splat512(gram[c * jb + i]);
      for (int q = 0; q < kVectors; ++q) {
        const int64_t left = std::clamp<int64_t>(c + 1 - q * kLanes, 0, kLanes);  // rows 0..c
        const uint16_t m = static_cast<uint16_t>(left >= kLanes ? (1u << kLanes) - 1 : (1u << left) - 1);
        if (m) sum[q] = MaskAdd512(sum[q], m, Mul512(Load512(m, tt + c * jb + q * kLanes), g));
      }
    }
    const V scale = Splat512(-tau[i]);
    for (int q = 0; q < kVectors; ++q) {
      const int64_t left = std::clamp<int64_t>(i - q * kLanes, 0, kLanes);  // rows 0..i-1
      const uint16_t m = static_cast<uint16_t>(left >= kLanes ? (1u << kLanes) - 1 : (1u << left) - 1);
      Store512(m, tt + i * jb + q * kLanes, Mul512(scale, sum[q]));
    }
    for (int64_t r = 0; r < i; ++r) t[r * jb + i] = tt[i * jb + r];
    tt[i * jb + i] = t[i * jb + i] = tau[i];
  }
}
#endif

// Applies I - s v v^H from the left to the len x cols block at `a` (row stride lda): s = conj(tau)
// applies H^H, s = tau applies H. v = [1, v_1 .. v_len-1], the implied 1 at the block's first row
// and v_i at v[(i - 1) * vs]. Row by row over contiguous rows (w: `cols` of scratch), each element
// summing its terms in the same order as a column-by-column loop would.
template <typename W>
void ReflectLeft(W* a, int64_t lda, int64_t len, int64_t cols, const W* v, int64_t vs, W s, W* w) {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  if constexpr (std::is_same_v<W, float> || std::is_same_v<W, double>) {
    if (cols > 0 && cols <= 32 && IsaLevel() >= 2) {
      if constexpr (std::is_same_v<W, float>) {
        if (cols <= 16) return ReflectLeftNarrow512<__m512, float, 1>(a, lda, len, cols, v, vs, s);
        return ReflectLeftNarrow512<__m512, float, 2>(a, lda, len, cols, v, vs, s);
      } else {
        if (cols <= 8) return ReflectLeftNarrow512<__m512d, double, 1>(a, lda, len, cols, v, vs, s);
        if (cols <= 16) return ReflectLeftNarrow512<__m512d, double, 2>(a, lda, len, cols, v, vs, s);
        return ReflectLeftNarrow512<__m512d, double, 4>(a, lda, len, cols, v, vs, s);
      }
    }
  }
#endif
  std::copy(a, a + cols, w);
  for (int64_t i = 1; i < len; ++i) {
    const W vi = ConjOf(v[(i - 1) * vs]);
    const W* row = a + i * lda;
    for (int64_t c = 0; c < cols; ++c) w[c] += vi * row[c];
  }
  for (int64_t c = 0; c < cols; ++c) {
    w[c] *= s;
    a[c] -= w[c];
  }
  for (int64_t i = 1; i < len; ++i) {
    const W vi = v[(i - 1) * vs];
    W* row = a + i * lda;
    for (int64_t c = 0; c < cols; ++c) row[c] -= vi * w[c];
  }
}

// The block reflector of the panel whose reflectors H(0..jb-1) sit below the diagonal of the
// mr x jb block at `v` (row stride ld, unit diagonal implied): H(0) ... H(jb-1) = I - V T V^H
// (LAPACK's larft, forward and by columns). Writes V with its unit diagonal and zeros above it
// (mr x jb), V^H (jb x mr) and T (jb x jb, upper triangular), all row-major.
template <typename W>
void BlockReflector(const W* v, int64_t ld, int64_t mr, int64_t jb, const W* tau, W* vm, W* vh, W* t) {
  // V row by row, then V^H from it by 16 x 16 blocks (written a column at a time, every element
  // of V^H had been a cache line of its own: a tenth of a 256 x 256 qr).
  for (int64_t i = 0; i < mr; ++i) {
    W* row = vm + i * jb;
    const int64_t below = std::min(i, jb);  // row i's entries left of the unit diagonal
    for (int64_t r = 0; r < below; ++r) row[r] = v[i * ld + r];
    if (i < jb) {
      row[i] = W(1);
      for (int64_t r = i + 1; r < jb; ++r) row[r] = W(0);
    }
  }
  constexpr int64_t kBlock = 16;
  for (int64_t i0 = 0; i0 < mr; i0 += kBlock)
    for (int64_t r0 = 0; r0 < jb; r0 += kBlock)
      for (int64_t r = r0; r < std::min(jb, r0 + kBlock); ++r)
        for (int64_t i = i0; i < std::min(mr, i0 + kBlock); ++i) vh[r * mr + i] = ConjOf(vm[i * jb + r]);
  // The Gram matrix V^H V (its column i above the diagonal is V(:, 0:i)^H v(i)) in one product.
  std::vector<W> gram(static_cast<size_t>(jb * jb));
  GemmOf<W>()(vh, mr, vm, jb, gram.data(), jb, jb, mr, jb);
  std::fill(t, t + jb * jb, W(0));
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  if constexpr (std::is_same_v<W, float> || std::is_same_v<W, double>) {
    if (jb <= 32 && IsaLevel() >= 2) {
      std::vector<W> tt(static_cast<size_t>(jb * jb));
      if constexpr (std::is_same_v<W, float>) {
        if (jb <= 16) return TriangularFactor512<__m512, float, 1>(gram.data(), jb, tau, t, tt.data());
        return TriangularFactor512<__m512, float, 2>(gram.data(), jb, tau, t, tt.data());
      } else {
        if (jb <= 8) return TriangularFactor512<__m512d, double, 1>(gram.data(), jb, tau, t, tt.data());
        if (jb <= 16) return TriangularFactor512<__m512d, double, 2>(gram.data(), jb, tau, t, tt.data());
        return TriangularFactor512<__m512d, double, 4>(gram.data(), jb, tau, t, tt.data());
      }
    }
  }
#endif
  for (int64_t i = 0; i < jb; ++i) {
    // T(0:i, i) = -tau(i) T(0:i, 0:i) V(:, 0:i)^H v(i).
    for (int64_t r = 0; r < i; ++r) {
      W sum = W(0);
      for (int64_t c = r; c < i; ++c) sum += t[r * jb + c] * gram[c * jb + i];
      t[r * jb + i] = -tau[i] * sum;
    }
    t[i * jb + i] = tau[i];
  }
}

// Householder QR (geqrf): R on and above the diagonal, the vectors v (v[j] = 1 implied) below it,
// tau[min(m, n)]; H(j) = I - tau v v^H and A = H(0) H(1) ... R. Up to kPanel columns of
// reflectors, each is applied to the trailing columns as it is made (LAPACK's geqr2). Beyond,
// by panels of kPanel (LAPACK's blocked geqrf): the panel's reflectors are applied within the
// panel, then to the columns right of it at once as (I - V T^H V^H), two matrix products
// through gemm.h.
template <typename W>
void GeqrfT(std::vector<W>& a, int64_t m, int64_t n, W* tau) {
  constexpr int64_t kPanel = 32;
  const int64_t k = std::min(m, n);
  std::vector<W> w(static_cast<size_t>(n));
  const bool blocked = k > kPanel;
  Array holders[4];
  W *vm = nullptr, *vh = nullptr, *prod = nullptr, *t = nullptr;
  if (blocked) {
    vm = AllocateScratch<W>(m * kPanel, &holders[0]);
    vh = AllocateScratch<W>(m * kPanel, &holders[1]);
    prod = AllocateScratch<W>((m + kPanel) * n, &holders[2]);
    t = AllocateScratch<W>(kPanel * kPanel, &holders[3]);
  }
  for (int64_t j0 = 0; j0 < k; j0 += kPanel) {
    const int64_t jb = blocked ? std::min(kPanel, k - j0) : k;
    const int64_t pend = blocked ? j0 + jb : n;  // the columns the reflectors are applied to now
    for (int64_t j = j0; j < j0 + jb; ++j) {
      const W tj = Larfg(a[j * n + j], j + 1 < m ? &a[(j + 1) * n + j] : nullptr, n, m - j - 1);
      tau[j] = tj;
      if (tj == W(0) || j + 1 >= pend) continue;
      // Apply H(j)^H to the columns after j: A := A - conj(tau) v (v^H A).
      ReflectLeft(&a[j * n + j + 1], n, m - j, pend - j - 1, j + 1 < m ? &a[(j + 1) * n + j] : nullptr, n,
                  ConjOf(tj), w.data());
    }
    const int64_t c0 = j0 + jb, nc = n - c0, mr = m - j0;
    if (!blocked || nc <= 0) continue;
    // A2 := (I - V T^H V^H) A2 for A2 = rows j0.., columns c0..: X = V^H A2, X := T^H X,
    // A2 -= V X.
    BlockReflector(&a[j0 * n + j0], n, mr, jb, tau + j0, vm, vh, t);
    W* a2 = &a[j0 * n + c0];
    GemmOf<W>()(vh, mr, a2, n, prod, nc, jb, mr, nc);
    for (int64_t r = jb - 1; r >= 0; --r) {  // row r of T^H X reads rows 0..r of X
      W* xr = prod + r * nc;
      const W trr = ConjOf(t[r * jb + r]);
      for (int64_t c = 0; c < nc; ++c) xr[c] *= trr;
      for (int64_t q = 0; q < r; ++q) {
        const W tq = ConjOf(t[q * jb + r]);
        const W* xq = prod + q * nc;
        for (int64_t c = 0; c < nc; ++c) xr[c] += tq * xq[c];
      }
    }
    W* x2 = prod + jb * nc;  // V X (mr x nc) after X (jb x nc)
    GemmOf<W>()(vm, jb, prod, nc, x2, nc, mr, jb, nc);
    for (int64_t i = 0; i < mr; ++i) {
      W* row = a2 + i * n;
      const W* pr = x2 + i * nc;
      for (int64_t c = 0; c < nc; ++c) row[c] -= pr[c];
    }
  }
}

// Hessenberg reduction (gehrd) of the rows/columns ilo..ihi (0-based, inclusive): Q^H A Q = H
// with Q = H(ilo) ... H(ihi-1), H upper Hessenberg on and above the first subdiagonal, each v
// below it (v[j+1] = 1 implied), tau[n-1] (zero outside the range), in LAPACK's gehd2 order.
template <typename W>
void GehrdT(std::vector<W>& a, int64_t n, int64_t ilo, int64_t ihi, W* tau) {
  for (int64_t j = 0; j + 1 < n; ++j) tau[j] = W(0);
  std::vector<W> w(static_cast<size_t>(n)), vj(static_cast<size_t>(n)), cvj(static_cast<size_t>(n));
  for (int64_t j = ilo; j < ihi; ++j) {
    const int64_t len = ihi - j;  // v covers rows j+1 .. ihi
    W beta = a[(j + 1) * n + j];
    const W t = Larfg(beta, len > 1 ? &a[(j + 2) * n + j] : nullptr, n, len - 1);
    tau[j] = t;
    a[(j + 1) * n + j] = W(1);
    auto v = [&](int64_t r) { return a[r * n + j]; };  // r in j+1 .. ihi
    if (t != W(0)) {
      // From the right on rows 0..ihi, columns j+1..ihi: A := A - tau (A v) v^H.
      for (int64_t c = j + 1; c <= ihi; ++c) vj[c] = v(c), cvj[c] = ConjOf(vj[c]);
      for (int64_t r = 0; r <= ihi; ++r) {
        W* row = &a[r * n];
        W x = W(0);
        for (int64_t c = j + 1; c <= ihi; ++c) x += row[c] * vj[c];
        x *= t;
        for (int64_t c = j + 1; c <= ihi; ++c) row[c] -= x * cvj[c];
      }
      // From the left on rows j+1..ihi, columns j+1..n-1: A := A - conj(tau) v (v^H A).
      ReflectLeft(&a[(j + 1) * n + j + 1], n, len, n - j - 1, len > 1 ? &a[(j + 2) * n + j] : nullptr, n, ConjOf(t),
                  w.data());
    }
    a[(j + 1) * n + j] = beta;
  }
}

// Tridiagonal reduction of a symmetric/Hermitian matrix held in one triangle (sytrd/hetrd, in
// LAPACK's sytd2/hetd2 order): Q^H A Q = T with d (real diagonal), e (real off-diagonal) and
// tau[n-1]; the reflectors are stored in the used triangle outside T, the other triangle is left
// as it was. lower: H(i) annihilates A(i+2:n, i), columns left to right; upper: A(0:i-1, i+1),
// columns right to left.
template <typename W>
void SytrdT(std::vector<W>& a, int64_t n, bool lower, double* d, double* e, W* tau) {
  if (n == 0) return;
  auto at = [&](int64_t r, int64_t c) -> W& { return a[r * n + c]; };
  // The used triangle of the trailing (or leading) block: symmetric access.
  auto sym = [&](int64_t r, int64_t c) -> W {
    if (r == c) return W(RealOf(at(r, r)));  // a Hermitian diagonal's imaginary parts are ignored
    const bool stored = lower ? r >= c : r <= c;
    return stored ? at(r, c) : ConjOf(at(c, r));
  };
  std::vector<W> x(static_cast<size_t>(n));
  // Rank-2 step on the block b0..b1 (inclusive) with v at v(r) and w in x: A := A - v w^H - w v^H
  // on the stored triangle, keeping the diagonal real.
  auto update = [&](int64_t b0, int64_t b1, const std::function<W(int64_t)>& v, W t) {
    // x := t * A v (A the Hermitian block), then w := x - (t/2) (x^H v) v.
    for (int64_t r = b0; r <= b1; ++r) {
      W s = W(0);
      for (int64_t c = b0; c <= b1; ++c) s += sym(r, c) * v(c);
      x[r] = t * s;
    }
    W dot = W(0);
    for (int64_t r = b0; r <= b1; ++r) dot += ConjOf(x[r]) * v(r);
    const W alpha = W(-0.5) * t * dot;
    for (int64_t r = b0; r <= b1; ++r) x[r] += alpha * v(r);
    for (int64_t c = b0; c <= b1; ++c)
      for (int64_t r = b0; r <= b1; ++r) {
        if (lower ? r < c : r > c) continue;
        W& y = at(r, c);
        y -= v(r) * ConjOf(x[c]) + x[r] * ConjOf(v(c));
        if (r == c) y = W(RealOf(y));
      }
  };
  if (lower) {
    at(0, 0) = W(RealOf(at(0, 0)));
    for (int64_t i = 0; i + 1 < n; ++i) {
      W beta = at(i + 1, i);
      const W t = Larfg(beta, i + 2 < n ? &at(i + 2, i) : nullptr, n, n - i - 2);
      e[i] = RealOf(beta);
      if (t != W(0)) {
        at(i + 1, i) = W(1);
        update(i + 1, n - 1, [&](int64_t r) { return at(r, i); }, t);
      } else {
        at(i + 1, i + 1) = W(RealOf(at(i + 1, i + 1)));
      }
      at(i + 1, i) = W(e[i]);
      d[i] = RealOf(at(i, i));
      tau[i] = t;
    }
    d[n - 1] = RealOf(at(n - 1, n - 1));
  } else {
    at(n - 1, n - 1) = W(RealOf(at(n - 1, n - 1)));
    for (int64_t i = n - 2; i >= 0; --i) {
      // v = [A(0:i-1, i+1); 1] with the 1 at row i.
      W beta = at(i, i + 1);
      const W t = Larfg(beta, i > 0 ? &at(0, i + 1) : nullptr, n, i);
      e[i] = RealOf(beta);
      if (t != W(0)) {
        at(i, i + 1) = W(1);
        update(0, i, [&](int64_t r) { return at(r, i + 1); }, t);
      } else {
        at(i, i) = W(RealOf(at(i, i)));
      }
      at(i, i + 1) = W(e[i]);
      d[i + 1] = RealOf(at(i + 1, i + 1));
      tau[i] = t;
    }
    d[0] = RealOf(at(0, 0));
  }
}

// C := Q C with Q = H(0) ... H(k-1) from reflectors in geqrf's layout (v: m rows, row stride
// ldv, unit diagonal implied) and C m x ncols (row stride ldc): by blocks of 32 reflectors from
// the last, each (I - V T V^H) through two products (ormqr). With from_identity (orgqr: C starts
// as the identity's first columns), block j0 leaves C's columns before j0 alone: they are still
// the identity's there.
template <typename W>
void ApplyQLeftT(const W* v, int64_t ldv, int64_t m, int64_t k, const W* tau, W* c, int64_t ldc, int64_t ncols,
                 bool from_identity = false) {
  constexpr int64_t kPanel = 32;
  k = std::min(k, m);
  if (k <= 0 || ncols <= 0) return;
  if (m * ncols <= 1024) {
    // Small (a batch of tiny SVDs or eigenproblems): one reflector at a time, from the last,
    // without the block form's set-up.
    std::vector<W> w(static_cast<size_t>(ncols));
    for (int64_t j = k - 1; j >= 0; --j) {
      const int64_t c0 = from_identity ? std::min(j, ncols) : 0;
      if (c0 == ncols) continue;
      ReflectLeft(c + j * ldc + c0, ldc, m - j, ncols - c0, j + 1 < m ? v + (j + 1) * ldv + j : nullptr, ldv, tau[j],
                  w.data());
    }
    return;
  }
  Array holders[4];
  W* vm = AllocateScratch<W>(m * kPanel, &holders[0]);
  W* vh = AllocateScratch<W>(m * kPanel, &holders[1]);
  W* prod = AllocateScratch<W>((m + kPanel) * ncols, &holders[2]);
  W* t = AllocateScratch<W>(kPanel * kPanel, &holders[3]);
  for (int64_t j0 = (k - 1) / kPanel * kPanel; j0 >= 0; j0 -= kPanel) {
    const int64_t jb = std::min(kPanel, k - j0), mr = m - j0;
    const int64_t c0 = from_identity ? std::min(j0, ncols) : 0, nc = ncols - c0;
    if (nc == 0) continue;
    BlockReflector(v + j0 * ldv + j0, ldv, mr, jb, tau + j0, vm, vh, t);
    W* c2 = c + j0 * ldc + c0;
    GemmOf<W>()(vh, mr, c2, ldc, prod, nc, jb, mr, nc);  // X = V^H C2
    static const auto scale_by = ForCpu<&ScaleBy<W>>();
    static const auto add_scaled = ForCpu<&AddScaled<W>>();
    static const auto subtract = ForCpu<&Subtract<W>>();
    for (int64_t r = 0; r < jb; ++r) {  // X := T X (row r reads rows r.. of X)
      W* xr = prod + r * nc;
      scale_by(xr, t[r * jb + r], nc);
      for (int64_t p = r + 1; p < jb; ++p) add_scaled(xr, prod + p * nc, t[r * jb + p], nc);
    }
    W* x2 = prod + jb * nc;
    GemmOf<W>()(vm, jb, prod, nc, x2, nc, mr, jb, nc);  // V X
    for (int64_t i = 0; i < mr; ++i) subtract(c2 + i * ldc, x2 + i * nc, nc);
  }
}

// Q's first n columns from geqrf's output (orgqr/ungqr): Q = H(0) H(1) ... H(k-1), applied to
// the identity from the last reflector back. Up to kPanel reflectors one at a time (LAPACK's
// org2r); beyond, by blocks of kPanel from the last (ApplyQLeftT from the identity).
template <typename W>
void OrgqrT(std::vector<W>& a, int64_t m, int64_t n, const W* tau, int64_t k) {
  constexpr int64_t kPanel = 32;
  std::vector<W> q(static_cast<size_t>(m * n), W(0));
  for (int64_t i = 0; i < std::min(m, n); ++i) q[i * n + i] = W(1);
  const int64_t kk = std::min(k, n);
  if (kk <= kPanel) {
    std::vector<W> w(static_cast<size_t>(n));
    for (int64_t j = kk - 1; j >= 0; --j) {
      // Q := (I - tau v v^H) Q, v = [0..0, 1, a[j+1.., j]].
      ReflectLeft(&q[j * n], n, m - j, n, j + 1 < m ? &a[(j + 1) * n + j] : nullptr, n, tau[j], w.data());
    }
    a = std::move(q);
    return;
  }
  ApplyQLeftT(a.data(), n, m, kk, tau, q.data(), n, n, /*from_identity=*/true);
  a = std::move(q);
}

// The diagonal block [j0, j1) of a Cholesky panel (CholeskyLowerBlocked) column by column, each
// column's update of the block's columns after it made at once (right-looking), in a square copy
// of the block whose rows are updated over their whole width P with the columns outside (j, i]
// kept by a mask: fixed-length vector operations, where rows of 1..31 elements had run mostly in
// scalar loop tails (the 64 x 64 factor: the two blocks ~5 -> ~1 us). wt[j * P + c] =
// conj(L[j0 + c][j0 + j]) for c > j (zero elsewhere) and inv[j] = 1 / L[j0 + j][j0 + j] for the
// columns done; *done says how many are (jb, or the columns before a non-positive pivot, which is
// left in place as a real number). The block's lower triangle is written back; its strict upper
// triangle is never touched.
template <typename W, int64_t P>
[[gnu::always_inline]] inline void CholeskyDiagonalBlock(W* a, int64_t n, int64_t j0, int64_t j1, W* wt,
                                                        typename IsComplex<W>::Real* inv, int64_t* done) {
  using R = typename IsComplex<W>::Real;
  const int64_t jb = j1 - j0;
  W t[P * P] = {};
  for (int64_t i = 0; i < jb; ++i)
    for (int64_t c = 0; c <= i; ++c) t[i * P + c] = a[(j0 + i) * n + j0 + c];
  std::fill(wt, wt + P * P, W(0));
  int64_t j = 0;
  for (; j < jb; ++j) {
    const double d = RealOf(t[j * P + j]);
    if (!(d > 0)) {
      t[j * P + j] = W(d);
      break;
    }
    const double djj = std::sqrt(d);
    t[j * P + j] = W(djj);
    inv[j] = static_cast<R>(1.0 / djj);
    W* __restrict w = wt + j * P;
    for (int64_t i = j + 1; i < jb; ++i) {
      t[i * P + j] *= inv[j];
      w[i] = ConjOf(t[i * P + j]);
    }
    for (int64_t i = j + 1; i < jb; ++i) {
      W* __restrict ri = t + i * P;
      const W f = ri[j];
      const int jj = static_cast<int>(j), ii = static_cast<int>(i);  // (32-bit lanes for the mask)
      for (int c = 0; c < static_cast<int>(P); ++c) {
        const W u = ri[c] - f * w[c];
        ri[c] = (c > jj) & (c <= ii) ? u : ri[c];
      }
    }
  }
  *done = j;
  for (int64_t i = 0; i < jb; ++i)
    for (int64_t c = 0; c <= i; ++c) a[(j0 + i) * n + j0 + c] = t[i * P + c];
}

// The rows below a Cholesky panel's diagonal block solved against it (B <- B L_jj^-H, its first
// `done` columns), in a column-major copy cm (room for (n - j1) x done) so that every step is a
// long contiguous axpy over the rows (the same updates in the same order as row by row). The
// left-looking dots over at most 32 entries per element, then a row-by-row solve (a chain of
// dependent steps per row), had been most of potrf's time.
template <typename W, int64_t P>
[[gnu::always_inline]] inline void CholeskySolveBelow(W* a, int64_t n, int64_t j0, int64_t j1, int64_t done, W* cm,
                                                      const W* wt, const typename IsComplex<W>::Real* inv) {
  const int64_t below = n - j1;
  for (int64_t i = 0; i < below; ++i)
    for (int64_t c = 0; c < done; ++c) cm[c * below + i] = a[(j1 + i) * n + j0 + c];
  for (int64_t j = 0; j < done; ++j) {
    W* __restrict cj = cm + j * below;
    ScaleBy(cj, W(inv[j]), below);
    for (int64_t c = j + 1; c < done; ++c) SubScaled(cm + c * below, cj, wt[j * P + c], below);
  }
  for (int64_t i = 0; i < below; ++i)
    for (int64_t c = 0; c < done; ++c) a[(j1 + i) * n + j0 + c] = cm[c * below + i];
}

// The lower Cholesky factor in place, left-looking by panels of kPanel columns: each panel first
// takes the product of its rows with the columns already final (one product through gemm.h),
// then its diagonal block is factored and the rows below solved against it (LAPACK's potrf2 and
// trsm on the panel). The strict upper triangle is never written. At a non-positive pivot the
// columns before it are final, its diagonal holds the pivot and the 1-based order is returned.
template <typename W>
int32_t CholeskyLowerBlocked(W* a, int64_t n) {
  constexpr int64_t kPanel = 32;
  Array holders[2];
  W* bt = nullptr;
  W* prod = nullptr;
  if (n > kPanel) {
    bt = AllocateScratch<W>(n * kPanel, &holders[0]);
    prod = AllocateScratch<W>(n * kPanel, &holders[1]);
  }
  for (int64_t j0 = 0; j0 < n; j0 += kPanel) {
    const int64_t j1 = std::min(n, j0 + kPanel), jb = j1 - j0, rows = n - j0;
    if (j0 > 0) {
      // Panel -= L[j0:n, 0:j0] L[j0:j1, 0:j0]^H, the lower triangle of its diagonal block only.
      for (int64_t k = 0; k < j0; ++k)
        for (int64_t c = 0; c < jb; ++c) bt[k * jb + c] = ConjOf(a[(j0 + c) * n + k]);
      GemmOf<W>()(&a[j0 * n], n, bt, jb, prod, jb, rows, j0, jb);
      static const auto subtract = ForCpu<&Subtract<W>>();
      for (int64_t i = 0; i < rows; ++i) subtract(&a[(j0 + i) * n + j0], prod + i * jb, std::min(jb, i + 1));
    }
    W wt[kPanel * kPanel];  // wt[j * kPanel + c] = conj(L[j0 + c][j0 + j]), c > j
    typename IsComplex<W>::Real inv[kPanel];
    static const auto diagonal = ForCpu<&CholeskyDiagonalBlock<W, kPanel>>();
    static const auto below = ForCpu<&CholeskySolveBelow<W, kPanel>>();
    int64_t done;
    diagonal(a, n, j0, j1, wt, inv, &done);
    if (n > j1 && done > 0) below(a, n, j0, j1, done, bt, wt, inv);
    if (done < jb) return static_cast<int32_t>(j0 + done + 1);
  }
  return 0;
}

// Potrf on one triangle of the row-major `a`: the upper one holds U = L^H, so it is factored as
// the lower triangle of A's conjugate transpose. The other triangle is left as it was.
template <typename W>
int32_t PotrfT(std::vector<W>& a, int64_t n, bool lower) {
  if (lower) return CholeskyLowerBlocked(a.data(), n);
  std::vector<W> t(a.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) t[i * n + j] = ConjOf(a[j * n + i]);
  const int32_t code = CholeskyLowerBlocked(t.data(), n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) a[j * n + i] = ConjOf(t[i * n + j]);
  return code;
}

}  // namespace

int32_t Getrf(std::vector<double>& a, int64_t m, int64_t n, int32_t* ipiv) { return GetrfT(a, m, n, ipiv); }
int32_t Getrf(std::vector<cdouble>& a, int64_t m, int64_t n, int32_t* ipiv) { return GetrfT(a, m, n, ipiv); }
int32_t Getrf(std::vector<float>& a, int64_t m, int64_t n, int32_t* ipiv) { return GetrfT(a, m, n, ipiv); }
int32_t Getrf(std::vector<cfloat>& a, int64_t m, int64_t n, int32_t* ipiv) { return GetrfT(a, m, n, ipiv); }
void Geqrf(std::vector<double>& a, int64_t m, int64_t n, double* tau) { GeqrfT(a, m, n, tau); }
void Geqrf(std::vector<cdouble>& a, int64_t m, int64_t n, cdouble* tau) { GeqrfT(a, m, n, tau); }
void Geqrf(std::vector<float>& a, int64_t m, int64_t n, float* tau) { GeqrfT(a, m, n, tau); }
void Geqrf(std::vector<cfloat>& a, int64_t m, int64_t n, cfloat* tau) { GeqrfT(a, m, n, tau); }
void Gehrd(std::vector<double>& a, int64_t n, int64_t ilo, int64_t ihi, double* tau) { GehrdT(a, n, ilo, ihi, tau); }
void Gehrd(std::vector<cdouble>& a, int64_t n, int64_t ilo, int64_t ihi, cdouble* tau) { GehrdT(a, n, ilo, ihi, tau); }
void Sytrd(std::vector<double>& a, int64_t n, bool lower, double* d, double* e, double* tau) {
  SytrdT(a, n, lower, d, e, tau);
}
void Sytrd(std::vector<cdouble>& a, int64_t n, bool lower, double* d, double* e, cdouble* tau) {
  SytrdT(a, n, lower, d, e, tau);
}
void Orgqr(std::vector<double>& a, int64_t m, int64_t n, const double* tau, int64_t k) { OrgqrT(a, m, n, tau, k); }
void ApplyQLeft(const double* v, int64_t ldv, int64_t m, int64_t k, const double* tau, double* c, int64_t ldc,
                int64_t ncols) {
  ApplyQLeftT(v, ldv, m, k, tau, c, ldc, ncols);
}
void ApplyQLeft(const cdouble* v, int64_t ldv, int64_t m, int64_t k, const cdouble* tau, cdouble* c, int64_t ldc,
                int64_t ncols) {
  ApplyQLeftT(v, ldv, m, k, tau, c, ldc, ncols);
}
void ApplyQLeft(const float* v, int64_t ldv, int64_t m, int64_t k, const float* tau, float* c, int64_t ldc,
                int64_t ncols) {
  ApplyQLeftT(v, ldv, m, k, tau, c, ldc, ncols);
}
void ApplyQLeft(const cfloat* v, int64_t ldv, int64_t m, int64_t k, const cfloat* tau, cfloat* c, int64_t ldc,
                int64_t ncols) {
  ApplyQLeftT(v, ldv, m, k, tau, c, ldc, ncols);
}
void Orgqr(std::vector<cdouble>& a, int64_t m, int64_t n, const cdouble* tau, int64_t k) { OrgqrT(a, m, n, tau, k); }
void Orgqr(std::vector<float>& a, int64_t m, int64_t n, const float* tau, int64_t k) { OrgqrT(a, m, n, tau, k); }
void Orgqr(std::vector<cfloat>& a, int64_t m, int64_t n, const cfloat* tau, int64_t k) { OrgqrT(a, m, n, tau, k); }
int32_t Potrf(std::vector<double>& a, int64_t n, bool lower) { return PotrfT(a, n, lower); }
int32_t Potrf(std::vector<cdouble>& a, int64_t n, bool lower) { return PotrfT(a, n, lower); }
int32_t Potrf(std::vector<float>& a, int64_t n, bool lower) { return PotrfT(a, n, lower); }
int32_t Potrf(std::vector<cfloat>& a, int64_t n, bool lower) { return PotrfT(a, n, lower); }

}  // namespace lapack

int32_t CholeskyLowerInPlace(double* a, int64_t n) { return lapack::CholeskyLowerBlocked(a, n); }
int32_t CholeskyLowerInPlace(std::complex<double>* a, int64_t n) { return lapack::CholeskyLowerBlocked(a, n); }
int32_t CholeskyLowerInPlace(float* a, int64_t n) { return lapack::CholeskyLowerBlocked(a, n); }
int32_t CholeskyLowerInPlace(std::complex<float>* a, int64_t n) { return lapack::CholeskyLowerBlocked(a, n); }

}  // namespace openpjrt::cpu
