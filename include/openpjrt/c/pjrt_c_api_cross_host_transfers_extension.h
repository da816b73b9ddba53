/* openpjrt — the PJRT CrossHostTransfers extension, as a plain C header.
 *
 * Written for openpjrt; names, field order and the order of the function pointers follow the
 * public PJRT CrossHostTransfers extension so that clients built against either header
 * interoperate. Fields added by later versions of the extension are at the ends of their structs:
 * a caller whose struct_size stops before them is served as by the earlier version.
 *
 * The extension moves buffers between devices of different processes of one distributed client
 * (PJRT_Client_Create with node_id / num_nodes and the key-value store callbacks):
 *  - CrossHostSendBuffers: each buffer is sent to the device with the given global id in another
 *    process as the given transfer key; an event per buffer says when it has been sent.
 *  - CrossHostReceiveBuffers: buffers of the given shapes on this process's `device`, each filled
 *    by the transfer with the given key from the given source device; they become ready when the
 *    bytes have arrived, or carry the error.
 * A send and its receive may be posted in either order, on either side, concurrently with other
 * transfers. Keys are the caller's; each must be used once between two processes.
 * The descriptor-based API:
 *  - MakeCrossHostReceiveBuffers: buffers of the given shapes on `device`; the notifier is called
 *    (on another thread, after the call returns) with one opaque descriptor per buffer, which the
 *    framework hands to the sender, and, with allow_cancel_notifier, a cancel notifier that fails
 *    a receive not completed yet with the reason given (then calls on_canceled).
 *  - CopyToRemoteDevice: takes `event`; once it is set, *serialized_descriptor holds the
 *    receiver's descriptor (freed through descriptor_destructor when given); the buffer is sent
 *    there and on_done reports (error or null, and whether the send was enqueued).
 */
#ifndef OPENPJRT_C_PJRT_C_API_CROSS_HOST_TRANSFERS_EXTENSION_H_
#define OPENPJRT_C_PJRT_C_API_CROSS_HOST_TRANSFERS_EXTENSION_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PJRT_API_CROSS_HOST_TRANSFERS_EXTENSION_VERSION 8

/* A device's global id (XLA's GlobalDeviceId: 32 bits) and a transfer's key (XLA's
 * CrossHostTransferKey: 64 bits). */
typedef int32_t PJRT_Transfers_GlobalDeviceId;
typedef int64_t PJRT_Transfers_CrossHostTransferKey;

struct PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  size_t num_buffers;
  PJRT_Buffer** buffers;
  const PJRT_Transfers_GlobalDeviceId* dst_global_device_ids; /* [num_buffers] */
  const PJRT_Transfers_CrossHostTransferKey* transfer_keys;   /* [num_buffers] */
  PJRT_Event** send_events;                                   /* out: [num_buffers] */
  /* Version 8: the processes known alive (task i has incarnation incarnation_ids[i]). */
  size_t num_tasks;
  const int* task_ids;
  const int64_t* incarnation_ids;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args, incarnation_ids);
typedef PJRT_Error* PJRT_Transfers_PJRT_Client_CrossHostSendBuffers(
    PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args* args);

struct PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  size_t num_shapes;
  size_t* shape_num_dims;             /* [num_shapes] */
  const int64_t** num_dims;           /* [num_shapes][shape_num_dims[i]]: the dimensions */
  PJRT_Buffer_Type* element_types;    /* [num_shapes] */
  PJRT_Buffer_MemoryLayout** layouts; /* [num_shapes], entries may be NULL; NULL: row-major */
  PJRT_Device* device;
  const PJRT_Transfers_GlobalDeviceId* src_global_device_ids; /* [num_shapes] */
  const PJRT_Transfers_CrossHostTransferKey* transfer_keys;   /* [num_shapes] */
  PJRT_Buffer** buffers;                                      /* out: [num_shapes] */
  /* Version 8. */
  size_t num_tasks;
  const int* task_ids;
  const int64_t* incarnation_ids;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args, incarnation_ids);
typedef PJRT_Error* PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers(
    PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args* args);

/* The descriptor-based API. */
typedef void (*PJRT_Transfers_CrossHostOnCanceledCallback)(PJRT_Error* error, void* user_arg);
typedef void (*PJRT_Transfers_CrossHostSendCancelNotifier)(
    const char* serialized_descriptor, size_t serialized_descriptor_size, PJRT_Error_Code reason,
    const char* error_message, size_t error_message_size, PJRT_Transfers_CrossHostOnCanceledCallback on_canceled,
    void* on_canceled_user_arg, void* user_arg);
typedef void (*PJRT_Transfers_CrossHostRecvNotifier)(PJRT_Error* error, const char** serialized_descriptors,
                                                     size_t* descriptors_sizes, size_t num_descriptors,
                                                     void* user_arg,
                                                     PJRT_Transfers_CrossHostSendCancelNotifier cancel_notifier,
                                                     void* cancel_notifier_user_arg);

struct PJRT_Transfers_CrossHostRecvNotifierInfo {
  void* user_arg;
  PJRT_Transfers_CrossHostRecvNotifier notifier;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Transfers_CrossHostRecvNotifierInfo, notifier);

struct PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  size_t num_shapes;
  size_t* shape_num_dims;
  const int64_t** num_dims;
  PJRT_Buffer_Type* element_types;
  PJRT_Buffer_MemoryLayout** layouts;
  PJRT_Device* device;
  PJRT_Transfers_CrossHostRecvNotifierInfo notifier;
  PJRT_Buffer** buffers; /* out */
  size_t num_buffers;    /* out */
  bool allow_cancel_notifier; /* version 7 */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args, allow_cancel_notifier);
typedef PJRT_Error* PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers(
    PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args* args);

typedef void (*PJRT_Transfers_CrossHostRemoteSendCallback)(PJRT_Error* error, bool sends_were_enqueued,
                                                           void* user_arg);
struct PJRT_Transfers_CrossHostRemoteSendCallbackInfo {
  void* user_arg;
  PJRT_Transfers_CrossHostRemoteSendCallback on_done;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Transfers_CrossHostRemoteSendCallbackInfo, on_done);

typedef void (*PJRT_Transfers_DescriptorDestructor)(char** descriptor_data, size_t* descriptor_size);

struct PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event; /* the plugin takes ownership */
  char** serialized_descriptor;
  size_t* serialized_descriptor_size;
  PJRT_Transfers_CrossHostRemoteSendCallbackInfo on_done;
  PJRT_Transfers_DescriptorDestructor descriptor_destructor; /* version 6 */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args, descriptor_destructor);
typedef void PJRT_Buffer_CopyToRemoteDevice(PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args* args);

typedef struct PJRT_CrossHostTransfers_Extension {
  PJRT_Extension_Base base;
  PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers* PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers;
  PJRT_Buffer_CopyToRemoteDevice* PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice;
  PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers* PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers;
  PJRT_Transfers_PJRT_Client_CrossHostSendBuffers* PJRT_Transfers_PJRT_Client_CrossHostSendBuffers;
} PJRT_CrossHostTransfers_Extension;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CrossHostTransfers_Extension, PJRT_Transfers_PJRT_Client_CrossHostSendBuffers);

#ifdef __cplusplus
}
#endif

#endif /* OPENPJRT_C_PJRT_C_API_CROSS_HOST_TRANSFERS_EXTENSION_H_ */
