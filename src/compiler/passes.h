// The passes that run on a lowered CPU program (compile.cc builds it): elementwise fusion,
// reductions absorbing their producers, and slot releases. Results never change: fused code runs
// the same loops in the same order.
#pragma once

#include <vector>

#include "src/cpu/exec/program.h"
#include "src/cpu/kernels/kernels.h"

namespace openpjrt::compiler {

// Removes iota, constant, splat constant, transpose and static broadcast steps whose results
// nothing reads, in nested programs too (a kernel that computes what it would have read, such as
// argmax's positions, leaves them behind; so do a product that reads a transpose's operand in
// place, FoldTransposes, and a scatter that fills its result from a broadcast's scalar).
void DropUnreadSteps(cpu::Program& prog);
// Steps whose operands are all constants (not all splats) and that give the same bits at compile
// time as at run time become constants: iotas, data movement, integer and boolean elementwise
// ops (the triangle masks JAX builds from two iotas and a compare). Results of at most 1 MiB.
void FoldConstants(cpu::Program& prog);
// A reshape that alone reads a slice or dynamic_slice goes: the slice writes its window in the
// reshape's type (the same row-major bytes; x[i] of JAX is a dynamic_slice and a reshape).
void FoldReshapes(cpu::Program& prog);
// Runs of consecutive elementwise steps of one element count become one fused step (splat
// constants and repeating broadcasts are read from their source).
void FuseElementwise(cpu::Program& prog);
// A contiguous dynamic_slice read only by a fused run, as an ordinary input, is read by the run
// in place at the slice's start (FusedParams::Window): no copy of the slice.
void AbsorbDynamicSlices(cpu::Program& prog);
// A fast reduction absorbs the fused run that is the only producer of its input.
void FuseReductions(cpu::Program& prog);
// An f32 dot_general or convolution absorbs the fused elementwise run that alone reads its
// result (bias, activation) as an epilogue run on each finished region of the product; so does
// a gather (FusedGatherParams: an embedding lookup's scaling, run on each block of rows).
void FuseProductEpilogues(cpu::Program& prog);
// A scatter of whole rows whose updates only a gather (with such an epilogue, whose other inputs
// are splats) makes absorbs it: the rows are read from the table as the scatter needs them
// (FusedScatterParams: JAX's gradient of an embedding lookup).
void FuseLookupsIntoScatters(cpu::Program& prog);
// Chains of row reductions and the fused runs around them (softmax, layer norm) become row
// groups (cpu/kernels/fused_rows.h), evaluated a block of rows at a time (fuse_rows.cc).
// arg_types: the types of prog.args. OPENPJRT_ROW_GROUPS=0 leaves programs alone (comparisons).
void FuseRows(cpu::Program& prog, const std::vector<cpu::ArrayType>& arg_types);
// The fused-run op that computes elementwise step `s` (operands and output left for the caller).
cpu::FusedParams::Op FusedOpOf(const cpu::Step& s);
// Constant right operands of f32 dot_general steps are packed for the kernel at compile time.
void PrepackConstantWeights(cpu::Program& prog);
// Constants (and splat constants) in the bodies and conditions of loops move out in front of
// the loop: computed once instead of once per iteration (a scan's step counter increment and its
// limit). Nested loops hoist level by level to the outermost loop.
void HoistLoopConstants(cpu::Program& prog);
// Marks each slot for release after the last step of the program that reads it.
void ComputeReleases(cpu::Program& prog);
// Every slot `p` and its nested programs read (their results included).
void CollectUses(const cpu::Program& p, std::vector<int>* uses);

}  // namespace openpjrt::compiler
