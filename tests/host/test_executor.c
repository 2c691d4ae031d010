/* test_executor.c - the job executor (host/executor.h) on both engines: local processes and a
 * real single-node Slurm started for this test by scripts/slurm-local.sh (munged, slurmctld,
 * slurmd, free ports, all state in a temporary folder). The cluster is stopped in the group
 * teardown and, should this process die first, by the script's watchdog.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/executor.h"
#include "support/slurm_local.h"

static char tmp[256];
static char slurm_dir[300];

static void read_all(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  size_t n = 0;
  if (f) {
    n = fread(buf, 1, size - 1, f);
    fclose(f);
  }
  buf[n] = '\0';
}

static char *const sh_ok[] = {"sh", "-c", "echo hello $0", "x", NULL};
static char *const sh_fail[] = {"sh", "-c", "echo broken >&2; exit 3", NULL};
static char *const sh_sleep[] = {"sleep", "30", NULL};
static char *const no_such[] = {"/nonexistent/vta-no-such-program", NULL};

/* A job that fails on its first attempt and succeeds on the second (a marker file in out). */
static char flaky_cmd[600];
static char *flaky[] = {"sh", "-c", flaky_cmd, NULL};

static void test_executor_local_runs_jobs_with_logs_and_statuses(void **state) {
  (void)state;
  char out[300], buf[512];
  snprintf(out, sizeof out, "%s/local1", tmp);
  struct vta_job jobs[4] = {{"ok", sh_ok, out, 10},
                            {"fail", sh_fail, out, 10},
                            {"missing", no_such, out, 10},
                            {"ok2", sh_ok, out, 10}};
  struct vta_job_result res[4];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_LOCAL, .jobs = 2};
  char err[512] = "";
  assert_int_equal(vta_executor_run(&o, jobs, 4, res, err, sizeof err), 0);
  assert_int_equal(res[0].exit_code, 0);
  assert_int_equal(res[0].reason[0], '\0');
  read_all(res[0].log, buf, sizeof buf);
  assert_string_equal(buf, "hello x\n");
  assert_int_equal(res[1].exit_code, 3);
  assert_string_equal(res[1].reason, "exit status 3");
  read_all(res[1].log, buf, sizeof buf);
  assert_string_equal(buf, "broken\n");
  assert_int_equal(res[2].exit_code, 127);
  read_all(res[2].log, buf, sizeof buf);
  assert_non_null(strstr(buf, "cannot run '/nonexistent/vta-no-such-program'"));
  assert_int_equal(res[3].exit_code, 0);
  assert_int_equal(res[3].attempts, 1);
}

/* Two jobs that each wait for the other's marker file finish only if they run at once. */
static char meet_a[700], meet_b[700];
static char *const rendezvous_a[] = {"sh", "-c", meet_a, NULL};
static char *const rendezvous_b[] = {"sh", "-c", meet_b, NULL};
static void test_executor_local_runs_n_at_once(void **state) {
  (void)state;
  char out[300], err[256];
  snprintf(out, sizeof out, "%s/local2", tmp);
  snprintf(meet_a, sizeof meet_a, "touch %s/a; while [ ! -e %s/b ]; do sleep 0.05; done", out, out);
  snprintf(meet_b, sizeof meet_b, "touch %s/b; while [ ! -e %s/a ]; do sleep 0.05; done", out, out);
  struct vta_job jobs[2] = {{"a", rendezvous_a, out, 60}, {"b", rendezvous_b, out, 60}};
  struct vta_job_result res[2];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_LOCAL, .jobs = 2};
  assert_int_equal(vta_executor_run(&o, jobs, 2, res, err, sizeof err), 0);
  assert_int_equal(res[0].exit_code, 0);
  assert_int_equal(res[1].exit_code, 0);
}

static void test_executor_local_kills_at_timeout(void **state) {
  (void)state;
  char out[300], err[256];
  snprintf(out, sizeof out, "%s/local3", tmp);
  struct vta_job jobs[1] = {{"slow", sh_sleep, out, 0.3}};
  struct vta_job_result res[1];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_LOCAL, .jobs = 1};
  assert_int_equal(vta_executor_run(&o, jobs, 1, res, err, sizeof err), 0);
  assert_int_equal(res[0].timed_out, 1);
  assert_int_equal(res[0].exit_code, 128 + 15);
  assert_true(res[0].seconds < 10);
  assert_non_null(strstr(res[0].reason, "timed out"));
}

static int cancel_after;
static volatile sig_atomic_t cancel_flag;
static void cancel_progress(void *ctx, size_t done, size_t failed, size_t total, size_t index,
                            const struct vta_job_result *r) {
  (void)ctx, (void)failed, (void)total, (void)index, (void)r;
  if ((int)done >= cancel_after)
    cancel_flag = 1;
}

