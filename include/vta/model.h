/* model.h - the model runtime: a compiled model loaded, run on float32 inputs, with its
 * accelerator layers on a device backend (fsim, rtl, ...) and everything else on the CPU. It
 * needs neither the compiler nor LLVM: a deployed model (`vta compile --emit lib`) is one
 * object file that defines a vta_model_image, linked with this library.
 *
 *     #include <vta/model.h>
 *     extern const vta_model_image face;            // from `vta compile ... --emit lib --name face`
 *
 *     vta_error err;
 *     vta_model *m = vta_model_from_image(&face, &err);
 *     if (!m || vta_model_set_backend(m, "fsim", NULL, &err)) { puts(err.msg); return 1; }
 *     vta_model_set_input(m, 0, pixels, count, &err);
 *     vta_model_run(m, &err);
 *     const float *y = vta_model_output(m, 0);
 *     vta_model_destroy(m);
 *
 * Every call that can fail returns non-zero (or NULL) and fills err with one sentence naming the
 * model, node, value and limit. Buffers are allocated at load (host) and when the backend is
 * chosen (device: each accelerator program's weights and biases uploaded once, its input and
 * output areas), so a run allocates nothing.
 */
#ifndef VTA_MODEL_H
#define VTA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vta_stats;
struct vta_config;
typedef struct vta_model vta_model;

/* A CPU kernel: void vta_k<node>(void **args), args = pointers to its values' elements. */
typedef void (*vta_kernel_fn)(void **args);

/* What a deployed model's object defines: its plan (runtime/plan.h) and one kernel per node
 * (NULL for nodes without CPU code). The layout is part of the object's ABI. */
#define VTA_MODEL_ABI 1
typedef struct vta_model_image {
  uint32_t abi;                 /* VTA_MODEL_ABI */
  uint32_t n_kernels;
  const unsigned char *plan;    /* aligned to 16 bytes */
  uint64_t plan_size;
  const vta_kernel_fn *kernels;
} vta_model_image;

/* A deployed model: the plan used in place (the image must outlive the model). */
vta_model *vta_model_from_image(const vta_model_image *img, vta_error *err);
/* A plan in memory (copied; `name` names it in messages) with its kernels (n_kernels = the
 * plan's nodes; kernels may be NULL when set later with vta_model_set_kernels). */
vta_model *vta_model_from_plan(const unsigned char *plan, size_t size, const char *name,
                               const vta_kernel_fn *kernels, uint32_t n_kernels, vta_error *err);
void vta_model_destroy(vta_model *m);

int vta_model_n_inputs(const vta_model *m);
int vta_model_n_outputs(const vta_model *m);
/* Name, rank and dims of input/output k (dims has room for 8; rank and dims may be NULL). */
const char *vta_model_input(const vta_model *m, int k, int *rank, int64_t *dims);
const char *vta_model_output_info(const vta_model *m, int k, int *rank, int64_t *dims);
int vta_model_find_input(const vta_model *m, const char *name);

/* Copies count float32 elements into input k; count must match its shape. */
int vta_model_set_input(vta_model *m, int k, const float *data, size_t count, vta_error *err);
int vta_model_run(vta_model *m, vta_error *err);
const float *vta_model_output(const vta_model *m, int k);

/* The backend of the accelerator layers: "cpu" (their CPU code, the default), or a device
 * backend ("fsim", "rtl", ...) with its options string (may be NULL). */
int vta_model_set_backend(vta_model *m, const char *backend, const char *options, vta_error *err);
/* Chaining (on by default): consecutive accelerator nodes run as one instruction stream and one
 * device run, each layer's first loads overlapping the previous layer's drain. Off: one device
 * run per program (for comparison; the results are the same bits). */
void vta_model_set_chaining(vta_model *m, int on);
/* Accelerator programs the model holds, and the graph nodes they compute. */
int vta_model_n_acc_layers(const vta_model *m);
int vta_model_n_acc_nodes(const vta_model *m);
/* The hardware configuration the accelerator programs were compiled for (NULL: none). */
const struct vta_config *vta_model_acc_config(const vta_model *m);
/* Accelerator statistics since the backend was chosen, and the multiply-accumulates of one
 * inference on the accelerator and in total. Pointers may be NULL. */
void vta_model_acc_stats(const vta_model *m, struct vta_stats *st, uint64_t *acc_macs,
                         uint64_t *all_macs);

/* Where the time of the runs since the backend was chosen went, and what crossed the
 * host-device boundary. */
typedef struct vta_model_stats {
  uint64_t runs;            /* vta_model_run calls */
  uint64_t device_runs;     /* device runs (one per chain of accelerator nodes) */
  double pack_ms;           /* host: packing inputs and unpacking outputs of the accelerator */
  double cpu_ms;            /* host: the CPU nodes */
  double transfer_ms;       /* host: copies to and from device memory */
  double device_ms;         /* wall time of the device runs (the backend's own) */
  double run_ms, run_cpu_ms; /* vta_model_run's wall time, and the process's CPU time (every
                               thread) meanwhile: on a loaded machine the wall exceeds it */
  uint64_t bytes_to_device, bytes_from_device; /* activations only (weights: at load) */
  uint64_t weight_bytes;    /* uploaded once when the backend was chosen */
  uint64_t programs;        /* accelerator programs replayed (several per chained run) */
  uint64_t barriers;        /* chain boundaries where a layer's loads waited for the stores
                               of an earlier one (it reads their output) */
} vta_model_stats;
void vta_model_run_stats(const vta_model *m, vta_model_stats *s);

/* The buffer of any value by name (its type code, the compiler's vta_dtype, and element
 * count), for comparing intermediate tensors; NULL if there is no such value. */
const void *vta_model_value(const vta_model *m, const char *name, int *dtype, int64_t *count);

/* ---- for tools that make kernels at run time (the vta tool's JIT) ---- */

/* Sets kernels[i] as node i's kernel for the nodes with only[i] set (only NULL: all). */
int vta_model_set_kernels(vta_model *m, const vta_kernel_fn *kernels, uint32_t n_kernels,
                          const unsigned char *only, vta_error *err);
/* Called when the cpu backend reaches a node without a kernel: it may set the missing ones
 * (missing[i] set for each node without one) and return 0, or fail. */
typedef int (*vta_model_fallback_fn)(vta_model *m, void *ctx, const unsigned char *missing,
                                     vta_error *err);
/* ctx is the owner's state, released with release(ctx) by vta_model_destroy. */
void vta_model_set_owner(vta_model *m, void *ctx, void (*release)(void *ctx),
                         vta_model_fallback_fn fallback);
void *vta_model_owner(const vta_model *m);

#ifdef __cplusplus
}
#endif
#endif
