/* test_families.c - the operator families (compiler/cpu/op_*.c) beyond ONNX's node tests: their
 * generated code on run-time data of several element types, an epilogue fused into a family
 * node, out-of-range indices and values, several outputs, and graphs written to text or to a
 * bundle after compilation and read back (the shape rules must accept what they produced).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"

typedef struct {
  vta_graph *g;
  vta_cpu_code code;
  vta_cpu_jit *jit;
  vta_kernel_fn *fns;
  void **bufs;
} run;

/* Compiles text (or a bundle's graph and code when via_bundle), sets the inputs in order from
 * data, runs every kernel. */
static void run_graph(run *r, const char *text, const void *const *data, int via_bundle, int reparse) {
  vta_error err = {0};
  memset(r, 0, sizeof *r);
  r->g = vta_graph_parse(text, strlen(text), NULL, 0, &err);
  if (!r->g) fail_msg("parse: %s\n%s", err.msg, text);
  if (vta_compile_graph(r->g, NULL, &err)) fail_msg("compile: %s", err.msg);
  if (reparse) {
    /* The compiled graph's text read back and compiled again: canonical attributes must be
     * accepted by the shape rules that wrote them. */
    char *t2 = vta_graph_print_string(r->g, VTA_PRINT_FULL);
    vta_graph_destroy(r->g);
    r->g = vta_graph_parse(t2, strlen(t2), NULL, 0, &err);
    if (!r->g) fail_msg("re-parse: %s\n%s", err.msg, t2);
    if (vta_compile_graph(r->g, NULL, &err)) fail_msg("re-compile: %s\n%s", err.msg, t2);
    free(t2);
  }
  if (vta_codegen_llvm(r->g, &r->code, &err)) fail_msg("codegen: %s", err.msg);
  if (via_bundle) {
    unsigned char *b;
    size_t n;
    assert_int_equal(vta_bundle_write(r->g, &r->code, &b, &n, &err), 0);
    vta_cpu_code_free(&r->code);
    vta_graph_destroy(r->g);
    if (vta_bundle_read(b, n, &r->g, &r->code, &err)) fail_msg("bundle: %s", err.msg);
    free(b);
  }
  r->fns = calloc((size_t)r->g->n_nodes + 1, sizeof *r->fns);
  r->jit = vta_cpu_jit_create(&r->code, r->g, r->fns, &err);
  if (!r->jit) fail_msg("jit: %s", err.msg);
  r->bufs = calloc((size_t)r->g->n_values + 1, sizeof *r->bufs);
  for (int v = 0; v < r->g->n_values; v++)
    r->bufs[v] = r->g->values[v].data ? r->g->values[v].data : calloc(1, vta_value_bytes(&r->g->values[v]) + 8);
  for (int k = 0; k < r->g->n_inputs; k++)
    memcpy(r->bufs[r->g->inputs[k]], data[k], vta_value_bytes(&r->g->values[r->g->inputs[k]]));
  for (int i = 0; i < r->g->n_nodes; i++) {
    if (!r->fns[i]) continue;
    int vals[VTA_KERNEL_MAX_ARGS];
    void *args[VTA_KERNEL_MAX_ARGS];
    int n = vta_kernel_args(r->g, i, vals, VTA_KERNEL_MAX_ARGS);
    for (int k = 0; k < n; k++) args[k] = r->bufs[vals[k]];
    r->fns[i](args);
  }
}
static const void *out(const run *r, int k) { return r->bufs[r->g->outputs[k]]; }
static void done(run *r) {
  for (int v = 0; v < r->g->n_values; v++)
    if (!r->g->values[v].data) free(r->bufs[v]);
  free(r->bufs);
  vta_cpu_jit_destroy(r->jit);
  free(r->fns);
  vta_cpu_code_free(&r->code);
  vta_graph_destroy(r->g);
}

