/* test_quant.c - the int8 operators' CPU code against their references (qops_ref.c and the
 * accelerator's vta_ref.c), and post-training quantization, partitioning and the accelerator
 * path end to end on a small model: int8 close to float, fsim and rtl bit-identical to the CPU.
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
#include "compiler/accel/vta_lower.h"
#include "host/model.h"
#include "vta/config.h"
#include "vta/stats.h"

#define TEST_RNG_SEED 88172645463325252ull
#include "compiler/graph_value.h"


/* Compiles g (already shaped) to CPU code and runs it with bufs (one per value; constants
 * from the graph). */
static void run_cpu(vta_graph *g, void **bufs) {
  vta_error err = {0};
  vta_cpu_code code;
  if (vta_codegen_llvm(g, &code, &err)) fail_msg("%s", err.msg);
  vta_kernel_fn *fns = calloc((size_t)g->n_nodes, sizeof *fns);
  vta_cpu_jit *jit = vta_cpu_jit_create(&code, g, fns, &err);
  if (!jit) fail_msg("%s", err.msg);
  for (int v = 0; v < g->n_values; v++)
    if (g->values[v].data) bufs[v] = g->values[v].data;
  for (int i = 0; i < g->n_nodes; i++) {
    /* A node with a kernel has at most VTA_KERNEL_MAX_ARGS args (codegen refuses more). */
    int vals[VTA_KERNEL_MAX_ARGS];
    void *args[VTA_KERNEL_MAX_ARGS];
    int n = vta_kernel_args(g, i, vals, VTA_KERNEL_MAX_ARGS);
    for (int k = 0; k < n; k++) args[k] = bufs[vals[k]];
    if (fns[i]) fns[i](args);
  }
  vta_cpu_jit_destroy(jit);
  free(fns);
  vta_cpu_code_free(&code);
}

/* One QConv node on random data; compares the generated code with vta_qref_conv and, without
 * multipliers and groups, with the accelerator's reference vta_ref_conv2d. */
