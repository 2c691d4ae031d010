/* shape.c - shape and type inference, and the canonical form of operator parameters.
 *
 * The design idea: one walk in node order that, for each node, (1) turns parameters ONNX
 * passes as constant inputs into attributes (Reshape's shape, Squeeze's axes, Clip's bounds,
 * Pad's pads, Slice's ranges, Resize's scales), and makes defaults explicit (Conv's pads,
 * strides and dilations; auto_pad resolved; Transpose's perm; Softmax's axis), then (2) computes
 * the output types and shapes, and (3) evaluates the node when all its inputs are constants
 * (eval.c), so that shape computations such as Shape -> Gather -> Concat -> Reshape become
 * constants before the Reshape that needs them. Every later stage can then rely on explicit,
 * fully-resolved attributes and static shapes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "vta/limits.h"

typedef struct {
  vta_graph *g;
  int i;
  vta_node *nd;
  vta_error *err;
  char where[300];
} ctx;

static int bad(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(ctx *c, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(c->err, VTA_ERR_INVALID, "%s: %s", c->where, msg);
}
/* A parameter the model computes at run time: valid ONNX this compiler does not take. */
static int not_constant(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int not_constant(ctx *c, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: %s", c->where, msg);
}
static int unsupported(ctx *c, const char *what) {
  return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: %s is not supported", c->where, what);
}

static vta_gvalue *IN(ctx *c, int k) {
  return k < c->nd->n_in && c->nd->in[k] >= 0 ? &c->g->values[c->nd->in[k]] : NULL;
}

static void set_out(ctx *c, int k, vta_dtype t, int rank, const int64_t *dims) {
  vta_gvalue *v = &c->g->values[c->nd->out[k]];
  v->dtype = t;
  v->rank = rank;
  for (int d = 0; d < rank; d++) v->dims[d] = dims[d];
}


static int set_int(ctx *c, const char *name, int64_t v) { return vta_op_set_int(c->g, c->i, c->err, name, v); }

static int norm_axis(ctx *c, int64_t axis, int rank, int64_t *out) { return vta_op_axis(c->g, c->i, c->err, axis, rank, out); }

static int need_rank(ctx *c, const vta_gvalue *v, int k) { return vta_op_need_shape(c->g, c->i, c->err, v, k); }

/* ---- quantized operators ---- */

static int is_q8(vta_dtype t) { return t == VTA_DT_I8 || t == VTA_DT_U8; }

/* Input k of a quantized ONNX operator: a constant scale (float) or zero point (int8/uint8, or
 * int32 for DequantizeLinear of int32 data) with 1 or `per` elements. */
static int q_param(ctx *c, int k, const char *what, int is_zp, int64_t per) {
  vta_gvalue *v = IN(c, k);
  if (!v) return 0;
  if (!v->data)
    return not_constant(c, "%s (input %d, '%s') must be a constant known at compile time", what, k, v->name);
  if (is_zp ? !(is_q8(v->dtype) || v->dtype == VTA_DT_I32) : v->dtype != VTA_DT_F32)
    return unsupported(c, is_zp ? "a zero point other than int8, uint8 or int32" : "a scale other than float32");
  int64_t n = vta_value_count(v);
  if (v->rank > 1 || (n != 1 && n != per))
    return bad(c, "%s has %lld elements; expected 1%s", what, (long long)n,
               per > 1 ? " or one per channel" : "");
  if (!is_zp) {
    const float *f = v->data;
    for (int64_t i = 0; i < n; i++)
      if (!(f[i] > 0) || !isfinite(f[i])) return bad(c, "%s element %lld is %g; scales must be positive", what, (long long)i, (double)f[i]);
  }
  return 0;
}

static int infer_quantize(ctx *c, int dequant) {
  vta_gvalue *x = IN(c, 0), *zp = IN(c, 2);
  if (need_rank(c, x, 0) || need_rank(c, IN(c, 1), 1)) return -1;
  /* The axis matters only for per-axis scales (a scalar scale works at any rank). */
  int64_t axis = 0;
  if (vta_value_count(IN(c, 1)) > 1) {
    if (x->rank == 0) return bad(c, "per-axis scales for a scalar");
    if (norm_axis(c, vta_node_int(c->nd, "axis", 1), x->rank, &axis)) return -1;
  }
  int64_t per = x->rank > 0 ? x->dims[axis] : 1;
  if (q_param(c, 1, "the scale", 0, per) || q_param(c, 2, "the zero point", 1, per)) return -1;
  if (zp && vta_value_count(zp) != vta_value_count(IN(c, 1)) && vta_value_count(zp) != 1)
    return bad(c, "the scale and the zero point differ in length");
  if (set_int(c, "axis", axis)) return -1;
  if (dequant) {
    if (!is_q8(x->dtype) && x->dtype != VTA_DT_I32)
      return unsupported(c, "DequantizeLinear of data other than int8, uint8 or int32");
    if (zp && zp->dtype != x->dtype) return bad(c, "the zero point's type differs from the data's");
    set_out(c, 0, VTA_DT_F32, x->rank, x->dims);
  } else {
    if (x->dtype != VTA_DT_F32) return unsupported(c, "QuantizeLinear of data other than float32");
    vta_dtype t = zp ? zp->dtype : VTA_DT_U8;
    if (!is_q8(t)) return unsupported(c, "QuantizeLinear to a type other than int8 or uint8");
    set_out(c, 0, t, x->rank, x->dims);
  }
  return 0;
}

static int need_type(ctx *c, int k, int int8_only) {
  vta_gvalue *v = IN(c, k);
  if (!v) return 0;
  if (int8_only ? v->dtype != VTA_DT_I8 : !is_q8(v->dtype))
    return unsupported(c, int8_only ? "an input other than int8" : "an input other than int8 or uint8");
  return 0;
}

/* Checks a zero-point input against its data input: same type, one element (or one per
 * output channel for weights). */
static int zp_match(ctx *c, int zk, int dk, int64_t per) {
  vta_gvalue *z = IN(c, zk), *d = IN(c, dk);
  if (!z) return 0;
  if (!z->data) return not_constant(c, "zero point input %d must be a constant known at compile time", zk);
  if (z->dtype != d->dtype) return bad(c, "zero point input %d's type differs from input %d's", zk, dk);
  int64_t n = vta_value_count(z);
  if (z->rank > 1 || (n != 1 && n != per)) return bad(c, "zero point input %d has %lld elements", zk, (long long)n);
  return 0;
}

static int infer_qlinear_conv(ctx *c) {
  vta_gvalue *w = IN(c, 3), *yz = IN(c, 7);
  if (c->nd->n_in < 8) return bad(c, "expects 8 or 9 inputs, has %d", c->nd->n_in);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, w, 3) || need_type(c, 0, 0) || need_type(c, 3, 0))
    return -1;
  int64_t m = w->rank > 0 ? w->dims[0] : 1;
  if (q_param(c, 1, "x_scale", 0, 1) || zp_match(c, 2, 0, 1) || q_param(c, 4, "w_scale", 0, m) ||
      zp_match(c, 5, 3, m) || q_param(c, 6, "y_scale", 0, 1) || !yz || q_param(c, 7, "y_zero_point", 1, 1))
    return yz ? -1 : bad(c, "y_zero_point is missing");
  vta_gvalue *b = IN(c, 8);
  if (b && b->dtype != VTA_DT_I32) return bad(c, "the bias must be int32");
  return vta_conv_shape(c->g, c->i, c->err, 0, 0, 3, 8, yz->dtype);
}

