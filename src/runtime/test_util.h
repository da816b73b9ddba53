// Helpers shared by the runtime's unit tests.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/compiler/compile.h"
#include "src/ir/parser.h"
#include "src/ir/verifier.h"
#include "src/runtime/buffer.h"
#include "src/runtime/thread_pool.h"

namespace openpjrt::runtime::test_util {

// Parses, verifies and compiles one module of MLIR text.
inline absl::StatusOr<std::shared_ptr<cpu::Executable>> CompileText(const std::string& text) {
  auto m = ir::ParseModule(text);
  if (!m.ok()) return m.status();
  if (absl::Status s = ir::VerifyModule(**m); !s.ok()) return s;
  return compiler::Compile(**m);
}

// `text` with every `from` replaced by `to` (tests' program templates).
inline std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Runs `exe` on `args` with `threads` intra-op threads (1: on the calling thread alone).
inline absl::StatusOr<std::vector<cpu::RtValue>> RunWithThreads(const cpu::Executable& exe,
                                                                 const std::vector<cpu::Array>& args, int threads) {
  ThreadPool pool(threads);
  PoolParallel parallel(&pool, /*deterministic=*/false);
  std::vector<cpu::RtValue> in;
  for (const cpu::Array& a : args) in.push_back(cpu::RtValue::Of(a));
  return exe.Run(std::move(in), nullptr, nullptr, -1, nullptr, threads > 1 ? &parallel : nullptr);
}

// While alive, programs compile without row groups (OPENPJRT_ROW_GROUPS=0): for tests of the
// steps that groups would take in.
class RowGroupsOff {
 public:
  RowGroupsOff() { setenv("OPENPJRT_ROW_GROUPS", "0", 1); }
  ~RowGroupsOff() { unsetenv("OPENPJRT_ROW_GROUPS"); }
  RowGroupsOff(const RowGroupsOff&) = delete;
  RowGroupsOff& operator=(const RowGroupsOff&) = delete;
};

// The names of a compiled program's top-level steps, in order.
inline std::vector<std::string> StepNames(const cpu::Executable& exe) {
  std::vector<std::string> names;
  for (const cpu::Step& st : exe.program->steps) names.push_back(st.name);
  return names;
}

// How many steps named `name` `p` and its nested programs hold.
inline int CountSteps(const cpu::Program& p, const std::string& name) {
  int n = 0;
  for (const cpu::Step& s : p.steps) {
    n += s.name == name;
    for (const auto& r : s.regions) n += CountSteps(*r, name);
  }
  return n;
}

// A ready f32 buffer on `d` holding `v`.
inline BufferRef Floats(Device* d, const std::vector<float>& v) {
  cpu::ArrayType t{ir::ElemKind::kF32, {static_cast<int64_t>(v.size())}};
  cpu::Array a = cpu::Array::Allocate(t);
  std::memcpy(a.mutable_data(), v.data(), v.size() * 4);
  return Buffer::CreateReady(d->default_memory(), BufferShape{t}, a);
}

}  // namespace openpjrt::runtime::test_util
