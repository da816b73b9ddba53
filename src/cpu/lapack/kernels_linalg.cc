// batch_norm_*, cholesky, triangular_solve, fft and chlo.top_k. Arithmetic runs in double (or
// complex<double>) and rounds once into the result type, except where a kernel says otherwise
// (cholesky and triangular_solve of f32 / complex64 work in single precision, as LAPACK does; the
// FFT of complex64 / float32 too).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/fft/fft.h"
#include "src/cpu/blas/gemm.h"
#include "src/cpu/lapack/kernels_linalg.h"
#include "src/cpu/lapack/lapack_factor.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using cd = std::complex<double>;
using lapack::cfloat;
using lapack::ConjOf;
using lapack::IsComplex;

// Reads element i of a float or complex array as complex<double>.
cd Get(const Array& a, int64_t i) {
  cd v;
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kFloat) {
      v = cd(static_cast<double>(T::Load(a.as<typename T::S>()[i])), 0.0);
    } else if constexpr (T::kCat == Cat::kComplex) {
      auto c = T::Load(a.as<typename T::S>()[i]);
      v = cd(c.real(), c.imag());
    }
  });
  return v;
}

void Set(Array& a, int64_t i, cd v) {
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kFloat) {
      if constexpr (K == ElemKind::kF32 || K == ElemKind::kF64) {
        a.mutable_as<typename T::S>()[i] = static_cast<typename T::S>(v.real());
      } else {
        a.mutable_as<typename T::S>()[i] = static_cast<typename T::S>(ir::EncodeFloat(K, v.real()));
      }
    } else if constexpr (T::kCat == Cat::kComplex) {
      using R = typename T::C::value_type;
      a.mutable_as<typename T::S>()[i] = typename T::C(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    }
  });
}

// ---- batch norm

struct FeatureLayout {
  int64_t outer, features, inner;  // index = (o * features + f) * inner + i
};
FeatureLayout Layout(const std::vector<int64_t>& dims, int64_t fi) {
  FeatureLayout l{1, dims[fi], 1};
  for (int64_t d = 0; d < fi; ++d) l.outer *= dims[d];
  for (size_t d = fi + 1; d < dims.size(); ++d) l.inner *= dims[d];
  return l;
}

template <typename F>
void ForEachInFeature(const FeatureLayout& l, int64_t f, F&& fn) {
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) fn((o * l.features + f) * l.inner + i);
}

