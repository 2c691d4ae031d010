/* plan.h - a deployable model's plan (runtime/plan.c): everything the model runtime needs to run
 * a compiled model, and nothing of the compiler. The compiler fills a vta_plan from its graph
 * (compiler/plan_build.c) and serialises it; the runtime reads it back, checking every index,
 * size and count before it allocates or indexes anything.
 *
 *     vta_plan p;
 *     if (vta_plan_read(bytes, size, "model.o", &p, &err)) ...   // blobs point into bytes
 *     ... p.values, p.nodes ...
 *     vta_plan_free(&p);
 *
 * The values are the graph's tensors (constants carry their data); the nodes are in execution
 * order, each with its CPU kernel's argument list (value indices; the kernel itself comes from
 * the model's object, by node index) and, for an accelerator node, its programs with the layout
 * conversions around them. Binary form: little-endian, "VTAP", a version, then the sections in
 * the order of the structs below, "END!" and a 64-bit FNV-1a checksum of everything before it;
 * blobs are aligned to 16 bytes within the plan so that constants can be used in place.
 */
#ifndef VTA_RUNTIME_PLAN_H
#define VTA_RUNTIME_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "vta/config.h"
#include "vta/layout.h"
#include "vta/status.h"

#define VTA_PLAN_VERSION 3 /* 2: the word-wise checksum (vta_plan_checksum); 3: node `fused` */
#define VTA_PLAN_MAX_RANK 8

typedef enum vta_plan_role { VTA_PLAN_COMPUTED = 0, VTA_PLAN_CONST = 1, VTA_PLAN_INPUT = 2,
                             VTA_PLAN_ROLE_COUNT = 3 } vta_plan_role;

typedef struct vta_plan_value {
  const char *name;       /* points into the plan's bytes (NUL-terminated there) */
  uint32_t dtype;         /* the compiler's vta_dtype, reported back by vta_model_value */
  uint32_t elem_bytes;    /* 1, 2, 4 or 8 */
  uint32_t is_float;      /* float32: what inputs and outputs must be */
  uint32_t role;          /* vta_plan_role */
  int32_t rank;
  int64_t dims[VTA_PLAN_MAX_RANK];
  uint64_t count;         /* elements */
  const unsigned char *data; /* a constant's elements (count * elem_bytes), else NULL */
} vta_plan_value;

/* How an accelerator part's input is packed. */
typedef enum vta_plan_in { VTA_PLAN_IN_ACT = 0, VTA_PLAN_IN_IM2COL = 1, VTA_PLAN_IN_DENSE = 2,
                           VTA_PLAN_IN_COUNT = 3 } vta_plan_in;
/* How its output is unpacked into the node's output. */
typedef enum vta_plan_out { VTA_PLAN_OUT_ACT = 0, VTA_PLAN_OUT_DENSE = 1,
                            VTA_PLAN_OUT_COUNT = 2 } vta_plan_out;

typedef struct vta_plan_part {
  uint32_t in_kind;       /* vta_plan_in */
  vta_layout_conv in;     /* ACT: n, c, h, w; IM2COL: the whole geometry; DENSE: n = m, c = k */
  uint32_t has_in2;       /* a residual operand: the node's second input, packed as an
                             activation of in2_n x in2_c x in2_h x in2_w with BLOCK_OUT */
  uint32_t in2_n, in2_c, in2_h, in2_w;
  uint32_t out_kind;      /* vta_plan_out */
  uint32_t out_n, out_h, out_w; /* ACT: images, rows, columns; DENSE: out_n = rows m */
  uint32_t out_total;     /* the node output's channels (ACT) or columns (DENSE) */
  uint32_t nch;           /* the output channels/columns this part computes ... */
  uint32_t *ch;           /* ... which (ascending, < out_total; malloc'd) */
  uint64_t input_bytes, input2_bytes, output_bytes;
  const unsigned char *prog, *weight, *bias; /* serialised vta_program, packed constants */
  uint64_t prog_size, weight_size, bias_size;
} vta_plan_part;

typedef struct vta_plan_node {
  const char *what;       /* "node 12 (Conv 'conv1')": for messages */
  uint32_t n_args;        /* the CPU kernel's arguments (value indices), if it has code */
  uint32_t *args;         /* malloc'd */
  uint32_t has_code;      /* the compiler generated a CPU kernel for it */
  uint32_t fused;         /* its result is computed by an accelerator node before it (a QAdd
                             fused into the convolution producing its operand): on an
                             accelerator backend it does nothing; on the CPU it runs */
  uint64_t macs;          /* multiply-accumulates of one run, for statistics */
  uint32_t n_parts;       /* > 0: an accelerator node */
  uint32_t acc_in, acc_in2, acc_out; /* its int8 input, second input (has_in2) and output */
  vta_plan_part *parts;   /* malloc'd */
} vta_plan_node;

typedef struct vta_plan {
  uint32_t has_config;    /* the accelerator programs' hardware configuration */
  vta_config cfg;
  uint32_t n_values, n_inputs, n_outputs, n_nodes;
  vta_plan_value *values; /* malloc'd */
  uint32_t *inputs, *outputs;
  vta_plan_node *nodes;
} vta_plan;

/* Serialises p (*bytes malloc'd). */
int vta_plan_write(const vta_plan *p, unsigned char **bytes, size_t *size, vta_error *err);
/* Parses and checks a plan; names, constants and blobs point into bytes, which must outlive p
 * and be aligned to 16 bytes. `name` (the file) prefixes every message. */
int vta_plan_read(const unsigned char *bytes, size_t size, const char *name, vta_plan *p,
                  vta_error *err);
/* The checksum that ends a plan (over its n bytes before it), for tools and tests that edit
 * plans on purpose. */
uint64_t vta_plan_checksum(const unsigned char *bytes, size_t n);
/* Frees what vta_plan_read allocated (not what a writer's caller filled in). */
void vta_plan_free(vta_plan *p);

#endif
