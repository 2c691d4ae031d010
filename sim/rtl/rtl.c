/* rtl.c - the C side of the RTL simulator: finds and loads a configuration's Verilator model,
 * checks a stream before the hardware sees it, and turns the hardware counters into vta_stats.
 *
 * The design idea: the Verilator model is compiled per configuration into a shared object (its
 * widths are elaboration-time constants), so this file picks the object by the configuration's
 * model key and talks to it only through the plain-C table of rtl_model.h. Everything a user
 * needs explained in words (a stream that does not decode, a DMA outside its allocation, a
 * buffer range past its depth) is checked here, with the instruction index, before the run,
 * exactly as fsim reports it; the hardware itself, like real hardware, would silently wrap.
 * Counts that are properties of the program (instructions per opcode, bytes per memory type)
 * come from the decoded stream; everything the hardware measures (cycles, busy and stall
 * cycles, micro-ops, instructions per module) comes from its counter registers.
 */
#include "sim/rtl/rtl.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isa/svgen.h"
#include "sim/rtl/rtl_model.h"
#include "sim/trace/trace.h"
#include "vta/regmap.h"

#ifndef VTA_RTL_MODEL_ROOT
#define VTA_RTL_MODEL_ROOT "build/rtl"
#endif
#ifndef VTA_RTL_COV_MODEL_ROOT
#define VTA_RTL_COV_MODEL_ROOT "build/rtl-cov"
#endif

struct vta_rtl {
  vta_config cfg;
  vta_mem *mem;
  void *dl;
  const vta_rtl_model_api *api;
  void *model;
  uint64_t last_sim_cycles;
  uint64_t last_dual_cycles;
  uint64_t last_watch_cycle;
  struct rtl_timeline *tl; /* NULL unless options.timeline_path */
  vta_insn *prog;
  uint32_t prog_cap;
};

void vta_rtl_options_default(const vta_config *cfg, vta_rtl_options *o) {
  memset(o, 0, sizeof *o);
  o->read_latency = cfg->dram_latency > 0 ? (uint32_t)cfg->dram_latency : 0;
  o->write_latency = o->read_latency;
}

static int parse_u32(const char *key, const char *v, uint32_t *out, vta_error *err) {
  char *end;
  unsigned long long x = strtoull(v, &end, 0);
  if (!*v || *end || x > 1000000)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "rtl option %s=%s is not a number from 0 to 1000000", key, v);
  *out = (uint32_t)x;
  return VTA_OK;
}

#define RTL_OPTION_KEYS                                                                     \
  "latency, read_latency, write_latency, bandwidth, wave, wave_from, wave_to, watch, "       \
  "coverage, timeline, models, asserts"

int vta_rtl_options_parse(char *text, vta_rtl_options *o, vta_error *err) {
  if (!text) return VTA_OK;
  char *save = NULL;
  for (char *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "rtl option '%s' is not key=value (keys: " RTL_OPTION_KEYS ")", tok);
    *eq = '\0';
    const char *v = eq + 1;
    int rc = VTA_OK;
    if (strcmp(tok, "latency") == 0) {
      rc = parse_u32(tok, v, &o->read_latency, err);
      o->write_latency = o->read_latency;
    } else if (strcmp(tok, "read_latency") == 0) {
      rc = parse_u32(tok, v, &o->read_latency, err);
    } else if (strcmp(tok, "write_latency") == 0) {
      rc = parse_u32(tok, v, &o->write_latency, err);
    } else if (strcmp(tok, "bandwidth") == 0) {
      rc = parse_u32(tok, v, &o->bytes_per_cycle, err);
    } else if (strcmp(tok, "wave") == 0) {
      o->wave_path = v;
    } else if (strcmp(tok, "wave_from") == 0 || strcmp(tok, "wave_to") == 0 ||
               strcmp(tok, "watch") == 0) {
      char *end = NULL;
      unsigned long long x = strtoull(v, &end, 0);
      if (!*v || *end || *v == '-')
        rc = vta_error_set(err, VTA_ERR_INVALID, "rtl option %s: '%s' is not a number", tok, v);
      else if (tok[0] == 'w' && tok[1] == 'a' && tok[2] == 't')
        o->watch_addr = x;
      else if (strcmp(tok, "wave_from") == 0)
        o->wave_from = x;
      else
        o->wave_to = x;
    } else if (strcmp(tok, "coverage") == 0) {
      o->coverage_path = v;
    } else if (strcmp(tok, "timeline") == 0) {
      o->timeline_path = v;
    } else if (strcmp(tok, "models") == 0) {
      o->model_root = v;
    } else if (strcmp(tok, "asserts") == 0) {
      if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0)
        o->asserts_off = 0;
      else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
        o->asserts_off = 1;
      else
        rc = vta_error_set(err, VTA_ERR_INVALID, "rtl option asserts=%s: expected on or off", v);
    } else {
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "unknown rtl option '%s' (keys: " RTL_OPTION_KEYS ")", tok);
    }
    if (rc != VTA_OK) return rc;
  }
  return VTA_OK;
}

