/*===- mpi_coll_bench.c - MPI collectives with hccl-test's output ---------===//
 *
 * The MPI peer of bench/runtime/compare_mpi.sh and compare_shm.sh: same flags
 * as hccl-test (-b -e -f -i -n -w -c, sizes with K/M/G suffixes), same
 * timing (barrier, then -n back-to-back calls, the slowest rank's average),
 * the same data_size and bus bandwidth definitions (tools/hccl-test's
 * Layout.cpp, nccl-tests') and the same rows as hccl-test OP -d fp32 -o sum.
 * -o picks the collective: all_reduce (MPI_Allreduce, the default),
 * reduce_scatter (MPI_Reduce_scatter_block), all_gather (MPI_Allgather),
 * broadcast (MPI_Bcast from rank 0). Built against Open MPI by CMake and
 * against MPICH by compare_shm.sh (mpicc.mpich): one source, two peers.
 *
 *   mpirun -n 2 mpi-coll-bench -o all_gather -b 4K -e 64M -f 2
 *
 *===----------------------------------------------------------------------===*/
#include <mpi.h>

#include "size_arg.h"
#include <ctype.h>
#include <errno.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parseInt(const char *s, long lo, long hi, long *out) {
  char *end = NULL;
  errno = 0;
  if (!isdigit((unsigned char)s[0]))
    return 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

enum Op { ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER, BROADCAST };
static const char *const kOpNames[] = {"all_reduce", "reduce_scatter",
                                       "all_gather", "broadcast"};
static const char *const kMpiNames[] = {
    "MPI_Allreduce", "MPI_Reduce_scatter_block", "MPI_Allgather", "MPI_Bcast"};

static int parseOp(const char *s, enum Op *out) {
  for (int i = 0; i < 4; ++i)
    if (!strcmp(s, kOpNames[i])) {
      *out = (enum Op)i;
      return 1;
    }
  return 0;
}

/* One call of `op`; broadcast goes from rank 0's send buffer into the
 * others' receive buffers. */
static void call(enum Op op, float *send, float *recv, size_t count, int rank) {
  switch (op) {
  case ALL_REDUCE:
    MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    break;
  case REDUCE_SCATTER:
    MPI_Reduce_scatter_block(send, recv, (int)count, MPI_FLOAT, MPI_SUM,
                             MPI_COMM_WORLD);
    break;
  case ALL_GATHER:
    MPI_Allgather(send, (int)count, MPI_FLOAT, recv, (int)count, MPI_FLOAT,
                  MPI_COMM_WORLD);
    break;
  case BROADCAST:
    MPI_Bcast(rank == 0 ? send : recv, (int)count, MPI_FLOAT, 0,
              MPI_COMM_WORLD);
    break;
  }
}

/* Element i of a rank's receive buffer when rank q sent (q + j) % 7 at j. */
static float expected(enum Op op, size_t i, size_t count, int rank, int size) {
  float want = 0;
  switch (op) {
  case ALL_REDUCE:
    for (int q = 0; q < size; ++q)
      want += (float)((q + i) % 7);
    break;
  case REDUCE_SCATTER:
    for (int q = 0; q < size; ++q)
      want += (float)((q + (size_t)rank * count + i) % 7);
    break;
  case ALL_GATHER:
    want = (float)((i / count + i % count) % 7);
    break;
  case BROADCAST:
    want = (float)(i % 7);
    break;
  }
  return want;
}

/* busbw = algbw * factor (nccl-tests' definitions, as hccl-test). */
static double busBandwidthFactor(enum Op op, int size) {
  double p = size;
  switch (op) {
  case ALL_REDUCE:
    return 2.0 * (p - 1) / p;
  case REDUCE_SCATTER:
  case ALL_GATHER:
    return (p - 1) / p;
  case BROADCAST:
    break;
  }
  return 1.0;
}

