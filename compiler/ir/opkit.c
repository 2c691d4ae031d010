/* opkit.c - the small helpers every operator family's shape rule and reference use (the
 * families: compiler/cpu/op_<family>.c, found through VTA_GOPS).
 *
 * The design idea: a family file should read as the operator's definition, so what every rule
 * needs (its inputs, setting an output, an error that names the node, the elements of a
 * constant of any element type) is written once here rather than per family.
 */
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