static int infer_conv_integer(ctx *c) {
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, IN(c, 1), 1) || need_type(c, 0, 0) || need_type(c, 1, 0))
    return -1;
  int64_t m = IN(c, 1)->rank > 0 ? IN(c, 1)->dims[0] : 1;
  if (zp_match(c, 2, 0, 1) || zp_match(c, 3, 1, m)) return -1;
  return vta_conv_shape(c->g, c->i, c->err, 0, 0, 1, -1, VTA_DT_I32);
}

static int infer_qlinear_matmul(ctx *c) {
  if (c->nd->n_in != 8) return bad(c, "expects 8 inputs, has %d", c->nd->n_in);
  vta_gvalue *b = IN(c, 3);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, b, 3) || need_type(c, 0, 0) || need_type(c, 3, 0))
    return -1;
  int64_t n = b->dims[b->rank - 1];
  if (q_param(c, 1, "a_scale", 0, 1) || zp_match(c, 2, 0, 1) || q_param(c, 4, "b_scale", 0, n) ||
      zp_match(c, 5, 3, n) || q_param(c, 6, "y_scale", 0, 1) || q_param(c, 7, "y_zero_point", 1, 1))
    return -1;
  if (!IN(c, 2) || !IN(c, 5) || !IN(c, 7)) return bad(c, "a zero point is missing");
  return vta_matmul_shape(c->g, c->i, c->err, 0, 3, IN(c, 7)->dtype);
}

