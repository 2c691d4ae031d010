/* text.c - the text form of instructions and micro-ops: assembler and disassembler.
 *
 * The syntax is generated from the field table, so it needs no grammar of its own: an opcode
 * name, then `field=value` for each field of that opcode's format, with the table's field
 * names. 1-bit fields may be written as a bare word (`push_next`), enumerated fields take their
 * names (`memory_type=inp`, `alu_opcode=shr`), absent fields are 0. The disassembler prints
 * exactly the non-zero fields (plus memory_type and alu_opcode always), so binary -> text ->
 * binary is the identity, and canonical text -> binary -> text too. docs/isa-text.md is the
 * user-facing description.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vta/config.h"
#include "vta/isa.h"

static int is_flag(vta_field_pos p) { return p.width == 1 && !p.is_signed; }

static int always_printed(int id) { return id == VTA_F_MEMORY_TYPE || id == VTA_F_ALU_OPCODE; }

/* Appends with snprintf semantics: *len grows by what was needed, even past n. */
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(*len < n ? buf + *len : NULL, *len < n ? n - *len : 0, fmt, ap);
  va_end(ap);
  if (k > 0) *len += (size_t)k;
}

int vta_insn_to_text(const vta_config *cfg, const vta_insn *insn, char *buf, size_t n) {
  size_t len = 0;
  if (n) buf[0] = 0;
  int64_t op = insn->f[VTA_F_OPCODE];
  vta_format fmt = (op >= 0 && op < VTA_OP_COUNT) ? vta_opcode_format((unsigned)op) : VTA_FMT_COUNT;
  if (fmt == VTA_FMT_COUNT) {
    put(buf, n, &len, "<undefined opcode %" PRId64 ">", op);
    return (int)len;
  }
  const vta_format_layout *L = &cfg->layout[fmt];
  put(buf, n, &len, "%s", vta_opcode_name((unsigned)op));
  /* Fields in packing order, dependency flags last (they read best at the end). */
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < L->nfields; i++) {
      int id = L->order[i];
      if (id == VTA_F_OPCODE) continue;
      int dep = id >= VTA_F_POP_PREV && id <= VTA_F_PUSH_NEXT;
      if (dep != pass) continue;
      int64_t v = insn->f[id];
      if (v == 0 && !always_printed(id)) continue;
      const char *name = vta_field_name((vta_field_id)id);
      if (is_flag(L->pos[id]) && v == 1) {
        put(buf, n, &len, " %s", name);
      } else if (id == VTA_F_MEMORY_TYPE && v >= 0 && v < VTA_MEM_COUNT) {
        put(buf, n, &len, " %s=%s", name, vta_mem_type_name((unsigned)v));
      } else if (id == VTA_F_ALU_OPCODE && v >= 0 && v < VTA_ALU_COUNT) {
        put(buf, n, &len, " %s=%s", name, vta_alu_op_name((unsigned)v));
      } else {
        put(buf, n, &len, " %s=%" PRId64, name, v);
      }
    }
  }
  return (int)len;
}

int vta_uop_to_text(const vta_uop *uop, char *buf, size_t n) {
  return snprintf(buf, n, "uop dst=%u src=%u wgt=%u", uop->dst, uop->src, uop->wgt);
}

/* ---- Parsing ---- */

typedef struct token {
  const char *s;
  size_t len;
} token;

static int next_token(const char **p, token *t) {
  const char *s = *p;
  /* Every isspace() byte separates, as it ends a token below: skipping only some of them made
   * "load\v" yield an empty token, and "load\nstore" silently dropped the second line. */
  while (isspace((unsigned char)*s) || *s == ',') s++;
  if (!*s || *s == '#' || *s == ';') {
    *p = s;
    return 0;
  }
  t->s = s;
  while (*s && !isspace((unsigned char)*s) && *s != '#' && *s != ';' && *s != ',') s++;
  t->len = (size_t)(s - t->s);
  *p = s;
  return 1;
}

