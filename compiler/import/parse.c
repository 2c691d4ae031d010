/* parse.c - reads the graph text form written by graph.c back into a graph.
 *
 * The design idea: one hand-written recursive-descent reader over the whole text, newlines
 * being ordinary white space, because every statement starts with something that cannot
 * continue the previous one ("input", "const", "output", a value "%name" or "_"). A value is
 * created where it is defined (input, const, node output) and must be defined before use, which
 * is exactly the topological-order rule of the IR. Errors give line:column and the line itself.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

typedef struct {
  const char *s, *end, *p;
  vta_graph *g;
  const vta_const_ref *refs;
  int n_refs;
  vta_error *err;
  int failed;
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...) {
  if (r->failed) return -1;
  r->failed = 1;
  int line = 1;
  const char *ls = r->s;
  for (const char *q = r->s; q < r->p && q < r->end; q++)
    if (*q == '\n') {
      line++;
      ls = q + 1;
    }
  const char *le = ls;
  while (le < r->end && *le != '\n') le++;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  vta_error_set(r->err, VTA_ERR_INVALID, "line %d:%d: %s\n  %.*s\n  %*s^", line,
                (int)(r->p - ls) + 1, msg, (int)(le - ls > 200 ? 200 : le - ls), ls,
                (int)(r->p - ls), "");
  return -1;
}

static void skip(reader *r) {
  while (r->p < r->end && isspace((unsigned char)*r->p)) r->p++;
}
static int peek(reader *r) {
  skip(r);
  return r->p < r->end ? (unsigned char)*r->p : -1;
}
static int accept(reader *r, char c) {
  if (peek(r) == c) {
    r->p++;
    return 1;
  }
  return 0;
}
static int expect(reader *r, char c) {
  if (accept(r, c)) return 0;
  return fail(r, "expected '%c'", c);
}

static int is_ident(int c) { return isalnum(c) || c == '_' || c == '.'; }

/* A plain identifier or a quoted name; returns a malloc'd string. */
static char *read_name(reader *r) {
  skip(r);
  if (r->p < r->end && *r->p == '"') {
    const char *open = r->p++;
    size_t cap = 32, n = 0;
    char *out = malloc(cap);
    while (out && r->p < r->end && *r->p != '"') {
      if (*r->p == '\\' && r->p + 1 < r->end) r->p++;
      if (n + 2 > cap) {
        char *q = realloc(out, cap *= 2);
        if (!q) {
          free(out);
          return NULL;
        }
        out = q;
      }
      out[n++] = *r->p++;
    }
    if (!out) return NULL;
    if (r->p >= r->end) {
      free(out);
      r->p = open; /* point at the opening quote, not at the end of the text */
      fail(r, "unterminated quoted name");
      return NULL;
    }
    r->p++;
    out[n] = 0;
    return out;
  }
  const char *b = r->p;
  while (r->p < r->end && is_ident((unsigned char)*r->p)) r->p++;
  if (r->p == b) {
    fail(r, "expected a name");
    return NULL;
  }
  return strndup(b, (size_t)(r->p - b));
}

static int keyword(reader *r, const char *kw) {
  skip(r);
  size_t n = strlen(kw);
  if ((size_t)(r->end - r->p) >= n && memcmp(r->p, kw, n) == 0 &&
      (r->p + n == r->end || !is_ident((unsigned char)r->p[n]))) {
    r->p += n;
    return 1;
  }
  return 0;
}

/* "%name" (must exist unless define) or "_" (absent, -1). Returns -2 on error. */
static int read_ref(reader *r, int define) {
  if (accept(r, '_')) return -1;
  if (expect(r, '%')) return -2;
  char *name = read_name(r);
  if (!name) return -2;
  int v = vta_graph_find_value(r->g, name);
  if (define) {
    if (v >= 0) {
      fail(r, "value %%%s is defined twice", name);
      free(name);
      return -2;
    }
    v = vta_graph_add_value(r->g, name, VTA_DT_F32);
  } else if (v < 0) {
    fail(r, "value %%%s is used before it is defined", name);
  }
  free(name);
  return v < 0 ? -2 : v;
}

