/* cli_run.h - runs the `vta` binary as a subprocess for the tests of tests/host/, and the small
 * file helpers those tests share.
 *
 * The binary is $VTA_BIN (the test runner sets it to the sanitized build/san/bin/vta), else
 * build/san/bin/vta relative to the repository root the tests run from. Each run captures the
 * exit status, standard output and standard error; a run that prints a sanitizer report fails
 * the calling test whatever its exit status, so leaks and undefined behaviour in the tool are
 * caught by every test that runs it. The environment variables that change the tool's defaults
 * (VTA_CONFIG, VTA_BACKEND) are cleared unless a test sets them. Static functions in a header
 * because the build links only the tests/support sources into every test.
 */
#ifndef VTA_TESTS_HOST_CLI_RUN_H
#define VTA_TESTS_HOST_CLI_RUN_H

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* Seconds a single run of the tool may take before it is killed (SIGALRM survives exec). */
#ifndef CLI_RUN_TIMEOUT
#define CLI_RUN_TIMEOUT 120
#endif

typedef struct cli_result {
  int status;   /* exit status, or 128 + signal number if killed */
  char *out;    /* standard output, NUL-terminated */
  size_t out_len;
  char *err;    /* standard error, NUL-terminated */
} cli_result;

static inline const char *cli_bin(void) {
  const char *b = getenv("VTA_BIN");
  return b && b[0] ? b : "build/san/bin/vta";
}

/* Reads a whole file into a malloc'd NUL-terminated buffer; NULL if it cannot be opened. */
static inline char *cli_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t n = 0, cap = 0;
  if (!f)
    return NULL;
  for (;;) {
    if (cap - n < 4096) {
      cap = cap ? 2 * cap : 8192;
      buf = realloc(buf, cap);
      assert_non_null(buf);
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0)
      break;
  }
  fclose(f);
  buf[n] = 0;
  if (len)
    *len = n;
  return buf;
}

static inline void cli_spit(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  if (len)
    assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

static inline void cli_spit_text(const char *path, const char *text) {
  cli_spit(path, text, strlen(text));
}

static inline int cli_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Runs the tool with argv (NULL-terminated, without the program name). env: NULL-terminated
 * list of "NAME=VALUE" to set in the child, or NULL. stdin_path: file to use as standard input,
 * or NULL for /dev/null. stdout_path: file to use as standard output instead of capturing it
 * (r->out is then empty), or NULL. */
static inline void cli_run_io(cli_result *r, const char *const *env, const char *stdin_path,
                              const char *stdout_path, const char *const *argv) {
  char outp[] = "/tmp/vta_cli_out.XXXXXX", errp[] = "/tmp/vta_cli_err.XXXXXX";
  int ofd = mkstemp(outp), efd = mkstemp(errp), wstatus = 0;
  size_t argc = 0;
  pid_t pid;
  while (argv[argc])
    argc++;
  assert_true(ofd >= 0 && efd >= 0);
  memset(r, 0, sizeof *r);
  fflush(stdout);
  fflush(stderr);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    const char **av = calloc(argc + 2, sizeof *av);
    int ifd = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    if (stdout_path) {
      close(ofd);
      ofd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    if (!av || ifd < 0 || ofd < 0)
      _exit(126);
    av[0] = "vta";
    memcpy(av + 1, argv, argc * sizeof *av);
    unsetenv("VTA_CONFIG");
    unsetenv("VTA_BACKEND");
    for (; env && *env; env++)
      putenv((char *)*env);
    dup2(ifd, 0);
    dup2(ofd, 1);
    dup2(efd, 2);
    alarm(CLI_RUN_TIMEOUT);
    execv(cli_bin(), (char *const *)av);
    dprintf(2, "cannot execute %s\n", cli_bin());
    _exit(127);
  }
  assert_int_equal(waitpid(pid, &wstatus, 0), pid);
  close(ofd);
  close(efd);
  r->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  r->out = cli_slurp(outp, &r->out_len);
  r->err = cli_slurp(errp, NULL);
  unlink(outp);
  unlink(errp);
  assert_non_null(r->out);
  assert_non_null(r->err);
  if (r->status == 127 && strstr(r->err, "cannot execute"))
    fail_msg("cannot execute %s: set VTA_BIN to the vta binary", cli_bin());
  if (strstr(r->err, "Sanitizer") || strstr(r->err, "runtime error:"))
    fail_msg("sanitizer report from vta:\n%s", r->err);
  if (r->status >= 128)
    fail_msg("vta was killed by signal %d; stderr:\n%s", r->status - 128, r->err);
}

static inline void cli_run_env(cli_result *r, const char *const *env, const char *stdin_path,
                               const char *const *argv) {
  cli_run_io(r, env, stdin_path, NULL, argv);
}

static inline void cli_result_free(cli_result *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

/* CLI_RUN(&r, "asm", "x.s", "-o", "x.bin") */
#define CLI_RUN(r, ...) cli_run_env((r), NULL, NULL, (const char *const[]){__VA_ARGS__, NULL})
#define CLI_RUN_ENV(r, env, ...) \
  cli_run_env((r), (env), NULL, (const char *const[]){__VA_ARGS__, NULL})

/* Asserts an exit status, showing stderr when it differs. */
#define CLI_ASSERT_STATUS(r, want)                                                           \
  do {                                                                                       \
    if ((r)->status != (want))                                                               \
      fail_msg("exit status %d, expected %d; stderr:\n%s", (r)->status, (want), (r)->err);  \
  } while (0)

/* Asserts that haystack contains needle, showing both when not. */
#define CLI_ASSERT_CONTAINS(haystack, needle)                                                \
  do {                                                                                       \
    if (!strstr((haystack), (needle)))                                                       \
      fail_msg("expected to find \"%s\" in:\n%s", (needle), (haystack));                     \
  } while (0)

/* A fresh temporary folder for one test; cli_tmp_path joins a name to it. */
typedef struct cli_tmp {
  char dir[64];
  char path[8][320];
} cli_tmp;

static inline int cli_tmp_setup(void **state) {
  cli_tmp *t = calloc(1, sizeof *t);
  if (!t)
    return -1;
  snprintf(t->dir, sizeof t->dir, "/tmp/vta_cli_test.XXXXXX");
  if (!mkdtemp(t->dir)) {
    free(t);
    return -1;
  }
  *state = t;
  return 0;
}

static inline int cli_tmp_teardown(void **state) {
  cli_tmp *t = *state;
  DIR *d = opendir(t->dir);
  struct dirent *e;
  char p[400];
  if (d) {
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      snprintf(p, sizeof p, "%s/%s", t->dir, e->d_name);
      if (unlink(p) != 0)
        rmdir(p);
    }
    closedir(d);
  }
  rmdir(t->dir);
  free(t);
  return 0;
}

/* Path of `name` inside the test's folder; slot (0-7) selects one of 8 buffers so several
 * paths can be held at once. */
static inline const char *cli_tmp_path(cli_tmp *t, int slot, const char *name) {
  snprintf(t->path[slot], sizeof t->path[slot], "%s/%s", t->dir, name);
  return t->path[slot];
}

/* Number of entries in the test's folder (to check that no temporary file is left behind). */
static inline int cli_tmp_count(cli_tmp *t) {
  DIR *d = opendir(t->dir);
  struct dirent *e;
  int n = 0;
  assert_non_null(d);
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      n++;
  closedir(d);
  return n;
}

#endif
