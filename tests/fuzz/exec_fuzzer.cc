// Feeds arbitrary bytes through the whole pipeline: parse, verify, compile, execute. Programs
// that verify must compile to a clear error or run to a result or a clear error; a crash, a
// sanitizer report or a hang is a finding. Huge tensors and long loops are cut short.
#include <cstdint>
#include <string_view>

#include "src/compiler/compile.h"
#include "src/ir/parser.h"
#include "src/ir/verifier.h"

namespace {

// True if every tensor in the module is small enough to run quickly.
bool Small(const openpjrt::ir::Operation& op) {
  auto ok = [](openpjrt::ir::Type t) {
    if (!t.IsTensor()) return true;
    int64_t n = t.NumElements();
    return n >= 0 && n <= 4096;
  };
  for (const auto* v : op.operands)
    if (!ok(v->type)) return false;
  for (size_t i = 0; i < op.num_results(); ++i)
    if (!ok(op.result(i)->type)) return false;
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks) {
      for (const auto& a : b->args)
        if (!ok(a->type)) return false;
      for (const auto& inner : b->ops)
        if (!Small(*inner)) return false;
    }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace openpjrt;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = ir::ParseModule(text, {.source_name = "fuzz"});
  if (!m.ok() || !ir::VerifyModule(**m).ok() || !Small(*(*m)->op)) return 0;
  auto exe = compiler::Compile(**m);
  if (!exe.ok() || !(*exe)->arg_types.empty()) return 0;
  std::vector<cpu::CheckFailure> checks;
  (void)(*exe)->Run({}, &checks, nullptr, /*step_budget=*/20000);
  return 0;
}
