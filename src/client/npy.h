// NumPy .npy files (format versions 1-3, C order) <-> typed host arrays, for `openpjrt run
// --input` and `openpjrt bench --input`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "include/openpjrt/c/pjrt_c_api.h"

namespace openpjrt::client {

struct HostArray {
  PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // dense, row-major, little-endian
};

// Parses .npy bytes. Fortran order, big-endian data and dtypes without a PJRT type are
// INVALID_ARGUMENT naming what was found.
absl::StatusOr<HostArray> ParseNpy(std::string_view bytes, const std::string& name = "<npy>");
absl::StatusOr<HostArray> ReadNpy(const std::string& path);
// The .npy encoding of `a` (format 1.0); UNIMPLEMENTED for types numpy has no dtype for.
absl::StatusOr<std::string> EncodeNpy(const HostArray& a);

}  // namespace openpjrt::client
