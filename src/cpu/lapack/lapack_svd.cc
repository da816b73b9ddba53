// See lapack_factor.h (Gesdd). The singular value decomposition the way LAPACK's gesdd computes
// it: Householder bidiagonalisation B = Q^H A P (gebrd; B is real and upper bidiagonal for
// complex A too), B's singular vectors by divide and conquer (bdsdc), and U = Q U_B, V = P V_B
// through ApplyQLeft. Divide and conquer: rows [lo, hi) of B with one column more than rows split
// at a middle row into an upper block that also has one column more than rows and a lower block,
// each solved recursively; in the halves' singular bases B becomes M = e_0 z^T + diag(0, S1, S2),
// whose singular values are the square roots of the eigenvalues of diag(0, S1^2, S2^2) + z z^T:
// the secular equation the Hermitian eigensolver merges with (lapack_eigh.cc), poles sigma^2 and
// rho = 1. Singular values alone take the same merges with only two rows of each block's right
// vectors (O(n^2) after the bidiagonalisation). float / complex<float> matrices are reduced and
// their vectors back-transformed in single precision (as sgesdd / cgesdd); B's singular value
// problem is solved in double, but for them the merges multiply the blocks' vectors by the merged
// ones in single precision, as sbdsdc does (lapack_eigh.cc's merges likewise; a 512 x 512 sgesdd
// at one thread: the products in double had been ~15% of its time).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "src/cpu/exec/array.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/lapack/lapack_factor.h"

// The vector types below never cross a call boundary (their helpers are always inlined).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace openpjrt::cpu::lapack {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff
constexpr int64_t kJacobi = 8;  // bidiagonals up to this size by one-sided Jacobi

// Temporaries: small ones from a buffer inside the object (a batch of 3 x 3 SVDs spent half its
// time in malloc and free), large ones from the arrays' pool (a std::vector of n x n is fresh
// pages to fault in and zero on every call: a fifth of a 256 x 256 SVD).
class Scratch {
 public:
  template <typename T>
  T* Get(int64_t count) {
    const size_t bytes = (static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T) + 63) & ~size_t{63};
    if (used_ + bytes <= sizeof(local_)) {
      T* p = reinterpret_cast<T*>(local_ + used_);
      used_ += bytes;
      return p;
    }
    holders_.emplace_back();
    return AllocateScratch<T>(std::max<int64_t>(count, 1), &holders_.back());
  }
  template <typename T>
  T* Zeros(int64_t count) {
    T* p = Get<T>(count);
    std::fill(p, p + count, T(0));
    return p;
  }

 private:
  alignas(64) unsigned char local_[8192];
  size_t used_ = 0;
  std::vector<Array> holders_;  // the data stays put when the vector grows
};

using RowGroups = std::span<const std::pair<int64_t, int64_t>>;

// y[c] += a x[c] for c < count.
template <typename W>
[[gnu::always_inline]] inline void Axpy(W* y, const W* x, W a, int64_t count) {
  for (int64_t c = 0; c < count; ++c) y[c] += a * x[c];
}
// One row of the trailing block through one step of the bidiagonalisation, with the row in L1:
// the left reflector's update row += a w, then the right one's row -= tp (row u) conj(u), then
// (with acc) the next step's product acc += conj(row[0]) row[1..]. count >= 1.
template <typename W>
[[gnu::always_inline]] inline void BidiagonalRow(W* row, int64_t count, W a, const W* w, const W* u, const W* uc,
                                                 W tp, W* acc) {
  // (Partial sums a vector wide: 16 for float, 8 otherwise; real ones in a vector summed by
  // SumLanes, the partial group's separately.)
  constexpr int kParts = std::is_same_v<W, float> ? 16 : 8;
  int64_t c = 0;
  W y = W(0);
  if constexpr (!IsComplex<W>::value) {
    typedef W V __attribute__((vector_size(kParts * sizeof(W))));
    auto load = [](const W* at) {
      V v;
      __builtin_memcpy(&v, at, sizeof(V));
      return v;
    };
    V part = {};
    for (; c + kParts <= count; c += kParts) {
      const V r = load(row + c) + a * load(w + c);
      __builtin_memcpy(row + c, &r, sizeof(V));
      part += r * load(u + c);
    }
    W tail = W(0);
    for (; c < count; ++c) {
      const W r = row[c] + a * w[c];
      row[c] = r;
      tail += r * u[c];
    }
    y = SumLanes<W>(part) + tail;
  } else {
    W part[kParts] = {};
    for (; c + kParts <= count; c += kParts)
      for (int l = 0; l < kParts; ++l) {
        const W r = row[c + l] + a * w[c + l];
        row[c + l] = r;
        part[l] += r * u[c + l];
      }
    for (; c < count; ++c) {
      const W r = row[c] + a * w[c];
      row[c] = r;
      part[0] += r * u[c];
    }
    for (int l = 0; l < kParts; ++l) y += part[l];
  }
  const W b = -tp * y;
  row[0] += b * uc[0];
  if (acc == nullptr) {
    for (c = 1; c < count; ++c) row[c] += b * uc[c];
    return;
  }
  const W x = ConjOf(row[0]);
  for (c = 1; c < count; ++c) {
    const W r = row[c] + b * uc[c];
    row[c] = r;
    acc[c - 1] += x * r;
  }
}

