/* test_stream.c - the JIT's instruction streams decode back to what was asked: fields of loads,
 * stores and kernel runs, and the dependency flags the token rules promise (pops on the next
 * instruction of the consuming stage, pushes on the producer's last instruction, no-ops where
 * nothing else can carry a token, FINISH after a pop-carrying no-op, FORCE_SERIAL chains).
 * Every closed stream is also run through a small token scheduler that checks it cannot
 * deadlock, leaves no token behind and reaches FINISH only after load and store are done. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vta/config.h"
#include "vta/device.h"
#include "vta/isa.h"
#include "vta/jit.h"

#define L VTA_JIT_STAGE_LOAD
#define C VTA_JIT_STAGE_COMPUTE
#define S VTA_JIT_STAGE_STORE

typedef struct fixture {
  vta_config cfg;
  vta_device *dev;
  vta_jit *jit;
  uint64_t buf; /* 64 KiB of device memory */
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  vta_error err;
  vta_config_default(&f->cfg);
  if (vta_device_open("fsim", &f->cfg, NULL, &f->dev, &err)) return -1;
  if (vta_device_alloc(f->dev, 65536, &f->buf, &err)) return -1;
  if (vta_jit_create(f->dev, NULL, &f->jit, &err)) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  vta_jit_destroy(f->jit);
  vta_device_close(f->dev);
  free(f);
  return 0;
}

/* Decodes the current stream. */
static size_t decode(fixture *f, vta_insn *out, size_t max) {
  const vta_insn_word *w;
  size_t n;
  vta_jit_stream(f->jit, &w, &n);
  assert_true(n <= max);
  for (size_t i = 0; i < n; i++) {
    vta_error err;
    assert_int_equal(vta_insn_decode(&f->cfg, &w[i], &out[i], &err), VTA_OK);
  }
  return n;
}

static int is_noop(const vta_insn *in) {
  return (in->f[VTA_F_OPCODE] == VTA_OP_LOAD || in->f[VTA_F_OPCODE] == VTA_OP_STORE) &&
         in->f[VTA_F_X_SIZE] == 0;
}

/* The token scheduler: compute runs whenever it can (so FINISH comes as early as the flags
 * allow), load and store only when compute is blocked. Returns 0 when every instruction ran,
 * FINISH came last with load and store done, and all queues are empty. */
static int schedule(const vta_insn *in, size_t n) {
  size_t idx[VTA_MOD_COUNT][4096], cnt[VTA_MOD_COUNT] = {0}, pc[VTA_MOD_COUNT] = {0};
  long tok[VTA_Q_COUNT] = {0};
  assert_true(n <= 4096);
  for (size_t i = 0; i < n; i++) {
    vta_module m = vta_insn_module(&in[i]);
    idx[m][cnt[m]++] = i;
  }
  for (;;) {
    int progressed = 0;
    for (int pass = 0; pass < 3 && !progressed; pass++) {
      vta_module m = pass == 0 ? VTA_MOD_COMPUTE : pass == 1 ? VTA_MOD_LOAD : VTA_MOD_STORE;
      if (pc[m] == cnt[m]) continue;
      const vta_insn *x = &in[idx[m][pc[m]]];
      /* Which queue each flag names for this module (ISA.md section 4). */
      int q_pop_prev = m == VTA_MOD_COMPUTE ? VTA_Q_LOAD_TO_COMPUTE : VTA_Q_COMPUTE_TO_STORE;
      int q_pop_next = m == VTA_MOD_COMPUTE ? VTA_Q_STORE_TO_COMPUTE : VTA_Q_COMPUTE_TO_LOAD;
      int q_push_prev = m == VTA_MOD_COMPUTE ? VTA_Q_COMPUTE_TO_LOAD : VTA_Q_STORE_TO_COMPUTE;
      int q_push_next = m == VTA_MOD_COMPUTE ? VTA_Q_COMPUTE_TO_STORE : VTA_Q_LOAD_TO_COMPUTE;
      int pp = m != VTA_MOD_LOAD && x->f[VTA_F_POP_PREV];
      int pn = m != VTA_MOD_STORE && x->f[VTA_F_POP_NEXT];
      if ((pp && tok[q_pop_prev] == 0) || (pn && tok[q_pop_next] == 0)) continue;
      if (x->f[VTA_F_OPCODE] == VTA_OP_FINISH) {
        if (pp || pn) return -2; /* FINISH may not pop */
        if (pc[VTA_MOD_LOAD] != cnt[VTA_MOD_LOAD] || pc[VTA_MOD_STORE] != cnt[VTA_MOD_STORE])
          return -3; /* FINISH before load/store completed */
      }
      if (pp) tok[q_pop_prev]--;
      if (pn) tok[q_pop_next]--;
      if (m != VTA_MOD_LOAD && x->f[VTA_F_PUSH_PREV]) tok[q_push_prev]++;
      if (m != VTA_MOD_STORE && x->f[VTA_F_PUSH_NEXT]) tok[q_push_next]++;
      pc[m]++;
      progressed = 1;
    }
    if (!progressed) break;
  }
  for (int m = 0; m < VTA_MOD_COUNT; m++)
    if (pc[m] != cnt[m]) return -1; /* deadlock */
  for (int q = 0; q < VTA_Q_COUNT; q++)
    if (tok[q] != 0) return -4; /* tokens left behind */
  return 0;
}

