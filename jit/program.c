/* program.c - accelerator programs: building, checking, text and binary forms, replay.
 *
 * The design idea: a program is checked when it is built, operation by operation, against the
 * configuration it records, using the ISA's own encoders (a kernel's instruction template and
 * micro-ops are encoded trial-wise, so a field that would not fit is reported here, at compile
 * time, naming the operation, and never at replay). The parser and the binary reader do not
 * trust their input: they rebuild the program through the same builder calls, so a file can
 * describe nothing that the compiler could not have built.
 *
 * A kernel is identified by its binary record (mode, flags, loops, micro-ops), which is both
 * what the binary form stores and the signature under which vta_program_run caches it in the
 * JIT: equal kernels are one entry, whichever program asks, and a program freed and another
 * allocated at the same address can never pick up a stale kernel.
 */
#include "vta/program.h"

#include "jit/program_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- Names ---- */

static const char *const k_buf_names[] = {"input", "input2", "weight", "bias", "output", "scratch"};
_Static_assert(sizeof k_buf_names / sizeof k_buf_names[0] == VTA_PROG_BUF_COUNT, "buffer names");
const char *const vta_prog_op_names[] = {"load", "store", "run", "push", "pop", "sync"};
_Static_assert(sizeof vta_prog_op_names / sizeof vta_prog_op_names[0] == VTA_PROG_OP_COUNT,
               "op names");
static const char *const k_stage_names[] = {NULL, "load", "compute", "store"};

const char *vta_prog_buf_name(unsigned b) { return b < VTA_PROG_BUF_COUNT ? k_buf_names[b] : NULL; }
const char *vta_prog_opcode_name(unsigned op) {
  return op < VTA_PROG_OP_COUNT ? vta_prog_op_names[op] : NULL;
}

/* ---- A growable byte buffer, little-endian ---- */

typedef struct bytes {
  uint8_t *b;
  size_t n, cap;
  int oom;
} bytes;

static void put(bytes *o, const void *src, size_t n) {
  if (o->oom) return;
  if (o->n + n > o->cap) {
    size_t nc = o->cap ? o->cap : 256;
    while (nc < o->n + n) nc *= 2;
    uint8_t *nb = realloc(o->b, nc);
    if (!nb) {
      o->oom = 1;
      return;
    }
    o->b = nb;
    o->cap = nc;
  }
  memcpy(o->b + o->n, src, n);
  o->n += n;
}

static void put8(bytes *o, uint32_t v) {
  uint8_t b = (uint8_t)v;
  put(o, &b, 1);
}

static void put32(bytes *o, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  put(o, b, 4);
}

static void put64(bytes *o, uint64_t v) {
  put32(o, (uint32_t)v);
  put32(o, (uint32_t)(v >> 32));
}

/* ---- The program ---- */


int vta_program_create(const vta_config *cfg, vta_program **out, vta_error *err) {
  vta_program *p = calloc(1, sizeof *p);
  if (!p) return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
  p->cfg = *cfg;
  *out = p;
  return VTA_OK;
}

void vta_program_destroy(vta_program *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nkern; i++) {
    free(p->kern[i].uops);
    free(p->kern[i].sig);
  }
  free(p->kern);
  free(p->slot);
  free(p->ops);
  free(p);
}

const vta_config *vta_program_config(const vta_program *p) { return &p->cfg; }

void vta_program_need_buffer(vta_program *p, vta_prog_buf b, uint64_t bytes) {
  if ((unsigned)b < VTA_PROG_BUF_COUNT && bytes > p->bufsize[b]) p->bufsize[b] = bytes;
}

uint64_t vta_program_buffer_size(const vta_program *p, vta_prog_buf b) {
  return (unsigned)b < VTA_PROG_BUF_COUNT ? p->bufsize[b] : 0;
}

size_t vta_program_op_count(const vta_program *p) { return p->nops; }
const vta_prog_op *vta_program_op(const vta_program *p, size_t i) {
  return i < p->nops ? &p->ops[i] : NULL;
}
size_t vta_program_kernel_count(const vta_program *p) { return p->nkern; }
const vta_prog_kernel *vta_program_kernel(const vta_program *p, size_t i) {
  return i < p->nkern ? &p->kern[i].k : NULL;
}

/* ---- Kernels ---- */

static void kernel_record(bytes *o, const vta_prog_kernel *k) {
  put8(o, (uint32_t)k->mode);
  put8(o, k->reset);
  put8(o, (uint32_t)k->alu_op);
  put8(o, k->use_imm);
  put32(o, (uint32_t)k->imm);
  put8(o, k->nloops);
  put8(o, 0);
  put8(o, 0);
  put8(o, 0);
  for (int l = 0; l < 2; l++) {
    vta_prog_loop z = {0, 0, 0, 0}, L = (uint32_t)l < k->nloops ? k->loop[l] : z;
    put32(o, L.extent);
    put32(o, L.dst);
    put32(o, L.src);
    put32(o, L.wgt);
  }
  put32(o, k->nuops);
  for (uint32_t i = 0; i < k->nuops; i++) {
    put32(o, k->uops[i].dst);
    put32(o, k->uops[i].src);
    put32(o, k->uops[i].wgt);
  }
}

static uint64_t fnv(const uint8_t *b, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  return h ^ (h >> 31);
}

/* The kernel's instruction as the JIT builds it (jit/kernel.c: GEMM maps the first loop to
 * iter_out; ALU with one loop uses iter_in), encoded on trial so that every field is checked. */
static int check_template(const vta_config *cfg, const vta_prog_kernel *k, vta_error *err) {
  vta_prog_loop none = {1, 0, 0, 0}, out = none, in = none;
  if (k->mode == VTA_JIT_GEMM) {
    if (k->nloops > 0) out = k->loop[0];
    if (k->nloops > 1) in = k->loop[1];
  } else if (k->nloops == 1) {
    in = k->loop[0];
  } else if (k->nloops == 2) {
    out = k->loop[0];
    in = k->loop[1];
  }
  vta_insn t;
  memset(&t, 0, sizeof t);
  t.f[VTA_F_OPCODE] = k->mode == VTA_JIT_GEMM ? VTA_OP_GEMM : VTA_OP_ALU;
  t.f[VTA_F_RESET_REG] = k->reset ? 1 : 0;
  t.f[VTA_F_UOP_END] = k->nuops;
  t.f[VTA_F_ITER_OUT] = out.extent;
  t.f[VTA_F_ITER_IN] = in.extent;
  t.f[VTA_F_DST_FACTOR_OUT] = out.dst;
  t.f[VTA_F_DST_FACTOR_IN] = in.dst;
  t.f[VTA_F_SRC_FACTOR_OUT] = out.src;
  t.f[VTA_F_SRC_FACTOR_IN] = in.src;
  if (k->mode == VTA_JIT_GEMM) {
    t.f[VTA_F_WGT_FACTOR_OUT] = out.wgt;
    t.f[VTA_F_WGT_FACTOR_IN] = in.wgt;
  } else {
    t.f[VTA_F_ALU_OPCODE] = k->alu_op;
    t.f[VTA_F_USE_IMM] = k->use_imm ? 1 : 0;
    t.f[VTA_F_IMM] = vta_alu_imm_used(k->alu_op, k->use_imm) ? k->imm : 0;
  }
  vta_insn_word w;
  return vta_insn_encode(cfg, &t, &w, err);
}

