/* plan.c - a deployable model's plan: writer and checking reader (runtime/plan.h).
 *
 * The design idea: the reader is the only gate between a file (or the bytes of a linked object)
 * and the runtime, so it checks everything the runtime later relies on without looking again:
 * every value index, every count against its dimensions, every blob's size against what
 * its users read or write, each part's packed sizes against its device buffers. Blobs are
 * not copied: a deployed model's constants stay in its read-only data.
 */
#include "runtime/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "VTAP"
#define TRAILER "END!"
/* Limits that keep every product below 2^63 and the allocations a reader makes bounded by the
 * input's size (each element of an allocated array takes at least 4 bytes of input). */
#define MAX_DIM ((int64_t)1 << 31)
#define MAX_COUNT ((uint64_t)1 << 40)

/* The plan's checksum: a corrupted plan would otherwise reach kernels compiled for other shapes
 * (a kernel trusts its arguments' sizes), so any damage is refused up front. FNV-1a's step
 * (h ^ w) * prime over 64-bit little-endian words in four interleaved lanes, the lanes and the
 * length folded in at the end. Each step is a bijection of the word for a given h and of h for
 * a given word, so a change confined to one word always changes the sum. Byte-wise FNV-1a
 * (plan version 1) ran at about 4 cycles per byte: three passes over ResNet-18's 23 MB plan
 * were a third of `vta run`'s CPU time; this runs four multiplies in parallel per 32 bytes. */
