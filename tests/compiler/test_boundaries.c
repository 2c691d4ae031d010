/* test_boundaries.c - where int8 meets float between accelerator layers: Max / Min with
 * constant bounds (and Relu / Clip, in any chain) folded exactly into the requantization's clip,
 * a LeakyRelu folded into the epilogue as max(y << k, y * m), so that consecutive layers stay
 * int8 and run chained on the device, and `--explain` naming the float operator every remaining
 * quantize/dequantize boundary exists for.
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
#include "host/model.h"
#include "vta/config.h"
#include "vta/stats.h"

#define TEST_RNG_SEED 0x2545F4914F6CDD1Dull
#include "compiler/graph_value.h"


static int scalar(vta_graph *g, const char *name, float c) {
  int64_t one[4] = {1, 1, 1, 1};
  int v = value(g, name, VTA_DT_F32, 4, one, 1);
  *(float *)g->values[v].data = c;
  return v;
}

static int conv(vta_graph *g, const char *name, int x, int cin, int cout, int k, float scale) {
  char nm[64];
  int64_t wd[4] = {cout, cin, k, k}, bd[1] = {cout};
  snprintf(nm, sizeof nm, "%s.w", name);
  int w = value(g, nm, VTA_DT_F32, 4, wd, 1);
  snprintf(nm, sizeof nm, "%s.b", name);
  int b = value(g, nm, VTA_DT_F32, 1, bd, 1);
  for (int64_t i = 0; i < vta_value_count(&g->values[w]); i++) ((float *)g->values[w].data)[i] = frnd() * scale;
  for (int i = 0; i < cout; i++) ((float *)g->values[b].data)[i] = frnd() * 0.1f;
  snprintf(nm, sizeof nm, "%s.y", name);
  int y = vta_graph_add_value(g, nm, VTA_DT_F32);
  int in[3] = {x, w, b};
  int n = vta_graph_add_node(g, VTA_GOP_CONV, name, 3, in, 1, &y);
  int64_t p = k / 2, pads[4] = {p, p, p, p};
  vta_attrs_set_ints(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "pads", 4, pads);
  return y;
}

/* The first convolution's weight scale (test_boundaries_leaky_slope_is_exact_and_cannot_overflow
 * makes it larger). */
static float leaky_weight_scale = 0.25f;

static int binary(vta_graph *g, vta_gop op, const char *name, int a, int b) {
  char nm[64];
  snprintf(nm, sizeof nm, "%s.y", name);
  int y = vta_graph_add_value(g, nm, VTA_DT_F32);
  int in[2] = {a, b};
  vta_graph_add_node(g, op, name, 2, in, 1, &y);
  return y;
}

/* x f32[1,16,8,8] -> Conv 3x3 16->16 -> Max(., -0.3) -> Min(0.8, .) -> Conv 1x1 16->32 -> Relu
 * -> Min(., 0.5) -> output; with leaky = 1, a LeakyRelu of slope 0.2 between the first
 * convolution and its Max (folded into the convolution), with leaky = 3 one of slope 1.5 (no
 * int8 form); with leaky = 2, the first Max's bound is a per-channel constant f32[1,16,1,1] (not
 * one clamp for the whole layer). */
static vta_graph *model(int leaky) {
  uint64_t saved = rng;
  rng = 0x9E3779B97F4A7C15ull;
  vta_graph *g = vta_graph_create();
  g->opset = 13;
  int64_t xd[4] = {1, 16, 8, 8};
  int x = value(g, "x", VTA_DT_F32, 4, xd, 0);
  vta_graph_add_input(g, x);
  int y = conv(g, "c1", x, 16, 16, 3, leaky_weight_scale);
  if (leaky == 2) {
    int64_t cd[4] = {1, 16, 1, 1};
    int c = value(g, "lo1", VTA_DT_F32, 4, cd, 1);
    for (int k = 0; k < 16; k++) ((float *)g->values[c].data)[k] = -0.3f + 0.01f * (float)k;
    y = binary(g, VTA_GOP_MAX, "max1", y, c);
  } else if (leaky) {
    int l = vta_graph_add_value(g, "leaky.y", VTA_DT_F32);
    int n = vta_graph_add_node(g, VTA_GOP_LEAKY_RELU, "leaky", 1, &y, 1, &l);
    vta_attrs_set_float(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "alpha", leaky == 3 ? 1.5f : 0.2f);
    y = l;
  }
  if (leaky != 2) y = binary(g, VTA_GOP_MAX, "max1", y, scalar(g, "lo1", -0.3f));
  y = binary(g, VTA_GOP_MIN, "min1", scalar(g, "hi1", 0.8f), y);
  y = conv(g, "c2", y, 16, 32, 1, 0.4f);
  int r = vta_graph_add_value(g, "relu.y", VTA_DT_F32);
  vta_graph_add_node(g, VTA_GOP_RELU, "relu", 1, &y, 1, &r);
  y = binary(g, VTA_GOP_MIN, "min2", r, scalar(g, "hi2", 0.5f));
  vta_graph_add_output(g, y);
  rng = saved;
  return g;
}

