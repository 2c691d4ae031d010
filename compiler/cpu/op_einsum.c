/* op_einsum.c - Einsum: its shape rule, reference and CPU code.
 *
 * The design idea: any Einsum equation is one loop nest. Every subscript letter (and every
 * dimension an ellipsis stands for) is a loop; the output's letters are the outer loops, the
 * letters that appear only in inputs (summed over) the inner ones. Each input is addressed
 * through per-letter strides: a letter repeated within one input (a diagonal, "ii->i") adds
 * the strides of its dimensions, a broadcast dimension of an ellipsis has stride 0. The
 * product of the inputs' elements is accumulated in double and stored in the output's type.
 * This is general (transposes, traces, diagonals, batched matrix products, outer products,
 * several inputs) rather than fast; models whose Einsum is a matrix product can rewrite it
 * as MatMul to reach the vectorised GEMM kernel.
 *
 * The equation is kept as the attribute; the shape rule and both halves parse it the same way
 * (es_parse).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"

#define ES_MAX_IN 8
#define ES_ELL 52 /* labels 0..51 are letters, 52.. the ellipsis's dimensions */
#define ES_LABELS (ES_ELL + VTA_MAX_RANK)

typedef struct {
  int n_in;
  int rank[ES_MAX_IN], lab[ES_MAX_IN][VTA_MAX_RANK];
  int out_rank, out_lab[VTA_MAX_RANK];
  int used[ES_LABELS];          /* the label occurs in some input */
  int64_t dim[ES_LABELS];
  int64_t stride[ES_MAX_IN][ES_LABELS];
  int n_sum, sum_lab[ES_LABELS]; /* labels summed over (not in the output) */
} es;

static int label_of(char ch) {
  if (ch >= 'a' && ch <= 'z') return ch - 'a';
  if (ch >= 'A' && ch <= 'Z') return 26 + ch - 'A';
  return -1;
}

/* Parses one term of rank `rank` (or, for the output, rank -1: its own length) into labels;
 * n_ell is the number of dimensions the ellipsis stands for in the whole equation. */
static int parse_term(const char *t, size_t len, int rank, int n_ell, int *lab, int *out_rank, char *msg, size_t msize) {
  int letters = 0, ell = 0;
  for (size_t p = 0; p < len; p++) {
    if (t[p] == '.') {
      if (ell || p + 3 > len || strncmp(t + p, "...", 3) != 0) {
        snprintf(msg, msize, "a '.' that is not one ellipsis '...'");
        return -1;
      }
      ell = 1;
      p += 2;
    } else if (label_of(t[p]) >= 0) {
      letters++;
    } else {
      snprintf(msg, msize, "character '%c' is not a subscript letter", t[p]);
      return -1;
    }
  }
  int e = rank < 0 ? (ell ? n_ell : 0) : rank - letters;
  if (e < 0 || (!ell && e != 0)) {
    snprintf(msg, msize, "term '%.*s' has %d subscripts for an input of rank %d", (int)len, t, letters, rank);
    return -1;
  }
  if (letters + e > VTA_MAX_RANK) {
    snprintf(msg, msize, "term '%.*s' has rank %d (at most %d)", (int)len, t, letters + e, VTA_MAX_RANK);
    return -1;
  }
  int r = 0;
  for (size_t p = 0; p < len; p++) {
    if (t[p] == '.') {
      for (int k = 0; k < e; k++) lab[r++] = ES_ELL + (n_ell - e) + k;
      p += 2;
    } else {
      lab[r++] = label_of(t[p]);
    }
  }
  *out_rank = r;
  return 0;
}

/* Parses the equation for inputs of the given shapes and works out every label's extent and
 * every input's strides; msg says what is wrong. */
