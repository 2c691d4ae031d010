/* cmd_info.c - `vta info`: what a bundle holds (inputs, outputs, operators, sizes, the graph).
 *
 * The design idea: a bundle must be inspectable without running it; everything shown comes
 * from the same reader `vta run` uses, so a bundle info accepts is one run can load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "host/cli.h"
#include "host/cli_args.h"
#include "vta/config.h"
#include "vta/device.h"

static void print_shape(const vta_gvalue *v) {
  printf("%s[", vta_dtype_name(v->dtype));
  for (int d = 0; d < v->rank; d++) printf("%s%lld", d ? "," : "", (long long)v->dims[d]);
  printf("]");
}

/* `vta info --backend NAME`: opens the device and prints the backend's description. */
static int info_device(const char *cmd, const char *backend, const char *xclbin,
                       const char *device, const char *opts, const char *config) {
  vta_config cfg;
  if (vta_cli_config(cmd, config, &cfg) != 0) return VTA_EXIT_FAIL;
  char buf[4096];
  int bad;
  const char *options = vta_cli_xrt_options(cmd, backend, xclbin, device, opts, buf, sizeof buf, &bad);
  if (bad) return VTA_EXIT_USAGE;
  vta_device *dev;
  vta_error err = {0};
  if (vta_device_open(backend, &cfg, options, &dev, &err) != VTA_OK) return vta_cli_fail(cmd, &err);
  vta_device_describe(dev, stdout);
  vta_device_close(dev);
  return VTA_EXIT_OK;
}

int vta_cmd_info(int argc, char **argv) {
  const char *cmd = "info", *path = NULL, *backend = NULL, *xclbin = NULL, *device = NULL;
  const char *opts = NULL, *config = NULL, *val;
  int graph = 0, operators = 0, r;
  for (int i = 1; i < argc; i++) {
    if (vta_cli_is_help(argv[i])) {
      printf("usage: vta info BUNDLE.vtab [--graph]\n"
             "       vta info --operators\n"
             "       vta info --backend NAME [--xclbin FILE] [--device N] [--backend-options S]\n"
             "                [--config FILE]\n"
             "\n"
             "Checks a compiled bundle (magic, version, checksum) and describes it: inputs and\n"
             "outputs with their shapes, the operators and how many of each, constant and CPU\n"
             "code sizes. --graph prints the whole graph in its text form.\n"
             "--operators prints the compiler's operator table (docs/operators.md): every ONNX\n"
             "operator it imports, the file of its family, whether it has CPU code and whether\n"
             "its conformance is claimed, then the operators refused by name with the reason.\n"
             "\n"
             "With --backend, opens that device for the configuration (--config, else\n"
             "$VTA_CONFIG, else the default) and describes it; for xrt: the device, its shell,\n"
             "the xclbin's UUID, the kernel and the memory banks (the xclbin must have been\n"
             "built for the configuration).\n"
             "\nexit status: 0 valid bundle or device, 1 unreadable or invalid, 2 bad command line.\n");
      return VTA_EXIT_OK;
    }
    if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      backend = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--xclbin", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      xclbin = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--device", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      device = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--backend-options", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      opts = val;
    } else if ((r = vta_cli_option(cmd, argc, argv, &i, "--config", NULL, &val)) != 0) {
      if (r < 0) return VTA_EXIT_USAGE;
      config = val;
    } else if (strcmp(argv[i], "--graph") == 0)
      graph = 1;
    else if (strcmp(argv[i], "--operators") == 0)
      operators = 1;
    else if (argv[i][0] == '-' && argv[i][1])
      return vta_cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    else if (path)
      return vta_cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
    else
      path = argv[i];
  }
  if (operators) {
    if (path || graph || backend) return vta_cli_usage_error(cmd, "--operators takes no BUNDLE, --graph or --backend");
    vta_op_table_markdown(stdout);
    return VTA_EXIT_OK;
  }
  if (backend) {
    if (path || graph) return vta_cli_usage_error(cmd, "--backend describes a device, not a bundle");
    return info_device(cmd, backend, xclbin, device, opts, config);
  }
  if (xclbin || device || opts || config)
    return vta_cli_usage_error(cmd, "--xclbin, --device, --backend-options and --config need --backend");
  if (!path) return vta_cli_usage_error(cmd, "no BUNDLE given (or --backend NAME)");
  unsigned char *b;
  size_t n;
  if (vta_cli_read_file(cmd, path, &b, &n) != 0) return VTA_EXIT_FAIL;
  vta_graph *g;
  vta_cpu_code code;
  vta_error err = {0};
  vta_bundle_acc acc;
  if (vta_bundle_read_acc(b, n, &g, &code, &acc, &err)) {
    free(b);
    vta_error_prefix(&err, "%s", path);
    return vta_cli_fail(cmd, &err);
  }
  /* The file's own version (the reader accepted it): 2 CPU-only, 3 with accelerator sections. */
  unsigned version = (unsigned)b[4] | (unsigned)b[5] << 8 | (unsigned)b[6] << 16 | (unsigned)b[7] << 24;
  free(b);
  size_t cbytes = 0;
  for (int i = 0; i < g->n_values; i++)
    if (g->values[i].data) cbytes += vta_value_bytes(&g->values[i]);
  printf("bundle: %s (%zu bytes, version %u, ONNX opset %d)\n", path, n, version, g->opset);
  for (int i = 0; i < g->n_inputs; i++) {
    printf("input:  %s ", g->values[g->inputs[i]].name);
    print_shape(&g->values[g->inputs[i]]);
    printf("\n");
  }
  for (int i = 0; i < g->n_outputs; i++) {
    printf("output: %s ", g->values[g->outputs[i]].name);
    print_shape(&g->values[g->outputs[i]]);
    printf("\n");
  }
  int count[VTA_GOP_COUNT] = {0}, fused = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    count[g->nodes[i].op]++;
    fused += g->nodes[i].n_epi;
  }
  printf("nodes:  %d (%d fused epilogue steps):", g->n_nodes, fused);
  for (int o = 0; o < VTA_GOP_COUNT; o++)
    if (count[o]) printf(" %s %d", vta_op_name((vta_gop)o), count[o]);
  printf("\nconstants: %zu bytes\n", cbytes);
  printf("cpu code: %zu bytes of LLVM bitcode, %zu bytes of native object for %s (cpu %s, %zu "
         "bytes of features)\n", code.size, code.object_size, code.target.triple[0] ? code.target.triple : "-",
         code.target.cpu[0] ? code.target.cpu : "-", strlen(code.target.features));
  if (!acc.n) {
    printf("accelerator programs: none (CPU-only bundle)\n");
  } else {
    int nodes = 0;
    size_t pbytes = 0, wbytes = 0;
    for (int k = 0; k < acc.n; k++) {
      nodes += k == 0 || acc.layers[k].node != acc.layers[k - 1].node;
      pbytes += acc.layers[k].prog_size;
      wbytes += acc.layers[k].weight_size + acc.layers[k].bias_size;
    }
    vta_config cfg;
    char shape[64] = "?";
    if (!vta_config_parse(&cfg, acc.config_json, "bundle", &err)) vta_config_shape_name(&cfg, shape, sizeof shape);
    printf("accelerator programs: %d for %d nodes (%zu bytes of programs, %zu bytes of packed "
           "weights and biases) for a %s configuration\n", acc.n, nodes, pbytes, wbytes, shape);
  }
  vta_bundle_acc_free(&acc);
  if (graph) vta_graph_print(g, stdout, 0);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  return VTA_EXIT_OK;
}
