/* llvm_jit.c - loads a bundle's CPU code into ORC LLJIT and hands out one function pointer
 * per node.
 *
 * The design idea: a bundle carries the code twice, as a native object for the machine it was
 * compiled on and as optimised bitcode. On that machine (same triple, CPU name and features)
 * loading is only linking the object, a few milliseconds; anywhere else the bitcode is
 * compiled for the running CPU, so the same bundle still runs (and so is an x86-64 object with
 * 32-bit references, which RuntimeDyld cannot place safely: object_reach.c). libm functions
 * the kernels call (expf, tanhf) and memset/memcpy are resolved from the running process.
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

static int selected(const vta_graph *g, const unsigned char *only, int i) {
  return vta_node_needs_code(g, i) && (!only || only[i]);
}

vta_cpu_jit *vta_cpu_jit_create(const vta_cpu_code *code, const vta_graph *g, vta_kernel_fn *fns,
                                vta_error *err) {
  return vta_cpu_jit_create_for(code, g, NULL, fns, err);
}

vta_cpu_jit *vta_cpu_jit_create_for(const vta_cpu_code *code, const vta_graph *g,
                                    const unsigned char *only, vta_kernel_fn *fns, vta_error *err) {
  for (int i = 0; fns && i < g->n_nodes; i++) fns[i] = NULL;
  vta_cpu_jit *j = calloc(1, sizeof *j);
  if (!j) {
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    return NULL;
  }
  if (vta_cpu_jit_add(j, code, g, only, fns, err)) {
    vta_cpu_jit_destroy(j);
    return NULL;
  }
  return j;
}

/* The LLJIT, made on first use, with the process's symbols (libm, memset) visible to it. */
static int jit_ready(vta_cpu_jit *j, vta_error *err) {
  if (j->jit) return 0;
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&j->jit, NULL);
  if (e) {
    j->jit = NULL;
    return jit_error(err, e, "cannot create LLJIT");
  }
  LLVMOrcDefinitionGeneratorRef gen;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(j->jit),
                                                           NULL, NULL);
  if (e) return jit_error(err, e, "cannot search the process for symbols");
  LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j->jit), gen);
  return 0;
}

int vta_cpu_jit_add(vta_cpu_jit *j, const vta_cpu_code *code, const vta_graph *g,
                    const unsigned char *only, vta_kernel_fn *fns, vta_error *err) {
  int any = !fns; /* no fns: a library of kernels other code calls, added as it is */
  for (int i = 0; fns && i < g->n_nodes; i++) any |= selected(g, only, i);
  if (!any) return 0;
  if (!code->object && !code->bitcode)
    return vta_error_set(err, VTA_ERR_INVALID, "the bundle has no CPU code for its %d nodes", g->n_nodes);
  if (jit_ready(j, err)) return -1;
  LLVMErrorRef e;
  vta_cpu_target host;
  vta_cpu_target_host(&host);
  int native = code->object && code->object_size &&
               strcmp(host.triple, code->target.triple) == 0 &&
               strcmp(host.cpu, code->target.cpu) == 0 &&
               strcmp(host.features, code->target.features) == 0;
  /* An x86-64 object with 32-bit references (jump tables, from a bundle written before the
   * code generator turned them off) is not linked: RuntimeDyld may map its sections too far
   * apart for them and would truncate them silently (object_reach.c). Its bitcode is compiled
   * here instead, without jump tables. */
  char short_ref[160] = "";
  int x86 = strncmp(host.triple, "x86_64", 6) == 0;
  if (native && x86 &&
      vta_cpu_object_short_reloc(code->object, code->object_size, short_ref, sizeof short_ref) > 0)
    native = 0;
  if (native) {
    LLVMMemoryBufferRef ob = LLVMCreateMemoryBufferWithMemoryRangeCopy(
        (const char *)code->object, code->object_size, "vta_cpu.o");
    e = LLVMOrcLLJITAddObjectFile(j->jit, LLVMOrcLLJITGetMainJITDylib(j->jit), ob);
    if (e) return jit_error(err, e, "cannot add the native object");
    goto lookup;
  }
  if ((!code->bitcode || !code->size) && short_ref[0])
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "the bundle's CPU object has a 32-bit reference (%s) the JIT cannot "
                         "place safely, and no bitcode to compile instead: recompile the model "
                         "with this version", short_ref);
  if (!code->bitcode || !code->size)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "the CPU code is a native object for %s (cpu %s) without bitcode; this "
                         "machine is %s (cpu %s) or has other CPU features: recompile the model here",
                         code->target.triple, code->target.cpu, host.triple, host.cpu);
  /* Bitcode is portable across CPUs of one architecture, not across architectures (the data
   * layout and the intrinsics differ). */
  size_t arch = strcspn(host.triple, "-");
  if (code->target.triple[0] &&
      (strncmp(host.triple, code->target.triple, arch) != 0 || code->target.triple[arch] != '-'))
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "the CPU code was generated for %s; this machine is %s: recompile the model here",
                         code->target.triple, host.triple);
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)code->bitcode,
                                                                     code->size, "vta_cpu");
  LLVMModuleRef m = NULL;
  int bad_bc = LLVMParseBitcodeInContext2(ctx, mb, &m);
  LLVMDisposeMemoryBuffer(mb);
  if (bad_bc) {
    LLVMOrcDisposeThreadSafeContext(tsc);
    return vta_error_set(err, VTA_ERR_INVALID, "the bundle's CPU code is not valid LLVM bitcode");
  }
  /* The functions carry the compiling machine's CPU and features; this one may lack some of
   * them (AVX-512 code on an AVX2 machine would fault), so they are replaced by the host's.
   * The vectors' width stays; LLVM splits them into what this CPU has. */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-cpu", 10);
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-features", 15);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(ctx, "target-cpu", 10, host.cpu, (unsigned)strlen(host.cpu)));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(ctx, "target-features", 15, host.features,
                                                      (unsigned)strlen(host.features)));
    /* LLJIT compiles x86-64 code in the large code model, whose jump tables LLVM 14 still
     * writes with 32-bit offsets (see codegen_llvm.c); older bundles' bitcode lacks this. */
    if (x86)
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(ctx, "no-jump-tables", 14, "true", 4));
  }
  LLVMSetTarget(m, host.triple);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  e = LLVMOrcLLJITAddLLVMIRModule(j->jit, LLVMOrcLLJITGetMainJITDylib(j->jit), tsm);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    return jit_error(err, e, "cannot add the module");
  }
lookup:
  for (int i = 0; fns && i < g->n_nodes; i++) {
    if (!selected(g, only, i)) continue;
    char name[64];
    vta_kernel_name(i, name, sizeof name);
    LLVMOrcExecutorAddress addr = 0;
    e = LLVMOrcLLJITLookup(j->jit, &addr, name);
    if (e) return jit_error(err, e, name);
    fns[i] = (vta_kernel_fn)(uintptr_t)addr;
  }
  return 0;
}

void vta_cpu_jit_destroy(vta_cpu_jit *j) {
  if (!j) return;
  if (j->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->jit);
    if (e) LLVMConsumeError(e);
  }
  free(j);
}
