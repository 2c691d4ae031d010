/* onnx.c - ONNX import: a ModelProto (decoded by protobuf-c code generated from Debian's
 * onnx.proto) becomes a vta_graph.
 *
 * The design idea: import is a faithful, shallow translation. Each ONNX node becomes one IR
 * node with its attributes copied by name; initializers and Constant nodes become constant
 * values; graph inputs become inputs with their symbolic dimensions fixed. Only what cannot be
 * expressed in the IR's node-per-op form is rewritten here: variadic Max/Min/Sum/Mean become
 * chains of binary nodes, ConstantOfShape's tensor attribute becomes a scalar. Everything that
 * depends on shapes or on constant inputs (Reshape's shape, Clip's bounds) is left to
 * shape.c. Every error names the node, its op type and what is wrong.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "vta/file.h"
#include "vta/limits.h"
#include "onnx/onnx.pb-c.h"

#define MIN_OPSET 9
#define MAX_OPSET 17

typedef struct {
  vta_graph *g;
  vta_error *err;
  const vta_import_opts *opts;
  int legacy; /* the opset (below 9) the model declared, imported as opset 9; 0 otherwise */
  int n_inferred; /* nodes whose shapes import_if inferred already */
  int depth;      /* nesting of If branches being imported */
} importer;

/* Since which opset an operator means what it means at opset 9 (as far as the import
 * translates: legacy broadcasting, is_test), or -1 when unknown here; opsets 1 to 8 only. The
 * versions are those of ONNX's operator changelog (docs/Changelog.md of ONNX 1.12). */
static int legacy_since(const char *op) {
  static const struct {
    const char *op;
    int since;
  } tab[] = {
      /* Unchanged in meaning since opset 1 (later versions removed consumed_inputs, added types or
       * added attributes whose defaults keep the old meaning: AveragePool's count_include_pad,
       * MaxPool's storage_order and indices output). */
      {"ArgMax", 1}, {"ArgMin", 1}, {"AveragePool", 1}, {"Concat", 4}, {"Conv", 1}, {"ConvTranspose", 1},
      {"DepthToSpace", 1}, {"Dropout", 1}, {"Flatten", 1}, {"Gather", 1}, {"GlobalAveragePool", 1},
      {"GlobalMaxPool", 1}, {"GlobalLpPool", 2}, {"Hardmax", 1}, {"Identity", 1}, {"LRN", 1}, {"LogSoftmax", 1},
      {"MatMul", 1}, {"MaxPool", 1}, {"Not", 1}, {"Pad", 2}, {"ReduceL1", 1}, {"ReduceL2", 1},
      {"ReduceLogSum", 1}, {"ReduceLogSumExp", 1}, {"ReduceMax", 1}, {"ReduceMean", 1}, {"ReduceMin", 1},
      {"ReduceProd", 1}, {"ReduceSum", 1}, {"ReduceSumSquare", 1}, {"Reshape", 5}, {"Shape", 1}, {"Size", 1},
      {"Slice", 1}, {"Softmax", 1}, {"Softplus", 1}, {"Softsign", 1}, {"SpaceToDepth", 1}, {"Split", 2},
      {"Squeeze", 1}, {"Transpose", 1}, {"Unsqueeze", 1}, {"TopK", 1},
      /* Opset 6 removed consumed_inputs (the meaning otherwise unchanged); BatchNormalization's
       * and Dropout's is_test, removed at 7, only names the inference form taken anyway. */
      {"Abs", 6}, {"BatchNormalization", 6}, {"Cast", 6}, {"Ceil", 6}, {"Clip", 6}, {"Elu", 6}, {"Exp", 6},
      {"Floor", 6}, {"HardSigmoid", 6}, {"InstanceNormalization", 6}, {"LeakyRelu", 6}, {"Log", 6},
      {"Neg", 6}, {"Reciprocal", 6}, {"Relu", 6}, {"Selu", 6}, {"Sigmoid", 6}, {"Sqrt", 6}, {"Tanh", 6},
      {"Tile", 6},
      /* Max, Min, Sum and Mean gained broadcasting at 8: at 6 their inputs have equal shapes. */
      {"Max", 6}, {"Min", 6}, {"Sum", 6}, {"Mean", 6},
      /* The binary operators' legacy broadcasting (broadcast and axis attributes, before 7) is
       * translated into numpy broadcasting by import_node. */
      {"Add", 1}, {"Sub", 1}, {"Mul", 1}, {"Div", 1}, {"Pow", 1}, {"And", 1}, {"Or", 1}, {"Xor", 1},
      {"Equal", 1}, {"Less", 1}, {"Greater", 1}, {"Gemm", 6},
      {"Constant", 1}, {"Sin", 7}, {"Cos", 7}, {"Tan", 7}, {"Asin", 7}, {"Acos", 7}, {"Atan", 7}, {"GRU", 7}, {"LSTM", 7},
      {"RNN", 7}, {"Expand", 8},
      /* PRelu's slope of shape [C] before 7 is per channel: translated by import_node. */
      {"PRelu", 6},
  };
  for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
    if (strcmp(tab[k].op, op) == 0) return tab[k].since;
  return -1;
}

