/* test_hostile.c - the memory-safety defects of issue 16, one test each: every one of these
 * crashed (heap or stack overflow under ASan) or allocated without bound before it was fixed.
 *
 * - reading from a pipe: host/model.c and host/calib.c took the size from ftell, which is -1
 *   on a pipe, allocated one byte and read SIZE_MAX into it (now: vta_file_read, isa/file.c);
 * - unbounded graph-input dimensions, --shape values and ConstantOfShape shapes, and element
 *   counts multiplied without overflow checks (now: VTA_LIMIT_DIM, VTA_LIMIT_TENSOR_BYTES);
 * - graphs with more than 64 inputs indexing `float *in[64]` in calibration and `argv[64]` in
 *   the CPU code generator (now: arrays sized by the graph, the limit checked before writing);
 * - `vta bench model --reference` read the reference as float32 whatever its type and length.
 *
 * Models are built in memory with the protobuf-c code generated from onnx.proto.
 */
#include "host/cli_run.h"

#include <errno.h>
#include <inttypes.h>

#include "compiler/compiler.h"
#include "host/calib.h"
#include "host/model.h"
#include "host/npy.h"
#include "onnx/onnx.pb-c.h"
#include "vta/file.h"
#include "vta/isa.h"
#include "vta/limits.h"

/* ---- a small ONNX builder: n_in float inputs of one shape, one node over all of them ---- */

typedef struct model_spec {
  int n_in;             /* graph inputs x0, x1, ... */
  int rank;
  const int64_t *dims;  /* of every input */
  const char *op;       /* the one node: op(x0..x{n_in-1}) -> y; NULL: y = Relu(x0) */
  const char *int_attr; /* "name=value" int attribute of the node, or NULL */
  const int64_t *shape_const; /* if set: an int64 initializer "s" of shape_len elements, given to
                                 the node as its only input (ConstantOfShape) */
  int shape_len;
} model_spec;

static unsigned char *build_model(const model_spec *s, size_t *size) {
  Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
  Onnx__OperatorSetIdProto os = ONNX__OPERATOR_SET_ID_PROTO__INIT, *osp = &os;
  os.domain = "";
  os.has_version = 1;
  os.version = 13;
  m.has_ir_version = 1;
  m.ir_version = 7;
  m.n_opset_import = 1;
  m.opset_import = &osp;
  Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
  g.name = "hostile";
  m.graph = &g;
  Onnx__TensorShapeProto__Dimension dims[8], *dp[8];
  for (int d = 0; d < s->rank; d++) {
    Onnx__TensorShapeProto__Dimension init = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
    dims[d] = init;
    dims[d].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    dims[d].dim_value = s->dims[d];
    dp[d] = &dims[d];
  }
  Onnx__TensorShapeProto sh = ONNX__TENSOR_SHAPE_PROTO__INIT;
  sh.n_dim = (size_t)s->rank;
  sh.dim = dp;
  Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
  tt.has_elem_type = 1;
  tt.elem_type = 1; /* FLOAT */
  tt.shape = &sh;
  Onnx__TypeProto ty = ONNX__TYPE_PROTO__INIT;
  ty.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  ty.tensor_type = &tt;
  Onnx__ValueInfoProto *in = calloc((size_t)s->n_in, sizeof *in);
  Onnx__ValueInfoProto **inp = calloc((size_t)s->n_in, sizeof *inp);
  char **names = calloc((size_t)s->n_in, sizeof *names);
  assert_true(in && inp && names);
  for (int k = 0; k < s->n_in; k++) {
    Onnx__ValueInfoProto init = ONNX__VALUE_INFO_PROTO__INIT;
    in[k] = init;
    names[k] = malloc(16);
    snprintf(names[k], 16, "x%d", k);
    in[k].name = names[k];
    in[k].type = &ty;
    inp[k] = &in[k];
  }
  g.n_input = (size_t)s->n_in;
  g.input = inp;
  Onnx__ValueInfoProto out = ONNX__VALUE_INFO_PROTO__INIT, *outp = &out;
  out.name = "y";
  g.n_output = 1;
  g.output = &outp;
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT, *np = &node;
  char *yname = "y", *sname = "s";
  node.op_type = (char *)(s->op ? s->op : "Relu");
  node.name = "n0";
  node.n_output = 1;
  node.output = &yname;
  Onnx__TensorProto init = ONNX__TENSOR_PROTO__INIT, *initp = &init;
  int64_t init_dims[1];
  if (s->shape_const) {
    node.n_input = 1;
    node.input = &sname;
    init.name = sname;
    init.has_data_type = 1;
    init.data_type = 7; /* INT64 */
    init_dims[0] = s->shape_len;
    init.n_dims = 1;
    init.dims = init_dims;
    init.n_int64_data = (size_t)s->shape_len;
    init.int64_data = (int64_t *)s->shape_const;
    g.n_initializer = 1;
    g.initializer = &initp;
  } else {
    node.n_input = s->op ? (size_t)s->n_in : 1;
    node.input = names;
  }
  Onnx__AttributeProto attr = ONNX__ATTRIBUTE_PROTO__INIT, *ap = &attr;
  char aname[32];
  if (s->int_attr) {
    const char *eq = strchr(s->int_attr, '=');
    snprintf(aname, sizeof aname, "%.*s", (int)(eq - s->int_attr), s->int_attr);
    attr.name = aname;
    attr.has_type = 1;
    attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    attr.has_i = 1;
    attr.i = atoll(eq + 1);
    node.n_attribute = 1;
    node.attribute = &ap;
  }
  g.n_node = 1;
  g.node = &np;
  *size = onnx__model_proto__get_packed_size(&m);
  unsigned char *b = malloc(*size);
  assert_non_null(b);
  onnx__model_proto__pack(&m, b);
  for (int k = 0; k < s->n_in; k++) free(names[k]);
  free(names);
  free(inp);
  free(in);
  return b;
}

