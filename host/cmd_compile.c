/* cmd_compile.c - `vta compile`: ONNX model in, bundle (or object file, LLVM IR, graph text) out.
 *
 * The design idea: the command is the compiler pipeline spelled out - import, passes (with
 * dumps chosen by letter), code generation, output - so each stage's time can be shown and
 * each stage's output inspected without a debugger.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/compiler.h"
#include "compiler/partition.h"
#include "host/calib.h"
#include "host/cli.h"
#include "host/cli_args.h"

static void compile_help(void) {
  printf("usage: vta compile MODEL.onnx -o OUT [options]\n"
         "\n"
         "Imports an ONNX model (opsets 9 to 17), infers shapes, folds constants and batch\n"
         "norms, removes dead nodes, fuses elementwise epilogues into their producers and\n"
         "generates CPU code for every node with LLVM. Writes a bundle (.vtab) that `vta run`\n"
         "and `vta info` read.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE   where to write (required unless only dumping)\n"
         "  --emit KIND         bundle (default), obj (native object file of the CPU code:\n"
         "                      one function vta_k<N>(void **args) per node, needing no LLVM\n"
         "                      at run time), ll (LLVM IR text), graph (the optimised graph)\n"
         "  --triple T          target triple for --emit obj or ll (default: this machine),\n"
         "                      e.g. aarch64-linux-gnu, armv7a-linux-gnueabihf\n"
         "  --cpu NAME          target CPU for --triple (default: the target's generic CPU)\n"
         "  --features F        target features for --triple, e.g. +neon or +avx2,+fma\n"
         "  --quantize          post-training int8 quantization (docs/quantization.md):\n"
         "                      convolutions and matrix products become int8 operators\n"
         "  --calibrate DIR     calibration inputs for --quantize: every .npy of DIR is one\n"
         "                      sample (several inputs: one subdirectory per sample with\n"
         "                      NAME.npy per input); default: the model's test_data_set_N\n"
         "                      inputs, else random normal data (with a warning)\n"
         "  --accel             quantize and partition for the accelerator: its layers are\n"
         "                      lowered to accelerator programs stored in the bundle\n"
         "  --config FILE       the accelerator's hardware configuration for --accel\n"
         "                      (default: $VTA_CONFIG, else the default configuration)\n"
         "  --explain           print where each node runs and why (implies --accel)\n"
         "  -d LETTERS          dump the graph to stderr after passes: i import, s shapes,\n"
         "                      f constant folding, b batch-norm folding, d dead nodes,\n"
         "                      q quantization, e epilogue fusion, p partitioning\n"
         "  --shape [NAME=]D,D  shape of an input with symbolic dimensions (no NAME: the\n"
         "                      first input), e.g. --shape x=1,3,48,192\n"
         "  --batch N           value for other symbolic input dimensions (default 1)\n"
         "  --verify            run the IR verifier after every pass\n"
         "  -v, --verbose       print the time of each stage\n"
         "  -h, --help          show this help\n"
         "\n"
         "exit status: 0 written, 1 the model cannot be compiled (the message names the node),\n"
         "2 bad command line.\n");
}

static double ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int vta_cmd_compile(int argc, char **argv) {
  const char *cmd = "compile", *in = NULL, *out = NULL, *emit = "bundle", *triple = NULL, *dump = NULL;
  const char *cpu = NULL, *features = NULL;
  const char *batch = NULL, *shape_names[16];
  int n_shapes = 0, shape_ranks[16];
  int64_t shape_dims[16][VTA_MAX_RANK];
  int verify = 0, verbose = 0, r, quantize = 0, accel = 0, explain = 0;
  const char *calib_dir = NULL, *cfg_path = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val;
    if (vta_cli_is_help(a)) {
      compile_help();
      return VTA_EXIT_OK;
    }
    if ((r = vta_cli_option(cmd, argc, argv, &i, "--output", "-o", &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      out = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--emit", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      emit = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--triple", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      triple = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--cpu", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      cpu = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--features", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      features = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--batch", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      batch = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--shape", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      if (n_shapes >= 16) return vta_cli_usage_error(cmd, "more than 16 --shape options");
      const char *eq = strchr(val, '='), *p = eq ? eq + 1 : val;
      static char nbuf[16][256];
      snprintf(nbuf[n_shapes], sizeof nbuf[0], "%.*s", eq ? (int)(eq - val) : 0, val);
      shape_names[n_shapes] = eq ? nbuf[n_shapes] : NULL;
      int rk = 0;
      while (*p) {
        char *e;
        long long d = strtoll(p, &e, 10);
        if (e == p || d < 1 || rk >= VTA_MAX_RANK)
          return vta_cli_usage_error(cmd, "--shape '%s' is not [NAME=]D1,D2,... with positive dimensions", val);
        shape_dims[n_shapes][rk++] = d;
        p = *e == ',' ? e + 1 : e;
        if (*e && *e != ',') return vta_cli_usage_error(cmd, "--shape '%s': unexpected '%c'", val, *e);
      }
      shape_ranks[n_shapes++] = rk;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--calibrate", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      calib_dir = val;
      quantize = 1;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--config", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      cfg_path = val;
    } else if (strcmp(a, "--quantize") == 0) {
      quantize = 1;
    } else if (strcmp(a, "--accel") == 0) {
      accel = quantize = 1;
    } else if (strcmp(a, "--explain") == 0) {
      explain = accel = quantize = 1;
    } else if (strncmp(a, "-d", 2) == 0) {
      dump = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!dump) return vta_cli_usage_error(cmd, "-d needs LETTERS");
      if (dump[strspn(dump, "isfbdqep")])
        return vta_cli_usage_error(cmd, "unknown dump letter in '%s' (letters: isfbdqep)", dump);
    } else if (strcmp(a, "--verify") == 0) {
      verify = 1;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      verbose = 1;
    } else if (a[0] == '-' && a[1]) {
      return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    } else if (in) {
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (one MODEL only)", a);
    } else {
      in = a;
    }
  }
  if (!in) return vta_cli_usage_error(cmd, "no MODEL.onnx given");
  int kind = strcmp(emit, "bundle") == 0 ? 0 : strcmp(emit, "obj") == 0 ? 1
           : strcmp(emit, "ll") == 0 ? 2 : strcmp(emit, "graph") == 0 ? 3 : -1;
  if (kind < 0) return vta_cli_usage_error(cmd, "--emit must be bundle, obj, ll or graph, not '%s'", emit);
  if (!out && !dump && !explain) return vta_cli_usage_error(cmd, "no output file (-o FILE)");
  if (cfg_path && !accel) return vta_cli_usage_error(cmd, "--config applies to --accel only");
  if (accel && kind != 0 && kind != 3)
    return vta_cli_usage_error(cmd, "--accel writes a bundle (or --emit graph): accelerator programs "
                                    "do not fit an object file or LLVM IR");
  vta_config cfg;
  if (accel && vta_cli_config(cmd, cfg_path, &cfg) != 0) return VTA_EXIT_FAIL;
  if ((triple || cpu || features) && kind != 1 && kind != 2)
    return vta_cli_usage_error(cmd, "--triple, --cpu and --features apply to --emit obj and ll only");
  if ((cpu || features) && !triple)
    return vta_cli_usage_error(cmd, "--cpu and --features need --triple (without it the code is "
                                    "for this machine)");
  vta_cpu_target target, *tp = NULL;
  if (triple) {
    if (strlen(triple) >= sizeof target.triple || (cpu && strlen(cpu) >= sizeof target.cpu) ||
        (features && strlen(features) >= sizeof target.features))
      return vta_cli_usage_error(cmd, "--triple, --cpu or --features is too long");
    snprintf(target.triple, sizeof target.triple, "%s", triple);
    /* Empty: the target's own default ("generic" is fatal for some targets in LLVM 14). */
    snprintf(target.cpu, sizeof target.cpu, "%s", cpu ? cpu : "");
    snprintf(target.features, sizeof target.features, "%s", features ? features : "");
    tp = &target;
  }
  vta_import_opts io = {0};
  io.n_shapes = n_shapes;
  io.shape_names = shape_names;
  io.shape_ranks = shape_ranks;
  io.shape_dims = (const int64_t(*)[VTA_MAX_RANK])shape_dims;
  if (batch) {
    uint64_t b;
    if (vta_cli_parse_u64(cmd, "--batch", batch, 1 << 20, &b) != 0) return VTA_EXIT_USAGE;
    io.dynamic_dim = (int64_t)b;
  }
  vta_error err = {0};
  double t0 = ms();
  vta_graph *g = vta_onnx_import_file(in, &io, &err);
  if (!g) return vta_cli_fail(cmd, &err);
  double t1 = ms();
  vta_calib_set cs = {0};
  vta_calib cal;
  vta_quant_opts qo = {&cal, verbose ? stderr : NULL};
  if (quantize) {
    /* Calibration inputs need only the inputs' shapes, which the importer knows. */
    int random = 0;
    if (calib_dir ? vta_calib_load_dir(g, calib_dir, &cs, &err)
                  : vta_calib_load_default(g, in, &cs, &random, &err)) {
      vta_graph_destroy(g);
      return vta_cli_fail(cmd, &err);
    }
    if (random)
      fprintf(stderr, "vta compile: warning: no --calibrate DIR and no test_data_set_N beside the model: "
                      "calibrating on random normal inputs, which suits only inputs distributed "
                      "roughly as N(0, 1)\n");
    vta_calib_view(&cs, &cal);
  }
  vta_place *places = NULL;
  vta_compile_opts o = {dump, stderr, verify, quantize ? &qo : NULL, accel ? &cfg : NULL,
                        accel ? &places : NULL};
  if (vta_compile_graph(g, &o, &err)) {
    vta_error_prefix(&err, "%s", in);
    vta_calib_set_free(&cs);
    free(places);
    vta_graph_destroy(g);
    return vta_cli_fail(cmd, &err);
  }
  vta_calib_set_free(&cs);
  if (explain) vta_explain_print(g, accel ? &cfg : NULL, places, stdout);
  free(places);
  double t2 = ms();
  int rc = VTA_EXIT_OK;
  if (!out) {
    vta_graph_destroy(g);
    return rc;
  }
  if (kind == 3) {
    char *text = vta_graph_print_string(g, VTA_PRINT_FULL);
    if (!text || vta_cli_write_file(cmd, out, text, strlen(text)) != 0) rc = VTA_EXIT_FAIL;
    free(text);
    vta_graph_destroy(g);
    return rc;
  }
  vta_cpu_code code;
  int what = kind == 0 ? VTA_CODE_BITCODE | VTA_CODE_OBJECT : kind == 1 ? VTA_CODE_OBJECT : VTA_CODE_IR_TEXT;
  if (vta_codegen_llvm_for(g, tp, what, &code, &err)) {
    vta_graph_destroy(g);
    return vta_cli_fail(cmd, &err);
  }
  double t3 = ms();
  if (kind == 0) {
    unsigned char *b;
    size_t n;
    vta_bundle_acc acc = {0};
    if ((accel && vta_acc_bundle(g, &cfg, &acc, &err)) ||
        vta_bundle_write_acc(g, &code, accel ? &acc : NULL, &b, &n, &err)) {
      rc = vta_cli_fail(cmd, &err);
    } else {
      if (vta_cli_write_file(cmd, out, b, n) != 0) rc = VTA_EXIT_FAIL;
      free(b);
    }
    if (verbose && accel) fprintf(stderr, "vta compile: %d accelerator layers lowered\n", acc.n);
    vta_bundle_acc_free(&acc);
  } else if (kind == 1) {
    if (vta_cli_write_file(cmd, out, code.object, code.object_size) != 0) rc = VTA_EXIT_FAIL;
  } else {
    if (vta_cli_write_file(cmd, out, code.ir_text, strlen(code.ir_text)) != 0) rc = VTA_EXIT_FAIL;
  }
  if (verbose)
    fprintf(stderr, "vta compile: import %.1f ms, passes %.1f ms, codegen %.1f ms, %d nodes\n",
            t1 - t0, t2 - t1, t3 - t2, g->n_nodes);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  return rc;
}
