/* quant_calib.c - calibration: the range of every float tensor of a model on sample inputs,
 * turned into the int8 scale that loses the least.
 *
 * The design idea: the float graph itself is the instrument. It is compiled with the ordinary
 * CPU code generator (before fusion, so every intermediate tensor exists in memory), run on
 * each sample, and every computed tensor is read after the run. Two sweeps over the samples:
 * the first finds each tensor's largest magnitude, the second fills a 2048-bin histogram of
 * magnitudes up to it. The scale is then the clipping threshold T (scale = T / 127) that
 * minimises the expected squared error of symmetric int8 quantization over that histogram:
 * values above T cost (x - T)^2, values below cost the rounding noise scale^2 / 12. With a
 * few samples the largest magnitude is often a single outlier; clipping it costs less than
 * coarsening every other value, and this search finds the balance (T is searched from 1/16 of
 * the range up, so a tensor is never squashed to a few levels). The first sweep also sums each
 * tensor per channel (axis 1), for the quantizer's bias correction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

#define BINS 2048
#define KEEP_BYTES ((size_t)256 << 20)

typedef struct {
  vta_kernel_fn *fns;
  vta_cpu_jit *jit;
  void **buf;
  char *owned;
} runner;

static void runner_free(const vta_graph *g, runner *r) {
  for (int v = 0; r->buf && v < g->n_values; v++)
    if (r->owned[v]) free(r->buf[v]);
  vta_cpu_jit_destroy(r->jit);
  free(r->fns);
  free(r->buf);
  free(r->owned);
}

static int runner_init(const vta_graph *g, runner *r, vta_error *err) {
  memset(r, 0, sizeof *r);
  vta_cpu_code code;
  if (vta_codegen_llvm_for(g, NULL, VTA_CODE_OBJECT, &code, err)) {
    vta_error_prefix(err, "calibration");
    return -1;
  }
  r->fns = calloc((size_t)g->n_nodes + 1, sizeof *r->fns);
  r->buf = calloc((size_t)g->n_values + 1, sizeof *r->buf);
  r->owned = calloc((size_t)g->n_values + 1, 1);
  if (!r->fns || !r->buf || !r->owned) goto nomem;
  for (int v = 0; v < g->n_values; v++) {
    const vta_gvalue *x = &g->values[v];
    if (x->data) {
      r->buf[v] = x->data;
      continue;
    }
    r->buf[v] = calloc(1, vta_value_bytes(x) + 8);
    if (!r->buf[v]) goto nomem;
    r->owned[v] = 1;
  }
  r->jit = vta_cpu_jit_create(&code, g, r->fns, err);
  vta_cpu_code_free(&code);
  if (!r->jit) {
    runner_free(g, r);
    return -1;
  }
  return 0;
nomem:
  vta_cpu_code_free(&code);
  runner_free(g, r);
  return vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up calibration");
}

static void runner_run(const vta_graph *g, runner *r, const vta_calib *cal, int s) {
  for (int k = 0; k < g->n_inputs; k++) {
    int v = g->inputs[k];
    memcpy(r->buf[v], cal->samples[(size_t)s * (size_t)cal->n_inputs + (size_t)k],
           vta_value_bytes(&g->values[v]));
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!r->fns[i]) continue;
    int vals[64];
    void *args[64];
    int n = vta_kernel_args(g, i, vals);
    for (int k = 0; k < n; k++) args[k] = r->buf[vals[k]];
    r->fns[i](args);
  }
}

/* The threshold minimising the expected squared error over a magnitude histogram. Bins at or
 * above the cut are clipped; with suffix sums of h, h*x and h*x^2 each cut costs O(1). */
static double best_threshold(const double *hist, double top) {
  double width = top / BINS, best_t = top, best_e = INFINITY;
  double s0[BINS + 1], s1[BINS + 1], s2[BINS + 1];
  s0[BINS] = s1[BINS] = s2[BINS] = 0;
  for (int b = BINS - 1; b >= 0; b--) {
    double x = (b + 0.5) * width;
    s0[b] = s0[b + 1] + hist[b];
    s1[b] = s1[b + 1] + hist[b] * x;
    s2[b] = s2[b + 1] + hist[b] * x * x;
  }
  for (int cut = BINS / 16; cut <= BINS; cut++) {
    double t = cut * width, sc = t / 127;
    double e = (s0[0] - s0[cut]) * sc * sc / 12 + s2[cut] - 2 * t * s1[cut] + t * t * s0[cut];
    if (e < best_e) best_e = e, best_t = t;
  }
  return best_t;
}

static int calibrated(const vta_gvalue *v) {
  return v->dtype == VTA_DT_F32 && !v->data && v->rank >= 0 && vta_value_count(v) > 0;
}

/* Adds the sum of each index of axis 1 of value x's elements d into sum. */
static void channel_sums(const vta_gvalue *x, const float *d, double *sum) {
  int64_t outer = x->dims[0], ch = x->dims[1], inner = 1;
  for (int k = 2; k < x->rank; k++) inner *= x->dims[k];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < ch; c++) {
      const float *p = d + (o * ch + c) * inner;
      double s = 0;
      for (int64_t i = 0; i < inner; i++) s += isfinite(p[i]) ? p[i] : 0;
      sum[c] += s;
    }
}

