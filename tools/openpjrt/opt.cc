// `openpjrt opt`: the front end on its own. Parses, verifies and prints each module.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "src/ir/bytecode.h"
#include "src/ir/hlo_proto.h"
#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"
#include "tools/openpjrt/verbs.h"

namespace openpjrt::tools {

namespace {

constexpr char kOptUsage[] =
    "usage: openpjrt opt FILE [--split-input-file] [--generic] [--no-verify] [--converted] [-o OUT]\n"
    "                         [--format mlir|hlo|hlo_with_config]\n"
    "\n"
    "Parses FILE (MLIR text, a StableHLO portable artifact in MLIR bytecode, or a serialized\n"
    "HloModuleProto for files named *.pb; '-' reads standard input), verifies it against the StableHLO\n"
    "specification and prints it back. Exits 1 with file:line:col diagnostics on error.\n"
    "\n"
    "  --split-input-file  treat '// -----' lines as separators between independent modules\n"
    "  --generic           print every op in the generic form\n"
    "  --no-verify         skip the verifier\n"
    "  --converted         for bytecode or HloModuleProto input: print the StableHLO text it\n"
    "                      converts to\n"
    "  -o OUT              write the output to OUT instead of standard output\n"
    "  --format F          the input format: mlir, hlo (HloModuleProto) or hlo_with_config\n"
    "                      (HloModuleProtoWithConfig); default hlo for files named *.pb, else mlir\n";

}  // namespace

int OptMain(int argc, char** argv) {
  std::string file, out_path, format;
  bool split = false, generic = false, verify = true, converted = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kOptUsage, stdout);
      return 0;
    } else if (a == "--split-input-file") {
      split = true;
    } else if (a == "--generic") {
      generic = true;
    } else if (a == "--converted") {
      converted = true;
    } else if (a == "--no-verify") {
      verify = false;
    } else if (a == "-o" && i + 1 < argc) {
      out_path = argv[++i];
    } else if (a == "--format" && i + 1 < argc) {
      format = argv[++i];
      if (format != "mlir" && format != "hlo" && format != "hlo_with_config") {
        std::fprintf(stderr, "openpjrt opt: --format takes mlir, hlo or hlo_with_config, got '%s'\n", format.c_str());
        return 2;
      }
    } else if (int rc = TakeInputArg("opt", a, &file, kOptUsage)) {
      return rc;
    }
  }
  std::string text;
  std::vector<ir::SourceChunk> chunks;
  if (format.empty()) format = file.size() > 3 && file.compare(file.size() - 3, 3, ".pb") == 0 ? "hlo" : "mlir";
  const bool hlo = format != "mlir", with_config = format == "hlo_with_config";
  if (hlo) split = false;
  if (int rc = LoadInput("opt", file, split, kOptUsage, &text, &chunks)) return rc;
  if (converted && (hlo || ir::IsBytecode(text))) {  // the StableHLO text the input becomes
    auto t = with_config ? ir::HloProtoWithConfigToText(text)
             : hlo       ? ir::HloProtoToText(text)
                         : ir::BytecodeToText(text, file);
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", std::string(t.status().message()).c_str());
      return 1;
    }
    std::fwrite(t->data(), 1, t->size(), stdout);
    return 0;
  }
  std::string output;
  bool failed = false;
  ir::PrintOptions popts;
  popts.generic = generic;
  for (size_t i = 0; i < chunks.size(); ++i) {
    ir::ParseOptions opts;
    opts.source_name = file == "-" ? "<stdin>" : file;
    opts.first_line = chunks[i].first_line;
    auto m = hlo                               ? ir::ParseHloProto(chunks[i].text, opts.source_name, {}, with_config)
             : ir::IsBytecode(chunks[i].text) ? ir::ParseBytecode(chunks[i].text, opts.source_name)
                                              : ir::ParseModule(chunks[i].text, opts);
    absl::Status st = m.ok() ? (verify ? ir::VerifyModule(**m) : absl::OkStatus()) : m.status();
    if (i > 0) output += "// -----\n";
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
      failed = true;
      continue;
    }
    output += ir::PrintModule(**m, popts);
  }
  if (out_path.empty()) {
    std::fwrite(output.data(), 1, output.size(), stdout);
  } else {
    std::ofstream o(out_path, std::ios::binary);
    o << output;
    if (!o) {
      std::fprintf(stderr, "openpjrt opt: cannot write '%s'\n", out_path.c_str());
      return 1;
    }
  }
  return failed ? 1 : 0;
}

}  // namespace openpjrt::tools
