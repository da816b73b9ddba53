// argmax and argmin: reduce over (values, indices) with the reducer JAX writes (ArgReducer,
// recognised by the compiler), as typed loops. Every output folds its elements in order from the
// init values, as the region would. Outputs along a contiguous kept dimension fold side by side;
// rows reduced along their contiguous last dimension fold 64 at a time (on AVX-512, 16 steps of
// 16 rows loaded and transposed in registers, four groups' dependency chains interleaved; else
// through a transposed staging buffer), or, when there are fewer than 16 rows, as consecutive
// pieces whose results are then combined pairwise in order (a schedule the specification
// allows). Indices that are an iota along the reduced dimension are computed, not read. f32, bf16 and
// f16 rows with such indices, under a reducer whose fold is an order-free selection, are instead read once
// for their extreme and then searched where it first appeared (SelectRows: 256x4096 at one
// thread ~400 -> ~165 us). Other arrangements of the reduced dimensions take the region path
// (GenericReduce).
#include <algorithm>
#include <cstring>
#include <vector>

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/kernels/reduce_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace openpjrt::cpu {
namespace {

// (av, ai)[k] = reducer((av, ai)[k], (xv, xi)[k]) for k < n, without branches.
template <ElemKind KV, ElemKind KI>
[[gnu::always_inline]] inline void ArgFoldBody(const ArgReducer* f, void* av, void* ai, const void* xv,
                                               const void* xi, int64_t n) {
  using TV = Traits<KV>;
  using VS = typename TV::S;
  using IS = typename Traits<KI>::S;
  VS* __restrict a = static_cast<VS*>(av);
  IS* __restrict ia = static_cast<IS*>(ai);
  const VS* __restrict b = static_cast<const VS*>(xv);
  const IS* __restrict ib = static_cast<const IS*>(xi);
  const bool gt = f->gt, lt = f->lt, eq = f->eq, nan = f->nan, by_q = f->by_q;
  for (int64_t k = 0; k < n; ++k) {
    const auto x = TV::Load(a[k]), y = TV::Load(b[k]);
    const bool same = x == y;
    const bool p = (gt & (x > y)) | (lt & (x < y)) | (eq & same) | (nan & (x != x));
    const bool q = p | (same & (ia[k] < ib[k]));
    const bool keep_value = by_q ? q : p;
    a[k] = keep_value ? a[k] : b[k];
    ia[k] = q ? ia[k] : ib[k];
  }
}
using ArgFoldFn = void (*)(const ArgReducer*, void*, void*, const void*, const void*, int64_t);

// The same over `steps` staged steps of 16 lanes (xv[j * 16 + t] is lane t's element j), the
// accumulators kept in registers.
template <ElemKind KV, ElemKind KI>
[[gnu::always_inline]] inline void ArgFoldStepsBody(const ArgReducer* f, void* av, void* ai, const void* xv,
                                                    const void* xi, int64_t steps) {
  using VS = typename Traits<KV>::S;
  using IS = typename Traits<KI>::S;
  VS a[16];
  IS ia[16];
  std::memcpy(a, av, sizeof(a));
  std::memcpy(ia, ai, sizeof(ia));
  for (int64_t j = 0; j < steps; ++j)
    ArgFoldBody<KV, KI>(f, a, ia, static_cast<const VS*>(xv) + j * 16, static_cast<const IS*>(xi) + j * 16, 16);
  std::memcpy(av, a, sizeof(a));
  std::memcpy(ai, ia, sizeof(ia));
}

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
// Transposes 16 rows of 16 4-byte elements in registers: on return r[c] holds element c of every
// row. Unpacking 32- then 64-bit pairs leaves, in 128-bit lane L of u[4g + m], element 4L + m of
// rows 4g..4g+3; two rounds of 128-bit lane shuffles then gather each column's four pieces.
OPJ_TARGET_512 inline void Transpose16x16(__m512i r[16]) {
  __m512i t[16], u[16];
  for (int k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
  }
  for (int g = 0; g < 4; ++g) {
    u[4 * g] = _mm512_unpacklo_epi64(t[4 * g], t[4 * g + 2]);
    u[4 * g + 1] = _mm512_unpackhi_epi64(t[4 * g], t[4 * g + 2]);
    u[4 * g + 2] = _mm512_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
    u[4 * g + 3] = _mm512_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
  }
  for (int m = 0; m < 4; ++m) {
    const __m512i s0 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0x44), s1 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0xEE);
    const __m512i s2 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0x44),
                  s3 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0xEE);
    r[m] = _mm512_shuffle_i32x4(s0, s2, 0x88);
    r[4 + m] = _mm512_shuffle_i32x4(s0, s2, 0xDD);
    r[8 + m] = _mm512_shuffle_i32x4(s1, s3, 0x88);
    r[12 + m] = _mm512_shuffle_i32x4(s1, s3, 0xDD);
  }
}

