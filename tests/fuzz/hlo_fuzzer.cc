// Feeds arbitrary bytes to the "hlo" program format (HloModuleProto decoding and conversion to
// StableHLO text, then the parser and verifier). Seeded with modules from tests/fuzz/hlo_seeds.py.
// Any crash, hang or sanitizer report is a finding, and so is an accepted module that does not
// print back to a module that parses.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "src/ir/hlo_proto.h"
#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace openpjrt::ir;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto m = ParseHloProto(bytes, "fuzz");
  if (!m.ok() || !VerifyModule(**m).ok()) return 0;
  std::string printed = PrintModule(**m);
  auto again = ParseModule(printed, {.source_name = "fuzz-reprint"});
  if (!again.ok()) {
    std::fprintf(stderr, "printed module does not parse: %s\n--- printed:\n%s\n",
                 std::string(again.status().message()).c_str(), printed.c_str());
    std::abort();
  }
  return 0;
}
