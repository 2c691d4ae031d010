/* vta_lower.h - lowering int8 layers onto the accelerator: the compiler's back half.
 *
 * An int8 conv2d (any stride, padding and kernel size, groups = 1) or dense layer with its
 * epilogue (int32 bias, requantization by a rounding right shift, ReLU, clipping to int8, and
 * optionally a residual operand) becomes a vta_program (include/vta/program.h) plus the packed
 * constants it loads. One section per file:
 *
 *   vta_pack.c  layouts of constants: OIHW weights -> O/BLOCK_OUT, I/BLOCK_IN, H, W,
 *               BLOCK_OUT, BLOCK_IN, int32 biases -> ACC elements (activations: the
 *               runtime's include/vta/layout.h).
 *   vta_ref.c   the plain C reference of a layer with exactly the same arithmetic, the
 *               standard the accelerator's results are compared with bit for bit.
 *   vta_conv.c  a layer's geometry and checks, a plan's on-chip layout, the lowering (constants
 *               and program).
 *   vta_walk.c  the schedule: tiles, two virtual threads, dependency tokens, micro-op kernels,
 *               walked once per candidate tiling by the cost model and once more to emit the
 *               program (what the two share: vta_sched.h).
 *   vta_tile.c  the cost model (an event model of the three pipeline stages that counts cycles
 *               and bytes), the search over tilings, and the --explain text.
 *
 * Usage:
 *
 *     vta_conv_desc d = {.n = 1, .c = 64, .h = 56, .w = 56, .k = 64, .kh = 3, .kw = 3,
 *                        .stride_h = 1, .stride_w = 1, .pad_top = 1, .pad_left = 1,
 *                        .pad_bottom = 1, .pad_right = 1, .shift = 8, .relu = 1,
 *                        .clip_lo = -128, .clip_hi = 127, .has_bias = 1};
 *     vta_lowered low;
 *     if (vta_lower_conv2d(&cfg, &d, weight_oihw, bias, NULL, &low, &err)) ...
 *     // buffers: input = vta_layout_pack_act(x), weight = low.weight, bias = low.bias,
 *     // output = low.output_bytes; then vta_program_run(jit, low.prog, phys, &st, &err)
 *     vta_lowered_free(&low);
 *
 * Semantics of the epilogue (vta_ref.c is the definition), for output channel k with shift
 * s_k (`shift` for every channel, or shifts[k] when the layer has per-channel shifts):
 *   acc = sum x*w (int32, wrapping)
 *   y   = acc + bias + residual_mul * residual + (s_k ? 1 << (s_k - 1) : 0)  (wrapping)
 *   z   = y >> s_k (arithmetic);  out = min(max(z, lo), clip_hi), lo = relu ? max(clip_lo, 0)
 *         : clip_lo.
 * With a LeakyRelu (leaky_k > 0; slope m / 2^k, m = leaky_m, k = leaky_k) the rounding and the
 * shift move behind it:
 *   y   = acc + bias + residual_mul * residual                              (wrapping)
 *   z   = max(y << k, y * m) + (1 << (s_k + k - 1))                         (wrapping)
 *   out = min(max(z >> (s_k + k), lo), clip_hi).
 * The ALU runs max(y << k, y * m) on two copies of the accumulators (a second ACC region of the
 * tile's size), and the rounding, which differs per channel, is a third vector row loaded with
 * the biases (docs/tiling.md, section 3).
 * Per-channel shifts are what per-channel power-of-two weight scales leave (the quantizer's
 * multiplier 2^m_k against a common shift S is a shift of S - m_k): the epilogue's one SHR then
 * takes a vector operand, a region of ACC holding each channel's amount beside the biases.
 */
#ifndef VTA_COMPILER_VTA_LOWER_H
#define VTA_COMPILER_VTA_LOWER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vta/config.h"
#include "vta/layout.h"
#include "vta/program.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Layers ---- */

