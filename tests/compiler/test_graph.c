/* test_graph.c - the graph text form: what the printer writes the parser reads back to the
 * same graph (full constants, bundle-style "@K" references, quoted names, every attribute kind,
 * fused epilogues), and the parser's errors give line, column, the line and what is wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"

/* Every construct of the text form: a quoted name, an inline and a large constant (printed
 * "= ..." in dumps), an integer constant, int / float / ints / floats / string attributes,
 * an omitted input "_", and a chain that epilogue fusion turns into "| Add(%b, .) | Relu".
 * Strings are single-quoted, float lists f[...] (Resize's scales after shape inference). */
static char *sample_text(void) {
  static char buf[8192];
  int n = snprintf(buf, sizeof buf,
                   "vta-graph opset=13\n"
                   "input %%\"in:0\" f32[1,2,5,5]\n"
                   "const %%w f32[3,2,3,3] = [");
  for (int i = 0; i < 54; i++) n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%.9g", i ? ", " : "", i * 0.125 - 3);
  snprintf(buf + n, sizeof buf - (size_t)n,
           "]\n"
           "const %%b f32[1,3,1,1] = [0.5, -0.25, 1e-07]\n"
           "const %%shape i64[2] = [1, -1]\n"
           "const %%pads i64[8] = [0, 0, 1, 1, 0, 0, 1, 1]\n"
           "const %%scales f32[4] = [1, 1, 0.5, 0.5]\n"
           "%%c f32[?] = Conv(%%\"in:0\", %%w) group=1 kernel_shape=[3,3] strides=[1,1] "
           "dilations=[1,1] pads=[1,1,1,1]\n"
           "%%d f32[?] = Add(%%b, %%c)\n"
           "%%e f32[?] = Relu(%%d)\n"
           "%%p f32[?] = Pad(%%e, %%pads) mode='reflect'\n"
           "%%l f32[?] = LeakyRelu(%%p) alpha=0.125\n"
           "%%r f32[?] = Resize(%%l, _, %%scales) mode='nearest' "
           "coordinate_transformation_mode='asymmetric' nearest_mode='floor'\n"
           "%%f f32[?] = Reshape(%%r, %%shape)\n"
           "output %%f\n");
  return buf;
}

static vta_graph *parse_ok(const char *text, const vta_const_ref *refs, int n) {
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(text, strlen(text), refs, n, &err);
  if (!g) fail_msg("%s\nin:\n%s", err.msg, text);
  return g;
}

/* print -> parse -> print gives the same text, before and after the passes. */
static void test_graph_print_parse_round_trip(void **state) {
  (void)state;
  vta_graph *g = parse_ok(sample_text(), NULL, 0);
  for (int pass = 0; pass < 2; pass++) {
    char *a = vta_graph_print_string(g, VTA_PRINT_FULL);
    assert_non_null(a);
    vta_graph *h = parse_ok(a, NULL, 0);
    char *b = vta_graph_print_string(h, VTA_PRINT_FULL);
    assert_string_equal(a, b);
    free(a);
    free(b);
    vta_graph_destroy(h);
    if (pass == 0) {
      vta_error err = {0};
      if (vta_compile_graph(g, NULL, &err)) fail_msg("%s", err.msg);
    }
  }
  /* After the passes: the fused chain and the quoted name print as documented. */
  char *s = vta_graph_print_string(g, 0);
  assert_non_null(strstr(s, "input %\"in:0\" f32[1,2,5,5]"));
  assert_non_null(strstr(s, "| Add(%b, .) | Relu"));
  assert_non_null(strstr(s, "const %w f32[3,2,3,3] = ..."));
  assert_non_null(strstr(s, "mode='reflect'"));
  if (!strstr(s, "scales=f[1,1,0.5,0.5]")) fail_msg("%s", s);
  free(s);
  vta_graph_destroy(g);
}