// Householder bidiagonalisation of a (m x n, m >= n, row-major; LAPACK's gebd2 with the same
// reflectors): H(i) from column i zeroes it below the diagonal, G(i) from row i zeroes it right of
// the superdiagonal; Q^H A P = B with Q = H(0) ... H(n-1), P = G(0) ... G(n-2). On return d and e
// hold B, H(i)'s tail is below a's diagonal (geqrf's layout) and G(i)'s in column i of pv
// ((n-1) x (n-1), geqrf's layout for coordinates 1..n-1). One pass over the trailing block per
// step: each row takes both reflectors and adds itself into the next step's w = v^H A, which
// needs only the next column's entries before their scaling by larfg (w = row + conj(scale) acc).
template <typename W>
void Bidiagonalize(W* a, int64_t m, int64_t n, double* d, double* e, W* tauq, W* taup, W* pv) {
  static const auto axpy = ForCpu<&Axpy<W>>();
  static const auto row_step = ForCpu<&BidiagonalRow<W>>();
  std::vector<W> w(static_cast<size_t>(n)), u(w.size()), uc(w.size()), acc(w.size(), W(0)), next(w.size());
  for (int64_t r = 1; r < m && n > 1; ++r) axpy(acc.data(), a + r * n + 1, ConjOf(a[r * n]), n - 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t cols = n - i - 1;
    const W alpha0 = a[i * n + i];
    W alpha = alpha0;
    const W tq = Larfg(alpha, a + (i + 1) * n + i, n, m - i - 1);
    d[i] = RealOf(alpha);
    tauq[i] = tq;
    if (cols == 0) break;
    W* top = a + i * n + i + 1;
    if (tq != W(0)) {
      // w = v^H A[i.., i+1..]; row i (v's leading one) takes its update at once.
      const W scale = ConjOf(W(1) / (alpha0 - alpha));
      for (int64_t c = 0; c < cols; ++c) {
        w[c] = top[c] + scale * acc[c];
        top[c] -= ConjOf(tq) * w[c];
      }
    } else {
      std::fill(w.begin(), w.begin() + cols, W(0));
    }
    // G from row i right of the diagonal (row G = (beta, 0, ...)).
    const W tp = RowReflector(top, cols, u.data(), &e[i]);
    taup[i] = tp;
    for (int64_t c = 1; c < cols; ++c) pv[(i + c) * (n - 1) + i] = u[c];
    for (int64_t c = 0; c < cols; ++c) uc[c] = ConjOf(u[c]);
    std::fill(next.begin(), next.begin() + std::max<int64_t>(cols - 1, 0), W(0));
    const W t = -ConjOf(tq);
    for (int64_t r = i + 1; r < m; ++r)
      row_step(a + r * n + i + 1, cols, t * a[r * n + i], w.data(), u.data(), uc.data(), tp,
               r > i + 1 && cols > 1 ? next.data() : nullptr);
    std::swap(acc, next);
  }
}

