// Data movement: every kernel here is a strided copy of whole elements, so one implementation
// serves every element kind.
#include <algorithm>
#include <cstring>
#include <span>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/exec/isa.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/kernels/kernels.h"
#include "src/cpu/exec/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

}  // namespace

Array ScalarAt(const Array& a, int64_t linear) {
  ArrayType t{a.elem(), {}};
  Array s = Array::Allocate(t);
  std::memcpy(s.mutable_data(), a.data() + linear * t.ElementSize(), t.ElementSize());
  return s;
}

bool NextIndex(std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
    if (++idx[k] < dims[k]) return true;
    idx[k] = 0;
  }
  return false;
}

std::vector<int64_t> ReadIndexVector(const Array& a) {
  std::vector<int64_t> out;
  const int64_t n = a.NumElements(), es = a.type().ElementSize();
  for (int64_t i = 0; i < n; ++i) {
    Array one = Array::Allocate(ArrayType{a.elem(), {}});
    std::memcpy(one.mutable_data(), a.data() + i * es, es);
    out.push_back(ReadIndex(one));
  }
  return out;
}

int64_t ReadIndexAt(ElemKind kind, const uint8_t* p) {
  int64_t v = 0;
  DispatchKind(kind, [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kSigned || T::kCat == Cat::kUnsigned || T::kCat == Cat::kBool) {
      typename T::S x;
      std::memcpy(&x, p, sizeof(x));
      v = static_cast<int64_t>(T::Load(x));
    }
  });
  return v;
}

int64_t ReadIndex(const Array& a) {
  int64_t v = 0;
  DispatchKind(a.elem(), [&]<ElemKind K>() {
    using T = Traits<K>;
    if constexpr (T::kCat == Cat::kSigned || T::kCat == Cat::kUnsigned || T::kCat == Cat::kBool)
      v = static_cast<int64_t>(T::Load(*a.as<typename T::S>()));
  });
  return v;
}

namespace {

// Fills `n` elements of `es` bytes at `out` with the value at `v`: typed stores the compiler
// vectorises (a scalar broadcast into 25 MB through the strided copy took 4.6-6.9 ms).
void BroadcastInDim(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  const auto& dims = s.Params<BroadcastParams>().dims;
  Array r = st.NewArray(s.out_types[0]);
  if (a.NumElements() == 1) {
    // Large fills (a scatter-add gradient's zeros: 25.6 MB took 0.93 ms at one thread or two)
    // in pieces of at least 1 MiB over the threads.
    const int64_t es = r.type().ElementSize(), n = r.NumElements();
    const int64_t per = std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(1, es));
    const int64_t pieces = std::min<int64_t>((n + per - 1) / per, 4 * st.threads());
    if (pieces <= 1) {
      FillRepeated(r.mutable_data(), a.data(), es, n);
    } else {
      st.ParallelFor(pieces, [&](int64_t p) {
        const int64_t i0 = n * p / pieces, i1 = n * (p + 1) / pieces;
        FillRepeated(r.mutable_data() + i0 * es, a.data(), es, i1 - i0);
      });
    }
    st.slots[s.out[0]] = RtValue::Of(std::move(r));
    return;
  }
  std::vector<int64_t> in_stride = ByteStrides(a.type());
  std::vector<int64_t> src_stride(r.type().rank(), 0);
  for (size_t i = 0; i < dims.size(); ++i)
    if (a.dims()[i] != 1) src_stride[dims[i]] = in_stride[i];
  StridedCopy(r.dims(), a.data(), src_stride, r.mutable_data(), ByteStrides(r.type()),
              r.type().ElementSize());
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Reshape(const Step& s, ExecState& st) {
  st.slots[s.out[0]] = RtValue::Of(st.slots[s.in[0]].array.Reshaped(s.out_types[0]));
}

// The plane of result dimensions p (contiguous in the source) and last (contiguous in the
// result) in kTile x kTile tiles, so that each tile's source rows and result rows stay in L1:
// walking the result in order read the source a column at a time, one cache line (and, for
// rows 4 KiB apart, one set of L1) per element: a 1024 x 1024 f32 transpose took 4.4 ms.
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
// TransposePlane for 4-byte elements by 8 x 8 blocks in AVX2 registers (eight rows of the source
// loaded, transposed by unpacks, shuffles and lane permutes, stored as eight rows of the result),
// within 64 x 64 tiles; the ragged edges element by element. A 256 x 256 f32 transpose (the first
// step of JAX's cholesky) took 49 us element by element.
OPJ_TARGET_256 void TransposePlane32(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols,
                                     int64_t src_col_stride, int64_t dst_row_stride) {
  constexpr int64_t kTile = 64;
  auto element = [&](int64_t i, int64_t j) {
    std::memcpy(dst + i * dst_row_stride + j * 4, src + i * 4 + j * src_col_stride, 4);
  };
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      const int64_t i8 = i0 + (i1 - i0) / 8 * 8, j8 = j0 + (j1 - j0) / 8 * 8;
      for (int64_t i = i0; i < i8; i += 8) {
        for (int64_t j = j0; j < j8; j += 8) {
          __m256 r[8], t[8];
          for (int k = 0; k < 8; ++k)
            r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * 4 + (j + k) * src_col_stride));
          for (int k = 0; k < 8; k += 2) {
            t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
            t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
          }
          for (int k = 0; k < 8; k += 4) {
            r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
            r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
            r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
            r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
          }
          for (int k = 0; k < 4; ++k) {
            t[k] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x20);
            t[k + 4] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x31);
          }
          for (int k = 0; k < 8; ++k)
            _mm256_storeu_ps(reinterpret_cast<float*>(dst + (i + k) * dst_row_stride + j * 4), t[k]);
        }
        for (int64_t k = i; k < i + 8; ++k)
          for (int64_t j = j8; j < j1; ++j) element(k, j);
      }
      for (int64_t i = i8; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) element(i, j);
    }
}
#endif

