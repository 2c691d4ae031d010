/* cmd_run.c - `vta run`: a bundle or an ONNX model, inputs as .npy, outputs as .npy.
 *
 * The design idea: a thin shell over the model runtime (model.c): match each --input to a model
 * input by name (or position when the model has one input), check shapes, run, write each
 * output as DIR/<name>.npy and print a one-line summary of each so a person sees the answer.
 * For a classifier, --labels names the classes and the summary becomes the answer itself:
 * the most likely labels with their scores.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compiler/compiler.h"
#include "host/cli.h"
#include "host/cli_args.h"
#include "host/model.h"
#include "host/npy.h"
#include "vta/stats.h"

static void run_help(void) {
  printf("usage: vta run MODEL.vtab|MODEL.onnx --input [NAME=]X.npy ... [--output DIR]\n"
         "\n"
         "Loads a compiled bundle (or compiles an ONNX model in memory), runs it on the CPU with\n"
         "the given float32 inputs and prints, for each output, its shape, range and the index\n"
         "and value of its largest element. With --output, writes each output to\n"
         "DIR/<output name>.npy (characters other than letters, digits, '-', '_' and '.' become '_').\n"
         "\n"
         "options:\n"
         "  -i, --input [NAME=]FILE  an input tensor (.npy, float32); NAME may be omitted when\n"
         "                           the model has one input\n"
         "  -o, --output DIR         where to write the outputs\n"
         "  --labels L1,L2,...       class names: an output with one score per class is\n"
         "                           printed as its most likely labels and scores\n"
         "                           (--labels @FILE reads one name per line)\n"
         "  --backend NAME           cpu (default): every node on the CPU; fsim, rtl, ...: the\n"
         "                           accelerator layers of a bundle compiled with --accel run\n"
         "                           on that simulator (the rest on the CPU), and the\n"
         "                           accelerator's statistics are printed, with the\n"
         "                           host's time (packing, CPU nodes, transfers) beside\n"
         "                           the device's and the bytes crossing between them\n"
         "  --backend-options S      options for the backend (see vta exec --help)\n"
         "  --xclbin FILE            with --backend xrt: the FPGA image to load (make xclbin)\n"
         "  --device N               with --backend xrt: the card's index (default 0)\n"
         "  --timeline F.json        (rtl, sc) the timeline of every accelerator program run:\n"
         "                           trace-event JSON for ui.perfetto.dev\n"
         "  --no-chain               one device run per accelerator program instead of one per\n"
         "                           chain of consecutive accelerator nodes (for comparison)\n"
         "  -h, --help               show this help\n"
         "\nexit status: 0 ran, 1 model, input or output problem, 2 bad command line.\n");
}

#define MAX_LABELS 1024

/* Splits "a,b,c" or the lines of @FILE into labels (pointers into *store, which is malloc'd).
 * Returns the count, or -1 after printing an error. */
static int read_labels(const char *spec, char **store, const char **labels) {
  const char *text = spec;
  char *file = NULL;
  if (spec[0] == '@') {
    FILE *f = fopen(spec + 1, "rb");
    if (!f) {
      fprintf(stderr, "vta run: --labels %s: cannot open %s\n", spec, spec + 1);
      return -1;
    }
    size_t cap = 4096, n = 0;
    file = malloc(cap);
    for (int ch; file && (ch = fgetc(f)) != EOF;) {
      if (n + 2 > cap) {
        char *bigger = realloc(file, cap *= 2);
        if (!bigger) free(file);
        file = bigger;
        if (!file) break;
      }
      file[n++] = (char)ch;
    }
    fclose(f);
    if (!file) {
      fprintf(stderr, "vta run: out of memory reading %s\n", spec + 1);
      return -1;
    }
    file[n] = 0;
    text = file;
  }
  *store = strdup(text);
  free(file);
  if (!*store) return -1;
  char sep = spec[0] == '@' ? '\n' : ',';
  int n = 0;
  for (char *p = *store; *p && n < MAX_LABELS;) {
    char *e = strchr(p, sep);
    if (e) *e = 0;
    size_t len = strlen(p);
    while (len && (p[len - 1] == '\r' || p[len - 1] == ' ')) p[--len] = 0;
    labels[n++] = p;
    if (!e) break;
    p = e + 1;
  }
  if (n == 0) fprintf(stderr, "vta run: --labels %s names no class\n", spec);
  return n ? n : -1;
}

