/* regress.c - the regression plan (suites, matrices, reruns), its run, JUnit XML and the
 * summary table (see regress.h). One case's run and comparison live below, in driver/diff.c.
 *
 * The design idea: everything is a flat list of cases in plan order. A suite, a matrix given on
 * the command line and the failures of an earlier JUnit file all become such a list; the
 * results are an array parallel to it, so the JUnit writer, the summary and the rerun parser
 * need no knowledge of where the cases came from. Cases of one configuration and backend are
 * consecutive, so the runner keeps one device open across them.
 */
#include "host/regress.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "host/executor.h"
#include "host/regress_work.h"
#include "vta/device.h"
#include "vta/file.h"
#include "vta/limits.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void vta_regress_plan_init(vta_regress_plan *p) { memset(p, 0, sizeof *p); }

void vta_regress_plan_free(vta_regress_plan *p) {
  for (uint32_t i = 0; i < p->nconfigs; i++) free(p->configs[i]);
  for (uint32_t i = 0; i < p->nbackends; i++) free(p->backends[i]);
  free(p->cases);
  memset(p, 0, sizeof *p);
}

static int axis_add(char **axis, uint32_t *n, const char *what, const char *value,
                    vta_error *err) {
  for (uint32_t i = 0; i < *n; i++)
    if (strcmp(axis[i], value) == 0) return (int)i;
  if (*n >= VTA_REGRESS_MAX_AXIS)
    return vta_error_set(err, VTA_ERR_INVALID, "more than %d %s in one regression (at '%s')",
                         VTA_REGRESS_MAX_AXIS, what, value),
           -1;
  axis[*n] = strdup(value);
  if (!axis[*n]) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory"), -1;
  return (int)(*n)++;
}

int vta_regress_plan_config(vta_regress_plan *p, const char *path, vta_error *err) {
  return axis_add(p->configs, &p->nconfigs, "configurations", path, err);
}

/* A backend of the matrix is NAME or NAME@OPTIONS (the backend's option string, e.g.
 * rtl@latency=1,bandwidth=3: the same RTL behind a slow memory). */
static void backend_split(const char *spec, char *name, size_t n, const char **options) {
  const char *at = strchr(spec, '@');
  snprintf(name, n, "%.*s", at ? (int)(at - spec) : (int)strlen(spec), spec);
  *options = at ? at + 1 : NULL;
}

/* Backends being built in other work: a suite may name them before they exist. */
static const char *const k_planned[] = {"sc", "xrt"};

int vta_regress_backend_known(const char *name, char *list, size_t n) {
  if (list) {
    list[0] = 0;
    for (const vta_backend *const *b = vta_backends(); *b; b++)
      snprintf(list + strlen(list), n - strlen(list), "%s%s", list[0] ? ", " : "", (*b)->name);
    snprintf(list + strlen(list), n - strlen(list), "; planned:");
    for (size_t i = 0; i < sizeof k_planned / sizeof k_planned[0]; i++)
      if (!vta_backend_find(k_planned[i]))
        snprintf(list + strlen(list), n - strlen(list), " %s", k_planned[i]);
  }
  char base[64];
  const char *opts;
  backend_split(name, base, sizeof base, &opts);
  if (vta_backend_find(base)) return 1;
  for (size_t i = 0; i < sizeof k_planned / sizeof k_planned[0]; i++)
    if (strcmp(k_planned[i], base) == 0) return 2;
  return 0;
}

int vta_regress_plan_backend(vta_regress_plan *p, const char *name, vta_error *err) {
  char list[256];
  if (!vta_regress_backend_known(name, list, sizeof list))
    return vta_error_set(err, VTA_ERR_INVALID, "unknown backend '%s' (built: %s)", name, list),
           -1;
  return axis_add(p->backends, &p->nbackends, "backends", name, err);
}

int vta_regress_plan_add(vta_regress_plan *p, uint32_t config, uint32_t backend,
                         vta_diff_workload w, uint64_t seed, vta_error *err) {
  if (p->ncases == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 256;
    if (cap > (size_t)100000000)
      return vta_error_set(err, VTA_ERR_INVALID, "more than 100,000,000 cases in one regression");
    vta_regress_case *c = realloc(p->cases, cap * sizeof *c);
    if (!c) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory for %zu cases", cap);
    p->cases = c;
    p->cap = cap;
  }
  p->cases[p->ncases++] = (vta_regress_case){config, backend, w, seed};
  return VTA_OK;
}

int vta_regress_plan_matrix(vta_regress_plan *p, const char *const *configs, size_t nconfigs,
                            const char *const *backends, size_t nbackends,
                            const vta_diff_workload *works, const uint64_t *seeds,
                            size_t nworks, uint64_t seed_start, vta_error *err) {
  p->seed_start = seed_start;
  for (size_t c = 0; c < nconfigs; c++) {
    int ci = vta_regress_plan_config(p, configs[c], err);
    if (ci < 0) return VTA_ERR_INVALID;
    for (size_t b = 0; b < nbackends; b++) {
      int bi = vta_regress_plan_backend(p, backends[b], err);
      if (bi < 0) return VTA_ERR_INVALID;
      for (size_t w = 0; w < nworks; w++)
        for (uint64_t s = 0; s < seeds[w]; s++) {
          int rc = vta_regress_plan_add(p, (uint32_t)ci, (uint32_t)bi, works[w], seed_start + s,
                                        err);
          if (rc != VTA_OK) return rc;
        }
    }
  }
  return VTA_OK;
}

static const char *base_name(const char *path, char *buf, size_t n) {
  const char *b = strrchr(path, '/');
  snprintf(buf, n, "%s", b ? b + 1 : path);
  char *dot = strrchr(buf, '.');
  if (dot && strcmp(dot, ".json") == 0) *dot = 0;
  return buf;
}

/* A backend spec as a file name part: rtl@latency=1,bandwidth=3 -> rtl_latency_1_bandwidth_3. */
static const char *safe_name(const char *spec, char *buf, size_t n) {
  size_t k = 0;
  for (; *spec && k + 1 < n; spec++)
    buf[k++] = (char)(((*spec >= 'a' && *spec <= 'z') || (*spec >= 'A' && *spec <= 'Z') ||
                       (*spec >= '0' && *spec <= '9') || *spec == '-' || *spec == '.')
                          ? *spec
                          : '_');
  buf[k] = 0;
  return buf;
}

/* ---- Suites ---- */

/* The built-in suites, each a list of matrices. The quick suite runs in `make test`: the
 * generated programs on the two configurations with RTL models built by the tests (a third of
 * them on the RTL behind a slow memory, a third of a bus beat per cycle, which changes every
 * interleaving of the modules), a few cases of the runtime-level workloads (gemm, alu, conv,
 * and one compiled network, `model`), and three generated configurations on fsim and sc (whose
 * models need no build); about 60 s with the sanitizers on this 2-core machine under load. The
 * nightly one, in `make regress`: 12,500 + 12,500 programs per configuration and backend, so
 * that each of rtl and sc sees 100,000 programs over four configurations, plus eight generated
 * configurations. */
typedef struct suite_part {
  const char *const *configs; /* NULL: `ngen` generated configurations */
  size_t nconfigs, ngen;
  const char *const *backends;
  size_t nbackends;
  uint64_t seeds[VTA_DIFF_W_COUNT]; /* per workload, in enum order; 0: not in this part */
} suite_part;

static const char *const k_quick_configs[] = {"configs/vta_default.json",
                                              "sim/rtl/configs/rtl_wide.json"};
