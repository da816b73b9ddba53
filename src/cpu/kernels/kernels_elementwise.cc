// Elementwise kernels: one loop per (op, element kind), computing in the kind's compute type.
// Integer arithmetic wraps (two's complement); division by zero and overflow follow XLA:
// x / 0 = -1 (all ones), x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "src/cpu/kernels/elementwise_ops.h"
#include "src/cpu/math/fast_math_avx512.h"
#include "src/cpu/exec/strided.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/exec/isa.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using namespace ops;

// The raw loops are compiled for AVX-512, AVX2 and the baseline and picked for the CPU at run
// time (isa.h; the plugin must run on any x86-64). The file is built with -ffp-contract=off and
// fused multiply-adds are explicit, so every variant rounds exactly like the baseline.
template <UnaryOp Op, typename C>
inline constexpr bool kFastTrig = (std::is_same_v<C, float> || std::is_same_v<C, double>) &&
                                  (Op == UnaryOp::kSin || Op == UnaryOp::kCos || Op == UnaryOp::kTan);

template <UnaryOp Op, ElemKind I, ElemKind O>
[[gnu::always_inline]] inline void UnaryLoop(const void* xv, void* yv, int64_t n) {
  using TI = Traits<I>;
  using TO = Traits<O>;
  const auto* x = static_cast<const typename TI::S*>(xv);
  auto* y = static_cast<typename TO::S*>(yv);
  if constexpr (kFastTrig<Op, typename TI::C>) {
    // Blocks of the vectorised function, then libm for the rare |x| beyond fast::kTrigLimit
    // (2^26 for f32, 2^20 for f64), inf and NaN of the block (fast_math.h); through a local
    // buffer, as y may be x.
    using C = typename TI::C;
    constexpr int64_t kBlock = 512;
    constexpr C kLimit = fast::kTrigLimit<C>;
    C v[kBlock];
    for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
      const int64_t m = std::min(kBlock, n - i0);
      for (int64_t j = 0; j < m; ++j) {
        const C a = TI::Load(x[i0 + j]);
        v[j] = Op == UnaryOp::kSin ? fast::Sin(a) : Op == UnaryOp::kCos ? fast::Cos(a) : fast::Tan(a);
      }
      int outside = 0;  // a vectorised test first: the fix-up loop is scalar
      for (int64_t j = 0; j < m; ++j) outside |= !(fast::Abs(TI::Load(x[i0 + j])) <= kLimit);
      if (outside)
        for (int64_t j = 0; j < m; ++j) {
          const C a = TI::Load(x[i0 + j]);
          if (!(fast::Abs(a) <= kLimit)) v[j] = ApplyUnary<Op, TI>(a);
        }
      for (int64_t j = 0; j < m; ++j) y[i0 + j] = TO::Store(v[j]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i)
      y[i] = TO::Store(static_cast<typename TO::C>(ApplyUnary<Op, TI>(TI::Load(x[i]))));
  }
}

// Kinds computed in f32 but stored narrower (f16, bf16 and the 4-, 6- and 8-bit floats): an op
// on them depends on nothing else of the kind (ApplyUnary/ApplyBinary of a float kind see only
// its compute type), so a loop may widen a block to f32, run the op's f32 loop and narrow the
// results, with the same values as a loop of its own, and each op is compiled once instead of
// once per kind. The small floats always take that way; f16 and bf16 take it for the math
// functions, whose bodies, inlined once per kind, made f16 and bf16 alone 4.2 times the machine
// code of f32 and most of this file's build time. Their cheap ops keep loops of their own: bf16
// add over 4 Mi elements took 1.7 times as long through f32 blocks.
template <ElemKind K>
inline constexpr bool kComputedInF32 = Traits<K>::kCat == Cat::kFloat &&
                                       std::is_same_v<typename Traits<K>::C, float> && K != ElemKind::kF32;
