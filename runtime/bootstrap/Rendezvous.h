//===- Rendezvous.h - Star all-gather of rank descriptions ------*- C++ -*-===//
//
// Every rank sends a description of itself (its address, host, pid, ...) to
// the root; once all have arrived the root sends everyone the full table.
// When ranks are missing at the deadline (HCCL_CONNECT_TIMEOUT), the root
// tells the ranks that did come which ones are missing, and everybody fails
// with the same message.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_RENDEZVOUS_H
#define HCCL_RUNTIME_BOOTSTRAP_RENDEZVOUS_H

#include "bootstrap/Listener.h"

#include <string>
#include <vector>

namespace hccl::rt {

/// Root side: the root is rank `rootRank` (any rank; HcclGetRootInfo may be
/// called on any of them) and `myInfo` its entry. Returns all entries by
/// rank.
StatusOr<std::vector<std::string>>
rendezvousRoot(Listener &listener, const Uid &uid, int nRanks,
               const std::string &myInfo, const Deadline &deadline,
               const std::string &timeoutName, int rootRank = 0);

/// Other ranks. `rootKey` is the key of the root's listener.
/// `connectDeadline` (optional, earlier) bounds reaching the root: the
/// caller may then retry with a fresher address.
StatusOr<std::vector<std::string>>
rendezvousJoin(const SockAddr &root, const Uid &uid, const Key &rootKey,
               int nRanks, int rank, const std::string &myInfo,
               const Deadline &deadline, const std::string &timeoutName,
               const Deadline *connectDeadline = nullptr);

/// The root's reply as a joining rank reads it: the table of `nRanks`
/// entries, or the root's verdict ("E" + code + message) as a failed status.
/// Any other bytes are an error, never a crash (test/fuzz/runtime).
StatusOr<std::vector<std::string>>
decodeRendezvousReply(const std::string &reply, int nRanks);

/// "1, 4, 7" (at most 32 listed, then "... (N in total)").
std::string formatRankList(const std::vector<int> &ranks);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_RENDEZVOUS_H
