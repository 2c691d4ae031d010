/* cmd_config.c - `vta config`: validate a hardware configuration and print what follows from it.
 *
 * The design idea: the configuration is the single source of truth of the ISA (field widths,
 * buffer depths, element sizes), so the quickest check of a new config file is to let isa/
 * derive everything from it and show the result. Validation, derivation and printing are all
 * isa/'s; this file only picks the file (argument, $VTA_CONFIG, or the default) and the form.
 */
#include <stdio.h>
#include <string.h>

#include "host/cli.h"
#include "host/cli_args.h"

static void config_help(void) {
  printf("usage: vta config [FILE] [--json]\n"
         "\n"
         "Validates a hardware configuration (the JSON keys of VTA's vta_config.json) and prints\n"
         "its keys, derived values (element sizes, buffer depths, peak MACs per cycle) and the\n"
         "bit layout of every instruction format. Without FILE it reads $VTA_CONFIG, or uses\n"
         "the default configuration (1x16x16) when that is not set.\n"
         "\n"
         "options:\n"
         "  --json      print the keys and the derived values as one JSON object\n"
         "  -h, --help  show this help\n"
         "\n"
         "exit status: 0 valid, 1 invalid or unreadable configuration, 2 bad command line.\n");
}

int vta_cmd_config(int argc, char **argv) {
  const char *cmd = "config", *path = NULL;
  int json = 0, only_operands = 0, i;
  vta_config cfg;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_operands && vta_cli_is_help(a)) {
      config_help();
      return VTA_EXIT_OK;
    } else if (!only_operands && strcmp(a, "--json") == 0) {
      json = 1;
    } else if (!only_operands && strcmp(a, "--") == 0) {
      only_operands = 1;
    } else if (!only_operands && a[0] == '-' && a[1] != '\0') {
      return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    } else if (path) {
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (only one FILE)", a);
    } else {
      path = a;
    }
  }
  if (vta_cli_config(cmd, path, &cfg) != 0)
    return VTA_EXIT_FAIL;
  if (json) {
    vta_config_print_json(&cfg, stdout);
  } else {
    vta_config_print(&cfg, stdout);
  }
  return VTA_EXIT_OK;
}
