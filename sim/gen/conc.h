/* conc.h - random valid *concurrent* programs (load, compute and store
 * running at once, synchronised only by dependency tokens) and an independent race checker.
 *
 *     cp_program p;
 *     char msg[256];
 *     cp_build(&cfg, seed, 80, mem, &p, msg, sizeof msg);  // data, micro-ops and stream in mem
 *     cp_check(&cfg, mem, p.insn, p.count, p.data, p.data_bytes, msg, sizeof msg);  // 0: race-free
 *     vta_fsim_run(sim, p.insn, p.count, 0, &st, &err);   // or any backend: same memory after
 *
 * A program is a software pipeline of tiles over buffer slots: the load module fills INP (and
 * now and then WGT) slots, compute loads micro-ops and ACC data, runs GEMMs (with reset, loops)
 * and ALU operations into an ACC/OUT slot, and the store module writes OUT slots to DRAM. The
 * number of slots per buffer, how many tiles load runs ahead of compute and store behind it,
 * and how often an instruction pushes or pops a token it does not need are random per program.
 * Loads sometimes read DRAM that stores wrote, so tokens also order DRAM between store and
 * load (through compute: they share no queue).
 *
 * Every token is placed by one rule: before an instruction is emitted, each earlier access of
 * another module to a buffer element or DRAM byte it touches in a conflicting way (one of them
 * writes) must happen before it, which the generator ensures by popping a token whose push
 * follows that access (adding the push flag to the other module's latest instruction, and sync
 * no-ops for earlier tokens in the same queue, when needed). Every pop's push precedes it in the
 * stream, so the stream order is itself a valid schedule and every schedule the tokens allow
 * gives the same memory: the program is race-free, and fsim and rtl must agree bit for bit.
 *
 * cp_check is the independent proof of that for any stream: it matches pushes to pops in
 * stream order, computes vector clocks and reports the first pair of conflicting accesses of
 * two modules that no token chain orders.
 */
#ifndef VTA_SIM_GEN_CONC_H
#define VTA_SIM_GEN_CONC_H

#include <stddef.h>
#include <stdint.h>

#include "sim/mem/mem.h"
#include "vta/config.h"

typedef struct cp_program {
  uint64_t insn;             /* stream address */
  uint32_t count;            /* instructions, FINISH last */
  uint64_t data, data_bytes; /* the one data allocation (inputs, micro-ops, store area) */
  uint32_t by_module[3];     /* instructions per module (VTA_MOD_*) */
  uint32_t pops, pushes;     /* tokens popped and pushed */
  uint32_t syncs;            /* no-op instructions added only to pop tokens */
  uint32_t tiles;
} cp_program;

/* Builds the program of `seed` with about `ninsn` instructions (plus syncs) into mem: one data
 * allocation, then the stream. Deterministic: the same seed builds the same bytes at the same
 * addresses in every fresh or identically used vta_mem. Returns 0, or -1 with a reason. */
int cp_build(const vta_config *cfg, uint64_t seed, uint32_t ninsn, vta_mem *mem, cp_program *out,
             char *msg, size_t n);

/* Checks the stream at insn (count instructions, micro-ops read from mem as loaded) for races:
 * returns 0 when every pair of conflicting accesses by two modules (SRAM elements of INP, WGT
 * and OUT, DRAM bytes of [data, data + data_bytes)) is ordered by a chain of tokens; -1 with
 * the two instructions named otherwise, or when a pop has no earlier push in the stream, or an
 * access falls outside its buffer or the data allocation. */
int cp_check(const vta_config *cfg, vta_mem *mem, uint64_t insn, uint32_t count, uint64_t data,
             uint64_t data_bytes, char *msg, size_t n);

#endif
