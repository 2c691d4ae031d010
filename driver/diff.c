/* diff.c - one differential case against fsim (see diff.h).
 *
 * The design idea: the program is built once, in the reference memory, by the generators of
 * sim/gen, and the device under test receives a byte copy of each allocation at the same
 * physical address. Nothing about the program is rebuilt per backend, so whatever differs after
 * the run was done by the backend. The comparison covers every allocation of the program (data,
 * micro-ops, the stream itself): a backend that writes where it should not is caught as well as
 * one that writes a wrong value.
 */
#include "driver/diff.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/backends.h"
#include "driver/mem_backend.h"
#include "sim/fsim/fsim.h"
#include "sim/gen/cfg.h"
#include "sim/gen/conc.h"
#include "sim/gen/prog.h"
#include "sim/mem/mem.h"
#include "vta/device.h"
#include "vta/isa.h"
#ifdef VTA_HAVE_RTL
#include "sim/rtl/rtl.h"
#endif

/* Device cycles (fsim: steps) a case may take. The longest generated programs take about 60,000
 * cycles on the slowest memory setting of the tests; a hang is caught quickly. */
#define DIFF_TIMEOUT 4000000ull

static const char *const k_names[VTA_DIFF_W_COUNT] = {
#define VTA_X_(id, name, what) name,
    VTA_DIFF_WORKLOADS(VTA_X_)
#undef VTA_X_
};
static const char *const k_what[VTA_DIFF_W_COUNT] = {
#define VTA_X_(id, name, what) what,
    VTA_DIFF_WORKLOADS(VTA_X_)
#undef VTA_X_
};
_Static_assert(sizeof k_names / sizeof k_names[0] == VTA_DIFF_W_COUNT, "one name per workload");

const char *vta_diff_workload_name(vta_diff_workload w) {
  return (unsigned)w < VTA_DIFF_W_COUNT ? k_names[w] : "?";
}
const char *vta_diff_workload_what(vta_diff_workload w) {
  return (unsigned)w < VTA_DIFF_W_COUNT ? k_what[w] : "?";
}
int vta_diff_workload_find(const char *name) {
  for (int w = 0; w < VTA_DIFF_W_COUNT; w++)
    if (strcmp(k_names[w], name) == 0) return w;
  return -1;
}

int vta_diff_workload_generated(vta_diff_workload w) {
  return w == VTA_DIFF_W_RANDOM || w == VTA_DIFF_W_CONC;
}

struct vta_diff {
  vta_config cfg;
  vta_mem *ref;
  vta_fsim *fsim;
  vta_device *dev;
  int inject;
  uint64_t inject_offset;
};

/* A built program: the stream to run and every allocation it made. */
typedef struct diff_prog {
  uint64_t insn;
  uint32_t count;
  uint64_t data, data_bytes;
  uint64_t alloc[4], alloc_bytes[4];
  int nalloc;
} diff_prog;

/* The instruction count of a seed's program: varied with the seed, as the tests do, and now
 * and then a long concurrent one (deep token queues). */
static uint32_t prog_size(vta_diff_workload w, uint64_t seed) {
  if (w == VTA_DIFF_W_RANDOM) return 10 + (uint32_t)(seed % 50);
  uint32_t n = 20 + (uint32_t)(seed % 90);
  return seed % 16 == 0 ? 4 * n : n;
}

static void prog_free(vta_mem *mem, diff_prog *p) {
  for (int i = 0; i < p->nalloc; i++) vta_mem_free(mem, p->alloc[i]);
  p->nalloc = 0;
}

static void add_alloc(vta_mem *mem, diff_prog *p, uint64_t phys) {
  uint64_t base = 0, size = 0;
  if (vta_mem_find(mem, phys, &base, &size) && p->nalloc < 4) {
    p->alloc[p->nalloc] = base;
    p->alloc_bytes[p->nalloc++] = size;
  }
}

