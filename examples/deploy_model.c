/* deploy_model.c - a deployed model in a few dozen lines: no compiler, no LLVM, only the
 * runtime library and the object `vta compile --emit lib` wrote.
 *
 *   vta compile model.onnx --quantize --accel --emit lib -o model.o
 *   cc -std=c11 deploy_model.c model.o $(pkg-config --cflags --libs vta) -o classify
 *   ./classify fsim input.f32        # raw float32 input (default: a fixed ramp)
 *
 * Prints every output element in C's exact hexadecimal float form, one per line, and the
 * run's host/device figures on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <vta/model.h>

extern const vta_model_image deployed_model; /* --name deployed_model (the default) */

int main(int argc, char **argv) {
  const char *backend = argc > 1 ? argv[1] : "fsim";
  vta_error err;
  vta_model *m = vta_model_from_image(&deployed_model, &err);
  if (!m || vta_model_set_backend(m, backend, NULL, &err)) {
    fprintf(stderr, "deploy_model: %s\n", err.msg);
    return 1;
  }
  int rank;
  int64_t dims[8];
  size_t n = 1;
  vta_model_input(m, 0, &rank, dims);
  for (int d = 0; d < rank; d++) n *= (size_t)dims[d];
  float *x = malloc(n * sizeof *x);
  FILE *f = argc > 2 ? fopen(argv[2], "rb") : NULL;
  if (!x || (argc > 2 && (!f || fread(x, sizeof *x, n, f) != n))) {
    fprintf(stderr, "deploy_model: cannot read %zu float32 values from %s\n", n, argc > 2 ? argv[2] : "-");
    return 1;
  }
  for (size_t i = 0; !f && i < n; i++) x[i] = (float)(i % 251) / 125.0f - 1.0f;
  if (f) fclose(f);
  if (vta_model_set_input(m, 0, x, n, &err) || vta_model_run(m, &err)) {
    fprintf(stderr, "deploy_model: %s\n", err.msg);
    return 1;
  }
  for (int k = 0; k < vta_model_n_outputs(m); k++) {
    size_t count = 1;
    vta_model_output_info(m, k, &rank, dims);
    for (int d = 0; d < rank; d++) count *= (size_t)dims[d];
    const float *y = vta_model_output(m, k);
    for (size_t i = 0; i < count; i++) printf("%a\n", y[i]);
  }
  vta_model_stats s;
  vta_model_run_stats(m, &s);
  fprintf(stderr, "deploy_model: %llu device runs, host %.2f ms (pack %.2f, cpu %.2f, transfers %.2f), "
          "device %.2f ms, %llu bytes to and %llu from the device\n", (unsigned long long)s.device_runs,
          s.pack_ms + s.cpu_ms + s.transfer_ms, s.pack_ms, s.cpu_ms, s.transfer_ms, s.device_ms,
          (unsigned long long)s.bytes_to_device, (unsigned long long)s.bytes_from_device);
  free(x);
  vta_model_destroy(m);
  return 0;
}
