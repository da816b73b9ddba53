/* openpjrt — the PJRT FFI extension (extension version 3, as published with PJRT C API 0.114), as a plain C header.
 *
 * Written for openpjrt; names, field order and the order of the function pointers follow the
 * public PJRT FFI extension so that clients built against either header interoperate.
 *
 * It lets a client hand the plugin XLA FFI handlers (xla_ffi_api.h) for custom_call targets: a
 * compiled program whose stablehlo.custom_call names a registered target calls the handler with
 * its operands, results and attributes. It also registers user types and attaches user data to
 * an execute context.
 */
#ifndef OPENPJRT_C_PJRT_C_API_FFI_EXTENSION_H_
#define OPENPJRT_C_PJRT_C_API_FFI_EXTENSION_H_

#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_API_FFI_EXTENSION_VERSION 3

/* How the runtime handles values of a registered user type: `deleter` frees user data of the
 * type when the execute context holding it is destroyed (optional). The other two members are
 * reserved and must be null. */
typedef struct PJRT_FFI_Type_Info {
  void (*deleter)(void* object);
  void (*serialize)(void);
  void (*deserialize)(void);
} PJRT_FFI_Type_Info;

/* Registers a user type by name: type_id 0 asks for a new id (returned), any other value must
 * match the id the name already has. `type_info` may be null. */
struct PJRT_FFI_Type_Register_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* type_name;
  size_t type_name_size;
  int64_t type_id; /* in-out */
  PJRT_FFI_Type_Info* type_info;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_FFI_Type_Register_Args, type_info);
typedef PJRT_Error* PJRT_FFI_Type_Register(PJRT_FFI_Type_Register_Args* args);

/* Data forwarded to handlers; freed with the context by its type's deleter, if it has one. */
typedef struct PJRT_FFI_UserData {
  int64_t type_id;
  void* data;
} PJRT_FFI_UserData;

struct PJRT_FFI_UserData_Add_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;
  PJRT_FFI_UserData user_data;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_FFI_UserData_Add_Args, user_data);
typedef PJRT_Error* PJRT_FFI_UserData_Add(PJRT_FFI_UserData_Add_Args* args);

typedef enum PJRT_FFI_Handler_TraitsBits {
  PJRT_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE = 1u << 0,
} PJRT_FFI_Handler_TraitsBits;

/* `handler` is a typed XLA FFI handler (an XLA_FFI_Handler*). Note: this struct has no
 * extension_start. */
struct PJRT_FFI_Register_Handler_Args {
  size_t struct_size;
  const char* target_name;
  size_t target_name_size;
  void* handler;
  const char* platform_name;
  size_t platform_name_size;
  PJRT_FFI_Handler_TraitsBits traits;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_FFI_Register_Handler_Args, traits);
typedef PJRT_Error* PJRT_FFI_Register_Handler(PJRT_FFI_Register_Handler_Args* args);

typedef struct PJRT_FFI_Extension {
  PJRT_Extension_Base base;
  PJRT_FFI_Type_Register* type_register;
  PJRT_FFI_UserData_Add* user_data_add;
  PJRT_FFI_Register_Handler* register_handler;
} PJRT_FFI;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_FFI_Extension, register_handler);

#ifdef __cplusplus
}
#endif

#endif /* OPENPJRT_C_PJRT_C_API_FFI_EXTENSION_H_ */
