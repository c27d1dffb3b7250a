//===- IbvApi.h - libibverbs loaded with dlopen behind a table --*- C++ -*-===//
//
// The runtime never links libibverbs: like NCCL's ibvsymbols and MSCCL++'s
// ibverbs wrapper, it dlopen()s the library (HCCL_IB_LIB, default
// libibverbs.so.1) and resolves the exported functions it uses into this
// table. The data path (ibv_post_send, ibv_post_recv, ibv_poll_cq,
// ibv_req_notify_cq) is inline in <infiniband/verbs.h> and dispatches
// through the provider's ibv_context::ops, so it needs no symbol.
//
// Members are named without the ibv_ prefix: verbs.h defines function-like
// macros for some of those names (ibv_reg_mr, ibv_query_port).
//
// A fake library exposing the same symbols (test/fakeverbs) stands in for
// rdma-core in the tests, through HCCL_IB_LIB.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_IBVAPI_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_IBVAPI_H

#include "common/Status.h"

#include <infiniband/verbs.h>
#include <string>

namespace hccl::rt::verbs {

struct IbvApi {
  std::string path; ///< what was loaded

  ibv_device **(*getDeviceList)(int *num) = nullptr;
  void (*freeDeviceList)(ibv_device **list) = nullptr;
  const char *(*getDeviceName)(ibv_device *dev) = nullptr;
  ibv_context *(*openDevice)(ibv_device *dev) = nullptr;
  int (*closeDevice)(ibv_context *ctx) = nullptr;
  int (*queryDevice)(ibv_context *ctx, ibv_device_attr *attr) = nullptr;
  /// The exported ibv_query_port: fills the compat prefix of ibv_port_attr.
  int (*queryPort)(ibv_context *ctx, uint8_t port,
                   struct _compat_ibv_port_attr *attr) = nullptr;
  int (*queryGid)(ibv_context *ctx, uint8_t port, int index,
                  ibv_gid *gid) = nullptr;
  /// rdma-core >= 32 (_ibv_query_gid_ex); nullptr on older libraries.
  int (*queryGidEx)(ibv_context *ctx, uint32_t port, uint32_t index,
                    ibv_gid_entry *entry, uint32_t flags,
                    size_t entrySize) = nullptr;
  ibv_pd *(*allocPd)(ibv_context *ctx) = nullptr;
  int (*deallocPd)(ibv_pd *pd) = nullptr;
  ibv_mr *(*regMr)(ibv_pd *pd, void *addr, size_t length, int access) = nullptr;
  int (*deregMr)(ibv_mr *mr) = nullptr;
  ibv_comp_channel *(*createCompChannel)(ibv_context *ctx) = nullptr;
  int (*destroyCompChannel)(ibv_comp_channel *ch) = nullptr;
  ibv_cq *(*createCq)(ibv_context *ctx, int cqe, void *cqContext,
                      ibv_comp_channel *ch, int compVector) = nullptr;
  int (*destroyCq)(ibv_cq *cq) = nullptr;
  int (*getCqEvent)(ibv_comp_channel *ch, ibv_cq **cq,
                    void **cqContext) = nullptr;
  void (*ackCqEvents)(ibv_cq *cq, unsigned int n) = nullptr;
  ibv_qp *(*createQp)(ibv_pd *pd, ibv_qp_init_attr *attr) = nullptr;
  int (*modifyQp)(ibv_qp *qp, ibv_qp_attr *attr, int mask) = nullptr;
  int (*destroyQp)(ibv_qp *qp) = nullptr;
  int (*getAsyncEvent)(ibv_context *ctx, ibv_async_event *ev) = nullptr;
  void (*ackAsyncEvent)(ibv_async_event *ev) = nullptr;
  const char *(*wcStatusStr)(ibv_wc_status status) = nullptr;
  const char *(*eventTypeStr)(ibv_event_type type) = nullptr;

  /// Loads (once per path, for the life of the process) and resolves the
  /// table. Errors: HCCL_E_NOT_SUPPORT naming the library and the dlerror.
  static StatusOr<const IbvApi *> load(const std::string &path);
};

/// "libibverbs.so.1" unless HCCL_IB_LIB says otherwise.
std::string defaultIbLib(const std::string &configured);

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_IBVAPI_H
