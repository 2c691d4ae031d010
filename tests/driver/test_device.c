/* test_device.c - the device interface: backends by name, clear errors for unknown ones, and
 * host copies that refuse to leave allocated device memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vta/device.h"

static void test_device_open_unknown_backend_lists_built_ones(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_device *d;
  vta_error err;
  assert_int_equal(vta_device_open("fpga9000", &c, NULL, &d, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "unknown backend 'fpga9000'"));
  assert_non_null(strstr(err.msg, "fsim"));
  assert_non_null(vta_backend_find("fsim"));
  assert_null(vta_backend_find("nope"));
}

static void test_device_copies_stay_inside_allocations(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_device *d;
  vta_error err;
  assert_int_equal(vta_device_open("fsim", &c, NULL, &d, &err), VTA_OK);
  uint64_t a;
  assert_int_equal(vta_device_alloc(d, 64, &a, &err), VTA_OK);
  uint8_t buf[128] = {1, 2, 3};
  assert_int_equal(vta_device_copy_to(d, a, buf, 64, &err), VTA_OK);
  assert_int_equal(vta_device_copy_to(d, a, buf, 65, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "outside the allocated device memory"));
  assert_int_equal(vta_device_copy_from(d, buf, a + 1, 64, &err), VTA_ERR_BOUNDS);
  uint8_t *p = vta_device_host_ptr(d, a);
  assert_non_null(p);
  assert_int_equal(p[2], 3);
  uint64_t back;
  assert_int_equal(vta_device_phys_of(d, p + 5, &back), VTA_OK);
  assert_int_equal(back, a + 5);
  assert_int_equal(vta_device_run(d, a, 0, 0, NULL, &err), VTA_ERR_INVALID);
  vta_device_free(d, a);
  vta_device_close(d);
}

static void test_stats_json_has_derived_figures(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_stats s;
  memset(&s, 0, sizeof s);
  s.macs = 256 * 1000;
  s.cycles = 2000;
  s.bytes_read[VTA_MEM_INP] = 10;
  s.bytes_written[VTA_MEM_OUT] = 5;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  vta_stats_print_json(&s, &c, "test", f);
  fclose(f);
  assert_non_null(strstr(buf, "\"compute_bound_cycles\": 1000"));
  assert_non_null(strstr(buf, "\"utilisation\": 0.5000"));
  assert_non_null(strstr(buf, "\"bytes_moved\": 15"));
  assert_non_null(strstr(buf, "\"config\": \"1x16x16\""));
  free(buf);
  vta_stats t = s;
  vta_stats_add(&t, &s);
  assert_int_equal(t.macs, 2 * s.macs);
  assert_int_equal(t.bytes_read[VTA_MEM_INP], 20);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_open_unknown_backend_lists_built_ones),
      cmocka_unit_test(test_device_copies_stay_inside_allocations),
      cmocka_unit_test(test_stats_json_has_derived_figures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
