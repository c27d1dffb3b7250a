//===- CommInfoApi.cpp - C API: names, suspension, callbacks, InitAll -----===//
//
// The communicator calls of hccl_comm.h beyond creation: names and lookup,
// HcclCommSuspend / Resume and their state callbacks, HcclCommInitAll (ranks
// as threads of one process), and the NPU-only calls, which answer
// HCCL_E_NOT_SUPPORT with a message saying why.
//
//===----------------------------------------------------------------------===//
#include "capi/ApiSupport.h"
#include "common/Log.h"

#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace hccl::rt;
using namespace hccl::rt::capi;

namespace {

struct Callbacks {
  std::mutex mu;
  std::map<std::string, std::pair<HcclCommStateCallback, void *>> byName;
};
Callbacks &callbacks() {
  static Callbacks *c = new Callbacks();
  return *c;
}

HcclResult notSupported(const char *fn, const std::string &why) {
  return report(fn, Status(HCCL_E_NOT_SUPPORT, why));
}

} // namespace

namespace hccl::rt::capi {

HcclResult runCommStateCallbacks(HcclComm comm, HcclCommStatePhase phase) {
  std::vector<std::pair<HcclCommStateCallback, void *>> cbs;
  {
    std::lock_guard<std::mutex> g(callbacks().mu);
    for (auto &kv : callbacks().byName)
      cbs.push_back(kv.second);
  }
  HcclResult first = HCCL_SUCCESS;
  for (auto &[cb, args] : cbs) {
    HcclResult rc = cb(comm, phase, args);
    if (rc != HCCL_SUCCESS && first == HCCL_SUCCESS)
      first = rc;
  }
  return first;
}

} // namespace hccl::rt::capi

