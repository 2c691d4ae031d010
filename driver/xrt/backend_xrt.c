/* backend_xrt.c - an FPGA card or board through the Xilinx runtime (XRT's C API) as a device.
 *
 * The design idea: device memory is XRT buffer objects and the accelerator is the `vta` kernel
 * of an xclbin, driven through its arguments exactly as docs/hw.md's register table (the kernel
 * interface generated from include/vta/regmap.h) describes. Every allocation is one buffer object
 * in the memory bank the kernel's m_axi_gmem is connected to; its physical address is what the
 * instruction stream's DRAM fields hold. Host and device copies of a buffer are synced only for
 * the bytes the host wrote (copy_to: host -> device) or is about to read (copy_from: device ->
 * host), never whole buffers. A run sets insn_count and insn_addr, starts the kernel and waits
 * for it with the device interface's timeout (cycles at the configuration's clock); the
 * counters are read back when the platform allows register access.
 *
 * Testing without a card: under XRT's noop emulation (XCL_EMULATION_MODE=noop) every buffer
 * reads address 0xdeadbeef, runs complete at once and register access is refused. The backend
 * notices the unusable addresses and hands out addresses of its own (a sim/mem allocator), and
 * with the option emulate=rtl it plays the card: every sync moves the bytes between the buffer
 * object and a simulated DRAM, and every run hands its argument registers to the Verilator model
 * of the same configuration (sim/rtl), which executes the stream against that DRAM. So the
 * whole host flow (xclbin load, kernel by name, buffer objects, syncs, run, wait) is exercised
 * and its results can be compared bit for bit with fsim.
 *
 * Options (comma-separated): xclbin=FILE (or $VTA_XRT_XCLBIN), device=N (or $VTA_XRT_DEVICE,
 * default 0), emulate=rtl (or $VTA_XRT_EMULATE=rtl), models=DIR (the rtl models' folder).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include "driver/backends.h"
#include "driver/xrt/xclbin_file.h"
#include "isa/svgen.h"
#include "sim/mem/mem.h"
#include "sim/rtl/rtl.h"
#include "vta/regmap.h"

/* The address every buffer object reports under XRT's noop emulation. */
#define NOOP_ADDRESS 0xdeadbeefull

typedef struct xbo {
  uint64_t phys, size;
  xrtBufferHandle bo;
  uint8_t *map;
} xbo;

typedef struct xrt_dev {
  vta_config cfg;
  char xclbin[4096];
  unsigned index;
  vta_xclbin_info info;
  xrtDeviceHandle dev;
  xrtKernelHandle kernel;
  xrtRunHandle run;
  int group;
  int exclusive; /* the kernel was opened exclusively (register access possible) */
  int synthetic; /* buffer addresses are unusable (noop): phys from `addr` */
  vta_mem *addr; /* synthetic addresses; with emulate=rtl also the simulated DRAM */
  vta_rtl *emu;  /* emulate=rtl: the Verilator model that plays the kernel */
  xbo *bos;      /* sorted by phys */
  size_t n, cap;
  uint64_t synced_to, synced_from; /* bytes synced, for the statistics of the host flow */
} xrt_dev;

/* ---- options ---- */

typedef struct xrt_opts {
  const char *xclbin;
  unsigned device;
  int emulate;
  const char *models;
} xrt_opts;

static int parse_opts(char *text, xrt_opts *o, vta_error *err) {
  const char *e;
  if ((e = getenv("VTA_XRT_XCLBIN")) && *e) o->xclbin = e;
  if ((e = getenv("VTA_XRT_DEVICE")) && *e) o->device = (unsigned)strtoul(e, NULL, 10);
  if ((e = getenv("VTA_XRT_EMULATE")) && strcmp(e, "rtl") == 0) o->emulate = 1;
  char *save = NULL;
  for (char *tok = text ? strtok_r(text, ",", &save) : NULL; tok;
       tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "xrt option '%s' is not key=value (keys: xclbin, device, emulate, "
                           "models)",
                           tok);
    *eq = '\0';
    const char *v = eq + 1;
    if (strcmp(tok, "xclbin") == 0) {
      o->xclbin = v;
    } else if (strcmp(tok, "device") == 0) {
      char *end;
      unsigned long d = strtoul(v, &end, 10);
      if (!*v || *end || d > 255)
        return vta_error_set(err, VTA_ERR_INVALID,
                             "xrt option device=%s is not a device index from 0 to 255", v);
      o->device = (unsigned)d;
    } else if (strcmp(tok, "emulate") == 0) {
      if (strcmp(v, "rtl") != 0 && strcmp(v, "none") != 0)
        return vta_error_set(err, VTA_ERR_INVALID,
                             "xrt option emulate=%s: the only emulation is 'rtl' (or 'none')", v);
      o->emulate = strcmp(v, "rtl") == 0;
    } else if (strcmp(tok, "models") == 0) {
      o->models = v;
    } else {
      return vta_error_set(err, VTA_ERR_INVALID,
                           "unknown xrt option '%s' (keys: xclbin, device, emulate, models)", tok);
    }
  }
  return VTA_OK;
}

