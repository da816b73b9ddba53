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

bool FusedSmall(const FusedParams& p, const Step& s, ExecState& st, const Array* product, int product_input) {
  const int64_t n = p.num_elements;
  const size_t num_inputs = p.input_bytes.size();
  // (Window inputs' start indices follow the inputs in s.in.)
  if (n <= 0 || n > kFusedBlock || s.in.size() < num_inputs || p.input_splat.size() != num_inputs) return false;
  auto period_of = [&](size_t i) { return p.input_period.empty() ? int64_t{0} : p.input_period[i]; };
  int64_t bytes = 0;
  for (size_t i = 0; i < num_inputs; ++i)
    if (!p.input_splat[i].empty() || period_of(i) > 0) bytes += Room(n * p.input_bytes[i]);
  for (const FusedParams::Op& op : p.ops)
    if (op.output < 0) bytes += Room(n * op.elem_bytes);
  uint8_t* next = st.Scratch(bytes);
  FusedList<uint8_t*> outs;  // made in their slots (no input is an output)
  for (size_t j = 0; j < s.out.size(); ++j) outs.push_back(st.Output(s, j).mutable_data());
  FusedList<const uint8_t*> value(num_inputs + p.ops.size(), nullptr);
  for (size_t i = 0; i < num_inputs; ++i) {
    const int64_t es = p.input_bytes[i], per = period_of(i);
    if (!p.input_splat[i].empty()) {
      FillRepeated(next, p.input_splat[i].data(), static_cast<int64_t>(p.input_splat[i].size()), n);
      value[i] = next;
      next += Room(n * es);
      continue;
    }
    if (p.HasWindows() && !p.input_window[i].sizes.empty()) {
      absl::Status status;
      if (!(value[i] = WindowInput(p, s, st, i, &status))) st.Fail(s, std::move(status));
      if (!value[i]) return true;
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
    if (per > 0) {
      const int64_t inner = p.input_inner.empty() ? 1 : p.input_inner[i];
      if (a->NumElements() != per || a->ByteSize() != per * es || inner < 1) {
        st.Fail(s, absl::InternalError("fused elementwise broadcast input of the wrong size"));
        return true;
      }
      Expand(next, a->data(), es, n, per, inner);
      value[i] = next;
      next += Room(n * es);
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
    uint8_t* out;
    if (op.output >= 0) {
      out = outs[static_cast<size_t>(op.output)];
    } else {
      out = next;
      next += Room(n * op.elem_bytes);
    }
    if (op.unary) {
      op.unary(value[static_cast<size_t>(op.in0)], out, n);
    } else if (op.binary) {  // binary_splat reads the first element of the splat operand's values
      (op.binary_splat ? op.binary_splat : op.binary)(value[static_cast<size_t>(op.in0)],
                                                      value[static_cast<size_t>(op.in1)], out, n);
    } else {
      const void* in[3] = {value[static_cast<size_t>(op.in0)], value[static_cast<size_t>(op.in1)],
                           value[static_cast<size_t>(op.in2)]};
      op.general(op.params.get(), in, out, n);
    }
    value[num_inputs + k] = out;
  }
  return true;
}

}  // namespace openpjrt::cpu