static int decode_tensor(const Onnx__TensorProto *t, vta_gvalue *v, const char *what,
                         vta_error *err) {
  vta_dtype dt;
  if (!t->has_data_type || vta_dtype_from_onnx(t->data_type, &dt))
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "%s: tensor element type %d is not supported (float32, float64, float16, "
                         "int64, int32, int16, int8, uint64, uint32, uint16, uint8, bool are)", what, t->has_data_type ? t->data_type : 0);
  if (t->n_dims > VTA_MAX_RANK)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: %zu dimensions, at most %d supported",
                         what, t->n_dims, VTA_MAX_RANK);
  if ((t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
      t->n_external_data)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "%s: tensor data stored in an external file is not supported", what);
  int64_t dims[VTA_MAX_RANK];
  /* Check the element count against the stored data before allocating anything, so a
   * corrupt or hostile shape cannot ask for terabytes. */
  size_t count0 = 1, esz0 = vta_dtype_size(dt), have0;
  for (size_t i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0 || (t->dims[i] && count0 > (SIZE_MAX >> 4) / (size_t)t->dims[i]))
      return vta_error_set(err, VTA_ERR_INVALID, "%s: dimension %zu (%lld) is negative or too large",
                           what, i, (long long)t->dims[i]);
    count0 *= (size_t)t->dims[i];
  }
  if (t->has_raw_data)
    have0 = t->raw_data.len / (esz0 ? esz0 : 1);
  else if (dt == VTA_DT_F32)
    have0 = t->n_float_data;
  else if (dt == VTA_DT_F64)
    have0 = t->n_double_data;
  else if (dt == VTA_DT_I64)
    have0 = t->n_int64_data;
  else if (dt == VTA_DT_U32 || dt == VTA_DT_U64)
    have0 = t->n_uint64_data;
  else
    have0 = t->n_int32_data; /* the narrow types; float16 as its bit patterns */
  if (have0 != count0)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: %zu elements stored, the shape needs %zu", what,
                         have0, count0);
  for (size_t i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0)
      return vta_error_set(err, VTA_ERR_INVALID, "%s: negative dimension %lld", what,
                           (long long)t->dims[i]);
    dims[i] = t->dims[i];
  }
  if (vta_value_set_const(v, dt, (int)t->n_dims, dims))
    return vta_error_set(err, VTA_ERR_NOMEM, "%s: out of memory", what);
  size_t count = (size_t)vta_value_count(v), esz = vta_dtype_size(dt);
  if (t->has_raw_data) {
    if (t->raw_data.len != count * esz)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "%s: raw_data holds %zu bytes, the shape needs %zu", what,
                           t->raw_data.len, count * esz);
    if (count) memcpy(v->data, t->raw_data.data, count * esz);
    return VTA_OK;
  }
  size_t have;
  switch (dt) {
  case VTA_DT_F32: have = t->n_float_data; break;
  case VTA_DT_F64: have = t->n_double_data; break;
  case VTA_DT_I64: have = t->n_int64_data; break;
  case VTA_DT_U32: case VTA_DT_U64: have = t->n_uint64_data; break;
  default: have = t->n_int32_data; break;
  }
  if (have != count)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: %zu elements stored, the shape needs %zu",
                         what, have, count);
  for (size_t i = 0; i < count; i++) {
    switch (dt) {
    case VTA_DT_F32: ((float *)v->data)[i] = t->float_data[i]; break;
    case VTA_DT_F64: ((double *)v->data)[i] = t->double_data[i]; break;
    case VTA_DT_I64: ((int64_t *)v->data)[i] = t->int64_data[i]; break;
    case VTA_DT_I32: ((int32_t *)v->data)[i] = t->int32_data[i]; break;
    case VTA_DT_I8: ((int8_t *)v->data)[i] = (int8_t)t->int32_data[i]; break;
    case VTA_DT_I16: case VTA_DT_U16: case VTA_DT_F16: /* float16: the bit pattern */
      ((uint16_t *)v->data)[i] = (uint16_t)t->int32_data[i];
      break;
    case VTA_DT_U32: ((uint32_t *)v->data)[i] = (uint32_t)t->uint64_data[i]; break;
    case VTA_DT_U64: ((uint64_t *)v->data)[i] = t->uint64_data[i]; break;
    default: ((uint8_t *)v->data)[i] = (uint8_t)t->int32_data[i]; break;
    }
  }
  return VTA_OK;
}

int vta_onnx_read_tensor(const void *data, size_t size, vta_gvalue *out, vta_error *err) {
  memset(out, 0, sizeof *out);
  out->producer = -1;
  Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, size, data);
  if (!t) return vta_error_set(err, VTA_ERR_INVALID, "not a serialized ONNX TensorProto");
  int rc = decode_tensor(t, out, t->name && t->name[0] ? t->name : "tensor", err);
  if (rc == VTA_OK) {
    out->name = strdup(t->name ? t->name : "");
    if (!out->name) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  onnx__tensor_proto__free_unpacked(t, NULL);
  if (rc) vta_value_free(out);
  return rc;
}

/* The value called name, created (as a computed f32 value) when first seen. */
static int value_for(importer *im, const char *name) {
  int v = vta_graph_find_value(im->g, name);
  if (v >= 0) return v;
  return vta_graph_add_value(im->g, name, VTA_DT_F32);
}