/* ---- buffer objects ---- */

static xbo *find(xrt_dev *d, uint64_t phys) {
  size_t lo = 0, hi = d->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (d->bos[mid].phys + d->bos[mid].size <= phys)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < d->n && d->bos[lo].phys <= phys && phys < d->bos[lo].phys + d->bos[lo].size)
    return &d->bos[lo];
  return NULL;
}

static int range(xrt_dev *d, uint64_t phys, uint64_t n, xbo **out, vta_error *err) {
  xbo *b = find(d, phys);
  if (!b || n > b->size - (phys - b->phys))
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "%" PRIu64 " bytes at device address 0x%" PRIx64
                         " are not inside one buffer object",
                         n, phys);
  *out = b;
  return VTA_OK;
}

static int x_alloc(void *state, uint64_t size, uint64_t *phys, vta_error *err) {
  xrt_dev *d = state;
  if (size == 0) size = 1;
  if (d->n == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 64;
    xbo *nb = realloc(d->bos, cap * sizeof *nb);
    if (!nb) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    d->bos = nb;
    d->cap = cap;
  }
  /* Whole pages: what the card's allocator hands out anyway (and XRT's host-side allocation
   * asks aligned_alloc for a multiple of the page). */
  uint64_t pages = (size + 4095) & ~4095ull;
  xrtBufferHandle bo = xrtBOAlloc(d->dev, pages, XRT_BO_FLAGS_NONE, (xrtMemoryGroup)d->group);
  if (!bo)
    return vta_error_set(err, VTA_ERR_NOMEM,
                         "XRT cannot allocate a buffer object of %" PRIu64
                         " bytes in memory bank %d (%s)",
                         size, d->group, strerror(errno));
  uint8_t *map = xrtBOMap(bo);
  uint64_t p = xrtBOAddress(bo);
  int rc = VTA_OK;
  if (!map) {
    rc =
        vta_error_set(err, VTA_ERR_UNSUPPORTED,
                      "XRT cannot map a buffer object of %" PRIu64 " bytes into host memory", size);
  } else if (d->synthetic) {
    rc = vta_mem_alloc(d->addr, size, &p, err);
  } else if (p == 0 || p == NOOP_ADDRESS || find(d, p) || (d->n && find(d, p + size - 1))) {
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                       "XRT reports device address 0x%" PRIx64
                       " for a new buffer object, which is unusable (0, the noop address or "
                       "overlapping another buffer)",
                       p);
  }
  if (rc != VTA_OK) {
    xrtBOFree(bo);
    return rc;
  }
  size_t at = d->n;
  while (at > 0 && d->bos[at - 1].phys > p) at--;
  memmove(&d->bos[at + 1], &d->bos[at], (d->n - at) * sizeof *d->bos);
  d->bos[at] = (xbo){p, size, bo, map};
  d->n++;
  *phys = p;
  return VTA_OK;
}

static void x_free(void *state, uint64_t phys) {
  xrt_dev *d = state;
  xbo *b = find(d, phys);
  if (!b || b->phys != phys) return;
  xrtBOFree(b->bo);
  if (d->synthetic) vta_mem_free(d->addr, phys);
  size_t at = (size_t)(b - d->bos);
  memmove(&d->bos[at], &d->bos[at + 1], (d->n - at - 1) * sizeof *d->bos);
  d->n--;
}

/* Host -> device for [off, off+n) of one buffer. With emulate=rtl the simulated DRAM is the
 * device side, so the bytes move there as a card's DMA would move them. */
static int sync_to(xrt_dev *d, xbo *b, uint64_t off, uint64_t n, vta_error *err) {
  if (xrtBOSync(b->bo, XCL_BO_SYNC_BO_TO_DEVICE, n, off) != 0)
    return vta_error_set(err, VTA_ERR_IO,
                         "XRT cannot sync %" PRIu64 " bytes at device address 0x%" PRIx64
                         " to the device (%s)",
                         n, b->phys + off, strerror(errno));
  if (d->emu) memcpy(vta_mem_ptr(d->addr, b->phys + off), b->map + off, n);
  d->synced_to += n;
  return VTA_OK;
}

