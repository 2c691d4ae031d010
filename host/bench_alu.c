/* bench_alu.c - `vta bench alu`: the ALU at full rate, with immediate and vector operands, as
 * one JSON line; and the device options and cycle-level fields it shares with `vta bench gemm`.
 *
 * The design idea: a requantisation-like workload long enough that loading its operands is
 * noise. One micro-op walks H destination rows of ACC (the outer loop, dst and src factors 1)
 * with the vector operand H rows further on, and K ALU instructions cycle through every opcode,
 * half of them with an immediate and half with the vector operand, so the figure shows whether
 * both forms issue one micro-op per cycle. The program is written with the ISA encoder and run
 * directly on a device (no runtime in the way), and the stored OUT rows are checked against a
 * plain C reading of ISA.md before anything is printed.
 */
#include "host/bench_alu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/device.h"
#include "vta/isa.h"

/* ---- Shared with bench gemm ---- */

const char *vta_bench_device_options(const char *cmd, const char *wave, const char *opts,
                                     char *buf, size_t n) {
  if (!wave && !opts) return NULL;
  int k = snprintf(buf, n, "%s%s%s%s", wave ? "wave=" : "", wave ? wave : "",
                   wave && opts ? "," : "", opts ? opts : "");
  if (k < 0 || (size_t)k >= n) {
    fprintf(stderr, "vta %s: --wave and --device-options are too long together (%zu bytes)\n",
            cmd, n - 1);
    return NULL;
  }
  return buf;
}

void vta_bench_print_cycles(FILE *out, const vta_stats *s, unsigned long long macs_per_cycle,
                            double device_seconds) {
  double bound = macs_per_cycle ? (double)s->macs / (double)macs_per_cycle : 0.0;
  if (macs_per_cycle) fprintf(out, ",\"compute_bound_cycles\":%.0f", bound);
  if (!s->cycles) return;
  static const char *const mod[VTA_MOD_COUNT] = {"load", "compute", "store"};
  fprintf(out, ",\"cycles\":%" PRIu64, s->cycles);
  if (macs_per_cycle) fprintf(out, ",\"utilisation\":%.4f", bound / (double)s->cycles);
  fprintf(out, ",\"busy_cycles\":{");
  for (int m = 0; m < VTA_MOD_COUNT; m++)
    fprintf(out, "%s\"%s\":%" PRIu64, m ? "," : "", mod[m], s->busy_cycles[m]);
  fprintf(out, "},\"stall_cycles\":{");
  for (int m = 0; m < VTA_MOD_COUNT; m++)
    fprintf(out, "%s\"%s\":%" PRIu64, m ? "," : "", mod[m], s->stall_cycles[m]);
  fprintf(out, "},\"sim_cycles_per_s\":%.0f",
          device_seconds > 0 ? (double)s->cycles / device_seconds : 0.0);
  if (s->cpu_seconds > 0) fprintf(out, ",\"device_cpu_seconds\":%.6f", s->cpu_seconds);
}

void vta_bench_stats_delta(const vta_stats *a, const vta_stats *b, vta_stats *d) {
  memset(d, 0, sizeof *d);
  d->insns = a->insns - b->insns;
  d->uops = a->uops - b->uops;
  d->gemm_uops = a->gemm_uops - b->gemm_uops;
  d->alu_uops = a->alu_uops - b->alu_uops;
  d->macs = a->macs - b->macs;
  d->cycles = a->cycles - b->cycles;
  for (int m = 0; m < VTA_MOD_COUNT; m++) {
    d->busy_cycles[m] = a->busy_cycles[m] - b->busy_cycles[m];
    d->stall_cycles[m] = a->stall_cycles[m] - b->stall_cycles[m];
  }
  d->wall_seconds = a->wall_seconds - b->wall_seconds;
  d->cpu_seconds = a->cpu_seconds - b->cpu_seconds;
}

/* ---- The ALU benchmark ---- */

