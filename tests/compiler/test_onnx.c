/* test_onnx.c - the ONNX importer's refusals: each error names the node (index, name, op type)
 * and what is wrong, or says why the file is not a model at all. Models are built in memory
 * with the protobuf-c code generated from Debian's onnx.proto, so every case is exactly one
 * defect away from a model that imports (checked first).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"
#include "onnx/onnx.pb-c.h"

typedef struct {
  const char *op, *name, *domain;
  const char *in[3], *out;
  const char *attr;   /* one int attribute "name=value", or NULL */
  int64_t ints[2];    /* kernel_shape when attr is "kernel_shape" */
} node_spec;

/* A model with graph input x f32[1,2,4,4], the given nodes, output = the last node's output. */
static unsigned char *build_model(int opset, const node_spec *ns, int n, size_t *size) {
  Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
  Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT, *osp = &os;
  os.domain = "";
  os.has_version = 1;
  os.version = opset;
  m.has_ir_version = 1;
  m.ir_version = 7;
  m.n_opset_import = 1;
  m.opset_import = &osp;
  Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
  g.name = "test";
  m.graph = &g;
  Onnx__TensorShapeProto__Dimension dims[4], *dp[4];
  static const int64_t shape[4] = {1, 2, 4, 4};
  for (int d = 0; d < 4; d++) {
    Onnx__TensorShapeProto__Dimension init = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
    dims[d] = init;
    dims[d].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    dims[d].dim_value = shape[d];
    dp[d] = &dims[d];
  }
  Onnx__TensorShapeProto sh = ONNX__TENSOR_SHAPE_PROTO__INIT;
  sh.n_dim = 4;
  sh.dim = dp;
  Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
  tt.has_elem_type = 1;
  tt.elem_type = 1; /* FLOAT */
  tt.shape = &sh;
  Onnx__TypeProto ty = ONNX__TYPE_PROTO__INIT;
  ty.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  ty.tensor_type = &tt;
  Onnx__ValueInfoProto in = ONNX__VALUE_INFO_PROTO__INIT, out = ONNX__VALUE_INFO_PROTO__INIT;
  Onnx__ValueInfoProto *inp = &in, *outp = &out;
  in.name = "x";
  in.type = &ty;
  out.name = (char *)ns[n - 1].out;
  g.n_input = 1;
  g.input = &inp;
  g.n_output = 1;
  g.output = &outp;
  Onnx__NodeProto nodes[4], *np[4];
  Onnx__AttributeProto attrs[4], *ap[4];
  char names[4][32];
  for (int k = 0; k < n; k++) {
    Onnx__NodeProto init = ONNX__NODE_PROTO__INIT;
    nodes[k] = init;
    nodes[k].op_type = (char *)ns[k].op;
    nodes[k].name = (char *)ns[k].name;
    nodes[k].domain = (char *)ns[k].domain;
    int ni = 0;
    while (ni < 3 && ns[k].in[ni]) ni++;
    nodes[k].n_input = (size_t)ni;
    nodes[k].input = (char **)ns[k].in;
    nodes[k].n_output = 1;
    nodes[k].output = (char **)&ns[k].out;
    if (ns[k].attr) {
      Onnx__AttributeProto ainit = ONNX__ATTRIBUTE_PROTO__INIT;
      attrs[k] = ainit;
      const char *eq = strchr(ns[k].attr, '=');
      snprintf(names[k], sizeof names[k], "%.*s", eq ? (int)(eq - ns[k].attr) : (int)strlen(ns[k].attr), ns[k].attr);
      attrs[k].name = names[k];
      attrs[k].has_type = 1;
      if (eq) {
        attrs[k].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        attrs[k].has_i = 1;
        attrs[k].i = atoll(eq + 1);
      } else {
        attrs[k].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
        attrs[k].n_ints = 2;
        attrs[k].ints = (int64_t *)ns[k].ints;
      }
      ap[k] = &attrs[k];
      nodes[k].n_attribute = 1;
      nodes[k].attribute = &ap[k];
    }
    np[k] = &nodes[k];
  }
  g.n_node = (size_t)n;
  g.node = np;
  *size = onnx__model_proto__get_packed_size(&m);
  unsigned char *b = malloc(*size);
  assert_non_null(b);
  onnx__model_proto__pack(&m, b);
  return b;
}

/* Imports and compiles; returns 0, or -1 with the message in msg. */
static int import_compile(const unsigned char *b, size_t n, char *msg, size_t size) {
  vta_error err = {0};
  vta_graph *g = vta_onnx_import(b, n, NULL, &err);
  int rc = g ? vta_compile_graph(g, NULL, &err) : -1;
  snprintf(msg, size, "%s", rc ? err.msg : "");
  vta_graph_destroy(g);
  return rc;
}