static uint64_t word_le(const unsigned char *p) {
  uint64_t w;
  memcpy(&w, p, 8); /* one load; a byte loop here was not merged into one by gcc -O2 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

uint64_t vta_plan_checksum(const unsigned char *p, size_t n) {
  const uint64_t prime = 0x100000001b3ull;
  uint64_t lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0xcbf29ce484222325ull ^ 1,
                      0x84222325cbf29ce4ull ^ 1};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    lane[0] = (lane[0] ^ word_le(p + i)) * prime;
    lane[1] = (lane[1] ^ word_le(p + i + 8)) * prime;
    lane[2] = (lane[2] ^ word_le(p + i + 16)) * prime;
    lane[3] = (lane[3] ^ word_le(p + i + 24)) * prime;
  }
  unsigned char tail[32] = {0};
  if (n > i) memcpy(tail, p + i, n - i);
  for (int k = 0; k < 4; k++) lane[k] = (lane[k] ^ word_le(tail + 8 * k)) * prime;
  uint64_t h = ((uint64_t)n ^ 0xcbf29ce484222325ull) * prime;
  for (int k = 0; k < 4; k++) h = (h ^ lane[k]) * prime;
  return h ^ (h >> 29);
}

/* ---- writer ---- */

typedef struct wbuf {
  unsigned char *p;
  size_t n, cap;
  int bad;
} wbuf;

static void put(wbuf *b, const void *src, size_t n) {
  if (b->bad) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    unsigned char *q = realloc(b->p, cap);
    if (!q) {
      b->bad = 1;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, src, n);
  b->n += n;
}
static void put_u32(wbuf *b, uint32_t v) {
  unsigned char s[4];
  for (int i = 0; i < 4; i++) s[i] = (unsigned char)(v >> (8 * i));
  put(b, s, 4);
}
static void put_u64(wbuf *b, uint64_t v) {
  unsigned char s[8];
  for (int i = 0; i < 8; i++) s[i] = (unsigned char)(v >> (8 * i));
  put(b, s, 8);
}
static void put_blob(wbuf *b, const void *data, uint64_t n) {
  static const unsigned char zero[16];
  put_u64(b, n);
  put(b, zero, (16 - b->n % 16) % 16);
  put(b, data, n);
}
static void put_str(wbuf *b, const char *s) { put_blob(b, s ? s : "", (s ? strlen(s) : 0) + 1); }

static void put_geom(wbuf *b, const vta_layout_conv *g) {
  const uint32_t f[12] = {g->n, g->c, g->h, g->w, g->kh, g->kw, g->stride_h, g->stride_w,
                          g->pad_top, g->pad_left, g->pad_bottom, g->pad_right};
  for (int i = 0; i < 12; i++) put_u32(b, f[i]);
}

int vta_plan_write(const vta_plan *p, unsigned char **bytes, size_t *size, vta_error *err) {
  wbuf b = {0};
  put(&b, MAGIC, 4);
  put_u32(&b, VTA_PLAN_VERSION);
  put_u32(&b, p->has_config);
  if (p->has_config) {
    const vta_config *c = &p->cfg;
    put_str(&b, c->target);
    const int f[13] = {c->log_inp_width, c->log_wgt_width, c->log_acc_width, c->log_out_width,
                       c->log_batch, c->log_block_in, c->log_block_out, c->log_uop_buff_size,
                       c->log_inp_buff_size, c->log_wgt_buff_size, c->log_acc_buff_size,
                       c->log_bus_width, c->dram_latency};
    for (int i = 0; i < 13; i++) put_u32(&b, (uint32_t)f[i]);
    uint64_t mhz;
    memcpy(&mhz, &c->clock_mhz, 8);
    put_u64(&b, mhz);
  }
  put_u32(&b, p->n_values);
  for (uint32_t i = 0; i < p->n_values; i++) {
    const vta_plan_value *v = &p->values[i];
    put_str(&b, v->name);
    put_u32(&b, v->dtype);
    put_u32(&b, v->elem_bytes);
    put_u32(&b, v->is_float);
    put_u32(&b, v->role);
    put_u32(&b, (uint32_t)v->rank);
    for (int d = 0; d < v->rank; d++) put_u64(&b, (uint64_t)v->dims[d]);
    put_blob(&b, v->data, v->data ? v->count * v->elem_bytes : 0);
  }
  put_u32(&b, p->n_inputs);
  for (uint32_t i = 0; i < p->n_inputs; i++) put_u32(&b, p->inputs[i]);
  put_u32(&b, p->n_outputs);
  for (uint32_t i = 0; i < p->n_outputs; i++) put_u32(&b, p->outputs[i]);
  put_u32(&b, p->n_nodes);
  for (uint32_t i = 0; i < p->n_nodes; i++) {
    const vta_plan_node *nd = &p->nodes[i];
    put_str(&b, nd->what);
    put_u32(&b, nd->has_code);
    put_u32(&b, nd->fused);
    put_u64(&b, nd->macs);
    put_u32(&b, nd->n_args);
    for (uint32_t k = 0; k < nd->n_args; k++) put_u32(&b, nd->args[k]);
    put_u32(&b, nd->n_parts);
    if (!nd->n_parts) continue;
    put_u32(&b, nd->acc_in);
    put_u32(&b, nd->acc_in2);
    put_u32(&b, nd->acc_out);
    for (uint32_t q = 0; q < nd->n_parts; q++) {
      const vta_plan_part *P = &nd->parts[q];
      put_u32(&b, P->in_kind);
      put_geom(&b, &P->in);
      put_u32(&b, P->has_in2);
      put_u32(&b, P->in2_n);
      put_u32(&b, P->in2_c);
      put_u32(&b, P->in2_h);
      put_u32(&b, P->in2_w);
      put_u32(&b, P->out_kind);
      put_u32(&b, P->out_n);
      put_u32(&b, P->out_h);
      put_u32(&b, P->out_w);
      put_u32(&b, P->out_total);
      put_u32(&b, P->nch);
      for (uint32_t k = 0; k < P->nch; k++) put_u32(&b, P->ch[k]);
      put_u64(&b, P->input_bytes);
      put_u64(&b, P->input2_bytes);
      put_u64(&b, P->output_bytes);
      put_blob(&b, P->prog, P->prog_size);
      put_blob(&b, P->weight, P->weight_size);
      put_blob(&b, P->bias, P->bias_size);
    }
  }
  put(&b, TRAILER, 4);
  if (!b.bad) put_u64(&b, vta_plan_checksum(b.p, b.n));
  if (b.bad) {
    free(b.p);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory writing the model plan");
  }
  *bytes = b.p;
  *size = b.n;
  return 0;
}

/* ---- reader ---- */

typedef struct rbuf {
  const unsigned char *base;
  size_t n, at;
  const char *name;
  vta_error *err;
  int bad;
} rbuf;

static int fail(rbuf *r, const char *what) {
  if (!r->bad)
    vta_error_set(r->err, VTA_ERR_INVALID, "%s: malformed model plan: %s (at byte %zu of %zu)",
                  r->name, what, r->at, r->n);
  r->bad = 1;
  return -1;
}
static uint32_t get_u32(rbuf *r, const char *what) {
  if (r->bad || r->n - r->at < 4) return (void)fail(r, what), 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)r->base[r->at + i] << (8 * i);
  r->at += 4;
  return v;
}
static uint64_t get_u64(rbuf *r, const char *what) {
  if (r->bad || r->n - r->at < 8) return (void)fail(r, what), 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)r->base[r->at + i] << (8 * i);
  r->at += 8;
  return v;
}
static const unsigned char *get_blob(rbuf *r, uint64_t *n, const char *what) {
  *n = get_u64(r, what);
  size_t pad = (16 - r->at % 16) % 16;
  if (r->bad || r->n - r->at < pad || r->n - r->at - pad < *n) {
    fail(r, what);
    *n = 0;
    return NULL;
  }
  r->at += pad;
  const unsigned char *p = r->base + r->at;
  r->at += (size_t)*n;
  return p;
}
static const char *get_str(rbuf *r, const char *what) {
  uint64_t n;
  const unsigned char *s = get_blob(r, &n, what);
  if (r->bad) return "";
  if (n == 0 || s[n - 1] != 0 || memchr(s, 0, (size_t)n) != s + n - 1) return (void)fail(r, what), "";
  return (const char *)s;
}
/* An array of count u32 (each < limit), malloc'd; count was checked against the input. */
static uint32_t *get_u32s(rbuf *r, uint32_t count, uint32_t limit, const char *what) {
  if (r->bad) return NULL;
  if ((uint64_t)count * 4 > r->n - r->at) return (void)fail(r, what), NULL;
  uint32_t *a = malloc((size_t)count * 4 + 4);
  if (!a) {
    vta_error_set(r->err, VTA_ERR_NOMEM, "%s: out of memory reading the model plan", r->name);
    r->bad = 1;
    return NULL;
  }
  for (uint32_t i = 0; i < count; i++) {
    a[i] = get_u32(r, what);
    if (!r->bad && a[i] >= limit) {
      vta_error_set(r->err, VTA_ERR_INVALID, "%s: malformed model plan: %s %u is out of range "
                    "(limit %u)", r->name, what, a[i], limit);
      r->bad = 1;
    }
  }
  if (r->bad) {
    free(a);
    return NULL;
  }
  return a;
}
/* A count of things that each take at least `each` bytes of the rest of the input. */
static uint32_t get_count(rbuf *r, size_t each, const char *what) {
  uint32_t n = get_u32(r, what);
  if (!r->bad && (uint64_t)n * each > r->n - r->at) fail(r, what);
  return r->bad ? 0 : n;
}
static void *calloc_or(rbuf *r, size_t n, size_t each) {
  if (r->bad) return NULL;
  void *p = calloc(n + 1, each);
  if (!p) {
    vta_error_set(r->err, VTA_ERR_NOMEM, "%s: out of memory reading the model plan", r->name);
    r->bad = 1;
  }
  return p;
}

