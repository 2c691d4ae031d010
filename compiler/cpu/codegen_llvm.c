/* codegen_llvm.c - CPU code generation with the LLVM C API: one wrapper function per graph
 * node, whose body the node's operator family emits (compiler/cpu/op_<family>.c), the
 * vectorised elementwise walk that runs fused epilogues, one optimised module per graph.
 *
 * The design idea: compile time must stay proportional to the number of distinct operations,
 * not to the size of the network, and the heavy operators must still run near the machine's
 * peak. So every shape is known at compile time and baked into each node's code as
 * constants, but the code that does the arithmetic for convolutions and matrix products is
 * shared: a node's wrapper calls the GEMM, im2col or depthwise kernel with its sizes. Those
 * kernels are written with explicit vectors of the target's width, and so is the elementwise
 * code (standalone elementwise nodes and the fused epilogues): nothing relies on the loop
 * vectoriser, so the module is optimised with a light pipeline (O2 without the unroller and
 * vectorisers, which on constant-bound loop nests produced huge, slow code) and compiles to a
 * native object in a fraction of a second. The object goes into the bundle next to portable
 * bitcode; loading a bundle on the CPU it was compiled for only links the object.
 *
 * A kernel is "void vta_k<N>(void **args)" (see compiler.h for the argument order); it calls
 * an internal body whose pointer parameters are noalias, so after inlining LLVM knows the
 * buffers do not overlap. Leading Relu/Clip epilogue steps are applied by the GEMM and
 * depthwise kernels to the registers before the store (op_conv.c); the remaining steps run in
 * one vectorised pass over the (cache-warm) output (cg_emit_pointwise, with the unary and
 * binary families' steps).
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"
#include "compiler/cpu/codegen_local.h"
#include "compiler/cpu/op_family.h"
#include "vta/model.h"

/* A math function of one or two floats: the intrinsic's vector form for vectors, except libm
 * functions (no vector form), which are called once per lane. */
LLVMValueRef cg_fcall(cg *c, const char *name, int n, LLVMValueRef x, LLVMValueRef y) {
  LLVMValueRef a[2] = {x, y};
  if (!c->vec) return cg_call(c, name, c->f32, n, a);
  size_t len = strlen(name);
  if (strncmp(name, "llvm.", 5) == 0 && len > 4 && strcmp(name + len - 4, ".f32") == 0) {
    char vname[64];
    snprintf(vname, sizeof vname, "%.*s.v%df32", (int)(len - 4), name, c->vw);
    return cg_call(c, vname, c->vf, n, a);
  }
  LLVMValueRef v = LLVMGetUndef(c->vf);
  for (int k = 0; k < c->vw; k++) {
    LLVMValueRef lane = LLVMConstInt(c->i32, (unsigned)k, 0);
    LLVMValueRef s[2] = {LLVMBuildExtractElement(c->b, x, lane, ""),
                         n > 1 ? LLVMBuildExtractElement(c->b, y, lane, "") : NULL};
    v = LLVMBuildInsertElement(c->b, v, cg_call(c, name, c->f32, n, s), lane, "");
  }
  return v;
}
LLVMValueRef cg_fmax(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOGT, a, b, ""), a, b, "");
}
LLVMValueRef cg_fmin(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, a, b, ""), a, b, "");
}
LLVMValueRef cg_fclamp(cg *c, LLVMValueRef x, double lo, double hi) {
  if (lo > -INFINITY) x = fmax_(c, x, F(c, lo));
  if (hi < INFINITY) x = fmin_(c, x, F(c, hi));
  return x;
}

float cg_attr_f(int n, const vta_attr *a, const char *name, float d) {
  for (int i = 0; i < n; i++)
    if (strcmp(a[i].name, name) == 0) return a[i].kind == VTA_ATTR_FLOAT ? a[i].f : (float)a[i].i;
  return d;
}

/* ---- argument bookkeeping ---- */


LLVMValueRef cg_in(cg *c, int k) { return in_p(c, k); }
LLVMValueRef cg_out(cg *c, int k) { return c->argp[c->n_args - c->nd->n_out + k]; }

