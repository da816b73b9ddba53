// The openpjrt command-line tool: one binary, one verb per job.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "tools/openpjrt/verbs.h"

namespace {

void PrintUsage(FILE* f) {
  std::fputs(
      "usage: openpjrt <command> [options]\n"
      "\n"
      "commands:\n"
      "  opt FILE     parse, verify and print a StableHLO program (MLIR text or bytecode)\n"
      "  run FILE     compile and run a StableHLO program on the CPU, evaluating its checks\n"
      "  bench FILE   time compile and execution of @main through a PJRT plugin\n"
      "  info         describe a PJRT plugin: version, attributes, devices, memories\n"
      "\n"
      "Run 'openpjrt <command> --help' for the options of a command.\n",
      f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string_view verb = argv[1];
  if (verb == "--help" || verb == "-h" || verb == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (verb == "opt") return openpjrt::tools::OptMain(argc - 1, argv + 1);
  if (verb == "run") return openpjrt::tools::RunMain(argc - 1, argv + 1);
  if (verb == "bench") return openpjrt::tools::BenchMain(argc - 1, argv + 1);
  if (verb == "info") return openpjrt::tools::InfoMain(argc - 1, argv + 1);
  std::fprintf(stderr, "openpjrt: unknown command '%s'\n\n", argv[1]);
  PrintUsage(stderr);
  return 2;
}