static vta_jit_xfer inp_load(fixture *f, uint32_t sram) {
  return (vta_jit_xfer){.type = VTA_MEM_INP, .sram = sram, .dram_phys = f->buf, .x_size = 1,
                        .y_size = 1, .x_stride = 1};
}

static vta_jit_kernel *reset_kernel(fixture *f, uint32_t dst) {
  vta_jit_kernel *k = vta_jit_kernel_find(f->jit, &reset_kernel, &dst, sizeof dst);
  if (k) return k;
  vta_error err;
  assert_int_equal(vta_jit_kernel_begin(f->jit, &reset_kernel, &dst, sizeof dst, &k, &err), 0);
  assert_int_equal(
      vta_jit_kernel_uop(k, &(vta_jit_uop){.mode = VTA_JIT_GEMM, .reset = 1, .dst = dst}, &err),
      0);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_OK);
  return k;
}

static void test_stream_load_fields_decode_back(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_xfer x = {.type = VTA_MEM_INP, .sram = 7, .dram_phys = f->buf, .dram_offset = 3,
                    .x_size = 4, .y_size = 2, .x_stride = 9, .x_pad_before = 1,
                    .y_pad_before = 2, .x_pad_after = 3, .y_pad_after = 1};
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  vta_jit_xfer st = {.type = VTA_MEM_OUT, .sram = 5, .dram_phys = f->buf, .dram_offset = 2,
                     .x_size = 3, .y_size = 2, .x_stride = 8};
  assert_int_equal(vta_jit_store(f->jit, &st, &err), VTA_OK);
  vta_insn in[8];
  assert_int_equal(decode(f, in, 8), 2);
  assert_int_equal(in[0].f[VTA_F_OPCODE], VTA_OP_LOAD);
  assert_int_equal(in[0].f[VTA_F_MEMORY_TYPE], VTA_MEM_INP);
  assert_int_equal(in[0].f[VTA_F_SRAM_BASE], 7);
  assert_int_equal(in[0].f[VTA_F_DRAM_BASE], f->buf / f->cfg.elem_bytes[VTA_MEM_INP] + 3);
  assert_int_equal(in[0].f[VTA_F_X_SIZE], 4);
  assert_int_equal(in[0].f[VTA_F_Y_SIZE], 2);
  assert_int_equal(in[0].f[VTA_F_X_STRIDE], 9);
  assert_int_equal(in[0].f[VTA_F_X_PAD_0], 1);
  assert_int_equal(in[0].f[VTA_F_Y_PAD_0], 2);
  assert_int_equal(in[0].f[VTA_F_X_PAD_1], 3);
  assert_int_equal(in[0].f[VTA_F_Y_PAD_1], 1);
  assert_int_equal(in[1].f[VTA_F_OPCODE], VTA_OP_STORE);
  assert_int_equal(in[1].f[VTA_F_MEMORY_TYPE], VTA_MEM_OUT);
  assert_int_equal(in[1].f[VTA_F_DRAM_BASE], f->buf / f->cfg.elem_bytes[VTA_MEM_OUT] + 2);
  assert_int_equal(in[1].f[VTA_F_X_STRIDE], 8);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(in[i].f[VTA_F_POP_PREV] | in[i].f[VTA_F_POP_NEXT] |
                         in[i].f[VTA_F_PUSH_PREV] | in[i].f[VTA_F_PUSH_NEXT],
                     0);
  }
}

