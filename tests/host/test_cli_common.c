/* test_cli_common.c - the helpers every subcommand shares (host/cli_common.c), called
 * in-process: number parsing, whole-file reads, atomic writes, configuration and backend
 * selection, option matching and the instruction-stream check.
 */
#include "host/cli_run.h"

#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/config.h"
#include "vta/isa.h"

static void test_parse_u64_accepts_decimal_and_hex(void **state) {
  uint64_t v = 0;
  assert_int_equal(vta_cli_parse_u64("t", "--n", "0", 10, &v), 0);
  assert_int_equal(v, 0);
  assert_int_equal(vta_cli_parse_u64("t", "--n", "1234", UINT64_MAX, &v), 0);
  assert_int_equal(v, 1234);
  assert_int_equal(vta_cli_parse_u64("t", "--n", "0x1F", UINT64_MAX, &v), 0);
  assert_int_equal(v, 31);
  assert_int_equal(vta_cli_parse_u64("t", "--n", "0Xff", UINT64_MAX, &v), 0);
  assert_int_equal(v, 255);
  /* A leading zero is still decimal: no octal surprise. */
  assert_int_equal(vta_cli_parse_u64("t", "--n", "010", UINT64_MAX, &v), 0);
  assert_int_equal(v, 10);
  assert_int_equal(vta_cli_parse_u64("t", "--n", "18446744073709551615", UINT64_MAX, &v), 0);
  assert_true(v == UINT64_MAX);
}

static void test_parse_u64_rejects_junk_and_overflow(void **state) {
  const char *bad[] = {"", "x", "-1", "+1", " 1", "1 ", "12abc", "0x", "0xg", "1.5",
                       "18446744073709551616", "0x10000000000000000"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t v = 77;
    if (vta_cli_parse_u64("t", "--n", bad[i], UINT64_MAX, &v) != -1)
      fail_msg("'%s' was accepted as %llu", bad[i], (unsigned long long)v);
    assert_int_equal(v, 77);
  }
}

static void test_parse_u64_enforces_limit(void **state) {
  uint64_t v = 0;
  assert_int_equal(vta_cli_parse_u64("t", "--n", "100", 100, &v), 0);
  assert_int_equal(v, 100);
  assert_int_equal(vta_cli_parse_u64("t", "--n", "101", 100, &v), -1);
  assert_int_equal(vta_cli_parse_u64("t", "--n", "0x65", 100, &v), -1);
}

static void test_write_file_creates_and_replaces_atomically(void **state) {
  cli_tmp *t = *state;
  const char *p = cli_tmp_path(t, 0, "out.bin");
  size_t n = 0;
  char *got;
  assert_int_equal(vta_cli_write_file("t", p, "first", 5), 0);
  got = cli_slurp(p, &n);
  assert_int_equal(n, 5);
  assert_memory_equal(got, "first", 5);
  free(got);
  assert_int_equal(vta_cli_write_file("t", p, "2nd", 3), 0);
  got = cli_slurp(p, &n);
  assert_int_equal(n, 3);
  assert_memory_equal(got, "2nd", 3);
  free(got);
  /* An empty write gives an empty file, and no temporary file is left beside it. */
  assert_int_equal(vta_cli_write_file("t", p, "", 0), 0);
  got = cli_slurp(p, &n);
  assert_int_equal(n, 0);
  free(got);
  assert_int_equal(cli_tmp_count(t), 1);
}

