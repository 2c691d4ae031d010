/* model.c - the model runtime (include/vta/model.h): walks a plan's nodes, calling CPU kernels
 * and running accelerator programs through jit/ and driver/.
 *
 * The design idea: the plan is already in execution order and every node has one kernel, so
 * running a model is a loop that calls kernels with pointers to the buffers of their
 * arguments. Buffers are allocated once at load time, one per computed value, and constants
 * are used in place from the plan, so a run allocates nothing. An accelerator node (with a
 * device backend chosen) packs its int8 input into each program's layout, copies it to device
 * memory, replays the program and unpacks the output; the walk stays the same, and every other
 * node runs its CPU kernel in between. Consecutive accelerator nodes are chained: their
 * programs go to the device as one stream and one run (vta_program_run_chain), so layers do not
 * pay a run's fill and drain each; tensors passed between them never leave the device. With the cpu backend the same nodes run their CPU code,
 * which computes the same int8 tensors.
 */
#include "vta/model.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/plan.h"
#include "vta/device.h"
#include "vta/jit.h"
#include "vta/program.h"
#include "vta/stats.h"

/* One accelerator program while a device backend is chosen. */
typedef struct acc_part {
  vta_program *prog;
  uint64_t phys[VTA_PROG_BUF_COUNT];
  uint64_t need[VTA_PROG_BUF_COUNT];   /* bytes of each buffer */
  unsigned char shared[VTA_PROG_BUF_COUNT]; /* the buffer is another node's output (not ours) */
} acc_part;

struct vta_model {
  unsigned char *owned_plan; /* the plan's bytes when copied (vta_model_from_plan) */
  vta_plan p;
  char *name;
  vta_kernel_fn *fns;        /* per node */
  void **buf;                /* per value: its elements (constants point into the plan) */
  unsigned char *owned;      /* per value: buf was malloc'd here */
  void ***args;              /* per node: its kernel's argument array */
  vta_device *dev;           /* the accelerator backend, or NULL (cpu) */
  vta_jit *vjit;
  acc_part **acc;            /* per node: its programs on the device, or NULL */
  int32_t *producer;         /* per value: the accelerator node whose output buffer holds it
                                packed and whole (one program, every channel), or -1 */
  unsigned char *on_host;    /* per value produced on the device: unpacked after each run */
  unsigned char *stale;      /* per value: the host copy is older than the device's */
  int8_t *staging;           /* host side of the packed tensors (the largest buffer) */
  int8_t *tmp;               /* a part's unpacked output (the largest output) */
  int chain;                 /* chain consecutive accelerator nodes into one device run */
  vta_prog_chain_item *items; /* a chain's programs (room for every part) */
  vta_stats st;
  vta_model_stats rs;
  void *owner;
  void (*release)(void *);
  vta_model_fallback_fn fallback;
};

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void acc_release(vta_model *m) {
  for (uint32_t i = 0; m->acc && i < m->p.n_nodes; i++) {
    acc_part *a = m->acc[i];
    if (!a) continue;
    for (uint32_t q = 0; q < m->p.nodes[i].n_parts; q++) {
      for (int b = 0; b < VTA_PROG_BUF_COUNT; b++)
        if (a[q].phys[b] && !a[q].shared[b]) vta_device_free(m->dev, a[q].phys[b]);
      vta_program_destroy(a[q].prog);
    }
    free(a);
  }
  free(m->acc);
  m->acc = NULL;
  free(m->producer);
  free(m->on_host);
  free(m->stale);
  m->producer = NULL;
  m->on_host = m->stale = NULL;
  free(m->staging);
  free(m->tmp);
  free(m->items);
  m->items = NULL;
  m->staging = NULL;
  m->tmp = NULL;
  vta_jit_destroy(m->vjit);
  m->vjit = NULL;
  if (m->dev) vta_device_close(m->dev);
  m->dev = NULL;
}

