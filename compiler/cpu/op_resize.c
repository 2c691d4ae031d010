/* op_resize.c - Resize and Upsample: their shape rule and code (they are not folded at compile
 * time: no reference).
 *
 * The design idea: every output element is a weighted sum of input elements whose indices and
 * weights depend only on the output's index along each axis, so the compiler computes them
 * per axis when it generates the code (as tables) and the generated loop nest only reads the
 * tables. The shape rule turns the scales, sizes and region of interest, which ONNX passes as
 * inputs, into attributes; Upsample (opset 9) is Resize-10 and becomes one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cpu/codegen_local.h"

/* ---- shape rule ---- */

static int resize_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  float scales[VTA_MAX_RANK];
  int64_t sizes[VTA_MAX_RANK];
  int nsc = -1, nsz = -1;
  int si = g->opset >= 11 ? 2 : 1;
  if (vta_op_in(g, i, si) && vta_value_count(vta_op_in(g, i, si)) > 0) {
    nsc = vta_const_floats(vta_op_in(g, i, si), scales, VTA_MAX_RANK);
    if (nsc < 0) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "scales must be a constant known at compile time");
  }
  if (g->opset >= 11 && vta_op_in(g, i, 3) && vta_value_count(vta_op_in(g, i, 3)) > 0) {
    nsz = vta_const_ints(vta_op_in(g, i, 3), sizes, VTA_MAX_RANK);
    if (nsz < 0) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "sizes must be a constant known at compile time");
  }
  int crop = strcmp(vta_node_string(nd, "coordinate_transformation_mode", "half_pixel"), "tf_crop_and_resize") == 0;
  float roi[2 * VTA_MAX_RANK];
  if (crop) {
    /* The region of interest: starts then ends, one pair per axis, fractions of the input. */
    int nr = g->opset >= 11 && vta_op_in(g, i, 1) ? vta_const_floats(vta_op_in(g, i, 1), roi, 2 * VTA_MAX_RANK) : -1;
    if (nr < 0) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "tf_crop_and_resize needs the roi input as a constant float tensor known at compile time");
    if (nr != 2 * x->rank) return vta_op_error(g, i, err, VTA_ERR_INVALID, "roi has %d values; tf_crop_and_resize needs %d (a start and an end per axis)", nr, 2 * x->rank);
    if (vta_attrs_set_floats(&nd->n_attrs, &nd->attrs, "roi", nr, roi))
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (vta_node_attr(nd, "axes")) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "Resize's axes attribute is not supported");
  const char *kar = vta_node_string(nd, "keep_aspect_ratio_policy", "stretch");
  if (strcmp(kar, "stretch")) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "keep_aspect_ratio_policy other than stretch is not supported");
  int64_t dims[VTA_MAX_RANK];
  if (nsz >= 0) {
    if (nsz != x->rank) return vta_op_error(g, i, err, VTA_ERR_INVALID, "sizes has %d values for rank %d", nsz, x->rank);
    for (int d = 0; d < x->rank; d++) {
      dims[d] = sizes[d];
      scales[d] = (float)sizes[d] / (float)x->dims[d];
    }
  } else if (nsc >= 0) {
    if (nsc != x->rank) return vta_op_error(g, i, err, VTA_ERR_INVALID, "scales has %d values for rank %d", nsc, x->rank);
    for (int d = 0; d < x->rank; d++) {
      if (!(scales[d] > 0)) return vta_op_error(g, i, err, VTA_ERR_INVALID, "scale %d is not positive", d);
      dims[d] = (int64_t)floorf((float)x->dims[d] * scales[d]);
    }
  } else {
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "neither scales nor sizes is given");
  }
  for (int k = 1; k < nd->n_in; k++) nd->in[k] = -1;
  vta_node_trim_inputs(nd);
  const char *mode = vta_node_string(nd, "mode", "nearest");
  if (strcmp(mode, "nearest") && strcmp(mode, "linear") && strcmp(mode, "cubic"))
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "Resize mode other than nearest, linear and cubic is not supported");
  if (strcmp(mode, "nearest"))
    for (int d = 0; d < x->rank - 2; d++)
      if (dims[d] != x->dims[d] || scales[d] != 1.0f || (crop && (roi[d] != 0 || roi[x->rank + d] != 1)))
        return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "linear or cubic Resize of other than the last two dimensions is not supported");
  if (vta_attrs_set_floats(&nd->n_attrs, &nd->attrs, "scales", x->rank, scales))
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
  return 0;
}

