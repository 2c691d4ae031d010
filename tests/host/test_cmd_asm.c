/* test_cmd_asm.c - `vta asm` and `vta disasm`: byte-exact round trips (text -> binary -> text
 * -> binary, and random valid binaries -> text -> binary), assembler errors that name line and
 * column with a caret, truncated and garbage binaries rejected by instruction index and byte
 * offset, outputs written whole or not at all, and bad command lines. Runs the real binary as a
 * subprocess (see cli_run.h); the random binaries are made in-process with the ISA tables.
 */
#include "host/cli_run.h"

#include "vta/config.h"
#include "vta/isa.h"

/* Every opcode, every memory type and ALU opcode, every field at a non-zero value somewhere,
 * fields at their maximum, negative and positive immediates, every dependency flag. */
static const char k_prog[] =
    "# every opcode and field\n"
    "load memory_type=uop sram_base=0 dram_base=0 y_size=1 x_size=4 x_stride=4\n"
    "load memory_type=inp sram_base=3 dram_base=0x40 y_size=2 x_size=3 x_stride=5 y_pad_0=1 "
    "y_pad_1=2 x_pad_0=3 x_pad_1=15 push_next\n"
    "\n"
    "  LOAD memory_type=WGT dram_base=4294967295 y_size=65535 x_size=65535 x_stride=65535 "
    "pop_next   # upper case names, trailing comment\n"
    "load memory_type=acc sram_base=65535 y_size=1 x_size=1 x_stride=1 push_prev\n"
    "load memory_type=acc_8bit y_size=1 x_size=1 x_stride=1\n"
    "gemm reset_reg uop_bgn=0 uop_end=8192 iter_out=16383 iter_in=1 dst_factor_out=2047 "
    "dst_factor_in=1 src_factor_out=2047 src_factor_in=3 wgt_factor_out=1023 wgt_factor_in=5 "
    "pop_prev\n"
    "alu alu_opcode=shr uop_bgn=1 uop_end=2 iter_out=1 iter_in=4 dst_factor_in=1 "
    "src_factor_in=1 use_imm imm=-32768 push_next\n"
    "alu alu_opcode=mul uop_bgn=8191 uop_end=8192 iter_out=1 iter_in=1 use_imm imm=32767\n"
    "alu alu_opcode=min uop_end=1 iter_out=2 iter_in=3 dst_factor_out=7 src_factor_out=2047\n"
    "alu alu_opcode=max uop_end=1 iter_out=1 iter_in=1 use_imm imm=-1\n"
    "alu alu_opcode=add uop_end=1 iter_out=1 iter_in=1 pop_next\n"
    "store memory_type=out sram_base=1 dram_base=2 y_size=1 x_size=1 x_stride=1 pop_prev "
    "push_prev\n"
    "load memory_type=uop pop_next\n"
    "finish\n";
#define K_PROG_INSNS 14

static void asm_ok(const char *in, const char *out) {
  cli_result r;
  CLI_RUN(&r, "asm", in, "-o", out);
  CLI_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.err, "");
  cli_result_free(&r);
}

static void disasm_ok(const char *in, const char *out, int index) {
  cli_result r;
  if (index)
    CLI_RUN(&r, "disasm", "--index", in, "-o", out);
  else
    CLI_RUN(&r, "disasm", in, "--output", out);
  CLI_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "");
  cli_result_free(&r);
}

static void assert_files_equal(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  char *x = cli_slurp(a, &na), *y = cli_slurp(b, &nb);
  assert_non_null(x);
  assert_non_null(y);
  if (na != nb || memcmp(x, y, na) != 0)
    fail_msg("%s (%zu bytes) and %s (%zu bytes) differ", a, na, b, nb);
  free(x);
  free(y);
}