static const char *const k_quick_backends[] = {"fsim", "rtl", "rtl@latency=1,bandwidth=3"};
static const char *const k_gen_backends[] = {"fsim", "sc"};
static const char *const k_nightly_configs[] = {"configs/vta_default.json",
                                                "sim/rtl/configs/rtl_wide.json",
                                                "configs/batch4.json", "configs/block8.json"};
static const char *const k_nightly_backends[] = {"fsim", "rtl", "sc"};
_Static_assert(VTA_DIFF_W_COUNT == 6, "the suites give seeds to every workload");
static const suite_part k_quick[] = {
    {k_quick_configs, 2, 0, k_quick_backends, 3, {120, 120, 3, 3, 3, 1}},
    {NULL, 0, 3, k_gen_backends, 2, {30, 30, 2, 2, 2, 1}},
};
static const suite_part k_nightly[] = {
    {k_nightly_configs, 4, 0, k_nightly_backends, 3, {12500, 12500, 50, 50, 50, 25}},
    {NULL, 0, 8, k_gen_backends, 2, {500, 500, 20, 20, 20, 10}},
};

#define N_(a) (sizeof(a) / sizeof((a)[0]))

static int gen_matrix(vta_regress_plan *p, size_t ngen, const char *const *backends, size_t nb,
                      const vta_diff_workload *works, const uint64_t *seeds, size_t nw,
                      uint64_t seed_start, vta_error *err);

static int suite_file(vta_regress_plan *p, const char *path, uint64_t seed_start,
                      uint64_t seeds_override, vta_error *err) {
  /* The project's one reader (isa/file.c): pipes work, the 1 MiB limit is checked as it reads. */
  unsigned char *data;
  size_t size;
  vta_error ferr;
  int frc = vta_file_read(path, "a suite file", (size_t)1 << 20, &data, &size, &ferr);
  if (frc == VTA_ERR_IO)
    return vta_error_set(err, VTA_ERR_IO, "suite '%s': not 'quick', 'nightly' or a readable "
                         "file (%s)", path, ferr.msg);
  if (frc) {
    if (err) *err = ferr;
    return frc;
  }
  char *text = (char *)data;
  cJSON *j = cJSON_Parse(text);
  free(text);
  if (!j || !cJSON_IsObject(j)) {
    cJSON_Delete(j);
    return vta_error_set(err, VTA_ERR_INVALID, "%s: not a JSON object", path);
  }
  const char *cfgs[VTA_REGRESS_MAX_AXIS], *bes[VTA_REGRESS_MAX_AXIS];
  vta_diff_workload works[VTA_DIFF_W_COUNT];
  uint64_t seeds[VTA_DIFF_W_COUNT];
  size_t nc = 0, nb = 0, nw = 0;
  int rc = VTA_OK;
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
  snprintf(p->name, sizeof p->name, "%s",
           cJSON_IsString(name) ? name->valuestring : path);
  const char *keys[2] = {"configs", "backends"};
  const cJSON *gen = cJSON_GetObjectItemCaseSensitive(j, "generated_configs");
  size_t ngen = 0;
  if (gen && (!cJSON_IsNumber(gen) || gen->valuedouble < 0 ||
              gen->valuedouble > VTA_REGRESS_MAX_AXIS || gen->valuedouble != (int)gen->valuedouble))
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: \"generated_configs\" must be a whole number "
                       "from 0 to %d", path, VTA_REGRESS_MAX_AXIS);
  else if (gen)
    ngen = (size_t)gen->valuedouble;
  for (int k = 0; k < 2 && rc == VTA_OK; k++) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, keys[k]), *e;
    if (k == 0 && ngen > 0 && !a) continue; /* generated configurations only */
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: \"%s\" must be a non-empty array of strings",
                         path, keys[k]);
      break;
    }
    cJSON_ArrayForEach(e, a) {
      size_t *n = k ? &nb : &nc;
      if (!cJSON_IsString(e) || *n >= VTA_REGRESS_MAX_AXIS) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: \"%s\" holds a non-string or more than %d "
                           "entries", path, keys[k], VTA_REGRESS_MAX_AXIS);
        break;
      }
      (k ? bes : cfgs)[(*n)++] = e->valuestring;
    }
  }
  const cJSON *wl = cJSON_GetObjectItemCaseSensitive(j, "workloads"), *e;
  if (rc == VTA_OK && (!cJSON_IsObject(wl) || !wl->child))
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: \"workloads\" must be an object of "
                       "workload: seeds (workloads: %s)", path, VTA_REGRESS_WORKLOAD_LIST);
  if (rc == VTA_OK) cJSON_ArrayForEach(e, wl) {
      int w = vta_diff_workload_find(e->string);
      if (w < 0 || nw >= VTA_DIFF_W_COUNT) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: unknown workload \"%s\" (workloads: "
                           "%s)", path, e->string, VTA_REGRESS_WORKLOAD_LIST);
        break;
      }
      if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 10000000) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: workload \"%s\": seeds must be a number "
                           "from 1 to 10000000", path, e->string);
        break;
      }
      works[nw] = (vta_diff_workload)w;
      seeds[nw++] = seeds_override ? seeds_override : (uint64_t)e->valuedouble;
    }
  if (rc == VTA_OK && nc)
    rc = vta_regress_plan_matrix(p, cfgs, nc, bes, nb, works, seeds, nw, seed_start, err);
  if (rc == VTA_OK && ngen)
    rc = gen_matrix(p, ngen, bes, nb, works, seeds, nw, seed_start, err);
  cJSON_Delete(j);
  return rc;
}

/* Adds the matrix of ngen generated configurations gen:seed_start ... (the configuration seeds
 * follow the run's first seed, so every run meets new hardware shapes and reruns meet the same). */
static int gen_matrix(vta_regress_plan *p, size_t ngen, const char *const *backends, size_t nb,
                      const vta_diff_workload *works, const uint64_t *seeds, size_t nw,
                      uint64_t seed_start, vta_error *err) {
  char names[VTA_REGRESS_MAX_AXIS][32];
  const char *cfgs[VTA_REGRESS_MAX_AXIS];
  if (ngen > VTA_REGRESS_MAX_AXIS)
    return vta_error_set(err, VTA_ERR_INVALID, "more than %d generated configurations",
                         VTA_REGRESS_MAX_AXIS);
  for (size_t g = 0; g < ngen; g++) {
    snprintf(names[g], sizeof names[g], "gen:%llu", (unsigned long long)(seed_start + g));
    cfgs[g] = names[g];
  }
  return vta_regress_plan_matrix(p, cfgs, ngen, backends, nb, works, seeds, nw, seed_start, err);
}

int vta_regress_suite_load(vta_regress_plan *p, const char *suite, uint64_t seed_start,
                           uint64_t seeds_override, vta_error *err) {
  int quick = strcmp(suite, "quick") == 0, nightly = strcmp(suite, "nightly") == 0;
  if (!quick && !nightly) return suite_file(p, suite, seed_start, seeds_override, err);
  snprintf(p->name, sizeof p->name, "%s", suite);
  const suite_part *parts = quick ? k_quick : k_nightly;
  size_t nparts = quick ? N_(k_quick) : N_(k_nightly);
  for (size_t k = 0; k < nparts; k++) {
    const suite_part *sp = &parts[k];
    vta_diff_workload works[VTA_DIFF_W_COUNT];
    uint64_t seeds[VTA_DIFF_W_COUNT];
    size_t nw = 0;
    for (int w = 0; w < VTA_DIFF_W_COUNT; w++)
      if (sp->seeds[w]) {
        works[nw] = (vta_diff_workload)w;
        seeds[nw++] = seeds_override ? seeds_override : sp->seeds[w];
      }
    int rc = sp->configs ? vta_regress_plan_matrix(p, sp->configs, sp->nconfigs, sp->backends,
                                                   sp->nbackends, works, seeds, nw, seed_start,
                                                   err)
                         : gen_matrix(p, sp->ngen, sp->backends, sp->nbackends, works, seeds, nw,
                                      seed_start, err);
    if (rc != VTA_OK) return rc;
  }
  return VTA_OK;
}