void BatchNormInference(const Step& s, ExecState& st) {
  const BatchNormParams& p = s.Params<BatchNormParams>();
  const Array& x = st.slots[s.in[0]].array;
  const Array &scale = st.slots[s.in[1]].array, &offset = st.slots[s.in[2]].array,
              &mean = st.slots[s.in[3]].array, &var = st.slots[s.in[4]].array;
  Array out = Array::Allocate(s.out_types[0]);
  FeatureLayout l = Layout(x.dims(), p.feature_index);
  for (int64_t f = 0; f < l.features; ++f) {
    double k = Get(scale, f).real() / std::sqrt(Get(var, f).real() + p.epsilon);
    double m = Get(mean, f).real(), b = Get(offset, f).real();
    ForEachInFeature(l, f, [&](int64_t i) { Set(out, i, (Get(x, i).real() - m) * k + b); });
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

void BatchNormTraining(const Step& s, ExecState& st) {
  const BatchNormParams& p = s.Params<BatchNormParams>();
  const Array& x = st.slots[s.in[0]].array;
  const Array &scale = st.slots[s.in[1]].array, &offset = st.slots[s.in[2]].array;
  Array out = Array::Allocate(s.out_types[0]);
  Array mean_out = Array::Allocate(s.out_types[1]), var_out = Array::Allocate(s.out_types[2]);
  FeatureLayout l = Layout(x.dims(), p.feature_index);
  const double n = static_cast<double>(l.outer * l.inner);
  for (int64_t f = 0; f < l.features; ++f) {
    double sum = 0, sq = 0;
    ForEachInFeature(l, f, [&](int64_t i) { sum += Get(x, i).real(); });
    double mean = n > 0 ? sum / n : 0;
    ForEachInFeature(l, f, [&](int64_t i) {
      double c = Get(x, i).real() - mean;
      sq += c * c;
    });
    double var = n > 0 ? sq / n : 0;
    double k = Get(scale, f).real() / std::sqrt(var + p.epsilon), b = Get(offset, f).real();
    ForEachInFeature(l, f, [&](int64_t i) { Set(out, i, (Get(x, i).real() - mean) * k + b); });
    Set(mean_out, f, mean);
    Set(var_out, f, var);
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
  st.slots[s.out[1]] = RtValue::Of(std::move(mean_out));
  st.slots[s.out[2]] = RtValue::Of(std::move(var_out));
}

void BatchNormGrad(const Step& s, ExecState& st) {
  const BatchNormParams& p = s.Params<BatchNormParams>();
  const Array& x = st.slots[s.in[0]].array;
  const Array &scale = st.slots[s.in[1]].array, &mean = st.slots[s.in[2]].array,
              &var = st.slots[s.in[3]].array, &dy = st.slots[s.in[4]].array;
  Array dx = Array::Allocate(s.out_types[0]);
  Array dscale = Array::Allocate(s.out_types[1]), doffset = Array::Allocate(s.out_types[2]);
  FeatureLayout l = Layout(x.dims(), p.feature_index);
  const double n = static_cast<double>(l.outer * l.inner);
  for (int64_t f = 0; f < l.features; ++f) {
    double m = Get(mean, f).real(), sd = std::sqrt(Get(var, f).real() + p.epsilon);
    double sum_dy = 0, sum_dy_norm = 0;
    ForEachInFeature(l, f, [&](int64_t i) {
      double g = Get(dy, i).real();
      sum_dy += g;
      sum_dy_norm += g * (Get(x, i).real() - m) / sd;
    });
    double k = Get(scale, f).real() / sd;
    ForEachInFeature(l, f, [&](int64_t i) {
      double norm = (Get(x, i).real() - m) / sd;
      double g = Get(dy, i).real();
      Set(dx, i, n > 0 ? k * (g - sum_dy / n - norm * sum_dy_norm / n) : 0.0);
    });
    Set(dscale, f, sum_dy_norm);
    Set(doffset, f, sum_dy);
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(dx));
  st.slots[s.out[1]] = RtValue::Of(std::move(dscale));
  st.slots[s.out[2]] = RtValue::Of(std::move(doffset));
}

}  // namespace

void ForEachBatchPiece(ExecState& st, int64_t batch, int64_t cost, const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t pieces = std::min<int64_t>(batch, 4 * st.threads());
  if (pieces <= 1 || batch * cost < (int64_t{1} << 19)) {
    fn(0, batch);
    return;
  }
  st.ParallelFor(pieces, [&](int64_t piece) { fn(batch * piece / pieces, batch * (piece + 1) / pieces); });
}

namespace {

// ---- cholesky and triangular_solve (batches of n x n matrices in the trailing two dims)

// Get and Set over a whole array, dispatched once (the FFT's conversions had cost a fifth of its
// time element by element).
// (C: complex<double>, or complex<float> for the FFT of complex64 and float32 data.)
template <typename C>
void GetAll(const Array& a, C* out) {
  using R = typename C::value_type;
  const int64_t n = a.NumElements();
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    const auto* p = a.as<typename T::S>();
    if constexpr (T::kCat == Cat::kFloat) {
      for (int64_t i = 0; i < n; ++i) out[i] = C(static_cast<R>(T::Load(p[i])), R(0));
    } else if constexpr (T::kCat == Cat::kComplex) {
      for (int64_t i = 0; i < n; ++i) {
        const auto c = T::Load(p[i]);
        out[i] = C(static_cast<R>(c.real()), static_cast<R>(c.imag()));
      }
    }
  });
}

template <typename C>
void SetAll(Array& a, const C* in) {
  const int64_t n = a.NumElements();
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kComplex) {
      using R = typename T::C::value_type;
      auto* p = a.mutable_as<typename T::S>();
      for (int64_t i = 0; i < n; ++i) p[i] = typename T::C(static_cast<R>(in[i].real()), static_cast<R>(in[i].imag()));
    } else if constexpr (K == ElemKind::kF32 || K == ElemKind::kF64) {
      auto* p = a.mutable_as<typename T::S>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<typename T::S>(in[i].real());
    } else if constexpr (T::kCat == Cat::kFloat) {
      for (int64_t i = 0; i < n; ++i) Set(a, i, cd(in[i].real(), in[i].imag()));
    }
  });
}

// Element conversions between an array's storage (S) and the type a factorisation works in (W):
// the same type for float32 / float64 / complex64 / complex128, and complex<double> staging
// (GetAll / SetAll) for the narrower float kinds, worked in double.
template <typename W, typename S>
W WorkValue(const S& v) {
  if constexpr (std::is_same_v<W, S>) return v;
  else if constexpr (IsComplex<W>::value) return W(v);
  else return static_cast<W>(v.real());
}
template <typename S, typename W>
S StoredValue(const W& v) {
  if constexpr (std::is_same_v<W, S>) return v;
  else return S(v);
}

