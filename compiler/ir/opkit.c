/* opkit.c - the small helpers every operator family's shape rule and reference use (the
 * families: compiler/cpu/op_<family>.c, found through VTA_GOPS).
 *
 * The design idea: a family file should read as the operator's definition, so what every rule
 * needs (its inputs, setting an output, an error that names the node, the elements of a
 * constant of any element type) is written once here rather than per family.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler/compiler.h"

vta_gvalue *vta_op_in(vta_graph *g, int i, int k) {
  const vta_node *nd = &g->nodes[i];
  return k >= 0 && k < nd->n_in && nd->in[k] >= 0 ? &g->values[nd->in[k]] : NULL;
}

void vta_op_set_out(vta_graph *g, int i, int k, vta_dtype t, int rank, const int64_t *dims) {
  vta_gvalue *v = &g->values[g->nodes[i].out[k]];
  v->dtype = t;
  v->rank = rank;
  for (int d = 0; d < rank; d++) v->dims[d] = dims[d];
}

int vta_op_error(const vta_graph *g, int i, vta_error *err, vta_status status, const char *fmt, ...) {
  char where[300], msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(err, status, "%s: %s", vta_node_describe(g, i, where, sizeof where), msg);
}

int vta_const_floats(const vta_gvalue *v, float *out, int max) {
  if (!v || !v->data) return -1;
  int64_t n = vta_value_count(v);
  if (n > max) return -1;
  for (int64_t i = 0; i < n; i++) {
    switch (v->dtype) {
    case VTA_DT_F32: out[i] = ((const float *)v->data)[i]; break;
    case VTA_DT_F64: out[i] = (float)((const double *)v->data)[i]; break;
    default: return -1;
    }
  }
  return (int)n;
}

static int oom(vta_error *err) { return vta_error_set(err, VTA_ERR_NOMEM, "out of memory"); }
int vta_op_set_ints(vta_graph *g, int i, vta_error *err, const char *name, int n, const int64_t *v) {
  vta_node *nd = &g->nodes[i];
  return vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, name, n, v) ? oom(err) : 0;
}
int vta_op_set_int(vta_graph *g, int i, vta_error *err, const char *name, int64_t v) {
  vta_node *nd = &g->nodes[i];
  return vta_attrs_set_int(&nd->n_attrs, &nd->attrs, name, v) ? oom(err) : 0;
}
int vta_op_set_float(vta_graph *g, int i, vta_error *err, const char *name, float v) {
  vta_node *nd = &g->nodes[i];
  return vta_attrs_set_float(&nd->n_attrs, &nd->attrs, name, v) ? oom(err) : 0;
}

int vta_op_input_to_ints(vta_graph *g, int i, vta_error *err, int k, const char *name, int required) {
  vta_node *nd = &g->nodes[i];
  if (k >= nd->n_in) {
    if (required) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d (%s) is missing", k, name);
    return 0;
  }
  vta_gvalue *v = vta_op_in(g, i, k);
  if (v) {
    int64_t vals[64];
    int n = vta_const_ints(v, vals, 64);
    if (n < 0)
      return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "input %d (%s) must be a constant integer tensor known at "
                          "compile time (value '%s' is computed from the model's inputs)", k, name, v->name);
    if (vta_op_set_ints(g, i, err, name, n, vals)) return -1;
  } else if (required) {
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d (%s) is missing", k, name);
  }
  nd->in[k] = -1;
  return 0;
}

void vta_node_trim_inputs(vta_node *nd) {
  while (nd->n_in > 0 && nd->in[nd->n_in - 1] < 0) nd->n_in--;
}

int vta_op_axis(const vta_graph *g, int i, vta_error *err, int64_t axis, int rank, int64_t *out) {
  if (axis < -rank || axis >= rank)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", axis, rank);
  *out = axis < 0 ? axis + rank : axis;
  return 0;
}

void vta_value_strides(const vta_gvalue *v, int64_t *s) {
  int64_t acc = 1;
  for (int d = v->rank - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= v->dims[d];
  }
}

void vta_value_unravel(const vta_gvalue *v, int64_t i, int64_t *idx) {
  for (int d = v->rank - 1; d >= 0; d--) {
    idx[d] = v->dims[d] ? i % v->dims[d] : 0;
    i = v->dims[d] ? i / v->dims[d] : 0;
  }
}

int vta_op_need_shape(const vta_graph *g, int i, vta_error *err, const vta_gvalue *v, int k) {
  if (!v) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d is missing", k);
  if (v->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the shape of input %d ('%s') is unknown", k, v->name);
  return 0;
}

int vta_op_broadcast(const vta_graph *g, int i, vta_error *err, const vta_gvalue *a, const vta_gvalue *b,
                     int *rank, int64_t *dims) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  for (int d = 0; d < r; d++) {
    int ia = d - (r - a->rank), ib = d - (r - b->rank);
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "shapes of '%s' and '%s' do not broadcast (dimension %d: %" PRId64
                          " vs %" PRId64 ")", a->name, b->name, d, da, db);
    dims[d] = da == 1 ? db : da;
  }
  *rank = r;
  return 0;
}

int vta_const_ints(const vta_gvalue *v, int64_t *out, int max) {
  if (!v || !v->data || (v->dtype != VTA_DT_I64 && v->dtype != VTA_DT_I32)) return -1;
  int64_t n = vta_value_count(v);
  if (n > max) return -1;
  for (int64_t i = 0; i < n; i++)
    out[i] = v->dtype == VTA_DT_I64 ? ((const int64_t *)v->data)[i] : ((const int32_t *)v->data)[i];
  return (int)n;
}

/* IEEE half precision from and to double (round to nearest even, overflow to infinity). */
static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double x = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return h & 0x8000 ? -x : x;
}
static uint16_t double_to_half(double x) {
  uint16_t s = signbit(x) ? 0x8000 : 0;
  if (isnan(x)) return 0x7e00;
  x = fabs(x);
  if (x >= 65520.0) return s | 0x7c00; /* rounds to infinity */
  if (x < ldexp(1, -14)) return s | (uint16_t)nearbyint(ldexp(x, 24)); /* subnormal (may round up to the smallest normal) */
  int e;
  double f = frexp(x, &e); /* x = f * 2^e, f in [0.5, 1) */
  int m = (int)nearbyint(ldexp(f, 11)); /* 1024..2048 */
  if (m == 2048) m = 1024, e++;
  if (e + 14 >= 31) return s | 0x7c00;
  return s | (uint16_t)((e + 14) << 10) | (uint16_t)(m - 1024);
}