// G groups of 16 lanes of 4-byte values and 4-byte indices folded over `steps` (a multiple of 16)
// elements, lane t reading xv[pos[t] + j] and xi[pos[t] + j] (or, with xi null, using its
// position in its row, pos[t] - row_start[t] + j, as the index): 16 steps of every lane are
// loaded as rows and transposed in registers, then folded step by step, the G groups' folds
// interleaved so that their dependency chains overlap. kDir: 0 when the reducer picks by GT, 1 by
// LT, 2 anything else (read from f). The compares are those of ArgFoldBody (ordered and quiet for
// floats: NaN compares false except through !=).
template <ElemKind KV, bool kSignedIndex, int kDir, bool kNan, int G>
OPJ_TARGET_512 void ArgFoldRows32(const ArgReducer* f, void* av, void* ai, const void* xv, const void* xi,
                                  const int64_t* pos, const int64_t* row_start, int64_t steps) {
  const __mmask16 gt = f->gt ? 0xFFFF : 0, lt = f->lt ? 0xFFFF : 0, eq = f->eq ? 0xFFFF : 0,
                  nan = f->nan ? 0xFFFF : 0;
  const bool by_q = f->by_q;
  const int32_t* v = static_cast<const int32_t*>(xv);
  const int32_t* w = static_cast<const int32_t*>(xi);
  __m512i a[G], ia[G], first_index[G];
  for (int g = 0; g < G; ++g) {
    a[g] = _mm512_loadu_si512(static_cast<int32_t*>(av) + 16 * g);
    ia[g] = _mm512_loadu_si512(static_cast<int32_t*>(ai) + 16 * g);
    int32_t first[16];
    for (int t = 0; t < 16; ++t) first[t] = static_cast<int32_t>(pos[16 * g + t] - row_start[16 * g + t]);
    first_index[g] = _mm512_loadu_si512(first);
  }
  for (int64_t j = 0; j < steps; j += 16) {
    __m512i rv[G][16], ri[G][16];
    for (int g = 0; g < G; ++g) {
      // Each lane is its own stream, more than the hardware prefetchers follow: ask for the
      // cache lines eight blocks ahead (argmax over 256x4096 f32 at one thread: 4 blocks ahead
      // 455 us, 8 or 16 blocks 395-405 us, 64 blocks 850 us).
      for (int t = 0; t < 16; ++t) {
        _mm_prefetch(reinterpret_cast<const char*>(v + pos[16 * g + t] + j + 128), _MM_HINT_T0);
        if (w) _mm_prefetch(reinterpret_cast<const char*>(w + pos[16 * g + t] + j + 128), _MM_HINT_T0);
      }
      for (int t = 0; t < 16; ++t) rv[g][t] = _mm512_loadu_si512(v + pos[16 * g + t] + j);
      Transpose16x16(rv[g]);
      if (w) {
        for (int t = 0; t < 16; ++t) ri[g][t] = _mm512_loadu_si512(w + pos[16 * g + t] + j);
        Transpose16x16(ri[g]);
      }
    }
    for (int c = 0; c < 16; ++c) {
      const __m512i step = _mm512_set1_epi32(static_cast<int32_t>(j + c));
      for (int g = 0; g < G; ++g) {
        const __m512i b = rv[g][c], ib = w ? ri[g][c] : _mm512_add_epi32(first_index[g], step);
        __mmask16 gm, lm, e, u = 0;
        if constexpr (KV == ElemKind::kF32) {
          const __m512 x = _mm512_castsi512_ps(a[g]), y = _mm512_castsi512_ps(b);
          gm = _mm512_cmp_ps_mask(x, y, _CMP_GT_OQ);
          lm = _mm512_cmp_ps_mask(x, y, _CMP_LT_OQ);
          e = _mm512_cmp_ps_mask(x, y, _CMP_EQ_OQ);
          u = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        } else if constexpr (KV == ElemKind::kI32) {
          gm = _mm512_cmpgt_epi32_mask(a[g], b);
          lm = _mm512_cmplt_epi32_mask(a[g], b);
          e = _mm512_cmpeq_epi32_mask(a[g], b);
        } else {
          gm = _mm512_cmpgt_epu32_mask(a[g], b);
          lm = _mm512_cmplt_epu32_mask(a[g], b);
          e = _mm512_cmpeq_epu32_mask(a[g], b);
        }
        const __mmask16 il =
            kSignedIndex ? _mm512_cmplt_epi32_mask(ia[g], ib) : _mm512_cmplt_epu32_mask(ia[g], ib);
        __mmask16 p;
        if constexpr (kDir == 0) {
          p = kNan ? gm | u : gm;
        } else if constexpr (kDir == 1) {
          p = kNan ? lm | u : lm;
        } else {
          p = (gt & gm) | (lt & lm) | (eq & e) | (nan & u);
        }
        const __mmask16 q = p | (e & il);
        a[g] = _mm512_mask_blend_epi32(by_q ? q : p, b, a[g]);
        ia[g] = _mm512_mask_blend_epi32(q, ib, ia[g]);
      }
    }
  }
  for (int g = 0; g < G; ++g) {
    _mm512_storeu_si512(static_cast<int32_t*>(av) + 16 * g, a[g]);
    _mm512_storeu_si512(static_cast<int32_t*>(ai) + 16 * g, ia[g]);
  }
}
#endif

