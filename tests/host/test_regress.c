/* test_regress.c - `vta regress`: the quick suite passes and its JUnit file is valid against the
 * JUnit schema CI servers read (docs/user-guide/junit.xsd, checked with xmllint); a failing
 * case carries its address, instruction, waveform and reproduction command, and reruns from the
 * JUnit file alone; the stopping rules, backends that are not built, and bad input.
 *
 * The quick suite runs from a random first seed, printed, so that every `make test` covers new
 * programs and a failure names the seed that reproduces it.
 */
#include <time.h>

/* The quick suite takes about half a minute; on a machine shared by many builds, several times
 * that. */
#define CLI_RUN_TIMEOUT 600
#include "cli_run.h"
#include "host/regress.h"
#include "host/regress_work.h"
#include "vta/device.h"
#include "support/slurm_local.h"

static char g_dir[] = "/tmp/vta_test_regress.XXXXXX";

static int setup(void **state) {
  (void)state;
  return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void path(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", g_dir, name); }

/* xmllint validates the file against the schema; returns its exit status. */
static int validate(const char *xml) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "xmllint --noout --schema docs/user-guide/junit.xsd '%s' >/dev/null 2>&1", xml);
  return system(cmd);
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

static void test_regress_quick_suite_passes_with_valid_junit(void **state) {
  (void)state;
  char xml[512], start[32], want[96];
  path(xml, sizeof xml, "quick.xml");
  snprintf(start, sizeof start, "%llu", (unsigned long long)(time(NULL) % 1000000000) + 1);
  printf("quick suite from seed %s (vta regress --suite quick --seed-start %s)\n", start, start);
  cli_result r;
  CLI_RUN(&r, "regress", "--suite", "quick", "--seed-start", start, "--junit", xml, "--no-waves",
          "-j", "2");
  if (r.status != 0)
    fail_msg("quick suite from seed %s failed (status %d); rerun with: vta regress --suite quick "
             "--seed-start %s\n--- its stdout ---\n%s\n--- its stderr ---\n%s",
             start, r.status, start, r.out, r.err);
  printf("%s", r.out);
  /* 2 configurations x 3 backends x (120 + 120 + 3 + 3 + 3 + 1 model), and 3 generated
   * configurations x fsim, sc x (30 + 30 + 2 + 2 + 2 + 1); sc's cases are skipped by name when it
   * is not built. */
  if (vta_backend_find("sc"))
    assert_non_null(strstr(r.out, "1902 cases: 1902 passed, 0 failed, 0 errors, 0 skipped"));
  else
    assert_non_null(strstr(r.out, "1902 cases: 1701 passed, 0 failed, 0 errors, 201 skipped"));
  /* The progress lines (of the executor's jobs) go to stderr, the table to stdout. */
  assert_non_null(strstr(r.err, "[jobs "));
  cli_result_free(&r);
  assert_int_equal(validate(xml), 0);
  char *x = cli_slurp(xml, NULL);
  assert_non_null(x);
  /* 2 configurations x fsim, rtl, rtl behind a slow memory; 3 generated x fsim, sc */
  assert_int_equal(count(x, "<testsuite "), 12);
  assert_non_null(strstr(x, "<testsuite name=\"vta_default.rtl@latency=1,bandwidth=3\""));
  assert_int_equal(count(x, "<testcase "), 1902);
  snprintf(want, sizeof want, "<testsuite name=\"gen:%s.sc\"", start);
  assert_non_null(strstr(x, want));
  assert_non_null(strstr(x, "name=\"conv seed="));
  assert_non_null(strstr(x, "name=\"gemm seed="));
  assert_non_null(strstr(x, "name=\"alu seed="));
  assert_non_null(strstr(x, "<testsuite name=\"rtl_wide.rtl\""));
  snprintf(want, sizeof want, "name=\"conc seed=%s\"", start);
  assert_non_null(strstr(x, want));
  free(x);
}

/* A fault injected into the rtl device's memory after a run stands for an RTL bug: the case
 * fails with everything needed to debug it, and the JUnit file alone reruns it. */
static void test_regress_failure_names_address_instruction_waveform_and_command(void **state) {
  (void)state;
  char xml[512], waves[512], rerun[512];
  path(xml, sizeof xml, "fail.xml");
  path(waves, sizeof waves, "waves");
  path(rerun, sizeof rerun, "rerun.xml");
  cli_result r;
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", "rtl",
          "--workload", "conc", "--seed-start", "40", "--seeds", "3", "--inject-fault", "1",
          "--junit", xml, "--wave-dir", waves, "-q");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.out, "3 cases: 2 passed, 1 failed, 0 errors, 0 skipped"));
  assert_non_null(strstr(r.out, "FAIL conc seed=41 on rtl: device memory differs at 0x"));
  cli_result_free(&r);
  assert_int_equal(validate(xml), 0);
  char *x = cli_slurp(xml, NULL);
  assert_non_null(x);
  assert_int_equal(count(x, "<failure "), 1);
  assert_non_null(strstr(x, "first differing address: 0x"));
  /* The injected byte is the first one the last STORE writes: the report names that STORE. */
  const char *ins = strstr(x, "last instruction storing it: #");
  assert_non_null(ins);
  assert_non_null(strstr(ins, ": store memory_type=out"));
  assert_non_null(strstr(x, "the RTL last wrote the address at cycle "));
  /* The case ran second in its session: the command replays the session up to it, and the
   * case alone is named too. */
  assert_non_null(strstr(x, "reproduce: vta regress --config configs/vta_default.json "
                            "--backend rtl --workload conc --seed-start 40 --seeds 2"));
  assert_non_null(strstr(x, "the case alone (it ran after 1 others in its session, whose on-chip "
                            "state it started from): vta regress --config "
                            "configs/vta_default.json --backend rtl --workload conc --seed 41"));
  char fst[1024];
  snprintf(fst, sizeof fst, "%s/vta_default.rtl.conc.41.fst", waves);
  char attach[1100];
  snprintf(attach, sizeof attach, "[[ATTACHMENT|%s]]", fst);
  assert_non_null(strstr(x, attach));
  free(x);
  struct stat st;
  assert_int_equal(stat(fst, &st), 0);
  assert_true(st.st_size > 100);
  /* The rerun takes exactly the failed case; without the fault it passes. */
  CLI_RUN(&r, "regress", "--rerun-failed", xml, "--junit", rerun, "-q");
  if (r.status != 0) fail_msg("rerun failed:\n%s\n%s", r.out, r.err);
  assert_non_null(strstr(r.out, "1 cases: 1 passed"));
  cli_result_free(&r);
  x = cli_slurp(rerun, NULL);
  assert_non_null(x);
  assert_int_equal(count(x, "<testcase "), 1);
  assert_non_null(strstr(x, "name=\"conc seed=41\""));
  free(x);
  assert_int_equal(validate(rerun), 0);
}

