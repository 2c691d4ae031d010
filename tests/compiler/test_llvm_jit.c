/* test_llvm_jit.c - the JIT (compiler/cpu/llvm_jit.c) runs its code wherever the kernel maps
 * the object's sections, and the code generator's objects hold no 32-bit references
 * (compiler/cpu/object_reach.c).
 *
 * The regression pinned here: `vta regress --workload model` crashed now and then (SIGSEGV in
 * the case's child, not reproduced on rerun) because LLVM 14 wrote jump tables with 32-bit
 * offsets from .rodata to .text even in the large code model, and RuntimeDyld maps those two
 * sections separately: when the code went below the gigabytes of device memory the parent
 * holds and the read-only data into a small hole above it, the offsets were truncated and the
 * 1x1 convolution kernel's remainder dispatch jumped 8 GiB away. The layout test builds that
 * situation on purpose (every hole of the address space filled except one page above an
 * 8 GiB reservation), in a child process, so that it fails every time without the fix.
 */
#include <elf.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "compiler/compiler.h"

/* A 1x1 convolution whose output rows (20 channels) are not a multiple of the GEMM kernel's
 * 6-row tile: the remainder is dispatched by a switch (a jump table without the fix), then a
 * 3x3 one (the direct kernel's dispatch), as in the model of regress seed 1191. */
static const char k_graph[] = "vta-graph opset=13\n"
                              "input %x f32[1,16,8,8]\n"
                              "const %w f32[20,16,1,1] = [%W1]\n"
                              "const %v f32[20,20,3,3] = [%W3]\n"
                              "%c f32[?] = Conv(%x, %w) group=1 kernel_shape=[1,1] strides=[1,1] "
                              "dilations=[1,1] pads=[0,0,0,0]\n"
                              "%y f32[?] = Conv(%c, %v) group=1 kernel_shape=[3,3] strides=[1,1] "
                              "dilations=[1,1] pads=[1,1,1,1]\n"
                              "output %y\n";

/* The graph text with its weights written out (w[k] = ((k * 7) % 13 - 6) / 16). */
static char *graph_text(float *w1, float *w3) {
  size_t cap = 1 << 20, n = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  for (const char *p = k_graph; *p; p++) {
    int which = strncmp(p, "%W1", 3) == 0 ? 1 : strncmp(p, "%W3", 3) == 0 ? 3 : 0;
    if (!which) {
      t[n++] = *p;
      continue;
    }
    int count = which == 1 ? 20 * 16 : 20 * 20 * 9;
    float *w = which == 1 ? w1 : w3;
    for (int k = 0; k < count; k++) {
      w[k] = (float)((k * 7) % 13 - 6) / 16.0f;
      n += (size_t)snprintf(t + n, cap - n, "%s%.9g", k ? ", " : "", (double)w[k]);
    }
    p += 2;
  }
  t[n] = 0;
  return t;
}

static vta_graph *compiled_graph(float *w1, float *w3) {
  char *t = graph_text(w1, w3);
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(t, strlen(t), NULL, 0, &err);
  free(t);
  if (!g) fail_msg("parse: %s", err.msg);
  if (vta_compile_graph(g, NULL, &err)) fail_msg("compile: %s", err.msg);
  return g;
}

/* The ways the compiler makes objects: a bundle's (O2), calibration's (the quick pipeline), its
 * split kernel library and nodes, a deployed model's. */
static const int k_whats[] = {VTA_CODE_OBJECT, VTA_CODE_OBJECT | VTA_CODE_QUICK,
                              VTA_CODE_OBJECT | VTA_CODE_QUICK | VTA_CODE_KERNELS_ONLY,
                              VTA_CODE_OBJECT | VTA_CODE_QUICK | VTA_CODE_NO_KERNELS};

/* An independent reading of the ELF relocations (not object_reach.c's): any of 32 bits or
 * fewer fails the test, with its type and section. */
