//===- IbvApi.cpp - libibverbs loaded with dlopen behind a table ----------===//
#include "transport/verbs/IbvApi.h"

#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

namespace hccl::rt::verbs {

std::string defaultIbLib(const std::string &configured) {
  return configured.empty() ? "libibverbs.so.1" : configured;
}

namespace {

template <typename F>
bool resolve(void *h, const char *name, F &slot, std::string &missing) {
  void *p = ::dlsym(h, name);
  if (!p) {
    if (!missing.empty())
      missing += ", ";
    missing += name;
    return false;
  }
  slot = reinterpret_cast<F>(p);
  return true;
}

StatusOr<std::unique_ptr<IbvApi>> loadNew(const std::string &path) {
  ::dlerror();
  // RTLD_LOCAL: the symbols stay out of the global namespace, so a second
  // library (a fake in tests) never shadows or is shadowed by this one.
  void *h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = ::dlerror();
    return Status(HCCL_E_NOT_SUPPORT,
                  "cannot load " + path +
                      " (HCCL_IB_LIB): " + (e ? e : "unknown dlopen error"));
  }
  auto api = std::make_unique<IbvApi>();
  api->path = path;
  std::string missing;
  resolve(h, "ibv_get_device_list", api->getDeviceList, missing);
  resolve(h, "ibv_free_device_list", api->freeDeviceList, missing);
  resolve(h, "ibv_get_device_name", api->getDeviceName, missing);
  resolve(h, "ibv_open_device", api->openDevice, missing);
  resolve(h, "ibv_close_device", api->closeDevice, missing);
  resolve(h, "ibv_query_device", api->queryDevice, missing);
  resolve(h, "ibv_query_port", api->queryPort, missing);
  resolve(h, "ibv_query_gid", api->queryGid, missing);
  resolve(h, "ibv_alloc_pd", api->allocPd, missing);
  resolve(h, "ibv_dealloc_pd", api->deallocPd, missing);
  resolve(h, "ibv_reg_mr", api->regMr, missing);
  resolve(h, "ibv_dereg_mr", api->deregMr, missing);
  resolve(h, "ibv_create_comp_channel", api->createCompChannel, missing);
  resolve(h, "ibv_destroy_comp_channel", api->destroyCompChannel, missing);
  resolve(h, "ibv_create_cq", api->createCq, missing);
  resolve(h, "ibv_destroy_cq", api->destroyCq, missing);
  resolve(h, "ibv_get_cq_event", api->getCqEvent, missing);
  resolve(h, "ibv_ack_cq_events", api->ackCqEvents, missing);
  resolve(h, "ibv_create_qp", api->createQp, missing);
  resolve(h, "ibv_modify_qp", api->modifyQp, missing);
  resolve(h, "ibv_destroy_qp", api->destroyQp, missing);
  resolve(h, "ibv_get_async_event", api->getAsyncEvent, missing);
  resolve(h, "ibv_ack_async_event", api->ackAsyncEvent, missing);
  resolve(h, "ibv_wc_status_str", api->wcStatusStr, missing);
  resolve(h, "ibv_event_type_str", api->eventTypeStr, missing);
  if (!missing.empty()) {
    ::dlclose(h);
    return Status(HCCL_E_NOT_SUPPORT,
                  path +
                      " (HCCL_IB_LIB) lacks libibverbs functions: " + missing);
  }
  // Optional: the GID type (RoCE v1/v2) comes from here when present.
  std::string ignored;
  resolve(h, "_ibv_query_gid_ex", api->queryGidEx, ignored);
  // The handle stays open for the life of the process (providers loaded by
  // rdma-core must not be unloaded under live contexts).
  return api;
}

} // namespace

StatusOr<const IbvApi *> IbvApi::load(const std::string &path) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<IbvApi>> loaded;
  std::lock_guard<std::mutex> g(mu);
  auto it = loaded.find(path);
  if (it != loaded.end())
    return static_cast<const IbvApi *>(it->second.get());
  auto api = loadNew(path);
  if (!api)
    return api.status();
  const IbvApi *p = api->get();
  loaded.emplace(path, api.take());
  return p;
}

} // namespace hccl::rt::verbs
