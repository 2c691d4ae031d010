/* test_fuzz_cli.c - the `vta` tool on garbage: random and mutated files as configuration,
 * assembler text, binary program and memory image; bad option values; missing files, folders
 * where files belong and outputs that cannot be written.
 *
 * The design idea: whatever the input, a run ends in one of three ways, and each has a shape
 * that can be checked without knowing the input. Success (0): the output exists. Failure (1,
 * the input or the run) and usage error (2): standard output is empty, standard error is one
 * line "vta <cmd>: ..." (the assembler alone adds its echo of the source line and a caret), and
 * no output file, complete or temporary, is left behind. Never a signal, never a sanitizer
 * report (cli_run.h fails the test on either). Inputs are seeded (VTA_FUZZ_SEED) so a failure
 * repeats; the counts are small because every case is a process of the sanitized binary.
 *
 * Run from the repository root with VTA_BIN set to the sanitized tool, e.g.
 *   VTA_BIN=$PWD/build/san/bin/vta build/san/tests/host/test_fuzz_cli
 */
#include "host/cli_run.h"

#include "vta/config.h"
#include "vta/isa.h"

static uint64_t g_seed = 0xc11f022ull, g_rng;

static uint64_t rnd(void) { /* xorshift64* */
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 2685821657736338717ull;
}
static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

/* The last run's result, freed by the next run or the teardown, so that a failing check (which
 * leaves the test by longjmp) leaks nothing. */
static cli_result g_r;

static int teardown(void **state) {
  cli_result_free(&g_r);
  return cli_tmp_teardown(state);
}

static int setup(void **state) {
  const char *s = getenv("VTA_FUZZ_SEED");
  if (s && *s) g_seed = strtoull(s, NULL, 0);
  g_rng = g_seed ? g_seed : 1;
  return cli_tmp_setup(state);
}

/* What a run is for the checks: the subcommand, whether its errors may carry the assembler's
 * source echo, and the output path that must not exist after a failure (or NULL). */
typedef struct expect {
  const char *cmd;
  int asm_echo;
  const char *out;
} expect;

static void describe(char *buf, size_t n, const char *const *argv) {
  size_t k = 0;
  buf[0] = 0;
  for (; *argv && k + 1 < n; argv++) k += (size_t)snprintf(buf + k, n - k, " '%s'", *argv);
}

/* A failed run: status 1 or 2, nothing on stdout, "vta <cmd>: " and one line (or the three
 * lines of an assembler error), no output file and no temporary file in the test folder. */
