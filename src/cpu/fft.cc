// See fft.h. A group of up to kLanes lines is held as split real and imaginary arrays with the
// lines innermost ([point][lane]), so every butterfly is a few whole-vector operations and no
// shuffles. Decimation in time: the points are loaded in bit-reversed order, then butterflies of
// growing span; the spans that stay within blocks of kBlock points run block by block (the block
// stays in the L1 cache), the rest over the whole group.
#include "src/cpu/fft.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "src/cpu/array.h"
#include "src/cpu/isa.h"

// The vector type below never crosses a call boundary (its helpers are always inlined).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace openpjrt::cpu {
namespace {

using cd = std::complex<double>;
constexpr int64_t kLanes = 8;
constexpr int64_t kBlock = 128;  // points: 2 x 128 x 8 doubles = 16 KiB

// One point's kLanes values as a vector (GCC's vector extension: one AVX-512 register in the
// AVX-512 copy, four SSE registers in the baseline one).
typedef double Lanes __attribute__((vector_size(kLanes * sizeof(double))));
[[gnu::always_inline]] inline Lanes Load(const double* p) {
  Lanes v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
[[gnu::always_inline]] inline void Store(double* p, Lanes v) { __builtin_memcpy(p, &v, sizeof(v)); }

// Butterflies of spans [span0, span1) over points [0, m) (span1 <= m), twiddles of span s at
// tw[s - 1 + k] (k < s) for the forward direction; `sign` -1 conjugates them (inverse).
[[gnu::always_inline]] inline void Butterflies(double* re, double* im, int64_t m, int64_t span0, int64_t span1,
                                               const double* twr, const double* twi, double sign) {
  for (int64_t span = span0; span < span1; span *= 2)
    for (int64_t i = 0; i < m; i += 2 * span)
      for (int64_t k = 0; k < span; ++k) {
        const double wr = twr[span - 1 + k], wi = sign * twi[span - 1 + k];
        double* lr = re + (i + k) * kLanes;
        double* li = im + (i + k) * kLanes;
        double* hr = lr + span * kLanes;
        double* hi = li + span * kLanes;
        const Lanes xr = Load(hr), xi = Load(hi), ur = Load(lr), ui = Load(li);
        const Lanes vr = xr * wr - xi * wi, vi = xr * wi + xi * wr;
        Store(hr, ur - vr);
        Store(hi, ui - vi);
        Store(lr, ur + vr);
        Store(li, ui + vi);
      }
}

// (re, im)[p] *= (br, sign * bi)[p] for every point p < m and lane.
[[gnu::always_inline]] inline void MulPoints(double* re, double* im, int64_t m, const double* br, const double* bi,
                                             double sign) {
  for (int64_t p = 0; p < m; ++p) {
    const double wr = br[p], wi = sign * bi[p];
    double* r = re + p * kLanes;
    double* i = im + p * kLanes;
    const Lanes xr = Load(r), xi = Load(i);
    Store(r, xr * wr - xi * wi);
    Store(i, xr * wi + xi * wr);
  }
}

// One length's tables, immutable once built (shared by every thread).
struct Plan {
  int64_t n = 0, m = 0;               // m: the power-of-two size transformed (n, or >= 2n - 1)
  std::vector<double> twr, twi;       // per span s, e^(-pi i k / s) at s - 1 + k
  std::vector<int64_t> rev;           // bit reversal over m
  std::vector<double> chr, chi;       // Bluestein: w_t = e^(-pi i t^2 / n), t < n
  std::vector<double> kr[2], ki[2];   // Bluestein: the transform of the conj(w) factor, forward / inverse
};

// The radix-2 transform of the group (points already in bit-reversed order).
void Pow2(const Plan& p, double* re, double* im, bool inverse) {
  static const auto butterflies = ForCpu<&Butterflies>();
  const double sign = inverse ? -1.0 : 1.0;
  const int64_t block = std::min(kBlock, p.m);
  for (int64_t b = 0; b < p.m; b += block)
    butterflies(re + b * kLanes, im + b * kLanes, block, 1, block, p.twr.data(), p.twi.data(), sign);
  butterflies(re, im, p.m, block, p.m, p.twr.data(), p.twi.data(), sign);
}

// Puts the group's points into bit-reversed order (each point's lanes move together).
void BitReverse(const Plan& p, double* re, double* im) {
  for (int64_t i = 0; i < p.m; ++i) {
    const int64_t j = p.rev[i];
    if (i < j) {
      std::swap_ranges(re + i * kLanes, re + (i + 1) * kLanes, re + j * kLanes);
      std::swap_ranges(im + i * kLanes, im + (i + 1) * kLanes, im + j * kLanes);
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
  // The kernel: conj(w) (forward; w for the inverse) at t and m - t, transformed once. Built in
  // lane 0 of a group.
  std::vector<double> re(static_cast<size_t>(m * kLanes)), im(re.size());
  for (int dir = 0; dir < 2; ++dir) {
    std::fill(re.begin(), re.end(), 0.0);
    std::fill(im.begin(), im.end(), 0.0);
    const double s = dir == 0 ? -1.0 : 1.0;  // conj(w) forward, w inverse
    for (int64_t t = 0; t < n; ++t) {
      re[p.rev[t] * kLanes] = p.chr[t];
      im[p.rev[t] * kLanes] = s * p.chi[t];
      if (t > 0) {
        re[p.rev[m - t] * kLanes] = p.chr[t];
        im[p.rev[m - t] * kLanes] = s * p.chi[t];
      }
    }
    Pow2(p, re.data(), im.data(), false);
    p.kr[dir].resize(static_cast<size_t>(m));
    p.ki[dir].resize(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) {
      p.kr[dir][k] = re[k * kLanes] / static_cast<double>(m);  // the 1/m of the inverse transform
      p.ki[dir][k] = im[k * kLanes] / static_cast<double>(m);
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

// The transform of a group whose point t < n is at re/im[t * kLanes + lane], in natural order or,
// for a radix-2 length with `reversed`, already in bit-reversed order; results in natural order
// (the inverse not yet divided by n).
void TransformGroup(const Plan& p, double* re, double* im, bool inverse, bool reversed) {
  static const auto mul_points = ForCpu<&MulPoints>();
  const int64_t n = p.n, m = p.m;
  const double s = inverse ? -1.0 : 1.0;  // the inverse uses conj(w)
  if (m == n) {
    if (!reversed) BitReverse(p, re, im);
    Pow2(p, re, im, inverse);
    return;
  }
  // Bluestein: y = x w (zero past n), Y = F(y) K, y = F^-1(Y) / m, X = y w.
  mul_points(re, im, n, p.chr.data(), p.chi.data(), s);
  std::fill(re + n * kLanes, re + m * kLanes, 0.0);
  std::fill(im + n * kLanes, im + m * kLanes, 0.0);
  BitReverse(p, re, im);
  Pow2(p, re, im, false);
  mul_points(re, im, m, p.kr[inverse ? 1 : 0].data(), p.ki[inverse ? 1 : 0].data(), 1.0);
  BitReverse(p, re, im);
  Pow2(p, re, im, true);
  mul_points(re, im, n, p.chr.data(), p.chi.data(), s);
}

}  // namespace

void FftAlong(ExecState& st, cd* a, std::span<const int64_t> dims, size_t d, bool inverse, FftLines lines) {
  const int64_t n = dims[d];
  int64_t total = 1, stride = 1;
  for (int64_t x : dims) total *= x;
  for (size_t i = d + 1; i < dims.size(); ++i) stride *= dims[i];
  if (n == 0 || total == 0) return;
  const int64_t count = total / n;  // lines
  auto base = [&](int64_t q) { return q / stride * stride * n + q % stride; };
  const bool real = lines != FftLines::kComplex;
  const int64_t per_group = real ? 2 * kLanes : kLanes;  // real lines go two to a lane
  const int64_t groups = (count + per_group - 1) / per_group;
  if (n == 1) {
    if (real)
      for (int64_t q = 0; q < count; ++q) a[base(q)] = cd(a[base(q)].real(), 0);
    return;
  }
  const std::shared_ptr<const Plan> plan = PlanFor(n);
  const Plan& p = *plan;
  const double norm = inverse ? 1.0 / static_cast<double>(n) : 1.0;
  auto run = [&](int64_t g0, int64_t g1) {
    Array holder;
    double* re = AllocateScratch<double>(2 * p.m * kLanes, &holder);
    double* im = re + p.m * kLanes;
    std::vector<const cd*> src(static_cast<size_t>(per_group));
    std::vector<cd*> dst(static_cast<size_t>(per_group));
    // Radix-2 lengths are loaded straight into bit-reversed order.
    const bool pow2 = p.m == n;
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t q0 = g * per_group, qn = std::min(per_group, count - q0);
      for (int64_t j = 0; j < qn; ++j) src[j] = dst[j] = a + base(q0 + j);
      std::fill(re, re + n * kLanes, 0.0);
      std::fill(im, im + n * kLanes, 0.0);
      // Point t of every line of the group, one point (a run of lanes) at a time.
      for (int64_t t = 0; t < n; ++t) {
        const int64_t at = (pow2 ? p.rev[t] : t) * kLanes;
        double* r = re + at;
        double* i = im + at;
        const int64_t off = t * stride;
        if (lines == FftLines::kComplex) {
          for (int64_t j = 0; j < qn; ++j) r[j] = src[j][off].real(), i[j] = src[j][off].imag();
        } else if (lines == FftLines::kRealForward) {  // z = x + i y for lines 2l, 2l + 1
          for (int64_t l = 0; 2 * l < qn; ++l) r[l] = src[2 * l][off].real();
          for (int64_t l = 0; 2 * l + 1 < qn; ++l) i[l] = src[2 * l + 1][off].real();
        } else {
          // Z = X + i Y, whose inverse is x + i y for Hermitian X and Y: the imaginary parts at
          // points 0 and n/2, which a real inverse ignores, are left out.
          const bool keep_imag = !(t == 0 || 2 * t == n);
          for (int64_t l = 0; 2 * l < qn; ++l) r[l] = src[2 * l][off].real(), i[l] = keep_imag ? src[2 * l][off].imag() : 0.0;
          for (int64_t l = 0; 2 * l + 1 < qn; ++l) {
            const cd y = src[2 * l + 1][off];
            if (keep_imag) r[l] -= y.imag();
            i[l] += y.real();
          }
        }
      }
      TransformGroup(p, re, im, inverse, pow2);
      // Real spectra: points 0..n/2 (the rest mirrors them).
      const int64_t points = lines == FftLines::kRealForward ? n / 2 + 1 : n;
      for (int64_t t = 0; t < points; ++t) {
        const double* r = re + t * kLanes;
        const double* i = im + t * kLanes;
        const int64_t off = t * stride;
        if (lines == FftLines::kComplex) {
          for (int64_t j = 0; j < qn; ++j) dst[j][off] = cd(r[j] * norm, i[j] * norm);
        } else if (lines == FftLines::kRealForward) {
          // X_k = (Z_k + conj(Z_-k)) / 2, Y_k = (Z_k - conj(Z_-k)) / 2i.
          const double* mr = re + (t == 0 ? 0 : n - t) * kLanes;
          const double* mi = im + (t == 0 ? 0 : n - t) * kLanes;
          for (int64_t l = 0; 2 * l < qn; ++l) {
            dst[2 * l][off] = cd(0.5 * (r[l] + mr[l]) * norm, 0.5 * (i[l] - mi[l]) * norm);
            if (2 * l + 1 < qn) dst[2 * l + 1][off] = cd(0.5 * (i[l] + mi[l]) * norm, -0.5 * (r[l] - mr[l]) * norm);
          }
        } else {
          for (int64_t l = 0; 2 * l < qn; ++l) {
            dst[2 * l][off] = cd(r[l] * norm, 0.0);
            if (2 * l + 1 < qn) dst[2 * l + 1][off] = cd(i[l] * norm, 0.0);
          }
        }
      }
    }
  };
  // About 5 m log2(m) flops per line; pieces of the groups over the threads when worth it.
  int64_t log_m = 0;
  while ((int64_t{1} << log_m) < p.m) ++log_m;
  const int64_t work = groups * per_group * 5 * p.m * std::max<int64_t>(log_m, 1);
  const int64_t pieces = std::min<int64_t>(groups, 2 * st.threads());
  if (pieces <= 1 || work < (int64_t{1} << 20)) {
    run(0, groups);
    return;
  }
  st.ParallelFor(pieces, [&](int64_t i) { run(groups * i / pieces, groups * (i + 1) / pieces); });
}

}  // namespace openpjrt::cpu
