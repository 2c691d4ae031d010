/* model.h - the model runtime: a compiled bundle (or an ONNX file compiled in memory) loaded,
 * its CPU code JIT-compiled, its buffers allocated, ready to run on float32 inputs.
 *
 *     vta_error err;
 *     vta_model *m = vta_model_open("model.vtab", &err);   // .vtab or .onnx
 *     vta_model_set_input(m, 0, data, count, &err);
 *     vta_model_run(m, &err);
 *     const float *y = vta_model_output(m, 0);
 *     vta_model_destroy(m);
 */
#ifndef VTA_HOST_MODEL_H
#define VTA_HOST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "vta/status.h"

typedef struct vta_model vta_model;

typedef struct vta_model_timing {
  double import_ms, passes_ms, codegen_ms, jit_ms; /* of the last open */
} vta_model_timing;

/* Opens a bundle (.vtab, recognised by its magic) or compiles an ONNX model in memory. */
vta_model *vta_model_open(const char *path, vta_error *err);
/* The same, fixing the shapes of ONNX inputs with symbolic dimensions (ignored for bundles,
 * whose shapes are fixed): n shapes, names[k] NULL for "the first input". */
vta_model *vta_model_open_shaped(const char *path, int n, const char *const *names,
                                 const int *ranks, const int64_t (*dims)[8], vta_error *err);
vta_model *vta_model_load(const unsigned char *bundle, size_t size, vta_error *err);
void vta_model_destroy(vta_model *m);
const vta_model_timing *vta_model_timings(const vta_model *m);

int vta_model_n_inputs(const vta_model *m);
int vta_model_n_outputs(const vta_model *m);
/* Name, rank and dims of input/output k (dims has room for 8). */
const char *vta_model_input(const vta_model *m, int k, int *rank, int64_t *dims);
const char *vta_model_output_info(const vta_model *m, int k, int *rank, int64_t *dims);
int vta_model_find_input(const vta_model *m, const char *name);

/* Copies count float32 elements into input k; count must match its shape. */
int vta_model_set_input(vta_model *m, int k, const float *data, size_t count, vta_error *err);
int vta_model_run(vta_model *m, vta_error *err);
const float *vta_model_output(const vta_model *m, int k);

/* Accelerator programs (bundles compiled with `vta compile --accel`): how many layers the
 * bundle holds, and the backend that runs them: "cpu" (their CPU code, the default), or a
 * device backend ("fsim", "rtl", ...) with its options string (may be NULL). */
int vta_model_n_acc_layers(const vta_model *m);
/* How many graph nodes those programs compute (a dense node has one program per weight-scale
 * shift; other nodes one program). */
int vta_model_n_acc_nodes(const vta_model *m);
int vta_model_set_backend(vta_model *m, const char *backend, const char *options, vta_error *err);
/* Accelerator statistics of the runs since the backend was chosen, and the multiply-accumulates
 * of one inference on the accelerator and in total. Pointers may be NULL. */
struct vta_stats;
struct vta_config;
/* The hardware configuration the accelerator layers were compiled for. */
const struct vta_config *vta_model_acc_config(const vta_model *m);
void vta_model_acc_stats(const vta_model *m, struct vta_stats *st, uint64_t *acc_macs,
                         uint64_t *all_macs);
/* The buffer of any value of the graph by name (its element type as vta_dtype and count), for
 * tests comparing intermediate tensors; NULL if there is no such value. */
const void *vta_model_value(const vta_model *m, const char *name, int *dtype, int64_t *count);

/* `vta bench model ...` (bench_model.c): argv[0] is "model". Returns an exit status. */
int vta_bench_model(int argc, char **argv);

#endif