// The factor of each matrix in the batch through CholeskyLowerInPlace, in the element type for
// float32 / float64 / complex64 / complex128 (as LAPACK's spotrf / dpotrf / cpotrf / zpotrf), in
// double for the narrower float kinds (an upper request factors A's conjugate transpose). Where a
// matrix is not positive definite, every column from the failing pivot on is NaN (the values an
// unchecked factorisation would carry there), and the other triangle is zero.
template <typename W, typename S>
void CholeskyAs(ExecState& st, bool lower, const S* in, S* out, int64_t n, int64_t batch) {
  ForEachBatchPiece(st, batch, n * n * n / 3, [&](int64_t b0, int64_t b1) {
    Array holder;
    W* l = AllocateScratch<W>(n * n, &holder);
    for (int64_t b = b0; b < b1; ++b) {
      const S* m = in + b * n * n;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) l[i * n + j] = WorkValue<W>(lower ? m[i * n + j] : ConjOf(m[j * n + i]));
      const int32_t code = CholeskyLowerInPlace(l, n);
      const int64_t bad = code ? code - 1 : n;
      S* o = out + b * n * n;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const W v = j > i ? W(0) : j >= bad ? W(std::numeric_limits<double>::quiet_NaN()) : l[i * n + j];
          if (lower) o[i * n + j] = StoredValue<S>(v);
          else o[j * n + i] = StoredValue<S>(ConjOf(v));
        }
    }
  });
}

