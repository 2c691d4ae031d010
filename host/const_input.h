/* const_input.h - `--const-input NAME=VALUE` of `vta compile` and `vta bench model`: an ONNX
 * graph input fixed at compile time, so it becomes a constant (Silero VAD's sample rate `sr`,
 * whose value selects the branch of its `If` nodes that is compiled).
 *
 * VALUE is a number (a scalar: an integer is read as int64, anything else as float64) or an
 * .npy file (its own element type and shape). The importer converts the value to the element
 * type the model declares for the input, and refuses one that type does not hold exactly
 * (compiler/import/onnx.c).
 */
#ifndef VTA_HOST_CONST_INPUT_H
#define VTA_HOST_CONST_INPUT_H

#include "compiler/compiler.h"
#include "host/npy.h"

#define VTA_CLI_MAX_CONST 16

typedef struct vta_cli_consts {
  int n;
  char names[VTA_CLI_MAX_CONST][256];
  const char *name_ptr[VTA_CLI_MAX_CONST];
  vta_gvalue values[VTA_CLI_MAX_CONST];
  vta_npy npy[VTA_CLI_MAX_CONST];       /* the files' data (unused entries zeroed) */
  union { int64_t i; double f; } scalar[VTA_CLI_MAX_CONST];
  char text[VTA_CLI_MAX_CONST][256];    /* VALUE as given, for onnxruntime's side */
} vta_cli_consts;

/* Parses one NAME=VALUE into c (reading an .npy file); prints a usage error (exit status 2)
 * or the file's error (1) and returns that status; 0 on success. */
int vta_cli_const_input(const char *cmd, const char *arg, vta_cli_consts *c);
void vta_cli_consts_free(vta_cli_consts *c);
/* The element type of an .npy descr ("<f4", "<i8", ...); -1 when the compiler has none. */
int vta_cli_npy_dtype(const char *descr, vta_dtype *out);

#endif