// X[rows, cols[j]] := sum over i of X[rows, cols[i]] q[i][j] (q: k x k), for each group of rows
// [first, second) taking only the columns that reach it (the halves' vectors are zero in each
// other's rows unless a deflating rotation mixed them): column j reaches group g when bit g of
// reach[j] is set, or, without `reach`, when it has a nonzero entry there. The product is
// computed in precision P.
template <typename P>
void MultiplyColumns(double* x, int64_t ldx, RowGroups groups, const int64_t* cols, const double* q, int64_t k,
                     const uint8_t* reach_bits = nullptr) {
  Scratch scratch;
  int64_t most = 0;
  for (const auto& [r0, r1] : groups) most = std::max(most, r1 - r0);
  P* part = scratch.Get<P>(most * k);
  P* qpart = scratch.Get<P>(k * k);
  P* prod = scratch.Get<P>(most * k);
  int64_t* reach = scratch.Get<int64_t>(k);
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto [r0, r1] = groups[g];
    const int64_t rows = r1 - r0;
    int64_t kc = 0;
    if (reach_bits) {
      for (int64_t j = 0; j < k; ++j)
        if (reach_bits[j] & (1u << g)) reach[kc++] = j;
    } else {
      for (int64_t j = 0; j < k; ++j)
        for (int64_t r = r0; r < r1; ++r)
          if (x[r * ldx + cols[j]] != 0) {
            reach[kc++] = j;
            break;
          }
    }
    if (rows == 0 || kc == 0) continue;  // all zero there, and so is the product
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < kc; ++c) part[r * kc + c] = static_cast<P>(x[(r0 + r) * ldx + cols[reach[c]]]);
    for (int64_t c = 0; c < kc; ++c) std::copy_n(q + reach[c] * k, k, &qpart[c * k]);
    if (rows * kc * k <= 4096) {  // small: a library product's set-up costs more than the loop
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < k; ++j) {
          P sum = 0;
          for (int64_t c = 0; c < kc; ++c) sum += part[r * kc + c] * qpart[c * k + j];
          prod[r * k + j] = sum;
        }
    } else {
      GemmOf<P>()(part, kc, qpart, k, prod, k, rows, kc, k);
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < k; ++j) x[(r0 + r) * ldx + cols[j]] = prod[r * k + j];
  }
}

// Columns a and b of x over rows [r0, r1): (a, b) := (c a + s b, -s a + c b).
void RotateColumns(double* x, int64_t ldx, int64_t r0, int64_t r1, int64_t a, int64_t b, double c, double s) {
  for (int64_t r = r0; r < r1; ++r) {
    const double xa = x[r * ldx + a], xb = x[r * ldx + b];
    x[r * ldx + a] = c * xa + s * xb;
    x[r * ldx + b] = -s * xa + c * xb;
  }
}

// Divide and conquer on the upper bidiagonal B (diagonal d, superdiagonal e). Solve(lo, hi, sqre)
// takes rows [lo, hi) and columns [lo, hi + sqre) of B and leaves their singular values in
// s[lo..hi), the left vectors in columns [lo, hi) of u (rows [lo, hi)), the right vectors in
// columns [lo, hi) of v (rows [lo, hi + sqre)) and, when sqre is 1, the null vector in v's column
// hi. u and v (row strides ldu, ldv) must start as zeros. B is scaled to largest entry 1 or less.
// Without u (singular values alone) only the first and last row of each block's right vectors are
// kept: a merge needs no others (z is the upper half's last row and the lower half's first), so
// the whole solve is O(n^2) (LAPACK's lasda).
class BidiagonalDc {
 public:
  // single: the merges' products in single precision (a float / complex<float> matrix's vectors).
  BidiagonalDc(const double* d, const double* e, double* s, double* u, int64_t ldu, double* v, int64_t ldv, bool single)
      : d_(d), e_(e), s_(s), u_(u), ldu_(ldu), v_(v), ldv_(ldv), single_(single) {}

  void Solve(int64_t lo, int64_t hi, int sqre) {
    if (hi == lo) {
      if (sqre) V(lo, lo) = 1;
      return;
    }
    const int64_t km = lo + (hi - lo) / 2;  // the middle row
    Solve(lo, km, 1);
    Solve(km + 1, hi, sqre);
    Merge(lo, km, hi, sqre);
  }

 private:
  double& U(int64_t r, int64_t c) { return u_[r * ldu_ + c]; }
  double& V(int64_t r, int64_t c) { return v_[r * ldv_ + c]; }