void vta_model_destroy(vta_model *m) {
  if (!m) return;
  acc_release(m);
  if (m->release) m->release(m->owner);
  for (uint32_t i = 0; m->buf && i < m->p.n_values; i++)
    if (m->owned[i]) free(m->buf[i]);
  for (uint32_t i = 0; m->args && i < m->p.n_nodes; i++) free(m->args[i]);
  free(m->fns);
  free(m->buf);
  free(m->owned);
  free(m->args);
  vta_plan_free(&m->p);
  free(m->owned_plan);
  free(m->name);
  free(m);
}

static vta_model *build(vta_model *m, const unsigned char *plan, size_t size, const char *name,
                        const vta_kernel_fn *kernels, uint32_t n_kernels, vta_error *err) {
  m->chain = 1;
  m->name = strdup(name ? name : "model");
  if (!m->name) goto nomem;
  if (vta_plan_read(plan, size, m->name, &m->p, err)) goto bad;
  const vta_plan *p = &m->p;
  if (kernels && n_kernels != p->n_nodes) {
    vta_error_set(err, VTA_ERR_INVALID, "%s: the model's object has %u kernels for %u nodes", m->name,
                  n_kernels, p->n_nodes);
    goto bad;
  }
  m->fns = calloc((size_t)p->n_nodes + 1, sizeof *m->fns);
  m->buf = calloc((size_t)p->n_values + 1, sizeof *m->buf);
  m->owned = calloc((size_t)p->n_values + 1, 1);
  m->args = calloc((size_t)p->n_nodes + 1, sizeof *m->args);
  if (!m->fns || !m->buf || !m->owned || !m->args) goto nomem;
  for (uint32_t i = 0; i < p->n_values; i++) {
    const vta_plan_value *v = &p->values[i];
    if (v->role == VTA_PLAN_CONST) {
      m->buf[i] = (void *)v->data;
      continue;
    }
    size_t n = (size_t)(v->count * v->elem_bytes);
    m->buf[i] = calloc(1, n ? n : 4);
    if (!m->buf[i]) goto nomem;
    m->owned[i] = 1;
  }
  for (uint32_t i = 0; i < p->n_nodes; i++) {
    const vta_plan_node *nd = &p->nodes[i];
    m->args[i] = calloc((size_t)nd->n_args + 1, sizeof(void *));
    if (!m->args[i]) goto nomem;
    for (uint32_t k = 0; k < nd->n_args; k++) m->args[i][k] = m->buf[nd->args[k]];
    if (kernels) m->fns[i] = nd->has_code ? kernels[i] : NULL;
  }
  return m;
nomem:
  vta_error_set(err, VTA_ERR_NOMEM, "%s: out of memory setting up the model", name ? name : "model");
bad:
  vta_model_destroy(m);
  return NULL;
}

vta_model *vta_model_from_image(const vta_model_image *img, vta_error *err) {
  if (!img || img->abi != VTA_MODEL_ABI || !img->plan)
    return vta_error_set(err, VTA_ERR_INVALID, "deployed model: image ABI %u, this runtime reads %d "
                         "(rebuild the model with this release's `vta compile --emit lib`)",
                         img ? img->abi : 0, VTA_MODEL_ABI), NULL;
  if ((uintptr_t)img->plan % 16)
    return vta_error_set(err, VTA_ERR_INVALID, "deployed model: its plan is not aligned to 16 bytes"), NULL;
  vta_model *m = calloc(1, sizeof *m);
  if (!m) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory"), NULL;
  return build(m, img->plan, (size_t)img->plan_size, "deployed model", img->kernels, img->n_kernels, err);
}

vta_model *vta_model_from_plan(const unsigned char *plan, size_t size, const char *name,
                               const vta_kernel_fn *kernels, uint32_t n_kernels, vta_error *err) {
  vta_model *m = calloc(1, sizeof *m);
  if (m) m->owned_plan = malloc(size ? size : 1); /* malloc's alignment suits the plan's 16 */
  if (!m || !m->owned_plan) {
    free(m);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory loading %zu bytes of model plan", size), NULL;
  }
  memcpy(m->owned_plan, plan, size);
  return build(m, m->owned_plan, size, name, kernels, n_kernels, err);
}

