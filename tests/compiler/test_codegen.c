/* test_codegen.c - the CPU code generator's kernels against plain C references, on the shapes
 * that exercise their edges: GEMM row remainders (M not a multiple of the micro-kernel's rows)
 * and masked column strips, im2col padding and strides, depthwise convolution with stride 1, 2
 * (even-lane shuffle) and 3 (scalar gather), dilation, asymmetric padding, outputs narrower
 * than a vector, grouped and 1-D convolutions, batches, direct stride-1 convolutions (row
 * panels and remainders, strips across row ends, dilation, 5x5, 1x7, 7x1, groups); fused Relu/Clip/HardSwish epilogues;
 * Gemm with every transpose combination; broadcasting elementwise code.
 *
 * Each case is a one-node graph written in the text form with random constants, compiled
 * through the whole pipeline (shape inference, passes, LLVM, bundle, JIT load) and compared
 * with a double-precision reference at 1e-4 relative, for every vector width (AVX-512, AVX2,
 * SSE2 on x86-64). The ONNX node tests
 * (test_conformance.c) cover few of these shapes, so the kernels are pinned here.
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
#include "host/model.h"

/* ---- a growing text buffer ---- */

typedef struct {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    assert_true(k >= 0);
    if (b->s && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    b->cap = (b->cap + (size_t)k + 1) * 2;
    b->s = realloc(b->s, b->cap);
    assert_non_null(b->s);
  }
}

static uint32_t g_seed = 12345;
static float rnd(void) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return (float)((g_seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}
static float *rnd_array(int64_t n) {
  float *a = malloc(sizeof(float) * (size_t)(n ? n : 1));
  assert_non_null(a);
  for (int64_t i = 0; i < n; i++) a[i] = rnd();
  return a;
}

static void sb_const(sbuf *b, const char *name, int rank, const int64_t *dims, const float *d) {
  int64_t n = 1;
  sb_printf(b, "const %%%s f32[", name);
  for (int k = 0; k < rank; k++) sb_printf(b, "%s%lld", k ? "," : "", (long long)dims[k]), n *= dims[k];
  sb_printf(b, "] = [");
  for (int64_t i = 0; i < n; i++) sb_printf(b, "%s%.9g", i ? ", " : "", (double)d[i]);
  sb_printf(b, "]\n");
}

/* The code is generated for this machine (NULL), and for narrower vectors of the same
 * architecture: the features decide the vector width (16, 8 or 4 floats) and the GEMM tile
 * (8 or 6 rows). Code for other features runs through the bundle's bitcode, recompiled for
 * this CPU, so every width's kernels are checked here. */
static const vta_cpu_target *g_target;

static void for_each_width(void (*fn)(void)) {
  vta_cpu_target host, t;
  vta_cpu_target_host(&host);
  if (!strstr(host.features, "+avx512f")) print_message("this CPU has no AVX-512: the 16-wide "
                                                        "kernels run from bitcode too\n");
  static const char *const feats[] = {"+avx2,+fma,+avx,+sse4.2,+f16c", ""};
  g_target = NULL;
  fn();
  if (strncmp(host.triple, "x86_64", 6) != 0) return; /* the feature names below are x86's */
  for (size_t k = 0; k < sizeof feats / sizeof feats[0]; k++) {
    t = host;
    t.cpu[0] = 0;
    snprintf(t.features, sizeof t.features, "%s", feats[k]);
    g_target = &t;
    fn();
  }
  g_target = NULL;
}

/* Compiles the graph text, loads it as a bundle, runs it on x (input "x"), returns output 0
 * (malloc'd copy) and its element count. */
static float *run_text(const char *text, const float *x, int64_t *count) {
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(text, strlen(text), NULL, 0, &err);
  if (!g) fail_msg("parse: %s\n%s", err.msg, text);
  if (vta_compile_graph(g, NULL, &err)) fail_msg("compile: %s", err.msg);
  vta_cpu_code code;
  if (vta_codegen_llvm_for(g, g_target, VTA_CODE_BITCODE | VTA_CODE_OBJECT, &code, &err))
    fail_msg("codegen: %s", err.msg);
  unsigned char *bytes;
  size_t size;
  assert_int_equal(vta_bundle_write(g, &code, &bytes, &size, &err), 0);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  vta_model *m = vta_model_load(bytes, size, &err);
  free(bytes);
  if (!m) fail_msg("load: %s", err.msg);
  int rank;
  int64_t dims[8], n = 1;
  vta_model_input(m, 0, &rank, dims);
  for (int d = 0; d < rank; d++) n *= dims[d];
  assert_int_equal(vta_model_set_input(m, 0, x, (size_t)n, &err), 0);
  assert_int_equal(vta_model_run(m, &err), 0);
  vta_model_output_info(m, 0, &rank, dims);
  n = 1;
  for (int d = 0; d < rank; d++) n *= dims[d];
  float *y = malloc(sizeof(float) * (size_t)(n ? n : 1));
  assert_non_null(y);
  memcpy(y, vta_model_output(m, 0), sizeof(float) * (size_t)n);
  vta_model_destroy(m);
  *count = n;
  return y;
}

static void check_close(const char *what, const float *got, const double *want, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!(fabs(got[i] - want[i]) <= 1e-4 * (fabs(want[i]) > 1 ? fabs(want[i]) : 1)))
      fail_msg("%s: element %lld is %.9g, expected %.9g", what, (long long)i, (double)got[i], want[i]);
}

