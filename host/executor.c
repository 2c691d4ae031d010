/* executor.c - the job executor (executor.h): local child processes or Slurm job arrays.
 *
 * The design idea: both engines run one "round" over a list of job indices and leave a complete
 * vta_job_result for each; vta_executor_run only validates, prepares the folders and repeats the
 * round over the failed jobs while retries remain. The Slurm engine keeps nothing in memory the
 * cluster does not also have on disk: each job is a small shell script in shared_dir/jobs and
 * each finished task leaves shared_dir/results/<index>, so the state of a round is read from the
 * shared folder (and squeue only says whether anything of ours is still queued).
 */
#include "host/executor.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a SIGTERM'd job gets before SIGKILL, and how long the Slurm engine waits for its
 * cancelled arrays to leave the queue. */
#define KILL_GRACE_S 2.0
#define CANCEL_WAIT_S 30.0
/* squeue may fail while the controller is briefly busy; this long in a row is an error. */
#define SQUEUE_FAIL_S 60.0

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  if (!err || errlen == 0)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s) {
  struct timespec ts;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
}

static int cancelled(const struct vta_executor_opts *o) { return o->cancel && *o->cancel; }

static volatile sig_atomic_t sigint_flag;
static void on_sigint(int sig) {
  (void)sig;
  sigint_flag = 1;
}

volatile sig_atomic_t *vta_executor_catch_sigint(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  return &sigint_flag;
}

int vta_executor_kind_parse(const char *name, enum vta_executor_kind *kind) {
  if (strcmp(name, "local") == 0)
    *kind = VTA_EXECUTOR_LOCAL;
  else if (strcmp(name, "slurm") == 0)
    *kind = VTA_EXECUTOR_SLURM;
  else
    return -1;
  return 0;
}

/* mkdir -p */
static int mkdirs(const char *path, char *err, size_t errlen) {
  char buf[PATH_MAX];
  size_t i, len = strlen(path);
  if (len == 0 || len >= sizeof buf) {
    seterr(err, errlen, "folder name '%s' is empty or longer than %d bytes", path, PATH_MAX - 1);
    return -1;
  }
  memcpy(buf, path, len + 1);
  for (i = 1; i <= len; i++) {
    if (buf[i] != '/' && buf[i] != '\0')
      continue;
    char c = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
      seterr(err, errlen, "cannot create folder '%s': %s", buf, strerror(errno));
      return -1;
    }
    buf[i] = c;
  }
  return 0;
}

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) > 200)
    return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
      return 0;
  return 1;
}

static void finish(struct vta_job_result *r, int code, int timed_out, double secs,
                   const char *reason) {
  r->exit_code = code;
  r->timed_out = timed_out;
  r->seconds = secs;
  snprintf(r->reason, sizeof r->reason, "%s", reason ? reason : "");
}

static int failed(const struct vta_job_result *r) { return r->exit_code != 0; }

/* ---- local engine ---- */

struct slot {
  pid_t pid;
  size_t idx;
  double start, term_at;
  int timed_out;
};

static pid_t spawn(const struct vta_job *j, const char *log) {
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  /* Child: its own session (and so process group), so a timeout or cancel reaches its
   * children too, and on kernels with scheduler autogroups each job gets the share of CPU a
   * Slurm task (started in a session of its own by slurmstepd) would get. */
  if (setsid() < 0)
    setpgid(0, 0);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int in = open("/dev/null", O_RDONLY);
  if (fd < 0 || in < 0)
    _exit(127);
  dup2(in, 0);
  dup2(fd, 1);
  dup2(fd, 2);
  close(fd);
  close(in);
  execvp(j->argv[0], j->argv);
  dprintf(2, "vta executor: cannot run '%s': %s\n", j->argv[0], strerror(errno));
  _exit(127);
}