static int copy_attrs(importer *im, int ni, const Onnx__NodeProto *np, const char *where) {
  vta_node *nd = &im->g->nodes[ni];
  for (size_t k = 0; k < np->n_attribute; k++) {
    const Onnx__AttributeProto *a = np->attribute[k];
    int rc = 0;
    /* protobuf-c leaves an absent name NULL (found by fuzz_onnx: strcmp on it). */
    if (!a->name || !a->name[0])
      return vta_error_set(im->err, VTA_ERR_INVALID, "%s: attribute %zu has no name", where, k);
    switch (a->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
      rc = vta_attrs_set_int(&nd->n_attrs, &nd->attrs, a->name, a->i);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
      rc = vta_attrs_set_float(&nd->n_attrs, &nd->attrs, a->name, a->f);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
      rc = vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, a->name, (int)a->n_ints, a->ints);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
      rc = vta_attrs_set_floats(&nd->n_attrs, &nd->attrs, a->name, (int)a->n_floats, a->floats);
      break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
      /* An absent string has no data pointer (found by fuzz_onnx: strndup(NULL, 0)). */
      char *s = a->s.data ? strndup((const char *)a->s.data, a->s.len) : strdup("");
      rc = s ? vta_attrs_set_string(&nd->n_attrs, &nd->attrs, a->name, s) : -1;
      free(s);
      break;
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
      if (nd->op == VTA_GOP_CONSTANT_OF_SHAPE && strcmp(a->name, "value") == 0 && a->t) {
        vta_gvalue tv = {0};
        if (decode_tensor(a->t, &tv, where, im->err)) {
          vta_value_free(&tv);
          return -1;
        }
        if (vta_value_count(&tv) != 1) {
          vta_value_free(&tv);
          return vta_error_set(im->err, VTA_ERR_INVALID,
                               "%s: attribute 'value' must hold one element", where);
        }
        double x = vta_elem_get(&tv, 0);
        rc = vta_attrs_set_float(&nd->n_attrs, &nd->attrs, "value", (float)x) ||
             vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "dtype", vta_dtype_onnx(tv.dtype));
        vta_value_free(&tv);
        break;
      }
      /* fall through */
    default:
      return vta_error_set(im->err, VTA_ERR_UNSUPPORTED,
                           "%s: attribute '%s' has a type (%d) this compiler does not support",
                           where, a->name, (int)a->type);
    }
    if (rc) return vta_error_set(im->err, VTA_ERR_NOMEM, "%s: out of memory", where);
  }
  return 0;
}

/* Constant node: its one attribute is the value. */
static int import_constant(importer *im, const Onnx__NodeProto *np, const char *where) {
  if (np->n_output != 1)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: a Constant needs exactly one output", where);
  if (vta_graph_find_value(im->g, np->output[0]) >= 0)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: output '%s' is defined twice", where,
                         np->output[0]);
  int v = vta_graph_add_value(im->g, np->output[0], VTA_DT_F32);
  if (v < 0) return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
  vta_gvalue *val = &im->g->values[v];
  if (np->n_attribute != 1)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: a Constant needs exactly one attribute",
                         where);
  const Onnx__AttributeProto *a = np->attribute[0];
  int64_t n;
  if (!a->name || !a->name[0])
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: the Constant's attribute has no name", where);
  if (strcmp(a->name, "value") == 0 && a->t) return decode_tensor(a->t, val, where, im->err);
  if (strcmp(a->name, "value_float") == 0 || strcmp(a->name, "value_int") == 0) {
    int is_f = a->name[6] == 'f';
    if (vta_value_set_const(val, is_f ? VTA_DT_F32 : VTA_DT_I64, 0, NULL))
      return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
    if (is_f)
      *(float *)val->data = a->f;
    else
      *(int64_t *)val->data = a->i;
    return 0;
  }
  if (strcmp(a->name, "value_floats") == 0 || strcmp(a->name, "value_ints") == 0) {
    int is_f = a->name[6] == 'f';
    n = is_f ? (int64_t)a->n_floats : (int64_t)a->n_ints;
    if (vta_value_set_const(val, is_f ? VTA_DT_F32 : VTA_DT_I64, 1, &n))
      return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
    if (n) memcpy(val->data, is_f ? (void *)a->floats : (void *)a->ints, (size_t)n * (is_f ? 4 : 8));
    return 0;
  }
  return vta_error_set(im->err, VTA_ERR_UNSUPPORTED,
                       "%s: Constant attribute '%s' is not supported (value, value_float(s), "
                       "value_int(s) are)", where, a->name);
}

static int legacy_align(importer *im, const Onnx__NodeProto *np, int *ins, int64_t axis, const char *where);

/* Before opset 7 a binary operator broadcast only with broadcast=1, B's dimensions lining up
 * with A's from `axis` on (from the end without it). Numpy broadcasting, opset 7's, lines
 * them up from the end: B gets trailing dimensions of 1 (an Unsqueeze node, or a reshaped
 * copy of a constant) so that both mean the same. Needs the ranks at import: those of graph
 * inputs and constants. */
static int legacy_broadcast(importer *im, const Onnx__NodeProto *np, int *ins, const char *where) {
  int64_t bcast = 0, axis = 0;
  int has_axis = 0;
  for (size_t k = 0; k < np->n_attribute; k++) {
    const Onnx__AttributeProto *a = np->attribute[k];
    if (a->name && strcmp(a->name, "broadcast") == 0) bcast = a->i;
    if (a->name && strcmp(a->name, "axis") == 0) axis = a->i, has_axis = 1;
  }
  if (!bcast || !has_axis || ins[0] < 0 || ins[1] < 0) return 0;
  return legacy_align(im, np, ins, axis, where);
}

