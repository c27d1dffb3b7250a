//===- VerbsDevice.cpp - One opened RDMA port and its event thread --------===//
#include "transport/verbs/VerbsDevice.h"
#include "common/Log.h"
#include "transport/shm/Regions.h"
#include "transport/verbs/GidSelect.h"
#include "transport/verbs/HcaFilter.h"
#include "transport/verbs/VerbsPair.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace hccl::rt::verbs {

namespace {

/// rdma-core older than 32 has no _ibv_query_gid_ex: the RoCE version is in
/// sysfs then.
GidKind gidKindFromSysfs(const std::string &dev, int port, int index,
                         bool ethernet) {
  if (!ethernet)
    return GidKind::IB;
  std::ifstream f("/sys/class/infiniband/" + dev + "/ports/" +
                  std::to_string(port) + "/gid_attrs/types/" +
                  std::to_string(index));
  std::string t;
  std::getline(f, t);
  return t.find("v2") != std::string::npos ? GidKind::RoCEv2 : GidKind::RoCEv1;
}

std::vector<GidEntryInfo> readGidTable(const IbvApi &api, ibv_context *ctx,
                                       const std::string &dev, int port,
                                       int len, bool ethernet) {
  std::vector<GidEntryInfo> t;
  for (int i = 0; i < len; ++i) {
    GidEntryInfo e;
    e.index = static_cast<uint32_t>(i);
    if (api.queryGidEx) {
      ibv_gid_entry ent{};
      if (api.queryGidEx(ctx, static_cast<uint32_t>(port),
                         static_cast<uint32_t>(i), &ent, 0, sizeof(ent)) != 0)
        continue; // ENODATA: an unused entry
      std::memcpy(e.gid.data(), ent.gid.raw, 16);
      e.kind = ent.gid_type == IBV_GID_TYPE_ROCE_V2   ? GidKind::RoCEv2
               : ent.gid_type == IBV_GID_TYPE_ROCE_V1 ? GidKind::RoCEv1
                                                      : GidKind::IB;
    } else {
      ibv_gid g{};
      if (api.queryGid(ctx, static_cast<uint8_t>(port), i, &g) != 0)
        continue;
      std::memcpy(e.gid.data(), g.raw, 16);
      e.kind = gidKindFromSysfs(dev, port, i, ethernet);
    }
    if (!gidIsZero(e.gid))
      t.push_back(e);
  }
  return t;
}

void setNonBlockingFd(int fd) {
  int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0)
    ::fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

} // namespace