static int infer_matmul_integer(ctx *c) {
  vta_gvalue *b = IN(c, 1);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, b, 1) || need_type(c, 0, 0) || need_type(c, 1, 0))
    return -1;
  if (zp_match(c, 2, 0, 1) || zp_match(c, 3, 1, b->dims[b->rank - 1])) return -1;
  return vta_matmul_shape(c->g, c->i, c->err, 0, 1, VTA_DT_I32);
}

/* shift, lo, hi and the mul input (3) of QConv/QDense/QAdd; nmul: multipliers expected. */
static int requant_attrs(ctx *c, int64_t nmul) {
  int64_t shift = vta_node_int(c->nd, "shift", -1), lo = vta_node_int(c->nd, "lo", -128),
          hi = vta_node_int(c->nd, "hi", 127);
  if (shift < 0 || shift > 31) return bad(c, "shift %lld is not in 0..31", (long long)shift);
  if (lo < -128 || hi > 127 || lo > hi) return bad(c, "clip range [%lld, %lld] is not within int8", (long long)lo, (long long)hi);
  const vta_gvalue *m = c->nd->n_in > 3 ? IN(c, 3) : NULL;
  if (m && (!m->data || m->dtype != VTA_DT_I32 || m->rank != 1 || m->dims[0] != nmul))
    return bad(c, "mul must be a constant int32 tensor with one multiplier per output channel (%lld)",
               (long long)nmul);
  return set_int(c, "lo", lo) || set_int(c, "hi", hi);
}

static int infer_qconv(ctx *c) {
  vta_gvalue *w = IN(c, 1), *b = IN(c, 2);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, w, 1) || need_type(c, 0, 1) || need_type(c, 1, 1)) return -1;
  if (b && b->dtype != VTA_DT_I32) return bad(c, "the bias must be int32");
  if (vta_conv_shape(c->g, c->i, c->err, 0, 0, 1, 2, VTA_DT_I8)) return -1;
  return requant_attrs(c, w->dims[0]);
}

static int infer_qdense(ctx *c) {
  vta_gvalue *x = IN(c, 0), *w = IN(c, 1), *b = IN(c, 2);
  if (need_rank(c, x, 0) || need_rank(c, w, 1) || need_type(c, 0, 1) || need_type(c, 1, 1)) return -1;
  if (x->rank < 1 || w->rank != 2 || x->dims[x->rank - 1] != w->dims[1])
    return bad(c, "QDense needs x [..., K] and w [N, K]");
  if (b && (b->dtype != VTA_DT_I32 || vta_value_count(b) != w->dims[0]))
    return bad(c, "the bias must be int32 with one element per output");
  int64_t dims[VTA_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  dims[x->rank - 1] = w->dims[0];
  set_out(c, 0, VTA_DT_I8, x->rank, dims);
  return requant_attrs(c, w->dims[0]);
}

static int infer_qadd(ctx *c) {
  vta_gvalue *a = IN(c, 0), *b = IN(c, 1);
  if (need_rank(c, a, 0) || need_rank(c, b, 1) || need_type(c, 0, 1) || need_type(c, 1, 1)) return -1;
  if (a->rank != b->rank || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank))
    return bad(c, "QAdd needs operands of the same shape");
  for (int k = 0; k < 2; k++) {
    int64_t v = vta_node_int(c->nd, k ? "mb" : "ma", 1 << 20);
    if (v < -32768 || v > 32767) return bad(c, "%s %lld is not a 16-bit integer", k ? "mb" : "ma", (long long)v);
  }
  set_out(c, 0, VTA_DT_I8, a->rank, a->dims);
  return requant_attrs(c, 0);
}

