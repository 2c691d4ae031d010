/* stream.c - the instruction stream and its dependency tokens.
 *
 * The design idea: instructions are encoded (vta_insn_encode) the moment they are appended,
 * so a field out of range is reported by the call that asked for it, and the stream is a
 * plain array of 128-bit words ready to copy to the device. Only the four dependency flags
 * are ever changed afterwards, through the configuration's field positions (vta_word_set).
 *
 * Tokens follow the published runtime's rules, which only depend on each module's own order:
 * - pop(from -> to): the next instruction of stage `to` carries the pop. A second pop of the
 *   same queue before that instruction exists turns the first into a no-op of `to`. The LOAD
 *   UOP the JIT puts before a kernel that is not resident is not such an instruction: the
 *   kernel's GEMM or ALU carries the pop, and its micro-ops load while the token is awaited.
 * - push(from -> to): the pending pops of `from` are committed first (a push must follow
 *   them); then the push flag goes on the last instruction of `from` in this stream, or on a
 *   new no-op of `from` when there is none or its flag is already taken. Setting the flag on
 *   an earlier instruction of `from` is exact: only `from`'s own order matters for it.
 * - FINISH may not pop: pending compute pops become a compute no-op before it.
 * - Closing a stream makes FINISH wait for everything: load and store each push a token to
 *   compute, which a compute no-op pops.
 * - Tokens still outstanding when a stream closes (pushed, not yet popped) are popped by
 *   no-ops before the barrier and pushed again at the start of the next stream, so every run
 *   starts and ends with empty token queues and a synchronisation may fall anywhere between
 *   a push and its pop. A pop before its push in the same stream cannot complete and is
 *   reported before the run.
 * - FORCE_SERIAL (latched per stream) ignores the program's tokens and chains every
 *   instruction to the previous one: adjacent stages by a direct token, load <-> store
 *   through a compute no-op.
 *
 * No-ops: load LOAD INP x_size=0, compute LOAD UOP x_size=0, store STORE OUT x_size=0.
 */
#include <stdlib.h>
#include <string.h>

#include "jit/jit_internal.h"
#include "vta/config.h"

#define INFO(mod, fmt) ((uint8_t)((mod) | ((fmt) << 2)))
#define INFO_MOD(i) ((vta_module)((i) & 3))
#define INFO_FMT(i) ((vta_format)((i) >> 2))

static const char *const k_stage_names[VTA_MOD_COUNT] = {"load", "compute", "store"};

int jit_stream_init(jit_stream *s, vta_error *err) {
  memset(s, 0, sizeof *s);
  for (int m = 0; m < VTA_MOD_COUNT; m++) s->last[m] = -1;
  (void)err;
  return VTA_OK;
}

void jit_stream_free(jit_stream *s) {
  free(s->w);
  free(s->info);
  free(s->uop_loads);
  memset(s, 0, sizeof *s);
}

void jit_stream_clear(jit_stream *s) {
  s->n = 0;
  s->user = 0;
  s->closed = 0;
  s->n_uop_loads = 0;
  for (int m = 0; m < VTA_MOD_COUNT; m++) s->last[m] = -1;
  memset(s->pushed, 0, sizeof s->pushed);
  memset(s->popped, 0, sizeof s->popped);
}

int jit_stream_has_room(const vta_jit *jit) {
  /* Closing adds a no-op per outstanding token besides the barrier. */
  const jit_stream *s = &jit->s;
  size_t need = s->n + JIT_CALL_RESERVE;
  for (int q = 0; q < VTA_Q_COUNT; q++)
    if (s->pushed[q] > s->popped[q]) need += (size_t)(s->pushed[q] - s->popped[q]);
  return need < jit->max_insns;
}

/* The queue between two adjacent stages, and which flag each side uses. */
static vta_queue queue_of(vta_module from, vta_module to) {
  if (from == VTA_MOD_LOAD) return VTA_Q_LOAD_TO_COMPUTE;
  if (from == VTA_MOD_STORE) return VTA_Q_STORE_TO_COMPUTE;
  return to == VTA_MOD_LOAD ? VTA_Q_COMPUTE_TO_LOAD : VTA_Q_COMPUTE_TO_STORE;
}
static vta_field_id push_flag(vta_module from, vta_module to) {
  return from < to ? VTA_F_PUSH_NEXT : VTA_F_PUSH_PREV;
}
static vta_field_id pop_flag(vta_module from, vta_module to) {
  return from < to ? VTA_F_POP_PREV : VTA_F_POP_NEXT;
}