/* ---- Rerunning the failures of a JUnit file ---- */

/* The value of attribute `name` in the tag starting at s (up to its '>'), XML-unescaped. */
static int xml_attr(const char *s, const char *name, char *out, size_t n) {
  const char *end = strchr(s, '>');
  size_t len = strlen(name);
  for (const char *a = s; (a = strstr(a, name)) && (!end || a < end); a++) {
    if (a[-1] != ' ' || strncmp(a + len, "=\"", 2) != 0) continue;
    const char *v = a + len + 2, *q = strchr(v, '"');
    if (!q) return -1;
    size_t k = 0;
    for (const char *c = v; c < q && k + 1 < n; c++) {
      static const struct { const char *ent; char ch; } ents[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      char ch = *c;
      for (size_t e = 0; e < 5; e++)
        if (strncmp(c, ents[e].ent, strlen(ents[e].ent)) == 0) {
          ch = ents[e].ch;
          c += strlen(ents[e].ent) - 1;
          break;
        }
      out[k++] = ch;
    }
    out[k] = 0;
    return 0;
  }
  return -1;
}

int vta_regress_rerun_load(vta_regress_plan *p, const char *xml_path, vta_error *err) {
  unsigned char *data;
  size_t len;
  int frc = vta_file_read(xml_path, "a JUnit file", VTA_LIMIT_FILE_BYTES, &data, &len, err);
  if (frc) return frc;
  char *x = (char *)data; /* NUL-terminated by vta_file_read */
  snprintf(p->name, sizeof p->name, "rerun");
  int rc = VTA_OK, suites = 0;
  size_t before = p->ncases;
  for (const char *s = strstr(x, "<testsuite "); s && rc == VTA_OK;
       s = strstr(s + 1, "<testsuite ")) {
    const char *next = strstr(s + 1, "<testsuite ");
    char config[1024] = "", backend[128] = "";
    for (const char *q = strstr(s, "<property "); q && (!next || q < next);
         q = strstr(q + 1, "<property ")) {
      char name[64], value[1024];
      if (xml_attr(q, "name", name, sizeof name) || xml_attr(q, "value", value, sizeof value))
        continue;
      if (strcmp(name, "config") == 0) snprintf(config, sizeof config, "%s", value);
      if (strcmp(name, "backend") == 0) snprintf(backend, sizeof backend, "%s", value);
    }
    if (!config[0] || !backend[0]) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: testsuite %d has no config/backend "
                         "property (not written by vta regress?)", xml_path, suites + 1);
      break;
    }
    suites++;
    int ci = -1, bi = -1;
    for (const char *t = strstr(s, "<testcase "); t && (!next || t < next) && rc == VTA_OK;
         t = strstr(t + 1, "<testcase ")) {
      /* A passed case is <testcase .../>: decided from its own tag, without searching ahead
       * (a nightly file has hundreds of thousands of them). */
      const char *gt = strchr(t, '>');
      if (!gt || gt[-1] == '/') continue;
      const char *tend = strstr(gt, "</testcase>");
      if (!tend) break;
      const char *body = gt + 1;
      int bad = 0;
      while (body < tend && (body = strchr(body, '<')) && body < tend) {
        if (strncmp(body, "<failure", 8) == 0 || strncmp(body, "<error", 6) == 0) bad = 1;
        body++;
      }
      if (!bad) continue;
      char name[256], work[64];
      unsigned long long seed;
      if (xml_attr(t, "name", name, sizeof name) ||
          sscanf(name, "%63s seed=%llu", work, &seed) != 2 || vta_diff_workload_find(work) < 0) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: testcase '%s' is not 'WORKLOAD seed=N'",
                           xml_path, name);
        break;
      }
      if (ci < 0) ci = vta_regress_plan_config(p, config, err);
      if (bi < 0 && ci >= 0) bi = vta_regress_plan_backend(p, backend, err);
      if (ci < 0 || bi < 0) rc = VTA_ERR_INVALID;
      if (rc == VTA_OK)
        rc = vta_regress_plan_add(p, (uint32_t)ci, (uint32_t)bi,
                                  (vta_diff_workload)vta_diff_workload_find(work), seed, err);
    }
  }
  free(x);
  if (rc == VTA_OK && suites == 0)
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: no <testsuite> of vta regress in it", xml_path);
  if (rc == VTA_OK && p->ncases == before) p->seed_start = 0;
  return rc;
}

/* ---- Running ---- */

void vta_regress_options_default(vta_regress_options *o) {
  memset(o, 0, sizeof *o);
  o->wave_window = 200;
  o->inject_fault = -1;
  o->inject_crash = -1;
  o->argv0 = "vta";
}

int vta_regress_results_init(vta_regress_results *res, const vta_regress_plan *p,
                             vta_error *err) {
  memset(res, 0, sizeof *res);
  res->n = p->ncases;
  res->r = calloc(p->ncases ? p->ncases : 1, sizeof *res->r);
  if (!res->r) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory for %zu results", p->ncases);
  for (size_t i = 0; i < p->ncases; i++) res->r[i].outcome = VTA_REGRESS_SKIPPED;
  return VTA_OK;
}

void vta_regress_results_free(vta_regress_results *res) {
  for (size_t i = 0; res->r && i < res->n; i++) {
    free(res->r[i].detail);
    free(res->r[i].wave);
  }
  free(res->r);
  memset(res, 0, sizeof *res);
}


void vta_regress_case_command(const vta_regress_plan *p, const vta_regress_case *c,
                              const char *argv0, char *buf, size_t n) {
  snprintf(buf, n, "%s regress --config %s --backend %s --workload %s --seed %llu",
           argv0 ? argv0 : "vta", p->configs[c->config], p->backends[c->backend],
           vta_diff_workload_name(c->workload), (unsigned long long)c->seed);
}

static void progress(const vta_regress_plan *p, const vta_regress_results *res, size_t done,
                     double t0, int final) {
  double el = now_s() - t0;
  fprintf(stderr, "%s[%*zu/%zu] %llu passed, %llu failed, %llu errors, %llu skipped  %.0fs%s",
          isatty(2) ? "\r" : "", (int)snprintf(NULL, 0, "%zu", p->ncases), done, p->ncases,
          (unsigned long long)res->count[VTA_REGRESS_PASS],
          (unsigned long long)res->count[VTA_REGRESS_FAIL],
          (unsigned long long)res->count[VTA_REGRESS_ERROR],
          (unsigned long long)res->count[VTA_REGRESS_SKIPPED], el, final ? "\n" : "");
}

/* The backend options of a session: for rtl with coverage, the data file of this session (a
 * session's model accumulates the coverage of all its cases). */
