/* graph_value.h - helpers for tests that build compiler graphs by hand (test_quant,
 * test_boundaries, test_cmd_tune): a value of a given shape, constant (zero-filled data) or
 * not; and, where the including test defines TEST_RNG_SEED, the xorshift generator its random
 * data comes from (each test keeps its own seed, so its data stay what they were). */
#ifndef VTA_TESTS_COMPILER_GRAPH_VALUE_H
#define VTA_TESTS_COMPILER_GRAPH_VALUE_H

#include <stdint.h>
#include <string.h>

#include "compiler/compiler.h"

static int value(vta_graph *g, const char *name, vta_dtype t, int rank, const int64_t *dims,
                 int konst) {
  int v = vta_graph_add_value(g, name, t);
  vta_gvalue *x = &g->values[v];
  if (konst) {
    assert_int_equal(vta_value_set_const(x, t, rank, dims), 0);
  } else {
    x->rank = rank;
    memcpy(x->dims, dims, sizeof(int64_t) * (size_t)rank);
  }
  return v;
}

#ifdef TEST_RNG_SEED
static uint64_t rng = TEST_RNG_SEED;
static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}
/* Uniform in [-1, 1] in steps of 1e-4. */
static float frnd(void) { return (float)(rnd() % 20001) / 10000.0f - 1.0f; }
#endif

#endif