typedef struct vta_conv_desc {
  uint32_t n, c, h, w;        /* input, NCHW */
  uint32_t k;                 /* output channels */
  uint32_t kh, kw;            /* kernel */
  uint32_t stride_h, stride_w;
  uint32_t pad_top, pad_left, pad_bottom, pad_right;
  int has_bias;               /* an int32 bias per output channel */
  uint32_t shift;             /* requantisation: rounding arithmetic right shift, 0-31 */
  const uint8_t *shifts;      /* NULL: every channel shifts by `shift`; else channel k by
                               * shifts[k] (0-31) and `shift` is their maximum. Not owned. */
  int relu;
  int32_t clip_lo, clip_hi;   /* the int8 range to clip to, -128 <= lo <= hi <= 127 */
  int has_residual;           /* add residual_mul * r, r int8 shaped like the output */
  int32_t residual_mul;       /* -128..127; the residual enters before the shift */
  uint32_t leaky_k;           /* 0: none; else a LeakyRelu of slope leaky_m / 2^leaky_k before
                               * the shift (see "Semantics of the epilogue" above), 1-31 */
  int32_t leaky_m;            /* 0..2^leaky_k, at most 32767 (an ALU immediate) */
  /* An int8 add after the epilogue (ONNX's QAdd fused into its producer): with y the int8
   * result above and r the int8 operand shaped like the output (the residual buffer),
   * out = clip((y * add_ma + r * add_mb + 2^(add_shift - 1)) >> add_shift) to
   * [add_lo, add_hi] (no rounding term when add_shift is 0), all in int32 as the CPU's QAdd.
   * Not with has_residual or leaky_k; multipliers of at most 16 bits (ALU immediates). */
  int post_add;
  int32_t add_ma, add_mb;
  uint32_t add_shift;
  int32_t add_lo, add_hi;
  /* A max pooling after the epilogue (ONNX's MaxPool fused into its producer; ResNet's stem):
   * a 3x3 window, stride 2, padding 1 (the padding takes no part: the largest of the window's
   * outputs inside the image), over an output of even height and width, so the layer writes
   * (out_h / 2) x (out_w / 2) per channel. Not with has_residual, leaky_k or post_add. */
  int post_pool;
  /* A classifier after the epilogue (ResNet's head: global average pooling, then a dense
   * layer), computed while the layer runs: with y the layer's int8 output (not stored; at
   * least 0: relu or clip_lo >= 0) over its P = out_h x out_w positions,
   * a[k] = (sum_p y[k][p] + P/2) / P (vta_ref_avgpool), and the layer writes
   * out[j] = the dense epilogue of sum_k a[k] * head_w[j][k] (vta_ref_dense: head_bias or none,
   * rounding shift head_shift, clip to [head_lo, head_hi]) in the dense layout (BLOCK_OUT),
   * followed in its output buffer by the averages (stored, then loaded back as the dense
   * layer's input). Batch 1, BLOCK_IN = BLOCK_OUT, P at most 255; not with post_pool,
   * post_add or leaky_k. head_w (head_n x k int8) and head_bias are not owned. */
  uint32_t head_n;            /* 0: no head */
  const int8_t *head_w;
  const int32_t *head_bias;
  uint32_t head_shift;
  int32_t head_lo, head_hi;
} vta_conv_desc;

/* dense: out[m][n] = epilogue(sum_k x[m][k] * w[n][k]). */
typedef struct vta_dense_desc {
  uint32_t m, k, n;
  int has_bias;
  uint32_t shift;
  int relu;
  int32_t clip_lo, clip_hi;
  uint32_t leaky_k;           /* as in vta_conv_desc */
  int32_t leaky_m;
} vta_dense_desc;

/* Does the epilogue take per-channel shifts (shifts given and shift > 0; with every shift 0
 * there is no SHR at all)? Then its SHR reads a vector of shift amounts from ACC. */
