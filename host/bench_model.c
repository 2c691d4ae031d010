/* bench_model.c - `vta bench model M`: compile time and inference time of a real model on the
 * CPU path, with onnxruntime's inference time on the same model and input in the same run.
 *
 * The design idea: the comparison is only fair if both sides see the same thing, so one
 * command does both: it compiles the ONNX file in memory exactly as `vta run model.onnx` does
 * (import, passes, LLVM code generation, JIT: "compile_seconds" is import to JIT-ready), times
 * single-threaded runs on one input, then hands the same model file and the same .npy to
 * scripts/ort-reference.mjs --time (onnxruntime-node 1.30.0, one intra-op and one inter-op
 * thread, all graph optimisations) and prints both medians and their ratio as one JSON line.
 * Both sides report the median of the same number of runs after one warm-up run, so a run
 * disturbed by another process does not decide the result. Our side's output is checked
 * against the reference output kept in tests/data (for the two named models) before
 * anything is printed, so a fast wrong kernel cannot produce a good figure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "host/const_input.h"
#include "host/model.h"
#include "host/npy.h"
#include "vta/stats.h"

static void bench_model_help(void) {
  printf("usage: vta bench model MODEL [--backend B] [--input [NAME=]X.npy ...]\n"
         "                       [--const-input NAME=VALUE ...] [--reference Y.npy]\n"
         "                       [--repeat N] [--no-ort] [--no-chain]\n"
         "\n"
         "Compiles an ONNX model in memory (import, graph passes, LLVM code generation, JIT),\n"
         "runs it on one input on the CPU, single thread, and times onnxruntime-node on the\n"
         "same model and input (scripts/ort-reference.mjs; installs onnxruntime-node into\n"
         ".cache/ort with scripts/ort-setup.sh when missing). Prints one JSON line: compile\n"
         "seconds (import to JIT-ready, and per stage), median inference seconds of both and\n"
         "their ratio (ours / onnxruntime's), in wall time and in CPU time (the process's, which\n"
         "other work on a loaded machine does not inflate).\n"
         "\n"
         "MODEL may also be a bundle (.vtab; onnxruntime is then not timed). With one compiled\n"
         "with --accel, --backend fsim|rtl runs its accelerator layers on that device and the\n"
         "line adds, per inference: device runs (one per chain of consecutive accelerator\n"
         "nodes; --no-chain: one per program), programs, bytes to and from the device, host seconds\n"
         "(packing, CPU nodes, transfers), device seconds and, on rtl, cycles and utilisation.\n"
         "\n"
         "MODEL is a path to an .onnx file (needs --input) or one of the reference models\n"
         "fetched by scripts/fetch-models.sh, which bring their own input and reference output:\n"
         "  blazeface   BlazeFace face detector, 128x128 (input: skimage's astronaut)\n"
         "  ppocr_cls   PP-OCR text orientation classifier, 48x192 (input: skimage's text)\n"
         "\n"
         "options:\n"
         "  --backend B     cpu (default), or fsim, rtl, ... for a bundle's accelerator layers\n"
         "  --input [NAME=]FILE  an input tensor (.npy, float32) for a model given by path:\n"
         "                  without NAME the first input; repeat it for every input\n"
         "  --const-input NAME=VALUE  fix input NAME at compile time (a number, converted to\n"
         "                  the input's declared type, or an .npy file), as `vta compile\n"
         "                  --const-input` does; onnxruntime is given the same value. The\n"
         "                  runtime takes float32 inputs only: fix the others (Silero VAD's\n"
         "                  int64 sr: --const-input sr=16000)\n"
         "  --reference FILE  the expected first output (.npy, float32, the output's size):\n"
         "                  checked (1e-4 relative) before timing; a wrong result exits 1\n"
         "  --repeat N      timed runs on each side (default 50); medians are reported\n"
         "  --no-ort        skip onnxruntime (its fields are null)\n"
         "  --no-chain      one device run per accelerator program (for comparison)\n"
         "  -h, --help      show this help\n"
         "\nexit status: 0 measured, 1 the model or onnxruntime failed, 2 bad command line.\n");
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process (every thread), which other processes on a loaded machine do
 * not inflate as they do wall time. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The reference models: file, input, output reference (first output) under tests/data. */