int vta_model_set_kernels(vta_model *m, const vta_kernel_fn *kernels, uint32_t n_kernels,
                          const unsigned char *only, vta_error *err) {
  if (n_kernels != m->p.n_nodes)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: %u kernels for %u nodes", m->name, n_kernels, m->p.n_nodes);
  for (uint32_t i = 0; i < n_kernels; i++)
    if (!only || only[i]) m->fns[i] = m->p.nodes[i].has_code ? kernels[i] : NULL;
  return 0;
}

void vta_model_set_owner(vta_model *m, void *ctx, void (*release)(void *ctx), vta_model_fallback_fn fallback) {
  m->owner = ctx;
  m->release = release;
  m->fallback = fallback;
}
void *vta_model_owner(const vta_model *m) { return m->owner; }

void vta_model_set_chaining(vta_model *m, int on) { m->chain = on != 0; }

int vta_model_n_acc_layers(const vta_model *m) {
  int n = 0;
  for (uint32_t i = 0; i < m->p.n_nodes; i++) n += (int)m->p.nodes[i].n_parts;
  return n;
}
int vta_model_n_acc_nodes(const vta_model *m) {
  int n = 0;
  for (uint32_t i = 0; i < m->p.n_nodes; i++) n += m->p.nodes[i].n_parts > 0;
  return n;
}
const struct vta_config *vta_model_acc_config(const vta_model *m) {
  return m->p.has_config ? &m->p.cfg : NULL;
}

/* Can part B read its input (second input: in2) straight from the output buffer of part A,
 * the whole output of its node? Only when both are the same packed activation tensor: the same
 * geometry, BLOCK_IN = BLOCK_OUT (the lanes of padded channels A leaves are then multiplied
 * by B's zero weights or dropped with B's own padding), and B's program never stores into it. */
static int same_packed(const vta_config *cfg, const vta_plan_part *A, const vta_plan_part *B, int in2,
                       const vta_program *bprog) {
  /* Activations only: dense layers' rows (the same formula) would chain too, but no model of
   * the tests runs two dense layers on the accelerator in a row, so they still cross. */
  if (cfg->block_in != cfg->block_out || A->nch != A->out_total || A->out_kind != VTA_PLAN_OUT_ACT) return 0;
  if (in2) {
    if (!B->has_in2 || B->in2_n != A->out_n || B->in2_c != A->out_total || B->in2_h != A->out_h ||
        B->in2_w != A->out_w)
      return 0;
  } else if (B->in_kind != VTA_PLAN_IN_ACT || B->in.n != A->out_n || B->in.c != A->out_total ||
             B->in.h != A->out_h || B->in.w != A->out_w) {
    return 0;
  }
  vta_prog_buf mine = in2 ? VTA_PROG_BUF_INPUT2 : VTA_PROG_BUF_INPUT;
  for (size_t k = 0; k < vta_program_op_count(bprog); k++) {
    const vta_prog_op *op = vta_program_op(bprog, k);
    if (op->op == VTA_PROG_STORE && op->x.buf == mine) return 0;
  }
  return 1;
}

/* Which tensors stay on the device: a value an accelerator node produces whole stays there in
 * its packed layout for every accelerator consumer that reads that same layout; it is unpacked
 * to the host only for a CPU node, a model output, or a consumer that packs it otherwise. */
