//===- TcpPair.cpp - Pair over a non-blocking TCP connection --------------===//
#include "transport/tcp/TcpPair.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

namespace hccl::rt {

namespace {
constexpr uint32_t kAbortMagic = 0x48414254u; // "HABT"
constexpr uint32_t kByeMagic = 0x48425945u;   // "HBYE"
constexpr size_t kMaxAbortText = 4096;

std::string controlFrame(uint32_t magic, const std::string &text,
                         HcclResult code) {
  WireHeader h;
  h.magic = magic;
  h.bytes = text.size();
  h.call.count = static_cast<uint64_t>(code);
  h.call.kind = CallKind::Internal;
  std::string out(reinterpret_cast<const char *>(&h), sizeof(h));
  return out + text;
}
} // namespace

TcpPair::TcpPair(int peer, Fd fd, TcpEngine *engine, size_t chunkBytes,
                 int nChunks)
    : Pair(peer), fd_(std::move(fd)), engine_(engine), chunkBytes_(chunkBytes),
      nChunks_(nChunks), chunks_(static_cast<size_t>(nChunks)) {}

TcpPair::~TcpPair() = default;

//===----------------------------------------------------------------------===//
// Executor side
//===----------------------------------------------------------------------===//

Status TcpPair::postSend(SendOp &op) {
  op.sent = 0;
  op.done.store(false, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!failed_.isOk())
      return failed_;
    if (cancelled_)
      return Status(HCCL_E_INTERNAL, "connection to rank " +
                                         std::to_string(peer()) +
                                         " is closed after a failure");
    if (peerBye_)
      return Status(HCCL_E_REMOTE,
                    "rank " + std::to_string(peer()) +
                        " destroyed its communicator; cannot send to it");
    sends_.push_back(&op);
  }
  engine_->kick();
  return Status::ok();
}

Status TcpPair::postRecv(RecvOp &op) {
  op.received = 0;
  op.done.store(false, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!failed_.isOk())
      return failed_;
    if (cancelled_)
      return Status(HCCL_E_INTERNAL, "connection to rank " +
                                         std::to_string(peer()) +
                                         " is closed after a failure");
    recvs_.push_back(&op);
  }
  engine_->kick();
  return Status::ok();
}

Status TcpPair::progress(bool &moved) {
  // Move bytes here rather than wait for the engine thread; it stays away
  // until idle().
  callerServing_.store(true, std::memory_order_release);
  {
    Status failure;
    bool completed = false, pending = false;
    uint64_t before = ioCalls_.load(std::memory_order_relaxed);
    onEvents(EPOLLIN | EPOLLOUT, failure, completed, pending);
    // As on the engine: a broken connection fails the call only when
    // operations wait on it; else health() reports it to the next one.
    if (!failure.isOk() && pending)
      return failure;
    moved = moved || completed ||
            ioCalls_.load(std::memory_order_relaxed) != before;
  }
  // Drain staged chunks of reducing receives.
  uint64_t filled = filled_.load(std::memory_order_acquire);
  uint64_t drained = drained_.load(std::memory_order_relaxed);
  if (drained == filled)
    return Status::ok();
  while (drained < filled) {
    size_t slot = drained % static_cast<uint64_t>(nChunks_);
    Chunk c = chunks_[slot];
    if (!applyIncoming(*c.op, c.offset, staging_.get() + slot * chunkBytes_,
                       c.len))
      return errInternal("reduction failed (unsupported type/op)");
    c.op->received += c.len;
    if (c.op->received == c.op->bytes)
      c.op->done.store(true, std::memory_order_release);
    ++drained;
    drained_.store(drained, std::memory_order_seq_cst);
    moved = true;
  }
  // Room again; the next onEvents() reads on (the engine's interest is
  // refreshed when idle() hands the pair back).
  std::lock_guard<std::mutex> g(mu_);
  stagingFull_ = false;
  return Status::ok();
}

void TcpPair::idle() {
  if (callerServing_.exchange(false, std::memory_order_acq_rel))
    engine_->kick(); // re-arms the socket
}

