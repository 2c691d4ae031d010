/* graph.c - the graph IR: operator and type tables, construction, attributes, the printer.
 *
 * The design idea: two growable arrays (values and nodes) that refer to each other by index,
 * so a pass can rewrite the graph with plain integer assignments and nothing dangles; removal
 * is "mark, then vta_graph_compact". The printer writes the text form that parse.c reads back:
 *
 *     vta-graph opset=12
 *     input %x f32[1,3,8,8]
 *     const %w f32[4,3,1,1] = ...
 *     %y f32[1,4,8,8] = Conv(%x, %w) group=1 pads=[0,0,0,0] | Relu
 *     output %y
 *
 * Names that are not plain identifiers are quoted; floats use %.9g, which reads back exactly.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "vta/limits.h"

static const char *const op_names[] = {
#define VTA_X_(e, name, kind, fam, claimed) name,
    VTA_GOPS(VTA_X_)
#undef VTA_X_
};
static const int op_kinds[] = {
#define VTA_X_(e, name, kind, fam, claimed) kind,
    VTA_GOPS(VTA_X_)
#undef VTA_X_
};
static const char *const op_family_names[] = {
#define VTA_X_(e, name, kind, fam, claimed) #fam,
    VTA_GOPS(VTA_X_)
#undef VTA_X_
};
static const unsigned char op_claimed[] = {
#define VTA_X_(e, name, kind, fam, claimed) claimed,
    VTA_GOPS(VTA_X_)
#undef VTA_X_
};
/* `core` operators are handled by the shared walkers: their family has no slots. */
const vta_op_family vta_family_core = {"core", NULL, NULL, NULL, NULL, NULL};
#define VTA_X_(e, name, kind, fam, claimed) extern const vta_op_family vta_family_##fam;
VTA_GOPS(VTA_X_)
#undef VTA_X_
static const vta_op_family *const op_families[] = {
#define VTA_X_(e, name, kind, fam, claimed) &vta_family_##fam,
    VTA_GOPS(VTA_X_)
#undef VTA_X_
};
_Static_assert(sizeof(op_names) / sizeof(op_names[0]) == VTA_GOP_COUNT, "op table");
_Static_assert(sizeof(op_families) / sizeof(op_families[0]) == VTA_GOP_COUNT, "op table");

const char *vta_op_name(vta_gop op) { return op < VTA_GOP_COUNT ? op_names[op] : "?"; }
int vta_op_kind(vta_gop op) { return op < VTA_GOP_COUNT ? op_kinds[op] : VTA_OPK_OTHER; }
int vta_op_internal(vta_gop op) {
  return op == VTA_GOP_QCONV || op == VTA_GOP_QDENSE || op == VTA_GOP_QADD;
}
vta_gop vta_op_lookup(const char *name) {
  for (int i = 0; i < VTA_GOP_COUNT; i++)
    if (strcmp(op_names[i], name) == 0) return (vta_gop)i;
  return VTA_GOP_COUNT;
}
const vta_op_family *vta_op_family_of(vta_gop op) {
  return op < VTA_GOP_COUNT && op_families[op] != &vta_family_core ? op_families[op] : NULL;
}
const char *vta_op_family_name(vta_gop op) { return op < VTA_GOP_COUNT ? op_family_names[op] : "?"; }
int vta_op_claimed(vta_gop op) { return op < VTA_GOP_COUNT && op_claimed[op]; }

static const struct {
  const char *name, *why;
} refused_ops[] = {
#define VTA_X_(name, why) {name, why},
    VTA_REFUSED_OPS(VTA_X_)
#undef VTA_X_
};
const char *vta_op_refused(const char *name) {
  for (size_t i = 0; i < sizeof refused_ops / sizeof refused_ops[0]; i++)
    if (strcmp(refused_ops[i].name, name) == 0) return refused_ops[i].why;
  return NULL;
}

const char *vta_op_refused_nth(int k, const char **why) {
  if (k < 0 || (size_t)k >= sizeof refused_ops / sizeof refused_ops[0]) return NULL;
  if (why) *why = refused_ops[k].why;
  return refused_ops[k].name;
}