static int plan_residency(vta_model *m, vta_error *err) {
  const vta_plan *p = &m->p;
  m->producer = malloc(sizeof *m->producer * ((size_t)p->n_values + 1));
  m->on_host = calloc((size_t)p->n_values + 1, 1);
  m->stale = calloc((size_t)p->n_values + 1, 1);
  if (!m->producer || !m->on_host || !m->stale)
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  for (uint32_t v = 0; v < p->n_values; v++) m->producer[v] = -1;
  for (uint32_t i = 0; i < p->n_nodes; i++) {
    const vta_plan_node *nd = &p->nodes[i];
    if (nd->n_parts == 1 && nd->parts[0].nch == nd->parts[0].out_total) m->producer[nd->acc_out] = (int32_t)i;
  }
  for (uint32_t k = 0; k < p->n_outputs; k++) m->on_host[p->outputs[k]] = 1;
  for (uint32_t i = 0; i < p->n_nodes; i++) {
    const vta_plan_node *nd = &p->nodes[i];
    if (nd->fused) continue; /* computed by the accelerator node it is fused into */
    if (!nd->n_parts) { /* a CPU node reads its arguments but the last (its output) */
      for (uint32_t k = 0; nd->has_code && k + 1 < nd->n_args; k++) m->on_host[nd->args[k]] = 1;
      continue;
    }
    for (uint32_t q = 0; q < nd->n_parts; q++) {
      acc_part *b = &m->acc[i][q];
      for (int in2 = 0; in2 < 2; in2++) {
        if (in2 && !nd->parts[q].has_in2) continue;
        uint32_t v = in2 ? nd->acc_in2 : nd->acc_in;
        int32_t a = m->producer[v];
        vta_prog_buf buf = in2 ? VTA_PROG_BUF_INPUT2 : VTA_PROG_BUF_INPUT;
        if (a >= 0 && same_packed(&p->cfg, &p->nodes[a].parts[0], &nd->parts[q], in2, b->prog)) {
          b->shared[buf] = 1;
          acc_part *ap = &m->acc[a][0];
          if (ap->need[VTA_PROG_BUF_OUTPUT] < b->need[buf]) ap->need[VTA_PROG_BUF_OUTPUT] = b->need[buf];
        } else {
          m->on_host[v] = 1;
        }
      }
    }
  }
  return 0;
}

int vta_model_set_backend(vta_model *m, const char *backend, const char *options, vta_error *err) {
  acc_release(m);
  memset(&m->st, 0, sizeof m->st);
  memset(&m->rs, 0, sizeof m->rs);
  if (!backend || strcmp(backend, "cpu") == 0) return 0;
  if (!vta_model_n_acc_layers(m))
    return vta_error_set(err, VTA_ERR_INVALID, "%s has no accelerator layers (compile it with "
                         "`vta compile --accel`); only the cpu backend applies", m->name);
  const vta_plan *p = &m->p;
  uint64_t staging = 0, tmp = 0;
  const char *at = NULL; /* the node being set up, for messages */
  if (vta_device_open(backend, &p->cfg, options, &m->dev, err) || vta_jit_create(m->dev, NULL, &m->vjit, err))
    goto fail;
  m->acc = calloc((size_t)p->n_nodes + 1, sizeof *m->acc);
  if (!m->acc) goto nomem;
  /* The programs and the sizes of their buffers; then which tensors stay on the device; then
   * the buffers (a node's output buffer also sized for the consumers reading it in place). */
  for (uint32_t i = 0; i < p->n_nodes; i++) {
    const vta_plan_node *nd = &p->nodes[i];
    if (!nd->n_parts) continue;
    at = nd->what;
    acc_part *a = m->acc[i] = calloc(nd->n_parts, sizeof *a);
    if (!a) goto nomem;
    for (uint32_t q = 0; q < nd->n_parts; q++) {
      const vta_plan_part *P = &nd->parts[q];
      if (vta_program_deserialize(P->prog, (size_t)P->prog_size, "its program", &a[q].prog, err)) goto fail_node;
      uint64_t *need = a[q].need;
      for (int b = 0; b < VTA_PROG_BUF_COUNT; b++) need[b] = vta_program_buffer_size(a[q].prog, (vta_prog_buf)b);
      if (need[VTA_PROG_BUF_INPUT] < P->input_bytes) need[VTA_PROG_BUF_INPUT] = P->input_bytes;
      if (need[VTA_PROG_BUF_INPUT2] < P->input2_bytes) need[VTA_PROG_BUF_INPUT2] = P->input2_bytes;
      if (need[VTA_PROG_BUF_OUTPUT] < P->output_bytes) need[VTA_PROG_BUF_OUTPUT] = P->output_bytes;
      if (need[VTA_PROG_BUF_WEIGHT] < P->weight_size) need[VTA_PROG_BUF_WEIGHT] = P->weight_size;
      if (need[VTA_PROG_BUF_BIAS] < P->bias_size) need[VTA_PROG_BUF_BIAS] = P->bias_size;
      const uint64_t host[3] = {P->input_bytes, P->input2_bytes, P->output_bytes};
      for (int b = 0; b < 3; b++)
        if (host[b] > staging) staging = host[b];
    }
    uint64_t out = p->values[nd->acc_out].count;
    if (out > tmp) tmp = out;
  }
  at = NULL;
  if (plan_residency(m, err)) goto fail;
  for (uint32_t i = 0; i < p->n_nodes; i++) {
    const vta_plan_node *nd = &p->nodes[i];
    if (!nd->n_parts) continue;
    at = nd->what;
    acc_part *a = m->acc[i];
    for (uint32_t q = 0; q < nd->n_parts; q++) {
      const vta_plan_part *P = &nd->parts[q];
      for (int b = 0; b < VTA_PROG_BUF_COUNT; b++) {
        if (a[q].shared[b]) { /* producers come first: their buffers exist */
          uint32_t v = b == VTA_PROG_BUF_INPUT2 ? nd->acc_in2 : nd->acc_in;
          a[q].phys[b] = m->acc[m->producer[v]][0].phys[VTA_PROG_BUF_OUTPUT];
        } else if (a[q].need[b] && vta_device_alloc(m->dev, a[q].need[b], &a[q].phys[b], err)) {
          goto fail_node;
        }
      }
      if ((P->weight_size && vta_device_copy_to(m->dev, a[q].phys[VTA_PROG_BUF_WEIGHT], P->weight, P->weight_size, err)) ||
          (P->bias_size && vta_device_copy_to(m->dev, a[q].phys[VTA_PROG_BUF_BIAS], P->bias, P->bias_size, err)))
        goto fail_node;
      m->rs.weight_bytes += P->weight_size + P->bias_size;
    }
  }
  m->staging = calloc(1, (size_t)staging + 64);
  m->tmp = calloc(1, (size_t)tmp + 64);
  m->items = calloc((size_t)vta_model_n_acc_layers(m) + 1, sizeof *m->items);
  if (!m->staging || !m->tmp || !m->items) goto nomem;
  return 0;
fail_node:
  if (at) vta_error_prefix(err, "%s", at);
  goto fail;
nomem:
  vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up the accelerator's buffers");
fail:
  vta_error_prefix(err, "%s: backend %s", m->name, backend);
  acc_release(m);
  return -1;
}