StatusOr<std::unique_ptr<VerbsDevice>>
VerbsDevice::open(const Config &cfg, Doorbell *bell, int rank,
                  VerbsTransport::FailureFn onFailure) {
  auto api = IbvApi::load(verbs::defaultIbLib(cfg.ibLib));
  if (!api)
    return api.status();
  const IbvApi &A = **api;
  int n = 0;
  errno = 0;
  ibv_device **list = A.getDeviceList(&n);
  if (!list || n == 0) {
    int e = errno;
    if (list)
      A.freeDeviceList(list);
    return Status(
        HCCL_E_NOT_SUPPORT,
        "no RDMA device (" + A.path + ": ibv_get_device_list " +
            (list ? "found none" : std::string("failed: ") + std::strerror(e)) +
            ")");
  }
  std::unique_ptr<VerbsDevice> d(new VerbsDevice());
  d->api_ = &A;
  d->bell_ = bell;
  d->rank_ = rank;
  d->onFailure_ = std::move(onFailure);
  d->settings_ = qpSettingsFrom(cfg);
  d->qpsPerConn_ = cfg.rdmaQpsPerConnection;
  std::string skipped; // why devices/ports were not taken
  auto note = [&](const std::string &s) {
    skipped += (skipped.empty() ? "" : "; ") + s;
  };
  Status paraError;
  for (int i = 0; i < n && !d->ctx_; ++i) {
    std::string name =
        A.getDeviceName(list[i]) ? A.getDeviceName(list[i]) : "?";
    ibv_context *ctx = A.openDevice(list[i]);
    if (!ctx) {
      note(name + ": ibv_open_device: " + std::strerror(errno));
      continue;
    }
    ibv_device_attr da{};
    if (int rc = A.queryDevice(ctx, &da)) {
      note(name + ": ibv_query_device: " + std::strerror(rc));
      A.closeDevice(ctx);
      continue;
    }
    for (int port = 1; port <= da.phys_port_cnt && !d->ctx_; ++port) {
      std::string where = name + " port " + std::to_string(port);
      if (!hcaMatches(cfg.ibHca, name, port)) {
        note(where + " excluded by HCCL_IB_HCA=" + cfg.ibHca);
        continue;
      }
      ibv_port_attr pa;
      std::memset(&pa, 0, sizeof(pa));
      if (int rc = A.queryPort(
              ctx, static_cast<uint8_t>(port),
              reinterpret_cast<struct _compat_ibv_port_attr *>(&pa))) {
        note(where + ": ibv_query_port: " + std::strerror(rc));
        continue;
      }
      if (pa.state != IBV_PORT_ACTIVE) {
        note(where + " is not active");
        continue;
      }
      bool ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
      auto table = readGidTable(A, ctx, name, port, pa.gid_tbl_len, ethernet);
      std::optional<uint32_t> override = cfg.rdmaGidIndex;
      if (!ethernet && !override)
        override = 0; // InfiniBand: GID 0 (routing by LID)
      auto gid = selectGid(table, override, where);
      if (!gid) {
        if (gid.status().code() == HCCL_E_PARA && paraError.isOk())
          paraError = gid.status();
        note(gid.status().message());
        continue;
      }
      d->ctx_ = ctx;
      d->where_ = where;
      d->port_.port = static_cast<uint8_t>(port);
      d->port_.ethernet = ethernet;
      d->port_.lid = pa.lid;
      d->port_.gidIndex = gid->index;
      d->port_.gid = gid->gid;
      d->port_.mtu = pa.active_mtu;
    }
    if (!d->ctx_)
      A.closeDevice(ctx);
  }
  A.freeDeviceList(list);
  if (!d->ctx_) {
    if (!paraError.isOk())
      return paraError;
    return Status(HCCL_E_NOT_SUPPORT, "no usable RDMA port (" + skipped + ")");
  }
  d->pd_ = A.allocPd(d->ctx_);
  if (!d->pd_)
    return Status(HCCL_E_ROCE_CONNECT,
                  d->where_ + ": ibv_alloc_pd: " + std::strerror(errno));
  d->chan_ = A.createCompChannel(d->ctx_);
  if (!d->chan_)
    return Status(HCCL_E_ROCE_CONNECT,
                  d->where_ +
                      ": ibv_create_comp_channel: " + std::strerror(errno));
  setNonBlockingFd(d->chan_->fd);
  setNonBlockingFd(d->ctx_->async_fd);
  d->mrs_ = std::make_unique<MrCache>(*d);
  d->evfd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!d->evfd_.valid())
    return errSyscall("eventfd", errno);
  VerbsDevice *raw = d.get();
  d->engine_ = std::thread([raw] { raw->engineLoop(); });
  return d;
}

VerbsDevice::~VerbsDevice() {
  stopEngine();
  if (mrs_)
    mrs_->clear();
  if (chan_)
    api_->destroyCompChannel(chan_);
  if (pd_)
    api_->deallocPd(pd_);
  if (ctx_)
    api_->closeDevice(ctx_);
}

std::string VerbsDevice::describe() const {
  return where_ + ", GID " + std::to_string(port_.gidIndex) + " " +
         gidString(port_.gid) + (port_.ethernet ? " (RoCE)" : " (InfiniBand)");
}

std::string VerbsDevice::wcStatus(int status) const {
  return std::string(api_->wcStatusStr(static_cast<ibv_wc_status>(status))) +
         " (IBV_WC status " + std::to_string(status) + ")";
}

//===----------------------------------------------------------------------===//
// Registrations
//===----------------------------------------------------------------------===//

