/* test_npy.c - the .npy reader and writer (host/npy.c): round trips of every element type and
 * rank, the header forms numpy writes (versions 1.0, 2.0, 3.0, 64-byte alignment), and each
 * refusal naming the file and the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/npy.h"

/* A .npy file with the given header dict (padded as numpy pads it) and data bytes. */
static unsigned char *make_npy(int major, const char *dict, const void *data, size_t dbytes,
                               size_t *size) {
  size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
  size_t hl = ((pre + dl + 1 + 63) / 64) * 64 - pre;
  unsigned char *b = malloc(pre + hl + dbytes + 1);
  assert_non_null(b);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = 0;
  if (major == 1) {
    b[8] = (unsigned char)hl;
    b[9] = (unsigned char)(hl >> 8);
  } else {
    for (int i = 0; i < 4; i++) b[8 + i] = (unsigned char)(hl >> (8 * i));
  }
  memcpy(b + pre, dict, dl);
  memset(b + pre + dl, ' ', hl - dl - 1);
  b[pre + hl - 1] = '\n';
  if (dbytes) memcpy(b + pre + hl, data, dbytes);
  *size = pre + hl + dbytes;
  return b;
}

static void expect_error(const unsigned char *b, size_t n, const char *needle) {
  vta_npy t;
  vta_error err = {0};
  assert_int_not_equal(vta_npy_parse(b, n, "x.npy", &t, &err), 0);
  if (!strstr(err.msg, needle) || !strstr(err.msg, "x.npy"))
    fail_msg("expected \"%s\" (and the file name) in: %s", needle, err.msg);
  assert_null(t.data);
}

static void test_npy_round_trip_every_type(void **state) {
  (void)state;
  static const struct {
    const char *descr;
    size_t size;
  } kinds[] = {{"<f4", 4}, {"<f8", 8}, {"<i8", 8}, {"<i4", 4}, {"|i1", 1}, {"|u1", 1}, {"|b1", 1}};
  unsigned char data[2 * 3 * 8];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 37 + 1);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    int64_t dims[2] = {2, 3};
    unsigned char *b;
    size_t n;
    vta_error err = {0};
    assert_int_equal(vta_npy_encode(kinds[k].descr, 2, dims, data, &b, &n, &err), 0);
    /* numpy's layout: the data starts on a 64-byte boundary, the header ends in a newline. */
    size_t hl = b[8] | (size_t)b[9] << 8;
    assert_int_equal((10 + hl) % 64, 0);
    assert_int_equal(b[10 + hl - 1], '\n');
    vta_npy t;
    assert_int_equal(vta_npy_parse(b, n, "mem", &t, &err), 0);
    assert_string_equal(t.descr, kinds[k].descr);
    assert_int_equal(t.rank, 2);
    assert_int_equal(t.dims[0], 2);
    assert_int_equal(t.dims[1], 3);
    assert_int_equal(t.count, 6);
    assert_int_equal(t.elem_size, kinds[k].size);
    assert_memory_equal(t.data, data, 6 * kinds[k].size);
    vta_npy_free(&t);
    free(b);
  }
}

static void test_npy_round_trip_ranks_and_files(void **state) {
  (void)state;
  char path[] = "/tmp/vta_npy_test.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  float v[24];
  for (int i = 0; i < 24; i++) v[i] = (float)i * 0.5f - 3;
  /* Rank 0 (a scalar), rank 1 (numpy writes "(4,)"), rank 4, and an empty array. */
  static const int64_t shapes[4][4] = {{0}, {4}, {1, 2, 3, 4}, {2, 0}};
  static const int ranks[4] = {0, 1, 4, 2};
  static const size_t counts[4] = {1, 4, 24, 0};
  for (int s = 0; s < 4; s++) {
    vta_error err = {0};
    assert_int_equal(vta_npy_write(path, "<f4", ranks[s], shapes[s], v, &err), 0);
    vta_npy t;
    assert_int_equal(vta_npy_read(path, &t, &err), 0);
    assert_int_equal(t.rank, ranks[s]);
    assert_int_equal(t.count, counts[s]);
    for (int d = 0; d < ranks[s]; d++) assert_int_equal(t.dims[d], shapes[s][d]);
    if (counts[s]) assert_memory_equal(t.data, v, counts[s] * sizeof(float));
    vta_npy_free(&t);
  }
  unlink(path);
}

