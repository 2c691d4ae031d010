/* cfg.c - seeded random hardware configurations (see cfg.h).
 *
 * Draws are made in log2 units, as the configuration is written. The buffer sizes are drawn as
 * a depth (entries) and turned into bytes with the element size the other draws imply, so every
 * buffer is valid whatever the block shape; the ISA layout (vta_isa_layout through
 * vta_config_derive) is the last word, and a draw it refuses is redrawn from the same
 * generator, so a seed still names one configuration.
 */
#include "sim/gen/cfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gen/prog.h"

static int draw(uint64_t *s, int lo, int hi) {
  return lo + (int)(fp_rand(s) % (uint64_t)(hi - lo + 1));
}

static int ilog2u(uint32_t v) { return 31 - __builtin_clz(v); }

int gen_config(uint64_t seed, vta_config *cfg, vta_error *err) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  if (!s) s = 1;
  vta_error last = {0};
  for (int attempt = 0; attempt < 64; attempt++) {
    vta_config c;
    vta_config_default(&c);
    snprintf(c.target, sizeof c.target, "gen-%llu", (unsigned long long)seed);
    c.log_batch = draw(&s, 0, 2);
    c.log_block_in = draw(&s, 1, 5);
    /* Square blocks most of the time (the published shapes); the rest exercise BLOCK_IN !=
     * BLOCK_OUT. */
    c.log_block_out = draw(&s, 0, 3) ? c.log_block_in : draw(&s, 1, 5);
    c.log_bus_width = draw(&s, VTA_CONFIG_MIN_LOG_BUS_WIDTH, 9);
    c.dram_latency = draw(&s, 1, 64);
    c.clock_mhz = 50.0 * draw(&s, 2, 8);
    uint32_t batch = 1u << c.log_batch, bi = 1u << c.log_block_in, bo = 1u << c.log_block_out;
    /* Element bytes as isa/ derives them (8-bit inputs and weights, 32-bit accumulators);
     * depths from 2^6, the smallest the random programs of prog.c fit (their indices reach 43). */
    c.log_uop_buff_size = ilog2u(VTA_UOP_BYTES) + draw(&s, 6, 11);
    c.log_inp_buff_size = ilog2u(batch * bi) + draw(&s, 6, 11);
    c.log_wgt_buff_size = ilog2u(bo * bi) + draw(&s, 6, 11);
    c.log_acc_buff_size = ilog2u(batch * bo * 4) + draw(&s, 6, 11);
    if (vta_config_derive(&c, &last) == VTA_OK) {
      *cfg = c;
      return VTA_OK;
    }
  }
  return vta_error_set(err, VTA_ERR_INVALID,
                       "gen:%llu: no valid configuration in 64 draws (last: %s)",
                       (unsigned long long)seed, last.msg);
}

int gen_config_name(const char *name, uint64_t *seed, vta_error *err) {
  size_t n = strlen(GEN_CONFIG_PREFIX);
  if (strncmp(name, GEN_CONFIG_PREFIX, n) != 0) return 0;
  const char *d = name + n;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(d, &end, 10);
  if (!*d || *end || errno || *d == '-' || *d == '+') {
    vta_error_set(err, VTA_ERR_INVALID,
                  "configuration '%s': a generated configuration is gen:SEED with a decimal "
                  "seed (0 to 18446744073709551615)",
                  name);
    return -1;
  }
  *seed = v;
  return 1;
}

void gen_config_write_json(const vta_config *c, FILE *f) {
  fprintf(f,
          "{\n  \"TARGET\": \"%s\",\n  \"HW_VER\": \"%s\",\n  \"LOG_INP_WIDTH\": %d,\n"
          "  \"LOG_WGT_WIDTH\": %d,\n  \"LOG_ACC_WIDTH\": %d,\n  \"LOG_BATCH\": %d,\n"
          "  \"LOG_BLOCK_IN\": %d,\n  \"LOG_BLOCK_OUT\": %d,\n  \"LOG_UOP_BUFF_SIZE\": %d,\n"
          "  \"LOG_INP_BUFF_SIZE\": %d,\n  \"LOG_WGT_BUFF_SIZE\": %d,\n"
          "  \"LOG_ACC_BUFF_SIZE\": %d,\n  \"LOG_BUS_WIDTH\": %d,\n  \"CLOCK_MHZ\": %g,\n"
          "  \"DRAM_LATENCY\": %d\n}\n",
          c->target, c->hw_ver, c->log_inp_width, c->log_wgt_width, c->log_acc_width,
          c->log_batch, c->log_block_in, c->log_block_out, c->log_uop_buff_size,
          c->log_inp_buff_size, c->log_wgt_buff_size, c->log_acc_buff_size, c->log_bus_width,
          c->clock_mhz, c->dram_latency);
}