static void reap(struct slot *s, int status, struct vta_job_result *r) {
  char why[200] = "";
  int code;
  if (WIFEXITED(status))
    code = WEXITSTATUS(status);
  else
    code = 128 + WTERMSIG(status);
  if (s->timed_out)
    snprintf(why, sizeof why, "timed out (killed after its limit)");
  else if (WIFSIGNALED(status))
    snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(status));
  else if (code != 0)
    snprintf(why, sizeof why, "exit status %d", code);
  finish(r, code, s->timed_out, now_s() - s->start, why);
}

static int round_local(const struct vta_executor_opts *o, const struct vta_job *jobs,
                       const size_t *todo, size_t ntodo, struct vta_job_result *out,
                       size_t *done, size_t *nfail, size_t total) {
  unsigned width = o->jobs ? o->jobs : 1;
  struct slot *slots = calloc(width, sizeof *slots);
  size_t next = 0, running = 0, k;
  int rc = 0;
  if (!slots)
    return -1;
  while (next < ntodo || running > 0) {
    int busy = 0;
    if (cancelled(o)) {
      for (k = 0; k < width; k++)
        if (slots[k].pid > 0) {
          kill(-slots[k].pid, SIGKILL);
          kill(slots[k].pid, SIGKILL); /* in case it has not made its session yet */
        }
      for (k = 0; k < width; k++)
        if (slots[k].pid > 0) {
          int st;
          waitpid(slots[k].pid, &st, 0);
          finish(&out[slots[k].idx], -1, 0, now_s() - slots[k].start, "cancelled");
          slots[k].pid = 0;
        }
      for (; next < ntodo; next++)
        finish(&out[todo[next]], -1, 0, 0, "cancelled");
      rc = 1;
      break;
    }
    for (k = 0; k < width && next < ntodo; k++) {
      if (slots[k].pid > 0)
        continue;
      size_t idx = todo[next++];
      struct vta_job_result *r = &out[idx];
      r->attempts++;
      pid_t pid = spawn(&jobs[idx], r->log);
      if (pid < 0) {
        char why[200];
        snprintf(why, sizeof why, "cannot start a process: %s", strerror(errno));
        finish(r, -1, 0, 0, why);
        (*done)++, (*nfail)++;
        if (o->progress)
          o->progress(o->progress_ctx, *done, *nfail, total, idx, r);
        continue;
      }
      slots[k] = (struct slot){pid, idx, now_s(), 0, 0};
      running++;
      busy = 1;
    }
    for (k = 0; k < width; k++) {
      struct slot *s = &slots[k];
      int st;
      if (s->pid <= 0)
        continue;
      pid_t w = waitpid(s->pid, &st, WNOHANG);
      if (w == s->pid) {
        reap(s, st, &out[s->idx]);
        (*done)++;
        if (failed(&out[s->idx]))
          (*nfail)++;
        if (o->progress)
          o->progress(o->progress_ctx, *done, *nfail, total, s->idx, &out[s->idx]);
        s->pid = 0;
        running--;
        busy = 1;
        continue;
      }
      double t = now_s(), limit = jobs[s->idx].timeout_s;
      if (limit > 0 && !s->timed_out && t - s->start > limit) {
        kill(-s->pid, SIGTERM);
        s->timed_out = 1;
        s->term_at = t;
      } else if (s->timed_out && t - s->term_at > KILL_GRACE_S) {
        kill(-s->pid, SIGKILL);
        kill(s->pid, SIGKILL);
      }
    }
    if (!busy)
      sleep_s(0.01);
  }
  free(slots);
  return rc;
}

/* ---- Slurm engine ---- */

/* Runs argv, standard output into buf (NUL-terminated, truncated), standard error appended after
 * it when the command fails. Returns the exit status, or -1 if it could not start. */