static vta_graph *import(const model_spec *s, vta_error *err) {
  size_t n;
  unsigned char *b = build_model(s, &n);
  vta_graph *g = vta_onnx_import(b, n, NULL, err);
  free(b);
  return g;
}

#define ASSERT_MSG(msg, needle) \
  do { \
    if (!strstr((msg), (needle))) fail_msg("expected \"%s\" in: %s", (needle), (msg)); \
  } while (0)

/* ---- pipes ---- */

/* Makes a FIFO at path and a child that writes data into it, then exits. */
static pid_t fifo_writer(const char *path, const void *data, size_t n) {
  unlink(path);
  assert_int_equal(mkfifo(path, 0600), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int fd = open(path, O_WRONLY);
    const unsigned char *p = data;
    /* Small writes, so that the reader sees many short reads. */
    while (fd >= 0 && n > 0) {
      size_t k = n < 1000 ? n : 1000;
      ssize_t w = write(fd, p, k);
      if (w <= 0) break;
      p += w;
      n -= (size_t)w;
    }
    _exit(0);
  }
  return pid;
}

static void reap(pid_t pid) {
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
}

static void test_file_read_pipes_limits_and_short_reads(void **state) {
  cli_tmp *t = *state;
  const char *fifo = cli_tmp_path(t, 0, "fifo");
  size_t n = 300000;
  unsigned char *want = malloc(n);
  assert_non_null(want);
  for (size_t i = 0; i < n; i++) want[i] = (unsigned char)(i * 131 + 7);
  pid_t pid = fifo_writer(fifo, want, n);
  unsigned char *got;
  size_t len;
  vta_error err = {0};
  assert_int_equal(vta_file_read(fifo, "a test file", 1 << 20, &got, &len, &err), VTA_OK);
  reap(pid);
  assert_int_equal(len, n);
  assert_memory_equal(got, want, n);
  assert_int_equal(got[len], 0);
  free(got);
  /* Over the limit: through a pipe (found while reading) and a regular file (found at once). */
  pid = fifo_writer(fifo, want, n);
  assert_int_equal(vta_file_read(fifo, "a test file", 100000, &got, &len, &err), VTA_ERR_INVALID);
  ASSERT_MSG(err.msg, "larger than 100000 bytes, the limit for a test file");
  assert_null(got);
  kill(pid, SIGKILL);
  reap(pid);
  unlink(fifo);
  const char *reg = cli_tmp_path(t, 1, "reg.bin");
  cli_spit(reg, want, n);
  assert_int_equal(vta_file_read(reg, "a test file", 100000, &got, &len, &err), VTA_ERR_INVALID);
  ASSERT_MSG(err.msg, "reg.bin: larger than 100000 bytes");
  assert_int_equal(vta_file_read(reg, "a test file", n, &got, &len, &err), VTA_OK);
  assert_int_equal(len, n);
  free(got);
  assert_int_equal(vta_file_read(t->dir, "a test file", n, &got, &len, &err), VTA_ERR_IO);
  ASSERT_MSG(err.msg, "cannot read: Is a directory");
  free(want);
}

