/* test_runtime.c - the published runtime API (vta/runtime.h) runs the programs of the reference
 * hardware tests bit-exact against plain C: the blocked GEMM over batch / channels / block with
 * one and two virtual threads, with micro-op loops (compression) and flat micro-ops, and the
 * ALU test of every opcode with an immediate and with a vector operand, on the default, batch4
 * and block32 configurations.
 *
 * The published API has one process-wide device whose configuration comes from $VTA_CONFIG
 * before the first call, so each configuration runs in a child process (fork) that sets it;
 * the child uses only runtime.h / driver.h calls for the device work and reports through its
 * exit status. The configuration is also loaded here, only to know BATCH and BLOCK for
 * packing data (the published programs take them from compile-time macros). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "vta/config.h"
#include "vta/device.h"
#include "vta/jit.h"
#include "vta/runtime.h"

/* Shape of the configuration the child runs (from the same file as $VTA_CONFIG). */
static uint32_t B, BI, BO, INP_DEPTH, WGT_DEPTH, ACC_DEPTH, UOP_DEPTH;
static _Atomic int g_failures;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
      g_failures++;                                                                   \
      return -1;                                                                      \
    }                                                                                 \
  } while (0)

static _Thread_local uint32_t g_seed = 12345;
static uint32_t rnd(void) {
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 17;
  g_seed ^= g_seed << 5;
  return g_seed;
}

/* ---- Blocked GEMM (the published blocked_gemm_test, on the runtime API) ---- */

typedef struct gemm_sig {
  int32_t batch_blocks, in_blocks, out_blocks; /* of one block, in elements */
  int32_t compressed, thread;
} gemm_sig;

static int gemm_finit(void *p) {
  const gemm_sig *s = p;
  uint32_t ib = (uint32_t)(s->batch_blocks * s->in_blocks);  /* INP elements per thread */
  uint32_t wb = (uint32_t)(s->in_blocks * s->out_blocks);    /* WGT elements per thread */
  uint32_t ioff = (uint32_t)s->thread * ib, woff = (uint32_t)s->thread * wb;
  if (s->compressed) {
    /* Outer loop over input blocks, inner over output blocks; one micro-op per batch row. */
    VTAUopLoopBegin((uint32_t)s->in_blocks, 0, 1, 1);
    VTAUopLoopBegin((uint32_t)s->out_blocks, 1, 0, (uint32_t)s->in_blocks);
    for (int32_t i = 0; i < s->batch_blocks; i++)
      VTAUopPush(0, 0, (uint32_t)(i * s->out_blocks), ioff + (uint32_t)(i * s->in_blocks), woff, 0,
                 0, 0);
    VTAUopLoopEnd();
    VTAUopLoopEnd();
  } else {
    for (int32_t i = 0; i < s->batch_blocks; i++)
      for (int32_t j = 0; j < s->in_blocks; j++)
        for (int32_t k = 0; k < s->out_blocks; k++)
          VTAUopPush(0, 0, (uint32_t)(i * s->out_blocks + k),
                     ioff + (uint32_t)(i * s->in_blocks + j),
                     woff + (uint32_t)(k * s->in_blocks + j), 0, 0, 0);
  }
  return 0;
}