/* Part P's input packed into staging. */
static void pack_input(const vta_config *cfg, const vta_plan_part *P, const int8_t *x, int8_t *dst) {
  memset(dst, 0, (size_t)P->input_bytes);
  const vta_layout_conv *g = &P->in;
  if (P->in_kind == VTA_PLAN_IN_DENSE)
    vta_layout_pack_dense(cfg, x, g->n, g->c, cfg->block_in, dst);
  else if (P->in_kind == VTA_PLAN_IN_IM2COL)
    vta_layout_pack_im2col(cfg, g, x, dst);
  else
    vta_layout_pack_act(cfg, x, g->n, g->c, g->h, g->w, cfg->block_in, dst);
}

/* The part's channels (columns) of the node's output y. */
static void unpack_output(const vta_config *cfg, const vta_plan_part *P, const int8_t *src, int8_t *tmp,
                          int8_t *y) {
  uint32_t n = P->out_total;
  if (P->out_kind == VTA_PLAN_OUT_DENSE) {
    vta_layout_unpack_dense(cfg, src, P->out_n, P->nch, cfg->block_out, tmp);
    for (uint32_t r = 0; r < P->out_n; r++)
      for (uint32_t k = 0; k < P->nch; k++) y[(size_t)r * n + P->ch[k]] = tmp[(size_t)r * P->nch + k];
    return;
  }
  size_t plane = (size_t)P->out_h * P->out_w;
  if (P->nch == n) { /* every channel, in order (ascending and < n): straight into y */
    vta_layout_unpack_act(cfg, src, P->out_n, n, P->out_h, P->out_w, cfg->block_out, y);
    return;
  }
  vta_layout_unpack_act(cfg, src, P->out_n, P->nch, P->out_h, P->out_w, cfg->block_out, tmp);
  for (uint32_t b = 0; b < P->out_n; b++)
    for (uint32_t k = 0; k < P->nch; k++)
      memcpy(y + ((size_t)b * n + P->ch[k]) * plane, tmp + ((size_t)b * P->nch + k) * plane, plane);
}