static void check_qconv_leaky(int c, int h, int w, int m, int k, int stride, int pad, int dil,
                              int group, int with_mul, int shift, int leaky_k, int leaky_m) {
  vta_graph *g = vta_graph_create();
  int64_t xd[4] = {1, c, h, w}, wd[4] = {m, c / group, k, k}, md[1] = {m};
  int x = value(g, "x", VTA_DT_I8, 4, xd, 0), wv = value(g, "w", VTA_DT_I8, 4, wd, 1);
  int b = value(g, "b", VTA_DT_I32, 1, md, 1), mv = with_mul ? value(g, "m", VTA_DT_I32, 1, md, 1) : -1;
  int y = vta_graph_add_value(g, "y", VTA_DT_I8);
  vta_graph_add_input(g, x);
  int8_t *W = g->values[wv].data;
  for (int64_t i = 0; i < vta_value_count(&g->values[wv]); i++) W[i] = (int8_t)(rnd() % 255 - 127);
  int32_t *B = g->values[b].data;
  for (int i = 0; i < m; i++) B[i] = (int32_t)(rnd() % 20001) - 10000;
  int64_t mul64[256];
  for (int i = 0; with_mul && i < m; i++) ((int32_t *)g->values[mv].data)[i] = (int32_t)(mul64[i] = 1 + rnd() % 3000);
  int in[4] = {x, wv, b, mv};
  int nd = vta_graph_add_node(g, VTA_GOP_QCONV, "q", with_mul ? 4 : 3, in, 1, &y);
  vta_graph_add_output(g, y);
  vta_node *n = &g->nodes[nd];
  int64_t st[2] = {stride, stride}, pd[4] = {pad, pad, pad, pad}, dl[2] = {dil, dil};
  vta_attrs_set_ints(&n->n_attrs, &n->attrs, "strides", 2, st);
  vta_attrs_set_ints(&n->n_attrs, &n->attrs, "pads", 4, pd);
  vta_attrs_set_ints(&n->n_attrs, &n->attrs, "dilations", 2, dl);
  vta_attrs_set_int(&n->n_attrs, &n->attrs, "group", group);
  vta_attrs_set_int(&n->n_attrs, &n->attrs, "shift", shift);
  vta_attrs_set_int(&n->n_attrs, &n->attrs, "lo", -100);
  vta_attrs_set_int(&n->n_attrs, &n->attrs, "hi", 120);
  if (leaky_k) {
    vta_attrs_set_int(&n->n_attrs, &n->attrs, "leaky_k", leaky_k);
    vta_attrs_set_int(&n->n_attrs, &n->attrs, "leaky_m", leaky_m);
  }
  vta_error err = {0};
  if (vta_shape_infer(g, &err)) fail_msg("%s", err.msg);
  vta_qconv_shape s;
  vta_qconv_shape_of(g, &g->nodes[0], &s);
  int64_t nx = vta_value_count(&g->values[x]), ny = vta_value_count(&g->values[y]);
  int8_t *X = malloc((size_t)nx), *Y = calloc(1, (size_t)ny), *R = calloc(1, (size_t)ny);
  for (int64_t i = 0; i < nx; i++) X[i] = (int8_t)(rnd() % 256 - 128);
  void *bufs[8] = {0};
  bufs[x] = X;
  bufs[y] = Y;
  run_cpu(g, bufs);
  vta_qrequant rq = {with_mul ? mul64 : NULL, shift, -100, 120, leaky_k, leaky_m};
  vta_qref_conv(&s, X, W, B, &rq, R);
  assert_memory_equal(Y, R, (size_t)ny);
  if (!with_mul && group == 1 && dil == 1) {
    vta_conv_desc d = {.n = 1, .c = (uint32_t)c, .h = (uint32_t)h, .w = (uint32_t)w, .k = (uint32_t)m,
                       .kh = (uint32_t)k, .kw = (uint32_t)k, .stride_h = (uint32_t)stride,
                       .stride_w = (uint32_t)stride, .pad_top = (uint32_t)pad, .pad_left = (uint32_t)pad,
                       .pad_bottom = (uint32_t)pad, .pad_right = (uint32_t)pad, .has_bias = 1,
                       .shift = (uint32_t)shift, .clip_lo = -100, .clip_hi = 120,
                       .leaky_k = (uint32_t)leaky_k, .leaky_m = leaky_m};
    memset(R, 0, (size_t)ny);
    vta_ref_conv2d(&d, X, W, B, NULL, R);
    assert_memory_equal(Y, R, (size_t)ny);
  }
  free(X);
  free(Y);
  free(R);
  vta_graph_destroy(g);
}

static void check_qconv(int c, int h, int w, int m, int k, int stride, int pad, int dil, int group,
                        int with_mul, int shift) {
  check_qconv_leaky(c, h, w, m, k, stride, pad, dil, group, with_mul, shift, 0, 0);
}

static void test_qops_conv_matches_references(void **state) {
  (void)state;
  check_qconv(5, 9, 11, 7, 3, 1, 1, 1, 1, 0, 9);   /* accelerator form */
  check_qconv(3, 13, 12, 8, 5, 2, 2, 1, 1, 0, 12); /* strided, padded */
  check_qconv(16, 6, 6, 4, 1, 1, 0, 1, 1, 0, 0);   /* 1x1, no shift */
  check_qconv(6, 10, 9, 6, 3, 2, 1, 1, 6, 1, 20);  /* depthwise with multipliers */
  check_qconv(8, 9, 9, 4, 3, 1, 2, 2, 2, 1, 18);   /* grouped, dilated */
  /* With a folded LeakyRelu: the accelerator form (also against vta_ref_conv2d), one whose
   * y << 12 wraps int32 (the same wrap in both), and with multipliers (int64). */
  check_qconv_leaky(5, 9, 11, 7, 3, 1, 1, 1, 1, 0, 9, 4, 3);
  check_qconv_leaky(16, 8, 8, 8, 3, 1, 1, 1, 1, 0, 12, 12, 819);
  check_qconv_leaky(6, 10, 9, 6, 3, 2, 1, 1, 6, 1, 20, 8, 51);
}

