/* config.c - hardware configurations: JSON in, every derived value out, invalid ones refused.
 *
 * The JSON keys are VTA's own (vta_config.json), described once in k_keys with their limits, so
 * that parsing, validation, printing and the error messages cannot disagree. A configuration is
 * accepted only if every instruction field still fits its 128-bit format (vta_isa_layout), and
 * every message names the key (and file) at fault, the value and the limit.
 */
#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_internal.h"
#include "vta/config.h"
#include "vta/file.h"
#include "vta/limits.h"

typedef enum key_kind { KEY_INT, KEY_REAL, KEY_STRING } key_kind;

typedef struct key_desc {
  const char *name;
  key_kind kind;
  size_t offset; /* into vta_config */
  double min, max;
  const char *meaning;
} key_desc;

#define OFF(m) offsetof(vta_config, m)
static const key_desc k_keys[] = {
    {"TARGET", KEY_STRING, OFF(target), 0, 0, "where it runs (free text)"},
    {"HW_VER", KEY_STRING, OFF(hw_ver), 0, 0, "ISA version"},
    {"LOG_INP_WIDTH", KEY_INT, OFF(log_inp_width), 3, 3, "input element bits (log2)"},
    {"LOG_WGT_WIDTH", KEY_INT, OFF(log_wgt_width), 3, 3, "weight element bits (log2)"},
    {"LOG_ACC_WIDTH", KEY_INT, OFF(log_acc_width), 5, 5, "accumulator element bits (log2)"},
    {"LOG_OUT_WIDTH", KEY_INT, OFF(log_out_width), 3, 3, "legacy: output bits, = input bits"},
    {"LOG_BATCH", KEY_INT, OFF(log_batch), 0, VTA_CONFIG_MAX_LOG_BATCH, "batch (log2)"},
    {"LOG_BLOCK", KEY_INT, OFF(log_block_in), 1, VTA_CONFIG_MAX_LOG_BLOCK, "block (log2)"},
    {"LOG_BLOCK_IN", KEY_INT, OFF(log_block_in), 1, VTA_CONFIG_MAX_LOG_BLOCK,
     "legacy: input block (log2)"},
    {"LOG_BLOCK_OUT", KEY_INT, OFF(log_block_out), 1, VTA_CONFIG_MAX_LOG_BLOCK,
     "legacy: output block (log2)"},
    {"LOG_UOP_BUFF_SIZE", KEY_INT, OFF(log_uop_buff_size), 2, 24, "micro-op buffer bytes (log2)"},
    {"LOG_INP_BUFF_SIZE", KEY_INT, OFF(log_inp_buff_size), 1, 24, "input buffer bytes (log2)"},
    {"LOG_WGT_BUFF_SIZE", KEY_INT, OFF(log_wgt_buff_size), 1, 26, "weight buffer bytes (log2)"},
    {"LOG_ACC_BUFF_SIZE", KEY_INT, OFF(log_acc_buff_size), 1, 26,
     "accumulator buffer bytes (log2)"},
    {"LOG_OUT_BUFF_SIZE", KEY_INT, OFF(log_out_buff_size), 0, 26,
     "legacy: output buffer bytes (log2), derived"},
    {"LOG_BUS_WIDTH", KEY_INT, OFF(log_bus_width), VTA_CONFIG_MIN_LOG_BUS_WIDTH,
     VTA_CONFIG_MAX_LOG_BUS_WIDTH, "AXI data bits (log2), ours"},
    {"CLOCK_MHZ", KEY_REAL, OFF(clock_mhz), 1, 2000, "clock in MHz, ours"},
    {"HW_FREQ", KEY_REAL, OFF(clock_mhz), 1, 2000, "published name of the clock in MHz"},
    {"DRAM_LATENCY", KEY_INT, OFF(dram_latency), 0, 100000, "DRAM latency in cycles, ours"},
    /* The SystemC model's parameters: contiguous, in the order of sc_given's bits. */
    {"SC_DRAM_BYTES_PER_CYCLE", KEY_INT, OFF(sc_dram_bytes_per_cycle), 0, 4096,
     "sc model: DRAM bytes per cycle and direction (0 = a bus beat)"},
    {"SC_DRAM_OUTSTANDING", KEY_INT, OFF(sc_dram_outstanding), 1, 4096,
     "sc model: read bursts the DRAM accepts at once"},
    {"SC_DRAM_WRITE_LATENCY", KEY_INT, OFF(sc_dram_write_latency), 0, 100000,
     "sc model: DRAM write response latency in cycles"},
    {"SC_ARBITRATION", KEY_INT, OFF(sc_arbitration), 0, 1,
     "sc model: 0 round-robin, 1 fixed priority (fetch, compute, load)"},
    {"SC_GEMM_UOP_CYCLES", KEY_INT, OFF(sc_gemm_uop_cycles), 1, 64,
     "sc model: cycles per GEMM micro-op"},
    {"SC_ALU_UOP_CYCLES", KEY_INT, OFF(sc_alu_uop_cycles), 1, 64,
     "sc model: cycles per ALU micro-op"},
};
#undef OFF
#define NKEYS (sizeof k_keys / sizeof k_keys[0])

