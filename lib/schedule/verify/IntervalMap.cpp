//===- IntervalMap.cpp - Segment map of symbolic buffer contents ----------===//
#include "IntervalMap.h"

namespace hccl::sched::vdetail {

void IntervalMap::reset(int64_t size, const Val &v) {
  segs_.clear();
  size_ = size;
  if (size > 0)
    segs_.emplace(0, Seg{size, v});
  finger_ = segs_.begin();
}

IntervalMap::Iter IntervalMap::find(int64_t pos) const {
  Iter it = finger_;
  if (it != segs_.end()) {
    if (it->first <= pos) {
      if (pos < it->second.hi)
        return it;
      ++it;
      if (it != segs_.end() && pos < it->second.hi)
        return finger_ = it;
    } else if (it != segs_.begin()) {
      --it;
      if (it->first <= pos)
        return finger_ = it;
    }
  }
  it = segs_.upper_bound(pos);
  --it;
  return finger_ = it;
}

void IntervalMap::read(int64_t lo, int64_t hi,
                       std::vector<Piece> &out) const {
  if (lo >= hi)
    return;
  for (Iter it = find(lo); it != segs_.end() && it->first < hi; ++it) {
    int64_t a = it->first > lo ? it->first : lo;
    int64_t b = it->second.hi < hi ? it->second.hi : hi;
    out.push_back({a, b, it->second.v});
  }
}

void IntervalMap::write(const std::vector<Piece> &pieces) {
  if (pieces.empty())
    return;
  const int64_t lo = pieces.front().lo, hi = pieces.back().hi;
  if (lo >= hi)
    return;
  Iter it = find(lo);
  // Keep the part of the first segment left of lo.
  if (it->first < lo) {
    Seg right = it->second;
    it->second.hi = lo;
    it = segs_.emplace_hint(std::next(it), lo, right);
  }
  // Drop segments inside [lo, hi); re-key a tail that reaches past hi.
  while (it != segs_.end() && it->first < hi) {
    if (it->second.hi <= hi) {
      it = segs_.erase(it);
      continue;
    }
    auto node = segs_.extract(it++);
    node.key() = hi;
    it = segs_.insert(it, std::move(node));
    break;
  }
  // `it` is the first segment at or after hi. Insert the pieces, merging
  // equal runs among them and with both neighbours.
  Iter prev = it == segs_.begin() ? segs_.end() : std::prev(it);
  for (const Piece &pc : pieces) {
    if (pc.lo >= pc.hi)
      continue;
    if (prev != segs_.end() && prev->second.hi == pc.lo &&
        prev->second.v == pc.v) {
      prev->second.hi = pc.hi;
      continue;
    }
    prev = segs_.emplace_hint(it, pc.lo, Seg{pc.hi, pc.v});
  }
  if (it != segs_.end() && prev != segs_.end() && prev->second.hi == it->first &&
      prev->second.v == it->second.v) {
    prev->second.hi = it->second.hi;
    segs_.erase(it);
  }
  finger_ = prev != segs_.end() ? prev : segs_.begin();
}

} // namespace hccl::sched::vdetail
