/* bench_overhead.c - `vta bench overhead`: the host's cost of one accelerator run on a backend.
 *
 * The design idea: a run's host side is the same whatever the program: write the inputs and the
 * stream into device memory, start the accelerator with its arguments, wait for it, read the
 * outputs back. This benchmark does exactly that with a stream of one FINISH (the device does
 * nothing), so what it measures is the backend's own overhead per run. For the xrt backend under
 * XRT's noop emulation (runs complete at once) that is the host flow of a card minus the
 * card: buffer syncs, argument setting, start and wait.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/bench.h"
#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/device.h"
#include "vta/isa.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int median_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int vta_bench_overhead(int argc, char **argv) {
  const char *cmd = "bench overhead", *backend_name = NULL, *cfg_path = NULL, *v;
  const char *xclbin = NULL, *device = NULL, *dev_opts = NULL;
  uint64_t runs = 1000, bytes = 4096;
  int r;
  for (int i = 1; i < argc; i++) {
    if (vta_cli_is_help(argv[i])) {
      printf(
          "usage: vta bench overhead [--backend NAME] [--runs N] [--bytes B] [--config FILE]\n"
          "                          [--xclbin FILE] [--device N] [--device-options S]\n"
          "\n"
          "The host's cost of one accelerator run: each of N runs copies B bytes of input\n"
          "and a one-instruction stream (FINISH) to the device, runs it and copies B bytes\n"
          "back. Prints one JSON line with the median times in microseconds: per_run_us (the\n"
          "whole), run_us (start and wait), copy_to_us, copy_from_us. Under XRT's noop\n"
          "emulation (XCL_EMULATION_MODE=noop, docs/user-guide/deploy.md) this is the xrt\n"
          "backend's host overhead per run.\n"
          "\n"
          "options:\n"
          "  --backend NAME     device backend (default: $VTA_BACKEND, else fsim)\n"
          "  --runs N           runs measured (default 1000, at most 1000000)\n"
          "  --bytes B          bytes copied each way per run (default 4096)\n"
          "  --config FILE      hardware configuration (default: $VTA_CONFIG, else built-in)\n"
          "  --xclbin FILE      xrt: the xclbin to load\n"
          "  --device N         xrt: the device index\n"
          "  --device-options S backend options\n"
          "\nexit status: 0 measured, 1 device failure, 2 bad command line.\n");
      return VTA_EXIT_OK;
    }
    if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend", NULL, &backend_name))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--runs", NULL, &v))) {
      if (r < 0 || vta_cli_parse_u64(cmd, "--runs", v, 1000000, &runs) || runs == 0)
        return r < 0 || runs ? VTA_EXIT_USAGE
                             : vta_cli_usage_error(cmd, "--runs must be at least 1");
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--bytes", NULL, &v))) {
      if (r < 0 || vta_cli_parse_u64(cmd, "--bytes", v, 1ull << 30, &bytes) || bytes == 0)
        return r < 0 || bytes ? VTA_EXIT_USAGE
                              : vta_cli_usage_error(cmd, "--bytes must be at least 1");
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--config", NULL, &cfg_path))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--xclbin", NULL, &xclbin))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--device", NULL, &device))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--device-options", NULL, &dev_opts))) {
      if (r < 0) return VTA_EXIT_USAGE;
    } else {
      return vta_cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    }
  }
  const char *backend = vta_cli_backend(backend_name);
  char buf[4096];
  int bad;
  const char *options =
      vta_cli_xrt_options(cmd, backend, xclbin, device, dev_opts, buf, sizeof buf, &bad);
  if (bad) return VTA_EXIT_USAGE;
  vta_config cfg;
  if (vta_cli_config(cmd, cfg_path, &cfg) != 0) return VTA_EXIT_FAIL;
  vta_device *dev = NULL;
  vta_error err = {0};
  uint8_t *in = malloc(bytes), *out = malloc(bytes);
  double *t_all = malloc(runs * sizeof *t_all), *t_run = malloc(runs * sizeof *t_run);
  double *t_to = malloc(runs * sizeof *t_to), *t_from = malloc(runs * sizeof *t_from);
  uint64_t insn = 0, din = 0, dout = 0;
  int status = VTA_EXIT_FAIL;
  if (!in || !out || !t_all || !t_run || !t_to || !t_from) {
    fprintf(stderr, "vta %s: out of memory for %" PRIu64 " runs of %" PRIu64 " bytes\n", cmd, runs,
            bytes);
    goto out;
  }
  for (uint64_t i = 0; i < bytes; i++) in[i] = (uint8_t)(i * 13 + 1);
  vta_insn fin = {.f = {[VTA_F_OPCODE] = VTA_OP_FINISH}};
  vta_insn_word w;
  uint8_t word[VTA_INSN_BYTES];
  if (vta_insn_encode(&cfg, &fin, &w, &err) != VTA_OK) goto fail;
  vta_insn_word_store(&w, word);
  if (vta_device_open(backend, &cfg, options, &dev, &err) ||
      vta_device_alloc(dev, VTA_INSN_BYTES, &insn, &err) ||
      vta_device_alloc(dev, bytes, &din, &err) || vta_device_alloc(dev, bytes, &dout, &err))
    goto fail;
  for (uint64_t k = 0; k < runs; k++) {
    double t0 = now_s();
    if (vta_device_copy_to(dev, din, in, bytes, &err) ||
        vta_device_copy_to(dev, insn, word, sizeof word, &err))
      goto fail;
    double t1 = now_s();
    if (vta_device_run(dev, insn, 1, 0, NULL, &err)) goto fail;
    double t2 = now_s();
    if (vta_device_copy_from(dev, out, dout, bytes, &err)) goto fail;
    double t3 = now_s();
    t_to[k] = t1 - t0;
    t_run[k] = t2 - t1;
    t_from[k] = t3 - t2;
    t_all[k] = t3 - t0;
  }
  qsort(t_all, runs, sizeof *t_all, median_cmp);
  qsort(t_run, runs, sizeof *t_run, median_cmp);
  qsort(t_to, runs, sizeof *t_to, median_cmp);
  qsort(t_from, runs, sizeof *t_from, median_cmp);
  char shape[64];
  vta_config_shape_name(&cfg, shape, sizeof shape);
  printf("{\"bench\":\"overhead\",\"backend\":\"%s\",\"config\":\"%s\",\"runs\":%" PRIu64
         ",\"bytes\":%" PRIu64
         ",\"per_run_us\":%.2f,\"run_us\":%.2f,\"copy_to_us\":%.2f,"
         "\"copy_from_us\":%.2f}\n",
         backend, shape, runs, bytes, 1e6 * t_all[runs / 2], 1e6 * t_run[runs / 2],
         1e6 * t_to[runs / 2], 1e6 * t_from[runs / 2]);
  status = VTA_EXIT_OK;
  goto out;
fail:
  vta_cli_fail(cmd, &err);
out:
  if (dev) vta_device_close(dev);
  free(in);
  free(out);
  free(t_all);
  free(t_run);
  free(t_to);
  free(t_from);
  return status;
}