static int read_int(reader *r, int64_t *out) {
  skip(r);
  char *e;
  long long x = strtoll(r->p, &e, 10);
  if (e == r->p) return fail(r, "expected an integer");
  r->p = e;
  *out = x;
  return 0;
}

static int read_double(reader *r, double *out) {
  skip(r);
  char *e;
  double x = strtod(r->p, &e);
  if (e == r->p) return fail(r, "expected a number");
  r->p = e;
  *out = x;
  return 0;
}

static int read_type(reader *r, vta_gvalue *v) {
  skip(r);
  const char *b = r->p;
  while (r->p < r->end && isalnum((unsigned char)*r->p)) r->p++;
  char t[16];
  size_t n = (size_t)(r->p - b);
  if (n == 0 || n >= sizeof t) return fail(r, "expected an element type (f32, i64, ...)");
  memcpy(t, b, n);
  t[n] = 0;
  if (vta_dtype_lookup(t, &v->dtype)) return fail(r, "unknown element type '%s'", t);
  if (expect(r, '[')) return -1;
  if (accept(r, '?')) {
    v->rank = -1;
    return expect(r, ']');
  }
  v->rank = 0;
  if (accept(r, ']')) return 0;
  do {
    if (v->rank >= VTA_MAX_RANK) return fail(r, "more than %d dimensions", VTA_MAX_RANK);
    if (read_int(r, &v->dims[v->rank])) return -1;
    if (v->dims[v->rank] < 0) return fail(r, "negative dimension");
    v->rank++;
  } while (accept(r, ','));
  return expect(r, ']');
}

static int read_const(reader *r, int v) {
  vta_gvalue *val = &r->g->values[v];
  if (read_type(r, val)) return -1;
  if (val->rank < 0) return fail(r, "a constant needs a known shape");
  if (expect(r, '=')) return -1;
  vta_gvalue tmp = *val;
  if (vta_value_set_const(val, tmp.dtype, tmp.rank, tmp.dims)) return fail(r, "out of memory");
  int64_t count = vta_value_count(val);
  size_t bytes = vta_value_bytes(val);
  if (accept(r, '@')) {
    int64_t k;
    if (read_int(r, &k)) return -1;
    if (k < 0 || k >= r->n_refs) return fail(r, "constant reference @%" PRId64 " out of range (%d)", k, r->n_refs);
    if (r->refs[k].size != bytes)
      return fail(r, "constant reference @%" PRId64 " holds %zu bytes, the type needs %zu", k,
                  r->refs[k].size, bytes);
    memcpy(val->data, r->refs[k].data, bytes);
    return 0;
  }
  if (peek(r) == '.') return fail(r, "constant %%%s has elided data; print the graph in full", val->name);
  if (expect(r, '[')) return -1;
  for (int64_t i = 0; i < count; i++) {
    if (i && expect(r, ',')) return -1;
    double x = 0;
    skip(r);
    if (strncmp(r->p, "nan", 3) == 0) {
      x = NAN;
      r->p += 3;
    } else if (strncmp(r->p, "inf", 3) == 0) {
      x = INFINITY;
      r->p += 3;
    } else if (strncmp(r->p, "-inf", 4) == 0) {
      x = -INFINITY;
      r->p += 4;
    } else if (val->dtype == VTA_DT_F32 || val->dtype == VTA_DT_F64 || val->dtype == VTA_DT_F16) {
      if (read_double(r, &x)) return -1;
    } else {
      int64_t iv;
      if (read_int(r, &iv)) return -1;
      if (val->dtype == VTA_DT_I64 || val->dtype == VTA_DT_U64)
        ((int64_t *)val->data)[i] = iv;
      else
        vta_elem_put(val, i, (double)iv);
      continue;
    }
    if (val->dtype == VTA_DT_F32 || val->dtype == VTA_DT_F64 || val->dtype == VTA_DT_F16)
      vta_elem_put(val, i, x);
    else
      return fail(r, "non-integer element in an integer constant");
  }
  if (peek(r) == ',') return fail(r, "more elements than the shape holds (%" PRId64 ")", count);
  return expect(r, ']');
}