static int blocked_gemm(int batch, int channels, int block, int compressed, int vt) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  CHECK(cmd != NULL);
  int in_feat = channels, out_feat = channels;
  int bb = block / (int)B, ibk = block / (int)BI, obk = block / (int)BO;
  CHECK(block % (int)BI == 0 && block % (int)BO == 0 && block % (int)B == 0);
  CHECK(batch % block == 0 && channels % block == 0 && (in_feat / block) % vt == 0);
  CHECK((uint32_t)(bb * ibk * vt) <= INP_DEPTH && (uint32_t)(ibk * obk * vt) <= WGT_DEPTH);
  CHECK((uint32_t)(bb * obk) <= ACC_DEPTH);
  CHECK((uint32_t)((compressed ? bb : bb * ibk * obk) * vt) <= UOP_DEPTH);
  /* Logical data. */
  int8_t *in = malloc((size_t)batch * in_feat), *wt = malloc((size_t)out_feat * in_feat);
  int32_t *bias = malloc(sizeof(int32_t) * (size_t)batch * out_feat);
  for (int i = 0; i < batch * in_feat; i++) in[i] = (int8_t)rnd();
  for (int i = 0; i < out_feat * in_feat; i++) wt[i] = (int8_t)rnd();
  for (int i = 0; i < batch * out_feat; i++) bias[i] = (int32_t)rnd();
  /* Packed device buffers: INP [batch/B][in/BI][B][BI], WGT [out/BO][in/BI][BO][BI],
   * ACC [batch/B][out/BO][B][BO] int32, OUT the same in int8. */
  int8_t *inp_buf = VTABufferAlloc((size_t)batch * in_feat);
  int8_t *wgt_buf = VTABufferAlloc((size_t)out_feat * in_feat);
  int32_t *acc_buf = VTABufferAlloc(sizeof(int32_t) * (size_t)batch * out_feat);
  int8_t *out_buf = VTABufferAlloc((size_t)batch * out_feat);
  CHECK(inp_buf && wgt_buf && acc_buf && out_buf);
  int8_t *pi = VTABufferCPUPtr(cmd, inp_buf), *pw = VTABufferCPUPtr(cmd, wgt_buf);
  int32_t *pa = VTABufferCPUPtr(cmd, acc_buf);
  size_t n = 0;
  for (int r0 = 0; r0 < batch; r0 += (int)B)
    for (int c0 = 0; c0 < in_feat; c0 += (int)BI)
      for (uint32_t r = 0; r < B; r++)
        for (uint32_t c = 0; c < BI; c++) pi[n++] = in[(r0 + (int)r) * in_feat + c0 + (int)c];
  n = 0;
  for (int r0 = 0; r0 < out_feat; r0 += (int)BO)
    for (int c0 = 0; c0 < in_feat; c0 += (int)BI)
      for (uint32_t r = 0; r < BO; r++)
        for (uint32_t c = 0; c < BI; c++) pw[n++] = wt[(r0 + (int)r) * in_feat + c0 + (int)c];
  n = 0;
  for (int r0 = 0; r0 < batch; r0 += (int)B)
    for (int c0 = 0; c0 < out_feat; c0 += (int)BO)
      for (uint32_t r = 0; r < B; r++)
        for (uint32_t c = 0; c < BO; c++) pa[n++] = bias[(r0 + (int)r) * out_feat + c0 + (int)c];
  VTAReadBarrier(cmd, inp_buf, 8, 0, (uint32_t)(batch * in_feat));
  VTAReadBarrier(cmd, wgt_buf, 8, 0, (uint32_t)(out_feat * in_feat));
  VTAReadBarrier(cmd, acc_buf, 32, 0, (uint32_t)(batch * out_feat));

  static void *uop_handle[2][2]; /* per (compression, thread): the call sites */
  int ksteps = in_feat / block, nblocks = (batch / block) * (out_feat / block);
  int total = nblocks * ksteps, step = 0, blk = 0;
  for (int i = 0; i < batch; i += block) {
    for (int j = 0; j < out_feat; j += block, blk++) {
      /* Bias into ACC once the previous block's store is done with OUT. */
      if (blk > 0) VTADepPop(cmd, 3, 2);
      VTALoadBuffer2D(cmd, acc_buf, (uint32_t)((i / (int)B) * (out_feat / (int)BO) + j / (int)BO),
                      (uint32_t)obk, (uint32_t)bb, (uint32_t)(out_feat / (int)BO), 0, 0, 0, 0, 0,
                      VTA_MEM_ACC);
      for (int k = 0; k < in_feat; k += block, step++) {
        int th = step % vt;
        if (step >= vt) VTADepPop(cmd, 2, 1);
        VTALoadBuffer2D(cmd, wgt_buf,
                        (uint32_t)((j / (int)BO) * (in_feat / (int)BI) + k / (int)BI),
                        (uint32_t)ibk, (uint32_t)obk, (uint32_t)(in_feat / (int)BI), 0, 0, 0, 0,
                        (uint32_t)(th * ibk * obk), VTA_MEM_WGT);
        VTALoadBuffer2D(cmd, inp_buf,
                        (uint32_t)((i / (int)B) * (in_feat / (int)BI) + k / (int)BI),
                        (uint32_t)ibk, (uint32_t)bb, (uint32_t)(in_feat / (int)BI), 0, 0, 0, 0,
                        (uint32_t)(th * bb * ibk), VTA_MEM_INP);
        VTADepPush(cmd, 1, 2);
        VTADepPop(cmd, 1, 2);
        gemm_sig sig = {bb, ibk, obk, compressed, th};
        CHECK(VTAPushGEMMOp(&uop_handle[compressed][th], gemm_finit, &sig, sizeof sig) == 0);
        if (step + vt < total) VTADepPush(cmd, 2, 1);
      }
      VTADepPush(cmd, 2, 3);
      VTADepPop(cmd, 2, 3);
      VTAStoreBuffer2D(cmd, 0, VTA_MEM_OUT, out_buf,
                       (uint32_t)((i / (int)B) * (out_feat / (int)BO) + j / (int)BO),
                       (uint32_t)obk, (uint32_t)bb, (uint32_t)(out_feat / (int)BO));
      if (blk + 1 < nblocks) VTADepPush(cmd, 3, 2);
    }
  }
  uint64_t errors_before;
  vta_jit_last_error(cmd, &errors_before);
  VTASynchronize(cmd, 1u << 31);
  uint64_t errors_after;
  const char *msg = vta_jit_last_error(cmd, &errors_after);
  if (errors_after != errors_before) fprintf(stderr, "runtime error: %s\n", msg);
  CHECK(errors_after == 0);
  VTAWriteBarrier(cmd, out_buf, 8, 0, (uint32_t)(batch * out_feat));
  int8_t *po = VTABufferCPUPtr(cmd, out_buf);
  int bad = 0;
  n = 0;
  for (int r0 = 0; r0 < batch; r0 += (int)B)
    for (int c0 = 0; c0 < out_feat; c0 += (int)BO)
      for (uint32_t r = 0; r < B; r++)
        for (uint32_t c = 0; c < BO; c++, n++) {
          int row = r0 + (int)r, col = c0 + (int)c;
          uint32_t acc = (uint32_t)bias[row * out_feat + col];
          for (int q = 0; q < in_feat; q++)
            acc += (uint32_t)((int32_t)in[row * in_feat + q] * (int32_t)wt[col * in_feat + q]);
          if (po[n] != (int8_t)(uint8_t)acc) bad++;
        }
  if (bad)
    fprintf(stderr, "blocked gemm batch=%d channels=%d block=%d compressed=%d vt=%d: %d wrong\n",
            batch, channels, block, compressed, vt, bad);
  VTABufferFree(inp_buf);
  VTABufferFree(wgt_buf);
  VTABufferFree(acc_buf);
  VTABufferFree(out_buf);
  free(in);
  free(wt);
  free(bias);
  CHECK(bad == 0);
  return 0;
}

