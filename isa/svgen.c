/* svgen.c - writes the SystemVerilog package `vta_pkg` from a derived configuration.
 *
 * The design idea: the package is a mechanical transcription of what vta_config_derive already
 * computed, never a second description. Scalars come from the derived values (widths, element
 * bytes, buffer depths, bus width); every instruction format becomes a packed struct whose
 * members are the fields of the layout in packing order, with the unused gaps named rsvd_<lsb>,
 * so that casting a 128-bit word to the struct reads exactly the bits the C decoder reads. Each
 * field also gets <Format><Field>Lsb / <Format><Field>W parameters for assertions and docs. The
 * names are derived from the table's own names (vta_field_name, vta_format_name, ...), so a field
 * added to the table appears in the package without touching this file.
 */
#include "isa/svgen.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "vta/regmap.h"

/* "sram_base" -> "SramBase" (SystemVerilog parameter names, lowRISC style). */
static void camel(const char *in, char *out, size_t n) {
  size_t o = 0;
  int up = 1;
  for (const char *p = in; *p && o + 1 < n; p++) {
    if (*p == '_' || *p == '-' || *p == ' ') {
      up = 1;
      continue;
    }
    out[o++] = (char)(up ? toupper((unsigned char)*p) : *p);
    up = 0;
  }
  out[o] = '\0';
}

static void lower(const char *in, char *out, size_t n) {
  size_t o = 0;
  for (const char *p = in; *p && o + 1 < n; p++) out[o++] = (char)tolower((unsigned char)*p);
  out[o] = '\0';
}

static int ilog2u(uint64_t v) {
  int l = 0;
  while ((1ull << l) < v) l++;
  return l;
}

/* Word width of a format: instructions are 128 bits, micro-ops 32. */
static unsigned format_bits(vta_format f) { return f == VTA_FMT_UOP ? 32u : 128u; }

static void emit_int(FILE *out, const char *name, long long v, const char *why) {
  if (why)
    fprintf(out, "  localparam int unsigned %s = %lld;  // %s\n", name, v, why);
  else
    fprintf(out, "  localparam int unsigned %s = %lld;\n", name, v);
}

/* The control register map of include/vta/regmap.h: Reg<Name> offsets, the counters' indices
 * Cnt<Name> and their offsets packed into CntOffsets (8 bits per counter, counter 0 lowest), and
 * the CONFIG_ID register's value. */
static void emit_regmap(const vta_config *cfg, FILE *out) {
  char nm[64], name[96];
  fprintf(out, "\n  // ---- control registers (include/vta/regmap.h) ----\n");
  for (int r = 0; r < VTA_REG_COUNT; r++) {
    camel(vta_regs[r].name, nm, sizeof nm);
    fprintf(out, "  localparam logic [7:0] Reg%s = 8'h%02X;\n", nm, vta_regs[r].offset);
  }
  int n = 0;
  for (int r = 0; r < VTA_REG_COUNT; r++) {
    if (vta_regs[r].kind != VTA_REGK_COUNTER) continue;
    camel(vta_regs[r].name, nm, sizeof nm);
    snprintf(name, sizeof name, "Cnt%s", nm);
    emit_int(out, name, n++, NULL);
  }
  emit_int(out, "NumCounters", n, "64-bit read-only counters");
  fprintf(out, "  localparam logic [%d:0] CntOffsets = {", n * 8 - 1);
  for (int r = VTA_REG_COUNT - 1, first = 1; r >= 0; r--) {
    if (vta_regs[r].kind != VTA_REGK_COUNTER) continue;
    fprintf(out, "%s8'h%02X", first ? "" : ", ", vta_regs[r].offset);
    first = 0;
  }
  fprintf(out, "};\n");
  fprintf(out, "  localparam logic [31:0] ConfigId = 32'h%08X;  // FNV-1a of the model key\n",
          vta_regmap_config_id(cfg));
}

/* The fields of one format sorted by lsb (the layout's order is packing order already, but
 * sorting keeps the struct right even if a table lists fields out of bit order). */
static int sorted_fields(const vta_format_layout *lay, int ids[VTA_F_COUNT]) {
  int n = 0;
  for (int f = 0; f < VTA_F_COUNT; f++)
    if (lay->pos[f].width) ids[n++] = f;
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && lay->pos[ids[b - 1]].lsb > lay->pos[ids[b]].lsb; b--) {
      int t = ids[b];
      ids[b] = ids[b - 1];
      ids[b - 1] = t;
    }
  return n;
}

