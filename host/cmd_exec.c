/* cmd_exec.c - `vta exec`: run one instruction stream on one raw device-memory image.
 *
 * The design idea: the smallest complete use of a device, for hardware engineers who write
 * instruction streams by hand or get them from another tool. The image is a file of bytes that
 * is placed at a fixed physical address (--base), so the dram_base fields of the program can be
 * written as plain numbers; the instructions go wherever the device allocator puts them, outside
 * the image. After the run the image is copied back and saved: the whole effect of the program
 * is a file to compare, and the same command runs on every backend. A run that fails (deadlock,
 * an SRAM index or DMA outside its bounds, a timeout) writes nothing at all, so a stale or
 * partial image is never mistaken for a result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/device.h"
#include "vta/stats.h"

static void exec_help(void) {
  printf("usage: vta exec PROG --mem IMAGE.bin [--base ADDR] [--out OUT.bin] [--stats FILE|-]\n"
         "                [--backend NAME] [--config FILE] [--timeout N] [--timeline FILE.json]\n"
         "\n"
         "Runs an instruction stream on a device whose memory holds IMAGE.bin at physical\n"
         "address ADDR, then copies the image back. PROG is a binary stream (16 bytes per\n"
         "instruction) or, if its name ends in .s or .asm, instruction text assembled first. The\n"
         "program's dram_base fields are physical addresses in elements of their memory type, so\n"
         "with --base 0 they are offsets into the image. The instructions themselves are placed\n"
         "outside the image. The run's statistics are printed as one JSON line.\n"
         "\n"
         "options:\n"
         "  --mem IMAGE.bin  the device-memory image (required)\n"
         "  --base ADDR      physical address of the image's first byte (default 0)\n"
         "  --out OUT.bin    write the image after the run here (atomically); without it\n"
         "                   nothing is written\n"
         "  --stats FILE|-   where the statistics JSON line goes (default '-': standard output)\n"
         "  --backend NAME   device backend (default: $VTA_BACKEND, else fsim)\n"
         "  --config FILE    hardware configuration (default: $VTA_CONFIG, else 1x16x16)\n"
         "  --timeout N      give up after N device cycles (instructions on fsim);\n"
         "                   0 is the default limit of %llu\n"
         "  --timeline F     (rtl, sc) write the run's timeline to F: Chrome trace-event\n"
         "                   JSON for ui.perfetto.dev, one track per module, a span per\n"
         "                   instruction, token queue and bytes-in-flight counters\n"
         "  -h, --help       show this help\n"
         "\n"
         "exit status: 0 the program ran to FINISH, 1 bad input or a failed run (deadlock,\n"
         "out-of-range SRAM index, DMA outside the image, timeout: nothing is written then),\n"
         "2 bad command line.\n",
         (unsigned long long)VTA_DEFAULT_TIMEOUT);
}

typedef struct exec_args {
  const char *prog, *mem, *out, *stats, *backend, *config, *timeline;
  uint64_t base, timeout;
} exec_args;

/* Parses the command line into a; returns -1 for --help, else an exit status. */
static int parse_args(int argc, char **argv, exec_args *a) {
  const char *cmd = "exec", *v, *base = NULL, *timeout = NULL;
  int only_operands = 0, i, r;
  memset(a, 0, sizeof *a);
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!only_operands) {
      /* Option names and where their values go, so the loop below is one test per option. */
      struct { const char *name; const char **dst; } opts[] = {
          {"--mem", &a->mem},         {"--base", &base},         {"--out", &a->out},
          {"--stats", &a->stats},     {"--backend", &a->backend}, {"--config", &a->config},
          {"--timeout", &timeout},    {"--timeline", &a->timeline},
      };
      size_t k;
      if (vta_cli_is_help(arg)) {
        exec_help();
        return -1;
      }
      if (strcmp(arg, "--") == 0) {
        only_operands = 1;
        continue;
      }
      for (k = 0, r = 0; k < sizeof opts / sizeof opts[0] && r == 0; k++)
        if ((r = vta_cli_option(cmd, argc, argv, &i, opts[k].name, NULL, &v)) > 0)
          *opts[k].dst = v;
      if (r < 0)
        return VTA_EXIT_USAGE;
      if (r > 0)
        continue;
      if (arg[0] == '-' && arg[1] != '\0')
        return vta_cli_usage_error(cmd, "unknown option '%s'", arg);
    }
    if (a->prog)
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (only one program)", arg);
    a->prog = arg;
  }
  if (!a->prog)
    return vta_cli_usage_error(cmd, "missing program PROG (.bin, or .s text)");
  if (!a->mem)
    return vta_cli_usage_error(cmd, "missing memory image: give --mem IMAGE.bin");
  if (base && vta_cli_parse_u64(cmd, "--base", base, UINT64_MAX, &a->base) != 0)
    return VTA_EXIT_USAGE;
  if (timeout && vta_cli_parse_u64(cmd, "--timeout", timeout, UINT64_MAX, &a->timeout) != 0)
    return VTA_EXIT_USAGE;
  if (!a->stats)
    a->stats = "-";
  if (a->out && strcmp(a->out, "-") == 0 && strcmp(a->stats, "-") == 0)
    return vta_cli_usage_error(cmd, "--out - and the statistics would both go to standard "
                                    "output; give --stats FILE");
  if (strcmp(a->prog, "-") == 0 && strcmp(a->mem, "-") == 0)
    return vta_cli_usage_error(cmd, "PROG and --mem cannot both be standard input");
  a->backend = vta_cli_backend(a->backend);
  if (!vta_backend_find(a->backend)) {
    const vta_backend *const *b;
    fprintf(stderr, "vta %s: unknown backend '%s'; built backends:", cmd, a->backend);
    for (b = vta_backends(); *b; b++)
      fprintf(stderr, " %s", (*b)->name);
    fprintf(stderr, " (see 'vta %s --help')\n", cmd);
    return VTA_EXIT_USAGE;
  }
  return VTA_EXIT_OK;
}

