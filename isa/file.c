/* file.c - the one whole-file reader (see vta/file.h).
 *
 * It lives in isa/, the lowest layer, so that the configuration loader can use it too. It
 * reads with read(2) until end of file instead of trusting a size from fstat or ftell: a pipe
 * or a file that grows has no size worth trusting. fstat is used only to refuse an oversized
 * regular file at once and to allocate the right amount the first time.
 */
#include "vta/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int too_large(const char *name, const char *what, size_t limit, vta_error *err) {
  if (limit >= ((size_t)1 << 20) && limit % ((size_t)1 << 20) == 0)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: larger than %zu MiB, the limit for %s", name,
                         limit >> 20, what);
  return vta_error_set(err, VTA_ERR_INVALID, "%s: larger than %zu bytes, the limit for %s", name,
                       limit, what);
}

int vta_file_read(const char *path, const char *what, size_t limit, unsigned char **data,
                  size_t *size, vta_error *err) {
  int is_stdin = strcmp(path, "-") == 0;
  const char *name = is_stdin ? "standard input" : path;
  *data = NULL;
  *size = 0;
  int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return vta_error_set(err, VTA_ERR_IO, "%s: cannot open: %s", name, strerror(errno));
  size_t cap = 65536, len = 0;
  struct stat st;
  if (fstat(fd, &st) == 0) {
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
      if ((uint64_t)st.st_size > limit) {
        if (!is_stdin) close(fd);
        return too_large(name, what, limit, err);
      }
      cap = (size_t)st.st_size + 1; /* + 1: a read that returns 0 confirms the end */
    }
  }
  int rc = VTA_OK;
  unsigned char *buf = malloc(cap + 1);
  if (!buf) {
    rc = vta_error_set(err, VTA_ERR_NOMEM, "%s: out of memory for %zu bytes", name, cap + 1);
    goto out;
  }
  for (;;) {
    if (len == cap) {
      if (len > limit) {
        rc = too_large(name, what, limit, err);
        goto out;
      }
      size_t ncap = cap > limit / 2 ? limit + 1 : cap * 2; /* limit + 1 detects "over" */
      unsigned char *nb = realloc(buf, ncap + 1);
      if (!nb) {
        rc = vta_error_set(err, VTA_ERR_NOMEM, "%s: out of memory after %zu bytes", name, len);
        goto out;
      }
      buf = nb;
      cap = ncap;
    }
    ssize_t got = read(fd, buf + len, cap - len);
    if (got < 0) {
      if (errno == EINTR) continue;
      rc = vta_error_set(err, VTA_ERR_IO, "%s: cannot read: %s", name, strerror(errno));
      goto out;
    }
    if (got == 0) break;
    len += (size_t)got;
  }
  if (len > limit) {
    rc = too_large(name, what, limit, err);
    goto out;
  }
  buf[len] = 0;
  *data = buf;
  *size = len;
  buf = NULL;
out:
  free(buf);
  if (!is_stdin) close(fd);
  return rc;
}
