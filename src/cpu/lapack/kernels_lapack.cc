// The LAPACK routines that JAX's CPU lowering reaches through stablehlo.custom_call: getrf, geqrf,
// orgqr/ungqr, potrf, syevd/heevd, gesdd/gesvd, geev, gees, gehrd and sytrd/hetrd. They work on
// the logical matrices (the innermost two dimensions; leading dimensions are a batch), compute in
// double precision and round once into the result kind (getrf and potrf of float32 / complex64
// excepted: they work in the element's precision, as LAPACK's sgetrf / cpotrf do, their products
// through the f32 GEMM), and follow LAPACK's output conventions so that the StableHLO JAX wraps
// around the call gives the same answers: 1-based pivots, R above the diagonal with Householder
// vectors below it, the untouched triangle of a Cholesky factor kept, ascending eigenvalues,
// descending singular values, and the `info` codes JAX tests.
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "src/cpu/lapack/kernels_linalg.h"
#include "src/cpu/lapack/lapack_factor.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using namespace lapack;

// The working scalar for storage type S: double, or complex<double>.
template <typename S>
using Work = std::conditional_t<IsComplex<S>::value, std::complex<double>, double>;

template <typename S>
std::vector<Work<S>> Load(const Array& a, int64_t offset, int64_t count) {
  const S* p = a.as<S>() + offset;
  std::vector<Work<S>> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<Work<S>>(p[i]);
  return v;
}

// The matrices as stored (float32 / complex64 routines that work in their own precision).
template <typename S>
std::vector<S> LoadNative(const Array& a, int64_t offset, int64_t count) {
  const S* p = a.as<S>() + offset;
  return std::vector<S>(p, p + count);
}

template <typename S, typename W>
void Store(Array& a, int64_t offset, const W* v, int64_t count) {
  S* p = a.mutable_as<S>() + offset;
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (IsComplex<S>::value) {
      using R = typename S::value_type;
      p[i] = S(static_cast<R>(RealOf(v[i])), static_cast<R>(ImagOf(v[i])));
    } else {
      p[i] = static_cast<S>(RealOf(v[i]));
    }
  }
}

// The shapes of one call: batch count and the matrix of the first operand.
struct MatrixShape {
  int64_t batch = 0, m = 0, n = 0;
};
MatrixShape ShapeOf(const Array& a) {
  const auto& d = a.dims();
  MatrixShape s;
  s.m = d[d.size() - 2];
  s.n = d.back();
  s.batch = 1;
  for (size_t i = 0; i + 2 < d.size(); ++i) s.batch *= d[i];
  return s;
}

template <typename W>
using Mat = Eigen::Matrix<W, Eigen::Dynamic, Eigen::Dynamic>;

template <typename W>
Mat<W> ToMat(const std::vector<W>& a, int64_t m, int64_t n) {
  Mat<W> x(m, n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) x(i, j) = a[i * n + j];
  return x;
}

// Scales eigenvector columns to unit 2-norm with their largest component real and positive (LAPACK
// scales to unit norm with the largest component real; vectors of real eigenvalues of real
// matrices stay real, only their norm changes).
void NormalizeColumns(Eigen::MatrixXcd& v, bool keep_real) {
  for (Eigen::Index j = 0; j < v.cols(); ++j) {
    double norm = v.col(j).norm();
    if (!(norm > 0)) continue;
    v.col(j) /= norm;
    bool real = keep_real;
    for (Eigen::Index i = 0; real && i < v.rows(); ++i) real = v(i, j).imag() == 0;
    if (real) continue;
    Eigen::Index k = 0;
    for (Eigen::Index i = 1; i < v.rows(); ++i)
      if (std::norm(v(i, j)) > std::norm(v(k, j))) k = i;
    v.col(j) *= std::conj(v(k, j)) / std::abs(v(k, j));
    v(k, j) = std::abs(v(k, j));
  }
}