static void test_stream_pop_attaches_to_next_insn_of_consumer(void **state) {
  fixture *f = *state;
  vta_error err;
  assert_int_equal(vta_jit_dep_pop(f->jit, L, C, &err), VTA_OK);
  vta_jit_xfer x = inp_load(f, 0);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK); /* load stage: not the consumer */
  assert_int_equal(vta_jit_push_kernel(f->jit, reset_kernel(f, 0), &err), VTA_OK);
  vta_insn in[8];
  size_t n = decode(f, in, 8);
  assert_int_equal(n, 3); /* load, LOAD UOP, GEMM */
  assert_int_equal(in[0].f[VTA_F_POP_PREV] | in[0].f[VTA_F_POP_NEXT], 0);
  /* The kernel's instruction carries the pop, not the LOAD UOP the JIT puts before it (the
   * micro-ops load while the token is awaited). */
  assert_int_equal(in[1].f[VTA_F_MEMORY_TYPE], VTA_MEM_UOP);
  assert_int_equal(in[1].f[VTA_F_POP_PREV], 0);
  assert_int_equal(in[2].f[VTA_F_OPCODE], VTA_OP_GEMM);
  assert_int_equal(in[2].f[VTA_F_POP_PREV], 1);
}

static void test_stream_push_goes_on_last_insn_of_producer(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_xfer x = inp_load(f, 0);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_push_kernel(f->jit, reset_kernel(f, 0), &err), VTA_OK);
  /* The last instruction overall is compute's GEMM; load's last is instruction 0. */
  assert_int_equal(vta_jit_dep_push(f->jit, L, C, &err), VTA_OK);
  vta_insn in[8];
  assert_int_equal(decode(f, in, 8), 3);
  assert_int_equal(in[0].f[VTA_F_PUSH_NEXT], 1);
  /* A second push of the same queue needs a no-op: the flag is taken. */
  assert_int_equal(vta_jit_dep_push(f->jit, L, C, &err), VTA_OK);
  assert_int_equal(decode(f, in, 8), 4);
  assert_true(is_noop(&in[3]));
  assert_int_equal(vta_insn_module(&in[3]), VTA_MOD_LOAD);
  assert_int_equal(in[3].f[VTA_F_PUSH_NEXT], 1);
  /* Compute -> store from the GEMM, compute -> load too: two flags on one instruction. */
  assert_int_equal(vta_jit_dep_push(f->jit, C, S, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_push(f->jit, C, L, &err), VTA_OK);
  assert_int_equal(decode(f, in, 8), 4);
  assert_int_equal(in[2].f[VTA_F_PUSH_NEXT], 1);
  assert_int_equal(in[2].f[VTA_F_PUSH_PREV], 1);
}

static void test_stream_push_without_producer_insn_adds_noop(void **state) {
  fixture *f = *state;
  vta_error err;
  assert_int_equal(vta_jit_dep_push(f->jit, S, C, &err), VTA_OK);
  vta_insn in[4];
  assert_int_equal(decode(f, in, 4), 1);
  assert_int_equal(in[0].f[VTA_F_OPCODE], VTA_OP_STORE);
  assert_int_equal(in[0].f[VTA_F_MEMORY_TYPE], VTA_MEM_OUT);
  assert_int_equal(in[0].f[VTA_F_X_SIZE], 0);
  assert_int_equal(in[0].f[VTA_F_PUSH_PREV], 1);
}

