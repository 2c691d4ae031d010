/* cmd_sweep.c - `vta sweep`: the command, the per-point runner and the gathering of results.
 *
 * The design idea: the sweep is a list of jobs for the executor (host/executor.h), and every job
 * leaves its result in a file of its own: OUT/points/<id>/result.json for a point (written by
 * `vta sweep --run-point DIR`, this same binary), RESOURCE_CACHE/<estimate>/<model key>.json for a
 * resource estimate (scripts/rtl-resources.sh). The command builds the job list from what is not
 * there yet, hands it to the executor, and then reads everything back from the files. So a local
 * and a Slurm run produce the same files, an interrupted sweep resumes, and a repeated one
 * starts no job at all.
 */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "host/executor.h"
#include "host/sweep.h"
#include "vta/file.h"

static const char *cmd = "sweep";

static void sweep_help(void) {
  size_t n, i;
  const sweep_part *p = sweep_parts(&n);
  printf(
      "usage: vta sweep [SPEC.json] [options]\n"
      "\n"
      "Sweeps hardware parameters: every point of the axes (a configuration) gets each\n"
      "workload compiled and run for it (cycles, utilisation, bytes moved) and, with yosys\n"
      "synth_xilinx, an estimate of its FPGA resources (LUT, FF, DSP, BRAM, URAM) checked\n"
      "against the chosen parts. Writes OUT/results.csv, OUT/results.jsonl, OUT/pareto.svg\n"
      "(latency against LUTs and DSPs, the Pareto front, the parts' limits) and\n"
      "OUT/report.md (the best point for each part). Every point keeps its results in\n"
      "OUT/points/<id>/: a sweep interrupted resumes, a repeated one runs nothing.\n"
      "Flags add to or override the spec (see docs/user-guide/sweep.md).\n"
      "\n"
      "spec and axes:\n"
      "  --axis KEY=V1,V2,...    an axis over a configuration key (any key `vta config`\n"
      "  --axis KEY=FROM:TO[:S]  accepts: LOG_BATCH, LOG_BLOCK, LOG_BLOCK_IN/OUT,\n"
      "                          LOG_INP/WGT/ACC/UOP_BUFF_SIZE, LOG_BUS_WIDTH, DRAM_LATENCY,\n"
      "                          CLOCK_MHZ); invalid points are listed with the reason\n"
      "  --base FILE             configuration the axes start from (default: the default)\n"
      "  --workload W            builtin:resnet18 | 'bench:gemm --m 64 --n 64 --k 64' |\n"
      "                          onnx:FILE,input=X.npy[,calibrate=DIR]\n"
      "  --part NAME             check the fit against a part (repeatable):");
  for (i = 0; i < n; i++)
    printf("%s %s (%s)", i ? "," : "", p[i].name, p[i].board);
  printf(
      "\n"
      "                          (each part judged on its own estimate: xc7, xcup with\n"
      "                          URAM, or xcup-nouram for parts without URAM)\n"
      "  --backend B             cycles from sc, rtl (default) or model (fsim run with the\n"
      "                          tiling cost model's cycle prediction)\n"
      "  --rtl-sample N          also run N points (spread evenly) on rtl and report the\n"
      "                          difference (for sc: judged against sc's calibrated error)\n"
      "  --no-resources          skip the yosys estimates\n"
      "  --timeout S             limit per job in seconds (default 3600)\n"
      "  --dry-run               list the points and the jobs to run, run nothing\n"
      "  --report-only           run nothing; write the outputs from the results so far\n"
      "\n"
      "where:\n"
      "  -o, --out DIR           output folder (default sweep-<spec name>)\n"
      "  --cache DIR             resource estimates (default OUT/resources); share one\n"
      "                          between sweeps, estimates depend only on the RTL shape\n"
      "                          (one made for other hw/rtl sources is made again)\n"
      "\n"
      "executor:\n"
      "  --executor local|slurm  local processes (default) or Slurm job arrays\n"
      "  -j, --jobs N            local: processes at once (default: number of CPUs)\n"
      "  --partition P           slurm: partition\n"
      "  --throttle N            slurm: at most N tasks at once (%%N of the array)\n"
      "  --max-array N           slurm: tasks per array (default: the cluster's\n"
      "                          MaxArraySize)\n"
      "  --shared-dir DIR        slurm: folder all nodes see (default OUT/slurm)\n"
      "  --retries N             resubmit failed jobs up to N times (default 0)\n"
      "\n"
      "Ctrl-C stops every job (local processes killed, Slurm arrays scancel'ed); finished\n"
      "points are kept. Internal: --run-point DIR runs one point (what each job runs).\n"
      "\n"
      "exit status: 0 every point ran, 1 some failed or bad spec, 2 bad command line.\n");
}

/* ---- small file helpers ---- */

static char *slurp(const char *path) {
  unsigned char *data;
  size_t n;
  vta_error err;
  if (vta_file_read(path, "a sweep file", (size_t)16 << 20, &data, &n, &err)) return NULL;
  return (char *)data; /* NUL-terminated by vta_file_read */
}

static int put_file(const char *path, const char *text) {
  char tmp[PATH_MAX + 16];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return -1;
  int bad = fputs(text, f) < 0;
  if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

static int mkdir_p(const char *path) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
      *p = '/';
    }
  return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* This binary, the source tree (scripts/) and vta-svgen. */
static int self_paths(char *self, char *root, char *svgen) {
  ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);
  if (n <= 0)
    return -1;
  self[n] = '\0';
  const char *env = getenv("VTA_SRC");
  char tmp[PATH_MAX];
  if (env && *env) {
    snprintf(root, PATH_MAX, "%s", env);
  } else {
    /* build/bin/vta or build/san/bin/vta inside the source tree. */
    snprintf(tmp, sizeof tmp, "%s", self);
    char *d = dirname(tmp);
    root[0] = '\0';
    for (int up = 0; up < 4 && strcmp(d, "/") != 0; up++) {
      char probe[PATH_MAX + 40];
      d = dirname(d);
      snprintf(probe, sizeof probe, "%s/scripts/rtl-resources.sh", d);
      if (exists(probe)) {
        snprintf(root, PATH_MAX, "%s", d);
        break;
      }
    }
  }
  env = getenv("VTA_SVGEN");
  if (env && *env)
    snprintf(svgen, PATH_MAX, "%s", env);
  else if (root[0])
    snprintf(svgen, PATH_MAX, "%s/build/bin/vta-svgen", root);
  else
    svgen[0] = '\0';
  return 0;
}

