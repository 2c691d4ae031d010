/* regress_work.c - the runtime-level workloads of `vta regress` (see regress_work.h).
 *
 * The design idea: a case runs the code a user runs. gemm and alu call the `vta bench` commands
 * themselves with a shape drawn from the seed; conv lowers a layer drawn from the seed with the
 * compiler and replays it through the JIT, as `vta bench conv2d` and the model runtime do. All
 * of them name the diff backend, so every device run they make is checked against fsim byte for
 * byte, and they check their own results against the C references as well. Each case runs in a
 * child process: the benchmarks print to standard output (discarded) and report on standard
 * error (kept as the case's message), and a crash or hang is that case's error, not the run's.
 *
 * The child is a new run of the vta program (`vta regress --work-case ...`), not a forked copy
 * of this process. By the time a case starts this process has other threads (the diff
 * session's Verilator model starts a worker thread), and a copy made by fork() keeps every lock
 * one of them held at that instant, held by no one. It happened: under load a case's child
 * waited forever on the ASan allocator's lock, which the parent's Verilator worker held while
 * it started up. Between fork() and exec() the child only calls async-signal-safe functions.
 */
#include "host/regress_work.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compiler/accel/vta_lower.h"
#include "host/cli.h"
#include "host/crash.h"
#include "sim/gen/cfg.h"
#include "sim/gen/prog.h"
#include "vta/device.h"
#include "vta/jit.h"
#include "vta/layout.h"
#include "vta/program.h"

/* The bench workloads' shapes: small multiples of the configuration's blocks, so that a case
 * takes well under a second on the RTL model, drawn from the seed. */
static void gemm_shape(const vta_config *c, uint64_t seed, uint32_t *m, uint32_t *n, uint32_t *k) {
  *m = c->batch * (1 + (uint32_t)(seed % 3));
  *n = c->block_out * (1 + (uint32_t)(seed / 3 % 4));
  *k = c->block_in * (1 + (uint32_t)(seed / 12 % 4));
}

static void alu_shape(const vta_config *c, uint64_t seed, uint32_t *rows, uint32_t *ops) {
  uint32_t half = c->depth[VTA_MEM_ACC] / 2, lim = half < 48 ? half : 48;
  *rows = 1 + (uint32_t)(seed % lim);
  *ops = 1 + (uint32_t)(seed / 48 % 14);
}

/* A configuration as a file the bench commands can read: the file itself, or a generated one
 * written to a temporary file (removed by the caller). */
static int config_file(const char *config, vta_config *cfg, char *path, size_t n, int *temp,
                       vta_error *err) {
  *temp = 0;
  int rc = vta_diff_config_load(config, cfg, err);
  if (rc != VTA_OK) return rc;
  if (strncmp(config, "gen:", 4) != 0) {
    snprintf(path, n, "%s", config);
    return VTA_OK;
  }
  const char *dir = getenv("TMPDIR");
  snprintf(path, n, "%s/vta-regress-config-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    return vta_error_set(err, VTA_ERR_IO, "cannot write a temporary configuration %s: %s", path,
                         strerror(errno));
  }
  gen_config_write_json(cfg, f);
  if (fclose(f) != 0)
    return vta_error_set(err, VTA_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  *temp = 1;
  return VTA_OK;
}