static void test_stream_second_pop_commits_the_first_as_noop(void **state) {
  fixture *f = *state;
  vta_error err;
  assert_int_equal(vta_jit_dep_pop(f->jit, C, L, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_pop(f->jit, C, L, &err), VTA_OK);
  vta_jit_xfer x = inp_load(f, 0);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  vta_insn in[4];
  assert_int_equal(decode(f, in, 4), 2);
  assert_true(is_noop(&in[0]));
  assert_int_equal(vta_insn_module(&in[0]), VTA_MOD_LOAD);
  assert_int_equal(in[0].f[VTA_F_POP_NEXT], 1);
  assert_false(is_noop(&in[1]));
  assert_int_equal(in[1].f[VTA_F_POP_NEXT], 1);
}

static void test_stream_push_follows_pending_pop_of_producer(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_xfer x = inp_load(f, 0);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  /* load waits for compute, then signals compute: the push must come after the pop, so it
   * cannot go on the earlier load; a no-op carries both. */
  assert_int_equal(vta_jit_dep_pop(f->jit, C, L, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_push(f->jit, L, C, &err), VTA_OK);
  vta_insn in[4];
  assert_int_equal(decode(f, in, 4), 2);
  assert_int_equal(in[0].f[VTA_F_PUSH_NEXT], 0);
  assert_true(is_noop(&in[1]));
  assert_int_equal(in[1].f[VTA_F_POP_NEXT], 1);
  assert_int_equal(in[1].f[VTA_F_PUSH_NEXT], 1);
}

static void test_stream_close_ends_in_barrier_and_finish(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_xfer x = inp_load(f, 0);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_push(f->jit, L, C, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_pop(f->jit, L, C, &err), VTA_OK);
  assert_int_equal(vta_jit_push_kernel(f->jit, reset_kernel(f, 0), &err), VTA_OK);
  assert_int_equal(vta_jit_dep_push(f->jit, C, S, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_pop(f->jit, C, S, &err), VTA_OK);
  vta_jit_xfer st = {.type = VTA_MEM_OUT, .dram_phys = f->buf, .x_size = 1, .y_size = 1,
                     .x_stride = 1};
  assert_int_equal(vta_jit_store(f->jit, &st, &err), VTA_OK);
  assert_int_equal(vta_jit_finish(f->jit, &err), VTA_OK);
  vta_insn in[16];
  size_t n = decode(f, in, 16);
  assert_true(n >= 6);
  assert_int_equal(in[n - 1].f[VTA_F_OPCODE], VTA_OP_FINISH);
  assert_int_equal(in[n - 1].f[VTA_F_POP_PREV] | in[n - 1].f[VTA_F_POP_NEXT], 0);
  /* The compute no-op before FINISH pops the barrier tokens of load and store. */
  assert_true(is_noop(&in[n - 2]));
  assert_int_equal(vta_insn_module(&in[n - 2]), VTA_MOD_COMPUTE);
  assert_int_equal(in[n - 2].f[VTA_F_POP_PREV], 1);
  assert_int_equal(in[n - 2].f[VTA_F_POP_NEXT], 1);
  assert_int_equal(schedule(in, n), 0);
  /* A closed stream takes nothing more until it is synchronised. */
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "closed"));
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
  assert_int_equal(vta_jit_get_counters(f->jit)->syncs, 1);
}

static void test_stream_rejects_queue_between_load_and_store(void **state) {
  fixture *f = *state;
  vta_error err;
  assert_int_equal(vta_jit_dep_push(f->jit, L, S, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "no token queue from load to store"));
  assert_int_equal(vta_jit_dep_pop(f->jit, 4, C, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "stages are 1 (load)"));
  assert_int_equal(vta_jit_dep_push(f->jit, C, C, &err), VTA_ERR_INVALID);
  vta_insn in[2];
  assert_int_equal(decode(f, in, 2), 0);
}

static void test_stream_bad_field_leaves_stream_unchanged(void **state) {
  fixture *f = *state;
  vta_error err;
  assert_int_equal(vta_jit_dep_pop(f->jit, C, L, &err), VTA_OK);
  vta_jit_xfer x = inp_load(f, 0);
  x.x_pad_before = 16; /* 4-bit field */
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "x_pad_0 = 16"));
  vta_insn in[4];
  assert_int_equal(decode(f, in, 4), 0);
  /* The pending pop is still there for the next load. */
  x.x_pad_before = 0;
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  assert_int_equal(decode(f, in, 4), 1);
  assert_int_equal(in[0].f[VTA_F_POP_NEXT], 1);
}

static void test_stream_pop_before_any_push_is_reported(void **state) {
  fixture *f = *state;
  vta_error err;
  assert_int_equal(vta_jit_dep_pop(f->jit, C, L, &err), VTA_OK);
  vta_jit_xfer x = inp_load(f, 0);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_ERR_DEADLOCK);
  assert_non_null(strstr(err.msg, "no earlier push"));
  /* The stream was dropped; a fresh program runs. */
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
}

static void test_stream_tokens_carry_across_sync(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_xfer x = inp_load(f, 0);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_push(f->jit, L, C, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_pop(f->jit, L, C, &err), VTA_OK); /* pending across the sync */
  assert_int_equal(vta_jit_finish(f->jit, &err), VTA_OK);
  vta_insn in[16];
  size_t n = decode(f, in, 16);
  assert_int_equal(schedule(in, n), 0); /* the outstanding token is drained */
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
  /* The next stream starts by pushing it again; the pending pop lands on the GEMM. */
  n = decode(f, in, 16);
  assert_int_equal(n, 1);
  assert_true(is_noop(&in[0]));
  assert_int_equal(vta_insn_module(&in[0]), VTA_MOD_LOAD);
  assert_int_equal(in[0].f[VTA_F_PUSH_NEXT], 1);
  assert_int_equal(vta_jit_push_kernel(f->jit, reset_kernel(f, 0), &err), VTA_OK);
  n = decode(f, in, 16);
  assert_int_equal(in[1].f[VTA_F_MEMORY_TYPE], VTA_MEM_UOP);
  assert_int_equal(in[1].f[VTA_F_POP_PREV], 0);
  assert_int_equal(in[2].f[VTA_F_POP_PREV], 1);
  assert_int_equal(vta_jit_finish(f->jit, &err), VTA_OK);
  n = decode(f, in, 16);
  assert_int_equal(schedule(in, n), 0);
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
}