/* Gives B (ins[1]) trailing dimensions of 1 so that numpy broadcasting lines it up with A's
 * dimensions from axis on. */
static int legacy_align(importer *im, const Onnx__NodeProto *np, int *ins, int64_t axis, const char *where) {
  const vta_gvalue *A = &im->g->values[ins[0]], *B = &im->g->values[ins[1]];
  if (A->rank < 0 || B->rank < 0)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: legacy broadcasting (opset %d) with axis %lld needs "
                         "the ranks of both inputs at import; '%s' or '%s' is computed", where, im->legacy,
                         (long long)axis, A->name, B->name);
  if (axis < 0) axis += A->rank;
  int trailing = A->rank - (int)axis - B->rank;
  if (axis < 0 || trailing < 0)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: broadcast axis %lld does not fit input ranks %d and %d",
                         where, (long long)axis, A->rank, B->rank);
  if (trailing == 0) return 0;
  if (B->rank + trailing > VTA_MAX_RANK)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: rank %d exceeds %d", where, B->rank + trailing,
                         VTA_MAX_RANK);
  char tmp[600];
  snprintf(tmp, sizeof tmp, "%s.legacy_broadcast", np->output[0]);
  int nv = vta_graph_add_value(im->g, tmp, B->dtype);
  if (nv < 0) return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
  B = &im->g->values[ins[1]];
  if (B->data) {
    /* A constant: a copy with the longer shape. */
    int64_t dims[VTA_MAX_RANK];
    int rank = B->rank + trailing;
    memcpy(dims, B->dims, sizeof dims[0] * (size_t)B->rank);
    for (int k = B->rank; k < rank; k++) dims[k] = 1;
    vta_gvalue *nb = &im->g->values[nv];
    if (vta_value_set_const(nb, B->dtype, rank, dims))
      return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
    memcpy(nb->data, im->g->values[ins[1]].data, vta_value_bytes(nb));
  } else {
    int64_t axes[VTA_MAX_RANK];
    for (int k = 0; k < trailing; k++) axes[k] = B->rank + k;
    int ni = vta_graph_add_node(im->g, VTA_GOP_UNSQUEEZE, tmp, 1, &ins[1], 1, &nv);
    if (ni < 0 || vta_attrs_set_ints(&im->g->nodes[ni].n_attrs, &im->g->nodes[ni].attrs, "axes", trailing, axes))
      return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
  }
  ins[1] = nv;
  return 0;
}

static int import_node(importer *im, int idx, const Onnx__NodeProto *np);

/* Shape-infers (and evaluates, where the inputs are constants) the nodes imported since the
 * last call, as shape inference does later (vta_shape_infer_node, vta_eval_node); stops early
 * once value `until` (>= 0) is a constant. */
static int infer_so_far(importer *im, int until, const char *where) {
  for (; (until < 0 || !im->g->values[until].data) && im->n_inferred < im->g->n_nodes; im->n_inferred++) {
    int i = im->n_inferred;
    im->g->nodes[i].inferred = 1;
    if (vta_shape_infer_node(im->g, i, im->err) || (vta_eval_can(im->g, i) && vta_eval_node(im->g, i, im->err))) {
      vta_error_prefix(im->err, "%s", where);
      return -1;
    }
  }
  return 0;
}

/* Imports one branch of an If: its initializers and nodes, which may use the outer graph's
 * values by name. */
static int import_branch(importer *im, int idx, const Onnx__NodeProto *np, const Onnx__GraphProto *br, const char *which,
                         const char *where) {
  if (br->n_output != np->n_output)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: the %s branch has %zu outputs, the If %zu", where, which,
                         br->n_output, np->n_output);
  if (br->n_node > VTA_LIMIT_NODES || (size_t)im->g->n_nodes + br->n_node > (size_t)VTA_LIMIT_NODES)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: the %s branch brings the graph past %d nodes "
                         "(VTA_LIMIT_NODES)", where, which, VTA_LIMIT_NODES);
  for (size_t i = 0; i < br->n_initializer; i++) {
    const Onnx__TensorProto *t = br->initializer[i];
    const char *name = t->name ? t->name : "";
    char what[600];
    snprintf(what, sizeof what, "%s: %s branch initializer '%s'", where, which, name);
    if (vta_graph_find_value(im->g, name) >= 0)
      return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: the name is taken already (outer graph or other "
                           "branch)", what);
    int v = vta_graph_add_value(im->g, name, VTA_DT_F32);
    if (v < 0) return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
    if (decode_tensor(t, &im->g->values[v], what, im->err)) return -1;
  }
  for (size_t i = 0; i < br->n_node; i++)
    if (import_node(im, idx, br->node[i])) {
      vta_error_prefix(im->err, "%s, %s branch", where, which);
      return -1;
    }
  for (size_t k = 0; k < br->n_output; k++)
    if (vta_graph_find_value(im->g, br->output[k]->name ? br->output[k]->name : "") < 0)
      return vta_error_set(im->err, VTA_ERR_INVALID, "%s: %s branch output '%s' is produced by no node", where,
                           which, br->output[k]->name ? br->output[k]->name : "");
  return 0;
}

