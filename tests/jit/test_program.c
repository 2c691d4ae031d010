/* test_program.c - accelerator programs (jit/program.c): the text form matches a golden text
 * and reads back, the binary form round-trips and rejects truncation and garbage, the builder
 * refuses operations that could not run (naming what is wrong), the whole-program check finds
 * pops without pushes, a replayed program computes what C computes, a program refuses a device
 * of another shape, and equal kernels are shared by programs on one JIT. */
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
#include "vta/jit.h"
#include "vta/program.h"

#define L VTA_JIT_STAGE_LOAD
#define C VTA_JIT_STAGE_COMPUTE
#define S VTA_JIT_STAGE_STORE

/* The default configuration as the program text states it. */
#define CONFIG_LINE                                                                              \
  "config log_batch=0 log_block_in=4 log_block_out=4 log_inp_width=3 log_wgt_width=3 "            \
  "log_acc_width=5 log_uop_buff_size=15 log_inp_buff_size=15 log_wgt_buff_size=18 "               \
  "log_acc_buff_size=17\n"

static char *to_text(const vta_program *p) {
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  vta_program_print(p, f);
  fclose(f);
  return text;
}

/* C[16 x 16] = A[16 x 32] * W[16 x 32]^T on the default configuration: A is two INP elements
 * in a row, W two WGT elements; the GEMM kernel loops over the two blocks of K. */
static vta_program *gemm_program(const vta_config *cfg) {
  vta_program *p;
  vta_error err;
  assert_int_equal(vta_program_create(cfg, &p, &err), VTA_OK);
  vta_uop reset_u = {0, 0, 0}, gemm_u = {0, 0, 0};
  vta_prog_kernel reset = {.mode = VTA_JIT_GEMM, .reset = 1, .nuops = 1, .uops = &reset_u};
  vta_prog_kernel gemm = {.mode = VTA_JIT_GEMM, .nloops = 1, .loop = {{2, 0, 1, 1}}, .nuops = 1,
                          .uops = &gemm_u};
  vta_uop alu_u = {0, 0, 0};
  vta_prog_kernel shr = {.mode = VTA_JIT_ALU, .alu_op = VTA_ALU_SHR, .use_imm = 1, .imm = 3,
                         .nuops = 1, .uops = &alu_u};
  uint32_t kr, kg, ks;
  assert_int_equal(vta_program_add_kernel(p, &reset, &kr, &err), VTA_OK);
  assert_int_equal(vta_program_add_kernel(p, &gemm, &kg, &err), VTA_OK);
  assert_int_equal(vta_program_add_kernel(p, &shr, &ks, &err), VTA_OK);
  vta_prog_xfer a = {.type = VTA_MEM_INP, .buf = VTA_PROG_BUF_INPUT, .x_size = 2, .y_size = 1,
                     .x_stride = 2};
  vta_prog_xfer w = {.type = VTA_MEM_WGT, .buf = VTA_PROG_BUF_WEIGHT, .x_size = 2, .y_size = 1,
                     .x_stride = 2};
  vta_prog_xfer c = {.type = VTA_MEM_OUT, .buf = VTA_PROG_BUF_OUTPUT, .x_size = 1, .y_size = 1,
                     .x_stride = 1};
  assert_int_equal(vta_program_add_load(p, &a, &err), VTA_OK);
  assert_int_equal(vta_program_add_load(p, &w, &err), VTA_OK);
  assert_int_equal(vta_program_add_push(p, L, C, &err), VTA_OK);
  assert_int_equal(vta_program_add_pop(p, L, C, &err), VTA_OK);
  assert_int_equal(vta_program_add_run(p, kr, &err), VTA_OK);
  assert_int_equal(vta_program_add_run(p, kg, &err), VTA_OK);
  assert_int_equal(vta_program_add_run(p, ks, &err), VTA_OK);
  assert_int_equal(vta_program_add_push(p, C, S, &err), VTA_OK);
  assert_int_equal(vta_program_add_pop(p, C, S, &err), VTA_OK);
  assert_int_equal(vta_program_add_store(p, &c, &err), VTA_OK);
  assert_int_equal(vta_program_add_sync(p, &err), VTA_OK);
  assert_int_equal(vta_program_check(p, &err), VTA_OK);
  return p;
}