/* The highest index a field reaches over all loop iterations, as jit/kernel.c checks it. */
static uint64_t reach(const vta_prog_kernel *k, int which) {
  uint64_t hi = 0;
  for (uint32_t i = 0; i < k->nuops; i++) {
    uint32_t v = which == 0 ? k->uops[i].dst : which == 1 ? k->uops[i].src : k->uops[i].wgt;
    if (v > hi) hi = v;
  }
  for (uint32_t l = 0; l < k->nloops; l++) {
    uint32_t f = which == 0 ? k->loop[l].dst : which == 1 ? k->loop[l].src : k->loop[l].wgt;
    hi += (uint64_t)(k->loop[l].extent - 1) * f;
  }
  return hi;
}

static int check_kernel(const vta_config *cfg, const vta_prog_kernel *k, vta_error *err) {
  if ((unsigned)k->mode >= VTA_JIT_MODE_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "mode %d is neither gemm (0) nor alu (1)",
                         (int)k->mode);
  if (k->mode == VTA_JIT_ALU && (unsigned)k->alu_op >= VTA_ALU_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "ALU opcode %d is undefined (0-%d)",
                         (int)k->alu_op, VTA_ALU_COUNT - 1);
  if (k->nloops > 2)
    return vta_error_set(err, VTA_ERR_INVALID, "%u loops; a kernel has at most two", k->nloops);
  for (uint32_t l = 0; l < k->nloops; l++)
    if (k->loop[l].extent == 0)
      return vta_error_set(err, VTA_ERR_INVALID, "loop %u has extent 0", l);
  uint32_t udepth = cfg->depth[VTA_MEM_UOP];
  uint32_t limit = udepth < 65535u ? udepth : 65535u;
  if (k->nuops == 0) return vta_error_set(err, VTA_ERR_INVALID, "no micro-ops");
  if (k->nuops > limit)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "%u micro-ops exceed %u, the most the micro-op buffer (%u entries) "
                         "and one LOAD UOP hold",
                         k->nuops, limit, udepth);
  int rc = check_template(cfg, k, err);
  if (rc) return rc;
  for (uint32_t i = 0; i < k->nuops; i++) {
    uint32_t w;
    vta_uop u = k->uops[i];
    if (k->mode == VTA_JIT_ALU) u.wgt = 0;
    rc = vta_uop_encode(cfg, &u, &w, err);
    if (rc) {
      vta_error_prefix(err, "micro-op %u", i);
      return rc;
    }
  }
  struct {
    int which;
    const char *field, *buffer;
    uint32_t depth;
    int used;
  } checks[3] = {
      {0, "dst", "ACC", cfg->depth[VTA_MEM_ACC], 1},
      {1, "src", k->mode == VTA_JIT_GEMM ? "INP" : "ACC",
       cfg->depth[k->mode == VTA_JIT_GEMM ? VTA_MEM_INP : VTA_MEM_ACC],
       !(k->mode == VTA_JIT_GEMM && k->reset) && !(k->mode == VTA_JIT_ALU && k->use_imm)},
      {2, "wgt", "WGT", cfg->depth[VTA_MEM_WGT], k->mode == VTA_JIT_GEMM && !k->reset},
  };
  for (int c = 0; c < 3; c++) {
    if (!checks[c].used) continue;
    uint64_t hi = reach(k, checks[c].which);
    if (hi >= checks[c].depth)
      return vta_error_set(err, VTA_ERR_BOUNDS,
                           "%s index reaches %" PRIu64 " over the loops, beyond the %s buffer "
                           "(%u entries)",
                           checks[c].field, hi, checks[c].buffer, checks[c].depth);
  }
  return VTA_OK;
}

/* The kernel in canonical form: fields a mode does not use are zero, so that kernels that do
 * the same thing have the same record. */
static void canonical(const vta_prog_kernel *k, vta_prog_kernel *c) {
  *c = *k;
  c->reset = k->reset ? 1 : 0;
  if (k->mode == VTA_JIT_GEMM) {
    c->alu_op = 0;
    c->use_imm = 0;
    c->imm = 0;
  } else {
    c->reset = 0;
    c->use_imm = k->use_imm ? 1 : 0;
    if (!vta_alu_imm_used(c->alu_op, c->use_imm)) c->imm = 0;
    for (uint32_t l = 0; l < c->nloops; l++) c->loop[l].wgt = 0;
  }
}

static int slot_insert(vta_program *p, uint32_t idx, vta_error *err) {
  if (2 * (p->nkern + 1) > p->capslot) {
    size_t nc = p->capslot ? 2 * p->capslot : 64;
    uint32_t *ns = calloc(nc, sizeof *ns);
    if (!ns) return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
    for (size_t i = 0; i < p->capslot; i++) {
      if (!p->slot[i]) continue;
      size_t j = (size_t)p->kern[p->slot[i] - 1].hash & (nc - 1);
      while (ns[j]) j = (j + 1) & (nc - 1);
      ns[j] = p->slot[i];
    }
    free(p->slot);
    p->slot = ns;
    p->capslot = nc;
  }
  size_t j = (size_t)p->kern[idx].hash & (p->capslot - 1);
  while (p->slot[j]) j = (j + 1) & (p->capslot - 1);
  p->slot[j] = idx + 1;
  return VTA_OK;
}

int vta_program_add_kernel(vta_program *p, const vta_prog_kernel *k, uint32_t *id,
                           vta_error *err) {
  vta_prog_kernel c;
  canonical(k, &c);
  if (c.nuops && !c.uops)
    return vta_error_set(err, VTA_ERR_INVALID, "program: kernel %zu: micro-ops missing",
                         p->nkern);
  int rc = check_kernel(&p->cfg, &c, err);
  if (rc) {
    vta_error_prefix(err, "program: kernel %zu (%s)", p->nkern,
                     c.mode == VTA_JIT_GEMM ? "gemm" : "alu");
    return rc;
  }
  bytes rec = {0};
  kernel_record(&rec, &c);
  if (rec.oom) {
    free(rec.b);
    return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
  }
  uint64_t h = fnv(rec.b, rec.n);
  for (size_t j = p->capslot ? (size_t)h & (p->capslot - 1) : 0; p->capslot && p->slot[j];
       j = (j + 1) & (p->capslot - 1)) {
    prog_kernel *o = &p->kern[p->slot[j] - 1];
    if (o->hash == h && o->nsig == rec.n && memcmp(o->sig, rec.b, rec.n) == 0) {
      free(rec.b);
      *id = p->slot[j] - 1;
      return VTA_OK;
    }
  }
  if (p->nkern == p->capkern) {
    size_t nc = p->capkern ? 2 * p->capkern : 16;
    prog_kernel *nk = realloc(p->kern, nc * sizeof *nk);
    if (!nk) {
      free(rec.b);
      return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
    }
    p->kern = nk;
    p->capkern = nc;
  }
  prog_kernel *pk = &p->kern[p->nkern];
  memset(pk, 0, sizeof *pk);
  pk->uops = malloc(c.nuops * sizeof *pk->uops);
  if (!pk->uops) {
    free(rec.b);
    return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
  }
  for (uint32_t i = 0; i < c.nuops; i++) {
    pk->uops[i] = c.uops[i];
    if (c.mode == VTA_JIT_ALU) pk->uops[i].wgt = 0;
  }
  pk->k = c;
  pk->k.uops = pk->uops;
  pk->sig = rec.b;
  pk->nsig = rec.n;
  pk->hash = h;
  rc = slot_insert(p, (uint32_t)p->nkern, err);
  if (rc) {
    free(pk->uops);
    free(pk->sig);
    return rc;
  }
  *id = (uint32_t)p->nkern++;
  return VTA_OK;
}

