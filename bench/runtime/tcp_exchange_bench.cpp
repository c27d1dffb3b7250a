//===- tcp_exchange_bench.cpp - What loopback sockets alone can move ------===//
//
// The third column of compare_gloo.sh. Two processes joined by one TCP
// connection over 127.0.0.1 send each other S bytes at the same time
// (non-blocking sockets and poll, every send and recv call as large as
// the rest of the piece, TCP_NODELAY, the kernel's buffer autotuning),
// which is all the moving a 2-rank all-reduce of S bytes has to do: S/2
// each way to reduce-scatter and S/2 each way to all-gather. No reduction,
// no copies of our own, no protocol. Its "bus bandwidth" (S / time, which
// for 2 ranks is also an all-reduce's busbw) is what a TCP all-reduce
// could reach here if reducing and bookkeeping were free: hccl-test's TCP
// transport and gloo are both measured against it. The bytes go in pieces
// of at most -c (default 8M, the pieces the runtime splits element-wise
// collectives into over sockets), so that both sides work on the same
// amount of memory at a time.
//
//   tcp-exchange-bench [-b 4K] [-e 64M] [-f 2] [-n 20] [-w 5] [-c 8M]
//
// Flags and rows as hccl-test's (data_size | aveg_time | alg_bandwidth |
// check_result | bus_bandwidth), the time being the slower process's
// average over -n exchanges after -w untimed ones.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Types.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kMaxBytes = 4ull << 30; ///< two buffers of this per process

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "tcp-exchange-bench: %s\n", what.c_str());
  std::exit(1);
}

[[noreturn]] void dieErrno(const std::string &what) {
  die(what + ": " + std::strerror(errno));
}

/// "8K", "64M", "1G" or a plain byte count (lib/schedule's parser, the one
/// behind the passes' size options).
uint64_t parseSize(const char *flag, const char *text) {
  std::optional<uint64_t> v = hccl::sched::parseByteSize(text);
  if (!v)
    die(std::string("-") + flag + " " + text +
        ": expected a size like 8192, 8K, 64M or 1G");
  if (*v > kMaxBytes)
    die(std::string("-") + flag + " " + text + ": at most 4G");
  return *v;
}

uint64_t parseCount(const char *flag, const char *text, uint64_t lo) {
  std::string t = text;
  if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos ||
      t.size() > 9 || std::stoull(t) < lo)
    die(std::string("-") + flag + " " + text +
        ": expected an integer >= " + std::to_string(lo));
  return std::stoull(t);
}

