/* fuzz_asm.c - instruction text (isa/text.c) on the default configuration: assemble; text
 * that assembles must disassemble and assemble again to the same words. */
#include "fuzz/fuzz.h"

#include "vta/config.h"
#include "vta/isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  if (!text) return 0;
  vta_config cfg;
  vta_config_default(&cfg);
  vta_insn_word *words = NULL;
  size_t count = 0;
  vta_error err;
  if (vta_asm(&cfg, text, "fuzz.s", &words, &count, &err) == VTA_OK) {
    uint8_t *bytes = malloc(count * VTA_INSN_BYTES + 1);
    char *dis = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&dis, &len);
    FUZZ_CHECK(bytes && f, "out of memory");
    for (size_t i = 0; i < count; i++) vta_insn_word_store(&words[i], bytes + i * VTA_INSN_BYTES);
    int rc = vta_disasm(&cfg, bytes, count * VTA_INSN_BYTES, f, 0, &err);
    fclose(f);
    FUZZ_CHECK(rc == VTA_OK, "assembled words do not disassemble: %s", err.msg);
    vta_insn_word *again = NULL;
    size_t n2 = 0;
    rc = vta_asm(&cfg, dis, "disassembled", &again, &n2, &err);
    FUZZ_CHECK(rc == VTA_OK, "disassembly does not assemble: %s", err.msg);
    FUZZ_CHECK(n2 == count && memcmp(again, words, count * sizeof *words) == 0,
               "reassembled words differ");
    free(again);
    free(dis);
    free(bytes);
  }
  free(words);
  free(text);
  return 0;
}
