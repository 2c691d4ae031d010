/* file.h - reading a whole input file, the one way every reader of the project does it.
 *
 *     unsigned char *data; size_t n; vta_error err;
 *     if (vta_file_read(path, "an ONNX model", VTA_LIMIT_MODEL_BYTES, &data, &n, &err))
 *       fprintf(stderr, "%s\n", err.msg);  // "m.onnx: larger than 2147483648 bytes, ..."
 *
 * Works on regular files, pipes and terminals alike (it never asks for the size with
 * fseek/ftell), refuses a file larger than `limit` before reading past it, and keeps reading
 * after short reads and interrupted calls.
 */
#ifndef VTA_FILE_H
#define VTA_FILE_H

#include <stddef.h>

#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads all of `path` ("-" is standard input) into a new buffer with one NUL byte after the
 * data (so text can be used in place); *data is freed by the caller. `what` names the kind of
 * file in the message when it is larger than `limit` bytes. Errors: VTA_ERR_IO (cannot open or
 * read, the message has the reason), VTA_ERR_INVALID (over the limit), VTA_ERR_NOMEM. */
int vta_file_read(const char *path, const char *what, size_t limit, unsigned char **data,
                  size_t *size, vta_error *err);

#ifdef __cplusplus
}
#endif
#endif
