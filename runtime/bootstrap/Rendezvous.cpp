//===- Rendezvous.cpp - Star all-gather of rank descriptions --------------===//
#include "bootstrap/Rendezvous.h"

#include <cstring>

namespace hccl::rt {

namespace {

std::string encodeTable(const std::vector<std::string> &infos) {
  std::string out = "T";
  uint32_t n = static_cast<uint32_t>(infos.size());
  out.append(reinterpret_cast<const char *>(&n), 4);
  for (const auto &s : infos) {
    uint32_t l = static_cast<uint32_t>(s.size());
    out.append(reinterpret_cast<const char *>(&l), 4);
    out += s;
  }
  return out;
}

std::string encodeError(const Status &st) {
  std::string out = "E";
  int32_t c = static_cast<int32_t>(st.code());
  out.append(reinterpret_cast<const char *>(&c), 4);
  return out + st.message();
}

} // namespace

StatusOr<std::vector<std::string>> decodeRendezvousReply(const std::string &s,
                                                         int nRanks) {
  if (s.size() >= 5 && s[0] == 'E') {
    int32_t c;
    std::memcpy(&c, s.data() + 1, 4);
    // Only an error code is a verdict: success would read as an empty
    // table, and a number outside HcclResult is no value of it.
    if (c <= HCCL_SUCCESS || c >= HCCL_E_RESERVED)
      return errInternal("malformed rendezvous reply (error code " +
                         std::to_string(c) + ")");
    return Status(static_cast<HcclResult>(c), s.substr(5));
  }
  if (s.size() < 5 || s[0] != 'T')
    return errInternal("malformed rendezvous reply");
  uint32_t n;
  std::memcpy(&n, s.data() + 1, 4);
  if (n != static_cast<uint32_t>(nRanks))
    return errInternal("rendezvous reply has " + std::to_string(n) +
                       " entries, expected " + std::to_string(nRanks));
  std::vector<std::string> out;
  size_t pos = 5;
  for (uint32_t i = 0; i < n; ++i) {
    if (pos + 4 > s.size())
      return errInternal("truncated rendezvous reply");
    uint32_t l;
    std::memcpy(&l, s.data() + pos, 4);
    pos += 4;
    if (pos + l > s.size())
      return errInternal("truncated rendezvous reply");
    out.push_back(s.substr(pos, l));
    pos += l;
  }
  return out;
}

std::string formatRankList(const std::vector<int> &ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size() && i < 32; ++i)
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 32)
    s += ", ... (" + std::to_string(ranks.size()) + " in total)";
  return s;
}