static int infer_node(ctx *c) {
  vta_node *nd = c->nd;
  for (int k = 0; k < nd->n_in; k++) {
    vta_gvalue *v = IN(c, k);
    if (v && !v->data && v->rank < 0 && v->producer < 0 && !v->is_input)
      return bad(c, "input %d ('%s') is produced by no node", k, v->name);
  }
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (fam) return fam->infer(c->g, c->i, c->err);
  switch (nd->op) {
  case VTA_GOP_BATCHNORM: {
    vta_gvalue *x = IN(c, 0);
    if (need_rank(c, x, 0)) return -1;
    if (nd->n_in != 5) return bad(c, "expects 5 inputs, has %d", nd->n_in);
    if (x->rank < 2) return bad(c, "input rank below 2");
    for (int k = 1; k < 5; k++) {
      vta_gvalue *p = IN(c, k);
      if (need_rank(c, p, k)) return -1;
      if (p->rank != 1 || p->dims[0] != x->dims[1])
        return bad(c, "input %d ('%s') must have %" PRId64 " elements (one per channel)", k, p->name, x->dims[1]);
    }
    if (vta_node_int(nd, "training_mode", 0)) return unsupported(c, "training_mode=1");
    set_out(c, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  case VTA_GOP_QUANTIZE_LINEAR: return infer_quantize(c, 0);
  case VTA_GOP_DEQUANTIZE_LINEAR: return infer_quantize(c, 1);
  case VTA_GOP_QLINEAR_CONV: return infer_qlinear_conv(c);
  case VTA_GOP_CONV_INTEGER: return infer_conv_integer(c);
  case VTA_GOP_QLINEAR_MATMUL: return infer_qlinear_matmul(c);
  case VTA_GOP_MATMUL_INTEGER: return infer_matmul_integer(c);
  case VTA_GOP_QCONV: return infer_qconv(c);
  case VTA_GOP_QDENSE: return infer_qdense(c);
  case VTA_GOP_QADD: return infer_qadd(c);
  case VTA_GOP_DROPOUT: {
    vta_gvalue *x = IN(c, 0);
    if (need_rank(c, x, 0)) return -1;
    if (nd->n_in > 2 && IN(c, 2)) {
      const vta_gvalue *t = IN(c, 2);
      if (!t->data || *(uint8_t *)t->data) return unsupported(c, "Dropout in training mode");
    }
    nd->n_in = 1;
    nd->op = VTA_GOP_IDENTITY;
    set_out(c, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  default:
    return unsupported(c, "shape inference for this operator");
  }
}

int vta_shape_infer_node(vta_graph *g, int i, vta_error *err) {
  ctx c = {g, i, &g->nodes[i], err, ""};
  vta_node_describe(g, i, c.where, sizeof c.where);
  if (infer_node(&c)) return -1;
  for (int k = 0; k < c.nd->n_out; k++) {
    if (c.nd->out[k] < 0) continue;
    const vta_gvalue *v = &g->values[c.nd->out[k]];
    if (v->rank < 0) return bad(&c, "output %d has no inferred shape", k);
    /* Before anything is allocated for it (constant evaluation, buffers). */
    char what[400];
    snprintf(what, sizeof what, "%s: output '%s'", c.where, v->name);
    if (vta_value_check_size(v, what, err)) return -1;
  }
  return 0;
}

int vta_shape_infer(vta_graph *g, vta_error *err) {
  for (int i = 0; i < g->n_inputs; i++) {
    const vta_gvalue *v = &g->values[g->inputs[i]];
    if (v->rank < 0)
      return vta_error_set(err, VTA_ERR_INVALID, "graph input '%s' has no known shape", v->name);
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!g->nodes[i].inferred && vta_shape_infer_node(g, i, err)) return -1;
    /* Values computed from constants become constants now, so that later nodes that need
     * them as parameters (Reshape's shape) see them. The fold pass removes the nodes. */
    if (vta_eval_can(g, i) && vta_eval_node(g, i, err)) return -1;
  }
  return 0;
}
