/* kernel.c - micro-op kernels: recording, the kernel cache, residency in the micro-op buffer.
 *
 * The design idea: a kernel is recorded once per call site and signature (the published
 * runtime's finit callback runs once), checked and encoded once (its micro-op words and its
 * GEMM/ALU instruction template), and from then on running it costs a hash lookup and, when it
 * is not resident in the micro-op buffer, one LOAD UOP.
 *
 * Residency is a ring over the micro-op buffer (UOP depth from the configuration): kernels are
 * placed one after the other; one that does not fit before the end wraps to index 0; every
 * resident kernel the new one overlaps is evicted. The resident kernels are kept sorted by
 * address with a cursor at the first one at or after the ring's top, so placing a kernel
 * evicts exactly the run of kernels starting at the cursor that it overlaps, and kernels past
 * the wrap point stay usable until the ring comes round to them. A new stream forgets all
 * residency: another program may have used the buffer in between.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit_internal.h"
#include "vta/config.h"

/* ---- The cache: open addressing keyed by (site, signature bytes) ---- */

static uint64_t key_hash(const void *site, const void *sig, size_t nbytes) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  uintptr_t p = (uintptr_t)site;
  for (size_t i = 0; i < sizeof p; i++) {
    h ^= (uint8_t)(p >> (8 * i));
    h *= 1099511628211ull;
  }
  const uint8_t *b = sig;
  for (size_t i = 0; i < nbytes; i++) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  return h ^ (h >> 29);
}

static int key_equal(const vta_jit_kernel *k, uint64_t h, const void *site, const void *sig,
                     size_t nbytes) {
  return k->hash == h && k->site == site && k->nbytes == nbytes &&
         (nbytes == 0 || memcmp(k->sig, sig, nbytes) == 0);
}

static void kernel_free(vta_jit_kernel *k) {
  if (!k) return;
  free(k->sig);
  free(k->uops);
  free(k->words);
  free(k);
}

void jit_kcache_free(jit_kcache *kc) {
  for (size_t i = 0; i < kc->cap; i++) kernel_free(kc->slot[i]);
  free(kc->slot);
  memset(kc, 0, sizeof *kc);
}

static int kcache_insert(jit_kcache *kc, vta_jit_kernel *k, vta_error *err) {
  if (2 * (kc->n + 1) > kc->cap) {
    size_t nc = kc->cap ? 2 * kc->cap : 64;
    vta_jit_kernel **ns = calloc(nc, sizeof *ns);
    if (!ns) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for the kernel cache");
    for (size_t i = 0; i < kc->cap; i++) {
      vta_jit_kernel *o = kc->slot[i];
      if (!o) continue;
      size_t j = (size_t)o->hash & (nc - 1);
      while (ns[j]) j = (j + 1) & (nc - 1);
      ns[j] = o;
    }
    free(kc->slot);
    kc->slot = ns;
    kc->cap = nc;
  }
  size_t j = (size_t)k->hash & (kc->cap - 1);
  while (kc->slot[j]) j = (j + 1) & (kc->cap - 1);
  kc->slot[j] = k;
  kc->n++;
  return VTA_OK;
}

vta_jit_kernel *vta_jit_kernel_find(vta_jit *jit, const void *site, const void *sig,
                                    size_t nbytes) {
  jit_kcache *kc = &jit->kc;
  if (kc->n == 0) return NULL;
  uint64_t h = key_hash(site, sig, nbytes);
  for (size_t j = (size_t)h & (kc->cap - 1);; j = (j + 1) & (kc->cap - 1)) {
    vta_jit_kernel *k = kc->slot[j];
    if (!k) return NULL;
    if (key_equal(k, h, site, sig, nbytes)) return k;
  }
}

/* ---- Recording ---- */

int vta_jit_kernel_begin(vta_jit *jit, const void *site, const void *sig, size_t nbytes,
                         vta_jit_kernel **out, vta_error *err) {
  if (nbytes && !sig)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: kernel signature of %zu bytes is NULL",
                         nbytes);
  if (vta_jit_kernel_find(jit, site, sig, nbytes))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: a kernel is already recorded for site %p and this %zu-byte "
                         "signature",
                         site, nbytes);
  vta_jit_kernel *k = calloc(1, sizeof *k);
  if (!k) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for a kernel");
  if (nbytes) {
    k->sig = malloc(nbytes);
    if (!k->sig) {
      free(k);
      return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for a kernel signature");
    }
    memcpy(k->sig, sig, nbytes);
  }
  k->jit = jit;
  k->site = site;
  k->nbytes = nbytes;
  k->hash = key_hash(site, sig, nbytes);
  *out = k;
  return VTA_OK;
}

