/* quant.c - post-training int8 quantization of a float graph.
 *
 * The design idea: int8 is a property of values, decided producer by producer in one walk in
 * node order, and the graph's float values keep their names and meaning. Convolutions and
 * matrix products with constant weights become QConv / QDense (compiler.h, "Quantized
 * operators") producing an int8 version of their output; a Relu or Clip that is their only
 * consumer becomes the clip range of that requantization; residual Adds of int8 tensors become
 * QAdd; max pooling and data movement (Reshape, Transpose, Concat with zero padding, ...) of
 * tensors produced in int8 stay int8 with the same scale. Every other node stays float; where
 * it reads a value that exists only in int8, a DequantizeLinear recreates the float value
 * under its original name, and where an int8 node reads a float value, a QuantizeLinear makes
 * its int8 version (each at most once per value). So the graph stays correct at every step,
 * graph inputs and outputs stay float32, and the CPU path runs the result as it is.
 *
 * The scheme (docs/quantization.md):
 * - activations: symmetric int8, zero point 0, one scale per tensor from calibration
 *   (quant_calib.c);
 * - convolutions with groups = 1 and dilation 1, and matrix products - what the accelerator
 *   runs: a power-of-two weight scale per channel, x_scale * w_scale[c] * 2^k_c = output
 *   scale, so that channel c's requantization is a pure rounding shift by k_c: acc + bias +
 *   2^(k_c-1), SHR k_c, MAX, MIN - the accelerator's ALU epilogue (compiler/accel/vta_lower.h), one
 *   program per distinct k_c - and the weights lose at most one bit of their int8 range to the
 *   power of two. For the accelerator the shifts are shared in groups of BLOCK_OUT channels
 *   (group_shifts) so that programs compute whole channel blocks;
 * - every quantized layer's float bias is corrected for the mean error its rounded weights
 *   make on the calibration inputs (corrected_bias);
 * - grouped and depthwise convolutions (the CPU's): symmetric per-channel weight scales and a
 *   per-channel integer multiplier mul[c] ~ x_scale * w_scale[c] / y_scale * 2^shift, with the
 *   largest shift for which every acc * mul[c] + bias fits int32;
 * - QAdd: each operand times an integer (a_scale / y_scale * 2^shift, at most 2^14), rounding
 *   shift, clip.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

/* An Add whose multipliers were made exact in 7 bits (see plan_add). */
struct add_plan {
  int valid;
  int conv_in;          /* which of the Add's inputs (0, 1) the planning convolution produces */
  double s_conv, s_out; /* the scales chosen for that convolution's output and the Add's */
  double s_other;       /* the other operand's scale the plan assumed */
  int64_t m_conv, m_other, shift;
};

typedef struct {
  vta_graph *g;
  float *scale;     /* calibrated scale per original value */
  float **mean;     /* per original value: calibration mean per channel (axis 1), or NULL */
  int n_orig;       /* values that existed before the rewrite */
  int cap;          /* capacity of the per-value arrays below */
  int *qv;          /* per value: its int8 version, or -1 */
  float *qs;        /* per int8 value: its scale */
  char *qnat;       /* per value: its int8 version comes from an int8 operator */
  char *fdef;       /* per value: the float value is defined in the new graph */
  vta_node *old;
  int n_old;
  char *skip;       /* old nodes absorbed into a quantized producer */
  int *uses;        /* per original value: uses in the old graph (inputs, outputs) */
  int *consumer;    /* per original value: a consuming old node */
  FILE *log;
  int group;        /* vta_quant_opts.channel_group */
  int adds;         /* vta_quant_opts.adds */
  struct add_plan *plan; /* per old node: an Add's exact 7-bit multipliers, if planned */
  int *prod;        /* per original value: the old node producing it, or -1 */
  vta_error *err;
  char namebuf[240]; /* vname's shortened names */
} qctx;

/* ---- building blocks ---- */

static int nomem(qctx *q) { return vta_error_set(q->err, VTA_ERR_NOMEM, "out of memory in quantization"); }

static int new_value(qctx *q, const char *name, vta_dtype t, int rank, const int64_t *dims) {
  if (q->g->n_values >= q->cap) {
    vta_error_set(q->err, VTA_ERR_INVALID, "quantization: more new values than planned");
    return -1;
  }
  int v = vta_graph_add_value(q->g, name, t);
  if (v < 0) {
    nomem(q);
    return -1;
  }
  vta_gvalue *x = &q->g->values[v];
  x->rank = rank;
  for (int d = 0; d < rank; d++) x->dims[d] = dims[d];
  q->qv[v] = -1;
  q->fdef[v] = 0;
  q->qnat[v] = 0;
  return v;
}

/* A constant of type t and shape dims with zeroed data; returns its index or -1. */
static int new_const(qctx *q, const char *name, vta_dtype t, int rank, const int64_t *dims) {
  int v = new_value(q, name, t, rank, dims);
  if (v < 0) return -1;
  if (vta_value_set_const(&q->g->values[v], t, rank, dims)) {
    nomem(q);
    return -1;
  }
  q->fdef[v] = 1;
  return v;
}

static int emit(qctx *q, vta_gop op, const char *name, int n_in, const int *in, int out) {
  int i = vta_graph_add_node(q->g, op, name, n_in, in, 1, &out);
  if (i < 0) nomem(q);
  return i;
}

/* The base of a derived value's name ("<base>:q", "dequantize <base>"): the value's own
 * name, or, for names too long for the 300-character buffers they are formatted into (tf2onnx
 * exports join every fused layer's name), its first 200 characters and the value's index, so
 * that two long names sharing a prefix still give different derived names. */
static const char *vname(qctx *q, int v) {
  const char *n = q->g->values[v].name;
  if (strlen(n) <= 200) return n;
  snprintf(q->namebuf, sizeof q->namebuf, "%.200s~%d", n, v);
  return q->namebuf;
}

/* The scale and zero-point constants of a QuantizeLinear / DequantizeLinear. */
static int qdq_params(qctx *q, float s, int *sv, int *zv) {
  char nm[64];
  snprintf(nm, sizeof nm, "q.scale.%d", q->g->n_values);
  *sv = new_const(q, nm, VTA_DT_F32, 0, NULL);
  if (*sv < 0) return -1;
  *(float *)q->g->values[*sv].data = s;
  snprintf(nm, sizeof nm, "q.zero.%d", q->g->n_values);
  *zv = new_const(q, nm, VTA_DT_I8, 0, NULL);
  return *zv < 0 ? -1 : 0;
}

/* The float version of value v (a DequantizeLinear of its int8 version if needed). */
static int need_f(qctx *q, int v) {
  if (q->fdef[v]) return v;
  if (q->qv[v] < 0) {
    vta_error_set(q->err, VTA_ERR_INVALID, "quantization: value '%s' is used before it is defined",
                  vname(q, v));
    return -1;
  }
  int sv, zv;
  if (qdq_params(q, q->qs[q->qv[v]], &sv, &zv)) return -1;
  char nm[300];
  snprintf(nm, sizeof nm, "dequantize %s", vname(q, v));
  int in[3] = {q->qv[v], sv, zv};
  if (emit(q, VTA_GOP_DEQUANTIZE_LINEAR, nm, 3, in, v) < 0) return -1;
  q->fdef[v] = 1;
  return v;
}

/* The int8 version of value v: -1 when v cannot be quantized (a constant, or never seen by
 * calibration), -2 on error. */
