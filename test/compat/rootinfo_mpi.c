/*===- rootinfo_mpi.c - HCCL's root-info sample shape, under mpirun -------===
 *
 *   mpirun -n N rootinfo_mpi [ROOT]
 *
 * One process per rank: rank ROOT (any rank, as hccl_test's -r) makes the
 * root info, MPI_Bcast gives it to everyone, HcclCommInitRootInfoConfig
 * creates the communicator (named through HcclCommConfig), every
 * collective runs on an ACL stream, then a sub-communicator of the even
 * ranks (HcclCreateSubCommConfig) all-reduces.
 *
 *===----------------------------------------------------------------------===*/
#include "compat.h"

#include <mpi.h>

static int run(int rank, int size, int root) {
  uint32_t devices = 0;
  ACL_OK(aclInit(NULL));
  ACL_OK(aclrtGetDeviceCount(&devices));
  ACL_OK(aclrtSetDevice(rank % (int)devices));
  aclrtStream stream;
  ACL_OK(aclrtCreateStream(&stream));

  HcclRootInfo info;
  if (rank == root)
    HCCL_OK(HcclGetRootInfo(&info));
  MPI_Bcast(&info, HCCL_ROOT_INFO_BYTES, MPI_CHAR, root, MPI_COMM_WORLD);
  HcclCommConfig cfg;
  HcclCommConfigInit(&cfg);
  strcpy(cfg.hcclCommName, "compat_world");
  cfg.hcclBufferSize = 64;
  HcclComm comm;
  HCCL_OK(HcclCommInitRootInfoConfig((uint32_t)size, &info, (uint32_t)rank,
                                     &cfg, &comm));
  char name[COMM_NAME_MAX_LENGTH];
  HCCL_OK(HcclGetCommName(comm, name));
  EXPECT(strcmp(name, "compat_world") == 0, "comm name '%s'", name);
  if (runCollectives(comm, stream))
    return 1;

  /* The even ranks form a sub-communicator; the others do not call. */
  if (rank % 2 == 0) {
    uint32_t ids[64], k, m = 0;
    for (k = 0; k < (uint32_t)size; k += 2)
      ids[m++] = k;
    HcclCommConfig sub;
    HcclCommConfigInit(&sub);
    HcclComm even;
    HCCL_OK(HcclCreateSubCommConfig(&comm, m, ids, 1, (uint32_t)rank / 2, &sub,
                                    &even));
    uint32_t evenSize = 0;
    HCCL_OK(HcclGetRankSize(even, &evenSize));
    EXPECT(evenSize == m, "sub-communicator size %u", evenSize);
    if (runCollectives(even, stream))
      return 1;
    HCCL_OK(HcclCommDestroy(even));
  }
  HCCL_OK(HcclCommDestroy(comm));
  ACL_OK(aclrtDestroyStream(stream));
  ACL_OK(aclrtResetDevice(rank % (int)devices));
  ACL_OK(aclFinalize());
  return 0;
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = argc > 1 ? atoi(argv[1]) : 0;
  int rc = run(rank, size, root);
  if (rc == 0 && rank == root)
    printf("rootinfo_mpi: %d ranks, root %d: every collective correct\n", size,
           root);
  MPI_Finalize();
  return rc;
}