/* A layer of the conv workload, its data and a check against the C reference. */
static int conv_case(const vta_config *cfg, const char *backend, uint64_t seed, vta_error *err) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  vta_conv_desc d = {.n = 1, .has_bias = 1, .clip_lo = -128, .clip_hi = 127};
  d.c = cfg->block_in * (1 + (uint32_t)(fp_rand(&s) % 2));
  d.k = cfg->block_out * (1 + (uint32_t)(fp_rand(&s) % 2));
  d.h = 2 + (uint32_t)(fp_rand(&s) % 7);
  d.w = 2 + (uint32_t)(fp_rand(&s) % 7);
  d.kh = d.kw = fp_rand(&s) % 2 ? 3 : 1;
  d.stride_h = d.stride_w = 1 + (uint32_t)(fp_rand(&s) % 2);
  uint32_t pad = d.kh == 3 ? (uint32_t)(fp_rand(&s) % 2) : 0;
  d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = pad;
  if (d.h + 2 * pad < d.kh) d.h = d.kh;
  if (d.w + 2 * pad < d.kw) d.w = d.kw;
  d.relu = (int)(fp_rand(&s) % 2);
  d.shift = 4 + (uint32_t)(fp_rand(&s) % 6);
  uint32_t ho = vta_conv_out_h(&d), wo = vta_conv_out_w(&d);
  /* Every third seed whose output allows it: a 3x3/2 max pooling in the epilogue (post_pool);
   * decided by the seed, so the other draws stay those of the seed. */
  if (seed % 3 == 2 && d.k >= 2 * cfg->block_out && ho % 2 == 0 && wo % 2 == 0)
    d.post_pool = 1, ho /= 2, wo /= 2;
  /* Every third other seed with a ReLU, on a configuration that allows it: a classifier head
   * (average pooling and a dense layer of 1 to 40 outputs inside the program); its weights
   * from a stream of their own. */
  int8_t *hw = NULL;
  int32_t *hb = NULL;
  if (seed % 3 == 1 && d.relu && cfg->batch == 1 && cfg->block_in == cfg->block_out) {
    uint64_t s2 = seed * 0xbf58476d1ce4e5b9ull + 7;
    d.head_n = 1 + (uint32_t)(seed / 3 % 40);
    hw = malloc((size_t)d.head_n * d.k);
    hb = malloc(d.head_n * sizeof *hb);
    if (!hw || !hb) {
      free(hw);
      free(hb);
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < (size_t)d.head_n * d.k; i++) hw[i] = (int8_t)fp_rand(&s2);
    for (uint32_t i = 0; i < d.head_n; i++) hb[i] = (int32_t)(fp_rand(&s2) % 8192) - 4096;
    d.head_w = hw;
    d.head_bias = hb;
    d.head_shift = 6 + (uint32_t)(fp_rand(&s2) % 6);
    d.head_lo = -128;
    d.head_hi = 127;
  }
  size_t nx = (size_t)d.c * d.h * d.w, nw = (size_t)d.k * d.c * d.kh * d.kw,
         no = d.head_n ? d.head_n : (size_t)d.k * ho * wo;
  size_t nmax = no > (size_t)d.k * ho * wo ? no : (size_t)d.k * ho * wo; /* with or without */
  int8_t *x = malloc(nx), *w = malloc(nw), *xp = NULL, *op = NULL, *out = malloc(nmax),
         *ref = malloc(nmax);
  int32_t *bias = malloc(d.k * sizeof *bias);
  vta_lowered low;
  memset(&low, 0, sizeof low);
  vta_device *dev = NULL;
  vta_jit *jit = NULL;
  uint64_t phys[VTA_PROG_BUF_COUNT] = {0};
  int rc = x && w && out && ref && bias ? VTA_OK
                                         : vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  if (rc == VTA_OK) {
    for (size_t i = 0; i < nx; i++) x[i] = (int8_t)fp_rand(&s);
    for (size_t i = 0; i < nw; i++) w[i] = (int8_t)fp_rand(&s);
    for (uint32_t i = 0; i < d.k; i++)
      bias[i] = (int32_t)(fp_rand(&s) % (2u << d.shift)) - (int32_t)(1u << d.shift);
    rc = vta_lower_conv2d(cfg, &d, w, bias, NULL, &low, err);
    if (rc == VTA_ERR_BOUNDS && d.head_n) { /* the head's weight slots do not fit: without */
      d.head_n = 0;
      no = (size_t)d.k * ho * wo;
      rc = vta_lower_conv2d(cfg, &d, w, bias, NULL, &low, err);
    }
  }
  if (rc == VTA_OK) {
    xp = malloc(low.input_bytes ? low.input_bytes : 1);
    op = malloc(low.output_bytes ? low.output_bytes : 1);
    if (!xp || !op) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (rc == VTA_OK) rc = vta_device_open("diff", cfg, backend, &dev, err);
  if (rc == VTA_OK) rc = vta_jit_create(dev, NULL, &jit, err);
  if (rc == VTA_OK) {
    vta_lowered_pack_input(cfg, &d, &low, x, xp);
    const struct {
      int buf;
      const void *data;
      uint64_t bytes;
    } up[] = {{VTA_PROG_BUF_INPUT, xp, low.input_bytes},
              {VTA_PROG_BUF_OUTPUT, NULL, low.output_bytes},
              {VTA_PROG_BUF_WEIGHT, low.weight, low.weight_bytes},
              {VTA_PROG_BUF_BIAS, low.bias, low.bias_bytes}};
    for (size_t i = 0; i < sizeof up / sizeof up[0] && rc == VTA_OK; i++) {
      rc = vta_device_alloc(dev, up[i].bytes ? up[i].bytes : 64, &phys[up[i].buf], err);
      if (rc == VTA_OK && up[i].data)
        rc = vta_device_copy_to(dev, phys[up[i].buf], up[i].data, up[i].bytes, err);
    }
  }
  vta_stats st;
  memset(&st, 0, sizeof st);
  if (rc == VTA_OK) rc = vta_program_run(jit, low.prog, phys, &st, err);
  if (rc == VTA_OK) rc = vta_device_copy_from(dev, op, phys[VTA_PROG_BUF_OUTPUT], low.output_bytes, err);
  if (rc == VTA_OK) {
    if (d.head_n)
      vta_layout_unpack_dense(cfg, op, 1, d.head_n, cfg->block_out, out);
    else
      vta_layout_unpack_act(cfg, op, d.n, d.k, ho, wo, cfg->block_out, out);
    vta_ref_conv2d(&d, x, w, bias, NULL, ref);
    for (size_t i = 0; i < no && rc == VTA_OK; i++)
      if (out[i] != ref[i])
        rc = vta_error_set(err, VTA_ERR_INVALID,
                           "conv %ux%ux%u k=%u %ux%u stride %u pad %u%s: output %zu is %d, the C "
                           "reference gives %d",
                           d.c, d.h, d.w, d.k, d.kh, d.kw, d.stride_h, pad,
                           d.post_pool ? ", max pooling" : d.head_n ? ", classifier head" : "",
                           i, out[i], ref[i]);
  }
  if (rc != VTA_OK)
    vta_error_prefix(err, "conv %ux%ux%u to %u channels, %ux%u kernel, stride %u, pad %u", d.c,
                     d.h, d.w, d.k, d.kh, d.kw, d.stride_h, pad);
  vta_jit_destroy(jit);
  for (int b = 0; b < VTA_PROG_BUF_COUNT; b++)
    if (dev && phys[b]) vta_device_free(dev, phys[b]);
  if (dev) vta_device_close(dev);
  vta_lowered_free(&low);
  free(x);
  free(w);
  free(xp);
  free(op);
  free(out);
  free(ref);
  free(bias);
  free(hw);
  free(hb);
  return rc;
}

