/* runtime.c - the published VTA runtime API (vta/runtime.h) on the native JIT.
 *
 * The design idea: a VTACommandHandle is simply a vta_jit *, one per thread, created on first
 * use on the process-wide device of vta/driver.h, so the published functions are thin
 * translations and a program can mix them with the native API. Data buffers are VTAMemAlloc's
 * host pointers; their device addresses come from the driver's buffer table.
 *
 * Two things have no counterpart in the native API and live here: the kernel being recorded
 * by a finit callback (VTAUopPush and the loop calls name no handle, so it is thread-local,
 * set only while VTAPushGEMMOp/VTAPushALUOp run finit), and error reporting: most published
 * calls return nothing, so an error is printed ("vta runtime: ..."), counted and kept on the
 * handle (vta_jit_last_error), and the handle ignores further work until VTASynchronize, which
 * discards the broken stream rather than run it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit_internal.h"
#include "vta/device.h"
#include "vta/driver.h"
#include "vta/runtime.h"

static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static _Thread_local vta_jit_kernel *t_recording;

/* Every JIT call that may reach the device (a run, an automatic synchronisation, freeing its
 * buffers) holds the driver's lock: all threads' handles share the one device. */
static void destroy_handle(void *p) {
  vta_driver_lock();
  vta_jit_destroy(p);
  vta_driver_unlock();
}
static void make_key(void) { pthread_key_create(&g_key, destroy_handle); }

static void fail(vta_jit *jit, const char *fn, const vta_error *e) {
  jit->errors++;
  jit->failed = 1;
  snprintf(jit->last_error.msg, sizeof jit->last_error.msg, "%s: %s", fn, e->msg);
  jit->last_error.status = e->status;
  fprintf(stderr, "vta runtime: %s\n", jit->last_error.msg);
}

static void fail_msg(vta_jit *jit, const char *fn, const char *msg) {
  vta_error e;
  vta_error_set(&e, VTA_ERR_INVALID, "%s", msg);
  fail(jit, fn, &e);
}

VTACommandHandle VTATLSCommandHandle(void) {
  pthread_once(&g_once, make_key);
  vta_jit *jit = pthread_getspecific(g_key);
  if (jit) return jit;
  vta_device *dev = vta_driver_device(); /* prints why when it cannot */
  if (!dev) return NULL;
  vta_error err;
  if (vta_jit_create(dev, NULL, &jit, &err)) {
    fprintf(stderr, "vta runtime: VTATLSCommandHandle: %s\n", err.msg);
    return NULL;
  }
  pthread_setspecific(g_key, jit);
  return jit;
}

void VTARuntimeShutdown(void) {
  pthread_once(&g_once, make_key);
  vta_jit *jit = pthread_getspecific(g_key);
  if (!jit) return;
  pthread_setspecific(g_key, NULL);
  t_recording = NULL;
  destroy_handle(jit);
}

/* The handle a published call works on; NULL (after printing) when there is none or it is
 * waiting for VTASynchronize after an error. */
static vta_jit *handle(VTACommandHandle cmd, const char *fn) {
  vta_jit *jit = cmd;
  if (!jit) {
    fprintf(stderr, "vta runtime: %s: no command handle (VTATLSCommandHandle failed)\n", fn);
    return NULL;
  }
  return jit->failed ? NULL : jit;
}

/* ---- Buffers ---- */

void *VTABufferAlloc(size_t size) { return VTAMemAlloc(size, VTA_CACHED); }

void VTABufferFree(void *buffer) { VTAMemFree(buffer); }

void *VTABufferCPUPtr(VTACommandHandle cmd, void *buffer) {
  (void)cmd;
  return buffer;
}

void VTABufferCopy(const void *from, size_t from_offset, void *to, size_t to_offset, size_t size,
                   int kind_mask) {
  const char *src = (const char *)from + from_offset;
  char *dst = (char *)to + to_offset;
  if (kind_mask & VTA_MEMCPY_D2H) /* the source is a device buffer */
    VTAInvalidateCache((void *)src, 0, (int)size);
  memcpy(dst, src, size);
  if (kind_mask & VTA_MEMCPY_H2D) /* the destination is a device buffer */
    VTAFlushCache(dst, 0, (int)size);
}

void VTAWriteBarrier(VTACommandHandle cmd, void *buffer, uint32_t elem_bits, uint32_t start,
                     uint32_t extent) {
  vta_jit *jit = cmd;
  if (jit && (jit->debug & VTA_DEBUG_SKIP_WRITE_BARRIER)) return;
  size_t eb = (elem_bits + 7) / 8;
  VTAInvalidateCache((char *)buffer + eb * start, 0, (int)(eb * extent));
}

