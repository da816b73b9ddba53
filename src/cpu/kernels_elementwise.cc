// Elementwise kernels: one loop per (op, element kind), computing in the kind's compute type.
// Integer arithmetic wraps (two's complement); division by zero and overflow follow XLA:
// x / 0 = -1 (all ones), x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
#include "src/cpu/elementwise_ops.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using namespace ops;

template <UnaryOp Op, ElemKind I, ElemKind O>
void UnaryKernel(const Step& s, ExecState& st) {
  using TI = Traits<I>;
  using TO = Traits<O>;
  const Array& a = st.slots[s.in[0]].array;
  Array r = Array::Allocate(s.out_types[0]);
  const auto* x = a.as<typename TI::S>();
  auto* y = r.mutable_as<typename TO::S>();
  const int64_t n = a.NumElements();
  for (int64_t i = 0; i < n; ++i)
    y[i] = TO::Store(static_cast<typename TO::C>(ApplyUnary<Op, TI>(TI::Load(x[i]))));
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

template <UnaryOp Op>
KernelFn PickUnary(ElemKind in, ElemKind out) {
  KernelFn fn = nullptr;
  DispatchKind(in, [&]<ElemKind I>() {
    if constexpr (Supported<Traits<I>>(Op)) {
      constexpr ElemKind O = UnaryOut(Op, I);
      if (out == O) fn = &UnaryKernel<Op, I, O>;
    }
  });
  return fn;
}

template <BinaryOp Op, ElemKind I, ElemKind O>
void BinaryKernel(const Step& s, ExecState& st) {
  using TI = Traits<I>;
  using TO = Traits<O>;
  const Array& a = st.slots[s.in[0]].array;
  const Array& b = st.slots[s.in[1]].array;
  Array r = Array::Allocate(s.out_types[0]);
  const auto* x = a.as<typename TI::S>();
  const auto* y = b.as<typename TI::S>();
  auto* z = r.mutable_as<typename TO::S>();
  const int64_t n = r.NumElements();
  for (int64_t i = 0; i < n; ++i)
    z[i] = TO::Store(static_cast<typename TO::C>(
        ApplyBinary<Op, TI>(TI::Load(x[i]), TI::Load(y[i]))));
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

template <BinaryOp Op>
KernelFn PickBinary(ElemKind in, ElemKind out) {
  KernelFn fn = nullptr;
  DispatchKind(in, [&]<ElemKind I>() {
    if constexpr (Supported<Traits<I>>(Op)) {
      if constexpr (Op == BinaryOp::kComplex) {
        if constexpr (I == ElemKind::kF32) {
          if (out == ElemKind::kC64) fn = &BinaryKernel<Op, I, ElemKind::kC64>;
        } else if constexpr (I == ElemKind::kF64) {
          if (out == ElemKind::kC128) fn = &BinaryKernel<Op, I, ElemKind::kC128>;
        }
      } else {
        if (out == I) fn = &BinaryKernel<Op, I, I>;
      }
    }
  });
  return fn;
}

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
                                 "next_after", "polygamma", "zeta"};
  return kNames[static_cast<int>(op)];
}

absl::StatusOr<KernelFn> SelectUnary(UnaryOp op, ElemKind in, ElemKind out) {
  KernelFn fn = nullptr;
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
  if (!fn)
    return absl::UnimplementedError(StrCat(UnaryOpName(op), " is not supported for ",
                                           ir::ElemKindName(in), " -> ", ir::ElemKindName(out)));
  return fn;
}

absl::StatusOr<KernelFn> SelectBinary(BinaryOp op, ElemKind in, ElemKind out) {
  KernelFn fn = nullptr;
  switch (op) {
#define OPENPJRT_B(OP) case BinaryOp::OP: fn = PickBinary<BinaryOp::OP>(in, out); break;
    OPENPJRT_B(kAdd) OPENPJRT_B(kSub) OPENPJRT_B(kMul) OPENPJRT_B(kDiv) OPENPJRT_B(kRem)
    OPENPJRT_B(kPow) OPENPJRT_B(kAtan2) OPENPJRT_B(kMax) OPENPJRT_B(kMin) OPENPJRT_B(kAnd)
    OPENPJRT_B(kOr) OPENPJRT_B(kXor) OPENPJRT_B(kShl) OPENPJRT_B(kShrA) OPENPJRT_B(kShrL)
    OPENPJRT_B(kComplex) OPENPJRT_B(kNextAfter) OPENPJRT_B(kPolygamma) OPENPJRT_B(kZeta)
#undef OPENPJRT_B
  }
  if (!fn)
    return absl::UnimplementedError(StrCat(BinaryOpName(op), " is not supported for ",
                                           ir::ElemKindName(in), " -> ", ir::ElemKindName(out)));
  return fn;
}

}  // namespace openpjrt::cpu