/* ---- ALU (the published alu_test, on the runtime API) ---- */

typedef struct alu_sig {
  int32_t opcode, use_imm, imm, tx, compressed;
} alu_sig;

static int alu_finit(void *p) {
  const alu_sig *s = p;
  if (s->compressed) {
    VTAUopLoopBegin((uint32_t)s->tx, 1, 1, 0);
    VTAUopPush(1, 0, 0, (uint32_t)s->tx, 0, (uint32_t)s->opcode, (uint32_t)s->use_imm, s->imm);
    VTAUopLoopEnd();
  } else {
    for (int32_t i = 0; i < s->tx; i++)
      VTAUopPush(1, 0, (uint32_t)i, (uint32_t)(s->tx + i), 0, (uint32_t)s->opcode,
                 (uint32_t)s->use_imm, s->imm);
  }
  return 0;
}

/* ISA.md section 3 on int32 lanes (wrapping arithmetic, the SHR rule of ours). */
static int32_t alu_ref(int op, int32_t a, int32_t b, int32_t imm) {
  switch (op) {
  case VTA_ALU_MIN: return a < b ? a : b;
  case VTA_ALU_MAX: return a > b ? a : b;
  case VTA_ALU_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
  case VTA_ALU_MUL: return (int32_t)((uint32_t)a * (uint32_t)b);
  case VTA_ALU_SHRCLIP: { /* SHR, then MAX with the immediate, MIN with the upper half */
    int32_t r = alu_ref(VTA_ALU_SHR, a, b, 0), lo = (int16_t)imm, hi = (int16_t)(b >> 16);
    r = r > lo ? r : lo;
    return r < hi ? r : hi;
  }
  default: {
    int32_t y = (int32_t)((uint32_t)b << 26) >> 26; /* low 6 bits, sign-extended */
    if (y >= 0) return a >> y;
    return -y >= 32 ? 0 : (int32_t)((uint32_t)a << -y); /* -32: every bit out */
  }
  }
}