#define NX (16 * 8 * 8)
#define NY (32 * 8 * 8)
static float samples[4][NX], test_in[NX];

static void make_inputs(void) {
  for (int s = 0; s < 4; s++)
    for (int i = 0; i < NX; i++) samples[s][i] = frnd() * 2;
  for (int i = 0; i < NX; i++) test_in[i] = frnd() * 2;
}

/* Compiles model(leaky) (quantized and partitioned with cfg when cfg is not NULL) into a bundle. */
static vta_graph *compile(int leaky, const vta_config *cfg, vta_place **places, unsigned char **b, size_t *n) {
  const float *sp[4] = {samples[0], samples[1], samples[2], samples[3]};
  vta_calib cal = {4, 1, sp};
  vta_quant_opts qo = {.calib = &cal};
  vta_error err = {0};
  vta_graph *g = model(leaky);
  vta_compile_opts o = {.verify = 1, .quant = cfg ? &qo : NULL, .accel = cfg, .places = cfg ? places : NULL};
  if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
  vta_cpu_code code;
  if (vta_codegen_llvm(g, &code, &err)) fail_msg("%s", err.msg);
  if (cfg) {
    vta_bundle_acc acc;
    if (vta_acc_bundle(g, cfg, &acc, &err)) fail_msg("%s", err.msg);
    assert_int_equal(vta_bundle_write_acc(g, &code, &acc, b, n, &err), 0);
    vta_bundle_acc_free(&acc);
  } else {
    assert_int_equal(vta_bundle_write(g, &code, b, n, &err), 0);
  }
  vta_cpu_code_free(&code);
  return g;
}

static void run(const unsigned char *b, size_t n, const char *backend, float *out, vta_model_stats *rs) {
  vta_error err = {0};
  vta_model *m = vta_model_load(b, n, &err);
  if (!m) fail_msg("%s", err.msg);
  if (backend && vta_model_set_backend(m, backend, NULL, &err)) fail_msg("%s: %s", backend, err.msg);
  assert_int_equal(vta_model_set_input(m, 0, test_in, NX, &err), 0);
  if (vta_model_run(m, &err)) fail_msg("%s", err.msg);
  memcpy(out, vta_model_output(m, 0), sizeof(float) * NY);
  if (rs) vta_model_run_stats(m, rs);
  vta_model_destroy(m);
}

static char *explain(const vta_graph *g, const vta_config *cfg, const vta_place *places) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  vta_explain_print(g, cfg, places, f);
  fclose(f);
  return text;
}

/* Runs the quantized bundle on cpu, fsim and rtl into out[0..2]: the same bytes, the two
 * accelerator programs in one device run (the first layer's output stays on the device) and only
 * the model's output coming back; returns the NMSE of out[0] against ref (the float model's). */
static double run_chained_everywhere(const unsigned char *qb, size_t qn, const float *ref, float out[3][NY]) {
  const char *backends[3] = {"cpu", "fsim", "rtl"};
  for (int k = 0; k < 3; k++) {
    vta_model_stats rs;
    run(qb, qn, backends[k], out[k], &rs);
    if (k) {
      assert_int_equal(rs.programs, 2);
      assert_int_equal(rs.device_runs, 1);
      assert_int_equal(rs.bytes_from_device, NY);
    }
  }
  assert_memory_equal(out[0], out[1], sizeof out[0]);
  assert_memory_equal(out[0], out[2], sizeof out[0]);
  double e = 0, s = 0;
  for (int i = 0; i < NY; i++) e += (out[0][i] - ref[i]) * (out[0][i] - ref[i]), s += ref[i] * ref[i];
  return s > 0 ? e / s : -1.0;
}

/* A test model compiled twice, float on the CPU and int8 for the default configuration, and
 * both run: the float output is the reference for the int8 one on every backend. */