static const char *model_root(const char *given) {
  if (given && *given) return given;
  const char *env = getenv("VTA_RTL_MODELS");
  return env && *env ? env : VTA_RTL_MODEL_ROOT;
}

void vta_rtl_model_path(const vta_config *cfg, const char *root, char *buf, size_t n) {
  char key[160];
  vta_svgen_model_key(cfg, key, sizeof key);
  snprintf(buf, n, "%s/%s/libvta_rtl_model.so", model_root(root), key);
}

static int mem_check_cb(void *ctx, uint64_t phys, uint64_t len) {
  return vta_mem_check((vta_mem *)ctx, phys, len);
}


/* ---- Timelines ----
 * The model reports the design's activity per cycle (vta_rtl_sample, only when it changes); this
 * turns it into trace-event spans and counters (sim/trace). Tracks: fetch (one span per
 * instruction handed to a module), load, compute (micro-op and ACC loads, FINISH), GEMM, ALU,
 * store. Each module's busy cycles are cut at its instruction completions: the span(s) of an
 * instruction cover the module's busy cycles since the previous completion, so the spans of a
 * module's tracks add up to exactly its busy counter (with GEMM and ALU running side by side,
 * compute time goes to the instruction that retires, in program order). Runs of one simulator
 * follow each other on the same timeline. */
enum { TL_FETCH, TL_LOAD, TL_COMPUTE, TL_GEMM, TL_ALU, TL_STORE, TL_COUNT };
static const char *const k_tl_names[TL_COUNT] = {"fetch", "load", "compute (uop/acc loads, finish)",
                                                 "GEMM", "ALU", "store"};

typedef struct tl_seg { uint64_t b, e; } tl_seg;

typedef struct rtl_timeline {
  vta_trace *t;
  int track[TL_COUNT];
  const vta_config *cfg;
  const uint8_t *stream;
  uint32_t count, next_fetch;
  uint32_t *fifo[3];      /* per module: stream indices dispatched, not completed */
  size_t head[3], tail[3];
  int busy[3];
  uint64_t open[3];       /* start of the current busy stretch */
  tl_seg *pend[3];        /* busy stretches since the last completion */
  size_t npend[3], cpend[3];
  uint64_t offset;        /* cycles of the earlier runs */
  vta_rtl_sample last;
  int have_last, failed;
} rtl_timeline;

static int tl_module(const vta_insn *in) {
  return in->f[VTA_F_OPCODE] == VTA_OP_FINISH ? VTA_MOD_COMPUTE : (int)vta_insn_module(in);
}

static int tl_decode(const rtl_timeline *tl, uint32_t i, vta_insn *in) {
  vta_insn_word w;
  vta_insn_word_load(tl->stream + (size_t)i * VTA_INSN_BYTES, &w);
  return vta_insn_decode(tl->cfg, &w, in, NULL);
}

