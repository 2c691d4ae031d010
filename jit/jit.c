/* jit.c - the vta_jit object: CISC operations in, instructions out, runs on a device.
 *
 * The design idea: everything an operation needs is checked and encoded when it is issued
 * (stream.c encodes, kernel.c checks kernels once), so synchronising is only the mechanical
 * part: close the stream, make the device buffers large enough, fix the micro-op loads' DRAM
 * addresses, copy, run. The device buffers for the stream and the micro-ops grow on demand and
 * are kept, so a steady program allocates nothing per run; because the micro-op buffer's
 * address is only known at that point, LOAD UOP instructions carry an offset into the staging
 * area until then (the one field ever rewritten after encoding, besides token flags).
 *
 * A stream is synchronised automatically before it would outgrow max_insn_bytes (the
 * published VTA_MAX_XFER by default) or its micro-ops the staging area; the token carry of
 * stream.c makes that invisible to the program.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit_internal.h"
#include "vta/config.h"

#define MIN_DEVICE_BUFFER (64u * 1024u)

int vta_jit_create(vta_device *dev, const vta_jit_options *opt, vta_jit **out, vta_error *err) {
  if (!dev) return vta_error_set(err, VTA_ERR_INVALID, "jit: no device");
  vta_jit_options o;
  memset(&o, 0, sizeof o);
  if (opt) o = *opt;
  if (!o.max_insn_bytes) o.max_insn_bytes = VTA_JIT_MAX_XFER;
  if (!o.max_uop_bytes) o.max_uop_bytes = VTA_JIT_MAX_XFER;
  /* The smallest streams still hold one call's worth of instructions and the closing ones. */
  if (o.max_insn_bytes < 4 * JIT_CALL_RESERVE * VTA_INSN_BYTES || o.max_insn_bytes > (1ull << 30))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: max_insn_bytes = %" PRIu64 " is outside [%u, %llu]",
                         o.max_insn_bytes, 4 * JIT_CALL_RESERVE * VTA_INSN_BYTES, 1ull << 30);
  if (o.max_uop_bytes < VTA_UOP_BYTES || o.max_uop_bytes > (1ull << 30))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: max_uop_bytes = %" PRIu64 " is outside [%d, %llu]",
                         o.max_uop_bytes, VTA_UOP_BYTES, 1ull << 30);
  vta_jit *jit = calloc(1, sizeof *jit);
  if (!jit) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory");
  jit->dev = dev;
  jit->cfg = *vta_device_config(dev);
  jit->opt = o;
  jit->dump = o.dump ? o.dump : stderr;
  jit->debug = o.debug;
  jit->max_insns = o.max_insn_bytes / VTA_INSN_BYTES;
  jit->max_uops = o.max_uop_bytes / VTA_UOP_BYTES;
  jit->ub.depth = jit->cfg.depth[VTA_MEM_UOP];
  jit->epoch = 1;
  jit_stream_init(&jit->s, err);
  jit->s.serial = (jit->debug & VTA_JIT_FORCE_SERIAL) != 0;
  *out = jit;
  return VTA_OK;
}

void vta_jit_destroy(vta_jit *jit) {
  if (!jit) return;
  jit_stream_free(&jit->s);
  jit_kcache_free(&jit->kc);
  jit_ubuf_free(&jit->ub);
  free(jit->staged);
  free(jit->host_bytes);
  if (jit->insn_phys) vta_device_free(jit->dev, jit->insn_phys);
  if (jit->uop_phys) vta_device_free(jit->dev, jit->uop_phys);
  free(jit);
}

const vta_config *vta_jit_config(const vta_jit *jit) { return &jit->cfg; }
vta_device *vta_jit_device(vta_jit *jit) { return jit->dev; }
int vta_jit_get_debug(const vta_jit *jit) { return jit->debug; }
const vta_jit_counters *vta_jit_get_counters(const vta_jit *jit) { return &jit->c; }

void vta_jit_set_debug(vta_jit *jit, int flags) {
  jit->debug = flags;
  if (jit->s.n == 0) {
    jit->s.serial = (flags & VTA_JIT_FORCE_SERIAL) != 0;
    if (jit->s.serial) { /* the program's tokens are ignored from here on */
      memset(jit->s.pend_prev, 0, sizeof jit->s.pend_prev);
      memset(jit->s.pend_next, 0, sizeof jit->s.pend_next);
      memset(jit->s.carry, 0, sizeof jit->s.carry);
    }
  }
}

