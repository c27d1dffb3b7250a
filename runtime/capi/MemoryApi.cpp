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

// Zero-copy ranges (hccl_test -z). HCCL maps NPU physical memory into a
// reserved virtual range; here the range is host address space (the ACL
// stand-in's aclrtReserveMemAddress) and activating memory inside it
// registers it with the communicator, like HcclCommRegister.
extern "C" {

HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size,
                                  size_t alignment, uint64_t flags) {
  const char *fn = "HcclCommSetMemoryRange";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    if (baseVirPtr == nullptr)
      return report(fn, Status(HCCL_E_PTR, "baseVirPtr is NULL"));
    if (size == 0)
      return report(fn, errPara("size is 0"));
    if (alignment != 0 || flags != 0)
      return report(fn, errPara("alignment and flags must be 0 (as in HCCL)"));
    auto base = reinterpret_cast<uintptr_t>(baseVirPtr);
    if (base + size < base)
      return report(fn, errPara("the range wraps around the address space"));
    Status st;
    withCommState(c, [&](CommApiState &s) {
      for (const auto &r : s.ranges)
        if (base < r.base + r.size && r.base < base + size) {
          st = errPara("the range overlaps one already set");
          return;
        }
      s.ranges.push_back({base, size, {}});
    });
    return report(fn, st);
  });
}

HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr) {
  const char *fn = "HcclCommUnsetMemoryRange";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    auto base = reinterpret_cast<uintptr_t>(baseVirPtr);
    Status st = errPara("baseVirPtr was not set with HcclCommSetMemoryRange");
    withCommState(c, [&](CommApiState &s) {
      for (size_t i = 0; i < s.ranges.size(); ++i)
        if (s.ranges[i].base == base) {
          if (!s.ranges[i].active.empty()) {
            st = errPara("memory in the range is still activated "
                         "(HcclCommDeactivateCommMemory first)");
            return;
          }
          s.ranges.erase(s.ranges.begin() + static_cast<long>(i));
          st = Status::ok();
          return;
        }
    });
    return report(fn, st);
  });
}

HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size,
                                      size_t offset, aclrtDrvMemHandle handle,
                                      uint64_t flags) {
  const char *fn = "HcclCommActivateCommMemory";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    if (virPtr == nullptr || handle == nullptr)
      return report(
          fn, Status(HCCL_E_PTR, virPtr ? "handle is NULL" : "virPtr is NULL"));
    if (size == 0)
      return report(fn, errPara("size is 0"));
    if (offset != 0 || flags != 0)
      return report(fn, errPara("offset and flags must be 0 (as in HCCL)"));
    auto addr = reinterpret_cast<uintptr_t>(virPtr);
    Status st = errPara("[virPtr, virPtr + size) is not inside a range set "
                        "with HcclCommSetMemoryRange");
    withCommState(c, [&](CommApiState &s) {
      for (auto &r : s.ranges) {
        if (addr < r.base || addr + size > r.base + r.size ||
            addr + size < addr)
          continue;
        for (const auto &a : r.active)
          if (addr < a.addr + a.size && a.addr < addr + size) {
            st = errPara("the memory overlaps memory already activated");
            return;
          }
        r.active.push_back(
            {addr, size,
             c->registerMemory(virPtr, static_cast<uint64_t>(size))});
        st = Status::ok();
        return;
      }
    });
    return report(fn, st);
  });
}

HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr) {
  const char *fn = "HcclCommDeactivateCommMemory";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    auto addr = reinterpret_cast<uintptr_t>(virPtr);
    void *reg = nullptr;
    bool found = false;
    withCommState(c, [&](CommApiState &s) {
      for (auto &r : s.ranges)
        for (size_t i = 0; i < r.active.size(); ++i)
          if (r.active[i].addr == addr) {
            reg = r.active[i].registration;
            r.active.erase(r.active.begin() + static_cast<long>(i));
            found = true;
            return;
          }
    });
    if (!found)
      return report(fn, errPara("virPtr was not activated with "
                                "HcclCommActivateCommMemory"));
    c->waitIdle(); // queued calls may still use the memory
    return report(fn, c->deregisterMemory(reg));
  });
}

} // extern "C"