static void test_npy_reads_versions_2_and_3(void **state) {
  (void)state;
  int32_t v[3] = {7, -8, 9};
  for (int major = 2; major <= 3; major++) {
    size_t n;
    unsigned char *b = make_npy(major, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", v,
                                sizeof v, &n);
    vta_npy t;
    vta_error err = {0};
    assert_int_equal(vta_npy_parse(b, n, "v.npy", &t, &err), 0);
    assert_int_equal(t.count, 3);
    assert_memory_equal(t.data, v, sizeof v);
    vta_npy_free(&t);
    free(b);
  }
}

static void test_npy_refuses_what_it_cannot_read(void **state) {
  (void)state;
  float v[4] = {1, 2, 3, 4};
  size_t n;
  unsigned char *b;
  /* Not a .npy file at all. */
  expect_error((const unsigned char *)"PK\003\004 a zip file", 18, "not a .npy file");
  /* A future format version. */
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", v, sizeof v, &n);
  b[6] = 4;
  expect_error(b, n, "version 4.0");
  /* A header length running past the end of the file. */
  b[6] = 1;
  expect_error(b, 40, "runs past the end");
  free(b);
  /* Big-endian and object arrays. */
  b = make_npy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", v, sizeof v, &n);
  expect_error(b, n, "'>f4' is not supported");
  free(b);
  b = make_npy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (4,), }", v, sizeof v, &n);
  expect_error(b, n, "'|O' is not supported");
  free(b);
  /* Fortran order. */
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", v, sizeof v, &n);
  expect_error(b, n, "only C-order");
  free(b);
  /* Data shorter than the shape says. */
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", v, sizeof v, &n);
  expect_error(b, n, "truncated: the shape needs 20 data bytes, the file has 16");
  free(b);
  /* A shape that is not a tuple of sizes, too many dimensions, a size that overflows. */
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", v, sizeof v, &n);
  expect_error(b, n, "bad shape");
  free(b);
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", v,
               sizeof v, &n);
  expect_error(b, n, "more than 8 dimensions");
  free(b);
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", v,
               sizeof v, &n);
  expect_error(b, n, "above the limit of 16777216 per dimension (VTA_LIMIT_DIM)");
  free(b);
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (16777216, 16777216, "
               "16777216, 16777216), }", v, sizeof v, &n);
  expect_error(b, n, "overflows");
  free(b);
  b = make_npy(1, "{'descr': '<f4', 'fortran_order': False}", v, sizeof v, &n);
  expect_error(b, n, "no shape");
  free(b);
}

static void test_npy_file_errors_name_the_file(void **state) {
  (void)state;
  vta_npy t;
  vta_error err = {0};
  assert_int_not_equal(vta_npy_read("/nonexistent/x.npy", &t, &err), 0);
  assert_non_null(strstr(err.msg, "/nonexistent/x.npy: cannot open"));
  assert_int_not_equal(vta_npy_read("/tmp", &t, &err), 0);
  assert_non_null(strstr(err.msg, "/tmp: cannot read"));
  int64_t d[1] = {1};
  float v = 1;
  assert_int_not_equal(vta_npy_write("/nonexistent/y.npy", "<f4", 1, d, &v, &err), 0);
  assert_non_null(strstr(err.msg, "/nonexistent/y.npy"));
  unsigned char *b;
  size_t n;
  assert_int_not_equal(vta_npy_encode("<c8", 1, d, &v, &b, &n, &err), 0);
  assert_non_null(strstr(err.msg, "'<c8' cannot be written"));
  assert_int_not_equal(vta_npy_encode("<f4", 9, d, &v, &b, &n, &err), 0);
  assert_non_null(strstr(err.msg, "rank 9"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_npy_round_trip_every_type),
      cmocka_unit_test(test_npy_round_trip_ranks_and_files),
      cmocka_unit_test(test_npy_reads_versions_2_and_3),
      cmocka_unit_test(test_npy_refuses_what_it_cannot_read),
      cmocka_unit_test(test_npy_file_errors_name_the_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
