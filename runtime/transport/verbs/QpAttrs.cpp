//===- QpAttrs.cpp - RC queue pair attributes for each transition ---------===//
#include "transport/verbs/QpAttrs.h"

#include <algorithm>
#include <cstring>

namespace hccl::rt::verbs {

QpSettings qpSettingsFrom(const Config &cfg) {
  QpSettings s;
  s.trafficClass = static_cast<uint8_t>(cfg.rdmaTrafficClass);
  s.serviceLevel = static_cast<uint8_t>(cfg.rdmaServiceLevel);
  s.timeout = static_cast<uint8_t>(cfg.rdmaTimeout);
  s.retryCnt = static_cast<uint8_t>(cfg.rdmaRetryCnt);
  return s;
}

void initAttrs(uint8_t port, ibv_qp_attr &attr, int &mask) {
  std::memset(&attr, 0, sizeof(attr));
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = port;
  // The peer writes into our receive slots and credit word.
  attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
}

void rtrAttrs(const QpSettings &s, const PortAddress &local,
              const PortAddress &remote, const QpEndpoint &peer,
              ibv_qp_attr &attr, int &mask) {
  std::memset(&attr, 0, sizeof(attr));
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = std::min(local.mtu, remote.mtu);
  attr.dest_qp_num = peer.qpn;
  attr.rq_psn = peer.psn;
  attr.max_dest_rd_atomic = 1;
  attr.min_rnr_timer = s.minRnrTimer;
  ibv_ah_attr &ah = attr.ah_attr;
  ah.port_num = local.port;
  ah.sl = s.serviceLevel;
  ah.src_path_bits = 0;
  if (local.ethernet) {
    // RoCE: addressed by GID; the traffic class carries DSCP (x 4) for PFC.
    ah.is_global = 1;
    ah.grh.sgid_index = static_cast<uint8_t>(local.gidIndex);
    std::memcpy(ah.grh.dgid.raw, remote.gid.data(), 16);
    ah.grh.traffic_class = s.trafficClass;
    ah.grh.hop_limit = s.hopLimit;
    ah.grh.flow_label = 0;
  } else {
    ah.is_global = 0;
    ah.dlid = remote.lid;
  }
  mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
         IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

void rtsAttrs(const QpSettings &s, const QpEndpoint &self, ibv_qp_attr &attr,
              int &mask) {
  std::memset(&attr, 0, sizeof(attr));
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = self.psn;
  attr.timeout = s.timeout;
  attr.retry_cnt = s.retryCnt;
  attr.rnr_retry = s.rnrRetry;
  attr.max_rd_atomic = 1;
  mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
         IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

double retryWindowMs(const QpSettings &s) {
  return 4.096e-3 * static_cast<double>(1ull << s.timeout) * (s.retryCnt + 1);
}

} // namespace hccl::rt::verbs
