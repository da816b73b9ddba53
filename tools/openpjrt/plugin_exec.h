// What the plugin-backed verbs (run --plugin/--input, bench, info) share: the entry signature of
// a module, inputs from .npy files or random data, and printing downloaded results.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/client/client.h"
#include "src/client/npy.h"
#include "src/cpu/exec/program.h"
#include "src/ir/ir.h"

namespace openpjrt::tools {

struct Signature {
  std::string name;
  std::vector<ir::Type> args, results;
};
absl::StatusOr<Signature> EntrySignature(const ir::Module& m, const std::string& entry);

// `--input NAME=FILE.npy` values, by argument index (NAME: 0, arg0 or %arg0).
absl::Status ParseInputFlag(const std::string& value, std::map<int, std::string>* out);
// The host arrays for every argument: the named .npy files (checked against the parameter
// types), random data from a fixed seed for the rest when `random_rest`, else an error.
absl::StatusOr<std::vector<client::HostArray>> EntryInputs(const Signature& sig,
                                                           const std::map<int, std::string>& files,
                                                           bool random_rest);

// INVALID_ARGUMENT naming `what` unless `a` fits argument #i of `sig`: its element type, its rank
// and every static size (a dynamic size takes the array's).
absl::Status CheckFits(const Signature& sig, size_t i, const client::HostArray& a, const std::string& what);

// `run --args VALUE` (args.cc): a list of dense literals (`[dense<1> : tensor<2xi32>, ...]`), @FILE
// holding such a list, or @a.npy,@b.npy,... Errors name the source and position.
absl::StatusOr<std::vector<client::HostArray>> ParseArgsFlag(const std::string& value);
// Every argument of `sig` in order: `given` for the arguments that are not tokens (checked with
// CheckFits), an empty TOKEN array for each token.
absl::StatusOr<std::vector<client::HostArray>> ArgsInputs(const Signature& sig,
                                                          const std::vector<client::HostArray>& given);
// The same arrays as the in-process executor's values (tokens as tokens).
absl::StatusOr<std::vector<cpu::RtValue>> ToRtValues(const std::vector<client::HostArray>& inputs);

// The elements of the small integer arrays among `inputs` (index -> values), which shape
// refinement may use when a program is compiled for these arguments only.
std::map<size_t, std::vector<int64_t>> IntegerArgValues(const std::vector<client::HostArray>& inputs);

// Loads a plugin (a path, a name, or DefaultPluginPath() when empty) and creates a client with
// at least `min_devices` addressable devices (asking for them with cpu_device_count when the
// platform is "cpu"), plus `extra` create options.
absl::StatusOr<std::unique_ptr<client::Client>> OpenClient(const std::string& plugin, int min_devices,
                                                           const client::Options& extra = {});

// `bytes` of a result of type `t`, as a dense literal.
std::string FormatHost(ir::Context& ctx, const ir::Type& t, const std::vector<uint8_t>& bytes);

}  // namespace openpjrt::tools