/* Reads the program: text assembled on the fly, or a binary checked to be whole instructions
 * that decode, so that a bad file is reported by byte offset before any device is opened. */
static int load_program(const char *cmd, const vta_config *cfg, const char *path,
                        uint8_t **bytes, size_t *nbytes) {
  if (vta_cli_has_suffix(path, ".s") || vta_cli_has_suffix(path, ".asm"))
    return vta_cli_assemble_file(cmd, cfg, path, bytes, nbytes);
  if (vta_cli_read_file(cmd, path, bytes, nbytes) != 0)
    return -1;
  if (vta_cli_check_insns(cmd, cfg, strcmp(path, "-") == 0 ? "<stdin>" : path, *bytes,
                          *nbytes) != 0) {
    free(*bytes);
    *bytes = NULL;
    return -1;
  }
  return 0;
}

/* Places the image and the program in device memory, runs, and copies the image back into
 * `image`. Returns a vta_status with err filled. */
static int run_on_device(const exec_args *a, const vta_config *cfg, unsigned char *image,
                         size_t image_size, const uint8_t *prog, size_t prog_size,
                         vta_stats *stats, vta_error *err) {
  vta_device *dev = NULL;
  uint64_t insn_phys = 0;
  char optbuf[4200];
  const char *options = vta_cli_timeline_options("exec", a->backend, a->timeline, NULL, optbuf,
                                                 sizeof optbuf);
  if (a->timeline && !options)
    return vta_error_set(err, VTA_ERR_INVALID, "--timeline needs the rtl or sc backend");
  int r = vta_device_open(a->backend, cfg, options, &dev, err);
  if (r != VTA_OK)
    return r;
  if ((r = vta_device_alloc_at(dev, a->base, image_size, err)) != VTA_OK)
    goto done;
  if ((r = vta_device_copy_to(dev, a->base, image, image_size, err)) != VTA_OK)
    goto done;
  if ((r = vta_device_alloc(dev, prog_size, &insn_phys, err)) != VTA_OK)
    goto done;
  if ((r = vta_device_copy_to(dev, insn_phys, prog, prog_size, err)) != VTA_OK)
    goto done;
  if ((r = vta_device_run(dev, insn_phys, (uint32_t)(prog_size / VTA_INSN_BYTES), a->timeout,
                          stats, err)) != VTA_OK)
    goto done;
  r = vta_device_copy_from(dev, image, a->base, image_size, err);
done:
  vta_device_close(dev);
  return r;
}