static const char *session_options(const vta_regress_plan *p, const vta_regress_case *c,
                                   const vta_regress_options *o, uint64_t session, char *buf,
                                   size_t n) {
  char name[64];
  const char *opts;
  backend_split(p->backends[c->backend], name, sizeof name, &opts);
  if (!o->coverage_dir || strcmp(name, "rtl") != 0) return opts;
  char cfgname[256];
  snprintf(buf, n, "%s%scoverage=%s/data/%s.%d.%llu.dat", opts ? opts : "", opts ? "," : "",
           o->coverage_dir, base_name(p->configs[c->config], cfgname, sizeof cfgname),
           (int)getpid(), (unsigned long long)session);
  return buf;
}

/* The backend spec a runtime-level case hands to the diff backend: the matrix's, with the
 * coverage data file of this case for rtl (each case's child process writes its own). An
 * injected fault (the test hook) becomes the diff backend's inject=1: prefix. */
static void work_spec(const vta_regress_plan *p, const vta_regress_case *c,
                      const vta_regress_options *o, size_t index, char *buf, size_t n) {
  char name[64], cfgname[256];
  const char *opts;
  backend_split(p->backends[c->backend], name, sizeof name, &opts);
  int inject = o->inject_fault >= 0 && (size_t)o->inject_fault == index;
  snprintf(buf, n, "%s%s", inject ? "inject=1:" : "", p->backends[c->backend]);
  if (o->coverage_dir && strcmp(name, "rtl") == 0)
    snprintf(buf + strlen(buf), n - strlen(buf), "%scoverage=%s/data/%s.%s.%d.%zu.dat",
             opts ? "," : "@", o->coverage_dir,
             base_name(p->configs[c->config], cfgname, sizeof cfgname),
             vta_diff_workload_name(c->workload), (int)getpid(), index);
}

int vta_regress_run(const vta_regress_plan *p, const vta_regress_options *o,
                    vta_regress_results *res, vta_error *err) {
  double t0 = now_s(), last_progress = 0;
  int tty = isatty(2);
  double t_start = (double)time(NULL);
  vta_diff *d = NULL;
  /* The open session: one per configuration, backend and workload, so that the cases it has
   * run are consecutive seeds of one workload from session_first on (the on-chip buffers and
   * the accelerator's registers carry over from case to case, and a failure may need them). */
  int64_t open_key = -1;
  size_t session_first = 0;
  char open_error[VTA_ERROR_MSG_MAX] = "";
  uint64_t bad = 0, sessions = 0;
  char opts[2048], be_name[64] = "";
  const char *be_opts = NULL;
  memset(res->count, 0, sizeof res->count);
  res->count[VTA_REGRESS_SKIPPED] = p->ncases;
  if (o->wave_dir && mkdir(o->wave_dir, 0777) != 0 && errno != EEXIST)
    return vta_error_set(err, VTA_ERR_IO, "cannot create the waveform folder %s: %s",
                         o->wave_dir, strerror(errno));
  if (o->coverage_dir) {
    char data[2048];
    snprintf(data, sizeof data, "%s/data", o->coverage_dir);
    if ((mkdir(o->coverage_dir, 0777) != 0 && errno != EEXIST) ||
        (mkdir(data, 0777) != 0 && errno != EEXIST))
      return vta_error_set(err, VTA_ERR_IO, "cannot create the coverage folder %s: %s", data,
                           strerror(errno));
  }
  for (size_t i = 0; i < p->ncases; i++) {
    const vta_regress_case *c = &p->cases[i];
    vta_regress_result *r = &res->r[i];
    memset(r, 0, sizeof *r);
    r->outcome = VTA_REGRESS_SKIPPED;
    if (o->fail_max && bad >= o->fail_max) {
      snprintf(r->message, sizeof r->message, "not run: --fail-max %llu reached",
               (unsigned long long)o->fail_max);
      continue;
    }
    if ((o->time_budget > 0 && now_s() - t0 > o->time_budget) ||
        (o->deadline > 0 && (double)time(NULL) > o->deadline)) {
      snprintf(r->message, sizeof r->message, "not run: the time budget of %.0f s was spent",
               o->time_budget > 0 ? o->time_budget : o->deadline - t_start);
      continue;
    }
    int64_t key = ((int64_t)c->config * VTA_REGRESS_MAX_AXIS + c->backend) * VTA_DIFF_W_COUNT +
                  (int64_t)c->workload;
    if (key != open_key) {
      vta_diff_close(d);
      d = NULL;
      open_key = key;
      session_first = i;
      open_error[0] = 0;
      vta_error e;
      backend_split(p->backends[c->backend], be_name, sizeof be_name, &be_opts);
      if (!vta_backend_find(be_name)) {
        snprintf(open_error, sizeof open_error, "backend %s is not built in this version",
                 be_name);
      } else if (vta_diff_open(p->configs[c->config], be_name,
                               session_options(p, c, o, ++sessions, opts, sizeof opts), &d,
                               &e) != VTA_OK) {
        snprintf(open_error, sizeof open_error, "%s: %s", p->configs[c->config], e.msg);
        d = NULL;
      }
    }
    res->count[VTA_REGRESS_SKIPPED]--;
    double c0 = now_s();
    vta_diff_result dr;
    char equiv[1536] = "", *crash = NULL;
    int ran = 0;
    if (!d && !vta_backend_find(be_name)) {
      snprintf(r->message, sizeof r->message, "not run: %s", open_error);
    } else if (!d) {
      r->outcome = VTA_REGRESS_ERROR;
      snprintf(r->message, sizeof r->message, "%s", open_error);
    } else if (!vta_diff_workload_generated(c->workload)) {
      /* Through the runtime on the diff backend, in a child process (host/regress_work.c). */
      char spec[2048];
      work_spec(p, c, o, i, spec, sizeof spec);
      vta_regress_work_run(o->self, p->configs[c->config], spec, c->workload, c->seed,
                           o->inject_crash >= 0 && (size_t)o->inject_crash == i, &dr, equiv,
                           sizeof equiv, &crash);
      ran = 1;
    } else {
      if (o->inject_fault >= 0 && (size_t)o->inject_fault == i) vta_diff_inject_fault(d, 17);
      vta_diff_run(d, c->workload, c->seed, &dr);
      ran = 1;
    }
    if (ran) {
      r->outcome = dr.outcome == VTA_DIFF_PASS   ? VTA_REGRESS_PASS
                   : dr.outcome == VTA_DIFF_FAIL ? VTA_REGRESS_FAIL
                                                 : VTA_REGRESS_ERROR;
      r->insns = dr.insns;
      r->cycles = dr.cycles;
      snprintf(r->message, sizeof r->message, "%s", dr.message);
      if (r->outcome != VTA_REGRESS_PASS) {
        char cmd[1536], where[1536] = "", wave[512] = "", alone[1600] = "";
        /* The seeds of this session before the case, when they are consecutive (as the plan
         * lays them out): the one command then replays them in one session, as here. */
        uint64_t first_seed = c->seed;
        if (vta_diff_workload_generated(c->workload) && session_first < i &&
            p->cases[session_first].seed + (i - session_first) == c->seed) {
          int consecutive = 1;
          for (size_t k = session_first; k < i && consecutive; k++)
            consecutive = p->cases[k].seed + (i - k) == c->seed;
          if (consecutive) first_seed = p->cases[session_first].seed;
        }
        vta_regress_case_command(p, c, o->argv0, cmd, sizeof cmd);
        if (first_seed != c->seed) {
          snprintf(alone, sizeof alone, "the case alone (it ran after %llu others in its "
                   "session, whose on-chip state it started from): %s\n",
                   (unsigned long long)(c->seed - first_seed), cmd);
          snprintf(cmd, sizeof cmd,
                   "%s regress --config %s --backend %s --workload %s --seed-start %llu "
                   "--seeds %llu",
                   o->argv0 ? o->argv0 : "vta", p->configs[c->config], p->backends[c->backend],
                   vta_diff_workload_name(c->workload), (unsigned long long)first_seed,
                   (unsigned long long)(c->seed - first_seed + 1));
        }
        char idx[32] = "";
        if (dr.insn_index >= 0) snprintf(idx, sizeof idx, "#%lld: ", (long long)dr.insn_index);
        if (dr.has_addr)
          snprintf(where, sizeof where,
                   "first differing address: 0x%llx (fsim 0x%02x, %s 0x%02x)\n"
                   "last instruction storing it: %s%s%s%s\n",
                   (unsigned long long)dr.addr, dr.want, p->backends[c->backend], dr.got,
                   dr.insn_index >= 0 ? "" : "none (", idx, dr.disasm,
                   dr.insn_index >= 0 ? "" : ")");
        if (dr.has_addr && o->wave_dir && strcmp(be_name, "rtl") == 0) {
          char cfgname[256], bename[128];
          uint64_t cyc = 0;
          vta_error e;
          snprintf(wave, sizeof wave, "%s/%s.%s.%s.%llu.fst", o->wave_dir,
                   base_name(p->configs[c->config], cfgname, sizeof cfgname),
                   safe_name(p->backends[c->backend], bename, sizeof bename),
                   vta_diff_workload_name(c->workload), (unsigned long long)c->seed);
          /* One Verilator model at a time: the session's is closed before the reruns (and
           * reopened for the next case); Verilator 5.006 deadlocks destroying a model created
           * before a traced one. */
          vta_diff_close(d);
          d = NULL;
          open_key = -1;
          if (vta_diff_wave(p->configs[c->config], be_opts, c->workload, first_seed, c->seed,
                            dr.addr, o->wave_window, wave, &cyc, &e) == VTA_OK) {
            size_t l = strlen(where);
            snprintf(where + l, sizeof where - l,
                     "waveform: %s (cycles %llu to %llu; the RTL last wrote the address at cycle "
                     "%llu)\n",
                     wave, (unsigned long long)(cyc > o->wave_window ? cyc - o->wave_window : 0),
                     (unsigned long long)((cyc > o->wave_window ? cyc : o->wave_window) +
                                          o->wave_window),
                     (unsigned long long)cyc);
          } else {
            size_t l = strlen(where);
            snprintf(where + l, sizeof where - l, "waveform: not written: %s\n", e.msg);
            wave[0] = 0;
          }
        }
        char detail[4096];
        snprintf(detail, sizeof detail, "%s\n%sreproduce: %s\n%s%s%s%s", dr.message, where, cmd,
                 alone, equiv[0] ? "the same case by hand: " : "", equiv, equiv[0] ? "\n" : "");
        /* A crashed child's report (signal, place, backtrace) follows, whole. */
        size_t dl = strlen(detail), cl = crash ? strlen(crash) : 0;
        r->detail = malloc(dl + cl + 1);
        if (r->detail) {
          memcpy(r->detail, detail, dl);
          memcpy(r->detail + dl, crash ? crash : "", cl + 1);
        }
        r->wave = wave[0] ? strdup(wave) : NULL;
        bad++;
      }
    }
    free(crash);
    /* A case that could not run may have left the two simulators' buffers in different
     * states (the reference stopped part-way, the device never started): the next case gets
     * a fresh session, so that one error does not turn the cases after it into failures. */
    if (r->outcome == VTA_REGRESS_ERROR && d) {
      vta_diff_close(d);
      d = NULL;
      open_key = -1;
    }
    r->seconds = now_s() - c0;
    res->count[r->outcome]++;
    if (o->progress && tty && now_s() - last_progress > 0.5) {
      last_progress = now_s();
      progress(p, res, i + 1, t0, 0);
    } else if (o->progress && !tty && (i + 1) * 10 / p->ncases != i * 10 / p->ncases &&
               i + 1 < p->ncases) {
      progress(p, res, i + 1, t0, 1);
    }
  }
  vta_diff_close(d);
  res->seconds = now_s() - t0;
  if (o->progress) progress(p, res, p->ncases, t0, 1);
  return VTA_OK;
}

