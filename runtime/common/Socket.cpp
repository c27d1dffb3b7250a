//===- Socket.cpp - TCP sockets for bootstrap and the tcp transport -------===//
#include "common/Socket.h"
#include "common/Futex.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <thread>
#include <unistd.h>

namespace hccl::rt {

//===----------------------------------------------------------------------===//
// Addresses
//===----------------------------------------------------------------------===//

StatusOr<SockAddr> SockAddr::parse(const std::string &ip, uint16_t port) {
  SockAddr a;
  auto *v4 = reinterpret_cast<sockaddr_in *>(&a.ss);
  auto *v6 = reinterpret_cast<sockaddr_in6 *>(&a.ss);
  if (::inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    a.len = sizeof(sockaddr_in);
    return a;
  }
  std::memset(&a.ss, 0, sizeof(a.ss));
  if (::inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    a.len = sizeof(sockaddr_in6);
    return a;
  }
  return errPara("'" + ip + "' is not an IPv4 or IPv6 address");
}

StatusOr<SockAddr> SockAddr::resolve(const std::string &host, uint16_t port) {
  auto lit = parse(host, port);
  if (lit)
    return lit;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || res == nullptr)
    return errPara("cannot resolve host '" + host + "': " + ::gai_strerror(rc));
  SockAddr a;
  // Prefer IPv4: peers advertise IPv4 by default.
  const addrinfo *pick = res;
  for (const addrinfo *p = res; p; p = p->ai_next)
    if (p->ai_family == AF_INET) {
      pick = p;
      break;
    }
  std::memcpy(&a.ss, pick->ai_addr, pick->ai_addrlen);
  a.len = pick->ai_addrlen;
  ::freeaddrinfo(res);
  a.setPort(port);
  return a;
}

std::string SockAddr::ip() const {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (ss.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in *>(&ss)->sin_addr,
                buf, sizeof(buf));
  else if (ss.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6,
                &reinterpret_cast<const sockaddr_in6 *>(&ss)->sin6_addr, buf,
                sizeof(buf));
  return buf;
}

uint16_t SockAddr::port() const {
  if (ss.ss_family == AF_INET)
    return ntohs(reinterpret_cast<const sockaddr_in *>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6 *>(&ss)->sin6_port);
  return 0;
}

void SockAddr::setPort(uint16_t port) {
  if (ss.ss_family == AF_INET)
    reinterpret_cast<sockaddr_in *>(&ss)->sin_port = htons(port);
  else if (ss.ss_family == AF_INET6)
    reinterpret_cast<sockaddr_in6 *>(&ss)->sin6_port = htons(port);
}

std::string SockAddr::str() const {
  if (ss.ss_family == AF_INET6)
    return "[" + ip() + "]:" + std::to_string(port());
  return ip() + ":" + std::to_string(port());
}

bool SockAddr::isLoopback() const {
  if (ss.ss_family == AF_INET)
    return (ntohl(
                reinterpret_cast<const sockaddr_in *>(&ss)->sin_addr.s_addr) >>
            24) == 127;
  if (ss.ss_family == AF_INET6)
    return IN6_IS_ADDR_LOOPBACK(
        &reinterpret_cast<const sockaddr_in6 *>(&ss)->sin6_addr);
  return false;
}

//===----------------------------------------------------------------------===//
// Descriptors and options
//===----------------------------------------------------------------------===//

Fd &Fd::operator=(Fd &&o) noexcept {
  if (this != &o)
    reset(o.release());
  return *this;
}

void Fd::reset(int fd) {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = fd;
}

