//===- AclHost.cpp - libascendcl: the host stand-in for ACL ---------------===//
//
// NOT Huawei's ACL: the subset of AscendCL that HCCL programs call (include/
// acl), on the host runtime, so that HCCL samples and hccl_test build and
// run unchanged. Built only on libhccl's public C API:
//  - devices are numbers (HCCL_HOST_DEVICES or ASCEND_RT_VISIBLE_DEVICES'
//    count, default 8); each thread has a current one;
//  - streams are libhccl host streams, so HCCL calls given an ACL stream
//    queue on it in order; events are host timestamps taken in stream order;
//  - aclrtMalloc is HcclMemAlloc (same-host ranks read it directly);
//  - the virtual-memory calls reserve address space (mmap PROT_NONE) and map
//    memfd-backed "physical" memory into it (MAP_FIXED), as hccl_test's -z
//    needs.
// Failures return ACL's codes (ACL_ERROR_INVALID_PARAM, ..._BAD_ALLOC,
// ..._RT_FAILURE for a failed stream).
//
//===----------------------------------------------------------------------===//
#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "hccl/hccl.h"
#include "reduce/Copy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

namespace {

std::mutex gMu;
bool gInitialized = false;
std::set<void *> gStreams;             ///< aclrtCreateStream's streams
std::map<uintptr_t, size_t> gReserved; ///< aclrtReserveMemAddress ranges
std::map<uintptr_t, size_t> gMapped;   ///< aclrtMapMem mappings
std::set<void *> gHostAllocs;          ///< aclrtMallocHost

thread_local int32_t tlsDevice = -1;

uint32_t deviceCount() {
  for (const char *var : {"HCCL_HOST_DEVICES"}) {
    const char *v = std::getenv(var);
    if (v && *v) {
      long n = std::strtol(v, nullptr, 10);
      if (n >= 1 && n <= 4096)
        return static_cast<uint32_t>(n);
    }
  }
  if (const char *v = std::getenv("ASCEND_RT_VISIBLE_DEVICES"); v && *v)
    return static_cast<uint32_t>(1 + std::count(v, v + std::strlen(v), ','));
  return 8;
}

aclError fromHccl(HcclResult r) {
  switch (r) {
  case HCCL_SUCCESS:
    return ACL_SUCCESS;
  case HCCL_E_PARA:
  case HCCL_E_PTR:
    return ACL_ERROR_INVALID_PARAM;
  case HCCL_E_MEMORY:
  case HCCL_E_OOM:
    return ACL_ERROR_BAD_ALLOC;
  default:
    return ACL_ERROR_RT_FAILURE;
  }
}

/// A host event: the time its record ran in its stream's order.
struct Event {
  std::mutex mu;
  std::condition_variable cv;
  bool pending = false;  ///< recorded, not yet reached
  bool complete = false; ///< reached
  std::chrono::steady_clock::time_point when;
};

void reach(void *p) {
  auto *e = static_cast<Event *>(p);
  std::lock_guard<std::mutex> g(e->mu);
  e->when = std::chrono::steady_clock::now();
  e->pending = false;
  e->complete = true;
  e->cv.notify_all();
}

void waitEvent(void *p) {
  auto *e = static_cast<Event *>(p);
  std::unique_lock<std::mutex> g(e->mu);
  e->cv.wait(g, [&] { return !e->pending; });
}

struct Copy {
  void *dst;
  const void *src;
  size_t n;
  int value;
  bool set;
};

void runCopy(void *p) {
  auto *c = static_cast<Copy *>(p);
  if (c->set)
    std::memset(c->dst, c->value, c->n);
  else
    hccl::rt::moveBytes(c->dst, c->src, c->n);
  delete c;
}

/// A memfd standing in for NPU physical memory.
struct Physical {
  int fd;
  size_t size;
};

bool insideReserved(uintptr_t a, size_t n) {
  auto it = gReserved.upper_bound(a);
  if (it == gReserved.begin())
    return false;
  --it;
  return a >= it->first && a + n <= it->first + it->second && a + n >= a;
}

} // namespace