/* ---- JUnit XML and the summary ---- */

static void xml_text(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '&') fputs("&amp;", f);
    else if (ch == '<') fputs("&lt;", f);
    else if (ch == '>') fputs("&gt;", f);
    else if (ch == '"') fputs("&quot;", f);
    else if (ch < 0x20 && ch != '\n' && ch != '\t') fputc('?', f);
    else fputc(ch, f);
  }
}

typedef struct suite_sum {
  uint64_t n[VTA_REGRESS_OUTCOME_COUNT], tests, insns;
  double seconds;
} suite_sum;

static void sum_suite(const vta_regress_plan *p, const vta_regress_results *res, uint32_t c,
                      uint32_t b, suite_sum *s) {
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < p->ncases; i++)
    if (p->cases[i].config == c && p->cases[i].backend == b) {
      s->n[res->r[i].outcome]++;
      s->tests++;
      s->seconds += res->r[i].seconds;
      s->insns += res->r[i].insns;
    }
}

int vta_regress_junit_write(const vta_regress_plan *p, const vta_regress_results *res,
                            const char *path, vta_error *err) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return vta_error_set(err, VTA_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
  char stamp[32], host[256] = "localhost";
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  gethostname(host, sizeof host - 1);
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
  xml_text(f, p->name[0] ? p->name : "regress");
  fprintf(f, "\" tests=\"%zu\" failures=\"%llu\" errors=\"%llu\" skipped=\"%llu\" time=\"%.3f\">\n",
          p->ncases, (unsigned long long)res->count[VTA_REGRESS_FAIL],
          (unsigned long long)res->count[VTA_REGRESS_ERROR],
          (unsigned long long)res->count[VTA_REGRESS_SKIPPED], res->seconds);
  int id = 0;
  for (uint32_t c = 0; c < p->nconfigs; c++)
    for (uint32_t b = 0; b < p->nbackends; b++) {
      suite_sum s;
      sum_suite(p, res, c, b, &s);
      if (!s.tests) continue;
      char cfgname[256], cls[512];
      snprintf(cls, sizeof cls, "%s.%s", base_name(p->configs[c], cfgname, sizeof cfgname),
               p->backends[b]);
      fprintf(f, "  <testsuite name=\"");
      xml_text(f, cls);
      fprintf(f, "\" id=\"%d\" package=\"vta.regress\" tests=\"%llu\" failures=\"%llu\" "
              "errors=\"%llu\" skipped=\"%llu\" time=\"%.3f\" timestamp=\"%s\" hostname=\"",
              id++, (unsigned long long)s.tests, (unsigned long long)s.n[VTA_REGRESS_FAIL],
              (unsigned long long)s.n[VTA_REGRESS_ERROR],
              (unsigned long long)s.n[VTA_REGRESS_SKIPPED], s.seconds, stamp);
      xml_text(f, host);
      fprintf(f, "\">\n    <properties>\n      <property name=\"config\" value=\"");
      xml_text(f, p->configs[c]);
      fprintf(f, "\"/>\n      <property name=\"backend\" value=\"");
      xml_text(f, p->backends[b]);
      fprintf(f, "\"/>\n      <property name=\"suite\" value=\"");
      xml_text(f, p->name);
      fprintf(f, "\"/>\n      <property name=\"seed-start\" value=\"%llu\"/>\n    </properties>\n",
              (unsigned long long)p->seed_start);
      for (size_t i = 0; i < p->ncases; i++) {
        const vta_regress_case *k = &p->cases[i];
        const vta_regress_result *r = &res->r[i];
        if (k->config != c || k->backend != b) continue;
        fprintf(f, "    <testcase name=\"%s seed=%llu\" classname=\"",
                vta_diff_workload_name(k->workload), (unsigned long long)k->seed);
        xml_text(f, cls);
        fprintf(f, "\" time=\"%.4f\"", r->seconds);
        if (r->outcome == VTA_REGRESS_PASS) {
          fprintf(f, "/>\n");
          continue;
        }
        fprintf(f, ">\n");
        if (r->outcome == VTA_REGRESS_SKIPPED) {
          fprintf(f, "      <skipped message=\"");
          xml_text(f, r->message);
          fprintf(f, "\"/>\n");
        } else {
          const char *tag = r->outcome == VTA_REGRESS_FAIL ? "failure" : "error";
          fprintf(f, "      <%s message=\"", tag);
          xml_text(f, r->message);
          fprintf(f, "\" type=\"%s\">", r->outcome == VTA_REGRESS_FAIL ? "mismatch" : "run");
          xml_text(f, r->detail ? r->detail : "");
          fprintf(f, "</%s>\n", tag);
          if (r->wave && r->wave[0]) {
            /* The attachment convention of Jenkins' JUnit attachments plugin; GitLab shows it
             * as text. */
            fprintf(f, "      <system-out>[[ATTACHMENT|");
            xml_text(f, r->wave);
            fprintf(f, "]]</system-out>\n");
          }
        }
        fprintf(f, "    </testcase>\n");
      }
      fprintf(f, "  </testsuite>\n");
    }
  fprintf(f, "</testsuites>\n");
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    return vta_error_set(err, VTA_ERR_IO, "cannot write %s: %s", path, strerror(e));
  }
  return VTA_OK;
}

