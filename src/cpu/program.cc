// The executor loop: run each step, stop at the first error, release dead slots.
#include "src/cpu/program.h"

#include "src/support/str.h"

namespace openpjrt::cpu {

void ExecState::Fail(const Step& step, absl::Status s) {
  if (!status.ok()) return;
  status = absl::Status(s.code(), StrCat("'", step.name, "' at line ", step.loc.line, ":",
                                          step.loc.col, ": ", s.message()));
}

void RunProgram(const Program& program, ExecState& state) {
  for (const Step& step : program.steps) {
    step.fn(step, state);
    if (!state.ok()) return;
    for (int s : step.release) state.slots[s] = RtValue();
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

absl::StatusOr<std::vector<RtValue>> Executable::Run(std::vector<RtValue> args,
                                                     std::vector<CheckFailure>* checks,
                                                     int64_t* checks_run) const {
  if (args.size() != program->args.size())
    return absl::InvalidArgumentError(
        StrCat("@", name, " takes ", program->args.size(), " arguments, got ", args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind == RtValue::Kind::kArray && !(args[i].array.type() == arg_types[i]))
      return absl::InvalidArgumentError(StrCat("argument #", i, " of @", name, " must be ",
                                               arg_types[i].ToString(), ", got ",
                                               args[i].array.type().ToString()));
  }
  ExecState state;
  state.slots.resize(num_slots);
  state.check_failures = checks;
  for (size_t i = 0; i < args.size(); ++i) state.slots[program->args[i]] = std::move(args[i]);
  try {
    RunProgram(*program, state);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(StrCat("out of memory while running @", name));
  }
  if (checks_run) *checks_run = state.checks_run;
  if (!state.ok()) return state.status;
  std::vector<RtValue> out;
  for (int s : program->results) out.push_back(state.slots[s]);
  return out;
}

}  // namespace openpjrt::cpu
