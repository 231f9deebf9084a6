/* A small HIP host program, built against the HIP root's header and linked
   against that root's libamdhip64.so.N exactly as xad-harness is, then run with
   LD_LIBRARY_PATH pointing at the emulated library. It proves the stand-in is
   accepted by the loader (SONAME, symbol versions) and behaves like a HIP
   runtime to a C caller, independently of the harness's own HIP layer.

   Usage: probe info
          probe args
          probe run  CODE_OBJECT LANES CHUNK   (xad_basic; guards around out)
          probe hang CODE_OBJECT POLLS        (launch, poll hipStreamQuery)
   Output: one "key=value" or "lane ..." line per fact, for the Rust test. */
#include <hip/hip_runtime_api.h>
#if HIP_VERSION_MAJOR >= 6
#include <hip/hip_deprecated.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_WORDS 16u
#define GUARD_WORD 0x5AC3A55Au

#define REPORT(call) report(#call, (int)(call))
/* The name a macro expands to: ROCm 6+ headers rename hipGetDeviceProperties. */
#define EXPANDED_NAME(x) STRINGIFY(x)
#define STRINGIFY(x) #x

static int report(const char *what, int status) {
    /* "hipMalloc(&p, n)" -> "hipMalloc" */
    char name[64];
    size_t len = strcspn(what, "(");
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, what, len);
    name[len] = '\0';
    printf("%s=%d\n", name, status);
    return status;
}

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static uint32_t xad(uint32_t a, uint32_t b, uint32_t c) { return (a ^ b) + c; }

/* ROCm 6+ keeps the old layout under an explicit name; call it too. */
static void info_r0000(void) {
#if HIP_VERSION_MAJOR >= 6
    hipDeviceProp_tR0000 old;
    memset(&old, 0xFF, sizeof old);
    printf("r0000_size=%zu\n", sizeof old);
    if (REPORT(hipGetDevicePropertiesR0000(&old, 0)) == 0) {
        printf("r0000_gcnArchName=%s\n", old.gcnArchName);
        printf("r0000_gcnArch=%d\n", old.gcnArch);
    }
#endif
}

static int info(void) {
    int v = -1;
    REPORT(hipInit(0));
    REPORT(hipInit(0));
    REPORT(hipRuntimeGetVersion(&v));
    printf("runtime_version=%d\n", v);
    REPORT(hipDriverGetVersion(&v));
    printf("driver_version=%d\n", v);
    int count = -1;
    REPORT(hipGetDeviceCount(&count));
    printf("device_count=%d\n", count);
    hipDeviceProp_t props;
    memset(&props, 0xFF, sizeof props);
    /* The layout this header pairs with the symbol it calls. */
    printf("props_symbol=%s\n", EXPANDED_NAME(hipGetDeviceProperties));
    printf("props_size=%zu\n", sizeof props);
    printf("gcnArchName_offset=%zu\n", offsetof(hipDeviceProp_t, gcnArchName));
    printf("gcnArchName_bytes=%zu\n", sizeof props.gcnArchName);
    if (REPORT(hipGetDeviceProperties(&props, 0)) == 0) {
        printf("name=%s\n", props.name);
        printf("gcnArchName=%s\n", props.gcnArchName);
#if HIP_VERSION_MAJOR < 6
        printf("gcnArch=%d\n", props.gcnArch); /* not in the R0600 layout */
#endif
        printf("major=%d\n", props.major);
        printf("minor=%d\n", props.minor);
        printf("totalGlobalMem=%zu\n", props.totalGlobalMem);
        printf("multiProcessorCount=%d\n", props.multiProcessorCount);
        printf("warpSize=%d\n", props.warpSize);
        printf("maxThreadsPerBlock=%d\n", props.maxThreadsPerBlock);
        printf("pageableMemoryAccessUsesHostPageTables=%d\n", props.pageableMemoryAccessUsesHostPageTables);
        int tail;
        memcpy(&tail, (char *)&props + sizeof props - sizeof tail, sizeof tail);
        printf("last_word_written=%d\n", tail != -1);
    }
    info_r0000();
    REPORT(hipSetDevice(0));
    printf("name_of_912=%s\n", hipGetErrorName((hipError_t)912));
    printf("string_of_700=%s\n", hipGetErrorString(hipErrorIllegalAddress));
    return 0;
}