static const char *const k_golden =
    "vta-program 1\n"
    CONFIG_LINE
    "buffer input 32\n"
    "buffer weight 512\n"
    "buffer output 16\n"
    "kernel 0 gemm reset\n"
    "  uop 0 0 0\n"
    "end\n"
    "kernel 1 gemm\n"
    "  loop 2 0 1 1\n"
    "  uop 0 0 0\n"
    "end\n"
    "kernel 2 alu shr imm=3\n"
    "  uop 0 0 0\n"
    "end\n"
    "load inp sram=0 buf=input off=0 x=2 y=1 stride=2\n"
    "load wgt sram=0 buf=weight off=0 x=2 y=1 stride=2\n"
    "push load compute\n"
    "pop load compute\n"
    "run 0\n"
    "run 1\n"
    "run 2\n"
    "push compute store\n"
    "pop compute store\n"
    "store sram=0 buf=output off=0 x=1 y=1 stride=1\n"
    "sync\n";

static void test_program_text_matches_golden_and_reads_back(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_program *p = gemm_program(&cfg);
  char *text = to_text(p);
  assert_string_equal(text, k_golden);
  vta_program *q;
  vta_error err;
  int rc = vta_program_parse(text, "golden", &q, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, VTA_OK);
  char *again = to_text(q);
  assert_string_equal(again, text);
  /* Comments, blank lines and padding are accepted. */
  const char *padded =
      "# a comment\n\nvta-program 1   # header\n"
      CONFIG_LINE
      "kernel 0 alu max\n  loop 3 1 2 0\n  uop 4 5 0\nend\n"
      "load acc sram=7 buf=bias off=2 x=3 y=2 stride=3 pad=1,0,0,2\n"
      "run 0\nsync\n";
  vta_program *r;
  rc = vta_program_parse(padded, "padded", &r, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, VTA_OK);
  assert_int_equal(vta_program_op_count(r), 3);
  const vta_prog_op *op = vta_program_op(r, 0);
  assert_int_equal(op->x.type, VTA_MEM_ACC);
  assert_int_equal(op->x.y_pad_before, 1);
  assert_int_equal(op->x.x_pad_after, 2);
  const vta_prog_kernel *k = vta_program_kernel(r, 0);
  assert_int_equal(k->alu_op, VTA_ALU_MAX);
  assert_int_equal(k->loop[0].src, 2);
  assert_int_equal(vta_program_buffer_size(r, VTA_PROG_BUF_BIAS), (2 + 3 + 3) * 64);
  /* SHRCLIP with a vector operand keeps its immediate (the lower bound) in the text as lo=N,
   * and the builder keeps two kernels that differ only in it apart. */
  const char *clip =
      "vta-program 1\n"
      CONFIG_LINE
      "kernel 0 alu shrclip lo=-5\n  uop 1 0 0\nend\n"
      "kernel 1 alu shrclip lo=300\n  uop 1 0 0\nend\n"
      "kernel 2 alu shrclip imm=7\n  uop 1 0 0\nend\n"
      "kernel 3 alu shr\n  uop 1 0 0\nend\n"
      "run 0\nrun 1\nrun 2\nrun 3\nsync\n";
  vta_program *s;
  rc = vta_program_parse(clip, "clip", &s, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, VTA_OK);
  assert_int_equal(vta_program_kernel(s, 0)->use_imm, 0);
  assert_int_equal(vta_program_kernel(s, 0)->imm, -5);
  assert_int_equal(vta_program_kernel(s, 1)->imm, 300);
  assert_int_equal(vta_program_kernel(s, 2)->use_imm, 1);
  char *clip_text = to_text(s);
  assert_non_null(strstr(clip_text, "kernel 0 alu shrclip lo=-5\n"));
  assert_non_null(strstr(clip_text, "kernel 1 alu shrclip lo=300\n"));
  assert_non_null(strstr(clip_text, "kernel 2 alu shrclip imm=7\n"));
  assert_non_null(strstr(clip_text, "kernel 3 alu shr\n"));
  free(clip_text);
  vta_uop cu = {1, 0, 0};
  vta_prog_kernel c1 = {.mode = VTA_JIT_ALU, .alu_op = VTA_ALU_SHRCLIP, .imm = 3, .nuops = 1,
                        .uops = &cu};
  vta_prog_kernel c2 = c1;
  c2.imm = 4;
  uint32_t i1, i2;
  assert_int_equal(vta_program_add_kernel(s, &c1, &i1, &err), VTA_OK);
  assert_int_equal(vta_program_add_kernel(s, &c2, &i2, &err), VTA_OK);
  assert_int_not_equal(i1, i2);
  vta_program_destroy(s);
  free(text);
  free(again);
  vta_program_destroy(p);
  vta_program_destroy(q);
  vta_program_destroy(r);
}