/* A tiny model (y = Relu(x), x f32[1,4]) compiled to a bundle. */
static unsigned char *tiny_bundle(size_t *size) {
  static const int64_t d[2] = {1, 4};
  model_spec s = {1, 2, d, NULL, NULL, NULL, 0};
  vta_error err = {0};
  vta_graph *g = import(&s, &err);
  if (!g) fail_msg("%s", err.msg);
  if (vta_compile_graph(g, NULL, &err)) fail_msg("%s", err.msg);
  vta_cpu_code code;
  if (vta_codegen_llvm_for(g, NULL, VTA_CODE_OBJECT | VTA_CODE_BITCODE, &code, &err))
    fail_msg("%s", err.msg);
  unsigned char *b;
  if (vta_bundle_write(g, &code, &b, size, &err)) fail_msg("%s", err.msg);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  return b;
}

static void check_relu_model(vta_model *m) {
  const float x[4] = {-1, 2, -3, 4}, want[4] = {0, 2, 0, 4};
  vta_error err = {0};
  if (vta_model_set_input(m, 0, x, 4, &err) || vta_model_run(m, &err)) fail_msg("%s", err.msg);
  assert_memory_equal(vta_model_output(m, 0), want, sizeof want);
}

static void test_model_opens_bundles_and_onnx_from_pipes(void **state) {
  cli_tmp *t = *state;
  const char *fifo = cli_tmp_path(t, 0, "m.vtab");
  size_t n;
  unsigned char *b = tiny_bundle(&n);
  pid_t pid = fifo_writer(fifo, b, n);
  vta_error err = {0};
  vta_model *m = vta_model_open(fifo, &err);
  reap(pid);
  if (!m) fail_msg("%s", err.msg);
  check_relu_model(m);
  vta_model_destroy(m);
  free(b);
  /* An ONNX model through a pipe: the magic is looked at in the one read, not read twice. */
  static const int64_t d[2] = {1, 4};
  model_spec s = {1, 2, d, NULL, NULL, NULL, 0};
  b = build_model(&s, &n);
  fifo = cli_tmp_path(t, 1, "m.onnx");
  pid = fifo_writer(fifo, b, n);
  m = vta_model_open(fifo, &err);
  reap(pid);
  if (!m) fail_msg("%s", err.msg);
  check_relu_model(m);
  vta_model_destroy(m);
  free(b);
}

