/* test_regmap.c - the control register table and everything generated from it agree: the
 * SystemVerilog constants, Vitis' kernel.xml, the xclbin metadata and the table of docs/hw.md. */
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
#include "vta/regmap.h"

typedef int (*gen_fn)(const vta_config *cfg, FILE *out, vta_error *err);

static char *text_of(const vta_config *cfg, gen_fn fn) {
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  assert_non_null(f);
  vta_error err;
  if (fn(cfg, f, &err) != VTA_OK) fail_msg("%s", err.msg);
  fclose(f);
  return text;
}

static int xclbin_xml(const vta_config *cfg, FILE *out, vta_error *err) {
  return vta_regmap_xclbin_xml(cfg, "test_platform", out, err);
}

static void test_regmap_follows_the_vitis_conventions(void **state) {
  (void)state;
  assert_int_equal(VTA_REG_OFFSET_CTRL, 0x00);
  assert_int_equal(VTA_REG_OFFSET_GIE, 0x04);
  assert_int_equal(VTA_REG_OFFSET_IER, 0x08);
  assert_int_equal(VTA_REG_OFFSET_ISR, 0x0C);
  assert_int_equal(VTA_CTRL_AP_START, 1u << 0);
  assert_int_equal(VTA_CTRL_AP_DONE, 1u << 1);
  assert_int_equal(VTA_CTRL_AP_IDLE, 1u << 2);
  assert_int_equal(VTA_CTRL_AP_READY, 1u << 3);
  assert_int_equal(VTA_CTRL_AUTO_RESTART, 1u << 7);
  /* Arguments from 0x10, in order; a 64-bit register is aligned to 8 bytes (low word first). */
  uint32_t next = 0x10;
  int args = 0;
  for (int r = 0; r < VTA_REG_COUNT; r++) {
    const vta_reg_info *g = &vta_regs[r];
    assert_true(g->bits == 32 || g->bits == 64);
    assert_int_equal(g->offset % (g->bits / 8), 0);
    assert_true(g->offset + g->bits / 8 <= 0x100); /* the slave decodes 8 address bits */
    if (g->kind == VTA_REGK_ARG) {
      assert_true(g->offset >= next);
      next = g->offset + g->bits / 8;
      args++;
    }
    /* No two registers overlap. */
    for (int q = 0; q < r; q++) {
      const vta_reg_info *h = &vta_regs[q];
      int disjoint = g->offset + g->bits / 8 <= h->offset || h->offset + h->bits / 8 <= g->offset;
      if (!disjoint) fail_msg("registers %s and %s overlap", g->name, h->name);
    }
  }
  assert_int_equal(args, VTA_ARG_COUNT);
  assert_string_equal(vta_regs[VTA_REG_INSN_ADDR].name, "insn_addr");
  assert_true(vta_regs[VTA_REG_INSN_ADDR].is_pointer);
}

static void test_regmap_sv_constants_come_from_the_table(void **state) {
  (void)state;
  vta_config cfg;
  vta_config_default(&cfg);
  char *pkg = text_of(&cfg, vta_svgen_package);
  char line[160];
  snprintf(line, sizeof line, "localparam logic [7:0] RegInsnAddr = 8'h%02X;",
           VTA_REG_OFFSET_INSN_ADDR);
  assert_non_null(strstr(pkg, line));
  snprintf(line, sizeof line, "localparam logic [7:0] RegConfigId = 8'h%02X;",
           VTA_REG_OFFSET_CONFIG_ID);
  assert_non_null(strstr(pkg, line));
  snprintf(line, sizeof line, "localparam int unsigned NumCounters = %d;", VTA_CNT_COUNT);
  assert_non_null(strstr(pkg, line));
  snprintf(line, sizeof line, "localparam logic [31:0] ConfigId = 32'h%08X;",
           vta_regmap_config_id(&cfg));
  assert_non_null(strstr(pkg, line));
  /* Counter 0 is the last entry of the packed offsets. */
  snprintf(line, sizeof line, "8'h%02X};", VTA_REG_OFFSET_CYCLES);
  assert_non_null(strstr(pkg, line));
  free(pkg);
}

