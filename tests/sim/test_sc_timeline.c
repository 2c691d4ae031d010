/* test_sc_timeline.c - the SystemC model's timelines (the sc option timeline=FILE, --timeline on
 * the commands): each module's tracks add up to exactly the busy counters sc reports, every
 * instruction has its fetch span, the counters (command queues, token queues, bytes in flight)
 * start and end each run at zero and never go negative, and a file that cannot be written is
 * named.
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
#include "sim/sc/sc.h"
#include "sim/timeline_prog.h"

static char *slurp(const char *path) {
  char *t = cli_slurp(path, NULL);
  assert_non_null(t);
  return t;
}

typedef struct ctr {
  char name[64];
  double last;
  int n, negative;
} ctr;

/* The counters of a timeline: each one's last value, event count and whether it went below 0. */
typedef struct counters {
  ctr c[16];
  int n;
} counters;

static void sc_counter(const char *name, const cJSON *args, void *ctx) {
  counters *cs = ctx;
  int c = 0;
  while (c < cs->n && strcmp(cs->c[c].name, name) != 0) c++;
  if (c == cs->n) {
    assert_true(cs->n < 16);
    snprintf(cs->c[cs->n++].name, sizeof cs->c[0].name, "%s", name);
  }
  double v = args && args->child ? args->child->valuedouble : 0;
  cs->c[c].last = v;
  cs->c[c].n++;
  if (v < 0) cs->c[c].negative = 1;
}

/* Runs `programs` concurrent and serialised random programs on one sc simulator with a timeline,
 * then checks the timeline against the counters. */
static void check_config(const char *config, uint64_t first_seed, int programs) {
  vta_config cfg;
  vta_error err;
  if (vta_config_load(&cfg, config, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  char path[] = "/tmp/vta_sc_timeline_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  vta_mem *mem;
  assert_int_equal(vta_mem_create(0, &mem, &err), VTA_OK);
  vta_sc_options o;
  vta_sc_options_default(&cfg, &o);
  o.timeline_path = path;
  vta_sc *s;
  if (vta_sc_create(&cfg, mem, &o, &s, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  vta_stats total;
  memset(&total, 0, sizeof total);
  for (int k = 0; k < programs; k++) {
    uint64_t seed = first_seed + (uint64_t)k;
    uint64_t insn, data;
    uint32_t count;
    timeline_program(&cfg, mem, seed, k, &insn, &count, &data);
    vta_stats st;
    memset(&st, 0, sizeof st);
    if (vta_sc_run(s, insn, count, 2000000, &st, &err) != VTA_OK)
      fail_msg("%s seed %llu: %s", config, (unsigned long long)seed, err.msg);
    vta_stats_add(&total, &st);
    for (int m = 0; m < VTA_MOD_COUNT; m++)
      if (vta_sc_timeline_busy(s, m) != total.busy_cycles[m])
        fail_msg("%s after seed %llu: module %d: timeline %llu busy cycles, counter %llu", config,
                 (unsigned long long)seed, m, (unsigned long long)vta_sc_timeline_busy(s, m),
                 (unsigned long long)total.busy_cycles[m]);
    vta_mem_free(mem, insn);
    vta_mem_free(mem, data);
  }
  assert_int_equal(vta_sc_timeline_close(s, &err), VTA_OK);
  vta_sc_destroy(s);
  vta_mem_destroy(mem);
  assert_true(total.busy_cycles[0] > 0 && total.busy_cycles[1] > 0 && total.busy_cycles[2] > 0);

  /* The file alone: the same sums, a fetch span per instruction, the counters. */
  counters cc;
  memset(&cc, 0, sizeof cc);
  double end_us = timeline_check_file(path, config, &total, sc_counter, &cc);
  /* Every counter: present, never negative, back at zero when the last run ended (every command
   * taken, every token popped, every burst answered). */
  int tokens = 0, bytes = 0, queues = 0;
  for (int c = 0; c < cc.n; c++) {
    const ctr *k = &cc.c[c];
    if (k->negative) fail_msg("%s: counter '%s' went negative", config, k->name);
    if (k->last != 0) fail_msg("%s: counter '%s' ends at %g, not 0", config, k->name, k->last);
    tokens += strncmp(k->name, "tokens: ", 8) == 0 && k->n > programs;
    bytes += strstr(k->name, "bytes in flight") != NULL && k->n > programs;
    queues += strncmp(k->name, "queue: ", 7) == 0 && k->n > programs;
  }
  assert_true(tokens >= 3 && bytes == 2 && queues == 3);
  assert_true(end_us > 0);
  printf("%s: %d programs, %llu cycles; busy load %llu, compute %llu, store %llu: the tracks "
         "agree\n",
         config, programs, (unsigned long long)total.cycles,
         (unsigned long long)total.busy_cycles[0], (unsigned long long)total.busy_cycles[1],
         (unsigned long long)total.busy_cycles[2]);
}

static void test_sc_timeline_tracks_equal_busy_counters_default(void **state) {
  (void)state;
  check_config("configs/vta_default.json", 1, 60);
}

static void test_sc_timeline_tracks_equal_busy_counters_wide_bus(void **state) {
  (void)state;
  check_config("sim/rtl/configs/rtl_wide.json", 100, 60);
}

/* A timeline that cannot be written is refused when the device opens, naming the file. */
static void test_sc_timeline_unwritable_is_named(void **state) {
  (void)state;
  vta_config cfg;
  vta_config_default(&cfg);
  vta_mem *mem;
  vta_error err;
  assert_int_equal(vta_mem_create(0, &mem, &err), VTA_OK);
  vta_sc_options o;
  vta_sc_options_default(&cfg, &o);
  char text[] = "timeline=/nonexistent-dir/t.json";
  assert_int_equal(vta_sc_options_parse(text, &o, &err), VTA_OK);
  vta_sc *s = NULL;
  assert_int_equal(vta_sc_create(&cfg, mem, &o, &s, &err), VTA_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent-dir/t.json"));
  char empty[] = "timeline=";
  assert_int_equal(vta_sc_options_parse(empty, &o, &err), VTA_ERR_INVALID);
  vta_mem_destroy(mem);
}

/* --timeline on the commands with --backend sc. */
static void test_sc_timeline_cli(void **state) {
  (void)state;
  char dir[] = "/tmp/vta_sc_tl_cli_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char json[256];
  snprintf(json, sizeof json, "%s/alu.json", dir);
  cli_result r;
  CLI_RUN(&r, "bench", "alu", "--backend", "sc", "--rows", "16", "--ops", "4", "--timeline",
          json);
  if (r.status != 0) fail_msg("%s\n%s", r.out, r.err);
  cli_result_free(&r);
  char *text = slurp(json);
  cJSON *j = cJSON_Parse(text);
  assert_non_null(j);
  assert_non_null(strstr(text, "\"name\": \"ALU\""));
  assert_non_null(strstr(text, "\"name\": \"vta sc\""));
  cJSON_Delete(j);
  free(text);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sc_timeline_tracks_equal_busy_counters_default),
      cmocka_unit_test(test_sc_timeline_tracks_equal_busy_counters_wide_bus),
      cmocka_unit_test(test_sc_timeline_unwritable_is_named),
      cmocka_unit_test(test_sc_timeline_cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