static int emit_format(const vta_config *cfg, vta_format fmt, FILE *out, vta_error *err) {
  const vta_format_layout *lay = &cfg->layout[fmt];
  char fname[32], fcamel[32], name[96], member[48];
  lower(vta_format_name(fmt), fname, sizeof fname);
  camel(vta_format_name(fmt), fcamel, sizeof fcamel);
  unsigned bits = format_bits(fmt);
  int ids[VTA_F_COUNT];
  int n = sorted_fields(lay, ids);

  fprintf(out, "\n  // ---- %s format (%u-bit word) ----\n", fname, bits);
  unsigned next = 0;
  for (int k = 0; k < n; k++) {
    vta_field_pos p = lay->pos[ids[k]];
    if (p.width > 64 || p.lsb + p.width > bits || p.lsb < next)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "svgen: field %s of format %s at bit %u width %u does not fit a "
                           "%u-bit word without overlap",
                           vta_field_name((vta_field_id)ids[k]), fname, p.lsb, p.width, bits);
    camel(vta_field_name((vta_field_id)ids[k]), member, sizeof member);
    snprintf(name, sizeof name, "%s%sLsb", fcamel, member);
    emit_int(out, name, p.lsb, NULL);
    snprintf(name, sizeof name, "%s%sW", fcamel, member);
    emit_int(out, name, p.width, p.is_signed ? "signed" : NULL);
    next = p.lsb + p.width;
  }

  /* The packed struct lists members from the most significant bit down. */
  fprintf(out, "  typedef struct packed {\n");
  unsigned top = bits;
  for (int k = n - 1; k >= 0; k--) {
    vta_field_pos p = lay->pos[ids[k]];
    unsigned end = (unsigned)p.lsb + p.width;
    if (end < top) fprintf(out, "    logic [%u:0] rsvd_%u;\n", top - end - 1, end);
    lower(vta_field_name((vta_field_id)ids[k]), member, sizeof member);
    fprintf(out, "    logic %s[%u:0] %s;\n", p.is_signed ? "signed " : "", p.width - 1u, member);
    top = p.lsb;
  }
  if (top > 0) fprintf(out, "    logic [%u:0] rsvd_0;\n", top - 1);
  fprintf(out, "  } %s_%s_t;\n", fname, fmt == VTA_FMT_UOP ? "word" : "insn");
  return VTA_OK;
}

static void emit_enum(FILE *out, const char *prefix, const char *(*namer)(unsigned), unsigned count,
                      unsigned width) {
  char nm[48], full[96];
  for (unsigned v = 0; v < count; v++) {
    const char *s = namer(v);
    if (!s) continue;
    camel(s, nm, sizeof nm);
    snprintf(full, sizeof full, "%s%s", prefix, nm);
    fprintf(out, "  localparam logic [%u:0] %s = %u'd%u;\n", width - 1, full, width, v);
  }
}

