/* main.c - the `vta` tool: finds the subcommand named by argv[1] and hands it the rest.
 *
 * The design idea: the list of subcommands is written once (VTA_COMMANDS in cli.h) and expanded
 * here into the dispatch table and the help text, so a new subcommand is one line there and one
 * file in host/. The subcommand functions are weak symbols: a command whose area is not linked
 * into this build has a NULL function and is reported as absent ("not built in this version",
 * exit 2) rather than pretended.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/config.h"
#include "vta/device.h"

#ifndef VTA_VERSION
#define VTA_VERSION "0.1.0"
#endif

typedef struct vta_command {
  const char *name;
  const char *summary;
  int (*fn)(int argc, char **argv);
} vta_command;

static const vta_command commands[] = {
#define VTA_X_(name, summary) {#name, summary, vta_cmd_##name},
    VTA_COMMANDS(VTA_X_)
#undef VTA_X_
};

static void usage(FILE *out) {
  size_t i;
  fprintf(out,
          "usage: vta <command> [options] [arguments]\n"
          "       vta help <command>      (same as vta <command> --help)\n"
          "       vta --version\n"
          "\n"
          "An open deep-learning accelerator stack compatible with VTA.\n"
          "\n"
          "commands:\n");
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-9s %s%s\n", commands[i].name, commands[i].summary,
            commands[i].fn ? "" : " (not built)");
  fprintf(out,
          "\n"
          "environment: VTA_CONFIG (hardware configuration file used when --config is not\n"
          "given), VTA_BACKEND (device backend used when --backend is not given; default fsim).\n"
          "exit status: 0 success, 1 the work failed, 2 bad command line.\n");
}

static void version(void) {
  const vta_backend *const *b;
  vta_config cfg;
  vta_config_default(&cfg);
  printf("vta %s\n", VTA_VERSION);
  printf("ISA: VTA HW_VER %s\n", cfg.hw_ver);
  printf("backends:");
  for (b = vta_backends(); *b; b++)
    printf(" %s", (*b)->name);
  printf("\n");
}

static const vta_command *find(const char *name) {
  size_t i;
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static int dispatch(const char *name, int argc, char **argv) {
  const vta_command *c = find(name);
  if (!c) {
    fprintf(stderr, "vta: unknown command '%s' (see 'vta --help')\n", name);
    return VTA_EXIT_USAGE;
  }
  if (!c->fn) {
    fprintf(stderr, "vta %s: not built in this version\n", name);
    return VTA_EXIT_USAGE;
  }
  return c->fn(argc, argv);
}

static int run(int argc, char **argv) {
  const char *a;
  if (argc < 2) {
    usage(stderr);
    return VTA_EXIT_USAGE;
  }
  a = argv[1];
  if (vta_cli_is_help(a)) {
    usage(stdout);
    return VTA_EXIT_OK;
  }
  if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
    version();
    return VTA_EXIT_OK;
  }
  if (strcmp(a, "help") == 0) {
    /* `vta help CMD` is `vta CMD --help`: argv is rewritten in place to "CMD --help". */
    static char help_flag[] = "--help";
    if (argc == 2) {
      usage(stdout);
      return VTA_EXIT_OK;
    }
    if (argc > 3) {
      fprintf(stderr, "vta help: unexpected argument '%s' (usage: vta help <command>)\n",
              argv[3]);
      return VTA_EXIT_USAGE;
    }
    argv[1] = argv[2];
    argv[2] = help_flag;
    return dispatch(argv[1], 2, argv + 1);
  }
  if (a[0] == '-') {
    fprintf(stderr, "vta: unknown option '%s' (see 'vta --help')\n", a);
    return VTA_EXIT_USAGE;
  }
  return dispatch(a, argc - 1, argv + 1);
}

int main(int argc, char **argv) {
  int status = run(argc, argv);
  /* Output that could not be written (a full disk, a closed pipe) is a failure, not a
   * success with a short file. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "vta: cannot write standard output: %s\n", strerror(errno));
    if (status == VTA_EXIT_OK)
      status = VTA_EXIT_FAIL;
  }
  return status;
}