static int32_t rnd_operand(int op, int is_shift_amount) {
  if (op == VTA_ALU_SHR && is_shift_amount) return (int32_t)(rnd() % 63) - 31;
  if (op == VTA_ALU_MUL) return (int32_t)(rnd() % 65536) - 32768;
  return (int32_t)rnd();
}

static int alu_test(int op, int use_imm, int batch, int vector_size, int compressed) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  CHECK(cmd != NULL);
  CHECK(batch % (int)B == 0 && vector_size % (int)BO == 0);
  int tx = vector_size / (int)BO, sets = use_imm ? 1 : 2, rows = batch / (int)B;
  CHECK((uint32_t)(tx * sets) <= ACC_DEPTH);
  size_t lanes = B * BO;
  int32_t *acc_buf = VTABufferAlloc(sizeof(int32_t) * (size_t)rows * (size_t)(tx * sets) * lanes);
  int8_t *out_buf = VTABufferAlloc((size_t)rows * (size_t)tx * lanes);
  CHECK(acc_buf && out_buf);
  int32_t *pa = VTABufferCPUPtr(cmd, acc_buf);
  size_t total = (size_t)rows * (size_t)(tx * sets) * lanes;
  /* Element e of a row: the first tx are the destination operand, the next tx the source. */
  for (size_t i = 0; i < total; i++) {
    size_t e = (i / lanes) % (size_t)(tx * sets);
    pa[i] = rnd_operand(op, e >= (size_t)tx);
  }
  int32_t imm[64];
  CHECK(rows <= 64);
  for (int r = 0; r < rows; r++) {
    imm[r] = op == VTA_ALU_SHR ? (int32_t)(rnd() % 63) - 31 : (int32_t)(rnd() % 65536) - 32768;
  }
  VTAReadBarrier(cmd, acc_buf, 32, 0, (uint32_t)total);
  static void *uop_handle;
  for (int r = 0; r < rows; r++) {
    if (r > 0) VTADepPop(cmd, 3, 2);
    VTALoadBuffer2D(cmd, acc_buf, (uint32_t)(r * tx * sets), (uint32_t)(tx * sets), 1,
                    (uint32_t)(tx * sets), 0, 0, 0, 0, 0, VTA_MEM_ACC);
    alu_sig sig = {op, use_imm, vta_alu_imm_used((unsigned)op, (unsigned)use_imm) ? imm[r] : 0,
                   tx, compressed};
    CHECK(VTAPushALUOp(&uop_handle, alu_finit, &sig, sizeof sig) == 0);
    VTADepPush(cmd, 2, 3);
    VTADepPop(cmd, 2, 3);
    VTAStoreBuffer2D(cmd, 0, VTA_MEM_OUT, out_buf, (uint32_t)(r * tx), (uint32_t)tx, 1,
                     (uint32_t)tx);
    if (r + 1 < rows) VTADepPush(cmd, 3, 2);
  }
  VTASynchronize(cmd, 1u << 31);
  uint64_t errors;
  const char *msg = vta_jit_last_error(cmd, &errors);
  if (errors) fprintf(stderr, "runtime error: %s\n", msg);
  CHECK(errors == 0);
  VTAWriteBarrier(cmd, out_buf, 8, 0, (uint32_t)((size_t)rows * (size_t)tx * lanes));
  int8_t *po = VTABufferCPUPtr(cmd, out_buf);
  int bad = 0;
  for (int r = 0; r < rows; r++)
    for (int e = 0; e < tx; e++)
      for (size_t l = 0; l < lanes; l++) {
        size_t row = (size_t)r * (size_t)(tx * sets) * lanes;
        int32_t a = pa[row + (size_t)e * lanes + l];
        int32_t b = use_imm ? imm[r] : pa[row + (size_t)(tx + e) * lanes + l];
        int8_t want = (int8_t)(uint8_t)(uint32_t)alu_ref(op, a, b, imm[r]);
        if (po[((size_t)r * (size_t)tx + (size_t)e) * lanes + l] != want) bad++;
      }
  if (bad)
    fprintf(stderr, "alu %s use_imm=%d compressed=%d: %d wrong\n", vta_alu_op_name((unsigned)op),
            use_imm, compressed, bad);
  VTABufferFree(acc_buf);
  VTABufferFree(out_buf);
  CHECK(bad == 0);
  return 0;
}

