/* test_fuzz.c - the bad-input paths of isa/ and sim/mem/: random and mutated inputs must never
 * crash, hang or be accepted silently.
 *
 * The design idea: a fuzzer without a corpus of expected outputs can still check properties
 * that hold for every input. For each entry point: a rejected input always comes with a
 * non-empty one-sentence message (naming the file, key or field); an accepted input round-trips
 * (a configuration re-derives to itself and agrees with ISA.md's formulas, recomputed here
 * independently; an instruction word re-encodes to the same bits; assembled text disassembles
 * and reassembles to the same words). The sanitizers of the test build turn any memory or
 * undefined-behaviour fault into a failure.
 *
 * Everything is seeded and bounded: the same seed gives the same inputs, and the whole file runs
 * in a few seconds under ASan+UBSan. VTA_FUZZ_SEED=<n> picks another seed and VTA_FUZZ_SCALE=<k>
 * multiplies every iteration count, for a longer hunt; every failure message quotes the seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/mem/mem.h"
#include "vta/config.h"
#include "vta/isa.h"

/* ---- Seeded randomness ---- */

static uint64_t g_seed = 0x5eed2024f00dull;
static uint64_t g_rng;
static int g_scale = 1;

static uint64_t rnd(void) { /* xorshift64* */
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 2685821657736338717ull;
}
static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

/* Every test restarts the generator, so each can be rerun alone with the same inputs. */
static int fuzz_setup(void **state) {
  const char *s = getenv("VTA_FUZZ_SEED"), *k = getenv("VTA_FUZZ_SCALE");
  if (s && *s) g_seed = strtoull(s, NULL, 0);
  if (k && *k) g_scale = atoi(k) > 0 ? atoi(k) : 1;
  g_rng = g_seed ? g_seed : 1;
  return 0;
}

#define ITERS(n) ((n)*g_scale)
#define FAIL(...)                                             \
  do {                                                        \
    print_error("seed 0x%llx: ", (unsigned long long)g_seed); \
    fail_msg(__VA_ARGS__);                                    \
  } while (0)

/* A fresh error record whose message is empty, so a stale message cannot pass for a new one. */
static void err_reset(vta_error *e) {
  e->status = VTA_OK;
  e->msg[0] = 0;
}

/* A rejection must say why in one line (the assembler alone adds the source line and a
 * caret after its first line). */
static void expect_message(int rc, const vta_error *e, const char *what, int one_line) {
  if (rc == VTA_OK) return;
  if (e->msg[0] == 0) FAIL("%s: rejected (status %d) with an empty message", what, rc);
  if (one_line && strchr(e->msg, '\n')) FAIL("%s: message spans lines: %s", what, e->msg);
  for (const char *c = e->msg; *c; c++)
    if ((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t')
      FAIL("%s: control byte 0x%02x in message: %s", what, (unsigned char)*c, e->msg);
}

/* ---- Configurations ---- */

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  assert_true(n >= 0);
  rewind(f);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  buf[n] = 0;
  if (len) *len = (size_t)n;
  return buf;
}

/* The shipped configurations (every .json file in configs/), read once. */
#define MAX_SEEDS 32
static char *g_cfg_text[MAX_SEEDS];
static int g_ncfg;

static void load_shipped_configs(void) {
  if (g_ncfg) return;
  DIR *d = opendir("configs");
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d)) != NULL && g_ncfg < MAX_SEEDS) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    char path[300];
    snprintf(path, sizeof path, "configs/%s", e->d_name);
    g_cfg_text[g_ncfg++] = slurp(path, NULL);
  }
  closedir(d);
  assert_true(g_ncfg >= 3);
}

/* ISA.md sections 1-2 recomputed from the keys alone, without the library's field table: the
 * log2 depth of each buffer and the end bit of every format under the packing rule. */
typedef struct model {
  int log_depth[VTA_MEM_COUNT];
  int fits; /* every format fits (128 bits, micro-op 32) and every depth is 1..16 bits */
  int lsb[VTA_FMT_COUNT][20], width[VTA_FMT_COUNT][20], nfields[VTA_FMT_COUNT];
} model;

static int pack(const int *w, int n, int limit, int straddle, int *lsb) {
  int bit = 0;
  for (int i = 0; i < n; i++) {
    if (straddle && bit < 64 && bit + w[i] > 64) bit = 64;
    lsb[i] = bit;
    bit += w[i];
  }
  return bit <= limit;
}

static void model_of(const vta_config *c, model *m) {
  memset(m, 0, sizeof *m);
  /* LOG_X_DEPTH = LOG_X_BUFF_SIZE - log2(element bits) + 3 (ISA.md section 1). */
  m->log_depth[VTA_MEM_UOP] = c->log_uop_buff_size - 5 + 3;
  m->log_depth[VTA_MEM_INP] =
      c->log_inp_buff_size - (c->log_batch + c->log_block_in + c->log_inp_width) + 3;
  m->log_depth[VTA_MEM_WGT] =
      c->log_wgt_buff_size - (c->log_block_out + c->log_block_in + c->log_wgt_width) + 3;
  m->log_depth[VTA_MEM_ACC] =
      c->log_acc_buff_size - (c->log_batch + c->log_block_out + c->log_acc_width) + 3;
  m->log_depth[VTA_MEM_OUT] = m->log_depth[VTA_MEM_ACC_8BIT] = m->log_depth[VTA_MEM_ACC];
  int U = m->log_depth[VTA_MEM_UOP], I = m->log_depth[VTA_MEM_INP];
  int W = m->log_depth[VTA_MEM_WGT], A = m->log_depth[VTA_MEM_ACC];
  m->fits = 1;
  for (int t = 0; t < VTA_MEM_COUNT; t++)
    if (m->log_depth[t] < 1 || m->log_depth[t] > 16) m->fits = 0;
  const int mem[] = {3, 1, 1, 1, 1, 3, 16, 32, 16, 16, 16, 4, 4, 4, 4};
  const int gemm[] = {3, 1, 1, 1, 1, 1, U, U + 1, 14, 14, A, A, I, I, W, W};
  const int alu[] = {3, 1, 1, 1, 1, 1, U, U + 1, 14, 14, A, A, A, A, 3, 1, 16};
  const int fin[] = {3, 1, 1, 1, 1};
  const int uop[] = {A, A > I ? A : I, W};
  const struct {
    const int *w;
    int n, limit, straddle;
  } f[VTA_FMT_COUNT] = {
      [VTA_FMT_MEM] = {mem, 15, 128, 1}, [VTA_FMT_GEMM] = {gemm, 16, 128, 1},
      [VTA_FMT_ALU] = {alu, 17, 128, 1}, [VTA_FMT_FINISH] = {fin, 5, 128, 1},
      [VTA_FMT_UOP] = {uop, 3, 32, 0},
  };
  for (int k = 0; k < VTA_FMT_COUNT; k++) {
    m->nfields[k] = f[k].n;
    memcpy(m->width[k], f[k].w, (size_t)f[k].n * sizeof(int));
    if (!pack(f[k].w, f[k].n, f[k].limit, f[k].straddle, m->lsb[k])) m->fits = 0;
  }
}

