/* sc.c - the C side of the SystemC performance model: options, the decoded stream the timing
 * model reads, the data (fsim) and the statistics.
 *
 * The design idea: timing and data are separate concerns with one source each. The timing
 * model (sc_model.cpp) needs only the decoded instructions and the micro-op words each LOAD UOP
 * brings (for the footprints of dual issue); the data are fsim's, computed by the same kernels
 * every other backend is compared with, so sc's outputs are bit-identical with fsim's and rtl's
 * by construction and its errors name a bad instruction in fsim's words. A run first times the
 * stream (so it sees the micro-op words as they are when the run starts: a LOAD UOP reading
 * DRAM that a STORE of the same run wrote is timed with the old words, which only moves a
 * footprint) while fsim executes it on a second thread: the two share nothing but the decoded
 * stream, so a run takes the longer of the two, not their sum.
 */
#include "sim/sc/sc.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fsim/fsim.h"
#include "sim/sc/sc_model.h"
#include "sim/trace/trace.h"

/* ---- Timelines ----
 * The model reports each module's busy stretches with the instruction they belong to (exactly
 * the cycles its busy counter adds), fetch's routing of each instruction and the changes of the
 * counters, not in time order; spans go to the file as they come, counter changes are sorted
 * at the end of a run and written as values. Tracks as rtl's (sim/rtl/rtl.c). */
enum { TL_FETCH, TL_LOAD, TL_COMPUTE, TL_GEMM, TL_ALU, TL_STORE, TL_COUNT };
static const char *const k_tl_names[TL_COUNT] = {"fetch", "load", "compute (uop/acc loads, finish)",
                                                 "GEMM", "ALU", "store"};
static const char *const k_ctr_names[VTA_SC_CTR_COUNT] = {
    "queue: load commands",   "queue: compute commands", "queue: store commands",
    "tokens: load->compute",  "tokens: compute->load",   "tokens: compute->store",
    "tokens: store->compute", "AXI read bytes in flight", "AXI write bytes in flight"};

typedef struct sc_ctr_ev {
  uint64_t cycle;
  int64_t delta;
  uint32_t k, seq;
} sc_ctr_ev;

typedef struct sc_timeline {
  vta_trace *t;
  int track[TL_COUNT];
  const vta_config *cfg;
  const uint8_t *stream; /* the run's instructions, for the spans' names */
  uint32_t count;
  uint64_t offset; /* cycles of the earlier runs */
  sc_ctr_ev *ev;
  size_t nev, cap;
  int failed;
} sc_timeline;

struct vta_sc {
  vta_config cfg;
  vta_mem *mem;
  vta_sc_options opt;
  vta_fsim *fsim;
  vta_sc_state *state;
  uint64_t last_dual, last_events;
  vta_sc_insn *prog;
  uint32_t prog_cap;
  uint32_t *words;
  uint64_t words_cap;
  sc_timeline *tl; /* NULL unless options.timeline_path */
};

void vta_sc_options_default(const vta_config *cfg, vta_sc_options *o) {
  memset(o, 0, sizeof *o);
  o->read_latency = cfg->dram_latency > 0 ? (uint32_t)cfg->dram_latency : 0;
  o->write_latency = (cfg->sc_given & (1u << 2)) ? (uint32_t)cfg->sc_dram_write_latency
                                                   : o->read_latency;
  o->bytes_per_cycle = (uint32_t)cfg->sc_dram_bytes_per_cycle;
  o->outstanding = cfg->sc_dram_outstanding > 0 ? (uint32_t)cfg->sc_dram_outstanding : 64;
  o->arbitration = cfg->sc_arbitration;
  o->gemm_uop_cycles = cfg->sc_gemm_uop_cycles > 0 ? (uint32_t)cfg->sc_gemm_uop_cycles : 1;
  o->alu_uop_cycles = cfg->sc_alu_uop_cycles > 0 ? (uint32_t)cfg->sc_alu_uop_cycles : 1;
}

static int parse_u32(const char *key, const char *v, uint32_t lo, uint32_t *out,
                     vta_error *err) {
  char *end;
  unsigned long long x = strtoull(v, &end, 0);
  if (!*v || *end || x < lo || x > 1000000)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "sc option %s=%s is not a number from %u to 1000000", key, v, lo);
  *out = (uint32_t)x;
  return VTA_OK;
}

