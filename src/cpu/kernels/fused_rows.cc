// See fused_rows.h.
#include "src/cpu/kernels/fused_rows.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "src/cpu/exec/strided.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/kernels/reduce_internal.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

using Params = FusedRowsParams;

// One run member's evaluator on one thread. FusedBlockEval keeps references to `in` and `outs`:
// a RunState never moves once its evaluator is made.
struct RunState {
  FusedInputs in;
  std::vector<Array> outs;
  std::unique_ptr<FusedBlockEval> eval;
  // A run over the per-row values whose inputs are all arrays of a row's value or repeated
  // elements goes op after op through its loops on the block's rows, without FusedBlockEval (a
  // block holds a few rows, and the evaluator's per-call work had cost more than the ops: layer
  // norm's three such runs were ~18% of its group's time). Per value (the inputs, then the ops):
  // its element 0 in absolute rows (0 for a block buffer, which starts at the block's row), the
  // bytes per row (0: repeated elements, read at the same place for every row).
  bool lean = false;
  std::vector<const uint8_t*> at;
  std::vector<int64_t> step;
  std::unique_ptr<uint8_t[]> buffers;
};

// Whether per-row run m can go op after op (RunState::lean).
bool Lean(const Params& p, const Params::Member& m) {
  const FusedParams& fp = *m.run;
  if (fp.num_elements != p.rows) return false;
  for (size_t i = 0; i < m.in.size(); ++i)
    if (fp.input_period[i] > 1 || (m.in[i] >= 0 && p.values[static_cast<size_t>(m.in[i])].scratch)) return false;
  for (const FusedParams::Op& op : fp.ops)
    if (!op.unary && !op.binary && !op.general) return false;
  return true;
}

// Sets up r for the lean evaluation of m over blocks of at most rb rows.
void PrepareLean(const FusedParams& fp, const std::vector<Array>& arrays, const Params::Member& m, int64_t rb,
                 RunState* r) {
  const size_t ni = fp.input_bytes.size();
  r->lean = true;
  r->at.assign(ni + fp.ops.size(), nullptr);
  r->step.assign(ni + fp.ops.size(), 0);
  for (size_t i = 0; i < ni; ++i) {
    if (r->in.splat[i]) {
      r->at[i] = r->in.splat[i].get();
      continue;
    }
    r->at[i] = arrays[static_cast<size_t>(m.in[i])].data();
    r->step[i] = fp.input_bytes[i];
  }
  int64_t buffer_bytes = 0;
  for (const FusedParams::Op& op : fp.ops)
    if (op.output < 0) buffer_bytes += (rb * op.elem_bytes + 63) / 64 * 64;
  r->buffers.reset(new uint8_t[static_cast<size_t>(buffer_bytes) + 64]);
  uint8_t* buffer = r->buffers.get() + (64 - reinterpret_cast<uintptr_t>(r->buffers.get()) % 64) % 64;
  for (size_t k = 0; k < fp.ops.size(); ++k) {
    const FusedParams::Op& op = fp.ops[k];
    if (op.output >= 0) {
      r->at[ni + k] = arrays[static_cast<size_t>(m.out[static_cast<size_t>(op.output)])].data();
      r->step[ni + k] = op.elem_bytes;
    } else {
      r->at[ni + k] = buffer;  // (step 0: the block's rows from its start)
      buffer += (rb * op.elem_bytes + 63) / 64 * 64;
    }
  }
}

// The lean run on rows [r0, r0 + nb): each op's loop, as FusedBlockEval's block loops call it.
void RunLean(const FusedParams& fp, const RunState& r, int64_t r0, int64_t nb) {
  auto at = [&](int v) {
    const size_t i = static_cast<size_t>(v);
    return const_cast<uint8_t*>(r.at[i]) + (r.step[i] ? r0 * r.step[i] : 0);
  };
  const int ni = static_cast<int>(fp.input_bytes.size());
  for (size_t k = 0; k < fp.ops.size(); ++k) {
    const FusedParams::Op& op = fp.ops[k];
    uint8_t* out = at(ni + static_cast<int>(k));
    if (op.unary) {
      op.unary(at(op.in0), out, nb);
    } else if (op.binary) {
      (op.binary_splat ? op.binary_splat : op.binary)(at(op.in0), at(op.in1), out, nb);
    } else {
      const void* in[3] = {at(op.in0), at(op.in1), at(op.in2)};
      op.general(op.params.get(), in, out, nb);
    }
  }
}

