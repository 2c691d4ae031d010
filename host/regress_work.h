/* regress_work.h - the regression's workloads that run through the runtime and the compiler
 * (gemm, alu, conv) rather than as generated programs: each case is the real code path (the
 * `vta bench` programs, a layer lowered by the compiler and replayed by the JIT) on the diff
 * backend (driver/diff.c), which runs every device run on fsim and on the backend under test in
 * lockstep and compares every byte of device memory after each.
 */
#ifndef VTA_HOST_REGRESS_WORK_H
#define VTA_HOST_REGRESS_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "driver/diff.h"
#include "vta/status.h"

/* Wall-clock seconds a case of these workloads may take before it is stopped (an error that
 * says so); the device's own timeouts are in cycles and much longer. */
#define VTA_REGRESS_WORK_TIMEOUT 600

/* Runs one case in a child process (standard output discarded, standard error kept for the
 * message, a crash or a hang contained): config is a file or gen:SEED, backend the spec under
 * test (NAME or NAME@OPTIONS). The child runs the vta program self (NULL: this program,
 * /proc/self/exe) as `self regress --work-case CONFIG BACKEND WORKLOAD SEED [--inject-crash]`,
 * never a forked copy of this process, whose other threads may hold locks at the fork.
 * r->outcome is PASS, FAIL (the diff backend found a difference) or ERROR; equiv receives the
 * equivalent stand-alone command (bench workloads) or "". When the child died of a fault or an
 * abort, *crash receives its crash report (host/crash.h: the signal, the place, the backtrace;
 * the caller frees it), else NULL. inject_crash (a test hook) makes the child fault before it
 * runs the case. */
void vta_regress_work_run(const char *self, const char *config, const char *backend,
                          vta_diff_workload w, uint64_t seed, int inject_crash,
                          vta_diff_result *r, char *equiv, size_t n, char **crash);

/* The same in this process, without the capture: an exit status (0 pass, 1 fail). The child of
 * vta_regress_work_run (`vta regress --work-case`) calls this. */
int vta_regress_work_main(const char *config, const char *backend, vta_diff_workload w,
                          uint64_t seed);

/* The `model` workload (regress_model.c): the network of `seed` compiled for cfg (int8, its
 * layers partitioned for the accelerator, the bundle with its LLVM CPU code), run by the model
 * runtime with its accelerator layers on the diff backend (fsim in lockstep with `backend`,
 * NAME or NAME@OPTIONS), then with every node on the CPU; the outputs must be equal bit for
 * bit. An error names the seed, the layer count and the first differing output. */
struct vta_config;
int vta_regress_model_case(const struct vta_config *cfg, const char *backend, uint64_t seed,
                           vta_error *err);

#endif
