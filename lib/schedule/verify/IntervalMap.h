//===- IntervalMap.h - Symbolic buffer contents for the verifier -*- C++ -*-===//
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
//===----------------------------------------------------------------------===//
#ifndef HCCL_SCHEDULE_VERIFY_INTERVALMAP_H
#define HCCL_SCHEDULE_VERIFY_INTERVALMAP_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace hccl::sched::vdetail {

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
public:
  void reset(int64_t size, const Val &v);
  int64_t size() const { return size_; }
  size_t segments() const { return segs_.size(); }

  /// Appends the pieces of [lo, hi), clipped, in order.
  void read(int64_t lo, int64_t hi, std::vector<Piece> &out) const;
  /// Replaces [pieces.front().lo, pieces.back().hi) with the pieces (which
  /// must be contiguous and in order) and merges equal neighbours.
  void write(const std::vector<Piece> &pieces);

private:
  struct Seg {
    int64_t hi;
    Val v;
  };
  using Iter = std::map<int64_t, Seg>::iterator;
  /// The segment containing pos (< size): tries the finger and its
  /// neighbours first, since programs touch nearby blocks step after step.
  Iter find(int64_t pos) const;
  mutable std::map<int64_t, Seg> segs_; ///< keyed by lo
  mutable Iter finger_ = segs_.end();
  int64_t size_ = 0;
};

} // namespace hccl::sched::vdetail

#endif // HCCL_SCHEDULE_VERIFY_INTERVALMAP_H
