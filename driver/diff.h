/* diff.h - one differential case: a seeded program run on a named backend and on fsim, every
 * byte of device memory compared. The engine under `vta regress` (host/regress.c).
 *
 *     vta_diff *d;
 *     vta_diff_open("configs/vta_default.json", "rtl", NULL, &d, &err);
 *     vta_diff_result r;
 *     vta_diff_run(d, VTA_DIFF_W_CONC, seed, &r);      // r.outcome, r.message, r.addr, ...
 *     vta_diff_close(d);
 *
 * The program is built in a reference memory (sim/gen: the same bytes at the same addresses for
 * a seed), each of its allocations is copied to the device at the same physical address (so no
 * relocation is needed; the backend must offer fixed-address allocation, as every simulator
 * does), and after both runs every byte of every allocation is read back and compared, as are
 * the counters both backends keep. A difference is reported with its address, the last
 * instruction of the stream that writes that address (index and disassembly) and, for rtl, the
 * cycle at which the RTL last wrote it, found by rerunning with an address watch; a waveform
 * over a window of cycles around that write can then be recorded (vta_diff_wave).
 */
#ifndef VTA_DRIVER_DIFF_H
#define VTA_DRIVER_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "vta/config.h"
#include "vta/status.h"

/* The words every message of a difference found by the diff backend carries (a run that fails
 * with them is a failed comparison, not a run error). */
#define VTA_DIFF_MISMATCH "differs from fsim"

/* X(id, name, what it is) */
#define VTA_DIFF_WORKLOADS(X)                                                              \
  X(RANDOM, "random", "random valid programs (every opcode, padding, strides), serialised")  \
  X(CONC, "conc", "random race-free concurrent programs: load, compute and store overlap")    \
  X(GEMM, "gemm", "vta bench gemm: a blocked GEMM through the runtime JIT, shape by seed")  \
  X(ALU, "alu", "vta bench alu: ALU micro-ops with immediates and vectors, size by seed")   \
  X(CONV, "conv", "a conv2d layer lowered by the compiler, shape and data by seed")         \
  X(MODEL, "model", "a small CNN by seed compiled for the configuration, run by the model runtime")

typedef enum vta_diff_workload {
#define VTA_X_(id, name, what) VTA_DIFF_W_##id,
  VTA_DIFF_WORKLOADS(VTA_X_)
#undef VTA_X_
  VTA_DIFF_W_COUNT
} vta_diff_workload;

const char *vta_diff_workload_name(vta_diff_workload w);
const char *vta_diff_workload_what(vta_diff_workload w);
/* -1 when the name is unknown. */
int vta_diff_workload_find(const char *name);
/* 1 for the workloads vta_diff_run builds itself (sim/gen's programs: random, conc); the others
 * run through the runtime and the compiler above this layer, on the diff backend
 * (host/regress_work.c). */
int vta_diff_workload_generated(vta_diff_workload w);

typedef enum vta_diff_outcome {
  VTA_DIFF_PASS = 0,
  VTA_DIFF_FAIL,    /* the backend disagrees with fsim */
  VTA_DIFF_ERROR,   /* the case could not run (run error, timeout, generator failure) */
  VTA_DIFF_OUTCOME_COUNT
} vta_diff_outcome;

typedef struct vta_diff_result {
  vta_diff_outcome outcome;
  uint32_t insns;    /* instructions of the stream run */
  uint64_t cycles;   /* device cycles (cycle-level backends), else 0 */
  char message[768]; /* one sentence: what differs or what went wrong */
  /* A memory difference (outcome FAIL, has_addr): the first differing address, the values, the
   * last instruction writing it (insn_index -1 when none does) with its disassembly. */
  int has_addr;
  uint64_t addr;
  uint8_t want, got;
  int64_t insn_index;
  char disasm[256];
} vta_diff_result;

typedef struct vta_diff vta_diff;

/* A configuration of the regression: a file, or gen:SEED, a generated one (sim/gen/cfg.h). */
int vta_diff_config_load(const char *spec, vta_config *cfg, vta_error *err);

/* Loads the configuration (a file or gen:SEED) and opens the backend (options: the backend's option string or
 * NULL) and the fsim reference. */
int vta_diff_open(const char *config_path, const char *backend, const char *options,
                  vta_diff **out, vta_error *err);
void vta_diff_close(vta_diff *d);
const vta_config *vta_diff_config(const vta_diff *d);

/* Runs one case of a generated workload (random, conc; other workloads give an ERROR result). A case that cannot run is an ERROR result, not a failed call: the return value
 * is VTA_OK unless the session itself is unusable afterwards (then reopen it). */
int vta_diff_run(vta_diff *d, vta_diff_workload w, uint64_t seed, vta_diff_result *r);

/* Test hook of the failure path: the next vta_diff_run flips bit 0 of the byte at `offset` into
 * the program's data allocation in the device's copy after the run (as a wrong write would). */
void vta_diff_inject_fault(vta_diff *d, uint64_t offset);

/* For the rtl backend: reruns the case on a fresh RTL model watching the differing address to
 * find the cycle of its last write, then once more recording an FST waveform of `window` cycles
 * before and after that cycle into wave_path. The cases of seeds first_seed .. seed - 1 (the
 * ones its session ran before it; first_seed = seed for none) run first, in the same model, so
 * that the on-chip state the case started from is the one it failed from. *cycle receives the
 * cycle, counted from the model's reset (0 when the RTL never wrote the address: the waveform
 * then covers the first 2*window cycles). VTA_ERR_UNSUPPORTED for other backends. */
int vta_diff_wave(const char *config_path, const char *options, vta_diff_workload w,
                  uint64_t first_seed, uint64_t seed, uint64_t addr, uint64_t window,
                  const char *wave_path, uint64_t *cycle, vta_error *err);

#endif
