/* test_bench_conv.c - `vta bench conv2d` and `vta bench resnet18` (host/bench_conv.c): a layer
 * runs on fsim and is verified against the C reference, the JSON line carries the figures the
 * benchmark promises, --explain prints the cost model's reasoning, the network runs end to
 * end, and bad command lines exit 2 naming the problem. Runs the real binary (cli_run.h). */
#include "host/cli_run.h"

static void test_bench_conv2d_layer_is_verified_and_reported(void **state) {
  cli_result r;
  /* Verified without being asked (the default since issue 16). */
  CLI_RUN(&r, "bench", "conv2d", "--layer", "C10", "--explain");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"layer\":\"C10\"");
  CLI_ASSERT_CONTAINS(r.out, "\"macs\":6422528");
  CLI_ASSERT_CONTAINS(r.out, "\"compute_bound\":25088");
  CLI_ASSERT_CONTAINS(r.out, "\"cycles\":null"); /* fsim counts no cycles */
  CLI_ASSERT_CONTAINS(r.out, "\"predicted_cycles\":");
  CLI_ASSERT_CONTAINS(r.out, "\"compile_seconds\":");
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  CLI_ASSERT_CONTAINS(r.err, "bound by: the compute module");
  /* One line: no summary for a single layer. */
  size_t lines = 0;
  for (const char *c = r.out; *c; c++) lines += *c == '\n';
  assert_int_equal(lines, 1);
  cli_result_free(&r);
}

static void test_bench_conv2d_runs_on_a_small_configuration(void **state) {
  cli_result r;
  CLI_RUN(&r, "bench", "conv2d", "--layer", "C7", "--verify", "--config", "configs/small.json");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"config\":\"1x16x16\"");
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  cli_result_free(&r);
  /* --no-verify: the figures only, and the line says it was not checked. */
  CLI_RUN(&r, "bench", "conv2d", "--layer", "C7", "--no-verify", "--config", "configs/small.json");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":null");
  cli_result_free(&r);
}

static void test_bench_resnet18_runs_the_network(void **state) {
  cli_result r;
  CLI_RUN(&r, "bench", "resnet18", "--config", "configs/block32.json");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"bench\":\"resnet18\"");
  CLI_ASSERT_CONTAINS(r.out, "\"layers\":21");
  CLI_ASSERT_CONTAINS(r.out, "\"macs\":1814073344");
  CLI_ASSERT_CONTAINS(r.out, "\"predicted_cycles_published_scope\":");
  CLI_ASSERT_CONTAINS(r.out, "\"cpu_ops\":[]"); /* nothing on the CPU */
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true"); /* by default */
  /* Every convolution in one chained run: the max pooling inside C1's program, the average
   * pooling and the classifier inside the last one's. */
  CLI_ASSERT_CONTAINS(r.out, "\"maxpool\":\"fused\",\"classifier\":\"fused\",");
  CLI_ASSERT_CONTAINS(r.out, "\"chained\":true,\"device_runs\":1,");
  /* Each layer reads its predecessor's output (a barrier) except the 1x1 downsampling
   * convolutions, whose first loads go before their predecessor's last GEMM ends, and whose
   * weight and input loads into fresh entries go inside their predecessor's stream. */
  CLI_ASSERT_CONTAINS(r.out,
                      "\"chain_barriers\":16,\"chain_early_loads\":3,\"chain_hoisted_loads\":20,");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "resnet18", "--config", "configs/block32.json", "--no-chain");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"chained\":false,\"device_runs\":20,");
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  cli_result_free(&r);
  /* The pooling and the classifier as programs of their own: 17 barriers chained and the
   * classifier in a second run after the CPU's average pooling; 22 runs apart. */
  CLI_RUN(&r, "bench", "resnet18", "--config", "configs/block32.json", "--separate-pool",
          "--separate-classifier");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"maxpool\":\"separate\",\"classifier\":\"separate\",");
  CLI_ASSERT_CONTAINS(r.out, "\"device_runs\":2,\"chain_barriers\":17,");
  CLI_ASSERT_CONTAINS(r.out, "\"cpu_ops\":[\"avgpool\"]");
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "resnet18", "--config", "configs/block32.json", "--no-chain",
          "--separate-pool", "--separate-classifier");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"chained\":false,\"device_runs\":22,");
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  cli_result_free(&r);
}

static void test_bench_conv_rejects_bad_command_lines(void **state) {
  cli_result r;
  CLI_RUN(&r, "bench", "conv2d", "--layer", "C12");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unknown layer 'C12'");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "resnet18", "--per-layers");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "unexpected argument '--per-layers'");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "conv2d", "--backend", "nosuch", "--layer", "C2");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "nosuch");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "conv2d", "--help");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "usage: vta bench conv2d");
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bench_conv2d_layer_is_verified_and_reported),
      cmocka_unit_test(test_bench_conv2d_runs_on_a_small_configuration),
      cmocka_unit_test(test_bench_resnet18_runs_the_network),
      cmocka_unit_test(test_bench_conv_rejects_bad_command_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
