// 3x3, stride-1 f32 convolutions by Winograd's minimal filtering F(2x2, 3x3): each 2x2 block of
// outputs ("tile") is computed from its 4x4 input patch with 16 multiplications per (input,
// output) feature pair instead of 36, so the products behind a convolution shrink 2.25 times.
// Input patches and the kernel are transformed (additions, halvings), the 16 transformed planes
// multiplied by our GEMM (one [tiles x in] @ [in x out] product per plane), and the results
// folded back into 2x2 outputs.
//
// Results differ from the direct sum in rounding only (the transforms' constants are 0, +-1 and
// +-1/2); a non-finite input or kernel value would not propagate the same way (an infinity
// subtracted from itself in a transform gives NaN where the direct sum gives the infinity), so
// such calls are refused before anything is written and the caller takes its direct path.
#pragma once

#include <cstdint>
#include <functional>

#include "src/cpu/blas/sgemm.h"

namespace openpjrt::cpu {

// x: [batch, in_h, in_w, in_feat] (NHWC), w: [3, 3, in_feat, out_feat] (HWIO), y: [batch,
// out_h, out_w, out_feat], all row-major; output (oy, ox) reads input rows oy - pad_top ..
// oy - pad_top + 2 and columns ox - pad_left .. + 2, zero outside the input (so any padding,
// negative included, is expressed by pad_top / pad_left and the output size).
struct WinogradShape {
  int64_t batch, in_h, in_w, in_feat, out_h, out_w, out_feat, pad_top, pad_left;
};

// True when this build and CPU can run it (HaveFastSgemm()), both feature counts are multiples
// of 16 and at least 32, there are at least 192 tiles (a 28x28 output), and OPENPJRT_WINOGRAD=0
// is not set in the environment. (16 features, 49 tiles: slower than the direct path.)
bool WinogradApplies(const WinogradShape& s);

// Output positions [pos0, pos0 + count) (row-major over batch, out_h, out_w) are final, all
// their out_feat features; told on the thread that computed them.
using WinogradDone = std::function<void(int64_t pos0, int64_t count)>;

// Computes y. Returns false, having written nothing and told `done` nothing, when x or w holds
// an infinity or NaN (or its buffers cannot be allocated). Work is cut into blocks of whole tile
// rows (or segments of one) that do not depend on the thread count, so results are the same bits
// with any number of threads.
bool WinogradConv3x3(const WinogradShape& s, const float* x, const float* w, float* y, int threads,
                     const SgemmParallelFor& parallel_for, const WinogradDone* done);

// For tests: every buffer of more than max_floats floats is refused as if its allocation had
// failed (the calls that need one then return false untouched); INT64_MAX lifts the limit.
void LimitWinogradBuffersForTest(int64_t max_floats);

}  // namespace openpjrt::cpu
