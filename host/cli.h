/* cli.h - the `vta` command line: one function per subcommand, listed once in VTA_COMMANDS.
 *
 * Each subcommand is `int vta_cmd_<name>(int argc, char **argv)` where argv[0] is the
 * subcommand's name; it returns the process exit status (0 success, 1 failure of the run, 2 bad
 * usage) and prints its own errors to stderr as "vta <name>: <what is wrong>". Every
 * subcommand answers --help. The functions are declared weak so that a subcommand whose area is
 * not built yet is reported as absent instead of failing the link.
 */
#ifndef VTA_HOST_CLI_H
#define VTA_HOST_CLI_H

#include "vta/config.h"

/* X(name, one-line summary) */
#define VTA_COMMANDS(X)                                                                  \
  X(config, "validate a hardware configuration and print its derived values")          \
  X(asm, "assemble instruction text into a binary instruction stream")                 \
  X(disasm, "disassemble a binary instruction stream into text")                       \
  X(exec, "run an instruction stream on a device-memory image and save the memory")   \
  X(demo, "run a small demonstration program through the runtime and check it")       \
  X(bench, "run a benchmark and print JSON lines")                                     \
  X(compile, "compile an ONNX model into a bundle")                                    \
  X(run, "run a compiled bundle or an ONNX model on inputs (.npy)")                    \
  X(info, "describe a compiled bundle")                                                \
  X(tune, "measure tilings of a bundle's accelerator layers and record the fastest") \
  X(sweep, "sweep hardware parameters: cycles against FPGA resources, Pareto plot") \
  X(regress, "run a simulation regression of the backends against fsim (JUnit XML)")

#define VTA_X_(name, summary) int vta_cmd_##name(int argc, char **argv) __attribute__((weak));
VTA_COMMANDS(VTA_X_)
#undef VTA_X_

/* Shared option handling (host/cli_common.c). */

/* Loads the configuration: path if not NULL, else $VTA_CONFIG, else the default. Prints
 * "vta <cmd>: <error>" and returns -1 on failure. */
int vta_cli_config(const char *cmd, const char *path, vta_config *cfg);
/* The backend name: name if not NULL, else $VTA_BACKEND, else "fsim". */
const char *vta_cli_backend(const char *name);
/* The device options of --xclbin FILE and --device N (xrt backend) joined with --backend-options
 * into buf: "xclbin=FILE,device=N,<opts>". NULL when none is given. Prints a usage error and
 * sets *bad when --xclbin or --device is given for another backend or the result is too long. */
const char *vta_cli_xrt_options(const char *cmd, const char *backend, const char *xclbin,
                                const char *device, const char *opts, char *buf, size_t n,
                                int *bad);
/* Parses an unsigned integer (decimal or 0x hex) with a limit; prints an error naming the
 * option and returns -1 if it is not a number or exceeds max. */
int vta_cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t max,
                      uint64_t *out);
/* Reads a whole file (binary). Prints the error and returns -1 on failure. */
int vta_cli_read_file(const char *cmd, const char *path, unsigned char **data, size_t *size);
/* The backend options with "timeline=FILE" added for --timeline FILE (NULL: options unchanged).
 * Only the cycle-level backends (rtl, sc) record timelines; otherwise, or when the result does
 * not fit buf, prints the error and returns NULL. */
const char *vta_cli_timeline_options(const char *cmd, const char *backend, const char *timeline,
                                     const char *options, char *buf, size_t n);
/* Writes a whole file atomically (temporary file in the same folder, then rename): nothing
 * half-written on failure. "-" writes to stdout. */
int vta_cli_write_file(const char *cmd, const char *path, const void *data, size_t size);

#endif