static int grow(vta_jit *jit, size_t extra, vta_error *err) {
  jit_stream *s = &jit->s;
  if (s->n + extra <= s->cap) return VTA_OK;
  size_t nc = s->cap ? s->cap : 256;
  while (nc < s->n + extra) nc *= 2;
  vta_insn_word *w = realloc(s->w, nc * sizeof *w);
  if (!w) return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for %zu instructions", nc);
  s->w = w;
  uint8_t *info = realloc(s->info, nc);
  if (!info)
    return vta_error_set(err, VTA_ERR_NOMEM, "jit: out of memory for %zu instructions", nc);
  s->info = info;
  s->cap = nc;
  return VTA_OK;
}

static vta_field_pos pos_of(const vta_jit *jit, size_t idx, vta_field_id f) {
  return jit->cfg.layout[INFO_FMT(jit->s.info[idx])].pos[f];
}
static int flag_get(const vta_jit *jit, size_t idx, vta_field_id f) {
  return vta_word_get(&jit->s.w[idx], pos_of(jit, idx, f)) != 0;
}
static void flag_set(vta_jit *jit, size_t idx, vta_field_id f) {
  vta_word_set(&jit->s.w[idx], pos_of(jit, idx, f), 1);
}

static void make_noop(vta_module m, vta_insn *in) {
  memset(in, 0, sizeof *in);
  if (m == VTA_MOD_STORE) {
    in->f[VTA_F_OPCODE] = VTA_OP_STORE;
    in->f[VTA_F_MEMORY_TYPE] = VTA_MEM_OUT;
  } else {
    in->f[VTA_F_OPCODE] = VTA_OP_LOAD;
    in->f[VTA_F_MEMORY_TYPE] = m == VTA_MOD_LOAD ? VTA_MEM_INP : VTA_MEM_UOP;
  }
}

/* Appends an already encoded word (capacity ensured by the caller). */
static void put_word(vta_jit *jit, const vta_insn_word *w, vta_module m, vta_format fmt,
                     int user) {
  jit_stream *s = &jit->s;
  s->w[s->n] = *w;
  s->info[s->n] = INFO(m, fmt);
  s->last[m] = (long)s->n;
  s->n++;
  if (user) s->user++;
  else jit->c.noops++;
  jit->c.insns++;
}

static vta_field_pos word_pos(const vta_jit *jit, vta_format fmt, vta_field_id f) {
  return jit->cfg.layout[fmt].pos[f];
}
static int word_flag(const vta_jit *jit, const vta_insn_word *w, vta_format fmt, vta_field_id f) {
  return vta_word_get(w, word_pos(jit, fmt, f)) != 0;
}
static void word_set_flag(const vta_jit *jit, vta_insn_word *w, vta_format fmt, vta_field_id f) {
  vta_word_set(w, word_pos(jit, fmt, f), 1);
}

/* Counts the tokens an instruction of module m carries (non-serial streams only). */
static void count_tokens(vta_jit *jit, const vta_insn_word *w, vta_module m, vta_format fmt) {
  jit_stream *s = &jit->s;
  int c = m == VTA_MOD_COMPUTE;
  if (m != VTA_MOD_LOAD && word_flag(jit, w, fmt, VTA_F_POP_PREV))
    s->popped[c ? VTA_Q_LOAD_TO_COMPUTE : VTA_Q_COMPUTE_TO_STORE]++;
  if (m != VTA_MOD_STORE && word_flag(jit, w, fmt, VTA_F_POP_NEXT))
    s->popped[c ? VTA_Q_STORE_TO_COMPUTE : VTA_Q_COMPUTE_TO_LOAD]++;
  if (m != VTA_MOD_LOAD && word_flag(jit, w, fmt, VTA_F_PUSH_PREV))
    s->pushed[c ? VTA_Q_COMPUTE_TO_LOAD : VTA_Q_STORE_TO_COMPUTE]++;
  if (m != VTA_MOD_STORE && word_flag(jit, w, fmt, VTA_F_PUSH_NEXT))
    s->pushed[c ? VTA_Q_COMPUTE_TO_STORE : VTA_Q_LOAD_TO_COMPUTE]++;
}