template <ElemKind K>
inline constexpr bool kSmallFloat = kComputedInF32<K> && K != ElemKind::kF16 && K != ElemKind::kBF16;
constexpr bool MathFunction(UnaryOp op) {
  switch (op) {
    case UnaryOp::kExp: case UnaryOp::kExpm1: case UnaryOp::kLog: case UnaryOp::kLog1p:
    case UnaryOp::kLogistic: case UnaryOp::kCbrt: case UnaryOp::kSin: case UnaryOp::kCos:
    case UnaryOp::kTan: case UnaryOp::kTanh: case UnaryOp::kAcos: case UnaryOp::kAcosh:
    case UnaryOp::kAsin: case UnaryOp::kAsinh: case UnaryOp::kAtan: case UnaryOp::kAtanh:
    case UnaryOp::kCosh: case UnaryOp::kSinh: case UnaryOp::kErf: case UnaryOp::kErfc:
    case UnaryOp::kErfInv: case UnaryOp::kLgamma: case UnaryOp::kDigamma: case UnaryOp::kBesselI1e:
      return true;
    default:
      return false;
  }
}
constexpr bool MathFunction(BinaryOp op) {
  return op == BinaryOp::kPow || op == BinaryOp::kAtan2 || op == BinaryOp::kRem || op == BinaryOp::kPolygamma ||
         op == BinaryOp::kZeta || op == BinaryOp::kNextAfter;
}
template <auto Op, ElemKind K>
inline constexpr bool kViaF32 = kSmallFloat<K> || (kComputedInF32<K> && MathFunction(Op));
constexpr int64_t kViaF32Block = 1024;

template <ElemKind K>
[[gnu::always_inline]] inline void WidenLoop(const void* xv, void* yv, int64_t n) {
  const auto* x = static_cast<const typename Traits<K>::S*>(xv);
  auto* y = static_cast<float*>(yv);
  for (int64_t i = 0; i < n; ++i) y[i] = Traits<K>::Load(x[i]);
}
template <ElemKind K>
[[gnu::always_inline]] inline void NarrowLoop(const void* xv, void* yv, int64_t n) {
  const auto* x = static_cast<const float*>(xv);
  auto* y = static_cast<typename Traits<K>::S*>(yv);
  for (int64_t i = 0; i < n; ++i) y[i] = Traits<K>::Store(x[i]);
}
template <ElemKind K>
RawUnaryFn Widen() {
  return ForCpu<&WidenLoop<K>, HasVectorCopies(K)>();
}
template <ElemKind K>
RawUnaryFn Narrow() {
  return ForCpu<&NarrowLoop<K>, HasVectorCopies(K)>();
}

template <UnaryOp Op, ElemKind I, ElemKind O>
RawUnaryFn UnaryRaw();

// The loop of UnaryViaF32, shared by every op and kind: x (in_size bytes per element) widened
// to f32 a block at a time, f32 applied, and the results narrowed (narrow, out_size bytes per
// element) or, for the predicates, written by f32 itself.
[[gnu::noinline]] void UnaryThroughF32(RawUnaryFn f32, RawUnaryFn widen, RawUnaryFn narrow, size_t in_size,
                                       size_t out_size, const void* xv, void* yv, int64_t n) {
  const auto* x = static_cast<const uint8_t*>(xv);
  auto* y = static_cast<uint8_t*>(yv);
  float a[kViaF32Block];
  for (int64_t i = 0; i < n; i += kViaF32Block) {
    const int64_t m = std::min(kViaF32Block, n - i);
    widen(x + i * in_size, a, m);
    if (narrow) {
      f32(a, a, m);
      narrow(a, y + i * out_size, m);
    } else {
      f32(a, y + i * out_size, m);
    }
  }
}

