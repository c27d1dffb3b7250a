//===- Protocol.h - Wire protocol of the verbs transport --------*- C++ -*-===//
//
// Per direction of a connection, the receiver owns a ring of kSlots slots of
// kSlotBytes, registered for remote write and advertised to the sender at
// set-up (address + rkey). The sender writes chunk k of its message stream
// into slot k % kSlots with RDMA WRITE_WITH_IMM, on queue pair
// k % HCCL_RDMA_QPS_PER_CONNECTION; the 32-bit immediate says which slot
// and how many bytes (and whether the chunk starts with a WireHeader), so
// the receiver's completion alone tells it where the data is.
//
// Credits: a sender never has more than kSlots chunks unconsumed. The
// receiver returns its consumed count by RDMA WRITE_WITH_IMM of 8 bytes into
// the sender's registered credit word (immediate kCreditImm wakes the
// sender); it does so every kCreditBatch slots, which cannot stall a sender
// (it only waits when all kSlots are outstanding).
//
// Control: BYE (graceful close) is a SEND on queue pair 0, after the data;
// ABORT travels on the bootstrap TCP socket, which stays open beside the
// queue pairs and also tells a dead peer (EOF) from one that left.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_PROTOCOL_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_PROTOCOL_H

#include "common/Status.h"
#include "transport/Transport.h"
#include "transport/verbs/QpAttrs.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hccl::rt::verbs {

constexpr uint32_t kSlots = 8;
constexpr uint32_t kSlotBytes = 256 * 1024;
constexpr uint32_t kCreditBatch = 2;
constexpr uint32_t kHeaderBytes = sizeof(WireHeader);
/// Receive WQEs per queue pair: data chunks (<= kSlots in flight), credit
/// writes and BYE.
constexpr uint32_t kRecvsPerQp = kSlots + 8;
constexpr uint32_t kSendsPerQp = kSlots + 16;
constexpr uint32_t kCtrlMsgBytes = 64;

// Immediate data: [31:24] slot, [23] header flag, [22:0] bytes in the slot.
constexpr uint32_t kImmSlotShift = 24;
constexpr uint32_t kImmHeaderBit = 1u << 23;
constexpr uint32_t kImmLenMask = (1u << 23) - 1;
constexpr uint32_t kCreditImm = 0xFFu << kImmSlotShift; ///< slot 255
static_assert(kSlots < 255, "slot 255 marks credit writes");
static_assert(kSlotBytes <= kImmLenMask, "slot size must fit the immediate");
static_assert((kSlotBytes - kHeaderBytes) % 16 == 0,
              "chunks stay element-aligned");

inline uint32_t encodeImm(uint32_t slot, bool header, uint32_t bytes) {
  return (slot << kImmSlotShift) | (header ? kImmHeaderBit : 0) |
         (bytes & kImmLenMask);
}
struct ImmFields {
  uint32_t slot;
  bool header;
  uint32_t bytes;
};
inline ImmFields decodeImm(uint32_t imm) {
  return ImmFields{imm >> kImmSlotShift, (imm & kImmHeaderBit) != 0,
                   imm & kImmLenMask};
}

/// What one side tells the other at set-up (JSON on the bootstrap socket).
struct ConnInfo {
  std::string device; ///< "mlx5_0 port 1" (messages)
  PortAddress port;
  std::vector<QpEndpoint> qps;
  uint64_t ringAddr = 0;
  uint32_t ringKey = 0;
  uint32_t slots = kSlots;
  uint32_t slotBytes = kSlotBytes;
  uint64_t creditAddr = 0;
  uint32_t creditKey = 0;

  std::string encode() const;
  /// Errors name the peer and what is malformed.
  static StatusOr<ConnInfo> decode(const std::string &s, int peer);
};

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_PROTOCOL_H
