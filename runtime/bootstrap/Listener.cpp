//===- Listener.cpp - A rank's listening socket: authenticated, concurrent ===//
#include "bootstrap/Listener.h"
#include "common/Log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <thread>

namespace hccl::rt {

namespace {
constexpr uint64_t kHelloMagic = 0x4843434c48454c4full;     // "HCCLHELO"
constexpr uint64_t kChallengeMagic = 0x4843434c4348414cull; // "HCCLCHAL"
constexpr uint32_t kHandshakeVersion = 2;                   // 2: with proofs

struct WireHello {
  uint64_t magic;
  uint32_t version;
  uint32_t purpose;
  uint8_t uid[16];
  int32_t rank;
  int32_t nRanks;
  uint32_t payloadBytes;
  uint32_t reserved;
  uint8_t nonce[16];
};
static_assert(sizeof(WireHello) == 64, "hello layout");

struct WireChallenge {
  uint64_t magic;
  uint8_t nonce[16];
  uint8_t mac[32];
};
static_assert(sizeof(WireChallenge) == 56, "challenge layout");

/// The MAC each side sends: over the whole hello (so the id, purpose and
/// rank claimed are bound to the proof) and both nonces (so no proof can be
/// replayed into another connection). Distinct labels keep a server's
/// proof from being reflected back as a client's.
Mac proofOf(const Key &key, const char *label, const WireHello &h,
            const uint8_t serverNonce[16]) {
  std::string msg(label);
  msg.append(reinterpret_cast<const char *>(&h), sizeof(h));
  msg.append(reinterpret_cast<const char *>(serverNonce), 16);
  return hmac(key, msg);
}

Status checkHello(const WireHello &h) {
  if (h.magic != kHelloMagic)
    return errPara("not an HCCL peer (bad hello)");
  if (h.version != kHandshakeVersion)
    return errPara("handshake version " + std::to_string(h.version) +
                   ", expected " + std::to_string(kHandshakeVersion) +
                   " (a different hccl-mlir build?)");
  if (h.purpose != static_cast<uint32_t>(ConnPurpose::Rendezvous) &&
      h.purpose != static_cast<uint32_t>(ConnPurpose::Data))
    return errPara("unknown connection purpose " + std::to_string(h.purpose));
  if (h.payloadBytes > kMaxHelloPayload)
    return errPara("announces a payload of " + std::to_string(h.payloadBytes) +
                   " bytes (at most " + std::to_string(kMaxHelloPayload) + ")");
  return Status::ok();
}
} // namespace

struct Listener::Handshake {
  Fd fd;
  SockAddr peer;
  Clock::time_point deadline;
  enum class Stage { Hello, Proof, Payload } stage = Stage::Hello;
  WireHello hello{};
  uint8_t serverNonce[16]{};
  Mac proof{};
  std::string payload;
  size_t got = 0;
  bool admitted = false;
};

StatusOr<std::shared_ptr<Listener>> Listener::open(const std::string &ip,
                                                   uint16_t basePort, int span,
                                                   ListenerAuth auth) {
  auto l = listenOn(ip, basePort, span);
  if (!l)
    return l.status();
  return std::make_shared<Listener>(std::move(l->first), l->second,
                                    std::move(auth));
}

Listener::Listener(Fd fd, SockAddr addr, ListenerAuth auth)
    : fd_(std::move(fd)), addr_(addr), auth_(std::move(auth)) {
  // accept4 after poll must never block: the connection may be gone.
  (void)setNonBlocking(fd_.get());
}

Listener::~Listener() = default;

void Listener::drop(Handshake &h, const std::string &why) {
  ++dropped_;
  // Log the first few and then a summary now and then: a flood must not
  // turn into a flood of log lines.
  if (dropped_ <= 16 || dropped_ % 256 == 0)
    HCCL_LOG(Warn, "listener " + addr_.str() + ": dropped a connection from " +
                       h.peer.ip() + ": " + why + " (" +
                       std::to_string(dropped_) + " dropped so far)");
  h.fd.reset();
}

bool Listener::step(Handshake &h) {
  for (;;) {
    char *buf = nullptr;
    size_t need = 0;
    switch (h.stage) {
    case Handshake::Stage::Hello:
      buf = reinterpret_cast<char *>(&h.hello);
      need = sizeof(h.hello);
      break;
    case Handshake::Stage::Proof:
      buf = reinterpret_cast<char *>(h.proof.data());
      need = h.proof.size();
      break;
    case Handshake::Stage::Payload:
      buf = h.payload.data();
      need = h.payload.size();
      break;
    }
    while (h.got < need) {
      ssize_t n = ::recv(h.fd.get(), buf + h.got, need - h.got, MSG_DONTWAIT);
      if (n > 0) {
        h.got += static_cast<size_t>(n);
        continue;
      }
      if (n == 0) {
        drop(h, "closed the connection during the handshake");
        return true;
      }
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return false;
      drop(h, std::string("recv: ") + std::strerror(errno));
      return true;
    }
    h.got = 0;
    switch (h.stage) {
    case Handshake::Stage::Hello: {
      Status st = checkHello(h.hello);
      if (!st.isOk()) {
        drop(h, st.message());
        return true;
      }
      WireChallenge c{};
      c.magic = kChallengeMagic;
      randomBytes(h.serverNonce, sizeof(h.serverNonce));
      std::memcpy(c.nonce, h.serverNonce, sizeof(c.nonce));
      Mac m =
          proofOf(auth_.key, "hccl-mlir server proof", h.hello, h.serverNonce);
      std::memcpy(c.mac, m.data(), m.size());
      // 56 bytes into an empty socket buffer: sent whole or the peer is gone.
      ssize_t n =
          ::send(h.fd.get(), &c, sizeof(c), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n != static_cast<ssize_t>(sizeof(c))) {
        drop(h, "cannot send the challenge");
        return true;
      }
      h.stage = Handshake::Stage::Proof;
      break;
    }
    case Handshake::Stage::Proof: {
      Mac want =
          proofOf(auth_.key, "hccl-mlir client proof", h.hello, h.serverNonce);
      if (!macEqual(want, h.proof)) {
        drop(h, "authentication failed: it does not hold this communicator's "
                "key (a stranger, or a rank given another job secret)");
        return true;
      }
      if (h.hello.payloadBytes == 0) {
        h.admitted = true;
        return true;
      }
      h.payload.resize(h.hello.payloadBytes);
      h.stage = Handshake::Stage::Payload;
      break;
    }
    case Handshake::Stage::Payload:
      h.admitted = true;
      return true;
    }
  }
}

void Listener::acceptNew() {
  for (int i = 0; i < 64; ++i) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    int fd = ::accept4(fd_.get(), reinterpret_cast<sockaddr *>(&ss), &len,
                       SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      return; // EAGAIN, or a transient error (EMFILE...): poll again later
    }
    auto h = std::make_unique<Handshake>();
    h->fd = Fd(fd);
    h->peer.ss = ss;
    h->peer.len = len;
    h->deadline = Clock::now() + std::chrono::milliseconds(kHandshakeMs);
    if (auth_.whitelist && !auth_.whitelist->allows(h->peer)) {
      drop(*h, "not in HCCL_WHITELIST_FILE");
      continue;
    }
    if (handshakes_.size() >= kMaxHandshakes) {
      drop(*handshakes_.front(), "too many handshakes at once (" +
                                     std::to_string(kMaxHandshakes) +
                                     "): the oldest goes");
      handshakes_.erase(handshakes_.begin());
    }
    setNoDelay(fd);
    handshakes_.push_back(std::move(h));
  }
}