static void test_qops_dense_and_add_match_references(void **state) {
  (void)state;
  vta_graph *g = vta_graph_create();
  int64_t xd[2] = {3, 37}, wd[2] = {11, 37}, bd[1] = {11}, yd[2] = {3, 11};
  int x = value(g, "x", VTA_DT_I8, 2, xd, 0), w = value(g, "w", VTA_DT_I8, 2, wd, 1);
  int b = value(g, "b", VTA_DT_I32, 1, bd, 1), y = vta_graph_add_value(g, "y", VTA_DT_I8);
  int a2 = value(g, "a2", VTA_DT_I8, 2, yd, 0), z = vta_graph_add_value(g, "z", VTA_DT_I8);
  vta_graph_add_input(g, x);
  vta_graph_add_input(g, a2);
  int8_t *W = g->values[w].data;
  for (int i = 0; i < 11 * 37; i++) W[i] = (int8_t)(rnd() % 255 - 127);
  int32_t *B = g->values[b].data;
  for (int i = 0; i < 11; i++) B[i] = (int32_t)(rnd() % 4001) - 2000;
  int in[3] = {x, w, b};
  int n0 = vta_graph_add_node(g, VTA_GOP_QDENSE, "d", 3, in, 1, &y);
  vta_attrs_set_int(&g->nodes[n0].n_attrs, &g->nodes[n0].attrs, "shift", 7);
  vta_attrs_set_int(&g->nodes[n0].n_attrs, &g->nodes[n0].attrs, "lo", 0);
  int in2[2] = {y, a2};
  int n1 = vta_graph_add_node(g, VTA_GOP_QADD, "a", 2, in2, 1, &z);
  vta_node *n = &g->nodes[n1];
  vta_attrs_set_int(&n->n_attrs, &n->attrs, "ma", 9193);
  vta_attrs_set_int(&n->n_attrs, &n->attrs, "mb", -5993);
  vta_attrs_set_int(&n->n_attrs, &n->attrs, "shift", 13);
  vta_graph_add_output(g, z);
  vta_error err = {0};
  if (vta_shape_infer(g, &err)) fail_msg("%s", err.msg);
  int8_t X[3 * 37], A[33], Y[33], Z[33], RY[33], RZ[33];
  for (int i = 0; i < 3 * 37; i++) X[i] = (int8_t)(rnd() % 256 - 128);
  for (int i = 0; i < 33; i++) A[i] = (int8_t)(rnd() % 256 - 128);
  void *bufs[16] = {0};
  bufs[x] = X, bufs[a2] = A, bufs[y] = Y, bufs[z] = Z;
  run_cpu(g, bufs);
  vta_qrequant rq = {NULL, 7, 0, 127, 0, 0};
  vta_qref_dense(3, 37, 11, X, W, B, &rq, RY);
  vta_qref_add(33, RY, A, 9193, -5993, 13, -128, 127, RZ);
  assert_memory_equal(Y, RY, 33);
  assert_memory_equal(Z, RZ, 33);
  /* The accelerator's dense reference agrees. */
  vta_dense_desc dd = {.m = 3, .k = 37, .n = 11, .has_bias = 1, .shift = 7, .clip_lo = 0, .clip_hi = 127};
  vta_ref_dense(&dd, X, W, B, RY);
  assert_memory_equal(Y, RY, 33);
  vta_graph_destroy(g);
}

/* A small float model: Conv 3x3 | Relu -> depthwise Conv -> Conv 1x1 -> Add (residual) | Relu
 * -> MaxPool -> Flatten -> Gemm. */
