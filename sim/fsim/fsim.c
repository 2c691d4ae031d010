/* fsim.c - the functional simulator's run: fetch, routing, token queues and scheduling.
 *
 * The design idea: the three modules of the hardware (load, compute, store) run concurrently
 * and meet only at four token queues, so any interleaving that respects the tokens is a legal
 * execution. The simulator picks one of them deterministically: at every step it looks at the
 * three module heads whose pops can be satisfied and executes the one with the lowest stream
 * index. A program without dependency flags therefore runs in stream order, and a program with
 * them runs in the order the tokens force. When no head can run and instructions remain, no
 * interleaving could continue either: that is a deadlock, reported with each blocked head.
 *
 * The fetch module is modelled as reading the whole stream before anything executes (the
 * hardware's fetch runs ahead of the modules): every word is decoded and checked once, so a
 * malformed stream is refused before it has written anything, and execution works on a compact
 * decoded form. Instruction semantics live in fsim_exec.c, GEMM kernels in fsim_simd.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fsim/fsim_internal.h"

/* Slack after ACC and OUT so that the masked vector loads/stores of the SIMD kernels never sit
 * at the very end of an allocation (the masked lanes are never touched, but tools may look). */
#define FSIM_SLACK 64

static void *alloc_zero(size_t n) {
  /* 64-byte alignment: whole ACC rows of the default config fit one cache line / zmm. */
  size_t sz = (n + FSIM_SLACK + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, sz);
  if (p) memset(p, 0, sz);
  return p;
}

int vta_fsim_create(const vta_config *cfg, vta_mem *mem, vta_fsim **out, vta_error *err) {
  *out = NULL;
  if (cfg->inp_width != 8 || cfg->wgt_width != 8 || cfg->out_width != 8 || cfg->acc_width != 32)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "fsim: element widths INP %u, WGT %u, OUT %u, ACC %u bits are not "
                         "supported (only 8, 8, 8 and 32)",
                         cfg->inp_width, cfg->wgt_width, cfg->out_width, cfg->acc_width);
  vta_fsim *sim = calloc(1, sizeof *sim);
  if (!sim) return vta_error_set(err, VTA_ERR_NOMEM, "fsim: out of host memory");
  sim->cfg = *cfg;
  sim->mem = mem;
  sim->batch = cfg->batch;
  sim->block_in = cfg->block_in;
  sim->block_out = cfg->block_out;
  sim->inp_row = cfg->batch * cfg->block_in;
  sim->wgt_row = cfg->block_out * cfg->block_in;
  sim->acc_row = cfg->batch * cfg->block_out;
  sim->uop = alloc_zero((size_t)cfg->depth[VTA_MEM_UOP] * sizeof(vta_uop));
  sim->inp = alloc_zero((size_t)cfg->depth[VTA_MEM_INP] * sim->inp_row);
  sim->wgt = alloc_zero((size_t)cfg->depth[VTA_MEM_WGT] * sim->wgt_row);
  sim->acc = alloc_zero((size_t)cfg->depth[VTA_MEM_ACC] * sim->acc_row * sizeof(int32_t));
  sim->out = alloc_zero((size_t)cfg->depth[VTA_MEM_OUT] * sim->acc_row);
  if (!sim->uop || !sim->inp || !sim->wgt || !sim->acc || !sim->out) {
    vta_fsim_destroy(sim);
    return vta_error_set(err, VTA_ERR_NOMEM, "fsim: out of host memory for the on-chip buffers");
  }
  const char *env = getenv("VTA_FSIM_SIMD");
  sim->simd_enabled = !(env && strcmp(env, "0") == 0);
  int rc = fsim_kernels_select(sim, sim->simd_enabled, err);
  if (rc != VTA_OK) {
    vta_fsim_destroy(sim);
    return rc;
  }
  *out = sim;
  return VTA_OK;
}

void vta_fsim_destroy(vta_fsim *sim) {
  if (!sim) return;
  fsim_kernels_free(sim);
  free(sim->uop);
  free(sim->inp);
  free(sim->wgt);
  free(sim->acc);
  free(sim->out);
  free(sim->prog);
  free(sim->order);
  free(sim);
}

