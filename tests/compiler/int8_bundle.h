/* int8_bundle.h - the model tests' int8 compile (test_models, test_zoo): an ONNX model with its
 * one input's shape taken from x, calibrated on the .npy files of calib_dir, quantized and
 * lowered for the default configuration, written as a bundle of *size bytes (free it). The
 * including test defines fetched(model), which says whether the model was downloaded. */
#ifndef VTA_TESTS_COMPILER_INT8_BUNDLE_H
#define VTA_TESTS_COMPILER_INT8_BUNDLE_H

static unsigned char *compile_int8(const char *model, const vta_npy *x, const char *calib_dir, size_t *size) {
  assert_true(fetched(model));
  vta_error err = {0};
  int rank = x->rank;
  int64_t dims[1][VTA_MAX_RANK];
  for (int d = 0; d < rank; d++) dims[0][d] = x->dims[d];
  vta_import_opts io = {0};
  io.n_shapes = 1;
  io.shape_names = (const char *const[]){NULL};
  io.shape_ranks = &rank;
  io.shape_dims = (const int64_t(*)[VTA_MAX_RANK])dims;
  vta_graph *g = vta_onnx_import_file(model, &io, &err);
  if (!g) fail_msg("%s", err.msg);
  vta_calib_set cs;
  if (vta_calib_load_dir(g, calib_dir, &cs, &err)) fail_msg("%s", err.msg);
  vta_calib c;
  vta_calib_view(&cs, &c);
  vta_quant_opts qo = {.calib = &c};
  vta_config cfg;
  vta_config_default(&cfg);
  vta_compile_opts o = {.quant = &qo, .accel = &cfg};
  if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
  vta_calib_set_free(&cs);
  vta_cpu_code code;
  vta_bundle_acc acc;
  unsigned char *b;
  assert_int_equal(vta_codegen_llvm(g, &code, &err), 0);
  if (vta_acc_bundle(g, &cfg, &acc, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_bundle_write_acc(g, &code, &acc, &b, size, &err), 0);
  vta_bundle_acc_free(&acc);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  return b;
}

#endif
