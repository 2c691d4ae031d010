/* compiler.h - the compiler's one internal header: a section per file, in pipeline order.
 *
 *     vta_error err;
 *     vta_graph *g = vta_onnx_import_file("model.onnx", NULL, &err);      // onnx.c
 *     vta_compile_opts o = {0};
 *     vta_compile_graph(g, &o, &err);     // shape inference + passes (pipeline.c)
 *     vta_cpu_code code;
 *     vta_codegen_llvm(g, &code, &err);   // one LLVM function per node (codegen_llvm.c)
 *     vta_cpu_jit_create(&code, g, fns, &err);        // kernels callable (llvm_jit.c)
 *     vta_bundle_write(g, &code, &bytes, &size, &err);                      // bundle.c
 *
 * The graph IR is deliberately small: tensors ("values") and operators ("nodes") in two arrays
 * that refer to each other by index, nodes kept in topological order, every operator named by
 * one enum written once in VTA_GOPS. Operator parameters are named attributes exactly as in ONNX;
 * the importer and shape inference turn ONNX's "parameters given as constant inputs" (Reshape's
 * shape, Clip's bounds, Pad's pads, ...) into attributes, so later passes and the code
 * generators see one canonical form. Elementwise operators fused into their producer are kept
 * as a list of epilogue steps on the producer, printed as "| Relu".
 */
#ifndef VTA_COMPILER_H
#define VTA_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Operators (graph.c owns the tables)                                                        */

/* Kinds: how shape inference and the code generator treat an operator. */
enum {
  VTA_OPK_UNARY,   /* elementwise, one input, may be an epilogue */
  VTA_OPK_BINARY,  /* elementwise with broadcasting, two inputs, may be an epilogue */
  VTA_OPK_OTHER
};

/* The operator table, written once. X(enum suffix, ONNX op_type, kind, family, claimed):
 *   family   where the operator's shape rule, reference (compile-time evaluation) and CPU code
 *            generator live: F = compiler/cpu/op_F.c, which defines vta_family_F (see
 *            "Operator families" below); `core` = no family: a shape rule in ir/shape.c and
 *            no reference or code (Dropout, BatchNormalization: docs/operators.md says why);
 *   claimed  1: every node test of the operator in libonnx-testdata that compiles passes, and
 *            at least one does (tests/compiler/test_conformance.c enforces it).
 * The importer's dispatch (vta_op_lookup), shape inference, evaluation and code generation
 * (through the family), the conformance claims and the docs' operator table
 * (`vta info --operators`, docs/operators.md) all come from this table. */