/* ---- pointwise loop nests with broadcasting, vectorised along the innermost dimension ---- */


/* The node's epilogue steps from `first` on, applied to x (scalar or vector, c->vec says);
 * operand k of the epilogue is read by rd(k). */
typedef LLVMValueRef (*operand_fn)(cg *c, int k, void *ctx);
static LLVMValueRef apply_epilogue(cg *c, LLVMValueRef x, int first, int ea, operand_fn rd, void *ctx) {
  const vta_node *nd = c->nd;
  for (int k = 0; k < nd->n_epi; k++) {
    const vta_epilogue *e = &nd->epi[k];
    if (e->arg >= 0) {
      if (k >= first) {
        LLVMValueRef y = rd(c, ea, ctx);
        x = e->arg_left ? cg_binary_step(c, e->op, y, x) : cg_binary_step(c, e->op, x, y);
      }
      ea++;
    } else if (k >= first) {
      x = cg_unary_step(c, e->op, e->n_attrs, e->attrs, x);
    }
  }
  return x;
}

typedef struct {
  LLVMValueRef *opp, *off;
  int64_t *inner;   /* innermost stride of each operand: 0 (broadcast) or 1 */
  LLVMValueRef j, mask;
} pw_ctx;

static LLVMValueRef pw_read(cg *c, int k, void *vctx) {
  pw_ctx *p = vctx;
  LLVMValueRef at = p->inner[k] ? add(c, p->off[k], p->j) : p->off[k];
  if (!c->vec) return load(c, p->opp[k], at);
  if (!p->inner[k]) return cg_splat(c, load(c, p->opp[k], at));
  return p->mask ? cg_vmload(c, p->opp[k], at, p->mask) : cg_vload(c, p->opp[k], at);
}