  // Row km of B joins the upper block (rows [lo, km), columns [lo, km]) and the lower one (rows
  // (km, hi), columns (km, hi + sqre)) through alpha = B[km][km] and beta = B[km][km + 1].
  // Coordinate km is the upper block's null vector (singular value 0); the lower block's null
  // vector, when it has one, is rotated into it, and what remains is the merged null vector.
  void Merge(int64_t lo, int64_t km, int64_t hi, int sqre) {
    const int64_t m = hi - lo, vhi = hi + sqre, k0 = km - lo;
    // The rows of v that are kept up to date.
    std::pair<int64_t, int64_t> rows_kept[2] = {{lo, vhi}, {0, 0}};
    size_t nrows_kept = 1;
    if (u_ == nullptr) {
      rows_kept[0] = {lo, lo + 1};
      if (vhi - 1 != lo) rows_kept[1] = {vhi - 1, vhi}, nrows_kept = 2;
    }
    const RowGroups vrows(rows_kept, nrows_kept);
    Scratch scratch;
    // The row groups each column reaches (the merges' products take only those): u's columns
    // [lo, km) rows [lo, km) (bit 0), km the row km (bit 1), (km, hi) the rows below (bit 2); v's
    // columns [lo, km] rows [lo, km] (bit 0), the rest rows (km, vhi) (bit 1); a rotation of two
    // columns gives both the union of theirs.
    uint8_t* ureach = scratch.Get<uint8_t>(m);
    uint8_t* vreach = scratch.Get<uint8_t>(m);
    for (int64_t c = 0; c < m; ++c) {
      ureach[c] = lo + c < km ? 1 : lo + c == km ? 2 : 4;
      vreach[c] = lo + c <= km ? 1 : 2;
    }
    auto join = [](uint8_t* reach, int64_t a, int64_t b) { reach[a] = reach[b] = reach[a] | reach[b]; };
    auto rotate_v = [&](int64_t a, int64_t b, double c, double s) {
      for (const auto& [r0, r1] : vrows) RotateColumns(v_, ldv_, r0, r1, a, b, c, s);
      if (a < hi && b < hi) join(vreach, a - lo, b - lo);
    };
    const double alpha = d_[km], beta = km + 1 < vhi ? e_[km] : 0.0;
    // z: row km of B in the halves' right singular bases.
    double* z = scratch.Get<double>(m);
    double* ds = scratch.Get<double>(m);
    for (int64_t c = lo; c <= km; ++c) z[c - lo] = alpha * V(km, c);
    for (int64_t c = km + 1; c < hi; ++c) z[c - lo] = beta * V(km + 1, c);
    s_[km] = 0;
    if (u_ != nullptr) U(km, km) = 1;
    if (sqre) {
      const double zn = beta * V(km + 1, hi);
      const double r = Hypot(z[k0], zn);
      if (r > 0) {
        rotate_v(km, hi, z[k0] / r, zn / r);
        vreach[k0] |= 2;  // (column hi, the lower block's null vector, lies in its rows)
        z[k0] = r;
      }
    }
    // Scaled to largest entry 1 (the tolerances are absolute, and the poles are squares).
    double scale = std::max(std::fabs(alpha), std::fabs(beta));
    for (int64_t c = lo; c < hi; ++c) scale = std::max(scale, s_[c]);
    if (scale == 0) return;  // a zero block: its bases are already singular vectors
    for (int64_t i = 0; i < m; ++i) ds[i] = s_[lo + i] / scale, z[i] /= scale;
    const double tol = 8 * kEps;
    // Deflation (LAPACK's lasd2). Coordinate km (the pole at zero) is always kept, with at least
    // tol in z; a negligible z leaves its singular value and vectors as they are; a singular
    // value within tol of the previous kept one is rotated against it so that one of the two
    // takes all of their z (at the zero pole only the right vectors turn: its left vector is
    // the bare coordinate, and the error is at most tol).
    int64_t* order = scratch.Get<int64_t>(m);
    int64_t* kept = scratch.Get<int64_t>(m);
    int64_t norder = 0, k = 0;
    for (int64_t i = 0; i < m; ++i)
      if (i != k0) order[norder++] = i;
    std::stable_sort(order, order + norder, [&](int64_t a, int64_t b) { return ds[a] < ds[b]; });
    if (std::fabs(z[k0]) <= tol) z[k0] = tol;
    kept[k++] = k0;
    for (int64_t o = 0; o < norder; ++o) {
      const int64_t idx = order[o];
      if (std::fabs(z[idx]) <= tol) continue;  // deflated: its value and vectors stay
      const int64_t p = kept[k - 1];
      if (ds[idx] - ds[p] <= tol) {
        const double r = Hypot(z[p], z[idx]);
        if (p == k0) {
          rotate_v(lo + p, lo + idx, z[p] / r, z[idx] / r);
          z[p] = r;
          z[idx] = 0;
        } else {
          const double c = z[idx] / r, s = z[p] / r;
          if (u_ != nullptr) RotateColumns(u_, ldu_, lo, hi, lo + idx, lo + p, c, s);
          join(ureach, idx, p);
          rotate_v(lo + idx, lo + p, c, s);
          z[p] = 0;
          z[idx] = r;
          kept[k - 1] = idx;
        }
        continue;
      }
      kept[k++] = idx;
    }
    // The kept singular values are strictly increasing, so are their squares (all are at least
    // tol apart and at most 1).
    double* poles = scratch.Get<double>(k);
    double* zk = scratch.Get<double>(k);
    double* lambda = scratch.Get<double>(k);
    double* delta = scratch.Get<double>(k * k);
    double* um = scratch.Get<double>(k * k);
    double* vm = scratch.Get<double>(k * k);
    for (int64_t i = 0; i < k; ++i) {
      poles[i] = ds[kept[i]] * ds[kept[i]];
      zk[i] = z[kept[i]];
    }
    SecularRoots(k, poles, zk, 1.0, lambda, delta);
    SecularWeights(k, poles, delta, 1.0, zk);
    // Right vectors z_i / (d_i^2 - sigma^2); left vectors M v / sigma = (-1, d_i z_i / (d_i^2 -
    // sigma^2)) (z^T v = -1 at a root); each normalised.
    double* unorm = scratch.Zeros<double>(k);
    double* vnorm = scratch.Zeros<double>(k);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) {
        const double t = zk[i] / delta[i * k + j];
        const double l = u_ == nullptr ? 0.0 : i == 0 ? -1.0 : ds[kept[i]] * t;
        vm[i * k + j] = t;
        um[i * k + j] = l;
        vnorm[j] += t * t;
        unorm[j] += l * l;
      }
    for (int64_t j = 0; j < k; ++j) unorm[j] = 1 / std::sqrt(unorm[j]), vnorm[j] = 1 / std::sqrt(vnorm[j]);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) um[i * k + j] *= unorm[j], vm[i * k + j] *= vnorm[j];
    int64_t* cols = scratch.Get<int64_t>(k);
    for (int64_t j = 0; j < k; ++j) {
      cols[j] = lo + kept[j];
      s_[lo + kept[j]] = std::sqrt(lambda[j]) * scale;
    }
    const auto multiply = single_ ? &MultiplyColumns<float> : &MultiplyColumns<double>;
    if (u_ == nullptr) {
      multiply(v_, ldv_, vrows, cols, vm, k, nullptr);
      return;
    }
    const std::pair<int64_t, int64_t> urows[3] = {{lo, km}, {km, km + 1}, {km + 1, hi}};
    const std::pair<int64_t, int64_t> vhalves[2] = {{lo, km + 1}, {km + 1, vhi}};
    uint8_t* ubits = scratch.Get<uint8_t>(k);
    uint8_t* vbits = scratch.Get<uint8_t>(k);
    for (int64_t j = 0; j < k; ++j) ubits[j] = ureach[kept[j]], vbits[j] = vreach[kept[j]];
    multiply(u_, ldu_, RowGroups(urows), cols, um, k, ubits);
    multiply(v_, ldv_, RowGroups(vhalves), cols, vm, k, vbits);
  }

  const double* d_;
  const double* e_;
  double* s_;
  double* u_;
  int64_t ldu_;
  double* v_;
  int64_t ldv_;
  bool single_;
};

