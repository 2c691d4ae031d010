/* regress.h - simulation regressions: cases (configuration x backend x workload x seed), the
 * runner of one case against fsim, JUnit XML and the terminal summary (`vta regress`).
 *
 *     vta_regress_plan plan; vta_regress_plan_init(&plan);
 *     vta_regress_suite_load(&plan, "quick", seed_start, &err);     // or _add_case, _rerun_load
 *     vta_regress_results res;
 *     vta_regress_run(&plan, &opts, &res, &err);                    // in this process
 *     vta_regress_junit_write(&plan, &res, "regress.xml", &err);
 *     vta_regress_plan_free(&plan);
 *
 * A case builds its seeded program in a reference memory, copies every allocation to a device
 * of the chosen backend at the same physical addresses (so the program needs no relocation),
 * runs it there and on fsim, and compares every byte of every allocation and the counters both
 * keep. Backends are named, not enumerated: a backend the device table does not list (sc, xrt
 * before they are built) turns its cases into skipped ones that say so, and joins the matrix by
 * itself once it is built. Workloads are a table (VTA_DIFF_WORKLOADS in driver/diff.h, where the
 * runner of one case lives, below the host layer).
 */
#ifndef VTA_HOST_REGRESS_H
#define VTA_HOST_REGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "driver/diff.h"
#include "vta/status.h"

typedef enum vta_regress_outcome {
  VTA_REGRESS_PASS = 0,
  VTA_REGRESS_FAIL,    /* the backend disagrees with fsim */
  VTA_REGRESS_ERROR,   /* the case could not run (a run error, a timeout, a missing model) */
  VTA_REGRESS_SKIPPED, /* not run: backend not built, time budget or --fail-max reached */
  VTA_REGRESS_OUTCOME_COUNT
} vta_regress_outcome;

typedef struct vta_regress_case {
  uint32_t config;  /* index into plan.configs */
  uint32_t backend; /* index into plan.backends */
  vta_diff_workload workload;
  uint64_t seed;
} vta_regress_case;

typedef struct vta_regress_result {
  vta_regress_outcome outcome;
  double seconds;
  uint32_t insns;      /* instructions of the program run */
  uint64_t cycles;     /* device cycles (cycle-level backends) */
  char message[384];   /* one line */
  /* Owned, NULL when none (kept off the array: a nightly has hundreds of thousands of cases). */
  char *detail;        /* failure text: address, instruction, disassembly, command */
  char *wave;          /* waveform file written for a failing rtl case */
} vta_regress_result;

#define VTA_REGRESS_MAX_AXIS 32
/* The workload names, for messages (VTA_DIFF_WORKLOADS in driver/diff.h). */
#define VTA_REGRESS_WORKLOAD_LIST "random, conc, gemm, alu, conv, model"

typedef struct vta_regress_plan {
  char name[64];                              /* suite name */
  char *configs[VTA_REGRESS_MAX_AXIS];        /* configuration files */
  uint32_t nconfigs;
  char *backends[VTA_REGRESS_MAX_AXIS];       /* backend names */
  uint32_t nbackends;
  vta_regress_case *cases;
  size_t ncases, cap;
  uint64_t seed_start;                        /* first seed of the matrix, for the record */
} vta_regress_plan;

void vta_regress_plan_init(vta_regress_plan *p);
void vta_regress_plan_free(vta_regress_plan *p);
/* Index of a configuration / backend in the plan, added when new. -1 on overflow. */
int vta_regress_plan_config(vta_regress_plan *p, const char *path, vta_error *err);
int vta_regress_plan_backend(vta_regress_plan *p, const char *name, vta_error *err);
/* 1: built; 2: not built but planned (sc, xrt): its cases are skipped; 0: unknown. list (may
 * be NULL) receives "fsim, rtl; planned: sc xrt" for messages. */
int vta_regress_backend_known(const char *name, char *list, size_t n);
int vta_regress_plan_add(vta_regress_plan *p, uint32_t config, uint32_t backend,
                         vta_diff_workload w, uint64_t seed, vta_error *err);
/* Adds the whole matrix: every configuration x backend x workload, `seeds` seeds each from
 * seed_start. */
int vta_regress_plan_matrix(vta_regress_plan *p, const char *const *configs, size_t nconfigs,
                            const char *const *backends, size_t nbackends,
                            const vta_diff_workload *works, const uint64_t *seeds,
                            size_t nworks, uint64_t seed_start, vta_error *err);