#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
// f32, bf16 and f16 rows whose indices are their positions, for the reducers whose fold over a row is a
// selection that does not depend on the order of the fold: exactly one of GT / LT picks (argmax /
// argmin), and either NaN handling (p includes v1 != v1) or a row without NaN. Over the row's
// elements in order, such a fold keeps the first NaN (value and index) when the reducer handles
// NaN; otherwise the extreme value's first position as the index, and as the value that
// position's element (chosen by q, or p with EQ), or, chosen by p alone, the last element equal
// to the extreme (they differ only in the sign of a zero). Folding the init values with that
// selection gives the left fold's result from the init values, whatever the row's tree.
// So each row is read once for its extreme (vmaxps / vminps, which skip NaN, 256 elements per
// chunk, remembering the chunks where the extreme first and last appeared and the first chunk
// with a NaN) and then those chunks are searched: numpy's two-pass argmax, against a fold of
// compares and blends per element.
constexpr int64_t kSelectChunk = 256;

// 16 elements of kind KV (f32, or bf16 / f16 widened exactly) as f32 lanes; Partial loads the
// first `m` lanes' elements and gives the others `fill`.
template <ElemKind KV>
struct Lanes16 {
  using S = typename Traits<KV>::S;
  OPJ_TARGET_512 static __m512 Load(const S* p) {
    if constexpr (KV == ElemKind::kF32) {
      return _mm512_loadu_ps(p);
    } else {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      if constexpr (KV == ElemKind::kBF16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
      else return _mm512_cvtph_ps(h);
    }
  }
  OPJ_TARGET_512 static __m512 Partial(const S* p, __mmask16 m, __m512 fill) {
    if constexpr (KV == ElemKind::kF32) {
      return _mm512_mask_loadu_ps(fill, m, p);
    } else {
      const __m256i h = _mm256_maskz_loadu_epi16(m, p);
      const __m512 v = KV == ElemKind::kBF16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16))
                                             : _mm512_cvtph_ps(h);
      return _mm512_mask_blend_ps(m, fill, v);
    }
  }
};