static int need_q(qctx *q, int v) {
  if (q->qv[v] >= 0) return q->qv[v];
  if (v >= q->n_orig || !(q->scale[v] > 0) || q->g->values[v].data || !q->fdef[v]) return -1;
  int sv, zv;
  if (qdq_params(q, q->scale[v], &sv, &zv)) return -2;
  char nm[300];
  snprintf(nm, sizeof nm, "%s:q", vname(q, v));
  vta_gvalue x = q->g->values[v];
  int o = new_value(q, nm, VTA_DT_I8, x.rank, x.dims);
  if (o < 0) return -2;
  snprintf(nm, sizeof nm, "quantize %s", vname(q, v));
  int in[3] = {v, sv, zv};
  if (emit(q, VTA_GOP_QUANTIZE_LINEAR, nm, 3, in, o) < 0) return -2;
  q->qv[v] = o;
  q->qs[o] = q->scale[v];
  return o;
}

/* Creates the int8 version of float value v (produced by an int8 operator) with scale s. */
static int new_q_of(qctx *q, int v, float s) {
  char nm[300];
  snprintf(nm, sizeof nm, "%s:q", vname(q, v));
  vta_gvalue x = q->g->values[v];
  int o = new_value(q, nm, VTA_DT_I8, x.rank, x.dims);
  if (o < 0) return -1;
  q->qv[v] = o;
  q->qs[o] = s;
  q->qnat[v] = 1;
  return o;
}

/* The scalar of a constant float operand that broadcasts to nothing larger than a value of
 * rank r (a Max/Min bound), in *c; 0 when v is not one (or not finite). */
static int scalar_const(const vta_graph *g, int v, int r, float *c) {
  if (v < 0 || !g->values[v].data || g->values[v].dtype != VTA_DT_F32 ||
      vta_value_count(&g->values[v]) != 1 || g->values[v].rank > r)
    return 0;
  *c = *(const float *)g->values[v].data;
  return isfinite(*c);
}

/* The old node that is value y's only use when it is an activation the requantization's clip
 * can absorb - Relu, Clip, or Max / Min of y and a constant scalar (two inputs) - else -1. */
static int activation_of(const qctx *q, int y) {
  if (q->g->values[y].is_output || q->uses[y] != 1) return -1;
  int j = q->consumer[y];
  const vta_node *a = &q->old[j];
  if (a->n_epi || a->n_out != 1) return -1;
  if (a->n_in == 1) return a->op == VTA_GOP_RELU || a->op == VTA_GOP_CLIP ? j : -1;
  float c;
  int r = q->g->values[y].rank;
  if ((a->op == VTA_GOP_MAX || a->op == VTA_GOP_MIN) && a->n_in == 2 &&
      ((a->in[0] == y && scalar_const(q->g, a->in[1], r, &c)) ||
       (a->in[1] == y && scalar_const(q->g, a->in[0], r, &c))))
    return j;
  return -1;
}

/* The value at the end of the chain of absorbable activations that starts at y (y itself when
 * there is none). */
enum { ACT_CHAIN_MAX = 16 };
static int activation_end(const qctx *q, int y) {
  for (int k = 0, j; k < ACT_CHAIN_MAX && (j = activation_of(q, y)) >= 0; k++) y = q->old[j].out[0];
  return y;
}

/* Absorbs the chain of activations after y (Relu, Clip, Max / Min with a constant, each the
 * previous one's only use): *out becomes the chain's last value and [*lo, *hi] the one clamp
 * the chain amounts to. Composition: after clamp(x, lo, hi), Max(c) is clamp(x, max(lo, c),
 * max(hi, c)) and Min(c) is clamp(x, min(lo, c), min(hi, c)); Relu is Max(0) and Clip(a, b) is
 * Max(a) then Min(b). Exact in int8 because quantization (rounding, then clipping to int8) is
 * monotone, so it commutes with Max and Min: q(max(v, c)) = max(q(v), q(c)). */
static void absorb_activation(qctx *q, int y, int *out, float *lo, float *hi, int mark) {
  *out = y;
  *lo = -INFINITY;
  *hi = INFINITY;
  for (int k = 0, j; k < ACT_CHAIN_MAX && (j = activation_of(q, *out)) >= 0; k++) {
    const vta_node *a = &q->old[j];
    float c;
    if (a->op == VTA_GOP_RELU) {
      *lo = fmaxf(*lo, 0), *hi = fmaxf(*hi, 0);
    } else if (a->op == VTA_GOP_CLIP) {
      float mn = vta_node_float(a, "min", -INFINITY), mx = vta_node_float(a, "max", INFINITY);
      *lo = fmaxf(*lo, mn), *hi = fmaxf(*hi, mn);
      *lo = fminf(*lo, mx), *hi = fminf(*hi, mx);
    } else {
      scalar_const(q->g, a->in[a->in[0] == *out ? 1 : 0], q->g->values[*out].rank, &c);
      if (a->op == VTA_GOP_MAX)
        *lo = fmaxf(*lo, c), *hi = fmaxf(*hi, c);
      else
        *lo = fminf(*lo, c), *hi = fminf(*hi, c);
    }
    if (mark) q->skip[j] = 1;
    *out = a->out[0];
  }
}

/* The LeakyRelu (old node) that value y's only use is, with its slope in (0, 1) in *alpha, or
 * -1. */
static int leaky_of(const qctx *q, int y, double *alpha) {
  if (y >= q->n_orig || q->g->values[y].is_output || q->uses[y] != 1) return -1;
  int j = q->consumer[y];
  const vta_node *a = &q->old[j];
  if (a->op != VTA_GOP_LEAKY_RELU || a->n_epi || a->n_in != 1 || a->n_out != 1) return -1;
  *alpha = vta_node_float(a, "alpha", 0.01f);
  return *alpha > 0 && *alpha < 1 ? j : -1;
}

static int64_t clamp64(double x, int64_t lo, int64_t hi) {
  if (!(x >= (double)lo)) return lo; /* NaN too */
  if (x > (double)hi) return hi;
  return (int64_t)x;
}

/* nearbyint and fmax(m, fabs(x)) for the per-weight loops, with the same results: a libm call
 * per weight was a third of the pass on ResNet-18's 11.7M weights. Rounding to nearest, ties
 * to even (the default mode nearbyint uses) by the 1.5 * 2^52 addition, exact for |x| < 2^51;
 * NaN never passes a comparison, as fmax ignores it. */
static inline double round_even(double x) {
  return fabs(x) < 0x1p51 ? (x + 0x1.8p52) - 0x1.8p52 : nearbyint(x);
}
static inline double max_abs(double m, double x) {
  double a = fabs(x);
  return a > m ? a : m;
}

/* The int8 clip range of [lo, hi] at output scale s. */
static void clip_range(float lo, float hi, double s, int64_t *qlo, int64_t *qhi) {
  *qlo = lo > -INFINITY ? clamp64(nearbyint(lo / s), -128, 127) : -128;
  *qhi = hi < INFINITY ? clamp64(nearbyint(hi / s), -128, 127) : 127;
  if (*qlo > *qhi) *qlo = *qhi;
}

/* ---- weights and requantization ---- */

typedef struct {
  int64_t m, k;          /* output channels, weights per output channel */
  const float *w;        /* [m][k] */
  const float *b;        /* [m] or NULL */
  double sx, sy;         /* input and (calibrated) output scales */
  int per_channel;       /* CPU form with a multiplier per channel */
  int pow2;              /* accelerator form with a power-of-two weight scale per channel */
  int group;             /* pow2: channels share shifts in groups of this many (0, 1: none) */
  const float *xmean;    /* per input channel: its calibration mean, or NULL (no bias correction) */
  int64_t taps, groups;  /* kernel taps per input channel, convolution groups */
  /* results */
  int8_t *wq;
  int32_t *bq;
  int64_t *mul;          /* per_channel only */
  int shift;
  double sy_eff;         /* the output scale actually represented */
  double sw;             /* the layer's weight scale (accelerator form) */
  int leaky_k, leaky_m;  /* a folded LeakyRelu's slope m / 2^k (fold_leaky), k 0: none */
} qlayer;