/* ---- Operations ---- */

static int push_op(vta_program *p, const vta_prog_op *op, vta_error *err) {
  if (p->nops == p->capops) {
    size_t nc = p->capops ? 2 * p->capops : 256;
    vta_prog_op *no = realloc(p->ops, nc * sizeof *no);
    if (!no) return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
    p->ops = no;
    p->capops = nc;
  }
  p->ops[p->nops++] = *op;
  return VTA_OK;
}

static int check_xfer(vta_program *p, const vta_prog_xfer *x, int store, vta_error *err) {
  const vta_config *cfg = &p->cfg;
  const char *what = store ? "store" : "load";
  if ((unsigned)x->type >= VTA_MEM_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "%s of undefined memory type %d", what,
                         (int)x->type);
  if (store ? x->type != VTA_MEM_OUT : (x->type == VTA_MEM_OUT || x->type == VTA_MEM_UOP))
    return vta_error_set(err, VTA_ERR_INVALID, "%s of memory type %s (%s)", what,
                         vta_mem_type_name(x->type),
                         store ? "only out can be stored"
                               : "out cannot be loaded, and micro-ops come with their kernels");
  if ((unsigned)x->buf >= VTA_PROG_BUF_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "%s names undefined buffer %d", what,
                         (int)x->buf);
  if (x->x_size == 0 || x->y_size == 0 || x->x_size > 65535 || x->y_size > 65535 ||
      x->x_stride > 65535)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "%s of %u x %u elements with stride %u: sizes must be 1-65535 and the "
                         "stride at most 65535",
                         what, x->x_size, x->y_size, x->x_stride);
  uint32_t pads[4] = {x->y_pad_before, x->y_pad_after, x->x_pad_before, x->x_pad_after};
  for (int i = 0; i < 4; i++) {
    if (store && pads[i]) return vta_error_set(err, VTA_ERR_INVALID, "a store cannot pad");
    if (pads[i] > 15)
      return vta_error_set(err, VTA_ERR_INVALID, "%s padding %u exceeds 15 (4-bit field)", what,
                           pads[i]);
  }
  uint64_t rows = (uint64_t)x->y_pad_before + x->y_size + x->y_pad_after;
  uint64_t cols = (uint64_t)x->x_pad_before + x->x_size + x->x_pad_after;
  uint32_t depth = cfg->depth[x->type];
  if ((uint64_t)x->sram + rows * cols > depth)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "%s %s: on-chip elements [%u, %" PRIu64 ") are beyond the %u-entry "
                         "buffer",
                         what, vta_mem_type_name(x->type), x->sram, x->sram + rows * cols, depth);
  uint64_t end = x->offset + (uint64_t)(x->y_size - 1) * x->x_stride + x->x_size;
  if (x->offset > (1ull << 40) || end > (1ull << 40))
    return vta_error_set(err, VTA_ERR_BOUNDS, "%s %s: element offset %" PRIu64 " is too large",
                         what, vta_mem_type_name(x->type), x->offset);
  vta_program_need_buffer(p, x->buf, end * cfg->elem_bytes[x->type]);
  return VTA_OK;
}

static int add_xfer(vta_program *p, const vta_prog_xfer *x, int store, vta_error *err) {
  int rc = check_xfer(p, x, store, err);
  if (rc) {
    vta_error_prefix(err, "program: operation %zu", p->nops);
    return rc;
  }
  vta_prog_op op;
  memset(&op, 0, sizeof op);
  op.op = store ? VTA_PROG_STORE : VTA_PROG_LOAD;
  op.x = *x;
  return push_op(p, &op, err);
}

int vta_program_add_load(vta_program *p, const vta_prog_xfer *x, vta_error *err) {
  return add_xfer(p, x, 0, err);
}

int vta_program_add_store(vta_program *p, const vta_prog_xfer *x, vta_error *err) {
  return add_xfer(p, x, 1, err);
}

int vta_program_add_run(vta_program *p, uint32_t kernel, vta_error *err) {
  if (kernel >= p->nkern)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "program: operation %zu runs kernel %u, but only %zu are defined",
                         p->nops, kernel, p->nkern);
  vta_prog_op op;
  memset(&op, 0, sizeof op);
  op.op = VTA_PROG_RUN;
  op.kernel = kernel;
  return push_op(p, &op, err);
}

static int add_dep(vta_program *p, vta_prog_opcode code, vta_jit_stage from, vta_jit_stage to,
                   vta_error *err) {
  int ok = from >= VTA_JIT_STAGE_LOAD && from <= VTA_JIT_STAGE_STORE &&
           to >= VTA_JIT_STAGE_LOAD && to <= VTA_JIT_STAGE_STORE &&
           (from - to == 1 || to - from == 1);
  if (!ok)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "program: operation %zu: %s from stage %d to stage %d: only adjacent "
                         "stages (1 load, 2 compute, 3 store) exchange tokens",
                         p->nops, vta_prog_op_names[code], (int)from, (int)to);
  vta_prog_op op;
  memset(&op, 0, sizeof op);
  op.op = code;
  op.from = from;
  op.to = to;
  return push_op(p, &op, err);
}

int vta_program_add_push(vta_program *p, vta_jit_stage from, vta_jit_stage to, vta_error *err) {
  return add_dep(p, VTA_PROG_PUSH, from, to, err);
}

int vta_program_add_pop(vta_program *p, vta_jit_stage from, vta_jit_stage to, vta_error *err) {
  return add_dep(p, VTA_PROG_POP, from, to, err);
}

int vta_program_add_sync(vta_program *p, vta_error *err) {
  vta_prog_op op;
  memset(&op, 0, sizeof op);
  op.op = VTA_PROG_SYNC;
  return push_op(p, &op, err);
}

/* Queue index of an adjacent pair: load->compute, compute->load, compute->store, store->compute
 * (the order of vta_queue). */
static int queue_of(vta_jit_stage from, vta_jit_stage to) {
  if (from == VTA_JIT_STAGE_LOAD) return VTA_Q_LOAD_TO_COMPUTE;
  if (from == VTA_JIT_STAGE_STORE) return VTA_Q_STORE_TO_COMPUTE;
  return to == VTA_JIT_STAGE_LOAD ? VTA_Q_COMPUTE_TO_LOAD : VTA_Q_COMPUTE_TO_STORE;
}