static int es_parse(const char *eq, int n_in, const vta_gvalue *const *in, es *s, char *msg, size_t msize) {
  memset(s, 0, sizeof *s);
  if (n_in < 1 || n_in > ES_MAX_IN) {
    snprintf(msg, msize, "%d inputs (1 to %d are taken)", n_in, ES_MAX_IN);
    return -1;
  }
  char buf[256];
  size_t L = 0;
  for (const char *p = eq; *p; p++)
    if (*p != ' ') {
      if (L + 1 >= sizeof buf) {
        snprintf(msg, msize, "the equation is longer than %zu characters", sizeof buf - 1);
        return -1;
      }
      buf[L++] = *p;
    }
  buf[L] = 0;
  char *arrow = strstr(buf, "->");
  size_t lhs = arrow ? (size_t)(arrow - buf) : L;
  s->n_in = n_in;
  /* The ellipsis's rank: the largest over the inputs. */
  int n_ell = 0, k = 0;
  size_t start = 0;
  for (size_t p = 0; p <= lhs; p++) {
    if (p < lhs && buf[p] != ',') continue;
    if (k >= n_in) {
      snprintf(msg, msize, "more terms than the %d inputs", n_in);
      return -1;
    }
    int letters = 0, ell = 0;
    for (size_t q = start; q < p; q++) letters += label_of(buf[q]) >= 0, ell |= buf[q] == '.';
    if (ell && in[k]->rank - letters > n_ell) n_ell = in[k]->rank - letters;
    k++;
    start = p + 1;
  }
  if (k != n_in) {
    snprintf(msg, msize, "%d terms for %d inputs", k, n_in);
    return -1;
  }
  k = 0;
  start = 0;
  for (size_t p = 0; p <= lhs; p++) {
    if (p < lhs && buf[p] != ',') continue;
    int r;
    if (parse_term(buf + start, p - start, in[k]->rank, n_ell, s->lab[k], &r, msg, msize)) return -1;
    s->rank[k] = r;
    k++;
    start = p + 1;
  }
  /* Extents: equal for letters; an ellipsis's dimensions broadcast (1 against n). */
  for (k = 0; k < n_in; k++)
    for (int d = 0; d < s->rank[k]; d++) {
      int l = s->lab[k][d];
      int64_t x = in[k]->dims[d];
      if (!s->used[l] || s->dim[l] == 1) s->dim[l] = x;
      else if (x != s->dim[l] && !(l >= ES_ELL && x == 1)) {
        snprintf(msg, msize, "subscript %d of input %d has extent %" PRId64 ", elsewhere %" PRId64, d, k, x, s->dim[l]);
        return -1;
      }
      s->used[l] = 1;
    }
  int count[ES_LABELS] = {0};
  for (k = 0; k < n_in; k++)
    for (int d = 0; d < s->rank[k]; d++) count[s->lab[k][d]]++;
  if (arrow) {
    if (parse_term(arrow + 2, strlen(arrow + 2), -1, n_ell, s->out_lab, &s->out_rank, msg, msize)) return -1;
    for (int d = 0; d < s->out_rank; d++) {
      if (!s->used[s->out_lab[d]]) {
        snprintf(msg, msize, "output subscript %d appears in no input", d);
        return -1;
      }
      for (int e = 0; e < d; e++)
        if (s->out_lab[e] == s->out_lab[d]) {
          snprintf(msg, msize, "output subscript %d is repeated", d);
          return -1;
        }
    }
  } else {
    /* Implicit output: the ellipsis, then the letters used once, in alphabetical (ASCII)
     * order: capitals first. */
    for (int l = ES_ELL; l < ES_ELL + n_ell; l++) s->out_lab[s->out_rank++] = l;
    for (int q = 0; q < 52; q++) {
      int l = q < 26 ? 26 + q : q - 26;
      if (count[l] != 1) continue;
      if (s->out_rank >= VTA_MAX_RANK) {
        snprintf(msg, msize, "the implicit output has more than %d dimensions", VTA_MAX_RANK);
        return -1;
      }
      s->out_lab[s->out_rank++] = l;
    }
  }
  int in_out[ES_LABELS] = {0};
  for (int d = 0; d < s->out_rank; d++) in_out[s->out_lab[d]] = 1;
  for (int l = 0; l < ES_LABELS; l++)
    if (s->used[l] && !in_out[l]) s->sum_lab[s->n_sum++] = l;
  for (k = 0; k < n_in; k++) {
    int64_t acc = 1;
    for (int d = s->rank[k] - 1; d >= 0; d--) {
      if (in[k]->dims[d] != 1) s->stride[k][s->lab[k][d]] += acc;
      acc *= in[k]->dims[d];
    }
  }
  return 0;
}

static int es_of(const vta_graph *g, int i, es *s, char *msg, size_t msize) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *in[ES_MAX_IN];
  if (nd->n_in > ES_MAX_IN) {
    snprintf(msg, msize, "%d inputs (at most %d)", nd->n_in, ES_MAX_IN);
    return -1;
  }
  for (int k = 0; k < nd->n_in; k++) {
    if (nd->in[k] < 0 || g->values[nd->in[k]].rank < 0) {
      snprintf(msg, msize, "input %d is missing or has no known shape", k);
      return -1;
    }
    in[k] = &g->values[nd->in[k]];
  }
  return es_parse(vta_node_string(nd, "equation", ""), nd->n_in, in, s, msg, msize);
}

static int einsum_infer(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  if (!vta_node_attr(nd, "equation")) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the equation attribute is missing");
  es s;
  char msg[300];
  if (es_of(g, i, &s, msg, sizeof msg))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "equation '%s': %s", vta_node_string(nd, "equation", ""), msg);
  vta_dtype t = g->values[nd->in[0]].dtype;
  for (int k = 0; k < nd->n_in; k++)
    if (g->values[nd->in[k]].dtype != t)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d is %s, input 0 %s", k,
                          vta_dtype_name(g->values[nd->in[k]].dtype), vta_dtype_name(t));
  if (t == VTA_DT_BOOL) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "Einsum of bool data");
  int64_t dims[VTA_MAX_RANK];
  for (int d = 0; d < s.out_rank; d++) dims[d] = s.dim[s.out_lab[d]];
  vta_op_set_out(g, i, 0, t, s.out_rank, dims);
  return 0;
}