static int name_index(const char *const *names, int count, const char *s, size_t len) {
  for (int i = 0; i < count; i++)
    if (strlen(names[i]) == len && strncasecmp(names[i], s, len) == 0) return i;
  return -1;
}

static const char *const *mem_names(void) {
  static const char *names[VTA_MEM_COUNT];
  for (int i = 0; i < VTA_MEM_COUNT; i++) names[i] = vta_mem_type_name((unsigned)i);
  return names;
}
static const char *const *alu_names(void) {
  static const char *names[VTA_ALU_COUNT];
  for (int i = 0; i < VTA_ALU_COUNT; i++) names[i] = vta_alu_op_name((unsigned)i);
  return names;
}

/* Parses a number token (decimal or 0x hex, optional sign). */
static int parse_number(const char *s, size_t len, int64_t *out) {
  char tmp[40];
  if (len == 0 || len >= sizeof tmp) return -1;
  memcpy(tmp, s, len);
  tmp[len] = 0;
  errno = 0;
  char *end;
  /* Decimal, or hex with 0x: a leading zero is not octal (x_size=010 means ten). */
  const char *digits = tmp + (tmp[0] == '-' || tmp[0] == '+');
  int base = (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) ? 16 : 10;
  long long v = strtoll(tmp, &end, base);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* User tokens are quoted in messages up to QUOTE_MAX bytes and then cut with "...", so that a
 * huge token cannot push the rest of the sentence (what was expected, the limit) out of the
 * fixed-size message. */
#define QUOTE_MAX 40
static int qlen(size_t len) { return len > QUOTE_MAX ? QUOTE_MAX : (int)len; }
static const char *qmore(size_t len) { return len > QUOTE_MAX ? "..." : ""; }

static int fail(vta_error *err, int *errcol, const char *line, const char *at, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));
static int fail(vta_error *err, int *errcol, const char *line, const char *at, const char *fmt,
                ...) {
  if (errcol) *errcol = (int)(at - line);
  va_list ap;
  va_start(ap, fmt);
  vta_error_setv(err, VTA_ERR_INVALID, fmt, ap);
  va_end(ap);
  return VTA_ERR_INVALID;
}