struct RowSelection {
  int64_t first = -1, last = -1, nan = -1;  // chunks: extreme first / last seen, first NaN
  float extreme = 0;
};

template <ElemKind KV, bool kGt>
OPJ_TARGET_512 RowSelection ScanRow(const typename Traits<KV>::S* x, int64_t n) {
  using L = Lanes16<KV>;
  const __m512 ident = _mm512_set1_ps(kGt ? -__builtin_inff() : __builtin_inff());
  RowSelection r;
  for (int64_t c0 = 0, chunk = 0; c0 < n; c0 += kSelectChunk, ++chunk) {
    const int64_t len = std::min(kSelectChunk, n - c0);
    __m512 acc[4] = {ident, ident, ident, ident};
    __mmask16 un = 0;
    int64_t k = 0;
    for (; k + 16 <= len; k += 16) {
      const __m512 v = L::Load(x + c0 + k);
      // (max_ps(v, acc) returns acc when v is NaN.)
      acc[(k >> 4) & 3] = kGt ? _mm512_max_ps(v, acc[(k >> 4) & 3]) : _mm512_min_ps(v, acc[(k >> 4) & 3]);
      un |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    }
    if (k < len) {
      const __mmask16 m = static_cast<__mmask16>((1u << (len - k)) - 1);
      const __m512 v = L::Partial(x + c0 + k, m, ident);
      acc[0] = kGt ? _mm512_max_ps(v, acc[0]) : _mm512_min_ps(v, acc[0]);
      un |= _mm512_mask_cmp_ps_mask(m, v, v, _CMP_UNORD_Q);
    }
    const __m512 a = kGt ? _mm512_max_ps(_mm512_max_ps(acc[0], acc[1]), _mm512_max_ps(acc[2], acc[3]))
                         : _mm512_min_ps(_mm512_min_ps(acc[0], acc[1]), _mm512_min_ps(acc[2], acc[3]));
    const float cm = kGt ? _mm512_reduce_max_ps(a) : _mm512_reduce_min_ps(a);
    if (un && r.nan < 0) r.nan = chunk;
    if (r.first < 0 || (kGt ? cm > r.extreme : cm < r.extreme)) {
      r.extreme = cm;
      r.first = r.last = chunk;
    } else if (cm == r.extreme) {
      r.last = chunk;
    }
  }
  return r;
}

// Positions in x[c0, c0 + len) where pred holds (EQ to `value`, or UNORD): the first, or the last.
template <ElemKind KV, int kPred, bool kLast>
OPJ_TARGET_512 int64_t FindInChunk(const typename Traits<KV>::S* x, int64_t c0, int64_t len, float value) {
  const __m512 w = _mm512_set1_ps(value);
  int64_t found = -1;
  for (int64_t k = 0; k < len; k += 16) {
    const __mmask16 in = len - k >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << (len - k)) - 1);
    const __m512 v = Lanes16<KV>::Partial(x + c0 + k, in, _mm512_setzero_ps());
    const __mmask16 hit = _mm512_mask_cmp_ps_mask(in, v, kPred == 0 ? w : v, kPred == 0 ? _CMP_EQ_OQ : _CMP_UNORD_Q);
    if (!hit) continue;
    if (!kLast) return c0 + k + __builtin_ctz(hit);
    found = c0 + k + 31 - __builtin_clz(static_cast<uint32_t>(hit));
  }
  return found;
}