void VTAReadBarrier(VTACommandHandle cmd, void *buffer, uint32_t elem_bits, uint32_t start,
                    uint32_t extent) {
  vta_jit *jit = cmd;
  if (jit && (jit->debug & VTA_DEBUG_SKIP_READ_BARRIER)) return;
  size_t eb = (elem_bits + 7) / 8;
  VTAFlushCache((char *)buffer + eb * start, 0, (int)(eb * extent));
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag) {
  if (cmd) vta_jit_set_debug(cmd, debug_flag);
}

/* ---- Loads and stores ---- */

static int buffer_phys(vta_jit *jit, const char *fn, const void *buf, uint64_t *phys) {
  if (vta_driver_phys_of(buf, phys) == 0) return 0;
  vta_error e;
  vta_error_set(&e, VTA_ERR_INVALID, "%p is not a buffer from VTABufferAlloc", buf);
  fail(jit, fn, &e);
  return -1;
}

void VTALoadBuffer2D(VTACommandHandle cmd, void *src_dram_addr, uint32_t src_elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type) {
  vta_jit *jit = handle(cmd, "VTALoadBuffer2D");
  uint64_t phys;
  if (!jit || buffer_phys(jit, "VTALoadBuffer2D", src_dram_addr, &phys)) return;
  vta_jit_xfer x = {.type = (vta_mem_type)dst_memory_type,
                    .sram = dst_sram_index,
                    .dram_phys = phys,
                    .dram_offset = src_elem_offset,
                    .x_size = x_size,
                    .y_size = y_size,
                    .x_stride = x_stride,
                    .x_pad_before = x_pad_before,
                    .y_pad_before = y_pad_before,
                    .x_pad_after = x_pad_after,
                    .y_pad_after = y_pad_after};
  if (dst_memory_type >= VTA_MEM_COUNT) x.type = VTA_MEM_COUNT; /* rejected by the JIT */
  vta_error err;
  vta_driver_lock();
  int rc = vta_jit_load(jit, &x, &err);
  vta_driver_unlock();
  if (rc) fail(jit, "VTALoadBuffer2D", &err);
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                      void *dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride) {
  vta_jit *jit = handle(cmd, "VTAStoreBuffer2D");
  uint64_t phys;
  if (!jit || buffer_phys(jit, "VTAStoreBuffer2D", dst_dram_addr, &phys)) return;
  vta_jit_xfer x = {.type = src_memory_type < VTA_MEM_COUNT ? (vta_mem_type)src_memory_type
                                                            : VTA_MEM_COUNT,
                    .sram = src_sram_index,
                    .dram_phys = phys,
                    .dram_offset = dst_elem_offset,
                    .x_size = x_size,
                    .y_size = y_size,
                    .x_stride = x_stride};
  vta_error err;
  vta_driver_lock();
  int rc = vta_jit_store(jit, &x, &err);
  vta_driver_unlock();
  if (rc) fail(jit, "VTAStoreBuffer2D", &err);
}

/* ---- Micro-op kernels ---- */

/* The handle and kernel a recording call works on. */
static vta_jit_kernel *recording(const char *fn) {
  vta_jit *jit = VTATLSCommandHandle();
  if (!jit) return NULL;
  if (jit->failed) return NULL;
  if (!t_recording) {
    fail_msg(jit, fn, "called outside a finit callback of VTAPushGEMMOp / VTAPushALUOp");
    return NULL;
  }
  return t_recording;
}

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  vta_jit_kernel *k = recording("VTAUopPush");
  if (!k) return;
  vta_jit_uop u = {.mode = mode > 1 ? VTA_JIT_MODE_COUNT : (vta_jit_mode)mode,
                   .reset = reset_out,
                   .dst = dst_index,
                   .src = src_index,
                   .wgt = wgt_index,
                   .alu_op = opcode < VTA_ALU_COUNT ? (vta_alu_op)opcode : VTA_ALU_COUNT,
                   .use_imm = use_imm,
                   .imm = imm_val};
  vta_error err;
  if (vta_jit_kernel_uop(k, &u, &err)) fail(k->jit, "VTAUopPush", &err);
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                     uint32_t wgt_factor) {
  vta_jit_kernel *k = recording("VTAUopLoopBegin");
  vta_error err;
  if (k && vta_jit_kernel_loop_begin(k, extent, dst_factor, src_factor, wgt_factor, &err))
    fail(k->jit, "VTAUopLoopBegin", &err);
}

