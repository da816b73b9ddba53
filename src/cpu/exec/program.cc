// The executor loop: run each step, stop at the first error, release dead slots.
#include "src/cpu/exec/program.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <optional>
#include <thread>

#include "src/cpu/comm/collectives.h"
#include "src/cpu/exec/float_env.h"
#include "src/support/str.h"

namespace openpjrt::cpu {

void ExecState::Fail(const Step& step, absl::Status s) {
  if (!status.ok()) return;
  status = absl::Status(s.code(), StrCat("'", step.name, "' at line ", step.loc.line, ":",
                                          step.loc.col, ": ", s.message()));
}

Array& ExecState::NewOutput(RtValue& v, const ArrayType& type) {
  v.kind = RtValue::Kind::kArray;
  if (!v.tuple.empty()) v.tuple.clear();
  if (blocks) blocks->AllocateInto(type, &v.array);
  else v.array = Array::Allocate(type);
  return v.array;
}

void RunProgram(const Program& program, ExecState& state, StepProfile* profile, size_t skip) {
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step& step = program.steps[i];
    if (i == skip) continue;
    if (state.step_budget >= 0 && state.step_budget-- == 0) {
      state.Fail(step, absl::ResourceExhaustedError("the step budget of this execution is spent"));
      return;
    }
    if (profile) {
      const auto t0 = std::chrono::steady_clock::now();
      step.fn(step, state);
      profile->Add(i, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    } else {
      step.fn(step, state);
    }
    if (!state.ok()) return;
    for (int s : step.release) state.Release(s);
  }
}

bool StepProfile::Enabled() {
  static const bool on = [] {
    const char* v = std::getenv("OPENPJRT_PROFILE");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

StepProfile::StepProfile(const Program& program, std::string name)
    : name_(std::move(name)),
      ns_(new std::atomic<int64_t>[program.steps.size()]),
      calls_(new std::atomic<int64_t>[program.steps.size()]) {
  for (size_t i = 0; i < program.steps.size(); ++i) {
    steps_.push_back(StrCat(program.steps[i].name, " (line ", program.steps[i].loc.line, ")"));
    ns_[i] = 0;
    calls_[i] = 0;
  }
}

StepProfile::~StepProfile() {
  int64_t total = 0;
  std::vector<size_t> order;
  for (size_t i = 0; i < steps_.size(); ++i) {
    total += ns_[i].load();
    if (calls_[i].load() > 0) order.push_back(i);
  }
  if (order.empty()) return;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ns_[a].load() > ns_[b].load(); });
  std::fprintf(stderr, "openpjrt profile of @%s: %.3f ms in %lld runs of %zu steps (OPENPJRT_PROFILE)\n", name_.c_str(),
               static_cast<double>(total) / 1e6, static_cast<long long>(calls_[order[0]].load()), steps_.size());
  std::fprintf(stderr, "  %6s %10s %12s  %s\n", "share", "per run", "step", "op");
  for (size_t i : order) {
    const double ms = static_cast<double>(ns_[i].load()) / 1e6;
    const int64_t calls = calls_[i].load();
    std::fprintf(stderr, "  %5.1f%% %8.1f us %12zu  %s\n", total ? 100.0 * static_cast<double>(ns_[i].load()) / total : 0.0,
                 1e3 * ms / static_cast<double>(calls), i, steps_[i].c_str());
  }
}

bool CallRegion(const Program& region, ExecState& state, std::vector<RtValue>& args,
                std::vector<RtValue>* results) {
  for (size_t i = 0; i < args.size(); ++i) state.slots[region.args[i]] = std::move(args[i]);
  RunProgram(region, state);
  if (!state.ok()) return false;
  results->clear();
  for (int r : region.results) results->push_back(state.slots[r]);
  return true;
}

absl::Status Executable::RunWith(ExecState& state, std::span<RtValue> args,
                                 std::vector<RtValue>* out) const {
  if (args.size() != program->args.size())
    return absl::InvalidArgumentError(
        StrCat("@", name, " takes ", program->args.size(), " arguments, got ", args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind == RtValue::Kind::kArray && !(args[i].array.type() == arg_types[i]))
      return absl::InvalidArgumentError(StrCat("argument #", i, " of @", name, " must be ",
                                               arg_types[i].ToString(), ", got ",
                                               args[i].array.type().ToString()));
  }
  state.slots.resize(num_slots);
  for (size_t i = 0; i < args.size(); ++i) state.slots[program->args[i]] = std::move(args[i]);
  const ScopedFlushDenormals float_env(state.parallel && state.parallel->flush_denormals());
  try {
    RunProgram(*program, state, profile.get());
  } catch (const std::bad_alloc&) {
    state.status = absl::ResourceExhaustedError(StrCat("out of memory while running @", name));
  }
  if (state.ok()) {
    // Each result slot is moved out at its last use in the list (a slot returned twice is
    // copied for the earlier places).
    const std::vector<int>& results = program->results;
    for (size_t i = 0; i < results.size(); ++i) {
      const bool again = std::find(results.begin() + i + 1, results.end(), results[i]) != results.end();
      if (again) out->push_back(state.slots[results[i]]);
      else out->push_back(std::move(state.slots[results[i]]));
    }
  }
  for (size_t i = 0; i < state.slots.size(); ++i) state.Forget(static_cast<int>(i));
  return state.status;
}

absl::StatusOr<std::vector<RtValue>> Executable::RunOn(ExecState& state,
                                                       std::vector<RtValue> args) const {
  std::vector<RtValue> out;
  out.reserve(program->results.size());
  if (absl::Status s = RunWith(state, args, &out); !s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<RtValue>> Executable::Run(std::vector<RtValue> args,
                                                     std::vector<CheckFailure>* checks,
                                                     int64_t* checks_run, int64_t step_budget,
                                                     HostTransfers* host, Parallel* parallel,
                                                     const FfiUserData* ffi_user_data) const {
  ExecState state;
  state.host = host;
  state.parallel = parallel;
  state.ffi_user_data = ffi_user_data;
  state.step_budget = step_budget;
  state.check_failures = checks;
  auto out = RunOn(state, std::move(args));
  if (checks_run) *checks_run = state.checks_run;
  return out;
}

namespace {

// One of n devices that run at once in this process: its share of the intra-op threads (at
// least its own). Two devices on two cores had each cut their products for two threads and
// contended for the same pool: the data-parallel MLP step's devices drifted apart by ~0.75 ms,
// which the first collective then waited out.
class DeviceShare : public Parallel {
 public:
  DeviceShare(Parallel* base, int devices)
      : base_(base), threads_(std::max(1, base->threads() / std::max(1, devices))) {}
  int threads() const override { return threads_; }
  bool deterministic() const override { return base_->deterministic(); }
  bool flush_denormals() const override { return base_->flush_denormals(); }
  void For(int64_t n, PieceFn fn) override {
    if (threads_ > 1) {
      base_->For(n, fn);
    } else {
      for (int64_t i = 0; i < n; ++i) fn(i);
    }
  }

 private:
  Parallel* base_;
  int threads_;
};

}  // namespace

absl::StatusOr<std::vector<std::vector<RtValue>>> Executable::RunReplicated(
    int num_replicas, int num_partitions, std::vector<std::vector<RtValue>> args,
    std::vector<CheckFailure>* checks, int64_t* checks_run,
    const std::vector<HostTransfers*>* hosts, Parallel* parallel,
    const FfiUserData* ffi_user_data, const RemoteDevices* remote) const {
  const int total = num_replicas * num_partitions;
  // The devices run here, in device order.
  std::vector<int> here;
  for (int d = 0; d < total; ++d)
    if (!remote || (d < static_cast<int>(remote->process_of.size()) && remote->process_of[d] == remote->self))
      here.push_back(d);
  if (remote && static_cast<int>(remote->process_of.size()) != total)
    return absl::InvalidArgumentError(StrCat("the execution places ", remote->process_of.size(),
                                             " devices; it has ", total));
  const int n = static_cast<int>(here.size());
  if (total <= 0 || static_cast<int>(args.size()) != n)
    return absl::InvalidArgumentError(StrCat("expected argument lists for ", n, " devices, got ",
                                             args.size()));
  CollectiveHub hub(num_replicas, num_partitions, remote);
  std::optional<DeviceShare> share;
  if (parallel && n > 1) share.emplace(parallel, n);
  std::vector<ExecState> states(n);
  std::vector<std::vector<CheckFailure>> device_checks(n);
  std::vector<absl::StatusOr<std::vector<RtValue>>> results(n, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    const int d = here[i];
    states[i].replica_id = static_cast<uint32_t>(d / num_partitions);
    states[i].partition_id = static_cast<uint32_t>(d % num_partitions);
    states[i].hub = &hub;
    states[i].parallel = share ? &*share : parallel;
    states[i].ffi_user_data = ffi_user_data;
    if (hosts && static_cast<int>(hosts->size()) == n) states[i].host = (*hosts)[i];
    states[i].check_failures = &device_checks[i];
  }
  auto run_device = [&](int i) {
    results[i] = RunOn(states[i], std::move(args[i]));
    if (results[i].ok()) {
      hub.Leave();
    } else {
      hub.Abort(absl::Status(results[i].status().code(),
                             StrCat("device ", here[i], ": ", results[i].status().message())));
    }
  };
  // One device here (its peers in other processes): no thread to start.
  if (n == 1) {
    run_device(0);
  } else {
    for (int i = 0; i < n; ++i) threads.emplace_back(run_device, i);
    for (auto& t : threads) t.join();
  }
  int64_t run = 0;
  for (int i = 0; i < n; ++i) {
    run += states[i].checks_run;
    if (!checks) continue;
    for (CheckFailure& f : device_checks[i]) {
      if (total > 1) f.message = StrCat("device ", here[i], ": ", f.message);
      checks->push_back(std::move(f));
    }
  }
  if (checks_run) *checks_run = run;
  // Report the root cause, not the instances aborted because of it.
  for (int i = 0; i < n; ++i)
    if (!results[i].ok() && results[i].status().code() != absl::StatusCode::kAborted)
      return absl::Status(results[i].status().code(),
                          StrCat("device ", here[i], ": ", results[i].status().message()));
  std::vector<std::vector<RtValue>> out;
  for (int i = 0; i < n; ++i) {
    if (!results[i].ok()) return results[i].status();
    out.push_back(*std::move(results[i]));
  }
  return out;
}

}  // namespace openpjrt::cpu
