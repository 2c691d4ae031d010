/* op_quant.c - the quantized family: QuantizeLinear, DequantizeLinear, QLinearConv,
 * ConvInteger, QLinearMatMul, MatMulInteger (ONNX semantics) and the compiler's own QConv,
 * QDense and QAdd (compiler.h, "Quantized operators"); their shape rules, the reference of
 * QuantizeLinear and DequantizeLinear (the others are not folded) and the CPU code of all,
 * plus int8 max pooling for the pooling family.
 *
 * The design idea: every integer convolution and matrix product is the same int32
 * accumulation over (x - x_zero_point) * (w - w_zero_point); the operators differ only in what
 * they do with the sum (store it, scale it with floats as ONNX says, or requantize it with the
 * accelerator's integer epilogue). So one loop nest per family is emitted with the epilogue as
 * a parameter. The loops are scalar and branch-free in the inner dimension: the valid kernel
 * taps of each output row and column are computed at compile time into small tables, so no
 * bounds test runs per multiply. Exactness, not speed, is the point of this path: the int8
 * results must equal those of qops_ref.c and of the accelerator bit for bit, and the ONNX
 * operators must round as onnxruntime does (float32 scale products, round half to even).
 * Scales and zero points must be constants; the shape rules of the convolutions and matrix
 * products are the conv family's (vta_conv_shape, vta_matmul_shape).
 */
#include <llvm-c/Core.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"

/* ---- shape rules ---- */

static int unsupported(vta_graph *g, int i, vta_error *err, const char *what) {
  return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%s is not supported", what);
}

static int is_q8(vta_dtype t) { return t == VTA_DT_I8 || t == VTA_DT_U8; }

/* Input k of a quantized ONNX operator: a constant scale (float) or zero point (int8/uint8, or
 * int32 for DequantizeLinear of int32 data) with 1 or `per` elements. */
static int q_param(vta_graph *g, int i, vta_error *err, int k, const char *what, int is_zp, int64_t per) {
  const vta_gvalue *v = vta_op_in(g, i, k);
  if (!v) return 0;
  if (!v->data)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%s (input %d, '%s') must be a constant known at compile time", what, k, v->name);
  if (is_zp ? !(is_q8(v->dtype) || v->dtype == VTA_DT_I32) : v->dtype != VTA_DT_F32)
    return unsupported(g, i, err, is_zp ? "a zero point other than int8, uint8 or int32" : "a scale other than float32");
  int64_t n = vta_value_count(v);
  if (v->rank > 1 || (n != 1 && n != per))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "%s has %lld elements; expected 1%s", what, (long long)n,
               per > 1 ? " or one per channel" : "");
  if (!is_zp) {
    const float *f = v->data;
    for (int64_t e = 0; e < n; e++)
      if (!(f[e] > 0) || !isfinite(f[e]))
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "%s element %lld is %g; scales must be positive", what,
                            (long long)e, (double)f[e]);
  }
  return 0;
}

static int quantize_infer(vta_graph *g, int i, vta_error *err, int dequant) {
  const vta_gvalue *x = vta_op_in(g, i, 0), *zp = vta_op_in(g, i, 2);
  if (vta_op_need_shape(g, i, err, x, 0) || vta_op_need_shape(g, i, err, vta_op_in(g, i, 1), 1)) return -1;
  /* The axis matters only for per-axis scales (a scalar scale works at any rank). */
  int64_t axis = 0;
  if (vta_value_count(vta_op_in(g, i, 1)) > 1) {
    if (x->rank == 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "per-axis scales for a scalar");
    if (vta_op_axis(g, i, err, vta_node_int(&g->nodes[i], "axis", 1), x->rank, &axis)) return -1;
  }
  int64_t per = x->rank > 0 ? x->dims[axis] : 1;
  if (q_param(g, i, err, 1, "the scale", 0, per) || q_param(g, i, err, 2, "the zero point", 1, per)) return -1;
  if (zp && vta_value_count(zp) != vta_value_count(vta_op_in(g, i, 1)) && vta_value_count(zp) != 1)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the scale and the zero point differ in length");
  if (vta_op_set_int(g, i, err, "axis", axis)) return -1;
  if (dequant) {
    if (!is_q8(x->dtype) && x->dtype != VTA_DT_I32)
      return unsupported(g, i, err, "DequantizeLinear of data other than int8, uint8 or int32");
    if (zp && zp->dtype != x->dtype) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the zero point's type differs from the data's");
    vta_op_set_out(g, i, 0, VTA_DT_F32, x->rank, x->dims);
  } else {
    if (x->dtype != VTA_DT_F32) return unsupported(g, i, err, "QuantizeLinear of data other than float32");
    vta_dtype t = zp ? zp->dtype : VTA_DT_U8;
    if (!is_q8(t)) return unsupported(g, i, err, "QuantizeLinear to a type other than int8 or uint8");
    vta_op_set_out(g, i, 0, t, x->rank, x->dims);
  }
  return 0;
}

static int need_type(vta_graph *g, int i, vta_error *err, int k, int int8_only) {
  const vta_gvalue *v = vta_op_in(g, i, k);
  if (!v) return 0;
  if (int8_only ? v->dtype != VTA_DT_I8 : !is_q8(v->dtype))
    return unsupported(g, i, err, int8_only ? "an input other than int8" : "an input other than int8 or uint8");
  return 0;
}

/* Checks a zero-point input against its data input: same type, one element (or one per
 * output channel for weights). */
static int zp_match(vta_graph *g, int i, vta_error *err, int zk, int dk, int64_t per) {
  const vta_gvalue *z = vta_op_in(g, i, zk), *d = vta_op_in(g, i, dk);
  if (!z) return 0;
  if (!z->data) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "zero point input %d must be a constant known at compile time", zk);
  if (z->dtype != d->dtype) return vta_op_error(g, i, err, VTA_ERR_INVALID, "zero point input %d's type differs from input %d's", zk, dk);
  int64_t n = vta_value_count(z);
  if (z->rank > 1 || (n != 1 && n != per)) return vta_op_error(g, i, err, VTA_ERR_INVALID, "zero point input %d has %lld elements", zk, (long long)n);
  return 0;
}