const char *vta_fsim_set_simd(vta_fsim *sim, int enable) {
  sim->simd_enabled = enable != 0;
  /* The portable set needs no memory, so falling back to it cannot fail. */
  if (fsim_kernels_select(sim, sim->simd_enabled, NULL) != VTA_OK)
    fsim_kernels_select(sim, 0, NULL);
  return sim->kern->name;
}

const char *vta_fsim_kernels(const vta_fsim *sim) { return sim->kern->name; }

int vta_fsim_set_kernels(vta_fsim *sim, const char *name, vta_error *err) {
  return fsim_kernels_select_name(sim, name, err);
}

int vta_fsim_read_sram(vta_fsim *sim, vta_mem_type type, uint32_t index, uint32_t count,
                       void *out, vta_error *err) {
  if ((unsigned)type >= VTA_MEM_COUNT || type == VTA_MEM_ACC_8BIT)
    return vta_error_set(err, VTA_ERR_INVALID, "fsim: no on-chip buffer of memory type %d",
                         (int)type);
  uint32_t depth = sim->cfg.depth[type];
  if (index > depth || count > depth - index)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "fsim: %s buffer elements %u to %" PRIu64 " are beyond its depth %u",
                         vta_mem_type_name(type), index, (uint64_t)index + count - 1, depth);
  size_t eb = sim->cfg.elem_bytes[type];
  switch (type) {
  case VTA_MEM_UOP:
    for (uint32_t i = 0; i < count; i++) {
      uint32_t w;
      int rc = vta_uop_encode(&sim->cfg, &sim->uop[index + i], &w, err);
      if (rc != VTA_OK) return rc;
      memcpy((uint8_t *)out + 4 * (size_t)i, &w, 4);
    }
    break;
  case VTA_MEM_INP: memcpy(out, sim->inp + (size_t)index * eb, count * eb); break;
  case VTA_MEM_WGT: memcpy(out, sim->wgt + (size_t)index * eb, count * eb); break;
  case VTA_MEM_ACC: memcpy(out, sim->acc + (size_t)index * sim->acc_row, count * eb); break;
  case VTA_MEM_OUT: memcpy(out, sim->out + (size_t)index * eb, count * eb); break;
  default: break;
  }
  return VTA_OK;
}

/* ---- Messages ---- */

static void insn_text(const vta_fsim *sim, const vta_insn_word *w, char *buf, size_t n) {
  vta_insn insn;
  if (vta_insn_decode(&sim->cfg, w, &insn, NULL) == VTA_OK)
    vta_insn_to_text(&sim->cfg, &insn, buf, n);
  else
    snprintf(buf, n, "word 0x%016" PRIx64 "%016" PRIx64, w->w[1], w->w[0]);
}