#define VTA_GOPS(X) \
  X(CONV, "Conv", VTA_OPK_OTHER, conv, 1)                          \
  X(CONV_TRANSPOSE, "ConvTranspose", VTA_OPK_OTHER, conv, 1)       \
  X(GEMM, "Gemm", VTA_OPK_OTHER, conv, 1)                          \
  X(MATMUL, "MatMul", VTA_OPK_OTHER, conv, 1)                      \
  X(ADD, "Add", VTA_OPK_BINARY, binary, 1)                         \
  X(SUB, "Sub", VTA_OPK_BINARY, binary, 1)                         \
  X(MUL, "Mul", VTA_OPK_BINARY, binary, 1)                         \
  X(DIV, "Div", VTA_OPK_BINARY, binary, 1)                         \
  X(POW, "Pow", VTA_OPK_BINARY, binary, 1)                         \
  X(MAX, "Max", VTA_OPK_BINARY, binary, 1)                         \
  X(MIN, "Min", VTA_OPK_BINARY, binary, 1)                         \
  X(PRELU, "PRelu", VTA_OPK_BINARY, binary, 1)                     \
  X(RELU, "Relu", VTA_OPK_UNARY, unary, 1)                         \
  X(LEAKY_RELU, "LeakyRelu", VTA_OPK_UNARY, unary, 1)              \
  X(CLIP, "Clip", VTA_OPK_UNARY, unary, 1)                         \
  X(SIGMOID, "Sigmoid", VTA_OPK_UNARY, unary, 1)                   \
  X(HARD_SIGMOID, "HardSigmoid", VTA_OPK_UNARY, unary, 1)          \
  X(HARD_SWISH, "HardSwish", VTA_OPK_UNARY, unary, 1)              \
  X(TANH, "Tanh", VTA_OPK_UNARY, unary, 1)                         \
  X(EXP, "Exp", VTA_OPK_UNARY, unary, 1)                           \
  X(LOG, "Log", VTA_OPK_UNARY, unary, 1)                           \
  X(SQRT, "Sqrt", VTA_OPK_UNARY, unary, 1)                         \
  X(NEG, "Neg", VTA_OPK_UNARY, unary, 1)                           \
  X(ABS, "Abs", VTA_OPK_UNARY, unary, 1)                           \
  X(RECIPROCAL, "Reciprocal", VTA_OPK_UNARY, unary, 1)             \
  X(FLOOR, "Floor", VTA_OPK_UNARY, unary, 1)                       \
  X(CEIL, "Ceil", VTA_OPK_UNARY, unary, 1)                         \
  X(ELU, "Elu", VTA_OPK_UNARY, unary, 0)                           \
  X(SELU, "Selu", VTA_OPK_UNARY, unary, 0)                         \
  X(SOFTPLUS, "Softplus", VTA_OPK_UNARY, unary, 0)                 \
  X(SOFTSIGN, "Softsign", VTA_OPK_UNARY, unary, 0)                 \
  X(IDENTITY, "Identity", VTA_OPK_UNARY, unary, 1)                 \
  X(MAXPOOL, "MaxPool", VTA_OPK_OTHER, pool, 1)                    \
  X(AVGPOOL, "AveragePool", VTA_OPK_OTHER, pool, 1)                \
  X(GLOBAL_AVGPOOL, "GlobalAveragePool", VTA_OPK_OTHER, pool, 1)   \
  X(GLOBAL_MAXPOOL, "GlobalMaxPool", VTA_OPK_OTHER, pool, 1)       \
  X(SOFTMAX, "Softmax", VTA_OPK_OTHER, softmax, 1)                 \
  X(CONCAT, "Concat", VTA_OPK_OTHER, movement, 1)                  \
  X(RESHAPE, "Reshape", VTA_OPK_OTHER, movement, 1)                \
  X(FLATTEN, "Flatten", VTA_OPK_OTHER, movement, 1)                \
  X(TRANSPOSE, "Transpose", VTA_OPK_OTHER, movement, 1)            \
  X(SQUEEZE, "Squeeze", VTA_OPK_OTHER, movement, 1)                \
  X(UNSQUEEZE, "Unsqueeze", VTA_OPK_OTHER, movement, 1)            \
  X(PAD, "Pad", VTA_OPK_OTHER, movement, 1)                        \
  X(SLICE, "Slice", VTA_OPK_OTHER, movement, 1)                    \
  X(RESIZE, "Resize", VTA_OPK_OTHER, resize, 1)                    \
  X(UPSAMPLE, "Upsample", VTA_OPK_OTHER, resize, 1)                \
  X(BATCHNORM, "BatchNormalization", VTA_OPK_OTHER, core, 0)       \
  X(CONSTANT_OF_SHAPE, "ConstantOfShape", VTA_OPK_OTHER, shapecalc, 1) \
  X(SHAPE, "Shape", VTA_OPK_OTHER, shapecalc, 1)                   \
  X(CAST, "Cast", VTA_OPK_OTHER, cast, 1)                          \
  X(GATHER, "Gather", VTA_OPK_OTHER, gather, 1)                      \
  X(DROPOUT, "Dropout", VTA_OPK_OTHER, core, 1)                    \
  X(QUANTIZE_LINEAR, "QuantizeLinear", VTA_OPK_OTHER, quant, 1)    \
  X(DEQUANTIZE_LINEAR, "DequantizeLinear", VTA_OPK_OTHER, quant, 1) \
  X(QLINEAR_CONV, "QLinearConv", VTA_OPK_OTHER, quant, 1)          \
  X(QLINEAR_MATMUL, "QLinearMatMul", VTA_OPK_OTHER, quant, 1)      \
  X(CONV_INTEGER, "ConvInteger", VTA_OPK_OTHER, quant, 1)          \
  X(MATMUL_INTEGER, "MatMulInteger", VTA_OPK_OTHER, quant, 1)      \
  X(QCONV, "QConv", VTA_OPK_OTHER, quant, 0)                       \
  X(QDENSE, "QDense", VTA_OPK_OTHER, quant, 0)                     \
  X(QADD, "QAdd", VTA_OPK_OTHER, quant, 0)                         \
  X(REDUCE_MEAN, "ReduceMean", VTA_OPK_OTHER, reduce, 1)           \
  X(REDUCE_SUM, "ReduceSum", VTA_OPK_OTHER, reduce, 1)             \
  X(REDUCE_MAX, "ReduceMax", VTA_OPK_OTHER, reduce, 1)             \
  X(REDUCE_MIN, "ReduceMin", VTA_OPK_OTHER, reduce, 1)             \
  X(REDUCE_PROD, "ReduceProd", VTA_OPK_OTHER, reduce, 1)           \
  X(REDUCE_L1, "ReduceL1", VTA_OPK_OTHER, reduce, 1)               \
  X(REDUCE_L2, "ReduceL2", VTA_OPK_OTHER, reduce, 1)               \
  X(REDUCE_LOG_SUM, "ReduceLogSum", VTA_OPK_OTHER, reduce, 1)      \
  X(REDUCE_LOG_SUM_EXP, "ReduceLogSumExp", VTA_OPK_OTHER, reduce, 1)\
  X(REDUCE_SUM_SQUARE, "ReduceSumSquare", VTA_OPK_OTHER, reduce, 1)\
  X(ARGMAX, "ArgMax", VTA_OPK_OTHER, reduce, 1)                    \
  X(ARGMIN, "ArgMin", VTA_OPK_OTHER, reduce, 1)                    \
  X(SIN, "Sin", VTA_OPK_OTHER, math, 1)                            \
  X(COS, "Cos", VTA_OPK_OTHER, math, 1)                            \
  X(TAN, "Tan", VTA_OPK_OTHER, math, 1)                            \
  X(ASIN, "Asin", VTA_OPK_OTHER, math, 1)                          \
  X(ACOS, "Acos", VTA_OPK_OTHER, math, 1)                          \
  X(ATAN, "Atan", VTA_OPK_OTHER, math, 1)                          \
  X(SINH, "Sinh", VTA_OPK_OTHER, math, 1)                          \
  X(COSH, "Cosh", VTA_OPK_OTHER, math, 1)                          \
  X(ASINH, "Asinh", VTA_OPK_OTHER, math, 1)                        \
  X(ACOSH, "Acosh", VTA_OPK_OTHER, math, 1)                        \
  X(ATANH, "Atanh", VTA_OPK_OTHER, math, 1)                        \
  X(ERF, "Erf", VTA_OPK_OTHER, math, 1)                            \
  X(SIGN, "Sign", VTA_OPK_OTHER, math, 1)                          \
  X(ROUND, "Round", VTA_OPK_OTHER, math, 1)                        \
  X(ISNAN, "IsNaN", VTA_OPK_OTHER, math, 1)                        \
  X(ISINF, "IsInf", VTA_OPK_OTHER, math, 1)                        \
  X(THRESHOLDED_RELU, "ThresholdedRelu", VTA_OPK_OTHER, math, 1)   \
  X(SHRINK, "Shrink", VTA_OPK_OTHER, math, 1)                      \
  X(CELU, "Celu", VTA_OPK_OTHER, math, 1)                          \
  X(EQUAL, "Equal", VTA_OPK_OTHER, logic, 1)                       \
  X(LESS, "Less", VTA_OPK_OTHER, logic, 1)                         \
  X(LESS_OR_EQUAL, "LessOrEqual", VTA_OPK_OTHER, logic, 1)         \
  X(GREATER, "Greater", VTA_OPK_OTHER, logic, 1)                   \
  X(GREATER_OR_EQUAL, "GreaterOrEqual", VTA_OPK_OTHER, logic, 1)   \
  X(AND, "And", VTA_OPK_OTHER, logic, 1)                           \
  X(OR, "Or", VTA_OPK_OTHER, logic, 1)                             \
  X(XOR, "Xor", VTA_OPK_OTHER, logic, 1)                           \
  X(NOT, "Not", VTA_OPK_OTHER, logic, 1)                           \
  X(WHERE, "Where", VTA_OPK_OTHER, logic, 1)                       \
  X(MOD, "Mod", VTA_OPK_OTHER, logic, 1)                           \
  X(LOG_SOFTMAX, "LogSoftmax", VTA_OPK_OTHER, softmax, 1)          \
  X(HARDMAX, "Hardmax", VTA_OPK_OTHER, softmax, 1)                 \
  X(GATHER_ELEMENTS, "GatherElements", VTA_OPK_OTHER, gather, 1)   \
  X(GATHER_ND, "GatherND", VTA_OPK_OTHER, gather, 1)               \
  X(SCATTER_ELEMENTS, "ScatterElements", VTA_OPK_OTHER, gather, 1) \
  X(SCATTER, "Scatter", VTA_OPK_OTHER, gather, 1)                  \
  X(SCATTER_ND, "ScatterND", VTA_OPK_OTHER, gather, 1)             \
  X(SPLIT, "Split", VTA_OPK_OTHER, layout, 1)                      \
  X(TILE, "Tile", VTA_OPK_OTHER, layout, 1)                        \
  X(EXPAND, "Expand", VTA_OPK_OTHER, layout, 1)                    \
  X(DEPTH_TO_SPACE, "DepthToSpace", VTA_OPK_OTHER, layout, 1)      \
  X(SPACE_TO_DEPTH, "SpaceToDepth", VTA_OPK_OTHER, layout, 1)      \
  X(TRILU, "Trilu", VTA_OPK_OTHER, layout, 1)                      \
  X(EYE_LIKE, "EyeLike", VTA_OPK_OTHER, layout, 1)                 \
  X(CUMSUM, "CumSum", VTA_OPK_OTHER, layout, 1)                    \
  X(ONE_HOT, "OneHot", VTA_OPK_OTHER, layout, 1)                   \
  X(SIZE, "Size", VTA_OPK_OTHER, shapecalc, 1)                      \
  X(RANGE, "Range", VTA_OPK_OTHER, shapecalc, 1)                   \
  X(LAYER_NORM, "LayerNormalization", VTA_OPK_OTHER, norm, 1)      \
  X(INSTANCE_NORM, "InstanceNormalization", VTA_OPK_OTHER, norm, 1)\
  X(MVN, "MeanVarianceNormalization", VTA_OPK_OTHER, norm, 1)      \
  X(LRN, "LRN", VTA_OPK_OTHER, norm, 1)                            \
  X(CAST_LIKE, "CastLike", VTA_OPK_OTHER, cast, 1)                 \
  X(NLL_LOSS, "NegativeLogLikelihoodLoss", VTA_OPK_OTHER, loss, 1) \
  X(SCE_LOSS, "SoftmaxCrossEntropyLoss", VTA_OPK_OTHER, loss, 1)   \
  X(BITSHIFT, "BitShift", VTA_OPK_OTHER, logic, 1)                 \
  X(HANN_WINDOW, "HannWindow", VTA_OPK_OTHER, shapecalc, 1)        \
  X(HAMMING_WINDOW, "HammingWindow", VTA_OPK_OTHER, shapecalc, 1)  \
  X(BLACKMAN_WINDOW, "BlackmanWindow", VTA_OPK_OTHER, shapecalc, 1)\
  X(RNN, "RNN", VTA_OPK_OTHER, rnn, 1)                             \
  X(GRU, "GRU", VTA_OPK_OTHER, rnn, 1)                             \
  X(LSTM, "LSTM", VTA_OPK_OTHER, rnn, 1)                           \
  X(TOPK, "TopK", VTA_OPK_OTHER, select, 1)                        \
  X(NONZERO, "NonZero", VTA_OPK_OTHER, shapecalc, 1)               \
  X(COMPRESS, "Compress", VTA_OPK_OTHER, select, 1)                \
  X(EINSUM, "Einsum", VTA_OPK_OTHER, einsum, 1)