int vta_program_check(const vta_program *p, vta_error *err) {
  int64_t tokens[VTA_Q_COUNT] = {0};
  for (size_t i = 0; i < p->nops; i++) {
    const vta_prog_op *op = &p->ops[i];
    if (op->op == VTA_PROG_PUSH) tokens[queue_of(op->from, op->to)]++;
    if (op->op == VTA_PROG_POP && --tokens[queue_of(op->from, op->to)] < 0)
      return vta_error_set(err, VTA_ERR_DEADLOCK,
                           "program: operation %zu pops a %s token that no earlier operation "
                           "pushed: the device would wait forever",
                           i, vta_queue_name((vta_queue)queue_of(op->from, op->to)));
  }
  if (p->nops == 0 || p->ops[p->nops - 1].op != VTA_PROG_SYNC)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "program: does not end with a sync, so its results would never be "
                         "computed");
  for (int q = 0; q < VTA_Q_COUNT; q++)
    if (tokens[q])
      return vta_error_set(err, VTA_ERR_INVALID,
                           "program: %" PRId64 " %s token(s) pushed but never popped", tokens[q],
                           vta_queue_name((vta_queue)q));
  return VTA_OK;
}

/* ---- Text form ---- */

/* The configuration keys a program depends on: element layouts and buffer depths. */
typedef struct cfg_key {
  const char *name;
  size_t off;
} cfg_key;
#define CK(f) {#f, offsetof(vta_config, f)}
static const cfg_key k_cfg_keys[] = {
    CK(log_batch),         CK(log_block_in),      CK(log_block_out),     CK(log_inp_width),
    CK(log_wgt_width),     CK(log_acc_width),     CK(log_uop_buff_size), CK(log_inp_buff_size),
    CK(log_wgt_buff_size), CK(log_acc_buff_size),
};
#undef CK
#define NCFG_KEYS (sizeof k_cfg_keys / sizeof k_cfg_keys[0])

static int *cfg_field(vta_config *c, size_t i) { return (int *)((char *)c + k_cfg_keys[i].off); }
static int cfg_get(const vta_config *c, size_t i) {
  return *(const int *)((const char *)c + k_cfg_keys[i].off);
}

static void print_xfer(const vta_prog_xfer *x, int store, FILE *out) {
  if (store)
    fprintf(out, "store");
  else
    fprintf(out, "load %s", vta_mem_type_name(x->type));
  fprintf(out, " sram=%u buf=%s off=%" PRIu64 " x=%u y=%u stride=%u", x->sram,
          k_buf_names[x->buf], x->offset, x->x_size, x->y_size, x->x_stride);
  if (x->y_pad_before || x->y_pad_after || x->x_pad_before || x->x_pad_after)
    fprintf(out, " pad=%u,%u,%u,%u", x->y_pad_before, x->y_pad_after, x->x_pad_before,
            x->x_pad_after);
  fputc('\n', out);
}

void vta_program_print(const vta_program *p, FILE *out) {
  fprintf(out, "vta-program %d\nconfig", VTA_PROGRAM_VERSION);
  for (size_t i = 0; i < NCFG_KEYS; i++)
    fprintf(out, " %s=%d", k_cfg_keys[i].name, cfg_get(&p->cfg, i));
  fputc('\n', out);
  for (int b = 0; b < VTA_PROG_BUF_COUNT; b++)
    if (p->bufsize[b]) fprintf(out, "buffer %s %" PRIu64 "\n", k_buf_names[b], p->bufsize[b]);
  for (size_t i = 0; i < p->nkern; i++) {
    const vta_prog_kernel *k = &p->kern[i].k;
    fprintf(out, "kernel %zu %s", i, k->mode == VTA_JIT_GEMM ? "gemm" : "alu");
    if (k->mode == VTA_JIT_GEMM && k->reset) fputs(" reset", out);
    if (k->mode == VTA_JIT_ALU) fprintf(out, " %s", vta_alu_op_name(k->alu_op));
    if (k->mode == VTA_JIT_ALU && k->use_imm) fprintf(out, " imm=%d", k->imm);
    else if (k->mode == VTA_JIT_ALU && vta_alu_imm_used(k->alu_op, 0)) fprintf(out, " lo=%d", k->imm);
    fputc('\n', out);
    for (uint32_t l = 0; l < k->nloops; l++)
      fprintf(out, "  loop %u %u %u %u\n", k->loop[l].extent, k->loop[l].dst, k->loop[l].src,
              k->loop[l].wgt);
    for (uint32_t u = 0; u < k->nuops; u++)
      fprintf(out, "  uop %u %u %u\n", k->uops[u].dst, k->uops[u].src, k->uops[u].wgt);
    fputs("end\n", out);
  }
  for (size_t i = 0; i < p->nops; i++) {
    const vta_prog_op *op = &p->ops[i];
    switch (op->op) {
      case VTA_PROG_LOAD: print_xfer(&op->x, 0, out); break;
      case VTA_PROG_STORE: print_xfer(&op->x, 1, out); break;
      case VTA_PROG_RUN: fprintf(out, "run %u\n", op->kernel); break;
      case VTA_PROG_PUSH:
      case VTA_PROG_POP:
        fprintf(out, "%s %s %s\n", vta_prog_op_names[op->op], k_stage_names[op->from],
                k_stage_names[op->to]);
        break;
      default: fputs("sync\n", out); break;
    }
  }
}

/* The parser: one line at a time, split into words; `key=value` words for transfers. */

#define MAX_WORDS 16

typedef struct parser {
  const char *name;
  int line;
  vta_error *err;
} parser;

static int perr(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(parser *ps, const char *fmt, ...) {
  char msg[VTA_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(ps->err, VTA_ERR_INVALID, "%s:%d: %s", ps->name, ps->line, msg);
}

/* A decimal number (optionally negative) filling the whole word, within [lo, hi]. */
static int parse_num(parser *ps, const char *w, const char *what, int64_t lo, int64_t hi,
                     int64_t *out) {
  const char *s = w;
  int neg = 0;
  if (*s == '-') {
    neg = 1;
    s++;
  }
  if (*s < '0' || *s > '9') return perr(ps, "%s '%s' is not a number", what, w);
  uint64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > (UINT64_MAX - 9) / 10) return perr(ps, "%s '%s' is too large", what, w);
    v = v * 10 + (uint64_t)(*s - '0');
  }
  if (*s) return perr(ps, "%s '%s' is not a number", what, w);
  if (v > (uint64_t)INT64_MAX) return perr(ps, "%s '%s' is too large", what, w);
  int64_t x = neg ? -(int64_t)v : (int64_t)v;
  if (x < lo || x > hi)
    return perr(ps, "%s %" PRId64 " is outside [%" PRId64 ", %" PRId64 "]", what, x, lo, hi);
  *out = x;
  return VTA_OK;
}

static int find_name(const char *const *names, int n, const char *w) {
  for (int i = 0; i < n; i++)
    if (names[i] && strcmp(names[i], w) == 0) return i;
  return -1;
}

/* The same over one of isa.h's name functions. */
static int find_isa_name(const char *(*name)(unsigned), int n, const char *w) {
  for (int i = 0; i < n; i++)
    if (strcmp(name((unsigned)i), w) == 0) return i;
  return -1;
}

static int parse_stage(parser *ps, const char *w, vta_jit_stage *out) {
  int s = find_name(k_stage_names, 4, w);
  if (s < 1) return perr(ps, "'%s' is not a stage (load, compute, store)", w);
  *out = (vta_jit_stage)s;
  return VTA_OK;
}

/* Splits a line in place into words; returns the count or -1 if there are too many. A '#'
 * starts a comment. */
static int split(char *line, char **words) {
  int n = 0;
  char *s = line;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    if (!*s || *s == '#') break;
    if (n == MAX_WORDS) return -1;
    words[n++] = s;
    while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '#') s++;
    if (*s == '#') {
      *s = 0;
      break;
    }
    if (*s) *s++ = 0;
  }
  return n;
}

