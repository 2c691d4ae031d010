/* regress_model.c - the `model` workload of `vta regress`: a small network drawn from the seed,
 * compiled for the case's configuration like any ONNX model and run by the model runtime.
 *
 * The design idea: the other runtime-level workloads reach the device through one layer at a
 * time; this one goes through the whole compiler (shape inference, folding, int8 quantization
 * calibrated on seeded samples, partitioning, tiling for the configuration, the bundle and its
 * LLVM CPU code) and the model runtime (packing, chained device runs with barriers, CPU nodes
 * between them), as `vta compile --accel` and `vta run` do. The network is written in the
 * graph's text form (compiler/parse.c), the form `vta compile -d` dumps. Its
 * accelerator layers run on the diff backend, which checks every device run against fsim byte
 * for byte; the outputs are then compared with the same bundle run with every node on the CPU
 * (the quantized operators' CPU code gives the same integers: docs/quantization.md).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/accel/partition.h"
#include "compiler/compiler.h"
#include "host/model.h"
#include "host/regress_work.h"
#include "sim/gen/prog.h"

/* A growing string; a failed allocation is remembered and reported once at the end. */
typedef struct text {
  char *s;
  size_t n, cap;
  int oom;
} text;

static void tprintf(text *t, const char *fmt, ...) {
  if (t->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      t->oom = 1;
      return;
    }
    if (t->s && t->n + (size_t)k < t->cap) {
      t->n += (size_t)k;
      return;
    }
    size_t cap = t->cap ? t->cap : 4096;
    while (cap <= t->n + (size_t)k) cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->oom = 1;
      return;
    }
    t->s = s;
    t->cap = cap;
  }
}

/* A uniform float in [-a, a), from the generators' xorshift. */
static float uniform(uint64_t *s, float a) {
  return a * ((float)(fp_rand(s) % 65536u) / 32768.0f - 1.0f);
}

static void tconst(text *t, uint64_t *s, const char *name, int rank, const int64_t *dims, float a) {
  int64_t n = 1;
  tprintf(t, "const %%%s f32[", name);
  for (int d = 0; d < rank; d++) {
    tprintf(t, "%s%lld", d ? "," : "", (long long)dims[d]);
    n *= dims[d];
  }
  tprintf(t, "] = [");
  for (int64_t i = 0; i < n; i++) tprintf(t, "%s%.6g", i ? ", " : "", uniform(s, a));
  tprintf(t, "]\n");
}

/* The network of a seed: an input of 3 (an image's), BLOCK_IN or 2 x BLOCK_IN channels and 4x4
 * to 11x11 pixels; one to three blocks, each a convolution (1x1 or 3x3 with padding, stride 1
 * or 2, BLOCK_OUT, 2 x BLOCK_OUT or an odd channel count) with a bias and a ReLU, sometimes a
 * residual block (a second 3x3 convolution added to the block's input, then a ReLU) and
 * sometimes a 2x2 max pooling; then a flatten and a dense layer of 10 outputs. Kept small so
 * that a case takes about a second on the RTL model. */
