/*===- threads.c - Ranks as threads of one process -------------------------===
 *
 *   threads N {initall|rootinfo}
 *
 * initall: HcclCommInitAll creates the N communicators (devices N-1 .. 0),
 * each thread sets its device and runs every collective on its own stream.
 * rootinfo: the root info is made once and each thread creates its own
 * communicator with HcclCommInitRootInfo, as one thread per device does.
 *
 *===----------------------------------------------------------------------===*/
#include "compat.h"

#include <pthread.h>

static HcclComm gComms[64];
static HcclRootInfo gRoot;
static int gN, gRootInfoMode, gFailed[64];

static int rankBody(int rank) {
  ACL_OK(aclrtSetDevice(rank % 8));
  aclrtStream stream;
  ACL_OK(aclrtCreateStream(&stream));
  if (gRootInfoMode)
    HCCL_OK(HcclCommInitRootInfo((uint32_t)gN, &gRoot, (uint32_t)rank,
                                 &gComms[rank]));
  if (runCollectives(gComms[rank], stream))
    return 1;
  ACL_OK(aclrtDestroyStream(stream));
  return 0;
}

static void *thread(void *arg) {
  int rank = (int)(intptr_t)arg;
  gFailed[rank] = rankBody(rank);
  return NULL;
}

int main(int argc, char **argv) {
  int rank = -1, r;
  if (argc < 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 64) {
    fprintf(stderr, "usage: threads N {initall|rootinfo}\n");
    return 2;
  }
  gN = atoi(argv[1]);
  gRootInfoMode = strcmp(argv[2], "rootinfo") == 0;
  ACL_OK(aclInit(NULL));
  if (gRootInfoMode) {
    HCCL_OK(HcclGetRootInfo(&gRoot));
  } else {
    int32_t devices[64];
    for (r = 0; r < gN; ++r)
      devices[r] = gN - 1 - r;
    HCCL_OK(HcclCommInitAll((uint32_t)gN, devices, gComms));
  }
  pthread_t t[64];
  for (r = 0; r < gN; ++r)
    pthread_create(&t[r], NULL, thread, (void *)(intptr_t)r);
  for (r = 0; r < gN; ++r)
    pthread_join(t[r], NULL);
  for (r = 0; r < gN; ++r) {
    EXPECT(!gFailed[r], "thread of rank %d failed", r);
    HCCL_OK(HcclCommDestroy(gComms[r]));
  }
  ACL_OK(aclFinalize());
  printf("threads: %d ranks (%s): every collective correct\n", gN, argv[2]);
  return 0;
}