/* If, two ways. (1) The condition is known at compile time: a constant, or computed from
 * constants and shapes (the nodes imported so far are shape-inferred and evaluated until it
 * is known). Only the chosen branch is imported, in place of the If, and Identity nodes pass
 * its outputs on. (2) Otherwise both branches are imported and computed (the IR's operators
 * have no side effects) and a Where node per output selects by the condition at run time; this
 * needs each output's element type and shape to be the same in both branches (checked by
 * inferring them here), else the If is refused by name. */
static int import_if(importer *im, int idx, const Onnx__NodeProto *np, const char *where) {
  if (np->n_input != 1 || !np->input[0][0])
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: If needs exactly one input (the condition)", where);
  int c = vta_graph_find_value(im->g, np->input[0]);
  if (c < 0)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: input '%s' is not a graph input, initializer or earlier "
                         "output", where, np->input[0]);
  if (im->depth >= 16)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: If branches nested more than 16 deep", where);
  const Onnx__GraphProto *then_g = NULL, *else_g = NULL;
  for (size_t k = 0; k < np->n_attribute; k++) {
    const Onnx__AttributeProto *a = np->attribute[k];
    if (a->name && strcmp(a->name, "then_branch") == 0) then_g = a->g;
    if (a->name && strcmp(a->name, "else_branch") == 0) else_g = a->g;
  }
  if (!then_g || !else_g)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: attribute %s (a graph) is missing", where,
                         then_g ? "else_branch" : "then_branch");
  if (infer_so_far(im, c, where)) return -1;
  const vta_gvalue *cv = &im->g->values[c];
  if (cv->rank >= 0 && vta_value_count(cv) != 1)
    return vta_error_set(im->err, VTA_ERR_INVALID, "%s: the condition '%s' has %lld elements, If needs one", where,
                         cv->name, (long long)vta_value_count(cv));
  int known = cv->data != NULL, take_then = known && vta_elem_get(cv, 0) != 0;
  im->depth++;
  int rc = (!known || take_then) && import_branch(im, idx, np, then_g, "then", where);
  if (!rc && (!known || !take_then)) rc = import_branch(im, idx, np, else_g, "else", where);
  im->depth--;
  if (rc || (!known && infer_so_far(im, -1, where))) {
    if (!known)
      vta_error_prefix(im->err, "(the condition '%s' is computed at run time: both branches are compiled)",
                       im->g->values[c].name);
    return -1;
  }
  for (size_t k = 0; k < np->n_output; k++) {
    if (!np->output[k][0]) continue;
    if (vta_graph_find_value(im->g, np->output[k]) >= 0)
      return vta_error_set(im->err, VTA_ERR_INVALID, "%s: output '%s' is defined twice", where, np->output[k]);
    int t = vta_graph_find_value(im->g, then_g->output[k]->name ? then_g->output[k]->name : "");
    int e = vta_graph_find_value(im->g, else_g->output[k]->name ? else_g->output[k]->name : "");
    int dst = value_for(im, np->output[k]);
    if (dst < 0) return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
    if (known) {
      int src = take_then ? t : e;
      if (vta_graph_add_node(im->g, VTA_GOP_IDENTITY, np->output[k], 1, &src, 1, &dst) < 0)
        return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
      continue;
    }
    const vta_gvalue *tv = &im->g->values[t], *ev = &im->g->values[e];
    int same = tv->dtype == ev->dtype && tv->rank == ev->rank && tv->rank >= 0;
    for (int d = 0; same && d < tv->rank; d++) same = tv->dims[d] == ev->dims[d];
    if (!same)
      return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: the condition '%s' is computed at run time and output "
                           "%zu differs between the branches ('%s' and '%s': element type or shape); If is supported "
                           "with a condition known at compile time, or with branches whose outputs agree", where,
                           cv->name, k, tv->name, ev->name);
    int sel[3] = {c, t, e};
    if (vta_graph_add_node(im->g, VTA_GOP_WHERE, np->output[k], 3, sel, 1, &dst) < 0)
      return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
  }
  return 0;
}

