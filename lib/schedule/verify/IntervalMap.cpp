//===- IntervalMap.cpp - Segment map of symbolic buffer contents ----------===//
#include "IntervalMap.h"

namespace hccl::sched::vdetail {

void IntervalMap::reset(NodePool &pool, int64_t size, const Val &v) {
  // A re-used map simply abandons its old nodes to the pool.
  map_ = new (pool.allocateState(sizeof(State))) State(pool);
  size_ = size;
  if (size > 0)
    map_->segs.emplace(0, Seg{size, v});
  map_->finger[0] = map_->finger[1] = map_->segs.begin();
}

IntervalMap::Iter IntervalMap::find(int64_t pos, int which) const {
  Iter &finger = map_->finger[which];
  Iter it = finger;
  if (it != map_->segs.end()) {
    if (it->first <= pos) {
      if (pos < it->second.hi)
        return it;
      ++it;
      if (it != map_->segs.end() && pos < it->second.hi)
        return finger = it;
    } else if (it != map_->segs.begin()) {
      --it;
      if (it->first <= pos)
        return finger = it;
    }
  }
  it = map_->segs.upper_bound(pos);
  --it;
  return finger = it;
}

void IntervalMap::read(int64_t lo, int64_t hi, std::vector<Piece> &out) const {
  if (lo >= hi)
    return;
  for (Iter it = find(lo, 0); it != map_->segs.end() && it->first < hi; ++it) {
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
  Iter it = find(lo, 1);
  Iter &rf = map_->finger[0];
  // Keep the part of the first segment left of lo.
  if (it->first < lo) {
    Seg right = it->second;
    it->second.hi = lo;
    it = map_->segs.emplace_hint(std::next(it), lo, right);
  }
  // Drop segments inside [lo, hi); re-key a tail that reaches past hi.
  while (it != map_->segs.end() && it->first < hi) {
    // The read finger must not dangle: move it off nodes going away.
    if (it->second.hi <= hi) {
      bool moved = rf == it;
      it = map_->segs.erase(it);
      if (moved)
        rf = it;
      continue;
    }
    bool moved = rf == it;
    auto node = map_->segs.extract(it++);
    node.key() = hi;
    it = map_->segs.insert(it, std::move(node));
    if (moved)
      rf = it;
    break;
  }
  // `it` is the first segment at or after hi. Insert the pieces, merging
  // equal runs among them and with both neighbours.
  Iter prev = it == map_->segs.begin() ? map_->segs.end() : std::prev(it);
  for (const Piece &pc : pieces) {
    if (pc.lo >= pc.hi)
      continue;
    if (prev != map_->segs.end() && prev->second.hi == pc.lo &&
        prev->second.v == pc.v) {
      prev->second.hi = pc.hi;
      continue;
    }
    prev = map_->segs.emplace_hint(it, pc.lo, Seg{pc.hi, pc.v});
  }
  if (it != map_->segs.end() && prev != map_->segs.end() &&
      prev->second.hi == it->first && prev->second.v == it->second.v) {
    prev->second.hi = it->second.hi;
    if (rf == it)
      rf = prev;
    map_->segs.erase(it);
  }
  if (rf == map_->segs.end())
    rf = map_->segs.begin();
  map_->finger[1] = prev != map_->segs.end() ? prev : map_->segs.begin();
}

} // namespace hccl::sched::vdetail