template <UnaryOp Op, ElemKind I, ElemKind O>
void UnaryViaF32(const void* xv, void* yv, int64_t n) {
  constexpr ElemKind kOut = UnaryOut(Op, ElemKind::kF32);  // f32, or i1 for the predicates
  static_assert(kOut == O || (kOut == ElemKind::kF32 && O == I));
  RawUnaryFn narrow = nullptr;
  if constexpr (kOut == ElemKind::kF32) narrow = Narrow<O>();
  UnaryThroughF32(UnaryRaw<Op, ElemKind::kF32, kOut>(), Widen<I>(), narrow, sizeof(typename Traits<I>::S),
                  sizeof(typename Traits<O>::S), xv, yv, n);
}

template <UnaryOp Op, ElemKind I, ElemKind O>
RawUnaryFn UnaryRaw() {
  if constexpr (kViaF32<Op, I>) {
    return &UnaryViaF32<Op, I, O>;
  } else {
    // exp, tanh, logistic, log and erf of f32 (and of the 16-bit floats, computed in f32) have
    // AVX-512 loops written with intrinsics, bit-identical to the scalar definitions.
    if constexpr (I == ElemKind::kF32 && O == ElemKind::kF32 &&
                  (Op == UnaryOp::kExp || Op == UnaryOp::kTanh || Op == UnaryOp::kLogistic ||
                   Op == UnaryOp::kLog || Op == UnaryOp::kErf)) {
      fast::F32Loop avx512 = Op == UnaryOp::kExp        ? fast::Avx512Exp()
                             : Op == UnaryOp::kTanh     ? fast::Avx512Tanh()
                             : Op == UnaryOp::kLogistic ? fast::Avx512Logistic()
                             : Op == UnaryOp::kLog      ? fast::Avx512Log()
                                                        : fast::Avx512Erf();
      if (avx512) return avx512;
    }
    return ForCpu<&UnaryLoop<Op, I, O>, HasVectorCopies(I)>();
  }
}

// The kernels around the raw loops: one body for all of them, as each (op, kind) pair
// inlining its own allocation and slot handling was a third of this file's machine code.
[[gnu::noinline]] void RunUnary(RawUnaryFn fn, const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  Array& r = st.Output(s);
  fn(a.data(), r.mutable_data(), a.NumElements());
}
[[gnu::noinline]] void RunBinary(RawBinaryFn fn, const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  const Array& b = st.slots[s.in[1]].array;
  Array& r = st.Output(s);
  fn(a.data(), b.data(), r.mutable_data(), r.NumElements());
}

template <UnaryOp Op, ElemKind I, ElemKind O>
void UnaryKernel(const Step& s, ExecState& st) {
  RunUnary(UnaryRaw<Op, I, O>(), s, st);
}

struct UnaryFns {
  KernelFn kernel = nullptr;
  RawUnaryFn raw = nullptr;
};

template <UnaryOp Op>
UnaryFns PickUnary(ElemKind in, ElemKind out) {
  UnaryFns fns;
  DispatchKind(in, [&]<ElemKind I>() {
    if constexpr (Supported<Traits<I>>(Op)) {
      constexpr ElemKind O = UnaryOut(Op, I);
      if (out == O) fns = {&UnaryKernel<Op, I, O>, UnaryRaw<Op, I, O>()};
    }
  });
  return fns;
}

template <BinaryOp Op, ElemKind I, ElemKind O>
[[gnu::always_inline]] inline void BinaryLoop(const void* xv, const void* yv, void* zv, int64_t n) {
  using TI = Traits<I>;
  using TO = Traits<O>;
  const auto* x = static_cast<const typename TI::S*>(xv);
  const auto* y = static_cast<const typename TI::S*>(yv);
  auto* z = static_cast<typename TO::S*>(zv);
  if constexpr (Op == BinaryOp::kPow && std::is_same_v<typename TI::C, float>) {
    // Blocks of the vectorised power of finite operands (fast_math.h), then std::pow for the block's
    // infinities and NaN; through a local buffer, as z may be x or y.

    constexpr int64_t kBlock = 512;
    float v[kBlock];
    for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
      const int64_t m = std::min(kBlock, n - i0);
      for (int64_t j = 0; j < m; ++j) v[j] = fast::Pow(TI::Load(x[i0 + j]), TI::Load(y[i0 + j]));
      int special = 0;  // a vectorised test first: the fix-up loop is scalar
      for (int64_t j = 0; j < m; ++j) special |= !fast::PowIsOrdinary(TI::Load(x[i0 + j]), TI::Load(y[i0 + j]));
      if (special)
        for (int64_t j = 0; j < m; ++j) {
          const float a = TI::Load(x[i0 + j]), b = TI::Load(y[i0 + j]);
          if (!fast::PowIsOrdinary(a, b)) v[j] = ApplyBinary<Op, TI>(a, b);
        }
      for (int64_t j = 0; j < m; ++j) z[i0 + j] = TO::Store(v[j]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i)
      z[i] = TO::Store(static_cast<typename TO::C>(ApplyBinary<Op, TI>(TI::Load(x[i]), TI::Load(y[i]))));
  }
}

