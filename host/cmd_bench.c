/* cmd_bench.c - `vta bench gemm`: a blocked int8 GEMM through the runtime JIT, as one JSON line.
 *
 * The design idea: measure the stack the way a compiled model uses it. C = A * W^T is tiled so
 * that every working set fits the on-chip buffers twice over (two virtual threads: while one
 * tile computes, the other loads or stores), the weight tile of a column block stays resident
 * while every row block of A streams past it, and the tiles are expressed as CISC operations
 * of the native JIT API with dependency tokens between the stages. The JIT's own time (wall
 * time minus device time) is reported beside the device's, because the JIT must never be what
 * limits a run. The result is checked against a plain C reference before anything is printed.
 *
 * Tile choice (in elements: rows of BATCH, blocks of BLOCK_IN / BLOCK_OUT):
 *   kt: the largest divisor of K/BLOCK_IN with a double-buffered INP and WGT row of it fitting,
 *       and at most UOP depth / 8 micro-ops per kernel (8 kernel variants stay resident);
 *   nt: the largest divisor of N/BLOCK_OUT with 2 * nt * kt <= WGT depth;
 *   mt: the largest divisor of M/BATCH with 2 * mt * kt <= INP depth, 2 * mt * nt <= ACC depth.
 * With K fitting one tile (the default 1024 on every shipped configuration), each weight tile
 * is loaded once and reused by all M/(mt*BATCH) row tiles.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/bench.h"
#include "host/bench_alu.h"
#include "host/cli.h"
#include "host/cli_args.h"
#include "host/model.h"
#include "vta/device.h"
#include "vta/jit.h"

static void bench_help(void) {
  printf("usage: vta bench gemm [--m M] [--n N] [--k K] [--config FILE] [--backend NAME]\n"
         "                      [--repeat R] [--wave FILE] [--device-options OPTS]\n"
         "\n"
         "Runs C[MxN] = A[MxK] * W[NxK]^T in int8 (int32 accumulation, int8 result) through\n"
         "the runtime JIT on a device, checks it against a CPU reference, and prints one JSON\n"
         "line: sizes, MACs, wall / JIT / device seconds, device GMAC/s, JIT instructions per\n"
         "second, the JIT's share of the wall time, instructions and micro-ops executed, the\n"
         "compute bound in cycles and, on cycle-level backends (rtl), cycles, utilisation,\n"
         "busy and stall cycles per module and simulated cycles per second.\n"
         "\n"
         "options:\n"
         "  --m, --n, --k M  matrix sizes (default 1024 each); multiples of BATCH, BLOCK_OUT\n"
         "                   and BLOCK_IN of the configuration respectively\n"
         "  --config FILE    hardware configuration (default: $VTA_CONFIG, else built in)\n"
         "  --backend NAME   device backend (default: $VTA_BACKEND, else fsim)\n"
         "  --repeat R       run R times and report the fastest (default 1)\n"
         "  --wave FILE      write a waveform (rtl: FST) of the runs\n"
         "  --timeline F.json  (rtl, sc) the runs' timeline: trace-event JSON for ui.perfetto.dev\n"
         "  --device-options S  backend options, e.g. latency=64 (rtl)\n"
         "  -h, --help       show this help\n"
         "\n"
         "exit status: 0 correct result, 1 wrong result or failed run, 2 bad command line.\n");
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- Data: logical row-major matrices and their packed device layouts ---- */

typedef struct gemm_shape {
  uint32_t m, n, k;
  uint32_t mb, nb, kb;  /* in elements: M/BATCH, N/BLOCK_OUT, K/BLOCK_IN */
  uint32_t mt, nt, kt;  /* tile sizes in elements */
} gemm_shape;

static uint64_t g_seed = 0x9e3779b97f4a7c15ull;
static int8_t rnd8(void) {
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 7;
  g_seed ^= g_seed << 17;
  return (int8_t)(g_seed >> 24);
}