static void tl_pend(rtl_timeline *tl, int m, uint64_t b, uint64_t e) {
  if (e <= b) return;
  if (tl->npend[m] == tl->cpend[m]) {
    size_t c = tl->cpend[m] ? 2 * tl->cpend[m] : 8;
    tl_seg *x = realloc(tl->pend[m], c * sizeof *x);
    if (!x) {
      tl->failed = 1;
      return;
    }
    tl->pend[m] = x;
    tl->cpend[m] = c;
  }
  tl->pend[m][tl->npend[m]++] = (tl_seg){b, e};
}

/* Emits the pending stretches of module m as the spans of instruction idx (UINT32_MAX: none
 * completed). */
static void tl_flush(rtl_timeline *tl, int m, uint32_t idx) {
  char name[96], args[400], text[256] = "";
  int track = m == 0 ? TL_LOAD : m == 2 ? TL_STORE : TL_COMPUTE;
  vta_insn in;
  if (idx != UINT32_MAX && tl_decode(tl, idx, &in) == VTA_OK) {
    unsigned op = (unsigned)in.f[VTA_F_OPCODE];
    if (m == 1 && op == VTA_OP_GEMM) track = TL_GEMM;
    if (m == 1 && op == VTA_OP_ALU) track = TL_ALU;
    vta_insn_to_text(tl->cfg, &in, text, sizeof text);
    snprintf(name, sizeof name, "#%u %.60s", idx, text);
    char *sp = strchr(name + 1, ' ');
    if (sp && (sp = strchr(sp + 1, ' ')) && strncmp(text, "load", 4) == 0) {
      char *sp2 = strchr(sp + 1, ' ');
      if (sp2) *sp2 = 0; /* "#3 load memory_type=inp" */
    } else if (sp) {
      *sp = 0; /* "#4 gemm", "#9 store" */
    }
  } else {
    snprintf(name, sizeof name, "busy (no instruction completed)");
  }
  size_t k = 0;
  if (idx != UINT32_MAX) k = (size_t)snprintf(args, sizeof args, "\"index\": %u, \"insn\": \"", idx);
  for (const char *c = text; idx != UINT32_MAX && *c && k + 3 < sizeof args; c++) {
    if (*c == '"' || *c == '\\') args[k++] = '\\';
    args[k++] = *c;
  }
  if (idx != UINT32_MAX) snprintf(args + k, sizeof args - k, "\"");
  for (size_t p = 0; p < tl->npend[m]; p++)
    vta_trace_span(tl->t, tl->track[track], name, tl->offset + tl->pend[m][p].b,
                   tl->offset + tl->pend[m][p].e, idx != UINT32_MAX ? args : NULL);
  tl->npend[m] = 0;
}

