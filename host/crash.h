/* crash.h - a process that dies of a fault or an abort says where, on a file descriptor.
 *
 *   vta_crash_trace_install(2);   // early, in a process whose crash must name its place
 *
 * On SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT the handler writes
 *
 *   vta: fatal signal 11 (SIGSEGV), fault address 0x10, pc 0x7f0c2a4b1234
 *   vta: pc in 7f0c2a4b0000-7f0c2a4b2000 r-xp 00000000 00:00 0
 *   vta: backtrace (most recent call first):
 *   build/bin/vta(+0x8f2c1)[0x55d4c8e8f2c1]
 *   ...
 *   vta: end of the crash report
 *
 * (the mapping lines come from /proc/self/maps: an anonymous executable mapping is code the
 * JIT made; a file's offsets resolve with addr2line -e FILE), then restores the default action
 * and raises the signal again, so the process still dies of it and its exit status is the
 * same as without the handler. Everything it does is async-signal-safe, and it runs on a stack
 * of its own, so a stack overflow is reported too (for the installing thread).
 */
#ifndef VTA_HOST_CRASH_H
#define VTA_HOST_CRASH_H

#include <stddef.h>

/* The report's first line starts with this (a parent reading the output finds the report). */
#define VTA_CRASH_MARK "vta: fatal signal "
/* and its last line is this one. */
#define VTA_CRASH_END "vta: end of the crash report"

/* Installs the handler for the calling process, writing to fd. Returns 0, or -1 (errno set)
 * when the signal stack or a handler cannot be set up. */
int vta_crash_trace_install(int fd);

/* Test hook: a real fault, a write to a page no one may touch (not a null pointer, which
 * UBSan would report first). Does not return. */
void vta_crash_fault_now(void) __attribute__((noreturn));

/* The crash report in text (a child's captured standard error): a pointer to its first line,
 * or NULL when there is none. */
const char *vta_crash_report_find(const char *text);

#endif