/* Makes the per-channel shifts k[0..m) (-1: an all-zero channel, any shift) share values in
 * groups of `group` channels, so that each distinct shift - one accelerator program of a dense
 * layer - covers whole blocks of output channels instead of a few channels padded to a block
 * (a convolution is one program whatever its shifts: its epilogue shifts channel by channel). Channels are
 * ranked by their shift, largest first; each run of `group` in that order takes the smallest
 * shift among its members (a channel keeps or loses precision: its weights never overflow). Only
 * the channels of a run that straddles two shifts lose a bit, at most group - 1 per boundary. */
static void group_shifts(int *k, int64_t m, int group) {
  int64_t order[4096];
  for (int64_t c = 0; c < m; c++) order[c] = c;
  /* Insertion sort by shift, descending (all-zero channels first: they adopt any shift);
   * stable, so channels keep their order within a shift. At most 4096 channels. */
  for (int64_t i = 1; i < m; i++) {
    int64_t c = order[i], j = i;
    int kc = k[c] < 0 ? 99 : k[c];
    while (j > 0 && (k[order[j - 1]] < 0 ? 99 : k[order[j - 1]]) < kc) order[j] = order[j - 1], j--;
    order[j] = c;
  }
  for (int64_t g0 = 0; g0 < m; g0 += group) {
    int64_t g1 = g0 + group < m ? g0 + group : m;
    int lo = -1;
    for (int64_t i = g0; i < g1; i++)
      if (k[order[i]] >= 0 && (lo < 0 || k[order[i]] < lo)) lo = k[order[i]];
    for (int64_t i = g0; i < g1 && lo >= 0; i++) k[order[i]] = lo;
  }
}

/* Channel c's float bias, corrected for the mean error its quantized weights (wq * sw, already
 * in L->wq) make on inputs with the calibration means: b - sum_i (wq_i * sw - w_i) * E[x_i]
 * (empirical bias correction, Nagel et al. 2019). A rounding error common to a channel's
 * weights would otherwise shift every output of the channel the same way, which the per-tensor
 * activation scale cannot absorb; with the correction only its variance is left. */
static double corrected_bias(const qlayer *L, int64_t c, double sw) {
  double b = L->b ? L->b[c] : 0;
  if (!L->xmean) return b;
  int64_t cin_g = L->k / (L->taps ? L->taps : 1), g = c / (L->m / (L->groups ? L->groups : 1));
  double delta = 0;
  for (int64_t i = 0; i < L->k; i++)
    delta += ((double)L->wq[c * L->k + i] * sw - L->w[c * L->k + i]) * L->xmean[g * cin_g + i / L->taps];
  return b - delta;
}

static int quantize_layer(qctx *q, qlayer *L) {
  L->wq = malloc((size_t)(L->m * L->k) + 1);
  L->bq = malloc(sizeof(int32_t) * (size_t)L->m + 4);
  L->mul = L->per_channel || L->pow2 ? malloc(sizeof(int64_t) * (size_t)L->m + 8) : NULL;
  if (!L->wq || !L->bq || ((L->per_channel || L->pow2) && !L->mul)) return nomem(q);
  if (L->pow2) {
    /* Channel c: the largest shift k_c whose weight scale sy / (sx * 2^k_c) holds its weights;
     * S = max k_c, mul[c] = 2^(S - k_c) and the bias a multiple of it, so that
     * (acc * mul[c] + bias + 2^(S-1)) >> S == (acc + bias / mul[c] + 2^(k_c-1)) >> k_c: one
     * accelerator program per distinct k_c runs it with the ALU's shift epilogue. */
    int k[4096], S = 0;
    if (L->m > 4096) return 1;
    for (int64_t c = 0; c < L->m; c++) {
      double maxw = 0;
      for (int64_t i = 0; i < L->k; i++) maxw = max_abs(maxw, L->w[c * L->k + i]);
      double r = maxw > 0 ? L->sy * 127 / (L->sx * maxw) : 0;
      if (maxw > 0 && r < 1) return 1; /* would need a left shift: the caller falls back */
      k[c] = maxw > 0 ? (int)floor(log2(r)) : -1;
      if (k[c] > 24) k[c] = 24;
      if (k[c] > S) S = k[c];
    }
    if (L->group > 1) group_shifts(k, L->m, L->group);
    for (int64_t c = 0; c < L->m; c++) {
      if (k[c] < 0) k[c] = S; /* an all-zero channel: any shift */
      double sw = L->sy / (L->sx * ldexp(1, k[c]));
      for (int64_t i = 0; i < L->k; i++)
        L->wq[c * L->k + i] = (int8_t)clamp64(round_even(L->w[c * L->k + i] / sw), -127, 127);
      double bq = nearbyint(corrected_bias(L, c, sw) / (L->sx * sw)) * ldexp(1, S - k[c]);
      if (fabs(bq) > (double)(1 << 30)) return 1;
      L->bq[c] = (int32_t)bq;
      L->mul[c] = (int64_t)1 << (S - k[c]);
    }
    L->shift = S;
    L->sy_eff = L->sy;
    L->sw = 0;
    int all_one = 1;
    for (int64_t c = 0; c < L->m; c++) all_one &= L->mul[c] == 1;
    if (all_one) {
      free(L->mul);
      L->mul = NULL;
    }
    return 0;
  }
  if (!L->per_channel) {
    double maxw = 0;
    for (int64_t i = 0; i < L->m * L->k; i++) maxw = max_abs(maxw, L->w[i]);
    /* The largest shift whose weight scale sy / (sx * 2^shift) still holds the weights. */
    int shift = maxw > 0 ? (int)floor(log2(L->sy * 127 / (L->sx * maxw))) : 0;
    shift = shift < 0 ? 0 : shift > 24 ? 24 : shift;
    double sw = L->sy / (L->sx * ldexp(1, shift));
    if (maxw > 0 && sw < maxw / 127) sw = maxw / 127; /* shift clamped at 0: output scale grows */
    if (!(sw > 0)) sw = 1;
    L->shift = shift;
    L->sw = sw;
    L->sy_eff = L->sx * sw * ldexp(1, shift);
    for (int64_t i = 0; i < L->m * L->k; i++) L->wq[i] = (int8_t)clamp64(round_even(L->w[i] / sw), -127, 127);
    for (int64_t c = 0; c < L->m; c++)
      L->bq[c] = (int32_t)clamp64(nearbyint(corrected_bias(L, c, sw) / (L->sx * sw)), -(1ll << 30), 1ll << 30);
    return 0;
  }
  /* Per channel: weight scale max|w_c| / 127, multiplier ~ sx * sw_c / sy * 2^shift. */
  double mreal_max = 0, accmax = 0;
  double *sw = malloc(sizeof(double) * (size_t)L->m + 8);
  if (!sw) return nomem(q);
  for (int64_t c = 0; c < L->m; c++) {
    double maxw = 0, sum = 0;
    for (int64_t i = 0; i < L->k; i++) maxw = max_abs(maxw, L->w[c * L->k + i]);
    sw[c] = maxw > 0 ? maxw / 127 : 1;
    for (int64_t i = 0; i < L->k; i++) {
      int8_t v = (int8_t)clamp64(round_even(L->w[c * L->k + i] / sw[c]), -127, 127);
      L->wq[c * L->k + i] = v;
      sum += abs(v);
    }
    accmax = fmax(accmax, 128 * sum);
    mreal_max = fmax(mreal_max, L->sx * sw[c] / L->sy);
  }
  /* Multipliers below 2^15, and every acc * mul + bias + rounding inside int32. */
  int shift = mreal_max > 0 ? (int)floor(log2(32767 / mreal_max)) : 0;
  if (shift > 31) shift = 31;
  for (; shift > 0; shift--) {
    double mm = nearbyint(mreal_max * ldexp(1, shift)), bmax = 0;
    for (int64_t c = 0; c < L->m; c++)
      bmax = fmax(bmax, fabs((L->b ? L->b[c] : 0) * ldexp(1, shift) / L->sy));
    if (accmax * mm + bmax + ldexp(1, shift) < 2147483647.0) break;
  }
  L->shift = shift < 0 ? 0 : shift;
  L->sy_eff = L->sy;
  L->sw = 0;
  for (int64_t c = 0; c < L->m; c++) {
    L->mul[c] = clamp64(nearbyint(L->sx * sw[c] / L->sy * ldexp(1, L->shift)), -2147483647ll, 2147483647ll);
    L->bq[c] = (int32_t)clamp64(nearbyint(corrected_bias(L, c, sw[c]) * ldexp(1, L->shift) / L->sy),
                                -(1ll << 30), 1ll << 30);
  }
  free(sw);
  return 0;
}

