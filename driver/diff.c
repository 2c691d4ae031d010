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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fsim/fsim.h"
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

/* The last STORE of the stream writing byte `addr`: its index, or -1. */
static int64_t last_writer(const vta_config *cfg, vta_mem *mem, const diff_prog *p, uint64_t addr,
                           char *text, size_t n) {
  const uint8_t *s = vta_mem_ptr(mem, p->insn);
  uint64_t eb = cfg->elem_bytes[VTA_MEM_OUT];
  int64_t found = -1;
  vta_insn hit;
  for (uint32_t i = 0; i < p->count; i++) {
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

int vta_diff_open(const char *config_path, const char *backend, const char *options,
                  vta_diff **out, vta_error *err) {
  vta_diff *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int rc = vta_config_load(&d->cfg, config_path, err);
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
                  uint64_t seed, uint64_t addr, uint64_t window, const char *wave_path,
                  uint64_t *cycle, vta_error *err) {
#ifndef VTA_HAVE_RTL
  (void)config_path; (void)options; (void)w; (void)seed; (void)addr; (void)window;
  (void)wave_path; (void)cycle;
  return vta_error_set(err, VTA_ERR_UNSUPPORTED, "the rtl backend is not built");
#else
  vta_config cfg;
  int rc = vta_config_load(&cfg, config_path, err);
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
    diff_prog p;
    char msg[512];
    if (rc == VTA_OK) rc = vta_mem_create(0, &mem, err);
    if (rc == VTA_OK && prog_build(&cfg, mem, w, seed, &p, msg, sizeof msg) != 0)
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s", msg);
    if (rc == VTA_OK) rc = vta_rtl_create(&cfg, mem, &o, &sim, err);
    if (rc == VTA_OK) {
      /* The case may fail here too (that is why it is rerun): the waveform is what matters. */
      vta_error run_err;
      vta_rtl_run(sim, p.insn, p.count, DIFF_TIMEOUT, NULL, &run_err);
      if (pass == 0) *cycle = vta_rtl_last_watch_cycle(sim);
    }
    vta_rtl_destroy(sim);
    vta_mem_destroy(mem);
    free(text);
  }
  return rc;
#endif
}