template <BinaryOp Op, ElemKind I, ElemKind O>
RawBinaryFn BinaryRaw();

// See UnaryViaF32.
[[gnu::noinline]] void BinaryThroughF32(RawBinaryFn f32, RawUnaryFn widen, RawUnaryFn narrow, size_t size,
                                        const void* xv, const void* yv, void* zv, int64_t n) {
  const auto* x = static_cast<const uint8_t*>(xv);
  const auto* y = static_cast<const uint8_t*>(yv);
  auto* z = static_cast<uint8_t*>(zv);
  float a[kViaF32Block], b[kViaF32Block];
  for (int64_t i = 0; i < n; i += kViaF32Block) {
    const int64_t m = std::min(kViaF32Block, n - i);
    widen(x + i * size, a, m);
    widen(y + i * size, b, m);
    f32(a, b, a, m);
    narrow(a, z + i * size, m);
  }
}

template <BinaryOp Op, ElemKind I>
void BinaryViaF32(const void* xv, const void* yv, void* zv, int64_t n) {
  BinaryThroughF32(BinaryRaw<Op, ElemKind::kF32, ElemKind::kF32>(), Widen<I>(), Narrow<I>(),
                   sizeof(typename Traits<I>::S), xv, yv, zv, n);
}

template <BinaryOp Op, ElemKind I, ElemKind O>
RawBinaryFn BinaryRaw() {
  if constexpr (kViaF32<Op, I>) {
    static_assert(O == I);
    return &BinaryViaF32<Op, I>;
  } else {
    return ForCpu<&BinaryLoop<Op, I, O>, HasVectorCopies(I)>();
  }
}

// x op c (kScalar = 1) or c op x (kScalar = 0) for one element c: a fused run's binary op with a
// splat operand reads it from a register instead of a block of copies. Same expression as
// BinaryLoop, so the same bits.
template <BinaryOp Op, ElemKind K, int kScalar>
[[gnu::always_inline]] inline void BinarySplatLoop(const void* xv, const void* yv, void* zv, int64_t n) {
  using T = Traits<K>;
  using C = typename T::C;
  const auto* x = static_cast<const typename T::S*>(xv);
  const auto* y = static_cast<const typename T::S*>(yv);
  auto* z = static_cast<typename T::S*>(zv);
  if constexpr (kScalar == 0) {
    const C c = T::Load(x[0]);
    for (int64_t i = 0; i < n; ++i) z[i] = T::Store(static_cast<C>(ApplyBinary<Op, T>(c, T::Load(y[i]))));
  } else {
    const C c = T::Load(y[0]);
    for (int64_t i = 0; i < n; ++i) z[i] = T::Store(static_cast<C>(ApplyBinary<Op, T>(T::Load(x[i]), c)));
  }
}

template <BinaryOp Op, ElemKind K>
RawBinaryFn BinarySplatRaw(int scalar_operand) {
  return scalar_operand == 0 ? ForCpu<&BinarySplatLoop<Op, K, 0>, true>() : ForCpu<&BinarySplatLoop<Op, K, 1>, true>();
}