/* ReduceMean with a Relu fused into it (the epilogue runs over the family's output). */
static void test_families_reduce_with_fused_relu(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x f32[2,3]\n"
                  "%m f32[2] = ReduceMean(%x) axes=[1] keepdims=0\n"
                  "%y f32[2] = Relu(%m)\n"
                  "output %y\n";
  const float x[6] = {1, 2, 3, -4, -5, -6};
  const void *in[] = {x};
  for (int via = 0; via < 2; via++) {
    run r;
    run_graph(&r, t, in, via, !via);
    int fused = 0;
    for (int i = 0; i < r.g->n_nodes; i++) fused |= r.g->nodes[i].op == VTA_GOP_REDUCE_MEAN && r.g->nodes[i].n_epi == 1;
    assert_true(fused);
    const float *y = out(&r, 0);
    assert_true(fabsf(y[0] - 2) < 1e-6f && y[1] == 0);
    done(&r);
  }
}

/* Where on a run-time mask over int64, broadcast; Equal producing the mask from int32. */
static void test_families_masks_and_where_on_integers(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %a i32[2,3]\n"
                  "input %b i32[3]\n"
                  "input %x i64[2,3]\n"
                  "input %z i64[1]\n"
                  "%m bool[2,3] = Equal(%a, %b)\n"
                  "%y i64[2,3] = Where(%m, %x, %z)\n"
                  "output %y\n";
  const int32_t a[6] = {1, 2, 3, 4, 2, 6}, b[3] = {1, 2, 9};
  const int64_t x[6] = {(INT64_C(1) << 60) + 1, 11, 12, 13, 14, 15}, z[1] = {-7};
  const void *in[] = {a, b, x, z};
  run r;
  run_graph(&r, t, in, 1, 1);
  const int64_t *y = out(&r, 0), want[6] = {(INT64_C(1) << 60) + 1, 11, -7, -7, 14, -7}; /* exact beyond 2^53 */
  for (int k = 0; k < 6; k++) assert_true(y[k] == want[k]);
  done(&r);
}

/* Gather with run-time indices: negative ones wrap, out-of-range ones read 0 (never memory
 * outside the tensor: ASan watches). */
static void test_families_gather_indices_at_run_time(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x f32[4,2]\n"
                  "input %i i64[4]\n"
                  "%y f32[4,2] = Gather(%x, %i) axis=0\n"
                  "output %y\n";
  const float x[8] = {0, 1, 10, 11, 20, 21, 30, 31};
  const int64_t i[4] = {2, -1, 4, -5};
  const void *in[] = {x, i};
  run r;
  run_graph(&r, t, in, 0, 1);
  const float *y = out(&r, 0), want[8] = {20, 21, 30, 31, 0, 0, 0, 0};
  for (int k = 0; k < 8; k++) assert_true(y[k] == want[k]);
  done(&r);
}

/* Cast float to int32 saturates and maps NaN to 0; float32 to float16 rounds to nearest even. */
static void test_families_cast_saturates_and_rounds(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x f32[6]\n"
                  "%y i32[6] = Cast(%x) to=6\n"
                  "%h f16[6] = Cast(%x) to=10\n"
                  "output %y\n"
                  "output %h\n";
  const float x[6] = {1e10f, -1e10f, NAN, 2.7f, -2.7f, 1.0f + 1.0f / 2048};
  const void *in[] = {x};
  run r;
  run_graph(&r, t, in, 0, 1);
  const int32_t *y = out(&r, 0), want[6] = {INT32_MAX, INT32_MIN, 0, 2, -2, 1};
  for (int k = 0; k < 6; k++) assert_int_equal(y[k], want[k]);
  const uint16_t *h = out(&r, 1);
  assert_int_equal(h[3], 0x4166); /* 2.7 -> 2.69921875 */
  assert_int_equal(h[5], 0x3c00); /* 1 + 2^-11, a tie, to even: 1.0 */
  done(&r);
}

