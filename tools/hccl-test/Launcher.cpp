//===- Launcher.cpp - Running hccl-test's ranks ---------------------------===//
#include "Launcher.h"

#include <hccl/hccl_host.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace hccltest {
namespace {

bool isSet(const char *name) {
  const char *v = std::getenv(name);
  return v && *v;
}

/// A port the kernel considers free right now on 127.0.0.1.
int freeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

/// The first port the ranks' listeners try: HCCL_IF_BASE_PORT + 1 (the
/// runtime refuses a malformed value itself; 60000 stands in for it here).
long listenerBasePort() {
  const char *v = std::getenv("HCCL_IF_BASE_PORT");
  char *end = nullptr;
  long base = v && *v ? std::strtol(v, &end, 10) : 60000;
  if (!v || !*v || *end != '\0' || base < 1024 || base > 65520)
    base = 60000;
  return base + 1;
}

volatile sig_atomic_t gStopSignal = 0;
void onStopSignal(int sig) { gStopSignal = sig; }

// Seconds the other ranks get, after one failed, to notice and exit on their
// own (the runtime reports a dead peer within a few seconds).
constexpr int kGraceSeconds = 15;

} // namespace

int freeMasterPort() {
  const long lo = listenerBasePort(), hi = lo + HCCL_HOST_LISTENER_PORTS - 1;
  // Each try is a fresh ephemeral port; 3.5% of the default range lies in
  // the listeners' span, so a few tries suffice.
  for (int i = 0; i < 64; ++i) {
    int port = freeLoopbackPort();
    if (port < 0)
      return -1;
    if (port < lo || port > hi)
      return port;
  }
  errno = EADDRINUSE;
  return -1;
}

LaunchMode detectLaunchMode() {
  if (isSet("OMPI_COMM_WORLD_SIZE") || isSet("PMI_SIZE"))
    return LaunchMode::Mpi;
  if (isSet("RANK") && isSet("WORLD_SIZE"))
    return LaunchMode::Torchrun;
  return LaunchMode::Local;
}

std::string prepareMpiRendezvous() {
  if (isSet("MASTER_ADDR") || isSet("HCCL_ROOT_INFO_FILE"))
    return "";
  std::string job;
  if (isSet("OMPI_MCA_ess_base_jobid"))
    job = std::getenv("OMPI_MCA_ess_base_jobid");
  else if (isSet("PMIX_NAMESPACE"))
    job = std::getenv("PMIX_NAMESPACE");
  else // MPICH's Hydra: the ranks of one host share their proxy parent
    job = "ppid" + std::to_string(::getppid());
  for (char &c : job)
    if (c == '/' || c == ' ')
      c = '_';
  std::string path = "/tmp/hccl-test-" + job + ".rootinfo";
  ::setenv("HCCL_ROOT_INFO_FILE", path.c_str(), 1);
  return path;
}

int launchLocal(int nRanks, const std::function<int()> &body) {
  int port = freeMasterPort();
  if (port < 0) {
    std::fprintf(stderr,
                 "hccl-test: cannot find a free port on 127.0.0.1 outside "
                 "the ranks' listener ports: %s\n",
                 std::strerror(errno));
    return 1;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  [[maybe_unused]] const pid_t parent = ::getpid();
  std::vector<pid_t> pids(nRanks, -1);
  for (int r = 0; r < nRanks; ++r) {
    pid_t pid = ::fork();
    if (pid < 0) {
      std::fprintf(stderr, "hccl-test: fork failed for rank %d: %s\n", r,
                   std::strerror(errno));
      for (pid_t p : pids)
        if (p > 0)
          ::kill(p, SIGKILL);
      for (pid_t p : pids)
        if (p > 0)
          ::waitpid(p, nullptr, 0);
      return 1;
    }
    if (pid == 0) {
#ifdef __linux__
      // If the launcher dies (killed by a test timeout, ^C), so do the
      // ranks: nothing is left running.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent)
        ::_exit(1);
#endif
      ::setenv("RANK", std::to_string(r).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(nRanks).c_str(), 1);
      ::setenv("LOCAL_WORLD_SIZE", std::to_string(nRanks).c_str(), 1);
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      int rc = body();
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(rc);
    }
    pids[r] = pid;
  }

  struct sigaction sa{};
  sa.sa_handler = onStopSignal;
  struct sigaction oldInt, oldTerm;
  ::sigaction(SIGINT, &sa, &oldInt);
  ::sigaction(SIGTERM, &sa, &oldTerm);

  int result = 0, running = nRanks;
  bool killed = false;
  std::chrono::steady_clock::time_point firstFailure{};
  while (running > 0) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      int r = 0;
      while (r < nRanks && pids[r] != pid)
        ++r;
      if (r == nRanks)
        continue;
      pids[r] = -1;
      --running;
      int rc = 0;
      if (WIFEXITED(status)) {
        rc = WEXITSTATUS(status);
      } else if (WIFSIGNALED(status)) {
        rc = 1;
        if (!killed)
          std::fprintf(stderr,
                       "hccl-test: rank %d was killed by signal %d "
                       "(%s)\n",
                       r, WTERMSIG(status), strsignal(WTERMSIG(status)));
      }
      if (rc != 0 && result == 0)
        firstFailure = std::chrono::steady_clock::now();
      if (rc == 2)
        result = 2;
      else if (rc != 0 && result == 0)
        result = 1;
      continue;
    }
    if (pid < 0 && errno != EINTR)
      break;
    bool graceOver =
        result != 0 && std::chrono::steady_clock::now() - firstFailure >
                           std::chrono::seconds(kGraceSeconds);
    if (!killed && (gStopSignal || graceOver)) {
      if (graceOver)
        std::fprintf(stderr,
                     "hccl-test: %d rank(s) still running %d s "
                     "after a rank failed; killing them\n",
                     running, kGraceSeconds);
      for (pid_t p : pids)
        if (p > 0)
          ::kill(p, SIGKILL);
      killed = true;
      if (result == 0)
        result = 1;
    }
    // The ranks do the work; the launcher only polls.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::sigaction(SIGINT, &oldInt, nullptr);
  ::sigaction(SIGTERM, &oldTerm, nullptr);
  return result;
}

} // namespace hccltest
