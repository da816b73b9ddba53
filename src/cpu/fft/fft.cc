// See fft.h. A group of up to L lines (16 float, 8 double: one AVX-512 vector) is held as split
// real and imaginary arrays with the lines innermost ([point][lane]), so every butterfly is a few
// whole-vector operations and no shuffles; lines move in and out of that order through
// registers (TileInComplex and friends). Fewer lines than lanes (one long signal, say) take
// L = 1: the lanes would hold mostly zeros, L times the memory and the memory traffic. Powers of two: decimation in
// time, the points loaded in bit-reversed order, then butterflies of growing span; the spans that
// stay within blocks of kBlock points run block by block (the block stays in the L1 cache), the
// rest over the whole group. Other lengths with small prime factors: Stockham stages
// (StockhamStage). Lengths with a prime factor above kMaxRadix: Bluestein.
#include "src/cpu/fft/fft.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "src/cpu/exec/array.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/fft/fft_lanes.h"

// The vector type below never crosses a call boundary (its helpers are always inlined).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace openpjrt::cpu {
namespace {

constexpr int64_t kBlock = 128;  // points: 2 x 128 x 8 doubles = 16 KiB
constexpr int64_t kTile = 16;    // points moved in and out of a group at a time
constexpr int64_t kFourStep = 1 << 14;  // lines from this long on, when few, by four steps

using namespace fft_lanes;  // NOLINT: the lane helpers (fft_lanes.h), used throughout

constexpr int kMaxRadix = 31;  // larger prime factors go through Bluestein

// One stage of a mixed-radix transform (Stockham's self-sorting order, below): radix r combines
// sub-transforms of length len into ones of length len * r.
struct Stage {
  int r = 0;
  int64_t len = 0;
  size_t tw = 0;     // its twiddles e^(-2 pi i q k / (len r)) at tw + k * r + q (k < len, q < r)
  size_t roots = 0;  // cos / sin(2 pi j / r) at roots + j (j < r)
};

// Stage's butterflies over a group of n points (L lanes each) from (ir, ii) into (outr, outi).
// After the stages before it, sub-transform s (of the n / len interleaved subsequences
// x[s + t n / len]) has its point k at k * (n / len) + s; this stage merges the r of them that
// make subsequence s' < ns = n / (len r), so the loop over s' is innermost and contiguous, and the
// first stage reads x in natural order and the last leaves X in natural order. `sign` -1 gives the
// inverse (conjugated twiddles and roots).
template <typename T, int L>
[[gnu::always_inline]] inline void StockhamStage(const T* ir, const T* ii, T* outr, T* outi, int64_t n, int r,
                                                 int64_t len, const double* twr, const double* twi,
                                                 const double* cr, const double* ci, T sign) {
  const int64_t ns = n / (len * r);
  Lanes<T, L> zr[kMaxRadix], zi[kMaxRadix];
  for (int64_t k = 0; k < len; ++k)
    for (int64_t s = 0; s < ns; ++s) {
      for (int q = 0; q < r; ++q) {
        const int64_t at = ((k * r + q) * ns + s) * L;
        zr[q] = Load<T, L>(ir + at);
        zi[q] = Load<T, L>(ii + at);
        if (k > 0 && q > 0) {
          const T wr = static_cast<T>(twr[k * r + q]), wi = sign * static_cast<T>(twi[k * r + q]);
          const Lanes<T, L> xr = zr[q], xi = zi[q];
          zr[q] = xr * wr - xi * wi;
          zi[q] = xr * wi + xi * wr;
        }
      }
      auto put = [&](int64_t k2, Lanes<T, L> yr, Lanes<T, L> yi) {
        const int64_t at = ((k + len * k2) * ns + s) * L;
        Store<T, L>(outr + at, yr);
        Store<T, L>(outi + at, yi);
      };
      if (r == 2) {
        put(0, zr[0] + zr[1], zi[0] + zi[1]);
        put(1, zr[0] - zr[1], zi[0] - zi[1]);
      } else if (r == 4) {
        // y1 = b - i sign d, y3 = b + i sign d (forward: w = -i).
        const Lanes<T, L> ar = zr[0] + zr[2], ai = zi[0] + zi[2], br = zr[0] - zr[2], bi = zi[0] - zi[2];
        const Lanes<T, L> cr4 = zr[1] + zr[3], ci4 = zi[1] + zi[3], dr = zr[1] - zr[3], di = zi[1] - zi[3];
        put(0, ar + cr4, ai + ci4);
        put(2, ar - cr4, ai - ci4);
        put(1, br + sign * di, bi - sign * dr);
        put(3, br - sign * di, bi + sign * dr);
      } else {
        // Odd r: with a_j = z_j + z_(r-j), b_j = z_j - z_(r-j) (j = 1..h), y_k = t_k - i sign u_k and
        // y_(r-k) = t_k + i sign u_k, t_k = z_0 + sum a_j cos(2 pi jk / r), u_k = sum b_j sin(...).
        const int h = (r - 1) / 2;
        Lanes<T, L> sr = zr[0], si = zi[0];
        for (int j = 1; j <= h; ++j) {
          const Lanes<T, L> arj = zr[j] + zr[r - j], aij = zi[j] + zi[r - j];
          const Lanes<T, L> brj = zr[j] - zr[r - j], bij = zi[j] - zi[r - j];
          zr[j] = arj, zi[j] = aij, zr[r - j] = brj, zi[r - j] = bij;
          sr += arj;
          si += aij;
        }
        put(0, sr, si);
        for (int kk = 1; kk <= h; ++kk) {
          Lanes<T, L> tr = zr[0], ti = zi[0], ur = zr[0] * T(0), ui = ur;
          int jk = 0;
          for (int j = 1; j <= h; ++j) {
            jk += kk;
            if (jk >= r) jk -= r;
            const T c = static_cast<T>(cr[jk]), sn = static_cast<T>(ci[jk]);
            tr += zr[j] * c;
            ti += zi[j] * c;
            ur += zr[r - j] * sn;
            ui += zi[r - j] * sn;
          }
          put(kk, tr + sign * ui, ti - sign * ur);
          put(r - kk, tr - sign * ui, ti + sign * ur);
        }
      }
    }
}

// One length's tables, immutable once built (shared by every thread).
struct Plan {
  enum Kind : uint8_t { kPow2, kMixed, kBluestein } kind = kPow2;
  int64_t n = 0, m = 0;               // m: the size transformed (n, or a power of two >= 2n - 1)
  std::vector<double> twr, twi;       // per span s, e^(-pi i k / s) at s - 1 + k
  std::vector<float> ftwr, ftwi;      // the same rounded to float (complex64 transforms)
  std::vector<int64_t> rev;           // bit reversal over m
  std::vector<double> chr, chi;       // Bluestein: w_t = e^(-pi i t^2 / n), t < n
  std::vector<double> kr[2], ki[2];   // Bluestein: the transform of the conj(w) factor, forward / inverse
  std::vector<Stage> stages;          // mixed radix
  std::vector<double> swr, swi;       // the stages' twiddles and roots
};

// The radix-2 transform of the group (points already in bit-reversed order).
template <typename T, int L>
void Pow2(const Plan& p, T* re, T* im, bool inverse) {
  static const auto butterflies = ForCpu<&Butterflies<T, L>>();
  const T sign = inverse ? T(-1) : T(1);
  const T* twr;
  const T* twi;
  if constexpr (std::is_same_v<T, float>) {
    twr = p.ftwr.data();
    twi = p.ftwi.data();
  } else {
    twr = p.twr.data();
    twi = p.twi.data();
  }
  const int64_t block = std::min(kBlock, p.m);
  for (int64_t b = 0; b < p.m; b += block) butterflies(re + b * L, im + b * L, block, 1, block, twr, twi, sign);
  butterflies(re, im, p.m, block, p.m, twr, twi, sign);
}

// Puts the group's points into bit-reversed order (each point's lanes move together).
template <typename T, int L>
void BitReverse(const Plan& p, T* re, T* im) {
  for (int64_t i = 0; i < p.m; ++i) {
    const int64_t j = p.rev[i];
    if (i < j) {
      std::swap_ranges(re + i * L, re + (i + 1) * L, re + j * L);
      std::swap_ranges(im + i * L, im + (i + 1) * L, im + j * L);
    }
  }
}

std::shared_ptr<const Plan> MakePlan(int64_t n) {
  auto plan = std::make_shared<Plan>();
  Plan& p = *plan;
  p.n = n;
  p.m = 1;
  while (p.m < n) p.m *= 2;
  if (p.m != n) {
    // Mixed radix when n's prime factors are small: radix 4 while it divides, then 2, then odd.
    std::vector<int> radices;
    int64_t rest = n;
    while (rest % 4 == 0) radices.push_back(4), rest /= 4;
    while (rest % 2 == 0) radices.push_back(2), rest /= 2;
    for (int f = 3; f <= kMaxRadix && rest > 1; f += 2)
      while (rest % f == 0) radices.push_back(f), rest /= f;
    if (rest == 1) {
      p.kind = Plan::kMixed;
      p.m = n;
      int64_t len = 1;
      for (int r : radices) {
        Stage st{r, len, p.swr.size(), 0};
        for (int64_t k = 0; k < len; ++k)
          for (int q = 0; q < r; ++q) {
            // The angle reduced with q k mod (len r), exact in integers.
            const int64_t e = (q * k) % (len * r);
            const double angle = 2 * M_PI * static_cast<double>(e) / static_cast<double>(len * r);
            p.swr.push_back(std::cos(angle));
            p.swi.push_back(-std::sin(angle));
          }
        st.roots = p.swr.size();
        for (int j = 0; j < r; ++j) {
          const double angle = 2 * M_PI * j / r;
          p.swr.push_back(std::cos(angle));
          p.swi.push_back(std::sin(angle));
        }
        p.stages.push_back(st);
        len *= r;
      }
      return plan;
    }
    p.kind = Plan::kBluestein;
    p.m = 1;
    while (p.m < 2 * n - 1) p.m *= 2;
  }
  const int64_t m = p.m;
  p.twr.assign(static_cast<size_t>(std::max<int64_t>(m, 1)), 0.0);
  p.twi.assign(p.twr.size(), 0.0);
  for (int64_t span = 1; span < m; span *= 2)
    for (int64_t k = 0; k < span; ++k) {
      const double angle = M_PI * static_cast<double>(k) / static_cast<double>(span);
      p.twr[span - 1 + k] = std::cos(angle);
      p.twi[span - 1 + k] = -std::sin(angle);
    }
  p.ftwr.assign(p.twr.begin(), p.twr.end());
  p.ftwi.assign(p.twi.begin(), p.twi.end());
  p.rev.resize(static_cast<size_t>(m));
  int bits = 0;
  while ((int64_t{1} << bits) < m) ++bits;
  for (int64_t i = 0; i < m; ++i) {
    int64_t r = 0;
    for (int b = 0; b < bits; ++b)
      if (i & (int64_t{1} << b)) r |= int64_t{1} << (bits - 1 - b);
    p.rev[i] = r;
  }
  if (m == n) return plan;
  // w_t = e^(-pi i t^2 / n), the angle reduced with t^2 mod 2n.
  p.chr.resize(static_cast<size_t>(n));
  p.chi.resize(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    const auto sq = static_cast<int64_t>(static_cast<unsigned __int128>(t) * static_cast<unsigned __int128>(t) %
                                         static_cast<unsigned __int128>(2 * n));
    const double angle = -M_PI * static_cast<double>(sq) / static_cast<double>(n);
    p.chr[t] = std::cos(angle);
    p.chi[t] = std::sin(angle);
  }
  // The kernel: conj(w) (forward; w for the inverse) at t and m - t, transformed once.
  std::vector<double> re(static_cast<size_t>(m)), im(re.size());
  for (int dir = 0; dir < 2; ++dir) {
    std::fill(re.begin(), re.end(), 0.0);
    std::fill(im.begin(), im.end(), 0.0);
    const double s = dir == 0 ? -1.0 : 1.0;  // conj(w) forward, w inverse
    for (int64_t t = 0; t < n; ++t) {
      re[p.rev[t]] = p.chr[t];
      im[p.rev[t]] = s * p.chi[t];
      if (t > 0) {
        re[p.rev[m - t]] = p.chr[t];
        im[p.rev[m - t]] = s * p.chi[t];
      }
    }
    Pow2<double, 1>(p, re.data(), im.data(), false);
    p.kr[dir].resize(static_cast<size_t>(m));
    p.ki[dir].resize(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) {
      p.kr[dir][k] = re[k] / static_cast<double>(m);  // the 1/m of the inverse transform
      p.ki[dir][k] = im[k] / static_cast<double>(m);
    }
  }
  return plan;
}

// Plans by length, built once (up to 64 lengths kept; beyond, the cache starts over).
std::shared_ptr<const Plan> PlanFor(int64_t n) {
  static std::mutex mu;
  static std::map<int64_t, std::shared_ptr<const Plan>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(n);
    if (it != cache.end()) return it->second;
  }
  auto plan = MakePlan(n);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 64) cache.clear();
  cache.emplace(n, plan);
  return plan;
}

