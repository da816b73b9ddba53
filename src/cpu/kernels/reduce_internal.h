// Shared by the reduction kernels (kernels_reduce.cc, kernels_argreduce.cc). Internal to src/cpu.
#pragma once

#include <cstdint>
#include <vector>

#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

// The input's dimensions merged into runs of kept or reduced ones (size-1 dimensions dropped):
// when they form [R0] [A] [R] [B] (R0 and R reduced, A and B kept, any of them absent) the
// reduction runs over contiguous memory; otherwise `ok` is false.
struct Blocks {
  bool ok = false;
  int64_t r0 = 1, a = 1, r = 1, b = 1;
};
Blocks MakeBlocks(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& dims);

// out[i] = init op (the fold of row i) for rows of n f32 elements one after another: the bits a
// fast reduction over the trailing dimension gives each row (FastReduce and FusedReduce alike;
// the row groups of fused_rows.h fold their rows here). op: add, max or min (false otherwise).
bool FoldRowsF32(BinaryOp op, const float* x, int64_t rows, int64_t n, float init, float* out);

// reduce with its reducer region (regions[0]) evaluated, for any number of inputs.
void GenericReduce(const Step& s, ExecState& st);

// The argmax / argmin kernel for values of kind v and indices of kind i (kernels_argreduce.cc);
// null when there is none for these kinds.
KernelFn ArgReduceKernel(ElemKind v, ElemKind i);

}  // namespace openpjrt::cpu