static void test_calibration_reads_test_sets_from_pipes(void **state) {
  cli_tmp *t = *state;
  static const int64_t d[2] = {1, 4};
  model_spec s = {1, 2, d, NULL, NULL, NULL, 0};
  vta_error err = {0};
  vta_graph *g = import(&s, &err);
  if (!g) fail_msg("%s", err.msg);
  if (vta_compile_graph(g, NULL, &err)) fail_msg("%s", err.msg);
  /* model.onnx beside test_data_set_0/input_0.pb, a FIFO holding a TensorProto. */
  char dir[400], model[450], path[500];
  snprintf(dir, sizeof dir, "%s/test_data_set_0", t->dir);
  assert_int_equal(mkdir(dir, 0700), 0);
  snprintf(model, sizeof model, "%s/model.onnx", t->dir);
  snprintf(path, sizeof path, "%s/input_0.pb", dir);
  Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
  int64_t td[2] = {1, 4};
  float tv[4] = {0.5f, -1, 2, 3};
  tp.has_data_type = 1;
  tp.data_type = 1;
  tp.n_dims = 2;
  tp.dims = td;
  tp.n_float_data = 4;
  tp.float_data = tv;
  size_t n = onnx__tensor_proto__get_packed_size(&tp);
  unsigned char *b = malloc(n);
  assert_non_null(b);
  onnx__tensor_proto__pack(&tp, b);
  pid_t pid = fifo_writer(path, b, n);
  vta_calib_set c;
  int random = -1;
  char source[600];
  int rc = vta_calib_load_default(g, model, &c, &random, source, sizeof source, &err);
  reap(pid);
  if (rc) fail_msg("%s", err.msg);
  assert_int_equal(random, 0);
  assert_int_equal(c.n_samples, 1);
  assert_memory_equal(c.data[0], tv, sizeof tv);
  vta_calib_set_free(&c);
  unlink(path);
  rmdir(dir);
  free(b);
  vta_graph_destroy(g);
}

/* ---- sizes ---- */

static void test_value_count_and_bytes_detect_overflow(void **state) {
  (void)state;
  vta_gvalue v;
  memset(&v, 0, sizeof v);
  v.dtype = VTA_DT_F32;
  v.rank = 3;
  v.dims[0] = v.dims[1] = v.dims[2] = (int64_t)1 << 32;
  assert_int_equal(vta_value_count(&v), -1);
  assert_true(vta_value_bytes(&v) == SIZE_MAX);
  v.rank = 2;
  v.dims[0] = v.dims[1] = (int64_t)1 << 31; /* 2^62 elements: the count fits, the bytes do not */
  assert_true(vta_value_count(&v) == (int64_t)1 << 62);
  assert_true(vta_value_bytes(&v) == SIZE_MAX);
  v.dims[1] = -3;
  assert_int_equal(vta_value_count(&v), -1);
  v.dims[0] = 0; /* an empty tensor is empty whatever the other dimensions */
  assert_int_equal(vta_value_count(&v), -1);
  v.dims[1] = (int64_t)1 << 62;
  assert_int_equal(vta_value_count(&v), 0);
  vta_error err = {0};
  assert_int_not_equal(vta_value_check_size(&v, "v", &err), 0);
  ASSERT_MSG(err.msg, "v: dimension 1 is 4611686018427387904; dimensions must be 0 to 16777216 "
                      "(VTA_LIMIT_DIM)");
}

static void test_graph_input_dimensions_are_bounded(void **state) {
  (void)state;
  vta_error err = {0};
  static const int64_t huge[2] = {1, (int64_t)1 << 40};
  model_spec s = {1, 2, huge, NULL, NULL, NULL, 0};
  vta_graph *g = import(&s, &err);
  assert_null(g);
  ASSERT_MSG(err.msg, "graph input 'x0': dimension 1 is 1099511627776; dimensions must be 0 to "
                      "16777216 (VTA_LIMIT_DIM)");
  /* Each dimension allowed, the product not. */
  static const int64_t wide[3] = {1 << 20, 1 << 20, 1 << 20};
  model_spec w = {1, 3, wide, NULL, NULL, NULL, 0};
  assert_null(import(&w, &err));
  ASSERT_MSG(err.msg, "graph input 'x0': 1152921504606846976 elements of 4 bytes exceed the limit "
                      "of 2147483648 bytes per tensor (VTA_LIMIT_TENSOR_BYTES)");
}

static void test_shape_option_is_bounded(void **state) {
  cli_tmp *t = *state;
  static const int64_t d[2] = {1, 4};
  model_spec s = {1, 2, d, NULL, NULL, NULL, 0};
  size_t n;
  unsigned char *b = build_model(&s, &n);
  const char *model = cli_tmp_path(t, 0, "m.onnx"), *out = cli_tmp_path(t, 1, "m.vtab");
  cli_spit(model, b, n);
  free(b);
  cli_result r;
  CLI_RUN(&r, "compile", model, "-o", out, "--shape", "x0=1,99999999999");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "dimension 99999999999 is above the limit 16777216 (VTA_LIMIT_DIM)");
  cli_result_free(&r);
  assert_false(cli_exists(out));
}

