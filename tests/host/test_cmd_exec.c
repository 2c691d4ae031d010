/* test_cmd_exec.c - `vta exec` end to end: a small program written as assembler text (load
 * micro-ops, INP and WGT; GEMM with reset and accumulate over two loop levels; ALU add, shift,
 * min and max; STORE; the closing dependency handshake; FINISH) runs on a memory image made here,
 * and the saved image is compared with the same computation done in C. Then the failures: a
 * deadlock, DMA outside the image, an SRAM index out of range and a timeout exit 1 and write
 * nothing; bad command lines exit 2. The same program and the failures found before a run also
 * go through `--backend rtl` (the Verilator model of hw/): its saved image must be bit-identical
 * to fsim's. Runs the real binary as a subprocess (see cli_run.h).
 */
#include "host/cli_run.h"

#include <cJSON.h>

#include "vta/config.h"
#include "vta/isa.h"

/* Image layout (byte offsets from the image start; the default 1x16x16 configuration). */
enum {
  IMG_SIZE = 2048,
  UOP_OFF = 0,     /* 3 micro-ops, 4 bytes each */
  INP_OFF = 256,   /* 2 input rows x[i][16], 16 bytes each */
  WGT_OFF = 512,   /* 2 weight tiles W[t][16][16], 256 bytes each */
  OUT_OFF = 1024,  /* 4 output rows, 16 bytes each */
  OUT_ROWS = 4,
  FILL = 0xA5      /* every byte the program must not touch */
};

/* The program of the header comment, for an image at physical address base. The dram_base
 * fields count elements of each memory type: 4-byte micro-ops, 16-byte INP/OUT rows,
 * 256-byte WGT tiles. */
static void make_prog(char *buf, size_t n, uint64_t base) {
  snprintf(
      buf, n,
      "# GEMM of 2 inputs by 2 weight tiles, then out = clip((2*acc) >> 3, -128, 127)\n"
      "load memory_type=uop sram_base=0 dram_base=%llu y_size=1 x_size=3 x_stride=3\n"
      "load memory_type=inp sram_base=0 dram_base=%llu y_size=1 x_size=2 x_stride=2\n"
      "load memory_type=wgt sram_base=0 dram_base=%llu y_size=1 x_size=2 x_stride=2 push_next\n"
      "gemm reset_reg uop_bgn=0 uop_end=2 iter_out=2 iter_in=1 dst_factor_out=2 "
      "src_factor_out=1 pop_prev\n"
      "gemm uop_bgn=0 uop_end=2 iter_out=2 iter_in=1 dst_factor_out=2 src_factor_out=1\n"
      "alu alu_opcode=add uop_bgn=2 uop_end=3 iter_out=1 iter_in=4 dst_factor_in=1 "
      "src_factor_in=1\n"
      "alu alu_opcode=shr uop_bgn=2 uop_end=3 iter_out=1 iter_in=4 dst_factor_in=1 use_imm "
      "imm=3\n"
      "alu alu_opcode=min uop_bgn=2 uop_end=3 iter_out=1 iter_in=4 dst_factor_in=1 use_imm "
      "imm=127\n"
      "alu alu_opcode=max uop_bgn=2 uop_end=3 iter_out=1 iter_in=4 dst_factor_in=1 use_imm "
      "imm=-128 push_next\n"
      "store memory_type=out sram_base=0 dram_base=%llu y_size=1 x_size=4 x_stride=4 pop_prev "
      "push_prev\n"
      "load memory_type=uop pop_next   # compute waits for the store before FINISH\n"
      "finish\n",
      (unsigned long long)((base + UOP_OFF) / 4), (unsigned long long)((base + INP_OFF) / 16),
      (unsigned long long)((base + WGT_OFF) / 256), (unsigned long long)((base + OUT_OFF) / 16));
}
#define PROG_INSNS 12
#define PROG_MACS (4 * 256) /* 4 accumulating micro-op executions of 16x16 MACs */