/* An accepted configuration: derived values match ISA.md, derivation is idempotent, and every
 * field sits where the packing rule puts it. */
static void check_accepted_config(const vta_config *c, const char *what) {
  model m;
  model_of(c, &m);
  if (!m.fits) FAIL("%s: accepted, but ISA.md says a field no longer fits", what);
  uint32_t batch = 1u << c->log_batch, bi = 1u << c->log_block_in, bo = 1u << c->log_block_out;
  uint32_t expect_bytes[VTA_MEM_COUNT] = {
      [VTA_MEM_UOP] = 4,
      [VTA_MEM_INP] = batch * bi * (1u << c->log_inp_width) / 8,
      [VTA_MEM_WGT] = bo * bi * (1u << c->log_wgt_width) / 8,
      [VTA_MEM_ACC] = batch * bo * (1u << c->log_acc_width) / 8,
      [VTA_MEM_OUT] = batch * bo * (1u << c->log_inp_width) / 8,
      [VTA_MEM_ACC_8BIT] = batch * bo * (1u << c->log_acc_width) / 8 / 4,
  };
  for (int t = 0; t < VTA_MEM_COUNT; t++) {
    if (c->elem_bytes[t] != expect_bytes[t])
      FAIL("%s: %s element bytes %u, ISA.md gives %u", what, vta_mem_type_name((unsigned)t),
           c->elem_bytes[t], expect_bytes[t]);
    if (c->log_depth[t] != m.log_depth[t] || c->depth[t] != (1u << m.log_depth[t]))
      FAIL("%s: %s depth 2^%d, ISA.md gives 2^%d", what, vta_mem_type_name((unsigned)t),
           c->log_depth[t], m.log_depth[t]);
  }
  if (c->log_out_buff_size != c->log_acc_buff_size + c->log_out_width - c->log_acc_width)
    FAIL("%s: LOG_OUT_BUFF_SIZE %d", what, c->log_out_buff_size);
  if (c->macs_per_cycle != (uint64_t)batch * bi * bo) FAIL("%s: macs_per_cycle", what);
  for (int k = 0; k < VTA_FMT_COUNT; k++) {
    const vta_format_layout *L = &c->layout[k];
    if (L->nfields != m.nfields[k])
      FAIL("%s: %s format has %d fields, ISA.md lists %d", what, vta_format_name((vta_format)k),
           L->nfields, m.nfields[k]);
    for (int i = 0; i < L->nfields; i++) {
      vta_field_pos p = L->pos[L->order[i]];
      if (p.lsb != m.lsb[k][i] || p.width != m.width[k][i])
        FAIL("%s: %s field %s at [%d +%d], ISA.md packing gives [%d +%d]", what,
             vta_format_name((vta_format)k), vta_field_name((vta_field_id)L->order[i]), p.lsb,
             p.width, m.lsb[k][i], m.width[k][i]);
    }
  }
  vta_config again = *c;
  vta_error e;
  err_reset(&e);
  if (vta_config_derive(&again, &e) != VTA_OK) FAIL("%s: re-derive fails: %s", what, e.msg);
  if (memcmp(&again, c, sizeof again) != 0) FAIL("%s: re-derive changes the config", what);
}

/* Parses text (which may be anything) and checks the properties; returns the status. */
static int parse_and_check(const char *text, const char *what) {
  vta_config c;
  vta_error e;
  err_reset(&e);
  memset(&c, 0xa5, sizeof c);
  int rc = vta_config_parse(&c, text, "fuzz.json", &e);
  if (rc == VTA_OK) {
    check_accepted_config(&c, what);
  } else {
    if (rc != VTA_ERR_INVALID) FAIL("%s: status %d, expected invalid", what, rc);
    expect_message(rc, &e, what, 1);
    if (strncmp(e.msg, "fuzz.json", 9) != 0)
      FAIL("%s: message does not name the file: %s", what, e.msg);
  }
  return rc;
}

