//===- ProgramCache.cpp - Generated programs, per call shape --------------===//
#include "core/ProgramCache.h"
#include "common/Status.h"

namespace hccl::rt {

size_t ProgramKeyHash::operator()(const ProgramKey &k) const {
  int64_t v[] = {
      static_cast<int64_t>(k.coll),
      static_cast<int64_t>(k.dtype),
      static_cast<int64_t>(k.op),
      k.p,
      k.n,
      k.root,
      static_cast<int64_t>(k.extra),
      static_cast<int64_t>(reinterpret_cast<intptr_t>(k.planProgram))};
  // A word-wise multiply-xorshift: byte-wise FNV-1a over these 64 bytes
  // took about 250 of the 330 cycles a cache hit cost, on every call.
  uint64_t h = 0;
  for (int64_t x : v) {
    h = (h ^ static_cast<uint64_t>(x)) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  return static_cast<size_t>(h);
}

std::shared_ptr<const CompiledProgram> ProgramCache::get(const ProgramKey &k) {
  auto it = map_.find(k);
  if (it == map_.end())
    return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void ProgramCache::put(const ProgramKey &k,
                       std::shared_ptr<const CompiledProgram> v) {
  auto it = map_.find(k);
  if (it != map_.end()) {
    it->second->second = std::move(v);
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.emplace_front(k, std::move(v));
  map_[k] = lru_.begin();
  while (map_.size() > capacity_) {
    map_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

std::vector<int32_t> findReaders(const sched::RankProgram &rp,
                                 size_t maxPairs) {
  std::vector<int32_t> reader(rp.ops.size(), -1);
  struct Sent {
    size_t step;
    const sched::ConcreteOp *op;
  };
  std::vector<Sent> sends;
  size_t writes = 0;
  for (size_t si = 0; si < rp.steps.size(); ++si)
    for (uint32_t i = 0; i < rp.steps[si].numOps; ++i) {
      const sched::ConcreteOp &op = rp.ops[rp.steps[si].firstOp + i];
      if (op.kind == sched::OpKind::Send && op.count > 0)
        sends.push_back({si, &op});
      writes += sched::opHasDst(op.kind);
    }
  if (sends.empty() || writes > maxPairs / sends.size())
    return reader;
  for (size_t si = 0; si < rp.steps.size(); ++si)
    for (uint32_t i = 0; i < rp.steps[si].numOps; ++i) {
      size_t idx = rp.steps[si].firstOp + i;
      const sched::ConcreteOp &w = rp.ops[idx];
      if (!sched::opHasDst(w.kind) || w.count == 0)
        continue;
      for (const Sent &s : sends)
        if (s.step > si && s.op->srcBuf == w.dstBuf &&
            s.op->srcOff < w.dstOff + w.count &&
            w.dstOff < s.op->srcOff + s.op->count) {
          reader[idx] = static_cast<int32_t>(s.op->peer);
          break;
        }
    }
  return reader;
}

Status validateRankProgram(const sched::RankProgram &rp, int64_t p) {
  auto inBounds = [&](sched::BufferId b, int64_t off, int64_t count) {
    int64_t size = rp.bufferSize[static_cast<int>(b)];
    return off >= 0 && count >= 0 && off <= size && count <= size - off;
  };
  for (size_t i = 0; i < rp.ops.size(); ++i) {
    const sched::ConcreteOp &op = rp.ops[i];
    std::string where =
        "op " + std::to_string(i) + " (" + sched::opKindName(op.kind) + ")";
    if (op.count < 0)
      return errPara(where + " has a negative count");
    if (sched::opHasPeer(op.kind) &&
        (op.peer < 0 || op.peer >= p || op.peer == rp.rank))
      return errPara(where + " names peer " + std::to_string(op.peer) +
                     ", outside 0.." + std::to_string(p - 1) + " or this rank");
    if (sched::opHasDst(op.kind) && !inBounds(op.dstBuf, op.dstOff, op.count))
      return errPara(where + " writes outside " + sched::bufferName(op.dstBuf));
    if (op.kind == sched::OpKind::Reduce) {
      if (op.srcN < 1)
        return errPara(where + " reduces " + std::to_string(op.srcN) +
                       " sources");
      for (int64_t k = 0; k < op.srcN; ++k)
        if (!inBounds(op.srcBuf, op.srcOff + k * op.srcStride, op.count))
          return errPara(where + " reads outside " +
                         sched::bufferName(op.srcBuf));
    } else if (sched::opHasSrc(op.kind) &&
               !inBounds(op.srcBuf, op.srcOff, op.count)) {
      return errPara(where + " reads outside " + sched::bufferName(op.srcBuf));
    }
    if (op.kind != sched::OpKind::Send && op.dstBuf == sched::BufferId::Input)
      return errPara(where + " writes the input buffer");
  }
  return Status::ok();
}

} // namespace hccl::rt