// General eigenproblem (geev): eigenvalues in the order of the Schur form (conjugate pairs
// together, positive imaginary part first), right eigenvectors A v = w v and left eigenvectors
// u^H A = w u^H. Returns info: 0, 1 when the iteration failed, -4 for non-finite input (as JAX).
template <typename S>
int32_t Geev(const std::vector<Work<S>>& a, int64_t n, bool left, bool right, Eigen::VectorXcd& w,
             Eigen::MatrixXcd& vl, Eigen::MatrixXcd& vr) {
  for (const auto& v : a)
    if (!std::isfinite(RealOf(v)) || !std::isfinite(ImagOf(v))) return -4;
  Eigen::MatrixXcd vecs;
  if constexpr (IsComplex<S>::value) {
    Eigen::ComplexEigenSolver<Eigen::MatrixXcd> es(ToMat(a, n, n), left || right);
    if (es.info() != Eigen::Success) return 1;
    w = es.eigenvalues();
    if (left || right) vecs = es.eigenvectors();
  } else {
    Eigen::EigenSolver<Eigen::MatrixXd> es(ToMat(a, n, n), left || right);
    if (es.info() != Eigen::Success) return 1;
    w = es.eigenvalues();
    if (left || right) vecs = es.eigenvectors();
  }
  if (right) {
    vr = vecs;
    NormalizeColumns(vr, !IsComplex<S>::value);
  }
  if (left) {
    // The rows of V^-1 are the left eigenvectors (conjugated): V^-1 A = diag(w) V^-1.
    vl = vecs.inverse().adjoint();
    NormalizeColumns(vl, !IsComplex<S>::value);
  }
  return 0;
}

// Puts a 2x2 block [a b; c d] of a real Schur form into LAPACK's standard form (lanv2): either
// upper triangular (real eigenvalues) or with a == d and b*c < 0 (a complex pair a +- i
// sqrt(-b c)). Returns the rotation [cs sn; -sn cs] that was applied (block' = R block R^T).
void StandardizeBlock(double& a, double& b, double& c, double& d, double& cs, double& sn) {
  cs = 1, sn = 0;
  if (c == 0) return;
  if (b == 0) {  // swap the two rows and columns
    cs = 0, sn = 1;
    std::swap(a, d);
    b = -c;
    c = 0;
    return;
  }
  if (a - d == 0 && std::signbit(b) != std::signbit(c)) return;
  const double eps = std::numeric_limits<double>::epsilon();
  const double temp = a - d;
  double p = 0.5 * temp;
  const double bcmax = std::max(std::fabs(b), std::fabs(c));
  const double bcmis = std::min(std::fabs(b), std::fabs(c)) * std::copysign(1.0, b) * std::copysign(1.0, c);
  const double scale = std::max(std::fabs(p), bcmax);
  double z = p / scale * p + bcmax / scale * bcmis;
  if (z >= 4 * eps) {  // real eigenvalues: make the block upper triangular
    z = p + std::copysign(std::sqrt(scale) * std::sqrt(z), p);
    a = d + z;
    d = d - bcmax / z * bcmis;
    const double tau = std::hypot(c, z);
    cs = z / tau;
    sn = c / tau;
    b = b - c;
    c = 0;
    return;
  }
  // Complex or nearly equal eigenvalues: make the diagonal entries equal.
  const double sigma = b + c;
  const double tau = std::hypot(sigma, temp);
  cs = std::sqrt(0.5 * (1 + std::fabs(sigma) / tau));
  sn = -(p / (tau * cs)) * std::copysign(1.0, sigma);
  // [aa bb; cc dd] = [a b; c d] [cs -sn; sn cs], then [a b; c d] = [cs sn; -sn cs] [aa bb; cc dd].
  const double aa = a * cs + b * sn, bb = -a * sn + b * cs, cc = c * cs + d * sn, dd = -c * sn + d * cs;
  a = aa * cs + cc * sn;
  b = bb * cs + dd * sn;
  c = -aa * sn + cc * cs;
  d = -bb * sn + dd * cs;
  const double mid = 0.5 * (a + d);
  a = d = mid;
  if (c != 0 && b != 0 && std::signbit(b) == std::signbit(c)) {  // real after all
    const double sab = std::sqrt(std::fabs(b)), sac = std::sqrt(std::fabs(c));
    p = std::copysign(sab * sac, c);
    const double t = 1 / std::sqrt(std::fabs(b + c));
    a = mid + p;
    d = mid - p;
    b = b - c;
    c = 0;
    const double cs1 = sab * t, sn1 = sac * t;
    const double ncs = cs * cs1 - sn * sn1;
    sn = cs * sn1 + sn * cs1;
    cs = ncs;
  } else if (c != 0 && b == 0) {
    b = -c;
    c = 0;
    const double t = cs;
    cs = -sn;
    sn = t;
  }
}