void vta_jit_kernel_discard(vta_jit_kernel *k) {
  if (k && !k->finished) kernel_free(k);
}

static int recording(const vta_jit_kernel *k, const char *what, vta_error *err) {
  if (!k) return vta_error_set(err, VTA_ERR_INVALID, "jit: %s outside a kernel recording", what);
  if (k->finished)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: %s on a kernel that is already finished (site %p)", what, k->site);
  return VTA_OK;
}

int vta_jit_kernel_loop_begin(vta_jit_kernel *k, uint32_t extent, uint32_t dst_factor,
                              uint32_t src_factor, uint32_t wgt_factor, vta_error *err) {
  int rc = recording(k, "loop begin", err);
  if (rc) return rc;
  if (k->n)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: kernel loops must be declared before its first micro-op "
                         "(%zu already pushed)",
                         k->n);
  if (k->nloops == 2)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: a kernel has at most two loop levels (iter_out, iter_in)");
  if (extent == 0)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: kernel loop %d has extent 0",
                         k->nloops + 1);
  k->loop[k->nloops++] = (jit_loop){extent, dst_factor, src_factor, wgt_factor};
  k->open_loops++;
  return VTA_OK;
}

int vta_jit_kernel_loop_end(vta_jit_kernel *k, vta_error *err) {
  int rc = recording(k, "loop end", err);
  if (rc) return rc;
  if (k->open_loops == 0)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: kernel loop end without a loop begin");
  k->open_loops--;
  return VTA_OK;
}

int vta_jit_kernel_uop(vta_jit_kernel *k, const vta_jit_uop *u, vta_error *err) {
  int rc = recording(k, "micro-op push", err);
  if (rc) return rc;
  if ((unsigned)u->mode >= VTA_JIT_MODE_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: micro-op mode %d (0 GEMM, 1 ALU)",
                         (int)u->mode);
  if (u->mode == VTA_JIT_ALU && (unsigned)u->alu_op >= VTA_ALU_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: micro-op ALU opcode %d is undefined (0-%d)",
                         (int)u->alu_op, VTA_ALU_COUNT - 1);
  if (!k->mode_set) {
    k->mode_set = 1;
    k->mode = u->mode;
    k->reset = u->reset ? 1 : 0;
    if (u->mode == VTA_JIT_ALU) {
      k->alu_op = u->alu_op;
      k->use_imm = u->use_imm ? 1 : 0;
      k->imm = u->imm;
    }
  } else {
    const char *bad = NULL;
    if (u->mode != k->mode) bad = "mode";
    else if ((u->reset ? 1u : 0u) != k->reset) bad = "reset_out";
    else if (u->mode == VTA_JIT_ALU && u->alu_op != k->alu_op) bad = "ALU opcode";
    else if (u->mode == VTA_JIT_ALU && (u->use_imm ? 1u : 0u) != k->use_imm) bad = "use_imm";
    else if (u->mode == VTA_JIT_ALU && vta_alu_imm_used(u->alu_op, u->use_imm) &&
             u->imm != k->imm)
      bad = "immediate";
    if (bad)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "jit: micro-op %zu of a kernel changes its %s; one kernel is one "
                           "GEMM or ALU instruction and every micro-op must agree",
                           k->n, bad);
  }
  if (k->n == k->cap) {
    size_t nc = k->cap ? 2 * k->cap : 16;
    vta_uop *nu = realloc(k->uops, nc * sizeof *nu);
    if (!nu) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for micro-ops");
    k->uops = nu;
    k->cap = nc;
  }
  k->uops[k->n++] = (vta_uop){u->dst, u->src, u->wgt};
  return VTA_OK;
}

/* The highest index a micro-op field reaches over all loop iterations must be inside the
 * buffer it addresses. */
static int check_reach(const vta_jit_kernel *k, const char *field, int which, uint32_t depth,
                       const char *buffer, vta_error *err) {
  uint64_t hi = 0;
  for (size_t i = 0; i < k->n; i++) {
    uint32_t v = which == 0 ? k->uops[i].dst : which == 1 ? k->uops[i].src : k->uops[i].wgt;
    if (v > hi) hi = v;
  }
  for (int l = 0; l < k->nloops; l++) {
    uint32_t f = which == 0 ? k->loop[l].dst : which == 1 ? k->loop[l].src : k->loop[l].wgt;
    hi += (uint64_t)(k->loop[l].extent - 1) * f;
  }
  if (hi >= depth)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "jit: kernel %s index reaches %" PRIu64 " over its loops, beyond the %s "
                         "buffer (%u entries)",
                         field, hi, buffer, depth);
  return VTA_OK;
}