const char *vta_jit_last_error(const vta_jit *jit, uint64_t *count) {
  if (count) *count = jit->errors;
  return jit->errors ? jit->last_error.msg : NULL;
}

void vta_jit_stream(const vta_jit *jit, const vta_insn_word **words, size_t *count) {
  *words = jit->s.w;
  *count = jit->s.n;
}

void vta_jit_staged_uops(const vta_jit *jit, const uint32_t **uops, size_t *count) {
  *uops = jit->staged;
  *count = jit->nstaged;
}

/* ---- Synchronisation ---- */

static void reset_stream(vta_jit *jit) {
  jit_stream_clear(&jit->s);
  jit_ubuf_clear(&jit->ub);
  jit->nstaged = 0;
  jit->epoch++;
}

void vta_jit_forget_kernels(vta_jit *jit) { jit_ubuf_forget(&jit->ub); }

void vta_jit_discard(vta_jit *jit) {
  reset_stream(jit);
  memset(jit->s.carry, 0, sizeof jit->s.carry);
  memset(jit->s.pend_prev, 0, sizeof jit->s.pend_prev);
  memset(jit->s.pend_next, 0, sizeof jit->s.pend_next);
  jit->s.serial = (jit->debug & VTA_JIT_FORCE_SERIAL) != 0;
}

/* Makes a device buffer at least `need` bytes (contents are not kept). */
static int ensure_device(vta_jit *jit, uint64_t *phys, uint64_t *cap, uint64_t need,
                         const char *what, vta_error *err) {
  if (need <= *cap) return VTA_OK;
  uint64_t nc = *cap ? *cap : MIN_DEVICE_BUFFER;
  while (nc < need) nc *= 2;
  if (*phys) vta_device_free(jit->dev, *phys);
  *phys = 0;
  *cap = 0;
  int rc = vta_device_alloc(jit->dev, nc, phys, err);
  if (rc) {
    vta_error_prefix(err, "jit: %s buffer of %" PRIu64 " bytes", what, nc);
    *phys = 0;
    return rc;
  }
  *cap = nc;
  return VTA_OK;
}

/* Closes the stream, sizes the device buffers, and points the micro-op loads at them. */
static int prepare(vta_jit *jit, vta_error *err) {
  int rc = jit_stream_close(jit, err);
  if (rc) return rc;
  rc = ensure_device(jit, &jit->insn_phys, &jit->insn_cap, (uint64_t)jit->s.n * VTA_INSN_BYTES,
                     "instruction", err);
  if (rc) return rc;
  if (jit->nstaged) {
    rc = ensure_device(jit, &jit->uop_phys, &jit->uop_cap, (uint64_t)jit->nstaged * VTA_UOP_BYTES,
                       "micro-op", err);
    if (rc) return rc;
  }
  vta_field_pos p = jit->cfg.layout[VTA_FMT_MEM].pos[VTA_F_DRAM_BASE];
  uint64_t base = jit->uop_phys / VTA_UOP_BYTES;
  for (size_t i = 0; i < jit->s.n_uop_loads; i++) {
    const jit_uop_load *u = &jit->s.uop_loads[i];
    uint64_t v = base + u->rel;
    if (p.width < 64 && (v >> p.width))
      return vta_error_set(err, VTA_ERR_BOUNDS,
                           "jit: micro-op buffer at device address 0x%" PRIx64
                           " is beyond the reach of dram_base (%u bits of 4-byte elements)",
                           jit->uop_phys, p.width);
    vta_word_set(&jit->s.w[u->idx], p, v);
  }
  return VTA_OK;
}

int vta_jit_finish(vta_jit *jit, vta_error *err) { return prepare(jit, err); }

