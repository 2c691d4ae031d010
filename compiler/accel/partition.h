/* partition.h - an accelerator node's layer description and lowering (partition.c), for the
 * bundle writer and the model runtime. Kept out of compiler.h because it needs the lowering's
 * types (compiler/accel/vta_lower.h).
 *
 *     vta_acc_layer L;
 *     if (vta_acc_lower(g, i, &cfg, &L, &err)) ...   // L.low.prog, L.low.weight, L.low.bias
 *     ... pack the input with vta_acc_pack_input, run, vta_acc_unpack_output ...
 *     vta_acc_layer_free(&L);
 */
#ifndef VTA_COMPILER_PARTITION_H
#define VTA_COMPILER_PARTITION_H

#include "compiler/compiler.h"
#include "compiler/accel/vta_lower.h"
#include "compiler/accel/vta_pool.h"

/* One accelerator program of a node. A convolution with per-channel power-of-two weight
 * scales (a "mul" input of powers of two) is one part whose channels shift by their own
 * amounts (d.shifts); a dense layer with them has one part per distinct shift (the output
 * channels that share it); otherwise one part holds every channel. */
typedef struct vta_acc_part {
  uint32_t nch;
  uint32_t *ch;         /* the node's output channels this part computes, ascending */
  uint8_t *shifts;      /* owned; d.shifts points here (NULL: one shift for all channels) */
  vta_conv_desc d;      /* QDense (dd) lowered as the conv d; else a QConv (d) */
  vta_dense_desc dd;
  vta_lowered low;      /* filled by vta_acc_lower / vta_acc_from_bundle only */
} vta_acc_part;

typedef struct vta_acc_layer {
  int node;
  int dense;
  int add;              /* a QAdd: out = clip((a * ma + b * mb + rounding) >> shift) run as a 1x1
                           convolution over BLOCK "channels" (the tensors' elements in any order,
                           the same for both operands and the output) with weights diag(ma) and
                           the second operand as its residual, residual_mul mb */
  int pool;             /* an int8 MaxPool (vta_pool.c): pd, one part of every channel */
  int fused_add;        /* a QConv ending with the QAdd that reads its output (attribute
                           "fuse_add"; the QAdd has "fused"): its parts compute the add's output
                           (add_out) from its other operand (add_in2), post_add in d */
  int add_node, add_out, add_in2;
  int fused_pool;       /* a QConv ending with the MaxPool that reads its output (attribute
                           "fuse_pool"; the MaxPool has "fused"): its parts write the pooled
                           tensor (pool_out), post_pool in d */
  int pool_node, pool_out;
  vta_pool_desc pd;
  int nparts;
  vta_acc_part *parts;
} vta_acc_layer;

/* The layer description of accelerator node i (QConv or QDense without multipliers or with
 * power-of-two ones, QAdd with multipliers of at most 127, an int8 MaxPool whose input is
 * clipped at 0 or above). */
int vta_acc_desc(const vta_graph *g, int i, const vta_config *cfg, vta_acc_layer *L, vta_error *err);
/* Plans measured by `vta tune` (host/cmd_tune.c, file format in host/tuning.c): for a layer
 * geometry and epilogue, the tiling that ran fastest. A part whose geometry (sizes, strides,
 * pads, residual) and epilogue match an entry is lowered with its plan instead of the cost
 * model's choice. */
typedef struct vta_tuned_plan {
  vta_conv_desc d;          /* the geometry; shift, clip range, ReLU and bias are not compared */
  vta_tile_epilogue epi;
  vta_tile_plan plan;
  uint64_t cycles;          /* measured (0 if not measured) */
} vta_tuned_plan;
typedef struct vta_tuning {
  int n;
  vta_tuned_plan *p;
} vta_tuning;
/* The tuned plan of a layer, or NULL. */
const vta_tile_plan *vta_tuning_find(const vta_tuning *t, const vta_conv_desc *d, vta_tile_epilogue epi);
/* Do two descriptions have the same geometry (what a tuned plan depends on)? */
int vta_conv_same_geometry(const vta_conv_desc *a, const vta_conv_desc *b);

/* The description and the lowered program with its packed weights and biases; tuning (may be
 * NULL) supplies measured plans. *tuned (may be NULL) counts the parts that used one. */
int vta_acc_lower(const vta_graph *g, int i, const vta_config *cfg, vta_acc_layer *L, vta_error *err);
int vta_acc_lower_tuned(const vta_graph *g, int i, const vta_config *cfg, const vta_tuning *tuning,
                        vta_acc_layer *L, int *tuned, vta_error *err);
void vta_acc_layer_free(vta_acc_layer *L);
/* Part p's int8 weights [nch][per input channel x taps] and int32 biases (malloc'd), as its
 * program computes them, and the epilogue the lowering picks for them. */
int vta_acc_part_constants(const vta_graph *g, const vta_acc_layer *L, int p, int8_t **w, int32_t **b,
                           vta_error *err);
vta_tile_epilogue vta_acc_part_epilogue(const vta_graph *g, const vta_acc_layer *L, int p);
/* Lowers every accelerator node of g for the bundle (programs serialised, constants packed). */
int vta_acc_bundle(const vta_graph *g, const vta_config *cfg, vta_bundle_acc *out, vta_error *err);
int vta_acc_bundle_tuned(const vta_graph *g, const vta_config *cfg, const vta_tuning *tuning,
                         vta_bundle_acc *out, int *tuned, vta_error *err);
/* An accelerator layer back from a bundle's layer (description recomputed from the graph). */
int vta_acc_from_bundle(const vta_graph *g, const vta_config *cfg, const vta_bundle_acc *acc, int node,
                        vta_acc_layer *L, vta_error *err);

/* Packs the node's int8 input (NCHW, or [M, K] rows for dense) the way part p's program reads
 * it (low.input_bytes bytes), and unpacks its output into the part's channels of the node's
 * int8 output y (the other channels are left alone); tmp needs the part's unpacked size. */
void vta_acc_pack_input(const vta_config *cfg, const vta_acc_layer *L, int p, const int8_t *x, int8_t *dst);
/* Packs the second operand of an add layer (L->add: the node's second input, shaped like the
 * output) the way part p's program reads its residual (low.input2_bytes bytes). */
void vta_acc_pack_input2(const vta_config *cfg, const vta_acc_layer *L, int p, const int8_t *x2, int8_t *dst);
void vta_acc_unpack_output(const vta_config *cfg, const vta_acc_layer *L, int p, const int8_t *src,
                           int8_t *tmp, int8_t *y);

#endif
