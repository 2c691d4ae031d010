/* regmap.h - the accelerator's control register map (the kernel interface), written once.
 *
 * The AXI4-Lite control slave follows Vitis' ap_ctrl_hs convention: CTRL at 0x00, GIE, IER, ISR,
 * the kernel arguments from 0x10 and the read-only counters after them. Every register is one
 * line of the X-macros below (beside the instruction fields of isa.h), and everything else is
 * generated from them: the SystemVerilog constants hw/rtl/vta_ctrl.sv decodes (isa/svgen.c),
 * the offsets the Verilator harness (sim/rtl/harness.cpp) and the XRT backend
 * (driver/backend_xrt.c) use, Vitis' kernel.xml and the metadata of the xclbins the project
 * writes (isa/regmap.c), and the table in docs/hw.md (tests/isa/test_regmap.c checks that the
 * document carries exactly the generated table).
 *
 * Registers are 32 bits; a 64-bit value takes two registers, low word first.
 *
 *     for (int r = 0; r < VTA_REG_COUNT; r++) printf("0x%02x %s\n", vta_regs[r].offset,
 *                                                   vta_regs[r].name);
 *     uint32_t off = VTA_REG_OFFSET_INSN_ADDR;      // 0x18
 */
#ifndef VTA_REGMAP_H
#define VTA_REGMAP_H

#include <stdint.h>
#include <stdio.h>

#include "vta/config.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Control and interrupt registers: X(ID, name, offset, description). */
#define VTA_REGMAP_CONTROL(X)                                                                      \
  X(CTRL, ctrl, 0x00, "bit 0 ap_start, bit 1 ap_done (clear on read), bit 2 ap_idle, bit 3 "       \
                "ap_ready (clear on read), bit 7 auto_restart (not implemented, reads 0)")         \
  X(GIE, gie, 0x04, "bit 0 global interrupt enable")                                               \
  X(IER, ier, 0x08, "bit 0 done, bit 1 ready: interrupt enables")                                  \
  X(ISR, isr, 0x0C, "bit 0 done, bit 1 ready: interrupt status (write 1 toggles)")

/* Kernel arguments, in argument order: X(ID, name, offset, bits, is_pointer, C type,
 * description). A pointer argument is a buffer object's device address and is connected to m_axi_gmem. */
#define VTA_REGMAP_ARGS(X)                                                                         \
  X(INSN_COUNT, insn_count, 0x10, 32, 0, "uint", "instructions in the stream")                     \
  X(INSN_ADDR, insn_addr, 0x18, 64, 1, "void*", "physical address of the instruction stream")

/* Read-only 64-bit counters, cleared when a run starts: X(ID, name, offset, description). The
 * order is the order of the harness's counter array (rtl_model.h). */
#define VTA_REGMAP_COUNTERS(X)                                                                     \
  X(CYCLES, cycles, 0x20, "cycles of the run")                                                     \
  X(BUSY_LOAD, busy_load, 0x28, "busy cycles of the load module")                                  \
  X(BUSY_COMPUTE, busy_compute, 0x30, "busy cycles of the compute module")                         \
  X(BUSY_STORE, busy_store, 0x38, "busy cycles of the store module")                               \
  X(STALL_LOAD, stall_load, 0x40, "load: cycles waiting for a token or for memory data")           \
  X(STALL_COMPUTE, stall_compute, 0x48, "compute: cycles waiting for a token or for memory data")  \
  X(STALL_STORE, stall_store, 0x50, "store: cycles waiting for a token or for memory data")        \
  X(GEMM_UOPS, gemm_uops, 0x58, "GEMM micro-ops")                                                  \
  X(MAC_UOPS, mac_uops, 0x60,                                                                      \
    "GEMM micro-ops without reset (MACs = this x BATCH*BLOCK_IN*BLOCK_OUT)")                        \
  X(ALU_UOPS, alu_uops, 0x68, "ALU micro-ops")                                                     \
  X(INSNS_LOAD, insns_load, 0x70, "instructions completed by the load module")                     \
  X(INSNS_COMPUTE, insns_compute, 0x78, "instructions completed by the compute module")            \
  X(INSNS_STORE, insns_store, 0x80, "instructions completed by the store module")                  \
  X(FINISH, finish, 0x88, "FINISH instructions")                                                   \
  X(DUAL, dual, 0x98, "cycles in which the GEMM unit and the ALU both wrote a result")