static void expect_only_64_bit_relocations(const unsigned char *o, size_t size, int what) {
  Elf64_Ehdr eh;
  assert_true(size >= sizeof eh);
  memcpy(&eh, o, sizeof eh);
  assert_int_equal(eh.e_machine, EM_X86_64);
  Elf64_Shdr names;
  memcpy(&names, o + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof names, sizeof names);
  int relocs = 0;
  for (unsigned s = 0; s < eh.e_shnum; s++) {
    Elf64_Shdr sh;
    memcpy(&sh, o + eh.e_shoff + (size_t)s * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_RELA) continue;
    for (size_t k = 0; k + sizeof(Elf64_Rela) <= sh.sh_size; k += sizeof(Elf64_Rela)) {
      Elf64_Rela r;
      memcpy(&r, o + sh.sh_offset + k, sizeof r);
      uint32_t t = (uint32_t)ELF64_R_TYPE(r.r_info);
      relocs++;
      if (t != R_X86_64_64 && t != R_X86_64_PC64 && t != R_X86_64_GOT64 &&
          t != R_X86_64_GOTOFF64 && t != R_X86_64_GOTPC64 && t != R_X86_64_GOTPCREL64 &&
          t != R_X86_64_PLTOFF64)
        fail_msg("code (what=%d): relocation type %u in %s at 0x%llx holds fewer than 64 bits",
                 what, t, (const char *)o + names.sh_offset + sh.sh_name,
                 (unsigned long long)r.r_offset);
    }
  }
  assert_true(relocs > 0);
}

static int x86_64_host(void) {
  vta_cpu_target host;
  vta_cpu_target_host(&host);
  return strncmp(host.triple, "x86_64", 6) == 0;
}

static void test_llvm_jit_objects_hold_only_64_bit_references(void **state) {
  (void)state;
  if (!x86_64_host()) skip();
  float *w1 = malloc(20 * 16 * sizeof *w1), *w3 = malloc(20 * 20 * 9 * sizeof *w3);
  assert_true(w1 && w3);
  vta_graph *g = compiled_graph(w1, w3);
  for (size_t k = 0; k < sizeof k_whats / sizeof k_whats[0]; k++) {
    vta_cpu_code code;
    vta_error err = {0};
    if (vta_codegen_llvm_nodes(g, NULL, k_whats[k], NULL, &code, &err))
      fail_msg("codegen (what=%d): %s", k_whats[k], err.msg);
    expect_only_64_bit_relocations(code.object, code.object_size, k_whats[k]);
    char what[160];
    assert_int_equal(vta_cpu_object_short_reloc(code.object, code.object_size, what, sizeof what), 0);
    vta_cpu_code_free(&code);
  }
  vta_graph_destroy(g);
  free(w1);
  free(w3);
}

/* ---- the layout of the crash, on purpose ---- */

/* Reserves 8 GiB (where the kernel puts the next large mapping: below the libraries), fills
 * every hole above it up to the stack (not the stack's growth room) with inaccessible
 * reservations, then gives back the reservation's top page: the one hole left near the
 * libraries, with 8 GiB below it. The JIT's first mapping that fits in a page (an object's
 * read-only data: its jump tables) goes there, the larger ones (its code) below the 8 GiB. */
static void far_apart_layout(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), big = (size_t)8 << 30;
  unsigned char *r = mmap(NULL, big + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  assert_true(r != MAP_FAILED);
  FILE *f = fopen("/proc/self/maps", "r");
  assert_non_null(f);
  char line[512];
  uintptr_t prev_end = (uintptr_t)r + big + page;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= prev_end) continue;
    if (strstr(line, "[stack]")) break;
    if (lo > prev_end)
      mmap((void *)prev_end, lo - prev_end, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    prev_end = hi;
  }
  fclose(f);
  munmap(r + big, page);
}

