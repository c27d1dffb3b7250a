//===- Api.cpp - The libibverbs entry points of the fake ------------------===//
//
// Same names, signatures and return conventions as rdma-core 44: functions
// returning an int return 0 or an errno value (ibv_query_gid: -1), pointer
// functions return NULL and set errno. ibv_modify_qp enforces the RC state
// machine (RESET -> INIT -> RTR -> RTS, any -> RESET/ERR) with the required
// and optional attribute masks of each transition, as the kernel's
// ib_modify_qp_is_ok table does. The data path (post_send, post_recv,
// poll_cq, req_notify_cq) is reached through ibv_context::ops, as with a
// real provider.
//
//===----------------------------------------------------------------------===//
#include "FakeVerbs.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1U
#endif

using namespace fv;

namespace {

constexpr int kMaxQpWr = 16384;
constexpr int kMaxSge = 16;
constexpr int kMaxCqe = 1 << 20;
constexpr uint32_t kMaxInline = 256;

uint32_t fnv(const std::string &s) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : s)
    h = (h ^ ch) * 16777619u;
  return h;
}

/// GID table of a device: the configured one (host4/host6 filled in) or
/// link-local and IPv4-mapped addresses, each as RoCE v1 and v2.
std::vector<GidEnt> gidsFor(const Options &o, uint32_t node) {
  GidEnt ll, v4;
  ll.raw[0] = 0xfe;
  ll.raw[1] = 0x80;
  v4.raw[10] = 0xff;
  v4.raw[11] = 0xff;
  v4.raw[12] = 10;
  for (int i = 0; i < 3; ++i) {
    uint8_t b = static_cast<uint8_t>(node >> (16 - 8 * i));
    ll.raw[13 + i] = b;
    v4.raw[13 + i] = b;
  }
  ll.raw[12] = 0x0a;
  if (!o.customGids) {
    std::vector<GidEnt> t(4);
    t[0] = ll;
    t[0].type = IBV_GID_TYPE_ROCE_V1;
    t[1] = ll;
    t[1].type = IBV_GID_TYPE_ROCE_V2;
    t[2] = v4;
    t[2].type = IBV_GID_TYPE_ROCE_V1;
    t[3] = v4;
    t[3].type = IBV_GID_TYPE_ROCE_V2;
    return t;
  }
  std::vector<GidEnt> t = o.gids;
  for (GidEnt &e : t)
    if (e.raw[1] == 0xFA && e.raw[2] == 0xCE &&
        (e.raw[0] == 0xF4 || e.raw[0] == 0xF6)) {
      uint32_t type = e.type;
      e = e.raw[0] == 0xF4 ? v4 : ll;
      e.type = type;
    }
  return t;
}

bool isZero(const uint8_t *g) {
  for (int i = 0; i < 16; ++i)
    if (g[i])
      return false;
  return true;
}

std::mutex gDevMu;
// Kept for the process lifetime, and never destroyed: a map destroyed at
// exit leaves its devices unreachable when LeakSanitizer looks (the
// sanitizer leg, docs/security.md "Checks").
std::map<std::string, Device *> &gDevices =
    *new std::map<std::string, Device *>;

Context *ctxOf(ibv_context *c) { return reinterpret_cast<Context *>(c); }
Qp *qpOf(ibv_qp *q) { return reinterpret_cast<Qp *>(q); }
Cq *cqOf(ibv_cq *q) { return reinterpret_cast<Cq *>(q); }

//===----------------------------------------------------------------------===//
// Data path (ibv_context::ops)
//===----------------------------------------------------------------------===//

int opPollCq(ibv_cq *cq, int n, ibv_wc *wc) {
  Cq *q = cqOf(cq);
  std::lock_guard<std::mutex> g(q->mu);
  int k = 0;
  while (k < n && !q->q.empty()) {
    wc[k++] = q->q.front();
    q->q.pop_front();
  }
  return k;
}

int opReqNotify(ibv_cq *cq, int) {
  Cq *q = cqOf(cq);
  std::lock_guard<std::mutex> g(q->mu);
  q->armed = true;
  return 0;
}

