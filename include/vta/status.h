/* status.h - how every library call reports failure.
 *
 * Library code never exits and never prints on its own: it returns a vta_status and, when the
 * caller passed a vta_error, fills it with one sentence a user can act on (which file, which
 * instruction, which field, which value, which limit).  A NULL vta_error is always allowed.
 */
#ifndef VTA_STATUS_H
#define VTA_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vta_status {
  VTA_OK = 0,
  VTA_ERR_INVALID = -1,  /* bad argument, config, instruction or file contents */
  VTA_ERR_IO = -2,       /* a file could not be read or written */
  VTA_ERR_NOMEM = -3,    /* host or device memory exhausted */
  VTA_ERR_BOUNDS = -4,   /* an SRAM index or DMA outside its buffer or allocation */
  VTA_ERR_DEADLOCK = -5, /* a dependency pop that no producer can ever satisfy */
  VTA_ERR_TIMEOUT = -6,  /* the device did not finish within the allowed time */
  VTA_ERR_UNSUPPORTED = -7, /* a feature this backend or build does not have */
  VTA_STATUS_COUNT_ = 8
} vta_status;

#define VTA_ERROR_MSG_MAX 1024

typedef struct vta_error {
  vta_status status;
  char msg[VTA_ERROR_MSG_MAX];
} vta_error;

/* Records the message (printf format) in err if err is not NULL and returns status. */
int vta_error_set(vta_error *err, vta_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int vta_error_setv(vta_error *err, vta_status status, const char *fmt, va_list ap);
/* Prepends "prefix: " to an error already set (for adding file names or contexts). */
void vta_error_prefix(vta_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Short name of a status ("invalid", "deadlock", ...). */
const char *vta_status_name(int status);

#ifdef __cplusplus
}
#endif
#endif
