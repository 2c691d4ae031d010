/* fuzz.h - what the libFuzzer harnesses of tests/fuzz/ share.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput for one input format and holds to
 * libFuzzer's rules: no exit, no output on success, everything freed, the same input always
 * doing the same thing. A harness aborts (so that libFuzzer keeps the input as a crash) only
 * when a property the code promises is broken, e.g. text that assembles must disassemble and
 * assemble again to the same words. Refusing an input with an error is the expected outcome for
 * most inputs and is silent.
 *
 * The same files are linked two ways (tests/fuzz/build.mk): with clang's libFuzzer for
 * `make fuzz`, and with tests/fuzz/replay.h's cmocka main into test_fuzz_<name>, which replays
 * the committed corpus and every crash reproducer under ASan+UBSan in `make test`.
 */
#ifndef VTA_TESTS_FUZZ_H
#define VTA_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (text formats), or NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *t = malloc(size + 1);
  if (t) {
    memcpy(t, data, size);
    t[size] = 0;
  }
  return t;
}

/* A broken promise: print why and abort, so that the fuzzer records the input. */
#define FUZZ_CHECK(cond, ...)                                              \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "fuzz property failed: %s: ", #cond);                \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
      abort();                                                             \
    }                                                                      \
  } while (0)

#endif