int vta_conv_shift_vector(const vta_conv_desc *d);
/* Is the residual added by a GEMM with diagonal weights (a step of its own, one micro-op per
 * output element; beside a LeakyRelu, whose epilogue needs the reset-and-add initialisation)?
 * Otherwise it is loaded into the unit's ACC slot (LOAD ACC_8BIT on the compute module, beside
 * the previous unit's GEMMs) and scaled and biased there by the ALU. */
int vta_conv_residual_gemm(const vta_conv_desc *d);
/* Vector rows loaded with the biases (biases; shifts if vta_conv_shift_vector; the LeakyRelu's
 * rounding if leaky_k), and the ACC entries of a tile of `outs` outputs (twice as many with a
 * LeakyRelu: its second copy follows the first). */
uint32_t vta_conv_vector_rows(const vta_conv_desc *d);
uint64_t vta_conv_acc_tile(const vta_conv_desc *d, uint64_t outs);
/* Output height and width (0 if the kernel does not fit the padded input). */
uint32_t vta_conv_out_h(const vta_conv_desc *d);
uint32_t vta_conv_out_w(const vta_conv_desc *d);
/* The height and width the layer writes: those of the convolution, halved by a post_pool. */
uint32_t vta_conv_final_h(const vta_conv_desc *d);
uint32_t vta_conv_final_w(const vta_conv_desc *d);
/* Checks a description (sizes, strides, pads, shift or per-channel shifts, clip range) and the
 * configuration (int8 data, int32 accumulators; BLOCK_IN = BLOCK_OUT for a residual). */
int vta_conv_check(const vta_config *cfg, const vta_conv_desc *d, vta_error *err);
/* A conv2d with few input channels wastes most of every BLOCK_IN-wide multiply; over its
 * im2col patches it is a 1x1 stride-1 conv with C*KH*KW input channels on the output grid
 * (same weights, same output). The host then packs patches, not the image (vta_pack_im2col). */
void vta_conv_im2col_desc(const vta_conv_desc *d, vta_conv_desc *out);
/* The conv2d a dense layer is lowered as (see vta_pack_dense_*): packed activations of a dense
 * layer are those of an image with C = K, H = 1, W = ceil(M / BATCH), one batch group. */
void vta_dense_as_conv(const vta_config *cfg, const vta_dense_desc *d, vta_conv_desc *out);

/* ---- vta_pack.c: layouts of constants ---- */

/* Activations (NCHW int8 <-> N/BATCH, C/BLOCK, H, W, BATCH, BLOCK; dense x[m][k]) are packed
 * with the runtime's vta_layout_* (include/vta/layout.h), which a deployed model uses too. */
/* OIHW int8 -> O/BLOCK_OUT, I/BLOCK_IN, H, W, BLOCK_OUT, BLOCK_IN (padding zero). */
uint64_t vta_pack_wgt_bytes(const vta_config *cfg, uint32_t o, uint32_t i, uint32_t kh,
                            uint32_t kw);
void vta_pack_wgt(const vta_config *cfg, const int8_t *src, uint32_t o, uint32_t i, uint32_t kh,
                  uint32_t kw, int8_t *dst);
/* One int32 per output channel -> ACC elements of BATCH x BLOCK_OUT lanes (the value repeated
 * over the batch lanes; padded channels get `pad`). */
void vta_pack_bias(const vta_config *cfg, const int32_t *src, uint32_t o, int32_t pad,
                   uint8_t *dst);
/* im2col patches of an NCHW image, packed as the activations of vta_conv_im2col_desc(d)
 * (vta_layout_pack_im2col for the layer's geometry). */
uint64_t vta_pack_im2col_bytes(const vta_config *cfg, const vta_conv_desc *d);
void vta_pack_im2col(const vta_config *cfg, const vta_conv_desc *d, const int8_t *x, int8_t *dst);

/* ---- vta_ref.c: the reference ---- */

/* NCHW in, OIHW weights, bias (NULL if !has_bias), residual NCHW like the output (NULL if
 * !has_residual), NCHW int8 out. */
