//===- Split.cpp - Sub-communicators --------------------------------------===//
//
// A child communicator is built like any other (rendezvous, then pairs); its
// rendezvous is held on the parent listener of the child's rank 0, whose
// address every member already knows from the parent's rank table. Child ids
// derive from the parent's, so the members agree without talking.
//
//===----------------------------------------------------------------------===//
#include "bootstrap/RootInfo.h"
#include "core/Communicator.h"

#include <algorithm>
#include <set>

namespace hccl::rt {

namespace {
StatusOr<std::unique_ptr<Communicator>>
buildChild(const std::vector<int> &members, int myIndex, const Uid &uid,
           const Key &parentKey, const std::vector<RankInfo> &parentInfos,
           const std::shared_ptr<Listener> &parentListener, const Config &cfg,
           const std::string &name, const AlgorithmPolicy &parentPolicy) {
  CommInit in;
  in.nRanks = static_cast<int>(members.size());
  in.rank = myIndex;
  in.uid = uid;
  // The rendezvous is on the parent's listener (the parent's key); the
  // child's own listener gets a key only the parent's members can derive.
  in.rootKey = parentKey;
  in.key = deriveKey(parentKey, "child communicator", uid);
  in.cfg = cfg;
  in.name = name;
  // The child lies where its members lie on the parent's topology, so it
  // chooses as the compiler does for that group.
  in.rankTable = parentPolicy.topology();
  in.sharedCores = parentPolicy.sharedCores();
  for (int m : members)
    in.topologyRanks.push_back(parentPolicy.ranks()[static_cast<size_t>(m)]);
  const RankInfo &root = parentInfos[static_cast<size_t>(members[0])];
  auto addr = SockAddr::parse(root.ip, root.port);
  if (!addr)
    return addr.status();
  in.root = *addr;
  if (myIndex == 0)
    in.rendezvous = parentListener;
  return Communicator::create(std::move(in));
}
} // namespace

StatusOr<std::unique_ptr<Communicator>> Communicator::split(int color, int key,
                                                            const Config &cfg) {
  std::vector<int64_t> mine = {color, key};
  std::vector<int64_t> all(static_cast<size_t>(size_) * 2);
  HCCL_RT_TRY(allGather(mine.data(), all.data(), 2, sched::DataType::Int64));
  uint64_t splitNo = ++splitCount_;
  if (color < 0)
    return std::unique_ptr<Communicator>();
  std::vector<std::pair<int64_t, int>> order;
  for (int r = 0; r < size_; ++r)
    if (all[static_cast<size_t>(2 * r)] == color)
      order.emplace_back(all[static_cast<size_t>(2 * r + 1)], r);
  std::sort(order.begin(), order.end());
  std::vector<int> members;
  int me = -1;
  for (auto &o : order) {
    if (o.second == rank_)
      me = static_cast<int>(members.size());
    members.push_back(o.second);
  }
  Uid child = uid_.derive("split", splitNo, static_cast<uint64_t>(color));
  return buildChild(members, me, child, key_, infos_, listener_, cfg,
                    name_ + "/split" + std::to_string(splitNo) + "." +
                        std::to_string(color),
                    policy_);
}

StatusOr<std::unique_ptr<Communicator>>
Communicator::subComm(const std::vector<int> &ranks, uint64_t id, int subRank,
                      const Config &cfg) {
  HCCL_RT_TRY(guard());
  if (ranks.empty())
    return errPara("HcclCreateSubCommConfig: rankNum is 0");
  std::set<int> seen;
  for (int r : ranks) {
    if (r < 0 || r >= size_)
      return errPara("HcclCreateSubCommConfig: rank " + std::to_string(r) +
                     " is outside the parent communicator (size " +
                     std::to_string(size_) + ")");
    if (!seen.insert(r).second)
      return errPara("HcclCreateSubCommConfig: rank " + std::to_string(r) +
                     " is listed twice");
  }
  if (subRank < 0 || subRank >= static_cast<int>(ranks.size()))
    return errPara("HcclCreateSubCommConfig: subCommRankId " +
                   std::to_string(subRank) + " is outside 0.." +
                   std::to_string(ranks.size() - 1));
  if (ranks[static_cast<size_t>(subRank)] != rank_)
    return errPara("HcclCreateSubCommConfig: rankIds[" +
                   std::to_string(subRank) + "] is " +
                   std::to_string(ranks[static_cast<size_t>(subRank)]) +
                   " but this process is rank " + std::to_string(rank_));
  uint64_t h = fnv1a(ranks.data(), ranks.size() * sizeof(int));
  Uid child = uid_.derive("sub", id, h);
  return buildChild(ranks, subRank, child, key_, infos_, listener_, cfg,
                    name_ + "/sub" + std::to_string(id), policy_);
}

} // namespace hccl::rt
