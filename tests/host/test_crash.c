/* test_crash.c - the crash report (host/crash.c): a child that faults or aborts writes the
 * signal, the place and a backtrace to the descriptor it was given, and still dies of that
 * signal; the parent's search finds the report in captured text.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/crash.h"


enum { DIE_SEGV, DIE_ABORT, DIE_KILL };

/* Runs a child that installs the handler on a pipe and dies the way given; returns its wait
 * status, *out its output (freed by the caller). */
static int run_child(int how, char **out) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    if (vta_crash_trace_install(fds[1]) != 0) _exit(3);
    if (how == DIE_SEGV) vta_crash_fault_now();
    else if (how == DIE_ABORT) abort();
    else raise(SIGSEGV); /* sent, not a fault: returning from the handler would not kill */
    _exit(4);
  }
  close(fds[1]);
  size_t len = 0, cap = 1 << 16;
  char *text = malloc(cap);
  assert_non_null(text);
  ssize_t got;
  while ((got = read(fds[0], text + len, cap - 1 - len)) > 0) len += (size_t)got;
  text[len] = 0;
  close(fds[0]);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  *out = text;
  return st;
}

static void test_crash_fault_reports_place_and_dies_of_it(void **state) {
  (void)state;
  char *text;
  int st = run_child(DIE_SEGV, &text);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGSEGV);
  const char *r = vta_crash_report_find(text);
  assert_non_null(r);
  assert_ptr_equal(r, strstr(text, VTA_CRASH_MARK "11 (SIGSEGV), fault address 0x"));
  assert_non_null(strstr(r, ", pc 0x"));
  /* The pc lies in this test's executable, the fault address in the page no one may touch,
   * and the backtrace has frames. */
  const char *pc = strstr(r, "\nvta: pc in ");
  assert_non_null(pc);
  const char *name = strstr(pc, program_invocation_short_name);
  assert_true(name && name < strchr(pc + 1, '\n'));
  const char *fa = strstr(r, "\nvta: fault address in ");
  assert_non_null(fa);
  const char *perm = strstr(fa, " ---p ");
  assert_true(perm && perm < strchr(fa + 1, '\n'));
  assert_non_null(strstr(r, "\nvta: backtrace (most recent call first):\n"));
  assert_non_null(strstr(r, "[0x"));
  assert_non_null(strstr(r, "\n" VTA_CRASH_END "\n"));
  free(text);
}

static void test_crash_abort_and_sent_signals_keep_their_status(void **state) {
  (void)state;
  char *text;
  int st = run_child(DIE_ABORT, &text);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGABRT);
  assert_non_null(strstr(text, VTA_CRASH_MARK "6 (SIGABRT)"));
  assert_non_null(strstr(text, VTA_CRASH_END));
  free(text);
  st = run_child(DIE_KILL, &text);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGSEGV);
  assert_non_null(vta_crash_report_find(text));
  assert_null(strstr(text, "fault address")); /* a sent signal has none */
  free(text);
}

static void test_crash_report_find_takes_the_last_line_start(void **state) {
  (void)state;
  assert_null(vta_crash_report_find("all fine\n"));
  /* A mention inside a line is not a report; the report starts a line. */
  const char *t = "said " VTA_CRASH_MARK "1\n" VTA_CRASH_MARK "11 (SIGSEGV)\n" VTA_CRASH_END "\n";
  const char *r = vta_crash_report_find(t);
  assert_non_null(r);
  assert_int_equal(r - t, (long)strlen("said " VTA_CRASH_MARK "1\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crash_fault_reports_place_and_dies_of_it),
      cmocka_unit_test(test_crash_abort_and_sent_signals_keep_their_status),
      cmocka_unit_test(test_crash_report_find_takes_the_last_line_start),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