static void tl_sample(void *ctx, const vta_rtl_sample *s) {
  rtl_timeline *tl = ctx;
  uint64_t c = s->cycle;
  if (s->dispatch && tl->next_fetch < tl->count) {
    uint32_t i = tl->next_fetch++;
    vta_insn in;
    int m = tl_decode(tl, i, &in) == VTA_OK ? tl_module(&in) : -1;
    if (m >= 0 && tl->tail[m] < tl->count) tl->fifo[m][tl->tail[m]++] = i;
    char name[32], text[256] = "", args[400];
    if (m >= 0) vta_insn_to_text(tl->cfg, &in, text, sizeof text);
    snprintf(name, sizeof name, "#%u", i);
    size_t k = (size_t)snprintf(args, sizeof args, "\"index\": %u, \"insn\": \"", i);
    for (const char *p = text; *p && k + 3 < sizeof args; p++) {
      if (*p == '"' || *p == '\\') args[k++] = '\\';
      args[k++] = *p;
    }
    snprintf(args + k, sizeof args - k, "\"");
    vta_trace_span(tl->t, tl->track[TL_FETCH], name, tl->offset + c, tl->offset + c + 1, args);
  }
  for (int m = 0; m < 3; m++) {
    int b = s->busy >> m & 1;
    if (!tl->busy[m] && b) tl->open[m] = c;
    if (tl->busy[m] && !b) tl_pend(tl, m, tl->open[m], c);
    if (s->done >> m & 1) {
      if (b) {
        tl_pend(tl, m, tl->open[m], c + 1);
        tl->open[m] = c + 1;
      }
      uint32_t idx = tl->head[m] < tl->tail[m] ? tl->fifo[m][tl->head[m]++] : UINT32_MAX;
      tl_flush(tl, m, idx);
    }
    tl->busy[m] = b;
  }
  static const char *const q[3] = {"queue: load commands", "queue: compute commands",
                                   "queue: store commands"};
  static const char *const tok[4] = {"tokens: load->compute", "tokens: compute->load",
                                     "tokens: compute->store", "tokens: store->compute"};
  for (int k = 0; k < 3; k++)
    if (!tl->have_last || s->queue[k] != tl->last.queue[k])
      vta_trace_counter(tl->t, q[k], tl->offset + c, s->queue[k]);
  for (int k = 0; k < 4; k++)
    if (!tl->have_last || s->tokens[k] != tl->last.tokens[k])
      vta_trace_counter(tl->t, tok[k], tl->offset + c, s->tokens[k]);
  if (!tl->have_last || s->rd_bytes != tl->last.rd_bytes)
    vta_trace_counter(tl->t, "AXI read bytes in flight", tl->offset + c, (double)s->rd_bytes);
  if (!tl->have_last || s->wr_bytes != tl->last.wr_bytes)
    vta_trace_counter(tl->t, "AXI write bytes in flight", tl->offset + c, (double)s->wr_bytes);
  tl->last = *s;
  tl->have_last = 1;
}

/* Before a run: the stream to name spans by. */
static int tl_begin(rtl_timeline *tl, const vta_config *cfg, const uint8_t *stream,
                    uint32_t count, vta_error *err) {
  tl->cfg = cfg;
  tl->stream = stream;
  tl->count = count;
  tl->next_fetch = 0;
  tl->have_last = 0;
  for (int m = 0; m < 3; m++) {
    free(tl->fifo[m]);
    tl->fifo[m] = malloc((count ? count : 1) * sizeof *tl->fifo[m]);
    tl->head[m] = tl->tail[m] = 0;
    tl->busy[m] = 0;
    tl->npend[m] = 0;
    if (!tl->fifo[m]) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory for the timeline");
  }
  return VTA_OK;
}

/* After a run of `cycles` cycles: busy stretches still open end with the run. */
static void tl_end(rtl_timeline *tl, uint64_t cycles) {
  for (int m = 0; m < 3; m++) {
    if (tl->busy[m]) tl_pend(tl, m, tl->open[m], cycles);
    tl->busy[m] = 0;
    if (tl->npend[m]) tl_flush(tl, m, UINT32_MAX);
  }
  tl->offset += cycles;
}

static void tl_free(rtl_timeline *tl) {
  if (!tl) return;
  for (int m = 0; m < 3; m++) {
    free(tl->fifo[m]);
    free(tl->pend[m]);
  }
  free(tl);
}