int opPostSend(ibv_qp *ibqp, ibv_send_wr *wr, ibv_send_wr **bad) {
  Qp *qp = qpOf(ibqp);
  int rc = 0;
  {
    std::lock_guard<std::mutex> g(qp->mu);
    for (; wr; wr = wr->next) {
      if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT ||
          qp->state == IBV_QPS_RTR) {
        rc = EINVAL;
        break;
      }
      if (wr->num_sge < 0 ||
          static_cast<uint32_t>(wr->num_sge) > qp->cap.max_send_sge) {
        rc = EINVAL;
        break;
      }
      if (qp->sq.size() >= qp->cap.max_send_wr) {
        rc = ENOMEM;
        break;
      }
      if (wr->opcode != IBV_WR_RDMA_WRITE &&
          wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM &&
          wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) {
        rc = EINVAL; // READ, atomics, ...: not emulated
        break;
      }
      SendWqe w;
      w.wrId = wr->wr_id;
      w.opcode = wr->opcode;
      w.signaled = (wr->send_flags & IBV_SEND_SIGNALED) != 0;
      for (int i = 0; i < wr->num_sge; ++i) {
        w.sges.push_back(wr->sg_list[i]);
        w.total += wr->sg_list[i].length;
      }
      if (wr->send_flags & IBV_SEND_INLINE) {
        rc = EINVAL; // not offered: create_qp reports max_inline_data 0
        break;
      }
      if (w.opcode == IBV_WR_RDMA_WRITE ||
          w.opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
        w.raddr = wr->wr.rdma.remote_addr;
        w.rkey = wr->wr.rdma.rkey;
      }
      if (w.opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
          w.opcode == IBV_WR_SEND_WITH_IMM)
        w.imm = wr->imm_data;
      w.msn = qp->nextMsn++;
      if (qp->state == IBV_QPS_ERR) {
        ibv_wc wc{};
        wc.wr_id = w.wrId;
        wc.status = IBV_WC_WR_FLUSH_ERR;
        wc.opcode =
            (w.opcode == IBV_WR_SEND || w.opcode == IBV_WR_SEND_WITH_IMM)
                ? IBV_WC_SEND
                : IBV_WC_RDMA_WRITE;
        wc.qp_num = qp->qp.qp_num;
        pushCqe(qp->scq, wc);
        continue;
      }
      qp->sq.push_back(std::move(w));
    }
  }
  if (rc && bad)
    *bad = wr;
  kickNic(qp->c);
  return rc;
}

int opPostRecv(ibv_qp *ibqp, ibv_recv_wr *wr, ibv_recv_wr **bad) {
  Qp *qp = qpOf(ibqp);
  int rc = 0;
  {
    std::lock_guard<std::mutex> g(qp->mu);
    for (; wr; wr = wr->next) {
      if (qp->state == IBV_QPS_RESET) {
        rc = EINVAL;
        break;
      }
      if (wr->num_sge < 0 ||
          static_cast<uint32_t>(wr->num_sge) > qp->cap.max_recv_sge) {
        rc = EINVAL;
        break;
      }
      if (qp->rq.size() >= qp->cap.max_recv_wr) {
        rc = ENOMEM;
        break;
      }
      RecvWqe r;
      r.wrId = wr->wr_id;
      for (int i = 0; i < wr->num_sge; ++i) {
        r.sges.push_back(wr->sg_list[i]);
        r.total += wr->sg_list[i].length;
      }
      if (qp->state == IBV_QPS_ERR) {
        ibv_wc wc{};
        wc.wr_id = r.wrId;
        wc.status = IBV_WC_WR_FLUSH_ERR;
        wc.opcode = IBV_WC_RECV;
        wc.qp_num = qp->qp.qp_num;
        pushCqe(qp->rcq, wc);
        continue;
      }
      qp->rq.push_back(std::move(r));
    }
  }
  if (rc && bad)
    *bad = wr;
  kickNic(qp->c);
  return rc;
}

//===----------------------------------------------------------------------===//
// QP state machine
//===----------------------------------------------------------------------===//

struct Transition {
  ibv_qp_state from, to;
  int required, optional;
};