typedef struct model_pair {
  unsigned char *fb, *qb;
  size_t fn, qn;
  vta_graph *gf, *g;
  vta_place *places;
} model_pair;

static void pair_compile(int leaky, const vta_config *cfg, model_pair *p) {
  p->places = NULL;
  p->gf = compile(leaky, NULL, NULL, &p->fb, &p->fn);
  p->g = compile(leaky, cfg, &p->places, &p->qb, &p->qn);
}

static double pair_run(const model_pair *p, float *ref, float out[3][NY]) {
  run(p->fb, p->fn, NULL, ref, NULL);
  return run_chained_everywhere(p->qb, p->qn, ref, out);
}

static void pair_free(model_pair *p) {
  free(p->places);
  free(p->qb);
  free(p->fb);
  vta_graph_destroy(p->g);
  vta_graph_destroy(p->gf);
}

/* The Max / Min bounds become the two QConvs' clip ranges: no float node, no boundary between
 * the convolutions, both on the accelerator in one device run, every backend the same bits. */
static void test_boundaries_max_min_fold_into_clip(void **state) {
  (void)state;
  make_inputs();
  vta_config cfg;
  vta_config_default(&cfg);
  model_pair mp;
  pair_compile(0, &cfg, &mp);
  vta_graph *g = mp.g;
  vta_place *places = mp.places;
  int nconv = 0, nbound = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    assert_true(nd->op != VTA_GOP_MAX && nd->op != VTA_GOP_MIN && nd->op != VTA_GOP_RELU);
    nbound += nd->op == VTA_GOP_QUANTIZE_LINEAR || nd->op == VTA_GOP_DEQUANTIZE_LINEAR;
    if (nd->op != VTA_GOP_QCONV) continue;
    assert_true(places[i].acc);
    /* The clip is the quantized bounds: c1 [round(-0.3 / s), round(0.8 / s)] with s its output
     * scale; c2 [0, round(0.5 / s)]. */
    int64_t lo = vta_node_int(nd, "lo", -128), hi = vta_node_int(nd, "hi", 127);
    print_message("%s: clip [%lld, %lld]\n", nd->name, (long long)lo, (long long)hi);
    if (nconv++ == 0) {
      /* The calibrated scale covers at most [-0.3, 0.8]: hi is 127 or just below. */
      assert_true(lo < 0 && lo > -128 && hi > 100 && hi <= 127);
      assert_true(fabs(-0.3 / 0.8 - (double)lo / (double)hi) < 0.03);
    } else {
      assert_int_equal(lo, 0);
      assert_true(hi > 0 && hi <= 127);
    }
  }
  assert_int_equal(nconv, 2);
  assert_int_equal(nbound, 2); /* the input's quantization and the output's dequantization */
  char *text = explain(g, &cfg, places);
  assert_non_null(strstr(text, "boundary: float to int8: the graph input 'x' is float32"));
  assert_non_null(strstr(text, "boundary: int8 to float: 'min2.y' is a model output (float32)"));
  assert_non_null(strstr(text, "2 quantize/dequantize boundary nodes (for: graph input 1, model output 1)"));
  free(text);
  float ref[NY], out[3][NY];
  double nmse = pair_run(&mp, ref, out);
  /* int8 against float: the folded bounds hold exactly (nothing above 0.5 or below 0), and the
   * values stay close. */
  for (int i = 0; i < NY; i++) assert_true(out[0][i] >= 0 && out[0][i] <= 0.5f * 1.01f);
  if (!(nmse >= 0) || nmse > 0.01) fail_msg("NMSE %g of the int8 model against float", nmse);
  pair_free(&mp);
}

/* The first convolution's LeakyRelu (slope 0.2) and the Max / Min after it fold into its
 * epilogue: no float node, no boundary between the convolutions, one device run, the CPU, fsim
 * and rtl the same bits; the negative side keeps its slope (outputs below 0 that the clip at 0 of
 * the model without LeakyRelu would not have, measured against float). */
