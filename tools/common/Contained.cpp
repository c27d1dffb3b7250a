//===- Contained.cpp - Run a tool's work in a forked child ----------------===//
//
// Why a child and not a fix: MLIR 19's parser (Debian's libMLIR.so, which we
// do not patch) frees a value that an operation still uses when a forward
// reference is resolved inside a region that is then abandoned: a top-level
// op naming %x, %x defined as a block argument of a later generic op, and
// a redefinition of %x there (heap corruption at cleanup, abort), or an
// scf.for whose iter_args name a value its own body defines (a dangling
// operand, SIGSEGV). Both need invalid IR, so valid input never reaches
// them, but no cheap scan can tell every such input from valid IR without
// knowing every op's syntax. The child runs the whole tool, so valid input
// costs one fork (no second parse); a child that dies of a crash signal has
// written nothing the parent vouches for (ToolOutputFile removes -o files on
// such signals), and the parent turns the crash into one error line and
// status 70. The child is not a sandbox: it runs with the user's rights.
//
//===----------------------------------------------------------------------===//
#include "InputGuard.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

volatile sig_atomic_t childPid = 0;

void forward(int sig) {
  if (childPid > 0)
    kill(childPid, sig);
}

bool isCrash(int sig) {
  switch (sig) {
  case SIGSEGV:
  case SIGBUS:
  case SIGILL:
  case SIGFPE:
  case SIGABRT:
  case SIGTRAP:
  case SIGSYS:
    return true;
  default:
    return false;
  }
}

} // namespace

int hccl::tools::runContained(llvm::StringRef tool,
                              llvm::function_ref<int()> body) {
  const char *noFork = std::getenv("HCCL_TOOLS_NO_FORK");
  if (noFork && std::strcmp(noFork, "0") != 0 && *noFork)
    return body();
  std::fflush(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0)
    return body(); // no child to be had: run unprotected rather than not
  if (pid == 0) {
    // The child does not outlive a parent that was killed outright.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(1);
    return body();
  }
  childPid = pid;
  const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (int sig : forwarded) {
    struct sigaction sa = {};
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return 70;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  if (isCrash(sig)) {
    std::string msg = "error: " + tool.str() + " crashed (" +
                      std::string(strsignal(sig)) +
                      ") on this input; the crash was contained in a child "
                      "process and its output is not valid. Either the input "
                      "hits a known MLIR 19 parser bug (invalid IR) or this is "
                      "a bug in " +
                      tool.str() + "; see docs/security.md\n";
    std::fputs(msg.c_str(), stderr);
    return 70;
  }
  // Interrupted or killed (OOM, timeout): end the same way, for the shell.
  signal(sig, SIG_DFL);
  kill(getpid(), sig);
  return 128 + sig;
}