static int qlinear_conv_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *w = vta_op_in(g, i, 3), *yz = vta_op_in(g, i, 7);
  if (g->nodes[i].n_in < 8) return vta_op_error(g, i, err, VTA_ERR_INVALID, "expects 8 or 9 inputs, has %d", g->nodes[i].n_in);
  if (vta_op_need_shape(g, i, err, vta_op_in(g, i, 0), 0) || vta_op_need_shape(g, i, err, w, 3) || need_type(g, i, err, 0, 0) || need_type(g, i, err, 3, 0))
    return -1;
  int64_t m = w->rank > 0 ? w->dims[0] : 1;
  if (q_param(g, i, err, 1, "x_scale", 0, 1) || zp_match(g, i, err, 2, 0, 1) || q_param(g, i, err, 4, "w_scale", 0, m) ||
      zp_match(g, i, err, 5, 3, m) || q_param(g, i, err, 6, "y_scale", 0, 1) || !yz || q_param(g, i, err, 7, "y_zero_point", 1, 1))
    return yz ? -1 : vta_op_error(g, i, err, VTA_ERR_INVALID, "y_zero_point is missing");
  const vta_gvalue *b = vta_op_in(g, i, 8);
  if (b && b->dtype != VTA_DT_I32) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the bias must be int32");
  return vta_conv_shape(g, i, err, 0, 0, 3, 8, yz->dtype);
}

static int conv_integer_infer(vta_graph *g, int i, vta_error *err) {
  if (vta_op_need_shape(g, i, err, vta_op_in(g, i, 0), 0) || vta_op_need_shape(g, i, err, vta_op_in(g, i, 1), 1) || need_type(g, i, err, 0, 0) || need_type(g, i, err, 1, 0))
    return -1;
  int64_t m = vta_op_in(g, i, 1)->rank > 0 ? vta_op_in(g, i, 1)->dims[0] : 1;
  if (zp_match(g, i, err, 2, 0, 1) || zp_match(g, i, err, 3, 1, m)) return -1;
  return vta_conv_shape(g, i, err, 0, 0, 1, -1, VTA_DT_I32);
}

static int qlinear_matmul_infer(vta_graph *g, int i, vta_error *err) {
  if (g->nodes[i].n_in != 8) return vta_op_error(g, i, err, VTA_ERR_INVALID, "expects 8 inputs, has %d", g->nodes[i].n_in);
  const vta_gvalue *b = vta_op_in(g, i, 3);
  if (vta_op_need_shape(g, i, err, vta_op_in(g, i, 0), 0) || vta_op_need_shape(g, i, err, b, 3) || need_type(g, i, err, 0, 0) || need_type(g, i, err, 3, 0))
    return -1;
  int64_t n = b->dims[b->rank - 1];
  if (q_param(g, i, err, 1, "a_scale", 0, 1) || zp_match(g, i, err, 2, 0, 1) || q_param(g, i, err, 4, "b_scale", 0, n) ||
      zp_match(g, i, err, 5, 3, n) || q_param(g, i, err, 6, "y_scale", 0, 1) || q_param(g, i, err, 7, "y_zero_point", 1, 1))
    return -1;
  if (!vta_op_in(g, i, 2) || !vta_op_in(g, i, 5) || !vta_op_in(g, i, 7)) return vta_op_error(g, i, err, VTA_ERR_INVALID, "a zero point is missing");
  return vta_matmul_shape(g, i, err, 0, 3, vta_op_in(g, i, 7)->dtype);
}

static int matmul_integer_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *b = vta_op_in(g, i, 1);
  if (vta_op_need_shape(g, i, err, vta_op_in(g, i, 0), 0) || vta_op_need_shape(g, i, err, b, 1) || need_type(g, i, err, 0, 0) || need_type(g, i, err, 1, 0))
    return -1;
  if (zp_match(g, i, err, 2, 0, 1) || zp_match(g, i, err, 3, 1, b->dims[b->rank - 1])) return -1;
  return vta_matmul_shape(g, i, err, 0, 1, VTA_DT_I32);
}

/* shift, lo, hi and the mul input (3) of QConv/QDense/QAdd; nmul: multipliers expected. */
static int requant_attrs(vta_graph *g, int i, vta_error *err, int64_t nmul) {
  int64_t shift = vta_node_int(&g->nodes[i], "shift", -1), lo = vta_node_int(&g->nodes[i], "lo", -128),
          hi = vta_node_int(&g->nodes[i], "hi", 127);
  if (shift < 0 || shift > 31) return vta_op_error(g, i, err, VTA_ERR_INVALID, "shift %lld is not in 0..31", (long long)shift);
  if (lo < -128 || hi > 127 || lo > hi) return vta_op_error(g, i, err, VTA_ERR_INVALID, "clip range [%lld, %lld] is not within int8", (long long)lo, (long long)hi);
  const vta_gvalue *m = g->nodes[i].n_in > 3 ? vta_op_in(g, i, 3) : NULL;
  if (m && (!m->data || m->dtype != VTA_DT_I32 || m->rank != 1 || m->dims[0] != nmul))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "mul must be a constant int32 tensor with one multiplier per output channel (%lld)",
               (long long)nmul);
  return vta_op_set_int(g, i, err, "lo", lo) || vta_op_set_int(g, i, err, "hi", hi);
}

static int qconv_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *w = vta_op_in(g, i, 1), *b = vta_op_in(g, i, 2);
  if (vta_op_need_shape(g, i, err, vta_op_in(g, i, 0), 0) || vta_op_need_shape(g, i, err, w, 1) || need_type(g, i, err, 0, 1) || need_type(g, i, err, 1, 1)) return -1;
  if (b && b->dtype != VTA_DT_I32) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the bias must be int32");
  if (vta_conv_shape(g, i, err, 0, 0, 1, 2, VTA_DT_I8)) return -1;
  return requant_attrs(g, i, err, w->dims[0]);
}

