/* gen_resnet.c - the built-in benchmark model: ResNet-18 v1 as an ONNX file, weights drawn
 * by the project from a fixed seed.
 *
 * The design idea: the benchmark of record should go through the same door as any model - an
 * ONNX file imported, folded, quantized, partitioned and lowered by the compiler - yet the
 * project cannot ship 47 MB of weights or fetch a trained model. So the model is written here
 * with protobuf-c's generated ONNX structures, exactly as an exporter would: torchvision's
 * resnet18 layout (conv1 7x7/2 + BatchNormalization + Relu, MaxPool 3x3/2, four stages of two
 * basic blocks with 3x3 convolutions, BatchNormalization after each convolution, 1x1/2
 * downsampling convolutions on the shortcut of the first block of stages 2-4, residual Add +
 * Relu, GlobalAveragePool, Flatten, Gemm 512 -> 1000), opset 13, input "data" f32[1,3,224,224],
 * output "logits" f32[1,1000]. The weights are He-normal (std sqrt(2 / fan-in)) from a
 * xorshift generator through a ziggurat; the batch norms have per-channel statistics (gamma in [0.5, 1.5], beta in
 * [-0.2, 0.2], mean in [-0.1, 0.1], variance in [0.5, 2]), so that folding them gives the
 * per-channel weight ranges of a trained network; the last batch norm of each block has its
 * gamma halved, as trained ResNets keep the residual branch smaller than the shortcut, so
 * that activations stay in range through eight residual additions.
 *
 * Tensors go into raw_data in the host's byte order, as onnx.c reads them (little-endian
 * hosts, as every target of this project).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "onnx/onnx.pb-c.h"

/* Every allocation of the model under construction, freed together after packing. */
typedef struct {
  void **p;
  size_t n, cap;
  int failed;
  uint64_t rng;
  const struct zig *zig;
  Onnx__GraphProto *g;
  size_t cap_node, cap_init;
} gen;

static void *alloc(gen *G, size_t n) {
  if (G->failed) return NULL;
  if (G->n == G->cap) {
    size_t cap = G->cap ? 2 * G->cap : 256;
    void **p = realloc(G->p, cap * sizeof *p);
    if (!p) {
      G->failed = 1;
      return NULL;
    }
    G->p = p;
    G->cap = cap;
  }
  void *x = calloc(1, n ? n : 1);
  if (!x) {
    G->failed = 1;
    return NULL;
  }
  G->p[G->n++] = x;
  return x;
}

static char *str(gen *G, const char *s) {
  char *d = alloc(G, strlen(s) + 1);
  if (d) strcpy(d, s);
  return d;
}

static double uniform(gen *G) {
  G->rng ^= G->rng << 13;
  G->rng ^= G->rng >> 7;
  G->rng ^= G->rng << 17;
  return (double)(G->rng >> 11) / 9007199254740992.0;
}

/* Standard normal deviates by the ziggurat method (Marsaglia and Tsang, 2000): 128 layers of
 * equal area under the density; a deviate is one 32-bit draw, a table look-up and a compare,
 * except in the rare wedges and the tail. Box-Muller's log and cosine per value took 0.35 s of
 * the 11.7M weights. The tables are computed once per model from exp/log/sqrt. */
#define ZIG_LAYERS 128
typedef struct zig {
  double k[ZIG_LAYERS], w[ZIG_LAYERS], f[ZIG_LAYERS];
} zig;

static void zig_init(zig *Z) {
  const double m = 2147483648.0, area = 9.91256303526217e-3;
  double d = 3.442619855899, t = d, q = area / exp(-0.5 * d * d);
  Z->k[0] = d / q * m;
  Z->k[1] = 0;
  Z->w[0] = q / m;
  Z->w[ZIG_LAYERS - 1] = d / m;
  Z->f[0] = 1;
  Z->f[ZIG_LAYERS - 1] = exp(-0.5 * d * d);
  for (int i = ZIG_LAYERS - 2; i >= 1; i--) {
    d = sqrt(-2 * log(area / d + exp(-0.5 * d * d)));
    Z->k[i + 1] = d / t * m;
    t = d;
    Z->f[i] = exp(-0.5 * d * d);
    Z->w[i] = d / m;
  }
}