/* ---- convolution ---- */

typedef struct {
  int64_t n, c, h, w, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, group;
  int bias, one_d;
  const char *epi; /* "" or an elementwise node applied after: "Relu", "Clip6", "HardSwish" */
} conv_case;

static double apply_epi(const char *epi, double v) {
  if (strcmp(epi, "Relu") == 0) return v > 0 ? v : 0;
  if (strcmp(epi, "Clip6") == 0) return v < 0 ? 0 : v > 6 ? 6 : v;
  if (strcmp(epi, "HardSwish") == 0) {
    double t = v / 6 + 0.5;
    return v * (t < 0 ? 0 : t > 1 ? 1 : t);
  }
  return v;
}

static void run_conv(const conv_case *k) {
  int64_t cg = k->c / k->group, mg = k->m / k->group;
  int64_t oh = (k->h + k->pt + k->pb - ((k->kh - 1) * k->dh + 1)) / k->sh + 1;
  int64_t ow = (k->w + k->pl + k->pr - ((k->kw - 1) * k->dw + 1)) / k->sw + 1;
  int64_t xn = k->n * k->c * k->h * k->w, wn = k->m * cg * k->kh * k->kw;
  float *x = rnd_array(xn), *w = rnd_array(wn), *b = rnd_array(k->m);
  sbuf t = {0};
  sb_printf(&t, "vta-graph opset=13\n");
  if (k->one_d) {
    int64_t xd[3] = {k->n, k->c, k->w}, wd[3] = {k->m, cg, k->kw};
    sb_printf(&t, "input %%x f32[%lld,%lld,%lld]\n", (long long)xd[0], (long long)xd[1], (long long)xd[2]);
    sb_const(&t, "w", 3, wd, w);
  } else {
    int64_t xd[4] = {k->n, k->c, k->h, k->w}, wd[4] = {k->m, cg, k->kh, k->kw};
    sb_printf(&t, "input %%x f32[%lld,%lld,%lld,%lld]\n", (long long)xd[0], (long long)xd[1],
              (long long)xd[2], (long long)xd[3]);
    sb_const(&t, "w", 4, wd, w);
  }
  int64_t bd[1] = {k->m};
  if (k->bias) sb_const(&t, "b", 1, bd, b);
  const char *out = k->epi[0] ? "c" : "y";
  if (k->one_d)
    sb_printf(&t, "%%%s f32[?] = Conv(%%x, %%w%s) group=%lld kernel_shape=[%lld] strides=[%lld] "
              "dilations=[%lld] pads=[%lld,%lld]\n", out, k->bias ? ", %b" : "", (long long)k->group,
              (long long)k->kw, (long long)k->sw, (long long)k->dw, (long long)k->pl, (long long)k->pr);
  else
    sb_printf(&t, "%%%s f32[?] = Conv(%%x, %%w%s) group=%lld kernel_shape=[%lld,%lld] strides=[%lld,%lld] "
              "dilations=[%lld,%lld] pads=[%lld,%lld,%lld,%lld]\n", out, k->bias ? ", %b" : "",
              (long long)k->group, (long long)k->kh, (long long)k->kw, (long long)k->sh, (long long)k->sw,
              (long long)k->dh, (long long)k->dw, (long long)k->pt, (long long)k->pl, (long long)k->pb,
              (long long)k->pr);
  if (strcmp(k->epi, "Relu") == 0) sb_printf(&t, "%%y f32[?] = Relu(%%c)\n");
  if (strcmp(k->epi, "Clip6") == 0) sb_printf(&t, "%%y f32[?] = Clip(%%c) min=0.0 max=6.0\n");
  if (strcmp(k->epi, "HardSwish") == 0) sb_printf(&t, "%%y f32[?] = HardSwish(%%c)\n");
  sb_printf(&t, "output %%y\n");
  int64_t count;
  float *y = run_text(t.s, x, &count);
  assert_int_equal(count, k->n * k->m * oh * ow);
  double *want = calloc((size_t)count, sizeof *want);
  assert_non_null(want);
  for (int64_t n = 0; n < k->n; n++)
    for (int64_t m = 0; m < k->m; m++) {
      int64_t g = m / mg;
      for (int64_t i = 0; i < oh; i++)
        for (int64_t j = 0; j < ow; j++) {
          double s = k->bias ? b[m] : 0;
          for (int64_t c = 0; c < cg; c++)
            for (int64_t a = 0; a < k->kh; a++)
              for (int64_t q = 0; q < k->kw; q++) {
                int64_t ih = i * k->sh + a * k->dh - k->pt, iw = j * k->sw + q * k->dw - k->pl;
                if (ih < 0 || ih >= k->h || iw < 0 || iw >= k->w) continue;
                s += (double)x[((n * k->c + g * cg + c) * k->h + ih) * k->w + iw] *
                     w[((m * cg + c) * k->kh + a) * k->kw + q];
              }
          want[((n * k->m + m) * oh + i) * ow + j] = apply_epi(k->epi, s);
        }
    }
  check_close("conv", y, want, count);
  free(want);
  free(y);
  free(t.s);
  free(x);
  free(w);
  free(b);
}

