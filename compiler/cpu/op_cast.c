/* op_cast.c - Cast and CastLike between every element type of the IR (float16/32/64, signed
 * and unsigned integers of 8 to 64 bits, bool): the shape rule, the reference and the code.
 *
 * The design idea: a conversion is one of four kinds, decided by the two types (float to
 * float, float to integer, integer to float, integer to integer) plus bool (x != 0 one way,
 * 0/1 the other), and both halves follow the same table. Integers convert to integers through
 * 64 bits, exactly (truncation, sign or zero extension as C does); floats to integers
 * truncate toward zero and saturate at the target's range (NaN gives 0), the reference with
 * explicit bounds and the code with LLVM's saturating conversions, so an out-of-range value is
 * never undefined behaviour on either side.
 */
#include <math.h>
#include <stdio.h>

#include "compiler/cpu/op_family.h"

static int is_float(vta_dtype t) { return t == VTA_DT_F32 || t == VTA_DT_F64 || t == VTA_DT_F16; }
static int is_unsigned(vta_dtype t) {
  return t == VTA_DT_U8 || t == VTA_DT_U16 || t == VTA_DT_U32 || t == VTA_DT_U64 || t == VTA_DT_BOOL;
}

/* ---- shape rule ---- */

static int cast_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (!x || x->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input 0 has no known shape");
  vta_dtype t;
  if (nd->op == VTA_GOP_CAST_LIKE && nd->n_in < 2 && vta_node_attr(nd, "to")) {
    /* read back after this rule ran: the type is in "to" */
    if (vta_dtype_from_onnx((int)vta_node_int(nd, "to", 0), &t))
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "target element type %lld", (long long)vta_node_int(nd, "to", 0));
  } else if (nd->op == VTA_GOP_CAST_LIKE) {
    const vta_gvalue *like = vta_op_in(g, i, 1);
    if (!like) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the target_type input is missing");
    t = like->dtype;
    if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "to", vta_dtype_onnx(t))) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    /* Only the type of input 1 matters: it is no operand of the computation. */
    nd->in[1] = -1;
    nd->n_in = 1;
  } else if (vta_dtype_from_onnx((int)vta_node_int(nd, "to", 0), &t)) {
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "target element type %lld (the IR has float16/32/64, "
                        "int8/16/32/64, uint8/16/32/64 and bool)", (long long)vta_node_int(nd, "to", 0));
  }
  vta_op_set_out(g, i, 0, t, x->rank, x->dims);
  return 0;
}

/* ---- reference ---- */

static int64_t get_int(const vta_gvalue *v, int64_t i) {
  switch (v->dtype) {
  case VTA_DT_I64: case VTA_DT_U64: return ((const int64_t *)v->data)[i];
  default: return (int64_t)vta_elem_get(v, i); /* narrower integers: exact */
  }
}
static void put_int(vta_gvalue *v, int64_t i, int64_t x) {
  switch (v->dtype) {
  case VTA_DT_I64: case VTA_DT_U64: ((int64_t *)v->data)[i] = x; break;
  case VTA_DT_I32: case VTA_DT_U32: ((uint32_t *)v->data)[i] = (uint32_t)x; break;
  case VTA_DT_I16: case VTA_DT_U16: ((uint16_t *)v->data)[i] = (uint16_t)x; break;
  case VTA_DT_BOOL: ((uint8_t *)v->data)[i] = x != 0; break;
  default: ((uint8_t *)v->data)[i] = (uint8_t)x; break;
  }
}
/* The target's range, for float to integer. */
static void range_of(vta_dtype t, double *lo, double *hi) {
  size_t bits = vta_dtype_size(t) * 8;
  if (is_unsigned(t)) *lo = 0, *hi = ldexp(1, (int)bits) - 1;
  else *lo = -ldexp(1, (int)bits - 1), *hi = ldexp(1, (int)bits - 1) - 1;
}

static int cast_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]];
  vta_gvalue *o = &g->values[nd->out[0]];
  int64_t n = vta_value_count(o);
  for (int64_t j = 0; j < n; j++) {
    if (o->dtype == VTA_DT_BOOL) {
      ((uint8_t *)o->data)[j] = vta_elem_get(x, j) != 0;
    } else if (is_float(o->dtype)) {
      vta_elem_put(o, j, x->dtype == VTA_DT_U64 ? (double)((const uint64_t *)x->data)[j] : vta_elem_get(x, j));
    } else if (is_float(x->dtype)) {
      double v = trunc(vta_elem_get(x, j)), lo, hi;
      range_of(o->dtype, &lo, &hi);
      v = isnan(v) ? 0 : v < lo ? lo : v > hi ? hi : v;
      if (o->dtype == VTA_DT_U64 && v >= 9223372036854775808.0) ((uint64_t *)o->data)[j] = (uint64_t)v;
      else put_int(o, j, (int64_t)v);
    } else {
      put_int(o, j, get_int(x, j));
    }
  }
  return 0;
}

/* ---- code ---- */

static LLVMValueRef convert(cg *c, LLVMValueRef v, vta_dtype from, vta_dtype to) {
  LLVMBuilderRef b = c->b;
  LLVMTypeRef ot = cg_elt_type(c, to);
  if (to == VTA_DT_BOOL) {
    LLVMValueRef nz = is_float(from) ? LLVMBuildFCmp(b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "")
                                     : LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    return LLVMBuildZExt(b, nz, ot, "");
  }
  if (is_float(from) && is_float(to)) {
    size_t a = vta_dtype_size(from), z = vta_dtype_size(to);
    if (from == VTA_DT_F64 && to == VTA_DT_F16) v = LLVMBuildFPTrunc(b, v, c->f32, ""); /* see cg_from_f64 */
    return a == z ? v : a < z ? LLVMBuildFPExt(b, v, ot, "") : LLVMBuildFPTrunc(b, v, ot, "");
  }
  if (is_float(to)) return is_unsigned(from) ? LLVMBuildUIToFP(b, v, ot, "") : LLVMBuildSIToFP(b, v, ot, "");
  if (is_float(from)) {
    /* llvm.fpto[su]i.sat.<int>.<float>: truncation, saturation, NaN -> 0 */
    char name[64];
    const char *fn = from == VTA_DT_F16 ? "f16" : from == VTA_DT_F32 ? "f32" : "f64";
    snprintf(name, sizeof name, "llvm.fpto%si.sat.i%zu.%s", is_unsigned(to) ? "u" : "s", vta_dtype_size(to) * 8, fn);
    return cg_call(c, name, ot, 1, &v);
  }
  size_t a = vta_dtype_size(from), z = vta_dtype_size(to);
  if (a == z) return v;
  if (a > z) return LLVMBuildTrunc(b, v, ot, "");
  return is_unsigned(from) ? LLVMBuildZExt(b, v, ot, "") : LLVMBuildSExt(b, v, ot, "");
}

static int cast_emit(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = &c->g->values[nd->in[0]], *o = &c->g->values[nd->out[0]];
  int vec = c->vec;
  c->vec = 0;
  cg_loop l;
  LLVMValueRef j = cg_loop_open(c, &l, cg_i64(c, 0), cg_i64(c, vta_value_count(o)), 1);
  LLVMValueRef v = convert(c, cg_tload(c, cg_in(c, 0), x->dtype, j), x->dtype, o->dtype);
  cg_tstore(c, v, cg_out(c, 0), o->dtype, j);
  cg_loop_close(c, &l);
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_cast = {"op_cast.c", cast_infer, cast_eval, NULL, cast_emit, NULL};
