/* sweep.h - `vta sweep`: hardware parameter sweeps, cycles against FPGA resources.
 *
 * Data flow (docs/user-guide/sweep.md):
 *   spec (JSON file and/or flags) -> sweep_spec
 *   -> points: the cartesian product of the axes over a base configuration, each checked by isa/
 *      (vta_config_parse); invalid points are listed with isa/'s reason and skipped
 *   -> jobs for the executor (host/executor.h): one per point (`vta sweep --run-point DIR`:
 *      each workload compiled and run for that configuration on the cycles backend, on a sample
 *      of points also on rtl) and one per missing resource estimate (scripts/rtl-resources.sh,
 *      yosys synth_xilinx, cached by the part's estimate (family and URAM or not) and the
 *      RTL-shaping model key)
 *   -> rows (one per point and workload) -> results.csv, results.jsonl, pareto.svg, report.md.
 * Every file a point produces lives in OUT/points/<id>/ and is written whole (temporary file and
 * rename), so an interrupted sweep resumes where it stopped and a repeated one runs nothing.
 */
#ifndef VTA_HOST_SWEEP_H
#define VTA_HOST_SWEEP_H

#include <limits.h>
#include <stddef.h>

#include "vta/config.h"

#define SWEEP_MAX_AXES 16
#define SWEEP_MAX_VALUES 64
#define SWEEP_MAX_POINTS 4096
#define SWEEP_MAX_WORKLOADS 8
#define SWEEP_MAX_PARTS 16
#define SWEEP_MAX_SAMPLE 64

/* sc's calibrated error against rtl (docs/sc.md, the calibration table and issue 12's targets,
 * both met there): at most 0.5 % on the whole ResNet-18, at most 1 % on every benchmark layer and
 * model. A sampled point's sc/rtl difference is judged against the bound of its workload. */
#define SWEEP_SC_ERROR_RESNET18 0.005
#define SWEEP_SC_ERROR_OTHER 0.01

/* A named FPGA part: the resource estimate its fit is judged on and its published resource
 * counts. Parts of one estimate share it (one yosys run per RTL shape and estimate). */
typedef struct sweep_part {
  const char *name;      /* xc7z020 */
  const char *board;     /* Pynq-Z1 */
  const char *family;    /* synth_xilinx -family: xc7, xcup */
  const char *estimate;  /* scripts/rtl-resources.sh's ESTIMATE: the family, and for xcup
                          * whether URAM is inferred: xc7, xcup, xcup-nouram (parts without
                          * URAM get their memories in block RAM) */
  double lut, ff, dsp, bram36, uram;
} sweep_part;

/* The known parts, NULL-terminated name lookup. */
const sweep_part *sweep_part_find(const char *name);
const sweep_part *sweep_parts(size_t *n);

typedef struct sweep_axis {
  char key[40];                   /* a configuration key, checked by isa/ */
  int n;
  double v[SWEEP_MAX_VALUES];
} sweep_axis;

typedef struct sweep_spec {
  char name[64];
  char base[PATH_MAX];            /* base configuration file ("" = the default) */
  sweep_axis axes[SWEEP_MAX_AXES];
  int naxes;
  /* Workloads in canonical text form: "builtin:resnet18", "bench:gemm --m 64 ...",
   * "onnx:PATH[,calibrate=DIR][,input=X.npy]". */
  char workloads[SWEEP_MAX_WORKLOADS][PATH_MAX];
  int nworkloads;
  const sweep_part *parts[SWEEP_MAX_PARTS];
  int nparts;
  char backend[16];               /* cycles backend: sc, rtl, or model (fsim + cost model) */
  int rtl_sample;                 /* this many points (evenly spread) also run on rtl */
  int sample_idx[SWEEP_MAX_SAMPLE]; /* or these point indices (if nsample_idx > 0) */
  int nsample_idx;
  double timeout_s;               /* per job */
  int resources;                  /* estimate resources with yosys (default 1) */
} sweep_spec;

void sweep_spec_init(sweep_spec *s);
/* Reads a JSON spec file over s. Returns 0, or -1 after writing "FILE: field: problem" to err. */
int sweep_spec_load(sweep_spec *s, const char *path, char *err, size_t errlen);
/* One axis from flag text "KEY=1,2,4" or "KEY=A:B[:STEP]" (replaces an axis of that key). */
int sweep_spec_axis_text(sweep_spec *s, const char *text, char *err, size_t errlen);
/* Adds a workload given as text (canonicalised and checked). */
int sweep_spec_add_workload(sweep_spec *s, const char *text, char *err, size_t errlen);
int sweep_spec_add_part(sweep_spec *s, const char *name, char *err, size_t errlen);

typedef struct sweep_point {
  char id[24];                    /* p<hex>: hash of the configuration JSON */
  char label[256];                /* "LOG_BLOCK=4 LOG_BATCH=0" */
  char *json;                     /* the configuration's keys as JSON (malloc'd) */
  vta_config cfg;
  char model_key[160];
  int rtl;                        /* also run on rtl */
} sweep_point;

/* Enumerates the points of s. Valid points go to *points (malloc'd, *n); each invalid one is
 * reported through `invalid` (label and isa/'s reason). Returns -1 with err on a bad base file
 * or too many points. */
int sweep_points(const sweep_spec *s, sweep_point **points, size_t *n,
                 void (*invalid)(void *ctx, const char *label, const char *reason), void *ctx,
                 char *err, size_t errlen);
void sweep_points_free(sweep_point *p, size_t n);

/* One result row: a point and one workload. */
typedef struct sweep_row {
  const sweep_point *pt;
  int workload;
  int ok;                         /* the point's job succeeded for this workload */
  char error[512];
  char backend[16], cycles_source[16];
  double cycles, compute_bound, utilisation, macs, bytes_read, bytes_written;
  double rtl_cycles, rtl_diff;    /* < 0: not sampled; diff = (cycles - rtl) / rtl */
  double rtl_bound;               /* sc's calibrated error for this workload (backend sc) or -1 */
  int rtl_within;                 /* |rtl_diff| <= rtl_bound: 1, 0, or -1 (not judged) */
  double latency_ms;
  int have_res;                   /* resources known for every part estimate used */
  int part_res[SWEEP_MAX_PARTS];  /* resources known for this part's estimate */
  double lut, ff, dsp, bram36, uram;  /* of the first part's estimate (for the plot) */
  double res_by_part[SWEEP_MAX_PARTS][5];
  int fits[SWEEP_MAX_PARTS];
  double util_by_part[SWEEP_MAX_PARTS];  /* largest fraction of the part used */
} sweep_row;

/* Sets row->rtl_cycles, rtl_diff and, for the sc backend, rtl_bound (sc's calibrated error for
 * the row's workload) and rtl_within from the rtl run's cycles. */
void sweep_row_set_rtl(const sweep_spec *s, sweep_row *row, double rtl_cycles);

/* Writes OUT/results.csv, results.jsonl, pareto.svg, report.md (each atomically). invalid:
 * the points isa/ refused, one "label: reason" line each (or NULL), listed in the report. */
int sweep_write_outputs(const sweep_spec *s, const char *out, const sweep_row *rows, size_t n,
                        const char *invalid, char *err, size_t errlen);

#endif
