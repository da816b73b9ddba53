// `openpjrt bench`: compiles a program through a PJRT plugin, runs @main on random (or given)
// inputs, and reports compile time and per-execution latency (upload excluded; the outputs are
// awaited, not downloaded). The last line is machine-readable.
#include <algorithm>
#include <chrono>
#include <map>
#include <cstdio>
#include <string>

#include "src/ir/bytecode.h"
#include "src/ir/hlo_proto.h"
#include "src/ir/verifier.h"
#include "src/support/str.h"
#include "tools/openpjrt/plugin_exec.h"
#include "tools/openpjrt/verbs.h"

namespace openpjrt::tools {
namespace {

constexpr char kBenchUsage[] =
    "usage: openpjrt bench FILE [--iters N] [--warmup N] [--threads N] [--plugin PATH]\n"
    "                           [--input NAME=FILE.npy ...] [--format mlir|hlo|hlo_with_config]\n"
    "\n"
    "Compiles FILE (MLIR text, a portable artifact, or an HloModuleProto: --format hlo, the\n"
    "default for *.pb files) through a PJRT plugin (default: the CPU\n"
    "plugin of this build), runs @main on random inputs of its parameter types (or the given\n"
    ".npy files) and prints compile time and execution latency. The last line reads\n"
    "  median_us=X p10_us=Y p90_us=Z compile_ms=W\n"
    "\n"
    "  --iters N     timed executions (default 100)\n"
    "  --warmup N    untimed executions first (default 5)\n"
    "  --threads N   the plugin's intra-op thread count (the intra_op_threads create option)\n";

bool Count(const char* flag, const char* text, int lo, int* out) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!end || *end || v < lo || v > 10000000) {
    std::fprintf(stderr, "openpjrt bench: %s needs a number >= %d, got '%s'\n", flag, lo, text);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

int BenchMain(int argc, char** argv) {
  std::string file, plugin, format;
  std::map<int, std::string> inputs;
  int iters = 100, warmup = 5, threads = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kBenchUsage, stdout);
      return 0;
    } else if (a == "--iters" && i + 1 < argc) {
      if (!Count("--iters", argv[++i], 1, &iters)) return 2;
    } else if (a == "--warmup" && i + 1 < argc) {
      if (!Count("--warmup", argv[++i], 0, &warmup)) return 2;
    } else if (a == "--threads" && i + 1 < argc) {
      if (!Count("--threads", argv[++i], 1, &threads)) return 2;
    } else if (a == "--plugin" && i + 1 < argc) {
      plugin = argv[++i];
    } else if (a == "--format" && i + 1 < argc) {
      format = argv[++i];
    } else if (a == "--input" && i + 1 < argc) {
      if (absl::Status s = ParseInputFlag(argv[++i], &inputs); !s.ok()) {
        std::fprintf(stderr, "openpjrt bench: %s\n", std::string(s.message()).c_str());
        return 2;
      }
    } else if (int rc = TakeInputArg("bench", a, &file, kBenchUsage)) {
      return rc;
    }
  }
  std::string text;
  std::vector<ir::SourceChunk> chunks;
  if (int rc = LoadInput("bench", file, false, kBenchUsage, &text, &chunks)) return rc;
  auto fail = [](const std::string& what, const absl::Status& s) {
    std::fprintf(stderr, "openpjrt bench: %s%s\n", what.c_str(), std::string(s.message()).c_str());
    return 1;
  };
  if (format.empty()) format = file.size() > 3 && file.compare(file.size() - 3, 3, ".pb") == 0 ? "hlo" : "mlir";
  auto m = ir::ParseProgramOfFormat(text, format, file == "-" ? "<stdin>" : file);
  if (!m.ok()) return fail("", m.status());
  if (absl::Status s = ir::VerifyModule(**m); !s.ok()) return fail("", s);
  auto sig = EntrySignature(**m, "");
  if (!sig.ok()) return fail("", sig.status());
  auto host = EntryInputs(*sig, inputs, /*random_rest=*/true);
  if (!host.ok()) return fail("", host.status());
  client::Options options;
  if (threads) options["intra_op_threads"] = int64_t{threads};
  auto c = OpenClient(plugin, 1, options);
  if (!c.ok()) return fail("plugin: ", c.status());

  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  client::CompileOptions co;
  co.format = format;
  auto exe = (*c)->Compile(text, co);
  const double compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!exe.ok()) return fail("compile: ", exe.status());
  if (exe->num_devices() != 1) return fail("", absl::UnimplementedError("bench runs single-device programs"));
  std::vector<client::Buffer> args;
  std::vector<const client::Buffer*> arg_ptrs;
  for (const client::HostArray& a : *host) {
    auto b = (*c)->Upload(a.data.data(), a.type, a.dims);
    if (!b.ok()) return fail("upload: ", b.status());
    args.push_back(std::move(*b));
  }
  for (const client::Buffer& b : args) arg_ptrs.push_back(&b);
  auto run_once = [&]() -> absl::Status {
    auto outs = exe->ExecuteOne(arg_ptrs);
    if (!outs.ok()) return outs.status();
    for (const client::Buffer& b : *outs)
      if (absl::Status s = b.Ready().Await(); !s.ok()) return s;
    return absl::OkStatus();
  };
  for (int i = 0; i < warmup; ++i)
    if (absl::Status s = run_once(); !s.ok()) return fail("execute: ", s);
  std::vector<double> us;
  us.reserve(iters);
  for (int i = 0; i < iters; ++i) {
    auto s0 = Clock::now();
    if (absl::Status s = run_once(); !s.ok()) return fail("execute: ", s);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - s0).count());
  }
  std::sort(us.begin(), us.end());
  auto pct = [&](double p) { return us[std::min(us.size() - 1, static_cast<size_t>(p * (us.size() - 1) + 0.5))]; };
  std::printf("program: %s (@%s, %zu inputs%s)\n", file.c_str(), sig->name.c_str(), host->size(),
              inputs.empty() ? ", random" : "");
  std::printf("plugin: %s\n", (*c)->plugin().path().c_str());
  std::printf("compile: %.3f ms\n", compile_ms);
  std::printf("execute: %d iterations after %d warm-up: min %.1f us, median %.1f us, p90 %.1f us, max %.1f us\n",
              iters, warmup, us.front(), pct(0.5), pct(0.9), us.back());
  std::printf("median_us=%.2f p10_us=%.2f p90_us=%.2f compile_ms=%.3f\n", pct(0.5), pct(0.1), pct(0.9), compile_ms);
  return 0;
}

}  // namespace openpjrt::tools
