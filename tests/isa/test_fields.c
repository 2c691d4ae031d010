/* test_fields.c - the field table: layouts match ISA.md, every format round-trips at its
 * maximum field values under several configurations, and values that do not fit are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vta/config.h"

static const char *const k_configs[] = {
    "configs/vta_default.json", "configs/batch4.json", "configs/block32.json",
    "configs/block8.json",      "configs/small.json",  "configs/block4.json",
};
#define NCONFIGS (sizeof k_configs / sizeof k_configs[0])

static void load(vta_config *cfg, const char *path) {
  vta_error err;
  int rc = vta_config_load(cfg, path, &err);
  if (rc) fail_msg("%s", err.msg);
}

static const vta_opcode k_fmt_opcode[] = {[VTA_FMT_MEM] = VTA_OP_LOAD,
                                           [VTA_FMT_GEMM] = VTA_OP_GEMM,
                                           [VTA_FMT_ALU] = VTA_OP_ALU,
                                           [VTA_FMT_FINISH] = VTA_OP_FINISH};

/* The ISA.md default positions, written out by hand once as the independent reference. */
static void test_layout_default_matches_isa_md(void **state) {
  vta_config c;
  vta_config_default(&c);
  struct { vta_format f; vta_field_id id; int lsb, width; } exp[] = {
      {VTA_FMT_MEM, VTA_F_MEMORY_TYPE, 7, 3},   {VTA_FMT_MEM, VTA_F_SRAM_BASE, 10, 16},
      {VTA_FMT_MEM, VTA_F_DRAM_BASE, 26, 32},   {VTA_FMT_MEM, VTA_F_Y_SIZE, 64, 16},
      {VTA_FMT_MEM, VTA_F_X_SIZE, 80, 16},      {VTA_FMT_MEM, VTA_F_X_STRIDE, 96, 16},
      {VTA_FMT_MEM, VTA_F_Y_PAD_0, 112, 4},     {VTA_FMT_MEM, VTA_F_Y_PAD_1, 116, 4},
      {VTA_FMT_MEM, VTA_F_X_PAD_0, 120, 4},     {VTA_FMT_MEM, VTA_F_X_PAD_1, 124, 4},
      {VTA_FMT_GEMM, VTA_F_RESET_REG, 7, 1},    {VTA_FMT_GEMM, VTA_F_UOP_BGN, 8, 13},
      {VTA_FMT_GEMM, VTA_F_UOP_END, 21, 14},    {VTA_FMT_GEMM, VTA_F_ITER_OUT, 35, 14},
      {VTA_FMT_GEMM, VTA_F_ITER_IN, 49, 14},    {VTA_FMT_GEMM, VTA_F_DST_FACTOR_OUT, 64, 11},
      {VTA_FMT_GEMM, VTA_F_DST_FACTOR_IN, 75, 11}, {VTA_FMT_GEMM, VTA_F_SRC_FACTOR_OUT, 86, 11},
      {VTA_FMT_GEMM, VTA_F_SRC_FACTOR_IN, 97, 11}, {VTA_FMT_GEMM, VTA_F_WGT_FACTOR_OUT, 108, 10},
      {VTA_FMT_GEMM, VTA_F_WGT_FACTOR_IN, 118, 10}, {VTA_FMT_ALU, VTA_F_DST_FACTOR_OUT, 64, 11},
      {VTA_FMT_ALU, VTA_F_SRC_FACTOR_IN, 97, 11}, {VTA_FMT_ALU, VTA_F_ALU_OPCODE, 108, 3},
      {VTA_FMT_ALU, VTA_F_USE_IMM, 111, 1},     {VTA_FMT_ALU, VTA_F_IMM, 112, 16},
      {VTA_FMT_UOP, VTA_F_UOP_DST, 0, 11},      {VTA_FMT_UOP, VTA_F_UOP_SRC, 11, 11},
      {VTA_FMT_UOP, VTA_F_UOP_WGT, 22, 10},
  };
  for (size_t i = 0; i < sizeof exp / sizeof exp[0]; i++) {
    vta_field_pos p = c.layout[exp[i].f].pos[exp[i].id];
    assert_int_equal(p.lsb, exp[i].lsb);
    assert_int_equal(p.width, exp[i].width);
  }
}

