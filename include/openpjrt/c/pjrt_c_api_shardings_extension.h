/* openpjrt — the PJRT Shardings extension (extension version 1), as a plain C header.
 *
 * Written for openpjrt; names, field order and the order of the function pointers follow the
 * public PJRT Shardings extension so that clients built against either header interoperate.
 *
 * It tells a client how a compiled executable expects each parameter and produces each output
 * laid out over its partitions: one serialized xla.OpSharding message (xla_data.proto) per
 * parameter or output. An empty message is a replicated value. The arrays belong to the
 * executable and live as long as it does.
 */
#ifndef OPENPJRT_C_PJRT_C_API_SHARDINGS_EXTENSION_H_
#define OPENPJRT_C_PJRT_C_API_SHARDINGS_EXTENSION_H_

#include <stddef.h>

#include "pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_API_SHARDINGS_EXTENSION_VERSION 1

/* The parameters' shardings: num_parameters messages, shardings[i] of sharding_sizes[i] bytes. */
struct PJRT_Shardings_PJRT_Executable_ParameterShardings_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_parameters;         /* out */
  const char* const* shardings;  /* out */
  const size_t* sharding_sizes;  /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args, sharding_sizes);
typedef PJRT_Error* PJRT_Shardings_PJRT_Executable_ParameterShardings(
    PJRT_Shardings_PJRT_Executable_ParameterShardings_Args* args);

/* The outputs' shardings, in the same form. */
struct PJRT_Shardings_PJRT_Executable_OutputShardings_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;            /* out */
  const char* const* shardings;  /* out */
  const size_t* sharding_sizes;  /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Shardings_PJRT_Executable_OutputShardings_Args, sharding_sizes);
typedef PJRT_Error* PJRT_Shardings_PJRT_Executable_OutputShardings(
    PJRT_Shardings_PJRT_Executable_OutputShardings_Args* args);

/* Found on the PJRT_Api.extension_start chain with type PJRT_Extension_Type_Shardings. */
typedef struct PJRT_Shardings_Extension {
  PJRT_Extension_Base base;
  PJRT_Shardings_PJRT_Executable_ParameterShardings* PJRT_Shardings_PJRT_Executable_ParameterShardings;
  PJRT_Shardings_PJRT_Executable_OutputShardings* PJRT_Shardings_PJRT_Executable_OutputShardings;
} PJRT_Shardings_Extension;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Shardings_Extension, PJRT_Shardings_PJRT_Executable_OutputShardings);

/* Layout facts (LP64). */
#if defined(__LP64__) || defined(_LP64)
#ifdef __cplusplus
#define PJRT_LAYOUT_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PJRT_LAYOUT_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
PJRT_LAYOUT_ASSERT(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args_STRUCT_SIZE == 48,
                   "PJRT_Shardings_PJRT_Executable_ParameterShardings_Args");
PJRT_LAYOUT_ASSERT(PJRT_Shardings_PJRT_Executable_OutputShardings_Args_STRUCT_SIZE == 48,
                   "PJRT_Shardings_PJRT_Executable_OutputShardings_Args");
PJRT_LAYOUT_ASSERT(PJRT_Shardings_Extension_STRUCT_SIZE == 40, "PJRT_Shardings_Extension");
#undef PJRT_LAYOUT_ASSERT
#endif

#ifdef __cplusplus
}
#endif

#endif /* OPENPJRT_C_PJRT_C_API_SHARDINGS_EXTENSION_H_ */
