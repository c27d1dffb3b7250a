/*===- compat.h - What every compat program runs on a communicator --------===
 *
 * Written from HCCL's documentation, in the shape of its samples: device
 * buffers from aclrtMalloc, data moved with aclrtMemcpy, every collective
 * queued on an ACL stream and synchronised with aclrtSynchronizeStream,
 * results checked element by element. Plain C11; only <hccl/hccl.h> and
 * <acl/acl.h>.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HCCL_COMPAT_H
#define HCCL_COMPAT_H

#include <acl/acl.h>
#include <hccl/hccl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACL_OK(call)                                                           \
  do {                                                                         \
    aclError e_ = (call);                                                      \
    if (e_ != ACL_SUCCESS) {                                                   \
      fprintf(stderr, "%s:%d: %s: ACL error %d\n", __FILE__, __LINE__, #call,  \
              e_);                                                             \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#define HCCL_OK(call)                                                          \
  do {                                                                         \
    HcclResult r_ = (call);                                                    \
    if (r_ != HCCL_SUCCESS) {                                                  \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,       \
              HcclGetErrorString(r_), HcclGetLastErrorMessage());              \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: rank %d: ", __FILE__, __LINE__, rank);           \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/* The check loop of every program: fails the rank unless buf[at + i] equals
 * `want`, an expression of the index variable i, for every i < n, naming
 * the first element that differs. */
#define EXPECT_EACH(i, n, buf, at, want, what)                                 \
  for ((i) = 0; (i) < (n); ++(i))                                              \
  EXPECT((buf)[(at) + (i)] == (int32_t)(want),                                 \
         "%s: element %llu is %d, expected %d", (what),                        \
         (unsigned long long)((at) + (i)), (buf)[(at) + (i)], (int32_t)(want))

/* Device buffers of n int32, and a host copy. */
typedef struct {
  int32_t *dev;
  int32_t *host;
  uint64_t n;
} Buf;