int vta_cmd_exec(int argc, char **argv) {
  const char *cmd = "exec";
  exec_args a;
  vta_config cfg;
  vta_error err = {0};
  vta_stats stats;
  unsigned char *image = NULL;
  uint8_t *prog = NULL;
  size_t image_size = 0, prog_size = 0;
  int status = parse_args(argc, argv, &a);
  if (status < 0)
    return VTA_EXIT_OK;
  if (status != VTA_EXIT_OK)
    return status;
  if (vta_cli_config(cmd, a.config, &cfg) != 0)
    return VTA_EXIT_FAIL;
  status = VTA_EXIT_FAIL;
  if (load_program(cmd, &cfg, a.prog, &prog, &prog_size) != 0)
    goto done;
  if (prog_size == 0) {
    fprintf(stderr, "vta %s: %s: no instructions (a program ends with FINISH)\n", cmd, a.prog);
    goto done;
  }
  if (prog_size / VTA_INSN_BYTES > UINT32_MAX) {
    fprintf(stderr, "vta %s: %s: %zu instructions is more than a run can take (%lu)\n", cmd,
            a.prog, prog_size / VTA_INSN_BYTES, (unsigned long)UINT32_MAX);
    goto done;
  }
  if (vta_cli_read_file(cmd, a.mem, &image, &image_size) != 0)
    goto done;
  if (image_size == 0) {
    fprintf(stderr, "vta %s: %s: empty memory image\n", cmd, a.mem);
    goto done;
  }
  if (image_size - 1 > UINT64_MAX - a.base) {
    fprintf(stderr, "vta %s: --base 0x%llx + %zu bytes of %s passes the end of the 64-bit "
                    "address space\n",
            cmd, (unsigned long long)a.base, image_size, a.mem);
    goto done;
  }
  memset(&stats, 0, sizeof stats);
  if (run_on_device(&a, &cfg, image, image_size, prog, prog_size, &stats, &err) != VTA_OK) {
    vta_cli_fail(cmd, &err);
    goto done;
  }
  {
    /* The JSON line is built in memory so a --stats file is written whole or not at all, and
     * the two outputs are written so that a failure leaves neither: a stats file first (removed
     * again if the image cannot be written), standard output last. */
    char *json = NULL;
    size_t json_len = 0;
    FILE *mem = open_memstream(&json, &json_len);
    int ok;
    if (!mem) {
      fprintf(stderr, "vta %s: out of memory\n", cmd);
      goto done;
    }
    vta_stats_print_json(&stats, &cfg, a.backend, mem);
    fputc('\n', mem);
    ok = fclose(mem) == 0;
    if (!ok)
      fprintf(stderr, "vta %s: out of memory holding the statistics\n", cmd);
    int stats_to_file = strcmp(a.stats, "-") != 0;
    if (ok && stats_to_file) ok = vta_cli_write_file(cmd, a.stats, json, json_len) == 0;
    if (ok && a.out && vta_cli_write_file(cmd, a.out, image, image_size) != 0) {
      if (stats_to_file) unlink(a.stats);
      ok = 0;
    }
    if (ok && !stats_to_file) ok = vta_cli_write_file(cmd, a.stats, json, json_len) == 0;
    free(json);
    if (!ok)
      goto done;
  }
  status = VTA_EXIT_OK;
done:
  free(prog);
  free(image);
  return status;
}
