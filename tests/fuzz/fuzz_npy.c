/* fuzz_npy.c - .npy tensors (host/npy.c): parse; a tensor that parses must encode and parse
 * back to the same type, shape and bytes. */
#include "fuzz/fuzz.h"

#include "host/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vta_npy t;
  vta_error err;
  if (vta_npy_parse(data, size, "fuzz.npy", &t, &err) != VTA_OK) return 0;
  unsigned char *b = NULL;
  size_t n = 0;
  int64_t dims[VTA_NPY_MAX_RANK];
  for (int d = 0; d < t.rank; d++) dims[d] = t.dims[d];
  FUZZ_CHECK(vta_npy_encode(t.descr, t.rank, dims, t.data, &b, &n, &err) == VTA_OK, "%s", err.msg);
  vta_npy u;
  FUZZ_CHECK(vta_npy_parse(b, n, "encoded", &u, &err) == VTA_OK, "%s", err.msg);
  FUZZ_CHECK(strcmp(u.descr, t.descr) == 0 && u.rank == t.rank && u.count == t.count &&
             memcmp(u.data, t.data, t.count * t.elem_size) == 0, "the round trip differs");
  vta_npy_free(&u);
  free(b);
  vta_npy_free(&t);
  return 0;
}