static int qdense_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *x = vta_op_in(g, i, 0), *w = vta_op_in(g, i, 1), *b = vta_op_in(g, i, 2);
  if (vta_op_need_shape(g, i, err, x, 0) || vta_op_need_shape(g, i, err, w, 1) || need_type(g, i, err, 0, 1) || need_type(g, i, err, 1, 1)) return -1;
  if (x->rank < 1 || w->rank != 2 || x->dims[x->rank - 1] != w->dims[1])
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "QDense needs x [..., K] and w [N, K]");
  if (b && (b->dtype != VTA_DT_I32 || vta_value_count(b) != w->dims[0]))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the bias must be int32 with one element per output");
  int64_t dims[VTA_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  dims[x->rank - 1] = w->dims[0];
  vta_op_set_out(g, i, 0, VTA_DT_I8, x->rank, dims);
  return requant_attrs(g, i, err, w->dims[0]);
}

static int qadd_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *a = vta_op_in(g, i, 0), *b = vta_op_in(g, i, 1);
  if (vta_op_need_shape(g, i, err, a, 0) || vta_op_need_shape(g, i, err, b, 1) || need_type(g, i, err, 0, 1) || need_type(g, i, err, 1, 1)) return -1;
  if (a->rank != b->rank || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "QAdd needs operands of the same shape");
  for (int k = 0; k < 2; k++) {
    int64_t v = vta_node_int(&g->nodes[i], k ? "mb" : "ma", 1 << 20);
    if (v < -32768 || v > 32767) return vta_op_error(g, i, err, VTA_ERR_INVALID, "%s %lld is not a 16-bit integer", k ? "mb" : "ma", (long long)v);
  }
  vta_op_set_out(g, i, 0, VTA_DT_I8, a->rank, a->dims);
  return requant_attrs(g, i, err, 0);
}

static int quant_infer(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_QUANTIZE_LINEAR: return quantize_infer(g, i, err, 0);
  case VTA_GOP_DEQUANTIZE_LINEAR: return quantize_infer(g, i, err, 1);
  case VTA_GOP_QLINEAR_CONV: return qlinear_conv_infer(g, i, err);
  case VTA_GOP_CONV_INTEGER: return conv_integer_infer(g, i, err);
  case VTA_GOP_QLINEAR_MATMUL: return qlinear_matmul_infer(g, i, err);
  case VTA_GOP_MATMUL_INTEGER: return matmul_integer_infer(g, i, err);
  case VTA_GOP_QCONV: return qconv_infer(g, i, err);
  case VTA_GOP_QDENSE: return qdense_infer(g, i, err);
  default: return qadd_infer(g, i, err);
  }
}

/* ---- reference ---- */

static int quant_folds(vta_gop op) { return op == VTA_GOP_QUANTIZE_LINEAR || op == VTA_GOP_DEQUANTIZE_LINEAR; }

/* QuantizeLinear and DequantizeLinear as the generated code: float32 arithmetic, round half
 * to even, saturation. */
static int quant_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  vta_gvalue *o = &g->values[nd->out[0]];
  const vta_gvalue *x = &g->values[nd->in[0]];
  const vta_gvalue *sc = &g->values[nd->in[1]];
  const vta_gvalue *zp = nd->n_in > 2 && nd->in[2] >= 0 ? &g->values[nd->in[2]] : NULL;
  int64_t n = vta_value_count(o), idx[VTA_MAX_RANK];
  int64_t axis = vta_node_int(nd, "axis", 1), per = vta_value_count(sc) > 1;
  for (int64_t k = 0; k < n; k++) {
    int64_t ch = 0;
    if (per) {
      vta_value_unravel(o, k, idx);
      ch = idx[axis];
    }
    float s = ((const float *)sc->data)[ch];
    int64_t z = zp ? (int64_t)vta_elem_get(zp, vta_value_count(zp) > 1 ? ch : 0) : 0;
    if (nd->op == VTA_GOP_DEQUANTIZE_LINEAR) {
      ((float *)o->data)[k] = (float)((int64_t)vta_elem_get(x, k) - z) * s;
    } else {
      float q = nearbyintf((float)vta_elem_get(x, k) / s);
      double lo = o->dtype == VTA_DT_I8 ? -128 : 0, hi = o->dtype == VTA_DT_I8 ? 127 : 255;
      double y = isnan(q) ? 0 : (double)q + (double)z;
      vta_elem_put(o, k, y < lo ? lo : y > hi ? hi : y);
    }
  }
  return 0;
}

/* ---- code ---- */

/* ---- small helpers ---- */

static LLVMValueRef C(cg *c, int64_t x) { return cg_i64(c, x); }
static LLVMValueRef I32(cg *c, int64_t x) { return LLVMConstInt(c->i32, (unsigned long long)x, 1); }
static LLVMValueRef F(cg *c, double x) { return LLVMConstReal(c->f32, x); }
static const vta_gvalue *V(cg *c, int v) { return &c->g->values[v]; }

static LLVMTypeRef elt_type(cg *c, vta_dtype t) {
  switch (t) {
  case VTA_DT_F32: return c->f32;
  case VTA_DT_I32: return c->i32;
  case VTA_DT_I64: return c->i64;
  default: return c->i8;
  }
}

/* Pointer to element i of value v's buffer p (typed by v's element type). */
static LLVMValueRef tgep(cg *c, vta_dtype t, LLVMValueRef p, LLVMValueRef i) {
  LLVMTypeRef et = elt_type(c, t);
  LLVMValueRef q = LLVMBuildBitCast(c->b, p, LLVMPointerType(et, 0), "");
  return LLVMBuildInBoundsGEP2(c->b, et, q, &i, 1, "");
}
/* Loads element i as an i32 (sign- or zero-extended) or, for f32, as a float. */
static LLVMValueRef tload(cg *c, vta_dtype t, LLVMValueRef p, LLVMValueRef i) {
  LLVMValueRef v = LLVMBuildLoad2(c->b, elt_type(c, t), tgep(c, t, p, i), "");
  switch (t) {
  case VTA_DT_I8: return LLVMBuildSExt(c->b, v, c->i32, "");
  case VTA_DT_U8: case VTA_DT_BOOL: return LLVMBuildZExt(c->b, v, c->i32, "");
  case VTA_DT_I64: return LLVMBuildTrunc(c->b, v, c->i32, "");
  default: return v;
  }
}
/* Stores an i32 (truncated to 8 bits for int8/uint8) or a float. */
static void tstore(cg *c, vta_dtype t, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i) {
  if (t == VTA_DT_I8 || t == VTA_DT_U8) v = LLVMBuildTrunc(c->b, v, c->i8, "");
  LLVMBuildStore(c->b, v, tgep(c, t, p, i));
}

