//===- ApiSupport.h - Shared plumbing of the C API ---------------*- C++
//-*-===//
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

namespace hccl::rt::capi {

/// Logs `st` (prefixed with the API name), stores it as the thread's last
/// error message and returns its code.
HcclResult report(const char *fn, const Status &st);

/// Runs `body` and turns exceptions (out of memory, ...) into results.
HcclResult guarded(const char *fn, const std::function<HcclResult()> &body);

void registerComm(Communicator *c);
/// Removes it from the registry; false if unknown.
bool unregisterComm(Communicator *c);
Status resolveComm(HcclComm comm, Communicator **out);

void registerStream(HostStream *s);
bool unregisterStream(HostStream *s);
/// NULL stream -> *out = nullptr (synchronous).
Status resolveStream(aclrtStream stream, HostStream **out);

/// The environment's configuration (HCCL_E_PARA with the variable on error).
StatusOr<Config> loadEnvConfig();
/// Applies the fields a user set in an HcclCommConfig.
StatusOr<Config> applyCommConfig(Config base, const HcclCommConfig *cfg);

/// Data type: supported -> ok; an HCCL type this runtime lacks ->
/// HCCL_E_NOT_SUPPORT; anything else -> HCCL_E_PARA.
Status checkDataType(HcclDataType t);
Status checkReduceOp(HcclReduceOp op);
/// count * elemSize * factor must fit (and stay below 2^62 bytes).
Status checkBytes(uint64_t count, HcclDataType t, uint64_t factor,
                  const char *what);
/// Two byte ranges overlap without being the allowed in-place alias.
bool overlaps(const void *a, uint64_t aBytes, const void *b, uint64_t bBytes);

/// Holds the communicator's turn (issue order) for a scope.
class Turn {
public:
  explicit Turn(Communicator *c) : c_(c) { c_->waitTurn(c_->takeTicket()); }
  ~Turn() { c_->endTurn(); }
  Turn(const Turn &) = delete;
  Turn &operator=(const Turn &) = delete;

private:
  Communicator *c_;
};

/// Runs `work` on the communicator in issue order: now (NULL stream) or
/// enqueued on the stream. Returns the synchronous result.
HcclResult dispatch(const char *fn, Communicator *c, HostStream *s,
                    std::function<Status()> work);

} // namespace hccl::rt::capi

#endif // HCCL_RUNTIME_CAPI_APISUPPORT_H