/* name=value; value: int, float, [ints], f[floats], 'string'. */
static int read_attr(reader *r, int *n, vta_attr **a) {
  char *name = read_name(r);
  if (!name) return -1;
  int rc = -1;
  if (expect(r, '=')) goto out;
  skip(r);
  if (accept(r, '\'')) {
    const char *b = r->p;
    while (r->p < r->end && *r->p != '\'') r->p++;
    if (r->p >= r->end) {
      fail(r, "unterminated string");
      goto out;
    }
    char *s = strndup(b, (size_t)(r->p - b));
    r->p++;
    rc = s ? vta_attrs_set_string(n, a, name, s) : -1;
    free(s);
  } else if (r->p < r->end && (*r->p == '[' || (*r->p == 'f' && r->p + 1 < r->end && r->p[1] == '['))) {
    int floats = *r->p == 'f';
    r->p += floats ? 2 : 1;
    int cnt = 0;
    int64_t iv[64];
    float fv[64];
    if (!accept(r, ']')) {
      do {
        if (cnt >= 64) {
          fail(r, "attribute %s has more than 64 elements", name);
          goto out;
        }
        double d = 0;
        if (floats ? read_double(r, &d) : read_int(r, &iv[cnt])) goto out;
        if (floats) fv[cnt] = (float)d;
        cnt++;
      } while (accept(r, ','));
      if (expect(r, ']')) goto out;
    }
    rc = floats ? vta_attrs_set_floats(n, a, name, cnt, fv) : vta_attrs_set_ints(n, a, name, cnt, iv);
  } else {
    const char *b = r->p;
    int is_float = 0;
    while (r->p < r->end && (isalnum((unsigned char)*r->p) || strchr("+-.", *r->p))) {
      if (strchr(".eEni", *r->p)) is_float = 1;
      r->p++;
    }
    if (r->p == b) {
      fail(r, "expected a value for attribute %s", name);
      goto out;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(r->p - b), b);
    char *e;
    if (is_float) {
      double d = strtod(buf, &e);
      rc = *e ? -1 : vta_attrs_set_float(n, a, name, (float)d);
    } else {
      long long x = strtoll(buf, &e, 10);
      rc = *e ? -1 : vta_attrs_set_int(n, a, name, x);
    }
    if (*e) {
      r->p = b;
      fail(r, "bad value '%s' for attribute %s", buf, name);
    }
  }
out:
  free(name);
  if (rc && !r->failed) fail(r, "out of memory");
  return rc;
}

static int read_op(reader *r, vta_gop *op) {
  skip(r);
  const char *b = r->p;
  while (r->p < r->end && isalnum((unsigned char)*r->p)) r->p++;
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)(r->p - b), b);
  *op = vta_op_lookup(name);
  if (*op == VTA_GOP_COUNT) {
    r->p = b;
    return fail(r, "unknown operator '%s'", name);
  }
  return 0;
}

static int attr_ahead(reader *r) {
  int c = peek(r);
  if (c != '"' && !isalpha(c) && c != '_') return 0;
  const char *save = r->p;
  char *name = read_name(r);
  int ok = name && peek(r) == '=';
  free(name);
  r->p = save;
  r->failed = 0;
  return ok;
}