int vta_rtl_create(const vta_config *cfg, vta_mem *mem, const vta_rtl_options *opts,
                   vta_rtl **out, vta_error *err) {
  vta_rtl_options o;
  if (opts)
    o = *opts;
  else
    vta_rtl_options_default(cfg, &o);
  if (!o.wave_path) {
    const char *w = getenv("VTA_RTL_WAVE");
    if (w && *w) o.wave_path = w;
  }
  if (cfg->sc_given) {
    static const char *const sc_keys[] = {"SC_DRAM_BYTES_PER_CYCLE", "SC_DRAM_OUTSTANDING",
                                          "SC_DRAM_WRITE_LATENCY", "SC_ARBITRATION",
                                          "SC_GEMM_UOP_CYCLES", "SC_ALU_UOP_CYCLES"};
    unsigned k = (unsigned)__builtin_ctz(cfg->sc_given);
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "the configuration sets %s, a parameter of the SystemC model (sc "
                         "backend) that the RTL does not have",
                         k < sizeof sc_keys / sizeof sc_keys[0] ? sc_keys[k] : "an SC_ key");
  }
  /* Coverage needs the models built with it, which live in their own folder. */
  if (o.coverage_path && !(o.model_root && *o.model_root)) {
    const char *env = getenv("VTA_RTL_COV_MODELS");
    o.model_root = env && *env ? env : VTA_RTL_COV_MODEL_ROOT;
  }
  char path[4096], key[160];
  vta_rtl_model_path(cfg, o.model_root, path, sizeof path);
  vta_svgen_model_key(cfg, key, sizeof key);
  FILE *probe = fopen(path, "rb");
  if (!probe && o.coverage_path)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "no RTL model with coverage is built for this configuration (model %s): "
                         "run `make rtl-cov-models`, or `RTL_COVERAGE=1 scripts/rtl-model.sh "
                         "build/bin/vta-svgen <its .json> %s` (it builds %s)",
                         key, o.model_root, path);
  if (!probe)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "no RTL model is built for this configuration (model %s): run `make "
                         "rtl-model RTL_CONFIG=<its .json>` (it builds %s)",
                         key, path);
  fclose(probe);
  vta_rtl *r = calloc(1, sizeof *r);
  if (!r) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  r->cfg = *cfg;
  r->mem = mem;
  r->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!r->dl) {
    vta_error_set(err, VTA_ERR_UNSUPPORTED, "cannot load the RTL model %s: %s", path, dlerror());
    free(r);
    return VTA_ERR_UNSUPPORTED;
  }
  vta_rtl_model_entry_fn entry;
  *(void **)&entry = dlsym(r->dl, "vta_rtl_model_entry");
  r->api = entry ? entry() : NULL;
  if (!r->api || r->api->abi != VTA_RTL_MODEL_ABI || strcmp(r->api->key, key) != 0) {
    vta_error_set(err, VTA_ERR_UNSUPPORTED,
                  "%s is not a model of this configuration and build (expected model %s, ABI "
                  "%d): rebuild it with `make rtl-model`",
                  path, key, VTA_RTL_MODEL_ABI);
    dlclose(r->dl);
    free(r);
    return VTA_ERR_UNSUPPORTED;
  }
  vta_rtl_model_opts mo = {
      .mem_base = vta_mem_ptr(mem, 0),
      .mem_capacity = vta_mem_capacity(mem),
      .mem_ctx = mem,
      .mem_check = mem_check_cb,
      .read_latency = o.read_latency,
      .write_latency = o.write_latency,
      .bytes_per_cycle = o.bytes_per_cycle,
      .wave_path = o.wave_path,
      .wave_from = o.wave_from,
      .wave_to = o.wave_to,
      .watch_addr = o.watch_addr,
      .coverage_path = o.coverage_path,
      .asserts_off = o.asserts_off ? 1u : 0u,
  };
  if (o.timeline_path) {
    r->tl = calloc(1, sizeof *r->tl);
    int trc = r->tl ? vta_trace_create(o.timeline_path, "vta rtl", cfg->clock_mhz > 0 ? cfg->clock_mhz : 100.0,
                                       &r->tl->t, err)
                    : vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    for (int k = 0; trc == VTA_OK && k < TL_COUNT; k++)
      r->tl->track[k] = vta_trace_track(r->tl->t, k_tl_names[k]);
    if (trc != VTA_OK) {
      tl_free(r->tl);
      dlclose(r->dl);
      free(r);
      return trc;
    }
    mo.sample = tl_sample;
    mo.sample_ctx = r->tl;
  }
  char msg[512] = "";
  r->model = r->api->create(&mo, msg, sizeof msg);
  if (!r->model) {
    vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s", msg);
    if (r->tl) vta_trace_abandon(r->tl->t);
    tl_free(r->tl);
    dlclose(r->dl);
    free(r);
    return VTA_ERR_UNSUPPORTED;
  }
  *out = r;
  return VTA_OK;
}