const Transition kTransitions[] = {
    {IBV_QPS_RESET, IBV_QPS_RESET, 0, 0},
    {IBV_QPS_RESET, IBV_QPS_INIT,
     IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
    {IBV_QPS_INIT, IBV_QPS_INIT, 0,
     IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
    {IBV_QPS_INIT, IBV_QPS_RTR,
     IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
         IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
     IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
    {IBV_QPS_RTR, IBV_QPS_RTS,
     IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
         IBV_QP_MAX_QP_RD_ATOMIC,
     IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
         IBV_QP_PATH_MIG_STATE | IBV_QP_CUR_STATE},
    {IBV_QPS_RTS, IBV_QPS_RTS, 0,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
         IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER},
};

/// 0 when `attr`/`mask` is a legal modification of a QP in state `cur`.
int checkModify(Context *c, Qp *qp, ibv_qp_state cur, const ibv_qp_attr *attr,
                int mask) {
  ibv_qp_state next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
  int rest = mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE);
  if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
    if (!(mask & IBV_QP_STATE) || rest != 0)
      return EINVAL;
    return 0;
  }
  const Transition *t = nullptr;
  for (const Transition &x : kTransitions)
    if (x.from == cur && x.to == next)
      t = &x;
  if (!t)
    return EINVAL;
  if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur)
    return EINVAL;
  if ((rest & t->required) != t->required)
    return EINVAL;
  if (rest & ~(t->required | t->optional))
    return EINVAL;
  // Attribute values.
  if ((mask & IBV_QP_PORT) && attr->port_num != 1)
    return EINVAL;
  if ((mask & IBV_QP_PKEY_INDEX) && attr->pkey_index != 0)
    return EINVAL;
  if ((mask & IBV_QP_ACCESS_FLAGS) &&
      (attr->qp_access_flags &
       ~(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
         IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)))
    return EINVAL;
  if ((mask & IBV_QP_PATH_MTU) &&
      (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096))
    return EINVAL;
  if ((mask & IBV_QP_DEST_QPN) && attr->dest_qp_num > 0xffffff)
    return EINVAL;
  if ((mask & IBV_QP_RQ_PSN) && attr->rq_psn > 0xffffff)
    return EINVAL;
  if ((mask & IBV_QP_SQ_PSN) && attr->sq_psn > 0xffffff)
    return EINVAL;
  if ((mask & IBV_QP_TIMEOUT) && attr->timeout > 31)
    return EINVAL;
  if ((mask & IBV_QP_RETRY_CNT) && attr->retry_cnt > 7)
    return EINVAL;
  if ((mask & IBV_QP_RNR_RETRY) && attr->rnr_retry > 7)
    return EINVAL;
  if ((mask & IBV_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
    return EINVAL;
  if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > 16)
    return EINVAL;
  if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > 16)
    return EINVAL;
  if (mask & IBV_QP_AV) {
    const ibv_ah_attr &ah = attr->ah_attr;
    // RoCE (Ethernet link layer): the GRH is mandatory, its source GID index
    // must name a valid entry of the port's table, the SL fits 3 bits.
    if (!ah.is_global || ah.port_num != 1 || ah.sl > 7)
      return EINVAL;
    if (ah.grh.sgid_index >= c->dev->gids.size() ||
        isZero(c->dev->gids[ah.grh.sgid_index].raw) || isZero(ah.grh.dgid.raw))
      return EINVAL;
  }
  (void)qp;
  return 0;
}

void resetQp(Qp *qp) {
  qp->sq.clear();
  qp->rq.clear();
  qp->txCursor = 0;
  qp->nextMsn = 0;
  qp->expectMsn = 0;
  qp->retries = 0;
  qp->lastProgressUs = 0;
  qp->sendActive = false;
  qp->rnrSent = false;
  qp->rnrWaiting = false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Devices and contexts
//===----------------------------------------------------------------------===//

FV_EXPORT ibv_device **ibv_get_device_list(int *num) {
  Options o = readOptions();
  if (!o.error.empty()) {
    std::fprintf(stderr, "fakeverbs: %s\n", o.error.c_str());
    errno = EINVAL;
    if (num)
      *num = 0;
    return nullptr;
  }
  std::lock_guard<std::mutex> g(gDevMu);
  auto **list = static_cast<ibv_device **>(
      calloc(o.devices.size() + 1, sizeof(ibv_device *)));
  if (!list) {
    errno = ENOMEM;
    return nullptr;
  }
  for (size_t i = 0; i < o.devices.size(); ++i) {
    uint32_t node =
        ((fnv(o.host) & 0xffff) << 8) | static_cast<uint32_t>(i + 1);
    std::vector<GidEnt> gids = gidsFor(o, node);
    std::string key =
        o.devices[i] + "/" + std::to_string(node) + "/" +
        (getenv("FAKEVERBS_GID_TABLE") ? getenv("FAKEVERBS_GID_TABLE") : "");
    bool down = false;
    for (const std::string &d : o.portDown)
      down = down || d == o.devices[i];
    key += down ? "/down" : "/up";
    Device *&d = gDevices[key];
    if (!d) {
      d = new Device();
      std::memset(&d->dev, 0, sizeof(d->dev));
      d->dev.node_type = IBV_NODE_CA;
      d->dev.transport_type = IBV_TRANSPORT_IB;
      std::snprintf(d->dev.name, sizeof(d->dev.name), "%s",
                    o.devices[i].c_str());
      std::snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "uverbs%zu", i);
      std::snprintf(d->dev.dev_path, sizeof(d->dev.dev_path),
                    "/sys/class/infiniband_verbs/uverbs%zu", i);
      std::snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path),
                    "/sys/class/infiniband/%s", o.devices[i].c_str());
      d->index = static_cast<int>(i);
      d->name = o.devices[i];
      d->node = node;
      d->gids = gids;
      d->portDown = down;
    }
    list[i] = &d->dev;
  }
  if (num)
    *num = static_cast<int>(o.devices.size());
  return list;
}