Status TcpPair::health(const CallId &current) {
  std::lock_guard<std::mutex> g(mu_);
  bool pending = !sends_.empty() || !recvs_.empty();
  // As for shm: a broken connection matters only to operations still on it.
  if (!failed_.isOk() && pending)
    return failed_;
  if (peerBye_ && pending)
    return Status(
        HCCL_E_REMOTE,
        "rank " + std::to_string(peer()) +
            " destroyed its communicator while this rank waits for it");
  return peekLocked(current);
}

Status TcpPair::peekMismatch(const CallId &current) {
  std::lock_guard<std::mutex> g(mu_);
  return peekLocked(current);
}

Status TcpPair::peekLocked(const CallId &current) {
  if (hdrGot_ == sizeof(WireHeader) && !hdrReady_ &&
      hdr_.magic == WireHeader::kMagic) {
    bool sameClass = (hdr_.call.kind == CallKind::SendRecv) ==
                     (current.kind == CallKind::SendRecv);
    if (sameClass && hdr_.call.seq == current.seq && hdr_.call != current) {
      WireHeader want;
      want.call = current;
      return Status(HCCL_E_PARA, describeMismatch(peer(), want, hdr_));
    }
  }
  return Status::ok();
}

Status TcpPair::liveness() {
  std::lock_guard<std::mutex> g(mu_);
  return failed_;
}

void TcpPair::cancelAll() {
  std::lock_guard<std::mutex> g(mu_);
  // The stream must stay parseable for the peer, so that it still gets our
  // ABORT frame (with the reason) and no reset: a half-written message is
  // completed with zeros, a half-read one is read and dropped, and later
  // data messages are dropped too.
  if (!sends_.empty() && sends_.front()->sent > 0) {
    SendOp &op = *sends_.front();
    padHdr_ = op.hdr;
    padSent_ = op.sent;
    padTotal_ = sizeof(WireHeader) + op.bytes;
  }
  if (cur_ != nullptr)
    discardLeft_ = cur_->bytes - payloadGot_;
  sends_.clear();
  recvs_.clear();
  cur_ = nullptr;
  hdrReady_ = false;
  filled_.store(0);
  drained_.store(0);
  fillGot_ = 0;
  stagingFull_ = false;
  cancelled_ = true;
}

void TcpPair::notifyAbort(const Status &why) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (shutdownDone_ || wantAbort_)
      return;
    wantAbort_ = true;
    abortText_ = why.message().substr(0, kMaxAbortText);
    abortCode_ = why.code();
  }
  engine_->kick();
}

void TcpPair::closeGraceful() {
  {
    std::lock_guard<std::mutex> g(mu_);
    wantBye_ = true;
  }
  engine_->kick();
}

bool TcpPair::byeSent() {
  std::lock_guard<std::mutex> g(mu_);
  return (sentBye_ && ctrlOut_.empty() && padSent_ >= padTotal_) ||
         shutdownDone_ || !failed_.isOk();
}

bool TcpPair::peerGone() {
  std::lock_guard<std::mutex> g(mu_);
  return peerBye_ || peerEof_ || shutdownDone_ || !failed_.isOk();
}

void TcpPair::halfClose() {
  std::lock_guard<std::mutex> g(mu_);
  if (!shutdownDone_)
    ::shutdown(fd_.get(), SHUT_WR);
}

//===----------------------------------------------------------------------===//
// Engine side
//===----------------------------------------------------------------------===//

void TcpPair::fail(Status st) {
  if (failed_.isOk())
    failed_ = std::move(st);
  if (!shutdownDone_) {
    ::shutdown(fd_.get(), SHUT_RDWR);
    shutdownDone_ = true;
  }
}

uint32_t TcpPair::interest() {
  if (shutdownDone_)
    return 0;
  uint32_t ev = 0;
  bool parked = !cancelled_ && hdrGot_ == sizeof(WireHeader) && !hdrReady_ &&
                recvs_.empty() && hdr_.magic == WireHeader::kMagic;
  if (!parked && !stagingFull_ && !peerEof_ && !(protocolError_ && !cancelled_))
    ev |= EPOLLIN;
  if (!sends_.empty() || !ctrlOut_.empty() || (wantBye_ && !sentBye_) ||
      (wantAbort_ && !abortSent_) || padSent_ < padTotal_)
    ev |= EPOLLOUT;
  if (!peerEof_ && !rdhupSeen_)
    ev |= EPOLLRDHUP;
  return ev;
}

