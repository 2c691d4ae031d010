/* fields.c - the field table expanded into layouts, encoders and decoders.
 *
 * VTA_FORMAT_FIELDS (vta/isa.h) lists every field of every format once, in packing order. At
 * configuration time vta_isa_layout walks it and computes each field's bit position under the
 * packing rule of ISA.md (fields from bit 0 upward; one that would straddle bit 64 moves to bit
 * 64). Everything else - encode, decode, the text form, the simulators and the generated
 * SystemVerilog package - reads those positions, so a field can only ever be described here.
 */
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "isa/isa_internal.h"
#include "vta/config.h"

typedef struct field_row {
  vta_format fmt;
  vta_field_id id;
  vta_width_kind kind;
  uint8_t fixed;
  uint8_t is_signed;
} field_row;

static const field_row k_rows[] = {
#define VTA_X_(fmt, id, kind, fixed, sgn) {VTA_FMT_##fmt, VTA_F_##id, VTA_W_##kind, fixed, sgn},
    VTA_FORMAT_FIELDS(VTA_X_)
#undef VTA_X_
};

static const char *const k_field_names[] = {
#define VTA_X_(id, name) name,
    VTA_FIELD_IDS(VTA_X_)
#undef VTA_X_
};
_Static_assert(sizeof k_field_names / sizeof k_field_names[0] == VTA_F_COUNT,
               "every field id needs a name");

static const char *const k_opcode_names[] = {"load", "store", "gemm", "finish", "alu"};
_Static_assert(sizeof k_opcode_names / sizeof k_opcode_names[0] == VTA_OP_COUNT, "opcode names");
static const char *const k_mem_names[] = {"uop", "wgt", "inp", "acc", "out", "acc_8bit"};
_Static_assert(sizeof k_mem_names / sizeof k_mem_names[0] == VTA_MEM_COUNT, "memory names");
static const char *const k_alu_names[] = {"min", "max", "add", "shr", "mul", "shrclip"};
_Static_assert(sizeof k_alu_names / sizeof k_alu_names[0] == VTA_ALU_COUNT, "alu names");
static const char *const k_module_names[] = {"load", "compute", "store"};
_Static_assert(sizeof k_module_names / sizeof k_module_names[0] == VTA_MOD_COUNT, "modules");
static const char *const k_queue_names[] = {"load->compute", "compute->load", "compute->store",
                                            "store->compute"};
_Static_assert(sizeof k_queue_names / sizeof k_queue_names[0] == VTA_Q_COUNT, "queues");
static const char *const k_format_names[] = {"memory", "gemm", "alu", "finish", "uop"};
_Static_assert(sizeof k_format_names / sizeof k_format_names[0] == VTA_FMT_COUNT, "formats");

const char *vta_field_name(vta_field_id id) {
  return (unsigned)id < VTA_F_COUNT ? k_field_names[id] : NULL;
}
int vta_field_lookup(const char *name, size_t len) {
  for (int i = 0; i < VTA_F_COUNT; i++)
    if (strlen(k_field_names[i]) == len && strncasecmp(k_field_names[i], name, len) == 0) return i;
  return -1;
}
const char *vta_opcode_name(unsigned op) { return op < VTA_OP_COUNT ? k_opcode_names[op] : NULL; }
const char *vta_mem_type_name(unsigned t) { return t < VTA_MEM_COUNT ? k_mem_names[t] : NULL; }
const char *vta_alu_op_name(unsigned op) { return op < VTA_ALU_COUNT ? k_alu_names[op] : NULL; }
const char *vta_module_name(vta_module m) {
  return (unsigned)m < VTA_MOD_COUNT ? k_module_names[m] : NULL;
}
const char *vta_queue_name(vta_queue q) {
  return (unsigned)q < VTA_Q_COUNT ? k_queue_names[q] : NULL;
}
const char *vta_format_name(vta_format f) {
  return (unsigned)f < VTA_FMT_COUNT ? k_format_names[f] : NULL;
}

int vta_format_has_field(vta_format fmt, vta_field_id id) {
  for (size_t i = 0; i < sizeof k_rows / sizeof k_rows[0]; i++)
    if (k_rows[i].fmt == fmt && k_rows[i].id == id) return 1;
  return 0;
}

vta_format vta_opcode_format(unsigned opcode) {
  switch (opcode) {
  case VTA_OP_LOAD:
  case VTA_OP_STORE: return VTA_FMT_MEM;
  case VTA_OP_GEMM: return VTA_FMT_GEMM;
  case VTA_OP_ALU: return VTA_FMT_ALU;
  case VTA_OP_FINISH: return VTA_FMT_FINISH;
  default: return VTA_FMT_COUNT;
  }
}