static void build_template(vta_jit_kernel *k) {
  vta_insn *t = &k->tmpl;
  memset(t, 0, sizeof *t);
  const jit_loop none = {1, 0, 0, 0};
  jit_loop out = none, in = none;
  if (k->mode == VTA_JIT_GEMM) {
    if (k->nloops > 0) out = k->loop[0];
    if (k->nloops > 1) in = k->loop[1];
  } else {
    if (k->nloops == 1) in = k->loop[0];
    if (k->nloops == 2) {
      out = k->loop[0];
      in = k->loop[1];
    }
  }
  t->f[VTA_F_OPCODE] = k->mode == VTA_JIT_GEMM ? VTA_OP_GEMM : VTA_OP_ALU;
  t->f[VTA_F_RESET_REG] = k->reset;
  t->f[VTA_F_ITER_OUT] = out.extent;
  t->f[VTA_F_ITER_IN] = in.extent;
  t->f[VTA_F_DST_FACTOR_OUT] = out.dst;
  t->f[VTA_F_DST_FACTOR_IN] = in.dst;
  t->f[VTA_F_SRC_FACTOR_OUT] = out.src;
  t->f[VTA_F_SRC_FACTOR_IN] = in.src;
  if (k->mode == VTA_JIT_GEMM) {
    t->f[VTA_F_WGT_FACTOR_OUT] = out.wgt;
    t->f[VTA_F_WGT_FACTOR_IN] = in.wgt;
  } else {
    t->f[VTA_F_ALU_OPCODE] = k->alu_op;
    t->f[VTA_F_USE_IMM] = k->use_imm;
    t->f[VTA_F_IMM] = k->imm;
  }
}

static void dump_kernel(vta_jit *jit, const vta_jit_kernel *k) {
  FILE *f = jit->dump;
  fprintf(f, "# kernel site=%p sig=", k->site);
  if (!k->nbytes) fputs("-", f);
  for (size_t i = 0; i < k->nbytes; i++) fprintf(f, "%02x", k->sig[i]);
  fprintf(f, " %s", k->mode == VTA_JIT_GEMM ? "gemm" : "alu");
  if (k->mode == VTA_JIT_ALU) fprintf(f, " alu_opcode=%s", vta_alu_op_name(k->alu_op));
  if (k->mode == VTA_JIT_ALU && k->use_imm) fprintf(f, " use_imm imm=%d", k->imm);
  else if (k->mode == VTA_JIT_ALU && vta_alu_imm_used(k->alu_op, 0)) fprintf(f, " imm=%d", k->imm);
  if (k->reset) fputs(" reset", f);
  fprintf(f, " uops=%zu\n", k->n);
  for (int l = 0; l < k->nloops; l++)
    fprintf(f, "# loop %d: extent=%u dst_factor=%u src_factor=%u wgt_factor=%u\n", l,
            k->loop[l].extent, k->loop[l].dst, k->loop[l].src, k->loop[l].wgt);
  char line[128];
  for (size_t i = 0; i < k->n; i++) {
    vta_uop_to_text(&k->uops[i], line, sizeof line);
    fprintf(f, "%s\n", line);
  }
}

