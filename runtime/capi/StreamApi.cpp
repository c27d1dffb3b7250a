//===- StreamApi.cpp - C API: host streams --------------------------------===//
#include "capi/ApiSupport.h"

using namespace hccl::rt;
using namespace hccl::rt::capi;

extern "C" {

HcclResult HcclStreamCreate(aclrtStream *stream) {
  const char *fn = "HcclStreamCreate";
  return guarded(fn, [&]() -> HcclResult {
    if (stream == nullptr)
      return report(fn, Status(HCCL_E_PTR, "stream is NULL"));
    auto s = HostStream::create();
    if (!s)
      return report(fn, s.status());
    HostStream *raw = s->release();
    registerStream(raw);
    *stream = raw;
    return HCCL_SUCCESS;
  });
}

HcclResult HcclStreamSynchronize(aclrtStream stream) {
  const char *fn = "HcclStreamSynchronize";
  return guarded(fn, [&]() -> HcclResult {
    HostStream *s;
    if (Status st = resolveStream(stream, &s); !st.isOk())
      return report(fn, st);
    if (s == nullptr)
      return HCCL_SUCCESS; // the NULL stream is synchronous
    Status st = s->synchronize();
    if (!st.isOk())
      return report(fn, st);
    return HCCL_SUCCESS;
  });
}

HcclResult HcclStreamQuery(aclrtStream stream) {
  const char *fn = "HcclStreamQuery";
  return guarded(fn, [&]() -> HcclResult {
    HostStream *s;
    if (Status st = resolveStream(stream, &s); !st.isOk())
      return report(fn, st);
    return s == nullptr || s->idle() ? HCCL_SUCCESS : HCCL_E_AGAIN;
  });
}

HcclResult HcclStreamLaunchHostFunc(aclrtStream stream, void (*func)(void *),
                                    void *userData) {
  const char *fn = "HcclStreamLaunchHostFunc";
  return guarded(fn, [&]() -> HcclResult {
    if (func == nullptr)
      return report(fn, Status(HCCL_E_PTR, "fn is NULL"));
    HostStream *s;
    if (Status st = resolveStream(stream, &s); !st.isOk())
      return report(fn, st);
    if (s == nullptr) {
      func(userData);
      return HCCL_SUCCESS;
    }
    s->enqueue([func, userData]() -> Status {
      func(userData);
      return Status::ok();
    });
    return HCCL_SUCCESS;
  });
}

HcclResult HcclStreamDestroy(aclrtStream stream) {
  const char *fn = "HcclStreamDestroy";
  return guarded(fn, [&]() -> HcclResult {
    HostStream *s;
    if (stream == nullptr)
      return report(fn, Status(HCCL_E_PTR, "stream is NULL"));
    if (Status st = resolveStream(stream, &s); !st.isOk())
      return report(fn, st);
    if (!unregisterStream(s))
      return report(fn, errPara("stream is being destroyed by another thread"));
    Status st = s->synchronize();
    delete s;
    return report(fn, st);
  });
}

} // extern "C"