StatusOr<MrRegistrar::Reg> VerbsDevice::registerSpan(void *base, size_t len) {
  ibv_mr *mr = api_->regMr(pd_, base, len, IBV_ACCESS_LOCAL_WRITE);
  if (!mr)
    return Status(HCCL_E_MEMORY, where_ + ": ibv_reg_mr of " +
                                     std::to_string(len) +
                                     " bytes failed: " + std::strerror(errno));
  return Reg{mr, mr->lkey};
}

void VerbsDevice::deregister(void *mr) {
  api_->deregMr(static_cast<ibv_mr *>(mr));
}

MrCache::Handle VerbsDevice::zeroCopy(const void *p, size_t len) {
  MrCache::Handle h = mrs_->acquire(p, len);
  RegionRef ref;
  bool inRegion = RegionRegistry::instance().find(p, len, ref);
  if (h) {
    // Tag 0: a user registration, valid until deregistered. Otherwise the
    // tag is a region id: the region may have been freed and its address
    // reused since.
    if (h.tag == 0 || (inRegion && ref.id == h.tag))
      return h;
    mrs_->release(h);
    mrs_->invalidate(h);
  }
  if (!inRegion)
    return MrCache::Handle{};
  // Drop registrations of regions that are gone, then register this one
  // whole (its data pages), once.
  mrs_->sweep([](uint64_t tag, uintptr_t base, size_t) {
    RegionRef r;
    return tag == 0 || (RegionRegistry::instance().find(
                            reinterpret_cast<void *>(base), 1, r) &&
                        r.id == tag);
  });
  const char *data = static_cast<const char *>(p) - (ref.offset - pageSize());
  auto ins =
      mrs_->insert(data, ref.mapBytes - pageSize(), ref.id, /*pinned=*/false);
  if (!ins) {
    HCCL_LOG(Warn,
             ins.status().message() + "; sending through the bounce buffer");
    return MrCache::Handle{};
  }
  return *ins;
}

void VerbsDevice::onRegister(void *addr, size_t bytes) {
  auto h = mrs_->insert(addr, bytes, /*tag=*/0, /*pinned=*/true);
  if (!h) {
    HCCL_LOG(Warn, "HcclCommRegister: " + h.status().message() +
                       "; this range will be copied through the bounce buffer");
    return;
  }
  mrs_->release(*h); // the entry keeps its own pin until deregistration
}

void VerbsDevice::onDeregister(void *addr, size_t bytes) {
  mrs_->invalidate(addr, bytes);
}

//===----------------------------------------------------------------------===//
// Event thread
//===----------------------------------------------------------------------===//

void VerbsDevice::addPair(VerbsPair *p) {
  {
    std::lock_guard<std::mutex> g(pairsMu_);
    pairs_.push_back(p);
  }
  uint64_t one = 1;
  ssize_t rc = ::write(evfd_.get(), &one, sizeof(one));
  (void)rc;
}

void VerbsDevice::removePair(VerbsPair *p) {
  std::lock_guard<std::mutex> g(pairsMu_);
  for (auto it = pairs_.begin(); it != pairs_.end(); ++it)
    if (*it == p) {
      pairs_.erase(it);
      break;
    }
}

void VerbsDevice::stopEngine() {
  std::lock_guard<std::mutex> g(engineMu_);
  if (engineStopped_)
    return;
  engineStopped_ = true;
  stop_.store(true);
  if (engine_.joinable()) {
    uint64_t one = 1;
    ssize_t rc = ::write(evfd_.get(), &one, sizeof(one));
    (void)rc;
    engine_.join();
  }
  drainEvents();
}

void VerbsDevice::drainEvents() {
  if (!chan_)
    return;
  ibv_cq *cq = nullptr;
  void *cqCtx = nullptr;
  while (api_->getCqEvent(chan_, &cq, &cqCtx) == 0)
    api_->ackCqEvents(cq, 1);
}