void Cholesky(const Step& s, ExecState& st) {
  const bool lower = s.Params<CholeskyParams>().lower;
  const Array& a = st.slots[s.in[0]].array;
  Array out = Array::Allocate(s.out_types[0]);
  const int64_t n = a.dims().back(), batch = n ? a.NumElements() / (n * n) : 0;
  const bool native = [&] {
    switch (a.elem()) {
      case ElemKind::kF32: CholeskyAs<float>(st, lower, a.as<float>(), out.mutable_as<float>(), n, batch); return true;
      case ElemKind::kF64: CholeskyAs<double>(st, lower, a.as<double>(), out.mutable_as<double>(), n, batch); return true;
      case ElemKind::kC64:
        CholeskyAs<cfloat>(st, lower, a.as<cfloat>(), out.mutable_as<cfloat>(), n, batch);
        return true;
      case ElemKind::kC128: CholeskyAs<cd>(st, lower, a.as<cd>(), out.mutable_as<cd>(), n, batch); return true;
      default: return false;
    }
  }();
  if (!native) {
    // Pooled temporaries: fresh pages would cost more than the factorisation.
    Array m_holder, r_holder;
    cd* m = AllocateScratch<cd>(a.NumElements(), &m_holder);
    cd* r = AllocateScratch<cd>(a.NumElements(), &r_holder);
    GetAll(a, m);
    CholeskyAs<double>(st, lower, m, r, n, batch);
    SetAll(out, r);
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

// op X = B for a triangular op (n x n, row-major, its other triangle ignored) and X (n x cols,
// row stride ldx, B on entry), by blocks of 32 rows in the order of substitution: each block
// first takes the product of its part of op with every row already solved (one matrix product
// through gemm.h, AVX-512 where the CPU has it), then is solved row by row, each row updated from
// the block's rows before it (contiguous rows, so the inner loops run over columns). Element by
// element through complex<double> this took 90 ms for 256 x 256; row by row in double, 16 ms.
template <typename T>
void SolveLeft(const T* op, T* x, int64_t ldx, int64_t n, int64_t cols, bool lower) {
  constexpr int64_t kBlock = 32;
  Array holder;
  T* product = n > kBlock ? AllocateScratch<T>(kBlock * cols, &holder) : nullptr;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t len = std::min(kBlock, n - b);
    const int64_t r0 = lower ? b : n - b - len;  // the block: rows r0 .. r0 + len - 1
    const int64_t s0 = lower ? 0 : r0 + len, s1 = lower ? r0 : n;  // the rows already solved
    if (s1 > s0) {
      GemmOf<T>()(op + r0 * n + s0, n, x + s0 * ldx, ldx, product, cols, len, s1 - s0, cols);
      for (int64_t r = 0; r < len; ++r) {
        T* xr = x + (r0 + r) * ldx;
        const T* pr = product + r * cols;
        for (int64_t c = 0; c < cols; ++c) xr[c] -= pr[c];
      }
    }
    for (int64_t k = 0; k < len; ++k) {
      const int64_t i = lower ? r0 + k : r0 + len - 1 - k;
      T* xi = x + i * ldx;
      const int64_t j0 = lower ? r0 : i + 1, j1 = lower ? i : r0 + len;
      for (int64_t j = j0; j < j1; ++j) {
        const T a = op[i * n + j];
        const T* xj = x + j * ldx;
        for (int64_t c = 0; c < cols; ++c) xi[c] -= a * xj[c];
      }
      const T d = op[i * n + i];
      for (int64_t c = 0; c < cols; ++c) xi[c] /= d;
    }
  }
}

// Each matrix of the batch: op(a) (its referenced triangle; transposing swaps which one that is)
// and X (X op(a) = B is solved as op(a)^T X^T = B^T) in the working type W, then SolveLeft. A
// batch with fewer matrices than threads has each matrix's columns split among the threads.
// float32 / complex64 work in single precision as LAPACK's strsm / ctrsm, float64 / complex128
// in double, the narrower float kinds in double (staged through complex<double>).
template <typename W, typename S>
void TriangularSolveAs(ExecState& st, const TriangularSolveParams& p, const S* ca, const S* cb, S* result, int64_t n,
                       int64_t rows, int64_t cols, int64_t batch) {
  const bool right = !p.left_side;
  const int64_t m = right ? rows : cols;  // the columns of the left-side problem
  const bool transposed = p.transpose != TriangularSolveParams::kNoTranspose;
  const bool lower = (p.lower != transposed) != right;
  auto load = [&](int64_t bi, W* op, W* x) {
    const S* ab = ca + bi * n * n;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const int64_t si = transposed ? j : i, sj = transposed ? i : j;
        const bool in_tri = p.lower ? sj <= si : sj >= si;
        W v = in_tri ? WorkValue<W>(ab[si * n + sj]) : W(0);
        if (p.transpose == TriangularSolveParams::kAdjoint) v = ConjOf(v);
        if (p.unit_diagonal && i == j) v = W(1);
        if (right) op[j * n + i] = v;
        else op[i * n + j] = v;
      }
    }
    const S* bb = cb + bi * rows * cols;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) x[right ? c * rows + r : r * cols + c] = WorkValue<W>(bb[r * cols + c]);
  };
  auto store = [&](int64_t bi, const W* x) {
    S* rb = result + bi * rows * cols;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) rb[r * cols + c] = StoredValue<S>(x[right ? c * rows + r : r * cols + c]);
  };
  // Columns in pieces of whole 16-column runs (AVX-512 vectors of float) when one matrix is
  // worth splitting; not when deterministic results are asked for (a product's summation order
  // may depend on how many columns it has, so the bits would depend on the thread count).
  const int64_t col_pieces = batch < st.threads() && !st.deterministic() && n * n * m / 2 >= (int64_t{1} << 19)
                                 ? std::min<int64_t>(st.threads(), (m + 15) / 16)
                                 : 1;
  if (col_pieces > 1) {
    Array holders[2];
    W* op = AllocateScratch<W>(n * n, &holders[0]);
    W* x = AllocateScratch<W>(rows * cols, &holders[1]);
    for (int64_t bi = 0; bi < batch; ++bi) {
      load(bi, op, x);
      st.ParallelFor(col_pieces, [&](int64_t piece) {
        const int64_t c0 = (m + 15) / 16 * piece / col_pieces * 16;
        const int64_t c1 = std::min(m, (m + 15) / 16 * (piece + 1) / col_pieces * 16);
        if (c1 > c0) SolveLeft(op, x + c0, m, n, c1 - c0, lower);
      });
      store(bi, x);
    }
    return;
  }
  ForEachBatchPiece(st, batch, n * n * m / 2, [&](int64_t b0, int64_t b1) {
    Array holders[2];
    W* op = AllocateScratch<W>(n * n, &holders[0]);
    W* x = AllocateScratch<W>(rows * cols, &holders[1]);
    for (int64_t bi = b0; bi < b1; ++bi) {
      load(bi, op, x);
      SolveLeft(op, x, m, n, m, lower);
      store(bi, x);
    }
  });
}