void cg_emit_pointwise(cg *c, int with_main, int first) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = V(c, nd->out[0]);
  int nops = 0, opv[CG_MAX_ARGS];
  LLVMValueRef opp[CG_MAX_ARGS + 1];
  if (with_main) {
    for (int k = 0; k < nd->n_in; k++) opv[nops] = nd->in[k], opp[nops++] = in_p(c, k);
  } else {
    opv[nops] = nd->out[0], opp[nops++] = out_p(c);
  }
  int first_epi = nops;
  for (int k = 0; k < nd->n_epi && nops < CG_MAX_ARGS; k++)
    if (nd->epi[k].arg >= 0) opv[nops] = nd->epi[k].arg, opp[nops++] = argp_of(c, nd->epi[k].arg);
  /* Strides, then coalesce adjacent dimensions that are contiguous for every operand. */
  int r = o->rank;
  int64_t dims[VTA_MAX_RANK], st[CG_MAX_ARGS + 1][VTA_MAX_RANK];
  for (int d = 0; d < r; d++) dims[d] = o->dims[d];
  for (int k = 0; k < nops; k++) bstrides(V(c, opv[k]), r, st[k]);
  bstrides(o, r, st[nops]);
  int64_t cd[VTA_MAX_RANK], cs[CG_MAX_ARGS + 1][VTA_MAX_RANK];
  int cr = 0;
  for (int d = 0; d < r; d++) {
    if (dims[d] == 1) continue;
    int merge = cr > 0;
    for (int k = 0; k <= nops && merge; k++)
      if (cs[k][cr - 1] != st[k][d] * dims[d]) merge = 0;
    if (merge) {
      cd[cr - 1] *= dims[d];
      for (int k = 0; k <= nops; k++) cs[k][cr - 1] = st[k][d];
    } else {
      cd[cr] = dims[d];
      for (int k = 0; k <= nops; k++) cs[k][cr] = st[k][d];
      cr++;
    }
  }
  /* The innermost dimension is the vector loop (its strides are 0 or 1, see bstrides). */
  int64_t n = 1, inner[CG_MAX_ARGS + 1];
  if (cr > 0) {
    n = cd[--cr];
    for (int k = 0; k <= nops; k++) inner[k] = cs[k][cr];
  } else {
    for (int k = 0; k <= nops; k++) inner[k] = 0;
  }
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef off[CG_MAX_ARGS + 1];
  for (int k = 0; k <= nops; k++) off[k] = C(c, 0);
  for (int d = 0; d < cr; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, cd[d]));
    for (int k = 0; k <= nops; k++)
      if (cs[k][d]) off[k] = add(c, off[k], mul(c, i, cs[k][d]));
  }
  int vec = n >= 4 && inner[nops] == 1;
  loop_t lj;
  LLVMValueRef j = cg_loop_open(c, &lj, C(c, 0), C(c, n), vec ? c->vw : 1);
  pw_ctx px = {opp, off, inner, j, NULL};
  /* Full vectors, and a masked copy of the same code for the last partial one. */
  for (int part = 0; part < (vec ? 2 : 1); part++) {
    LLVMBasicBlockRef after = NULL;
    if (vec) {
      LLVMValueRef rem = LLVMBuildNSWSub(c->b, C(c, n), j, "");
      LLVMValueRef full = LLVMBuildICmp(c->b, LLVMIntSGE, rem, C(c, c->vw), "");
      after = cg_if_open(c, part ? LLVMBuildNot(c->b, full, "") : full);
      px.mask = part ? cg_vmask(c, rem) : NULL;
      c->vec = 1;
    }
    LLVMValueRef x;
    if (with_main) {
      LLVMValueRef a = pw_read(c, 0, &px);
      if (vta_op_kind(nd->op) == VTA_OPK_BINARY)
        x = cg_binary_step(c, nd->op, a, pw_read(c, 1, &px));
      else
        x = cg_unary_step(c, nd->op, nd->n_attrs, nd->attrs, a);
    } else {
      x = pw_read(c, 0, &px);
    }
    x = apply_epilogue(c, x, first, first_epi, pw_read, &px);
    LLVMValueRef at = add(c, off[nops], j);
    if (!vec)
      store(c, x, out_p(c), at);
    else if (px.mask)
      cg_vmstore(c, x, out_p(c), at, px.mask);
    else
      cg_vstore(c, x, out_p(c), at);
    c->vec = 0;
    if (after) cg_if_close(c, after);
  }
  cg_loop_close(c, &lj);
  for (int d = cr - 1; d >= 0; d--) loop_close(c, &lp[d]);
  c->epi_done = nd->n_epi;
}


/* The LLVM type data movement moves a node's elements in (c->et while it is emitted: f32, or
 * the integer type of the same size), so that it works on any element type. */
static LLVMTypeRef elt_of(cg *c, vta_dtype t) {
  switch (vta_dtype_size(t)) {
  case 1: return c->i8;
  case 2: return LLVMInt16TypeInContext(c->ctx);
  case 8: return c->i64;
  default: return t == VTA_DT_F32 ? c->f32 : c->i32;
  }
}

/* ---- per-node driver ---- */

/* The code is the families': the core operators (BatchNormalization, Dropout) have none. */
int vta_codegen_supports(vta_gop op) {
  const vta_op_family *fam = vta_op_family_of(op);
  return fam && fam->emit != NULL;
}

int vta_codegen_supports_node(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  if (!vta_codegen_supports(nd->op)) return 0;
  const vta_op_family *fam = vta_op_family_of(nd->op);
  return fam->supports ? fam->supports(g, i) : 1;
}

int cg_node_f32(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  int all_f32 = 1;
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0) all_f32 &= g->values[nd->in[k]].dtype == VTA_DT_F32;
  for (int k = 0; k < nd->n_out; k++) all_f32 &= g->values[nd->out[k]].dtype == VTA_DT_F32;
  return all_f32;
}

int cg_node_moves(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  int same = 1;
  vta_dtype t = g->values[nd->out[0]].dtype;
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0) same &= g->values[nd->in[k]].dtype == t;
  return same && nd->n_epi == 0;
}