void VTAUopLoopEnd(void) {
  vta_jit_kernel *k = recording("VTAUopLoopEnd");
  vta_error err;
  if (k && vta_jit_kernel_loop_end(k, &err)) fail(k->jit, "VTAUopLoopEnd", &err);
}

static int push_op(const char *fn, vta_jit_mode mode, void **uop_handle, int (*finit)(void *),
                   void *signature, int nbytes) {
  vta_jit *jit = VTATLSCommandHandle();
  if (!jit) return -1;
  if (jit->failed) return -1;
  if (!uop_handle || !finit || nbytes < 0) {
    fail_msg(jit, fn, "needs a micro-op handle, a finit function and nbytes >= 0");
    return -1;
  }
  if (t_recording) {
    fail_msg(jit, fn, "called from inside a finit callback");
    return -1;
  }
  vta_error err;
  /* The handle's address names the call site, as the published runtime's per-handle map does;
   * its contents are left to the caller. */
  vta_jit_kernel *k = vta_jit_kernel_find(jit, uop_handle, signature, (size_t)nbytes);
  if (!k) {
    if (vta_jit_kernel_begin(jit, uop_handle, signature, (size_t)nbytes, &k, &err)) {
      fail(jit, fn, &err);
      return -1;
    }
    t_recording = k;
    int rc = finit(signature);
    t_recording = NULL;
    if (jit->failed || rc != 0) {
      vta_jit_kernel_discard(k);
      if (!jit->failed) {
        vta_error_set(&err, VTA_ERR_INVALID, "finit returned %d", rc);
        fail(jit, fn, &err);
      }
      return -1;
    }
    if (vta_jit_kernel_end(k, &err)) {
      fail(jit, fn, &err);
      return -1;
    }
  }
  if (vta_jit_kernel_mode(k) != mode) {
    vta_error_set(&err, VTA_ERR_INVALID, "the kernel's micro-ops are %s, not %s",
                  mode == VTA_JIT_GEMM ? "ALU" : "GEMM", mode == VTA_JIT_GEMM ? "GEMM" : "ALU");
    fail(jit, fn, &err);
    return -1;
  }
  vta_driver_lock();
  int rc = vta_jit_push_kernel(jit, k, &err);
  vta_driver_unlock();
  if (rc) {
    fail(jit, fn, &err);
    return -1;
  }
  return 0;
}

int VTAPushGEMMOp(void **uop_handle, int (*finit)(void *), void *signature, int nbytes) {
  return push_op("VTAPushGEMMOp", VTA_JIT_GEMM, uop_handle, finit, signature, nbytes);
}

int VTAPushALUOp(void **uop_handle, int (*finit)(void *), void *signature, int nbytes) {
  return push_op("VTAPushALUOp", VTA_JIT_ALU, uop_handle, finit, signature, nbytes);
}

/* ---- Tokens and synchronisation ---- */

static int dep(VTACommandHandle cmd, int from_qid, int to_qid, int push) {
  const char *fn = push ? "VTADepPush" : "VTADepPop";
  vta_jit *jit = handle(cmd, fn);
  if (!jit) return -1;
  vta_error err;
  vta_driver_lock();
  int rc = push ? vta_jit_dep_push(jit, (vta_jit_stage)from_qid, (vta_jit_stage)to_qid, &err)
                : vta_jit_dep_pop(jit, (vta_jit_stage)from_qid, (vta_jit_stage)to_qid, &err);
  vta_driver_unlock();
  if (rc) {
    fail(jit, fn, &err);
    return -1;
  }
  return 0;
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  return dep(cmd, from_qid, to_qid, 1);
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  return dep(cmd, from_qid, to_qid, 0);
}

void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  vta_jit *jit = cmd;
  if (!jit) {
    fprintf(stderr, "vta runtime: VTASynchronize: no command handle\n");
    return;
  }
  if (jit->failed) {
    vta_jit_discard(jit);
    jit->failed = 0;
    fprintf(stderr, "vta runtime: VTASynchronize: stream discarded after the error above\n");
    return;
  }
  vta_error err;
  vta_driver_lock();
  int rc = vta_jit_sync(jit, wait_cycles, NULL, &err);
  vta_driver_unlock();
  if (rc) {
    fail(jit, "VTASynchronize", &err);
    jit->failed = 0; /* the stream is already gone; the next one starts clean */
  }
}
