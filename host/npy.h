/* npy.h - NumPy .npy files (format versions 1.0, 2.0 and 3.0), the tensor files of `vta run`.
 *
 *     vta_npy t; vta_error err;
 *     if (vta_npy_read("x.npy", &t, &err)) fprintf(stderr, "%s\n", err.msg);
 *     ... t.descr is "<f4", t.dims[0..t.rank), t.data ...
 *     vta_npy_free(&t);
 *
 * Only little-endian, C-order arrays of plain numbers are read; anything else (Fortran order,
 * big-endian, object arrays, a truncated file) is refused with a message naming the file and
 * the problem.
 */
#ifndef VTA_HOST_NPY_H
#define VTA_HOST_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "vta/status.h"

#define VTA_NPY_MAX_RANK 8

typedef struct vta_npy {
  char descr[8];      /* "<f4", "<f8", "<i8", "<i4", "|i1", "|u1", "|b1" */
  int rank;
  int64_t dims[VTA_NPY_MAX_RANK];
  size_t elem_size;
  size_t count;
  void *data;         /* malloc'd, count * elem_size bytes */
} vta_npy;

int vta_npy_parse(const void *bytes, size_t size, const char *path, vta_npy *out, vta_error *err);
int vta_npy_read(const char *path, vta_npy *out, vta_error *err);
/* Serialises (version 1.0) into a malloc'd buffer. */
int vta_npy_encode(const char *descr, int rank, const int64_t *dims, const void *data,
                   unsigned char **bytes, size_t *size, vta_error *err);
int vta_npy_write(const char *path, const char *descr, int rank, const int64_t *dims,
                  const void *data, vta_error *err);
void vta_npy_free(vta_npy *t);

#endif