/* A [M][K] -> INP elements [M/B][K/BI] of [B][BI]; W [N][K] -> WGT [N/BO][K/BI] of [BO][BI]. */
static void pack(const int8_t *src, uint32_t rows, uint32_t cols, uint32_t rb, uint32_t cb,
                 int8_t *dst) {
  size_t i = 0;
  for (uint32_t r0 = 0; r0 < rows; r0 += rb)
    for (uint32_t c0 = 0; c0 < cols; c0 += cb)
      for (uint32_t r = 0; r < rb; r++)
        for (uint32_t c = 0; c < cb; c++) dst[i++] = src[(size_t)(r0 + r) * cols + c0 + c];
}

static void unpack(const int8_t *src, uint32_t rows, uint32_t cols, uint32_t rb, uint32_t cb,
                   int8_t *dst) {
  size_t i = 0;
  for (uint32_t r0 = 0; r0 < rows; r0 += rb)
    for (uint32_t c0 = 0; c0 < cols; c0 += cb)
      for (uint32_t r = 0; r < rb; r++)
        for (uint32_t c = 0; c < cb; c++) dst[(size_t)(r0 + r) * cols + c0 + c] = src[i++];
}

/* C = narrow(A * W^T): the plain reference. Rows of A and W are contiguous, so the inner
 * loop is a dot product the compiler vectorises. */
static void reference(const gemm_shape *s, const int8_t *a, const int8_t *w, int8_t *c) {
  for (uint32_t i = 0; i < s->m; i++)
    for (uint32_t j = 0; j < s->n; j++) {
      const int8_t *x = a + (size_t)i * s->k, *y = w + (size_t)j * s->k;
      int32_t acc = 0;
      for (uint32_t q = 0; q < s->k; q++) acc += (int32_t)x[q] * (int32_t)y[q];
      c[(size_t)i * s->n + j] = (int8_t)(uint8_t)((uint32_t)acc & 0xff);
    }
}

/* ---- Tiling ---- */