int vta_node_needs_code(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  /* Several outputs only for the families' operators (Split); every output present. */
  if (nd->n_out != 1 && !vta_op_family_of(nd->op)) return 0;
  int64_t n = 0;
  for (int k = 0; k < nd->n_out; k++) {
    if (nd->out[k] < 0) return 0;
    n += vta_value_count(&g->values[nd->out[k]]);
  }
  return nd->n_out >= 1 && n > 0;
}

int vta_kernel_args(const vta_graph *g, int i, int *values, int cap) {
  const vta_node *nd = &g->nodes[i];
  int n = 0;
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0) {
      if (n < cap) values[n] = nd->in[k];
      n++;
    }
  for (int k = 0; k < nd->n_epi; k++)
    if (nd->epi[k].arg >= 0) {
      if (n < cap) values[n] = nd->epi[k].arg;
      n++;
    }
  for (int k = 0; k < nd->n_out; k++) {
    if (n < cap) values[n] = nd->out[k];
    n++;
  }
  return n;
}

void vta_kernel_name(int node, char *buf, size_t size) { snprintf(buf, size, "vta_k%d", node); }


static int emit_node(cg *c, int i) {
  const vta_node *nd = &c->g->nodes[i];
  c->nd = nd;
  c->node = i;
  c->n_args = vta_kernel_args(c->g, i, c->argv, CG_MAX_ARGS);
  if (c->n_args > CG_MAX_ARGS) {
    char w[300];
    return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s has %d operands; the CPU code generator "
                         "takes at most %d", vta_node_describe(c->g, i, w, sizeof w), c->n_args,
                         CG_MAX_ARGS);
  }
  /* body(float *noalias p0, ...) */
  LLVMTypeRef ps[CG_MAX_ARGS];
  for (int k = 0; k < c->n_args; k++) ps[k] = c->fptr;
  LLVMTypeRef bt = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, (unsigned)c->n_args, 0);
  char name[64], bname[80];
  vta_kernel_name(i, name, sizeof name);
  snprintf(bname, sizeof bname, "%s.body", name);
  LLVMValueRef body = LLVMAddFunction(c->mod, bname, bt);
  LLVMSetLinkage(body, LLVMInternalLinkage);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  unsigned nocapture = LLVMGetEnumAttributeKindForName("nocapture", 9);
  for (int k = 0; k < c->n_args; k++) {
    /* A value passed twice (Add(x, x)) is read-only, so noalias still holds for writes. */
    LLVMAddAttributeAtIndex(body, (unsigned)(k + 1), LLVMCreateEnumAttribute(c->ctx, noalias, 0));
    LLVMAddAttributeAtIndex(body, (unsigned)(k + 1), LLVMCreateEnumAttribute(c->ctx, nocapture, 0));
    c->argp[k] = LLVMGetParam(body, (unsigned)k);
  }
  cg_begin_function(c, body);
  c->epi_done = 0;
  c->et = elt_of(c, V(c, nd->out[0])->dtype);
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (!fam || !fam->emit) {
    char w[300];
    return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: no CPU code generator for %s",
                         vta_node_describe(c->g, i, w, sizeof w), vta_op_name(nd->op));
  }
  if (fam->emit(c)) return -1;
  if (nd->n_epi > c->epi_done) cg_emit_pointwise(c, 0, c->epi_done);
  cg_end_function(c);
  /* The exported wrapper: void vta_kN(void **args). */
  LLVMTypeRef wt = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), &c->vptr, 1, 0);
  LLVMValueRef wf = LLVMAddFunction(c->mod, name, wt);
  LLVMBasicBlockRef wb = LLVMAppendBasicBlockInContext(c->ctx, wf, "entry");
  LLVMPositionBuilderAtEnd(c->b, wb);
  LLVMValueRef av = LLVMGetParam(wf, 0), cargs[CG_MAX_ARGS];
  for (int k = 0; k < c->n_args; k++) {
    LLVMValueRef idx = C(c, k);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(c->b, c->fptr, av, &idx, 1, "");
    cargs[k] = LLVMBuildLoad2(c->b, c->fptr, p, "");
  }
  LLVMBuildCall2(c->b, bt, body, cargs, (unsigned)c->n_args, "");
  LLVMBuildRetVoid(c->b);
  return 0;
}

