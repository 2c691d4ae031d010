/* config.h - a VTA hardware configuration: the JSON keys of VTA's vta_config.json, every value
 * derived from them, and the field layout of every instruction format under it.
 *
 *     vta_config cfg; vta_error err;
 *     if (vta_config_load(&cfg, "configs/vta_default.json", &err) != VTA_OK)
 *       fprintf(stderr, "%s\n", err.msg);  // e.g. "configs/x.json: LOG_BLOCK = 9: ..."
 *
 * A configuration is a plain value: copy it freely. It is always derived (vta_config_derive has
 * run) when a function in this library hands it to you.
 */
#ifndef VTA_CONFIG_H
#define VTA_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "vta/isa.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_config {
  char target[32]; /* TARGET: free text (sim, fsim, rtl, pynq, ultra96, zcu104, ...) */
  char hw_ver[16]; /* HW_VER: "0.0.2" */

  /* The JSON keys (log2 values). */
  int log_inp_width, log_wgt_width, log_acc_width, log_out_width;
  int log_batch, log_block_in, log_block_out;
  int log_uop_buff_size, log_inp_buff_size, log_wgt_buff_size, log_acc_buff_size;

  /* Board extras (ours, optional in JSON). */
  int log_bus_width;  /* LOG_BUS_WIDTH: AXI data bits = 2^n (6 = 64-bit) */
  double clock_mhz;   /* CLOCK_MHZ */
  int dram_latency;   /* DRAM_LATENCY: cycles from address to first data, for simulators */

  /* The SystemC performance model's own parameters (ours, optional; docs/sc.md): a memory
   * system and units the RTL does not have. The rtl backend refuses a configuration that sets
   * any of them (sc_given has a bit per key, in this order). */
  int sc_dram_bytes_per_cycle; /* SC_DRAM_BYTES_PER_CYCLE: per direction, 0 = a beat a cycle */
  int sc_dram_outstanding;     /* SC_DRAM_OUTSTANDING: read bursts in flight (64) */
  int sc_dram_write_latency;   /* SC_DRAM_WRITE_LATENCY: cycles (DRAM_LATENCY when not given) */
  int sc_arbitration;          /* SC_ARBITRATION: 0 round-robin (the RTL's), 1 fixed priority */
  int sc_gemm_uop_cycles;      /* SC_GEMM_UOP_CYCLES: cycles per GEMM micro-op (1) */
  int sc_alu_uop_cycles;       /* SC_ALU_UOP_CYCLES: cycles per ALU micro-op (1) */
  unsigned sc_given;

  /* ---- Derived by vta_config_derive ---- */
  int log_out_buff_size;
  uint32_t batch, block_in, block_out;
  uint32_t inp_width, wgt_width, acc_width, out_width; /* bits per element */
  /* Bytes of one element ("tensor row") of each memory type, indexed by vta_mem_type. */
  uint32_t elem_bytes[VTA_MEM_COUNT];
  /* log2 depth (entries) and depth of each on-chip buffer, indexed by vta_mem_type
   * (ACC_8BIT shares ACC's buffer). */
  int log_depth[VTA_MEM_COUNT];
  uint32_t depth[VTA_MEM_COUNT];
  uint32_t bus_bytes;       /* AXI data bytes per beat */
  uint64_t macs_per_cycle;  /* BATCH * BLOCK_IN * BLOCK_OUT */
  /* The RTL compute pipeline (docs/hw.md, "Compute pipeline"): levels of the GEMM adder tree
   * (ceil(log2 BLOCK_IN)) and the cycles from a micro-op's issue to its ACC read (C1); its
   * result is computed two cycles later (C2) and written three (C3). The rtl cost model and
   * the RTL both take them from here. compute_c3 is the cycle of the ACC write (compute_c1 +
   * 3): the timing models take a unit's result latency from it, and the hand-over between the
   * units (an interfering instruction's first read after the other unit's last write) from
   * compute_c3 - compute_c1. The ALU writes a cycle later, in compute_c4 (compute_c1 + 4),
   * so its result latency is one cycle longer. It reads ACC two cycles earlier, in
   * compute_alu_c1 (compute_c1 - 2: its operands are multiplexed in a stage of their own and
   * its operations take C2a, C2b and C2c), so the hand-over from the GEMM unit to it is
   * compute_c3 - compute_alu_c1 = 5 cycles, from it to the GEMM unit compute_c4 - compute_c1 =
   * 4. */
  uint32_t gemm_tree_levels;
  uint32_t compute_c1;
  uint32_t compute_alu_c1;
  uint32_t compute_c3;
  uint32_t compute_c4;
  vta_format_layout layout[VTA_FMT_COUNT];
} vta_config;

/* Limits this implementation accepts (reported by name when violated). */
#define VTA_CONFIG_MAX_LOG_BATCH 4
#define VTA_CONFIG_MAX_LOG_BLOCK 6
#define VTA_CONFIG_MIN_LOG_BUS_WIDTH 5 /* 32-bit */
#define VTA_CONFIG_MAX_LOG_BUS_WIDTH 10 /* 1024-bit */

/* The default configuration of ISA.md section 1 (1x16x16, 64-bit bus, 100 MHz, latency 32). */
void vta_config_default(vta_config *cfg);
/* Validates the JSON keys and computes every derived value and field layout. On an invalid
 * configuration returns VTA_ERR_INVALID naming the key, the value and the limit. */
int vta_config_derive(vta_config *cfg, vta_error *err);
/* Parses JSON text (keys of ISA.md, legacy LOG_BLOCK_IN/LOG_BLOCK_OUT/LOG_OUT_WIDTH accepted,
 * unknown keys rejected) over the defaults and derives. `name` is used in messages. */
int vta_config_parse(vta_config *cfg, const char *json, const char *name, vta_error *err);
/* Reads and parses a file. */
int vta_config_load(vta_config *cfg, const char *path, vta_error *err);
/* Loads the configuration named by $VTA_CONFIG if set, else the default. */
int vta_config_from_env(vta_config *cfg, vta_error *err);
/* Writes the configuration: text (keys, derived values, field layouts) or JSON (the keys and
 * the derived values under "derived"). */
void vta_config_print(const vta_config *cfg, FILE *out);
void vta_config_print_json(const vta_config *cfg, FILE *out);
/* A short name for statistics and file names, e.g. "1x16x16" or "4x16x16". */
void vta_config_shape_name(const vta_config *cfg, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