static void test_constant_of_shape_is_checked_before_it_is_filled(void **state) {
  (void)state;
  static const int64_t d[2] = {1, 4};
  static const int64_t neg[2] = {2, -5}, big[3] = {1 << 20, 1 << 20, 1 << 20};
  model_spec s = {1, 2, d, "ConstantOfShape", NULL, neg, 2};
  vta_error err = {0};
  vta_graph *g = import(&s, &err);
  if (!g) fail_msg("%s", err.msg);
  assert_int_not_equal(vta_compile_graph(g, NULL, &err), 0);
  ASSERT_MSG(err.msg, "shape element 1 is -5; dimensions must be 0 to 16777216 (VTA_LIMIT_DIM)");
  vta_graph_destroy(g);
  s.shape_const = big;
  s.shape_len = 3;
  g = import(&s, &err);
  if (!g) fail_msg("%s", err.msg);
  assert_int_not_equal(vta_compile_graph(g, NULL, &err), 0);
  ASSERT_MSG(err.msg, "exceed the limit of 2147483648 bytes per tensor (VTA_LIMIT_TENSOR_BYTES)");
  vta_graph_destroy(g);
}

/* ---- found by fuzz_onnx ---- */

/* protobuf-c leaves an absent attribute name NULL; the importer compared it with strcmp. */
static void test_attributes_without_a_name_are_refused(void **state) {
  (void)state;
  static const int64_t d[2] = {1, 4};
  static const char *const ops[2] = {"Softmax", "Constant"};
  static const char *const attrs[2] = {"axis=1", "value_int=3"};
  static const char *const want[2] = {"node 0 'n0' (Softmax): attribute 0 has no name",
                                      "node 0 'n0' (Constant): the Constant's attribute has no name"};
  for (int k = 0; k < 2; k++) {
    model_spec s = {1, 2, d, ops[k], attrs[k], NULL, 0};
    size_t n;
    unsigned char *b = build_model(&s, &n);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, n, b);
    assert_non_null(m);
    free(b);
    size_t n_input = m->graph->node[0]->n_input;
    if (k == 1) m->graph->node[0]->n_input = 0; /* a Constant has no inputs */
    char *name = m->graph->node[0]->attribute[0]->name;
    m->graph->node[0]->attribute[0]->name = NULL;
    n = onnx__model_proto__get_packed_size(m);
    b = malloc(n);
    assert_non_null(b);
    onnx__model_proto__pack(m, b);
    m->graph->node[0]->attribute[0]->name = name; /* freed with the message */
    m->graph->node[0]->n_input = n_input;
    onnx__model_proto__free_unpacked(m, NULL);
    vta_error err = {0};
    vta_graph *g = vta_onnx_import(b, n, NULL, &err);
    free(b);
    assert_null(g);
    ASSERT_MSG(err.msg, want[k]);
  }
}

/* ---- more than 64 inputs ---- */

static void test_graphs_with_more_than_64_inputs(void **state) {
  (void)state;
  static const int64_t d[2] = {1, 2};
  /* Calibration by noise (`vta compile --quantize` without data): one array per input. */
  model_spec s = {70, 2, d, NULL, NULL, NULL, 0};
  vta_error err = {0};
  vta_graph *g = import(&s, &err);
  if (!g) fail_msg("%s", err.msg);
  if (vta_compile_graph(g, NULL, &err)) fail_msg("%s", err.msg);
  vta_calib_set c;
  char source[100];
  if (vta_calib_load_noise(g, &c, source, sizeof source, &err)) fail_msg("%s", err.msg);
  assert_int_equal(c.n_inputs, 70);
  assert_int_equal(c.n_samples, 4);
  vta_calib_set_free(&c);
  vta_graph_destroy(g);
  /* A Concat of 64 inputs (the importer's most per node) has 65 kernel arguments: counted
   * without writing past the cap, and refused by the CPU code generator by name instead of
   * written to argv[64]. */
  model_spec cat = {64, 2, d, "Concat", "axis=1", NULL, 0};
  g = import(&cat, &err);
  if (!g) fail_msg("%s", err.msg);
  if (vta_compile_graph(g, NULL, &err)) fail_msg("%s", err.msg);
  int vals[VTA_KERNEL_MAX_ARGS + 1];
  vals[VTA_KERNEL_MAX_ARGS] = -12345;
  assert_int_equal(vta_kernel_args(g, 0, vals, VTA_KERNEL_MAX_ARGS), 65);
  assert_int_equal(vals[VTA_KERNEL_MAX_ARGS], -12345);
  vta_cpu_code code;
  assert_int_not_equal(vta_codegen_llvm_for(g, NULL, VTA_CODE_OBJECT, &code, &err), 0);
  ASSERT_MSG(err.msg, "has 65 operands; the CPU code generator takes at most 64");
  vta_graph_destroy(g);
}

