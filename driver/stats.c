/* stats.c - printing run statistics. The JSON keys are the ones benchmarks and `vta exec`
 * print; derived ratios are computed here once so every tool reports them alike. (Adding
 * statistics lives in isa/stats.c, below the simulators that need it.)
 */
#include <inttypes.h>

#include "vta/stats.h"

void vta_stats_print_json(const vta_stats *s, const vta_config *cfg, const char *backend,
                          FILE *out) {
  char shape[32];
  vta_config_shape_name(cfg, shape, sizeof shape);
  double bound = (double)s->macs / (double)cfg->macs_per_cycle;
  fprintf(out, "{\"backend\": \"%s\", \"config\": \"%s\", \"insns\": %" PRIu64, backend, shape,
          s->insns);
  fprintf(out, ", \"insns_by_module\": {");
  for (int i = 0; i < VTA_MOD_COUNT; i++)
    fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", vta_module_name((vta_module)i),
            s->insns_by_module[i]);
  fprintf(out, "}, \"insns_by_opcode\": {");
  for (int i = 0; i < VTA_OP_COUNT; i++)
    fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", vta_opcode_name((unsigned)i),
            s->insns_by_opcode[i]);
  fprintf(out, "}, \"uops\": %" PRIu64 ", \"gemm_uops\": %" PRIu64 ", \"alu_uops\": %" PRIu64
               ", \"macs\": %" PRIu64 ", \"compute_bound_cycles\": %.0f",
          s->uops, s->gemm_uops, s->alu_uops, s->macs, bound);
  uint64_t rd = 0, wr = 0;
  fprintf(out, ", \"bytes_read\": {");
  for (int i = 0; i < VTA_MEM_COUNT; i++) {
    fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", vta_mem_type_name((unsigned)i),
            s->bytes_read[i]);
    rd += s->bytes_read[i];
  }
  fprintf(out, "}, \"bytes_written\": {");
  for (int i = 0; i < VTA_MEM_COUNT; i++) {
    fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", vta_mem_type_name((unsigned)i),
            s->bytes_written[i]);
    wr += s->bytes_written[i];
  }
  fprintf(out, "}, \"bytes_moved\": %" PRIu64 ", \"insn_bytes\": %" PRIu64, rd + wr,
          s->insn_bytes);
  if (s->cycles) {
    fprintf(out, ", \"cycles\": %" PRIu64 ", \"utilisation\": %.4f", s->cycles,
            bound / (double)s->cycles);
    fprintf(out, ", \"busy_cycles\": {");
    for (int i = 0; i < VTA_MOD_COUNT; i++)
      fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", vta_module_name((vta_module)i),
              s->busy_cycles[i]);
    fprintf(out, "}, \"stall_cycles\": {");
    for (int i = 0; i < VTA_MOD_COUNT; i++)
      fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", vta_module_name((vta_module)i),
              s->stall_cycles[i]);
    fprintf(out, "}");
  }
  fprintf(out, ", \"wall_seconds\": %.6f}", s->wall_seconds);
}