static void test_boundaries_leaky_relu_folds_into_epilogue(void **state) {
  (void)state;
  make_inputs();
  vta_config cfg;
  vta_config_default(&cfg);
  model_pair mp;
  pair_compile(1, &cfg, &mp);
  vta_graph *g = mp.g;
  vta_place *places = mp.places;
  int nbound = 0, nleaky = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    assert_true(nd->op != VTA_GOP_LEAKY_RELU && nd->op != VTA_GOP_MAX && nd->op != VTA_GOP_MIN);
    nbound += nd->op == VTA_GOP_QUANTIZE_LINEAR || nd->op == VTA_GOP_DEQUANTIZE_LINEAR;
    if (nd->op != VTA_GOP_QCONV) continue;
    assert_true(places[i].acc);
    int64_t k = vta_node_int(nd, "leaky_k", 0), m = vta_node_int(nd, "leaky_m", 0);
    if (!k) continue;
    nleaky++;
    print_message("%s: LeakyRelu slope %lld / 2^%lld, shift %lld, clip [%lld, %lld]\n", nd->name,
                  (long long)m, (long long)k, (long long)vta_node_int(nd, "shift", 0),
                  (long long)vta_node_int(nd, "lo", -128), (long long)vta_node_int(nd, "hi", 127));
    assert_true(fabs((double)m / ldexp(1, (int)k) - 0.2) < 0.01);
    assert_true(vta_node_int(nd, "lo", -128) < 0);
  }
  assert_int_equal(nleaky, 1);
  assert_int_equal(nbound, 2);
  char *text = explain(g, &cfg, places);
  assert_non_null(strstr(text, "2 quantize/dequantize boundary nodes (for: graph input 1, model output 1)"));
  free(text);
  float ref[NY], out[3][NY];
  double nmse = pair_run(&mp, ref, out);
  print_message("int8 with the folded LeakyRelu against float: NMSE %.3g\n", nmse);
  if (!(nmse >= 0) || nmse > 0.01) fail_msg("NMSE %g of the int8 model against float", nmse);
  pair_free(&mp);
}

/* The slope m / 2^k the quantizer chose is the largest k for which nothing overflows int32 -
 * |y| * 2^k + 2^(s + k - 1) < 2^31 with |y| <= 128 * sum |w| + |bias| per channel, shift + k <=
 * 31, m <= 32767 - and m / 2^k moves no kept output by more than half a step; recomputed here
 * from the node's constants, and the integer epilogue checked against the float slope over the
 * whole range of y: within one step everywhere. With the weights' float scale 0.25 and 4 (int8
 * weights span their range either way, the shift changes) the overflow bound, not the shift,
 * decides k: 11 both times, |z| + rounding up to 0.73 of 2^31. */
static void test_boundaries_leaky_slope_is_exact_and_cannot_overflow(void **state) {
  (void)state;
  make_inputs();
  vta_config cfg;
  vta_config_default(&cfg);
  for (int big = 0; big < 2; big++) {
    unsigned char *qb;
    size_t qn;
    vta_place *places = NULL;
    leaky_weight_scale = big ? 4.0f : 0.25f;
    vta_graph *g = compile(1, &cfg, &places, &qb, &qn);
    leaky_weight_scale = 0.25f;
    int checked = 0;
    for (int i = 0; i < g->n_nodes; i++) {
      const vta_node *nd = &g->nodes[i];
      int k = (int)vta_node_int(nd, "leaky_k", 0);
      if (nd->op != VTA_GOP_QCONV || !k) continue;
      int m = (int)vta_node_int(nd, "leaky_m", 0), S = (int)vta_node_int(nd, "shift", 0);
      int lo = (int)vta_node_int(nd, "lo", -128), hi = (int)vta_node_int(nd, "hi", 127);
      const vta_gvalue *w = &g->values[nd->in[1]];
      const int32_t *b = g->values[nd->in[2]].data;
      const int32_t *mul = nd->n_in > 3 ? g->values[nd->in[3]].data : NULL;
      int64_t per = vta_value_count(w) / w->dims[0];
      double reach = (lo < 0 ? -lo : 0) + 0.5, worst = 0;
      /* Largest: every k' > k fails one of the conditions. */
      for (int kk = k; kk <= 31 - S; kk++) {
        double mm = nearbyint(0.2f * ldexp(1, kk));
        int ok = mm <= 32767 && fabs(0.2f - mm / ldexp(1, kk)) * reach / 0.2f <= 0.5;
        for (int64_t c = 0; ok && c < w->dims[0]; c++) {
          double sum = 0, mc = mul ? mul[c] : 1;
          for (int64_t t = 0; t < per; t++) sum += abs(((const int8_t *)w->data)[c * per + t]);
          int sc = S - (mul ? ilogb(mc) : 0);
          double y = 128 * sum + fabs((double)b[c]) / mc;
          if (kk == k) worst = fmax(worst, y * ldexp(1, kk) + ldexp(1, sc + kk - 1));
          ok = y * ldexp(1, kk) + ldexp(1, sc + kk - 1) < 2147483648.0;
        }
        assert_true(kk == k ? ok : !ok);
      }
      print_message("weights x%g: slope %d / 2^%d, shift %d, largest |z| + rounding %.4g of 2^31\n",
                    big ? 4.0 : 0.25, m, k, S, worst / 2147483648.0);
      assert_true(k < 31 - S); /* the overflow bound decided */
      /* The epilogue (uniform shift s) against the float slope: within one step. */
      for (int64_t y = -(1ll << 20); y <= (1ll << 20); y += 37) {
        int64_t z = y * ((int64_t)1 << k) > y * m ? y * ((int64_t)1 << k) : y * m;
        int64_t o = (z + ((int64_t)1 << (S + k - 1))) >> (S + k);
        o = o < lo ? lo : o > hi ? hi : o;
        double f = nearbyint((y >= 0 ? y : 0.2f * y) / ldexp(1, S));
        f = f < lo ? lo : f > hi ? hi : f;
        assert_true(fabs((double)o - f) <= 1);
      }
      checked++;
    }
    assert_int_equal(checked, 1);
    free(places);
    free(qb);
    vta_graph_destroy(g);
  }
}