vta_module vta_insn_module(const vta_insn *insn) {
  int64_t op = insn->f[VTA_F_OPCODE];
  if (op == VTA_OP_STORE) return VTA_MOD_STORE;
  if (op == VTA_OP_LOAD) {
    int64_t t = insn->f[VTA_F_MEMORY_TYPE];
    if (t == VTA_MEM_INP || t == VTA_MEM_WGT) return VTA_MOD_LOAD;
  }
  return VTA_MOD_COMPUTE;
}

static int width_of(const vta_config *cfg, const field_row *r) {
  switch (r->kind) {
  case VTA_W_FIXED: return r->fixed;
  case VTA_W_UOP_DEPTH: return cfg->log_depth[VTA_MEM_UOP];
  case VTA_W_UOP_DEPTH_P1: return cfg->log_depth[VTA_MEM_UOP] + 1;
  case VTA_W_INP_DEPTH: return cfg->log_depth[VTA_MEM_INP];
  case VTA_W_WGT_DEPTH: return cfg->log_depth[VTA_MEM_WGT];
  case VTA_W_ACC_DEPTH: return cfg->log_depth[VTA_MEM_ACC];
  case VTA_W_SRC_DEPTH: {
    int a = cfg->log_depth[VTA_MEM_ACC], i = cfg->log_depth[VTA_MEM_INP];
    return a > i ? a : i;
  }
  default: return -1;
  }
}

int vta_isa_layout(vta_config *cfg, const char *origin, vta_error *err) {
  for (int f = 0; f < VTA_FMT_COUNT; f++) {
    vta_format_layout *L = &cfg->layout[f];
    memset(L, 0, sizeof *L);
    unsigned limit = f == VTA_FMT_UOP ? 32 : 128;
    unsigned bit = 0;
    uint64_t used[2] = {0, 0};
    for (size_t i = 0; i < sizeof k_rows / sizeof k_rows[0]; i++) {
      const field_row *r = &k_rows[i];
      if ((int)r->fmt != f) continue;
      int w = width_of(cfg, r);
      if (w <= 0 || w > 32) {
        return vta_error_set(err, VTA_ERR_INVALID,
                             "%s: %s field %s would be %d bits wide (must be 1 to 32)", origin,
                             k_format_names[f], k_field_names[r->id], w);
      }
      if (f != VTA_FMT_UOP && bit < 64 && bit + (unsigned)w > 64) bit = 64;
      if (bit + (unsigned)w > limit) {
        return vta_error_set(
            err, VTA_ERR_INVALID,
            "%s: %s field %s (%d bits) no longer fits the %u-bit %s: it would end at bit %u; "
            "reduce the buffer sizes",
            origin, k_format_names[f], k_field_names[r->id], w, limit,
            f == VTA_FMT_UOP ? "micro-op" : "instruction", bit + (unsigned)w - 1);
      }
      L->pos[r->id].lsb = (uint8_t)bit;
      L->pos[r->id].width = (uint8_t)w;
      L->pos[r->id].is_signed = r->is_signed;
      L->order[L->nfields++] = (uint8_t)r->id;
      for (unsigned b = bit; b < bit + (unsigned)w; b++) used[b / 64] |= 1ull << (b % 64);
      bit += (unsigned)w;
    }
    L->bits_used = (uint8_t)bit;
    L->reserved_mask[0] = ~used[0];
    L->reserved_mask[1] = limit == 32 ? 0 : ~used[1];
    if (limit == 32) L->reserved_mask[0] &= 0xffffffffull;
  }
  return VTA_OK;
}

uint64_t vta_word_get(const vta_insn_word *w, vta_field_pos p) {
  /* Fields never straddle bit 64 (the packing rule), so one word holds each. */
  uint64_t word = w->w[p.lsb / 64];
  uint64_t mask = p.width >= 64 ? ~0ull : ((1ull << p.width) - 1);
  return (word >> (p.lsb % 64)) & mask;
}

void vta_word_set(vta_insn_word *w, vta_field_pos p, uint64_t v) {
  uint64_t mask = p.width >= 64 ? ~0ull : ((1ull << p.width) - 1);
  unsigned sh = p.lsb % 64;
  w->w[p.lsb / 64] = (w->w[p.lsb / 64] & ~(mask << sh)) | ((v & mask) << sh);
}

