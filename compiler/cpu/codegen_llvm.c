/* codegen_llvm.c - CPU code generation with the LLVM C API: one wrapper function per graph
 * node, a few shared vector kernels (codegen_kernels.c), one optimised module per graph.
 *
 * The design idea: compile time must stay proportional to the number of distinct operations,
 * not to the size of the network, and the heavy operators must still run near the machine's
 * peak. So every shape is known at compile time and baked into each node's code as
 * constants, but the code that does the arithmetic for convolutions and matrix products is
 * shared: a node's wrapper calls the GEMM, im2col or depthwise kernel with its sizes. Those
 * kernels are written with explicit vectors of the target's width, and so is the elementwise
 * code (standalone elementwise nodes and the fused epilogues): nothing relies on the loop
 * vectoriser, so the module is optimised with a light pipeline (O2 without the unroller and
 * vectorisers, which on constant-bound loop nests produced huge, slow code) and compiles to a
 * native object in a fraction of a second. The object goes into the bundle next to portable
 * bitcode; loading a bundle on the CPU it was compiled for only links the object.
 *
 * A kernel is "void vta_k<N>(void **args)" (see compiler.h for the argument order); it calls
 * an internal body whose pointer parameters are noalias, so after inlining LLVM knows the
 * buffers do not overlap. Leading Relu/Clip epilogue steps are applied by the GEMM and
 * depthwise kernels to the registers before the store; the remaining steps run in one
 * vectorised pass over the (cache-warm) output.
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"
#include "compiler/cpu/codegen_local.h"
#include "compiler/cpu/op_family.h"
#include "vta/model.h"

static LLVMValueRef accum(cg *c) { return cg_slot(c, c->f32); }

/* A math function of one or two floats: the intrinsic's vector form for vectors, except libm
 * functions (no vector form), which are called once per lane. */
LLVMValueRef cg_fcall(cg *c, const char *name, int n, LLVMValueRef x, LLVMValueRef y) {
  LLVMValueRef a[2] = {x, y};
  if (!c->vec) return cg_call(c, name, c->f32, n, a);
  size_t len = strlen(name);
  if (strncmp(name, "llvm.", 5) == 0 && len > 4 && strcmp(name + len - 4, ".f32") == 0) {
    char vname[64];
    snprintf(vname, sizeof vname, "%.*s.v%df32", (int)(len - 4), name, c->vw);
    return cg_call(c, vname, c->vf, n, a);
  }
  LLVMValueRef v = LLVMGetUndef(c->vf);
  for (int k = 0; k < c->vw; k++) {
    LLVMValueRef lane = LLVMConstInt(c->i32, (unsigned)k, 0);
    LLVMValueRef s[2] = {LLVMBuildExtractElement(c->b, x, lane, ""),
                         n > 1 ? LLVMBuildExtractElement(c->b, y, lane, "") : NULL};
    v = LLVMBuildInsertElement(c->b, v, cg_call(c, name, c->f32, n, s), lane, "");
  }
  return v;
}
LLVMValueRef cg_fmax(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOGT, a, b, ""), a, b, "");
}
LLVMValueRef cg_fmin(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, a, b, ""), a, b, "");
}
LLVMValueRef cg_fclamp(cg *c, LLVMValueRef x, double lo, double hi) {
  if (lo > -INFINITY) x = fmax_(c, x, F(c, lo));
  if (hi < INFINITY) x = fmin_(c, x, F(c, hi));
  return x;
}

float cg_attr_f(int n, const vta_attr *a, const char *name, float d) {
  for (int i = 0; i < n; i++)
    if (strcmp(a[i].name, name) == 0) return a[i].kind == VTA_ATTR_FLOAT ? a[i].f : (float)a[i].i;
  return d;
}

/* ---- argument bookkeeping ---- */


LLVMValueRef cg_in(cg *c, int k) { return in_p(c, k); }
LLVMValueRef cg_out(cg *c, int k) { return c->argp[c->n_args - c->nd->n_out + k]; }

/* ---- pointwise loop nests with broadcasting, vectorised along the innermost dimension ---- */


/* The node's epilogue steps from `first` on, applied to x (scalar or vector, c->vec says);
 * operand k of the epilogue is read by rd(k). */
typedef LLVMValueRef (*operand_fn)(cg *c, int k, void *ctx);
static LLVMValueRef apply_epilogue(cg *c, LLVMValueRef x, int first, int ea, operand_fn rd, void *ctx) {
  const vta_node *nd = c->nd;
  for (int k = 0; k < nd->n_epi; k++) {
    const vta_epilogue *e = &nd->epi[k];
    if (e->arg >= 0) {
      if (k >= first) {
        LLVMValueRef y = rd(c, ea, ctx);
        x = e->arg_left ? cg_binary_step(c, e->op, y, x) : cg_binary_step(c, e->op, x, y);
      }
      ea++;
    } else if (k >= first) {
      x = cg_unary_step(c, e->op, e->n_attrs, e->attrs, x);
    }
  }
  return x;
}

typedef struct {
  LLVMValueRef *opp, *off;
  int64_t *inner;   /* innermost stride of each operand: 0 (broadcast) or 1 */
  LLVMValueRef j, mask;
} pw_ctx;

static LLVMValueRef pw_read(cg *c, int k, void *vctx) {
  pw_ctx *p = vctx;
  LLVMValueRef at = p->inner[k] ? add(c, p->off[k], p->j) : p->off[k];
  if (!c->vec) return load(c, p->opp[k], at);
  if (!p->inner[k]) return cg_splat(c, load(c, p->opp[k], at));
  return p->mask ? cg_vmload(c, p->opp[k], at, p->mask) : cg_vload(c, p->opp[k], at);
}