FV_EXPORT void ibv_free_device_list(ibv_device **list) { free(list); }

FV_EXPORT const char *ibv_get_device_name(ibv_device *dev) {
  return dev ? dev->name : nullptr;
}

FV_EXPORT __be64 ibv_get_device_guid(ibv_device *dev) {
  Device *d = reinterpret_cast<Device *>(dev);
  return htobe64(0x0002c90300000000ull | d->node);
}

FV_EXPORT ibv_context *ibv_open_device(ibv_device *dev) {
  Device *d = reinterpret_cast<Device *>(dev);
  auto *c = new Context();
  c->dev = d;
  c->opt = readOptions();
  if (!c->opt.error.empty()) {
    delete c;
    errno = EINVAL;
    return nullptr;
  }
  std::string err;
  c->fabric = Fabric::get(c->opt.fabric, err);
  if (!c->fabric) {
    std::fprintf(stderr, "fakeverbs: %s\n", err.c_str());
    delete c;
    errno = EIO;
    return nullptr;
  }
  c->ctxSlot = c->fabric->claimCtx(d->node, d->gids);
  if (c->ctxSlot < 0) {
    delete c;
    errno = ENOMEM;
    return nullptr;
  }
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    c->fabric->releaseCtx(c->ctxSlot);
    delete c;
    return nullptr;
  }
  ::fcntl(p[1], F_SETFL, O_NONBLOCK);
  c->asyncW = p[1];
  c->portDown.store(d->portDown);
  std::memset(&c->ctx, 0, sizeof(c->ctx));
  c->ctx.device = dev;
  c->ctx.cmd_fd = -1;
  c->ctx.async_fd = p[0];
  c->ctx.num_comp_vectors = 1;
  pthread_mutex_init(&c->ctx.mutex, nullptr);
  c->ctx.ops.poll_cq = opPollCq;
  c->ctx.ops.req_notify_cq = opReqNotify;
  c->ctx.ops.post_send = opPostSend;
  c->ctx.ops.post_recv = opPostRecv;
  c->nextKey = (fnv(std::to_string(::getpid())) & 0xfff) << 12;
  return &c->ctx;
}

FV_EXPORT int ibv_close_device(ibv_context *ctx) {
  Context *c = ctxOf(ctx);
  {
    std::lock_guard<std::mutex> g(c->qpMu);
    if (!c->qps.empty())
      return EBUSY;
  }
  stopNic(c);
  c->fabric->releaseCtx(c->ctxSlot);
  ::close(c->ctx.async_fd);
  ::close(c->asyncW);
  pthread_mutex_destroy(&c->ctx.mutex);
  delete c;
  return 0;
}

FV_EXPORT int ibv_query_device(ibv_context *ctx, ibv_device_attr *a) {
  Context *c = ctxOf(ctx);
  std::memset(a, 0, sizeof(*a));
  std::snprintf(a->fw_ver, sizeof(a->fw_ver), "fakeverbs 1.0");
  a->node_guid = ibv_get_device_guid(ctx->device);
  a->sys_image_guid = a->node_guid;
  a->max_mr_size = 1ull << 40;
  a->page_size_cap = 0xfffff000;
  a->vendor_id = 0x02c9;
  a->max_qp = static_cast<int>(kMaxQpEntries);
  a->max_qp_wr = kMaxQpWr;
  a->max_sge = kMaxSge;
  a->max_cq = 4096;
  a->max_cqe = kMaxCqe;
  a->max_mr = 1 << 20;
  a->max_pd = 1 << 16;
  a->max_qp_rd_atom = 16;
  a->max_qp_init_rd_atom = 16;
  a->max_pkeys = 1;
  a->phys_port_cnt = 1;
  (void)c;
  return 0;
}

// The exported symbol takes HCCL's compat struct: rdma-core fills the fields
// up to `flags` (the later ones exist only through the extended call).
FV_EXPORT int ibv_query_port(ibv_context *ctx, uint8_t port,
                             struct _compat_ibv_port_attr *out) {
  Context *c = ctxOf(ctx);
  if (port != 1)
    return EINVAL;
  ibv_port_attr a{};
  a.state = c->portDown.load() ? IBV_PORT_DOWN : IBV_PORT_ACTIVE;
  a.max_mtu = IBV_MTU_4096;
  a.active_mtu = IBV_MTU_1024;
  a.gid_tbl_len = static_cast<int>(c->dev->gids.size());
  a.port_cap_flags = IBV_PORT_CM_SUP;
  a.max_msg_sz = 1u << 31;
  a.pkey_tbl_len = 1;
  a.lid = 0;
  a.active_width = 2;  // 4x
  a.active_speed = 32; // EDR-class
  a.phys_state = c->portDown.load() ? 3 : 5;
  a.link_layer = IBV_LINK_LAYER_ETHERNET;
  std::memcpy(out, &a, offsetof(ibv_port_attr, flags) + sizeof(a.flags));
  return 0;
}

