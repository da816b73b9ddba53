// Room fft/: the discrete Fourier transforms behind stablehlo.fft.
//
// Contract: fft.h transforms every line of one dimension of a dense row-major complex<double>
// array in place, or out of place from a source array of the same shape (forward or inverse,
// unnormalised forward), for any length: radix-2 for powers
// of two, mixed radix for lengths whose prime factors are at most 31, Bluestein's chirp
// otherwise; lines run eight at a time in vector lanes, groups of lines over the intra-op
// threads. FFT, IFFT, RFFT and IRFFT over several dimensions are composed by the fft kernel from
// these line transforms. Depends on: exec/ only.
#pragma once

#include "src/cpu/fft/fft.h"