static void alu_help(void) {
  printf("usage: vta bench alu [--rows H] [--ops K] [--config FILE] [--backend NAME]\n"
         "                     [--wave FILE] [--device-options OPTS]\n"
         "\n"
         "Runs K ALU instructions, each over H rows of ACC (one micro-op per row), cycling\n"
         "through MIN, MAX, ADD, SHR and MUL with immediate and with vector operands, checks the\n"
         "stored result against a CPU reference and prints one JSON line: micro-ops, device\n"
         "seconds, micro-ops per second and, on cycle-level backends (rtl), cycles, micro-ops\n"
         "per cycle, busy and stall cycles per module and simulated cycles per second.\n"
         "\n"
         "options:\n"
         "  --rows H             destination rows (default 1024, at most half the ACC depth)\n"
         "  --ops K              ALU instructions (default 1000)\n"
         "  --config FILE        hardware configuration (default: $VTA_CONFIG, else built in)\n"
         "  --backend NAME       device backend (default: $VTA_BACKEND, else fsim)\n"
         "  --wave FILE          write a waveform (rtl: FST) of the run\n"
         "  --timeline F.json    (rtl, sc) the run's timeline: trace-event JSON (Perfetto)\n"
         "  --device-options S   backend options, e.g. latency=64 (rtl)\n"
         "  -h, --help           show this help\n"
         "\n"
         "exit status: 0 correct result, 1 wrong result or failed run, 2 bad command line.\n");
}

typedef struct alu_step {
  vta_alu_op op;
  int use_imm;
  int32_t imm;
} alu_step;

/* The cycle of operations: a requantisation's shape (bias, scale, shift, clip), once with
 * immediates and once with per-element vectors. */
static const alu_step k_steps[] = {
    {VTA_ALU_ADD, 0, 0},    {VTA_ALU_MUL, 1, 3},    {VTA_ALU_SHR, 1, 2}, {VTA_ALU_MAX, 1, -1000},
    {VTA_ALU_MIN, 1, 1000}, {VTA_ALU_ADD, 1, 7},    {VTA_ALU_MIN, 0, 0}, {VTA_ALU_MAX, 0, 0},
    {VTA_ALU_SHR, 0, 0},    {VTA_ALU_MUL, 0, 0},
};
#define NSTEPS (sizeof k_steps / sizeof k_steps[0])