/* -j 2 hands jobs to the executor shared with vta sweep: the same cases, the same verdicts, the
 * failure report (waveform included) written by the job that ran the case. */
/* The nightly suite's find of 28 November 2026: in one session, random programs 20261376 and
 * 20261379 leave ACC and the micro-op footprints such that in 20261380 an ALU add dual-issued
 * beside an empty GEMM read ACC entries the GEMM before it had not written yet (vta_compute
 * checked only the footprint of the other unit's newest instruction). 5 of 6 passed before the
 * fix. It depends on sim/gen's programs for these seeds staying as they are. */
static void test_regress_dual_issue_waits_for_the_previous_instruction(void **state) {
  (void)state;
  char xml[512];
  path(xml, sizeof xml, "dual.xml");
  cli_result r;
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", "rtl",
          "--workload", "random", "--seed-start", "20261376", "--seeds", "6", "--junit", xml,
          "--no-waves", "-q");
  if (r.status != 0) fail_msg("status %d\n%s\n%s", r.status, r.out, r.err);
  assert_non_null(strstr(r.out, "6 cases: 6 passed, 0 failed, 0 errors, 0 skipped"));
  cli_result_free(&r);
}

static void test_regress_parallel_jobs_give_the_same_report(void **state) {
  (void)state;
  char xml[512], waves[512], work[512];
  path(xml, sizeof xml, "par.xml");
  path(waves, sizeof waves, "parwaves");
  path(work, sizeof work, "parjobs");
  cli_result r;
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--config",
          "sim/rtl/configs/rtl_wide.json", "--backend", "rtl", "--backend", "fsim",
          "--seed-start", "40", "--seeds", "30", "--inject-fault", "31", "-j", "2", "--junit", xml,
          "--wave-dir", waves, "--work-dir", work, "-q");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.out, "240 cases: 239 passed, 1 failed, 0 errors, 0 skipped"));
  /* Case 31 is conc seed 41 on vta_default/rtl, as in the serial test above. */
  assert_non_null(strstr(r.out, "FAIL conc seed=41 on rtl: device memory differs at 0x"));
  cli_result_free(&r);
  assert_int_equal(validate(xml), 0);
  char *x = cli_slurp(xml, NULL);
  assert_non_null(x);
  assert_int_equal(count(x, "<testcase "), 240);
  assert_int_equal(count(x, "<testsuite "), 4);
  assert_non_null(strstr(x, "the RTL last wrote the address at cycle "));
  free(x);
  char fst[1024];
  snprintf(fst, sizeof fst, "%s/vta_default.rtl.conc.41.fst", waves);
  assert_true(cli_exists(fst));
}