/* Builds the input image and the expected image after the run. */
static void make_images(uint8_t *img, uint8_t *want) {
  vta_config cfg;
  vta_uop uops[3] = {{0, 0, 0}, {1, 0, 1}, {0, 0, 0}};
  int8_t x[2][16], w[2][16][16];
  uint32_t seed = 12345;
  int clipped = 0, exact = 0;
  vta_config_default(&cfg);
  memset(img, FILL, IMG_SIZE);
  for (int k = 0; k < 3; k++) {
    uint32_t word;
    assert_int_equal(vta_uop_encode(&cfg, &uops[k], &word, NULL), VTA_OK);
    for (int b = 0; b < 4; b++)
      img[UOP_OFF + 4 * k + b] = (uint8_t)(word >> (8 * b));
  }
  for (int i = 0; i < 2; i++)
    for (int c = 0; c < 16; c++) {
      seed = seed * 1103515245u + 12345u;
      x[i][c] = (int8_t)(seed >> 16);
      img[INP_OFF + 16 * i + c] = (uint8_t)x[i][c];
    }
  for (int t = 0; t < 2; t++)
    for (int o = 0; o < 16; o++)
      for (int c = 0; c < 16; c++) {
        seed = seed * 1103515245u + 12345u;
        w[t][o][c] = (int8_t)((int)(seed >> 16) % 23 - 11);
        img[WGT_OFF + 256 * t + 16 * o + c] = (uint8_t)w[t][o][c];
      }
  memcpy(want, img, IMG_SIZE);
  /* ACC[2i + t] = x[i] . W[t]^T (micro-op t, outer loop i); OUT row r = ACC[r]. */
  for (int i = 0; i < 2; i++)
    for (int t = 0; t < 2; t++)
      for (int o = 0; o < 16; o++) {
        int32_t acc = 0;
        for (int c = 0; c < 16; c++)
          acc += (int32_t)x[i][c] * w[t][o][c];
        acc = (acc + acc) >> 3; /* arithmetic shift, as gcc does for int32_t */
        if (acc > 127 || acc < -128)
          clipped++;
        else
          exact++;
        acc = acc > 127 ? 127 : acc < -128 ? -128 : acc;
        want[OUT_OFF + 16 * (2 * i + t) + o] = (uint8_t)(int8_t)acc;
      }
  /* The data must exercise both the clip and the exact path, or the check proves little. */
  assert_true(clipped > 0 && exact > 0);
}

static void assert_image(const char *path, const uint8_t *want) {
  size_t n = 0;
  uint8_t *got = (uint8_t *)cli_slurp(path, &n);
  assert_non_null(got);
  assert_int_equal(n, IMG_SIZE);
  for (size_t i = 0; i < IMG_SIZE; i++)
    if (got[i] != want[i])
      fail_msg("%s: byte %zu is 0x%02x, expected 0x%02x", path, i, got[i], want[i]);
  free(got);
}

/* Parses one JSON line of statistics and returns the number under key. */
static double stat_of(const char *line, const char *key) {
  cJSON *root = cJSON_Parse(line), *v;
  double x;
  if (!root)
    fail_msg("statistics are not JSON:\n%s", line);
  v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!cJSON_IsNumber(v))
    fail_msg("statistics have no number \"%s\":\n%s", key, line);
  x = v->valuedouble;
  cJSON_Delete(root);
  return x;
}

static void assert_one_json_line(const char *text) {
  size_t n = strlen(text);
  assert_true(n > 2);
  assert_int_equal(text[0], '{');
  assert_int_equal(text[n - 1], '\n');
  assert_ptr_equal(strchr(text, '\n'), text + n - 1);
}

static void test_exec_gemm_alu_matches_c(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "p.s"), *m = cli_tmp_path(t, 1, "mem.bin");
  const char *o = cli_tmp_path(t, 2, "out.bin");
  static uint8_t img[IMG_SIZE], want[IMG_SIZE];
  char prog[4096];
  cli_result r;
  make_prog(prog, sizeof prog, 0);
  make_images(img, want);
  cli_spit_text(s, prog);
  cli_spit(m, img, IMG_SIZE);
  CLI_RUN(&r, "exec", s, "--mem", m, "--out", o);
  CLI_ASSERT_STATUS(&r, 0);
  assert_image(o, want);
  assert_one_json_line(r.out);
  assert_true(stat_of(r.out, "insns") == PROG_INSNS);
  assert_true(stat_of(r.out, "macs") == PROG_MACS);
  /* The input image is not modified in place. */
  assert_image(m, img);
  cli_result_free(&r);
}