/* Every field of every format set to its maximum (and signed imm to both extremes) survives
 * encode -> bytes -> decode. */
static void test_encode_roundtrips_at_maximum_values(void **state) {
  for (size_t k = 0; k < NCONFIGS; k++) {
    vta_config c;
    load(&c, k_configs[k]);
    for (int f = 0; f < VTA_FMT_UOP; f++) {
      for (int sign = 0; sign < 2; sign++) {
        vta_insn in, out;
        memset(&in, 0, sizeof in);
        const vta_format_layout *L = &c.layout[f];
        for (int i = 0; i < L->nfields; i++) {
          vta_field_pos p = L->pos[L->order[i]];
          int64_t max = p.is_signed ? (1ll << (p.width - 1)) - 1 : (int64_t)((1ull << p.width) - 1);
          if (p.is_signed && sign) max = -(1ll << (p.width - 1));
          in.f[L->order[i]] = max;
        }
        in.f[VTA_F_OPCODE] = k_fmt_opcode[f];
        vta_insn_word w, w2;
        vta_error err;
        assert_int_equal(vta_insn_encode(&c, &in, &w, &err), VTA_OK);
        uint8_t bytes[16];
        vta_insn_word_store(&w, bytes);
        vta_insn_word_load(bytes, &w2);
        assert_memory_equal(&w, &w2, sizeof w);
        assert_int_equal(vta_insn_decode(&c, &w2, &out, &err), VTA_OK);
        assert_memory_equal(&in, &out, sizeof in);
      }
    }
    /* Micro-ops at their maxima. */
    const vta_format_layout *U = &c.layout[VTA_FMT_UOP];
    vta_uop u = {(1u << U->pos[VTA_F_UOP_DST].width) - 1, (1u << U->pos[VTA_F_UOP_SRC].width) - 1,
                 (1u << U->pos[VTA_F_UOP_WGT].width) - 1},
            v;
    uint32_t word;
    assert_int_equal(vta_uop_encode(&c, &u, &word, NULL), VTA_OK);
    vta_uop_decode(&c, word, &v);
    assert_memory_equal(&u, &v, sizeof u);
  }
}

static void test_encode_rejects_values_that_do_not_fit(void **state) {
  for (size_t k = 0; k < NCONFIGS; k++) {
    vta_config c;
    load(&c, k_configs[k]);
    for (int f = 0; f < VTA_FMT_UOP; f++) {
      const vta_format_layout *L = &c.layout[f];
      for (int i = 1; i < L->nfields; i++) {
        int id = L->order[i];
        vta_field_pos p = L->pos[id];
        vta_insn in;
        memset(&in, 0, sizeof in);
        in.f[VTA_F_OPCODE] = k_fmt_opcode[f];
        in.f[id] = p.is_signed ? (1ll << (p.width - 1)) : (int64_t)(1ull << p.width);
        vta_insn_word w;
        vta_error err;
        assert_int_equal(vta_insn_encode(&c, &in, &w, &err), VTA_ERR_INVALID);
        assert_non_null(strstr(err.msg, vta_field_name((vta_field_id)id)));
        if (p.is_signed || !p.is_signed) {
          in.f[id] = p.is_signed ? -(1ll << (p.width - 1)) - 1 : -1;
          assert_int_equal(vta_insn_encode(&c, &in, &w, &err), VTA_ERR_INVALID);
        }
      }
    }
    vta_uop u = {c.depth[VTA_MEM_ACC], 0, 0};
    uint32_t word;
    vta_error err;
    assert_int_equal(vta_uop_encode(&c, &u, &word, &err), VTA_ERR_INVALID);
    assert_non_null(strstr(err.msg, "dst"));
  }
}

static void test_encode_rejects_field_of_another_format(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_insn in;
  memset(&in, 0, sizeof in);
  in.f[VTA_F_OPCODE] = VTA_OP_FINISH;
  in.f[VTA_F_X_SIZE] = 1;
  vta_insn_word w;
  vta_error err;
  assert_int_equal(vta_insn_encode(&c, &in, &w, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "x_size"));
  in.f[VTA_F_X_SIZE] = 0;
  in.f[VTA_F_OPCODE] = 7;
  assert_int_equal(vta_insn_encode(&c, &in, &w, &err), VTA_ERR_INVALID);
}