/* --executor slurm: the same jobs as Slurm job arrays, on a throw-away single-node cluster
 * (scripts/slurm-local.sh, as the executor's own test uses). */
static char g_slurm[600];

static int slurm_setup(void **state) {
  (void)state;
  snprintf(g_slurm, sizeof g_slurm, "%s/slurm", g_dir);
  return test_slurm_start(g_slurm);
}

static int slurm_teardown(void **state) {
  (void)state;
  return test_slurm_stop();
}

static void test_regress_slurm_job_arrays(void **state) {
  (void)state;
  char xml[512], work[512], waves[512];
  path(xml, sizeof xml, "slurm.xml");
  path(work, sizeof work, "slurmwork");
  path(waves, sizeof waves, "slurmwaves");
  cli_result r;
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", "rtl",
          "--backend", "fsim", "--seed-start", "40", "--seeds", "10", "--inject-fault", "11",
          "--executor", "slurm", "--junit", xml, "--work-dir", work, "--wave-dir", waves, "-q");
  if (r.status != 1) fail_msg("status %d:\n%s\n%s", r.status, r.out, r.err);
  assert_non_null(strstr(r.out, "40 cases: 39 passed, 1 failed, 0 errors, 0 skipped"));
  assert_non_null(strstr(r.out, "FAIL conc seed=41 on rtl"));
  cli_result_free(&r);
  assert_int_equal(validate(xml), 0);
  char fst[1024];
  snprintf(fst, sizeof fst, "%s/vta_default.rtl.conc.41.fst", waves);
  assert_true(cli_exists(fst));
}

static void test_regress_fail_max_skips_the_rest(void **state) {
  (void)state;
  char xml[512];
  path(xml, sizeof xml, "max.xml");
  cli_result r;
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", "fsim",
          "--seed-start", "7", "--seeds", "4", "--inject-fault", "0", "--fail-max", "1",
          "--junit", xml, "-q");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.out, "8 cases: 0 passed, 1 failed, 0 errors, 7 skipped"));
  cli_result_free(&r);
  char *x = cli_slurp(xml, NULL);
  assert_non_null(x);
  assert_int_equal(count(x, "not run: --fail-max 1 reached"), 7);
  free(x);
  assert_int_equal(validate(xml), 0);
}

