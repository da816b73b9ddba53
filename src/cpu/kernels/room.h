// Room kernels/: the op kernels the compiler selects, one whole-tensor loop per launch.
//
// Contract: kernels.h is the compiler's interface (select a kernel for the element kinds, or
// UNIMPLEMENTED / INVALID_ARGUMENT naming what is not supported; parameters as structs in
// Step::params). Its files implement the ops by family: elementwise and conversions (with
// elementwise_ops.h's functors, fused.h / fused_vec.h for fused chains, evaluated a block at a
// time by fused_block.cc, or, at most one block long (a loop body's), op after op by
// fused_small.cc from a layout worked out once per run; fused_rows.h for row groups, chains
// of row reductions and the runs around them evaluated a block of rows at a time; region_lanes.h for
// reducer regions evaluated in vector lanes), reductions and arg-reductions, shape and data
// movement, indexing (gather, scatter, dynamic slices; a gather of rows with a fused epilogue,
// a scatter of rows that fills its result block by block and may read its updates straight
// from a lookup's table; kernels_indexing.cc), sort (kernels_sort.cc), windows and pooling,
// convolution (with Winograd for 3x3), dot and fused products, random numbers, quantized types, control flow,
// and the check dialect. No per-element virtual dispatch on any path. Depends on: exec/, math/,
// blas/; linear algebra is lapack/'s, FFT fft/'s and collectives comm/'s.
#pragma once

#include "src/cpu/kernels/kernels.h"