/* Builds the program of (w, seed) into mem. Returns 0, or -1 with the reason in msg. */
static int prog_build(const vta_config *cfg, vta_mem *mem, vta_diff_workload w, uint64_t seed,
                      diff_prog *p, char *msg, size_t n) {
  memset(p, 0, sizeof *p);
  uint32_t size = prog_size(w, seed);
  if (w == VTA_DIFF_W_RANDOM) {
    fp_random r;
    if (fp_random_build(cfg, seed, size, mem, &r) != 0) {
      snprintf(msg, n, "random program %llu does not build", (unsigned long long)seed);
      return -1;
    }
    add_alloc(mem, p, r.data);
    add_alloc(mem, p, r.insn);
    if (fp_serialize(cfg, mem, r.insn, r.count, &p->insn, &p->count) != 0) {
      prog_free(mem, p);
      snprintf(msg, n, "random program %llu does not serialise", (unsigned long long)seed);
      return -1;
    }
    add_alloc(mem, p, p->insn);
    p->data = r.data;
    p->data_bytes = r.data_bytes;
    return 0;
  }
  cp_program c;
  char why[400];
  if (cp_build(cfg, seed, size, mem, &c, why, sizeof why) != 0) {
    snprintf(msg, n, "concurrent program %llu does not build: %s", (unsigned long long)seed, why);
    return -1;
  }
  add_alloc(mem, p, c.data);
  add_alloc(mem, p, c.insn);
  p->insn = c.insn;
  p->count = c.count;
  p->data = c.data;
  p->data_bytes = c.data_bytes;
  if (cp_check(cfg, mem, c.insn, c.count, c.data, c.data_bytes, why, sizeof why) != 0) {
    prog_free(mem, p);
    snprintf(msg, n, "the generator made a racy program (seed %llu): %s",
             (unsigned long long)seed, why);
    return -1;
  }
  return 0;
}

/* The last STORE of the stream (count instructions at s) writing byte `addr`: its index, or -1. */
static int64_t stream_last_writer(const vta_config *cfg, const uint8_t *s, uint32_t count,
                                  uint64_t addr, char *text, size_t n) {
  uint64_t eb = cfg->elem_bytes[VTA_MEM_OUT];
  int64_t found = -1;
  vta_insn hit;
  for (uint32_t i = 0; s && i < count; i++) {
    vta_insn_word w;
    vta_insn in;
    vta_insn_word_load(s + (size_t)i * VTA_INSN_BYTES, &w);
    if (vta_insn_decode(cfg, &w, &in, NULL) != VTA_OK) continue;
    if (in.f[VTA_F_OPCODE] != VTA_OP_STORE) continue;
    uint64_t base = (uint64_t)in.f[VTA_F_DRAM_BASE] * eb;
    if (addr < base) continue;
    uint64_t off = (addr - base) / eb, stride = (uint64_t)in.f[VTA_F_X_STRIDE];
    uint64_t y = stride ? off / stride : 0, x = stride ? off % stride : off;
    if (y < (uint64_t)in.f[VTA_F_Y_SIZE] && x < (uint64_t)in.f[VTA_F_X_SIZE]) {
      found = i;
      hit = in;
    }
  }
  if (found >= 0 && vta_insn_to_text(cfg, &hit, text, n) < 0) snprintf(text, n, "?");
  if (found < 0) snprintf(text, n, "no instruction of the stream stores to this address");
  return found;
}

static int64_t last_writer(const vta_config *cfg, vta_mem *mem, const diff_prog *p, uint64_t addr,
                           char *text, size_t n) {
  return stream_last_writer(cfg, vta_mem_ptr(mem, p->insn), p->count, addr, text, n);
}

int vta_diff_config_load(const char *spec, vta_config *cfg, vta_error *err) {
  uint64_t seed;
  int g = gen_config_name(spec, &seed, err);
  if (g < 0) return VTA_ERR_INVALID;
  return g ? gen_config(seed, cfg, err) : vta_config_load(cfg, spec, err);
}

