// FftAlong out of place (`from`) against the same transform in place on a copy of the input:
// the same bits for every path the lines can take (radix 2 in vector lanes, mixed radices,
// Bluestein, partial groups and single lanes, lines side by side along an outer dimension,
// four steps for a few long lines, length 1), complex64 and complex128, with the work cut into
// pieces as at two threads; and lines side by side in runs with leftover lines, against a DFT.
#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/cpu/exec/program.h"
#include "src/cpu/fft/fft.h"

namespace openpjrt::cpu {
namespace {

// Pieces run one after another on the calling thread, as many as two threads would be given.
class TwoPieces : public Parallel {
 public:
  int threads() const override { return 2; }
  bool deterministic() const override { return false; }
  void For(int64_t n, PieceFn fn) override {
    for (int64_t i = 0; i < n; ++i) fn(i);
  }
};

template <typename C>
void ExpectOutOfPlaceMatchesInPlace(std::vector<int64_t> dims, size_t d, bool inverse) {
  SCOPED_TRACE(::testing::Message() << "dims " << ::testing::PrintToString(dims) << " along " << d
                                    << (inverse ? " inverse" : "") << " " << sizeof(C) << "-byte elements");
  int64_t total = 1;
  for (int64_t x : dims) total *= x;
  std::vector<C> in(static_cast<size_t>(total));
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (C& v : in) v = C(u(rng), u(rng));
  for (bool pieces : {false, true}) {
    TwoPieces two;
    ExecState st;
    if (pieces) st.parallel = &two;
    std::vector<C> want = in;
    FftAlong(st, want.data(), dims, d, inverse, FftLines::kComplex);
    std::vector<C> got(in.size(), C(7, 7));  // anything: every element is written
    FftAlong(st, got.data(), dims, d, inverse, FftLines::kComplex, in.data());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), in.size() * sizeof(C)), 0) << (pieces ? "in pieces" : "whole");
  }
}

TEST(FftTest, OutOfPlaceGivesTheInPlaceBits) {
  const struct {
    std::vector<int64_t> dims;
    size_t d;
  } cases[] = {
      {{64, 4096}, 1},     // radix 2, whole groups of lanes
      {{21, 360}, 1},      // mixed radices, a partial group
      {{5, 97}, 1},        // Bluestein, one lane
      {{40, 64, 24}, 1},   // lines side by side (stride 24)
      {{2, 1 << 15}, 1},   // few long lines: four steps
      {{9, 1}, 1},         // length 1
      {{128, 33}, 0},      // along the outer dimension
  };
  for (const auto& c : cases)
    for (bool inverse : {false, true}) {
      ExpectOutOfPlaceMatchesInPlace<std::complex<float>>(c.dims, c.d, inverse);
      ExpectOutOfPlaceMatchesInPlace<std::complex<double>>(c.dims, c.d, inverse);
    }
}

// Lines side by side in runs whose length is not a whole number of lane groups (rfft2's second
// pass: runs of 129 spectra): the runs' leftover lines are transformed together in groups of
// lines from different runs (one group, several, one partly filled), against a direct DFT in
// double precision, whole and in pieces.
TEST(FftTest, LeftoverLinesOfRunsAreTransformedTogether) {
  using C = std::complex<float>;
  const std::vector<std::vector<int64_t>> shapes = {{3, 64, 129}, {2, 64, 70}, {5, 32, 100}};
  for (const auto& dims : shapes) {
    SCOPED_TRACE(::testing::PrintToString(dims));
    const int64_t outer = dims[0], n = dims[1], stride = dims[2], total = outer * n * stride;
    std::vector<C> in(static_cast<size_t>(total));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    for (C& v : in) v = C(u(rng), u(rng));
    for (bool pieces : {false, true}) {
      TwoPieces two;
      ExecState st;
      if (pieces) st.parallel = &two;
      std::vector<C> got = in;
      FftAlong(st, got.data(), dims, 1, /*inverse=*/false, FftLines::kComplex);
      double worst = 0;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t c = 0; c < stride; ++c)
          for (int64_t k = 0; k < n; ++k) {
            std::complex<double> want = 0;
            for (int64_t t = 0; t < n; ++t) {
              const double angle = -2 * M_PI * static_cast<double>(k * t % n) / static_cast<double>(n);
              want += std::complex<double>(in[(o * n + t) * stride + c]) * std::polar(1.0, angle);
            }
            const std::complex<double> have(got[(o * n + k) * stride + c]);
            worst = std::max(worst, std::abs(have - want));
          }
      EXPECT_LT(worst, 1e-4) << (pieces ? "in pieces" : "whole");
    }
  }
}

}  // namespace
}  // namespace openpjrt::cpu