static int sync_from(xrt_dev *d, xbo *b, uint64_t off, uint64_t n, vta_error *err) {
  if (d->emu) memcpy(b->map + off, vta_mem_ptr(d->addr, b->phys + off), n);
  if (xrtBOSync(b->bo, XCL_BO_SYNC_BO_FROM_DEVICE, n, off) != 0)
    return vta_error_set(err, VTA_ERR_IO,
                         "XRT cannot sync %" PRIu64 " bytes at device address 0x%" PRIx64
                         " from the device (%s)",
                         n, b->phys + off, strerror(errno));
  d->synced_from += n;
  return VTA_OK;
}

static int x_copy_to(void *state, uint64_t phys, const void *src, uint64_t n, vta_error *err) {
  xrt_dev *d = state;
  xbo *b = NULL;
  if (n == 0) return VTA_OK;
  int rc = range(d, phys, n, &b, err);
  if (rc != VTA_OK) return rc;
  memcpy(b->map + (phys - b->phys), src, n);
  return sync_to(d, b, phys - b->phys, n, err);
}

static int x_copy_from(void *state, void *dst, uint64_t phys, uint64_t n, vta_error *err) {
  xrt_dev *d = state;
  xbo *b = NULL;
  if (n == 0) return VTA_OK;
  int rc = range(d, phys, n, &b, err);
  if (rc != VTA_OK) return rc;
  rc = sync_from(d, b, phys - b->phys, n, err);
  if (rc == VTA_OK) memcpy(dst, b->map + (phys - b->phys), n);
  return rc;
}

/* ---- open / close ---- */

/* Devices still open when the process exits (the published driver.h API keeps its one device
 * until then) are closed by an atexit handler: XRT's own static tables are destroyed after the
 * handlers run, and releasing a kernel or buffer after them frees memory twice. */
static pthread_mutex_t g_open_lock = PTHREAD_MUTEX_INITIALIZER;
static xrt_dev *g_open[64];
static int g_atexit;

static void x_close(void *state);

static void close_all_at_exit(void) {
  for (;;) {
    pthread_mutex_lock(&g_open_lock);
    xrt_dev *d = NULL;
    for (int i = 0; i < 64 && !d; i++) d = g_open[i];
    pthread_mutex_unlock(&g_open_lock);
    if (!d) return;
    x_close(d);
  }
}

static void track(xrt_dev *d, int add) {
  pthread_mutex_lock(&g_open_lock);
  if (add && !g_atexit) g_atexit = atexit(close_all_at_exit) == 0;
  for (int i = 0; i < 64; i++) {
    if (add && !g_open[i]) {
      g_open[i] = d;
      break;
    }
    if (!add && g_open[i] == d) {
      g_open[i] = NULL;
      break;
    }
  }
  pthread_mutex_unlock(&g_open_lock);
}

static void x_close(void *state) {
  xrt_dev *d = state;
  if (!d) return;
  track(d, 0);
  for (size_t i = 0; i < d->n; i++) xrtBOFree(d->bos[i].bo);
  free(d->bos);
  if (d->run) xrtRunClose(d->run);
  if (d->kernel) xrtKernelClose(d->kernel);
  if (d->dev) xrtDeviceClose(d->dev);
  vta_rtl_destroy(d->emu);
  vta_mem_destroy(d->addr);
  free(d);
}

static int open_fail(xrt_dev *d, int rc) {
  x_close(d);
  return rc;
}

static const char *xrt_hint(void) {
  const char *mode = getenv("XCL_EMULATION_MODE");
  if (mode && *mode) return " (XRT emulation found no device of that index)";
  return " (is a card installed and its driver loaded? `xbutil examine` lists the devices; to "
         "test without a card set XCL_EMULATION_MODE=noop, see docs/user-guide/deploy.md)";
}

/* XRT's core library loads its device layer from $XILINX_XRT/lib when the first device is
 * opened and ends the process (an uncaught exception) when it cannot: check first. */