int vta_insn_from_text(const vta_config *cfg, const char *line, vta_insn *out, int *errcol,
                       vta_error *err) {
  memset(out, 0, sizeof *out);
  const char *p = line;
  token t;
  if (!next_token(&p, &t)) return fail(err, errcol, line, p, "expected an instruction");
  char opnames[VTA_OP_COUNT][8];
  const char *ops[VTA_OP_COUNT];
  for (int i = 0; i < VTA_OP_COUNT; i++) {
    snprintf(opnames[i], sizeof opnames[i], "%s", vta_opcode_name((unsigned)i));
    ops[i] = opnames[i];
  }
  int op = name_index(ops, VTA_OP_COUNT, t.s, t.len);
  if (op < 0)
    return fail(err, errcol, line, t.s,
                "unknown opcode '%.*s%s' (expected load, store, gemm, alu or finish)",
                qlen(t.len), t.s, qmore(t.len));
  out->f[VTA_F_OPCODE] = op;
  vta_format fmt = vta_opcode_format((unsigned)op);
  const vta_format_layout *L = &cfg->layout[fmt];
  int given[VTA_F_COUNT] = {0};
  while (next_token(&p, &t)) {
    const char *eq = memchr(t.s, '=', t.len);
    size_t nlen = eq ? (size_t)(eq - t.s) : t.len;
    int id = vta_field_lookup(t.s, nlen);
    if (id < 0 || id == VTA_F_OPCODE)
      return fail(err, errcol, line, t.s, "unknown field '%.*s%s'", qlen(nlen), t.s,
                  qmore(nlen));
    vta_field_pos pos = L->pos[id];
    if (pos.width == 0)
      return fail(err, errcol, line, t.s, "field %s is not part of the %s instruction",
                  vta_field_name((vta_field_id)id), vta_opcode_name((unsigned)op));
    if (given[id]++)
      return fail(err, errcol, line, t.s, "field %s is given twice",
                  vta_field_name((vta_field_id)id));
    int64_t v;
    if (!eq) {
      if (!is_flag(pos))
        return fail(err, errcol, line, t.s, "field %s needs a value (%s=N)",
                    vta_field_name((vta_field_id)id), vta_field_name((vta_field_id)id));
      v = 1;
    } else {
      const char *vs = eq + 1;
      size_t vlen = t.len - nlen - 1;
      int k = -1;
      if (id == VTA_F_MEMORY_TYPE) k = name_index(mem_names(), VTA_MEM_COUNT, vs, vlen);
      if (id == VTA_F_ALU_OPCODE) k = name_index(alu_names(), VTA_ALU_COUNT, vs, vlen);
      if (k >= 0) {
        v = k;
      } else if (parse_number(vs, vlen, &v) != 0) {
        return fail(err, errcol, line, vs, "value '%.*s%s' of field %s is not a number%s",
                    qlen(vlen), vs, qmore(vlen), vta_field_name((vta_field_id)id),
                    id == VTA_F_MEMORY_TYPE  ? " or memory type (uop wgt inp acc out acc_8bit)"
                    : id == VTA_F_ALU_OPCODE ? " or ALU opcode (min max add shr mul shrclip)"
                                             : "");
      }
      int64_t lo = pos.is_signed ? -(1ll << (pos.width - 1)) : 0;
      int64_t hi = pos.is_signed ? (1ll << (pos.width - 1)) - 1 : (int64_t)((1ull << pos.width) - 1);
      if (v < lo || v > hi)
        return fail(err, errcol, line, vs,
                    "%s = %" PRId64 " does not fit its %u bits (%" PRId64 " to %" PRId64 ")",
                    vta_field_name((vta_field_id)id), v, pos.width, lo, hi);
    }
    out->f[id] = v;
  }
  return VTA_OK;
}

int vta_uop_from_text(const vta_config *cfg, const char *line, vta_uop *out, int *errcol,
                      vta_error *err) {
  memset(out, 0, sizeof *out);
  const char *p = line;
  token t;
  if (!next_token(&p, &t) || t.len != 3 || strncasecmp(t.s, "uop", 3) != 0)
    return fail(err, errcol, line, p, "expected 'uop dst=D src=S wgt=W'");
  const vta_format_layout *L = &cfg->layout[VTA_FMT_UOP];
  int given[VTA_F_COUNT] = {0};
  while (next_token(&p, &t)) {
    const char *eq = memchr(t.s, '=', t.len);
    size_t nlen = eq ? (size_t)(eq - t.s) : t.len;
    int id = eq ? vta_field_lookup(t.s, nlen) : -1;
    if (id < 0 || L->pos[id].width == 0)
      return fail(err, errcol, line, t.s, "expected dst=, src= or wgt=, got '%.*s%s'",
                  qlen(t.len), t.s, qmore(t.len));
    if (given[id]++)
      return fail(err, errcol, line, t.s, "field %s is given twice",
                  vta_field_name((vta_field_id)id));
    int64_t v;
    if (parse_number(eq + 1, t.len - nlen - 1, &v) != 0 || v < 0 ||
        v > (int64_t)((1ull << L->pos[id].width) - 1))
      return fail(err, errcol, line, eq + 1, "%s needs a number from 0 to %llu",
                  vta_field_name((vta_field_id)id),
                  (unsigned long long)((1ull << L->pos[id].width) - 1));
    if (id == VTA_F_UOP_DST) out->dst = (uint32_t)v;
    if (id == VTA_F_UOP_SRC) out->src = (uint32_t)v;
    if (id == VTA_F_UOP_WGT) out->wgt = (uint32_t)v;
  }
  return VTA_OK;
}