int vta_diff_open(const char *config_path, const char *backend, const char *options,
                  vta_diff **out, vta_error *err) {
  vta_diff *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int rc = vta_diff_config_load(config_path, &d->cfg, err);
  if (rc == VTA_OK) rc = vta_mem_create(0, &d->ref, err);
  if (rc == VTA_OK) rc = vta_fsim_create(&d->cfg, d->ref, &d->fsim, err);
  if (rc == VTA_OK) rc = vta_device_open(backend, &d->cfg, options, &d->dev, err);
  if (rc == VTA_OK && !vta_device_backend(d->dev)->mem_alloc_at)
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                       "%s backend cannot allocate at a fixed address, which the regression "
                       "needs to run a program built for fsim unchanged",
                       backend);
  if (rc != VTA_OK) {
    vta_diff_close(d);
    return rc;
  }
  *out = d;
  return VTA_OK;
}

void vta_diff_close(vta_diff *d) {
  if (!d) return;
  vta_device_close(d->dev);
  vta_fsim_destroy(d->fsim);
  vta_mem_destroy(d->ref);
  free(d);
}

const vta_config *vta_diff_config(const vta_diff *d) { return &d->cfg; }

void vta_diff_inject_fault(vta_diff *d, uint64_t offset) {
  d->inject = 1;
  d->inject_offset = offset;
}

/* The counters both backends keep. Returns the name of the first that differs, or NULL. */
static const char *stats_differ(const vta_stats *a, const vta_stats *b, uint64_t *x,
                                uint64_t *y) {
#define CMP_(field, name)                                                                      \
  if (a->field != b->field) {                                                                  \
    *x = a->field;                                                                             \
    *y = b->field;                                                                             \
    return name;                                                                               \
  }
  CMP_(insns, "instructions")
  CMP_(insns_by_module[VTA_MOD_LOAD], "load instructions")
  CMP_(insns_by_module[VTA_MOD_COMPUTE], "compute instructions")
  CMP_(insns_by_module[VTA_MOD_STORE], "store instructions")
  CMP_(gemm_uops, "GEMM micro-ops")
  CMP_(alu_uops, "ALU micro-ops")
  CMP_(macs, "MACs")
#undef CMP_
  return NULL;
}