// The transform of a group whose point t < n is at re/im[t * L + lane], in natural order or,
// for a radix-2 length with `reversed`, already in bit-reversed order; results in natural order
// (the inverse not yet divided by n). A mixed-radix length needs `spare`: room for 2 n L doubles.
template <typename T, int L>
void TransformGroup(const Plan& p, T* re, T* im, T* spare, bool inverse, bool reversed) {
  static const auto mul_points = ForCpu<&MulPoints<T, L>>();
  static const auto stage = ForCpu<&StockhamStage<T, L>>();
  const int64_t n = p.n, m = p.m;
  const double s = inverse ? -1.0 : 1.0;  // the inverse uses conj(w)
  if (p.kind == Plan::kPow2) {
    if (!reversed) BitReverse<T, L>(p, re, im);
    Pow2<T, L>(p, re, im, inverse);
    return;
  }
  if (p.kind == Plan::kMixed) {
    T* from[2] = {re, im};
    T* to[2] = {spare, spare + n * L};
    for (const Stage& st : p.stages) {
      stage(from[0], from[1], to[0], to[1], n, st.r, st.len, p.swr.data() + st.tw, p.swi.data() + st.tw,
            p.swr.data() + st.roots, p.swi.data() + st.roots, static_cast<T>(s));
      std::swap(from[0], to[0]);
      std::swap(from[1], to[1]);
    }
    if (from[0] != re) {
      std::copy(from[0], from[0] + n * L, re);
      std::copy(from[1], from[1] + n * L, im);
    }
    return;
  }
  // Bluestein: y = x w (zero past n), Y = F(y) K, y = F^-1(Y) / m, X = y w.
  mul_points(re, im, n, p.chr.data(), p.chi.data(), s);
  std::fill(re + n * L, re + m * L, 0.0);
  std::fill(im + n * L, im + m * L, 0.0);
  BitReverse<T, L>(p, re, im);
  Pow2<T, L>(p, re, im, false);
  mul_points(re, im, m, p.kr[inverse ? 1 : 0].data(), p.ki[inverse ? 1 : 0].data(), 1.0);
  BitReverse<T, L>(p, re, im);
  Pow2<T, L>(p, re, im, true);
  mul_points(re, im, n, p.chr.data(), p.chi.data(), s);
}

