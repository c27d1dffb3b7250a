//===- hccl_host.h - Extensions of the bundled host runtime -------------===//
//
// Not part of HCCL: calls of this runtime for hosts without ACL, all
// prefixed Hccl and documented in docs/runtime.md. hccl.h includes it.
//  - host streams (HcclStreamCreate ...): what an aclrtStream is here (the
//    ACL stand-in's aclrtCreateStream makes one);
//  - HcclMemAlloc / HcclMemFree: buffers that same-host peers read directly
//    (zero-copy), like device memory under HCCL;
//  - HcclCommInitFromEnv: bootstrap from mpirun / torchrun variables;
//  - HcclCommSplit: NCCL-style sub-communicators by colour and key;
//  - HcclCommRegister: registration of user memory;
//  - HcclGetLastErrorMessage: the one-line message of the calling thread's
//    last failed call.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_HOST_H_
#define HCCL_HOST_H_

#include <acl/acl_base.h>
#include <hccl/hccl_types.h>

/// Ports a rank's listener tries, from HCCL_IF_BASE_PORT + 1 upward: the
/// first free one is taken (HCCL_IF_BASE_PORT itself is a rank table's
/// rendezvous port). A launcher choosing a rendezvous port of its own keeps
/// out of this span.
#define HCCL_HOST_LISTENER_PORTS 4095

#ifdef __cplusplus
extern "C" {
#endif

/// Creates the world communicator from the launcher's variables:
/// OMPI_COMM_WORLD_RANK/SIZE (Open MPI), PMI_RANK/PMI_SIZE (MPICH, Intel
/// MPI) or RANK/WORLD_SIZE (torchrun), with the rendezvous at
/// MASTER_ADDR:MASTER_PORT, or through the file named by HCCL_ROOT_INFO_FILE
/// (rank 0 writes its root info there, the others wait for it).
HcclResult HcclCommInitFromEnv(HcclComm *comm);

/// NCCL's ncclCommSplit: every rank of `comm` calls; ranks with the same
/// `color` form a communicator, ordered by (`key`, old rank). A negative
/// colour opts out and yields *newComm == NULL.
HcclResult HcclCommSplit(HcclComm comm, int color, int key, HcclComm *newComm);

/// The one-line message of the calling thread's last failed call ("" if
/// none). Valid until the thread's next failed call.
const char *HcclGetLastErrorMessage(void);

/// An ordered asynchronous queue served by one runtime thread: calls enqueued
/// on it run in order, overlapping the caller's own work.
HcclResult HcclStreamCreate(aclrtStream *stream);
/// Waits until everything enqueued has run; returns the first error any of it
/// hit since the previous synchronize (and clears it).
HcclResult HcclStreamSynchronize(aclrtStream stream);
/// HCCL_SUCCESS if the stream is idle, HCCL_E_AGAIN if work is pending.
HcclResult HcclStreamQuery(aclrtStream stream);
/// Enqueues a host function (like aclrtLaunchHostFunc).
HcclResult HcclStreamLaunchHostFunc(aclrtStream stream, void (*fn)(void *),
                                    void *userData);
/// Synchronizes, then destroys the stream and its thread.
HcclResult HcclStreamDestroy(aclrtStream stream);

/// Allocates `size` bytes (page aligned, zeroed) that same-host peers can
/// read directly, so transfers from it skip the intermediate copy.
HcclResult HcclMemAlloc(void **ptr, uint64_t size);
/// Frees memory from HcclMemAlloc (NULL is a no-op).
HcclResult HcclMemFree(void *ptr);

/// Registers [addr, addr+size) with the communicator. Memory from
/// HcclMemAlloc is then read by peers directly; other memory is accepted
/// and served through the single-copy path. `flag` must be
/// HCCL_REGISTER_DEFAULT.
HcclResult HcclCommRegister(HcclComm comm, void *addr, uint64_t size,
                            void **handle, uint32_t flag);
HcclResult HcclCommDeregister(HcclComm comm, void *handle);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // HCCL_HOST_H_