extern "C" {

aclError aclInit(const char *configPath) {
  std::lock_guard<std::mutex> g(gMu);
  if (gInitialized)
    return ACL_ERROR_REPEAT_INITIALIZE;
  gInitialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  std::lock_guard<std::mutex> g(gMu);
  if (!gInitialized)
    return ACL_ERROR_REPEAT_FINALIZE;
  gInitialized = false;
  return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode *runMode) {
  if (!runMode)
    return ACL_ERROR_INVALID_PARAM;
  *runMode = ACL_HOST;
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (deviceId < 0 || static_cast<uint32_t>(deviceId) >= deviceCount())
    return ACL_ERROR_INVALID_DEVICE;
  tlsDevice = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId < 0 || static_cast<uint32_t>(deviceId) >= deviceCount())
    return ACL_ERROR_INVALID_DEVICE;
  if (tlsDevice == deviceId)
    tlsDevice = -1;
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId) {
  if (!deviceId)
    return ACL_ERROR_INVALID_PARAM;
  if (tlsDevice < 0)
    return ACL_ERROR_INVALID_DEVICE;
  *deviceId = tlsDevice;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
  if (!count)
    return ACL_ERROR_INVALID_PARAM;
  *count = deviceCount();
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  std::set<void *> streams;
  {
    std::lock_guard<std::mutex> g(gMu);
    streams = gStreams;
  }
  aclError first = ACL_SUCCESS;
  for (void *s : streams) {
    aclError e = fromHccl(HcclStreamSynchronize(s));
    if (first == ACL_SUCCESS)
      first = e;
  }
  return first;
}

const char *aclrtGetSocName(void) { return "HostCPU"; }

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode) {
  return mode == ACL_RT_OVERFLOW_MODE_SATURATION ||
                 mode == ACL_RT_OVERFLOW_MODE_INFNAN
             ? ACL_SUCCESS
             : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
  if (!context)
    return ACL_ERROR_INVALID_PARAM;
  if (aclError e = aclrtSetDevice(deviceId); e != ACL_SUCCESS)
    return e;
  *context =
      reinterpret_cast<aclrtContext>(static_cast<intptr_t>(deviceId) + 1);
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  return context ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  if (!context)
    return ACL_ERROR_INVALID_PARAM;
  return aclrtSetDevice(
      static_cast<int32_t>(reinterpret_cast<intptr_t>(context) - 1));
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
  if (!context)
    return ACL_ERROR_INVALID_PARAM;
  if (tlsDevice < 0)
    return ACL_ERROR_INVALID_DEVICE;
  *context =
      reinterpret_cast<aclrtContext>(static_cast<intptr_t>(tlsDevice) + 1);
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
  if (!stream)
    return ACL_ERROR_INVALID_PARAM;
  aclError e = fromHccl(HcclStreamCreate(stream));
  if (e == ACL_SUCCESS) {
    std::lock_guard<std::mutex> g(gMu);
    gStreams.insert(*stream);
  }
  return e;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (!stream)
    return ACL_ERROR_INVALID_PARAM;
  {
    std::lock_guard<std::mutex> g(gMu);
    gStreams.erase(stream);
  }
  return fromHccl(HcclStreamDestroy(stream));
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return fromHccl(HcclStreamSynchronize(stream));
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream,
                                           int32_t timeout) {
  // The host stream's calls carry their own HCCL_EXEC_TIMEOUT.
  return fromHccl(HcclStreamSynchronize(stream));
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
  if (!status)
    return ACL_ERROR_INVALID_PARAM;
  HcclResult r = HcclStreamQuery(stream);
  if (r != HCCL_SUCCESS && r != HCCL_E_AGAIN)
    return fromHccl(r);
  *status = r == HCCL_SUCCESS ? ACL_STREAM_STATUS_COMPLETE
                              : ACL_STREAM_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  // A host stream stops at its first failure already (ACL_STOP_ON_FAILURE).
  return mode == ACL_CONTINUE_ON_FAILURE || mode == ACL_STOP_ON_FAILURE
             ? ACL_SUCCESS
             : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                             aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  if (!fn)
    return ACL_ERROR_INVALID_PARAM;
  return fromHccl(HcclStreamLaunchHostFunc(stream, fn, userData));
}