static LLVMValueRef argp_of(cg *c, int v) {
  for (int k = 0; k < c->n_args; k++)
    if (c->argv[k] == v) return c->argp[k];
  return NULL;
}
static LLVMValueRef in_p(cg *c, int k) { return argp_of(c, c->nd->in[k]); }
static LLVMValueRef out_p(cg *c) { return c->argp[c->n_args - c->nd->n_out]; }
static int has_in(cg *c, int k) { return c->nd->n_in > k && c->nd->in[k] >= 0; }

static LLVMValueRef add(cg *c, LLVMValueRef a, LLVMValueRef b) { return cg_add(c, a, b); }
static LLVMValueRef mul(cg *c, LLVMValueRef a, int64_t k) { return cg_mul(c, a, k); }
static LLVMValueRef loop(cg *c, cg_loop *l, int64_t lo, int64_t hi) {
  return cg_loop_open(c, l, C(c, lo), C(c, hi), 1);
}


/* A constant's element k as int64 / double (0 when v < 0). */
static int64_t const_int(const vta_graph *g, int v, int64_t k) {
  if (v < 0) return 0;
  const vta_gvalue *x = &g->values[v];
  if (vta_value_count(x) == 1) k = 0;
  switch (x->dtype) {
  case VTA_DT_I8: return ((const int8_t *)x->data)[k];
  case VTA_DT_U8: return ((const uint8_t *)x->data)[k];
  case VTA_DT_I32: return ((const int32_t *)x->data)[k];
  case VTA_DT_I64: return ((const int64_t *)x->data)[k];
  default: return 0;
  }
}
static float const_f32(const vta_graph *g, int v, int64_t k) {
  const vta_gvalue *x = &g->values[v];
  if (vta_value_count(x) == 1) k = 0;
  return ((const float *)x->data)[k];
}

static LLVMValueRef smax32(cg *c, LLVMValueRef a, LLVMValueRef b) { return cg_smax(c, a, b); }
static LLVMValueRef smin32(cg *c, LLVMValueRef a, LLVMValueRef b) { return cg_smin(c, a, b); }

/* Saturates a float to [lo, hi] and converts it to i32 (NaN becomes 0). */
static LLVMValueRef sat_f32(cg *c, LLVMValueRef f, double lo, double hi) {
  LLVMValueRef nan = LLVMBuildFCmp(c->b, LLVMRealUNO, f, f, "");
  f = LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, f, F(c, lo), ""), F(c, lo), f, "");
  f = LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOGT, f, F(c, hi), ""), F(c, hi), f, "");
  f = LLVMBuildSelect(c->b, nan, F(c, 0), f, "");
  return LLVMBuildFPToSI(c->b, f, c->i32, "");
}
static LLVMValueRef rint_f32(cg *c, LLVMValueRef f) {
  return cg_call(c, "llvm.rint.f32", c->f32, 1, &f);
}
static double type_lo(vta_dtype t) { return t == VTA_DT_I8 ? -128 : t == VTA_DT_U8 ? 0 : -2147483648.0; }
static double type_hi(vta_dtype t) { return t == VTA_DT_I8 ? 127 : t == VTA_DT_U8 ? 255 : 2147483647.0; }

/* ---- QuantizeLinear, DequantizeLinear ---- */

static void emit_quantize(cg *c, int dequant) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int sv = nd->in[1], zv = has_in(c, 2) ? nd->in[2] : -1;
  int64_t n = vta_value_count(o), axis = vta_node_int(nd, "axis", 1);
  int64_t per = vta_value_count(V(c, sv)), inner = 1, ch = x->rank > 0 ? x->dims[axis] : 1;
  for (int d = (int)axis + 1; d < x->rank; d++) inner *= x->dims[d];
  /* Per-channel scales and zero points become tables; a single one is a constant. */
  LLVMValueRef stab = NULL, ztab = NULL;
  if (per > 1) {
    int64_t *si = malloc(sizeof(int64_t) * (size_t)per), *zi = malloc(sizeof(int64_t) * (size_t)per);
    for (int64_t k = 0; k < per; k++) {
      float f = const_f32(c->g, sv, k);
      int32_t bits;
      memcpy(&bits, &f, 4);
      si[k] = bits;
      zi[k] = const_int(c->g, zv, k);
    }
    stab = cg_table_i64(c, si, per);
    ztab = cg_table_i64(c, zi, per);
    free(si);
    free(zi);
  }
  cg_loop l;
  LLVMValueRef i = loop(c, &l, 0, n);
  LLVMValueRef s, z;
  if (per > 1) {
    LLVMValueRef k = LLVMBuildSRem(c->b, LLVMBuildSDiv(c->b, i, C(c, inner), ""), C(c, ch), "");
    s = LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, cg_table_at(c, stab, k), c->i32, ""), c->f32, "");
    z = LLVMBuildTrunc(c->b, cg_table_at(c, ztab, k), c->i32, "");
  } else {
    s = F(c, const_f32(c->g, sv, 0));
    z = I32(c, const_int(c->g, zv, 0));
  }
  if (dequant) {
    LLVMValueRef q = LLVMBuildSub(c->b, tload(c, x->dtype, in_p(c, 0), i), z, "");
    tstore(c, VTA_DT_F32, LLVMBuildFMul(c->b, LLVMBuildSIToFP(c->b, q, c->f32, ""), s, ""), out_p(c), i);
  } else {
    LLVMValueRef q = rint_f32(c, LLVMBuildFDiv(c->b, tload(c, VTA_DT_F32, in_p(c, 0), i), s, ""));
    q = LLVMBuildFAdd(c->b, q, LLVMBuildSIToFP(c->b, z, c->f32, ""), "");
    tstore(c, o->dtype, sat_f32(c, q, type_lo(o->dtype), type_hi(o->dtype)), out_p(c), i);
  }
  cg_loop_close(c, &l);
}

/* ---- epilogues of the integer sums ---- */