static const struct {
  const char *name;
  size_t size;
  int onnx;
} dtypes[] = {
    {"f32", 4, 1}, {"i64", 8, 7}, {"i32", 4, 6}, {"i8", 1, 3},
    {"u8", 1, 2},  {"bool", 1, 9}, {"f64", 8, 11}, {"i16", 2, 5},
    {"f16", 2, 10}, {"u16", 2, 4}, {"u32", 4, 12}, {"u64", 8, 13},
};
_Static_assert(sizeof(dtypes) / sizeof(dtypes[0]) == VTA_DT_COUNT, "dtype table");

const char *vta_dtype_name(vta_dtype t) { return t < VTA_DT_COUNT ? dtypes[t].name : "?"; }
size_t vta_dtype_size(vta_dtype t) { return t < VTA_DT_COUNT ? dtypes[t].size : 0; }
int vta_dtype_onnx(vta_dtype t) { return t < VTA_DT_COUNT ? dtypes[t].onnx : 0; }
int vta_dtype_from_onnx(int onnx_type, vta_dtype *out) {
  for (int i = 0; i < VTA_DT_COUNT; i++)
    if (dtypes[i].onnx == onnx_type) {
      *out = (vta_dtype)i;
      return 0;
    }
  return -1;
}
int vta_dtype_lookup(const char *name, vta_dtype *out) {
  for (int i = 0; i < VTA_DT_COUNT; i++)
    if (strcmp(dtypes[i].name, name) == 0) {
      *out = (vta_dtype)i;
      return 0;
    }
  return -1;
}

vta_graph *vta_graph_create(void) {
  vta_graph *g = calloc(1, sizeof *g);
  if (g) g->opset = 17;
  return g;
}

void vta_value_free(vta_gvalue *v) {
  free(v->name);
  free(v->data);
  v->name = NULL;
  v->data = NULL;
}

void vta_attrs_free(int n, vta_attr *a) {
  for (int i = 0; i < n; i++) {
    free(a[i].name);
    free(a[i].ints);
    free(a[i].floats);
    free(a[i].s);
  }
  free(a);
}

static void node_free(vta_node *nd) {
  free(nd->name);
  free(nd->in);
  free(nd->out);
  vta_attrs_free(nd->n_attrs, nd->attrs);
  for (int k = 0; k < nd->n_epi; k++) vta_attrs_free(nd->epi[k].n_attrs, nd->epi[k].attrs);
  free(nd->epi);
}

void vta_node_release(vta_node *nd) {
  node_free(nd);
  memset(nd, 0, sizeof *nd);
}

void vta_graph_destroy(vta_graph *g) {
  if (!g) return;
  for (int i = 0; i < g->n_values; i++) vta_value_free(&g->values[i]);
  for (int i = 0; i < g->n_nodes; i++) node_free(&g->nodes[i]);
  free(g->values);
  free(g->nodes);
  free(g->inputs);
  free(g->outputs);
  free(g);
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *q = realloc(*p, (size_t)nc * elem);
  if (!q) return -1;
  memset((char *)q + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
  *p = q;
  *cap = nc;
  return 0;
}

int vta_graph_add_value(vta_graph *g, const char *name, vta_dtype dtype) {
  if (grow((void **)&g->values, &g->cap_values, g->n_values + 1, sizeof(vta_gvalue))) return -1;
  vta_gvalue *v = &g->values[g->n_values];
  memset(v, 0, sizeof *v);
  v->name = strdup(name ? name : "");
  if (!v->name) return -1;
  v->dtype = dtype;
  v->rank = -1;
  v->producer = -1;
  return g->n_values++;
}

int vta_graph_find_value(const vta_graph *g, const char *name) {
  for (int i = 0; i < g->n_values; i++)
    if (strcmp(g->values[i].name, name) == 0) return i;
  return -1;
}

int vta_graph_add_node(vta_graph *g, vta_gop op, const char *name, int n_in, const int *in,
                       int n_out, const int *out) {
  if (grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(vta_node))) return -1;
  vta_node *nd = &g->nodes[g->n_nodes];
  memset(nd, 0, sizeof *nd);
  nd->op = op;
  nd->name = strdup(name ? name : "");
  nd->in = malloc(sizeof(int) * (size_t)(n_in + 1));
  nd->out = malloc(sizeof(int) * (size_t)(n_out + 1));
  if (!nd->name || !nd->in || !nd->out) {
    node_free(nd);
    return -1;
  }
  if (n_in) memcpy(nd->in, in, sizeof(int) * (size_t)n_in);
  if (n_out) memcpy(nd->out, out, sizeof(int) * (size_t)n_out);
  nd->n_in = n_in;
  nd->n_out = n_out;
  for (int k = 0; k < n_out; k++)
    if (out[k] >= 0) g->values[out[k]].producer = g->n_nodes;
  return g->n_nodes++;
}