static void check_failure(cli_tmp *t, const cli_result *r, const expect *x, const char *line,
                          int files_before) {
  char head[64];
  snprintf(head, sizeof head, "vta %s: ", x->cmd);
  if (r->status != 1 && r->status != 2)
    fail_msg("seed 0x%llx: vta%s: exit %d, expected 1 or 2; stderr:\n%s",
             (unsigned long long)g_seed, line, r->status, r->err);
  if (r->out_len)
    fail_msg("vta%s: failed (exit %d) but printed to stdout:\n%.300s", line, r->status, r->out);
  if (strncmp(r->err, head, strlen(head)) != 0)
    fail_msg("vta%s: stderr does not start with \"%s\":\n%s", line, head, r->err);
  size_t len = strlen(r->err), lines = 0;
  for (size_t i = 0; i < len; i++) lines += r->err[i] == '\n';
  if (!len || r->err[len - 1] != '\n')
    fail_msg("vta%s: stderr does not end a line:\n%s", line, r->err);
  if (strlen(r->err) <= strlen(head) + 1) fail_msg("vta%s: empty message", line);
  if (lines != 1) {
    /* The assembler's three lines: "file:line:col: message", the source line, the caret. */
    const char *last = r->err + len - 2;
    while (last > r->err && last[-1] != '\n') last--;
    if (!(x->asm_echo && lines == 3 && strspn(last, " ") + 2 == strlen(last) &&
          last[strspn(last, " ")] == '^'))
      fail_msg("vta%s: stderr is %zu lines, expected one:\n%s", line, lines, r->err);
  }
  for (const char *c = r->err; *c; c++)
    if ((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t') /* a tab may be the user's own */
      fail_msg("vta%s: control byte 0x%02x on stderr:\n%s", line, (unsigned char)*c, r->err);
  if (x->out && cli_exists(x->out))
    fail_msg("vta%s: failed (exit %d) but left %s", line, r->status, x->out);
  if (cli_tmp_count(t) != files_before)
    fail_msg("vta%s: failed (exit %d) and the folder now holds %d files instead of %d", line,
             r->status, cli_tmp_count(t), files_before);
}

/* Runs argv and checks the failure shape if it failed; returns the exit status. */
static int run_checked(cli_tmp *t, const expect *x, const char *stdin_path,
                       const char *const *argv) {
  char line[1024];
  describe(line, sizeof line, argv);
  int before = cli_tmp_count(t);
  cli_result_free(&g_r);
  cli_run_env(&g_r, NULL, stdin_path, argv);
  if (g_r.status == 0) {
    if (g_r.err[0]) fail_msg("vta%s: succeeded but wrote to stderr:\n%s", line, g_r.err);
    if (x->out && strcmp(x->out, "-") != 0 && !cli_exists(x->out))
      fail_msg("vta%s: succeeded without writing %s", line, x->out);
  } else {
    check_failure(t, &g_r, x, line, before);
  }
  return g_r.status;
}
#define RUN(t, x, ...) run_checked((t), (x), NULL, (const char *const[]){__VA_ARGS__, NULL})

/* ---- Input generators ---- */

static size_t random_bytes(uint8_t *buf, size_t max) {
  size_t n = below((uint32_t)max + 1);
  for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rnd();
  return n;
}

/* Random printable text with newlines, braces, quotes and digits. */
static size_t random_text(uint8_t *buf, size_t max) {
  static const char alphabet[] =
      "{}[]\":,0123456789 \n\t-+.eE#;=_abcdefghijklmnopqrstuvwxyz"
      "LOGBLOCKINPUT\r\v\x01\x1b";
  size_t n = below((uint32_t)max + 1);
  for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)alphabet[below(sizeof alphabet - 1)];
  return n;
}

/* A shipped file with a few bytes flipped, deleted or cut. */
static size_t mutate_file(const char *path, uint8_t *buf, size_t max) {
  size_t n = 0;
  char *src = cli_slurp(path, &n);
  assert_non_null(src);
  if (n > max) n = max;
  memcpy(buf, src, n);
  free(src);
  int k = (int)below(3); /* sometimes none: the accepted path needs exercise too */
  for (int i = 0; i < k && n; i++) {
    size_t at = below((uint32_t)n);
    switch (below(3)) {
    case 0:
      buf[at] ^= (uint8_t)(1u << below(8));
      break;
    case 1:
      memmove(buf + at, buf + at + 1, n - at - 1);
      n--;
      break;
    default:
      n = at;
      break;
    }
  }
  return n;
}

static const char k_program[] =
    "load memory_type=uop dram_base=0 y_size=1 x_size=2 x_stride=2\n"
    "load memory_type=inp dram_base=16 y_size=1 x_size=2 x_stride=2\n"
    "load memory_type=wgt dram_base=4 y_size=1 x_size=1 x_stride=1 push_next\n"
    "gemm reset_reg uop_end=2 iter_out=1 iter_in=1 pop_prev\n"
    "alu alu_opcode=shr uop_end=1 iter_out=1 iter_in=2 dst_factor_in=1 use_imm imm=2 push_next\n"
    "store memory_type=out dram_base=64 y_size=1 x_size=2 x_stride=2 pop_prev push_prev\n"
    "load memory_type=uop pop_next\n"
    "finish\n";

/* A mutated copy of k_program: bytes flipped, lines deleted or duplicated, numbers changed. */
static size_t mutate_program(uint8_t *buf, size_t max) {
  size_t n = strlen(k_program);
  assert_true(n < max);
  memcpy(buf, k_program, n);
  int k = (int)below(3);
  for (int i = 0; i < k && n; i++) {
    size_t at = below((uint32_t)n);
    switch (below(4)) {
    case 0:
      buf[at] ^= (uint8_t)(1u << below(7));
      break;
    case 1:
      memmove(buf + at, buf + at + 1, n - at - 1);
      n--;
      break;
    case 2:
      if (buf[at] >= '0' && buf[at] <= '9') buf[at] = (uint8_t)('0' + below(10));
      break;
    default:
      if (n + 8 < max) {
        memmove(buf + at + 5, buf + at, n - at);
        memcpy(buf + at, "99999", 5);
        n += 5;
      }
      break;
    }
  }
  return n;
}

/* Random instruction words that decode (so they reach the device), with small sizes and
 * addresses near the image so that some of them even run, ending in FINISH. The loop counts
 * stay small: --timeout counts instructions, so one GEMM of 2^28 micro-op steps would run for
 * minutes however short the timeout. */
static size_t random_program(uint8_t *buf, size_t max_words) {
  vta_config c;
  vta_config_default(&c);
  size_t n = below((uint32_t)max_words) + 1;
  for (size_t i = 0; i + 1 < n; i++) {
    vta_insn in;
    vta_insn_word w;
    memset(&in, 0, sizeof in);
    in.f[VTA_F_OPCODE] = below(5);
    const vta_format_layout *L = &c.layout[vta_opcode_format((unsigned)in.f[VTA_F_OPCODE])];
    for (int f = 1; f < L->nfields; f++) {
      vta_field_pos p = L->pos[L->order[f]];
      int loop = L->order[f] == VTA_F_ITER_OUT || L->order[f] == VTA_F_ITER_IN;
      uint64_t v = below(6) == 0 && !loop ? rnd() : below(5);
      v &= (p.width >= 64 ? ~0ull : (1ull << p.width) - 1);
      in.f[L->order[f]] =
          p.is_signed && (v >> (p.width - 1)) ? (int64_t)v - (1ll << p.width) : (int64_t)v;
    }
    assert_int_equal(vta_insn_encode(&c, &in, &w, NULL), VTA_OK);
    vta_insn_word_store(&w, buf + 16 * i);
  }
  vta_insn_word fin = {{VTA_OP_FINISH, 0}};
  vta_insn_word_store(&fin, buf + 16 * (n - 1));
  return 16 * n;
}

/* ---- Tests ---- */

static void test_fuzz_cli_config_garbage_files(void **state) {
  cli_tmp *t = *state;
  static uint8_t buf[8192];
  const char *in = cli_tmp_path(t, 0, "c.json");
  const char *shipped[] = {"configs/vta_default.json", "configs/legacy.json",
                           "configs/batch4.json"};
  expect x = {"config", 0, NULL};
  int ok = 0;
  for (int n = 0; n < 24; n++) {
    size_t len;
    switch (n % 3) {
    case 0:
      len = random_bytes(buf, 200);
      break;
    case 1:
      len = random_text(buf, 300);
      break;
    default:
      len = mutate_file(shipped[below(3)], buf, sizeof buf);
      break;
    }
    cli_spit(in, buf, len);
    if (RUN(t, &x, "config", in, below(2) ? "--json" : "--") == 0) ok++;
    /* The same garbage through $VTA_CONFIG, for a command that reads a configuration. */
    if (n % 4 == 0) {
      char env[400];
      snprintf(env, sizeof env, "VTA_CONFIG=%s", in);
      const char *const envs[] = {env, NULL};
      cli_result_free(&g_r);
      CLI_RUN_ENV(&g_r, envs, "disasm", "/dev/null");
      if (g_r.status != 0) {
        expect xd = {"disasm", 0, NULL};
        check_failure(t, &g_r, &xd, " disasm /dev/null (with $VTA_CONFIG)", cli_tmp_count(t));
        CLI_ASSERT_CONTAINS(g_r.err, "VTA_CONFIG");
      }
    }
  }
  unlink(in);
  /* A folder, a missing file, an empty path, a device that never ends. */
  assert_int_equal(RUN(t, &x, "config", t->dir), 1);
  assert_int_equal(RUN(t, &x, "config", cli_tmp_path(t, 1, "missing.json")), 1);
  assert_int_equal(RUN(t, &x, "config", ""), 1);
  assert_int_equal(RUN(t, &x, "config", "/dev/zero"), 1);
  assert_int_equal(RUN(t, &x, "config", "--bogus"), 2);
  assert_int_equal(RUN(t, &x, "config", "a.json", "b.json"), 2);
  print_message("config: %d of 24 garbage files accepted\n", ok);
}

static void test_fuzz_cli_asm_garbage_files(void **state) {
  cli_tmp *t = *state;
  static uint8_t buf[8192];
  const char *in = cli_tmp_path(t, 0, "in.s"), *out = cli_tmp_path(t, 1, "out.bin");
  expect x = {"asm", 1, out};
  int ok = 0;
  for (int n = 0; n < 24; n++) {
    size_t len;
    switch (n % 3) {
    case 0:
      len = random_bytes(buf, 200);
      break;
    case 1:
      len = random_text(buf, 300);
      break;
    default:
      len = mutate_program(buf, sizeof buf);
      break;
    }
    cli_spit(in, buf, len);
    /* Every other run has an old output, which a failed run must leave as it was. */
    int old = n % 2;
    unlink(out);
    if (old) cli_spit_text(out, "OLD");
    x.out = old ? NULL : out;
    int status = RUN(t, &x, "asm", in, "-o", out);
    if (old && status != 0) {
      size_t ol;
      char *o = cli_slurp(out, &ol);
      if (!o || ol != 3 || memcmp(o, "OLD", 3) != 0)
        fail_msg("a failed asm changed its old output");
      free(o);
    }
    if (status == 0) {
      ok++;
      /* Whatever was accepted disassembles and reassembles to the same bytes. */
      const char *back = cli_tmp_path(t, 2, "back.s"), *again = cli_tmp_path(t, 3, "again.bin");
      expect xd = {"disasm", 0, back}, xa = {"asm", 1, again};
      assert_int_equal(RUN(t, &xd, "disasm", out, "-o", back), 0);
      assert_int_equal(RUN(t, &xa, "asm", back, "-o", again), 0);
      size_t n1, n2;
      char *a = cli_slurp(out, &n1), *b = cli_slurp(again, &n2);
      if (n1 != n2 || memcmp(a, b, n1) != 0)
        fail_msg("asm -> disasm -> asm differs for input %d", n);
      free(a);
      free(b);
      unlink(back);
      unlink(again);
    }
  }
  unlink(out);
  /* The same through standard input. */
  size_t len = mutate_program(buf, sizeof buf);
  cli_spit(in, buf, len);
  run_checked(t, &x, in, (const char *const[]){"asm", "-", "-o", out, NULL});
  unlink(out);
  unlink(in);
  print_message("asm: %d of 24 garbage files accepted\n", ok);
}

static void test_fuzz_cli_disasm_garbage_files(void **state) {
  cli_tmp *t = *state;
  static uint8_t buf[4096];
  const char *in = cli_tmp_path(t, 0, "in.bin"), *out = cli_tmp_path(t, 1, "out.s");
  expect x = {"disasm", 0, out};
  int ok = 0;
  for (int n = 0; n < 24; n++) {
    size_t len;
    switch (n % 3) {
    case 0:
      len = random_bytes(buf, 100);
      break; /* mostly not whole words */
    case 1:
      len = 16 * below(8);
      for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)rnd();
      break;
    default:
      len = random_program(buf, 12);
      break; /* words that decode */
    }
    cli_spit(in, buf, len);
    unlink(out);
    if (RUN(t, &x, "disasm", in, "-o", out, below(2) ? "--index" : "--") == 0) {
      ok++;
      size_t tl;
      char *text = cli_slurp(out, &tl);
      size_t lines = 0;
      for (size_t i = 0; i < tl; i++) lines += text[i] == '\n';
      if (lines != len / 16) fail_msg("disasm of %zu words printed %zu lines", len / 16, lines);
      free(text);
    }
  }
  unlink(out);
  unlink(in);
  assert_true(ok >= 8); /* every generated program decodes */
}