static int field_fits(vta_field_pos p, int64_t v, int64_t *lo, int64_t *hi) {
  if (p.is_signed) {
    *lo = -(1ll << (p.width - 1));
    *hi = (1ll << (p.width - 1)) - 1;
  } else {
    *lo = 0;
    *hi = (int64_t)((1ull << p.width) - 1);
  }
  return v >= *lo && v <= *hi;
}

int vta_insn_encode(const vta_config *cfg, const vta_insn *insn, vta_insn_word *out,
                    vta_error *err) {
  int64_t op = insn->f[VTA_F_OPCODE];
  vta_format fmt = (op >= 0 && op < VTA_OP_COUNT) ? vta_opcode_format((unsigned)op) : VTA_FMT_COUNT;
  if (fmt == VTA_FMT_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "opcode %" PRId64 " is undefined (0 to %d)", op,
                         VTA_OP_COUNT - 1);
  const vta_format_layout *L = &cfg->layout[fmt];
  out->w[0] = out->w[1] = 0;
  for (int id = 0; id < VTA_F_COUNT; id++) {
    vta_field_pos p = L->pos[id];
    int64_t v = insn->f[id];
    if (p.width == 0) {
      if (v != 0)
        return vta_error_set(err, VTA_ERR_INVALID,
                             "%s: field %s = %" PRId64 " is not part of the %s format",
                             k_opcode_names[op], k_field_names[id], v, k_format_names[fmt]);
      continue;
    }
    int64_t lo, hi;
    if (!field_fits(p, v, &lo, &hi))
      return vta_error_set(err, VTA_ERR_INVALID,
                           "%s: field %s = %" PRId64 " does not fit its %u bits (%" PRId64
                           " to %" PRId64 ")",
                           k_opcode_names[op], k_field_names[id], v, p.width, lo, hi);
    vta_word_set(out, p, (uint64_t)v);
  }
  return VTA_OK;
}

int vta_insn_decode(const vta_config *cfg, const vta_insn_word *word, vta_insn *out,
                    vta_error *err) {
  memset(out, 0, sizeof *out);
  unsigned op = (unsigned)(word->w[0] & 7);
  vta_format fmt = vta_opcode_format(op);
  if (fmt == VTA_FMT_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID, "undefined opcode %u (0 to %d are defined)", op,
                         VTA_OP_COUNT - 1);
  const vta_format_layout *L = &cfg->layout[fmt];
  for (int k = 0; k < 2; k++) {
    uint64_t bad = word->w[k] & L->reserved_mask[k];
    if (bad) {
      int b = __builtin_ctzll(bad) + 64 * k;
      return vta_error_set(err, VTA_ERR_INVALID,
                           "%s instruction has reserved bit %d set (word %016" PRIx64
                           "%016" PRIx64 ")",
                           k_opcode_names[op], b, word->w[1], word->w[0]);
    }
  }
  for (int i = 0; i < L->nfields; i++) {
    int id = L->order[i];
    vta_field_pos p = L->pos[id];
    uint64_t raw = vta_word_get(word, p);
    if (p.is_signed && (raw >> (p.width - 1)) & 1)
      out->f[id] = (int64_t)raw - (int64_t)(1ull << p.width);
    else
      out->f[id] = (int64_t)raw;
  }
  return VTA_OK;
}