/* "instruction N (text): message" */
static int insn_error(const vta_fsim *sim, vta_error *err, int status, uint32_t idx,
                      const vta_insn_word *w, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int insn_error(const vta_fsim *sim, vta_error *err, int status, uint32_t idx,
                      const vta_insn_word *w, const char *fmt, ...) {
  char text[256], msg[VTA_ERROR_MSG_MAX];
  insn_text(sim, w, text, sizeof text);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(err, status, "instruction %u (%s): %s", idx, text, msg);
}

/* ---- Fetch: decode and check the whole stream ---- */

static void compact(const vta_insn *d, const vta_insn_word *w, fsim_insn *c) {
  memset(c, 0, sizeof *c);
  c->opcode = (uint8_t)d->f[VTA_F_OPCODE];
  c->module = (uint8_t)vta_insn_module(d);
  c->pop_prev = (uint8_t)d->f[VTA_F_POP_PREV];
  c->pop_next = (uint8_t)d->f[VTA_F_POP_NEXT];
  c->push_prev = (uint8_t)d->f[VTA_F_PUSH_PREV];
  c->push_next = (uint8_t)d->f[VTA_F_PUSH_NEXT];
  c->mem_type = (uint8_t)d->f[VTA_F_MEMORY_TYPE];
  c->alu_op = (uint8_t)d->f[VTA_F_ALU_OPCODE];
  c->reset = (uint8_t)d->f[VTA_F_RESET_REG];
  c->use_imm = (uint8_t)d->f[VTA_F_USE_IMM];
  c->y_pad_0 = (uint8_t)d->f[VTA_F_Y_PAD_0];
  c->y_pad_1 = (uint8_t)d->f[VTA_F_Y_PAD_1];
  c->x_pad_0 = (uint8_t)d->f[VTA_F_X_PAD_0];
  c->x_pad_1 = (uint8_t)d->f[VTA_F_X_PAD_1];
  c->y_size = (uint16_t)d->f[VTA_F_Y_SIZE];
  c->x_size = (uint16_t)d->f[VTA_F_X_SIZE];
  c->x_stride = (uint16_t)d->f[VTA_F_X_STRIDE];
  c->sram_base = (uint32_t)d->f[VTA_F_SRAM_BASE];
  c->dram_base = (uint32_t)d->f[VTA_F_DRAM_BASE];
  c->uop_bgn = (uint32_t)d->f[VTA_F_UOP_BGN];
  c->uop_end = (uint32_t)d->f[VTA_F_UOP_END];
  c->iter_out = (uint32_t)d->f[VTA_F_ITER_OUT];
  c->iter_in = (uint32_t)d->f[VTA_F_ITER_IN];
  c->dst_out = (uint32_t)d->f[VTA_F_DST_FACTOR_OUT];
  c->dst_in = (uint32_t)d->f[VTA_F_DST_FACTOR_IN];
  c->src_out = (uint32_t)d->f[VTA_F_SRC_FACTOR_OUT];
  c->src_in = (uint32_t)d->f[VTA_F_SRC_FACTOR_IN];
  c->wgt_out = (uint32_t)d->f[VTA_F_WGT_FACTOR_OUT];
  c->wgt_in = (uint32_t)d->f[VTA_F_WGT_FACTOR_IN];
  c->imm = (int32_t)d->f[VTA_F_IMM];
  c->word = *w;
}

static int grow(vta_fsim *sim, uint32_t count, vta_error *err) {
  if (count <= sim->prog_cap) return VTA_OK;
  fsim_insn *p = realloc(sim->prog, (size_t)count * sizeof *p);
  if (!p) goto nomem;
  sim->prog = p;
  uint32_t *o = realloc(sim->order, (size_t)count * sizeof *o);
  if (!o) goto nomem;
  sim->order = o;
  sim->prog_cap = count;
  return VTA_OK;
nomem:
  return vta_error_set(err, VTA_ERR_NOMEM,
                       "fsim: out of host memory for a stream of %u instructions", count);
}

static int fetch(vta_fsim *sim, uint64_t insn_phys, uint32_t count, vta_error *err) {
  if (count == 0)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the instruction stream is empty: it must end with a FINISH");
  uint64_t bytes = (uint64_t)count * VTA_INSN_BYTES;
  if (insn_phys > UINT64_MAX - bytes || !vta_mem_check(sim->mem, insn_phys, bytes)) {
    /* Find the first instruction that is not inside an allocation (a stream may also span two
     * adjacent allocations, which is fine). */
    for (uint32_t i = 0; i < count; i++) {
      uint64_t a = insn_phys + (uint64_t)i * VTA_INSN_BYTES;
      if (a < insn_phys || !vta_mem_check(sim->mem, a, VTA_INSN_BYTES)) {
        char where[160];
        vta_mem_describe(sim->mem, a, where, sizeof where);
        return vta_error_set(err, VTA_ERR_BOUNDS,
                             "instruction %u: fetch of 16 bytes at physical address 0x%" PRIx64
                             " is outside the allocated device memory (%s)",
                             i, a, where);
      }
    }
  }
  int rc = grow(sim, count, err);
  if (rc != VTA_OK) return rc;
  const uint8_t *base = vta_mem_ptr(sim->mem, insn_phys);
  for (uint32_t i = 0; i < count; i++) {
    vta_insn_word w;
    vta_insn_word_load(base + (size_t)i * VTA_INSN_BYTES, &w);
    vta_insn d;
    vta_error e;
    if (vta_insn_decode(&sim->cfg, &w, &d, &e) != VTA_OK)
      return insn_error(sim, err, VTA_ERR_INVALID, i, &w, "%s", e.msg);
    if (vta_insn_check(&sim->cfg, &d, &e) != VTA_OK)
      return insn_error(sim, err, VTA_ERR_INVALID, i, &w, "%s", e.msg);
    if (d.f[VTA_F_OPCODE] == VTA_OP_FINISH) {
      /* (vta_insn_check already refused a FINISH that pops.) */
      if (i + 1 < count) {
        vta_insn_word nw;
        char next[256];
        vta_insn_word_load(base + (size_t)(i + 1) * VTA_INSN_BYTES, &nw);
        insn_text(sim, &nw, next, sizeof next);
        return insn_error(sim, err, VTA_ERR_INVALID, i, &w,
                          "is followed by instruction %u (%s); a FINISH must be the last "
                          "instruction of the stream",
                          i + 1, next);
      }
    }
    compact(&d, &w, &sim->prog[i]);
  }
  if (sim->prog[count - 1].opcode != VTA_OP_FINISH)
    return insn_error(sim, err, VTA_ERR_INVALID, count - 1, &sim->prog[count - 1].word,
                      "the stream of %u instructions ends without a FINISH", count);
  return VTA_OK;
}

/* ---- Token queues ---- */

/* The queues an instruction pops and pushes in its module (ISA.md section 4): -1 for none.
 * Load ignores its *_prev flags and store its *_next flags. */
static void token_queues(const fsim_insn *in, int pop[2], int push[2]) {
  pop[0] = pop[1] = push[0] = push[1] = -1;
  switch (in->module) {
  case VTA_MOD_LOAD:
    if (in->pop_next) pop[0] = VTA_Q_COMPUTE_TO_LOAD;
    if (in->push_next) push[0] = VTA_Q_LOAD_TO_COMPUTE;
    break;
  case VTA_MOD_COMPUTE:
    if (in->pop_prev) pop[0] = VTA_Q_LOAD_TO_COMPUTE;
    if (in->pop_next) pop[1] = VTA_Q_STORE_TO_COMPUTE;
    if (in->push_prev) push[0] = VTA_Q_COMPUTE_TO_LOAD;
    if (in->push_next) push[1] = VTA_Q_COMPUTE_TO_STORE;
    break;
  case VTA_MOD_STORE:
    if (in->pop_prev) pop[0] = VTA_Q_COMPUTE_TO_STORE;
    if (in->push_prev) push[0] = VTA_Q_STORE_TO_COMPUTE;
    break;
  default: break;
  }
}

static int can_run(const fsim_insn *in, const uint64_t tokens[VTA_Q_COUNT]) {
  int pop[2], push[2];
  token_queues(in, pop, push);
  for (int k = 0; k < 2; k++)
    if (pop[k] >= 0 && tokens[pop[k]] == 0) return 0;
  return 1;
}

/* Appends with snprintf semantics, never past the buffer. */
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...) {
  if (*len >= n) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf + *len, n - *len, fmt, ap);
  va_end(ap);
  if (k > 0) *len = *len + (size_t)k < n ? *len + (size_t)k : n;
}