static int add_index(int **arr, int *n, int v) {
  int *p = realloc(*arr, sizeof(int) * (size_t)(*n + 1));
  if (!p) return -1;
  p[(*n)++] = v;
  *arr = p;
  return 0;
}
int vta_graph_add_input(vta_graph *g, int value) {
  g->values[value].is_input = 1;
  return add_index(&g->inputs, &g->n_inputs, value);
}
int vta_graph_add_output(vta_graph *g, int value) {
  g->values[value].is_output = 1;
  return add_index(&g->outputs, &g->n_outputs, value);
}

int64_t vta_value_count(const vta_gvalue *v) {
  int64_t n = 1;
  for (int i = 0; i < v->rank; i++)
    if (v->dims[i] < 0) return -1;
  for (int i = 0; i < v->rank; i++)
    if (v->dims[i] == 0) return 0;
  for (int i = 0; i < v->rank; i++) {
    if (n > INT64_MAX / v->dims[i]) return -1;
    n *= v->dims[i];
  }
  return n;
}
size_t vta_value_bytes(const vta_gvalue *v) {
  int64_t n = vta_value_count(v);
  size_t es = vta_dtype_size(v->dtype);
  if (n < 0 || (es && (uint64_t)n > SIZE_MAX / es)) return SIZE_MAX;
  return (size_t)n * es;
}

int vta_value_check_size(const vta_gvalue *v, const char *what, vta_error *err) {
  for (int i = 0; i < v->rank; i++)
    if (v->dims[i] < 0 || v->dims[i] > VTA_LIMIT_DIM)
      return vta_error_set(err, VTA_ERR_INVALID, "%s: dimension %d is %" PRId64 "; dimensions must "
                           "be 0 to %" PRId64 " (VTA_LIMIT_DIM)", what, i, v->dims[i],
                           (int64_t)VTA_LIMIT_DIM);
  size_t bytes = vta_value_bytes(v);
  if (bytes == SIZE_MAX || bytes > (size_t)VTA_LIMIT_TENSOR_BYTES)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: %" PRId64 " elements of %zu bytes exceed the "
                         "limit of %" PRId64 " bytes per tensor (VTA_LIMIT_TENSOR_BYTES)", what,
                         vta_value_count(v), vta_dtype_size(v->dtype),
                         (int64_t)VTA_LIMIT_TENSOR_BYTES);
  return 0;
}

int vta_value_set_const(vta_gvalue *v, vta_dtype t, int rank, const int64_t *dims) {
  v->dtype = t;
  v->rank = rank;
  for (int i = 0; i < rank; i++) v->dims[i] = dims[i];
  size_t bytes = vta_value_bytes(v);
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p) return -1;
  free(v->data);
  v->data = p;
  return 0;
}

/* ---- attributes ---- */

static vta_attr *attr_slot(int *n, vta_attr **a, const char *name) {
  for (int i = 0; i < *n; i++)
    if (strcmp((*a)[i].name, name) == 0) {
      free((*a)[i].ints);
      free((*a)[i].floats);
      free((*a)[i].s);
      char *nm = (*a)[i].name;
      memset(&(*a)[i], 0, sizeof(vta_attr));
      (*a)[i].name = nm;
      return &(*a)[i];
    }
  vta_attr *p = realloc(*a, sizeof(vta_attr) * (size_t)(*n + 1));
  if (!p) return NULL;
  *a = p;
  memset(&p[*n], 0, sizeof(vta_attr));
  p[*n].name = strdup(name);
  if (!p[*n].name) return NULL;
  return &p[(*n)++];
}

