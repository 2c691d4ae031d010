/* test_cmd_config.c - `vta config`: valid configurations print their derived values (text and
 * JSON), malformed and invalid ones fail with a message naming the file and the key, and bad
 * command lines exit 2. Runs the real binary as a subprocess (see cli_run.h).
 */
#include "host/cli_run.h"

#include <cJSON.h>
#include <glob.h>

static void test_config_default_prints_derived_values(void **state) {
  cli_result r;
  CLI_RUN(&r, "config");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "1x16x16");
  CLI_ASSERT_CONTAINS(r.out, "256 MACs per cycle");
  assert_string_equal(r.err, "");
  cli_result_free(&r);
}

/* Parses the JSON printed by `vta config ... --json` and returns derived.<key> (a number). */
static double json_derived(const char *text, const char *key) {
  cJSON *root = cJSON_Parse(text), *d, *v;
  double x;
  if (!root)
    fail_msg("output is not JSON:\n%s", text);
  d = cJSON_GetObjectItemCaseSensitive(root, "derived");
  assert_non_null(d);
  v = cJSON_GetObjectItemCaseSensitive(d, key);
  if (!cJSON_IsNumber(v))
    fail_msg("derived.%s missing in:\n%s", key, text);
  x = v->valuedouble;
  cJSON_Delete(root);
  return x;
}

static void test_config_json_is_parseable(void **state) {
  cli_result r;
  CLI_RUN(&r, "config", "--json");
  CLI_ASSERT_STATUS(&r, 0);
  assert_true(json_derived(r.out, "macs_per_cycle") == 256);
  assert_true(json_derived(r.out, "block_in") == 16);
  cli_result_free(&r);
}

static void test_config_every_shipped_config_is_valid(void **state) {
  glob_t g;
  assert_int_equal(glob("configs/*.json", 0, NULL, &g), 0);
  assert_true(g.gl_pathc >= 1);
  for (size_t i = 0; i < g.gl_pathc; i++) {
    cli_result r;
    CLI_RUN(&r, "config", g.gl_pathv[i], "--json");
    if (r.status != 0)
      fail_msg("%s: exit %d: %s", g.gl_pathv[i], r.status, r.err);
    assert_true(json_derived(r.out, "macs_per_cycle") >= 1);
    cli_result_free(&r);
  }
  globfree(&g);
}

static void test_config_file_values_are_used(void **state) {
  cli_tmp *t = *state;
  const char *p = cli_tmp_path(t, 0, "b4.json");
  cli_result r;
  cli_spit_text(p, "{\"LOG_BATCH\": 2, \"LOG_BLOCK\": 3}");
  CLI_RUN(&r, "config", "--json", p); /* options before or after the file */
  CLI_ASSERT_STATUS(&r, 0);
  assert_true(json_derived(r.out, "macs_per_cycle") == 4 * 8 * 8);
  cli_result_free(&r);
}

static void test_config_env_variable_is_used(void **state) {
  cli_tmp *t = *state;
  char env[400];
  const char *envs[] = {env, NULL};
  cli_result r;
  cli_spit_text(cli_tmp_path(t, 0, "b2.json"), "{\"LOG_BATCH\": 1}");
  snprintf(env, sizeof env, "VTA_CONFIG=%s", t->path[0]);
  CLI_RUN_ENV(&r, envs, "config", "--json");
  CLI_ASSERT_STATUS(&r, 0);
  assert_true(json_derived(r.out, "batch") == 2);
  cli_result_free(&r);
  snprintf(env, sizeof env, "VTA_CONFIG=%s", cli_tmp_path(t, 1, "missing.json"));
  CLI_RUN_ENV(&r, envs, "config");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "vta config: $VTA_CONFIG: ");
  CLI_ASSERT_CONTAINS(r.err, "missing.json");
  cli_result_free(&r);
}

/* Writes text to a config file, runs `vta config` on it, expects exit 1 and each needle. */
static void expect_invalid(cli_tmp *t, const char *text, const char *needle1,
                           const char *needle2) {
  const char *p = cli_tmp_path(t, 0, "bad.json");
  cli_result r;
  cli_spit_text(p, text);
  CLI_RUN(&r, "config", p);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "vta config: ");
  CLI_ASSERT_CONTAINS(r.err, p);
  CLI_ASSERT_CONTAINS(r.err, needle1);
  if (needle2)
    CLI_ASSERT_CONTAINS(r.err, needle2);
  assert_string_equal(r.out, "");
  cli_result_free(&r);
}

static void test_config_malformed_json_names_line(void **state) {
  cli_tmp *t = *state;
  expect_invalid(t, "{\n  \"LOG_BATCH\": 0,\n  \"LOG_BLOCK\": \n}\n", "malformed JSON", ":4:");
  expect_invalid(t, "", "malformed JSON", NULL);
  expect_invalid(t, "{\"LOG_BATCH\": 0", "malformed JSON", NULL);
  expect_invalid(t, "[1, 2]", "JSON object", NULL);
}

static void test_config_invalid_values_name_the_key(void **state) {
  cli_tmp *t = *state;
  expect_invalid(t, "{\"LOG_BLOCK\": 9}", "LOG_BLOCK", "9");
  expect_invalid(t, "{\"LOG_BATCH\": -1}", "LOG_BATCH", NULL);
  expect_invalid(t, "{\"LOG_BATCH\": 1.5}", "LOG_BATCH", "integer");
  expect_invalid(t, "{\"LOG_BATCH\": \"2\"}", "LOG_BATCH", "number");
  expect_invalid(t, "{\"LOG_INP_WIDTH\": 4}", "LOG_INP_WIDTH", NULL);
  expect_invalid(t, "{\"LOG_ACC_BUFF_SIZE\": 30}", "LOG_ACC_BUFF_SIZE", NULL);
  expect_invalid(t, "{\"LOG_BLOCKS\": 4}", "unknown key", "LOG_BLOCKS");
  expect_invalid(t, "{\"LOG_BATCH\": 0, \"LOG_BATCH\": 1}", "LOG_BATCH", "twice");
}

static void test_config_missing_file_exits_1(void **state) {
  cli_tmp *t = *state;
  cli_result r;
  CLI_RUN(&r, "config", cli_tmp_path(t, 0, "nope.json"));
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "nope.json");
  cli_result_free(&r);
}

static void test_config_bad_arguments_exit_2(void **state) {
  cli_result r;
  CLI_RUN(&r, "config", "a.json", "b.json");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "vta config: unexpected argument 'b.json'");
  cli_result_free(&r);
  CLI_RUN(&r, "config", "--jsn");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unknown option '--jsn'");
  cli_result_free(&r);
  CLI_RUN(&r, "config", "--json=yes");
  CLI_ASSERT_STATUS(&r, 2);
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_config_default_prints_derived_values),
      cmocka_unit_test(test_config_json_is_parseable),
      cmocka_unit_test(test_config_every_shipped_config_is_valid),
      cmocka_unit_test_setup_teardown(test_config_file_values_are_used, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_config_env_variable_is_used, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_config_malformed_json_names_line, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_config_invalid_values_name_the_key, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_config_missing_file_exits_1, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test(test_config_bad_arguments_exit_2),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