StatusOr<Accepted> Listener::acceptFor(const Uid &uid, ConnPurpose purpose,
                                       const Deadline &deadline) {
  std::lock_guard<std::mutex> g(mu_);
  auto matches = [&](const Hello &h) {
    return h.uid == uid && h.purpose == static_cast<uint32_t>(purpose);
  };
  for (;;) {
    for (auto it = parked_.begin(); it != parked_.end(); ++it)
      if (matches(it->hello)) {
        Accepted a = std::move(*it);
        parked_.erase(it);
        return a;
      }
    std::vector<pollfd> pf;
    pf.reserve(handshakes_.size() + 1);
    pf.push_back({fd_.get(), POLLIN, 0});
    auto now = Clock::now();
    int64_t waitMs = deadline.remainingMs(200);
    for (auto &h : handshakes_) {
      pf.push_back({h->fd.get(), POLLIN, 0});
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      h->deadline - now)
                      .count();
      waitMs = std::min<int64_t>(waitMs, std::max<int64_t>(left, 0));
    }
    int rc = ::poll(pf.data(), pf.size(), static_cast<int>(waitMs));
    if (rc < 0 && errno != EINTR)
      return errSyscall("poll(listen)", errno);
    now = Clock::now();
    std::vector<std::unique_ptr<Handshake>> keep;
    keep.reserve(handshakes_.size());
    for (size_t i = 0; i < handshakes_.size(); ++i) {
      Handshake &h = *handshakes_[i];
      bool finished = false;
      if (rc > 0 && pf[i + 1].revents)
        finished = step(h);
      if (!finished && now >= h.deadline) {
        drop(h, "no complete handshake within " +
                    std::to_string(kHandshakeMs / 1000) + " s");
        finished = true;
      }
      if (!finished) {
        keep.push_back(std::move(handshakes_[i]));
        continue;
      }
      if (!h.admitted)
        continue;
      Accepted a;
      a.fd = std::move(h.fd);
      std::memcpy(a.hello.uid.b.data(), h.hello.uid, 16);
      a.hello.purpose = h.hello.purpose;
      a.hello.rank = h.hello.rank;
      a.hello.nRanks = h.hello.nRanks;
      a.payload = std::move(h.payload);
      a.peer = h.peer;
      if (parked_.size() >= 4096)
        parked_.pop_front();
      parked_.push_back(std::move(a));
    }
    handshakes_ = std::move(keep);
    if (rc > 0 && (pf[0].revents & POLLIN))
      acceptNew();
    for (auto it = parked_.begin(); it != parked_.end(); ++it)
      if (matches(it->hello)) {
        Accepted a = std::move(*it);
        parked_.erase(it);
        return a;
      }
    if (deadline.expired())
      return Status(HCCL_E_TIMEOUT, "timed out waiting for connections");
  }
}