// One-sided Jacobi (Hestenes) on the bidiagonal (d, e) of n rows, for small n where the divide and
// conquer's merges cost more than the whole solve: B's columns are rotated in pairs until all are
// orthogonal to working precision relative to their norms (B V = U S), then s_j = |b_j| and
// u_j = b_j / s_j; a column that is zero leaves u_j to be completed from the unit vectors
// (Gram-Schmidt, twice). u and v: n x n row-major as BidiagonalDc leaves them (u may be null:
// values alone). False when a sweep limit was reached.
bool BidiagonalJacobi(int64_t n, const double* d, const double* e, double* s, double* u, double* v) {
  Scratch scratch;
  double* c = scratch.Zeros<double>(n * n);  // B's columns, each contiguous
  double* vt = scratch.Zeros<double>(n * n);  // V's columns, each contiguous
  for (int64_t j = 0; j < n; ++j) {
    c[j * n + j] = d[j];
    if (j > 0) c[j * n + j - 1] = e[j - 1];
    vt[j * n + j] = 1;
  }
  const double tol = kEps * static_cast<double>(n);
  bool converged = false;
  for (int sweep = 0; sweep < 60 && !converged; ++sweep) {
    converged = true;
    for (int64_t p = 0; p + 1 < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double* cp = c + p * n;
        double* cq = c + q * n;
        double a = 0, b = 0, g = 0;
        for (int64_t i = 0; i < n; ++i) a += cp[i] * cp[i], b += cq[i] * cq[i], g += cp[i] * cq[i];
        if (!(std::fabs(g) > tol * std::sqrt(a * b))) continue;
        converged = false;
        const double zeta = (b - a) / (2 * g);
        const double t = std::copysign(1.0, zeta) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double cs = 1 / std::sqrt(1 + t * t), sn = cs * t;
        for (double* x : {cp, vt + p * n}) {
          double* y = x == cp ? cq : vt + q * n;
          for (int64_t i = 0; i < n; ++i) {
            const double xi = x[i], yi = y[i];
            x[i] = cs * xi - sn * yi;
            y[i] = sn * xi + cs * yi;
          }
        }
      }
  }
  for (int64_t j = 0; j < n; ++j) {
    const double norm = Norm2(c + j * n, 1, n);
    s[j] = norm > 0x1p-1000 ? norm : 0.0;  // (B is scaled to largest entry 1)
    for (int64_t i = 0; i < n; ++i) v[i * n + j] = vt[j * n + i];
  }
  if (u == nullptr) return converged;
  for (int64_t j = 0; j < n; ++j)
    if (s[j] > 0)
      for (int64_t i = 0; i < n; ++i) u[i * n + j] = c[j * n + i] / s[j];
  for (int64_t j = 0; j < n; ++j) {
    if (s[j] > 0) continue;
    // The unit vector least in the span of the columns so far, orthogonalised against them.
    double* best = scratch.Get<double>(n);
    double* x = scratch.Get<double>(n);
    double best_norm = -1;
    for (int64_t k = 0; k < n; ++k) {
      std::fill(x, x + n, 0.0);
      x[k] = 1;
      for (int pass = 0; pass < 2; ++pass)  // (columns not filled yet are zero: no-ops)
        for (int64_t o = 0; o < n; ++o) {
          double dot = 0;
          for (int64_t i = 0; i < n; ++i) dot += u[i * n + o] * x[i];
          for (int64_t i = 0; i < n; ++i) x[i] -= dot * u[i * n + o];
        }
      const double norm = Norm2(x, 1, n);
      if (norm > best_norm) best_norm = norm, std::copy(x, x + n, best);
    }
    for (int64_t i = 0; i < n; ++i) u[i * n + j] = best[i] / best_norm;
  }
  return converged;
}