void vta_ref_conv2d(const vta_conv_desc *d, const int8_t *x, const int8_t *w, const int32_t *bias,
                    const int8_t *residual, int8_t *out);
void vta_ref_dense(const vta_dense_desc *d, const int8_t *x, const int8_t *w, const int32_t *bias,
                   int8_t *out);
/* Global average pooling with rounding (max pooling: vta_ref_pool_max, vta_pool.h). */
void vta_ref_avgpool(const int8_t *x, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
                     int8_t *out);

/* ---- vta_tile.c / vta_conv.c: tiling and emission ---- */

/* Order of the output tiles ("units"). */
typedef enum vta_tile_order {
  VTA_TILE_SPATIAL_OUTER = 0, /* for each spatial tile, every output-channel tile: inputs stay */
  VTA_TILE_CO_OUTER = 1,      /* for each output-channel tile, every spatial tile: weights stay */
  VTA_TILE_ORDER_COUNT = 2
} vta_tile_order;

/* How the accumulators are initialised and the epilogue runs (chosen from the constants). */
typedef enum vta_tile_epilogue {
  VTA_EPI_RESET = 0,     /* GEMM reset, SHR, MAX, MIN (no bias and no rounding to add) */
  VTA_EPI_RESET_ADD = 1, /* GEMM reset, ALU ADD of bias + rounding, SHR, MAX, MIN */
  VTA_EPI_OFFSET = 2,    /* ALU MAX against an offset bias (no reset once an entry holds a
                          * result), SHR, MAX, MIN: see docs/tiling.md */
  VTA_EPI_COUNT = 3
} vta_tile_epilogue;

typedef struct vta_tile_plan {
  uint32_t ho_t, wo_t;   /* output rows and columns of a tile */
  uint32_t co_t, ci_t;   /* output / input channel blocks of a tile */
  uint32_t kh_t, kw_t;   /* kernel rows / columns of a reduction step (0: all). A step with
                          * fewer than all rows has ci_t = 1; with fewer columns, one row. */
  vta_tile_order order;
  int bias_resident;     /* every bias loaded once at the start (else per output tile) */
  int im2col;            /* lowered as a 1x1 conv over the input's im2col patches (few input
                          * channels): the tile sizes refer to vta_conv_im2col_desc's layer */
} vta_tile_plan;

/* What the cost model predicts for a plan (and what the emitted program contains). */
typedef struct vta_tile_cost {
  uint64_t cycles;               /* predicted total */
  uint64_t busy[VTA_MOD_COUNT];  /* predicted busy cycles of load, compute, store */
  uint64_t gemm_uops, alu_uops;  /* micro-op executions */
  uint64_t bytes_read[VTA_MEM_COUNT], bytes_written; /* DRAM traffic by memory type */
  uint64_t loads, stores, runs;  /* operations */
  uint64_t units, steps;         /* output tiles, reduction steps */
  uint64_t kernels, kernel_uops; /* distinct kernels, their micro-ops in total */
  uint64_t uop_loads;            /* predicted LOAD UOP instructions */
} vta_tile_cost;

/* The cost-model constants, in cycles (measured on the rtl backend; see docs/tiling.md). */
typedef struct vta_tile_model {
  uint32_t read_latency, write_latency; /* DRAM */
  uint32_t bus_bytes;                   /* per cycle */
  uint32_t load_overhead;               /* per LOAD/STORE instruction beyond latency + beats */
  uint32_t compute_overhead;            /* per GEMM/ALU instruction */
  uint32_t drain;                       /* compute pipeline drain before a compute-side load */
  uint32_t load_ahead;                  /* LOADs the load module accepts (and reads) beyond the
                                         * one writing its buffer (hw/rtl/vta_load.sv) */
} vta_tile_model;

void vta_tile_model_default(const vta_config *cfg, vta_tile_model *m);

/* The cost model's prediction of any program (one device run: the event model of
 * vta_tile_predict, fed the program's operations instead of a schedule walk). A sync before
 * the last operation is not modelled as a run boundary. */
