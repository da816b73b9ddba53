// The Householder reduction of syevd / heevd (lapack_factor.h TridiagonalizeHermitian): one pass
// over the trailing block per column, the block's update and the next step's product together;
// real matrices from their upper triangle alone, complex ones from both triangles. The inner
// loops are GCC vectors compiled for the CPU's widest registers (isa.h ForCpu).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "src/cpu/exec/array.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/lapack/lapack_factor.h"

// The vector types below never cross a call boundary (their helpers are always inlined).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace openpjrt::cpu::lapack {
namespace {

// The inner loops, compiled for the CPU's widest vectors (isa.h).
// row[c] -= a conj(x[c]) + b conj(y[c]) for c < m.
template <typename W>
[[gnu::always_inline]] inline void SubRank2(W* row, W a, const W* x, W b, const W* y, int64_t m) {
  for (int64_t c = 0; c < m; ++c) row[c] -= a * ConjOf(x[c]) + b * ConjOf(y[c]);
}
// Both at once on one row: row[c] -= a conj(x[c]) + b conj(y[c]), then p[c] += conj(row[c]) s.
template <typename W>
[[gnu::always_inline]] inline void SubRank2AddConj(W* row, W a, const W* x, W b, const W* y, W* p, W s,
                                                   int64_t m) {
  for (int64_t c = 0; c < m; ++c) {
    const W r = row[c] - (a * ConjOf(x[c]) + b * ConjOf(y[c]));
    row[c] = r;
    p[c] += ConjOf(r) * s;
  }
}
// The pass of one step of TridiagonalizeUpper (real W) over rows 1..m-1 of the trailing block
// b (its upper triangle, row stride ld): B := B - v w^T - w v^T there, and pn += B' q for B' the
// updated B without its row and column 0. Element c > r of row r goes into pn[c - 1] (times
// q[r - 1], by column) and into the row's sum (times q[c - 1]), which with the diagonal's term
// goes into pn[r - 1]. With v = w = 0 it is the product alone (rows written back unchanged).
// Sixteen lanes of W at a time (GCC splits the vector type for other widths), from the row's
// end leftwards; the partial group at its start is the vector ending there with the lanes left
// of the row masked off (read and written back unchanged: the caller gives room before b's row
// and before v, w, q and pn), so no load overlaps a store just made (with the partial group last
// such loads had waited out a third of the pass). Lanes summed by SumLanes: the same bits at
// every vector width. Rows under sixteen go element by element; rows with a group go in pairs.
template <typename W>
[[gnu::always_inline]] inline void SymPass(W* b, int64_t ld, int64_t m, const W* __restrict v, const W* __restrict w,
                                           const W* __restrict q, W* __restrict pn) {
  constexpr int kLanes = 16;
  typedef W V __attribute__((vector_size(kLanes * sizeof(W))));
  typedef std::conditional_t<sizeof(W) == 4, int32_t, int64_t> I;
  typedef I VI __attribute__((vector_size(kLanes * sizeof(W))));
  const VI lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  auto load = [](const W* at) {
    V x;
    __builtin_memcpy(&x, at, sizeof(V));
    return x;
  };
  auto store = [](W* at, V x) { __builtin_memcpy(at, &x, sizeof(V)); };
  // Two rows at a time where both have a group of 16 or more: their groups at one column
  // position go one after the other through one load and store of pn (the first row's product
  // added before the second's, as row by row), and the two rows' lane sums and tails overlap
  // (256 x 256 ssyevd at one thread ~3.08 -> ~2.80 ms; the pass had been a quarter of it, a
  // third of that in each row's tail). The values are those of rows taken one by one up to the
  // compiler's choice of which products it fuses into sums (rounding-level differences).
  int64_t r = 1;
  for (; r + 1 < m && m - (r + 2) >= kLanes; r += 2) {
    W* __restrict row0 = b + r * ld;
    W* __restrict row1 = row0 + ld;
    const W vr0 = v[r], wr0 = w[r], s0 = q[r - 1];
    const W vr1 = v[r + 1], wr1 = w[r + 1], s1 = q[r];
    row0[r] -= vr0 * wr0 + wr0 * vr0;
    row1[r + 1] -= vr1 * wr1 + wr1 * vr1;
    const int64_t c0 = r + 1, c1 = r + 2;  // each row's first element right of its diagonal
    V part0 = {}, part1 = {};
    int64_t at = m - kLanes;
    for (; at >= c1; at -= kLanes) {
      const V x0 = (load(row0 + at) - vr0 * load(w + at)) - wr0 * load(v + at);
      const V x1 = (load(row1 + at) - vr1 * load(w + at)) - wr1 * load(v + at);
      store(row0 + at, x0);
      store(row1 + at, x1);
      V p = load(pn + at - 1) + x0 * s0;
      p = p + x1 * s1;
      store(pn + at - 1, p);
      const V qa = load(q + at - 1);
      part0 += x0 * qa;
      part1 += x1 * qa;
    }
    // The groups left, written as the one-row path writes whole and partial groups: at == c0
    // is the first row's last whole group and the second row's partial one; further left, a
    // partial group of the first row and, unless its lanes are all left of c1, of the second.
    const V qa = load(q + at - 1);
    if (at == c0) {
      const V x0 = (load(row0 + at) - vr0 * load(w + at)) - wr0 * load(v + at);
      store(row0 + at, x0);
      const VI fresh1 = lane >= static_cast<I>(c1 - at);
      const V old1 = load(row1 + at);
      const V x1 = (old1 - vr1 * load(w + at)) - wr1 * load(v + at);
      store(row1 + at, fresh1 ? x1 : old1);
      const V p = load(pn + at - 1) + x0 * s0;
      store(pn + at - 1, fresh1 ? p + x1 * s1 : p);
      part0 += x0 * qa;
      part1 += fresh1 ? x1 * qa : V{};
    } else {
      const VI fresh0 = lane >= static_cast<I>(c0 - at);
      const V old0 = load(row0 + at), old_p = load(pn + at - 1);
      const V x0 = (old0 - vr0 * load(w + at)) - wr0 * load(v + at);
      store(row0 + at, fresh0 ? x0 : old0);
      V p = fresh0 ? old_p + x0 * s0 : old_p;
      part0 += fresh0 ? x0 * qa : V{};
      if (at + kLanes > c1) {
        const VI fresh1 = lane >= static_cast<I>(c1 - at);
        const V old1 = load(row1 + at);
        const V x1 = (old1 - vr1 * load(w + at)) - wr1 * load(v + at);
        store(row1 + at, fresh1 ? x1 : old1);
        p = fresh1 ? p + x1 * s1 : p;
        part1 += fresh1 ? x1 * qa : V{};
      }
      store(pn + at - 1, p);
    }
    pn[r - 1] += row0[r] * s0 + SumLanes<W>(part0);
    pn[r] += row1[r + 1] * s1 + SumLanes<W>(part1);
  }
  for (; r < m; ++r) {
    W* __restrict row = b + r * ld;
    const W vr = v[r], wr = w[r], s = q[r - 1];
    row[r] -= vr * wr + wr * vr;
    const int64_t c1 = m;  // row r's elements r + 1 .. m - 1
    int64_t c = r + 1;
    W sum = W(0);
    if (c1 - c >= kLanes) {
      V part = {};
      int64_t at = c1 - kLanes;
      for (; at >= c; at -= kLanes) {
        const V x = (load(row + at) - vr * load(w + at)) - wr * load(v + at);
        store(row + at, x);
        store(pn + at - 1, load(pn + at - 1) + x * s);
        part += x * load(q + at - 1);
      }
      if (at + kLanes > c) {
        const VI fresh = lane >= static_cast<I>(c - at);  // lanes left of c are not the row's
        const V old = load(row + at), old_p = load(pn + at - 1);
        const V x = (old - vr * load(w + at)) - wr * load(v + at);
        store(row + at, fresh ? x : old);
        store(pn + at - 1, fresh ? old_p + x * s : old_p);
        part += fresh ? x * load(q + at - 1) : V{};
      }
      sum = SumLanes<W>(part);
    } else {
      for (; c < c1; ++c) {
        const W x = (row[c] - vr * w[c]) - wr * v[c];
        row[c] = x;
        pn[c - 1] += x * s;
        sum += x * q[c - 1];
      }
    }
    pn[r - 1] += row[r] * s + sum;
  }
}
// The same for complex<double> / complex<float>, on the interleaved real and imaginary parts 64
// bytes at a time (GCC does not vectorise complex products by itself): with x' the pairs swapped,
// a conj(x) = x (ar, -ar) + x' (ai, ai) and conj(r) s = r (sr, -sr) + r' (si, si), lane by lane.
template <typename R>
struct PairsOf {
  static constexpr int kLanes = 64 / sizeof(R);  // real lanes: kLanes / 2 complex values
  typedef R V __attribute__((vector_size(64)));
  [[gnu::always_inline]] static V Load(const std::complex<R>* p) {
    V v;
    __builtin_memcpy(&v, p, sizeof(v));
    return v;
  }
  [[gnu::always_inline]] static void Store(std::complex<R>* p, V v) { __builtin_memcpy(reinterpret_cast<R*>(p), &v, sizeof(v)); }
  [[gnu::always_inline]] static V Swapped(V v) {
    if constexpr (kLanes == 8) return __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6);
    else return __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
  }
  // (re, -re, re, -re, ...) and (im, im, ...) of c.
  [[gnu::always_inline]] static V Alternating(R re) {
    V v;
    for (int i = 0; i < kLanes; ++i) v[i] = i % 2 ? -re : re;
    return v;
  }
  [[gnu::always_inline]] static V Splat(R x) {
    V v;
    for (int i = 0; i < kLanes; ++i) v[i] = x;
    return v;
  }
};
template <typename R>
[[gnu::always_inline]] inline void SubRank2AddConjComplex(std::complex<R>* row, std::complex<R> a,
                                                          const std::complex<R>* x, std::complex<R> b,
                                                          const std::complex<R>* y, std::complex<R>* p,
                                                          std::complex<R> s, int64_t m) {
  using P = PairsOf<R>;
  using V = typename P::V;
  constexpr int kStep = P::kLanes / 2;
  const V pa = P::Alternating(a.real()), qa = P::Splat(a.imag());
  const V pb = P::Alternating(b.real()), qb = P::Splat(b.imag());
  const V ps = P::Alternating(s.real()), qs = P::Splat(s.imag());
  int64_t c = 0;
  for (; c + kStep <= m; c += kStep) {
    const V xv = P::Load(x + c), yv = P::Load(y + c);
    const V r = P::Load(row + c) - (xv * pa + P::Swapped(xv) * qa + yv * pb + P::Swapped(yv) * qb);
    P::Store(row + c, r);
    P::Store(p + c, P::Load(p + c) + (r * ps + P::Swapped(r) * qs));
  }
  for (; c < m; ++c) {
    const std::complex<R> r = row[c] - (a * std::conj(x[c]) + b * std::conj(y[c]));
    row[c] = r;
    p[c] += std::conj(r) * s;
  }
}
// p[c] += conj(row[c]) s for c < m.
template <typename W>
[[gnu::always_inline]] inline void AddConjScaled(W* p, const W* row, W s, int64_t m) {
  for (int64_t c = 0; c < m; ++c) p[c] += ConjOf(row[c]) * s;
}
// Reflector i of the tridiagonalisations from row i of a right of the diagonal, into `into`
// (e[i] and tau[i] set); its tail is stored in column i below the subdiagonal.
template <typename W>
W ReflectRow(W* a, int64_t n, int64_t i, W* into, double* e, W* tau) {
  const int64_t m = n - i - 1;
  tau[i] = RowReflector(a + i * n + i + 1, m, into, &e[i]);
  for (int64_t r = 1; r < m; ++r) a[(i + 1 + r) * n + i] = into[r];
  return tau[i];
}