static const struct {
  const char *name, *model, *input, *reference;
} known[] = {
    {"blazeface", ".cache/models/blazeface.onnx", "tests/data/models/astronaut.npy",
     "tests/data/models/blazeface_astronaut/Identity_0.npy"},
    {"ppocr_cls", ".cache/models/ppocr_cls.onnx", "tests/data/models/text.npy",
     "tests/data/models/ppocr_cls_text/softmax_0.tmp_0.npy"},
};

/* Runs the onnxruntime timing script; returns the median wall time in seconds (and in *cpu the
 * median CPU time), or -1 (message printed). */
static double ort_time(const char *model, const char *input, const char *extra, unsigned repeat, double *cpu) {
  if (access(".cache/ort/node_modules/onnxruntime-node", F_OK) != 0 &&
      system("scripts/ort-setup.sh >&2") != 0) {
    fprintf(stderr, "vta bench: cannot install onnxruntime-node (scripts/ort-setup.sh failed; "
                    "use --no-ort to skip the comparison)\n");
    return -1;
  }
  char cmd[8192];
  if (snprintf(cmd, sizeof cmd, "node scripts/ort-reference.mjs --time %u '%s' %s%s%s%s 2>/dev/null",
               repeat, model, *input ? "'" : "", input, *input ? "'" : "", extra) >= (int)sizeof cmd) {
    fprintf(stderr, "vta bench: the onnxruntime command line is too long\n");
    return -1;
  }
  FILE *p = popen(cmd, "r");
  if (!p) {
    fprintf(stderr, "vta bench: cannot start node for the onnxruntime timing\n");
    return -1;
  }
  char line[512] = "";
  double ms = -1;
  *cpu = -1;
  while (fgets(line, sizeof line, p)) {
    const char *k = strstr(line, "\"ort_ms\":");
    if (k) ms = strtod(k + 9, NULL);
    k = strstr(line, "\"ort_cpu_ms\":");
    if (k) *cpu = strtod(k + 13, NULL) / 1e3;
  }
  int st = pclose(p);
  if (st != 0 || !(ms > 0)) {
    fprintf(stderr, "vta bench: the onnxruntime timing failed (node scripts/ort-reference.mjs "
                    "--time %u %s %s%s; use --no-ort to skip it)\n", repeat, model, input, extra);
    return -1;
  }
  return ms / 1e3;
}

/* Counts per inference: whole numbers printed in full (%.6g would round 1038336). */
static void json_count(const char *key, double v) { printf(",\"%s\":%.15g", key, v); }

static void json_num(const char *key, double v) {
  if (v >= 0)
    printf(",\"%s\":%.6g", key, v);
  else
    printf(",\"%s\":null", key);
}

/* Shell-quotes s into out (single quotes; a quote inside is refused). */
static int quoted(char *out, size_t cap, const char *prefix, const char *s) {
  if (strchr(s, '\'') || strchr(prefix, '\'')) return -1;
  return snprintf(out, cap, " '%s%s'", prefix, s) < (int)cap ? 0 : -1;
}

#define BENCH_MAX_INPUTS 8

