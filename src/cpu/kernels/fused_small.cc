// Fused runs of at most one block (FusedSmall, fused.h): op after op over the whole run, each
// op's value in the execution state's scratch or straight in its output. A loop body's runs are
// this small (an RNN step's 64 activations); the block evaluator's planning per call (buffer
// recycling, register steps, an arena lease, splat blocks from the heap) had cost several times
// their arithmetic: for a 64-wide tanh(h W + x) step, ~100 of its ~700 ns.
#include <algorithm>
#include <cstring>
#include <memory>

#include "src/cpu/exec/strided.h"
#include "src/cpu/kernels/fused.h"

namespace openpjrt::cpu {
namespace {

constexpr int64_t kAlign = 64;
int64_t Room(int64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Element e of the run reads element (e / inner) % period of `src`: written out for all n.
void Expand(uint8_t* dst, const uint8_t* src, int64_t es, int64_t n, int64_t period, int64_t inner) {
  for (int64_t e = 0; e < n;) {
    if (inner == 1) {
      const int64_t pos = e % period, len = std::min(period - pos, n - e);
      std::memcpy(dst + e * es, src + pos * es, static_cast<size_t>(len * es));
      e += len;
    } else {
      const int64_t len = std::min(inner - e % inner, n - e);
      FillRepeated(dst + e * es, src + (e / inner % period) * es, es, len);
      e += len;
    }
  }
}

}  // namespace

// What a small run's evaluation needs worked out once: where each input's values come from and
// where each value lives in the scratch. (Working it out at every call, with the hardened
// bounds checks of small vectors, had been ~400 of the ~2,300 instructions of an RNN step.)
struct SmallRunLayout {
  enum class Source : uint8_t {
    kArray,   // its slot's array (or the fused product), read in place
    kSplat,   // a splat constant, repeated into the scratch
    kWindow,  // a window of its slot's array (WindowInput), read in place
    kRepeat,  // an absorbed broadcast, expanded into the scratch
  };
  bool valid = false;           // false: not a run FusedSmall takes
  std::vector<Source> source;   // per input
  std::vector<int64_t> offset;  // per value (the inputs, then the ops): its scratch offset, or -1
  int64_t scratch_bytes = 0;
};

namespace {

SmallRunLayout* MakeLayout(const FusedParams& p) {
  auto* layout = new SmallRunLayout;
  const int64_t n = p.num_elements;
  const size_t num_inputs = p.input_bytes.size();
  if (n <= 0 || n > kFusedBlock || p.input_splat.size() != num_inputs ||
      (!p.input_period.empty() && p.input_period.size() != num_inputs) ||
      (p.HasWindows() && p.input_window.size() != num_inputs))
    return layout;
  int64_t bytes = 0;
  auto place = [&](int64_t elem_bytes) {
    const int64_t at = bytes;
    bytes += Room(n * elem_bytes);
    return at;
  };
  for (size_t i = 0; i < num_inputs; ++i) {
    using Source = SmallRunLayout::Source;
    const bool repeat = !p.input_period.empty() && p.input_period[i] > 0;
    const Source source = !p.input_splat[i].empty()                          ? Source::kSplat
                          : p.HasWindows() && !p.input_window[i].sizes.empty() ? Source::kWindow
                          : repeat                                           ? Source::kRepeat
                                                                             : Source::kArray;
    layout->source.push_back(source);
    const bool scratch = source == Source::kSplat || source == Source::kRepeat;
    layout->offset.push_back(scratch ? place(p.input_bytes[i]) : -1);
  }
  for (const FusedParams::Op& op : p.ops) layout->offset.push_back(op.output < 0 ? place(op.elem_bytes) : -1);
  layout->scratch_bytes = bytes;
  layout->valid = true;
  return layout;
}

}  // namespace

SmallRunLayoutSlot& SmallRunLayoutSlot::operator=(const SmallRunLayoutSlot&) {
  delete layout_.exchange(nullptr);
  return *this;
}

SmallRunLayoutSlot::~SmallRunLayoutSlot() { delete layout_.load(); }

const SmallRunLayout& SmallRunLayoutSlot::Make(const FusedParams& p) const {
  SmallRunLayout* made = MakeLayout(p);
  SmallRunLayout* expected = nullptr;
  if (layout_.compare_exchange_strong(expected, made, std::memory_order_acq_rel)) return *made;
  delete made;
  return *expected;
}

bool FusedSmall(const FusedParams& p, const Step& s, ExecState& st, const Array* product, int product_input) {
  using Source = SmallRunLayout::Source;
  const int64_t n = p.num_elements;
  if (n <= 0 || n > kFusedBlock) return false;
  const SmallRunLayout& layout = p.small_layout.Get(p);
  const size_t num_inputs = p.input_bytes.size(), num_values = num_inputs + p.ops.size();
  // (Window inputs' start indices follow the inputs in s.in.)
  if (!layout.valid || s.in.size() < num_inputs) return false;
  uint8_t* scratch = st.Scratch(layout.scratch_bytes);
  // Per value, where its n elements are: a list on the stack for all but the longest runs.
  constexpr size_t kOnStack = 32;
  const uint8_t* values_on_stack[kOnStack];
  uint8_t* outs_on_stack[kOnStack];
  std::unique_ptr<const uint8_t*[]> values_on_heap;
  std::unique_ptr<uint8_t*[]> outs_on_heap;
  const uint8_t** value = values_on_stack;
  uint8_t** outs = outs_on_stack;
  if (num_values > kOnStack) value = (values_on_heap = std::make_unique<const uint8_t*[]>(num_values)).get();
  if (s.out.size() > kOnStack) outs = (outs_on_heap = std::make_unique<uint8_t*[]>(s.out.size())).get();
  for (size_t j = 0; j < s.out.size(); ++j) outs[j] = st.Output(s, j).mutable_data();  // (no input is an output)
  for (size_t i = 0; i < num_inputs; ++i) {
    const int64_t es = p.input_bytes[i];
    const Source source = layout.source[i];
    if (source == Source::kSplat) {
      uint8_t* dst = scratch + layout.offset[i];
      FillRepeated(dst, p.input_splat[i].data(), static_cast<int64_t>(p.input_splat[i].size()), n);
      value[i] = dst;
      continue;
    }
    if (source == Source::kWindow) {
      absl::Status status;
      if (!(value[i] = WindowInput(p, s, st, i, &status))) {
        st.Fail(s, std::move(status));
        return true;
      }
      continue;
    }
    const Array* a = static_cast<int>(i) == product_input ? product : nullptr;
    if (!a) {
      const RtValue& v = st.slots[s.in[i]];
      if (v.kind != RtValue::Kind::kArray) {
        st.Fail(s, absl::InternalError("fused elementwise input that is not an array"));
        return true;
      }
      a = &v.array;
    }
    if (source == Source::kRepeat) {
      const int64_t per = p.input_period[i];
      const int64_t inner = p.input_inner.empty() ? 1 : p.input_inner[i];
      if (a->NumElements() != per || a->ByteSize() != per * es || inner < 1) {
        st.Fail(s, absl::InternalError("fused elementwise broadcast input of the wrong size"));
        return true;
      }
      uint8_t* dst = scratch + layout.offset[i];
      Expand(dst, a->data(), es, n, per, inner);
      value[i] = dst;
      continue;
    }
    if (a->NumElements() != n) {
      st.Fail(s, absl::InternalError("fused elementwise input of the wrong size"));
      return true;
    }
    value[i] = a->data();
  }
  for (size_t k = 0; k < p.ops.size(); ++k) {
    const FusedParams::Op& op = p.ops[k];
    uint8_t* out = op.output >= 0 ? outs[op.output] : scratch + layout.offset[num_inputs + k];
    if (op.unary) {
      op.unary(value[op.in0], out, n);
    } else if (op.binary) {  // binary_splat reads the first element of the splat operand's values
      (op.binary_splat ? op.binary_splat : op.binary)(value[op.in0], value[op.in1], out, n);
    } else {
      const void* in[3] = {value[op.in0], value[op.in1], value[op.in2]};
      op.general(op.params.get(), in, out, n);
    }
    value[num_inputs + k] = out;
  }
  return true;
}

}  // namespace openpjrt::cpu