static uint32_t largest_divisor(uint32_t n, uint32_t limit) {
  for (uint32_t d = limit < n ? limit : n; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

static int choose_tiles(const vta_config *cfg, gemm_shape *s, vta_error *err) {
  uint32_t inp = cfg->depth[VTA_MEM_INP], wgt = cfg->depth[VTA_MEM_WGT];
  uint32_t acc = cfg->depth[VTA_MEM_ACC], uop = cfg->depth[VTA_MEM_UOP];
  uint32_t klim = wgt / 2 < inp / 2 ? wgt / 2 : inp / 2;
  if (uop / 8 < klim) klim = uop / 8;
  if (klim == 0 || acc < 2)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the on-chip buffers of this configuration are too small for a "
                         "double-buffered GEMM tile");
  s->kt = largest_divisor(s->kb, klim);
  s->nt = largest_divisor(s->nb, wgt / (2 * s->kt) < 16383 ? wgt / (2 * s->kt) : 16383);
  uint32_t mlim = inp / (2 * s->kt);
  if (acc / (2 * s->nt) < mlim) mlim = acc / (2 * s->nt);
  if (mlim > 16383) mlim = 16383;
  if (mlim == 0)
    return vta_error_set(err, VTA_ERR_INVALID, "no row tile fits beside %u x %u weights", s->nt,
                         s->kt);
  s->mt = largest_divisor(s->mb, mlim);
  return VTA_OK;
}

/* ---- The program ---- */

typedef struct gemm_bufs {
  uint64_t a, w, c; /* device addresses of packed A, W, C */
} gemm_bufs;

/* Kernel sites: their addresses name the call sites in the JIT's kernel cache. */
static const char k_site_reset = 0, k_site_gemm = 0;

static int kernel(vta_jit *jit, const void *site, const uint32_t *sig, size_t nsig,
                  const gemm_shape *s, vta_jit_kernel **out, vta_error *err) {
  vta_jit_kernel *k = vta_jit_kernel_find(jit, site, sig, nsig * sizeof *sig);
  if (k) {
    *out = k;
    return VTA_OK;
  }
  int rc = vta_jit_kernel_begin(jit, site, sig, nsig * sizeof *sig, &k, err);
  if (rc) return rc;
  int reset = site == &k_site_reset;
  uint32_t abase = sig[0], ibase = reset ? 0 : sig[1], wbase = reset ? 0 : sig[2];
  /* Outer loop over the tile's rows, inner over its output blocks; the micro-ops walk K. */
  rc = vta_jit_kernel_loop_begin(k, s->mt, s->nt, reset ? 0 : s->kt, 0, err);
  if (!rc) rc = vta_jit_kernel_loop_begin(k, s->nt, 1, 0, reset ? 0 : s->kt, err);
  for (uint32_t q = 0; !rc && q < (reset ? 1 : s->kt); q++) {
    vta_jit_uop u = {.mode = VTA_JIT_GEMM, .reset = (uint32_t)reset, .dst = abase,
                     .src = ibase + q, .wgt = wbase + q};
    rc = vta_jit_kernel_uop(k, &u, err);
  }
  if (!rc) rc = vta_jit_kernel_loop_end(k, err);
  if (!rc) rc = vta_jit_kernel_loop_end(k, err);
  if (rc) {
    vta_jit_kernel_discard(k);
    return rc;
  }
  rc = vta_jit_kernel_end(k, err);
  if (!rc) *out = k;
  return rc;
}

#define L VTA_JIT_STAGE_LOAD
#define C VTA_JIT_STAGE_COMPUTE
#define S VTA_JIT_STAGE_STORE

/* Issues the whole GEMM and synchronises. Steps t = (n tile, m tile, k tile) alternate between
 * two INP halves; units u = (n tile, m tile) between two ACC halves; weight loads between two
 * WGT halves. Token rules (two virtual threads):
 *   load step t pops compute->load when t >= 2 (the INP/WGT half it overwrites is free);
 *   compute pops load->compute every step and store->compute at the first step of unit u >= 2;
 *   compute pushes compute->load when t + 2 < T and compute->store at each unit's last step;
 *   store pushes store->compute when u + 2 < U. Every push is popped: the stream is balanced. */
static int gemm_program(vta_jit *jit, const gemm_shape *s, const gemm_bufs *b,
                           vta_error *err) {
  uint32_t ntiles = s->nb / s->nt, mtiles = s->mb / s->mt, ktiles = s->kb / s->kt;
  uint64_t steps = (uint64_t)ntiles * mtiles * ktiles, units = (uint64_t)ntiles * mtiles;
  uint32_t inp_half = s->mt * s->kt, wgt_half = s->nt * s->kt, acc_half = s->mt * s->nt;
  uint64_t t = 0, u = 0, wloads = 0;
  int64_t cur_w_n = -1, cur_w_k = -1;
  int rc = VTA_OK;
  for (uint32_t n = 0; n < ntiles && !rc; n++) {
    for (uint32_t m = 0; m < mtiles && !rc; m++, u++) {
      uint32_t ah = (uint32_t)(u % 2) * acc_half;
      for (uint32_t kk = 0; kk < ktiles && !rc; kk++, t++) {
        uint32_t ih = (uint32_t)(t % 2) * inp_half;
        /* Load stage. */
        if (t >= 2) rc = vta_jit_dep_pop(jit, C, L, err);
        if (!rc && (cur_w_n != n || cur_w_k != kk)) {
          cur_w_n = n;
          cur_w_k = kk;
          wloads++;
          rc = vta_jit_load(jit,
                            &(vta_jit_xfer){.type = VTA_MEM_WGT,
                                            .sram = (uint32_t)((wloads - 1) % 2) * wgt_half,
                                            .dram_phys = b->w,
                                            .dram_offset = (uint64_t)n * s->nt * s->kb +
                                                           (uint64_t)kk * s->kt,
                                            .x_size = s->kt,
                                            .y_size = s->nt,
                                            .x_stride = s->kb},
                            err);
        }
        uint32_t wh = (uint32_t)((wloads - 1) % 2) * wgt_half;
        if (!rc)
          rc = vta_jit_load(jit,
                            &(vta_jit_xfer){.type = VTA_MEM_INP,
                                            .sram = ih,
                                            .dram_phys = b->a,
                                            .dram_offset = (uint64_t)m * s->mt * s->kb +
                                                           (uint64_t)kk * s->kt,
                                            .x_size = s->kt,
                                            .y_size = s->mt,
                                            .x_stride = s->kb},
                            err);
        if (!rc) rc = vta_jit_dep_push(jit, L, C, err);
        /* Compute stage. */
        if (!rc) rc = vta_jit_dep_pop(jit, L, C, err);
        vta_jit_kernel *k;
        if (!rc && kk == 0) {
          if (u >= 2) rc = vta_jit_dep_pop(jit, S, C, err);
          uint32_t sig[1] = {ah};
          if (!rc) rc = kernel(jit, &k_site_reset, sig, 1, s, &k, err);
          if (!rc) rc = vta_jit_push_kernel(jit, k, err);
        }
        uint32_t sig[3] = {ah, ih, wh};
        if (!rc) rc = kernel(jit, &k_site_gemm, sig, 3, s, &k, err);
        if (!rc) rc = vta_jit_push_kernel(jit, k, err);
        if (!rc && t + 2 < steps) rc = vta_jit_dep_push(jit, C, L, err);
        if (!rc && kk + 1 == ktiles) rc = vta_jit_dep_push(jit, C, S, err);
      }
      /* Store stage. */
      if (!rc) rc = vta_jit_dep_pop(jit, C, S, err);
      if (!rc)
        rc = vta_jit_store(jit,
                           &(vta_jit_xfer){.type = VTA_MEM_OUT,
                                           .sram = ah,
                                           .dram_phys = b->c,
                                           .dram_offset = (uint64_t)m * s->mt * s->nb +
                                                          (uint64_t)n * s->nt,
                                           .x_size = s->nt,
                                           .y_size = s->mt,
                                           .x_stride = s->nb},
                           err);
      if (!rc && u + 2 < units) rc = vta_jit_dep_push(jit, S, C, err);
    }
  }
  if (!rc) rc = vta_jit_sync(jit, 0, NULL, err);
  return rc;
}

#undef L
#undef C
#undef S

/* ---- The command ---- */

typedef struct bench_result {
  double wall, jit, device;
  uint64_t insns, uops, uops_loaded, syncs;
  vta_stats st; /* the device's counters for this repetition (cycles on rtl) */
} bench_result;

static int parse_dim(const char *cmd, const char *opt, const char *text, uint32_t *out) {
  uint64_t v;
  if (vta_cli_parse_u64(cmd, opt, text, 1u << 20, &v) != 0) return -1;
  if (v == 0) {
    vta_cli_usage_error(cmd, "%s must be at least 1", opt);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}

static int bench_gemm(int argc, char **argv) {
  const char *cmd = "bench gemm", *cfg_path = NULL, *backend_name = NULL, *v;
  const char *wave = NULL, *dev_opts = NULL, *timeline = NULL;
  gemm_shape s = {.m = 1024, .n = 1024, .k = 1024};
  uint32_t repeat = 1;
  for (int i = 1; i < argc; i++) {
    int r;
    if (vta_cli_is_help(argv[i])) {
      bench_help();
      return VTA_EXIT_OK;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--m", NULL, &v))) {
      if (r < 0 || parse_dim(cmd, "--m", v, &s.m)) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--n", NULL, &v))) {
      if (r < 0 || parse_dim(cmd, "--n", v, &s.n)) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--k", NULL, &v))) {
      if (r < 0 || parse_dim(cmd, "--k", v, &s.k)) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--repeat", NULL, &v))) {
      if (r < 0 || parse_dim(cmd, "--repeat", v, &repeat)) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--config", NULL, &cfg_path))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend", NULL, &backend_name))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--wave", NULL, &wave))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--timeline", NULL, &timeline))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--device-options", NULL, &dev_opts))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else {
      return vta_cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
    }
  }
  char optbuf[1024];
  const char *options = vta_bench_device_options(cmd, wave, dev_opts, optbuf, sizeof optbuf);
  if ((wave || dev_opts) && !options) return VTA_EXIT_USAGE;
  char tlbuf[2200];
  if (timeline) {
    options = vta_cli_timeline_options(cmd, vta_cli_backend(backend_name), timeline, options,
                                       tlbuf, sizeof tlbuf);
    if (!options) return VTA_EXIT_USAGE;
  }
  vta_config cfg;
  if (vta_cli_config(cmd, cfg_path, &cfg) != 0) return VTA_EXIT_FAIL;
  const char *backend = vta_cli_backend(backend_name);
  if (s.m % cfg.batch || s.n % cfg.block_out || s.k % cfg.block_in)
    return vta_cli_usage_error(cmd,
                               "--m %u, --n %u, --k %u must be multiples of BATCH %u, BLOCK_OUT "
                               "%u and BLOCK_IN %u",
                               s.m, s.n, s.k, cfg.batch, cfg.block_out, cfg.block_in);
  s.mb = s.m / cfg.batch;
  s.nb = s.n / cfg.block_out;
  s.kb = s.k / cfg.block_in;
  if (s.kb > 65535 || s.nb > 65535)
    return vta_cli_usage_error(cmd, "--k / BLOCK_IN and --n / BLOCK_OUT must be at most 65535 "
                                    "(the 16-bit x_stride of a load)");
  vta_error err = {0};
  if (choose_tiles(&cfg, &s, &err)) return vta_cli_fail(cmd, &err);

  size_t asz = (size_t)s.m * s.k, wsz = (size_t)s.n * s.k, csz = (size_t)s.m * s.n;
  int8_t *a = malloc(asz), *w = malloc(wsz), *c = malloc(csz), *cref = malloc(csz);
  int8_t *packed = malloc(asz > wsz ? (asz > csz ? asz : csz) : (wsz > csz ? wsz : csz));
  vta_device *dev = NULL;
  vta_jit *jit = NULL;
  gemm_bufs b = {0};
  int status = VTA_EXIT_FAIL;
  bench_result best = {0};
  if (!a || !w || !c || !cref || !packed) {
    fprintf(stderr, "vta %s: out of memory for %ux%ux%u matrices\n", cmd, s.m, s.n, s.k);
    goto done;
  }
  for (size_t i = 0; i < asz; i++) a[i] = rnd8();
  for (size_t i = 0; i < wsz; i++) w[i] = rnd8();
  if (vta_device_open(backend, &cfg, options, &dev, &err) ||
      vta_device_alloc(dev, asz, &b.a, &err) || vta_device_alloc(dev, wsz, &b.w, &err) ||
      vta_device_alloc(dev, csz, &b.c, &err)) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  pack(a, s.m, s.k, cfg.batch, cfg.block_in, packed);
  if (vta_device_copy_to(dev, b.a, packed, asz, &err)) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  pack(w, s.n, s.k, cfg.block_out, cfg.block_in, packed);
  if (vta_device_copy_to(dev, b.w, packed, wsz, &err) || vta_jit_create(dev, NULL, &jit, &err)) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  reference(&s, a, w, cref);
  for (uint32_t r = 0; r < repeat; r++) {
    memset(packed, 0, csz);
    if (vta_device_copy_to(dev, b.c, packed, csz, &err)) {
      vta_cli_fail(cmd, &err);
      goto done;
    }
    vta_jit_counters before = *vta_jit_get_counters(jit);
    double t0 = now();
    if (gemm_program(jit, &s, &b, &err)) {
      vta_cli_fail(cmd, &err);
      goto done;
    }
    double wall = now() - t0;
    const vta_jit_counters *after = vta_jit_get_counters(jit);
    bench_result res = {
        .wall = wall,
        .device = after->device_seconds - before.device_seconds,
        .insns = after->stats.insns - before.stats.insns,
        .uops = after->stats.uops - before.stats.uops,
        .uops_loaded = after->uops_loaded - before.uops_loaded,
        .syncs = after->syncs - before.syncs,
    };
    res.jit = res.wall - res.device;
    vta_bench_stats_delta(&after->stats, &before.stats, &res.st);
    if (r == 0 || res.wall < best.wall) best = res;
    /* Check every repetition: a run that is fast but wrong must not be reported. */
    if (vta_device_copy_from(dev, packed, b.c, csz, &err)) {
      vta_cli_fail(cmd, &err);
      goto done;
    }
    unpack(packed, s.m, s.n, cfg.batch, cfg.block_out, c);
    for (size_t i = 0; i < csz; i++) {
      if (c[i] != cref[i]) {
        fprintf(stderr,
                "vta %s: wrong result: C[%zu][%zu] = %d, the CPU reference gives %d (run %u)\n",
                cmd, i / s.n, i % s.n, c[i], cref[i], r + 1);
        goto done;
      }
    }
  }
  char shape[32];
  vta_config_shape_name(&cfg, shape, sizeof shape);
  double macs = (double)s.m * s.n * s.k;
  printf("{\"bench\":\"gemm\",\"backend\":\"%s\",\"config\":\"%s\",\"m\":%u,\"n\":%u,\"k\":%u,"
         "\"macs\":%.0f,\"wall_seconds\":%.6f,\"jit_seconds\":%.6f,\"device_seconds\":%.6f,"
         "\"gmacs_per_s\":%.3f,\"jit_insns_per_s\":%.0f,\"jit_share\":%.4f,\"insns\":%" PRIu64
         ",\"uops\":%" PRIu64 ",\"uops_loaded\":%" PRIu64 ",\"syncs\":%" PRIu64
         ",\"tile\":{\"m\":%u,\"n\":%u,\"k\":%u},\"repeat\":%u",
         backend, shape, s.m, s.n, s.k, macs, best.wall, best.jit, best.device,
         best.device > 0 ? macs / best.device / 1e9 : 0.0,
         best.jit > 0 ? (double)best.insns / best.jit : 0.0,
         best.wall > 0 ? best.jit / best.wall : 0.0, best.insns, best.uops, best.uops_loaded,
         best.syncs, s.mt * cfg.batch, s.nt * cfg.block_out, s.kt * cfg.block_in, repeat);
  vta_bench_print_cycles(stdout, &best.st, (unsigned long long)cfg.macs_per_cycle, best.device);
  printf(",\"verified\":true}\n");
  status = VTA_EXIT_OK;