// Selects over rows [r0, r1) of `n` elements and folds the init values with each row's result
// (fold: ArgFoldBody for f32 values and KI indices); the reducer must be one of the selections
// above (SelectsRows), and a row with NaN under a reducer without NaN handling is folded element
// by element.
template <ElemKind KV, ElemKind KI>
OPJ_TARGET_512 void SelectRows(const ArgReducer* f, ArgFoldFn fold, const typename Traits<KV>::S* x, int64_t r0,
                               int64_t r1, int64_t n, typename Traits<KV>::S init_v, typename Traits<KI>::S init_i,
                               typename Traits<KV>::S* ov, typename Traits<KI>::S* oi) {
  using VS = typename Traits<KV>::S;
  using IS = typename Traits<KI>::S;
  for (int64_t row = r0; row < r1; ++row) {
    const VS* xr = x + row * n;
    VS av = init_v;
    IS ai = init_i;
    const RowSelection sel = f->gt ? ScanRow<KV, true>(xr, n) : ScanRow<KV, false>(xr, n);
    if (sel.nan >= 0 && !f->nan) {
      for (int64_t k = 0; k < n; ++k) {
        const IS index = static_cast<IS>(k);
        fold(f, &av, &ai, xr + k, &index, 1);
      }
    } else {
      // Chunk c of the row: [c * kSelectChunk, c * kSelectChunk + len(c)).
      auto len = [&](int64_t c) { return std::min(kSelectChunk, n - c * kSelectChunk); };
      int64_t at;
      VS v;
      if (sel.nan >= 0) {
        at = FindInChunk<KV, 1, false>(xr, sel.nan * kSelectChunk, len(sel.nan), 0);
        v = xr[at];
      } else {
        at = FindInChunk<KV, 0, false>(xr, sel.first * kSelectChunk, len(sel.first), sel.extreme);
        v = xr[at];
        if (!f->by_q && !f->eq && sel.extreme == 0)  // +0 and -0 are equal: the last one's sign
          v = xr[FindInChunk<KV, 0, true>(xr, sel.last * kSelectChunk, len(sel.last), sel.extreme)];
      }
      const IS index = static_cast<IS>(at);
      fold(f, &av, &ai, &v, &index, 1);
    }
    ov[row] = av;
    oi[row] = ai;
  }
}
#endif

// The transposing loop for these kinds on this CPU and G groups of lanes, or null.
using RowsFoldFn = void (*)(const ArgReducer*, void*, void*, const void*, const void*, const int64_t*,
                            const int64_t*, int64_t);
template <ElemKind KV, ElemKind KI, int G>
RowsFoldFn RowsFold(const ArgReducer& f) {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  constexpr bool value4 = KV == ElemKind::kF32 || KV == ElemKind::kI32 || KV == ElemKind::kU32;
  constexpr bool index4 = KI == ElemKind::kI32 || KI == ElemKind::kU32;
  if constexpr (value4 && index4) {
    constexpr bool s = KI == ElemKind::kI32;
    if (IsaLevel() < 2) return nullptr;
    if (f.gt && !f.lt && !f.eq) return f.nan ? &ArgFoldRows32<KV, s, 0, true, G> : &ArgFoldRows32<KV, s, 0, false, G>;
    if (f.lt && !f.gt && !f.eq) return f.nan ? &ArgFoldRows32<KV, s, 1, true, G> : &ArgFoldRows32<KV, s, 1, false, G>;
    return &ArgFoldRows32<KV, s, 2, true, G>;
  }
#endif
  return nullptr;
}

// Copies `steps` elements of each of `count` lanes into dst, step-major with 16 lanes per step:
// dst[j * 16 + t] = src[start[t] + j].
template <typename U>
void Stage(U* dst, const U* src, const int64_t* start, int64_t count, int64_t steps) {
  for (int64_t t = 0; t < count; ++t) {
    const U* s = src + start[t];
    for (int64_t j = 0; j < steps; ++j) dst[j * 16 + t] = s[j];
  }
}