/* Brings the host copy of a value the device holds up to date (its producer's output). */
static int sync_value(vta_model *m, uint32_t v, vta_error *err) {
  if (!m->stale || !m->stale[v]) return 0;
  uint32_t i = (uint32_t)m->producer[v];
  const vta_plan_part *P = &m->p.nodes[i].parts[0];
  double t0 = now_ms();
  if (vta_device_copy_from(m->dev, m->staging, m->acc[i][0].phys[VTA_PROG_BUF_OUTPUT], P->output_bytes, err))
    return -1;
  double t1 = now_ms();
  unpack_output(&m->p.cfg, P, m->staging, m->tmp, m->buf[v]);
  m->rs.transfer_ms += t1 - t0;
  m->rs.pack_ms += now_ms() - t1;
  m->rs.bytes_from_device += P->output_bytes;
  m->stale[v] = 0;
  return 0;
}

/* Part q of node i: pack and copy its inputs that are not on the device already. */
static int put_inputs(vta_model *m, uint32_t i, uint32_t q, vta_error *err) {
  const vta_plan_node *nd = &m->p.nodes[i];
  const vta_config *cfg = &m->p.cfg;
  acc_part *a = &m->acc[i][q];
  const vta_plan_part *P = &nd->parts[q];
  int bad = 0;
  if (!a->shared[VTA_PROG_BUF_INPUT]) {
    double t0 = now_ms();
    pack_input(cfg, P, m->buf[nd->acc_in], m->staging);
    double t1 = now_ms();
    bad = vta_device_copy_to(m->dev, a->phys[VTA_PROG_BUF_INPUT], m->staging, P->input_bytes, err);
    m->rs.pack_ms += t1 - t0;
    m->rs.transfer_ms += now_ms() - t1;
    m->rs.bytes_to_device += P->input_bytes;
  }
  if (!bad && P->has_in2 && !a->shared[VTA_PROG_BUF_INPUT2]) { /* the residual operand */
    double t2 = now_ms();
    memset(m->staging, 0, (size_t)P->input2_bytes);
    vta_layout_pack_act(cfg, m->buf[nd->acc_in2], P->in2_n, P->in2_c, P->in2_h, P->in2_w, cfg->block_out,
                        m->staging);
    double t3 = now_ms();
    bad = vta_device_copy_to(m->dev, a->phys[VTA_PROG_BUF_INPUT2], m->staging, P->input2_bytes, err);
    m->rs.pack_ms += t3 - t2;
    m->rs.transfer_ms += now_ms() - t3;
    m->rs.bytes_to_device += P->input2_bytes;
  }
  if (bad) vta_error_prefix(err, "%s: %s on the accelerator (program %u)", m->name, nd->what, q);
  return bad ? -1 : 0;
}

/* Part q of node i after its run: its output stays on the device, or is copied back and
 * unpacked. */
static int get_output(vta_model *m, uint32_t i, uint32_t q, vta_error *err) {
  const vta_plan_node *nd = &m->p.nodes[i];
  const vta_plan_part *P = &nd->parts[q];
  if (m->producer[nd->acc_out] == (int32_t)i && !m->on_host[nd->acc_out]) {
    m->stale[nd->acc_out] = 1; /* stays on the device; unpacked only if asked for */
    return 0;
  }
  double t6 = now_ms();
  if (vta_device_copy_from(m->dev, m->staging, m->acc[i][q].phys[VTA_PROG_BUF_OUTPUT], P->output_bytes, err)) {
    vta_error_prefix(err, "%s: %s on the accelerator (program %u)", m->name, nd->what, q);
    return -1;
  }
  double t7 = now_ms();
  m->rs.transfer_ms += t7 - t6;
  m->rs.bytes_from_device += P->output_bytes;
  unpack_output(&m->p.cfg, P, m->staging, m->tmp, m->buf[nd->acc_out]);
  m->rs.pack_ms += now_ms() - t7;
  return 0;
}