void TriangularSolve(const Step& s, ExecState& st) {
  const TriangularSolveParams& p = s.Params<TriangularSolveParams>();
  const Array& a = st.slots[s.in[0]].array;
  const Array& b = st.slots[s.in[1]].array;
  Array out = Array::Allocate(s.out_types[0]);
  const int64_t n = a.dims().back();
  const int64_t rows = b.dims()[b.dims().size() - 2], cols = b.dims().back();
  const int64_t batch = n ? a.NumElements() / (n * n) : 0;
  switch (a.elem()) {
    case ElemKind::kF32:
      TriangularSolveAs<float>(st, p, a.as<float>(), b.as<float>(), out.mutable_as<float>(), n, rows, cols, batch);
      break;
    case ElemKind::kF64:
      TriangularSolveAs<double>(st, p, a.as<double>(), b.as<double>(), out.mutable_as<double>(), n, rows, cols, batch);
      break;
    case ElemKind::kC64:
      TriangularSolveAs<cfloat>(st, p, a.as<cfloat>(), b.as<cfloat>(), out.mutable_as<cfloat>(), n, rows, cols, batch);
      break;
    case ElemKind::kC128:
      TriangularSolveAs<cd>(st, p, a.as<cd>(), b.as<cd>(), out.mutable_as<cd>(), n, rows, cols, batch);
      break;
    default: {
      // Pooled temporaries (fresh pages cost more than the solve at 256 x 256).
      Array holders[3];
      cd* ca = AllocateScratch<cd>(a.NumElements(), &holders[0]);
      cd* cb = AllocateScratch<cd>(b.NumElements(), &holders[1]);
      cd* result = AllocateScratch<cd>(b.NumElements(), &holders[2]);
      GetAll(a, ca);
      GetAll(b, cb);
      TriangularSolveAs<double>(st, p, ca, cb, result, n, rows, cols, batch);
      SetAll(out, result);
    }
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

// ---- fft over the trailing dims (fft.h: radix-2 for powers of two, mixed radix for lengths with
// prime factors up to 31, Bluestein's chirp transform for the rest, lines in vector lanes, plans
// kept), in single precision for complex64 / float32 data as XLA's CPU FFT computes them, in
// double otherwise. Real input and output lines go two to a transform.

template <typename C>
void FftAs(const FftParams& p, ExecState& st, const Array& in, Array& out) {
  const size_t rank = in.dims().size(), nf = p.lengths.size();
  std::vector<int64_t> dims = in.dims();
  if ((p.type == FftParams::kFft || p.type == FftParams::kIfft) && in.elem() == out.elem() &&
      in.ByteSize() == static_cast<int64_t>(in.NumElements() * sizeof(C))) {
    // Complex to complex of the working type: the first pass reads the input and writes the
    // result, the others work in place in the result; no conversions.
    for (size_t d = rank - nf; d < rank; ++d)
      FftAlong(st, out.mutable_as<C>(), dims, d, p.type == FftParams::kIfft, FftLines::kComplex,
               d == rank - nf ? in.as<C>() : nullptr);
    return;
  }
  const int64_t count = in.NumElements();
  using T = typename C::value_type;
  constexpr ElemKind kReal = std::is_same_v<T, float> ? ElemKind::kF32 : ElemKind::kF64;
  if (p.type == FftParams::kRfft && in.elem() == kReal && !dims.empty() && dims.back() > 0 &&
      out.ByteSize() == static_cast<int64_t>(count / dims.back() * out.dims().back() * sizeof(C)) &&
      out.dims().back() == dims.back() / 2 + 1 &&
      RealRowsForward<C>(st, in.as<T>(), count / dims.back(), dims.back(), out.mutable_as<C>())) {
    // The last dimension straight from the real rows into the result's half spectra (widening
    // and compaction passes had been a third of rfft2 over 8 x 256 x 256), the others in place.
    dims.back() = out.dims().back();
    for (size_t d = rank - nf; d + 1 < rank; ++d) FftAlong(st, out.mutable_as<C>(), dims, d, false, FftLines::kComplex);
    return;
  }
  // (Temporaries from the arrays' pool: fresh pages for each call had been a sixth of a 64 x 4096
  // rfft.)
  Array a_holder, b_holder;
  constexpr ElemKind kComplexKind = std::is_same_v<T, float> ? ElemKind::kC64 : ElemKind::kC128;
  // An irfft of the working type reads its input where it is; everything else works on a copy.
  const bool read_in_place = p.type == FftParams::kIrfft && in.elem() == kComplexKind;
  C* a = read_in_place ? nullptr : AllocateScratch<C>(count, &a_holder);
  if (!read_in_place) {
    if (std::is_same_v<C, std::complex<float>> && in.elem() == ElemKind::kF32) {
      const float* x = in.as<float>();  // the common real input, widened on the threads
      ForEachBatchPiece(st, count, 1, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) a[i] = C(x[i], T(0));
      });
    } else {
      GetAll(in, a);
    }
  }
  if (p.type == FftParams::kIrfft) {
    const C* source = read_in_place ? in.as<C>() : a;
    // Rebuild the full last dimension from its Hermitian half, then transform back. Every pass
    // over the rows is shared out over the threads (done serially they were 60% of an irfft of
    // 64 x 2049 at one thread).
    std::vector<int64_t> full = dims;
    const int64_t n = p.lengths.back(), half = dims.back();
    full.back() = n;
    const int64_t rows = half ? count / half : 0;
    C* b = AllocateScratch<C>(rows * n, &b_holder);
    // With one transformed dimension, each row is extended as it is copied (points past the half
    // are the conjugates of their mirrors, which the copy has in hand); with more, the other
    // dimensions are transformed before the extension.
    const bool extend_now = nf == 1;
    ForEachBatchPiece(st, rows, n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const C* x = source + r * half;
        C* row = b + r * n;
        const int64_t kept = std::min(half, n);
        std::copy(x, x + kept, row);
        for (int64_t k = kept; k < n; ++k) row[k] = extend_now && n - k < half ? std::conj(x[n - k]) : C(0);
      }
    });
    if (!extend_now) {
      for (size_t d = rank - nf; d + 1 < rank; ++d) FftAlong(st, b, full, d, true, FftLines::kComplex);
      ForEachBatchPiece(st, rows, n, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          C* row = b + r * n;
          for (int64_t k = half; k < n; ++k) row[k] = std::conj(row[(n - k) % n]);
        }
      });
    }
    FftAlong(st, b, full, rank - 1, true, FftLines::kRealInverse);
    if (out.elem() == (std::is_same_v<C, std::complex<float>> ? ElemKind::kF32 : ElemKind::kF64)) {
      T* y = out.mutable_as<T>();  // real results: the real parts
      ForEachBatchPiece(st, rows, n, [&](int64_t r0, int64_t r1) {
        for (int64_t i = r0 * n; i < r1 * n; ++i) y[i] = b[i].real();
      });
    } else {
      SetAll(out, b);
    }
  } else {
    const bool inverse = p.type == FftParams::kIfft;
    if (p.type == FftParams::kRfft) {
      FftAlong(st, a, dims, rank - 1, false, FftLines::kRealForward);
      // Keep the first n/2 + 1 points of the last dimension, straight into the result when it
      // has the working type, whose other dimensions are then transformed in place (a copy out
      // of a scratch array was a tenth of rfft2 over 8 x 256 x 256).
      const int64_t n = dims.back(), keep = out.dims().back();
      const int64_t rows = n ? count / n : 0;
      const bool direct = out.ByteSize() == static_cast<int64_t>(rows * keep * sizeof(C));
      C* b = direct ? out.mutable_as<C>() : AllocateScratch<C>(rows * keep, &b_holder);
      ForEachBatchPiece(st, rows, keep, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) std::copy(a + r * n, a + r * n + keep, b + r * keep);
      });
      dims.back() = keep;
      for (size_t d = rank - nf; d + 1 < rank; ++d) FftAlong(st, b, dims, d, false, FftLines::kComplex);
      if (!direct) SetAll(out, b);
    } else {
      for (size_t d = rank - nf; d < rank; ++d) FftAlong(st, a, dims, d, inverse, FftLines::kComplex);
      SetAll(out, a);
    }
  }
}

