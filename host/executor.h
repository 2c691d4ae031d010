/* executor.h - one job executor for the flows on top (`vta sweep`, `vta regress`): a list of
 * commands with their output folders in, exit statuses, times and logs out. The caller does not
 * know which engine runs them.
 *
 *   struct vta_job jobs[2] = {
 *     {"p0", (char *const[]){"vta", "bench", "gemm", NULL}, "out/p0", 600},
 *     {"p1", (char *const[]){"vta", "bench", "alu", NULL}, "out/p1", 600},
 *   };
 *   struct vta_job_result res[2];
 *   struct vta_executor_opts o = {.kind = VTA_EXECUTOR_LOCAL, .jobs = 2};
 *   if (vta_executor_run(&o, jobs, 2, res, err, sizeof err) != 0) -> err says why
 *   res[i].exit_code == 0 -> job i succeeded; its output (stdout and stderr) is in res[i].log.
 *
 * Engines:
 *   LOCAL  up to `jobs` child processes at once, each in its own session (process group) with standard
 *          input from /dev/null and standard output and error in its log; a job past its
 *          timeout gets SIGTERM, then SIGKILL 2 s later.
 *   SLURM  one sbatch job array for the list (one task per job, `%throttle` concurrent tasks),
 *          split into several arrays chained with afterany dependencies when the list is longer
 *          than the cluster's MaxArraySize (from `scontrol show config`, or max_array). Every
 *          task writes "<exit status> <start ns> <end ns>" into shared_dir/results/<index>, which
 *          must be a folder all nodes see (as must the jobs' out_dir); the executor polls those
 *          files and squeue. A task that leaves the queue without a result (node failure, Slurm
 *          time limit, cancelled) is reported with exit_code -1 and the reason Slurm gives.
 *          The job's own timeout is enforced inside the task with timeout(1); the Slurm time
 *          limit is set a minute above it as a backstop. Slurm client commands use $SLURM_CONF
 *          as usual.
 * Both engines resubmit failed jobs (non-zero exit, timeout, lost task) up to `retries` times;
 * the result kept is the last attempt's. Setting *cancel (e.g. from a SIGINT handler, see
 * vta_executor_catch_sigint) stops everything: local children are killed, Slurm arrays are
 * scancel'ed and the executor waits for them to leave the queue.
 *
 * Logs: <out_dir>/<name>.log (out_dir is created). Job names are used in file names and Slurm
 * job names, so they are limited to letters, digits, '.', '_' and '-'.
 */
#ifndef VTA_HOST_EXECUTOR_H
#define VTA_HOST_EXECUTOR_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>

enum vta_executor_kind { VTA_EXECUTOR_LOCAL, VTA_EXECUTOR_SLURM, VTA_EXECUTOR_KIND_COUNT };

struct vta_job {
  const char *name;     /* [A-Za-z0-9._-]+, unique in the list */
  char *const *argv;    /* NULL-terminated; argv[0] is looked up in PATH */
  const char *out_dir;  /* created if missing; holds <name>.log */
  double timeout_s;     /* wall-clock limit; 0 = none */
};

struct vta_job_result {
  int exit_code;        /* exit status; 128+N when killed by signal N; -1 never ran or lost */
  int timed_out;        /* killed at its timeout */
  int attempts;         /* how many times it was started (1 + resubmissions) */
  double seconds;       /* wall-clock time of the last attempt */
  char log[PATH_MAX];   /* its output, standard output and error */
  char reason[256];     /* empty on success; else what went wrong in words */
};

struct vta_executor_opts {
  enum vta_executor_kind kind;
  unsigned jobs;               /* LOCAL: concurrent processes (0 = 1) */
  const char *partition;       /* SLURM: partition (NULL = the cluster's default) */
  unsigned throttle;           /* SLURM: the %N of the arrays (0 = no throttle) */
  unsigned max_array;          /* SLURM: tasks per array (0 = the cluster's MaxArraySize) */
  const char *shared_dir;      /* SLURM: folder for scripts and results, seen by all nodes */
  const char *sbatch_extra;    /* SLURM: extra sbatch options, space separated (NULL = none) */
  unsigned retries;            /* resubmissions of failed jobs */
  double poll_s;               /* SLURM: poll interval (0 = 0.2 s) */
  /* Called after each job finishes (and once per resubmission round with index == (size_t)-1):
   * done and failed count finished jobs so far out of total. */
  void (*progress)(void *ctx, size_t done, size_t failed, size_t total, size_t index,
                   const struct vta_job_result *r);
  void *progress_ctx;
  volatile sig_atomic_t *cancel;  /* non-zero: stop everything (NULL = never) */
};

/* Runs every job; fills out[0..n-1]. Returns 0 when every job ran to its end (failed jobs are
 * in out[i].exit_code, not an error of the executor), 1 when cancelled (unfinished jobs have
 * exit_code -1 and reason "cancelled"), -1 when the executor itself could not work (bad job
 * list, no sbatch, folder not writable; err says which) . */
int vta_executor_run(const struct vta_executor_opts *opts, const struct vta_job *jobs, size_t n,
                     struct vta_job_result *out, char *err, size_t errlen);

/* Installs a SIGINT/SIGTERM handler that sets the returned flag (for opts.cancel). */
volatile sig_atomic_t *vta_executor_catch_sigint(void);

/* Parses "local" / "slurm". Returns -1 for anything else. */
int vta_executor_kind_parse(const char *name, enum vta_executor_kind *kind);

#endif