void cg_emit_pointwise(cg *c, int with_main, int first) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = V(c, nd->out[0]);
  int nops = 0, opv[CG_MAX_ARGS];
  LLVMValueRef opp[CG_MAX_ARGS + 1];
  if (with_main) {
    for (int k = 0; k < nd->n_in; k++) opv[nops] = nd->in[k], opp[nops++] = in_p(c, k);
  } else {
    opv[nops] = nd->out[0], opp[nops++] = out_p(c);
  }
  int first_epi = nops;
  for (int k = 0; k < nd->n_epi && nops < CG_MAX_ARGS; k++)
    if (nd->epi[k].arg >= 0) opv[nops] = nd->epi[k].arg, opp[nops++] = argp_of(c, nd->epi[k].arg);
  /* Strides, then coalesce adjacent dimensions that are contiguous for every operand. */
  int r = o->rank;
  int64_t dims[VTA_MAX_RANK], st[CG_MAX_ARGS + 1][VTA_MAX_RANK];
  for (int d = 0; d < r; d++) dims[d] = o->dims[d];
  for (int k = 0; k < nops; k++) bstrides(V(c, opv[k]), r, st[k]);
  bstrides(o, r, st[nops]);
  int64_t cd[VTA_MAX_RANK], cs[CG_MAX_ARGS + 1][VTA_MAX_RANK];
  int cr = 0;
  for (int d = 0; d < r; d++) {
    if (dims[d] == 1) continue;
    int merge = cr > 0;
    for (int k = 0; k <= nops && merge; k++)
      if (cs[k][cr - 1] != st[k][d] * dims[d]) merge = 0;
    if (merge) {
      cd[cr - 1] *= dims[d];
      for (int k = 0; k <= nops; k++) cs[k][cr - 1] = st[k][d];
    } else {
      cd[cr] = dims[d];
      for (int k = 0; k <= nops; k++) cs[k][cr] = st[k][d];
      cr++;
    }
  }
  /* The innermost dimension is the vector loop (its strides are 0 or 1, see bstrides). */
  int64_t n = 1, inner[CG_MAX_ARGS + 1];
  if (cr > 0) {
    n = cd[--cr];
    for (int k = 0; k <= nops; k++) inner[k] = cs[k][cr];
  } else {
    for (int k = 0; k <= nops; k++) inner[k] = 0;
  }
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef off[CG_MAX_ARGS + 1];
  for (int k = 0; k <= nops; k++) off[k] = C(c, 0);
  for (int d = 0; d < cr; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, cd[d]));
    for (int k = 0; k <= nops; k++)
      if (cs[k][d]) off[k] = add(c, off[k], mul(c, i, cs[k][d]));
  }
  int vec = n >= 4 && inner[nops] == 1;
  loop_t lj;
  LLVMValueRef j = cg_loop_open(c, &lj, C(c, 0), C(c, n), vec ? c->vw : 1);
  pw_ctx px = {opp, off, inner, j, NULL};
  /* Full vectors, and a masked copy of the same code for the last partial one. */
  for (int part = 0; part < (vec ? 2 : 1); part++) {
    LLVMBasicBlockRef after = NULL;
    if (vec) {
      LLVMValueRef rem = LLVMBuildNSWSub(c->b, C(c, n), j, "");
      LLVMValueRef full = LLVMBuildICmp(c->b, LLVMIntSGE, rem, C(c, c->vw), "");
      after = cg_if_open(c, part ? LLVMBuildNot(c->b, full, "") : full);
      px.mask = part ? cg_vmask(c, rem) : NULL;
      c->vec = 1;
    }
    LLVMValueRef x;
    if (with_main) {
      LLVMValueRef a = pw_read(c, 0, &px);
      if (vta_op_kind(nd->op) == VTA_OPK_BINARY)
        x = cg_binary_step(c, nd->op, a, pw_read(c, 1, &px));
      else
        x = cg_unary_step(c, nd->op, nd->n_attrs, nd->attrs, a);
    } else {
      x = pw_read(c, 0, &px);
    }
    x = apply_epilogue(c, x, first, first_epi, pw_read, &px);
    LLVMValueRef at = add(c, off[nops], j);
    if (!vec)
      store(c, x, out_p(c), at);
    else if (px.mask)
      cg_vmstore(c, x, out_p(c), at, px.mask);
    else
      cg_vstore(c, x, out_p(c), at);
    c->vec = 0;
    if (after) cg_if_close(c, after);
  }
  cg_loop_close(c, &lj);
  for (int d = cr - 1; d >= 0; d--) loop_close(c, &lp[d]);
  c->epi_done = nd->n_epi;
}

/* Leading epilogue steps a kernel can apply as a clamp: Relu and Clip. Returns how many. */
static int lead_clamp(const vta_node *nd, float *lo, float *hi) {
  *lo = -INFINITY;
  *hi = INFINITY;
  int k = 0;
  for (; k < nd->n_epi; k++) {
    const vta_epilogue *e = &nd->epi[k];
    float l, h;
    if (e->op == VTA_GOP_RELU) {
      l = 0, h = INFINITY;
    } else if (e->op == VTA_GOP_CLIP) {
      l = attr_f(e->n_attrs, e->attrs, "min", -INFINITY);
      h = attr_f(e->n_attrs, e->attrs, "max", INFINITY);
    } else {
      break;
    }
    /* clamp(clamp(x, lo, hi), l, h) == clamp(x, max(lo, l), min(hi, h)) when they overlap. */
    float nl = *lo > l ? *lo : l, nh = *hi < h ? *hi : h;
    if (nl > nh) break;
    *lo = nl, *hi = nh;
  }
  return k;
}