int vta_tile_predict_program(const vta_config *cfg, const vta_tile_model *m,
                             const vta_program *prog, vta_tile_cost *cost, vta_error *err);

/* Is the plan feasible (every tile fits its buffers, fields fit, pads at most 15)? */
int vta_tile_check(const vta_config *cfg, const vta_conv_desc *d, const vta_tile_plan *p,
                   vta_error *err);
/* Predicts the cost of a plan with the event model. */
int vta_tile_predict(const vta_config *cfg, const vta_tile_model *m, const vta_conv_desc *d,
                     vta_tile_epilogue epi, const vta_tile_plan *p, vta_tile_cost *cost,
                     vta_error *err);

/* The search's result: the chosen plan, its cost, and the runners-up for --explain. */
#define VTA_TILE_EXPLAIN_TOP 5
typedef struct vta_tile_choice {
  vta_tile_plan plan;
  vta_tile_cost cost;
  uint64_t candidates, feasible, simulated;
  vta_tile_plan top[VTA_TILE_EXPLAIN_TOP];
  vta_tile_cost top_cost[VTA_TILE_EXPLAIN_TOP];
  int ntop;
  uint64_t compute_bound;        /* MACs / (BATCH * BLOCK_IN * BLOCK_OUT) */
  uint64_t macs;
} vta_tile_choice;

/* Chooses the plan with the fewest predicted cycles (ties: fewer DRAM bytes). m may be NULL
 * (defaults from cfg). */
int vta_tile_choose(const vta_config *cfg, const vta_tile_model *m, const vta_conv_desc *d,
                    vta_tile_epilogue epi, vta_tile_choice *out, vta_error *err);
/* The text of `vta compile --explain` for one layer: shape, plan, buffer use, predicted cycles
 * and bytes, the bound, and the runners-up. */
void vta_tile_explain(const vta_config *cfg, const vta_conv_desc *d, const vta_tile_choice *c,
                      FILE *out);

/* ---- vta_conv.c: lowering ---- */

typedef struct vta_lowered {
  vta_program *prog;
  uint8_t *weight;       /* contents of the weight buffer */
  size_t weight_bytes;
  uint8_t *bias;         /* contents of the bias buffer: the packed biases (rounding and
                          * offset included), then with per-channel shifts the packed shifts */
  size_t bias_bytes;
  uint64_t input_bytes, input2_bytes, output_bytes; /* packed activation sizes */
  vta_tile_epilogue epilogue;
  vta_tile_choice choice;  /* the plan and the cost model's prediction */
} vta_lowered;

/* Which epilogue the constants allow (OFFSET when the shifts and the bias range leave room and
 * no int32 sum can overflow, else RESET_ADD, or RESET when there is nothing to add; see
 * docs/tiling.md). */
vta_tile_epilogue vta_conv_epilogue(const vta_conv_desc *d, const int8_t *w, const int32_t *bias);

/* Lowers a conv2d: weights OIHW int8, bias int32 per output channel (NULL if !has_bias). plan
 * NULL: chosen by vta_tile_choose; else that plan is used (vta tune, tests). */
int vta_lower_conv2d(const vta_config *cfg, const vta_conv_desc *d, const int8_t *w,
                     const int32_t *bias, const vta_tile_plan *plan, vta_lowered *out,
                     vta_error *err);
/* Lowers a dense layer: weights [n][k] int8. Activations use vta_layout_pack_dense. */
int vta_lower_dense(const vta_config *cfg, const vta_dense_desc *d, const int8_t *w,
                    const int32_t *bias, const vta_tile_plan *plan, vta_lowered *out,
                    vta_error *err);
void vta_lowered_free(vta_lowered *l);
/* Packs an NCHW input the way the lowered layer reads it (the image, or its im2col patches):
 * low->input_bytes bytes. */
void vta_lowered_pack_input(const vta_config *cfg, const vta_conv_desc *d, const vta_lowered *low,
                            const int8_t *x, int8_t *dst);