// Schur decomposition (gees without eigenvalue ordering): A = Z T Z^H with Z unitary. Real input:
// T quasi upper triangular with LAPACK's standardized 2x2 blocks for complex pairs (equal
// diagonal, positive imaginary part first in w); complex input: T upper triangular. Returns info:
// 0, or 1 when the QR iteration did not converge.
template <typename W>
int32_t Gees(std::vector<W>& a, int64_t n, std::vector<W>& z, std::vector<std::complex<double>>& w) {
  Mat<W> t, q;
  if constexpr (std::is_same_v<W, double>) {
    Eigen::RealSchur<Eigen::MatrixXd> rs(ToMat(a, n, n), true);
    if (rs.info() != Eigen::Success) return 1;
    t = rs.matrixT();
    q = rs.matrixU();
    for (int64_t k = 0; k + 1 < n; ++k) {
      if (t(k + 1, k) == 0) continue;
      double cs, sn;
      StandardizeBlock(t(k, k), t(k, k + 1), t(k + 1, k), t(k + 1, k + 1), cs, sn);
      auto rot = [&](double& x, double& y) {
        const double nx = cs * x + sn * y;
        y = cs * y - sn * x;
        x = nx;
      };
      for (int64_t c = k + 2; c < n; ++c) rot(t(k, c), t(k + 1, c));
      for (int64_t r = 0; r < k; ++r) rot(t(r, k), t(r, k + 1));
      for (int64_t r = 0; r < n; ++r) rot(q(r, k), q(r, k + 1));
      ++k;  // the block's second row is done
    }
    for (int64_t k = 0; k < n; ++k) {
      if (k + 1 < n && t(k + 1, k) != 0) {
        const double im = std::sqrt(std::fabs(t(k, k + 1))) * std::sqrt(std::fabs(t(k + 1, k)));
        w[k] = {t(k, k), im};
        w[k + 1] = {t(k + 1, k + 1), -im};
        ++k;
      } else {
        w[k] = {t(k, k), 0};
      }
    }
  } else {
    Eigen::ComplexSchur<Eigen::MatrixXcd> cs(ToMat(a, n, n), true);
    if (cs.info() != Eigen::Success) return 1;
    t = cs.matrixT();
    q = cs.matrixU();
    for (int64_t k = 0; k < n; ++k) w[k] = t(k, k);
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      a[i * n + j] = j + 1 < i ? W(0) : t(i, j);  // below the first subdiagonal: exactly zero
      z[i * n + j] = q(i, j);
    }
  return 0;
}

// fn(b) for every matrix b of a batch (ForEachBatchPiece, kernels_linalg.h).
template <typename Fn>
void ForBatch(ExecState& st, int64_t batch, int64_t cost, const Fn& fn) {
  ForEachBatchPiece(st, batch, cost, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) fn(b);
  });
}

