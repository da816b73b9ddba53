// Feeds arbitrary bytes to the bytecode front end (container decoding, VHLO conversion, then the
// text parser and verifier). Seeded with the StableHLO portable artifacts of every version. Any
// crash, hang or sanitizer report is a finding, and so is an accepted artifact whose module does
// not print back to a module that parses.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "src/ir/bytecode.h"
#include "src/ir/parser.h"
#include "src/ir/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace openpjrt::ir;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto m = ParseBytecode(bytes, "fuzz");
  if (!m.ok()) return 0;
  std::string printed = PrintModule(**m);
  auto again = ParseModule(printed, {.source_name = "fuzz-reprint"});
  if (!again.ok()) {
    std::fprintf(stderr, "printed module does not parse: %s\n--- printed:\n%s\n",
                 std::string(again.status().message()).c_str(), printed.c_str());
    std::abort();
  }
  return 0;
}
