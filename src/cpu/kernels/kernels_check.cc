// The check dialect's comparisons, with the semantics of the StableHLO interpreter:
// expect_eq (exact; IEEE == for floats), expect_almost_eq (|a - b| <= tolerance, NaNs and
// same-signed infinities equal), expect_close (ULP distance within [min, max]).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <limits>

#include "src/cpu/exec/elem_traits.h"
#include "src/cpu/kernels/kernels.h"
#include "src/ir/printer.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

// One element, widened for comparison.
struct Elem {
  bool integer = false, is_unsigned = false;
  int64_t i = 0;
  uint64_t u = 0;
  double part[2] = {0, 0};
  uint64_t bits[2] = {0, 0};  // raw bit patterns of the float parts
  int nparts = 1;
};

template <ElemKind K>
Elem LoadElem(const Array& a, int64_t idx) {
  using T = Traits<K>;
  const auto s = a.as<typename T::S>()[idx];
  Elem e;
  if constexpr (T::kCat == Cat::kBool || T::kCat == Cat::kSigned || T::kCat == Cat::kUnsigned) {
    e.integer = true;
    e.is_unsigned = T::kCat != Cat::kSigned;
    auto c = T::Load(s);
    e.i = static_cast<int64_t>(c);
    e.u = static_cast<uint64_t>(c);
  } else if constexpr (T::kCat == Cat::kFloat) {
    e.part[0] = static_cast<double>(T::Load(s));
    e.bits[0] = 0;
    std::memcpy(&e.bits[0], &s, sizeof(s));
  } else {
    using R = typename T::C::value_type;
    R parts[2];
    std::memcpy(parts, &s, sizeof(s));
    e.nparts = 2;
    for (int p = 0; p < 2; ++p) {
      e.part[p] = parts[p];
      std::memcpy(&e.bits[p], &parts[p], sizeof(R));
    }
  }
  return e;
}

using Loader = Elem (*)(const Array&, int64_t);

Loader PickLoader(ElemKind k) {
  Loader fn = nullptr;
  DispatchKind(k, [&]<ElemKind K>() { fn = &LoadElem<K>; });
  return fn;
}

// ULP distance between two values of one float format, from their bit patterns.
uint64_t UlpDistance(ElemKind part_kind, double a, double b, uint64_t ba, uint64_t bb) {
  if (ba == bb) return 0;
  bool na = std::isnan(a), nb = std::isnan(b);
  if (na && nb) return 0;
  if (na || nb) return UINT64_MAX;
  const ir::FloatFormat& f = ir::GetFloatFormat(part_kind);
  const int mag_bits = f.exp_bits + f.man_bits;
  const uint64_t mag_mask = mag_bits >= 64 ? ~uint64_t{0} >> 1 : (uint64_t{1} << mag_bits) - 1;
  uint64_t ma = ba & mag_mask, mb = bb & mag_mask;
  bool sa = f.has_sign && ((ba >> mag_bits) & 1), sb = f.has_sign && ((bb >> mag_bits) & 1);
  if (sa == sb) return ma > mb ? ma - mb : mb - ma;
  return ma + mb;
}

std::string Show(const Elem& e, ElemKind k) {
  if (e.integer) return e.is_unsigned ? StrCat(e.u) : StrCat(e.i);
  ElemKind pk = ir::IsComplex(k) ? ir::ComplexPart(k) : k;
  if (e.nparts == 2) return StrCat("(", ir::FormatFloat(e.part[0], pk), ", ", ir::FormatFloat(e.part[1], pk), ")");
  return ir::FormatFloat(e.part[0], pk == ElemKind::kF32 ? ElemKind::kF32 : ElemKind::kF64);
}

std::string Index(const std::vector<int64_t>& dims, int64_t i) {
  std::vector<int64_t> idx(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    idx[d] = dims[d] ? i % dims[d] : 0;
    i = dims[d] ? i / dims[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) StrAppend(&s, d ? ", " : "", idx[d]);
  return s + "]";
}

void Check(const Step& s, ExecState& st) {
  const CheckParams& p = s.Params<CheckParams>();
  const Array& actual = st.slots[s.in[0]].array;
  const Array& expected = p.has_expected_const ? p.expected : st.slots[s.in[1]].array;
  const ElemKind k = actual.elem();
  Loader load = PickLoader(k);
  CheckParams::Kind kind = p.kind;
  double tol = p.tolerance;
  if (kind == CheckParams::kEqResult) {
    kind = ir::IsInteger(k) ? CheckParams::kEq : CheckParams::kAlmostEq;
  }
  const int64_t n = actual.NumElements();
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < n; ++i) {
    Elem a = load(actual, i), e = load(expected, i);
    bool ok = true;
    if (a.integer) {
      ok = a.i == e.i && a.u == e.u;
    } else {
      ElemKind pk = ir::IsComplex(k) ? ir::ComplexPart(k) : k;
      for (int q = 0; q < a.nparts && ok; ++q) {
        double x = a.part[q], y = e.part[q];
        switch (kind) {
          case CheckParams::kEq:
          case CheckParams::kEqResult:
            ok = x == y;
            break;
          case CheckParams::kAlmostEq:
            if (x == y || (std::isnan(x) && std::isnan(y))) break;
            if (std::isinf(x) || std::isinf(y)) {
              ok = false;
              break;
            }
            ok = std::fabs(x - y) <= tol;
            break;
          case CheckParams::kClose: {
            uint64_t d = UlpDistance(pk, x, y, a.bits[q], e.bits[q]);
            ok = d != UINT64_MAX && d <= static_cast<uint64_t>(p.max_ulp) &&
                 d >= static_cast<uint64_t>(p.min_ulp);
            break;
          }
        }
      }
    }
    if (!ok) {
      if (first < 0) first = i;
      ++mismatches;
    }
  }
  ++st.checks_run;
  const bool pass = mismatches == 0;
  if (!pass && st.check_failures) {
    Elem a = load(actual, first), e = load(expected, first);
    st.check_failures->push_back(
        {s.loc, StrCat(s.name, " failed: ", mismatches, " of ", n, " elements differ; first at ",
                       Index(actual.dims(), first), ": actual ", Show(a, k), ", expected ",
                       Show(e, k))});
  }
  if (!s.out.empty()) {
    Array r = Array::Allocate(s.out_types[0]);
    r.mutable_data()[0] = pass ? 1 : 0;
    st.slots[s.out[0]] = RtValue::Of(std::move(r));
  }
}

