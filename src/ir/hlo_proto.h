// The PJRT "hlo" program format: a serialized xla.HloModuleProto (what XlaBuilder-based clients
// such as gopjrt compile). The module is converted to StableHLO text, which the ordinary parser,
// verifier and compiler then take, as for MLIR bytecode.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/ir/ir.h"

namespace openpjrt::ir {

// The StableHLO text of the entry computation (as @main) of a serialized HloModuleProto. Tuples
// are flattened: a tuple-shaped root gives one result per leaf, and tuple-shaped while, call and
// conditional values become their leaves. Malformed bytes are INVALID_ARGUMENT naming the message
// and byte offset; an opcode without a conversion is UNIMPLEMENTED naming it and its instruction.
//
// `devices` is the replica and partition count the program is compiled for (the compile
// options'; 0: not given); an HloModuleProto does not record it, and an all-to-all without
// replica groups splits into as many pieces as its one group has members.
struct HloDevices {
  int64_t num_replicas = 0, num_partitions = 0;
};
absl::StatusOr<std::string> HloProtoToText(std::string_view bytes, HloDevices devices = {});

// The PJRT "hlo_with_config" format: a serialized xla.HloModuleProtoWithConfig, the module and
// its HloModuleConfigProto, whose replica and partition counts become the module's
// mhlo.num_replicas / mhlo.num_partitions (the compile options still take precedence).
absl::StatusOr<std::string> HloProtoWithConfigToText(std::string_view bytes, HloDevices devices = {});

// HloProtoToText (or, `with_config`, HloProtoWithConfigToText), then parsed.
absl::StatusOr<std::unique_ptr<Module>> ParseHloProto(std::string_view bytes, const std::string& source_name,
                                                      HloDevices devices = {}, bool with_config = false);

// Parses `data` as a program of PJRT format `format`: "mlir" (text or bytecode), "hlo" or
// "hlo_with_config".
absl::StatusOr<std::unique_ptr<Module>> ParseProgramOfFormat(std::string_view data, std::string_view format,
                                                             const std::string& source_name, HloDevices devices = {});

}  // namespace openpjrt::ir
