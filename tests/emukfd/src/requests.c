/*
 * The KFD ioctl requests by name, from the system's <linux/kfd_ioctl.h>: the
 * request numbers are function-like macros (_IOWR('K', nr, struct ...)),
 * which bindgen cannot evaluate, so the one table of them is built here by
 * the C compiler against the header itself. Nothing else is done in C.
 */
#include <stddef.h>
#include <linux/kfd_ioctl.h>

#define REQ(n) { #n, AMDKFD_IOC_##n }
static const struct { const char *name; unsigned long request; } requests[] = {
    REQ(GET_VERSION), REQ(CREATE_QUEUE), REQ(DESTROY_QUEUE), REQ(SET_MEMORY_POLICY),
    REQ(GET_CLOCK_COUNTERS), REQ(GET_PROCESS_APERTURES), REQ(UPDATE_QUEUE),
    REQ(CREATE_EVENT), REQ(DESTROY_EVENT), REQ(SET_EVENT), REQ(RESET_EVENT),
    REQ(WAIT_EVENTS), REQ(DBG_REGISTER_DEPRECATED), REQ(DBG_UNREGISTER_DEPRECATED),
    REQ(DBG_ADDRESS_WATCH_DEPRECATED), REQ(DBG_WAVE_CONTROL_DEPRECATED),
    REQ(SET_SCRATCH_BACKING_VA), REQ(GET_TILE_CONFIG), REQ(SET_TRAP_HANDLER),
    REQ(GET_PROCESS_APERTURES_NEW), REQ(ACQUIRE_VM), REQ(ALLOC_MEMORY_OF_GPU),
    REQ(FREE_MEMORY_OF_GPU), REQ(MAP_MEMORY_TO_GPU), REQ(UNMAP_MEMORY_FROM_GPU),
    REQ(SET_CU_MASK), REQ(GET_QUEUE_WAVE_STATE), REQ(GET_DMABUF_INFO), REQ(IMPORT_DMABUF),
    REQ(ALLOC_QUEUE_GWS), REQ(SMI_EVENTS), REQ(SVM), REQ(SET_XNACK_MODE),
#ifdef AMDKFD_IOC_DBG_TRAP
    REQ(DBG_TRAP),
#endif
#ifdef AMDKFD_IOC_CROSS_MEMORY_COPY
    REQ(CROSS_MEMORY_COPY),
#endif
#ifdef AMDKFD_IOC_RUNTIME_ENABLE
    REQ(RUNTIME_ENABLE),
#endif
#ifdef AMDKFD_IOC_AVAILABLE_MEMORY
    REQ(AVAILABLE_MEMORY),
#endif
#ifdef AMDKFD_IOC_EXPORT_DMABUF
    REQ(EXPORT_DMABUF),
#endif
};

/*
 * The name of the request with `request`'s type and number (without
 * AMDKFD_IOC_), or NULL for one the header does not define; *header gets the
 * header's own request number (its argument size). The size bits are not
 * compared: the kernel driver dispatches on the number alone and accepts an
 * argument struct of another size (newer user space appends fields), as the
 * caller of this lookup does.
 */
const char *xad_kfd_request_lookup(unsigned long request, unsigned long *header) {
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
        if (_IOC_TYPE(requests[i].request) == _IOC_TYPE(request) &&
            _IOC_NR(requests[i].request) == _IOC_NR(request)) {
            *header = requests[i].request;
            return requests[i].name;
        }
    return NULL;
}
