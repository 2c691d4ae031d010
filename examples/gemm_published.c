/* gemm_published.c - a blocked int8 GEMM written only against the published VTA interfaces
 * <vta/driver.h> and <vta/runtime.h>, checked against a plain C reference.
 *
 *     cc -std=c11 -o gemm gemm_published.c $(pkg-config --cflags --libs vta)
 *     VTA_CONFIG=configs/batch4.json ./gemm      # exit status 0 when the result is correct
 *
 * It computes C = A * W^T + bias (int8 inputs, int32 accumulation, int8 result) for A of
 * 8*BATCH x 4*BLOCK_IN and W of 4*BLOCK_OUT x 4*BLOCK_IN, blocked like a compiled model:
 * output blocks of 4*BATCH rows x 2*BLOCK_OUT columns, the reduction in steps of one
 * BLOCK_IN, and two virtual threads so that loads of one step overlap the GEMM of the other.
 *
 * Published programs take the hardware shape from compile-time macros (hw_spec.h); this one
 * reads the few keys it needs from the same JSON file the runtime uses ($VTA_CONFIG), so one
 * binary runs on every configuration.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/driver.h>
#include <vta/runtime.h>

/* Memory types and queue ids of the published ISA. */
enum { MEM_WGT = 1, MEM_INP = 2, MEM_ACC = 3, MEM_OUT = 4 };
enum { Q_LOAD = 1, Q_COMPUTE = 2, Q_STORE = 3 };

static int g_batch = 1, g_block_in = 16, g_block_out = 16;

/* Reads an integer key of a flat JSON object; returns def when absent. */
static int json_int(const char *text, const char *key, int def) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\"", key);
  const char *p = strstr(text, pat);
  if (!p) return def;
  p = strchr(p + strlen(pat), ':');
  return p ? (int)strtol(p + 1, NULL, 10) : def;
}

static int read_shape(void) {
  const char *path = getenv("VTA_CONFIG");
  if (!path || !*path) return 0; /* the default configuration: 1x16x16 */
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "gemm_published: cannot read %s\n", path);
    return -1;
  }
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  int block = json_int(text, "LOG_BLOCK", 4);
  g_batch = 1 << json_int(text, "LOG_BATCH", 0);
  g_block_in = 1 << json_int(text, "LOG_BLOCK_IN", block);
  g_block_out = 1 << json_int(text, "LOG_BLOCK_OUT", block);
  return 0;
}

/* ---- The micro-op kernel ----
 * One GEMM instruction per (output block, reduction step): rows of the block in the outer loop,
 * its output columns in the inner loop, one micro-op. `thread` selects the half of the INP and
 * WGT buffers the step was loaded into. */
typedef struct kernel_args {
  int rows, cols, thread; /* rows in BATCH units, cols in BLOCK_OUT units */
} kernel_args;

