/* backends.h - the backends built into this library (listed in device.c's table). */
#ifndef VTA_DRIVER_BACKENDS_H
#define VTA_DRIVER_BACKENDS_H

#include "vta/device.h"

extern const vta_backend vta_backend_fsim;
#ifdef VTA_HAVE_RTL
extern const vta_backend vta_backend_rtl;
#endif
#ifdef VTA_HAVE_SC
extern const vta_backend vta_backend_sc;
#endif
#ifdef VTA_HAVE_XRT
extern const vta_backend vta_backend_xrt;
#endif
/* fsim and another backend in lockstep (driver/diff.c). */
extern const vta_backend vta_backend_diff;

#endif