// fn(line, point) over a tile: for contiguous lines each line's run at a time, for strided ones
// (neighbouring lines side by side in memory) each point of all lines at a time.
template <typename F>
inline void TileOrder(bool by_line, int64_t lines, int64_t points, F&& fn) {
  if (by_line) {
    for (int64_t j = 0; j < lines; ++j)
      for (int64_t b = 0; b < points; ++b) fn(j, b);
  } else {
    for (int64_t b = 0; b < points; ++b)
      for (int64_t j = 0; j < lines; ++j) fn(j, b);
  }
}

// n = n1 n2 for the four-step transform of a long line: the divisor of n nearest its square root
// with both factors at least `least`, or 0.
int64_t FourStepSplit(int64_t n, int64_t least) {
  int64_t best = 0;
  for (int64_t f = least; f * f <= n; ++f)
    if (n % f == 0 && n / f >= least) best = f;
  return best;
}

}  // namespace

template <typename C>
void FftAlong(ExecState& st, C* a, std::span<const int64_t> dims, size_t d, bool inverse, FftLines lines,
              const C* from);

namespace {

// One long line (n points, stride apart) by the four-step method: as an n1 x n2 array x[j1][j2] =
// x[j1 n2 + j2], transforms of its n2 columns (length n1), twiddles w_n^(k1 j2), transforms of its
// n1 rows (length n2), then X[k1 + n1 k2] is the result's [k1][k2]: two batches of many short lines,
// which fill the vector lanes (and the threads), where the line alone would take one lane.
template <typename C>
void FourStep(ExecState& st, C* line, int64_t stride, int64_t n, int64_t n1, bool inverse, FftLines lines) {
  using T = typename C::value_type;
  const int64_t n2 = n / n1;
  Array holder;
  C* buf = AllocateScratch<C>(n, &holder);
  for (int64_t j = 0; j < n; ++j)
    buf[j] = lines == FftLines::kRealForward ? C(line[j * stride].real(), T(0)) : line[j * stride];
  const int64_t dims[2] = {n1, n2};
  FftAlong(st, buf, dims, 0, inverse, FftLines::kComplex);
  // w_n^(+-e) for e = k1 j2 < n as hi[e / 1024] lo[e % 1024] (both exact to double rounding).
  constexpr int64_t kLo = 1024;
  const double sign = inverse ? 1.0 : -1.0;
  std::vector<std::complex<double>> lo(kLo), hi(static_cast<size_t>(n / kLo + 1));
  auto root = [&](int64_t e) {
    const double angle = sign * 2 * M_PI * static_cast<double>(e) / static_cast<double>(n);
    return std::complex<double>(std::cos(angle), std::sin(angle));
  };
  for (int64_t e = 0; e < kLo; ++e) lo[e] = root(e);
  for (size_t e = 0; e < hi.size(); ++e) hi[e] = root(static_cast<int64_t>(e) * kLo);
  for (int64_t k1 = 1; k1 < n1; ++k1) {
    C* row = buf + k1 * n2;
    for (int64_t j2 = 1, e = k1; j2 < n2; ++j2, e += k1) {
      const std::complex<double> w = hi[e / kLo] * lo[e % kLo];
      row[j2] *= C(static_cast<T>(w.real()), static_cast<T>(w.imag()));
    }
  }
  FftAlong(st, buf, dims, 1, inverse, FftLines::kComplex);
  // The transposed copy out by 16 x 16 blocks (each a few cache lines on both sides).
  const int64_t points = lines == FftLines::kRealForward ? n / 2 + 1 : n;
  constexpr int64_t kB = 16;
  for (int64_t b1 = 0; b1 < n1; b1 += kB)
    for (int64_t b2 = 0; b2 < n2; b2 += kB)
      for (int64_t k2 = b2; k2 < std::min(n2, b2 + kB); ++k2)
        for (int64_t k1 = b1; k1 < std::min(n1, b1 + kB); ++k1) {
          const int64_t k = k1 + n1 * k2;
          if (k >= points) continue;
          const C v = buf[k1 * n2 + k2];
          line[k * stride] = lines == FftLines::kRealInverse ? C(v.real(), T(0)) : v;
        }
}

}  // namespace

