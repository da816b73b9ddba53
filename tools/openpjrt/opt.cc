// `openpjrt opt`: the front end on its own. Parses, verifies and prints each module.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"
#include "tools/openpjrt/verbs.h"

namespace openpjrt::tools {

bool ReadFile(const std::string& path, std::string* out, std::string* error) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    *out = ss.str();
    return true;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

namespace {

constexpr char kOptUsage[] =
    "usage: openpjrt opt FILE [--split-input-file] [--generic] [--no-verify] [-o OUT]\n"
    "\n"
    "Parses FILE (MLIR text; '-' reads standard input), verifies it against the StableHLO\n"
    "specification and prints it back. Exits 1 with file:line:col diagnostics on error.\n"
    "\n"
    "  --split-input-file  treat '// -----' lines as separators between independent modules\n"
    "  --generic           print every op in the generic form\n"
    "  --no-verify         skip the verifier\n"
    "  -o OUT              write the output to OUT instead of standard output\n";

}  // namespace

int OptMain(int argc, char** argv) {
  std::string file, out_path;
  bool split = false, generic = false, verify = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kOptUsage, stdout);
      return 0;
    } else if (a == "--split-input-file") {
      split = true;
    } else if (a == "--generic") {
      generic = true;
    } else if (a == "--no-verify") {
      verify = false;
    } else if (a == "-o" && i + 1 < argc) {
      out_path = argv[++i];
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      std::fprintf(stderr, "openpjrt opt: unknown option '%s'\n%s", a.c_str(), kOptUsage);
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      std::fprintf(stderr, "openpjrt opt: more than one input file\n%s", kOptUsage);
      return 2;
    }
  }
  if (file.empty()) {
    std::fprintf(stderr, "openpjrt opt: no input file\n%s", kOptUsage);
    return 2;
  }
  std::string text, error;
  if (!ReadFile(file, &text, &error)) {
    std::fprintf(stderr, "openpjrt opt: %s\n", error.c_str());
    return 1;
  }
  std::vector<ir::SourceChunk> chunks;
  if (split) {
    chunks = ir::SplitInputFile(text);
  } else {
    chunks.push_back({text, 1});
  }
  std::string output;
  bool failed = false;
  ir::PrintOptions popts;
  popts.generic = generic;
  for (size_t i = 0; i < chunks.size(); ++i) {
    ir::ParseOptions opts;
    opts.source_name = file == "-" ? "<stdin>" : file;
    opts.first_line = chunks[i].first_line;
    auto m = ir::ParseModule(chunks[i].text, opts);
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
