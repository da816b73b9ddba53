// Feeds arbitrary bytes to the text front end. Any crash, hang, sanitizer report or a module
// that does not print back to itself is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace openpjrt::ir;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = ParseModule(text, {.source_name = "fuzz"});
  if (!m.ok()) return 0;
  bool verified = VerifyModule(**m).ok();
  std::string printed = PrintModule(**m);
  std::string generic = PrintModule(**m, {.generic = true});
  // What we print must parse again and print the same (a fixed point).
  for (const std::string* s : {&printed, &generic}) {
    auto again = ParseModule(*s, {.source_name = "fuzz-reprint"});
    if (!again.ok()) {
      std::fprintf(stderr, "printed module does not parse: %s\n--- printed:\n%s\n",
                   std::string(again.status().message()).c_str(), s->c_str());
      std::abort();
    }
    if (verified && !VerifyModule(**again).ok()) {
      std::fprintf(stderr, "printed module no longer verifies\n--- printed:\n%s\n", s->c_str());
      std::abort();
    }
    std::string reprinted = PrintModule(**again);
    if (reprinted != printed) {
      std::fprintf(stderr, "print is not a fixed point\n--- first:\n%s\n--- second:\n%s\n",
                   printed.c_str(), reprinted.c_str());
      std::abort();
    }
  }
  return 0;
}