/* ---- copies and data movement ---- */

/* Data movement works on any element type: the node's output type (f32, or the integer type
 * of the same size) is c->et while the node is emitted, and these helpers use it. */
static LLVMTypeRef elt_of(cg *c, vta_dtype t) {
  switch (vta_dtype_size(t)) {
  case 1: return c->i8;
  case 2: return LLVMInt16TypeInContext(c->ctx);
  case 8: return c->i64;
  default: return t == VTA_DT_F32 ? c->f32 : c->i32;
  }
}
static LLVMValueRef egep(cg *c, LLVMValueRef p, LLVMValueRef i) {
  LLVMValueRef q = LLVMBuildBitCast(c->b, p, LLVMPointerType(c->et, 0), "");
  return LLVMBuildInBoundsGEP2(c->b, c->et, q, &i, 1, "");
}
static LLVMValueRef eload(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildLoad2(c->b, c->et, egep(c, p, i), "");
}
static void estore(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i) {
  LLVMBuildStore(c->b, v, egep(c, p, i));
}

static void memcpy_f32(cg *c, LLVMValueRef dst, LLVMValueRef src, int64_t count) {
  if (count <= 0) return;
  int64_t esize = LLVMGetTypeKind(c->et) == LLVMFloatTypeKind ? 4 : (int64_t)LLVMGetIntTypeWidth(c->et) / 8;
  LLVMValueRef a[4] = {LLVMBuildBitCast(c->b, dst, c->i8ptr, ""), LLVMBuildBitCast(c->b, src, c->i8ptr, ""),
                       C(c, count * esize), LLVMConstInt(c->i1, 0, 0)};
  cg_call(c, "llvm.memcpy.p0i8.p0i8.i64", LLVMVoidTypeInContext(c->ctx), 4, a);
}

static void emit_copy(cg *c) {
  memcpy_f32(c, out_p(c), in_p(c, 0), vta_value_count(V(c, c->nd->out[0])));
}

static void row_strides(const vta_gvalue *v, int64_t *s) {
  int64_t acc = 1;
  for (int d = v->rank - 1; d >= 0; d--) s[d] = acc, acc *= v->dims[d];
}