static void expect_parse_error(const char *body, int line, const char *what) {
  char text[2048];
  snprintf(text, sizeof text,
           "vta-program 1\n"
           "config log_batch=0 log_block_in=4 log_block_out=4 log_inp_width=3 log_wgt_width=3 "
           "log_acc_width=5 log_uop_buff_size=15 log_inp_buff_size=15 log_wgt_buff_size=18 "
           "log_acc_buff_size=17\n%s",
           body);
  vta_program *p = NULL;
  vta_error err;
  assert_int_not_equal(vta_program_parse(text, "bad.prog", &p, &err), VTA_OK);
  assert_null(p);
  char where[64];
  snprintf(where, sizeof where, "bad.prog:%d:", line);
  if (line && !strstr(err.msg, where)) fprintf(stderr, "message: %s\n", err.msg);
  if (line) assert_non_null(strstr(err.msg, where));
  if (!strstr(err.msg, what)) fprintf(stderr, "message: %s\n", err.msg);
  assert_non_null(strstr(err.msg, what));
}

static void test_program_parse_errors_name_line_and_problem(void **state) {
  expect_parse_error("frobnicate\nsync\n", 3, "unknown operation 'frobnicate'");
  expect_parse_error("load inp sram=0 buf=input off=0 x=1 y=1\nsync\n", 3, "without stride=");
  expect_parse_error("load inp sram=0 buf=nowhere off=0 x=1 y=1 stride=1\nsync\n", 3,
                     "'nowhere' is not a buffer");
  expect_parse_error("load inp sram=0 buf=input off=0 x=1 y=1 stride=1 pad=16,0,0,0\nsync\n", 3,
                     "pad 16 is outside");
  expect_parse_error("load inp sram=2047 buf=input off=0 x=2 y=1 stride=2\nsync\n", 3,
                     "beyond the 2048-entry buffer");
  expect_parse_error("run 0\nsync\n", 3, "kernel 0 is not defined");
  expect_parse_error("kernel 0 gemm\n  loop 2 2047 0 0\n  uop 1 0 0\nend\nsync\n", 6,
                     "dst index reaches 2048");
  expect_parse_error("kernel 0 gemm\n  uop 2048 0 0\nend\nsync\n", 5, "does not fit its 11 bits");
  expect_parse_error("kernel 0 gemm\n  loop 1 0 0 0\n  loop 1 0 0 0\n  loop 1 0 0 0\n", 6,
                     "at most two loops");
  expect_parse_error("kernel 0 alu add imm=40000\n", 3, "imm 40000 is outside");
  expect_parse_error("kernel 0 alu add lo=4\n", 3, "'lo=4' is not imm=N");
  expect_parse_error("kernel 0 alu shrclip lo=-32769\n", 3, "lo -32769 is outside");
  expect_parse_error("kernel 0 alu shrclip hi=4\n", 3, "'hi=4' is not imm=N or lo=N");
  expect_parse_error("kernel 1 gemm\nend\n", 3, "out of order");
  expect_parse_error("kernel 0 gemm\n  uop 0 0 0\n", 0, "not closed by 'end'");
  expect_parse_error("pop load compute\nsync\n", 0, "no earlier operation pushed");
  expect_parse_error("push load compute\nsync\n", 0, "never popped");
  expect_parse_error("push load store\n", 3, "only adjacent stages");
  expect_parse_error("", 0, "does not end with a sync");
  vta_program *p;
  vta_error err;
  assert_int_not_equal(vta_program_parse("vta-program 2\n", "v2", &p, &err), VTA_OK);
  assert_non_null(strstr(err.msg, "version 2 is not supported"));
  assert_int_not_equal(vta_program_parse("vta-program 1\nconfig log_batch=9\n", "cfg", &p, &err),
                       VTA_OK);
}

