// FusedProductParams (kernels.h): an f32 product whose elementwise epilogue runs region by region
// inside the product's parallel pieces. A separate epilogue step costs a second fork and join
// and, at two threads, reads half of the product back from the other core's cache: 36 of 454 us
// for 128x784 @ 784x512 + bias + relu.
#include <algorithm>
#include <cstring>

#include "src/cpu/kernels/fused.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/blas/sgemm.h"

namespace openpjrt::cpu {
namespace {

// An epilogue that is an update of another full-size array by the product (SgemmUpdate): d + p,
// p + d or d - p, with p optionally multiplied by a splat s first (s * p or p * s): SGD's
// w - lr * dw, a residual connection. The product kernel then applies it in registers, and the
// product is never stored and read back (784x128^T @ 128x512 with w - lr * dw at 2 threads:
// the block evaluator's two passes and copy-out had cost ~60-80 us over the product's ~520).
// False when the epilogue has another form.
bool MatchUpdate(const FusedParams& fp, const Step& epilogue, int product, const FusedInputs& in, SgemmUpdate* u) {
  const int num_inputs = static_cast<int>(in.ptr.size());
  const size_t num_ops = fp.ops.size();
  if (epilogue.out_types.size() != 1 || num_ops < 1 || num_ops > 2) return false;
  for (const FusedParams::Op& op : fp.ops)
    if (!op.binary || op.elem_bytes != 4) return false;
  auto full = [&](int v) {  // an ordinary f32 input other than the product, read element for element
    return v >= 0 && v < num_inputs && v != product && !in.splat[v] && in.period[v] == 0 && fp.input_bytes[v] == 4;
  };
  auto splat = [&](int v) { return v >= 0 && v < num_inputs && v != product && in.splat[v] && fp.input_bytes[v] == 4; };
  int p = product;  // the value the last op combines with D
  if (num_ops == 2) {
    const FusedParams::Op& mul = fp.ops[0];
    if (mul.vec != VecOp::kMul || mul.output >= 0) return false;
    int s = -1;
    if (mul.in0 == product && splat(mul.in1)) s = mul.in1;
    else if (mul.in1 == product && splat(mul.in0)) s = mul.in0;
    else return false;
    u->scaled = true;
    std::memcpy(&u->scale, in.ptr[s], sizeof(float));
    p = num_inputs;  // op 0's value
  }
  const FusedParams::Op& last = fp.ops.back();
  if (last.output != 0) return false;
  int d = -1;
  if (last.vec == VecOp::kSub && last.in1 == p && full(last.in0)) {
    d = last.in0;
    u->subtract = true;
  } else if (last.vec == VecOp::kAdd && last.in1 == p && full(last.in0)) {
    d = last.in0;
  } else if (last.vec == VecOp::kAdd && last.in0 == p && full(last.in1)) {
    d = last.in1;
  } else {
    return false;
  }
  u->d = reinterpret_cast<const float*>(in.ptr[d]);
  return true;
}

void FusedProduct(const Step& s, ExecState& st) {
  const FusedProductParams& p = s.Params<FusedProductParams>();
  const Step& product = p.product;
  const Step& epilogue = p.epilogue;
  const FusedParams& fp = epilogue.Params<FusedParams>();
  const int product_slot = epilogue.in[static_cast<size_t>(p.product_input)];
  // A product of at most one block (a loop body's h W): made whole in the product's slot (which
  // keeps its storage for the next iteration), then its run op after op.
  if (fp.num_elements <= kFusedBlock && product.out.size() == 1 && product.out[0] == product_slot) {
    Array& small = st.Output(product);
    if (DotF32Fast(product, st, small, nullptr) || ConvF32Fast(product, st, small, nullptr)) {
      if (!FusedSmall(fp, epilogue, st, &small, p.product_input)) epilogue.fn(epilogue, st);  // (it takes every such run)
      st.Release(product_slot);
      return;
    }
    st.slots[product_slot] = RtValue();
  }
  Array c = st.NewArray(product.out_types[0]);
  // The run reads the product through its slot, filled here and emptied before returning.
  st.slots[product_slot] = RtValue::Of(c);
  FusedInputs in;
  if (absl::Status status = PrepareFusedInputs(fp, epilogue, st, fp.input_bytes.size(), &in); !status.ok()) {
    st.slots[product_slot] = RtValue();
    return st.Fail(s, std::move(status));
  }
  SgemmUpdate update;
  if (MatchUpdate(fp, epilogue, p.product_input, in, &update) && epilogue.out_types[0].ByteSize() == c.ByteSize() &&
      DotF32Fast(product, st, c, nullptr, &update)) {
    st.slots[product_slot] = RtValue();
    st.slots[s.out[0]] = RtValue::Of(c.Reshaped(epilogue.out_types[0]));
    return;
  }
  // The first output of the product's size takes its storage (deferred writes).
  bool in_place;
  std::vector<Array> outs = EpilogueOutputs(epilogue, c, &in_place);
  const ProductRegionFn done = [&](int64_t e0, int64_t rows, int64_t cols, int64_t ld) {
    FusedBlockEval eval(fp, in, &outs, /*stream=*/false, in_place);
    if (cols == ld) {  // whole rows: one contiguous range
      for (int64_t e = e0, end = e0 + rows * ld; e < end; e += kFusedBlock)
        eval.Run(e, std::min(kFusedBlock, end - e));
    } else {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; j += kFusedBlock)
          eval.Run(e0 + r * ld + j, std::min(kFusedBlock, cols - j));
    }
    eval.Finish();
  };
  if (DotF32Fast(product, st, c, &done) || ConvF32Fast(product, st, c, &done)) {
    st.slots[product_slot] = RtValue();
    for (size_t j = 0; j < outs.size(); ++j) st.slots[s.out[j]] = RtValue::Of(std::move(outs[j]));
    return;
  }
  // Another path: the two steps as they were.
  outs.clear();
  in = FusedInputs();
  c = Array();
  st.slots[product_slot] = RtValue();
  product.fn(product, st);
  if (st.ok()) epilogue.fn(epilogue, st);
  st.slots[product_slot] = RtValue();
}

}  // namespace

KernelFn FusedProductKernel() { return &FusedProduct; }

}  // namespace openpjrt::cpu