template <BinaryOp Op, ElemKind I, ElemKind O>
void BinaryKernel(const Step& s, ExecState& st) {
  RunBinary(BinaryRaw<Op, I, O>(), s, st);
}

struct BinaryFns {
  KernelFn kernel = nullptr;
  RawBinaryFn raw = nullptr;
};

template <BinaryOp Op>
BinaryFns PickBinary(ElemKind in, ElemKind out) {
  BinaryFns fns;
  DispatchKind(in, [&]<ElemKind I>() {
    if constexpr (Supported<Traits<I>>(Op)) {
      if constexpr (Op == BinaryOp::kComplex) {
        if constexpr (I == ElemKind::kF32) {
          if (out == ElemKind::kC64) fns = {&BinaryKernel<Op, I, ElemKind::kC64>, BinaryRaw<Op, I, ElemKind::kC64>()};
        } else if constexpr (I == ElemKind::kF64) {
          if (out == ElemKind::kC128)
            fns = {&BinaryKernel<Op, I, ElemKind::kC128>, BinaryRaw<Op, I, ElemKind::kC128>()};
        }
      } else {
        if (out == I) fns = {&BinaryKernel<Op, I, I>, BinaryRaw<Op, I, I>()};
      }
    }
  });
  return fns;
}

// Block-by-block evaluation of a fused run (see FusedParams and fused.h).
// Outputs smaller than this are always freshly allocated (small arrays come from malloc's
// caches; the deferred writes would cost more than they save).
constexpr int64_t kInPlaceMinBytes = int64_t{64} << 10;

void FusedElementwise(const Step& s, ExecState& st) {
  const FusedParams& p = s.Params<FusedParams>();
  const int64_t n = p.num_elements;
  if (n <= kFusedBlock && FusedSmall(p, s, st)) return;
  FusedInputs in;
  const size_t num_inputs = p.input_bytes.size();  // (window start indices follow in s.in)
  if (absl::Status status = PrepareFusedInputs(p, s, st, num_inputs, &in); !status.ok())
    return st.Fail(s, std::move(status));
  // An output may take the storage of a full-size input of its byte size that dies with this
  // step and that nothing else references (a donated argument, a temporary): no allocation, and
  // the lines just read are the ones written (a separate output costs a read of each line before
  // it is written). The blocks then write their outputs after all their ops have run.
  std::vector<Array> outs;
  std::vector<bool> taken(num_inputs, false);
  bool in_place = false;
  for (const ArrayType& t : s.out_types) {
    int reuse = -1;
    for (size_t i = 0; i < num_inputs && reuse < 0 && t.ByteSize() >= kInPlaceMinBytes; ++i) {
      const RtValue& v = st.slots[s.in[i]];
      if (taken[i] || in.period[i] != 0 || in.splat[i] || v.kind != RtValue::Kind::kArray ||
          (p.HasWindows() && !p.input_window[i].sizes.empty()) ||
          v.array.ByteSize() != t.ByteSize() || !v.array.Unique() ||
          std::find(s.release.begin(), s.release.end(), s.in[i]) == s.release.end() ||
          std::count(s.in.begin(), s.in.end(), s.in[i]) != 1)
        continue;
      reuse = static_cast<int>(i);
    }
    if (reuse < 0) {
      outs.push_back(st.NewArray(t));
      continue;
    }
    taken[reuse] = true;
    in_place = true;
    outs.push_back(st.slots[s.in[reuse]].array.Reshaped(t));  // in.ptr still points at it
    st.slots[s.in[reuse]] = RtValue();
  }
  // Pieces of 128 blocks (128 Ki elements) go to the intra-op threads, each with its own block
  // buffers; elements are independent, so any split gives the same result.
  constexpr int64_t kPiece = 128 * kFusedBlock;
  // Outputs of 16 MiB and more go straight to memory (see FusedBlockEval): the tanh chain of
  // bench/ratios.py over 16 Mi f32 moves a third fewer bytes. Not in place: non-temporal stores
  // to the lines the block has just read evict them (softmax's division over 2048 rows of 2048
  // f32 writing over its exponentials took twice the time: the whole softmax 5.59 -> 2.98 ms).
  constexpr int64_t kStreamBytes = int64_t{16} << 20;
  bool stream = false;
  for (const Array& o : outs) stream = stream || (o.ByteSize() >= kStreamBytes && !in_place);
  st.ParallelFor((n + kPiece - 1) / kPiece, [&](int64_t piece) {
    FusedBlockEval eval(p, in, &outs, stream, in_place);
    const int64_t end = std::min(n, (piece + 1) * kPiece);
    for (int64_t start = piece * kPiece; start < end; start += kFusedBlock)
      eval.Run(start, std::min(kFusedBlock, end - start));
    eval.Finish();
  });
  for (size_t j = 0; j < outs.size(); ++j) st.slots[s.out[j]] = RtValue::Of(std::move(outs[j]));
}

