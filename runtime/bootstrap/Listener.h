//===- Listener.h - A rank's listening socket with demultiplexing -*- C++
//-*-===//
//
// Every communicator keeps one listening socket. Peers connect to it for the
// rendezvous of child communicators (split, sub-communicators) and to open
// TCP data connections. Each connection starts with a Hello naming the
// communicator id and the purpose; acceptFor() returns the next connection
// for the id and purpose asked, and parks the others for their own waiter.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_LISTENER_H
#define HCCL_RUNTIME_BOOTSTRAP_LISTENER_H

#include "bootstrap/RootInfo.h"
#include "common/Socket.h"

#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace hccl::rt {

enum class ConnPurpose : uint32_t { Rendezvous = 1, Data = 2 };

struct Hello {
  uint64_t magic = kMagic;
  Uid uid;
  uint32_t purpose = 0;
  int32_t rank = -1;
  int32_t nRanks = 0;
  uint32_t payloadBytes = 0;
  static constexpr uint64_t kMagic = 0x4843434c48454c4full; // "HCCLHELO"
};

struct Accepted {
  Fd fd;
  Hello hello;
  std::string payload;
};

class Listener {
public:
  /// Listens on `ip`, ports base..base+span-1 (base 0: any port).
  static StatusOr<std::shared_ptr<Listener>> open(const std::string &ip,
                                                  uint16_t basePort, int span);
  /// Wraps an already bound socket.
  Listener(Fd fd, SockAddr addr) : fd_(std::move(fd)), addr_(addr) {}

  const SockAddr &addr() const { return addr_; }
  /// Next connection whose hello has this id and purpose.
  StatusOr<Accepted> acceptFor(const Uid &uid, ConnPurpose purpose,
                               const Deadline &deadline);

private:
  Fd fd_;
  SockAddr addr_;
  std::mutex mu_;
  std::deque<Accepted> parked_;
};

/// Connects to `addr` and sends the hello (+ payload).
StatusOr<Fd> connectWithHello(const SockAddr &addr, const Hello &hello,
                              const std::string &payload,
                              const Deadline &deadline);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_LISTENER_H
