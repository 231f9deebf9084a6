/* Fills the device-properties structs of the HIP version this library is built
   against. Compiled against that root's own header (tests/emuhip/build.rs), so
   every field offset is the header's; the assertions pin each layout to the
   symbol that takes it, because pairing a struct with the other symbol's
   layout corrupts the caller's memory:

     symbol                           struct                 bytes  gcnArchName
     hipGetDeviceProperties (5.x)     hipDeviceProp_t        792    396, 256 bytes
     hipGetDeviceProperties (6.x/7.x) hipDeviceProp_tR0000   792    396, 256 bytes
     hipGetDevicePropertiesR0000      hipDeviceProp_tR0000   792    396, 256 bytes
     hipGetDevicePropertiesR0600      hipDeviceProp_tR0600   1472   1160, 256 bytes

   (ROCm 6's header renames hipDeviceProp_t / hipGetDeviceProperties to the
   R0600 pair by macro; the unversioned symbol keeps the old layout, which
   hip_deprecated.h declares as hipDeviceProp_tR0000.) */
#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <string.h>

#if HIP_VERSION_MAJOR != XAD_EMUHIP_EXPECTED_MAJOR
#error "build.rs read a different hip_version.h than the compiler sees"
#endif

#if HIP_VERSION_MAJOR >= 6
#include <hip/hip_deprecated.h>
#define XAD_R0600 1
typedef hipDeviceProp_tR0000 xad_props_r0000;
typedef hipDeviceProp_tR0600 xad_props_r0600;
_Static_assert(sizeof(xad_props_r0600) == 1472, "hipDeviceProp_tR0600 is not 1472 bytes");
_Static_assert(offsetof(xad_props_r0600, gcnArchName) == 1160, "R0600 gcnArchName is not at 1160");
_Static_assert(sizeof(((xad_props_r0600 *)0)->gcnArchName) == 256, "R0600 gcnArchName is not 256 bytes");
#else
#define XAD_R0600 0
typedef hipDeviceProp_t xad_props_r0000;
#endif

_Static_assert(sizeof(xad_props_r0000) == 792,
               "the R0000 hipDeviceProp_t is not 792 bytes; point HIP_PATH at a HIP 5.x-7.x root");
_Static_assert(offsetof(xad_props_r0000, gcnArchName) == 396, "R0000 gcnArchName is not at 396");
_Static_assert(sizeof(((xad_props_r0000 *)0)->gcnArchName) == 256, "R0000 gcnArchName is not 256 bytes");

/* Layout of one struct as this build sees it, for the layout tests.
   kind 0: R0000 (what hipGetDeviceProperties and ...R0000 fill),
   kind 1: R0600 (what hipGetDevicePropertiesR0600 fills; 6.x/7.x only).
   Returns 0 when the kind does not exist in this build. */
int xad_emuhip_layout(int kind, size_t *size, size_t *arch_offset, size_t *arch_bytes) {
    if (kind == 0) {
        *size = sizeof(xad_props_r0000);
        *arch_offset = offsetof(xad_props_r0000, gcnArchName);
        *arch_bytes = sizeof(((xad_props_r0000 *)0)->gcnArchName);
        return 1;
    }
#if XAD_R0600
    if (kind == 1) {
        *size = sizeof(xad_props_r0600);
        *arch_offset = offsetof(xad_props_r0600, gcnArchName);
        *arch_bytes = sizeof(((xad_props_r0600 *)0)->gcnArchName);
        return 1;
    }
#endif
    return 0;
}

/* Offsets of pciDomainID, pciBusID and pciDeviceID in layout `kind` (as
   above), for the tests; the two layouts order them differently (R0000
   domain, bus, device; R0600 bus, device, domain). Returns 0 when the kind
   does not exist in this build. */
int xad_emuhip_pci_offsets(int kind, size_t *domain, size_t *bus, size_t *device) {
    if (kind == 0) {
        *domain = offsetof(xad_props_r0000, pciDomainID);
        *bus = offsetof(xad_props_r0000, pciBusID);
        *device = offsetof(xad_props_r0000, pciDeviceID);
        return 1;
    }
#if XAD_R0600
    if (kind == 1) {
        *domain = offsetof(xad_props_r0600, pciDomainID);
        *bus = offsetof(xad_props_r0600, pciBusID);
        *device = offsetof(xad_props_r0600, pciDeviceID);
        return 1;
    }
#endif
    return 0;
}