int vta_regress_work_main(const char *config, const char *backend, vta_diff_workload w,
                          uint64_t seed) {
  vta_config cfg;
  vta_error err;
  char path[4096], a[4][24];
  int temp = 0, status = 1;
  if (config_file(config, &cfg, path, sizeof path, &temp, &err) != VTA_OK) {
    fprintf(stderr, "vta regress: %s\n", err.msg);
    return 1;
  }
  if (w == VTA_DIFF_W_GEMM) {
    uint32_t m, n, k;
    gemm_shape(&cfg, seed, &m, &n, &k);
    snprintf(a[0], sizeof a[0], "%u", m);
    snprintf(a[1], sizeof a[1], "%u", n);
    snprintf(a[2], sizeof a[2], "%u", k);
    char *argv[] = {"bench", "gemm", "--m", a[0], "--n", a[1], "--k", a[2], "--config", path,
                    "--backend", "diff", "--device-options", (char *)backend, NULL};
    status = vta_cmd_bench(14, argv);
  } else if (w == VTA_DIFF_W_ALU) {
    uint32_t rows, ops;
    alu_shape(&cfg, seed, &rows, &ops);
    snprintf(a[0], sizeof a[0], "%u", rows);
    snprintf(a[1], sizeof a[1], "%u", ops);
    char *argv[] = {"bench", "alu", "--rows", a[0], "--ops", a[1], "--config", path,
                    "--backend", "diff", "--device-options", (char *)backend, NULL};
    status = vta_cmd_bench(12, argv);
  } else if (w == VTA_DIFF_W_CONV || w == VTA_DIFF_W_MODEL) {
    if ((w == VTA_DIFF_W_CONV ? conv_case(&cfg, backend, seed, &err)
                              : vta_regress_model_case(&cfg, backend, seed, &err)) != VTA_OK)
      fprintf(stderr, "vta regress: %s\n", err.msg);
    else
      status = 0;
  } else {
    fprintf(stderr, "vta regress: workload %s is a generated program (vta_diff_run)\n",
            vta_diff_workload_name(w));
  }
  if (temp) remove(path);
  return status;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The last non-empty line of text (the command's error), as the case's one-line message. */
static void last_line(const char *text, char *out, size_t n) {
  const char *end = text + strlen(text);
  while (end > text && (end[-1] == '\n' || end[-1] == '\r')) end--;
  const char *start = end;
  while (start > text && start[-1] != '\n') start--;
  snprintf(out, n, "%.*s", (int)(end - start), start);
}

/* Writes "text (errno N)\n" to fd 2 with async-signal-safe calls only (a forked child). */
static void child_say(const char *text, size_t len, int e) {
  char num[32] = " (errno ", *q = num + 8;
  char digits[12];
  int k = 0;
  do digits[k++] = (char)('0' + e % 10); while ((e /= 10) > 0 && k < 11);
  while (k > 0) *q++ = digits[--k];
  *q++ = ')';
  *q++ = '\n';
  if (write(2, text, len) < 0 || write(2, num, (size_t)(q - num)) < 0) _exit(127);
}

void vta_regress_work_run(const char *self, const char *config, const char *backend,
                          vta_diff_workload w, uint64_t seed, int inject_crash,
                          vta_diff_result *r, char *equiv, size_t n, char **crash) {
  *crash = NULL;
  memset(r, 0, sizeof *r);
  r->insn_index = -1;
  r->outcome = VTA_DIFF_ERROR;
  equiv[0] = 0;
  vta_config cfg;
  vta_error err;
  if (vta_diff_config_load(config, &cfg, &err) != VTA_OK) {
    snprintf(r->message, sizeof r->message, "%s", err.msg);
    return;
  }
  const char *cf = strncmp(config, "gen:", 4) == 0 ? "C.json" : config;
  uint32_t x, y, z;
  if (w == VTA_DIFF_W_GEMM) {
    gemm_shape(&cfg, seed, &x, &y, &z);
    snprintf(equiv, n, "vta bench gemm --m %u --n %u --k %u --config %s --backend diff "
             "--device-options %s", x, y, z, cf, backend);
  } else if (w == VTA_DIFF_W_ALU) {
    alu_shape(&cfg, seed, &x, &y);
    snprintf(equiv, n, "vta bench alu --rows %u --ops %u --config %s --backend diff "
             "--device-options %s", x, y, cf, backend);
  }
  if (equiv[0] && cf != config)
    snprintf(equiv + strlen(equiv), n - strlen(equiv),
             " (C.json: vta regress --print-config %s > C.json)", config);
  char exe[4096], seed_text[24], failed[4200];
  if (!self) {
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
      snprintf(r->message, sizeof r->message,
               "cannot find this program's path (/proc/self/exe) to run the case in: %s",
               strerror(errno));
      return;
    }
    exe[len] = 0;
    self = exe;
  }
  if (access(self, X_OK) != 0) {
    snprintf(r->message, sizeof r->message, "cannot run %s for the case: %s", self,
             strerror(errno));
    return;
  }
  snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
  char *argv[] = {(char *)self, "regress", "--work-case", (char *)config, (char *)backend,
                  (char *)vta_diff_workload_name(w), seed_text,
                  inject_crash ? "--inject-crash" : NULL, NULL};
  int failed_len = snprintf(failed, sizeof failed, "vta regress: cannot run %s for the case", self);
  if (failed_len < 0 || (size_t)failed_len >= sizeof failed) failed_len = (int)strlen(failed);
  /* Close-on-exec, so that no other program this process starts inherits the pipe's write
   * end and keeps the read below from seeing its end. */
  int fds[2], null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0) {
    snprintf(r->message, sizeof r->message, "cannot open /dev/null: %s", strerror(errno));
    return;
  }
  if (pipe2(fds, O_CLOEXEC) != 0) {
    snprintf(r->message, sizeof r->message, "cannot create a pipe: %s", strerror(errno));
    close(null_fd);
    return;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    close(null_fd);
    snprintf(r->message, sizeof r->message, "cannot fork: %s", strerror(errno));
    return;
  }
  if (pid == 0) {
    /* Standard output to /dev/null, standard error into the pipe: dup2 clears close-on-exec
     * on the copies (not when a descriptor already is the target), the originals close at
     * exec. */
    if (dup2(null_fd, 1) < 0 || dup2(fds[1], 2) < 0) _exit(127);
    if (null_fd == 1) fcntl(1, F_SETFD, 0);
    if (fds[1] == 2) fcntl(2, F_SETFD, 0);
    execv(self, argv);
    child_say(failed, (size_t)failed_len, errno);
    _exit(127);
  }
  close(null_fd);
  close(fds[1]);
  size_t len = 0;
  const size_t cap = 1 << 14;
  char *text = calloc(cap, 1);
  double t0 = now_s();
  int timed_out = 0;
  for (;;) {
    double left = VTA_REGRESS_WORK_TIMEOUT - (now_s() - t0);
    if (left <= 0) {
      timed_out = 1;
      kill(pid, SIGKILL);
      break;
    }
    struct pollfd p = {fds[0], POLLIN, 0};
    int pr = poll(&p, 1, (int)(left * 1000) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    char buf[4096];
    ssize_t got = read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    /* Keep the last 16 KiB: the message is at the end. */
    if (text) { /* got <= sizeof buf < cap */
      if (len + (size_t)got >= cap) {
        size_t drop = len + (size_t)got - (cap - 1);
        memmove(text, text + drop, len - drop);
        len -= drop;
      }
      memcpy(text + len, buf, (size_t)got);
      len += (size_t)got;
      text[len] = 0;
    }
  }
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  char line[768] = "";
  /* A crash report (the child's handler wrote it last) is kept whole for the case's details;
   * the message is the line before it, what the case last said. */
  const char *report = text && WIFSIGNALED(st) ? vta_crash_report_find(text) : NULL;
  if (report) {
    *crash = strdup(report);
    text[report - text] = 0;
  }
  if (text) last_line(text, line, sizeof line);
  if (timed_out) {
    snprintf(r->message, sizeof r->message, "%s seed=%llu did not finish in %d s (stopped)%s%s",
             vta_diff_workload_name(w), (unsigned long long)seed, VTA_REGRESS_WORK_TIMEOUT,
             line[0] ? "; its last message: " : "", line);
  } else if (WIFSIGNALED(st)) {
    /* "signal 11 (SIGSEGV), fault address 0x..., pc 0x..." from the report when there is one */
    char sig[160];
    if (*crash) {
      const char *p = *crash + strlen(VTA_CRASH_MARK);
      snprintf(sig, sizeof sig, "%.*s", (int)strcspn(p, "\n"), p);
    } else {
      snprintf(sig, sizeof sig, "%d", WTERMSIG(st));
    }
    snprintf(r->message, sizeof r->message, "%s seed=%llu crashed (signal %s)%s%s",
             vta_diff_workload_name(w), (unsigned long long)seed, sig,
             line[0] ? "; its last message: " : "", line);
  } else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    r->outcome = VTA_DIFF_PASS;
  } else {
    r->outcome = strstr(line, VTA_DIFF_MISMATCH) ? VTA_DIFF_FAIL : VTA_DIFF_ERROR;
    snprintf(r->message, sizeof r->message, "%s",
             line[0] ? line : "the workload failed without a message");
  }
  free(text);
}
