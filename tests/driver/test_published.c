/* test_published.c - the published driver API (vta/driver.h): buffers with physical addresses
 * (also for pointers inside a buffer), copies, a hand-encoded stream run with VTADeviceRun (0),
 * a timeout (1) and a failing stream (2, with the message kept), the host-shadow mode of
 * backends without a host mapping (flush and invalidate really move the data), and a device
 * that cannot be opened. The runs are repeated with VTA_BACKEND=rtl (the Verilator model of
 * hw/): same results, same return codes.
 *
 * The driver has one process-wide device configured from the environment, so every case runs
 * in a child process (fork) and reports through its exit status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "vta/config.h"
#include "vta/device.h"
#include "vta/driver.h"
#include "vta/isa.h"

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

static void run_in_child(int (*fn)(void), const char *shadow, const char *backend) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    unsetenv("VTA_CONFIG");
    if (shadow) setenv("VTA_DRIVER_SHADOW", shadow, 1);
    else unsetenv("VTA_DRIVER_SHADOW");
    if (backend) setenv("VTA_BACKEND", backend, 1);
    else unsetenv("VTA_BACKEND");
    int rc = fn();
    /* SystemC's coroutines leave AddressSanitizer without the bounds of the main stack (its
     * warning "ignoring requested __asan_handle_no_return"), so LeakSanitizer at exit() would
     * report everything only the stack still points to (cmocka's state): the sc child leaves
     * without the exit handlers. */
    if (backend && strcmp(backend, "sc") == 0) {
      fflush(NULL);
      _exit(rc);
    }
    exit(rc);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* Writes an encoded instruction (the ISA's encoder, never hand-packed bits). */
static int put(const vta_config *cfg, uint8_t *at, const vta_insn *in) {
  vta_insn_word w;
  vta_error err;
  if (vta_insn_encode(cfg, in, &w, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  vta_insn_word_store(&w, at);
  return 0;
}

/* LOAD ACC (1 element), ALU ADD imm over it, STORE, FINISH; tokens compute->store and back. */
static int build_add_program(const vta_config *cfg, uint8_t *insns, uint32_t *uops,
                             vta_phy_addr_t uop_phys, vta_phy_addr_t acc_phys,
                             vta_phy_addr_t out_phys, int16_t imm) {
  vta_uop u = {0, 0, 0};
  vta_error err;
  CHECK(vta_uop_encode(cfg, &u, &uops[0], &err) == VTA_OK);
  vta_insn in[5];
  memset(in, 0, sizeof in);
  in[0].f[VTA_F_OPCODE] = VTA_OP_LOAD;
  in[0].f[VTA_F_MEMORY_TYPE] = VTA_MEM_UOP;
  in[0].f[VTA_F_DRAM_BASE] = uop_phys / VTA_UOP_BYTES;
  in[0].f[VTA_F_Y_SIZE] = 1;
  in[0].f[VTA_F_X_SIZE] = 1;
  in[0].f[VTA_F_X_STRIDE] = 1;
  in[1].f[VTA_F_OPCODE] = VTA_OP_LOAD;
  in[1].f[VTA_F_MEMORY_TYPE] = VTA_MEM_ACC;
  in[1].f[VTA_F_DRAM_BASE] = acc_phys / cfg->elem_bytes[VTA_MEM_ACC];
  in[1].f[VTA_F_Y_SIZE] = 1;
  in[1].f[VTA_F_X_SIZE] = 1;
  in[1].f[VTA_F_X_STRIDE] = 1;
  in[2].f[VTA_F_OPCODE] = VTA_OP_ALU;
  in[2].f[VTA_F_UOP_END] = 1;
  in[2].f[VTA_F_ITER_OUT] = 1;
  in[2].f[VTA_F_ITER_IN] = 1;
  in[2].f[VTA_F_ALU_OPCODE] = VTA_ALU_ADD;
  in[2].f[VTA_F_USE_IMM] = 1;
  in[2].f[VTA_F_IMM] = imm;
  in[2].f[VTA_F_PUSH_NEXT] = 1;
  in[3].f[VTA_F_OPCODE] = VTA_OP_STORE;
  in[3].f[VTA_F_MEMORY_TYPE] = VTA_MEM_OUT;
  in[3].f[VTA_F_DRAM_BASE] = out_phys / cfg->elem_bytes[VTA_MEM_OUT];
  in[3].f[VTA_F_Y_SIZE] = 1;
  in[3].f[VTA_F_X_SIZE] = 1;
  in[3].f[VTA_F_X_STRIDE] = 1;
  in[3].f[VTA_F_POP_PREV] = 1;
  in[3].f[VTA_F_PUSH_PREV] = 1;
  in[4].f[VTA_F_OPCODE] = VTA_OP_LOAD; /* compute no-op: FINISH may not pop */
  in[4].f[VTA_F_MEMORY_TYPE] = VTA_MEM_UOP;
  in[4].f[VTA_F_POP_NEXT] = 1;
  for (int i = 0; i < 5; i++) CHECK(put(cfg, insns + 16 * i, &in[i]) == 0);
  vta_insn fin;
  memset(&fin, 0, sizeof fin);
  fin.f[VTA_F_OPCODE] = VTA_OP_FINISH;
  CHECK(put(cfg, insns + 16 * 5, &fin) == 0);
  return 0;
}

static int buffers_and_run(void) {
  vta_config cfg;
  vta_config_default(&cfg);
  uint8_t *insns = VTAMemAlloc(6 * VTA_INSN_BYTES, VTA_CACHED);
  uint32_t *uops = VTAMemAlloc(4, VTA_CACHED);
  int32_t *acc = VTAMemAlloc(cfg.elem_bytes[VTA_MEM_ACC], VTA_CACHED);
  int8_t *out = VTAMemAlloc(cfg.elem_bytes[VTA_MEM_OUT], VTA_NOT_CACHED);
  CHECK(insns && uops && acc && out);
  vta_phy_addr_t pa = VTAMemGetPhyAddr(acc);
  CHECK(pa != 0 && pa % VTA_PAGE_BYTES == 0);
  CHECK(VTAMemGetPhyAddr((char *)acc + 8) == pa + 8); /* inside a buffer */
  int dummy;
  CHECK(VTAMemGetPhyAddr(&dummy) == 0); /* not a buffer: 0 and a message */
  CHECK(vta_driver_last_error() && strstr(vta_driver_last_error(), "VTAMemGetPhyAddr"));
  int32_t in[64];
  for (int i = 0; i < 16; i++) in[i] = 1000 * i - 7000;
  VTAMemCopyFromHost(acc, in, 16 * sizeof(int32_t));
  VTAFlushCache(acc, pa, 16 * sizeof(int32_t));
  CHECK(build_add_program(&cfg, insns, uops, VTAMemGetPhyAddr(uops), pa, VTAMemGetPhyAddr(out),
                          -5) == 0);
  VTAFlushCache(insns, VTAMemGetPhyAddr(insns), 6 * VTA_INSN_BYTES);
  VTAFlushCache(uops, VTAMemGetPhyAddr(uops), 4);
  VTADeviceHandle dev = VTADeviceAlloc();
  CHECK(dev != NULL);
  CHECK(VTADeviceRun(dev, VTAMemGetPhyAddr(insns), 6, 0) == 0);
  VTAInvalidateCache(out, VTAMemGetPhyAddr(out), 16);
  int8_t got[16];
  VTAMemCopyToHost(got, out, 16);
  for (int i = 0; i < 16; i++) CHECK(got[i] == (int8_t)(uint8_t)(uint32_t)(in[i] - 5));
  /* A budget of 2 instructions cannot reach FINISH: timeout. */
  CHECK(VTADeviceRun(dev, VTAMemGetPhyAddr(insns), 6, 2) == 1);
  /* A stream that is not whole instructions' worth of valid words fails with 2. */
  memset(insns, 0xff, 16);
  VTAFlushCache(insns, VTAMemGetPhyAddr(insns), 16);
  CHECK(VTADeviceRun(dev, VTAMemGetPhyAddr(insns), 6, 0) == 2);
  CHECK(strstr(vta_driver_last_error(), "VTADeviceRun") != NULL);
  CHECK(VTADeviceRun(NULL, 0, 1, 0) == 2);
  VTADeviceFree(dev);
  VTAMemFree(insns);
  VTAMemFree(uops);
  VTAMemFree(acc);
  VTAMemFree(out);
  VTAMemFree(&dummy); /* reported, not freed */
  CHECK(strstr(vta_driver_last_error(), "VTAMemFree") != NULL);
  return 0;
}

static void test_published_buffers_copies_and_runs(void **state) {
  run_in_child(buffers_and_run, NULL, NULL);
}

/* With shadows, the device sees host writes only after VTAFlushCache and the host sees device
 * writes only after VTAInvalidateCache, exactly as on a non-coherent board. */
static int shadow_semantics(void) {
  vta_config cfg;
  vta_config_default(&cfg);
  struct vta_device *d = vta_driver_device();
  CHECK(d != NULL);
  uint8_t *b = VTAMemAlloc(256, VTA_CACHED);
  CHECK(b != NULL);
  uint64_t phys = VTAMemGetPhyAddr(b);
  CHECK(vta_device_host_ptr(d, phys) != (void *)b); /* a shadow, not device memory */
  memset(b, 0x5a, 256);
  uint8_t dev[256];
  vta_error err;
  CHECK(vta_device_copy_from(d, dev, phys, 256, &err) == VTA_OK);
  CHECK(dev[0] == 0); /* not flushed yet */
  VTAFlushCache(b + 16, (vta_phy_addr_t)phys + 16, 32);
  CHECK(vta_device_copy_from(d, dev, phys, 256, &err) == VTA_OK);
  CHECK(dev[15] == 0 && dev[16] == 0x5a && dev[47] == 0x5a && dev[48] == 0);
  memset(dev, 0x33, sizeof dev);
  CHECK(vta_device_copy_to(d, phys, dev, 256, &err) == VTA_OK);
  CHECK(b[100] == 0x5a); /* not invalidated yet */
  VTAInvalidateCache(b, (vta_phy_addr_t)phys, 256);
  CHECK(b[100] == 0x33);
  /* The explicit copies always reach the device. */
  uint8_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  VTAMemCopyFromHost(b + 8, src, 8);
  CHECK(vta_device_copy_from(d, dev, phys + 8, 8, &err) == VTA_OK);
  CHECK(memcmp(dev, src, 8) == 0);
  /* And the full program of the coherent case works with explicit flushes. */
  VTAMemFree(b);
  return buffers_and_run();
}

static void test_published_shadow_buffers_need_flush_and_invalidate(void **state) {
  run_in_child(shadow_semantics, "1", NULL);
}

static int unknown_backend(void) {
  CHECK(VTAMemAlloc(64, VTA_CACHED) == NULL);
  const char *e = vta_driver_last_error();
  CHECK(e && strstr(e, "cannot open the nonesuch device") && strstr(e, "unknown backend"));
  CHECK(VTADeviceAlloc() == NULL);
  return 0;
}

static void test_published_buffers_copies_and_runs_rtl(void **state) {
  run_in_child(buffers_and_run, NULL, "rtl");
}

static void test_published_shadow_buffers_rtl(void **state) {
  run_in_child(shadow_semantics, "1", "rtl");
}

/* The SystemC model through the published API, as VTA_BACKEND=sc selects it. */
static void test_published_buffers_copies_and_runs_sc(void **state) {
  run_in_child(buffers_and_run, NULL, "sc");
}

static void test_published_unknown_backend_is_reported(void **state) {
  run_in_child(unknown_backend, NULL, "nonesuch");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_published_buffers_copies_and_runs),
      cmocka_unit_test(test_published_shadow_buffers_need_flush_and_invalidate),
      cmocka_unit_test(test_published_buffers_copies_and_runs_rtl),
      cmocka_unit_test(test_published_buffers_copies_and_runs_sc),
      cmocka_unit_test(test_published_shadow_buffers_rtl),
      cmocka_unit_test(test_published_unknown_backend_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