#define SC_KEYS \
  "latency, read_latency, write_latency, bandwidth, outstanding, arbitration, timeline"

int vta_sc_options_parse(char *text, vta_sc_options *o, vta_error *err) {
  if (!text) return VTA_OK;
  char *save = NULL;
  for (char *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      return vta_error_set(err, VTA_ERR_INVALID, "sc option '%s' is not key=value (keys: %s)",
                           tok, SC_KEYS);
    *eq = '\0';
    const char *v = eq + 1;
    int rc = VTA_OK;
    if (strcmp(tok, "latency") == 0) {
      rc = parse_u32(tok, v, 0, &o->read_latency, err);
      o->write_latency = o->read_latency;
    } else if (strcmp(tok, "read_latency") == 0) {
      rc = parse_u32(tok, v, 0, &o->read_latency, err);
    } else if (strcmp(tok, "write_latency") == 0) {
      rc = parse_u32(tok, v, 0, &o->write_latency, err);
    } else if (strcmp(tok, "bandwidth") == 0) {
      rc = parse_u32(tok, v, 0, &o->bytes_per_cycle, err);
    } else if (strcmp(tok, "outstanding") == 0) {
      rc = parse_u32(tok, v, 1, &o->outstanding, err);
    } else if (strcmp(tok, "timeline") == 0) {
      if (!*v)
        rc = vta_error_set(err, VTA_ERR_INVALID, "sc option timeline= needs a file name");
      o->timeline_path = v;
    } else if (strcmp(tok, "arbitration") == 0) {
      if (strcmp(v, "rr") == 0)
        o->arbitration = 0;
      else if (strcmp(v, "fixed") == 0)
        o->arbitration = 1;
      else
        rc = vta_error_set(err, VTA_ERR_INVALID,
                           "sc option arbitration=%s: expected rr (round-robin) or fixed", v);
    } else {
      rc = vta_error_set(err, VTA_ERR_INVALID, "unknown sc option '%s' (keys: %s)", tok,
                         SC_KEYS);
    }
    if (rc != VTA_OK) return rc;
  }
  return VTA_OK;
}