int vta_rtl_timeline_close(vta_rtl *r, vta_error *err) {
  if (!r->tl) return VTA_OK;
  int rc = r->tl->failed ? vta_error_set(err, VTA_ERR_NOMEM, "out of memory for the timeline")
                         : VTA_OK;
  if (rc == VTA_OK) rc = vta_trace_close(r->tl->t, err);
  else vta_trace_abandon(r->tl->t);
  tl_free(r->tl);
  r->tl = NULL;
  return rc;
}

uint64_t vta_rtl_timeline_busy(const vta_rtl *r, vta_module m) {
  if (!r->tl) return 0;
  if (m == VTA_MOD_LOAD) return vta_trace_busy(r->tl->t, r->tl->track[TL_LOAD]);
  if (m == VTA_MOD_STORE) return vta_trace_busy(r->tl->t, r->tl->track[TL_STORE]);
  return vta_trace_busy(r->tl->t, r->tl->track[TL_COMPUTE]) +
         vta_trace_busy(r->tl->t, r->tl->track[TL_GEMM]) +
         vta_trace_busy(r->tl->t, r->tl->track[TL_ALU]);
}

void vta_rtl_destroy(vta_rtl *r) {
  if (!r) return;
  vta_rtl_timeline_close(r, NULL);
  r->api->destroy(r->model);
  dlclose(r->dl);
  free(r->prog);
  free(r);
}

uint64_t vta_rtl_last_sim_cycles(const vta_rtl *r) { return r->last_sim_cycles; }
uint64_t vta_rtl_last_dual_cycles(const vta_rtl *r) { return r->last_dual_cycles; }
uint64_t vta_rtl_last_watch_cycle(const vta_rtl *r) { return r->last_watch_cycle; }

/* ---- checks before the run (the same rules and words as fsim) ---- */

static int insn_fail(const vta_rtl *r, vta_error *err, int status, uint32_t i, const vta_insn *in,
                     const char *what) {
  char text[256] = "?";
  if (in) vta_insn_to_text(&r->cfg, in, text, sizeof text);
  return vta_error_set(err, status, "instruction %u (%s): %s", i, text, what);
}

