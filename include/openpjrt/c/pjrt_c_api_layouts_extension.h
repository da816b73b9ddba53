/* openpjrt — the PJRT Layouts extension (extension version 4), as a plain C header.
 *
 * Written for openpjrt; names, field order and the order of the function pointers follow the
 * public PJRT Layouts extension so that clients built against either header interoperate.
 *
 * A plugin that offers this extension reports how arrays are laid out in its memories. A layout
 * is an opaque PJRT_Layouts_MemoryLayout; its serialized form is XLA's text form of the layout
 * (the minor-to-major order in braces, e.g. "{1,0}"; "{}" for a scalar), as PjRtLayout::Serialize
 * writes it. Layouts returned by the Buffer and GetDefaultLayout
 * calls belong to the caller (free them with PJRT_Layouts_MemoryLayout_Destroy); layouts returned
 * by the Executable calls belong to the executable and live as long as it does.
 */
#ifndef OPENPJRT_C_PJRT_C_API_LAYOUTS_EXTENSION_H_
#define OPENPJRT_C_PJRT_C_API_LAYOUTS_EXTENSION_H_

#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_API_LAYOUTS_EXTENSION_VERSION 4

typedef struct PJRT_Layouts_MemoryLayout PJRT_Layouts_MemoryLayout;
typedef struct PJRT_Layouts_SerializedLayout PJRT_Layouts_SerializedLayout;

/* Frees a caller-owned layout; a NULL `layout` is allowed. */
struct PJRT_Layouts_MemoryLayout_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Layouts_MemoryLayout* layout;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Layouts_MemoryLayout_Destroy_Args, layout);
typedef PJRT_Error* PJRT_Layouts_MemoryLayout_Destroy(PJRT_Layouts_MemoryLayout_Destroy_Args* args);

/* Serializes `layout`. The bytes are owned by `serialized_layout`; the caller frees it once with
 * `serialized_layout_deleter`. */
struct PJRT_Layouts_MemoryLayout_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Layouts_MemoryLayout* layout;
  const char* serialized_bytes;                      /* out */
  size_t serialized_bytes_size;                      /* out */
  PJRT_Layouts_SerializedLayout* serialized_layout;  /* out */
  void (*serialized_layout_deleter)(PJRT_Layouts_SerializedLayout* s_layout); /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Layouts_MemoryLayout_Serialize_Args, serialized_layout_deleter);
typedef PJRT_Error* PJRT_Layouts_MemoryLayout_Serialize(
    PJRT_Layouts_MemoryLayout_Serialize_Args* args);

/* The layout of a buffer's data (caller-owned). */
struct PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Layouts_MemoryLayout* layout; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args, layout);
typedef PJRT_Error* PJRT_Layouts_PJRT_Buffer_MemoryLayout(
    PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args* args);

/* The layout a client gives a new array of `type` and `dims` (caller-owned). */
struct PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Layouts_MemoryLayout* layout; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, layout);
typedef PJRT_Error* PJRT_Layouts_PJRT_Client_GetDefaultLayout(
    PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args* args);

/* The same question asked of a topology (ahead-of-time compilation; caller-owned). */
struct PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology_description;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Layouts_MemoryLayout* layout; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args, layout);
typedef PJRT_Error* PJRT_Layouts_PJRT_Topology_GetDefaultLayout(
    PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args* args);

/* One layout per output of an executable (owned by the executable). */
struct PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;                  /* out */
  PJRT_Layouts_MemoryLayout** layouts; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args, layouts);
typedef PJRT_Error* PJRT_Layouts_PJRT_Executable_GetOutputLayouts(
    PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args* args);

/* One layout per parameter of an executable (owned by the executable). */
struct PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_parameters;               /* out */
  PJRT_Layouts_MemoryLayout** layouts; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args, layouts);
typedef PJRT_Error* PJRT_Layouts_PJRT_Executable_GetParameterLayouts(
    PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args* args);

/* The extension struct found on the PJRT_Api.extension_start chain with type
 * PJRT_Extension_Type_Layouts. Check base.struct_size before reading a later pointer. */
typedef struct PJRT_Layouts_Extension {
  PJRT_Extension_Base base;
  PJRT_Layouts_MemoryLayout_Destroy* PJRT_Layouts_MemoryLayout_Destroy;
  PJRT_Layouts_MemoryLayout_Serialize* PJRT_Layouts_MemoryLayout_Serialize;
  PJRT_Layouts_PJRT_Client_GetDefaultLayout* PJRT_Layouts_PJRT_Client_GetDefaultLayout;
  PJRT_Layouts_PJRT_Buffer_MemoryLayout* PJRT_Layouts_PJRT_Buffer_MemoryLayout;
  PJRT_Layouts_PJRT_Topology_GetDefaultLayout* PJRT_Layouts_PJRT_Topology_GetDefaultLayout;
  PJRT_Layouts_PJRT_Executable_GetOutputLayouts* PJRT_Layouts_PJRT_Executable_GetOutputLayouts;
  PJRT_Layouts_PJRT_Executable_GetParameterLayouts*
      PJRT_Layouts_PJRT_Executable_GetParameterLayouts;
} PJRT_Layouts_Extension;
enum {
  PJRT_Layouts_Extension_STRUCT_SIZE =
      PJRT_STRUCT_SIZE(PJRT_Layouts_Extension, PJRT_Layouts_PJRT_Executable_GetParameterLayouts)
};

/* Layout facts (LP64). */
#if defined(__LP64__) || defined(_LP64)
#ifdef __cplusplus
#define PJRT_LAYOUT_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PJRT_LAYOUT_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
PJRT_LAYOUT_ASSERT(PJRT_Layouts_Extension_STRUCT_SIZE == 24 + 7 * 8, "PJRT_Layouts_Extension");
PJRT_LAYOUT_ASSERT(PJRT_Layouts_MemoryLayout_Serialize_Args_STRUCT_SIZE == 56,
                   "PJRT_Layouts_MemoryLayout_Serialize_Args");
PJRT_LAYOUT_ASSERT(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args_STRUCT_SIZE == 56,
                   "PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args");
#undef PJRT_LAYOUT_ASSERT
#endif

#ifdef __cplusplus
}
#endif

#endif /* OPENPJRT_C_PJRT_C_API_LAYOUTS_EXTENSION_H_ */
