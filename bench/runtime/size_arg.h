/*===- size_arg.h - hccl-test's size arguments for the C peers ----------===//
 *
 * "64", "4K", "16M", "1G" (powers of two, as hccl-test reads them), for the
 * C programs compare_mpi.sh and compare_shm.sh run beside it.
 *
 *===--------------------------------------------------------------------===*/
#ifndef HCCL_BENCH_RUNTIME_SIZE_ARG_H
#define HCCL_BENCH_RUNTIME_SIZE_ARG_H

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* 1 and *out set on a valid size, 0 otherwise. */
static inline int parseSize(const char *s, uint64_t *out) {
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

#endif