StatusOr<std::vector<std::string>>
rendezvousRoot(Listener &listener, const Uid &uid, int nRanks,
               const std::string &myInfo, const Deadline &deadline,
               const std::string &timeoutName, int rootRank) {
  std::vector<std::string> infos(static_cast<size_t>(nRanks));
  std::vector<Fd> conns(static_cast<size_t>(nRanks));
  infos[static_cast<size_t>(rootRank)] = myInfo;
  int arrived = 1;
  while (arrived < nRanks) {
    auto a = listener.acceptFor(uid, ConnPurpose::Rendezvous, deadline);
    if (!a) {
      if (a.status().code() != HCCL_E_TIMEOUT)
        return a.status();
      std::vector<int> missing;
      for (int r = 0; r < nRanks; ++r)
        if (r != rootRank && !conns[static_cast<size_t>(r)].valid())
          missing.push_back(r);
      Status st(HCCL_E_TIMEOUT, "communicator init timed out after " +
                                    timeoutName + ": " +
                                    std::to_string(missing.size()) + " of " +
                                    std::to_string(nRanks) +
                                    " ranks never arrived (missing ranks: " +
                                    formatRankList(missing) + ")");
      for (auto &c : conns)
        if (c.valid())
          (void)sendFrame(c.get(), encodeError(st), Deadline::afterMs(1000));
      return st;
    }
    const Hello &h = a->hello;
    Status bad;
    if (h.nRanks != nRanks)
      bad = errPara("rank " + std::to_string(h.rank) +
                    " says the communicator has " + std::to_string(h.nRanks) +
                    " ranks, the root says " + std::to_string(nRanks));
    else if (h.rank < 0 || h.rank >= nRanks || h.rank == rootRank)
      bad = errPara("rank " + std::to_string(h.rank) + " is out of range 0.." +
                    std::to_string(nRanks - 1) + " or the root's (rank " +
                    std::to_string(rootRank) + ")");
    else if (conns[static_cast<size_t>(h.rank)].valid())
      bad = errPara("two processes claim rank " + std::to_string(h.rank));
    if (!bad.isOk()) {
      (void)sendFrame(a->fd.get(), encodeError(bad), Deadline::afterMs(1000));
      continue;
    }
    infos[static_cast<size_t>(h.rank)] = std::move(a->payload);
    conns[static_cast<size_t>(h.rank)] = std::move(a->fd);
    ++arrived;
  }
  std::string table = encodeTable(infos);
  for (int r = 0; r < nRanks; ++r) {
    if (r == rootRank)
      continue;
    Status st = sendFrame(conns[static_cast<size_t>(r)].get(), table, deadline);
    if (!st.isOk())
      return st.withContext("sending the rank table to rank " +
                            std::to_string(r));
  }
  // Wait for every rank to confirm, so that a rank that died meanwhile is
  // noticed here and not in the first collective.
  for (int r = 0; r < nRanks; ++r) {
    if (r == rootRank)
      continue;
    char ack = 0;
    Status st = recvAll(conns[static_cast<size_t>(r)].get(), &ack, 1, deadline);
    if (!st.isOk() || ack != 'A')
      return Status(HCCL_E_TCP_CONNECT, "rank " + std::to_string(r) +
                                            " left during communicator init (" +
                                            st.message() + ")");
  }
  return infos;
}

StatusOr<std::vector<std::string>>
rendezvousJoin(const SockAddr &root, const Uid &uid, const Key &rootKey,
               int nRanks, int rank, const std::string &myInfo,
               const Deadline &deadline, const std::string &timeoutName,
               const Deadline *connectDeadline) {
  Hello h;
  h.uid = uid;
  h.purpose = static_cast<uint32_t>(ConnPurpose::Rendezvous);
  h.rank = rank;
  h.nRanks = nRanks;
  auto fd = connectWithHello(root, h, myInfo, rootKey,
                             connectDeadline ? deadline.min(*connectDeadline)
                                             : deadline);
  if (!fd) {
    if (fd.status().code() == HCCL_E_TIMEOUT)
      return Status(HCCL_E_TIMEOUT,
                    "communicator init timed out after " + timeoutName +
                        ": cannot reach the root at " + root.str() +
                        " (missing ranks: 0, or the rank "
                        "whose process made the root "
                        "info): " +
                        fd.status().message());
    return fd.status().withContext("connecting to the root at " + root.str());
  }
  // The root times out at about the same moment and then sends its verdict
  // (which ranks are missing); allow a little longer to hear it.
  Deadline replyDl =
      deadline.infinite()
          ? deadline
          : Deadline::afterMs(deadline.remainingMs(1ll << 40) + 2000);
  auto reply = recvFrame(fd->get(), replyDl);
  if (!reply) {
    if (reply.status().code() == HCCL_E_TIMEOUT)
      return Status(HCCL_E_TIMEOUT,
                    "communicator init timed out after " + timeoutName +
                        " waiting for the root at " + root.str() +
                        " to hear from every rank");
    return Status(HCCL_E_TCP_CONNECT,
                  "lost the connection to the root at " + root.str() +
                      " during init: " + reply.status().message());
  }
  auto table = decodeRendezvousReply(*reply, nRanks);
  if (!table)
    return table.status();
  char ack = 'A';
  HCCL_RT_TRY(sendAll(fd->get(), &ack, 1, deadline));
  return table;
}

} // namespace hccl::rt
