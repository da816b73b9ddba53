// `openpjrt run`: compiles each module and executes its entry function with no arguments,
// evaluating the check.* ops. One line per module, then `N passed, N failed`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "src/compiler/compile.h"
#include "src/ir/bytecode.h"
#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"
#include "src/support/str.h"
#include "tools/openpjrt/verbs.h"

namespace openpjrt::tools {
namespace {

constexpr char kRunUsage[] =
    "usage: openpjrt run FILE [--split-input-file] [--print] [--entry NAME]\n"
    "                         [--replicas N] [--partitions M]\n"
    "\n"
    "Compiles FILE (MLIR text; '-' reads standard input) for the CPU and runs its entry\n"
    "function (@main, else the only function) with no arguments, evaluating check.* ops and\n"
    "@check.* custom calls. Prints one line per module and closes with 'N passed, N failed';\n"
    "exits 0 only if every module passed.\n"
    "\n"
    "  --split-input-file  treat '// -----' lines as separators between independent modules\n"
    "  --print             print the entry function's results\n"
    "  --entry NAME        run @NAME instead\n"
    "  --replicas N        run N replicas (default: the module's mhlo.num_replicas, else 1)\n"
    "  --partitions M      run M partitions each (default: mhlo.num_partitions, else 1)\n"
    "\n"
    "With several devices, one instance runs per replica x partition and collectives\n"
    "exchange between them; --print shows every device's results.\n";

// The module attribute `name` (an integer), or `dflt`.
int64_t ModuleInt(const ir::Module& m, const char* name, int64_t dflt) {
  int64_t v;
  return ir::GetInt(m.op->attr(name), &v) ? v : dflt;
}

std::string FormatResult(ir::Context& ctx, const cpu::RtValue& v) {
  if (v.kind == cpu::RtValue::Kind::kToken) return "!stablehlo.token";
  if (v.kind == cpu::RtValue::Kind::kTuple) {
    std::string s = "(";
    for (size_t i = 0; i < v.tuple.size(); ++i) StrAppend(&s, i ? ", " : "", FormatResult(ctx, v.tuple[i]));
    return s + ")";
  }
  const cpu::Array& a = v.array;
  ir::Type t = ctx.Tensor(a.dims(), ctx.Element(a.elem()));
  auto data = std::make_shared<std::vector<uint8_t>>(a.data(), a.data() + a.ByteSize());
  return ir::PrintAttribute(ir::Attribute::Dense(t, data, false));
}

}  // namespace

int RunMain(int argc, char** argv) {
  std::string file, entry;
  bool split = false, print = false;
  int64_t replicas_flag = 0, partitions_flag = 0;
  auto positive = [&](const char* flag, const char* text, int64_t* out) {
    char* end = nullptr;
    long long v = std::strtoll(text, &end, 10);
    if (!end || *end || v < 1 || v > 1024) {
      std::fprintf(stderr, "openpjrt run: %s needs a number from 1 to 1024, got '%s'\n", flag, text);
      return false;
    }
    *out = v;
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kRunUsage, stdout);
      return 0;
    } else if (a == "--split-input-file") {
      split = true;
    } else if (a == "--print") {
      print = true;
    } else if (a == "--entry" && i + 1 < argc) {
      entry = argv[++i];
    } else if (a == "--replicas" && i + 1 < argc) {
      if (!positive("--replicas", argv[++i], &replicas_flag)) return 2;
    } else if (a == "--partitions" && i + 1 < argc) {
      if (!positive("--partitions", argv[++i], &partitions_flag)) return 2;
    } else if (int rc = TakeInputArg("run", a, &file, kRunUsage)) {
      return rc;
    }
  }
  std::string text;
  std::vector<ir::SourceChunk> chunks;
  if (int rc = LoadInput("run", file, split, kRunUsage, &text, &chunks)) return rc;
  const std::string name = file == "-" ? "<stdin>" : file;
  int passed = 0, failed = 0;
  for (const ir::SourceChunk& chunk : chunks) {
    // Skip chunks that hold nothing but comments and whitespace.
    bool empty = true;
    for (size_t p = 0; p < chunk.text.size() && empty;) {
      size_t e = chunk.text.find('\n', p);
      std::string_view line = chunk.text.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p);
      size_t f = line.find_first_not_of(" \t\r");
      if (f != std::string_view::npos && line.substr(f, 2) != "//") empty = false;
      if (e == std::string_view::npos) break;
      p = e + 1;
    }
    if (empty) continue;
    const std::string where = StrCat(name, ":", chunk.first_line);
    auto fail = [&](const std::string& why) {
      ++failed;
      std::printf("FAIL %s: %s\n", where.c_str(), why.c_str());
    };
    ir::ParseOptions opts;
    opts.source_name = name;
    opts.first_line = chunk.first_line;
    auto m = ir::IsBytecode(chunk.text) ? ir::ParseBytecode(chunk.text, opts.source_name)
                                         : ir::ParseModule(chunk.text, opts);
    if (!m.ok()) {
      fail(std::string(m.status().message()));
      continue;
    }
    if (absl::Status st = ir::VerifyModule(**m); !st.ok()) {
      fail(std::string(st.message()));
      continue;
    }
    compiler::CompileOptions copts;
    copts.entry = entry;
    auto exe = compiler::Compile(**m, copts);
    if (!exe.ok()) {
      fail(std::string(exe.status().message()));
      continue;
    }
    if (!(*exe)->arg_types.empty()) {
      fail(StrCat("@", (*exe)->name, " takes ", (*exe)->arg_types.size(),
                  " arguments; 'run' calls it with none"));
      continue;
    }
    const int64_t replicas = replicas_flag ? replicas_flag : ModuleInt(**m, "mhlo.num_replicas", 1);
    const int64_t partitions = partitions_flag ? partitions_flag : ModuleInt(**m, "mhlo.num_partitions", 1);
    if (replicas < 1 || partitions < 1 || replicas * partitions > 1024) {
      fail(StrCat("unusable device count: ", replicas, " replicas x ", partitions, " partitions"));
      continue;
    }
    std::vector<cpu::CheckFailure> checks;
    int64_t checks_run = 0;
    auto t0 = std::chrono::steady_clock::now();
    auto results = (*exe)->RunReplicated(static_cast<int>(replicas), static_cast<int>(partitions),
                                         std::vector<std::vector<cpu::RtValue>>(replicas * partitions),
                                         &checks, &checks_run);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!results.ok()) {
      fail(StrCat("runtime error: ", results.status().message()));
      continue;
    }
    if (!checks.empty()) {
      std::string why;
      for (const auto& c : checks)
        StrAppend(&why, why.empty() ? "" : "; ", name, ":", c.loc.line, ":", c.loc.col, ": ", c.message);
      fail(why);
      continue;
    }
    ++passed;
    std::string devices = replicas * partitions > 1
        ? StrCat(", ", replicas, " replicas x ", partitions, " partitions") : std::string();
    std::printf("PASS %s: @%s%s, %lld checks, %.3f ms\n", where.c_str(), (*exe)->name.c_str(),
                devices.c_str(), static_cast<long long>(checks_run), ms);
    if (print) {
      for (size_t d = 0; d < results->size(); ++d) {
        for (size_t i = 0; i < (*results)[d].size(); ++i) {
          std::string label = results->size() > 1 ? StrCat("device ", d, " result #", i) : StrCat("result #", i);
          std::printf("  %s = %s\n", label.c_str(), FormatResult(*(*m)->ctx, (*results)[d][i]).c_str());
        }
      }
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace openpjrt::tools