static int gemm_kernel(void *p) {
  const kernel_args *a = p;
  VTAUopLoopBegin((uint32_t)a->rows, (uint32_t)a->cols, 1, 0);
  VTAUopLoopBegin((uint32_t)a->cols, 1, 0, 1);
  VTAUopPush(0, 0, 0, (uint32_t)(a->thread * a->rows), (uint32_t)(a->thread * a->cols), 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

int main(void) {
  if (read_shape()) return 1;
  const int B = g_batch, BI = g_block_in, BO = g_block_out;
  const int M = 8 * B, K = 4 * BI, N = 4 * BO;          /* matrix sizes */
  const int mb = M / B, kb = K / BI, nb = N / BO;       /* in elements */
  const int rows = 4, cols = 2;                         /* output block, in elements */

  /* Data, and the reference result. */
  int8_t *a = malloc((size_t)M * K), *w = malloc((size_t)N * K), *ref = malloc((size_t)M * N);
  int32_t *bias = malloc(sizeof(int32_t) * (size_t)M * N);
  if (!a || !w || !ref || !bias) return 1;
  uint32_t seed = 1;
  for (int i = 0; i < M * K; i++) a[i] = (int8_t)((seed = seed * 1103515245u + 12345u) >> 16);
  for (int i = 0; i < N * K; i++) w[i] = (int8_t)((seed = seed * 1103515245u + 12345u) >> 16);
  for (int i = 0; i < M * N; i++) bias[i] = (int32_t)((seed = seed * 1103515245u + 12345u) >> 8);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      uint32_t acc = (uint32_t)bias[i * N + j];
      for (int k = 0; k < K; k++) acc += (uint32_t)(a[i * K + k] * w[j * K + k]);
      ref[i * N + j] = (int8_t)(uint8_t)acc;
    }

  /* Device buffers in the packed layouts: INP [M/B][K/BI][B][BI], WGT [N/BO][K/BI][BO][BI],
   * ACC [M/B][N/BO][B][BO] (int32), OUT likewise in int8. */
  VTACommandHandle cmd = VTATLSCommandHandle();
  int8_t *inp = VTABufferAlloc((size_t)M * K), *wgt = VTABufferAlloc((size_t)N * K);
  int32_t *acc = VTABufferAlloc(sizeof(int32_t) * (size_t)M * N);
  int8_t *out = VTABufferAlloc((size_t)M * N);
  if (!cmd || !inp || !wgt || !acc || !out) return 1;
  int8_t *pi = VTABufferCPUPtr(cmd, inp), *pw = VTABufferCPUPtr(cmd, wgt);
  int32_t *pa = VTABufferCPUPtr(cmd, acc);
  size_t n = 0;
  for (int e = 0; e < mb; e++)
    for (int f = 0; f < kb; f++)
      for (int r = 0; r < B; r++)
        for (int c = 0; c < BI; c++) pi[n++] = a[(e * B + r) * K + f * BI + c];
  n = 0;
  for (int e = 0; e < nb; e++)
    for (int f = 0; f < kb; f++)
      for (int r = 0; r < BO; r++)
        for (int c = 0; c < BI; c++) pw[n++] = w[(e * BO + r) * K + f * BI + c];
  n = 0;
  for (int e = 0; e < mb; e++)
    for (int f = 0; f < nb; f++)
      for (int r = 0; r < B; r++)
        for (int c = 0; c < BO; c++) pa[n++] = bias[(e * B + r) * N + f * BO + c];
  VTAReadBarrier(cmd, inp, 8, 0, (uint32_t)(M * K));
  VTAReadBarrier(cmd, wgt, 8, 0, (uint32_t)(N * K));
  VTAReadBarrier(cmd, acc, 32, 0, (uint32_t)(M * N));

  /* The program. Steps alternate between two threads (buffer halves). Tokens: a load step
   * waits until the GEMM two steps back has released its half (compute -> load); the GEMM
   * waits for its loads (load -> compute); the bias load of a block waits until the store of
   * the previous block is done with the accumulators (store -> compute). */
  static void *uop_handle[2];
  const int blocks = (mb / rows) * (nb / cols), steps = blocks * kb;
  int step = 0, block = 0;
  for (int bi = 0; bi < mb; bi += rows) {
    for (int bj = 0; bj < nb; bj += cols, block++) {
      if (block > 0) VTADepPop(cmd, Q_STORE, Q_COMPUTE);
      VTALoadBuffer2D(cmd, acc, (uint32_t)(bi * nb + bj), (uint32_t)cols, (uint32_t)rows,
                      (uint32_t)nb, 0, 0, 0, 0, 0, MEM_ACC);
      for (int k = 0; k < kb; k++, step++) {
        int t = step % 2;
        if (step >= 2) VTADepPop(cmd, Q_COMPUTE, Q_LOAD);
        VTALoadBuffer2D(cmd, wgt, (uint32_t)(bj * kb + k), 1, (uint32_t)cols, (uint32_t)kb, 0, 0,
                        0, 0, (uint32_t)(t * cols), MEM_WGT);
        VTALoadBuffer2D(cmd, inp, (uint32_t)(bi * kb + k), 1, (uint32_t)rows, (uint32_t)kb, 0, 0,
                        0, 0, (uint32_t)(t * rows), MEM_INP);
        VTADepPush(cmd, Q_LOAD, Q_COMPUTE);
        VTADepPop(cmd, Q_LOAD, Q_COMPUTE);
        kernel_args args = {rows, cols, t};
        if (VTAPushGEMMOp(&uop_handle[t], gemm_kernel, &args, sizeof args) != 0) return 1;
        if (step + 2 < steps) VTADepPush(cmd, Q_COMPUTE, Q_LOAD);
      }
      VTADepPush(cmd, Q_COMPUTE, Q_STORE);
      VTADepPop(cmd, Q_COMPUTE, Q_STORE);
      VTAStoreBuffer2D(cmd, 0, MEM_OUT, out, (uint32_t)(bi * nb + bj), (uint32_t)cols,
                       (uint32_t)rows, (uint32_t)nb);
      if (block + 1 < blocks) VTADepPush(cmd, Q_STORE, Q_COMPUTE);
    }
  }
  VTASynchronize(cmd, 1u << 31);
  VTAWriteBarrier(cmd, out, 8, 0, (uint32_t)(M * N));

  /* Unpack and compare. */
  const int8_t *po = VTABufferCPUPtr(cmd, out);
  int wrong = 0;
  n = 0;
  for (int e = 0; e < mb; e++)
    for (int f = 0; f < nb; f++)
      for (int r = 0; r < B; r++)
        for (int c = 0; c < BO; c++, n++)
          if (po[n] != ref[(e * B + r) * N + f * BO + c]) wrong++;
  printf("gemm_published: C[%dx%d] = A[%dx%d] * W[%dx%d]^T + bias on %dx%dx%d: %s\n", M, N, M,
         K, N, K, B, BI, BO, wrong ? "WRONG" : "correct");
  if (wrong) fprintf(stderr, "gemm_published: %d of %d results differ\n", wrong, M * N);
  VTABufferFree(inp);
  VTABufferFree(wgt);
  VTABufferFree(acc);
  VTABufferFree(out);
  VTARuntimeShutdown();
  free(a);
  free(w);
  free(ref);
  free(bias);
  return wrong ? 1 : 0;
}