static int copy_out(vta_jit *jit, vta_error *err) {
  size_t nbytes = jit->s.n * VTA_INSN_BYTES;
  uint8_t *dst = vta_device_host_ptr(jit->dev, jit->insn_phys);
  uint8_t *bytes = dst;
  if (!dst) {
    if (jit->host_bytes_cap < nbytes) {
      uint8_t *nb = realloc(jit->host_bytes, nbytes);
      if (!nb) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for the stream");
      jit->host_bytes = nb;
      jit->host_bytes_cap = nbytes;
    }
    bytes = jit->host_bytes;
  }
  for (size_t i = 0; i < jit->s.n; i++) vta_insn_word_store(&jit->s.w[i], bytes + 16 * i);
  int rc = VTA_OK;
  if (!dst) rc = vta_device_copy_to(jit->dev, jit->insn_phys, bytes, nbytes, err);
  if (rc) return rc;
  if (jit->nstaged) {
    size_t ubytes = jit->nstaged * VTA_UOP_BYTES;
    uint8_t *u = vta_device_host_ptr(jit->dev, jit->uop_phys);
    uint8_t *tmp = NULL;
    if (!u) {
      u = tmp = malloc(ubytes);
      if (!u) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for micro-ops");
    }
    /* Micro-ops are little-endian 32-bit words in device memory. */
    for (size_t i = 0; i < jit->nstaged; i++) {
      uint32_t v = jit->staged[i];
      u[4 * i] = (uint8_t)v;
      u[4 * i + 1] = (uint8_t)(v >> 8);
      u[4 * i + 2] = (uint8_t)(v >> 16);
      u[4 * i + 3] = (uint8_t)(v >> 24);
    }
    if (tmp) {
      rc = vta_device_copy_to(jit->dev, jit->uop_phys, tmp, ubytes, err);
      free(tmp);
    }
  }
  if (rc == VTA_OK && (jit->debug & VTA_JIT_DUMP_INSN)) {
    fprintf(jit->dump, "# stream %" PRIu64 ": %zu instructions, %zu micro-ops staged\n",
            jit->stream_no, jit->s.n, jit->nstaged);
    vta_error derr;
    if (vta_disasm(&jit->cfg, bytes, nbytes, jit->dump, 1, &derr))
      fprintf(jit->dump, "# (disassembly failed: %s)\n", derr.msg);
    fflush(jit->dump);
  }
  return rc;
}

int jit_run(vta_jit *jit, uint64_t timeout, vta_stats *stats, int automatic, vta_error *err) {
  if (jit->s.user == 0 && !jit->s.closed) return VTA_OK; /* nothing to run */
  int rc = prepare(jit, err);
  if (rc == VTA_OK) rc = copy_out(jit, err);
  if (rc) {
    /* A stream that cannot be run cannot be repaired either: drop it. */
    vta_jit_discard(jit);
    return rc;
  }
  vta_stats local;
  memset(&local, 0, sizeof local);
  jit->stream_no++;
  rc = vta_device_run(jit->dev, jit->insn_phys, (uint32_t)jit->s.n,
                      timeout ? timeout : jit->opt.timeout, &local, err);
  jit->c.syncs++;
  if (automatic) jit->c.auto_syncs++;
  jit->c.device_seconds += local.wall_seconds;
  vta_stats_add(&jit->c.stats, &local);
  if (stats) vta_stats_add(stats, &local);
  if (rc) {
    vta_jit_discard(jit);
    return rc;
  }
  reset_stream(jit);
  return jit_stream_reopen(jit, err);
}

int vta_jit_sync(vta_jit *jit, uint64_t timeout, vta_stats *stats, vta_error *err) {
  return jit_run(jit, timeout, stats, 0, err);
}

/* Before an operation: synchronise if the stream could not take it. */
static int make_room(vta_jit *jit, size_t uops, vta_error *err) {
  if (jit->s.closed)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: the stream is closed (vta_jit_finish); synchronise or discard it "
                         "before adding instructions");
  if (jit_stream_has_room(jit) && jit->nstaged + uops <= jit->max_uops) return VTA_OK;
  int rc = jit_run(jit, 0, NULL, 1, err);
  if (rc) vta_error_prefix(err, "jit: automatic synchronisation of a full stream");
  return rc;
}

/* ---- Loads and stores ---- */