void Fft(const Step& s, ExecState& st) {
  const FftParams& p = s.Params<FftParams>();
  const Array& in = st.slots[s.in[0]].array;
  Array out = Array::Allocate(s.out_types[0]);
  if (in.elem() == ElemKind::kF32 || in.elem() == ElemKind::kC64) FftAs<std::complex<float>>(p, st, in, out);
  else FftAs<cd>(p, st, in, out);
  st.slots[s.out[0]] = RtValue::Of(std::move(out));
}

// ---- chlo.top_k: the k largest (or smallest) along the last dimension, ties to the lower index,
// in the total order of XLA's CPU top_k: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. Keys are
// long doubles: exact for every integer up to 64 bits and every float kind, NaN signs kept.

// The keys of elements [i0, i0 + n) of `a` (one dispatch for all of them).
void TopKKeys(const Array& a, int64_t i0, int64_t n, long double* keys) {
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kSigned || T::kCat == Cat::kUnsigned || T::kCat == Cat::kBool ||
                  T::kCat == Cat::kFloat) {
      const auto* p = a.as<typename T::S>() + i0;
      for (int64_t i = 0; i < n; ++i) keys[i] = static_cast<long double>(T::Load(p[i]));
    } else {
      std::fill(keys, keys + n, 0.0L);
    }
  });
}