static int parse_xfer(parser *ps, char **w, int n, int store, vta_prog_xfer *x) {
  memset(x, 0, sizeof *x);
  int first = 1;
  if (store) {
    x->type = VTA_MEM_OUT;
  } else {
    if (n < 2) return perr(ps, "load needs a memory type");
    int t = find_isa_name(vta_mem_type_name, VTA_MEM_COUNT, w[1]);
    if (t < 0) return perr(ps, "'%s' is not a memory type", w[1]);
    x->type = (vta_mem_type)t;
    first = 2;
  }
  enum { K_SRAM, K_BUF, K_OFF, K_X, K_Y, K_STRIDE, K_PAD, K_COUNT };
  static const char *const keys[K_COUNT] = {"sram", "buf", "off", "x", "y", "stride", "pad"};
  int seen[K_COUNT] = {0};
  for (int i = first; i < n; i++) {
    char *eq = strchr(w[i], '=');
    if (!eq) return perr(ps, "'%s' is not key=value", w[i]);
    *eq = 0;
    const char *v = eq + 1;
    int k = find_name(keys, K_COUNT, w[i]);
    if (k < 0 || (store && k == K_PAD))
      return perr(ps, "unknown %s key '%s'", store ? "store" : "load", w[i]);
    if (seen[k]++) return perr(ps, "key '%s' given twice", w[i]);
    int64_t num = 0;
    int rc = VTA_OK;
    switch (k) {
      case K_SRAM:
        rc = parse_num(ps, v, "sram", 0, 65535, &num);
        x->sram = (uint32_t)num;
        break;
      case K_BUF: {
        int b = find_name(k_buf_names, VTA_PROG_BUF_COUNT, v);
        if (b < 0)
          return perr(ps, "'%s' is not a buffer (input, input2, weight, bias, output, scratch)",
                      v);
        x->buf = (vta_prog_buf)b;
        break;
      }
      case K_OFF:
        rc = parse_num(ps, v, "off", 0, 1ll << 40, &num);
        x->offset = (uint64_t)num;
        break;
      case K_X:
        rc = parse_num(ps, v, "x", 1, 65535, &num);
        x->x_size = (uint32_t)num;
        break;
      case K_Y:
        rc = parse_num(ps, v, "y", 1, 65535, &num);
        x->y_size = (uint32_t)num;
        break;
      case K_STRIDE:
        rc = parse_num(ps, v, "stride", 0, 65535, &num);
        x->x_stride = (uint32_t)num;
        break;
      default: {
        uint32_t *pads[4] = {&x->y_pad_before, &x->y_pad_after, &x->x_pad_before, &x->x_pad_after};
        char buf[64];
        snprintf(buf, sizeof buf, "%s", v);
        char *s = buf;
        for (int j = 0; j < 4 && rc == VTA_OK; j++) {
          char *c = strchr(s, ',');
          if ((j < 3) != (c != NULL)) return perr(ps, "pad '%s' is not y0,y1,x0,x1", v);
          if (c) *c = 0;
          rc = parse_num(ps, s, "pad", 0, 15, &num);
          *pads[j] = (uint32_t)num;
          s = c ? c + 1 : s;
        }
      }
    }
    if (rc) return rc;
  }
  for (int k = 0; k < K_PAD; k++)
    if (!seen[k]) return perr(ps, "%s without %s=", store ? "store" : "load", keys[k]);
  return VTA_OK;
}

typedef struct kdef {
  vta_prog_kernel k;
  vta_uop *uops;
  uint32_t cap;
  int open;
} kdef;

static int kdef_uop(parser *ps, kdef *d, char **w, int n) {
  if (n != 4) return perr(ps, "uop needs dst src wgt");
  int64_t v[3];
  for (int i = 0; i < 3; i++) {
    int rc = parse_num(ps, w[i + 1], "micro-op index", 0, UINT32_MAX, &v[i]);
    if (rc) return rc;
  }
  if (d->k.nuops == d->cap) {
    uint32_t nc = d->cap ? 2 * d->cap : 16;
    if (nc > (1u << 20)) return perr(ps, "kernel has too many micro-ops");
    vta_uop *nu = realloc(d->uops, nc * sizeof *nu);
    if (!nu) return vta_error_set(ps->err, VTA_ERR_NOMEM, "program: out of memory");
    d->uops = nu;
    d->cap = nc;
  }
  d->uops[d->k.nuops++] = (vta_uop){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
  return VTA_OK;
}

static int kdef_begin(parser *ps, kdef *d, char **w, int n, size_t expect_id) {
  int64_t id;
  if (n < 3) return perr(ps, "kernel needs an id and a mode");
  int rc = parse_num(ps, w[1], "kernel id", 0, INT32_MAX, &id);
  if (rc) return rc;
  if ((size_t)id != expect_id)
    return perr(ps, "kernel %" PRId64 " out of order: the next kernel is %zu", id, expect_id);
  memset(&d->k, 0, sizeof d->k);
  if (strcmp(w[2], "gemm") == 0) {
    d->k.mode = VTA_JIT_GEMM;
    for (int i = 3; i < n; i++) {
      if (strcmp(w[i], "reset") != 0) return perr(ps, "unknown gemm flag '%s'", w[i]);
      d->k.reset = 1;
    }
  } else if (strcmp(w[2], "alu") == 0) {
    d->k.mode = VTA_JIT_ALU;
    if (n < 4) return perr(ps, "alu kernel needs an opcode (min, max, add, shr, mul, shrclip)");
    int op = find_isa_name(vta_alu_op_name, VTA_ALU_COUNT, w[3]);
    if (op < 0) return perr(ps, "'%s' is not an ALU opcode", w[3]);
    d->k.alu_op = (vta_alu_op)op;
    if (n > 5) return perr(ps, "too many words after the ALU opcode");
    if (n == 5) {
      /* imm=N: the immediate operand; lo=N: SHRCLIP's lower bound with a vector operand */
      int lo = op == VTA_ALU_SHRCLIP && strncmp(w[4], "lo=", 3) == 0;
      if (!lo && strncmp(w[4], "imm=", 4) != 0)
        return perr(ps, "'%s' is not imm=N%s", w[4], op == VTA_ALU_SHRCLIP ? " or lo=N" : "");
      int64_t imm;
      rc = parse_num(ps, w[4] + (lo ? 3 : 4), lo ? "lo" : "imm", -32768, 32767, &imm);
      if (rc) return rc;
      d->k.use_imm = lo ? 0 : 1;
      d->k.imm = (int32_t)imm;
    }
  } else {
    return perr(ps, "'%s' is not a kernel mode (gemm, alu)", w[2]);
  }
  d->open = 1;
  return VTA_OK;
}

static int kdef_loop(parser *ps, kdef *d, char **w, int n) {
  if (n != 5) return perr(ps, "loop needs extent dst_factor src_factor wgt_factor");
  if (d->k.nuops) return perr(ps, "loops come before the kernel's micro-ops");
  if (d->k.nloops == 2) return perr(ps, "a kernel has at most two loops");
  int64_t v[4];
  for (int i = 0; i < 4; i++) {
    int rc = parse_num(ps, w[i + 1], "loop value", i == 0 ? 1 : 0, UINT32_MAX, &v[i]);
    if (rc) return rc;
  }
  d->k.loop[d->k.nloops++] =
      (vta_prog_loop){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3]};
  return VTA_OK;
}

