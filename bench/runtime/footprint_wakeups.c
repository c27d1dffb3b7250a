/*===- footprint_wakeups.c - Late wake-ups under a memory footprint -------===//
 *
 * Why run 17 measured plans with one shared buffer pair (validate_model.py
 * --max-buffer-mib 0; docs/performance.md, "Buffers the VM pays for"): on
 * this VM the same page touches cost far more CPU spread over a large
 * footprint than within a small one, and a host whose cores that keeps
 * busy wakes every other thread late. -p processes each map -m MiB of
 * their own (private, or -s MAP_SHARED: shmem pages, as the runtime's
 * buffers are) and touch every page of it -r times a pass, pausing 250 ms
 * between passes; once all have touched their memory the parent sleeps
 * 1 ms -n times and reports how late it woke, with the CPU time the host
 * spent (user+nice+system, and steal, from /proc/stat) over that window.
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
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + 1e-6 * (double)t.tv_nsec;
}

/* Busy (user + nice + system) and steal ticks of all CPUs, from the first
 * line of /proc/stat; 0 when it cannot be read. */
static int cpuTicks(long long *busy, long long *steal) {
  FILE *f = fopen("/proc/stat", "r");
  long long v[8] = {0};
  if (!f)
    return 0;
  int n = fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
                 &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  fclose(f);
  if (n != 8)
    return 0;
  *busy = v[0] + v[1] + v[2];
  *steal = v[7];
  return 1;
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

/* A child: map and touch its memory, say so on `ready`, then touch it
 * every pass until killed (or until the parent dies). */
static void toucher(size_t bytes, long long reps, int shared, int ready,
                    pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(1); /* the parent died before the line above */
  char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    _exit(1);
  memset(p, 1, bytes);
  char ok = 1;
  if (write(ready, &ok, 1) != 1)
    _exit(1);
  close(ready);
  for (;;) {
    for (long long r = 0; r < reps; ++r)
      for (size_t i = 0; i < bytes; i += 4096)
        p[i]++;
    usleep(250000);
  }
}

static void killAll(const pid_t *kids, long long n) {
  for (long long k = 0; k < n; ++k)
    kill(kids[k], SIGKILL);
  for (long long k = 0; k < n; ++k)
    waitpid(kids[k], NULL, 0);
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
  int pipefd[2];
  if (pipe(pipefd) != 0) {
    perror("footprint-wakeups: pipe");
    return 1;
  }
  pid_t kids[64], parent = getpid();
  for (long long k = 0; k < procs; ++k) {
    kids[k] = fork();
    if (kids[k] < 0) {
      perror("footprint-wakeups: fork");
      killAll(kids, k);
      return 1;
    }
    if (kids[k] == 0) {
      close(pipefd[0]);
      toucher(bytes, reps, shared, pipefd[1], parent);
    }
  }
  close(pipefd[1]);
  /* Every child has touched its memory (the first touches' page faults are
   * not what is measured); a child that failed closes its end unwritten. */
  for (long long k = 0; k < procs; ++k) {
    char ok;
    if (read(pipefd[0], &ok, 1) != 1) {
      fprintf(stderr, "footprint-wakeups: a child could not map or touch "
                      "its memory (out of memory?)\n");
      killAll(kids, procs);
      return 1;
    }
  }
  long long busy0 = 0, steal0 = 0, busy1 = 0, steal1 = 0;
  int ticks = cpuTicks(&busy0, &steal0);
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
  ticks = ticks && cpuTicks(&busy1, &steal1);
  /* A child that died while we measured (killed for memory) means the
   * figures are not what the line below says. */
  for (long long k = 0; k < procs; ++k)
    if (waitpid(kids[k], NULL, WNOHANG) != 0) {
      fprintf(stderr, "footprint-wakeups: a child ended while measuring\n");
      killAll(kids, procs);
      return 1;
    }
  killAll(kids, procs);
  long hz = sysconf(_SC_CLK_TCK);
  printf("%lld processes x %lld MiB (%s), every page touched %lld times a "
         "pass, 250 ms between passes: %lld sleeps of 1 ms woke up to %.1f "
         "ms late, %lld over 5 ms, %lld over 20 ms; host CPU busy %.2f s "
         "(steal %.2f s) of %.2f s wall\n",
         procs, mib, shared ? "MAP_SHARED each" : "private", reps, sleeps,
         worst, over5, over20,
         ticks && hz > 0 ? (double)(busy1 - busy0) / (double)hz : -1.0,
         ticks && hz > 0 ? (double)(steal1 - steal0) / (double)hz : -1.0, wall);
  return 0;
}