FV_EXPORT int ibv_query_gid(ibv_context *ctx, uint8_t port, int index,
                            ibv_gid *gid) {
  Context *c = ctxOf(ctx);
  if (port != 1 || index < 0 ||
      static_cast<size_t>(index) >= c->dev->gids.size())
    return -1;
  std::memcpy(gid->raw, c->dev->gids[static_cast<size_t>(index)].raw, 16);
  return 0;
}

FV_EXPORT int _ibv_query_gid_ex(ibv_context *ctx, uint32_t port, uint32_t index,
                                ibv_gid_entry *entry, uint32_t flags,
                                size_t size) {
  Context *c = ctxOf(ctx);
  if (flags != 0 || size < sizeof(ibv_gid_entry))
    return EINVAL;
  if (port != 1 || index >= c->dev->gids.size())
    return EINVAL;
  const GidEnt &g = c->dev->gids[index];
  if (isZero(g.raw))
    return ENODATA;
  std::memset(entry, 0, sizeof(*entry));
  std::memcpy(entry->gid.raw, g.raw, 16);
  entry->gid_index = index;
  entry->port_num = port;
  entry->gid_type = g.type;
  entry->ndev_ifindex = 0;
  return 0;
}

FV_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status) {
  static const char *const s[] = {"success",
                                  "local length error",
                                  "local QP operation error",
                                  "local EE context operation error",
                                  "local protection error",
                                  "Work Request Flushed Error",
                                  "memory management operation error",
                                  "bad response error",
                                  "local access error",
                                  "remote invalid request error",
                                  "remote access error",
                                  "remote operation error",
                                  "transport retry counter exceeded",
                                  "RNR retry counter exceeded",
                                  "local RDD violation error",
                                  "remote invalid RD request",
                                  "aborted error",
                                  "invalid EE context number",
                                  "invalid EE context state",
                                  "fatal error",
                                  "response timeout error",
                                  "general error",
                                  "TM error",
                                  "TM software rendezvous"};
  if (static_cast<unsigned>(status) >= sizeof(s) / sizeof(s[0]))
    return "unknown";
  return s[status];
}

FV_EXPORT const char *ibv_event_type_str(enum ibv_event_type ev) {
  static const char *const s[] = {"CQ error",
                                  "local work queue catastrophic error",
                                  "invalid request local work queue error",
                                  "local access violation work queue error",
                                  "communication established",
                                  "send queue drained",
                                  "path migrated",
                                  "path migration request error",
                                  "local catastrophic error",
                                  "port active",
                                  "port error",
                                  "LID change",
                                  "P_Key change",
                                  "SM change",
                                  "SRQ catastrophic error",
                                  "SRQ limit reached",
                                  "last WQE reached",
                                  "client reregistration",
                                  "GID table change",
                                  "WQ fatal"};
  if (static_cast<unsigned>(ev) >= sizeof(s) / sizeof(s[0]))
    return "unknown";
  return s[ev];
}

//===----------------------------------------------------------------------===//
// PD, MR
//===----------------------------------------------------------------------===//

FV_EXPORT ibv_pd *ibv_alloc_pd(ibv_context *ctx) {
  auto *p = new Pd();
  std::memset(&p->pd, 0, sizeof(p->pd));
  p->pd.context = ctx;
  p->c = ctxOf(ctx);
  return &p->pd;
}

FV_EXPORT int ibv_dealloc_pd(ibv_pd *pd) {
  Pd *p = reinterpret_cast<Pd *>(pd);
  Context *c = p->c;
  {
    std::shared_lock<std::shared_mutex> g(c->mrMu);
    for (auto &kv : c->mrs)
      if (kv.second->pd == p)
        return EBUSY;
  }
  {
    std::lock_guard<std::mutex> g(c->qpMu);
    for (auto &q : c->qps)
      if (q->pd == p)
        return EBUSY;
  }
  delete p;
  return 0;
}