// Householder tridiagonalisation of the full Hermitian matrix a (both triangles, row-major):
// H(i) annihilates column i below its subdiagonal (LAPACK's lower sytd2/hetd2 with the same
// reflectors: x = tau B v, w = x - (tau/2)(x^H v) v, B := B - v w^H - w v^H on the trailing
// block B). One pass over B per step, by contiguous rows: row 0 of B is updated first, the next
// reflector is made from it (B stays Hermitian, so its column is that row conjugated), and each
// further row is updated and at once added into the next step's product B' v'. On return the
// reflectors' tails are stored below the subdiagonal (geqrf's layout for the matrix one row
// down), d and e hold T and tau the scalars.
template <typename W>
void TridiagonalizeFull(W* a, int64_t n, double* d, double* e, W* tau) {
  static const auto sub_rank2 = ForCpu<&SubRank2<W>>();
  static const auto add_conj_scaled = ForCpu<&AddConjScaled<W>>();
  static const auto sub_rank2_add = [] {
    if constexpr (IsComplex<W>::value) return ForCpu<&SubRank2AddConjComplex<typename IsComplex<W>::Real>>();
    else return ForCpu<&SubRank2AddConj<W>>();
  }();
  if (n == 0) return;
  std::vector<W> v(static_cast<size_t>(n)), vn(v.size()), p(v.size()), pn(v.size()), w(v.size());
  auto reflect = [&](int64_t i, std::vector<W>& into) { return ReflectRow(a, n, i, into.data(), e, tau); };
  // p = tau B v for the first step.
  if (n > 1 && reflect(0, v) != W(0)) {
    const int64_t m = n - 1;
    std::fill(p.begin(), p.begin() + m, W(0));
    for (int64_t r = 0; r < m; ++r) add_conj_scaled(p.data(), a + (1 + r) * n + 1, v[r], m);
    for (int64_t r = 0; r < m; ++r) p[r] *= tau[0];
  }
  for (int64_t i = 0; i + 1 < n; ++i) {
    d[i] = RealOf(a[i * n + i]);
    const int64_t m = n - i - 1;
    W* b = a + (i + 1) * n + (i + 1);  // the trailing block, row stride n
    const W t = tau[i];
    if (t != W(0)) {
      W dot = W(0);
      for (int64_t r = 0; r < m; ++r) dot += ConjOf(p[r]) * v[r];
      const W alpha = W(-0.5) * t * dot;
      for (int64_t r = 0; r < m; ++r) w[r] = p[r] + alpha * v[r];
      sub_rank2(b, v[0], w.data(), w[0], v.data(), m);
      b[0] = W(RealOf(b[0]));
    }
    if (m < 2) break;
    const W tn = reflect(i + 1, vn);
    if (tn != W(0)) std::fill(pn.begin(), pn.begin() + (m - 1), W(0));
    for (int64_t r = 1; r < m; ++r) {
      W* row = b + r * n;
      if (t != W(0) && tn != W(0)) {
        // The diagonal's imaginary part (rounding) is dropped after it is added into pn.
        sub_rank2_add(row + 1, v[r], w.data() + 1, w[r], v.data() + 1, pn.data(), vn[r - 1], m - 1);
        row[r] = W(RealOf(row[r]));
      } else if (t != W(0)) {
        sub_rank2(row + 1, v[r], w.data() + 1, w[r], v.data() + 1, m - 1);
        row[r] = W(RealOf(row[r]));
      } else if (tn != W(0)) {
        add_conj_scaled(pn.data(), row + 1, vn[r - 1], m - 1);
      }
    }
    for (int64_t r = 0; r + 1 < m; ++r) pn[r] *= tn;
    std::swap(v, vn);
    std::swap(p, pn);
  }
  d[n - 1] = RealOf(a[(n - 1) * n + n - 1]);
}