static int parse_lines(parser *ps, char *text, vta_program **out) {
  char *words[MAX_WORDS];
  vta_program *p = NULL;
  kdef d = {0};
  uint32_t *ids = NULL; /* text kernel index -> program kernel id */
  size_t nids = 0, capids = 0;
  int rc = VTA_OK, have_header = 0;
  char *line = text;
  ps->line = 0;
  while (rc == VTA_OK && line) {
    char *next = strchr(line, '\n');
    if (next) *next++ = 0;
    ps->line++;
    int n = split(line, words);
    line = next;
    if (n < 0) {
      rc = perr(ps, "too many words");
      break;
    }
    if (n == 0) continue;
    const char *w0 = words[0];
    if (!have_header) {
      int64_t v;
      if (strcmp(w0, "vta-program") != 0 || n != 2) {
        rc = perr(ps, "expected 'vta-program %d' first", VTA_PROGRAM_VERSION);
      } else if ((rc = parse_num(ps, words[1], "version", 0, INT32_MAX, &v)) == VTA_OK &&
                 v != VTA_PROGRAM_VERSION) {
        rc = perr(ps, "version %" PRId64 " is not supported (this reader knows %d)", v,
                  VTA_PROGRAM_VERSION);
      }
      have_header = 1;
      continue;
    }
    if (!p) {
      if (strcmp(w0, "config") != 0) {
        rc = perr(ps, "expected the config line after the header");
        break;
      }
      vta_config cfg;
      vta_config_default(&cfg);
      int seen[NCFG_KEYS] = {0};
      for (int i = 1; i < n && rc == VTA_OK; i++) {
        char *eq = strchr(words[i], '=');
        size_t k = 0;
        if (eq) {
          *eq = 0;
          while (k < NCFG_KEYS && strcmp(k_cfg_keys[k].name, words[i]) != 0) k++;
        }
        if (!eq || k == NCFG_KEYS) {
          rc = perr(ps, "'%s' is not a configuration key=value", words[i]);
          break;
        }
        int64_t v;
        rc = parse_num(ps, eq + 1, k_cfg_keys[k].name, 0, 64, &v);
        *cfg_field(&cfg, k) = (int)v;
        seen[k] = 1;
      }
      for (size_t k = 0; rc == VTA_OK && k < NCFG_KEYS; k++)
        if (!seen[k]) rc = perr(ps, "config line lacks %s", k_cfg_keys[k].name);
      if (rc) break;
      cfg.log_out_width = cfg.log_inp_width;
      vta_error e;
      if (vta_config_derive(&cfg, &e)) {
        rc = perr(ps, "%s", e.msg);
        break;
      }
      rc = vta_program_create(&cfg, &p, ps->err);
      continue;
    }
    if (d.open) {
      if (strcmp(w0, "loop") == 0) {
        rc = kdef_loop(ps, &d, words, n);
      } else if (strcmp(w0, "uop") == 0) {
        rc = kdef_uop(ps, &d, words, n);
      } else if (strcmp(w0, "end") == 0 && n == 1) {
        d.k.uops = d.uops;
        uint32_t id;
        rc = vta_program_add_kernel(p, &d.k, &id, ps->err);
        if (rc) {
          vta_error_prefix(ps->err, "%s:%d", ps->name, ps->line);
          break;
        }
        if (nids == capids) {
          size_t nc = capids ? 2 * capids : 16;
          uint32_t *ni = realloc(ids, nc * sizeof *ni);
          if (!ni) {
            rc = vta_error_set(ps->err, VTA_ERR_NOMEM, "program: out of memory");
            break;
          }
          ids = ni;
          capids = nc;
        }
        ids[nids++] = id;
        d.open = 0;
        d.k.nuops = 0;
      } else {
        rc = perr(ps, "'%s' inside a kernel (loop, uop or end expected)", w0);
      }
      continue;
    }
    vta_prog_xfer x;
    if (strcmp(w0, "buffer") == 0) {
      int b = n == 3 ? find_name(k_buf_names, VTA_PROG_BUF_COUNT, words[1]) : -1;
      int64_t v;
      if (b < 0) {
        rc = perr(ps, "buffer needs a buffer name and a size in bytes");
      } else if ((rc = parse_num(ps, words[2], "buffer size", 0, 1ll << 48, &v)) == VTA_OK) {
        vta_program_need_buffer(p, (vta_prog_buf)b, (uint64_t)v);
      }
    } else if (strcmp(w0, "kernel") == 0) {
      rc = kdef_begin(ps, &d, words, n, nids);
    } else if (strcmp(w0, "load") == 0 || strcmp(w0, "store") == 0) {
      int store = w0[0] == 's';
      rc = parse_xfer(ps, words, n, store, &x);
      if (rc == VTA_OK) {
        rc = store ? vta_program_add_store(p, &x, ps->err) : vta_program_add_load(p, &x, ps->err);
        if (rc) vta_error_prefix(ps->err, "%s:%d", ps->name, ps->line);
      }
    } else if (strcmp(w0, "run") == 0) {
      int64_t k;
      if (n != 2) {
        rc = perr(ps, "run needs a kernel id");
      } else if ((rc = parse_num(ps, words[1], "kernel id", 0, INT32_MAX, &k)) == VTA_OK) {
        if ((size_t)k >= nids)
          rc = perr(ps, "kernel %" PRId64 " is not defined (yet)", k);
        else
          rc = vta_program_add_run(p, ids[k], ps->err);
      }
    } else if (strcmp(w0, "push") == 0 || strcmp(w0, "pop") == 0) {
      vta_jit_stage from, to;
      if (n != 3) {
        rc = perr(ps, "%s needs two stages", w0);
      } else if ((rc = parse_stage(ps, words[1], &from)) == VTA_OK &&
                 (rc = parse_stage(ps, words[2], &to)) == VTA_OK) {
        rc = w0[1] == 'u' ? vta_program_add_push(p, from, to, ps->err)
                          : vta_program_add_pop(p, from, to, ps->err);
        if (rc) vta_error_prefix(ps->err, "%s:%d", ps->name, ps->line);
      }
    } else if (strcmp(w0, "sync") == 0 && n == 1) {
      rc = vta_program_add_sync(p, ps->err);
    } else {
      rc = perr(ps, "unknown operation '%s'", w0);
    }
  }
  if (rc == VTA_OK && !have_header) rc = perr(ps, "empty program");
  if (rc == VTA_OK && !p) rc = perr(ps, "no config line");
  if (rc == VTA_OK && d.open) rc = perr(ps, "kernel %zu is not closed by 'end'", nids);
  free(d.uops);
  free(ids);
  if (rc == VTA_OK) rc = vta_program_check(p, ps->err);
  if (rc) {
    vta_program_destroy(p);
    return rc;
  }
  *out = p;
  return VTA_OK;
}

int vta_program_parse(const char *text, const char *name, vta_program **out, vta_error *err) {
  parser ps = {.name = name ? name : "<program>", .line = 0, .err = err};
  char *copy = strdup(text);
  if (!copy) return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
  int rc = parse_lines(&ps, copy, out);
  free(copy);
  return rc;
}