Status setNonBlocking(int fd) {
  int fl = ::fcntl(fd, F_GETFL, 0);
  if (fl < 0 || ::fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
    return errSyscall("fcntl(O_NONBLOCK)", errno);
  return Status::ok();
}

void setNoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

//===----------------------------------------------------------------------===//
// Listen / connect / accept
//===----------------------------------------------------------------------===//

StatusOr<std::pair<Fd, SockAddr>> listenOn(const std::string &ip,
                                           uint16_t basePort, int span) {
  auto addr = SockAddr::parse(ip, basePort);
  if (!addr)
    return addr.status();
  if (basePort == 0)
    span = 1;
  int lastErr = 0;
  for (int i = 0; i < span; ++i) {
    uint32_t port = basePort == 0 ? 0 : basePort + static_cast<uint32_t>(i);
    if (port > 65535)
      break;
    Fd fd(::socket(addr->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid())
      return errSyscall("socket", errno);
    int one = 1;
    // SO_REUSEADDR lets a restarted job rebind while old connections linger
    // in TIME_WAIT; it does not allow two live listeners on one port.
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    SockAddr a = *addr;
    a.setPort(static_cast<uint16_t>(port));
    if (::bind(fd.get(), reinterpret_cast<const sockaddr *>(&a.ss), a.len) !=
        0) {
      lastErr = errno;
      if (lastErr == EADDRINUSE || lastErr == EACCES)
        continue;
      return Status(HCCL_E_TCP_CONNECT,
                    "cannot bind " + a.str() + ": " + std::strerror(lastErr));
    }
    if (::listen(fd.get(), 1024) != 0) {
      // Two processes may bind the same free port at once (SO_REUSEADDR);
      // only one can listen: the other moves on.
      lastErr = errno;
      if (lastErr == EADDRINUSE && basePort != 0)
        continue;
      return errSyscall("listen on " + a.str(), lastErr);
    }
    sockaddr_storage bound{};
    socklen_t blen = sizeof(bound);
    ::getsockname(fd.get(), reinterpret_cast<sockaddr *>(&bound), &blen);
    SockAddr out;
    out.ss = bound;
    out.len = blen;
    return std::make_pair(std::move(fd), out);
  }
  return Status(
      HCCL_E_TCP_CONNECT,
      "no free port to listen on " + ip + " in " + std::to_string(basePort) +
          ".." +
          std::to_string(std::min<uint32_t>(65535, basePort + span - 1)) +
          " (HCCL_IF_BASE_PORT): " + std::strerror(lastErr));
}

bool isSelfConnected(int fd) {
  sockaddr_storage self{}, peer{};
  socklen_t sl = sizeof(self), pl = sizeof(peer);
  if (::getsockname(fd, reinterpret_cast<sockaddr *>(&self), &sl) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &pl) != 0)
    return false;
  if (self.ss_family != peer.ss_family)
    return false;
  if (self.ss_family == AF_INET) {
    const auto &a = reinterpret_cast<const sockaddr_in &>(self);
    const auto &b = reinterpret_cast<const sockaddr_in &>(peer);
    return a.sin_port == b.sin_port && a.sin_addr.s_addr == b.sin_addr.s_addr;
  }
  if (self.ss_family == AF_INET6) {
    const auto &a = reinterpret_cast<const sockaddr_in6 &>(self);
    const auto &b = reinterpret_cast<const sockaddr_in6 &>(peer);
    return a.sin6_port == b.sin6_port &&
           std::memcmp(&a.sin6_addr, &b.sin6_addr, sizeof(a.sin6_addr)) == 0;
  }
  return false;
}

StatusOr<Fd> connectTo(const SockAddr &addr, const Deadline &deadline) {
  int backoffMs = 1;
  for (;;) {
    Fd fd(::socket(addr.ss.ss_family,
                   SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid())
      return errSyscall("socket", errno);
    int rc = ::connect(fd.get(), reinterpret_cast<const sockaddr *>(&addr.ss),
                       addr.len);
    int err = rc == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      struct pollfd p = {fd.get(), POLLOUT, 0};
      int prc = ::poll(&p, 1, static_cast<int>(deadline.remainingMs(1000)));
      if (prc == 0) {
        err = ETIMEDOUT;
      } else {
        socklen_t l = sizeof(err);
        ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &l);
      }
    }
    // Connected to itself: the port is not the listener's yet, and holding
    // it would keep the listener from binding it. Refused, in effect.
    bool self = err == 0 && isSelfConnected(fd.get());
    if (self)
      err = ECONNREFUSED;
    if (err == 0) {
      setNoDelay(fd.get());
      return fd;
    }
    bool retry = err == ECONNREFUSED || err == ETIMEDOUT ||
                 err == ENETUNREACH || err == EHOSTUNREACH ||
                 err == ECONNRESET || err == EAGAIN;
    if (!retry)
      return Status(HCCL_E_TCP_CONNECT, "cannot connect to " + addr.str() +
                                            ": " + std::strerror(err));
    if (deadline.expired())
      return Status(HCCL_E_TIMEOUT,
                    "timed out connecting to " + addr.str() + " (last error: " +
                        (self ? std::string("connected to itself, nobody "
                                            "listening there")
                              : std::string(std::strerror(err))) +
                        ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(
        std::min<int64_t>(backoffMs, deadline.remainingMs(100))));
    backoffMs = std::min(backoffMs * 2, 100);
  }
}

StatusOr<Fd> acceptOne(int listenFd, const Deadline &deadline) {
  for (;;) {
    struct pollfd p = {listenFd, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(deadline.remainingMs(200)));
    if (rc < 0 && errno != EINTR)
      return errSyscall("poll(listen)", errno);
    if (rc > 0) {
      int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        setNoDelay(fd);
        return Fd(fd);
      }
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
          errno != ECONNABORTED)
        return errSyscall("accept", errno);
    }
    if (deadline.expired())
      return Status(HCCL_E_TIMEOUT, "timed out waiting for connections");
  }
}

