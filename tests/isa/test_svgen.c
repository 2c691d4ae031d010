/* test_svgen.c - the generated SystemVerilog package says what the configuration's layout says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "isa/svgen.h"
#include "vta/config.h"

static char *package_of(const vta_config *cfg) {
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  assert_non_null(f);
  assert_int_equal(vta_svgen_package(cfg, f, NULL), VTA_OK);
  fclose(f);
  return text;
}

static void expect_param(const char *text, const char *name, long long v) {
  char line[160];
  snprintf(line, sizeof line, "localparam int unsigned %s = %lld;", name, v);
  if (!strstr(text, line)) fail_msg("missing: %s", line);
}

static void test_svgen_field_positions_come_from_the_layout(void **state) {
  const char *paths[] = {"configs/vta_default.json", "configs/block32.json", "configs/batch4.json"};
  for (size_t c = 0; c < sizeof paths / sizeof paths[0]; c++) {
    vta_config cfg;
    vta_error err;
    if (vta_config_load(&cfg, paths[c], &err) != VTA_OK) fail_msg("%s", err.msg);
    char *text = package_of(&cfg);
    vta_field_pos p = cfg.layout[VTA_FMT_GEMM].pos[VTA_F_WGT_FACTOR_IN];
    expect_param(text, "GemmWgtFactorInLsb", p.lsb);
    expect_param(text, "GemmWgtFactorInW", p.width);
    p = cfg.layout[VTA_FMT_UOP].pos[VTA_F_UOP_SRC];
    expect_param(text, "UopSrcLsb", p.lsb);
    expect_param(text, "UopSrcW", p.width);
    expect_param(text, "BlockOut", cfg.block_out);
    expect_param(text, "BusBytes", cfg.bus_bytes);
    expect_param(text, "LogAccDepth", cfg.log_depth[VTA_MEM_ACC]);
    expect_param(text, "WgtElemBytes", cfg.elem_bytes[VTA_MEM_WGT]);
    /* The memory struct lists x_pad_1 (the top field) first and opcode last. */
    const char *s = strstr(text, "typedef struct packed");
    assert_non_null(s);
    const char *top = strstr(s, "x_pad_1;"), *op = strstr(s, "opcode;");
    assert_true(top && op && top < op);
    /* The gap before bit 64 of the memory format is named by its first bit. */
    vta_field_pos d = cfg.layout[VTA_FMT_MEM].pos[VTA_F_DRAM_BASE];
    char gap[64];
    snprintf(gap, sizeof gap, "rsvd_%u;", d.lsb + d.width);
    if (d.lsb + d.width < 64) assert_non_null(strstr(text, gap));
    assert_non_null(strstr(text, "logic signed [15:0] imm;"));
    free(text);
  }
}

static void test_svgen_model_key_names_hardware_values_only(void **state) {
  vta_config a, b;
  vta_config_default(&a);
  b = a;
  b.dram_latency = a.dram_latency + 100;
  b.clock_mhz = a.clock_mhz * 2;
  char ka[160], kb[160];
  vta_svgen_model_key(&a, ka, sizeof ka);
  vta_svgen_model_key(&b, kb, sizeof kb);
  assert_string_equal(ka, kb);
  b = a;
  b.log_bus_width = a.log_bus_width + 1;
  assert_int_equal(vta_config_derive(&b, NULL), VTA_OK);
  vta_svgen_model_key(&b, kb, sizeof kb);
  assert_string_not_equal(ka, kb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_svgen_field_positions_come_from_the_layout),
      cmocka_unit_test(test_svgen_model_key_names_hardware_values_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
