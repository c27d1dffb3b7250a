//===- ApiSupport.h - Shared plumbing of the C API --------------*- C++ -*-===//
//
// Handle registries (a bad HcclComm or stream pointer is an error, not a
// crash), error reporting (the result code, the thread's last message and a
// log line), argument checks and the dispatch of a call to its stream.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CAPI_APISUPPORT_H
#define HCCL_RUNTIME_CAPI_APISUPPORT_H

#include "config/Config.h"
#include "core/Communicator.h"
#include "core/Stream.h"
#include "hccl/hccl.h"

#include <functional>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace hccl::rt::capi {

/// Logs `st` (prefixed with the API name), stores it as the thread's last
/// error message and returns its code.
HcclResult report(const char *fn, const Status &st);
/// The calling thread's last message stored by report() ("" if none):
/// HcclGetLastErrorMessage's text, valid until the thread's next report.
const char *lastErrorMessage();

/// Runs body(ctx) and turns exceptions (out of memory, ...) into results.
HcclResult guardedCall(const char *fn, HcclResult (*body)(void *), void *ctx);
/// Runs `body` (a HcclResult() callable object) so. A template over a
/// function pointer rather than a std::function: most C entry points'
/// closures are larger than std::function keeps in place, and were
/// allocated and freed on every call (docs/performance.md, "Small calls'
/// own costs").
template <class F> HcclResult guarded(const char *fn, F &&body) {
  using Body = std::remove_reference_t<F>;
  static_assert(!std::is_function_v<Body>, "pass a callable object");
  return guardedCall(
      fn, [](void *b) -> HcclResult { return (*static_cast<Body *>(b))(); },
      const_cast<void *>(static_cast<const void *>(&body)));
}

void registerComm(Communicator *c);
/// Removes it (and its state below) from the registry; false if unknown.
bool unregisterComm(Communicator *c);
/// Any live communicator (suspended ones too).
Status resolveComm(HcclComm comm, Communicator **out);
/// A live communicator that is not suspended (HCCL_E_SUSPENDING otherwise):
/// what collectives and point-to-point calls need.
Status resolveActiveComm(HcclComm comm, Communicator **out);
/// Every live communicator.
std::vector<Communicator *> liveComms();

/// C API state of a communicator beside the Communicator itself.
struct CommApiState {
  bool suspended = false;
  /// HcclCommSetMemoryRange ranges and the memory activated inside them.
  struct Activation {
    uintptr_t addr = 0;
    size_t size = 0;
    void *registration = nullptr;
  };
  struct Range {
    uintptr_t base = 0;
    size_t size = 0;
    std::vector<Activation> active;
  };
  std::vector<Range> ranges;
};
/// Runs `fn` on the communicator's state under the registry's lock; false
/// (and `fn` not run) when the communicator is not live.
bool withCommState(Communicator *c,
                   const std::function<void(CommApiState &)> &fn);

void registerStream(HostStream *s);
bool unregisterStream(HostStream *s);
/// NULL stream -> *out = nullptr (synchronous).
Status resolveStream(aclrtStream stream, HostStream **out);

/// The environment's configuration (HCCL_E_PARA with the variable on error),
/// with HcclSetConfig's settings on top. Logs its warnings (accepted values
/// without effect here) once each.
StatusOr<Config> loadEnvConfig();

/// HcclSetConfig's process-wide settings, applied on top of the environment.
void applyProcessSettings(Config &cfg);

/// What an HcclCommConfig says, read by HCCL's protocol (ConfigApi.cpp):
/// only the fields the caller's version and size hold; a newer caller's
/// unknown fields are ignored with a warning.
struct CommSettings {
  Config cfg;
  std::string name; ///< hcclCommName ("" = generated)
  std::string udi;  ///< hcclUdi (user information, kept only)
};
StatusOr<CommSettings> readCommConfig(Config base, const HcclCommConfig *cfg);
/// readCommConfig(...).cfg.
StatusOr<Config> applyCommConfig(Config base, const HcclCommConfig *cfg);
/// Logs each line once per process at warning level.
void warnOnce(const std::vector<std::string> &lines);

