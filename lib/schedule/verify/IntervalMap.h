//===- IntervalMap.h - Symbolic buffer contents -----------------*- C++ -*-===//
//
// Private to lib/schedule. A buffer's symbolic contents: disjoint segments
// covering [0, size), each holding one Val for all its elements. A Val says
// "element e holds (a reduction of) source element e + delta" plus the
// contribution fingerprint: count, sum of per-rank weights mod 2^64 (a
// multiset check) and a commutative, non-associative tree hash (the same
// value means the same reduction tree). Leaves (one rank's input) have
// count 1 and hash = that rank's leaf hash. count 0 = undefined.
//
// Values are relative (delta), so a contiguous move keeps them equal and
// adjacent equal segments merge: the map stays small for any n.
//
// Verifying p = 1024 keeps millions of segments alive, so map nodes come
// from a NodePool and are released with it in one go (segments hold only
// plain data, nothing to destroy).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_SCHEDULE_VERIFY_INTERVALMAP_H
#define HCCL_SCHEDULE_VERIFY_INTERVALMAP_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <vector>

namespace hccl::sched::vdetail {

/// Fixed-size node allocator: a free list over blocks.
class NodePool {
public:
  explicit NodePool(size_t blockBytes = 1 << 16) : kBlock(blockBytes) {}
  NodePool(const NodePool &) = delete;
  NodePool &operator=(const NodePool &) = delete;

  void *allocate(size_t bytes) {
    if (nodeSize_ == 0)
      nodeSize_ = bytes < sizeof(void *) ? sizeof(void *) : bytes;
    if (bytes > nodeSize_)
      return ::operator new(bytes); // not expected for std::map nodes
    if (free_) {
      void *p = free_;
      free_ = *static_cast<void **>(free_);
      return p;
    }
    if (used_ + nodeSize_ > kBlock || blocks_.empty()) {
      blocks_.emplace_back(new (
          std::align_val_t(alignof(std::max_align_t))) unsigned char[kBlock]);
      used_ = 0;
    }
    void *p = blocks_.back().get() + used_;
    used_ += (nodeSize_ + alignof(std::max_align_t) - 1) &
             ~(alignof(std::max_align_t) - 1);
    return p;
  }
  /// Storage for long-lived objects released only with the pool (the maps'
  /// headers); bump-allocated from separate blocks.
  void *allocateState(size_t bytes) {
    bytes = (bytes + alignof(std::max_align_t) - 1) &
            ~(alignof(std::max_align_t) - 1);
    if (stateBlocks_.empty() || stateUsed_ + bytes > kBlock) {
      stateBlocks_.emplace_back(new (
          std::align_val_t(alignof(std::max_align_t))) unsigned char[kBlock]);
      stateUsed_ = 0;
    }
    void *p = stateBlocks_.back().get() + stateUsed_;
    stateUsed_ += bytes;
    return p;
  }
  /// Memory held (blocks of nodes and of map headers).
  size_t bytes() const {
    return (blocks_.size() + stateBlocks_.size()) * kBlock;
  }
  void deallocate(void *p, size_t bytes) {
    if (bytes > nodeSize_) {
      ::operator delete(p);
      return;
    }
    *static_cast<void **>(p) = free_;
    free_ = p;
  }

private:
  struct Free {
    void operator()(unsigned char *p) const {
      ::operator delete[](p, std::align_val_t(alignof(std::max_align_t)));
    }
  };
  const size_t kBlock;
  std::vector<std::unique_ptr<unsigned char[], Free>> blocks_, stateBlocks_;
  size_t stateUsed_ = 0;
  void *free_ = nullptr;
  size_t nodeSize_ = 0;
  size_t used_ = 0;
};

template <typename T> struct PoolAlloc {
  using value_type = T;
  NodePool *pool;
  explicit PoolAlloc(NodePool *p) : pool(p) {}
  template <typename U> PoolAlloc(const PoolAlloc<U> &o) : pool(o.pool) {}
  T *allocate(size_t n) {
    return static_cast<T *>(pool->allocate(n * sizeof(T)));
  }
  void deallocate(T *p, size_t n) { pool->deallocate(p, n * sizeof(T)); }
  template <typename U> bool operator==(const PoolAlloc<U> &o) const {
    return pool == o.pool;
  }
  template <typename U> bool operator!=(const PoolAlloc<U> &o) const {
    return pool != o.pool;
  }
};

struct Val {
  int64_t delta = 0;
  uint64_t wsum = 0;
  uint64_t hash = 0;
  uint32_t count = 0;

  bool defined() const { return count != 0; }
  bool operator==(const Val &o) const {
    return delta == o.delta && wsum == o.wsum && hash == o.hash &&
           count == o.count;
  }
  bool operator!=(const Val &o) const { return !(*this == o); }
  /// The value seen `shift` elements further on (moved data).
  Val shifted(int64_t shift) const {
    Val v = *this;
    if (count)
      v.delta -= shift;
    return v;
  }
};

/// A run of elements [lo, hi) holding one Val.
struct Piece {
  int64_t lo, hi;
  Val v;
};

class IntervalMap {
  struct Seg {
    int64_t hi;
    Val v;
  };
  using Map = std::map<int64_t, Seg, std::less<int64_t>,
                       PoolAlloc<std::pair<const int64_t, Seg>>>;

public:
  IntervalMap() = default;
  IntervalMap(const IntervalMap &) = delete;
  IntervalMap &operator=(const IntervalMap &) = delete;
  IntervalMap(IntervalMap &&o) noexcept { *this = std::move(o); }
  IntervalMap &operator=(IntervalMap &&o) noexcept {
    std::swap(map_, o.map_);
    std::swap(size_, o.size_);
    return *this;
  }
  /// Nodes belong to the pool: the map is abandoned, not torn down.
  ~IntervalMap() = default;

  void reset(NodePool &pool, int64_t size, const Val &v);
  int64_t size() const { return size_; }
  size_t segments() const { return map_ ? map_->segs.size() : 0; }

  /// Appends the pieces of [lo, hi), clipped, in order.
  void read(int64_t lo, int64_t hi, std::vector<Piece> &out) const;
  /// Replaces [pieces.front().lo, pieces.back().hi) with the pieces (which
  /// must be contiguous and in order) and merges equal neighbours.
  void write(const std::vector<Piece> &pieces);

private:
  using Iter = Map::iterator;
  struct State {
    explicit State(NodePool &pool)
        : segs(PoolAlloc<std::pair<const int64_t, Seg>>(&pool)),
          finger{segs.end(), segs.end()} {}
    Map segs; ///< keyed by lo
    /// Last segment read / written: a rank reads one block while another
    /// block is written, and both move by one block per step.
    Iter finger[2];
  };
  /// The segment containing pos (< size): tries finger `which` (0 read,
  /// 1 write) and its neighbours before searching the tree.
  Iter find(int64_t pos, int which) const;
  // Placement-constructed in pool memory and never destroyed: every node it
  // owns lives in the same pool.
  State *map_ = nullptr;
  int64_t size_ = 0;
};

} // namespace hccl::sched::vdetail

#endif // HCCL_SCHEDULE_VERIFY_INTERVALMAP_H
