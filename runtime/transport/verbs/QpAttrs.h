//===- QpAttrs.h - RC queue pair attributes for each transition -*- C++ -*-===//
//
// The attributes and masks of RESET->INIT, INIT->RTR and RTR->RTS, built
// from HCCL's RoCE variables: HCCL_RDMA_TC (traffic class, default 132 =
// DSCP 33), HCCL_RDMA_SL (service level, 4), HCCL_RDMA_TIMEOUT (ack timeout
// exponent: 4.096 us x 2^20 = 4.3 s), HCCL_RDMA_RETRY_CNT (7). Kept apart
// from the connection code so the choices are unit tested.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_QPATTRS_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_QPATTRS_H

#include "config/Config.h"
#include "transport/verbs/GidSelect.h"

#include <infiniband/verbs.h>

namespace hccl::rt::verbs {

struct QpSettings {
  uint8_t trafficClass = 132;
  uint8_t serviceLevel = 4;
  uint8_t timeout = 20;
  uint8_t retryCnt = 7;
  uint8_t rnrRetry = 7;     ///< 7 = retry forever (receives are always posted)
  uint8_t minRnrTimer = 12; ///< 0.64 ms
  uint8_t hopLimit = 64;
};

QpSettings qpSettingsFrom(const Config &cfg);

/// One side of a connection as the peer needs it.
struct QpEndpoint {
  uint32_t qpn = 0;
  uint32_t psn = 0; ///< first packet sequence number (24 bits)
};

/// Where the local port is and how it is addressed.
struct PortAddress {
  uint8_t port = 1;
  bool ethernet = true; ///< RoCE (GRH required) vs InfiniBand (LID)
  uint16_t lid = 0;
  uint32_t gidIndex = 0;
  Gid gid{};
  ibv_mtu mtu = IBV_MTU_1024;
};

void initAttrs(uint8_t port, ibv_qp_attr &attr, int &mask);
/// `remote` is the peer's port; the path MTU is the smaller of both.
void rtrAttrs(const QpSettings &s, const PortAddress &local,
              const PortAddress &remote, const QpEndpoint &peer,
              ibv_qp_attr &attr, int &mask);
void rtsAttrs(const QpSettings &s, const QpEndpoint &self, ibv_qp_attr &attr,
              int &mask);

/// 4.096 us x 2^timeout x (retry + 1), in ms: how long a silent peer takes
/// to fail a request.
double retryWindowMs(const QpSettings &s);

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_QPATTRS_H