uint32_t TcpPair::onEvents(uint32_t events, Status &failure, bool &completed,
                           bool &pending) {
  std::lock_guard<std::mutex> g(mu_);
  if (shutdownDone_ || !failed_.isOk())
    return 0;
  pending = !sends_.empty() || !recvs_.empty() || cur_ != nullptr;
  if (events & EPOLLRDHUP)
    rdhupSeen_ = true; // the peer stopped writing; read what is left first
  if (writeSome(failure, completed)) {
    for (int guard = 0; guard < 1024; ++guard) {
      bool more = discardLeft_ > 0 ? discardSome(failure)
                  : hdrReady_      ? readPayload(failure, completed)
                                   : readHeader(failure);
      if (wakeExecutor_) {
        wakeExecutor_ = false;
        completed = true;
      }
      if (!more)
        break;
    }
  }
  if (!failure.isOk() && !protocolError_)
    fail(failure);
  // A peer's abort breaks the whole communicator whatever is queued here.
  pending = pending || peerAborted_ || protocolError_;
  return interest();
}

bool TcpPair::writeSome(Status &failure, bool &completed) {
  for (;;) {
    if (!ctrlOut_.empty()) {
      ssize_t n =
          ::send(fd_.get(), ctrlOut_.data() + ctrlSent_,
                 ctrlOut_.size() - ctrlSent_, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
          return true;
        // The peer is gone; an abort or bye cannot reach it anyway.
        sentBye_ = abortSent_ = true;
        ctrlOut_.clear();
        return true;
      }
      ctrlSent_ += static_cast<size_t>(n);
      if (ctrlSent_ < ctrlOut_.size())
        return true;
      ctrlOut_.clear();
      ctrlSent_ = 0;
      continue;
    }
    if (padSent_ < padTotal_) {
      // Finish a cancelled message: its header, then zeros.
      static const char zeros[64 * 1024] = {0};
      const size_t hb = sizeof(WireHeader);
      const char *from;
      size_t len;
      if (padSent_ < hb) {
        from = reinterpret_cast<const char *>(&padHdr_) + padSent_;
        len = hb - padSent_;
      } else {
        from = zeros;
        len = std::min(sizeof(zeros), padTotal_ - padSent_);
      }
      ssize_t n = ::send(fd_.get(), from, len, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
          return true;
        padSent_ = padTotal_ = 0;
        sentBye_ = abortSent_ = true; // the peer is gone
        return true;
      }
      padSent_ += static_cast<size_t>(n);
      continue;
    }
    bool atBoundary = sends_.empty() || sends_.front()->sent == 0;
    if (atBoundary && wantAbort_ && !abortSent_) {
      ctrlOut_ = controlFrame(kAbortMagic, abortText_, abortCode_);
      abortSent_ = true;
      continue;
    }
    if (atBoundary && wantBye_ && !sentBye_ && sends_.empty()) {
      ctrlOut_ = controlFrame(kByeMagic, "", HCCL_SUCCESS);
      sentBye_ = true;
      continue;
    }
    if (sends_.empty() || abortSent_)
      return true;
    SendOp &op = *sends_.front();
    const size_t hb = sizeof(WireHeader);
    struct iovec iov[2];
    int n = 0;
    if (op.sent < hb) {
      iov[n].iov_base = reinterpret_cast<char *>(&op.hdr) + op.sent;
      iov[n].iov_len = hb - op.sent;
      ++n;
    }
    size_t pdone = op.sent > hb ? op.sent - hb : 0;
    if (pdone < op.bytes) {
      iov[n].iov_base =
          const_cast<char *>(static_cast<const char *>(op.src)) + pdone;
      iov[n].iov_len = op.bytes - pdone;
      ++n;
    }
    struct msghdr mh{};
    mh.msg_iov = iov;
    mh.msg_iovlen = static_cast<size_t>(n);
    ssize_t w = ::sendmsg(fd_.get(), &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return true;
      // EPIPE/ECONNRESET: the peer process is gone (HCCL_E_REMOTE, as a
      // dead peer is reported on every path).
      failure = Status(HCCL_E_REMOTE,
                       "connection to rank " + std::to_string(peer()) +
                           " failed while sending: " + std::strerror(errno) +
                           " (the peer died or aborted)");
      return false;
    }
    op.sent += static_cast<size_t>(w);
    ioCalls_.fetch_add(1, std::memory_order_relaxed);
    if (op.sent == hb + op.bytes) {
      op.done.store(true, std::memory_order_release);
      sends_.pop_front();
      completed = true;
    }
  }
}