static int model_text(const vta_config *cfg, uint64_t seed, text *t, int64_t *in_dims) {
  uint64_t s = seed * 0xd1b54a32d192ed03ull + 7;
  int64_t c = fp_rand(&s) % 3 == 0 ? 3 : (int64_t)cfg->block_in * (1 + (int64_t)(fp_rand(&s) % 2));
  int64_t h = 4 + (int64_t)(fp_rand(&s) % 8), w = 4 + (int64_t)(fp_rand(&s) % 8);
  in_dims[0] = 1;
  in_dims[1] = c;
  in_dims[2] = h;
  in_dims[3] = w;
  tprintf(t, "vta-graph opset=13\ninput %%x f32[1,%lld,%lld,%lld]\n", (long long)c,
          (long long)h, (long long)w);
  const char *cur = "x";
  char names[16][16];
  int nblocks = 1 + (int)(fp_rand(&s) % 3), k = 0;
  for (int b = 0; b < nblocks; b++) {
    int64_t co = fp_rand(&s) % 4 == 0 ? 5 + 2 * (int64_t)(fp_rand(&s) % 4)
                                       : (int64_t)cfg->block_out * (1 + (int64_t)(fp_rand(&s) % 2));
    int64_t kk = fp_rand(&s) % 2 ? 3 : 1, pad = kk == 3 ? 1 : 0;
    int64_t stride = h >= 6 && w >= 6 && fp_rand(&s) % 3 == 0 ? 2 : 1;
    int64_t wd[4] = {co, c, kk, kk}, bd[1] = {co};
    float a = 1.5f / sqrtf((float)(c * kk * kk));
    snprintf(names[k], sizeof names[k], "w%d", b);
    tconst(t, &s, names[k], 4, wd, a);
    snprintf(names[k + 1], sizeof names[k + 1], "b%d", b);
    tconst(t, &s, names[k + 1], 1, bd, 0.2f);
    tprintf(t,
            "%%c%d f32[?] = Conv(%%%s, %%w%d, %%b%d) group=1 kernel_shape=[%lld,%lld] "
            "strides=[%lld,%lld] dilations=[1,1] pads=[%lld,%lld,%lld,%lld]\n"
            "%%r%d f32[?] = Relu(%%c%d)\n",
            b, cur, b, b, (long long)kk, (long long)kk, (long long)stride, (long long)stride,
            (long long)pad, (long long)pad, (long long)pad, (long long)pad, b, b);
    h = (h + 2 * pad - kk) / stride + 1;
    w = (w + 2 * pad - kk) / stride + 1;
    c = co;
    snprintf(names[k + 2], sizeof names[k + 2], "r%d", b);
    cur = names[k + 2];
    if (fp_rand(&s) % 3 == 0) { /* a residual block */
      int64_t rd[4] = {c, c, 3, 3}, rb[1] = {c};
      snprintf(names[k + 3], sizeof names[k + 3], "v%d", b);
      tconst(t, &s, names[k + 3], 4, rd, 1.0f / sqrtf((float)(c * 9)));
      snprintf(names[k + 3], sizeof names[k + 3], "u%d", b);
      tconst(t, &s, names[k + 3], 1, rb, 0.2f);
      tprintf(t,
              "%%d%d f32[?] = Conv(%%%s, %%v%d, %%u%d) group=1 kernel_shape=[3,3] strides=[1,1] "
              "dilations=[1,1] pads=[1,1,1,1]\n"
              "%%a%d f32[?] = Add(%%d%d, %%%s)\n"
              "%%s%d f32[?] = Relu(%%a%d)\n",
              b, cur, b, b, b, b, cur, b, b);
      snprintf(names[k + 3], sizeof names[k + 3], "s%d", b);
      cur = names[k + 3];
    }
    if (h >= 4 && w >= 4 && fp_rand(&s) % 3 == 0) {
      tprintf(t, "%%p%d f32[?] = MaxPool(%%%s) kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0]\n",
              b, cur);
      snprintf(names[k + 4], sizeof names[k + 4], "p%d", b);
      cur = names[k + 4];
      h /= 2;
      w /= 2;
    }
    k += 5;
  }
  int64_t f = c * h * w, gd[2] = {10, f}, gb[1] = {10};
  tprintf(t, "const %%shape i64[2] = [1, -1]\n");
  tconst(t, &s, "g", 2, gd, 1.5f / sqrtf((float)f));
  tconst(t, &s, "gb", 1, gb, 0.2f);
  tprintf(t,
          "%%f f32[?] = Reshape(%%%s, %%shape)\n"
          "%%y f32[?] = Gemm(%%f, %%g, %%gb) transA=0 transB=1 alpha=1 beta=1\n"
          "output %%y\n",
          cur);
  return t->oom ? -1 : 0;
}

/* Builds the bundle of the seed's network compiled for cfg (residual adds on the accelerator
 * in every other seed). *input receives the test input (drawn after the four calibration
 * samples), *count its elements; *graph_text the network in text form. */
