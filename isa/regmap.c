/* regmap.c - the control register table (regmap.h) and what is generated from it: Vitis'
 * kernel.xml, the kernel metadata of an xclbin, and the documentation table.
 *
 * The design idea: the X-macros of regmap.h are the only description of the kernel interface.
 * This file expands them into a table (name, offset, width, kind) and writes every text that
 * other tools read from that table; nothing here types an offset.
 */
#include "vta/regmap.h"

#include <string.h>

#include "isa/svgen.h"

const vta_reg_info vta_regs[VTA_REG_COUNT] = {
#define VTA_X_C(id, nm, off, desc) [VTA_REG_##id] = {#nm, off, 32, VTA_REGK_CONTROL, 0, NULL, desc},
#define VTA_X_A(id, nm, off, bits, ptr, ctype, desc) \
  [VTA_REG_##id] = {#nm, off, bits, VTA_REGK_ARG, ptr, ctype, desc},
#define VTA_X_K(id, nm, off, desc) [VTA_REG_##id] = {#nm, off, 64, VTA_REGK_COUNTER, 0, NULL, desc},
#define VTA_X_S(id, nm, off, desc) [VTA_REG_##id] = {#nm, off, 32, VTA_REGK_STATUS, 0, NULL, desc},
    VTA_REGMAP_CONTROL(VTA_X_C) VTA_REGMAP_ARGS(VTA_X_A) VTA_REGMAP_COUNTERS(VTA_X_K)
        VTA_REGMAP_STATUS(VTA_X_S)
#undef VTA_X_C
#undef VTA_X_A
#undef VTA_X_K
#undef VTA_X_S
};

uint32_t vta_regmap_config_id(const vta_config *cfg) {
  char key[160];
  vta_svgen_model_key(cfg, key, sizeof key);
  uint32_t h = 2166136261u;
  for (const char *p = key; *p; p++) {
    h ^= (uint8_t)*p;
    h *= 16777619u;
  }
  return h;
}

static int io_check(FILE *out, vta_error *err) {
  if (fflush(out) != 0 || ferror(out))
    return vta_error_set(err, VTA_ERR_IO, "writing the kernel description failed");
  return VTA_OK;
}

/* Attributes common to both XML forms of an argument. */
static void arg_attrs(FILE *out, int id, const vta_reg_info *r, const char *ctl, const char *gmem) {
  fprintf(out,
          "name=\"%s\" addressQualifier=\"%d\" id=\"%d\" port=\"%s\" size=\"0x%x\" "
          "offset=\"0x%x\" hostOffset=\"0x0\" hostSize=\"0x%x\" type=\"%s\"",
          r->name, r->is_pointer ? 1 : 0, id, r->is_pointer ? gmem : ctl, r->bits / 8, r->offset,
          r->bits / 8, r->ctype);
}

int vta_regmap_kernel_xml(const vta_config *cfg, FILE *out, vta_error *err) {
  char key[160];
  vta_svgen_model_key(cfg, key, sizeof key);
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<!-- Generated from include/vta/regmap.h for configuration %s: do not edit. -->\n"
          "<root versionMajor=\"1\" versionMinor=\"6\">\n"
          "  <kernel name=\"%s\" language=\"ip_c\" vlnv=\"vta:kernel:%s:1.0\" attributes=\"\" "
          "preferredWorkGroupSizeMultiple=\"0\" workGroupSize=\"1\" interrupt=\"true\" "
          "hwControlProtocol=\"ap_ctrl_hs\">\n"
          "    <ports>\n"
          "      <port name=\"s_axi_control\" mode=\"slave\" range=\"0x%x\" dataWidth=\"32\" "
          "portType=\"addressable\" base=\"0x0\"/>\n"
          "      <port name=\"m_axi_gmem\" mode=\"master\" range=\"0xFFFFFFFFFFFFFFFF\" "
          "dataWidth=\"%u\" portType=\"addressable\" base=\"0x0\"/>\n"
          "    </ports>\n"
          "    <args>\n",
          key, VTA_KERNEL_NAME, VTA_KERNEL_NAME, VTA_REG_WINDOW, cfg->bus_bytes * 8);
  int id = 0;
  for (int r = 0; r < VTA_REG_COUNT; r++) {
    if (vta_regs[r].kind != VTA_REGK_ARG) continue;
    fprintf(out, "      <arg ");
    arg_attrs(out, id++, &vta_regs[r], "s_axi_control", "m_axi_gmem");
    fprintf(out, "/>\n");
  }
  fprintf(out, "    </args>\n  </kernel>\n</root>\n");
  return io_check(out, err);
}

