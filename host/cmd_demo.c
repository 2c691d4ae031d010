/* cmd_demo.c - `vta demo`: one small, readable accelerator program, start to finish.
 *
 * The design idea: show in a page what every layer of the stack does for one quantized dense
 * layer, C = clip(relu(A * W^T) >> 6, 127) in int8 with A and W of 64x64: the data is packed
 * into the accelerator's tile layout, the runtime JIT turns four CISC steps (load, GEMM, three
 * ALU ops, store) into an instruction stream with micro-op kernels and dependency tokens, the
 * device runs it, and the result is compared with the same computation in plain C. Everything
 * fits the on-chip buffers at once, so there is no tiling to distract from the steps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/device.h"
#include "vta/jit.h"
#include "vta/stats.h"

#define DIM 64   /* M = N = K */
#define SHIFT 6  /* requantization: an arithmetic shift right */

static void demo_help(void) {
  printf("usage: vta demo [--config FILE] [--backend NAME] [--dump]\n"
         "\n"
         "Runs C = clip(relu(A * W^T) >> %d, 127) for int8 A and W of %dx%d through the runtime\n"
         "JIT on a device, prints the steps, the instruction stream's size, the device's\n"
         "statistics (JSON) and whether the result equals the CPU reference.\n"
         "\n"
         "options:\n"
         "  --config FILE   hardware configuration (default: $VTA_CONFIG, else built in)\n"
         "  --backend NAME  device backend (default: $VTA_BACKEND, else fsim)\n"
         "  --dump          also print the instruction stream in assembler text\n"
         "  -h, --help      show this help\n"
         "\n"
         "exit status: 0 correct result, 1 wrong result or failed run, 2 bad command line.\n",
         SHIFT, DIM, DIM);
}

/* A kernel over the whole m x n accumulator tile (rows outer, output blocks inner): GEMM with
 * k micro-ops walking the reduction, a reset, or one ALU op with an immediate. */
typedef struct tile {
  uint32_t m, n, k; /* in elements */
} tile;