static void test_write_file_gives_normal_permissions(void **state) {
  cli_tmp *t = *state;
  const char *p = cli_tmp_path(t, 0, "perm.bin");
  struct stat st;
  mode_t mask = umask(022);
  assert_int_equal(vta_cli_write_file("t", p, "x", 1), 0);
  umask(mask);
  assert_int_equal(stat(p, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);
}

static void test_write_file_failure_leaves_nothing(void **state) {
  cli_tmp *t = *state;
  const char *missing = cli_tmp_path(t, 0, "no/such/folder/out.bin");
  const char *dir = cli_tmp_path(t, 1, "adir");
  assert_int_equal(vta_cli_write_file("t", missing, "x", 1), -1);
  assert_int_equal(cli_tmp_count(t), 0);
  /* The target is a folder: rename fails, the temporary file is removed again. */
  assert_int_equal(mkdir(dir, 0755), 0);
  assert_int_equal(vta_cli_write_file("t", dir, "x", 1), -1);
  assert_int_equal(cli_tmp_count(t), 1);
}

static void test_read_file_reads_whole_binary(void **state) {
  cli_tmp *t = *state;
  const char *p = cli_tmp_path(t, 0, "in.bin");
  unsigned char data[200000], *got = NULL;
  size_t n = 0;
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (unsigned char)(i * 7 + (i >> 9));
  cli_spit(p, data, sizeof data);
  assert_int_equal(vta_cli_read_file("t", p, &got, &n), 0);
  assert_int_equal(n, sizeof data);
  assert_memory_equal(got, data, sizeof data);
  assert_int_equal(got[n], 0); /* NUL-terminated for text callers */
  free(got);
  cli_spit(p, "", 0);
  assert_int_equal(vta_cli_read_file("t", p, &got, &n), 0);
  assert_int_equal(n, 0);
  free(got);
}

static void test_read_file_fails_on_missing_file_and_folder(void **state) {
  cli_tmp *t = *state;
  unsigned char *got = NULL;
  size_t n = 0;
  assert_int_equal(vta_cli_read_file("t", cli_tmp_path(t, 0, "missing"), &got, &n), -1);
  assert_int_equal(vta_cli_read_file("t", t->dir, &got, &n), -1);
  assert_null(got);
}

static void test_config_default_env_and_file(void **state) {
  cli_tmp *t = *state;
  const char *p = cli_tmp_path(t, 0, "c.json");
  vta_config cfg, def;
  vta_config_default(&def);
  unsetenv("VTA_CONFIG");
  assert_int_equal(vta_cli_config("t", NULL, &cfg), 0);
  assert_int_equal(cfg.block_in, def.block_in);
  assert_int_equal(cfg.batch, 1);
  cli_spit_text(p, "{\"LOG_BATCH\": 2}");
  setenv("VTA_CONFIG", p, 1);
  assert_int_equal(vta_cli_config("t", NULL, &cfg), 0);
  assert_int_equal(cfg.batch, 4);
  /* An explicit file wins over the environment. */
  cli_spit_text(cli_tmp_path(t, 1, "d.json"), "{\"LOG_BATCH\": 1}");
  assert_int_equal(vta_cli_config("t", t->path[1], &cfg), 0);
  assert_int_equal(cfg.batch, 2);
  setenv("VTA_CONFIG", cli_tmp_path(t, 2, "missing.json"), 1);
  assert_int_equal(vta_cli_config("t", NULL, &cfg), -1);
  unsetenv("VTA_CONFIG");
  assert_int_equal(vta_cli_config("t", t->path[2], &cfg), -1);
}

static void test_backend_choice_order(void **state) {
  unsetenv("VTA_BACKEND");
  assert_string_equal(vta_cli_backend(NULL), "fsim");
  setenv("VTA_BACKEND", "rtl", 1);
  assert_string_equal(vta_cli_backend(NULL), "rtl");
  assert_string_equal(vta_cli_backend("sc"), "sc");
  setenv("VTA_BACKEND", "", 1);
  assert_string_equal(vta_cli_backend(NULL), "fsim");
  unsetenv("VTA_BACKEND");
}

static void test_option_forms(void **state) {
  char *argv[] = {"x", "--out", "a", "--out=b", "-o", "c", "--outer", "--out"};
  int argc = 8, i;
  const char *v = NULL;
  i = 1;
  assert_int_equal(vta_cli_option("t", argc, argv, &i, "--out", "-o", &v), 1);
  assert_string_equal(v, "a");
  assert_int_equal(i, 2);
  i = 3;
  assert_int_equal(vta_cli_option("t", argc, argv, &i, "--out", "-o", &v), 1);
  assert_string_equal(v, "b");
  assert_int_equal(i, 3);
  i = 4;
  assert_int_equal(vta_cli_option("t", argc, argv, &i, "--out", "-o", &v), 1);
  assert_string_equal(v, "c");
  i = 6; /* a longer option with the same prefix is another option */
  assert_int_equal(vta_cli_option("t", argc, argv, &i, "--out", "-o", &v), 0);
  i = 7; /* the value is missing */
  assert_int_equal(vta_cli_option("t", argc, argv, &i, "--out", "-o", &v), -1);
}

static void test_check_insns_names_offset(void **state) {
  vta_config cfg;
  uint8_t bytes[48];
  vta_config_default(&cfg);
  memset(bytes, 0, sizeof bytes);
  bytes[0] = VTA_OP_FINISH;
  bytes[16] = VTA_OP_FINISH;
  bytes[32] = VTA_OP_FINISH;
  assert_int_equal(vta_cli_check_insns("t", &cfg, "p.bin", bytes, 48), 0);
  assert_int_equal(vta_cli_check_insns("t", &cfg, "p.bin", bytes, 0), 0);
  assert_int_equal(vta_cli_check_insns("t", &cfg, "p.bin", bytes, 40), -1);
  bytes[32] = 7; /* undefined opcode */
  assert_int_equal(vta_cli_check_insns("t", &cfg, "p.bin", bytes, 48), -1);
  bytes[32] = VTA_OP_FINISH;
  bytes[31] = 0x80; /* a FINISH has only its 7-bit head: bit 127 of insn 1 is reserved */
  assert_int_equal(vta_cli_check_insns("t", &cfg, "p.bin", bytes, 48), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_u64_accepts_decimal_and_hex),
      cmocka_unit_test(test_parse_u64_rejects_junk_and_overflow),
      cmocka_unit_test(test_parse_u64_enforces_limit),
      cmocka_unit_test_setup_teardown(test_write_file_creates_and_replaces_atomically,
                                      cli_tmp_setup, cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_write_file_gives_normal_permissions, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_write_file_failure_leaves_nothing, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_read_file_reads_whole_binary, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_read_file_fails_on_missing_file_and_folder,
                                      cli_tmp_setup, cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_config_default_env_and_file, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test(test_backend_choice_order),
      cmocka_unit_test(test_option_forms),
      cmocka_unit_test(test_check_insns_names_offset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