typedef struct {
  int kind;                /* EPI_RAW (int32 out), EPI_FLOAT (ONNX QLinear*), EPI_REQUANT */
  vta_dtype out;
  LLVMValueRef bias;       /* i32 pointer or NULL */
  /* EPI_FLOAT: multiplier per output channel (table of float bits, or a constant), zero point */
  LLVMValueRef ftab;
  float fmul;
  int32_t yzp;
  /* EPI_REQUANT */
  LLVMValueRef mtab;       /* per-channel multiplier table, or NULL */
  int shift, lo, hi;
  int leaky_k, leaky_m;    /* a folded LeakyRelu (compiler.h, "Quantized operators"), k 0: none */
} epi_t;
enum { EPI_RAW, EPI_FLOAT, EPI_REQUANT };

/* The value stored for sum acc (i32) of output channel ch (i64). */
static LLVMValueRef epilogue(cg *c, const epi_t *e, LLVMValueRef acc, LLVMValueRef ch) {
  LLVMValueRef b = e->bias ? tload(c, VTA_DT_I32, e->bias, ch) : I32(c, 0);
  switch (e->kind) {
  case EPI_RAW: return acc;
  case EPI_FLOAT: {
    /* onnxruntime: float(acc + bias) * (x_scale * w_scale / y_scale), rounded half to even,
     * plus the zero point, saturated. */
    LLVMValueRef m = e->ftab ? LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, cg_table_at(c, e->ftab, ch), c->i32, ""), c->f32, "")
                             : F(c, e->fmul);
    LLVMValueRef f = LLVMBuildFMul(c->b, LLVMBuildSIToFP(c->b, LLVMBuildAdd(c->b, acc, b, ""), c->f32, ""), m, "");
    f = LLVMBuildFAdd(c->b, rint_f32(c, f), F(c, e->yzp), "");
    return sat_f32(c, f, type_lo(e->out), type_hi(e->out));
  }
  default: {
    LLVMValueRef z;
    int k = e->leaky_k, shift = e->shift + k;
    if (e->mtab) {
      LLVMValueRef y = LLVMBuildMul(c->b, LLVMBuildSExt(c->b, acc, c->i64, ""), cg_table_at(c, e->mtab, ch), "");
      y = LLVMBuildAdd(c->b, y, LLVMBuildSExt(c->b, b, c->i64, ""), "");
      if (k) y = cg_smax(c, LLVMBuildShl(c->b, y, C(c, k), ""), LLVMBuildMul(c->b, y, C(c, e->leaky_m), ""));
      if (shift) y = LLVMBuildAdd(c->b, y, C(c, (int64_t)1 << (shift - 1)), "");
      y = LLVMBuildAShr(c->b, y, C(c, shift), "");
      y = cg_smax(c, cg_smin(c, y, C(c, e->hi)), C(c, e->lo));
      z = LLVMBuildTrunc(c->b, y, c->i32, "");
    } else {
      LLVMValueRef y = LLVMBuildAdd(c->b, acc, b, ""); /* wrapping, as the accelerator */
      if (k) y = smax32(c, LLVMBuildShl(c->b, y, I32(c, k), ""), LLVMBuildMul(c->b, y, I32(c, e->leaky_m), ""));
      if (shift) y = LLVMBuildAdd(c->b, y, I32(c, 1ll << (shift - 1)), "");
      y = LLVMBuildAShr(c->b, y, I32(c, shift), "");
      z = smax32(c, smin32(c, y, I32(c, e->hi)), I32(c, e->lo));
    }
    return z;
  }
  }
}

/* Multipliers x_scale * w_scale[k] / y_scale for k < n as a float-bits table (n > 1) or fmul. */
static void float_multipliers(cg *c, epi_t *e, int xs, int ws, int ys, int64_t n) {
  float sx = const_f32(c->g, xs, 0), sy = const_f32(c->g, ys, 0);
  if (vta_value_count(V(c, ws)) == 1) {
    e->fmul = sx * const_f32(c->g, ws, 0) / sy;
    return;
  }
  int64_t *t = malloc(sizeof(int64_t) * (size_t)n);
  for (int64_t k = 0; k < n; k++) {
    float f = sx * const_f32(c->g, ws, k) / sy;
    int32_t bits;
    memcpy(&bits, &f, 4);
    t[k] = bits;
  }
  e->ftab = cg_table_i64(c, t, n);
  free(t);
}

static void requant_params(cg *c, epi_t *e, int64_t n) {
  e->kind = EPI_REQUANT;
  e->shift = (int)vta_node_int(c->nd, "shift", 0);
  e->lo = (int)vta_node_int(c->nd, "lo", -128);
  e->hi = (int)vta_node_int(c->nd, "hi", 127);
  e->leaky_k = (int)vta_node_int(c->nd, "leaky_k", 0);
  e->leaky_m = (int)vta_node_int(c->nd, "leaky_m", 0);
  if (c->nd->n_in > 3 && c->nd->in[3] >= 0) {
    const vta_gvalue *m = V(c, c->nd->in[3]);
    int64_t *t = malloc(sizeof(int64_t) * (size_t)n + 8);
    for (int64_t k = 0; k < n; k++) t[k] = ((const int32_t *)m->data)[k];
    e->mtab = cg_table_i64(c, t, n);
    free(t);
  }
}

/* ---- convolutions ---- */

/* Valid kernel taps: for output position o, taps t in [lo[o], hi[o]) read input
 * o*s - p + t*d inside [0, n). */
static void tap_range(int64_t n_out, int64_t n_in, int64_t k, int64_t s, int64_t p, int64_t d,
                      int64_t *lo, int64_t *hi) {
  for (int64_t o = 0; o < n_out; o++) {
    int64_t a = 0, b = k;
    while (a < k && o * s - p + a * d < 0) a++;
    while (b > a && o * s - p + (b - 1) * d >= n_in) b--;
    lo[o] = a;
    hi[o] = b;
  }
}

/* One integer convolution: x at input xi (zero point xz, a constant value or -1), w at wi
 * (zero point wz per output channel), epilogue e. */