// TridiagonalizeFull's reflectors for a real symmetric matrix from its upper triangle alone (the
// row-major mirror of LAPACK's lower dsytd2): the pass over the trailing block (SymPass) moves
// half the memory of the full matrix's. Nothing below the diagonal is read; the reflectors'
// tails are stored there. (256 x 256 ssyevd's tridiagonalisation, L2-bound, had been a third.)
template <typename W>
void TridiagonalizeUpper(W* a, int64_t n, double* d, double* e, W* tau) {
  static const auto sub_rank2 = ForCpu<&SubRank2<W>>();
  static const auto sym_pass = ForCpu<&SymPass<W>>();
  if (n == 0) return;
  // The vectors with 16 zeros of room before them (SymPass's partial groups). The passes' rows
  // are the matrix's row 1 or lower, 16 or more long (n >= 18): before them is the row above.
  // Each step's vectors start where the pass's groups of 16 read them from 64-byte boundaries
  // (a pass over m columns reads v and w at m - 16 k, q and pn one element earlier): from
  // buffers that start on a boundary, at an offset of (-m) or (1 - m) mod 16 elements. The
  // next reflector, made at the offset its pass reads q from, is already where the following
  // step reads v from. (Read across two cache lines, these loads and the store of pn had
  // taken about a third of a 512 x 512 ssyevd's passes.)
  constexpr int64_t kRoom = 16;
  const int64_t len = n + 2 * kRoom;
  Array holder;
  W* base = AllocateScratch<W>(6 * len, &holder);  // 64-byte aligned
  std::fill(base, base + 6 * len, W(0));
  W* store[6];
  for (int k = 0; k < 6; ++k) store[k] = base + k * len + kRoom;
  auto at = [](W* buffer, int64_t shift) { return buffer + ((shift % 16) + 16) % 16; };
  W *sv = store[0], *svn = store[1], *sp = store[2], *spn = store[3], *sw = store[4];
  W *v = sv, *vn = svn, *p = sp, *pn = spn, *w = sw, *zero = store[5];
  auto reflect = [&](int64_t i, W* into) { return ReflectRow(a, n, i, into, e, tau); };
  // out = B' q for B' the block b without its row and column 0 (m x m with them).
  auto product = [&](W* b, int64_t m, const W* q, W* out) {
    std::fill(out, out + m - 1, W(0));
    sym_pass(b, n, m, zero, zero, q, out);
  };
  if (n > 1) {
    v = at(sv, 1 - n);  // (read as q by this product's pass over n columns, as v by step 0's)
    p = at(sp, 1 - n);
    if (reflect(0, v) != W(0)) {
      const int64_t m = n - 1;
      product(a, n, v, p);
      for (int64_t r = 0; r < m; ++r) p[r] *= tau[0];
    }
  }
  for (int64_t i = 0; i + 1 < n; ++i) {
    d[i] = a[i * n + i];
    const int64_t m = n - i - 1;
    W* b = a + (i + 1) * n + (i + 1);  // the trailing block, row stride n
    const W t = tau[i];
    w = at(sw, -m);
    if (t != W(0)) {
      W dot = W(0);
      for (int64_t r = 0; r < m; ++r) dot += p[r] * v[r];
      const W alpha = W(-0.5) * t * dot;
      for (int64_t r = 0; r < m; ++r) w[r] = p[r] + alpha * v[r];
      sub_rank2(b, v[0], w, w[0], v, m);  // row 0 first: the next reflector's
    }
    if (m < 2) break;
    vn = at(svn, 1 - m);
    pn = at(spn, 1 - m);
    const W tn = reflect(i + 1, vn);
    if (t == W(0)) {
      if (tn != W(0)) product(b, m, vn, pn);
    } else if (tn != W(0)) {
      std::fill(pn, pn + (m - 1), W(0));
      sym_pass(b, n, m, v, w, vn, pn);
    } else {
      for (int64_t r = 1; r < m; ++r) sub_rank2(b + r * n + r, v[r], w + r, w[r], v + r, m - r);
    }
    for (int64_t r = 0; r + 1 < m; ++r) pn[r] *= tn;
    std::swap(v, vn);
    std::swap(sv, svn);
    std::swap(p, pn);
    std::swap(sp, spn);
  }
  d[n - 1] = a[(n - 1) * n + n - 1];
}

}  // namespace

void TridiagonalizeHermitian(double* a, int64_t n, double* d, double* e, double* tau) {
  TridiagonalizeUpper(a, n, d, e, tau);
}
void TridiagonalizeHermitian(float* a, int64_t n, double* d, double* e, float* tau) {
  TridiagonalizeUpper(a, n, d, e, tau);
}
void TridiagonalizeHermitian(cdouble* a, int64_t n, double* d, double* e, cdouble* tau) {
  TridiagonalizeFull(a, n, d, e, tau);
}
void TridiagonalizeHermitian(cfloat* a, int64_t n, double* d, double* e, cfloat* tau) {
  TridiagonalizeFull(a, n, d, e, tau);
}

}  // namespace openpjrt::cpu::lapack
