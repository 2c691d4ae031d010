/* trace.h - timelines of a simulated accelerator as Chrome trace-event JSON, the format the
 * Perfetto UI (ui.perfetto.dev) and chrome://tracing open.
 *
 *     vta_trace *t;
 *     vta_trace_create("run.json", "vta rtl", 100.0, &t, &err);    // 100 MHz: cycle -> us
 *     int load = vta_trace_track(t, "load");                      // one track per module
 *     vta_trace_span(t, load, "load inp y=4 x=16", 10, 42, NULL); // cycles [10, 42)
 *     vta_trace_counter(t, "tokens load->compute", 42, 1);
 *     vta_trace_close(t, &err);                                   // temp file + rename
 *
 * Any simulator writes through this one writer (the rtl harness today; the SystemC model can
 * use the same calls). Times are device cycles; the file carries them as microseconds at the
 * given clock, and every span also as exact cycles in its args ("cycle", "cycles"), so tools
 * and tests need no floating-point round trip. Tracks are threads of one process (pid 1) in
 * the order they were created; counters are process-level counter tracks.
 */
#ifndef VTA_SIM_TRACE_H
#define VTA_SIM_TRACE_H

#include <stdint.h>

#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VTA_TRACE_MAX_TRACKS 16

typedef struct vta_trace vta_trace;

/* Opens path.tmp.<pid> for writing; the file appears at path only on vta_trace_close.
 * clock_mhz converts cycles to the format's microseconds (> 0). */
int vta_trace_create(const char *path, const char *process_name, double clock_mhz,
                     vta_trace **out, vta_error *err);
/* A new track (thread) named `name`; returns its id, or -1 beyond VTA_TRACE_MAX_TRACKS. */
int vta_trace_track(vta_trace *t, const char *name);
/* A span on a track over cycles [begin, end) (end >= begin), named `name`, with `args` (a JSON
 * object body without braces, e.g. "\"index\": 3", or NULL). */
void vta_trace_span(vta_trace *t, int track, const char *name, uint64_t begin, uint64_t end,
                    const char *args);
/* The value of counter `name` from `cycle` on. */
void vta_trace_counter(vta_trace *t, const char *name, uint64_t cycle, double value);
/* Sum of the span lengths written on a track, in cycles. */
uint64_t vta_trace_busy(const vta_trace *t, int track);
/* Finishes the JSON, closes and renames the file. Frees t whatever happens. */
int vta_trace_close(vta_trace *t, vta_error *err);
/* Removes the temporary file and frees t (a run that failed leaves no timeline). */
void vta_trace_abandon(vta_trace *t);

#ifdef __cplusplus
}
#endif
#endif