template <typename U>
void TransposePlane(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols, int64_t src_col_stride,
                    int64_t dst_row_stride) {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  if (sizeof(U) == 4 && IsaLevel() >= 1) return TransposePlane32(src, dst, rows, cols, src_col_stride, dst_row_stride);
#endif
  constexpr int64_t kTile = 64 / static_cast<int64_t>(sizeof(U)) < 8 ? 8 : 64 / static_cast<int64_t>(sizeof(U));
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        U* d = reinterpret_cast<U*>(dst + i * dst_row_stride);
        const uint8_t* sp = src + i * static_cast<int64_t>(sizeof(U));
        for (int64_t j = j0; j < j1; ++j) std::memcpy(&d[j], sp + j * src_col_stride, sizeof(U));
      }
    }
}

// A transpose whose result's last dimension is strided in the source while another of its
// dimensions is contiguous there, tile by tile (TransposePlane) for every index of the other
// dimensions, on the threads when large; false for anything else.
bool TiledTranspose(ExecState& st, const std::vector<int64_t>& count, const uint8_t* src,
                    const std::vector<int64_t>& ss, uint8_t* dst, int64_t es) {
  const size_t rank = count.size();
  if (rank < 2 || (es != 1 && es != 2 && es != 4 && es != 8) || ss[rank - 1] == es) return false;
  size_t p = rank;
  for (size_t d = 0; d + 1 < rank; ++d)
    if (ss[d] == es) p = d;
  if (p == rank || count[p] < 8 || count[rank - 1] < 8) return false;
  const std::vector<int64_t> ds = RowMajorStrides(count);
  std::vector<int64_t> outer_dims;  // the other dimensions
  for (size_t d = 0; d + 1 < rank; ++d)
    if (d != p) outer_dims.push_back(static_cast<int64_t>(d));
  int64_t planes = 1;
  for (int64_t d : outer_dims) planes *= count[d];
  const int64_t rows = count[p], cols = count[rank - 1];
  // Pieces: planes, or bands of rows of one plane.
  const int64_t bands = planes >= 2 * st.threads() || planes * rows * cols * es < (int64_t{1} << 20)
                            ? 1 : std::min<int64_t>(4 * st.threads(), (rows + 63) / 64);
  st.ParallelFor(planes * bands, [&](int64_t piece) {
    int64_t q = piece / bands, s_off = 0, d_off = 0;
    for (size_t k = outer_dims.size(); k-- > 0;) {
      const int64_t d = outer_dims[k], i = q % count[d];
      q /= count[d];
      s_off += i * ss[d];
      d_off += i * ds[d] * es;
    }
    const int64_t band = piece % bands, r0 = rows * band / bands, r1 = rows * (band + 1) / bands;
    const uint8_t* sp = src + s_off + r0 * es;
    uint8_t* dp = dst + d_off + r0 * ds[p] * es;
    const int64_t n = r1 - r0, cs = ss[rank - 1], rs = ds[p] * es;
    switch (es) {
      case 1: return TransposePlane<uint8_t>(sp, dp, n, cols, cs, rs);
      case 2: return TransposePlane<uint16_t>(sp, dp, n, cols, cs, rs);
      case 4: return TransposePlane<uint32_t>(sp, dp, n, cols, cs, rs);
      default: return TransposePlane<uint64_t>(sp, dp, n, cols, cs, rs);
    }
  });
  return true;
}