// The same for indices that are positions: dst[j * 16 + t] = start[t] - row_start[t] + j.
template <typename U>
void StagePositions(U* dst, const int64_t* start, const int64_t* row_start, int64_t count, int64_t steps) {
  for (int64_t t = 0; t < count; ++t)
    for (int64_t j = 0; j < steps; ++j) dst[j * 16 + t] = static_cast<U>(start[t] - row_start[t] + j);
}

// Whether rows of KV values whose indices are positions (`positions`) take SelectRows.
template <ElemKind KV>
bool SelectsRows(const ArgReducer& f, bool positions) {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  constexpr bool kind = KV == ElemKind::kF32 || KV == ElemKind::kBF16 || KV == ElemKind::kF16;
  return kind && positions && (f.gt != f.lt) && IsaLevel() >= 2;
#else
  (void)f;
  (void)positions;
  return false;
#endif
}

// SelectRows behind untyped pointers, for ArgFns.
template <ElemKind KV, ElemKind KI>
void SelectRowsRaw(const ArgReducer* f, ArgFoldFn fold, const void* x, int64_t r0, int64_t r1, int64_t n,
                   const void* init_v, const void* init_i, void* ov, void* oi) {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  if constexpr (KV == ElemKind::kF32 || KV == ElemKind::kBF16 || KV == ElemKind::kF16) {
    using VS = typename Traits<KV>::S;
    using IS = typename Traits<KI>::S;
    SelectRows<KV, KI>(f, fold, static_cast<const VS*>(x), r0, r1, n, *static_cast<const VS*>(init_v),
                       *static_cast<const IS*>(init_i), static_cast<VS*>(ov), static_cast<IS*>(oi));
  }
#endif
}

// The typed loops of one (value kind, index kind) pair that ArgReduceBySize drives.
struct ArgFns {
  ArgFoldFn fold, fold_steps;
  RowsFoldFn (*rows_fold)(const ArgReducer&);
  RowsFoldFn (*rows_fold4)(const ArgReducer&);
  bool (*selects_rows)(const ArgReducer&, bool positions);
  void (*select_rows)(const ArgReducer*, ArgFoldFn, const void* x, int64_t r0, int64_t r1, int64_t n,
                      const void* init_v, const void* init_i, void* ov, void* oi);
};

// An unsigned integer of N bytes: values and indices the driver moves but never compares.
template <size_t N> struct BitsOf;
template <> struct BitsOf<1> { using type = uint8_t; };
template <> struct BitsOf<2> { using type = uint16_t; };
template <> struct BitsOf<4> { using type = uint32_t; };
template <> struct BitsOf<8> { using type = uint64_t; };