void vta_regress_summary(const vta_regress_plan *p, const vta_regress_results *res, FILE *out) {
  fprintf(out, "%-20s %-26s %7s %7s %7s %7s %8s %12s %9s\n", "configuration", "backend", "cases",
          "passed", "failed", "errors", "skipped", "instructions", "seconds");
  for (uint32_t c = 0; c < p->nconfigs; c++)
    for (uint32_t b = 0; b < p->nbackends; b++) {
      suite_sum s;
      sum_suite(p, res, c, b, &s);
      if (!s.tests) continue;
      char cfgname[256];
      fprintf(out, "%-20s %-26s %7llu %7llu %7llu %7llu %8llu %12llu %9.1f\n",
              base_name(p->configs[c], cfgname, sizeof cfgname), p->backends[b],
              (unsigned long long)s.tests, (unsigned long long)s.n[VTA_REGRESS_PASS],
              (unsigned long long)s.n[VTA_REGRESS_FAIL], (unsigned long long)s.n[VTA_REGRESS_ERROR],
              (unsigned long long)s.n[VTA_REGRESS_SKIPPED], (unsigned long long)s.insns,
              s.seconds);
    }
  fprintf(out, "%zu cases: %llu passed, %llu failed, %llu errors, %llu skipped in %.1f s\n",
          p->ncases, (unsigned long long)res->count[VTA_REGRESS_PASS],
          (unsigned long long)res->count[VTA_REGRESS_FAIL],
          (unsigned long long)res->count[VTA_REGRESS_ERROR],
          (unsigned long long)res->count[VTA_REGRESS_SKIPPED], res->seconds);
}

/* ---- Coverage ---- */

typedef struct cov_module {
  char name[96];
  uint64_t pts[2], hit[2]; /* 0 line, 1 toggle */
} cov_module;

/* One entry of a Verilator coverage file: C '<\001key\002value...>' count. */
static int cov_entry(const char *line, char *module, size_t n, int *kind, uint64_t *count) {
  if (strncmp(line, "C '", 3) != 0) return -1;
  const char *end = strrchr(line, '\'');
  const char *pg = strstr(line, "\001page\002");
  if (!end || end < line + 3 || !pg || pg > end) return -1;
  pg += 6;
  const char *slash = strchr(pg, '/'), *stop = pg;
  while (stop < end && *stop != '\001') stop++;
  if (!slash || slash > stop) return -1;
  if (strncmp(pg, "v_line/", 7) == 0 || strncmp(pg, "v_branch/", 9) == 0) *kind = 0;
  else if (strncmp(pg, "v_toggle/", 9) == 0) *kind = 1;
  else return -1;
  /* Verilator names a parameterised module's variants NAME__PARAMS (vta_fifo__W80_D4): their
   * points are added to the module's, one row per source module. */
  const char *name = slash + 1, *variant = strstr(name, "__");
  if (variant && variant < stop) stop = variant;
  snprintf(module, n, "%.*s", (int)(stop - name), name);
  *count = strtoull(end + 1, NULL, 10);
  return 0;
}

int vta_regress_coverage(const char *dir, FILE *out, vta_error *err) {
  char cmd[8192], path[4096];
  snprintf(cmd, sizeof cmd,
           "set -e; cd '%s'; verilator_coverage --write coverage.dat.tmp "
           "data/*.dat && mv coverage.dat.tmp coverage.dat && rm -rf annotated && "
           "verilator_coverage --annotate annotated --annotate-min 1 coverage.dat",
           dir);
  if (strchr(dir, '\''))
    return vta_error_set(err, VTA_ERR_INVALID, "coverage folder '%s': no quotes, please", dir);
  snprintf(path, sizeof path, "%s/data", dir);
  DIR *dd = opendir(path);
  int ndat = 0;
  for (struct dirent *de; dd && (de = readdir(dd));)
    ndat += vta_cli_has_suffix(de->d_name, ".dat");
  if (dd) closedir(dd);
  if (!ndat)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "no coverage data in %s (no rtl case ran on a model built with coverage)",
                         path);
  int rc = system(cmd);
  if (rc != 0)
    return vta_error_set(err, VTA_ERR_IO,
                         "merging the coverage data of %s/data with verilator_coverage failed "
                         "(status %d; verilator_coverage comes with the verilator package)",
                         dir, rc);
  snprintf(path, sizeof path, "%s/coverage.dat", dir);
  FILE *f = fopen(path, "r");
  if (!f) return vta_error_set(err, VTA_ERR_IO, "%s: %s", path, strerror(errno));
  cov_module mods[64];
  size_t nm = 0;
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    char name[96];
    int kind;
    uint64_t cnt;
    if (cov_entry(line, name, sizeof name, &kind, &cnt) != 0) continue;
    size_t m = 0;
    while (m < nm && strcmp(mods[m].name, name) != 0) m++;
    if (m == nm) {
      if (nm == 64) continue;
      memset(&mods[nm], 0, sizeof mods[nm]);
      snprintf(mods[nm].name, sizeof mods[nm].name, "%s", name);
      nm++;
    }
    mods[m].pts[kind]++;
    mods[m].hit[kind] += cnt > 0;
  }
  free(line);
  fclose(f);
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *s = fopen(tmp, "w");
  if (!s) return vta_error_set(err, VTA_ERR_IO, "%s: %s", tmp, strerror(errno));
  uint64_t tp[2] = {0, 0}, th[2] = {0, 0};
  for (int pass = 0; pass < 2; pass++) {
    FILE *o = pass ? out : s;
    if (!o) continue;
    fprintf(o, "%-20s %23s %23s\n", "module", "line+branch points", "toggle points");
    for (size_t m = 0; m < nm; m++) {
      fprintf(o, "%-20s %8llu/%-8llu %5.1f%% %8llu/%-8llu %5.1f%%\n", mods[m].name,
              (unsigned long long)mods[m].hit[0], (unsigned long long)mods[m].pts[0],
              mods[m].pts[0] ? 100.0 * (double)mods[m].hit[0] / (double)mods[m].pts[0] : 0.0,
              (unsigned long long)mods[m].hit[1], (unsigned long long)mods[m].pts[1],
              mods[m].pts[1] ? 100.0 * (double)mods[m].hit[1] / (double)mods[m].pts[1] : 0.0);
      if (!pass)
        for (int k = 0; k < 2; k++) {
          tp[k] += mods[m].pts[k];
          th[k] += mods[m].hit[k];
        }
    }
    fprintf(o, "%-20s %8llu/%-8llu %5.1f%% %8llu/%-8llu %5.1f%%\n", "total",
            (unsigned long long)th[0], (unsigned long long)tp[0],
            tp[0] ? 100.0 * (double)th[0] / (double)tp[0] : 0.0, (unsigned long long)th[1],
            (unsigned long long)tp[1], tp[1] ? 100.0 * (double)th[1] / (double)tp[1] : 0.0);
  }
  int bad = ferror(s);
  bad |= fclose(s) != 0;
  if (bad || rename(tmp, path) != 0)
    return vta_error_set(err, VTA_ERR_IO, "cannot write %s", path);
  if (out) fprintf(out, "coverage: %s/summary.txt, annotated sources in %s/annotated/\n", dir, dir);
  return VTA_OK;
}