static void layer_free(qlayer *L) {
  free(L->wq);
  free(L->bq);
  free(L->mul);
}

/* quantize_layer in the form L asks for; when the power-of-two form does not fit (a channel
 * would need a left shift), one weight scale for the layer. */
static int quantize_or_fall_back(qctx *q, qlayer *L) {
  int rc = quantize_layer(q, L);
  if (rc > 0) {
    layer_free(L);
    L->pow2 = 0;
    L->wq = NULL, L->bq = NULL, L->mul = NULL;
    rc = quantize_layer(q, L);
  }
  return rc;
}

/* Emits QConv / QDense for layer L reading xq, producing the int8 version of y. */
static int emit_layer(qctx *q, const vta_node *nd, vta_gop op, qlayer *L, int xq, int y, float lo,
                      float hi, const int64_t *wdims, int wrank) {
  char nm[300];
  snprintf(nm, sizeof nm, "%s:w", vname(q, y));
  int wv = new_const(q, nm, VTA_DT_I8, wrank, wdims);
  if (wv < 0) return -1;
  memcpy(q->g->values[wv].data, L->wq, (size_t)(L->m * L->k));
  snprintf(nm, sizeof nm, "%s:b", vname(q, y));
  int bv = new_const(q, nm, VTA_DT_I32, 1, &L->m);
  if (bv < 0) return -1;
  memcpy(q->g->values[bv].data, L->bq, sizeof(int32_t) * (size_t)L->m);
  int mv = -1;
  if (L->mul) {
    snprintf(nm, sizeof nm, "%s:m", vname(q, y));
    if ((mv = new_const(q, nm, VTA_DT_I32, 1, &L->m)) < 0) return -1;
    for (int64_t c = 0; c < L->m; c++) ((int32_t *)q->g->values[mv].data)[c] = (int32_t)L->mul[c];
  }
  int o = new_q_of(q, y, (float)L->sy_eff);
  if (o < 0) return -1;
  int in[4] = {xq, wv, bv, mv};
  int i = emit(q, op, nd->name, mv >= 0 ? 4 : 3, in, o);
  if (i < 0) return -1;
  vta_node *n = &q->g->nodes[i];
  if (op == VTA_GOP_QCONV) {
    static const char *const keep[] = {"kernel_shape", "strides", "pads", "dilations", "group"};
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) {
      const vta_attr *a = vta_node_attr(nd, keep[k]);
      if (!a) continue;
      if ((a->kind == VTA_ATTR_INTS && vta_attrs_set_ints(&n->n_attrs, &n->attrs, a->name, a->n, a->ints)) ||
          (a->kind == VTA_ATTR_INT && vta_attrs_set_int(&n->n_attrs, &n->attrs, a->name, a->i)))
        return nomem(q);
    }
  }
  int64_t qlo, qhi;
  clip_range(lo, hi, L->sy_eff, &qlo, &qhi);
  if (vta_attrs_set_int(&n->n_attrs, &n->attrs, "shift", L->shift) ||
      vta_attrs_set_int(&n->n_attrs, &n->attrs, "lo", qlo) ||
      vta_attrs_set_int(&n->n_attrs, &n->attrs, "hi", qhi) ||
      (L->leaky_k && (vta_attrs_set_int(&n->n_attrs, &n->attrs, "leaky_k", L->leaky_k) ||
                      vta_attrs_set_int(&n->n_attrs, &n->attrs, "leaky_m", L->leaky_m))))
    return nomem(q);
  if (q->log)
    fprintf(q->log, "quantize %s '%s': x scale %.4g, %s, output scale %.4g, shift %d, clip [%lld, %lld]%s\n",
            vta_op_name(op), nd->name, L->sx,
            L->pow2 ? "per-channel power-of-two weight scales (accelerator form)"
            : L->mul ? "per-channel weights and multipliers" : "one weight scale (accelerator form)",
            L->sy_eff, L->shift, (long long)qlo, (long long)qhi, L->leaky_k ? ", LeakyRelu folded" : "");
  return 0;
}

/* Does value v reach only graph outputs, through data movement, Softmax, Sigmoid and constant
 * bias Adds? Such a layer's output is the model's answer (scores, box offsets, logits): it is
 * produced in float from the int32 sums, not rounded to int8 first. */
static int feeds_output(qctx *q, int v, int depth) {
  if (depth > 16) return 0;
  if (q->g->values[v].is_output) return 1;
  int any = 0;
  for (int i = 0; i < q->n_old; i++) {
    const vta_node *nd = &q->old[i];
    int reads = 0;
    for (int k = 0; k < nd->n_in; k++) reads |= nd->in[k] == v;
    if (!reads) continue;
    any = 1;
    switch (nd->op) {
    case VTA_GOP_TRANSPOSE: case VTA_GOP_RESHAPE: case VTA_GOP_FLATTEN: case VTA_GOP_SQUEEZE:
    case VTA_GOP_UNSQUEEZE: case VTA_GOP_IDENTITY: case VTA_GOP_SOFTMAX: case VTA_GOP_SIGMOID:
    case VTA_GOP_CONCAT:
      break;
    case VTA_GOP_ADD: {
      int other = nd->in[0] == v ? nd->in[1] : nd->in[0];
      if (other < 0 || !q->g->values[other].data) return 0;
      break;
    }
    default:
      return 0;
    }
    if (nd->n_out != 1 || !feeds_output(q, nd->out[0], depth + 1)) return 0;
  }
  return any;
}

/* Emits an output layer: ConvInteger / MatMulInteger of xq with per-channel int8 weights, then
 * DequantizeLinear of the int32 sums with the per-channel scales x_scale * w_scale[c], then the
 * float bias: y = sum * x_scale * w_scale[c] + b[c]. wdims: the int8 weights' shape (for
 * MatMulInteger [K, N]); axis: the output's channel axis. */