static int runtime_check(vta_error *err) {
  const char *x = getenv("XILINX_XRT"), *mode = getenv("XCL_EMULATION_MODE");
  const char *lib = "libxrt_core.so.2";
  if (mode && strcmp(mode, "noop") == 0)
    lib = "libxrt_noop.so.2";
  else if (mode && strcmp(mode, "hw_emu") == 0)
    lib = "libxrt_hwemu.so.2";
  else if (mode && strcmp(mode, "sw_emu") == 0)
    lib = "libxrt_swemu.so.2";
  else if (mode && *mode)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "XCL_EMULATION_MODE=%s is not an XRT emulation mode (noop, sw_emu, "
                         "hw_emu)",
                         mode);
  if (!x || !*x)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "the XRT runtime is not set up: XILINX_XRT is not set (on a card's host "
                         "run `source /opt/xilinx/xrt/setup.sh`; with Debian's XRT point it at a "
                         "folder whose lib is the system library folder, docs/user-guide/"
                         "deploy.md)");
  char path[4200];
  snprintf(path, sizeof path, "%s/lib/%s", x, lib);
  FILE *f = fopen(path, "rb");
  if (!f)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "the XRT runtime is absent: %s does not exist (XILINX_XRT=%s%s%s)", path,
                         x, mode && *mode ? ", XCL_EMULATION_MODE=" : "", mode ? mode : "");
  fclose(f);
  return VTA_OK;
}

static int x_open(const vta_config *cfg, const char *options, void **state, vta_error *err) {
  xrt_dev *d = calloc(1, sizeof *d);
  char *text = options ? strdup(options) : NULL;
  if (!d || (options && !text)) {
    free(d);
    free(text);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  d->cfg = *cfg;
  xrt_opts o = {0};
  int rc = parse_opts(text, &o, err);
  if (rc == VTA_OK && !o.xclbin)
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "no xclbin: give one with `--xclbin FILE` (vta run), the option "
                       "xclbin=FILE or $VTA_XRT_XCLBIN (`make xclbin BOARD=<board>` builds it)");
  if (rc == VTA_OK) {
    snprintf(d->xclbin, sizeof d->xclbin, "%s", o.xclbin);
    d->index = o.device;
  }
  vta_rtl_options ro;
  vta_rtl_options_default(cfg, &ro);
  ro.model_root = o.models;
  /* The strings of o point into text, which the rest of open no longer needs but rtl's
   * options do: models is copied by vta_rtl_create before text is freed below. */
  void *data = NULL;
  if (rc == VTA_OK) rc = vta_xclbin_inspect(d->xclbin, &d->info, &data, err);
  static const unsigned char zero[16];
  if (rc == VTA_OK && memcmp(d->info.uuid, zero, 16) == 0)
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "%s has a null UUID: XRT identifies a loaded xclbin by its UUID, so this "
                       "file cannot be told apart from another",
                       d->xclbin);
  if (rc == VTA_OK) rc = vta_xclbin_check_config(d->xclbin, &d->info, cfg, err);
  if (rc == VTA_OK) rc = runtime_check(err);
  if (rc == VTA_OK) {
    d->dev = xrtDeviceOpen(d->index);
    if (!d->dev)
      rc =
          vta_error_set(err, VTA_ERR_UNSUPPORTED, "XRT finds no device %u%s", d->index, xrt_hint());
  }
  if (rc == VTA_OK && xrtDeviceLoadXclbin(d->dev, (const struct axlf *)data) != 0)
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                       "XRT cannot load %s on device %u (%s): is it built for this card's "
                       "platform (the xclbin's is %s)?",
                       d->xclbin, d->index, strerror(errno), d->info.platform);
  free(data);
  if (rc == VTA_OK) {
    xuid_t loaded;
    if (xrtDeviceGetXclbinUUID(d->dev, loaded) != 0 || memcmp(loaded, d->info.uuid, 16) != 0) {
      const unsigned char *u = (const unsigned char *)loaded;
      rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "device %u runs an xclbin with UUID %02x%02x%02x%02x-..., not %s's %s "
                         "(another process loaded a different xclbin?)",
                         d->index, u[0], u[1], u[2], u[3], d->xclbin, d->info.uuid_text);
    }
  }
  if (rc == VTA_OK) {
    /* Exclusive access lets the counters be read; a shared context still runs the kernel. */
    d->kernel = xrtPLKernelOpenExclusive(d->dev, d->info.uuid, VTA_KERNEL_NAME);
    d->exclusive = d->kernel != NULL;
    if (!d->kernel) d->kernel = xrtPLKernelOpen(d->dev, d->info.uuid, VTA_KERNEL_NAME);
    if (!d->kernel)
      rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "XRT cannot open the kernel `%s` of %s on device %u (%s)", VTA_KERNEL_NAME,
                         d->xclbin, d->index, strerror(errno));
  }
  if (rc == VTA_OK) {
    d->group = xrtKernelArgGroupId(d->kernel, VTA_ARG_INSN_ADDR);
    if (d->group < 0)
      rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "%s connects the kernel's %s argument to no memory bank", d->xclbin,
                         vta_regs[VTA_REG_INSN_ADDR].name);
  }
  if (rc == VTA_OK) {
    d->run = xrtRunOpen(d->kernel);
    if (!d->run)
      rc = vta_error_set(err, VTA_ERR_UNSUPPORTED, "XRT cannot create a run of `%s` (%s)",
                         VTA_KERNEL_NAME, strerror(errno));
  }
  if (rc == VTA_OK) {
    /* Probe the addresses XRT hands out: unusable ones mean emulation without a device. */
    xrtBufferHandle probe = xrtBOAlloc(d->dev, 4096, XRT_BO_FLAGS_NONE, (xrtMemoryGroup)d->group);
    if (!probe) {
      rc = vta_error_set(err, VTA_ERR_NOMEM,
                         "XRT cannot allocate a buffer object in memory bank %d of device %u",
                         d->group, d->index);
    } else {
      uint64_t a = xrtBOAddress(probe);
      d->synthetic = a == 0 || a == NOOP_ADDRESS;
      xrtBOFree(probe);
    }
  }
  if (rc == VTA_OK && (d->synthetic || o.emulate)) rc = vta_mem_create(0, &d->addr, err);
  if (rc == VTA_OK && o.emulate) {
    if (!d->synthetic)
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "emulate=rtl is for XRT's noop emulation (XCL_EMULATION_MODE=noop), "
                         "but device %u gives real buffer addresses: it is a card",
                         d->index);
    else
      rc = vta_rtl_create(cfg, d->addr, &ro, &d->emu, err);
  }
  free(text);
  if (rc != VTA_OK) return open_fail(d, rc);
  /* On a card with register access the RTL says which configuration it is. */
  uint32_t id;
  if (d->exclusive && !d->synthetic &&
      xrtKernelReadRegister(d->kernel, VTA_REG_OFFSET_CONFIG_ID, &id) == 0 &&
      id != vta_regmap_config_id(cfg)) {
    char key[160];
    vta_svgen_model_key(cfg, key, sizeof key);
    vta_error_set(err, VTA_ERR_UNSUPPORTED,
                  "the kernel's CONFIG_ID register reads 0x%08x but configuration %s has 0x%08x: "
                  "%s was built from another configuration's RTL",
                  id, key, vta_regmap_config_id(cfg), d->xclbin);
    return open_fail(d, VTA_ERR_UNSUPPORTED);
  }
  track(d, 1);
  *state = d;
  return VTA_OK;
}

