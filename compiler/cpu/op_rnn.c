/* op_rnn.c - the recurrent family: RNN, GRU and LSTM with their default activations (tanh;
 * sigmoid and tanh), forward, reverse or bidirectional, optional biases, initial states and
 * peepholes; their shape rule, reference and code.
 *
 * The design idea: the three differ only in the gates computed from x_t and h_{t-1} and in
 * how those gates make h_t (and LSTM's c_t), so one walk serves them: per direction, per time
 * step in that direction's order, per batch row, the gates of every hidden unit, then the new
 * state; the state lives in small per-direction arrays (stack slots in the code) and each step
 * writes Y[t, dir]. GRU needs its reset gate for every unit before its candidate state (when
 * linear_before_reset is 0), hence two passes over the units there. Arithmetic is in double.
 * Both layouts: 0 (X [seq, batch, in], states [dirs, batch, hidden]) and 1 (batch first: X
 * [batch, seq, in], Y [batch, seq, dirs, hidden], states [batch, dirs, hidden]).
 * Refused by name: clip, input_forget, activations other than the defaults (the importer
 * refuses string-list attributes), sequence_lens shorter than the sequence.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

static int gates_of(vta_gop op) { return op == VTA_GOP_LSTM ? 4 : op == VTA_GOP_GRU ? 3 : 1; }

/* ---- shape rule ---- */

static int rnn_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0), *w = vta_op_in(g, i, 1), *r = vta_op_in(g, i, 2);
  if (!x || !w || !r || x->rank != 3 || w->rank != 3 || r->rank != 3)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "X, W and R must be present with rank 3 (ranks %d, %d, %d; -1: "
                        "absent or unknown)", x ? x->rank : -1, w ? w->rank : -1, r ? r->rank : -1);
  if (x->dtype != VTA_DT_F32 && x->dtype != VTA_DT_F64)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%s data (float32 and float64 are supported)",
                        vta_dtype_name(x->dtype));
  int64_t layout = vta_node_int(nd, "layout", 0);
  if (layout != 0 && layout != 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "layout %" PRId64, layout);
  if (vta_node_attr(nd, "clip")) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "clip");
  if (vta_node_int(nd, "input_forget", 0)) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "input_forget 1");
  const char *dir = vta_node_string(nd, "direction", "forward");
  int dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
  if (dirs == 1 && strcmp(dir, "forward") && strcmp(dir, "reverse"))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "direction '%s'", dir);
  int G = gates_of(nd->op);
  int64_t S = x->dims[layout], B = x->dims[1 - layout], I = x->dims[2], H = vta_node_int(nd, "hidden_size", 0);
  if (H < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "hidden_size is missing or below 1");
  if (w->dims[0] != dirs || w->dims[1] != G * H || w->dims[2] != I || r->dims[0] != dirs || r->dims[1] != G * H ||
      r->dims[2] != H)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "W must be [%d, %" PRId64 ", %" PRId64 "] and R [%d, %" PRId64
                        ", %" PRId64 "]", dirs, G * H, I, dirs, G * H, H);
  int64_t s0 = layout ? B : dirs, s1 = layout ? dirs : B; /* the states' first two dimensions */
  const int64_t want[8][3] = {{0}, {0}, {0}, {dirs, 2 * G * H, 0}, {B, 0, 0}, {s0, s1, H}, {s0, s1, H}, {dirs, 3 * H, 0}};
  for (int k = 3; k < nd->n_in && k < 8; k++) {
    const vta_gvalue *p = vta_op_in(g, i, k);
    if (!p || (k == 6 && nd->op != VTA_GOP_LSTM)) continue;
    int rk = k == 4 ? 1 : k == 3 || k == 7 ? 2 : 3;
    int ok = p->rank == rk;
    for (int d = 0; ok && d < rk; d++) ok = p->dims[d] == want[k][d];
    if (!ok) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') has the wrong shape", k, p->name);
    if (k == 4) {
      /* sequence_lens: only the whole sequence, known at compile time */
      if (!p->data) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "sequence_lens computed at run time");
      for (int64_t b = 0; b < B; b++)
        if ((int64_t)vta_elem_get(p, b) != S)
          return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "sequence_lens shorter than the sequence (%" PRId64 ")", S);
    } else if (p->dtype != x->dtype) {
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') is not %s", k, p->name, vta_dtype_name(x->dtype));
    }
  }
  if (B * H > 65536)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%" PRId64 " state elements per direction (the limit is 65536: "
                        "the state lives on the stack)", B * H);
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "hidden_size", H)) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int64_t y[4] = {S, dirs, B, H}, st[3] = {s0, s1, H};
  if (layout) y[0] = B, y[1] = S, y[2] = dirs;
  if (nd->n_out > 0 && nd->out[0] >= 0) vta_op_set_out(g, i, 0, x->dtype, 4, y);
  for (int k = 1; k < nd->n_out && k < (nd->op == VTA_GOP_LSTM ? 3 : 2); k++)
    if (nd->out[k] >= 0) vta_op_set_out(g, i, k, x->dtype, 3, st);
  return 0;
}