static int32_t draw32(gen *G) {
  G->rng ^= G->rng << 13;
  G->rng ^= G->rng >> 7;
  G->rng ^= G->rng << 17;
  return (int32_t)(uint32_t)(G->rng >> 32);
}

/* In (0, 1): a logarithm may be taken. */
static double open_uniform(gen *G) { return uniform(G) + 0x1p-54; }

static double normal(gen *G, const zig *Z) {
  const double r = 3.442619855899;
  for (;;) {
    int32_t h = draw32(G);
    int i = h & (ZIG_LAYERS - 1);
    double x = h * Z->w[i];
    if (fabs((double)h) < Z->k[i]) return x; /* inside the layer's rectangle: ~99% */
    if (i == 0) { /* the tail beyond r */
      double a, b;
      do {
        a = -log(open_uniform(G)) / r;
        b = -log(open_uniform(G));
      } while (b + b < a * a);
      return h > 0 ? r + a : -r - a;
    }
    if (Z->f[i] + open_uniform(G) * (Z->f[i - 1] - Z->f[i]) < exp(-0.5 * x * x)) return x; /* wedge */
  }
}

/* Appends p to an array of pointers grown by doubling. */
static void push(gen *G, void ***arr, size_t *n, size_t *cap, void *p) {
  if (G->failed || !p) {
    G->failed = 1;
    return;
  }
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 64;
    void **a = alloc(G, c * sizeof *a);
    if (!a) return;
    if (*n) memcpy(a, *arr, *n * sizeof *a);
    *arr = a;
    *cap = c;
  }
  (*arr)[(*n)++] = p;
}

/* A float initializer name[dims] (values filled by the caller through the returned pointer). */
static float *initializer(gen *G, const char *name, int rank, const int64_t *dims) {
  Onnx__TensorProto *t = alloc(G, sizeof *t);
  if (!t) return NULL;
  onnx__tensor_proto__init(t);
  size_t count = 1;
  t->dims = alloc(G, sizeof(int64_t) * (size_t)rank);
  if (!t->dims) return NULL;
  for (int d = 0; d < rank; d++) t->dims[d] = dims[d], count *= (size_t)dims[d];
  t->n_dims = (size_t)rank;
  t->has_data_type = 1;
  t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t->name = str(G, name);
  t->has_raw_data = 1;
  t->raw_data.len = count * sizeof(float);
  t->raw_data.data = alloc(G, t->raw_data.len);
  push(G, (void ***)&G->g->initializer, &G->g->n_initializer, &G->cap_init, t);
  return (float *)t->raw_data.data;
}

static Onnx__AttributeProto *attr_ints(gen *G, const char *name, int n, const int64_t *v) {
  Onnx__AttributeProto *a = alloc(G, sizeof *a);
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = str(G, name);
  a->has_type = 1;
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  a->ints = alloc(G, sizeof(int64_t) * (size_t)n);
  if (a->ints) memcpy(a->ints, v, sizeof(int64_t) * (size_t)n);
  a->n_ints = (size_t)n;
  return a;
}

static Onnx__AttributeProto *attr_int(gen *G, const char *name, int64_t v) {
  Onnx__AttributeProto *a = alloc(G, sizeof *a);
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = str(G, name);
  a->has_type = 1;
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  a->has_i = 1;
  a->i = v;
  return a;
}

static Onnx__AttributeProto *attr_float(gen *G, const char *name, float v) {
  Onnx__AttributeProto *a = alloc(G, sizeof *a);
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = str(G, name);
  a->has_type = 1;
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  a->has_f = 1;
  a->f = v;
  return a;
}

