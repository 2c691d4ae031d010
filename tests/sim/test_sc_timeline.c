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

typedef struct track_sum {
  char name[64];
  uint64_t cycles, spans;
} track_sum;

typedef struct ctr {
  char name[64];
  double last;
  int n, negative;
} ctr;

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
  char *text = slurp(path);
  cJSON *j = cJSON_Parse(text);
  free(text);
  if (!j) fail_msg("%s: the timeline is not JSON", path);
  track_sum tr[16];
  memset(tr, 0, sizeof tr);
  ctr cs[16];
  int ncs = 0;
  memset(cs, 0, sizeof cs);
  double end_us = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "traceEvents")) {
    const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
    const cJSON *tid = cJSON_GetObjectItem(e, "tid");
    int t = tid ? tid->valueint : 0;
    if (t < 0 || t >= 16) fail_msg("tid %d", t);
    const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
    if (strcmp(ph, "M") == 0 && strcmp(name, "thread_name") == 0)
      snprintf(tr[t].name, sizeof tr[t].name, "%s",
               cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "name")->valuestring);
    if (strcmp(ph, "X") == 0) {
      tr[t].cycles += (uint64_t)cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "cycles")
                          ->valuedouble;
      tr[t].spans++;
      double ts = cJSON_GetObjectItem(e, "ts")->valuedouble;
      if (ts > end_us) end_us = ts;
    }
    if (strcmp(ph, "C") == 0) {
      int c = 0;
      while (c < ncs && strcmp(cs[c].name, name) != 0) c++;
      if (c == ncs) {
        assert_true(ncs < 16);
        snprintf(cs[ncs++].name, sizeof cs[0].name, "%s", name);
      }
      const cJSON *args = cJSON_GetObjectItem(e, "args");
      double v = args && args->child ? args->child->valuedouble : 0;
      cs[c].last = v;
      cs[c].n++;
      if (v < 0) cs[c].negative = 1;
    }
  }
  cJSON_Delete(j);
  unlink(path);
  uint64_t load = 0, compute = 0, store = 0, fetch_spans = 0;
  int named = 0;
  for (int t = 1; t < 16; t++) {
    if (!tr[t].name[0]) continue;
    named++;
    if (strcmp(tr[t].name, "fetch") == 0) fetch_spans = tr[t].spans;
    else if (strcmp(tr[t].name, "load") == 0) load = tr[t].cycles;
    else if (strcmp(tr[t].name, "store") == 0) store = tr[t].cycles;
    else compute += tr[t].cycles; /* compute, GEMM, ALU */
  }
  assert_int_equal(named, 6);
  assert_int_equal(load, total.busy_cycles[VTA_MOD_LOAD]);
  assert_int_equal(compute, total.busy_cycles[VTA_MOD_COMPUTE]);
  assert_int_equal(store, total.busy_cycles[VTA_MOD_STORE]);
  assert_int_equal(fetch_spans, total.insns);
  /* Every counter: present, never negative, back at zero when the last run ended (every command
   * taken, every token popped, every burst answered). */
  int tokens = 0, bytes = 0, queues = 0;
  for (int c = 0; c < ncs; c++) {
    if (cs[c].negative) fail_msg("%s: counter '%s' went negative", config, cs[c].name);
    if (cs[c].last != 0)
      fail_msg("%s: counter '%s' ends at %g, not 0", config, cs[c].name, cs[c].last);
    tokens += strncmp(cs[c].name, "tokens: ", 8) == 0 && cs[c].n > programs;
    bytes += strstr(cs[c].name, "bytes in flight") != NULL && cs[c].n > programs;
    queues += strncmp(cs[c].name, "queue: ", 7) == 0 && cs[c].n > programs;
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