int vta_regmap_xclbin_xml(const vta_config *cfg, const char *platform, FILE *out, vta_error *err) {
  char key[160];
  vta_svgen_model_key(cfg, key, sizeof key);
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<project name=\"%s\">\n"
          "  <platform vendor=\"vta\" boardid=\"%s\" name=\"%s\" featureRomTime=\"0\">\n"
          "    <version major=\"1\" minor=\"0\"/>\n"
          "    <device name=\"fpga0\" fpgaDevice=\"%s\" addrWidth=\"64\">\n"
          "      <core name=\"OCL_REGION_0\" target=\"bitstream\" type=\"clc_region\" "
          "clockFreq=\"%.0fMHz\" numComputeUnits=\"1\">\n"
          "        <kernel name=\"%s\" language=\"c\" vlnv=\"vta:kernel:%s:1.0\" "
          "preferredWorkGroupSizeMultiple=\"0\" workGroupSize=\"1\" interrupt=\"true\" "
          "hwControlProtocol=\"ap_ctrl_hs\" vtaConfig=\"%s\">\n"
          "          <port name=\"S_AXI_CONTROL\" mode=\"slave\" range=\"0x%x\" "
          "dataWidth=\"32\" portType=\"addressable\" base=\"0x0\"/>\n"
          "          <port name=\"M_AXI_GMEM\" mode=\"master\" range=\"0xFFFFFFFFFFFFFFFF\" "
          "dataWidth=\"%u\" portType=\"addressable\" base=\"0x0\"/>\n",
          VTA_KERNEL_NAME, platform, platform, platform, cfg->clock_mhz, VTA_KERNEL_NAME,
          VTA_KERNEL_NAME, key, VTA_REG_WINDOW, cfg->bus_bytes * 8);
  int id = 0;
  for (int r = 0; r < VTA_REG_COUNT; r++) {
    if (vta_regs[r].kind != VTA_REGK_ARG) continue;
    fprintf(out, "          <arg ");
    arg_attrs(out, id++, &vta_regs[r], "S_AXI_CONTROL", "M_AXI_GMEM");
    fprintf(out, "/>\n");
  }
  fprintf(out,
          "          <instance name=\"%s_1\">\n"
          "            <addrRemap base=\"0x0\" range=\"0x%x\" port=\"S_AXI_CONTROL\"/>\n"
          "          </instance>\n"
          "        </kernel>\n"
          "      </core>\n"
          "    </device>\n"
          "  </platform>\n"
          "</project>\n",
          VTA_KERNEL_NAME, VTA_REG_WINDOW);
  return io_check(out, err);
}

int vta_regmap_kernel_tcl(FILE *out, vta_error *err) {
  fprintf(out,
          "# Generated from include/vta/regmap.h: do not edit. Sourced by hw/vitis/package_xo.tcl\n"
          "# with $core the IP being packaged: the register map of s_axi_control in IP-XACT,\n"
          "# each pointer argument associated with m_axi_gmem.\n"
          "set mm [ipx::get_memory_maps s_axi_control -of_objects $core]\n"
          "set ab [ipx::get_address_blocks -of_objects $mm]\n"
          "if {[llength $ab] == 0} { set ab [ipx::add_address_block reg0 $mm] }\n"
          "set ab [lindex $ab 0]\n"
          "set_property range 0x%x $ab\n",
          VTA_REG_WINDOW);
  for (int r = 0; r < VTA_REG_COUNT; r++) {
    const vta_reg_info *g = &vta_regs[r];
    if (g->kind != VTA_REGK_CONTROL && g->kind != VTA_REGK_ARG) continue;
    fprintf(out,
            "set r [ipx::add_register %s $ab]\n"
            "set_property address_offset 0x%03x $r\n"
            "set_property size %u $r\n"
            "set_property description {%s} $r\n",
            g->name, g->offset, g->bits, g->desc);
    if (g->is_pointer)
      fprintf(out,
              "set_property value m_axi_gmem [ipx::add_register_parameter ASSOCIATED_BUSIF $r]\n");
  }
  return io_check(out, err);
}

void vta_regmap_markdown(FILE *out) {
  static const char *const access[VTA_REGK_COUNT] = {"RW", "RW (argument)", "RO", "RO"};
  fprintf(out, "| offset | name | bits | access | meaning |\n|---|---|---|---|---|\n");
  for (int r = 0; r < VTA_REG_COUNT; r++) {
    const vta_reg_info *g = &vta_regs[r];
    if (g->bits == 64)
      fprintf(out, "| 0x%02X / 0x%02X | %s | 64 (low, high) | %s | %s |\n", g->offset,
              g->offset + 4, g->name, access[g->kind], g->desc);
    else
      fprintf(out, "| 0x%02X | %s | 32 | %s | %s |\n", g->offset, g->name, access[g->kind],
              g->desc);
  }
}