static int import_node(importer *im, int idx, const Onnx__NodeProto *np) {
  char where[512];
  const char *nm = np->name && np->name[0] ? np->name : (np->n_output ? np->output[0] : "");
  snprintf(where, sizeof where, "node %d '%s' (%s)", idx, nm, np->op_type ? np->op_type : "?");
  if (np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx") != 0)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED,
                         "%s: operator domain '%s' is not supported (only the default ONNX domain)",
                         where, np->domain);
  if (!np->op_type) return vta_error_set(im->err, VTA_ERR_INVALID, "%s: no op_type", where);
  if (strcmp(np->op_type, "Constant") == 0) return import_constant(im, np, where);
  if (strcmp(np->op_type, "If") == 0) return import_if(im, idx, np, where);
  const char *opname = np->op_type;
  int variadic = strcmp(opname, "Sum") == 0 || strcmp(opname, "Mean") == 0 ||
                 ((strcmp(opname, "Max") == 0 || strcmp(opname, "Min") == 0));
  vta_gop op;
  if (strcmp(opname, "Sum") == 0 || strcmp(opname, "Mean") == 0)
    op = VTA_GOP_ADD;
  else
    op = vta_op_lookup(opname);
  const char *refused = vta_op_refused(opname);
  if (refused)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: operator %s is refused: %s", where,
                         opname, refused);
  if (op == VTA_GOP_COUNT || vta_op_internal(op))
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: operator %s is not supported", where,
                         opname);
  int ins[64], outs[16];
  if (np->n_input > 64 || np->n_output > 16)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "%s: %zu inputs and %zu outputs; a node may "
                         "have at most 64 and 16", where, np->n_input, np->n_output);
  for (size_t k = 0; k < np->n_input; k++) {
    if (!np->input[k][0]) {
      ins[k] = -1;
      continue;
    }
    ins[k] = vta_graph_find_value(im->g, np->input[k]);
    if (ins[k] < 0)
      return vta_error_set(im->err, VTA_ERR_INVALID,
                           "%s: input '%s' is not a graph input, initializer or earlier output",
                           where, np->input[k]);
  }
  size_t n_out = np->n_output;
  if (op == VTA_GOP_DROPOUT || op == VTA_GOP_BATCHNORM) n_out = 1; /* inference: mask/stats unused */
  if (n_out < 1) return vta_error_set(im->err, VTA_ERR_INVALID, "%s: no outputs", where);
  for (size_t k = 0; k < n_out; k++) {
    if (vta_graph_find_value(im->g, np->output[k]) >= 0)
      return vta_error_set(im->err, VTA_ERR_INVALID, "%s: output '%s' is defined twice", where,
                           np->output[k]);
    outs[k] = value_for(im, np->output[k]);
    if (outs[k] < 0) return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
  }
  if (variadic) {
    if (np->n_input < 1)
      return vta_error_set(im->err, VTA_ERR_INVALID, "%s: needs at least one input", where);
    /* A chain of binary nodes; the intermediate values get derived names. */
    int acc = ins[0];
    if (np->n_input == 1) {
      int ni = vta_graph_add_node(im->g, VTA_GOP_IDENTITY, nm, 1, ins, 1, outs);
      return ni < 0 ? vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory") : 0;
    }
    int mean = strcmp(opname, "Mean") == 0;
    for (size_t k = 1; k < np->n_input; k++) {
      int dst = outs[0];
      if (k + 1 < np->n_input || mean) {
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s.%zu", np->output[0], k);
        dst = vta_graph_add_value(im->g, tmp, VTA_DT_F32);
        if (dst < 0) return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
      }
      int pair[2] = {acc, ins[k]};
      if (vta_graph_add_node(im->g, op, nm, 2, pair, 1, &dst) < 0)
        return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
      acc = dst;
    }
    if (mean) {
      char tmp[600];
      snprintf(tmp, sizeof tmp, "%s.scale", np->output[0]);
      int c = vta_graph_add_value(im->g, tmp, VTA_DT_F32);
      if (c < 0 || vta_value_set_const(&im->g->values[c], VTA_DT_F32, 0, NULL))
        return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
      *(float *)im->g->values[c].data = 1.0f / (float)np->n_input;
      int pair[2] = {acc, c};
      if (vta_graph_add_node(im->g, VTA_GOP_MUL, nm, 2, pair, 1, outs) < 0)
        return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
    }
    return 0;
  }
  if (im->legacy && im->legacy < 7 && np->n_input == 2) {
    if (op == VTA_GOP_PRELU) {
      /* PRelu before opset 7: a slope of one value per channel (dimension 1) has shape [C]. */
      const vta_gvalue *x = ins[0] >= 0 ? &im->g->values[ins[0]] : NULL, *sl = ins[1] >= 0 ? &im->g->values[ins[1]] : NULL;
      if (x && sl && sl->rank == 1 && sl->dims[0] > 1 && (x->rank < 0 || (x->rank > 2 && sl->dims[0] == x->dims[1])) &&
          legacy_align(im, np, ins, 1, where))
        return -1;
    } else if (legacy_broadcast(im, np, ins, where)) {
      return -1;
    }
  }
  int ni = vta_graph_add_node(im->g, op, nm, (int)np->n_input, ins, (int)n_out, outs);
  if (ni < 0) return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
  return copy_attrs(im, ni, np, where);
}

/* A graph input's shape, from the model or --shape, within the limits (vta/limits.h). */
static int check_input(importer *im, const vta_gvalue *val) {
  char what[300];
  snprintf(what, sizeof what, "graph input '%s'", val->name);
  return vta_value_check_size(val, what, im->err);
}

