// Block-wise evaluation of fused elementwise runs (fused.h): the runs' inputs (PrepareFusedInputs),
// the per-thread arena of block buffers (ArenaLease) and FusedBlockEval, which runs a run a block
// at a time, op after op through block buffers or as register steps (fused_vec.h), for the fused
// elementwise kernel (kernels_elementwise.cc), reductions that absorbed their producer
// (kernels_reduce.cc), products' epilogues and gathers' and scatters' update runs.
#include <algorithm>
#include <cstring>
#include <memory>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "src/cpu/exec/isa.h"
#include "src/cpu/exec/strided.h"
#include "src/cpu/kernels/fused.h"
#include "src/support/str.h"

namespace openpjrt::cpu {

namespace {
struct CachedArena {
  std::unique_ptr<uint8_t[]> block;
  size_t size = 0;
};
thread_local CachedArena cached_arena;
}  // namespace

ArenaLease::ArenaLease(size_t bytes) {
  if (bytes == 0) return;
  if (cached_arena.size >= bytes) {
    block_ = std::move(cached_arena.block);
    size_ = cached_arena.size;
    cached_arena.size = 0;
    return;
  }
  block_.reset(new uint8_t[bytes]);
  size_ = bytes;
}

ArenaLease::~ArenaLease() {
  if (block_ && size_ > cached_arena.size) {  // the thread keeps its largest block
    cached_arena.block = std::move(block_);
    cached_arena.size = size_;
  }
}

absl::Status PrepareFusedInputs(const FusedParams& p, const Step& s, const ExecState& st,
                                size_t num_inputs, FusedInputs* in, int skip) {
  const int64_t n = p.num_elements;
  in->ptr.assign(num_inputs, nullptr);
  in->splat.clear();
  in->splat.resize(num_inputs);
  in->period.assign(num_inputs, 0);
  in->inner.assign(num_inputs, 1);
  for (size_t i = 0; i < num_inputs; ++i) {
    if (static_cast<int>(i) == skip) continue;
    const int64_t per = p.input_period.empty() ? 0 : p.input_period[i];
    const int64_t inner = p.input_inner.empty() ? 1 : p.input_inner[i];
    const uint8_t* element = p.input_splat[i].data();
    size_t es = p.input_splat[i].size();
    if (per > 0) {
      const RtValue& v = st.slots[s.in[i]];
      es = static_cast<size_t>(p.input_bytes[i]);
      if (v.kind != RtValue::Kind::kArray || v.array.NumElements() != per ||
          v.array.ByteSize() != per * static_cast<int64_t>(es))
        return absl::InternalError("fused elementwise broadcast input of the wrong size");
      element = v.array.data();
      if (per > 1) {
        if (inner < 1 || n % inner != 0 || n / inner % per != 0)
          return absl::InternalError("fused elementwise broadcast input that does not tile the run");
        in->period[i] = per;
        in->inner[i] = inner;
        in->ptr[i] = element;
        continue;
      }
    }
    if (!p.input_splat[i].empty() || per == 1) {  // a block of the repeated element, read at every offset
      const int64_t len = std::min(n, kFusedBlock);      // no block is longer
      in->splat[i].reset(new uint8_t[std::max<int64_t>(len, 1) * es]);
      FillRepeated(in->splat[i].get(), element, static_cast<int64_t>(es), len);
      in->ptr[i] = in->splat[i].get();
      continue;
    }
    if (p.HasWindows() && !p.input_window[i].sizes.empty()) {
      absl::Status status;
      if (!(in->ptr[i] = WindowInput(p, s, st, i, &status))) return status;
      continue;
    }
    const RtValue& v = st.slots[s.in[i]];
    if (v.kind != RtValue::Kind::kArray || v.array.NumElements() != n)
      return absl::InternalError("fused elementwise input of the wrong size");
    in->ptr[i] = v.array.data();
  }
  return absl::OkStatus();
}

FusedBlockEval::FusedBlockEval(const FusedParams& p, const FusedInputs& in, std::vector<Array>* outs,
                               bool stream, bool deferred, int keep, bool registers)
    : p_(p), in_(in), outs_(outs), stream_(stream), deferred_(deferred), buffer_of_(p.ops.size(), -1),
      gathered_(in.ptr.size()) {
  // Block buffers are recycled: once the last op that reads a value has run, the next op that
  // needs a buffer of its size takes it (never one of its own operands', so no loop runs in
  // place). Fewer buffers stay in L1: the tanh chain of bench/ratios.py uses 2 instead of 4.
  // Values stored to an output from their buffer at the end of the block, and `keep`, which the
  // caller reads after Run, keep theirs.
  const int num_inputs = static_cast<int>(in.ptr.size());
  const int num_ops = static_cast<int>(p.ops.size());
  auto operands = [&](const FusedParams::Op& op) {
    std::array<int, 3> v = {op.in0, op.unary ? -1 : op.in1, op.unary || op.binary ? -1 : op.in2};
    return v;
  };
  FusedList<int> last(num_ops, -1);
  for (int k = 0; k < num_ops; ++k)
    for (int v : operands(p.ops[k]))
      if (v >= num_inputs) last[v - num_inputs] = k;
  FusedList<int> free_buffers;
  for (int k = 0; k < num_ops; ++k) {
    const FusedParams::Op& op = p.ops[k];
    if (op.output < 0 || stream_ || deferred_) {
      auto it = std::find_if(free_buffers.begin(), free_buffers.end(),
                             [&](int b) { return buffer_bytes_[b] == op.elem_bytes; });
      if (it != free_buffers.end()) {
        buffer_of_[k] = *it;
        free_buffers.erase(it);
      } else {
        buffer_of_[k] = static_cast<int>(buffer_bytes_.size());
        buffer_bytes_.push_back(op.elem_bytes);
      }
    }
    for (int v : operands(op)) {
      const int j = v - num_inputs;
      if (j < 0 || last[j] != k || buffer_of_[j] < 0 || p.ops[j].output >= 0 || j == keep) continue;
      last[j] = -1;  // an operand read twice is freed once
      free_buffers.push_back(buffer_of_[j]);
    }
  }
  // Repeating inputs are gathered into a block buffer of their own for each block.
  FusedList<int64_t> sizes;
  for (int bytes : buffer_bytes_) sizes.push_back(kFusedBlock * bytes);
  for (size_t i = 0; i < in.ptr.size(); ++i)
    if (in.period[i] > 1) sizes.push_back(kFusedBlock * p.input_bytes[i]);
  // One arena, each buffer 64-byte aligned at its own offset modulo 4 KiB (and none at 0, where
  // the blocks of the inputs and outputs start): a loop that reads one buffer and writes another
  // at the same index would otherwise see its loads wait on stores to addresses that match in
  // their low 12 bits (4K aliasing; separate 4 KiB allocations sat 16 bytes apart modulo 4 KiB,
  // and the tanh chain of bench/ratios.py took 9.9 instead of 8.9 ms on one core).
  FusedList<int64_t> offsets;
  int64_t total = 0;
  for (size_t b = 0; b < sizes.size(); ++b) {
    offsets.push_back(total + static_cast<int64_t>((b + 1) * 448 % 4096));
    total += (sizes[b] + 4095) / 4096 * 4096 + 4096;
  }
  arena_ = ArenaLease(static_cast<size_t>(total) + 64);
  uint8_t* base = arena_.get() + (64 - reinterpret_cast<uintptr_t>(arena_.get()) % 64) % 64;
  buffers_.resize(buffer_bytes_.size());
  size_t b = 0;
  for (; b < buffer_bytes_.size(); ++b) buffers_[b] = base + offsets[b];
  for (size_t i = 0; i < in.ptr.size(); ++i)
    if (in.period[i] > 1) gathered_[i] = base + offsets[b++];
  PlanVec(keep, registers);
  // Per-row values of 4 or 8 bytes along rows of 256 or more that only binary ops with a loop for
  // one scalar operand read, where the register steps do not run: passed a row's part at a time
  // as that operand instead of copied out along the rows. Layer norm over 8192 rows of 512 f32
  // at one thread (its x - mean and normalisation) ~3.4 -> ~3.1 ms, softmax over them ~2.9 ->
  // ~2.75 ms; over rows of 128 the calls cost more than the copies (softmax 32768 x 128
  // 4.2 -> 4.5 ms).
  if (vec_run_) return;
  for (int i = 0; i < num_inputs && i < 64; ++i) {
    const int es = p.input_bytes[static_cast<size_t>(i)];
    bool only_binary = gathered_[i] && in.inner[i] >= 256 && (es == 4 || es == 8);
    for (const FusedParams::Op& op : p.ops) {
      for (int v : operands(op))
        if (v == i) only_binary = only_binary && op.binary && op.in0 != op.in1 &&
                                  op.binary_with_scalar[op.in0 == i ? 0 : 1] && op.splat_operand < 0;
    }
    if (only_binary) row_scalar_ |= uint64_t{1} << i;
  }
}

// The accumulator walks the ops in order. An op whose first operand (or, reversed, second) is
// the value just computed takes it from the accumulator; otherwise the accumulator is loaded.
// A value is stored to its home (At: its block buffer, or its output when outputs are written
// directly) when anything but the next op reads it, when the caller reads it (keep), or when it
// is an output.
void FusedBlockEval::PlanVec(int keep, bool registers) {
  const VecRunFn run = VecRunner();
  const int num_inputs = static_cast<int>(in_.ptr.size());
  const int num_ops = static_cast<int>(p_.ops.size());
  // A lone op keeps its loop over the block: one pass either way, and the loop's own dispatch
  // is cheaper than the steps' (a negate from L1: 1.3-1.6 against 2.4-2.8 cycles per 16 floats).
  // Runs shorter than a block stay on blocks too: planning costs about 0.3 us, a fifth of a tiny
  // program's Execute, for nothing measurable gained.
  bool row_values = false;  // see below
  for (int i = 0; i < num_inputs; ++i) row_values |= in_.period[i] > 1 && in_.inner[i] >= kFusedBlock;
  // (Lone ops keep their loops in row groups too, softmax's product with the reciprocal sums over
  // 32768 x 128 took 2.9 instead of 2.7 ms as register steps, unless their outputs are streamed:
  // the steps then store from registers where the loop's results would be copied out again,
  // 3.5 -> 3.2 ms.)
  if (!run || (num_ops < 2 && !row_values && !(registers && stream_)) || p_.num_elements < kFusedBlock) return;
  auto splat = [&](int v) { return v < num_inputs && in_.splat[v]; };
  for (const FusedParams::Op& op : p_.ops) {
    const bool clamp = op.vec == VecOp::kClamp && op.general && splat(op.in0) && splat(op.in2);
    if (op.vec == VecOp::kNone || op.elem_bytes != 4 || (!clamp && !op.unary && !op.binary)) return;
  }
  for (int i = 0; i < num_inputs; ++i)
    if (p_.input_bytes[i] != 4) return;
  // Each step costs a dispatch per 128 elements, which only pays where it saves several passes
  // or sits beside a long op: w - lr * dw (two cheap ops, the SGD step's deferred update) ran
  // 1.07-1.11x the blocks' time in registers, four cheap ops 0.88-0.99, the tanh chain 0.79-0.92
  // (one core, 4 Ki to 400 Ki elements).
  int heavy = 0;
  for (const FusedParams::Op& op : p_.ops)
    heavy += op.vec == VecOp::kDiv || op.vec == VecOp::kSqrt || op.vec == VecOp::kRsqrt ||
             (op.vec >= VecOp::kExp && op.vec <= VecOp::kErf);
  // A per-row value broadcast along rows of at least a block (layer norm's x - mean, softmax's
  // division by the sums) is read as a scalar by the steps (see Run), where the block loops
  // would write it out and read it back each block: (x - mean)^2 summed over 1024 rows of 1024
  // took 328 us in blocks, 200 us in registers.
  if (heavy == 0 && num_ops < 4 && !row_values && !registers) return;
  std::vector<int> reads_after_next(num_ops, 0);  // per op: reads by ops other than the next one
  for (int k = 0; k < num_ops; ++k) {
    const FusedParams::Op& op = p_.ops[k];
    for (int v : {op.in0, op.unary ? -1 : op.in1, op.general ? op.in2 : -1})
      if (v >= num_inputs && v - num_inputs != k - 1) ++reads_after_next[v - num_inputs];
  }
  FusedList<VecStep> steps;
  auto pointer = [&](int key) {
    auto it = std::find(vec_ptr_key_.begin(), vec_ptr_key_.end(), key);
    if (it != vec_ptr_key_.end()) return static_cast<int>(it - vec_ptr_key_.begin());
    vec_ptr_key_.push_back(key);
    return static_cast<int>(vec_ptr_key_.size()) - 1;
  };
  auto operand = [&](VecStep st, int v) {
    if (v < num_inputs && in_.splat[v]) {
      st.form = VecStep::kScalar;
      std::memcpy(&st.scalar, in_.ptr[v], sizeof(float));
    } else {
      st.form = VecStep::kMemory;
      st.ptr = pointer(v);
    }
    steps.push_back(st);
  };
  auto load = [&](int v) { operand(VecStep{.kind = VecStep::kLoad}, v); };
  int acc = -1;  // the value in the accumulator
  for (int k = 0; k < num_ops; ++k) {
    const FusedParams::Op& op = p_.ops[k];
    const int v = num_inputs + k;
    if (op.unary) {
      if (acc != op.in0) load(op.in0);
      steps.push_back(VecStep{.kind = VecStep::kUnary, .op = op.vec});
    } else if (op.general) {  // clamp(lo, x, hi) with splat bounds
      if (acc != op.in1) load(op.in1);
      VecStep st{.kind = VecStep::kUnary, .op = op.vec};
      std::memcpy(&st.scalar, in_.ptr[op.in0], sizeof(float));
      std::memcpy(&st.scalar2, in_.ptr[op.in2], sizeof(float));
      steps.push_back(st);
    } else {
      VecStep st{.kind = VecStep::kBinary, .op = op.vec};
      if (op.in0 == op.in1) {
        if (acc != op.in0) load(op.in0);
        st.form = VecStep::kSelf;
        steps.push_back(st);
      } else if (acc == op.in0) {
        operand(st, op.in1);
      } else if (acc == op.in1) {
        st.reversed = true;
        operand(st, op.in0);
      } else {
        load(op.in0);
        operand(st, op.in1);
      }
    }
    acc = v;
    bool home_stored = false;
    if (op.output >= 0 && stream_ && !deferred_) {
      steps.push_back(VecStep{.kind = VecStep::kStream, .ptr = pointer(~op.output)});
    } else if (op.output >= 0) {  // home is the output, or (deferred) the buffer copied to it
      steps.push_back(VecStep{.kind = VecStep::kStore, .ptr = pointer(v)});
      home_stored = true;
    }
    if (!home_stored && (reads_after_next[k] > 0 || keep == k))
      steps.push_back(VecStep{.kind = VecStep::kStore, .ptr = pointer(v)});
  }
  vec_steps_ = std::move(steps);
  vec_ptrs_.assign(vec_ptr_key_.size(), nullptr);
  for (size_t i = 0; i < vec_steps_.size(); ++i) {
    const VecStep& s = vec_steps_[i];
    if ((s.kind != VecStep::kLoad && s.kind != VecStep::kBinary) || s.form != VecStep::kMemory) continue;
    const int key = vec_ptr_key_[static_cast<size_t>(s.ptr)];
    if (key >= 0 && key < num_inputs && gathered_[static_cast<size_t>(key)] && in_.inner[static_cast<size_t>(key)] > 1)
      vec_repeats_.push_back({static_cast<int>(i), key});
  }
  // Per-row values over rows of 16 to 1023 elements (attention's softmax and its gradient over
  // rows of the sequence, layer norm over 256): the block runs a row at a time with the values
  // as scalars (Run), where gathering a block of copies of each value, row by row, and reading
  // them back had cost more than the arithmetic: the softmax gradient's divide, add, multiply
  // and divide over 4x8x128x128 at one thread 605 -> 290 us, the d256 transformer step 20.1 ->
  // 19.3 ms. Rows shorter than a chunk of the register steps (128 elements) run masked lanes,
  // still cheaper than the copies: rows of 64 / 32 / 16 in that gradient 450 -> 291, 345 ->
  // 293, 331 -> 283 us. Only where every such value repeats over the same rows.
  if (!vec_repeats_.empty()) {
    const int64_t inner = in_.inner[static_cast<size_t>(vec_repeats_[0].second)];
    bool same = inner >= 16 && inner < kFusedBlock;
    for (const auto& [step, i] : vec_repeats_) same = same && i < 64 && in_.inner[static_cast<size_t>(i)] == inner;
    if (same) row_split_ = inner;
    // The rows' parts then differ only by their offset (every pointer moves with it, every
    // repeating input is read as a scalar) unless outputs are copied after each part or another
    // repeating input (a bias along the rows) is gathered.
    rows_affine_ = row_split_ > 0 && !deferred_;
    for (int i = 0; i < num_inputs && rows_affine_; ++i)
      rows_affine_ = !gathered_[i] || std::any_of(vec_repeats_.begin(), vec_repeats_.end(),
                                                   [&](const std::pair<int, int>& r) { return r.second == i; });
  }
  vec_run_ = run;
}

// Block buffers hold the current block from their start; inputs and outputs are indexed
// absolutely.
uint8_t* FusedBlockEval::At(int value, int64_t start) {
  const int num_inputs = static_cast<int>(in_.ptr.size());
  if (value < num_inputs) {
    if (gathered_[value]) {
      if (value < 64 && (direct_ >> value) & 1)  // the current part lies within one period
        return const_cast<uint8_t*>(in_.ptr[value]) + start % in_.period[value] * p_.input_bytes[value];
      return gathered_[value] + (start - block_start_) * p_.input_bytes[value];
    }
    return const_cast<uint8_t*>(in_.ptr[value]) + (in_.splat[value] ? 0 : start * p_.input_bytes[value]);
  }
  const FusedParams::Op& op = p_.ops[value - num_inputs];
  if (op.output >= 0 && !stream_ && !deferred_) return OutBase(op.output) + start * op.elem_bytes;
  return buffers_[buffer_of_[value - num_inputs]] + (start - block_start_) * op.elem_bytes;
}

namespace {

// memcpy with non-temporal stores for the aligned middle: 32-byte stores on AVX2 and AVX-512
// CPUs, 16-byte (SSE2) ones elsewhere. On Zen 5 the 32-byte form runs the tanh chain of
// bench/ratios.py in 4.0 instead of 4.3 ms at 2 threads (7.6 instead of 8.3 at 1), and 64-byte
// AVX-512 stream stores were slower than either (4.7 -> 5.1 ms against the 16-byte form).
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
OPJ_TARGET_256 void StreamCopy256(uint8_t* dst, const uint8_t* src, size_t bytes) {
  const size_t head = std::min(bytes, (32 - reinterpret_cast<uintptr_t>(dst) % 32) % 32);
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + 32 <= bytes; i += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  std::memcpy(dst + i, src + i, bytes - i);
}
#endif

void StreamCopy(uint8_t* dst, const uint8_t* src, size_t bytes) {
#if defined(__x86_64__) && defined(OPENPJRT_VECTOR_CLONES)
  if (IsaLevel() >= 1) return StreamCopy256(dst, src, bytes);
#endif
#if defined(__x86_64__)
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

}  // namespace

void FusedBlockEval::Finish() {
#if defined(__x86_64__)
  if (stream_) _mm_sfence();  // the streamed lines are visible before the outputs are handed on
#endif
}

namespace {

// dst[k] = values[(start + k) / inner % period] for k in [0, count): per-row values of 4 bytes
// (layer norm's means, softmax's sums) copied out along their rows of a block, a row's copies
// as one vectorized fill. FillRepeated per row had cost more than the ops that read them:
// (x - mean)^2 summed over 32768 rows of 128 f32 at one thread, 2.45 -> 1.18 ms.
[[gnu::always_inline]] inline void RepeatRows4Body(uint32_t* __restrict dst, const uint32_t* __restrict values,
                                                   int64_t start, int64_t count, int64_t inner, int64_t period) {
  int64_t row = start / inner, pos = start % inner;
  for (int64_t done = 0; done < count; pos = 0, ++row) {
    const int64_t len = std::min(inner - pos, count - done);
    const uint32_t v = values[row % period];
    uint32_t* d = dst + done;
    for (int64_t k = 0; k < len; ++k) d[k] = v;
    done += len;
  }
}

}  // namespace

void FusedBlockEval::Run(int64_t start, int64_t count) {
  block_start_ = start;
  // Rows shorter than the block whose per-row values the steps read (row_split_, see PlanVec):
  // a row at a time, each with its values as scalars, instead of a block of copies of each.
  // (Each part's values land at their places in the block's buffers.)
  if (row_split_ > 0 && start % row_split_ + count > row_split_) {
    const int64_t end = start + count;
    int64_t e = start, len = std::min(row_split_ - e % row_split_, end - e);
    RunPart(e, len);
    if (!rows_affine_) {
      for (e += len; e < end; e += len) {
        len = std::min(row_split_ - e % row_split_, end - e);
        RunPart(e, len);
      }
      return;
    }
    // The next rows: RunPart's set-up for each (a fifth of softmax's exponentials and sums over
    // rows of 128) reduced to the rows' scalars and the pointers moved along.
    FusedList<float*> first(vec_ptrs_.begin(), vec_ptrs_.end());
    for (e += len; e < end; e += len) {
      len = std::min(row_split_, end - e);
      for (const auto& [step, i] : vec_repeats_)
        std::memcpy(&vec_steps_[static_cast<size_t>(step)].scalar,
                    in_.ptr[static_cast<size_t>(i)] + e / row_split_ % in_.period[static_cast<size_t>(i)] * 4, 4);
      for (size_t k = 0; k < first.size(); ++k) vec_ptrs_[k] = first[k] + (e - start);
      vec_run_(vec_steps_.data(), vec_steps_.size(), vec_ptrs_.data(), len);
    }
    return;
  }
  RunPart(start, count);
}

void FusedBlockEval::RunPart(int64_t start, int64_t count) {
  const size_t num_inputs = in_.ptr.size();
  // A per-row value repeated over the whole block (layer norm's mean and deviation, softmax's
  // maximum and sum, rows of at least a block) is read by the register steps as a scalar: no
  // block of copies to write and read back.
  uint64_t as_scalar = 0;  // inputs (< 64) read as scalars in this block
  for (const auto& [step, i] : vec_repeats_) {
    VecStep& s = vec_steps_[static_cast<size_t>(step)];
    const int64_t inner = in_.inner[static_cast<size_t>(i)];
    if (i < 64 && start % inner + count <= inner) {
      s.form = VecStep::kScalar;
      std::memcpy(&s.scalar, in_.ptr[static_cast<size_t>(i)] + (start / inner % in_.period[static_cast<size_t>(i)]) * 4, 4);
      as_scalar |= uint64_t{1} << i;
    } else {
      s.form = VecStep::kMemory;
    }
  }
  direct_ = 0;
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!gathered_[i] || (i < 64 && ((as_scalar | row_scalar_) >> i) & 1)) continue;
    const int64_t es = p_.input_bytes[i], per = in_.period[i], inner = in_.inner[i];
    uint8_t* dst = gathered_[i] + (start - block_start_) * es;
    // A repeating input whose period holds the whole part (a bias along rows of a row at a
    // time, or along rows of a block or longer) is read where it is (At), not copied: tanh(x * w
    // + b) over 2048 rows of 1024 at one thread 1020 -> 870 us. (Cutting blocks into rows for
    // such inputs alone, rows of 256, was slower than the copies: 940 -> 1085 us.)
    if (inner == 1 && i < 64 && start % per + count <= per) {
      direct_ |= uint64_t{1} << i;
      continue;
    }
    if (inner == 1) {
      for (int64_t done = 0; done < count;) {  // runs of the input, wrapping at its end
        const int64_t pos = (start + done) % per, len = std::min(per - pos, count - done);
        std::memcpy(dst + done * es, in_.ptr[i] + pos * es, static_cast<size_t>(len * es));
        done += len;
      }
      continue;
    }
    if (es == 4) {
      static const auto repeat = ForCpu<&RepeatRows4Body>();
      repeat(reinterpret_cast<uint32_t*>(dst), reinterpret_cast<const uint32_t*>(in_.ptr[i]), start, count, inner, per);
      continue;
    }
    for (int64_t done = 0; done < count;) {  // each element repeated `inner` times
      const int64_t e = start + done, len = std::min(inner - e % inner, count - done);
      FillRepeated(dst + done * es, in_.ptr[i] + (e / inner % per) * es, es, len);
      done += len;
    }
  }
  if (vec_run_) {
    for (size_t i = 0; i < vec_ptrs_.size(); ++i) {
      const int key = vec_ptr_key_[i];
      uint8_t* p = key >= 0 ? At(key, start) : OutBase(~key) + start * sizeof(float);
      vec_ptrs_[i] = reinterpret_cast<float*>(p);
    }
    vec_run_(vec_steps_.data(), vec_steps_.size(), vec_ptrs_.data(), count);
  }
  for (size_t k = 0; k < p_.ops.size() && !vec_run_; ++k) {
    const FusedParams::Op& op = p_.ops[k];
    uint8_t* out = At(static_cast<int>(num_inputs + k), start);
    if (op.unary) {
      op.unary(At(op.in0, start), out, count);
    } else if (op.binary) {
      const int side = op.in0 < 64 && (row_scalar_ >> op.in0) & 1 ? 0 : op.in1 < 64 && (row_scalar_ >> op.in1) & 1 ? 1 : -1;
      if (side >= 0) {  // a per-row value, one row's part at a time
        const size_t i = static_cast<size_t>(side ? op.in1 : op.in0);
        const int other = side ? op.in0 : op.in1;
        const int64_t inner = in_.inner[i], per = in_.period[i], es = p_.input_bytes[i];
        for (int64_t e = start, end = start + count; e < end;) {
          const int64_t len = std::min(inner - e % inner, end - e);
          const uint8_t* value = in_.ptr[i] + e / inner % per * es;
          const uint8_t* x = At(other, e);
          op.binary_with_scalar[side](side ? x : value, side ? value : x, At(static_cast<int>(num_inputs + k), e), len);
          e += len;
        }
      } else {
        // binary_splat reads the first element of the splat operand's block
        (op.binary_splat ? op.binary_splat : op.binary)(At(op.in0, start), At(op.in1, start), out, count);
      }
    } else {
      const void* in[3] = {At(op.in0, start), At(op.in1, start), At(op.in2, start)};
      op.general(op.params.get(), in, out, count);
    }
    if (stream_ && !deferred_ && op.output >= 0)
      StreamCopy(OutBase(op.output) + start * op.elem_bytes, out,
                 static_cast<size_t>(count * op.elem_bytes));
  }
  if (!deferred_) return;
  for (size_t k = 0; k < p_.ops.size(); ++k) {
    const FusedParams::Op& op = p_.ops[k];
    if (op.output < 0) continue;
    uint8_t* dst = OutBase(op.output) + start * op.elem_bytes;
    const size_t bytes = static_cast<size_t>(count * op.elem_bytes);
    const uint8_t* src = buffers_[buffer_of_[k]] + (start - block_start_) * op.elem_bytes;
    if (stream_) StreamCopy(dst, src, bytes);
    else std::memcpy(dst, src, bytes);
  }
}

}  // namespace openpjrt::cpu