static void test_asm_round_trip_is_byte_exact(void **state) {
  cli_tmp *t = *state;
  const char *s1 = cli_tmp_path(t, 0, "p.s"), *b1 = cli_tmp_path(t, 1, "p.bin");
  const char *s2 = cli_tmp_path(t, 2, "p2.s"), *b2 = cli_tmp_path(t, 3, "p2.bin");
  const char *s3 = cli_tmp_path(t, 4, "p3.s"), *s4 = cli_tmp_path(t, 5, "p4.s");
  const char *b4 = cli_tmp_path(t, 6, "p4.bin");
  size_t n = 0;
  char *bin;
  cli_spit_text(s1, k_prog);
  asm_ok(s1, b1);
  bin = cli_slurp(b1, &n);
  assert_int_equal(n, K_PROG_INSNS * VTA_INSN_BYTES);
  free(bin);
  /* binary -> text -> binary is the identity ... */
  disasm_ok(b1, s2, 0);
  asm_ok(s2, b2);
  assert_files_equal(b1, b2);
  /* ... and the disassembler's text is canonical: it reads back to itself. */
  disasm_ok(b2, s3, 0);
  assert_files_equal(s2, s3);
  /* Index comments do not change the bytes. */
  disasm_ok(b1, s4, 1);
  asm_ok(s4, b4);
  assert_files_equal(b1, b4);
}

static void test_asm_text_matches_isa_tables(void **state) {
  /* The bytes vta asm writes are what the encoder gives for the same fields. */
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "one.s"), *b = cli_tmp_path(t, 1, "one.bin");
  vta_config cfg;
  vta_insn in = {0};
  vta_insn_word w;
  uint8_t want[VTA_INSN_BYTES];
  size_t n = 0;
  char *got;
  vta_config_default(&cfg);
  in.f[VTA_F_OPCODE] = VTA_OP_ALU;
  in.f[VTA_F_ALU_OPCODE] = VTA_ALU_SHR;
  in.f[VTA_F_UOP_BGN] = 5;
  in.f[VTA_F_UOP_END] = 9;
  in.f[VTA_F_ITER_IN] = 3;
  in.f[VTA_F_USE_IMM] = 1;
  in.f[VTA_F_IMM] = -7;
  in.f[VTA_F_PUSH_PREV] = 1;
  assert_int_equal(vta_insn_encode(&cfg, &in, &w, NULL), VTA_OK);
  vta_insn_word_store(&w, want);
  cli_spit_text(s, "alu push_prev imm=-7 use_imm alu_opcode=shr uop_bgn=5 uop_end=9 iter_in=3");
  asm_ok(s, b);
  got = cli_slurp(b, &n);
  assert_int_equal(n, VTA_INSN_BYTES);
  assert_memory_equal(got, want, VTA_INSN_BYTES);
  free(got);
}

static void test_disasm_random_valid_words_round_trip(void **state) {
  /* Any word that decodes (defined opcode, reserved bits clear) must survive text form,
   * including memory types and ALU opcodes that have no name. */
  cli_tmp *t = *state;
  const char *b1 = cli_tmp_path(t, 0, "r.bin"), *s = cli_tmp_path(t, 1, "r.s");
  const char *b2 = cli_tmp_path(t, 2, "r2.bin");
  enum { N = 300 };
  uint8_t bytes[N * VTA_INSN_BYTES];
  uint64_t x = 0x9E3779B97F4A7C15ull;
  vta_config cfg;
  vta_config_default(&cfg);
  for (int i = 0; i < N; i++) {
    vta_insn_word w;
    unsigned op;
    for (int k = 0; k < 2; k++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      w.w[k] = x;
    }
    op = (unsigned)(i % VTA_OP_COUNT);
    w.w[0] = (w.w[0] & ~7ull) | op;
    w.w[0] &= ~cfg.layout[vta_opcode_format(op)].reserved_mask[0];
    w.w[1] &= ~cfg.layout[vta_opcode_format(op)].reserved_mask[1];
    vta_insn_word_store(&w, bytes + i * VTA_INSN_BYTES);
  }
  cli_spit(b1, bytes, sizeof bytes);
  disasm_ok(b1, s, 0);
  asm_ok(s, b2);
  assert_files_equal(b1, b2);
}

static void test_asm_stdin_to_stdout(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "f.s");
  cli_result r;
  cli_spit_text(s, "finish\nfinish push_next\n");
  cli_run_env(&r, NULL, s, (const char *const[]){"asm", "-", "-o", "-", NULL});
  CLI_ASSERT_STATUS(&r, 0);
  assert_int_equal(r.out_len, 2 * VTA_INSN_BYTES);
  assert_int_equal((unsigned char)r.out[0], VTA_OP_FINISH);
  assert_int_equal((unsigned char)r.out[16], VTA_OP_FINISH | 1u << 6);
  cli_result_free(&r);
}

/* Assembles text that must fail; checks exit 1, that the message has "file:line:col: ",
 * each needle, the offending line and a caret under the column, and that no output appeared. */