static int args(void) {
    void *p = NULL;
    hipModule_t module = NULL;
    hipFunction_t function = NULL;
    printf("init_flags=%d\n", (int)hipInit(1));
    printf("count_null=%d\n", (int)hipGetDeviceCount(NULL));
    printf("props_null=%d\n", (int)hipGetDeviceProperties(NULL, 0));
    hipDeviceProp_t props;
    printf("props_device_1=%d\n", (int)hipGetDeviceProperties(&props, 1));
    printf("set_device_1=%d\n", (int)hipSetDevice(1));
    printf("malloc_null=%d\n", (int)hipMalloc(NULL, 4));
    printf("malloc_zero=%d\n", (int)hipMalloc(&p, 0));
    printf("malloc_zero_ptr_null=%d\n", p == NULL);
    printf("free_null=%d\n", (int)hipFree(NULL));
    printf("free_bogus=%d\n", (int)hipFree((void *)0x1234));
    printf("load_null=%d\n", (int)hipModuleLoadData(&module, NULL));
    printf("load_garbage=%d\n", (int)hipModuleLoadData(&module, "garbage, not an ELF file"));
    printf("unload_bogus=%d\n", (int)hipModuleUnload((hipModule_t)0x1230));
    printf("function_bogus_module=%d\n", (int)hipModuleGetFunction(&function, (hipModule_t)0x1230, "xad_basic"));
    printf("launch_bogus=%d\n", (int)hipModuleLaunchKernel((hipFunction_t)0x1230, 1, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL));
    printf("stream_create_null=%d\n", (int)hipStreamCreate(NULL));
    printf("stream_query_bogus=%d\n", (int)hipStreamQuery((hipStream_t)0x1230));
    printf("stream_destroy_null=%d\n", (int)hipStreamDestroy(NULL));
    printf("stream_query_null=%d\n", (int)hipStreamQuery(NULL));
    printf("device_synchronize=%d\n", (int)hipDeviceSynchronize());
    return 0;
}

static int load(const char *path, hipModule_t *module, hipFunction_t *function) {
    size_t size = 0;
    void *image = read_file(path, &size);
    if (!image) { printf("error=cannot read %s\n", path); return 1; }
    int st = REPORT(hipModuleLoadData(module, image));
    /* HIP keeps its own copy: freeing the image must not matter. */
    memset(image, 0, size);
    free(image);
    if (st) return st;
    printf("missing_function=%d\n", (int)hipModuleGetFunction(function, *module, "no_such_kernel"));
    return REPORT(hipModuleGetFunction(function, *module, "xad_basic"));
}

struct kernargs { void *a, *b, *c, *out; uint32_t count; uint32_t pad; };

static int launch(hipFunction_t f, struct kernargs *k, size_t size, hipStream_t stream) {
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, k, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
    return (int)hipModuleLaunchKernel(f, (k->count + 255) / 256, 1, 1, 256, 1, 1, 0, stream, NULL, extra);
}