/* A backend the build does not have (sc or xrt until they are merged) gives skipped cases that
 * name it, so a suite that lists it runs today and uses it once it is built. */
static void test_regress_backend_not_built_is_skipped_by_name(void **state) {
  (void)state;
  cli_result r;
  CLI_RUN(&r, "--version");
  const char *planned = !strstr(r.out, " sc") ? "sc" : !strstr(r.out, " xrt") ? "xrt" : NULL;
  cli_result_free(&r);
  if (!planned) return; /* both built: nothing is absent */
  char xml[512], msg[96];
  path(xml, sizeof xml, "absent.xml");
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", planned,
          "--backend", "fsim", "--seed", "3", "--junit", xml, "-q");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "4 cases: 2 passed, 0 failed, 0 errors, 2 skipped"));
  cli_result_free(&r);
  char *x = cli_slurp(xml, NULL);
  snprintf(msg, sizeof msg, "not run: backend %s is not built in this version", planned);
  assert_int_equal(count(x, msg), 2);
  free(x);
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", "rtll",
          "--seed", "3", "--junit", xml, "-q");
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "unknown backend 'rtll'"));
  cli_result_free(&r);
}

/* Coverage data as Verilator's models write it (VerilatedCov): two sessions' files are merged
 * by verilator_coverage, the per-module table adds up points and hits of both. */