/* A LeakyRelu of slope 1.5 (no int8 form) between the layers keeps its boundary pair, and
 * --explain says it is the cause; the Max after it is not folded (its input is float) and needs
 * no boundary of its own. */
static void test_boundaries_explain_names_the_float_operator(void **state) {
  (void)state;
  make_inputs();
  vta_config cfg;
  vta_config_default(&cfg);
  unsigned char *qb;
  size_t qn;
  vta_place *places = NULL;
  vta_graph *g = compile(3, &cfg, &places, &qb, &qn);
  char *text = explain(g, &cfg, places);
  assert_non_null(strstr(text, "boundary: int8 to float for LeakyRelu"));
  assert_non_null(strstr(text, "boundary: float to int8: its input comes from LeakyRelu"));
  assert_non_null(strstr(text, "4 quantize/dequantize boundary nodes (for: graph input 1, LeakyRelu 2, "
                               "model output 1)"));
  for (int i = 0; i < g->n_nodes; i++) {
    assert_true(places[i].why[0] != 0);
    if (g->nodes[i].op == VTA_GOP_QUANTIZE_LINEAR || g->nodes[i].op == VTA_GOP_DEQUANTIZE_LINEAR)
      assert_non_null(strstr(places[i].why, "boundary: "));
  }
  free(text);
  /* Still the same bits on the CPU and the device, in two device runs. */
  float a[NY], b[NY];
  vta_model_stats rs;
  run(qb, qn, "cpu", a, NULL);
  run(qb, qn, "fsim", b, &rs);
  assert_int_equal(rs.device_runs, 2);
  assert_memory_equal(a, b, sizeof a);
  free(places);
  free(qb);
  vta_graph_destroy(g);
}

/* A per-channel bound is not one clamp: the Max stays a float node with its boundary pair, and
 * the layers still compute the same bits on the CPU and the device. */
static void test_boundaries_per_channel_bound_stays_float(void **state) {
  (void)state;
  make_inputs();
  vta_config cfg;
  vta_config_default(&cfg);
  unsigned char *qb;
  size_t qn;
  vta_place *places = NULL;
  vta_graph *g = compile(2, &cfg, &places, &qb, &qn);
  int nmax = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    nmax += nd->op == VTA_GOP_MAX;
    for (int k = 0; k < nd->n_epi; k++) nmax += nd->epi[k].op == VTA_GOP_MAX;
  }
  assert_int_equal(nmax, 1);
  char *text = explain(g, &cfg, places);
  assert_non_null(strstr(text, "(for: graph input 1, Max 2, model output 1)"));
  free(text);
  float a[NY], b[NY];
  run(qb, qn, "cpu", a, NULL);
  run(qb, qn, "fsim", b, NULL);
  assert_memory_equal(a, b, sizeof a);
  free(places);
  free(qb);
  vta_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_boundaries_max_min_fold_into_clip),
      cmocka_unit_test(test_boundaries_leaky_relu_folds_into_epilogue),
      cmocka_unit_test(test_boundaries_leaky_slope_is_exact_and_cannot_overflow),
      cmocka_unit_test(test_boundaries_explain_names_the_float_operator),
      cmocka_unit_test(test_boundaries_per_channel_bound_stays_float),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