static const conv_case conv_cases[] = {
    /* n  c   h   w   m  kh kw sh sw dh dw pt pl pb pr grp bias 1d epi */
    {1, 19, 5, 7, 28, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, ""},         /* pointwise, 28 rows, 35 cols */
    {2, 3, 11, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, "Relu"},    /* im2col, batch 2 */
    {1, 3, 20, 20, 24, 5, 5, 2, 2, 1, 1, 1, 1, 2, 2, 1, 1, 0, "Relu"},   /* BlazeFace's first */
    {1, 3, 9, 13, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, "HardSwish"}, /* PP-OCR's first */
    {1, 4, 9, 9, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1, 0, ""},          /* grouped, dilated */
    {1, 3, 7, 10, 4, 2, 3, 3, 2, 1, 1, 0, 1, 0, 2, 1, 1, 0, ""},         /* im2col stride 3 rows */
    {1, 2, 6, 6, 3, 3, 3, 2, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, ""},          /* im2col stride 3 columns */
    {1, 7, 9, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7, 1, 0, "Clip6"},     /* depthwise */
    {1, 5, 8, 8, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5, 1, 0, "Relu"},      /* depthwise s2, 4 wide */
    {1, 6, 16, 16, 6, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 6, 0, 0, ""},        /* depthwise, TF SAME pads */
    {2, 8, 12, 40, 8, 5, 5, 2, 1, 1, 1, 2, 2, 2, 2, 8, 1, 0, "HardSwish"}, /* depthwise 5x5 s(2,1) */
    {1, 4, 11, 11, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 4, 1, 0, ""},        /* depthwise dilated */
    {1, 3, 10, 20, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, 0, 0, ""},        /* depthwise s3: scalar taps */
    {1, 3, 9, 9, 3, 3, 3, 1, 1, 1, 1, 2, 0, 0, 1, 3, 1, 0, ""},          /* depthwise, pads on two sides */
    {1, 2, 1, 17, 3, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 1, 1, 1, ""},         /* 1-D */
    {1, 3, 1, 33, 3, 1, 5, 1, 1, 1, 1, 0, 2, 0, 2, 3, 0, 1, ""},         /* 1-D depthwise */
    /* direct (stride 1): row panels of 8 and a remainder, strips across row ends, masked end */
    {1, 16, 40, 40, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, "Clip6"},
    {1, 5, 12, 30, 9, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, ""},       /* direct, no padding */
    {1, 3, 10, 17, 10, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0, 1, 0, 0, "Relu"},  /* direct, one-sided pads */
    {1, 8, 30, 30, 12, 3, 3, 1, 1, 5, 5, 5, 5, 5, 5, 1, 1, 0, "Relu"},  /* direct, dilated 5 (M-LSD large) */
    {2, 6, 14, 14, 9, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 0, ""},       /* direct 5x5, batch 2 */
    {1, 4, 9, 21, 8, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3, 1, 1, 0, ""},        /* direct 1x7 */
    {1, 4, 21, 9, 8, 7, 1, 1, 1, 1, 1, 3, 0, 3, 0, 1, 1, 0, ""},        /* direct 7x1 */
    {1, 6, 13, 13, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 0, "HardSwish"}, /* direct, 2 groups of 5 */
    {1, 4, 6, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, ""},         /* 1 wide: im2col by the cost rule */
    {1, 3, 1, 40, 4, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, ""},        /* 1-D direct */
};