/* Generic gather: out[idx] = in[sum_d f_d(idx_d)] where f_d(i) = base[d] + i * step[d]. */
static void emit_affine(cg *c, const int64_t *base, const int64_t *step) {
  const vta_gvalue *o = V(c, c->nd->out[0]);
  int64_t os[VTA_MAX_RANK];
  row_strides(o, os);
  loop_t lp[VTA_MAX_RANK];
  int64_t b0 = 0;
  for (int d = 0; d < o->rank; d++) b0 += base[d];
  LLVMValueRef io = C(c, b0), oo = C(c, 0);
  for (int d = 0; d < o->rank; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    io = add(c, io, mul(c, i, step[d]));
    oo = add(c, oo, mul(c, i, os[d]));
  }
  estore(c, eload(c, in_p(c, 0), io), out_p(c), oo);
  for (int d = o->rank - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

static void emit_transpose(cg *c) {
  const vta_gvalue *x = V(c, c->nd->in[0]);
  int64_t perm[VTA_MAX_RANK], xs[VTA_MAX_RANK], base[VTA_MAX_RANK] = {0}, step[VTA_MAX_RANK];
  vta_node_ints(c->nd, "perm", perm, VTA_MAX_RANK);
  row_strides(x, xs);
  for (int d = 0; d < x->rank; d++) step[d] = xs[perm[d]];
  emit_affine(c, base, step);
}

static void emit_slice(cg *c) {
  const vta_gvalue *x = V(c, c->nd->in[0]);
  int64_t st[VTA_MAX_RANK], sp[VTA_MAX_RANK], xs[VTA_MAX_RANK], base[VTA_MAX_RANK], step[VTA_MAX_RANK];
  vta_node_ints(c->nd, "starts", st, VTA_MAX_RANK);
  vta_node_ints(c->nd, "steps", sp, VTA_MAX_RANK);
  row_strides(x, xs);
  for (int d = 0; d < x->rank; d++) base[d] = st[d] * xs[d], step[d] = sp[d] * xs[d];
  emit_affine(c, base, step);
}

static void emit_concat(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = V(c, nd->out[0]);
  int64_t axis = vta_node_int(nd, "axis", 0), inner = 1, outer = 1;
  for (int d = 0; d < axis; d++) outer *= o->dims[d];
  for (int d = (int)axis + 1; d < o->rank; d++) inner *= o->dims[d];
  int64_t at = 0, orow = o->dims[axis] * inner;
  for (int k = 0; k < nd->n_in; k++) {
    const vta_gvalue *x = V(c, nd->in[k]);
    int64_t row = x->dims[axis] * inner;
    if (row && outer) {
      loop_t l1;
      LLVMValueRef i = loop_open(c, &l1, C(c, 0), C(c, outer));
      memcpy_f32(c, egep(c, out_p(c), add(c, mul(c, i, orow), C(c, at * inner))),
                 egep(c, in_p(c, k), mul(c, i, row)), row);
      loop_close(c, &l1);
    }
    at += x->dims[axis];
  }
}

static void emit_pad(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int64_t pads[2 * VTA_MAX_RANK], xs[VTA_MAX_RANK], os[VTA_MAX_RANK];
  vta_node_ints(nd, "pads", pads, 2 * VTA_MAX_RANK);
  row_strides(x, xs);
  row_strides(o, os);
  const char *mode = vta_node_string(nd, "mode", "constant");
  int constant = strcmp(mode, "constant") == 0, reflect = strcmp(mode, "reflect") == 0;
  int empty = vta_value_count(x) == 0;
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef io = C(c, 0), oo = C(c, 0), valid = LLVMConstInt(c->i1, 1, 0);
  for (int d = 0; d < o->rank; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    oo = add(c, oo, mul(c, i, os[d]));
    LLVMValueRef s = LLVMBuildNSWSub(c->b, i, C(c, pads[d]), "");
    int64_t n = x->dims[d];
    LLVMValueRef lo = LLVMBuildICmp(c->b, LLVMIntSLT, s, C(c, 0), "");
    LLVMValueRef hi = LLVMBuildICmp(c->b, LLVMIntSGE, s, C(c, n), "");
    if (constant) {
      valid = LLVMBuildAnd(c->b, valid, LLVMBuildNot(c->b, LLVMBuildOr(c->b, lo, hi, ""), ""), "");
      s = LLVMBuildSelect(c->b, lo, C(c, 0), s, "");
      s = LLVMBuildSelect(c->b, hi, C(c, n > 0 ? n - 1 : 0), s, "");
    } else if (reflect) {
      s = LLVMBuildSelect(c->b, lo, LLVMBuildNSWNeg(c->b, s, ""), s, "");
      s = LLVMBuildSelect(c->b, hi, LLVMBuildNSWSub(c->b, C(c, 2 * (n - 1)), s, ""), s, "");
    } else {
      s = LLVMBuildSelect(c->b, lo, C(c, 0), s, "");
      s = LLVMBuildSelect(c->b, hi, C(c, n - 1), s, "");
    }
    io = add(c, io, mul(c, s, xs[d]));
  }
  float pv = vta_node_float(nd, "value", 0.0f);
  LLVMValueRef val = c->et == c->f32 ? F(c, pv) : LLVMConstInt(c->et, (unsigned long long)(int64_t)pv, 1);
  LLVMValueRef y = empty ? val : eload(c, in_p(c, 0), io);
  if (constant && !empty) y = LLVMBuildSelect(c->b, valid, y, val, "");
  estore(c, y, out_p(c), oo);
  for (int d = o->rank - 1; d >= 0; d--) loop_close(c, &lp[d]);
}


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
  row_strides(x, xs);
  row_strides(o, os);
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

static void emit_softmax(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]);
  int64_t axis = vta_node_int(nd, "axis", 1), outer = 1, len = 1, inner = 1;
  int coerce = (int)vta_node_int(nd, "coerce", 0);
  for (int d = 0; d < x->rank; d++) {
    if (d < axis) outer *= x->dims[d];
    else if (d == axis || coerce) len *= x->dims[d];
    else inner *= x->dims[d];
  }
  LLVMValueRef X = in_p(c, 0), O = out_p(c), mx = accum(c), sum = accum(c);
  loop_t lo, li, l1, l2, l3;
  LLVMValueRef o = loop_open(c, &lo, C(c, 0), C(c, outer));
  LLVMValueRef in = loop_open(c, &li, C(c, 0), C(c, inner));
  LLVMValueRef base = add(c, mul(c, o, len * inner), in);
  LLVMBuildStore(c->b, F(c, -INFINITY), mx);
  LLVMBuildStore(c->b, F(c, 0), sum);
  LLVMValueRef k = loop_open(c, &l1, C(c, 0), C(c, len));
  LLVMValueRef v = load(c, X, add(c, base, mul(c, k, inner)));
  LLVMBuildStore(c->b, fmax_(c, LLVMBuildLoad2(c->b, c->f32, mx, ""), v), mx);
  loop_close(c, &l1);
  LLVMValueRef m = LLVMBuildLoad2(c->b, c->f32, mx, "");
  k = loop_open(c, &l2, C(c, 0), C(c, len));
  LLVMValueRef idx = add(c, base, mul(c, k, inner));
  LLVMValueRef e = call1(c, "llvm.exp.f32", LLVMBuildFSub(c->b, load(c, X, idx), m, ""));
  store(c, e, O, idx);
  LLVMBuildStore(c->b, LLVMBuildFAdd(c->b, LLVMBuildLoad2(c->b, c->f32, sum, ""), e, ""), sum);
  loop_close(c, &l2);
  LLVMValueRef rs = LLVMBuildFDiv(c->b, F(c, 1), LLVMBuildLoad2(c->b, c->f32, sum, ""), "");
  k = loop_open(c, &l3, C(c, 0), C(c, len));
  idx = add(c, base, mul(c, k, inner));
  store(c, LLVMBuildFMul(c->b, load(c, O, idx), rs, ""), O, idx);
  loop_close(c, &l3);
  loop_close(c, &li);
  loop_close(c, &lo);
}

/* ---- per-node driver ---- */

int vta_codegen_supports(vta_gop op) {
  const vta_op_family *fam = vta_op_family_of(op);
  if (fam) return fam->emit != NULL;
  switch (op) {
  case VTA_GOP_BATCHNORM: case VTA_GOP_DROPOUT:
    return 0;
  default:
    return 1;
  }
}