/* One lane of ISA.md section 3, 64-bit arithmetic truncated to 32 bits. */
static int32_t lane(vta_alu_op op, int32_t a, int32_t b, int shift_bits) {
  switch (op) {
  case VTA_ALU_MIN: return a < b ? a : b;
  case VTA_ALU_MAX: return a > b ? a : b;
  case VTA_ALU_ADD: return (int32_t)(uint32_t)((int64_t)a + b);
  case VTA_ALU_MUL: return (int32_t)(uint32_t)(uint64_t)((int64_t)a * b);
  default: {
    int64_t y = (int64_t)((uint32_t)b & ((1u << shift_bits) - 1));
    if (y >= (1 << (shift_bits - 1))) y -= 1 << shift_bits;
    return y >= 0 ? (int32_t)((int64_t)a >> y) : (int32_t)(uint32_t)((uint64_t)(uint32_t)a << -y);
  }
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t g_seed = 0x2545f4914f6cdd1dull;
static uint32_t rnd32(void) {
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 7;
  g_seed ^= g_seed << 17;
  return (uint32_t)(g_seed >> 16);
}

/* Encodes in into words[*n] (the caller sized words for the whole stream). */
static int put(const vta_config *cfg, const vta_insn *in, uint8_t *words, uint32_t *n,
               vta_error *err) {
  vta_insn_word w;
  int rc = vta_insn_encode(cfg, in, &w, err);
  if (rc == VTA_OK) vta_insn_word_store(&w, words + (size_t)(*n)++ * VTA_INSN_BYTES);
  return rc;
}

static int build_stream(const vta_config *cfg, uint32_t rows, uint32_t ops, uint64_t uop_phys,
                        uint64_t acc_phys, uint64_t out_phys, uint8_t *words, uint32_t *n,
                        vta_error *err) {
  vta_insn in;
  int rc = VTA_OK;
  *n = 0;
  memset(&in, 0, sizeof in);
  in.f[VTA_F_OPCODE] = VTA_OP_LOAD;
  in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_UOP;
  in.f[VTA_F_DRAM_BASE] = (int64_t)(uop_phys / VTA_UOP_BYTES);
  in.f[VTA_F_Y_SIZE] = in.f[VTA_F_X_SIZE] = in.f[VTA_F_X_STRIDE] = 1;
  rc = put(cfg, &in, words, n, err);
  in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_ACC;
  in.f[VTA_F_DRAM_BASE] = (int64_t)(acc_phys / cfg->elem_bytes[VTA_MEM_ACC]);
  in.f[VTA_F_X_SIZE] = in.f[VTA_F_X_STRIDE] = 2 * rows;
  if (rc == VTA_OK) rc = put(cfg, &in, words, n, err);
  for (uint32_t k = 0; k < ops && rc == VTA_OK; k++) {
    const alu_step *s = &k_steps[k % NSTEPS];
    memset(&in, 0, sizeof in);
    in.f[VTA_F_OPCODE] = VTA_OP_ALU;
    in.f[VTA_F_ALU_OPCODE] = s->op;
    in.f[VTA_F_USE_IMM] = s->use_imm;
    in.f[VTA_F_IMM] = s->imm;
    in.f[VTA_F_UOP_END] = 1;
    in.f[VTA_F_ITER_OUT] = rows;
    in.f[VTA_F_ITER_IN] = 1;
    in.f[VTA_F_DST_FACTOR_OUT] = 1;
    in.f[VTA_F_SRC_FACTOR_OUT] = 1;
    in.f[VTA_F_PUSH_NEXT] = k + 1 == ops;
    rc = put(cfg, &in, words, n, err);
  }
  memset(&in, 0, sizeof in);
  in.f[VTA_F_OPCODE] = VTA_OP_STORE;
  in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_OUT;
  in.f[VTA_F_DRAM_BASE] = (int64_t)(out_phys / cfg->elem_bytes[VTA_MEM_OUT]);
  in.f[VTA_F_Y_SIZE] = 1;
  in.f[VTA_F_X_SIZE] = in.f[VTA_F_X_STRIDE] = rows;
  in.f[VTA_F_POP_PREV] = in.f[VTA_F_PUSH_PREV] = 1;
  if (rc == VTA_OK) rc = put(cfg, &in, words, n, err);
  memset(&in, 0, sizeof in); /* a compute no-op waits for the store: FINISH may not pop */
  in.f[VTA_F_OPCODE] = VTA_OP_LOAD;
  in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_UOP;
  in.f[VTA_F_POP_NEXT] = 1;
  if (rc == VTA_OK) rc = put(cfg, &in, words, n, err);
  memset(&in, 0, sizeof in);
  in.f[VTA_F_OPCODE] = VTA_OP_FINISH;
  if (rc == VTA_OK) rc = put(cfg, &in, words, n, err);
  return rc;
}

int vta_bench_alu(int argc, char **argv) {
  const char *cmd = "bench alu", *cfg_path = NULL, *backend_name = NULL, *wave = NULL, *timeline = NULL;
  const char *dev_opts = NULL, *v;
  uint64_t rows = 0, ops = 1000;
  for (int i = 1; i < argc; i++) {
    int r;
    if (vta_cli_is_help(argv[i])) {
      alu_help();
      return VTA_EXIT_OK;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--rows", NULL, &v))) {
      if (r < 0 || vta_cli_parse_u64(cmd, "--rows", v, 1u << 14, &rows) != 0)
        return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--ops", NULL, &v))) {
      if (r < 0 || vta_cli_parse_u64(cmd, "--ops", v, 1u << 20, &ops) != 0) return VTA_EXIT_USAGE;
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
  vta_config cfg;
  if (vta_cli_config(cmd, cfg_path, &cfg) != 0) return VTA_EXIT_FAIL;
  if (cfg.acc_width != 32 || cfg.out_width != 8) {
    fprintf(stderr, "vta %s: the reference handles 32-bit ACC and 8-bit OUT only (this "
                    "configuration has %u and %u)\n",
            cmd, cfg.acc_width, cfg.out_width);
    return VTA_EXIT_FAIL;
  }
  uint32_t half = cfg.depth[VTA_MEM_ACC] / 2;
  if (rows == 0) rows = half < 1024 ? half : 1024;
  if (rows > half || ops == 0)
    return vta_cli_usage_error(cmd, "--rows %llu must be 1 to %u (half the ACC depth) and --ops "
                                    "at least 1",
                               (unsigned long long)rows, half);
  char optbuf[1024];
  const char *options = vta_bench_device_options(cmd, wave, dev_opts, optbuf, sizeof optbuf);
  if ((wave || dev_opts) && !options) return VTA_EXIT_USAGE;
  char tlbuf[2200];
  if (timeline) {
    options = vta_cli_timeline_options(cmd, vta_cli_backend(backend_name), timeline, options,
                                       tlbuf, sizeof tlbuf);
    if (!options) return VTA_EXIT_USAGE;
  }
  const char *backend = vta_cli_backend(backend_name);
  uint32_t lanes = cfg.batch * cfg.block_out, H = (uint32_t)rows, K = (uint32_t)ops;
  size_t acc_bytes = (size_t)2 * H * cfg.elem_bytes[VTA_MEM_ACC];
  size_t out_bytes = (size_t)H * cfg.elem_bytes[VTA_MEM_OUT];
  size_t stream_bytes = ((size_t)K + 5) * VTA_INSN_BYTES;
  int32_t *acc = malloc(acc_bytes);
  int8_t *out = malloc(out_bytes);
  uint8_t *words = malloc(stream_bytes);
  vta_device *dev = NULL;
  vta_error err = {0};
  uint64_t insn_phys = 0, uop_phys = 0, acc_phys = 0, out_phys = 0;
  int status = VTA_EXIT_FAIL;
  if (!acc || !out || !words) {
    fprintf(stderr, "vta %s: out of memory\n", cmd);
    goto done;
  }
  /* Destinations of moderate size, vector operands small (a bias, a scale, a shift). */
  for (size_t i = 0; i < (size_t)H * lanes; i++)
    acc[i] = (int32_t)(rnd32() % (1u << 21)) - (1 << 20);
  for (size_t i = (size_t)H * lanes; i < (size_t)2 * H * lanes; i++)
    acc[i] = (int32_t)(rnd32() % 129) - 64;
  uint32_t uop_word;
  if (vta_uop_encode(&cfg, &(vta_uop){0, H, 0}, &uop_word, &err) != VTA_OK) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  uint8_t uop_bytes[4] = {(uint8_t)uop_word, (uint8_t)(uop_word >> 8), (uint8_t)(uop_word >> 16),
                          (uint8_t)(uop_word >> 24)};
  uint32_t n = 0;
  if (vta_device_open(backend, &cfg, options, &dev, &err) ||
      vta_device_alloc(dev, 4, &uop_phys, &err) || vta_device_alloc(dev, acc_bytes, &acc_phys, &err) ||
      vta_device_alloc(dev, out_bytes, &out_phys, &err) ||
      vta_device_alloc(dev, stream_bytes, &insn_phys, &err) ||
      build_stream(&cfg, H, K, uop_phys, acc_phys, out_phys, words, &n, &err) ||
      vta_device_copy_to(dev, uop_phys, uop_bytes, 4, &err) ||
      vta_device_copy_to(dev, acc_phys, acc, acc_bytes, &err) ||
      vta_device_copy_to(dev, insn_phys, words, (size_t)n * VTA_INSN_BYTES, &err)) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  vta_stats st;
  memset(&st, 0, sizeof st);
  double t0 = now();
  if (vta_device_run(dev, insn_phys, n, 0, &st, &err) != VTA_OK) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  double device = now() - t0;
  if (vta_device_copy_from(dev, out, out_phys, out_bytes, &err) != VTA_OK) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  /* The reference, step by step over all rows. */
  int shift_bits = cfg.log_acc_width + 1;
  for (uint32_t k = 0; k < K; k++) {
    const alu_step *s = &k_steps[k % NSTEPS];
    for (size_t i = 0; i < (size_t)H * lanes; i++)
      acc[i] = lane(s->op, acc[i], s->use_imm ? s->imm : acc[(size_t)H * lanes + i], shift_bits);
  }
  for (size_t i = 0; i < (size_t)H * lanes; i++)
    if (out[i] != (int8_t)acc[i]) {
      fprintf(stderr, "vta %s: wrong result: row %zu lane %zu is %d, the CPU reference gives %d\n",
              cmd, i / lanes, i % lanes, out[i], (int8_t)acc[i]);
      goto done;
    }
  char shape[32];
  vta_config_shape_name(&cfg, shape, sizeof shape);
  uint64_t imm_ops = 0;
  for (uint32_t k = 0; k < K; k++) imm_ops += (uint64_t)k_steps[k % NSTEPS].use_imm;
  printf("{\"bench\":\"alu\",\"backend\":\"%s\",\"config\":\"%s\",\"rows\":%u,\"ops\":%u,"
         "\"imm_ops\":%" PRIu64 ",\"vector_ops\":%" PRIu64 ",\"insns\":%" PRIu64
         ",\"uops\":%" PRIu64 ",\"device_seconds\":%.6f,\"uops_per_s\":%.0f",
         backend, shape, H, K, imm_ops, (uint64_t)K - imm_ops, st.insns, st.alu_uops, device,
         device > 0 ? (double)st.alu_uops / device : 0.0);
  vta_bench_print_cycles(stdout, &st, 0, device); /* no MACs: no GEMM bound */
  if (st.cycles)
    printf(",\"uops_per_cycle\":%.4f", (double)st.alu_uops / (double)st.cycles);
  printf(",\"verified\":true}\n");
  status = VTA_EXIT_OK;
done:
  if (dev) vta_device_close(dev);
  free(acc);
  free(out);
  free(words);
  return status;
}
