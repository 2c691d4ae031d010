/* test_mem.c - simulated DRAM: allocation, fixed claims, bounds checks and translation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim/mem/mem.h"

static void test_mem_alloc_never_returns_zero_and_aligns(void **state) {
  vta_mem *m;
  assert_int_equal(vta_mem_create(1 << 24, &m, NULL), VTA_OK);
  uint64_t a, b;
  assert_int_equal(vta_mem_alloc(m, 100, &a, NULL), VTA_OK);
  assert_int_equal(vta_mem_alloc(m, 5000, &b, NULL), VTA_OK);
  assert_true(a != 0 && a % VTA_MEM_ALIGN == 0 && b % VTA_MEM_ALIGN == 0);
  assert_true(b >= a + 100);
  uint8_t *p = vta_mem_ptr(m, b);
  for (int i = 0; i < 5000; i++) assert_int_equal(p[i], 0);
  uint64_t back;
  assert_int_equal(vta_mem_phys(m, p + 7, &back), VTA_OK);
  assert_int_equal(back, b + 7);
  vta_mem_destroy(m);
}

static void test_mem_check_accepts_only_allocated_ranges(void **state) {
  vta_mem *m;
  assert_int_equal(vta_mem_create(1 << 24, &m, NULL), VTA_OK);
  uint64_t a, b;
  vta_mem_alloc(m, 100, &a, NULL);
  vta_mem_alloc(m, 100, &b, NULL);
  assert_true(vta_mem_check(m, a, 100));
  assert_true(vta_mem_check(m, a + 99, 1));
  assert_false(vta_mem_check(m, a + 99, 2)); /* past the end, even though the page is there */
  assert_false(vta_mem_check(m, a - 1, 1));
  assert_true(vta_mem_check(m, b, 100));
  assert_false(vta_mem_check(m, a, b - a + 1)); /* spans two allocations */
  assert_false(vta_mem_check(m, 0, 1));
  char buf[128];
  vta_mem_describe(m, a + 100, buf, sizeof buf);
  assert_non_null(strstr(buf, "past the end"));
  assert_int_equal(vta_mem_free(m, a), VTA_OK);
  assert_false(vta_mem_check(m, a, 1));
  assert_int_equal(vta_mem_free(m, a), VTA_ERR_INVALID);
  vta_mem_destroy(m);
}

static void test_mem_alloc_at_claims_exact_range_and_refuses_overlap(void **state) {
  vta_mem *m;
  vta_error err;
  assert_int_equal(vta_mem_create(1 << 24, &m, NULL), VTA_OK);
  assert_int_equal(vta_mem_alloc_at(m, 0, 10000, &err), VTA_OK);
  assert_true(vta_mem_check(m, 0, 10000));
  assert_int_equal(vta_mem_alloc_at(m, 8192, 10, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "overlaps"));
  assert_int_equal(vta_mem_alloc_at(m, 100, 10, &err), VTA_ERR_INVALID); /* unaligned */
  assert_int_equal(vta_mem_alloc_at(m, 1 << 24, 10, &err), VTA_ERR_NOMEM);
  uint64_t a;
  assert_int_equal(vta_mem_alloc(m, 10, &a, NULL), VTA_OK);
  assert_true(a >= 12288); /* after the fixed claim */
  vta_mem_destroy(m);
}

static void test_mem_reports_exhaustion(void **state) {
  vta_mem *m;
  vta_error err;
  assert_int_equal(vta_mem_create(1 << 16, &m, NULL), VTA_OK);
  uint64_t a, b;
  int too_big = vta_mem_alloc(m, 1 << 20, &a, &err);
  int first = vta_mem_alloc(m, 40000, &a, NULL);
  int second = vta_mem_alloc(m, 40000, &b, &err);
  vta_mem_destroy(m);
  assert_int_equal(too_big, VTA_ERR_NOMEM);
  assert_int_equal(first, VTA_OK);
  assert_int_equal(second, VTA_ERR_NOMEM);
  assert_non_null(strstr(err.msg, "no free range"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mem_alloc_never_returns_zero_and_aligns),
      cmocka_unit_test(test_mem_check_accepts_only_allocated_ranges),
      cmocka_unit_test(test_mem_alloc_at_claims_exact_range_and_refuses_overlap),
      cmocka_unit_test(test_mem_reports_exhaustion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