// The run's inputs as PrepareFusedInputs makes them, from the group's values (scratch ones are
// pointed at each block). Sizes were checked by CheckMember.
void PrepareRunInputs(const FusedParams& fp, const Params::Member& m, const std::vector<Array>& arrays,
                      FusedInputs* in) {
  const size_t ni = fp.input_bytes.size();
  in->ptr.assign(ni, nullptr);
  in->splat.clear();
  in->splat.resize(ni);
  in->period.assign(ni, 0);
  in->inner.assign(ni, 1);
  for (size_t i = 0; i < ni; ++i) {
    const int v = m.in[i];
    const int64_t per = fp.input_period[i];
    if (!fp.input_splat[i].empty() || per == 1) {  // a block of the repeated element
      const uint8_t* element = fp.input_splat[i].empty() ? arrays[v].data() : fp.input_splat[i].data();
      const int64_t es = fp.input_bytes[i], len = std::min(fp.num_elements, kFusedBlock);
      in->splat[i].reset(new uint8_t[static_cast<size_t>(std::max<int64_t>(len, 1) * es)]);
      FillRepeated(in->splat[i].get(), element, es, len);
      in->ptr[i] = in->splat[i].get();
      continue;
    }
    if (per > 1) {
      in->period[i] = per;
      in->inner[i] = fp.input_inner[i];
    }
    in->ptr[i] = arrays[v].valid() ? arrays[v].data() : nullptr;  // null: scratch, set per block
  }
}

// The group's inputs must be what the compiler saw: an error, never a read out of bounds.
absl::Status CheckMember(const Params& p, const Params::Member& m, const std::vector<Array>& arrays) {
  auto elements = [&](int v) { return arrays[v].valid() ? arrays[v].NumElements() : -1; };
  if (!m.run) {
    const Array& x = arrays[m.in[0]];
    if ((x.valid() && (x.elem() != ElemKind::kF32 || x.NumElements() != p.rows * p.cols)) ||
        arrays[m.in[1]].elem() != ElemKind::kF32 || arrays[m.in[1]].NumElements() != 1)
      return absl::InternalError("row group reduction over an array of the wrong shape");
    return absl::OkStatus();
  }
  const FusedParams& fp = *m.run;
  for (size_t i = 0; i < m.in.size(); ++i) {
    const int v = m.in[i];
    if (v < 0 || !arrays[v].valid()) continue;  // a splat, or scratch of the group's making
    const int64_t per = fp.input_period[i];
    const int64_t want = per > 0 ? per : fp.num_elements;
    if (elements(v) != want || arrays[v].ByteSize() != want * fp.input_bytes[i])
      return absl::InternalError(StrCat("row group run input ", i, " of the wrong size"));
  }
  return absl::OkStatus();
}

// Whether run member m writes its outputs with non-temporal stores: every output an array of
// its own (no scratch, no hosted value) of kStreamBytes or more, as the fused elementwise kernel
// streams them. The output's lines then do not push the inputs out of the last-level cache,
// where the next call (or the next step) reads them: layer norm over 8192 x 512 f32 through JAX
// at one thread, calls after the first, 5.0-5.8 ms with the output cached against 3.5 ms for
// the steps apart, which stream it.
constexpr int64_t kStreamBytes = int64_t{16} << 20;
bool Streams(const Params& p, const Params::Member& m, const std::vector<Array>& arrays) {
  if (m.deferred || m.run->num_elements != p.rows * p.cols) return false;
  for (int v : m.out)
    if (p.values[v].scratch || !arrays[v].valid() || arrays[v].ByteSize() < kStreamBytes) return false;
  for (const Params::Value& val : p.values)
    if (val.host >= 0 && std::count(m.out.begin(), m.out.end(), val.host)) return false;
  return true;
}