static void conv_all(void) {
  for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; i++) {
    print_message("conv case %zu, features '%s'\n", i, g_target ? g_target->features : "host");
    run_conv(&conv_cases[i]);
  }
}

static void test_codegen_conv_matches_reference(void **state) {
  (void)state;
  for_each_width(conv_all);
}

/* ---- matrix products ---- */

static void run_matmul(int64_t M, int64_t K, int64_t N, int batch) {
  int64_t B = batch ? 3 : 1;
  float *a = rnd_array(B * M * K), *w = rnd_array(K * N);
  sbuf t = {0};
  int64_t wd[2] = {K, N};
  sb_printf(&t, "vta-graph opset=13\n");
  if (batch)
    sb_printf(&t, "input %%x f32[%lld,%lld,%lld]\n", (long long)B, (long long)M, (long long)K);
  else
    sb_printf(&t, "input %%x f32[%lld,%lld]\n", (long long)M, (long long)K);
  sb_const(&t, "w", 2, wd, w);
  sb_printf(&t, "%%y f32[?] = MatMul(%%x, %%w)\noutput %%y\n");
  int64_t count;
  float *y = run_text(t.s, a, &count);
  assert_int_equal(count, B * M * N);
  double *want = calloc((size_t)count, sizeof *want);
  for (int64_t bb = 0; bb < B; bb++)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++) s += (double)a[(bb * M + i) * K + k] * w[k * N + j];
        want[(bb * M + i) * N + j] = s;
      }
  check_close("MatMul", y, want, count);
  free(want);
  free(y);
  free(t.s);
  free(a);
  free(w);
}

static void matmul_all(void) {
  run_matmul(5, 37, 70, 0);   /* fewer rows than a micro-kernel, a masked strip */
  run_matmul(17, 8, 32, 0);   /* 2 panels + 1 row, exact strips */
  run_matmul(13, 5, 16, 0);   /* 2 panels of 6, or 1 of 8 + 5 rows; exact 8-wide strips */
  run_matmul(1, 200, 2, 0);   /* PP-OCR's classifier head */
  run_matmul(4, 3, 9, 1);     /* batched */
}