static void expect_asm_error(cli_tmp *t, const char *text, int line, int col,
                             const char *needle) {
  const char *s = cli_tmp_path(t, 0, "bad.s"), *b = cli_tmp_path(t, 1, "bad.bin");
  char where[400], caret[200];
  const char *l = text;
  cli_result r;
  cli_spit_text(s, text);
  CLI_RUN(&r, "asm", s, "-o", b);
  CLI_ASSERT_STATUS(&r, 1);
  snprintf(where, sizeof where, "vta asm: %s:%d:%d: ", s, line, col);
  CLI_ASSERT_CONTAINS(r.err, where);
  CLI_ASSERT_CONTAINS(r.err, needle);
  for (int i = 1; i < line; i++)
    l = strchr(l, '\n') + 1;
  snprintf(where, sizeof where, "\n  %.*s\n", (int)strcspn(l, "\n"), l);
  CLI_ASSERT_CONTAINS(r.err, where);
  snprintf(caret, sizeof caret, "\n  %*s^\n", col - 1, "");
  CLI_ASSERT_CONTAINS(r.err, caret);
  assert_false(cli_exists(b));
  assert_int_equal(cli_tmp_count(t), 1);
  cli_result_free(&r);
}

static void test_asm_errors_name_line_and_column(void **state) {
  cli_tmp *t = *state;
  expect_asm_error(t, "finish\n# comment\nload memory_type=inp x_size=banana\n", 3, 29,
                   "not a number");
  expect_asm_error(t, "lod x_size=1\n", 1, 1, "unknown opcode 'lod'");
  expect_asm_error(t, "finish\n  gemm foo=1\n", 2, 8, "unknown field 'foo'");
  expect_asm_error(t, "alu use_imm imm=40000\n", 1, 17, "does not fit its 16 bits");
  expect_asm_error(t, "alu imm=-32769\n", 1, 9, "does not fit");
  expect_asm_error(t, "load x_size=-1\n", 1, 13, "does not fit");
  expect_asm_error(t, "finish x_size=1\n", 1, 8, "not part of the finish instruction");
  expect_asm_error(t, "store x_size=1 x_size=2\n", 1, 16, "given twice");
  expect_asm_error(t, "gemm iter_out\n", 1, 6, "needs a value");
  expect_asm_error(t, "load memory_type=sram\n", 1, 18, "memory type");
  expect_asm_error(t, "gemm uop_end=16384\n", 1, 14, "does not fit its 14 bits");
}

static void test_asm_error_keeps_existing_output(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "bad.s"), *b = cli_tmp_path(t, 1, "keep.bin");
  cli_result r;
  size_t n = 0;
  char *got;
  cli_spit_text(b, "precious");
  cli_spit_text(s, "finish\nfinsh\n");
  CLI_RUN(&r, "asm", s, "-o", b);
  CLI_ASSERT_STATUS(&r, 1);
  got = cli_slurp(b, &n);
  assert_int_equal(n, 8);
  assert_memory_equal(got, "precious", 8);
  free(got);
  assert_int_equal(cli_tmp_count(t), 2);
  cli_result_free(&r);
}

static void test_asm_rejects_binary_input(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "nul.s");
  cli_result r;
  cli_spit(s, "finish\n\0finish\n", 15);
  CLI_RUN(&r, "asm", s, "-o", cli_tmp_path(t, 1, "o.bin"));
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "NUL byte at offset 7");
  assert_false(cli_exists(t->path[1]));
  cli_result_free(&r);
}

static void test_asm_config_changes_field_widths(void **state) {
  /* With a 4 KiB micro-op buffer (1024 entries) uop_end has 11 bits: 4096 no longer fits. */
  cli_tmp *t = *state;
  const char *c = cli_tmp_path(t, 0, "small.json"), *s = cli_tmp_path(t, 1, "g.s");
  const char *b = cli_tmp_path(t, 2, "g.bin");
  cli_result r;
  cli_spit_text(c, "{\"LOG_UOP_BUFF_SIZE\": 12}");
  cli_spit_text(s, "gemm uop_end=4096\n");
  asm_ok(s, b);
  CLI_RUN(&r, "asm", "--config", c, s, "-o", b);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "uop_end = 4096 does not fit its 11 bits");
  cli_result_free(&r);
  CLI_RUN(&r, "asm", "--config", cli_tmp_path(t, 3, "missing.json"), s, "-o", b);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "missing.json");
  cli_result_free(&r);
}

