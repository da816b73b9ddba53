// The FFT behind stablehlo.fft (fft.cc): every line of one dimension of a dense row-major
// complex<double> array transformed in place, eight lines at a time in vector lanes, the groups
// of lines spread over the intra-op threads. Lengths that are powers of two take a radix-2
// transform; lengths whose prime factors are at most 31 a mixed-radix one (Stockham's
// self-sorting stages of radix 4, 2 and odd radices); others Bluestein's chirp transform (a
// circular convolution through power-of-two transforms). Plans (twiddles, bit reversal, stages,
// Bluestein's kernel) are built once per length and kept. Internal to src/cpu.
#pragma once

#include <complex>
#include <cstdint>
#include <span>

#include "src/cpu/exec/program.h"

namespace openpjrt::cpu {

enum class FftLines : uint8_t {
  kComplex,       // each line's complex values
  kRealForward,   // lines hold real values (imaginary parts ignored): their spectra's points
                  // 0..n/2 (the rest, their mirror image, is left as it was)
  kRealInverse,   // lines hold Hermitian spectra: their real inverse transforms (imaginary parts 0)
};

// Transforms every line along dimension d of `a` (dims row-major): forward sum x_t e^(-2 pi i kt/n),
// inverse with e^(+...) divided by n. Real lines go two to a lane (x + i y), which halves their
// work.
// C is complex<double> or complex<float>: the transform computes in C's precision (as XLA's CPU
// FFT does for complex64), with twiddles computed in double. With `from` (an array of a's shape),
// the lines are read there and their transforms written to `a`: an out-of-place transform
// without copying the input into `a` first (a serial pass over the whole input, 15% of a 64 x 4096
// complex64 FFT at two threads).
template <typename C>
void FftAlong(ExecState& st, C* a, std::span<const int64_t> dims, size_t d, bool inverse, FftLines lines,
              const C* from = nullptr);

// The forward transforms of `rows` rows of n plain reals at x (row-major), points 0..n/2 of each
// into `half` (rows of n/2 + 1): the same values as FftAlong's kRealForward on the rows widened to
// complex, without the widened copy. False, having done nothing, when the rows are too few to
// fill the vector lanes (FftAlong then).
template <typename C>
bool RealRowsForward(ExecState& st, const typename C::value_type* x, int64_t rows, int64_t n, C* half);

}  // namespace openpjrt::cpu