static void test_fuzz_cli_exec_garbage_inputs(void **state) {
  cli_tmp *t = *state;
  static uint8_t buf[8192], img[4096];
  const char *prog = cli_tmp_path(t, 0, "p.bin"), *progs = cli_tmp_path(t, 1, "p.s");
  const char *mem = cli_tmp_path(t, 2, "img.bin"), *out = cli_tmp_path(t, 3, "out.bin");
  expect x = {"exec", 1, out};
  int ok = 0;
  for (size_t i = 0; i < sizeof img; i++) img[i] = (uint8_t)rnd();
  cli_spit(mem, img, sizeof img);
  for (int n = 0; n < 30; n++) {
    size_t len;
    const char *p = prog;
    switch (n % 3) {
    case 0:
      len = random_bytes(buf, 100);
      break;
    case 1:
      len = mutate_program(buf, sizeof buf);
      p = progs;
      break;
    default:
      len = random_program(buf, 10);
      break;
    }
    cli_spit(p, buf, len);
    unlink(out);
    if (RUN(t, &x, "exec", p, "--mem", mem, "--out", out, "--stats", "-", "--timeout", "20000") ==
        0)
      ok++;
    unlink(p);
  }
  /* Garbage memory images: empty, a folder, missing. */
  int sz = (int)random_program(buf, 4);
  cli_spit(prog, buf, (size_t)sz);
  cli_spit(cli_tmp_path(t, 4, "empty.bin"), "", 0);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", cli_tmp_path(t, 4, "empty.bin"), "--out", out),
                   1);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", t->dir, "--out", out), 1);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", cli_tmp_path(t, 5, "none.bin"), "--out", out),
                   1);
  assert_int_equal(RUN(t, &x, "exec", t->dir, "--mem", mem, "--out", out), 1);
  assert_int_equal(RUN(t, &x, "exec", cli_tmp_path(t, 5, "none.s"), "--mem", mem, "--out", out), 1);
  cli_spit(prog, "", 0);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out), 1);
  unlink(cli_tmp_path(t, 4, "empty.bin"));
  unlink(prog);
  unlink(mem);
  print_message("exec: %d of 30 garbage programs ran to FINISH\n", ok);
}