static void test_asm_bad_arguments_exit_2(void **state) {
  cli_tmp *t = *state;
  const char *s = cli_tmp_path(t, 0, "f.s");
  const char *const cases[][6] = {
      {"asm", NULL},                            /* no input */
      {"asm", s, NULL},                         /* no -o */
      {"asm", s, "-o", NULL},                   /* -o without value */
      {"asm", s, "other.s", "-o", "x", NULL},   /* two inputs */
      {"asm", s, "-o", "x", "--frob", NULL},    /* unknown option */
      {"asm", s, "-o", "x", "--config", NULL},  /* --config without value */
  };
  const char *const want[] = {"missing input file", "missing output file", "needs a value",
                              "unexpected argument 'other.s'", "unknown option '--frob'",
                              "option --config needs a value"};
  cli_spit_text(s, "finish\n");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cli_result r;
    cli_run_env(&r, NULL, NULL, cases[i]);
    CLI_ASSERT_STATUS(&r, 2);
    CLI_ASSERT_CONTAINS(r.err, "vta asm: ");
    CLI_ASSERT_CONTAINS(r.err, want[i]);
    cli_result_free(&r);
  }
  assert_int_equal(cli_tmp_count(t), 1);
}

static void test_asm_missing_input_exits_1(void **state) {
  cli_tmp *t = *state;
  cli_result r;
  CLI_RUN(&r, "asm", cli_tmp_path(t, 0, "none.s"), "-o", cli_tmp_path(t, 1, "o.bin"));
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "vta asm: ");
  CLI_ASSERT_CONTAINS(r.err, "none.s: cannot open: No such file or directory");
  assert_int_equal(cli_tmp_count(t), 0);
  cli_result_free(&r);
}

/* Writes n FINISH instructions plus `extra` bytes, with hook applied, and disassembles. */
static void run_disasm_on(cli_tmp *t, const uint8_t *bytes, size_t n, cli_result *r) {
  const char *b = cli_tmp_path(t, 0, "in.bin");
  cli_spit(b, bytes, n);
  CLI_RUN(r, "disasm", b, "-o", cli_tmp_path(t, 1, "out.s"));
}

static void test_disasm_rejects_truncated_stream(void **state) {
  cli_tmp *t = *state;
  uint8_t bytes[3 * VTA_INSN_BYTES + 5] = {0};
  cli_result r;
  for (int i = 0; i < 4; i++)
    bytes[i * VTA_INSN_BYTES] = VTA_OP_FINISH;
  run_disasm_on(t, bytes, sizeof bytes, &r);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "truncated");
  CLI_ASSERT_CONTAINS(r.err, "(3, at byte offset 48) has only 5 of its 16 bytes");
  assert_false(cli_exists(t->path[1]));
  cli_result_free(&r);
}

static void test_disasm_rejects_undefined_opcode(void **state) {
  cli_tmp *t = *state;
  uint8_t bytes[4 * VTA_INSN_BYTES] = {0};
  cli_result r;
  for (int i = 0; i < 4; i++)
    bytes[i * VTA_INSN_BYTES] = VTA_OP_FINISH;
  bytes[2 * VTA_INSN_BYTES] = 6;
  run_disasm_on(t, bytes, sizeof bytes, &r);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "instruction 2 at byte offset 32");
  CLI_ASSERT_CONTAINS(r.err, "undefined opcode 6");
  assert_false(cli_exists(t->path[1]));
  cli_result_free(&r);
}

static void test_disasm_rejects_reserved_bits(void **state) {
  cli_tmp *t = *state;
  uint8_t bytes[2 * VTA_INSN_BYTES] = {0};
  cli_result r;
  bytes[0] = VTA_OP_FINISH;
  bytes[VTA_INSN_BYTES] = VTA_OP_FINISH;
  bytes[VTA_INSN_BYTES + 12] = 0x10; /* bit 100 of instruction 1 */
  run_disasm_on(t, bytes, sizeof bytes, &r);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "instruction 1 at byte offset 16");
  CLI_ASSERT_CONTAINS(r.err, "reserved bit 100");
  cli_result_free(&r);
  /* A GEMM leaves bit 63 unused in the default configuration. */
  bytes[VTA_INSN_BYTES] = VTA_OP_GEMM;
  bytes[VTA_INSN_BYTES + 12] = 0;
  bytes[VTA_INSN_BYTES + 7] = 0x80;
  run_disasm_on(t, bytes, sizeof bytes, &r);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "reserved bit 63");
  cli_result_free(&r);
}

