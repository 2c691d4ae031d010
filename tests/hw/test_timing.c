/* test_timing.c - the static timing check of hw/ (scripts/rtl-timing.sh, `make timing-check`).
 *
 * The whole design is measured by `make timing-check` (about 5 to 8 minutes per configuration of
 * the default's size on this machine, docs/hw.md "Timing"); `make test` measures the pipelined
 * GEMM datapath (vta_gemm: operand, product and output registers of the DSP slices and the
 * registered adder tree) on configs/block4.json against the 3.0 ns limit, which fails as soon
 * as a stage loses its register, checks that two products share each DSP slice (the slice
 * count) and that yosys keeps the first level of the adder tree inside the slices (the fabric
 * flip-flop count), the ALU (vta_alu, its three stages and product registers, against the same
 * limit), and
 * that the check itself fails above its limit and refuses bad arguments with a message naming
 * them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

typedef struct run {
  int status;
  char out[65536];
} run;

/* Runs a shell command (standard error joined to standard output) under a timeout. */
static void run_cmd(run *r, const char *fmt, ...) {
  char cmd[2048], full[2300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  snprintf(full, sizeof full, "timeout 1200 %s 2>&1", cmd);
  FILE *p = popen(full, "r");
  assert_non_null(p);
  size_t n = fread(r->out, 1, sizeof r->out - 1, p);
  r->out[n] = 0;
  int st = pclose(p);
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  printf("$ %s\n%s", cmd, r->out);
}

static const char *build_dir(void) {
  const char *b = getenv("VTA_BUILD");
  return b && b[0] ? b : "build";
}

static char outroot[512];

static int setup(void **state) {
  (void)state;
  snprintf(outroot, sizeof outroot, "%s/test-timing", build_dir());
  return 0;
}

/* Measures module `top` alone on configs/block4.json against `limit` ns: the check must pass
 * with a path between 0.5 ns and the limit. Leaves the model key in key. */
static void time_module(run *r, const char *top, double limit, char key[256]) {
  run_cmd(r, "scripts/rtl-timing.sh %s/bin/vta-svgen %.1f %s -top %s configs/block4.json",
          build_dir(), limit, outroot, top);
  assert_int_equal(r->status, 0);
  const char *ok = strstr(r->out, "timing ok");
  assert_non_null(ok);
  double ns = 0;
  assert_int_equal(sscanf(ok, "timing ok %lf", &ns), 1);
  assert_true(ns > 0.5 && ns <= limit);
  assert_non_null(strstr(r->out, "DSP48E1"));
  assert_int_equal(sscanf(ok, "timing ok %*f %255s", key), 1);
  /* The report of every endpoint (scripts/rtl-sta-endpoints.py, its own walk of the netlist
   * with the library's arcs) finds the same latest arrival as yosys' sta. */
  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/%s/timing-%s/endpoints.txt", outroot, key, top);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  const char *latest = strstr(line, "latest ");
  assert_non_null(latest);
  double ep_ns = 0;
  assert_int_equal(sscanf(latest, "latest %lf ns", &ep_ns), 1);
  assert_true(fabs(ep_ns - ns) < 0.006);
}

/* The number of `cell` cells in the resource report of module top (0 if none). */
static long cells(const char *key, const char *top, const char *cell) {
  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/%s/timing-%s/stat.txt", outroot, key, top);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  long n = 0;
  while (fgets(line, sizeof line, f)) {
    char name[64];
    long v;
    if (sscanf(line, " %63s %ld", name, &v) == 2 && strcmp(name, cell) == 0) n = v;
  }
  fclose(f);
  return n;
}

static void test_timing_gemm_datapath_meets_3ns_and_the_check_can_fail(void **state) {
  (void)state;
  run *r = malloc(sizeof *r);
  assert_non_null(r);
  char key[256];
  time_module(r, "vta_gemm", 3.0, key);
  /* What synth_xilinx made of it: BLOCK 4 (1x4x4) has 16 products, two per DSP48E1 (the
   * weights of output channels 2j and 2j+1 share a slice's A operand), so 8 slices; the first
   * tree level inside them (pairs joined by their cascade, P = M + PCIN), so the only fabric
   * flip-flops are the second level's, 2 channel pairs x two 18-bit sums = 72, each channel
   * pair's overflow flag of its first slice pair (nov0_q; the flag's earlier stages are a shift
   * register): 74, and the valid bits behind the clock enables (two from the buffers' read to
   * the operands, four for the stages): 80. Level 1 in fabric adders would add 4 x 2 x 17; one
   * product per slice would need 16 slices; a slice's two operand registers with enables of
   * their own are not inferred as its A1/A2 (B1/B2) pair, which would add 84 fabric
   * flip-flops. */
  assert_int_equal(cells(key, "vta_gemm", "DSP48E1"), 8);
  assert_int_equal(cells(key, "vta_gemm", "FDRE") + cells(key, "vta_gemm", "FDE"), 80);
  /* The same report against a limit below the measured path fails and says so. */
  run_cmd(r,
          "perl scripts/rtl-timing-report.pl %s/%s/timing-vta_gemm/sta.txt "
          "%s/%s/timing-vta_gemm/stat.txt 0.5 %s configs/block4.json vta_gemm 0",
          outroot, key, outroot, key, key);
  assert_int_equal(r->status, 1);
  assert_non_null(strstr(r->out, "timing FAIL"));
  assert_non_null(strstr(r->out, "limit 0.5 ns"));
  free(r);
}

/* The ALU (vta_alu) alone on BLOCK 4, in its three stages behind the operand registers: C2a
 * one LUT behind ADD's and MIN/MAX's carry chains and two kept candidates, the product's three
 * 16 x 16-bit parts in the DSP slices' M (C2a) and P (C2b) registers, their sum in fabric in
 * C2c. It meets 3.0 ns alone (2.91 ns measured on 30 November 2026; 3.27-3.37 inside the whole
 * design, where abc maps the shifter deeper); this fails if a stage loses its registers (the
 * two-stage form with the slices' outputs unregistered measured 3.74 ns, the product without
 * its registers 5.79). */
static void test_timing_alu_meets_3ns_with_its_registers(void **state) {
  (void)state;
  run *r = malloc(sizeof *r);
  assert_non_null(r);
  char key[256];
  time_module(r, "vta_alu", 3.0, key);
  /* Three slices per lane, four lanes. */
  assert_int_equal(cells(key, "vta_alu", "DSP48E1"), 12);
  free(r);
}

static void test_timing_check_refuses_bad_arguments(void **state) {
  (void)state;
  run *r = malloc(sizeof *r);
  assert_non_null(r);
  run_cmd(r, "scripts/rtl-timing.sh %s/bin/vta-svgen 3ns %s configs/block4.json", build_dir(),
          outroot);
  assert_int_equal(r->status, 2);
  assert_non_null(strstr(r->out, "limit '3ns' is not a number"));
  run_cmd(r, "scripts/rtl-timing.sh %s/bin/vta-svgen 3.0 %s configs/no-such.json", build_dir(),
          outroot);
  assert_int_equal(r->status, 2);
  assert_non_null(strstr(r->out, "configs/no-such.json: no such file"));
  run_cmd(r, "scripts/rtl-timing.sh %s/bin/vta-svgen 3.0 %s", build_dir(), outroot);
  assert_int_equal(r->status, 2);
  assert_non_null(strstr(r->out, "no configuration given"));
  free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timing_alu_meets_3ns_with_its_registers),
      cmocka_unit_test(test_timing_check_refuses_bad_arguments),
      cmocka_unit_test(test_timing_gemm_datapath_meets_3ns_and_the_check_can_fail),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
