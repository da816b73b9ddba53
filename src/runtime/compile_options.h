// The parts of a serialized xla.CompileOptionsProto the CPU runtime uses, read straight from the
// protobuf wire format (field numbers as published by OpenXLA); unknown fields are skipped, so any
// client's options are accepted. Also writes the two messages the ABI hands back: the options and
// an xla.DeviceAssignmentProto.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace openpjrt::runtime {

struct CompileOptions {
  int64_t num_replicas = 0;    // 0: not given (the program's attribute, else 1, applies)
  int64_t num_partitions = 0;  // 0: not given
  bool compile_portable_executable = false;
  // device_assignment[replica][partition] = device id; empty when not given.
  std::vector<std::vector<int64_t>> device_assignment;
  std::string serialized;  // the bytes as received (or as written by Serialize)
};

// INVALID_ARGUMENT naming the byte offset when the bytes are not a well-formed message.
absl::StatusOr<CompileOptions> ParseCompileOptions(std::string_view bytes);

// A CompileOptionsProto carrying the replica and partition counts and the device assignment.
std::string SerializeCompileOptions(const CompileOptions& options);

// An xla.DeviceAssignmentProto for assignment[replica][partition].
std::string SerializeDeviceAssignment(const std::vector<std::vector<int64_t>>& assignment);

}  // namespace openpjrt::runtime