/* FORCE_SERIAL: append w (module m) chained to the previous instruction. */
static void append_serial(vta_jit *jit, vta_insn_word *w, vta_module m, vta_format fmt,
                          int user) {
  jit_stream *s = &jit->s;
  vta_module p = s->n ? INFO_MOD(s->info[s->n - 1]) : m;
  if (p != m) {
    size_t prev = s->n - 1;
    /* load <-> store have no queue between them: go through a compute no-op. */
    int via = (p == VTA_MOD_LOAD && m == VTA_MOD_STORE) ||
              (p == VTA_MOD_STORE && m == VTA_MOD_LOAD);
    word_set_flag(jit, w, fmt, pop_flag(via ? VTA_MOD_COMPUTE : p, m));
    if (via) {
      vta_insn mid;
      make_noop(VTA_MOD_COMPUTE, &mid);
      vta_insn_word mw;
      vta_insn_encode(&jit->cfg, &mid, &mw, NULL); /* a no-op always encodes */
      word_set_flag(jit, &mw, VTA_FMT_MEM, pop_flag(p, VTA_MOD_COMPUTE));
      word_set_flag(jit, &mw, VTA_FMT_MEM, push_flag(VTA_MOD_COMPUTE, m));
      flag_set(jit, prev, push_flag(p, VTA_MOD_COMPUTE));
      put_word(jit, &mw, VTA_MOD_COMPUTE, VTA_FMT_MEM, 0);
    } else {
      flag_set(jit, prev, push_flag(p, m));
    }
  }
  put_word(jit, w, m, fmt, user);
}

/* Appends w; with takes_pops, w carries the pending pops of its module. */
static int append_word(vta_jit *jit, vta_insn_word *w, vta_module m, vta_format fmt, int user,
                       int takes_pops, vta_error *err) {
  jit_stream *s = &jit->s;
  if (s->closed)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: the stream is closed (vta_jit_finish); synchronise or discard it "
                         "before adding instructions");
  int rc = grow(jit, 2, err);
  if (rc) return rc;
  if (s->serial) {
    append_serial(jit, w, m, fmt, user);
    return VTA_OK;
  }
  if (takes_pops && m != VTA_MOD_LOAD && s->pend_prev[m]) {
    word_set_flag(jit, w, fmt, VTA_F_POP_PREV);
    s->pend_prev[m] = 0;
  }
  if (takes_pops && m != VTA_MOD_STORE && s->pend_next[m]) {
    word_set_flag(jit, w, fmt, VTA_F_POP_NEXT);
    s->pend_next[m] = 0;
  }
  count_tokens(jit, w, m, fmt);
  put_word(jit, w, m, fmt, user);
  return VTA_OK;
}

int jit_append_word(vta_jit *jit, vta_insn_word *w, vta_module m, vta_format fmt, int user,
                    vta_error *err) {
  return append_word(jit, w, m, fmt, user, 1, err);
}

/* A kernel's LOAD UOP reads nothing the other modules write: the pops pending when it is
 * appended stay for the kernel's instruction after it (in serial mode every instruction waits
 * for the one before anyway). */
int jit_append_uop_load(vta_jit *jit, vta_insn *in, vta_error *err) {
  vta_insn_word w;
  int rc = vta_insn_encode(&jit->cfg, in, &w, err);
  if (rc) return rc;
  return append_word(jit, &w, VTA_MOD_COMPUTE, VTA_FMT_MEM, 1, 0, err);
}

int jit_append(vta_jit *jit, vta_insn *in, int user, vta_error *err) {
  vta_insn_word w;
  int rc = vta_insn_encode(&jit->cfg, in, &w, err);
  if (rc) return rc;
  return jit_append_word(jit, &w, vta_insn_module(in),
                         vta_opcode_format((unsigned)in->f[VTA_F_OPCODE]), user, err);
}

/* A no-op of stage m carrying its pending pops, if it has any. */
static int commit_pending(vta_jit *jit, vta_module m, vta_error *err) {
  jit_stream *s = &jit->s;
  if (!s->pend_prev[m] && !s->pend_next[m]) return VTA_OK;
  vta_insn in;
  make_noop(m, &in);
  return jit_append(jit, &in, 0, err);
}

