/*===- memcpy_bench.c - One thread's memcpy bandwidth, the shm yardstick --===//
 *
 * compare_shm.sh's reference for what memory moves on this host right now:
 * one thread copying a -s byte buffer into another (both touched first, so
 * no page faults are timed), -n copies per sample, -r samples. Prints the
 * median and best samples in GB/s of bytes copied (the figure a 2-rank
 * shared-memory all-reduce's bus bandwidth is compared with).
 *
 *   memcpy-bench [-s 16M] [-n 20] [-r 5]
 *
 *===----------------------------------------------------------------------===*/
#include "size_arg.h"
#include <errno.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  uint64_t bytes = 16ull << 20, n = 20, rounds = 5;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      fprintf(stderr, "memcpy-bench: option needs a value: %s\n", argv[i]);
      return 2;
    }
    uint64_t *dst = NULL;
    if (!strcmp(argv[i], "-s"))
      dst = &bytes;
    else if (!strcmp(argv[i], "-n"))
      dst = &n;
    else if (!strcmp(argv[i], "-r"))
      dst = &rounds;
    if (!dst) {
      fprintf(stderr, "memcpy-bench: unknown option %s (-s -n -r)\n", argv[i]);
      return 2;
    }
    if (!parseSize(argv[i + 1], dst) || *dst == 0 ||
        *dst > (dst == &bytes ? (1ull << 40) : 1000000)) {
      fprintf(stderr, "memcpy-bench: bad value for %s: %s\n", argv[i],
              argv[i + 1]);
      return 2;
    }
  }
  char *a = malloc(bytes), *b = malloc(bytes);
  double *gbps = malloc(rounds * sizeof(double));
  if (!a || !b || !gbps) {
    fprintf(stderr, "memcpy-bench: out of memory for %llu bytes\n",
            (unsigned long long)bytes);
    return 1;
  }
  memset(a, 1, bytes);
  memset(b, 2, bytes);
  memcpy(b, a, bytes);
  for (uint64_t r = 0; r < rounds; ++r) {
    double t0 = now();
    for (uint64_t i = 0; i < n; ++i) {
      a[i % bytes] = (char)i; /* the copies are not dead */
      memcpy(b, a, bytes);
    }
    gbps[r] = (double)bytes * (double)n / (now() - t0) / 1e9;
  }
  if (b[bytes / 2] != 1) {
    fprintf(stderr, "memcpy-bench: the copy is wrong\n");
    return 1;
  }
  qsort(gbps, rounds, sizeof(double), cmp);
  printf("memcpy %llu bytes: median %.3f GB/s, best %.3f GB/s (%llu x %llu "
         "copies)\n",
         (unsigned long long)bytes, gbps[rounds / 2], gbps[rounds - 1],
         (unsigned long long)rounds, (unsigned long long)n);
  free(a);
  free(b);
  free(gbps);
  return 0;
}
