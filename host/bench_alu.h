/* bench_alu.h - `vta bench alu` and what it shares with `vta bench gemm`: device options from
 * the command line and the cycle-level fields of a benchmark's JSON line (host/bench_alu.c).
 */
#ifndef VTA_HOST_BENCH_ALU_H
#define VTA_HOST_BENCH_ALU_H

#include <stddef.h>
#include <stdio.h>

#include "vta/stats.h"

/* `vta bench alu`: argv[0] = "alu"; returns an exit status, prints one JSON line. */
int vta_bench_alu(int argc, char **argv);

/* The device options of --wave FILE and --device-options OPTS (either may be NULL), joined as
 * "wave=FILE,OPTS" into buf; NULL when there are none. Returns NULL and prints an error naming
 * cmd if they do not fit. */
const char *vta_bench_device_options(const char *cmd, const char *wave, const char *opts,
                                     char *buf, size_t n);

/* Appends to a JSON object being printed (after a field, before the closing brace):
 * compute_bound_cycles (MACs / macs_per_cycle; left out when macs_per_cycle is 0), and for
 * cycle-level backends (s->cycles > 0) cycles, utilisation (compute bound / cycles, with the
 * bound), busy_cycles and stall_cycles per module, and simulated cycles per second of device
 * time. */
void vta_bench_print_cycles(FILE *out, const vta_stats *s, unsigned long long macs_per_cycle,
                            double device_seconds);

/* d = a - b for the counters a benchmark reports (the runs between two snapshots). */
void vta_bench_stats_delta(const vta_stats *a, const vta_stats *b, vta_stats *d);

#endif