static void usageError(int rank, const char *msg, const char *value) {
  if (rank == 0)
    fprintf(stderr, "mpi-coll-bench: %s%s\n", msg, value ? value : "");
  MPI_Finalize();
  exit(2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  uint64_t minBytes = 64ull << 20, maxBytes = 64ull << 20, step = 1ull << 20;
  long factor = 1, iters = 20, warmup = 5, check = 1;
  enum Op op = ALL_REDUCE;
  for (int i = 1; i < argc; ++i) {
    const char *f = argv[i];
    if (i + 1 >= argc)
      usageError(rank, "option needs a value: ", f);
    const char *v = argv[++i];
    int ok = 1;
    if (!strcmp(f, "-b"))
      ok = parseSize(v, &minBytes);
    else if (!strcmp(f, "-e"))
      ok = parseSize(v, &maxBytes);
    else if (!strcmp(f, "-i"))
      ok = parseSize(v, &step) && step > 0;
    else if (!strcmp(f, "-f"))
      ok = parseInt(v, 1, 1024, &factor);
    else if (!strcmp(f, "-n"))
      ok = parseInt(v, 1, 1000000, &iters);
    else if (!strcmp(f, "-w"))
      ok = parseInt(v, 0, 1000000, &warmup);
    else if (!strcmp(f, "-c"))
      ok = parseInt(v, 0, 1, &check);
    else if (!strcmp(f, "-o"))
      ok = parseOp(v, &op);
    else
      usageError(rank, "unknown option ", f);
    if (!ok)
      usageError(rank, "bad value for option: ", f);
  }
  if (minBytes > maxBytes)
    usageError(rank, "-b is larger than -e", NULL);

  /* Buffers for the largest size: every op's send and receive buffers
   * fit in maxBytes (hccl-test's layouts: data_size is the larger side). */
  size_t maxCount = maxBytes / sizeof(float);
  float *send = malloc((maxCount ? maxCount : 1) * sizeof(float));
  float *recv = malloc((maxCount ? maxCount : 1) * sizeof(float));
  if (!send || !recv) {
    fprintf(stderr, "mpi-coll-bench: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double busFactor = busBandwidthFactor(op, size);
  if (rank == 0) {
    printf("the minbytes is %llu, maxbytes is %llu, iters is %ld, "
           "warmup_iters is %ld\n",
           (unsigned long long)minBytes, (unsigned long long)maxBytes, iters,
           warmup);
    printf("%s: %d ranks, fp32, sum\n", kMpiNames[op], size);
    printf("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
           "check_result: | bus_bandwidth(GB/s):\n");
    fflush(stdout);
  }
  int failed = 0;
  for (uint64_t bytes = minBytes; bytes <= maxBytes;) {
    /* count: the per-call count argument; sendN / recvN: the elements each
     * buffer holds; dataN: hccl-test's data_size for this op, in elements. */
    size_t count = bytes / sizeof(float), sendN = count, recvN = count;
    if (op == REDUCE_SCATTER) {
      count = bytes / (sizeof(float) * size);
      sendN = count * size;
      recvN = count;
    } else if (op == ALL_GATHER) {
      count = bytes / (sizeof(float) * size);
      sendN = count;
      recvN = count * size;
    }
    size_t dataN = sendN > recvN ? sendN : recvN;
    /* Small integers: sums are exact in any order. */
    for (size_t i = 0; i < sendN; ++i)
      send[i] = (float)((rank + i) % 7);
    memset(recv, 0xA5, recvN * sizeof(float));
    for (long i = 0; i < warmup; ++i)
      call(op, send, recv, count, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i)
      call(op, send, recv, count, rank);
    double t = (MPI_Wtime() - t0) / iters, tmax = 0;
    long wrong = 0, wrongAll = 0;
    if (check) {
      /* Rank 0 broadcasts from its send buffer; it has nothing to check. */
      size_t n = op == BROADCAST && rank == 0 ? 0 : recvN;
      for (size_t i = 0; i < n; ++i)
        wrong += recv[i] != expected(op, i, count, rank, size);
    }
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wrong, &wrongAll, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double dataBytes = (double)(dataN * sizeof(float));
      double algbw = tmax > 0 ? dataBytes / tmax / 1e9 : 0;
      double busbw = algbw * busFactor;
      const char *res = !check ? "NULL" : wrongAll ? "failed" : "success";
      failed |= wrongAll != 0;
      printf("%-17llu | %-14.2f | %-20.5f | %-13s | %.5f\n",
             (unsigned long long)(dataN * sizeof(float)), tmax * 1e6, algbw,
             res, busbw);
      fflush(stdout);
    }
    uint64_t next = factor > 1 ? bytes * (uint64_t)factor : bytes + step;
    if (next <= bytes)
      break;
    bytes = next;
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return failed;
}