void Transpose(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  const auto& perm = s.Params<TransposeParams>().perm;
  Array r = st.NewArray(s.out_types[0]);
  std::vector<int64_t> in_stride = ByteStrides(a.type()), src_stride(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) src_stride[i] = in_stride[perm[i]];
  if (r.NumElements() > 0 &&
      TiledTranspose(st, r.dims(), a.data(), src_stride, r.mutable_data(), r.type().ElementSize())) {
    st.slots[s.out[0]] = RtValue::Of(std::move(r));
    return;
  }
  StridedCopy(r.dims(), a.data(), src_stride, r.mutable_data(), ByteStrides(r.type()),
              r.type().ElementSize());
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Reverse(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  Array r = st.NewArray(s.out_types[0]);
  std::vector<int64_t> stride = ByteStrides(a.type());
  const uint8_t* base = a.data();
  for (int64_t d : s.Params<ReverseParams>().dims) {
    if (a.dims()[d] == 0) continue;
    base += (a.dims()[d] - 1) * stride[d];
    stride[d] = -stride[d];
  }
  StridedCopy(r.dims(), base, stride, r.mutable_data(), ByteStrides(r.type()),
              r.type().ElementSize());
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Concatenate(const Step& s, ExecState& st) {
  const int64_t dim = s.Params<ConcatParams>().dim;
  Array r = st.NewArray(s.out_types[0]);
  std::vector<int64_t> out_stride = ByteStrides(r.type());
  int64_t offset = 0;
  for (int slot : s.in) {
    const Array& a = st.slots[slot].array;
    StridedCopy(a.dims(), a.data(), ByteStrides(a.type()), r.mutable_data() + offset * out_stride[dim],
                out_stride, r.type().ElementSize());
    offset += a.dims()[dim];
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Slice(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  const SliceParams& p = s.Params<SliceParams>();
  Array r = st.NewArray(s.out_types[0]);
  std::vector<int64_t> stride = ByteStrides(a.type());
  const uint8_t* base = a.data();
  // The slice's own shape: its result type may be a reshape of it (compiler::FoldReshapes).
  ArrayType window{a.elem(), {}};
  for (size_t d = 0; d < stride.size(); ++d) {
    base += p.start[d] * stride[d];
    stride[d] *= p.strides[d];
    window.dims.push_back(p.limit[d] > p.start[d] ? (p.limit[d] - p.start[d] + p.strides[d] - 1) / p.strides[d] : 0);
  }
  StridedCopy(window.dims, base, stride, r.mutable_data(), ByteStrides(window), r.type().ElementSize());
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void PadWith(const Step& s, ExecState& st, const PadParams& p) {
  const Array& a = st.slots[s.in[0]].array;
  const Array& v = st.slots[s.in[1]].array;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t es = r.type().ElementSize(), n = r.NumElements();
  uint8_t* out = r.mutable_data();
  for (int64_t i = 0; i < n; ++i) CopyElem(out + i * es, v.data(), es);
  // Input element i lands at low + i * (interior + 1); keep those inside the output.
  const size_t rank = a.dims().size();
  std::vector<int64_t> in_stride = ByteStrides(a.type()), out_stride = ByteStrides(r.type());
  std::vector<int64_t> count(rank), src_stride(rank), dst_stride(rank);
  const uint8_t* src = a.data();
  uint8_t* dst = out;
  for (size_t d = 0; d < rank; ++d) {
    int64_t step = p.interior[d] + 1, len = a.dims()[d], od = r.dims()[d];
    int64_t first = 0;
    if (p.low[d] < 0) first = (-p.low[d] + step - 1) / step;
    int64_t last = len;  // exclusive
    while (last > first && p.low[d] + (last - 1) * step >= od) --last;
    count[d] = std::max<int64_t>(0, last - first);
    src += first * in_stride[d];
    dst += (p.low[d] + first * step) * out_stride[d];
    src_stride[d] = in_stride[d];
    dst_stride[d] = out_stride[d] * step;
  }
  bool empty = false;
  for (int64_t c : count) empty |= c == 0;
  if (!empty) StridedCopy(count, src, src_stride, dst, dst_stride, es);
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Pad(const Step& s, ExecState& st) { PadWith(s, st, s.Params<PadParams>()); }

// dynamic_pad: the padding amounts are operands; the result type is static.
void DynamicPad(const Step& s, ExecState& st) {
  PadParams p;
  p.low = ReadIndexVector(st.slots[s.in[2]].array);
  p.high = ReadIndexVector(st.slots[s.in[3]].array);
  p.interior = ReadIndexVector(st.slots[s.in[4]].array);
  const auto& in = st.slots[s.in[0]].array.dims();
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t want = p.low[d] + p.high[d] + in[d] + std::max<int64_t>(in[d] - 1, 0) * p.interior[d];
    if (p.interior[d] < 0 || want != s.out_types[0].dims[d]) {
      st.Fail(s, absl::InvalidArgumentError(StrCat("padding gives dimension ", d, " size ", want,
                                                   ", the result type says ", s.out_types[0].dims[d])));
      return;
    }
  }
  PadWith(s, st, p);
}

// real_dynamic_slice: start, limit and strides are operands; the result type is static.
void RealDynamicSlice(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  std::vector<int64_t> start = ReadIndexVector(st.slots[s.in[1]].array);
  std::vector<int64_t> limit = ReadIndexVector(st.slots[s.in[2]].array);
  std::vector<int64_t> strides = ReadIndexVector(st.slots[s.in[3]].array);
  for (size_t d = 0; d < start.size(); ++d) {
    bool ok = strides[d] > 0 && start[d] >= 0 && start[d] <= limit[d] && limit[d] <= a.dims()[d] &&
              (limit[d] - start[d] + strides[d] - 1) / strides[d] == s.out_types[0].dims[d];
    if (!ok) {
      st.Fail(s, absl::InvalidArgumentError(StrCat("slice [", start[d], ":", limit[d], ":", strides[d],
                                                   "] of dimension ", d, " does not give ",
                                                   s.out_types[0].ToString())));
      return;
    }
  }
  Array r = st.NewArray(s.out_types[0]);
  std::vector<int64_t> stride = ByteStrides(a.type());
  const uint8_t* base = a.data();
  for (size_t d = 0; d < stride.size(); ++d) {
    base += start[d] * stride[d];
    stride[d] *= strides[d];
  }
  StridedCopy(r.dims(), base, stride, r.mutable_data(), ByteStrides(r.type()), r.type().ElementSize());
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

// The byte offset of a window of `sizes` in `whole` at the start indices read from the slots
// in[first..] (clamped so that the window stays inside, as dynamic_slice and
// dynamic_update_slice say), and whether the window is one contiguous run of bytes (all
// dimensions after its first non-unit one taken whole): a scan's row, read or written each step.
int64_t WindowOffset(const Array& whole, std::span<const int64_t> sizes, const Step& s, size_t first,
                     const ExecState& st, bool* contiguous) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  int64_t offset = 0, stride = whole.type().ElementSize();
  bool whole_after = true;  // every dimension after d is taken whole
  *contiguous = true;
  for (int64_t d = rank - 1; d >= 0; --d) {
    const int64_t n = whole.dims()[d];
    const int64_t start = std::clamp<int64_t>(ReadIndex(st.slots[s.in[first + d]].array), 0, n - sizes[d]);
    offset += start * stride;
    stride *= n;
    if (sizes[d] != 1 && !whole_after) *contiguous = false;
    whole_after = whole_after && sizes[d] == n;
  }
  return offset;
}

void DynamicSlice(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  const auto& sizes = s.Params<DynamicSliceParams>().sizes;
  Array& r = st.Output(s);
  bool contiguous;
  const uint8_t* base = a.data() + WindowOffset(a, sizes, s, 1, st, &contiguous);
  if (contiguous) {
    std::memcpy(r.mutable_data(), base, static_cast<size_t>(r.ByteSize()));
  } else {
    // The window's own shape: the result type may be a reshape of it (compiler::FoldReshapes).
    const ArrayType window{a.elem(), Dims(std::span<const int64_t>(sizes))};
    StridedCopy(window.dims, base, ByteStrides(a.type()), r.mutable_data(), ByteStrides(window),
                r.type().ElementSize());
  }
}

void DynamicUpdateSlice(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  const Array& u = st.slots[s.in[1]].array;
  // The operand's own storage when this is its last use and nothing else holds it (the carried
  // buffer of a lax.scan loop, a donated argument): only the update is written. Otherwise a copy.
  // (A scan writing 1,000 rows of 256 f32 copied the whole 1 MB buffer at each of its steps.)
  const bool steal = a.Unique() && std::find(s.release.begin(), s.release.end(), s.in[0]) != s.release.end() &&
                     std::count(s.in.begin(), s.in.end(), s.in[0]) == 1;
  Array r;
  if (steal) {
    r = st.slots[s.in[0]].array.Reshaped(s.out_types[0]);
    st.slots[s.in[0]] = RtValue();
  } else {
    r = st.NewArray(s.out_types[0]);
    std::memcpy(r.mutable_data(), a.data(), a.ByteSize());
  }
  bool contiguous;
  uint8_t* base = r.mutable_data() + WindowOffset(r, u.dims(), s, 2, st, &contiguous);
  if (contiguous) {
    std::memcpy(base, u.data(), static_cast<size_t>(u.ByteSize()));
  } else {
    StridedCopy(u.dims(), u.data(), ByteStrides(u.type()), base, ByteStrides(r.type()), r.type().ElementSize());
  }
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

template <ElemKind K>
void Iota(const Step& s, ExecState& st) {
  using T = Traits<K>;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t dim = s.Params<IotaParams>().dim;
  std::vector<int64_t> stride = RowMajorStrides(r.dims());
  const int64_t n = r.NumElements(), size = r.dims()[dim], st_d = stride[dim];
  using S = typename T::S;
  auto* out = r.mutable_as<S>();
  // Element i holds (i / st_d) % size: one period of st_d * size elements (each value converted
  // once, repeated st_d times), then copies of it (a division per element took 4 ns: 4 ms for
  // argmax's 256x4096 indices).
  const int64_t period = std::min(n, st_d * size);
  auto value_of = [](int64_t v) -> S {
    using C = typename T::C;
    if constexpr (T::kCat == Cat::kBool) {
      return T::Store(v != 0);
    } else if constexpr (T::kCat == Cat::kComplex) {
      return T::Store(C(static_cast<typename C::value_type>(v)));
    } else {
      return T::Store(static_cast<C>(v));
    }
  };
  if (st_d == 1) {
    // Along the innermost dimension: one value per element (a fill call per element took 2 ns).
    for (int64_t v = 0; v < period; ++v) out[v] = value_of(v);
  } else {
    for (int64_t v = 0; v < size && v * st_d < period; ++v)
      std::fill(out + v * st_d, out + std::min(period, (v + 1) * st_d), value_of(v));
  }
  for (int64_t start = period; start < n; start += period)
    std::memcpy(out + start, out, static_cast<size_t>(std::min(period, n - start)) * sizeof(S));
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Constant(const Step& s, ExecState& st) {
  st.slots[s.out[0]] = s.Params<ConstantParams>().value;
}

void SplatConstant(const Step& s, ExecState& st) {
  const SplatConstantParams& p = s.Params<SplatConstantParams>();
  std::call_once(p.once, [&] {
    Array a = Array::Allocate(p.type);
    const int64_t n = p.type.NumElements(), es = static_cast<int64_t>(p.element.size());
    for (int64_t i = 0; i < n; ++i) std::memcpy(a.mutable_data() + i * es, p.element.data(), es);
    p.value = RtValue::Of(std::move(a));
  });
  st.slots[s.out[0]] = p.value;
}

void Copy(const Step& s, ExecState& st) {
  for (size_t i = 0; i < s.out.size(); ++i) st.slots[s.out[i]] = st.slots[s.in[i]];
}

void Tuple(const Step& s, ExecState& st) {
  RtValue t;
  t.kind = RtValue::Kind::kTuple;
  for (int in : s.in) t.tuple.push_back(st.slots[in]);
  st.slots[s.out[0]] = std::move(t);
}

void GetTupleElement(const Step& s, ExecState& st) {
  RtValue v = st.slots[s.in[0]].tuple[s.Params<GetTupleElementParams>().index];
  st.slots[s.out[0]] = std::move(v);
}

void Token(const Step& s, ExecState& st) { st.slots[s.out[0]] = RtValue::Token(); }

absl::Status NoHost(const Step& s, int64_t channel, const char* what) {
  return absl::FailedPreconditionError(StrCat(s.name, " to/from the host on channel ", channel, " needs a ", what,
                                              " callback for that channel (PJRT_ExecuteOptions.", what,
                                              "_callbacks)"));
}

void HostSend(const Step& s, ExecState& st) {
  const int64_t channel = s.Params<HostTransferParams>().channel;
  if (!st.host) return st.Fail(s, NoHost(s, channel, "send"));
  const RtValue& v = st.slots[s.in[0]];
  if (v.kind != RtValue::Kind::kArray) return st.Fail(s, absl::InvalidArgumentError("send: data is not an array"));
  if (absl::Status r = st.host->Send(channel, v.array); !r.ok()) return st.Fail(s, r);
  st.slots[s.out[0]] = RtValue::Token();
}

void HostRecv(const Step& s, ExecState& st) {
  const int64_t channel = s.Params<HostTransferParams>().channel;
  if (!st.host) return st.Fail(s, NoHost(s, channel, "recv"));
  auto a = st.host->Recv(channel, s.out_types[0]);
  if (!a.ok()) return st.Fail(s, a.status());
  st.slots[s.out[0]] = RtValue::Of(std::move(*a));
  st.slots[s.out[1]] = RtValue::Token();
}

void ScalarU32(const Step& s, ExecState& st, uint32_t v) {
  Array r = st.NewArray(s.out_types[0]);
  *r.mutable_as<uint32_t>() = v;
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}
void ReplicaId(const Step& s, ExecState& st) { ScalarU32(s, st, st.replica_id); }
void PartitionId(const Step& s, ExecState& st) { ScalarU32(s, st, st.partition_id); }

}  // namespace

KernelFn BroadcastInDimKernel() { return &BroadcastInDim; }
KernelFn ReshapeKernel() { return &Reshape; }
KernelFn TransposeKernel() { return &Transpose; }
KernelFn ReverseKernel() { return &Reverse; }
KernelFn ConcatenateKernel() { return &Concatenate; }
KernelFn SliceKernel() { return &Slice; }
KernelFn PadKernel() { return &Pad; }
KernelFn DynamicPadKernel() { return &DynamicPad; }
KernelFn RealDynamicSliceKernel() { return &RealDynamicSlice; }
KernelFn DynamicSliceKernel() { return &DynamicSlice; }
KernelFn DynamicUpdateSliceKernel() { return &DynamicUpdateSlice; }
KernelFn ConstantKernel() { return &Constant; }
KernelFn SplatConstantKernel() { return &SplatConstant; }
KernelFn CopyKernel() { return &Copy; }
KernelFn TupleKernel() { return &Tuple; }
KernelFn GetTupleElementKernel() { return &GetTupleElement; }
KernelFn TokenKernel() { return &Token; }
KernelFn HostSendKernel() { return &HostSend; }
KernelFn HostRecvKernel() { return &HostRecv; }
KernelFn ReplicaIdKernel() { return &ReplicaId; }
KernelFn PartitionIdKernel() { return &PartitionId; }

const uint8_t* WindowInput(const FusedParams& p, const Step& s, const ExecState& st, size_t i, absl::Status* status) {
  const FusedParams::Window& w = p.input_window[i];
  const RtValue& v = st.slots[s.in[i]];
  const size_t first = static_cast<size_t>(w.first_index);
  if (v.kind != RtValue::Kind::kArray || !(v.array.dims() == w.dims) || v.array.type().ElementSize() != p.input_bytes[i] ||
      w.first_index < 0 || first + w.sizes.size() > s.in.size()) {
    *status = absl::InternalError(StrCat("fused window input #", i, " is not the array it was compiled for"));
    return nullptr;
  }
  // (Dimensions taken whole start at 0 whatever their index says.)
  int64_t offset = 0, stride = p.input_bytes[i];
  for (size_t d = w.dims.size(); d-- > 0;) {
    const int64_t n = w.dims[d];
    if (w.sizes[d] != n)
      offset += std::clamp<int64_t>(ReadIndex(st.slots[s.in[first + d]].array), 0, n - w.sizes[d]) * stride;
    stride *= n;
  }
  return v.array.data() + offset;
}

absl::StatusOr<KernelFn> SelectIota(ElemKind k) {
  KernelFn fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() { fn = &Iota<K>; });
  if (!fn) return absl::UnimplementedError(StrCat("iota of ", ir::ElemKindName(k)));
  return fn;
}

}  // namespace openpjrt::cpu