int vta_attrs_set_int(int *n, vta_attr **a, const char *name, int64_t v) {
  vta_attr *s = attr_slot(n, a, name);
  if (!s) return -1;
  s->kind = VTA_ATTR_INT;
  s->i = v;
  return 0;
}
int vta_attrs_set_float(int *n, vta_attr **a, const char *name, float v) {
  vta_attr *s = attr_slot(n, a, name);
  if (!s) return -1;
  s->kind = VTA_ATTR_FLOAT;
  s->f = v;
  return 0;
}
int vta_attrs_set_ints(int *n, vta_attr **a, const char *name, int count, const int64_t *v) {
  vta_attr *s = attr_slot(n, a, name);
  if (!s) return -1;
  s->kind = VTA_ATTR_INTS;
  s->n = count;
  s->ints = malloc(sizeof(int64_t) * (size_t)(count + 1));
  if (!s->ints) return -1;
  if (count) memcpy(s->ints, v, sizeof(int64_t) * (size_t)count);
  return 0;
}
int vta_attrs_set_floats(int *n, vta_attr **a, const char *name, int count, const float *v) {
  vta_attr *s = attr_slot(n, a, name);
  if (!s) return -1;
  s->kind = VTA_ATTR_FLOATS;
  s->n = count;
  s->floats = malloc(sizeof(float) * (size_t)(count + 1));
  if (!s->floats) return -1;
  if (count) memcpy(s->floats, v, sizeof(float) * (size_t)count);
  return 0;
}
int vta_attrs_set_string(int *n, vta_attr **a, const char *name, const char *v) {
  vta_attr *s = attr_slot(n, a, name);
  if (!s) return -1;
  s->kind = VTA_ATTR_STRING;
  s->s = strdup(v);
  return s->s ? 0 : -1;
}

const vta_attr *vta_node_attr(const vta_node *nd, const char *name) {
  for (int i = 0; i < nd->n_attrs; i++)
    if (strcmp(nd->attrs[i].name, name) == 0) return &nd->attrs[i];
  return NULL;
}
int64_t vta_node_int(const vta_node *nd, const char *name, int64_t dflt) {
  const vta_attr *a = vta_node_attr(nd, name);
  if (!a) return dflt;
  if (a->kind == VTA_ATTR_INT) return a->i;
  if (a->kind == VTA_ATTR_FLOAT) return (int64_t)a->f;
  return dflt;
}
float vta_node_float(const vta_node *nd, const char *name, float dflt) {
  const vta_attr *a = vta_node_attr(nd, name);
  if (!a) return dflt;
  if (a->kind == VTA_ATTR_FLOAT) return a->f;
  if (a->kind == VTA_ATTR_INT) return (float)a->i;
  return dflt;
}
const char *vta_node_string(const vta_node *nd, const char *name, const char *dflt) {
  const vta_attr *a = vta_node_attr(nd, name);
  return a && a->kind == VTA_ATTR_STRING ? a->s : dflt;
}
int vta_node_ints(const vta_node *nd, const char *name, int64_t *out, int max) {
  const vta_attr *a = vta_node_attr(nd, name);
  if (!a || a->kind != VTA_ATTR_INTS) return -1;
  for (int i = 0; i < a->n && i < max; i++) out[i] = a->ints[i];
  return a->n;
}
void vta_node_remove_attr(vta_node *nd, const char *name) {
  for (int i = 0; i < nd->n_attrs; i++)
    if (strcmp(nd->attrs[i].name, name) == 0) {
      free(nd->attrs[i].name);
      free(nd->attrs[i].ints);
      free(nd->attrs[i].floats);
      free(nd->attrs[i].s);
      memmove(&nd->attrs[i], &nd->attrs[i + 1], sizeof(vta_attr) * (size_t)(nd->n_attrs - i - 1));
      nd->n_attrs--;
      return;
    }
}
void vta_node_drop_input(vta_node *nd, int i) {
  if (i < 0 || i >= nd->n_in) return;
  memmove(&nd->in[i], &nd->in[i + 1], sizeof(int) * (size_t)(nd->n_in - i - 1));
  nd->n_in--;
}

const char *vta_node_describe(const vta_graph *g, int i, char *buf, size_t size) {
  const vta_node *nd = &g->nodes[i];
  if (nd->name[0])
    snprintf(buf, size, "node %d '%s' (%s)", i, nd->name, vta_op_name(nd->op));
  else
    snprintf(buf, size, "node %d (%s)", i, vta_op_name(nd->op));
  return buf;
}

/* ---- compaction ---- */

