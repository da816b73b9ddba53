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

// Loads a plugin (a path, a name, or DefaultPluginPath() when empty) and creates a client with
// at least `min_devices` addressable devices (asking for them with cpu_device_count when the
// platform is "cpu"), plus `extra` create options.
absl::StatusOr<std::unique_ptr<client::Client>> OpenClient(const std::string& plugin, int min_devices,
                                                           const client::Options& extra = {});

// `bytes` of a result of type `t`, as a dense literal.
std::string FormatHost(ir::Context& ctx, const ir::Type& t, const std::vector<uint8_t>& bytes);

}  // namespace openpjrt::tools