static void test_stream_force_serial_chains_every_insn(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_set_debug(f->jit, VTA_JIT_FORCE_SERIAL);
  vta_jit_xfer x = inp_load(f, 0);
  vta_jit_xfer st = {.type = VTA_MEM_OUT, .dram_phys = f->buf, .x_size = 1, .y_size = 1,
                     .x_stride = 1};
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_push(f->jit, L, C, &err), VTA_OK); /* ignored */
  assert_int_equal(vta_jit_push_kernel(f->jit, reset_kernel(f, 0), &err), VTA_OK);
  assert_int_equal(vta_jit_store(f->jit, &st, &err), VTA_OK);
  assert_int_equal(vta_jit_load(f->jit, &x, &err), VTA_OK); /* store -> load: via compute */
  assert_int_equal(vta_jit_store(f->jit, &st, &err), VTA_OK); /* load -> store: via compute */
  assert_int_equal(vta_jit_finish(f->jit, &err), VTA_OK);
  vta_insn in[16];
  size_t n = decode(f, in, 16);
  /* load, uop, gemm, store, noop(C), load, noop(C), store, noop(C), finish */
  assert_int_equal(n, 10);
  assert_int_equal(in[0].f[VTA_F_PUSH_NEXT], 1);
  assert_int_equal(in[1].f[VTA_F_POP_PREV], 1);
  assert_int_equal(in[2].f[VTA_F_PUSH_NEXT], 1);
  assert_int_equal(in[3].f[VTA_F_POP_PREV], 1);
  assert_int_equal(in[3].f[VTA_F_PUSH_PREV], 1);
  assert_true(is_noop(&in[4]) && vta_insn_module(&in[4]) == VTA_MOD_COMPUTE);
  assert_int_equal(in[4].f[VTA_F_POP_NEXT], 1);
  assert_int_equal(in[4].f[VTA_F_PUSH_PREV], 1);
  assert_int_equal(in[5].f[VTA_F_POP_NEXT], 1);
  assert_int_equal(in[6].f[VTA_F_POP_PREV], 1);
  assert_int_equal(in[6].f[VTA_F_PUSH_NEXT], 1);
  assert_int_equal(in[9].f[VTA_F_OPCODE], VTA_OP_FINISH);
  assert_int_equal(schedule(in, n), 0);
  /* Serial: at most one module has work at any time; the scheduler's order is the stream's. */
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
}

static void test_stream_dump_reassembles_to_the_words_run(void **state) {
  fixture *f = *state;
  vta_error err;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  vta_jit *jit;
  vta_jit_options opt = {.debug = VTA_JIT_DUMP_INSN, .dump = mem};
  assert_int_equal(vta_jit_create(f->dev, &opt, &jit, &err), VTA_OK);
  vta_jit_xfer x = inp_load(f, 3);
  assert_int_equal(vta_jit_load(jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_push(jit, L, C, &err), VTA_OK);
  assert_int_equal(vta_jit_dep_pop(jit, L, C, &err), VTA_OK);
  assert_int_equal(vta_jit_finish(jit, &err), VTA_OK);
  const vta_insn_word *w;
  size_t n;
  vta_jit_stream(jit, &w, &n);
  vta_insn_word *copy = malloc(n * sizeof *copy);
  memcpy(copy, w, n * sizeof *copy);
  assert_int_equal(vta_jit_sync(jit, 0, NULL, &err), VTA_OK);
  fclose(mem);
  assert_non_null(strstr(text, "# stream 0:"));
  vta_insn_word *back;
  size_t nback;
  assert_int_equal(vta_asm(&f->cfg, text, "dump", &back, &nback, &err), VTA_OK);
  assert_int_equal(nback, n);
  assert_memory_equal(back, copy, n * sizeof *copy);
  free(back);
  free(copy);
  free(text);
  vta_jit_destroy(jit);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_stream_load_fields_decode_back, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stream_pop_attaches_to_next_insn_of_consumer, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_push_goes_on_last_insn_of_producer, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_push_without_producer_insn_adds_noop, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_second_pop_commits_the_first_as_noop, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_push_follows_pending_pop_of_producer, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_close_ends_in_barrier_and_finish, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_rejects_queue_between_load_and_store, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_bad_field_leaves_stream_unchanged, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_pop_before_any_push_is_reported, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_tokens_carry_across_sync, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stream_force_serial_chains_every_insn, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stream_dump_reassembles_to_the_words_run, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
