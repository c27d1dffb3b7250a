//===- ApiSupport.cpp - Shared plumbing of the C API ----------------------===//
#include "capi/ApiSupport.h"
#include "common/Log.h"

#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

extern char **environ;

namespace hccl::rt::capi {

namespace {
thread_local std::string tlsLastError;
constexpr const char *kNotLiveComm =
    "comm is not a live communicator (destroyed, or not from HcclCommInit*)";

struct Registry {
  std::mutex mu;
  std::map<Communicator *, CommApiState> comms;
  std::set<HostStream *> streams;
};
Registry &registry() {
  static Registry *r = new Registry(); // never destroyed: usable at exit
  return *r;
}
} // namespace

const char *lastErrorMessage() { return tlsLastError.c_str(); }

HcclResult report(const char *fn, const Status &st) {
  if (st.isOk())
    return HCCL_SUCCESS;
  tlsLastError = std::string(fn) + ": " + st.message();
  HCCL_LOG(Error, tlsLastError);
  return st.code();
}

HcclResult guardedCall(const char *fn, HcclResult (*body)(void *), void *ctx) {
  try {
    return body(ctx);
  } catch (const std::bad_alloc &) {
    return report(fn, Status(HCCL_E_MEMORY, "out of memory"));
  } catch (const std::exception &e) {
    return report(fn, Status(HCCL_E_INTERNAL,
                             std::string("internal error: ") + e.what()));
  } catch (...) {
    return report(fn, Status(HCCL_E_INTERNAL, "internal error"));
  }
}

void registerComm(Communicator *c) {
  std::lock_guard<std::mutex> g(registry().mu);
  registry().comms.emplace(c, CommApiState{});
}

bool unregisterComm(Communicator *c) {
  std::lock_guard<std::mutex> g(registry().mu);
  return registry().comms.erase(c) == 1;
}

namespace {
/// A live communicator and whether it is suspended, under one lock and one
/// look-up (every call resolves its communicator).
Status lookUpComm(HcclComm comm, Communicator **out, bool *suspended) {
  if (comm == nullptr)
    return Status(HCCL_E_PTR, "comm is NULL");
  auto *c = static_cast<Communicator *>(comm);
  std::lock_guard<std::mutex> g(registry().mu);
  auto it = registry().comms.find(c);
  if (it == registry().comms.end())
    return errPara(kNotLiveComm);
  *out = c;
  *suspended = it->second.suspended;
  return Status::ok();
}
} // namespace

Status resolveComm(HcclComm comm, Communicator **out) {
  bool suspended = false;
  return lookUpComm(comm, out, &suspended);
}

Status resolveActiveComm(HcclComm comm, Communicator **out) {
  bool suspended = false;
  HCCL_RT_TRY(lookUpComm(comm, out, &suspended));
  if (suspended)
    return Status(HCCL_E_SUSPENDING,
                  "communicator " + (*out)->name() +
                      " is suspended (HcclCommSuspend); HcclCommResume first");
  return Status::ok();
}

std::vector<Communicator *> liveComms() {
  std::lock_guard<std::mutex> g(registry().mu);
  std::vector<Communicator *> v;
  for (auto &kv : registry().comms)
    v.push_back(kv.first);
  return v;
}

bool withCommState(Communicator *c,
                   const std::function<void(CommApiState &)> &fn) {
  std::lock_guard<std::mutex> g(registry().mu);
  auto it = registry().comms.find(c);
  if (it == registry().comms.end())
    return false;
  fn(it->second);
  return true;
}

void registerStream(HostStream *s) {
  std::lock_guard<std::mutex> g(registry().mu);
  registry().streams.insert(s);
}

bool unregisterStream(HostStream *s) {
  std::lock_guard<std::mutex> g(registry().mu);
  return registry().streams.erase(s) == 1;
}

Status resolveStream(aclrtStream stream, HostStream **out) {
  *out = nullptr;
  if (stream == nullptr)
    return Status::ok();
  auto *s = static_cast<HostStream *>(stream);
  std::lock_guard<std::mutex> g(registry().mu);
  if (!registry().streams.count(s))
    return errPara(
        "stream is not a live host stream (create it with HcclStreamCreate)");
  *out = s;
  return Status::ok();
}

void warnOnce(const std::vector<std::string> &lines) {
  static std::mutex mu;
  static std::set<std::string> *seen = new std::set<std::string>();
  for (const auto &l : lines) {
    std::lock_guard<std::mutex> g(mu);
    if (seen->insert(l).second)
      HCCL_LOG(Warn, l);
  }
}

StatusOr<Config> loadEnvConfig() {
  auto c = loadConfig();
  if (!c)
    return errPara(c.message());
  Config cfg = c.take();
  applyProcessSettings(cfg);
  setLogLevel(cfg.logLevel);
  std::vector<std::string> lines = cfg.warnings;
  for (const auto &v : unknownHcclVariables(environ))
    lines.push_back("ignoring " + v + ": not a variable this runtime reads");
  warnOnce(lines);
  return cfg;
}

Status checkDataType(HcclDataType t) {
  int v = static_cast<int>(t);
  if (v >= 0 && v <= 11)
    return Status::ok();
  if (v == HCCL_DATA_TYPE_INT128 ||
      (v >= HCCL_DATA_TYPE_HIF8 && v <= HCCL_DATA_TYPE_FP8E8M0))
    return Status(HCCL_E_NOT_SUPPORT,
                  "data type " + std::to_string(v) +
                      " is not supported by the host runtime (supported: " +
                      sched::dataTypeNameList() + ")");
  return errPara("unknown data type " + std::to_string(v) +
                 " (supported: " + sched::dataTypeNameList() + ")");
}

Status checkReduceOp(HcclReduceOp op) {
  int v = static_cast<int>(op);
  if (v >= 0 && v <= 3)
    return Status::ok();
  return errPara("unknown reduction operator " + std::to_string(v) +
                 " (expected HCCL_REDUCE_SUM, _PROD, _MAX or _MIN)");
}

Status checkBytes(uint64_t count, HcclDataType t, uint64_t factor,
                  const char *what) {
  uint64_t es = sched::dataTypeSize(static_cast<sched::DataType>(t));
  const uint64_t limit = uint64_t(1) << 62;
  // count * es * factor > limit, without the two divisions of the obvious
  // form (every call checks its counts; es and factor are small).
  uint64_t bytes = 0;
  if (count > sched::kMaxCount ||
      (factor &&
       (__builtin_mul_overflow(count, es * factor, &bytes) || bytes > limit)))
    return errPara(std::string(what) + " " + std::to_string(count) + " of " +
                   sched::dataTypeName(static_cast<sched::DataType>(t)) +
                   " overflows the addressable size");
  return Status::ok();
}

bool overlaps(const void *a, uint64_t aBytes, const void *b, uint64_t bBytes) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  if (aBytes == 0 || bBytes == 0)
    return false;
  return x < y + bBytes && y < x + aBytes;
}

