/* npy.c - reading and writing NumPy .npy files.
 *
 * The design idea: the header is a Python dict literal, but numpy always writes it in one
 * shape ({'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }), so a small scanner
 * for exactly those three keys is enough; anything it does not understand is an error that
 * quotes the header, never a guess.
 */
#include "host/npy.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vta/file.h"
#include "vta/limits.h"
#include <unistd.h>

static const struct {
  const char *descr;
  size_t size;
} kinds[] = {{"<f4", 4}, {"<f8", 8}, {"<i8", 8}, {"<i4", 4}, {"|i1", 1},
             {"|u1", 1}, {"|b1", 1}, {"<u8", 8}, {"<u4", 4}, {"<i2", 2}, {"<u2", 2}};

static const char *find_key(const char *h, const char *key) {
  const char *p = strstr(h, key);
  return p ? p + strlen(key) : NULL;
}

int vta_npy_parse(const void *bytes, size_t size, const char *path, vta_npy *out, vta_error *err) {
  const unsigned char *b = bytes;
  memset(out, 0, sizeof *out);
  if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: not a .npy file (no \\x93NUMPY magic)", path);
  size_t hlen, hoff;
  if (b[6] == 1) {
    hlen = b[8] | (size_t)b[9] << 8;
    hoff = 10;
  } else if (b[6] == 2 || b[6] == 3) {
    if (size < 12) return vta_error_set(err, VTA_ERR_INVALID, "%s: truncated header", path);
    hlen = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    hoff = 12;
  } else {
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: .npy format version %d.%d is not supported",
                         path, b[6], b[7]);
  }
  if (hlen > size - hoff)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: the header (%zu bytes) runs past the end of the file", path, hlen);
  char *h = strndup((const char *)b + hoff, hlen);
  if (!h) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int rc = 0;
  const char *p = find_key(h, "'descr':");
  char descr[16] = "";
  if (p) sscanf(p, " '%15[^']'", descr);
  size_t k;
  for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (strcmp(kinds[k].descr, descr) == 0) break;
  if (k == sizeof kinds / sizeof kinds[0]) {
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                       "%s: element type '%s' is not supported (little-endian numbers only): %s",
                       path, descr, h);
    goto out;
  }
  snprintf(out->descr, sizeof out->descr, "%s", descr);
  out->elem_size = kinds[k].size;
  p = find_key(h, "'fortran_order':");
  if (!p || strncmp(p + strspn(p, " "), "False", 5) != 0) {
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: only C-order arrays are supported: %s", path, h);
    goto out;
  }
  p = find_key(h, "'shape':");
  if (!p || !(p = strchr(p, '('))) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: no shape in the header: %s", path, h);
    goto out;
  }
  p++;
  out->count = 1;
  for (;;) {
    while (*p == ' ' || *p == ',') p++;
    if (*p == ')') break;
    char *e;
    long long d = strtoll(p, &e, 10);
    if (e == p || d < 0 || out->rank >= VTA_NPY_MAX_RANK) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: bad shape (or more than %d dimensions): %s",
                         path, VTA_NPY_MAX_RANK, h);
      goto out;
    }
    if (d > VTA_LIMIT_DIM) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: dimension %d is %lld, above the limit of %lld "
                         "per dimension (VTA_LIMIT_DIM): %s", path, out->rank, d, (long long)VTA_LIMIT_DIM, h);
      goto out;
    }
    out->dims[out->rank++] = d;
    if (d && out->count > SIZE_MAX / out->elem_size / (size_t)d) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: the shape's size overflows: %s", path, h);
      goto out;
    }
    out->count *= (size_t)d;
    p = e;
  }
  size_t need = out->count * out->elem_size, have = size - hoff - hlen;
  if (have < need) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: truncated: the shape needs %zu data bytes, the file has %zu",
                       path, need, have);
    goto out;
  }
  out->data = malloc(need ? need : 1);
  if (!out->data) {
    rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    goto out;
  }
  memcpy(out->data, b + hoff + hlen, need);
out:
  free(h);
  return rc;
}

int vta_npy_read(const char *path, vta_npy *out, vta_error *err) {
  memset(out, 0, sizeof *out);
  unsigned char *buf;
  size_t n;
  int rc = vta_file_read(path, "a .npy tensor", VTA_LIMIT_NPY_BYTES, &buf, &n, err);
  if (rc) return rc;
  rc = vta_npy_parse(buf, n, path, out, err);
  free(buf);
  return rc;
}

int vta_npy_encode(const char *descr, int rank, const int64_t *dims, const void *data,
                   unsigned char **bytes, size_t *size, vta_error *err) {
  size_t k, count = 1;
  for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (strcmp(kinds[k].descr, descr) == 0) break;
  if (k == sizeof kinds / sizeof kinds[0])
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "element type '%s' cannot be written", descr);
  if (rank < 0 || rank > VTA_NPY_MAX_RANK)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "rank %d cannot be written (at most %d)", rank,
                         VTA_NPY_MAX_RANK);
  char h[512];
  int n = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int d = 0; d < rank; d++) {
    n += snprintf(h + n, sizeof h - (size_t)n, "%lld%s", (long long)dims[d], rank == 1 ? "," : (d + 1 < rank ? ", " : ""));
    count *= (size_t)dims[d];
  }
  n += snprintf(h + n, sizeof h - (size_t)n, "), }");
  /* Pad with spaces so that the data starts on a 64-byte boundary, newline last. */
  size_t total_h = ((10 + (size_t)n + 1 + 63) / 64) * 64 - 10;
  size_t dbytes = count * kinds[k].size;
  unsigned char *b = malloc(10 + total_h + dbytes);
  if (!b) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  memcpy(b, "\x93NUMPY\x01\x00", 8);
  b[8] = (unsigned char)(total_h & 0xff);
  b[9] = (unsigned char)(total_h >> 8);
  memcpy(b + 10, h, (size_t)n);
  memset(b + 10 + n, ' ', total_h - (size_t)n - 1);
  b[10 + total_h - 1] = '\n';
  if (dbytes) memcpy(b + 10 + total_h, data, dbytes);
  *bytes = b;
  *size = 10 + total_h + dbytes;
  return 0;
}

int vta_npy_write(const char *path, const char *descr, int rank, const int64_t *dims,
                  const void *data, vta_error *err) {
  unsigned char *b;
  size_t n;
  if (vta_npy_encode(descr, rank, dims, data, &b, &n, err)) return -1;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  int rc = 0;
  if (!f) {
    rc = vta_error_set(err, VTA_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
  } else {
    int bad = fwrite(b, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
      remove(tmp);
      rc = vta_error_set(err, VTA_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    }
  }
  free(b);
  return rc;
}

void vta_npy_free(vta_npy *t) {
  free(t->data);
  t->data = NULL;
}
