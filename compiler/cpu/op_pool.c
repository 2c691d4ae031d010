/* op_pool.c - the pooling family: MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool;
 * their shape rule and code (pooling is never folded at compile time: no reference).
 *
 * The design idea: the shape rule shares the convolutions' window arithmetic (vta_op_window in
 * ir/opkit.c: strides, dilations, pads, auto_pad, ceil_mode), so a pool's attributes are as
 * explicit as a Conv's after it; the code is one scalar loop nest per output element over
 * the window clipped to the input, in float32, and max pooling of int8/uint8 data (what
 * quantized models feed it) runs in int32 with the integer operators' kernel (op_quant.c).
 */
#include <math.h>

#include "compiler/cpu/codegen_local.h"

/* ---- shape rule ---- */

static int pool_infer(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  if (x->rank < 3) return vta_op_error(g, i, err, VTA_ERR_INVALID, "pooling needs an input of rank 3 or more");
  if (nd->n_out > 1) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "MaxPool's Indices output is not supported");
  int64_t dims[VTA_MAX_RANK] = {x->dims[0], x->dims[1]};
  if (nd->op == VTA_GOP_GLOBAL_AVGPOOL || nd->op == VTA_GOP_GLOBAL_MAXPOOL) {
    for (int d = 2; d < x->rank; d++) dims[d] = 1;
    vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
    return 0;
  }
  if (x->rank > 4)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "pooling over more than 2 spatial dimensions is not supported");
  int64_t kernel[VTA_MAX_RANK];
  if (vta_node_ints(nd, "kernel_shape", kernel, VTA_MAX_RANK) != x->rank - 2)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "attribute kernel_shape is missing or has the wrong length");
  if (nd->op == VTA_GOP_MAXPOOL && vta_node_int(nd, "storage_order", 0) != 0)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "storage_order=1 is not supported");
  if (vta_op_window(g, i, err, x, kernel, 0, dims + 2)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
  return 0;
}

/* ---- code ---- */

static int max_pool(vta_gop op) { return op == VTA_GOP_MAXPOOL || op == VTA_GOP_GLOBAL_MAXPOOL; }

/* Float32 data; max pooling also int8 and uint8 data, without fused steps. */
static int pool_supports(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = nd->n_in > 0 && nd->in[0] >= 0 ? &g->values[nd->in[0]] : NULL;
  if (max_pool(nd->op))
    return x && (x->dtype == VTA_DT_F32 || ((x->dtype == VTA_DT_I8 || x->dtype == VTA_DT_U8) && nd->n_epi == 0));
  return cg_node_f32(g, i);
}

