/*===- footprint_wakeups.c - Late wake-ups under a memory footprint -------===//
 *
 * Why validate_model.py measures 4-rank plans with one shared buffer pair
 * (docs/performance.md, run 17): on this VM, processes that touch a large
 * footprint every iteration make every other thread's wake-ups late by
 * tens of milliseconds, while the same page touches within a small
 * footprint do not. -p processes each map -m MiB (private, or -s shared
 * with the others, as the runtime's buffers are) and touch every page of
 * it -r times every 250 ms; meanwhile the parent sleeps 1 ms -n times and
 * reports how late it woke, with the CPU time the host spent (user+system
 * from /proc/stat, all CPUs) over the same window.
 *
 *   footprint-wakeups [-p 4] [-m 2400] [-r 1] [-n 5000] [-s]
 *
 * Compare -m 2400 -r 1 with -m 100 -r 24 (the same page touches in 1/24 of
 * the memory).
 *
 *===----------------------------------------------------------------------===*/
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + 1e-6 * (double)t.tv_nsec;
}

/* user + system ticks of all CPUs (the first line of /proc/stat). */
static long long cpuTicks(void) {
  FILE *f = fopen("/proc/stat", "r");
  long long user = 0, nice = 0, sys = 0;
  if (!f)
    return -1;
  if (fscanf(f, "cpu %lld %lld %lld", &user, &nice, &sys) != 3)
    user = -1;
  fclose(f);
  return user < 0 ? -1 : user + nice + sys;
}

static int positive(const char *flag, const char *v, long long max,
                    long long *out) {
  char *end;
  errno = 0;
  long long x = v ? strtoll(v, &end, 10) : 0;
  if (!v || errno || *end || x < 1 || x > max) {
    fprintf(stderr,
            "footprint-wakeups: %s needs an integer in 1..%lld, "
            "found '%s'\n",
            flag, max, v ? v : "");
    return 0;
  }
  *out = x;
  return 1;
}

static void toucher(char *p, size_t bytes, long long reps) {
  for (;;) {
    for (long long r = 0; r < reps; ++r)
      for (size_t i = 0; i < bytes; i += 4096)
        p[i]++;
    usleep(250000);
  }
}

int main(int argc, char **argv) {
  long long procs = 4, mib = 2400, reps = 1, sleeps = 5000;
  int shared = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = 1;
    if (!strcmp(a, "-s")) {
      shared = 1;
      continue;
    } else if (!strcmp(a, "-p")) {
      ok = positive(a, v, 64, &procs);
    } else if (!strcmp(a, "-m")) {
      ok = positive(a, v, 1 << 20, &mib);
    } else if (!strcmp(a, "-r")) {
      ok = positive(a, v, 1000, &reps);
    } else if (!strcmp(a, "-n")) {
      ok = positive(a, v, 10000000, &sleeps);
    } else {
      fprintf(stderr,
              "footprint-wakeups: unknown option '%s'\nusage: "
              "footprint-wakeups [-p 4] [-m 2400] [-r 1] [-n 5000] [-s]\n",
              a);
      return 2;
    }
    if (!ok)
      return 2;
    ++i;
  }
  size_t bytes = (size_t)mib << 20;
  char *shm = NULL;
  if (shared) {
    shm = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
               -1, 0);
    if (shm == MAP_FAILED) {
      perror("footprint-wakeups: mmap");
      return 1;
    }
  }
  pid_t kids[64];
  for (long long k = 0; k < procs; ++k) {
    kids[k] = fork();
    if (kids[k] < 0) {
      perror("footprint-wakeups: fork");
      for (long long j = 0; j < k; ++j)
        kill(kids[j], SIGKILL);
      return 1;
    }
    if (kids[k] == 0) {
      char *p = shm ? shm
                    : mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        _exit(1);
      memset(p, 1, bytes);
      toucher(p, bytes, reps);
    }
  }
  sleep(3); /* the first touches (page faults) are not what is measured */
  long long t0 = cpuTicks();
  double w0 = nowMs(), worst = 0;
  long long over5 = 0, over20 = 0;
  for (long long i = 0; i < sleeps; ++i) {
    double t = nowMs();
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    double late = nowMs() - t - 1.0;
    worst = late > worst ? late : worst;
    over5 += late > 5;
    over20 += late > 20;
  }
  double wall = (nowMs() - w0) / 1e3;
  long long t1 = cpuTicks();
  for (long long k = 0; k < procs; ++k)
    kill(kids[k], SIGKILL);
  for (long long k = 0; k < procs; ++k)
    waitpid(kids[k], NULL, 0);
  long hz = sysconf(_SC_CLK_TCK);
  printf("%lld processes x %lld MiB (%s), every page touched %lld times per "
         "250 ms: %lld sleeps of 1 ms woke up to %.1f ms late, %lld over 5 ms, "
         "%lld over 20 ms; host CPU busy %.2f s of %.2f s wall\n",
         procs, mib, shared ? "one shared mapping" : "private", reps, sleeps,
         worst, over5, over20,
         t0 >= 0 && t1 >= 0 && hz > 0 ? (double)(t1 - t0) / (double)hz : -1.0,
         wall);
  return 0;
}