done:
  vta_jit_destroy(jit);
  if (dev) {
    if (b.a) vta_device_free(dev, b.a);
    if (b.w) vta_device_free(dev, b.w);
    if (b.c) vta_device_free(dev, b.c);
    vta_device_close(dev);
  }
  free(a);
  free(w);
  free(c);
  free(cref);
  free(packed);
  return status;
}

static int bench_one(int argc, char **argv) {
  if (strcmp(argv[0], "gemm") == 0) return bench_gemm(argc, argv);
  if (strcmp(argv[0], "alu") == 0) return vta_bench_alu(argc, argv);
  if (strcmp(argv[0], "model") == 0) return vta_bench_model(argc, argv);
  if (strcmp(argv[0], "conv2d") == 0) return vta_bench_conv2d(argc, argv);
  if (strcmp(argv[0], "resnet18") == 0) return vta_bench_resnet18(argc, argv);
  if (strcmp(argv[0], "overhead") == 0) return vta_bench_overhead(argc, argv);
  return vta_cli_usage_error("bench", "unknown benchmark '%s' (known: gemm, alu, conv2d, resnet18, model, overhead)", argv[0]);
}

int vta_cmd_bench(int argc, char **argv) {
  if (argc < 2 || vta_cli_is_help(argv[1])) {
    printf("usage: vta bench <benchmark> [options]\n"
           "\n"
           "benchmarks:\n"
           "  gemm     blocked int8 GEMM through the runtime JIT ('vta bench gemm --help')\n"
           "  alu      ALU micro-ops with immediate and vector operands ('vta bench alu --help')\n"
           "  conv2d   ResNet-18 convolution layers C1..C11 on the accelerator\n"
           "  resnet18 the whole ResNet-18 convolution/dense stack on the accelerator\n"
           "  model    a real ONNX model on the CPU path against onnxruntime ('vta bench model "
           "--help')\n"
           "  overhead the host's cost of one run on a backend ('vta bench overhead --help')\n"
           "\n"
           "Each prints JSON lines; see docs/user-guide/bench.md. With --backend rtl,sc (any\n"
           "backends, comma-separated) a benchmark runs on each in turn and a comparison line\n"
           "follows (cycle error against the first, ratio of simulated cycles per second).\n");
    return argc < 2 ? VTA_EXIT_USAGE : VTA_EXIT_OK;
  }
  /* --backend A,B: the benchmark on each backend, then the comparison (bench_compare.c). */
  for (int i = 2; i < argc; i++) {
    int eq = strncmp(argv[i], "--backend=", 10) == 0;
    if ((eq && strchr(argv[i] + 10, ',')) ||
        (strcmp(argv[i], "--backend") == 0 && i + 1 < argc && strchr(argv[i + 1], ',')))
      return vta_bench_compare(argc - 1, argv + 1, i - 1, bench_one);
  }
  return bench_one(argc - 1, argv + 1);
}