/* Split writes several outputs from one kernel, through a bundle too. */
static void test_families_split_has_several_outputs(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x f32[5,2]\n"
                  "%a f32[2,2], %b f32[3,2] = Split(%x) axis=0 split=[2,3]\n"
                  "output %a\n"
                  "output %b\n";
  const float x[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const void *in[] = {x};
  for (int via = 0; via < 2; via++) {
    run r;
    run_graph(&r, t, in, via, 0);
    const float *a = out(&r, 0), *b = out(&r, 1);
    for (int k = 0; k < 4; k++) assert_true(a[k] == (float)k);
    for (int k = 0; k < 6; k++) assert_true(b[k] == (float)(k + 4));
    done(&r);
  }
}

/* Shape rules that turn inputs into attributes accept their own output when read back. */
static void test_families_canonical_forms_read_back(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x f32[2,3]\n"
                  "const %r i64[2] = [2, 1]\n"
                  "const %ax i64[1] = [1]\n"
                  "const %like i32[1] = [0]\n"
                  "%t f32[4,3] = Tile(%x, %r)\n"
                  "%c f32[4,3] = CumSum(%t, %ax)\n"
                  "%y i32[4,3] = CastLike(%c, %like)\n"
                  "output %y\n";
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const void *in[] = {x};
  run r;
  run_graph(&r, t, in, 1, 1);
  const int32_t *y = out(&r, 0), want[12] = {1, 3, 6, 4, 9, 15, 1, 3, 6, 4, 9, 15};
  for (int k = 0; k < 12; k++) assert_int_equal(y[k], want[k]);
  done(&r);
}

/* TopK on int32 data at run time: ties keep the lower index first, smallest as well as
 * largest, through a bundle and read back from the text form. */
static void test_families_topk_orders_ties_by_index(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x i32[2,5]\n"
                  "const %k i64[1] = [3]\n"
                  "%v i32[2,3], %i i64[2,3] = TopK(%x, %k) axis=-1\n"
                  "%sv i32[2,3], %si i64[2,3] = TopK(%x, %k) axis=1 largest=0\n"
                  "output %v\n"
                  "output %i\n"
                  "output %sv\n"
                  "output %si\n";
  const int32_t x[10] = {5, 7, 5, 1, 7, -3, 0, -3, 9, 0};
  const void *in[] = {x};
  for (int via = 0; via < 2; via++) {
    run r;
    run_graph(&r, t, in, via, !via);
    const int32_t *v = out(&r, 0), *sv = out(&r, 2);
    const int64_t *i = out(&r, 1), *si = out(&r, 3);
    const int32_t wv[6] = {7, 7, 5, 9, 0, 0}, wsv[6] = {1, 5, 5, -3, -3, 0};
    const int64_t wi[6] = {1, 4, 0, 3, 1, 4}, wsi[6] = {3, 0, 2, 0, 2, 1};
    for (int k = 0; k < 6; k++) {
      assert_int_equal(v[k], wv[k]);
      assert_int_equal(i[k], wi[k]);
      assert_int_equal(sv[k], wsv[k]);
      assert_int_equal(si[k], wsi[k]);
    }
    done(&r);
  }
}

/* Einsum: a batched matrix product and a diagonal with an ellipsis, and the implicit output
 * of a trace-like contraction; the same equations folded by the reference agree. */
static void test_families_einsum_equations(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %a f32[2,2,3]\n"
                  "input %b f32[2,3,2]\n"
                  "input %d f64[2,3,3]\n"
                  "%m f32[2,2,2] = Einsum(%a, %b) equation='bij, bjk -> bik'\n"
                  "%g f64[2,3] = Einsum(%d) equation='...ii->...i'\n"
                  "%s f32[3] = Einsum(%a) equation='bij->j'\n"
                  "%p f32[2,3,2] = Einsum(%a) equation='kij'\n"
                  "output %m\n"
                  "output %g\n"
                  "output %s\n"
                  "output %p\n";
  float a[12], b[12];
  double d[18];
  for (int k = 0; k < 12; k++) a[k] = (float)(k + 1), b[k] = (float)(k % 5) - 2;
  for (int k = 0; k < 18; k++) d[k] = k * 0.5;
  const void *in[] = {a, b, d};
  run r;
  run_graph(&r, t, in, 1, 1);
  const float *m = out(&r, 0), *sum = out(&r, 2);
  const double *g = out(&r, 1);
  for (int bb = 0; bb < 2; bb++)
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 2; k++) {
        float want = 0;
        for (int j = 0; j < 3; j++) want += a[bb * 6 + i * 3 + j] * b[bb * 6 + j * 2 + k];
        assert_true(fabsf(m[bb * 4 + i * 2 + k] - want) < 1e-4f);
      }
  for (int bb = 0; bb < 2; bb++)
    for (int i = 0; i < 3; i++) assert_true(g[bb * 3 + i] == d[bb * 9 + i * 4]);
  for (int j = 0; j < 3; j++) assert_true(sum[j] == a[j] + a[3 + j] + a[6 + j] + a[9 + j]);
  /* 'kij' alone: the implicit output is the letters used once, sorted (i, j, k): a permutation. */
  const float *p = out(&r, 3);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++) assert_true(p[(i * 3 + j) * 2 + k] == a[k * 6 + i * 3 + j]);
  done(&r);
}