static int has_means(const vta_gvalue *v) { return v->rank >= 2 && v->rank <= 4 && v->dims[1] > 0; }

int vta_quant_calibrate(const vta_graph *g, const vta_calib *cal, float *scales, float **means,
                        vta_error *err) {
  if (!cal || cal->n_samples < 1)
    return vta_error_set(err, VTA_ERR_INVALID, "calibration needs at least one sample input");
  if (cal->n_inputs != g->n_inputs)
    return vta_error_set(err, VTA_ERR_INVALID, "calibration samples have %d inputs; the model has %d",
                         cal->n_inputs, g->n_inputs);
  for (int k = 0; k < g->n_inputs; k++)
    if (g->values[g->inputs[k]].dtype != VTA_DT_F32)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "calibration: input '%s' is %s, not float32",
                           g->values[g->inputs[k]].name, vta_dtype_name(g->values[g->inputs[k]].dtype));
  runner r;
  if (runner_init(g, &r, err)) return -1;
  double *top = calloc((size_t)g->n_values + 1, sizeof *top);
  double *hist = calloc((size_t)g->n_values * BINS + 1, sizeof *hist);
  double **sums = calloc((size_t)g->n_values + 1, sizeof *sums);
  int nomem = !top || !hist || !sums;
  for (int v = 0; !nomem && means && v < g->n_values; v++) {
    means[v] = NULL;
    if (calibrated(&g->values[v]) && has_means(&g->values[v]))
      nomem = !(sums[v] = calloc((size_t)g->values[v].dims[1], sizeof **sums));
  }
  if (nomem) {
    for (int v = 0; sums && v < g->n_values; v++) free(sums[v]);
    free(sums);
    free(top);
    free(hist);
    runner_free(g, &r);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in calibration");
  }
  /* The second sweep reads the tensors the first one kept when they fit KEEP_BYTES (else it
   * runs the model again): the runs are deterministic, so
   * the histograms are the same and the compile skips half of calibration's inference. */
  size_t per_sample = 0;
  for (int v = 0; v < g->n_values; v++)
    if (calibrated(&g->values[v])) per_sample += vta_value_bytes(&g->values[v]);
  float *kept = NULL;
  if (per_sample && (size_t)cal->n_samples <= KEEP_BYTES / per_sample)
    kept = malloc(per_sample * (size_t)cal->n_samples);
  for (int pass = 0; pass < 2; pass++)
    for (int s = 0; s < cal->n_samples; s++) {
      float *at = kept ? kept + per_sample / sizeof *kept * (size_t)s : NULL;
      if (pass == 0 || !kept) runner_run(g, &r, cal, s);
      for (int v = 0; v < g->n_values; v++) {
        const vta_gvalue *x = &g->values[v];
        if (!calibrated(x)) continue;
        int64_t n = vta_value_count(x);
        const float *d = r.buf[v];
        if (at) {
          if (pass == 0) memcpy(at, d, vta_value_bytes(x));
          d = at;
          at += n;
        }
        if (pass == 0) {
          for (int64_t i = 0; i < n; i++)
            if (fabsf(d[i]) > top[v] && isfinite(d[i])) top[v] = fabsf(d[i]);
          if (sums[v]) channel_sums(x, d, sums[v]);
        } else if (top[v] > 0) {
          double *h = hist + (size_t)v * BINS, k = BINS / top[v];
          for (int64_t i = 0; i < n; i++) {
            double a = fabs((double)d[i]) * k;
            if (!isfinite(a)) continue;
            int b = a >= BINS ? BINS - 1 : (int)a;
            h[b]++;
          }
        }
      }
    }
  free(kept);
  for (int v = 0; v < g->n_values; v++) {
    scales[v] = 0;
    if (!calibrated(&g->values[v])) continue;
    /* An all-zero tensor gets a nominal scale: any scale represents it exactly. */
    scales[v] = top[v] > 0 ? (float)(best_threshold(hist + (size_t)v * BINS, top[v]) / 127) : 1.0f / 127;
  }
  for (int v = 0; v < g->n_values; v++) {
    if (!sums[v]) continue;
    const vta_gvalue *x = &g->values[v];
    int64_t ch = x->dims[1], per = vta_value_count(x) / ch * cal->n_samples;
    float *m = malloc(sizeof(float) * (size_t)ch);
    if (!m) {
      for (int u = 0; u < g->n_values; u++) free(sums[u]), free(means[u]), means[u] = NULL;
      free(sums);
      free(top);
      free(hist);
      runner_free(g, &r);
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in calibration");
    }
    for (int64_t c = 0; c < ch; c++) m[c] = (float)(sums[v][c] / (double)per);
    means[v] = m;
    free(sums[v]);
  }
  free(sums);
  free(top);
  free(hist);
  runner_free(g, &r);
  return 0;
}