typedef enum vta_gop {
#define VTA_X_(e, name, kind, fam, claimed) VTA_GOP_##e,
  VTA_GOPS(VTA_X_)
#undef VTA_X_
  VTA_GOP_COUNT
} vta_gop;

const char *vta_op_name(vta_gop op);
int vta_op_kind(vta_gop op);
/* The compiler's own int8 operators (QConv, QDense, QAdd), which are not ONNX operators: the
 * importer refuses them, the text form reads them. Their arithmetic (qops_ref.c is the
 * definition; see "Quantized operators" below) is the accelerator's, so that a node computes
 * the same int8 tensor on the CPU and on the accelerator. */
int vta_op_internal(vta_gop op);
/* The operator called name, or VTA_GOP_COUNT. */
vta_gop vta_op_lookup(const char *name);

/* ------------------------------------------------------------------------------------------ */
/* Graph IR (graph.c)                                                                         */

#define VTA_MAX_RANK 8

/* Element types, in ONNX's TensorProto numbering where one exists (vta_dtype_onnx). */
typedef enum vta_dtype {
  VTA_DT_F32,
  VTA_DT_I64,
  VTA_DT_I32,
  VTA_DT_I8,
  VTA_DT_U8,
  VTA_DT_BOOL,
  VTA_DT_F64,
  VTA_DT_I16,
  VTA_DT_F16,
  VTA_DT_U16,
  VTA_DT_U32,
  VTA_DT_U64,
  VTA_DT_COUNT
} vta_dtype;

const char *vta_dtype_name(vta_dtype t);   /* "f32", "i64", ... as in the text form */
size_t vta_dtype_size(vta_dtype t);
int vta_dtype_onnx(vta_dtype t);           /* TensorProto.DataType number */
int vta_dtype_from_onnx(int onnx_type, vta_dtype *out);  /* -1 if not supported */
int vta_dtype_lookup(const char *name, vta_dtype *out);

typedef struct vta_gvalue {
  char *name;
  vta_dtype dtype;
  int rank;                     /* -1 until shape inference knows it */
  int64_t dims[VTA_MAX_RANK];
  void *data;                   /* constant's elements (owned), NULL for computed values */
  int producer;                 /* index of the producing node, -1 for inputs and constants */
  int is_input, is_output;
} vta_gvalue;

typedef enum vta_attr_kind {
  VTA_ATTR_INT,
  VTA_ATTR_FLOAT,
  VTA_ATTR_INTS,
  VTA_ATTR_FLOATS,
  VTA_ATTR_STRING,
  VTA_ATTR_COUNT
} vta_attr_kind;

typedef struct vta_attr {
  char *name;
  vta_attr_kind kind;
  int64_t i;
  float f;
  int n;             /* element count of ints/floats */
  int64_t *ints;
  float *floats;
  char *s;
} vta_attr;

/* One fused elementwise step applied to a node's (single) output before it is stored: the
 * running value combined with arg (a value index, or -1 for unary steps); arg_left says the
 * argument is the left operand ("Sub(%c, .)"). */
typedef struct vta_epilogue {
  vta_gop op;
  int arg;
  int arg_left;
  int n_attrs;
  vta_attr *attrs;
} vta_epilogue;

typedef struct vta_node {
  vta_gop op;
  char *name;
  int n_in, n_out;
  int *in;           /* value indices, -1 for an omitted optional input */
  int *out;
  int n_attrs;
  vta_attr *attrs;
  int n_epi;
  vta_epilogue *epi;
  int inferred;      /* shapes inferred already (the importer, for an If's condition): vta_shape_infer
                      * skips the node, whose rule may have rewritten its inputs and attributes */
} vta_node;

typedef struct vta_graph {
  int opset;                     /* default-domain opset the model was written for */
  int n_values, cap_values;
  vta_gvalue *values;
  int n_nodes, cap_nodes;
  vta_node *nodes;               /* topological order */
  int n_inputs, n_outputs;
  int *inputs, *outputs;         /* value indices */
} vta_graph;

vta_graph *vta_graph_create(void);
void vta_graph_destroy(vta_graph *g);
/* Adds a value; name is copied. Returns its index, or -1 when out of memory. */
int vta_graph_add_value(vta_graph *g, const char *name, vta_dtype dtype);
/* Index of the value called name, or -1. Linear; the importer keeps its own hash. */
int vta_graph_find_value(const vta_graph *g, const char *name);
/* Appends a node (arrays copied, attributes start empty). Returns its index or -1. */
int vta_graph_add_node(vta_graph *g, vta_gop op, const char *name, int n_in, const int *in,
                       int n_out, const int *out);
int vta_graph_add_input(vta_graph *g, int value);
int vta_graph_add_output(vta_graph *g, int value);

/* Element count (1 for rank 0); -1 when a dimension is negative or the product overflows. */
int64_t vta_value_count(const vta_gvalue *v);
/* Bytes of the data; SIZE_MAX when the count is -1 or the product overflows (an allocation of
 * that size fails cleanly). */
size_t vta_value_bytes(const vta_gvalue *v);
/* Checks every dimension against VTA_LIMIT_DIM and the data size against
 * VTA_LIMIT_TENSOR_BYTES (vta/limits.h); `what` names the value in the message. */