static int emit_float_output(qctx *q, const vta_node *nd, int xq, int y, const float *w, const float *b,
                             int64_t m, int64_t k, const int64_t *wdims, int wrank, int dense) {
  vta_graph *g = q->g;
  char nm[300];
  snprintf(nm, sizeof nm, "%s:w", vname(q, y));
  int wv = new_const(q, nm, VTA_DT_I8, wrank, wdims);
  snprintf(nm, sizeof nm, "%s:s", vname(q, y));
  int sv = wv < 0 ? -1 : new_const(q, nm, VTA_DT_F32, 1, &m);
  snprintf(nm, sizeof nm, "%s:z", vname(q, y));
  int zv = sv < 0 ? -1 : new_const(q, nm, VTA_DT_I32, 1, &m);
  if (zv < 0) return -1;
  int8_t *wq = g->values[wv].data;
  float *sc = g->values[sv].data;
  for (int64_t c = 0; c < m; c++) {
    double maxw = 0;
    for (int64_t i = 0; i < k; i++) maxw = max_abs(maxw, w[c * k + i]);
    double sw = maxw > 0 ? maxw / 127 : 1;
    sc[c] = (float)(q->qs[xq] * sw);
    for (int64_t i = 0; i < k; i++) {
      int8_t v = (int8_t)clamp64(round_even(w[c * k + i] / sw), -127, 127);
      if (dense)
        wq[i * m + c] = v; /* MatMulInteger's B is [K, N] */
      else
        wq[c * k + i] = v;
    }
  }
  vta_gvalue yv = g->values[y];
  snprintf(nm, sizeof nm, "%s:acc", vname(q, y));
  int acc = new_value(q, nm, VTA_DT_I32, yv.rank, yv.dims);
  if (acc < 0) return -1;
  int in2[2] = {xq, wv};
  int i = emit(q, dense ? VTA_GOP_MATMUL_INTEGER : VTA_GOP_CONV_INTEGER, nd->name, 2, in2, acc);
  if (i < 0) return -1;
  if (!dense) {
    vta_node *n = &g->nodes[i];
    static const char *const keep[] = {"kernel_shape", "strides", "pads", "dilations", "group"};
    for (size_t a = 0; a < sizeof keep / sizeof keep[0]; a++) {
      const vta_attr *at = vta_node_attr(nd, keep[a]);
      if (!at) continue;
      if ((at->kind == VTA_ATTR_INTS && vta_attrs_set_ints(&n->n_attrs, &n->attrs, at->name, at->n, at->ints)) ||
          (at->kind == VTA_ATTR_INT && vta_attrs_set_int(&n->n_attrs, &n->attrs, at->name, at->i)))
        return nomem(q);
    }
  }
  int dq_out = y;
  if (b) {
    snprintf(nm, sizeof nm, "%s:nobias", vname(q, y));
    if ((dq_out = new_value(q, nm, VTA_DT_F32, yv.rank, yv.dims)) < 0) return -1;
  }
  snprintf(nm, sizeof nm, "dequantize %s", vname(q, y));
  int in3[3] = {acc, sv, zv};
  if ((i = emit(q, VTA_GOP_DEQUANTIZE_LINEAR, nm, 3, in3, dq_out)) < 0) return -1;
  if (vta_attrs_set_int(&g->nodes[i].n_attrs, &g->nodes[i].attrs, "axis", dense ? yv.rank - 1 : 1))
    return nomem(q);
  q->fdef[dq_out] = 1;
  if (b) {
    /* The bias broadcasts along the channel axis: [m, 1, 1] for NCHW, [m] for rows. */
    int64_t bd[3] = {m, 1, 1};
    snprintf(nm, sizeof nm, "%s:bias", vname(q, y));
    int bv = new_const(q, nm, VTA_DT_F32, dense ? 1 : yv.rank - 1, bd);
    if (bv < 0) return -1;
    memcpy(g->values[bv].data, b, sizeof(float) * (size_t)m);
    int in4[2] = {dq_out, bv};
    if (emit(q, VTA_GOP_ADD, nd->name, 2, in4, y) < 0) return -1;
  }
  q->fdef[y] = 1;
  if (q->log)
    fprintf(q->log, "quantize %s '%s': output layer, int32 sums dequantized with per-channel scales\n",
            vta_op_name(nd->op), nd->name);
  return 1;
}

/* ---- the operators ---- */

/* ---- exact residual adds (VTA_ADDS_EXACT) ---- */

#define PLAN_COARSER 1.03


/* A single-input operator that moves int8 data unchanged or takes maxima: its output keeps
 * the input's scale (try_passthrough; Concat, of several inputs, is handled there). */
static int keeps_scale(const vta_node *nd) {
  switch (nd->op) {
  case VTA_GOP_MAXPOOL: case VTA_GOP_GLOBAL_MAXPOOL: case VTA_GOP_RESHAPE: case VTA_GOP_FLATTEN:
  case VTA_GOP_SQUEEZE: case VTA_GOP_UNSQUEEZE: case VTA_GOP_IDENTITY: case VTA_GOP_TRANSPOSE:
  case VTA_GOP_SLICE:
    return 1;
  case VTA_GOP_PAD:
    return strcmp(vta_node_string(nd, "mode", "constant"), "constant") == 0 &&
           vta_node_float(nd, "value", 0) == 0;
  default:
    return 0;
  }
}

/* The int8 scale value v has or will have: its int8 version's, else that of the input of the
 * chain of scale-keeping operators producing it, else its calibrated scale (how need_q would
 * quantize it); 0 if unknown. A guess for values not quantized yet: try_add checks it. */
static double future_scale(const qctx *q, int v, int depth) {
  if (v < 0 || v >= q->n_orig || depth > 32) return 0;
  if (q->qv[v] >= 0) return q->qs[q->qv[v]];
  int j = q->prod[v];
  if (j >= 0 && keeps_scale(&q->old[j]) && q->old[j].n_in >= 1)
    return future_scale(q, q->old[j].in[0], depth + 1);
  return q->scale[v] > 0 ? q->scale[v] : 0;
}

/* A convolution about to be quantized whose output y (calibrated scale *sy) is used only by an
 * Add whose other operand's scale sb is known: picks the largest shift s such that the Add's
 * output scale so = sb * 2^s / mb (mb <= 127, so near its calibrated scale) and this output's
 * scale sa = so * ma / 2^s (ma <= 127, sa near *sy) make both multipliers ma = sa / so * 2^s and
 * mb = sb / so * 2^s exact integers; both scales move by at most PLAN_COARSER - 1 (3%) from
 * their calibrated values (nearest multipliers: rounding up every scale measured worse on
 * BlazeFace), else there is no plan. Sets *sy to sa. */
static void plan_add(qctx *q, int y, double *sy) {
  if (q->adds != VTA_ADDS_EXACT || y >= q->n_orig || q->uses[y] != 1 || q->g->values[y].is_output) return;
  int j = q->consumer[y];
  const vta_node *ad = &q->old[j];
  if (ad->op != VTA_GOP_ADD || ad->n_epi || ad->n_in != 2 || ad->in[0] == ad->in[1]) return;
  int me = ad->in[0] == y ? 0 : 1, other = ad->in[!me];
  /* the add's output scale is its activations' */
  double sb = future_scale(q, other, 0), soc = q->scale[activation_end(q, ad->out[0])];
  if (!(sb > 0) || !(soc > 0) || !(*sy > 0)) return;
  for (int sh = 24; sh >= 0; sh--) {
    double mbf = nearbyint(sb * ldexp(1, sh) / soc);
    if (mbf > 127) continue;
    if (mbf < 1) return;
    double so = sb * ldexp(1, sh) / mbf, maf = nearbyint(*sy * ldexp(1, sh) / so);
    if (maf > 127) continue;
    if (maf < 1) maf = 1;
    if (fabs(so / soc - 1) > PLAN_COARSER - 1 || fabs(so * maf / ldexp(1, sh) / *sy - 1) > PLAN_COARSER - 1) return;
    struct add_plan *P = &q->plan[j];
    *P = (struct add_plan){1, me, so * maf / ldexp(1, sh), so, sb, (int64_t)maf, (int64_t)mbf, sh};
    *sy = P->s_conv;
    return;
  }
}

static int const_f32(const vta_graph *g, int v) {
  return v >= 0 && g->values[v].data && g->values[v].dtype == VTA_DT_F32;
}

/* ---- a LeakyRelu folded into the layer before it ---- */

/* The activations after a layer's output v. With a LeakyRelu as v's only use, whose chain of
 * activations after it (absorb_activation) ends in a calibrated value: that chain, only looked
 * at (fold_leaky absorbs it or not), and the LeakyRelu is returned. Else the chain after v,
 * absorbed, and -1. */
static int leaky_start(qctx *q, int v, double *alpha, int *y, float *lo, float *hi) {
  int lk = leaky_of(q, v, alpha);
  if (lk >= 0) {
    absorb_activation(q, q->old[lk].out[0], y, lo, hi, 0);
    if (q->scale[*y] > 0) return lk;
  }
  absorb_activation(q, v, y, lo, hi, 1);
  return -1;
}