static vta_graph *small_model(void) {
  uint64_t saved = rng;
  rng = 0x2545F4914F6CDD1Dull; /* the same weights every time */
  vta_graph *g = vta_graph_create();
  g->opset = 13;
  int64_t xd[4] = {1, 8, 12, 12}, w1[4] = {16, 8, 3, 3}, b16[1] = {16}, w2[4] = {16, 1, 3, 3};
  int64_t w3[4] = {16, 16, 1, 1}, wg[2] = {5, 16 * 36}, bg[1] = {5};
  int x = value(g, "x", VTA_DT_F32, 4, xd, 0);
  vta_graph_add_input(g, x);
  int c1w = value(g, "c1w", VTA_DT_F32, 4, w1, 1), c1b = value(g, "c1b", VTA_DT_F32, 1, b16, 1);
  int c2w = value(g, "c2w", VTA_DT_F32, 4, w2, 1), c3w = value(g, "c3w", VTA_DT_F32, 4, w3, 1);
  int c3b = value(g, "c3b", VTA_DT_F32, 1, b16, 1), gw = value(g, "gw", VTA_DT_F32, 2, wg, 1);
  int gb = value(g, "gb", VTA_DT_F32, 1, bg, 1);
  int consts[] = {c1w, c1b, c2w, c3w, c3b, gw, gb};
  for (size_t k = 0; k < sizeof consts / sizeof consts[0]; k++) {
    vta_gvalue *v = &g->values[consts[k]];
    float scale = consts[k] == gw ? 0.05f : consts[k] == c2w ? 0.4f : 0.3f;
    for (int64_t i = 0; i < vta_value_count(v); i++) ((float *)v->data)[i] = frnd() * scale;
  }
  const char *names[] = {"a", "r", "d", "p", "s", "t", "m", "f", "y"};
  int v[9];
  for (int k = 0; k < 9; k++) v[k] = vta_graph_add_value(g, names[k], VTA_DT_F32);
  int n;
  int in1[3] = {x, c1w, c1b};
  n = vta_graph_add_node(g, VTA_GOP_CONV, "conv1", 3, in1, 1, &v[0]);
  int64_t p1[4] = {1, 1, 1, 1};
  vta_attrs_set_ints(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "pads", 4, p1);
  vta_graph_add_node(g, VTA_GOP_RELU, "relu1", 1, &v[0], 1, &v[1]);
  int in2[2] = {v[1], c2w};
  n = vta_graph_add_node(g, VTA_GOP_CONV, "dw", 2, in2, 1, &v[2]);
  vta_attrs_set_ints(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "pads", 4, p1);
  vta_attrs_set_int(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "group", 16);
  int in3[3] = {v[2], c3w, c3b};
  vta_graph_add_node(g, VTA_GOP_CONV, "pw", 3, in3, 1, &v[3]);
  int in4[2] = {v[3], v[1]};
  vta_graph_add_node(g, VTA_GOP_ADD, "add", 2, in4, 1, &v[4]);
  vta_graph_add_node(g, VTA_GOP_RELU, "relu2", 1, &v[4], 1, &v[5]);
  n = vta_graph_add_node(g, VTA_GOP_MAXPOOL, "pool", 1, &v[5], 1, &v[6]);
  int64_t k2[2] = {2, 2};
  vta_attrs_set_ints(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "kernel_shape", 2, k2);
  vta_attrs_set_ints(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "strides", 2, k2);
  vta_graph_add_node(g, VTA_GOP_FLATTEN, "flat", 1, &v[6], 1, &v[7]);
  int in5[3] = {v[7], gw, gb};
  n = vta_graph_add_node(g, VTA_GOP_GEMM, "fc", 3, in5, 1, &v[8]);
  vta_attrs_set_int(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "transB", 1);
  vta_graph_add_output(g, v[8]);
  rng = saved;
  return g;
}

#define NSAMPLES 4
#define NX (8 * 12 * 12)

/* acc_adds: the residual add in the accelerator's form (7-bit multipliers, exact: the
 * pointwise convolution's and the add's scales are chosen for them) and on it. */