static void test_regress_coverage_merges_and_summarises(void **state) {
  (void)state;
  char dir[512], data[600], file[700], cwd[400];
  assert_non_null(getcwd(cwd, sizeof cwd));
  path(dir, sizeof dir, "cov");
  snprintf(data, sizeof data, "%s/data", dir);
  vta_error err;
  /* No data yet: the merge says so. */
  assert_int_equal(mkdir(dir, 0777), 0);
  assert_int_equal(mkdir(data, 0777), 0);
  assert_int_not_equal(vta_regress_coverage(dir, NULL, &err), VTA_OK);
  assert_non_null(strstr(err.msg, "no coverage data in "));
  char a[2048], b[1024];
  snprintf(a, sizeof a,
           "# SystemC::Coverage-3\n"
           "C '\001t\002line\001page\002v_line/vta_alu\001f\002%s/hw/rtl/vta_alu.sv\001l\00230"
           "\001n\0020\001o\002block\001S\00230-31\001h\002TOP.vta_top.u_alu' 5\n"
           "C '\001t\002line\001page\002v_line/vta_alu\001f\002%s/hw/rtl/vta_alu.sv\001l\00240"
           "\001n\0020\001o\002block\001S\00240\001h\002TOP.vta_top.u_alu' 0\n"
           "C '\001t\002toggle\001page\002v_toggle/vta_fifo\001f\002%s/hw/rtl/vta_fifo.sv"
           "\001l\00212\001n\0020\001o\002count_q[0]\001h\002TOP.vta_top.u_lq' 0\n",
           cwd, cwd, cwd);
  snprintf(b, sizeof b,
           "# SystemC::Coverage-3\n"
           "C '\001t\002line\001page\002v_line/vta_alu\001f\002%s/hw/rtl/vta_alu.sv\001l\00240"
           "\001n\0020\001o\002block\001S\00240\001h\002TOP.vta_top.u_alu' 2\n",
           cwd);
  snprintf(file, sizeof file, "%s/a.dat", data);
  cli_spit_text(file, a);
  snprintf(file, sizeof file, "%s/b.dat", data);
  cli_spit_text(file, b);
  if (vta_regress_coverage(dir, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  snprintf(file, sizeof file, "%s/summary.txt", dir);
  char *sum = cli_slurp(file, NULL);
  assert_non_null(sum);
  /* Line 40 was missed by one session and hit by the other: covered. */
  const char *alu = strstr(sum, "vta_alu");
  assert_non_null(alu);
  assert_non_null(strstr(alu, "2/2"));
  const char *fifo = strstr(sum, "vta_fifo");
  assert_non_null(fifo);
  assert_non_null(strstr(fifo, "0/1"));
  assert_non_null(strstr(sum, "total"));
  free(sum);
  snprintf(file, sizeof file, "%s/coverage.dat", dir);
  assert_true(cli_exists(file));
  snprintf(file, sizeof file, "%s/annotated/vta_fifo.sv", dir);
  assert_true(cli_exists(file));
}

static void test_regress_suite_file(void **state) {
  (void)state;
  char suite[512], xml[512];
  path(suite, sizeof suite, "mine.json");
  path(xml, sizeof xml, "mine.xml");
  cli_spit_text(suite, "{\"name\": \"mine\", \"configs\": [\"configs/vta_default.json\"], "
                       "\"backends\": [\"rtl\"], \"workloads\": {\"random\": 3}}");
  cli_result r;
  CLI_RUN(&r, "regress", "--suite", suite, "--seed-start", "100", "--junit", xml, "-q");
  if (r.status != 0) fail_msg("%s\n%s", r.out, r.err);
  assert_non_null(strstr(r.out, "3 cases: 3 passed"));
  cli_result_free(&r);
  char *x = cli_slurp(xml, NULL);
  assert_non_null(strstr(x, "<testsuites name=\"mine\""));
  assert_non_null(strstr(x, "name=\"random seed=102\""));
  free(x);
}

static void test_regress_bad_input_is_named(void **state) {
  (void)state;
  char suite[512], xml[512], notjunit[512];
  path(suite, sizeof suite, "bad.json");
  path(xml, sizeof xml, "bad.xml");
  path(notjunit, sizeof notjunit, "not.xml");
  cli_result r;
  CLI_RUN(&r, "regress", "--suite", "nosuch", "--junit", xml);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "suite 'nosuch': not 'quick', 'nightly' or a readable file"));
  cli_result_free(&r);
  cli_spit_text(suite, "{\"configs\": [\"configs/vta_default.json\"], \"backends\": [\"rtl\"], "
                       "\"workloads\": {\"fuzz\": 3}}");
  CLI_RUN(&r, "regress", "--suite", suite, "--junit", xml);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "unknown workload \"fuzz\""));
  cli_result_free(&r);
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--seed", "1", "--seed-start",
          "2");
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--seed and --seed-start exclude each other"));
  cli_result_free(&r);
  CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--workload", "fuzz");
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "unknown workload 'fuzz'"));
  cli_result_free(&r);
  CLI_RUN(&r, "regress", "--config", "configs/nosuch.json", "--backend", "fsim", "--seed", "1",
          "--junit", xml, "-q");
  assert_int_equal(r.status, 1); /* every case is an error naming the file */
  assert_non_null(strstr(r.out, "configs/nosuch.json"));
  cli_result_free(&r);
  cli_spit_text(notjunit, "<html></html>");
  CLI_RUN(&r, "regress", "--rerun-failed", notjunit, "--junit", xml);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "no <testsuite> of vta regress in it"));
  cli_result_free(&r);
  CLI_RUN(&r, "regress", "-j", "0");
  assert_int_equal(r.status, 2);
  cli_result_free(&r);
  CLI_RUN(&r, "regress", "--executor", "pbs");
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--executor 'pbs': local or slurm"));
  cli_result_free(&r);
  CLI_RUN(&r, "regress", "--help");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "--rerun-failed"));
  cli_result_free(&r);
}

/* A case whose child process dies of a fault is an error whose report says where: the signal,
 * the fault address and pc in the message, the mappings and the backtrace in the details
 * (host/crash.h), run in this process or in a job of a parallel run alike. */