extern "C" {

HcclResult HcclGetCommName(HcclComm comm, char *commName) {
  const char *fn = "HcclGetCommName";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    if (commName == nullptr)
      return report(fn, Status(HCCL_E_PTR, "commName is NULL"));
    const std::string &n = c->name();
    size_t len = std::min(n.size(), size_t(COMM_NAME_MAX_LENGTH) - 1);
    std::memcpy(commName, n.data(), len);
    commName[len] = '\0';
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm) {
  const char *fn = "HcclCommGetHandleWithName";
  return guarded(fn, [&]() -> HcclResult {
    if (commName == nullptr || comm == nullptr)
      return report(fn, Status(HCCL_E_PTR,
                               commName ? "comm is NULL" : "commName is NULL"));
    std::string want(commName, strnlen(commName, COMM_NAME_MAX_LENGTH));
    for (Communicator *c : liveComms())
      if (c->name() == want) {
        *comm = c;
        return HCCL_SUCCESS;
      }
    return report(fn, Status(HCCL_E_NOT_FOUND,
                             "no live communicator is named '" + want + "'"));
  });
}

HcclResult HcclCommSuspend(HcclComm comm) {
  const char *fn = "HcclCommSuspend";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    c->waitIdle(); // the work issued before the suspension still runs
    withCommState(c, [](CommApiState &s) { s.suspended = true; });
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommResume(HcclComm comm) {
  const char *fn = "HcclCommResume";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    if (HcclResult rc =
            runCommStateCallbacks(comm, HCCL_COMM_STATE_PHASE_RESUME_PRE);
        rc != HCCL_SUCCESS)
      return report(fn, Status(rc, "a state callback (RESUME_PRE) failed"));
    // Suspension is this rank's own pause; a communicator that a failure
    // broke cannot be repaired on the host (there is no device to reset).
    Status broken = c->pollAsyncError();
    if (!broken.isOk())
      return report(fn, broken.withContext("the communicator failed and "
                                           "cannot resume"));
    withCommState(c, [](CommApiState &s) { s.suspended = false; });
    if (HcclResult rc =
            runCommStateCallbacks(comm, HCCL_COMM_STATE_PHASE_RESUME_POST);
        rc != HCCL_SUCCESS)
      return report(fn, Status(rc, "a state callback (RESUME_POST) failed"));
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status) {
  const char *fn = "HcclCommGetStatus";
  return guarded(fn, [&]() -> HcclResult {
    if (commId == nullptr || status == nullptr)
      return report(
          fn, Status(HCCL_E_PTR, commId ? "status is NULL" : "commId is NULL"));
    std::string want(commId, strnlen(commId, COMM_NAME_MAX_LENGTH));
    for (Communicator *c : liveComms())
      if (c->name() == want) {
        bool suspended = false;
        withCommState(c, [&](CommApiState &s) { suspended = s.suspended; });
        *status =
            suspended ? HCCL_COMM_STATUS_SUSPENDING : HCCL_COMM_STATUS_READY;
        return HCCL_SUCCESS;
      }
    *status = HCCL_COMM_STATUS_INVALID;
    return report(fn, Status(HCCL_E_NOT_FOUND,
                             "no live communicator is named '" + want + "'"));
  });
}

HcclResult HcclCommRegCommStateCallback(const char *regName,
                                        HcclCommStateCallback cb, void *args) {
  const char *fn = "HcclCommRegCommStateCallback";
  return guarded(fn, [&]() -> HcclResult {
    if (regName == nullptr)
      return report(fn, Status(HCCL_E_PTR, "regName is NULL"));
    std::lock_guard<std::mutex> g(callbacks().mu);
    if (cb == nullptr)
      callbacks().byName.erase(regName);
    else
      callbacks().byName[regName] = {cb, args};
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms) {
  const char *fn = "HcclCommInitAll";
  return guarded(fn, [&]() -> HcclResult {
    if (devices == nullptr || comms == nullptr)
      return report(fn, Status(HCCL_E_PTR,
                               devices ? "comms is NULL" : "devices is NULL"));
    if (ndev == 0 || ndev > 4096)
      return report(
          fn, errPara("ndev=" + std::to_string(ndev) + " is outside 1..4096"));
    std::set<int32_t> seen;
    for (uint32_t i = 0; i < ndev; ++i) {
      if (devices[i] < 0)
        return report(fn, errPara("devices[" + std::to_string(i) + "]=" +
                                  std::to_string(devices[i]) + " is negative"));
      if (!seen.insert(devices[i]).second)
        return report(fn, errPara("device " + std::to_string(devices[i]) +
                                  " appears twice in devices"));
    }
    HcclRootInfo root;
    if (HcclResult rc = HcclGetRootInfo(&root); rc != HCCL_SUCCESS)
      return rc; // reported by HcclGetRootInfo
    // Rank i runs on its own thread, as HCCL runs one thread per device.
    std::vector<HcclComm> made(ndev, nullptr);
    std::vector<HcclResult> rcs(ndev, HCCL_SUCCESS);
    std::vector<std::string> msgs(ndev);
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < ndev; ++i)
      threads.emplace_back([&, i] {
        rcs[i] = HcclCommInitRootInfo(ndev, &root, i, &made[i]);
        if (rcs[i] != HCCL_SUCCESS)
          msgs[i] = HcclGetLastErrorMessage();
      });
    for (auto &t : threads)
      t.join();
    for (uint32_t i = 0; i < ndev; ++i)
      if (rcs[i] != HCCL_SUCCESS) {
        for (HcclComm c : made)
          if (c)
            (void)HcclCommDestroy(c);
        return report(fn,
                      Status(rcs[i], "rank " + std::to_string(i) + " (device " +
                                         std::to_string(devices[i]) +
                                         "): " + msgs[i]));
      }
    for (uint32_t i = 0; i < ndev; ++i)
      comms[i] = made[i];
    return HCCL_SUCCESS;
  });
}

HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks,
                                    bool *useBackup, uint32_t nRanks) {
  const char *fn = "HcclCommWorkingDevNicSet";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    return notSupported(fn, "switching an NPU's device NIC to its backup has "
                            "no meaning on the host runtime");
  });
}

HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
                                  HcclCommSymWindow *winHandle, uint32_t flag) {
  return notSupported("HcclCommSymWinRegister",
                      "symmetric memory windows need NPU virtual memory "
                      "shared across devices; use HcclCommRegister or "
                      "HcclCommSetMemoryRange");
}

HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle) {
  return notSupported("HcclCommSymWinDeregister",
                      "symmetric memory windows are not supported here");
}

HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
                             HcclCommSymWindow *winHandle, size_t *offset) {
  return notSupported("HcclCommSymWinGet",
                      "symmetric memory windows are not supported here");
}

} // extern "C"