int vta_insn_check(const vta_config *cfg, const vta_insn *insn, vta_error *err) {
  int64_t op = insn->f[VTA_F_OPCODE];
  switch (op) {
  case VTA_OP_LOAD: {
    int64_t t = insn->f[VTA_F_MEMORY_TYPE];
    if (t < 0 || t >= VTA_MEM_COUNT)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "load: undefined memory_type %" PRId64 " (0 to %d are defined)", t,
                           VTA_MEM_COUNT - 1);
    if (t == VTA_MEM_OUT)
      return vta_error_set(err, VTA_ERR_INVALID, "load: memory_type out cannot be loaded");
    if (t == VTA_MEM_UOP && insn->f[VTA_F_X_SIZE] != 0 &&
        (insn->f[VTA_F_Y_SIZE] != 1 || insn->f[VTA_F_X_PAD_0] || insn->f[VTA_F_X_PAD_1] ||
         insn->f[VTA_F_Y_PAD_0] || insn->f[VTA_F_Y_PAD_1]))
      return vta_error_set(err, VTA_ERR_INVALID,
                           "load uop: y_size must be 1 and padding 0 (got y_size=%" PRId64 ")",
                           insn->f[VTA_F_Y_SIZE]);
    break;
  }
  case VTA_OP_STORE: {
    int64_t t = insn->f[VTA_F_MEMORY_TYPE];
    if (t != VTA_MEM_OUT) {
      if (t >= 0 && t < VTA_MEM_COUNT)
        return vta_error_set(err, VTA_ERR_INVALID, "store: memory_type must be out (got %s)",
                             k_mem_names[t]);
      return vta_error_set(err, VTA_ERR_INVALID, "store: undefined memory_type %" PRId64, t);
    }
    if (insn->f[VTA_F_X_PAD_0] || insn->f[VTA_F_X_PAD_1] || insn->f[VTA_F_Y_PAD_0] ||
        insn->f[VTA_F_Y_PAD_1])
      return vta_error_set(err, VTA_ERR_INVALID,
                           "store: padding must be 0 (y_pad_0=%d y_pad_1=%d x_pad_0=%d "
                           "x_pad_1=%d)",
                           (int)insn->f[VTA_F_Y_PAD_0], (int)insn->f[VTA_F_Y_PAD_1],
                           (int)insn->f[VTA_F_X_PAD_0], (int)insn->f[VTA_F_X_PAD_1]);
    break;
  }
  case VTA_OP_GEMM:
  case VTA_OP_ALU: {
    int64_t b = insn->f[VTA_F_UOP_BGN], e = insn->f[VTA_F_UOP_END];
    if (!(b < e) || e > (int64_t)cfg->depth[VTA_MEM_UOP])
      return vta_error_set(err, VTA_ERR_INVALID,
                           "%s: micro-op range [%" PRId64 ", %" PRId64
                           ") is empty or exceeds the micro-op buffer (%u entries)",
                           k_opcode_names[op], b, e, cfg->depth[VTA_MEM_UOP]);
    if (op == VTA_OP_ALU && (insn->f[VTA_F_ALU_OPCODE] < 0 ||
                             insn->f[VTA_F_ALU_OPCODE] >= VTA_ALU_COUNT))
      return vta_error_set(err, VTA_ERR_INVALID, "alu: undefined alu_opcode %" PRId64,
                           insn->f[VTA_F_ALU_OPCODE]);
    break;
  }
  case VTA_OP_FINISH:
    if (insn->f[VTA_F_POP_PREV] || insn->f[VTA_F_POP_NEXT])
      return vta_error_set(err, VTA_ERR_INVALID,
                           "finish: may not pop a dependency token (pop_prev=%d pop_next=%d); "
                           "pop before it with a compute no-op",
                           (int)insn->f[VTA_F_POP_PREV], (int)insn->f[VTA_F_POP_NEXT]);
    break;
  default:
    return vta_error_set(err, VTA_ERR_INVALID, "undefined opcode %" PRId64, op);
  }
  return VTA_OK;
}

int vta_uop_encode(const vta_config *cfg, const vta_uop *uop, uint32_t *out, vta_error *err) {
  const vta_format_layout *L = &cfg->layout[VTA_FMT_UOP];
  const uint32_t v[3] = {uop->dst, uop->src, uop->wgt};
  const vta_field_id ids[3] = {VTA_F_UOP_DST, VTA_F_UOP_SRC, VTA_F_UOP_WGT};
  uint32_t w = 0;
  for (int i = 0; i < 3; i++) {
    vta_field_pos p = L->pos[ids[i]];
    if (p.width < 32 && v[i] >> p.width)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "uop: field %s = %u does not fit its %u bits (0 to %u)",
                           k_field_names[ids[i]], v[i], p.width, (1u << p.width) - 1);
    w |= v[i] << p.lsb;
  }
  *out = w;
  return VTA_OK;
}

void vta_uop_decode(const vta_config *cfg, uint32_t word, vta_uop *out) {
  const vta_format_layout *L = &cfg->layout[VTA_FMT_UOP];
  vta_field_pos d = L->pos[VTA_F_UOP_DST], s = L->pos[VTA_F_UOP_SRC], g = L->pos[VTA_F_UOP_WGT];
  out->dst = (word >> d.lsb) & ((1u << d.width) - 1);
  out->src = (word >> s.lsb) & ((1u << s.width) - 1);
  out->wgt = g.width >= 32 ? word >> g.lsb : (word >> g.lsb) & ((1u << g.width) - 1);
}

void vta_insn_word_store(const vta_insn_word *w, uint8_t out[VTA_INSN_BYTES]) {
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 8; i++) out[8 * k + i] = (uint8_t)(w->w[k] >> (8 * i));
}

void vta_insn_word_load(const uint8_t in[VTA_INSN_BYTES], vta_insn_word *w) {
  for (int k = 0; k < 2; k++) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | in[8 * k + i];
    w->w[k] = v;
  }
}