/* A suite: "quick", "nightly" (built in; their configuration paths are relative to the source
 * tree) or a JSON file {"name": ..., "configs": [...], "backends": [...], "workloads":
 * {"random": SEEDS, "conc": SEEDS}}. seeds_override (0 = the suite's) replaces every count. */
int vta_regress_suite_load(vta_regress_plan *p, const char *suite, uint64_t seed_start,
                           uint64_t seeds_override, vta_error *err);
/* The failed and erroneous cases of a JUnit file written by vta regress. */
int vta_regress_rerun_load(vta_regress_plan *p, const char *xml_path, vta_error *err);

typedef struct vta_regress_options {
  double time_budget;      /* seconds; 0 = none: cases not started in time are skipped */
  uint64_t fail_max;       /* stop after this many failures and errors; 0 = no limit */
  const char *wave_dir;    /* waveforms of failing rtl cases; NULL = none */
  uint64_t wave_window;    /* cycles of waveform before and after the first divergence */
  int progress;            /* 1: progress line on stderr */
  int64_t inject_fault;    /* test hook: case index whose device memory gets one bit flipped
                              after its run (-1 = none) */
  int64_t inject_crash;    /* test hook: case index (a runtime-level workload) whose child
                              process faults before it runs (-1 = none) */
  const char *argv0;       /* the vta program named in reproduction commands */
  const char *self;        /* the vta program the runtime-level cases run in (`regress
                              --work-case`); NULL = this program */
  /* Coverage: the rtl cases run the models built with line and toggle coverage (make
   * rtl-cov-models) and write their data under this folder; vta_regress_coverage merges it.
   * NULL = no coverage. */
  const char *coverage_dir;
  double deadline;         /* CLOCK_REALTIME seconds after which no case starts; 0 = none */
} vta_regress_options;

void vta_regress_options_default(vta_regress_options *o);

typedef struct vta_regress_results {
  vta_regress_result *r; /* one per case, in plan order */
  size_t n;
  double seconds;
  uint64_t count[VTA_REGRESS_OUTCOME_COUNT];
} vta_regress_results;

/* Runs cases [first, first + n) of the plan in this process into res->r[first..]. res must
 * have been prepared by vta_regress_results_init. */
int vta_regress_results_init(vta_regress_results *res, const vta_regress_plan *p, vta_error *err);
void vta_regress_results_free(vta_regress_results *res);
int vta_regress_run(const vta_regress_plan *p, const vta_regress_options *o,
                    vta_regress_results *res, vta_error *err);

/* Merges the coverage data of a run (the .dat files of coverage_dir/data) with verilator_coverage into
 * coverage_dir/coverage.dat, writes annotated sources to coverage_dir/annotated/ and a
 * per-module table (line and toggle points covered) to coverage_dir/summary.txt and `out`. */
int vta_regress_coverage(const char *coverage_dir, FILE *out, vta_error *err);

/* ---- Parallel and cluster runs through the job executor (host/executor.h) ----
 * The cases are cut into jobs of consecutive cases of one configuration and backend (about four
 * jobs per worker, so that workers finish together); each job is the command
 * `vta regress --job CASES --job-results RESULTS` run by the executor, which runs its cases in
 * its process and writes one line per case; the results are read back into res in plan order.
 * With jobs, --fail-max counts per job and the time budget is a deadline every job obeys. */
struct vta_executor_opts;
int vta_regress_run_jobs(const vta_regress_plan *p, const vta_regress_options *o,
                         const struct vta_executor_opts *eo, const char *work_dir,
                         const char *self, vta_regress_results *res, vta_error *err);
/* The job side: runs the cases listed in cases_path and writes results_path (temp + rename).
 * deadline: CLOCK_REALTIME seconds after which no case starts (0 = none). */
int vta_regress_job(const char *cases_path, const char *results_path,
                    const vta_regress_options *o, double deadline, vta_error *err);

/* The command that reproduces one case. */
void vta_regress_case_command(const vta_regress_plan *p, const vta_regress_case *c,
                              const char *argv0, char *buf, size_t n);

/* JUnit XML: one testsuite per configuration and backend, one testcase per workload and seed.
 * Written to a temporary file and renamed. */
int vta_regress_junit_write(const vta_regress_plan *p, const vta_regress_results *res,
                            const char *path, vta_error *err);
/* The table per configuration and backend. */
void vta_regress_summary(const vta_regress_plan *p, const vta_regress_results *res, FILE *out);

#endif