static void test_disasm_garbage_prints_nothing_to_stdout(void **state) {
  cli_tmp *t = *state;
  const char *b = cli_tmp_path(t, 0, "g.bin");
  uint8_t bytes[3 * VTA_INSN_BYTES] = {0};
  cli_result r;
  bytes[0] = VTA_OP_FINISH;
  bytes[VTA_INSN_BYTES] = VTA_OP_FINISH;
  bytes[2 * VTA_INSN_BYTES] = 0xff;
  cli_spit(b, bytes, sizeof bytes);
  CLI_RUN(&r, "disasm", b);
  CLI_ASSERT_STATUS(&r, 1);
  assert_int_equal(r.out_len, 0);
  cli_result_free(&r);
}

static void test_disasm_to_stdout_with_index(void **state) {
  cli_tmp *t = *state;
  const char *b = cli_tmp_path(t, 0, "f.bin");
  uint8_t bytes[2 * VTA_INSN_BYTES] = {0};
  cli_result r;
  bytes[0] = VTA_OP_FINISH;
  bytes[VTA_INSN_BYTES] = VTA_OP_FINISH | 1u << 3;
  cli_spit(b, bytes, sizeof bytes);
  CLI_RUN(&r, "disasm", b);
  CLI_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "finish\nfinish pop_prev\n");
  cli_result_free(&r);
  CLI_RUN(&r, "disasm", "--index", b);
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "# 0\n");
  CLI_ASSERT_CONTAINS(r.out, "# 1\n");
  cli_result_free(&r);
  cli_spit(b, "", 0);
  CLI_RUN(&r, "disasm", b);
  CLI_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "");
  cli_result_free(&r);
}

static void test_disasm_bad_arguments_exit_2(void **state) {
  const char *const cases[][5] = {
      {"disasm", NULL},
      {"disasm", "a.bin", "b.bin", NULL},
      {"disasm", "a.bin", "-o", NULL},
      {"disasm", "a.bin", "--index=1", NULL},
      {"disasm", "a.bin", "-x", NULL},
  };
  const char *const want[] = {"missing input file", "unexpected argument 'b.bin'",
                              "needs a value", "unknown option '--index=1'",
                              "unknown option '-x'"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cli_result r;
    cli_run_env(&r, NULL, NULL, cases[i]);
    CLI_ASSERT_STATUS(&r, 2);
    CLI_ASSERT_CONTAINS(r.err, "vta disasm: ");
    CLI_ASSERT_CONTAINS(r.err, want[i]);
    cli_result_free(&r);
  }
}

static void test_disasm_missing_input_exits_1(void **state) {
  cli_tmp *t = *state;
  cli_result r;
  CLI_RUN(&r, "disasm", cli_tmp_path(t, 0, "none.bin"));
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "none.bin");
  cli_result_free(&r);
}

#define TMP_TEST(f) cmocka_unit_test_setup_teardown(f, cli_tmp_setup, cli_tmp_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      TMP_TEST(test_asm_round_trip_is_byte_exact),
      TMP_TEST(test_asm_text_matches_isa_tables),
      TMP_TEST(test_disasm_random_valid_words_round_trip),
      TMP_TEST(test_asm_stdin_to_stdout),
      TMP_TEST(test_asm_errors_name_line_and_column),
      TMP_TEST(test_asm_error_keeps_existing_output),
      TMP_TEST(test_asm_rejects_binary_input),
      TMP_TEST(test_asm_config_changes_field_widths),
      TMP_TEST(test_asm_bad_arguments_exit_2),
      TMP_TEST(test_asm_missing_input_exits_1),
      TMP_TEST(test_disasm_rejects_truncated_stream),
      TMP_TEST(test_disasm_rejects_undefined_opcode),
      TMP_TEST(test_disasm_rejects_reserved_bits),
      TMP_TEST(test_disasm_garbage_prints_nothing_to_stdout),
      TMP_TEST(test_disasm_to_stdout_with_index),
      cmocka_unit_test(test_disasm_bad_arguments_exit_2),
      TMP_TEST(test_disasm_missing_input_exits_1),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