double vta_elem_get(const vta_gvalue *v, int64_t i) {
  switch (v->dtype) {
  case VTA_DT_F32: return ((const float *)v->data)[i];
  case VTA_DT_F64: return ((const double *)v->data)[i];
  case VTA_DT_F16: return half_to_double(((const uint16_t *)v->data)[i]);
  case VTA_DT_I64: return (double)((const int64_t *)v->data)[i];
  case VTA_DT_U64: return (double)((const uint64_t *)v->data)[i];
  case VTA_DT_I32: return ((const int32_t *)v->data)[i];
  case VTA_DT_U32: return ((const uint32_t *)v->data)[i];
  case VTA_DT_I16: return ((const int16_t *)v->data)[i];
  case VTA_DT_U16: return ((const uint16_t *)v->data)[i];
  case VTA_DT_I8: return ((const int8_t *)v->data)[i];
  default: return ((const uint8_t *)v->data)[i];
  }
}

/* Out-of-range doubles are cut to the type's range first: converting them is undefined in C. */
static int64_t to_i64(double x) {
  if (isnan(x)) return 0;
  if (x >= 9223372036854775807.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)x;
}

void vta_elem_put(vta_gvalue *v, int64_t i, double x) {
  switch (v->dtype) {
  case VTA_DT_F32: ((float *)v->data)[i] = (float)x; break;
  case VTA_DT_F64: ((double *)v->data)[i] = x; break;
  case VTA_DT_I64: ((int64_t *)v->data)[i] = to_i64(x); break;
  case VTA_DT_I32: ((int32_t *)v->data)[i] = (int32_t)(uint32_t)(uint64_t)to_i64(x); break;
  case VTA_DT_I8: ((int8_t *)v->data)[i] = (int8_t)(uint8_t)(uint64_t)to_i64(x); break;
  case VTA_DT_F16: ((uint16_t *)v->data)[i] = double_to_half(x); break;
  case VTA_DT_I16: case VTA_DT_U16: ((uint16_t *)v->data)[i] = (uint16_t)(uint64_t)to_i64(x); break;
  case VTA_DT_U32: ((uint32_t *)v->data)[i] = (uint32_t)(uint64_t)to_i64(x); break;
  case VTA_DT_U64: ((uint64_t *)v->data)[i] = x >= 9223372036854775808.0 && x < 18446744073709551616.0
                                                  ? (uint64_t)x : (uint64_t)to_i64(x);
    break;
  case VTA_DT_BOOL: ((uint8_t *)v->data)[i] = x != 0; break;
  default: ((uint8_t *)v->data)[i] = (uint8_t)(uint64_t)to_i64(x); break;
  }
}