// The argmax/argmin-style reduction. The driver depends only on the sizes of values (VS) and
// indices (IS): every comparison is in `fns` (one instance per pair of sizes instead of one per
// pair of kinds; positions written as IS have the bits of the index kind's integer).
template <typename VS, typename IS>
void ArgReduceBySize(const Step& s, ExecState& st, const ArgFns& fns) {
  const Array& values = st.slots[s.in[0]].array;
  const Array& indices = st.slots[s.in[1]].array;
  const ReduceParams& params = s.Params<ReduceParams>();
  const Blocks bl = MakeBlocks(values.dims(), params.dims);
  // (One reduced dimension, as with positions, always makes contiguous blocks.)
  if (!bl.ok || (bl.b == 1 && bl.r0 != 1)) return GenericReduce(s, st);
  const ArgReducer* f = &params.arg;
  const ArgFoldFn fold = fns.fold, fold_steps = fns.fold_steps;
  const RowsFoldFn rows_fold = fns.rows_fold(*f), rows_fold4 = fns.rows_fold4(*f);
  const VS init_v = *st.slots[s.in[2]].array.as<VS>();
  const IS init_i = *st.slots[s.in[3]].array.as<IS>();
  Array out_v = st.NewArray(s.out_types[0]), out_i = Array::Allocate(s.out_types[1]);
  VS* ov = out_v.mutable_as<VS>();
  IS* oi = out_i.mutable_as<IS>();
  const VS* xv = values.as<VS>();
  const IS* xi = params.arg_positions ? nullptr : indices.as<IS>();
  const int64_t A = bl.a, R = bl.r, B = bl.b;
  std::fill_n(ov, A * B, init_v);
  std::fill_n(oi, A * B, init_i);
  if (values.NumElements() == 0) {
    // nothing to fold: the init values
  } else if (B > 1) {
    // Outputs side by side along the contiguous B: each reduced position is one vector step.
    const int64_t pieces = A * R * B * bl.r0 >= (int64_t{1} << 17) ? std::min<int64_t>(A, st.threads()) : 1;
    st.ParallelFor(pieces, [&](int64_t piece) {
      std::vector<IS> position(xi ? 0 : static_cast<size_t>(B));
      for (int64_t r0 = 0; r0 < bl.r0; ++r0)
        for (int64_t a = A * piece / pieces; a < A * (piece + 1) / pieces; ++a)
          for (int64_t r = 0; r < R; ++r) {
            const int64_t off = ((r0 * A + a) * R + r) * B;
            if (!xi) std::fill(position.begin(), position.end(), static_cast<IS>(r));
            fold(f, ov + a * B, oi + a * B, xv + off, xi ? xi + off : position.data(), B);
          }
    });
  } else if (fns.selects_rows(*f, xi == nullptr)) {
    // Rows whose fold is an order-free selection (SelectRows), split over the threads.
    const int64_t pieces = A * R >= (int64_t{1} << 17) ? std::min<int64_t>(A, st.threads()) : 1;
    st.ParallelFor(pieces, [&](int64_t piece) {
      fns.select_rows(f, fold, xv, A * piece / pieces, A * (piece + 1) / pieces, R, &init_v, &init_i, ov, oi);
    });
  } else {
    // Rows of R contiguous elements. Lanes are (row, piece) pairs, up to 64 at a time (four
    // groups of 16 whose folds interleave); a row is cut into `cuts` pieces of near-equal length
    // when there are fewer than 16 rows.
    constexpr int64_t L = 16, kGroups = 4, kSteps = 64;
    const int64_t cuts = A >= L ? 1 : std::max<int64_t>(1, std::min<int64_t>(L / A, R / 64));
    const int64_t lanes = A * cuts, width = cuts == 1 ? L * kGroups : L;
    const int64_t blocks = (lanes + width - 1) / width;
    const int64_t pieces = A * R >= (int64_t{1} << 17) ? std::min<int64_t>(blocks, st.threads()) : 1;
    st.ParallelFor(pieces, [&](int64_t piece) {
      std::vector<VS> sv(static_cast<size_t>(L * kSteps)), av(static_cast<size_t>(width));
      std::vector<IS> si(static_cast<size_t>(L * kSteps)), ai(static_cast<size_t>(width));
      int64_t pos[L * kGroups], end[L * kGroups], row_start[L * kGroups];
      auto index_at = [&](int64_t t, int64_t p) { return xi ? xi[p] : static_cast<IS>(p - row_start[t]); };
      for (int64_t blk = blocks * piece / pieces; blk < blocks * (piece + 1) / pieces; ++blk) {
        const int64_t first = blk * width, count = std::min(width, lanes - first);
        int64_t steps = R;
        for (int64_t t = 0; t < count; ++t) {
          const int64_t lane = first + t, row = lane / cuts, cut = lane % cuts;
          row_start[t] = row * R;
          pos[t] = row * R + R * cut / cuts;
          end[t] = row * R + R * (cut + 1) / cuts;
          if (cut == 0) {
            av[t] = init_v;
            ai[t] = init_i;
          } else {  // a later piece starts from its first element
            av[t] = xv[pos[t]];
            ai[t] = index_at(t, pos[t]);
            ++pos[t];
          }
          steps = std::min(steps, end[t] - pos[t]);
        }
        if (steps >= 16 && rows_fold) {
          const int64_t m = steps / 16 * 16;
          int64_t t0 = 0;
          if (count == L * kGroups) {
            rows_fold4(f, av.data(), ai.data(), xv, xi, pos, row_start, m);
            t0 = count;
          }
          for (; t0 + L <= count; t0 += L)
            rows_fold(f, &av[t0], &ai[t0], xv, xi, pos + t0, row_start + t0, m);
          for (int64_t t = 0; t < t0; ++t) pos[t] += m;
        }
        // The staging path: lanes the loops above left, 16 at a time, up to the common length.
        for (int64_t t0 = 0; t0 < count; t0 += L) {
          const int64_t n = std::min(L, count - t0);
          int64_t todo = end[t0] - pos[t0];
          for (int64_t t = t0; t < t0 + n; ++t) todo = std::min(todo, end[t] - pos[t]);
          for (int64_t done = 0; done < todo;) {
            const int64_t m = std::min(kSteps, todo - done);
            Stage(sv.data(), xv, pos + t0, n, m);
            if (xi) {
              Stage(si.data(), xi, pos + t0, n, m);
            } else {
              StagePositions(si.data(), pos + t0, row_start + t0, n, m);
            }
            if (n == L) {
              fold_steps(f, &av[t0], &ai[t0], sv.data(), si.data(), m);
            } else {
              for (int64_t j = 0; j < m; ++j) fold(f, &av[t0], &ai[t0], sv.data() + j * L, si.data() + j * L, n);
            }
            for (int64_t t = t0; t < t0 + n; ++t) pos[t] += m;
            done += m;
          }
        }
        for (int64_t t = 0; t < count; ++t)  // the longer pieces' last element or so
          for (; pos[t] < end[t]; ++pos[t]) {
            const IS index = index_at(t, pos[t]);
            fold(f, &av[t], &ai[t], xv + pos[t], &index, 1);
          }
        // Each row's pieces combined pairwise, neighbours first (in-order), into its first lane.
        for (int64_t t0 = 0; t0 < count; t0 += cuts) {
          for (int64_t w = 1; w < cuts; w *= 2)
            for (int64_t k = 0; k + w < cuts; k += 2 * w)
              fold(f, &av[t0 + k], &ai[t0 + k], &av[t0 + k + w], &ai[t0 + k + w], 1);
          const int64_t row = (first + t0) / cuts;
          ov[row] = av[t0];
          oi[row] = ai[t0];
        }
      }
    });
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(out_v));
  st.slots[s.out[1]] = RtValue::Of(std::move(out_i));
}

