// See lapack_factor.h (Syevd). The Hermitian eigenproblem as LAPACK's syevd/heevd solves it:
// Householder reduction to a real symmetric tridiagonal T = Q^H A Q (lapack_tridiagonal.cc,
// TridiagonalizeHermitian), then T's eigenvectors by
// divide and conquer (stedc: T split in two halves plus a rank-one coupling, each half solved
// recursively, the halves' eigenvectors merged through the roots of the secular equation), and
// the vectors of A as Q times T's, one matrix product (gemm.h). Blocks of up to kLeaf rows are
// solved by implicit QL iteration. Eigenvalues alone take QL on the whole of T (O(n^2)).
// float / complex<float> matrices are reduced and their vectors back-transformed in single
// precision (as ssyevd / cheevd). T's eigenproblem is solved in double (the secular equations,
// the vectors' weights, the leaves, deflation at double's tolerance), but for single-precision
// matrices the merges multiply the halves' vectors by the merged ones in single precision, as
// sstedc / cstedc do: those products are most of the divide and conquer's arithmetic (a 512 x 512
// ssyevd at one thread: 18.5 -> 15.8 ms, the products in double had run at Eigen's peak). The
// eigenvalues' errors are what they were with double products, and residuals and orthogonality
// stay below XLA:CPU's ssyevd's or near them (random, clustered, graded, rank-one, tridiagonal
// spectra of 64..512); deflating at single's tolerance too, as LAPACK does, saved 0.3 ms more
// but made graded spectra's eigenvalue errors 4x larger.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "src/cpu/exec/array.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/blas/sgemm.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/lapack/lapack_factor.h"


namespace openpjrt::cpu::lapack {
namespace {

// For i < m: t = z[i] / (rel[i] - tau); sums[0] += z[i] t and sums[1] += t^2 (eight lanes).
[[gnu::always_inline]] inline void SecularSums(const double* z, const double* rel, double tau, int64_t m,
                                               double* sums) {
  double s[8] = {}, q[8] = {};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8)
    for (int l = 0; l < 8; ++l) {
      const double t = z[i + l] / (rel[i + l] - tau);
      s[l] += z[i + l] * t;
      q[l] += t * t;
    }
  for (; i < m; ++i) {
    const double t = z[i] / (rel[i] - tau);
    s[0] += z[i] * t;
    q[0] += t * t;
  }
  double ss = 0, qq = 0;
  for (int l = 0; l < 8; ++l) ss += s[l], qq += q[l];
  sums[0] = ss;
  sums[1] = qq;
}
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
// SecularSums on AVX-512 with each 1 / (rel[i] - tau) as the 14-bit reciprocal estimate refined
// by two Newton steps (relative error below 2^-53 before the last rounding, within an ulp of the
// quotient) instead of a division: the eigensolvers' secular equations spent a fifth of eigh's
// and svd's time dividing (vdivpd's throughput is ~16 cycles per eight quotients, the refinement
// four fused multiply-adds). The sums themselves are formed as SecularSums forms them.
OPJ_TARGET_512 void SecularSums512(const double* z, const double* rel, double tau, int64_t m, double* sums) {
  const __m512d vtau = _mm512_set1_pd(tau), one = _mm512_set1_pd(1.0);
  __m512d s = _mm512_setzero_pd(), q = _mm512_setzero_pd();
  for (int64_t i = 0; i < m; i += 8) {
    const __mmask8 k = m - i >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (m - i)) - 1);
    const __m512d zi = _mm512_maskz_loadu_pd(k, z + i);
    // Lanes past the end divide 1 by 1 (and add zero terms).
    const __m512d den = _mm512_mask_sub_pd(one, k, _mm512_maskz_loadu_pd(k, rel + i), vtau);
    __m512d r = _mm512_rcp14_pd(den);
    r = _mm512_fmadd_pd(r, _mm512_fnmadd_pd(den, r, one), r);
    r = _mm512_fmadd_pd(r, _mm512_fnmadd_pd(den, r, one), r);
    const __m512d t = _mm512_mul_pd(zi, r);
    s = _mm512_fmadd_pd(zi, t, s);
    q = _mm512_fmadd_pd(t, t, q);
  }
  sums[0] = _mm512_reduce_add_pd(s);
  sums[1] = _mm512_reduce_add_pd(q);
}
#endif