// len copies of one element of es bytes.
}  // namespace

const char* UnaryOpName(UnaryOp op) {
  static const char* kNames[] = {
      "abs", "cbrt", "ceil", "cosine", "exponential", "exponential_minus_one", "floor", "log",
      "log_plus_one", "logistic", "negate", "not", "popcnt", "count_leading_zeros",
      "round_nearest_afz", "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "tan", "tanh",
      "is_finite", "real", "imag", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh",
      "sinh", "erf", "erfc", "erf_inv", "lgamma", "digamma", "square", "conj", "is_inf",
      "is_pos_inf", "is_neg_inf", "bessel_i1e", "copy"};
  return kNames[static_cast<int>(op)];
}

const char* BinaryOpName(BinaryOp op) {
  static const char* kNames[] = {"add", "subtract", "multiply", "divide", "remainder", "power",
                                 "atan2", "maximum", "minimum", "and", "or", "xor", "shift_left",
                                 "shift_right_arithmetic", "shift_right_logical", "complex",
                                 "next_after", "polygamma", "zeta", "mulhi"};
  return kNames[static_cast<int>(op)];
}

namespace {

UnaryFns PickAnyUnary(UnaryOp op, ElemKind in, ElemKind out) {
  UnaryFns fn;
  if (out == UnaryOut(op, in)) {
    switch (op) {
#define OPENPJRT_U(OP) case UnaryOp::OP: fn = PickUnary<UnaryOp::OP>(in, out); break;
      OPENPJRT_U(kAbs) OPENPJRT_U(kCbrt) OPENPJRT_U(kCeil) OPENPJRT_U(kCos) OPENPJRT_U(kExp)
      OPENPJRT_U(kExpm1) OPENPJRT_U(kFloor) OPENPJRT_U(kLog) OPENPJRT_U(kLog1p)
      OPENPJRT_U(kLogistic) OPENPJRT_U(kNegate) OPENPJRT_U(kNot) OPENPJRT_U(kPopcnt)
      OPENPJRT_U(kClz) OPENPJRT_U(kRoundAfz) OPENPJRT_U(kRoundEven) OPENPJRT_U(kRsqrt)
      OPENPJRT_U(kSign) OPENPJRT_U(kSin) OPENPJRT_U(kSqrt) OPENPJRT_U(kTan) OPENPJRT_U(kTanh)
      OPENPJRT_U(kIsFinite) OPENPJRT_U(kReal) OPENPJRT_U(kImag) OPENPJRT_U(kAcos)
      OPENPJRT_U(kAcosh) OPENPJRT_U(kAsin) OPENPJRT_U(kAsinh) OPENPJRT_U(kAtan)
      OPENPJRT_U(kAtanh) OPENPJRT_U(kCosh) OPENPJRT_U(kSinh) OPENPJRT_U(kErf) OPENPJRT_U(kErfc)
      OPENPJRT_U(kErfInv) OPENPJRT_U(kLgamma) OPENPJRT_U(kDigamma) OPENPJRT_U(kSquare)
      OPENPJRT_U(kConj) OPENPJRT_U(kIsInf) OPENPJRT_U(kIsPosInf) OPENPJRT_U(kIsNegInf)
      OPENPJRT_U(kBesselI1e) OPENPJRT_U(kCopy)
#undef OPENPJRT_U
    }
  }
  return fn;
}

BinaryFns PickAnyBinary(BinaryOp op, ElemKind in, ElemKind out) {
  BinaryFns fn;
  switch (op) {
#define OPENPJRT_B(OP) case BinaryOp::OP: fn = PickBinary<BinaryOp::OP>(in, out); break;
    OPENPJRT_B(kAdd) OPENPJRT_B(kSub) OPENPJRT_B(kMul) OPENPJRT_B(kDiv) OPENPJRT_B(kRem)
    OPENPJRT_B(kPow) OPENPJRT_B(kAtan2) OPENPJRT_B(kMax) OPENPJRT_B(kMin) OPENPJRT_B(kAnd)
    OPENPJRT_B(kOr) OPENPJRT_B(kXor) OPENPJRT_B(kShl) OPENPJRT_B(kShrA) OPENPJRT_B(kShrL)
    OPENPJRT_B(kComplex) OPENPJRT_B(kNextAfter) OPENPJRT_B(kPolygamma) OPENPJRT_B(kZeta)
    OPENPJRT_B(kMulHi)
#undef OPENPJRT_B
  }
  return fn;
}

}  // namespace