/* The slope m / 2^k of a LeakyRelu of slope alpha folded into quantized layer L, whose output is
 * then clipped to [lo, hi] (float): sets L->leaky_k and L->leaky_m, or returns 0 when no k fits.
 * Chosen as the largest k such that
 * - nothing overflows int32 (the accelerator's accumulators, and the CPU's int32 form): for
 *   every channel c, |y| * 2^k + 2^(s_c + k - 1) < 2^31 for every input, with |y| at most
 *   128 * sum |w_c| + |bias_c| (the bias in the accelerator's units, bias_c / mul_c, and s_c the
 *   channel's shift there); shift + k <= 31 and m <= 32767 (an ALU immediate);
 * - the result is exact within the rounding: m = round(alpha * 2^k) moves no output that the
 *   clip keeps (negative ones down to the clip's int8 lower bound qlo) by more than half a step
 *   before the rounding, |alpha - m / 2^k| * (|qlo| + 0.5) / alpha <= 0.5, so each output is
 *   within one step of the float slope's, as a rounding of its own.
 * The CPU's per-channel multiplier form computes in int64 and only needs the shift bound. */
static int leaky_fit(qctx *q, qlayer *L, double alpha, float lo, float hi) {
  int64_t qlo, qhi;
  clip_range(lo, hi, L->sy_eff, &qlo, &qhi);
  double reach = (qlo < 0 ? -(double)qlo : 0) + 0.5;
  int int32_form = L->pow2 || !L->mul;
  double *ymax = calloc((size_t)L->m + 1, sizeof *ymax);
  int *sc = calloc((size_t)L->m + 1, sizeof *sc);
  if (!ymax || !sc) {
    free(ymax);
    free(sc);
    return 0;
  }
  for (int64_t c = 0; c < L->m; c++) {
    double sum = 0, mul = L->mul ? (double)L->mul[c] : 1;
    for (int64_t i = 0; i < L->k; i++) sum += abs(L->wq[c * L->k + i]);
    ymax[c] = int32_form ? 128 * sum + fabs((double)L->bq[c]) / mul : 0;
    sc[c] = L->shift - (L->pow2 && L->mul ? ilogb(mul) : 0);
  }
  int found = 0;
  for (int k = 31 - L->shift; k >= 1 && !found; k--) {
    double m = nearbyint(alpha * ldexp(1, k));
    if (m > 32767 || fabs(alpha - m / ldexp(1, k)) * reach / alpha > 0.5) continue;
    int ok = 1;
    for (int64_t c = 0; ok && c < L->m; c++)
      ok = ymax[c] * ldexp(1, k) + ldexp(1, sc[c] + k - 1) < 2147483648.0;
    if (ok) L->leaky_k = k, L->leaky_m = (int)m, found = 1;
  }
  free(ymax);
  free(sc);
  if (q->log && !found)
    fprintf(q->log, "quantize: a LeakyRelu of slope %.4g stays float: no m / 2^k within the rounding "
                    "fits int32\n", alpha);
  return found;
}

/* After quantize_or_fall_back of layer L (producing value v) for the chain after the LeakyRelu
 * lk (leaky_start): folds the LeakyRelu into L when leaky_fit finds its slope, absorbing that
 * chain; else quantizes L again for v itself, the LeakyRelu staying a float node. Returns 0, a
 * status on error, or 1 when v has no calibrated scale (the layer stays float). */
static int fold_leaky(qctx *q, qlayer *L, int v, int lk, double alpha, int *y, float *lo, float *hi) {
  if (leaky_fit(q, L, alpha, *lo, *hi)) {
    absorb_activation(q, q->old[lk].out[0], y, lo, hi, 1);
    q->skip[lk] = 1;
    return 0;
  }
  layer_free(L);
  L->wq = NULL, L->bq = NULL, L->mul = NULL;
  L->pow2 = !L->per_channel;
  absorb_activation(q, v, y, lo, hi, 1);
  if (!(q->scale[*y] > 0)) return 1;
  L->sy = q->scale[*y];
  return quantize_or_fall_back(q, L);
}

static int try_conv(qctx *q, const vta_node *nd) {
  vta_graph *g = q->g;
  if (nd->n_epi || nd->n_out != 1 || nd->n_in < 2 || !const_f32(g, nd->in[1])) return 0;
  int bias = nd->n_in > 2 ? nd->in[2] : -1;
  if (bias >= 0 && !const_f32(g, bias)) return 0;
  vta_gvalue w = g->values[nd->in[1]];
  if (w.rank != 4 && w.rank != 3) return 0;
  int y;
  float lo, hi;
  double alpha;
  int lk = leaky_start(q, nd->out[0], &alpha, &y, &lo, &hi);
  int out_layer = y == nd->out[0] && feeds_output(q, y, 0);
  if (!(q->scale[y] > 0) && !out_layer) return 0;
  int xq = need_q(q, nd->in[0]);
  if (xq == -2) return -1;
  if (xq < 0) return 0;
  if (out_layer)
    return emit_float_output(q, nd, xq, y, w.data, bias >= 0 ? g->values[bias].data : NULL, w.dims[0],
                             vta_value_count(&w) / (w.dims[0] ? w.dims[0] : 1), w.dims, w.rank, 0);
  int64_t group = vta_node_int(nd, "group", 1), dl[2] = {1, 1};
  vta_node_ints(nd, "dilations", dl, 2);
  qlayer L;
  memset(&L, 0, sizeof L);
  L.m = w.dims[0];
  L.k = vta_value_count(&w) / (L.m ? L.m : 1);
  L.w = w.data;
  L.b = bias >= 0 ? g->values[bias].data : NULL;
  L.sx = q->qs[xq];
  L.sy = q->scale[y];
  plan_add(q, y, &L.sy);
  L.per_channel = group != 1 || dl[0] != 1 || dl[1] != 1;
  L.pow2 = !L.per_channel;
  L.group = q->group;
  L.xmean = q->mean[nd->in[0]];
  L.taps = w.rank == 4 ? w.dims[2] * w.dims[3] : w.dims[2];
  L.groups = group;
  int rc = quantize_or_fall_back(q, &L);
  if (!rc && lk >= 0) rc = fold_leaky(q, &L, nd->out[0], lk, alpha, &y, &lo, &hi);
  if (!rc) rc = emit_layer(q, nd, VTA_GOP_QCONV, &L, xq, y, lo, hi, w.dims, w.rank);
  layer_free(&L);
  return rc > 0 ? 0 : rc ? -1 : 1;
}

