/* test_sram_map.c - how yosys maps one buffer (hw/rtl/vta_sram.sv) to 7-series block and
 * distributed RAM (docs/hw.md, "Block RAM of the default configuration").
 *
 * vta_sram keeps the bits beyond whole 18 Kb block-RAM halves (Width mod the half's width at
 * the depth) in distributed RAM when there are at most LutMaxBits of them. Each shape here is
 * synthesised alone (synth_xilinx -family xc7, about a minute at most on a loaded machine) and
 * its cells counted: a shape with such bits takes one half less with the split than without
 * it (LutMaxBits 0) and some LUT RAM; a shape whose extra bits exceed the limit, and the ALU's
 * micro-op copy (22 bits x 8192, whole 2-bit halves), take no LUT RAM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

static const char *build_dir(void) {
  const char *b = getenv("VTA_BUILD");
  return b && b[0] ? b : "build";
}

typedef struct cells {
  long halves;  /* RAMB36E1 * 2 + RAMB18E1 */
  long lutram;  /* distributed-RAM cells (RAM32M, RAM64M, RAM128X1D, ...) */
} cells;

/* Synthesises vta_sram with Width w, Depth d, OutReg 1 and LutMaxBits lut_max (-1: the
 * module's default) and counts its memory cells. */
static cells map_sram(int w, int d, long lut_max) {
  char dir[512], stat[700], cmd[2048], lutp[64] = "";
  snprintf(dir, sizeof dir, "%s/test-sram-map", build_dir());
  mkdir(dir, 0777);
  snprintf(stat, sizeof stat, "%s/stat_%d_%d_%ld.txt", dir, w, d, lut_max);
  if (lut_max >= 0) snprintf(lutp, sizeof lutp, " -set LutMaxBits %ld", lut_max);
  snprintf(cmd, sizeof cmd,
           "timeout 600 yosys -q -p 'read_verilog -sv hw/rtl/vta_sram.sv; "
           "chparam -set Width %d -set Depth %d -set OutReg 1%s vta_sram; "
           "synth_xilinx -family xc7 -top vta_sram -flatten -noiopad; tee -q -o %s stat' "
           ">%s.log 2>&1",
           w, d, lutp, stat, stat);
  printf("$ %s\n", cmd);
  int st = system(cmd);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  FILE *f = fopen(stat, "r");
  assert_non_null(f);
  cells c = {0, 0};
  char line[512], name[64];
  long n;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, " %63s %ld", name, &n) != 2) continue;
    if (!strcmp(name, "RAMB36E1"))
      c.halves += 2 * n;
    else if (!strcmp(name, "RAMB18E1"))
      c.halves += n;
    else if (!strncmp(name, "RAM", 3) && strncmp(name, "RAMB", 4))
      c.lutram += n;
  }
  fclose(f);
  printf("  %d x %d (LutMaxBits %ld): %ld block-RAM halves, %ld LUT-RAM cells\n", w, d, lut_max,
         c.halves, c.lutram);
  return c;
}

/* 76 bits x 512: two 36-bit halves and 4 bits beyond them. */
static void test_bits_beyond_whole_halves_go_to_lut_ram(void **state) {
  (void)state;
  cells split = map_sram(76, 512, -1);
  assert_int_equal(split.halves, 2);
  assert_true(split.lutram > 0);
  cells whole = map_sram(76, 512, 0);
  assert_int_equal(whole.halves, 3);
  assert_int_equal(whole.lutram, 0);
}

static void test_no_split_where_it_costs_too_much(void **state) {
  (void)state;
  cells c = map_sram(35, 1024, -1); /* 17 bits x 1024 beyond one half: more than 16 Kb */
  assert_int_equal(c.halves, 2);
  assert_int_equal(c.lutram, 0);
}

/* The ALU's micro-op copy of the default configuration: dst and src (22 bits) x 8192, in
 * 2-bit halves: 11 of them (5.5 RAMB36), no LUT RAM. */
static void test_alu_uop_copy_shape(void **state) {
  (void)state;
  cells c = map_sram(22, 8192, -1);
  assert_int_equal(c.halves, 11);
  assert_int_equal(c.lutram, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bits_beyond_whole_halves_go_to_lut_ram),
      cmocka_unit_test(test_no_split_where_it_costs_too_much),
      cmocka_unit_test(test_alu_uop_copy_shape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