int vta_value_check_size(const vta_gvalue *v, const char *what, vta_error *err);
/* Gives value v the shape and fresh zeroed constant storage; returns 0 or -1 (no memory). */
int vta_value_set_const(vta_gvalue *v, vta_dtype t, int rank, const int64_t *dims);

/* Attributes: set replaces an attribute of the same name. */
int vta_attrs_set_int(int *n, vta_attr **a, const char *name, int64_t v);
int vta_attrs_set_float(int *n, vta_attr **a, const char *name, float v);
int vta_attrs_set_ints(int *n, vta_attr **a, const char *name, int count, const int64_t *v);
int vta_attrs_set_floats(int *n, vta_attr **a, const char *name, int count, const float *v);
int vta_attrs_set_string(int *n, vta_attr **a, const char *name, const char *v);
void vta_attrs_free(int n, vta_attr *a);
const vta_attr *vta_node_attr(const vta_node *nd, const char *name);
int64_t vta_node_int(const vta_node *nd, const char *name, int64_t dflt);
float vta_node_float(const vta_node *nd, const char *name, float dflt);
const char *vta_node_string(const vta_node *nd, const char *name, const char *dflt);
/* Copies an INTS attribute into out (at most max entries); returns its count or -1 if absent. */
int vta_node_ints(const vta_node *nd, const char *name, int64_t *out, int max);
void vta_node_remove_attr(vta_node *nd, const char *name);
/* Frees what a node owns (name, operands, attributes, epilogue) and zeroes it; for passes that
 * rebuild the node list. */
void vta_node_release(vta_node *nd);
/* Removes input i of a node (shifting later ones down). */
void vta_node_drop_input(vta_node *nd, int i);

/* Describes node i as "node 12 'conv1' (Conv)" for error messages. */
const char *vta_node_describe(const vta_graph *g, int i, char *buf, size_t size);

/* Removes the nodes with dead[i] set (keeping order), then compacts the values. */
int vta_graph_remove_nodes(vta_graph *g, const char *dead, vta_error *err);
/* How many times value v is read: node inputs, epilogue arguments, graph outputs. */
int vta_value_uses(const vta_graph *g, int v);

/* Recomputes every value's producer and drops values nothing refers to. */
int vta_graph_compact(vta_graph *g, vta_error *err);

/* Text form. Constants with at most 16 elements are printed inline; larger ones as "= ..."
 * unless flags ask for VTA_PRINT_FULL (every element, parseable) or VTA_PRINT_REFS ("= @K",
 * the K-th large constant in value order, as the bundle stores them). */
enum { VTA_PRINT_FULL = 1, VTA_PRINT_REFS = 2 };
void vta_graph_print(const vta_graph *g, FILE *f, int flags);
/* Prints into a malloc'd string. */
char *vta_graph_print_string(const vta_graph *g, int flags);

/* ------------------------------------------------------------------------------------------ */
/* Text parser (parse.c)                                                                      */

/* Reads the text form back. "= @K" constants take their data from refs[K] (sizes checked);
 * elided constants ("= ...") are refused. Errors name the line and column. */
typedef struct vta_const_ref {
  const void *data;
  size_t size;
} vta_const_ref;

vta_graph *vta_graph_parse(const char *text, size_t len, const vta_const_ref *refs, int n_refs,
                           vta_error *err);

/* ------------------------------------------------------------------------------------------ */
/* ONNX import (onnx.c)                                                                       */

typedef struct vta_import_opts {
  /* Values to use for symbolic input dimensions ("N", "batch", -1): 1 when 0. */
  int64_t dynamic_dim;
  /* Inputs whose values are fixed at compile time (they become constants), e.g. the shape
   * input of a Reshape in ONNX's node tests. The graph copies the data. */
  int n_fixed;
  const char *const *fixed_names;
  const vta_gvalue *fixed_values;
  /* Shapes for inputs with symbolic dimensions (a known dimension must agree); a NULL name
   * means the first graph input. */
  int n_shapes;
  const char *const *shape_names;
  const int *shape_ranks;
  const int64_t (*shape_dims)[VTA_MAX_RANK];
} vta_import_opts;

vta_graph *vta_onnx_import(const void *data, size_t size, const vta_import_opts *opts,
                           vta_error *err);
vta_graph *vta_onnx_import_file(const char *path, const vta_import_opts *opts, vta_error *err);
/* The same from a decoded ModelProto (protobuf-c's structure, onnx/onnx.pb-c.h), as a program
 * that builds a model in memory holds it: no encoding and decoding of its weights. */
struct Onnx__ModelProto;
vta_graph *vta_onnx_import_proto(const struct Onnx__ModelProto *m, const vta_import_opts *opts,
                                 vta_error *err);
/* Decodes a serialized TensorProto (ONNX test data's input_0.pb) into a constant value
 * (name, dtype, shape, data; caller frees with vta_value_free). */
int vta_onnx_read_tensor(const void *data, size_t size, vta_gvalue *out, vta_error *err);
void vta_value_free(vta_gvalue *v);

/* ------------------------------------------------------------------------------------------ */
/* Shape and type inference (shape.c), constant evaluation (eval.c)                           */

/* Infers every value's type and shape in node order, turning constant parameter inputs into
 * attributes. Errors name the node and what is inconsistent. */