int vta_graph_compact(vta_graph *g, vta_error *err) {
  int *map = malloc(sizeof(int) * (size_t)(g->n_values + 1));
  char *used = calloc((size_t)g->n_values + 1, 1);
  if (!map || !used) {
    free(map);
    free(used);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory compacting the graph");
  }
  for (int i = 0; i < g->n_inputs; i++) used[g->inputs[i]] = 1;
  for (int i = 0; i < g->n_outputs; i++) used[g->outputs[i]] = 1;
  for (int i = 0; i < g->n_nodes; i++) {
    vta_node *nd = &g->nodes[i];
    for (int k = 0; k < nd->n_in; k++)
      if (nd->in[k] >= 0) used[nd->in[k]] = 1;
    for (int k = 0; k < nd->n_out; k++)
      if (nd->out[k] >= 0) used[nd->out[k]] = 1;
    for (int k = 0; k < nd->n_epi; k++)
      if (nd->epi[k].arg >= 0) used[nd->epi[k].arg] = 1;
  }
  int n = 0;
  for (int i = 0; i < g->n_values; i++) {
    if (used[i]) {
      map[i] = n;
      g->values[n++] = g->values[i];
    } else {
      map[i] = -1;
      vta_value_free(&g->values[i]);
    }
  }
  g->n_values = n;
  for (int i = 0; i < g->n_inputs; i++) g->inputs[i] = map[g->inputs[i]];
  for (int i = 0; i < g->n_outputs; i++) g->outputs[i] = map[g->outputs[i]];
  for (int i = 0; i < n; i++) g->values[i].producer = -1;
  for (int i = 0; i < g->n_nodes; i++) {
    vta_node *nd = &g->nodes[i];
    for (int k = 0; k < nd->n_in; k++)
      if (nd->in[k] >= 0) nd->in[k] = map[nd->in[k]];
    for (int k = 0; k < nd->n_out; k++)
      if (nd->out[k] >= 0) {
        nd->out[k] = map[nd->out[k]];
        g->values[nd->out[k]].producer = i;
      }
    for (int k = 0; k < nd->n_epi; k++)
      if (nd->epi[k].arg >= 0) nd->epi[k].arg = map[nd->epi[k].arg];
  }
  free(map);
  free(used);
  return VTA_OK;
}

/* ---- printer ---- */

static int plain_name(const char *s) {
  if (!*s) return 0;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '_' || *p == '.'))
      return 0;
  return 1;
}

static void print_name(FILE *f, const char *s) {
  if (plain_name(s)) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (const char *p = s; *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', f);
    fputc(*p, f);
  }
  fputc('"', f);
}

static void print_value_ref(FILE *f, const vta_graph *g, int v) {
  if (v < 0) {
    fputc('_', f);
    return;
  }
  fputc('%', f);
  print_name(f, g->values[v].name);
}

static void print_type(FILE *f, const vta_gvalue *v) {
  fputs(vta_dtype_name(v->dtype), f);
  if (v->rank < 0) {
    fputs("[?]", f);
    return;
  }
  fputc('[', f);
  for (int i = 0; i < v->rank; i++) fprintf(f, "%s%" PRId64, i ? "," : "", v->dims[i]);
  fputc(']', f);
}

static void print_float(FILE *f, double x) {
  if (isnan(x))
    fputs("nan", f);
  else if (isinf(x))
    fputs(x < 0 ? "-inf" : "inf", f);
  else
    fprintf(f, "%.9g", x);
}

static void print_elements(FILE *f, const vta_gvalue *v) {
  int64_t n = vta_value_count(v);
  fputc('[', f);
  for (int64_t i = 0; i < n; i++) {
    if (i) fputs(i % 16 ? ", " : ",\n    ", f);
    switch (v->dtype) {
    case VTA_DT_F32: case VTA_DT_F64: case VTA_DT_F16: print_float(f, vta_elem_get(v, i)); break;
    case VTA_DT_I64: fprintf(f, "%" PRId64, ((const int64_t *)v->data)[i]); break;
    case VTA_DT_U64: fprintf(f, "%" PRIu64, ((const uint64_t *)v->data)[i]); break;
    default: fprintf(f, "%lld", (long long)vta_elem_get(v, i)); break; /* exact below 2^53 */
    }
  }
  fputc(']', f);
}