static void pool_f32(cg *c) {
  const vta_node *nd = c->nd;
  int is_max = nd->op == VTA_GOP_MAXPOOL || nd->op == VTA_GOP_GLOBAL_MAXPOOL;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int64_t nc = x->dims[0] * x->dims[1];
  LLVMValueRef X = in_p(c, 0), O = out_p(c);
  if (nd->op == VTA_GOP_GLOBAL_AVGPOOL || nd->op == VTA_GOP_GLOBAL_MAXPOOL) {
    int64_t plane = vta_value_count(x) / (nc ? nc : 1);
    LLVMValueRef acc = cg_slot(c, c->f32);
    loop_t l1, l2;
    LLVMValueRef i = loop_open(c, &l1, C(c, 0), C(c, nc));
    LLVMBuildStore(c->b, F(c, is_max ? -INFINITY : 0), acc);
    LLVMValueRef j = loop_open(c, &l2, C(c, 0), C(c, plane));
    LLVMValueRef v = load(c, X, add(c, mul(c, i, plane), j));
    LLVMValueRef a = LLVMBuildLoad2(c->b, c->f32, acc, "");
    LLVMBuildStore(c->b, is_max ? fmax_(c, a, v) : LLVMBuildFAdd(c->b, a, v, ""), acc);
    loop_close(c, &l2);
    LLVMValueRef r = LLVMBuildLoad2(c->b, c->f32, acc, "");
    if (!is_max) r = LLVMBuildFDiv(c->b, r, F(c, (double)plane), "");
    store(c, r, O, i);
    loop_close(c, &l1);
    return;
  }
  int two = x->rank == 4;
  int64_t H = two ? x->dims[2] : 1, W = x->dims[two ? 3 : 2];
  int64_t OH = two ? o->dims[2] : 1, OW = o->dims[two ? 3 : 2];
  int64_t ks[2] = {1, 1}, st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  vta_node_ints(nd, "kernel_shape", ks, 2);
  vta_node_ints(nd, "strides", st, 2);
  vta_node_ints(nd, "dilations", dl, 2);
  vta_node_ints(nd, "pads", pd, 4);
  int64_t KH = two ? ks[0] : 1, KW = two ? ks[1] : ks[0], SH = two ? st[0] : 1, SW = two ? st[1] : st[0];
  int64_t DH = two ? dl[0] : 1, DW = two ? dl[1] : dl[0], PT = two ? pd[0] : 0, PL = two ? pd[1] : pd[0];
  int64_t PB = two ? pd[2] : 0, PR = two ? pd[3] : pd[1];
  int include_pad = (int)vta_node_int(nd, "count_include_pad", 0);
  LLVMValueRef acc = cg_slot(c, c->f32), cnt = cg_slot(c, c->f32);
  loop_t l1, l2, l3, l4, l5;
  LLVMValueRef i = loop_open(c, &l1, C(c, 0), C(c, nc));
  LLVMValueRef oh = loop_open(c, &l2, C(c, 0), C(c, OH));
  LLVMValueRef ow = loop_open(c, &l3, C(c, 0), C(c, OW));
  LLVMBuildStore(c->b, F(c, is_max ? -INFINITY : 0), acc);
  LLVMBuildStore(c->b, F(c, 0), cnt);
  LLVMValueRef kh = loop_open(c, &l4, C(c, 0), C(c, KH));
  LLVMValueRef ih = add(c, LLVMBuildNSWSub(c->b, mul(c, oh, SH), C(c, PT), ""), mul(c, kh, DH));
  LLVMValueRef kw = loop_open(c, &l5, C(c, 0), C(c, KW));
  LLVMValueRef iw = add(c, LLVMBuildNSWSub(c->b, mul(c, ow, SW), C(c, PL), ""), mul(c, kw, DW));
  LLVMValueRef ok = LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntULT, ih, C(c, H), ""),
                                 LLVMBuildICmp(c->b, LLVMIntULT, iw, C(c, W), ""), "");
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "in");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "next");
  LLVMBuildCondBr(c->b, ok, yes, next);
  LLVMPositionBuilderAtEnd(c->b, yes);
  LLVMValueRef v = load(c, X, add(c, mul(c, i, H * W), add(c, mul(c, ih, W), iw)));
  LLVMValueRef a = LLVMBuildLoad2(c->b, c->f32, acc, "");
  LLVMBuildStore(c->b, is_max ? fmax_(c, a, v) : LLVMBuildFAdd(c->b, a, v, ""), acc);
  LLVMBuildStore(c->b, LLVMBuildFAdd(c->b, LLVMBuildLoad2(c->b, c->f32, cnt, ""), F(c, 1), ""), cnt);
  LLVMBuildBr(c->b, next);
  LLVMPositionBuilderAtEnd(c->b, next);
  loop_close(c, &l5);
  loop_close(c, &l4);
  LLVMValueRef r = LLVMBuildLoad2(c->b, c->f32, acc, "");
  if (!is_max) {
    LLVMValueRef div;
    if (include_pad) {
      /* The window clipped to the padded input (matters only with ceil_mode). */
      LLVMValueRef h0 = LLVMBuildNSWSub(c->b, mul(c, oh, SH), C(c, PT), "");
      LLVMValueRef w0 = LLVMBuildNSWSub(c->b, mul(c, ow, SW), C(c, PL), "");
      LLVMValueRef h1 = add(c, h0, C(c, (KH - 1) * DH + 1)), w1 = add(c, w0, C(c, (KW - 1) * DW + 1));
      LLVMValueRef hmax = C(c, H + PB), wmax = C(c, W + PR);
      h1 = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, h1, hmax, ""), hmax, h1, "");
      w1 = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, w1, wmax, ""), wmax, w1, "");
      LLVMValueRef hn = LLVMBuildSDiv(c->b, LLVMBuildNSWSub(c->b, LLVMBuildNSWSub(c->b, h1, h0, ""), C(c, 1), ""), C(c, DH), "");
      LLVMValueRef wn = LLVMBuildSDiv(c->b, LLVMBuildNSWSub(c->b, LLVMBuildNSWSub(c->b, w1, w0, ""), C(c, 1), ""), C(c, DW), "");
      LLVMValueRef n = LLVMBuildNSWMul(c->b, add(c, hn, C(c, 1)), add(c, wn, C(c, 1)), "");
      div = LLVMBuildSIToFP(c->b, n, c->f32, "");
    } else {
      div = LLVMBuildLoad2(c->b, c->f32, cnt, "");
    }
    r = LLVMBuildFDiv(c->b, r, div, "");
  }
  store(c, r, O, add(c, mul(c, i, OH * OW), add(c, mul(c, oh, OW), ow)));
  loop_close(c, &l3);
  loop_close(c, &l2);
  loop_close(c, &l1);
}

static int pool_emit(cg *c) {
  if (max_pool(c->nd->op) && V(c, c->nd->in[0])->dtype != VTA_DT_F32) {
    cg_emit_imaxpool(c);
    c->epi_done = c->nd->n_epi;
  } else {
    pool_f32(c);
  }
  return 0;
}

const vta_op_family vta_family_pool = {"op_pool.c", pool_infer, NULL, pool_supports, pool_emit, NULL};