int vta_op_window(vta_graph *g, int i, vta_error *err, const vta_gvalue *x, const int64_t *kernel,
                  int transpose, int64_t *out_sp) {
  vta_node *nd = &g->nodes[i];
  int nsp = x->rank - 2;
  int64_t strides[VTA_MAX_RANK], dil[VTA_MAX_RANK], pads[2 * VTA_MAX_RANK], opad[VTA_MAX_RANK];
  for (int d = 0; d < nsp; d++) strides[d] = dil[d] = 1, pads[d] = pads[d + nsp] = 0, opad[d] = 0;
  int n;
  if ((n = vta_node_ints(nd, "strides", strides, nsp)) >= 0 && n != nsp)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "strides has %d values, expected %d", n, nsp);
  if ((n = vta_node_ints(nd, "dilations", dil, nsp)) >= 0 && n != nsp)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "dilations has %d values, expected %d", n, nsp);
  if ((n = vta_node_ints(nd, "pads", pads, 2 * nsp)) >= 0 && n != 2 * nsp)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "pads has %d values, expected %d", n, 2 * nsp);
  if (transpose && (n = vta_node_ints(nd, "output_padding", opad, nsp)) >= 0 && n != nsp)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "output_padding has %d values, expected %d", n, nsp);
  for (int d = 0; d < nsp; d++) {
    if (strides[d] < 1 || dil[d] < 1 || kernel[d] < 1)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "strides, dilations and kernel sizes must be positive");
    if (pads[d] < 0 || pads[d + nsp] < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "negative pads are not supported");
  }
  const char *ap = vta_node_string(nd, "auto_pad", "NOTSET");
  int ceil_mode = (int)vta_node_int(nd, "ceil_mode", 0);
  int64_t oshape[VTA_MAX_RANK];
  int has_oshape = transpose && vta_node_ints(nd, "output_shape", oshape, nsp) >= 0;
  if (has_oshape && vta_node_ints(nd, "output_shape", oshape, nsp) != nsp) {
    /* output_shape may include N and C */
    int64_t full[VTA_MAX_RANK];
    int cnt = vta_node_ints(nd, "output_shape", full, VTA_MAX_RANK);
    if (cnt != nsp + 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "output_shape has %d values, expected %d", cnt, nsp);
    for (int d = 0; d < nsp; d++) oshape[d] = full[d + 2];
  }
  for (int d = 0; d < nsp; d++) {
    int64_t in = x->dims[d + 2], ek = (kernel[d] - 1) * dil[d] + 1;
    if (transpose) {
      if (has_oshape || strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
        int64_t target = has_oshape ? oshape[d] : in * strides[d];
        int64_t total = strides[d] * (in - 1) + opad[d] + ek - target;
        if (total < 0) total = 0;
        if (strcmp(ap, "SAME_UPPER") == 0) {
          pads[d] = total / 2;
          pads[d + nsp] = total - total / 2;
        } else {
          pads[d] = total - total / 2;
          pads[d + nsp] = total / 2;
        }
      }
      /* With output_shape the output has exactly that size: when it exceeds the natural size
       * (total padding clamped at 0 above), the extra positions receive only the bias. */
      out_sp[d] = has_oshape ? oshape[d] : strides[d] * (in - 1) + opad[d] + ek - pads[d] - pads[d + nsp];
    } else {
      if (strcmp(ap, "VALID") == 0) {
        pads[d] = pads[d + nsp] = 0;
      } else if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
        int64_t o = (in + strides[d] - 1) / strides[d];
        int64_t total = (o - 1) * strides[d] + ek - in;
        if (total < 0) total = 0;
        pads[d] = strcmp(ap, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
        pads[d + nsp] = total - pads[d];
      } else if (strcmp(ap, "NOTSET") != 0) {
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "auto_pad '%s' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER", ap);
      }
      int64_t span = in + pads[d] + pads[d + nsp] - ek;
      if (span < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the kernel (%" PRId64 ") is larger than the padded input (%" PRId64 ")", ek, in + pads[d] + pads[d + nsp]);
      out_sp[d] = (ceil_mode ? (span + strides[d] - 1) / strides[d] : span / strides[d]) + 1;
      /* The last window must start inside the input or its left padding (as onnxruntime). */
      if (ceil_mode && (out_sp[d] - 1) * strides[d] >= in + pads[d]) out_sp[d]--;
    }
    if (out_sp[d] < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "spatial dimension %d of the output would be empty", d);
  }
  vta_node_remove_attr(nd, "auto_pad");
  vta_node_remove_attr(nd, "output_shape");
  if (vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "kernel_shape", nsp, kernel) ||
      vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "strides", nsp, strides) ||
      vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "dilations", nsp, dil) ||
      vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "pads", 2 * nsp, pads) ||
      (transpose && vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "output_padding", nsp, opad)))
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  return 0;
}