/* Compress with a constant condition keeps run-time data along an axis or flattened. */
static void test_families_compress_constant_condition(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x f32[2,3]\n"
                  "const %c bool[3] = [0, 1, 1]\n"
                  "const %f bool[5] = [1, 0, 0, 1, 1]\n"
                  "%y f32[2,2] = Compress(%x, %c) axis=1\n"
                  "%z f32[3] = Compress(%x, %f)\n"
                  "output %y\n"
                  "output %z\n";
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const void *in[] = {x};
  run r;
  run_graph(&r, t, in, 1, 1);
  const float *y = out(&r, 0), *z = out(&r, 1);
  const float wy[4] = {2, 3, 5, 6}, wz[3] = {1, 4, 5};
  for (int k = 0; k < 4; k++) assert_true(y[k] == wy[k]);
  for (int k = 0; k < 3; k++) assert_true(z[k] == wz[k]);
  done(&r);
}

/* Integer Pow and int8 Clip run in the generated code, in their own types. */
static void test_families_integer_pow_and_clip(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x i64[4]\n"
                  "input %e i64[4]\n"
                  "input %q i8[4]\n"
                  "const %hi i8[] = [5]\n"
                  "%p i64[4] = Pow(%x, %e)\n"
                  "%c i8[4] = Clip(%q, _, %hi)\n"
                  "output %p\n"
                  "output %c\n";
  const int64_t x[4] = {2, -3, 10, 7}, e[4] = {10, 3, 15, 0};
  const int8_t q[4] = {-128, 4, 6, 127};
  const void *in[] = {x, e, q};
  run r;
  run_graph(&r, t, in, 0, 0);
  const int64_t *p = out(&r, 0);
  const int8_t *c = out(&r, 1);
  assert_true(p[0] == 1024 && p[1] == -27 && p[2] == 1000000000000000LL && p[3] == 1);
  assert_true(c[0] == -128 && c[1] == 4 && c[2] == 5 && c[3] == 5);
  done(&r);
}

/* What the IR cannot hold is refused by name: a NonZero or Compress whose output length
 * depends on run-time data, a TopK whose K is computed, a malformed Einsum equation. */