/// Data type: supported -> ok; an HCCL type this runtime lacks ->
/// HCCL_E_NOT_SUPPORT; anything else -> HCCL_E_PARA.
Status checkDataType(HcclDataType t);
Status checkReduceOp(HcclReduceOp op);
/// count * elemSize * factor must fit (and stay below 2^62 bytes).
Status checkBytes(uint64_t count, HcclDataType t, uint64_t factor,
                  const char *what);
/// Two byte ranges overlap without being the allowed in-place alias.
bool overlaps(const void *a, uint64_t aBytes, const void *b, uint64_t bBytes);

/// A call's communicator (live, not suspended) and stream (NULL: sync).
struct CallCtx {
  Communicator *comm = nullptr;
  HostStream *stream = nullptr;
};
Status resolveCall(HcclComm comm, aclrtStream stream, CallCtx &ctx);
/// HCCL_E_PTR "<name> is NULL" when p is NULL and count > 0.
Status needPtr(const void *p, const char *name, uint64_t count);
Status checkRoot(uint32_t root, const Communicator *c);
/// A peer rank other than this rank.
Status checkPeer(uint32_t peer, const Communicator *c, const char *what);
size_t elemSize(HcclDataType t);

/// HcclGroupStart .. HcclGroupEnd (GroupApi.cpp): true while this thread is
/// inside a group; groupAdd defers a checked send or receive to the end.
bool inGroup();
void groupAdd(Communicator *c, HostStream *s, const Communicator::P2pOp &op);

/// The HcclCommRegCommStateCallback callbacks for `phase`; the first failure.
HcclResult runCommStateCallbacks(HcclComm comm, HcclCommStatePhase phase);

/// Holds the communicator's turn (issue order) for a scope.
class Turn {
public:
  explicit Turn(Communicator *c) : c_(c) { c_->order().enter(); }
  ~Turn() { c_->order().endTurn(); }
  Turn(const Turn &) = delete;
  Turn &operator=(const Turn &) = delete;

private:
  Communicator *c_;
};

/// Runs a call taken from the stream in its turn (`ticket`), turning an
/// exception into an error and naming `fn` in the error.
Status runQueued(const char *fn, Communicator *c, uint64_t ticket,
                 Status (*call)(void *), void *work);

/// Runs `work` (a `Status()` callable) on the communicator in issue order:
/// now (NULL stream) or enqueued on the stream, stored in the stream's
/// queue without allocating (core/InlineTask.h). Returns the synchronous
/// result. `fn` must outlive the call (the C entry point's name literal).
template <class F>
HcclResult dispatch(const char *fn, Communicator *c, HostStream *s, F work) {
  if (s == nullptr) {
    Status st;
    {
      Turn turn(c);
      st = work();
    }
    return report(fn, st);
  }
  // The ticket and the queuing under one lock (HostStream::issueLock).
  std::lock_guard<std::mutex> issuing(s->issueLock());
  uint64_t ticket = c->order().take();
  try {
    s->enqueue([fn, c, ticket, work = std::move(work)]() mutable -> Status {
      return runQueued(
          fn, c, ticket,
          [](void *w) -> Status { return (*static_cast<F *>(w))(); }, &work);
    });
  } catch (...) {
    // Not queued (no memory for the ring): later calls must not wait for
    // this one's turn. The C entry point reports the exception.
    c->order().abandon(ticket);
    throw;
  }
  return HCCL_SUCCESS;
}

} // namespace hccl::rt::capi

/// Returns report(fn, status) from the calling C entry point on failure.
#define API_TRY(fn, expr)                                                      \
  do {                                                                         \
    ::hccl::rt::Status _s = (expr);                                            \
    if (!_s.isOk())                                                            \
      return ::hccl::rt::capi::report(fn, _s);                                 \
  } while (0)

#endif // HCCL_RUNTIME_CAPI_APISUPPORT_H