static void emit_iconv(cg *c, int xi, int wi, int xz, int wz, const epi_t *e) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[xi]), *w = V(c, nd->in[wi]), *o = V(c, nd->out[0]);
  int two = x->rank == 4;
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  vta_node_ints(nd, "strides", st, 2);
  vta_node_ints(nd, "dilations", dl, 2);
  vta_node_ints(nd, "pads", pd, 4);
  int64_t N = x->dims[0], Cin = x->dims[1], H = two ? x->dims[2] : 1, W = x->dims[two ? 3 : 2];
  int64_t M = o->dims[1], OH = two ? o->dims[2] : 1, OW = o->dims[two ? 3 : 2];
  int64_t KH = two ? w->dims[2] : 1, KW = w->dims[two ? 3 : 2];
  int64_t SH = two ? st[0] : 1, SW = two ? st[1] : st[0], DH = two ? dl[0] : 1, DW = two ? dl[1] : dl[0];
  int64_t PT = two ? pd[0] : 0, PL = two ? pd[1] : pd[0];
  int64_t G = vta_node_int(nd, "group", 1), CG = Cin / G, MG = M / G;
  int64_t *yl = malloc(sizeof(int64_t) * (size_t)(2 * OH + 2 * OW));
  int64_t *yh = yl + OH, *xl = yh + OH, *xh = xl + OW;
  tap_range(OH, H, KH, SH, PT, DH, yl, yh);
  tap_range(OW, W, KW, SW, PL, DW, xl, xh);
  LLVMValueRef tyl = cg_table_i64(c, yl, OH), tyh = cg_table_i64(c, yh, OH), txl = cg_table_i64(c, xl, OW), txh = cg_table_i64(c, xh, OW);
  free(yl);
  /* Weight zero points per output channel (ONNX allows one per channel). */
  int wz_per = wz >= 0 && vta_value_count(V(c, wz)) > 1;
  LLVMValueRef wztab = NULL;
  if (wz_per) {
    int64_t *t = malloc(sizeof(int64_t) * (size_t)M);
    for (int64_t m = 0; m < M; m++) t[m] = const_int(c->g, wz, m);
    wztab = cg_table_i64(c, t, M);
    free(t);
  }
  LLVMValueRef X = in_p(c, xi), Wp = in_p(c, wi), O = out_p(c);
  LLVMValueRef xzv = I32(c, const_int(c->g, xz, 0));
  LLVMValueRef acc = cg_slot(c, c->i32);
  cg_loop ln, lm, loy, lox, lc, lky, lkx;
  LLVMValueRef n = loop(c, &ln, 0, N);
  LLVMValueRef m = loop(c, &lm, 0, M);
  LLVMValueRef grp = LLVMBuildSDiv(c->b, m, C(c, MG), "");
  LLVMValueRef wzv = wz_per ? LLVMBuildTrunc(c->b, cg_table_at(c, wztab, m), c->i32, "") : I32(c, const_int(c->g, wz, 0));
  LLVMValueRef xbase = mul(c, add(c, mul(c, n, Cin), mul(c, grp, CG)), H * W);
  LLVMValueRef wbase = mul(c, m, CG * KH * KW);
  LLVMValueRef obase = mul(c, add(c, mul(c, n, M), m), OH * OW);
  LLVMValueRef oy = loop(c, &loy, 0, OH);
  LLVMValueRef ky0 = cg_table_at(c, tyl, oy), ky1 = cg_table_at(c, tyh, oy);
  LLVMValueRef iy0 = LLVMBuildNSWSub(c->b, mul(c, oy, SH), C(c, PT), "");
  LLVMValueRef ox = loop(c, &lox, 0, OW);
  LLVMValueRef kx0 = cg_table_at(c, txl, ox), kx1 = cg_table_at(c, txh, ox);
  LLVMValueRef ix0 = LLVMBuildNSWSub(c->b, mul(c, ox, SW), C(c, PL), "");
  LLVMBuildStore(c->b, I32(c, 0), acc);
  LLVMValueRef ci = loop(c, &lc, 0, CG);
  LLVMValueRef xc = add(c, xbase, mul(c, ci, H * W)), wc = add(c, wbase, mul(c, ci, KH * KW));
  LLVMValueRef ky = cg_loop_open(c, &lky, ky0, ky1, 1);
  LLVMValueRef xrow = add(c, xc, mul(c, add(c, iy0, mul(c, ky, DH)), W));
  LLVMValueRef wrow = add(c, wc, mul(c, ky, KW));
  LLVMValueRef kx = cg_loop_open(c, &lkx, kx0, kx1, 1);
  LLVMValueRef xv = tload(c, x->dtype, X, add(c, xrow, add(c, ix0, mul(c, kx, DW))));
  LLVMValueRef wv = tload(c, w->dtype, Wp, add(c, wrow, kx));
  xv = LLVMBuildSub(c->b, xv, xzv, "");
  wv = LLVMBuildSub(c->b, wv, wzv, "");
  LLVMValueRef a = LLVMBuildLoad2(c->b, c->i32, acc, "");
  LLVMBuildStore(c->b, LLVMBuildAdd(c->b, a, LLVMBuildMul(c->b, xv, wv, ""), ""), acc);
  cg_loop_close(c, &lkx);
  cg_loop_close(c, &lky);
  cg_loop_close(c, &lc);
  LLVMValueRef r = epilogue(c, e, LLVMBuildLoad2(c->b, c->i32, acc, ""), m);
  tstore(c, o->dtype, r, O, add(c, obase, add(c, mul(c, oy, OW), ox)));
  cg_loop_close(c, &lox);
  cg_loop_close(c, &loy);
  cg_loop_close(c, &lm);
  cg_loop_close(c, &ln);
}

/* ---- matrix products ---- */

/* out[..., M, N] = epi(sum_k (A[..., M, K] - az) * (B'[..., K, N] - bz[n])); with bt set, B is
 * stored [N, K] (QDense's weights) and has no batch dimensions. */
