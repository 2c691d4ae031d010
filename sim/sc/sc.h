/* sc.h - the SystemC performance model: cycle estimates of the RTL at a hundred times its speed,
 * behind a C API (the C++ stays inside sim/sc).
 *
 * A vta_sc runs instruction streams from a vta_mem like fsim and rtl. Data are computed by
 * fsim's kernels (bit-identical with fsim and rtl); timing comes from a loosely-timed SystemC
 * model of the RTL's modules (fetch, load, compute with the GEMM unit and ALU side by side,
 * store, the four token queues) and a TLM-2.0 DRAM model, advanced per instruction and per
 * burst, not per clock (docs/sc.md). Any configuration isa/ accepts runs without a rebuild.
 *
 *     vta_sc_options o; vta_sc_options_default(&cfg, &o);
 *     vta_sc *s; vta_sc_create(&cfg, mem, &o, &s, &err);
 *     vta_sc_run(s, insn_phys, count, 0, &stats, &err);   // stats.cycles, busy/stall per module
 *     vta_sc_destroy(s);
 */
#ifndef VTA_SIM_SC_H
#define VTA_SIM_SC_H

#include <stdint.h>

#include "sim/mem/mem.h"
#include "vta/config.h"
#include "vta/stats.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_sc vta_sc;

typedef struct vta_sc_options {
  uint32_t read_latency;    /* DRAM cycles from read address to first data (DRAM_LATENCY) */
  uint32_t write_latency;   /* cycles from last write beat to response (SC_DRAM_WRITE_LATENCY,
                               else DRAM_LATENCY) */
  uint32_t bytes_per_cycle; /* per direction, 0 = a bus beat per cycle (SC_DRAM_BYTES_PER_CYCLE) */
  uint32_t outstanding;     /* read bursts in flight (SC_DRAM_OUTSTANDING) */
  int arbitration;          /* 0 round-robin, 1 fixed priority (SC_ARBITRATION) */
  uint32_t gemm_uop_cycles, alu_uop_cycles; /* SC_GEMM_UOP_CYCLES, SC_ALU_UOP_CYCLES */
  const char *timeline_path; /* NULL, or the timeline to write (sim/trace): read by
                                vta_sc_create only */
} vta_sc_options;

/* Defaults from the configuration (its DRAM_LATENCY and SC_* keys). */
void vta_sc_options_default(const vta_config *cfg, vta_sc_options *o);
/* Parses "key=value,...": latency=N (both directions), read_latency=N, write_latency=N,
 * bandwidth=BYTES_PER_CYCLE, outstanding=N, arbitration=rr|fixed, timeline=FILE.json. The same
 * keys as the rtl backend's where they mean the same (timeline_path points into text). */
int vta_sc_options_parse(char *text, vta_sc_options *o, vta_error *err);

int vta_sc_create(const vta_config *cfg, vta_mem *mem, const vta_sc_options *o, vta_sc **out,
                  vta_error *err);
void vta_sc_destroy(vta_sc *s);

/* Runs the stream: timing on the model, data on fsim (which checks the stream and names a bad
 * instruction as fsim does). timeout: cycles, the caller's limit; 0 means none. stats (may be
 * NULL) receives fsim's counts plus cycles and busy/stall cycles per module. */
int vta_sc_run(vta_sc *s, uint64_t insn_phys, uint32_t count, uint64_t timeout, vta_stats *stats,
               vta_error *err);

/* Timelines (options.timeline_path): one track per module (fetch, load, compute's micro-op and
 * ACC loads and FINISH, GEMM, ALU, store), a span per instruction over the cycles its module was
 * busy with it, counters for the command queues, the token queues and the bytes in flight; the
 * runs of one simulator follow each other. The sum of the spans of module m's tracks (all runs
 * so far); 0 without a timeline. */
uint64_t vta_sc_timeline_busy(const vta_sc *s, int module);
/* Finishes and renames the timeline file (vta_sc_destroy does it too, without the error). */
int vta_sc_timeline_close(vta_sc *s, vta_error *err);

/* Cycles of the last run in which the GEMM unit and the ALU both wrote a result. */
uint64_t vta_sc_last_dual_cycles(const vta_sc *s);
/* SystemC process activations of the last run (what the model's speed depends on). */
uint64_t vta_sc_last_events(const vta_sc *s);

#ifdef __cplusplus
}
#endif
#endif