void vta_config_default(vta_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->target, sizeof cfg->target, "sim");
  snprintf(cfg->hw_ver, sizeof cfg->hw_ver, "0.0.2");
  cfg->log_inp_width = 3;
  cfg->log_wgt_width = 3;
  cfg->log_acc_width = 5;
  cfg->log_out_width = 3;
  cfg->log_batch = 0;
  cfg->log_block_in = cfg->log_block_out = 4;
  cfg->log_uop_buff_size = 15;
  cfg->log_inp_buff_size = 15;
  cfg->log_wgt_buff_size = 18;
  cfg->log_acc_buff_size = 17;
  cfg->log_bus_width = 6;
  cfg->clock_mhz = 100;
  cfg->dram_latency = 32;
  cfg->sc_dram_outstanding = 64;
  cfg->sc_gemm_uop_cycles = cfg->sc_alu_uop_cycles = 1;
  vta_config_derive(cfg, NULL); /* the default is valid by construction */
}

static size_t key_index(const char *name) {
  size_t i = 0;
  while (i < NKEYS && strcmp(k_keys[i].name, name) != 0) i++;
  return i;
}

static int ilog2(uint64_t v) { return 63 - __builtin_clzll(v); }

static int derive(vta_config *cfg, const char *origin, vta_error *err) {
  const key_desc *k;
  /* Range checks first, so the message names the key the user wrote. */
  for (k = k_keys; k < k_keys + NKEYS; k++) {
    if (k->kind != KEY_INT || strcmp(k->name, "LOG_OUT_BUFF_SIZE") == 0) continue;
    int v = *(const int *)((const char *)cfg + k->offset);
    if (v < k->min || v > k->max) {
      if (k->min == k->max)
        return vta_error_set(err, VTA_ERR_INVALID,
                             "%s: %s = %d is not supported: this implementation requires %g",
                             origin, k->name, v, k->min);
      return vta_error_set(err, VTA_ERR_INVALID, "%s: %s = %d is out of range (%g to %g)",
                           origin, k->name, v, k->min, k->max);
    }
  }
  if (!(cfg->clock_mhz >= 1 && cfg->clock_mhz <= 2000))
    return vta_error_set(err, VTA_ERR_INVALID, "%s: CLOCK_MHZ = %g is out of range (1 to 2000)",
                         origin, cfg->clock_mhz);
  if (cfg->log_out_width != cfg->log_inp_width)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "%s: LOG_OUT_WIDTH = %d must equal LOG_INP_WIDTH = %d", origin,
                         cfg->log_out_width, cfg->log_inp_width);

  cfg->batch = 1u << cfg->log_batch;
  cfg->block_in = 1u << cfg->log_block_in;
  cfg->block_out = 1u << cfg->log_block_out;
  cfg->inp_width = 1u << cfg->log_inp_width;
  cfg->wgt_width = 1u << cfg->log_wgt_width;
  cfg->acc_width = 1u << cfg->log_acc_width;
  cfg->out_width = 1u << cfg->log_out_width;
  cfg->elem_bytes[VTA_MEM_UOP] = VTA_UOP_BYTES;
  cfg->elem_bytes[VTA_MEM_INP] = cfg->batch * cfg->block_in * cfg->inp_width / 8;
  cfg->elem_bytes[VTA_MEM_WGT] = cfg->block_out * cfg->block_in * cfg->wgt_width / 8;
  cfg->elem_bytes[VTA_MEM_ACC] = cfg->batch * cfg->block_out * cfg->acc_width / 8;
  cfg->elem_bytes[VTA_MEM_OUT] = cfg->batch * cfg->block_out * cfg->out_width / 8;
  cfg->elem_bytes[VTA_MEM_ACC_8BIT] = cfg->elem_bytes[VTA_MEM_ACC] / 4;
  cfg->log_out_buff_size = cfg->log_acc_buff_size + cfg->log_out_width - cfg->log_acc_width;

  static const struct {
    vta_mem_type t;
    const char *key;
    size_t off;
  } bufs[] = {
      {VTA_MEM_UOP, "LOG_UOP_BUFF_SIZE", offsetof(vta_config, log_uop_buff_size)},
      {VTA_MEM_INP, "LOG_INP_BUFF_SIZE", offsetof(vta_config, log_inp_buff_size)},
      {VTA_MEM_WGT, "LOG_WGT_BUFF_SIZE", offsetof(vta_config, log_wgt_buff_size)},
      {VTA_MEM_ACC, "LOG_ACC_BUFF_SIZE", offsetof(vta_config, log_acc_buff_size)},
  };
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    int log_size = *(const int *)((const char *)cfg + bufs[i].off);
    int log_elem = ilog2(cfg->elem_bytes[bufs[i].t]);
    int log_depth = log_size - log_elem;
    if (log_depth < 1)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "%s: %s = %d holds fewer than 2 elements of %u bytes (needs at least "
                           "%d)",
                           origin, bufs[i].key, log_size, cfg->elem_bytes[bufs[i].t],
                           log_elem + 1);
    /* sram_base of LOAD/STORE is 16 bits: every entry must be addressable. */
    if (log_depth > 16)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "%s: %s = %d gives %d-bit buffer indices; the 16-bit sram_base field "
                           "of LOAD/STORE allows at most %d",
                           origin, bufs[i].key, log_size, log_depth, 16 + log_elem);
    cfg->log_depth[bufs[i].t] = log_depth;
  }
  cfg->log_depth[VTA_MEM_OUT] = cfg->log_depth[VTA_MEM_ACC];
  cfg->log_depth[VTA_MEM_ACC_8BIT] = cfg->log_depth[VTA_MEM_ACC];
  for (int t = 0; t < VTA_MEM_COUNT; t++) cfg->depth[t] = 1u << cfg->log_depth[t];
  cfg->bus_bytes = (1u << cfg->log_bus_width) / 8;
  cfg->macs_per_cycle = (uint64_t)cfg->batch * cfg->block_in * cfg->block_out;
  cfg->gemm_tree_levels = 0;
  while ((1u << cfg->gemm_tree_levels) < cfg->block_in) cfg->gemm_tree_levels++;
  /* Cycles after the issue (C0): the micro-op buffer's array read (1) and output register (2),
   * the buffer indices (3, X: INP/WGT read), their array read (4) and output registers (5),
   * the DSP input (6), product (7) and output (8) registers, one per adder-tree level; ACC is
   * read (C1) two cycles before the dot product is there (C2). */
  cfg->compute_c1 = 6 + cfg->gemm_tree_levels;
  /* R (ACC's array read), C2 (its output register; the result register), C3 (the write). The
   * ALU computes in three stages (C2a, C2b, C2c) and writes in C4. */
  cfg->compute_c3 = cfg->compute_c1 + 3;
  cfg->compute_c4 = cfg->compute_c1 + 4;
  /* The ALU reads ACC two cycles earlier (its operands get a register stage, O, of their own
   * between R and C2a, and its operations three, C2a to C2c) and still writes in C4. */
  cfg->compute_alu_c1 = cfg->compute_c1 - 2;
  return vta_isa_layout(cfg, origin, err);
}