/* Adds node op(inputs) -> output with up to four attributes (NULL-terminated). */
static Onnx__NodeProto *node(gen *G, const char *op, const char *name, int n_in, const char *const *in,
                             const char *out, Onnx__AttributeProto *a0, Onnx__AttributeProto *a1,
                             Onnx__AttributeProto *a2, Onnx__AttributeProto *a3) {
  Onnx__NodeProto *n = alloc(G, sizeof *n);
  if (!n) return NULL;
  onnx__node_proto__init(n);
  n->op_type = str(G, op);
  n->name = str(G, name);
  n->input = alloc(G, sizeof(char *) * (size_t)n_in);
  n->output = alloc(G, sizeof(char *));
  if (!n->input || !n->output) return NULL;
  for (int k = 0; k < n_in; k++) n->input[k] = str(G, in[k]);
  n->n_input = (size_t)n_in;
  n->output[0] = str(G, out);
  n->n_output = 1;
  Onnx__AttributeProto *as[4] = {a0, a1, a2, a3};
  n->attribute = alloc(G, sizeof(Onnx__AttributeProto *) * 4);
  if (!n->attribute) return NULL;
  for (int k = 0; k < 4 && as[k]; k++) n->attribute[n->n_attribute++] = as[k];
  size_t cap = G->cap_node;
  push(G, (void ***)&G->g->node, &G->g->n_node, &cap, n);
  G->cap_node = cap;
  return n;
}

/* conv (no bias) + BatchNormalization (+ Relu): returns the name of the result in out. */
static void conv_bn(gen *G, const char *prefix, const char *x, int64_t cin, int64_t cout, int64_t k,
                    int64_t stride, int relu, double gamma_scale, char *out, size_t size) {
  char w[128], y[128], bn[128], p[5][128];
  snprintf(w, sizeof w, "%s.weight", prefix);
  int64_t wd[4] = {cout, cin, k, k};
  float *wt = initializer(G, w, 4, wd);
  double std = sqrt(2.0 / (double)(cin * k * k));
  for (int64_t i = 0; wt && i < cout * cin * k * k; i++) wt[i] = (float)(normal(G, G->zig) * std);
  snprintf(y, sizeof y, "%s.conv", prefix);
  int64_t ks[2] = {k, k}, st[2] = {stride, stride}, pd[4] = {k / 2, k / 2, k / 2, k / 2};
  const char *cin_[2] = {x, w};
  node(G, "Conv", y, 2, cin_, y, attr_ints(G, "kernel_shape", 2, ks), attr_ints(G, "strides", 2, st),
       attr_ints(G, "pads", 4, pd), NULL);
  static const char *const what[4] = {"gamma", "beta", "mean", "var"};
  for (int q = 0; q < 4; q++) {
    snprintf(p[q], sizeof p[q], "%s.bn.%s", prefix, what[q]);
    float *v = initializer(G, p[q], 1, &cout);
    for (int64_t c = 0; v && c < cout; c++) {
      double u = uniform(G);
      v[c] = (float)(q == 0 ? (0.5 + u) * gamma_scale : q == 1 ? 0.4 * u - 0.2 : q == 2 ? 0.2 * u - 0.1 : 0.5 + 1.5 * u);
    }
  }
  snprintf(bn, sizeof bn, "%s.bn", prefix);
  const char *bin[5] = {y, p[0], p[1], p[2], p[3]};
  node(G, "BatchNormalization", bn, 5, bin, bn, attr_float(G, "epsilon", 1e-5f), NULL, NULL, NULL);
  if (relu) {
    snprintf(out, size, "%s.relu", prefix);
    const char *rin[1] = {bn};
    node(G, "Relu", out, 1, rin, out, NULL, NULL, NULL, NULL);
  } else {
    snprintf(out, size, "%s", bn);
  }
}

