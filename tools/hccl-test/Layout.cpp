//===- Layout.cpp - Buffer shapes and bandwidth factors per collective ----===//
#include "Layout.h"

namespace hccltest {

uint64_t alltoallvCount(uint64_t m, uint32_t from, uint32_t to) {
  uint64_t delta = (static_cast<uint64_t>(from) + 2ull * to) % 3; // 0, 1, 2
  return m + delta >= 1 ? m + delta - 1 : 0;
}

Layout layoutFor(Op op, uint64_t sizeBytes, size_t elemSize, uint32_t rank,
                 uint32_t nRanks) {
  Layout l;
  uint64_t p = nRanks;
  switch (op) {
  case Op::AllReduce:
  case Op::Broadcast:
  case Op::Reduce:
    l.count = sizeBytes / elemSize;
    l.sendElems = l.recvElems = l.count;
    l.dataBytes = l.count * elemSize;
    break;
  case Op::AllGather:
  case Op::AllGatherV:
    l.count = sizeBytes / (elemSize * p);
    l.sendElems = l.count;
    l.recvElems = l.count * p;
    l.dataBytes = l.recvElems * elemSize;
    if (op == Op::AllGatherV) // as hccl_test: every rank the same count
      for (uint32_t j = 0; j < nRanks; ++j) {
        l.recvCounts.push_back(l.count);
        l.rdispls.push_back(j * l.count);
      }
    break;
  case Op::ReduceScatter:
  case Op::ReduceScatterV:
  case Op::Scatter:
    l.count = sizeBytes / (elemSize * p);
    l.sendElems = l.count * p;
    l.recvElems = l.count;
    l.dataBytes = l.sendElems * elemSize;
    if (op == Op::ReduceScatterV)
      for (uint32_t j = 0; j < nRanks; ++j) {
        l.sendCounts.push_back(l.count);
        l.sdispls.push_back(j * l.count);
      }
    break;
  case Op::AllToAll:
    l.count = sizeBytes / (elemSize * p);
    l.sendElems = l.recvElems = l.count * p;
    l.dataBytes = l.sendElems * elemSize;
    break;
  case Op::AllToAllV: {
    uint64_t m = sizeBytes / (elemSize * p);
    l.count = m;
    l.sendCounts.resize(p);
    l.sdispls.resize(p);
    l.recvCounts.resize(p);
    l.rdispls.resize(p);
    uint64_t s = 0, r = 0, sent = 0;
    for (uint32_t j = 0; j < nRanks; ++j) {
      l.sendCounts[j] = alltoallvCount(m, rank, j);
      l.sdispls[j] = s;
      s += l.sendCounts[j] + 1;
      sent += l.sendCounts[j];
      l.recvCounts[j] = alltoallvCount(m, j, rank);
      l.rdispls[j] = r;
      r += l.recvCounts[j] + 1;
    }
    l.sendElems = s;
    l.recvElems = r;
    l.dataBytes = sent * elemSize;
    break;
  }
  }
  return l;
}

double busBandwidthFactor(Op op, uint32_t nRanks) {
  double p = nRanks;
  switch (op) {
  case Op::AllReduce:
    return 2.0 * (p - 1) / p;
  case Op::AllGather:
  case Op::ReduceScatter:
  case Op::AllToAll:
  case Op::AllToAllV:
  case Op::Scatter:
  case Op::AllGatherV:
  case Op::ReduceScatterV:
    return (p - 1) / p;
  case Op::Broadcast:
  case Op::Reduce:
    return 1.0;
  }
  return 1.0;
}

bool isReductionOp(Op op) {
  return op == Op::AllReduce || op == Op::ReduceScatter || op == Op::Reduce ||
         op == Op::ReduceScatterV;
}

} // namespace hccltest