/* Where the chain starting at accelerator node i ends (one past its last node): it takes the
 * following accelerator nodes, over nodes without code and fused ones (an add an accelerator
 * node before it computed), up to a CPU node or a node that reads
 * from the host a tensor an accelerator node of the chain produces (it would need the chain's
 * result unpacked and packed again before the chain's one run). */
static uint32_t chain_end(const vta_model *m, uint32_t i) {
  const vta_plan *p = &m->p;
  uint32_t j = i + 1, last = i + 1;
  if (!m->chain) return last;
  for (; j < p->n_nodes; j++) {
    const vta_plan_node *nd = &p->nodes[j];
    if (!m->acc[j]) {
      if (nd->has_code && !nd->fused) break;
      continue;
    }
    int reads_chain = 0;
    for (uint32_t q = 0; q < nd->n_parts && !reads_chain; q++)
      for (int in2 = 0; in2 < 2 && !reads_chain; in2++) {
        if (in2 && !nd->parts[q].has_in2) continue;
        if (m->acc[j][q].shared[in2 ? VTA_PROG_BUF_INPUT2 : VTA_PROG_BUF_INPUT]) continue;
        uint32_t v = in2 ? nd->acc_in2 : nd->acc_in;
        for (uint32_t k = i; k < j && !reads_chain; k++)
          reads_chain = m->acc[k] && p->nodes[k].acc_out == v;
      }
    if (reads_chain) break;
    last = j + 1;
  }
  return last;
}

/* Accelerator nodes [i, end) (nodes without code between them do nothing): every host input
 * packed and copied, then one device run of their programs chained (or one run per program),
 * then the outputs the host needs copied back. */
static int run_chain(vta_model *m, uint32_t i, uint32_t end, vta_error *err) {
  const vta_plan *p = &m->p;
  size_t n = 0;
  for (uint32_t k = i; k < end; k++)
    for (uint32_t q = 0; m->acc[k] && q < p->nodes[k].n_parts; q++) {
      if (put_inputs(m, k, q, err)) return -1;
      m->items[n++] = (vta_prog_chain_item){m->acc[k][q].prog, m->acc[k][q].phys};
    }
  double t5 = now_ms();
  int bad = 0;
  /* Device runs as the JIT counts them (a stream that fills up is run early, and continued). */
  uint64_t syncs = vta_jit_get_counters(m->vjit)->syncs;
  if (m->chain) {
    vta_prog_chain_info ci;
    bad = vta_program_run_chain(m->vjit, m->items, n, &m->st, &ci, err);
    if (!bad) m->rs.barriers += ci.barriers;
  } else {
    for (size_t k = 0; k < n && !bad; k++)
      bad = vta_program_run(m->vjit, m->items[k].prog, m->items[k].phys, &m->st, err);
  }
  m->rs.device_runs += vta_jit_get_counters(m->vjit)->syncs - syncs;
  m->rs.device_ms += now_ms() - t5;
  if (bad) {
    vta_error_prefix(err, "%s: %s%s on the accelerator", m->name, p->nodes[i].what,
                     end > i + 1 ? " and the nodes chained after it" : "");
    return -1;
  }
  m->rs.programs += n;
  for (uint32_t k = i; k < end; k++)
    for (uint32_t q = 0; m->acc[k] && q < p->nodes[k].n_parts; q++)
      if (get_output(m, k, q, err)) return -1;
  return 0;
}

static int run_nodes(vta_model *m, vta_error *err) {
  for (uint32_t i = 0; i < m->p.n_nodes; i++) {
    const vta_plan_node *nd = &m->p.nodes[i];
    if (m->acc && m->acc[i]) {
      uint32_t end = chain_end(m, i);
      if (run_chain(m, i, end, err)) return -1;
      i = end - 1;
      continue;
    }
    if (!nd->has_code || (m->acc && nd->fused)) continue; /* fused: the accelerator did it */
    if (!m->fns[i]) {
      unsigned char *missing = calloc((size_t)m->p.n_nodes + 1, 1);
      if (!missing) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      for (uint32_t k = 0; k < m->p.n_nodes; k++) missing[k] = m->p.nodes[k].has_code && !m->fns[k];
      int rc = m->fallback ? m->fallback(m, m->owner, missing, err) : 1;
      free(missing);
      if (rc < 0) return -1;
      if (rc > 0 || !m->fns[i])
        return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: %s has no CPU code in this model (it was "
                             "compiled for the accelerator only): choose an accelerator backend",
                             m->name, nd->what);
    }
    double t0 = now_ms();
    m->fns[i](m->args[i]);
    m->rs.cpu_ms += now_ms() - t0;
  }
  return 0;
}