static int check_stages(vta_module from, vta_module to, vta_error *err) {
  if ((unsigned)from >= VTA_MOD_COUNT || (unsigned)to >= VTA_MOD_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: dependency between stages %d and %d: stages are 1 (load), "
                         "2 (compute), 3 (store)",
                         (int)from + 1, (int)to + 1);
  if (from == to || (from == VTA_MOD_LOAD && to == VTA_MOD_STORE) ||
      (from == VTA_MOD_STORE && to == VTA_MOD_LOAD))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: no token queue from %s to %s (queues connect load<->compute "
                         "and compute<->store)",
                         k_stage_names[from], k_stage_names[to]);
  return VTA_OK;
}

int jit_dep_push(vta_jit *jit, vta_module from, vta_module to, vta_error *err) {
  int rc = check_stages(from, to, err);
  if (rc) return rc;
  jit_stream *s = &jit->s;
  if (s->closed)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: the stream is closed (vta_jit_finish); synchronise or discard it");
  if (s->serial) return VTA_OK;
  rc = grow(jit, 2, err);
  if (rc) return rc;
  rc = commit_pending(jit, from, err);
  if (rc) return rc;
  vta_field_id f = push_flag(from, to);
  long last = s->last[from];
  if (last >= 0 && !flag_get(jit, (size_t)last, f)) {
    flag_set(jit, (size_t)last, f);
    s->pushed[queue_of(from, to)]++;
    return VTA_OK;
  }
  vta_insn in;
  make_noop(from, &in);
  in.f[f] = 1;
  return jit_append(jit, &in, 0, err);
}

int jit_dep_pop(vta_jit *jit, vta_module from, vta_module to, vta_error *err) {
  int rc = check_stages(from, to, err);
  if (rc) return rc;
  jit_stream *s = &jit->s;
  if (s->closed)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "jit: the stream is closed (vta_jit_finish); synchronise or discard it");
  if (s->serial) return VTA_OK;
  uint8_t *pend = from < to ? s->pend_prev : s->pend_next;
  if (pend[to]) {
    rc = commit_pending(jit, to, err);
    if (rc) return rc;
  }
  pend[to] = 1;
  return VTA_OK;
}

/* Who consumes each queue, and with which call. */
static const vta_module k_q_from[VTA_Q_COUNT] = {VTA_MOD_LOAD, VTA_MOD_COMPUTE, VTA_MOD_COMPUTE,
                                                 VTA_MOD_STORE};
static const vta_module k_q_to[VTA_Q_COUNT] = {VTA_MOD_COMPUTE, VTA_MOD_LOAD, VTA_MOD_STORE,
                                               VTA_MOD_COMPUTE};

