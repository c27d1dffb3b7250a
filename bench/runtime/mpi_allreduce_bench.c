/*===- mpi_allreduce_bench.c - MPI_Allreduce with hccl-test's output ------===//
 *
 * The reference peer for bench/runtime/compare_mpi.sh: same flags (-b -e -f
 * -i -n -w -c, sizes with K/M/G suffixes), same timing (barrier, then -n
 * back-to-back calls, the slowest rank's average) and the same rows as
 * hccl-test all_reduce -d fp32 -o sum.
 *
 *   mpirun -n 2 mpi-allreduce-bench -b 4K -e 64M -f 2
 *
 *===----------------------------------------------------------------------===*/
#include <mpi.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parseSize(const char *s, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  if (!isdigit((unsigned char)s[0]))
    return 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno)
    return 0;
  uint64_t mult = 1;
  if (*end == 'K' || *end == 'k')
    mult = 1ull << 10, ++end;
  else if (*end == 'M' || *end == 'm')
    mult = 1ull << 20, ++end;
  else if (*end == 'G' || *end == 'g')
    mult = 1ull << 30, ++end;
  if (*end || v > UINT64_MAX / mult)
    return 0;
  *out = v * mult;
  return 1;
}

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

static void usageError(int rank, const char *msg, const char *value) {
  if (rank == 0)
    fprintf(stderr, "mpi-allreduce-bench: %s%s\n", msg, value ? value : "");
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
    else
      usageError(rank, "unknown option ", f);
    if (!ok)
      usageError(rank, "bad value for option: ", f);
  }
  if (minBytes > maxBytes)
    usageError(rank, "-b is larger than -e", NULL);

  size_t maxCount = maxBytes / sizeof(float);
  float *send = malloc((maxCount ? maxCount : 1) * sizeof(float));
  float *recv = malloc((maxCount ? maxCount : 1) * sizeof(float));
  if (!send || !recv) {
    fprintf(stderr, "mpi-allreduce-bench: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    printf("the minbytes is %llu, maxbytes is %llu, iters is %ld, "
           "warmup_iters is %ld\n",
           (unsigned long long)minBytes, (unsigned long long)maxBytes, iters,
           warmup);
    printf("MPI_Allreduce: %d ranks, fp32, sum\n", size);
    printf("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
           "check_result: | bus_bandwidth(GB/s):\n");
    fflush(stdout);
  }
  int failed = 0;
  for (uint64_t bytes = minBytes; bytes <= maxBytes;) {
    size_t count = bytes / sizeof(float);
    /* Small integers: the sum is exact in any order. */
    for (size_t i = 0; i < count; ++i)
      send[i] = (float)((rank + i) % 7);
    memset(recv, 0xA5, count * sizeof(float));
    for (long i = 0; i < warmup; ++i)
      MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i)
      MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / iters, tmax = 0;
    long wrong = 0, wrongAll = 0;
    if (check)
      for (size_t i = 0; i < count; ++i) {
        float want = 0;
        for (int q = 0; q < size; ++q)
          want += (float)((q + i) % 7);
        wrong += recv[i] != want;
      }
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wrong, &wrongAll, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double dataBytes = (double)(count * sizeof(float));
      double algbw = tmax > 0 ? dataBytes / tmax / 1e9 : 0;
      double busbw = algbw * 2.0 * (size - 1) / size;
      const char *res = !check ? "NULL" : wrongAll ? "failed" : "success";
      failed |= wrongAll != 0;
      printf("%-17llu | %-14.2f | %-20.5f | %-13s | %.5f\n",
             (unsigned long long)(count * sizeof(float)), tmax * 1e6, algbw,
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
