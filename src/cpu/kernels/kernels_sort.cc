// sort after the specification's definition: every line of the operands along the dimension is
// ordered stably by the comparator; a comparator the compiler recognised as an order of keys
// (SortKey) sorts (key, position) pairs and gathers each operand once, any other runs as region
// calls (in place when it is elementwise, LaneRegion).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/kernels/region_lanes.h"
#include "src/cpu/exec/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

// Order-preserving keys: an integer whose signed order is the compare's order of the elements.
// TOTALORDER floats: the bits with the magnitude flipped for negative values (-NaN < -inf < ...
// < -0 < +0 < ... < +inf < +NaN); integers: themselves (unsigned ones offset into the signed
// range).
template <typename S>
int64_t OrderKey(S v) {
  if constexpr (std::is_same_v<S, float>) {
    int32_t b;
    std::memcpy(&b, &v, 4);
    return b ^ ((b >> 31) & 0x7FFFFFFF);
  } else if constexpr (std::is_same_v<S, double>) {
    int64_t b;
    std::memcpy(&b, &v, 8);
    return b ^ ((b >> 63) & 0x7FFFFFFFFFFFFFFF);
  } else if constexpr (std::is_same_v<S, uint64_t>) {
    return static_cast<int64_t>(v ^ (uint64_t{1} << 63));
  } else {
    return static_cast<int64_t>(v);
  }
}

// Unsigned keys whose order is the comparator's: the order key moved into the unsigned range
// (32 bits for 32-bit kinds), complemented for a descending sort (so that a stable ascending
// sort of the keys is the stable descending sort of the elements).
template <typename U>
U UnsignedKey(int64_t order_key, bool is_unsigned, bool less) {
  U u;
  if constexpr (sizeof(U) == 4) {
    u = is_unsigned ? static_cast<uint32_t>(order_key) : static_cast<uint32_t>(order_key) ^ 0x80000000u;
  } else {
    u = static_cast<uint64_t>(order_key) ^ (uint64_t{1} << 63);
  }
  return less ? u : static_cast<U>(~u);
}

// One line's stable sort by key: (key, position) pairs in `a` (n of them; `b` the same size) come
// back ordered in `a`. Long lines take a least-significant-digit radix sort (11-bit digits, one
// histogram pass for all digits, digits that every key shares skipped), short ones a merge sort.
template <typename U>
struct KeyedPos {
  U key;
  uint32_t pos;
};

template <typename U>
void SortLine(KeyedPos<U>* a, KeyedPos<U>* b, int64_t n) {
  if (n < 512) {
    std::stable_sort(a, a + n, [](const KeyedPos<U>& x, const KeyedPos<U>& y) { return x.key < y.key; });
    return;
  }
  constexpr int kBits = 11, kDigits = (8 * sizeof(U) + kBits - 1) / kBits;
  constexpr uint32_t kMask = (1u << kBits) - 1;
  std::vector<uint32_t> hist(static_cast<size_t>(kDigits) << kBits, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int d = 0; d < kDigits; ++d) ++hist[(static_cast<size_t>(d) << kBits) + ((a[i].key >> (d * kBits)) & kMask)];
  KeyedPos<U>* from = a;
  KeyedPos<U>* to = b;
  for (int d = 0; d < kDigits; ++d) {
    uint32_t* h = hist.data() + (static_cast<size_t>(d) << kBits);
    if (h[(from[0].key >> (d * kBits)) & kMask] == static_cast<uint32_t>(n)) continue;  // one value: no move
    uint32_t sum = 0;
    for (uint32_t v = 0; v <= kMask; ++v) {
      const uint32_t c = h[v];
      h[v] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i) to[h[(from[i].key >> (d * kBits)) & kMask]++] = from[i];
    std::swap(from, to);
  }
  if (from != a) std::copy(from, from + n, a);
}