int vta_asm(const vta_config *cfg, const char *text, const char *filename, vta_insn_word **words,
            size_t *count, vta_error *err) {
  size_t cap = 64, n = 0;
  vta_insn_word *w = malloc(cap * sizeof *w);
  if (!w) return vta_error_set(err, VTA_ERR_NOMEM, "%s: out of memory", filename);
  const char *line = text;
  for (int lineno = 1; *line; lineno++) {
    const char *eol = strchr(line, '\n');
    size_t llen = eol ? (size_t)(eol - line) : strlen(line);
    char *copy = malloc(llen + 1);
    if (!copy) {
      free(w);
      return vta_error_set(err, VTA_ERR_NOMEM, "%s: out of memory", filename);
    }
    memcpy(copy, line, llen);
    copy[llen] = 0;
    const char *p = copy;
    token t;
    if (next_token(&p, &t)) {
      vta_insn insn;
      int col = 0;
      vta_error e;
      int rc = vta_insn_from_text(cfg, copy, &insn, &col, &e);
      if (rc == VTA_OK) {
        vta_insn_word word;
        rc = vta_insn_encode(cfg, &insn, &word, &e);
        if (rc == VTA_OK) {
          if (n == cap) {
            vta_insn_word *nw = realloc(w, 2 * cap * sizeof *w);
            if (!nw) {
              free(copy);
              free(w);
              return vta_error_set(err, VTA_ERR_NOMEM, "%s: out of memory", filename);
            }
            w = nw;
            cap *= 2;
          }
          w[n++] = word;
        }
      }
      if (rc != VTA_OK) {
        /* Tabs and other control bytes would misplace the caret or drive the terminal: echo
         * them as spaces (in the line) and '?' (in quoted tokens). A long line is echoed as a
         * window around the column, so the caret survives the message size. */
        for (char *c = copy; *c; c++)
          if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' ';
        for (char *c = e.msg; *c; c++)
          if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
        size_t from = col > 60 ? (size_t)col - 40 : 0;
        const char *lead = from ? "..." : "", *tail = llen - from > 100 ? "..." : "";
        vta_error_set(err, rc, "%s:%d:%d: %s\n  %s%.100s%s\n  %*s^", filename, lineno, col + 1,
                      e.msg, lead, copy + from, tail, (int)(col - from + strlen(lead)), "");
        free(copy);
        free(w);
        return rc;
      }
    }
    free(copy);
    line = eol ? eol + 1 : line + llen;
  }
  *words = w;
  *count = n;
  return VTA_OK;
}

int vta_disasm(const vta_config *cfg, const uint8_t *bytes, size_t nbytes, FILE *out,
               int with_index, vta_error *err) {
  if (nbytes % VTA_INSN_BYTES)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "%zu bytes is not a whole number of 16-byte instructions (%zu whole, "
                         "%zu bytes left over: truncated?)",
                         nbytes, nbytes / VTA_INSN_BYTES, nbytes % VTA_INSN_BYTES);
  char text[512];
  for (size_t i = 0; i < nbytes / VTA_INSN_BYTES; i++) {
    vta_insn_word w;
    vta_insn insn;
    vta_insn_word_load(bytes + i * VTA_INSN_BYTES, &w);
    vta_error e;
    if (vta_insn_decode(cfg, &w, &insn, &e) != VTA_OK)
      return vta_error_set(err, VTA_ERR_INVALID, "instruction %zu (byte offset %zu): %s", i,
                           i * VTA_INSN_BYTES, e.msg);
    vta_insn_to_text(cfg, &insn, text, sizeof text);
    if (with_index)
      fprintf(out, "%-100s # %zu\n", text, i);
    else
      fprintf(out, "%s\n", text);
  }
  if (ferror(out)) return vta_error_set(err, VTA_ERR_IO, "write error");
  return VTA_OK;
}