static void test_regress_crashed_case_reports_its_backtrace(void **state) {
  (void)state;
  char xml[512];
  path(xml, sizeof xml, "crash.xml");
  for (int parallel = 0; parallel < 2; parallel++) {
    cli_result r;
    CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", "fsim",
            "--workload", "conv", "--seed-start", "5", "--seeds", "3", "--inject-crash", "1",
            "--junit", xml, "-q", "-j", parallel ? "2" : "1");
    if (r.status != 1) fail_msg("status %d\n%s\n%s", r.status, r.out, r.err);
    assert_non_null(strstr(r.out, "3 cases: 2 passed, 0 failed, 1 errors, 0 skipped"));
    const char *e = strstr(r.out, "ERROR conv seed=6 on fsim: conv seed=6 crashed (signal 11 "
                                  "(SIGSEGV), fault address 0x");
    if (!e) fail_msg("%s", r.out);
    assert_non_null(strstr(e, "reproduce: vta regress --config configs/vta_default.json "
                              "--backend fsim --workload conv --seed 6\n"));
    assert_non_null(strstr(e, "\nvta: pc in "));
    assert_non_null(strstr(e, "\nvta: backtrace (most recent call first):\n"));
    assert_non_null(strstr(e, "vta(main+0x"));
    assert_non_null(strstr(e, "\nvta: end of the crash report"));
    cli_result_free(&r);
    assert_int_equal(validate(xml), 0);
    char *x = cli_slurp(xml, NULL);
    assert_non_null(x);
    assert_non_null(strstr(x, "vta: backtrace (most recent call first):"));
    free(x);
  }
}

/* The runtime-level workloads run the real code (vta bench gemm/alu, a lowered conv layer, a
 * network compiled for the configuration and run by the model runtime) on the diff backend: a
 * fault injected into the backend's copy after the first device run is a failure that names
 * the run, the address and the STORE, with both reproducing commands; the stand-alone one
 * fails the same way. */
static void test_regress_runtime_workloads_fail_with_their_commands(void **state) {
  (void)state;
  char xml[512];
  path(xml, sizeof xml, "work.xml");
  static const char *const works[] = {"gemm", "alu", "conv", "model"};
  for (size_t k = 0; k < 4; k++) {
    cli_result r;
    CLI_RUN(&r, "regress", "--config", "configs/vta_default.json", "--backend", "rtl",
            "--workload", works[k], "--seed-start", "5", "--seeds", "3", "--inject-fault", "1",
            "--junit", xml, "-q");
    if (r.status != 1) fail_msg("%s: status %d\n%s\n%s", works[k], r.status, r.out, r.err);
    assert_non_null(strstr(r.out, "3 cases: 2 passed, 1 failed, 0 errors, 0 skipped"));
    char want[128];
    snprintf(want, sizeof want, "FAIL %s seed=6 on rtl: ", works[k]);
    const char *f = strstr(r.out, want);
    if (!f) fail_msg("%s", r.out);
    assert_non_null(strstr(f, "run 1 ("));
    assert_non_null(strstr(f, "device memory differs from fsim at 0x"));
    assert_non_null(strstr(f, "last instruction storing it: #"));
    snprintf(want, sizeof want, "reproduce: vta regress --config configs/vta_default.json "
                                "--backend rtl --workload %s --seed 6", works[k]);
    assert_non_null(strstr(f, want));
    if (k < 2) {
      snprintf(want, sizeof want, "the same case by hand: vta bench %s ", works[k]);
      assert_non_null(strstr(f, want));
    }
    if (k == 3) /* the model's failure names the seed, its layers and the chain that differed */
      assert_non_null(strstr(f, "model seed 6 ("));
    cli_result_free(&r);
    assert_int_equal(validate(xml), 0);
  }
  /* The stand-alone command of the gemm case: the benchmark on the diff backend. */
  cli_result r;
  CLI_RUN(&r, "bench", "gemm", "--m", "3", "--n", "16", "--k", "16", "--config",
          "configs/vta_default.json", "--backend", "diff", "--device-options", "inject=1:rtl");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "run 1 (10 instructions at 0x"));
  assert_non_null(strstr(r.err, "differs from fsim"));
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "gemm", "--m", "3", "--n", "16", "--k", "16", "--config",
          "configs/vta_default.json", "--backend", "diff", "--device-options", "rtl");
  if (r.status != 0) fail_msg("%s\n%s", r.out, r.err);
  assert_non_null(strstr(r.out, "\"verified\":true"));
  cli_result_free(&r);
}

