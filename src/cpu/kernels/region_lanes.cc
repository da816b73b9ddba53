// LaneRegion (region_lanes.h): a plan over the region's steps with one lane buffer per value.
#include "src/cpu/kernels/region_lanes.h"

#include <cstring>
#include <unordered_map>

#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

struct LaneRegion::Planned {
  const Step* step = nullptr;
  const uint8_t* in[3] = {nullptr, nullptr, nullptr};
  uint8_t* out = nullptr;
  // A fused run: its inputs (the lane buffers) and outputs, and the evaluator over them.
  FusedInputs inputs;
  std::vector<Array> outs;
  std::unique_ptr<FusedBlockEval> eval;
};

LaneRegion::~LaneRegion() = default;

namespace {

void Fill(uint8_t* dst, const uint8_t* element, int64_t es, int64_t count) {
  for (int64_t k = 0; k < count; ++k) std::memcpy(dst + k * es, element, static_cast<size_t>(es));
}

}  // namespace

std::unique_ptr<LaneRegion> LaneRegion::Make(const Program& region, const ExecState& st,
                                             const std::vector<int>& arg_bytes) {
  if (arg_bytes.size() != region.args.size()) return nullptr;
  std::unique_ptr<LaneRegion> r(new LaneRegion());
  std::unordered_map<int, uint8_t*> lanes;  // slot -> its kLanes elements
  std::unordered_map<int, int> bytes;       // slot -> element size
  auto buffer = [&](int slot, int es, ElemKind kind) {
    ArrayType t{kind, {kLanes}};
    if (ir::ByteSize(kind) != es) {  // sized by bytes only (arguments): any kind of that width
      t.elem = es == 1 ? ElemKind::kU8 : es == 2 ? ElemKind::kU16 : es == 4 ? ElemKind::kU32
             : es == 8 ? ElemKind::kU64 : ElemKind::kC128;
    }
    r->storage_.push_back(Array::Allocate(t));
    uint8_t* p = r->storage_.back().mutable_data();
    lanes[slot] = p;
    bytes[slot] = es;
    return p;
  };
  for (size_t i = 0; i < region.args.size(); ++i) {
    const int es = arg_bytes[i];
    if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16) return nullptr;
    r->args_.push_back(buffer(region.args[i], es, ElemKind::kU8));
  }
  // A slot the region reads: one of its lane buffers, or an outer one-element value repeated.
  auto read = [&](int slot) -> const uint8_t* {
    auto it = lanes.find(slot);
    if (it != lanes.end()) return it->second;
    if (slot < 0 || static_cast<size_t>(slot) >= st.slots.size()) return nullptr;
    const RtValue& v = st.slots[slot];
    if (v.kind != RtValue::Kind::kArray || v.array.NumElements() != 1) return nullptr;
    const int es = static_cast<int>(v.array.ByteSize());
    uint8_t* p = buffer(slot, es, v.array.elem());
    Fill(p, v.array.data(), es, kLanes);
    return p;
  };
  for (const Step& s : region.steps) {
    auto plan = std::make_unique<Planned>();
    plan->step = &s;
    if (s.fn == ConstantKernel() || s.fn == SplatConstantKernel()) {
      const uint8_t* element = nullptr;
      ArrayType t;
      if (s.fn == ConstantKernel()) {
        const RtValue& v = s.Params<ConstantParams>().value;
        if (v.kind != RtValue::Kind::kArray || v.array.NumElements() != 1) return nullptr;
        element = v.array.data();
        t = v.array.type();
      } else {
        const SplatConstantParams& p = s.Params<SplatConstantParams>();
        if (p.type.NumElements() != 1 || p.element.empty()) return nullptr;
        element = p.element.data();
        t = p.type;
      }
      if (s.out.size() != 1) return nullptr;
      uint8_t* p = buffer(s.out[0], static_cast<int>(t.ElementSize()), t.elem);
      Fill(p, element, t.ElementSize(), kLanes);
      continue;  // filled once: nothing to run
    }
    if (s.fn == FusedElementwiseKernel()) {
      const FusedParams& fp = s.Params<FusedParams>();
      if (fp.num_elements != 1 || fp.HasWindows()) return nullptr;
      const size_t n = s.in.size();
      plan->inputs.ptr.assign(n, nullptr);
      plan->inputs.splat.resize(n);
      plan->inputs.period.assign(n, 0);
      plan->inputs.inner.assign(n, 1);
      for (size_t i = 0; i < n; ++i) {
        // A broadcast the run reads in place (period > 0) may be read as its first element only
        // (binary_splat), which would give every lane lane 0's value: not planned.
        if (!fp.input_period.empty() && fp.input_period[i] != 0) return nullptr;
        if (!fp.input_splat[i].empty()) {  // a splat constant: a block of its element
          const int64_t es = static_cast<int64_t>(fp.input_splat[i].size());
          plan->inputs.splat[i].reset(new uint8_t[kLanes * es]);
          Fill(plan->inputs.splat[i].get(), fp.input_splat[i].data(), es, kLanes);
          plan->inputs.ptr[i] = plan->inputs.splat[i].get();
          continue;
        }
        if (!(plan->inputs.ptr[i] = read(s.in[i]))) return nullptr;
      }
      for (size_t j = 0; j < s.out.size(); ++j) {
        plan->outs.push_back(Array::Allocate(ArrayType{s.out_types[j].elem, {kLanes}}));
        lanes[s.out[j]] = plan->outs.back().mutable_data();
        bytes[s.out[j]] = static_cast<int>(s.out_types[j].ElementSize());
      }
      plan->eval = std::make_unique<FusedBlockEval>(fp, plan->inputs, &plan->outs);
      r->steps_.push_back(std::move(plan));
      continue;
    }
    // One elementwise step (the lone ops fusion left alone).
    const bool raw = s.raw_unary || s.raw_binary || s.raw_op;
    if (!raw || !s.regions.empty() || s.out.size() != 1 || s.out_types.size() != 1 ||
        s.out_types[0].NumElements() != 1 || s.in.size() > 3 || s.in.empty())
      return nullptr;
    for (size_t i = 0; i < s.in.size(); ++i)
      if (!(plan->in[i] = read(s.in[i]))) return nullptr;
    plan->out = buffer(s.out[0], static_cast<int>(s.out_types[0].ElementSize()), s.out_types[0].elem);
    r->steps_.push_back(std::move(plan));
  }
  for (int slot : region.results) {
    const uint8_t* p = read(slot);
    if (!p) return nullptr;
    r->results_.push_back(p);
    r->result_bytes_.push_back(bytes[slot]);
  }
  return r;
}

std::unique_ptr<LaneRegion> LaneRegion::MakeFold(const Program& region, const ExecState& st,
                                                 const std::vector<int>& es) {
  std::vector<int> arg_bytes = es;
  arg_bytes.insert(arg_bytes.end(), es.begin(), es.end());
  std::unique_ptr<LaneRegion> r = Make(region, st, arg_bytes);
  if (!r || r->num_results() != es.size()) return nullptr;
  for (size_t i = 0; i < es.size(); ++i)
    if (r->result_bytes(i) != es[i]) return nullptr;
  return r;
}

void LaneRegion::Run(int64_t count) {
  for (const auto& plan : steps_) {
    const Step& s = *plan->step;
    if (plan->eval) {
      plan->eval->Run(0, count);
    } else if (s.raw_unary) {
      s.raw_unary(plan->in[0], plan->out, count);
    } else if (s.raw_binary) {
      s.raw_binary(plan->in[0], plan->in[1], plan->out, count);
    } else {
      const void* in[3] = {plan->in[0], plan->in[1], plan->in[2]};
      s.raw_op(s.params.get(), in, plan->out, count);
    }
  }
}

}  // namespace openpjrt::cpu
