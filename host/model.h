/* model.h - the vta tool's way into the model runtime: a compiled bundle (or an ONNX file
 * compiled in memory) made into a runtime plan, its CPU code JIT-compiled with LLVM, loaded
 * into the model runtime library (include/vta/model.h), which runs it:
 *
 *     vta_error err;
 *     vta_model *m = vta_model_open("model.vtab", &err);   // .vtab or .onnx
 *     vta_model_set_input(m, 0, data, count, &err);
 *     vta_model_run(m, &err);
 *     const float *y = vta_model_output(m, 0);
 *     vta_model_destroy(m);
 *
 * Everything after opening is the runtime library's (the same calls a deployed model makes).
 */
#ifndef VTA_HOST_MODEL_H
#define VTA_HOST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "vta/model.h"
#include "vta/status.h"

typedef struct vta_model_timing {
  double import_ms, passes_ms, codegen_ms, jit_ms; /* of the last open */
} vta_model_timing;

/* Opens a bundle (.vtab, recognised by its magic) or compiles an ONNX model in memory. */
vta_model *vta_model_open(const char *path, vta_error *err);
/* The same, fixing the shapes of ONNX inputs with symbolic dimensions (ignored for bundles,
 * whose shapes are fixed): n shapes, names[k] NULL for "the first input". */
vta_model *vta_model_open_shaped(const char *path, int n, const char *const *names,
                                 const int *ranks, const int64_t (*dims)[8], vta_error *err);
/* The same with all of the importer's options (shapes, inputs fixed at compile time). */
struct vta_import_opts;
vta_model *vta_model_open_import(const char *path, const struct vta_import_opts *io, vta_error *err);
vta_model *vta_model_load(const unsigned char *bundle, size_t size, vta_error *err);
const vta_model_timing *vta_model_timings(const vta_model *m);

/* `vta bench model ...` (bench_model.c): argv[0] is "model". Returns an exit status. */
int vta_bench_model(int argc, char **argv);

#endif