static int deadlock(const vta_fsim *sim, const uint32_t head[VTA_MOD_COUNT],
                    const uint32_t end[VTA_MOD_COUNT], const uint64_t tokens[VTA_Q_COUNT],
                    uint32_t done, uint32_t count, vta_error *err) {
  char msg[VTA_ERROR_MSG_MAX];
  size_t len = 0;
  append(msg, sizeof msg, &len,
         "deadlock after %u of %u instructions: no module can proceed", done, count);
  for (int m = 0; m < VTA_MOD_COUNT; m++) {
    if (head[m] == end[m]) continue;
    uint32_t idx = sim->order[head[m]];
    const fsim_insn *in = &sim->prog[idx];
    char text[200];
    insn_text(sim, &in->word, text, sizeof text);
    append(msg, sizeof msg, &len, "; %s waits at instruction %u (%s) for a token on",
           vta_module_name((vta_module)m), idx, text);
    int pop[2], push[2], first = 1;
    token_queues(in, pop, push);
    for (int k = 0; k < 2; k++) {
      if (pop[k] < 0 || tokens[pop[k]] != 0) continue;
      append(msg, sizeof msg, &len, "%s %s", first ? "" : " and", vta_queue_name(pop[k]));
      first = 0;
    }
  }
  return vta_error_set(err, VTA_ERR_DEADLOCK, "%s", msg);
}