static int tile_kernel(vta_jit *jit, const tile *t, int kind, vta_alu_op op, int32_t imm,
                       vta_jit_kernel **out, vta_error *err) {
  /* kind 0: GEMM, 1: GEMM reset, 2: ALU. Recorded once per (kind, op, imm). */
  int32_t sig[3] = {kind, kind == 2 ? (int32_t)op : 0, kind == 2 ? imm : 0};
  vta_jit_kernel *k = vta_jit_kernel_find(jit, &tile_kernel, sig, sizeof sig);
  if (k) {
    *out = k;
    return VTA_OK;
  }
  int rc = vta_jit_kernel_begin(jit, &tile_kernel, sig, sizeof sig, &k, err);
  if (rc) return rc;
  int gemm = kind == 0;
  rc = vta_jit_kernel_loop_begin(k, t->m, t->n, gemm ? t->k : kind == 2 ? t->n : 0, 0, err);
  if (!rc) rc = vta_jit_kernel_loop_begin(k, t->n, 1, kind == 2 ? 1 : 0, gemm ? t->k : 0, err);
  for (uint32_t q = 0; !rc && q < (gemm ? t->k : 1); q++) {
    vta_jit_uop u = {.mode = kind == 2 ? VTA_JIT_ALU : VTA_JIT_GEMM,
                     .reset = kind == 1,
                     .src = gemm ? q : 0,
                     .wgt = gemm ? q : 0,
                     .alu_op = op,
                     .use_imm = kind == 2,
                     .imm = imm};
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

static int run_kernel(vta_jit *jit, const tile *t, int kind, vta_alu_op op, int32_t imm,
                      vta_error *err) {
  vta_jit_kernel *k;
  int rc = tile_kernel(jit, t, kind, op, imm, &k, err);
  return rc ? rc : vta_jit_push_kernel(jit, k, err);
}

/* Packs rows x cols int8 into elements of rb x cb (row-major elements, row-major inside). */
static void pack(const int8_t *src, int rows, int cols, int rb, int cb, int8_t *dst) {
  size_t i = 0;
  for (int r0 = 0; r0 < rows; r0 += rb)
    for (int c0 = 0; c0 < cols; c0 += cb)
      for (int r = 0; r < rb; r++)
        for (int c = 0; c < cb; c++) dst[i++] = src[(r0 + r) * cols + c0 + c];
}

int vta_cmd_demo(int argc, char **argv) {
  const char *cmd = "demo", *cfg_path = NULL, *backend_name = NULL;
  int dump = 0;
  for (int i = 1; i < argc; i++) {
    int r;
    if (vta_cli_is_help(argv[i])) {
      demo_help();
      return VTA_EXIT_OK;
    } else if (strcmp(argv[i], "--dump") == 0) {
      dump = 1;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--config", NULL, &cfg_path))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend", NULL, &backend_name))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else {
      return vta_cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
    }
  }
  vta_config cfg;
  if (vta_cli_config(cmd, cfg_path, &cfg) != 0) return VTA_EXIT_FAIL;
  const char *backend = vta_cli_backend(backend_name);
  int B = (int)cfg.batch, BI = (int)cfg.block_in, BO = (int)cfg.block_out;
  char shape[32];
  vta_config_shape_name(&cfg, shape, sizeof shape);
  if (DIM % B || DIM % BI || DIM % BO) {
    fprintf(stderr, "vta demo: the %dx%d demo needs BATCH and BLOCK to divide %d (config %s)\n",
            DIM, DIM, DIM, shape);
    return VTA_EXIT_FAIL;
  }
  tile t = {(uint32_t)(DIM / B), (uint32_t)(DIM / BO), (uint32_t)(DIM / BI)};
  if (t.m * t.k > cfg.depth[VTA_MEM_INP] || t.n * t.k > cfg.depth[VTA_MEM_WGT] ||
      t.m * t.n > cfg.depth[VTA_MEM_ACC]) {
    fprintf(stderr,
            "vta demo: A (%u INP), W (%u WGT) and C (%u ACC elements) do not fit the on-chip "
            "buffers of config %s (%u, %u, %u)\n",
            t.m * t.k, t.n * t.k, t.m * t.n, shape, cfg.depth[VTA_MEM_INP],
            cfg.depth[VTA_MEM_WGT], cfg.depth[VTA_MEM_ACC]);
    return VTA_EXIT_FAIL;
  }

  /* Inputs and the reference. */
  static int8_t a[DIM * DIM], w[DIM * DIM], ref[DIM * DIM], packed[DIM * DIM];
  uint32_t seed = 2024;
  for (int i = 0; i < DIM * DIM; i++) a[i] = (int8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
  for (int i = 0; i < DIM * DIM; i++) w[i] = (int8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
  for (int i = 0; i < DIM; i++)
    for (int j = 0; j < DIM; j++) {
      int32_t acc = 0;
      for (int k = 0; k < DIM; k++) acc += a[i * DIM + k] * w[j * DIM + k];
      acc = acc > 0 ? acc : 0;
      acc >>= SHIFT;
      ref[i * DIM + j] = (int8_t)(acc < 127 ? acc : 127);
    }

  printf("vta demo: C = clip(relu(A * W^T) >> %d, 127), A and W int8 %dx%d, on %s (config %s)\n",
         SHIFT, DIM, DIM, backend, shape);
  vta_error err = {0};
  vta_device *dev = NULL;
  vta_jit *jit = NULL;
  uint64_t da = 0, dw = 0, dc = 0;
  int status = VTA_EXIT_FAIL;
  vta_jit_options opt = {.debug = dump ? VTA_JIT_DUMP_INSN : 0, .dump = stdout};
  if (vta_device_open(backend, &cfg, NULL, &dev, &err) ||
      vta_device_alloc(dev, DIM * DIM, &da, &err) || vta_device_alloc(dev, DIM * DIM, &dw, &err) ||
      vta_device_alloc(dev, DIM * DIM, &dc, &err) || vta_jit_create(dev, &opt, &jit, &err))
    goto fail;
  pack(a, DIM, DIM, B, BI, packed);
  if (vta_device_copy_to(dev, da, packed, DIM * DIM, &err)) goto fail;
  pack(w, DIM, DIM, BO, BI, packed);
  if (vta_device_copy_to(dev, dw, packed, DIM * DIM, &err)) goto fail;
  printf("  data: A packed into %u INP elements of %dx%d, W into %u WGT elements of %dx%d\n",
         t.m * t.k, B, BI, t.n * t.k, BO, BI);

  /* 1. Load stage: A and W into the on-chip buffers, then tell compute. */
  printf("  1. load A and W into the INP and WGT buffers; token load -> compute\n");
  if (vta_jit_load(jit, &(vta_jit_xfer){.type = VTA_MEM_INP, .dram_phys = da, .x_size = t.k,
                                       .y_size = t.m, .x_stride = t.k}, &err) ||
      vta_jit_load(jit, &(vta_jit_xfer){.type = VTA_MEM_WGT, .dram_phys = dw, .x_size = t.k,
                                       .y_size = t.n, .x_stride = t.k}, &err) ||
      vta_jit_dep_push(jit, VTA_JIT_STAGE_LOAD, VTA_JIT_STAGE_COMPUTE, &err))
    goto fail;
  /* 2. Compute stage: wait for the loads, clear the accumulators, multiply-accumulate. */
  printf("  2. GEMM: reset %u accumulators, then %u micro-ops x %u x %u loop iterations\n",
         t.m * t.n, t.k, t.m, t.n);
  if (vta_jit_dep_pop(jit, VTA_JIT_STAGE_LOAD, VTA_JIT_STAGE_COMPUTE, &err) ||
      run_kernel(jit, &t, 1, VTA_ALU_MIN, 0, &err) || run_kernel(jit, &t, 0, VTA_ALU_MIN, 0, &err))
    goto fail;
  /* 3. Compute stage: the epilogue on the accumulators, then tell store. */
  printf("  3. ALU: MAX 0 (ReLU), SHR %d (requantize), MIN 127 (clip); token compute -> store\n",
         SHIFT);
  if (run_kernel(jit, &t, 2, VTA_ALU_MAX, 0, &err) ||
      run_kernel(jit, &t, 2, VTA_ALU_SHR, SHIFT, &err) ||
      run_kernel(jit, &t, 2, VTA_ALU_MIN, 127, &err) ||
      vta_jit_dep_push(jit, VTA_JIT_STAGE_COMPUTE, VTA_JIT_STAGE_STORE, &err))
    goto fail;
  /* 4. Store stage: wait for compute, write C back. */
  printf("  4. store C from the OUT buffer (%u elements)\n", t.m * t.n);
  if (vta_jit_dep_pop(jit, VTA_JIT_STAGE_COMPUTE, VTA_JIT_STAGE_STORE, &err) ||
      vta_jit_store(jit, &(vta_jit_xfer){.type = VTA_MEM_OUT, .dram_phys = dc, .x_size = t.n,
                                        .y_size = t.m, .x_stride = t.n}, &err))
    goto fail;
  vta_stats stats;
  memset(&stats, 0, sizeof stats);
  if (vta_jit_sync(jit, 0, &stats, &err)) goto fail;
  const vta_jit_counters *c = vta_jit_get_counters(jit);
  printf("  stream: %" PRIu64 " instructions (%" PRIu64 " token no-ops, FINISH included), %" PRIu64
         " micro-ops in %" PRIu64 " kernels; device time %.3f ms\n",
         c->insns, c->noops, c->uops_loaded, c->kernels, 1e3 * c->device_seconds);

  /* 5. Compare with the CPU. */
  int8_t out[DIM * DIM];
  if (vta_device_copy_from(dev, packed, dc, DIM * DIM, &err)) goto fail;
  size_t n = 0;
  for (int r0 = 0; r0 < DIM; r0 += B)
    for (int c0 = 0; c0 < DIM; c0 += BO)
      for (int r = 0; r < B; r++)
        for (int cc = 0; cc < BO; cc++) out[(r0 + r) * DIM + c0 + cc] = packed[n++];
  int match = 0, nonzero = 0;
  for (int i = 0; i < DIM * DIM; i++) {
    match += out[i] == ref[i];
    nonzero += ref[i] != 0;
  }
  printf("  result: %d of %d values equal the CPU reference (%d non-zero)\n", match, DIM * DIM,
         nonzero);
  printf("  statistics: ");
  vta_stats_print_json(&stats, &cfg, backend, stdout);
  printf("\n");
  status = match == DIM * DIM ? VTA_EXIT_OK : VTA_EXIT_FAIL;
  if (status != VTA_EXIT_OK) fprintf(stderr, "vta demo: the result is wrong\n");
  goto done;
fail:
  vta_cli_fail(cmd, &err);
done:
  vta_jit_destroy(jit);
  if (dev) {
    if (da) vta_device_free(dev, da);
    if (dw) vta_device_free(dev, dw);
    if (dc) vta_device_free(dev, dc);
    vta_device_close(dev);
  }
  return status;
}