Status resolveCall(HcclComm comm, aclrtStream stream, CallCtx &ctx) {
  HCCL_RT_TRY(resolveActiveComm(comm, &ctx.comm));
  return resolveStream(stream, &ctx.stream);
}

Status needPtr(const void *p, const char *name, uint64_t count) {
  if (p == nullptr && count > 0)
    return Status(HCCL_E_PTR, std::string(name) + " is NULL");
  return Status::ok();
}

Status checkRoot(uint32_t root, const Communicator *c) {
  if (root >= static_cast<uint32_t>(c->size()))
    return errPara("root " + std::to_string(root) + " is outside 0.." +
                   std::to_string(c->size() - 1));
  return Status::ok();
}

Status checkPeer(uint32_t peer, const Communicator *c, const char *what) {
  if (peer >= static_cast<uint32_t>(c->size()))
    return errPara(std::string(what) + " " + std::to_string(peer) +
                   " is outside 0.." + std::to_string(c->size() - 1));
  if (peer == static_cast<uint32_t>(c->rank()))
    return errPara(std::string(what) + " " + std::to_string(peer) +
                   " is this rank itself");
  return Status::ok();
}

size_t elemSize(HcclDataType t) {
  return sched::dataTypeSize(static_cast<sched::DataType>(t));
}

Status runQueued(const char *fn, Communicator *c, uint64_t ticket,
                 Status (*call)(void *), void *work) {
  c->order().waitTurn(ticket);
  Status st;
  try {
    st = call(work);
  } catch (const std::exception &e) {
    st = Status(HCCL_E_INTERNAL, std::string("internal error: ") + e.what());
  }
  c->order().endTurn();
  if (!st.isOk()) {
    HCCL_LOG(Error, std::string(fn) + " (stream): " + st.message());
    return Status(st.code(), std::string(fn) + ": " + st.message());
  }
  return st;
}

} // namespace hccl::rt::capi
