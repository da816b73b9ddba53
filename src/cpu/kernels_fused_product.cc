// FusedProductParams (kernels.h): an f32 product whose elementwise epilogue runs region by region
// inside the product's parallel pieces. A separate epilogue step costs a second fork and join
// and, at two threads, reads half of the product back from the other core's cache: 36 of 454 us
// for 128x784 @ 784x512 + bias + relu.
#include <algorithm>

#include "src/cpu/fused.h"
#include "src/cpu/kernels_indexing.h"

namespace openpjrt::cpu {
namespace {

void FusedProduct(const Step& s, ExecState& st) {
  const FusedProductParams& p = s.Params<FusedProductParams>();
  const Step& product = p.product;
  const Step& epilogue = p.epilogue;
  const FusedParams& fp = epilogue.Params<FusedParams>();
  const int product_slot = epilogue.in[static_cast<size_t>(p.product_input)];
  Array c = Array::Allocate(product.out_types[0]);
  // The run reads the product through its slot, filled here and emptied before returning.
  st.slots[product_slot] = RtValue::Of(c);
  FusedInputs in;
  if (absl::Status status = PrepareFusedInputs(fp, epilogue, st, epilogue.in.size(), &in); !status.ok()) {
    st.slots[product_slot] = RtValue();
    return st.Fail(s, std::move(status));
  }
  // The first output of the product's size takes its storage: each block of the run writes the
  // elements it has just read (deferred writes, as for any in-place output of a run).
  std::vector<Array> outs;
  bool in_place = false;
  for (const ArrayType& t : epilogue.out_types) {
    if (!in_place && t.ByteSize() == c.ByteSize()) {
      outs.push_back(c.Reshaped(t));
      in_place = true;
    } else {
      outs.push_back(Array::Allocate(t));
    }
  }
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
