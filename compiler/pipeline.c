/* pipeline.c - the compiler's pass list: a plain sequence of calls with the verifier and the
 * requested dumps between them (QBE style).
 *
 * Dump letters (vta compile -d LETTERS): i after import, s after shape inference, f after
 * constant folding, b after batch-norm folding, d after dead-node removal, q after
 * quantization (and the import of QDQ patterns), e after epilogue fusion, p after
 * partitioning (the graph the code generators see). Dumps use the text form parse.c reads
 * back.
 */
#include <string.h>
#include <time.h>

#include "compiler/compiler.h"
#include "vta/config.h"

double vta_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int step(vta_graph *g, const vta_compile_opts *o, char letter, const char *name,
                int (*pass)(vta_graph *, vta_error *), vta_error *err) {
  double t0 = vta_now_ms();
  if (pass && pass(g, err)) {
    vta_error_prefix(err, "%s", name);
    return -1;
  }
  if (o && o->timing && pass) fprintf(o->timing, "  %-20s %8.1f ms\n", name, vta_now_ms() - t0);
#ifdef VTA_TEST_BUILD
  int verify = 1;
#else
  int verify = o && o->verify;
#endif
  if (verify && letter != 'i' && vta_graph_verify(g, err)) {
    vta_error_prefix(err, "after %s", name);
    return -1;
  }
  if (o && o->dump && strchr(o->dump, letter)) {
    FILE *f = o->dump_file ? o->dump_file : stderr;
    fprintf(f, "# after %s\n", name);
    vta_graph_print(g, f, 0);
  }
  return 0;
}

/* The passes that take options run through these (one compile at a time per thread). */
static _Thread_local const vta_compile_opts *cur;
static int quantize(vta_graph *g, vta_error *err) {
  vta_quant_opts q = *cur->quant;
  if (cur->accel && !q.channel_group) q.channel_group = (int)cur->accel->block_out;
  if (!q.adds) q.adds = VTA_ADDS_CPU;
  return vta_pass_quantize(g, &q, err);
}
static int partition(vta_graph *g, vta_error *err) {
  return vta_pass_partition(g, cur->accel, cur->host_macs_per_ns, cur->places, err);
}

int vta_compile_graph(vta_graph *g, const vta_compile_opts *o, vta_error *err) {
  cur = o;
  if (step(g, o, 'i', "import", NULL, err) || step(g, o, 's', "shape inference", vta_shape_infer, err) ||
      step(g, o, 'f', "constant folding", vta_pass_fold, err) ||
      step(g, o, 'b', "batch-norm folding", vta_pass_bnfold, err) ||
      step(g, o, 'f', "constant folding", vta_pass_fold, err) ||
      step(g, o, 'd', "dead-node removal", vta_pass_dce, err) ||
      (o && o->quant && step(g, o, 'q', "quantization", quantize, err)) ||
      step(g, o, 'e', "epilogue fusion", vta_pass_fuse, err))
    return -1;
  char w[300];
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    if (!vta_codegen_supports(nd->op))
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "%s: the CPU code generator does not implement %s",
                           vta_node_describe(g, i, w, sizeof w), vta_op_name(nd->op));
    if (!vta_codegen_supports_node(g, i)) {
      const char *ty = "?";
      for (int k = 0; k < nd->n_in; k++)
        if (nd->in[k] >= 0 && g->values[nd->in[k]].dtype != VTA_DT_F32) {
          ty = vta_dtype_name(g->values[nd->in[k]].dtype);
          break;
        }
      if (!strcmp(ty, "?") && nd->n_out) ty = vta_dtype_name(g->values[nd->out[0]].dtype);
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "%s: the CPU code generator computes %s on float32 only (this node has "
                           "%s data; integer tensors are computed only by the quantized and "
                           "data-movement operators)",
                           vta_node_describe(g, i, w, sizeof w), vta_op_name(nd->op), ty);
    }
  }
  if (o && o->accel && step(g, o, 'p', "partitioning", partition, err)) return -1;
  return 0;
}

/* The operator table as docs/operators.md shows it (`vta info --operators` prints it). */
void vta_op_table_markdown(FILE *f) {
  fprintf(f, "| operator | family: shape rule, reference, CPU code | CPU code | claimed |\n"
             "| --- | --- | --- | --- |\n");
  for (int i = 0; i < VTA_GOP_COUNT; i++) {
    vta_gop op = (vta_gop)i;
    if (vta_op_internal(op)) continue;
    const char *fam = vta_op_family_name(op);
    char where[80];
    if (strcmp(fam, "core") == 0)
      snprintf(where, sizeof where, "core: `compiler/ir/shape.c`, no family");
    else
      snprintf(where, sizeof where, "`compiler/cpu/op_%s.c`", fam);
    fprintf(f, "| %s | %s | %s | %s |\n", vta_op_name(op), where,
            vta_codegen_supports(op) ? "yes" : "compile time only", vta_op_claimed(op) ? "yes" : "no");
  }
  fprintf(f, "\nRefused by name, with the reason the importer gives:\n\n"
             "| operator | reason |\n| --- | --- |\n");
  const char *name, *why;
  for (int k = 0; (name = vta_op_refused_nth(k, &why)); k++) fprintf(f, "| %s | %s |\n", name, why);
}