aclError aclrtCreateEvent(aclrtEvent *event) {
  if (!event)
    return ACL_ERROR_INVALID_PARAM;
  *event = new Event();
  return ACL_SUCCESS;
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
  return aclrtCreateEvent(event);
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  if (!event)
    return ACL_ERROR_INVALID_PARAM;
  waitEvent(event); // a queued record still refers to it
  delete static_cast<Event *>(event);
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  if (!event)
    return ACL_ERROR_INVALID_PARAM;
  auto *e = static_cast<Event *>(event);
  {
    std::lock_guard<std::mutex> g(e->mu);
    e->pending = true;
    e->complete = false;
  }
  return fromHccl(HcclStreamLaunchHostFunc(stream, reach, e));
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  if (!event)
    return ACL_ERROR_INVALID_PARAM;
  waitEvent(event);
  auto *e = static_cast<Event *>(event);
  std::lock_guard<std::mutex> g(e->mu);
  e->complete = false;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  if (!event)
    return ACL_ERROR_INVALID_PARAM;
  waitEvent(event);
  return ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent event,
                               aclrtEventRecordedStatus *status) {
  if (!event || !status)
    return ACL_ERROR_INVALID_PARAM;
  auto *e = static_cast<Event *>(event);
  std::lock_guard<std::mutex> g(e->mu);
  *status = e->pending ? ACL_EVENT_RECORDED_STATUS_NOT_READY
                       : ACL_EVENT_RECORDED_STATUS_COMPLETE;
  return ACL_SUCCESS;
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  if (!event)
    return ACL_ERROR_INVALID_PARAM;
  return fromHccl(HcclStreamLaunchHostFunc(stream, waitEvent, event));
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent,
                               aclrtEvent endEvent) {
  if (!ms || !startEvent || !endEvent)
    return ACL_ERROR_INVALID_PARAM;
  auto *a = static_cast<Event *>(startEvent);
  auto *b = static_cast<Event *>(endEvent);
  std::scoped_lock g(a->mu, b->mu);
  if (!a->complete || !b->complete)
    return ACL_ERROR_INVALID_PARAM; // ACL: both must have completed
  *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return ACL_SUCCESS;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (!devPtr || size == 0)
    return ACL_ERROR_INVALID_PARAM;
  return fromHccl(HcclMemAlloc(devPtr, size));
}

aclError aclrtFree(void *devPtr) {
  if (!devPtr)
    return ACL_ERROR_INVALID_PARAM;
  return fromHccl(HcclMemFree(devPtr));
}