static void copy_name(char *dst, size_t cap, const char *src) {
    size_t len = strlen(src);
    if (len >= cap) len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* The fields both layouts share, describing an RDNA3 part in wave32 the way
   ROCm reports one. A macro because the two structs are different types with
   the same field names. */
#define XAD_FILL_COMMON(p, name_, arch_, gcn_arch_, total_, multiprocessors_, pci_domain_,  \
                        pci_bus_, pci_device_)                                        \
    do {                                                                             \
        memset((p), 0, sizeof *(p));                                                 \
        (p)->pciDomainID = (pci_domain_);                                            \
        (p)->pciBusID = (pci_bus_);                                                  \
        (p)->pciDeviceID = (pci_device_);                                            \
        copy_name((p)->name, sizeof (p)->name, (name_));                             \
        copy_name((p)->gcnArchName, sizeof (p)->gcnArchName, (arch_));               \
        (p)->totalGlobalMem = (total_);                                              \
        (p)->multiProcessorCount = (multiprocessors_);                               \
        (p)->sharedMemPerBlock = 65536;                                              \
        (p)->regsPerBlock = 65536;                                                   \
        (p)->warpSize = 32;                                                          \
        (p)->maxThreadsPerBlock = 1024;                                              \
        (p)->maxThreadsDim[0] = 1024;                                                \
        (p)->maxThreadsDim[1] = 1024;                                                \
        (p)->maxThreadsDim[2] = 1024;                                                \
        (p)->maxGridSize[0] = 2147483647;                                            \
        (p)->maxGridSize[1] = 65536;                                                 \
        (p)->maxGridSize[2] = 65536;                                                 \
        (p)->clockRate = 2500000;                                                    \
        (p)->memoryClockRate = 1250000;                                              \
        (p)->memoryBusWidth = 384;                                                   \
        (p)->totalConstMem = 2147483647;                                             \
        (p)->major = (gcn_arch_) / 100;                                              \
        (p)->minor = ((gcn_arch_) / 10) % 10;                                        \
        (p)->l2CacheSize = 6 * 1024 * 1024;                                          \
        (p)->maxThreadsPerMultiProcessor = 2048;                                     \
        (p)->clockInstructionRate = 100000;                                          \
        (p)->arch.hasGlobalInt32Atomics = 1;                                         \
        (p)->arch.hasGlobalFloatAtomicExch = 1;                                      \
        (p)->arch.hasSharedInt32Atomics = 1;                                         \
        (p)->arch.hasSharedFloatAtomicExch = 1;                                      \
        (p)->arch.hasFloatAtomicAdd = 1;                                             \
        (p)->arch.hasGlobalInt64Atomics = 1;                                         \
        (p)->arch.hasSharedInt64Atomics = 1;                                         \
        (p)->arch.hasDoubles = 1;                                                    \
        (p)->arch.hasWarpVote = 1;                                                   \
        (p)->arch.hasWarpBallot = 1;                                                 \
        (p)->arch.hasWarpShuffle = 1;                                                \
        (p)->arch.hasFunnelShift = 1;                                                \
        (p)->arch.hasThreadFenceSystem = 1;                                          \
        (p)->arch.hasSyncThreadsExt = 1;                                             \
        (p)->arch.has3dGrid = 1;                                                     \
        (p)->concurrentKernels = 1;                                                  \
        (p)->maxSharedMemoryPerMultiProcessor = 65536;                               \
        (p)->canMapHostMemory = 1;                                                   \
        (p)->cooperativeLaunch = 1;                                                  \
        (p)->maxTexture1DLinear = 134217728;                                         \
        (p)->maxTexture1D = 16384;                                                   \
        (p)->maxTexture2D[0] = 16384;                                                \
        (p)->maxTexture2D[1] = 16384;                                                \
        (p)->maxTexture3D[0] = 16384;                                                \
        (p)->maxTexture3D[1] = 16384;                                                \
        (p)->maxTexture3D[2] = 8192;                                                 \
        (p)->memPitch = 2147483647;                                                  \
        (p)->textureAlignment = 256;                                                 \
        (p)->texturePitchAlignment = 256;                                            \
        (p)->isLargeBar = 1;                                                         \
        (p)->managedMemory = 1;                                                      \
    } while (0)

/* The old layout: hipGetDeviceProperties on 5.x, and on 6.x/7.x the
   unversioned hipGetDeviceProperties and hipGetDevicePropertiesR0000. */
void xad_emuhip_fill_props_r0000(void *out, const char *name, const char *arch, int gcn_arch,
                                 size_t total_global_mem, int multiprocessors, int pci_domain,
                                 int pci_bus, int pci_device) {
    xad_props_r0000 *p = out;
    XAD_FILL_COMMON(p, name, arch, gcn_arch, total_global_mem, multiprocessors, pci_domain, pci_bus,
                    pci_device);
    p->gcnArch = gcn_arch; /* dropped from R0600 */
}

#if XAD_R0600
/* hipGetDevicePropertiesR0600 (6.x/7.x): what a binary built against a ROCm 6+
   header calls under the name hipGetDeviceProperties. */
void xad_emuhip_fill_props_r0600(void *out, const char *name, const char *arch, int gcn_arch,
                                 size_t total_global_mem, int multiprocessors, int pci_domain,
                                 int pci_bus, int pci_device) {
    xad_props_r0600 *p = out;
    XAD_FILL_COMMON(p, name, arch, gcn_arch, total_global_mem, multiprocessors, pci_domain, pci_bus,
                    pci_device);
}
#endif