/* Option values that are negative, huge, not numbers, empty or missing: exit 2, one line. */
static void test_fuzz_cli_bad_option_values(void **state) {
  cli_tmp *t = *state;
  const char *prog = cli_tmp_path(t, 0, "p.s"), *mem = cli_tmp_path(t, 1, "img.bin");
  const char *out = cli_tmp_path(t, 2, "out.bin");
  cli_spit_text(prog, "finish\n");
  static const uint8_t zeros[4096];
  cli_spit(mem, zeros, sizeof zeros);
  static const char *const bad[] = {"-1",
                                    "",
                                    "abc",
                                    "1e3",
                                    " 5",
                                    "5 ",
                                    "0x",
                                    "0x1g",
                                    "+5",
                                    "99999999999999999999999",
                                    "18446744073709551616",
                                    "--",
                                    "0x10000000000000000",
                                    "-0",
                                    "\t"};
  expect x = {"exec", 0, out};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char eq[64];
    snprintf(eq, sizeof eq, "--timeout=%s", bad[i]);
    assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--base", bad[i]), 2);
    assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, i % 2 ? eq : "--timeout",
                         i % 2 ? "--" : bad[i]),
                     2);
  }
  /* Values that parse but cannot be used: an unaligned or out-of-space base is a failed run. */
  const char *unusable[] = {"1", "4095", "0xfffffffffffff000", "0xffffffffffffffff", "0x100000000"};
  for (size_t i = 0; i < sizeof unusable / sizeof unusable[0]; i++)
    assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--base", unusable[i]),
                     1);
  /* Options without their value, unknown options, unknown backends, missing operands. */
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--timeout"), 2);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem"), 2);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--backend", ""), 2);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--backend", "nope"), 2);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--frobnicate"), 2);
  assert_int_equal(RUN(t, &x, "exec", "--mem", mem, "--out", out), 2);
  assert_int_equal(RUN(t, &x, "exec", prog, prog, "--mem", mem, "--out", out), 2);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--config", ""), 1);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--config", t->dir), 1);
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--config", mem), 1);
  expect xa = {"asm", 1, out}, xd = {"disasm", 0, NULL};
  assert_int_equal(RUN(t, &xa, "asm", prog, "-o"), 2);
  assert_int_equal(RUN(t, &xa, "asm", prog), 2);
  assert_int_equal(RUN(t, &xa, "asm", "-o", out), 2);
  assert_int_equal(RUN(t, &xa, "asm", prog, prog, "-o", out), 2);
  assert_int_equal(RUN(t, &xa, "asm", prog, "-o", out, "--config"), 2);
  assert_int_equal(RUN(t, &xa, "asm", prog, "-o", out, "-x"), 2);
  assert_int_equal(RUN(t, &xd, "disasm", "--index=1", "x.bin"), 2);
  assert_int_equal(RUN(t, &xd, "disasm"), 2);
  cli_result_free(&g_r);
  CLI_RUN(&g_r, "frobnicate");
  assert_int_equal(g_r.status, 2);
  CLI_ASSERT_CONTAINS(g_r.err, "vta: unknown command");
  unlink(prog);
  unlink(mem);
}