static void test_executor_local_cancel_stops_all(void **state) {
  (void)state;
  char out[300], err[256];
  snprintf(out, sizeof out, "%s/local4", tmp);
  struct vta_job jobs[4] = {{"quick", sh_ok, out, 10}, {"s1", sh_sleep, out, 60},
                            {"s2", sh_sleep, out, 60}, {"s3", sh_sleep, out, 60}};
  struct vta_job_result res[4];
  cancel_flag = 0;
  cancel_after = 1;
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_LOCAL, .jobs = 2,
                                .progress = cancel_progress, .cancel = &cancel_flag};
  assert_int_equal(vta_executor_run(&o, jobs, 4, res, err, sizeof err), 1);
  assert_int_equal(res[0].exit_code, 0);
  for (int i = 1; i < 4; i++) {
    assert_int_equal(res[i].exit_code, -1);
    assert_string_equal(res[i].reason, "cancelled");
    assert_true(res[i].seconds < 10);
  }
}

static void test_executor_local_retries_failures(void **state) {
  (void)state;
  char out[300], err[256];
  snprintf(out, sizeof out, "%s/local5", tmp);
  snprintf(flaky_cmd, sizeof flaky_cmd, "if [ -e %s/marker ]; then echo second; else touch %s/marker; exit 1; fi",
           out, out);
  struct vta_job jobs[2] = {{"flaky", flaky, out, 10}, {"bad", sh_fail, out, 10}};
  struct vta_job_result res[2];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_LOCAL, .jobs = 2, .retries = 2};
  assert_int_equal(vta_executor_run(&o, jobs, 2, res, err, sizeof err), 0);
  assert_int_equal(res[0].exit_code, 0);
  assert_int_equal(res[0].attempts, 2);
  assert_int_equal(res[1].exit_code, 3);
  assert_int_equal(res[1].attempts, 3);
}

static void test_executor_refuses_bad_job_lists(void **state) {
  (void)state;
  char out[300], err[512];
  snprintf(out, sizeof out, "%s/local6", tmp);
  struct vta_job_result res[2];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_LOCAL, .jobs = 1};
  struct vta_job badname[1] = {{"a/b", sh_ok, out, 1}};
  assert_int_equal(vta_executor_run(&o, badname, 1, res, err, sizeof err), -1);
  assert_non_null(strstr(err, "name 'a/b'"));
  struct vta_job dup[2] = {{"a", sh_ok, out, 1}, {"a", sh_ok, out, 1}};
  assert_int_equal(vta_executor_run(&o, dup, 2, res, err, sizeof err), -1);
  assert_non_null(strstr(err, "both named 'a'"));
  struct vta_job neg[1] = {{"a", sh_ok, out, -1}};
  assert_int_equal(vta_executor_run(&o, neg, 1, res, err, sizeof err), -1);
  assert_non_null(strstr(err, "timeout -1"));
  struct vta_job noargv[1] = {{"a", NULL, out, 1}};
  assert_int_equal(vta_executor_run(&o, noargv, 1, res, err, sizeof err), -1);
  assert_non_null(strstr(err, "no command"));
  struct vta_executor_opts so = {.kind = VTA_EXECUTOR_SLURM};
  struct vta_job one[1] = {{"a", sh_ok, out, 1}};
  assert_int_equal(vta_executor_run(&so, one, 1, res, err, sizeof err), -1);
  assert_non_null(strstr(err, "shared folder"));
  enum vta_executor_kind k;
  assert_int_equal(vta_executor_kind_parse("slurm", &k), 0);
  assert_int_equal(k, VTA_EXECUTOR_SLURM);
  assert_int_equal(vta_executor_kind_parse("pbs", &k), -1);
}

/* ---- Slurm ---- */

static int slurm_setup(void **state) {
  (void)state;
  snprintf(slurm_dir, sizeof slurm_dir, "%s/slurm", tmp);
  return test_slurm_start(slurm_dir);
}

static int slurm_teardown(void **state) {
  (void)state;
  return test_slurm_stop();
}

/* Seven jobs, arrays of at most three tasks (so three chained arrays), a throttle of two, one
 * failing job, one that times out, one that fails once and is resubmitted. */
static void test_executor_slurm_arrays_split_results_and_resubmission(void **state) {
  (void)state;
  char out[300], shared[300], err[1024] = "", buf[512];
  snprintf(out, sizeof out, "%s/s1", tmp);
  snprintf(shared, sizeof shared, "%s/s1/shared", tmp);
  snprintf(flaky_cmd, sizeof flaky_cmd, "if [ -e %s/marker ]; then echo second; else touch %s/marker; exit 1; fi",
           out, out);
  struct vta_job jobs[7] = {{"j0", sh_ok, out, 30},   {"j1", sh_ok, out, 30},
                            {"j2", sh_fail, out, 30}, {"j3", sh_ok, out, 30},
                            {"j4", flaky, out, 30},   {"j5", sh_sleep, out, 0.5},
                            {"j6", sh_ok, out, 30}};
  struct vta_job_result res[7];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_SLURM, .shared_dir = shared, .throttle = 2,
                                .max_array = 3, .retries = 1, .poll_s = 0.1};
  assert_int_equal(vta_executor_run(&o, jobs, 7, res, err, sizeof err), 0);
  for (int i = 0; i < 7; i++) {
    if (i == 2 || i == 5)
      continue;
    assert_int_equal(res[i].exit_code, 0);
    read_all(res[i].log, buf, sizeof buf);
    assert_string_equal(buf, i == 4 ? "second\n" : "hello x\n");
  }
  assert_int_equal(res[4].attempts, 2);
  assert_int_equal(res[0].attempts, 1);
  assert_int_equal(res[2].exit_code, 3);
  assert_int_equal(res[2].attempts, 2);
  read_all(res[2].log, buf, sizeof buf);
  assert_string_equal(buf, "broken\n");
  assert_int_equal(res[5].timed_out, 1);
  assert_true(res[5].seconds < 20);
}