static void test_families_data_dependent_shapes_are_refused(void **state) {
  (void)state;
  static const struct { const char *text, *want; vta_status st; } cases[] = {
      {"vta-graph opset=13\ninput %x f32[4]\n%y i64[?] = NonZero(%x)\noutput %y\n", "known only from the data",
       VTA_ERR_UNSUPPORTED},
      {"vta-graph opset=13\ninput %x f32[4]\ninput %c bool[4]\n%y f32[?] = Compress(%x, %c)\noutput %y\n",
       "the condition must be a constant", VTA_ERR_UNSUPPORTED},
      {"vta-graph opset=13\ninput %x f32[4]\ninput %k i64[1]\n%v f32[?], %i i64[?] = TopK(%x, %k)\noutput %v\n",
       "K (input 1, 'k') must be a constant", VTA_ERR_UNSUPPORTED},
      {"vta-graph opset=13\ninput %x f32[2,3]\n%y f32[2] = Einsum(%x) equation='ij,jk->ik'\noutput %y\n",
       "more terms than the 1 inputs", VTA_ERR_INVALID},
      {"vta-graph opset=13\ninput %x f32[2,3]\n%y f32[2] = Einsum(%x) equation='i1->i'\noutput %y\n",
       "character '1' is not a subscript letter", VTA_ERR_INVALID},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    vta_error err = {0};
    vta_graph *g = vta_graph_parse(cases[k].text, strlen(cases[k].text), NULL, 0, &err);
    if (!g) fail_msg("parse: %s\n%s", err.msg, cases[k].text);
    assert_int_not_equal(vta_compile_graph(g, NULL, &err), 0);
    if (!strstr(err.msg, cases[k].want) || err.status != cases[k].st)
      fail_msg("case %zu: got '%s' (status %d), wanted '%s'", k, err.msg, (int)err.status, cases[k].want);
    vta_graph_destroy(g);
  }
}

/* A Split of a constant folds every output (mlsd's pads come from one), and so does a TopK. */
static void test_families_split_and_topk_of_constants_fold(void **state) {
  (void)state;
  const char *t = "vta-graph opset=13\n"
                  "input %x f32[2]\n"
                  "const %c f32[4] = [3, 1, 4, 1]\n"
                  "const %k i64[1] = [2]\n"
                  "%a f32[1], %b f32[3] = Split(%c) axis=0 split=[1,3]\n"
                  "%v f32[2], %i i64[2] = TopK(%c, %k)\n"
                  "%s f32[2] = Add(%x, %v)\n"
                  "%y f32[3] = Mul(%b, %a)\n"
                  "output %s\n"
                  "output %y\n"
                  "output %i\n";
  const float x[2] = {10, 20};
  const void *in[] = {x};
  run r;
  run_graph(&r, t, in, 0, 0);
  for (int i = 0; i < r.g->n_nodes; i++) {
    assert_int_not_equal(r.g->nodes[i].op, VTA_GOP_SPLIT);
    assert_int_not_equal(r.g->nodes[i].op, VTA_GOP_TOPK);
  }
  const float *sum = out(&r, 0), *y = out(&r, 1);
  const int64_t *idx = out(&r, 2);
  assert_true(sum[0] == 14 && sum[1] == 23);
  assert_true(y[0] == 3 && y[1] == 12 && y[2] == 3);
  assert_true(idx[0] == 2 && idx[1] == 0);
  done(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_families_reduce_with_fused_relu),
      cmocka_unit_test(test_families_masks_and_where_on_integers),
      cmocka_unit_test(test_families_gather_indices_at_run_time),
      cmocka_unit_test(test_families_cast_saturates_and_rounds),
      cmocka_unit_test(test_families_split_has_several_outputs),
      cmocka_unit_test(test_families_canonical_forms_read_back),
      cmocka_unit_test(test_families_topk_orders_ties_by_index),
      cmocka_unit_test(test_families_einsum_equations),
      cmocka_unit_test(test_families_compress_constant_condition),
      cmocka_unit_test(test_families_integer_pow_and_clip),
      cmocka_unit_test(test_families_data_dependent_shapes_are_refused),
      cmocka_unit_test(test_families_split_and_topk_of_constants_fold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