static void expect_refusal(int opset, const node_spec *ns, int n, const char *needle) {
  size_t size;
  unsigned char *b = build_model(opset, ns, n, &size);
  char msg[1024];
  int rc = import_compile(b, size, msg, sizeof msg);
  free(b);
  if (rc == 0) fail_msg("imported; expected \"%s\"", needle);
  if (!strstr(msg, needle)) fail_msg("expected \"%s\" in: %s", needle, msg);
}

static void test_onnx_valid_model_imports(void **state) {
  (void)state;
  node_spec ns[2] = {{"Relu", "act", NULL, {"x"}, "r", NULL, {0}},
                     {"MaxPool", "pool", NULL, {"r"}, "y", "kernel_shape", {2, 2}}};
  size_t size;
  unsigned char *b = build_model(13, ns, 2, &size);
  char msg[1024];
  if (import_compile(b, size, msg, sizeof msg)) fail_msg("%s", msg);
  free(b);
}

static void test_onnx_unsupported_operator_names_the_node(void **state) {
  (void)state;
  node_spec ns[2] = {{"Relu", "act", NULL, {"x"}, "r", NULL, {0}},
                     {"Frobnicate", "frob", NULL, {"r"}, "y", NULL, {0}}};
  expect_refusal(13, ns, 2, "node 1 'frob' (Frobnicate): operator Frobnicate is not supported");
  node_spec dom[1] = {{"FusedConv", "fc", "com.microsoft", {"x"}, "y", NULL, {0}}};
  expect_refusal(13, dom, 1, "node 0 'fc' (FusedConv): operator domain 'com.microsoft' is not supported");
}

static void test_onnx_missing_attribute_names_the_node(void **state) {
  (void)state;
  node_spec pool[1] = {{"MaxPool", "pool", NULL, {"x"}, "y", NULL, {0}}};
  expect_refusal(13, pool, 1, "node 0 'pool' (MaxPool): attribute kernel_shape is missing");
  node_spec cat[1] = {{"Concat", "join", NULL, {"x", "x"}, "y", NULL, {0}}};
  expect_refusal(13, cat, 1, "node 0 'join' (Concat): attribute axis is missing");
}

static void test_onnx_bad_references_and_opsets(void **state) {
  (void)state;
  node_spec ns[1] = {{"Relu", "act", NULL, {"nope"}, "y", NULL, {0}}};
  expect_refusal(13, ns, 1, "node 0 'act' (Relu): input 'nope' is not a graph input, initializer or earlier output");
  node_spec ok[1] = {{"Relu", "act", NULL, {"x"}, "y", NULL, {0}}};
  /* Relu's definition is unchanged since opset 6: a model declaring 7 imports (as opset 9), one
   * declaring 5 does not. */
  size_t size;
  char msg[1024];
  unsigned char *b = build_model(7, ok, 1, &size);
  if (import_compile(b, size, msg, sizeof msg)) fail_msg("Relu at opset 7: %s", msg);
  free(b);
  expect_refusal(5, ok, 1, "node 0 'act' (Relu): the model uses ONNX opset 5; Relu at that opset differs from the "
                           "opset 9 definition this compiler implements (it holds from opset 6)");
  /* An operator whose old meaning the importer does not know is refused by name. */
  node_spec up[1] = {{"Upsample", "up", NULL, {"x"}, "y", NULL, {0}}};
  expect_refusal(7, up, 1, "node 0 'up' (Upsample): the model uses ONNX opset 7; this compiler supports opsets 9 to "
                           "17, and older models only with operators whose meaning it knows to be unchanged since "
                           "(Upsample is not one of them)");
  expect_refusal(18, ok, 1, "opset 18");
}

/* If: x -> ReduceMax (keepdims 0) -> Cast to bool -> If, whose then branch is Relu(x) and else
 * branch MaxPool(x) with kernel k. With k = 1 the branches agree in shape: both are compiled and
 * a Where selects. With k = 2 they do not, and the condition is computed at run time: refused
 * by name. */