/* Gemm (transA = 0, per-column bias) and MatMul with a constant 2-D right operand. */
static int try_dense(qctx *q, const vta_node *nd) {
  vta_graph *g = q->g;
  if (nd->n_epi || nd->n_out != 1 || nd->n_in < 2 || !const_f32(g, nd->in[1])) return 0;
  const vta_gvalue *a = &g->values[nd->in[0]], *b = &g->values[nd->in[1]];
  int gemm = nd->op == VTA_GOP_GEMM, tb = gemm && vta_node_int(nd, "transB", 0);
  if (b->rank != 2 || a->rank < 2 || (gemm && vta_node_int(nd, "transA", 0))) return 0;
  float alpha = gemm ? vta_node_float(nd, "alpha", 1.0f) : 1.0f, beta = gemm ? vta_node_float(nd, "beta", 1.0f) : 0.0f;
  int64_t K = tb ? b->dims[1] : b->dims[0], N = tb ? b->dims[0] : b->dims[1];
  int cv = gemm && nd->n_in > 2 ? nd->in[2] : -1;
  if (cv >= 0) {
    const vta_gvalue *cc = &g->values[cv];
    /* A per-column bias: C broadcasts along the rows. */
    if (!const_f32(g, cv) || (vta_value_count(cc) != 1 && vta_value_count(cc) != N) ||
        (cc->rank == 2 && cc->dims[0] != 1))
      return 0;
  }
  int y;
  float lo, hi;
  double slope;
  int lk = leaky_start(q, nd->out[0], &slope, &y, &lo, &hi);
  int out_layer = y == nd->out[0] && feeds_output(q, y, 0);
  if (!(q->scale[y] > 0) && !out_layer) return 0;
  int xq = need_q(q, nd->in[0]);
  if (xq == -2) return -1;
  if (xq < 0) return 0;
  float *w = malloc(sizeof(float) * (size_t)(N * K) + 4), *bias = malloc(sizeof(float) * (size_t)N + 4);
  if (!w || !bias) {
    free(w);
    free(bias);
    return nomem(q);
  }
  const float *B = b->data;
  for (int64_t n = 0; n < N; n++)
    for (int64_t k = 0; k < K; k++) w[n * K + k] = alpha * (tb ? B[n * K + k] : B[k * N + n]);
  for (int64_t n = 0; n < N; n++)
    bias[n] = cv >= 0 ? beta * ((const float *)g->values[cv].data)[vta_value_count(&g->values[cv]) == 1 ? 0 : n] : 0;
  if (out_layer) {
    int64_t wd[2] = {K, N};
    int r = emit_float_output(q, nd, xq, y, w, cv >= 0 ? bias : NULL, N, K, wd, 2, 1);
    free(w);
    free(bias);
    return r;
  }
  qlayer L;
  memset(&L, 0, sizeof L);
  L.m = N;
  L.k = K;
  L.w = w;
  L.b = bias;
  L.sx = q->qs[xq];
  L.sy = q->scale[y];
  plan_add(q, y, &L.sy);
  int64_t wd[2] = {N, K};
  L.pow2 = 1;
  L.group = q->group;
  L.xmean = a->rank == 2 ? q->mean[nd->in[0]] : NULL;
  L.taps = L.groups = 1;
  int rc = quantize_or_fall_back(q, &L);
  if (!rc && lk >= 0) rc = fold_leaky(q, &L, nd->out[0], lk, slope, &y, &lo, &hi);
  if (!rc) rc = emit_layer(q, nd, VTA_GOP_QDENSE, &L, xq, y, lo, hi, wd, 2);
  layer_free(&L);
  free(w);
  free(bias);
  return rc > 0 ? 0 : rc ? -1 : 1;
}

static int same_shape(const vta_gvalue *a, const vta_gvalue *b) {
  return a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank);
}

static int try_add(qctx *q, const vta_node *nd) {
  vta_graph *g = q->g;
  if (nd->n_epi || nd->n_in != 2 || nd->in[0] < 0 || nd->in[1] < 0) return 0;
  int a = nd->in[0], b = nd->in[1];
  if (!same_shape(&g->values[a], &g->values[nd->out[0]]) || !same_shape(&g->values[b], &g->values[nd->out[0]]))
    return 0;
  if (!q->qnat[a] && !q->qnat[b]) return 0;
  int y;
  float lo, hi;
  absorb_activation(q, nd->out[0], &y, &lo, &hi, 1);
  if (!(q->scale[y] > 0)) return 0;
  int aq = need_q(q, a), bq = need_q(q, b);
  if (aq == -2 || bq == -2) return -1;
  if (aq < 0 || bq < 0) return 0;
  /* Multipliers of 14 bits; in the accelerator's form of 7 (at most 127: the weight of a GEMM
   * with diagonal weights and the residual multiplier of the convolution epilogue), exact when
   * plan_add chose the scales (and the operands have them), else rounded (VTA_ADDS_ACC). */
  double sy = q->scale[y], ra = q->qs[aq] / sy, rb = q->qs[bq] / sy, rmax = fmax(ra, rb);
  double lim = q->adds == VTA_ADDS_ACC ? 127 : 16383;
  int shift = (int)floor(log2(lim / rmax));
  shift = shift < 0 ? 0 : shift > 24 ? 24 : shift;
  int64_t ma = clamp64(nearbyint(ra * ldexp(1, shift)), 0, 32767);
  int64_t mb = clamp64(nearbyint(rb * ldexp(1, shift)), 0, 32767);
  const struct add_plan *P = &q->plan[nd - q->old];
  int planned = 0;
  if (P->valid) {
    double sc = q->qs[P->conv_in ? bq : aq], so = q->qs[P->conv_in ? aq : bq];
    /* The int8 scales are floats: equal to the plan's up to that rounding. */
    if (fabs(sc - P->s_conv) <= 1e-6 * P->s_conv && fabs(so - P->s_other) <= 1e-6 * P->s_other) {
      planned = 1;
      sy = P->s_out;
      shift = (int)P->shift;
      ma = P->conv_in ? P->m_other : P->m_conv;
      mb = P->conv_in ? P->m_conv : P->m_other;
    }
  }
  int o = new_q_of(q, y, (float)sy);
  if (o < 0) return -1;
  int in[2] = {aq, bq};
  int i = emit(q, VTA_GOP_QADD, nd->name, 2, in, o);
  if (i < 0) return -1;
  vta_node *n = &g->nodes[i];
  int64_t qlo, qhi;
  clip_range(lo, hi, sy, &qlo, &qhi);
  if (vta_attrs_set_int(&n->n_attrs, &n->attrs, "ma", ma) || vta_attrs_set_int(&n->n_attrs, &n->attrs, "mb", mb) ||
      vta_attrs_set_int(&n->n_attrs, &n->attrs, "shift", shift) ||
      vta_attrs_set_int(&n->n_attrs, &n->attrs, "lo", qlo) || vta_attrs_set_int(&n->n_attrs, &n->attrs, "hi", qhi) ||
      (q->adds >= VTA_ADDS_FUSE &&
       vta_attrs_set_int(&n->n_attrs, &n->attrs, "fuse", q->adds == VTA_ADDS_FUSE ? 1 : 2)))
    return nomem(q);
  if (q->log)
    fprintf(q->log, "quantize Add '%s': QAdd with multipliers %lld, %lld and shift %d%s, output scale %.4g\n",
            nd->name, (long long)ma, (long long)mb, shift,
            planned ? " (exact: the scales chosen for them)" : "", sy);
  return 1;
}

static int all_zero(const vta_gvalue *v) {
  if (!v->data || v->dtype != VTA_DT_F32) return 0;
  const float *d = v->data;
  for (int64_t i = 0; i < vta_value_count(v); i++)
    if (d[i] != 0) return 0;
  return 1;
}

