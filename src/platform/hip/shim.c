/* See shim.h. Compiled by build.rs (cc) against the installed HIP headers. */
#include <string.h>
#include <hip/hip_runtime_api.h>
#include "shim.h"

/* Copy a fixed-size char array that the runtime may not have terminated. */
static void copy_text(char *dst, const char *src, size_t src_bytes) {
    size_t n = src_bytes < XAD_DEVICE_NAME_BYTES ? src_bytes : XAD_DEVICE_NAME_BYTES;
    size_t i = 0;
    for (; i + 1 < n && src[i] != '\0'; i++) {
        dst[i] = src[i];
    }
    dst[i] = '\0';
}

int xad_hip_device_info(int device, struct xad_device_info *out) {
    /* hipDeviceProp_t and hipGetDeviceProperties name the matching pair in
     * every header version (both are R0600 under ROCm 6+). */
    hipDeviceProp_t prop;
    hipError_t status;

    memset(out, 0, sizeof *out);
    memset(&prop, 0, sizeof prop);
    status = hipGetDeviceProperties(&prop, device);
    if (status != hipSuccess) {
        return (int)status;
    }
    copy_text(out->name, prop.name, sizeof prop.name);
    copy_text(out->gcn_arch_name, prop.gcnArchName, sizeof prop.gcnArchName);
    out->multi_processor_count = prop.multiProcessorCount;
    out->major = prop.major;
    out->minor = prop.minor;
    out->total_global_mem = (unsigned long long)prop.totalGlobalMem;
    /* In both layouts, in a different order (R0000: domain, bus, device;
     * R0600: bus, device, domain); the names are what the header pairs. */
    out->pci_domain_id = prop.pciDomainID;
    out->pci_bus_id = prop.pciBusID;
    out->pci_device_id = prop.pciDeviceID;
    return (int)status;
}