static void test_codegen_matmul_matches_reference(void **state) {
  (void)state;
  for_each_width(matmul_all);
}

static void run_gemm(int ta, int tb, int64_t M, int64_t K, int64_t N, float alpha, float beta, int crank) {
  float *a = rnd_array(M * K), *w = rnd_array(K * N), *cv = rnd_array(M * N);
  sbuf t = {0};
  int64_t ad[2] = {ta ? K : M, ta ? M : K}, wd[2] = {tb ? N : K, tb ? K : N};
  int64_t cd[2] = {crank == 2 ? M : N, crank == 2 ? 1 : 0};
  sb_printf(&t, "vta-graph opset=13\ninput %%x f32[%lld,%lld]\n", (long long)ad[0], (long long)ad[1]);
  sb_const(&t, "w", 2, wd, w);
  if (crank) sb_const(&t, "c", crank, cd, cv);
  sb_printf(&t, "%%y f32[?] = Gemm(%%x, %%w%s) transA=%d transB=%d alpha=%.9g beta=%.9g\noutput %%y\n",
            crank ? ", %c" : "", ta, tb, (double)alpha, (double)beta);
  int64_t count;
  float *y = run_text(t.s, a, &count);
  assert_int_equal(count, M * N);
  double *want = calloc((size_t)count, sizeof *want);
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++)
        s += (double)a[ta ? k * M + i : i * K + k] * w[tb ? j * K + k : k * N + j];
      double c = crank == 1 ? cv[j] : crank == 2 ? cv[i] : 0;
      want[i * N + j] = alpha * s + beta * c;
    }
  check_close("Gemm", y, want, count);
  free(want);
  free(y);
  free(t.s);
  free(a);
  free(w);
  free(cv);
}

static void gemm_all(void) {
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      run_gemm(ta, tb, 7, 19, 35, 1.0f, 1.0f, 1);
      run_gemm(ta, tb, 3, 33, 5, 0.5f, 2.0f, 2);
      run_gemm(ta, tb, 9, 4, 1, 1.0f, 0.0f, 0);
    }
}

static void test_codegen_gemm_transposes_match_reference(void **state) {
  (void)state;
  for_each_width(gemm_all);
}

/* ---- elementwise code ---- */

static void test_codegen_elementwise_broadcasts(void **state) {
  (void)state;
  /* [2,3,37] + [3,1] then Tanh (a libm call per lane) and Mul by a [37] row. */
  float *x = rnd_array(2 * 3 * 37), *c = rnd_array(3), *r = rnd_array(37);
  sbuf t = {0};
  int64_t cd[2] = {3, 1}, rd[1] = {37};
  sb_printf(&t, "vta-graph opset=13\ninput %%x f32[2,3,37]\n");
  sb_const(&t, "c", 2, cd, c);
  sb_const(&t, "r", 1, rd, r);
  sb_printf(&t, "%%a f32[?] = Add(%%x, %%c)\n%%b f32[?] = Tanh(%%a)\n%%y f32[?] = Mul(%%r, %%b)\noutput %%y\n");
  int64_t count;
  float *y = run_text(t.s, x, &count);
  assert_int_equal(count, 2 * 3 * 37);
  double want[2 * 3 * 37];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 37; k++)
        want[(i * 3 + j) * 37 + k] = r[k] * tanh((double)x[(i * 3 + j) * 37 + k] + c[j]);
  check_close("broadcast", y, want, count);
  free(y);
  free(t.s);
  free(x);
  free(c);
  free(r);
}

/* x * Clip(x + 3, 0, 6) / 6, as PaddlePaddle exports HardSwish, becomes one HardSwish that is
 * fused into the convolution producing x. */