namespace {

// FftAlong, or with `rows` set (then `a` is null, d the last dimension, lines kRealForward): the
// lines are rows of plain reals at rows, and their points 0..n/2 go to `spectra` (rows of n/2 + 1).
// False, having done nothing, when such rows would take the four-step way or one lane.
// With `from` (complex lines only): the lines are read from `from` and their transforms written
// to `a` at the same places (no copy of the whole input into the result first).
template <typename C>
bool Transform(ExecState& st, C* a, std::span<const int64_t> dims, size_t d, bool inverse, FftLines lines,
               const typename C::value_type* rows = nullptr, C* spectra = nullptr, const C* from = nullptr) {
  using T = typename C::value_type;
  constexpr int kW = kWide<T>;
  const int64_t n = dims[d];
  int64_t total = 1, stride = 1;
  for (int64_t x : dims) total *= x;
  for (size_t i = d + 1; i < dims.size(); ++i) stride *= dims[i];
  if (n == 0 || total == 0) return !rows;
  const int64_t count = total / n;  // lines
  auto base = [&](int64_t q) { return q / stride * stride * n + q % stride; };
  const bool real = lines != FftLines::kComplex;
  // A vector of lanes when there are lines to fill them, else one. Real lines go two to a lane.
  const int64_t lanes = count >= (real ? 2 * kW : kW) ? kW : 1;
  const int64_t per_group = real ? 2 * lanes : lanes;
  // Complex lines side by side in memory (a transform along a dimension that is not the last)
  // are grouped within each run of `stride` neighbours, the run's last group partly filled: a
  // group that spanned two runs could not move its points through registers and took them one
  // at a time (rfft2 of 8 x 256 x 256, whose second pass has runs of 129 spectra: with the real
  // rows' point-0 tiles, also moved one at a time before, the scalar moves were a quarter of its
  // time; 812 -> 765 us at one thread). Only for runs of several groups, where the partial
  // group adds little arithmetic.
  // The runs' last lines, short of a group (one per run of 129), are grouped with each other
  // after the whole groups: one group of scattered lines instead of a group per run that
  // transformed a full vector of lanes for one line (a ninth of that second pass).
  const bool runs = !rows && lines == FftLines::kComplex && lanes > 1 && stride >= 4 * per_group &&
                    stride % per_group != 0;
  const int64_t full = stride / per_group, rem = stride % per_group;
  const int64_t whole_groups = runs ? count / stride * full : 0, leftovers = runs ? count / stride * rem : 0;
  const int64_t groups = runs ? whole_groups + (leftovers + per_group - 1) / per_group : (count + per_group - 1) / per_group;
  // How many lines group g has, and its line j.
  auto group_size = [&](int64_t g) -> int64_t {
    if (!runs) return std::min(per_group, count - g * per_group);
    return g < whole_groups ? per_group : std::min(per_group, leftovers - (g - whole_groups) * per_group);
  };
  auto line_of = [&](int64_t g, int64_t j) -> int64_t {
    if (!runs) return g * per_group + j;
    if (g < whole_groups) return g / full * stride + g % full * per_group + j;
    const int64_t k = (g - whole_groups) * per_group + j;  // the k-th leftover line
    return k / rem * stride + full * per_group + k % rem;
  };
  const int64_t keep = n / 2 + 1;  // points of a real row's spectrum kept in `spectra`
  if (rows && (lanes == 1 || n == 1 || stride != 1 || lines != FftLines::kRealForward)) return false;
  // The paths that work in place (one point, four steps): the input copied into place first.
  if (from && (n == 1 || (count < kW && n >= kFourStep && FourStepSplit(n, kW) > 0))) {
    std::copy(from, from + total, a);
    from = nullptr;
  }
  if (n == 1) {
    if (real)
      for (int64_t q = 0; q < count; ++q) a[base(q)] = C(a[base(q)].real(), 0);
    return true;
  }
  // Long lines too few to fill the lanes: four steps of many short ones.
  if (count < kW && n >= kFourStep) {
    if (const int64_t n1 = FourStepSplit(n, kW); n1 > 0) {
      for (int64_t q = 0; q < count; ++q) FourStep(st, a + base(q), stride, n, n1, inverse, lines);
      return true;
    }
  }
  const std::shared_ptr<const Plan> plan = PlanFor(n);
  const Plan& p = *plan;
  const T norm = inverse ? static_cast<T>(1.0 / static_cast<double>(n)) : T(1);
  const T half = T(0.5);
  auto run = [&]<int L>(int64_t g0, int64_t g1) {
    Array holder;
    T* re = AllocateScratch<T>((p.kind == Plan::kMixed ? 4 : 2) * p.m * L, &holder);
    T* im = re + p.m * L;
    T* spare = im + p.m * L;
    std::vector<const C*> src(static_cast<size_t>(per_group));
    std::vector<C*> dst(static_cast<size_t>(per_group));
    std::array<const T*, 2 * L> row_ptr{};  // with `rows`: the group's real rows
    // Radix-2 lengths are loaded straight into bit-reversed order.
    const bool pow2 = p.kind == Plan::kPow2;
    T tre[kTile * L], tim[kTile * L];
    std::array<T*, 2 * L> line_ptr{};
    std::array<const T*, 2 * L> in_ptr{};  // where move_in reads the lines (line_ptr, or `from`'s)
    std::array<int64_t, kTile> at{};
    // A tile of kTile points of whole groups of contiguous complex lines, or of real lines
    // forward (2 L), moved through registers, L points at a time (false for one lane: nothing to
    // transpose).
    bool side_by_side = false;  // the group's lines are neighbours in memory (stride > 1)
    auto move_in = [&](int64_t t0) {
      if constexpr (L > 1) {
        static const auto complex_in = ForCpu<&TileInComplex<T, L>>();
        static const auto real_in = ForCpu<&TileInReal<T, L>>();
        static const auto points_in = ForCpu<&PointsInComplex<T, L>>();
        static const auto real_inverse_in = ForCpu<&TileInRealInverse<T, L>>();
        static const auto real_rows_in = ForCpu<&TileInRealRows<T, L>>();
        // (A real inverse's points 0 and n / 2 drop their imaginary parts: those tiles go the
        // scalar way.)
        if (lines == FftLines::kRealInverse && (t0 == 0 || (n % 2 == 0 && t0 <= n / 2 && n / 2 < t0 + kTile)))
          return false;
        for (int64_t b = 0; b < kTile; ++b) at[b] = pow2 ? p.rev[t0 + b] : t0 + b;
        for (int64_t c = 0; c < kTile; c += L) {
          if (rows) real_rows_in(row_ptr.data(), t0 + c, re, im, at.data() + c);
          else if (side_by_side) points_in(in_ptr[0], stride, t0 + c, re, im, at.data() + c);
          else if (lines == FftLines::kComplex) complex_in(in_ptr.data(), t0 + c, re, im, at.data() + c);
          else if (lines == FftLines::kRealForward) real_in(in_ptr.data(), t0 + c, re, im, at.data() + c);
          else real_inverse_in(in_ptr.data(), t0 + c, re, im, at.data() + c);
        }
        return true;
      }
      return false;
    };
    auto move_out = [&](int64_t t0) {
      if constexpr (L > 1) {
        static const auto complex_out = ForCpu<&TileOutComplex<T, L>>();
        static const auto real_out = ForCpu<&TileOutReal<T, L>>();
        static const auto points_out = ForCpu<&PointsOutComplex<T, L>>();
        static const auto real_inverse_out = ForCpu<&TileOutRealInverse<T, L>>();
        if (lines == FftLines::kRealInverse) {
          for (int64_t c = 0; c < kTile; c += L) real_inverse_out(re, im, line_ptr.data(), t0 + c, norm);
          return true;
        }
        if (side_by_side) {
          for (int64_t c = 0; c < kTile; c += L) points_out(re, im, line_ptr[0], stride, t0 + c, norm);
          return true;
        }
        if (lines == FftLines::kComplex) {
          for (int64_t c = 0; c < kTile; c += L) complex_out(re, im, line_ptr.data(), t0 + c, norm);
          return true;
        }
        for (int64_t c = 0; c < kTile; c += L) real_out(re, im, line_ptr.data(), t0 + c, n, half * norm);
        return true;
      }
      return false;
    };
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t qn = group_size(g);
      if (rows) {
        for (int64_t j = 0; j < qn; ++j) {
          row_ptr[j] = rows + line_of(g, j) * n;
          dst[j] = spectra + line_of(g, j) * keep;
        }
      } else {
        for (int64_t j = 0; j < qn; ++j) {
          dst[j] = a + base(line_of(g, j));
          src[j] = from ? from + base(line_of(g, j)) : dst[j];
        }
      }
      // Whole groups move through registers: contiguous lines (complex, or real two to a lane) by
      // L x L transposes, complex lines side by side in memory point by point.
      side_by_side = stride > 1 && lines == FftLines::kComplex && qn == per_group && dst[qn - 1] == dst[0] + (qn - 1);
      const bool fast_moves = L > 1 && qn == per_group && (side_by_side || stride == 1);
      if (fast_moves)
        for (int64_t j = 0; j < qn; ++j) {
          line_ptr[j] = reinterpret_cast<T*>(dst[j]);
          in_ptr[j] = reinterpret_cast<const T*>(src[j]);
        }
      // The group's lines into [point][lane] order by tiles of kTile points: each line's run of a
      // tile is read contiguously into a small tile in [point][lane] order, whose points are
      // then copied whole to their places (bit-reversed for radix 2: there a tile's points are
      // n / kTile apart, all in one set of the L1 cache, so each is written once, not per lane).
      for (int64_t t0 = 0; t0 < n; t0 += kTile) {
        const int64_t tb = std::min(kTile, n - t0);
        if (qn < per_group || lines == FftLines::kRealInverse) {  // lanes not all written / added into
          std::fill(tre, tre + tb * L, T(0));
          std::fill(tim, tim + tb * L, T(0));
        }
        auto take = [&](int64_t j, int64_t b) {
          const int64_t t = t0 + b;
          const C v = rows ? C(row_ptr[j][t], T(0)) : src[j][t * stride];
          if (lines == FftLines::kComplex) {
            tre[b * L + j] = v.real();
            tim[b * L + j] = v.imag();
          } else if (lines == FftLines::kRealForward) {  // z = x + i y for lines 2l, 2l + 1
            T* part = j % 2 == 0 ? &tre[0] : &tim[0];
            part[b * L + j / 2] = v.real();
          } else {
            // Z = X + i Y, whose inverse is x + i y for Hermitian X and Y: the imaginary parts at
            // points 0 and n/2, which a real inverse ignores, are left out.
            const int64_t l = j / 2;
            const T imag = t == 0 || 2 * t == n ? T(0) : v.imag();
            if (j % 2 == 0) {
              tre[b * L + l] += v.real();
              tim[b * L + l] += imag;
            } else {
              tre[b * L + l] -= imag;
              tim[b * L + l] += v.real();
            }
          }
        };
        if (fast_moves && tb == kTile && move_in(t0)) continue;  // (straight to their places)
        TileOrder(stride == 1, qn, tb, take);
        for (int64_t b = 0; b < tb; ++b) {
          const int64_t to = (pow2 ? p.rev[t0 + b] : t0 + b) * L;
          std::copy(tre + b * L, tre + (b + 1) * L, re + to);
          std::copy(tim + b * L, tim + (b + 1) * L, im + to);
        }
      }
      TransformGroup<T, L>(p, re, im, spare, inverse, pow2);
      // Back by tiles the same way. Real spectra: points 0..n/2 (the rest mirrors them).
      const int64_t points = lines == FftLines::kRealForward ? n / 2 + 1 : n;
      for (int64_t t0 = 0; t0 < points; t0 += kTile) {
        const int64_t tb = std::min(kTile, points - t0);
        auto put = [&](int64_t j, int64_t b) {
          const int64_t t = t0 + b, l = j / 2;
          const T* r = re + t * L;
          const T* i = im + t * L;
          C& out = dst[j][t * stride];
          if (lines == FftLines::kComplex) {
            out = C(r[j] * norm, i[j] * norm);
          } else if (lines == FftLines::kRealForward) {
            // X_k = (Z_k + conj(Z_-k)) / 2, Y_k = (Z_k - conj(Z_-k)) / 2i.
            const T* mr = re + (t == 0 ? 0 : n - t) * L;
            const T* mi = im + (t == 0 ? 0 : n - t) * L;
            out = j % 2 == 0 ? C(half * (r[l] + mr[l]) * norm, half * (i[l] - mi[l]) * norm)
                             : C(half * (i[l] + mi[l]) * norm, -half * (r[l] - mr[l]) * norm);
          } else {
            out = C((j % 2 == 0 ? r[l] : i[l]) * norm, T(0));
          }
        };
        if (!(fast_moves && tb == kTile && move_out(t0))) TileOrder(stride == 1, qn, tb, put);
      }
    }
  };
  // About 5 m log2(m) flops per line; pieces of the groups over the threads when worth it.
  int64_t log_m = 0;
  while ((int64_t{1} << log_m) < p.m) ++log_m;
  const int64_t work = groups * per_group * 5 * p.m * std::max<int64_t>(log_m, 1);
  const int64_t pieces = std::min<int64_t>(groups, 2 * st.threads());
  auto run_lanes = [&](int64_t g0, int64_t g1) {
    if (lanes == kW) run.template operator()<kW>(g0, g1);
    else run.template operator()<1>(g0, g1);
  };
  if (pieces <= 1 || work < (int64_t{1} << 20)) {
    run_lanes(0, groups);
    return true;
  }
  st.ParallelFor(pieces, [&](int64_t i) { run_lanes(groups * i / pieces, groups * (i + 1) / pieces); });
  return true;
}

}  // namespace