FV_EXPORT ibv_mr *ibv_reg_mr(ibv_pd *pd, void *addr, size_t length,
                             int access) {
  Pd *p = reinterpret_cast<Pd *>(pd);
  Context *c = p->c;
  const int known = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
                    IBV_ACCESS_RELAXED_ORDERING;
  if (access & ~known) {
    errno = EINVAL;
    return nullptr;
  }
  // As the kernel: remote write or atomic access requires local write.
  if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
      !(access & IBV_ACCESS_LOCAL_WRITE)) {
    errno = EINVAL;
    return nullptr;
  }
  if (length > 0) {
    // Pinning fails on memory that is not mapped.
    long ps = ::sysconf(_SC_PAGESIZE);
    uintptr_t a =
        reinterpret_cast<uintptr_t>(addr) & ~(static_cast<uintptr_t>(ps) - 1);
    size_t span = reinterpret_cast<uintptr_t>(addr) + length - a;
    std::vector<unsigned char> vec((span + static_cast<size_t>(ps) - 1) /
                                   static_cast<size_t>(ps));
    if (::mincore(reinterpret_cast<void *>(a), span, vec.data()) != 0) {
      errno = EFAULT;
      return nullptr;
    }
  }
  auto *m = new Mr();
  std::memset(&m->mr, 0, sizeof(m->mr));
  m->pd = p;
  m->access = access;
  m->mr.context = pd->context;
  m->mr.pd = pd;
  m->mr.addr = addr;
  m->mr.length = length;
  {
    std::unique_lock<std::shared_mutex> g(c->mrMu);
    uint32_t key;
    do {
      key = ++c->nextKey;
    } while (key == 0 || c->mrs.count(key));
    m->mr.lkey = m->mr.rkey = key;
    m->mr.handle = key;
    c->mrs[key] = m;
  }
  return &m->mr;
}

FV_EXPORT ibv_mr *ibv_reg_mr_iova2(ibv_pd *pd, void *addr, size_t length,
                                   uint64_t iova, unsigned int access) {
  if (iova != reinterpret_cast<uintptr_t>(addr)) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  return ibv_reg_mr(pd, addr, length, static_cast<int>(access));
}

FV_EXPORT int ibv_dereg_mr(ibv_mr *mr) {
  Mr *m = reinterpret_cast<Mr *>(mr);
  Context *c = m->pd->c;
  {
    std::unique_lock<std::shared_mutex> g(c->mrMu);
    if (!c->mrs.erase(mr->lkey))
      return EINVAL;
  }
  delete m;
  return 0;
}

//===----------------------------------------------------------------------===//
// Completion channels and queues
//===----------------------------------------------------------------------===//

FV_EXPORT ibv_comp_channel *ibv_create_comp_channel(ibv_context *ctx) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0)
    return nullptr;
  ::fcntl(p[1], F_SETFL, O_NONBLOCK);
  auto *ch = new Channel();
  ch->ch.context = ctx;
  ch->ch.fd = p[0];
  ch->ch.refcnt = 0;
  ch->wfd = p[1];
  return &ch->ch;
}

FV_EXPORT int ibv_destroy_comp_channel(ibv_comp_channel *channel) {
  Channel *ch = reinterpret_cast<Channel *>(channel);
  if (ch->ch.refcnt != 0)
    return EBUSY;
  ::close(ch->ch.fd);
  ::close(ch->wfd);
  delete ch;
  return 0;
}

FV_EXPORT ibv_cq *ibv_create_cq(ibv_context *ctx, int cqe, void *cqContext,
                                ibv_comp_channel *channel, int compVector) {
  if (cqe < 1 || cqe > kMaxCqe || compVector != 0) {
    errno = EINVAL;
    return nullptr;
  }
  auto *q = new Cq();
  std::memset(&q->cq, 0, sizeof(q->cq));
  q->cq.context = ctx;
  q->cq.channel = channel;
  q->cq.cq_context = cqContext;
  q->cq.cqe = cqe;
  q->c = ctxOf(ctx);
  q->cap = cqe;
  q->chan = reinterpret_cast<Channel *>(channel);
  if (channel)
    ++channel->refcnt;
  return &q->cq;
}

FV_EXPORT int ibv_destroy_cq(ibv_cq *cq) {
  Cq *q = cqOf(cq);
  {
    std::lock_guard<std::mutex> g(q->c->qpMu);
    for (auto &qp : q->c->qps)
      if (qp->scq == q || qp->rcq == q)
        return EBUSY;
  }
  {
    // rdma-core waits until every event was acknowledged; a consumer that
    // forgets ibv_ack_cq_events would hang there. Report it instead.
    std::lock_guard<std::mutex> g(q->mu);
    if (q->acked != q->events) {
      std::fprintf(stderr,
                   "fakeverbs: ibv_destroy_cq with %llu unacknowledged "
                   "completion events "
                   "(rdma-core would block forever)\n",
                   static_cast<unsigned long long>(q->events - q->acked));
      return EBUSY;
    }
  }
  if (q->chan)
    --q->chan->ch.refcnt;
  delete q;
  return 0;
}

