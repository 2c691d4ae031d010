/* cli_args.h - argument-parsing helpers shared by the `vta` subcommands (host/cli_common.c),
 * beside the ones cli.h declares.
 *
 * Every subcommand parses its own arguments with a plain loop over argv (options may come
 * before or after the operands, "--" ends the options, a lone "-" is an operand meaning standard
 * input or output). These helpers keep the messages and exit statuses identical everywhere:
 * usage errors are "vta <cmd>: <problem> (see 'vta <cmd> --help')" with exit status 2, library
 * errors are "vta <cmd>: <vta_error.msg>" with exit status 1.
 */
#ifndef VTA_HOST_CLI_ARGS_H
#define VTA_HOST_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "vta/config.h"
#include "vta/status.h"

/* Exit statuses of every subcommand. */
enum {
  VTA_EXIT_OK = 0,
  VTA_EXIT_FAIL = 1,  /* the work itself failed: bad input file, library error, device error */
  VTA_EXIT_USAGE = 2  /* the command line is wrong */
};

/* Is arg "--help" or "-h"? */
int vta_cli_is_help(const char *arg);

/* Matches argv[*i] against an option that takes a value: `name VALUE`, `name=VALUE`, or `alias
 * VALUE` when alias is not NULL. Returns 1 (and advances *i past the value) on a match, 0 when
 * argv[*i] is something else, -1 after printing a usage error when the value is missing. */
int vta_cli_option(const char *cmd, int argc, char **argv, int *i, const char *name,
                   const char *alias, const char **value);

/* Prints "vta <cmd>: <message> (see 'vta <cmd> --help')" to stderr; returns VTA_EXIT_USAGE. */
int vta_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "vta <cmd>: <err->msg>" to stderr; returns VTA_EXIT_FAIL. */
int vta_cli_fail(const char *cmd, const vta_error *err);

/* Does path end in suffix? */
int vta_cli_has_suffix(const char *path, const char *suffix);

/* Checks that nbytes of a binary instruction stream read from `path` are whole 16-byte
 * instructions that decode under cfg; prints "vta <cmd>: <path>: ..." naming the instruction
 * index and byte offset of the first problem and returns -1. An empty stream is accepted. */
int vta_cli_check_insns(const char *cmd, const vta_config *cfg, const char *path,
                        const uint8_t *bytes, size_t nbytes);

/* Assembles the text file `path` (read whole) into a malloc'd byte stream of 16-byte
 * instructions. Prints the assembler's error ("file:line:col: message", the line, a caret) and
 * returns -1 on failure. */
int vta_cli_assemble_file(const char *cmd, const vta_config *cfg, const char *path,
                          uint8_t **bytes, size_t *nbytes);

#endif