int vta_diff_run(vta_diff *d, vta_diff_workload w, uint64_t seed, vta_diff_result *r) {
  memset(r, 0, sizeof *r);
  r->insn_index = -1;
  const char *be = vta_device_backend(d->dev)->name;
  diff_prog p;
  if (!vta_diff_workload_generated(w)) {
    r->outcome = VTA_DIFF_ERROR;
    snprintf(r->message, sizeof r->message,
             "workload %s is not a generated program: it runs on the diff backend "
             "(vta regress does this)",
             vta_diff_workload_name(w));
    return VTA_OK;
  }
  if (prog_build(&d->cfg, d->ref, w, seed, &p, r->message, sizeof r->message) != 0) {
    r->outcome = VTA_DIFF_ERROR;
    return VTA_OK;
  }
  r->insns = p.count;
  vta_error err;
  int rc = VTA_OK, placed = 0;
  for (int i = 0; i < p.nalloc && rc == VTA_OK; i++) {
    rc = vta_device_alloc_at(d->dev, p.alloc[i], p.alloc_bytes[i], &err);
    if (rc == VTA_OK) placed++;
    if (rc == VTA_OK)
      rc = vta_device_copy_to(d->dev, p.alloc[i], vta_mem_ptr(d->ref, p.alloc[i]),
                              p.alloc_bytes[i], &err);
  }
  uint8_t *got = NULL;
  vta_stats st[2];
  memset(st, 0, sizeof st);
  if (rc != VTA_OK) {
    r->outcome = VTA_DIFF_ERROR;
    snprintf(r->message, sizeof r->message, "%s: placing the program: %s", be, err.msg);
  } else if (vta_fsim_run(d->fsim, p.insn, p.count, DIFF_TIMEOUT, &st[0], &err) != VTA_OK) {
    r->outcome = VTA_DIFF_ERROR;
    snprintf(r->message, sizeof r->message, "fsim (the reference): %s", err.msg);
  } else if (vta_device_run(d->dev, p.insn, p.count, DIFF_TIMEOUT, &st[1], &err) != VTA_OK) {
    r->outcome = VTA_DIFF_ERROR;
    snprintf(r->message, sizeof r->message, "%s", err.msg);
  } else {
    r->cycles = st[1].cycles;
    if (d->inject) {
      /* The first byte the program's last STORE writes, as a wrong store would leave it
       * (the offset into the data when the program stores nothing). */
      uint8_t b;
      uint64_t a = p.data + d->inject_offset % (p.data_bytes ? p.data_bytes : 1);
      const uint8_t *s = vta_mem_ptr(d->ref, p.insn);
      for (uint32_t i = 0; i < p.count; i++) {
        vta_insn_word iw;
        vta_insn in;
        vta_insn_word_load(s + (size_t)i * VTA_INSN_BYTES, &iw);
        if (vta_insn_decode(&d->cfg, &iw, &in, NULL) == VTA_OK &&
            in.f[VTA_F_OPCODE] == VTA_OP_STORE)
          a = (uint64_t)in.f[VTA_F_DRAM_BASE] * d->cfg.elem_bytes[VTA_MEM_OUT];
      }
      if (vta_device_copy_from(d->dev, &b, a, 1, &err) == VTA_OK) {
        b ^= 1;
        vta_device_copy_to(d->dev, a, &b, 1, &err);
      }
      d->inject = 0;
    }
    r->outcome = VTA_DIFF_PASS;
    for (int i = 0; i < p.nalloc && r->outcome == VTA_DIFF_PASS; i++) {
      free(got);
      got = malloc(p.alloc_bytes[i] ? p.alloc_bytes[i] : 1);
      if (!got) {
        r->outcome = VTA_DIFF_ERROR;
        snprintf(r->message, sizeof r->message, "out of memory reading back %llu bytes",
                 (unsigned long long)p.alloc_bytes[i]);
        break;
      }
      if (vta_device_copy_from(d->dev, got, p.alloc[i], p.alloc_bytes[i], &err) != VTA_OK) {
        r->outcome = VTA_DIFF_ERROR;
        snprintf(r->message, sizeof r->message, "%s: reading back: %s", be, err.msg);
        break;
      }
      const uint8_t *want = vta_mem_ptr(d->ref, p.alloc[i]);
      for (uint64_t k = 0; k < p.alloc_bytes[i]; k++)
        if (want[k] != got[k]) {
          r->outcome = VTA_DIFF_FAIL;
          r->has_addr = 1;
          r->addr = p.alloc[i] + k;
          r->want = want[k];
          r->got = got[k];
          r->insn_index = last_writer(&d->cfg, d->ref, &p, r->addr, r->disasm, sizeof r->disasm);
          snprintf(r->message, sizeof r->message,
                   "device memory differs at 0x%llx (byte %llu of the allocation at 0x%llx): "
                   "fsim 0x%02x, %s 0x%02x",
                   (unsigned long long)r->addr, (unsigned long long)k,
                   (unsigned long long)p.alloc[i], want[k], be, got[k]);
          break;
        }
    }
    uint64_t x = 0, y = 0;
    const char *what = r->outcome == VTA_DIFF_PASS ? stats_differ(&st[0], &st[1], &x, &y) : NULL;
    if (what) {
      r->outcome = VTA_DIFF_FAIL;
      snprintf(r->message, sizeof r->message, "%s differ: fsim %llu, %s %llu", what,
               (unsigned long long)x, be, (unsigned long long)y);
    }
  }
  free(got);
  for (int i = 0; i < placed; i++) vta_device_free(d->dev, p.alloc[i]);
  prog_free(d->ref, &p);
  return VTA_OK;
}