static void test_program_binary_round_trips_and_rejects_damage(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_program *p = gemm_program(&cfg);
  uint8_t *b, *b2;
  size_t n, n2;
  vta_error err;
  assert_int_equal(vta_program_serialize(p, &b, &n, &err), VTA_OK);
  vta_program *q;
  assert_int_equal(vta_program_deserialize(b, n, "gemm.bin", &q, &err), VTA_OK);
  assert_int_equal(vta_program_serialize(q, &b2, &n2, &err), VTA_OK);
  assert_int_equal(n, n2);
  assert_memory_equal(b, b2, n);
  char *t1 = to_text(p), *t2 = to_text(q);
  assert_string_equal(t1, t2);
  /* Every truncation is refused, without a crash (ASan watches). */
  for (size_t k = 0; k < n; k++) {
    vta_program *r = NULL;
    assert_int_not_equal(vta_program_deserialize(b, k, "cut.bin", &r, &err), VTA_OK);
    assert_null(r);
  }
  /* Bad magic, trailing garbage, an undefined opcode. */
  uint8_t *m = malloc(n + 1);
  memcpy(m, b, n);
  m[0] = 'X';
  assert_int_not_equal(vta_program_deserialize(m, n, "magic.bin", &q, &err), VTA_OK);
  assert_non_null(strstr(err.msg, "bad magic"));
  memcpy(m, b, n);
  m[n] = 0;
  assert_int_not_equal(vta_program_deserialize(m, n + 1, "tail.bin", &q, &err), VTA_OK);
  assert_non_null(strstr(err.msg, "garbage"));
  memcpy(m, b, n);
  m[n - 1] = 9; /* the final sync's opcode */
  assert_int_not_equal(vta_program_deserialize(m, n, "op.bin", &q, &err), VTA_OK);
  assert_non_null(strstr(err.msg, "undefined opcode 9"));
  free(m);
  free(t1);
  free(t2);
  free(b);
  free(b2);
  vta_program_destroy(p);
  vta_program_destroy(q);
}

static void test_program_builder_refuses_what_cannot_run(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_program *p;
  vta_error err;
  assert_int_equal(vta_program_create(&cfg, &p, &err), VTA_OK);
  vta_prog_xfer x = {.type = VTA_MEM_OUT, .buf = VTA_PROG_BUF_INPUT, .x_size = 1, .y_size = 1,
                     .x_stride = 1};
  assert_int_equal(vta_program_add_load(p, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "out cannot be loaded"));
  x.type = VTA_MEM_UOP;
  assert_int_equal(vta_program_add_load(p, &x, &err), VTA_ERR_INVALID);
  x.type = VTA_MEM_INP;
  assert_int_equal(vta_program_add_store(p, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "only out can be stored"));
  x.type = VTA_MEM_OUT;
  x.x_pad_before = 1;
  assert_int_equal(vta_program_add_store(p, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "cannot pad"));
  x.x_pad_before = 0;
  x.x_size = 0;
  assert_int_equal(vta_program_add_store(p, &x, &err), VTA_ERR_INVALID);
  x = (vta_prog_xfer){.type = VTA_MEM_WGT, .buf = VTA_PROG_BUF_WEIGHT, .sram = 1000, .x_size = 5,
                      .y_size = 5, .x_stride = 5};
  assert_int_equal(vta_program_add_load(p, &x, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "1024-entry"));
  vta_uop u = {0, 2047, 1023};
  vta_prog_kernel k = {.mode = VTA_JIT_GEMM, .nloops = 1, .loop = {{2, 1, 1, 0}}, .nuops = 1,
                       .uops = &u};
  uint32_t id;
  assert_int_equal(vta_program_add_kernel(p, &k, &id, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "src index reaches 2048"));
  k.loop[0].src = 0;
  assert_int_equal(vta_program_add_kernel(p, &k, &id, &err), VTA_OK);
  uint32_t id2;
  assert_int_equal(vta_program_add_kernel(p, &k, &id2, &err), VTA_OK);
  assert_int_equal(id, id2); /* equal kernels are one */
  assert_int_equal(vta_program_kernel_count(p), 1);
  k.nloops = 3;
  assert_int_equal(vta_program_add_kernel(p, &k, &id, &err), VTA_ERR_INVALID);
  k.nloops = 0;
  k.nuops = 0;
  assert_int_equal(vta_program_add_kernel(p, &k, &id, &err), VTA_ERR_INVALID);
  assert_int_equal(vta_program_add_run(p, 5, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "only 1 are defined"));
  assert_int_equal(vta_program_add_push(p, L, S, &err), VTA_ERR_INVALID);
  assert_int_equal(vta_program_add_pop(p, (vta_jit_stage)0, C, &err), VTA_ERR_INVALID);
  assert_int_equal(vta_program_op_count(p), 0); /* nothing refused was added */
  vta_program_destroy(p);
}

/* Replays the GEMM program on fsim and compares with C. */
typedef struct rig {
  vta_config cfg;
  vta_device *dev;
  vta_jit *jit;
  uint64_t phys[VTA_PROG_BUF_COUNT];
  int8_t a[32], w[512];
} rig;