// Gathers one line of an operand: out[j * stride] = in[pos[j] * stride] for elements of es bytes.
template <typename U>
void GatherLine(uint8_t* out, const uint8_t* in, const KeyedPos<U>* order, int64_t n, int64_t stride, int64_t es) {
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    T* o = reinterpret_cast<T*>(out);
    const T* x = reinterpret_cast<const T*>(in);
    for (int64_t j = 0; j < n; ++j) std::memcpy(o + j * stride, x + order[j].pos * stride, sizeof(T));
  };
  switch (es) {
    case 1: typed(uint8_t{}); break;
    case 2: typed(uint16_t{}); break;
    case 4: typed(uint32_t{}); break;
    case 8: typed(uint64_t{}); break;
    default:
      for (int64_t j = 0; j < n; ++j) CopyElement(out + j * stride * es, in + order[j].pos * stride * es, es);
  }
}

// Sorts each line stably by order keys computed once per element, with no call per comparison
// (see SortKey): each line's (key, position) pairs are sorted (SortLine) and every operand is
// gathered through the positions. Lines are shared out over the intra-op threads. False, having
// done nothing, for key kinds it does not handle.
bool SortByKeys(const Step& s, ExecState& st, const SortKey& sk, const std::vector<const Array*>& in,
                std::vector<Array>& out) {
  const Array& keys = *in[static_cast<size_t>(sk.operand)];
  const ElemKind k = keys.type().elem;
  const bool is_float = k == ElemKind::kF32 || k == ElemKind::kF64;
  if (is_float && !sk.total_order) return false;  // NaN would break the ordering
  if (!is_float && (sk.canon_zero || sk.canon_nan)) return false;
  if (k != ElemKind::kF32 && k != ElemKind::kF64 && k != ElemKind::kI32 && k != ElemKind::kI64 &&
      k != ElemKind::kU32 && k != ElemKind::kU64)
    return false;
  const std::vector<int64_t>& dims = in[0]->dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t dim = rank == 0 ? 0 : (s.Params<SortParams>().dimension + rank) % rank;
  const int64_t len = rank == 0 ? 1 : dims[dim], total = in[0]->NumElements();
  if (len >= (int64_t{1} << 32)) return false;  // positions are 32-bit
  const int64_t stride = rank == 0 ? 1 : RowMajorStrides(dims)[dim];
  const int64_t lines = len == 0 ? 0 : total / len;
  const bool is_unsigned = k == ElemKind::kU32 || k == ElemKind::kU64;
  // Line l starts at (l / stride) * len * stride + l % stride.
  auto line_base = [&](int64_t l) { return l / stride * len * stride + l % stride; };
  auto run = [&](auto utag) {
    using U = decltype(utag);
    auto sort_lines = [&](int64_t l0, int64_t l1) {
      Array a_room, b_room;
      KeyedPos<U>* a = AllocateScratch<KeyedPos<U>>(len, &a_room);
      KeyedPos<U>* b = AllocateScratch<KeyedPos<U>>(len, &b_room);
      for (int64_t l = l0; l < l1; ++l) {
        const int64_t base = line_base(l);
        auto fill = [&](auto tag) {
          using S = decltype(tag);
          const S* x = keys.as<S>() + base;
          S zero{}, nan{};
          std::memcpy(&zero, &sk.zero_bits, sizeof(S));
          std::memcpy(&nan, &sk.nan_bits, sizeof(S));
          for (int64_t j = 0; j < len; ++j) {
            S v = x[j * stride];
            if constexpr (std::is_floating_point_v<S>) {
              if (sk.canon_zero && v == 0) v = zero;
              if (sk.canon_nan && v != v) v = nan;
            }
            a[j] = {UnsignedKey<U>(OrderKey(v), is_unsigned, sk.less), static_cast<uint32_t>(j)};
          }
        };
        switch (k) {
          case ElemKind::kF32: fill(float{}); break;
          case ElemKind::kF64: fill(double{}); break;
          case ElemKind::kI32: fill(int32_t{}); break;
          case ElemKind::kI64: fill(int64_t{}); break;
          case ElemKind::kU32: fill(uint32_t{}); break;
          default: fill(uint64_t{}); break;
        }
        SortLine(a, b, len);
        for (size_t i = 0; i < in.size(); ++i) {
          const int64_t es = out[i].type().ElementSize();
          GatherLine(out[i].mutable_data() + base * es, in[i]->data() + base * es, a, len, stride, es);
        }
      }
    };
    const int64_t pieces = lines >= 2 && total >= (int64_t{1} << 15) ? std::min<int64_t>(lines, st.threads()) : 1;
    st.ParallelFor(pieces, [&](int64_t piece) { sort_lines(lines * piece / pieces, lines * (piece + 1) / pieces); });
  };
  if (k == ElemKind::kF32 || k == ElemKind::kI32 || k == ElemKind::kU32) run(uint32_t{});
  else run(uint64_t{});
  for (size_t i = 0; i < in.size(); ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
  return true;
}

// SortByKeys for a comparator lowered to one compare step of one operand's pair (a, b).
bool SortByCompareStep(const Step& s, ExecState& st, const Step& c, const int* arg_of,
                       const std::vector<const Array*>& in, std::vector<Array>& out) {
  if (c.name != "stablehlo.compare" || !c.raw_op || c.in.size() != 2 || arg_of[0] / 2 != arg_of[1] / 2 ||
      arg_of[0] == arg_of[1] || !c.params)
    return false;
  const CompareParams& cp = *static_cast<const CompareParams*>(c.params.get());
  if (cp.dir != CompareParams::kLt && cp.dir != CompareParams::kGt) return false;
  SortKey sk;
  sk.operand = arg_of[0] / 2;
  sk.less = (cp.dir == CompareParams::kLt) == (arg_of[0] % 2 == 0);  // a < b, or b > a
  sk.total_order = cp.total_order;
  return SortByKeys(s, st, sk, in, out);
}

void Sort(const Step& s, ExecState& st) {
  const SortParams& p = s.Params<SortParams>();
  const size_t n = s.in.size();
  std::vector<const Array*> in(n);
  std::vector<Array> out(n);
  for (size_t i = 0; i < n; ++i) {
    in[i] = &st.slots[s.in[i]].array;
    out[i] = st.NewArray(s.out_types[i]);
  }
  const std::vector<int64_t>& dims = in[0]->dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t dim = p.dimension < 0 ? p.dimension + rank : p.dimension;
  const int64_t len = rank == 0 ? 1 : dims[dim];
  std::vector<int64_t> strides = RowMajorStrides(dims);
  const int64_t stride = rank == 0 ? 1 : strides[dim];
  const int64_t total = in[0]->NumElements();
  if (p.by_key && SortByKeys(s, st, p.key, in, out)) return;
  const Program& cmp = *s.regions[0];
  std::vector<int64_t> perm(len);
  std::vector<RtValue> args, res;
  bool ok = true;
  // A comparator that is one elementwise step over the compared elements (a compare of the keys,
  // lax.sort's comparator for integers and argsort's) is that step's loop called on the two
  // elements where they lie.
  if (cmp.steps.size() == 1 && cmp.results.size() == 1 && cmp.steps[0].out.size() == 1 &&
      cmp.steps[0].out[0] == cmp.results[0] && cmp.steps[0].out_types.size() == 1 &&
      cmp.steps[0].out_types[0].elem == ElemKind::kI1 && (cmp.steps[0].raw_op || cmp.steps[0].raw_binary) &&
      cmp.steps[0].in.size() <= 3 && cmp.args.size() == 2 * n) {
    const Step& c = cmp.steps[0];
    // Each operand of the step: region argument j = element (j % 2 ? b : a) of operand j / 2.
    int arg_of[3] = {-1, -1, -1};
    bool direct = true;
    for (size_t k = 0; k < c.in.size(); ++k) {
      auto it = std::find(cmp.args.begin(), cmp.args.end(), c.in[k]);
      if (it == cmp.args.end()) direct = false;
      else arg_of[k] = static_cast<int>(it - cmp.args.begin());
    }
    if (direct && SortByCompareStep(s, st, c, arg_of, in, out)) return;
    if (direct) {
      for (int64_t base = 0; base < total; ++base) {
        if (rank > 0 && (base / stride) % len != 0) continue;
        std::iota(perm.begin(), perm.end(), 0);
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
          const void* ops[3] = {nullptr, nullptr, nullptr};
          for (size_t k = 0; k < c.in.size(); ++k) {
            const Array& x = *in[arg_of[k] / 2];
            ops[k] = x.data() + (base + (arg_of[k] % 2 ? b : a) * stride) * x.type().ElementSize();
          }
          uint8_t r = 0;
          if (c.raw_op) c.raw_op(c.params.get(), ops, &r, 1);
          else c.raw_binary(ops[0], ops[1], &r, 1);
          return r != 0;
        });
        for (size_t i = 0; i < n; ++i) {
          const int64_t es = out[i].type().ElementSize();
          for (int64_t k = 0; k < len; ++k)
            CopyElement(out[i].mutable_data() + (base + k * stride) * es, in[i]->data() + (base + perm[k] * stride) * es, es);
        }
      }
      for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
      return;
    }
  }
  // An elementwise comparator is evaluated in place, one lane at a time: no slots, arrays or
  // kernel set-up per comparison (sorting 256 Ki f32 spent 1.4 s in region calls).
  std::vector<int> arg_bytes;
  for (size_t i = 0; i < n; ++i) arg_bytes.insert(arg_bytes.end(), 2, static_cast<int>(in[i]->type().ElementSize()));
  std::unique_ptr<LaneRegion> lanes = LaneRegion::Make(cmp, st, arg_bytes);
  if (lanes && (lanes->num_results() != 1 || lanes->result_bytes(0) != 1)) lanes.reset();
  if (lanes) {
    for (int64_t base = 0; base < total; ++base) {
      if (rank > 0 && (base / stride) % len != 0) continue;
      std::iota(perm.begin(), perm.end(), 0);
      std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
        for (size_t i = 0; i < n; ++i) {
          const int es = arg_bytes[2 * i];
          CopyElement(lanes->arg(2 * i), in[i]->data() + (base + a * stride) * es, es);
          CopyElement(lanes->arg(2 * i + 1), in[i]->data() + (base + b * stride) * es, es);
        }
        lanes->Run(1);
        return lanes->result(0)[0] != 0;
      });
      for (size_t i = 0; i < n; ++i) {
        const int64_t es = out[i].type().ElementSize();
        for (int64_t k = 0; k < len; ++k)
          std::memcpy(out[i].mutable_data() + (base + k * stride) * es, in[i]->data() + (base + perm[k] * stride) * es, es);
      }
    }
    for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
    return;
  }
  // Every line along `dim` starts at an index whose coordinate there is zero.
  for (int64_t base = 0; base < total && ok; ++base) {
    if (rank > 0 && (base / stride) % len != 0) continue;
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      if (!ok) return false;
      args.clear();
      for (size_t i = 0; i < n; ++i) {
        args.push_back(RtValue::Of(ScalarAt(*in[i], base + a * stride)));
        args.push_back(RtValue::Of(ScalarAt(*in[i], base + b * stride)));
      }
      if (!CallRegion(cmp, st, args, &res)) {
        ok = false;
        return false;
      }
      return res[0].array.data()[0] != 0;
    });
    for (size_t i = 0; i < n; ++i) {
      const int64_t es = out[i].type().ElementSize();
      for (int64_t k = 0; k < len; ++k)
        std::memcpy(out[i].mutable_data() + (base + k * stride) * es,
                    in[i]->data() + (base + perm[k] * stride) * es, es);
    }
  }
  if (!ok) return;
  for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
}

}  // namespace

KernelFn SortKernel() { return &Sort; }

}  // namespace openpjrt::cpu