FV_EXPORT int ibv_get_cq_event(ibv_comp_channel *channel, ibv_cq **cq,
                               void **cqContext) {
  ibv_cq *p = nullptr;
  ssize_t n = ::read(channel->fd, &p, sizeof(p));
  if (n != static_cast<ssize_t>(sizeof(p)))
    return -1;
  *cq = p;
  *cqContext = p->cq_context;
  return 0;
}

FV_EXPORT void ibv_ack_cq_events(ibv_cq *cq, unsigned int n) {
  Cq *q = cqOf(cq);
  std::lock_guard<std::mutex> g(q->mu);
  q->acked += n;
}

FV_EXPORT int ibv_get_async_event(ibv_context *ctx, ibv_async_event *ev) {
  ssize_t n = ::read(ctx->async_fd, ev, sizeof(*ev));
  return n == static_cast<ssize_t>(sizeof(*ev)) ? 0 : -1;
}

FV_EXPORT void ibv_ack_async_event(ibv_async_event *) {}

//===----------------------------------------------------------------------===//
// Queue pairs
//===----------------------------------------------------------------------===//

FV_EXPORT ibv_qp *ibv_create_qp(ibv_pd *pd, ibv_qp_init_attr *init) {
  Pd *p = reinterpret_cast<Pd *>(pd);
  Context *c = p->c;
  if (init->qp_type != IBV_QPT_RC || !init->send_cq || !init->recv_cq ||
      init->srq || init->cap.max_send_wr > static_cast<uint32_t>(kMaxQpWr) ||
      init->cap.max_recv_wr > static_cast<uint32_t>(kMaxQpWr) ||
      init->cap.max_send_sge > static_cast<uint32_t>(kMaxSge) ||
      init->cap.max_recv_sge > static_cast<uint32_t>(kMaxSge) ||
      init->cap.max_inline_data > kMaxInline) {
    errno = EINVAL;
    return nullptr;
  }
  auto qp = std::make_shared<Qp>();
  qp->c = c;
  qp->pd = p;
  qp->scq = cqOf(init->send_cq);
  qp->rcq = cqOf(init->recv_cq);
  qp->sigAll = init->sq_sig_all != 0;
  qp->cap = init->cap;
  qp->cap.max_inline_data = 0;
  init->cap.max_inline_data = 0;
  qp->slot = c->fabric->claimQp();
  if (qp->slot < 0) {
    errno = ENOMEM;
    return nullptr;
  }
  qp->mapBytes = 2 * sizeof(RingHdr) + kReqRingBytes + kRspRingBytes;
  qp->memfd = static_cast<int>(
      ::syscall(SYS_memfd_create, "fakeverbs-qp", MFD_CLOEXEC));
  if (qp->memfd < 0 ||
      ::ftruncate(qp->memfd, static_cast<off_t>(qp->mapBytes)) != 0) {
    int e = errno;
    if (qp->memfd >= 0)
      ::close(qp->memfd);
    c->fabric->releaseQp(qp->slot);
    errno = e;
    return nullptr;
  }
  void *m = ::mmap(nullptr, qp->mapBytes, PROT_READ | PROT_WRITE, MAP_SHARED,
                   qp->memfd, 0);
  if (m == MAP_FAILED) {
    int e = errno;
    ::close(qp->memfd);
    c->fabric->releaseQp(qp->slot);
    errno = e;
    return nullptr;
  }
  qp->map = m;
  char *base = static_cast<char *>(m);
  qp->reqIn.h = reinterpret_cast<RingHdr *>(base);
  qp->reqIn.data = base + sizeof(RingHdr);
  qp->reqIn.h->cap = kReqRingBytes;
  qp->rspIn.h =
      reinterpret_cast<RingHdr *>(base + sizeof(RingHdr) + kReqRingBytes);
  qp->rspIn.data = base + 2 * sizeof(RingHdr) + kReqRingBytes;
  qp->rspIn.h->cap = kRspRingBytes;

  QpEntry &e = c->fabric->dir()->qp[qp->slot];
  e.pid = ::getpid();
  e.fd = qp->memfd;
  e.ctxSlot = static_cast<uint32_t>(c->ctxSlot);
  e.node = c->dev->node;
  e.ringBytes = qp->mapBytes;
  e.state.store(2);

  std::memset(&qp->qp, 0, sizeof(qp->qp));
  qp->qp.context = pd->context;
  qp->qp.qp_context = init->qp_context;
  qp->qp.pd = pd;
  qp->qp.send_cq = init->send_cq;
  qp->qp.recv_cq = init->recv_cq;
  qp->qp.qp_num = kQpnBase + static_cast<uint32_t>(qp->slot);
  qp->qp.handle = qp->qp.qp_num;
  qp->qp.state = IBV_QPS_RESET;
  qp->qp.qp_type = IBV_QPT_RC;
  {
    std::lock_guard<std::mutex> g(c->qpMu);
    c->qps.push_back(qp);
  }
  startNic(c);
  return &qp->qp;
}