int vta_codegen_supports_node(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  if (!vta_codegen_supports(nd->op)) return 0;
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (fam) return fam->supports ? fam->supports(g, i) : 1;
  int q = cg_qop_supports(g, i);
  if (q >= 0) return q;
  int all_f32 = 1, same = 1;
  vta_dtype t = g->values[nd->out[0]].dtype;
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0) {
      all_f32 &= g->values[nd->in[k]].dtype == VTA_DT_F32;
      same &= g->values[nd->in[k]].dtype == t;
    }
  for (int k = 0; k < nd->n_out; k++) all_f32 &= g->values[nd->out[k]].dtype == VTA_DT_F32;
  if (all_f32) return 1;
  /* Data movement copies any element type. */
  switch (nd->op) {
  case VTA_GOP_RESHAPE: case VTA_GOP_FLATTEN: case VTA_GOP_SQUEEZE: case VTA_GOP_UNSQUEEZE:
  case VTA_GOP_TRANSPOSE: case VTA_GOP_CONCAT: case VTA_GOP_SLICE:
    return same && nd->n_epi == 0;
  case VTA_GOP_PAD:
    return same && nd->n_epi == 0 && (t == VTA_DT_F32 || vta_node_float(nd, "value", 0.0f) == 0.0f);
  default:
    return 0;
  }
}

int vta_node_needs_code(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  /* Several outputs only for the families' operators (Split); every output present. */
  if (nd->n_out != 1 && !vta_op_family_of(nd->op)) return 0;
  int64_t n = 0;
  for (int k = 0; k < nd->n_out; k++) {
    if (nd->out[k] < 0) return 0;
    n += vta_value_count(&g->values[nd->out[k]]);
  }
  return nd->n_out >= 1 && n > 0;
}

int vta_kernel_args(const vta_graph *g, int i, int *values, int cap) {
  const vta_node *nd = &g->nodes[i];
  int n = 0;
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0) {
      if (n < cap) values[n] = nd->in[k];
      n++;
    }
  for (int k = 0; k < nd->n_epi; k++)
    if (nd->epi[k].arg >= 0) {
      if (n < cap) values[n] = nd->epi[k].arg;
      n++;
    }
  for (int k = 0; k < nd->n_out; k++) {
    if (n < cap) values[n] = nd->out[k];
    n++;
  }
  return n;
}

void vta_kernel_name(int node, char *buf, size_t size) { snprintf(buf, size, "vta_k%d", node); }

/* Can the node's kernel apply leading Relu/Clip steps itself? */
static int takes_clamp(const vta_node *nd) {
  if (nd->op == VTA_GOP_CONV || nd->op == VTA_GOP_MATMUL) return 1;
  if (nd->op != VTA_GOP_GEMM) return 0;
  int ta = (int)vta_node_int(nd, "transA", 0), tb = (int)vta_node_int(nd, "transB", 0);
  int with_c = nd->n_in > 2 && nd->in[2] >= 0 && vta_node_float(nd, "beta", 1.0f) != 0.0f;
  return !with_c && !(ta && tb);
}

static int emit_node(cg *c, int i) {
  const vta_node *nd = &c->g->nodes[i];
  c->nd = nd;
  c->node = i;
  c->n_args = vta_kernel_args(c->g, i, c->argv, CG_MAX_ARGS);
  if (c->n_args > CG_MAX_ARGS) {
    char w[300];
    return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s has %d operands; the CPU code generator "
                         "takes at most %d", vta_node_describe(c->g, i, w, sizeof w), c->n_args,
                         CG_MAX_ARGS);
  }
  /* body(float *noalias p0, ...) */
  LLVMTypeRef ps[CG_MAX_ARGS];
  for (int k = 0; k < c->n_args; k++) ps[k] = c->fptr;
  LLVMTypeRef bt = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, (unsigned)c->n_args, 0);
  char name[64], bname[80];
  vta_kernel_name(i, name, sizeof name);
  snprintf(bname, sizeof bname, "%s.body", name);
  LLVMValueRef body = LLVMAddFunction(c->mod, bname, bt);
  LLVMSetLinkage(body, LLVMInternalLinkage);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  unsigned nocapture = LLVMGetEnumAttributeKindForName("nocapture", 9);
  for (int k = 0; k < c->n_args; k++) {
    /* A value passed twice (Add(x, x)) is read-only, so noalias still holds for writes. */
    LLVMAddAttributeAtIndex(body, (unsigned)(k + 1), LLVMCreateEnumAttribute(c->ctx, noalias, 0));
    LLVMAddAttributeAtIndex(body, (unsigned)(k + 1), LLVMCreateEnumAttribute(c->ctx, nocapture, 0));
    c->argp[k] = LLVMGetParam(body, (unsigned)k);
  }
  cg_begin_function(c, body);
  float lo = -INFINITY, hi = INFINITY;
  int done = takes_clamp(nd) ? lead_clamp(nd, &lo, &hi) : 0;
  c->epi_done = done;
  c->et = elt_of(c, V(c, nd->out[0])->dtype);
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (fam) {
    if (fam->emit(c)) return -1;
  } else if (cg_emit_qop(c)) {
    /* A DequantizeLinear's float output may carry fused epilogue steps. */
    if (nd->op != VTA_GOP_DEQUANTIZE_LINEAR) c->epi_done = nd->n_epi;
  } else switch (nd->op) {
  case VTA_GOP_CONV: cg_emit_conv(c, lo, hi); break;
  case VTA_GOP_CONV_TRANSPOSE: cg_emit_conv_transpose(c); break;
  case VTA_GOP_GEMM: cg_emit_gemm(c, lo, hi); break;
  case VTA_GOP_MATMUL: cg_emit_matmul(c, lo, hi); break;
  case VTA_GOP_SOFTMAX: emit_softmax(c); break;
  case VTA_GOP_CONCAT: emit_concat(c); break;
  case VTA_GOP_RESHAPE: case VTA_GOP_FLATTEN: case VTA_GOP_SQUEEZE: case VTA_GOP_UNSQUEEZE:
    emit_copy(c);
    break;
  case VTA_GOP_TRANSPOSE: emit_transpose(c); break;
  case VTA_GOP_PAD: emit_pad(c); break;
  case VTA_GOP_SLICE: emit_slice(c); break;
  case VTA_GOP_RESIZE: emit_resize(c); break;
  default: {
    char w[300];
    return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: no CPU code generator for %s",
                         vta_node_describe(c->g, i, w, sizeof w), vta_op_name(nd->op));
  }
  }
  if (nd->n_epi > c->epi_done) cg_emit_pointwise(c, 0, c->epi_done);
  cg_end_function(c);
  /* The exported wrapper: void vta_kN(void **args). */
  LLVMTypeRef wt = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), &c->vptr, 1, 0);
  LLVMValueRef wf = LLVMAddFunction(c->mod, name, wt);
  LLVMBasicBlockRef wb = LLVMAppendBasicBlockInContext(c->ctx, wf, "entry");
  LLVMPositionBuilderAtEnd(c->b, wb);
  LLVMValueRef av = LLVMGetParam(wf, 0), cargs[CG_MAX_ARGS];
  for (int k = 0; k < c->n_args; k++) {
    LLVMValueRef idx = C(c, k);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(c->b, c->fptr, av, &idx, 1, "");
    cargs[k] = LLVMBuildLoad2(c->b, c->fptr, p, "");
  }
  LLVMBuildCall2(c->b, bt, body, cargs, (unsigned)c->n_args, "");
  LLVMBuildRetVoid(c->b);
  return 0;
}