bool TotalLess(long double a, long double b) {
  const int ra = std::isnan(a) ? (std::signbit(a) ? -1 : 1) : 0, rb = std::isnan(b) ? (std::signbit(b) ? -1 : 1) : 0;
  if (ra != rb || ra != 0) return ra < rb;  // NaNs at the ends by sign; two of one sign are equal
  if (a == b) return std::signbit(a) && !std::signbit(b);  // -0 < +0
  return a < b;
}

// f32 and f64 keys as unsigned integers in the same order: the bits of a positive value with the
// sign bit set, of a negative one complemented, and every NaN of one sign one key at that end.
template <typename U>
[[gnu::always_inline]] inline U FloatOrderKey(U bits) {
  constexpr U kSign = U{1} << (8 * sizeof(U) - 1);
  constexpr U kExp = static_cast<U>(sizeof(U) == 4 ? 0x7F800000ull : 0x7FF0000000000000ull);
  const bool nan = (bits & kExp) == kExp && (bits & ~kSign & ~kExp) != 0;
  if (nan) return bits & kSign ? U{0} : ~U{0};
  return bits & kSign ? static_cast<U>(~bits) : static_cast<U>(bits | kSign);
}

// Positions of the first k of a row in the stable order of its keys (largest or smallest first;
// equal keys by position). For small k, one pass keeps the best k seen so far in order and lets
// in only keys better than the last of them, one comparison for nearly every element (the top 16
// of 16 x 64Ki f32 at one thread: 15.5 -> 1.9 ms); otherwise a partial sort of the positions. (A
// stable sort of the whole row with long double keys, the way before that, took 41 ms for the
// top 8 of 64 x 4096 f32.)
constexpr int64_t kBufferedMax = 64;
bool Buffered(int64_t n, int64_t k) { return k <= kBufferedMax && k * 8 <= n; }

// The buffered pass: keys[0, n) of positions first + [0, n) offered to the best `count` so far.
template <typename Key, typename Better>
void OfferKeys(const Key* keys, int64_t first, int64_t n, int64_t k, Better better, Key* best, int64_t& count,
               std::vector<int64_t>& order) {
  for (int64_t i = 0; i < n; ++i) {
    const Key& key = keys[i];
    if (count == k && !better(key, best[k - 1])) continue;
    int64_t p = count < k ? count : k - 1;  // where it goes: after every entry not worse than it
    while (p > 0 && better(key, best[p - 1])) {
      best[p] = best[p - 1];
      order[static_cast<size_t>(p)] = order[static_cast<size_t>(p - 1)];
      --p;
    }
    best[p] = key;
    order[static_cast<size_t>(p)] = first + i;
    if (count < k) ++count;
  }
}

template <typename Key, typename Less>
void FirstK(const Key* keys, int64_t n, int64_t k, bool largest, Less less, std::vector<int64_t>& order) {
  if (k <= 0) return;  // nothing to pick (top_k with k = 0)
  auto better = [&](const Key& a, const Key& b) { return largest ? less(b, a) : less(a, b); };
  if (Buffered(n, k)) {
    Key best[kBufferedMax];
    int64_t count = 0;
    OfferKeys(keys, 0, n, k, better, best, count, order);
    return;
  }
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
    const Key& ka = keys[a];
    const Key& kb = keys[b];
    return better(ka, kb) || (!better(kb, ka) && a < b);
  });
}

// The buffered pass over a row of f32 or f64 bits (U: uint32_t or uint64_t), keyed in blocks: a
// block whose best key is not better than the k-th best so far is passed over whole, with no
// comparison per element (past the first few blocks nearly all of a random row). The keys and the
// block's best are plain loops the compiler vectorises; the row is never keyed as a whole (the
// top 16 of 16 x 64Ki f32 had written and read back 512 KiB of 64-bit keys per row).
constexpr int64_t kKeyBlock = 256;

// keys[i] = FloatOrderKey(bits[i]) for a whole block, and the block's largest and smallest key
// (compiled for the CPU's widest vectors, isa.h).
template <typename U>
[[gnu::always_inline]] inline void KeyBlock(const U* bits, U* keys, U* top) {
  using S = std::make_signed_t<U>;
  constexpr int kShift = 8 * sizeof(U) - 1;
  constexpr U kSign = U{1} << kShift;
  constexpr U kExp = static_cast<U>(sizeof(U) == 4 ? 0x7F800000ull : 0x7FF0000000000000ull);
  U hi = 0, lo = ~U{0};
  for (int64_t i = 0; i < kKeyBlock; ++i) {
    // FloatOrderKey without branches (the sign of random data mispredicted half the time).
    const U b = bits[i];
    const U negative = static_cast<U>(static_cast<S>(b) >> kShift);  // all ones or zero
    const U nan = (b & ~kSign) > kExp ? ~U{0} : U{0};
    const U key = ((b ^ (negative | kSign)) & ~nan) | (~negative & nan);
    keys[i] = key;
    hi = std::max(hi, key);
    lo = std::min(lo, key);
  }
  top[0] = hi;
  top[1] = lo;
}