absl::StatusOr<KernelFn> SelectUnary(UnaryOp op, ElemKind in, ElemKind out) {
  KernelFn fn = PickAnyUnary(op, in, out).kernel;
  if (!fn)
    return absl::UnimplementedError(StrCat(UnaryOpName(op), " is not supported for ",
                                           ir::ElemKindName(in), " -> ", ir::ElemKindName(out)));
  return fn;
}

absl::StatusOr<KernelFn> SelectBinary(BinaryOp op, ElemKind in, ElemKind out) {
  KernelFn fn = PickAnyBinary(op, in, out).kernel;
  if (!fn)
    return absl::UnimplementedError(StrCat(BinaryOpName(op), " is not supported for ",
                                           ir::ElemKindName(in), " -> ", ir::ElemKindName(out)));
  return fn;
}

RawUnaryFn RawUnary(UnaryOp op, ElemKind in, ElemKind out) { return PickAnyUnary(op, in, out).raw; }
RawBinaryFn RawBinary(BinaryOp op, ElemKind in, ElemKind out) { return PickAnyBinary(op, in, out).raw; }

RawBinaryFn RawBinarySplat(BinaryOp op, ElemKind in, ElemKind out, int scalar_operand) {
  if (in != out || (in != ElemKind::kF32 && in != ElemKind::kF64) || scalar_operand < 0 || scalar_operand > 1)
    return nullptr;
  RawBinaryFn fn = nullptr;
  auto pick = [&]<ElemKind K>() {
    switch (op) {
      case BinaryOp::kAdd: fn = BinarySplatRaw<BinaryOp::kAdd, K>(scalar_operand); break;
      case BinaryOp::kSub: fn = BinarySplatRaw<BinaryOp::kSub, K>(scalar_operand); break;
      case BinaryOp::kMul: fn = BinarySplatRaw<BinaryOp::kMul, K>(scalar_operand); break;
      case BinaryOp::kDiv: fn = BinarySplatRaw<BinaryOp::kDiv, K>(scalar_operand); break;
      case BinaryOp::kMax: fn = BinarySplatRaw<BinaryOp::kMax, K>(scalar_operand); break;
      case BinaryOp::kMin: fn = BinarySplatRaw<BinaryOp::kMin, K>(scalar_operand); break;
      default: break;
    }
  };
  if (in == ElemKind::kF32) pick.template operator()<ElemKind::kF32>();
  else pick.template operator()<ElemKind::kF64>();
  return fn;
}
KernelFn FusedElementwiseKernel() { return &FusedElementwise; }

}  // namespace openpjrt::cpu