/* ---- targets, the pass pipeline, output ---- */

/* LLVM's target registry is global: it is filled once, before any thread generates code
 * (code generation itself runs in per-call contexts and may run on several threads). */
static void init_native(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
}
static void init_all(void) {
  LLVMInitializeAllTargetInfos();
  LLVMInitializeAllTargets();
  LLVMInitializeAllTargetMCs();
  LLVMInitializeAllAsmPrinters();
}
static void init_llvm(int all_targets) {
  static pthread_once_t native_once = PTHREAD_ONCE_INIT, all_once = PTHREAD_ONCE_INIT;
  pthread_once(&native_once, init_native);
  if (all_targets) pthread_once(&all_once, init_all);
}

int vta_cpu_target_host(vta_cpu_target *t) {
  init_llvm(0);
  char *triple = LLVMGetDefaultTargetTriple(), *cpu = LLVMGetHostCPUName(), *feat = LLVMGetHostCPUFeatures();
  snprintf(t->triple, sizeof t->triple, "%s", triple);
  snprintf(t->cpu, sizeof t->cpu, "%s", cpu);
  snprintf(t->features, sizeof t->features, "%s", feat);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(feat);
  return 0;
}

/* Vector width from the features: 512-bit with AVX-512F, 256-bit with AVX, else 128-bit
 * (SSE2, NEON, and what LLVM splits correctly on anything narrower). */
static int vector_width(const vta_cpu_target *t) {
  if (strstr(t->features, "+avx512f")) return 16;
  if (strstr(t->features, "+avx")) return 8;
  return 4;
}

static LLVMTargetMachineRef target_machine(const vta_cpu_target *t, vta_error *err) {
  init_llvm(1);
  LLVMTargetRef tr;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(t->triple, &tr, &msg)) {
    vta_error_set(err, VTA_ERR_UNSUPPORTED, "no LLVM target for triple '%s': %s", t->triple,
                  msg ? msg : "");
    LLVMDisposeMessage(msg);
    return NULL;
  }
  /* The host's CPU name may be "generic" (LLVM 14 does not know every recent CPU): the
   * features are passed explicitly, or the code would target the baseline instruction set.
   * x86-64 objects use the large code model: LLJIT places them wherever the process's memory
   * map allows, which with address-space randomisation can be more than 2 GiB from the
   * process's own functions they call, out of reach of the small model's 32-bit relative
   * calls (calibration crashed at random through such a call; it never did with randomisation
   * off). */
  LLVMCodeModel model =
      strncmp(t->triple, "x86_64", 6) == 0 ? LLVMCodeModelLarge : LLVMCodeModelDefault;
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(tr, t->triple, t->cpu, t->features,
                                                    LLVMCodeGenLevelDefault, LLVMRelocPIC, model);
  if (!tm)
    vta_error_set(err, VTA_ERR_UNSUPPORTED, "cannot create an LLVM target machine for '%s' (cpu '%s')",
                  t->triple, t->cpu);
  return tm;
}

static unsigned char *copy_buffer(LLVMMemoryBufferRef mb, size_t *n) {
  *n = LLVMGetBufferSize(mb);
  unsigned char *p = malloc(*n ? *n : 1);
  if (p) memcpy(p, LLVMGetBufferStart(mb), *n);
  return p;
}

int vta_codegen_llvm_for(const vta_graph *g, const vta_cpu_target *target, int what,
                         vta_cpu_code *out, vta_error *err) {
  return vta_codegen_llvm_nodes(g, target, what, NULL, out, err);
}