// @shape_assertion: the first operand is the predicate; {0}, {1}, ... in the message stand for
// the following integer operands.
void ShapeAssertion(const Step& s, ExecState& st) {
  const Array& pred = st.slots[s.in[0]].array;
  if (pred.NumElements() != 1 || pred.data()[0] != 0) return;
  std::string message = s.Params<ShapeAssertionParams>().message, out;
  for (size_t i = 0; i < message.size(); ++i) {
    size_t close = message.find('}', i);
    if (message[i] == '{' && close != std::string::npos && close > i + 1 &&
        message.find_first_not_of("0123456789", i + 1) == close) {
      size_t arg = std::stoul(message.substr(i + 1, close - i - 1)) + 1;
      if (arg < s.in.size() && st.slots[s.in[arg]].array.NumElements() == 1) {
        const Array& v = st.slots[s.in[arg]].array;
        Elem e = PickLoader(v.elem())(v, 0);
        if (e.is_unsigned) StrAppend(&out, e.u); else StrAppend(&out, e.i);
        i = close;
        continue;
      }
    }
    out += message[i];
  }
  st.Fail(s, absl::InvalidArgumentError(out));
}

// interpreter.print: writes the operand to stdout as `dense<...> : tensor<...>` and passes it on.
void Print(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  ir::Context ctx;
  ir::Type t = ctx.Tensor(a.dims(), ctx.Element(a.elem()));
  auto data = std::make_shared<std::vector<uint8_t>>(a.data(), a.data() + a.ByteSize());
  const std::string text = ir::PrintAttribute(ir::Attribute::Dense(t, data, false));
  std::fprintf(stdout, "%s\n", text.c_str());
  std::fflush(stdout);
  st.slots[s.out[0]] = st.slots[s.in[0]];
}

void Probe(const Step& s, ExecState& st) {
  const Array& a = st.slots[s.in[0]].array;
  Array copy = Array::Allocate(s.out_types[0]);  // later in-place steps may reuse the operand
  if (a.ByteSize() > 0) std::memcpy(copy.mutable_data(), a.data(), a.ByteSize());
  if (!st.probes) st.probes = std::make_shared<std::map<std::string, std::vector<Array>>>();
  (*st.probes)[s.Params<ProbeParams>().id].push_back(std::move(copy));
  st.slots[s.out[0]] = st.slots[s.in[0]];
}

void SerializedEq(const Step& s, ExecState& st) {
  const ProbeParams& p = s.Params<ProbeParams>();
  const Array& actual = st.slots[s.in[0]].array;
  ++st.checks_run;
  std::string why;
  const std::vector<Array>* seen = nullptr;
  if (st.probes && st.probes->count(p.id)) seen = &st.probes->at(p.id);
  if (!seen) {
    why = StrCat("no interpreter.probe recorded probe_id \"", p.id, "\"");
  } else if (p.iter < 0 || p.iter >= static_cast<int64_t>(seen->size())) {
    why = StrCat("probe_id \"", p.id, "\" was recorded ", seen->size(), " times; iteration ", p.iter, " asked");
  } else {
    const Array& want = (*seen)[static_cast<size_t>(p.iter)];
    if (!(want.type() == actual.type())) {
      why = "the recorded value has another type";
    } else if (actual.ByteSize() > 0 && std::memcmp(want.data(), actual.data(), actual.ByteSize()) != 0) {
      const int64_t es = actual.ByteSize() / std::max<int64_t>(actual.NumElements(), 1);
      int64_t first = 0;
      while (std::memcmp(want.data() + first * es, actual.data() + first * es, es) == 0) ++first;
      Loader load = PickLoader(actual.elem());
      why = StrCat("differs from recording ", p.iter, " of \"", p.id, "\" first at ", Index(actual.dims(), first),
                   ": actual ", Show(load(actual, first), actual.elem()), ", recorded ",
                   Show(load(want, first), actual.elem()));
    }
  }
  if (!why.empty() && st.check_failures) st.check_failures->push_back({s.loc, StrCat(s.name, " failed: ", why)});
}

}  // namespace

KernelFn ProbeKernel() { return &Probe; }
KernelFn SerializedEqKernel() { return &SerializedEq; }
KernelFn CheckKernel() { return &Check; }
KernelFn PrintKernel() { return &Print; }
KernelFn ShapeAssertionKernel() { return &ShapeAssertion; }

}  // namespace openpjrt::cpu