/* ---- Jobs ---- */

/* Text fields of the case and result files: tab-separated, with \t, \n and \\ escaped. */
static void put_field(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '\t') fputs("\\t", f);
    else if (*s == '\n') fputs("\\n", f);
    else if (*s == '\\') fputs("\\\\", f);
    else fputc(*s, f);
  }
}

/* Splits line in place into at most max fields, unescaping them. Returns the count. */
static int split_fields(char *line, char **fields, int max) {
  int n = 0;
  char *w = line, *start = line;
  for (char *r = line;; r++) {
    if (*r == '\t' || *r == '\n' || *r == 0) {
      int end = *r != '\t';
      *w++ = 0;
      if (n < max) fields[n++] = start;
      if (end) break;
      start = w;
    } else if (*r == '\\' && r[1]) {
      r++;
      *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
    } else {
      *w++ = *r;
    }
  }
  return n;
}

static int write_atomic_begin(const char *path, char *tmp, size_t n, FILE **f, vta_error *err) {
  snprintf(tmp, n, "%s.tmp.%d", path, (int)getpid());
  *f = fopen(tmp, "w");
  if (!*f) return vta_error_set(err, VTA_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
  return VTA_OK;
}

static int write_atomic_end(const char *path, const char *tmp, FILE *f, vta_error *err) {
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    return vta_error_set(err, VTA_ERR_IO, "cannot write %s", path);
  }
  return VTA_OK;
}

int vta_regress_job(const char *cases_path, const char *results_path,
                    const vta_regress_options *o, double deadline, vta_error *err) {
  FILE *f = fopen(cases_path, "r");
  if (!f) return vta_error_set(err, VTA_ERR_IO, "%s: %s", cases_path, strerror(errno));
  vta_regress_plan plan;
  vta_regress_plan_init(&plan);
  snprintf(plan.name, sizeof plan.name, "job");
  size_t *index = NULL, cap = 0;
  char *line = NULL;
  size_t lcap = 0;
  int rc = VTA_OK, lineno = 0;
  while (rc == VTA_OK && getline(&line, &lcap, f) > 0) {
    lineno++;
    char *fl[5]; /* index, config, backend, workload, seed */
    if (split_fields(line, fl, 5) != 5) {
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "%s:%d: not 'index<TAB>config<TAB>backend<TAB>workload<TAB>seed'",
                         cases_path, lineno);
      break;
    }
    int ci = vta_regress_plan_config(&plan, fl[1], err);
    int bi = ci >= 0 ? vta_regress_plan_backend(&plan, fl[2], err) : -1;
    int wk = vta_diff_workload_find(fl[3]);
    if (ci < 0 || bi < 0 || wk < 0) {
      if (wk < 0 && ci >= 0 && bi >= 0)
        vta_error_set(err, VTA_ERR_INVALID, "%s:%d: unknown workload '%s'", cases_path, lineno,
                      fl[3]);
      rc = VTA_ERR_INVALID;
      break;
    }
    if (plan.ncases == cap) {
      cap = cap ? 2 * cap : 256;
      size_t *x = realloc(index, cap * sizeof *x);
      if (!x) {
        rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
        break;
      }
      index = x;
    }
    index[plan.ncases] = strtoull(fl[0], NULL, 10);
    rc = vta_regress_plan_add(&plan, (uint32_t)ci, (uint32_t)bi, (vta_diff_workload)wk,
                              strtoull(fl[4], NULL, 10), err);
  }
  free(line);
  fclose(f);
  vta_regress_results res = {0};
  vta_regress_options jo = *o;
  jo.deadline = deadline;
  jo.progress = 0;
  if (rc == VTA_OK) rc = vta_regress_results_init(&res, &plan, err);
  if (rc == VTA_OK) rc = vta_regress_run(&plan, &jo, &res, err);
  FILE *out = NULL;
  char tmp[4200];
  if (rc == VTA_OK) rc = write_atomic_begin(results_path, tmp, sizeof tmp, &out, err);
  if (rc == VTA_OK) {
    for (size_t i = 0; i < plan.ncases; i++) {
      const vta_regress_result *r = &res.r[i];
      fprintf(out, "%zu\t%d\t%.6f\t%u\t%llu\t", index[i], (int)r->outcome, r->seconds, r->insns,
              (unsigned long long)r->cycles);
      put_field(out, r->message);
      fputc('\t', out);
      put_field(out, r->detail ? r->detail : "");
      fputc('\t', out);
      put_field(out, r->wave ? r->wave : "");
      fputc('\n', out);
    }
    rc = write_atomic_end(results_path, tmp, out, err);
  }
  free(index);
  vta_regress_results_free(&res);
  vta_regress_plan_free(&plan);
  return rc;
}

static void job_progress(void *ctx, size_t done, size_t failed, size_t total, size_t index,
                         const struct vta_job_result *r) {
  (void)index;
  (void)r;
  const double *t0 = ctx;
  fprintf(stderr, "%s[jobs %zu/%zu] %zu failed  %.0fs%s", isatty(2) ? "\r" : "", done, total,
          failed, now_s() - *t0, isatty(2) ? "" : "\n");
}