/* ---- run ---- */

static int read_counters(xrt_dev *d, vta_stats *st) {
  uint64_t c[VTA_CNT_COUNT];
  static const uint32_t offs[VTA_CNT_COUNT] = {
#define VTA_X(id, nm, off, desc) off,
      VTA_REGMAP_COUNTERS(VTA_X)
#undef VTA_X
  };
  for (int i = 0; i < VTA_CNT_COUNT; i++) {
    uint32_t lo, hi;
    if (xrtKernelReadRegister(d->kernel, offs[i], &lo) != 0 ||
        xrtKernelReadRegister(d->kernel, offs[i] + 4, &hi) != 0)
      return 0;
    c[i] = (uint64_t)hi << 32 | lo;
  }
  st->cycles = c[VTA_CNT_CYCLES];
  for (int m = 0; m < VTA_MOD_COUNT; m++) {
    st->busy_cycles[m] = c[VTA_CNT_BUSY_LOAD + m];
    st->stall_cycles[m] = c[VTA_CNT_STALL_LOAD + m];
    st->insns_by_module[m] = c[VTA_CNT_INSNS_LOAD + m];
  }
  st->gemm_uops = c[VTA_CNT_GEMM_UOPS];
  st->alu_uops = c[VTA_CNT_ALU_UOPS];
  st->uops = st->gemm_uops + st->alu_uops;
  st->macs = c[VTA_CNT_MAC_UOPS] * d->cfg.macs_per_cycle;
  return 1;
}