static int run(const char *path, uint32_t lanes, uint32_t chunk) {
    hipModule_t module;
    hipFunction_t function;
    if (REPORT(hipInit(0))) return 1;
    if (load(path, &module, &function)) return 1;
    uint32_t *a = malloc(lanes * 4u), *b = malloc(lanes * 4u), *c = malloc(lanes * 4u);
    uint32_t total = lanes + 2 * GUARD_WORDS;
    uint32_t *out = malloc(total * 4u);
    uint32_t seed = 0x12345678u;
    for (uint32_t i = 0; i < lanes; i++) {
        seed = seed * 1664525u + 1013904223u; a[i] = seed;
        seed = seed * 1664525u + 1013904223u; b[i] = seed;
        seed = seed * 1664525u + 1013904223u; c[i] = seed;
    }
    for (uint32_t i = 0; i < total; i++) out[i] = GUARD_WORD;
    void *da, *db, *dc, *dout;
    if (REPORT(hipMalloc(&da, lanes * 4u)) || REPORT(hipMalloc(&db, lanes * 4u)) ||
        REPORT(hipMalloc(&dc, lanes * 4u)) || REPORT(hipMalloc(&dout, total * 4u)))
        return 1;
    if (REPORT(hipMemcpyHtoD(da, a, lanes * 4u)) || REPORT(hipMemcpyHtoD(db, b, lanes * 4u)) ||
        REPORT(hipMemcpyHtoD(dc, c, lanes * 4u)) || REPORT(hipMemcpyHtoD(dout, out, total * 4u)))
        return 1;
    hipStream_t stream;
    if (REPORT(hipStreamCreate(&stream))) return 1;
    for (uint32_t first = 0; first < lanes; first += chunk) {
        uint32_t n = lanes - first < chunk ? lanes - first : chunk;
        struct kernargs k = {(char *)da + 4u * first, (char *)db + 4u * first, (char *)dc + 4u * first,
                             (char *)dout + 4u * (GUARD_WORDS + first), n, 0};
        int st = launch(function, &k, sizeof k, stream);
        if (st) { printf("hipModuleLaunchKernel=%d\n", st); return 1; }
    }
    size_t wrong_size = 24;
    struct kernargs k = {da, db, dc, dout, 1, 0};
    printf("launch_wrong_size=%d\n", launch(function, &k, wrong_size, stream));
    if (REPORT(hipStreamSynchronize(stream))) return 1;
    if (REPORT(hipMemcpyDtoH(out, dout, total * 4u))) return 1;
    uint32_t failed = 0;
    for (uint32_t i = 0; i < lanes; i++) {
        uint32_t want = xad(a[i], b[i], c[i]), got = out[GUARD_WORDS + i];
        if (got != want) {
            failed++;
            if (failed <= 16) printf("lane %u got=0x%08x want=0x%08x diff=0x%08x\n", i, got, want, got ^ want);
        }
    }
    uint32_t guards_hit = 0;
    for (uint32_t i = 0; i < GUARD_WORDS; i++) {
        if (out[i] != GUARD_WORD) guards_hit++;
        if (out[GUARD_WORDS + lanes + i] != GUARD_WORD) guards_hit++;
    }
    printf("lanes_failed=%u\n", failed);
    printf("guard_words_overwritten=%u\n", guards_hit);
    REPORT(hipFree(da));
    printf("double_free=%d\n", (int)hipFree(da));
    REPORT(hipStreamDestroy(stream));
    REPORT(hipModuleUnload(module));
    printf("launch_after_unload=%d\n", launch(function, &k, sizeof k, NULL));
    return 0;
}

static int hang(const char *path, int polls) {
    hipModule_t module;
    hipFunction_t function;
    if (REPORT(hipInit(0)) || load(path, &module, &function)) return 1;
    void *da;
    if (REPORT(hipMalloc(&da, 1024))) return 1;
    hipStream_t stream;
    if (REPORT(hipStreamCreate(&stream))) return 1;
    struct kernargs k = {da, da, da, da, 256, 0};
    if (REPORT(launch(function, &k, sizeof k, stream))) return 1;
    int st = 0;
    for (int i = 0; i < polls; i++) st = (int)hipStreamQuery(stream);
    printf("query_after_polls=%d\n", st);
    /* A watchdog gives up here; tearing down must not block. */
    REPORT(hipFree(da));
    REPORT(hipStreamDestroy(stream));
    REPORT(hipModuleUnload(module));
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc >= 2 && !strcmp(argv[1], "info")) return info();
    if (argc >= 2 && !strcmp(argv[1], "args")) return args();
    if (argc >= 5 && !strcmp(argv[1], "run")) return run(argv[2], (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]));
    if (argc >= 4 && !strcmp(argv[1], "hang")) return hang(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: probe info|args|run CODE LANES CHUNK|hang CODE POLLS\n");
    return 2;
}