static Onnx__ValueInfoProto *value_info(gen *G, const char *name, int rank, const int64_t *dims) {
  Onnx__ValueInfoProto *v = alloc(G, sizeof *v);
  Onnx__TypeProto *t = alloc(G, sizeof *t);
  Onnx__TypeProto__Tensor *tt = alloc(G, sizeof *tt);
  Onnx__TensorShapeProto *sh = alloc(G, sizeof *sh);
  Onnx__TensorShapeProto__Dimension **dd = alloc(G, sizeof *dd * (size_t)rank);
  if (!v || !t || !tt || !sh || !dd) return NULL;
  onnx__value_info_proto__init(v);
  onnx__type_proto__init(t);
  onnx__type_proto__tensor__init(tt);
  onnx__tensor_shape_proto__init(sh);
  for (int d = 0; d < rank; d++) {
    dd[d] = alloc(G, sizeof **dd);
    if (!dd[d]) return NULL;
    onnx__tensor_shape_proto__dimension__init(dd[d]);
    dd[d]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    dd[d]->dim_value = dims[d];
  }
  sh->dim = dd;
  sh->n_dim = (size_t)rank;
  tt->has_elem_type = 1;
  tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tt->shape = sh;
  t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  t->tensor_type = tt;
  v->name = str(G, name);
  v->type = t;
  return v;
}

/* Builds the model into *out (its memory owned by G) and either packs it into *bytes or
 * imports it into *graph. */