static int xfer_insn(vta_jit *jit, const vta_jit_xfer *x, int store, vta_insn *in,
                     vta_error *err) {
  const vta_config *cfg = &jit->cfg;
  const char *op = store ? "store" : "load";
  if ((unsigned)x->type >= VTA_MEM_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: %s of undefined memory type %d", op,
                         (int)x->type);
  if (store ? x->type != VTA_MEM_OUT : x->type == VTA_MEM_OUT)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: %s of memory type %s (%s)", op,
                         vta_mem_type_name(x->type),
                         store ? "only out can be stored" : "out cannot be loaded");
  if (store && (x->x_pad_before || x->y_pad_before || x->x_pad_after || x->y_pad_after))
    return vta_error_set(err, VTA_ERR_INVALID, "jit: a store cannot pad");
  uint32_t eb = cfg->elem_bytes[x->type];
  if (x->dram_phys % eb)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: %s %s: device address 0x%" PRIx64
                         " is not a multiple of the %u-byte element",
                         op, vta_mem_type_name(x->type), x->dram_phys, eb);
  uint64_t base = x->dram_phys / eb + x->dram_offset;
  if (base < x->dram_offset || base > 0xffffffffull)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "jit: %s %s: element address %" PRIu64 " (0x%" PRIx64 " / %u + %" PRIu64
                         ") does not fit dram_base's 32 bits",
                         op, vta_mem_type_name(x->type), base, x->dram_phys, eb, x->dram_offset);
  uint64_t rows = (uint64_t)x->y_pad_before + x->y_size + x->y_pad_after;
  uint64_t cols = (uint64_t)x->x_pad_before + x->x_size + x->x_pad_after;
  uint32_t depth = cfg->depth[x->type];
  if (x->x_size && (uint64_t)x->sram + rows * cols > depth)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "jit: %s %s: on-chip elements [%u, %" PRIu64 ") are beyond the %u-entry "
                         "buffer",
                         op, vta_mem_type_name(x->type), x->sram, x->sram + rows * cols, depth);
  memset(in, 0, sizeof *in);
  in->f[VTA_F_OPCODE] = store ? VTA_OP_STORE : VTA_OP_LOAD;
  in->f[VTA_F_MEMORY_TYPE] = x->type;
  in->f[VTA_F_SRAM_BASE] = x->sram;
  in->f[VTA_F_DRAM_BASE] = (int64_t)base;
  in->f[VTA_F_Y_SIZE] = x->y_size;
  in->f[VTA_F_X_SIZE] = x->x_size;
  in->f[VTA_F_X_STRIDE] = x->x_stride;
  in->f[VTA_F_Y_PAD_0] = x->y_pad_before;
  in->f[VTA_F_Y_PAD_1] = x->y_pad_after;
  in->f[VTA_F_X_PAD_0] = x->x_pad_before;
  in->f[VTA_F_X_PAD_1] = x->x_pad_after;
  return VTA_OK;
}

static int xfer(vta_jit *jit, const vta_jit_xfer *x, int store, vta_error *err) {
  vta_insn in;
  int rc = xfer_insn(jit, x, store, &in, err);
  if (rc == VTA_OK) rc = make_room(jit, 0, err);
  if (rc == VTA_OK) rc = jit_append(jit, &in, 1, err);
  return rc;
}

int vta_jit_load(vta_jit *jit, const vta_jit_xfer *x, vta_error *err) {
  return xfer(jit, x, 0, err);
}

int vta_jit_store(vta_jit *jit, const vta_jit_xfer *x, vta_error *err) {
  return xfer(jit, x, 1, err);
}

/* ---- Tokens ---- */

static int stage_module(vta_jit_stage st, vta_module *m) {
  if (st < VTA_JIT_STAGE_LOAD || st > VTA_JIT_STAGE_STORE) return 0;
  *m = (vta_module)(st - 1);
  return 1;
}

static int dep(vta_jit *jit, vta_jit_stage from, vta_jit_stage to, int push, vta_error *err) {
  vta_module f, t;
  if (!stage_module(from, &f) || !stage_module(to, &t))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: dependency %s from stage %d to stage %d: stages are 1 (load), "
                         "2 (compute), 3 (store)",
                         push ? "push" : "pop", (int)from, (int)to);
  int rc = make_room(jit, 0, err);
  if (rc) return rc;
  return push ? jit_dep_push(jit, f, t, err) : jit_dep_pop(jit, f, t, err);
}

