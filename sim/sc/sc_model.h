/* sc_model.h - the plain-C boundary between sc.c (checks, data, statistics) and the SystemC
 * model of sc_model.cpp (timing). Nothing outside sim/sc includes it.
 *
 * sc.c decodes the stream and hands the model an array of decoded instructions with the
 * micro-op words each LOAD UOP reads (the model keeps its own micro-op buffer to work out the
 * footprints the compute module uses for dual issue, exactly as hw/rtl/vta_uop_fp.sv does). The
 * model answers with the cycles and the counters of the RTL's registers.
 */
#ifndef VTA_SIM_SC_MODEL_H
#define VTA_SIM_SC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "vta/config.h"
#include "vta/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One instruction as the timing model needs it (fields of vta_insn, narrowed). */
typedef struct vta_sc_insn {
  uint8_t opcode, module, mem_type, pop_prev, pop_next, push_prev, push_next;
  uint8_t use_imm, reset, alu_op;
  uint32_t sram_base, dram_base, y_size, x_size, x_stride, y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  uint32_t uop_bgn, uop_end, iter_out, iter_in, dfo, dfi, sfo, sfi;
  /* LOAD UOP only: index into vta_sc_job.uop_words of the first word it reads (rows of x_size
   * words, in order). */
  uint64_t uop_words_at;
} vta_sc_insn;

/* The timing parameters: memory model, what-if knobs and pipeline depths (sc.h documents them
 * for users). */
typedef struct vta_sc_params {
  uint32_t read_latency, write_latency; /* DRAM cycles */
  uint32_t bytes_per_cycle;             /* per direction; 0 = one beat per cycle */
  uint32_t outstanding;                 /* read bursts the DRAM accepts at once */
  int arbitration;                      /* 0 round-robin, 1 fixed priority fetch > compute > load */
  uint32_t gemm_uop_cycles, alu_uop_cycles; /* cycles per micro-op (1 in the RTL) */
  uint32_t gemm_stages, alu_stages;     /* cycles from a micro-op's issue to its result write */
  uint32_t gemm_interlock, alu_interlock; /* cycles after a unit's last issue before an
                                           instruction of the other that may interfere with it
                                           starts */
  uint32_t alu_stall;                   /* 1: an ALU micro-op that reads the destination of one
                                           just ahead of it waits (the RTL's operand stage) */
  uint32_t load_ahead;                  /* load module: instructions accepted beyond the one
                                           being written */
} vta_sc_params;

/* The counters of a timeline (sim/trace): the three command queues (VTA_MOD_* order), the four
 * token queues (VTA_Q_* order), read and write bytes in flight. */
enum {
  VTA_SC_CTR_QUEUE = 0,
  VTA_SC_CTR_TOKENS = VTA_SC_CTR_QUEUE + VTA_MOD_COUNT,
  VTA_SC_CTR_RD_BYTES = VTA_SC_CTR_TOKENS + VTA_Q_COUNT,
  VTA_SC_CTR_WR_BYTES,
  VTA_SC_CTR_COUNT
};

/* What a timeline is made of, reported as the model works it out (not in time order): sc.c
 * writes it with sim/trace. Every slot may be NULL. */
typedef struct vta_sc_recorder {
  void *ctx;
  /* Module m (VTA_MOD_*) was busy with instruction `insn` over cycles [b, e): the stretches
   * reported for a module add up to its busy counter. */
  void (*busy)(void *ctx, int module, uint32_t insn, uint64_t b, uint64_t e);
  /* Fetch handed instruction `insn` to its module's command queue in cycle c. */
  void (*route)(void *ctx, uint32_t insn, uint64_t c);
  /* Counter k (VTA_SC_CTR_*) changes by delta from cycle c on. */
  void (*counter)(void *ctx, int k, uint64_t c, int64_t delta);
} vta_sc_recorder;

typedef struct vta_sc_job {
  const vta_config *cfg;
  const vta_sc_params *par;
  const vta_sc_insn *insns;
  uint32_t count;
  uint64_t insn_phys; /* bytes: bursts of the fetch unit are laid out from it */
  const uint32_t *uop_words;
  uint64_t timeout; /* cycles; 0 = none */
  const vta_sc_recorder *rec; /* NULL: no timeline */
} vta_sc_job;

/* What the RTL's counter registers would read (docs/hw.md register map). */
typedef struct vta_sc_result {
  uint64_t cycles;
  uint64_t busy[3], stall[3], insns_by_module[3];
  uint64_t dual_cycles;
  uint64_t events; /* SystemC process activations, for speed figures */
} vta_sc_result;

/* Persistent state of one simulated accelerator (the micro-op buffer and its footprint
 * records survive runs, as the SRAM does). */
typedef struct vta_sc_state vta_sc_state;
vta_sc_state *vta_sc_state_create(const vta_config *cfg);
void vta_sc_state_destroy(vta_sc_state *s);

/* Runs the timing model. Returns 0 when the run finished, 1 on timeout, 2 when the modules
 * deadlocked (waiting for tokens no instruction will push), -1 on an internal error; `msg`
 * names the modules still busy or the problem. */
int vta_sc_model_run(vta_sc_state *s, const vta_sc_job *job, vta_sc_result *res, char *msg,
                     size_t n);

#ifdef __cplusplus
}
#endif
#endif
