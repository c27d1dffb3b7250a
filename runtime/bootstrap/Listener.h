//===- Listener.h - A rank's authenticated listener -------------*- C++ -*-===//
//
// Every communicator keeps one listening socket. Peers connect to it for the
// rendezvous of child communicators (split, sub-communicators) and to open
// TCP data connections. A connection is admitted only after the handshake:
//
//   client -> server  Hello: magic, version, purpose, communicator id, rank,
//                     size, payload length, client nonce        (64 bytes)
//   server -> client  server nonce, HMAC(key, "server" | hello | nonces)
//   client -> server  HMAC(key, "client" | hello | nonces), then the payload
//
// so each side proves it holds the listener's key (runtime/bootstrap/Auth.h)
// before the other uses a byte it sent; the payload (bounded) is read only
// after the client's proof. Handshakes run concurrently, each with its own
// short deadline, a bounded number at once: silent, slow or hostile
// connections are dropped and logged and never hold up the real ranks.
// acceptFor() returns the next admitted connection for the id and purpose
// asked and parks the others (admitted, so trusted) for their own waiter.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_LISTENER_H
#define HCCL_RUNTIME_BOOTSTRAP_LISTENER_H

#include "bootstrap/Auth.h"
#include "bootstrap/RootInfo.h"
#include "bootstrap/Whitelist.h"
#include "common/Socket.h"

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hccl::rt {

enum class ConnPurpose : uint32_t { Rendezvous = 1, Data = 2 };

/// What a connecting peer says about itself.
struct Hello {
  Uid uid;
  uint32_t purpose = 0;
  int32_t rank = -1;
  int32_t nRanks = 0;
};

struct Accepted {
  Fd fd;
  Hello hello;
  std::string payload;
  SockAddr peer;
};

/// Who may connect: the key they must prove and, optionally, the addresses
/// they may come from.
struct ListenerAuth {
  Key key;
  std::shared_ptr<const Whitelist> whitelist;
};

/// Bounds on unauthenticated input.
constexpr uint32_t kMaxHelloPayload = 1u << 20;
constexpr int kHandshakeMs = 5000;
constexpr size_t kMaxHandshakes = 256;

class Listener {
public:
  /// Listens on `ip`, ports base..base+span-1 (base 0: any port).
  static StatusOr<std::shared_ptr<Listener>>
  open(const std::string &ip, uint16_t basePort, int span, ListenerAuth auth);
  Listener(Fd fd, SockAddr addr, ListenerAuth auth);
  ~Listener();

  const SockAddr &addr() const { return addr_; }
  const Key &key() const { return auth_.key; }
  /// Next admitted connection whose hello has this id and purpose.
  StatusOr<Accepted> acceptFor(const Uid &uid, ConnPurpose purpose,
                               const Deadline &deadline);
  /// Connections dropped so far (failed handshakes, whitelist, overflow).
  uint64_t dropped() const { return dropped_; }

private:
  struct Handshake;
  void acceptNew();
  /// Advances one handshake; returns true when it is finished (admitted or
  /// dropped).
  bool step(Handshake &h);
  void drop(Handshake &h, const std::string &why);

  Fd fd_;
  SockAddr addr_;
  ListenerAuth auth_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Handshake>> handshakes_;
  std::deque<Accepted> parked_;
  uint64_t dropped_ = 0;
};

/// Connects to `addr`, runs the handshake with `key` and sends the payload.
/// Fails if the other end cannot prove it holds `key`. A connection closed
/// before the other end answered (a flooded listener dropped it) is retried
/// until the deadline.
StatusOr<Fd> connectWithHello(const SockAddr &addr, const Hello &hello,
                              const std::string &payload, const Key &key,
                              const Deadline &deadline);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_LISTENER_H