static void rig_open(rig *r, const vta_config *cfg) {
  vta_error err;
  r->cfg = *cfg;
  assert_int_equal(vta_device_open("fsim", cfg, NULL, &r->dev, &err), VTA_OK);
  assert_int_equal(vta_jit_create(r->dev, NULL, &r->jit, &err), VTA_OK);
  memset(r->phys, 0, sizeof r->phys);
  uint64_t s = 12345;
  for (int i = 0; i < 32; i++) r->a[i] = (int8_t)((s = s * 6364136223846793005ull + 1) >> 56);
  for (int i = 0; i < 512; i++) r->w[i] = (int8_t)((s = s * 6364136223846793005ull + 1) >> 56);
  assert_int_equal(vta_device_alloc(r->dev, 64, &r->phys[VTA_PROG_BUF_INPUT], &err), VTA_OK);
  assert_int_equal(vta_device_alloc(r->dev, 512, &r->phys[VTA_PROG_BUF_WEIGHT], &err), VTA_OK);
  assert_int_equal(vta_device_alloc(r->dev, 64, &r->phys[VTA_PROG_BUF_OUTPUT], &err), VTA_OK);
  assert_int_equal(vta_device_copy_to(r->dev, r->phys[VTA_PROG_BUF_INPUT], r->a, 32, &err),
                   VTA_OK);
  assert_int_equal(vta_device_copy_to(r->dev, r->phys[VTA_PROG_BUF_WEIGHT], r->w, 512, &err),
                   VTA_OK);
}

static void rig_close(rig *r) {
  vta_jit_destroy(r->jit);
  vta_device_close(r->dev);
}

static void check_gemm(rig *r) {
  int8_t c[16];
  vta_error err;
  assert_int_equal(vta_device_copy_from(r->dev, c, r->phys[VTA_PROG_BUF_OUTPUT], 16, &err),
                   VTA_OK);
  for (int o = 0; o < 16; o++) {
    int32_t acc = 0;
    for (int k = 0; k < 32; k++) acc += r->a[k] * r->w[(k / 16) * 256 + o * 16 + k % 16];
    assert_int_equal(c[o], (int8_t)(acc >> 3));
  }
}

static void test_program_run_computes_the_gemm(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  rig r;
  rig_open(&r, &cfg);
  vta_program *p = gemm_program(&cfg);
  vta_stats st;
  memset(&st, 0, sizeof st);
  vta_error err;
  int rc = vta_program_run(r.jit, p, r.phys, &st, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, VTA_OK);
  check_gemm(&r);
  assert_int_equal(st.gemm_uops, 3); /* reset + two accumulations */
  assert_int_equal(st.alu_uops, 1);
  /* A second program with the same kernels records none of them again. */
  uint64_t kernels = vta_jit_get_counters(r.jit)->kernels;
  vta_program *q = gemm_program(&cfg);
  assert_int_equal(vta_program_run(r.jit, q, r.phys, NULL, &err), VTA_OK);
  assert_int_equal(vta_jit_get_counters(r.jit)->kernels, kernels);
  check_gemm(&r);
  vta_program_destroy(p);
  vta_program_destroy(q);
  rig_close(&r);
}

static void test_program_run_refuses_another_shape(void **state) {
  vta_config cfg, other;
  vta_config_default(&cfg);
  vta_error err;
  assert_int_equal(vta_config_load(&other, "configs/block32.json", &err), VTA_OK);
  vta_program *p = gemm_program(&cfg);
  rig r;
  rig_open(&r, &other);
  assert_int_equal(vta_program_run(r.jit, p, r.phys, NULL, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "log_block_in = 4"));
  rig_close(&r);
  /* Same shape with a smaller buffer: refused, naming the buffer. */
  assert_int_equal(vta_config_load(&other, "configs/small.json", &err), VTA_OK);
  rig_open(&r, &other);
  assert_int_equal(vta_program_run(r.jit, p, r.phys, NULL, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "smaller buffer"));
  rig_close(&r);
  /* Larger buffers are fine. */
  assert_int_equal(vta_config_load(&other, "configs/small.json", &err), VTA_OK);
  vta_program *s = gemm_program(&other);
  rig_open(&r, &cfg);
  assert_int_equal(vta_program_run(r.jit, s, r.phys, NULL, &err), VTA_OK);
  check_gemm(&r);
  rig_close(&r);
  vta_program_destroy(s);
  vta_program_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_program_text_matches_golden_and_reads_back),
      cmocka_unit_test(test_program_parse_errors_name_line_and_problem),
      cmocka_unit_test(test_program_binary_round_trips_and_rejects_damage),
      cmocka_unit_test(test_program_builder_refuses_what_cannot_run),
      cmocka_unit_test(test_program_run_computes_the_gemm),
      cmocka_unit_test(test_program_run_refuses_another_shape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