/* The bundle's form: large constants as "@K", the K-th large constant in value order. */
static void test_graph_refs_round_trip(void **state) {
  (void)state;
  vta_graph *g = parse_ok(sample_text(), NULL, 0);
  char *full = vta_graph_print_string(g, VTA_PRINT_FULL);
  char *text = vta_graph_print_string(g, VTA_PRINT_REFS);
  assert_non_null(strstr(text, "= @0"));
  vta_const_ref refs[8];
  int n = 0;
  for (int i = 0; i < g->n_values; i++)
    if (g->values[i].data && vta_value_count(&g->values[i]) > 16) {
      refs[n].data = g->values[i].data;
      refs[n++].size = vta_value_bytes(&g->values[i]);
    }
  assert_int_equal(n, 1);
  vta_graph *h = parse_ok(text, refs, n);
  char *again = vta_graph_print_string(h, VTA_PRINT_FULL);
  assert_string_equal(full, again);
  /* A reference whose size does not fit its type, and one out of range. */
  vta_error err = {0};
  vta_const_ref bad = {refs[0].data, refs[0].size - 4};
  assert_null(vta_graph_parse(text, strlen(text), &bad, 1, &err));
  assert_non_null(strstr(err.msg, "@0 holds 212 bytes, the type needs 216"));
  assert_null(vta_graph_parse(text, strlen(text), NULL, 0, &err));
  assert_non_null(strstr(err.msg, "@0 out of range (0)"));
  free(full);
  free(text);
  free(again);
  vta_graph_destroy(g);
  vta_graph_destroy(h);
}

static void expect_parse_error(const char *text, const char *where, const char *what) {
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(text, strlen(text), NULL, 0, &err);
  if (g) fail_msg("parsed, expected an error \"%s\":\n%s", what, text);
  if (!strstr(err.msg, where) || !strstr(err.msg, what))
    fail_msg("expected \"%s\" and \"%s\" in:\n%s", where, what, err.msg);
}

static void test_graph_parse_errors_point_at_the_problem(void **state) {
  (void)state;
  expect_parse_error("vta-graph opset=13\ninput %x f32[2]\n%y f32[?] = Relu(%z)\noutput %y\n",
                     "line 3:", "value %z is used before it is defined");
  expect_parse_error("vta-graph opset=13\ninput %x f32[2]\n%y f32[?] = Frobnicate(%x)\n",
                     "line 3:", "unknown operator 'Frobnicate'");
  expect_parse_error("vta-graph opset=13\ninput %x q8[2]\n", "line 2:", "unknown element type 'q8'");
  expect_parse_error("vta-graph opset=13\ninput %x f32[2]\ninput %x f32[3]\n", "line 3:",
                     "value %x is defined twice");
  expect_parse_error("vta-graph opset=13\nconst %w f32[20] = ...\n", "line 2:",
                     "constant %w has elided data");
  expect_parse_error("vta-graph opset=13\nconst %w f32[2] = [1, 2, 3]\n", "line 2:",
                     "more elements than the shape holds (2)");
  expect_parse_error("vta-graph opset=13\nconst %w f32[?] = [1]\n", "line 2:",
                     "a constant needs a known shape");
  expect_parse_error("vta-graph opset=13\ninput %x f32[2,-1]\n", "line 2:", "negative dimension");
  expect_parse_error("vta-graph opset=13\ninput %\"x f32[2]\n", "line 2:", "unterminated quoted name");
  /* The message shows the line and a caret under the column. */
  vta_error err = {0};
  const char *t = "vta-graph opset=13\ninput %x f32[2]\n%y f32[?] = Relu(%z)\n";
  assert_null(vta_graph_parse(t, strlen(t), NULL, 0, &err));
  assert_non_null(strstr(err.msg, "\n  %y f32[?] = Relu(%z)\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graph_print_parse_round_trip),
      cmocka_unit_test(test_graph_refs_round_trip),
      cmocka_unit_test(test_graph_parse_errors_point_at_the_problem),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
