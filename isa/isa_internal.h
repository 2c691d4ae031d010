/* isa_internal.h - what the files of isa/ share and nobody else needs. */
#ifndef VTA_ISA_INTERNAL_H
#define VTA_ISA_INTERNAL_H

#include "vta/config.h"

/* fields.c: computes cfg->layout from the field table; `origin` names the config in errors. */
int vta_isa_layout(vta_config *cfg, const char *origin, vta_error *err);

#endif
