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
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "compiler/compiler.h"


#define BINS 2048
#define KEEP_BYTES ((size_t)256 << 20)

/* One copy of the model that runs samples: its own JIT (the same objects linked again, so its
 * own globals: the kernels' scratch buffer) and its own tensors. */
typedef struct lane {
  vta_kernel_fn *fns;
  vta_cpu_jit *jit;
  void **buf;
  char *owned;
} lane;

#define MAX_LANES 4

typedef struct runner {
  int lanes;
  lane l[MAX_LANES];
} runner;

static void runner_free(const vta_graph *g, runner *r) {
  for (int k = 0; k < MAX_LANES; k++) {
    lane *L = &r->l[k];
    for (int v = 0; L->buf && v < g->n_values; v++)
      if (L->owned[v]) free(L->buf[v]);
    vta_cpu_jit_destroy(L->jit);
    free(L->fns);
    free(L->buf);
    free(L->owned);
  }
  memset(r, 0, sizeof *r);
}

/* Code generation of part of the calibration code, one job of runner_init. */
typedef struct split_job {
  const vta_graph *g;
  int split;           /* job 0 the kernel library, the others node groups */
  unsigned char *only; /* [jobs][n_nodes]: the nodes of each job */
  vta_cpu_code *code;
  vta_error *err;
  int *rc;
} split_job;

static void split_one(void *ctx, int k) {
  split_job *S = ctx;
  size_t n = (size_t)S->g->n_nodes;
  int what = VTA_CODE_OBJECT | VTA_CODE_QUICK;
  if (S->split) what |= k == 0 ? VTA_CODE_KERNELS_ONLY : VTA_CODE_NO_KERNELS;
  S->rc[k] = vta_codegen_llvm_nodes(S->g, NULL, what, S->only + n * (size_t)k, &S->code[k], &S->err[k]);
}

/* Links the compiled code into lane L and gives it tensors. */
static int lane_init(const vta_graph *g, lane *L, int split, int jobs, const vta_cpu_code *code,
                     const unsigned char *only, vta_error *err) {
  size_t n = (size_t)g->n_nodes;
  L->fns = calloc(n + 1, sizeof *L->fns);
  L->buf = calloc((size_t)g->n_values + 1, sizeof *L->buf);
  L->owned = calloc((size_t)g->n_values + 1, 1);
  if (!L->fns || !L->buf || !L->owned) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up calibration");
  for (int v = 0; v < g->n_values; v++) {
    const vta_gvalue *x = &g->values[v];
    if (x->data) {
      L->buf[v] = x->data;
      continue;
    }
    L->buf[v] = calloc(1, vta_value_bytes(x) + 8);
    if (!L->buf[v]) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up calibration");
    L->owned[v] = 1;
  }
  /* The library first (it has no nodes of its own), then the node groups. */
  L->jit = vta_cpu_jit_create_for(&code[0], g, only, split ? NULL : L->fns, err);
  if (!L->jit) return -1;
  for (int k = 1; k < jobs; k++)
    if (vta_cpu_jit_add(L->jit, &code[k], g, only + n * (size_t)k, L->fns, err)) return -1;
  return 0;
}

/* The float graph's kernels, made for a few runs: the lighter optimisation pipeline and, with
 * several threads, compiled side by side as one module of the shared kernels (GEMM, im2col:
 * about half of the compile) beside modules of the nodes that call them, linked in one JIT.
 * The node groups are balanced by a rough cost: convolutions and matrix products weigh more
 * than elementwise nodes. With several threads and samples the code is linked into several
 * lanes, which run samples side by side. */