/* Regression test: a runtime-level case ran in a forked copy of the regress process, which by
 * then has other threads (the diff session's Verilator model starts a worker); the copy keeps
 * every lock one of them held at the fork, and under load a case waited forever on the ASan
 * allocator's lock that the worker held while starting (the test above was killed after 600 s,
 * its case's child left running). A case now runs a new vta (`vta regress --work-case ...`):
 * here the program is a script that records its arguments and runs vta. */
static void test_regress_runtime_case_runs_a_new_vta_not_a_fork(void **state) {
  (void)state;
  char script[512], args[512], vta[4096];
  path(script, sizeof script, "vta-wrapper.sh");
  path(args, sizeof args, "wrapper-args.txt");
  assert_non_null(realpath(cli_bin(), vta));
  char text[5200];
  snprintf(text, sizeof text, "#!/bin/sh\nprintf '%%s\\n' \"$*\" >> '%s'\nexec '%s' \"$@\"\n", args,
           vta);
  cli_spit_text(script, text);
  assert_int_equal(chmod(script, 0755), 0);
  vta_diff_result r;
  char equiv[1536], *crash = NULL;
  vta_regress_work_run(script, "configs/vta_default.json", "fsim", VTA_DIFF_W_GEMM, 4, 0, &r,
                       equiv, sizeof equiv, &crash);
  if (r.outcome != VTA_DIFF_PASS) fail_msg("%s", r.message);
  assert_null(crash);
  vta_regress_work_run(script, "configs/vta_default.json", "inject=1:fsim", VTA_DIFF_W_ALU, 4, 0,
                       &r, equiv, sizeof equiv, &crash);
  assert_int_equal(r.outcome, VTA_DIFF_FAIL);
  assert_non_null(strstr(r.message, "device memory differs from fsim"));
  vta_regress_work_run(script, "configs/vta_default.json", "fsim", VTA_DIFF_W_CONV, 4, 1, &r,
                       equiv, sizeof equiv, &crash);
  assert_int_equal(r.outcome, VTA_DIFF_ERROR);
  assert_non_null(strstr(r.message, "conv seed=4 crashed (signal 11 (SIGSEGV)"));
  assert_non_null(crash);
  assert_non_null(strstr(crash, "vta: backtrace (most recent call first):"));
  free(crash);
  char *got = cli_slurp(args, NULL);
  assert_non_null(got);
  assert_string_equal(got, "regress --work-case configs/vta_default.json fsim gemm 4\n"
                           "regress --work-case configs/vta_default.json inject=1:fsim alu 4\n"
                           "regress --work-case configs/vta_default.json fsim conv 4 "
                           "--inject-crash\n");
  free(got);
  /* A program that cannot be run is the case's error, in words. */
  path(script, sizeof script, "no-such-vta");
  vta_regress_work_run(script, "configs/vta_default.json", "fsim", VTA_DIFF_W_GEMM, 4, 0, &r,
                       equiv, sizeof equiv, &crash);
  assert_int_equal(r.outcome, VTA_DIFF_ERROR);
  assert_non_null(strstr(r.message, "no-such-vta for the case: No such file or directory"));
  assert_null(crash);
  /* The child's command line is checked like any other. */
  cli_result c;
  CLI_RUN(&c, "regress", "--work-case", "configs/vta_default.json", "fsim", "random", "4");
  assert_int_equal(c.status, 2);
  assert_non_null(strstr(c.err, "workload 'random' is not gemm, alu, conv or model"));
  cli_result_free(&c);
}