// The sums of SecularSums by the fastest form for this CPU.
using SecularSumsFn = void (*)(const double*, const double*, double, int64_t, double*);
SecularSumsFn SecularSumsForCpu() {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  if (IsaLevel() >= 2) return &SecularSums512;
#endif
  return ForCpu<&SecularSums>();
}

// The product over j < m of -delta[j] / (d[j] - di), in eight lanes (Gu and Eisenstat's weights).
[[gnu::always_inline]] inline void RatioProduct(const double* delta, const double* d, double di, int64_t m,
                                                double* product) {
  double p[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  int64_t j = 0;
  for (; j + 8 <= m; j += 8)
    for (int l = 0; l < 8; ++l) p[l] *= -delta[j + l] / (d[j + l] - di);
  for (; j < m; ++j) p[0] *= -delta[j] / (d[j] - di);
  double all = 1;
  for (int l = 0; l < 8; ++l) all *= p[l];
  *product = all;
}
// u[j] = z / delta[j], norm[j] += u[j]^2 for j < m (one row of the merged eigenvectors).
[[gnu::always_inline]] inline void ScaledReciprocals(double* u, const double* delta, double z, double* norm,
                                                     int64_t m) {
  for (int64_t j = 0; j < m; ++j) {
    const double v = z / delta[j];
    u[j] = v;
    norm[j] += v * v;
  }
}
[[gnu::always_inline]] inline void ScaleRow(double* u, const double* s, int64_t m) {
  for (int64_t j = 0; j < m; ++j) u[j] *= s[j];
}
// The plane rotation (x, y) := (c x - s y, s x + c y), elementwise over m.
[[gnu::always_inline]] inline void Rotate(double* x, double* y, double c, double s, int64_t m) {
  for (int64_t i = 0; i < m; ++i) {
    const double xi = x[i], yi = y[i];
    x[i] = c * xi - s * yi;
    y[i] = s * xi + c * yi;
  }
}

constexpr double kEps = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff
constexpr int64_t kLeaf = 32;

}  // namespace