static int build_if(int kernel, char *msg, size_t msize) {
  node_spec ns[3] = {{"ReduceMax", "rmax", NULL, {"x"}, "m", "keepdims=0", {0}},
                     {"Cast", "tobool", NULL, {"m"}, "c", "to=9", {0}},
                     {"Relu", "placeholder", NULL, {"x"}, "y", NULL, {0}}};
  size_t size;
  unsigned char *b = build_model(13, ns, 3, &size);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, b);
  free(b);
  assert_non_null(m);
  Onnx__NodeProto relu = ONNX__NODE_PROTO__INIT, pool = ONNX__NODE_PROTO__INIT, *rp = &relu, *pp = &pool;
  char *x_in[] = {"x"}, *t_out[] = {"t"}, *e_out[] = {"e"};
  relu.op_type = "Relu", relu.n_input = 1, relu.input = x_in, relu.n_output = 1, relu.output = t_out;
  pool.op_type = "MaxPool", pool.n_input = 1, pool.input = x_in, pool.n_output = 1, pool.output = e_out;
  Onnx__AttributeProto ks = ONNX__ATTRIBUTE_PROTO__INIT, *ksp = &ks;
  int64_t kk[2] = {kernel, kernel};
  ks.name = "kernel_shape", ks.has_type = 1, ks.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  ks.n_ints = 2, ks.ints = kk;
  pool.n_attribute = 1, pool.attribute = &ksp;
  Onnx__ValueInfoProto tv = ONNX__VALUE_INFO_PROTO__INIT, ev = ONNX__VALUE_INFO_PROTO__INIT, *tvp = &tv, *evp = &ev;
  tv.name = "t", ev.name = "e";
  Onnx__GraphProto tg = ONNX__GRAPH_PROTO__INIT, eg = ONNX__GRAPH_PROTO__INIT;
  tg.name = "then", tg.n_node = 1, tg.node = &rp, tg.n_output = 1, tg.output = &tvp;
  eg.name = "else", eg.n_node = 1, eg.node = &pp, eg.n_output = 1, eg.output = &evp;
  Onnx__AttributeProto ta = ONNX__ATTRIBUTE_PROTO__INIT, ea = ONNX__ATTRIBUTE_PROTO__INIT, *ap[2] = {&ta, &ea};
  ta.name = "then_branch", ta.has_type = 1, ta.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ta.g = &tg;
  ea.name = "else_branch", ea.has_type = 1, ea.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ea.g = &eg;
  Onnx__NodeProto *ifn = m->graph->node[2];
  char *c_in[] = {"c"};
  char *saved_type = ifn->op_type, *saved_name = ifn->name, **saved_in = ifn->input;
  size_t saved_na = ifn->n_attribute;
  Onnx__AttributeProto **saved_a = ifn->attribute;
  ifn->op_type = "If", ifn->name = "choose", ifn->input = c_in, ifn->n_attribute = 2, ifn->attribute = ap;
  size = onnx__model_proto__get_packed_size(m);
  b = malloc(size);
  assert_non_null(b);
  onnx__model_proto__pack(m, b);
  ifn->op_type = saved_type, ifn->name = saved_name, ifn->input = saved_in, ifn->n_attribute = saved_na;
  ifn->attribute = saved_a;
  onnx__model_proto__free_unpacked(m, NULL);
  int rc = import_compile(b, size, msg, msize);
  free(b);
  return rc;
}

static void test_onnx_if_selects_or_is_refused(void **state) {
  (void)state;
  char msg[1024];
  if (build_if(1, msg, sizeof msg)) fail_msg("If with branches of equal shapes: %s", msg);
  assert_int_not_equal(build_if(2, msg, sizeof msg), 0);
  if (!strstr(msg, "node 2 'choose' (If): the condition 'c' is computed at run time and output 0 differs between "
                   "the branches ('t' and 'e': element type or shape)"))
    fail_msg("unexpected message: %s", msg);
}

static void test_onnx_malformed_files_are_refused(void **state) {
  (void)state;
  char msg[1024];
  const unsigned char junk[] = "\x93NUMPY this is not a protobuf message \xff\xff\xff\xff";
  assert_int_not_equal(import_compile(junk, sizeof junk, msg, sizeof msg), 0);
  assert_non_null(strstr(msg, "not an ONNX model"));
  /* A valid model cut short. */
  node_spec ok[1] = {{"Relu", "act", NULL, {"x"}, "y", NULL, {0}}};
  size_t size;
  unsigned char *b = build_model(13, ok, 1, &size);
  assert_int_not_equal(import_compile(b, size - 7, msg, sizeof msg), 0);
  assert_non_null(strstr(msg, "not an ONNX model"));
  free(b);
  vta_error err = {0};
  assert_null(vta_onnx_import_file("/nonexistent/model.onnx", NULL, &err));
  assert_non_null(strstr(err.msg, "/nonexistent/model.onnx"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_onnx_valid_model_imports),
      cmocka_unit_test(test_onnx_if_selects_or_is_refused),
      cmocka_unit_test(test_onnx_unsupported_operator_names_the_node),
      cmocka_unit_test(test_onnx_missing_attribute_names_the_node),
      cmocka_unit_test(test_onnx_bad_references_and_opsets),
      cmocka_unit_test(test_onnx_malformed_files_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