// The SVD of a (m x n, m >= n): s (n, descending), and with `vectors` u (m x ucols, ucols = m or
// n) and v (n x n: V itself, not V^H). a is destroyed.
template <typename W>
int32_t SvdTall(std::vector<W>& a, int64_t m, int64_t n, bool vectors, int64_t ucols, double* s, W* u, W* v) {
  double amax = 0;
  bool finite = true;
  // (The largest of the parts' magnitudes decides the scaling: within sqrt(2) of the largest
  // modulus, without a hypot per entry.)
  constexpr double kMax = std::numeric_limits<double>::max();
  for (const W& x : a) {
    const double ar = std::fabs(RealOf(x)), ai = std::fabs(ImagOf(x));
    if (!(ar <= kMax && ai <= kMax)) finite = false;  // (NaN too; std::max would pass over one)
    else amax = std::max({amax, ar, ai});
  }
  if (!finite) {
    std::fill(s, s + n, std::numeric_limits<double>::quiet_NaN());
    return -4;
  }
  const int scale_exp = ScaleToUnit(a, amax);
  std::vector<double> d(static_cast<size_t>(n)), e(static_cast<size_t>(n), 0.0);
  std::vector<W> tauq(static_cast<size_t>(n)), taup(static_cast<size_t>(n), W(0));
  Scratch scratch;
  W* pv = scratch.Zeros<W>((n - 1) * (n - 1));
  Bidiagonalize(a.data(), m, n, d.data(), e.data(), tauq.data(), taup.data(), pv);
  double bmax = 0;
  for (int64_t i = 0; i < n; ++i) bmax = std::max({bmax, std::fabs(d[i]), std::fabs(e[i])});
  if (bmax == 0) bmax = 1;
  for (int64_t i = 0; i < n; ++i) d[i] /= bmax, e[i] /= bmax;
  const double back = std::ldexp(bmax, -scale_exp);
  std::vector<double> sv(static_cast<size_t>(n));
  double* ub = vectors ? scratch.Zeros<double>(n * n) : nullptr;
  double* vb = scratch.Zeros<double>(n * n);
  if (n <= kJacobi) {
    if (!BidiagonalJacobi(n, d.data(), e.data(), sv.data(), ub, vb)) {
      std::fill(s, s + n, std::numeric_limits<double>::quiet_NaN());
      return 1;
    }
  } else {
    BidiagonalDc(d.data(), e.data(), sv.data(), ub, n, vb, n, std::is_same_v<typename IsComplex<W>::Real, float>).Solve(0, n, 0);
  }
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) { return sv[x] > sv[y]; });
  for (int64_t j = 0; j < n; ++j) s[j] = sv[perm[j]] * back;
  if (!vectors) return 0;
  // U = Q [U_B 0; 0 I], V = P V_B (P = diag(1, P1)).
  std::fill(u, u + m * ucols, W(0));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < n; ++j) u[r * ucols + j] = W(static_cast<typename IsComplex<W>::Real>(ub[r * n + perm[j]]));
  for (int64_t j = n; j < ucols; ++j) u[j * ucols + j] = W(1);
  ApplyQLeft(a.data(), n, m, n, tauq.data(), u, ucols, ucols);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < n; ++j) v[r * n + j] = W(static_cast<typename IsComplex<W>::Real>(vb[r * n + perm[j]]));
  if (n > 1) ApplyQLeft(pv, n - 1, n - 1, n - 1, taup.data(), v + n, n, n);
  return 0;
}

