/* openpjrt's execute-order extension: stream ids and control dependencies for executions.
 *
 * PJRT C API 0.114 has no field for either, so openpjrt reads them from this struct when a caller
 * chains it on PJRT_ExecuteOptions.extension_start (other plugins skip a type they do not know;
 * the openpjrt C++ client library chains it only when its ExecuteOptions ask for either):
 *  - stream_id: executions with the same non-zero id run in launch order, each starting after the
 *    previous one on its stream has finished (whatever their arguments; a failure of one does not
 *    fail the next). 0, and every execution without this struct: ordered only by the buffers
 *    executions share.
 *  - wait_events: events the execution waits for beyond its arguments (other executions'
 *    completion events, transfers, PJRT_Event_Create promises). An error of one becomes the
 *    error of every output. The events stay the caller's; they are read during the call.
 */
#ifndef OPENPJRT_C_OPENPJRT_EXECUTE_ORDER_EXTENSION_H_
#define OPENPJRT_C_OPENPJRT_EXECUTE_ORDER_EXTENSION_H_

#include <stddef.h>
#include <stdint.h>

#include "pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The struct's type tag: a value outside PJRT's enumerators ("OPJ" and 1), so no PJRT extension
 * type can collide with it. C stores it in base.type directly; C++, where an enum object may not
 * hold a value outside its enumerators' range, copies the int into the field (memcpy), and readers
 * compare the field's bytes, not the enum. */
#define OPENPJRT_Extension_Type_ExecuteOrder 0x4f504a01

struct OPENPJRT_ExecuteOrder_Extension {
  PJRT_Extension_Base base; /* type: OPENPJRT_Extension_Type_ExecuteOrder (see above) */
  int64_t stream_id;
  PJRT_Event* const* wait_events; /* [num_wait_events], none NULL */
  size_t num_wait_events;
};
PJRT_DEFINE_STRUCT_TRAITS(OPENPJRT_ExecuteOrder_Extension, num_wait_events);

#ifdef __cplusplus
}
#endif

#endif /* OPENPJRT_C_OPENPJRT_EXECUTE_ORDER_EXTENSION_H_ */