static int upsample_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  /* Upsample (opset 9, removed in 10) is Resize-10: scales as input 1, asymmetric
   * coordinates, nearest rounding down. It becomes that Resize once its shape rule passed, so
   * that an error names the Upsample. */
  if (g->opset >= 10)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "Upsample was removed in opset 10 (this model is opset %d); use Resize",
                        g->opset);
  if (vta_op_need_shape(g, i, err, vta_op_in(g, i, 0), 0)) return -1;
  if (vta_attrs_set_string(&nd->n_attrs, &nd->attrs, "coordinate_transformation_mode", "asymmetric") ||
      vta_attrs_set_string(&nd->n_attrs, &nd->attrs, "nearest_mode", "floor"))
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int rc = resize_infer(g, i, err);
  nd->op = VTA_GOP_RESIZE;
  return rc;
}

static int resize_family_infer(vta_graph *g, int i, vta_error *err) {
  return g->nodes[i].op == VTA_GOP_UPSAMPLE ? upsample_infer(g, i, err) : resize_infer(g, i, err);
}

/* ---- code ---- */

/* Source coordinate of output index i along an axis (ONNX Resize's transformations); roi0/roi1
 * are the axis's region of interest (tf_crop_and_resize only). */
static double resize_coord(const char *mode, int64_t i, int64_t in, int64_t out, float scale, double roi0,
                           double roi1) {
  if (strcmp(mode, "asymmetric") == 0) return i / (double)scale;
  if (strcmp(mode, "align_corners") == 0) {
    /* The resized length is in * scale, not the (floored) output size: with scales given
     * they differ (ONNX's reference and test_resize_downsample_scales_linear_align_corners);
     * with sizes given, scale = out / in and they agree. */
    double len = (double)in * scale;
    return out == 1 || len <= 1 ? 0 : i * (double)(in - 1) / (len - 1);
  }
  if (strcmp(mode, "tf_crop_and_resize") == 0)
    return out > 1 ? roi0 * (double)(in - 1) + i * (roi1 - roi0) * (double)(in - 1) / (double)(out - 1)
                   : 0.5 * (roi0 + roi1) * (double)(in - 1);
  if (strcmp(mode, "pytorch_half_pixel") == 0) return out > 1 ? (i + 0.5) / scale - 0.5 : 0;
  if (strcmp(mode, "tf_half_pixel_for_nn") == 0) return (i + 0.5) / scale;
  return (i + 0.5) / scale - 0.5; /* half_pixel */
}