//===----------------------------------------------------------------------===//
// Blocking exact-size I/O
//===----------------------------------------------------------------------===//

Status sendAll(int fd, const void *buf, size_t len, const Deadline &deadline) {
  const char *p = static_cast<const char *>(buf);
  while (len > 0) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return Status(HCCL_E_TCP_TRANSFER,
                    std::string("send failed: ") + std::strerror(errno));
    if (deadline.expired())
      return Status(HCCL_E_TIMEOUT, "timed out sending");
    struct pollfd pf = {fd, POLLOUT, 0};
    ::poll(&pf, 1, static_cast<int>(deadline.remainingMs(200)));
  }
  return Status::ok();
}

Status recvAll(int fd, void *buf, size_t len, const Deadline &deadline) {
  char *p = static_cast<char *>(buf);
  while (len > 0) {
    ssize_t n = ::recv(fd, p, len, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0)
      return Status(HCCL_E_TCP_TRANSFER, "connection closed by peer");
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return Status(HCCL_E_TCP_TRANSFER,
                    std::string("recv failed: ") + std::strerror(errno));
    if (deadline.expired())
      return Status(HCCL_E_TIMEOUT, "timed out receiving");
    struct pollfd pf = {fd, POLLIN, 0};
    ::poll(&pf, 1, static_cast<int>(deadline.remainingMs(200)));
  }
  return Status::ok();
}

Status sendFrame(int fd, const std::string &payload, const Deadline &deadline) {
  uint32_t len = static_cast<uint32_t>(payload.size());
  HCCL_RT_TRY(sendAll(fd, &len, sizeof(len), deadline));
  return sendAll(fd, payload.data(), payload.size(), deadline);
}

StatusOr<std::string> recvFrame(int fd, const Deadline &deadline) {
  uint32_t len = 0;
  HCCL_RT_TRY(recvAll(fd, &len, sizeof(len), deadline));
  if (len > (64u << 20))
    return Status(HCCL_E_TCP_TRANSFER, "bootstrap frame of " +
                                           std::to_string(len) +
                                           " bytes is too large");
  std::string s(len, '\0');
  HCCL_RT_TRY(recvAll(fd, s.data(), len, deadline));
  return s;
}

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

std::vector<IfAddr> listInterfaces() {
  std::vector<IfAddr> out;
  ifaddrs *ifs = nullptr;
  if (::getifaddrs(&ifs) != 0)
    return out;
  for (ifaddrs *i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || !(i->ifa_flags & IFF_UP))
      continue;
    int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6)
      continue;
    SockAddr a;
    std::memcpy(&a.ss, i->ifa_addr,
                fam == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
    a.len = fam == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (fam == AF_INET6 &&
        IN6_IS_ADDR_LINKLOCAL(
            &reinterpret_cast<sockaddr_in6 *>(&a.ss)->sin6_addr))
      continue; // link-local needs a scope id; not worth advertising
    IfAddr ia;
    ia.name = i->ifa_name;
    ia.ip = a.ip();
    ia.loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
    ia.ipv6 = fam == AF_INET6;
    out.push_back(ia);
  }
  ::freeifaddrs(ifs);
  return out;
}

bool ifnameMatches(const std::string &specIn, const std::string &name) {
  std::string spec = specIn;
  bool exclude = false, exact = false;
  if (!spec.empty() && spec[0] == '^') {
    exclude = true;
    spec.erase(0, 1);
  }
  if (!spec.empty() && spec[0] == '=') {
    exact = true;
    spec.erase(0, 1);
  }
  bool hit = false;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item = spec.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty() &&
        (exact ? name == item : name.compare(0, item.size(), item) == 0))
      hit = true;
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return exclude ? !hit : hit;
}

StatusOr<std::string> chooseLocalIp(const std::string &ifIp,
                                    const std::string &ifnameSpec) {
  if (!ifIp.empty()) {
    auto a = SockAddr::parse(ifIp, 0);
    if (!a)
      return errPara("HCCL_IF_IP=" + ifIp + ": " + a.status().message());
    return a->ip();
  }
  auto ifs = listInterfaces();
  if (!ifnameSpec.empty()) {
    // IPv4 first, like HCCL and NCCL.
    for (int pass = 0; pass < 2; ++pass)
      for (const auto &i : ifs)
        if (i.ipv6 == (pass == 1) && ifnameMatches(ifnameSpec, i.name))
          return i.ip;
    std::string names;
    for (const auto &i : ifs)
      names += (names.empty() ? "" : ",") + i.name;
    return errPara("HCCL_SOCKET_IFNAME=" + ifnameSpec +
                   ": no interface matches (have: " + names + ")");
  }
  for (const auto &i : ifs)
    if (!i.loopback && !i.ipv6)
      return i.ip;
  return std::string("127.0.0.1");
}

} // namespace hccl::rt