static void test_codegen_hardswish_pattern_fuses(void **state) {
  (void)state;
  float *x = rnd_array(2 * 4 * 4), *w = rnd_array(3 * 2);
  for (int i = 0; i < 32; i++) x[i] *= 8;
  sbuf t = {0};
  int64_t wd[4] = {3, 2, 1, 1};
  sb_printf(&t, "vta-graph opset=13\ninput %%x f32[1,2,4,4]\n");
  sb_const(&t, "w", 4, wd, w);
  sb_printf(&t, "const %%three f32[] = [3]\nconst %%six f32[1] = [6]\n"
                "%%c f32[?] = Conv(%%x, %%w) group=1 kernel_shape=[1,1] strides=[1,1] dilations=[1,1] "
                "pads=[0,0,0,0]\n%%a f32[?] = Add(%%c, %%three)\n%%k f32[?] = Clip(%%a) min=0.0 max=6.0\n"
                "%%m f32[?] = Mul(%%c, %%k)\n%%y f32[?] = Div(%%m, %%six)\noutput %%y\n");
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(t.s, strlen(t.s), NULL, 0, &err);
  assert_non_null(g);
  assert_int_equal(vta_compile_graph(g, NULL, &err), 0);
  assert_int_equal(g->n_nodes, 1);
  assert_int_equal(g->nodes[0].op, VTA_GOP_CONV);
  assert_int_equal(g->nodes[0].n_epi, 1);
  assert_int_equal(g->nodes[0].epi[0].op, VTA_GOP_HARD_SWISH);
  vta_graph_destroy(g);
  int64_t count;
  float *y = run_text(t.s, x, &count);
  double want[3 * 16];
  for (int m = 0; m < 3; m++)
    for (int p = 0; p < 16; p++) {
      double s = (double)w[m * 2] * x[p] + (double)w[m * 2 + 1] * x[16 + p];
      double k = s + 3 < 0 ? 0 : s + 3 > 6 ? 6 : s + 3;
      want[m * 16 + p] = s * k / 6;
    }
  check_close("HardSwish", y, want, count);
  free(y);
  free(t.s);
  free(x);
  free(w);
}

/* A Pad of zeros in front of a convolution becomes the convolution's padding (fuse.c): the
 * compiled graph has no Pad, and the result is the padded convolution's. Depthwise (the
 * depthwise plane) and dense (im2col) convolutions, asymmetric pads. */
static void pad_fold_case(int group) {
  const int C = 2, H = 5, W = 6, M = group == 1 ? 3 : 2, cg_ = C / group;
  float *x = rnd_array(C * H * W), *w = rnd_array(M * cg_ * 9);
  sbuf t = {0};
  int64_t wd[4] = {M, cg_, 3, 3};
  sb_printf(&t, "vta-graph opset=13\ninput %%x f32[1,%d,%d,%d]\n", C, H, W);
  sb_const(&t, "w", 4, wd, w);
  /* top 1, left 0, bottom 0, right 1 */
  sb_printf(&t, "const %%pads i64[8] = [0,0,1,0,0,0,0,1]\n%%p f32[?] = Pad(%%x, %%pads)\n"
                "%%y f32[?] = Conv(%%p, %%w) group=%d kernel_shape=[3,3] strides=[2,2] dilations=[1,1] "
                "pads=[0,1,1,0]\noutput %%y\n", group);
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(t.s, strlen(t.s), NULL, 0, &err);
  if (!g) fail_msg("parse: %s\n%s", err.msg, t.s);
  assert_int_equal(vta_compile_graph(g, NULL, &err), 0);
  assert_int_equal(g->n_nodes, 1);
  assert_int_equal(g->nodes[0].op, VTA_GOP_CONV);
  int64_t pads[4];
  assert_int_equal(vta_node_ints(&g->nodes[0], "pads", pads, 4), 4);
  assert_true(pads[0] == 1 && pads[1] == 1 && pads[2] == 1 && pads[3] == 1);
  vta_graph_destroy(g);
  int64_t count;
  float *y = run_text(t.s, x, &count);
  /* Reference: the input padded by the Pad (top 1, right 1) and then by the Conv (left 1,
   * bottom 1): rows -1..H, columns -1..W, zero outside. */
  int oh = (H + 2 - 3) / 2 + 1, ow = (W + 2 - 3) / 2 + 1;
  assert_int_equal(count, M * oh * ow);
  double *want = calloc((size_t)count, sizeof *want);
  for (int m = 0; m < M; m++)
    for (int i = 0; i < oh; i++)
      for (int j = 0; j < ow; j++) {
        double acc = 0;
        int gi = m / (M / group);
        for (int ci = 0; ci < cg_; ci++)
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
              int r = i * 2 + a - 1, q = j * 2 + b - 1;
              if (r < 0 || r >= H || q < 0 || q >= W) continue;
              acc += (double)w[((m * cg_ + ci) * 3 + a) * 3 + b] * x[((gi * cg_ + ci) * H + r) * W + q];
            }
        want[(m * oh + i) * ow + j] = acc;
      }
  check_close("Pad folded into Conv", y, want, count);
  free(want);
  free(y);
  free(t.s);
  free(x);
  free(w);
}

