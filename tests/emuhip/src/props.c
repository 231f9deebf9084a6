/* Fills HIP 5.2's hipDeviceProp_t. Compiled against the installed header so
   the field offsets are the header's own; the size check pins the pre-ROCm-6
   (R0000) layout that the unversioned hipGetDeviceProperties symbol uses.
   A ROCm 6 header would give the R0600 struct, which a 5.2 binary does not
   expect. */
#include <hip/hip_runtime_api.h>
#include <string.h>

_Static_assert(sizeof(hipDeviceProp_t) == 792,
               "hipDeviceProp_t is not HIP 5.2's layout (792 bytes); point HIP_PATH at HIP 5.x headers");

size_t xad_emuhip_props_size(void) { return sizeof(hipDeviceProp_t); }

static void copy_name(char *dst, size_t cap, const char *src) {
    size_t len = strlen(src);
    if (len >= cap) len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void xad_emuhip_fill_props(hipDeviceProp_t *p, const char *name, const char *arch, int gcn_arch,
                           size_t total_global_mem, int multiprocessors) {
    memset(p, 0, sizeof *p);
    copy_name(p->name, sizeof p->name, name);
    copy_name(p->gcnArchName, sizeof p->gcnArchName, arch);
    p->gcnArch = gcn_arch;
    p->totalGlobalMem = total_global_mem;
    p->multiProcessorCount = multiprocessors;
    /* The rest describe an RDNA3 part in wave32 the way ROCm reports one. */
    p->sharedMemPerBlock = 65536;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 1024;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65536;
    p->maxGridSize[2] = 65536;
    p->clockRate = 2500000;
    p->memoryClockRate = 1250000;
    p->memoryBusWidth = 384;
    p->totalConstMem = 2147483647;
    p->major = gcn_arch / 100;
    p->minor = (gcn_arch / 10) % 10;
    p->l2CacheSize = 6 * 1024 * 1024;
    p->maxThreadsPerMultiProcessor = 2048;
    p->clockInstructionRate = 100000;
    p->arch.hasGlobalInt32Atomics = 1;
    p->arch.hasGlobalFloatAtomicExch = 1;
    p->arch.hasSharedInt32Atomics = 1;
    p->arch.hasSharedFloatAtomicExch = 1;
    p->arch.hasFloatAtomicAdd = 1;
    p->arch.hasGlobalInt64Atomics = 1;
    p->arch.hasSharedInt64Atomics = 1;
    p->arch.hasDoubles = 1;
    p->arch.hasWarpVote = 1;
    p->arch.hasWarpBallot = 1;
    p->arch.hasWarpShuffle = 1;
    p->arch.hasFunnelShift = 1;
    p->arch.hasThreadFenceSystem = 1;
    p->arch.hasSyncThreadsExt = 1;
    p->arch.has3dGrid = 1;
    p->concurrentKernels = 1;
    p->maxSharedMemoryPerMultiProcessor = 65536;
    p->canMapHostMemory = 1;
    p->cooperativeLaunch = 1;
    p->maxTexture1DLinear = 134217728;
    p->maxTexture1D = 16384;
    p->maxTexture2D[0] = 16384;
    p->maxTexture2D[1] = 16384;
    p->maxTexture3D[0] = 16384;
    p->maxTexture3D[1] = 16384;
    p->maxTexture3D[2] = 8192;
    p->memPitch = 2147483647;
    p->textureAlignment = 256;
    p->texturePitchAlignment = 256;
    p->isLargeBar = 1;
    p->managedMemory = 1;
}