static void test_exec_binary_program_at_nonzero_base(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "p.s"), *b = cli_tmp_path(t, 1, "p.bin");
  const char *m = cli_tmp_path(t, 2, "mem.bin"), *o = cli_tmp_path(t, 3, "out.bin");
  const char *st = cli_tmp_path(t, 4, "stats.json");
  static uint8_t img[IMG_SIZE], want[IMG_SIZE];
  const uint64_t base = 0x200000;
  char prog[4096], *stats;
  cli_result r;
  make_prog(prog, sizeof prog, base);
  make_images(img, want);
  cli_spit_text(s, prog);
  cli_spit(m, img, IMG_SIZE);
  CLI_RUN(&r, "asm", s, "-o", b);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  CLI_RUN(&r, "exec", b, "--mem", m, "--base", "0x200000", "--out", o, "--stats", st,
          "--backend", "fsim", "--timeout", "1000");
  CLI_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, ""); /* the statistics went to the file */
  assert_image(o, want);
  stats = cli_slurp(st, NULL);
  assert_non_null(stats);
  assert_one_json_line(stats);
  assert_true(stat_of(stats, "insns") == PROG_INSNS);
  free(stats);
  cli_result_free(&r);
}

/* The rtl backend runs the same program at a non-zero base: both saved images equal the C
 * computation (so each other, byte for byte), and rtl's statistics add the cycle counts. */
static void test_exec_rtl_backend_matches_fsim(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "p.s"), *m = cli_tmp_path(t, 1, "mem.bin");
  const char *o[2] = {cli_tmp_path(t, 2, "fsim.bin"), cli_tmp_path(t, 3, "rtl.bin")};
  const char *backends[2] = {"fsim", "rtl"};
  static uint8_t img[IMG_SIZE], want[IMG_SIZE];
  char prog[4096];
  const uint64_t base = 0x200000;
  make_prog(prog, sizeof prog, base);
  make_images(img, want);
  cli_spit_text(s, prog);
  cli_spit(m, img, IMG_SIZE);
  for (int k = 0; k < 2; k++) {
    cli_result r;
    CLI_RUN(&r, "exec", s, "--mem", m, "--base", "0x200000", "--out", o[k], "--backend",
            backends[k]);
    CLI_ASSERT_STATUS(&r, 0);
    assert_image(o[k], want);
    assert_one_json_line(r.out);
    assert_true(stat_of(r.out, "insns") == PROG_INSNS);
    assert_true(stat_of(r.out, "macs") == PROG_MACS);
    if (k == 1) {
      assert_true(stat_of(r.out, "cycles") > PROG_INSNS);
      double u = stat_of(r.out, "utilisation");
      assert_true(u > 0 && u < 1);
    }
    cli_result_free(&r);
  }
}

static void test_exec_without_out_writes_nothing(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "p.s"), *m = cli_tmp_path(t, 1, "mem.bin");
  static uint8_t img[IMG_SIZE], want[IMG_SIZE];
  char prog[4096];
  cli_result r;
  make_prog(prog, sizeof prog, 0);
  make_images(img, want);
  cli_spit_text(s, prog);
  cli_spit(m, img, IMG_SIZE);
  CLI_RUN(&r, "exec", s, "--mem", m, "--stats", "-");
  CLI_ASSERT_STATUS(&r, 0);
  assert_one_json_line(r.out);
  assert_image(m, img);
  assert_int_equal(cli_tmp_count(t), 2);
  cli_result_free(&r);
}

/* Runs a failing program on a FILL image with an existing output file; expects exit 1, a
 * message containing needle, no statistics, the output file untouched and nothing else
 * written. */
static void expect_run_failure(cli_tmp *t, const char *prog, const char *const *extra,
                               const char *needle) {
  const char *s = cli_tmp_path(t, 0, "bad.s"), *m = cli_tmp_path(t, 1, "mem.bin");
  const char *o = cli_tmp_path(t, 2, "out.bin"), *st = cli_tmp_path(t, 3, "stats.json");
  static uint8_t img[IMG_SIZE];
  const char *argv[16] = {"exec", s, "--mem", m, "--out", o, "--stats", st};
  int argc = 8, before;
  size_t n = 0;
  char *kept;
  cli_result r;
  memset(img, FILL, sizeof img);
  cli_spit_text(s, prog);
  cli_spit(m, img, IMG_SIZE);
  cli_spit_text(o, "old result");
  before = cli_tmp_count(t);
  for (; extra && *extra; extra++)
    argv[argc++] = *extra;
  argv[argc] = NULL;
  cli_run_env(&r, NULL, NULL, argv);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "vta exec: ");
  CLI_ASSERT_CONTAINS(r.err, needle);
  assert_string_equal(r.out, "");
  kept = cli_slurp(o, &n);
  assert_int_equal(n, 10);
  assert_memory_equal(kept, "old result", 10);
  free(kept);
  assert_false(cli_exists(st));
  assert_int_equal(cli_tmp_count(t), before);
  cli_result_free(&r);
}

