/* cfg.h - seeded random hardware configurations for `vta regress` (the "generated
 * configurations" axis of its matrix).
 *
 *     vta_config cfg; vta_error err;
 *     if (gen_config(7, &cfg, &err) == VTA_OK) vta_config_print_json(&cfg, stdout);
 *
 * A seed gives the same configuration every time. Each key is drawn from the range isa/ accepts
 * (include/vta/config.h's limits; the per-buffer rule that every entry must be addressable by
 * the 16-bit sram_base), narrowed where the whole range would only make a case slower without
 * reaching other hardware: buffers of 2^6 to 2^11 entries (the generated programs' indices reach 43), batch up to 4. The result is
 * derived by isa/ (vta_config_derive), so it is a configuration every tool accepts.
 */
#ifndef VTA_SIM_GEN_CFG_H
#define VTA_SIM_GEN_CFG_H

#include <stdint.h>
#include <stdio.h>

#include "vta/config.h"
#include "vta/status.h"

/* The prefix of a generated configuration's name where a file name is expected ("gen:7"). */
#define GEN_CONFIG_PREFIX "gen:"

int gen_config(uint64_t seed, vta_config *cfg, vta_error *err);

/* Writes the configuration's JSON keys (a file every tool reads; the derived values left out)
 * of a configuration without SC_* keys, as gen_config makes them. */
void gen_config_write_json(const vta_config *cfg, FILE *f);

/* Parses "gen:SEED" into *seed: 1 when name is one, 0 when it is not (a file name), -1 when it
 * starts with the prefix but the seed is not a decimal number (message in err). */
int gen_config_name(const char *name, uint64_t *seed, vta_error *err);

#endif