template <typename S>
void RunBatch(const Step& s, ExecState& st, const LapackParams& p, std::vector<Array>& out) {
  using W = Work<S>;
  using R = typename IsComplex<S>::Real;
  const Array& x = st.slots[s.in[p.first_operand]].array;
  const MatrixShape sh = ShapeOf(x);
  const int64_t m = sh.m, n = sh.n, mn = m * n, k = std::min(m, n);
  // Work per matrix, in multiply-adds: what decides whether the batch is spread over threads.
  const int64_t cost = std::max<int64_t>(m, 1) * std::max<int64_t>(n, 1) * std::max<int64_t>(k, 1);
  int32_t* info = nullptr;
  auto info_at = [&](size_t index) {
    if (index < out.size() && out[index].elem() == ElemKind::kI32) info = out[index].mutable_as<int32_t>();
  };
  switch (p.routine) {
    case LapackParams::kGetrf: {
      info_at(2);
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        std::vector<int32_t> piv(static_cast<size_t>(k));
        auto a = LoadNative<S>(x, b * mn, mn);  // getrf in the element's precision
        int32_t code = Getrf(a, m, n, piv.data());
        Store<S>(out[0], b * mn, a.data(), mn);
        if (out.size() > 1) std::memcpy(out[1].mutable_as<int32_t>() + b * k, piv.data(), k * 4);
        if (info) info[b] = code;
      });
      return;
    }
    case LapackParams::kGeqrf: {
      info_at(2);
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        std::vector<S> tau(static_cast<size_t>(k));
        auto a = LoadNative<S>(x, b * mn, mn);  // geqrf in the element's precision
        Geqrf(a, m, n, tau.data());
        Store<S>(out[0], b * mn, a.data(), mn);
        if (out.size() > 1) Store<S>(out[1], b * k, tau.data(), k);
        if (info) info[b] = 0;
      });
      return;
    }
    case LapackParams::kGehrd: {
      info_at(2);
      const int64_t nt = std::max<int64_t>(n - 1, 0);
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        std::vector<W> tau(static_cast<size_t>(nt + 1));
        auto a = Load<S>(x, b * mn, mn);
        Gehrd(a, n, p.ilo, p.ihi, tau.data());
        Store<S>(out[0], b * mn, a.data(), mn);
        if (out.size() > 1) Store<S>(out[1], b * nt, tau.data(), nt);
        if (info) info[b] = 0;
      });
      return;
    }
    case LapackParams::kSytrd: {
      info_at(4);
      const int64_t nt = std::max<int64_t>(n - 1, 0);
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        std::vector<W> tau(static_cast<size_t>(nt + 1));
        std::vector<double> d(static_cast<size_t>(n + 1)), e(static_cast<size_t>(nt + 1));
        auto a = Load<S>(x, b * mn, mn);
        Sytrd(a, n, p.lower, d.data(), e.data(), tau.data());
        Store<S>(out[0], b * mn, a.data(), mn);
        if (out.size() > 1) Store<R>(out[1], b * n, d.data(), n);
        if (out.size() > 2) Store<R>(out[2], b * nt, e.data(), nt);
        if (out.size() > 3) Store<S>(out[3], b * nt, tau.data(), nt);
        if (info) info[b] = 0;
      });
      return;
    }
    case LapackParams::kGees: {
      // Real: t, vs, wr, wi, sdim, info. Complex: t, vs, w, sdim, info.
      constexpr bool cplx = IsComplex<S>::value;
      info_at(cplx ? 4 : 5);
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        std::vector<W> z(static_cast<size_t>(mn));
        std::vector<std::complex<double>> w(static_cast<size_t>(n));
        auto a = Load<S>(x, b * mn, mn);
        const int32_t code = Gees(a, n, z, w);
        Store<S>(out[0], b * mn, a.data(), mn);
        if (p.vectors) Store<S>(out[1], b * mn, z.data(), mn);
        if constexpr (cplx) {
          Store<S>(out[2], b * n, w.data(), n);
        } else {
          std::vector<double> re(static_cast<size_t>(n)), im(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i) re[i] = w[i].real(), im[i] = w[i].imag();
          Store<S>(out[2], b * n, re.data(), n);
          Store<S>(out[3], b * n, im.data(), n);
        }
        // sdim (eigenvalues selected by a sort; none without one) stays 0.
        if (info) info[b] = code;
      });
      return;
    }
    case LapackParams::kOrgqr: {
      info_at(1);
      const Array& tau_in = st.slots[s.in[p.first_operand + 1]].array;
      const int64_t kt = tau_in.dims().empty() ? 0 : tau_in.dims().back();
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        auto a = LoadNative<S>(x, b * mn, mn);  // orgqr in the element's precision
        auto tau = LoadNative<S>(tau_in, b * kt, kt);
        Orgqr(a, m, n, tau.data(), kt);
        Store<S>(out[0], b * mn, a.data(), mn);
        if (info) info[b] = 0;
      });
      return;
    }
    case LapackParams::kPotrf: {
      info_at(1);
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        if (p.lower) {  // factored where the result goes (no copy of its own, no allocation)
          S* dst = out[0].mutable_as<S>() + b * mn;
          const S* src = x.as<S>() + b * mn;
          if (dst != src) std::memcpy(dst, src, sizeof(S) * static_cast<size_t>(mn));
          const int32_t code = CholeskyLowerInPlace(dst, n);
          if (info) info[b] = code;
          return;
        }
        auto a = LoadNative<S>(x, b * mn, mn);  // potrf in the element's precision
        int32_t code = Potrf(a, n, p.lower);
        Store<S>(out[0], b * mn, a.data(), mn);
        if (info) info[b] = code;
      });
      return;
    }
    case LapackParams::kSyevd: {
      info_at(2);
      // One matrix (no batch to share out) spreads its own work over the threads.
      const LapackFor threads = [&st](int64_t count, const std::function<void(int64_t)>& fn) {
        st.ParallelFor(count, fn);
      };
      const LapackFor* parallel = sh.batch == 1 && st.threads() > 1 ? &threads : nullptr;
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        auto a = LoadNative<S>(x, b * mn, mn);  // reduction and vectors in the element's precision
        std::vector<double> w(static_cast<size_t>(n));
        const int32_t code = Syevd(a, n, p.lower, p.vectors, w.data(), parallel);
        if (code != 0) std::fill(w.begin(), w.end(), std::nan(""));
        Store<S>(out[0], b * mn, a.data(), mn);
        if (out.size() > 1) Store<R>(out[1], b * n, w.data(), n);
        if (info) info[b] = code;
      });
      return;
    }
    case LapackParams::kGeev: {
      // Real: wr, wi, vl, vr, info. Complex: w, vl, vr, info. Eigenvectors are complex.
      using C = std::complex<R>;
      constexpr bool cplx = IsComplex<S>::value;
      const size_t vecs = cplx ? 1 : 2;
      info_at(vecs + 2);
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        auto a = Load<S>(x, b * mn, mn);
        Eigen::VectorXcd w = Eigen::VectorXcd::Constant(n, std::complex<double>(std::nan(""), 0));
        Eigen::MatrixXcd vl, vr;
        int32_t code = Geev<S>(a, n, p.left_vectors, p.vectors, w, vl, vr);
        std::vector<std::complex<double>> wv(w.data(), w.data() + n);
        if constexpr (cplx) {
          Store<S>(out[0], b * n, wv.data(), n);
        } else {
          std::vector<double> re(static_cast<size_t>(n)), im(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i) re[i] = wv[i].real(), im[i] = wv[i].imag();
          Store<S>(out[0], b * n, re.data(), n);
          Store<S>(out[1], b * n, im.data(), n);
        }
        auto put = [&](size_t index, const Eigen::MatrixXcd& v) {
          if (v.rows() != n || v.cols() != n) return;
          std::vector<std::complex<double>> rows(static_cast<size_t>(mn));
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) rows[i * n + j] = v(i, j);
          Store<C>(out[index], b * mn, rows.data(), mn);
        };
        if (code == 0) put(vecs, vl), put(vecs + 1, vr);
        if (info) info[b] = code;
      });
      return;
    }
    case LapackParams::kGesdd: {
      info_at(4);
      // out: a (unchanged here), s, u, vt.
      int64_t ur = 0, uc = 0, vr = 0, vc = 0;  // u and vt (checked by the compiler when computed)
      if (p.vectors) {
        const auto& ud = out[2].dims();
        const auto& vd = out[3].dims();
        ur = ud[ud.size() - 2], uc = ud.back(), vr = vd[vd.size() - 2], vc = vd.back();
      }
      ForBatch(st, sh.batch, cost, [&](int64_t b) {
        auto a = LoadNative<S>(x, b * mn, mn);  // reductions and vectors in the element's precision
        Store<S>(out[0], b * mn, a.data(), mn);
        std::vector<double> sv(static_cast<size_t>(k));
        Array holders[2];
        S* u = AllocateScratch<S>(std::max<int64_t>(ur * uc, 1), &holders[0]);
        S* vt = AllocateScratch<S>(std::max<int64_t>(vr * vc, 1), &holders[1]);
        std::fill(u, u + ur * uc, S(0));
        std::fill(vt, vt + vr * vc, S(0));
        const int32_t code = Gesdd(a, m, n, p.vectors, p.full_matrices, sv.data(), u, vt);
        Store<R>(out[1], b * k, sv.data(), k);
        if (p.vectors && code == 0) {
          Store<S>(out[2], b * ur * uc, u, ur * uc);
          Store<S>(out[3], b * vr * vc, vt, vr * vc);
        }
        if (info) info[b] = code;
      });
      return;
    }
  }
}