/* ---- the walk's geometry ---- */

typedef struct {
  int G, dirs, rev, lbr, layout;
  int64_t S, B, I, H;
} geo;

static geo geo_of(const vta_graph *g, const vta_node *nd) {
  const vta_gvalue *x = &g->values[nd->in[0]];
  const char *dir = vta_node_string(nd, "direction", "forward");
  int layout = (int)vta_node_int(nd, "layout", 0);
  geo q = {gates_of(nd->op), strcmp(dir, "bidirectional") == 0 ? 2 : 1, strcmp(dir, "reverse") == 0,
           (int)vta_node_int(nd, "linear_before_reset", 0), layout, x->dims[layout], x->dims[1 - layout], x->dims[2],
           vta_node_int(nd, "hidden_size", 1)};
  return q;
}
/* Offsets in X (row of x_t for batch b), Y (h of step t, direction d, batch b) and the states
 * (direction d, batch b), for either layout. */
static int64_t x_row(const geo *q, int64_t t, int64_t b) { return (q->layout ? b * q->S + t : t * q->B + b) * q->I; }
static int64_t y_row(const geo *q, int64_t t, int d, int64_t b) {
  return (q->layout ? (b * q->S + t) * q->dirs + d : (t * q->dirs + d) * q->B + b) * q->H;
}
static int64_t st_row(const geo *q, int d, int64_t b) { return (q->layout ? b * q->dirs + d : d * q->B + b) * q->H; }
static int has(const vta_node *nd, int k) { return k < nd->n_in && nd->in[k] >= 0; }

/* ---- reference ---- */

static double sigm(double v) { return 1 / (1 + exp(-v)); }

static int rnn_eval(vta_graph *g, int i, vta_error *err) {
  /* Single-output RNNs fold when every input is constant (rare: weights and data both). */
  (void)err;
  const vta_node *nd = &g->nodes[i];
  geo q = geo_of(g, nd);
  const vta_gvalue *X = &g->values[nd->in[0]], *W = &g->values[nd->in[1]], *R = &g->values[nd->in[2]];
  const vta_gvalue *Bv = has(nd, 3) ? &g->values[nd->in[3]] : NULL, *H0 = has(nd, 5) ? &g->values[nd->in[5]] : NULL;
  const vta_gvalue *C0 = nd->op == VTA_GOP_LSTM && has(nd, 6) ? &g->values[nd->in[6]] : NULL;
  const vta_gvalue *P = nd->op == VTA_GOP_LSTM && has(nd, 7) ? &g->values[nd->in[7]] : NULL;
  vta_gvalue *Y = &g->values[nd->out[0]];
  int64_t H = q.H, GH = q.G * H;
  double h[1024], hn[1024], c[1024], gate[4], zr[2048];
  if (q.B * H > 1024 || H > 1024) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "more than 1024 state elements to fold");
  for (int d = 0; d < q.dirs; d++) {
    for (int64_t k = 0; k < q.B * H; k++) {
      int64_t at = st_row(&q, d, k / H) + k % H;
      h[k] = H0 ? vta_elem_get(H0, at) : 0;
      c[k] = C0 ? vta_elem_get(C0, at) : 0;
    }
    int rev = q.rev || d == 1;
    for (int64_t s = 0; s < q.S; s++) {
      int64_t t = rev ? q.S - 1 - s : s;
      for (int64_t b = 0; b < q.B; b++) {
        const double *hp = h + b * H;
        for (int pass = 0; pass < (nd->op == VTA_GOP_GRU ? 2 : 1); pass++)
          for (int64_t j = 0; j < H; j++) {
            for (int gi = 0; gi < q.G; gi++) {
              /* GRU: pass 0 computes z and r, pass 1 the candidate h */
              if (nd->op == VTA_GOP_GRU && (pass == 0) != (gi < 2)) continue;
              int64_t row = gi * H + j;
              double xs = Bv ? vta_elem_get(Bv, d * 2 * GH + row) : 0, hs = Bv ? vta_elem_get(Bv, d * 2 * GH + GH + row) : 0;
              for (int64_t k = 0; k < q.I; k++)
                xs += vta_elem_get(X, x_row(&q, t, b) + k) * vta_elem_get(W, (d * GH + row) * q.I + k);
              for (int64_t k = 0; k < H; k++) {
                double hv = hp[k];
                if (nd->op == VTA_GOP_GRU && gi == 2 && !q.lbr) hv *= zr[H + k];
                hs += hv * vta_elem_get(R, (d * GH + row) * H + k);
              }
              if (nd->op == VTA_GOP_GRU && gi == 2 && q.lbr) hs *= zr[H + j]; /* r * (h R + Rb) */
              gate[gi] = xs + hs;
            }
            if (nd->op == VTA_GOP_RNN) {
              hn[b * H + j] = tanh(gate[0]);
            } else if (nd->op == VTA_GOP_GRU) {
              if (pass == 0) {
                zr[j] = sigm(gate[0]), zr[H + j] = sigm(gate[1]);
              } else {
                double ht = tanh(gate[2]);
                hn[b * H + j] = (1 - zr[j]) * ht + zr[j] * hp[j];
              }
            } else {
              double cp = c[b * H + j];
              double ig = sigm(gate[0] + (P ? vta_elem_get(P, d * 3 * H + j) * cp : 0));
              double fg = sigm(gate[2] + (P ? vta_elem_get(P, d * 3 * H + 2 * H + j) * cp : 0));
              double cn = fg * cp + ig * tanh(gate[3]);
              double og = sigm(gate[1] + (P ? vta_elem_get(P, d * 3 * H + H + j) * cn : 0));
              c[b * H + j] = cn;
              hn[b * H + j] = og * tanh(cn);
            }
          }
        for (int64_t j = 0; j < H; j++) vta_elem_put(Y, y_row(&q, t, d, b) + j, hn[b * H + j]);
      }
      memcpy(h, hn, sizeof(double) * (size_t)(q.B * H));
    }
  }
  return 0;
}