FV_EXPORT int ibv_modify_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int mask) {
  Qp *qp = qpOf(ibqp);
  std::lock_guard<std::mutex> g(qp->mu);
  int rc = checkModify(qp->c, qp, qp->state, attr, mask);
  if (rc)
    return rc;
  ibv_qp_state next = (mask & IBV_QP_STATE) ? attr->qp_state : qp->state;
  if (mask & IBV_QP_PORT)
    qp->port = attr->port_num;
  if (mask & IBV_QP_ACCESS_FLAGS)
    qp->access = attr->qp_access_flags;
  if (mask & IBV_QP_PKEY_INDEX)
    qp->pkeyIndex = attr->pkey_index;
  if (mask & IBV_QP_PATH_MTU)
    qp->mtu = attr->path_mtu;
  if (mask & IBV_QP_DEST_QPN)
    qp->destQpn = attr->dest_qp_num;
  if (mask & IBV_QP_RQ_PSN)
    qp->rqPsn = attr->rq_psn;
  if (mask & IBV_QP_SQ_PSN)
    qp->sqPsn = attr->sq_psn;
  if (mask & IBV_QP_AV)
    qp->ah = attr->ah_attr;
  if (mask & IBV_QP_TIMEOUT)
    qp->timeout = attr->timeout;
  if (mask & IBV_QP_RETRY_CNT)
    qp->retryCnt = attr->retry_cnt;
  if (mask & IBV_QP_RNR_RETRY)
    qp->rnrRetry = attr->rnr_retry;
  if (mask & IBV_QP_MIN_RNR_TIMER)
    qp->minRnrTimer = attr->min_rnr_timer;
  if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
    qp->maxRdAtomic = attr->max_rd_atomic;
  if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
    qp->maxDestRdAtomic = attr->max_dest_rd_atomic;
  if (next == IBV_QPS_ERR) {
    qpToError(qp);
  } else {
    if (next == IBV_QPS_RESET)
      resetQp(qp);
    qp->state = next;
    qp->qp.state = next;
  }
  if (next == IBV_QPS_RTS)
    qp->lastProgressUs = 0;
  kickNic(qp->c);
  return 0;
}

FV_EXPORT int ibv_query_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int,
                           ibv_qp_init_attr *init) {
  Qp *qp = qpOf(ibqp);
  std::lock_guard<std::mutex> g(qp->mu);
  std::memset(attr, 0, sizeof(*attr));
  attr->qp_state = qp->state;
  attr->cur_qp_state = qp->state;
  attr->path_mtu = qp->mtu;
  attr->qp_access_flags = qp->access;
  attr->pkey_index = qp->pkeyIndex;
  attr->port_num = qp->port;
  attr->dest_qp_num = qp->destQpn;
  attr->rq_psn = qp->rqPsn;
  attr->sq_psn = qp->sqPsn;
  attr->ah_attr = qp->ah;
  attr->timeout = qp->timeout;
  attr->retry_cnt = qp->retryCnt;
  attr->rnr_retry = qp->rnrRetry;
  attr->min_rnr_timer = qp->minRnrTimer;
  attr->max_rd_atomic = qp->maxRdAtomic;
  attr->max_dest_rd_atomic = qp->maxDestRdAtomic;
  attr->cap = qp->cap;
  if (init) {
    std::memset(init, 0, sizeof(*init));
    init->send_cq = &qp->scq->cq;
    init->recv_cq = &qp->rcq->cq;
    init->cap = qp->cap;
    init->qp_type = IBV_QPT_RC;
    init->sq_sig_all = qp->sigAll;
  }
  return 0;
}

FV_EXPORT int ibv_destroy_qp(ibv_qp *ibqp) {
  Qp *raw = qpOf(ibqp);
  Context *c = raw->c;
  std::shared_ptr<Qp> keep;
  {
    std::lock_guard<std::mutex> g(c->qpMu);
    for (auto it = c->qps.begin(); it != c->qps.end(); ++it)
      if (it->get() == raw) {
        keep = *it;
        c->qps.erase(it);
        break;
      }
  }
  if (!keep)
    return EINVAL;
  std::lock_guard<std::mutex> g(raw->mu);
  raw->destroyed = true;
  c->fabric->releaseQp(raw->slot);
  ::close(raw->memfd);
  raw->memfd = -1;
  ::munmap(raw->map, raw->mapBytes);
  raw->map = nullptr;
  if (raw->peerMap)
    ::munmap(raw->peerMap, raw->peerMapBytes);
  raw->peerMap = nullptr;
  raw->peerResolved = false;
  raw->sq.clear();
  raw->rq.clear();
  return 0;
}