/* Appends to a growing string. */
typedef struct sbuf {
  char *s;
  size_t len, cap;
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->s = realloc(b->s, b->cap);
    assert_non_null(b->s);
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}
static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  sb_putn(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Splices: replaces [at, at+del) of b by ins. */
static void sb_splice(sbuf *b, size_t at, size_t del, const char *ins, size_t n) {
  if (at > b->len) at = b->len;
  if (del > b->len - at) del = b->len - at;
  sbuf t = {0};
  sb_putn(&t, b->s, at);
  sb_putn(&t, ins, n);
  sb_putn(&t, b->s + at + del, b->len - at - del);
  free(b->s);
  *b = t;
}

static const char *const k_json_bits[] = {
    "1e999",
    "-1e999",
    "1e308",
    "9223372036854775808",
    "-2147483649",
    "4294967296",
    "0.5",
    "-0",
    "1e-320",
    "null",
    "true",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "\\u0000",
    "\\ud800",
    "\"LOG_BLOCK\": 5",
    "\"LOG_BLOCK_IN\": 3",
    "\"LOG_BATCH\": 4",
    "\"HW_FREQ\": 333",
    "\"TARGET\": \"x\\ny\"",
    "\"\\u0001\": 1",
    "[[[[[[[[",
    "{\"a\":{\"b\":",
    "//",
    "/*",
    "\xff\xfe",
    "\xc3\xa9",
    "\t",
    "\r\n",
};

static void mutate_text(sbuf *b) {
  size_t pos = b->len ? below((uint32_t)b->len + 1) : 0;
  switch (below(8)) {
  case 0: /* truncate */
    b->len = pos;
    b->s[b->len] = 0;
    break;
  case 1: /* flip bits of a byte (never to NUL: parse sees a C string) */
    if (b->len) {
      size_t i = below((uint32_t)b->len);
      char ch = (char)(b->s[i] ^ (1 << below(8)));
      b->s[i] = ch ? ch : 'Q';
    }
    break;
  case 2: { /* insert a fragment */
    const char *f = k_json_bits[below(sizeof k_json_bits / sizeof k_json_bits[0])];
    sb_splice(b, pos, 0, f, strlen(f));
    break;
  }
  case 3: /* delete a range */
    sb_splice(b, pos, below(16) + 1, "", 0);
    break;
  case 4: { /* duplicate a range (duplicate keys, repeated members) */
    size_t n = below(40) + 1;
    if (pos + n > b->len) n = b->len - pos;
    char *copy = malloc(n + 1);
    assert_non_null(copy);
    memcpy(copy, b->s + pos, n);
    sb_splice(b, below((uint32_t)b->len + 1), 0, copy, n);
    free(copy);
    break;
  }
  case 5: { /* replace a number by a huge, negative, fractional or exotic one */
    static const char *const nums[] = {
        "99999999999999999999", "-7", "3.25", "1e10", "0",  "2147483648",
        "-2147483648",          "17", "26",   "27",   "1E2"};
    for (size_t i = pos; i < b->len; i++)
      if (b->s[i] >= '0' && b->s[i] <= '9') {
        size_t j = i;
        while (j < b->len && b->s[j] >= '0' && b->s[j] <= '9') j++;
        const char *n = nums[below(sizeof nums / sizeof nums[0])];
        sb_splice(b, i, j - i, n, strlen(n));
        break;
      }
    break;
  }
  case 6: { /* nesting around a value or the whole document */
    int depth = (int)below(3) == 0 ? 3000 : (int)below(20) + 1;
    sbuf t = {0};
    for (int i = 0; i < depth; i++) sb_puts(&t, below(2) ? "[" : "{\"k\":");
    sb_splice(b, pos, 0, t.s, t.len);
    free(t.s);
    break;
  }
  default: { /* random printable or high byte */
    char ch = (char)(below(255) + 1);
    sb_splice(b, pos, 0, &ch, 1);
    break;
  }
  }
}

static void test_config_parse_survives_mutated_shipped_configs(void **state) {
  load_shipped_configs();
  int accepted = 0;
  for (int n = 0; n < ITERS(4000); n++) {
    sbuf b = {0};
    sb_puts(&b, g_cfg_text[below((uint32_t)g_ncfg)]);
    int k = (int)below(4) + 1;
    for (int i = 0; i < k; i++) mutate_text(&b);
    char what[64];
    snprintf(what, sizeof what, "mutant %d", n);
    if (parse_and_check(b.s, what) == VTA_OK) accepted++;
    free(b.s);
  }
  /* Some mutations (a flipped byte in TARGET, a changed clock) keep a valid file: the
   * accepted path must have been exercised too. */
  assert_true(accepted > 0);
}

/* Random objects over the real keys with values around their limits, decided by the model:
 * accepted exactly when every key is in its range, aliases agree and ISA.md's fields fit. */
static void test_config_parse_accepts_exactly_what_isa_md_allows(void **state) {
  static const struct {
    const char *key;
    int lo, hi;
  } ints[] = {
      {"LOG_INP_WIDTH", 3, 3},      {"LOG_WGT_WIDTH", 3, 3},      {"LOG_ACC_WIDTH", 5, 5},
      {"LOG_OUT_WIDTH", 3, 3},      {"LOG_BATCH", 0, 4},          {"LOG_BLOCK", 1, 6},
      {"LOG_BLOCK_IN", 1, 6},       {"LOG_BLOCK_OUT", 1, 6},      {"LOG_UOP_BUFF_SIZE", 2, 24},
      {"LOG_INP_BUFF_SIZE", 1, 24}, {"LOG_WGT_BUFF_SIZE", 1, 26}, {"LOG_ACC_BUFF_SIZE", 1, 26},
      {"LOG_BUS_WIDTH", 5, 10},     {"DRAM_LATENCY", 0, 100000},
  };
  enum { NINT = sizeof ints / sizeof ints[0] };
  int accepted = 0, rejected = 0;
  for (int n = 0; n < ITERS(6000); n++) {
    /* Start from the default values of ISA.md section 1. */
    int val[NINT] = {3, 3, 5, 3, 0, 4, 4, 4, 15, 15, 18, 17, 6, 32};
    int present[NINT] = {0};
    sbuf b = {0};
    sb_puts(&b, "{");
    int nkeys = (int)below(7), valid = 1, first = 1;
    for (int i = 0; i < nkeys; i++) {
      int k = (int)below(NINT);
      if (present[k]) continue; /* duplicates are covered by the mutation test */
      int v;
      if (below(8) == 0) {
        v = ints[k].lo - 1 - (int)below(3); /* just below the range */
      } else if (below(8) == 0) {
        v = ints[k].hi + 1 + (int)below(3);
      } else {
        v = ints[k].lo + (int)below((uint32_t)(ints[k].hi - ints[k].lo + 1));
        /* Buffer sizes near the values that still fit, where the interesting edges are. */
        if (strstr(ints[k].key, "BUFF") && below(4)) v = 10 + (int)below(12);
      }
      if (v < ints[k].lo || v > ints[k].hi) valid = 0;
      present[k] = 1;
      val[k] = v;
      sb_printf(&b, "%s\"%s\": %d", first ? "" : ", ", ints[k].key, v);
      first = 0;
    }
    if (below(6) == 0) {
      int mhz = (int)below(2200);
      int both = below(3) == 0, other = both && below(2) ? mhz + 1 : mhz;
      sb_printf(&b, "%s\"CLOCK_MHZ\": %d", first ? "" : ", ", mhz);
      if (both) sb_printf(&b, ", \"HW_FREQ\": %d", other);
      if (mhz < 1 || mhz > 2000 || other != mhz) valid = 0;
      first = 0;
    }
    sb_puts(&b, "}");
    /* LOG_BLOCK sets both; the legacy keys set one each and must agree with it. */
    int lb = 5, lbi = 6, lbo = 7;
    vta_config c;
    vta_config_default(&c);
    c.log_inp_width = val[0];
    c.log_wgt_width = val[1];
    c.log_acc_width = val[2];
    c.log_out_width = val[3];
    c.log_batch = val[4];
    c.log_block_in = present[lbi] ? val[lbi] : val[lb];
    c.log_block_out = present[lbo] ? val[lbo] : val[lb];
    if (present[lb] &&
        ((present[lbi] && val[lbi] != val[lb]) || (present[lbo] && val[lbo] != val[lb])))
      valid = 0;
    c.log_uop_buff_size = val[8];
    c.log_inp_buff_size = val[9];
    c.log_wgt_buff_size = val[10];
    c.log_acc_buff_size = val[11];
    model m;
    if (valid) {
      model_of(&c, &m);
      valid = m.fits;
    }
    char what[600];
    snprintf(what, sizeof what, "%.580s", b.s);
    int rc = parse_and_check(b.s, what);
    if (rc == VTA_OK && !valid) FAIL("accepted, but ISA.md forbids it: %s", b.s);
    if (rc != VTA_OK && valid) {
      vta_error e;
      vta_config_parse(&c, b.s, "fuzz.json", &e);
      FAIL("rejected, but ISA.md allows it: %s: %s", b.s, e.msg);
    }
    if (rc == VTA_OK)
      accepted++;
    else
      rejected++;
    free(b.s);
  }
  assert_true(accepted > 100 && rejected > 100);
}

/* Rejections caused by one key name that key, its value and its limit. */
static void test_config_messages_name_key_value_and_limit(void **state) {
  static const struct {
    const char *json, *words[3];
  } cases[] = {
      {"{\"LOG_BATCH\": 99999999999}", {"LOG_BATCH", "99999999999", "0 to 4"}},
      {"{\"LOG_BATCH\": 1e999}", {"LOG_BATCH", "inf", "0 to 4"}},
      {"{\"LOG_BLOCK\": 16777217}", {"LOG_BLOCK", "16777217", "1 to 6"}},
      {"{\"DRAM_LATENCY\": -2147483649}", {"DRAM_LATENCY", "-2147483649", "0 to 100000"}},
      {"{\"CLOCK_MHZ\": 2000.5}", {"CLOCK_MHZ", "2000.5", "1 to 2000"}},
      {"{\"LOG_BLOCK\": 4, \"LOG_BLOCK_IN\": 5}",
       {"LOG_BLOCK = 4", "LOG_BLOCK_IN = 5", "disagree"}},
      {"{\"LOG_BLOCK_OUT\": 3, \"LOG_BLOCK\": 4}",
       {"LOG_BLOCK = 4", "LOG_BLOCK_OUT = 3", "disagree"}},
      {"{\"CLOCK_MHZ\": 100, \"HW_FREQ\": 300}", {"CLOCK_MHZ = 100", "HW_FREQ = 300", "disagree"}},
      {"{\"LOG_\\nKEY\": 1}", {"unknown key", "LOG_\\x0aKEY", "known:"}},
      {"{\"TARGET\": \"a\\u0001b\"}", {"TARGET", "a\\x01b", "letters"}},
      {"{\"LOG_WGT_BUFF_SIZE\": 27}", {"LOG_WGT_BUFF_SIZE", "27", "1 to 26"}},
      {"{\"LOG_WGT_BUFF_SIZE\": 25}", {"LOG_WGT_BUFF_SIZE = 25", "16-bit", "at most 24"}},
      {"{\"LOG_BLOCK\": 6, \"LOG_ACC_BUFF_SIZE\": 8}",
       {"LOG_ACC_BUFF_SIZE = 8", "256 bytes", "at least 9"}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vta_config c;
    vta_error e;
    err_reset(&e);
    if (parse_and_check(cases[i].json, cases[i].json) == VTA_OK)
      fail_msg("accepted: %s", cases[i].json);
    vta_config_parse(&c, cases[i].json, "fuzz.json", &e);
    for (int w = 0; w < 3; w++)
      if (!strstr(e.msg, cases[i].words[w]))
        fail_msg("for %s: message \"%s\" lacks \"%s\"", cases[i].json, e.msg, cases[i].words[w]);
  }
  /* The same key value in both spellings is not a conflict. */
  assert_int_equal(parse_and_check("{\"LOG_BLOCK\": 5, \"LOG_BLOCK_IN\": 5, \"LOG_BLOCK_OUT\": 5}",
                                   "agreeing aliases"),
                   VTA_OK);
}

/* vta_config_load on files no parser should ever see. */
static void test_config_load_survives_hostile_files(void **state) {
  char dir[] = "/tmp/vta_fuzz_cfg.XXXXXX", path[128];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/c.json", dir);
  load_shipped_configs();
  for (int n = 0; n < ITERS(60); n++) {
    sbuf b = {0};
    sb_puts(&b, g_cfg_text[below((uint32_t)g_ncfg)]);
    size_t nul = below((uint32_t)b.len);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    switch (n % 4) {
    case 0: /* a NUL byte inside the text */
      b.s[nul] = 0;
      fwrite(b.s, 1, b.len, f);
      break;
    case 1: /* random bytes */
      for (size_t i = 0; i < b.len; i++) fputc((int)below(256), f);
      break;
    case 2: /* a valid file followed by trailing garbage */
      fwrite(b.s, 1, b.len, f);
      fputs(below(2) ? "{}" : "x", f);
      break;
    default: /* empty */
      break;
    }
    fclose(f);
    vta_config c;
    vta_error e;
    err_reset(&e);
    int rc = vta_config_load(&c, path, &e);
    char what[64];
    snprintf(what, sizeof what, "hostile file %d (kind %d)", n, n % 4);
    if (n % 4 != 1 && rc == VTA_OK) FAIL("%s: accepted", what);
    if (rc == VTA_OK) check_accepted_config(&c, what);
    expect_message(rc, &e, what, 1);
    if (rc != VTA_OK && !strstr(e.msg, path)) FAIL("%s: message lacks the path: %s", what, e.msg);
    free(b.s);
  }
  /* More than the 1 MiB limit of whitespace around a valid object, a directory, no file. */
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  for (int i = 0; i < (1 << 21) / 64; i++)
    fputs("                                                               \n", f);
  fputs("{}", f);
  fclose(f);
  const char *paths[] = {path, dir, "/nonexistent/vta.json"};
  const char *words[] = {"1 MiB", "Is a directory", "No such file"};
  for (int i = 0; i < 3; i++) {
    vta_config c;
    vta_error e;
    err_reset(&e);
    int rc = vta_config_load(&c, paths[i], &e);
    if (rc == VTA_OK) fail_msg("accepted %s", paths[i]);
    expect_message(rc, &e, paths[i], 1);
    if (!strstr(e.msg, words[i]))
      fail_msg("%s: message \"%s\" lacks \"%s\"", paths[i], e.msg, words[i]);
  }
  unlink(path);
  rmdir(dir);
}

/* ---- Instruction words ---- */

static const char *const k_cfg_files[] = {"configs/vta_default.json", "configs/batch4.json",
                                          "configs/block32.json", "configs/small.json",
                                          "configs/block4.json"};
#define NCFG (sizeof k_cfg_files / sizeof k_cfg_files[0])

static void load_cfg(size_t i, vta_config *c) {
  vta_error e;
  if (vta_config_load(c, k_cfg_files[i], &e) != VTA_OK) fail_msg("%s", e.msg);
}

/* A random word, biased towards the interesting ones: defined opcodes, reserved bits clear. */
static void random_word(const vta_config *c, vta_insn_word *w) {
  w->w[0] = rnd();
  w->w[1] = rnd();
  if (below(4)) {
    unsigned op = below(5);
    w->w[0] = (w->w[0] & ~7ull) | op;
    if (below(3)) {
      const vta_format_layout *L = &c->layout[vta_opcode_format(op)];
      w->w[0] &= ~L->reserved_mask[0];
      w->w[1] &= ~L->reserved_mask[1];
    }
  }
}

static void test_decode_random_words_reencode_or_are_rejected(void **state) {
  for (size_t k = 0; k < NCFG; k++) {
    vta_config c;
    load_cfg(k, &c);
    int ok = 0, bad = 0;
    for (int n = 0; n < ITERS(40000); n++) {
      vta_insn_word w, w2;
      vta_insn insn, back;
      vta_error e;
      err_reset(&e);
      random_word(&c, &w);
      int rc = vta_insn_decode(&c, &w, &insn, &e);
      char what[96];
      snprintf(what, sizeof what, "%s word %016llx%016llx", k_cfg_files[k],
               (unsigned long long)w.w[1], (unsigned long long)w.w[0]);
      if (rc != VTA_OK) {
        bad++;
        if (rc != VTA_ERR_INVALID) FAIL("%s: status %d", what, rc);
        expect_message(rc, &e, what, 1);
        if (!strstr(e.msg, "opcode") && !strstr(e.msg, "reserved bit"))
          FAIL("%s: message names neither opcode nor reserved bit: %s", what, e.msg);
        continue;
      }
      ok++;
      if (vta_insn_encode(&c, &insn, &w2, &e) != VTA_OK) FAIL("%s: re-encode: %s", what, e.msg);
      if (w.w[0] != w2.w[0] || w.w[1] != w2.w[1]) FAIL("%s: re-encodes differently", what);
      /* Through the text form and back. */
      char text[512];
      int len = vta_insn_to_text(&c, &insn, text, sizeof text);
      if (len <= 0 || (size_t)len >= sizeof text) FAIL("%s: text length %d", what, len);
      int col = -1;
      if (vta_insn_from_text(&c, text, &back, &col, &e) != VTA_OK)
        FAIL("%s: its text '%s' does not parse: %s", what, text, e.msg);
      if (memcmp(&insn, &back, sizeof insn) != 0)
        FAIL("%s: text '%s' reads back differently", what, text);
      /* Semantic check may refuse, but must say why. */
      err_reset(&e);
      expect_message(vta_insn_check(&c, &insn, &e), &e, what, 1);
    }
    assert_true(ok > 1000 && bad > 1000);
  }
}

/* The byte-level disassembler: any buffer either disassembles to one line per word (which
 * assembles back to the same bytes) or is rejected naming the instruction index. */
static void test_disasm_random_buffers(void **state) {
  vta_config c;
  vta_config_default(&c);
  int ok = 0;
  for (int n = 0; n < ITERS(1500); n++) {
    size_t nwords = below(12), nbytes = nwords * 16 + (below(5) == 0 ? below(16) : 0);
    uint8_t *bytes = malloc(nbytes + 1);
    assert_non_null(bytes);
    for (size_t i = 0; i < nwords; i++) {
      vta_insn_word w;
      random_word(&c, &w);
      if (below(8)) { /* mostly valid words, so whole streams get through */
        vta_insn tmp;
        if (vta_insn_decode(&c, &w, &tmp, NULL) != VTA_OK) w.w[0] = w.w[1] = 3; /* finish */
      }
      vta_insn_word_store(&w, bytes + 16 * i);
    }
    for (size_t i = nwords * 16; i < nbytes; i++) bytes[i] = (uint8_t)rnd();
    char *text = NULL;
    size_t tlen = 0;
    FILE *out = open_memstream(&text, &tlen);
    assert_non_null(out);
    vta_error e;
    err_reset(&e);
    int rc = vta_disasm(&c, bytes, nbytes, out, (int)below(2), &e);
    fclose(out);
    char what[64];
    snprintf(what, sizeof what, "disasm buffer %d (%zu bytes)", n, nbytes);
    if (rc != VTA_OK) {
      expect_message(rc, &e, what, 1);
      if (nbytes % 16 == 0 && !strstr(e.msg, "instruction "))
        FAIL("%s: message lacks the instruction index: %s", what, e.msg);
    } else {
      ok++;
      if (nbytes % 16) FAIL("%s: accepted a partial instruction", what);
      size_t lines = 0;
      for (size_t i = 0; i < tlen; i++) lines += text[i] == '\n';
      if (lines != nwords) FAIL("%s: %zu lines for %zu words", what, lines, nwords);
      vta_insn_word *words = NULL;
      size_t count = 0;
      if (vta_asm(&c, text, "disasm", &words, &count, &e) != VTA_OK)
        FAIL("%s: its output does not assemble: %s", what, e.msg);
      if (count != nwords) FAIL("%s: %zu words back for %zu", what, count, nwords);
      for (size_t i = 0; i < count; i++) {
        uint8_t b[16];
        vta_insn_word_store(&words[i], b);
        if (memcmp(b, bytes + 16 * i, 16) != 0) FAIL("%s: word %zu differs after asm", what, i);
      }
      free(words);
    }
    free(text);
    free(bytes);
  }
  assert_true(ok > 100);
}

/* Random field values, in and out of range, in and out of the format: encode accepts exactly
 * the values that fit and names the field, the value and the limit otherwise. */
static void test_encode_random_values_accepts_exactly_what_fits(void **state) {
  vta_config c;
  vta_config_default(&c);
  for (int n = 0; n < ITERS(30000); n++) {
    vta_insn in;
    memset(&in, 0, sizeof in);
    int64_t op = below(16) ? (int64_t)below(5) : (int64_t)(rnd() % 11) - 3;
    in.f[VTA_F_OPCODE] = op;
    vta_format fmt = op >= 0 && op < VTA_OP_COUNT ? vta_opcode_format((unsigned)op) : VTA_FMT_COUNT;
    int expect_ok = fmt != VTA_FMT_COUNT;
    int bad_field = -1;
    int nset = (int)below(5);
    for (int i = 0; i < nset; i++) {
      int id = 1 + (int)below(VTA_F_COUNT - 1);
      int64_t v;
      switch (below(5)) {
      case 0:
        v = (int64_t)rnd();
        break;
      case 1:
        v = -(int64_t)below(70000);
        break;
      case 2:
        v = (int64_t)1 << below(40);
        break;
      default:
        v = (int64_t)below(3);
        break;
      }
      in.f[id] = v;
    }
    if (expect_ok) {
      const vta_format_layout *L = &c.layout[fmt];
      for (int id = 1; id < VTA_F_COUNT && expect_ok; id++) {
        vta_field_pos p = L->pos[id];
        int64_t v = in.f[id];
        int fits;
        if (p.width == 0)
          fits = v == 0;
        else if (p.is_signed)
          fits = v >= -((int64_t)1 << (p.width - 1)) && v < ((int64_t)1 << (p.width - 1));
        else
          fits = v >= 0 && v < ((int64_t)1 << p.width);
        if (!fits) {
          expect_ok = 0;
          bad_field = id;
        }
      }
    }
    vta_insn_word w;
    vta_error e;
    err_reset(&e);
    int rc = vta_insn_encode(&c, &in, &w, &e);
    char what[64];
    snprintf(what, sizeof what, "encode %d (opcode %lld)", n, (long long)op);
    if ((rc == VTA_OK) != expect_ok)
      FAIL("%s: status %d, expected %s", what, rc, expect_ok ? "ok" : "invalid");
    expect_message(rc, &e, what, 1);
    if (bad_field >= 0) {
      char val[32];
      snprintf(val, sizeof val, "= %lld ", (long long)in.f[bad_field]);
      if (!strstr(e.msg, vta_field_name((vta_field_id)bad_field)) || !strstr(e.msg, val))
        FAIL("%s: message does not name field %s %s: %s", what,
             vta_field_name((vta_field_id)bad_field), val, e.msg);
    }
    if (rc == VTA_OK) {
      vta_insn back;
      assert_int_equal(vta_insn_decode(&c, &w, &back, NULL), VTA_OK);
      if (memcmp(&back, &in, sizeof in) != 0) FAIL("%s: decode differs", what);
    }
  }
}

/* ---- Assembler ---- */

static const char *const k_words[] = {
    "load",
    "store",
    "gemm",
    "alu",
    "finish",
    "LOAD",
    "Finish",
    "uop",
    "memory_type=inp",
    "memory_type=acc_8bit",
    "memory_type=7",
    "memory_type=8",
    "memory_type=",
    "alu_opcode=shr",
    "alu_opcode=mul",
    "alu_opcode=9",
    "imm=-32768",
    "imm=32767",
    "imm=32768",
    "imm=-0x8000",
    "imm=0xffff",
    "x_size=010",
    "x_size=0x",
    "x_size=+5",
    "x_size=--5",
    "x_size=65535",
    "x_size=65536",
    "dram_base=4294967295",
    "dram_base=4294967296",
    "dram_base=99999999999999999999999",
    "sram_base=0xFFFF",
    "uop_end=8192",
    "uop_end=16384",
    "iter_out=16383",
    "iter_in=16384",
    "push_next",
    "pop_prev",
    "push_prev=1",
    "pop_next=2",
    "reset_reg",
    "use_imm",
    "y_pad_0=15",
    "x_pad_1=16",
    "wgt_factor_in=1023",
    "opcode=3",
    "dst=1",
    "src=",
    "=",
    "==",
    "x_size==1",
    "#",
    ";",
    ",",
    ",,",
    "#comment",
    "\t",
    "\r",
    "\v",
    "\f",
    "\xff",
    "\xc3\xa9",
    "x_size=1#c",
    "finish;x",
    "0",
    "-",
    "+",
    "0x10",
    "x_size=0x-1",
    "123456789012345678901234567890123456789012345",
    "x_stride=1e3",
};
#define NWORDS (sizeof k_words / sizeof k_words[0])

/* Checks one assembler run over text; returns the status. */
static int asm_and_check(const vta_config *c, const char *text, const char *what) {
  vta_insn_word *words = (vta_insn_word *)(uintptr_t)1; /* must not be touched on failure */
  size_t count = 12345;
  vta_error e;
  err_reset(&e);
  int rc = vta_asm(c, text, "fuzz.s", &words, &count, &e);
  if (rc != VTA_OK) {
    if (rc != VTA_ERR_INVALID) FAIL("%s: status %d", what, rc);
    expect_message(rc, &e, what, 0);
    int line = 0, col = 0;
    if (sscanf(e.msg, "fuzz.s:%d:%d: ", &line, &col) != 2 || line < 1 || col < 1)
      FAIL("%s: message lacks file:line:col: %s", what, e.msg);
    size_t lines = 1;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    if ((size_t)line > lines) FAIL("%s: line %d of a %zu-line text", what, line, lines);
    const char *nl = strchr(e.msg, '\n');
    if (!nl || !strchr(nl, '^')) FAIL("%s: message lacks the caret line: %s", what, e.msg);
    return rc;
  }
  /* Accepted: disassemble and reassemble to the same words. */
  char *out = NULL;
  size_t olen = 0;
  FILE *f = open_memstream(&out, &olen);
  assert_non_null(f);
  uint8_t *bytes = malloc(count * 16 + 1);
  assert_non_null(bytes);
  for (size_t i = 0; i < count; i++) vta_insn_word_store(&words[i], bytes + 16 * i);
  if (vta_disasm(c, bytes, count * 16, f, 0, &e) != VTA_OK)
    FAIL("%s: assembled words do not disassemble: %s", what, e.msg);
  fclose(f);
  vta_insn_word *again = NULL;
  size_t n2 = 0;
  if (vta_asm(c, out, "again.s", &again, &n2, &e) != VTA_OK)
    FAIL("%s: disassembly does not reassemble: %s", what, e.msg);
  if (n2 != count || (count && memcmp(again, words, count * sizeof *words) != 0))
    FAIL("%s: asm -> disasm -> asm changes the words", what);
  free(again);
  free(out);
  free(bytes);
  free(words);
  return rc;
}

static void test_asm_random_token_soup(void **state) {
  vta_config c;
  vta_config_default(&c);
  int ok = 0;
  for (int n = 0; n < ITERS(6000); n++) {
    sbuf b = {0};
    int lines = (int)below(4) + 1;
    for (int l = 0; l < lines; l++) {
      int toks = (int)below(6);
      /* Mostly start lines with an opcode, so fields get parsed at all. */
      if (below(4)) sb_puts(&b, k_words[below(5)]);
      for (int t = 0; t < toks; t++) {
        sb_puts(&b, below(6) ? " " : ",");
        sb_puts(&b, k_words[below(NWORDS)]);
      }
      sb_puts(&b, below(10) ? "\n" : "\r\n");
    }
    char what[64];
    snprintf(what, sizeof what, "soup %d", n);
    if (asm_and_check(&c, b.s, what) == VTA_OK) ok++;
    free(b.s);
  }
  assert_true(ok > 200);
}

/* A random valid instruction in text form. */
static void random_valid_line(const vta_config *c, sbuf *b) {
  vta_insn in;
  memset(&in, 0, sizeof in);
  unsigned op = below(5);
  const vta_format_layout *L = &c->layout[vta_opcode_format(op)];
  for (int i = 0; i < L->nfields; i++) {
    vta_field_pos p = L->pos[L->order[i]];
    if (below(3) == 0) continue;
    uint64_t v = rnd() & ((1ull << p.width) - 1);
    int64_t s = (int64_t)v;
    if (p.is_signed && (v >> (p.width - 1))) s -= (int64_t)(1ull << p.width);
    in.f[L->order[i]] = s;
  }
  in.f[VTA_F_OPCODE] = op;
  char text[512];
  vta_insn_to_text(c, &in, text, sizeof text);
  sb_puts(b, text);
  sb_puts(b, "\n");
}

static void test_asm_mutated_valid_programs(void **state) {
  int ok = 0, bad = 0;
  for (int n = 0; n < ITERS(3000); n++) {
    vta_config c;
    load_cfg(below(NCFG), &c);
    sbuf b = {0};
    int lines = (int)below(6) + 1;
    for (int l = 0; l < lines; l++) random_valid_line(&c, &b);
    char what[64];
    snprintf(what, sizeof what, "mutated program %d (clean)", n);
    if (asm_and_check(&c, b.s, what) != VTA_OK) FAIL("a valid program is rejected:\n%s", b.s);
    int k = (int)below(3) + 1;
    for (int i = 0; i < k; i++) {
      size_t pos = below((uint32_t)b.len + 1);
      switch (below(5)) {
      case 0: { /* flip a byte (not to NUL) */
        if (!b.len) break;
        size_t j = below((uint32_t)b.len);
        char ch = (char)(b.s[j] ^ (1 << below(8)));
        b.s[j] = ch ? ch : '~';
        break;
      }
      case 1:
        sb_splice(&b, pos, below(8) + 1, "", 0);
        break;
      case 2: {
        const char *w = k_words[below(NWORDS)];
        sb_splice(&b, pos, 0, w, strlen(w));
        break;
      }
      case 3: {
        static const char *const digits[] = {"9", "99999999999", "-", "0x", "="};
        const char *d = digits[below(5)];
        sb_splice(&b, pos, 0, d, strlen(d));
        break;
      }
      default:
        sb_splice(&b, pos, 0, "\n", 1);
        break;
      }
    }
    snprintf(what, sizeof what, "mutated program %d", n);
    if (asm_and_check(&c, b.s, what) == VTA_OK)
      ok++;
    else
      bad++;
    free(b.s);
  }
  if (ok < 20 || bad < 100) FAIL("only %d accepted and %d rejected mutants", ok, bad);
}

static void test_asm_long_lines_and_many_lines(void **state) {
  vta_config c;
  vta_config_default(&c);
  sbuf b = {0};
  /* 1 MB of blanks before a valid instruction. */
  for (int i = 0; i < (1 << 20) / 16; i++) sb_puts(&b, "  \t ,,  \t ,,  \t");
  sb_puts(&b, "finish push_next");
  assert_int_equal(asm_and_check(&c, b.s, "long blank line"), VTA_OK);
  /* A long line of repeated fields: rejected at the second, with a column far to the right. */
  b.len = 0;
  sb_puts(&b, "finish\n");
  for (int i = 0; i < (1 << 20) / 16; i++) sb_puts(&b, "load x_size=1   ");
  vta_error e;
  vta_insn_word *words = NULL;
  size_t count = 0;
  assert_int_equal(vta_asm(&c, b.s, "long.s", &words, &count, &e), VTA_ERR_INVALID);
  if (strncmp(e.msg, "long.s:2:", 9) != 0) fail_msg("%s", e.msg);
  assert_true(strlen(e.msg) < VTA_ERROR_MSG_MAX);
  /* A very long token. */
  b.len = 0;
  sb_puts(&b, "load x_size=");
  for (int i = 0; i < 100000; i++) sb_puts(&b, "9");
  assert_int_equal(asm_and_check(&c, b.s, "long number"), VTA_ERR_INVALID);
  b.len = 0;
  for (int i = 0; i < 100000; i++) sb_puts(&b, "x");
  assert_int_equal(asm_and_check(&c, b.s, "long word"), VTA_ERR_INVALID);
  /* 200 000 lines, some blank or comments: every instruction is kept, in order. */
  b.len = 0;
  for (int i = 0; i < 200000; i++) {
    if (i % 7 == 3)
      sb_puts(&b, "   # comment\n");
    else
      sb_printf(&b, "load memory_type=inp x_size=%d\n", i % 65536);
  }
  assert_int_equal(vta_asm(&c, b.s, "many.s", &words, &count, &e), VTA_OK);
  size_t expect = 0;
  for (int i = 0; i < 200000; i++)
    if (i % 7 != 3) {
      vta_insn in;
      assert_int_equal(vta_insn_decode(&c, &words[expect], &in, NULL), VTA_OK);
      assert_int_equal(in.f[VTA_F_X_SIZE], i % 65536);
      expect++;
    }
  assert_int_equal(count, expect);
  free(words);
  /* An error on the last of many lines names that line. */
  sb_puts(&b, "load x_size=65536\n");
  assert_int_equal(vta_asm(&c, b.s, "many.s", &words, &count, &e), VTA_ERR_INVALID);
  if (strncmp(e.msg, "many.s:200001:", 14) != 0) fail_msg("%s", e.msg);
  free(b.s);
}

/* One line must be one instruction: text after a newline or a vertical tab is not ignored. */
static void test_insn_from_text_whitespace_and_embedded_newline(void **state) {
  vta_config c;
  vta_config_default(&c);
  vta_insn in;
  vta_error e;
  int col = -1;
  /* Every isspace() byte separates tokens. */
  assert_int_equal(vta_insn_from_text(&c, "load\vx_size=3\fy_size=1\n", &in, &col, &e), VTA_OK);
  assert_int_equal(in.f[VTA_F_X_SIZE], 3);
  assert_int_equal(in.f[VTA_F_Y_SIZE], 1);
  /* A second instruction on the "line" is an error, not silently dropped. */
  err_reset(&e);
  assert_int_equal(vta_insn_from_text(&c, "finish\nload x_size=1", &in, &col, &e), VTA_ERR_INVALID);
  if (!strstr(e.msg, "'load'")) fail_msg("%s", e.msg);
  assert_int_equal(col, 7);
}

/* ---- Micro-ops ---- */

static void test_uop_text_and_words(void **state) {
  static const char *const words[] = {
      "uop",      "UOP",      "dst=0",     "src=1",    "wgt=2",
      "dst=2047", "dst=2048", "src=0x7ff", "wgt=1023", "wgt=1024",
      "dst=-1",   "src=",     "wgt",       "x=1",      "dst=1e2",
      "#",        ",",        "\t",        "\v",       "dst=99999999999999999999"};
  for (size_t k = 0; k < NCFG; k++) {
    vta_config c;
    load_cfg(k, &c);
    int ok = 0;
    for (int n = 0; n < ITERS(4000); n++) {
      sbuf b = {0};
      sb_puts(&b, below(8) ? "uop" : "");
      int toks = (int)below(5);
      for (int t = 0; t < toks; t++) {
        sb_puts(&b, " ");
        sb_puts(&b, words[below(sizeof words / sizeof words[0])]);
      }
      vta_uop u, back;
      vta_error e;
      err_reset(&e);
      int col = -1;
      char what[128];
      snprintf(what, sizeof what, "%s: uop text '%.80s'", k_cfg_files[k], b.s);
      int rc = vta_uop_from_text(&c, b.s, &u, &col, &e);
      if (rc != VTA_OK) {
        expect_message(rc, &e, what, 1);
        if (col < 0 || (size_t)col > b.len) FAIL("%s: column %d", what, col);
      } else {
        ok++;
        uint32_t w;
        if (vta_uop_encode(&c, &u, &w, &e) != VTA_OK) FAIL("%s: encode: %s", what, e.msg);
        vta_uop_decode(&c, w, &back);
        if (memcmp(&u, &back, sizeof u) != 0) FAIL("%s: decode differs", what);
        char text[128];
        vta_uop_to_text(&u, text, sizeof text);
        if (vta_uop_from_text(&c, text, &back, &col, &e) != VTA_OK || memcmp(&u, &back, sizeof u))
          FAIL("%s: '%s' does not read back", what, text);
      }
      free(b.s);
    }
    assert_true(ok > 100);
    /* Every 32-bit word decodes, and re-encodes to its used bits. */
    const vta_format_layout *L = &c.layout[VTA_FMT_UOP];
    uint32_t used = L->bits_used >= 32 ? 0xffffffffu : (1u << L->bits_used) - 1;
    for (int n = 0; n < ITERS(20000); n++) {
      uint32_t w = (uint32_t)rnd(), w2;
      vta_uop u;
      vta_uop_decode(&c, w, &u);
      if (vta_uop_encode(&c, &u, &w2, NULL) != VTA_OK || w2 != (w & used))
        FAIL("%s: uop word %08x re-encodes as %08x", k_cfg_files[k], w, w2);
    }
    /* Values that do not fit are named with their limit. */
    vta_uop big = {c.depth[VTA_MEM_ACC], 0, 0};
    vta_error e;
    uint32_t w;
    assert_int_equal(vta_uop_encode(&c, &big, &w, &e), VTA_ERR_INVALID);
    char lim[32];
    snprintf(lim, sizeof lim, "0 to %u", c.depth[VTA_MEM_ACC] - 1);
    if (!strstr(e.msg, "dst") || !strstr(e.msg, lim)) fail_msg("%s", e.msg);
  }
}

/* ---- Simulated DRAM ---- */

/* Random alloc / alloc_at / free / check against a plain list of live ranges; sizes include
 * 0, the whole space and values near 2^64 that must fail cleanly. */
static void test_mem_random_operations_match_a_model(void **state) {
  enum { CAP = 1 << 20, MAXR = 64 };
  vta_mem *m;
  assert_int_equal(vta_mem_create(CAP, &m, NULL), VTA_OK);
  struct {
    uint64_t base, size;
  } live[MAXR];
  int nlive = 0;
  for (int n = 0; n < ITERS(20000); n++) {
    uint64_t size;
    switch (below(6)) {
    case 0:
      size = 0;
      break;
    case 1:
      size = UINT64_MAX - below(8192);
      break;
    case 2:
      size = CAP + below(2);
      break;
    case 3:
      size = 1 + below(4 * 4096);
      break;
    default:
      size = 1 + below(300);
      break;
    }
    vta_error e;
    err_reset(&e);
    switch (below(4)) {
    case 0: { /* alloc */
      uint64_t phys = 0;
      int rc = vta_mem_alloc(m, size, &phys, &e);
      /* First fit over the page-rounded live ranges in address order, from the first page
       * (0 is never handed out). */
      int fits = 0;
      if (size <= CAP) {
        uint64_t need = ((size ? size : 1) + 4095) & ~4095ull, cur = 4096, done = 0;
        for (int k = 0; k <= nlive && !fits; k++) {
          uint64_t next = CAP, end = 0;
          int pick = -1;
          for (int i = 0; i < nlive; i++) /* the k-th lowest base */
            if ((k == 0 || live[i].base > done) && live[i].base <= next &&
                (pick < 0 || live[i].base < next)) {
              next = live[i].base;
              pick = i;
            }
          if (pick < 0) next = CAP;
          if (next >= cur && next - cur >= need) fits = 1;
          if (pick < 0) break;
          done = next;
          end = (live[pick].base + live[pick].size + 4095) & ~4095ull;
          if (end > cur) cur = end;
        }
      }
      if ((rc == VTA_OK) != fits)
        FAIL("alloc of %llu bytes: status %d, model says %s", (unsigned long long)size, rc,
             fits ? "fits" : "no room");
      if (rc != VTA_OK) {
        expect_message(rc, &e, "vta_mem_alloc", 1);
        break;
      }
      if (size > CAP)
        FAIL("alloc of %llu bytes succeeded in a %d-byte space", (unsigned long long)size, CAP);
      uint64_t s = size ? size : 1;
      if (phys == 0 || phys % VTA_MEM_ALIGN || phys + s > CAP)
        FAIL("alloc returned 0x%llx", (unsigned long long)phys);
      for (int i = 0; i < nlive; i++)
        if (phys < live[i].base + live[i].size && live[i].base < phys + s) FAIL("alloc overlaps");
      uint8_t *p = vta_mem_ptr(m, phys);
      for (uint64_t i = 0; i < s; i += 97)
        if (p[i]) FAIL("fresh allocation not zero");
      memset(p, 0xab, s);
      if (nlive < MAXR) {
        live[nlive].base = phys;
        live[nlive++].size = s;
      } else {
        assert_int_equal(vta_mem_free(m, phys), VTA_OK);
      }
      break;
    }
    case 1: { /* alloc_at, often misaligned or out of range */
      uint64_t phys =
          below(3) == 0 ? rnd() : (uint64_t)below(CAP / 4096 + 2) * 4096 + (below(4) == 0);
      int rc = vta_mem_alloc_at(m, phys, size, &e);
      uint64_t s = size ? size : 1;
      int expect = phys % VTA_MEM_ALIGN == 0 && phys <= CAP && s <= CAP - phys;
      for (int i = 0; i < nlive && expect; i++) {
        uint64_t end = (live[i].base + live[i].size + 4095) & ~4095ull;
        if (phys < end && live[i].base < phys + s) expect = 0;
      }
      if ((rc == VTA_OK) != expect)
        FAIL("alloc_at 0x%llx +%llu: status %d, model says %d", (unsigned long long)phys,
             (unsigned long long)size, rc, expect);
      expect_message(rc, &e, "vta_mem_alloc_at", 1);
      if (rc == VTA_OK) {
        if (nlive < MAXR) {
          live[nlive].base = phys;
          live[nlive++].size = s;
        } else {
          assert_int_equal(vta_mem_free(m, phys), VTA_OK);
        }
      }
      break;
    }
    case 2: { /* free: a live one, or a random address */
      if (nlive && below(4)) {
        int i = (int)below((uint32_t)nlive);
        assert_int_equal(vta_mem_free(m, live[i].base), VTA_OK);
        live[i] = live[--nlive];
      } else {
        uint64_t phys = rnd() % (CAP + 8192);
        int is_live = 0;
        for (int i = 0; i < nlive; i++) is_live |= live[i].base == phys;
        if (!is_live && vta_mem_free(m, phys) == VTA_OK)
          FAIL("freed 0x%llx, not allocated", (unsigned long long)phys);
      }
      break;
    }
    default: { /* check a random range */
      uint64_t phys = below(2) ? rnd() : below(CAP + 4096), len = below(2) ? size : below(5000);
      int expect = 0;
      for (int i = 0; i < nlive; i++)
        if (phys >= live[i].base && phys - live[i].base <= live[i].size &&
            len <= live[i].size - (phys - live[i].base))
          expect = 1;
      if (vta_mem_check(m, phys, len) != expect)
        FAIL("check 0x%llx +%llu: %d, model says %d", (unsigned long long)phys,
             (unsigned long long)len, !expect, expect);
      char buf[128];
      vta_mem_describe(m, phys, buf, sizeof buf);
      if (!buf[0]) FAIL("empty description");
      break;
    }
    }
  }
  uint64_t total = 0;
  for (int i = 0; i < nlive; i++) total += live[i].size;
  assert_int_equal(vta_mem_bytes_allocated(m), total);
  vta_mem_destroy(m);
  /* A capacity that cannot be rounded up to a page. */
  vta_error e;
  err_reset(&e);
  assert_int_not_equal(vta_mem_create(UINT64_MAX - 1, &m, &e), VTA_OK);
  expect_message(VTA_ERR_NOMEM, &e, "vta_mem_create", 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_config_parse_survives_mutated_shipped_configs, fuzz_setup),
      cmocka_unit_test_setup(test_config_parse_accepts_exactly_what_isa_md_allows, fuzz_setup),
      cmocka_unit_test_setup(test_config_messages_name_key_value_and_limit, fuzz_setup),
      cmocka_unit_test_setup(test_config_load_survives_hostile_files, fuzz_setup),
      cmocka_unit_test_setup(test_decode_random_words_reencode_or_are_rejected, fuzz_setup),
      cmocka_unit_test_setup(test_disasm_random_buffers, fuzz_setup),
      cmocka_unit_test_setup(test_encode_random_values_accepts_exactly_what_fits, fuzz_setup),
      cmocka_unit_test_setup(test_asm_random_token_soup, fuzz_setup),
      cmocka_unit_test_setup(test_asm_mutated_valid_programs, fuzz_setup),
      cmocka_unit_test_setup(test_asm_long_lines_and_many_lines, fuzz_setup),
      cmocka_unit_test_setup(test_insn_from_text_whitespace_and_embedded_newline, fuzz_setup),
      cmocka_unit_test_setup(test_uop_text_and_words, fuzz_setup),
      cmocka_unit_test_setup(test_mem_random_operations_match_a_model, fuzz_setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