static int capture(char *const *argv, char *buf, size_t size) {
  int pfd[2];
  size_t len = 0;
  if (pipe(pfd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(pfd[0]);
    close(pfd[1]);
    return -1;
  }
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0)
      dup2(in, 0);
    dup2(pfd[1], 1);
    dup2(pfd[1], 2);
    close(pfd[0]);
    close(pfd[1]);
    execvp(argv[0], argv);
    dprintf(2, "cannot run '%s': %s", argv[0], strerror(errno));
    _exit(127);
  }
  close(pfd[1]);
  for (;;) {
    char tmp[1024];
    ssize_t got = read(pfd[0], tmp, sizeof tmp);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    for (ssize_t i = 0; i < got; i++)
      if (len + 1 < size)
        buf[len++] = tmp[i];
  }
  close(pfd[0]);
  if (size)
    buf[len < size ? len : size - 1] = '\0';
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void chomp(char *s) {
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1]))
    s[--n] = '\0';
}

/* Writes s to f single-quoted for sh. */
static void sh_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputs("'\\''", f);
    else
      fputc(*s, f);
  }
  fputc('\'', f);
}

static int write_text(const char *path, const char *text, char *err, size_t errlen) {
  char tmp[PATH_MAX + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    seterr(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
    return -1;
  }
  if (rename(tmp, path) != 0) {
    seterr(err, errlen, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    return -1;
  }
  return 0;
}

static int write_job_script(const char *dir, size_t idx, const struct vta_job *j,
                            const char *log, char *err, size_t errlen) {
  char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
  snprintf(path, sizeof path, "%s/jobs/%zu.sh", dir, idx);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    seterr(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
    return -1;
  }
  fprintf(f, "#!/bin/sh\n# job %zu: %s\nexec ", idx, j->name);
  if (j->timeout_s > 0)
    fprintf(f, "timeout --kill-after=%g %.3f ", KILL_GRACE_S, j->timeout_s);
  for (char *const *a = j->argv; *a; a++) {
    sh_quote(f, *a);
    fputc(' ', f);
  }
  fputs("< /dev/null > ", f);
  sh_quote(f, log);
  fputs(" 2>&1\n", f);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    seterr(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

static long slurm_max_array(char *err, size_t errlen) {
  char buf[65536];
  char *const argv[] = {"scontrol", "show", "config", NULL};
  int st = capture(argv, buf, sizeof buf);
  if (st != 0) {
    chomp(buf);
    seterr(err, errlen, "'scontrol show config' failed (status %d): %s", st, buf);
    return -1;
  }
  char *p = strstr(buf, "MaxArraySize");
  if (!p || !(p = strchr(p, '='))) {
    seterr(err, errlen, "'scontrol show config' does not list MaxArraySize");
    return -1;
  }
  long m = strtol(p + 1, NULL, 10);
  if (m < 1) {
    seterr(err, errlen, "MaxArraySize of the cluster is %ld: job arrays are disabled", m);
    return -1;
  }
  return m;
}

/* The array job IDs of ours still in the queue, as a comma-separated set in buf. Returns -1 if
 * squeue failed. */
static int squeue_ids(char *buf, size_t size) {
  char *const argv[] = {"squeue", "-h", "--me", "-o", "%F", NULL};
  int st = capture(argv, buf, size);
  return st == 0 ? 0 : -1;
}

static int id_listed(const char *list, const char *id) {
  size_t n = strlen(id);
  const char *p = list;
  while ((p = strstr(p, id)) != NULL) {
    if ((p == list || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
      return 1;
    p += n;
  }
  return 0;
}

/* Why a task left the queue without a result, from `scontrol show job`. */
static void lost_reason(const char *jobid, long task, char *why, size_t size) {
  char id[64], buf[8192];
  snprintf(id, sizeof id, "%s_%ld", jobid, task);
  char *const argv[] = {"scontrol", "-o", "show", "job", id, NULL};
  if (capture(argv, buf, sizeof buf) == 0) {
    char state[64] = "?", reason[96] = "?";
    char *p = strstr(buf, "JobState=");
    if (p)
      sscanf(p, "JobState=%63s", state);
    p = strstr(buf, " Reason=");
    if (p)
      sscanf(p, " Reason=%95s", reason);
    snprintf(why, size, "Slurm task %s ended without a result: JobState=%s Reason=%s", id, state,
             reason);
  } else {
    snprintf(why, size, "Slurm task %s ended without a result (Slurm no longer knows it)", id);
  }
}

struct chunk {
  char jobid[32];
  size_t offset;
};

static int round_slurm(const struct vta_executor_opts *o, const struct vta_job *jobs,
                       const size_t *todo, size_t ntodo, struct vta_job_result *out,
                       size_t *done, size_t *nfail, size_t total, char *err, size_t errlen) {
  const char *dir = o->shared_dir;
  long maxa = o->max_array ? (long)o->max_array : slurm_max_array(err, errlen);
  size_t k, c, nch = 0;
  int rc = 0;
  if (maxa < 0)
    return -1;
  /* Chunks: indices grouped by idx / maxa, so each task ID (idx - offset) is below maxa. */
  struct chunk *ch = calloc(ntodo, sizeof *ch);
  size_t *chunk_of = calloc(ntodo, sizeof *chunk_of);
  char *spec = malloc(ntodo * 24 + 64);
  unsigned char *have = calloc(ntodo, 1);
  if (!ch || !chunk_of || !spec || !have) {
    seterr(err, errlen, "out of memory for %zu Slurm tasks", ntodo);
    rc = -1;
    goto out;
  }
  double tmax = 0;
  int unlimited = 0;
  for (k = 0; k < ntodo; k++) {
    char res[PATH_MAX + 64];
    snprintf(res, sizeof res, "%s/results/%zu", dir, todo[k]);
    unlink(res);
    if (jobs[todo[k]].timeout_s <= 0)
      unlimited = 1;
    else if (jobs[todo[k]].timeout_s > tmax)
      tmax = jobs[todo[k]].timeout_s;
    out[todo[k]].attempts++;
  }
  for (k = 0; k < ntodo;) {
    size_t offset = todo[k] / (size_t)maxa * (size_t)maxa, len = 0;
    size_t first = k;
    spec[0] = '\0';
    while (k < ntodo && todo[k] / (size_t)maxa * (size_t)maxa == offset) {
      /* Ranges for consecutive runs: 0-99 rather than 100 numbers. */
      size_t a = todo[k], b = a;
      while (k + 1 < ntodo && todo[k + 1] == b + 1 && (todo[k + 1] / (size_t)maxa) * (size_t)maxa == offset)
        b = todo[++k];
      len += (size_t)sprintf(spec + len, "%s%zu", len ? "," : "", a - offset);
      if (b != a)
        len += (size_t)sprintf(spec + len, "-%zu", b - offset);
      k++;
    }
    if (o->throttle)
      sprintf(spec + len, "%%%u", o->throttle);
    char *argv[32];
    int na = 0;
    char a_time[48], a_part[160], a_dep[64], a_out[PATH_MAX + 32], script[PATH_MAX + 16],
        a_off[32];
    char *array_opt = malloc(strlen(spec) + 16);
    char *extra = o->sbatch_extra ? strdup(o->sbatch_extra) : NULL;
    if (!array_opt || (o->sbatch_extra && !extra)) {
      free(array_opt);
      free(extra);
      seterr(err, errlen, "out of memory");
      rc = -1;
      goto cancel;
    }
    sprintf(array_opt, "--array=%s", spec);
    snprintf(a_out, sizeof a_out, "--output=%s/slurm-%%A_%%a.out", dir);
    snprintf(script, sizeof script, "%s/batch.sh", dir);
    snprintf(a_off, sizeof a_off, "%zu", offset);
    argv[na++] = "sbatch";
    argv[na++] = "--parsable";
    argv[na++] = "--job-name=vta-exec";
    argv[na++] = array_opt;
    argv[na++] = a_out;
    if (!unlimited) {
      snprintf(a_time, sizeof a_time, "--time=%ld", (long)ceil(tmax / 60.0) + 1);
      argv[na++] = a_time;
    }
    if (o->partition) {
      snprintf(a_part, sizeof a_part, "--partition=%s", o->partition);
      argv[na++] = a_part;
    }
    if (nch > 0) {
      /* Chained so that the throttle holds across arrays too. */
      snprintf(a_dep, sizeof a_dep, "--dependency=afterany:%s", ch[nch - 1].jobid);
      argv[na++] = a_dep;
    }
    if (extra)
      for (char *t = strtok(extra, " "); t && na < 28; t = strtok(NULL, " "))
        argv[na++] = t;
    argv[na++] = script;
    argv[na++] = a_off;
    argv[na] = NULL;
    char buf[4096];
    int st = capture(argv, buf, sizeof buf);
    free(array_opt);
    chomp(buf);
    if (st != 0) {
      free(extra);
      seterr(err, errlen, "sbatch failed (status %d): %s", st, buf);
      rc = -1;
      goto cancel;
    }
    free(extra);
    /* --parsable prints "jobid" or "jobid;cluster" after any warnings. */
    char *line = strrchr(buf, '\n');
    line = line ? line + 1 : buf;
    char *semi = strchr(line, ';');
    if (semi)
      *semi = '\0';
    if (!*line || strspn(line, "0123456789") != strlen(line) || strlen(line) >= sizeof ch[0].jobid) {
      seterr(err, errlen, "sbatch printed '%s' instead of a job ID", line);
      rc = -1;
      goto cancel;
    }
    snprintf(ch[nch].jobid, sizeof ch[nch].jobid, "%s", line);
    ch[nch].offset = offset;
    for (size_t m = first; m < k; m++)
      chunk_of[m] = nch;
    nch++;
  }

  /* Poll the result files; squeue says when nothing of ours is queued any more. */
  double poll = o->poll_s > 0 ? o->poll_s : 0.2, squeue_bad_since = 0;
  int settled = 0;
  size_t left = ntodo;
  for (;;) {
    if (cancelled(o))
      goto cancel;
    char q[65536];
    int qok = squeue_ids(q, sizeof q) == 0;
    if (!qok) {
      if (squeue_bad_since == 0)
        squeue_bad_since = now_s();
      else if (now_s() - squeue_bad_since > SQUEUE_FAIL_S) {
        chomp(q);
        seterr(err, errlen, "squeue has failed for %.0f s: %s", SQUEUE_FAIL_S, q);
        rc = -1;
        goto cancel;
      }
    } else {
      squeue_bad_since = 0;
    }
    for (k = 0; k < ntodo; k++) {
      if (have[k])
        continue;
      size_t idx = todo[k];
      char res[PATH_MAX + 64];
      snprintf(res, sizeof res, "%s/results/%zu", dir, idx);
      FILE *f = fopen(res, "r");
      if (!f)
        continue;
      int code;
      long long s0, s1;
      int got = fscanf(f, "%d %lld %lld", &code, &s0, &s1);
      fclose(f);
      if (got != 3)
        continue; /* being written: the rename makes this rare; read again next poll */
      struct vta_job_result *r = &out[idx];
      int to = jobs[idx].timeout_s > 0 && (code == 124 || code == 137);
      char why[200] = "";
      if (to)
        snprintf(why, sizeof why, "timed out (killed after its limit)");
      else if (code != 0)
        snprintf(why, sizeof why, "exit status %d", code);
      finish(r, code, to, (double)(s1 - s0) / 1e9, why);
      have[k] = 1;
      left--;
      (*done)++;
      if (failed(r))
        (*nfail)++;
      if (o->progress)
        o->progress(o->progress_ctx, *done, *nfail, total, idx, r);
    }
    if (left == 0)
      break;
    if (qok) {
      int any = 0;
      for (c = 0; c < nch; c++)
        if (id_listed(q, ch[c].jobid))
          any = 1;
      if (!any) {
        /* Everything left the queue: one more look at the results, then the rest is lost. */
        if (!settled) {
          settled = 1;
          continue;
        }
        for (k = 0; k < ntodo; k++) {
          if (have[k])
            continue;
          char why[256];
          lost_reason(ch[chunk_of[k]].jobid, (long)(todo[k] - ch[chunk_of[k]].offset), why,
                      sizeof why);
          finish(&out[todo[k]], -1, 0, 0, why);
          have[k] = 1;
          (*done)++, (*nfail)++;
          if (o->progress)
            o->progress(o->progress_ctx, *done, *nfail, total, todo[k], &out[todo[k]]);
        }
        break;
      }
    }
    sleep_s(poll);
  }
  goto out;

cancel:
  if (nch > 0) {
    char ids[4096] = "";
    size_t len = 0;
    for (c = 0; c < nch && len + 40 < sizeof ids; c++)
      len += (size_t)snprintf(ids + len, sizeof ids - len, "%s%s", c ? "," : "", ch[c].jobid);
    char buf[1024];
    char *const argv[] = {"scancel", ids, NULL};
    capture(argv, buf, sizeof buf);
    double t0 = now_s();
    while (now_s() - t0 < CANCEL_WAIT_S) {
      char q[65536];
      int any = 0;
      if (squeue_ids(q, sizeof q) != 0)
        break;
      for (c = 0; c < nch; c++)
        if (id_listed(q, ch[c].jobid))
          any = 1;
      if (!any)
        break;
      sleep_s(0.2);
    }
  }
  for (k = 0; k < ntodo; k++)
    if (!have[k])
      finish(&out[todo[k]], -1, 0, 0, rc < 0 ? "executor error" : "cancelled");
  if (rc == 0)
    rc = 1;
out:
  free(ch);
  free(chunk_of);
  free(spec);
  free(have);
  return rc;
}

static int prepare_slurm(const struct vta_executor_opts *o, const struct vta_job *jobs, size_t n,
                         struct vta_job_result *out, char *err, size_t errlen) {
  char path[PATH_MAX + 64];
  const char *dir = o->shared_dir;
  if (!dir || !*dir) {
    seterr(err, errlen, "the Slurm executor needs a shared folder (shared_dir) seen by all nodes");
    return -1;
  }
  if (dir[0] != '/') {
    seterr(err, errlen, "shared folder '%s' must be an absolute path (tasks run elsewhere)", dir);
    return -1;
  }
  if (strlen(dir) > PATH_MAX - 64) {
    seterr(err, errlen, "shared folder name '%s' is too long", dir);
    return -1;
  }
  snprintf(path, sizeof path, "%s/jobs", dir);
  if (mkdirs(path, err, errlen) != 0)
    return -1;
  snprintf(path, sizeof path, "%s/results", dir);
  if (mkdirs(path, err, errlen) != 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    if (out[i].log[0] != '/') {
      seterr(err, errlen, "job '%s': out_dir '%s' must be an absolute path for Slurm", jobs[i].name,
             jobs[i].out_dir);
      return -1;
    }
    if (write_job_script(dir, i, &jobs[i], out[i].log, err, errlen) != 0)
      return -1;
  }
  /* The task: run job (offset + task id), time it, leave the result under a temporary name and
   * rename it, so the executor never reads half a line. */
  char script[2 * PATH_MAX + 1024];
  snprintf(script, sizeof script,
           "#!/bin/sh\n"
           "# written by the vta job executor: runs job ($1 + array task id)\n"
           "d='%s'\n"
           "i=$(( $1 + SLURM_ARRAY_TASK_ID ))\n"
           "s=$(date +%%s%%N)\n"
           "sh \"$d/jobs/$i.sh\"\n"
           "rc=$?\n"
           "e=$(date +%%s%%N)\n"
           "echo \"$rc $s $e\" > \"$d/results/$i.tmp.$SLURM_JOB_ID\" &&\n"
           "  mv \"$d/results/$i.tmp.$SLURM_JOB_ID\" \"$d/results/$i\"\n",
           dir);
  snprintf(path, sizeof path, "%s/batch.sh", dir);
  return write_text(path, script, err, errlen);
}

int vta_executor_run(const struct vta_executor_opts *o, const struct vta_job *jobs, size_t n,
                     struct vta_job_result *out, char *err, size_t errlen) {
  size_t i, j;
  if (!o || (n > 0 && (!jobs || !out))) {
    seterr(err, errlen, "no options or no job list");
    return -1;
  }
  if (o->kind != VTA_EXECUTOR_LOCAL && o->kind != VTA_EXECUTOR_SLURM) {
    seterr(err, errlen, "unknown executor kind %d", (int)o->kind);
    return -1;
  }
  if (o->jobs > 4096) {
    seterr(err, errlen, "%u concurrent jobs exceeds the limit of 4096", o->jobs);
    return -1;
  }
  for (i = 0; i < n; i++) {
    const struct vta_job *jb = &jobs[i];
    memset(&out[i], 0, sizeof out[i]);
    out[i].exit_code = -1;
    if (!valid_name(jb->name)) {
      seterr(err, errlen, "job %zu: name '%s' must be 1-200 letters, digits, '.', '_' or '-'", i,
             jb->name ? jb->name : "(null)");
      return -1;
    }
    if (!jb->argv || !jb->argv[0] || !jb->out_dir || !*jb->out_dir) {
      seterr(err, errlen, "job '%s': no command or no output folder", jb->name);
      return -1;
    }
    if (!(jb->timeout_s >= 0) || jb->timeout_s > 1e7) {
      seterr(err, errlen, "job '%s': timeout %g s is not between 0 and 1e7", jb->name,
             jb->timeout_s);
      return -1;
    }
    for (j = 0; j < i; j++)
      if (strcmp(jobs[j].name, jb->name) == 0 && strcmp(jobs[j].out_dir, jb->out_dir) == 0) {
        seterr(err, errlen, "jobs %zu and %zu are both named '%s' in '%s'", j, i, jb->name,
               jb->out_dir);
        return -1;
      }
    if (mkdirs(jb->out_dir, err, errlen) != 0)
      return -1;
    if ((size_t)snprintf(out[i].log, sizeof out[i].log, "%s/%s.log", jb->out_dir, jb->name) >=
        sizeof out[i].log) {
      seterr(err, errlen, "job '%s': log path in '%s' is too long", jb->name, jb->out_dir);
      return -1;
    }
  }
  if (o->kind == VTA_EXECUTOR_SLURM && prepare_slurm(o, jobs, n, out, err, errlen) != 0)
    return -1;

  size_t *todo = malloc((n ? n : 1) * sizeof *todo), ntodo = n, done = 0, nfail = 0;
  if (!todo) {
    seterr(err, errlen, "out of memory for %zu jobs", n);
    return -1;
  }
  for (i = 0; i < n; i++)
    todo[i] = i;
  int rc = 0;
  for (unsigned attempt = 0; ntodo > 0; attempt++) {
    if (o->kind == VTA_EXECUTOR_LOCAL)
      rc = round_local(o, jobs, todo, ntodo, out, &done, &nfail, n);
    else
      rc = round_slurm(o, jobs, todo, ntodo, out, &done, &nfail, n, err, errlen);
    if (rc == -1 && o->kind == VTA_EXECUTOR_LOCAL)
      seterr(err, errlen, "out of memory for %u process slots", o->jobs);
    if (rc != 0 || attempt >= o->retries)
      break;
    /* Resubmit the failures of this round. */
    size_t m = 0;
    for (i = 0; i < ntodo; i++)
      if (failed(&out[todo[i]]))
        todo[m++] = todo[i];
    ntodo = m;
    done -= m;
    nfail -= m;
    if (m && o->progress)
      o->progress(o->progress_ctx, done, nfail, n, (size_t)-1, NULL);
  }
  free(todo);
  return rc;
}