StatusOr<Fd> connectWithHello(const SockAddr &addr, const Hello &hello,
                              const std::string &payload, const Key &key,
                              const Deadline &deadline) {
  if (payload.size() > kMaxHelloPayload)
    return errInternal("hello payload of " + std::to_string(payload.size()) +
                       " bytes exceeds the bound");
  int closedEarly = 0;
  // Says why earlier attempts failed, when a later one times out.
  auto explain = [&](const Status &st) {
    if (closedEarly == 0)
      return st;
    return Status(st.code(),
                  st.message() + "; the listener at " + addr.str() +
                      " closed " + std::to_string(closedEarly) +
                      " earlier connection(s) before the handshake (is this "
                      "host in its HCCL_WHITELIST_FILE?)");
  };
  for (;;) {
    auto fd = connectTo(addr, deadline);
    if (!fd)
      return explain(fd.status());
    WireHello w{};
    w.magic = kHelloMagic;
    w.version = kHandshakeVersion;
    w.purpose = hello.purpose;
    std::memcpy(w.uid, hello.uid.b.data(), 16);
    w.rank = hello.rank;
    w.nRanks = hello.nRanks;
    w.payloadBytes = static_cast<uint32_t>(payload.size());
    randomBytes(w.nonce, sizeof(w.nonce));
    WireChallenge c{};
    Status st = sendAll(fd->get(), &w, sizeof(w), deadline);
    if (st.isOk())
      st = recvAll(fd->get(), &c, sizeof(c), deadline);
    if (!st.isOk()) {
      // Closed before it answered: a busy listener dropped us (or it is
      // restarting). Try again while there is time.
      if (st.code() == HCCL_E_TCP_TRANSFER && !deadline.expired()) {
        ++closedEarly;
        std::this_thread::sleep_for(std::chrono::milliseconds(
            std::min<int64_t>(20 * closedEarly, deadline.remainingMs(200))));
        continue;
      }
      return explain(st.withContext("handshake with " + addr.str()));
    }
    if (c.magic != kChallengeMagic)
      return errPara("the process at " + addr.str() +
                     " is not an HCCL listener (bad challenge)");
    Mac serverProof;
    std::memcpy(serverProof.data(), c.mac, serverProof.size());
    if (!macEqual(serverProof,
                  proofOf(key, "hccl-mlir server proof", w, c.nonce)))
      return errPara("the listener at " + addr.str() +
                     " does not hold this communicator's key: it is not part "
                     "of this job, or the ranks were given different job "
                     "secrets (HCCL_JOB_SECRET / HCCL_JOB_SECRET_FILE)");
    Mac proof = proofOf(key, "hccl-mlir client proof", w, c.nonce);
    HCCL_RT_TRY(sendAll(fd->get(), proof.data(), proof.size(), deadline));
    if (!payload.empty())
      HCCL_RT_TRY(sendAll(fd->get(), payload.data(), payload.size(), deadline));
    return fd;
  }
}

} // namespace hccl::rt