static int runner_init(const vta_graph *g, int samples, runner *r, vta_error *err) {
  memset(r, 0, sizeof *r);
  int threads = vta_compile_threads(), split = threads > 1 && g->n_nodes >= 8;
  int groups = split ? (threads - 1 > 3 ? 3 : threads - 1) : 1, jobs = groups + split;
  r->lanes = threads < samples ? threads : samples;
  if (r->lanes > MAX_LANES) r->lanes = MAX_LANES;
  if (r->lanes < 1) r->lanes = 1;
  size_t n = (size_t)g->n_nodes;
  unsigned char *only = calloc(n * (size_t)jobs + 1, 1);
  vta_cpu_code *code = calloc((size_t)jobs, sizeof *code);
  vta_error *errs = calloc((size_t)jobs, sizeof *errs);
  int *rc = calloc((size_t)jobs, sizeof *rc);
  if (!only || !code || !errs || !rc) {
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up calibration");
    goto fail;
  }
  int64_t load[3] = {0};
  for (int i = 0; i < g->n_nodes; i++) {
    if (!vta_node_needs_code(g, i)) continue;
    vta_gop op = g->nodes[i].op;
    int w = op == VTA_GOP_CONV || op == VTA_GOP_GEMM || op == VTA_GOP_MATMUL ? 4 : 1;
    int best = 0;
    for (int k = 1; k < groups; k++)
      if (load[k] < load[best]) best = k;
    load[best] += w;
    if (split) only[i] = 1; /* the library sees every node, to know the kernels they call */
    only[n * (size_t)(best + split) + (size_t)i] = 1;
  }
  split_job S = {g, split, only, code, errs, rc};
  vta_parallel_for(jobs, threads, split_one, &S);
  for (int k = 0; k < jobs; k++)
    if (rc[k]) {
      *err = errs[k];
      vta_error_prefix(err, "calibration");
      goto fail;
    }
  for (int k = 0; k < r->lanes; k++)
    if (lane_init(g, &r->l[k], split, jobs, code, only, err)) goto fail;
  for (int k = 0; k < jobs; k++) vta_cpu_code_free(&code[k]);
  free(only);
  free(code);
  free(errs);
  free(rc);
  return 0;
fail:
  for (int k = 0; code && k < jobs; k++) vta_cpu_code_free(&code[k]);
  free(only);
  free(code);
  free(errs);
  free(rc);
  runner_free(g, r);
  return -1;
}