/* Runs argv with standard output into out_path (standard error stays the job's log); returns
 * the exit status or -1. */
static int run_to_file(char *const *argv, const char *out_path, char *const *env_add) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
      _exit(127);
    dup2(fd, 1);
    close(fd);
    for (char *const *e = env_add; e && *e; e++)
      putenv(*e);
    execvp(argv[0], argv);
    fprintf(stderr, "vta sweep: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last line of a file that parses as a JSON object. */
static cJSON *last_json_line(const char *path) {
  char *text = slurp(path);
  cJSON *best = NULL;
  if (!text)
    return NULL;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] != '{')
      continue;
    cJSON *o = cJSON_Parse(line);
    if (o) {
      cJSON_Delete(best);
      best = o;
    }
  }
  free(text);
  return best;
}

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* ---- one point: `vta sweep --run-point DIR` ---- */

/* Builds the Verilator model of DIR/config.json once (a lock, since points differing only in
 * latency or clock share it) into $VTA_RTL_MODELS or ROOT/build/rtl. */
static int ensure_rtl_model(const char *root, const char *svgen, const char *dir,
                            const char *key, char *models, size_t mlen) {
  const char *env = getenv("VTA_RTL_MODELS");
  char so[PATH_MAX + 200], lock[PATH_MAX + 200], config[PATH_MAX + 20];
  if (env && *env)
    snprintf(models, mlen, "%s", env);
  else
    snprintf(models, mlen, "%s/build/rtl", root);
  snprintf(so, sizeof so, "%s/%s/libvta_rtl_model.so", models, key);
  if (exists(so))
    return 0;
  if (mkdir_p(models) != 0) {
    fprintf(stderr, "vta sweep: cannot create the RTL model folder %s: %s\n", models, strerror(errno));
    return -1;
  }
  snprintf(lock, sizeof lock, "%s/%s.lock", models, key);
  int fd = open(lock, O_RDWR | O_CREAT, 0644);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    fprintf(stderr, "vta sweep: cannot lock %s: %s\n", lock, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  int rc = 0;
  if (!exists(so)) {
    char script[PATH_MAX + 40];
    snprintf(script, sizeof script, "%s/scripts/rtl-model.sh", root);
    snprintf(config, sizeof config, "%s/config.json", dir);
    char *const argv[] = {script, (char *)svgen, config, models, NULL};
    fprintf(stderr, "vta sweep: building the RTL model %s (Verilator)\n", key);
    char out[PATH_MAX + 40];
    snprintf(out, sizeof out, "%s/rtl-model.out", dir);
    if (run_to_file(argv, out, NULL) != 0) {
      fprintf(stderr, "vta sweep: building the RTL model %s failed\n", key);
      rc = -1;
    }
  }
  flock(fd, LOCK_UN);
  close(fd);
  return rc;
}

/* Runs one workload on one backend for the point in dir; fills the fields of w. Returns 0 or
 * -1 with w's "error". */
static int run_workload(const char *self, const char *dir, int wi, const char *workload,
                        const char *backend, const char *models, cJSON *w, const char *prefix) {
  char config[PATH_MAX + 20], out[PATH_MAX + 64], err[600];
  char *argv[48];
  int na = 0;
  const char *dev = strcmp(backend, "model") == 0 ? "fsim" : backend;
  char env_models[PATH_MAX + 40];
  char *env_add[2] = {NULL, NULL};
  char wbuf[PATH_MAX], bundle[PATH_MAX + 64];
  snprintf(env_models, sizeof env_models, "VTA_RTL_MODELS=%s", models);
  if (models[0])
    env_add[0] = env_models;
  snprintf(config, sizeof config, "%s/config.json", dir);
  snprintf(out, sizeof out, "%s/w%d.%s.out", dir, wi, backend);
  snprintf(wbuf, sizeof wbuf, "%s", workload);
  argv[na++] = (char *)self;
  if (strcmp(workload, "builtin:resnet18") == 0 || strncmp(workload, "bench:", 6) == 0) {
    argv[na++] = "bench";
    if (strcmp(workload, "builtin:resnet18") == 0)
      argv[na++] = "resnet18";
    else
      for (char *t = strtok(wbuf + 6, " "); t && na < 40; t = strtok(NULL, " "))
        argv[na++] = t;
    argv[na++] = "--config";
    argv[na++] = config;
    argv[na++] = "--backend";
    argv[na++] = (char *)dev;
    argv[na] = NULL;
    int st = run_to_file(argv, out, env_add);
    cJSON *j = st == 0 ? last_json_line(out) : NULL;
    if (!j) {
      snprintf(err, sizeof err, "%s on %s: %s (exit status %d; its output: %s, errors in the job's log)",
               workload, backend, st == 0 ? "no JSON line printed" : "failed", st, out);
      cJSON_AddStringToObject(w, "error", err);
      return -1;
    }
    double cycles = strcmp(backend, "model") == 0 ? num(j, "predicted_cycles") : num(j, "cycles");
    double cb = num(j, "compute_bound");
    if (isnan(cb))
      cb = num(j, "compute_bound_cycles");
    char key[64];
    snprintf(key, sizeof key, "%scycles", prefix);
    if (isnan(cycles)) {
      snprintf(err, sizeof err, "%s on %s: the backend gives no cycle count%s", workload, backend,
               strcmp(backend, "model") == 0 ? " (the cost model predicts cycles for builtin:resnet18 and bench:conv2d)" : "");
      cJSON_AddStringToObject(w, "error", err);
      cJSON_Delete(j);
      return -1;
    }
    cJSON_AddNumberToObject(w, key, cycles);
    if (!*prefix) {
      cJSON_AddNumberToObject(w, "compute_bound", isnan(cb) ? -1 : cb);
      cJSON_AddNumberToObject(w, "macs", isnan(num(j, "macs")) ? -1 : num(j, "macs"));
      cJSON_AddNumberToObject(w, "bytes_read", isnan(num(j, "bytes_read")) ? -1 : num(j, "bytes_read"));
      cJSON_AddNumberToObject(w, "bytes_written",
                              isnan(num(j, "bytes_written")) ? -1 : num(j, "bytes_written"));
    }
    cJSON_Delete(j);
    return 0;
  }
  /* onnx:PATH,input=X[,calibrate=D]: compile for this configuration, run on the backend. */
  char *path = strtok(wbuf + 5, ","), *input = NULL, *calib = NULL;
  for (char *kv = strtok(NULL, ","); kv; kv = strtok(NULL, ","))
    if (strncmp(kv, "input=", 6) == 0)
      input = kv + 6;
    else if (strncmp(kv, "calibrate=", 10) == 0)
      calib = kv + 10;
  if (strcmp(backend, "model") == 0) {
    snprintf(err, sizeof err, "%s: the model backend predicts cycles for builtin:resnet18 and bench:conv2d only; use sc or rtl",
             workload);
    cJSON_AddStringToObject(w, "error", err);
    return -1;
  }
  snprintf(bundle, sizeof bundle, "%s/w%d.vtab", dir, wi);
  if (!exists(bundle)) {
    char cout[PATH_MAX + 64];
    snprintf(cout, sizeof cout, "%s/w%d.compile.out", dir, wi);
    argv[na++] = "compile";
    argv[na++] = path;
    argv[na++] = "--accel";
    argv[na++] = "--config";
    argv[na++] = config;
    /* The same layers on every configuration, however small: the sweep compares hardware. */
    argv[na++] = "--host-macs-per-ns";
    argv[na++] = "0";
    if (calib) {
      argv[na++] = "--calibrate";
      argv[na++] = calib;
    }
    argv[na++] = "-o";
    argv[na++] = bundle;
    argv[na] = NULL;
    int st = run_to_file(argv, cout, env_add);
    if (st != 0) {
      snprintf(err, sizeof err, "%s: vta compile failed for this configuration (exit status %d; see the job's log)",
               workload, st);
      cJSON_AddStringToObject(w, "error", err);
      return -1;
    }
  }
  na = 1;
  argv[na++] = "run";
  argv[na++] = bundle;
  argv[na++] = "--input";
  argv[na++] = input;
  argv[na++] = "--backend";
  argv[na++] = (char *)dev;
  argv[na] = NULL;
  int st = run_to_file(argv, out, env_add);
  char *text = st == 0 ? slurp(out) : NULL;
  /* `vta run` prints "accelerator (B): ..., N cycles, ..." for cycle-level backends. */
  char *line = text ? strstr(text, "accelerator (") : NULL;
  char *cyc = line ? strstr(line, " cycles,") : NULL;
  if (!cyc) {
    snprintf(err, sizeof err, "%s on %s: %s (exit status %d; its output: %s)", workload, backend,
             st == 0 ? "no cycle count printed" : "vta run failed", st, out);
    cJSON_AddStringToObject(w, "error", err);
    free(text);
    return -1;
  }
  char *b = cyc;
  while (b > line && b[-1] >= '0' && b[-1] <= '9')
    b--;
  char key[64];
  snprintf(key, sizeof key, "%scycles", prefix);
  cJSON_AddNumberToObject(w, key, strtod(b, NULL));
  if (!*prefix) {
    unsigned long long macs = 0;
    char *m = strstr(line, "programs, ");
    if (m)
      sscanf(m, "programs, %llu of", &macs);
    cJSON_AddNumberToObject(w, "macs", (double)macs);
    cJSON_AddNumberToObject(w, "compute_bound", -1);
    cJSON_AddNumberToObject(w, "bytes_read", -1);
    cJSON_AddNumberToObject(w, "bytes_written", -1);
  }
  free(text);
  return 0;
}

static int run_point(const char *dir) {
  char self[PATH_MAX], root[PATH_MAX], svgen[PATH_MAX], path[PATH_MAX + 32];
  char models[PATH_MAX] = "";
  if (self_paths(self, root, svgen) != 0) {
    fprintf(stderr, "vta sweep: cannot find this program's own path (/proc/self/exe)\n");
    return VTA_EXIT_FAIL;
  }
  snprintf(path, sizeof path, "%s/point.json", dir);
  char *text = slurp(path);
  cJSON *pt = text ? cJSON_Parse(text) : NULL;
  if (!pt) {
    fprintf(stderr, "vta sweep: %s: missing or not JSON\n", path);
    free(text);
    return VTA_EXIT_FAIL;
  }
  const cJSON *wl = cJSON_GetObjectItemCaseSensitive(pt, "workloads");
  const cJSON *be = cJSON_GetObjectItemCaseSensitive(pt, "backend");
  const cJSON *key = cJSON_GetObjectItemCaseSensitive(pt, "model_key");
  int rtl = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pt, "rtl"));
  if (!cJSON_IsArray(wl) || !cJSON_IsString(be) || !cJSON_IsString(key)) {
    fprintf(stderr, "vta sweep: %s: needs workloads, backend and model_key\n", path);
    cJSON_Delete(pt);
    free(text);
    return VTA_EXIT_FAIL;
  }
  const char *backend = be->valuestring;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int need_rtl = rtl || strcmp(backend, "rtl") == 0;
  int failed = 0;
  if (need_rtl && (!root[0] || ensure_rtl_model(root, svgen, dir, key->valuestring, models,
                                                sizeof models) != 0)) {
    if (!root[0])
      fprintf(stderr, "vta sweep: the rtl backend needs the source tree (scripts/rtl-model.sh): set VTA_SRC\n");
    failed = 1;
  }
  cJSON *res = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(res, "workloads");
  cJSON_AddStringToObject(res, "point", text);
  const cJSON *w;
  int wi = 0;
  cJSON_ArrayForEach(w, wl) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "workload", w->valuestring);
    cJSON_AddStringToObject(r, "backend", backend);
    if (failed) {
      cJSON_AddStringToObject(r, "error", "the RTL model could not be built (see the job's log)");
    } else if (run_workload(self, dir, wi, w->valuestring, backend, models, r, "") == 0 && rtl) {
      if (strcmp(backend, "rtl") == 0)
        cJSON_AddNumberToObject(r, "rtl_cycles", num(r, "cycles"));
      else
        run_workload(self, dir, wi, w->valuestring, "rtl", models, r, "rtl_");
    }
    if (cJSON_GetObjectItemCaseSensitive(r, "error")) {
      fprintf(stderr, "vta sweep: %s\n", cJSON_GetObjectItemCaseSensitive(r, "error")->valuestring);
      failed = 1;
    }
    cJSON_AddItemToArray(arr, r);
    wi++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  cJSON_AddNumberToObject(res, "seconds",
                          (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  cJSON_AddBoolToObject(res, "ok", !failed);
  char *outtext = cJSON_Print(res);
  snprintf(path, sizeof path, "%s/result.json", dir);
  int wrc = outtext ? put_file(path, outtext) : -1;
  if (wrc != 0)
    fprintf(stderr, "vta sweep: cannot write %s: %s\n", path, strerror(errno));
  free(outtext);
  cJSON_Delete(res);
  cJSON_Delete(pt);
  free(text);
  return failed || wrc ? VTA_EXIT_FAIL : VTA_EXIT_OK;
}

/* ---- the sweep ---- */

struct invalid_list {
  int count;
  char *text;  /* "label: reason" lines */
  size_t len;
};

static void on_invalid(void *ctx, const char *label, const char *reason) {
  struct invalid_list *inv = ctx;
  size_t n = strlen(label);
  inv->count++;
  /* isa/ names the configuration by the label already: say it once. */
  if (strncmp(reason, label, n) == 0 && strncmp(reason + n, ": ", 2) == 0)
    reason += n + 2;
  fprintf(stderr, "vta sweep: skipping invalid point %s: %s\n", label, reason);
  size_t add = n + strlen(reason) + 4;
  char *t = realloc(inv->text, inv->len + add + 1);
  if (t) {
    inv->text = t;
    inv->len += (size_t)snprintf(t + inv->len, add + 1, "%s: %s\n", label, reason);
  }
}

struct progress {
  double t0;
  size_t points, res;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_progress(void *ctx, size_t done, size_t failed, size_t total, size_t index,
                        const struct vta_job_result *r) {
  struct progress *p = ctx;
  if (index == (size_t)-1) {
    fprintf(stderr, "vta sweep: resubmitting %zu failed jobs\n", total - done);
    return;
  }
  double el = now_s() - p->t0;
  double left = done ? el / (double)done * (double)(total - done) : 0;
  fprintf(stderr, "vta sweep: %zu/%zu jobs done, %zu failed, %.0f s elapsed, about %.0f s left%s%s\n",
          done, total, failed, el, left, r && r->exit_code ? "  (failed: " : "",
          r && r->exit_code ? r->log : "");
  if (r && r->exit_code)
    fprintf(stderr, "vta sweep:   %s)\n", r->reason);
}

static int parse_count(const char *opt, const char *text, unsigned max, unsigned *out) {
  uint64_t v;
  if (vta_cli_parse_u64(cmd, opt, text, max, &v) != 0)
    return -1;
  *out = (unsigned)v;
  return 0;
}

/* The rtl_hash of a cached estimate (into hash, "" when the file has none); 0 if readable. */
static int cached_rtl_hash(const char *path, char *hash, size_t len) {
  char *text = slurp(path);
  cJSON *o = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!o)
    return -1;
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "rtl_hash");
  snprintf(hash, len, "%s", cJSON_IsString(h) ? h->valuestring : "");
  cJSON_Delete(o);
  return 0;
}