static int check_dma(vta_rtl *r, uint32_t i, const vta_insn *in, vta_error *err) {
  const int64_t *f = in->f;
  unsigned t = (unsigned)f[VTA_F_MEMORY_TYPE];
  int is_store = f[VTA_F_OPCODE] == VTA_OP_STORE;
  if (!is_store && (t == VTA_MEM_OUT || t >= VTA_MEM_COUNT))
    return insn_fail(r, err, VTA_ERR_INVALID, i, in, "this memory_type cannot be loaded");
  if (is_store && t != VTA_MEM_OUT)
    return insn_fail(r, err, VTA_ERR_INVALID, i, in, "a STORE must read the OUT buffer");
  uint64_t x = (uint64_t)f[VTA_F_X_SIZE], y = (uint64_t)f[VTA_F_Y_SIZE];
  if (x == 0 || (is_store && y == 0)) return VTA_OK;
  unsigned b = t == VTA_MEM_ACC_8BIT ? VTA_MEM_ACC : t;
  uint64_t xt = is_store ? x : (uint64_t)f[VTA_F_X_PAD_0] + x + (uint64_t)f[VTA_F_X_PAD_1];
  uint64_t rows = is_store ? y : (uint64_t)f[VTA_F_Y_PAD_0] + y + (uint64_t)f[VTA_F_Y_PAD_1];
  uint64_t sram = (uint64_t)f[VTA_F_SRAM_BASE];
  char msg[400];
  if (sram + xt * rows > r->cfg.depth[b]) {
    static const char *const names[VTA_MEM_COUNT] = {"UOP", "WGT", "INP", "ACC", "OUT", "ACC"};
    snprintf(msg, sizeof msg,
             "%s %s buffer elements %" PRIu64 " to %" PRIu64 " but its depth is %u",
             is_store ? "store reads" : "load writes", names[b], sram, sram + xt * rows - 1,
             r->cfg.depth[b]);
    return insn_fail(r, err, VTA_ERR_BOUNDS, i, in, msg);
  }
  uint64_t eb = r->cfg.elem_bytes[t];
  for (uint64_t row = 0; row < y; row++) {
    uint64_t a = ((uint64_t)f[VTA_F_DRAM_BASE] + row * (uint64_t)f[VTA_F_X_STRIDE]) * eb;
    if (!vta_mem_check(r->mem, a, x * eb)) {
      char where[160];
      vta_mem_describe(r->mem, a, where, sizeof where);
      snprintf(msg, sizeof msg,
               "DMA %s row %" PRIu64 " of %" PRIu64 " bytes at physical address 0x%" PRIx64
               " is outside the allocated device memory (%s)",
               is_store ? "write of" : "read of", row, x * eb, a, where);
      return insn_fail(r, err, VTA_ERR_BOUNDS, i, in, msg);
    }
  }
  return VTA_OK;
}

static int check_stream(vta_rtl *r, uint64_t insn_phys, uint32_t count, vta_stats *st,
                        vta_error *err) {
  if (count == 0)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the instruction stream is empty: it must end with a FINISH");
  uint64_t bytes = (uint64_t)count * VTA_INSN_BYTES;
  if (!vta_mem_check(r->mem, insn_phys, bytes)) {
    char where[160];
    vta_mem_describe(r->mem, insn_phys, where, sizeof where);
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "fetch of %u instructions (%" PRIu64 " bytes) at physical address 0x%" PRIx64
                         " is outside the allocated device memory (%s)",
                         count, bytes, insn_phys, where);
  }
  const uint8_t *base = vta_mem_ptr(r->mem, insn_phys);
  for (uint32_t i = 0; i < count; i++) {
    vta_insn_word w;
    vta_insn in;
    vta_error e;
    vta_insn_word_load(base + (size_t)i * VTA_INSN_BYTES, &w);
    /* Named as fsim names them: the text of the instruction, or its word if it has none. */
    if (vta_insn_decode(&r->cfg, &w, &in, &e) != VTA_OK)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "instruction %u (word 0x%016" PRIx64 "%016" PRIx64 "): %s", i, w.w[1],
                           w.w[0], e.msg);
    if (vta_insn_check(&r->cfg, &in, &e) != VTA_OK)
      return insn_fail(r, err, VTA_ERR_INVALID, i, &in, e.msg);
    unsigned op = (unsigned)in.f[VTA_F_OPCODE];
    if (op == VTA_OP_FINISH && (in.f[VTA_F_POP_PREV] || in.f[VTA_F_POP_NEXT]))
      return insn_fail(r, err, VTA_ERR_INVALID, i, &in,
                       "a FINISH may not pop a dependency token; put a compute no-op that pops "
                       "before it");
    if (op == VTA_OP_FINISH && i + 1 < count)
      return insn_fail(r, err, VTA_ERR_INVALID, i, &in,
                       "a FINISH must be the last instruction of the stream");
    if (op != VTA_OP_FINISH && i + 1 == count)
      return insn_fail(r, err, VTA_ERR_INVALID, i, &in, "the stream ends without a FINISH");
    if (op == VTA_OP_LOAD || op == VTA_OP_STORE) {
      int rc = check_dma(r, i, &in, err);
      if (rc != VTA_OK) return rc;
      uint64_t moved = (uint64_t)in.f[VTA_F_X_SIZE] * (uint64_t)in.f[VTA_F_Y_SIZE] *
                       r->cfg.elem_bytes[in.f[VTA_F_MEMORY_TYPE]];
      if (op == VTA_OP_LOAD)
        st->bytes_read[in.f[VTA_F_MEMORY_TYPE]] += moved;
      else
        st->bytes_written[VTA_MEM_OUT] += moved;
    }
    st->insns_by_opcode[op]++;
  }
  st->insns = count;
  st->insn_bytes = bytes;
  return VTA_OK;
}

