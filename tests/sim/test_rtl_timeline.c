/* test_rtl_timeline.c - timelines (sim/trace, the rtl option timeline=FILE, --timeline):
 * each module's tracks add up to exactly the busy counter the RTL's control slave reports, the
 * file is trace-event JSON with the tracks, spans and counters the docs promise, and the writer
 * escapes names and writes nothing half-way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "host/cli_run.h"
#include "sim/gen/conc.h"
#include "sim/gen/prog.h"
#include "sim/rtl/rtl.h"
#include "sim/trace/trace.h"
#include "sim/timeline_prog.h"

static char *slurp(const char *path) {
  char *t = cli_slurp(path, NULL);
  assert_non_null(t);
  return t;
}

static void test_trace_writer_escapes_and_renames(void **state) {
  (void)state;
  char path[] = "/tmp/vta_trace_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
  vta_trace *t;
  vta_error err;
  assert_int_equal(vta_trace_create(path, "p \"q\"", 200.0, &t, &err), VTA_OK);
  int a = vta_trace_track(t, "tr\\ack");
  assert_int_equal(a, 0);
  vta_trace_span(t, a, "x \"y\"\n", 10, 30, "\"k\": 1");
  vta_trace_span(t, a, "z", 40, 41, NULL);
  vta_trace_span(t, a, "bad", 50, 49, NULL); /* end before begin: dropped */
  vta_trace_counter(t, "c", 5, 3);
  assert_int_equal(vta_trace_busy(t, a), 21);
  assert_false(cli_exists(path)); /* nothing at the final name before close */
  assert_int_equal(vta_trace_close(t, &err), VTA_OK);
  char *text = slurp(path);
  cJSON *j = cJSON_Parse(text);
  assert_non_null(j);
  const cJSON *ev = cJSON_GetObjectItem(j, "traceEvents"), *e;
  int spans = 0;
  cJSON_ArrayForEach(e, ev) {
    const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
    if (strcmp(ph, "X") == 0) {
      spans++;
      if (spans == 1) {
        assert_string_equal(cJSON_GetObjectItem(e, "name")->valuestring, "x \"y\"\n");
        /* 10 cycles at 200 MHz: 0.05 us. */
        assert_true(cJSON_GetObjectItem(e, "ts")->valuedouble > 0.0499 &&
                    cJSON_GetObjectItem(e, "ts")->valuedouble < 0.0501);
        const cJSON *args = cJSON_GetObjectItem(e, "args");
        assert_int_equal(cJSON_GetObjectItem(args, "cycles")->valueint, 20);
        assert_int_equal(cJSON_GetObjectItem(args, "k")->valueint, 1);
      }
    }
  }
  assert_int_equal(spans, 2);
  cJSON_Delete(j);
  free(text);
  unlink(path);
  /* An abandoned trace leaves nothing behind. */
  assert_int_equal(vta_trace_create(path, "p", 100.0, &t, &err), VTA_OK);
  vta_trace_abandon(t);
  assert_false(cli_exists(path));
  assert_int_equal(vta_trace_create("/nonexistent-dir/x.json", "p", 100.0, &t, &err),
                   VTA_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent-dir/x.json"));
}

/* How many counters of each kind a timeline has. */
typedef struct counters {
  int tokens, bytes, queue;
} counters;

static void rtl_counter(const char *name, const cJSON *args, void *ctx) {
  (void)args;
  counters *k = ctx;
  k->tokens += strncmp(name, "tokens: ", 8) == 0;
  k->bytes += strstr(name, "bytes in flight") != NULL;
  k->queue += strncmp(name, "queue: ", 7) == 0;
}

/* Runs `programs` concurrent and serialised random programs on one rtl simulator with a
 * timeline, then checks the timeline against the counters. */
