/* cmd_regress.c - `vta regress`: a simulation regression of backends against fsim, written as
 * JUnit XML with a summary table (host/regress.c does the work, driver/diff.c runs each case).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/cli.h"
#include "host/cli_args.h"
#include "host/crash.h"
#include "host/executor.h"
#include "host/regress.h"
#include "host/regress_work.h"
#include "sim/gen/cfg.h"

static void regress_help(void) {
  printf(
      "usage: vta regress [--suite quick|nightly|FILE] [options]\n"
      "       vta regress --config FILE [--backend NAME] [--workload NAME] [--seed N] [options]\n"
      "       vta regress --rerun-failed FILE.xml [options]\n"
      "\n"
      "Runs seeded programs on each backend and on fsim and compares every byte of device\n"
      "memory and the counters both keep. Cases are configuration x backend x workload x seed;\n"
      "results go to a JUnit XML file (one testsuite per configuration and backend, one\n"
      "testcase per workload and seed) and a summary table. A failing case names the first\n"
      "differing address, the last instruction storing it (index and disassembly) and the\n"
      "command that reproduces it; a failing rtl case is rerun with an FST waveform of the\n"
      "cycles around the RTL's last write of that address.\n"
      "\n"
      "what to run:\n"
      "  --suite NAME       quick (make test): fsim, rtl, rtl@latency=1,bandwidth=3 x\n"
      "                     vta_default, rtl_wide x 120 random + 120 conc + 3 gemm + 3 alu +\n"
      "                     3 conv + 1 model seeds, and 3 generated configurations x fsim,\n"
      "                     sc x 30 + 30 + 2 + 2 + 2 + 1; nightly (make regress): fsim, rtl,\n"
      "                     sc x vta_default, rtl_wide, batch4, block8 x 12500 + 12500 + 50 +\n"
      "                     50 + 50 + 25 model, and 8 generated configurations x fsim, sc x\n"
      "                     500 + 500 + 20 + 20 + 20 + 10 model;\n"
      "                     or a JSON suite file (docs/user-guide/regress.md). Default: quick.\n"
      "                     Built-in suites name configurations relative to the source tree.\n"
      "  --config FILE      a configuration (repeatable), or gen:SEED, a generated one; with\n"
      "                     --backend/--workload, a matrix\n"
      "  --gen-configs N    add N generated configurations (gen:S, gen:S+1, ... from the first\n"
      "                     seed S) to the matrix (at most 16)\n"
      "  --backend NAME     a backend (repeatable; default rtl), NAME@OPTIONS with the backend's\n"
      "                     options (rtl@latency=1,bandwidth=3: a slow memory). Backends that\n"
      "                     are not built (sc, xrt) give skipped cases that say so.\n"
      "  --workload NAME    random | conc (generated programs) | gemm | alu (the vta bench\n"
      "                     programs) | conv (a layer lowered by the compiler) | model (a\n"
      "                     small network compiled for the configuration, run by the model\n"
      "                     runtime and checked against its CPU run); repeatable; default\n"
      "                     random and conc. gemm, alu, conv and model run through the runtime on the diff\n"
      "                     backend: every device run compared with fsim byte for byte\n"
      "  --seeds N          seeds per workload (replaces the suite's counts)\n"
      "  --seed N           one seed: the cases of seed N only\n"
      "  --seed-start N     first seed (default: a random one, printed)\n"
      "  --rerun-failed X   the failed and erroneous cases of JUnit file X\n"
      "  --print-config C   print configuration C (a file or gen:SEED) as JSON and exit\n"
      "how:\n"
      "  -j N               parallel jobs: N local processes (default 1: in this process)\n"
      "  --executor E       local | slurm: the job executor shared with vta sweep; slurm runs\n"
      "                     the jobs as Slurm job arrays (the work folder must be shared)\n"
      "  --work-dir DIR     the jobs' case lists, results and logs (default JUNIT.jobs)\n"
      "  --time-budget S    start no case after S seconds (the rest are reported skipped)\n"
      "  --fail-max N       stop after N failures and errors (the rest are skipped)\n"
      "output:\n"
      "  --junit FILE       JUnit XML (default regress.xml)\n"
      "  --wave-dir DIR     waveforms of failing rtl cases (default regress-waves)\n"
      "  --wave-window N    cycles recorded before and after the divergence (default 200)\n"
      "  --no-waves         no waveform reruns\n"
      "  --coverage DIR     run rtl on the models built with line and toggle coverage (make\n"
      "                     rtl-cov-models), merge the data of every case into DIR/coverage.dat,\n"
      "                     write DIR/summary.txt (per module) and DIR/annotated/ (sources)\n"
      "  -q, --quiet        no progress line\n"
      "  --inject-fault N   test hook: flip one bit of case N's device memory after its run\n"
      "                     (shows the failure path: report, waveform, exit status)\n"
      "  --inject-crash N   test hook: case N's child process (gemm, alu, conv, model)\n"
      "                     faults before it runs (the report carries its backtrace)\n"
      "  --job F --job-results R [--deadline T] [--coverage-data DIR]\n"
      "                     one job of a parallel run, as the executor starts it\n"
      "  --work-case CONFIG BACKEND WORKLOAD SEED [--inject-crash]\n"
      "                     one gemm, alu, conv or model case in this process, as vta regress\n"
      "                     starts each (BACKEND: the spec the diff backend tests)\n"
      "  -h, --help         show this help\n"
      "\n"
      "exit status: 0 every case passed (or was skipped), 1 a case failed or could not run,\n"
      "2 bad command line.\n");
}

#define MAXV 32

/* `vta regress --work-case CONFIG BACKEND WORKLOAD SEED [--inject-crash]`: the child process of
 * one runtime-level case (host/regress_work.c starts it; its standard error is the case's
 * message, and a crash report written there is the case's details). */
