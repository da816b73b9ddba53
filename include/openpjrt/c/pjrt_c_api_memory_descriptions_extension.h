/* openpjrt — the PJRT MemoryDescriptions extension (extension version 1), as a plain C header.
 *
 * Written for openpjrt; names, field order and the order of the function pointers follow the
 * public PJRT MemoryDescriptions extension so that clients built against either header
 * interoperate.
 *
 * It lists the kinds of memory a device *description* supports, without a client: what an
 * ahead-of-time compile against a topology may place arrays in. Descriptions are owned by the
 * plugin and live as long as the device description they came from.
 */
#ifndef OPENPJRT_C_PJRT_C_API_MEMORY_DESCRIPTIONS_EXTENSION_H_
#define OPENPJRT_C_PJRT_C_API_MEMORY_DESCRIPTIONS_EXTENSION_H_

#include <stddef.h>

#include "pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_API_MEMORY_DESCRIPTIONS_EXTENSION_VERSION 1

typedef struct PJRT_MemoryDescription PJRT_MemoryDescription;

/* Every memory description of a device description, in no promised order, and which of them is
 * the default ((size_t)-1 when none is). */
struct PJRT_DeviceDescription_MemoryDescriptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const PJRT_MemoryDescription* const* memory_descriptions; /* out */
  size_t num_memory_descriptions;                           /* out */
  size_t default_memory_index;                              /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_MemoryDescriptions_Args, default_memory_index);
typedef PJRT_Error* PJRT_DeviceDescription_MemoryDescriptions(
    PJRT_DeviceDescription_MemoryDescriptions_Args* args);

/* The kind string (same lifetime as the description) and its platform-wide numeric id. */
struct PJRT_MemoryDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_MemoryDescription* memory_description;
  const char* kind; /* out */
  size_t kind_size; /* out */
  int kind_id;      /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_MemoryDescription_Kind_Args, kind_id);
typedef PJRT_Error* PJRT_MemoryDescription_Kind(PJRT_MemoryDescription_Kind_Args* args);

/* Found on the PJRT_Api.extension_start chain with type PJRT_Extension_Type_MemoryDescriptions. */
typedef struct PJRT_MemoryDescriptions_Extension {
  PJRT_Extension_Base base;
  PJRT_DeviceDescription_MemoryDescriptions* PJRT_DeviceDescription_MemoryDescriptions;
  PJRT_MemoryDescription_Kind* PJRT_MemoryDescription_Kind;
} PJRT_MemoryDescriptions_Extension;
enum {
  PJRT_MemoryDescriptions_Extension_STRUCT_SIZE =
      PJRT_STRUCT_SIZE(PJRT_MemoryDescriptions_Extension, PJRT_MemoryDescription_Kind)
};

/* Layout facts (LP64). */
#if defined(__LP64__) || defined(_LP64)
#ifdef __cplusplus
#define PJRT_LAYOUT_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PJRT_LAYOUT_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
PJRT_LAYOUT_ASSERT(PJRT_DeviceDescription_MemoryDescriptions_Args_STRUCT_SIZE == 48,
                   "PJRT_DeviceDescription_MemoryDescriptions_Args");
PJRT_LAYOUT_ASSERT(PJRT_MemoryDescription_Kind_Args_STRUCT_SIZE == 44,
                   "PJRT_MemoryDescription_Kind_Args");
PJRT_LAYOUT_ASSERT(PJRT_MemoryDescriptions_Extension_STRUCT_SIZE == 40,
                   "PJRT_MemoryDescriptions_Extension");
#undef PJRT_LAYOUT_ASSERT
#endif

#ifdef __cplusplus
}
#endif

#endif /* OPENPJRT_C_PJRT_C_API_MEMORY_DESCRIPTIONS_EXTENSION_H_ */