// Eigenvalues (ascending, into d) and, when z is set, eigenvectors of the m x m symmetric
// tridiagonal with diagonal d and off-diagonal e[0..m-1) (e is destroyed), by implicit QL with
// Wilkinson's shift. z (row stride ldz) must hold the identity (or the matrix whose columns are
// to be rotated along: the vectors come out as z times T's eigenvectors). A coupling is
// negligible below eps times its two diagonal entries or below eps times `norm` (the whole
// tridiagonal's size: Householder's reduction has made errors of that order already, and a
// purely relative test never settles blocks whose entries are all rounding noise beside a large
// eigenvalue). False when an eigenvalue took more than 30 sweeps.
// (Placed on a 64-byte boundary: its loops' alignment otherwise followed whatever code the
// linker put before it, and an unrelated change to lapack_factor.cc made JAX's 64 x 64 eigh 6%
// slower.)
[[gnu::aligned(64)]] bool TridiagonalQl(int64_t m, double* d, double* e, double* z, int64_t ldz, int64_t zrows, double norm) {
  if (m == 0) return true;
  std::vector<double> off(static_cast<size_t>(m), 0.0);
  for (int64_t i = 0; i + 1 < m; ++i) off[i] = e[i];
  // z's columns as contiguous rows while rotating.
  static const auto rotate = ForCpu<&Rotate>();
  std::vector<double> zt(z != nullptr ? static_cast<size_t>(m * zrows) : 0);
  if (z != nullptr)
    for (int64_t row = 0; row < zrows; ++row)
      for (int64_t col = 0; col < m; ++col) zt[col * zrows + row] = z[row * ldz + col];
  for (int64_t l = 0; l < m; ++l) {
    for (int sweeps = 0;; ++sweeps) {
      int64_t k = l;
      // The first negligible coupling at or after l ends the unreduced block.
      for (; k + 1 < m; ++k) {
        const double scale = std::fabs(d[k]) + std::fabs(d[k + 1]);
        if (std::fabs(off[k]) <= kEps * std::max(scale, norm)) break;
      }
      if (k == l) break;
      if (sweeps == 30) return false;
      // Shift: the eigenvalue of the leading 2 x 2 closer to d[l].
      double g = (d[l + 1] - d[l]) / (2 * off[l]);
      double r = Hypot(g, 1.0);
      g = d[k] - d[l] + off[l] / (g + std::copysign(r, g));
      double s = 1, c = 1, p = 0;
      bool restart = false;
      for (int64_t i = k - 1; i >= l; --i) {
        const double f = s * off[i], b = c * off[i];
        r = Hypot(f, g);
        off[i + 1] = r;
        if (r == 0) {  // the rotation underflowed: the block split here
          d[i + 1] -= p;
          off[k] = 0;
          restart = true;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + 2 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        if (z != nullptr) rotate(&zt[i * zrows], &zt[(i + 1) * zrows], c, s, zrows);
      }
      if (restart) continue;
      d[l] -= p;
      off[l] = g;
      off[k] = 0;
    }
  }
  // Ascending order, columns of z along.
  for (int64_t i = 0; i + 1 < m; ++i) {
    int64_t best = i;
    for (int64_t j = i + 1; j < m; ++j)
      if (d[j] < d[best]) best = j;
    if (best == i) continue;
    std::swap(d[i], d[best]);
    if (z != nullptr) std::swap_ranges(&zt[i * zrows], &zt[(i + 1) * zrows], &zt[best * zrows]);
  }
  if (z != nullptr)
    for (int64_t row = 0; row < zrows; ++row)
      for (int64_t col = 0; col < m; ++col) z[row * ldz + col] = zt[col * zrows + row];
  return true;
}

// The k roots of the secular equation 1/rho + sum_i z_i^2 / (d_i - x) = 0 (d strictly increasing,
// rho > 0): root j lies in (d_j, d_j+1) (the last in (d_k-1, d_k-1 + rho |z|^2]). Each root is
// found as an offset tau from the nearer pole, so that every difference d_i - lambda_j
// (delta[i * k + j]) is accurate to working precision however close the root is to a pole:
// the merged eigenvectors are built from these differences. Iteration: the two nearest poles'
// rational model fitted to the function's value and slope (as in LAPACK's laed4), safeguarded by
// a bracket that bisection falls back to.
void SecularRoots(int64_t k, const double* d, const double* z, double rho, double* lambda, double* delta,
                  int64_t j0, int64_t j1) {
  static const SecularSumsFn sums = SecularSumsForCpu();
  std::vector<double> rel(static_cast<size_t>(k));
  double zz = 0;
  for (int64_t i = 0; i < k; ++i) zz += z[i] * z[i];
  if (j1 < 0) j1 = k;
  // Each root's nearer pole and offset: delta's rows are made from them at the end.
  std::vector<double> pole(static_cast<size_t>(j1 - j0)), offset(static_cast<size_t>(j1 - j0));
  for (int64_t j = j0; j < j1; ++j) {
    int64_t origin = j;
    double lo = 0, hi = rho * zz * (1 + 4 * kEps);
    double tau;
    // The sums at the first iterate when they are known already (the midpoint's).
    double first_left[2], first_right[2];
    bool have_first = false;
    if (j + 1 < k) {
      // The midpoint of the gap decides which pole is nearer the root, and is the first iterate:
      // its sums, split as the iteration splits them, serve its first step (one pass over the
      // poles fewer per root; the iterate had started at the middle of the nearer half).
      const double mid = 0.5 * (d[j] + d[j + 1]);
      for (int64_t i = 0; i < k; ++i) rel[i] = d[i] - mid;
      sums(z, rel.data(), 0.0, j + 1, first_left);
      sums(z + j + 1, rel.data() + j + 1, 0.0, k - j - 1, first_right);
      const double f = 1 / rho + first_left[0] + first_right[0];
      if (f >= 0) {
        hi = mid - d[j];
        tau = hi;
      } else {
        origin = j + 1;
        lo = mid - d[j + 1];
        hi = 0;
        tau = lo;
      }
      have_first = true;
    } else {
      tau = 0.5 * (lo + hi);
    }
    for (int64_t i = 0; i < k; ++i) rel[i] = d[i] - d[origin];
    for (int iter = 0; iter < 200; ++iter) {
      double left[2], right[2];
      if (have_first) {
        left[0] = first_left[0], left[1] = first_left[1], right[0] = first_right[0], right[1] = first_right[1];
        have_first = false;
      } else {
        sums(z, rel.data(), tau, j + 1, left);
        sums(z + j + 1, rel.data() + j + 1, tau, k - j - 1, right);
      }
      const double psi = left[0], dpsi = left[1], phi = right[0], dphi = right[1];
      const double f = 1 / rho + psi + phi;
      if (f == 0) break;
      (f < 0 ? lo : hi) = tau;
      const double bound = kEps * (8 * (phi - psi + 1 / rho) + std::fabs(tau) * (dpsi + dphi));
      if (std::fabs(f) <= bound) break;
      // The model c + s / (da - u) + S / (db - u) through f and its slope at tau, its root u.
      const double da = rel[j] - tau;
      const double s = dpsi * da * da;
      double next = std::numeric_limits<double>::quiet_NaN();
      auto inside = [&](double x) { return x > lo && x < hi; };
      if (j + 1 < k) {
        const double db = rel[j + 1] - tau;
        const double big_s = dphi * db * db;
        const double c = f - dpsi * da - dphi * db;
        const double b = c * (da + db) + s + big_s;
        const double prod = f * da * db;
        const double disc = b * b - 4 * c * prod;
        if (disc >= 0) {
          const double q = 0.5 * (b + std::copysign(std::sqrt(disc), b));
          const double u1 = c != 0 ? q / c : std::numeric_limits<double>::quiet_NaN();
          const double u2 = q != 0 ? prod / q : std::numeric_limits<double>::quiet_NaN();
          const bool in1 = inside(tau + u1), in2 = inside(tau + u2);
          if (in1 && in2) next = std::fabs(u1) < std::fabs(u2) ? tau + u1 : tau + u2;
          else if (in1) next = tau + u1;
          else if (in2) next = tau + u2;
        }
      } else {
        const double c = f - dpsi * da;
        if (c != 0) next = tau + da + s / c;
      }
      if (!inside(next)) {
        next = 0.5 * (lo + hi);
      } else if (std::fabs(next - tau) <= 1e-10 * std::fabs(next)) {
        // A model step within a few units of the last place: the iteration converges
        // quadratically, so the step's own error is far below that, and evaluating the function
        // once more only to see it small (a fifth of the evaluations) is skipped.
        tau = next;
        break;
      }
      if (next == tau || !(hi > lo)) break;
      tau = next;
    }
    lambda[j] = d[origin] + tau;
    pole[j - j0] = d[origin];
    offset[j - j0] = tau;
  }
  // delta[i][j] = rel[i] - tau as root j's iteration had it, (d_i - d_origin) - tau, made row
  // by row (contiguous and vectorised; stored down delta's columns root after root, or as rows
  // transposed by blocks, had been a sixth of the roots' time at k = 512).
  for (int64_t i = 0; i < k; ++i) {
    const double di = d[i];
    double* out = delta + i * k + j0;
    for (int64_t j = 0; j < j1 - j0; ++j) out[j] = (di - pole[j]) - offset[j];
  }
}

// Gu and Eisenstat: the z for which the computed roots are exact (lapack_factor.h).
void SecularWeights(int64_t k, const double* d, const double* delta, double rho, double* z, int64_t i0,
                    int64_t i1) {
  static const auto ratio_product = ForCpu<&RatioProduct>();
  if (i1 < 0) i1 = k;
  for (int64_t i = i0; i < i1; ++i) {
    const double* drow = delta + i * k;
    double below = 1, above = 1;
    ratio_product(drow, d, d[i], i, &below);
    ratio_product(drow + i + 1, d + i + 1, d[i], k - i - 1, &above);
    const double w = -drow[i] / rho * below * above;
    z[i] = std::copysign(std::sqrt(std::max(w, 0.0)), z[i]);
  }
}

namespace {

// Divide and conquer on rows/columns [lo, hi) of the tridiagonal (d, e) with eigenvectors in the
// same diagonal block of z (row stride ldz; the rest of the block's rows and columns are zero).
// The tridiagonal is scaled to largest entry 1 (deflation tolerances are absolute).
// With `parallel`, the two halves of the whole are solved at once, and the last merge's roots,
// weights, vectors and products are cut into pieces (each piece computed as it would be alone).
class TridiagonalDc {
 public:
  // single: the merges' products in single precision (the vectors of a float / complex<float> matrix).
  TridiagonalDc(double* d, double* e, double* z, int64_t ldz, bool single, const LapackFor* parallel = nullptr)
      : d_(d), e_(e), z_(z), ldz_(ldz), single_(single), parallel_(parallel) {}

  bool Solve(int64_t lo, int64_t hi) { return SolveAt(lo, hi, parallel_); }

 private:
  // Blocks at least this long are worth the threads (a 256 x 256 eigh's halves take ~0.5 ms).
  static constexpr int64_t kParallelRows = 128;

  bool SolveAt(int64_t lo, int64_t hi, const LapackFor* parallel) {
    const int64_t m = hi - lo;
    if (m <= kLeaf) {
      for (int64_t i = 0; i < m; ++i) z_[(lo + i) * ldz_ + lo + i] = 1;
      return TridiagonalQl(m, d_ + lo, e_ + lo, z_ + lo * ldz_ + lo, ldz_, m, 1.0);
    }
    const int64_t mid = lo + m / 2;
    // T = diag(T1', T2') + rho v v^T, v = e_(mid-1) + sign e_mid: the coupling taken out of both
    // halves' touching diagonal entries.
    const double beta = e_[mid - 1];
    const double rho = std::fabs(beta);
    d_[mid - 1] -= rho;
    d_[mid] -= rho;
    if (!parallel || m < kParallelRows) parallel = nullptr;
    if (parallel) {
      // (The halves touch disjoint parts of d, e and z.)
      bool ok[2] = {false, false};
      (*parallel)(2, [&](int64_t h) { ok[h] = h == 0 ? SolveAt(lo, mid, nullptr) : SolveAt(mid, hi, nullptr); });
      if (!ok[0] || !ok[1]) return false;
    } else if (!SolveAt(lo, mid, nullptr) || !SolveAt(mid, hi, nullptr)) {
      return false;
    }
    Merge(lo, mid, hi, beta, parallel);
    return true;
  }

  double& Z(int64_t r, int64_t c) { return z_[r * ldz_ + c]; }

  // fn(p0, p1) over [0, n): in `pieces` parts through `parallel`, or whole.
  static void Pieces(const LapackFor* parallel, int64_t n, int64_t pieces,
                     const std::function<void(int64_t, int64_t)>& fn) {
    if (!parallel || n < 2 * pieces) return fn(0, n);
    (*parallel)(pieces, [&](int64_t p) { fn(n * p / pieces, n * (p + 1) / pieces); });
  }

  void Merge(int64_t lo, int64_t mid, int64_t hi, double beta, const LapackFor* parallel) {
    const int64_t m = hi - lo;
    // z = Q^T v: the last row of the first half's vectors, the first row of the second's (signed
    // by beta); |v| = sqrt(2) is folded into rho.
    std::vector<double> zv(static_cast<size_t>(m));
    const double sign = beta < 0 ? -1.0 : 1.0;
    for (int64_t c = lo; c < mid; ++c) zv[c - lo] = Z(mid - 1, c) * M_SQRT1_2;
    for (int64_t c = mid; c < hi; ++c) zv[c - lo] = sign * Z(mid, c) * M_SQRT1_2;
    const double rho = 2 * std::fabs(beta);
    // Columns by increasing d (each half is already sorted).
    std::vector<int64_t> order(static_cast<size_t>(m));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return d_[lo + a] < d_[lo + b]; });
    // Deflation (LAPACK's laed2): a negligible z component leaves its d and column as an
    // eigenpair; two d's too close to tell apart are rotated so that one of them takes all of
    // their z.
    double dmax = 0, zmax = 0;
    for (int64_t i = 0; i < m; ++i) {
      dmax = std::max(dmax, std::fabs(d_[lo + i]));
      zmax = std::max(zmax, std::fabs(zv[i]));
    }
    const double tol = 8 * kEps * 2 * std::max(dmax, zmax);
    std::vector<int64_t> kept, deflated;
    kept.reserve(static_cast<size_t>(m));
    // Which halves' rows each column reaches (bit 0 the first, bit 1 the second): its own half's
    // (Q = diag(Q1, Q2)), and both once a deflating rotation has mixed it with the other's.
    std::vector<uint8_t> reach(static_cast<size_t>(m));
    for (int64_t c = 0; c < m; ++c) reach[c] = c < mid - lo ? 1 : 2;
    for (int64_t idx : order) {
      if (rho * std::fabs(zv[idx]) <= tol) {
        deflated.push_back(idx);
        continue;
      }
      if (!kept.empty()) {
        const int64_t p = kept.back();
        const double tz = Hypot(zv[p], zv[idx]);
        const double c = zv[idx] / tz, s = zv[p] / tz;
        double& dp = d_[lo + p];
        double& dj = d_[lo + idx];
        if (std::fabs((dj - dp) * c * s) <= tol) {
          // Rotate columns p and idx: p's z becomes 0 (deflated), idx's becomes tz.
          for (int64_t r = lo; r < hi; ++r) {
            const double qp = Z(r, lo + p), qj = Z(r, lo + idx);
            Z(r, lo + p) = c * qp - s * qj;
            Z(r, lo + idx) = s * qp + c * qj;
          }
          const double np = dp * c * c + dj * s * s, nj = dp * s * s + dj * c * c;
          dp = np;
          dj = nj;
          zv[p] = 0;
          zv[idx] = tz;
          reach[p] = reach[idx] = reach[p] | reach[idx];
          kept.back() = idx;
          deflated.push_back(p);
          continue;
        }
      }
      kept.push_back(idx);
    }
    const int64_t k = static_cast<int64_t>(kept.size());
    std::vector<double> dk(static_cast<size_t>(k)), zk(static_cast<size_t>(k)), lambda(static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) {
      dk[i] = d_[lo + kept[i]];
      zk[i] = zv[kept[i]];
    }
    // The kept d's are strictly increasing, as the secular solver needs: neighbours closer than
    // tol were rotated together, and a rotation leaves d within its pair's range.
    Array holders[5];
    double* u = AllocateScratch<double>(k * k, &holders[0]);
    if (k > 0) {
      double* delta = AllocateScratch<double>(k * k, &holders[1]);
      // (Roots differ in their iterations: more pieces than threads even out their shares.)
      Pieces(parallel, k, 8, [&](int64_t j0, int64_t j1) {
        SecularRoots(k, dk.data(), zk.data(), rho, lambda.data(), delta, j0, j1);
      });
      // Gu and Eisenstat: the z for which the computed roots are exact, then the vectors from it
      // (orthogonal to working precision however close the roots); by columns of u.
      static const auto reciprocals = ForCpu<&ScaledReciprocals>();
      static const auto scale_row = ForCpu<&ScaleRow>();
      Pieces(parallel, k, 2, [&](int64_t i0, int64_t i1) {
        SecularWeights(k, dk.data(), delta, rho, zk.data(), i0, i1);
      });
      std::vector<double> norm(static_cast<size_t>(k), 0.0);
      Pieces(parallel, k, 2, [&](int64_t j0, int64_t j1) {
        for (int64_t i = 0; i < k; ++i) reciprocals(u + i * k + j0, delta + i * k + j0, zk[i], &norm[j0], j1 - j0);
        for (int64_t j = j0; j < j1; ++j) norm[j] = 1 / std::sqrt(norm[j]);
        for (int64_t i = 0; i < k; ++i) scale_row(u + i * k + j0, &norm[j0], j1 - j0);
      });
    }
    // New vectors: kept columns times u (Product), deflated columns as they are; then all in
    // ascending order of their eigenvalue.
    const int64_t m1 = mid - lo;
    double* prod = single_ ? nullptr : AllocateScratch<double>(m * k, &holders[2]);
    float* prod32 = single_ ? AllocateScratch<float>(m * k, &holders[2]) : nullptr;
    if (k > 0) {
      if (single_) Product<float>(lo, m, m1, k, kept, reach, u, prod32, holders + 3, parallel);
      else Product<double>(lo, m, m1, k, kept, reach, u, prod, holders + 3, parallel);
    }
    std::sort(deflated.begin(), deflated.end(), [&](int64_t a, int64_t b) { return d_[lo + a] < d_[lo + b]; });
    const int64_t nd = static_cast<int64_t>(deflated.size());
    std::vector<double> dd(static_cast<size_t>(nd));
    for (int64_t j = 0; j < nd; ++j) dd[j] = d_[lo + deflated[j]];
    // Where each output column comes from: kept (index into prod) or deflated (a column of Z).
    std::vector<int64_t> from(static_cast<size_t>(m));
    std::vector<bool> is_kept(static_cast<size_t>(m));
    int64_t a = 0, b = 0;
    for (int64_t out = 0; out < m; ++out) {
      const bool take_kept = b >= nd || (a < k && lambda[a] <= dd[b]);
      is_kept[out] = take_kept;
      if (take_kept) {
        d_[lo + out] = lambda[a];
        from[out] = a++;
      } else {
        d_[lo + out] = dd[b];
        from[out] = deflated[b++];
      }
    }
    std::vector<double> row(static_cast<size_t>(m));
    for (int64_t r = 0; r < m; ++r) {
      double* zr = &Z(lo + r, lo);
      for (int64_t out = 0; out < m; ++out)
        row[out] = !is_kept[out] ? zr[from[out]] : single_ ? prod32[r * k + from[out]] : prod[r * k + from[out]];
      std::memcpy(zr, row.data(), sizeof(double) * m);
    }
  }

  // prod (m x k) = the merged block's kept columns of Z times u (k x k), in precision P. A kept
  // column that was never rotated with the other half is zero in that half's rows (Q =
  // diag(Q1, Q2)): the rows of each half take the product with only the columns that reach them
  // (about half the work of one product over all), known from `reach` (looking for a nonzero
  // down each column of Z had been a third of the merges' time). holders: two for the parts.
  template <typename P>
  void Product(int64_t lo, int64_t m, int64_t m1, int64_t k, const std::vector<int64_t>& kept,
               const std::vector<uint8_t>& reach, const double* u, P* prod, Array* holders,
               const LapackFor* parallel) {
    // (Each half its own room: with `parallel` the two products run at once.)
    const int64_t qrows = std::max(m1, m - m1);
    P* qparts = AllocateScratch<P>(2 * qrows * k, &holders[0]);
    P* uparts = AllocateScratch<P>(2 * k * k, &holders[1]);
    auto product = [&](int64_t half) {
      P* qpart = qparts + half * qrows * k;
      P* upart = uparts + half * k * k;
      const int64_t r0 = half == 0 ? 0 : m1, rows = half == 0 ? m1 : m - m1;
      std::vector<int64_t> cols;
      for (int64_t j = 0; j < k; ++j)
        if (reach[kept[j]] & (1 << half)) cols.push_back(j);
      const int64_t kc = static_cast<int64_t>(cols.size());
      if (kc == 0) {
        std::fill(prod + r0 * k, prod + (r0 + rows) * k, P(0));
        return;
      }
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < kc; ++c) qpart[r * kc + c] = static_cast<P>(Z(lo + r0 + r, lo + kept[cols[c]]));
      for (int64_t c = 0; c < kc; ++c) std::copy_n(u + cols[c] * k, k, upart + c * k);
      GemmOf<P>()(qpart, kc, upart, k, prod + r0 * k, k, rows, kc, k);
    };
    if (parallel) (*parallel)(2, product);
    else product(0), product(1);
  }

  double* d_;
  double* e_;
  double* z_;
  int64_t ldz_;
  bool single_;
  const LapackFor* parallel_;
};