static int bad_value(rbuf *r, const vta_plan_value *v, const char *what) {
  vta_error_set(r->err, VTA_ERR_INVALID, "%s: malformed model plan: value '%s': %s", r->name,
                v->name, what);
  r->bad = 1;
  return -1;
}

static int read_value(rbuf *r, vta_plan_value *v) {
  v->name = get_str(r, "value name");
  v->dtype = get_u32(r, "value type");
  v->elem_bytes = get_u32(r, "value element size");
  v->is_float = get_u32(r, "value float flag");
  v->role = get_u32(r, "value role");
  v->rank = (int32_t)get_u32(r, "value rank");
  if (r->bad) return -1;
  if (v->rank < 0 || v->rank > VTA_PLAN_MAX_RANK) return bad_value(r, v, "rank outside 0 to 8");
  if (v->elem_bytes != 1 && v->elem_bytes != 2 && v->elem_bytes != 4 && v->elem_bytes != 8)
    return bad_value(r, v, "element size is not 1, 2, 4 or 8 bytes");
  if (v->role >= VTA_PLAN_ROLE_COUNT) return bad_value(r, v, "unknown role");
  if (v->is_float > 1 || (v->is_float && v->elem_bytes != 4)) return bad_value(r, v, "bad float flag");
  v->count = 1;
  for (int d = 0; d < v->rank; d++) {
    v->dims[d] = (int64_t)get_u64(r, "value dimension");
    if (r->bad) return -1;
    if (v->dims[d] < 0 || v->dims[d] > MAX_DIM) return bad_value(r, v, "dimension out of range");
    v->count *= (uint64_t)v->dims[d];
    if (v->count > MAX_COUNT) return bad_value(r, v, "more than 2^40 elements");
  }
  uint64_t n;
  const unsigned char *data = get_blob(r, &n, "value data");
  if (r->bad) return -1;
  if (v->role == VTA_PLAN_CONST) {
    if (n != v->count * v->elem_bytes) return bad_value(r, v, "constant data size differs from its shape");
    v->data = data;
  } else if (n) {
    return bad_value(r, v, "data given for a computed value");
  }
  if (v->role == VTA_PLAN_INPUT && !v->is_float) return bad_value(r, v, "inputs must be float32");
  return 0;
}

