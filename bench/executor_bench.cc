// The executor against baselines measured in the same run: an f32 add over 16 Mi elements
// against memcpy of the same bytes, and a 1024x1024 f32 matmul against calling Eigen directly.
// Single-threaded; run with `build/bin/executor_bench`.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "src/compiler/compile.h"
#include "bench/timing.h"
#include "src/ir/parser.h"

namespace {

using openpjrt::bench::BestSeconds;

std::shared_ptr<openpjrt::cpu::Executable> CompileText(const std::string& text) {
  auto m = openpjrt::ir::ParseModule(text);
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", std::string(m.status().message()).c_str());
    std::exit(1);
  }
  static std::vector<std::unique_ptr<openpjrt::ir::Module>> keep;
  keep.push_back(std::move(*m));
  auto exe = openpjrt::compiler::Compile(*keep.back());
  if (!exe.ok()) {
    std::fprintf(stderr, "%s\n", std::string(exe.status().message()).c_str());
    std::exit(1);
  }
  return *exe;
}

openpjrt::cpu::RtValue Filled(std::vector<int64_t> dims, float v) {
  openpjrt::cpu::Array a = openpjrt::cpu::Array::Allocate({openpjrt::ir::ElemKind::kF32, dims});
  std::fill_n(a.mutable_as<float>(), a.NumElements(), v);
  return openpjrt::cpu::RtValue::Of(a);
}

}  // namespace

int main() {
  const int64_t n = 16 << 20;
  auto add = CompileText(
      "func.func @main(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>) -> tensor<16777216xf32> {\n"
      "  %0 = stablehlo.add %a, %b : tensor<16777216xf32>\n  return %0 : tensor<16777216xf32>\n}\n");
  auto a = Filled({n}, 1.0f), b = Filled({n}, 2.0f);
  double t_add = BestSeconds(5, [&] { (void)add->Run({a, b}); });
  std::vector<float> src(n, 1.0f), dst(n);
  double t_copy = BestSeconds(5, [&] { std::memcpy(dst.data(), src.data(), n * 4); });

  const int64_t m = 1024;
  auto mm = CompileText(
      "func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {\n"
      "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, "
      "tensor<1024x1024xf32>) -> tensor<1024x1024xf32>\n  return %0 : tensor<1024x1024xf32>\n}\n");
  auto x = Filled({m, m}, 0.5f), y = Filled({m, m}, 0.25f);
  double t_mm = BestSeconds(3, [&] { (void)mm->Run({x, y}); });
  Eigen::MatrixXf ex = Eigen::MatrixXf::Constant(m, m, 0.5f), ey = Eigen::MatrixXf::Constant(m, m, 0.25f);
  Eigen::MatrixXf ez(m, m);
  double t_eigen = BestSeconds(3, [&] { ez.noalias() = ex * ey; });

  const double flops = 2.0 * m * m * m;
  std::printf("%-40s %12s %12s %10s\n", "benchmark", "openpjrt", "baseline", "ratio");
  std::printf("%-40s %9.2f ms %9.2f ms %9.2fx   (baseline: memcpy of 64 MiB)\n",
              "f32 add, 16 Mi elements", t_add * 1e3, t_copy * 1e3, t_add / t_copy);
  std::printf("%-40s %9.2f ms %9.2f ms %9.2fx   (baseline: Eigen, %.1f vs %.1f GFLOP/s)\n",
              "f32 matmul 1024x1024x1024", t_mm * 1e3, t_eigen * 1e3, t_mm / t_eigen,
              flops / t_mm / 1e9, flops / t_eigen / 1e9);
  return 0;
}
