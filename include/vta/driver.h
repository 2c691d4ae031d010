/* driver.h - the published VTA driver interface (source compatibility, ISA.md section 5).
 *
 * Programs written for the published VTA driver build against this header unchanged. The
 * functions run on one process-wide device, opened on first use: backend $VTA_BACKEND (default
 * "fsim"), configuration $VTA_CONFIG (a JSON file; default configuration when unset). Set both
 * before the first call.
 *
 * VTAMemAlloc returns a host pointer. On backends whose memory the host can address directly
 * (fsim) it points into device memory and the cache calls do nothing; on others (xrt) it is a
 * host shadow of the device buffer: VTAFlushCache copies the shadow to the device and
 * VTAInvalidateCache copies the device to the shadow, as the published calls do for a
 * non-coherent cache. VTAMemCopyFromHost / VTAMemCopyToHost always reach the device.
 * (VTA_DRIVER_SHADOW=1 in the environment forces shadows on any backend, for testing.)
 *
 * The published functions cannot return errors (or only 0/1), so a failure prints
 * "vta driver: <what went wrong>" to stderr; vta_driver_last_error() returns it afterwards.
 * VTADeviceRun returns 0 on success, 1 on timeout (as published) and 2 on any other failure
 * (an invalid stream, a deadlock, an access outside device memory; the message says which).
 */
#ifndef VTA_DRIVER_H
#define VTA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VTA_CACHED 1
#define VTA_NOT_CACHED 0
#define VTA_PAGE_BITS 12
#define VTA_PAGE_BYTES (1 << VTA_PAGE_BITS)
#define VTA_MAX_XFER (1 << 25)

typedef void *VTADeviceHandle;

#ifdef USE_VTA64
typedef uint64_t vta_phy_addr_t;
#else
typedef uint32_t vta_phy_addr_t;
#endif

VTADeviceHandle VTADeviceAlloc(void);
void VTADeviceFree(VTADeviceHandle handle);
int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
                 uint32_t wait_cycles);

void *VTAMemAlloc(size_t size, int cached);
void VTAMemFree(void *buf);
vta_phy_addr_t VTAMemGetPhyAddr(void *buf);
void VTAMemCopyFromHost(void *dst, const void *src, size_t size);
void VTAMemCopyToHost(void *dst, const void *src, size_t size);
void VTAFlushCache(void *vir_addr, vta_phy_addr_t phy_addr, int size);
void VTAInvalidateCache(void *vir_addr, vta_phy_addr_t phy_addr, int size);

/* ---- Extensions of this implementation (not in the published header) ---- */

struct vta_device;
/* The process-wide device (opened on first use); NULL if it cannot be opened. */
struct vta_device *vta_driver_device(void);
/* Device physical address of any byte inside a VTAMemAlloc buffer; 0 on success, -1 if ptr
 * is not inside one (nothing printed). */
int vta_driver_phys_of(const void *ptr, uint64_t *phys);
/* The latest message printed by a driver function, or NULL. */
const char *vta_driver_last_error(void);
/* The lock that serialises use of the process-wide device (recursive; the driver functions
 * take it themselves). The runtime layer holds it while a thread's stream touches the device,
 * so threads may build streams concurrently and their runs take turns. */
void vta_driver_lock(void);
void vta_driver_unlock(void);

#ifdef __cplusplus
}
#endif
#endif
