/* crash.c - the crash report of a process: signal, place, mappings and backtrace, written from
 * the signal handler (see crash.h).
 *
 * The design idea: the crashes worth this are rare ones that do not come back when their seed
 * is rerun (a `vta regress` case's child running JIT-compiled code), so the one report there
 * is must name the place by itself. Only async-signal-safe calls are made in the handler:
 * write(2) of text formatted here (no stdio, no malloc), open/read of /proc/self/maps into a
 * fixed buffer, backtrace() and backtrace_symbols_fd(), which write without allocating once
 * backtrace() has run once (its first call loads libgcc_s; that call is made at install time).
 * The handler runs on its own stack and is reset to the default action on entry
 * (SA_RESETHAND); it raises the signal again before returning, so the process dies of the
 * signal it got (a fault would also recur on return; a SIGABRT or a signal sent by kill(2)
 * would not).
 */
#include "host/crash.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static volatile int crash_fd = 2;

/* Large enough for backtrace() and the handler's buffers; SIGSTKSZ is no longer a constant
 * with recent glibc, and 8 KiB of it would be too small for the unwinder. */
static char alt_stack[64 * 1024] __attribute__((aligned(16)));

static void put(const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(crash_fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

/* "0x" and the hexadecimal digits of v into buf (at least 19 bytes). */
static const char *hex(uintptr_t v, char *buf) {
  char t[16];
  int n = 0;
  do {
    t[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  buf[0] = '0';
  buf[1] = 'x';
  for (int k = 0; k < n; k++) buf[2 + k] = t[n - 1 - k];
  buf[2 + n] = 0;
  return buf;
}

static const char *dec(int v, char *buf) {
  char t[12];
  int n = 0;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  do {
    t[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  int k = 0;
  if (v < 0) buf[k++] = '-';
  while (n) buf[k++] = t[--n];
  buf[k] = 0;
  return buf;
}

static const char *sig_name(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGABRT: return "SIGABRT";
  default: return "?";
  }
}

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  return -1;
}

/* Does the /proc/self/maps line "start-end perms ..." cover addr? */
static int line_covers(const char *line, uintptr_t addr) {
  uintptr_t lo = 0, hi = 0;
  const char *p = line;
  for (; hexval(*p) >= 0; p++) lo = lo << 4 | (uintptr_t)hexval(*p);
  if (*p++ != '-') return 0;
  for (; hexval(*p) >= 0; p++) hi = hi << 4 | (uintptr_t)hexval(*p);
  return addr >= lo && addr < hi;
}

/* The /proc/self/maps line of the mapping holding addr into line; 0 when none holds it. */
static int find_mapping(uintptr_t addr, char *line, size_t size) {
  static char buf[4096];
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  size_t len = 0;
  int found = 0;
  ssize_t got;
  while (fd >= 0 && !found && (got = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t k = 0; k < got && !found; k++) {
      char ch = buf[k];
      if (ch != '\n') {
        if (len + 1 < size) line[len++] = ch; /* an overlong line keeps its start */
        continue;
      }
      line[len] = 0;
      if (line_covers(line, addr)) found = 1;
      else len = 0;
    }
  }
  if (fd >= 0) close(fd);
  return found;
}

/* Is the mapping "start-end perms ..." readable / executable (perms "rwxp")? */
static int line_perm(const char *line, int k) {
  const char *p = strchr(line, ' ');
  return p && p[1 + k] != '-';
}

/* Writes " in <addr's /proc/self/maps line>", or " is in no mapping", and a newline. */
static void put_where(uintptr_t addr) {
  static char line[512];
  if (find_mapping(addr, line, sizeof line)) {
    put(" in ");
    put(line);
    put("\n");
  } else {
    put(" is in no mapping\n");
  }
}

static void put_mapping(const char *what, uintptr_t addr) {
  put("vta: ");
  put(what);
  put_where(addr);
}

static uintptr_t context_pc(const void *uc_) {
  const ucontext_t *uc = uc_;
  if (!uc) return 0;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#else
  return 0;
#endif
}

/* A pc outside executable memory came from a call or jump to a bad address, which the
 * unwinder cannot get past: the registers, and the word on top of the stack (after a call, the
 * return address: where the bad call was made), say more. The stack word is read only once
 * its page is known to be readable, and without ASan's check (the interrupted frames' red
 * zones are poisoned). */
__attribute__((no_sanitize_address)) static void put_registers(const void *uc_) {
#if defined(__x86_64__)
  static const struct {
    const char *name;
    int reg;
  } regs[] = {{"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX},
              {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"rsp", REG_RSP},
              {"r8", REG_R8},   {"r9", REG_R9},   {"r10", REG_R10}, {"r11", REG_R11},
              {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15}};
  const ucontext_t *uc = uc_;
  char b[24];
  put("vta: registers:");
  for (size_t k = 0; k < sizeof regs / sizeof regs[0]; k++) {
    put(" ");
    put(regs[k].name);
    put("=");
    put(hex((uintptr_t)uc->uc_mcontext.gregs[regs[k].reg], b));
  }
  put("\n");
  static char line[512];
  uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
  if (sp % sizeof(uintptr_t) == 0 && find_mapping(sp, line, sizeof line) && line_perm(line, 0) &&
      find_mapping(sp + sizeof(uintptr_t) - 1, line, sizeof line)) {
    uintptr_t top = *(const uintptr_t *)sp;
    put("vta: top of stack ");
    put(hex(top, b));
    put_where(top);
  }
#elif defined(__aarch64__)
  const ucontext_t *uc = uc_;
  char b[24];
  put("vta: lr ");
  put(hex((uintptr_t)uc->uc_mcontext.regs[30], b));
  put(", sp ");
  put(hex((uintptr_t)uc->uc_mcontext.sp, b));
  put("\n");
  put_mapping("lr", (uintptr_t)uc->uc_mcontext.regs[30]);
#else
  (void)uc_;
#endif
}

static void crash_handler(int sig, siginfo_t *si, void *uc) {
  char b1[24], b2[24], b3[12];
  uintptr_t pc = context_pc(uc);
  /* A fault the kernel raised has an address; the same signal sent by kill(2) has not. */
  int fault = (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) && si &&
              si->si_code > 0;
  put(VTA_CRASH_MARK);
  put(dec(sig, b3));
  put(" (");
  put(sig_name(sig));
  put(")");
  if (fault) {
    put(", fault address ");
    put(hex((uintptr_t)si->si_addr, b1));
  }
  if (pc) {
    put(", pc ");
    put(hex(pc, b2));
  }
  put("\n");
  static char line[512];
  if (pc) put_mapping("pc", pc);
  if (pc && uc && !(find_mapping(pc, line, sizeof line) && line_perm(line, 2))) put_registers(uc);
  if (fault && si->si_addr) put_mapping("fault address", (uintptr_t)si->si_addr);
  put("vta: backtrace (most recent call first):\n");
  void *frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, crash_fd);
  put(VTA_CRASH_END "\n");
  /* SA_RESETHAND restored the default action; the signal is blocked until we return. */
  raise(sig);
}

int vta_crash_trace_install(int fd) {
  crash_fd = fd;
  /* backtrace() loads libgcc_s (dlopen, malloc) on its first call: not in the handler. */
  void *warm[2];
  (void)backtrace(warm, 2);
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  if (sigaltstack(&ss, NULL) != 0) return -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = crash_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
    if (sigaction(sigs[k], &sa, NULL) != 0) return -1;
  return 0;
}

void vta_crash_fault_now(void) {
  void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED) *(volatile int *)page = 1;
  raise(SIGSEGV); /* no page to fault on: the same signal, sent */
  _exit(128 + SIGSEGV);
}

const char *vta_crash_report_find(const char *text) {
  const char *best = NULL;
  for (const char *p = text; (p = strstr(p, VTA_CRASH_MARK)) != NULL; p++)
    if (p == text || p[-1] == '\n') best = p;
  return best;
}
