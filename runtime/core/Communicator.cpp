//===- Communicator.cpp - Creation, failure handling, destruction ---------===//
#include "core/Communicator.h"
#include "bootstrap/Rendezvous.h"
#include "common/CacheSize.h"
#include "common/HostLoad.h"
#include "common/Log.h"
#include "core/WaitPolicy.h"
#include "transport/Choice.h"
#include "transport/shm/Regions.h"
#include "transport/shm/Segment.h"
#include "transport/shm/ShmPair.h"
#include "transport/tcp/TcpPair.h"
#include "transport/verbs/VerbsTransport.h"

#include <hccl/hccl_host.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <unistd.h>

namespace hccl::rt {

namespace {
/// Shared-memory FIFO geometry: 16 slots of 64 KiB per direction and peer.
/// Chunks of 64 KiB stay in L2 while the receiver reduces them.
RingGeometry defaultGeometry() {
  RingGeometry g;
  g.nSlots = 16;
  g.slotBytes = 64 * 1024;
  return g;
}
constexpr size_t kTcpChunkBytes = 512 * 1024;
constexpr int kTcpChunks = 4;

std::string settingsOf(const Config &c) {
  return "HCCL_ALGO=" + c.algo + ";HCCL_ALGO_TABLE=" + c.algoTableDigest +
         ";HCCL_DETERMINISTIC=" + deterministicName(c.deterministic) +
         ";HCCL_BUFFSIZE=" + std::to_string(c.buffSizeMB) +
         ";HCCL_TRANSPORT=" + transportKindName(c.transport);
}

std::string timeoutName(const Config &c) {
  return "HCCL_CONNECT_TIMEOUT (" +
         std::to_string(c.connectTimeoutMs / 1000.0).substr(0, 6) + " s)";
}
} // namespace

StatusOr<std::unique_ptr<Communicator>> Communicator::create(CommInit init) {
  std::unique_ptr<Communicator> c(new Communicator());
  Status st = c->init(init);
  if (!st.isOk())
    return st;
  return c;
}

Status Communicator::init(CommInit &in) {
  cfg_ = in.cfg;
  setLogLevel(cfg_.logLevel);
  uid_ = in.uid;
  key_ = in.key;
  rank_ = in.rank;
  size_ = in.nRanks;
  name_ = in.name.empty() ? ("comm-" + uid_.hex().substr(0, 8)) : in.name;
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    return errPara("rank " + std::to_string(rank_) + " is outside 0.." +
                   std::to_string(size_ - 1));
  Deadline dl =
      in.deadline
          ? *in.deadline
          : Deadline::afterMs(static_cast<int64_t>(cfg_.connectTimeoutMs));

  auto ip = chooseLocalIp(cfg_.ifIp, cfg_.socketIfname);
  if (!ip)
    return ip.status();
  if (in.listener) {
    if (in.listener->key() != key_)
      return errInternal("the listener given to the communicator has another "
                         "key");
    listener_ = in.listener;
  } else {
    auto wl = Whitelist::load(cfg_);
    if (!wl)
      return wl.status();
    // HCCL_IF_BASE_PORT itself is a rank table's rendezvous port: leave it
    // to that rank 0, whenever it comes.
    auto l =
        Listener::open(*ip, static_cast<uint16_t>(cfg_.ifBasePort + 1),
                       HCCL_HOST_LISTENER_PORTS, ListenerAuth{key_, wl.take()});
    if (!l)
      return l.status();
    listener_ = l.take();
  }

  RingGeometry geo = defaultGeometry();
  uint64_t tag = fnv1a(uid_.b.data(), uid_.b.size());
  auto seg = Segment::create(rank_, static_cast<uint32_t>(size_), tag, geo);
  if (!seg)
    return seg.status();
  seg_ = seg.take();

  RankInfo me;
  me.rank = rank_;
  me.hostId = localHostId();
  me.hostname = localHostname();
  me.pid = static_cast<int>(::getpid());
  me.ip = listener_->addr().ip();
  me.port = listener_->addr().port();
  me.segFd = seg_->fd();
  me.nSlots = geo.nSlots;
  me.slotBytes = geo.slotBytes;
  me.server = in.server;
  me.cores = hostCores();
  me.settings = settingsOf(cfg_);

  std::vector<std::string> table;
  if (size_ == 1) {
    table.push_back(me.encode());
  } else if (in.rendezvous) { // the root: any one rank
    auto t = rendezvousRoot(*in.rendezvous, uid_, size_, me.encode(), dl,
                            timeoutName(cfg_), rank_);
    if (!t)
      return t.status();
    table = t.take();
  } else {
    Deadline attempt =
        in.connectAttemptMs > 0 ? Deadline::afterMs(in.connectAttemptMs) : dl;
    auto t = rendezvousJoin(in.root, uid_, in.rootKey, size_, rank_,
                            me.encode(), dl, timeoutName(cfg_), &attempt);
    if (!t)
      return t.status();
    table = t.take();
  }
  for (int r = 0; r < size_; ++r) {
    auto info = RankInfo::decode(table[static_cast<size_t>(r)]);
    if (!info)
      return info.status();
    if (info->rank != r)
      return errInternal("rendezvous table is out of order");
    infos_.push_back(info.take());
  }
  HCCL_RT_TRY(checkSettingsAgree(infos_));

  // The host layout: ranks on each host.
  std::map<std::string, int> hostIndex;
  std::vector<int> rankServer;
  std::vector<int> perHost;
  for (const auto &i : infos_) {
    auto it = hostIndex.find(i.hostId);
    if (it == hostIndex.end()) {
      it = hostIndex.emplace(i.hostId, static_cast<int>(perHost.size())).first;
      perHost.push_back(0);
    }
    rankServer.push_back(it->second);
    perHost[static_cast<size_t>(it->second)]++;
  }
  int localRanks =
      perHost[static_cast<size_t>(rankServer[static_cast<size_t>(rank_)])];
  oversubscribed_ = WaitPolicy::oversubscribed(localRanks);
  cachePerLocalRank_ = cacheSharePerRank(localRanks);
  // Each local rank's executor and synchronizing caller may be runnable
  // while it waits: the host is busy only beyond them (common/HostLoad.h).
  noteJobThreads(2 * localRanks);
  netPieces_ = cfg_.transport == TransportKind::Tcp || perHost.size() > 1;
  // Algorithm choice: the rank table if given, else hosts as servers.
  sched::Topology topo;
  bool sharedCores = false;
  if (in.rankTable) {
    topo = *in.rankTable;
    sharedCores = in.sharedCores;
  } else {
    auto t = sched::Topology::hosts(rankServer);
    if (!t)
      return errInternal(t.message());
    topo = t.take();
    // By the cores every rank reported, not this process's own count (a C
    // library may count its affinity mask), so that every rank prices
    // alike.
    std::vector<int> cores;
    for (const RankInfo &i : infos_)
      cores.push_back(i.cores);
    // Measured on shared memory only: a job that forces sockets or verbs
    // on one host keeps the model's choice (HCCL_TRANSPORT is among the
    // settings every rank must share).
    sharedCores = AlgorithmPolicy::sharesCores(perHost.size(), cores) &&
                  (cfg_.transport == TransportKind::Auto ||
                   cfg_.transport == TransportKind::Shm);
    if (sharedCores)
      topo = AlgorithmPolicy::onSharedCores(std::move(topo));
  }
  std::vector<int64_t> topoRanks = in.topologyRanks;
  if (topoRanks.empty())
    for (int r = 0; r < size_; ++r)
      topoRanks.push_back(r);
  auto policy =
      AlgorithmPolicy::create(std::move(topo), topoRanks, cfg_, sharedCores);
  if (!policy)
    return policy.status();
  policy_ = policy.take();

  p2pSendSeq_.assign(static_cast<size_t>(size_), 0);
  p2pRecvSeq_.assign(static_cast<size_t>(size_), 0);
  sendOrd_.assign(static_cast<size_t>(size_), 0);
  recvOrd_.assign(static_cast<size_t>(size_), 0);
  HCCL_RT_TRY(connectPeers(infos_, dl));
  // No rank may return (and maybe destroy at once) before every peer has
  // mapped its segment and connected: finish init with a barrier.
  if (size_ > 1) {
    Status st = barrier();
    if (!st.isOk())
      return st.withContext("communicator init (final barrier)");
  }
  HCCL_LOG(Info, name_ + ": rank " + std::to_string(rank_) + " of " +
                     std::to_string(size_) + " ready (" + formatConfig(cfg_) +
                     ")");
  return Status::ok();
}

Status Communicator::connectPeers(const std::vector<RankInfo> &infos,
                                  const Deadline &dl) {
  pairs_.resize(static_cast<size_t>(size_));
  const RankInfo &me = infos[static_cast<size_t>(rank_)];
  uint64_t tag = fnv1a(uid_.b.data(), uid_.b.size());
  std::vector<int> tcpPeers;
  for (int j = 0; j < size_; ++j) {
    if (j == rank_)
      continue;
    const RankInfo &pi = infos[static_cast<size_t>(j)];
    auto link = chooseLinkTransport(
        cfg_.transport, {j, pi.hostId == me.hostId, pi.hostname, me.hostname});
    if (!link)
      return link.status();
    if (*link == LinkTransport::Shm) {
      auto proc = PeerProcess::open(pi.pid);
      if (!proc)
        return proc.status().withContext("opening rank " + std::to_string(j));
      RingGeometry g;
      g.nSlots = pi.nSlots;
      g.slotBytes = pi.slotBytes;
      auto seg = Segment::import(**proc, pi.segFd, j,
                                 static_cast<uint32_t>(size_), tag, g);
      if (!seg)
        return seg.status().withContext("mapping the shared memory of rank " +
                                        std::to_string(j));
      ShmPairOptions o;
      pairs_[static_cast<size_t>(j)] = std::make_unique<ShmPair>(
          rank_, j, seg_.get(), seg.take(), proc.take(), o);
      anyZeroCopyPair_ = anyZeroCopyPair_ || o.zeroCopy;
    } else {
      tcpPeers.push_back(j);
    }
  }
  if (tcpPeers.empty())
    return Status::ok();
  auto onFailure = [this](int peer, const Status &st, bool pending) {
    // A broken connection fails the communicator
    // at once when operations wait on it; else
    // the next operation on that peer fails.
    if (pending && !closing_.load())
      fail(st, /*propagate=*/true);
  };
  // Links that do not share memory negotiate verbs (RoCE) or TCP on their
  // bootstrap socket (addSocketPair); open the RDMA device first.
  if (socketLinksTryVerbs(cfg_.transport)) {
    auto v = VerbsTransport::openOrFallback(cfg_, verbsRequired(cfg_.transport),
                                            &seg_->header()->bell, rank_,
                                            onFailure, noVerbs_);
    if (!v)
      return v.status();
    verbs_ = v.take();
  }
  auto eng = TcpEngine::create(&seg_->header()->bell, onFailure);
  if (!eng)
    return eng.status();
  tcp_ = eng.take();
  // Lower ranks connect to higher ones; connects complete against the
  // listen backlog, so doing all connects before all accepts cannot deadlock.
  int expectAccepts = 0;
  for (int j : tcpPeers) {
    if (j < rank_) {
      ++expectAccepts;
      continue;
    }
    const RankInfo &pi = infos[static_cast<size_t>(j)];
    auto addr = SockAddr::parse(pi.ip, pi.port);
    if (!addr)
      return addr.status();
    Hello h;
    h.uid = uid_;
    h.purpose = static_cast<uint32_t>(ConnPurpose::Data);
    h.rank = rank_;
    h.nRanks = size_;
    auto fd = connectWithHello(*addr, h, "", key_, dl);
    if (!fd)
      return fd.status().withContext("connecting to rank " + std::to_string(j) +
                                     " at " + addr->str());
    HCCL_RT_TRY(addSocketPair(j, fd.take(), dl));
  }
  for (int k = 0; k < expectAccepts; ++k) {
    auto a = listener_->acceptFor(uid_, ConnPurpose::Data, dl);
    if (!a) {
      std::vector<int> missing;
      for (int j : tcpPeers)
        if (j < rank_ && !pairs_[static_cast<size_t>(j)])
          missing.push_back(j);
      return Status(a.status().code(),
                    "waiting for TCP connections from ranks " +
                        formatRankList(missing) + ": " + a.status().message());
    }
    int j = a->hello.rank;
    if (j < 0 || j >= rank_ || pairs_[static_cast<size_t>(j)] ||
        std::find(tcpPeers.begin(), tcpPeers.end(), j) == tcpPeers.end())
      return errInternal("unexpected TCP connection claiming rank " +
                         std::to_string(j));
    HCCL_RT_TRY(addSocketPair(j, std::move(a->fd), dl));
  }
  return Status::ok();
}

Status Communicator::addSocketPair(int j, Fd fd, const Deadline &dl) {
  if (socketLinksTryVerbs(cfg_.transport)) {
    auto p = negotiateLink(verbs_.get(), fd, j, verbsRequired(cfg_.transport),
                           noVerbs_, dl);
    if (!p)
      return p.status();
    if (*p) {
      pairs_[static_cast<size_t>(j)] = p.take();
      return Status::ok();
    }
  }
  auto pair = std::make_unique<TcpPair>(j, std::move(fd), tcp_.get(),
                                        kTcpChunkBytes, kTcpChunks);
  HCCL_RT_TRY(tcp_->add(pair.get()));
  pairs_[static_cast<size_t>(j)] = std::move(pair);
  return Status::ok();
}

const Pair *Communicator::pairFor(int peer) const {
  if (peer < 0 || peer >= size_ || pairs_.empty())
    return nullptr;
  return pairs_[static_cast<size_t>(peer)].get();
}

Communicator::~Communicator() { shutdown(); }

void Communicator::shutdown() {
  if (destroyed_)
    return;
  destroyed_ = true;
  waitIdle();
  closing_.store(true);
  if (seg_)
    seg_->header()->closed.store(1, std::memory_order_release);
  // shm pairs ring the peer (it notices the closed flag at once), tcp pairs
  // send BYE.
  for (auto &p : pairs_)
    if (p)
      p->closeGraceful();
  if (tcp_)
    tcp_->stop(2000);
  pairs_.clear();
  tcp_.reset();
  verbs_.reset();
  scratch_.reset();
  seg_.reset();
  listener_.reset();
}

size_t Communicator::mappedPeerRegions() const {
  size_t n = 0;
  for (const auto &p : pairs_)
    if (auto *s = dynamic_cast<const ShmPair *>(p.get()))
      n += s->mappedRegions();
  return n;
}

namespace {
/// Two of ShmPair's test counters (`written`, `received`), summed over the
/// shared-memory pairs.
std::pair<uint64_t, uint64_t>
sumShmCounts(const std::vector<std::unique_ptr<Pair>> &pairs,
             uint64_t (ShmPair::*written)() const,
             uint64_t (ShmPair::*received)() const) {
  std::pair<uint64_t, uint64_t> n{0, 0};
  for (const auto &p : pairs)
    if (auto *s = dynamic_cast<const ShmPair *>(p.get())) {
      n.first += (s->*written)();
      n.second += (s->*received)();
    }
  return n;
}
} // namespace

std::pair<uint64_t, uint64_t> Communicator::teeCounts() const {
  return sumShmCounts(pairs_, &ShmPair::teesWritten, &ShmPair::teesReceived);
}

std::pair<uint64_t, uint64_t> Communicator::splitCounts() const {
  return sumShmCounts(pairs_, &ShmPair::splitsWritten,
                      &ShmPair::splitsReceived);
}

const char *Communicator::linkKind(int peer) const {
  if (peer == rank_)
    return "self";
  if (peer < 0 || peer >= size_ || !pairs_[static_cast<size_t>(peer)])
    return "none";
  return pairs_[static_cast<size_t>(peer)]->kind();
}

//===----------------------------------------------------------------------===//
// Failures
//===----------------------------------------------------------------------===//

Status Communicator::asyncError() const {
  if (!failed_.load(std::memory_order_acquire))
    return Status::ok();
  std::lock_guard<std::mutex> g(failMu_);
  return failure_;
}

void Communicator::fail(const Status &st, bool propagate) {
  {
    std::lock_guard<std::mutex> g(failMu_);
    if (failed_.load())
      return;
    failure_ = st;
    failed_.store(true, std::memory_order_release);
  }
  HCCL_LOG(Error,
           name_ + " rank " + std::to_string(rank_) + ": " + st.message());
  if (propagate) {
    Status told(st.code(),
                "rank " + std::to_string(rank_) + " reported: " + st.message());
    for (auto &p : pairs_)
      if (p)
        p->notifyAbort(told);
  }
  if (seg_)
    seg_->header()->bell.ringAlways();
}

Status Communicator::checkAborted() {
  SegmentHeader *h = seg_->header();
  if (h->abortFlag.load(std::memory_order_acquire) == 1 && !failed_.load()) {
    std::string msg(h->abortMsg, strnlen(h->abortMsg, sizeof(h->abortMsg)));
    fail(Status(HCCL_E_REMOTE, "rank " + std::to_string(h->abortFrom) +
                                   " aborted the communicator: " + msg),
         /*propagate=*/false);
  }
  return asyncError();
}

Status Communicator::pollAsyncError() {
  Status st = checkAborted();
  if (!st.isOk())
    return st;
  for (auto &p : pairs_) {
    if (!p)
      continue;
    Status l = p->liveness();
    if (!l.isOk()) {
      fail(l, /*propagate=*/true);
      break;
    }
  }
  return asyncError();
}

Status Communicator::guard() {
  Status st = checkAborted();
  if (!st.isOk())
    return Status(st.code(), "communicator is broken by an earlier error: " +
                                 st.message());
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void *Communicator::registerMemory(void *addr, uint64_t size) {
  std::lock_guard<std::mutex> g(regMu_);
  registrations_.emplace_back(addr, size);
  if (verbs_)
    verbs_->onRegister(addr, static_cast<size_t>(size));
  // The handle is an opaque token: index + 1, never dereferenced.
  return reinterpret_cast<void *>(
      static_cast<uintptr_t>(registrations_.size()));
}

Status Communicator::deregisterMemory(void *handle) {
  std::lock_guard<std::mutex> g(regMu_);
  uintptr_t idx = reinterpret_cast<uintptr_t>(handle);
  if (idx == 0 || idx > registrations_.size() ||
      registrations_[idx - 1].first == nullptr)
    return errPara("HcclCommDeregister: unknown handle for this communicator");
  if (verbs_)
    verbs_->onDeregister(registrations_[idx - 1].first,
                         static_cast<size_t>(registrations_[idx - 1].second));
  registrations_[idx - 1] = {nullptr, 0};
  return Status::ok();
}

} // namespace hccl::rt
