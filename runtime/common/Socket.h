//===- Socket.h - TCP sockets -----------------------------------*- C++ -*-===//
//
// Thin RAII and deadline-aware helpers over BSD sockets (IPv4 and IPv6):
// listening on a chosen interface and port range, connecting with retries
// until a deadline, and blocking exact-size I/O with a deadline (bootstrap).
// The tcp transport switches the sockets to non-blocking mode afterwards.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_SOCKET_H
#define HCCL_RUNTIME_COMMON_SOCKET_H

#include "common/Deadline.h"
#include "common/Status.h"

#include <cstdint>
#include <string>
#include <sys/socket.h>
#include <vector>

namespace hccl::rt {

/// An IPv4/IPv6 address and port.
struct SockAddr {
  sockaddr_storage ss{};
  socklen_t len = 0;

  static StatusOr<SockAddr> parse(const std::string &ip, uint16_t port);
  /// Resolves a host name or literal (MASTER_ADDR).
  static StatusOr<SockAddr> resolve(const std::string &host, uint16_t port);
  std::string ip() const;
  uint16_t port() const;
  void setPort(uint16_t port);
  std::string str() const; ///< "ip:port" ("[ip]:port" for IPv6)
  bool isLoopback() const;
};

/// Owns a file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&o) noexcept : fd_(o.release()) {}
  Fd &operator=(Fd &&o) noexcept;
  ~Fd() { reset(); }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);

private:
  int fd_ = -1;
};

/// Binds and listens on `ip`, trying ports base, base+1, ... base+span-1
/// (base 0: any free port). Returns the socket and the bound address.
StatusOr<std::pair<Fd, SockAddr>> listenOn(const std::string &ip,
                                           uint16_t basePort, int span);

/// Connects, retrying refused/unreachable attempts until `deadline`. A
/// connection to itself (below) is closed and retried.
StatusOr<Fd> connectTo(const SockAddr &addr, const Deadline &deadline);

/// Whether a connected TCP socket is connected to itself: its own address
/// and port are its peer's. A connect to a local port nobody listens on yet
/// succeeds so when the kernel happens to pick that port as the source (a
/// simultaneous open), e.g. a rank dialing MASTER_PORT before rank 0
/// listens, whose port came from the same ephemeral range.
bool isSelfConnected(int fd);

/// Accepts one connection; HCCL_E_TIMEOUT when the deadline passes first.
StatusOr<Fd> acceptOne(int listenFd, const Deadline &deadline);

/// Blocking exact-size I/O with a deadline (the socket may be non-blocking).
Status sendAll(int fd, const void *buf, size_t len, const Deadline &deadline);
Status recvAll(int fd, void *buf, size_t len, const Deadline &deadline);

/// Length-prefixed messages for bootstrap exchanges (at most 64 MiB).
Status sendFrame(int fd, const std::string &payload, const Deadline &deadline);
StatusOr<std::string> recvFrame(int fd, const Deadline &deadline);

Status setNonBlocking(int fd);
void setNoDelay(int fd);

/// A local interface address.
struct IfAddr {
  std::string name;
  std::string ip;
  bool loopback = false;
  bool ipv6 = false;
};
std::vector<IfAddr> listInterfaces();

/// HCCL_SOCKET_IFNAME matching: a comma list of prefixes ("eth,enp"), "^"
/// excludes ("^docker,lo"), "=" asks for exact names ("=eth0", "^=eth0").
bool ifnameMatches(const std::string &spec, const std::string &name);

/// The IP this process advertises to peers: HCCL_IF_IP if given, else the
/// first interface matching HCCL_SOCKET_IFNAME, else the first non-loopback
/// IPv4 interface, else 127.0.0.1.
StatusOr<std::string> chooseLocalIp(const std::string &ifIp,
                                    const std::string &ifnameSpec);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_SOCKET_H