static void test_regmap_kernel_xml_names_ports_args_and_bus_width(void **state) {
  (void)state;
  const char *paths[] = {"configs/vta_default.json", "sim/rtl/configs/rtl_wide.json"};
  for (size_t c = 0; c < 2; c++) {
    vta_config cfg;
    vta_error err;
    if (vta_config_load(&cfg, paths[c], &err) != VTA_OK) fail_msg("%s", err.msg);
    char *x = text_of(&cfg, vta_regmap_kernel_xml);
    char want[200];
    snprintf(want, sizeof want,
             "<port name=\"m_axi_gmem\" mode=\"master\" "
             "range=\"0xFFFFFFFFFFFFFFFF\" dataWidth=\"%u\"",
             cfg.bus_bytes * 8);
    if (!strstr(x, want)) fail_msg("%s: missing %s in\n%s", paths[c], want, x);
    assert_non_null(strstr(x, "hwControlProtocol=\"ap_ctrl_hs\""));
    assert_non_null(strstr(x, "<port name=\"s_axi_control\" mode=\"slave\" range=\"0x1000\""));
    assert_non_null(strstr(x,
                           "name=\"insn_count\" addressQualifier=\"0\" id=\"0\" "
                           "port=\"s_axi_control\" size=\"0x4\" offset=\"0x10\""));
    assert_non_null(strstr(x,
                           "name=\"insn_addr\" addressQualifier=\"1\" id=\"1\" "
                           "port=\"m_axi_gmem\" size=\"0x8\" offset=\"0x18\""));
    free(x);
    char *p = text_of(&cfg, xclbin_xml);
    char key[160];
    vta_svgen_model_key(&cfg, key, sizeof key);
    snprintf(want, sizeof want, "vtaConfig=\"%s\"", key);
    assert_non_null(strstr(p, want));
    assert_non_null(strstr(p, "<project name=\"vta\">"));
    assert_non_null(strstr(p, "port=\"M_AXI_GMEM\" size=\"0x8\" offset=\"0x18\""));
    free(p);
  }
}

static void test_regmap_config_id_tells_configurations_apart(void **state) {
  (void)state;
  vta_config a, b;
  vta_error err;
  vta_config_default(&a);
  if (vta_config_load(&b, "sim/rtl/configs/rtl_wide.json", &err) != VTA_OK) fail_msg("%s", err.msg);
  assert_int_not_equal(vta_regmap_config_id(&a), vta_regmap_config_id(&b));
  vta_config c = a;
  c.dram_latency = 7; /* not part of the hardware */
  assert_int_equal(vta_regmap_config_id(&a), vta_regmap_config_id(&c));
}

static void test_regmap_docs_carry_the_generated_table(void **state) {
  (void)state;
  char *tab = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&tab, &n);
  vta_regmap_markdown(f);
  fclose(f);
  FILE *d = fopen("docs/hw.md", "rb");
  assert_non_null(d);
  static char doc[1 << 20];
  size_t len = fread(doc, 1, sizeof doc - 1, d);
  fclose(d);
  doc[len] = '\0';
  if (!strstr(doc, tab))
    fail_msg(
        "docs/hw.md does not carry the generated register table; replace it with the "
        "output of `build/bin/vta-svgen --regmap-md`:\n%s",
        tab);
  free(tab);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_regmap_follows_the_vitis_conventions),
      cmocka_unit_test(test_regmap_sv_constants_come_from_the_table),
      cmocka_unit_test(test_regmap_kernel_xml_names_ports_args_and_bus_width),
      cmocka_unit_test(test_regmap_config_id_tells_configurations_apart),
      cmocka_unit_test(test_regmap_docs_carry_the_generated_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
