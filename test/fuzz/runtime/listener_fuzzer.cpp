//===- listener_fuzzer.cpp - Fuzzed bytes into a Listener's handshake -----===//
//
// A stranger's bytes reach the listener before anything is proven. The
// first byte chooses what the rest is:
//  - even: bytes sent as they are on a fresh connection, which then closes
//    its side. The listener must drop it, never admit it (only a holder of
//    the key is admitted), and at once: the peer is gone, so no waiting for
//    the 5 s handshake deadline.
//  - odd: a client that holds the key (connectWithHello) sends a hello with
//    fuzzed id, purpose, rank and size (24 bytes) and the rest as payload:
//    the listener admits exactly that hello and payload.
// Over a Unix socket: the same listener code as over TCP, without running
// out of ports to TIME_WAIT at fuzzing rates.
//
//===----------------------------------------------------------------------===//
#include "bootstrap/Listener.h"
#include "common/Deadline.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace hccl::rt;

namespace {
struct Fixture {
  std::shared_ptr<Listener> listener;
  SockAddr addr;
  Key key;
};

Fixture &fixture() {
  static Fixture f = [] {
    Fixture x;
    x.key = randomKey();
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    std::string name = "hccl-fuzz-listener-" + std::to_string(::getpid());
    std::memcpy(un.sun_path + 1, name.data(), name.size()); // abstract name
    auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 +
                                      name.size());
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&un), len) != 0 ||
        ::listen(fd, 64) != 0)
      abort();
    std::memcpy(&x.addr.ss, &un, len);
    x.addr.len = len;
    x.listener = std::make_shared<Listener>(Fd(fd), x.addr,
                                            ListenerAuth{x.key, nullptr});
    return x;
  }();
  return f;
}

[[noreturn]] void fail(const char *why) {
  std::fprintf(stderr, "listener_fuzzer: %s\n", why);
  abort();
}

void stranger(Fixture &f, const uint8_t *data, size_t size) {
  int c = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c < 0 || ::connect(c, reinterpret_cast<const sockaddr *>(&f.addr.ss),
                         f.addr.len) != 0)
    fail("cannot connect");
  // What fits the socket buffer; the listener reads 96 bytes at most
  // before the proof anyway.
  if (size > 4096)
    size = 4096;
  if (size && ::send(c, data, size, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
    fail("cannot send");
  ::shutdown(c, SHUT_WR);
  uint64_t before = f.listener->dropped();
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  Uid none;
  while (f.listener->dropped() == before) {
    auto a = f.listener->acceptFor(none, ConnPurpose::Rendezvous,
                                   Deadline::afterMs(5));
    if (a)
      fail("admitted a connection that never proved the key");
    if (std::chrono::steady_clock::now() > until)
      fail("a closed, unproven connection was neither dropped within 2 s "
           "nor refused (hang, or admitted and parked)");
  }
  ::close(c);
}

void member(Fixture &f, const uint8_t *data, size_t size) {
  if (size < 24)
    return;
  Hello h;
  std::memcpy(h.uid.b.data(), data, 16);
  h.purpose = (data[16] & 1) ? static_cast<uint32_t>(ConnPurpose::Data)
                             : static_cast<uint32_t>(ConnPurpose::Rendezvous);
  std::memcpy(&h.rank, data + 17, 4);
  h.nRanks = static_cast<int32_t>(data[21] | data[22] << 8 | data[23] << 16);
  std::string payload(reinterpret_cast<const char *>(data + 24), size - 24);
  StatusOr<Fd> sent = Status(HCCL_E_INTERNAL, "not run");
  std::thread client([&] {
    sent = connectWithHello(f.addr, h, payload, f.key, Deadline::afterMs(2000));
  });
  auto a = f.listener->acceptFor(h.uid, static_cast<ConnPurpose>(h.purpose),
                                 Deadline::afterMs(2000));
  client.join();
  if (!sent || !a)
    fail("a client holding the key was not admitted");
  if (a->hello.rank != h.rank || a->hello.nRanks != h.nRanks ||
      a->payload != payload)
    fail("admitted with another hello or payload than was sent");
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  Fixture &f = fixture();
  if (data[0] & 1)
    member(f, data + 1, size - 1);
  else
    stranger(f, data + 1, size - 1);
  return 0;
}