/* ---- code ---- */

static LLVMValueRef ld(cg *c, LLVMValueRef p, vta_dtype t, LLVMValueRef i) { return cg_to_f64(c, cg_tload(c, p, t, i), t); }
static LLVMValueRef sig_cg(cg *c, LLVMValueRef v) {
  LLVMValueRef n = LLVMBuildFNeg(c->b, v, "");
  return LLVMBuildFDiv(c->b, cg_f64(c, 1), LLVMBuildFAdd(c->b, cg_f64(c, 1), cg_call_f64(c, "llvm.exp.f64", 1, &n), ""), "");
}
static LLVMValueRef tanh_cg(cg *c, LLVMValueRef v) { return cg_call_f64(c, "tanh", 1, &v); }
static LLVMValueRef radd(cg *c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(c->b, a, b, ""); }
static LLVMValueRef rmul(cg *c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(c->b, a, b, ""); }

/* sum_k A[a0 + k] * B[b0 + k] for k < n (A of type ta, or double when ta < 0 and a stack array;
 * scale: optional double array multiplied into A). */
static LLVMValueRef dot(cg *c, LLVMValueRef A, int ta, LLVMValueRef a0, LLVMValueRef Bp, vta_dtype tb, LLVMValueRef b0,
                        int64_t n, LLVMValueRef scale) {
  LLVMValueRef acc = cg_slot(c, cg_f64_type(c));
  LLVMBuildStore(c->b, cg_f64(c, 0), acc);
  cg_loop l;
  LLVMValueRef k = cg_loop_open(c, &l, cg_i64(c, 0), cg_i64(c, n), 1);
  LLVMValueRef a = ld(c, A, ta < 0 ? VTA_DT_F64 : (vta_dtype)ta, cg_add(c, a0, k));
  if (scale) a = rmul(c, a, ld(c, scale, VTA_DT_F64, k));
  LLVMValueRef v = rmul(c, a, ld(c, Bp, tb, cg_add(c, b0, k)));
  LLVMBuildStore(c->b, radd(c, LLVMBuildLoad2(c->b, cg_f64_type(c), acc, ""), v), acc);
  cg_loop_close(c, &l);
  return LLVMBuildLoad2(c->b, cg_f64_type(c), acc, "");
}

/* st_row() for a batch row known at run time. */
static LLVMValueRef st_off(cg *c, const geo *q, int d, LLVMValueRef b) {
  LLVMValueRef r = q->layout ? cg_add(c, cg_mul(c, b, q->dirs), cg_i64(c, d)) : cg_add(c, cg_i64(c, d * q->B), b);
  return cg_mul(c, r, q->H);
}

