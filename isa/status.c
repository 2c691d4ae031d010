/* status.c - filling vta_error. Messages are formatted once, where the fault is found, with
 * everything a user needs to act; callers add context (a file name) with vta_error_prefix.
 */
#include "vta/status.h"

#include <stdio.h>
#include <string.h>

int vta_error_setv(vta_error *err, vta_status status, const char *fmt, va_list ap) {
  if (err) {
    err->status = status;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  }
  return status;
}

int vta_error_set(vta_error *err, vta_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vta_error_setv(err, status, fmt, ap);
  va_end(ap);
  return status;
}

void vta_error_prefix(vta_error *err, const char *fmt, ...) {
  if (!err) return;
  char prefix[VTA_ERROR_MSG_MAX], old[VTA_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->msg, sizeof old);
  snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
}

const char *vta_status_name(int status) {
  switch (status) {
  case VTA_OK: return "ok";
  case VTA_ERR_INVALID: return "invalid";
  case VTA_ERR_IO: return "io";
  case VTA_ERR_NOMEM: return "nomem";
  case VTA_ERR_BOUNDS: return "bounds";
  case VTA_ERR_DEADLOCK: return "deadlock";
  case VTA_ERR_TIMEOUT: return "timeout";
  case VTA_ERR_UNSUPPORTED: return "unsupported";
  default: return "unknown";
  }
}