static int work_case(int argc, char **argv) {
  const char *cmd = "regress";
  if (argc != 6 && !(argc == 7 && strcmp(argv[6], "--inject-crash") == 0))
    return vta_cli_usage_error(cmd, "--work-case takes CONFIG BACKEND WORKLOAD SEED "
                                    "[--inject-crash]");
  int w = vta_diff_workload_find(argv[4]);
  if (w < 0 || vta_diff_workload_generated((vta_diff_workload)w))
    return vta_cli_usage_error(cmd, "--work-case: workload '%s' is not gemm, alu, conv or model",
                               argv[4]);
  uint64_t seed;
  if (vta_cli_parse_u64(cmd, "--work-case SEED", argv[5], UINT64_MAX / 2, &seed) != 0)
    return VTA_EXIT_USAGE;
  vta_crash_trace_install(2);
  if (argc == 7) vta_crash_fault_now();
  return vta_regress_work_main(argv[2], argv[3], (vta_diff_workload)w, seed) ? VTA_EXIT_FAIL
                                                                             : VTA_EXIT_OK;
}

int vta_cmd_regress(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--work-case") == 0) return work_case(argc, argv);
  const char *cmd = "regress";
  const char *suite = NULL, *rerun = NULL, *junit = "regress.xml", *wave_dir = "regress-waves";
  const char *executor = "local", *coverage = NULL, *coverage_data = NULL, *work_dir = NULL;
  const char *job = NULL, *job_results = NULL;
  uint64_t deadline = 0;
  const char *configs[MAXV], *backends[MAXV];
  vta_diff_workload works[VTA_DIFF_W_COUNT];
  size_t nc = 0, nb = 0, nw = 0;
  uint64_t seed = 0, seed_start = 0, seeds = 0, jobs = 1, fail_max = 0, window = 200;
  uint64_t budget = 0, inject = 0, ngen = 0, crash = 0;
  const char *print_config = NULL;
  int have_seed = 0, have_start = 0, quiet = 0, no_waves = 0, have_inject = 0, have_crash = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    int m;
    if (vta_cli_is_help(a)) {
      regress_help();
      return VTA_EXIT_OK;
    }
#define OPT_(name, alias)                                                                   \
  ((m = vta_cli_option(cmd, argc, argv, &i, name, alias, &v)) < 0 ? (void)0 : (void)0, m)
#define U64_(name, var, max)                                                                \
  if (OPT_(name, NULL) != 0) {                                                              \
    if (m < 0 || vta_cli_parse_u64(cmd, name, v, max, &(var)) != 0) return VTA_EXIT_USAGE;   \
    continue;                                                                               \
  }
    if (OPT_("--suite", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      suite = v;
      continue;
    }
    if (OPT_("--rerun-failed", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      rerun = v;
      continue;
    }
    if (OPT_("--junit", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      junit = v;
      continue;
    }
    if (OPT_("--wave-dir", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      wave_dir = v;
      continue;
    }
    if (OPT_("--job", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      job = v;
      continue;
    }
    if (OPT_("--job-results", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      job_results = v;
      continue;
    }
    if (OPT_("--coverage-data", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      coverage_data = v;
      continue;
    }
    if (OPT_("--work-dir", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      work_dir = v;
      continue;
    }
    U64_("--deadline", deadline, UINT64_MAX / 2)
    if (OPT_("--coverage", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      coverage = v;
      continue;
    }
    if (OPT_("--executor", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      executor = v;
      continue;
    }
    if (OPT_("--config", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      if (nc == MAXV) return vta_cli_usage_error(cmd, "more than %d --config", MAXV);
      configs[nc++] = v;
      continue;
    }
    if (OPT_("--backend", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      if (nb == MAXV) return vta_cli_usage_error(cmd, "more than %d --backend", MAXV);
      char list[256];
      if (!vta_regress_backend_known(v, list, sizeof list))
        return vta_cli_usage_error(cmd, "unknown backend '%s' (built: %s)", v, list);
      backends[nb++] = v;
      continue;
    }
    if (OPT_("--workload", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      int w = vta_diff_workload_find(v);
      if (w < 0) return vta_cli_usage_error(cmd, "unknown workload '%s' (%s)", v,
                                                VTA_REGRESS_WORKLOAD_LIST);
      if (nw < VTA_DIFF_W_COUNT) works[nw++] = (vta_diff_workload)w;
      continue;
    }
    if (OPT_("--seed", NULL) != 0) {
      if (m < 0 || vta_cli_parse_u64(cmd, "--seed", v, UINT64_MAX / 2, &seed) != 0)
        return VTA_EXIT_USAGE;
      have_seed = 1;
      continue;
    }
    if (OPT_("--seed-start", NULL) != 0) {
      if (m < 0 || vta_cli_parse_u64(cmd, "--seed-start", v, UINT64_MAX / 2, &seed_start) != 0)
        return VTA_EXIT_USAGE;
      have_start = 1;
      continue;
    }
    if (OPT_("--inject-fault", NULL) != 0) {
      if (m < 0 || vta_cli_parse_u64(cmd, "--inject-fault", v, 100000000, &inject) != 0)
        return VTA_EXIT_USAGE;
      have_inject = 1;
      continue;
    }
    if (OPT_("--inject-crash", NULL) != 0) {
      if (m < 0 || vta_cli_parse_u64(cmd, "--inject-crash", v, 100000000, &crash) != 0)
        return VTA_EXIT_USAGE;
      have_crash = 1;
      continue;
    }
    U64_("--seeds", seeds, 10000000)
    U64_("--gen-configs", ngen, 16)
    if (OPT_("--print-config", NULL) != 0) {
      if (m < 0) return VTA_EXIT_USAGE;
      print_config = v;
      continue;
    }
    U64_("-j", jobs, 1024)
    U64_("--jobs", jobs, 1024)
    U64_("--fail-max", fail_max, UINT32_MAX)
    U64_("--time-budget", budget, 366ull * 86400)
    U64_("--wave-window", window, 100000000)
#undef U64_
#undef OPT_
    if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
      quiet = 1;
      continue;
    }
    if (strcmp(a, "--no-waves") == 0) {
      no_waves = 1;
      continue;
    }
    if (a[0] == '-') return vta_cli_usage_error(cmd, "unknown option '%s'", a);
    return vta_cli_usage_error(cmd, "unexpected argument '%s'", a);
  }
  if (print_config) {
    /* A configuration of the matrix as a file: gen:SEED for `make rtl-model RTL_CONFIG=`. */
    vta_config cfg;
    vta_error e;
    if (vta_diff_config_load(print_config, &cfg, &e) != VTA_OK) return vta_cli_fail(cmd, &e);
    gen_config_write_json(&cfg, stdout);
    return VTA_EXIT_OK;
  }
  if (jobs == 0) return vta_cli_usage_error(cmd, "-j 0: at least one job");
  enum vta_executor_kind kind;
  if (vta_executor_kind_parse(executor, &kind) != 0)
    return vta_cli_usage_error(cmd, "--executor '%s': local or slurm", executor);
  vta_regress_options o;
  vta_regress_options_default(&o);
  o.time_budget = (double)budget;
  o.fail_max = fail_max;
  o.wave_dir = no_waves ? NULL : wave_dir;
  o.wave_window = window;
  o.progress = !quiet;
  o.inject_fault = have_inject ? (int64_t)inject : -1;
  o.inject_crash = have_crash ? (int64_t)crash : -1;
  o.argv0 = "vta";
  o.coverage_dir = coverage ? coverage : coverage_data;
  vta_error err;
  if (job) {
    /* One job of a parallel run (started by the executor): no table, no JUnit. */
    if (!job_results) return vta_cli_usage_error(cmd, "--job needs --job-results FILE");
    /* A job that crashes (its generated programs run in this process) leaves a backtrace in
     * its log, which the parent's error for its cases names. */
    vta_crash_trace_install(2);
    if (vta_regress_job(job, job_results, &o, (double)deadline, &err) != VTA_OK)
      return vta_cli_fail(cmd, &err);
    return VTA_EXIT_OK;
  }
  int matrix = nc || nb || nw || ngen;
  if ((suite != NULL) + (rerun != NULL) + (matrix != 0) > 1)
    return vta_cli_usage_error(cmd, "give one of --suite, --rerun-failed or a --config matrix");
  if (have_seed && have_start)
    return vta_cli_usage_error(cmd, "--seed and --seed-start exclude each other");
  if (rerun && (have_seed || have_start || seeds))
    return vta_cli_usage_error(cmd, "--rerun-failed takes its seeds from the file");
  if (matrix && !nc && !ngen) {
    const char *env = getenv("VTA_CONFIG");
    if (!env || !*env)
      return vta_cli_usage_error(cmd, "a matrix needs --config FILE (or VTA_CONFIG)");
    configs[nc++] = env;
  }
  if (matrix && !nb) backends[nb++] = "rtl";
  if (matrix && !nw) /* the generated programs; the runtime-level workloads when named */
    for (int w = 0; w < VTA_DIFF_W_COUNT; w++)
      if (vta_diff_workload_generated((vta_diff_workload)w)) works[nw++] = (vta_diff_workload)w;
  if (have_seed) {
    seed_start = seed;
    seeds = 1;
  } else if (!have_start && !rerun) {
    /* A fresh start each run, printed so that the run can be repeated exactly. */
    seed_start = ((uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 16) % 1000000000 + 1;
  }
  if (!rerun && !have_seed)
    printf("vta regress: seed-start %llu (--seed-start %llu repeats these cases)\n",
           (unsigned long long)seed_start, (unsigned long long)seed_start);

  char gen_names[16][32];
  for (uint64_t g = 0; g < ngen; g++) {
    if (nc == MAXV) return vta_cli_usage_error(cmd, "more than %d configurations", MAXV);
    snprintf(gen_names[g], sizeof gen_names[g], "gen:%llu", (unsigned long long)(seed_start + g));
    configs[nc++] = gen_names[g];
  }

  vta_regress_plan plan;
  vta_regress_plan_init(&plan);
  int rc;
  if (rerun) {
    rc = vta_regress_rerun_load(&plan, rerun, &err);
  } else if (matrix) {
    uint64_t counts[VTA_DIFF_W_COUNT];
    for (size_t w = 0; w < nw; w++) counts[w] = seeds ? seeds : 1;
    snprintf(plan.name, sizeof plan.name, "matrix");
    rc = vta_regress_plan_matrix(&plan, configs, nc, backends, nb, works, counts, nw, seed_start,
                                 &err);
  } else {
    rc = vta_regress_suite_load(&plan, suite ? suite : "quick", seed_start, seeds, &err);
  }
  if (rc != VTA_OK) {
    vta_regress_plan_free(&plan);
    return vta_cli_fail(cmd, &err);
  }
  if (rerun && plan.ncases == 0) printf("vta regress: %s has no failed cases\n", rerun);
  vta_regress_results res;
  rc = vta_regress_results_init(&res, &plan, &err);
  if (rc == VTA_OK && jobs == 1 && kind == VTA_EXECUTOR_LOCAL) {
    rc = vta_regress_run(&plan, &o, &res, &err);
  } else if (rc == VTA_OK) {
    char self[4096], work[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
      rc = vta_error_set(&err, VTA_ERR_IO, "cannot find this program's path (/proc/self/exe)");
    } else {
      self[n] = 0;
      snprintf(work, sizeof work, "%s", work_dir ? work_dir : junit);
      if (!work_dir) strncat(work, ".jobs", sizeof work - strlen(work) - 1);
      struct vta_executor_opts eo = {.kind = kind, .jobs = (unsigned)jobs};
      rc = vta_regress_run_jobs(&plan, &o, &eo, work, self, &res, &err);
    }
  }
  if (rc == VTA_OK) rc = vta_regress_junit_write(&plan, &res, junit, &err);
  if (rc != VTA_OK) {
    vta_regress_results_free(&res);
    vta_regress_plan_free(&plan);
    return vta_cli_fail(cmd, &err);
  }
  vta_regress_summary(&plan, &res, stdout);
  int cov_bad = 0;
  if (coverage && vta_regress_coverage(coverage, stdout, &err) != VTA_OK) {
    fprintf(stderr, "vta regress: %s\n", err.msg);
    cov_bad = 1;
  }
  /* The failures, each with the command that reproduces it. */
  size_t shown = 0;
  for (size_t i = 0; i < plan.ncases; i++) {
    const vta_regress_result *r = &res.r[i];
    if (r->outcome != VTA_REGRESS_FAIL && r->outcome != VTA_REGRESS_ERROR) continue;
    if (shown++ == 20) {
      printf("... (the rest are in %s)\n", junit);
      break;
    }
    printf("%s %s seed=%llu on %s: %s", r->outcome == VTA_REGRESS_FAIL ? "FAIL" : "ERROR",
           vta_diff_workload_name(plan.cases[i].workload),
           (unsigned long long)plan.cases[i].seed, plan.backends[plan.cases[i].backend],
           r->detail ? r->detail : r->message);
    if (!r->detail) printf("\n");
  }
  printf("JUnit: %s\n", junit);
  int bad = res.count[VTA_REGRESS_FAIL] || res.count[VTA_REGRESS_ERROR] || cov_bad;
  vta_regress_results_free(&res);
  vta_regress_plan_free(&plan);
  return bad ? VTA_EXIT_FAIL : VTA_EXIT_OK;
}