static void emit_imatmul(cg *c, int ai, int bi, int az, int bz, int bt, const epi_t *e) {
  const vta_node *nd = c->nd;
  const vta_gvalue *a = V(c, nd->in[ai]), *b = V(c, nd->in[bi]), *o = V(c, nd->out[0]);
  int64_t K = a->dims[a->rank - 1], M = a->rank > 1 ? a->dims[a->rank - 2] : 1;
  int64_t N = bt ? b->dims[0] : (b->rank > 1 ? b->dims[b->rank - 1] : 1);
  /* Batch dimensions: for QDense every leading dimension of A is a row. */
  int ob = 0, ab = 0, bb = 0;
  int64_t as[VTA_MAX_RANK] = {0}, bs[VTA_MAX_RANK] = {0}, os[VTA_MAX_RANK] = {0}, od[VTA_MAX_RANK];
  if (bt) {
    M = vta_value_count(a) / (K ? K : 1);
  } else {
    ob = o->rank - (a->rank > 1) - (b->rank > 1);
    ab = a->rank > 2 ? a->rank - 2 : 0;
    bb = b->rank > 2 ? b->rank - 2 : 0;
    int64_t acc = M * K, bacc = K * N, oacc = M * N;
    for (int d = ob - 1; d >= 0; d--) {
      int adim = d - (ob - ab), bdim = d - (ob - bb);
      if (adim >= 0 && a->dims[adim] != 1) as[d] = acc;
      if (adim >= 0) acc *= a->dims[adim];
      if (bdim >= 0 && b->dims[bdim] != 1) bs[d] = bacc;
      if (bdim >= 0) bacc *= b->dims[bdim];
      os[d] = oacc;
      oacc *= o->dims[d];
      od[d] = o->dims[d];
    }
  }
  int bz_per = bz >= 0 && vta_value_count(V(c, bz)) > 1;
  LLVMValueRef bztab = NULL;
  if (bz_per) {
    int64_t *t = malloc(sizeof(int64_t) * (size_t)N);
    for (int64_t j = 0; j < N; j++) t[j] = const_int(c->g, bz, j);
    bztab = cg_table_i64(c, t, N);
    free(t);
  }
  LLVMValueRef A = in_p(c, ai), B = in_p(c, bi), O = out_p(c), acc = cg_slot(c, c->i32);
  LLVMValueRef azv = I32(c, const_int(c->g, az, 0));
  cg_loop lb[VTA_MAX_RANK], li, lj, lk;
  LLVMValueRef ao = C(c, 0), bo = C(c, 0), oo = C(c, 0);
  for (int d = 0; d < ob; d++) {
    LLVMValueRef i = loop(c, &lb[d], 0, od[d]);
    ao = add(c, ao, mul(c, i, as[d]));
    bo = add(c, bo, mul(c, i, bs[d]));
    oo = add(c, oo, mul(c, i, os[d]));
  }
  LLVMValueRef i = loop(c, &li, 0, M);
  LLVMValueRef j = loop(c, &lj, 0, N);
  LLVMValueRef bzv = bz_per ? LLVMBuildTrunc(c->b, cg_table_at(c, bztab, j), c->i32, "") : I32(c, const_int(c->g, bz, 0));
  LLVMBuildStore(c->b, I32(c, 0), acc);
  LLVMValueRef k = loop(c, &lk, 0, K);
  LLVMValueRef av = tload(c, a->dtype, A, add(c, ao, add(c, mul(c, i, K), k)));
  LLVMValueRef bidx = bt ? add(c, mul(c, j, K), k) : add(c, bo, add(c, mul(c, k, N), j));
  LLVMValueRef bv = tload(c, b->dtype, B, bidx);
  LLVMValueRef p = LLVMBuildMul(c->b, LLVMBuildSub(c->b, av, azv, ""), LLVMBuildSub(c->b, bv, bzv, ""), "");
  LLVMBuildStore(c->b, LLVMBuildAdd(c->b, LLVMBuildLoad2(c->b, c->i32, acc, ""), p, ""), acc);
  cg_loop_close(c, &lk);
  LLVMValueRef r = epilogue(c, e, LLVMBuildLoad2(c->b, c->i32, acc, ""), j);
  tstore(c, o->dtype, r, O, add(c, oo, add(c, mul(c, i, N), j)));
  cg_loop_close(c, &lj);
  cg_loop_close(c, &li);
  for (int d = ob - 1; d >= 0; d--) cg_loop_close(c, &lb[d]);
}

/* ---- QAdd, int8 max pooling ---- */

static void emit_qadd(cg *c) {
  const vta_node *nd = c->nd;
  int64_t n = vta_value_count(V(c, nd->out[0]));
  int shift = (int)vta_node_int(nd, "shift", 0), lo = (int)vta_node_int(nd, "lo", -128);
  int hi = (int)vta_node_int(nd, "hi", 127);
  cg_loop l;
  LLVMValueRef i = loop(c, &l, 0, n);
  LLVMValueRef a = LLVMBuildMul(c->b, tload(c, VTA_DT_I8, in_p(c, 0), i), I32(c, vta_node_int(nd, "ma", 1)), "");
  LLVMValueRef b = LLVMBuildMul(c->b, tload(c, VTA_DT_I8, in_p(c, 1), i), I32(c, vta_node_int(nd, "mb", 1)), "");
  LLVMValueRef y = LLVMBuildAdd(c->b, a, b, "");
  if (shift) y = LLVMBuildAdd(c->b, y, I32(c, 1ll << (shift - 1)), "");
  y = LLVMBuildAShr(c->b, y, I32(c, shift), "");
  tstore(c, VTA_DT_I8, smax32(c, smin32(c, y, I32(c, hi)), I32(c, lo)), out_p(c), i);
  cg_loop_close(c, &l);
}

