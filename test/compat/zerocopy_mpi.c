/*===- zerocopy_mpi.c - Zero-copy memory, as hccl_test -z uses it ---------===
 *
 *   mpirun -n N zerocopy_mpi
 *
 * The buffers live in virtual memory reserved with aclrtReserveMemAddress,
 * backed by aclrtMallocPhysical memory mapped with aclrtMapMem; the range
 * is given to the communicator (HcclCommSetMemoryRange) and the mapped
 * memory activated (HcclCommActivateCommMemory) before the collectives run
 * on it, then everything is undone in the reverse order.
 *
 *===----------------------------------------------------------------------===*/
#include "compat.h"

#include <mpi.h>

static int run(int rank, int size) {
  ACL_OK(aclInit(NULL));
  ACL_OK(aclrtSetDevice(0));
  aclrtStream stream;
  ACL_OK(aclrtCreateStream(&stream));
  HcclRootInfo info;
  if (rank == 0)
    HCCL_OK(HcclGetRootInfo(&info));
  MPI_Bcast(&info, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD);
  HcclComm comm;
  HCCL_OK(HcclCommInitRootInfo((uint32_t)size, &info, (uint32_t)rank, &comm));

  aclrtPhysicalMemProp prop;
  memset(&prop, 0, sizeof(prop));
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.memAttr = ACL_HBM_MEM_HUGE;
  prop.location.id = 0;
  prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  size_t gran = 0;
  ACL_OK(aclrtMemGetAllocationGranularity(
      &prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran));
  const uint64_t n = 1 << 18; /* 1 MiB of int32 per buffer */
  size_t one = (n * 4 + gran - 1) / gran * gran, total = 2 * one;
  void *base = NULL;
  ACL_OK(aclrtReserveMemAddress(&base, total, 0, NULL, 1));
  HCCL_OK(HcclCommSetMemoryRange(comm, base, total, 0, 0));
  aclrtDrvMemHandle phys;
  ACL_OK(aclrtMallocPhysical(&phys, total, &prop, 0));
  ACL_OK(aclrtMapMem(base, total, 0, phys, 0));
  HCCL_OK(HcclCommActivateCommMemory(comm, base, total, 0, phys, 0));

  int32_t *send = (int32_t *)base, *recv = (int32_t *)((char *)base + one);
  uint64_t i;
  for (i = 0; i < n; ++i)
    send[i] = rank + (int32_t)(i % 11);
  HCCL_OK(HcclAllReduce(send, recv, n, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM,
                        comm, stream));
  ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_EACH(i, n, recv, 0, size * (size - 1) / 2 + size * (int32_t)(i % 11),
              "allreduce over activated memory");

  HCCL_OK(HcclCommDeactivateCommMemory(comm, base));
  ACL_OK(aclrtUnmapMem(base));
  ACL_OK(aclrtFreePhysical(phys));
  HCCL_OK(HcclCommUnsetMemoryRange(comm, base));
  ACL_OK(aclrtReleaseMemAddress(base));
  HCCL_OK(HcclCommDestroy(comm));
  ACL_OK(aclrtDestroyStream(stream));
  ACL_OK(aclFinalize());
  return 0;
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = run(rank, size);
  if (rc == 0 && rank == 0)
    printf("zerocopy_mpi: %d ranks: all-reduce over activated memory correct\n",
           size);
  MPI_Finalize();
  return rc;
}
