/* test_cli.c - the `vta` front door (host/main.c): help, version, dispatch, and the answer for
 * unknown or absent commands. Runs the real binary as a subprocess (see cli_run.h).
 *
 * Which subcommands are built is read from this test's own link: it links the same host objects
 * as the binary (all but main.o), so a weak vta_cmd_* that is NULL here is absent there too.
 */
#include "host/cli_run.h"

#include "host/cli.h"

typedef struct cmd_entry {
  const char *name;
  int (*fn)(int argc, char **argv); /* NULL: not linked into this build */
} cmd_entry;

static const cmd_entry k_cmds[] = {
#define VTA_X_(name, summary) {#name, vta_cmd_##name},
    VTA_COMMANDS(VTA_X_)
#undef VTA_X_
};
#define NCMDS (sizeof k_cmds / sizeof k_cmds[0])

/* Commands this area implements; they must be built. */
static const char *const k_ours[] = {"config", "asm", "disasm", "exec"};

static void test_main_help_lists_every_command(void **state) {
  const char *forms[] = {"--help", "-h", "help"};
  for (size_t f = 0; f < 3; f++) {
    cli_result r;
    CLI_RUN(&r, forms[f]);
    CLI_ASSERT_STATUS(&r, 0);
    CLI_ASSERT_CONTAINS(r.out, "usage: vta <command>");
    for (size_t i = 0; i < NCMDS; i++) {
      char line[64];
      snprintf(line, sizeof line, "\n  %-9s ", k_cmds[i].name);
      CLI_ASSERT_CONTAINS(r.out, line);
    }
    assert_string_equal(r.err, "");
    cli_result_free(&r);
  }
}

static void test_main_no_arguments_is_usage_error(void **state) {
  cli_result r;
  cli_run_env(&r, NULL, NULL, (const char *const[]){NULL});
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "usage: vta <command>");
  assert_string_equal(r.out, "");
  cli_result_free(&r);
}

static void test_main_version_names_tool_isa_and_backends(void **state) {
  cli_result r;
  CLI_RUN(&r, "--version");
  CLI_ASSERT_STATUS(&r, 0);
  assert_memory_equal(r.out, "vta ", 4);
  CLI_ASSERT_CONTAINS(r.out, "HW_VER 0.0.2");
  CLI_ASSERT_CONTAINS(r.out, "backends: fsim");
  cli_result_free(&r);
}

static void test_main_unknown_command_exits_2(void **state) {
  cli_result r;
  CLI_RUN(&r, "frobnicate", "x");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unknown command 'frobnicate'");
  assert_string_equal(r.out, "");
  cli_result_free(&r);
}

static void test_main_unknown_option_exits_2(void **state) {
  cli_result r;
  CLI_RUN(&r, "--frobnicate");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unknown option '--frobnicate'");
  cli_result_free(&r);
}

static void test_main_every_command_answers_help(void **state) {
  for (size_t i = 0; i < NCMDS; i++) {
    cli_result r;
    CLI_RUN(&r, k_cmds[i].name, "--help");
    if (k_cmds[i].fn) {
      CLI_ASSERT_STATUS(&r, 0);
      CLI_ASSERT_CONTAINS(r.out, k_cmds[i].name);
      assert_true(strlen(r.out) > 40);
    } else {
      /* An absent command says so instead of pretending. */
      char want[80];
      snprintf(want, sizeof want, "vta %s: not built in this version", k_cmds[i].name);
      CLI_ASSERT_STATUS(&r, 2);
      CLI_ASSERT_CONTAINS(r.err, want);
    }
    cli_result_free(&r);
  }
}

static void test_main_help_word_equals_help_option(void **state) {
  for (size_t i = 0; i < sizeof k_ours / sizeof k_ours[0]; i++) {
    cli_result a, b;
    char usage[64];
    CLI_RUN(&a, "help", k_ours[i]);
    CLI_RUN(&b, k_ours[i], "--help");
    CLI_ASSERT_STATUS(&a, 0);
    assert_string_equal(a.out, b.out);
    snprintf(usage, sizeof usage, "usage: vta %s", k_ours[i]);
    CLI_ASSERT_CONTAINS(a.out, usage);
    cli_result_free(&a);
    cli_result_free(&b);
  }
}

static void test_main_help_of_unknown_command_exits_2(void **state) {
  cli_result r;
  CLI_RUN(&r, "help", "frobnicate");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unknown command 'frobnicate'");
  cli_result_free(&r);
  CLI_RUN(&r, "help", "asm", "extra");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unexpected argument 'extra'");
  cli_result_free(&r);
}

static void test_main_our_commands_are_built(void **state) {
  for (size_t i = 0; i < sizeof k_ours / sizeof k_ours[0]; i++)
    for (size_t j = 0; j < NCMDS; j++)
      if (strcmp(k_cmds[j].name, k_ours[i]) == 0 && !k_cmds[j].fn)
        fail_msg("vta %s is not linked in", k_ours[i]);
}

static void test_main_unknown_option_of_each_command_exits_2(void **state) {
  for (size_t i = 0; i < sizeof k_ours / sizeof k_ours[0]; i++) {
    cli_result r;
    char want[80];
    CLI_RUN(&r, k_ours[i], "--no-such-option");
    CLI_ASSERT_STATUS(&r, 2);
    snprintf(want, sizeof want, "vta %s: unknown option '--no-such-option'", k_ours[i]);
    CLI_ASSERT_CONTAINS(r.err, want);
    assert_string_equal(r.out, "");
    cli_result_free(&r);
  }
}

static void test_main_unwritable_stdout_is_failure(void **state) {
  /* Help that cannot be written (a full disk) is not a success. */
  cli_result r;
  cli_run_io(&r, NULL, NULL, "/dev/full", (const char *const[]){"help", NULL});
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "cannot write standard output");
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_main_help_lists_every_command),
      cmocka_unit_test(test_main_no_arguments_is_usage_error),
      cmocka_unit_test(test_main_version_names_tool_isa_and_backends),
      cmocka_unit_test(test_main_unknown_command_exits_2),
      cmocka_unit_test(test_main_unknown_option_exits_2),
      cmocka_unit_test(test_main_every_command_answers_help),
      cmocka_unit_test(test_main_help_word_equals_help_option),
      cmocka_unit_test(test_main_help_of_unknown_command_exits_2),
      cmocka_unit_test(test_main_our_commands_are_built),
      cmocka_unit_test(test_main_unknown_option_of_each_command_exits_2),
      cmocka_unit_test(test_main_unwritable_stdout_is_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