int vta_jit_kernel_end(vta_jit_kernel *k, vta_error *err) {
  int rc = recording(k, "kernel end", err);
  if (rc) return rc;
  vta_jit *jit = k->jit;
  const vta_config *cfg = &jit->cfg;
  uint32_t udepth = cfg->depth[VTA_MEM_UOP];
  size_t limit = udepth < 65535u ? udepth : 65535u; /* LOAD UOP x_size is 16 bits */
  if (limit > jit->max_uops) limit = jit->max_uops;
  if (k->open_loops)
    rc = vta_error_set(err, VTA_ERR_INVALID, "jit: kernel ends with %d loop(s) still open",
                       k->open_loops);
  else if (k->n == 0)
    rc = vta_error_set(err, VTA_ERR_INVALID, "jit: kernel has no micro-ops");
  else if (k->n > limit)
    rc = vta_error_set(err, VTA_ERR_BOUNDS,
                       "jit: kernel of %zu micro-ops exceeds %zu, the most one LOAD UOP can put "
                       "in the micro-op buffer (%u entries)",
                       k->n, limit, udepth);
  if (rc == VTA_OK) rc = check_reach(k, "dst", 0, cfg->depth[VTA_MEM_ACC], "ACC", err);
  if (rc == VTA_OK && !(k->mode == VTA_JIT_GEMM && k->reset)) {
    if (k->mode == VTA_JIT_GEMM) {
      rc = check_reach(k, "src", 1, cfg->depth[VTA_MEM_INP], "INP", err);
      if (rc == VTA_OK) rc = check_reach(k, "wgt", 2, cfg->depth[VTA_MEM_WGT], "WGT", err);
    } else if (!k->use_imm) {
      rc = check_reach(k, "src", 1, cfg->depth[VTA_MEM_ACC], "ACC", err);
    }
  }
  if (rc == VTA_OK) {
    k->words = malloc(k->n * sizeof *k->words);
    if (!k->words) rc = vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for micro-ops");
  }
  for (size_t i = 0; rc == VTA_OK && i < k->n; i++) {
    rc = vta_uop_encode(cfg, &k->uops[i], &k->words[i], err);
    if (rc) vta_error_prefix(err, "jit: kernel micro-op %zu", i);
  }
  if (rc == VTA_OK) {
    build_template(k);
    /* Encoded once; a run only fills in where the kernel is resident (uop_bgn, uop_end),
     * whose widths hold any range inside the micro-op buffer, and the token flags. */
    vta_insn trial = k->tmpl;
    trial.f[VTA_F_UOP_END] = (int64_t)k->n;
    rc = vta_insn_encode(cfg, &trial, &k->tmpl_word, err);
    if (rc) vta_error_prefix(err, "jit: kernel instruction");
    k->tmpl_module = vta_insn_module(&k->tmpl);
    k->tmpl_format = vta_opcode_format((unsigned)k->tmpl.f[VTA_F_OPCODE]);
  }
  if (rc == VTA_OK) rc = kcache_insert(&jit->kc, k, err);
  if (rc) {
    kernel_free(k);
    return rc;
  }
  k->finished = 1;
  jit->c.kernels++;
  if (jit->debug & VTA_JIT_DUMP_UOP) dump_kernel(jit, k);
  return VTA_OK;
}

vta_jit_mode vta_jit_kernel_mode(const vta_jit_kernel *k) { return k->mode; }
size_t vta_jit_kernel_size(const vta_jit_kernel *k) { return k->n; }

int vta_jit_kernel_resident(const vta_jit_kernel *k, uint32_t *begin, uint32_t *end) {
  if (!k->resident) return 0;
  if (begin) *begin = k->sram_begin;
  if (end) *end = k->sram_end;
  return 1;
}

/* ---- Residency ---- */

void jit_ubuf_free(jit_ubuf *ub) {
  free(ub->res);
  ub->res = NULL;
  ub->n = ub->cap = ub->cursor = 0;
  ub->top = 0;
}

void jit_ubuf_clear(jit_ubuf *ub) {
  for (size_t i = 0; i < ub->n; i++) ub->res[i]->resident = 0;
  ub->n = ub->cursor = 0;
  ub->top = 0;
}

void jit_ubuf_forget(jit_ubuf *ub) {
  for (size_t i = 0; i < ub->n; i++) ub->res[i]->resident = 0;
  ub->n = ub->cursor = 0; /* the ring's top stays: new kernels go after the latest ones */
}

uint32_t jit_ubuf_plan(const jit_ubuf *ub, uint32_t n) {
  return (uint64_t)ub->top + n > ub->depth ? 0 : ub->top;
}

long jit_ubuf_place(jit_ubuf *ub, vta_jit_kernel *k) {
  uint32_t n = (uint32_t)k->n;
  if (ub->n == ub->cap) {
    size_t nc = ub->cap ? 2 * ub->cap : 32;
    vta_jit_kernel **nr = realloc(ub->res, nc * sizeof *nr);
    if (!nr) return -1;
    ub->res = nr;
    ub->cap = nc;
  }
  if ((uint64_t)ub->top + n > ub->depth) { /* wrap to the start of the buffer */
    ub->top = 0;
    ub->cursor = 0;
  }
  uint32_t b = ub->top, e = b + n;
  size_t j = ub->cursor;
  while (j < ub->n && ub->res[j]->sram_begin < e) ub->res[j++]->resident = 0;
  size_t evicted = j - ub->cursor;
  /* Replace res[cursor, j) by k. */
  if (evicted != 1)
    memmove(ub->res + ub->cursor + 1, ub->res + j, (ub->n - j) * sizeof *ub->res);
  ub->res[ub->cursor] = k;
  ub->n = ub->n - evicted + 1;
  ub->cursor++;
  ub->top = e;
  k->resident = 1;
  k->sram_begin = b;
  k->sram_end = e;
  return (long)evicted;
}