/* Keys' cubic convolution kernel with parameter a (ONNX's cubic_coeff_a). */
static double cubic_kernel(double x, double a) {
  x = fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/* Resize: every output element is a weighted sum of input elements. Per resized axis the
 * compiler tabulates, for each output index, the taps (input indices) and their weights:
 * nearest one tap of weight 1, linear two, cubic four (Keys' kernel, edge indices repeated,
 * or with exclude_outside the outside taps dropped and the rest renormalised). The
 * generated loop nest then reads the tables. tf_crop_and_resize maps the output onto the
 * region of interest and writes extrapolation_value where the source lies outside the input. */
static void emit_resize(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  const vta_attr *sa = vta_node_attr(nd, "scales");
  const vta_attr *ra = vta_node_attr(nd, "roi");
  const char *ctm = vta_node_string(nd, "coordinate_transformation_mode", "half_pixel");
  const char *nm = vta_node_string(nd, "nearest_mode", "round_prefer_floor");
  const char *mode = vta_node_string(nd, "mode", "nearest");
  int linear = strcmp(mode, "linear") == 0, cubic = strcmp(mode, "cubic") == 0;
  int taps = cubic ? 4 : linear ? 2 : 1, crop = strcmp(ctm, "tf_crop_and_resize") == 0;
  double ca = vta_node_float(nd, "cubic_coeff_a", -0.75f);
  int excl = (int)vta_node_int(nd, "exclude_outside", 0);
  float extra = vta_node_float(nd, "extrapolation_value", 0.0f);
  int64_t xs[VTA_MAX_RANK], os[VTA_MAX_RANK];
  vta_value_strides(x, xs);
  vta_value_strides(o, os);
  int r = o->rank;
  /* Per axis: taps index tables, weight tables, and (crop) a table of inside flags. */
  LLVMValueRef ti[VTA_MAX_RANK][4] = {{0}}, tw[VTA_MAX_RANK][4] = {{0}}, tin[VTA_MAX_RANK] = {0};
  for (int d = 0; d < r; d++) {
    int64_t n = o->dims[d], in = x->dims[d];
    float scale = sa->floats[d];
    double roi0 = ra && ra->n == 2 * r ? ra->floats[d] : 0, roi1 = ra && ra->n == 2 * r ? ra->floats[r + d] : 1;
    if (n == in && scale == 1.0f && (!crop || (roi0 == 0 && roi1 == 1))) continue;
    int64_t *ix[4];
    float *w[4];
    int64_t *inside = calloc((size_t)n, sizeof(int64_t));
    for (int t = 0; t < taps; t++) ix[t] = malloc(sizeof(int64_t) * (size_t)n), w[t] = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
      double s = resize_coord(ctm, i, in, n, scale, roi0, roi1);
      inside[i] = !(s < 0 || s > (double)(in - 1));
      if (cubic) {
        double f = floor(s), fr = s - f, wt[4] = {cubic_kernel(fr + 1, ca), cubic_kernel(fr, ca),
                                                  cubic_kernel(1 - fr, ca), cubic_kernel(2 - fr, ca)};
        double sum = 0;
        for (int t = 0; t < 4; t++) {
          int64_t k = (int64_t)f - 1 + t;
          if (excl && (k < 0 || k >= in)) wt[t] = 0;
          sum += wt[t];
          ix[t][i] = k < 0 ? 0 : k >= in ? in - 1 : k;
        }
        for (int t = 0; t < 4; t++) w[t][i] = (float)(excl && sum != 0 ? wt[t] / sum : wt[t]);
      } else if (linear) {
        if (s < 0) s = 0;
        if (s > in - 1) s = (double)(in - 1);
        int64_t a = (int64_t)floor(s);
        ix[0][i] = a;
        ix[1][i] = a + 1 < in ? a + 1 : in - 1;
        w[1][i] = (float)(s - a);
        w[0][i] = 1 - w[1][i];
      } else {
        double f;
        if (strcmp(nm, "floor") == 0) f = floor(s);
        else if (strcmp(nm, "ceil") == 0) f = ceil(s);
        else if (strcmp(nm, "round_prefer_ceil") == 0) f = floor(s + 0.5);
        else f = (s - floor(s) == 0.5) ? floor(s) : floor(s + 0.5);
        int64_t a = (int64_t)f;
        ix[0][i] = a < 0 ? 0 : a >= in ? in - 1 : a;
      }
    }
    for (int t = 0; t < taps; t++) {
      ti[d][t] = cg_table_i64(c, ix[t], n);
      if (taps > 1) tw[d][t] = cg_table_f32(c, w[t], n);
      free(ix[t]);
      free(w[t]);
    }
    if (crop) tin[d] = cg_table_i64(c, inside, n);
    free(inside);
  }
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef oo = C(c, 0), base = C(c, 0), idx[VTA_MAX_RANK];
  LLVMValueRef ok = LLVMConstInt(c->i1, 1, 0);
  for (int d = 0; d < r; d++) {
    idx[d] = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    oo = add(c, oo, mul(c, idx[d], os[d]));
    if (!tw[d][0]) {
      LLVMValueRef s = ti[d][0] ? cg_table_at(c, ti[d][0], idx[d]) : idx[d];
      base = add(c, base, mul(c, s, xs[d]));
    }
    if (tin[d])
      ok = LLVMBuildAnd(c->b, ok, LLVMBuildICmp(c->b, LLVMIntNE, cg_table_at(c, tin[d], idx[d]), C(c, 0), ""), "");
  }
  LLVMValueRef y;
  int ax[2], na = 0;
  for (int d = 0; d < r; d++)
    if (tw[d][0] && na < 2) ax[na++] = d;
  if (!linear && !cubic) {
    y = load(c, in_p(c, 0), base);
  } else if (linear) {
    /* Up to two interpolated axes (checked by shape inference: the last two). */
    LLVMValueRef corner[4];
    for (int q = 0; q < (1 << na); q++) {
      LLVMValueRef off = base;
      for (int a = 0; a < na; a++) {
        LLVMValueRef s = cg_table_at(c, ti[ax[a]][(q >> a) & 1], idx[ax[a]]);
        off = add(c, off, mul(c, s, xs[ax[a]]));
      }
      corner[q] = load(c, in_p(c, 0), off);
    }
    /* Straightforward form: interpolate along the first axis, then the second. */
    if (na == 1) {
      LLVMValueRef w = cg_table_at(c, tw[ax[0]][1], idx[ax[0]]);
      y = LLVMBuildFAdd(c->b, corner[0], LLVMBuildFMul(c->b, w, LLVMBuildFSub(c->b, corner[1], corner[0], ""), ""), "");
    } else if (na == 2) {
      LLVMValueRef w0 = cg_table_at(c, tw[ax[0]][1], idx[ax[0]]);
      LLVMValueRef w1 = cg_table_at(c, tw[ax[1]][1], idx[ax[1]]);
      /* corner bit 0: axis ax[0] upper, bit 1: axis ax[1] upper */
      LLVMValueRef a0 = LLVMBuildFAdd(c->b, corner[0], LLVMBuildFMul(c->b, w1, LLVMBuildFSub(c->b, corner[2], corner[0], ""), ""), "");
      LLVMValueRef a1 = LLVMBuildFAdd(c->b, corner[1], LLVMBuildFMul(c->b, w1, LLVMBuildFSub(c->b, corner[3], corner[1], ""), ""), "");
      y = LLVMBuildFAdd(c->b, a0, LLVMBuildFMul(c->b, w0, LLVMBuildFSub(c->b, a1, a0, ""), ""), "");
    } else {
      y = load(c, in_p(c, 0), base);
    }
  } else {
    /* Cubic: the sum over the 4 x 4 (or 4) taps of the weights' product times the element,
     * in double. */
    LLVMTypeRef f64 = LLVMDoubleTypeInContext(c->ctx);
    LLVMValueRef acc = LLVMConstReal(f64, 0);
    for (int q = 0; q < (na == 2 ? 16 : na == 1 ? 4 : 1); q++) {
      LLVMValueRef off = base, wq = LLVMConstReal(f64, 1);
      for (int a = 0; a < na; a++) {
        int t = a ? q / 4 : q % 4;
        off = add(c, off, mul(c, cg_table_at(c, ti[ax[a]][t], idx[ax[a]]), xs[ax[a]]));
        wq = LLVMBuildFMul(c->b, wq, LLVMBuildFPExt(c->b, cg_table_at(c, tw[ax[a]][t], idx[ax[a]]), f64, ""), "");
      }
      LLVMValueRef v = LLVMBuildFPExt(c->b, load(c, in_p(c, 0), off), f64, "");
      acc = LLVMBuildFAdd(c->b, acc, LLVMBuildFMul(c->b, wq, v, ""), "");
    }
    y = LLVMBuildFPTrunc(c->b, acc, c->f32, "");
  }
  if (crop) y = LLVMBuildSelect(c->b, ok, y, F(c, extra), "");
  store(c, y, out_p(c), oo);
  for (int d = r - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

static int resize_supports(const vta_graph *g, int i) { return cg_node_f32(g, i); }

static int resize_emit(cg *c) {
  emit_resize(c);
  return 0;
}

const vta_op_family vta_family_resize = {"op_resize.c", resize_family_infer, NULL, resize_supports, resize_emit, NULL};