void Lapack(const Step& s, ExecState& st) {
  const LapackParams& p = s.Params<LapackParams>();
  std::vector<Array> out;
  for (const ArrayType& t : p.result_types) {
    Array a = Array::Allocate(t);
    std::memset(a.mutable_data(), 0, static_cast<size_t>(a.ByteSize()));
    out.push_back(std::move(a));
  }
  const Array& x = st.slots[s.in[p.first_operand]].array;
  if (x.NumElements() > 0) {
    switch (x.elem()) {
      case ElemKind::kF32: RunBatch<float>(s, st, p, out); break;
      case ElemKind::kF64: RunBatch<double>(s, st, p, out); break;
      case ElemKind::kC64: RunBatch<std::complex<float>>(s, st, p, out); break;
      case ElemKind::kC128: RunBatch<std::complex<double>>(s, st, p, out); break;
      default:
        st.Fail(s, absl::InvalidArgumentError(StrCat("LAPACK call on ", x.type().ToString())));
        return;
    }
  }
  if (p.tuple_result) {
    RtValue t;
    t.kind = RtValue::Kind::kTuple;
    for (Array& a : out) t.tuple.push_back(RtValue::Of(std::move(a)));
    st.slots[s.out[0]] = std::move(t);
    return;
  }
  for (size_t i = 0; i < out.size() && i < s.out.size(); ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
}

// gtsv: solves the tridiagonal systems A X = B by Gaussian elimination with partial pivoting,
// in the element type and in LAPACK's order of operations (?gtsv), so results match the LAPACK
// JAX calls. dl[0] and du[m-1] are not part of A (JAX's convention); on exit dl[1..] holds the
// second superdiagonal of U, d and du its diagonal and superdiagonal, b the solution; info is
// the 1-based index of the first zero pivot (the solution is then incomplete).
template <typename S>
int32_t GtsvOne(int64_t n, int64_t nrhs, S* dl1, S* d, S* du, S* b) {
  // LAPACK's 1-based arrays: DL(i) = dl1[i - 1] (the caller passes dl + 1), D(i) = d[i - 1],
  // DU(i) = du[i - 1], B(i, j) = b[(i - 1) * nrhs + (j - 1)] (b is row-major here).
  auto B = [&](int64_t i, int64_t j) -> S& { return b[(i - 1) * nrhs + (j - 1)]; };
  auto DL = [&](int64_t i) -> S& { return dl1[i - 1]; };
  auto D = [&](int64_t i) -> S& { return d[i - 1]; };
  auto DU = [&](int64_t i) -> S& { return du[i - 1]; };
  if (n == 0) return 0;
  for (int64_t i = 1; i <= n - 1; ++i) {
    const bool last = i == n - 1;
    // Whether rows i and i + 1 are interchanged, and the zero pivots that stop the elimination.
    bool swap;
    if constexpr (IsComplex<S>::value) {
      // zgtsv: a zero subdiagonal needs no elimination; magnitudes are |re| + |im|.
      auto abs1 = [](S v) { return std::fabs(v.real()) + std::fabs(v.imag()); };
      if (DL(i) == S(0)) {
        if (D(i) == S(0)) return static_cast<int32_t>(i);
        continue;
      }
      swap = !(abs1(D(i)) >= abs1(DL(i)));
    } else {
      // dgtsv: the zero pivot is found when no interchange happens.
      swap = !(std::fabs(D(i)) >= std::fabs(DL(i)));
      if (!swap && D(i) == S(0)) return static_cast<int32_t>(i);
    }
    if (!swap) {
      const S fact = DL(i) / D(i);
      D(i + 1) = D(i + 1) - fact * DU(i);
      for (int64_t j = 1; j <= nrhs; ++j) B(i + 1, j) = B(i + 1, j) - fact * B(i, j);
      if (!last) DL(i) = S(0);
      continue;
    }
    const S fact = D(i) / DL(i);
    D(i) = DL(i);
    const S temp = D(i + 1);
    D(i + 1) = DU(i) - fact * temp;
    if (!last) {
      DL(i) = DU(i + 1);
      DU(i + 1) = -fact * DL(i);
    }
    DU(i) = temp;
    for (int64_t j = 1; j <= nrhs; ++j) {
      const S t = B(i, j);
      B(i, j) = B(i + 1, j);
      B(i + 1, j) = t - fact * B(i + 1, j);
    }
  }
  if (D(n) == S(0)) return static_cast<int32_t>(n);
  for (int64_t j = 1; j <= nrhs; ++j) {
    B(n, j) = B(n, j) / D(n);
    if (n > 1) B(n - 1, j) = (B(n - 1, j) - DU(n - 1) * B(n, j)) / D(n - 1);
    for (int64_t i = n - 2; i >= 1; --i) B(i, j) = (B(i, j) - DU(i) * B(i + 1, j) - DL(i) * B(i + 2, j)) / D(i);
  }
  return 0;
}

template <typename S>
void GtsvTyped(const Step& s, ExecState& st) {
  // in: dl, d, du ([batch..., m]), b ([batch..., m, nrhs]); out: the four updated, info [batch...].
  std::vector<Array> out;
  for (size_t i = 0; i < 4; ++i) {
    const Array& a = st.slots[s.in[i]].array;
    Array c = Array::Allocate(a.type());
    std::memcpy(c.mutable_data(), a.data(), static_cast<size_t>(a.ByteSize()));
    out.push_back(std::move(c));
  }
  Array info = Array::Allocate(s.out_types[4]);
  const std::vector<int64_t>& bd = out[3].dims();
  const int64_t m = bd[bd.size() - 2], nrhs = bd.back();
  const int64_t batch = m > 0 ? out[1].NumElements() / m : info.NumElements();
  S* dl = out[0].mutable_as<S>();
  S* d = out[1].mutable_as<S>();
  S* du = out[2].mutable_as<S>();
  S* b = out[3].mutable_as<S>();
  int32_t* code = info.mutable_as<int32_t>();
  for (int64_t k = 0; k < batch; ++k)
    code[k] = m == 0 ? 0 : GtsvOne<S>(m, nrhs, dl + k * m + 1, d + k * m, du + k * m, b + k * m * nrhs);
  for (size_t i = 0; i < 4; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
  st.slots[s.out[4]] = RtValue::Of(std::move(info));
}

void Gtsv(const Step& s, ExecState& st) {
  switch (st.slots[s.in[1]].array.elem()) {
    case ElemKind::kF32: return GtsvTyped<float>(s, st);
    case ElemKind::kF64: return GtsvTyped<double>(s, st);
    case ElemKind::kC64: return GtsvTyped<std::complex<float>>(s, st);
    case ElemKind::kC128: return GtsvTyped<std::complex<double>>(s, st);
    default: return st.Fail(s, absl::InvalidArgumentError("gtsv on a non-float type"));
  }
}

}  // namespace

KernelFn LapackKernel() { return &Lapack; }
KernelFn GtsvKernel() { return &Gtsv; }

}  // namespace openpjrt::cpu