static void test_exec_deadlock_exits_1_and_writes_nothing(void **state) {
  /* Compute waits for a token from load that no load instruction ever pushes. */
  expect_run_failure(*state,
                     "load memory_type=uop dram_base=0 y_size=1 x_size=1 x_stride=1\n"
                     "gemm reset_reg uop_end=1 iter_out=1 iter_in=1 pop_prev\n"
                     "finish\n",
                     NULL, "deadlock");
}

static void test_exec_dma_outside_image_exits_1(void **state) {
  /* An INP row at element 0x100000 is byte 16 MiB: far outside the 2 KiB image. */
  expect_run_failure(*state,
                     "load memory_type=inp dram_base=0x100000 y_size=1 x_size=1 x_stride=1\n"
                     "finish\n",
                     NULL, "0x1000000 is outside");
  /* A STORE just past the end of the image. */
  expect_run_failure(*state,
                     "alu alu_opcode=add uop_end=1 iter_out=1 iter_in=1 push_next\n"
                     "store memory_type=out dram_base=128 y_size=1 x_size=1 x_stride=1 "
                     "pop_prev\n"
                     "finish\n",
                     NULL, "DMA write");
}

static void test_exec_sram_index_out_of_range_exits_1(void **state) {
  /* INP has 2048 entries: rows 2047 and 2048 do not both fit. */
  expect_run_failure(*state,
                     "load memory_type=inp sram_base=2047 dram_base=0 y_size=1 x_size=2 "
                     "x_stride=2\n"
                     "finish\n",
                     NULL, "depth is 2048");
}

static void test_exec_timeout_exits_1(void **state) {
  char prog[4096];
  const char *const extra[] = {"--timeout", "3", NULL};
  make_prog(prog, sizeof prog, 0);
  expect_run_failure(*state, prog, extra, "timeout");
}

/* What fsim refuses before running, rtl refuses in the same words; a hung program is a
 * timeout there (the hardware cannot see a deadlock, only that nothing finishes). */
static void test_exec_rtl_backend_failures_exit_1(void **state) {
  const char *const rtl[] = {"--backend", "rtl", NULL};
  const char *const rtl_timeout[] = {"--backend", "rtl", "--timeout", "5000", NULL};
  expect_run_failure(*state,
                     "load memory_type=inp dram_base=0x100000 y_size=1 x_size=1 x_stride=1\n"
                     "finish\n",
                     rtl, "0x1000000 is outside");
  expect_run_failure(*state,
                     "load memory_type=inp sram_base=2047 dram_base=0 y_size=1 x_size=2 "
                     "x_stride=2\n"
                     "finish\n",
                     rtl, "depth is 2048");
  expect_run_failure(*state,
                     "load memory_type=uop dram_base=0 y_size=1 x_size=1 x_stride=1\n"
                     "gemm reset_reg uop_end=1 iter_out=1 iter_in=1 pop_prev\n"
                     "finish\n",
                     rtl_timeout, "5000 cycles");
}

static void test_exec_bad_program_files_exit_1(void **state) {
  cli_tmp *t = *state;
  const char *m = cli_tmp_path(t, 0, "mem.bin"), *b = cli_tmp_path(t, 1, "p.bin");
  const char *s = cli_tmp_path(t, 2, "p.s");
  uint8_t words[2 * VTA_INSN_BYTES] = {0};
  cli_result r;
  cli_spit(m, "0123456789abcdef", 16);
  /* Truncated binary: the offset of the partial instruction is named. */
  words[0] = VTA_OP_FINISH;
  cli_spit(b, words, VTA_INSN_BYTES + 9);
  CLI_RUN(&r, "exec", b, "--mem", m);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "byte offset 16");
  cli_result_free(&r);
  /* Garbage: undefined opcode in instruction 1. */
  words[VTA_INSN_BYTES] = 5;
  cli_spit(b, words, sizeof words);
  CLI_RUN(&r, "exec", b, "--mem", m);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "instruction 1 at byte offset 16");
  cli_result_free(&r);
  /* Empty program. */
  cli_spit(b, "", 0);
  CLI_RUN(&r, "exec", b, "--mem", m);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "no instructions");
  cli_result_free(&r);
  /* Text with a syntax error: file, line and column. */
  cli_spit_text(s, "finish\nfinish bogus\n");
  CLI_RUN(&r, "exec", s, "--mem", m);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "p.s:2:8: unknown field 'bogus'");
  cli_result_free(&r);
  /* Missing and empty images. */
  cli_spit_text(s, "finish\n");
  CLI_RUN(&r, "exec", s, "--mem", cli_tmp_path(t, 3, "none.bin"));
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "none.bin");
  cli_result_free(&r);
  cli_spit(m, "", 0);
  CLI_RUN(&r, "exec", s, "--mem", m);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "empty memory image");
  cli_result_free(&r);
}