static inline int bufNew(Buf *b, uint64_t n) {
  b->n = n ? n : 1;
  ACL_OK(aclrtMalloc((void **)&b->dev, b->n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ACL_OK(aclrtMallocHost((void **)&b->host, b->n * 4));
  return 0;
}
static inline int bufPut(Buf *b) {
  return aclrtMemcpy(b->dev, b->n * 4, b->host, b->n * 4,
                     ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
}
static inline int bufGet(Buf *b) {
  return aclrtMemcpy(b->host, b->n * 4, b->dev, b->n * 4,
                     ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS;
}
static inline void bufFree(Buf *b) {
  aclrtFree(b->dev);
  aclrtFreeHost(b->host);
}

/* Every HCCL collective and point-to-point call on `comm`, checked. */
static inline int runCollectives(HcclComm comm, aclrtStream s) {
  uint32_t rank = 0, size = 0;
  HCCL_OK(HcclGetRankId(comm, &rank));
  HCCL_OK(HcclGetRankSize(comm, &size));
  const uint64_t n = 1000, p = size;
  Buf a, b;
  if (bufNew(&a, n * p * 4) || bufNew(&b, n * p * 4))
    return 1;
  uint64_t i, j;
  int32_t r = (int32_t)rank;

  /* AllReduce (sum). */
  for (i = 0; i < n; ++i)
    a.host[i] = r + 1 + (int32_t)(i % 7);
  if (bufPut(&a))
    return 1;
  HCCL_OK(HcclAllReduce(a.dev, b.dev, n, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM,
                        comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  if (bufGet(&b))
    return 1;
  EXPECT_EACH(i, n, b.host, 0, p * (p + 1) / 2 + p * (i % 7), "allreduce");

  /* Broadcast from the last rank (in place). */
  for (i = 0; i < n; ++i)
    a.host[i] = rank == size - 1 ? (int32_t)(7000 + i) : -1;
  if (bufPut(&a))
    return 1;
  HCCL_OK(HcclBroadcast(a.dev, n, HCCL_DATA_TYPE_INT32, size - 1, comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  if (bufGet(&a))
    return 1;
  EXPECT_EACH(i, n, a.host, 0, 7000 + i, "broadcast");

  /* AllGather. */
  for (i = 0; i < n; ++i)
    a.host[i] = r * 1000 + (int32_t)i;
  if (bufPut(&a))
    return 1;
  HCCL_OK(HcclAllGather(a.dev, b.dev, n, HCCL_DATA_TYPE_INT32, comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  if (bufGet(&b))
    return 1;
  for (j = 0; j < p; ++j)
    EXPECT_EACH(i, n, b.host, j * n, j * 1000 + i, "allgather");

  /* ReduceScatter (sum). */
  for (j = 0; j < p; ++j)
    for (i = 0; i < n; ++i)
      a.host[j * n + i] = r + (int32_t)(j + i);
  if (bufPut(&a))
    return 1;
  HCCL_OK(HcclReduceScatter(a.dev, b.dev, n, HCCL_DATA_TYPE_INT32,
                            HCCL_REDUCE_SUM, comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  if (bufGet(&b))
    return 1;
  EXPECT_EACH(i, n, b.host, 0, p * (p - 1) / 2 + p * (rank + i),
              "reducescatter");

  /* Reduce (max) to rank 0. */
  for (i = 0; i < n; ++i)
    a.host[i] = r * 10 + (int32_t)i;
  if (bufPut(&a))
    return 1;
  HCCL_OK(HcclReduce(a.dev, b.dev, n, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, 0,
                     comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  if (rank == 0) {
    if (bufGet(&b))
      return 1;
    EXPECT_EACH(i, n, b.host, 0, (p - 1) * 10 + i, "reduce");
  }

  /* AlltoAll. */
  for (j = 0; j < p; ++j)
    for (i = 0; i < n; ++i)
      a.host[j * n + i] = r * 100000 + (int32_t)(j * 1000 + i);
  if (bufPut(&a))
    return 1;
  HCCL_OK(HcclAlltoAll(a.dev, n, HCCL_DATA_TYPE_INT32, b.dev, n,
                       HCCL_DATA_TYPE_INT32, comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  if (bufGet(&b))
    return 1;
  for (j = 0; j < p; ++j)
    EXPECT_EACH(i, n, b.host, j * n, j * 100000 + rank * 1000 + i, "alltoall");

  /* AlltoAllV: rank i sends (i + j) % 3 + 1 elements to rank j. */
  {
    uint64_t sc[64], sd[64], rc[64], rd[64], so = 0, ro = 0;
    for (j = 0; j < p; ++j) {
      sc[j] = (rank + j) % 3 + 1;
      sd[j] = so;
      so += sc[j];
      rc[j] = (j + rank) % 3 + 1;
      rd[j] = ro;
      ro += rc[j];
    }
    for (i = 0; i < so; ++i)
      a.host[i] = r * 1000 + (int32_t)i;
    if (bufPut(&a))
      return 1;
    HCCL_OK(HcclAlltoAllV(a.dev, sc, sd, HCCL_DATA_TYPE_INT32, b.dev, rc, rd,
                          HCCL_DATA_TYPE_INT32, comm, s));
    ACL_OK(aclrtSynchronizeStream(s));
    if (bufGet(&b))
      return 1;
    for (j = 0; j < p; ++j) {
      uint64_t off = 0, k; /* where rank j put its block for this rank */
      for (k = 0; k < rank; ++k)
        off += (j + k) % 3 + 1;
      EXPECT_EACH(i, rc[j], b.host, rd[j], j * 1000 + off + i, "alltoallv");
    }
  }

  /* AlltoAllVC: the same exchange from one count matrix. */
  {
    uint64_t m[64 * 64];
    for (i = 0; i < p; ++i)
      for (j = 0; j < p; ++j)
        m[i * p + j] = (i + j) % 3 + 1;
    HCCL_OK(HcclAlltoAllVC(a.dev, m, HCCL_DATA_TYPE_INT32, b.dev,
                           HCCL_DATA_TYPE_INT32, comm, s));
    ACL_OK(aclrtSynchronizeStream(s));
    if (bufGet(&b))
      return 1;
    uint64_t ro = 0;
    for (j = 0; j < p; ++j) {
      uint64_t off = 0, k;
      for (k = 0; k < rank; ++k)
        off += m[j * p + k];
      EXPECT_EACH(i, m[j * p + rank], b.host, ro, j * 1000 + off + i,
                  "alltoallvc");
      ro += m[j * p + rank];
    }
  }

  /* Scatter from rank 0. */
  for (i = 0; i < n * p; ++i)
    a.host[i] = rank == 0 ? (int32_t)(5 * i) : -1;
  if (bufPut(&a))
    return 1;
  HCCL_OK(HcclScatter(a.dev, b.dev, n, HCCL_DATA_TYPE_INT32, 0, comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  if (bufGet(&b))
    return 1;
  EXPECT_EACH(i, n, b.host, 0, 5 * (rank * n + i), "scatter");

  /* AllGatherV: rank j contributes j + 1 elements, packed. */
  {
    uint64_t rc[64], rd[64], at = 0;
    for (j = 0; j < p; ++j) {
      rc[j] = j + 1;
      rd[j] = at;
      at += rc[j];
    }
    for (i = 0; i <= rank; ++i)
      a.host[i] = r * 100 + (int32_t)i;
    if (bufPut(&a))
      return 1;
    HCCL_OK(HcclAllGatherV(a.dev, rank + 1, b.dev, rc, rd, HCCL_DATA_TYPE_INT32,
                           comm, s));
    ACL_OK(aclrtSynchronizeStream(s));
    if (bufGet(&b))
      return 1;
    for (j = 0; j < p; ++j)
      EXPECT_EACH(i, rc[j], b.host, rd[j], j * 100 + i, "allgatherv");
  }

  /* ReduceScatterV (sum): block j has j + 1 elements. */
  {
    uint64_t sc[64], sd[64], at = 0;
    for (j = 0; j < p; ++j) {
      sc[j] = j + 1;
      sd[j] = at;
      at += sc[j];
    }
    for (i = 0; i < at; ++i)
      a.host[i] = r + (int32_t)i;
    if (bufPut(&a))
      return 1;
    HCCL_OK(HcclReduceScatterV(a.dev, sc, sd, b.dev, rank + 1,
                               HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, s));
    ACL_OK(aclrtSynchronizeStream(s));
    if (bufGet(&b))
      return 1;
    EXPECT_EACH(i, rank + 1, b.host, 0, p * (p - 1) / 2 + p * (sd[rank] + i),
                "reducescatterv");
  }

  if (size > 1) {
    uint32_t next = (rank + 1) % size, prev = (rank + size - 1) % size;
    /* Send / Recv: even ranks send first, odd ranks receive first. */
    for (i = 0; i < n; ++i)
      a.host[i] = r * 7 + (int32_t)i;
    if (bufPut(&a))
      return 1;
    if (size % 2 == 0) {
      uint32_t peer = rank % 2 ? rank - 1 : rank + 1;
      if (rank % 2 == 0) {
        HCCL_OK(HcclSend(a.dev, n, HCCL_DATA_TYPE_INT32, peer, comm, s));
        HCCL_OK(HcclRecv(b.dev, n, HCCL_DATA_TYPE_INT32, peer, comm, s));
      } else {
        HCCL_OK(HcclRecv(b.dev, n, HCCL_DATA_TYPE_INT32, peer, comm, s));
        HCCL_OK(HcclSend(a.dev, n, HCCL_DATA_TYPE_INT32, peer, comm, s));
      }
      ACL_OK(aclrtSynchronizeStream(s));
      if (bufGet(&b))
        return 1;
      EXPECT_EACH(i, n, b.host, 0, peer * 7 + i, "send/recv");
    }

    /* HcclBatchSendRecv: a ring, sends listed first on every rank. */
    {
      HcclSendRecvItem items[2] = {
          {HCCL_SEND, a.dev, n, HCCL_DATA_TYPE_INT32, next},
          {HCCL_RECV, b.dev, n, HCCL_DATA_TYPE_INT32, prev}};
      HCCL_OK(HcclBatchSendRecv(items, 2, comm, s));
      ACL_OK(aclrtSynchronizeStream(s));
      if (bufGet(&b))
        return 1;
      EXPECT_EACH(i, n, b.host, 0, prev * 7 + i, "batch send/recv");
    }

    /* A group: the same ring with HcclSend before HcclRecv. */
    for (i = 0; i < n; ++i)
      b.host[i] = -1;
    if (bufPut(&b))
      return 1;
    HCCL_OK(HcclGroupStart());
    HCCL_OK(HcclSend(a.dev, n, HCCL_DATA_TYPE_INT32, next, comm, s));
    HCCL_OK(HcclRecv(b.dev, n, HCCL_DATA_TYPE_INT32, prev, comm, s));
    HCCL_OK(HcclGroupEnd());
    ACL_OK(aclrtSynchronizeStream(s));
    if (bufGet(&b))
      return 1;
    EXPECT_EACH(i, n, b.host, 0, prev * 7 + i, "group send/recv");
  }

  HCCL_OK(HcclBarrier(comm, s));
  ACL_OK(aclrtSynchronizeStream(s));
  bufFree(&a);
  bufFree(&b);
  return 0;
}

#endif /* HCCL_COMPAT_H */