/* ---- stream length ---- */

static void test_streams_longer_than_the_limit_are_refused(void **state) {
  cli_tmp *t = *state;
  /* One instruction more than VTA_LIMIT_STREAM_INSNS, as a sparse file of zeros. */
  const char *big = cli_tmp_path(t, 0, "big.bin");
  int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)((VTA_LIMIT_STREAM_INSNS + 1) * VTA_INSN_BYTES)), 0);
  close(fd);
  cli_result r;
  CLI_RUN(&r, "disasm", big);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "16777217 instructions; a stream may hold at most 16777216 "
                             "(VTA_LIMIT_STREAM_INSNS)");
  cli_result_free(&r);
}

/* ---- bench model --reference ---- */

static void test_bench_reference_must_match_the_output(void **state) {
  cli_tmp *t = *state;
  static const int64_t d[2] = {1, 4};
  model_spec s = {1, 2, d, NULL, NULL, NULL, 0};
  size_t n;
  unsigned char *b = build_model(&s, &n);
  const char *model = cli_tmp_path(t, 0, "m.onnx"), *x = cli_tmp_path(t, 1, "x.npy"),
             *ref = cli_tmp_path(t, 2, "ref.npy");
  cli_spit(model, b, n);
  free(b);
  vta_error err = {0};
  const float xv[4] = {1, 2, 3, 4};
  const int64_t xd[2] = {1, 4}, small[1] = {1};
  assert_int_equal(vta_npy_write(x, "<f4", 2, xd, xv, &err), 0);
  /* One int8 element where four float32 ones are expected: read past its end before. */
  const signed char rv[1] = {1};
  assert_int_equal(vta_npy_write(ref, "|i1", 1, small, rv, &err), 0);
  cli_result r;
  CLI_RUN(&r, "bench", "model", model, "--input", x, "--reference", ref, "--no-ort", "--repeat", "1");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "the reference must be float32 (<f4) with 4 elements, the output's "
                             "count; it holds |i1 with 1");
  cli_result_free(&r);
  assert_int_equal(vta_npy_write(ref, "<f4", 2, xd, xv, &err), 0);
  CLI_RUN(&r, "bench", "model", model, "--input", x, "--reference", ref, "--no-ort", "--repeat", "1");
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_file_read_pipes_limits_and_short_reads, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_model_opens_bundles_and_onnx_from_pipes, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_calibration_reads_test_sets_from_pipes, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test(test_value_count_and_bytes_detect_overflow),
      cmocka_unit_test(test_graph_input_dimensions_are_bounded),
      cmocka_unit_test_setup_teardown(test_shape_option_is_bounded, cli_tmp_setup, cli_tmp_teardown),
      cmocka_unit_test(test_constant_of_shape_is_checked_before_it_is_filled),
      cmocka_unit_test(test_attributes_without_a_name_are_refused),
      cmocka_unit_test(test_graphs_with_more_than_64_inputs),
      cmocka_unit_test_setup_teardown(test_streams_longer_than_the_limit_are_refused, cli_tmp_setup,
                                      cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_bench_reference_must_match_the_output, cli_tmp_setup,
                                      cli_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
