//===- RootInfo.h - The opaque HcclRootInfo blob ----------------*- C++ -*-===//
//
// HcclGetRootInfo's blob carries the root's rendezvous address and a unique
// communicator id and key. Layout (inside the 4108 bytes): magic, version,
// id, port, IP text, key, checksum; anything else is zero. A blob that fails
// the checks is rejected with a message instead of being trusted.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_ROOTINFO_H
#define HCCL_RUNTIME_BOOTSTRAP_ROOTINFO_H

#include "bootstrap/Auth.h"
#include "common/Status.h"

#include <array>
#include <cstdint>
#include <string>

namespace hccl::rt {

/// 128-bit communicator id.
struct Uid {
  std::array<uint8_t, 16> b{};
  static Uid random();
  /// Deterministic child id (all ranks compute the same): parent id mixed
  /// with a label and numbers.
  Uid derive(const std::string &label, uint64_t a, uint64_t b2 = 0) const;
  std::string hex() const;
  bool operator==(const Uid &o) const { return b == o.b; }
  bool operator!=(const Uid &o) const { return b != o.b; }
  bool operator<(const Uid &o) const { return b < o.b; }
};

struct RootInfoData {
  Uid uid;
  /// The communicator's key: whoever holds the blob may join.
  Key key;
  std::string ip;
  uint16_t port = 0;
};

/// Writes the blob (HCCL_ROOT_INFO_BYTES) into `out`.
void encodeRootInfo(const RootInfoData &d, char *out);
/// Reads and validates a blob.
StatusOr<RootInfoData> decodeRootInfo(const char *blob);

/// 64-bit FNV-1a, for ids and checksums.
uint64_t fnv1a(const void *data, size_t len,
               uint64_t h = 1469598103934665603ull);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_ROOTINFO_H