static int build(uint64_t seed, unsigned char **bytes, size_t *size, const vta_import_opts *opts,
                 vta_graph **graph, vta_error *err) {
  gen G;
  memset(&G, 0, sizeof G);
  G.rng = seed ? seed : 1;
  zig Z;
  zig_init(&Z);
  G.zig = &Z;
  Onnx__ModelProto *m = alloc(&G, sizeof *m);
  Onnx__GraphProto *g = alloc(&G, sizeof *g);
  Onnx__OperatorSetIdProto *ops = alloc(&G, sizeof *ops);
  Onnx__OperatorSetIdProto **opsv = alloc(&G, sizeof *opsv);
  if (!m || !g || !ops || !opsv) goto nomem;
  onnx__model_proto__init(m);
  onnx__graph_proto__init(g);
  onnx__operator_set_id_proto__init(ops);
  G.g = g;
  ops->domain = str(&G, "");
  ops->has_version = 1;
  ops->version = 13;
  opsv[0] = ops;
  m->opset_import = opsv;
  m->n_opset_import = 1;
  m->has_ir_version = 1;
  m->ir_version = 7;
  m->producer_name = str(&G, "vta gen_resnet.c");
  char doc[160];
  snprintf(doc, sizeof doc, "ResNet-18 v1, 224x224, random weights (seed %llu)", (unsigned long long)seed);
  m->doc_string = str(&G, doc);
  m->graph = g;
  g->name = str(&G, "resnet18");

  char x[128], a[128], b[128], s[128], pre[128];
  conv_bn(&G, "conv1", "data", 3, 64, 7, 2, 1, 1.0, x, sizeof x);
  int64_t k3[2] = {3, 3}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
  const char *mp_in[1] = {x};
  node(&G, "MaxPool", "maxpool", 1, mp_in, "maxpool", attr_ints(&G, "kernel_shape", 2, k3),
       attr_ints(&G, "strides", 2, s2), attr_ints(&G, "pads", 4, p1), NULL);
  snprintf(x, sizeof x, "maxpool");
  int64_t cin = 64;
  for (int stage = 0; stage < 4; stage++) {
    int64_t cout = 64 << stage;
    for (int blk = 0; blk < 2; blk++) {
      int64_t stride = stage > 0 && blk == 0 ? 2 : 1;
      snprintf(pre, sizeof pre, "layer%d.%d.conv1", stage + 1, blk);
      conv_bn(&G, pre, x, cin, cout, 3, stride, 1, 1.0, a, sizeof a);
      snprintf(pre, sizeof pre, "layer%d.%d.conv2", stage + 1, blk);
      conv_bn(&G, pre, a, cout, cout, 3, 1, 0, 0.5, b, sizeof b);
      if (stride != 1 || cin != cout) {
        snprintf(pre, sizeof pre, "layer%d.%d.downsample", stage + 1, blk);
        conv_bn(&G, pre, x, cin, cout, 1, stride, 0, 1.0, s, sizeof s);
      } else {
        snprintf(s, sizeof s, "%s", x);
      }
      char sum[128];
      snprintf(sum, sizeof sum, "layer%d.%d.add", stage + 1, blk);
      const char *add_in[2] = {b, s};
      node(&G, "Add", sum, 2, add_in, sum, NULL, NULL, NULL, NULL);
      snprintf(x, sizeof x, "layer%d.%d.relu", stage + 1, blk);
      const char *r_in[1] = {sum};
      node(&G, "Relu", x, 1, r_in, x, NULL, NULL, NULL, NULL);
      cin = cout;
    }
  }
  const char *gap_in[1] = {x};
  node(&G, "GlobalAveragePool", "avgpool", 1, gap_in, "avgpool", NULL, NULL, NULL, NULL);
  const char *fl_in[1] = {"avgpool"};
  node(&G, "Flatten", "flatten", 1, fl_in, "flatten", attr_int(&G, "axis", 1), NULL, NULL, NULL);
  int64_t fw[2] = {1000, 512}, fb = 1000;
  float *w = initializer(&G, "fc.weight", 2, fw), *bias = initializer(&G, "fc.bias", 1, &fb);
  for (int64_t i = 0; w && i < 1000 * 512; i++) w[i] = (float)(normal(&G, &Z) / sqrt(512.0));
  for (int64_t i = 0; bias && i < 1000; i++) bias[i] = (float)(0.02 * uniform(&G) - 0.01);
  const char *fc_in[3] = {"flatten", "fc.weight", "fc.bias"};
  node(&G, "Gemm", "fc", 3, fc_in, "logits", attr_int(&G, "transB", 1), NULL, NULL, NULL);

  int64_t in_dims[4] = {1, 3, 224, 224}, out_dims[2] = {1, 1000};
  g->input = alloc(&G, sizeof *g->input);
  g->output = alloc(&G, sizeof *g->output);
  if (!g->input || !g->output) goto nomem;
  g->input[0] = value_info(&G, "data", 4, in_dims);
  g->output[0] = value_info(&G, "logits", 2, out_dims);
  g->n_input = g->n_output = 1;
  if (G.failed || !g->input[0] || !g->output[0]) goto nomem;
  if (graph) {
    *graph = vta_onnx_import_proto(m, opts, err);
    for (size_t i = 0; i < G.n; i++) free(G.p[i]);
    free(G.p);
    return *graph ? 0 : -1;
  }
  size_t n = onnx__model_proto__get_packed_size(m);
  *bytes = malloc(n);
  if (!*bytes) goto nomem;
  *size = onnx__model_proto__pack(m, *bytes);
  for (size_t i = 0; i < G.n; i++) free(G.p[i]);
  free(G.p);
  return 0;
nomem:
  for (size_t i = 0; i < G.n; i++) free(G.p[i]);
  free(G.p);
  return vta_error_set(err, VTA_ERR_NOMEM, "out of memory generating the ResNet-18 model");
}

int vta_gen_resnet18(uint64_t seed, unsigned char **bytes, size_t *size, vta_error *err) {
  *bytes = NULL;
  *size = 0;
  return build(seed, bytes, size, NULL, NULL, err);
}

vta_graph *vta_gen_resnet18_graph(uint64_t seed, const vta_import_opts *opts, vta_error *err) {
  vta_graph *g = NULL;
  if (build(seed, NULL, NULL, opts, &g, err)) return NULL;
  return g;
}