int vta_rtl_run(vta_rtl *r, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                vta_stats *stats, vta_error *err) {
  vta_stats st;
  memset(&st, 0, sizeof st);
  int rc = check_stream(r, insn_phys, count, &st, err);
  if (rc != VTA_OK) return rc;
  vta_rtl_result res;
  char msg[VTA_ERROR_MSG_MAX - 64] = "";
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (r->tl) {
    rc = tl_begin(r->tl, &r->cfg, vta_mem_ptr(r->mem, insn_phys), count, err);
    if (rc != VTA_OK) return rc;
  }
  /* The limit is the caller's (the device layer passes its default); 0 runs to completion. */
  rc = r->api->run(r->model, insn_phys, count, timeout ? timeout : UINT64_MAX, &res, msg,
                   sizeof msg);
  if (r->tl) tl_end(r->tl, res.counters[VTA_RTL_CNT_CYCLES]);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  r->last_sim_cycles = res.sim_cycles;
  r->last_dual_cycles = res.counters[VTA_RTL_CNT_DUAL];
  r->last_watch_cycle = res.watch_cycle;
  const uint64_t *c = res.counters;
  st.cycles = c[VTA_RTL_CNT_CYCLES];
  for (int m = 0; m < VTA_MOD_COUNT; m++) {
    st.busy_cycles[m] = c[VTA_RTL_CNT_BUSY_LOAD + m];
    st.stall_cycles[m] = c[VTA_RTL_CNT_STALL_LOAD + m];
    st.insns_by_module[m] = c[VTA_RTL_CNT_INSNS_LOAD + m];
  }
  st.gemm_uops = c[VTA_RTL_CNT_GEMM_UOPS];
  st.alu_uops = c[VTA_RTL_CNT_ALU_UOPS];
  st.uops = st.gemm_uops + st.alu_uops;
  st.macs = c[VTA_RTL_CNT_MAC_UOPS] * r->cfg.macs_per_cycle;
  st.wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  /* The RTL says which configuration it was built for (the CONFIG_ID register). */
  if (rc == VTA_OK && res.config_id != vta_regmap_config_id(&r->cfg)) {
    char key[160];
    vta_svgen_model_key(&r->cfg, key, sizeof key);
    snprintf(msg, sizeof msg,
             "the RTL's CONFIG_ID register reads 0x%08x but configuration %s has 0x%08x: the model "
             "was built for another configuration",
             res.config_id, key, vta_regmap_config_id(&r->cfg));
    rc = VTA_ERR_UNSUPPORTED;
  }
  if (rc != VTA_OK) {
    /* A failed run executed an unknown part of the program: keep only what was measured. */
    st.insns = st.insns_by_module[0] + st.insns_by_module[1] + st.insns_by_module[2];
    memset(st.insns_by_opcode, 0, sizeof st.insns_by_opcode);
    memset(st.bytes_read, 0, sizeof st.bytes_read);
    memset(st.bytes_written, 0, sizeof st.bytes_written);
    vta_error_set(err, rc, "%s", msg);
  }
  if (stats) vta_stats_add(stats, &st);
  return rc;
}