/* What an instruction costs against the timeout: one step, plus one per micro-op executed and
 * one per element a LOAD or STORE moves. Hardware needs at least a cycle for each, so a budget
 * in these steps is never stricter than the same number of device cycles, and one huge GEMM is
 * refused before it runs instead of running for hours. */
static uint64_t insn_steps(const fsim_insn *in) {
  switch (in->opcode) {
  case VTA_OP_GEMM:
  case VTA_OP_ALU:
    return 1 + (uint64_t)(in->uop_end - in->uop_bgn) * in->iter_out * in->iter_in;
  case VTA_OP_LOAD:
  case VTA_OP_STORE:
    return 1 + (uint64_t)(in->y_pad_0 + in->y_size + in->y_pad_1) *
                   (in->x_pad_0 + in->x_size + in->x_pad_1);
  default:
    return 1;
  }
}

static int schedule(vta_fsim *sim, uint32_t count, uint64_t timeout, vta_stats *st,
                    vta_error *err) {
  /* Each module's instructions in stream order: order[start[m] .. end[m]). */
  uint32_t n[VTA_MOD_COUNT] = {0}, head[VTA_MOD_COUNT], end[VTA_MOD_COUNT];
  for (uint32_t i = 0; i < count; i++) n[sim->prog[i].module]++;
  head[0] = 0;
  for (int m = 1; m < VTA_MOD_COUNT; m++) head[m] = head[m - 1] + n[m - 1];
  for (int m = 0; m < VTA_MOD_COUNT; m++) end[m] = head[m];
  for (uint32_t i = 0; i < count; i++) sim->order[end[sim->prog[i].module]++] = i;

  uint64_t tokens[VTA_Q_COUNT] = {0};
  uint64_t steps = 0;
  for (uint32_t done = 0; done < count; done++) {
    int best = -1;
    uint32_t best_idx = UINT32_MAX;
    for (int m = 0; m < VTA_MOD_COUNT; m++) {
      if (head[m] == end[m]) continue;
      uint32_t idx = sim->order[head[m]];
      if (idx < best_idx && can_run(&sim->prog[idx], tokens)) {
        best = m;
        best_idx = idx;
      }
    }
    if (best < 0) return deadlock(sim, head, end, tokens, done, count, err);
    const fsim_insn *in = &sim->prog[best_idx];
    uint64_t cost = insn_steps(in);
    if (timeout && (steps + cost > timeout || steps + cost < steps))
      return insn_error(sim, err, VTA_ERR_TIMEOUT, best_idx, &in->word,
                        "timeout: this instruction (%" PRIu64 " steps) would pass the limit of %" PRIu64
                        " steps (one per instruction, micro-op and element moved; %" PRIu64
                        " used) with %u of %u instructions left",
                        cost, timeout, steps, count - done, count);
    steps += cost;
    int pop[2], push[2];
    token_queues(in, pop, push);
    for (int k = 0; k < 2; k++)
      if (pop[k] >= 0) tokens[pop[k]]--;
    char msg[VTA_ERROR_MSG_MAX - 300];
    int rc = fsim_exec(sim, in, st, msg, sizeof msg);
    if (rc != VTA_OK) return insn_error(sim, err, rc, best_idx, &in->word, "%s", msg);
    for (int k = 0; k < 2; k++)
      if (push[k] >= 0) tokens[push[k]]++;
    head[best]++;
    st->insns++;
    st->insns_by_module[best]++;
    st->insns_by_opcode[in->opcode]++;
  }
  return VTA_OK;
}

int vta_fsim_run(vta_fsim *sim, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                 vta_stats *stats, vta_error *err) {
  int rc = fetch(sim, insn_phys, count, err);
  if (rc != VTA_OK) return rc;
  vta_stats st;
  memset(&st, 0, sizeof st);
  st.insn_bytes = (uint64_t)count * VTA_INSN_BYTES;
  rc = schedule(sim, count, timeout, &st, err);
  /* Counters of a failed run still say how far it got. */
  if (stats) vta_stats_add(stats, &st);
  return rc;
}