int vta_config_derive(vta_config *cfg, vta_error *err) {
  return derive(cfg, "config", err);
}

/* Copies user text into a message-safe form: control and non-ASCII bytes become \xNN and long
 * text is cut with "...", so a hostile key or value cannot break the one-line message. */
static const char *printable(const char *s, char *buf, size_t n) {
  size_t k = 0;
  for (; *s && k + 8 < n; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch >= 0x20 && ch < 0x7f && ch != '\\')
      buf[k++] = (char)ch;
    else
      k += (size_t)snprintf(buf + k, n - k, "\\x%02x", ch);
  }
  snprintf(buf + k, n - k, "%s", *s ? "..." : "");
  return buf;
}

static void line_col(const char *text, const char *at, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (const char *p = text; p < at && *p; p++) {
    if (*p == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

int vta_config_parse(vta_config *cfg, const char *json, const char *name, vta_error *err) {
  vta_config c;
  vta_config_default(&c);
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
  if (!root) {
    int line, col;
    line_col(json, end ? end : json, &line, &col);
    return vta_error_set(err, VTA_ERR_INVALID, "%s:%d:%d: malformed JSON", name, line, col);
  }
  int rc = VTA_OK;
  int have_log_out_buff = 0, log_out_buff = 0;
  int seen[NKEYS] = {0};
  double given[NKEYS] = {0}; /* numeric value of each key, to compare aliases */
  char shown[72];
  if (!cJSON_IsObject(root)) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s: the configuration must be a JSON object",
                       name);
    goto out;
  }
  for (cJSON *it = root->child; it; it = it->next) {
    const key_desc *k = NULL;
    for (size_t i = 0; i < NKEYS; i++)
      if (strcmp(k_keys[i].name, it->string) == 0) k = &k_keys[i];
    if (!k) {
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "%s: unknown key \"%s\" (known: TARGET, HW_VER, LOG_INP_WIDTH, "
                         "LOG_WGT_WIDTH, LOG_ACC_WIDTH, LOG_BATCH, LOG_BLOCK, LOG_UOP_BUFF_SIZE, "
                         "LOG_INP_BUFF_SIZE, LOG_WGT_BUFF_SIZE, LOG_ACC_BUFF_SIZE, LOG_BUS_WIDTH, "
                         "CLOCK_MHZ, DRAM_LATENCY, the sc model's SC_DRAM_BYTES_PER_CYCLE, "
                         "SC_DRAM_OUTSTANDING, SC_DRAM_WRITE_LATENCY, SC_ARBITRATION, "
                         "SC_GEMM_UOP_CYCLES, SC_ALU_UOP_CYCLES and the legacy LOG_BLOCK_IN, "
                         "LOG_BLOCK_OUT, LOG_OUT_WIDTH, LOG_OUT_BUFF_SIZE, HW_FREQ)",
                         name, printable(it->string, shown, sizeof shown));
      goto out;
    }
    size_t idx = (size_t)(k - k_keys);
    if (seen[idx]++) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: key %s appears twice", name, k->name);
      goto out;
    }
    char *dst = (char *)&c + k->offset;
    if (k->kind == KEY_STRING) {
      if (!cJSON_IsString(it)) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %s must be a string", name, k->name);
        goto out;
      }
      size_t cap = strcmp(k->name, "TARGET") == 0 ? sizeof c.target : sizeof c.hw_ver;
      if (strlen(it->valuestring) >= cap) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %s is longer than %zu characters", name,
                           k->name, cap - 1);
        goto out;
      }
      for (const char *ch = it->valuestring; *ch; ch++) {
        /* Printed back into JSON and file names unescaped: keep to a safe alphabet. */
        if (!(isalnum((unsigned char)*ch) || strchr("._-+", *ch))) {
          rc = vta_error_set(err, VTA_ERR_INVALID,
                             "%s: %s \"%s\" may contain only letters, digits and . _ - +", name,
                             k->name, printable(it->valuestring, shown, sizeof shown));
          goto out;
        }
      }
      snprintf(dst, cap, "%s", it->valuestring);
      continue;
    }
    if (!cJSON_IsNumber(it)) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %s must be a number", name, k->name);
      goto out;
    }
    /* %.15g: every integer a user can mean is shown with all its digits (%g would print
     * 16777217 as 1.67772e+07), and 4.5 stays 4.5. */
    double v = it->valuedouble;
    given[idx] = v;
    if (k->kind == KEY_REAL) {
      if (!(v >= k->min && v <= k->max)) {
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %s = %.15g is out of range (%g to %g)",
                           name, k->name, v, k->min, k->max);
        goto out;
      }
      *(double *)dst = v;
      continue;
    }
    /* An integer too large for int is out of range, not "not an integer": the range test
     * below catches it (and infinities) before the conversion. */
    if (v != floor(v)) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %s = %.15g must be an integer", name,
                         k->name, v);
      goto out;
    }
    if (v < k->min || v > k->max) {
      if (k->min == k->max)
        rc = vta_error_set(err, VTA_ERR_INVALID,
                           "%s: %s = %.15g is not supported: this implementation requires %g",
                           name, k->name, v, k->min);
      else
        rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %s = %.15g is out of range (%g to %g)",
                           name, k->name, v, k->min, k->max);
      goto out;
    }
    if (strcmp(k->name, "LOG_OUT_BUFF_SIZE") == 0) {
      have_log_out_buff = 1;
      log_out_buff = (int)v;
      continue;
    }
    *(int *)dst = (int)v;
    if (strncmp(k->name, "SC_", 3) == 0)
      c.sc_given |= 1u << (idx - key_index("SC_DRAM_BYTES_PER_CYCLE"));
    /* LOG_BLOCK sets both block sizes; the legacy keys set one each. */
    if (strcmp(k->name, "LOG_BLOCK") == 0) c.log_block_out = (int)v;
  }
  /* Keys that write the same setting must agree; otherwise the result would depend on the
   * order of the keys in the file. */
  static const char *const aliases[][2] = {
      {"LOG_BLOCK", "LOG_BLOCK_IN"}, {"LOG_BLOCK", "LOG_BLOCK_OUT"}, {"CLOCK_MHZ", "HW_FREQ"}};
  for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++) {
    size_t i = key_index(aliases[a][0]), j = key_index(aliases[a][1]);
    if (seen[i] && seen[j] && given[i] != given[j]) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: %s = %.15g disagrees with %s = %.15g", name,
                         k_keys[i].name, given[i], k_keys[j].name, given[j]);
      goto out;
    }
  }
  if (strcmp(c.hw_ver, "0.0.2") != 0) {
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "%s: HW_VER \"%s\" is not supported: this implementation follows the "
                       "0.0.2 instruction set",
                       name, c.hw_ver);
    goto out;
  }
  rc = derive(&c, name, err);
  if (rc == VTA_OK && have_log_out_buff && log_out_buff != c.log_out_buff_size)
    rc = vta_error_set(err, VTA_ERR_INVALID,
                       "%s: LOG_OUT_BUFF_SIZE = %d disagrees with the derived value %d "
                       "(LOG_ACC_BUFF_SIZE + LOG_OUT_WIDTH - LOG_ACC_WIDTH)",
                       name, log_out_buff, c.log_out_buff_size);
  if (rc == VTA_OK) *cfg = c;