static int x_run(void *state, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                 vta_stats *stats, vta_error *err) {
  xrt_dev *d = state;
  xbo *b = NULL;
  int rc = range(d, insn_phys, (uint64_t)count * VTA_INSN_BYTES, &b, err);
  if (rc != VTA_OK) return rc;
  /* A pointer argument is a buffer object: the stream's own, or a view of it from insn_phys. */
  xrtBufferHandle arg = b->bo, sub = NULL;
  if (insn_phys != b->phys) {
    sub = xrtBOSubAlloc(b->bo, b->size - (insn_phys - b->phys), insn_phys - b->phys);
    if (!sub)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "XRT cannot make a sub-buffer at offset %" PRIu64
                           " of the stream's buffer object",
                           insn_phys - b->phys);
    arg = sub;
  }
  if (xrtRunSetArg(d->run, VTA_ARG_INSN_COUNT, count) != 0 ||
      xrtRunSetArg(d->run, VTA_ARG_INSN_ADDR, arg) != 0) {
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED, "XRT refuses the kernel's arguments (%s)",
                       strerror(errno));
  } else if (xrtRunStart(d->run) != 0) {
    rc = vta_error_set(err, VTA_ERR_UNSUPPORTED, "XRT cannot start the kernel (%s)",
                       strerror(errno));
  } else {
    /* The interface's timeout is in device cycles: at the configured clock, in ms. */
    double ms = (double)timeout / (d->cfg.clock_mhz > 0 ? d->cfg.clock_mhz : 100.0) / 1000.0;
    unsigned tms = ms >= 4e9 ? 4000000000u : (unsigned)ms + 1;
    enum ert_cmd_state s = xrtRunWaitFor(d->run, tms);
    if (s != ERT_CMD_STATE_COMPLETED)
      rc = vta_error_set(err,
                         s == ERT_CMD_STATE_RUNNING || s == ERT_CMD_STATE_TIMEOUT ||
                                 s == ERT_CMD_STATE_NEW || s == ERT_CMD_STATE_QUEUED
                             ? VTA_ERR_TIMEOUT
                             : VTA_ERR_INVALID,
                         "the kernel did not complete within %u ms (%" PRIu64
                         " cycles at %.0f MHz): run state %d",
                         tms, timeout, d->cfg.clock_mhz, (int)s);
  }
  if (sub) xrtBOFree(sub);
  if (rc != VTA_OK) return rc;
  if (d->emu) {
    /* The card's part: the argument registers go to the Verilator model, which runs the stream
     * against the DRAM the syncs filled. */
    return vta_rtl_run(d->emu, insn_phys, count, timeout, stats, err);
  }
  if (stats && d->exclusive && !d->synthetic) read_counters(d, stats);
  return VTA_OK;
}

/* ---- description (vta info --backend xrt) ---- */

static void x_describe(void *state, FILE *out) {
  xrt_dev *d = state;
  char key[160];
  vta_svgen_model_key(&d->cfg, key, sizeof key);
  fprintf(out, "device:   %u%s\n", d->index,
          d->synthetic ? " (XRT emulation: buffer addresses are the backend's own)" : "");
  fprintf(out, "shell:    %s\n", d->info.platform);
  fprintf(out, "xclbin:   %s (%" PRIu64 " bytes, UUID %s%s)\n", d->xclbin, d->info.bytes,
          d->info.uuid_text, d->info.has_bitstream ? "" : ", metadata only");
  fprintf(out, "kernel:   %s (compute unit %s at 0x%" PRIx64 ", %s context)\n", VTA_KERNEL_NAME,
          d->info.cu_name, d->info.cu_base, d->exclusive ? "exclusive" : "shared");
  fprintf(out, "config:   %s (CONFIG_ID 0x%08x)\n", key, vta_regmap_config_id(&d->cfg));
  fprintf(out, "banks:   ");
  for (int i = 0; i < d->info.nbanks; i++)
    fprintf(out, " %s%s (%" PRIu64 " MiB at 0x%" PRIx64 ")%s", d->info.banks[i].tag,
            d->info.banks[i].hbm ? " HBM" : "", d->info.banks[i].size >> 20, d->info.banks[i].base,
            i == d->group ? " <- m_axi_gmem" : "");
  fprintf(out, "\nemulate:  %s\n",
          d->emu ? "rtl (each run executes on the Verilator model)" : "no");
}

const vta_backend vta_backend_xrt = {
    .name = "xrt",
    .description = "FPGA card or board through XRT: buffer objects, the vta kernel of an xclbin",
    .open = x_open,
    .close = x_close,
    .mem_alloc = x_alloc,
    .mem_free = x_free,
    .copy_to = x_copy_to,
    .copy_from = x_copy_from,
    .run = x_run,
    .describe = x_describe,
};