/* ---- reference ---- */

static int einsum_eval(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  es s;
  char msg[300];
  if (es_of(g, i, &s, msg, sizeof msg)) return vta_op_error(g, i, err, VTA_ERR_INVALID, "%s", msg);
  vta_gvalue *o = &g->values[nd->out[0]];
  int64_t n_out = vta_value_count(o), n_sum = 1;
  for (int k = 0; k < s.n_sum; k++) n_sum *= s.dim[s.sum_lab[k]];
  int64_t idx[ES_LABELS] = {0};
  for (int64_t j = 0; j < n_out; j++) {
    int64_t rem = j;
    for (int d = s.out_rank - 1; d >= 0; d--) idx[s.out_lab[d]] = rem % s.dim[s.out_lab[d]], rem /= s.dim[s.out_lab[d]];
    double acc = 0;
    for (int64_t q = 0; q < n_sum; q++) {
      rem = q;
      for (int k = s.n_sum - 1; k >= 0; k--) idx[s.sum_lab[k]] = rem % s.dim[s.sum_lab[k]], rem /= s.dim[s.sum_lab[k]];
      double p = 1;
      for (int k = 0; k < s.n_in; k++) {
        int64_t off = 0;
        for (int l = 0; l < ES_LABELS; l++) off += idx[l] * s.stride[k][l];
        p *= vta_elem_get(&g->values[nd->in[k]], off);
      }
      acc += p;
    }
    vta_elem_put(o, j, acc);
  }
  return 0;
}

/* ---- code ---- */

static int einsum_emit(cg *c) {
  const vta_node *nd = c->nd;
  es s;
  char msg[300];
  if (es_of(c->g, c->node, &s, msg, sizeof msg)) return vta_error_set(c->err, VTA_ERR_INVALID, "%s", msg);
  const vta_gvalue *o = &c->g->values[nd->out[0]];
  int vec = c->vec;
  c->vec = 0;
  LLVMTypeRef f64 = LLVMDoubleTypeInContext(c->ctx);
  cg_loop lo[VTA_MAX_RANK], ls[ES_LABELS];
  LLVMValueRef off[ES_MAX_IN], oo = cg_i64(c, 0);
  for (int k = 0; k < s.n_in; k++) off[k] = cg_i64(c, 0);
  int64_t ost = 1, ostr[VTA_MAX_RANK];
  for (int d = s.out_rank - 1; d >= 0; d--) ostr[d] = ost, ost *= o->dims[d];
  for (int d = 0; d < s.out_rank; d++) {
    int l = s.out_lab[d];
    LLVMValueRef iv = cg_loop_open(c, &lo[d], cg_i64(c, 0), cg_i64(c, s.dim[l]), 1);
    oo = cg_add(c, oo, cg_mul(c, iv, ostr[d]));
    for (int k = 0; k < s.n_in; k++)
      if (s.stride[k][l]) off[k] = cg_add(c, off[k], cg_mul(c, iv, s.stride[k][l]));
  }
  LLVMValueRef acc = cg_slot(c, f64);
  LLVMBuildStore(c->b, LLVMConstReal(f64, 0), acc);
  for (int q = 0; q < s.n_sum; q++) {
    int l = s.sum_lab[q];
    LLVMValueRef iv = cg_loop_open(c, &ls[q], cg_i64(c, 0), cg_i64(c, s.dim[l]), 1);
    for (int k = 0; k < s.n_in; k++)
      if (s.stride[k][l]) off[k] = cg_add(c, off[k], cg_mul(c, iv, s.stride[k][l]));
  }
  LLVMValueRef p = LLVMConstReal(f64, 1);
  for (int k = 0; k < s.n_in; k++) {
    vta_dtype t = c->g->values[nd->in[k]].dtype;
    p = LLVMBuildFMul(c->b, p, cg_to_f64(c, cg_tload(c, cg_in(c, k), t, off[k]), t), "");
  }
  LLVMBuildStore(c->b, LLVMBuildFAdd(c->b, LLVMBuildLoad2(c->b, f64, acc, ""), p, ""), acc);
  for (int q = s.n_sum - 1; q >= 0; q--) cg_loop_close(c, &ls[q]);
  cg_tstore(c, cg_from_f64(c, LLVMBuildLoad2(c->b, f64, acc, ""), o->dtype), cg_out(c, 0), o->dtype, oo);
  for (int d = s.out_rank - 1; d >= 0; d--) cg_loop_close(c, &lo[d]);
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_einsum = {"op_einsum.c", einsum_infer, einsum_eval, NULL, einsum_emit, NULL};