/* ---- Binary form ----
 *
 *   "VTAPROG\0", u32 version, u32 0,
 *   u8 x 10 configuration keys (k_cfg_keys order), u8 x 2 zero,
 *   u64 x VTA_PROG_BUF_COUNT buffer sizes,
 *   u32 kernels, u32 operations,
 *   kernels: the kernel_record of each,
 *   operations: u8 opcode, then LOAD/STORE: u8 type, u8 buf, u8 x 4 pads (y0 y1 x0 x1),
 *   u32 sram, u64 offset, u32 x, u32 y, u32 stride; RUN: u32 kernel; PUSH/POP: u8 from, u8 to.
 */

static const uint8_t k_magic[8] = {'V', 'T', 'A', 'P', 'R', 'O', 'G', 0};

int vta_program_serialize(const vta_program *p, uint8_t **out, size_t *n, vta_error *err) {
  bytes o = {0};
  put(&o, k_magic, sizeof k_magic);
  put32(&o, VTA_PROGRAM_VERSION);
  put32(&o, 0);
  for (size_t i = 0; i < NCFG_KEYS; i++) put8(&o, (uint32_t)cfg_get(&p->cfg, i));
  put8(&o, 0);
  put8(&o, 0);
  for (int b = 0; b < VTA_PROG_BUF_COUNT; b++) put64(&o, p->bufsize[b]);
  put32(&o, (uint32_t)p->nkern);
  put32(&o, (uint32_t)p->nops);
  for (size_t i = 0; i < p->nkern; i++) put(&o, p->kern[i].sig, p->kern[i].nsig);
  for (size_t i = 0; i < p->nops; i++) {
    const vta_prog_op *op = &p->ops[i];
    put8(&o, (uint32_t)op->op);
    if (op->op == VTA_PROG_LOAD || op->op == VTA_PROG_STORE) {
      const vta_prog_xfer *x = &op->x;
      put8(&o, (uint32_t)x->type);
      put8(&o, (uint32_t)x->buf);
      put8(&o, x->y_pad_before);
      put8(&o, x->y_pad_after);
      put8(&o, x->x_pad_before);
      put8(&o, x->x_pad_after);
      put32(&o, x->sram);
      put64(&o, x->offset);
      put32(&o, x->x_size);
      put32(&o, x->y_size);
      put32(&o, x->x_stride);
    } else if (op->op == VTA_PROG_RUN) {
      put32(&o, op->kernel);
    } else if (op->op == VTA_PROG_PUSH || op->op == VTA_PROG_POP) {
      put8(&o, (uint32_t)op->from);
      put8(&o, (uint32_t)op->to);
    }
  }
  if (o.oom) {
    free(o.b);
    return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory for the binary form");
  }
  *out = o.b;
  *n = o.n;
  return VTA_OK;
}

typedef struct reader {
  const uint8_t *b;
  size_t n, at;
  int short_read;
} reader;

static const uint8_t *take(reader *r, size_t n) {
  if (r->short_read || r->n - r->at < n) {
    r->short_read = 1;
    return NULL;
  }
  const uint8_t *p = r->b + r->at;
  r->at += n;
  return p;
}

static uint32_t get8(reader *r) {
  const uint8_t *p = take(r, 1);
  return p ? p[0] : 0;
}

static uint32_t get32(reader *r) {
  const uint8_t *p = take(r, 4);
  return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
           : 0;
}

static uint64_t get64(reader *r) {
  uint64_t lo = get32(r);
  return lo | (uint64_t)get32(r) << 32;
}

static int deserialize(reader *r, const char *name, vta_program **out, vta_error *err) {
  const uint8_t *m = take(r, sizeof k_magic);
  if (!m || memcmp(m, k_magic, sizeof k_magic) != 0)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: not a VTA program (bad magic)", name);
  uint32_t version = get32(r);
  get32(r);
  if (!r->short_read && version != VTA_PROGRAM_VERSION)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "%s: program version %u is not supported (this reader knows %d)", name,
                         version, VTA_PROGRAM_VERSION);
  vta_config cfg;
  vta_config_default(&cfg);
  for (size_t i = 0; i < NCFG_KEYS; i++) *cfg_field(&cfg, i) = (int)get8(r);
  get8(r);
  get8(r);
  cfg.log_out_width = cfg.log_inp_width;
  uint64_t bufsize[VTA_PROG_BUF_COUNT];
  for (int b = 0; b < VTA_PROG_BUF_COUNT; b++) bufsize[b] = get64(r);
  uint32_t nk = get32(r), nops = get32(r);
  if (r->short_read)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: truncated program header", name);
  vta_error e;
  if (vta_config_derive(&cfg, &e))
    return vta_error_set(err, VTA_ERR_INVALID, "%s: configuration: %s", name, e.msg);
  vta_program *p;
  int rc = vta_program_create(&cfg, &p, err);
  if (rc) return rc;
  for (int b = 0; b < VTA_PROG_BUF_COUNT; b++)
    vta_program_need_buffer(p, (vta_prog_buf)b, bufsize[b]);
  /* Every kernel needs at least 48 bytes and every operation 1: bound the counts by the size
   * before allocating anything for them. */
  uint32_t *ids = NULL;
  vta_uop *uops = NULL;
  if ((uint64_t)nk * 48 + nops > r->n - r->at) {
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "%s: %u kernels and %u operations do not fit in %zu bytes", name, nk, nops,
                       r->n);
    goto fail;
  }
  ids = malloc((nk ? nk : 1) * sizeof *ids);
  if (!ids) {
    rc = vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
    goto fail;
  }
  for (uint32_t i = 0; i < nk; i++) {
    vta_prog_kernel k;
    memset(&k, 0, sizeof k);
    k.mode = (vta_jit_mode)get8(r);
    k.reset = get8(r);
    k.alu_op = (vta_alu_op)get8(r);
    k.use_imm = get8(r);
    k.imm = (int32_t)get32(r);
    k.nloops = get8(r);
    take(r, 3);
    for (int l = 0; l < 2; l++) {
      k.loop[l].extent = get32(r);
      k.loop[l].dst = get32(r);
      k.loop[l].src = get32(r);
      k.loop[l].wgt = get32(r);
    }
    k.nuops = get32(r);
    if (r->short_read || (uint64_t)k.nuops * 12 > r->n - r->at) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: kernel %u is truncated", name, i);
      goto fail;
    }
    free(uops);
    uops = malloc((k.nuops ? k.nuops : 1) * sizeof *uops);
    if (!uops) {
      rc = vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
      goto fail;
    }
    for (uint32_t u = 0; u < k.nuops; u++) {
      uops[u].dst = get32(r);
      uops[u].src = get32(r);
      uops[u].wgt = get32(r);
    }
    k.uops = uops;
    if (k.nloops > 2) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: kernel %u has %u loops (at most 2)", name, i,
                         k.nloops);
      goto fail;
    }
    rc = vta_program_add_kernel(p, &k, &ids[i], err);
    if (rc) {
      vta_error_prefix(err, "%s", name);
      goto fail;
    }
  }
  for (uint32_t i = 0; i < nops; i++) {
    uint32_t code = get8(r);
    if (code == VTA_PROG_LOAD || code == VTA_PROG_STORE) {
      vta_prog_xfer x;
      x.type = (vta_mem_type)get8(r);
      x.buf = (vta_prog_buf)get8(r);
      x.y_pad_before = get8(r);
      x.y_pad_after = get8(r);
      x.x_pad_before = get8(r);
      x.x_pad_after = get8(r);
      x.sram = get32(r);
      x.offset = get64(r);
      x.x_size = get32(r);
      x.y_size = get32(r);
      x.x_stride = get32(r);
      if (r->short_read) break;
      rc = code == VTA_PROG_LOAD ? vta_program_add_load(p, &x, err)
                                 : vta_program_add_store(p, &x, err);
    } else if (code == VTA_PROG_RUN) {
      uint32_t k = get32(r);
      if (r->short_read) break;
      if (k >= nk)
        rc = vta_error_set(err, VTA_ERR_INVALID, "program: operation %u runs kernel %u of %u",
                           i, k, nk);
      else
        rc = vta_program_add_run(p, ids[k], err);
    } else if (code == VTA_PROG_PUSH || code == VTA_PROG_POP) {
      vta_jit_stage from = (vta_jit_stage)get8(r), to = (vta_jit_stage)get8(r);
      if (r->short_read) break;
      rc = code == VTA_PROG_PUSH ? vta_program_add_push(p, from, to, err)
                                 : vta_program_add_pop(p, from, to, err);
    } else if (code == VTA_PROG_SYNC) {
      rc = vta_program_add_sync(p, err);
    } else if (!r->short_read) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "program: operation %u has undefined opcode %u", i,
                         code);
    }
    if (rc) {
      vta_error_prefix(err, "%s", name);
      goto fail;
    }
  }
  if (r->short_read) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: truncated program (%zu bytes)", name, r->n);
    goto fail;
  }
  if (r->at != r->n) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %zu bytes of garbage after the program", name,
                       r->n - r->at);
    goto fail;
  }
  rc = vta_program_check(p, err);
  if (rc) {
    vta_error_prefix(err, "%s", name);
    goto fail;
  }
  free(ids);
  free(uops);
  *out = p;
  return VTA_OK;