static int model_bundle(const vta_config *cfg, uint64_t seed, unsigned char **bundle,
                        size_t *size, float **input, size_t *count, char **graph_text,
                        int *n_acc, vta_error *err) {
  text t = {0};
  int64_t dims[4];
  *bundle = NULL;
  *input = NULL;
  *graph_text = NULL;
  if (model_text(cfg, seed, &t, dims) != 0) {
    free(t.s);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory writing the model of seed %llu",
                         (unsigned long long)seed);
  }
  *graph_text = t.s;
  size_t n = (size_t)(dims[0] * dims[1] * dims[2] * dims[3]);
  enum { SAMPLES = 4 };
  float *data = malloc((SAMPLES + 1) * n * sizeof *data);
  if (!data) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 11;
  for (size_t i = 0; i < (SAMPLES + 1) * n; i++) data[i] = uniform(&s, 2.0f);
  const float *samples[SAMPLES];
  for (int k = 0; k < SAMPLES; k++) samples[k] = data + (size_t)k * n;
  vta_calib cal = {.n_samples = SAMPLES, .n_inputs = 1, .samples = samples};
  /* The residual adds: on the CPU, quantized for the accelerator, or fused into a convolution's
   * epilogue (whatever that costs, so that small models exercise it), by seed. */
  static const int k_adds[3] = {VTA_ADDS_CPU, VTA_ADDS_EXACT, VTA_ADDS_FUSE_ALWAYS};
  vta_quant_opts qo = {.calib = &cal, .adds = k_adds[seed % 3]};
  /* Every layer on the accelerator, however small the configuration: the workload tests it. */
  vta_compile_opts co = {.quant = &qo, .accel = cfg, .host_macs_per_ns = -1};
  vta_graph *g = vta_graph_parse(t.s, t.n, NULL, 0, err);
  int rc = g ? VTA_OK : VTA_ERR_INVALID;
  vta_cpu_code code;
  memset(&code, 0, sizeof code);
  vta_bundle_acc acc;
  memset(&acc, 0, sizeof acc);
  if (rc == VTA_OK) rc = vta_compile_graph(g, &co, err) ? VTA_ERR_INVALID : VTA_OK;
  if (rc == VTA_OK) rc = vta_codegen_llvm(g, &code, err) ? VTA_ERR_INVALID : VTA_OK;
  if (rc == VTA_OK) rc = vta_acc_bundle(g, cfg, &acc, err) ? VTA_ERR_INVALID : VTA_OK;
  if (rc == VTA_OK) {
    *n_acc = acc.n;
    rc = vta_bundle_write_acc(g, &code, &acc, bundle, size, err) ? VTA_ERR_INVALID : VTA_OK;
  }
  if (rc == VTA_OK && *n_acc == 0)
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "the compiler put none of the model's layers on the accelerator");
  vta_bundle_acc_free(&acc);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  if (rc != VTA_OK) {
    free(data);
    return rc;
  }
  memmove(data, data + SAMPLES * n, n * sizeof *data);
  *input = data;
  *count = n;
  return VTA_OK;
}

/* Runs m on its backend; *out receives a copy of output 0 and *n its element count. */
static int model_run(vta_model *m, const float *input, size_t count, float **out, size_t *n,
                     vta_error *err) {
  *out = NULL;
  if (vta_model_set_input(m, 0, input, count, err) || vta_model_run(m, err)) return VTA_ERR_INVALID;
  int rank = 0;
  int64_t dims[8];
  vta_model_output_info(m, 0, &rank, dims);
  size_t e = 1;
  for (int d = 0; d < rank; d++) e *= (size_t)dims[d];
  *out = malloc(e * sizeof **out);
  if (!*out) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  memcpy(*out, vta_model_output(m, 0), e * sizeof **out);
  *n = e;
  return VTA_OK;
}

int vta_regress_model_case(const vta_config *cfg, const char *backend, uint64_t seed,
                           vta_error *err) {
  unsigned char *bundle = NULL;
  size_t size = 0, count = 0, ny = 0, nc = 0;
  float *input = NULL, *y = NULL, *yc = NULL;
  char *graph = NULL;
  int n_acc = 0;
  int rc = model_bundle(cfg, seed, &bundle, &size, &input, &count, &graph, &n_acc, err);
  if (rc != VTA_OK) vta_error_prefix(err, "compiling the model of seed %llu", (unsigned long long)seed);
  /* One load (the CPU code JIT-compiled once): the accelerator layers on the diff backend,
   * then every node on the CPU. */
  vta_model *m = rc == VTA_OK ? vta_model_load(bundle, size, err) : NULL;
  if (rc == VTA_OK && !m) rc = VTA_ERR_INVALID;
  if (rc == VTA_OK)
    rc = vta_model_set_backend(m, "diff", backend, err) ? VTA_ERR_INVALID : VTA_OK;
  if (rc == VTA_OK) rc = model_run(m, input, count, &y, &ny, err);
  if (rc == VTA_OK) {
    rc = vta_model_set_backend(m, "cpu", NULL, err) ? VTA_ERR_INVALID : VTA_OK;
    if (rc == VTA_OK) rc = model_run(m, input, count, &yc, &nc, err);
    if (rc != VTA_OK) vta_error_prefix(err, "the same model on the CPU");
  }
  if (m) vta_model_destroy(m);
  if (rc == VTA_OK && nc != ny)
    rc = vta_error_set(err, VTA_ERR_INVALID, "the model's output has %zu elements on the device, %zu on the CPU", ny, nc);
  for (size_t i = 0; rc == VTA_OK && i < ny; i++)
    if (memcmp(&y[i], &yc[i], sizeof y[i]) != 0)
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "output element %zu is %.9g with the accelerator layers on the device "
                         "and %.9g with every node on the CPU",
                         i, (double)y[i], (double)yc[i]);
  if (rc != VTA_OK)
    vta_error_prefix(err, "model seed %llu (%d accelerator layers, %zu-byte bundle)",
                     (unsigned long long)seed, n_acc, size);
  free(bundle);
  free(input);
  free(graph);
  free(y);
  free(yc);
  return rc;
}
