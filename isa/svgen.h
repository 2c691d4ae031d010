/* svgen.h - the SystemVerilog parameter package of the RTL, generated from a configuration.
 *
 * The RTL in hw/ types no width, depth or field offset by hand: it imports `vta_pkg`, which this
 * generator writes from the same field table and derived configuration that the C encoder,
 * decoder and simulators use (cfg->layout[fmt].pos[field] and the derived values of
 * vta_config_derive). A change to the ISA table or to a configuration therefore reaches the
 * hardware through one path only.
 *
 *     vta_config cfg; vta_config_default(&cfg);
 *     vta_svgen_package(&cfg, stdout, NULL);   // "package vta_pkg; ... endpackage"
 *     char key[128]; vta_svgen_model_key(&cfg, key, sizeof key);   // "i3w3a5_b0i4o4_..."
 */
#ifndef VTA_ISA_SVGEN_H
#define VTA_ISA_SVGEN_H

#include <stddef.h>
#include <stdio.h>

#include "vta/config.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Width of AXI addresses in the generated package (64 so the RTL packages as an XRT kernel,
 * whose memory pointers are 64-bit). */
#define VTA_SVGEN_AXI_ADDR_BITS 64

/* Writes the package `vta_pkg` for cfg (which must be derived). VTA_ERR_IO if writing fails,
 * VTA_ERR_INVALID if cfg describes a layout the package cannot express (a field wider than 64
 * bits, a format wider than its word). */
int vta_svgen_package(const vta_config *cfg, FILE *out, vta_error *err);

/* A file-name-safe key naming every configuration value that changes the RTL (element widths,
 * tile shape, buffer sizes, bus width); two configurations with the same key share one
 * Verilator model. Values that only the simulation harness uses (DRAM latency, clock) are not
 * part of it. */
void vta_svgen_model_key(const vta_config *cfg, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