static void small_model_on_accelerator(int acc_adds) {
  static float samples[NSAMPLES][NX], test[NX];
  for (int s = 0; s < NSAMPLES; s++)
    for (int i = 0; i < NX; i++) samples[s][i] = frnd() * 2;
  for (int i = 0; i < NX; i++) test[i] = frnd() * 2;
  const float *sp[NSAMPLES];
  for (int s = 0; s < NSAMPLES; s++) sp[s] = samples[s];
  vta_calib cal = {NSAMPLES, 1, sp};
  vta_quant_opts qo = {.calib = &cal, .adds = acc_adds ? VTA_ADDS_EXACT : VTA_ADDS_CPU};
  vta_config cfg;
  vta_config_default(&cfg);
  vta_error err = {0};
  /* Float reference. */
  vta_graph *gf = small_model();
  if (vta_compile_graph(gf, NULL, &err)) fail_msg("%s", err.msg);
  vta_cpu_code fc;
  unsigned char *fb;
  size_t fn;
  assert_int_equal(vta_codegen_llvm(gf, &fc, &err), 0);
  assert_int_equal(vta_bundle_write(gf, &fc, &fb, &fn, &err), 0);
  vta_model *mf = vta_model_load(fb, fn, &err);
  assert_non_null(mf);
  assert_int_equal(vta_model_set_input(mf, 0, test, NX, &err), 0);
  assert_int_equal(vta_model_run(mf, &err), 0);
  float ref[5];
  memcpy(ref, vta_model_output(mf, 0), sizeof ref);
  /* Quantized and partitioned. */
  vta_graph *g = small_model();
  vta_place *places = NULL;
  /* Every island on the accelerator (the layers are too small to be worth device runs). */
  vta_compile_opts o = {.verify = 1, .quant = &qo, .accel = &cfg, .places = &places,
                        .host_macs_per_ns = -1};
  if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
  int nq = 0, nacc = 0, dw_cpu = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    nq += nd->op == VTA_GOP_QCONV || nd->op == VTA_GOP_QDENSE || nd->op == VTA_GOP_QADD;
    nacc += places[i].acc;
    assert_int_equal(places[i].acc, vta_node_on_acc(g, i));
    assert_true(places[i].why[0] != 0);
    if (nd->op == VTA_GOP_QCONV && vta_node_int(nd, "group", 1) > 1) {
      dw_cpu = !places[i].acc;
      assert_non_null(strstr(places[i].why, "depthwise"));
    }
  }
  assert_int_equal(nq, 4); /* conv1 | relu, depthwise, pointwise, residual add (the Gemm is the output layer) */
  assert_true(dw_cpu);
  /* conv1, the pointwise conv, and with the add on the accelerator the add and the max pooling
   * after it; with the add on the CPU the pooling stays there too (between CPU nodes it would
   * only move its tensor to the device and back). */
  assert_int_equal(nacc, acc_adds ? 4 : 2);
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == VTA_GOP_MAXPOOL) {
      assert_int_equal(places[i].acc, acc_adds);
      if (!acc_adds) assert_non_null(strstr(places[i].why, "int8 max pooling on the CPU"));
    }
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == VTA_GOP_QADD) {
      assert_int_equal(places[i].acc, acc_adds);
      int64_t ma = vta_node_int(&g->nodes[i], "ma", 0), mb = vta_node_int(&g->nodes[i], "mb", 0);
      assert_true(acc_adds ? ma <= 127 && mb <= 127 && (ma > 63 || mb > 63) : ma > 127 || mb > 127);
      assert_non_null(strstr(places[i].why, acc_adds ? "diagonal weights" : "on the CPU with 14 bits"));
    }
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  vta_explain_print(g, &cfg, places, m);
  fclose(m);
  assert_non_null(strstr(text, acc_adds ? "summary: 4 of" : "summary: 2 of"));
  free(text);
  free(places);
  vta_cpu_code qc;
  vta_bundle_acc acc;
  unsigned char *qb;
  size_t qn;
  assert_int_equal(vta_codegen_llvm(g, &qc, &err), 0);
  if (vta_acc_bundle(g, &cfg, &acc, &err)) fail_msg("%s", err.msg);
  assert_true(acc.n >= 1);
  assert_int_equal(vta_bundle_write_acc(g, &qc, &acc, &qb, &qn, &err), 0);
  /* The bundle vta compile --accel writes: no CPU code for the accelerator nodes (version 4);
   * the cpu backend compiles it when it first runs one. */
  unsigned char *only = malloc((size_t)g->n_nodes), *qb4;
  size_t qn4;
  for (int i = 0; i < g->n_nodes; i++) only[i] = !vta_node_on_acc(g, i);
  vta_cpu_code qc4;
  assert_int_equal(vta_codegen_llvm_nodes(g, NULL, VTA_CODE_BITCODE | VTA_CODE_OBJECT, only, &qc4, &err), 0);
  qc4.skips_acc = 1;
  assert_int_equal(vta_bundle_write_acc(g, &qc4, &acc, &qb4, &qn4, &err), 0);
  assert_true(qc4.object_size < qc.object_size);
  vta_cpu_code_free(&qc4);
  free(only);
  vta_bundle_acc_free(&acc);
  /* Every backend computes the same bits; int8 stays close to float. */
  float out[4][5];
  const char *backends[4] = {"cpu", "fsim", "rtl", "cpu"};
  for (int b = 0; b < 4; b++) {
    vta_model *mq = b == 3 ? vta_model_load(qb4, qn4, &err) : vta_model_load(qb, qn, &err);
    assert_non_null(mq);
    if (vta_model_set_backend(mq, backends[b], NULL, &err)) fail_msg("%s: %s", backends[b], err.msg);
    assert_int_equal(vta_model_set_input(mq, 0, test, NX, &err), 0);
    if (vta_model_run(mq, &err)) fail_msg("%s", err.msg);
    memcpy(out[b], vta_model_output(mq, 0), sizeof out[b]);
    if (b == 1 || b == 2) {
      vta_stats st;
      uint64_t am, tm;
      vta_model_acc_stats(mq, &st, &am, &tm);
      assert_true(am > 0 && am < tm);
      assert_true(st.uops > 0);
      if (b == 2) assert_true(st.cycles > 0);
      /* Device-resident tensors: only what a CPU node or the output needs comes back (conv1's
       * output for the depthwise convolution, 16 x 12 x 12, and the pooled 16 x 6 x 6); with
       * the add on the accelerator, the pointwise convolution's output and the add's stay on
       * the device and the add reads conv1's output in place. */
      vta_model_stats rs;
      vta_model_run_stats(mq, &rs);
      print_message("%s: %llu bytes to the device, %llu from it, %llu device runs\n", backends[b],
                    (unsigned long long)rs.bytes_to_device, (unsigned long long)rs.bytes_from_device,
                    (unsigned long long)rs.device_runs);
      /* With the add on the accelerator, the pointwise convolution, the add and the max pooling
       * run chained, one device run; conv1 is one (the depthwise convolution on the CPU after it).
       * With the add on the CPU, conv1 and the pointwise convolution are a run each (the max
       * pooling after the add is on the CPU). */
      assert_int_equal(rs.programs, (uint64_t)(acc_adds ? 4 : 2));
      assert_int_equal(rs.device_runs, 2);
      if (acc_adds) assert_int_equal(rs.bytes_from_device, 16 * 12 * 12 + 16 * 6 * 6);
    }
    vta_model_destroy(mq);
  }
  assert_memory_equal(out[0], out[1], sizeof out[0]);
  assert_memory_equal(out[0], out[2], sizeof out[0]);
  assert_memory_equal(out[0], out[3], sizeof out[0]);
  free(qb4);
  double e = 0, s = 0;
  for (int k = 0; k < 5; k++) e += (out[0][k] - ref[k]) * (out[0][k] - ref[k]), s += ref[k] * ref[k];
  if (e / s > 0.01) fail_msg("NMSE %g of the int8 model against float", e / s);
  free(qb);
  free(fb);
  vta_cpu_code_free(&qc);
  vta_cpu_code_free(&fc);
  vta_model_destroy(mf);
  vta_graph_destroy(g);
  vta_graph_destroy(gf);
}