int vta_sc_create(const vta_config *cfg, vta_mem *mem, const vta_sc_options *o, vta_sc **out,
                  vta_error *err) {
  vta_sc *s = calloc(1, sizeof *s);
  if (!s) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  s->cfg = *cfg;
  s->mem = mem;
  if (o)
    s->opt = *o;
  else
    vta_sc_options_default(cfg, &s->opt);
  int rc = vta_fsim_create(cfg, mem, &s->fsim, err);
  if (rc != VTA_OK) {
    free(s);
    return rc;
  }
  s->state = vta_sc_state_create(cfg);
  if (!s->state) {
    vta_sc_destroy(s);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (s->opt.timeline_path) {
    s->tl = calloc(1, sizeof *s->tl);
    rc = s->tl ? vta_trace_create(s->opt.timeline_path, "vta sc",
                                  cfg->clock_mhz > 0 ? cfg->clock_mhz : 100.0, &s->tl->t, err)
               : vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    if (rc != VTA_OK) {
      free(s->tl);
      s->tl = NULL;
      vta_sc_destroy(s);
      return rc;
    }
    for (int k = 0; k < TL_COUNT; k++) s->tl->track[k] = vta_trace_track(s->tl->t, k_tl_names[k]);
  }
  s->opt.timeline_path = NULL; /* the caller's string: not kept */
  *out = s;
  return VTA_OK;
}

int vta_sc_timeline_close(vta_sc *s, vta_error *err) {
  if (!s->tl) return VTA_OK;
  int rc = VTA_OK;
  if (s->tl->failed) {
    rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory for the timeline");
    vta_trace_abandon(s->tl->t);
  } else {
    rc = vta_trace_close(s->tl->t, err);
  }
  free(s->tl->ev);
  free(s->tl);
  s->tl = NULL;
  return rc;
}

uint64_t vta_sc_timeline_busy(const vta_sc *s, int m) {
  if (!s->tl) return 0;
  const sc_timeline *tl = s->tl;
  if (m == VTA_MOD_LOAD) return vta_trace_busy(tl->t, tl->track[TL_LOAD]);
  if (m == VTA_MOD_STORE) return vta_trace_busy(tl->t, tl->track[TL_STORE]);
  return vta_trace_busy(tl->t, tl->track[TL_COMPUTE]) + vta_trace_busy(tl->t, tl->track[TL_GEMM]) +
         vta_trace_busy(tl->t, tl->track[TL_ALU]);
}

/* The span name ("#3 load memory_type=inp", "#4 gemm") and args of instruction i. */
static void tl_names(const sc_timeline *tl, uint32_t i, unsigned *op, char *name, size_t nn,
                     char *args, size_t na) {
  char text[256] = "";
  vta_insn_word w;
  vta_insn in;
  *op = VTA_OP_FINISH;
  vta_insn_word_load(tl->stream + (size_t)i * VTA_INSN_BYTES, &w);
  if (vta_insn_decode(tl->cfg, &w, &in, NULL) == VTA_OK) {
    *op = (unsigned)in.f[VTA_F_OPCODE];
    vta_insn_to_text(tl->cfg, &in, text, sizeof text);
  }
  snprintf(name, nn, "#%u %.60s", i, text);
  char *sp = strchr(name + 1, ' ');
  if (sp && (sp = strchr(sp + 1, ' ')) && strncmp(text, "load", 4) == 0) {
    char *sp2 = strchr(sp + 1, ' ');
    if (sp2) *sp2 = 0;
  } else if (sp) {
    *sp = 0;
  }
  size_t k = (size_t)snprintf(args, na, "\"index\": %u, \"insn\": \"", i);
  for (const char *c = text; *c && k + 3 < na; c++) {
    if (*c == '"' || *c == '\\') args[k++] = '\\';
    args[k++] = *c;
  }
  snprintf(args + k, na - k, "\"");
}

static void tl_busy(void *ctx, int m, uint32_t insn, uint64_t b, uint64_t e) {
  sc_timeline *tl = ctx;
  char name[96], args[400];
  unsigned op;
  tl_names(tl, insn, &op, name, sizeof name, args, sizeof args);
  int track = m == VTA_MOD_LOAD ? TL_LOAD : m == VTA_MOD_STORE ? TL_STORE
            : op == VTA_OP_GEMM ? TL_GEMM : op == VTA_OP_ALU ? TL_ALU : TL_COMPUTE;
  vta_trace_span(tl->t, tl->track[track], name, tl->offset + b, tl->offset + e, args);
}

static void tl_route(void *ctx, uint32_t insn, uint64_t c) {
  sc_timeline *tl = ctx;
  char name[96], args[400], num[24];
  unsigned op;
  tl_names(tl, insn, &op, name, sizeof name, args, sizeof args);
  snprintf(num, sizeof num, "#%u", insn);
  vta_trace_span(tl->t, tl->track[TL_FETCH], num, tl->offset + c, tl->offset + c + 1, args);
}

static void tl_counter(void *ctx, int k, uint64_t c, int64_t delta) {
  sc_timeline *tl = ctx;
  if (tl->nev == tl->cap) {
    size_t cap = tl->cap ? 2 * tl->cap : 1024;
    sc_ctr_ev *x = realloc(tl->ev, cap * sizeof *x);
    if (!x) {
      tl->failed = 1;
      return;
    }
    tl->ev = x;
    tl->cap = cap;
  }
  tl->ev[tl->nev] = (sc_ctr_ev){c, delta, (uint32_t)k, (uint32_t)tl->nev};
  tl->nev++;
}

static int ev_cmp(const void *a, const void *b) {
  const sc_ctr_ev *x = a, *y = b;
  if (x->k != y->k) return x->k < y->k ? -1 : 1;
  if (x->cycle != y->cycle) return x->cycle < y->cycle ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* After a run of `cycles` cycles: the counters' values, each from 0 at the run's start. */
static void tl_end(sc_timeline *tl, uint64_t cycles) {
  qsort(tl->ev, tl->nev, sizeof *tl->ev, ev_cmp);
  for (size_t i = 0; i < tl->nev;) {
    uint32_t k = tl->ev[i].k;
    int64_t v = 0;
    vta_trace_counter(tl->t, k_ctr_names[k], tl->offset, 0);
    while (i < tl->nev && tl->ev[i].k == k) {
      uint64_t c = tl->ev[i].cycle;
      int64_t before = v;
      while (i < tl->nev && tl->ev[i].k == k && tl->ev[i].cycle == c) v += tl->ev[i++].delta;
      if (v != before) vta_trace_counter(tl->t, k_ctr_names[k], tl->offset + c, (double)v);
    }
  }
  tl->nev = 0;
  tl->offset += cycles;
}

void vta_sc_destroy(vta_sc *s) {
  if (!s) return;
  vta_sc_timeline_close(s, NULL);
  vta_fsim_destroy(s->fsim);
  vta_sc_state_destroy(s->state);
  free(s->prog);
  free(s->words);
  free(s);
}

uint64_t vta_sc_last_dual_cycles(const vta_sc *s) { return s->last_dual; }
uint64_t vta_sc_last_events(const vta_sc *s) { return s->last_events; }

/* Decodes the stream for the timing model. Returns 0, or -1 when something in it is wrong
 * (fsim then names it). */
static int decode(vta_sc *s, uint64_t insn_phys, uint32_t count) {
  if (!vta_mem_check(s->mem, insn_phys, (uint64_t)count * VTA_INSN_BYTES)) return -1;
  if (count > s->prog_cap) {
    vta_sc_insn *p = realloc(s->prog, (size_t)count * sizeof *p);
    if (!p) return -1;
    s->prog = p;
    s->prog_cap = count;
  }
  const uint8_t *base = vta_mem_ptr(s->mem, insn_phys);
  uint64_t nwords = 0;
  for (uint32_t i = 0; i < count; i++) {
    vta_insn_word w;
    vta_insn in;
    vta_error e;
    vta_insn_word_load(base + (size_t)i * VTA_INSN_BYTES, &w);
    if (vta_insn_decode(&s->cfg, &w, &in, &e) != VTA_OK) return -1;
    if (vta_insn_check(&s->cfg, &in, &e) != VTA_OK) return -1;
    const int64_t *f = in.f;
    vta_sc_insn *d = &s->prog[i];
    memset(d, 0, sizeof *d);
    d->opcode = (uint8_t)f[VTA_F_OPCODE];
    d->module = (uint8_t)vta_insn_module(&in);
    d->pop_prev = (uint8_t)f[VTA_F_POP_PREV];
    d->pop_next = (uint8_t)f[VTA_F_POP_NEXT];
    d->push_prev = (uint8_t)f[VTA_F_PUSH_PREV];
    d->push_next = (uint8_t)f[VTA_F_PUSH_NEXT];
    if (d->opcode == VTA_OP_LOAD || d->opcode == VTA_OP_STORE) {
      d->mem_type = (uint8_t)f[VTA_F_MEMORY_TYPE];
      d->sram_base = (uint32_t)f[VTA_F_SRAM_BASE];
      d->dram_base = (uint32_t)f[VTA_F_DRAM_BASE];
      d->y_size = (uint32_t)f[VTA_F_Y_SIZE];
      d->x_size = (uint32_t)f[VTA_F_X_SIZE];
      d->x_stride = (uint32_t)f[VTA_F_X_STRIDE];
      if (d->opcode == VTA_OP_LOAD) {
        d->y_pad_0 = (uint32_t)f[VTA_F_Y_PAD_0];
        d->y_pad_1 = (uint32_t)f[VTA_F_Y_PAD_1];
        d->x_pad_0 = (uint32_t)f[VTA_F_X_PAD_0];
        d->x_pad_1 = (uint32_t)f[VTA_F_X_PAD_1];
      }
      if (d->opcode == VTA_OP_LOAD && d->mem_type == VTA_MEM_UOP && d->x_size && d->y_size) {
        uint64_t eb = s->cfg.elem_bytes[VTA_MEM_UOP];
        for (uint32_t r = 0; r < d->y_size; r++) {
          uint64_t a = ((uint64_t)d->dram_base + (uint64_t)r * d->x_stride) * eb;
          if (!vta_mem_check(s->mem, a, (uint64_t)d->x_size * eb)) return -1;
        }
        d->uop_words_at = nwords;
        nwords += (uint64_t)d->x_size * d->y_size;
      }
    } else if (d->opcode == VTA_OP_GEMM || d->opcode == VTA_OP_ALU) {
      d->reset = (uint8_t)f[VTA_F_RESET_REG];
      d->uop_bgn = (uint32_t)f[VTA_F_UOP_BGN];
      d->uop_end = (uint32_t)f[VTA_F_UOP_END];
      d->iter_out = (uint32_t)f[VTA_F_ITER_OUT];
      d->iter_in = (uint32_t)f[VTA_F_ITER_IN];
      d->dfo = (uint32_t)f[VTA_F_DST_FACTOR_OUT];
      d->dfi = (uint32_t)f[VTA_F_DST_FACTOR_IN];
      d->sfo = (uint32_t)f[VTA_F_SRC_FACTOR_OUT];
      d->sfi = (uint32_t)f[VTA_F_SRC_FACTOR_IN];
      if (d->opcode == VTA_OP_ALU) {
        d->use_imm = (uint8_t)f[VTA_F_USE_IMM];
        d->alu_op = (uint8_t)f[VTA_F_ALU_OPCODE];
      }
    }
  }
  /* The micro-op words every LOAD UOP reads, as they are when the run starts. */
  if (nwords > s->words_cap) {
    uint32_t *w = realloc(s->words, (size_t)nwords * sizeof *w);
    if (!w) return -1;
    s->words = w;
    s->words_cap = nwords;
  }
  for (uint32_t i = 0; i < count; i++) {
    const vta_sc_insn *d = &s->prog[i];
    if (!(d->opcode == VTA_OP_LOAD && d->mem_type == VTA_MEM_UOP && d->x_size && d->y_size))
      continue;
    uint64_t eb = s->cfg.elem_bytes[VTA_MEM_UOP];
    uint32_t *w = s->words + d->uop_words_at;
    for (uint32_t r = 0; r < d->y_size; r++) {
      const uint8_t *src = vta_mem_ptr(s->mem, ((uint64_t)d->dram_base + (uint64_t)r * d->x_stride) * eb);
      for (uint32_t x = 0; x < d->x_size; x++, w++)
        *w = (uint32_t)src[4 * x] | (uint32_t)src[4 * x + 1] << 8 |
             (uint32_t)src[4 * x + 2] << 16 | (uint32_t)src[4 * x + 3] << 24;
    }
  }
  return 0;
}

/* The compute pipeline of hw/rtl/vta_compute.sv (docs/hw.md, "Compute pipeline"): a GEMM
 * micro-op issued in C0 writes its result in C3 = compute_c3 of the configuration, an ALU
 * micro-op in C4 = compute_c4, and an instruction that may interfere with the other unit's
 * leaves decode that unit's write stage less its own read stage (C1 = compute_c1, the ALU's
 * compute_alu_c1) cycles after that unit issued its last micro-op, so that its first ACC read
 * follows that write. */
#define SC_GEMM_STAGES(c) ((c)->compute_c3)
#define SC_ALU_STAGES(c) ((c)->compute_c4)

/* Streams at least this long get fsim on a second thread. Measured with `vta run` of the PP-OCR
 * classifier (42 programs of about 130 instructions) on a machine shared with other builds:
 * 0.020 to 0.028 s of device time with fsim on the caller's thread, 0.058 s with a thread per
 * run; long streams (ResNet-18's layers) overlap the two halves when a core is free. */
#define SC_THREAD_MIN_INSNS 2048

typedef struct fsim_job {
  vta_fsim *fsim;
  uint64_t insn_phys;
  uint32_t count;
  uint64_t timeout;
  vta_stats st;
  vta_error err;
  int rc;
} fsim_job;

static void *fsim_thread(void *arg) {
  fsim_job *j = arg;
  j->rc = vta_fsim_run(j->fsim, j->insn_phys, j->count, j->timeout, &j->st, &j->err);
  return NULL;
}

int vta_sc_run(vta_sc *s, uint64_t insn_phys, uint32_t count, uint64_t timeout, vta_stats *stats,
               vta_error *err) {
  vta_stats st;
  memset(&st, 0, sizeof st);
  s->last_dual = s->last_events = 0;
  if (count == 0)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the instruction stream is empty: it must end with a FINISH");
  if (decode(s, insn_phys, count) != 0) {
    /* fsim names what is wrong, in the words every backend uses. */
    int rc = vta_fsim_run(s->fsim, insn_phys, count, timeout, NULL, err);
    if (rc == VTA_OK)
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "the stream ran on fsim but the timing model could not read it "
                         "(out of memory?)");
    return rc;
  }
  vta_sc_params par = {
      .read_latency = s->opt.read_latency,
      .write_latency = s->opt.write_latency,
      .bytes_per_cycle = s->opt.bytes_per_cycle,
      .outstanding = s->opt.outstanding,
      .arbitration = s->opt.arbitration,
      .gemm_uop_cycles = s->opt.gemm_uop_cycles,
      .alu_uop_cycles = s->opt.alu_uop_cycles,
      .gemm_stages = SC_GEMM_STAGES(&s->cfg),
      .alu_stages = SC_ALU_STAGES(&s->cfg),
      .gemm_interlock = SC_GEMM_STAGES(&s->cfg) - s->cfg.compute_alu_c1,
      .alu_interlock = SC_ALU_STAGES(&s->cfg) - s->cfg.compute_c1,
      .alu_stall = 1,
      .load_ahead = 2,
  };
  vta_sc_recorder rec = {.ctx = s->tl, .busy = tl_busy, .route = tl_route, .counter = tl_counter};
  if (s->tl) {
    s->tl->cfg = &s->cfg;
    s->tl->stream = vta_mem_ptr(s->mem, insn_phys);
    s->tl->count = count;
    s->tl->nev = 0;
  }
  vta_sc_job job = {
      .cfg = &s->cfg,
      .par = &par,
      .insns = s->prog,
      .count = count,
      .insn_phys = insn_phys,
      .uop_words = s->words,
      .timeout = timeout,
      .rec = s->tl ? &rec : NULL,
  };
  vta_sc_result res;
  memset(&res, 0, sizeof res);
  char msg[VTA_ERROR_MSG_MAX - 64] = "";
  /* Data on fsim (its step budget is never stricter than the same number of cycles), timing
   * here; when no thread can be started, one after the other. */
  fsim_job fj = {.fsim = s->fsim, .insn_phys = insn_phys, .count = count, .timeout = timeout};
  pthread_t th;
  /* A thread pays off only for long streams: starting one (and, on a busy machine, waiting for
   * it to be scheduled) costs more than fsim takes for a short one. VTA_SC_THREAD=0 never
   * starts one, =1 always does. */
  const char *thr = getenv("VTA_SC_THREAD");
  int want = thr && *thr ? *thr != '0' : count >= SC_THREAD_MIN_INSNS;
  int threaded = want && pthread_create(&th, NULL, fsim_thread, &fj) == 0;
  int mrc = vta_sc_model_run(s->state, &job, &res, msg, sizeof msg);
  if (threaded)
    pthread_join(th, NULL);
  else
    fsim_thread(&fj);
  st = fj.st;
  if (fj.rc != VTA_OK && !(fj.rc == VTA_ERR_TIMEOUT && mrc == 1)) {
    if (err) *err = fj.err;
    return fj.rc;
  }
  if (mrc == 1) return vta_error_set(err, VTA_ERR_TIMEOUT, "%s", msg);
  if (mrc != 0) return vta_error_set(err, mrc == 2 ? VTA_ERR_DEADLOCK : VTA_ERR_INVALID, "%s", msg);
  if (s->tl) tl_end(s->tl, res.cycles);
  st.cycles = res.cycles;
  for (int m = 0; m < VTA_MOD_COUNT; m++) {
    st.busy_cycles[m] = res.busy[m];
    st.stall_cycles[m] = res.stall[m];
  }
  s->last_dual = res.dual_cycles;
  s->last_events = res.events;
  if (stats) vta_stats_add(stats, &st);
  return VTA_OK;
}