static void test_exec_image_outside_address_space_exits_1(void **state) {
  cli_tmp *t = *state;
  const char *m = cli_tmp_path(t, 0, "mem.bin"), *s = cli_tmp_path(t, 1, "p.s");
  cli_result r;
  cli_spit(m, "0123456789abcdef", 16);
  cli_spit_text(s, "finish\n");
  CLI_RUN(&r, "exec", s, "--mem", m, "--base", "0xfffffffffffffff8");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "address space");
  cli_result_free(&r);
  /* Beyond the simulated DRAM: the device refuses the claim. */
  CLI_RUN(&r, "exec", s, "--mem", m, "--base", "0x10000000000");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "vta exec: ");
  cli_result_free(&r);
}

static void test_exec_bad_arguments_exit_2(void **state) {
  const char *const cases[][8] = {
      {"exec", NULL},
      {"exec", "p.s", NULL},
      {"exec", "--mem", "m.bin", NULL},
      {"exec", "p.s", "--mem", NULL},
      {"exec", "p.s", "q.s", "--mem", "m.bin", NULL},
      {"exec", "p.s", "--mem", "m.bin", "--base", "0x", NULL},
      {"exec", "p.s", "--mem", "m.bin", "--base", "-4096", NULL},
      {"exec", "p.s", "--mem", "m.bin", "--timeout", "ten", NULL},
      {"exec", "p.s", "--mem", "m.bin", "--backend", "nosuch", NULL},
      {"exec", "p.s", "--mem", "m.bin", "--out", "-", NULL},
      {"exec", "p.s", "--mem", "m.bin", "--outt", "x", NULL},
  };
  const char *const want[] = {
      "missing program",        "missing memory image",          "missing program",
      "needs a value",          "unexpected argument 'q.s'",     "--base: '0x' is not a number",
      "--base: '-4096' is not", "--timeout: 'ten' is not a number", "unknown backend 'nosuch'",
      "standard output",        "unknown option '--outt'",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cli_result r;
    cli_run_env(&r, NULL, NULL, cases[i]);
    CLI_ASSERT_STATUS(&r, 2);
    CLI_ASSERT_CONTAINS(r.err, "vta exec: ");
    CLI_ASSERT_CONTAINS(r.err, want[i]);
    assert_string_equal(r.out, "");
    cli_result_free(&r);
  }
}

static void test_exec_backend_from_environment(void **state) {
  const char *env[] = {"VTA_BACKEND=nosuch", NULL};
  cli_result r;
  CLI_RUN_ENV(&r, env, "exec", "p.s", "--mem", "m.bin");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unknown backend 'nosuch'; built backends: fsim");
  cli_result_free(&r);
}

#define TMP_TEST(f) cmocka_unit_test_setup_teardown(f, cli_tmp_setup, cli_tmp_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      TMP_TEST(test_exec_gemm_alu_matches_c),
      TMP_TEST(test_exec_binary_program_at_nonzero_base),
      TMP_TEST(test_exec_rtl_backend_matches_fsim),
      TMP_TEST(test_exec_without_out_writes_nothing),
      TMP_TEST(test_exec_deadlock_exits_1_and_writes_nothing),
      TMP_TEST(test_exec_dma_outside_image_exits_1),
      TMP_TEST(test_exec_sram_index_out_of_range_exits_1),
      TMP_TEST(test_exec_timeout_exits_1),
      TMP_TEST(test_exec_rtl_backend_failures_exit_1),
      TMP_TEST(test_exec_bad_program_files_exit_1),
      TMP_TEST(test_exec_image_outside_address_space_exits_1),
      cmocka_unit_test(test_exec_bad_arguments_exit_2),
      cmocka_unit_test(test_exec_backend_from_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