template <ElemKind KV, ElemKind KI>
void ArgReduce(const Step& s, ExecState& st) {
  static const ArgFns fns{ForCpu<&ArgFoldBody<KV, KI>>(), ForCpu<&ArgFoldStepsBody<KV, KI>>(),
                          &RowsFold<KV, KI, 1>, &RowsFold<KV, KI, 4>, &SelectsRows<KV>, &SelectRowsRaw<KV, KI>};
  ArgReduceBySize<typename BitsOf<sizeof(typename Traits<KV>::S)>::type,
                  typename BitsOf<sizeof(typename Traits<KI>::S)>::type>(s, st, fns);
}

}  // namespace

// Indices of i32 (JAX's) and i64 (with x64); unsigned indices, which only hand-written programs
// use, take the generic reduction (their loops were 140 KB of the plugin).
KernelFn ArgReduceKernel(ElemKind v, ElemKind i) {
  if (i != ElemKind::kI32 && i != ElemKind::kI64) return nullptr;
  KernelFn fn = nullptr;
  DispatchKind(v, [&]<ElemKind KV>() {
    if constexpr (HasVectorCopies(KV) && Traits<KV>::kCat != Cat::kBool) {
      fn = i == ElemKind::kI32 ? &ArgReduce<KV, ElemKind::kI32> : &ArgReduce<KV, ElemKind::kI64>;
    }
  });
  return fn;
}

}  // namespace openpjrt::cpu