static void print_attrs(FILE *f, int n, const vta_attr *a, const char *sep, const char *first) {
  for (int i = 0; i < n; i++) {
    fputs(i ? sep : first, f);
    print_name(f, a[i].name);
    fputc('=', f);
    switch (a[i].kind) {
    case VTA_ATTR_INT: fprintf(f, "%" PRId64, a[i].i); break;
    case VTA_ATTR_FLOAT:
      /* A float attribute always shows a float form so the parser keeps the kind. */
      if (isfinite(a[i].f) && a[i].f == floorf(a[i].f) && fabsf(a[i].f) < 1e15f)
        fprintf(f, "%.1f", (double)a[i].f);
      else
        print_float(f, a[i].f);
      break;
    case VTA_ATTR_INTS:
      fputc('[', f);
      for (int k = 0; k < a[i].n; k++) fprintf(f, "%s%" PRId64, k ? "," : "", a[i].ints[k]);
      fputc(']', f);
      break;
    case VTA_ATTR_FLOATS:
      fputs("f[", f);
      for (int k = 0; k < a[i].n; k++) {
        if (k) fputc(',', f);
        print_float(f, a[i].floats[k]);
      }
      fputc(']', f);
      break;
    case VTA_ATTR_STRING: fputc('\'', f); fputs(a[i].s, f); fputc('\'', f); break;
    default: fputc('?', f);
    }
  }
}

void vta_graph_print(const vta_graph *g, FILE *f, int flags) {
  fprintf(f, "vta-graph opset=%d\n", g->opset);
  for (int i = 0; i < g->n_inputs; i++) {
    const vta_gvalue *v = &g->values[g->inputs[i]];
    fputs("input ", f);
    print_value_ref(f, g, g->inputs[i]);
    fputc(' ', f);
    print_type(f, v);
    fputc('\n', f);
  }
  int ref = 0;
  for (int i = 0; i < g->n_values; i++) {
    const vta_gvalue *v = &g->values[i];
    if (!v->data) continue;
    fputs("const ", f);
    print_value_ref(f, g, i);
    fputc(' ', f);
    print_type(f, v);
    if (vta_value_count(v) <= 16 || (flags & VTA_PRINT_FULL)) {
      fputs(" = ", f);
      print_elements(f, v);
    } else if (flags & VTA_PRINT_REFS) {
      fprintf(f, " = @%d", ref++);
    } else {
      fputs(" = ...", f);
    }
    fputc('\n', f);
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    for (int k = 0; k < nd->n_out; k++) {
      if (k) fputs(", ", f);
      print_value_ref(f, g, nd->out[k]);
      if (nd->out[k] >= 0) {
        fputc(' ', f);
        print_type(f, &g->values[nd->out[k]]);
      }
    }
    fprintf(f, " = %s(", vta_op_name(nd->op));
    for (int k = 0; k < nd->n_in; k++) {
      if (k) fputs(", ", f);
      print_value_ref(f, g, nd->in[k]);
    }
    fputc(')', f);
    print_attrs(f, nd->n_attrs, nd->attrs, " ", " ");
    for (int k = 0; k < nd->n_epi; k++) {
      const vta_epilogue *e = &nd->epi[k];
      fprintf(f, " | %s", vta_op_name(e->op));
      if (e->arg >= 0 || e->n_attrs) {
        fputc('(', f);
        if (e->arg >= 0) {
          if (e->arg_left) {
            print_value_ref(f, g, e->arg);
            fputs(", .", f);
          } else {
            fputs("., ", f);
            print_value_ref(f, g, e->arg);
          }
        }
        print_attrs(f, e->n_attrs, e->attrs, ", ", e->arg >= 0 ? ", " : "");
        fputc(')', f);
      }
    }
    if (nd->name[0]) {
      fputs(" # ", f);
      print_name(f, nd->name);
    }
    fputc('\n', f);
  }
  for (int i = 0; i < g->n_outputs; i++) {
    fputs("output ", f);
    print_value_ref(f, g, g->outputs[i]);
    fputc('\n', f);
  }
}

char *vta_graph_print_string(const vta_graph *g, int flags) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  vta_graph_print(g, f, flags);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

int vta_graph_remove_nodes(vta_graph *g, const char *dead, vta_error *err) {
  int n = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    if (dead[i])
      node_free(&g->nodes[i]);
    else
      g->nodes[n++] = g->nodes[i];
  }
  g->n_nodes = n;
  return vta_graph_compact(g, err);
}

int vta_value_uses(const vta_graph *g, int v) {
  int uses = 0;
  for (int i = 0; i < g->n_outputs; i++) uses += g->outputs[i] == v;
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    for (int k = 0; k < nd->n_in; k++) uses += nd->in[k] == v;
    for (int k = 0; k < nd->n_epi; k++) uses += nd->epi[k].arg == v;
  }
  return uses;
}
