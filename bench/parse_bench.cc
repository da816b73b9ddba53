// Front-end speed: parses (1) a module holding a 10 MB hex-blob constant and (2) a module with
// 50,000 ops, and prints MB/s and ops/s next to baselines measured in the same run: decoding the
// same hex bytes with a plain table loop, and copying the text with memcpy. Then (3) reads the
// StableHLO portable artifacts of ../shared/testdata/stablehlo-vhlo (bytecode of every version)
// next to the text modules they were serialized from, and prints both rates.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/timing.h"
#include "src/ir/bytecode.h"
#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"

namespace {

using openpjrt::bench::BestSeconds;

std::string BlobModule(size_t bytes) {
  std::string s = "func.func @main() -> tensor<" + std::to_string(bytes / 4) +
                  "xf32> {\n  %0 = stablehlo.constant dense<\"0x";
  static const char kHex[] = "0123456789ABCDEF";
  uint32_t x = 12345;
  for (size_t i = 0; i < bytes; ++i) {
    x = x * 1103515245u + 12345u;
    s.push_back(kHex[(x >> 16) & 15]);
    s.push_back(kHex[(x >> 20) & 15]);
  }
  s += "\"> : tensor<" + std::to_string(bytes / 4) + "xf32>\n  return %0 : tensor<" +
       std::to_string(bytes / 4) + "xf32>\n}\n";
  return s;
}

// A chain of elementwise ops, mixing pretty and generic forms, like a large JAX export.
std::string OpsModule(int n) {
  std::string s = "func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<8x16xf32>) -> tensor<8x16xf32> {\n";
  s += "  %v0 = stablehlo.add %arg0, %arg1 : tensor<8x16xf32>\n";
  const char* ops[] = {"add", "multiply", "subtract", "maximum"};
  for (int i = 1; i < n - 1; ++i) {
    std::string prev = "%v" + std::to_string(i - 1);
    if (i % 5 == 0) {
      s += "  %v" + std::to_string(i) + " = \"stablehlo.tanh\"(" + prev +
           ") : (tensor<8x16xf32>) -> tensor<8x16xf32>\n";
    } else {
      s += "  %v" + std::to_string(i) + " = stablehlo." + ops[i % 4] + " " + prev +
           ", %arg1 : tensor<8x16xf32>\n";
    }
  }
  s += "  return %v" + std::to_string(n - 2) + " : tensor<8x16xf32>\n}\n";
  return s;
}

}  // namespace

int main() {
  using namespace openpjrt::ir;
  const size_t kBlobBytes = 10 << 20;
  const int kOps = 50000;
  std::string blob = BlobModule(kBlobBytes);
  std::string ops = OpsModule(kOps);

  // Baselines on the same bytes.
  std::vector<char> dst(blob.size());
  double t_memcpy = BestSeconds(5, [&] { std::memcpy(dst.data(), blob.data(), blob.size()); });
  std::vector<uint8_t> raw(kBlobBytes);
  double t_hex = BestSeconds(5, [&] {
    static int8_t table[256];
    static bool init = [] {
      std::fill(std::begin(table), std::end(table), -1);
      for (int i = 0; i < 10; ++i) table['0' + i] = static_cast<int8_t>(i);
      for (int i = 0; i < 6; ++i) table['A' + i] = table['a' + i] = static_cast<int8_t>(10 + i);
      return true;
    }();
    (void)init;
    const char* p = blob.data() + blob.find("0x") + 2;
    for (size_t i = 0; i < kBlobBytes; ++i)
      raw[i] = static_cast<uint8_t>((table[static_cast<uint8_t>(p[2 * i])] << 4) |
                                    table[static_cast<uint8_t>(p[2 * i + 1])]);
  });

  bool ok = true;
  double t_blob = BestSeconds(5, [&] {
    auto m = ParseModule(blob, {.source_name = "blob"});
    ok &= m.ok();
  });
  double t_ops = BestSeconds(5, [&] {
    auto m = ParseModule(ops, {.source_name = "ops"});
    ok &= m.ok();
  });
  auto m = ParseModule(ops, {.source_name = "ops"});
  if (!ok || !m.ok()) {
    std::fprintf(stderr, "parse failed\n");
    return 1;
  }
  double t_verify = BestSeconds(5, [&] { ok &= VerifyModule(**m).ok(); });
  double t_print = BestSeconds(3, [&] { ok &= !PrintModule(**m).empty(); });

  double mb = blob.size() / 1e6;
  std::printf("%-44s %12s %12s\n", "measurement", "rate", "vs baseline");
  std::printf("%-44s %9.0f MB/s %10.2fx\n", "parse 10 MB hex-blob constant (text MB/s)",
              mb / t_blob, t_hex / t_blob);
  std::printf("%-44s %9.0f MB/s %12s\n", "  baseline: hex decode table loop", mb / t_hex, "1.00x");
  std::printf("%-44s %9.0f MB/s %12s\n", "  baseline: memcpy of the text", mb / t_memcpy, "");
  std::printf("%-44s %9.0f op/s %10.1f MB/s\n", "parse 50,000-op module", kOps / t_ops,
              ops.size() / 1e6 / t_ops);
  std::printf("%-44s %9.0f op/s\n", "verify 50,000-op module", kOps / t_verify);
  std::printf("%-44s %9.0f op/s\n", "print 50,000-op module", kOps / t_print);

  // Portable artifacts against the text they came from (same modules, same machine, same run).
  std::vector<std::string> bcs, texts;
  const char* dir = std::getenv("OPJ_VHLO_TESTDATA") ? std::getenv("OPJ_VHLO_TESTDATA") : OPJ_VHLO_DIR;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string path = e.path().string();
    if (path.size() < 8 || path.substr(path.size() - 8) != ".mlir.bc" ||
        path.find("stablehlo_legalize_to_vhlo") == std::string::npos)
      continue;
    auto slurp = [](const std::string& p) {
      std::ifstream f(p, std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      return ss.str();
    };
    bcs.push_back(slurp(path));
    texts.push_back(slurp(path.substr(0, path.size() - 3)));
  }
  double bc_bytes = 0, text_bytes = 0;
  for (const auto& b : bcs) bc_bytes += b.size();
  for (const auto& t : texts) text_bytes += t.size();
  if (!bcs.empty()) {
    double t_decode = BestSeconds(3, [&] {
      for (const auto& b : bcs) ok &= bc::Decode(b).ok();
    });
    double t_bc = BestSeconds(3, [&] {
      for (const auto& b : bcs) ok &= ParseBytecode(b).ok();
    });
    double t_text = BestSeconds(3, [&] {
      for (const auto& t : texts) ok &= ParseModule(t).ok();
    });
    std::printf("%-44s %9.1f MB/s %10.2fx\n", "read portable artifacts (bytecode MB/s)", bc_bytes / 1e6 / t_bc,
                t_text / t_bc);
    std::printf("%-44s %9.1f MB/s\n", "  of which container decoding", bc_bytes / 1e6 / t_decode);
    std::printf("%-44s %9.1f MB/s %12s\n", "  baseline: parse the same modules as text", text_bytes / 1e6 / t_text,
                "1.00x");
    std::printf("%-44s %9.0f modules/s (%zu files, %.0f KB bytecode, %.0f KB text)\n", "  artifacts",
                bcs.size() / t_bc, bcs.size(), bc_bytes / 1e3, text_bytes / 1e3);
  }
  std::printf("blob_MBps=%.0f ops_per_s=%.0f\n", mb / t_blob, kOps / t_ops);
  return ok ? 0 : 1;
}
