/* test_text.c - the text form: binary -> text -> binary is the identity on random valid
 * instructions under several configurations, and assembler errors name line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vta/config.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void random_insn(const vta_config *c, vta_insn *in) {
  static const int ops[] = {VTA_OP_LOAD, VTA_OP_STORE, VTA_OP_GEMM, VTA_OP_FINISH, VTA_OP_ALU};
  memset(in, 0, sizeof *in);
  int op = ops[next() % 5];
  const vta_format_layout *L = &c->layout[vta_opcode_format((unsigned)op)];
  for (int i = 0; i < L->nfields; i++) {
    vta_field_pos p = L->pos[L->order[i]];
    uint64_t v = next() & ((1ull << p.width) - 1);
    if (next() % 3 == 0) v = 0; /* exercise omitted fields */
    int64_t s = (int64_t)v;
    if (p.is_signed && (v >> (p.width - 1))) s -= (int64_t)(1ull << p.width);
    in->f[L->order[i]] = s;
  }
  in->f[VTA_F_OPCODE] = op;
  if (in->f[VTA_F_MEMORY_TYPE] > 5) in->f[VTA_F_MEMORY_TYPE] = 5;
  if (in->f[VTA_F_ALU_OPCODE] > 4) in->f[VTA_F_ALU_OPCODE] = 4;
}

static void test_text_roundtrips_random_instructions(void **state) {
  const char *cfgs[] = {"configs/vta_default.json", "configs/batch4.json", "configs/block32.json",
                        "configs/block8.json"};
  for (size_t k = 0; k < 4; k++) {
    vta_config c;
    assert_int_equal(vta_config_load(&c, cfgs[k], NULL), VTA_OK);
    for (int n = 0; n < 3000; n++) {
      vta_insn in, back;
      random_insn(&c, &in);
      vta_insn_word w, w2;
      vta_error err;
      if (vta_insn_encode(&c, &in, &w, &err)) fail_msg("%s", err.msg);
      char text[512];
      vta_insn_to_text(&c, &in, text, sizeof text);
      int col;
      if (vta_insn_from_text(&c, text, &back, &col, &err)) fail_msg("%s: %s", text, err.msg);
      assert_memory_equal(&in, &back, sizeof in);
      assert_int_equal(vta_insn_encode(&c, &back, &w2, NULL), VTA_OK);
      assert_memory_equal(&w, &w2, sizeof w);
    }
  }
}

static void test_asm_then_disasm_is_identity(void **state) {
  vta_config c;
  vta_config_default(&c);
  const char *src =
      "# a tiny program\n"
      "load memory_type=uop dram_base=4 y_size=1 x_size=2 x_stride=2\n"
      "load memory_type=inp sram_base=0 dram_base=256 y_size=2 x_size=1 x_stride=1 "
      "y_pad_0=1 x_pad_1=2 push_next\n"
      "\n"
      "gemm pop_prev uop_end=2 iter_out=2 iter_in=3 dst_factor_out=1 src_factor_in=1 "
      "wgt_factor_in=1 push_next   # comment\n"
      "alu reset_reg uop_end=1 iter_in=1 alu_opcode=shr use_imm imm=-3\n"
      "store memory_type=out dram_base=7 y_size=1 x_size=1 x_stride=1 pop_prev push_prev\n"
      "FINISH pop_next\n";
  vta_insn_word *w;
  size_t n;
  vta_error err;
  if (vta_asm(&c, src, "t.s", &w, &n, &err)) fail_msg("%s", err.msg);
  assert_int_equal(n, 6);
  uint8_t *bytes = malloc(n * 16);
  for (size_t i = 0; i < n; i++) vta_insn_word_store(&w[i], bytes + 16 * i);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(vta_disasm(&c, bytes, n * 16, f, 1, &err), VTA_OK);
  fclose(f);
  assert_non_null(strstr(text, "alu reset_reg uop_end=1 iter_in=1 alu_opcode=shr use_imm imm=-3"));
  assert_non_null(strstr(text, "finish pop_next"));
  vta_insn_word *w2;
  size_t n2;
  if (vta_asm(&c, text, "disasm", &w2, &n2, &err)) fail_msg("%s", err.msg);
  assert_int_equal(n2, n);
  assert_memory_equal(w, w2, n * sizeof *w);
  free(text);
  free(bytes);
  free(w);
  free(w2);
}

static void test_asm_errors_name_line_and_column(void **state) {
  vta_config c;
  vta_config_default(&c);
  const struct { const char *src, *words; } cases[] = {
      {"finish\nlod memory_type=inp\n", "t.s:2:1: unknown opcode 'lod'"},
      {"load memory_type=inp x_size=70000\n", "t.s:1:29: x_size = 70000 does not fit its 16 bits"},
      {"load memory_type=bogus\n", "t.s:1:18: value 'bogus' of field memory_type"},
      {"gemm x_size=1\n", "field x_size is not part of the gemm"},
      {"alu imm=-32769\n", "imm = -32769 does not fit"},
      {"alu uop_end\n", "uop_end needs a value"},
      {"load y_size=1 y_size=2\n", "given twice"},
      {"store memory_type=out unknown=3\n", "t.s:1:23: unknown field 'unknown'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vta_insn_word *w = NULL;
    size_t n;
    vta_error err;
    assert_int_equal(vta_asm(&c, cases[i].src, "t.s", &w, &n, &err), VTA_ERR_INVALID);
    if (!strstr(err.msg, cases[i].words))
      fail_msg("for %s: \"%s\" lacks \"%s\"", cases[i].src, err.msg, cases[i].words);
    assert_non_null(strchr(err.msg, '^'));
  }
}

static void test_disasm_rejects_truncated_and_garbage(void **state) {
  vta_config c;
  vta_config_default(&c);
  uint8_t bytes[40] = {0};
  bytes[0] = VTA_OP_FINISH;
  vta_error err;
  FILE *f = fopen("/dev/null", "w");
  assert_int_equal(vta_disasm(&c, bytes, 20, f, 0, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "4 bytes left over"));
  bytes[16] = 7; /* undefined opcode in instruction 1 */
  assert_int_equal(vta_disasm(&c, bytes, 32, f, 0, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "instruction 1 (byte offset 16)"));
  fclose(f);
}

static void test_uop_text_roundtrips(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_uop u = {2047, 1234, 1023}, v;
  char text[64];
  vta_uop_to_text(&u, text, sizeof text);
  assert_string_equal(text, "uop dst=2047 src=1234 wgt=1023");
  assert_int_equal(vta_uop_from_text(&c, text, &v, NULL, NULL), VTA_OK);
  assert_memory_equal(&u, &v, sizeof u);
  assert_int_equal(vta_uop_from_text(&c, "uop dst=2048", &v, NULL, NULL), VTA_ERR_INVALID);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text_roundtrips_random_instructions),
      cmocka_unit_test(test_asm_then_disasm_is_identity),
      cmocka_unit_test(test_asm_errors_name_line_and_column),
      cmocka_unit_test(test_disasm_rejects_truncated_and_garbage),
      cmocka_unit_test(test_uop_text_roundtrips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