int vta_shape_infer(vta_graph *g, vta_error *err);
/* Infers the outputs of node i only (inputs must be known). */
int vta_shape_infer_node(vta_graph *g, int i, vta_error *err);
/* Can node i be evaluated now (all inputs constant, evaluable op)? */
int vta_eval_can(const vta_graph *g, int i);
/* Evaluates node i on constant inputs, storing the outputs as constants. */
int vta_eval_node(vta_graph *g, int i, vta_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Operator families (compiler/cpu/op_<family>.c; helpers in ir/opkit.c)                      */

/* One family of operators in one file: its shape rule, its reference and its code generator
 * side by side, found through the family column of VTA_GOPS. Shape inference (ir/shape.c),
 * constant folding (ir/eval.c) and code generation (cpu/codegen_llvm.c) hand each node to its
 * family's slots; a NULL slot means the family has no such part (an operator without eval is
 * never folded at compile time; without emit it has no CPU code, which vta_codegen_supports
 * reports).
 *
 *   infer     checks node i's inputs and attributes, writes canonical attributes (defaults made
 *             explicit, negative axes resolved, constant parameter inputs turned into
 *             attributes) and sets every output's type and shape; errors name the node;
 *   eval      the reference: computes node i's outputs from constant inputs, in plain C (the
 *             outputs' storage is already allocated, zeroed, with the inferred shape);
 *   supports  1 if the code generator handles node i's element types and attribute values;
 *   emit      generates the body of node c->nd's kernel (struct cg: cpu/codegen_llvm.h);
 *             it counts the fused epilogue steps it applied itself in c->epi_done, and the
 *             driver runs the rest over the output (cg_emit_pointwise);
 *   folds     optional: 1 for the operators whose nodes eval folds (NULL: all of them). */
struct cg;
typedef struct vta_op_family {
  const char *file;
  int (*infer)(vta_graph *g, int i, vta_error *err);
  int (*eval)(vta_graph *g, int i, vta_error *err);
  int (*supports)(const vta_graph *g, int i);
  int (*emit)(struct cg *c);
  int (*folds)(vta_gop op);
} vta_op_family;

/* The family of op (NULL for `core`), its name ("core", "reduce"), and the claimed column. */
const vta_op_family *vta_op_family_of(vta_gop op);
const char *vta_op_family_name(vta_gop op);
int vta_op_claimed(vta_gop op);
/* Writes the operator table as the Markdown of docs/operators.md (pipeline.c). */
void vta_op_table_markdown(FILE *f);

/* Operators refused by name, with the reason (the importer says both). X(ONNX op_type, reason) */
#define VTA_REFUSED_REASON_TRAINING "a training operator (optimiser or gradient step); the compiler is for inference"
#define VTA_REFUSED_REASON_SEQUENCE "takes or makes a sequence of tensors; the IR holds tensors only"
#define VTA_REFUSED_REASON_OPTIONAL "takes or makes an optional value; the IR holds tensors only"
#define VTA_REFUSED_REASON_STRING "works on strings; the IR holds numeric tensors only"
#define VTA_REFUSED_REASON_CONTROL "control flow with sub-graphs; the IR is one static graph"
#define VTA_REFUSED_REASON_RANDOM "draws random numbers; a compiled model is deterministic"
#define VTA_REFUSED_OPS(X)                                 \
  X("Adam", VTA_REFUSED_REASON_TRAINING)                   \
  X("Adagrad", VTA_REFUSED_REASON_TRAINING)                \
  X("Momentum", VTA_REFUSED_REASON_TRAINING)               \
  X("Gradient", VTA_REFUSED_REASON_TRAINING)               \
  X("SequenceAt", VTA_REFUSED_REASON_SEQUENCE)             \
  X("SequenceConstruct", VTA_REFUSED_REASON_SEQUENCE)      \
  X("SequenceEmpty", VTA_REFUSED_REASON_SEQUENCE)          \
  X("SequenceErase", VTA_REFUSED_REASON_SEQUENCE)          \
  X("SequenceInsert", VTA_REFUSED_REASON_SEQUENCE)         \
  X("SequenceLength", VTA_REFUSED_REASON_SEQUENCE)         \
  X("SequenceMap", VTA_REFUSED_REASON_SEQUENCE)            \
  X("SplitToSequence", VTA_REFUSED_REASON_SEQUENCE)        \
  X("ConcatFromSequence", VTA_REFUSED_REASON_SEQUENCE)     \
  X("Optional", VTA_REFUSED_REASON_OPTIONAL)               \
  X("OptionalGetElement", VTA_REFUSED_REASON_OPTIONAL)     \
  X("OptionalHasElement", VTA_REFUSED_REASON_OPTIONAL)     \
  X("StringNormalizer", VTA_REFUSED_REASON_STRING)         \
  X("TfIdfVectorizer", VTA_REFUSED_REASON_STRING)          \
  X("RegexFullMatch", VTA_REFUSED_REASON_STRING)           \
  X("StringConcat", VTA_REFUSED_REASON_STRING)             \
  X("StringSplit", VTA_REFUSED_REASON_STRING)              \
  X("Loop", VTA_REFUSED_REASON_CONTROL)                    \
  X("Scan", VTA_REFUSED_REASON_CONTROL)                    \
  X("Bernoulli", VTA_REFUSED_REASON_RANDOM)                \
  X("Multinomial", VTA_REFUSED_REASON_RANDOM)              \
  X("RandomNormal", VTA_REFUSED_REASON_RANDOM)             \
  X("RandomNormalLike", VTA_REFUSED_REASON_RANDOM)         \
  X("RandomUniform", VTA_REFUSED_REASON_RANDOM)            \
  X("RandomUniformLike", VTA_REFUSED_REASON_RANDOM)

/* Why the operator called name is refused, or NULL when it is not in VTA_REFUSED_OPS. */
const char *vta_op_refused(const char *name);
/* The k-th refused operator's name (and reason in *why), NULL past the end. */
const char *vta_op_refused_nth(int k, const char **why);

/* Helpers for the families' shape rules and references (ir/opkit.c). */
/* Input k of node i, or NULL when absent (k beyond the inputs, or an empty name). */
vta_gvalue *vta_op_in(vta_graph *g, int i, int k);
/* Sets output k's type and shape. */
void vta_op_set_out(vta_graph *g, int i, int k, vta_dtype t, int rank, const int64_t *dims);
/* An error naming node i: status VTA_ERR_INVALID for a malformed node, VTA_ERR_UNSUPPORTED
 * for a form the compiler refuses; returns -1. */
int vta_op_error(const vta_graph *g, int i, vta_error *err, vta_status status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The conv family's shape rules (cpu/op_conv.c), which the quantized convolutions and matrix
 * products share: a convolution (transpose: a transposed one) reading x, w and the bias at
 * inputs xi, wi, bi (-1: none), and a matrix product of inputs ai and bi (numpy's matmul: the
 * batch dimensions broadcast); the output's element type is ot, or with ot -1 x's (a's). */
int vta_conv_shape(vta_graph *g, int i, vta_error *err, int transpose, int xi, int wi, int bi, int ot);
int vta_matmul_shape(vta_graph *g, int i, vta_error *err, int ai, int bi, int ot);
/* The elements of a constant float32/float64 tensor as floats: the count, or -1 when v is not
 * one or has more than max elements. */
int vta_const_floats(const vta_gvalue *v, float *out, int max);
/* Set an attribute of node i (0, or -1 with VTA_ERR_NOMEM in err). */
int vta_op_set_ints(vta_graph *g, int i, vta_error *err, const char *name, int n, const int64_t *v);
int vta_op_set_int(vta_graph *g, int i, vta_error *err, const char *name, int64_t v);
int vta_op_set_float(vta_graph *g, int i, vta_error *err, const char *name, float v);
/* Moves node i's constant integer input k (at most 64 elements) into the INTS attribute name
 * and removes the input; an absent input is an error when required. An input computed from
 * the model's inputs is refused (VTA_ERR_UNSUPPORTED) by name. */
int vta_op_input_to_ints(vta_graph *g, int i, vta_error *err, int k, const char *name, int required);
/* Drops the node's trailing absent inputs. */
void vta_node_trim_inputs(vta_node *nd);
/* axis in [-rank, rank) made non-negative in *out, or an error naming node i. */
int vta_op_axis(const vta_graph *g, int i, vta_error *err, int64_t axis, int rank, int64_t *out);
/* Row-major strides of v, and the multi-index of its element i. */
void vta_value_strides(const vta_gvalue *v, int64_t *s);
void vta_value_unravel(const vta_gvalue *v, int64_t i, int64_t *idx);
/* 0 when v (input k of node i) is present with a known shape, else an error naming the node
 * ("input k is missing", "the shape of input k ('name') is unknown"; VTA_ERR_INVALID). */
int vta_op_need_shape(const vta_graph *g, int i, vta_error *err, const vta_gvalue *v, int k);
/* Numpy's broadcast of a's and b's shapes (right-aligned; a dimension of 1 stretches) into
 * *rank and dims, or an error naming node i, a and b and the dimension that differs. */
int vta_op_broadcast(const vta_graph *g, int i, vta_error *err, const vta_gvalue *a, const vta_gvalue *b,
                     int *rank, int64_t *dims);
/* The window of a convolution or pooling node i over input x (rank 3 or 4: N, C, spatial):
 * checks strides, dilations, pads (and output_padding, output_shape for a transposed
 * convolution) against kernel, resolves auto_pad and ceil_mode, writes them all as explicit
 * attributes (kernel_shape, strides, dilations, pads) and sets out_sp to the output's spatial
 * dimensions. */
int vta_op_window(vta_graph *g, int i, vta_error *err, const vta_gvalue *x, const int64_t *kernel,
                  int transpose, int64_t *out_sp);
/* The elements of a constant integer tensor (int64/int32) as int64: the count, or -1 when v is
 * not one or has more than max elements. */
int vta_const_ints(const vta_gvalue *v, int64_t *out, int max);
/* Element i of a constant tensor as a double, and the store of one (rounding toward zero and
 * wrapping for integer types, nonzero -> 1 for bool). */
double vta_elem_get(const vta_gvalue *v, int64_t i);
void vta_elem_put(vta_gvalue *v, int64_t i, double x);

/* ------------------------------------------------------------------------------------------ */
/* Passes (one file each) and the pipeline (pipeline.c)                                       */

int vta_pass_fold(vta_graph *g, vta_error *err);        /* fold.c: constant folding */
int vta_pass_bnfold(vta_graph *g, vta_error *err);      /* bnfold.c: BN into Conv, or Mul+Add */
int vta_pass_dce(vta_graph *g, vta_error *err);         /* dce.c: dead-node removal */
int vta_pass_fuse(vta_graph *g, vta_error *err);        /* fuse.c: elementwise epilogues */
int vta_graph_verify(const vta_graph *g, vta_error *err); /* verify.c */

/* ------------------------------------------------------------------------------------------ */
/* Quantized operators (qops_ref.c is their definition)                                       */
/*
 * The compiler's int8 operators use symmetric int8 tensors (zero point 0) and integer-only
 * requantization that the accelerator's ALU can execute:
 *
 *   QConv(x i8 NCHW, w i8 OIHW, [bias i32 [M]], [mul i32 [M]]) -> i8, Conv's attributes plus
 *   QDense(x i8 [..., K], w i8 [N, K], [bias i32 [N]], [mul i32 [N]]) -> i8 [..., N]
 *     acc = sum x * w                                    (int32, wrapping)
 *     without mul:   y = acc + bias + rnd                (int32, wrapping)
 *     with mul[c]:   y = acc * mul[c] + bias + rnd        (int64; the quantizer keeps it in int32)
 *     rnd = shift ? 1 << (shift - 1) : 0;  out = clamp(y >> shift, lo, hi)   (arithmetic shift)
 *   Attributes: shift (0..31), lo, hi (-128 <= lo <= hi <= 127); mul is an optional constant
 *   input, one multiplier per output channel. Without mul this is exactly the epilogue of
 *   compiler/accel/vta_lower.h (ADD bias, ADD rounding, SHR, MAX, MIN), so such a node runs on
 *   the accelerator or the CPU alike.
 *   With the attributes leaky_k (1..31) and leaky_m (0..2^leaky_k), a folded LeakyRelu of slope
 *   leaky_m / 2^leaky_k comes before the rounding, which then shifts by shift + leaky_k:
 *     y = acc (* mul[c]) + bias;  z = max(y << leaky_k, y * leaky_m)   (wrapping as y does)
 *     out = clamp((z + (1 << (shift + leaky_k - 1))) >> (shift + leaky_k), lo, hi)
 *
 *   QAdd(a i8, b i8 of the same shape) -> i8, attributes ma, mb, shift, lo, hi:
 *     out = clamp((a * ma + b * mb + rnd) >> shift, lo, hi)   (int32)
 *
 * The ONNX operators QuantizeLinear, DequantizeLinear, QLinearConv, QLinearMatMul, ConvInteger
 * and MatMulInteger keep ONNX's semantics (zero points, float scales, round half to even).
 */

typedef struct vta_qconv_shape {
  int64_t n, c, h, w, m, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, group;
} vta_qconv_shape;

/* The shape of a QConv node (2-D; a 1-D convolution has h = kh = 1). */
void vta_qconv_shape_of(const vta_graph *g, const vta_node *nd, vta_qconv_shape *s);
/* The requantization of a QConv / QDense node: its attributes and multipliers. */
typedef struct vta_qrequant {
  const int64_t *mul; /* per output channel, or NULL */
  int shift, lo, hi;
  int leaky_k;        /* 0, or a LeakyRelu of slope leaky_m / 2^leaky_k (see above) */
  int32_t leaky_m;
} vta_qrequant;
/* Reference implementations (plain C, for tests and calibration checks): QConv on NCHW, QDense
 * on [M, K] rows, QAdd on n elements. */
void vta_qref_conv(const vta_qconv_shape *s, const int8_t *x, const int8_t *w, const int32_t *bias,
                   const vta_qrequant *rq, int8_t *out);
void vta_qref_dense(int64_t m, int64_t k, int64_t n, const int8_t *x, const int8_t *w,
                    const int32_t *bias, const vta_qrequant *rq, int8_t *out);
void vta_qref_add(int64_t n, const int8_t *a, const int8_t *b, int ma, int mb, int shift, int lo,
                  int hi, int8_t *out);

/* ------------------------------------------------------------------------------------------ */
/* Post-training quantization (quant.c, calibration in quant_calib.c)                         */

/* Calibration data: n_samples sets of every graph input, float32, in graph input order:
 * samples[s * n_inputs + k] holds input k of sample s (its full shape). */
typedef struct vta_calib {
  int n_samples, n_inputs;
  const float *const *samples;
} vta_calib;

enum { VTA_ADDS_DEFAULT = 0, VTA_ADDS_CPU = 1, VTA_ADDS_EXACT = 2, VTA_ADDS_ACC = 3,
       VTA_ADDS_FUSE = 4, VTA_ADDS_FUSE_ALWAYS = 5 };

typedef struct vta_quant_opts {
  const vta_calib *calib;   /* required */
  FILE *log;                /* one line per quantized node, or NULL */
  /* Accelerator-form layers (per-channel power-of-two weight scales; a dense layer has one
   * accelerator program per distinct shift, a convolution one program that shifts each channel
   * by its own amount): when > 1, channels are given shifts in groups of this many, so that
   * every dense program but the last computes whole blocks of output channels
   * (docs/quantization.md);
   * 1: every channel keeps its own shift; 0: vta_compile_graph uses the accelerator
   * configuration's BLOCK_OUT when partitioning, else 1. */
  int channel_group;
  /* Residual adds (QAdd: out = (a * ma + b * mb + rounding) >> shift). The accelerator
   * applies multipliers of at most 127 (a GEMM with diagonal weights and the residual
   * multiplier of its epilogue); the CPU form has 14 bits. VTA_ADDS_EXACT: when the scale of one
   * operand is still to be chosen (a convolution quantized with the other operand's scale
   * known), that scale and the add's output scale are moved (3% at most) so that 7-bit
   * multipliers are exact, and the add runs on the accelerator; other adds keep 14 bits.
   * VTA_ADDS_ACC: every add gets 7-bit multipliers, rounded where not exact. VTA_ADDS_CPU (and
   * DEFAULT): 14 bits, on the CPU. VTA_ADDS_FUSE: 14 bits, each add marked ("fuse") for the
   * partition to compute in the epilogue of the convolution producing one of its operands
   * (bit for bit the CPU's add) where that costs at most 3% of its cycles;
   * VTA_ADDS_FUSE_ALWAYS (tests, `vta regress`) whatever it costs. Measured on the reference
   * models (docs/quantization.md):
   * BlazeFace's worst face score moves 0.023 (cpu), 0.027 (exact), 0.056 (acc) from float. */
  int adds;
} vta_quant_opts;

/* Per value: the calibrated scale (absolute range / 127), 0 for values not calibrated. The
 * pass computes them by running the float graph on the calibration inputs. means (may be NULL)
 * receives per value of rank 2 to 4 a malloc'd array of the mean of each index of axis 1 (the
 * channel of NCHW tensors, the feature of [M, K] rows) over the samples, NULL for the others;
 * the caller frees them. */
int vta_quant_calibrate(const vta_graph *g, const vta_calib *cal, float *scales, float **means,
                        FILE *log,
                        vta_error *err);
/* Rewrites a float graph (after shape inference, folding and dead-node removal, before
 * fusion) into int8: Conv/Gemm/MatMul with constant weights become QConv/QDense, Relu and Clip
 * after them become their clip range, residual Adds become QAdd, MaxPool and data movement
 * keep int8 tensors, QuantizeLinear and DequantizeLinear are inserted where int8 meets float.
 * Graph inputs and outputs stay float32 with their names. */
int vta_pass_quantize(vta_graph *g, const vta_quant_opts *o, vta_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Partitioning (partition.c)                                                                 */

struct vta_config;

/* Why a node runs where it runs. */
typedef struct vta_place {
  int acc;                /* 1: on the accelerator */
  char why[400];
  uint64_t macs;          /* multiply-accumulates of the node (0 for data movement) */
} vta_place;

/* Marks every node: accelerator nodes get the attribute device='vta' (QConv with groups 1
 * and dilation 1, QDense without a multiplier, within the lowering's limits for cfg; an int8
 * max pooling beside an accelerator node), everything else runs on the CPU. An island of
 * accelerator nodes between CPU nodes whose MACs a host doing host_macs_per_ns int8 MACs per
 * nanosecond would finish before the device's predicted cycles at cfg's clock stays on the CPU
 * (host_macs_per_ns 0: 1.0; < 0: never). *places (if places is not NULL) receives a malloc'd
 * array of one entry per node. */
int vta_pass_partition(vta_graph *g, const struct vta_config *cfg, double host_macs_per_ns,
                       vta_place **places, vta_error *err);
/* Multiply-accumulates of node i (convolutions and matrix products; 0 for the rest). */
uint64_t vta_node_macs(const vta_graph *g, int i);
/* Is node i marked for the accelerator? */
int vta_node_on_acc(const vta_graph *g, int i);
/* Is node i a QAdd on the accelerator that the convolution producing one of its operands
 * computes in its epilogue (attribute "fused"; that convolution has "fuse_add")? It has no program and, in a bundle
 * compiled with --accel, no CPU code of its own. */
int vta_node_fused(const vta_graph *g, int i);
/* Prints, for each node, where it runs and why (with the lowering's tiling plan for
 * accelerator nodes) and a summary: the text of `vta compile --explain`. */
void vta_explain_print(const vta_graph *g, const struct vta_config *cfg, const vta_place *places,
                       FILE *out);

typedef struct vta_compile_opts {
  const char *dump;    /* letters: i import, s shapes, f fold, b bnfold, d dce, q quantize,
                        * e fuse, p partition */
  FILE *dump_file;     /* where dumps go (stderr when NULL) */
  int verify;          /* run the verifier after every pass (always on in test builds) */
  const vta_quant_opts *quant;         /* quantize to int8 (NULL: stay float) */
  const struct vta_config *accel;      /* partition for this accelerator (NULL: CPU only) */
  vta_place **places;                  /* with accel: receives one entry per node of the
                                        * result (malloc'd; the caller frees), or NULL */
  FILE *timing;                        /* one line per pass with its time, or NULL */
  double host_macs_per_ns;             /* the host's int8 MACs per ns that the partition weighs
                                        * islands of accelerator nodes against (0: 1.0; < 0:
                                        * every island with multiply-accumulates stays on the
                                        * accelerator; one of max poolings only never does) */
} vta_compile_opts;

/* Shape inference then fold, bnfold, fold, dce, [quantize], fuse, [partition], with
 * dumps and verification. */
int vta_compile_graph(vta_graph *g, const vta_compile_opts *o, vta_error *err);
/* The operators the CPU code generator implements (for `vta info` and the docs). */
int vta_codegen_supports(vta_gop op);
/* Does the CPU code generator implement node i with its element types? */
int vta_codegen_supports_node(const vta_graph *g, int i);

/* ------------------------------------------------------------------------------------------ */
/* CPU code generation (codegen_llvm.c) and the JIT (llvm_jit.c)                              */

/* Kernel calling convention: void vta_k<node>(void **args) with args = the node's present
 * inputs (in order), then its epilogue arguments, then its outputs, each a pointer to the
 * value's elements in row-major order. */
typedef void (*vta_kernel_fn)(void **args);

/* What CPU code is generated for: an LLVM triple, CPU name and feature string ("+avx2,..."). */
typedef struct vta_cpu_target {
  char triple[128];
  char cpu[64];
  char features[2048];
} vta_cpu_target;

/* The running machine (LLVM's default triple, host CPU name and host features). */
int vta_cpu_target_host(vta_cpu_target *t);

/* VTA_CODE_QUICK: a lighter optimisation pipeline, for code that runs a few times.
 * VTA_CODE_KERNELS_ONLY: only the shared kernels (GEMM, im2col, ...) the nodes call, exported;
 * VTA_CODE_NO_KERNELS: the nodes, calling those kernels from another object. Two such codes
 * loaded into one JIT make the kernels of the nodes, compiled side by side. */
enum { VTA_CODE_BITCODE = 1, VTA_CODE_OBJECT = 2, VTA_CODE_IR_TEXT = 4, VTA_CODE_QUICK = 8,
       VTA_CODE_KERNELS_ONLY = 16, VTA_CODE_NO_KERNELS = 32 };

typedef struct vta_cpu_code {
  vta_cpu_target target;   /* what the code was generated for */
  unsigned char *bitcode;  /* optimised LLVM bitcode of all kernels (malloc'd), or NULL */
  size_t size;
  unsigned char *object;   /* native relocatable object of the same code, or NULL */
  size_t object_size;
  char *ir_text;           /* LLVM IR text (VTA_CODE_IR_TEXT), or NULL */
  int skips_acc;           /* the kernels of the accelerator's nodes are left out (bundle
                              version 4): compiled when the cpu backend runs them */
} vta_cpu_code;

/* Symbol name of node i's kernel ("vta_k12"); the node must need code (vta_node_needs_code). */
void vta_kernel_name(int node, char *buf, size_t size);
int vta_node_needs_code(const vta_graph *g, int i);
/* Number of args of node i's kernel; their value indices go to values[0..cap-1] (the rest are
 * not written: a Concat of many inputs has more args than a kernel may take, and the caller
 * must check the count against its array, e.g. VTA_KERNEL_MAX_ARGS). */
int vta_kernel_args(const vta_graph *g, int i, int *values, int cap);
/* The most arguments a generated CPU kernel takes; nodes with more are refused by codegen. */
#define VTA_KERNEL_MAX_ARGS 64

/* Generates the kernels of every node for target (NULL: this machine) and produces the
 * outputs asked for in `what` (VTA_CODE_* bits). */
int vta_codegen_llvm_for(const vta_graph *g, const vta_cpu_target *target, int what,
                         vta_cpu_code *out, vta_error *err);
/* The same for the nodes i with only[i] set (only NULL: every node). */
int vta_codegen_llvm_nodes(const vta_graph *g, const vta_cpu_target *target, int what,
                           const unsigned char *only, vta_cpu_code *out, vta_error *err);
/* A deployed model's object for target (NULL: this machine): every node's kernel, internal,
 * and the plan (runtime/plan.h, from vta_plan_build), exported as one `const vta_model_image
 * symbol` (include/vta/model.h) that vta_model_from_image loads. out->object only. */
int vta_codegen_llvm_deploy(const vta_graph *g, const vta_cpu_target *target, const unsigned char *plan,
                            size_t plan_size, const char *symbol, vta_cpu_code *out, vta_error *err);
/* For this machine, bitcode and object (what a bundle holds). */
int vta_codegen_llvm(const vta_graph *g, vta_cpu_code *out, vta_error *err);
void vta_cpu_code_free(vta_cpu_code *c);

/* The first relocation of an x86-64 ELF object that holds its target in 32 bits or fewer
 * (object_reach.c): such a reference misses when the JIT places the sections it joins more
 * than 2 GiB apart. Returns 1 and describes it in what ("R_X86_64_PC32 at offset 0x14 of
 * .rela.rodata"), 0 when there is none, -1 when obj is not an x86-64 ELF64 object. */
int vta_cpu_object_short_reloc(const unsigned char *obj, size_t size, char *what, size_t n);

typedef struct vta_cpu_jit vta_cpu_jit;
/* Loads the code with ORC LLJIT: the native object when it was generated for this machine
 * (linking only), else the bitcode (compiled now for this machine). fns[i] receives node i's
 * kernel (NULL for nodes without code). */
vta_cpu_jit *vta_cpu_jit_create(const vta_cpu_code *c, const vta_graph *g, vta_kernel_fn *fns,
                                vta_error *err);
/* The same for the nodes i with only[i] set (only NULL: every node; the others' fns[i] NULL);
 * fns NULL: c is a kernel library (see vta_cpu_jit_add). */
vta_cpu_jit *vta_cpu_jit_create_for(const vta_cpu_code *c, const vta_graph *g,
                                    const unsigned char *only, vta_kernel_fn *fns, vta_error *err);
/* Adds more code (other nodes' kernels, e.g. the accelerator nodes' CPU fallback compiled on
 * demand) to a JIT: fns[i] is set for the nodes i with only[i] set. fns NULL: the code is a
 * kernel library (VTA_CODE_KERNELS_ONLY) for code added after it; nothing is looked up. */
int vta_cpu_jit_add(vta_cpu_jit *j, const vta_cpu_code *c, const vta_graph *g,
                    const unsigned char *only, vta_kernel_fn *fns, vta_error *err);
void vta_cpu_jit_destroy(vta_cpu_jit *j);

/* ------------------------------------------------------------------------------------------ */
/* Threads (parallel.c)                                                                       */

/* A monotonic clock in milliseconds, for the stage timings of -v and --time-passes (pipeline.c). */
double vta_now_ms(void);
/* How many threads the compiler uses: $VTA_THREADS if set (1 = none), else the online CPUs
 * (at most 8). Results never depend on it. */
int vta_compile_threads(void);
/* Runs fn(ctx, job) for job 0..n-1 on up to `threads` threads (the caller's among them) and
 * returns when all have run. The jobs must be independent. */
void vta_parallel_for(int n, int threads, void (*fn)(void *ctx, int job), void *ctx);

/* ------------------------------------------------------------------------------------------ */
/* Built-in benchmark model (gen_resnet.c)                                                    */

/* Serialises ResNet-18 v1 (torchvision layout, batch norms present, opset 13, input "data"
 * f32[1,3,224,224], output "logits" f32[1,1000]) with weights drawn from seed as an ONNX
 * ModelProto (*bytes malloc'd): what `vta compile builtin:resnet18` imports. */
int vta_gen_resnet18(uint64_t seed, unsigned char **bytes, size_t *size, vta_error *err);
/* The same model imported straight from the ModelProto built in memory (what
 * `vta compile builtin:resnet18` compiles): the same graph as importing the serialised bytes. */
vta_graph *vta_gen_resnet18_graph(uint64_t seed, const vta_import_opts *opts, vta_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Bundle file (bundle.c)                                                                     */

/* The version written for bundles with accelerator sections whose CPU code leaves out the
 * accelerator's nodes (4); with every node's code they are version 3 (HWCFG, ACC: new in 3);
 * CPU-only bundles are written as version 2, so that readers older than those sections still
 * load them. The reader takes versions VTA_BUNDLE_VERSION_MIN to VTA_BUNDLE_VERSION. */
#define VTA_BUNDLE_VERSION 4
#define VTA_BUNDLE_VERSION_MIN 2

int vta_bundle_write(const vta_graph *g, const vta_cpu_code *code, unsigned char **bytes,
                     size_t *size, vta_error *err);

/* Accelerator programs of a bundle: the hardware configuration (JSON) and one lowered layer
 * per accelerator node (its serialised vta_program, packed weights and biases). */
typedef struct vta_bundle_layer {
  int node;
  uint32_t nch;            /* the node's output channels this program computes */
  uint32_t *ch;
  uint32_t flags;          /* VTA_BUNDLE_IM2COL: the program reads im2col patches */
  uint64_t input_bytes, input2_bytes, output_bytes;
  unsigned char *prog, *weight, *bias;
  size_t prog_size, weight_size, bias_size;
} vta_bundle_layer;
enum { VTA_BUNDLE_IM2COL = 1 };
typedef struct vta_bundle_acc {
  char *config_json;       /* NULL: a CPU-only bundle */
  int n;
  vta_bundle_layer *layers;
} vta_bundle_acc;

/* The same with accelerator programs (acc may be NULL). */
int vta_bundle_write_acc(const vta_graph *g, const vta_cpu_code *code, const vta_bundle_acc *acc,
                         unsigned char **bytes, size_t *size, vta_error *err);
/* Checks magic, version, sizes and checksum; returns a graph and the CPU code (copies). */
int vta_bundle_read(const unsigned char *bytes, size_t size, vta_graph **g, vta_cpu_code *code,
                    vta_error *err);
/* The same, also returning the accelerator programs (acc may be NULL: they are skipped). */
int vta_bundle_read_acc(const unsigned char *bytes, size_t size, vta_graph **g, vta_cpu_code *code,
                        vta_bundle_acc *acc, vta_error *err);
void vta_bundle_acc_free(vta_bundle_acc *acc);

#ifdef __cplusplus
}
#endif
#endif