void FusedRows(const Step& s, ExecState& st) {
  const Params& p = s.Params<Params>();
  const int64_t R = p.rows, C = p.cols;
  // Blocks of a fused block's elements (whole rows, at least one), or of two where three or more
  // members are runs over the per-row values (each costs the evaluator's set-up per block).
  // Measured at one thread: softmax over 32768 x 128 f32 (two per-row runs) took 2.7 ms in
  // blocks of 8 rows, 3.1 in blocks of 16, 3.2 in blocks of 32 (the members' values of a block no
  // longer stay in L1), 6.3 a row at a time; layer norm (three) over 8192 x 512 2.8 ms in blocks
  // of 2 rows, 2.6 in blocks of 4; over 32768 x 128 3.5 ms in blocks of 8 rows, 3.2 in blocks
  // of 16. Prefetching the next blocks' rows, or the current block's output rows for writing,
  // measured slower or no faster.
  int per_row_runs = 0;
  for (const Params::Member& m : p.members) per_row_runs += m.run && m.run->num_elements == R;
  const int64_t block_elements = per_row_runs >= 3 ? 2 * kFusedBlock : kFusedBlock;
  const int64_t rb = std::clamp<int64_t>(block_elements / C, 1, std::min<int64_t>(R, kFusedBlock));
  const size_t nv = p.values.size();
  std::vector<Array> arrays(nv);  // every value's storage but the scratch ones'
  for (size_t v = 0; v < nv; ++v) {
    const Params::Value& val = p.values[v];
    if (val.in_slot >= 0) {
      const RtValue& rv = st.slots[static_cast<size_t>(val.in_slot)];
      if (rv.kind != RtValue::Kind::kArray) return st.Fail(s, absl::InternalError("row group input is not an array"));
      arrays[v] = rv.array;
    } else if (!val.scratch) {
      arrays[v] = st.NewArray(val.type);
    }
  }
  for (size_t v = 0; v < nv; ++v)
    if (p.values[v].host >= 0) arrays[v] = arrays[static_cast<size_t>(p.values[v].host)];
  for (const Params::Member& m : p.members)
    if (absl::Status status = CheckMember(p, m, arrays); !status.ok()) return st.Fail(s, std::move(status));
  // Scratch: a block of rows of each scratch value, per thread.
  std::vector<int64_t> scratch_at(nv, -1);
  int64_t scratch_bytes = 0;
  for (size_t v = 0; v < nv; ++v)
    if (p.values[v].scratch && p.values[v].host < 0) {
      // (Each 64-byte aligned at its own offset modulo 4 KiB, as FusedBlockEval's buffers are.)
      scratch_at[v] = scratch_bytes + static_cast<int64_t>((v + 1) * 448 % 4096);
      scratch_bytes += (rb * C * ByteSize(p.values[v].type.elem) + 4095) / 4096 * 4096 + 4096;
    }
  const int64_t blocks = (R + rb - 1) / rb;
  const int threads = st.threads();
  const int64_t pieces = threads > 1 ? std::min<int64_t>(blocks, threads * 4) : 1;
  st.ParallelFor(pieces, [&](int64_t piece) {
    std::unique_ptr<uint8_t[]> scratch(new uint8_t[static_cast<size_t>(scratch_bytes) + 64]);
    uint8_t* scratch_base = scratch.get() + (64 - reinterpret_cast<uintptr_t>(scratch.get()) % 64) % 64;
    std::vector<RunState> runs(p.members.size());
    for (size_t k = 0; k < p.members.size(); ++k) {
      const Params::Member& m = p.members[k];
      if (!m.run) continue;
      RunState& r = runs[k];
      PrepareRunInputs(*m.run, m, arrays, &r.in);
      if (Lean(p, m)) {
        PrepareLean(*m.run, arrays, m, rb, &r);
        continue;
      }
      for (int v : m.out) r.outs.push_back(arrays[v]);  // (invalid for scratch: pointed per block)
      r.eval = std::make_unique<FusedBlockEval>(*m.run, r.in, &r.outs, Streams(p, m, arrays), m.deferred,
                                                /*keep=*/-1, /*registers=*/true);
    }
    // base[v]: where element 0 of value v would be, so that the current block's rows sit at their
    // absolute positions (integer arithmetic: for scratch it lies before the buffer).
    std::vector<uintptr_t> base(nv);
    for (size_t v = 0; v < nv; ++v) base[v] = reinterpret_cast<uintptr_t>(arrays[v].valid() ? arrays[v].data() : nullptr);
    const int64_t b0 = blocks * piece / pieces, b1 = blocks * (piece + 1) / pieces;
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t r0 = b * rb, nb = std::min(rb, R - r0);
      for (size_t v = 0; v < nv; ++v)
        if (scratch_at[v] >= 0)
          base[v] = reinterpret_cast<uintptr_t>(scratch_base + scratch_at[v]) -
                    static_cast<uintptr_t>(r0 * C * ByteSize(p.values[v].type.elem));
      for (size_t k = 0; k < p.members.size(); ++k) {
        const Params::Member& m = p.members[k];
        if (!m.run) {
          const float* x = reinterpret_cast<const float*>(base[m.in[0]]) + r0 * C;
          float* out = reinterpret_cast<float*>(base[m.out[0]]) + r0;
          FoldRowsF32(m.fold, x, nb, C, *arrays[m.in[1]].as<float>(), out);
          continue;
        }
        RunState& r = runs[k];
        if (r.lean) {
          RunLean(*m.run, r, r0, nb);
          continue;
        }
        for (size_t i = 0; i < m.in.size(); ++i)
          if (m.in[i] >= 0 && scratch_at[m.in[i]] >= 0) r.in.ptr[i] = reinterpret_cast<const uint8_t*>(base[m.in[i]]);
        for (size_t o = 0; o < m.out.size(); ++o)
          if (scratch_at[m.out[o]] >= 0) r.eval->PointOutput(static_cast<int>(o), reinterpret_cast<uint8_t*>(base[m.out[o]]));
        const bool per_row = m.run->num_elements == R;
        const int64_t start = per_row ? r0 : r0 * C, end = start + (per_row ? nb : nb * C);
        const int64_t chunk = per_row || C > kFusedBlock ? kFusedBlock : kFusedBlock / C * C;
        for (int64_t e = start; e < end; e += chunk) r.eval->Run(e, std::min(chunk, end - e));
      }
    }
    for (RunState& r : runs)
      if (r.eval) r.eval->Finish();
  });
  for (size_t v = 0; v < nv; ++v)
    for (size_t k = 0; k < p.values[v].out_slots.size(); ++k)
      st.slots[static_cast<size_t>(p.values[v].out_slots[k])] = RtValue::Of(arrays[v].Reshaped(p.values[v].out_types[k]));
}

}  // namespace

KernelFn FusedRowsKernel() { return &FusedRows; }

}  // namespace openpjrt::cpu