/* The rtl_hash an estimate of point PT for ESTIMATE would carry now: scripts/rtl-resources.sh
 * --hash (the generated package, hw/rtl/ sources and the synthesis command; the script is the one
 * definition of it). Scratch files go into OUTDIR. 0 on success. */
static int current_rtl_hash(const char *script, const char *svgen, const char *outdir,
                            const sweep_point *pt, const char *estimate, char *hash, size_t len) {
  char cfg[PATH_MAX + 300], out[PATH_MAX + 300];
  snprintf(cfg, sizeof cfg, "%s/.rtl-hash-%s-%s.json", outdir, estimate, pt->model_key);
  snprintf(out, sizeof out, "%s/.rtl-hash-%s-%s.out", outdir, estimate, pt->model_key);
  if (put_file(cfg, pt->json) != 0)
    return -1;
  char *const argv[] = {(char *)script, "--hash", (char *)svgen, cfg, (char *)estimate, NULL};
  int st = run_to_file(argv, out, NULL);
  char *text = st == 0 ? slurp(out) : NULL;
  unlink(cfg);
  unlink(out);
  size_t n = text ? strspn(text, "0123456789abcdef") : 0;
  int ok = n > 0 && n < len && text[n] == '\n';
  if (ok)
    snprintf(hash, len, "%.*s", (int)n, text);
  free(text);
  return ok ? 0 : -1;
}

