//===- GidSelect.cpp - RoCE GID index selection ---------------------------===//
#include "transport/verbs/GidSelect.h"

#include <arpa/inet.h>

namespace hccl::rt::verbs {

const char *gidKindName(GidKind k) {
  switch (k) {
  case GidKind::IB:
    return "IB";
  case GidKind::RoCEv1:
    return "RoCE v1";
  case GidKind::RoCEv2:
    return "RoCE v2";
  }
  return "?";
}

std::string gidString(const Gid &g) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (!inet_ntop(AF_INET6, g.data(), buf, sizeof(buf)))
    return "?";
  return buf;
}

bool gidIsZero(const Gid &g) {
  for (uint8_t b : g)
    if (b)
      return false;
  return true;
}

bool gidIsIpv4Mapped(const Gid &g) {
  for (int i = 0; i < 10; ++i)
    if (g[static_cast<size_t>(i)])
      return false;
  return g[10] == 0xff && g[11] == 0xff;
}

bool gidIsLinkLocal(const Gid &g) {
  return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

namespace {
int rank(const GidEntryInfo &e) {
  switch (e.kind) {
  case GidKind::RoCEv2:
    if (gidIsIpv4Mapped(e.gid))
      return 0;
    return gidIsLinkLocal(e.gid) ? 2 : 1;
  case GidKind::RoCEv1:
    return gidIsIpv4Mapped(e.gid) ? 3 : 4;
  case GidKind::IB:
    return 5;
  }
  return 6;
}
} // namespace

StatusOr<GidChoice> selectGid(const std::vector<GidEntryInfo> &table,
                              std::optional<uint32_t> override,
                              const std::string &where) {
  std::string valid;
  for (const GidEntryInfo &e : table)
    if (!gidIsZero(e.gid))
      valid += (valid.empty() ? "" : ", ") + std::to_string(e.index);
  if (valid.empty())
    return Status(HCCL_E_NOT_SUPPORT,
                  where + " has an empty GID table (no IP address on its "
                          "network device?)");
  if (override) {
    for (const GidEntryInfo &e : table)
      if (e.index == *override && !gidIsZero(e.gid))
        return GidChoice{e.index, e.gid, e.kind};
    return errPara("HCCL_RDMA_GID_INDEX=" + std::to_string(*override) + ": " +
                   where +
                   " has no GID at that index (valid indices: " + valid + ")");
  }
  const GidEntryInfo *best = nullptr;
  for (const GidEntryInfo &e : table) {
    if (gidIsZero(e.gid))
      continue;
    if (!best || rank(e) < rank(*best) ||
        (rank(e) == rank(*best) && e.index < best->index))
      best = &e;
  }
  return GidChoice{best->index, best->gid, best->kind};
}

} // namespace hccl::rt::verbs
