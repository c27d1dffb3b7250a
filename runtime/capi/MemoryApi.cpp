//===- MemoryApi.cpp - C API: shareable memory and registration -----------===//
#include "capi/ApiSupport.h"
#include "transport/shm/Regions.h"

using namespace hccl::rt;
using namespace hccl::rt::capi;

extern "C" {

HcclResult HcclMemAlloc(void **ptr, uint64_t size) {
  const char *fn = "HcclMemAlloc";
  return guarded(fn, [&]() -> HcclResult {
    if (ptr == nullptr)
      return report(fn, Status(HCCL_E_PTR, "ptr is NULL"));
    *ptr = nullptr;
    if (size == 0 || size > (uint64_t(1) << 46))
      return report(fn, errPara("size " + std::to_string(size) +
                                " is outside 1..2^46 bytes"));
    auto p = RegionRegistry::instance().userAlloc(static_cast<size_t>(size));
    if (!p)
      return report(fn, p.status());
    *ptr = *p;
    return HCCL_SUCCESS;
  });
}

HcclResult HcclMemFree(void *ptr) {
  const char *fn = "HcclMemFree";
  return guarded(fn, [&]() -> HcclResult {
    if (ptr == nullptr)
      return HCCL_SUCCESS;
    return report(fn, RegionRegistry::instance().userFree(ptr));
  });
}

HcclResult HcclCommRegister(HcclComm comm, void *addr, uint64_t size,
                            void **handle, uint32_t flag) {
  const char *fn = "HcclCommRegister";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    if (addr == nullptr || handle == nullptr)
      return report(
          fn, Status(HCCL_E_PTR, addr ? "handle is NULL" : "addr is NULL"));
    if (size == 0)
      return report(fn, errPara("size is 0"));
    if (flag != HCCL_REGISTER_DEFAULT)
      return report(fn,
                    errPara("flag " + std::to_string(flag) +
                            " is not supported (use HCCL_REGISTER_DEFAULT)"));
    *handle = c->registerMemory(addr, size);
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommDeregister(HcclComm comm, void *handle) {
  const char *fn = "HcclCommDeregister";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    return report(fn, c->deregisterMemory(handle));
  });
}

} // extern "C"