/* Reads the resource estimate (xc7, xcup, xcup-nouram) of a model key; 0 if present and made
 * for the RTL as it is now (its rtl_hash equal to WANT_HASH). */
static int read_resources(const char *cache, const char *family, const char *key,
                          const char *want_hash, double *v) {
  char path[PATH_MAX + 300];
  snprintf(path, sizeof path, "%s/%s/%s.json", cache, family, key);
  char *text = slurp(path);
  cJSON *o = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!o)
    return -1;
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "rtl_hash");
  if (!cJSON_IsString(h) || strcmp(h->valuestring, want_hash) != 0) {
    cJSON_Delete(o);
    return -1;
  }
  v[0] = num(o, "lut");
  v[1] = num(o, "ff");
  v[2] = num(o, "dsp");
  v[3] = num(o, "bram36");
  v[4] = num(o, "uram");
  cJSON_Delete(o);
  for (int i = 0; i < 5; i++)
    if (isnan(v[i]))
      return -1;
  return 0;
}

int vta_cmd_sweep(int argc, char **argv) {
  sweep_spec spec;
  const char *spec_path = NULL, *out = NULL, *cache = NULL, *run_dir = NULL, *val;
  const char *shared = NULL, *partition = NULL;
  char err[1024];
  unsigned jobs = 0, throttle = 0, max_array = 0, retries = 0;
  int dry = 0, report_only = 0, interrupted = 0, i, r;
  enum vta_executor_kind kind = VTA_EXECUTOR_LOCAL;
  /* Flags are applied after the spec file: collect them first. */
  const char *axis_flags[SWEEP_MAX_AXES * 2], *wl_flags[SWEEP_MAX_WORKLOADS * 2],
      *part_flags[SWEEP_MAX_PARTS * 2];
  int naxf = 0, nwlf = 0, npf = 0;
  const char *base = NULL, *backend = NULL, *rtl_sample = NULL, *timeout = NULL;
  int no_res = 0;

  sweep_spec_init(&spec);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (vta_cli_is_help(a)) {
      sweep_help();
      return VTA_EXIT_OK;
    }
#define OPT(name, alias) ((r = vta_cli_option(cmd, argc, argv, &i, name, alias, &val)) != 0)
    if (OPT("--run-point", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      run_dir = val;
    } else if (OPT("--axis", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      if (naxf >= (int)(sizeof axis_flags / sizeof axis_flags[0]))
        return vta_cli_usage_error(cmd, "too many --axis options");
      axis_flags[naxf++] = val;
    } else if (OPT("--workload", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      if (nwlf >= (int)(sizeof wl_flags / sizeof wl_flags[0]))
        return vta_cli_usage_error(cmd, "too many --workload options");
      wl_flags[nwlf++] = val;
    } else if (OPT("--part", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      if (npf >= (int)(sizeof part_flags / sizeof part_flags[0]))
        return vta_cli_usage_error(cmd, "too many --part options");
      part_flags[npf++] = val;
    } else if (OPT("--base", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      base = val;
    } else if (OPT("--backend", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      backend = val;
    } else if (OPT("--rtl-sample", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      rtl_sample = val;
    } else if (OPT("--timeout", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      timeout = val;
    } else if (OPT("--out", "-o")) {
      if (r < 0) return VTA_EXIT_USAGE;
      out = val;
    } else if (OPT("--cache", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      cache = val;
    } else if (OPT("--executor", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      if (vta_executor_kind_parse(val, &kind) != 0)
        return vta_cli_usage_error(cmd, "--executor '%s' is not local or slurm", val);
    } else if (OPT("--jobs", "-j")) {
      if (r < 0 || parse_count("--jobs", val, 4096, &jobs)) return VTA_EXIT_USAGE;
    } else if (OPT("--partition", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      partition = val;
    } else if (OPT("--throttle", NULL)) {
      if (r < 0 || parse_count("--throttle", val, 1000000, &throttle)) return VTA_EXIT_USAGE;
    } else if (OPT("--max-array", NULL)) {
      if (r < 0 || parse_count("--max-array", val, 100000000, &max_array)) return VTA_EXIT_USAGE;
      if (max_array == 0) return vta_cli_usage_error(cmd, "--max-array must be at least 1");
    } else if (OPT("--shared-dir", NULL)) {
      if (r < 0) return VTA_EXIT_USAGE;
      shared = val;
    } else if (OPT("--retries", NULL)) {
      if (r < 0 || parse_count("--retries", val, 100, &retries)) return VTA_EXIT_USAGE;
    } else if (strcmp(a, "--no-resources") == 0) {
      no_res = 1;
    } else if (strcmp(a, "--report-only") == 0) {
      report_only = 1;
    } else if (strcmp(a, "--dry-run") == 0) {
      dry = 1;
    } else if (a[0] == '-' && a[1]) {
      return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    } else if (spec_path) {
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (one SPEC.json)", a);
    } else {
      spec_path = a;
    }
#undef OPT
  }
  if (run_dir)
    return run_point(run_dir);

  if (spec_path && sweep_spec_load(&spec, spec_path, err, sizeof err) != 0) {
    fprintf(stderr, "vta sweep: %s\n", err);
    return VTA_EXIT_FAIL;
  }
  for (i = 0; i < naxf; i++)
    if (sweep_spec_axis_text(&spec, axis_flags[i], err, sizeof err))
      return vta_cli_usage_error(cmd, "--axis: %s", err);
  if (nwlf)
    spec.nworkloads = 0;
  for (i = 0; i < nwlf; i++)
    if (sweep_spec_add_workload(&spec, wl_flags[i], err, sizeof err))
      return vta_cli_usage_error(cmd, "--workload: %s", err);
  if (npf)
    spec.nparts = 0;
  for (i = 0; i < npf; i++)
    if (sweep_spec_add_part(&spec, part_flags[i], err, sizeof err))
      return vta_cli_usage_error(cmd, "--part: %s", err);
  if (base)
    snprintf(spec.base, sizeof spec.base, "%s", base);
  if (backend)
    snprintf(spec.backend, sizeof spec.backend, "%s", backend);
  if (rtl_sample) {
    unsigned v;
    if (parse_count("--rtl-sample", rtl_sample, SWEEP_MAX_SAMPLE, &v)) return VTA_EXIT_USAGE;
    spec.rtl_sample = (int)v;
    spec.nsample_idx = 0;
  }
  if (timeout) {
    char *end;
    double t = strtod(timeout, &end);
    if (end == timeout || *end || !(t > 0) || t > 1e6)
      return vta_cli_usage_error(cmd, "--timeout '%s' is not a number of seconds above 0 and at most 1e6", timeout);
    spec.timeout_s = t;
  }
  if (no_res)
    spec.resources = 0;
  if (strcmp(spec.backend, "sc") != 0 && strcmp(spec.backend, "rtl") != 0 &&
      strcmp(spec.backend, "model") != 0)
    return vta_cli_usage_error(cmd, "backend '%s' is not sc, rtl or model", spec.backend);
  if (spec.nworkloads == 0)
    return vta_cli_usage_error(cmd, "no workload (give --workload or \"workloads\" in the spec)");
  if (spec.resources && spec.nparts == 0) {
    size_t n;
    const sweep_part *all = sweep_parts(&n);
    for (size_t k = 0; k < n; k++)
      spec.parts[spec.nparts++] = &all[k];
  }

  char self[PATH_MAX], root[PATH_MAX], svgen[PATH_MAX];
  if (self_paths(self, root, svgen) != 0) {
    fprintf(stderr, "vta sweep: cannot find this program's own path (/proc/self/exe)\n");
    return VTA_EXIT_FAIL;
  }
  if (spec.resources && (!root[0] || !exists(svgen))) {
    fprintf(stderr, "vta sweep: resource estimates need the source tree's scripts/rtl-resources.sh and "
                    "build/bin/vta-svgen (`make`); set VTA_SRC (and VTA_SVGEN), or use --no-resources\n");
    return VTA_EXIT_FAIL;
  }

  /* Points. */
  sweep_point *pts;
  size_t np;
  struct invalid_list inv = {0, NULL, 0};
  if (sweep_points(&spec, &pts, &np, on_invalid, &inv, err, sizeof err) != 0) {
    fprintf(stderr, "vta sweep: %s\n", err);
    free(inv.text);
    return VTA_EXIT_FAIL;
  }
  if (np == 0) {
    fprintf(stderr, "vta sweep: no valid point (%d invalid)\n", inv.count);
    sweep_points_free(pts, np);
    free(inv.text);
    return VTA_EXIT_FAIL;
  }

  /* Folders: absolute, since Slurm tasks run elsewhere. */
  char outdir[PATH_MAX], cachedir[PATH_MAX], shareddir[PATH_MAX], tmp[PATH_MAX * 2];
  snprintf(tmp, sizeof tmp, "%s", out ? out : "");
  if (!out)
    snprintf(tmp, sizeof tmp, "sweep-%s", spec.name);
  if (mkdir_p(tmp) != 0 || !realpath(tmp, outdir)) {
    fprintf(stderr, "vta sweep: cannot create the output folder %s: %s\n", tmp, strerror(errno));
    sweep_points_free(pts, np);
    free(inv.text);
    return VTA_EXIT_FAIL;
  }
  snprintf(tmp, sizeof tmp, "%s", cache ? cache : "");
  if (!cache)
    snprintf(tmp, sizeof tmp, "%s/resources", outdir);
  if (mkdir_p(tmp) != 0 || !realpath(tmp, cachedir)) {
    fprintf(stderr, "vta sweep: cannot create the resource cache %s: %s\n", tmp, strerror(errno));
    sweep_points_free(pts, np);
    free(inv.text);
    return VTA_EXIT_FAIL;
  }
  snprintf(tmp, sizeof tmp, "%s", shared ? shared : "");
  if (!shared)
    snprintf(tmp, sizeof tmp, "%s/slurm", outdir);
  if (kind == VTA_EXECUTOR_SLURM && (mkdir_p(tmp) != 0 || !realpath(tmp, shareddir))) {
    fprintf(stderr, "vta sweep: cannot create the shared folder %s: %s\n", tmp, strerror(errno));
    sweep_points_free(pts, np);
    free(inv.text);
    return VTA_EXIT_FAIL;
  }

  /* Jobs: resource estimates first (the longest), then the points whose result is missing or
   * was made for other inputs. */
  int nfam = 0;
  for (int p = 0; p < spec.nparts; p++) {
    int seen = 0;
    for (int q = 0; q < p; q++)
      seen |= strcmp(spec.parts[q]->estimate, spec.parts[p]->estimate) == 0;
    nfam += !seen;
  }
  size_t maxjobs = np * (size_t)(1 + nfam) + 1;
  struct vta_job *jl = calloc(maxjobs, sizeof *jl);
  char (*names)[256] = calloc(maxjobs, sizeof *names);
  char (*dirs)[PATH_MAX] = calloc(maxjobs, sizeof *dirs);
  char *(*args)[6] = calloc(maxjobs, sizeof *args);
  char *(*argvs)[7] = calloc(maxjobs, sizeof *argvs);
  /* The current rtl_hash of each estimate, at [first point of the shape][first part of the
   * estimate]. */
  char (*rhash)[20] = calloc(np * SWEEP_MAX_PARTS, sizeof *rhash);
  size_t nj = 0, npj = 0, nrj = 0, k;
  int rc = VTA_EXIT_OK;
  if (!jl || !names || !dirs || !args || !argvs || !rhash) {
    fprintf(stderr, "vta sweep: out of memory for %zu jobs\n", maxjobs);
    rc = VTA_EXIT_FAIL;
    goto done;
  }
  char script[PATH_MAX + 40];
  snprintf(script, sizeof script, "%s/scripts/rtl-resources.sh", root);
  /* One argument of job nj, on the heap (a sweep may have thousands of jobs). */
#define ARG(m, ...) (args[nj][m] = NULL, asprintf(&args[nj][m], __VA_ARGS__) < 0 ? (args[nj][m] = NULL) : NULL)
  if (spec.resources)
    for (int p = 0; p < spec.nparts; p++) {
      const char *fam = spec.parts[p]->estimate;
      int seen_fam = 0;
      for (int q = 0; q < p; q++)
        if (strcmp(spec.parts[q]->estimate, fam) == 0)
          seen_fam = 1;
      if (seen_fam)
        continue;
      for (k = 0; k < np; k++) {
        char path[PATH_MAX * 2], was[64];
        int dup = 0;
        for (size_t m = 0; m < k; m++)
          if (strcmp(pts[m].model_key, pts[k].model_key) == 0)
            dup = 1;
        if (dup)
          continue;
        /* A cached estimate counts only if made for the RTL as it is now. */
        if (current_rtl_hash(script, svgen, outdir, &pts[k], fam, rhash[k * SWEEP_MAX_PARTS + p],
                             sizeof rhash[0]) != 0) {
          fprintf(stderr, "vta sweep: %s --hash %s %s failed: cannot tell whether the cached %s "
                          "estimate of %s is current\n",
                  script, svgen, pts[k].label, fam, pts[k].model_key);
          rc = VTA_EXIT_FAIL;
          goto done;
        }
        snprintf(path, sizeof path, "%s/%s/%s.json", cachedir, fam, pts[k].model_key);
        if (exists(path)) {
          if (cached_rtl_hash(path, was, sizeof was) == 0 &&
              strcmp(was, rhash[k * SWEEP_MAX_PARTS + p]) == 0)
            continue;
          fprintf(stderr, "vta sweep: %s was estimated for other RTL (rtl_hash '%s', now '%s'): it is estimated again\n",
                  path, was, rhash[k * SWEEP_MAX_PARTS + p]);
        }
        /* The estimate's configuration: the first point of that RTL shape. */
        snprintf(dirs[nj], PATH_MAX, "%s/%s", cachedir, fam);
        snprintf(names[nj], 256, "res-%s-%s", fam, pts[k].model_key);
        ARG(0, "%s", script);
        ARG(1, "%s", svgen);
        ARG(2, "%s/points/%s/config.json", outdir, pts[k].id);
        ARG(3, "%s", fam);
        ARG(4, "%.*s", PATH_MAX - 1, path);
        for (int m = 0; m < 5; m++)
          argvs[nj][m] = args[nj][m];
        argvs[nj][5] = NULL;
        jl[nj] = (struct vta_job){names[nj], argvs[nj], dirs[nj], spec.timeout_s};
        nj++, nrj++;
      }
    }
  for (k = 0; k < np; k++) {
    char pdir[PATH_MAX + 64], path[PATH_MAX + 96];
    snprintf(pdir, sizeof pdir, "%s/points/%s", outdir, pts[k].id);
    cJSON *pj = cJSON_CreateObject();
    cJSON_AddStringToObject(pj, "id", pts[k].id);
    cJSON_AddStringToObject(pj, "label", pts[k].label);
    cJSON_AddStringToObject(pj, "model_key", pts[k].model_key);
    cJSON_AddStringToObject(pj, "backend", spec.backend);
    cJSON_AddBoolToObject(pj, "rtl", pts[k].rtl);
    cJSON *wa = cJSON_AddArrayToObject(pj, "workloads");
    for (int w = 0; w < spec.nworkloads; w++)
      cJSON_AddItemToArray(wa, cJSON_CreateString(spec.workloads[w]));
    char *ptext = cJSON_Print(pj);
    cJSON_Delete(pj);
    if (!ptext || mkdir_p(pdir) != 0) {
      fprintf(stderr, "vta sweep: cannot create %s: %s\n", pdir, strerror(errno));
      free(ptext);
      rc = VTA_EXIT_FAIL;
      goto done;
    }
    /* Done already for exactly these inputs? */
    snprintf(path, sizeof path, "%s/result.json", pdir);
    char *prev = slurp(path);
    cJSON *pr = prev ? cJSON_Parse(prev) : NULL;
    const cJSON *pin = pr ? cJSON_GetObjectItemCaseSensitive(pr, "point") : NULL;
    int fresh = pr && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pr, "ok")) &&
                cJSON_IsString(pin) && strcmp(pin->valuestring, ptext) == 0;
    cJSON_Delete(pr);
    free(prev);
    snprintf(path, sizeof path, "%s/config.json", pdir);
    char *cprev = slurp(path);
    if (!cprev || strcmp(cprev, pts[k].json) != 0) {
      fresh = 0;
      if (put_file(path, pts[k].json) != 0) {
        fprintf(stderr, "vta sweep: cannot write %s: %s\n", path, strerror(errno));
        free(cprev);
        free(ptext);
        rc = VTA_EXIT_FAIL;
        goto done;
      }
    }
    free(cprev);
    snprintf(path, sizeof path, "%s/point.json", pdir);
    char *pprev = slurp(path);
    if ((!pprev || strcmp(pprev, ptext) != 0) && put_file(path, ptext) != 0) {
      fprintf(stderr, "vta sweep: cannot write %s: %s\n", path, strerror(errno));
      free(pprev);
      free(ptext);
      rc = VTA_EXIT_FAIL;
      goto done;
    }
    free(pprev);
    free(ptext);
    if (fresh)
      continue;
    snprintf(dirs[nj], PATH_MAX, "%s", pdir);
    snprintf(names[nj], 256, "point-%s", pts[k].id);
    ARG(0, "%s", self);
    ARG(1, "sweep");
    ARG(2, "--run-point");
    ARG(3, "%s", pdir);
    for (int m = 0; m < 4; m++)
      argvs[nj][m] = args[nj][m];
    argvs[nj][4] = NULL;
    jl[nj] = (struct vta_job){names[nj], argvs[nj], dirs[nj], spec.timeout_s};
    nj++, npj++;
  }
  fprintf(stderr, "vta sweep: %zu valid points, %d invalid; %zu point jobs and %zu resource estimates to run (%zu points done before)\n",
          np, inv.count, npj, nrj, np - npj);
  if (dry) {
    for (k = 0; k < np; k++)
      printf("%s  %s  %s%s\n", pts[k].id, pts[k].label, pts[k].model_key, pts[k].rtl ? "  (+rtl)" : "");
    for (k = 0; k < nj; k++)
      printf("job %s\n", jl[k].name);
    goto done;
  }

  double t0 = now_s();
  if (nj > 0 && !report_only) {
    struct progress pg = {t0, npj, nrj};
    struct vta_executor_opts eo = {
        .kind = kind,
        .jobs = jobs ? jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN),
        .partition = partition,
        .throttle = throttle,
        .max_array = max_array,
        .shared_dir = shareddir,
        .retries = retries,
        .progress = on_progress,
        .progress_ctx = &pg,
        .cancel = vta_executor_catch_sigint(),
    };
    struct vta_job_result *res = calloc(nj, sizeof *res);
    if (!res) {
      fprintf(stderr, "vta sweep: out of memory\n");
      rc = VTA_EXIT_FAIL;
      goto done;
    }
    int er = vta_executor_run(&eo, jl, nj, res, err, sizeof err);
    if (er < 0) {
      fprintf(stderr, "vta sweep: executor: %s\n", err);
      free(res);
      rc = VTA_EXIT_FAIL;
      goto done;
    }
    for (k = 0; k < nj; k++)
      if (res[k].exit_code != 0)
        fprintf(stderr, "vta sweep: job %s failed: %s (log: %s)\n", jl[k].name, res[k].reason,
                res[k].log);
    free(res);
    if (er == 1) {
      fprintf(stderr, "vta sweep: interrupted; finished points are kept and reported, run the same command to resume\n");
      interrupted = 1;
    }
  }

  /* Gather the rows. */
  {
    size_t nrows = np * (size_t)spec.nworkloads, nbad = 0;
    sweep_row *rows = calloc(nrows, sizeof *rows);
    if (!rows) {
      rc = VTA_EXIT_FAIL;
      goto done;
    }
    for (k = 0; k < np; k++) {
      char path[PATH_MAX + 96];
      snprintf(path, sizeof path, "%s/points/%s/result.json", outdir, pts[k].id);
      char *text = slurp(path);
      cJSON *res = text ? cJSON_Parse(text) : NULL;
      free(text);
      /* Only a result made for the point as it is now (a stale one is "not run yet"). */
      snprintf(path, sizeof path, "%s/points/%s/point.json", outdir, pts[k].id);
      char *now_pt = slurp(path);
      const cJSON *rpt = res ? cJSON_GetObjectItemCaseSensitive(res, "point") : NULL;
      if (res && (!now_pt || !cJSON_IsString(rpt) || strcmp(rpt->valuestring, now_pt) != 0)) {
        cJSON_Delete(res);
        res = NULL;
      }
      free(now_pt);
      const cJSON *wa = res ? cJSON_GetObjectItemCaseSensitive(res, "workloads") : NULL;
      double rv[SWEEP_MAX_PARTS][5];
      int have_res = spec.resources, part_ok[SWEEP_MAX_PARTS] = {0};
      for (int p = 0; p < spec.nparts && spec.resources; p++) {
        size_t k0 = 0;
        int p0 = 0;
        while (strcmp(pts[k0].model_key, pts[k].model_key) != 0)
          k0++;
        while (strcmp(spec.parts[p0]->estimate, spec.parts[p]->estimate) != 0)
          p0++;
        part_ok[p] = read_resources(cachedir, spec.parts[p]->estimate, pts[k].model_key,
                                    rhash[k0 * SWEEP_MAX_PARTS + p0], rv[p]) == 0;
        have_res &= part_ok[p];
      }
      for (int w = 0; w < spec.nworkloads; w++) {
        sweep_row *row = &rows[k * (size_t)spec.nworkloads + (size_t)w];
        const cJSON *wr = cJSON_GetArrayItem(wa, w);
        row->pt = &pts[k];
        row->workload = w;
        row->rtl_cycles = row->rtl_diff = row->rtl_bound = -1;
        row->rtl_within = -1;
        snprintf(row->backend, sizeof row->backend, "%s", spec.backend);
        snprintf(row->cycles_source, sizeof row->cycles_source, "%s", spec.backend);
        const cJSON *e = wr ? cJSON_GetObjectItemCaseSensitive(wr, "error") : NULL;
        if (!wr) {
          snprintf(row->error, sizeof row->error, "not run yet (job log: %s/points/%s/point-%s.log)",
                   outdir, pts[k].id, pts[k].id);
        } else if (cJSON_IsString(e)) {
          snprintf(row->error, sizeof row->error, "%s", e->valuestring);
        } else {
          row->ok = 1;
          row->cycles = num(wr, "cycles");
          row->compute_bound = num(wr, "compute_bound");
          row->macs = num(wr, "macs");
          row->bytes_read = num(wr, "bytes_read");
          row->bytes_written = num(wr, "bytes_written");
          row->utilisation = row->compute_bound > 0 && row->cycles > 0 ? row->compute_bound / row->cycles : -1;
          row->latency_ms = row->cycles / (pts[k].cfg.clock_mhz * 1e3);
          double rc2 = num(wr, "rtl_cycles");
          if (!isnan(rc2) && rc2 > 0)
            sweep_row_set_rtl(&spec, row, rc2);
        }
        row->have_res = have_res;
        if (spec.resources) {
          for (int p = 0; p < spec.nparts; p++) {
            const sweep_part *pp = spec.parts[p];
            row->part_res[p] = part_ok[p];
            if (!part_ok[p])
              continue;
            double lim[5] = {pp->lut, pp->ff, pp->dsp, pp->bram36, pp->uram}, worst = 0;
            int fits = 1;
            memcpy(row->res_by_part[p], rv[p], sizeof rv[p]);
            for (int q = 0; q < 5; q++) {
              if (rv[p][q] > lim[q])
                fits = 0;
              if (lim[q] > 0 && rv[p][q] / lim[q] > worst)
                worst = rv[p][q] / lim[q];
            }
            row->fits[p] = fits;
            row->util_by_part[p] = worst;
          }
          if (part_ok[0])
            row->lut = rv[0][0], row->ff = rv[0][1], row->dsp = rv[0][2], row->bram36 = rv[0][3],
            row->uram = rv[0][4];
        }
        if (!row->ok)
          nbad++;
      }
      cJSON_Delete(res);
    }
    if (sweep_write_outputs(&spec, outdir, rows, nrows, inv.text, err, sizeof err) != 0) {
      fprintf(stderr, "vta sweep: %s\n", err);
      rc = VTA_EXIT_FAIL;
    }
    for (size_t q = 0; q < nrows; q++)
      if (!rows[q].ok)
        fprintf(stderr, "vta sweep: point %s (%s), %s: %s\n", rows[q].pt->id, rows[q].pt->label,
                spec.workloads[rows[q].workload], rows[q].error);
    int missing_res = spec.resources && nrows && !rows[0].have_res;
    for (size_t q = 0; q < nrows; q++)
      if (spec.resources && !rows[q].have_res)
        missing_res = 1;
    fprintf(stderr, "vta sweep: %zu points x %d workloads: %zu ok, %zu failed%s in %.1f s; results in %s/\n",
            np, spec.nworkloads, nrows - nbad, nbad,
            missing_res ? ", some resource estimates missing" : "", now_s() - t0, outdir);
    if (nbad || missing_res || interrupted)
      rc = VTA_EXIT_FAIL;
    free(rows);
  }
done:
  free(inv.text);
  if (args)
    for (k = 0; k < maxjobs; k++)
      for (int m = 0; m < 6; m++)
        free(args[k][m]);
  free(jl);
  free(names);
  free(dirs);
  free(args);
  free(argvs);
  free(rhash);
  sweep_points_free(pts, np);
  return rc;
}
