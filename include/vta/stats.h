/* stats.h - what a device run did: the counters every backend fills (fsim: instructions,
 * micro-ops, MACs, bytes; cycle-level backends add cycles and per-module busy/stall cycles).
 */
#ifndef VTA_STATS_H
#define VTA_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "vta/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a run did. Backends fill what they measure; the rest stays 0. */
typedef struct vta_stats {
  uint64_t insns;                        /* instructions executed */
  uint64_t insns_by_module[VTA_MOD_COUNT];
  uint64_t insns_by_opcode[VTA_OP_COUNT];
  uint64_t uops;                         /* micro-op executions (GEMM + ALU) */
  uint64_t gemm_uops, alu_uops;
  uint64_t macs;                         /* multiply-accumulates (non-reset GEMM uops x peak) */
  uint64_t bytes_read[VTA_MEM_COUNT];    /* DRAM -> SRAM bytes by memory type */
  uint64_t bytes_written[VTA_MEM_COUNT]; /* SRAM -> DRAM bytes by memory type */
  uint64_t insn_bytes;                   /* bytes of instructions fetched */
  /* Cycle-level backends only. */
  uint64_t cycles;
  uint64_t busy_cycles[VTA_MOD_COUNT];
  uint64_t stall_cycles[VTA_MOD_COUNT];
  double wall_seconds;                   /* host time spent in run() */
  double cpu_seconds;                    /* host CPU time of the process (all its threads)
                                            spent in run(): the simulators' cost, whatever
                                            else the machine runs */
} vta_stats;

/* Adds b into a (for accumulating several runs). */
void vta_stats_add(vta_stats *a, const vta_stats *b);
/* Writes the statistics as one JSON object (no newline) with `extra` (a JSON fragment without
 * braces, or NULL) appended inside it. Derived values: compute bound = macs / macs_per_cycle,
 * utilisation = compute bound / cycles (cycle-level backends). */
void vta_stats_print_json(const vta_stats *s, const vta_config *cfg, const char *backend,
                          FILE *out);

#ifdef __cplusplus
}
#endif
#endif
