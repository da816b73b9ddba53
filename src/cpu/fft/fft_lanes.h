// The FFT's vector lanes (internal to fft.cc): one point of up to L lines as a GCC vector, the
// radix-2 butterflies over a group held as [point][lane] real and imaginary arrays, and the
// movers that bring lines into that order and back through registers (L x L transposes).
// Everything here is always inlined into fft.cc's per-ISA copies (isa.h), so the vector types
// never cross a call boundary.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

// (See above: the vector types stay inside inlined code.)
#pragma GCC diagnostic ignored "-Wpsabi"

namespace openpjrt::cpu::fft_lanes {

// One point's L values of the working type T (double, or float for complex64 data): a vector for
// L = kWide<T> (GCC's vector extension: one AVX-512 register in the AVX-512 copy, four SSE
// registers in the baseline one), a T for L = 1.
typedef double Lanes8 __attribute__((vector_size(64)));
typedef float Lanes16 __attribute__((vector_size(64)));
template <typename T>
constexpr int kWide = 64 / static_cast<int>(sizeof(T));
template <typename T, int L>
using Lanes = std::conditional_t<L == 1, T, std::conditional_t<std::is_same_v<T, double>, Lanes8, Lanes16>>;
template <typename T, int L>
[[gnu::always_inline]] inline Lanes<T, L> Load(const T* p) {
  Lanes<T, L> v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
template <typename T, int L>
[[gnu::always_inline]] inline void Store(T* p, Lanes<T, L> v) { __builtin_memcpy(p, &v, sizeof(v)); }

// Butterflies of spans [span0, span1) over points [0, m) (span1 <= m), twiddles of span s at
// tw[s - 1 + k] (k < s) for the forward direction, in the working type; `sign` -1 conjugates them
// (inverse). Two spans at a time where both are in range: the four points that span s and 2 s
// pair up go through both stages in registers (the same operations as stage by stage, half the
// loads and stores of the group).
template <typename T, int L>
[[gnu::always_inline]] inline void Butterflies(T* re, T* im, int64_t m, int64_t span0, int64_t span1,
                                               const T* twr, const T* twi, T sign) {
  using V = Lanes<T, L>;
  auto butterfly = [](V& ur, V& ui, V& xr, V& xi, T wr, T wi) {
    const V vr = xr * wr - xi * wi, vi = xr * wi + xi * wr;
    xr = ur - vr;
    xi = ui - vi;
    ur = ur + vr;
    ui = ui + vi;
  };
  int64_t span = span0;
  for (; 2 * span < span1; span *= 4)
    for (int64_t i = 0; i < m; i += 4 * span)
      for (int64_t k = 0; k < span; ++k) {
        T* r0 = re + (i + k) * L;
        T* i0 = im + (i + k) * L;
        const int64_t s = span * L;
        V ar = Load<T, L>(r0), ai = Load<T, L>(i0), br = Load<T, L>(r0 + s), bi = Load<T, L>(i0 + s);
        V cr = Load<T, L>(r0 + 2 * s), ci = Load<T, L>(i0 + 2 * s), dr = Load<T, L>(r0 + 3 * s),
          di = Load<T, L>(i0 + 3 * s);
        const T w1r = twr[span - 1 + k], w1i = sign * twi[span - 1 + k];
        butterfly(ar, ai, br, bi, w1r, w1i);
        butterfly(cr, ci, dr, di, w1r, w1i);
        butterfly(ar, ai, cr, ci, twr[2 * span - 1 + k], sign * twi[2 * span - 1 + k]);
        butterfly(br, bi, dr, di, twr[3 * span - 1 + k], sign * twi[3 * span - 1 + k]);
        Store<T, L>(r0, ar);
        Store<T, L>(i0, ai);
        Store<T, L>(r0 + s, br);
        Store<T, L>(i0 + s, bi);
        Store<T, L>(r0 + 2 * s, cr);
        Store<T, L>(i0 + 2 * s, ci);
        Store<T, L>(r0 + 3 * s, dr);
        Store<T, L>(i0 + 3 * s, di);
      }
  for (; span < span1; span *= 2)
    for (int64_t i = 0; i < m; i += 2 * span)
      for (int64_t k = 0; k < span; ++k) {
        T* lr = re + (i + k) * L;
        T* li = im + (i + k) * L;
        V ur = Load<T, L>(lr), ui = Load<T, L>(li), xr = Load<T, L>(lr + span * L), xi = Load<T, L>(li + span * L);
        butterfly(ur, ui, xr, xi, twr[span - 1 + k], sign * twi[span - 1 + k]);
        Store<T, L>(lr, ur);
        Store<T, L>(li, ui);
        Store<T, L>(lr + span * L, xr);
        Store<T, L>(li + span * L, xi);
      }
}

// The square transpose of the N x N block whose rows are the vectors r[0..N) (N = L lanes): by
// swapping the off-diagonal S x S sub-blocks of every 2S x 2S block, for S = 1, 2, .., N / 2
// (row i < i + S: its entries in columns with bit S set trade places with row i + S's entries
// S columns to the left). 64 shuffles for 16 x 16.
template <typename V, int N, int S, size_t... K>
[[gnu::always_inline]] inline void SwapBlocks(V* r, std::index_sequence<K...>) {
  for (int i = 0; i < N; ++i) {
    if (i & S) continue;
    const V a = r[i], b = r[i + S];
    r[i] = __builtin_shufflevector(a, b, ((K & S) ? N + K - S : K)...);
    r[i + S] = __builtin_shufflevector(a, b, ((K & S) ? N + K : K + S)...);
  }
}
template <typename V, int N, int S = 1>
[[gnu::always_inline]] inline void TransposeSquare(V* r) {
  if constexpr (S < N) {
    SwapBlocks<V, N, S>(r, std::make_index_sequence<N>());
    TransposeSquare<V, N, 2 * S>(r);
  }
}
// Interleaving two vectors' first (second) halves: (a0, b0, a1, b1, ...).
template <typename V, int N, size_t... K>
[[gnu::always_inline]] inline V InterleaveLow(V a, V b, std::index_sequence<K...>) {
  return __builtin_shufflevector(a, b, ((K % 2) ? N + K / 2 : K / 2)...);
}
template <typename V, int N, size_t... K>
[[gnu::always_inline]] inline V InterleaveHigh(V a, V b, std::index_sequence<K...>) {
  return __builtin_shufflevector(a, b, ((K % 2) ? N + N / 2 + K / 2 : N / 2 + K / 2)...);
}
// The even (odd) entries of the 2N values a, b: (a0, a2, .., b0, b2, ..).
template <typename V, int N, size_t... K>
[[gnu::always_inline]] inline V Evens(V a, V b, std::index_sequence<K...>) {
  return __builtin_shufflevector(a, b, (2 * K)...);
}
template <typename V, int N, size_t... K>
[[gnu::always_inline]] inline V Odds(V a, V b, std::index_sequence<K...>) {
  return __builtin_shufflevector(a, b, (2 * K + 1)...);
}

// r / i hold L lines' real / imaginary parts at L points, one line per vector: transposed, each
// point's L lanes are stored at point at[b] of the group's re / im.
template <typename T, int L>
[[gnu::always_inline]] inline void TransposedInto(Lanes<T, L>* r, Lanes<T, L>* i, T* re, T* im, const int64_t* at) {
  TransposeSquare<Lanes<T, L>, L>(r);
  TransposeSquare<Lanes<T, L>, L>(i);
  for (int b = 0; b < L; ++b) {
    Store<T, L>(re + at[b] * L, r[b]);
    Store<T, L>(im + at[b] * L, i[b]);
  }
}

// The other way: points [t0, t0 + L) of the group's re / im times norm, transposed into r / i
// (one line's L points per vector).
template <typename T, int L>
[[gnu::always_inline]] inline void TransposedFrom(const T* re, const T* im, int64_t t0, T norm, Lanes<T, L>* r,
                                                  Lanes<T, L>* i) {
  for (int b = 0; b < L; ++b) {
    r[b] = Load<T, L>(re + (t0 + b) * L) * norm;
    i[b] = Load<T, L>(im + (t0 + b) * L) * norm;
  }
  TransposeSquare<Lanes<T, L>, L>(r);
  TransposeSquare<Lanes<T, L>, L>(i);
}
// L complex values (real parts r, imaginary parts i) interleaved into p[0 .. 2 L).
template <typename T, int L>
[[gnu::always_inline]] inline void StoreComplex(T* p, Lanes<T, L> r, Lanes<T, L> i) {
  const auto seq = std::make_index_sequence<L>();
  Store<T, L>(p, InterleaveLow<Lanes<T, L>, L>(r, i, seq));
  Store<T, L>(p + L, InterleaveHigh<Lanes<T, L>, L>(r, i, seq));
}

// A group's L complex lines (line j at lines[j], interleaved real and imaginary parts) for points
// [t0, t0 + L), into the group's [point][lane] arrays re / im, point t0 + b at point at[b] (the
// bit reversal of a radix-2 length, or t0 + b): each line's L points are two vectors, split into
// real and imaginary parts and transposed as two L x L blocks (the scalar loop moved one value
// at a time: over half of a 64 x 4096 complex64 transform was its moves in and out).
template <typename T, int L>
[[gnu::always_inline]] inline void TileInComplex(const T* const* lines, int64_t t0, T* re, T* im, const int64_t* at) {
  using V = Lanes<T, L>;
  const auto seq = std::make_index_sequence<L>();
  V r[L], i[L];
  for (int j = 0; j < L; ++j) {
    const V a = Load<T, L>(lines[j] + 2 * t0), b = Load<T, L>(lines[j] + 2 * t0 + L);
    r[j] = Evens<V, L>(a, b, seq);
    i[j] = Odds<V, L>(a, b, seq);
  }
  TransposedInto<T, L>(r, i, re, im, at);
}
// The same for 2 L real lines (stored as complex values with zero imaginary parts), two to a
// lane: line 2 l as the real part of lane l, line 2 l + 1 as its imaginary part.
template <typename T, int L>
[[gnu::always_inline]] inline void TileInReal(const T* const* lines, int64_t t0, T* re, T* im, const int64_t* at) {
  using V = Lanes<T, L>;
  const auto seq = std::make_index_sequence<L>();
  V r[L], i[L];
  for (int l = 0; l < L; ++l) {
    r[l] = Evens<V, L>(Load<T, L>(lines[2 * l] + 2 * t0), Load<T, L>(lines[2 * l] + 2 * t0 + L), seq);
    i[l] = Evens<V, L>(Load<T, L>(lines[2 * l + 1] + 2 * t0), Load<T, L>(lines[2 * l + 1] + 2 * t0 + L), seq);
  }
  TransposedInto<T, L>(r, i, re, im, at);
}
// The same from 2 L rows of plain reals (line k's points at lines[k], one value each).
template <typename T, int L>
[[gnu::always_inline]] inline void TileInRealRows(const T* const* lines, int64_t t0, T* re, T* im, const int64_t* at) {
  using V = Lanes<T, L>;
  V r[L], i[L];
  for (int l = 0; l < L; ++l) {
    r[l] = Load<T, L>(lines[2 * l] + t0);
    i[l] = Load<T, L>(lines[2 * l + 1] + t0);
  }
  TransposedInto<T, L>(r, i, re, im, at);
}
// Points [t0, t0 + L) (t0 + L <= n / 2 + 1) of the 2 L real lines' spectra from the group's
// transform Z = X + i Y (n points): X_k = (Z_k + conj(Z_-k)) / 2 into line 2 l, Y_k =
// (Z_k - conj(Z_-k)) / 2i into line 2 l + 1, times norm (Z_-0 is Z_0).
template <typename T, int L>
[[gnu::always_inline]] inline void TileOutReal(const T* re, const T* im, T* const* lines, int64_t t0, int64_t n,
                                               T scale) {
  using V = Lanes<T, L>;
  V xr[L], xi[L], yr[L], yi[L];
  for (int b = 0; b < L; ++b) {
    const int64_t t = t0 + b;
    const V r = Load<T, L>(re + t * L), i = Load<T, L>(im + t * L);
    const int64_t back = t == 0 ? 0 : n - t;
    const V mr = Load<T, L>(re + back * L), mi = Load<T, L>(im + back * L);
    xr[b] = (r + mr) * scale;
    xi[b] = (i - mi) * scale;
    yr[b] = (i + mi) * scale;
    yi[b] = (mr - r) * scale;
  }
  TransposeSquare<V, L>(xr);
  TransposeSquare<V, L>(xi);
  TransposeSquare<V, L>(yr);
  TransposeSquare<V, L>(yi);
  for (int l = 0; l < L; ++l) {
    StoreComplex<T, L>(lines[2 * l] + 2 * t0, xr[l], xi[l]);
    StoreComplex<T, L>(lines[2 * l + 1] + 2 * t0, yr[l], yi[l]);
  }
}
// L neighbouring complex lines (line j at first + 2 j: a dimension other than the last) for
// points [t0, t0 + L), point t stride values apart: each point of all the lines is one
// contiguous run, split into real and imaginary parts (no transpose), to point at[b].
template <typename T, int L>
[[gnu::always_inline]] inline void PointsInComplex(const T* first, int64_t stride, int64_t t0, T* re, T* im,
                                                   const int64_t* at) {
  using V = Lanes<T, L>;
  const auto seq = std::make_index_sequence<L>();
  for (int b = 0; b < L; ++b) {
    const T* p = first + 2 * (t0 + b) * stride;
    const V a = Load<T, L>(p), c = Load<T, L>(p + L);
    Store<T, L>(re + at[b] * L, Evens<V, L>(a, c, seq));
    Store<T, L>(im + at[b] * L, Odds<V, L>(a, c, seq));
  }
}
template <typename T, int L>
[[gnu::always_inline]] inline void PointsOutComplex(const T* re, const T* im, T* first, int64_t stride, int64_t t0,
                                                    T norm) {
  for (int b = 0; b < L; ++b)
    StoreComplex<T, L>(first + 2 * (t0 + b) * stride, Load<T, L>(re + (t0 + b) * L) * norm,
                       Load<T, L>(im + (t0 + b) * L) * norm);
}
// The inverse of 2 L real lines from their Hermitian spectra (line 2 l X, line 2 l + 1 Y, complex,
// all n points): Z = X + i Y into lane l (Z's inverse is x + i y), for a tile without the points
// 0 and n / 2 (whose imaginary parts a real inverse ignores: the scalar path zeroes them).
template <typename T, int L>
[[gnu::always_inline]] inline void TileInRealInverse(const T* const* lines, int64_t t0, T* re, T* im, const int64_t* at) {
  using V = Lanes<T, L>;
  const auto seq = std::make_index_sequence<L>();
  V r[L], i[L];
  for (int l = 0; l < L; ++l) {
    const T* x = lines[2 * l] + 2 * t0;
    const T* y = lines[2 * l + 1] + 2 * t0;
    const V xa = Load<T, L>(x), xb = Load<T, L>(x + L), ya = Load<T, L>(y), yb = Load<T, L>(y + L);
    r[l] = Evens<V, L>(xa, xb, seq) - Odds<V, L>(ya, yb, seq);
    i[l] = Odds<V, L>(xa, xb, seq) + Evens<V, L>(ya, yb, seq);
  }
  TransposedInto<T, L>(r, i, re, im, at);
}
// The real results back: lane l's real part (times norm) into line 2 l, its imaginary part into
// line 2 l + 1, each as complex values with zero imaginary parts.
template <typename T, int L>
[[gnu::always_inline]] inline void TileOutRealInverse(const T* re, const T* im, T* const* lines, int64_t t0, T norm) {
  using V = Lanes<T, L>;
  V r[L], i[L];
  TransposedFrom<T, L>(re, im, t0, norm, r, i);
  const V zero{};
  for (int l = 0; l < L; ++l) {
    StoreComplex<T, L>(lines[2 * l] + 2 * t0, r[l], zero);
    StoreComplex<T, L>(lines[2 * l + 1] + 2 * t0, i[l], zero);
  }
}
// The way back: points [t0, t0 + L) of the group (re / im, [point][lane]) times norm into the L
// complex lines.
template <typename T, int L>
[[gnu::always_inline]] inline void TileOutComplex(const T* re, const T* im, T* const* lines, int64_t t0, T norm) {
  Lanes<T, L> r[L], i[L];
  TransposedFrom<T, L>(re, im, t0, norm, r, i);
  for (int j = 0; j < L; ++j) StoreComplex<T, L>(lines[j] + 2 * t0, r[j], i[j]);
}

// (re, im)[p] *= (br, sign * bi)[p] for every point p < m and lane.
template <typename T, int L>
[[gnu::always_inline]] inline void MulPoints(T* re, T* im, int64_t m, const double* br, const double* bi,
                                             double sign) {
  for (int64_t p = 0; p < m; ++p) {
    const T wr = static_cast<T>(br[p]), wi = static_cast<T>(sign * bi[p]);
    T* r = re + p * L;
    T* i = im + p * L;
    const Lanes<T, L> xr = Load<T, L>(r), xi = Load<T, L>(i);
    Store<T, L>(r, xr * wr - xi * wi);
    Store<T, L>(i, xr * wi + xi * wr);
  }
}

}  // namespace openpjrt::cpu::fft_lanes
