/* What the harness reads from hipGetDeviceProperties, in a layout we own.
 * hipDeviceProp_t changed layout in ROCm 6 (hipDeviceProp_tR0600, reached through
 * a macro that also renames hipGetDeviceProperties), so Rust never sees it: the
 * shim is compiled against the installed headers, where the struct and the
 * symbol always match, and copies the fields out. */
#ifndef XAD_HIP_SHIM_H
#define XAD_HIP_SHIM_H

#define XAD_DEVICE_NAME_BYTES 256

struct xad_device_info {
    char name[XAD_DEVICE_NAME_BYTES];         /* NUL-terminated (the shim ensures it) */
    char gcn_arch_name[XAD_DEVICE_NAME_BYTES]; /* NUL-terminated, e.g. gfx1100:sramecc-:xnack- */
    int multi_processor_count;                /* compute units */
    int major;
    int minor;
    unsigned long long total_global_mem;      /* bytes */
    int pci_domain_id;                        /* pciDomainID */
    int pci_bus_id;                           /* pciBusID */
    int pci_device_id;                        /* pciDeviceID (the slot number) */
};

/* Returns the hipError_t of hipGetDeviceProperties as a plain int; `out` is
 * zeroed first and written only on success. */
int xad_hip_device_info(int device, struct xad_device_info *out);

#endif
