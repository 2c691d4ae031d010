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

/* Wall-clock seconds a case of these workloads may take before it is stopped (an error that
 * says so); the device's own timeouts are in cycles and much longer. */
#define VTA_REGRESS_WORK_TIMEOUT 600

/* Runs one case in a child process (standard output discarded, standard error kept for the
 * message, a crash or a hang contained): config is a file or gen:SEED, backend the spec under
 * test (NAME or NAME@OPTIONS). r->outcome is PASS, FAIL (the diff backend found a difference)
 * or ERROR; equiv receives the equivalent stand-alone command (bench workloads) or "". */
void vta_regress_work_run(const char *config, const char *backend, vta_diff_workload w,
                          uint64_t seed, vta_diff_result *r, char *equiv, size_t n);

/* The same in this process, without the capture: an exit status (0 pass, 1 fail). The child of
 * vta_regress_work_run calls this. */
int vta_regress_work_main(const char *config, const char *backend, vta_diff_workload w,
                          uint64_t seed);

#endif