template <typename W>
int32_t GesddT(std::vector<W>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, W* u, W* vt) {
  const int64_t k = std::min(m, n);
  if (k == 0) {
    if (vectors && full) {
      for (int64_t i = 0; i < m; ++i) u[i * m + i] = W(1);
      for (int64_t i = 0; i < n; ++i) vt[i * n + i] = W(1);
    }
    return 0;
  }
  // A wide matrix as its conjugate transpose: A^H = U' S V'^H (tall), so u = V' and vt = U'^H.
  const bool wide = m < n;
  std::vector<W> at;
  if (wide) {
    at.resize(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) at[j * m + i] = ConjOf(a[i * n + j]);
  }
  const int64_t rows = std::max(m, n), cols = k;
  const int64_t ucols = full ? rows : cols;  // of the tall problem's U
  Scratch scratch;
  W* tall_u = wide ? scratch.Get<W>(vectors ? rows * ucols : 0) : u;
  W* tall_v = wide ? u : scratch.Get<W>(vectors ? cols * cols : 0);
  const int32_t info = SvdTall(wide ? at : a, rows, cols, vectors, ucols, s, tall_u, tall_v);
  if (vectors && info == 0) {
    // vt (vr x n) is the conjugate transpose of V (n x n) or of U' (n x ucols).
    const W* from = wide ? tall_u : tall_v;
    const int64_t vr = wide ? ucols : n;
    for (int64_t i = 0; i < vr; ++i)
      for (int64_t j = 0; j < n; ++j) vt[i * n + j] = ConjOf(from[j * vr + i]);
  }
  return info;
}

}  // namespace

int32_t Gesdd(std::vector<double>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, double* u,
              double* vt) {
  return GesddT(a, m, n, vectors, full, s, u, vt);
}
int32_t Gesdd(std::vector<cdouble>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, cdouble* u,
              cdouble* vt) {
  return GesddT(a, m, n, vectors, full, s, u, vt);
}
int32_t Gesdd(std::vector<float>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, float* u, float* vt) {
  return GesddT(a, m, n, vectors, full, s, u, vt);
}
int32_t Gesdd(std::vector<cfloat>& a, int64_t m, int64_t n, bool vectors, bool full, double* s, cfloat* u,
              cfloat* vt) {
  return GesddT(a, m, n, vectors, full, s, u, vt);
}

}  // namespace openpjrt::cpu::lapack
