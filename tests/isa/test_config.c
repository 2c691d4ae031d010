/* test_config.c - configurations: defaults and derived values, every shipped config, legacy
 * keys, and every kind of invalid input refused with a message naming the key or position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vta/config.h"

static void test_config_default_derives_isa_values(void **state) {
  vta_config c;
  vta_config_default(&c);
  assert_int_equal(c.batch, 1);
  assert_int_equal(c.block_in, 16);
  assert_int_equal(c.elem_bytes[VTA_MEM_INP], 16);
  assert_int_equal(c.elem_bytes[VTA_MEM_WGT], 256);
  assert_int_equal(c.elem_bytes[VTA_MEM_ACC], 64);
  assert_int_equal(c.elem_bytes[VTA_MEM_OUT], 16);
  assert_int_equal(c.elem_bytes[VTA_MEM_ACC_8BIT], 16);
  assert_int_equal(c.depth[VTA_MEM_UOP], 8192);
  assert_int_equal(c.depth[VTA_MEM_INP], 2048);
  assert_int_equal(c.depth[VTA_MEM_WGT], 1024);
  assert_int_equal(c.depth[VTA_MEM_ACC], 2048);
  assert_int_equal(c.depth[VTA_MEM_OUT], 2048);
  assert_int_equal(c.log_out_buff_size, 15);
  assert_int_equal(c.macs_per_cycle, 256);
}

static void test_config_shipped_files_load(void **state) {
  const char *files[] = {"vta_default", "pynq", "ultra96", "zcu104", "de10nano", "batch4",
                         "block32", "block8", "small", "block4", "legacy"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[128];
    snprintf(path, sizeof path, "configs/%s.json", files[i]);
    vta_config c;
    vta_error err;
    int rc = vta_config_load(&c, path, &err);
    if (rc) fail_msg("%s", err.msg);
  }
  vta_config d, l;
  vta_config_default(&d);
  assert_int_equal(vta_config_load(&l, "configs/legacy.json", NULL), VTA_OK);
  assert_memory_equal(d.layout, l.layout, sizeof d.layout);
  vta_config b;
  assert_int_equal(vta_config_load(&b, "configs/batch4.json", NULL), VTA_OK);
  assert_int_equal(b.batch, 4);
  assert_int_equal(b.elem_bytes[VTA_MEM_ACC], 256);
  assert_int_equal(vta_config_load(&b, "configs/ultra96.json", NULL), VTA_OK);
  assert_int_equal(b.bus_bytes, 16);
}

/* Each invalid text must be refused, and the message must contain the given words. */
static void test_config_rejects_invalid_input_naming_the_problem(void **state) {
  const struct { const char *json, *words; } cases[] = {
      {"{\"LOG_BLOCK\": 4,, }", "t.json:1:18"},
      {"", "malformed"},
      {"[1, 2]", "JSON object"},
      {"{\"LOG_BLOK\": 4}", "unknown key \"LOG_BLOK\""},
      {"{\"LOG_BLOCK\": \"4\"}", "LOG_BLOCK must be a number"},
      {"{\"LOG_BLOCK\": 4.5}", "LOG_BLOCK = 4.5 must be an integer"},
      {"{\"LOG_BLOCK\": 9}", "LOG_BLOCK = 9 is out of range"},
      {"{\"LOG_BATCH\": -1}", "LOG_BATCH = -1 is out of range"},
      {"{\"LOG_INP_WIDTH\": 4}", "LOG_INP_WIDTH = 4 is not supported"},
      {"{\"LOG_BLOCK\": 4, \"LOG_BLOCK\": 3}", "appears twice"},
      {"{\"TARGET\": 3}", "TARGET must be a string"},
      {"{\"LOG_ACC_BUFF_SIZE\": 18}", "wgt_factor_in"},
      {"{\"LOG_INP_BUFF_SIZE\": 4}", "LOG_INP_BUFF_SIZE = 4 holds fewer than 2"},
      {"{\"LOG_UOP_BUFF_SIZE\": 20}", "LOG_UOP_BUFF_SIZE = 20 gives 18-bit"},
      {"{\"LOG_OUT_BUFF_SIZE\": 14}", "LOG_OUT_BUFF_SIZE = 14 disagrees"},
      {"{\"LOG_BUS_WIDTH\": 11}", "LOG_BUS_WIDTH = 11 is out of range"},
      {"{\"CLOCK_MHZ\": 0}", "CLOCK_MHZ = 0 is out of range"},
      {"{\"HW_VER\": \"9.9\"}", "HW_VER \"9.9\" is not supported"},
      {"{\"LOG_BLOCK_IN\": 6, \"LOG_WGT_BUFF_SIZE\": 26}", "no longer fits"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vta_config c;
    vta_error err;
    memset(&err, 0, sizeof err);
    int rc = vta_config_parse(&c, cases[i].json, "t.json", &err);
    if (rc != VTA_ERR_INVALID) fail_msg("accepted: %s", cases[i].json);
    if (!strstr(err.msg, cases[i].words))
      fail_msg("for %s: message \"%s\" lacks \"%s\"", cases[i].json, err.msg, cases[i].words);
  }
}

static void test_config_load_reports_missing_file(void **state) {
  vta_config c;
  vta_error err;
  assert_int_equal(vta_config_load(&c, "configs/no-such.json", &err), VTA_ERR_IO);
  assert_non_null(strstr(err.msg, "configs/no-such.json"));
}

static void test_config_json_output_parses_back(void **state) {
  vta_config c, d;
  assert_int_equal(vta_config_load(&c, "configs/block32.json", NULL), VTA_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  vta_config_print_json(&c, f);
  fclose(f);
  /* The JSON has a "derived" member, which is not a key: strip it to read the keys back. */
  char *derived = strstr(buf, ",\n \"derived\"");
  assert_non_null(derived);
  strcpy(derived, "}");
  vta_error err;
  int rc = vta_config_parse(&d, buf, "printed", &err);
  if (rc) fail_msg("%s", err.msg);
  assert_memory_equal(c.layout, d.layout, sizeof c.layout);
  assert_int_equal(c.block_in, d.block_in);
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_config_default_derives_isa_values),
      cmocka_unit_test(test_config_shipped_files_load),
      cmocka_unit_test(test_config_rejects_invalid_input_naming_the_problem),
      cmocka_unit_test(test_config_load_reports_missing_file),
      cmocka_unit_test(test_config_json_output_parses_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