/// Sends `out` and receives `in` (same length) at once on non-blocking fd.
void exchange(int fd, const char *out, char *in, size_t len) {
  size_t sent = 0, got = 0;
  while (sent < len || got < len) {
    pollfd p{fd,
             static_cast<short>((sent < len ? POLLOUT : 0) |
                                (got < len ? POLLIN : 0)),
             0};
    int rc = poll(&p, 1, 60000);
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc < 0)
      dieErrno("poll");
    if (rc == 0)
      die("no progress for 60 s (peer gone?)");
    if (p.revents & (POLLERR | POLLNVAL))
      die("socket error");
    if (sent < len && (p.revents & POLLOUT)) {
      ssize_t k = send(fd, out + sent, len - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (k < 0 && errno != EAGAIN && errno != EINTR)
        dieErrno("send");
      if (k > 0)
        sent += static_cast<size_t>(k);
    }
    if (got < len && (p.revents & (POLLIN | POLLHUP))) {
      ssize_t k = recv(fd, in + got, len - got, MSG_DONTWAIT);
      if (k == 0)
        die("the other process closed the connection");
      if (k < 0 && errno != EAGAIN && errno != EINTR)
        dieErrno("recv");
      if (k > 0)
        got += static_cast<size_t>(k);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  uint64_t minb = 4 << 10, maxb = 64 << 20, factor = 2, iters = 20, warmup = 5,
           piece = 8 << 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() != 2 || a[0] != '-' || i + 1 >= argc)
      die("unknown or incomplete option '" + a +
          "' (flags: -b SIZE -e SIZE -f FACTOR -n ITERS -w WARMUP -c "
          "PIECE)");
    const char *v = argv[++i];
    switch (a[1]) {
    case 'b':
      minb = parseSize("b", v);
      break;
    case 'e':
      maxb = parseSize("e", v);
      break;
    case 'f':
      factor = parseCount("f", v, 2);
      break;
    case 'n':
      iters = parseCount("n", v, 1);
      break;
    case 'w':
      warmup = parseCount("w", v, 0);
      break;
    case 'c':
      piece = parseSize("c", v);
      break;
    default:
      die("unknown option '" + a + "'");
    }
  }
  if (minb < 1 || minb > maxb)
    die("-b must be >= 1 and at most -e");
  if (piece < 1)
    die("-c must be >= 1");

  int ls = socket(AF_INET, SOCK_STREAM, 0);
  if (ls < 0)
    dieErrno("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof addr;
  if (bind(ls, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
      getsockname(ls, reinterpret_cast<sockaddr *>(&addr), &alen) != 0 ||
      listen(ls, 1) != 0)
    dieErrno("listen on 127.0.0.1");
  pid_t child = fork();
  if (child < 0)
    dieErrno("fork");
  int fd;
  if (child == 0) {
    close(ls);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 ||
        connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
      dieErrno("connect");
  } else {
    // Not a blocking accept: a child that fails to connect exits, and the
    // wait must end too.
    pollfd lp{ls, POLLIN, 0};
    if (poll(&lp, 1, 30000) != 1)
      die("the other process did not connect within 30 s");
    fd = accept(ls, nullptr, nullptr);
    if (fd < 0)
      dieErrno("accept");
    close(ls);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  std::vector<char> out, in;
  try {
    out.assign(maxb, 1);
    in.assign(maxb, 0);
  } catch (const std::bad_alloc &) {
    die("cannot allocate two buffers of " + std::to_string(maxb) + " bytes");
  }
  char token = 0, peerToken;
  if (child != 0) {
    std::printf("the minbytes is %llu, maxbytes is %llu, iters is %llu, "
                "warmup_iters is %llu\n",
                static_cast<unsigned long long>(minb),
                static_cast<unsigned long long>(maxb),
                static_cast<unsigned long long>(iters),
                static_cast<unsigned long long>(warmup));
    std::printf("tcp exchange: 2 processes, one loopback connection, S bytes "
                "each way at once, in pieces of at most %llu\n",
                static_cast<unsigned long long>(piece));
    std::printf("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
                "check_result: | bus_bandwidth(GB/s):\n");
  }
  for (uint64_t s = minb; s <= maxb; s *= factor) {
    auto once = [&] {
      for (uint64_t off = 0; off < s; off += piece)
        exchange(fd, out.data() + off, in.data() + off,
                 std::min(piece, s - off));
    };
    for (uint64_t k = 0; k < warmup; ++k)
      once();
    exchange(fd, &token, &peerToken, 1); // barrier
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t k = 0; k < iters; ++k)
      once();
    double mine =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count() /
        static_cast<double>(iters);
    double theirs = 0;
    exchange(fd, reinterpret_cast<const char *>(&mine),
             reinterpret_cast<char *>(&theirs), sizeof mine);
    double sec = std::max(mine, theirs);
    if (child != 0) {
      double bw = static_cast<double>(s) / sec / 1e9;
      std::printf("%-17llu | %-14.2f | %-20.5f | %-13s | %.5f\n",
                  static_cast<unsigned long long>(s), sec * 1e6, bw, "NULL",
                  bw);
      std::fflush(stdout);
    }
    if (s > maxb / factor)
      break;
  }
  close(fd);
  if (child != 0) {
    int status = 0;
    if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      die("the other process failed");
  }
  return 0;
}
