/* timeline_prog.h - what the timeline tests (test_rtl_timeline, test_sc_timeline) share: the
 * random programs they run (even k a concurrent program of 40 to 99 instructions, sim/gen/conc.h;
 * odd k a serialised random program of 30, sim/gen/prog.h; both built in `mem` from `seed`),
 * and the check of a written timeline file against the counters of its runs. */
#ifndef VTA_TESTS_SIM_TIMELINE_PROG_H
#define VTA_TESTS_SIM_TIMELINE_PROG_H

static void timeline_program(const vta_config *cfg, vta_mem *mem, uint64_t seed, int k,
                             uint64_t *insn, uint32_t *count, uint64_t *data) {
  char why[400];
  if (k % 2 == 0) {
    cp_program p;
    if (cp_build(cfg, seed, 40 + (uint32_t)(seed % 60), mem, &p, why, sizeof why) != 0)
      fail_msg("seed %llu: %s", (unsigned long long)seed, why);
    *insn = p.insn;
    *count = p.count;
    *data = p.data;
  } else {
    fp_random p;
    assert_int_equal(fp_random_build(cfg, seed, 30, mem, &p), 0);
    assert_int_equal(fp_serialize(cfg, mem, p.insn, p.count, insn, count), 0);
    vta_mem_free(mem, p.insn);
    *data = p.data;
  }
}

/* A timeline's spans per track (tid). */
typedef struct track_sum {
  char name[64];
  uint64_t cycles, spans;
} track_sum;

/* Each counter event of a timeline: its name and its args. */
typedef void (*timeline_counter_fn)(const char *name, const cJSON *args, void *ctx);

/* Reads the timeline file at `path` (then deletes it) and checks it alone against the counters
 * `total` of its runs: six named tracks, whose spans add up to the busy cycles of load, compute
 * (compute, GEMM, ALU) and store, and one fetch span per instruction. Every counter event goes
 * to `counter`. Returns the start of the last span, in microseconds. */
static double timeline_check_file(const char *path, const char *config, const vta_stats *total,
                                  timeline_counter_fn counter, void *ctx) {
  char *text = cli_slurp(path, NULL);
  if (!text) fail_msg("%s: cannot read %s", config, path);
  cJSON *j = cJSON_Parse(text);
  free(text);
  if (!j) fail_msg("%s: the timeline is not JSON", path);
  track_sum tr[16];
  memset(tr, 0, sizeof tr);
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
    if (strcmp(ph, "C") == 0) counter(name, cJSON_GetObjectItem(e, "args"), ctx);
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
  assert_int_equal(load, total->busy_cycles[VTA_MOD_LOAD]);
  assert_int_equal(compute, total->busy_cycles[VTA_MOD_COMPUTE]);
  assert_int_equal(store, total->busy_cycles[VTA_MOD_STORE]);
  assert_int_equal(fetch_spans, total->insns);
  return end_us;
}

#endif