static int read_epilogue(reader *r, vta_node *nd) {
  vta_gop op;
  if (read_op(r, &op)) return -1;
  vta_epilogue *e = realloc(nd->epi, sizeof(vta_epilogue) * (size_t)(nd->n_epi + 1));
  if (!e) return fail(r, "out of memory");
  nd->epi = e;
  e = &nd->epi[nd->n_epi++];
  memset(e, 0, sizeof *e);
  e->op = op;
  e->arg = -1;
  if (!accept(r, '(')) return 0;
  if (peek(r) == '.' || peek(r) == '%') {
    if (accept(r, '.')) {
      if (expect(r, ',')) return -1;
      if ((e->arg = read_ref(r, 0)) < -1) return -1;
    } else {
      if ((e->arg = read_ref(r, 0)) < -1) return -1;
      if (expect(r, ',') || expect(r, '.')) return -1;
      e->arg_left = 1;
    }
    if (!accept(r, ',')) return expect(r, ')');
  }
  if (accept(r, ')')) return 0;
  do {
    if (read_attr(r, &e->n_attrs, &e->attrs)) return -1;
  } while (accept(r, ','));
  return expect(r, ')');
}

static int read_node(reader *r) {
  int outs[16], n_out = 0, ins[64], n_in = 0;
  do {
    if (n_out >= 16) return fail(r, "more than 16 outputs");
    int v = read_ref(r, 1);
    if (v < -1) return -1;
    if (v >= 0 && read_type(r, &r->g->values[v])) return -1;
    outs[n_out++] = v;
  } while (accept(r, ','));
  if (expect(r, '=')) return -1;
  vta_gop op;
  if (read_op(r, &op) || expect(r, '(')) return -1;
  if (!accept(r, ')')) {
    do {
      if (n_in >= 64) return fail(r, "more than 64 inputs");
      int v = read_ref(r, 0);
      if (v < -1) return -1;
      ins[n_in++] = v;
    } while (accept(r, ','));
    if (expect(r, ')')) return -1;
  }
  int ni = vta_graph_add_node(r->g, op, "", n_in, ins, n_out, outs);
  if (ni < 0) return fail(r, "out of memory");
  vta_node *nd = &r->g->nodes[ni];
  while (attr_ahead(r))
    if (read_attr(r, &nd->n_attrs, &nd->attrs)) return -1;
  while (accept(r, '|'))
    if (read_epilogue(r, nd)) return -1;
  if (accept(r, '#')) {
    char *name = read_name(r);
    if (!name) return -1;
    free(nd->name);
    nd->name = name;
  }
  return 0;
}

vta_graph *vta_graph_parse(const char *text, size_t len, const vta_const_ref *refs, int n_refs,
                           vta_error *err) {
  reader r = {text, text + len, text, vta_graph_create(), refs, n_refs, err, 0};
  if (!r.g) {
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    return NULL;
  }
  if (!keyword(&r, "vta-graph")) {
    fail(&r, "not a graph text (expected 'vta-graph')");
    goto bad;
  }
  if (keyword(&r, "opset")) {
    int64_t v;
    if (expect(&r, '=') || read_int(&r, &v)) goto bad;
    r.g->opset = (int)v;
  }
  for (;;) {
    int c = peek(&r);
    if (c < 0) break;
    if (keyword(&r, "input")) {
      int v = read_ref(&r, 1);
      if (v < 0) {
        if (v == -1) fail(&r, "an input needs a name");
        goto bad;
      }
      if (read_type(&r, &r.g->values[v]) || vta_graph_add_input(r.g, v)) goto bad;
    } else if (keyword(&r, "const")) {
      int v = read_ref(&r, 1);
      if (v < 0) {
        if (v == -1) fail(&r, "a constant needs a name");
        goto bad;
      }
      if (read_const(&r, v)) goto bad;
    } else if (keyword(&r, "output")) {
      int v = read_ref(&r, 0);
      if (v < 0) {
        if (v == -1) fail(&r, "an output needs a name");
        goto bad;
      }
      if (vta_graph_add_output(r.g, v)) goto bad;
    } else if (c == '%' || c == '_') {
      if (read_node(&r)) goto bad;
    } else {
      fail(&r, "expected input, const, output or a node");
      goto bad;
    }
  }
  return r.g;
bad:
  if (!r.failed) fail(&r, "out of memory");
  vta_graph_destroy(r.g);
  return NULL;
}