/* The graph's output by plain C (the 1x1 convolution, then the 3x3 with zero padding). */
static void reference(const float *x, const float *w1, const float *w3, double *y) {
  static double c[20 * 64];
  for (int m = 0; m < 20; m++)
    for (int p = 0; p < 64; p++) {
      double s = 0;
      for (int i = 0; i < 16; i++) s += (double)w1[m * 16 + i] * x[i * 64 + p];
      c[m * 64 + p] = s;
    }
  for (int m = 0; m < 20; m++)
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++) {
        double s = 0;
        for (int ch = 0; ch < 20; ch++)
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
              int ii = i + a - 1, jj = j + b - 1;
              if (ii >= 0 && ii < 8 && jj >= 0 && jj < 8)
                s += w3[((m * 20 + ch) * 3 + a) * 3 + b] * c[ch * 64 + ii * 8 + jj];
            }
        y[m * 64 + i * 8 + j] = s;
      }
}

/* In the child: the calibration's way of running the graph (the quick pipeline), loaded after
 * the layout is set up; exits 0 when the output matches the reference. */
static int run_far_apart(const vta_graph *g, const float *w1, const float *w3) {
  vta_cpu_code code;
  vta_error err = {0};
  if (vta_codegen_llvm_nodes(g, NULL, VTA_CODE_OBJECT | VTA_CODE_QUICK, NULL, &code, &err)) {
    fprintf(stderr, "codegen: %s\n", err.msg);
    return 2;
  }
  far_apart_layout();
  vta_kernel_fn *fns = calloc((size_t)g->n_nodes + 1, sizeof *fns);
  vta_cpu_jit *j = fns ? vta_cpu_jit_create(&code, g, fns, &err) : NULL;
  vta_cpu_code_free(&code);
  if (!j) {
    fprintf(stderr, "jit: %s\n", err.msg);
    return 2;
  }
  void **buf = calloc((size_t)g->n_values + 1, sizeof *buf);
  for (int v = 0; v < g->n_values; v++)
    buf[v] = g->values[v].data ? g->values[v].data : calloc(1, vta_value_bytes(&g->values[v]) + 8);
  float *x = buf[g->inputs[0]];
  for (int k = 0; k < 16 * 64; k++) x[k] = (float)((k * 5) % 11 - 5) / 8.0f;
  for (int i = 0; i < g->n_nodes; i++) {
    if (!fns[i]) continue;
    int vals[VTA_KERNEL_MAX_ARGS];
    void *args[VTA_KERNEL_MAX_ARGS];
    int n = vta_kernel_args(g, i, vals, VTA_KERNEL_MAX_ARGS);
    for (int k = 0; k < n; k++) args[k] = buf[vals[k]];
    fns[i](args);
  }
  static double want[20 * 64];
  reference(x, w1, w3, want);
  const float *y = buf[g->outputs[0]];
  for (int k = 0; k < 20 * 64; k++)
    if (!(fabs(y[k] - want[k]) <= 1e-4 * (fabs(want[k]) > 1 ? fabs(want[k]) : 1))) {
      fprintf(stderr, "output %d is %.9g, expected %.9g\n", k, (double)y[k], want[k]);
      return 1;
    }
  return 0;
}

static void test_llvm_jit_runs_with_sections_far_apart(void **state) {
  (void)state;
  if (!x86_64_host()) skip();
  float *w1 = malloc(20 * 16 * sizeof *w1), *w3 = malloc(20 * 20 * 9 * sizeof *w3);
  assert_true(w1 && w3);
  vta_graph *g = compiled_graph(w1, w3);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    /* A fault must kill the child (cmocka's handlers would carry on with the tests here). */
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) signal(sigs[k], SIG_DFL);
    _exit(run_far_apart(g, w1, w3));
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  if (WIFSIGNALED(st)) fail_msg("the JIT's code died of signal %d with its sections 8 GiB apart", WTERMSIG(st));
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  vta_graph_destroy(g);
  free(w1);
  free(w3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_llvm_jit_objects_hold_only_64_bit_references),
      cmocka_unit_test(test_llvm_jit_runs_with_sections_far_apart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