static void test_executor_slurm_cancel_scancels_and_empties_queue(void **state) {
  (void)state;
  char out[300], shared[300], err[1024] = "";
  snprintf(out, sizeof out, "%s/s2", tmp);
  snprintf(shared, sizeof shared, "%s/s2/shared", tmp);
  struct vta_job jobs[3] = {{"quick", sh_ok, out, 60}, {"s1", sh_sleep, out, 60},
                            {"s2", sh_sleep, out, 60}};
  struct vta_job_result res[3];
  cancel_flag = 0;
  cancel_after = 1;
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_SLURM, .shared_dir = shared, .poll_s = 0.1,
                                .progress = cancel_progress, .cancel = &cancel_flag};
  assert_int_equal(vta_executor_run(&o, jobs, 3, res, err, sizeof err), 1);
  assert_int_equal(res[0].exit_code, 0);
  assert_string_equal(res[1].reason, "cancelled");
  assert_string_equal(res[2].reason, "cancelled");
  /* Nothing of ours is left in the queue. */
  FILE *p = popen("squeue -h --me -o %i", "r");
  char buf[256] = "";
  assert_non_null(p);
  size_t got = fread(buf, 1, sizeof buf - 1, p);
  buf[got] = '\0';
  assert_int_equal(pclose(p), 0);
  assert_string_equal(buf, "");
}

/* A task that ends before it writes its result (here the job SIGKILLs the task's batch shell,
 * its parent when the job has no timeout wrapper, as a node failure or the OOM killer would)
 * is reported lost, with Slurm's state. (scancel is no good here: its SIGTERM may reach the
 * job before the batch shell, which then writes the job's status 143.) */
static void test_executor_slurm_reports_lost_tasks(void **state) {
  (void)state;
  char out[300], shared[300], err[1024] = "";
  snprintf(out, sizeof out, "%s/s3", tmp);
  snprintf(shared, sizeof shared, "%s/s3/shared", tmp);
  static char *const killer[] = {"sh", "-c", "kill -9 $PPID", NULL};
  struct vta_job jobs[2] = {{"ok", sh_ok, out, 60}, {"lost", killer, out, 0}};
  struct vta_job_result res[2];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_SLURM, .shared_dir = shared, .poll_s = 0.1};
  assert_int_equal(vta_executor_run(&o, jobs, 2, res, err, sizeof err), 0);
  assert_int_equal(res[0].exit_code, 0);
  assert_int_equal(res[1].exit_code, -1);
  assert_non_null(strstr(res[1].reason, "ended without a result"));
  assert_non_null(strstr(res[1].reason, "JobState="));
}

static void test_executor_slurm_sbatch_errors_are_reported(void **state) {
  (void)state;
  char out[300], shared[300], err[1024] = "";
  snprintf(out, sizeof out, "%s/s4", tmp);
  snprintf(shared, sizeof shared, "%s/s4/shared", tmp);
  struct vta_job jobs[1] = {{"ok", sh_ok, out, 60}};
  struct vta_job_result res[1];
  struct vta_executor_opts o = {.kind = VTA_EXECUTOR_SLURM, .shared_dir = shared,
                                .partition = "no-such-partition"};
  assert_int_equal(vta_executor_run(&o, jobs, 1, res, err, sizeof err), -1);
  assert_non_null(strstr(err, "sbatch failed"));
  assert_non_null(strstr(err, "artition"));
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/vta-test-executor-XXXXXX");
  if (!mkdtemp(tmp)) {
    perror("mkdtemp");
    return 1;
  }
  const struct CMUnitTest local[] = {
      cmocka_unit_test(test_executor_local_runs_jobs_with_logs_and_statuses),
      cmocka_unit_test(test_executor_local_runs_n_at_once),
      cmocka_unit_test(test_executor_local_kills_at_timeout),
      cmocka_unit_test(test_executor_local_cancel_stops_all),
      cmocka_unit_test(test_executor_local_retries_failures),
      cmocka_unit_test(test_executor_refuses_bad_job_lists),
  };
  const struct CMUnitTest slurm[] = {
      cmocka_unit_test(test_executor_slurm_arrays_split_results_and_resubmission),
      cmocka_unit_test(test_executor_slurm_cancel_scancels_and_empties_queue),
      cmocka_unit_test(test_executor_slurm_reports_lost_tasks),
      cmocka_unit_test(test_executor_slurm_sbatch_errors_are_reported),
  };
  int rc = cmocka_run_group_tests_name("executor_local", local, NULL, NULL);
  rc += cmocka_run_group_tests_name("executor_slurm", slurm, slurm_setup, slurm_teardown);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", tmp);
  return rc;
}