static int import_input(importer *im, const Onnx__ValueInfoProto *vi) {
  const char *name = vi->name ? vi->name : "";
  int v = vta_graph_find_value(im->g, name);
  if (v >= 0) return 0; /* also an initializer: a constant with a default, keep the constant */
  for (int k = 0; im->opts && k < im->opts->n_fixed; k++)
    if (strcmp(im->opts->fixed_names[k], name) == 0) {
      const vta_gvalue *fv = &im->opts->fixed_values[k];
      /* The value takes the type the model declares for the input: converted when every
       * element is exactly representable in it (`--const-input sr=16000` for an int64 input;
       * a floating-point input rounds), refused naming the input, both types and the first
       * element that is not. */
      const Onnx__TypeProto__Tensor *ft =
          vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? vi->type->tensor_type : NULL;
      vta_dtype want = fv->dtype;
      if (ft && ft->has_elem_type && vta_dtype_from_onnx(ft->elem_type, &want))
        return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "graph input '%s': element type %d is not supported",
                             name, ft->elem_type);
      v = vta_graph_add_value(im->g, name, VTA_DT_F32);
      if (v < 0 || vta_value_set_const(&im->g->values[v], want, fv->rank, fv->dims))
        return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
      vta_gvalue *cv = &im->g->values[v];
      if (want == fv->dtype) {
        memcpy(cv->data, fv->data, vta_value_bytes(fv));
      } else {
        int64_t n = vta_value_count(fv);
        for (int64_t j = 0; j < n; j++) {
          double x = vta_elem_get(fv, j);
          int flt = want == VTA_DT_F32 || want == VTA_DT_F64 || want == VTA_DT_F16;
          int fits = flt || (x == x && x > -9.2e18 && x < 9.2e18); /* before the cast */
          if (fits) vta_elem_put(cv, j, x);
          if (!fits || (!flt && vta_elem_get(cv, j) != x)) /* floats round, as decimals do */
            return vta_error_set(im->err, VTA_ERR_INVALID, "graph input '%s' is declared %s; the value fixed for "
                                 "it (%s) has element %lld = %.17g, which %s does not hold exactly", name,
                                 vta_dtype_name(want), vta_dtype_name(fv->dtype), (long long)j, x,
                                 vta_dtype_name(want));
        }
      }
      return 0;
    }
  if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
      !vi->type->tensor_type)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED,
                         "graph input '%s' is not a tensor (sequences and maps are not supported)",
                         name);
  const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
  vta_dtype dt;
  if (!tt->has_elem_type || vta_dtype_from_onnx(tt->elem_type, &dt))
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED,
                         "graph input '%s': element type %d is not supported", name,
                         tt->has_elem_type ? tt->elem_type : 0);
  v = vta_graph_add_value(im->g, name, dt);
  if (v < 0 || vta_graph_add_input(im->g, v))
    return vta_error_set(im->err, VTA_ERR_NOMEM, "out of memory");
  vta_gvalue *val = &im->g->values[v];
  if (!tt->shape)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "graph input '%s' has no shape", name);
  if (tt->shape->n_dim > VTA_MAX_RANK)
    return vta_error_set(im->err, VTA_ERR_UNSUPPORTED, "graph input '%s': more than %d dimensions",
                         name, VTA_MAX_RANK);
  val->rank = (int)tt->shape->n_dim;
  for (int k = 0; im->opts && k < im->opts->n_shapes; k++) {
    /* A shape without a name applies to the first graph input. */
    if (im->opts->shape_names[k] ? strcmp(im->opts->shape_names[k], name) != 0 : im->g->n_inputs != 1)
      continue;
    if (im->opts->shape_ranks[k] != val->rank)
      return vta_error_set(im->err, VTA_ERR_INVALID,
                           "graph input '%s' has rank %d, the given shape has %d", name, val->rank,
                           im->opts->shape_ranks[k]);
    for (int i = 0; i < val->rank; i++) {
      const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
      int64_t given = im->opts->shape_dims[k][i];
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0 &&
          d->dim_value != given)
        return vta_error_set(im->err, VTA_ERR_INVALID,
                             "graph input '%s': dimension %d is %lld in the model, %lld given", name,
                             i, (long long)d->dim_value, (long long)given);
      val->dims[i] = given;
    }
    return check_input(im, val);
  }
  for (size_t i = 0; i < tt->shape->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    int64_t x = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : -1;
    if (x < 0) x = im->opts && im->opts->dynamic_dim > 0 ? im->opts->dynamic_dim : 1;
    val->dims[i] = x;
  }
  return check_input(im, val);
}

vta_graph *vta_onnx_import(const void *data, size_t size, const vta_import_opts *opts,
                           vta_error *err) {
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
  if (!m) {
    vta_error_set(err, VTA_ERR_INVALID,
                  "not an ONNX model (the protobuf ModelProto could not be decoded from %zu bytes)",
                  size);
    return NULL;
  }
  vta_graph *g = vta_onnx_import_proto(m, opts, err);
  onnx__model_proto__free_unpacked(m, NULL);
  return g;
}

