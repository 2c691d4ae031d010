/* cmd_asm.c - `vta asm` and `vta disasm`: between the text form of an instruction stream
 * (docs/isa-text.md) and the binary form the devices fetch (16 bytes per instruction,
 * little-endian).
 *
 * The design idea: the two directions are one pair that must agree byte for byte (assemble,
 * disassemble, assemble again gives the same file), so both live here and both are thin: the
 * encoder, decoder and text syntax are isa/'s, described once by its field table. What this file
 * adds is the file handling users expect from an assembler: errors that point at the line and
 * column, a binary that is checked as a whole before any text is printed, and outputs that are
 * written completely or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cli.h"
#include "host/cli_args.h"

static void asm_help(void) {
  printf("usage: vta asm IN.s -o OUT.bin [--config FILE]\n"
         "\n"
         "Assembles instruction text (one instruction per line, see docs/isa-text.md) into a\n"
         "binary instruction stream: 16 bytes per instruction, little-endian. Errors name the\n"
         "file, line and column and show the line with a caret. IN may be '-' for standard\n"
         "input, OUT may be '-' for standard output.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE  where to write the binary (required; written atomically)\n"
         "  --config FILE      hardware configuration whose field widths apply\n"
         "                     (default: $VTA_CONFIG, else the default 1x16x16)\n"
         "  -h, --help         show this help\n"
         "\n"
         "exit status: 0 assembled, 1 input error, 2 bad command line.\n");
}

static void disasm_help(void) {
  printf("usage: vta disasm IN.bin [-o OUT.s] [--index] [--config FILE]\n"
         "\n"
         "Disassembles a binary instruction stream (16 bytes per instruction) into the text form\n"
         "that vta asm reads back to the same bytes. A file whose size is not a multiple of 16,\n"
         "an undefined opcode or a reserved bit that is set is rejected, naming the instruction\n"
         "index and byte offset; no text is written then. IN may be '-' for standard input.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE  where to write the text (default: standard output; a file is\n"
         "                     written atomically)\n"
         "  --index            end each line with a comment giving the instruction index\n"
         "  --config FILE      hardware configuration whose field widths apply\n"
         "                     (default: $VTA_CONFIG, else the default 1x16x16)\n"
         "  -h, --help         show this help\n"
         "\n"
         "exit status: 0 disassembled, 1 input error, 2 bad command line.\n");
}

int vta_cmd_asm(int argc, char **argv) {
  const char *cmd = "asm", *in = NULL, *out = NULL, *config = NULL, *v;
  int only_operands = 0, i, r;
  vta_config cfg;
  uint8_t *bytes = NULL;
  size_t nbytes = 0;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_operands) {
      if (vta_cli_is_help(a)) {
        asm_help();
        return VTA_EXIT_OK;
      }
      if (strcmp(a, "--") == 0) {
        only_operands = 1;
        continue;
      }
      if ((r = vta_cli_option(cmd, argc, argv, &i, "--output", "-o", &v)) != 0) {
        if (r < 0)
          return VTA_EXIT_USAGE;
        out = v;
        continue;
      }
      if ((r = vta_cli_option(cmd, argc, argv, &i, "--config", NULL, &v)) != 0) {
        if (r < 0)
          return VTA_EXIT_USAGE;
        config = v;
        continue;
      }
      if (a[0] == '-' && a[1] != '\0')
        return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    }
    if (in)
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (only one input file)", a);
    in = a;
  }
  if (!in)
    return vta_cli_usage_error(cmd, "missing input file IN.s");
  if (!out)
    return vta_cli_usage_error(cmd, "missing output file: give -o OUT.bin");
  if (vta_cli_config(cmd, config, &cfg) != 0)
    return VTA_EXIT_FAIL;
  if (vta_cli_assemble_file(cmd, &cfg, in, &bytes, &nbytes) != 0)
    return VTA_EXIT_FAIL;
  r = vta_cli_write_file(cmd, out, bytes, nbytes);
  free(bytes);
  return r == 0 ? VTA_EXIT_OK : VTA_EXIT_FAIL;
}

int vta_cmd_disasm(int argc, char **argv) {
  const char *cmd = "disasm", *in = NULL, *out = NULL, *config = NULL, *v;
  int only_operands = 0, with_index = 0, i, r;
  vta_config cfg;
  vta_error err = {0};
  unsigned char *bytes = NULL;
  size_t nbytes = 0, textlen = 0;
  char *text = NULL;
  FILE *mem;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_operands) {
      if (vta_cli_is_help(a)) {
        disasm_help();
        return VTA_EXIT_OK;
      }
      if (strcmp(a, "--") == 0) {
        only_operands = 1;
        continue;
      }
      if (strcmp(a, "--index") == 0) {
        with_index = 1;
        continue;
      }
      if ((r = vta_cli_option(cmd, argc, argv, &i, "--output", "-o", &v)) != 0) {
        if (r < 0)
          return VTA_EXIT_USAGE;
        out = v;
        continue;
      }
      if ((r = vta_cli_option(cmd, argc, argv, &i, "--config", NULL, &v)) != 0) {
        if (r < 0)
          return VTA_EXIT_USAGE;
        config = v;
        continue;
      }
      if (a[0] == '-' && a[1] != '\0')
        return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    }
    if (in)
      return vta_cli_usage_error(cmd, "unexpected argument '%s' (only one input file)", a);
    in = a;
  }
  if (!in)
    return vta_cli_usage_error(cmd, "missing input file IN.bin");
  if (vta_cli_config(cmd, config, &cfg) != 0)
    return VTA_EXIT_FAIL;
  if (vta_cli_read_file(cmd, in, &bytes, &nbytes) != 0)
    return VTA_EXIT_FAIL;
  /* Check the whole stream before printing anything, so a bad word at the end does not leave
   * a half-printed listing on the terminal. */
  if (vta_cli_check_insns(cmd, &cfg, strcmp(in, "-") == 0 ? "<stdin>" : in, bytes, nbytes)) {
    free(bytes);
    return VTA_EXIT_FAIL;
  }
  /* The text goes to memory first and then to its destination in one atomic write. */
  mem = open_memstream(&text, &textlen);
  if (!mem) {
    fprintf(stderr, "vta %s: out of memory\n", cmd);
    free(bytes);
    return VTA_EXIT_FAIL;
  }
  r = vta_disasm(&cfg, bytes, nbytes, mem, with_index, &err);
  free(bytes);
  if (fclose(mem) != 0 && r == VTA_OK)
    r = vta_error_set(&err, VTA_ERR_NOMEM, "out of memory holding the disassembly");
  if (r != VTA_OK) {
    free(text);
    vta_error_prefix(&err, "%s", strcmp(in, "-") == 0 ? "<stdin>" : in);
    return vta_cli_fail(cmd, &err);
  }
  r = vta_cli_write_file(cmd, out ? out : "-", text, textlen);
  free(text);
  return r == 0 ? VTA_EXIT_OK : VTA_EXIT_FAIL;
}