out:
  cJSON_Delete(root);
  return rc;
}

int vta_config_load(vta_config *cfg, const char *path, vta_error *err) {
  unsigned char *data;
  size_t n;
  int rc = vta_file_read(path, "a hardware configuration", VTA_LIMIT_CONFIG_BYTES, &data, &n, err);
  if (rc) return rc;
  char *buf = (char *)data;
  if (strlen(buf) != n) {
    free(buf);
    return vta_error_set(err, VTA_ERR_INVALID, "%s: contains a NUL byte; not JSON text", path);
  }
  rc = vta_config_parse(cfg, buf, path, err);
  free(buf);
  return rc;
}

int vta_config_from_env(vta_config *cfg, vta_error *err) {
  const char *p = getenv("VTA_CONFIG");
  if (p && *p) {
    int rc = vta_config_load(cfg, p, err);
    if (rc) vta_error_prefix(err, "VTA_CONFIG");
    return rc;
  }
  vta_config_default(cfg);
  return VTA_OK;
}

void vta_config_shape_name(const vta_config *cfg, char *buf, size_t n) {
  snprintf(buf, n, "%ux%ux%u", cfg->batch, cfg->block_in, cfg->block_out);
}

static const char *const k_buf_names[VTA_MEM_COUNT] = {"UOP", "WGT", "INP", "ACC", "OUT",
                                                       "ACC_8BIT"};