/* ---- Internal: the schedule walk (vta_walk.c) shared by vta_conv.c (emission) and vta_tile.c (cost) ----
 *
 * vta_sched_walk issues a layer's operations, in program order, to a sink. Kernels are
 * announced once per variant (sink->kernel returns an id for sink->run); when the sink does not
 * want micro-op lists (the cost model), k->uops is NULL and only k->nuops and the loops are
 * filled. */

typedef struct vta_sched_epi {
  vta_tile_epilogue mode;
  uint32_t shift;   /* the largest shift (a LeakyRelu's k included) */
  int shift_vec;    /* one SHRCLIP over the shift region (each channel's amount, hi above it,
                     * lo its immediate); 0 (no shift at all): MAX lo, MIN hi */
  int32_t lo, hi;   /* the clip's bounds (the offset included) */
  uint32_t leaky_k; /* 0: none; else the LeakyRelu steps before the rounding and SHR */
  int32_t leaky_m;
} vta_sched_epi;

typedef struct vta_sched_sink {
  void *ctx;
  int wants_uops;
  int (*kernel)(void *ctx, const vta_prog_kernel *k, uint32_t *id, vta_error *err);
  int (*load)(void *ctx, const vta_prog_xfer *x, vta_error *err);
  int (*store)(void *ctx, const vta_prog_xfer *x, vta_error *err);
  int (*run)(void *ctx, uint32_t id, vta_error *err);
  int (*dep)(void *ctx, int push, vta_jit_stage from, vta_jit_stage to, vta_error *err);
  int (*sync)(void *ctx, vta_error *err);
} vta_sched_sink;

/* The on-chip layout a plan implies (entries of each buffer). INP and WGT are divided into
 * slots of one tile each (at least two: the two virtual threads), ACC into two halves.
 * Per-channel shifts (vta_conv_shift_vector) and a LeakyRelu's rounding reserve shift_entries
 * more ACC entries after the biases: R = vta_conv_vector_rows rows in all; with resident biases
 * row r of block c is at acc_bias + r * bias_entries + c; with biases per output tile there are
 * two regions of R x bias_entries, used by units in turn, each holding a tile's co_n bias
 * vectors then its co_n vectors of each further row (the epilogue of a unit, which reads them,
 * runs after the next unit's loads). */
#define VTA_SCHED_MAX_SLOTS 64
typedef struct vta_sched_layout {
  uint32_t inp_slot, inp_slots;          /* slot size and count */
  uint32_t wgt_slot, wgt_slots;
  uint32_t inp_top, wgt_top;             /* slots from the top down (1x1), else 0: from 0 up */
  uint32_t acc_half;                     /* halves at 0 and at acc_half */
  uint32_t wgt_ident;                    /* WGT entry of the residual's diagonal weights */
  uint32_t acc_bias, bias_entries;       /* ACC region of the biases */
  uint32_t shift_entries;                /* reserved after them for shifts (0: uniform) */
  uint32_t head_acc, head_inp, head_wgt; /* a classifier (head_n): its accumulators below the
                                          * biases, two input slots (co_t entries) at the top of
                                          * INP, two weight slots (ceil(head_n / BLOCK_OUT) x
                                          * co_t) at the top of WGT */
} vta_sched_layout;

int vta_sched_layout_of(const vta_config *cfg, const vta_conv_desc *d, const vta_tile_plan *p,
                        vta_sched_layout *l, vta_error *err);
/* The epilogue parameters the cost model assumes for a mode (no constants known). */
void vta_sched_epi_default(const vta_conv_desc *d, vta_tile_epilogue mode, vta_sched_epi *e);
int vta_sched_walk(const vta_config *cfg, const vta_conv_desc *d, const vta_sched_epi *e,
                   const vta_tile_plan *p, const vta_sched_sink *sink, vta_error *err);

#ifdef __cplusplus
}
#endif
#endif
