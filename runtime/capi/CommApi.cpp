//===- CommApi.cpp - C API: communicator creation and queries -------------===//
#include "bootstrap/JobSecret.h"
#include "bootstrap/Launcher.h"
#include "bootstrap/RootInfo.h"
#include "capi/ApiSupport.h"
#include "common/Log.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace hccl::rt;
using namespace hccl::rt::capi;

namespace {

/// Listeners made by HcclGetRootInfo, waiting for the init of a rank of the
/// process that made them (any rank may be the root, as in HCCL).
struct PendingRoots {
  struct Entry {
    std::shared_ptr<Listener> listener;
    pid_t owner; ///< the process that called HcclGetRootInfo
  };
  std::mutex mu;
  std::map<Uid, Entry> byUid;
};
PendingRoots &pendingRoots() {
  static PendingRoots *p = new PendingRoots();
  return *p;
}

HcclResult publish(const char *fn, StatusOr<std::unique_ptr<Communicator>> c,
                   HcclComm *out) {
  if (!c)
    return report(fn, c.status());
  Communicator *raw = c->release();
  registerComm(raw);
  *out = raw;
  return HCCL_SUCCESS;
}

StatusOr<std::shared_ptr<Listener>> openListener(const std::string &ip,
                                                 uint16_t port, int span,
                                                 const Config &cfg,
                                                 const Key &key) {
  auto wl = Whitelist::load(cfg);
  if (!wl)
    return wl.status();
  return Listener::open(ip, port, span, ListenerAuth{key, wl.take()});
}

/// A root info listener: the first free port above HCCL_IF_BASE_PORT (the
/// base port itself is a rank table's rendezvous port).
StatusOr<std::shared_ptr<Listener>> openRootListener(const Config &cfg,
                                                     const Key &key) {
  auto ip = chooseLocalIp(cfg.ifIp, cfg.socketIfname);
  if (!ip)
    return ip.status();
  return openListener(*ip, static_cast<uint16_t>(cfg.ifBasePort + 1),
                      HCCL_HOST_LISTENER_PORTS, cfg, key);
}

/// Writes the root info blob to `path`, readable by this user only, and
/// atomically (a reader sees the whole blob or none).
Status writeRootInfoFile(const std::string &path, const char *blob) {
  Uid rnd = Uid::random();
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                    rnd.hex().substr(0, 8);
  int fd = ::open(tmp.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return Status(HCCL_E_OPEN_FILE_FAILURE, "HCCL_ROOT_INFO_FILE=" + path +
                                                ": cannot create '" + tmp +
                                                "': " + std::strerror(errno));
  size_t done = 0;
  while (done < HCCL_ROOT_INFO_BYTES) {
    ssize_t n = ::write(fd, blob + done, HCCL_ROOT_INFO_BYTES - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += static_cast<size_t>(n);
  }
  bool ok = done == HCCL_ROOT_INFO_BYTES && ::close(fd) == 0;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    if (done != HCCL_ROOT_INFO_BYTES)
      ::close(fd);
    std::remove(tmp.c_str());
    return Status(HCCL_E_OPEN_FILE_FAILURE,
                  "HCCL_ROOT_INFO_FILE=" + path +
                      ": cannot write it: " + std::strerror(err));
  }
  return Status::ok();
}

HcclResult initRootInfo(const char *fn, uint32_t nRanks,
                        const HcclRootInfo *rootInfo, uint32_t rank,
                        const HcclCommConfig *config, HcclComm *comm) {
  if (rootInfo == nullptr || comm == nullptr)
    return report(
        fn, Status(HCCL_E_PTR, rootInfo ? "comm is NULL" : "rootInfo is NULL"));
  if (nRanks == 0 || nRanks > (1u << 20))
    return report(fn, errPara("nRanks=" + std::to_string(nRanks) +
                              " is outside 1..1048576"));
  if (rank >= nRanks)
    return report(fn, errPara("rank " + std::to_string(rank) +
                              " is outside 0.." + std::to_string(nRanks - 1)));
  auto env = loadEnvConfig();
  if (!env)
    return report(fn, env.status());
  auto settings = readCommConfig(env.take(), config);
  if (!settings)
    return report(fn, settings.status());
  warnOnce(settings->cfg.warnings);
  auto data = decodeRootInfo(rootInfo->internal);
  if (!data)
    return report(fn, data.status());
  CommInit in;
  in.nRanks = static_cast<int>(nRanks);
  in.rank = static_cast<int>(rank);
  in.uid = data->uid;
  in.key = data->key;
  in.rootKey = data->key;
  in.cfg = settings->cfg;
  in.name = settings->name;
  auto addr = SockAddr::parse(data->ip, data->port);
  if (!addr)
    return report(fn, addr.status());
  in.root = *addr;
  // The first rank to init in the process that called HcclGetRootInfo holds
  // the rendezvous on its listener, whatever its rank (hccl_test's -r makes
  // the root rank produce the root info); every other rank joins it.
  std::shared_ptr<Listener> mine;
  {
    std::lock_guard<std::mutex> g(pendingRoots().mu);
    auto it = pendingRoots().byUid.find(data->uid);
    if (it != pendingRoots().byUid.end()) {
      if (it->second.owner == ::getpid())
        mine = it->second.listener;
      // Inherited through fork(), the entry is stale: only the process
      // that made it listens.
      pendingRoots().byUid.erase(it);
    }
  }
  if (mine && nRanks > 1) {
    in.rendezvous = mine;
    in.listener = mine;
  }
  return publish(fn, Communicator::create(std::move(in)), comm);
}

constexpr size_t kMaxRankTableBytes = 64u << 20;

HcclResult initClusterInfo(const char *fn, const char *clusterInfo,
                           uint32_t rank, const HcclCommConfig *config,
                           HcclComm *comm) {
  if (clusterInfo == nullptr || comm == nullptr)
    return report(fn, Status(HCCL_E_PTR, clusterInfo ? "comm is NULL"
                                                     : "clusterInfo is NULL"));
  auto env = loadEnvConfig();
  if (!env)
    return report(fn, env.status());
  auto settings = readCommConfig(env.take(), config);
  if (!settings)
    return report(fn, settings.status());
  warnOnce(settings->cfg.warnings);
  Config *cfg = &settings->cfg;
  // A rank table is no secret, but it is read like one: a FIFO or device
  // must not block init, nor a huge file exhaust memory.
  auto text = readPrivateFile(clusterInfo, kMaxRankTableBytes, false);
  if (!text)
    return report(fn, text.status());
  auto topo = hccl::sched::Topology::fromRankTable(*text);
  if (!topo)
    return report(fn,
                  errPara(std::string(clusterInfo) + ": " + topo.message()));
  int world = topo->worldSize();
  if (static_cast<int64_t>(rank) >= world)
    return report(fn, errPara("rank " + std::to_string(rank) +
                              " is not in the rank table " +
                              std::string(clusterInfo) + " (ranks 0.." +
                              std::to_string(world - 1) + ")"));
  // Rank 0's server hosts the rendezvous on HCCL_IF_BASE_PORT, at the
  // address the table gives it: host_ip (or a 2.0 table's d2h address),
  // else its server_id when that is an address or a host name. A server
  // named otherwise ("node_0") is reached only from its own host, where
  // every rank picks the same local address (HCCL_IF_IP / _SOCKET_IFNAME).
  const size_t rootSrv = static_cast<size_t>(topo->serverOf(0));
  const bool sameServer =
      topo->serverOf(0) == topo->serverOf(static_cast<int>(rank));
  const std::string &rootServer = topo->serverIds[rootSrv];
  const std::string hostIp =
      rootSrv < topo->hostIps.size() ? topo->hostIps[rootSrv] : "";
  uint16_t port = static_cast<uint16_t>(cfg->ifBasePort);
  auto root = !hostIp.empty() ? SockAddr::parse(hostIp, port)
                              : SockAddr::resolve(rootServer, port);
  if (!root && hostIp.empty() && sameServer) {
    auto ip = chooseLocalIp(cfg->ifIp, cfg->socketIfname);
    if (!ip)
      return report(fn, ip.status());
    root = SockAddr::parse(*ip, port);
  }
  if (!root)
    return report(fn,
                  errPara(std::string(clusterInfo) + ": server '" + rootServer +
                          "' of rank 0 carries no address this rank can "
                          "reach (give it host_ip, or an address as "
                          "server_id): " +
                          root.status().message()));
  auto job = readJobKey(::getenv);
  if (!job)
    return report(fn, job.status());
  if (!job->secret && world > 1)
    warnNoSecretOnce("rank 0's rendezvous (" + root->str() +
                     ", from the rank table)");
  CommInit in;
  in.nRanks = world;
  in.rank = static_cast<int>(rank);
  Uid base;
  uint64_t h = fnv1a(text->data(), text->size());
  in.uid = base.derive("ranktable", h, port);
  in.key = deriveKey(job->key, "rank table communicator", in.uid);
  in.rootKey = in.key;
  in.root = *root;
  in.cfg = *cfg;
  in.server = topo->serverIds[static_cast<size_t>(
      topo->serverOf(static_cast<int>(rank)))];
  in.rankTable = topo.take();
  in.name = settings->name;
  if (rank == 0 && world > 1) {
    auto l = openListener(root->ip(), port, 1, in.cfg, in.key);
    if (!l)
      return report(fn, l.status().withContext(
                            "rank 0 listens on " + root->ip() + " (server '" +
                            rootServer + "') and HCCL_IF_BASE_PORT " +
                            std::to_string(port)));
    // Rank 0 keeps the base port as its own listener too; every other
    // listener starts above it, so none can take it first.
    in.rendezvous = *l;
    in.listener = l.take();
  }
  return publish(fn, Communicator::create(std::move(in)), comm);
}

/// Per-process count of HcclCommInitFromEnv calls: ranks that call it the
/// same number of times agree on each communicator's id.
std::mutex envMu;
uint64_t envGeneration = 0;
std::shared_ptr<Listener> envMasterListener;

HcclResult initFromEnv(HcclComm *comm) {
  const char *fn = "HcclCommInitFromEnv";
  if (comm == nullptr)
    return report(fn, Status(HCCL_E_PTR, "comm is NULL"));
  auto launch = readLaunchEnv(::getenv);
  if (!launch)
    return report(fn, launch.status());
  auto cfg = loadEnvConfig();
  if (!cfg)
    return report(fn, cfg.status());
  std::lock_guard<std::mutex> g(envMu);
  uint64_t gen = ++envGeneration;
  CommInit in;
  in.nRanks = launch->size;
  in.rank = launch->rank;
  in.cfg = *cfg;
  Deadline dl = Deadline::afterMs(static_cast<int64_t>(cfg->connectTimeoutMs));
  in.deadline = dl;
  std::string jobKey = launch->jobId + "/" + std::to_string(launch->size);

  if (launch->size == 1) {
    in.uid = Uid::random();
    in.key = randomKey();
    return publish(fn, Communicator::create(std::move(in)), comm);
  }

  if (!launch->rootInfoFile.empty()) {
    const std::string &path = launch->rootInfoFile;
    if (launch->rank == 0) {
      RootInfoData d;
      d.uid = Uid::random();
      d.key = randomKey();
      auto l = openRootListener(*cfg, d.key);
      if (!l)
        return report(fn, l.status());
      d.ip = l->get()->addr().ip();
      d.port = l->get()->addr().port();
      std::vector<char> blob(HCCL_ROOT_INFO_BYTES);
      encodeRootInfo(d, blob.data());
      Status wst = writeRootInfoFile(path, blob.data());
      if (!wst.isOk())
        return report(fn, wst);
      in.uid = d.uid;
      in.key = d.key;
      in.rootKey = d.key;
      in.rendezvous = *l;
      in.listener = *l;
      auto c = Communicator::create(std::move(in));
      std::remove(path.c_str()); // everyone has read it (or init failed)
      return publish(fn, std::move(c), comm);
    }
    // Others: wait for the file; a stale file from an earlier job points at
    // a dead address, so retry with a fresh read until the deadline.
    Status last =
        Status(HCCL_E_TIMEOUT, "communicator init timed out after "
                               "HCCL_CONNECT_TIMEOUT: HCCL_ROOT_INFO_FILE=" +
                                   path + " never appeared (missing ranks: 0)");
    while (!dl.expired()) {
      if (::access(path.c_str(), F_OK) != 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      // The file holds the communicator's key: only a private regular file
      // of this user is trusted, and nothing can make the read block or
      // grow (a FIFO, /dev/zero, a huge file).
      auto text = readPrivateFile(path, HCCL_ROOT_INFO_BYTES, true);
      if (!text && text.status().code() == HCCL_E_OPEN_FILE_FAILURE) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue; // renamed away meanwhile
      }
      if (!text)
        return report(fn, text.status().withContext("HCCL_ROOT_INFO_FILE"));
      if (text->size() != HCCL_ROOT_INFO_BYTES)
        return report(fn, errPara("HCCL_ROOT_INFO_FILE=" + path + " has " +
                                  std::to_string(text->size()) +
                                  " bytes, not a root info (" +
                                  std::to_string(HCCL_ROOT_INFO_BYTES) + ")"));
      auto d = decodeRootInfo(text->data());
      if (!d)
        return report(fn,
                      d.status().withContext("HCCL_ROOT_INFO_FILE=" + path));
      CommInit attempt = in;
      attempt.uid = d->uid;
      attempt.key = d->key;
      attempt.rootKey = d->key;
      auto addr = SockAddr::parse(d->ip, d->port);
      if (!addr)
        return report(fn, addr.status());
      attempt.root = *addr;
      attempt.connectAttemptMs = 3000;
      auto c = Communicator::create(std::move(attempt));
      if (c || c.status().code() != HCCL_E_TIMEOUT || dl.expired())
        return publish(fn, std::move(c), comm);
      last = c.status();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return report(fn, last);
  }

  // MASTER_ADDR / MASTER_PORT: rank 0 listens on MASTER_PORT for the whole
  // life of the process and hosts every env communicator's rendezvous there.
  // The id is public (from the launcher's values); admission rests on the
  // job secret.
  auto job = readJobKey(::getenv);
  if (!job)
    return report(fn, job.status());
  if (!job->secret)
    warnNoSecretOnce("MASTER_ADDR:MASTER_PORT (" + launch->masterAddr + ":" +
                     std::to_string(launch->masterPort) + ")");
  Uid base;
  in.uid = base.derive("env:" + launch->masterAddr + ":" +
                           std::to_string(launch->masterPort),
                       fnv1a(jobKey.data(), jobKey.size()), gen);
  auto root = SockAddr::resolve(launch->masterAddr,
                                static_cast<uint16_t>(launch->masterPort));
  if (!root)
    return report(fn, errPara("MASTER_ADDR=" + launch->masterAddr + ": " +
                              root.status().message()));
  in.root = *root;
  in.rootKey = job->key;
  in.key = deriveKey(job->key, "launcher communicator", in.uid);
  if (launch->rank == 0) {
    if (envMasterListener && envMasterListener->key() != job->key)
      return report(fn, errPara("HCCL_JOB_SECRET changed since the first "
                                "HcclCommInitFromEnv of this process"));
    if (!envMasterListener) {
      auto l = openListener(root->ss.ss_family == AF_INET6 ? "::" : "0.0.0.0",
                            static_cast<uint16_t>(launch->masterPort), 1, *cfg,
                            job->key);
      if (!l)
        return report(
            fn, l.status().withContext("rank 0 listens on MASTER_PORT=" +
                                       std::to_string(launch->masterPort)));
      envMasterListener = l.take();
    }
    in.rendezvous = envMasterListener;
  }
  return publish(fn, Communicator::create(std::move(in)), comm);
}

} // namespace

extern "C" {

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) {
  return guarded("HcclGetRootInfo", [&]() -> HcclResult {
    const char *fn = "HcclGetRootInfo";
    if (rootInfo == nullptr)
      return report(fn, Status(HCCL_E_PTR, "rootInfo is NULL"));
    auto cfg = loadEnvConfig();
    if (!cfg)
      return report(fn, cfg.status());
    RootInfoData d;
    d.uid = Uid::random();
    d.key = randomKey();
    auto l = openRootListener(*cfg, d.key);
    if (!l)
      return report(fn, l.status());
    d.ip = l->get()->addr().ip();
    d.port = l->get()->addr().port();
    encodeRootInfo(d, rootInfo->internal);
    std::lock_guard<std::mutex> g(pendingRoots().mu);
    pendingRoots().byUid[d.uid] = {l.take(), ::getpid()};
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                uint32_t rank, HcclComm *comm) {
  return guarded("HcclCommInitRootInfo", [&] {
    return initRootInfo("HcclCommInitRootInfo", nRanks, rootInfo, rank, nullptr,
                        comm);
  });
}

HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks,
                                      const HcclRootInfo *rootInfo,
                                      uint32_t rank,
                                      const HcclCommConfig *config,
                                      HcclComm *comm) {
  return guarded("HcclCommInitRootInfoConfig", [&] {
    return initRootInfo("HcclCommInitRootInfoConfig", nRanks, rootInfo, rank,
                        config, comm);
  });
}

HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
                                   HcclComm *comm) {
  return guarded("HcclCommInitClusterInfo", [&] {
    return initClusterInfo("HcclCommInitClusterInfo", clusterInfo, rank,
                           nullptr, comm);
  });
}

HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                         HcclCommConfig *config,
                                         HcclComm *comm) {
  return guarded("HcclCommInitClusterInfoConfig", [&] {
    return initClusterInfo("HcclCommInitClusterInfoConfig", clusterInfo, rank,
                           config, comm);
  });
}

HcclResult HcclCommInitFromEnv(HcclComm *comm) {
  return guarded("HcclCommInitFromEnv", [&] { return initFromEnv(comm); });
}

HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum,
                                   uint32_t *rankIds, uint64_t subCommId,
                                   uint32_t subCommRankId,
                                   HcclCommConfig *config, HcclComm *subComm) {
  const char *fn = "HcclCreateSubCommConfig";
  return guarded(fn, [&]() -> HcclResult {
    if (comm == nullptr || rankIds == nullptr || subComm == nullptr)
      return report(fn, Status(HCCL_E_PTR, comm == nullptr ? "comm is NULL"
                                           : rankIds == nullptr
                                               ? "rankIds is NULL"
                                               : "subComm is NULL"));
    Communicator *c;
    if (Status st = resolveComm(*comm, &c); !st.isOk())
      return report(fn, st);
    if (rankNum == 0 || rankNum > static_cast<uint32_t>(c->size()))
      return report(fn, errPara("rankNum=" + std::to_string(rankNum) +
                                " is outside 1.." + std::to_string(c->size())));
    auto cfg = applyCommConfig(c->config(), config);
    if (!cfg)
      return report(fn, cfg.status());
    std::vector<int> ranks;
    for (uint32_t i = 0; i < rankNum; ++i)
      ranks.push_back(rankIds[i] > static_cast<uint32_t>(INT32_MAX)
                          ? -1
                          : static_cast<int>(rankIds[i]));
    // Creation talks to other members only; it does not use the parent's
    // call order, so it needs no ticket.
    return publish(
        fn, c->subComm(ranks, subCommId, static_cast<int>(subCommRankId), *cfg),
        subComm);
  });
}