static void get_geom(rbuf *r, vta_layout_conv *g) {
  uint32_t *f[12] = {&g->n, &g->c, &g->h, &g->w, &g->kh, &g->kw, &g->stride_h, &g->stride_w,
                     &g->pad_top, &g->pad_left, &g->pad_bottom, &g->pad_right};
  for (int i = 0; i < 12; i++) *f[i] = get_u32(r, "part geometry");
}

static int bad_part(rbuf *r, const vta_plan_node *nd, uint32_t q, const char *what, uint64_t a, uint64_t b) {
  vta_error_set(r->err, VTA_ERR_INVALID, "%s: malformed model plan: %s, accelerator program %u: %s "
                "(%llu against %llu)", r->name, nd->what, q, what, (unsigned long long)a,
                (unsigned long long)b);
  r->bad = 1;
  return -1;
}

/* Every size the runtime will pack, unpack or copy, against the values and the buffers. */
static int check_part(rbuf *r, const vta_plan *p, const vta_plan_node *nd, uint32_t q) {
  const vta_plan_part *P = &nd->parts[q];
  const vta_config *cfg = &p->cfg;
  const vta_layout_conv *g = &P->in;
  const uint32_t lim = 1u << 20;
  if (P->in_kind >= VTA_PLAN_IN_COUNT || P->out_kind >= VTA_PLAN_OUT_COUNT)
    return bad_part(r, nd, q, "unknown layout kind", P->in_kind, P->out_kind);
  if (!g->n || !g->c || g->n > lim || g->c > lim || g->h > lim || g->w > lim || g->kh > 64 ||
      g->kw > 64 || g->pad_top > 64 || g->pad_left > 64 || g->pad_bottom > 64 || g->pad_right > 64 ||
      P->out_n > lim || P->out_h > lim || P->out_w > lim || P->out_total > lim || !P->nch ||
      P->nch > P->out_total || P->in2_n > lim || P->in2_c > lim || P->in2_h > lim || P->in2_w > lim)
    return bad_part(r, nd, q, "a size is zero or out of range", g->n, g->c);
  const vta_plan_value *x = &p->values[nd->acc_in], *y = &p->values[nd->acc_out];
  uint64_t in_count, pack;
  if (P->in_kind == VTA_PLAN_IN_DENSE) {
    in_count = (uint64_t)g->n * g->c;
    pack = vta_layout_dense_bytes(cfg, g->n, g->c, cfg->block_in);
  } else {
    in_count = (uint64_t)g->n * g->c * g->h * g->w;
    if (P->in_kind == VTA_PLAN_IN_IM2COL) {
      if (!vta_layout_conv_out_h(g) || !vta_layout_conv_out_w(g) || (uint64_t)g->c * g->kh * g->kw > lim)
        return bad_part(r, nd, q, "im2col geometry without output", g->kh, g->kw);
      pack = vta_layout_im2col_bytes(cfg, g);
    } else {
      pack = vta_layout_act_bytes(cfg, g->n, g->c, g->h, g->w, cfg->block_in);
    }
  }
  if (x->elem_bytes != 1 || x->count != in_count)
    return bad_part(r, nd, q, "input elements differ from the packed geometry", x->count, in_count);
  if (pack > P->input_bytes) return bad_part(r, nd, q, "packed input larger than its buffer", pack, P->input_bytes);
  if (P->has_in2) {
    const vta_plan_value *x2 = &p->values[nd->acc_in2];
    uint64_t c2 = (uint64_t)P->in2_n * P->in2_c * P->in2_h * P->in2_w;
    uint64_t b2 = vta_layout_act_bytes(cfg, P->in2_n, P->in2_c, P->in2_h, P->in2_w, cfg->block_out);
    if (x2->elem_bytes != 1 || x2->count != c2)
      return bad_part(r, nd, q, "second input elements differ from its geometry", x2->count, c2);
    if (b2 > P->input2_bytes) return bad_part(r, nd, q, "packed second input larger than its buffer", b2, P->input2_bytes);
  }
  uint64_t out_count, unpack;
  if (P->out_kind == VTA_PLAN_OUT_DENSE) {
    out_count = (uint64_t)P->out_n * P->out_total;
    unpack = vta_layout_dense_bytes(cfg, P->out_n, P->nch, cfg->block_out);
  } else {
    out_count = (uint64_t)P->out_n * P->out_total * P->out_h * P->out_w;
    unpack = vta_layout_act_bytes(cfg, P->out_n, P->nch, P->out_h, P->out_w, cfg->block_out);
  }
  if (y->elem_bytes != 1 || y->count != out_count)
    return bad_part(r, nd, q, "output elements differ from the unpacked geometry", y->count, out_count);
  if (unpack > P->output_bytes) return bad_part(r, nd, q, "unpacked output larger than its buffer", unpack, P->output_bytes);
  for (uint32_t k = 1; k < P->nch; k++)
    if (P->ch[k] <= P->ch[k - 1]) return bad_part(r, nd, q, "output channels not ascending", P->ch[k], P->ch[k - 1]);
  return 0;
}