int vta_diff_wave(const char *config_path, const char *options, vta_diff_workload w,
                  uint64_t first_seed, uint64_t seed, uint64_t addr, uint64_t window,
                  const char *wave_path, uint64_t *cycle, vta_error *err) {
#ifndef VTA_HAVE_RTL
  (void)config_path; (void)options; (void)w; (void)first_seed; (void)seed; (void)addr;
  (void)window; (void)wave_path; (void)cycle;
  return vta_error_set(err, VTA_ERR_UNSUPPORTED, "the rtl backend is not built");
#else
  vta_config cfg;
  int rc = vta_diff_config_load(config_path, &cfg, err);
  if (rc != VTA_OK) return rc;
  *cycle = 0;
  /* Pass 1 watches the address; pass 2 records the window around its last write. */
  for (int pass = 0; pass < 2 && rc == VTA_OK; pass++) {
    vta_rtl_options o;
    vta_rtl_options_default(&cfg, &o);
    char *text = options ? strdup(options) : NULL;
    if (options && !text) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    rc = vta_rtl_options_parse(text, &o, err);
    if (pass == 0) {
      o.wave_path = NULL;
      o.watch_addr = addr;
    } else {
      o.wave_path = wave_path;
      o.wave_from = *cycle > window ? *cycle - window : 0;
      o.wave_to = (*cycle > window ? *cycle : window) + window;
    }
    vta_mem *mem = NULL;
    vta_rtl *sim = NULL;
    char msg[512];
    if (rc == VTA_OK) rc = vta_mem_create(0, &mem, err);
    if (rc == VTA_OK) rc = vta_rtl_create(&cfg, mem, &o, &sim, err);
    /* The session's earlier cases first, as vta_diff_run placed and freed them: the on-chip
     * buffers and the accelerator's registers carry over from run to run, and a case may fail
     * only after them. Cycles count from the model's reset, so the window still falls on the
     * last run. */
    for (uint64_t s = first_seed <= seed ? first_seed : seed; rc == VTA_OK && s <= seed; s++) {
      diff_prog p;
      if (prog_build(&cfg, mem, w, s, &p, msg, sizeof msg) != 0) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s", msg);
        break;
      }
      /* The case may fail here too (that is why it is rerun): the waveform is what matters. */
      vta_error run_err;
      vta_rtl_run(sim, p.insn, p.count, DIFF_TIMEOUT, NULL, &run_err);
      if (pass == 0 && s == seed) *cycle = vta_rtl_last_watch_cycle(sim);
      prog_free(mem, &p);
    }
    vta_rtl_destroy(sim);
    vta_mem_destroy(mem);
    free(text);
  }
  return rc;
#endif
}

/* ---- The diff backend: fsim and another backend in lockstep, run by run ----
 *
 * Whatever a workload does through the device interface (the runtime JIT, a compiled model, a
 * benchmark) happens in this backend's memory, which is fsim's. At each run, every allocation
 * of that memory is mirrored onto the backend under test at the same physical address (freed
 * and placed anew, so the two hold the same allocations byte for byte), the stream runs on both,
 * and every byte of every allocation is compared, as are the counters both keep. The caller
 * reads fsim's results; a difference fails the run with the address, the values, the run's
 * number and the last STORE of the stream that writes the address. */

typedef struct lock_dev {
  vta_mem_dev base; /* first: the memory slots read it; this is fsim's memory */
  vta_fsim *sim;
  vta_config cfg;
  vta_device *dut;
  char dut_spec[256];
  uint64_t *placed; /* allocations placed on the device under test */
  size_t nplaced, cap;
  uint64_t runs;
  uint64_t inject_run; /* test hook: after this run, flip a bit of the copy under test */
} lock_dev;
_Static_assert(offsetof(lock_dev, base) == 0, "mem_backend.h needs the vta_mem_dev first");

static void lock_unplace(lock_dev *d) {
  for (size_t i = 0; i < d->nplaced; i++) vta_device_free(d->dut, d->placed[i]);
  d->nplaced = 0;
}

static void lock_close(void *state) {
  lock_dev *d = state;
  if (!d) return;
  if (d->dut) {
    lock_unplace(d);
    vta_device_close(d->dut);
  }
  free(d->placed);
  vta_fsim_destroy(d->sim);
  vta_mem_destroy(d->base.mem);
  free(d);
}