bool TcpPair::discardSome(Status &failure) {
  static char sink[64 * 1024];
  ssize_t n = ::recv(fd_.get(), sink, std::min(sizeof(sink), discardLeft_),
                     MSG_DONTWAIT);
  if (n > 0) {
    discardLeft_ -= static_cast<size_t>(n);
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return false;
  peerEof_ = true; // gone; nothing more to drop
  discardLeft_ = 0;
  return false;
}

bool TcpPair::readHeader(Status &failure) {
  if (hdrGot_ < sizeof(WireHeader)) {
    ssize_t n = ::recv(fd_.get(), reinterpret_cast<char *>(&hdr_) + hdrGot_,
                       sizeof(WireHeader) - hdrGot_, MSG_DONTWAIT);
    if (n == 0) {
      peerEof_ = true;
      if (!cancelled_ && (hdrGot_ != 0 || !peerBye_))
        failure = Status(HCCL_E_REMOTE,
                         "connection to rank " + std::to_string(peer()) +
                             " closed unexpectedly (the peer process died "
                             "or exited without HcclCommDestroy)");
      return false;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return false;
      if (peerBye_ && hdrGot_ == 0) {
        // It left on purpose; a reset after its BYE is just the close.
        peerEof_ = true;
        return false;
      }
      failure =
          Status(HCCL_E_REMOTE, "connection to rank " + std::to_string(peer()) +
                                    " failed: " + std::strerror(errno) +
                                    " (the peer process died?)");
      return false;
    }
    hdrGot_ += static_cast<size_t>(n);
    if (hdrGot_ < sizeof(WireHeader))
      return false;
  }
  if (hdr_.magic == kByeMagic) {
    peerBye_ = true;
    hdrGot_ = 0;
    return true;
  }
  if (hdr_.magic == kAbortMagic) {
    size_t want = std::min<size_t>(hdr_.bytes, kMaxAbortText);
    while (ctrlIn_.size() < want) {
      char buf[kMaxAbortText];
      ssize_t n = ::recv(fd_.get(), buf, want - ctrlIn_.size(), MSG_DONTWAIT);
      if (n <= 0) {
        if (n < 0 &&
            (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
          return false;
        break;
      }
      ctrlIn_.append(buf, static_cast<size_t>(n));
    }
    if (cancelled_) { // already failed; the peer's reason adds nothing here
      ctrlIn_.clear();
      hdrGot_ = 0;
      return true;
    }
    failure = Status(HCCL_E_REMOTE,
                     "rank " + std::to_string(peer()) + " aborted: " + ctrlIn_);
    peerAborted_ = true;
    return false;
  }
  if (hdr_.magic != WireHeader::kMagic) {
    failure = Status(HCCL_E_TCP_TRANSFER, "corrupt stream from rank " +
                                              std::to_string(peer()) +
                                              " (bad magic)");
    return false;
  }
  if (cancelled_) {
    discardLeft_ = hdr_.bytes; // after a failure: read and drop
    hdrGot_ = 0;
    return true;
  }
  if (recvs_.empty())
    return false; // parked until a receive is posted
  RecvOp *op = recvs_.front();
  if (hdr_.call != op->expect.call || hdr_.bytes != op->expect.bytes ||
      hdr_.ordinal != op->expect.ordinal) {
    // The connection itself is fine: keep it, so that the ABORT with this
    // reason reaches the peer; the message is dropped after cancelAll.
    failure = Status(HCCL_E_PARA, describeMismatch(peer(), op->expect, hdr_));
    protocolError_ = true;
    return false;
  }
  if (op->bytes == 0) {
    // Header-only message: complete now (a zero-length recv() would read
    // as end of stream).
    op->done.store(true, std::memory_order_release);
    recvs_.pop_front();
    hdrGot_ = 0;
    wakeExecutor_ = true;
    return true;
  }
  cur_ = op;
  hdrReady_ = true;
  payloadGot_ = 0;
  fillGot_ = 0;
  return true;
}

bool TcpPair::readPayload(Status &failure, bool &completed) {
  RecvOp &op = *cur_;
  char *into;
  size_t room;
  bool staged = op.acc != nullptr;
  size_t slot = 0;
  if (!staged) {
    into = static_cast<char *>(op.dst) + payloadGot_;
    room = op.bytes - payloadGot_;
  } else {
    if (!staging_)
      staging_.reset(new char[chunkBytes_ * static_cast<size_t>(nChunks_)]);
    uint64_t filled = filled_.load(std::memory_order_relaxed);
    if (fillGot_ == 0 && filled - drained_.load(std::memory_order_seq_cst) >=
                             static_cast<uint64_t>(nChunks_)) {
      stagingFull_ = true;
      return false;
    }
    slot = filled % static_cast<uint64_t>(nChunks_);
    size_t target = std::min(chunkBytes_, op.bytes - (payloadGot_ - fillGot_));
    into = staging_.get() + slot * chunkBytes_ + fillGot_;
    room = target - fillGot_;
  }
  ssize_t n = ::recv(fd_.get(), into, room, MSG_DONTWAIT);
  if (n == 0) {
    peerEof_ = true;
    failure = Status(HCCL_E_REMOTE,
                     "connection to rank " + std::to_string(peer()) +
                         " closed in the middle of a message (the peer died)");
    return false;
  }
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
      return false;
    failure =
        Status(HCCL_E_REMOTE, "connection to rank " + std::to_string(peer()) +
                                  " failed: " + std::strerror(errno));
    return false;
  }
  payloadGot_ += static_cast<size_t>(n);
  ioCalls_.fetch_add(1, std::memory_order_relaxed);
  if (staged) {
    fillGot_ += static_cast<size_t>(n);
    size_t start = payloadGot_ - fillGot_;
    size_t target = std::min(chunkBytes_, op.bytes - start);
    if (fillGot_ == target) {
      uint64_t filled = filled_.load(std::memory_order_relaxed);
      chunks_[slot] = Chunk{&op, start, target};
      filled_.store(filled + 1, std::memory_order_release);
      fillGot_ = 0;
      completed = true;
    }
  }
  if (payloadGot_ == op.bytes) {
    if (!staged) {
      op.received = op.bytes;
      op.done.store(true, std::memory_order_release);
      completed = true;
    }
    recvs_.pop_front();
    cur_ = nullptr;
    hdrReady_ = false;
    hdrGot_ = 0;
  }
  return true;
}

} // namespace hccl::rt

//===----------------------------------------------------------------------===//
// TcpEngine
//===----------------------------------------------------------------------===//

#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace hccl::rt {

StatusOr<std::unique_ptr<TcpEngine>> TcpEngine::create(Doorbell *bell,
                                                       FailureFn onFailure) {
  std::unique_ptr<TcpEngine> e(new TcpEngine(bell, std::move(onFailure)));
  e->epfd_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!e->epfd_.valid())
    return errSyscall("epoll_create1", errno);
  e->evfd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!e->evfd_.valid())
    return errSyscall("eventfd", errno);
  struct epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;
  if (::epoll_ctl(e->epfd_.get(), EPOLL_CTL_ADD, e->evfd_.get(), &ev) != 0)
    return errSyscall("epoll_ctl", errno);
  TcpEngine *raw = e.get();
  e->thread_ = std::make_unique<std::thread>([raw] { raw->run(); });
  return e;
}