static void test_codegen_zero_pad_folds_into_conv(void **state) {
  (void)state;
  pad_fold_case(1);
  pad_fold_case(2);
}

/* ConvTranspose whose kernel equals its stride (no padding): one GEMM per tap and a scatter
 * (codegen_llvm.c). Against a direct reference, with groups and a bias. */
static void conv_transpose_tiled_case(int kh, int kw, int group) {
  const int C = 4, H = 3, W = 5, M = 6, cg_ = C / group, mg = M / group;
  float *x = rnd_array(C * H * W), *w = rnd_array(C * mg * kh * kw), *bias = rnd_array(M);
  sbuf t = {0};
  int64_t wd[4] = {C, mg, kh, kw}, bd[1] = {M};
  sb_printf(&t, "vta-graph opset=13\ninput %%x f32[1,%d,%d,%d]\n", C, H, W);
  sb_const(&t, "w", 4, wd, w);
  sb_const(&t, "b", 1, bd, bias);
  sb_printf(&t, "%%y f32[?] = ConvTranspose(%%x, %%w, %%b) group=%d kernel_shape=[%d,%d] strides=[%d,%d]\n"
                "output %%y\n", group, kh, kw, kh, kw);
  int64_t count;
  float *y = run_text(t.s, x, &count);
  int oh = H * kh, ow = W * kw;
  assert_int_equal(count, M * oh * ow);
  double *want = calloc((size_t)count, sizeof *want);
  for (int m = 0; m < M; m++)
    for (int p = 0; p < oh * ow; p++) want[m * oh * ow + p] = bias[m];
  for (int ci = 0; ci < C; ci++)
    for (int mo = 0; mo < mg; mo++)
      for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++)
          for (int a = 0; a < kh; a++)
            for (int b = 0; b < kw; b++) {
              int m = ci / cg_ * mg + mo;
              want[(m * oh + i * kh + a) * ow + j * kw + b] +=
                  (double)x[(ci * H + i) * W + j] * w[((ci * mg + mo) * kh + a) * kw + b];
            }
  check_close("ConvTranspose kernel = stride", y, want, count);
  free(want);
  free(y);
  free(t.s);
  free(x);
  free(w);
  free(bias);
}

static void test_codegen_conv_transpose_tiled_matches_reference(void **state) {
  (void)state;
  conv_transpose_tiled_case(2, 2, 1);
  conv_transpose_tiled_case(2, 3, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_codegen_conv_matches_reference),
      cmocka_unit_test(test_codegen_matmul_matches_reference),
      cmocka_unit_test(test_codegen_gemm_transposes_match_reference),
      cmocka_unit_test(test_codegen_elementwise_broadcasts),
      cmocka_unit_test(test_codegen_hardswish_pattern_fuses),
      cmocka_unit_test(test_codegen_zero_pad_folds_into_conv),
      cmocka_unit_test(test_codegen_conv_transpose_tiled_matches_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