static int lock_open(const vta_config *cfg, const char *options, void **state, vta_error *err) {
  if (!options || !*options)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the diff backend needs the backend to check as its options: NAME or "
                         "NAME@OPTIONS, e.g. rtl or rtl@latency=1,bandwidth=3");
  char name[64];
  uint64_t inject = 0;
  if (strncmp(options, "inject=", 7) == 0) {
    char *end;
    inject = strtoull(options + 7, &end, 10);
    if (end == options + 7 || *end != ':' || inject == 0)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "diff backend options '%s': inject=RUN:BACKEND with RUN from 1",
                           options);
    options = end + 1;
  }
  const char *at = strchr(options, '@');
  size_t len = at ? (size_t)(at - options) : strlen(options);
  if (len == 0 || len >= sizeof name)
    return vta_error_set(err, VTA_ERR_INVALID, "diff backend options '%s': no backend name",
                         options);
  memcpy(name, options, len);
  name[len] = 0;
  if (strcmp(name, "diff") == 0)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the diff backend cannot check itself (options '%s')", options);
  lock_dev *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  d->cfg = *cfg;
  d->inject_run = inject;
  snprintf(d->dut_spec, sizeof d->dut_spec, "%s", options);
  int rc = vta_mem_create(0, &d->base.mem, err);
  if (rc == VTA_OK) rc = vta_fsim_create(&d->cfg, d->base.mem, &d->sim, err);
  if (rc == VTA_OK) rc = vta_device_open(name, &d->cfg, at ? at + 1 : NULL, &d->dut, err);
  if (rc == VTA_OK && !vta_device_backend(d->dut)->mem_alloc_at)
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                       "%s backend cannot allocate at a fixed address, which the diff backend "
                       "needs to mirror fsim's memory",
                       name);
  if (rc != VTA_OK) {
    lock_close(d);
    return rc;
  }
  *state = d;
  return VTA_OK;
}

/* Places every allocation of fsim's memory on the device under test, with its bytes. */
static int lock_mirror(lock_dev *d, vta_error *err) {
  lock_unplace(d);
  uint64_t base, size;
  for (size_t i = 0; vta_mem_region(d->base.mem, i, &base, &size); i++) {
    if (d->nplaced == d->cap) {
      size_t cap = d->cap ? 2 * d->cap : 64;
      uint64_t *p = realloc(d->placed, cap * sizeof *p);
      if (!p) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      d->placed = p;
      d->cap = cap;
    }
    int rc = vta_device_alloc_at(d->dut, base, size, err);
    if (rc != VTA_OK) return rc;
    d->placed[d->nplaced++] = base;
    rc = vta_device_copy_to(d->dut, base, vta_mem_ptr(d->base.mem, base), size, err);
    if (rc != VTA_OK) return rc;
  }
  return VTA_OK;
}