static int bench_model_run(int argc, char **argv, vta_cli_consts *consts) {
  const char *cmd = "bench", *model = NULL, *backend = "cpu", *reference = NULL;
  const char *label = NULL;
  /* --input [NAME=]FILE: in_names[k] NULL for the first input. */
  const char *in_files[BENCH_MAX_INPUTS], *in_names[BENCH_MAX_INPUTS];
  static char in_name_buf[BENCH_MAX_INPUTS][256];
  int n_in = 0;
  unsigned repeat = 50;
  int ort = 1, r, chain = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (vta_cli_is_help(a)) {
      bench_model_help();
      return VTA_EXIT_OK;
    }
    if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      backend = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--input", "-i", &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      if (n_in >= BENCH_MAX_INPUTS) return vta_cli_usage_error(cmd, "more than %d --input options", BENCH_MAX_INPUTS);
      const char *eq = vta_cli_has_suffix(val, ".npy") ? strchr(val, '=') : NULL;
      if (eq && (eq == val || (size_t)(eq - val) >= sizeof in_name_buf[0]))
        return vta_cli_usage_error(cmd, "--input '%s' is not [NAME=]FILE.npy", val);
      for (int j = 0; j < n_in; j++)
        if (!eq && !in_names[j])
          return vta_cli_usage_error(cmd, "--input '%s': the first input is already given ('%s'); name the "
                                          "others: --input NAME=FILE.npy", val, in_files[j]);
      if (eq) snprintf(in_name_buf[n_in], sizeof in_name_buf[0], "%.*s", (int)(eq - val), val);
      in_names[n_in] = eq ? in_name_buf[n_in] : NULL;
      in_files[n_in++] = eq ? eq + 1 : val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--const-input", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      if ((r = vta_cli_const_input(cmd, val, consts)) != 0) return r;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--reference", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      reference = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--repeat", NULL, &val)) != 0) {
      uint64_t n;
      if (r < 0 || vta_cli_parse_u64(cmd, "--repeat", val, 100000, &n) != 0) return VTA_EXIT_USAGE;
      if (n == 0) return vta_cli_usage_error(cmd, "--repeat must be at least 1");
      repeat = (unsigned)n;
    } else if (strcmp(a, "--no-ort") == 0) {
      ort = 0;
    } else if (strcmp(a, "--no-chain") == 0) {
      chain = 0;
    } else if (a[0] == '-' && a[1]) {
      return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    } else if (model) {
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (one MODEL only)", a);
    } else {
      model = a;
    }
  }
  if (!model) return vta_cli_usage_error(cmd, "no MODEL given (blazeface, ppocr_cls or a path)");
  label = model;
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (strcmp(model, known[k].name) == 0) {
      if (access(known[k].model, F_OK) != 0 && system("scripts/fetch-models.sh >/dev/null") != 0) {
        fprintf(stderr, "vta bench: %s is not cached and scripts/fetch-models.sh could not "
                        "fetch it\n", known[k].model);
        return VTA_EXIT_FAIL;
      }
      model = known[k].model;
      if (!n_in) {
        in_names[0] = NULL;
        in_files[n_in++] = known[k].input;
        if (!reference) reference = known[k].reference;
      }
    }
  /* A bundle: no onnxruntime to compare with (it runs ONNX files); an ONNX file is compiled
   * for the CPU only. */
  FILE *mf = fopen(model, "rb");
  char magic[4] = {0};
  if (mf) {
    if (fread(magic, 1, 4, mf) != 4) magic[0] = 0;
    fclose(mf);
  }
  int bundle = memcmp(magic, "VTAB", 4) == 0;
  if (bundle) ort = 0;
  if (!bundle && strcmp(backend, "cpu") != 0)
    return vta_cli_usage_error(cmd, "backend '%s': only 'cpu' runs an ONNX model; compile it with `vta "
                                    "compile --accel` and bench the bundle", backend);
  if (bundle && consts->n)
    return vta_cli_usage_error(cmd, "--const-input applies to an ONNX model: a bundle's inputs were fixed "
                                    "when it was compiled");
  if (!n_in)
    return vta_cli_usage_error(cmd, "model '%s' needs --input X.npy (or name a reference "
                                    "model: blazeface, ppocr_cls)", model);
  vta_error err = {0};
  vta_npy x[BENCH_MAX_INPUTS];
  memset(x, 0, sizeof x);
  int status = VTA_EXIT_FAIL, ranks[BENCH_MAX_INPUTS];
  int64_t dims[BENCH_MAX_INPUTS][8];
  double *ts = NULL, *cs = NULL;
  vta_model *m = NULL;
  char extra[4096] = "";
  const char *first = NULL;
  for (int j = 0; j < n_in; j++) {
    if (vta_npy_read(in_files[j], &x[j], &err)) {
      vta_cli_fail(cmd, &err);
      goto done;
    }
    if (strcmp(x[j].descr, "<f4") != 0) {
      fprintf(stderr, "vta bench: input '%s': %s holds %s; the runtime takes float32 (<f4) inputs (fix an "
                      "input of another type at compile time: --const-input %s=VALUE)\n",
              in_names[j] ? in_names[j] : "(the first)", in_files[j], x[j].descr,
              in_names[j] ? in_names[j] : "NAME");
      goto done;
    }
    ranks[j] = x[j].rank;
    for (int d = 0; d < x[j].rank; d++) dims[j][d] = x[j].dims[d];
    size_t len = strlen(extra);
    char kv[600];
    if (in_names[j]) snprintf(kv, sizeof kv, "%s=", in_names[j]);
    if (!in_names[j])
      first = in_files[j];
    else if (quoted(extra + len, sizeof extra - len, kv, in_files[j])) {
      fprintf(stderr, "vta bench: input '%s': the file name %s has a quote or is too long\n", in_names[j], in_files[j]);
      goto done;
    }
  }
  for (int j = 0; j < consts->n; j++) {
    size_t len = strlen(extra);
    char kv[600];
    snprintf(kv, sizeof kv, "%s=%s", consts->names[j], consts->text[j]);
    if (quoted(extra + len, sizeof extra - len, "", kv)) {
      fprintf(stderr, "vta bench: --const-input %s has a quote or is too long\n", kv);
      goto done;
    }
  }
  if (first && strchr(first, '\'')) {
    fprintf(stderr, "vta bench: the input file name %s has a quote\n", first);
    goto done;
  }
  vta_import_opts io = {0};
  io.n_shapes = n_in;
  io.shape_names = in_names;
  io.shape_ranks = ranks;
  io.shape_dims = (const int64_t(*)[VTA_MAX_RANK])dims;
  io.n_fixed = consts->n;
  io.fixed_names = consts->name_ptr;
  io.fixed_values = consts->values;
  double t0 = now_s();
  m = vta_model_open_import(model, &io, &err);
  double compile_s = now_s() - t0;
  ts = calloc(repeat, sizeof *ts);
  cs = calloc(repeat, sizeof *cs);
  if (!m || !ts || !cs) {
    if (!m) vta_cli_fail(cmd, &err);
    goto done;
  }
  vta_model_set_chaining(m, chain);
  if (vta_model_set_backend(m, backend, NULL, &err)) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  /* Every input of the model given once, with its shape; no name the model lacks. */
  for (int j = 0; j < n_in; j++)
    if (in_names[j] && vta_model_find_input(m, in_names[j]) < 0) {
      fprintf(stderr, "vta bench: %s has no input '%s' (its inputs:", model, in_names[j]);
      for (int k = 0; k < vta_model_n_inputs(m); k++)
        fprintf(stderr, "%s %s", k ? "," : "", vta_model_input(m, k, NULL, NULL));
      fprintf(stderr, ")\n");
      goto done;
    }
  for (int k = 0; k < vta_model_n_inputs(m); k++) {
    int rank;
    int64_t d[8];
    const char *name = vta_model_input(m, k, &rank, d);
    char shape[160] = "";
    for (int e = 0; e < rank; e++)
      snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", e ? "x" : "", (long long)d[e]);
    int j = -1;
    for (int q = 0; q < n_in; q++)
      if (in_names[q] ? strcmp(in_names[q], name) == 0 : k == 0) j = q;
    if (j < 0) {
      fprintf(stderr, "vta bench: %s: input '%s' (float32, %s) is not given (--input %s=FILE.npy, or "
                      "--const-input %s=VALUE to fix it at compile time)\n", model, name,
              rank ? shape : "a scalar", name, name);
      goto done;
    }
    size_t count = 1;
    for (int e = 0; e < rank; e++) count *= (size_t)d[e];
    if (x[j].count != count) {
      char given[160] = "";
      for (int e = 0; e < x[j].rank; e++)
        snprintf(given + strlen(given), sizeof given - strlen(given), "%s%lld", e ? "x" : "", (long long)x[j].dims[e]);
      fprintf(stderr, "vta bench: %s: input '%s' needs shape %s (%zu elements); %s holds %s (%zu)\n", model,
              name, rank ? shape : "()", count, in_files[j], x[j].rank ? given : "()", x[j].count);
      goto done;
    }
    if (vta_model_set_input(m, k, x[j].data, x[j].count, &err)) {
      vta_cli_fail(cmd, &err);
      goto done;
    }
  }
  if (vta_model_run(m, &err)) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  if (reference) {
    vta_npy ref;
    if (vta_npy_read(reference, &ref, &err)) {
      vta_cli_fail(cmd, &err);
      goto done;
    }
    /* The reference must be the output's own type and size: comparing float32 with other
     * data, or past either end, would be a wrong verdict or a read out of bounds. */
    int orank;
    int64_t odims[8];
    vta_model_output_info(m, 0, &orank, odims);
    size_t ocount = 1;
    for (int d = 0; d < orank; d++) ocount *= (size_t)odims[d];
    if (strcmp(ref.descr, "<f4") != 0 || ref.count != ocount) {
      fprintf(stderr, "vta bench: %s: the reference must be float32 (<f4) with %zu elements, the "
                      "output's count; it holds %s with %zu\n", reference, ocount, ref.descr,
              ref.count);
      vta_npy_free(&ref);
      goto done;
    }
    const float *y = vta_model_output(m, 0), *want = ref.data;
    double worst = 0;
    for (size_t j = 0; j < ref.count; j++) {
      double tol = 1e-4 * (fabsf(want[j]) > 1 ? fabsf(want[j]) : 1);
      double e = fabs((double)y[j] - want[j]) / tol;
      if (e > worst) worst = e;
    }
    vta_npy_free(&ref);
    if (worst > 1) {
      fprintf(stderr, "vta bench: %s: the output differs from %s (%.3g x the 1e-4 tolerance); "
                      "not timing a wrong result\n", model, reference, worst);
      goto done;
    }
  }
  for (unsigned k = 0; k < repeat; k++) {
    double s = now_s(), sc = cpu_s();
    vta_model_run(m, &err);
    ts[k] = now_s() - s;
    cs[k] = cpu_s() - sc;
  }
  qsort(ts, repeat, sizeof *ts, cmp_double);
  qsort(cs, repeat, sizeof *cs, cmp_double);
  double ours = ts[repeat / 2], ours_cpu = cs[repeat / 2], theirs_cpu = -1;
  double theirs = ort ? ort_time(model, first ? first : "", extra, repeat, &theirs_cpu) : -1;
  const vta_model_timing *t = vta_model_timings(m);
  printf("{\"bench\":\"model\",\"model\":\"%s\",\"backend\":\"%s\"", label, backend);
  json_num("compile_seconds", compile_s);
  json_num("import_seconds", t->import_ms / 1e3);
  json_num("passes_seconds", t->passes_ms / 1e3);
  json_num("codegen_seconds", t->codegen_ms / 1e3);
  json_num("jit_seconds", t->jit_ms / 1e3);
  json_num("inference_cpu_seconds", ours_cpu);
  json_num("ort_inference_cpu_seconds", theirs_cpu);
  json_num("cpu_ratio", theirs_cpu > 0 ? ours_cpu / theirs_cpu : -1);
  json_num("inference_seconds", ours);
  json_num("ort_inference_seconds", theirs);
  json_num("ratio", theirs > 0 ? ours / theirs : -1);
  if (strcmp(backend, "cpu") != 0) {
    /* Per inference, from the runtime's counters over every run (the first included). */
    vta_model_stats rs;
    vta_stats st;
    uint64_t am, tm;
    vta_model_run_stats(m, &rs);
    vta_model_acc_stats(m, &st, &am, &tm);
    double n = rs.runs ? (double)rs.runs : 1;
    json_count("device_runs_per_inference", (double)rs.device_runs / n);
    json_count("programs_per_inference", (double)rs.programs / n);
    json_count("bytes_to_device_per_inference", (double)rs.bytes_to_device / n);
    json_count("bytes_from_device_per_inference", (double)rs.bytes_from_device / n);
    json_count("weight_bytes_once", (double)rs.weight_bytes);
    json_num("host_seconds", (rs.pack_ms + rs.cpu_ms + rs.transfer_ms) / 1e3 / n);
    json_num("pack_seconds", rs.pack_ms / 1e3 / n);
    json_num("cpu_nodes_seconds", rs.cpu_ms / 1e3 / n);
    json_num("transfer_seconds", rs.transfer_ms / 1e3 / n);
    json_num("device_seconds", rs.device_ms / 1e3 / n);
    if (st.cycles) {
      json_count("cycles_per_inference", (double)st.cycles / n);
      json_num("utilisation", (double)am * n / ((double)vta_model_acc_config(m)->macs_per_cycle * (double)st.cycles));
    }
  }
  printf(",\"repeat\":%u,\"threads\":1,\"verified\":%s}\n", repeat, reference ? "true" : "false");
  status = ort && theirs < 0 ? VTA_EXIT_FAIL : VTA_EXIT_OK;
done:
  free(ts);
  free(cs);
  vta_model_destroy(m);
  for (int j = 0; j < n_in; j++) vta_npy_free(&x[j]);
  return status;
}

int vta_bench_model(int argc, char **argv) {
  /* --const-input values (files read while parsing), freed however the command ends. */
  vta_cli_consts *consts = calloc(1, sizeof *consts);
  if (!consts) {
    fprintf(stderr, "vta bench: out of memory\n");
    return VTA_EXIT_FAIL;
  }
  int rc = bench_model_run(argc, argv, consts);
  vta_cli_consts_free(consts);
  free(consts);
  return rc;
}