int vta_regress_run_jobs(const vta_regress_plan *p, const vta_regress_options *o,
                         const struct vta_executor_opts *eo, const char *work_dir,
                         const char *self, vta_regress_results *res, vta_error *err) {
  double t0 = now_s();
  if (mkdir(work_dir, 0777) != 0 && errno != EEXIST)
    return vta_error_set(err, VTA_ERR_IO, "cannot create the job folder %s: %s", work_dir,
                         strerror(errno));
  if (o->wave_dir && mkdir(o->wave_dir, 0777) != 0 && errno != EEXIST)
    return vta_error_set(err, VTA_ERR_IO, "cannot create the waveform folder %s: %s",
                         o->wave_dir, strerror(errno));
  if (o->coverage_dir) {
    char data[2048];
    snprintf(data, sizeof data, "%s/data", o->coverage_dir);
    if ((mkdir(o->coverage_dir, 0777) != 0 && errno != EEXIST) ||
        (mkdir(data, 0777) != 0 && errno != EEXIST))
      return vta_error_set(err, VTA_ERR_IO, "cannot create the coverage folder %s: %s", data,
                           strerror(errno));
  }
  unsigned workers = eo->jobs ? eo->jobs : 1;
  if (eo->kind == VTA_EXECUTOR_SLURM && workers < 16) workers = 16;
  size_t chunk = p->ncases / (4 * (size_t)workers) + 1;
  if (chunk > 5000) chunk = 5000;
  /* Jobs: runs of consecutive cases with one configuration and backend, at most chunk long. */
  size_t njobs = 0, *first = calloc(p->ncases + 1, sizeof *first);
  if (!first) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < p->ncases; i++)
    if (i == 0 || i - first[njobs - 1] >= chunk ||
        p->cases[i].config != p->cases[i - 1].config ||
        p->cases[i].backend != p->cases[i - 1].backend)
      first[njobs++] = i;
  first[njobs] = p->ncases;
  struct vta_job *jobs = calloc(njobs ? njobs : 1, sizeof *jobs);
  struct vta_job_result *jr = calloc(njobs ? njobs : 1, sizeof *jr);
  char (*names)[32] = calloc(njobs ? njobs : 1, sizeof *names);
  char (*paths)[2][2048] = calloc(njobs ? njobs : 1, sizeof *paths);
  char **argvs = calloc((njobs ? njobs : 1) * 24, sizeof *argvs);
  char deadline[32], window[32], inject[32], crash[32];
  int rc = jobs && jr && names && paths && argvs ? VTA_OK
                                                 : vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  snprintf(deadline, sizeof deadline, "%.0f",
           o->time_budget > 0 ? (double)time(NULL) + o->time_budget
                              : o->deadline > 0 ? o->deadline : 0);
  snprintf(window, sizeof window, "%llu", (unsigned long long)o->wave_window);
  char fail_max[32];
  snprintf(fail_max, sizeof fail_max, "%llu", (unsigned long long)o->fail_max);
  for (size_t j = 0; j < njobs && rc == VTA_OK; j++) {
    snprintf(names[j], sizeof names[j], "case%zu", first[j]);
    snprintf(paths[j][0], sizeof paths[j][0], "%s/%s.cases", work_dir, names[j]);
    snprintf(paths[j][1], sizeof paths[j][1], "%s/%s.results", work_dir, names[j]);
    remove(paths[j][1]);
    FILE *f = NULL;
    char tmp[2200];
    rc = write_atomic_begin(paths[j][0], tmp, sizeof tmp, &f, err);
    if (rc != VTA_OK) break;
    for (size_t i = first[j]; i < first[j + 1]; i++) {
      const vta_regress_case *c = &p->cases[i];
      fprintf(f, "%zu\t", i);
      put_field(f, p->configs[c->config]);
      fputc('\t', f);
      put_field(f, p->backends[c->backend]);
      fprintf(f, "\t%s\t%llu\n", vta_diff_workload_name(c->workload),
              (unsigned long long)c->seed);
    }
    rc = write_atomic_end(paths[j][0], tmp, f, err);
    char **a = argvs + j * 24;
    int k = 0;
    a[k++] = (char *)self;
    a[k++] = "regress";
    a[k++] = "--job";
    a[k++] = paths[j][0];
    a[k++] = "--job-results";
    a[k++] = paths[j][1];
    a[k++] = "--deadline";
    a[k++] = deadline;
    a[k++] = "--fail-max";
    a[k++] = fail_max;
    if (o->wave_dir) {
      a[k++] = "--wave-dir";
      a[k++] = (char *)o->wave_dir;
      a[k++] = "--wave-window";
      a[k++] = window;
    } else {
      a[k++] = "--no-waves";
    }
    if (o->coverage_dir) {
      a[k++] = "--coverage-data";
      a[k++] = (char *)o->coverage_dir;
    }
    if (o->inject_fault >= 0 && (size_t)o->inject_fault >= first[j] &&
        (size_t)o->inject_fault < first[j + 1]) {
      snprintf(inject, sizeof inject, "%zu", (size_t)o->inject_fault - first[j]);
      a[k++] = "--inject-fault";
      a[k++] = inject;
    }
    if (o->inject_crash >= 0 && (size_t)o->inject_crash >= first[j] &&
        (size_t)o->inject_crash < first[j + 1]) {
      snprintf(crash, sizeof crash, "%zu", (size_t)o->inject_crash - first[j]);
      a[k++] = "--inject-crash";
      a[k++] = crash;
    }
    a[k] = NULL;
    jobs[j] = (struct vta_job){names[j], a, work_dir, 0};
  }
  if (rc == VTA_OK) {
    struct vta_executor_opts x = *eo;
    x.progress = o->progress ? job_progress : NULL;
    x.progress_ctx = &t0;
    if (!x.shared_dir) x.shared_dir = work_dir;
    char msg[1024] = "";
    int er = vta_executor_run(&x, jobs, njobs, jr, msg, sizeof msg);
    if (o->progress && isatty(2)) fputc('\n', stderr);
    if (er < 0) rc = vta_error_set(err, VTA_ERR_IO, "job executor: %s", msg);
  }
  /* Results back into plan order; a job that left none turns its cases into errors. */
  memset(res->count, 0, sizeof res->count);
  for (size_t j = 0; j < njobs && rc == VTA_OK; j++) {
    FILE *f = fopen(paths[j][1], "r");
    size_t got = 0;
    char *line = NULL;
    size_t lcap = 0;
    while (f && getline(&line, &lcap, f) > 0) {
      char *fl[8];
      if (split_fields(line, fl, 8) != 8) continue;
      size_t i = strtoull(fl[0], NULL, 10);
      int out = atoi(fl[1]);
      if (i < first[j] || i >= first[j + 1] || out < 0 || out >= VTA_REGRESS_OUTCOME_COUNT)
        continue;
      vta_regress_result *r = &res->r[i];
      r->outcome = (vta_regress_outcome)out;
      r->seconds = strtod(fl[2], NULL);
      r->insns = (uint32_t)strtoul(fl[3], NULL, 10);
      r->cycles = strtoull(fl[4], NULL, 10);
      snprintf(r->message, sizeof r->message, "%s", fl[5]);
      free(r->detail);
      free(r->wave);
      r->detail = fl[6][0] ? strdup(fl[6]) : NULL;
      r->wave = fl[7][0] ? strdup(fl[7]) : NULL;
      got++;
    }
    free(line);
    if (f) fclose(f);
    if (got != first[j + 1] - first[j])
      for (size_t i = first[j]; i < first[j + 1]; i++) {
        vta_regress_result *r = &res->r[i];
        if (r->outcome != VTA_REGRESS_SKIPPED || r->message[0]) continue;
        r->outcome = VTA_REGRESS_ERROR;
        snprintf(r->message, sizeof r->message, "job %s left no result for this case (exit %d%s%s; log %s)",
                 names[j], jr[j].exit_code, jr[j].reason[0] ? ": " : "", jr[j].reason, jr[j].log);
      }
  }
  for (size_t i = 0; i < p->ncases; i++) res->count[res->r[i].outcome]++;
  res->seconds = now_s() - t0;
  free(first);
  free(jobs);
  free(jr);
  free(names);
  free(paths);
  free(argvs);
  return rc;
}