int vta_model_run(vta_model *m, vta_error *err) {
  double t0 = now_ms(), c0 = cpu_ms();
  int rc = run_nodes(m, err);
  m->rs.run_ms += now_ms() - t0;
  m->rs.run_cpu_ms += cpu_ms() - c0;
  if (!rc) m->rs.runs++;
  return rc;
}

void vta_model_run_stats(const vta_model *m, vta_model_stats *s) { *s = m->rs; }

void vta_model_acc_stats(const vta_model *m, vta_stats *st, uint64_t *acc_macs, uint64_t *all_macs) {
  if (st) *st = m->st;
  uint64_t a = 0, t = 0;
  for (uint32_t i = 0; i < m->p.n_nodes; i++) {
    t += m->p.nodes[i].macs;
    if (m->acc && m->acc[i]) a += m->p.nodes[i].macs;
  }
  if (acc_macs) *acc_macs = a;
  if (all_macs) *all_macs = t;
}

int vta_model_n_inputs(const vta_model *m) { return (int)m->p.n_inputs; }
int vta_model_n_outputs(const vta_model *m) { return (int)m->p.n_outputs; }

static const char *info(const vta_plan_value *v, int *rank, int64_t *dims) {
  if (rank) *rank = v->rank;
  if (dims)
    for (int d = 0; d < v->rank; d++) dims[d] = v->dims[d];
  return v->name;
}
const char *vta_model_input(const vta_model *m, int k, int *rank, int64_t *dims) {
  if (k < 0 || (uint32_t)k >= m->p.n_inputs) return NULL;
  return info(&m->p.values[m->p.inputs[k]], rank, dims);
}
const char *vta_model_output_info(const vta_model *m, int k, int *rank, int64_t *dims) {
  if (k < 0 || (uint32_t)k >= m->p.n_outputs) return NULL;
  return info(&m->p.values[m->p.outputs[k]], rank, dims);
}
int vta_model_find_input(const vta_model *m, const char *name) {
  for (uint32_t k = 0; k < m->p.n_inputs; k++)
    if (strcmp(m->p.values[m->p.inputs[k]].name, name) == 0) return (int)k;
  return -1;
}

int vta_model_set_input(vta_model *m, int k, const float *data, size_t count, vta_error *err) {
  if (k < 0 || (uint32_t)k >= m->p.n_inputs)
    return vta_error_set(err, VTA_ERR_INVALID, "input %d does not exist (the model has %u)", k, m->p.n_inputs);
  const vta_plan_value *v = &m->p.values[m->p.inputs[k]];
  if (v->count != count)
    return vta_error_set(err, VTA_ERR_INVALID, "input '%s' needs %llu elements, got %zu", v->name,
                         (unsigned long long)v->count, count);
  memcpy(m->buf[m->p.inputs[k]], data, count * sizeof(float));
  return 0;
}

const float *vta_model_output(const vta_model *m, int k) {
  if (k < 0 || (uint32_t)k >= m->p.n_outputs) return NULL;
  return m->buf[m->p.outputs[k]];
}

const void *vta_model_value(const vta_model *m, const char *name, int *dtype, int64_t *count) {
  for (uint32_t i = 0; i < m->p.n_values; i++) {
    const vta_plan_value *v = &m->p.values[i];
    if (strcmp(v->name, name) != 0) continue;
    /* A tensor kept on the device is unpacked when asked for (the model is logically const). */
    if (sync_value((vta_model *)m, i, NULL)) return NULL;
    if (dtype) *dtype = (int)v->dtype;
    if (count) *count = (int64_t)v->count;
    return m->buf[i];
  }
  return NULL;
}
