/* replay.h - the cmocka main of test_fuzz_<name>: runs one harness (fuzz_<name>.c, included
 * by the test file) on every file of tests/fuzz/corpus/<name>/ (the regression corpus: seeds
 * and inputs the fuzzer found that reach new code) and tests/fuzz/crashes/<name>/ (every crash
 * reproducer, kept after its fix), under the test build's ASan and UBSan. A sanitizer report or
 * a broken harness property aborts the test binary, which the runner counts as a failure; an
 * empty corpus fails too, so the replay cannot pass by running nothing.
 *
 * The test file defines FUZZ_NAME and includes this header and then the harness.
 */
#ifndef VTA_TESTS_FUZZ_REPLAY_H
#define VTA_TESTS_FUZZ_REPLAY_H

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fuzz/fuzz.h"
#include "vta/file.h"

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the harness on every regular file of dir (sorted, so runs are repeatable); returns how
 * many (0 when the folder does not exist). */
static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      names = realloc(names, cap * sizeof *names);
      assert_non_null(names);
    }
    names[n] = strdup(e->d_name);
    assert_non_null(names[n]);
    n++;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_names);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unsigned char *data;
    size_t size;
    vta_error err;
    if (vta_file_read(path, "a fuzz input", (size_t)1 << 24, &data, &size, &err) != VTA_OK)
      fail_msg("%s", err.msg);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    free(names[i]);
  }
  free(names);
  return (int)n;
}

static void test_fuzz_replay_corpus_and_crashes(void **state) {
  (void)state;
  int corpus = replay_dir("tests/fuzz/corpus/" FUZZ_NAME);
  int crashes = replay_dir("tests/fuzz/crashes/" FUZZ_NAME);
  print_message("replayed %d corpus files and %d crash reproducers of the %s harness\n", corpus,
                crashes, FUZZ_NAME);
  if (corpus == 0) fail_msg("tests/fuzz/corpus/%s holds no input: nothing was replayed", FUZZ_NAME);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_fuzz_replay_corpus_and_crashes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