/* "NAME: label (score), label (score), ..." for up to five classes, best first. */
static void print_classes(const char *name, const float *y, size_t n, const char **labels) {
  int shown[5], ns = 0;
  printf("%s:", name);
  for (; ns < 5 && (size_t)ns < n; ns++) {
    int best = -1;
    for (size_t j = 0; j < n; j++) {
      int used = 0;
      for (int k = 0; k < ns; k++) used |= shown[k] == (int)j;
      if (!used && (best < 0 || y[j] > y[best])) best = (int)j;
    }
    shown[ns] = best;
    printf("%s %s (%.3f)", ns ? "," : "", labels[best], (double)y[best]);
  }
  printf("\n");
}

static void safe_name(const char *s, char *out, size_t size) {
  size_t n = 0;
  for (; *s && n + 1 < size; s++)
    out[n++] = (isalnum((unsigned char)*s) || strchr("-_.", *s)) ? *s : '_';
  out[n] = 0;
}

int vta_cmd_run(int argc, char **argv) {
  const char *cmd = "run", *model = NULL, *outdir = NULL, *inputs[64], *backend = NULL;
  const char *label_spec = NULL, *backend_opts = NULL, *timeline = NULL, *xclbin = NULL;
  const char *device = NULL;
  int n_in = 0, r, chain = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (vta_cli_is_help(a)) {
      run_help();
      return VTA_EXIT_OK;
    }
    if ((r = vta_cli_option(cmd, argc, argv, &i, "--input", "-i", &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      if (n_in >= 64) return vta_cli_usage_error(cmd, "more than 64 inputs");
      inputs[n_in++] = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--output", "-o", &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      outdir = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--labels", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      label_spec = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      backend = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--timeline", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      timeline = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend-options", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      backend_opts = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--xclbin", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      xclbin = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--device", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      device = val;
    } else if (strcmp(a, "--no-chain") == 0) {
      chain = 0;
    } else if (a[0] == '-' && a[1]) {
      return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    } else if (model) {
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (inputs go after --input)", a);
    } else {
      model = a;
    }
  }
  if (!model) return vta_cli_usage_error(cmd, "no MODEL given");
  char xrt_opts[4096];
  int bad_opts;
  backend_opts = vta_cli_xrt_options(cmd, backend, xclbin, device, backend_opts, xrt_opts,
                                     sizeof xrt_opts, &bad_opts);
  if (bad_opts) return VTA_EXIT_USAGE;
  static char tlbuf[4200];
  if (timeline) {
    if (!backend) backend = vta_cli_backend(NULL);
    backend_opts = vta_cli_timeline_options(cmd, backend, timeline, backend_opts, tlbuf,
                                            sizeof tlbuf);
    if (!backend_opts) return VTA_EXIT_USAGE;
  }
  static const char *labels[MAX_LABELS];
  char *label_store = NULL;
  int n_labels = 0;
  if (label_spec && (n_labels = read_labels(label_spec, &label_store, labels)) < 0) return VTA_EXIT_FAIL;
  vta_error err = {0};
  /* Inputs are read first: their shapes fix an ONNX model's symbolic dimensions. */
  vta_npy tens[64];
  const char *names[64];
  int ranks[64];
  int64_t dims_in[64][8];
  for (int k = 0; k < n_in; k++) {
    const char *eq = strchr(inputs[k], '=');
    names[k] = eq ? strndup(inputs[k], (size_t)(eq - inputs[k])) : NULL;
    if (vta_npy_read(eq ? eq + 1 : inputs[k], &tens[k], &err)) {
      for (int j = 0; j <= k; j++) free((char *)names[j]);
      for (int j = 0; j < k; j++) vta_npy_free(&tens[j]);
      free(label_store);
      return vta_cli_fail(cmd, &err);
    }
    ranks[k] = tens[k].rank;
    for (int d = 0; d < tens[k].rank; d++) dims_in[k][d] = tens[k].dims[d];
  }
  vta_model *m = vta_model_open_shaped(model, n_in, names, ranks, (const int64_t(*)[8])dims_in, &err);
  if (!m) {
    for (int j = 0; j < n_in; j++) free((char *)names[j]), vta_npy_free(&tens[j]);
    free(label_store);
    return vta_cli_fail(cmd, &err);
  }
  int rc = VTA_EXIT_OK;
  vta_model_set_chaining(m, chain);
  if (backend && vta_model_set_backend(m, backend, backend_opts, &err)) {
    for (int j = 0; j < n_in; j++) free((char *)names[j]), vta_npy_free(&tens[j]);
    free(label_store);
    vta_model_destroy(m);
    return vta_cli_fail(cmd, &err);
  }
  char *given = calloc((size_t)vta_model_n_inputs(m) + 1, 1);
  if (!given) {
    fprintf(stderr, "vta run: out of memory for %d inputs\n", vta_model_n_inputs(m));
    for (int j = 0; j < n_in; j++) free((char *)names[j]), vta_npy_free(&tens[j]);
    free(label_store);
    vta_model_destroy(m);
    return VTA_EXIT_FAIL;
  }
  for (int k = 0; k < n_in && rc == VTA_EXIT_OK; k++) {
    const char *file = strchr(inputs[k], '=') ? strchr(inputs[k], '=') + 1 : inputs[k];
    int idx;
    if (names[k]) {
      idx = vta_model_find_input(m, names[k]);
      if (idx < 0) {
        fprintf(stderr, "vta run: the model has no input named '%s'", names[k]);
        for (int j = 0; j < vta_model_n_inputs(m); j++)
          fprintf(stderr, "%s'%s'", j ? ", " : " (inputs: ", vta_model_input(m, j, NULL, NULL));
        fprintf(stderr, ")\n");
        rc = VTA_EXIT_FAIL;
        break;
      }
    } else if (vta_model_n_inputs(m) == 1) {
      idx = 0;
    } else {
      rc = vta_cli_usage_error(cmd, "the model has %d inputs: name each (--input NAME=FILE)", vta_model_n_inputs(m));
      break;
    }
    vta_npy *t = &tens[k];
    int rank;
    int64_t dims[8];
    const char *name = vta_model_input(m, idx, &rank, dims);
    int ok = strcmp(t->descr, "<f4") == 0 && t->rank == rank;
    for (int d = 0; ok && d < rank; d++) ok = t->dims[d] == dims[d];
    if (!ok) {
      fprintf(stderr, "vta run: %s: input '%s' needs float32 (<f4) of shape (", file, name);
      for (int d = 0; d < rank; d++) fprintf(stderr, "%s%lld", d ? ", " : "", (long long)dims[d]);
      fprintf(stderr, "); the file holds %s of shape (", t->descr);
      for (int d = 0; d < t->rank; d++) fprintf(stderr, "%s%lld", d ? ", " : "", (long long)t->dims[d]);
      fprintf(stderr, ")\n");
      rc = VTA_EXIT_FAIL;
    } else if (vta_model_set_input(m, idx, t->data, t->count, &err)) {
      rc = vta_cli_fail(cmd, &err);
    }
    given[idx] = 1;
  }
  for (int j = 0; j < n_in; j++) free((char *)names[j]), vta_npy_free(&tens[j]);
  for (int k = 0; rc == VTA_EXIT_OK && k < vta_model_n_inputs(m); k++)
    if (!given[k]) {
      fprintf(stderr, "vta run: input '%s' is not given (--input %s=FILE.npy)\n",
              vta_model_input(m, k, NULL, NULL), vta_model_input(m, k, NULL, NULL));
      rc = VTA_EXIT_FAIL;
    }
  free(given);
  double run_ms = vta_now_ms();
  if (rc == VTA_EXIT_OK && vta_model_run(m, &err)) rc = vta_cli_fail(cmd, &err);
  run_ms = vta_now_ms() - run_ms;
  if (rc == VTA_EXIT_OK && backend && strcmp(backend, "cpu") != 0) {
    vta_stats st;
    uint64_t am, tm;
    vta_model_acc_stats(m, &st, &am, &tm);
    printf("accelerator (%s): %d nodes in %d programs, %llu of %llu MACs offloaded (%.1f%%), "
           "%llu instructions, %llu micro-ops", backend, vta_model_n_acc_nodes(m),
           vta_model_n_acc_layers(m), (unsigned long long)am,
           (unsigned long long)tm, tm ? 100.0 * (double)am / (double)tm : 0.0,
           (unsigned long long)st.insns, (unsigned long long)st.uops);
    /* Utilisation counts the model's multiply-accumulates (what was offloaded) against the
     * peak over the cycles; the GEMM figure also counts the lanes of channel blocks that are
     * padding (the device's own MAC counter). */
    if (st.cycles) {
      double peak = (double)vta_model_acc_config(m)->macs_per_cycle * (double)st.cycles;
      printf(", %llu cycles, utilisation %.1f%% (GEMM lanes busy %.1f%%)", (unsigned long long)st.cycles,
             100.0 * (double)am / peak, 100.0 * (double)st.macs / peak);
    }
    printf(", %.3f s in the backend's run calls (host wall time)\n", st.wall_seconds);
    /* Where the run's time went on the host and what crossed the host-device boundary (the
     * weights were uploaded once, when the backend was chosen). */
    vta_model_stats rs;
    vta_model_run_stats(m, &rs);
    printf("host: %.2f ms (packing %.2f, CPU nodes %.2f, transfers %.2f); device: %llu runs "
           "(%llu programs, %llu chain barriers), %.2f ms wall",
           rs.pack_ms + rs.cpu_ms + rs.transfer_ms, rs.pack_ms, rs.cpu_ms, rs.transfer_ms,
           (unsigned long long)rs.device_runs, (unsigned long long)rs.programs,
           (unsigned long long)rs.barriers, rs.device_ms);
    if (st.cycles)
      printf(", %.3f ms at %.0f MHz", (double)st.cycles / vta_model_acc_config(m)->clock_mhz / 1e3,
             vta_model_acc_config(m)->clock_mhz);
    /* The process's CPU time beside the wall: on a loaded machine the wall is a multiple of it. */
    printf("; %.2f ms in all (process CPU %.2f ms); boundary: %llu bytes to the device, %llu from "
           "it (weights %llu, once)\n", run_ms, rs.run_cpu_ms,
           (unsigned long long)rs.bytes_to_device, (unsigned long long)rs.bytes_from_device,
           (unsigned long long)rs.weight_bytes);
  }
  if (rc == VTA_EXIT_OK && outdir) mkdir(outdir, 0777);
  for (int k = 0; rc == VTA_EXIT_OK && k < vta_model_n_outputs(m); k++) {
    int rank;
    int64_t dims[8];
    const char *name = vta_model_output_info(m, k, &rank, dims);
    const float *y = vta_model_output(m, k);
    size_t n = 1;
    for (int d = 0; d < rank; d++) n *= (size_t)dims[d];
    size_t best = 0;
    float lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < n; j++) {
      if (y[j] < lo) lo = y[j];
      if (y[j] > hi) hi = y[j], best = j;
    }
    if (n_labels && n == (size_t)n_labels) {
      print_classes(name, y, n, labels);
    } else {
      printf("%s [", name);
      for (int d = 0; d < rank; d++) printf("%s%lld", d ? "," : "", (long long)dims[d]);
      printf("] min %.6g max %.6g argmax %zu\n", (double)lo, (double)hi, best);
    }
    if (outdir) {
      char fn[1024], path[4096];
      safe_name(name, fn, sizeof fn);
      snprintf(path, sizeof path, "%s/%s.npy", outdir, fn);
      if (vta_npy_write(path, "<f4", rank, dims, y, &err)) rc = vta_cli_fail(cmd, &err);
    }
  }
  if (rc == VTA_EXIT_OK && n_labels) {
    int any = 0;
    for (int k = 0; k < vta_model_n_outputs(m); k++) {
      int rank;
      int64_t dims[8];
      size_t n = 1;
      vta_model_output_info(m, k, &rank, dims);
      for (int d = 0; d < rank; d++) n *= (size_t)dims[d];
      any |= n == (size_t)n_labels;
    }
    if (!any) fprintf(stderr, "vta run: warning: no output has %d elements, one per label\n", n_labels);
  }
  free(label_store);
  vta_model_destroy(m);
  return rc;
}
