//===- Listener.cpp - A rank's listening socket with demultiplexing -------===//
#include "bootstrap/Listener.h"
#include "common/Log.h"

namespace hccl::rt {

StatusOr<std::shared_ptr<Listener>>
Listener::open(const std::string &ip, uint16_t basePort, int span) {
  auto l = listenOn(ip, basePort, span);
  if (!l)
    return l.status();
  return std::make_shared<Listener>(std::move(l->first), l->second);
}

StatusOr<Accepted> Listener::acceptFor(const Uid &uid, ConnPurpose purpose,
                                       const Deadline &deadline) {
  std::lock_guard<std::mutex> g(mu_);
  for (auto it = parked_.begin(); it != parked_.end(); ++it)
    if (it->hello.uid == uid &&
        it->hello.purpose == static_cast<uint32_t>(purpose)) {
      Accepted a = std::move(*it);
      parked_.erase(it);
      return a;
    }
  for (;;) {
    auto fd = acceptOne(fd_.get(), deadline);
    if (!fd)
      return fd.status();
    Accepted a;
    a.fd = fd.take();
    // A well-behaved peer sends its hello right after connecting; do not let
    // a silent one hold the rendezvous for long.
    Deadline helloDl = deadline.min(Deadline::afterMs(10000));
    Status st = recvAll(a.fd.get(), &a.hello, sizeof(a.hello), helloDl);
    if (st.isOk() && a.hello.magic != Hello::kMagic)
      st = errPara("not an HCCL peer (bad hello)");
    if (st.isOk() && a.hello.payloadBytes > (16u << 20))
      st = errPara("hello payload too large");
    if (st.isOk() && a.hello.payloadBytes) {
      a.payload.resize(a.hello.payloadBytes);
      st = recvAll(a.fd.get(), a.payload.data(), a.payload.size(), helloDl);
    }
    if (!st.isOk()) {
      HCCL_LOG(Warn, "listener " + addr_.str() +
                         ": dropped a connection: " + st.message());
      continue;
    }
    if (a.hello.uid == uid && a.hello.purpose == static_cast<uint32_t>(purpose))
      return a;
    if (parked_.size() > 4096)
      parked_.pop_front();
    parked_.push_back(std::move(a));
  }
}

StatusOr<Fd> connectWithHello(const SockAddr &addr, const Hello &hello,
                              const std::string &payload,
                              const Deadline &deadline) {
  auto fd = connectTo(addr, deadline);
  if (!fd)
    return fd.status();
  Hello h = hello;
  h.payloadBytes = static_cast<uint32_t>(payload.size());
  HCCL_RT_TRY(sendAll(fd->get(), &h, sizeof(h), deadline));
  if (!payload.empty())
    HCCL_RT_TRY(sendAll(fd->get(), payload.data(), payload.size(), deadline));
  return fd;
}

} // namespace hccl::rt