HcclResult HcclCommSplit(HcclComm comm, int color, int key, HcclComm *newComm) {
  const char *fn = "HcclCommSplit";
  return guarded(fn, [&]() -> HcclResult {
    if (newComm == nullptr)
      return report(fn, Status(HCCL_E_PTR, "newComm is NULL"));
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    *newComm = nullptr;
    StatusOr<std::unique_ptr<Communicator>> child = Status();
    {
      Turn turn(c);
      child = c->split(color, key, c->config());
    }
    if (!child)
      return report(fn, child.status());
    if (!*child)
      return HCCL_SUCCESS; // colour < 0: not in any new communicator
    return publish(fn, std::move(child), newComm);
  });
}

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize) {
  const char *fn = "HcclGetRankSize";
  return guarded(fn, [&]() -> HcclResult {
    if (rankSize == nullptr)
      return report(fn, Status(HCCL_E_PTR, "rankSize is NULL"));
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    *rankSize = static_cast<uint32_t>(c->size());
    return HCCL_SUCCESS;
  });
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) {
  const char *fn = "HcclGetRankId";
  return guarded(fn, [&]() -> HcclResult {
    if (rank == nullptr)
      return report(fn, Status(HCCL_E_PTR, "rank is NULL"));
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    *rank = static_cast<uint32_t>(c->rank());
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommDestroy(HcclComm comm) {
  const char *fn = "HcclCommDestroy";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    (void)runCommStateCallbacks(comm, HCCL_COMM_STATE_PHASE_DESTROY_PRE);
    if (!unregisterComm(c))
      return report(fn, errPara("comm is being destroyed by another thread"));
    delete c; // waits for its queued calls, then releases everything
    (void)runCommStateCallbacks(comm, HCCL_COMM_STATE_PHASE_DESTROY_POST);
    return HCCL_SUCCESS;
  });
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError) {
  const char *fn = "HcclGetCommAsyncError";
  return guarded(fn, [&]() -> HcclResult {
    if (asyncError == nullptr)
      return report(fn, Status(HCCL_E_PTR, "asyncError is NULL"));
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    Status st = c->pollAsyncError();
    *asyncError = st.code();
    if (!st.isOk())
      report(fn, st); // keeps the message available to HcclGetLastErrorMessage
    return HCCL_SUCCESS;
  });
}

} // extern "C"