template <typename U>
void FirstKOfFloats(const U* bits, int64_t n, int64_t k, bool largest, std::vector<int64_t>& order) {
  static const auto key_block = ForCpu<&KeyBlock<U>>();
  constexpr int64_t kBlock = kKeyBlock;
  U keys[kBlock], best[kBufferedMax];
  int64_t count = 0;
  auto better = [largest](U a, U b) { return largest ? a > b : a < b; };
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const int64_t len = std::min(kBlock, n - b0);
    U top = largest ? U{0} : ~U{0};
    if (len == kBlock) {
      U tops[2];
      key_block(bits + b0, keys, tops);
      top = tops[largest ? 0 : 1];
    } else {
      for (int64_t i = 0; i < len; ++i) {
        keys[i] = FloatOrderKey(bits[b0 + i]);
        top = largest ? std::max(top, keys[i]) : std::min(top, keys[i]);
      }
    }
    if (count == k && !better(top, best[k - 1])) continue;
    OfferKeys(keys, b0, len, k, better, best, count, order);
  }
}

// One row of top_k: the positions of its first k into order[0, k).
void TopKRow(const Array& x, int64_t r, int64_t n, int64_t k, bool largest, std::vector<int64_t>& order,
             std::vector<long double>& keys, std::vector<uint64_t>& ukeys) {
  const bool f32 = x.elem() == ElemKind::kF32, f64 = x.elem() == ElemKind::kF64;
  if ((f32 || f64) && k > 0 && Buffered(n, k)) {
    if (f32) FirstKOfFloats(x.as<uint32_t>() + r * n, n, k, largest, order);
    else FirstKOfFloats(x.as<uint64_t>() + r * n, n, k, largest, order);
  } else if (f32 || f64) {
    ukeys.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      ukeys[static_cast<size_t>(i)] = f32 ? FloatOrderKey(x.as<uint32_t>()[r * n + i]) : FloatOrderKey(x.as<uint64_t>()[r * n + i]);
    FirstK(ukeys.data(), n, k, largest, std::less<uint64_t>(), order);
  } else {
    keys.resize(static_cast<size_t>(n));
    TopKKeys(x, r * n, n, keys.data());
    FirstK(keys.data(), n, k, largest, TotalLess, order);
  }
}

void TopK(const Step& s, ExecState& st) {
  const int64_t k = s.Params<TopKParams>().k;
  const bool largest = s.Params<TopKParams>().largest;
  const Array& x = st.slots[s.in[0]].array;
  Array values = Array::Allocate(s.out_types[0]);
  Array indices = Array::Allocate(s.out_types[1]);
  const int64_t n = x.dims().back(), rows = n ? x.NumElements() / n : 0;
  const int64_t es = x.type().ElementSize();
  // Rows are independent: pieces of them go to the intra-op threads.
  ForEachBatchPiece(st, rows, n, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> order(static_cast<size_t>(std::max(n, k)));
    std::vector<long double> keys;
    std::vector<uint64_t> ukeys;
    for (int64_t r = r0; r < r1; ++r) {
      TopKRow(x, r, n, k, largest, order, keys, ukeys);
      for (int64_t j = 0; j < k; ++j) {
        std::memcpy(values.mutable_data() + (r * k + j) * es, x.data() + (r * n + order[j]) * es, es);
        indices.mutable_as<int32_t>()[r * k + j] = static_cast<int32_t>(order[j]);
      }
    }
  });
  st.slots[s.out[0]] = RtValue::Of(std::move(values));
  st.slots[s.out[1]] = RtValue::Of(std::move(indices));
}

}  // namespace

KernelFn BatchNormInferenceKernel() { return &BatchNormInference; }
KernelFn BatchNormTrainingKernel() { return &BatchNormTraining; }
KernelFn BatchNormGradKernel() { return &BatchNormGrad; }
KernelFn CholeskyKernel() { return &Cholesky; }
KernelFn TriangularSolveKernel() { return &TriangularSolve; }
KernelFn FftKernel() { return &Fft; }
KernelFn TopKKernel() { return &TopK; }

}  // namespace openpjrt::cpu
