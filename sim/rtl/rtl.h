/* rtl.h - the cycle-accurate RTL simulator: hw/ under Verilator, behind a C API.
 *
 * A vta_rtl runs instruction streams from a vta_mem (the same simulated device memory, allocator
 * and bounds checks as fsim) on the Verilator model of the configuration it was created for.
 * Models are built per configuration by `make rtl-model RTL_CONFIG=file.json` into
 * $(BUILD)/rtl/<model key>/ (the configurations the tests use are built by `make test`) and
 * loaded at run time, so one program can drive several configurations.
 *
 *     vta_rtl_options o; vta_rtl_options_default(&cfg, &o);
 *     o.wave_path = "run.fst";                       // optional FST waveform
 *     vta_rtl *r; vta_rtl_create(&cfg, mem, &o, &r, &err);
 *     vta_rtl_run(r, insn_phys, count, 0, &stats, &err);   // stats.cycles, busy/stall per module
 *     vta_rtl_destroy(r);
 */
#ifndef VTA_SIM_RTL_H
#define VTA_SIM_RTL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/mem/mem.h"
#include "vta/config.h"
#include "vta/stats.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_rtl vta_rtl;

typedef struct vta_rtl_options {
  uint32_t read_latency;    /* DRAM cycles from read address to first data (cfg DRAM_LATENCY) */
  uint32_t write_latency;   /* DRAM cycles from last write beat to response (same default) */
  uint32_t bytes_per_cycle; /* DRAM bandwidth per direction, 0 = one bus beat per cycle */
  const char *wave_path;    /* FST waveform file or NULL ($VTA_RTL_WAVE when NULL) */
  const char *model_root;   /* folder of the models or NULL ($VTA_RTL_MODELS, then the build's) */
  /* Waveform window: cycles (counted from the model's reset) [wave_from, wave_to) are
   * recorded; wave_to 0 = to the end. A regression records only the cycles around a
   * divergence: a whole run's FST can be gigabytes. */
  uint64_t wave_from, wave_to;
  /* Device address whose last write (cycle) the model records, 0 = none
   * (vta_rtl_last_watch_cycle). */
  uint64_t watch_addr;
  /* Coverage data written when the simulator is destroyed, for models built with line and
   * toggle coverage (`make rtl-cov-models`, models=$(BUILD)/rtl-cov); NULL = none. */
  const char *coverage_path;
  /* Timeline of every run (Chrome trace-event JSON, sim/trace/trace.h), written when the
   * simulator is destroyed or vta_rtl_timeline_close is called; NULL = none. */
  const char *timeline_path;
  /* Nonzero: the RTL's assertions are not evaluated (about 10 % fewer instructions per cycle
   * on the default configuration). On by default; the regressions and tests keep them on. */
  int asserts_off;
} vta_rtl_options;

/* Defaults from the configuration (latencies = cfg->dram_latency, full bandwidth). */
void vta_rtl_options_default(const vta_config *cfg, vta_rtl_options *o);
/* Parses "key=value,key=value": latency=N (both directions), read_latency=N, write_latency=N,
 * bandwidth=BYTES_PER_CYCLE, wave=FILE, wave_from=CYCLE, wave_to=CYCLE, watch=ADDR, coverage=FILE,
 * timeline=FILE.json, models=DIR, asserts=on|off. Strings point into `text`, which must
 * outlive the options. NULL or "" leaves the defaults. */
int vta_rtl_options_parse(char *text, vta_rtl_options *o, vta_error *err);

/* The model object the configuration needs (whether or not it is built). */
void vta_rtl_model_path(const vta_config *cfg, const char *model_root, char *buf, size_t n);

/* Loads the configuration's model (VTA_ERR_UNSUPPORTED naming the make target to build it
 * when it is missing) and resets it. mem must outlive the simulator. */
int vta_rtl_create(const vta_config *cfg, vta_mem *mem, const vta_rtl_options *o, vta_rtl **out,
                   vta_error *err);
void vta_rtl_destroy(vta_rtl *r);

/* Checks the stream as fsim does (decoding, FINISH last, DMA and buffer ranges of every LOAD
 * and STORE), then runs it on the model until done. timeout: cycles, the caller's
 * limit (the device layer passes VTA_DEFAULT_TIMEOUT or its caller's); 0 means no limit.
 * stats (may be NULL) receives the counts of fsim plus cycles and busy/stall cycles per module.
 * GEMM/ALU buffer indices are not checked: like the hardware, the RTL wraps them modulo the
 * buffer depth. */
int vta_rtl_run(vta_rtl *r, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                vta_stats *stats, vta_error *err);

/* Cycles simulated (including control-register traffic) by the last run, for speed figures. */
uint64_t vta_rtl_last_sim_cycles(const vta_rtl *r);
/* Cycles of the last run in which the GEMM unit and the ALU both wrote a result (they run a GEMM
 * and an ALU instruction together when these cannot interfere; docs/hw.md). */
uint64_t vta_rtl_last_dual_cycles(const vta_rtl *r);
/* The cycle (since the model's reset) of the last AXI write beat of the last run that wrote the
 * byte at options.watch_addr; 0 when none did. */
uint64_t vta_rtl_last_watch_cycle(const vta_rtl *r);
/* Writes the timeline (options.timeline_path) now; later runs are not recorded. */
int vta_rtl_timeline_close(vta_rtl *r, vta_error *err);
/* Cycles covered by the timeline's spans of module m so far (its tracks added up): equal to the
 * runs' busy counter of m (the test of the timeline). 0 without a timeline. */
uint64_t vta_rtl_timeline_busy(const vta_rtl *r, vta_module m);

#ifdef __cplusplus
}
#endif
#endif