/* Read-only 32-bit status registers: X(ID, name, offset, description). */
#define VTA_REGMAP_STATUS(X)                                                                       \
  X(STATUS, status, 0x90, "bits 2:0 busy load/compute/store, bit 3 fetch done")                    \
  X(CONFIG_ID, config_id, 0xA0,                                                                    \
    "the model key's 32-bit FNV-1a hash: the configuration the RTL was built for")

/* CTRL bits (Vitis' convention). */
#define VTA_CTRL_AP_START 0x01u
#define VTA_CTRL_AP_DONE 0x02u
#define VTA_CTRL_AP_IDLE 0x04u
#define VTA_CTRL_AP_READY 0x08u
#define VTA_CTRL_AUTO_RESTART 0x80u
/* Size of the register window (kernel.xml's s_axi_control range). */
#define VTA_REG_WINDOW 0x1000u
/* The kernel's name in kernel.xml and in xclbins. */
#define VTA_KERNEL_NAME "vta"

/* Offsets as constants: VTA_REG_OFFSET_<ID>. */
enum {
#define VTA_X_C(id, nm, off, ...) VTA_REG_OFFSET_##id = off,
#define VTA_X_A(id, nm, off, ...) VTA_REG_OFFSET_##id = off,
  VTA_REGMAP_CONTROL(VTA_X_C) VTA_REGMAP_ARGS(VTA_X_A) VTA_REGMAP_COUNTERS(VTA_X_C)
      VTA_REGMAP_STATUS(VTA_X_C)
#undef VTA_X_C
#undef VTA_X_A
};

/* Counters by index: VTA_CNT_<ID>, VTA_CNT_COUNT. */
typedef enum vta_counter {
#define VTA_X(id, ...) VTA_CNT_##id,
  VTA_REGMAP_COUNTERS(VTA_X)
#undef VTA_X
      VTA_CNT_COUNT
} vta_counter;

/* Kernel arguments by index: VTA_ARG_<ID>, VTA_ARG_COUNT. */
typedef enum vta_kernel_arg {
#define VTA_X(id, ...) VTA_ARG_##id,
  VTA_REGMAP_ARGS(VTA_X)
#undef VTA_X
      VTA_ARG_COUNT
} vta_kernel_arg;

/* Every register, in one enum: VTA_REG_<ID>, VTA_REG_COUNT. */
typedef enum vta_reg {
#define VTA_X(id, ...) VTA_REG_##id,
  VTA_REGMAP_CONTROL(VTA_X) VTA_REGMAP_ARGS(VTA_X) VTA_REGMAP_COUNTERS(VTA_X)
      VTA_REGMAP_STATUS(VTA_X)
#undef VTA_X
      VTA_REG_COUNT
} vta_reg;

typedef enum vta_reg_kind {
  VTA_REGK_CONTROL,
  VTA_REGK_ARG,
  VTA_REGK_COUNTER,
  VTA_REGK_STATUS,
  VTA_REGK_COUNT
} vta_reg_kind;

typedef struct vta_reg_info {
  const char *name;  /* "insn_addr": lower case, the kernel argument's name */
  uint32_t offset;
  unsigned bits;     /* 32 or 64 */
  vta_reg_kind kind;
  int is_pointer;    /* arguments: a buffer object's address on m_axi_gmem */
  const char *ctype; /* arguments: kernel.xml's type */
  const char *desc;
} vta_reg_info;

extern const vta_reg_info vta_regs[VTA_REG_COUNT];

/* 32-bit FNV-1a hash of a configuration's model key (the CONFIG_ID register's value). */
uint32_t vta_regmap_config_id(const vta_config *cfg);

/* Vitis' kernel.xml for package_xo (the RTL kernel's ports and arguments; m_axi_gmem's data
 * width from the configuration). */
int vta_regmap_kernel_xml(const vta_config *cfg, FILE *out, vta_error *err);
/* The same kernel in the form xclbins carry in EMBEDDED_METADATA (project/platform/device/core),
 * as read by XRT; platform names the platform (VBNV). */
int vta_regmap_xclbin_xml(const vta_config *cfg, const char *platform, FILE *out,
                          vta_error *err);
/* The IP-XACT register map of s_axi_control for Vivado's IP packager (Tcl sourced by
 * hw/vitis/package_xo.tcl with $core set). */
int vta_regmap_kernel_tcl(FILE *out, vta_error *err);
/* The register table of docs/hw.md (markdown). */
void vta_regmap_markdown(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
