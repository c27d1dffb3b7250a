//===- ProgramCache.h - Generated programs, per call shape ------*- C++ -*-===//
//
// Selecting an algorithm, generating its program and expanding it for this
// rank costs microseconds to milliseconds; training loops repeat the same
// few call shapes. The cache maps a call shape to the expanded program,
// least recently used entries go first.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_PROGRAMCACHE_H
#define HCCL_RUNTIME_CORE_PROGRAMCACHE_H

#include "common/Status.h"
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Program.h"

#include <array>
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>

namespace hccl::rt {

struct ProgramKey {
  sched::Collective coll = sched::Collective::AllReduce;
  sched::DataType dtype = sched::DataType::Int8;
  sched::ReduceOp op = sched::ReduceOp::Sum;
  int64_t p = 1, n = 0, root = 0;
  uint64_t extra = 0; ///< hash of all-to-all-v tables
  /// A plan's program (its address; CompiledProgram::owner tells whether it
  /// is still the same one), null for generated collectives.
  const void *planProgram = nullptr;

  bool operator==(const ProgramKey &o) const {
    return coll == o.coll && dtype == o.dtype && op == o.op && p == o.p &&
           n == o.n && root == o.root && extra == o.extra &&
           planProgram == o.planProgram;
  }
};

struct ProgramKeyHash {
  size_t operator()(const ProgramKey &k) const;
};

/// A program expanded for this rank, with byte sizes of its buffers.
struct CompiledProgram {
  sched::Program prog;
  sched::RankProgram rp;
  std::array<size_t, sched::kNumBuffers> bufferBytes{0, 0, 0};
  size_t elemBytes = 1;
  /// Per op of rp.ops: the (program-local) peer that a later step of this
  /// rank sends the op's destination to, -1 when none does. The executor
  /// streams such writes past its cache when that peer reads zero-copy.
  std::vector<int32_t> reader;
  /// Plan programs only: the plan that holds the program (expired once the
  /// plan is freed, so a new plan at the same address misses), and the
  /// hash of its group, which numbers its calls.
  std::weak_ptr<const void> owner;
  uint64_t groupHash = 0;
};

/// CompiledProgram::reader for `rp`. Programs with more than `maxPairs`
/// (write, send) pairs to compare get no readers (all -1): the scan is
/// quadratic and the gain is a store hint.
std::vector<int32_t> findReaders(const sched::RankProgram &rp,
                                 size_t maxPairs = size_t(1) << 24);

/// Checks that every op of `rp` stays inside its buffers and that peers are
/// in range (plans come from files; generated programs pass trivially).
Status validateRankProgram(const sched::RankProgram &rp, int64_t p);

class ProgramCache {
public:
  explicit ProgramCache(size_t capacity = 256) : capacity_(capacity) {}
  std::shared_ptr<const CompiledProgram> get(const ProgramKey &k);
  void put(const ProgramKey &k, std::shared_ptr<const CompiledProgram> v);
  size_t size() const { return map_.size(); }

private:
  using Entry = std::pair<ProgramKey, std::shared_ptr<const CompiledProgram>>;
  size_t capacity_;
  std::list<Entry> lru_;
  std::unordered_map<ProgramKey, std::list<Entry>::iterator, ProgramKeyHash>
      map_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_PROGRAMCACHE_H
