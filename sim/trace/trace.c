/* trace.c - the Chrome trace-event JSON writer (see trace.h).
 *
 * The file is the object form {"traceEvents": [...], "displayTimeUnit": "ns"} written as events
 * arrive: metadata events name the process and each track, "X" (complete) events are spans and
 * "C" events counters. Nothing is buffered beyond stdio, so a timeline of millions of spans
 * costs no memory.
 */
#include "sim/trace/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct vta_trace {
  FILE *f;
  char *path, *tmp;
  double mhz;
  int ntracks;
  uint64_t busy[VTA_TRACE_MAX_TRACKS];
  int first;
};

/* A JSON string body (quotes and control characters escaped). */
static void put_str(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
}

static void sep(vta_trace *t) {
  fputs(t->first ? "\n" : ",\n", t->f);
  t->first = 0;
}

int vta_trace_create(const char *path, const char *process_name, double clock_mhz,
                     vta_trace **out, vta_error *err) {
  if (!(clock_mhz > 0))
    return vta_error_set(err, VTA_ERR_INVALID, "timeline %s: clock of %g MHz", path, clock_mhz);
  vta_trace *t = calloc(1, sizeof *t);
  size_t n = strlen(path) + 32;
  if (!t || !(t->path = strdup(path)) || !(t->tmp = malloc(n))) {
    if (t) free(t->path);
    free(t);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  snprintf(t->tmp, n, "%s.tmp.%d", path, (int)getpid());
  t->f = fopen(t->tmp, "w");
  if (!t->f) {
    int e = errno;
    free(t->tmp);
    free(t->path);
    free(t);
    return vta_error_set(err, VTA_ERR_IO, "cannot write the timeline %s: %s", path, strerror(e));
  }
  t->mhz = clock_mhz;
  t->first = 1;
  fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", t->f);
  sep(t);
  fputs("{\"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"name\": \"process_name\", \"args\": "
        "{\"name\": \"",
        t->f);
  put_str(t->f, process_name);
  fputs("\"}}", t->f);
  *out = t;
  return VTA_OK;
}

int vta_trace_track(vta_trace *t, const char *name) {
  if (t->ntracks >= VTA_TRACE_MAX_TRACKS) return -1;
  int id = t->ntracks++;
  sep(t);
  fprintf(t->f, "{\"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"name\": \"thread_name\", "
          "\"args\": {\"name\": \"", id + 1);
  put_str(t->f, name);
  fputs("\"}}", t->f);
  sep(t);
  fprintf(t->f, "{\"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"name\": \"thread_sort_index\", "
          "\"args\": {\"sort_index\": %d}}", id + 1, id);
  return id;
}

void vta_trace_span(vta_trace *t, int track, const char *name, uint64_t begin, uint64_t end,
                    const char *args) {
  if (track < 0 || track >= t->ntracks || end < begin) return;
  t->busy[track] += end - begin;
  sep(t);
  fprintf(t->f, "{\"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.4f, \"dur\": %.4f, "
          "\"name\": \"", track + 1, (double)begin / t->mhz, (double)(end - begin) / t->mhz);
  put_str(t->f, name);
  fprintf(t->f, "\", \"args\": {\"cycle\": %llu, \"cycles\": %llu%s%s}}",
          (unsigned long long)begin, (unsigned long long)(end - begin), args ? ", " : "",
          args ? args : "");
}

void vta_trace_counter(vta_trace *t, const char *name, uint64_t cycle, double value) {
  sep(t);
  fprintf(t->f, "{\"ph\": \"C\", \"pid\": 1, \"ts\": %.4f, \"name\": \"", (double)cycle / t->mhz);
  put_str(t->f, name);
  fprintf(t->f, "\", \"args\": {\"value\": %.17g}}", value);
}

uint64_t vta_trace_busy(const vta_trace *t, int track) {
  return track >= 0 && track < t->ntracks ? t->busy[track] : 0;
}

int vta_trace_close(vta_trace *t, vta_error *err) {
  if (!t) return VTA_OK;
  fputs("\n]}\n", t->f);
  int bad = ferror(t->f);
  bad |= fclose(t->f) != 0;
  int rc = VTA_OK;
  if (bad || rename(t->tmp, t->path) != 0) {
    rc = vta_error_set(err, VTA_ERR_IO, "cannot write the timeline %s: %s", t->path,
                       strerror(errno));
    remove(t->tmp);
  }
  free(t->tmp);
  free(t->path);
  free(t);
  return rc;
}

void vta_trace_abandon(vta_trace *t) {
  if (!t) return;
  fclose(t->f);
  remove(t->tmp);
  free(t->tmp);
  free(t->path);
  free(t);
}
