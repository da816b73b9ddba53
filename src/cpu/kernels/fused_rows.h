// Row groups: the steps of a softmax, a layer norm or a log-softmax evaluated a block of rows at a
// time. Internal to src/cpu (the compiler's FuseRows pass builds the params).
//
// Such a chain works on an arrangement of R rows of C elements: reductions over each row's C
// trailing elements (maxima, sums), fused runs over all R x C elements that read the per-row
// results back along the rows, and small runs over the R per-row values between them. Apart,
// every member is a pass over memory: softmax over 16 MiB made three (maxima; exponentials and
// their sums, stored; the products), layer norm three. A group runs every member on one block of
// rows (a few KiB) before the next block starts, so the block stays in L1 from the first read of
// its inputs to the last write of its outputs: the inputs are read from memory once and the
// outputs written once.
//
// Contract:
// - Each member computes exactly what its step computes apart: fused runs through the same
//   evaluator (FusedBlockEval, elementwise, so the cut into blocks changes nothing), reductions
//   through FoldRowsF32 (the fast reduction's order for each row). Results are the same bits as
//   the steps apart, with any number of threads (blocks of rows are spread over them).
// - Values the group defines live in full arrays when they are read after the group (its
//   outputs) or hold one element per row; the others (R x C values only members read: softmax's
//   exponentials) live in a block of rows of per-thread scratch and never reach memory.
// - Runs read their inputs in absolute element positions; scratch values are given as the base
//   that puts the current block at its rows' positions.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "src/cpu/kernels/kernels.h"

namespace openpjrt::cpu {

struct FusedRowsParams {
  int64_t rows = 0, cols = 0;  // R and C
  struct Value {
    int in_slot = -1;             // >= 0: defined before the group, read from this slot
    std::vector<int> out_slots;   // slots the value is written to when the group is done
    std::vector<ArrayType> out_types;  // per out slot (the same bytes, perhaps another shape)
    bool per_row = false;         // one element per row (else R x C), for values the group defines
    bool scratch = false;         // R x C, read only by members: a block of rows per thread
    // >= 0: an R x C value read only by members, kept in the rows of this output of the member
    // that reads it last (which then writes those rows in place): its block is written where the
    // output's will be, so the output's lines are fetched by a member with arithmetic to hide
    // it (softmax's exponentials in the rows of the result: 2.6 -> 2.2 ms for 32768 x 128 in a
    // prototype, against a block of scratch and the products written to the result).
    int host = -1;
    ArrayType type;               // of a value the group defines
  };
  struct Member {
    // A fused run over R or R x C elements (run->num_elements says which) ...
    std::shared_ptr<const FusedParams> run;
    std::vector<int> in;   // per run input: its value (-1: a splat constant, read from the params)
    std::vector<int> out;  // per run output: its value
    bool deferred = false;  // an output hosts an input (FusedBlockEval's deferred writes)
    // ... or, with run null, a reduction of each row of value in[0] (f32, R x C) into the per-row
    // value out[0]: init op fold(row), init the one f32 element of value in[1].
    BinaryOp fold = BinaryOp::kAdd;
  };
  std::vector<Value> values;
  std::vector<Member> members;  // in order
};
KernelFn FusedRowsKernel();

}  // namespace openpjrt::cpu