fail:
  free(ids);
  free(uops);
  vta_program_destroy(p);
  return rc;
}

int vta_program_deserialize(const uint8_t *b, size_t n, const char *name, vta_program **out,
                            vta_error *err) {
  reader r = {.b = b, .n = n, .at = 0, .short_read = 0};
  return deserialize(&r, name ? name : "<program>", out, err);
}

/* ---- Replay ---- */

/* The address naming vta_program_run's call site in the JIT's kernel cache. */
static const char k_site = 0;

int vta_prog_compatible(const vta_config *have, const vta_config *need, vta_error *err) {
  for (size_t i = 0; i < NCFG_KEYS; i++) {
    int h = cfg_get(have, i), n = cfg_get(need, i);
    int is_buffer = strstr(k_cfg_keys[i].name, "buff_size") != NULL;
    if (is_buffer ? h < n : h != n)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "program: compiled for %s = %d, but the device has %d%s",
                           k_cfg_keys[i].name, n, h,
                           is_buffer ? " (a smaller buffer)" : "");
  }
  return VTA_OK;
}

static int record(vta_jit *jit, const prog_kernel *pk, vta_jit_kernel **out, vta_error *err) {
  vta_jit_kernel *k;
  int rc = vta_jit_kernel_begin(jit, &k_site, pk->sig, pk->nsig, &k, err);
  if (rc) return rc;
  const vta_prog_kernel *d = &pk->k;
  for (uint32_t l = 0; rc == VTA_OK && l < d->nloops; l++)
    rc = vta_jit_kernel_loop_begin(k, d->loop[l].extent, d->loop[l].dst, d->loop[l].src,
                                   d->mode == VTA_JIT_GEMM ? d->loop[l].wgt : 0, err);
  vta_jit_uop u = {.mode = d->mode, .reset = d->reset, .alu_op = d->alu_op,
                   .use_imm = d->use_imm, .imm = d->imm};
  for (uint32_t i = 0; rc == VTA_OK && i < d->nuops; i++) {
    u.dst = d->uops[i].dst;
    u.src = d->uops[i].src;
    u.wgt = d->uops[i].wgt;
    rc = vta_jit_kernel_uop(k, &u, err);
  }
  for (uint32_t l = 0; rc == VTA_OK && l < d->nloops; l++) rc = vta_jit_kernel_loop_end(k, err);
  if (rc) {
    vta_jit_kernel_discard(k);
    return rc;
  }
  rc = vta_jit_kernel_end(k, err);
  if (rc == VTA_OK) *out = k;
  return rc;
}

/* One operation of p through the JIT; kp caches the program's kernels. */
int vta_prog_replay_op(vta_jit *jit, const vta_program *p, vta_jit_kernel **kp,
                       const uint64_t *phys, const vta_prog_op *op, vta_stats *stats,
                       vta_error *err) {
  switch (op->op) {
    case VTA_PROG_LOAD:
    case VTA_PROG_STORE: {
      const vta_prog_xfer *x = &op->x;
      vta_jit_xfer jx = {.type = x->type, .sram = x->sram, .dram_phys = phys[x->buf],
                         .dram_offset = x->offset, .x_size = x->x_size, .y_size = x->y_size,
                         .x_stride = x->x_stride, .x_pad_before = x->x_pad_before,
                         .y_pad_before = x->y_pad_before, .x_pad_after = x->x_pad_after,
                         .y_pad_after = x->y_pad_after};
      return op->op == VTA_PROG_LOAD ? vta_jit_load(jit, &jx, err) : vta_jit_store(jit, &jx, err);
    }
    case VTA_PROG_RUN: {
      const prog_kernel *pk = &p->kern[op->kernel];
      int rc = VTA_OK;
      if (!kp[op->kernel]) {
        kp[op->kernel] = vta_jit_kernel_find(jit, &k_site, pk->sig, pk->nsig);
        if (!kp[op->kernel]) rc = record(jit, pk, &kp[op->kernel], err);
      }
      if (rc == VTA_OK) rc = vta_jit_push_kernel(jit, kp[op->kernel], err);
      return rc;
    }
    case VTA_PROG_PUSH: return vta_jit_dep_push(jit, op->from, op->to, err);
    case VTA_PROG_POP: return vta_jit_dep_pop(jit, op->from, op->to, err);
    default: return vta_jit_sync(jit, 0, stats, err);
  }
}

int vta_program_run(vta_jit *jit, const vta_program *p, const uint64_t *phys, vta_stats *stats,
                    vta_error *err) {
  int rc = vta_prog_compatible(vta_jit_config(jit), &p->cfg, err);
  if (rc) return rc;
  static const uint64_t k_none[VTA_PROG_BUF_COUNT] = {0};
  if (!phys) phys = k_none;
  vta_jit_kernel **kp = calloc(p->nkern ? p->nkern : 1, sizeof *kp);
  if (!kp) return vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory");
  size_t i = 0;
  for (; rc == VTA_OK && i < p->nops; i++) rc = vta_prog_replay_op(jit, p, kp, phys, &p->ops[i], stats, err);
  free(kp);
  if (rc) vta_error_prefix(err, "program: operation %zu (%s)", i - 1, vta_prog_op_names[p->ops[i - 1].op]);
  return rc;
}