static int lock_run(void *state, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                    vta_stats *stats, vta_error *err) {
  lock_dev *d = state;
  const char *be = vta_device_backend(d->dut)->name;
  uint64_t run = ++d->runs;
  vta_stats st[2];
  memset(st, 0, sizeof st);
  int rc = lock_mirror(d, err);
  if (rc != VTA_OK) {
    vta_error_prefix(err, "run %llu: placing fsim's memory on %s", (unsigned long long)run, be);
    return rc;
  }
  /* The stream as it was before the run (a run may overwrite its own stream). */
  uint8_t *stream = malloc((size_t)count * VTA_INSN_BYTES);
  if (!stream) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  if (vta_mem_check(d->base.mem, insn_phys, (uint64_t)count * VTA_INSN_BYTES))
    memcpy(stream, vta_mem_ptr(d->base.mem, insn_phys), (size_t)count * VTA_INSN_BYTES);
  else
    memset(stream, 0, (size_t)count * VTA_INSN_BYTES);
  rc = vta_fsim_run(d->sim, insn_phys, count, timeout, &st[0], err);
  if (rc != VTA_OK) {
    vta_error_prefix(err, "run %llu on fsim (the reference)", (unsigned long long)run);
    free(stream);
    return rc;
  }
  rc = vta_device_run(d->dut, insn_phys, count, timeout, &st[1], err);
  if (rc != VTA_OK) {
    vta_error_prefix(err, "run %llu", (unsigned long long)run);
    free(stream);
    return rc;
  }
  if (run == d->inject_run) {
    /* The first byte the stream's last STORE writes (else the first allocated byte), as a
     * wrong store would leave it. */
    uint64_t a = 0, sz;
    vta_mem_region(d->base.mem, 0, &a, &sz);
    for (uint32_t i = 0; i < count; i++) {
      vta_insn_word iw;
      vta_insn in;
      vta_insn_word_load(stream + (size_t)i * VTA_INSN_BYTES, &iw);
      if (vta_insn_decode(&d->cfg, &iw, &in, NULL) == VTA_OK &&
          in.f[VTA_F_OPCODE] == VTA_OP_STORE)
        a = (uint64_t)in.f[VTA_F_DRAM_BASE] * d->cfg.elem_bytes[VTA_MEM_OUT];
    }
    uint8_t b;
    vta_error e;
    if (vta_device_copy_from(d->dut, &b, a, 1, &e) == VTA_OK) {
      b ^= 1;
      vta_device_copy_to(d->dut, a, &b, 1, &e);
    }
  }
  uint8_t *got = NULL;
  uint64_t base, size, x = 0, y = 0;
  for (size_t i = 0; rc == VTA_OK && vta_mem_region(d->base.mem, i, &base, &size); i++) {
    free(got);
    got = malloc(size ? size : 1);
    if (!got) {
      rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory reading back %llu bytes",
                         (unsigned long long)size);
      break;
    }
    rc = vta_device_copy_from(d->dut, got, base, size, err);
    if (rc != VTA_OK) break;
    const uint8_t *want = vta_mem_ptr(d->base.mem, base);
    if (memcmp(want, got, size) == 0) continue;
    uint64_t k = 0;
    while (want[k] == got[k]) k++;
    char text[256];
    int64_t idx = stream_last_writer(&d->cfg, stream, count, base + k, text, sizeof text);
    char where[320];
    if (idx >= 0)
      snprintf(where, sizeof where, "#%lld: %s", (long long)idx, text);
    else
      snprintf(where, sizeof where, "none (%s)", text);
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "run %llu (%u instructions at 0x%llx): device memory " VTA_DIFF_MISMATCH
                       " at 0x%llx (byte %llu of the allocation at 0x%llx): fsim 0x%02x, %s "
                       "0x%02x; last instruction storing it: %s",
                       (unsigned long long)run, count, (unsigned long long)insn_phys,
                       (unsigned long long)(base + k), (unsigned long long)k,
                       (unsigned long long)base, want[k], be, got[k], where);
  }
  free(got);
  free(stream);
  const char *what = rc == VTA_OK ? stats_differ(&st[0], &st[1], &x, &y) : NULL;
  if (what)
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "run %llu (%u instructions at 0x%llx): %s " VTA_DIFF_MISMATCH
                       ": fsim %llu, %s %llu",
                       (unsigned long long)run, count, (unsigned long long)insn_phys, what,
                       (unsigned long long)x, be, (unsigned long long)y);
  /* The counters of the backend under test: its cycles are what a benchmark reports. */
  if (rc == VTA_OK) *stats = st[1];
  return rc;
}

static void lock_describe(void *state, FILE *out) {
  lock_dev *d = state;
  fprintf(out, "backend:  diff (fsim, the reference, and %s in lockstep: every run compared "
               "byte for byte)\n",
          d->dut_spec);
  vta_device_describe(d->dut, out);
}

const vta_backend vta_backend_diff = {
    .name = "diff",
    .description = "fsim and the backend named in its options in lockstep: every run's memory "
                   "compared byte for byte (options: NAME or NAME@OPTIONS, e.g. rtl)",
    .open = lock_open,
    .close = lock_close,
    .run = lock_run,
    .describe = lock_describe,
    VTA_MEM_DEV_SLOTS,
};