int jit_stream_close(vta_jit *jit, vta_error *err) {
  jit_stream *s = &jit->s;
  if (s->closed) return VTA_OK;
  int rc;
  vta_insn fin;
  memset(&fin, 0, sizeof fin);
  fin.f[VTA_F_OPCODE] = VTA_OP_FINISH;
  if (s->serial) {
    if (s->n > 0 && INFO_MOD(s->info[s->n - 1]) != VTA_MOD_COMPUTE) {
      vta_insn in;
      make_noop(VTA_MOD_COMPUTE, &in);
      rc = jit_append(jit, &in, 0, err);
      if (rc) return rc;
    }
    rc = jit_append(jit, &fin, 0, err);
    if (rc) return rc;
    memset(s->carry, 0, sizeof s->carry);
    s->closed = 1;
    return VTA_OK;
  }
  /* Pops still pending belong to the program's next instructions: keep them for the next
   * stream, where the carried tokens will satisfy them. */
  uint8_t keep_prev[VTA_MOD_COUNT], keep_next[VTA_MOD_COUNT];
  memcpy(keep_prev, s->pend_prev, sizeof keep_prev);
  memcpy(keep_next, s->pend_next, sizeof keep_next);
  memset(s->pend_prev, 0, sizeof s->pend_prev);
  memset(s->pend_next, 0, sizeof s->pend_next);
  int64_t bal[VTA_Q_COUNT];
  for (int q = 0; q < VTA_Q_COUNT; q++) {
    bal[q] = s->pushed[q] - s->popped[q];
    if (bal[q] < 0) {
      rc = vta_error_set(err, VTA_ERR_DEADLOCK,
                         "jit: token queue %s: %lld pop(s) in this stream have no earlier push "
                         "(%lld pushed, %lld popped); the run could never finish",
                         vta_queue_name((vta_queue)q), (long long)-bal[q],
                         (long long)s->pushed[q], (long long)s->popped[q]);
      goto restore;
    }
    if (bal[q] > JIT_MAX_CARRY) {
      rc = vta_error_set(err, VTA_ERR_INVALID,
                         "jit: token queue %s: %lld tokens pushed and never popped (limit %d); "
                         "the program's pushes and pops do not pair up",
                         vta_queue_name((vta_queue)q), (long long)bal[q], JIT_MAX_CARRY);
      goto restore;
    }
  }
  rc = grow(jit, 8 + 2 * (size_t)(bal[0] + bal[1] + bal[2] + bal[3]), err);
  if (rc) goto restore;
  for (int q = 0; q < VTA_Q_COUNT; q++) {
    for (int64_t i = 0; i < bal[q]; i++) {
      rc = jit_dep_pop(jit, k_q_from[q], k_q_to[q], err);
      if (rc == VTA_OK) rc = commit_pending(jit, k_q_to[q], err);
      if (rc) goto restore;
    }
  }
  /* The barrier: FINISH after the last store and the last load. */
  if ((rc = jit_dep_push(jit, VTA_MOD_STORE, VTA_MOD_COMPUTE, err)) ||
      (rc = jit_dep_push(jit, VTA_MOD_LOAD, VTA_MOD_COMPUTE, err)) ||
      (rc = jit_dep_pop(jit, VTA_MOD_STORE, VTA_MOD_COMPUTE, err)) ||
      (rc = jit_dep_pop(jit, VTA_MOD_LOAD, VTA_MOD_COMPUTE, err)) ||
      (rc = commit_pending(jit, VTA_MOD_COMPUTE, err)) || (rc = jit_append(jit, &fin, 0, err)))
    goto restore;
  memcpy(s->carry, bal, sizeof bal);
  memcpy(s->pend_prev, keep_prev, sizeof keep_prev);
  memcpy(s->pend_next, keep_next, sizeof keep_next);
  s->closed = 1;
  return VTA_OK;
restore:
  /* The stream may now end in drain or barrier no-ops; they are harmless and a later close
   * counts their tokens again. Pending pops are the program's. */
  memcpy(s->pend_prev, keep_prev, sizeof keep_prev);
  memcpy(s->pend_next, keep_next, sizeof keep_next);
  return rc;
}

int jit_stream_reopen(vta_jit *jit, vta_error *err) {
  jit_stream *s = &jit->s;
  s->serial = (jit->debug & VTA_JIT_FORCE_SERIAL) != 0;
  if (s->serial) { /* the program's tokens are ignored from here on */
    memset(s->pend_prev, 0, sizeof s->pend_prev);
    memset(s->pend_next, 0, sizeof s->pend_next);
    memset(s->carry, 0, sizeof s->carry);
  }
  /* Carried pushes come before the program's pending pops in each module's order, so the
   * pops must not attach to these no-ops: hold them aside meanwhile. */
  uint8_t keep_prev[VTA_MOD_COUNT], keep_next[VTA_MOD_COUNT];
  memcpy(keep_prev, s->pend_prev, sizeof keep_prev);
  memcpy(keep_next, s->pend_next, sizeof keep_next);
  memset(s->pend_prev, 0, sizeof s->pend_prev);
  memset(s->pend_next, 0, sizeof s->pend_next);
  int rc = VTA_OK;
  for (int q = 0; q < VTA_Q_COUNT && rc == VTA_OK; q++) {
    for (int64_t i = 0; i < s->carry[q] && rc == VTA_OK; i++)
      rc = jit_dep_push(jit, k_q_from[q], k_q_to[q], err);
  }
  memset(s->carry, 0, sizeof s->carry);
  memcpy(s->pend_prev, keep_prev, sizeof keep_prev);
  memcpy(s->pend_next, keep_next, sizeof keep_next);
  return rc;
}
