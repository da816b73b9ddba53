// Kernels that index by computed positions: gather, scatter, sort, the windowed reductions and
// convolution. Parameters mirror the ops' attributes (see the StableHLO specification).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

struct GatherParams {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, operand_batching_dims,
      start_indices_batching_dims, start_index_map, slice_sizes;
  int64_t index_vector_dim = 0;
};
KernelFn GatherKernel();
KernelFn DynamicGatherKernel();  // slice sizes from the third operand

struct ScatterParams {
  std::vector<int64_t> update_window_dims, inserted_window_dims, input_batching_dims,
      scatter_indices_batching_dims, scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  bool assign = false;  // the update computation returns its second argument
  // The update computation as a typed loop (TypedFold) when it is one binary op of the current
  // value and the update (scatter-add, -max, ...) over one operand; null otherwise.
  void (*fold)(void* acc, const void* x, int64_t n) = nullptr;
  // The first input is a scalar that fills the result before the updates (scatter into
  // broadcast_in_dim of it), one operand only.
  bool fill = false;
};
KernelFn ScatterKernel();  // regions[0]: the update computation (unless assign)

// A comparator that is compare LT/GT (integers, or floats in TOTALORDER) of key(a) and key(b) for
// one operand's pair of elements, where key is the element itself or, as jnp.sort writes it, the
// element with zeros replaced by zero_bits and NaNs by nan_bits.
struct SortKey {
  int operand = 0;
  bool less = true;  // ascending
  bool total_order = false;
  bool canon_zero = false, canon_nan = false;
  uint64_t zero_bits = 0, nan_bits = 0;  // the replacements' bits, in the operand's element type
};
struct SortParams {
  int64_t dimension = -1;
  bool by_key = false;  // the comparator is `key` (recognised by the compiler)
  SortKey key;
};
KernelFn SortKernel();  // regions[0]: the comparator

struct WindowParams {
  std::vector<int64_t> dims, strides, base_dilations, window_dilations;
  std::vector<int64_t> pad_low, pad_high;
};
KernelFn ReduceWindowKernel();      // regions[0]: the reducer
KernelFn SelectAndScatterKernel();  // regions[0]: select, regions[1]: scatter
// The same as typed loops (kernels_pool.cc) when the regions are one op: a reduce_window body
// op(acc, x) over element kind k, a select that is compare(current, candidate) without total order
// and a scatter that adds, over operands of one kind. Null when no such loop exists; the steps
// then carry their regions and use the kernels above. Same results, bit for bit.
KernelFn FastReduceWindowKernel(BinaryOp op, ElemKind k);
KernelFn FastSelectAndScatterKernel(CompareParams select, BinaryOp scatter, ElemKind operand, ElemKind result);
// acc[i] = op(acc[i], x[i]) for i < n over elements of kind k, each result rounded to the element
// type as a region's result is: the typed loop of a fold region that is exactly op(acc, x).
// Null where there is none (complex elements, ops without a typed loop).
using TypedFoldFn = void (*)(void* acc, const void* x, int64_t n);
TypedFoldFn TypedFold(BinaryOp op, ElemKind k);

struct ConvParams {
  int64_t in_batch, in_feature, k_in, k_out, out_batch, out_feature;
  std::vector<int64_t> in_spatial, k_spatial, out_spatial;
  std::vector<int64_t> strides, pad_low, pad_high, lhs_dilation, rhs_dilation;
  std::vector<bool> reversal;
  int64_t feature_groups = 1, batch_groups = 1;
};
// Operands arrive in the result's element kind.
absl::StatusOr<KernelFn> SelectConvolution(ElemKind k);
// The same through matrix products (kernels_conv.cc) for f32, f64, c64 and c128 when
// batch_group_count is 1; null otherwise.
KernelFn ConvolutionGemmKernel(ElemKind k);

KernelFn MapKernel();  // regions[0]: the computation, applied per element

}  // namespace openpjrt::cpu
