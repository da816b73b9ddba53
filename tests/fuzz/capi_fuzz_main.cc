// A deterministic run of capi_fuzzer.cc without libFuzzer: N pseudo-random inputs from a fixed
// seed (the same every run), or the files named on the command line (to replay a finding).
//   capi_fuzz [N]  |  capi_fuzz FILE...
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" long opj_capi_fuzz_ok[8];

int main(int argc, char** argv) {
  if (argc > 1 && std::atoll(argv[1]) == 0) {
    for (int i = 1; i < argc; ++i) {
      std::ifstream f(argv[i], std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    }
    return 0;
  }
  const long n = argc > 1 ? std::atol(argv[1]) : 2000;
  std::mt19937 rng(1);
  std::vector<uint8_t> input;
  for (long i = 0; i < n; ++i) {
    input.resize(16 + rng() % 512);
    for (uint8_t& b : input) b = static_cast<uint8_t>(rng());
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("%ld inputs, no finding; succeeded: %ld clients, %ld uploads, %ld compiles, %ld executions, "
              "%ld downloads\n", n, opj_capi_fuzz_ok[6], opj_capi_fuzz_ok[0], opj_capi_fuzz_ok[5],
              opj_capi_fuzz_ok[1], opj_capi_fuzz_ok[2]);
  return 0;
}