static void test_quant_small_model_on_accelerator(void **state) {
  (void)state;
  small_model_on_accelerator(0);
}

/* The residual add on the accelerator too: every backend still computes the same bits. */
static void test_quant_residual_add_on_accelerator(void **state) {
  (void)state;
  small_model_on_accelerator(1);
}

/* x f32[1,16,6,6] -> Conv 1x1 16->48 (channel c's weights scaled by 2^-(c % 9), so the
 * channels want nine different shifts) | Relu -> MaxPool 2x2 -> output. */
static vta_graph *spread_model(void) {
  uint64_t saved = rng;
  rng = 0x9E3779B97F4A7C15ull;
  vta_graph *g = vta_graph_create();
  g->opset = 13;
  int64_t xd[4] = {1, 16, 6, 6}, wd[4] = {48, 16, 1, 1}, bd[1] = {48};
  int x = value(g, "x", VTA_DT_F32, 4, xd, 0);
  vta_graph_add_input(g, x);
  int w = value(g, "w", VTA_DT_F32, 4, wd, 1), b = value(g, "b", VTA_DT_F32, 1, bd, 1);
  float *W = g->values[w].data, *B = g->values[b].data;
  for (int c = 0; c < 48; c++) {
    B[c] = frnd() * 0.1f;
    for (int i = 0; i < 16; i++) W[c * 16 + i] = frnd() * 0.5f / (float)(1 << (c % 9));
  }
  int y = vta_graph_add_value(g, "y", VTA_DT_F32), r = vta_graph_add_value(g, "r", VTA_DT_F32);
  int z = vta_graph_add_value(g, "z", VTA_DT_F32);
  int in[3] = {x, w, b};
  vta_graph_add_node(g, VTA_GOP_CONV, "conv", 3, in, 1, &y);
  vta_graph_add_node(g, VTA_GOP_RELU, "relu", 1, &y, 1, &r);
  int n = vta_graph_add_node(g, VTA_GOP_MAXPOOL, "pool", 1, &r, 1, &z);
  int64_t k2[2] = {2, 2};
  vta_attrs_set_ints(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "kernel_shape", 2, k2);
  vta_attrs_set_ints(&g->nodes[n].n_attrs, &g->nodes[n].attrs, "strides", 2, k2);
  vta_graph_add_output(g, z);
  rng = saved;
  return g;
}