void vta_config_print(const vta_config *cfg, FILE *out) {
  char shape[32];
  vta_config_shape_name(cfg, shape, sizeof shape);
  fprintf(out, "configuration %s (TARGET %s, HW_VER %s)\n", shape, cfg->target, cfg->hw_ver);
  fprintf(out, "  widths: inp %u, wgt %u, acc %u, out %u bits\n", cfg->inp_width, cfg->wgt_width,
          cfg->acc_width, cfg->out_width);
  fprintf(out, "  batch %u, block_in %u, block_out %u: %llu MACs per cycle\n", cfg->batch,
          cfg->block_in, cfg->block_out, (unsigned long long)cfg->macs_per_cycle);
  fprintf(out, "  bus %u bits, clock %g MHz, DRAM latency %d cycles: peak %.1f GOPS\n",
          cfg->bus_bytes * 8, cfg->clock_mhz, cfg->dram_latency,
          2.0 * (double)cfg->macs_per_cycle * cfg->clock_mhz / 1000.0);
  fprintf(out, "  buffer     element bytes   depth   index bits   bytes\n");
  for (int t = 0; t < VTA_MEM_COUNT; t++) {
    if (t == VTA_MEM_ACC_8BIT) continue;
    fprintf(out, "  %-8s %15u %7u %12d %7llu\n", k_buf_names[t], cfg->elem_bytes[t],
            cfg->depth[t], cfg->log_depth[t],
            (unsigned long long)cfg->elem_bytes[t] * cfg->depth[t]);
  }
  fprintf(out, "  ACC_8BIT DRAM element: %u bytes\n", cfg->elem_bytes[VTA_MEM_ACC_8BIT]);
  for (int f = 0; f < VTA_FMT_COUNT; f++) {
    const vta_format_layout *L = &cfg->layout[f];
    fprintf(out, "  %s format (%u of %d bits):", vta_format_name((vta_format)f), L->bits_used,
            f == VTA_FMT_UOP ? 32 : 128);
    for (int i = 0; i < L->nfields; i++) {
      vta_field_pos p = L->pos[L->order[i]];
      fprintf(out, " %s[%u:%u]", vta_field_name((vta_field_id)L->order[i]),
              p.lsb + p.width - 1, p.lsb);
    }
    fputc('\n', out);
  }
}