template <typename W>
int32_t SyevdT(std::vector<W>& a, int64_t n, bool lower, bool vectors, double* w, const LapackFor* parallel) {
  if (n == 0) return 0;
  // The whole Hermitian matrix from the stored triangle (the diagonal's imaginary parts ignored),
  // scaled by a power of two when its entries are near overflow or underflow. The size that
  // decides the scaling is the largest of the parts' magnitudes (within a factor sqrt(2) of the
  // largest modulus: no hypot per entry); the other triangle is filled by 32 x 32 tiles (column
  // by column down the whole matrix, the copy had been 7% of a 256 x 256 ssyevd).
  double amax = 0;
  bool finite = true;
  for (int64_t i = 0; i < n; ++i) {
    W& diag = a[i * n + i];
    diag = W(RealOf(diag));
    const int64_t j0 = lower ? 0 : i, j1 = lower ? i + 1 : n;
    for (int64_t j = j0; j < j1; ++j) {
      const W x = a[i * n + j];
      const double ar = std::fabs(RealOf(x)), ai = std::fabs(ImagOf(x));
      constexpr double kMax = std::numeric_limits<double>::max();
      if (!(ar <= kMax && ai <= kMax)) finite = false;  // (NaN too)
      else amax = std::max({amax, ar, ai});
    }
  }
  if (!finite) return 1;
  // Real matrices are reduced from the upper triangle (a lower one copied up), complex from both.
  constexpr bool kReal = !IsComplex<W>::value;
  constexpr int64_t kTile = 32;
  const bool fill_upper = lower, fill_lower = !lower && !kReal;
  for (int64_t ib = 0; ib < n && (fill_upper || fill_lower); ib += kTile)
    for (int64_t jb = 0; jb <= ib; jb += kTile)
      for (int64_t i = ib; i < std::min(n, ib + kTile); ++i)
        for (int64_t j = jb; j < std::min(i, jb + kTile); ++j) {  // (i, j) below the diagonal
          if (fill_upper) a[j * n + i] = ConjOf(a[i * n + j]);
          else a[i * n + j] = ConjOf(a[j * n + i]);
        }
  const int scale_exp = ScaleToUnit(a, amax);
  std::vector<double> e(static_cast<size_t>(n), 0.0);
  std::vector<W> tau(static_cast<size_t>(n), W(0));
  // The reduction and the back-transformation work on a copy that starts on a 64-byte boundary
  // (a's own storage, a large std::vector, starts 16 bytes past one), so that the reduction's
  // groups of 16 lanes, which end at each row's end, read and write whole cache lines when the
  // rows are a multiple of 64 bytes long.
  Array aligned_holder;
  W* at = a.data();
  if (n >= 128) {
    at = AllocateScratch<W>(n * n, &aligned_holder);
    std::copy(a.begin(), a.end(), at);
  }
  TridiagonalizeHermitian(at, n, w, e.data(), tau.data());
  if (!vectors && at != a.data()) std::copy(at, at + n * n, a.begin());  // (what a held before)
  // T scaled to largest entry 1 (stedc's scaling; its tolerances are absolute).
  double tmax = 0;
  for (int64_t i = 0; i < n; ++i) tmax = std::max({tmax, std::fabs(w[i]), std::fabs(e[i])});
  if (tmax > 0) {
    for (int64_t i = 0; i < n; ++i) w[i] /= tmax, e[i] /= tmax;
  } else {
    tmax = 1;
  }
  bool ok;
  if (!vectors) {
    ok = TridiagonalQl(n, w, e.data(), nullptr, 0, 0, 1.0);
  } else {
    // (The large temporaries from the arrays' pool: fresh pages from malloc were faulted in and
    // zeroed on every call, up to 7% of a 512 x 512 ssyevd.)
    Array z_holder;
    double* z = AllocateScratch<double>(n * n, &z_holder);
    std::fill(z, z + n * n, 0.0);
    ok = TridiagonalDc(w, e.data(), z, n, std::is_same_v<typename IsComplex<W>::Real, float>, parallel).Solve(0, n);
    if (ok) {
      // The vectors are Q z with Q = diag(1, Q1), Q1 the reflectors' product (geqrf's layout in
      // the matrix one row down): z's rows 1.. take Q1 from the left, by blocks. They are made
      // in a's storage when the reflectors are read from the aligned copy.
      std::vector<W> own;
      W* vecs = a.data();
      if (at == a.data()) {
        own.resize(a.size());
        vecs = own.data();
      }
      for (int64_t i = 0; i < n * n; ++i) vecs[i] = static_cast<typename IsComplex<W>::Real>(z[i]);
      // With threads, by columns of z when the products are ours (sgemm.h: each element summed
      // the same way whatever the cut; Eigen's blocking may depend on the width) and every
      // piece takes the blocked way as the whole would.
      constexpr int64_t kPieces = 2;
      if (parallel && std::is_same_v<W, float> && HaveFastSgemm() && (n - 1) * (n / kPieces) > 1024) {
        (*parallel)(kPieces, [&](int64_t p) {
          const int64_t c0 = n * p / kPieces, c1 = n * (p + 1) / kPieces;
          ApplyQLeft(at + n, n, n - 1, n - 1, tau.data(), vecs + n + c0, n, c1 - c0);
        });
      } else {
        ApplyQLeft(at + n, n, n - 1, n - 1, tau.data(), vecs + n, n, n);
      }
      if (!own.empty()) a = std::move(own);
    }
  }
  for (int64_t i = 0; i < n; ++i) w[i] = std::ldexp(w[i] * tmax, -scale_exp);
  return ok ? 0 : 1;
}

}  // namespace

int32_t Syevd(std::vector<double>& a, int64_t n, bool lower, bool vectors, double* w, const LapackFor* parallel) {
  return SyevdT(a, n, lower, vectors, w, parallel);
}
int32_t Syevd(std::vector<cdouble>& a, int64_t n, bool lower, bool vectors, double* w, const LapackFor* parallel) {
  return SyevdT(a, n, lower, vectors, w, parallel);
}
int32_t Syevd(std::vector<float>& a, int64_t n, bool lower, bool vectors, double* w, const LapackFor* parallel) {
  return SyevdT(a, n, lower, vectors, w, parallel);
}
int32_t Syevd(std::vector<cfloat>& a, int64_t n, bool lower, bool vectors, double* w, const LapackFor* parallel) {
  return SyevdT(a, n, lower, vectors, w, parallel);
}

}  // namespace openpjrt::cpu::lapack