vta_graph *vta_onnx_import_proto(const struct Onnx__ModelProto *m, const vta_import_opts *opts,
                                 vta_error *err) {
  importer im = {vta_graph_create(), err, opts, 0, 0, 0};
  if (!im.g) {
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    goto bad;
  }
  if (!m->graph) {
    vta_error_set(err, VTA_ERR_INVALID, "the ONNX model has no graph");
    goto bad;
  }
  int opset = -1;
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    if ((!o->domain || !o->domain[0] || strcmp(o->domain, "ai.onnx") == 0) && o->has_version)
      opset = (int)o->version;
  }
  /* An operator refused by name is named first, whatever else the model lacks (the training
   * operators' models import only the ai.onnx.preview.training domain). */
  for (size_t i = 0; i < m->graph->n_node; i++) {
    const char *t = m->graph->node[i]->op_type ? m->graph->node[i]->op_type : "";
    const char *why = vta_op_refused(t);
    if (why) {
      const char *nm = m->graph->node[i]->name ? m->graph->node[i]->name : "";
      vta_error_set(err, VTA_ERR_UNSUPPORTED, "node %d '%s' (%s): operator %s is refused: %s", (int)i, nm, t, t,
                    why);
      goto bad;
    }
  }
  if (opset < 0) {
    vta_error_set(err, VTA_ERR_INVALID, "the ONNX model imports no default-domain opset");
    goto bad;
  }
  /* A model declaring an opset older than 9 (down to 1) is imported as opset 9 when every
   * operator it uses means at its opset what it means at 9: legacy_since() gives the opset from
   * which each operator's definition is opset 9's, up to what the import translates (legacy
   * broadcasting's axis, BatchNormalization's and Dropout's is_test, attributes later removed
   * such as consumed_inputs, element types added later). An operator that changed meaning after
   * the model's opset is refused by name. */
  int legacy = 0;
  if (opset >= 1 && opset < MIN_OPSET) {
    for (size_t i = 0; i < m->graph->n_node; i++) {
      const Onnx__NodeProto *np = m->graph->node[i];
      const char *t = np->op_type ? np->op_type : "";
      int since = legacy_since(t);
      if (since < 0 || since > opset) {
        const char *nm = np->name && np->name[0] ? np->name : (np->n_output ? np->output[0] : "");
        if (since < 0)
          vta_error_set(err, VTA_ERR_UNSUPPORTED, "node %d '%s' (%s): the model uses ONNX opset %d; this compiler "
                        "supports opsets %d to %d, and older models only with operators whose meaning it knows to "
                        "be unchanged since (%s is not one of them)", (int)i, nm, t, opset, MIN_OPSET, MAX_OPSET, t);
        else
          vta_error_set(err, VTA_ERR_UNSUPPORTED, "node %d '%s' (%s): the model uses ONNX opset %d; %s at that "
                        "opset differs from the opset %d definition this compiler implements (it holds from opset "
                        "%d)", (int)i, nm, t, opset, t, MIN_OPSET, since);
        goto bad;
      }
    }
    legacy = opset;
    opset = MIN_OPSET;
  }
  im.legacy = legacy;
  if (opset < MIN_OPSET || opset > MAX_OPSET) {
    vta_error_set(err, VTA_ERR_UNSUPPORTED,
                  "the model uses ONNX opset %d; this compiler supports opsets %d to %d", opset,
                  MIN_OPSET, MAX_OPSET);
    goto bad;
  }
  im.g->opset = opset;
  const Onnx__GraphProto *gp = m->graph;
  for (size_t i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *t = gp->initializer[i];
    const char *name = t->name ? t->name : "";
    char what[300];
    snprintf(what, sizeof what, "initializer '%s'", name);
    int v = vta_graph_add_value(im.g, name, VTA_DT_F32);
    if (v < 0) {
      vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      goto bad;
    }
    if (decode_tensor(t, &im.g->values[v], what, err)) goto bad;
  }
  if (gp->n_node > VTA_LIMIT_NODES || gp->n_input > VTA_LIMIT_GRAPH_IO ||
      gp->n_output > VTA_LIMIT_GRAPH_IO) {
    vta_error_set(err, VTA_ERR_INVALID, "the ONNX graph has %zu nodes, %zu inputs and %zu outputs; "
                  "the limits are %d nodes (VTA_LIMIT_NODES) and %d inputs or outputs "
                  "(VTA_LIMIT_GRAPH_IO)", gp->n_node, gp->n_input, gp->n_output, VTA_LIMIT_NODES,
                  VTA_LIMIT_GRAPH_IO);
    goto bad;
  }
  for (size_t i = 0; i < gp->n_input; i++)
    if (import_input(&im, gp->input[i])) goto bad;
  for (size_t i = 0; i < gp->n_node; i++)
    if (import_node(&im, (int)i, gp->node[i])) goto bad;
  for (size_t i = 0; i < gp->n_output; i++) {
    const char *name = gp->output[i]->name ? gp->output[i]->name : "";
    int v = vta_graph_find_value(im.g, name);
    if (v < 0) {
      /* Dropout's mask and BatchNormalization's running statistics exist only in training. */
      const char *dropped = NULL;
      for (size_t k = 0; k < gp->n_node && !dropped; k++) {
        const Onnx__NodeProto *np = gp->node[k];
        if (!np->op_type || (strcmp(np->op_type, "Dropout") && strcmp(np->op_type, "BatchNormalization")))
          continue;
        for (size_t j = 1; j < np->n_output; j++)
          if (strcmp(np->output[j], name) == 0) dropped = np->op_type;
      }
      if (dropped)
        vta_error_set(err, VTA_ERR_UNSUPPORTED, "graph output '%s' is one of %s's training outputs "
                      "(mask or running statistics): only the inference form is supported", name, dropped);
      else
        vta_error_set(err, VTA_ERR_INVALID, "graph output '%s' is produced by no node", name);
      goto bad;
    }
    if (vta_graph_add_output(im.g, v)) {
      vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      goto bad;
    }
  }
  if (gp->n_output == 0) {
    vta_error_set(err, VTA_ERR_INVALID, "the ONNX graph has no outputs");
    goto bad;
  }
  return im.g;
bad:
  vta_graph_destroy(im.g);
  return NULL;
}

vta_graph *vta_onnx_import_file(const char *path, const vta_import_opts *opts, vta_error *err) {
  unsigned char *buf;
  size_t len;
  if (vta_file_read(path, "an ONNX model", VTA_LIMIT_MODEL_BYTES, &buf, &len, err)) return NULL;
  vta_graph *g = vta_onnx_import(buf, len, opts, err);
  free(buf);
  if (!g) vta_error_prefix(err, "%s", path);
  return g;
}
