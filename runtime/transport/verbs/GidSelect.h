//===- GidSelect.h - RoCE GID index selection -------------------*- C++ -*-===//
//
// A RoCE port has a GID table: one entry per (IP address, RoCE version) of
// its network device. RoCE v2 (routable, UDP/IP) with an IPv4-mapped
// address is what HCCL and NCCL use by default; HCCL_RDMA_GID_INDEX
// overrides the choice. Pure functions over a table, so the rules are unit
// tested without a device.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_GIDSELECT_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_GIDSELECT_H

#include "common/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hccl::rt::verbs {

enum class GidKind { IB, RoCEv1, RoCEv2 };
const char *gidKindName(GidKind k); // "IB", "RoCE v1", "RoCE v2"

using Gid = std::array<uint8_t, 16>;

struct GidEntryInfo {
  uint32_t index = 0;
  Gid gid{};
  GidKind kind = GidKind::RoCEv2;
};

struct GidChoice {
  uint32_t index = 0;
  Gid gid{};
  GidKind kind = GidKind::RoCEv2;
};

/// "::ffff:10.0.0.1" / "fe80::1".
std::string gidString(const Gid &g);
bool gidIsZero(const Gid &g);
bool gidIsIpv4Mapped(const Gid &g);
bool gidIsLinkLocal(const Gid &g);

/// Chooses an entry of `table` (empty entries are absent from it). With
/// `override` (HCCL_RDMA_GID_INDEX) that index must be present; otherwise,
/// in order of preference: RoCE v2 IPv4-mapped, RoCE v2 global IPv6, RoCE
/// v2 link-local, RoCE v1 IPv4-mapped, other RoCE v1, IB; lowest index
/// first among equals. `where` names the port in errors
/// ("mlx5_0 port 1").
StatusOr<GidChoice> selectGid(const std::vector<GidEntryInfo> &table,
                              std::optional<uint32_t> override,
                              const std::string &where);

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_GIDSELECT_H
