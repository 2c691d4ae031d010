/* xclbin_file.h - reading and writing the xclbin container (XRT's <xrt/xclbin.h> structs).
 *
 * The xrt backend reads an xclbin before XRT sees it, so that a missing, truncated, corrupt or
 * foreign file, or one built for another accelerator configuration, is refused with a sentence
 * naming the file and the problem. The writer makes metadata-only xclbins (no bitstream):
 * IP_LAYOUT (the `vta` compute unit), MEM_TOPOLOGY (the board's banks), CONNECTIVITY (m_axi_gmem
 * to one bank), EMBEDDED_METADATA (the kernel description generated from the register table,
 * isa/regmap.c) and USER_METADATA (the configuration's model key). XRT's noop emulation loads such
 * a file, opens the kernel by name and runs the whole host flow, which is how the backend is
 * tested without a card or Vitis.
 *
 *     vta_xclbin_spec s; vta_xclbin_spec_default(&cfg, &s);   // one DDR bank, random UUID
 *     vta_xclbin_write_meta(&cfg, &s, "vta.xclbin", &err);
 *     vta_xclbin_info i; vta_xclbin_inspect("vta.xclbin", &i, &err);  // i.config_key, i.uuid
 */
#ifndef VTA_DRIVER_XRT_XCLBIN_FILE_H
#define VTA_DRIVER_XRT_XCLBIN_FILE_H

#include <stdint.h>

#include "vta/config.h"
#include "vta/status.h"

#define VTA_XCLBIN_MAX_BANKS 32
/* Larger files are refused before anything is allocated (Alveo xclbins are tens of MB). */
#define VTA_XCLBIN_MAX_BYTES (1ull << 30)
/* The USER_METADATA text: "vta-config <model key>\n". */
#define VTA_XCLBIN_CONFIG_TAG "vta-config "

typedef struct vta_xclbin_bank {
  char tag[16];      /* "bank0", "HBM[0]", "DDR[1]" */
  int hbm;           /* MEM_HBM rather than MEM_DDR4 */
  uint64_t base;     /* physical base address */
  uint64_t size;     /* bytes */
} vta_xclbin_bank;

typedef struct vta_xclbin_spec {
  char platform[64];         /* VBNV, e.g. xilinx_u250_gen3x16_xdma_4_1_202210_1 */
  int nbanks;
  vta_xclbin_bank banks[VTA_XCLBIN_MAX_BANKS];
  int gmem_bank;             /* the bank m_axi_gmem is connected to */
  char kernel_name[32];      /* VTA_KERNEL_NAME; tests write foreign files with another */
  unsigned char uuid[16];    /* all zero: a random one is made */
  int null_uuid;             /* tests: keep the UUID all zero */
  int no_config;             /* tests: leave USER_METADATA out */
} vta_xclbin_spec;

typedef struct vta_xclbin_info {
  unsigned char uuid[16];
  char uuid_text[40];
  char platform[65];
  char config_key[160];      /* "" when the file names no configuration */
  int has_kernel;            /* an IP_KERNEL compute unit named "vta:..." */
  char cu_name[65];
  uint64_t cu_base;
  int nbanks;
  vta_xclbin_bank banks[VTA_XCLBIN_MAX_BANKS];
  int has_bitstream;         /* BITSTREAM or PDI sections present (a real build) */
  uint64_t bytes;
} vta_xclbin_info;

/* One DDR bank of 16 GiB at 0 on platform "vta_noop_platform", kernel "vta", random UUID. */
void vta_xclbin_spec_default(vta_xclbin_spec *s);
/* Writes a metadata-only xclbin for cfg (temporary file + rename: never half-written). */
int vta_xclbin_write_meta(const vta_config *cfg, const vta_xclbin_spec *s, const char *path,
                          vta_error *err);
/* Reads and checks the container: magic, lengths, every section inside the file, the sections
 * the backend needs (IP_LAYOUT with the vta kernel, MEM_TOPOLOGY, EMBEDDED_METADATA). Errors name
 * the file and what is wrong. The bytes are returned in *data (free them) when data is not NULL. */
int vta_xclbin_inspect(const char *path, vta_xclbin_info *info, void **data, vta_error *err);
/* The configuration check: VTA_ERR_UNSUPPORTED naming both model keys when the xclbin was built
 * for another configuration or names none. */
int vta_xclbin_check_config(const char *path, const vta_xclbin_info *info, const vta_config *cfg,
                            vta_error *err);

#endif