static void runner_run(const vta_graph *g, lane *r, const vta_calib *cal, int s) {
  for (int k = 0; k < g->n_inputs; k++) {
    int v = g->inputs[k];
    memcpy(r->buf[v], cal->samples[(size_t)s * (size_t)cal->n_inputs + (size_t)k],
           vta_value_bytes(&g->values[v]));
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!r->fns[i]) continue;
    /* A node with a kernel has at most VTA_KERNEL_MAX_ARGS args (codegen refuses more). */
    int vals[VTA_KERNEL_MAX_ARGS];
    void *args[VTA_KERNEL_MAX_ARGS];
    int n = vta_kernel_args(g, i, vals, VTA_KERNEL_MAX_ARGS);
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

/* The statistics of the calibration runs (see vta_quant_calibrate). */
typedef struct stats_ctx {
  const vta_graph *g;
  runner *r;
  lane *last;        /* the lane holding the last sample's tensors */
  const vta_calib *cal;
  float *kept;       /* samples 0..n-2: [sample][stride], each tensor at off[v] */
  const size_t *off;
  size_t stride;
  double *top, *hist, **sums;
} stats_ctx;

/* Adds one sample of tensor v to its largest magnitude and channel sums. */
static void stats_range(stats_ctx *S, int v, const float *d) {
  const vta_gvalue *x = &S->g->values[v];
  int64_t n = vta_value_count(x);
  float mx = 0;
  for (int64_t i = 0; i < n; i++) {
    float a = fabsf(d[i]);
    mx = a > mx && a <= FLT_MAX ? a : mx; /* NaN and infinities are not ranges */
  }
  if (mx > S->top[v]) S->top[v] = mx;
  if (S->sums[v]) channel_sums(x, d, S->sums[v]);
}

/* Adds one sample of tensor v to its histogram (bins counted in integers: the same sums
 * without a floating-point add chain per element). */
static void stats_hist(stats_ctx *S, int v, const float *d) {
  if (!(S->top[v] > 0)) return;
  int64_t n = vta_value_count(&S->g->values[v]);
  double *h = S->hist + (size_t)v * BINS, k = BINS / S->top[v];
  uint32_t count[BINS];
  memset(count, 0, sizeof count);
  for (int64_t i = 0; i < n; i++) {
    double a = fabs((double)d[i]) * k;
    if (!(a < BINS)) {
      if (!isfinite(a)) continue;
      a = BINS - 1;
    }
    count[(int)a]++;
  }
  for (int b = 0; b < BINS; b++) h[b] += count[b];
}

/* Lane k runs samples k, k + lanes, ... and keeps a copy of each but the last sample's
 * tensors (which stay in its buffers: it is the last sample the lane runs). */
static void run_lane(void *ctx, int k) {
  stats_ctx *S = ctx;
  const vta_graph *g = S->g;
  lane *L = &S->r->l[k];
  int ns = S->cal->n_samples;
  for (int s = k; s < ns; s += S->r->lanes) {
    runner_run(g, L, S->cal, s);
    for (int v = 0; s < ns - 1 && v < g->n_values; v++)
      if (calibrated(&g->values[v]))
        memcpy((float *)S->kept + S->stride * (size_t)s + S->off[v], L->buf[v], vta_value_bytes(&g->values[v]));
  }
}

/* Every sample of tensor v: ranges and sums, then histograms. */
static void stats_value(void *ctx, int v) {
  stats_ctx *S = ctx;
  if (!calibrated(&S->g->values[v])) return;
  int ns = S->cal->n_samples;
  for (int pass = 0; pass < 2; pass++)
    for (int s = 0; s < ns; s++) {
      const float *d = s < ns - 1 ? S->kept + S->stride * (size_t)s + S->off[v] : S->last->buf[v];
      if (pass == 0)
        stats_range(S, v, d);
      else
        stats_hist(S, v, d);
    }
}

int vta_quant_calibrate(const vta_graph *g, const vta_calib *cal, float *scales, float **means,
                        FILE *log, vta_error *err) {
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
  double t0 = vta_now_ms();
  if (runner_init(g, cal->n_samples, &r, err)) return -1;
  double t1 = vta_now_ms(), t2 = t1;
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
  /* The statistics of a tensor need only its own data over the samples: its largest
   * magnitude and channel sums, then (with that range known) its histogram. The runs keep a
   * copy of every sample's tensors when they fit KEEP_BYTES (the last sample's are still in the
   * model's buffers), and the tensors' statistics are then computed on all threads, each in
   * the same order as one thread would. Otherwise the model runs twice per sample: once for
   * ranges and sums, once for histograms. */
  size_t per_sample = 0;
  size_t *off = calloc((size_t)g->n_values + 1, sizeof *off);
  if (!off) nomem = 1;
  for (int v = 0; off && v < g->n_values; v++)
    if (calibrated(&g->values[v])) {
      off[v] = per_sample / sizeof(float);
      per_sample += vta_value_bytes(&g->values[v]);
    }
  float *kept = NULL;
  int n_kept = cal->n_samples - 1;
  if (per_sample && (size_t)n_kept <= KEEP_BYTES / per_sample)
    kept = n_kept ? malloc(per_sample * (size_t)n_kept) : NULL;
  stats_ctx S = {g, &r, &r.l[(cal->n_samples - 1) % r.lanes], cal, kept, off, per_sample / sizeof(float),
                 top, hist, sums};
  if (!nomem && (n_kept == 0 || kept)) {
    vta_parallel_for(r.lanes, r.lanes, run_lane, &S);
    t2 = vta_now_ms();
    vta_parallel_for(g->n_values, vta_compile_threads(), stats_value, &S);
  } else if (!nomem) {
    S.last = &r.l[0];
    for (int pass = 0; pass < 2; pass++)
      for (int s = 0; s < cal->n_samples; s++) {
        runner_run(g, &r.l[0], cal, s);
        for (int v = 0; v < g->n_values; v++)
          if (calibrated(&g->values[v])) {
            if (pass == 0) stats_range(&S, v, r.l[0].buf[v]);
            else stats_hist(&S, v, r.l[0].buf[v]);
          }
      }
  }
  free(off);
  free(kept);
  if (log)
    fprintf(log, "calibration: float code %.1f ms, %d sample%s on %d lane%s %.1f ms, statistics %.1f ms\n",
            t1 - t0, cal->n_samples, cal->n_samples == 1 ? "" : "s", r.lanes, r.lanes == 1 ? "" : "s",
            t2 - t1, vta_now_ms() - t2);
  if (nomem) {
    for (int v = 0; v < g->n_values; v++) free(sums[v]);
    free(sums);
    free(top);
    free(hist);
    runner_free(g, &r);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in calibration");
  }
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