int vta_jit_dep_push(vta_jit *jit, vta_jit_stage from, vta_jit_stage to, vta_error *err) {
  return dep(jit, from, to, 1, err);
}

int vta_jit_dep_pop(vta_jit *jit, vta_jit_stage from, vta_jit_stage to, vta_error *err) {
  return dep(jit, from, to, 0, err);
}

/* ---- Kernel runs ---- */

static int reserve_patch(jit_stream *s, vta_error *err) {
  if (s->n_uop_loads < s->cap_uop_loads) return VTA_OK;
  size_t nc = s->cap_uop_loads ? 2 * s->cap_uop_loads : 64;
  jit_uop_load *n = realloc(s->uop_loads, nc * sizeof *n);
  if (!n) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory");
  s->uop_loads = n;
  s->cap_uop_loads = nc;
  return VTA_OK;
}

static int reserve_staging(vta_jit *jit, size_t n, vta_error *err) {
  if (jit->nstaged + n <= jit->cap_staged) return VTA_OK;
  size_t nc = jit->cap_staged ? jit->cap_staged : 1024;
  while (nc < jit->nstaged + n) nc *= 2;
  uint32_t *ns = realloc(jit->staged, nc * sizeof *ns);
  if (!ns) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for micro-ops");
  jit->staged = ns;
  jit->cap_staged = nc;
  return VTA_OK;
}

int vta_jit_push_kernel(vta_jit *jit, vta_jit_kernel *k, vta_error *err) {
  if (!k || !k->finished)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: kernel run before vta_jit_kernel_end");
  if (k->jit != jit)
    return vta_error_set(err, VTA_ERR_INVALID, "jit: kernel belongs to another stream");
  int staged = k->staged_epoch == jit->epoch;
  int rc = make_room(jit, k->resident || staged ? 0 : k->n, err);
  if (rc) return rc;
  staged = k->staged_epoch == jit->epoch; /* a synchronisation starts a new epoch */
  if (!k->resident) {
    uint32_t n = (uint32_t)k->n;
    uint32_t rel = staged ? k->staged_offset : (uint32_t)jit->nstaged;
    if ((rc = reserve_patch(&jit->s, err)) || (!staged && (rc = reserve_staging(jit, n, err))))
      return rc;
    vta_insn in;
    memset(&in, 0, sizeof in);
    in.f[VTA_F_OPCODE] = VTA_OP_LOAD;
    in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_UOP;
    in.f[VTA_F_SRAM_BASE] = jit_ubuf_plan(&jit->ub, n);
    in.f[VTA_F_DRAM_BASE] = rel;
    in.f[VTA_F_Y_SIZE] = 1;
    in.f[VTA_F_X_SIZE] = n;
    in.f[VTA_F_X_STRIDE] = n;
    /* The pending pops belong to the kernel's instruction, not to its LOAD UOP (stream.c). */
    rc = jit_append_uop_load(jit, &in, err);
    if (rc) return rc;
    jit->s.uop_loads[jit->s.n_uop_loads++] = (jit_uop_load){jit->s.n - 1, rel};
    if (!staged) {
      memcpy(jit->staged + jit->nstaged, k->words, n * sizeof *k->words);
      k->staged_offset = rel;
      k->staged_epoch = jit->epoch;
      jit->nstaged += n;
    }
    long ev = jit_ubuf_place(&jit->ub, k);
    if (ev < 0) {
      /* The LOAD UOP stays (harmless); the kernel is simply not marked resident. */
      return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for the micro-op cache");
    }
    jit->c.evictions += (uint64_t)ev;
    jit->c.kernel_misses++;
    jit->c.uop_loads++;
    jit->c.uops_loaded += n;
  } else {
    jit->c.kernel_hits++;
  }
  vta_insn_word w = k->tmpl_word;
  const vta_format_layout *lay = &jit->cfg.layout[k->tmpl_format];
  vta_word_set(&w, lay->pos[VTA_F_UOP_BGN], k->sram_begin);
  vta_word_set(&w, lay->pos[VTA_F_UOP_END], k->sram_end);
  return jit_append_word(jit, &w, k->tmpl_module, k->tmpl_format, 1, err);
}