static void check_config(const char *config, uint64_t first_seed, int programs) {
  vta_config cfg;
  vta_error err;
  if (vta_config_load(&cfg, config, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  char path[] = "/tmp/vta_timeline_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  vta_mem *mem;
  assert_int_equal(vta_mem_create(0, &mem, &err), VTA_OK);
  vta_rtl_options o;
  vta_rtl_options_default(&cfg, &o);
  o.timeline_path = path;
  vta_rtl *r;
  if (vta_rtl_create(&cfg, mem, &o, &r, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  vta_stats total;
  memset(&total, 0, sizeof total);
  for (int k = 0; k < programs; k++) {
    uint64_t seed = first_seed + (uint64_t)k;
    uint64_t insn, data;
    uint32_t count;
    timeline_program(&cfg, mem, seed, k, &insn, &count, &data);
    vta_stats st;
    memset(&st, 0, sizeof st);
    if (vta_rtl_run(r, insn, count, 2000000, &st, &err) != VTA_OK)
      fail_msg("%s seed %llu: %s", config, (unsigned long long)seed, err.msg);
    vta_stats_add(&total, &st);
    /* The point of the timeline: every module's tracks add up to its busy counter. */
    for (int m = 0; m < VTA_MOD_COUNT; m++)
      if (vta_rtl_timeline_busy(r, (vta_module)m) != total.busy_cycles[m])
        fail_msg("%s after seed %llu: module %d: timeline %llu busy cycles, counter %llu", config,
                 (unsigned long long)seed, m,
                 (unsigned long long)vta_rtl_timeline_busy(r, (vta_module)m),
                 (unsigned long long)total.busy_cycles[m]);
    vta_mem_free(mem, insn);
    vta_mem_free(mem, data);
  }
  assert_int_equal(vta_rtl_timeline_close(r, &err), VTA_OK);
  vta_rtl_destroy(r);
  vta_mem_destroy(mem);
  assert_true(total.busy_cycles[0] > 0 && total.busy_cycles[1] > 0 && total.busy_cycles[2] > 0);

  /* The file: the same sums from the JSON alone, a fetch span per instruction, the counters. */
  counters cc = {0, 0, 0};
  timeline_check_file(path, config, &total, rtl_counter, &cc);
  assert_true(cc.tokens > 0 && cc.bytes > 0 && cc.queue > 0);
  printf("%s: %d programs, %llu cycles; busy load %llu, compute %llu, store %llu: the tracks "
         "agree\n",
         config, programs, (unsigned long long)total.cycles,
         (unsigned long long)total.busy_cycles[0], (unsigned long long)total.busy_cycles[1],
         (unsigned long long)total.busy_cycles[2]);
}

static void test_rtl_timeline_tracks_equal_busy_counters_default(void **state) {
  (void)state;
  check_config("configs/vta_default.json", 1, 40);
}

static void test_rtl_timeline_tracks_equal_busy_counters_wide_bus(void **state) {
  (void)state;
  check_config("sim/rtl/configs/rtl_wide.json", 100, 40);
}

/* --timeline on the commands: rtl writes one; fsim has no cycles and says so. */
static void test_rtl_timeline_cli(void **state) {
  (void)state;
  char dir[] = "/tmp/vta_tl_cli_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char json[256], stats[256];
  snprintf(json, sizeof json, "%s/alu.json", dir);
  snprintf(stats, sizeof stats, "%s/out.txt", dir);
  cli_result r;
  CLI_RUN(&r, "bench", "alu", "--backend", "rtl", "--rows", "16", "--ops", "4", "--timeline",
          json);
  if (r.status != 0) fail_msg("%s\n%s", r.out, r.err);
  cli_result_free(&r);
  char *text = slurp(json);
  cJSON *j = cJSON_Parse(text);
  assert_non_null(j);
  assert_non_null(strstr(text, "\"name\": \"ALU\""));
  cJSON_Delete(j);
  free(text);
  CLI_RUN(&r, "bench", "alu", "--backend", "fsim", "--timeline", json);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "timelines come from the cycle-level backends"));
  cli_result_free(&r);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trace_writer_escapes_and_renames),
      cmocka_unit_test(test_rtl_timeline_tracks_equal_busy_counters_default),
      cmocka_unit_test(test_rtl_timeline_tracks_equal_busy_counters_wide_bus),
      cmocka_unit_test(test_rtl_timeline_cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