/* Outputs that cannot be written: a /proc path, a folder, a missing folder. Nothing may be
 * left behind, including the temporary file of the atomic write. */
static void test_fuzz_cli_unwritable_outputs(void **state) {
  cli_tmp *t = *state;
  const char *prog = cli_tmp_path(t, 0, "p.s"), *mem = cli_tmp_path(t, 1, "img.bin");
  const char *bin = cli_tmp_path(t, 2, "p.bin");
  cli_spit_text(prog, "finish\n");
  static const uint8_t zeros[4096];
  cli_spit(mem, zeros, sizeof zeros);
  expect xa = {"asm", 1, bin};
  assert_int_equal(RUN(t, &xa, "asm", prog, "-o", bin), 0);
  const char *targets[] = {"/proc/x", "/proc/self/status", t->dir, "/nonexistent/dir/out"};
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    expect x = {"asm", 1, NULL};
    assert_int_equal(RUN(t, &x, "asm", prog, "-o", targets[i]), 1);
    x.cmd = "disasm";
    assert_int_equal(RUN(t, &x, "disasm", bin, "-o", targets[i]), 1);
    x.cmd = "exec";
    assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", targets[i]), 1);
    assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--stats", targets[i]), 1);
  }
  unlink(prog);
  unlink(mem);
  unlink(bin);
}

/* A run whose statistics cannot be written is a failure, so its image must not be left either
 * (cmd_exec.c's own rule: "a run that fails writes nothing at all"). */
static void test_fuzz_cli_exec_failed_stats_leaves_no_image(void **state) {
  cli_tmp *t = *state;
  const char *prog = cli_tmp_path(t, 0, "p.s"), *mem = cli_tmp_path(t, 1, "img.bin");
  const char *out = cli_tmp_path(t, 2, "out.bin");
  cli_spit_text(prog, "finish\n");
  static const uint8_t zeros[4096];
  cli_spit(mem, zeros, sizeof zeros);
  expect x = {"exec", 0, out};
  assert_int_equal(RUN(t, &x, "exec", prog, "--mem", mem, "--out", out, "--stats", "/proc/x"), 1);
  unlink(out);
  unlink(prog);
  unlink(mem);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fuzz_cli_config_garbage_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fuzz_cli_asm_garbage_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fuzz_cli_disasm_garbage_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fuzz_cli_exec_garbage_inputs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fuzz_cli_bad_option_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fuzz_cli_unwritable_outputs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fuzz_cli_exec_failed_stats_leaves_no_image, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
