// Strided copies of whole elements, and reading index scalars. Internal to src/cpu.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "src/cpu/exec/array.h"

namespace openpjrt::cpu {

inline void CopyElem(uint8_t* dst, const uint8_t* src, int64_t es) {
  switch (es) {
    case 1: *dst = *src; break;
    case 2: std::memcpy(dst, src, 2); break;
    case 4: std::memcpy(dst, src, 4); break;
    case 8: std::memcpy(dst, src, 8); break;
    default: std::memcpy(dst, src, es); break;
  }
}

// Copies a box of `count` elements: element (i0, ..., ik) moves from
// src + sum(i * src_stride) to dst + sum(i * dst_stride). Strides are in bytes and may be
// negative or zero.
inline void StridedCopy(const std::vector<int64_t>& count, const uint8_t* src,
                 const std::vector<int64_t>& src_stride, uint8_t* dst,
                 const std::vector<int64_t>& dst_stride, int64_t es) {
  const size_t rank = count.size();
  for (int64_t c : count)
    if (c == 0) return;
  if (rank == 0) {
    CopyElem(dst, src, es);
    return;
  }
  std::vector<int64_t> idx(rank, 0);
  const int64_t inner = count[rank - 1], ss = src_stride[rank - 1], ds = dst_stride[rank - 1];
  const bool contiguous = ss == es && ds == es;
  while (true) {
    if (contiguous) {
      std::memcpy(dst, src, inner * es);
    } else {
      const uint8_t* s = src;
      uint8_t* d = dst;
      for (int64_t i = 0; i < inner; ++i, s += ss, d += ds) CopyElem(d, s, es);
    }
    // Advance the outer index.
    int64_t k = static_cast<int64_t>(rank) - 2;
    for (; k >= 0; --k) {
      src += src_stride[k];
      dst += dst_stride[k];
      if (++idx[k] < count[k]) break;
      src -= src_stride[k] * count[k];
      dst -= dst_stride[k] * count[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

inline std::vector<int64_t> ByteStrides(const ArrayType& t) {
  std::vector<int64_t> s = RowMajorStrides(t.dims);
  for (int64_t& v : s) v *= t.ElementSize();
  return s;
}

// es bytes from src to dst, inlined for every element size (a memcpy of a run-time size is a
// library call, which per element cost gathers and scatters most of their time).
inline void CopyElement(uint8_t* dst, const uint8_t* src, int64_t es) {
  switch (es) {
    case 1: *dst = *src; return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    case 16: std::memcpy(dst, src, 16); return;
    default: std::memcpy(dst, src, static_cast<size_t>(es));
  }
}

// Reads a rank-0 integer (or boolean) array as int64.
int64_t ReadIndex(const Array& a);
// The same for the element of kind `kind` at p (no array around it).
int64_t ReadIndexAt(ElemKind kind, const uint8_t* p);
// Reads every element of an integer array as int64.
std::vector<int64_t> ReadIndexVector(const Array& a);
// A rank-0 array holding element `linear` of `a`.
Array ScalarAt(const Array& a, int64_t linear);
// Advances a row-major multi-index over `dims`; false after the last one.
bool NextIndex(std::vector<int64_t>& idx, const std::vector<int64_t>& dims);

// Writes `len` copies of the `es`-byte element at `element` to `dst`: zeros with memset (which
// streams large fills past the caches), elements whose size divides 64 as 64-byte pattern copies
// (constant-size memcpys: vector stores), others by memcpys that double what is written. (An
// element-by-element loop is not vectorised at -O2: it took a quarter of a layer norm's time
// filling its broadcast blocks, and doubling memcpys of 4 KiB a fifth.)
inline void FillRepeated(uint8_t* dst, const uint8_t* element, int64_t es, int64_t len) {
  if (len <= 0 || es <= 0) return;
  bool zero = true;
  for (int64_t b = 0; b < es && zero; ++b) zero = element[b] == 0;
  if (zero || es == 1) {
    std::memset(dst, zero ? 0 : element[0], static_cast<size_t>(len * es));
    return;
  }
  if (64 % es == 0) {
    alignas(64) uint8_t pattern[64];
    for (int64_t b = 0; b < 64; b += es) std::memcpy(pattern + b, element, static_cast<size_t>(es));
    const int64_t bytes = len * es;
    int64_t o = 0;
    for (; o + 64 <= bytes; o += 64) std::memcpy(dst + o, pattern, 64);
    std::memcpy(dst + o, pattern, static_cast<size_t>(bytes - o));
    return;
  }
  std::memcpy(dst, element, static_cast<size_t>(es));
  const int64_t chunk = std::max<int64_t>(1, 4096 / es);
  for (int64_t filled = 1; filled < len;) {
    const int64_t n = std::min({filled, chunk, len - filled});  // dst[0, n) never overlaps the target
    std::memcpy(dst + filled * es, dst, static_cast<size_t>(n * es));
    filled += n;
  }
}

}  // namespace openpjrt::cpu
