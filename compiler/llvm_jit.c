/* llvm_jit.c - loads a bundle's CPU code (LLVM bitcode) into ORC LLJIT and hands out one
 * function pointer per node.
 *
 * The design idea: the bundle carries optimised bitcode, not machine code, so the same bundle
 * runs on any host and the final instruction selection uses the running CPU. LLJIT compiles
 * the module on the first symbol lookup; libm functions the kernels call (tanhf, expf when not
 * inlined) are resolved from the running process.
 */
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

struct vta_cpu_jit {
  LLVMOrcLLJITRef jit;
};

static int jit_error(vta_error *err, LLVMErrorRef e, const char *what) {
  char *m = LLVMGetErrorMessage(e);
  vta_error_set(err, VTA_ERR_INVALID, "LLVM JIT: %s: %s", what, m);
  LLVMDisposeErrorMessage(m);
  return -1;
}

vta_cpu_jit *vta_cpu_jit_create(const vta_cpu_code *code, const vta_graph *g, vta_kernel_fn *fns,
                                vta_error *err) {
  for (int i = 0; i < g->n_nodes; i++) fns[i] = NULL;
  int any = 0;
  for (int i = 0; i < g->n_nodes; i++) any |= vta_node_needs_code(g, i);
  vta_cpu_jit *j = calloc(1, sizeof *j);
  if (!j) {
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    return NULL;
  }
  if (!any) return j;
  if (!code->bitcode || !code->size) {
    vta_error_set(err, VTA_ERR_INVALID, "the bundle has no CPU code for its %d nodes", g->n_nodes);
    free(j);
    return NULL;
  }
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&j->jit, NULL);
  if (e) {
    jit_error(err, e, "cannot create LLJIT");
    free(j);
    return NULL;
  }
  LLVMOrcDefinitionGeneratorRef gen;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(j->jit),
                                                           NULL, NULL);
  if (e) {
    jit_error(err, e, "cannot search the process for symbols");
    goto bad;
  }
  LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j->jit), gen);
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)code->bitcode,
                                                                     code->size, "vta_cpu");
  LLVMModuleRef m = NULL;
  int bad_bc = LLVMParseBitcodeInContext2(ctx, mb, &m);
  LLVMDisposeMemoryBuffer(mb);
  if (bad_bc) {
    LLVMOrcDisposeThreadSafeContext(tsc);
    vta_error_set(err, VTA_ERR_INVALID, "the bundle's CPU code is not valid LLVM bitcode");
    goto bad;
  }
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  e = LLVMOrcLLJITAddLLVMIRModule(j->jit, LLVMOrcLLJITGetMainJITDylib(j->jit), tsm);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    jit_error(err, e, "cannot add the module");
    goto bad;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!vta_node_needs_code(g, i)) continue;
    char name[64];
    vta_kernel_name(i, name, sizeof name);
    LLVMOrcExecutorAddress addr = 0;
    e = LLVMOrcLLJITLookup(j->jit, &addr, name);
    if (e) {
      jit_error(err, e, name);
      goto bad;
    }
    fns[i] = (vta_kernel_fn)(uintptr_t)addr;
  }
  return j;
bad:
  vta_cpu_jit_destroy(j);
  return NULL;
}

void vta_cpu_jit_destroy(vta_cpu_jit *j) {
  if (!j) return;
  if (j->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->jit);
    if (e) LLVMConsumeError(e);
  }
  free(j);
}
