/* rtl_model.h - the C interface between the rtl backend and one compiled Verilator model.
 *
 * Each configuration's model (hw/ elaborated with its vta_pkg) is built into its own shared
 * object, $(BUILD)/rtl/<model key>/libvta_rtl_model.so, which exports one function,
 * vta_rtl_model_entry, returning this table. The loader (sim/rtl/rtl.c) opens the object that
 * matches the configuration it is given, so one program can drive several configurations, and
 * the C++ of Verilator never crosses this header. Plain C types only.
 */
#ifndef VTA_SIM_RTL_MODEL_H
#define VTA_SIM_RTL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "vta/regmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever this header changes, so a stale model object is refused, not misused. */
#define VTA_RTL_MODEL_ABI 5

/* Counter registers of the control slave, in the order of the register table
 * (include/vta/regmap.h). */
typedef enum vta_rtl_counter {
#define VTA_X(id, ...) VTA_RTL_CNT_##id,
  VTA_REGMAP_COUNTERS(VTA_X)
#undef VTA_X
      VTA_RTL_CNT_COUNT
} vta_rtl_counter;

/* What the design did in one cycle of a run, for timelines (vta_rtl_model_opts.sample): sampled
 * at the clock edge, as the control slave's counters see it, in every cycle in which the run is
 * in progress and something differs from the cycle before. */
typedef struct vta_rtl_sample {
  uint64_t cycle;     /* cycles since the run started (the cycle counter's value) */
  uint8_t busy;       /* bit m: module m (load, compute, store) busy: its busy counter counts */
  uint8_t done;       /* bit m: module m completed an instruction (its instruction counter) */
  uint8_t dispatch;   /* bit m: fetch handed an instruction to module m's command queue */
  uint8_t fetch_done; /* every instruction has been fetched */
  uint32_t queue[3];  /* command queue occupancy: load, compute, store */
  uint32_t tokens[4]; /* dependency tokens: load->compute, compute->load, compute->store,
                         store->compute */
  uint64_t rd_bytes;  /* AXI bytes requested by read bursts and not yet returned */
  uint64_t wr_bytes;  /* AXI bytes of accepted write bursts not yet transferred */
} vta_rtl_sample;

typedef struct vta_rtl_model_opts {
  /* Device memory: host pointer of physical address 0 and the size of the reservation. */
  uint8_t *mem_base;
  uint64_t mem_capacity;
  /* Allocation check of sim/mem (vta_mem_check): nonzero if [phys, phys+len) is allocated. */
  void *mem_ctx;
  int (*mem_check)(void *ctx, uint64_t phys, uint64_t len);
  uint32_t read_latency;    /* cycles from an accepted read burst to its first beat */
  uint32_t write_latency;   /* cycles from a burst's last write beat to its response */
  uint32_t bytes_per_cycle; /* DRAM bandwidth per direction; 0 = one full beat per cycle */
  const char *wave_path;    /* FST waveform file, or NULL */
  uint64_t wave_from, wave_to; /* cycles recorded: [from, to), to 0 = to the end */
  uint64_t watch_addr;      /* byte whose last write cycle is reported (0 = none) */
  /* Coverage data file written when the model is destroyed (models built with coverage,
   * `make rtl-cov-models`), or NULL. */
  const char *coverage_path;
  /* Called with each sample (see vta_rtl_sample) when not NULL. */
  void (*sample)(void *ctx, const vta_rtl_sample *s);
  void *sample_ctx;
  /* Nonzero: the model's assertions are switched off (VerilatedContext::assertOn(false)). */
  uint32_t asserts_off;
} vta_rtl_model_opts;

typedef struct vta_rtl_result {
  uint64_t counters[VTA_RTL_CNT_COUNT];
  uint64_t sim_cycles; /* clock cycles simulated by this call, including control traffic */
  uint32_t status;      /* the status register at the end */
  uint32_t config_id;   /* the CONFIG_ID register (vta_regmap_config_id of the RTL's config) */
  uint64_t watch_cycle; /* cycle since reset of the last write of opts.watch_addr, or 0 */
} vta_rtl_result;

typedef struct vta_rtl_model_api {
  uint32_t abi;      /* VTA_RTL_MODEL_ABI */
  const char *key;   /* the model key of the configuration it was built for */
  /* Returns NULL and a message in err on failure. */
  void *(*create)(const vta_rtl_model_opts *opts, char *err, size_t n);
  void (*destroy)(void *model);
  /* Starts the accelerator on count instructions at insn_phys through the control registers and
   * clocks it until ap_done or max_cycles. Returns 0, or a vta_status (VTA_ERR_TIMEOUT,
   * VTA_ERR_BOUNDS for an access outside the allocations, VTA_ERR_INVALID for an RTL assertion)
   * with a message in err. */
  int (*run)(void *model, uint64_t insn_phys, uint32_t count, uint64_t max_cycles,
             vta_rtl_result *res, char *err, size_t n);
} vta_rtl_model_api;

typedef const vta_rtl_model_api *(*vta_rtl_model_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