void vta_config_print_json(const vta_config *cfg, FILE *out) {
  char shape[32];
  vta_config_shape_name(cfg, shape, sizeof shape);
  fprintf(out,
          "{\"TARGET\": \"%s\", \"HW_VER\": \"%s\", \"LOG_INP_WIDTH\": %d, \"LOG_WGT_WIDTH\": %d, "
          "\"LOG_ACC_WIDTH\": %d, \"LOG_BATCH\": %d, \"LOG_BLOCK_IN\": %d, \"LOG_BLOCK_OUT\": %d, "
          "\"LOG_UOP_BUFF_SIZE\": %d, \"LOG_INP_BUFF_SIZE\": %d, \"LOG_WGT_BUFF_SIZE\": %d, "
          "\"LOG_ACC_BUFF_SIZE\": %d, \"LOG_BUS_WIDTH\": %d, \"CLOCK_MHZ\": %g, "
          "\"DRAM_LATENCY\": %d,\n \"derived\": {\"shape\": \"%s\", \"LOG_OUT_BUFF_SIZE\": %d, "
          "\"batch\": %u, \"block_in\": %u, \"block_out\": %u, \"macs_per_cycle\": %llu, "
          "\"bus_bytes\": %u",
          cfg->target, cfg->hw_ver, cfg->log_inp_width, cfg->log_wgt_width, cfg->log_acc_width,
          cfg->log_batch, cfg->log_block_in, cfg->log_block_out, cfg->log_uop_buff_size,
          cfg->log_inp_buff_size, cfg->log_wgt_buff_size, cfg->log_acc_buff_size,
          cfg->log_bus_width, cfg->clock_mhz, cfg->dram_latency, shape, cfg->log_out_buff_size,
          cfg->batch, cfg->block_in, cfg->block_out, (unsigned long long)cfg->macs_per_cycle,
          cfg->bus_bytes);
  for (int t = 0; t < VTA_MEM_COUNT; t++)
    fprintf(out, ", \"%s\": {\"elem_bytes\": %u, \"depth\": %u, \"log_depth\": %d}",
            k_buf_names[t], cfg->elem_bytes[t], cfg->depth[t], cfg->log_depth[t]);
  fprintf(out, ",\n \"formats\": {");
  for (int f = 0; f < VTA_FMT_COUNT; f++) {
    const vta_format_layout *L = &cfg->layout[f];
    fprintf(out, "%s\"%s\": {", f ? ", " : "", vta_format_name((vta_format)f));
    for (int i = 0; i < L->nfields; i++) {
      vta_field_pos p = L->pos[L->order[i]];
      fprintf(out, "%s\"%s\": [%u, %u]", i ? ", " : "", vta_field_name((vta_field_id)L->order[i]),
              p.lsb, p.width);
    }
    fputc('}', out);
  }
  fprintf(out, "}}}\n");
}
