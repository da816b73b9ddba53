// XLA FFI handlers as custom_call targets (include/openpjrt/c/xla_ffi_api.h): a process-wide
// registry of handlers by target name, the XLA_FFI_Api table handed to them, the encoding of a
// call's attributes, and the kernel that calls a handler with its operand and result buffers.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "include/openpjrt/c/xla_ffi_api.h"
#include "src/cpu/exec/program.h"
#include "src/ir/attributes.h"

namespace openpjrt::cpu {

// The user data of one execution's context (PJRT_FFI_UserData_Add), by type id; handlers read
// it through XLA_FFI_ExecutionContext_Get. The pointers stay owned by the PJRT execute context.
struct FfiUserData {
  std::vector<std::pair<int64_t, void*>> entries;
};

struct FfiHandler {
  XLA_FFI_Handler_Bundle bundle{};  // execute is required
  XLA_FFI_Api_Version version{};    // what the handler reported when probed (else ours)
};

// Registers `bundle` for `target`. Registering the same execute handler again is a no-op;
// another handler under a registered name is ALREADY_EXISTS.
absl::Status RegisterFfiHandler(std::string_view target, const XLA_FFI_Handler_Bundle& bundle);
// The handler registered for `target`, or null.
const FfiHandler* FindFfiHandler(std::string_view target);
using FfiDeleter = void (*)(void*);
// A user type's id: `id` 0 asks for a new one; otherwise it must match the registered id. A
// non-null `deleter` frees user data of the type when its execute context goes (the last one
// registered for the type counts).
absl::StatusOr<int64_t> RegisterFfiType(std::string_view name, int64_t id, FfiDeleter deleter);
// The deleter registered for a type id, or null.
FfiDeleter FfiTypeDeleter(int64_t id);

// The attributes of one call in the XLA_FFI_Attrs form, with the storage they point into (not
// copyable: `c` points into the members).
struct FfiAttrs {
  FfiAttrs() = default;
  FfiAttrs(const FfiAttrs&) = delete;
  FfiAttrs& operator=(const FfiAttrs&) = delete;
  XLA_FFI_Attrs c{};
  std::vector<XLA_FFI_AttrType> types;
  std::vector<XLA_FFI_ByteSpan*> names;
  std::vector<void*> values;
  std::deque<std::string> strings;
  std::deque<XLA_FFI_ByteSpan> spans;
  std::deque<XLA_FFI_Scalar> scalars;
  std::deque<XLA_FFI_Array> arrays;
  std::deque<std::vector<uint8_t>> bytes;
  std::vector<std::unique_ptr<FfiAttrs>> dicts;  // nested dictionaries
};
// Encodes a dictionary attribute (sorted by name, as handlers expect). Booleans, integers,
// f32/f64 floats, strings, dense arrays, 1-D dense elements and nested dictionaries can be passed;
// anything else is INVALID_ARGUMENT naming the attribute.
absl::Status EncodeFfiAttrs(const ir::Attribute& dict, FfiAttrs* out);

struct FfiCallParams {
  std::string target;
  const FfiHandler* handler = nullptr;
  FfiAttrs attrs;
  std::vector<bool> result_is_token;
};
KernelFn FfiCallKernel();

}  // namespace openpjrt::cpu