aclError aclrtMallocHost(void **hostPtr, size_t size) {
  if (!hostPtr || size == 0)
    return ACL_ERROR_INVALID_PARAM;
  if (posix_memalign(hostPtr, 64, size) != 0)
    return ACL_ERROR_BAD_ALLOC;
  std::lock_guard<std::mutex> g(gMu);
  gHostAllocs.insert(*hostPtr);
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void *hostPtr) {
  {
    std::lock_guard<std::mutex> g(gMu);
    if (!hostPtr || !gHostAllocs.erase(hostPtr))
      return ACL_ERROR_INVALID_PARAM;
  }
  std::free(hostPtr);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind) {
  if ((!dst || !src) && count > 0)
    return ACL_ERROR_INVALID_PARAM;
  if (count > destMax || kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
    return ACL_ERROR_INVALID_PARAM;
  if (count)
    hccl::rt::moveBytes(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
                          size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  if ((!dst || !src) && count > 0)
    return ACL_ERROR_INVALID_PARAM;
  if (count > destMax || kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
    return ACL_ERROR_INVALID_PARAM;
  return fromHccl(HcclStreamLaunchHostFunc(
      stream, runCopy, new Copy{dst, src, count, 0, false}));
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value,
                     size_t count) {
  if ((!devPtr && count > 0) || count > maxCount)
    return ACL_ERROR_INVALID_PARAM;
  if (count)
    std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value,
                          size_t count, aclrtStream stream) {
  if ((!devPtr && count > 0) || count > maxCount)
    return ACL_ERROR_INVALID_PARAM;
  return fromHccl(HcclStreamLaunchHostFunc(
      stream, runCopy, new Copy{devPtr, nullptr, count, value, true}));
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *freeBytes, size_t *total) {
  if (!freeBytes || !total)
    return ACL_ERROR_INVALID_PARAM;
  struct sysinfo si;
  if (sysinfo(&si) != 0)
    return ACL_ERROR_RT_FAILURE;
  *total = static_cast<size_t>(si.totalram) * si.mem_unit;
  *freeBytes = static_cast<size_t>(si.freeram + si.bufferram) * si.mem_unit;
  return ACL_SUCCESS;
}

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                          aclrtMemGranularityOptions option,
                                          size_t *granularity) {
  if (!prop || !granularity)
    return ACL_ERROR_INVALID_PARAM;
  *granularity = 2u << 20; // as an NPU: 2 MiB pages
  return ACL_SUCCESS;
}

aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
                                void *expectPtr, uint64_t flags) {
  if (!virPtr || size == 0)
    return ACL_ERROR_INVALID_PARAM;
  void *p = mmap(expectPtr, size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return ACL_ERROR_BAD_ALLOC;
  std::lock_guard<std::mutex> g(gMu);
  gReserved[reinterpret_cast<uintptr_t>(p)] = size;
  *virPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtReleaseMemAddress(void *virPtr) {
  std::lock_guard<std::mutex> g(gMu);
  auto it = gReserved.find(reinterpret_cast<uintptr_t>(virPtr));
  if (it == gReserved.end())
    return ACL_ERROR_INVALID_PARAM;
  munmap(virPtr, it->second);
  gReserved.erase(it);
  return ACL_SUCCESS;
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                             const aclrtPhysicalMemProp *prop, uint64_t flags) {
  if (!handle || size == 0)
    return ACL_ERROR_INVALID_PARAM;
  int fd = memfd_create("acl-physical", MFD_CLOEXEC);
  if (fd < 0)
    return ACL_ERROR_BAD_ALLOC;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    return ACL_ERROR_BAD_ALLOC;
  }
  *handle = new Physical{fd, size};
  return ACL_SUCCESS;
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
  if (!handle)
    return ACL_ERROR_INVALID_PARAM;
  auto *ph = static_cast<Physical *>(handle);
  close(ph->fd); // mappings keep the memory until they are unmapped
  delete ph;
  return ACL_SUCCESS;
}

aclError aclrtMapMem(void *virPtr, size_t size, size_t offset,
                     aclrtDrvMemHandle handle, uint64_t flags) {
  if (!virPtr || !handle || size == 0)
    return ACL_ERROR_INVALID_PARAM;
  auto *ph = static_cast<Physical *>(handle);
  if (offset > ph->size || size > ph->size - offset)
    return ACL_ERROR_INVALID_PARAM;
  std::lock_guard<std::mutex> g(gMu);
  auto a = reinterpret_cast<uintptr_t>(virPtr);
  if (!insideReserved(a, size))
    return ACL_ERROR_INVALID_PARAM; // not in an aclrtReserveMemAddress range
  void *p = mmap(virPtr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 ph->fd, static_cast<off_t>(offset));
  if (p == MAP_FAILED)
    return ACL_ERROR_BAD_ALLOC;
  gMapped[a] = size;
  return ACL_SUCCESS;
}

aclError aclrtUnmapMem(void *virPtr) {
  std::lock_guard<std::mutex> g(gMu);
  auto it = gMapped.find(reinterpret_cast<uintptr_t>(virPtr));
  if (it == gMapped.end())
    return ACL_ERROR_INVALID_PARAM;
  // Back to reserved address space.
  mmap(virPtr, it->second, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  gMapped.erase(it);
  return ACL_SUCCESS;
}

size_t aclDataTypeSize(aclDataType dataType) {
  switch (dataType) {
  case ACL_INT8:
  case ACL_UINT8:
  case ACL_BOOL:
    return 1;
  case ACL_FLOAT16:
  case ACL_INT16:
  case ACL_UINT16:
  case ACL_BF16:
    return 2;
  case ACL_FLOAT:
  case ACL_INT32:
  case ACL_UINT32:
    return 4;
  case ACL_INT64:
  case ACL_UINT64:
  case ACL_DOUBLE:
  case ACL_COMPLEX64:
    return 8;
  case ACL_COMPLEX128:
    return 16;
  default:
    return 0;
  }
}

float aclFloat16ToFloat(aclFloat16 h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0    ? std::ldexp(static_cast<float>(m), -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : std::ldexp(static_cast<float>(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

aclFloat16 aclFloatToFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  float a = std::fabs(f);
  if (std::isnan(f))
    return static_cast<aclFloat16>(sign | 0x7e00);
  if (a >= 65520.0f)
    return static_cast<aclFloat16>(sign | 0x7c00);
  if (a < std::ldexp(1.0f, -14)) // subnormal: units of 2^-24, nearest-even
    return static_cast<aclFloat16>(
        sign | static_cast<uint32_t>(std::nearbyint(std::ldexp(a, 24))));
  int e;
  float frac = std::frexp(a, &e); // a = frac * 2^e, frac in [0.5, 1)
  uint32_t m = static_cast<uint32_t>(std::nearbyint(std::ldexp(frac, 11)));
  if (m == 2048) { // rounded up to the next power of two
    m = 1024;
    ++e;
  }
  return static_cast<aclFloat16>(sign | (static_cast<uint32_t>(e + 14) << 10) |
                                 (m - 1024));
}

// Profiling needs an NPU: every call says so.
aclError aclprofInit(const char *path, size_t length) {
  return ACL_ERROR_FEATURE_UNSUPPORTED;
}
aclError aclprofFinalize(void) { return ACL_ERROR_FEATURE_UNSUPPORTED; }
aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                   aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents *aicoreEvents,
                                   uint64_t dataTypeConfig) {
  return nullptr;
}
aclError aclprofDestroyConfig(const aclprofConfig *config) {
  return ACL_ERROR_FEATURE_UNSUPPORTED;
}
aclError aclprofStart(const aclprofConfig *config) {
  return ACL_ERROR_FEATURE_UNSUPPORTED;
}
aclError aclprofStop(const aclprofConfig *config) {
  return ACL_ERROR_FEATURE_UNSUPPORTED;
}

} // extern "C"