static int read_node(rbuf *r, vta_plan *p, vta_plan_node *nd) {
  nd->what = get_str(r, "node description");
  nd->has_code = get_u32(r, "node code flag");
  nd->fused = get_u32(r, "node fused flag");
  if (!r->bad && nd->fused > 1)
    return vta_error_set(r->err, VTA_ERR_INVALID, "%s: malformed model plan: %s has fused flag %u",
                         r->name, nd->what, nd->fused), r->bad = 1, -1;
  nd->macs = get_u64(r, "node multiply-accumulates");
  nd->n_args = get_count(r, 4, "kernel argument count");
  nd->args = get_u32s(r, nd->n_args, p->n_values, "kernel argument value");
  nd->n_parts = get_count(r, 64, "accelerator program count");
  if (r->bad || !nd->n_parts) return r->bad ? -1 : 0;
  if (!p->has_config)
    return vta_error_set(r->err, VTA_ERR_INVALID, "%s: malformed model plan: %s has accelerator "
                         "programs but the plan no hardware configuration", r->name, nd->what), r->bad = 1, -1;
  nd->acc_in = get_u32(r, "accelerator input");
  nd->acc_in2 = get_u32(r, "accelerator second input");
  nd->acc_out = get_u32(r, "accelerator output");
  if (!r->bad && (nd->acc_in >= p->n_values || nd->acc_in2 >= p->n_values || nd->acc_out >= p->n_values ||
                  p->values[nd->acc_out].role != VTA_PLAN_COMPUTED))
    return fail(r, "accelerator node's values out of range or its output not computed");
  nd->parts = calloc_or(r, nd->n_parts, sizeof *nd->parts);
  for (uint32_t q = 0; q < nd->n_parts && !r->bad; q++) {
    vta_plan_part *P = &nd->parts[q];
    P->in_kind = get_u32(r, "part input kind");
    get_geom(r, &P->in);
    P->has_in2 = get_u32(r, "part second input flag");
    P->in2_n = get_u32(r, "part second input");
    P->in2_c = get_u32(r, "part second input");
    P->in2_h = get_u32(r, "part second input");
    P->in2_w = get_u32(r, "part second input");
    P->out_kind = get_u32(r, "part output kind");
    P->out_n = get_u32(r, "part output");
    P->out_h = get_u32(r, "part output");
    P->out_w = get_u32(r, "part output");
    P->out_total = get_u32(r, "part output channels");
    P->nch = get_count(r, 4, "part channel count");
    P->ch = get_u32s(r, P->nch, P->out_total, "part output channel");
    P->input_bytes = get_u64(r, "part input bytes");
    P->input2_bytes = get_u64(r, "part second input bytes");
    P->output_bytes = get_u64(r, "part output bytes");
    P->prog = get_blob(r, &P->prog_size, "part program");
    P->weight = get_blob(r, &P->weight_size, "part weights");
    P->bias = get_blob(r, &P->bias_size, "part biases");
    if (!r->bad && (P->input_bytes > MAX_COUNT || P->input2_bytes > MAX_COUNT || P->output_bytes > MAX_COUNT))
      return bad_part(r, nd, q, "buffer larger than 2^40 bytes", P->input_bytes, P->output_bytes);
    if (!r->bad) check_part(r, p, nd, q);
  }
  return r->bad ? -1 : 0;
}