void cg_emit_imaxpool(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int two = x->rank == 4, global = nd->op == VTA_GOP_GLOBAL_MAXPOOL;
  int64_t NC = x->dims[0] * x->dims[1], H = two ? x->dims[2] : 1, W = x->dims[two ? 3 : 2];
  int64_t OH = two ? o->dims[2] : 1, OW = o->dims[two ? 3 : 2];
  int64_t ks[2] = {1, 1}, st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  if (global) {
    ks[0] = H, ks[1] = W;
  } else {
    vta_node_ints(nd, "kernel_shape", ks, 2);
    vta_node_ints(nd, "strides", st, 2);
    vta_node_ints(nd, "dilations", dl, 2);
    vta_node_ints(nd, "pads", pd, 4);
  }
  int64_t KH = two ? ks[0] : 1, KW = two ? ks[1] : ks[0], SH = two ? st[0] : 1, SW = two ? st[1] : st[0];
  int64_t DH = two ? dl[0] : 1, DW = two ? dl[1] : dl[0], PT = two ? pd[0] : 0, PL = two ? pd[1] : pd[0];
  if (global) KH = H, KW = W, SH = SW = DH = DW = 1, PT = PL = 0;
  int64_t *yl = malloc(sizeof(int64_t) * (size_t)(2 * OH + 2 * OW));
  int64_t *yh = yl + OH, *xl = yh + OH, *xh = xl + OW;
  tap_range(OH, H, KH, SH, PT, DH, yl, yh);
  tap_range(OW, W, KW, SW, PL, DW, xl, xh);
  LLVMValueRef tyl = cg_table_i64(c, yl, OH), tyh = cg_table_i64(c, yh, OH), txl = cg_table_i64(c, xl, OW), txh = cg_table_i64(c, xh, OW);
  free(yl);
  LLVMValueRef acc = cg_slot(c, c->i32), X = in_p(c, 0), O = out_p(c);
  cg_loop l1, l2, l3, l4, l5;
  LLVMValueRef i = loop(c, &l1, 0, NC);
  LLVMValueRef oy = loop(c, &l2, 0, OH);
  LLVMValueRef ox = loop(c, &l3, 0, OW);
  LLVMBuildStore(c->b, I32(c, (int64_t)type_lo(x->dtype)), acc);
  LLVMValueRef iy0 = LLVMBuildNSWSub(c->b, mul(c, oy, SH), C(c, PT), "");
  LLVMValueRef ix0 = LLVMBuildNSWSub(c->b, mul(c, ox, SW), C(c, PL), "");
  LLVMValueRef ky = cg_loop_open(c, &l4, cg_table_at(c, tyl, oy), cg_table_at(c, tyh, oy), 1);
  LLVMValueRef row = add(c, mul(c, i, H * W), mul(c, add(c, iy0, mul(c, ky, DH)), W));
  LLVMValueRef kx = cg_loop_open(c, &l5, cg_table_at(c, txl, ox), cg_table_at(c, txh, ox), 1);
  LLVMValueRef v = tload(c, x->dtype, X, add(c, row, add(c, ix0, mul(c, kx, DW))));
  LLVMBuildStore(c->b, smax32(c, LLVMBuildLoad2(c->b, c->i32, acc, ""), v), acc);
  cg_loop_close(c, &l5);
  cg_loop_close(c, &l4);
  tstore(c, o->dtype, LLVMBuildLoad2(c->b, c->i32, acc, ""), O,
         add(c, mul(c, i, OH * OW), add(c, mul(c, oy, OW), ox)));
  cg_loop_close(c, &l3);
  cg_loop_close(c, &l2);
  cg_loop_close(c, &l1);
}

/* ---- dispatch ---- */

static int emit_qop(cg *c) {
  const vta_node *nd = c->nd;
  epi_t e;
  memset(&e, 0, sizeof e);
  e.out = V(c, nd->out[0])->dtype;
  int in = nd->n_in;
#define IN_OR(k) (has_in(c, k) ? nd->in[k] : -1)
  switch (nd->op) {
  case VTA_GOP_QUANTIZE_LINEAR: emit_quantize(c, 0); return 1;
  case VTA_GOP_DEQUANTIZE_LINEAR: emit_quantize(c, 1); return 1;
  case VTA_GOP_CONV_INTEGER:
    e.kind = EPI_RAW;
    emit_iconv(c, 0, 1, IN_OR(2), IN_OR(3), &e);
    return 1;
  case VTA_GOP_QLINEAR_CONV:
    e.kind = EPI_FLOAT;
    e.bias = in > 8 && has_in(c, 8) ? in_p(c, 8) : NULL;
    e.yzp = (int32_t)const_int(c->g, nd->in[7], 0);
    float_multipliers(c, &e, nd->in[1], nd->in[4], nd->in[6], V(c, nd->out[0])->dims[1]);
    emit_iconv(c, 0, 3, nd->in[2], IN_OR(5), &e);
    return 1;
  case VTA_GOP_QCONV:
    e.bias = has_in(c, 2) ? in_p(c, 2) : NULL;
    requant_params(c, &e, V(c, nd->out[0])->dims[1]);
    emit_iconv(c, 0, 1, -1, -1, &e);
    return 1;
  case VTA_GOP_MATMUL_INTEGER:
    e.kind = EPI_RAW;
    emit_imatmul(c, 0, 1, IN_OR(2), IN_OR(3), 0, &e);
    return 1;
  case VTA_GOP_QLINEAR_MATMUL: {
    const vta_gvalue *o = V(c, nd->out[0]);
    e.kind = EPI_FLOAT;
    e.yzp = (int32_t)const_int(c->g, nd->in[7], 0);
    float_multipliers(c, &e, nd->in[1], nd->in[4], nd->in[6], o->dims[o->rank - 1]);
    emit_imatmul(c, 0, 3, nd->in[2], nd->in[5], 0, &e);
    return 1;
  }
  case VTA_GOP_QDENSE:
    e.bias = has_in(c, 2) ? in_p(c, 2) : NULL;
    requant_params(c, &e, V(c, nd->in[1])->dims[0]);
    emit_imatmul(c, 0, 1, -1, -1, 1, &e);
    return 1;
  case VTA_GOP_QADD: emit_qadd(c); return 1;
  default: return 0;
  }
#undef IN_OR
}

/* Element types are checked by the shape rules; fused steps only on DequantizeLinear's float
 * output. */
static int quant_supports(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  return nd->op == VTA_GOP_DEQUANTIZE_LINEAR || nd->n_epi == 0;
}

static int quant_emit(cg *c) {
  emit_qop(c);
  /* A DequantizeLinear's float output may carry fused epilogue steps: the driver runs them. */
  if (c->nd->op != VTA_GOP_DEQUANTIZE_LINEAR) c->epi_done = c->nd->n_epi;
  return 0;
}

const vta_op_family vta_family_quant = {"op_quant.c", quant_infer, quant_eval, quant_supports, quant_emit, quant_folds};