/* What a deployed model's object defines beside the kernels (vta_codegen_llvm_deploy). */
typedef struct deploy_info {
  const unsigned char *plan;
  size_t plan_size;
  const char *symbol;
} deploy_info;

/* The deployed model's image (include/vta/model.h, vta_model_image): the plan as read-only
 * data, the kernel table, and the one exported symbol pointing at both. Every function becomes
 * internal, so that several models link into one program without clashing. */
static void emit_deploy(cg *c, const deploy_info *d) {
  int n = c->g->n_nodes;
  for (LLVMValueRef f = LLVMGetFirstFunction(c->mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMTypeRef pt = LLVMArrayType(c->i8, (unsigned)d->plan_size);
  LLVMValueRef plan = LLVMAddGlobal(c->mod, pt, "vta.plan");
  LLVMSetInitializer(plan, LLVMConstStringInContext(c->ctx, (const char *)d->plan, (unsigned)d->plan_size, 1));
  LLVMSetGlobalConstant(plan, 1);
  LLVMSetLinkage(plan, LLVMInternalLinkage);
  LLVMSetAlignment(plan, 16);
  LLVMValueRef *fns = calloc((size_t)n + 1, sizeof *fns);
  if (!fns) return;
  for (int i = 0; i < n; i++) {
    char name[64];
    vta_kernel_name(i, name, sizeof name);
    LLVMValueRef f = vta_node_needs_code(c->g, i) ? LLVMGetNamedFunction(c->mod, name) : NULL;
    fns[i] = f ? LLVMConstBitCast(f, c->i8ptr) : LLVMConstNull(c->i8ptr);
  }
  LLVMTypeRef kt = LLVMArrayType(c->i8ptr, (unsigned)n);
  LLVMValueRef table = LLVMAddGlobal(c->mod, kt, "vta.kernels");
  LLVMSetInitializer(table, LLVMConstArray(c->i8ptr, fns, (unsigned)n));
  LLVMSetGlobalConstant(table, 1);
  LLVMSetLinkage(table, LLVMInternalLinkage);
  free(fns);
  LLVMTypeRef i8pp = LLVMPointerType(c->i8ptr, 0);
  LLVMTypeRef fields[5] = {c->i32, c->i32, c->i8ptr, c->i64, i8pp};
  LLVMTypeRef it = LLVMStructTypeInContext(c->ctx, fields, 5, 0);
  LLVMValueRef vals[5] = {LLVMConstInt(c->i32, VTA_MODEL_ABI, 0), LLVMConstInt(c->i32, (unsigned long long)n, 0),
                          LLVMConstBitCast(plan, c->i8ptr), LLVMConstInt(c->i64, d->plan_size, 0),
                          LLVMConstBitCast(table, i8pp)};
  LLVMValueRef img = LLVMAddGlobal(c->mod, it, d->symbol);
  LLVMSetInitializer(img, LLVMConstNamedStruct(it, vals, 5));
  LLVMSetGlobalConstant(img, 1);
}

static int generate(const vta_graph *g, const vta_cpu_target *target, int what, const unsigned char *only,
                    const deploy_info *deploy, vta_cpu_code *out, vta_error *err);

int vta_codegen_llvm_nodes(const vta_graph *g, const vta_cpu_target *target, int what,
                           const unsigned char *only, vta_cpu_code *out, vta_error *err) {
  return generate(g, target, what, only, NULL, out, err);
}

int vta_codegen_llvm_deploy(const vta_graph *g, const vta_cpu_target *target, const unsigned char *plan,
                            size_t plan_size, const char *symbol, vta_cpu_code *out, vta_error *err) {
  if (plan_size > 0xffffffffu)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "the model's plan is %zu bytes; a deployed model holds "
                         "at most 4 GiB", plan_size);
  deploy_info d = {plan, plan_size, symbol};
  return generate(g, target, VTA_CODE_OBJECT, NULL, &d, out, err);
}

static int generate(const vta_graph *g, const vta_cpu_target *target, int what, const unsigned char *only,
                    const deploy_info *deploy, vta_cpu_code *out, vta_error *err) {
  memset(out, 0, sizeof *out);
  vta_cpu_target host;
  if (!target) {
    vta_cpu_target_host(&host);
    target = &host;
  }
  out->target = *target;
  cg c;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.err = err;
  c.vw = vector_width(target);
  c.ctx = LLVMContextCreate();
  c.mod = LLVMModuleCreateWithNameInContext("vta_cpu", c.ctx);
  c.b = LLVMCreateBuilderInContext(c.ctx);
  c.f32 = LLVMFloatTypeInContext(c.ctx);
  c.i64 = LLVMInt64TypeInContext(c.ctx);
  c.i32 = LLVMInt32TypeInContext(c.ctx);
  c.i8 = LLVMInt8TypeInContext(c.ctx);
  c.i1 = LLVMInt1TypeInContext(c.ctx);
  c.fptr = LLVMPointerType(c.f32, 0);
  c.vptr = LLVMPointerType(c.fptr, 0);
  c.i8ptr = LLVMPointerType(c.i8, 0);
  c.vf = LLVMVectorType(c.f32, (unsigned)c.vw);
  c.vfptr = LLVMPointerType(c.vf, 0);
  c.kernel_mode = what & VTA_CODE_KERNELS_ONLY ? CG_KERNELS_EXPORT
                  : what & VTA_CODE_NO_KERNELS ? CG_KERNELS_IMPORT : CG_KERNELS_OWN;
  int rc = 0;
  LLVMTargetMachineRef tm = target_machine(target, err);
  if (!tm) rc = -1;
  if (!rc) {
    LLVMSetTarget(c.mod, target->triple);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(c.mod, td);
    LLVMDisposeTargetData(td);
    /* One scratch buffer for the whole module, sized for the largest need. */
    for (int i = 0; i < g->n_nodes; i++) {
      int64_t s = vta_node_needs_code(g, i) && (!only || only[i]) ? cg_scratch_need(g, i, c.vw) : 0;
      if (s > c.scratch_floats) c.scratch_floats = s;
    }
    LLVMTypeRef st = LLVMArrayType(c.f32, (unsigned)(c.scratch_floats ? c.scratch_floats : 1));
    c.scratch = LLVMAddGlobal(c.mod, st, "vta.scratch");
    LLVMSetInitializer(c.scratch, LLVMConstNull(st));
    LLVMSetLinkage(c.scratch, LLVMInternalLinkage);
    LLVMSetAlignment(c.scratch, 64);
  }
  for (int i = 0; i < g->n_nodes && !rc; i++)
    if (vta_node_needs_code(g, i) && (!only || only[i])) rc = emit_node(&c, i);
  /* A kernel library keeps the kernels the nodes called and not the nodes. */
  for (int i = 0; i < g->n_nodes && !rc && (what & VTA_CODE_KERNELS_ONLY); i++) {
    char name[64], bname[80];
    vta_kernel_name(i, name, sizeof name);
    snprintf(bname, sizeof bname, "%s.body", name);
    LLVMValueRef f = LLVMGetNamedFunction(c.mod, name), b = LLVMGetNamedFunction(c.mod, bname);
    if (f) LLVMDeleteFunction(f);
    if (b) LLVMDeleteFunction(b);
  }
  if (!rc && deploy) emit_deploy(&c, deploy);
  char *msg = NULL;
  if (!rc && LLVMVerifyModule(c.mod, LLVMReturnStatusAction, &msg)) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "internal error: generated LLVM IR is invalid: %.600s", msg);
  }
  if (msg) LLVMDisposeMessage(msg);
  if (!rc) {
    /* Every function gets the target's CPU and features so that code generated later from
     * the bitcode (the JIT on another machine of the same triple) matches the optimiser. */
    for (LLVMValueRef f = LLVMGetFirstFunction(c.mod); f; f = LLVMGetNextFunction(f)) {
      if (LLVMIsDeclaration(f)) continue;
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c.ctx, "target-cpu", 10, target->cpu,
                                                        (unsigned)strlen(target->cpu)));
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c.ctx, "target-features", 15, target->features,
                                                        (unsigned)strlen(target->features)));
    }
    /* The kernels are vectorised by construction: the loop vectoriser, SLP and the unroller
     * only cost compile time here (with them, O3 took 2.5 s on PP-OCR's classifier and fully
     * unrolled constant loop nests into slower code). */
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(po, 0);
    LLVMPassBuilderOptionsSetSLPVectorization(po, 0);
    LLVMPassBuilderOptionsSetLoopUnrolling(po, 0);
    /* Code that runs only a few times (calibration) gets the passes that matter for kernels
     * built this way - promoting the stack slots of loop counters and accumulators, common
     * subexpressions, invariant address arithmetic hoisted out of the loops - and not the
     * rest of O2: its compile takes a third less, and it runs as fast on ResNet-18. */
    const char *pipeline = what & VTA_CODE_QUICK
                               ? "function(sroa,early-cse,simplifycfg,loop-mssa(licm),instcombine)"
                               : "default<O2>";
    LLVMErrorRef e = LLVMRunPasses(c.mod, pipeline, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
      char *m = LLVMGetErrorMessage(e);
      rc = vta_error_set(err, VTA_ERR_INVALID, "LLVM optimisation failed: %s", m);
      LLVMDisposeErrorMessage(m);
    }
  }
  if (!rc && (what & VTA_CODE_BITCODE)) {
    LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(c.mod);
    out->bitcode = copy_buffer(mb, &out->size);
    LLVMDisposeMemoryBuffer(mb);
    if (!out->bitcode) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (!rc && (what & VTA_CODE_OBJECT)) {
    LLVMMemoryBufferRef mb = NULL;
    char *m = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, c.mod, LLVMObjectFile, &m, &mb)) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "LLVM cannot generate code for '%s': %s",
                         target->triple, m ? m : "");
    } else {
      out->object = copy_buffer(mb, &out->object_size);
      LLVMDisposeMemoryBuffer(mb);
      if (!out->object) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    }
    if (m) LLVMDisposeMessage(m);
  }
  if (!rc && (what & VTA_CODE_IR_TEXT)) {
    char *text = LLVMPrintModuleToString(c.mod);
    out->ir_text = strdup(text);
    LLVMDisposeMessage(text);
    if (!out->ir_text) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (tm) LLVMDisposeTargetMachine(tm);
  LLVMDisposeBuilder(c.b);
  LLVMDisposeModule(c.mod);
  LLVMContextDispose(c.ctx);
  if (rc) vta_cpu_code_free(out);
  return rc;
}

int vta_codegen_llvm(const vta_graph *g, vta_cpu_code *out, vta_error *err) {
  return vta_codegen_llvm_for(g, NULL, VTA_CODE_BITCODE | VTA_CODE_OBJECT, out, err);
}

void vta_cpu_code_free(vta_cpu_code *code) {
  free(code->bitcode);
  free(code->object);
  free(code->ir_text);
  code->bitcode = code->object = NULL;
  code->ir_text = NULL;
  code->size = code->object_size = 0;
}