int vta_svgen_package(const vta_config *cfg, FILE *out, vta_error *err) {
  char key[160];
  vta_svgen_model_key(cfg, key, sizeof key);
  fprintf(out,
          "// vta_pkg.sv - GENERATED by isa/svgen.c from the configuration; do not edit.\n"
          "// Model key: %s\n"
          "// Every width, depth and field position of the RTL comes from here.\n"
          "package vta_pkg;\n\n",
          key);

  fprintf(out, "  // ---- configuration (log2 values are the JSON keys) ----\n");
  emit_int(out, "LogInpWidth", cfg->log_inp_width, NULL);
  emit_int(out, "LogWgtWidth", cfg->log_wgt_width, NULL);
  emit_int(out, "LogAccWidth", cfg->log_acc_width, NULL);
  emit_int(out, "LogOutWidth", cfg->log_out_width, NULL);
  emit_int(out, "LogBatch", cfg->log_batch, NULL);
  emit_int(out, "LogBlockIn", cfg->log_block_in, NULL);
  emit_int(out, "LogBlockOut", cfg->log_block_out, NULL);
  emit_int(out, "Batch", cfg->batch, NULL);
  emit_int(out, "BlockIn", cfg->block_in, NULL);
  emit_int(out, "BlockOut", cfg->block_out, NULL);
  emit_int(out, "InpWidth", cfg->inp_width, "bits per input element");
  emit_int(out, "WgtWidth", cfg->wgt_width, "bits per weight element");
  emit_int(out, "AccWidth", cfg->acc_width, "bits per accumulator element");
  emit_int(out, "OutWidth", cfg->out_width, "bits per output element");
  emit_int(out, "MacsPerCycle", (long long)cfg->macs_per_cycle, "BATCH*BLOCK_IN*BLOCK_OUT");
  emit_int(out, "BusBytes", cfg->bus_bytes, "AXI data bytes per beat");
  emit_int(out, "LogBusBytes", ilog2u(cfg->bus_bytes), NULL);
  emit_int(out, "BusWidth", (long long)cfg->bus_bytes * 8, NULL);
  emit_int(out, "AxiAddrWidth", VTA_SVGEN_AXI_ADDR_BITS, NULL);
  emit_int(out, "InsnBytes", VTA_INSN_BYTES, NULL);
  emit_int(out, "UopBytes", VTA_UOP_BYTES, NULL);

  fprintf(out, "\n  // ---- elements and buffers, per memory type ----\n");
  char tn[32], name[96];
  for (unsigned t = 0; t < VTA_MEM_COUNT; t++) {
    camel(vta_mem_type_name(t), tn, sizeof tn);
    snprintf(name, sizeof name, "%sElemBytes", tn);
    emit_int(out, name, cfg->elem_bytes[t], NULL);
    snprintf(name, sizeof name, "Log%sElemBytes", tn);
    emit_int(out, name, ilog2u(cfg->elem_bytes[t]), NULL);
    snprintf(name, sizeof name, "Log%sDepth", tn);
    emit_int(out, name, cfg->log_depth[t], NULL);
    snprintf(name, sizeof name, "%sDepth", tn);
    emit_int(out, name, cfg->depth[t], NULL);
  }
  /* Lanes of one ACC element and the width of an ACC_8BIT lane in DRAM. */
  uint32_t lanes = cfg->batch * cfg->block_out;
  emit_int(out, "AccLanes", lanes, "BATCH*BLOCK_OUT");
  emit_int(out, "Acc8Width", (long long)cfg->elem_bytes[VTA_MEM_ACC_8BIT] * 8 / lanes,
           "bits per lane of an ACC_8BIT element in DRAM");
  emit_int(out, "GemmTreeLevels", cfg->gemm_tree_levels, "ceil(log2 BLOCK_IN) adder-tree levels");
  emit_int(out, "ComputeC1", cfg->compute_c1, "cycles from a micro-op's issue to its ACC read");
  emit_int(out, "ComputeAluC1", cfg->compute_alu_c1,
           "the same for the ALU (its operands have a stage of their own)");

  fprintf(out, "\n  // ---- opcodes and enumerations ----\n");
  unsigned opw = cfg->layout[VTA_FMT_MEM].pos[VTA_F_OPCODE].width;
  unsigned mtw = cfg->layout[VTA_FMT_MEM].pos[VTA_F_MEMORY_TYPE].width;
  unsigned aow = cfg->layout[VTA_FMT_ALU].pos[VTA_F_ALU_OPCODE].width;
  emit_enum(out, "Op", vta_opcode_name, VTA_OP_COUNT, opw);
  emit_enum(out, "Mem", vta_mem_type_name, VTA_MEM_COUNT, mtw);
  emit_enum(out, "Alu", vta_alu_op_name, VTA_ALU_COUNT, aow);

  for (unsigned f = 0; f < VTA_FMT_COUNT; f++) {
    int rc = emit_format(cfg, (vta_format)f, out, err);
    if (rc != VTA_OK) return rc;
  }
  emit_regmap(cfg, out);
  fprintf(out, "\nendpackage\n");
  if (ferror(out)) return vta_error_set(err, VTA_ERR_IO, "svgen: writing the package failed");
  return VTA_OK;
}

void vta_svgen_model_key(const vta_config *cfg, char *buf, size_t n) {
  snprintf(buf, n, "i%dw%da%do%d_b%di%do%d_u%di%dw%da%d_bus%d", cfg->log_inp_width,
           cfg->log_wgt_width, cfg->log_acc_width, cfg->log_out_width, cfg->log_batch,
           cfg->log_block_in, cfg->log_block_out, cfg->log_uop_buff_size, cfg->log_inp_buff_size,
           cfg->log_wgt_buff_size, cfg->log_acc_buff_size, cfg->log_bus_width);
}