void VerbsDevice::handleAsync(const ibv_async_event &ev) {
  const char *what = api_->eventTypeStr(ev.event_type);
  std::vector<VerbsPair *> hit;
  bool deviceWide = false;
  {
    std::lock_guard<std::mutex> g(pairsMu_);
    switch (ev.event_type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
      for (VerbsPair *p : pairs_)
        if (p->ownsQp(ev.element.qp))
          hit.push_back(p);
      break;
    case IBV_EVENT_CQ_ERR:
      for (VerbsPair *p : pairs_)
        if (p->ownsCq(ev.element.cq))
          hit.push_back(p);
      break;
    case IBV_EVENT_DEVICE_FATAL:
    case IBV_EVENT_PORT_ERR:
      if (ev.event_type == IBV_EVENT_PORT_ERR &&
          ev.element.port_num != port_.port)
        break;
      deviceWide = true;
      hit = pairs_;
      break;
    default:
      // Informational (communication established, port active, GID change).
      HCCL_LOG(Debug, where_ + ": async event: " + what);
      return;
    }
  }
  for (VerbsPair *p : hit) {
    std::string msg =
        deviceWide ? "RoCE device " + where_ + ": " + what + " (async event " +
                         std::to_string(ev.event_type) +
                         ") on the link to rank " + std::to_string(p->peer())
                   : "RoCE async event on the queue pair to rank " +
                         std::to_string(p->peer()) + ": " + what +
                         " (async event " + std::to_string(ev.event_type) + ")";
    Status st(HCCL_E_ROCE_TRANSFER, msg);
    markBroken();
    bool pending = false;
    p->onAsyncError(st, pending);
    onFailure_(p->peer(), st, pending);
  }
  bell_->ringAlways();
}

void VerbsDevice::engineLoop() {
  std::vector<pollfd> fds;
  std::vector<VerbsPair *> snapshot;
  while (!stop_.load()) {
    {
      std::lock_guard<std::mutex> g(pairsMu_);
      snapshot = pairs_;
    }
    fds.clear();
    fds.push_back({evfd_.get(), POLLIN, 0});
    fds.push_back({chan_->fd, POLLIN, 0});
    fds.push_back({ctx_->async_fd, POLLIN, 0});
    // A socket that reached EOF stays readable: stop watching it.
    for (size_t i = 0; i < snapshot.size();)
      if (snapshot[i]->socketDone())
        snapshot.erase(snapshot.begin() + static_cast<long>(i));
      else
        fds.push_back({snapshot[i++]->sockFd(), POLLIN | POLLRDHUP, 0});
    int rc = ::poll(fds.data(), fds.size(), 500);
    if (rc <= 0 || stop_.load())
      continue;
    if (fds[0].revents) {
      uint64_t v;
      while (::read(evfd_.get(), &v, sizeof(v)) > 0) {
      }
    }
    if (fds[1].revents) {
      ibv_cq *cq = nullptr;
      void *cqCtx = nullptr;
      bool any = false;
      while (api_->getCqEvent(chan_, &cq, &cqCtx) == 0) {
        api_->ackCqEvents(cq, 1);
        ibv_req_notify_cq(cq, 0);
        any = true;
      }
      // The executor polls the CQs; re-arming happened before this ring,
      // so a completion after its poll produces another event.
      if (any)
        bell_->ring();
    }
    if (fds[2].revents) {
      ibv_async_event ev;
      while (api_->getAsyncEvent(ctx_, &ev) == 0) {
        ibv_async_event copy = ev;
        api_->ackAsyncEvent(&ev);
        handleAsync(copy);
      }
    }
    for (size_t i = 3; i < fds.size(); ++i) {
      if (!fds[i].revents)
        continue;
      VerbsPair *p = snapshot[i - 3];
      {
        // The pair may have been removed meanwhile (shutdown).
        std::lock_guard<std::mutex> g(pairsMu_);
        bool live = false;
        for (VerbsPair *q : pairs_)
          live = live || q == p;
        if (!live)
          continue;
      }
      Status failure;
      bool pending = false;
      p->onSocketReadable(failure, pending);
      if (!failure.isOk()) {
        markBroken();
        onFailure_(p->peer(), failure, pending);
      }
      bell_->ringAlways();
    }
  }
}

} // namespace hccl::rt::verbs