/* ---- targets, the pass pipeline, output ---- */

/* LLVM's target registry is global: it is filled once, before any thread generates code
 * (code generation itself runs in per-call contexts and may run on several threads). */
static void init_native(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
}
static void init_all(void) {
  LLVMInitializeAllTargetInfos();
  LLVMInitializeAllTargets();
  LLVMInitializeAllTargetMCs();
  LLVMInitializeAllAsmPrinters();
}
static void init_llvm(int all_targets) {
  static pthread_once_t native_once = PTHREAD_ONCE_INIT, all_once = PTHREAD_ONCE_INIT;
  pthread_once(&native_once, init_native);
  if (all_targets) pthread_once(&all_once, init_all);
}

int vta_cpu_target_host(vta_cpu_target *t) {
  init_llvm(0);
  char *triple = LLVMGetDefaultTargetTriple(), *cpu = LLVMGetHostCPUName(), *feat = LLVMGetHostCPUFeatures();
  snprintf(t->triple, sizeof t->triple, "%s", triple);
  snprintf(t->cpu, sizeof t->cpu, "%s", cpu);
  snprintf(t->features, sizeof t->features, "%s", feat);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(feat);
  return 0;
}

/* Vector width from the features: 512-bit with AVX-512F, 256-bit with AVX, else 128-bit
 * (SSE2, NEON, and what LLVM splits correctly on anything narrower). */
static int vector_width(const vta_cpu_target *t) {
  if (strstr(t->features, "+avx512f")) return 16;
  if (strstr(t->features, "+avx")) return 8;
  return 4;
}

/* x86-64 objects use the large code model (target_machine says why). */
static int large_code_model(const vta_cpu_target *t) { return strncmp(t->triple, "x86_64", 6) == 0; }

static LLVMTargetMachineRef target_machine(const vta_cpu_target *t, vta_error *err) {
  init_llvm(1);
  LLVMTargetRef tr;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(t->triple, &tr, &msg)) {
    vta_error_set(err, VTA_ERR_UNSUPPORTED, "no LLVM target for triple '%s': %s", t->triple,
                  msg ? msg : "");
    LLVMDisposeMessage(msg);
    return NULL;
  }
  /* The host's CPU name may be "generic" (LLVM 14 does not know every recent CPU): the
   * features are passed explicitly, or the code would target the baseline instruction set.
   * x86-64 objects use the large code model: LLJIT places them wherever the process's memory
   * map allows, which with address-space randomisation can be more than 2 GiB from the
   * process's own functions they call, out of reach of the small model's 32-bit relative
   * calls (calibration crashed at random through such a call; it never did with randomisation
   * off). */
  LLVMCodeModel model = large_code_model(t) ? LLVMCodeModelLarge : LLVMCodeModelDefault;
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(tr, t->triple, t->cpu, t->features,
                                                    LLVMCodeGenLevelDefault, LLVMRelocPIC, model);
  if (!tm)
    vta_error_set(err, VTA_ERR_UNSUPPORTED, "cannot create an LLVM target machine for '%s' (cpu '%s')",
                  t->triple, t->cpu);
  return tm;
}

static unsigned char *copy_buffer(LLVMMemoryBufferRef mb, size_t *n) {
  *n = LLVMGetBufferSize(mb);
  unsigned char *p = malloc(*n ? *n : 1);
  if (p) memcpy(p, LLVMGetBufferStart(mb), *n);
  return p;
}

int vta_codegen_llvm_for(const vta_graph *g, const vta_cpu_target *target, int what,
                         vta_cpu_code *out, vta_error *err) {
  return vta_codegen_llvm_nodes(g, target, what, NULL, out, err);
}

/* What a deployed model's object defines beside the kernels (vta_codegen_llvm_deploy). */
typedef struct deploy_info {
  const unsigned char *plan;
  size_t plan_size;
  const char *symbol;
} deploy_info;

