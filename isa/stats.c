/* stats.c - adding run statistics. It sits in the lowest layer because every simulator (sim/)
 * accumulates counters across runs and the driver and runtime above add runs together: one
 * definition, so a new counter is added in exactly one place.
 */
#include "vta/stats.h"

void vta_stats_add(vta_stats *a, const vta_stats *b) {
  a->insns += b->insns;
  for (int i = 0; i < VTA_MOD_COUNT; i++) {
    a->insns_by_module[i] += b->insns_by_module[i];
    a->busy_cycles[i] += b->busy_cycles[i];
    a->stall_cycles[i] += b->stall_cycles[i];
  }
  for (int i = 0; i < VTA_OP_COUNT; i++) a->insns_by_opcode[i] += b->insns_by_opcode[i];
  a->uops += b->uops;
  a->gemm_uops += b->gemm_uops;
  a->alu_uops += b->alu_uops;
  a->macs += b->macs;
  for (int i = 0; i < VTA_MEM_COUNT; i++) {
    a->bytes_read[i] += b->bytes_read[i];
    a->bytes_written[i] += b->bytes_written[i];
  }
  a->insn_bytes += b->insn_bytes;
  a->cycles += b->cycles;
  a->wall_seconds += b->wall_seconds;
  a->cpu_seconds += b->cpu_seconds;
}