template <typename C>
void FftAlong(ExecState& st, C* a, std::span<const int64_t> dims, size_t d, bool inverse, FftLines lines,
              const C* from) {
  if (from && lines != FftLines::kComplex) {  // real lines are transformed in place
    int64_t total = 1;
    for (int64_t x : dims) total *= x;
    std::copy(from, from + total, a);
    from = nullptr;
  }
  Transform<C>(st, a, dims, d, inverse, lines, nullptr, nullptr, from);
}

template <typename C>
bool RealRowsForward(ExecState& st, const typename C::value_type* x, int64_t rows, int64_t n, C* half) {
  const int64_t dims[2] = {rows, n};
  return Transform<C>(st, nullptr, dims, 1, false, FftLines::kRealForward, x, half);
}

template void FftAlong(ExecState&, std::complex<double>*, std::span<const int64_t>, size_t, bool, FftLines,
                       const std::complex<double>*);
template void FftAlong(ExecState&, std::complex<float>*, std::span<const int64_t>, size_t, bool, FftLines,
                       const std::complex<float>*);
template bool RealRowsForward(ExecState&, const double*, int64_t, int64_t, std::complex<double>*);
template bool RealRowsForward(ExecState&, const float*, int64_t, int64_t, std::complex<float>*);

}  // namespace openpjrt::cpu