static int rnn_emit(cg *c) {
  const vta_node *nd = c->nd;
  geo q = geo_of(c->g, nd);
  vta_dtype t = c->g->values[nd->in[0]].dtype;
  LLVMBuilderRef b = c->b;
  int vec = c->vec;
  c->vec = 0;
  int64_t H = q.H, GH = q.G * H, BH = q.B * H;
  LLVMTypeRef f64 = cg_f64_type(c);
  LLVMValueRef X = cg_in(c, 0), W = cg_in(c, 1), R = cg_in(c, 2);
  LLVMValueRef Bv = has(nd, 3) ? cg_in(c, 3) : NULL, H0 = has(nd, 5) ? cg_in(c, 5) : NULL;
  LLVMValueRef C0 = nd->op == VTA_GOP_LSTM && has(nd, 6) ? cg_in(c, 6) : NULL;
  LLVMValueRef P = nd->op == VTA_GOP_LSTM && has(nd, 7) ? cg_in(c, 7) : NULL;
  int has_y = nd->n_out > 0 && nd->out[0] >= 0, has_yh = nd->n_out > 1 && nd->out[1] >= 0;
  int has_yc = nd->op == VTA_GOP_LSTM && nd->n_out > 2 && nd->out[2] >= 0;
  /* State arrays on the stack: h, the new h, c, GRU's z and r. */
  LLVMValueRef h = cg_slot(c, LLVMArrayType(f64, (unsigned)BH)), hn = cg_slot(c, LLVMArrayType(f64, (unsigned)BH));
  LLVMValueRef cs = cg_slot(c, LLVMArrayType(f64, (unsigned)BH)), zr = cg_slot(c, LLVMArrayType(f64, (unsigned)(2 * H)));
  LLVMValueRef zero = cg_i64(c, 0);
  for (int d = 0; d < q.dirs; d++) {
    cg_loop l0, l1;
    LLVMValueRef b0 = cg_loop_open(c, &l0, zero, cg_i64(c, q.B), 1);
    LLVMValueRef j0 = cg_loop_open(c, &l1, zero, cg_i64(c, H), 1);
    LLVMValueRef k = cg_add(c, cg_mul(c, b0, H), j0), at = cg_add(c, st_off(c, &q, d, b0), j0);
    cg_tstore(c, H0 ? ld(c, H0, t, at) : cg_f64(c, 0), h, VTA_DT_F64, k);
    cg_tstore(c, C0 ? ld(c, C0, t, at) : cg_f64(c, 0), cs, VTA_DT_F64, k);
    cg_loop_close(c, &l1);
    cg_loop_close(c, &l0);
    int rev = q.rev || d == 1;
    cg_loop ls, lb, lj;
    LLVMValueRef s = cg_loop_open(c, &ls, zero, cg_i64(c, q.S), 1);
    LLVMValueRef tt = rev ? LLVMBuildSub(b, cg_i64(c, q.S - 1), s, "") : s;
    LLVMValueRef bb = cg_loop_open(c, &lb, zero, cg_i64(c, q.B), 1);
    LLVMValueRef xrow = q.layout ? cg_mul(c, cg_add(c, cg_mul(c, bb, q.S), tt), q.I)
                                 : cg_mul(c, cg_add(c, cg_mul(c, tt, q.B), bb), q.I);
    LLVMValueRef hrow = cg_mul(c, bb, H);
    for (int pass = 0; pass < (nd->op == VTA_GOP_GRU ? 2 : 1); pass++) {
      LLVMValueRef j = cg_loop_open(c, &lj, zero, cg_i64(c, H), 1);
      LLVMValueRef gate[4] = {0};
      for (int gi = 0; gi < q.G; gi++) {
        if (nd->op == VTA_GOP_GRU && (pass == 0) != (gi < 2)) continue;
        LLVMValueRef row = cg_add(c, cg_i64(c, gi * H), j);
        LLVMValueRef wrow = cg_mul(c, cg_add(c, cg_i64(c, d * GH), row), q.I);
        LLVMValueRef rrow = cg_mul(c, cg_add(c, cg_i64(c, d * GH), row), H);
        LLVMValueRef xs = dot(c, X, t, xrow, W, t, wrow, q.I, NULL);
        int gru_h = nd->op == VTA_GOP_GRU && gi == 2;
        LLVMValueRef rk = gru_h && !q.lbr ? LLVMBuildInBoundsGEP2(b, f64, cg_typed_ptr(c, zr, VTA_DT_F64), &(LLVMValueRef){cg_i64(c, H)}, 1, "") : NULL;
        LLVMValueRef hs = dot(c, h, -1, hrow, R, t, rrow, H, rk);
        if (Bv) {
          xs = radd(c, xs, ld(c, Bv, t, cg_add(c, cg_i64(c, d * 2 * GH), row)));
          hs = radd(c, hs, ld(c, Bv, t, cg_add(c, cg_i64(c, d * 2 * GH + GH), row)));
        }
        if (gru_h && q.lbr) hs = rmul(c, ld(c, zr, VTA_DT_F64, cg_add(c, cg_i64(c, H), j)), hs);
        gate[gi] = radd(c, xs, hs);
      }
      LLVMValueRef at = cg_add(c, hrow, j), nh = NULL;
      if (nd->op == VTA_GOP_RNN) {
        nh = tanh_cg(c, gate[0]);
      } else if (nd->op == VTA_GOP_GRU) {
        if (pass == 0) {
          cg_tstore(c, sig_cg(c, gate[0]), zr, VTA_DT_F64, j);
          cg_tstore(c, sig_cg(c, gate[1]), zr, VTA_DT_F64, cg_add(c, cg_i64(c, H), j));
        } else {
          LLVMValueRef z = ld(c, zr, VTA_DT_F64, j);
          nh = radd(c, rmul(c, LLVMBuildFSub(b, cg_f64(c, 1), z, ""), tanh_cg(c, gate[2])), rmul(c, z, ld(c, h, VTA_DT_F64, at)));
        }
      } else {
        LLVMValueRef cp = ld(c, cs, VTA_DT_F64, at);
        LLVMValueRef pb = cg_i64(c, d * 3 * H);
        LLVMValueRef gi_ = gate[0], gf = gate[2];
        if (P) {
          gi_ = radd(c, gi_, rmul(c, ld(c, P, t, cg_add(c, pb, j)), cp));
          gf = radd(c, gf, rmul(c, ld(c, P, t, cg_add(c, cg_add(c, pb, cg_i64(c, 2 * H)), j)), cp));
        }
        LLVMValueRef cn = radd(c, rmul(c, sig_cg(c, gf), cp), rmul(c, sig_cg(c, gi_), tanh_cg(c, gate[3])));
        LLVMValueRef go = gate[1];
        if (P) go = radd(c, go, rmul(c, ld(c, P, t, cg_add(c, cg_add(c, pb, cg_i64(c, H)), j)), cn));
        cg_tstore(c, cn, cs, VTA_DT_F64, at);
        nh = rmul(c, sig_cg(c, go), tanh_cg(c, cn));
      }
      if (nh) {
        cg_tstore(c, nh, hn, VTA_DT_F64, at);
        if (has_y) {
          LLVMValueRef yr = q.layout ? cg_add(c, cg_mul(c, cg_add(c, cg_mul(c, bb, q.S), tt), q.dirs), cg_i64(c, d))
                                     : cg_add(c, cg_mul(c, cg_add(c, cg_mul(c, tt, q.dirs), cg_i64(c, d)), q.B), bb);
          LLVMValueRef yo = cg_add(c, cg_mul(c, yr, H), j);
          cg_tstore(c, cg_from_f64(c, nh, t), cg_out(c, 0), t, yo);
        }
      }
      cg_loop_close(c, &lj);
    }
    cg_loop_close(c, &lb);
    /* h = the new h */
    cg_loop lc;
    k = cg_loop_open(c, &lc, zero, cg_i64(c, BH), 1);
    cg_tstore(c, ld(c, hn, VTA_DT_F64, k), h, VTA_DT_F64, k);
    cg_loop_close(c, &lc);
    cg_loop_close(c, &ls);
    /* final states */
    cg_loop lf, lg;
    b0 = cg_loop_open(c, &lf, zero, cg_i64(c, q.B), 1);
    j0 = cg_loop_open(c, &lg, zero, cg_i64(c, H), 1);
    k = cg_add(c, cg_mul(c, b0, H), j0);
    LLVMValueRef fo = cg_add(c, st_off(c, &q, d, b0), j0);
    if (has_yh) cg_tstore(c, cg_from_f64(c, ld(c, h, VTA_DT_F64, k), t), cg_out(c, 1), t, fo);
    if (has_yc) cg_tstore(c, cg_from_f64(c, ld(c, cs, VTA_DT_F64, k), t), cg_out(c, 2), t, fo);
    cg_loop_close(c, &lg);
    cg_loop_close(c, &lf);
  }
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_rnn = {"op_rnn.c", rnn_infer, rnn_eval, NULL, rnn_emit, NULL};