/* The deployed model's image (include/vta/model.h, vta_model_image): the plan as read-only
 * data, the kernel table, and the one exported symbol pointing at both. Every function becomes
 * internal, so that several models link into one program without clashing. */
static void emit_deploy(cg *c, const deploy_info *d) {
  int n = c->g->n_nodes;
  for (LLVMValueRef f = LLVMGetFirstFunction(c->mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMTypeRef pt = LLVMArrayType(c->i8, (unsigned)d->plan_size);
  LLVMValueRef plan = LLVMAddGlobal(c->mod, pt, "vta.plan");
  LLVMSetInitializer(plan, LLVMConstStringInContext(c->ctx, (const char *)d->plan, (unsigned)d->plan_size, 1));
  LLVMSetGlobalConstant(plan, 1);
  LLVMSetLinkage(plan, LLVMInternalLinkage);
  LLVMSetAlignment(plan, 16);
  LLVMValueRef *fns = calloc((size_t)n + 1, sizeof *fns);
  if (!fns) return;
  for (int i = 0; i < n; i++) {
    char name[64];
    vta_kernel_name(i, name, sizeof name);
    LLVMValueRef f = vta_node_needs_code(c->g, i) ? LLVMGetNamedFunction(c->mod, name) : NULL;
    fns[i] = f ? LLVMConstBitCast(f, c->i8ptr) : LLVMConstNull(c->i8ptr);
  }
  LLVMTypeRef kt = LLVMArrayType(c->i8ptr, (unsigned)n);
  LLVMValueRef table = LLVMAddGlobal(c->mod, kt, "vta.kernels");
  LLVMSetInitializer(table, LLVMConstArray(c->i8ptr, fns, (unsigned)n));
  LLVMSetGlobalConstant(table, 1);
  LLVMSetLinkage(table, LLVMInternalLinkage);
  free(fns);
  LLVMTypeRef i8pp = LLVMPointerType(c->i8ptr, 0);
  LLVMTypeRef fields[5] = {c->i32, c->i32, c->i8ptr, c->i64, i8pp};
  LLVMTypeRef it = LLVMStructTypeInContext(c->ctx, fields, 5, 0);
  LLVMValueRef vals[5] = {LLVMConstInt(c->i32, VTA_MODEL_ABI, 0), LLVMConstInt(c->i32, (unsigned long long)n, 0),
                          LLVMConstBitCast(plan, c->i8ptr), LLVMConstInt(c->i64, d->plan_size, 0),
                          LLVMConstBitCast(table, i8pp)};
  LLVMValueRef img = LLVMAddGlobal(c->mod, it, d->symbol);
  LLVMSetInitializer(img, LLVMConstNamedStruct(it, vals, 5));
  LLVMSetGlobalConstant(img, 1);
}

static int generate(const vta_graph *g, const vta_cpu_target *target, int what, const unsigned char *only,
                    const deploy_info *deploy, vta_cpu_code *out, vta_error *err);

int vta_codegen_llvm_nodes(const vta_graph *g, const vta_cpu_target *target, int what,
                           const unsigned char *only, vta_cpu_code *out, vta_error *err) {
  return generate(g, target, what, only, NULL, out, err);
}

int vta_codegen_llvm_deploy(const vta_graph *g, const vta_cpu_target *target, const unsigned char *plan,
                            size_t plan_size, const char *symbol, vta_cpu_code *out, vta_error *err) {
  if (plan_size > 0xffffffffu)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "the model's plan is %zu bytes; a deployed model holds "
                         "at most 4 GiB", plan_size);
  deploy_info d = {plan, plan_size, symbol};
  return generate(g, target, VTA_CODE_OBJECT, NULL, &d, out, err);
}

static int generate(const vta_graph *g, const vta_cpu_target *target, int what, const unsigned char *only,
                    const deploy_info *deploy, vta_cpu_code *out, vta_error *err) {
  memset(out, 0, sizeof *out);
  vta_cpu_target host;
  if (!target) {
    vta_cpu_target_host(&host);
    target = &host;
  }
  out->target = *target;
  cg c;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.err = err;
  c.vw = vector_width(target);
  c.ctx = LLVMContextCreate();
  c.mod = LLVMModuleCreateWithNameInContext("vta_cpu", c.ctx);
  c.b = LLVMCreateBuilderInContext(c.ctx);
  c.f32 = LLVMFloatTypeInContext(c.ctx);
  c.i64 = LLVMInt64TypeInContext(c.ctx);
  c.i32 = LLVMInt32TypeInContext(c.ctx);
  c.i8 = LLVMInt8TypeInContext(c.ctx);
  c.i1 = LLVMInt1TypeInContext(c.ctx);
  c.fptr = LLVMPointerType(c.f32, 0);
  c.vptr = LLVMPointerType(c.fptr, 0);
  c.i8ptr = LLVMPointerType(c.i8, 0);
  c.vf = LLVMVectorType(c.f32, (unsigned)c.vw);
  c.vfptr = LLVMPointerType(c.vf, 0);
  c.kernel_mode = what & VTA_CODE_KERNELS_ONLY ? CG_KERNELS_EXPORT
                  : what & VTA_CODE_NO_KERNELS ? CG_KERNELS_IMPORT : CG_KERNELS_OWN;
  int rc = 0;
  LLVMTargetMachineRef tm = target_machine(target, err);
  if (!tm) rc = -1;
  if (!rc) {
    LLVMSetTarget(c.mod, target->triple);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(c.mod, td);
    LLVMDisposeTargetData(td);
    /* One scratch buffer for the whole module, sized for the largest need. */
    for (int i = 0; i < g->n_nodes; i++) {
      int64_t s = vta_node_needs_code(g, i) && (!only || only[i]) ? cg_scratch_need(g, i, c.vw) : 0;
      if (s > c.scratch_floats) c.scratch_floats = s;
    }
    LLVMTypeRef st = LLVMArrayType(c.f32, (unsigned)(c.scratch_floats ? c.scratch_floats : 1));
    c.scratch = LLVMAddGlobal(c.mod, st, "vta.scratch");
    LLVMSetInitializer(c.scratch, LLVMConstNull(st));
    LLVMSetLinkage(c.scratch, LLVMInternalLinkage);
    LLVMSetAlignment(c.scratch, 64);
  }
  for (int i = 0; i < g->n_nodes && !rc; i++)
    if (vta_node_needs_code(g, i) && (!only || only[i])) rc = emit_node(&c, i);
  /* A kernel library keeps the kernels the nodes called and not the nodes. */
  for (int i = 0; i < g->n_nodes && !rc && (what & VTA_CODE_KERNELS_ONLY); i++) {
    char name[64], bname[80];
    vta_kernel_name(i, name, sizeof name);
    snprintf(bname, sizeof bname, "%s.body", name);
    LLVMValueRef f = LLVMGetNamedFunction(c.mod, name), b = LLVMGetNamedFunction(c.mod, bname);
    if (f) LLVMDeleteFunction(f);
    if (b) LLVMDeleteFunction(b);
  }
  if (!rc && deploy) emit_deploy(&c, deploy);
  char *msg = NULL;
  if (!rc && LLVMVerifyModule(c.mod, LLVMReturnStatusAction, &msg)) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "internal error: generated LLVM IR is invalid: %.600s", msg);
  }
  if (msg) LLVMDisposeMessage(msg);
  if (!rc) {
    /* Every function gets the target's CPU and features so that code generated later from
     * the bitcode (the JIT on another machine of the same triple) matches the optimiser.
     * With the large code model, no jump tables either: LLVM 14 still writes their entries
     * as 32-bit offsets from .rodata to .text (R_X86_64_PC32), which the JIT's RuntimeDyld
     * truncates silently when it maps the two sections more than 2 GiB apart. That happened:
     * the `model` workload of `vta regress` crashed now and then (seed 1191 on vta_default,
     * fsim) jumping 8 GiB away from the 1x1 convolution kernel's remainder dispatch, into
     * the simulated device memory its parent process holds (object_reach.c). The attribute
     * travels in the bitcode too, so the JIT's own compiles of it obey it. */
    for (LLVMValueRef f = LLVMGetFirstFunction(c.mod); f; f = LLVMGetNextFunction(f)) {
      if (LLVMIsDeclaration(f)) continue;
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c.ctx, "target-cpu", 10, target->cpu,
                                                        (unsigned)strlen(target->cpu)));
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c.ctx, "target-features", 15, target->features,
                                                        (unsigned)strlen(target->features)));
      if (large_code_model(target))
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(c.ctx, "no-jump-tables", 14, "true", 4));
    }
    /* The kernels are vectorised by construction: the loop vectoriser, SLP and the unroller
     * only cost compile time here (with them, O3 took 2.5 s on PP-OCR's classifier and fully
     * unrolled constant loop nests into slower code). */
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(po, 0);
    LLVMPassBuilderOptionsSetSLPVectorization(po, 0);
    LLVMPassBuilderOptionsSetLoopUnrolling(po, 0);
    /* Code that runs only a few times (calibration) gets the passes that matter for kernels
     * built this way - promoting the stack slots of loop counters and accumulators, common
     * subexpressions, invariant address arithmetic hoisted out of the loops - and not the
     * rest of O2: its compile takes a third less, and it runs as fast on ResNet-18. */
    const char *pipeline = what & VTA_CODE_QUICK
                               ? "function(sroa,early-cse,simplifycfg,loop-mssa(licm),instcombine)"
                               : "default<O2>";
    LLVMErrorRef e = LLVMRunPasses(c.mod, pipeline, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
      char *m = LLVMGetErrorMessage(e);
      rc = vta_error_set(err, VTA_ERR_INVALID, "LLVM optimisation failed: %s", m);
      LLVMDisposeErrorMessage(m);
    }
  }
  if (!rc && (what & VTA_CODE_BITCODE)) {
    LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(c.mod);
    out->bitcode = copy_buffer(mb, &out->size);
    LLVMDisposeMemoryBuffer(mb);
    if (!out->bitcode) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (!rc && (what & VTA_CODE_OBJECT)) {
    LLVMMemoryBufferRef mb = NULL;
    char *m = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, c.mod, LLVMObjectFile, &m, &mb)) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "LLVM cannot generate code for '%s': %s",
                         target->triple, m ? m : "");
    } else {
      out->object = copy_buffer(mb, &out->object_size);
      LLVMDisposeMemoryBuffer(mb);
      if (!out->object) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    }
    /* The large code model's promise, checked: no reference in the object needs its target
     * within 2 GiB (an LLVM upgrade that brings back a 32-bit form fails here, every time,
     * instead of crashing in the JIT now and then). */
    char what[160];
    if (!rc && large_code_model(target) &&
        vta_cpu_object_short_reloc(out->object, out->object_size, what, sizeof what) > 0)
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "internal error: the CPU code for %s has a 32-bit reference (%s), which "
                         "the JIT cannot resolve when it maps the object's sections more than "
                         "2 GiB apart", target->triple, what);
    if (m) LLVMDisposeMessage(m);
  }
  if (!rc && (what & VTA_CODE_IR_TEXT)) {
    char *text = LLVMPrintModuleToString(c.mod);
    out->ir_text = strdup(text);
    LLVMDisposeMessage(text);
    if (!out->ir_text) rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (tm) LLVMDisposeTargetMachine(tm);
  LLVMDisposeBuilder(c.b);
  LLVMDisposeModule(c.mod);
  LLVMContextDispose(c.ctx);
  if (rc) vta_cpu_code_free(out);
  return rc;
}

int vta_codegen_llvm(const vta_graph *g, vta_cpu_code *out, vta_error *err) {
  return vta_codegen_llvm_for(g, NULL, VTA_CODE_BITCODE | VTA_CODE_OBJECT, out, err);
}

void vta_cpu_code_free(vta_cpu_code *code) {
  free(code->bitcode);
  free(code->object);
  free(code->ir_text);
  code->bitcode = code->object = NULL;
  code->ir_text = NULL;
  code->size = code->object_size = 0;
}