int vta_plan_read(const unsigned char *bytes, size_t size, const char *name, vta_plan *p,
                  vta_error *err) {
  memset(p, 0, sizeof *p);
  rbuf r = {bytes, size, 0, name, err, 0};
  if (size < 8 || memcmp(bytes, MAGIC, 4) != 0)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: not a model plan (no \"VTAP\" magic)", name);
  r.at = 4;
  if (size < 16 + 4) return vta_error_set(err, VTA_ERR_INVALID, "%s: model plan truncated (%zu bytes)", name, size);
  r.n = size - 8; /* the checksum follows the end marker */
  /* The version first: a plan of another version has another checksum, and "damaged" would
   * be the wrong word for it. */
  uint32_t version = get_u32(&r, "version");
  if (version != VTA_PLAN_VERSION)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: model plan version %u is not supported (this "
                         "runtime reads version %d; compile the model again)", name, version,
                         VTA_PLAN_VERSION);
  if (word_le(bytes + r.n) != vta_plan_checksum(bytes, r.n))
    return vta_error_set(err, VTA_ERR_INVALID, "%s: model plan checksum mismatch (damaged or truncated)", name);
  p->has_config = get_u32(&r, "configuration flag");
  if (p->has_config) {
    vta_config *c = &p->cfg;
    vta_config_default(c);
    snprintf(c->target, sizeof c->target, "%s", get_str(&r, "configuration target"));
    int *f[13] = {&c->log_inp_width, &c->log_wgt_width, &c->log_acc_width, &c->log_out_width,
                  &c->log_batch, &c->log_block_in, &c->log_block_out, &c->log_uop_buff_size,
                  &c->log_inp_buff_size, &c->log_wgt_buff_size, &c->log_acc_buff_size,
                  &c->log_bus_width, &c->dram_latency};
    for (int i = 0; i < 13; i++) *f[i] = (int)get_u32(&r, "configuration");
    uint64_t mhz = get_u64(&r, "configuration clock");
    memcpy(&c->clock_mhz, &mhz, 8);
    if (r.bad) goto bad;
    if (vta_config_derive(c, err)) {
      vta_error_prefix(err, "%s: the model's hardware configuration", name);
      goto bad;
    }
  }
  p->n_values = get_count(&r, 40, "value count");
  p->values = calloc_or(&r, p->n_values, sizeof *p->values);
  for (uint32_t i = 0; i < p->n_values && !r.bad; i++) read_value(&r, &p->values[i]);
  p->n_inputs = get_count(&r, 4, "input count");
  p->inputs = get_u32s(&r, p->n_inputs, p->n_values, "input value");
  p->n_outputs = get_count(&r, 4, "output count");
  p->outputs = get_u32s(&r, p->n_outputs, p->n_values, "output value");
  for (uint32_t i = 0; i < p->n_inputs && !r.bad; i++)
    if (p->values[p->inputs[i]].role != VTA_PLAN_INPUT) fail(&r, "a model input is not an input value");
  for (uint32_t i = 0; i < p->n_outputs && !r.bad; i++)
    if (!p->values[p->outputs[i]].is_float) bad_value(&r, &p->values[p->outputs[i]], "outputs must be float32");
  p->n_nodes = get_count(&r, 40, "node count");
  p->nodes = calloc_or(&r, p->n_nodes, sizeof *p->nodes);
  for (uint32_t i = 0; i < p->n_nodes && !r.bad; i++) read_node(&r, p, &p->nodes[i]);
  if (!r.bad && (r.n - r.at != 4 || memcmp(bytes + r.at, TRAILER, 4) != 0))
    fail(&r, "missing end marker or trailing bytes");
  if (!r.bad) return 0;
bad:
  vta_plan_free(p);
  return -1;
}

void vta_plan_free(vta_plan *p) {
  for (uint32_t i = 0; p->nodes && i < p->n_nodes; i++) {
    vta_plan_node *nd = &p->nodes[i];
    free(nd->args);
    for (uint32_t q = 0; nd->parts && q < nd->n_parts; q++) free(nd->parts[q].ch);
    free(nd->parts);
  }
  free(p->nodes);
  free(p->values);
  free(p->inputs);
  free(p->outputs);
  memset(p, 0, sizeof *p);
}