/* Quantizes spread_model for the accelerator with the given channel grouping; returns the
 * QConv's programs (parts) and checks their channel count. *whole_blocks: every shift is that
 * of a multiple of BLOCK_OUT channels; *distinct: how many different shifts the channels have. */
static int spread_parts(int group, int *whole_blocks, int *distinct, float *out) {
  static float samples[2][16 * 36]; /* the same calibration and test input for both calls */
  uint64_t saved = rng;
  rng = 0x853c49e6748fea9bull;
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < 16 * 36; i++) samples[s][i] = frnd() * 2;
  rng = saved;
  const float *sp[2] = {samples[0], samples[1]};
  vta_calib cal = {2, 1, sp};
  vta_quant_opts qo = {.calib = &cal, .channel_group = group};
  vta_config cfg;
  vta_config_default(&cfg);
  vta_error err = {0};
  vta_graph *g = spread_model();
  vta_compile_opts o = {.verify = 1, .quant = &qo, .accel = &cfg, .host_macs_per_ns = -1};
  if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
  int node = -1;
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == VTA_GOP_QCONV) node = i;
  assert_true(node >= 0 && vta_node_on_acc(g, node));
  vta_acc_layer L;
  if (vta_acc_desc(g, node, &cfg, &L, &err)) fail_msg("%s", err.msg);
  int parts = L.nparts, partial = 0, count[32] = {0};
  uint32_t total = 0;
  for (int p = 0; p < L.nparts; p++) {
    const vta_acc_part *P = &L.parts[p];
    total += P->nch;
    for (uint32_t c = 0; c < P->nch; c++) count[P->shifts ? P->shifts[c] : P->d.shift]++;
  }
  assert_int_equal(total, 48);
  *distinct = 0;
  for (int sc = 0; sc < 32; sc++) {
    partial += count[sc] % (int)cfg.block_out != 0;
    *distinct += count[sc] != 0;
  }
  *whole_blocks = partial == 0;
  vta_acc_layer_free(&L);
  /* Run it (cpu): the caller compares the two groupings' results with each other. */
  vta_cpu_code code;
  unsigned char *b;
  size_t n;
  vta_bundle_acc acc;
  assert_int_equal(vta_codegen_llvm(g, &code, &err), 0);
  if (vta_acc_bundle(g, &cfg, &acc, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_bundle_write_acc(g, &code, &acc, &b, &n, &err), 0);
  vta_model *m = vta_model_load(b, n, &err);
  assert_non_null(m);
  if (vta_model_set_backend(m, "fsim", NULL, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_model_set_input(m, 0, samples[0], 16 * 36, &err), 0);
  assert_int_equal(vta_model_run(m, &err), 0);
  memcpy(out, vta_model_output(m, 0), sizeof(float) * 48 * 9);
  vta_model_destroy(m);
  free(b);
  vta_bundle_acc_free(&acc);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  return parts;
}

/* Channel shifts in groups of BLOCK_OUT: each shift is that of a multiple of 16 channels (48 =
 * 3 blocks), fewer shifts than the exact per-channel form's, for results close to it. Either
 * way the convolution is one program: its epilogue shifts each channel by its own amount (a
 * vector SHR). */
static void test_quant_shift_groups_cover_whole_blocks(void **state) {
  (void)state;
  static float grouped[48 * 9], exact[48 * 9];
  int whole_g, whole_e, distinct_g, distinct_e;
  int parts_g = spread_parts(16, &whole_g, &distinct_g, grouped);
  int parts_e = spread_parts(1, &whole_e, &distinct_e, exact);
  assert_true(whole_g);
  assert_false(whole_e); /* 48 channels over nine shifts cannot all fill blocks */
  assert_true(distinct_g < distinct_e);
  assert_true(distinct_e >= 8);
  assert_int_equal(parts_g, 1);
  assert_int_equal(parts_e, 1);
  double e = 0, s = 0;
  for (int i = 0; i < 48 * 9; i++) e += (grouped[i] - exact[i]) * (grouped[i] - exact[i]), s += exact[i] * exact[i];
  if (e / s > 1e-3) fail_msg("the grouped and exact forms differ by NMSE %g", e / s);
}

static void test_quant_refuses_without_calibration(void **state) {
  (void)state;
  vta_graph *g = small_model();
  vta_error err = {0};
  vta_quant_opts qo = {.calib = NULL};
  vta_compile_opts o = {.verify = 1, .quant = &qo};
  assert_int_not_equal(vta_compile_graph(g, &o, &err), 0);
  assert_non_null(strstr(err.msg, "calibration"));
  vta_graph_destroy(g);
  /* A calibration set for another number of inputs. */
  g = small_model();
  float one[NX] = {0};
  const float *sp[2] = {one, one};
  vta_calib cal = {1, 2, sp};
  qo.calib = &cal;
  assert_int_not_equal(vta_compile_graph(g, &o, &err), 0);
  assert_non_null(strstr(err.msg, "2 inputs; the model has 1"));
  vta_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_qops_conv_matches_references),
      cmocka_unit_test(test_qops_dense_and_add_match_references),
      cmocka_unit_test(test_quant_small_model_on_accelerator),
      cmocka_unit_test(test_quant_residual_add_on_accelerator),
      cmocka_unit_test(test_quant_shift_groups_cover_whole_blocks),
      cmocka_unit_test(test_quant_refuses_without_calibration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
