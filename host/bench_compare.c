/* bench_compare.c - `vta bench ... --backend rtl,sc`: one benchmark on several backends in one
 * run, each backend's JSON lines as usual, then one comparison line per pair of lines that both
 * report cycles.
 *
 * The design idea: a benchmark knows nothing of comparisons. This runs it once per backend with
 * its output captured, prints what it printed, and pairs the i-th line of every later backend
 * with the i-th line of the first (a benchmark prints the same lines on every backend): the
 * cycle error against the first backend and the ratio of simulated cycles per second, measured
 * back to back in one process, which is how issue 12's targets are reported.
 */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/bench.h"
#include "host/cli_args.h"

#define MAX_BACKENDS 4

typedef struct captured {
  char **lines;
  size_t n;
} captured;

static void captured_free(captured *c) {
  for (size_t i = 0; i < c->n; i++) free(c->lines[i]);
  free(c->lines);
}

/* Runs the benchmark with stdout captured into c (and echoed). Returns its exit status. */
static int run_captured(int argc, char **argv, int (*run)(int, char **), captured *c) {
  fflush(stdout);
  FILE *tmp = tmpfile();
  if (!tmp) {
    fprintf(stderr, "vta bench: cannot create a temporary file to compare backends\n");
    return VTA_EXIT_FAIL;
  }
  int saved = dup(1);
  if (saved < 0 || dup2(fileno(tmp), 1) < 0) {
    fclose(tmp);
    fprintf(stderr, "vta bench: cannot capture the output to compare backends\n");
    return VTA_EXIT_FAIL;
  }
  int rc = run(argc, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  rewind(tmp);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, tmp)) > 0) {
    fputs(line, stdout);
    char **l = realloc(c->lines, (c->n + 1) * sizeof *l);
    if (!l) break;
    c->lines = l;
    c->lines[c->n++] = strdup(line);
  }
  free(line);
  fclose(tmp);
  return rc;
}

static double num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void compare_line(const char *name0, const char *l0, const char *name1, const char *l1) {
  cJSON *a = cJSON_Parse(l0), *b = cJSON_Parse(l1);
  double c0 = a ? num(a, "cycles") : -1, c1 = b ? num(b, "cycles") : -1;
  if (c0 > 0 && c1 > 0) {
    double s0 = num(a, "device_seconds"), s1 = num(b, "device_seconds");
    if (s0 <= 0 || s1 <= 0) {
      s0 = num(a, "wall_seconds");
      s1 = num(b, "wall_seconds");
    }
    const cJSON *bench = cJSON_GetObjectItemCaseSensitive(a, "bench");
    const cJSON *layer = cJSON_GetObjectItemCaseSensitive(a, "layer");
    printf("{\"bench\":\"%s\"", cJSON_IsString(bench) ? bench->valuestring : "?");
    if (cJSON_IsString(layer)) printf(",\"layer\":\"%s\"", layer->valuestring);
    if (cJSON_IsNumber(layer)) printf(",\"layer\":%d", layer->valueint);
    printf(",\"compare\":\"%s/%s\",\"%s_cycles\":%.0f,\"%s_cycles\":%.0f,\"cycle_error\":%.6f", name1,
           name0, name0, c0, name1, c1, (c1 - c0) / c0);
    if (s0 > 0 && s1 > 0)
      printf(",\"%s_seconds\":%.6f,\"%s_seconds\":%.6f,\"%s_sim_cycles_per_s\":%.0f,"
             "\"%s_sim_cycles_per_s\":%.0f,\"speed_ratio\":%.2f",
             name0, s0, name1, s1, name0, c0 / s0, name1, c1 / s1, (c1 / s1) / (c0 / s0));
    /* The same from the CPU time of the device runs (every thread of the process): what each
     * simulator costs, unaffected by what else shares the machine's cores. */
    double p0 = num(a, "device_cpu_seconds"), p1 = num(b, "device_cpu_seconds");
    if (p0 > 0 && p1 > 0)
      printf(",\"%s_cpu_seconds\":%.6f,\"%s_cpu_seconds\":%.6f,\"%s_sim_cycles_per_cpu_s\":%.0f,"
             "\"%s_sim_cycles_per_cpu_s\":%.0f,\"speed_ratio_cpu\":%.2f",
             name0, p0, name1, p1, name0, c0 / p0, name1, c1 / p1, (c1 / p1) / (c0 / p0));
    printf("}\n");
  }
  cJSON_Delete(a);
  cJSON_Delete(b);
}

int vta_bench_compare(int argc, char **argv, int at, int (*run)(int, char **)) {
  /* argv[at] is "--backend" (value in argv[at + 1]) or "--backend=LIST". */
  int inline_value = strncmp(argv[at], "--backend=", 10) == 0;
  const char *list = inline_value ? argv[at] + 10 : argv[at + 1];
  char names[MAX_BACKENDS][32];
  int nb = 0;
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof names[0] || nb == MAX_BACKENDS)
      return vta_cli_usage_error("bench", "--backend %s: expected up to %d backend names "
                                          "separated by commas",
                                 list, MAX_BACKENDS);
    memcpy(names[nb], p, n);
    names[nb++][n] = '\0';
    p += n;
    if (*p == ',') p++;
  }
  char **av = calloc((size_t)argc + 1, sizeof *av);
  char arg[48];
  if (!av) return VTA_EXIT_FAIL;
  captured out[MAX_BACKENDS];
  memset(out, 0, sizeof out);
  int rc = VTA_EXIT_OK;
  for (int k = 0; k < nb && rc == VTA_EXIT_OK; k++) {
    memcpy(av, argv, (size_t)argc * sizeof *av);
    if (inline_value) {
      snprintf(arg, sizeof arg, "--backend=%s", names[k]);
      av[at] = arg;
    } else {
      av[at + 1] = names[k];
    }
    rc = run_captured(argc, av, run, &out[k]);
  }
  for (int k = 1; k < nb && rc == VTA_EXIT_OK; k++)
    for (size_t i = 0; i < out[0].n && i < out[k].n; i++)
      compare_line(names[0], out[0].lines[i], names[k], out[k].lines[i]);
  for (int k = 0; k < nb; k++) captured_free(&out[k]);
  free(av);
  return rc;
}