/* Generated configurations: one per seed, every tool accepts it (the file --print-config writes
 * reads back as the same configuration), and the generated programs and runtime workloads pass
 * on them. */
static void test_regress_generated_configurations(void **state) {
  (void)state;
  char xml[512], file[512];
  path(xml, sizeof xml, "gen.xml");
  path(file, sizeof file, "gen7.json");
  cli_result r;
  CLI_RUN(&r, "regress", "--print-config", "gen:7");
  assert_int_equal(r.status, 0);
  cli_spit_text(file, r.out);
  cli_result_free(&r);
  vta_config a, b;
  vta_error err;
  if (vta_diff_config_load("gen:7", &a, &err) != VTA_OK) fail_msg("%s", err.msg);
  if (vta_config_load(&b, file, &err) != VTA_OK) fail_msg("%s", err.msg);
  assert_int_equal(a.macs_per_cycle, b.macs_per_cycle);
  assert_memory_equal(a.depth, b.depth, sizeof a.depth);
  assert_int_equal(a.bus_bytes, b.bus_bytes);
  /* Many seeds, many shapes: the generator covers the accepted ranges, not one point. */
  int shapes = 0, blocks_differ = 0;
  uint64_t seen[64];
  for (uint64_t s = 0; s < 200; s++) {
    char name[32];
    snprintf(name, sizeof name, "gen:%llu", (unsigned long long)s);
    if (vta_diff_config_load(name, &a, &err) != VTA_OK) fail_msg("%s: %s", name, err.msg);
    blocks_differ += a.block_in != a.block_out;
    uint64_t key = a.macs_per_cycle * 1024 + a.bus_bytes;
    int k = 0;
    while (k < shapes && seen[k] != key) k++;
    if (k == shapes && shapes < 64) seen[shapes++] = key;
  }
  assert_true(shapes >= 20);
  assert_true(blocks_differ >= 10);
  CLI_RUN(&r, "regress", "--gen-configs", "2", "--backend", "fsim", "--workload", "conc",
          "--workload", "conv", "--seed-start", "11", "--seeds", "3", "--junit", xml, "-q");
  if (r.status != 0) fail_msg("%s\n%s", r.out, r.err);
  assert_non_null(strstr(r.out, "12 cases: 12 passed"));
  assert_non_null(strstr(r.out, "gen:12 "));
  cli_result_free(&r);
  CLI_RUN(&r, "regress", "--config", "gen:x1", "--backend", "fsim", "--seed", "1", "--junit",
          xml, "-q");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.out, "gen:SEED with a decimal seed"));
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "alu", "--rows", "4", "--ops", "2", "--backend", "diff");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "the diff backend needs the backend to check as its options"));
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "alu", "--rows", "4", "--ops", "2", "--backend", "diff",
          "--device-options", "diff");
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "the diff backend cannot check itself"));
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_regress_quick_suite_passes_with_valid_junit),
      cmocka_unit_test(test_regress_failure_names_address_instruction_waveform_and_command),
      cmocka_unit_test(test_regress_runtime_workloads_fail_with_their_commands),
      cmocka_unit_test(test_regress_crashed_case_reports_its_backtrace),
      cmocka_unit_test(test_regress_runtime_case_runs_a_new_vta_not_a_fork),
      cmocka_unit_test(test_regress_generated_configurations),
      cmocka_unit_test(test_regress_dual_issue_waits_for_the_previous_instruction),
      cmocka_unit_test(test_regress_parallel_jobs_give_the_same_report),
      cmocka_unit_test_setup_teardown(test_regress_slurm_job_arrays, slurm_setup, slurm_teardown),
      cmocka_unit_test(test_regress_fail_max_skips_the_rest),
      cmocka_unit_test(test_regress_backend_not_built_is_skipped_by_name),
      cmocka_unit_test(test_regress_coverage_merges_and_summarises),
      cmocka_unit_test(test_regress_suite_file),
      cmocka_unit_test(test_regress_bad_input_is_named),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