/* Operators that move int8 data unchanged (or take maxima): the output keeps the scale. */
static int try_passthrough(qctx *q, const vta_node *nd) {
  vta_graph *g = q->g;
  if (nd->n_epi || nd->n_out != 1 || nd->n_in < 1 || nd->in[0] < 0) return 0;
  if (nd->op != VTA_GOP_CONCAT && !keeps_scale(nd)) return 0;
  int ins[64];
  float s = 0;
  if (nd->n_in > 64) return 0;
  for (int k = 0; k < nd->n_in; k++) {
    int v = nd->in[k];
    if (v < 0) return 0;
    if (nd->op == VTA_GOP_CONCAT && all_zero(&g->values[v])) {
      ins[k] = -1; /* made below, once the scale is known */
      continue;
    }
    if (k > 0 && nd->op != VTA_GOP_CONCAT) return 0; /* parameters are attributes by now */
    if (!q->qnat[v]) return 0;
    float vs = q->qs[q->qv[v]];
    if (s > 0 && fabsf(vs - s) > 1e-6f * s) return 0; /* Concat of different scales */
    s = vs;
    ins[k] = q->qv[v];
  }
  if (!(s > 0)) return 0;
  for (int k = 0; k < nd->n_in; k++)
    if (ins[k] < 0) {
      vta_gvalue z = g->values[nd->in[k]];
      char nm[300];
      snprintf(nm, sizeof nm, "%s:q", vname(q, nd->in[k]));
      ins[k] = new_const(q, nm, VTA_DT_I8, z.rank, z.dims);
      if (ins[k] < 0) return -1;
    }
  int o = new_q_of(q, nd->out[0], s);
  if (o < 0) return -1;
  int i = emit(q, nd->op, nd->name, nd->n_in, ins, o);
  if (i < 0) return -1;
  vta_node *n = &g->nodes[i];
  for (int k = 0; k < nd->n_attrs; k++) {
    const vta_attr *a = &nd->attrs[k];
    int rc = 0;
    switch (a->kind) {
    case VTA_ATTR_INT: rc = vta_attrs_set_int(&n->n_attrs, &n->attrs, a->name, a->i); break;
    case VTA_ATTR_FLOAT: rc = vta_attrs_set_float(&n->n_attrs, &n->attrs, a->name, a->f); break;
    case VTA_ATTR_INTS: rc = vta_attrs_set_ints(&n->n_attrs, &n->attrs, a->name, a->n, a->ints); break;
    case VTA_ATTR_FLOATS: rc = vta_attrs_set_floats(&n->n_attrs, &n->attrs, a->name, a->n, a->floats); break;
    default: rc = vta_attrs_set_string(&n->n_attrs, &n->attrs, a->name, a->s); break;
    }
    if (rc) return nomem(q);
  }
  return 1;
}

/* Appends old node nd unchanged (float), reading the float version of every input. */
static int move_float(qctx *q, vta_node *nd) {
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0 && (nd->in[k] = need_f(q, nd->in[k])) < 0) return -1;
  for (int k = 0; k < nd->n_epi; k++)
    if (nd->epi[k].arg >= 0 && (nd->epi[k].arg = need_f(q, nd->epi[k].arg)) < 0) return -1;
  int i = vta_graph_add_node(q->g, nd->op, nd->name, nd->n_in, nd->in, nd->n_out, nd->out);
  if (i < 0) return nomem(q);
  vta_node *n = &q->g->nodes[i];
  n->n_attrs = nd->n_attrs;
  n->attrs = nd->attrs;
  n->n_epi = nd->n_epi;
  n->epi = nd->epi;
  nd->n_attrs = nd->n_epi = 0;
  nd->attrs = NULL;
  nd->epi = NULL;
  for (int k = 0; k < nd->n_out; k++)
    if (nd->out[k] >= 0) q->fdef[nd->out[k]] = 1;
  return 0;
}

static int rewrite(qctx *q, int i) {
  vta_node *nd = &q->old[i];
  int r = 0;
  /* A node that already carries epilogue steps (a batch norm bnfold could not fold into a
   * convolution: "Mul(x, a) | Add(., b)") stays float. */
  if (nd->n_epi) return move_float(q, nd);
  switch (nd->op) {
  case VTA_GOP_CONV: r = try_conv(q, nd); break;
  case VTA_GOP_GEMM: case VTA_GOP_MATMUL: r = try_dense(q, nd); break;
  case VTA_GOP_ADD: r = try_add(q, nd); break;
  default: r = try_passthrough(q, nd); break;
  }
  if (r < 0) return -1;
  return r ? 0 : move_float(q, nd);
}

int vta_pass_quantize(vta_graph *g, const vta_quant_opts *o, vta_error *err) {
  if (!o || !o->calib) return vta_error_set(err, VTA_ERR_INVALID, "quantization needs calibration inputs");
  /* Before epilogue fusion: the only epilogues are bnfold's (see rewrite). */
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].n_epi && !(g->nodes[i].op == VTA_GOP_MUL && g->nodes[i].n_epi == 1 &&
                                g->nodes[i].epi[0].op == VTA_GOP_ADD))
      return vta_error_set(err, VTA_ERR_INVALID, "quantization runs before epilogue fusion");
  qctx q;
  memset(&q, 0, sizeof q);
  q.g = g;
  q.err = err;
  q.log = o->log;
  q.group = o->channel_group;
  q.adds = o->adds ? o->adds : VTA_ADDS_CPU;
  q.n_orig = g->n_values;
  q.cap = 8 * g->n_values + 8 * g->n_nodes + 64;
  q.scale = calloc((size_t)g->n_values + 1, sizeof *q.scale);
  q.mean = calloc((size_t)g->n_values + 1, sizeof *q.mean);
  q.qv = malloc(sizeof(int) * (size_t)q.cap);
  q.qs = calloc((size_t)q.cap, sizeof *q.qs);
  q.qnat = calloc((size_t)q.cap, 1);
  q.fdef = calloc((size_t)q.cap, 1);
  q.skip = calloc((size_t)g->n_nodes + 1, 1);
  q.uses = calloc((size_t)g->n_values + 1, sizeof(int));
  q.consumer = calloc((size_t)g->n_values + 1, sizeof(int));
  q.plan = calloc((size_t)g->n_nodes + 1, sizeof *q.plan);
  q.prod = malloc(sizeof(int) * ((size_t)g->n_values + 1));
  int rc = -1;
  if (!q.scale || !q.mean || !q.qv || !q.qs || !q.qnat || !q.fdef || !q.skip || !q.uses || !q.consumer ||
      !q.plan || !q.prod) {
    nomem(&q);
    goto out;
  }
  if (vta_quant_calibrate(g, o->calib, q.scale, q.mean, q.log, err)) goto out;
  for (int v = 0; v < q.cap; v++) q.qv[v] = -1;
  for (int v = 0; v < g->n_values; v++) q.fdef[v] = g->values[v].is_input || g->values[v].data;
  for (int i = 0; i < g->n_outputs; i++) q.uses[g->outputs[i]]++;
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; k < g->nodes[i].n_in; k++)
      if (g->nodes[i].in[k] >= 0) {
        q.uses[g->nodes[i].in[k]]++;
        q.consumer[g->nodes[i].in[k]] = i;
      }
  for (int v = 0; v < g->n_values; v++) q.prod[v] = -1;
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; k < g->nodes[i].n_out; k++)
      if (g->nodes[i].out[k] >= 0) q.prod[g->nodes[i].out[k]] = i;
  /* The old nodes are moved out; the new list is built by appending. */
  q.old = g->nodes;
  q.n_old = g->n_nodes;
  g->nodes = NULL;
  g->n_nodes = g->cap_nodes = 0;
  for (int i = 0; i < q.n_old; i++)
    if (!q.skip[i] && rewrite(&q, i)) goto out;
  for (int k = 0; k < g->n_outputs; k++)
    if (need_f(&q, g->outputs[k]) < 0) goto out;
  rc = 0;
out:
  if (q.old) {
    for (int i = 0; i < q.n_old; i++) vta_node_release(&q.old[i]);
    free(q.old);
  }
  for (int v = 0; q.mean && v < q.n_orig; v++) free(q.mean[v]);
  free(q.mean);
  free(q.scale);
  free(q.qv);
  free(q.qs);
  free(q.qnat);
  free(q.fdef);
  free(q.skip);
  free(q.uses);
  free(q.consumer);
  free(q.plan);
  free(q.prod);
  if (rc) return -1;
  /* Unused float weights and values go; the new operators' shapes and attributes are checked
   * (the moved nodes were inferred already, and inference is not repeatable on them: their
   * parameter inputs have become attributes). */
  if (vta_graph_compact(g, err)) return -1;
  for (int i = 0; i < g->n_nodes; i++) {
    vta_gop op = g->nodes[i].op;
    if ((op == VTA_GOP_QCONV || op == VTA_GOP_QDENSE || op == VTA_GOP_QADD ||
         op == VTA_GOP_QUANTIZE_LINEAR || op == VTA_GOP_DEQUANTIZE_LINEAR) &&
        vta_shape_infer_node(g, i, err))
      return -1;
  }
  return 0;
}