TcpEngine::~TcpEngine() { stop(0); }

Status TcpEngine::add(TcpPair *pair) {
  HCCL_RT_TRY(setNonBlocking(pair->fd()));
  {
    std::lock_guard<std::mutex> g(mu_);
    pairs_.push_back(pair);
  }
  struct epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.ptr = pair;
  if (::epoll_ctl(epfd_.get(), EPOLL_CTL_ADD, pair->fd(), &ev) != 0)
    return errSyscall("epoll_ctl(ADD)", errno);
  kick();
  return Status::ok();
}

void TcpEngine::kick() {
  uint64_t one = 1;
  ssize_t rc = ::write(evfd_.get(), &one, sizeof(one));
  (void)rc;
}

void TcpEngine::stop(int64_t ms) {
  if (!thread_)
    return;
  Deadline d = Deadline::afterMs(ms);
  auto waitAll = [&](bool (TcpPair::*done)(), const Deadline &until) {
    for (;;) {
      bool all = true;
      {
        std::lock_guard<std::mutex> g(mu_);
        for (TcpPair *p : pairs_)
          all = all && (p->*done)();
      }
      if (all || until.expired())
        return;
      kick();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  waitAll(&TcpPair::byeSent, d);
  {
    std::lock_guard<std::mutex> g(mu_);
    for (TcpPair *p : pairs_)
      p->halfClose();
  }
  // Peers that are still busy elsewhere are not waited for long; closing
  // then may reset their connection, which they take as the close it is.
  waitAll(&TcpPair::peerGone, d.min(Deadline::afterMs(200)));
  stop_.store(true);
  kick();
  thread_->join();
  thread_.reset();
}

void TcpEngine::run() {
  std::unordered_map<TcpPair *, uint32_t> armed;
  struct epoll_event evs[64];
  // Interest 0 means "not in the epoll set": a socket registered with no
  // events still reports EPOLLERR/EPOLLHUP, which after a reset (or our own
  // shutdown on failure) would wake this thread in a loop.
  auto setInterest = [&](TcpPair *p, uint32_t have, uint32_t want) {
    if (want == have)
      return;
    struct epoll_event ev{};
    ev.events = want;
    ev.data.ptr = p;
    int op = want == 0   ? EPOLL_CTL_DEL
             : have == 0 ? EPOLL_CTL_ADD
                         : EPOLL_CTL_MOD;
    ::epoll_ctl(epfd_.get(), op, p->fd(), &ev);
    armed[p] = want;
  };
  auto handle = [&](TcpPair *p, uint32_t events) {
    auto it = armed.find(p);
    uint32_t have = it == armed.end() ? (EPOLLIN | EPOLLRDHUP) : it->second;
    if (p->callerServing()) {
      // The executor does the I/O now: no events until it hands back.
      setInterest(p, have, 0);
      return;
    }
    Status failure;
    bool completed = false, pending = false;
    uint32_t want = p->onEvents(events, failure, completed, pending);
    setInterest(p, have, want);
    if (!failure.isOk())
      onFailure_(p->peer(), failure, pending);
    if (completed || !failure.isOk())
      bell_->ring();
  };
  while (!stop_.load()) {
    int n = ::epoll_wait(epfd_.get(), evs, 64, 500);
    bool kicked = false;
    for (int i = 0; i < n; ++i) {
      if (evs[i].data.ptr == nullptr) {
        uint64_t v;
        while (::read(evfd_.get(), &v, sizeof(v)) > 0) {
        }
        kicked = true;
        continue;
      }
      handle(static_cast<TcpPair *>(evs[i].data.ptr), evs[i].events);
    }
    if (kicked && !stop_.load()) {
      std::vector<TcpPair *> ps;
      {
        std::lock_guard<std::mutex> g(mu_);
        ps = pairs_;
      }
      // New work or drained staging: try every pair (non-blocking calls that
      // find nothing to do are cheap).
      for (TcpPair *p : ps)
        handle(p, EPOLLIN | EPOLLOUT);
    }
  }
}

} // namespace hccl::rt