/* ---- Running a configuration in a child ---- */

typedef int (*suite_fn)(void);

static int gemm_suite(void) {
  int block = 2 * (int)(BI > BO ? BI : BO);
  if (block % (int)B) block = (int)B * 2;
  int size = 4 * block;
  for (int compressed = 0; compressed < 2; compressed++)
    for (int vt = 1; vt <= 2; vt++) blocked_gemm(size, size, block, compressed, vt);
  /* A block of one tile each (the smallest blocking). */
  int small = (int)(B > BI ? B : BI);
  if (small < (int)BO) small = (int)BO;
  blocked_gemm(2 * small, 2 * small, small, 1, 2);
  return 0;
}

static int alu_suite(void) {
  for (int op = 0; op < VTA_ALU_COUNT; op++)
    for (int use_imm = 0; use_imm < 2; use_imm++)
      for (int compressed = 0; compressed < 2; compressed++)
        alu_test(op, use_imm, 4 * (int)B, 8 * (int)BO, compressed);
  return 0;
}

static void run_in_child_env(const char *config, suite_fn fn, int shadow) {
  vta_config cfg;
  vta_error err;
  assert_int_equal(vta_config_load(&cfg, config, &err), VTA_OK);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setenv("VTA_CONFIG", config, 1);
    unsetenv("VTA_BACKEND");
    if (shadow) setenv("VTA_DRIVER_SHADOW", "1", 1);
    else unsetenv("VTA_DRIVER_SHADOW");
    B = cfg.batch;
    BI = cfg.block_in;
    BO = cfg.block_out;
    INP_DEPTH = cfg.depth[VTA_MEM_INP];
    WGT_DEPTH = cfg.depth[VTA_MEM_WGT];
    ACC_DEPTH = cfg.depth[VTA_MEM_ACC];
    UOP_DEPTH = cfg.depth[VTA_MEM_UOP];
    fn();
    VTARuntimeShutdown();
    exit(g_failures ? 1 : 0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void run_in_child(const char *config, suite_fn fn) { run_in_child_env(config, fn, 0); }

static void test_runtime_blocked_gemm_default(void **state) {
  run_in_child("configs/vta_default.json", gemm_suite);
}
static void test_runtime_blocked_gemm_batch4(void **state) {
  run_in_child("configs/batch4.json", gemm_suite);
}
static void test_runtime_blocked_gemm_block32(void **state) {
  run_in_child("configs/block32.json", gemm_suite);
}
static void test_runtime_alu_every_opcode_default(void **state) {
  run_in_child("configs/vta_default.json", alu_suite);
}
static void test_runtime_alu_every_opcode_batch4(void **state) {
  run_in_child("configs/batch4.json", alu_suite);
}
static void test_runtime_alu_every_opcode_block32(void **state) {
  run_in_child("configs/block32.json", alu_suite);
}

/* VTABufferCopy moves data between host memory and buffers in every direction, and the
 * device sees it (also with host shadows, where the copy must flush or invalidate). */
static int buffer_copy_program(void) {
  struct vta_device *d = vta_driver_device();
  CHECK(d != NULL);
  uint8_t *a = VTABufferAlloc(64), *b = VTABufferAlloc(64);
  CHECK(a && b);
  uint8_t host[64], back[64];
  for (int i = 0; i < 64; i++) host[i] = (uint8_t)(3 * i + 1);
  VTABufferCopy(host, 0, a, 8, 32, VTA_MEMCPY_H2D);
  uint64_t pa, pb;
  CHECK(vta_driver_phys_of(a, &pa) == 0 && vta_driver_phys_of(b, &pb) == 0);
  vta_error err;
  CHECK(vta_device_copy_from(d, back, pa + 8, 32, &err) == VTA_OK);
  CHECK(memcmp(back, host, 32) == 0);
  VTABufferCopy(a, 8, b, 16, 32, VTA_MEMCPY_D2D);
  CHECK(vta_device_copy_from(d, back, pb + 16, 32, &err) == VTA_OK);
  CHECK(memcmp(back, host, 32) == 0);
  /* A device-side change is seen by a device -> host copy. */
  CHECK(vta_device_copy_to(d, pb + 16, host + 32, 8, &err) == VTA_OK);
  memset(back, 0, sizeof back);
  VTABufferCopy(b, 16, back, 0, 8, VTA_MEMCPY_D2H);
  CHECK(memcmp(back, host + 32, 8) == 0);
  VTABufferFree(a);
  VTABufferFree(b);
  return 0;
}

static void test_runtime_buffer_copy_every_direction(void **state) {
  run_in_child_env("configs/vta_default.json", buffer_copy_program, 0);
  run_in_child_env("configs/vta_default.json", buffer_copy_program, 1);
}

/* Threads have their own command handles on the one device; their runs take turns. */
static void *alu_thread(void *arg) {
  g_seed = (uint32_t)(uintptr_t)arg;
  for (int op = 0; op < VTA_ALU_COUNT; op++) alu_test(op, op % 2, 4 * (int)B, 8 * (int)BO, 1);
  VTARuntimeShutdown();
  return NULL;
}

static int threads_program(void) {
  pthread_t t[3];
  for (uintptr_t i = 0; i < 3; i++)
    CHECK(pthread_create(&t[i], NULL, alu_thread, (void *)(i + 1)) == 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  return 0;
}

static void test_runtime_threads_have_own_handles(void **state) {
  run_in_child("configs/vta_default.json", threads_program);
}

/* A detected failure stays detected: a load from memory that is not a VTA buffer is reported,
 * the handle then ignores work, and VTASynchronize discards the stream. */
static int error_program(void) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  CHECK(cmd != NULL);
  int8_t host_only[64];
  VTALoadBuffer2D(cmd, host_only, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_INP);
  uint64_t count;
  const char *msg = vta_jit_last_error(cmd, &count);
  CHECK(count == 1 && msg && strstr(msg, "VTALoadBuffer2D") && strstr(msg, "not a buffer"));
  static void *h;
  alu_sig sig = {VTA_ALU_ADD, 1, 1, 1, 1};
  CHECK(VTAPushALUOp(&h, alu_finit, &sig, sizeof sig) != 0); /* ignored until sync */
  VTASynchronize(cmd, 0);
  const vta_jit_counters *c = vta_jit_get_counters(cmd);
  CHECK(c->syncs == 0);
  /* VTAUopPush outside a finit is an error too; after a sync the handle works again. */
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  vta_jit_last_error(cmd, &count);
  CHECK(count == 2);
  VTASynchronize(cmd, 0);
  CHECK(VTAPushALUOp(&h, alu_finit, &sig, sizeof sig) == 0);
  VTASynchronize(cmd, 0);
  CHECK(c->syncs == 1);
  return 0;
}

static void test_runtime_errors_discard_the_stream(void **state) {
  run_in_child("configs/vta_default.json", error_program);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runtime_blocked_gemm_default),
      cmocka_unit_test(test_runtime_blocked_gemm_batch4),
      cmocka_unit_test(test_runtime_blocked_gemm_block32),
      cmocka_unit_test(test_runtime_alu_every_opcode_default),
      cmocka_unit_test(test_runtime_alu_every_opcode_batch4),
      cmocka_unit_test(test_runtime_alu_every_opcode_block32),
      cmocka_unit_test(test_runtime_errors_discard_the_stream),
      cmocka_unit_test(test_runtime_threads_have_own_handles),
      cmocka_unit_test(test_runtime_buffer_copy_every_direction),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