static void test_decode_rejects_undefined_opcode_and_reserved_bits(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_insn out;
  vta_error err;
  for (unsigned op = 5; op < 8; op++) {
    vta_insn_word w = {{op, 0}};
    assert_int_equal(vta_insn_decode(&c, &w, &out, &err), VTA_ERR_INVALID);
    assert_non_null(strstr(err.msg, "opcode"));
  }
  vta_insn_word w = {{VTA_OP_LOAD | (1ull << 60), 0}}; /* bits 58-63 are unused in LOAD */
  assert_int_equal(vta_insn_decode(&c, &w, &out, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "bit 60"));
  vta_insn_word f = {{VTA_OP_FINISH | (1ull << 9), 0}};
  assert_int_equal(vta_insn_decode(&c, &f, &out, &err), VTA_ERR_INVALID);
}

static void test_check_rejects_bad_semantics(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_insn in;
  vta_error err;
  memset(&in, 0, sizeof in);
  in.f[VTA_F_OPCODE] = VTA_OP_LOAD;
  in.f[VTA_F_MEMORY_TYPE] = 6;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "memory_type"));
  in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_OUT;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_ERR_INVALID);
  in.f[VTA_F_OPCODE] = VTA_OP_STORE;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_OK);
  in.f[VTA_F_X_PAD_0] = 1;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_ERR_INVALID);
  memset(&in, 0, sizeof in);
  in.f[VTA_F_OPCODE] = VTA_OP_GEMM;
  in.f[VTA_F_UOP_BGN] = 3;
  in.f[VTA_F_UOP_END] = 3;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_ERR_INVALID);
  in.f[VTA_F_UOP_END] = 8193;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_ERR_INVALID);
  in.f[VTA_F_UOP_END] = 8192;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_OK);
  in.f[VTA_F_OPCODE] = VTA_OP_ALU;
  in.f[VTA_F_ALU_OPCODE] = VTA_ALU_SHRCLIP;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_OK);
  in.f[VTA_F_ALU_OPCODE] = 6;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "alu_opcode"));
  memset(&in, 0, sizeof in);
  in.f[VTA_F_OPCODE] = VTA_OP_FINISH;
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_OK);
  in.f[VTA_F_POP_NEXT] = 1; /* ISA.md section 4: a FINISH may not pop */
  assert_int_equal(vta_insn_check(&c, &in, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "may not pop"));
}

static void test_routing_follows_isa_section_4(void **state) {
  vta_insn in;
  memset(&in, 0, sizeof in);
  const struct { int op, mem; vta_module m; } cases[] = {
      {VTA_OP_LOAD, VTA_MEM_INP, VTA_MOD_LOAD},      {VTA_OP_LOAD, VTA_MEM_WGT, VTA_MOD_LOAD},
      {VTA_OP_LOAD, VTA_MEM_UOP, VTA_MOD_COMPUTE},   {VTA_OP_LOAD, VTA_MEM_ACC, VTA_MOD_COMPUTE},
      {VTA_OP_LOAD, VTA_MEM_ACC_8BIT, VTA_MOD_COMPUTE}, {VTA_OP_STORE, VTA_MEM_OUT, VTA_MOD_STORE},
      {VTA_OP_GEMM, 0, VTA_MOD_COMPUTE},             {VTA_OP_ALU, 0, VTA_MOD_COMPUTE},
      {VTA_OP_FINISH, 0, VTA_MOD_COMPUTE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    in.f[VTA_F_OPCODE] = cases[i].op;
    in.f[VTA_F_MEMORY_TYPE] = cases[i].mem;
    assert_int_equal(vta_insn_module(&in), cases[i].m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_default_matches_isa_md),
      cmocka_unit_test(test_encode_roundtrips_at_maximum_values),
      cmocka_unit_test(test_encode_rejects_values_that_do_not_fit),
      cmocka_unit_test(test_encode_rejects_field_of_another_format),
      cmocka_unit_test(test_decode_rejects_undefined_opcode_and_reserved_bits),
      cmocka_unit_test(test_check_rejects_bad_semantics),
      cmocka_unit_test(test_routing_follows_isa_section_4),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
